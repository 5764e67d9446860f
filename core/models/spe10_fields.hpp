#pragma once
// A reproducible rock of the shape of SPE10 model 2 (Christie and Blunt 2001: 60 x 220 x 85 cells,
// a smooth shallow-marine Tarbert section over a fluvial Upper Ness one) for solver tests and
// benches on realistic coefficient contrasts; not the SPE's data, which are not redistributed here.
//
// The top 35/85 of the layers are Tarbert-like: laterally correlated log-normal permeability whose
// layer means wander from layer to layer. The rest is Upper Ness-like: a low-permeability floodplain
// cut by sinuous high-permeability channels that run along y, a few cells wide and a few layers
// thick. kx = ky, kz = 0.1 kx; porosity follows log10 k with a scatter of its own. Statistics of the
// default field are in docs/linalg.md ("An SPE10-like field").
//
// Deterministic on every machine: the generator's own 64-bit stream (splitmix64, as
// impes3d_fields), Gaussian deviates as sums of uniforms and an exponential of its own, so the
// values use only IEEE-exact operations (+, -, *, /, sqrt) and no library function whose last bit
// may differ between platforms; the file is compiled without contraction into FMAs.
#include <cstdint>
#include <string>
#include <vector>

namespace poreflow {

struct Spe10Fields {
  int nx = 0, ny = 0, nz = 0;
  int tarbert_layers = 0;                 // layers 0 .. tarbert_layers - 1 (k = 0 on top)
  std::vector<double> kx, ky, kz, poro;   // mD and fraction; nx ny nz values, i fastest, k = 0 on top
  double channel_fraction = 0;            // of the Upper Ness cells
};

// ConfigError for sizes below 1 or above 4096 a side.
Spe10Fields generate_spe10_like(int nx = 60, int ny = 220, int nz = 85, std::uint64_t seed = 1);

// The distribution of a field: min, percentiles (nearest rank), max, mean and the geometric mean.
struct FieldStats {
  double min = 0, p01 = 0, p10 = 0, p50 = 0, p90 = 0, p99 = 0, max = 0, mean = 0, geo_mean = 0;
};
FieldStats field_stats(const std::vector<double>& v);  // geo_mean 0 unless every value is > 0

// FNV-1a over the bit patterns of kx, ky, kz and poro: equal fields, equal words (the tests' and
// the INCLUDE files' fingerprint)
std::uint64_t fingerprint(const Spe10Fields& f);

}  // namespace poreflow
