#pragma once
// Backends whose "device" is the host: serial (the reference, one thread) and omp. Memory is
// host memory; the kernel families are core/reference/<family>.cpp (families.hpp).
#include <cstddef>
#include <memory>
#include <string>

#include "core/backend.hpp"
#include "core/reference/families.hpp"

namespace poreflow {

class HostBackend : public Backend {
 public:
  // parallel: the omp backend with `threads` threads (0: OpenMP's default); else serial.
  // reduce: the reduce family (serial's when null).
  HostBackend(bool parallel, int threads, std::unique_ptr<ReduceImpl> reduce = nullptr);

  std::string name() const override { return hc_.parallel ? "omp" : "serial"; }
  std::string device_name() const override;
  int threads() const { return hc_.threads; }

  std::unique_ptr<Buffer> alloc(std::size_t bytes) override;
  void upload(Buffer& dst, const void* src, std::size_t bytes, std::size_t offset) override;
  void download(const Buffer& src, void* dst, std::size_t bytes, std::size_t offset) override;
  void copy(const Buffer& src, Buffer& dst, std::size_t bytes) override;
  void fill(Buffer& dst, Precision prec, double value, std::size_t n) override;
  void sync() override {}

 protected:
  BlasImpl& blas_impl() override { return *blas_; }
  ReduceImpl& reduce_impl() override { return *reduce_; }
  ControlImpl& control_impl() override { return *control_; }
  Jacobi1DImpl& jacobi1d_impl() override { return *jacobi1d_; }
  Bl1dImpl& bl1d_impl() override { return *bl1d_; }
  TridiagImpl& tridiag_impl() override { return *tridiag_; }
  Adi2DImpl& adi2d_impl() override { return *adi2d_; }
  Halo3DImpl& halo3d_impl() override { return *halo3d_; }
  Laplace3DImpl& laplace3d_impl() override { return *laplace3d_; }

 private:
  HostContext hc_;
  std::unique_ptr<BlasImpl> blas_;
  std::unique_ptr<ReduceImpl> reduce_;
  std::unique_ptr<ControlImpl> control_;
  std::unique_ptr<Jacobi1DImpl> jacobi1d_;
  std::unique_ptr<Bl1dImpl> bl1d_;
  std::unique_ptr<TridiagImpl> tridiag_;
  std::unique_ptr<Adi2DImpl> adi2d_;
  std::unique_ptr<Halo3DImpl> halo3d_;
  std::unique_ptr<Laplace3DImpl> laplace3d_;
};

std::unique_ptr<Backend> make_serial_backend();

}  // namespace poreflow
