#pragma once
// Krylov solvers written once over LinearOperator and Preconditioner (docs/linalg.md): CG,
// BiCGSTAB and restarted FGMRES (right-preconditioned, flexible). Every scalar of a recurrence
// stays on the device (Scalars, Coefs); each iteration ends with a one-work-item check that writes
// the relative residual ||b - A x|| / ||b|| into a history and stops the solve's control block, so
// the rest of a batch returns at once. The host enqueues iterations in growing batches
// (run_batches) and reads the control block once per batch, the history once at the end.
//
// Every dot product's slots are summed over the processes of the communicator by its device hook
// between the dot kernel and its first reader (a single process enqueues nothing there).
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/comm/communicator.hpp"
#include "core/kernels/batches.hpp"
#include "core/kernels/field.hpp"
#include "core/linalg/linear_operator.hpp"
#include "core/linalg/scalars.hpp"

namespace poreflow::linalg {

enum class KrylovMethod { CG, BiCGSTAB, FGMRES };
const char* to_string(KrylovMethod m);
KrylovMethod parse_krylov_method(std::string_view s);  // "cg", "bicgstab", "fgmres"

struct KrylovOptions {
  KrylovMethod method = KrylovMethod::CG;
  double tolerance = 1e-8;      // on ||b - A x||_2 / ||b||_2 (||r||_2 itself when b = 0)
  // > 0: the tolerance is relative to this norm instead of ||b||_2 (a model's own scale: an
  // absolute stop of tolerance x reference_norm on ||b - A x||_2); the history too
  double reference_norm = 0;
  long max_iterations = 1000;
  int restart = 30;             // FGMRES: the columns of a cycle
  bool reorthogonalize = true;  // FGMRES: classical Gram-Schmidt twice (once: two launches fewer a column)
  // the batches of iterations between reads of the control block; first = 0: guessed from the last
  // two converged solves' counts (krylov.cpp)
  BatchSizes batches{0, 16, 1024};
  // true: the batches follow the backend, `batches` is not read. Where iterations are recorded
  // (below) their replay costs little past the stop, and on the CPU an empty launch returns at
  // once: a first batch of the guess plus one, then 2, 4, 8, ... (whole recorded pairs). On a
  // device without a recording (OpenCL; cuda over several processes, with recording off, or
  // FGMRES) each iteration past the stop still costs its launches' enqueue (about 0.3-0.4 ms an
  // iteration of a small deck's CPR-BiCGSTAB on NVIDIA's OpenCL) against some 20 us a read: a
  // first batch of 3/4 of the guess plus one, then a read after every iteration. The guess is the
  // smaller of the last two converged solves' counts (16 before any).
  bool adapt_batches = false;
  // CG and BiCGSTAB on one process: record two iterations' launches once a solve and replay them
  // as one launch (CUDA Graphs), where the backend can record (Backend::can_record)
  bool record = true;
};

enum class KrylovStop { Converged, Limit, Breakdown, NonFinite };
const char* to_string(KrylovStop s);

struct KrylovResult {
  KrylovStop reason = KrylovStop::Limit;
  bool converged = false;
  long iterations = 0;
  // the relative residual at the stop, as the solve's check saw it (FGMRES: its estimate, or the
  // true residual at a restart)
  double relative_residual = -1;
  // history[k]: the relative residual after k iterations, k = 0 .. iterations
  std::vector<double> history;
  // ||b - A x|| / ||b|| of the returned x, computed after the stop
  double true_relative_residual = -1;
  long control_reads = 0;  // reads of the control block (batches)
  long replays = 0;        // pairs of iterations replayed from a recording (KrylovOptions::record)
  long enqueued = 0;       // iterations enqueued, those past the stop (their launches return at once) included
  std::string describe() const;
};

template <class T>
class KrylovSolver {
 public:
  // Work vectors of the operator's size are allocated here, once. ConfigError for options that
  // cannot run (a negative limit or tolerance, a restart of 0 or too long for the scalars' slots).
  KrylovSolver(const LinearOperator<T>& A, const KrylovOptions& opt, const Communicator& comm = self_communicator());
  ~KrylovSolver();

  // x: the initial guess in, the iterate at the stop out. A NaN or infinity in b is a
  // NumericalError naming its row (A.describe_row); vectors not of the operator's size or backend a
  // ConfigError naming the sizes. A solve that does not converge returns why (the caller decides).
  KrylovResult solve(const Field<T>& b, Field<T>& x, const Preconditioner<T>& M);
  KrylovResult solve(const Field<T>& b, Field<T>& x);  // no preconditioner

  const KrylovOptions& options() const { return opt_; }
  // for the next solves (a model's tolerance may follow its state); ConfigError when negative
  void set_tolerance(double tolerance, double reference_norm = 0);
  std::string describe() const;

 private:
  struct Work;
  void combine(int slot, int count);
  void reference(const Field<T>& b);
  void enqueue(long it, const Field<T>& b, Field<T>& x, const Preconditioner<T>& M);
  void cg(long it, const Field<T>& b, Field<T>& x, const Preconditioner<T>& M);
  void bicgstab(long it, const Field<T>& b, Field<T>& x, const Preconditioner<T>& M);
  void fgmres(long it, const Field<T>& b, Field<T>& x, const Preconditioner<T>& M);
  void fgmres_cycle_start(long it, const Field<T>& b, Field<T>& x);
  void fgmres_cycle_end(Field<T>& x);

  const LinearOperator<T>& A_;
  KrylovOptions opt_;
  const Communicator& comm_;
  Backend& be_;
  std::size_t n_;
  std::unique_ptr<Work> w_;
  // the last two converged solves' counts (0: none yet): the next first batch is the smaller plus one
  long last_iterations_ = 0, before_last_ = 0;
  bool record_failed_ = false;  // a recording failed once: enqueue every iteration from then on
};

}  // namespace poreflow::linalg
