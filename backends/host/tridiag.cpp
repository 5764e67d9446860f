// tridiag on the host backends: batched Thomas (systems swept in lockstep, thomas_lockstep.hpp)
// and host versions of CR, PCR and the hybrids (tridiag_host.hpp), kept for correctness.
#include <algorithm>
#include <vector>

#include "core/base/converge.h"
#include "backends/host/families.hpp"
#include "core/kernels/tridiag.hpp"
#include "backends/host/thomas_lockstep.hpp"
#include "backends/host/tridiag_host.hpp"

namespace poreflow {
namespace {

template <class T>
void tridiag_t(const HostContext& hc, const TridiagArgs& args) {
  const int threads_ = hc.threads;
  const T* a = host_ptr<T>(*args.a);
  const T* b = host_ptr<T>(*args.b);
  const T* c = host_ptr<T>(*args.c);
  const T* d = host_ptr<T>(*args.d);
  T* x = host_ptr<T>(*args.x);
  const std::size_t n = args.n, batch = args.batch;
  const bool inter = args.layout == TridiagLayout::Interleaved;
  const bool par = hc.par(n * batch);
  const TridiagAlgo algo = args.algo;  // concrete: Auto was resolved by the family
  // system s starts at base(s) with stride `stride`
  const std::size_t stride = inter ? batch : 1;
  auto base = [&](std::size_t s) { return inter ? s : s * n; };

  if (algo == TridiagAlgo::Thomas && inter) {
    // W neighbouring systems swept together: each row of the chunk is one contiguous run, so the
    // loads stream and the inner loop vectorises across systems
    constexpr std::size_t W = 16;
    const long chunks = static_cast<long>((batch + W - 1) / W);
#pragma omp parallel num_threads(threads_) if (par)
    {
      std::vector<T> cp(n * W), bet(W);
#pragma omp for schedule(static)
      for (long ch = 0; ch < chunks; ++ch) {
        const std::size_t s0 = static_cast<std::size_t>(ch) * W, w = std::min(W, batch - s0);
        for (std::size_t k = 0; k < w; ++k) {
          bet[k] = b[s0 + k];
          cp[k] = n > 1 ? c[s0 + k] / bet[k] : T(0);
          x[s0 + k] = d[s0 + k] / bet[k];
        }
        for (std::size_t i = 1; i < n; ++i) {
          const std::size_t r = i * batch + s0, rp = (i - 1) * batch + s0;
          const bool last = i + 1 == n;
          for (std::size_t k = 0; k < w; ++k) {
            const T ai = a[r + k];
            const T bt = b[r + k] - ai * cp[(i - 1) * W + k];
            cp[i * W + k] = last ? T(0) : c[r + k] / bt;
            x[r + k] = (d[r + k] - ai * x[rp + k]) / bt;
          }
        }
        for (std::size_t i = n - 1; i-- > 0;) {
          const std::size_t r = i * batch + s0, rn = (i + 1) * batch + s0;
          for (std::size_t k = 0; k < w; ++k) x[r + k] -= cp[i * W + k] * x[rn + k];
        }
      }
    }
    return;
  }
  if (algo == TridiagAlgo::Thomas && n > 1) {
    // contiguous: W systems in lockstep (thomas_lockstep.hpp); the blocked loop once the group's
    // five arrays outgrow a core's L2 (measured: direct 10-35% faster to 2049^2 floats, blocked
    // 3x faster from 4097^2)
    constexpr std::size_t W = 8;
    const bool blocked = 5 * W * n * sizeof(T) > (std::size_t(512) << 10);
    const long chunks = static_cast<long>((batch + W - 1) / W);
#pragma omp parallel num_threads(threads_) if (par)
    {
      std::vector<T> cp(n * W), dp(blocked ? n * W : 0);
      tridiag_host::Lockstep<T, W> g;
#pragma omp for schedule(static)
      for (long ch = 0; ch < chunks; ++ch) {
        const std::size_t s0 = static_cast<std::size_t>(ch) * W;
        g.w = std::min(W, batch - s0);
        for (std::size_t k = 0; k < g.w; ++k) {
          const std::size_t o = (s0 + k) * n;
          g.a[k] = a + o, g.b[k] = b + o, g.c[k] = c + o, g.d[k] = d + o, g.x[k] = x + o;
        }
        if (blocked)
          tridiag_host::thomas_lockstep_blocked<T, W>(n, g, cp.data(), dp.data());
        else
          tridiag_host::thomas_lockstep_direct<T, W>(n, g, cp.data());
      }
    }
    return;
  }
#pragma omp parallel num_threads(threads_) if (par)
  {
    std::vector<T> cp(n);
    tridiag_host::System<T> sys;
#pragma omp for schedule(static)
    for (long sl = 0; sl < static_cast<long>(batch); ++sl) {
      const std::size_t s = static_cast<std::size_t>(sl), o = base(s);
      if (algo == TridiagAlgo::Thomas) {
        tridiag_host::thomas<T>(n, a + o, b + o, c + o, d + o, x + o, stride, cp.data());
        continue;
      }
      sys.load(n, a + o, b + o, c + o, d + o, stride);
      switch (algo) {
        case TridiagAlgo::CR: tridiag_host::cr<T>(sys, x + o, stride, 1); break;
        case TridiagAlgo::PCR: tridiag_host::cr<T>(sys, x + o, stride, n); break;  // no CR level: PCR on all
        case TridiagAlgo::CrPcr: tridiag_host::cr<T>(sys, x + o, stride, 64); break;
        case TridiagAlgo::PcrThomas: tridiag_host::pcr_thomas<T>(sys, x + o, stride, 5); break;
        default: break;
      }
    }
  }
}

class HostTridiag final : public TridiagImpl {
 public:
  explicit HostTridiag(const HostContext& hc) : hc_(hc) {}
  void solve(const TridiagArgs& a) override {
    if (a.guard && !phys::pf_cv_running(host_ptr<unsigned long long>(*a.guard))) return;
    with_type(a.prec, [&](auto tag) {
      using T = decltype(tag);
      tridiag_t<T>(hc_, a);
      if (!a.add) return;
      const T* add = host_ptr<T>(*a.add);
      T* x = host_ptr<T>(*a.x);
      const std::size_t n = a.n * a.batch;
#pragma omp parallel for schedule(static) num_threads(hc_.threads) if (hc_.par(n))
      for (std::size_t i = 0; i < n; ++i) x[i] += add[i];
    });
  }
  // Thomas: the host's fastest; the parallel algorithms are there for correctness
  TridiagAlgo resolve_auto(const TridiagArgs&) const override { return TridiagAlgo::Thomas; }

 private:
  HostContext hc_;
};

}  // namespace

FamilyPtr<TridiagImpl> make_family(const HostContext& hc, FamilyTag<TridiagImpl>) { return std::make_shared<HostTridiag>(hc); }

}  // namespace poreflow
