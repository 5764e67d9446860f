#pragma once
// The device-neutral interface. A Backend owns device memory (Buffers) and gives one accessor per
// kernel family; models and solvers are written once as sequences of family calls.
//
// A family F lives in files named after it (docs/architecture.md has the recipe):
// core/kernels/F.hpp declares its argument structs, the contract of each kernel, the interface a
// backend implements (FImpl) and the public calls (FKernels), which check the arguments once, the
// same way on every backend, before they reach the backend's implementation. Backend::F() returns
// those checked calls; F_impl() is what each backend overrides, pure, so a backend that lacks a
// family does not compile.
#include <cstddef>
#include <memory>
#include <string>

#include "core/types.hpp"

namespace poreflow {

// Device memory owned by a backend. Host backends keep it in host memory.
class Buffer {
 public:
  explicit Buffer(std::size_t bytes) : bytes_(bytes) {}
  virtual ~Buffer() = default;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  std::size_t bytes() const { return bytes_; }

 private:
  std::size_t bytes_;
};

// ---- argument checks every family makes ---------------------------------------------------------

// Throws BackendError naming `what` unless [offset, offset + bytes) lies inside b.
void check_range(const Buffer& b, std::size_t bytes, std::size_t offset, const char* what);
// Throws BackendError naming `what` (and `detail`, when given) when b is missing or holds fewer
// than n values of prec. Messages are built only on failure: these run before every launch.
void check_values(const Buffer* b, std::size_t n, Precision prec, const char* what, const char* detail = nullptr);

// ---- the kernel families (core/kernels/<family>.hpp) --------------------------------------------
class BlasKernels;
class BlasImpl;
class ReduceKernels;
class ReduceImpl;
class ControlKernels;
class ControlImpl;
class Jacobi1DKernels;
class Jacobi1DImpl;
class Bl1dKernels;
class Bl1dImpl;
class TridiagKernels;
class TridiagImpl;
class Adi2DKernels;
class Adi2DImpl;
class Halo3DKernels;
class Halo3DImpl;
class Laplace3DKernels;
class Laplace3DImpl;
class Impes3DKernels;
class Impes3DImpl;
class Sor3DKernels;
class Sor3DImpl;
class Fluids3DKernels;
class Fluids3DImpl;

// ---- the backend ----------------------------------------------------------------------------------

class Backend {
 public:
  virtual ~Backend() = default;

  virtual std::string name() const = 0;          // "serial", "omp", "cuda", "opencl"
  virtual std::string device_name() const = 0;   // the device it runs on, for logs and tables
  virtual bool supports(Precision) const { return true; }
  bool is_host() const { return name() == "serial" || name() == "omp"; }  // no device launches

  // memory
  virtual std::unique_ptr<Buffer> alloc(std::size_t bytes) = 0;
  virtual void upload(Buffer& dst, const void* src, std::size_t bytes, std::size_t offset = 0) = 0;
  virtual void download(const Buffer& src, void* dst, std::size_t bytes, std::size_t offset = 0) = 0;
  virtual void copy(const Buffer& src, Buffer& dst, std::size_t bytes) = 0;
  virtual void fill(Buffer& dst, Precision prec, double value, std::size_t n) = 0;
  virtual void sync() = 0;  // waits for all enqueued work

  // What a run may still allocate: the device's free memory and its largest single buffer, in
  // bytes (0: unknown). Models compare their need with it before allocating.
  struct MemoryInfo {
    std::size_t free = 0, max_buffer = 0;
  };
  virtual MemoryInfo memory() const = 0;

  // the kernel families: checked calls into this backend's implementation
  BlasKernels blas();            // core/kernels/blas.hpp: axpy
  ReduceKernels reduce();        // core/kernels/reduce.hpp: sum, min, max, max|a|, max|a - b|
  ControlKernels control();      // core/kernels/control.hpp: the device-side convergence control
  Jacobi1DKernels jacobi1d();    // core/kernels/jacobi1d.hpp: paper 000's fused Jacobi iteration
  Bl1dKernels bl1d();            // core/kernels/bl1d.hpp: Buckley-Leverett point kernels
  TridiagKernels tridiag();      // core/kernels/tridiag.hpp: batched tridiagonal solves
  Adi2DKernels adi2d();          // core/kernels/adi2d.hpp: the 2D three-phase stencils
  Halo3DKernels halo3d();        // core/kernels/halo3d.hpp: halo layers of 3D boxes
  Laplace3DKernels laplace3d();  // core/kernels/laplace3d.hpp: the 7-point Laplacian on a box
  Impes3DKernels impes3d(); // core/kernels/impes3d.hpp: black-oil IMPES cells and wells
  Sor3DKernels sor3d(); // core/kernels/sor3d.hpp: red-black SOR with its residual
  Fluids3DKernels fluids3d();    // core/kernels/fluids3d.hpp: paper 001's stable-fluids kernels

 protected:
  // What each backend implements, one per family. The arguments are checked before these are
  // reached; only the family's public calls use them.
  virtual BlasImpl& blas_impl() = 0;
  virtual ReduceImpl& reduce_impl() = 0;
  virtual ControlImpl& control_impl() = 0;
  virtual Jacobi1DImpl& jacobi1d_impl() = 0;
  virtual Bl1dImpl& bl1d_impl() = 0;
  virtual TridiagImpl& tridiag_impl() = 0;
  virtual Adi2DImpl& adi2d_impl() = 0;
  virtual Halo3DImpl& halo3d_impl() = 0;
  virtual Laplace3DImpl& laplace3d_impl() = 0;
  virtual Impes3DImpl& impes3d_impl() = 0;
  virtual Sor3DImpl& sor3d_impl() = 0;
  virtual Fluids3DImpl& fluids3d_impl() = 0;
};

// Throws BackendError naming `what` when the backend cannot compute in prec (an OpenCL device
// without double precision).
void check_precision(const Backend& be, Precision prec, const char* what);

}  // namespace poreflow
