#pragma once
// AMG's coarse level across processes (docs/mpi.md, "AMG across processes"). A decomposed
// operator's AMG builds its hierarchy from the process's own rows: its coarse levels treat the cut
// as a boundary, and the smooth error across the processes is left to the Krylov method (AMG per
// process took 2-3x the iterations of one process). This level restores the coupling:
//
//   Q:  piecewise constant on groups of the process's cells: the composite of its hierarchy's
//       aggregates down to the first level of at most `rows` / P rows (agglomerated further, over
//       that level's graph, when even the coarsest has more); every group belongs to one process
//   E = Q^T A Q over the whole grid, A's couplings to the cells across the cut included (their
//       groups come from the neighbours through the operator's halo exchange, once)
//   z += Q E^-1 Q^T r
//
// E's values are computed on the device from the 7-point coefficients (the csr family's gather
// and the amg family's Galerkin product), gathered on every process at each refresh (one combine
// of its entries), factored there, and this process's rows of E^-1 go back to the device. An
// application reads this process's Q^T r (one value a group) and combines the groups of all
// processes: one small combine on the host.
#include <memory>
#include <string>
#include <vector>

#include "core/comm/communicator.hpp"
#include "core/comm/halo_exchange.hpp"
#include "core/linalg/amg_setup.hpp"
#include "core/linalg/csr.hpp"
#include "core/linalg/linear_operator.hpp"
#include "core/linalg/stencil7.hpp"

namespace poreflow::linalg {

// Each row of level 0's group in [0, *groups), or -1 (a row in no aggregate): the hierarchy's
// aggregates composed down to its first level below level 0 of at most `target` rows (the coarsest
// if none is; a hierarchy of one level groups its non-empty rows; below level 0 a row in no
// aggregate joins a neighbour's),
// then, when that level has more than `target` rows, grouped over its matrix graph (breadth-first
// groups of equal size, repeated on the groups' graph) into at most `target` groups.
std::vector<int> amg_composite_groups(const AmgHierarchy& h, std::size_t level0_rows, std::size_t target, std::size_t* groups);

template <class T>
class AmgGlobalCoarse {
 public:
  // Collective: every process of comm calls it with its part of the operator. ghosts: an exchange
  // of the matrix's box (any values a cell: the first of a cell's values is read), the operator's
  // own or the system's whose pressure block m is. rows: E's rows over all processes, at most.
  AmgGlobalCoarse(const Communicator& comm, const Stencil7Matrix<T>& m, const HaloExchange& ghosts, const AmgHierarchy& h,
                  std::size_t rows);
  ~AmgGlobalCoarse();

  // collective: E's values from the matrix's current ones, this process's rows of E^-1
  void refresh();
  // collective: z += Q E^-1 Q^T r (vectors of the matrix's extent)
  void apply_add(const Field<T>& r, Field<T>& z, Guard g) const;

  std::size_t rows() const { return total_; }       // E's rows, all processes'
  std::size_t own_rows() const { return own_; }     // this process's groups
  // each cell's row of E (the box's extent; -1: none, a ghost of another process included)
  const std::vector<int>& cell_rows() const { return cell_row_; }
  std::string describe() const;

 private:
  struct Device;
  const Communicator& comm_;
  const Stencil7Matrix<T>& m_;
  std::size_t own_ = 0, first_ = 0, total_ = 0;
  std::vector<int> cell_row_;
  std::vector<std::size_t> entry_first_;  // each process's first entry of E in the gathered values
  std::vector<int> all_rows_, all_cols_;  // E's entries, every process's, in rank order
  std::unique_ptr<Device> d_;
  mutable std::vector<double> combine_;
};

}  // namespace poreflow::linalg
