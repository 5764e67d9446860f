// impes3d on the cuda backend (kernels_cu/impes3d.cu).
#include "backends/cuda/families.hpp"
#include "core/kernels/impes3d.hpp"
#include "kernels_cu/impes3d.cuh"

namespace poreflow::cuda_detail {
namespace {

template <class T>
cu::ImpGrid<T> grid_of(const Impes3DGrid& g, const Impes3DTables* t) {
  cu::ImpGrid<T> r{};
  r.b = g.box.view();
  r.E = static_cast<long>(g.box.extent());
  r.tx = dptr<T>(g.tx);
  r.ty = dptr<T>(g.ty);
  r.tz = dptr<T>(g.tz);
  r.depth = dptr<T>(g.depth);
  r.pv0 = dptr<T>(g.pv0);
  if (t) {
    r.prm = dptr<T>(t->prm);
    r.prm_values = t->values;
    r.constant = t->space != TableSpace::Global && t->values <= kImpesConstantValues;
  }
  return r;
}

class CudaImpes3D final : public Impes3DImpl {
 public:
  explicit CudaImpes3D(CudaContext& ctx) : ctx_(ctx) {}

  void props(const Impes3DPropsArgs& a) override {
    ctx_.activate();
    with_type(a.prec, [&](auto t) {
      using T = decltype(t);
      cu::launch_imp_props<T>(grid_of<T>(a.grid, &a.tables), dptr<T>(a.p), dptr<T>(a.mw), dptr<T>(a.mo), dptr<T>(a.props),
                              a.shape, ctx_.stream());
    });
    PF_CHECK_LAUNCH("impes3d props");
  }

  void assemble(const Impes3DAssembleArgs& a) override {
    ctx_.activate();
    with_type(a.prec, [&](auto t) {
      using T = decltype(t);
      cu::launch_imp_assemble<T>(grid_of<T>(a.grid, nullptr), T(a.dt), dptr<T>(a.p), dptr<T>(a.props), dptr<T>(a.coef), a.shape,
                                 ctx_.stream());
    });
    PF_CHECK_LAUNCH("impes3d assemble");
  }

  void wells_prepare(const Impes3DWellArgs& a) override {
    ctx_.activate();
    with_type(a.prec, [&](auto t) {
      using T = decltype(t);
      cu::launch_imp_wells_prepare<T>(grid_of<T>(a.grid, &a.tables), a.wells, dptr<T>(a.wp), dptr<long>(a.cidx), dptr<T>(a.cwi),
                                      dptr<T>(a.cdepth), dptr<T>(a.comp), dptr<T>(a.props), dptr<T>(a.p), T(a.dt),
                                      dptr<T>(a.coef), dptr<unsigned long long>(a.words), ctx_.stream());
    });
    PF_CHECK_LAUNCH("impes3d wells_prepare");
  }

  void wells_finish(const Impes3DWellArgs& a) override {
    ctx_.activate();
    with_type(a.prec, [&](auto t) {
      using T = decltype(t);
      cu::launch_imp_wells_finish<T>(a.wells, dptr<T>(a.wp), dptr<long>(a.cidx), dptr<T>(a.comp), dptr<T>(a.p),
                                     dptr<unsigned long long>(a.words), ctx_.stream());
    });
    PF_CHECK_LAUNCH("impes3d wells_finish");
  }

  void update(const Impes3DUpdateArgs& a) override {
    ctx_.activate();
    with_type(a.prec, [&](auto t) {
      using T = decltype(t);
      cu::launch_imp_update<T>(grid_of<T>(a.grid, &a.tables), T(a.dt), dptr<T>(a.p_old), dptr<T>(a.p_new), dptr<T>(a.props),
                               dptr<T>(a.mw_in), dptr<T>(a.mo_in), dptr<int>(a.ccell), dptr<T>(a.comp), dptr<T>(a.mw_out), dptr<T>(a.mo_out), dptr<T>(a.sw),
                               dptr<unsigned long long>(a.words), a.shape, ctx_.stream());
    });
    PF_CHECK_LAUNCH("impes3d update");
  }

 private:
  CudaContext& ctx_;
};

}  // namespace

FamilyPtr<Impes3DImpl> make_family(CudaContext& ctx, FamilyTag<Impes3DImpl>) { return std::make_shared<CudaImpes3D>(ctx); }

}  // namespace poreflow::cuda_detail
