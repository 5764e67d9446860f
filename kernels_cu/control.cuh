#pragma once
// Launch wrappers of the control family (kernels_cu/control.cu; twin kernels_cl/control.cl).
#include <cuda_runtime_api.h>

#include <cstddef>

namespace poreflow::cu {

// pf_cv_decide on one thread
template <class T>
void launch_cv_decide(unsigned long long* ctrl, long it, int slot, T abs_tol, T rel_tol, int flags, long cycle, long max_it,
                      cudaStream_t stream);

}  // namespace poreflow::cu
