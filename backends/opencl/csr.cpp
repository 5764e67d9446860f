// csr on the opencl backend (kernels_cl/csr.cl): one program per precision, block and lanes.
#include <string>

#include "backends/opencl/families.hpp"
#include "core/kernels/csr.hpp"

namespace poreflow::ocl {
namespace {

class ClCsr final : public CsrImpl {
 public:
  explicit ClCsr(ClContext& ctx) : ctx_(ctx) {}

  int lanes(const CsrRef& a, int requested) const override { return csr_lanes(a, requested, ctx_.gpu()); }

  void spmv(const CsrSpmvArgs& a) override { product(a, a.a, lanes(a.a, a.lanes)); }
  void residual(const CsrResidualArgs& a) override { product(a, a.a, lanes(a.a, a.lanes)); }

  void chebyshev(const CsrChebyshevArgs& a) override {
    const int l = lanes(a.a, a.lanes);
    ClKernel& k = kernel(a.prec, 1, l, "csr_chebyshev", "#define PF_CSR_CHEB 1\n");
    ctx_.set_args(k, a.prec, a.kernel_args());
    ctx_.launch_points(k, a.a.rows * static_cast<std::size_t>(l));
  }

  void diag_inv(const CsrDiagInvArgs& a) override {
    ClKernel& k = kernel(a.prec, a.a.block, 1, "csr_diag_inv");
    ctx_.set_args(k, a.prec, a.kernel_args());
    ctx_.launch_points(k, a.a.rows);
  }

  void dinv_bound(const CsrDinvBoundArgs& a) override {
    ClKernel& k = kernel(a.prec, a.a.block, 1, "csr_dinv_bound");
    ctx_.set_args(k, a.prec, a.kernel_args());
    ctx_.launch_points(k, a.a.rows);
  }

  void gather(const CsrGatherArgs& a) override {
    ClKernel& k = kernel(a.prec, a.block, 1, "csr_gather");
    ctx_.set_args(k, a.prec, a.kernel_args());
    ctx_.launch_points(k, a.nnz);
  }

 private:
  ClKernel& kernel(Precision prec, int block, int lanes, const char* name, const std::string& more = "") {
    const std::string defines =
        "#define PF_CSR_B " + std::to_string(block) + "\n#define PF_CSR_LANES " + std::to_string(lanes) + "\n" + more;
    return ctx_.kernel("csr", prec, ctx_.fast_block(), name, defines);
  }

  // spmv and residual: the same kernel, lanes work-items a row
  template <class Args>
  void product(const Args& a, const CsrRef& m, int lanes) {
    ClKernel& k = kernel(a.prec, m.block, lanes, "csr_spmv");
    ctx_.set_args(k, a.prec, a.kernel_args());
    ctx_.launch_points(k, m.rows * static_cast<std::size_t>(lanes));
  }

  ClContext& ctx_;
};

}  // namespace

FamilyPtr<CsrImpl> make_family(ClContext& ctx, FamilyTag<CsrImpl>) { return std::make_shared<ClCsr>(ctx); }

}  // namespace poreflow::ocl
