#include "core/linalg/krylov.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <utility>

#include "core/base/enum_names.hpp"
#include "core/base/error.hpp"
#include "core/kernels/control.hpp"
#include "core/kernels/vec.hpp"
#include "core/linalg/jacobi.hpp"

namespace poreflow::linalg {

namespace {

constexpr EnumNames<KrylovMethod, 3> kMethods{{
    {"cg", KrylovMethod::CG},
    {"bicgstab", KrylovMethod::BiCGSTAB},
    {"fgmres", KrylovMethod::FGMRES},
}};

// The slots of the scalars. ||b||^2 is slot 0 for every method; a dot of two pairs writes two
// adjacent slots, so one hook call covers it. CG's r.z and BiCGSTAB's rho alternate between two
// slots around ||r||^2 (iteration k writes the one of k % 2 and reads the other).
constexpr int kBB = 0;
constexpr int kCgRz[2] = {1, 3}, kCgRR = 2, kCgPQ = 4, kCgTrue = 5, kCgSlots = 6;
constexpr int kBiRho[2] = {1, 3}, kBiRR = 2, kBiRV = 4, kBiTS = 5, kBiTT = 6, kBiTrue = 7, kBiSlots = 8;
constexpr int kGmTrue = 1, kGmBase = 2;

VecCoef k(double c) { return VecCoef::constant(c); }
VecCoef ratio(double c, int num, int den) {
  VecCoef v;
  v.c = c, v.num0 = num, v.den0 = den;
  return v;
}

}  // namespace

const char* to_string(KrylovMethod m) { return enum_name(m, kMethods); }
KrylovMethod parse_krylov_method(std::string_view s) { return parse_enum(s, kMethods, "Krylov method"); }

const char* to_string(KrylovStop s) {
  switch (s) {
    case KrylovStop::Converged: return "converged";
    case KrylovStop::Limit: return "iteration limit";
    case KrylovStop::Breakdown: return "breakdown";
    case KrylovStop::NonFinite: return "non-finite residual";
  }
  return "?";
}

std::string KrylovResult::describe() const {
  char buf[160];
  std::snprintf(buf, sizeof buf, "%s after %ld iterations, relative residual %.3g (true %.3g)", to_string(reason), iterations,
                relative_residual, true_relative_residual);
  return buf;
}

template <class T>
struct KrylovSolver<T>::Work {
  Work(Backend& be, std::size_t slots, long max_it) : s(be, slots), hist(be, static_cast<std::size_t>(max_it) + 1) {
    ctrl = be.alloc(kControlBytes);
    word = be.alloc(8);
  }
  std::unique_ptr<Buffer> ctrl, word;
  Scalars<T> s;
  Field<T> hist;
  std::vector<Field<T>> v;  // the method's vectors
  Field<T> basis;           // FGMRES: V (restart + 1 vectors) then Z (restart vectors)
  IdentityPreconditioner<T> identity;
  std::unique_ptr<Backend::Recording> recording;  // two iterations (KrylovOptions::record)
};

template <class T>
KrylovSolver<T>::KrylovSolver(const LinearOperator<T>& A, const KrylovOptions& opt, const Communicator& comm)
    : A_(A), opt_(opt), comm_(comm), be_(A.backend()), n_(A.size()) {
  if (opt_.max_iterations < 0) throw ConfigError("Krylov solver: max_iterations = " + std::to_string(opt_.max_iterations));
  if (!(opt_.tolerance >= 0)) throw ConfigError("Krylov solver: tolerance = " + std::to_string(opt_.tolerance));
  if (n_ == 0) throw ConfigError("Krylov solver: an operator without rows (" + A.describe() + ")");
  // a tolerance the precision cannot reach runs to the limit; say so once
  const double floor = 10 * std::numeric_limits<T>::epsilon();
  if (opt_.tolerance > 0 && opt_.tolerance < floor)
    spdlog::warn("{}: a tolerance of {:.2g} is below what {} resolves (about {:.2g}); the solve will likely run to its limit",
                 to_string(opt_.method), opt_.tolerance, to_string(precision_of<T>()), floor);
  std::size_t slots = 0, vectors = 0;
  switch (opt_.method) {
    case KrylovMethod::CG: slots = kCgSlots, vectors = 4; break;
    case KrylovMethod::BiCGSTAB: slots = kBiSlots, vectors = 7; break;
    case KrylovMethod::FGMRES: {
      const int m = opt_.restart;
      if (m < 1 || kGmBase + phys::pf_gm_slots(m) > PF_COEF_MAX_SLOT + 1)
        throw ConfigError("FGMRES: a restart of " + std::to_string(m) + " (1 to 175)");
      slots = kGmBase + phys::pf_gm_slots(m), vectors = 3;
      break;
    }
  }
  w_ = std::make_unique<Work>(be_, slots, opt_.max_iterations);
  for (std::size_t i = 0; i < vectors; ++i) w_->v.emplace_back(be_, n_);
  for (auto& f : w_->v) f.fill(T(0));
  if (opt_.method == KrylovMethod::FGMRES) w_->basis = Field<T>(be_, (2 * static_cast<std::size_t>(opt_.restart) + 1) * n_);
}

template <class T>
KrylovSolver<T>::~KrylovSolver() = default;

template <class T>
std::string KrylovSolver<T>::describe() const {
  std::string s = to_string(opt_.method);
  if (opt_.method == KrylovMethod::FGMRES) s.append("(").append(std::to_string(opt_.restart)).append(")");
  return s.append(" on ").append(A_.describe());
}

template <class T>
void KrylovSolver<T>::combine(int slot, int count) {
  if (const DeviceCombine* h = comm_.device_combine())
    h->sum_values(w_->s.buffer(), precision_of<T>(), static_cast<std::size_t>(slot), static_cast<std::size_t>(count));
}

// s[kBB]: ||b||^2 summed over the processes, or the caller's reference norm squared
template <class T>
void KrylovSolver<T>::reference(const Field<T>& b) {
  if (opt_.reference_norm > 0) {
    const T r2 = static_cast<T>(opt_.reference_norm * opt_.reference_norm);
    be_.upload(w_->s.buffer(), &r2, sizeof r2, kBB * sizeof(T));
    return;
  }
  be_.vec().dot({precision_of<T>(), n_, &b.buffer(), &b.buffer(), kBB, nullptr, nullptr, -1, &w_->s.buffer(), w_->ctrl.get()});
  combine(kBB, 1);
}

template <class T>
void KrylovSolver<T>::set_tolerance(double tolerance, double reference_norm) {
  if (!(tolerance >= 0) || !(reference_norm >= 0) || !std::isfinite(reference_norm))
    throw ConfigError("Krylov solver: tolerance " + std::to_string(tolerance) + " relative to " + std::to_string(reference_norm));
  opt_.tolerance = tolerance;
  opt_.reference_norm = reference_norm;
}

// ---- CG: launches per iteration: A, dot, update2, M, dot (two pairs), check, axpby ------------------

template <class T>
void KrylovSolver<T>::cg(long it, const Field<T>& b, Field<T>& x, const Preconditioner<T>& M) {
  auto vec = be_.vec();
  const Precision P = precision_of<T>();
  Buffer* s = &w_->s.buffer();
  Buffer* ctrl = w_->ctrl.get();
  const Guard g{ctrl};
  Field<T>&r = w_->v[0], &z = w_->v[1], &p = w_->v[2], &q = w_->v[3];
  if (it == 0) {
    reference(b);
    A_.residual(b, x, r, g);
    M.apply(r, z, g);
    vec.dot({P, n_, &r.buffer(), &z.buffer(), kCgRz[0], &r.buffer(), &r.buffer(), kCgRR, s, ctrl});
    combine(1, 2);
    vec.check({P, ctrl, s, &w_->hist.buffer(), 0, kCgRR, kBB, 0, opt_.tolerance, opt_.max_iterations});
    vec.axpby({P, n_, k(1), k(0), &z.buffer(), &p.buffer(), nullptr, ctrl});
    return;
  }
  const int old = kCgRz[(it - 1) % 2], nw = kCgRz[it % 2];
  A_.apply(p, q, g);
  vec.dot({P, n_, &p.buffer(), &q.buffer(), kCgPQ, nullptr, nullptr, -1, s, ctrl});
  combine(kCgPQ, 1);
  // x += alpha p, r -= alpha q with alpha = r.z / p.q
  VecUpdate2Args u{P, n_, ratio(1, old, kCgPQ), k(1), &p.buffer(), &x.buffer(), ratio(-1, old, kCgPQ), k(1), &q.buffer(),
                   &r.buffer()};
  u.s = s, u.guard = ctrl;
  vec.update2(u);
  M.apply(r, z, g);
  vec.dot({P, n_, &r.buffer(), &z.buffer(), nw, &r.buffer(), &r.buffer(), kCgRR, s, ctrl});
  combine(std::min(nw, kCgRR), 2);
  // the iteration's number from the control block: the launches do not depend on it (recorded)
  vec.check({P, ctrl, s, &w_->hist.buffer(), -1, kCgRR, kBB, pack_slots(kCgPQ, nw), opt_.tolerance, opt_.max_iterations});
  vec.axpby({P, n_, k(1), ratio(1, nw, old), &z.buffer(), &p.buffer(), s, ctrl});  // p = z + beta p
}

// ---- BiCGSTAB (right-preconditioned): launches per iteration: axpbypcz, M, A, dot, update2, M, A,
// dot (two pairs), update2 with the next rho and ||r||^2, check -------------------------------------

template <class T>
void KrylovSolver<T>::bicgstab(long it, const Field<T>& b, Field<T>& x, const Preconditioner<T>& M) {
  auto vec = be_.vec();
  const Precision P = precision_of<T>();
  Buffer* s = &w_->s.buffer();
  Buffer* ctrl = w_->ctrl.get();
  const Guard g{ctrl};
  Field<T>&r = w_->v[0], &rh = w_->v[1], &p = w_->v[2], &ph = w_->v[3], &v = w_->v[4], &sh = w_->v[5], &t = w_->v[6];
  if (it == 0) {
    reference(b);
    A_.residual(b, x, r, g);
    vec.axpby({P, n_, k(1), k(0), &r.buffer(), &rh.buffer(), nullptr, ctrl});  // the shadow residual r^ = r0
    vec.dot({P, n_, &r.buffer(), &r.buffer(), kBiRho[1], &r.buffer(), &r.buffer(), kBiRR, s, ctrl});  // rho_1 = r^.r0
    combine(kBiRR, 2);
    vec.check({P, ctrl, s, &w_->hist.buffer(), 0, kBiRR, kBB, 0, opt_.tolerance, opt_.max_iterations});
    return;
  }
  const int rho = kBiRho[it % 2], next = kBiRho[(it + 1) % 2];
  // p = r + beta (p - omega v): beta = rho TT / (RV TS), beta omega = rho / RV (RV, TS, TT: the last
  // iteration's); the first p is r
  if (it == 1) {
    vec.axpbypcz({P, n_, k(1), k(0), k(0), &r.buffer(), &v.buffer(), &p.buffer(), nullptr, ctrl});
  } else {
    VecCoef beta;
    beta.num0 = rho, beta.num1 = kBiTT, beta.den0 = kBiRV, beta.den1 = kBiTS;
    vec.axpbypcz({P, n_, k(1), ratio(-1, rho, kBiRV), beta, &r.buffer(), &v.buffer(), &p.buffer(), s, ctrl});
  }
  M.apply(p, ph, g);
  A_.apply(ph, v, g);
  vec.dot({P, n_, &rh.buffer(), &v.buffer(), kBiRV, nullptr, nullptr, -1, s, ctrl});
  combine(kBiRV, 1);
  // alpha = rho / RV: x += alpha p^, r -= alpha v (r is now s)
  VecUpdate2Args u{P, n_, ratio(1, rho, kBiRV), k(1), &ph.buffer(), &x.buffer(), ratio(-1, rho, kBiRV), k(1), &v.buffer(),
                   &r.buffer()};
  u.s = s, u.guard = ctrl;
  vec.update2(u);
  M.apply(r, sh, g);
  A_.apply(sh, t, g);
  vec.dot({P, n_, &t.buffer(), &r.buffer(), kBiTS, &t.buffer(), &t.buffer(), kBiTT, s, ctrl});
  combine(kBiTS, 2);
  // omega = TS / TT: x += omega s^, r = s - omega t; then rho of the next iteration and ||r||^2
  VecUpdate2Args w{P, n_, ratio(1, kBiTS, kBiTT), k(1), &sh.buffer(), &x.buffer(), ratio(-1, kBiTS, kBiTT), k(1), &t.buffer(),
                   &r.buffer()};
  w.w = &rh.buffer(), w.slot_wy = next, w.slot_yy = kBiRR, w.s = s, w.guard = ctrl;
  vec.update2(w);
  combine(std::min(next, kBiRR), 2);
  vec.check({P, ctrl, s, &w_->hist.buffer(), -1, kBiRR, kBB, pack_slots(kBiRV, kBiTS, next), opt_.tolerance,
             opt_.max_iterations});  // numbered by the control block, as CG's
}

// ---- FGMRES(m), flexible right preconditioning: launches per column j: M, A, multi_dot,
// multi_axpy, multi_dot, multi_axpy with the norm (the second pass only when reorthogonalizing),
// store, gmres_column; per cycle: residual, dot, store, check at its start; solve, multi_axpy at
// its end ----------------------------------------------------------------------------------------

template <class T>
void KrylovSolver<T>::fgmres_cycle_start(long it, const Field<T>& b, Field<T>& x) {
  auto vec = be_.vec();
  const Precision P = precision_of<T>();
  Buffer* s = &w_->s.buffer();
  Buffer* ctrl = w_->ctrl.get();
  Field<T>& w = w_->v[0];
  const int beta2 = kGmBase + PF_GM_BETA2;
  A_.residual(b, x, w, Guard{ctrl});
  vec.dot({P, n_, &w.buffer(), &w.buffer(), beta2, nullptr, nullptr, -1, s, ctrl});
  combine(beta2, 1);
  VecCoef inv;  // 1 / ||r0||
  inv.den0 = beta2, inv.sqrt_den = true;
  vec.store({P, n_, inv, &w.buffer(), &w_->basis.buffer(), 0, &w_->v[1].buffer(), nullptr, 0, s, ctrl});
  // the true relative residual at the restart (it replaces the estimate of the cycle's last column)
  vec.check({P, ctrl, s, &w_->hist.buffer(), it, beta2, kBB, 0, opt_.tolerance, opt_.max_iterations});
}

template <class T>
void KrylovSolver<T>::fgmres_cycle_end(Field<T>& x) {
  // not guarded: the cycle that stopped still adds its correction (the count K the columns left
  // on the device is 0 when there is nothing to add)
  auto vec = be_.vec();
  const Precision P = precision_of<T>();
  const int m = opt_.restart;
  vec.gmres_solve({P, &w_->s.buffer(), m, kGmBase});
  VecMultiAxpyArgs a{P, n_, &w_->basis.buffer(), (static_cast<std::size_t>(m) + 1) * n_, n_, m, kGmBase + PF_GM_KY, 1.0,
                     kGmBase + phys::pf_gm_y(m), &x.buffer(), &w_->s.buffer()};
  vec.multi_axpy(a);
}

template <class T>
void KrylovSolver<T>::fgmres(long it, const Field<T>& b, Field<T>& x, const Preconditioner<T>& M) {
  auto vec = be_.vec();
  const Precision P = precision_of<T>();
  Buffer* s = &w_->s.buffer();
  Buffer* ctrl = w_->ctrl.get();
  const Guard g{ctrl};
  const int m = opt_.restart;
  Field<T>&w = w_->v[0], &vin = w_->v[1], &zf = w_->v[2];
  Buffer* basis = &w_->basis.buffer();
  if (it == 0) {
    reference(b);
    fgmres_cycle_start(0, b, x);
    return;
  }
  const int j = static_cast<int>((it - 1) % m);
  const int h1 = kGmBase + PF_GM_H1, h2 = kGmBase + phys::pf_gm_h2(m), nn = kGmBase + PF_GM_NN;
  M.apply(vin, zf, g);  // z_j = M v_j
  A_.apply(zf, w, g);   // w = A z_j
  // classical Gram-Schmidt against V_0 .. V_j, twice when reorthogonalizing; the last pass leaves
  // ||w||^2 in NN
  vec.multi_dot({P, n_, basis, 0, n_, j + 1, &w.buffer(), s, h1, ctrl});
  combine(h1, j + 1);
  if (opt_.reorthogonalize) {
    vec.multi_axpy({P, n_, basis, 0, n_, j + 1, -1, -1.0, h1, &w.buffer(), s, -1, ctrl});
    vec.multi_dot({P, n_, basis, 0, n_, j + 1, &w.buffer(), s, h2, ctrl});
    combine(h2, j + 1);
  }
  vec.multi_axpy({P, n_, basis, 0, n_, j + 1, -1, -1.0, opt_.reorthogonalize ? h2 : h1, &w.buffer(), s, nn, ctrl});
  combine(nn, 1);
  // V_j+1 = w / ||w|| (also into vin, the next column's input), Z_j = z_j
  VecCoef inv;
  inv.den0 = nn, inv.sqrt_den = true;
  vec.store({P, n_, inv, &w.buffer(), basis, static_cast<std::size_t>(j + 1) * n_, &vin.buffer(), &zf.buffer(),
             (static_cast<std::size_t>(m) + 1 + static_cast<std::size_t>(j)) * n_, s, ctrl});
  vec.gmres_column({P, ctrl, s, &w_->hist.buffer(), it, j, m, kGmBase, kBB, opt_.reorthogonalize, opt_.tolerance,
                    opt_.max_iterations});
  if (j == m - 1) {
    fgmres_cycle_end(x);
    if (it < opt_.max_iterations) fgmres_cycle_start(it, b, x);
  }
}

template <class T>
void KrylovSolver<T>::enqueue(long it, const Field<T>& b, Field<T>& x, const Preconditioner<T>& M) {
  switch (opt_.method) {
    case KrylovMethod::CG: return cg(it, b, x, M);
    case KrylovMethod::BiCGSTAB: return bicgstab(it, b, x, M);
    case KrylovMethod::FGMRES: return fgmres(it, b, x, M);
  }
}

template <class T>
KrylovResult KrylovSolver<T>::solve(const Field<T>& b, Field<T>& x) {
  return solve(b, x, w_->identity);
}

template <class T>
KrylovResult KrylovSolver<T>::solve(const Field<T>& b, Field<T>& x, const Preconditioner<T>& M) {
  const std::string what = describe();
  for (auto [f, name] : {std::pair<const Field<T>*, const char*>{&b, "the right-hand side"}, {&x, "the iterate"}}) {
    if (f->size() != n_)
      throw ConfigError(what + ": " + name + " has " + std::to_string(f->size()) + " values, the operator " +
                        std::to_string(n_));
    if (&f->backend() != &be_) throw ConfigError(what + ": " + name + " is on another backend than the operator");
  }
  if (&b == &x) throw ConfigError(what + ": the right-hand side and the iterate must be distinct vectors");
  Buffer& ctrl = *w_->ctrl;
  be_.control().reset(ctrl);
  KrylovResult res;
  std::uint64_t words[PF_CV_WORDS] = {};
  // Recording: from `periodic` on, CG's and BiCGSTAB's iterations repeat their launches every two
  // (their slots alternate); the first such pair of the solve is recorded and every pair replays
  // it. Recorded anew each solve (an updated recording costs little), so a preconditioner
  // refreshed between solves is recorded as it is now.
  const long periodic = opt_.method == KrylovMethod::CG ? 1 : opt_.method == KrylovMethod::BiCGSTAB ? 2 : -1;
  bool record = opt_.record && periodic > 0 && !record_failed_ && comm_.single() && be_.can_record();
  BatchSizes sizes = opt_.batches;
  double fraction = 1;
  if (opt_.adapt_batches) {
    // a device without a recording: an iteration past the stop costs its launches' enqueue
    const bool enqueue_bound = !record && !be_.is_host();
    sizes = enqueue_bound ? BatchSizes{0, 1, 1} : BatchSizes{0, 2, 1024};  // at most 1: a read an iteration
    if (enqueue_bound) fraction = 0.75;
  }
  // The first batch guesses the solve's count: the smaller of the last two converged solves' plus
  // one (a stop needs one iteration more to be seen; on a device without recording 3/4 of that
  // count plus one). Newton's later solves in a step need fewer iterations than the one before, and a solve
  // stopped at its limit says nothing of the next. Each iteration past the stop still enqueues
  // its launches; a short guess costs a read and a batch of `then`.
  if (sizes.first <= 0) {
    const long guess = before_last_ > 0 ? std::min(last_iterations_, before_last_) : last_iterations_;
    sizes.first = guess > 0 ? static_cast<long>(fraction * static_cast<double>(guess)) + 1 : 16;
  }
  // A pair straddling two batches runs as plain launches. The first batch ends where a pair starts
  // (one iteration longer at most), so batches of an even size after it replay whole pairs: with
  // a count plus one as the first batch, about half of the solves replayed nothing after it
  // (linear.batch = 2).
  if (record && sizes.first > periodic && (sizes.first - periodic) % 2 != 0) ++sizes.first;
  bool recorded = false;
  auto replay_pair = [&](long it) {
    if (!recorded) {
      try {
        be_.begin_recording();
        enqueue(it, b, x, M);
        enqueue(it + 1, b, x, M);
        be_.end_recording(w_->recording);
      } catch (const BackendError& e) {
        // work that waits or allocates while recorded (the backend refuses it): enqueue it as it
        // comes instead
        be_.abort_recording();
        record = false, record_failed_ = true;
        spdlog::warn("{}: its iterations cannot be recorded ({}); they are enqueued one by one", what, e.what());
        return false;
      } catch (...) {
        be_.abort_recording();  // any other error is the solve's: out of the recording, then up
        throw;
      }
      recorded = true;
    }
    w_->recording->replay();
    ++res.replays;
    return true;
  };
  res.enqueued = run_batches(
      opt_.max_iterations + 1, sizes,
      [&](long from, long count) {
        for (long it = from; it < from + count;) {
          if (record && it >= periodic && (it - periodic) % 2 == 0 && it + 1 < from + count && replay_pair(it)) {
            it += 2;
            continue;
          }
          enqueue(it++, b, x, M);
        }
      },
      [&](long) {
        be_.download(ctrl, words, sizeof words);  // waits: the one read of a batch
        ++res.control_reads;
        return words[PF_CV_STOP] != PF_CV_RUNNING;
      });
  if (opt_.method == KrylovMethod::FGMRES) fgmres_cycle_end(x);  // a cycle the stop cut short

  // the true residual of the returned iterate, unguarded, into its own slot
  const int true_slot = opt_.method == KrylovMethod::CG ? kCgTrue : opt_.method == KrylovMethod::BiCGSTAB ? kBiTrue : kGmTrue;
  Field<T>& r = w_->v[0];
  A_.residual(b, x, r, Guard{});
  be_.vec().dot({precision_of<T>(), n_, &r.buffer(), &r.buffer(), true_slot, nullptr, nullptr, -1, &w_->s.buffer()});
  combine(true_slot, 1);
  const std::vector<T> sv = w_->s.download();

  switch (static_cast<int>(words[PF_CV_STOP])) {
    case PF_CV_CONVERGED: res.reason = KrylovStop::Converged; break;
    case PF_CV_BREAKDOWN: res.reason = KrylovStop::Breakdown; break;
    case PF_CV_NONFINITE: res.reason = KrylovStop::NonFinite; break;
    default: res.reason = KrylovStop::Limit; break;
  }
  res.converged = res.reason == KrylovStop::Converged;
  res.iterations = words[PF_CV_STOP] != PF_CV_RUNNING ? static_cast<long>(words[PF_CV_ITER]) : opt_.max_iterations;
  std::vector<T> h(static_cast<std::size_t>(res.iterations) + 1);
  be_.download(w_->hist.buffer(), h.data(), h.size() * sizeof(T));
  res.history.assign(h.begin(), h.end());
  res.relative_residual = res.history.empty() ? -1 : res.history.back();
  const double bb = double(sv[kBB]), tr = double(sv[static_cast<std::size_t>(true_slot)]);
  res.true_relative_residual = std::sqrt(tr / (bb > 0 ? bb : 1.0));
  if (res.converged) {
    before_last_ = last_iterations_;
    last_iterations_ = res.iterations;
  }

  if (res.reason == KrylovStop::NonFinite) {
    // a NaN or infinity in b stops at the first check: name its row
    const long row = be_.vec().first_nonfinite({precision_of<T>(), n_, &b.buffer(), w_->word.get()});
    if (row >= 0)
      throw NumericalError(what + ": the right-hand side is not finite at " + A_.describe_row(static_cast<std::size_t>(row)));
  }
  return res;
}

template class KrylovSolver<float>;
template class KrylovSolver<double>;

}  // namespace poreflow::linalg
