#pragma once
// The oil-water fluid of the fim tests: PVTW, ROCK, PVDO and SWOF with p_c, every table's
// segments of different slopes (tests/test_fim_physics.cpp, tests/test_fim_assemble.cpp).
#include "core/models/impes3d_input.hpp"

namespace poreflow::test {

inline ImpesFluid fim_fluid() {
  ImpesFluid f;
  f.pvtw = {200.0, 1.02, 4.5e-5, 0.45, 1e-5};
  f.rock = {200.0, 5e-5};
  f.pvdo.p = {50, 150, 250, 350, 450};
  f.pvdo.bo = {1.20, 1.17, 1.15, 1.13, 1.11};
  f.pvdo.muo = {1.6, 1.8, 2.0, 2.2, 2.4};
  f.swof.sw = {0.2, 0.35, 0.5, 0.65, 0.8};
  f.swof.krw = {0.0, 0.05, 0.15, 0.3, 0.5};
  f.swof.krow = {0.9, 0.5, 0.25, 0.08, 0.0};
  f.swof.pcow = {4.0, 1.5, 0.7, 0.3, 0.1};
  return f;
}

}  // namespace poreflow::test
