#pragma once
// Reproducible heterogeneous rock for generated cases (paper 003's case 2 is a real field whose
// data is not public): layered fields correlated laterally (smoothed noise) and between
// neighbouring layers, mapped onto the ranges of porosity and of horizontal and vertical
// permeability (log-uniform), with permeability following porosity. The same seed gives the same
// fields on every machine (own generator, no std:: distributions).
#include <cstdint>
#include <vector>

namespace poreflow {

struct LayeredFieldSpec {
  std::uint64_t seed = 1;
  double kh_min = 100, kh_max = 1000;  // mD
  double kv_min = 10, kv_max = 100;
  double poro_min = 0.15, poro_max = 0.3;
  double correlation_length = 5;  // cells, laterally
  double layer_correlation = 0.7; // of a layer's field with the one above, in [0, 1)
};

struct LayeredFields {
  std::vector<double> kh, kv, poro;  // nx ny nz values, i fastest, k = 0 on top
};

LayeredFields generate_layered(int nx, int ny, int nz, const LayeredFieldSpec& spec);

}  // namespace poreflow
