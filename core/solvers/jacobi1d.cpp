#include "core/solvers/jacobi1d.hpp"

#include <algorithm>
#include <cmath>

#include "core/base/error.hpp"
#include "core/kernels/control.hpp"
#include "core/solvers/convergence.hpp"

namespace poreflow {

template <class T>
Jacobi1D<T>::Jacobi1D(Backend& be, std::size_t n, const JacobiOptions& opt)
    : be_(be), n_(n), opt_(opt), other_(be, n), ctrl_(be.alloc(kControlBytes)) {
  be.reduce().check_config(opt.reduce);
  if (opt.check_every < 1)
    throw ConfigError("jacobi: check_every = " + std::to_string(opt.check_every) + " must be at least 1");
}

template <class T>
double Jacobi1D<T>::threshold(double max_mface, double p_left, double p_right) const {
  if (opt_.metric == JacobiMetric::Dp) return opt_.tolerance;
  double dp = std::fabs(p_left - p_right);
  if (dp == 0) dp = std::max(std::fabs(p_left), 1.0);
  return opt_.tolerance * max_mface * dp / static_cast<double>(n_ - 1);
}

template <class T>
JacobiResult Jacobi1D<T>::solve(Field<T>& p, const Field<T>& mface, double p_left, double p_right, double threshold) {
  Jacobi1DArgs a;
  a.prec = precision_of<T>();
  a.n = n_;
  a.mface = &mface.buffer();
  a.p[0] = &p.buffer();
  a.p[1] = &other_.buffer();
  a.p_left = p_left;
  a.p_right = p_right;
  a.metric = opt_.metric;
  a.threshold = threshold;
  a.check_every = opt_.check_every;
  a.reduce = opt_.reduce;
  a.ctrl = ctrl_.get();
  auto jac = be_.jacobi1d();
  jac.reset(a);

  // Launches after convergence return at once, so a batch may overshoot cheaply; start near a
  // fraction of the last solve's count and double, so that few polls are needed either way.
  const long first = std::clamp<long>(last_iterations_ / 4, 16, 4096);
  JacobiStatus st;
  run_batches(
      opt_.max_iterations, BatchSizes{first, 2 * first, 65536}, [&](long from, long count) { jac.iterate(a, from, count); },
      [&](long next) {
        st = jac.status(a, next);
        return st.converged || st.non_finite || std::isnan(st.last_metric);
      });
  if (st.iterations % 2 == 1) p.swap(other_);  // the last iteration wrote the other buffer
  last_iterations_ = st.iterations;
  return {st.iterations, st.last_metric, st.converged};
}

template class Jacobi1D<float>;
template class Jacobi1D<double>;

}  // namespace poreflow
