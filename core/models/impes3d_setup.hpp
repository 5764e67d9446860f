#pragma once
// From an ImpesInput to what the kernels take: the grid's arrays in the box layout (transmissibilities,
// depths, pore volumes), the parameter and table array, the wells' arrays, the initial state. Host
// code, once per run (and per schedule change for a well's parameters).
#include <string>
#include <vector>

#include "core/models/impes3d_input.hpp"

namespace poreflow {

// Eclipse METRIC's Darcy constant: mD m2 / (m cP) to sm3 / (day bar)
constexpr double kDarcyMetric = 9.869232667160130e-16 * 1e5 / 1e-3 * 86400;  // 1 mD (as OPM defines it) bar/(cP m) in m/day
constexpr double kGravityMetric = 9.80665e-5;  // bar per m per kg/m3

// Peaceman's well index of a vertical well in a cell (kx, ky in mD; dx, dy, h in m; rw the
// wellbore radius), sm3 cP / (day bar).
double peaceman_wi(double kx, double ky, double dx, double dy, double h, double rw, double skin);

// The grid's arrays in the layout of box (a halo of 1, zeros there).
struct ImpesGeometry {
  Box3 box;
  std::vector<double> tx, ty, tz, depth, pv0;
  std::size_t active = 0;
  double pore_volume = 0;  // at the reference pressure, m3
  long at(long i, long j, long k) const { return box.at(i, j, k); }
};
ImpesGeometry build_geometry(const ImpesGrid& g);

// prm: the IMP_* scalars and the tables (core/physics/impes3d.h)
std::vector<double> build_prm(const ImpesFluid& f);

// The wells' arrays: completions in well order, each well's parameters for a setting.
struct ImpesWellArrays {
  std::vector<long> cidx;               // per completion: box index, colour-packed index
  std::vector<double> cwi, cdepth;      // per completion
  std::vector<int> ccell;               // per box cell: its completion or -1
  std::vector<long> first, count;       // per well
  std::vector<double> ref_depth;        // per well
};
ImpesWellArrays build_wells(const ImpesInput& in, const ImpesGeometry& geo);
// the IMP_NWP parameters of well w for a setting
std::vector<double> well_params(const ImpesWell& w, const WellSetting& s, const ImpesWellArrays& wa, std::size_t index);

// The initial pressure and S_w per cell (box layout): explicit values, or the discrete equilibrium
// of each column (the potentials of both phases equal between vertical neighbours, with the
// face densities the kernels use), started from the continuous profile of ImpesInitial.
struct ImpesState {
  std::vector<double> p, sw, mw, mo;  // box layout
};
ImpesState initial_state(const ImpesInput& in, const ImpesGeometry& geo, const std::vector<double>& prm);

}  // namespace poreflow
