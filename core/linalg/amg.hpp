#pragma once
// Aggregation AMG as a preconditioner (docs/linalg.md): smoothed aggregation set up on the host
// (core/linalg/amg_setup.hpp), applied as a V-cycle (or a W-cycle below the finest level) of
// Chebyshev smoothing, residual, restriction, the next level and prolongation, the coarsest level
// solved by its dense inverse (or smoothed, when coarsening stopped above kMaxDenseRows in
// amg.cpp). Every step runs on the device through the kernel families (amg, csr, stencil7, fill);
// the scalars of the smoother are host constants of the level, set when the values are refreshed.
//
// The first update() with an operator (a scalar Stencil7Operator or CsrOperator) sets the
// hierarchy up: its values are read once to the host, the aggregates, prolongators and the coarse
// levels' patterns are built there and uploaded. A later update() with the same operator (its
// values changed, its pattern not) refreshes every level's values on the device: the finest
// level's values gathered from the operator, each prolongator's from its level (amg p_values),
// the restriction's from the prolongator (gather), the next level by the Galerkin product, the
// inverse diagonals and the smoothers' bounds (one read per level), the coarsest inverse (the
// coarsest level's values read, inverted on the host, written back). update_partly() refreshes
// the finest level alone (its values, inverse diagonal and bound) and keeps the coarse levels, the
// transfers and the coarsest inverse of the last refresh: a preconditioner for a matrix that moved a
// little since (impes3d's pressure.amg_reuse), whose every level smooths with the values it applies.
#include <memory>
#include <string>
#include <vector>

#include "core/comm/communicator.hpp"
#include "core/linalg/amg_across.hpp"
#include "core/linalg/amg_global.hpp"
#include "core/linalg/amg_setup.hpp"
#include "core/linalg/chebyshev.hpp"
#include "core/linalg/csr.hpp"
#include "core/linalg/linear_operator.hpp"
#include "core/linalg/stencil7.hpp"

namespace poreflow::linalg {

struct AmgConfig {
  AmgOptions setup;            // strength, coarsest size, levels, the fallback to one level
  int degree = 3;              // Chebyshev steps before and after the coarse correction
  int coarse_degree = 0;       // the same on the levels below the finest; 0: degree
  double lower = 1.0 / 30;     // the smoothed interval [lower hi, hi] of D^-1 A's spectrum
  Chebyshev kind = Chebyshev::First;  // the smoother's polynomial (core/linalg/chebyshev.hpp)
  bool fused = true;           // a level's steps in one pass each (stencil7 and csr chebyshev)
  double upper = 1.1;          // hi = upper x the level's estimate of D^-1 A's spectral radius (bounds())
  bool w_cycle = false;        // two coarse corrections on every level below the finest
  // The levels below the finest of at most this many rows, down to the coarsest, cycle in one launch
  // of one work-group (amg tail_cycle: a barrier a step instead of a launch); 0: a launch a step
  // everywhere (the default: on the H200 it paid only on OpenCL and on small decks, and cost
  // OpenCL's SPE10-like systems a quarter); -1: the backend's choice (Backend::one_launch_rows).
  // docs/linalg.md, "The coarse levels in one launch", has the measurements.
  long tail_rows = 0;
  // With several processes (docs/mpi.md). Off by default: on two H200s it cost CG about 0.5 ms an
  // iteration in host round trips and saved none on Poisson 128^3 (bench linalg-ranks); CPR's
  // pressure AMG takes After (cpr_pressure_amg), where it pays.
  AmgAcross across = AmgAcross::None;
  std::size_t across_rows = 256;                 // that level's rows over all processes, at most
};

template <class T>
class Amg final : public Preconditioner<T> {
 public:
  explicit Amg(AmgConfig c = {}, const Communicator& comm = self_communicator());
  ~Amg() override;

  void update(const LinearOperator<T>& A) override;
  // the finest level follows A's values, the coarser levels stay (the whole update for a new operator)
  void update_partly(const LinearOperator<T>& A) override;
  void apply(const Field<T>& r, Field<T>& z, Guard g) const override;
  std::string describe() const override;

  // The exchange that names the cells across the process faces for the coarse level across
  // processes, when the operator has none of its own (CPR's pressure block: the system's exchange).
  // Set before the first update; nullptr: the operator's.
  void set_ghosts(const HaloExchange* e) { ghosts_ = e; }
  // the coarse level across processes, or nullptr (one process, AmgAcross::None, no exchange)
  const AmgGlobalCoarse<T>* across() const { return across_.get(); }

  const AmgHierarchy& hierarchy() const { return h_; }
  std::size_t levels() const { return h_.levels.size() + 1; }
  double setup_seconds() const { return setup_seconds_; }      // the host setup of the last new pattern
  double refresh_seconds() const { return refresh_seconds_; }  // the last refresh (whole or partial) on the device, waited for
  long refreshes() const { return refreshes_; }
  long partial_refreshes() const { return partial_refreshes_; }  // update_partly's of the finest level alone
  // whether the coarsest level is solved by its dense inverse (false: one level, or a coarsest too
  // large to invert, which is smoothed)
  bool coarsest_inverted() const { return cinv_ != nullptr; }
  // the first level of the tail that cycles in one launch (AmgConfig::tail_rows), or levels(): none
  std::size_t tail_level() const { return tail_; }
  // each level's estimate of D^-1 A's spectral radius: the Gershgorin bound of the current values
  // times the setup's ratio of the power estimate to it (the smoothers' interval)
  const std::vector<double>& bounds() const { return bounds_; }

 private:
  struct Level;
  void setup(const LinearOperator<T>& A);
  void refresh();
  void gather_finest();                // a stencil operator's values into the finest level's CSR
  double level_bound(std::size_t l);   // level l's D^-1 and this process's bound of its spectrum
  void set_interval(std::size_t l, double bound);  // bounds_[l] and the level's smoothed interval
  void local(const Field<T>& r, Field<T>& z, Guard g) const;
  // where a smoothing starts: x taken as 0, the iterate in x, or the iterate in the level's r (a
  // prolongation put it there, so that an odd number of fused passes ends in x)
  enum class From { Zero, X, R };
  void cycle(std::size_t l, const Field<T>& b, Field<T>& x, Guard g) const;
  // want_residual: the caller needs r = b - A x in the level's r next; true when the smoothing
  // left it there (a degree-1 smoothing from zero takes its step and the residual in one pass)
  bool smooth(std::size_t l, const Field<T>& b, Field<T>& x, From from, Guard g, bool want_residual = false) const;
  bool odd_fused(std::size_t l) const;  // a smoothing from x of level l takes an odd number of fused passes
  void residual(std::size_t l, const Field<T>& b, const Field<T>& x, Field<T>& r, Guard g) const;
  void setup_tail();
  void refresh_tail();

  AmgConfig c_;
  const Communicator& comm_;
  const LinearOperator<T>* op_ = nullptr;  // the operator set up for
  Backend* be_ = nullptr;
  AmgHierarchy h_;
  std::vector<std::unique_ptr<Level>> lv_;  // h_.levels.size() + 1: the last is the coarsest
  std::unique_ptr<CsrMatrix<T>> a0_;        // the finest level's values as CSR (a stencil operator's, gathered)
  std::unique_ptr<Buffer> a0_map_;          // stencil: each CSR entry's coefficient (int64)
  std::unique_ptr<CsrMatrix<T>> cinv_;      // the coarsest level's dense inverse; none for one level, or a
                                            // coarsest too large to invert (then smoothed: kMaxDenseRows)
  std::unique_ptr<Buffer> bad_;             // diag_inv's singular-row word
  const HaloExchange* ghosts_ = nullptr;
  std::unique_ptr<AmgGlobalCoarse<T>> across_;
  bool multiplicative_ = false;
  bool match_depth_ = false;  // one level here, a deeper one elsewhere, and the finest level exchanges
  const LinearOperator<T>* across_op_ = nullptr;     // its residual's operator: A, or global_op_
  std::unique_ptr<HaloExchange> scalar_ex_;          // CPR's pressure block: the system's boxes, a value a cell
  std::unique_ptr<Stencil7Operator<T>> global_op_;
  mutable Field<T> t1_, t2_;                // the multiplicative coarse level's residual and cycle
  // the tail (core/physics/amg_tail.h): its first level, its table (here and on the device), the
  // packed patterns, values and vectors, and the copies that bring the levels' values in at a refresh
  struct TailCopy {
    const Buffer* src;
    std::size_t values, at;
  };
  std::size_t tail_ = 0;
  std::vector<int> tail_table_;
  std::unique_ptr<Buffer> tail_table_buf_, tail_ints_;
  std::size_t tail_ints_n_ = 0, tail_coef_at_ = 0;
  Field<T> tail_vals_;
  mutable Field<T> tail_work_;
  std::vector<TailCopy> tail_copies_;
  std::vector<double> bounds_;
  double setup_seconds_ = 0, refresh_seconds_ = 0;
  long refreshes_ = 0, partial_refreshes_ = 0;
  bool refreshed_ = false;  // the last whole refresh ran to its end
};

}  // namespace poreflow::linalg
