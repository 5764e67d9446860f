#pragma once
// What the host backends' families share: host buffers, the thread count, and the parallel loops.
// serial and omp run the same loops (written with `#pragma omp ... if (parallel)`): serial is that
// code on one thread, the papers' sequential program and the baseline of every speedup.
#include <cstddef>

#include "core/kernels/backend.hpp"
#include "core/kernels/box3.hpp"

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

// typed views of host buffers
template <class T>
T* host_ptr(Buffer& b) {
  return static_cast<T*>(static_cast<HostBuffer&>(b).data());
}
template <class T>
const T* host_ptr(const Buffer& b) {
  return static_cast<const T*>(static_cast<const HostBuffer&>(b).data());
}
template <class T>
T* host_ptr(Buffer* b) {
  return b ? host_ptr<T>(*b) : nullptr;
}
template <class T>
const T* host_ptr(const Buffer* b) {
  return b ? host_ptr<T>(*b) : nullptr;
}

// Loops shorter than this run on one thread even on omp: the fork/join would cost more.
constexpr std::size_t kMinParallelPoints = 8192;

struct HostContext {
  bool parallel = false;  // omp: loops of kMinParallelPoints and more run on `threads` threads
  int threads = 1;
  bool par(std::size_t points) const { return parallel && points >= kMinParallelPoints; }
};

// f(i, j, k) over every interior cell of a box, planes of (k, j) rows shared among the threads
// (the host backends' one way to run a function over a box, after AMReX's ParallelFor); i runs
// innermost so the loop body can vectorise.
template <class F>
void for_box(const HostContext& hc, const Box3& b, F&& f) {
  const long nx = b.nx, ny = b.ny, nz = b.nz;
#pragma omp parallel for collapse(2) schedule(static) num_threads(hc.threads) if (hc.par(std::size_t(b.cells())))
  for (long k = 0; k < nz; ++k)
    for (long j = 0; j < ny; ++j)
      for (long i = 0; i < nx; ++i) f(i, j, k);
}

}  // namespace poreflow
