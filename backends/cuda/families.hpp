#pragma once
// The CUDA backend's implementation of every kernel family: backends/cuda/<family>.cpp, the host
// side (argument conversion, scratch, launch order), around kernels_cu/<family>.cu.
#include <memory>

#include "backends/cuda/context.hpp"
#include "core/kernels/adi2d.hpp"
#include "core/kernels/bl1d.hpp"
#include "core/kernels/blas.hpp"
#include "core/kernels/control.hpp"
#include "core/kernels/halo3d.hpp"
#include "core/kernels/jacobi1d.hpp"
#include "core/kernels/laplace3d.hpp"
#include "core/kernels/reduce.hpp"
#include "core/kernels/tridiag.hpp"

namespace poreflow::cuda_detail {

std::unique_ptr<BlasImpl> make_cuda_blas(CudaContext& ctx);
std::unique_ptr<ReduceImpl> make_cuda_reduce(CudaContext& ctx);
std::unique_ptr<ControlImpl> make_cuda_control(CudaContext& ctx);
std::unique_ptr<Jacobi1DImpl> make_cuda_jacobi1d(CudaContext& ctx);
std::unique_ptr<Bl1dImpl> make_cuda_bl1d(CudaContext& ctx);
std::unique_ptr<TridiagImpl> make_cuda_tridiag(CudaContext& ctx);
std::unique_ptr<Adi2DImpl> make_cuda_adi2d(CudaContext& ctx);
std::unique_ptr<Halo3DImpl> make_cuda_halo3d(CudaContext& ctx);
std::unique_ptr<Laplace3DImpl> make_cuda_laplace3d(CudaContext& ctx);

}  // namespace poreflow::cuda_detail
