#pragma once
// The host side of the device-side convergence control (core/base/converge.h): an iterative
// solver enqueues its iterations in batches and reads the control block once per batch, never
// per iteration. Every launch of an iteration is guarded, so a batch that runs past the stop
// costs a few empty launches; the batch sizes trade those against round trips. Here, next to the
// control family, so that the Krylov solvers of core/linalg (below core/solvers) batch the same way.
#include <algorithm>

namespace poreflow {

struct BatchSizes {
  long first = 16;   // the first batch: a guess of the iterations the solve needs (e.g. from the last solves)
  long then = 16;    // the next batch, doubling from here ...
  long max = 65536;  // ... up to this (the first batch is not held to it)
};

// Enqueues iterations [0, limit) with enqueue(first, count) in batches; after each batch calls
// stopped(next) (which reads the control: one wait), and ends when it returns true. Returns the
// number of iterations enqueued.
template <class Enqueue, class Stopped>
long run_batches(long limit, const BatchSizes& sizes, Enqueue&& enqueue, Stopped&& stopped) {
  long next = 0;
  long batch = std::max(sizes.first, 1L);
  const long then = std::clamp(sizes.then, 1L, std::max(sizes.max, 1L));
  bool first = true;
  while (next < limit) {
    const long count = std::min(batch, limit - next);
    enqueue(next, count);
    next += count;
    if (stopped(next)) break;
    batch = first ? then : std::min(batch * 2, std::max(sizes.max, 1L));
    first = false;
  }
  return next;
}

}  // namespace poreflow
