#include "core/kernels/tridiag_plan.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <mutex>
#include <tuple>

#include "core/base/error.hpp"

namespace poreflow::tri {
namespace {

constexpr std::size_t kSmemCap = 200 * 1024;  // of the 227 KB a block may have on an H100
constexpr int kStagedThreads = 256;           // small contiguous systems: several per block up to this
constexpr int kMinGroupBytes = 16;            // split views: neighbouring subsystems per warp access

std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }
unsigned log2c_rt(unsigned k) {
  unsigned l = 0;
  while ((1u << l) < k) ++l;
  return l;
}
int next_pow2(std::size_t v) {
  int p = 1;
  while (static_cast<std::size_t>(p) < v) p *= 2;
  return p;
}

// Fits cr_kernel (cr) or pcr_kernel for systems of at most m rows in view v; fills p. `whole`:
// contiguous whole systems (a block's systems are one range; short ones are grouped up to
// kStagedThreads threads); otherwise a block takes neighbouring systems of an interleaved or
// split view (of a split view at least kMinGroupBytes of them side by side).
bool fit_onchip(Plan& p, std::size_t vb, bool cr, bool whole, bool inter, std::size_t m, const View& v,
                std::size_t smem_cap, const Tuning& tune) {
  // split views want neighbouring subsystems side by side; whole interleaved systems do better
  // unsplit with even one system per block than split for more (L2 serves the neighbours' sectors)
  const int gmin = inter && v.k == 1 ? 1 : static_cast<int>(std::min<std::size_t>(v.count, kMinGroupBytes / vb));
  const int gdirect = static_cast<int>(std::min<std::size_t>(v.count, 64 / vb));
  const int mmax = cr ? kMaxRows : 8;  // pcr_kernel is built for 4 and 8 rows
  for (int M = tune.rows > 0 ? tune.rows : std::min(default_rows(m, inter), mmax); M <= mmax; M *= 2) {
    const bool st = cr && whole;
    const int built = M == 4 ? 4 : M == 8 ? 8 : 16;  // the kernel instance that runs M rows (tune.rows: 4, 8 or 16)
    const int cap = cr_max_threads(vb, built, st);
    const std::size_t pm = ceil_div(m, M);
    const int P = pm > static_cast<std::size_t>(cap) ? cap + 1 : cr ? static_cast<int>(pm) : next_pow2(pm);
    int G = 0;
    if (P <= cap) {
      if (tune.group > 0) G = tune.group;
      else if (whole) G = static_cast<int>(std::max<std::size_t>(1, std::min<std::size_t>(v.count, kStagedThreads / P)));
      else G = std::min(gdirect, cap / P) >= gmin ? std::min(gdirect, cap / P) : 0;
    }
    std::size_t sm = 0;
    if (G > 0 && G * P <= cap) {
      const std::size_t bd = static_cast<std::size_t>(G) * P;
      if (cr) {
        sm = static_cast<std::size_t>(cr_work_per_thread(built)) * bd;
        if (whole) {
          const std::size_t plane = static_cast<std::size_t>(staged_plane(vb, G, static_cast<int>(v.n)));
          sm = 4 * plane + std::max(sm, plane);
        }
      } else {
        sm = 4 * m * G;
      }
      sm *= vb;
    }
    if (G == 0 || G * P > cap || sm > smem_cap) {
      if (tune.rows > 0) return false;
      continue;
    }
    p.M = M;
    p.P = P;
    p.G = G;
    p.threads = G * P;
    p.smem = sm;
    p.grid = ceil_div(v.count, G);
    p.mcap = static_cast<int>(m);
    p.staged = cr && whole;
    return true;
  }
  return false;
}

// The global passes that take the systems from 1 to K subsystems: as many levels per tiled pass
// as keep its halo within a quarter of the tile, single levels where not even one does.
void plan_split(Plan& p, bool inter, std::size_t vb) {
  const int tile = split_tile_values(vb);
  const int len = inter ? tile / kSplitGroup : tile;
  const int hmax = len / 4;
  const unsigned levels = log2c_rt(p.K);
  p.npass = 0;
  for (unsigned done = 0; done < levels;) {
    const int s0 = 1 << done;
    int k = 0;
    while (done + k < levels && s0 * ((1 << (k + 1)) - 1) <= hmax) ++k;
    SplitPass sp;
    sp.s0 = s0;
    if (k == 0) {
      sp.k = 1;
      sp.R = 0;
    } else {
      sp.k = k;
      sp.R = len - 2 * s0 * ((1 << k) - 1);
    }
    p.pass[p.npass++] = sp;
    done += sp.k;
  }
}

}  // namespace

Plan make_plan(const Shape& l) {
  Plan p;
  const std::size_t vb = l.value_bytes;
  const bool inter = l.layout == TridiagLayout::Interleaved;
  const std::size_t n = l.n, batch = l.batch;
  const std::size_t smem_cap = std::min<std::size_t>(l.max_smem, kSmemCap);
  if (l.algo == TridiagAlgo::Thomas) {
    p.kern = inter ? Kern::ThomasDirect : Kern::ThomasTiled;
    p.view = make_view(inter, n, batch, 1);
    p.scratch = n * batch;  // c'
    if (inter) {
      // one thread per system, latency-bound: spread the systems over every SM before filling blocks
      const std::size_t sms = static_cast<std::size_t>(std::max(l.sm_count, 1));
      p.threads = kThomasBlock;
      while (p.threads > 32 && ceil_div(batch, p.threads) < 2 * sms) p.threads /= 2;
    } else {
      p.threads = kTileSys;
    }
    p.grid = ceil_div(batch, static_cast<std::size_t>(p.threads));
    p.smem = inter ? 0 : tiled_smem_bytes(vb);
    p.mcap = static_cast<int>(std::min<std::size_t>(n, 1u << 30));
    return p;
  }
  const bool cr = l.algo == TridiagAlgo::CR || l.algo == TridiagAlgo::CrPcr;
  p.kern = cr ? Kern::Cr : Kern::Pcr;
  p.stop = l.algo == TridiagAlgo::CrPcr ? (l.tune.stop > 0 ? l.tune.stop : kCrPcrStop) : 1;
  for (unsigned K = 1;; K *= 2) {
    const std::size_t m = ceil_div(n, K);
    const bool forced = l.tune.split >= 0;
    if (forced && K < (1u << l.tune.split)) continue;
    const View v = make_view(inter, n, batch, K);
    if (fit_onchip(p, vb, cr, !inter && K == 1, inter, m, v, smem_cap, l.tune)) {
      p.K = K;
      p.view = v;
      plan_split(p, inter, vb);
      p.scratch = p.npass == 0 ? 0 : (p.npass == 1 ? 4 : 8) * n * batch;
      return p;
    }
    if (forced || m <= 1)
      throw BackendError("tridiag: no kernel configuration for n = " + std::to_string(n) + " (" + to_string(l.algo) +
                         ", " + to_string(l.layout) + ")");
  }
}

Plan plan_of(const Shape& l) {
  using Key = std::tuple<int, int, std::size_t, std::size_t, std::size_t, std::size_t, int, int, int, int, int>;
  static std::mutex mu;
  static std::map<Key, Plan> cache;
  const Key key{static_cast<int>(l.algo), static_cast<int>(l.layout), l.n, l.batch, l.value_bytes, l.max_smem, l.sm_count,
                l.tune.rows, l.tune.group, l.tune.split, l.tune.stop};
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache.find(key);
  if (it == cache.end()) it = cache.emplace(key, make_plan(l)).first;
  return it->second;
}

// Auto (measured on an H100, docs/tridiag.md): CR+PCR (register-blocked CR, then CR across
// threads down to 128 equations and PCR on those) is the fastest or within a few percent of it
// for every shape measured, from 8 x 2^20 to 100001 x 41, contiguous or interleaved, except long
// interleaved systems in large batches (n >= 4096, batch >= 6144). There Thomas, one thread per
// system, wins: its sweep is bound by the latency of one row after another (about 0.27 us a row
// once the batch fills the GPU, so its time hardly grows with the batch), while CR+PCR's time
// grows with the data and its interleaved loads share sectors between blocks.
TridiagAlgo auto_algo(TridiagLayout layout, std::size_t n, std::size_t batch) {
  if (layout == TridiagLayout::Interleaved && n >= 4096 && batch >= 6144) return TridiagAlgo::Thomas;
  return TridiagAlgo::CrPcr;
}

std::string describe(const Plan& p, std::size_t value_bytes) {
  const char* k = p.kern == Kern::ThomasDirect ? "thomas_direct"
                  : p.kern == Kern::ThomasTiled ? "thomas_tiled"
                  : p.kern == Kern::Cr ? (p.staged ? "cr_staged" : "cr_direct")
                                       : "pcr";
  char buf[256];
  std::snprintf(buf, sizeof buf, "%s M=%d P=%d G=%d K=%u stop=%d threads=%d grid=%zu smem=%zu scratch=%zu", k, p.M, p.P,
                p.G, p.K, p.stop, p.threads, p.grid, p.smem, p.scratch * value_bytes);
  std::string out = buf;
  for (int i = 0; i < p.npass; ++i) {
    std::snprintf(buf, sizeof buf, " pass(s0=%d,k=%d,R=%d)", p.pass[i].s0, p.pass[i].k, p.pass[i].R);
    out += buf;
  }
  return out;
}

}  // namespace poreflow::tri
