#include "core/models/impes3d_part.hpp"

#include <algorithm>

#include "core/base/error.hpp"
#include "core/physics/impes3d.h"

namespace poreflow {

Decomposition decompose_impes(const ImpesInput& in, const ImpesGeometry& geo, int processes, bool even_cuts) {
  const auto& g = in.grid;
  DecomposeOptions o;
  o.active.assign(g.cells(), 0);
  for (long k = 0; k < g.nz; ++k)
    for (long j = 0; j < g.ny; ++j)
      for (long i = 0; i < g.nx; ++i) o.active[g.index(i, j, k)] = geo.pv0[geo.at(i, j, k)] > 0;
  o.cut_ok[0].assign(static_cast<std::size_t>(g.nx) + 1, 1);
  o.cut_ok[1].assign(static_cast<std::size_t>(g.ny) + 1, 1);
  if (even_cuts)
    for (int d = 0; d < 2; ++d)
      for (std::size_t c = 1; c < o.cut_ok[d].size(); c += 2) o.cut_ok[d][c] = 0;
  // no boundary between a well's first and last column along x or y
  for (const auto& w : in.wells) {
    if (w.completions.empty()) continue;
    long lo[2] = {w.completions[0].i, w.completions[0].j}, hi[2] = {lo[0], lo[1]};
    for (const auto& c : w.completions) {
      lo[0] = std::min(lo[0], c.i), hi[0] = std::max(hi[0], c.i);
      lo[1] = std::min(lo[1], c.j), hi[1] = std::max(hi[1], c.j);
    }
    for (int d = 0; d < 2; ++d)
      for (long c = lo[d] + 1; c <= hi[d]; ++c) o.cut_ok[d][static_cast<std::size_t>(c)] = 0;
  }
  o.constraint = std::string("keep each well's completions on one process") + (even_cuts ? " and cut at even indices" : "");
  return decompose(g.nx, g.ny, g.nz, processes, o);
}

ImpesPart make_impes_part(const ImpesInput& in, const ImpesGeometry& geo, const ImpesWellArrays& wa, const Decomposition& d,
                          int rank) {
  ImpesPart part;
  part.dec = d;
  part.rank = rank;
  part.box = d.box(rank);
  const RankBox& b = part.box;
  const auto& g = in.grid;
  ImpesGeometry& lg = part.geo;
  lg.box = Box3::standalone(b.nx, b.ny, b.nz, 1);
  const std::size_t E = lg.box.extent();
  for (auto* v : {&lg.tx, &lg.ty, &lg.tz, &lg.depth, &lg.pv0}) v->assign(E, 0.0);
  // the box with its halo: the whole grid's arrays have a halo of 1 too, so every index is there
  for (long k = -1; k <= b.nz; ++k)
    for (long j = -1; j <= b.ny; ++j)
      for (long i = -1; i <= b.nx; ++i) {
        const long L = lg.at(i, j, k), G = geo.at(b.i0 + i, b.j0 + j, b.k0 + k);
        lg.tx[L] = geo.tx[G];
        lg.ty[L] = geo.ty[G];
        lg.tz[L] = geo.tz[G];
        lg.depth[L] = geo.depth[G];
        if (phys::pf_box_inside(lg.box.view(), i, j, k)) {
          lg.pv0[L] = geo.pv0[G];
          if (lg.pv0[L] > 0) {
            ++lg.active;
            lg.pore_volume += lg.pv0[L];
          }
        }
      }
  part.cells.reserve(static_cast<std::size_t>(b.cells()));
  for (long k = 0; k < b.nz; ++k)
    for (long j = 0; j < b.ny; ++j)
      for (long i = 0; i < b.nx; ++i) part.cells.push_back(g.index(b.i0 + i, b.j0 + j, b.k0 + k));

  // the completions of the wells whose first completion lies here (all of a well's do: the cuts
  // avoid its columns), in well order
  ImpesWellArrays& lw = part.wa;
  lw.ccell.assign(E, -1);
  const pf_box3 v = lg.box.view();
  for (std::size_t w = 0; w < in.wells.size(); ++w) {
    const auto& cs = in.wells[w].completions;
    int owner = 0;
    if (!cs.empty()) owner = d.owner(cs[0].i, cs[0].j, cs[0].k);
    for (const auto& c : cs)
      if (d.owner(c.i, c.j, c.k) != owner)
        throw Error("impes3d: well " + in.wells[w].name + " is split between processes " + std::to_string(owner) + " and " +
                    std::to_string(d.owner(c.i, c.j, c.k)) + " (the decomposition keeps wells whole)");
    part.owner.push_back(owner);
    lw.first.push_back(static_cast<long>(lw.cwi.size()));
    lw.ref_depth.push_back(wa.ref_depth[w]);
    if (owner != rank) {
      lw.count.push_back(0);
      continue;
    }
    lw.count.push_back(wa.count[w]);
    for (long c = wa.first[w]; c < wa.first[w] + wa.count[w]; ++c) {
      const auto& x = cs[static_cast<std::size_t>(c - wa.first[w])];
      const long i = x.i - b.i0, j = x.j - b.j0, k = x.k - b.k0;
      const long L = lg.at(i, j, k);
      lw.ccell[static_cast<std::size_t>(L)] = static_cast<int>(lw.cwi.size());
      lw.cidx.push_back(L);
      lw.cidx.push_back(phys::pf_rb_of(v, i, j, k));
      lw.cwi.push_back(wa.cwi[static_cast<std::size_t>(c)]);
      lw.cdepth.push_back(wa.cdepth[static_cast<std::size_t>(c)]);
    }
  }
  return part;
}

ImpesState slice_state(const ImpesState& st, const ImpesGeometry& geo, const ImpesPart& part) {
  const Box3& lb = part.geo.box;
  const RankBox& b = part.box;
  ImpesState s;
  for (auto* v : {&s.p, &s.sw, &s.mw, &s.mo}) v->assign(lb.extent(), 0.0);
  for (long k = -1; k <= b.nz; ++k)
    for (long j = -1; j <= b.ny; ++j)
      for (long i = -1; i <= b.nx; ++i) {
        const long L = lb.at(i, j, k), G = geo.at(b.i0 + i, b.j0 + j, b.k0 + k);
        s.p[L] = st.p[G];
        if (!phys::pf_box_inside(lb.view(), i, j, k)) continue;
        s.sw[L] = st.sw[G];
        s.mw[L] = st.mw[G];
        s.mo[L] = st.mo[G];
      }
  return s;
}

std::string describe_part(const ImpesPart& part) { return part.dec.describe() + "; each well's completions on one process"; }

}  // namespace poreflow
