#pragma once
// Launch wrappers of the adi2d family (kernels_cu/adi2d.cu; twin kernels_cl/adi2d.cl). One thread
// per node around the shared stencils of core/physics/adi2d.h. Enqueue on `stream`, return at once;
// the caller checks the launch. Float and double are instantiated in the .cu file.
#include <cuda_runtime_api.h>

namespace poreflow::cu {

// The wrappers take the kernels' parameters as the OpenCL twins list them (core/kernels/adi2d.hpp's
// kernel_args), then the stream.
template <class T>
void adi2d_flash(long nx, long ny, T h, const T* prm, const T* m1, const T* m2, const T* m3, const T* m4, const T* p, T* sw,
                 T* so, T* sg, T* co3, T* cg3, T* vol, T* props, cudaStream_t s);

template <class T>
void adi2d_coefficients(long nx, long ny, T h, T dt, const T* prm, const T* p, const T* sw, const T* so, const T* sg,
                        const T* co3, const T* cg3, const T* props, const T* vol, const T* inj, const T* prod, T p_bh, T* aw,
                        T* ae, T* as, T* an, T* d0, T* rhs, cudaStream_t s);

// Under a control block (ctrl non-null) nothing is done once it says stop; check_slot >= 0 folds
// max |rhs - A q| into that slot and clears clear_slot, and with candidate buffers copies q into
// the one pf_cv_candidate names (core/base/converge.h).
template <class T>
void adi2d_sweep(long nx, long ny, int x_sweep, T r, const T* aw, const T* ae, const T* as, const T* an, const T* d0,
                 const T* rhs, const T* q, T* a, T* b, T* c, T* d, unsigned long long* ctrl, int check_slot, int clear_slot,
                 T* cand0, T* cand1, cudaStream_t s);

template <class T>
void adi2d_total_velocity(long nx, long ny, const T* prm, const T* p, const T* sw, const T* so, const T* sg, const T* co3,
                          const T* cg3, const T* props, T* ux, T* uy, cudaStream_t s);

template <class T>
void adi2d_transport(long nx, long ny, T dt, const T* prm, const T* p, const T* sw, const T* so, const T* sg, const T* co3,
                     const T* cg3, const T* props, const T* ux, const T* uy, const T* inj, const T* prod, T p_bh, const T* m1,
                     const T* m2, const T* m3, const T* m4, T* o1, T* o2, T* o3, T* o4, T* a1, T* a2, T* a3, T* a4,
                     cudaStream_t s);

template <class T>
void adi2d_rate(long nx, long ny, T h, const T* prm, const T* p, const T* sw, const T* so, const T* sg, const T* co3,
                const T* cg3, const T* props, const T* ux, const T* uy, const T* vol, const T* prod, T p_bh, T* rate,
                cudaStream_t s);

}  // namespace poreflow::cu
