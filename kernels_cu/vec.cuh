#pragma once
// Launch wrappers of the vec family (kernels_cu/vec.cu; twin kernels_cl/vec.cl). The leading
// parameters are VecFooArgs::kernel_args() converted for T (core/kernels/vec.hpp has the
// contracts); each wrapper enqueues on `stream` and returns at once.
#include <cuda_runtime_api.h>

#include <cstddef>

namespace poreflow::cu {

using u64 = unsigned long long;

// The shape of a launch that reduces: a persistent grid of `grid` blocks of kLastBlock threads,
// its partials (values x grid of T, or one u64 per block) and the last-block counter (0 between
// launches).
struct VecLaunch {
  unsigned grid = 1;
  void* partials = nullptr;
  unsigned int* counter = nullptr;
};
// the persistent grid for n elements on sm_count SMs
unsigned vec_grid(std::size_t n, int sm_count);
constexpr unsigned kVecMaxGrid = 1024;

template <class T>
void launch_vec_dot(std::size_t n, const T* x1, const T* y1, const T* x2, const T* y2, T* s, int slot1, int slot2,
                    const u64* guard, const VecLaunch& l, cudaStream_t stream);
template <class T>
void launch_vec_multi_dot(std::size_t n, const T* v, std::size_t v_at, std::size_t ldv, int count, const T* w, T* s, int slot,
                          const u64* guard, const VecLaunch& l, cudaStream_t stream);
template <class T>
void launch_vec_axpby(std::size_t n, T a, long a_slots, const T* x, T b, long b_slots, T* y, const T* s, const u64* guard,
                      cudaStream_t stream);
template <class T>
void launch_vec_axpbypcz(std::size_t n, T a, long a_slots, const T* x, T b, long b_slots, const T* y, T c, long c_slots, T* z,
                         const T* s, const u64* guard, cudaStream_t stream);
template <class T>
void launch_vec_update2(std::size_t n, T a1, long a1_slots, const T* x1, T b1, long b1_slots, T* y1, T a2, long a2_slots,
                        const T* x2, T b2, long b2_slots, T* y2, const T* w, T* s, int slot_wy, int slot_yy,
                        const u64* guard, const VecLaunch& l, cudaStream_t stream);
template <class T>
void launch_vec_multi_axpy(std::size_t n, const T* v, std::size_t v_at, std::size_t ldv, int count, int count_slot, T c,
                           int slot, T* y, T* s, int norm_slot, const u64* guard, const VecLaunch& l, cudaStream_t stream);
template <class T>
void launch_vec_store(std::size_t n, T a, long a_slots, const T* w, T* basis, std::size_t v_at, T* v, const T* z,
                      std::size_t z_at, const T* s, const u64* guard, cudaStream_t stream);
// block: 1 (z = d .* r) or 2 (2 x 2 blocks)
template <class T>
void launch_vec_diag(std::size_t cells, const T* d, const T* r, T* z, const u64* guard, int block, cudaStream_t stream);
template <class T>
void launch_vec_gather(std::size_t n, const int* map, const T* x, T* y, const u64* guard, cudaStream_t stream);
// y = x as float (narrow) or x float as T (widen)
template <class T>
void launch_vec_narrow(std::size_t n, const T* x, float* y, const u64* guard, cudaStream_t stream);
template <class T>
void launch_vec_widen(std::size_t n, const float* x, T* y, const u64* guard, cudaStream_t stream);
template <class T>
void launch_vec_check(u64* ctrl, const T* s, T* hist, long it, int rr, int ref, long breakdown, T tol2, long max_it,
                      cudaStream_t stream);
template <class T>
void launch_vec_gmres_column(u64* ctrl, T* s, T* hist, long it, int j, int m, int base, int ref, int two_pass, T tol2,
                             long max_it, cudaStream_t stream);
template <class T>
void launch_vec_gmres_solve(T* s, int m, int base, const u64* guard, cudaStream_t stream);
// l.partials: one u64 per block
template <class T>
void launch_vec_first_nonfinite(std::size_t n, const T* x, u64* word, const VecLaunch& l, cudaStream_t stream);

}  // namespace poreflow::cu
