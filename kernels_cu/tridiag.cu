// The tridiag family (twin: kernels_cl/tridiag.cl): launch wrappers around the kernels and the
// plan of kernels_cu/tridiag_device.cuh, the Auto rule, and the copy that cuSPARSE's in-place solvers need.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <mutex>
#include <tuple>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "kernels_cu/tridiag.cuh"
#include "kernels_cu/tridiag_device.cuh"

namespace poreflow::cu {
namespace {

// Kernels above 48 KB of dynamic shared memory must opt in, once per kernel; remembered here.
void allow_smem(const void* kernel, std::size_t bytes) {
  static std::mutex mu;
  static std::vector<std::pair<const void*, std::size_t>> done;
  std::lock_guard<std::mutex> lock(mu);
  for (auto& [k, b] : done)
    if (k == kernel && b >= bytes) return;
  // an error stays in cudaGetLastError for the caller's PF_CHECK_LAUNCH, like the launch's own
  if (cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)) != cudaSuccess)
    return;
  done.emplace_back(kernel, bytes);
}

struct StreamLauncher {
  cudaStream_t stream;
  int sm_count;
  // blocks of `kernel` the device holds at once (cached: asked on every solve of a persistent kernel)
  template <class... P>
  std::size_t resident(void (*kernel)(P...), dim3 block, std::size_t smem) const {
    const void* k = reinterpret_cast<const void*>(kernel);
    if (smem > 48 * 1024) allow_smem(k, smem);
    struct Entry {
      const void* k;
      unsigned threads;
      std::size_t smem;
      int per_sm;
    };
    static std::mutex mu;
    static std::vector<Entry> cache;
    std::lock_guard<std::mutex> lock(mu);
    int per_sm = 0;
    auto it = std::find_if(cache.begin(), cache.end(),
                           [&](const Entry& e) { return e.k == k && e.threads == block.x && e.smem == smem; });
    if (it != cache.end()) {
      per_sm = it->per_sm;
    } else if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, static_cast<int>(block.x), smem) == cudaSuccess) {
      cache.push_back({k, block.x, smem, per_sm});
    }  // else the error waits in cudaGetLastError for the caller
    return static_cast<std::size_t>(std::max(per_sm, 1)) * static_cast<std::size_t>(std::max(sm_count, 1));
  }
  template <class... P>
  void operator()(void (*kernel)(P...), dim3 grid, dim3 block, std::size_t smem, std::type_identity_t<P>... args) const {
    const void* k = reinterpret_cast<const void*>(kernel);
    if (smem > 48 * 1024) allow_smem(k, smem);
    void* ptrs[] = {static_cast<void*>(&args)...};
    (void)cudaLaunchKernel(k, grid, block, ptrs, smem, stream);  // errors: cudaGetLastError
  }
};

// x = d; a0, c0 = a, c with the ignored ends zeroed; b0 = b unless b0 is null. u: fast index,
// v: slow (as pcr_global_kernel).
template <class T, bool INTER>
__global__ void vendor_prep_kernel(const T* __restrict__ a, const T* __restrict__ b, const T* __restrict__ c,
                                   const T* __restrict__ d, T* __restrict__ a0, T* __restrict__ b0, T* __restrict__ c0,
                                   T* __restrict__ x, std::size_t n, std::size_t batch) {
  const std::size_t nu = INTER ? batch : n, nv = INTER ? n : batch;
  for (std::size_t vv = blockIdx.y; vv < nv; vv += gridDim.y) {
    for (std::size_t u = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; u < nu;
         u += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
      const std::size_t i = INTER ? vv : u;
      const std::size_t p = INTER ? vv * batch + u : vv * n + u;
      a0[p] = i == 0 ? T(0) : a[p];
      c0[p] = i + 1 == n ? T(0) : c[p];
      if (b0) b0[p] = b[p];
      x[p] = d[p];
    }
  }
}

// make_plan's answer for a launch shape, worked out once per shape: a plan costs microseconds of
// host work, and ADI solves the same two shapes thousands of times in tiny launches.
template <class T>
tri::Plan plan_of(const TridiagLaunch& l) {
  using Key = std::tuple<int, int, std::size_t, std::size_t, std::size_t, int, int, int, int, int>;
  static std::mutex mu;
  static std::map<Key, tri::Plan> cache;
  const Key key{static_cast<int>(l.algo), static_cast<int>(l.layout), l.n, l.batch, l.max_smem, l.sm_count,
                l.tune.rows, l.tune.group, l.tune.split, l.tune.stop};
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache.find(key);
  if (it == cache.end()) it = cache.emplace(key, tri::make_plan<T>(l)).first;
  return it->second;
}

}  // namespace

template <class T>
std::size_t tridiag_scratch_bytes(const TridiagLaunch& l) {
  return plan_of<T>(l).scratch * sizeof(T);
}

template <class T>
std::string tridiag_describe(const TridiagLaunch& l) {
  const tri::Plan p = plan_of<T>(l);
  const char* k = p.kern == tri::Kern::ThomasDirect ? "thomas_direct"
                  : p.kern == tri::Kern::ThomasTiled ? "thomas_tiled"
                  : p.kern == tri::Kern::Cr ? (p.staged ? "cr_staged" : "cr_direct")
                                            : "pcr";
  char buf[256];
  std::snprintf(buf, sizeof buf, "%s M=%d P=%d G=%d K=%u stop=%d threads=%d grid=%zu smem=%zu scratch=%zu", k, p.M, p.P,
                p.G, p.K, p.stop, p.threads, p.grid, p.smem, p.scratch * sizeof(T));
  std::string out = buf;
  for (int i = 0; i < p.npass; ++i) {
    std::snprintf(buf, sizeof buf, " pass(s0=%d,k=%d,R=%d)", p.pass[i].s0, p.pass[i].k, p.pass[i].R);
    out += buf;
  }
  return out;
}

template <class T>
void launch_tridiag(const TridiagLaunch& l, cudaStream_t stream) {
  if (l.n == 0 || l.batch == 0) return;
  StreamLauncher launch{stream, l.sm_count};
  tri::enqueue<T>(launch, l, plan_of<T>(l));
}

// Auto (measured on an H100, docs/tridiag.md): CR+PCR (register-blocked CR, then CR across
// threads down to 128 equations and PCR on those) is the fastest or within a few percent of it
// for every shape measured, from 8 x 2^20 to 100001 x 41, contiguous or interleaved, except long
// interleaved systems in large batches (n >= 4096, batch >= 6144). There Thomas, one thread per
// system, wins: its sweep is bound by the latency of one row after another (about 0.27 us a row
// once the batch fills the GPU, so its time hardly grows with the batch), while CR+PCR's time
// grows with the data and its interleaved loads share sectors between blocks.
TridiagAlgo tridiag_auto(Precision prec, TridiagLayout layout, std::size_t n, std::size_t batch) {
  (void)prec;
  if (layout == TridiagLayout::Interleaved && n >= 4096 && batch >= 6144) return TridiagAlgo::Thomas;
  return TridiagAlgo::CrPcr;
}

template <class T>
void launch_tridiag_vendor_prep(const T* a, const T* b, const T* c, const T* d, T* a0, T* b0, T* c0, T* x,
                                std::size_t n, std::size_t batch, TridiagLayout layout, cudaStream_t stream) {
  if (n == 0 || batch == 0) return;
  const bool inter = layout == TridiagLayout::Interleaved;
  const std::size_t nu = inter ? batch : n, nv = inter ? n : batch;
  const dim3 grid(static_cast<unsigned>(std::min<std::size_t>((nu + 255) / 256, 1u << 20)),
                  static_cast<unsigned>(std::min<std::size_t>(nv, 65535)));
  if (inter) vendor_prep_kernel<T, true><<<grid, 256, 0, stream>>>(a, b, c, d, a0, b0, c0, x, n, batch);
  else vendor_prep_kernel<T, false><<<grid, 256, 0, stream>>>(a, b, c, d, a0, b0, c0, x, n, batch);
}

template std::size_t tridiag_scratch_bytes<float>(const TridiagLaunch&);
template std::size_t tridiag_scratch_bytes<double>(const TridiagLaunch&);
template std::string tridiag_describe<float>(const TridiagLaunch&);
template std::string tridiag_describe<double>(const TridiagLaunch&);
template void launch_tridiag<float>(const TridiagLaunch&, cudaStream_t);
template void launch_tridiag<double>(const TridiagLaunch&, cudaStream_t);
template void launch_tridiag_vendor_prep<float>(const float*, const float*, const float*, const float*, float*, float*,
                                                float*, float*, std::size_t, std::size_t, TridiagLayout, cudaStream_t);
template void launch_tridiag_vendor_prep<double>(const double*, const double*, const double*, const double*, double*,
                                                 double*, double*, double*, std::size_t, std::size_t, TridiagLayout,
                                                 cudaStream_t);

}  // namespace poreflow::cu
