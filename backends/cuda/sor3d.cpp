// sor3d on the cuda backend (kernels_cu/sor3d.cu): the two colour sweeps of each iteration back
// to back on the stream, no host round trip inside a batch.
#include "backends/cuda/cusparse.hpp"
#include "backends/cuda/device_args.hpp"
#include "backends/cuda/families.hpp"
#include "core/kernels/sor3d.hpp"
#include "core/base/error.hpp"
#include "kernels_cu/sor3d.cuh"

namespace poreflow::cuda_detail {
namespace {

class CudaSor3D final : public Sor3DImpl {
 public:
  explicit CudaSor3D(CudaContext& ctx) : ctx_(ctx) {}
  ~CudaSor3D() override { release_csr(); }

  void iterate(const Sor3DArgs& a, long first, long count) override {
    ctx_.activate();
    cu::SorLaunch l;
    l.design = a.design;
    l.shape = a.shape;
    l.sm_count = ctx_.sm_count();
    l.smem_optin = ctx_.smem_optin();
    l.zline_lanes = a.zline_lanes;
    if (a.design == SorDesign::Zline && first == 0) {
      with_type(a.prec, [&](auto t) {
        using T = decltype(t);
        cu_launch<T>(&cu::launch_sor3d_factor<T>, a.factor_args(), ctx_.stream());
      });
      PF_CHECK_LAUNCH("sor3d zline factor");
    }
    for (long it = first; it < first + count; ++it) {
      const FusedPlan plan = fused_plan(it, a.check_every);
      l.it = it;
      l.check = plan.check;
      l.check_slot = plan.check_slot;
      l.clear_slot = plan.clear_slot;
      for (int c = 0; c < 2; ++c) {
        l.colour = c;
        l.decide_slot = c == 0 ? plan.decide_slot : -1;
        with_type(a.prec, [&](auto t) {
          using T = decltype(t);
          cu_launch<T>(&cu::launch_sor3d_sweep<T>, a.zline_args(), l, ctx_.stream());
        });
        PF_CHECK_LAUNCH(c == 0 ? "sor3d red sweep" : "sor3d black sweep");
        if (a.split) a.split->after_sweep(a, c, plan);
      }
    }
  }

  std::string vendor_name() const override { return "cusparse_spmv_csr"; }

  double vendor_bytes(const Sor3DArgs& a) const override {
    const double n = double(a.box.cells()), v = double(size_of(a.prec));
    return 7 * n * (v + 4) + (n + 1) * 4 + 2 * n * v;  // values, columns, row pointers, x, y
  }

  // cuSPARSE's CSR product; the matrix is built on the device from the coefficients when they or
  // the box change (the bench times the product alone)
  void vendor_spmv(const Sor3DArgs& a, const Buffer& x, Buffer& y) override {
    ctx_.activate();
    const long n = a.box.cells();
    if (7 * n > 2147483647L) throw BackendError("sor3d vendor_spmv: more than 2^31 nonzeros for 32-bit CSR indices");
    const bool dbl = a.prec == Precision::Double;
    const cudaDataType type = dbl ? CUDA_R_64F : CUDA_R_32F;
    if (csr_coef_ != dptr(*a.coef) || csr_n_ != n || csr_double_ != dbl) {
      release_csr();
      const std::size_t v = size_of(a.prec);
      row_ptr_ = DeviceMem((n + 1) * sizeof(int));
      col_ = DeviceMem(7 * n * sizeof(int));
      val_ = DeviceMem(7 * n * v);
      with_type(a.prec, [&](auto t) {
        using T = decltype(t);
        cu::launch_sor3d_csr<T>(dptr<T>(*a.coef), a.box.view(), static_cast<int*>(row_ptr_.get()), static_cast<int*>(col_.get()),
                                static_cast<T*>(val_.get()), ctx_.stream());
      });
      PF_CHECK_LAUNCH("sor3d csr");
      PF_CHECK_CUSPARSE(cusparseCreateCsr(&mat_, n, n, 7 * n, row_ptr_.get(), col_.get(), val_.get(), CUSPARSE_INDEX_32I,
                                          CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, type));
      csr_coef_ = dptr(*a.coef);
      csr_n_ = n;
      csr_double_ = dbl;
    }
    cusparseHandle_t h = handle_.get(ctx_.stream());
    cusparseDnVecDescr_t vx = nullptr, vy = nullptr;
    PF_CHECK_CUSPARSE(cusparseCreateDnVec(&vx, n, const_cast<void*>(dptr(x)), type));
    PF_CHECK_CUSPARSE(cusparseCreateDnVec(&vy, n, dptr(y), type));
    const double one_d = 1, zero_d = 0;
    const float one_f = 1, zero_f = 0;
    const void* one = dbl ? static_cast<const void*>(&one_d) : static_cast<const void*>(&one_f);
    const void* zero = dbl ? static_cast<const void*>(&zero_d) : static_cast<const void*>(&zero_f);
    std::size_t bytes = 0;
    PF_CHECK_CUSPARSE(cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, one, mat_, vx, zero, vy, type,
                                              CUSPARSE_SPMV_CSR_ALG1, &bytes));
    ctx_.ensure(work_, std::max<std::size_t>(bytes, 1));
    PF_CHECK_CUSPARSE(cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, one, mat_, vx, zero, vy, type, CUSPARSE_SPMV_CSR_ALG1,
                                   work_.get()));
    PF_CHECK_CUSPARSE(cusparseDestroyDnVec(vx));
    PF_CHECK_CUSPARSE(cusparseDestroyDnVec(vy));
  }

 private:
  void release_csr() {
    if (mat_) (void)cusparseDestroySpMat(mat_);
    mat_ = nullptr;
    csr_coef_ = nullptr;
  }

  CudaContext& ctx_;
  SparseHandle handle_;
  DeviceMem row_ptr_, col_, val_, work_;
  cusparseSpMatDescr_t mat_ = nullptr;
  const void* csr_coef_ = nullptr;
  long csr_n_ = 0;
  bool csr_double_ = false;
};

}  // namespace

FamilyPtr<Sor3DImpl> make_family(CudaContext& ctx, FamilyTag<Sor3DImpl>) { return std::make_shared<CudaSor3D>(ctx); }

}  // namespace poreflow::cuda_detail
