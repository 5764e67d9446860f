// The omp backend's reduce family: `omp_reduction` (a reduction clause over the elements, as in
// paper 001) and `blocked` (each thread reduces a contiguous block with independent accumulators
// so the loop vectorises, then the per-thread results are combined).
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

#include "backends/host/omp_backend.hpp"
#include "backends/host/host_context.hpp"

namespace poreflow {
namespace {

class OmpReduce final : public ReduceImpl {
 public:
  explicit OmpReduce(int threads) : threads_(threads) {}
  std::vector<ReduceVariant> variants() const override { return {ReduceVariant::OmpBlocked, ReduceVariant::OmpReduction}; }
  void enqueue(const ReduceArgs& args) override {
    bool blocked = args.cfg.variant == ReduceVariant::OmpBlocked;
    result_ = args.prec == Precision::Float ? run<float>(args, blocked) : run<double>(args, blocked);
  }
  double fetch() override { return result_; }

 private:
  template <class T>
  double run(const ReduceArgs& args, bool blocked) const {
    const T* a = host_ptr<T>(*args.a);
    const T* b = host_ptr<T>(args.b);
    const long n = static_cast<long>(args.n);
    switch (args.op) {
      case ReduceOp::Sum:
        return blocked ? blocked_reduce<T, double>(n, [a](long i) { return double(a[i]); }, 0.0, Plus{})
                       : clause_sum<T>(a, n);
      case ReduceOp::Min:
        return blocked ? blocked_reduce<T, T>(n, [a](long i) { return a[i]; }, std::numeric_limits<T>::infinity(), Min{})
                       : clause_min<T>(a, n);
      case ReduceOp::Max:
        return blocked ? blocked_reduce<T, T>(n, [a](long i) { return a[i]; }, -std::numeric_limits<T>::infinity(), Max{})
                       : clause_max<T>(n, [a](long i) { return a[i]; }, -std::numeric_limits<T>::infinity());
      case ReduceOp::MaxAbs:
        return blocked ? blocked_reduce<T, T>(n, [a](long i) { return std::fabs(a[i]); }, T(0), Max{})
                       : clause_max<T>(n, [a](long i) { return std::fabs(a[i]); }, T(0));
      case ReduceOp::MaxAbsDiff:
        return blocked ? blocked_reduce<T, T>(n, [a, b](long i) { return std::fabs(a[i] - b[i]); }, T(0), Max{})
                       : clause_max<T>(n, [a, b](long i) { return std::fabs(a[i] - b[i]); }, T(0));
    }
    return 0;
  }

  struct Plus {
    template <class A>
    A operator()(A x, A y) const { return x + y; }
  };
  struct Max {
    template <class A>
    A operator()(A x, A y) const { return y > x ? y : x; }
  };
  struct Min {
    template <class A>
    A operator()(A x, A y) const { return y < x ? y : x; }
  };

  // Each thread owns one contiguous block and keeps 8 independent accumulators, which removes
  // the loop-carried dependency and lets the compiler use vector min/max/add.
  template <class T, class A, class Load, class Op>
  double blocked_reduce(long n, Load load, A identity, Op op) const {
    const int nt = threads();
    std::vector<A> partial(static_cast<std::size_t>(nt) * 8, identity);  // 8 apart: no false sharing
#pragma omp parallel num_threads(nt)
    {
      const int t = omp_get_thread_num();
      const int tn = omp_get_num_threads();
      const long lo = n * t / tn, hi = n * (t + 1) / tn;
      A acc[8];
      for (auto& x : acc) x = identity;
      long i = lo;
      for (; i + 8 <= hi; i += 8)
        for (int j = 0; j < 8; ++j) acc[j] = op(acc[j], A(load(i + j)));
      for (; i < hi; ++i) acc[0] = op(acc[0], A(load(i)));
      A r = acc[0];
      for (int j = 1; j < 8; ++j) r = op(r, acc[j]);
      partial[static_cast<std::size_t>(t) * 8] = r;
    }
    A r = identity;
    for (int t = 0; t < nt; ++t) r = op(r, partial[static_cast<std::size_t>(t) * 8]);
    return double(r);
  }

  template <class T>
  double clause_sum(const T* a, long n) const {
    double s = 0;
#pragma omp parallel for reduction(+ : s) num_threads(threads())
    for (long i = 0; i < n; ++i) s += a[i];
    return s;
  }
  template <class T>
  double clause_min(const T* a, long n) const {
    T m = std::numeric_limits<T>::infinity();
#pragma omp parallel for reduction(min : m) num_threads(threads())
    for (long i = 0; i < n; ++i) m = std::min(m, a[i]);
    return m;
  }
  template <class T, class Load>
  double clause_max(long n, Load load, T identity) const {
    T m = identity;
#pragma omp parallel for reduction(max : m) num_threads(threads())
    for (long i = 0; i < n; ++i) m = std::max(m, load(i));
    return m;
  }

  int threads() const { return threads_; }

  int threads_;
  double result_ = 0;
};

}  // namespace

std::unique_ptr<ReduceImpl> make_omp_reduce(int threads) { return std::make_unique<OmpReduce>(threads); }

}  // namespace poreflow
