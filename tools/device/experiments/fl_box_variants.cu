// Experiment (not part of the build): variants of fluids3d's box kernels (gradient, advect,
// unpack), timed alone against the copy bandwidth, to find why they run at 0.3-0.5x of it
// (issue 11). Every variant's output is compared bit for bit with today's kernel.
// nvcc -O3 -std=c++20 -arch=sm_90 -I. --expt-relaxed-constexpr tools/device/experiments/fl_box_variants.cu
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "core/physics/fluids3d.h"
#include "kernels_cu/box3_device.cuh"
#include "tools/device/experiments/experiment.cuh"

namespace ph = poreflow::phys;
using poreflow::cu::box_for_each;

// ---- A: today's kernels (kernels_cu/fluids3d.cu) ---------------------------------------------
__global__ void grad_a(float* __restrict__ u, float* __restrict__ v, float* __restrict__ w, const float* __restrict__ p,
                       pf_box3 bx, float scale) {
  box_for_each(bx.nx, bx.ny, bx.nz, [&](long i, long j, long k) { ph::fl_grad_cell<float>(u, v, w, p, bx, i, j, k, ph::pf_box_at(bx, i, j, k), scale); });
}
__global__ void advect_a(float* __restrict__ d, const float* __restrict__ d0, const float* __restrict__ u,
                         const float* __restrict__ v, const float* __restrict__ w, pf_box3 bx, int b, float dt0) {
  box_for_each(bx.nx, bx.ny, bx.nz,
               [&](long i, long j, long k) {
                 ph::fl_advect_cell<float>(d, d0, u, v, w, bx, b, i, j, k, ph::pf_box_at(bx, i, j, k), dt0, dt0, dt0, 0.5f, float(bx.nz) + 0.5f);
               });
}
__global__ void unpack_a(const float* __restrict__ xp, float* __restrict__ x, pf_box3 bx, int b) {
  box_for_each(bx.nx, bx.ny, bx.nz, [&](long i, long j, long k) { ph::fl_unpack_cell<float>(xp, x, bx, b, i, j, k, ph::pf_box_at(bx, i, j, k)); });
}
__global__ void pack_a(const float* __restrict__ x, float* __restrict__ xp, pf_box3 bx) {
  box_for_each(bx.nx, bx.ny, bx.nz, [&](long i, long j, long k) { ph::fl_pack_cell<float>(x, xp, bx, i, j, k, ph::pf_box_at(bx, i, j, k)); });
}

// ---- B: 32-bit indices, the interior value only; the ghosts from a separate boundary pass ------
struct IBox {
  int nx, ny, nz, sy, sz, off;
};
IBox ibox(pf_box3 b) { return {int(b.nx), int(b.ny), int(b.nz), int(b.sy), int(b.sz), int(b.off)}; }

// this thread's (i, j) and its chunk [k0, k1) of layers, as box_for_each (march shape)
#define IB_BEGIN(B)                                                                        \
  const int i = blockIdx.x * blockDim.x + threadIdx.x;                                     \
  const int j = blockIdx.y * blockDim.y + threadIdx.y;                                     \
  if (i >= (B).nx || j >= (B).ny) return;                                                  \
  const int kc = ((B).nz + gridDim.z - 1) / gridDim.z, k0 = blockIdx.z * kc;               \
  const int k1 = k0 + kc < (B).nz ? k0 + kc : (B).nz;                                      \
  int at = (B).off + i + j * (B).sy + k0 * (B).sz;                                         \
  _Pragma("unroll 4") for (int k = k0; k < k1; ++k, at += (B).sz)

template <int GHOST>
__global__ void grad_b(float* __restrict__ u, float* __restrict__ v, float* __restrict__ w, const float* __restrict__ p,
                       IBox B, pf_box3 bx, float scale) {
  IB_BEGIN(B) {
    const float nu = u[at] - scale * (p[at + 1] - p[at - 1]);
    const float nv = v[at] - scale * (p[at + B.sy] - p[at - B.sy]);
    const float nw = w[at] - scale * (p[at + B.sz] - p[at - B.sz]);
    if (GHOST) {
      ph::fl_store<float>(u, bx, PF_FL_U, i, j, k, at, nu);
      ph::fl_store<float>(v, bx, PF_FL_V, i, j, k, at, nv);
      ph::fl_store<float>(w, bx, PF_FL_W, i, j, k, at, nw);
    } else {
      u[at] = nu;
      v[at] = nv;
      w[at] = nw;
    }
  }
}

// C: B with p read from its colour-packed copy (a face ghost of a scalar is the cell itself)
__global__ void grad_c(float* __restrict__ u, float* __restrict__ v, float* __restrict__ w, const float* __restrict__ pp,
                       IBox B, float scale) {
  const int hx = (B.nx + 1) / 2, plane = hx * B.ny, m = plane * B.nz;
  IB_BEGIN(B) {
    const int c = (i + j + k) & 1, row = (k * B.ny + j) * hx;
    const float* own = pp + c * m + row + (i >> 1);
    const float* oth = pp + (1 - c) * m + row + (i >> 1);
    const float self = *own;
    const float pw = i > 0 ? oth[(i & 1) - 1] : self, pe = i < B.nx - 1 ? oth[i & 1] : self;
    const float ps = j > 0 ? oth[-hx] : self, pn = j < B.ny - 1 ? oth[hx] : self;
    const float pb = k > 0 ? oth[-plane] : self, pt = k < B.nz - 1 ? oth[plane] : self;
    u[at] = u[at] - scale * (pe - pw);
    v[at] = v[at] - scale * (pn - ps);
    w[at] = w[at] - scale * (pt - pb);
  }
}

template <int GHOST>
__global__ void advect_b(float* __restrict__ d, const float* __restrict__ d0, const float* __restrict__ u,
                         const float* __restrict__ v, const float* __restrict__ w, IBox B, pf_box3 bx, int b, float dt0) {
  IB_BEGIN(B) {
    const float val = ph::fl_advect_point<float>(d0, bx, i, j, k, dt0, dt0, dt0, u[at], v[at], w[at], 0.5f, float(bx.nz) + 0.5f);
    if (GHOST) ph::fl_store<float>(d, bx, b, i, j, k, at, val);
    else d[at] = val;
  }
}

__global__ void unpack_b(const float* __restrict__ xp, float* __restrict__ x, IBox B) {
  const int hx = (B.nx + 1) / 2, m = hx * B.ny * B.nz;
  IB_BEGIN(B) { x[at] = xp[((i + j + k) & 1) * m + (k * B.ny + j) * hx + (i >> 1)]; }
}

// the ghosts of up to three arrays (blockIdx.y picks one) from their boundary cells
struct Three {
  float* x[3];
  int b[3];
};
__global__ void boundary3(Three t, pf_box3 bx) {
  const long n = ph::fl_boundary_cells(bx);
  for (long q = long(blockIdx.x) * blockDim.x + threadIdx.x; q < n; q += long(gridDim.x) * blockDim.x)
    ph::fl_boundary_cell<float>(t.x[blockIdx.y], bx, t.b[blockIdx.y], q);
}

// ---- P: the production kernels (kernels_cu/fluids3d.cu: box_for_each_at with the physics' bodies),
// and the same loop without its unroll (U = 0)
template <class I, class F>
__device__ __forceinline__ void loop_no_unroll(const pf_box3& b, F&& f) {
  const I nx = I(b.nx), ny = I(b.ny), nz = I(b.nz), sy = I(b.sy), sz = I(b.sz);
  const I i = I(blockIdx.x) * I(blockDim.x) + I(threadIdx.x);
  if (i >= nx) return;
  const I kc = (nz + I(gridDim.z) - 1) / I(gridDim.z), k0 = I(blockIdx.z) * kc, k1 = k0 + kc < nz ? k0 + kc : nz;
  for (I j = I(blockIdx.y) * I(blockDim.y) + I(threadIdx.y); j < ny; j += I(gridDim.y) * I(blockDim.y)) {
    I at = I(b.off) + i + j * sy + k0 * sz;
    for (I k = k0; k < k1; ++k, at += sz) f(i, j, k, at);
  }
}
template <int U>
__global__ void grad_p(float* __restrict__ u, float* __restrict__ v, float* __restrict__ w, const float* __restrict__ p,
                       pf_box3 bx, float scale) {
  auto body = [&](int i, int j, int k, int at) { ph::fl_grad_cell<float>(u, v, w, p, bx, i, j, k, at, scale); };
  if (U) poreflow::cu::box_for_each_at<int>(bx, body);
  else loop_no_unroll<int>(bx, body);
}
template <int U>
__global__ void advect_p(float* __restrict__ d, const float* __restrict__ d0, const float* __restrict__ u,
                         const float* __restrict__ v, const float* __restrict__ w, pf_box3 bx, int b, float dt0) {
  auto body = [&](int i, int j, int k, int at) { ph::fl_advect_cell<float>(d, d0, u, v, w, bx, b, i, j, k, at, dt0, dt0, dt0, 0.5f, float(bx.nz) + 0.5f); };
  if (U) poreflow::cu::box_for_each_at<int>(bx, body);
  else loop_no_unroll<int>(bx, body);
}
template <int U>
__global__ void unpack_p(const float* __restrict__ xp, float* __restrict__ x, pf_box3 bx, int b) {
  auto body = [&](int i, int j, int k, int at) { ph::fl_unpack_cell<float>(xp, x, bx, b, i, j, k, at); };
  if (U) poreflow::cu::box_for_each_at<int>(bx, body);
  else loop_no_unroll<int>(bx, body);
}

// ---- harness -----------------------------------------------------------------------------
struct Buf {
  float* d = nullptr;
  size_t n = 0;
  explicit Buf(size_t n_) : n(n_) { CK(cudaMalloc(&d, n * sizeof(float))); }
  ~Buf() { cudaFree(d); }
  void set(const std::vector<float>& h) { CK(cudaMemcpy(d, h.data(), n * sizeof(float), cudaMemcpyHostToDevice)); }
  std::vector<float> get() const {
    std::vector<float> h(n);
    CK(cudaMemcpy(h.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost));
    return h;
  }
};

bool same(const std::vector<float>& a, const std::vector<float>& b) { return std::memcmp(a.data(), b.data(), a.size() * 4) == 0; }

int main(int argc, char** argv) {
  const int reps = 20;
  for (int a = 1; a < argc; ++a) {
    const long N = std::atol(argv[a]);
    pf_box3 bx{N, N, N, 1, N + 2, (N + 2) * (N + 2), 1 + (N + 2) + (N + 2) * (N + 2)};
    const IBox B = ibox(bx);
    const size_t ext = size_t(N + 2) * (N + 2) * (N + 2), cells = size_t(N) * N * N;
    const size_t packed = size_t(2) * ((N + 1) / 2) * N * N;
    std::mt19937 rng{static_cast<unsigned>(N)};
    std::uniform_real_distribution<float> U(-1, 1);
    std::vector<float> hu(ext), hv(ext), hw(ext), hp(ext), hd(ext);
    for (auto* h : {&hu, &hv, &hw, &hp, &hd})
      for (auto& x : *h) x = U(rng);
    Buf u(ext), v(ext), w(ext), p(ext), d(ext), d0(ext), pp(packed), cpy(ext);
    // p consistent with its packed copy and its ghosts, as after the solve's unpack
    p.set(hp);
    // box_grid's launch for the default shape march:32x8 (chunks of kBoxMarchLayers layers)
    struct {
      dim3 grid, block;
    } g{dim3(unsigned((N + 31) / 32), unsigned((N + 7) / 8), unsigned((N + poreflow::kBoxMarchLayers - 1) / poreflow::kBoxMarchLayers)),
        dim3(32, 8, 1)};
    pack_a<<<g.grid, g.block>>>(p.d, pp.d, bx);
    unpack_a<<<g.grid, g.block>>>(pp.d, p.d, bx, PF_FL_SCALAR);
    const float bytes4 = 4.0f;
    const float copy_ms = time_ms([&] { CK(cudaMemcpyAsync(cpy.d, u.d, ext * 4, cudaMemcpyDeviceToDevice)); }, reps);
    const double copy_gbs = 2.0 * ext * 4 / (copy_ms * 1e6);
    std::printf("N=%ld copy %.1f us %.0f GB/s\n", N, copy_ms * 1e3, copy_gbs);
    auto report = [&](const char* name, float ms, double values, bool ok) {
      const double gbs = values * bytes4 / (ms * 1e6);
      std::printf("  %-34s %8.1f us %6.0f GB/s %.2fx copy %s\n", name, ms * 1e3, gbs, gbs / copy_gbs, ok ? "same bits" : "DIFFERENT");
    };
    const unsigned bblocks = unsigned((ph::fl_boundary_cells(bx) + 255) / 256);
    // gradient: 7 N^3 values (u, v, w read and written, p read)
    auto reset_uvw = [&] { u.set(hu), v.set(hv), w.set(hw); };
    reset_uvw();
    grad_a<<<g.grid, g.block>>>(u.d, v.d, w.d, p.d, bx, 0.7f);
    const auto ru = u.get(), rv = v.get(), rw = w.get();
    auto check3 = [&] { return same(u.get(), ru) && same(v.get(), rv) && same(w.get(), rw); };
    const float ta = time_ms([&] { grad_a<<<g.grid, g.block>>>(u.d, v.d, w.d, p.d, bx, 0.7f); }, reps);
    report("gradient A (today)", ta, 7.0 * cells, true);
    reset_uvw();
    grad_b<1><<<g.grid, g.block>>>(u.d, v.d, w.d, p.d, B, bx, 0.7f);
    bool ok = check3();
    report("gradient B1 (int, fl_store)", time_ms([&] { grad_b<1><<<g.grid, g.block>>>(u.d, v.d, w.d, p.d, B, bx, 0.7f); }, reps),
           7.0 * cells, ok);
    Three t{{u.d, v.d, w.d}, {PF_FL_U, PF_FL_V, PF_FL_W}};
    auto b0 = [&] {
      grad_b<0><<<g.grid, g.block>>>(u.d, v.d, w.d, p.d, B, bx, 0.7f);
      boundary3<<<dim3(bblocks, 3), 256>>>(t, bx);
    };
    reset_uvw();
    b0();
    ok = check3();
    report("gradient B0 (int, + boundary pass)", time_ms(b0, reps), 7.0 * cells, ok);
    auto c0 = [&] {
      grad_c<<<g.grid, g.block>>>(u.d, v.d, w.d, pp.d, B, 0.7f);
      boundary3<<<dim3(bblocks, 3), 256>>>(t, bx);
    };
    reset_uvw();
    c0();
    ok = check3();
    report("gradient C (packed p, + boundary)", time_ms(c0, reps), 7.0 * cells, ok);
    for (int un : {1, 0}) {
      reset_uvw();
      auto gp = [&] {
        if (un) grad_p<1><<<g.grid, g.block>>>(u.d, v.d, w.d, p.d, bx, 0.7f);
        else grad_p<0><<<g.grid, g.block>>>(u.d, v.d, w.d, p.d, bx, 0.7f);
      };
      gp();
      ok = check3();
      report(un ? "gradient P (production, unroll 4)" : "gradient P (production, no unroll)", time_ms(gp, reps), 7.0 * cells, ok);
    }
    report("  boundary pass alone", time_ms([&] { boundary3<<<dim3(bblocks, 3), 256>>>(t, bx); }, reps), 0, true);
    // advect: 5 N^3 values (d0 gathered, u, v, w read, d written); velocities of a few cells a step
    std::vector<float> small(ext);
    for (auto& x : small) x = U(rng) * 0.02f;
    u.set(small), v.set(small), w.set(small), d0.set(hd);
    const float dt0 = 0.1f * float(N);
    advect_a<<<g.grid, g.block>>>(d.d, d0.d, u.d, v.d, w.d, bx, PF_FL_U, dt0);
    const auto rd = d.get();
    report("advect A (today)", time_ms([&] { advect_a<<<g.grid, g.block>>>(d.d, d0.d, u.d, v.d, w.d, bx, PF_FL_U, dt0); }, reps),
           5.0 * cells, true);
    CK(cudaMemset(d.d, 0, ext * 4));
    advect_b<1><<<g.grid, g.block>>>(d.d, d0.d, u.d, v.d, w.d, B, bx, PF_FL_U, dt0);
    ok = same(d.get(), rd);
    for (int un : {1, 0}) {
      auto ap = [&] {
        if (un) advect_p<1><<<g.grid, g.block>>>(d.d, d0.d, u.d, v.d, w.d, bx, PF_FL_U, dt0);
        else advect_p<0><<<g.grid, g.block>>>(d.d, d0.d, u.d, v.d, w.d, bx, PF_FL_U, dt0);
      };
      CK(cudaMemset(d.d, 0, ext * 4));
      ap();
      report(un ? "advect P (production, unroll 4)" : "advect P (production, no unroll)", time_ms(ap, reps), 5.0 * cells,
             same(d.get(), rd));
    }
    report("advect B1 (int, fl_store)",
           time_ms([&] { advect_b<1><<<g.grid, g.block>>>(d.d, d0.d, u.d, v.d, w.d, B, bx, PF_FL_U, dt0); }, reps), 5.0 * cells, ok);
    Three t1{{d.d, d.d, d.d}, {PF_FL_U, PF_FL_U, PF_FL_U}};
    auto ab0 = [&] {
      advect_b<0><<<g.grid, g.block>>>(d.d, d0.d, u.d, v.d, w.d, B, bx, PF_FL_U, dt0);
      boundary3<<<dim3(bblocks, 1), 256>>>(t1, bx);
    };
    CK(cudaMemset(d.d, 0, ext * 4));
    ab0();
    ok = same(d.get(), rd);
    report("advect B0 (int, + boundary pass)", time_ms(ab0, reps), 5.0 * cells, ok);
    // unpack: 2 N^3 values; pack: 2 N^3
    unpack_a<<<g.grid, g.block>>>(pp.d, d.d, bx, PF_FL_V);
    const auto rx = d.get();
    report("unpack A (today)", time_ms([&] { unpack_a<<<g.grid, g.block>>>(pp.d, d.d, bx, PF_FL_V); }, reps), 2.0 * cells, true);
    for (int un : {1, 0}) {
      auto upp = [&] {
        if (un) unpack_p<1><<<g.grid, g.block>>>(pp.d, d.d, bx, PF_FL_V);
        else unpack_p<0><<<g.grid, g.block>>>(pp.d, d.d, bx, PF_FL_V);
      };
      CK(cudaMemset(d.d, 0, ext * 4));
      upp();
      report(un ? "unpack P (production, unroll 4)" : "unpack P (production, no unroll)", time_ms(upp, reps), 2.0 * cells,
             same(d.get(), rx));
    }
    Three t2{{d.d, d.d, d.d}, {PF_FL_V, PF_FL_V, PF_FL_V}};
    auto ub = [&] {
      unpack_b<<<g.grid, g.block>>>(pp.d, d.d, B);
      boundary3<<<dim3(bblocks, 1), 256>>>(t2, bx);
    };
    CK(cudaMemset(d.d, 0, ext * 4));
    ub();
    ok = same(d.get(), rx);
    report("unpack B (int, + boundary pass)", time_ms(ub, reps), 2.0 * cells, ok);
    report("pack A (today)", time_ms([&] { pack_a<<<g.grid, g.block>>>(u.d, pp.d, bx); }, reps), 2.0 * cells, true);
  }
  return 0;
}
