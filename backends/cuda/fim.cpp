// fim on the cuda backend (kernels_cu/fim.cu).
#include "backends/cuda/device_args.hpp"
#include "backends/cuda/families.hpp"
#include "core/kernels/fim.hpp"
#include "kernels_cu/fim.cuh"

namespace poreflow::cuda_detail {
namespace {

class CudaFim final : public FimImpl {
 public:
  explicit CudaFim(CudaContext& ctx) : ctx_(ctx) {}
  void masses(const FimMassesArgs& a) override {
    run(a.prec, a.kernel_args(), "fim masses", [](auto t) { return &cu::launch_fim_masses<decltype(t)>; });
  }
  void assemble(const FimAssembleArgs& a) override {
    run(a.prec, a.kernel_args(), "fim assemble", [](auto t) { return &cu::launch_fim_assemble<decltype(t)>; });
  }
  void well_start(const FimWellStartArgs& a) override {
    run(a.prec, a.kernel_args(), "fim well_start", [](auto t) { return &cu::launch_fim_well_start<decltype(t)>; });
  }
  void well_equation(const FimWellEquationArgs& a) override {
    run(a.prec, a.kernel_args(), "fim well_equation", [](auto t) { return &cu::launch_fim_well_equation<decltype(t)>; });
  }
  void schur(const FimSchurArgs& a) override {
    run(a.prec, a.kernel_args(), "fim schur", [](auto t) { return &cu::launch_fim_schur<decltype(t)>; });
  }
  void update(const FimUpdateArgs& a) override {
    if (a.wells.wells > 0)
      run(a.prec, a.well_args(), "fim update_wells", [](auto t) { return &cu::launch_fim_update_wells<decltype(t)>; });
    run(a.prec, a.cell_args(), "fim update_cells", [](auto t) { return &cu::launch_fim_update_cells<decltype(t)>; });
  }
  void unpack(const FimUnpackArgs& a) override {
    run(a.prec, a.kernel_args(), "fim unpack", [](auto t) { return &cu::launch_fim_unpack<decltype(t)>; });
  }
  void pack(const FimPackArgs& a) override {
    run(a.prec, a.kernel_args(), "fim pack", [](auto t) { return &cu::launch_fim_pack<decltype(t)>; });
  }

 private:
  template <class Args, class W>
  void run(Precision prec, const Args& args, const char* what, W wrapper) {
    ctx_.activate();
    with_type(prec, [&](auto t) {
      using T = decltype(t);
      cu_launch<T>(wrapper(t), args, ctx_.stream());
    });
    PF_CHECK_LAUNCH(what);
  }
  CudaContext& ctx_;
};

}  // namespace

FamilyPtr<FimImpl> make_family(CudaContext& ctx, FamilyTag<FimImpl>) { return std::make_shared<CudaFim>(ctx); }

}  // namespace poreflow::cuda_detail
