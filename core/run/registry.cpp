#include <memory>

#include "core/base/error.hpp"
#include "core/io/case_file.hpp"
#include "core/models/adi2d.hpp"
#include "core/models/bl1d.hpp"
#include "core/models/fluids3d.hpp"
#include "core/models/impes3d.hpp"
#include "core/models/model.hpp"

namespace poreflow {

namespace {
template <template <class> class M, class Config>
std::unique_ptr<Model> build(Backend& be, Precision prec, const Config& cfg) {
  if (prec == Precision::Float) return std::make_unique<M<float>>(be, cfg);
  return std::make_unique<M<double>>(be, cfg);
}
}  // namespace

namespace {
std::size_t completions_of(const ImpesInput& in) {
  std::size_t n = 0;
  for (const auto& w : in.wells) n += w.completions.size();
  return n;
}
}  // namespace

// Every model's need is computed from its configuration and checked before it allocates.
std::unique_ptr<Model> make_model(io::CaseFile& cf, Backend& be, Precision prec, MemoryNeed* need_only) {
  auto name = cf.get_string("model", "");
  if (name.empty()) cf.fail("model", "is missing (expected model = \"bl1d\", \"adi2d\", \"impes3d\" or \"fluids3d\")");
  auto go = [&](auto make, const MemoryNeed& need) -> std::unique_ptr<Model> {
    if (need_only) {
      *need_only = need;
      return nullptr;
    }
    check_memory(need, prec, be);
    return make();
  };
  if (name == "bl1d") {
    const auto cfg = read_bl1d_config(cf, be);
    return go([&] { return build<BL1D>(be, prec, cfg); }, bl1d_need(cfg, prec, be.is_host()));
  }
  if (name == "adi2d") {
    const auto cfg = read_adi2d_config(cf, be);
    return go([&] { return build<Adi2D>(be, prec, cfg); }, adi2d_need(cfg, prec, be.is_host()));
  }
  if (name == "impes3d") {
    // its reader checks the grid's need before it builds per-cell arrays from the case
    const auto cfg = read_impes3d_config(cf, be, prec);
    const auto& in = cfg.input;
    return go([&] { return build<Impes3D>(be, prec, cfg); },
              impes3d_need(in.grid, completions_of(in), in.wells.size(), prec, be.is_host()));
  }
  if (name == "fluids3d") {
    const auto cfg = read_fluids3d_config(cf);
    return go([&] { return build<Fluids3D>(be, prec, cfg); }, fluids3d_need(cfg, prec, be.is_host()));
  }
  cf.fail("model", "= '" + name + "' is not a known model (expected: bl1d, adi2d, impes3d, fluids3d)");
}

}  // namespace poreflow
