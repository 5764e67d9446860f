#pragma once
// The control family: the device-side convergence control of core/base/converge.h, shared by
// every iterative solver. A control block is a Buffer of PF_CV_WORDS 64-bit words; the solver's
// kernels check into its slots and stop when it says so (guards), and the host reads it once per
// batch of iterations (core/kernels/batches.hpp runs the batches).
#include <cstddef>

#include "core/kernels/backend.hpp"
#include "core/kernels/kernel_args.hpp"
#include "core/base/converge.h"

namespace poreflow {

constexpr std::size_t kControlBytes = PF_CV_WORDS * sizeof(unsigned long long);

// The decision rule of pf_cv_decide (flags PF_CV_TEST, PF_CV_INCLUSIVE, PF_CV_TRACK_BEST).
struct ConvergeRule {
  double abs_tol = 0;   // target = max(abs_tol, rel_tol * the first check's metric)
  double rel_tol = 0;
  int flags = PF_CV_TEST;
  long cycle = 0;       // stagnation over cycles of this many iterations; 0: off
  long max_iterations = 0;  // the check at this iteration stops (PF_CV_LIMIT)
};

// How one launch of an iterative solver takes part in the control.
struct IterationControl {
  Buffer* ctrl = nullptr;  // the control block; null: the kernel always runs and checks nothing
  int check_slot = -1;     // >= 0: fold this launch's metric into that slot ...
  int clear_slot = -1;     // ... and zero this one for the next check
  bool checks() const { return ctrl && check_slot >= 0; }
};
// The slots of check number c (0, 1, ...).
IterationControl check_slots(Buffer& ctrl, long c);

enum class StopReason { Running = PF_CV_RUNNING, Converged = PF_CV_CONVERGED, Stagnated = PF_CV_STAGNATED,
                        Limit = PF_CV_LIMIT, NonFinite = PF_CV_NONFINITE, Breakdown = PF_CV_BREAKDOWN };
const char* to_string(StopReason r);

// A control block read back by the host.
struct ConvergeStatus {
  StopReason reason = StopReason::Running;
  long iterations = 0;        // at the stop (Running: unknown to the block)
  long checks = 0;            // decided by pf_cv_decide
  double first = -1, last = -1, best = -1;  // metrics (-1: none yet)
  long best_iteration = -1;
  int best_buffer = 0;        // which of two candidate buffers holds the best iterate
  bool stopped() const { return reason != StopReason::Running; }
};
// Decodes the words of a block whose values are in precision prec.
ConvergeStatus decode_status(const unsigned long long* words, Precision prec);

// decide: the full rule on the check of iteration `it`, whose metric is in `slot`; one work-item.
struct ControlDecideArgs {
  Precision prec = Precision::Double;
  Buffer* ctrl = nullptr;
  long it = 0;
  int slot = 0;
  ConvergeRule rule;

  // cv_decide(ctrl, it, slot, abs_tol, rel_tol, flags, cycle, max_it) (core/kernels/kernel_args.hpp)
  auto kernel_args() const {
    using namespace karg;
    return std::tuple(Out<pf_u64>{ctrl}, it, slot, Real{rule.abs_tol}, Real{rule.rel_tol}, rule.flags, rule.cycle,
                      rule.max_iterations);
  }
};

class ControlImpl {
 public:
  virtual ~ControlImpl() = default;
  virtual void decide(const ControlDecideArgs& a) = 0;
};

class ControlKernels {
 public:
  ControlKernels(Backend& be, ControlImpl& impl) : be_(be), impl_(impl) {}
  // zeroes the block (enqueued, no wait): a fresh solve
  void reset(Buffer& ctrl);
  // waits and reads the block
  ConvergeStatus read(const Buffer& ctrl, Precision prec);
  void decide(const ControlDecideArgs& a);

 private:
  Backend& be_;
  ControlImpl& impl_;
};

// ---- solvers whose plain-threshold check is fused into their next launch ---------------------
// (pf_cv_fused_stop: jacobi1d, sor3d). Iteration `it` is a check when (it + 1) % check_every == 0:
// check c = (it + 1) / check_every - 1 folds its metric into slot c % 3 and clears slot (c + 1) % 3;
// the first launch of the iteration after a check decides from that check's slot.
struct FusedPlan {
  int decide_slot = -1;  // >= 0: decide from that slot first (the previous iteration was a check)
  bool check = false;
  int check_slot = -1, clear_slot = -1;
};
FusedPlan fused_plan(long it, int check_every);

// The state of a fused-check solve read back from its control block.
struct FusedStatus {
  bool converged = false;
  bool non_finite = false;  // the metric was NaN or infinite: the device stopped
  long iterations = 0;      // iterations done
  double last_metric = -1;  // max(metric) of the last check, -1 before the first
};
// Waits and reads the block; `next` is the first iteration not yet enqueued. A check that ended
// the batch is decided here, as its next launch would have.
FusedStatus read_fused_status(Backend& be, const Buffer& ctrl, Precision prec, double threshold, int check_every,
                              long next);

// Shared checks of the families that take part in the control: a block of the right size, slots
// in the ring.
void check_control(const IterationControl& c, const char* what);
void check_control_block(const Buffer* ctrl, const char* what);

}  // namespace poreflow
