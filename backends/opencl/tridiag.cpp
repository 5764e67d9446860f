// The tridiag family on the opencl backend: the plan and launches are a line-by-line port of
// make_plan (core/kernels/tridiag_plan.cpp) and enqueue (kernels_cu/tridiag.cu), with the
// device's local memory in place of the CUDA opt-in shared memory. The CUDA templates (rows per
// thread, staged, hybrid, ...) become #defines of kernels_cl/tridiag.cl, built per launch shape
// with its exact work-group size (the family's program per #defines, program.hpp).
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <tuple>

#include "backends/opencl/families.hpp"
#include "core/kernels/tridiag.hpp"
#include "core/base/error.hpp"
#include "core/kernels/tridiag_plan.hpp"
#include "core/kernels/tridiag_view.hpp"

namespace poreflow::ocl {
namespace {

enum class Kern { ThomasDirect, ThomasTiled, Cr, Pcr };

using poreflow::tri::View;  // core/kernels/tridiag_view.hpp, shared with the CUDA plan
using poreflow::tri::make_view;

cl_ulong8 pack(const View& v) {
  cl_ulong8 o;
  const std::uint64_t f[8] = {v.s1, v.s2, v.sj, v.n, v.r1, v.count, v.q, v.k};
  for (int i = 0; i < 8; ++i) o.s[i] = f[i];
  return o;
}

// A pass of global PCR levels: spans s0 .. s0 * 2^(k-1); tile rows R (0: one level, one equation
// per work-item, tridiag_pcr_global)
struct SplitPass {
  int s0 = 1, k = 1, R = 0;
};

struct Plan {
  Kern kern = Kern::ThomasDirect;
  int M = 0, P = 0, G = 1;
  bool staged = false;
  int planes = 4;  // staged: planes of local memory the arrays pass through at once (4 or 1)
  unsigned K = 1;
  int npass = 0;
  SplitPass pass[32];
  int threads = 0;
  std::size_t grid = 0, smem = 0;
  int mcap = 0;
  View view;
};

constexpr std::size_t kSmemCap = 200 * 1024;
constexpr int kStagedThreads = 256;
constexpr int kMinGroupBytes = 16;
constexpr int kThomasBlock = 128;
constexpr int kTileSys = 32;
constexpr int kGlobalBlock = 256;
constexpr int kCrPcrStop = 128;  // CR+PCR: CR until at most this many equations, then PCR
constexpr int kSplitThreads = 256;
constexpr int kSplitGroup = 8;        // interleaved: systems side by side in a split tile
constexpr std::size_t kSplitBytes = 48 * 1024;  // a split pass's two tile buffers

std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }
int next_pow2(std::size_t v) {
  int p = 1;
  while (static_cast<std::size_t>(p) < v) p *= 2;
  return p;
}
int log2i(int m) {
  int l = 0;
  while ((1 << l) < m) ++l;
  return l;
}

// the CUDA kernels' register-limited block sizes (tri::cr_max_threads, measured with ptxas on an
// H100; used on every device, so that every device runs the same plan), capped by the device's
// largest group
int max_threads(std::size_t es, int M, bool staged, std::size_t max_group) {
  return static_cast<int>(std::min<std::size_t>(tri::cr_max_threads(es, M, staged), max_group));
}
using tri::default_rows;
using tri::pad;

// The work-group size of G * P work-items: CUDA launches exactly that; here it is rounded up to
// whole warps on a GPU (free: the hardware rounds up too) and to a power of two elsewhere, so
// that PoCL, which compiles a kernel per group size, builds far fewer (tridiag.cl pads).
int group_size(int gp, bool gpu) { return gpu ? (gp + 31) / 32 * 32 : next_pow2(gp); }

bool fit_onchip(Plan& p, std::size_t es, bool cr, bool whole, bool inter, std::size_t m, const View& v,
                std::size_t smem_cap, std::size_t max_group, bool gpu) {
  // split views want neighbouring subsystems side by side; whole interleaved systems do better
  // unsplit with even one system per group
  const int gmin = inter && v.k == 1 ? 1 : static_cast<int>(std::min<std::size_t>(v.count, kMinGroupBytes / es));
  const int gdirect = static_cast<int>(std::min<std::size_t>(v.count, 64 / es));
  const int mmax = cr ? 16 : 8;  // cr is built for 4, 8 and 16 rows, pcr for 4 and 8
  for (int M = std::min(default_rows(m, inter), mmax); M <= mmax; M *= 2) {
    const int cap = max_threads(es, M, cr && whole, max_group);
    const std::size_t pm = ceil_div(m, M);
    const int P = pm > static_cast<std::size_t>(cap) ? cap + 1 : cr ? static_cast<int>(pm) : next_pow2(pm);
    int G = 0;
    if (P <= cap) {
      if (whole) G = static_cast<int>(std::max<std::size_t>(1, std::min<std::size_t>(v.count, kStagedThreads / P)));
      else G = std::min(gdirect, cap / P) >= gmin ? std::min(gdirect, cap / P) : 0;
    }
    std::size_t sm = 0;
    int planes = 4;
    const int bd = G > 0 && G * P <= cap ? group_size(G * P, gpu) : 0;
    if (bd > 0) {
      if (cr) {
        sm = static_cast<std::size_t>(std::max(4 * log2i(M), 9)) * static_cast<std::size_t>(bd);
        if (whole) {
          // CUDA's four planes, or one array at a time where they do not fit (NVIDIA's OpenCL has
          // 48 KB of local memory: four planes would send float n > ~2900 to a global PCR level)
          const std::size_t plane = static_cast<std::size_t>(pad(es, static_cast<int>(G * v.n))) + 1;
          planes = std::max(sm, 4 * plane) * es <= smem_cap ? 4 : 1;
          sm = std::max(sm, planes * plane);
        }
      } else {
        sm = 4 * m * G;
      }
      sm *= es;
    }
    if (bd == 0 || static_cast<std::size_t>(bd) > max_group || sm > smem_cap) continue;
    p.M = M;
    p.P = P;
    p.G = G;
    p.threads = bd;
    p.smem = sm;
    p.grid = ceil_div(v.count, G);
    p.mcap = static_cast<int>(m);
    p.staged = cr && whole;
    p.planes = planes;
    return true;
  }
  return false;
}

// tridiag.cuh's plan_split: as many levels per tiled pass as keep its halo within a quarter of
// the tile, single levels where not even one does
void plan_split(Plan& p, bool inter, std::size_t es, std::size_t smem_cap) {
  const int tile = static_cast<int>(std::min(kSplitBytes, smem_cap) / (8 * es));
  const int len = inter ? tile / kSplitGroup : tile;
  const int hmax = len / 4;
  const int levels = log2i(static_cast<int>(p.K));
  p.npass = 0;
  for (int done = 0; done < levels;) {
    const int s0 = 1 << done;
    int k = 0;
    while (done + k < levels && s0 * ((1 << (k + 1)) - 1) <= hmax) ++k;
    SplitPass sp;
    sp.s0 = s0;
    sp.k = k == 0 ? 1 : k;
    sp.R = k == 0 ? 0 : len - 2 * s0 * ((1 << k) - 1);
    p.pass[p.npass++] = sp;
    done += sp.k;
  }
}

Plan make_plan(const TridiagArgs& l, std::size_t smem_cap, std::size_t max_group, bool gpu, std::size_t units) {
  Plan p;
  const std::size_t es = size_of(l.prec);
  const bool inter = l.layout == TridiagLayout::Interleaved;
  const std::size_t n = l.n, batch = l.batch;
  smem_cap = std::min(smem_cap, kSmemCap);
  if (l.algo == TridiagAlgo::Thomas) {
    p.kern = inter ? Kern::ThomasDirect : Kern::ThomasTiled;
    p.view = make_view(inter, n, batch, 1);
    p.threads = inter ? kThomasBlock : kTileSys;
    // interleaved: one work-item per system, latency-bound: spread the systems over every compute
    // unit before filling groups
    while (inter && p.threads > 32 && ceil_div(batch, p.threads) < 2 * units) p.threads /= 2;
    p.grid = ceil_div(batch, static_cast<std::size_t>(p.threads));
    return p;
  }
  const bool cr = l.algo == TridiagAlgo::CR || l.algo == TridiagAlgo::CrPcr;
  p.kern = cr ? Kern::Cr : Kern::Pcr;
  for (unsigned K = 1;; K *= 2) {
    const std::size_t m = ceil_div(n, K);
    const View v = make_view(inter, n, batch, K);
    if (fit_onchip(p, es, cr, !inter && K == 1, inter, m, v, smem_cap, max_group, gpu)) {
      p.K = K;
      p.view = v;
      plan_split(p, inter, es, smem_cap);
      return p;
    }
    if (m <= 1)
      throw BackendError("tridiag: no kernel configuration for n = " + std::to_string(n) + " (" + to_string(l.algo) +
                         ", " + to_string(l.layout) + ")");
  }
}

// the #defines of the program that runs `kern` of plan p (tridiag.cl's header lists them)
std::string defines_of(const Plan& p) {
  auto def = [](const char* name, int v) { return std::string("#define ") + name + " " + std::to_string(v) + "\n"; };
  switch (p.kern) {
    case Kern::ThomasDirect: return def("TRI_THOMAS_DIRECT", 1);
    case Kern::ThomasTiled: return def("TRI_THOMAS_TILED", 1);
    case Kern::Cr:
      return def("TRI_CR", 1) + def("TRI_M", p.M) + def("TRI_Q", log2i(p.M)) + def("TRI_STAGED", p.staged ? p.planes : 0);
    case Kern::Pcr: return def("TRI_PCR", 1) + def("TRI_M", p.M);
  }
  return "";
}

const char* kernel_name(Kern k) {
  switch (k) {
    case Kern::ThomasDirect: return "tridiag_thomas_direct";
    case Kern::ThomasTiled: return "tridiag_thomas_tiled";
    case Kern::Cr: return "tridiag_cr";
    default: return "tridiag_pcr";
  }
}

class ClTridiag final : public TridiagImpl {
 public:
  explicit ClTridiag(ClContext& ctx)
      : ctx_(ctx),
        // a group asking for every byte of CL_DEVICE_LOCAL_MEM_SIZE is refused by NVIDIA's OpenCL,
        // which keeps some for itself; solve() shrinks further where 1 KB is not enough
        smem_cap_(ctx.local_mem() > 16 * 1024 ? ctx.local_mem() - 1024 : ctx.local_mem()),
        max_group_(ctx.traits().max_group),
        units_(std::max<std::size_t>(ctx.compute_units(), 1)),
        gpu_(ctx.gpu()) {}

  // Auto: the CUDA rule (tri::auto_algo, measured on an H100; docs/tridiag.md)
  TridiagAlgo resolve_auto(const TridiagArgs& a) const override { return tri::auto_algo(a.layout, a.n, a.batch); }

  // NVIDIA's OpenCL refuses (CL_OUT_OF_RESOURCES) a group size its register use cannot hold, and a
  // group that asks for all of CL_DEVICE_LOCAL_MEM_SIZE; it reports no reliable per-kernel limit
  // beforehand. So a refused shape is planned again with half the group size (down to a warp) and
  // three quarters of the local memory, and the limits that worked are kept for that shape. Passes
  // enqueued before the refusal only wrote scratch from the inputs, so running them again is safe.
  void solve(const TridiagArgs& l) override {
    const auto key = std::make_tuple(int(l.prec), int(l.algo), int(l.layout), l.n, l.batch);
    auto it = limits_.find(key);
    Limits lim = it == limits_.end() ? Limits{max_group_, smem_cap_} : it->second;
    for (;;) {
      try {
        solve_with(l, lim);
        if (lim.group != max_group_ || lim.local != smem_cap_) limits_[key] = lim;
        return;
      } catch (const OutOfResources&) {
        if (lim.group <= 32 && lim.local < 8 * 1024)
          throw BackendError("clEnqueueNDRangeKernel(tridiag) failed: CL_OUT_OF_RESOURCES (-5) even with work-groups of " +
                             std::to_string(lim.group) + " and " + std::to_string(lim.local) +
                             " bytes of local memory (n = " + std::to_string(l.n) + ", batch = " + std::to_string(l.batch) +
                             ", " + to_string(l.algo) + ")");
        Limits next{std::max<std::size_t>(lim.group / 2, 32), lim.local * 3 / 4};
        spdlog::debug("tridiag: the device refused {} n={} batch={} with work-groups of {} and {} B of local memory; "
                      "planning with {} and {} B",
                      to_string(l.algo), l.n, l.batch, lim.group, lim.local, next.group, next.local);
        lim = next;
      }
    }
  }

 private:
  // a launch the driver refused for lack of resources (registers for the group size, or local
  // memory the implementation keeps some of for itself)
  struct OutOfResources {};
  struct Limits {
    std::size_t group, local;
  };

  ClBuffer& scratch(int i, std::size_t bytes) {
    // an enqueued command keeps the old buffer alive until it is done
    if (!scratch_[i] || scratch_[i]->bytes() < bytes) scratch_[i] = std::make_unique<ClBuffer>(ctx_.context(), bytes);
    return *scratch_[i];
  }

  void enqueue(ClKernel& k, cl::NDRange global, cl::NDRange local) {
    cl_int err;
    {
      TallyTimer timed(TallyTimer::Enqueue);
      err = ctx_.queue().enqueueNDRangeKernel(k, cl::NullRange, global, local);
    }
    if (err == CL_OUT_OF_RESOURCES) throw OutOfResources{};
    PF_CHECK_CL_AS(err, "clEnqueueNDRangeKernel(tridiag)");
  }

  ClKernel& kernel(Precision prec, std::size_t block, const std::string& defines, const char* name) {
    return ctx_.programs().kernel("tridiag", prec, static_cast<int>(block), name, defines);
  }

  void solve_with(const TridiagArgs& l, const Limits& lim) {
    using namespace karg;
    const Plan p = make_plan(l, lim.local, lim.group, gpu_, units_);
    const std::size_t es = size_of(l.prec), nb = l.n * l.batch;
    const bool inter = l.layout == TridiagLayout::Interleaved;
    ClKernel& k = kernel(l.prec, p.threads, defines_of(p), kernel_name(p.kern));
    if (p.kern == Kern::ThomasDirect || p.kern == Kern::ThomasTiled) {
      Buffer& cp = scratch(0, nb * es);  // c'
      if (p.kern == Kern::ThomasDirect) ctx_.set_args(k, l.prec, l.kernel_args(), Out<Real>{&cp}, pack(p.view));
      else ctx_.set_args(k, l.prec, l.kernel_args(), Out<Real>{&cp}, cl_ulong(l.n), cl_ulong(l.batch));
      enqueue(k, cl::NDRange(p.grid * p.threads), cl::NDRange(p.threads));
      return;
    }
    // the split: passes of PCR levels in global memory, ping-ponging between two sets of four
    // arrays; the solve then reads the last pass's (its description with those inputs)
    TridiagArgs solve = l;
    const std::string inter_def = std::string("#define TRI_INTER ") + (inter ? "1" : "0") + "\n";
    for (int i = 0; i < p.npass; ++i) {
      const SplitPass& sp = p.pass[i];
      const bool tiled = sp.R > 0;
      ClKernel& g = kernel(l.prec, tiled ? kSplitThreads : kGlobalBlock,
                           (tiled ? "#define TRI_PCR_SPLIT 1\n" : "#define TRI_PCR_GLOBAL 1\n") + inter_def,
                           tiled ? "tridiag_pcr_split" : "tridiag_pcr_global");
      Buffer* o[4];
      for (int j = 0; j < 4; ++j) o[j] = &scratch(1 + 4 * (i % 2) + j, nb * es);
      const auto io = std::tuple(In<Real>{solve.a}, In<Real>{solve.b}, In<Real>{solve.c}, In<Real>{solve.d}, Out<Real>{o[0]},
                                 Out<Real>{o[1]}, Out<Real>{o[2]}, Out<Real>{o[3]}, l.n, l.batch);
      if (!tiled) {
        const std::size_t nu = inter ? l.batch : l.n, nv = inter ? l.n : l.batch;
        const std::size_t gx = std::min<std::size_t>(ceil_div(nu, kGlobalBlock), 1u << 20);
        const std::size_t gy = std::min<std::size_t>(nv, 65535);
        ctx_.set_args(g, l.prec, io, cl_ulong(sp.s0), Opt<pf_u64>{l.guard});
        enqueue(g, cl::NDRange(gx * kGlobalBlock, gy), cl::NDRange(kGlobalBlock, 1));
      } else {
        const std::size_t tiles = ceil_div(l.n, static_cast<std::size_t>(sp.R));
        const int G = inter ? kSplitGroup : 1;
        const int len = sp.R + 2 * sp.s0 * ((1 << sp.k) - 1);
        const std::size_t gx = inter ? ceil_div(l.batch, G) : tiles;
        const std::size_t gy = std::min<std::size_t>(inter ? tiles : l.batch, 65535);
        ctx_.set_args(g, l.prec, io, cl_int(sp.s0), cl_int(sp.k), cl_int(sp.R),
                      cl::Local(8 * static_cast<std::size_t>(len) * G * es), Opt<pf_u64>{l.guard});
        enqueue(g, cl::NDRange(gx * kSplitThreads, gy), cl::NDRange(kSplitThreads, 1));
      }
      solve.a = o[0];
      solve.b = o[1];
      solve.c = o[2];
      solve.d = o[3];
    }
    if (p.kern == Kern::Cr)
      ctx_.set_args(k, l.prec, solve.kernel_args(), pack(p.view), cl_int(p.P), cl_int(p.G),
                    cl_int(l.algo == TridiagAlgo::CrPcr ? kCrPcrStop : 1), cl::Local(p.smem));
    else
      ctx_.set_args(k, l.prec, solve.kernel_args(), pack(p.view), cl_int(p.P), cl_int(p.G), cl_int(p.mcap),
                    cl_int(l.algo == TridiagAlgo::PcrThomas), cl::Local(p.smem));
    enqueue(k, cl::NDRange(p.grid * p.threads), cl::NDRange(p.threads));
  }

  ClContext& ctx_;
  std::size_t smem_cap_, max_group_, units_;
  bool gpu_;
  std::unique_ptr<ClBuffer> scratch_[9];  // c' of Thomas; two sets of four arrays for the global PCR levels
  // the limits a shape (precision, algorithm, layout, n, batch) launched with after a refusal:
  // the real ones may be below the device's reported maxima
  std::map<std::tuple<int, int, int, std::size_t, std::size_t>, Limits> limits_;
};

}  // namespace

FamilyPtr<TridiagImpl> make_family(ClContext& ctx, FamilyTag<TridiagImpl>) { return std::make_shared<ClTridiag>(ctx); }

}  // namespace poreflow::ocl
