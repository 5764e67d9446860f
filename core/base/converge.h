/* The device-side convergence control shared by every iterative solver (jacobi1d, ADI, and the
   red-black sweeps to come), written once for C++, CUDA and OpenCL C.

   A solver's iterations run as batches of launches that the host enqueues back to back; the
   decision to stop is taken on the device, in a control block of PF_CV_WORDS 64-bit words, and the
   host reads the block once per batch (core/solvers/convergence.hpp). Every kernel of an iteration
   is guarded: once the block says stop, launches return at once, so a batch may overshoot the
   last iteration cheaply and the iterate and the iteration count are exact.

   A check reduces its metric (a max of non-negative numbers) into a ring slot: check c folds into
   slot c % 3 (an atomic max on the bits: non-negative IEEE numbers order like their bit patterns,
   and NaN, above +inf, wins) and clears slot (c + 1) % 3 for the next check. The decision on check
   c is taken by a later launch, which reads that slot and no other launch writes it meanwhile:
     - fused into the next iteration's kernel (pf_cv_fused_stop) when the rule is a plain threshold:
       every block computes the same answer and block 0 records it;
     - by the one-work-item decide kernel (control family, pf_cv_decide) for the full rule: a
       relative target, the best iterate, stagnation over a cycle of iterations, an iteration limit.
   The best iterate lives in one of two buffers, PF_CV_BEST_BUF says which: a check copies the
   iterate it measures into the other one (pf_cv_candidate, fused into the checking kernel), and a
   decision that finds a new best flips PF_CV_BEST_BUF, so no copy waits on the decision.
   Values are stored as the bits of a pf_real in the low part of a word (PF_TO_WORD). */
#ifndef PF_KERNELS_CONVERGE_H
#define PF_KERNELS_CONVERGE_H

#include "core/base/common.h"

/* words */
#define PF_CV_STOP 0            /* 0 while running, else why it stopped (PF_CV_CONVERGED, ...) */
#define PF_CV_ITER 1            /* iterations done when it stopped */
#define PF_CV_SLOT0 2           /* the ring of check slots */
#define PF_CV_NSLOTS 3
#define PF_CV_CHECKS 5          /* checks decided by pf_cv_decide */
#define PF_CV_FIRST 6           /* metric of the first decided check */
#define PF_CV_LAST 7            /* metric of the last decided check */
#define PF_CV_BEST 8            /* the smallest decided metric ... */
#define PF_CV_BEST_IT 9         /* ... and the iteration it was seen at */
#define PF_CV_BEST_BUF 10       /* which of two candidate buffers holds the best iterate */
#define PF_CV_CYCLE_START 11    /* stagnation: iteration the running cycle started at */
#define PF_CV_CYCLES 12         /* cycles completed */
#define PF_CV_CYCLE_BEST 13     /* the best metric of the running cycle */
#define PF_CV_PREV_CYCLE_BEST 14
#define PF_CV_NEXT_IT 15        /* a Krylov check's next iteration (pf_kr_check with it < 0) */
#define PF_CV_WORDS 16

/* reasons in PF_CV_STOP */
#define PF_CV_RUNNING 0
#define PF_CV_CONVERGED 1
#define PF_CV_STAGNATED 2  /* a whole cycle gained nothing (rounding noise above the target) */
#define PF_CV_LIMIT 3      /* the iteration limit */
#define PF_CV_NONFINITE 4  /* the metric is NaN or infinite */
#define PF_CV_BREAKDOWN 5  /* a Krylov recurrence divided by zero (core/physics/vec.h) */

/* rule flags */
#define PF_CV_TEST 1       /* test the metric against the target (off: run to the limit) */
#define PF_CV_INCLUSIVE 2  /* converged at metric <= target (else metric < target) */
#define PF_CV_TRACK_BEST 4 /* keep PF_CV_BEST and flip PF_CV_BEST_BUF on a new best */

/* stagnation: after PF_CV_STAG_WARMUP cycles, a cycle whose best is above PF_CV_STAG_FACTOR times
   the previous cycle's best stops the iteration (ADI's parameter cycles raise the residual on
   the way down, so the first cycles are no baseline) */
#define PF_CV_STAG_WARMUP 2
#define PF_CV_STAG_FACTOR 0.9

PF_NAMESPACE_BEGIN

PF_TEMPLATE PF_FN int pf_cv_finite(pf_real m) { return m == m && m - m == m - m; /* not NaN, not +-inf */ }

PF_TEMPLATE PF_FN int pf_cv_passes(pf_real m, pf_real target, int flags) {
  return (flags & PF_CV_INCLUSIVE) ? m <= target : m < target;
}

/* Fused decision of a threshold rule, made by every block of the launch that follows a check:
   returns 1 when the launch must do nothing (stopped before, or stopping now). slot < 0: the
   previous launch was no check. The leader (one work-item of the whole launch) records the stop;
   the slot it decides from is written by no block of this launch, so every block agrees. */
PF_TEMPLATE PF_FN int pf_cv_fused_stop(PF_GLOBAL pf_u64* w, long it, int slot, pf_real threshold, int flags,
                                       int leader) {
  if (w[PF_CV_STOP] != 0) return 1;
  if (slot < 0) return 0;
  const pf_real m = PF_FROM_WORD(w[PF_CV_SLOT0 + slot]);
  int reason = PF_CV_RUNNING;
  if (!pf_cv_finite(m)) reason = PF_CV_NONFINITE;
  else if ((flags & PF_CV_TEST) && pf_cv_passes(m, threshold, flags)) reason = PF_CV_CONVERGED;
  if (reason != PF_CV_RUNNING && leader) {
    w[PF_CV_ITER] = (pf_u64)it;
    w[PF_CV_STOP] = (pf_u64)reason;
  }
  return reason != PF_CV_RUNNING;
}

/* The full decision on the check of iteration `it` (its metric in `slot`), made by one work-item
   in its own launch. Mirrors what a host loop would do after reading the metric:
     1. a non-finite metric stops (PF_CV_NONFINITE);
     2. the target is max(abs_tol, rel_tol * first metric); with PF_CV_TEST a metric that passes
        it stops (PF_CV_CONVERGED) before anything else;
     3. with PF_CV_TRACK_BEST a new smallest metric is kept, and PF_CV_BEST_BUF flipped to the
        candidate buffer the check wrote;
     4. it >= max_it stops (PF_CV_LIMIT) after 3, so the last iterate can still be the best;
     5. cycle > 0: stagnation over cycles of `cycle` iterations (PF_CV_STAG_*). */
PF_TEMPLATE PF_FN void pf_cv_decide(PF_GLOBAL pf_u64* w, long it, int slot, pf_real abs_tol, pf_real rel_tol, int flags,
                                    long cycle, long max_it) {
  if (w[PF_CV_STOP] != 0) return;
  const pf_real m = PF_FROM_WORD(w[PF_CV_SLOT0 + slot]);
  const pf_real inf = (pf_real)INFINITY;
  if (w[PF_CV_CHECKS] == 0) {
    w[PF_CV_FIRST] = PF_TO_WORD(m);
    w[PF_CV_BEST] = PF_TO_WORD(inf);
    w[PF_CV_CYCLE_BEST] = PF_TO_WORD(inf);
    w[PF_CV_PREV_CYCLE_BEST] = PF_TO_WORD(inf);
    w[PF_CV_CYCLE_START] = 0;
    w[PF_CV_CYCLES] = 0;
  }
  w[PF_CV_CHECKS] = w[PF_CV_CHECKS] + 1;
  w[PF_CV_LAST] = PF_TO_WORD(m);
  int reason = PF_CV_RUNNING;
  if (!pf_cv_finite(m)) {
    reason = PF_CV_NONFINITE;
  } else {
    const pf_real first = PF_FROM_WORD(w[PF_CV_FIRST]);
    const pf_real target = fmax(abs_tol, rel_tol * first);
    if ((flags & PF_CV_TEST) && pf_cv_passes(m, target, flags)) {
      reason = PF_CV_CONVERGED;
    } else {
      if ((flags & PF_CV_TRACK_BEST) && m < PF_FROM_WORD(w[PF_CV_BEST])) {
        w[PF_CV_BEST] = PF_TO_WORD(m);
        w[PF_CV_BEST_IT] = (pf_u64)it;
        w[PF_CV_BEST_BUF] = 1 - w[PF_CV_BEST_BUF];
      }
      if (it >= max_it) {
        reason = PF_CV_LIMIT;
      } else if (cycle > 0) {
        pf_real cb = PF_FROM_WORD(w[PF_CV_CYCLE_BEST]);
        if (it > 0) cb = fmin(cb, m);
        if (it - (long)w[PF_CV_CYCLE_START] >= cycle) {
          const pf_u64 cycles = w[PF_CV_CYCLES] + 1;
          w[PF_CV_CYCLES] = cycles;
          if (cycles > PF_CV_STAG_WARMUP && cb > (pf_real)PF_CV_STAG_FACTOR * PF_FROM_WORD(w[PF_CV_PREV_CYCLE_BEST])) {
            reason = PF_CV_STAGNATED;
          } else {
            w[PF_CV_PREV_CYCLE_BEST] = PF_TO_WORD(cb);
            cb = inf;
            w[PF_CV_CYCLE_START] = (pf_u64)it;
          }
        }
        w[PF_CV_CYCLE_BEST] = PF_TO_WORD(cb);
      }
    }
  }
  if (reason != PF_CV_RUNNING) {
    w[PF_CV_ITER] = (pf_u64)it;
    w[PF_CV_STOP] = (pf_u64)reason;
  }
}

/* A guarded kernel of iteration `it` runs unless the control stopped at an earlier iteration. */
PF_FN int pf_cv_running(PF_GLOBAL const pf_u64* w) { return w[PF_CV_STOP] == 0; }

/* The candidate buffer (0 or 1) a check copies its iterate into: the one not holding the best. */
PF_FN int pf_cv_candidate(PF_GLOBAL const pf_u64* w) { return 1 - (int)w[PF_CV_BEST_BUF]; }

PF_NAMESPACE_END

#endif
