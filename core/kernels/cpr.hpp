#pragma once
// The cpr family: the kernels of CPR's pressure stage for 2 x 2 block systems (core/linalg/cpr.hpp)
// on a 7-point block stencil or a block-CSR matrix. The arithmetic is core/physics/cpr.h.
#include <cstddef>

#include "core/kernels/backend.hpp"
#include "core/kernels/kernel_args.hpp"

namespace poreflow {

// weights: w (2 per cell, cells of them) from each cell's diagonal block in `diag` (2 x 2 blocks):
// cell i's block at position diag_pos[i] (CSR; -1: none), or at position i when diag_pos is null
// (a stencil's diagonal plane).
struct CprWeightsArgs {
  Precision prec = Precision::Double;
  std::size_t cells = 0;
  const Buffer* diag_pos = nullptr;  // int32 per cell, or null
  const Buffer* diag = nullptr;
  Buffer* w = nullptr;
  std::size_t diag_blocks = 0;  // for the checks

  auto kernel_args() const {
    using namespace karg;
    return std::tuple(static_cast<long>(cells), Opt<int>{diag_pos}, In<Real>{diag}, Out<Real>{w});
  }
};

// pressure: ap[k] = w(row) . A_k(:, 0) for the entries k < entries of the block values a; the row of
// entry k is rows[k] (CSR), or k % extent when rows is null (a stencil's planes).
struct CprPressureArgs {
  Precision prec = Precision::Double;
  std::size_t entries = 0, extent = 0;
  const Buffer* rows = nullptr;  // int32 per entry, or null
  const Buffer *w = nullptr, *a = nullptr;
  Buffer* ap = nullptr;
  std::size_t cells = 0;  // w's cells, for the checks

  auto kernel_args() const {
    using namespace karg;
    return std::tuple(static_cast<long>(entries), static_cast<long>(extent), Opt<int>{rows}, In<Real>{w}, In<Real>{a},
                      Out<Real>{ap});
  }
};

// restrict: rp[i] = w(i) . r(i); prolong: z(i) = (xp[i], 0), for the cells i < cells. Nothing
// once the guard says stop.
struct CprRestrictArgs {
  Precision prec = Precision::Double;
  std::size_t cells = 0;
  const Buffer *w = nullptr, *r = nullptr;
  Buffer* rp = nullptr;
  const Buffer* guard = nullptr;

  auto kernel_args() const {
    using namespace karg;
    return std::tuple(static_cast<long>(cells), In<Real>{w}, In<Real>{r}, Out<Real>{rp}, Opt<pf_u64>{guard});
  }
};

struct CprProlongArgs {
  Precision prec = Precision::Double;
  std::size_t cells = 0;
  const Buffer* xp = nullptr;
  Buffer* z = nullptr;
  const Buffer* guard = nullptr;

  auto kernel_args() const {
    using namespace karg;
    return std::tuple(static_cast<long>(cells), In<Real>{xp}, Out<Real>{z}, Opt<pf_u64>{guard});
  }
};

class CprImpl {
 public:
  virtual ~CprImpl() = default;
  virtual void weights(const CprWeightsArgs& a) = 0;
  virtual void pressure(const CprPressureArgs& a) = 0;
  virtual void restrict_residual(const CprRestrictArgs& a) = 0;
  virtual void prolong(const CprProlongArgs& a) = 0;
};

class CprKernels {
 public:
  CprKernels(Backend& be, CprImpl& impl) : be_(be), impl_(impl) {}
  void weights(const CprWeightsArgs& a);
  void pressure(const CprPressureArgs& a);
  void restrict_residual(const CprRestrictArgs& a);
  void prolong(const CprProlongArgs& a);

 private:
  Backend& be_;
  CprImpl& impl_;
};

}  // namespace poreflow
