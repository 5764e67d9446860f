#pragma once
// The host backends' implementation of every kernel family (core/reference/<family>.cpp; omp's
// own reductions in backends/omp/reduce.cpp). One factory per family.
#include <memory>

#include "core/kernels/adi2d.hpp"
#include "core/kernels/bl1d.hpp"
#include "core/kernels/blas.hpp"
#include "core/kernels/control.hpp"
#include "core/kernels/halo3d.hpp"
#include "core/kernels/jacobi1d.hpp"
#include "core/kernels/laplace3d.hpp"
#include "core/kernels/reduce.hpp"
#include "core/kernels/tridiag.hpp"
#include "core/reference/host_context.hpp"

namespace poreflow {

std::unique_ptr<BlasImpl> make_host_blas(const HostContext& hc);
std::unique_ptr<ReduceImpl> make_serial_reduce();
std::unique_ptr<ControlImpl> make_host_control(const HostContext& hc);
std::unique_ptr<Jacobi1DImpl> make_host_jacobi1d(const HostContext& hc);
std::unique_ptr<Bl1dImpl> make_host_bl1d(const HostContext& hc);
std::unique_ptr<TridiagImpl> make_host_tridiag(const HostContext& hc);
std::unique_ptr<Adi2DImpl> make_host_adi2d(const HostContext& hc);
std::unique_ptr<Halo3DImpl> make_host_halo3d(const HostContext& hc);
std::unique_ptr<Laplace3DImpl> make_host_laplace3d(const HostContext& hc);

}  // namespace poreflow
