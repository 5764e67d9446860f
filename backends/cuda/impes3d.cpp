// impes3d on the cuda backend (kernels_cu/impes3d.cu).
#include "backends/cuda/device_args.hpp"
#include "backends/cuda/families.hpp"
#include "core/kernels/impes3d.hpp"
#include "kernels_cu/impes3d.cuh"

namespace poreflow::cuda_detail {
namespace {

// where the launch finds the tables: constant memory when they fit and are not asked for in global
cu::ImpTables tables_of(const Impes3DTables& t) {
  return {t.values, t.space != TableSpace::Global && t.values <= kImpesConstantValues};
}

class CudaImpes3D final : public Impes3DImpl {
 public:
  explicit CudaImpes3D(CudaContext& ctx) : ctx_(ctx) {}

  void props(const Impes3DPropsArgs& a) override {
    ctx_.activate();
    with_type(a.prec, [&](auto t) {
      using T = decltype(t);
      cu_launch<T>(&cu::launch_imp_props<T>, a.kernel_args(), tables_of(a.tables), a.shape, ctx_.stream());
    });
    PF_CHECK_LAUNCH("impes3d props");
  }

  void assemble(const Impes3DAssembleArgs& a) override {
    ctx_.activate();
    with_type(a.prec, [&](auto t) {
      using T = decltype(t);
      cu_launch<T>(&cu::launch_imp_assemble<T>, a.kernel_args(), a.shape, ctx_.stream());
    });
    PF_CHECK_LAUNCH("impes3d assemble");
  }

  void wells_prepare(const Impes3DWellArgs& a) override {
    ctx_.activate();
    with_type(a.prec, [&](auto t) {
      using T = decltype(t);
      cu_launch<T>(&cu::launch_imp_wells_prepare<T>, a.prepare_args(), tables_of(a.tables), ctx_.stream());
    });
    PF_CHECK_LAUNCH("impes3d wells_prepare");
  }

  void wells_finish(const Impes3DWellArgs& a) override {
    ctx_.activate();
    with_type(a.prec, [&](auto t) {
      using T = decltype(t);
      cu_launch<T>(&cu::launch_imp_wells_finish<T>, a.finish_args(), ctx_.stream());
    });
    PF_CHECK_LAUNCH("impes3d wells_finish");
  }

  void wells_couple(const Impes3DWellArgs& a) override {
    ctx_.activate();
    with_type(a.prec, [&](auto t) {
      using T = decltype(t);
      cu_launch<T>(&cu::launch_imp_wells_couple<T>, a.couple_args(), ctx_.stream());
    });
    PF_CHECK_LAUNCH("impes3d wells_couple");
  }

  void wells_apply(const Impes3DWellArgs& a) override {
    ctx_.activate();
    with_type(a.prec, [&](auto t) {
      using T = decltype(t);
      cu_launch<T>(&cu::launch_imp_wells_apply<T>, a.apply_args(), ctx_.stream());
    });
    PF_CHECK_LAUNCH("impes3d wells_apply");
  }

  void update(const Impes3DUpdateArgs& a) override {
    ctx_.activate();
    with_type(a.prec, [&](auto t) {
      using T = decltype(t);
      cu_launch<T>(&cu::launch_imp_update<T>, a.kernel_args(), tables_of(a.tables), a.shape, ctx_.stream());
    });
    PF_CHECK_LAUNCH("impes3d update");
  }

 private:
  CudaContext& ctx_;
};

}  // namespace

FamilyPtr<Impes3DImpl> make_family(CudaContext& ctx, FamilyTag<Impes3DImpl>) { return std::make_shared<CudaImpes3D>(ctx); }

}  // namespace poreflow::cuda_detail
