#include <memory>

#include "core/error.hpp"
#include "core/io/case_file.hpp"
#include "core/models/adi2d.hpp"
#include "core/models/bl1d.hpp"
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

std::unique_ptr<Model> make_model(io::CaseFile& cf, Backend& be, Precision prec) {
  auto name = cf.get_string("model", "");
  if (name.empty()) cf.fail("model", "is missing (expected model = \"bl1d\", \"adi2d\" or \"impes3d\")");
  if (name == "bl1d") return build<BL1D>(be, prec, read_bl1d_config(cf, be));
  if (name == "adi2d") return build<Adi2D>(be, prec, read_adi2d_config(cf, be));
  if (name == "impes3d") return build<Impes3D>(be, prec, read_impes3d_config(cf, be, prec));
  cf.fail("model", "= '" + name + "' is not a known model (expected: bl1d, adi2d, impes3d)");
}

}  // namespace poreflow
