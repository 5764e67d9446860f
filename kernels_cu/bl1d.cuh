#pragma once
// Launch wrappers of the bl1d family (kernels_cu/bl1d.cu; twin kernels_cl/bl1d.cl).
#include <cuda_runtime_api.h>

#include <cstddef>

namespace poreflow::cu {

// nfaces = points - 1 faces
template <class T>
void launch_bl_face_mobility(const T* s, T* mface, std::size_t nfaces, T k, T mu_w, T mu_o, cudaStream_t stream);
template <class T>
void launch_bl_face_velocity(const T* p, const T* mface, T* u, std::size_t nfaces, T inv_h, cudaStream_t stream);
template <class T>
void launch_bl_saturation(const T* s_old, const T* u, T* s_new, std::size_t n, T c, T s_inj, T mu_w, T mu_o,
                          cudaStream_t stream);
// the 1D pressure equation as one tridiagonal system (bl1d's tridiag pressure solver)
template <class T>
void launch_bl_pressure_system(const T* mface, std::size_t n, T p_left, T p_right, T* a, T* b, T* c, T* d,
                               cudaStream_t stream);

}  // namespace poreflow::cu
