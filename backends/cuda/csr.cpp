// csr on the cuda backend (kernels_cu/csr.cu), and cuSPARSE's product of the same buffers for the
// bench's comparison (CSR for blocks of 1, BSR for 2 x 2, through the generic cusparseSpMV).
#include <algorithm>

#include "backends/cuda/cusparse.hpp"
#include "backends/cuda/device_args.hpp"
#include "backends/cuda/families.hpp"
#include "core/base/error.hpp"
#include "core/kernels/csr.hpp"
#include "kernels_cu/csr.cuh"

namespace poreflow::cuda_detail {
namespace {

class CudaCsr final : public CsrImpl {
 public:
  explicit CudaCsr(CudaContext& ctx) : ctx_(ctx) {}
  ~CudaCsr() override { release(); }

  int lanes(const CsrRef& a, int requested) const override { return csr_lanes(a, requested, true); }

  void spmv(const CsrSpmvArgs& a) override {
    ctx_.activate();
    const cu::CsrLaunch l{a.a.block, lanes(a.a, a.lanes)};
    with_type(a.prec, [&](auto t) {
      using T = decltype(t);
      cu_launch<T>(&cu::launch_csr_spmv<T>, a.kernel_args(), l, ctx_.stream());
    });
    PF_CHECK_LAUNCH("csr spmv");
  }

  void residual(const CsrResidualArgs& a) override {
    ctx_.activate();
    const cu::CsrLaunch l{a.a.block, lanes(a.a, a.lanes)};
    with_type(a.prec, [&](auto t) {
      using T = decltype(t);
      cu_launch<T>(&cu::launch_csr_spmv<T>, a.kernel_args(), l, ctx_.stream());
    });
    PF_CHECK_LAUNCH("csr residual");
  }

  void chebyshev(const CsrChebyshevArgs& a) override {
    ctx_.activate();
    const int l = lanes(a.a, a.lanes);
    with_type(a.prec, [&](auto t) {
      using T = decltype(t);
      cu_launch<T>(&cu::launch_csr_chebyshev<T>, a.kernel_args(), l, ctx_.stream());
    });
    PF_CHECK_LAUNCH("csr chebyshev");
  }

  void diag_inv(const CsrDiagInvArgs& a) override {
    ctx_.activate();
    with_type(a.prec, [&](auto t) {
      using T = decltype(t);
      cu_launch<T>(&cu::launch_csr_diag_inv<T>, a.kernel_args(), a.a.block, ctx_.stream());
    });
    PF_CHECK_LAUNCH("csr diag_inv");
  }

  void dinv_bound(const CsrDinvBoundArgs& a) override {
    ctx_.activate();
    with_type(a.prec, [&](auto t) {
      using T = decltype(t);
      cu_launch<T>(&cu::launch_csr_dinv_bound<T>, a.kernel_args(), a.a.block, ctx_.stream());
    });
    PF_CHECK_LAUNCH("csr dinv_bound");
  }

  void gather(const CsrGatherArgs& a) override {
    ctx_.activate();
    with_type(a.prec, [&](auto t) {
      using T = decltype(t);
      cu_launch<T>(&cu::launch_csr_gather<T>, a.kernel_args(), a.block, ctx_.stream());
    });
    PF_CHECK_LAUNCH("csr gather");
  }

  std::string vendor_name(int block) const override { return block == 1 ? "cusparse_spmv_csr" : "cusparse_spmv_bsr"; }

  // The descriptor is made when the matrix's buffers or shape change (the bench times the product
  // alone); the dense vectors' descriptors are cheap host structs, made per call.
  void vendor_spmv(const CsrSpmvArgs& a) override {
    ctx_.activate();
    const bool dbl = a.prec == Precision::Double;
    const cudaDataType type = dbl ? CUDA_R_64F : CUDA_R_32F;
    const Key key{dptr(*a.a.val), dptr(*a.a.ptr), dptr(*a.a.col), a.a.rows, a.a.cols, a.a.nnz, a.a.block, dbl};
    if (!(key == key_) || !mat_) {
      release();
      void* ptr = const_cast<void*>(dptr(*a.a.ptr));
      void* col = const_cast<void*>(dptr(*a.a.col));
      void* val = const_cast<void*>(dptr(*a.a.val));
      const auto rows = static_cast<int64_t>(a.a.rows), cols = static_cast<int64_t>(a.a.cols);
      const auto nnz = static_cast<int64_t>(a.a.nnz);
      if (a.a.block == 1)
        PF_CHECK_CUSPARSE(cusparseCreateCsr(&mat_, rows, cols, nnz, ptr, col, val, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                            CUSPARSE_INDEX_BASE_ZERO, type));
      else  // our blocks are row-major
        PF_CHECK_CUSPARSE(cusparseCreateBsr(&mat_, rows, cols, nnz, a.a.block, a.a.block, ptr, col, val, CUSPARSE_INDEX_32I,
                                            CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, type, CUSPARSE_ORDER_ROW));
      key_ = key;
    }
    const cusparseSpMVAlg_t alg = a.a.block == 1 ? CUSPARSE_SPMV_CSR_ALG1 : CUSPARSE_SPMV_BSR_ALG1;
    cusparseHandle_t h = handle_.get(ctx_.stream());
    cusparseDnVecDescr_t vx = nullptr, vy = nullptr;
    PF_CHECK_CUSPARSE(cusparseCreateDnVec(&vx, static_cast<int64_t>(a.a.vector_cols()), const_cast<void*>(dptr(*a.x)), type));
    PF_CHECK_CUSPARSE(cusparseCreateDnVec(&vy, static_cast<int64_t>(a.a.vector_rows()), dptr(*a.y), type));
    const double alpha_d = a.alpha, beta_d = a.beta;
    const float alpha_f = static_cast<float>(a.alpha), beta_f = static_cast<float>(a.beta);
    const void* alpha = dbl ? static_cast<const void*>(&alpha_d) : static_cast<const void*>(&alpha_f);
    const void* beta = dbl ? static_cast<const void*>(&beta_d) : static_cast<const void*>(&beta_f);
    std::size_t bytes = 0;
    PF_CHECK_CUSPARSE(cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, alpha, mat_, vx, beta, vy, type, alg, &bytes));
    ctx_.ensure(work_, std::max<std::size_t>(bytes, 1));
    PF_CHECK_CUSPARSE(cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, alpha, mat_, vx, beta, vy, type, alg, work_.get()));
    PF_CHECK_CUSPARSE(cusparseDestroyDnVec(vx));
    PF_CHECK_CUSPARSE(cusparseDestroyDnVec(vy));
  }

 private:
  struct Key {
    const void *val = nullptr, *ptr = nullptr, *col = nullptr;
    std::size_t rows = 0, cols = 0, nnz = 0;
    int block = 0;
    bool dbl = false;
    bool operator==(const Key& o) const {
      return val == o.val && ptr == o.ptr && col == o.col && rows == o.rows && cols == o.cols && nnz == o.nnz &&
             block == o.block && dbl == o.dbl;
    }
  };

  void release() {
    if (mat_) (void)cusparseDestroySpMat(mat_);
    mat_ = nullptr;
    key_ = Key{};
  }

  CudaContext& ctx_;
  SparseHandle handle_;
  DeviceMem work_;
  cusparseSpMatDescr_t mat_ = nullptr;
  Key key_;
};

}  // namespace

FamilyPtr<CsrImpl> make_family(CudaContext& ctx, FamilyTag<CsrImpl>) { return std::make_shared<CudaCsr>(ctx); }

}  // namespace poreflow::cuda_detail
