#pragma once
// Backends whose "device" is the host: serial (the reference, one thread) and omp.
// The kernels are written once with `#pragma omp ... if(parallel_)`, so the serial backend is the
// same loop run by one thread: the papers' sequential program and the baseline of every speedup.
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "core/backend.hpp"

namespace poreflow {

class HostBuffer final : public Buffer {
 public:
  explicit HostBuffer(std::size_t bytes);
  ~HostBuffer() override;
  void* data() { return data_; }
  const void* data() const { return data_; }

 private:
  void* data_ = nullptr;
};

class HostBackend : public Backend {
 public:
  explicit HostBackend(bool parallel, int threads = 0);

  std::string name() const override { return parallel_ ? "omp" : "serial"; }
  std::string device_name() const override;
  std::vector<ReduceVariant> reduce_variants() const override;
  int threads() const { return threads_; }

  std::unique_ptr<Buffer> alloc(std::size_t bytes) override;
  void upload(Buffer& dst, const void* src, std::size_t bytes, std::size_t offset) override;
  void download(const Buffer& src, void* dst, std::size_t bytes, std::size_t offset) override;
  void copy(const Buffer& src, Buffer& dst, std::size_t bytes) override;
  void fill(Buffer& dst, Precision prec, double value, std::size_t n) override;
  void axpy(Precision prec, std::size_t n, double alpha, const Buffer& x, Buffer& y) override;
  void sync() override {}

  void reduce_enqueue(const ReduceArgs& args) override;
  double reduce_fetch() override { return last_reduce_; }

  void jacobi1d_iterate(const Jacobi1DArgs& args, long first, long count) override;
  void tridiag_solve(const TridiagArgs& args) override;
  TridiagAlgo resolve_tridiag_algo(const TridiagArgs& args) const override { return TridiagAlgo::Thomas; }

  void adi2d_flash(const Adi2DFlashArgs& args) override;
  void adi2d_coefficients(const Adi2DCoeffArgs& args) override;
  void adi2d_sweep(const Adi2DSweepArgs& args) override;
  void adi2d_total_velocity(const Adi2DVelocityArgs& args) override;
  void adi2d_transport(const Adi2DTransportArgs& args) override;
  void adi2d_rate(const Adi2DRateArgs& args) override;

  void bl1d_face_mobility(const BLFaceMobilityArgs& args) override;
  void bl1d_face_velocity(const BLFaceVelocityArgs& args) override;
  void bl1d_saturation(const BLSaturationArgs& args) override;
  void bl1d_pressure_system(const BLPressureSystemArgs& args) override;

 private:
  template <class T>
  double reduce_t(const ReduceArgs& args) const;
  template <class T>
  void jacobi_t(const Jacobi1DArgs& args, long first, long count) const;
  template <class T>
  void tridiag_t(const TridiagArgs& args) const;

  bool parallel_;
  int threads_;
  double last_reduce_ = 0;
};

// typed views of host buffers
template <class T>
T* host_ptr(Buffer& b) {
  return static_cast<T*>(static_cast<HostBuffer&>(b).data());
}
template <class T>
const T* host_ptr(const Buffer& b) {
  return static_cast<const T*>(static_cast<const HostBuffer&>(b).data());
}

std::unique_ptr<Backend> make_serial_backend();

}  // namespace poreflow
