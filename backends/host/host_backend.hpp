#pragma once
// Backends whose "device" is the host: serial (the reference, one thread) and omp. Memory is
// host memory; the kernel families are backends/host/<family>.cpp (families.hpp).
#include <cstddef>
#include <memory>
#include <string>

#include "core/kernels/backend.hpp"
#include "backends/host/families.hpp"
#include "core/kernels/reduce.hpp"

namespace poreflow {

class HostBackend : public FamilyBackend {
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
  void copy(const Buffer& src, Buffer& dst, std::size_t bytes, std::size_t src_offset = 0,
            std::size_t dst_offset = 0) override;
  void fill(Buffer& dst, Precision prec, double value, std::size_t n) override;
  void sync() override {}
  MemoryInfo memory() const override;

 private:
  HostContext hc_;
  FamilySet families_;
};

std::unique_ptr<Backend> make_serial_backend();

}  // namespace poreflow
