// The tridiag family on the cuda backend: the plan and kernels of kernels_cu/tridiag.cu, and
// cuSPARSE's batched solvers on the same data for comparison.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <limits>
#include <string>

#include "backends/cuda/cusparse.hpp"
#include "backends/cuda/device_args.hpp"
#include "backends/cuda/families.hpp"
#include "core/kernels/tridiag.hpp"
#include "core/kernels/tridiag_plan.hpp"
#include "kernels_cu/tridiag.cuh"

namespace poreflow::cuda_detail {
namespace {

// ---- cuSPARSE (backends/cuda/cusparse.hpp) ------------------------------------------------------

// float and double entry points under one name
cusparseStatus_t gtsv2_strided_bytes(cusparseHandle_t h, int m, const float* dl, const float* d, const float* du,
                                     const float* x, int count, int stride, std::size_t* bytes) {
  return cusparseSgtsv2StridedBatch_bufferSizeExt(h, m, dl, d, du, x, count, stride, bytes);
}
cusparseStatus_t gtsv2_strided_bytes(cusparseHandle_t h, int m, const double* dl, const double* d, const double* du,
                                     const double* x, int count, int stride, std::size_t* bytes) {
  return cusparseDgtsv2StridedBatch_bufferSizeExt(h, m, dl, d, du, x, count, stride, bytes);
}
cusparseStatus_t gtsv2_strided(cusparseHandle_t h, int m, const float* dl, const float* d, const float* du, float* x,
                               int count, int stride, void* ws) {
  return cusparseSgtsv2StridedBatch(h, m, dl, d, du, x, count, stride, ws);
}
cusparseStatus_t gtsv2_strided(cusparseHandle_t h, int m, const double* dl, const double* d, const double* du, double* x,
                               int count, int stride, void* ws) {
  return cusparseDgtsv2StridedBatch(h, m, dl, d, du, x, count, stride, ws);
}
cusparseStatus_t gtsv_interleaved_bytes(cusparseHandle_t h, int algo, int m, const float* dl, const float* d,
                                        const float* du, const float* x, int count, std::size_t* bytes) {
  return cusparseSgtsvInterleavedBatch_bufferSizeExt(h, algo, m, dl, d, du, x, count, bytes);
}
cusparseStatus_t gtsv_interleaved_bytes(cusparseHandle_t h, int algo, int m, const double* dl, const double* d,
                                        const double* du, const double* x, int count, std::size_t* bytes) {
  return cusparseDgtsvInterleavedBatch_bufferSizeExt(h, algo, m, dl, d, du, x, count, bytes);
}
cusparseStatus_t gtsv_interleaved(cusparseHandle_t h, int algo, int m, float* dl, float* d, float* du, float* x,
                                  int count, void* ws) {
  return cusparseSgtsvInterleavedBatch(h, algo, m, dl, d, du, x, count, ws);
}
cusparseStatus_t gtsv_interleaved(cusparseHandle_t h, int algo, int m, double* dl, double* d, double* du, double* x,
                                  int count, void* ws) {
  return cusparseDgtsvInterleavedBatch(h, algo, m, dl, d, du, x, count, ws);
}

// gtsvInterleavedBatch's algorithm: 1 (LU with partial pivoting), measured the fastest of its
// three on diagonally dominant systems from 513 rows up (25-35% ahead of 0, cuThomas, 2-15% ahead
// of 2, QR); on 33 and 129 rows 1 and 2 are within 2% and 0 is ahead only at 33 x 65536 double
// (docs/tridiag.md). It overwrites its diagonals, which are copies here anyway.
constexpr int kInterleavedAlgo = 1;

class CudaTridiag final : public TridiagImpl {
 public:
  explicit CudaTridiag(CudaContext& ctx) : ctx_(ctx) {}

  // Enqueued only: scratch grows (with a wait) on the first call of a larger size, never after.
  void solve(const TridiagArgs& args) override {
    ctx_.activate();
    cu::TridiagLaunch l;
    l.shape.algo = args.algo;
    l.shape.layout = args.layout;
    l.shape.n = args.n;
    l.shape.batch = args.batch;
    l.shape.value_bytes = size_of(args.prec);
    l.shape.max_smem = ctx_.smem_optin();
    l.shape.sm_count = ctx_.sm_count();
    l.plan = tri::plan_of(l.shape);
    if (const std::size_t bytes = l.plan.scratch * l.shape.value_bytes; bytes > 0) {
      ctx_.ensure(scratch_, bytes);
      l.scratch = scratch_.get();
    }
    with_type(args.prec, [&](auto t) {
      using T = decltype(t);
      cu_launch<T>(&cu::launch_tridiag<T>, args.kernel_args(), l, ctx_.stream());
    });
    PF_CHECK_LAUNCH("tridiag solve");
  }

  TridiagAlgo resolve_auto(const TridiagArgs& args) const override {
    return tri::auto_algo(args.layout, args.n, args.batch);
  }

  std::string vendor_name(TridiagLayout layout) const override {
    return layout == TridiagLayout::Contiguous ? "cusparse_gtsv2StridedBatch" : "cusparse_gtsvInterleavedBatch";
  }

  // cuSPARSE on the same data: it overwrites the right-hand side with the solution and wants the
  // ignored couplings zero, so x = d and zero-ended copies of a and c are made first (and of b for
  // gtsvInterleavedBatch, which takes its diagonals as writable arrays).
  void vendor_solve(const TridiagArgs& args) override {
    if (args.n < 3)
      throw BackendError("cuSPARSE's batched tridiagonal solvers need n >= 3 (n = " + std::to_string(args.n) + ")");
    const std::size_t imax = static_cast<std::size_t>(std::numeric_limits<int>::max());
    if (args.n > imax || args.batch > imax || (args.layout == TridiagLayout::Contiguous && args.n * args.batch > imax))
      throw BackendError("vendor tridiag solve: n = " + std::to_string(args.n) + ", batch = " + std::to_string(args.batch) +
                         " exceed cuSPARSE's int sizes");
    ctx_.activate();
    if (args.prec == Precision::Float) vendor_t<float>(args);
    else vendor_t<double>(args);
  }

 private:
  template <class T>
  void vendor_t(const TridiagArgs& args) {
    const bool inter = args.layout == TridiagLayout::Interleaved;
    const std::size_t nb = args.n * args.batch;
    ctx_.ensure(vendor_coef_, (inter ? 3 : 2) * nb * sizeof(T));
    T* a0 = static_cast<T*>(vendor_coef_.get());
    T* c0 = a0 + nb;
    T* b0 = inter ? c0 + nb : nullptr;
    T* x = dptr<T>(*args.x);
    cu::launch_tridiag_vendor_prep<T>(dptr<T>(*args.a), dptr<T>(*args.b), dptr<T>(*args.c), dptr<T>(*args.d), a0, b0, c0,
                                      x, args.n, args.batch, args.layout, ctx_.stream());
    PF_CHECK_LAUNCH("tridiag vendor prep");
    cusparseHandle_t h = sparse_.get(ctx_.stream());
    const int m = static_cast<int>(args.n), count = static_cast<int>(args.batch);
    const T* b = dptr<T>(*args.b);
    // the workspace size is asked once per shape
    const VendorKey key{args.prec, args.layout, args.n, args.batch};
    if (!(key == vendor_key_)) {
      std::size_t bytes = 0;
      if (inter) PF_CHECK_CUSPARSE(gtsv_interleaved_bytes(h, kInterleavedAlgo, m, a0, b0, c0, x, count, &bytes));
      else PF_CHECK_CUSPARSE(gtsv2_strided_bytes(h, m, a0, b, c0, x, count, m, &bytes));
      ctx_.ensure(vendor_ws_, std::max<std::size_t>(bytes, 1));
      vendor_key_ = key;
    }
    if (inter) PF_CHECK_CUSPARSE(gtsv_interleaved(h, kInterleavedAlgo, m, a0, b0, c0, x, count, vendor_ws_.get()));
    else PF_CHECK_CUSPARSE(gtsv2_strided(h, m, a0, b, c0, x, count, m, vendor_ws_.get()));
    PF_CHECK_LAUNCH(inter ? "cusparse gtsvInterleavedBatch" : "cusparse gtsv2StridedBatch");
  }

  struct VendorKey {
    Precision prec = Precision::Double;
    TridiagLayout layout = TridiagLayout::Contiguous;
    std::size_t n = 0, batch = 0;
    bool operator==(const VendorKey&) const = default;
  };

  CudaContext& ctx_;
  DeviceMem scratch_;  // Thomas' c', the global PCR levels
  DeviceMem vendor_coef_, vendor_ws_;
  VendorKey vendor_key_;  // the shape vendor_ws_ was sized for
  SparseHandle sparse_;
};

}  // namespace

FamilyPtr<TridiagImpl> make_family(CudaContext& ctx, FamilyTag<TridiagImpl>) { return std::make_shared<CudaTridiag>(ctx); }

}  // namespace poreflow::cuda_detail
