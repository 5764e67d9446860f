#pragma once
// The OpenCL backend's implementation of every kernel family: backends/opencl/<family>.cpp, the
// host side around kernels_cl/<family>.cl (built as its own program, program.hpp).
#include <memory>

#include "backends/opencl/context.hpp"
#include "core/kernels/adi2d.hpp"
#include "core/kernels/bl1d.hpp"
#include "core/kernels/blas.hpp"
#include "core/kernels/control.hpp"
#include "core/kernels/halo3d.hpp"
#include "core/kernels/jacobi1d.hpp"
#include "core/kernels/laplace3d.hpp"
#include "core/kernels/reduce.hpp"
#include "core/kernels/tridiag.hpp"

namespace poreflow::ocl {

std::unique_ptr<BlasImpl> make_cl_blas(ClContext& ctx);
std::unique_ptr<ReduceImpl> make_cl_reduce(ClContext& ctx);
std::unique_ptr<ControlImpl> make_cl_control(ClContext& ctx);
std::unique_ptr<Jacobi1DImpl> make_cl_jacobi1d(ClContext& ctx);
std::unique_ptr<Bl1dImpl> make_cl_bl1d(ClContext& ctx);
std::unique_ptr<TridiagImpl> make_cl_tridiag(ClContext& ctx);
std::unique_ptr<Adi2DImpl> make_cl_adi2d(ClContext& ctx);
std::unique_ptr<Halo3DImpl> make_cl_halo3d(ClContext& ctx);
std::unique_ptr<Laplace3DImpl> make_cl_laplace3d(ClContext& ctx);

}  // namespace poreflow::ocl
