// The control family (twin: kernels_cl/control.cl): the full convergence decision on one thread.
#include "core/base/converge.h"
#include "kernels_cu/control.cuh"

namespace poreflow::cu {
namespace {

template <class T>
__global__ void decide_kernel(unsigned long long* ctrl, long it, int slot, T abs_tol, T rel_tol, int flags, long cycle,
                              long max_it) {
  phys::pf_cv_decide<T>(ctrl, it, slot, abs_tol, rel_tol, flags, cycle, max_it);
}

}  // namespace

template <class T>
void launch_cv_decide(unsigned long long* ctrl, long it, int slot, T abs_tol, T rel_tol, int flags, long cycle, long max_it,
                      cudaStream_t stream) {
  decide_kernel<T><<<1, 1, 0, stream>>>(ctrl, it, slot, abs_tol, rel_tol, flags, cycle, max_it);
}

template void launch_cv_decide<float>(unsigned long long*, long, int, float, float, int, long, long, cudaStream_t);
template void launch_cv_decide<double>(unsigned long long*, long, int, double, double, int, long, long, cudaStream_t);

}  // namespace poreflow::cu
