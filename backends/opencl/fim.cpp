// fim on the opencl backend (kernels_cl/fim.cl).
#include "backends/opencl/families.hpp"
#include "core/kernels/fim.hpp"

namespace poreflow::ocl {
namespace {

class ClFim final : public FimImpl {
 public:
  explicit ClFim(ClContext& ctx) : ctx_(ctx) {}
  void masses(const FimMassesArgs& a) override { run(a.prec, "fim_masses", a.kernel_args(), a.grid.box.extent()); }
  void assemble(const FimAssembleArgs& a) override {
    run(a.prec, "fim_assemble", a.kernel_args(), static_cast<std::size_t>(a.grid.box.cells()));
  }
  void well_start(const FimWellStartArgs& a) override { run(a.prec, "fim_wells_start", a.kernel_args(), wells(a.wells)); }
  void well_equation(const FimWellEquationArgs& a) override { run(a.prec, "fim_well_eq", a.kernel_args(), wells(a.wells)); }
  void schur(const FimSchurArgs& a) override { run(a.prec, "fim_schur", a.kernel_args(), wells(a.wells)); }
  void update(const FimUpdateArgs& a) override {
    if (a.wells.wells > 0) run(a.prec, "fim_update_wells", a.well_args(), wells(a.wells));
    run(a.prec, "fim_update_cells", a.cell_args(), a.grid.box.extent());
  }
  void unpack(const FimUnpackArgs& a) override { run(a.prec, "fim_unpack", a.kernel_args(), a.grid.box.extent()); }
  void pack(const FimPackArgs& a) override { run(a.prec, "fim_pack", a.kernel_args(), a.grid.box.extent()); }

 private:
  static std::size_t wells(const FimWells& w) { return static_cast<std::size_t>(w.wells); }
  template <class Args>
  void run(Precision prec, const char* name, const Args& args, std::size_t n) {
    ClKernel& k = ctx_.kernel("fim", prec, ctx_.fast_block(), name);
    ctx_.set_args(k, prec, args);
    ctx_.launch_points(k, n);
  }
  ClContext& ctx_;
};

}  // namespace

FamilyPtr<FimImpl> make_family(ClContext& ctx, FamilyTag<FimImpl>) { return std::make_shared<ClFim>(ctx); }

}  // namespace poreflow::ocl
