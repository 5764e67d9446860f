#include "backends/host/host_backend.hpp"

#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "core/base/error.hpp"

namespace poreflow {

HostBuffer::HostBuffer(std::size_t bytes) : Buffer(bytes) {
  // 64-byte alignment for vector loads; at least one byte so that empty fields are valid
  std::size_t rounded = ((std::max<std::size_t>(bytes, 1) + 63) / 64) * 64;
  data_ = std::aligned_alloc(64, rounded);
  if (!data_) throw BackendError("host allocation of " + std::to_string(bytes) + " bytes failed");
}

HostBuffer::~HostBuffer() { std::free(data_); }

HostBackend::HostBackend(bool parallel, int threads, std::unique_ptr<ReduceImpl> reduce) : FamilyBackend(families_) {
  hc_.parallel = parallel;
  hc_.threads = parallel ? (threads > 0 ? threads : omp_get_max_threads()) : 1;
  families_ = make_families(hc_);
  if (reduce) families_.reduce = std::move(reduce);
}

std::string HostBackend::device_name() const {
  unsigned hw = std::thread::hardware_concurrency();
  if (!hc_.parallel) return "CPU, 1 thread";
  return "CPU, " + std::to_string(hc_.threads) + " OpenMP threads (" + std::to_string(hw) + " hardware)";
}

std::unique_ptr<Buffer> HostBackend::alloc(std::size_t bytes) { return std::make_unique<HostBuffer>(bytes); }

void HostBackend::upload(Buffer& dst, const void* src, std::size_t bytes, std::size_t offset) {
  check_range(dst, bytes, offset, "upload");
  if (bytes) std::memcpy(static_cast<char*>(static_cast<HostBuffer&>(dst).data()) + offset, src, bytes);
}

void HostBackend::download(const Buffer& src, void* dst, std::size_t bytes, std::size_t offset) {
  check_range(src, bytes, offset, "download");
  if (bytes) std::memcpy(dst, static_cast<const char*>(static_cast<const HostBuffer&>(src).data()) + offset, bytes);
}

void HostBackend::copy(const Buffer& src, Buffer& dst, std::size_t bytes, std::size_t src_offset, std::size_t dst_offset) {
  check_range(src, bytes, src_offset, "copy");
  check_range(dst, bytes, dst_offset, "copy");
  const char* s = host_ptr<char>(src) + src_offset;
  char* d = host_ptr<char>(dst) + dst_offset;
  // split into page-sized chunks per thread so that omp copies with every core
  const std::size_t chunk = 1 << 20;
  const long nchunks = static_cast<long>((bytes + chunk - 1) / chunk);
#pragma omp parallel for schedule(static) num_threads(hc_.threads) if (hc_.parallel)
  for (long c = 0; c < nchunks; ++c) {
    std::size_t off = static_cast<std::size_t>(c) * chunk;
    std::memcpy(d + off, s + off, std::min(chunk, bytes - off));
  }
}

template <class T>
static void fill_t(Buffer& dst, double value, std::size_t n, const HostContext& hc) {
  T* d = host_ptr<T>(dst);
  const T v = static_cast<T>(value);
#pragma omp parallel for schedule(static) num_threads(hc.threads) if (hc.parallel)
  for (std::size_t i = 0; i < n; ++i) d[i] = v;
}

void HostBackend::fill(Buffer& dst, Precision prec, double value, std::size_t n) {
  check_range(dst, n * size_of(prec), 0, "fill");
  if (prec == Precision::Float) fill_t<float>(dst, value, n, hc_);
  else fill_t<double>(dst, value, n, hc_);
}

Backend::MemoryInfo HostBackend::memory() const {
  // MemAvailable of /proc/meminfo (kB): what can be allocated without swapping
  MemoryInfo m;
  if (FILE* f = std::fopen("/proc/meminfo", "r")) {
    char line[256];
    while (std::fgets(line, sizeof line, f)) {
      unsigned long long kb = 0;
      if (std::sscanf(line, "MemAvailable: %llu kB", &kb) == 1) m.free = static_cast<std::size_t>(kb) * 1024;
    }
    std::fclose(f);
  }
  m.max_buffer = m.free;
  return m;
}

std::unique_ptr<Backend> make_serial_backend() { return std::make_unique<HostBackend>(false, 1); }

}  // namespace poreflow
