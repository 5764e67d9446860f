#pragma once
// Launch wrappers of the adi2d family (kernels_cu/adi2d.cu; twin kernels_cl/adi2d.cl). One thread
// per node around the shared stencils of core/physics/adi2d.h. Enqueue on `stream`, return at once;
// the caller checks the launch. Float and double are instantiated in the .cu file.
#include <cuda_runtime_api.h>

namespace poreflow::cu {

struct Adi2DGrid {
  long nx = 0, ny = 0;
};

template <class T>
void adi2d_flash(cudaStream_t s, Adi2DGrid g, T h, const T* prm, const T* const m[4], const T* p, T* sw, T* so, T* sg,
                 T* co3, T* cg3, T* vol, T* props);

template <class T>
void adi2d_coefficients(cudaStream_t s, Adi2DGrid g, T h, T dt, const T* prm, const T* p, const T* sw, const T* so,
                        const T* sg, const T* co3, const T* cg3, const T* props, const T* vol, const T* inj, const T* prod, T p_bh, T* aw,
                        T* ae, T* as, T* an, T* d0, T* rhs);

// Under a control block (ctrl non-null) nothing is done once it says stop; check_slot >= 0 folds
// max |rhs - A q| into that slot and clears clear_slot, and with candidate buffers copies q into
// the one pf_cv_candidate names (core/base/converge.h).
template <class T>
void adi2d_sweep(cudaStream_t s, Adi2DGrid g, bool x_sweep, T r, const T* aw, const T* ae, const T* as, const T* an,
                 const T* d0, const T* rhs, const T* q, T* a, T* b, T* c, T* d, unsigned long long* ctrl, int check_slot,
                 int clear_slot, T* cand0, T* cand1);

template <class T>
void adi2d_total_velocity(cudaStream_t s, Adi2DGrid g, const T* prm, const T* p, const T* sw, const T* so, const T* sg,
                          const T* co3, const T* cg3, const T* props, T* ux, T* uy);

template <class T>
void adi2d_transport(cudaStream_t s, Adi2DGrid g, T dt, const T* prm, const T* p, const T* sw, const T* so,
                     const T* sg, const T* co3, const T* cg3, const T* props, const T* ux, const T* uy, const T* inj, const T* prod, T p_bh, const T* const m[4],
                     T* const out[4], T* const acc[4]);

template <class T>
void adi2d_rate(cudaStream_t s, Adi2DGrid g, T h, const T* prm, const T* p, const T* sw, const T* so, const T* sg,
                const T* co3, const T* cg3, const T* props, const T* ux, const T* uy, const T* vol, const T* prod, T p_bh, T* rate);

}  // namespace poreflow::cu
