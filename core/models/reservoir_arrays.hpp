#pragma once
// The device arrays every scheme of the reservoir model reads (core/models/impes3d.hpp): the static
// grid and tables, the wells' completions and parameters, and the state (pressure, masses, S_w).
// Defined in core/models/impes3d_step.cpp.
#include <memory>

#include "core/comm/halo_exchange.hpp"
#include "core/kernels/field.hpp"
#include "core/kernels/impes3d.hpp"
#include "core/models/impes3d_input.hpp"
#include "core/models/impes3d_setup.hpp"

namespace poreflow {

template <class T>
struct ReservoirArrays {
  ReservoirArrays(Backend& be, const ImpesInput& in, const ImpesGeometry& geo, const ImpesWellArrays& wa,
                  const std::vector<double>& prm, const ImpesState& initial, TableSpace tables);
  std::size_t extent() const { return geo_box.extent(); }
  // decomposed: each well's words (IMP_NWO a well) from the process that holds it, on every
  // process (the others' zeroed, then summed); nothing in one process
  void combine_wells(const Communicator& comm, std::vector<double>& words) const;

  Box3 geo_box;
  Field<T> tx, ty, tz, depth, pv0, prm;  // static
  Field<T> p, mw, mo, sw;                // the state
  Field<T> wp, cwi, cdepth;              // wells: parameters per well, well index and depth per completion
  std::unique_ptr<Buffer> cidx, ccell;
  Impes3DGrid grid;
  Impes3DTables tables;
  long wells = 0, completions = 0;
  // a decomposed run (core/models/impes3d_part.hpp): the exchange of the box's ghosts (one value a
  // cell under IMPES, two under the fully implicit scheme), per well whether its completions are
  // here (its words from the device count), and the box's first cell in the grid (a message names
  // a cell by the grid's indices); nullptr, empty and 0 in one process
  const HaloExchange* halo = nullptr;
  std::vector<char> own_well;
  long origin[3] = {0, 0, 0};
};

}  // namespace poreflow
