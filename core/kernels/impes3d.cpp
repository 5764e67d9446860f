#include "core/kernels/impes3d.hpp"

#include <string>

#include "core/base/enum_names.hpp"
#include "core/base/error.hpp"
#include "core/kernels/sor3d.hpp"

namespace poreflow {
namespace {

constexpr EnumNames<TableSpace, 3> kSpaces{
    {{"auto", TableSpace::Auto}, {"constant", TableSpace::Constant}, {"global", TableSpace::Global}}};

void check_grid(const Impes3DGrid& g, Precision prec, const char* what) {
  const std::string w(what);
  if (g.box.halo != 1) throw BackendError(w + ": the grid's box needs a halo of exactly 1");
  check_box(g.box, g.tx, prec, (w + " tx").c_str());
  check_box(g.box, g.ty, prec, (w + " ty").c_str());
  check_box(g.box, g.tz, prec, (w + " tz").c_str());
  check_box(g.box, g.depth, prec, (w + " depth").c_str());
  check_box(g.box, g.pv0, prec, (w + " pv0").c_str());
}

void check_tables(const Impes3DTables& t, Precision prec, const char* what) {
  if (t.values < IMP_NPARAMS) throw BackendError(std::string(what) + ": prm holds fewer values than its parameters");
  check_values(t.prm, t.values, prec, what, "prm");
  if (t.space == TableSpace::Constant && t.values > kImpesConstantValues)
    throw ConfigError(std::string(what) + ": " + std::to_string(t.values) + " parameter and table values do not fit in "
                      "constant memory (at most " + std::to_string(kImpesConstantValues) + "); use tables = \"global\"");
}

void check_cells(const Impes3DGrid& g, const Buffer* b, std::size_t per_cell, Precision prec, const char* what) {
  check_values(b, per_cell * g.box.extent(), prec, what);
}

}  // namespace

const char* to_string(TableSpace t) { return enum_name(t, kSpaces); }
TableSpace parse_table_space(std::string_view s) { return parse_enum(s, kSpaces, "table memory"); }

Impes3DKernels Backend::impes3d() { return Impes3DKernels(*this, impes3d_impl()); }

void Impes3DKernels::props(const Impes3DPropsArgs& a) {
  check_precision(be_, a.prec, "impes3d props");
  check_grid(a.grid, a.prec, "impes3d props");
  check_tables(a.tables, a.prec, "impes3d props");
  check_cells(a.grid, a.p, 1, a.prec, "impes3d props p");
  check_cells(a.grid, a.mw, 1, a.prec, "impes3d props mw");
  check_cells(a.grid, a.mo, 1, a.prec, "impes3d props mo");
  check_cells(a.grid, a.props, IMP_NPROPS, a.prec, "impes3d props props");
  check_box_shape(a.shape, "impes3d props");
  impl_.props(a);
}

void Impes3DKernels::assemble(const Impes3DAssembleArgs& a) {
  check_precision(be_, a.prec, "impes3d assemble");
  check_grid(a.grid, a.prec, "impes3d assemble");
  if (!(a.dt > 0)) throw BackendError("impes3d assemble: dt must be positive");
  check_cells(a.grid, a.p, 1, a.prec, "impes3d assemble p");
  check_cells(a.grid, a.props, IMP_NPROPS, a.prec, "impes3d assemble props");
  check_values(a.coef, sor3d_coef_values(a.grid.box), a.prec, "impes3d assemble coef");
  check_box_shape(a.shape, "impes3d assemble");
  impl_.assemble(a);
}

namespace {
void check_wells(Backend& be, const Impes3DWellArgs& a, const char* what) {
  check_precision(be, a.prec, what);
  check_grid(a.grid, a.prec, what);
  check_tables(a.tables, a.prec, what);
  if (a.wells < 0 || a.completions < 0) throw BackendError(std::string(what) + ": negative counts");
  if (a.wells == 0) return;
  check_values(a.wp, static_cast<std::size_t>(IMP_NWP * a.wells), a.prec, what, "wp");
  check_values(a.comp, static_cast<std::size_t>(IMP_NCP * a.completions), a.prec, what, "comp");
  check_values(a.cwi, static_cast<std::size_t>(a.completions), a.prec, what, "cwi");
  check_values(a.cdepth, static_cast<std::size_t>(a.completions), a.prec, what, "cdepth");
  if (!a.cidx) throw BackendError(std::string(what) + ": missing cidx");
  check_range(*a.cidx, 2 * sizeof(long long) * static_cast<std::size_t>(a.completions), 0, what);
  check_cells(a.grid, a.props, IMP_NPROPS, a.prec, what);
  check_cells(a.grid, a.p, 1, a.prec, what);
  if (!a.words) throw BackendError(std::string(what) + ": missing words");
  check_range(*a.words, impes3d_words(a.wells) * 8, 0, what);
  if (!(a.dt > 0)) throw BackendError(std::string(what) + ": dt must be positive");
}
}  // namespace

void Impes3DKernels::wells_prepare(const Impes3DWellArgs& a) {
  check_wells(be_, a, "impes3d wells_prepare");
  if (a.wells == 0) return;
  check_values(a.coef, sor3d_coef_values(a.grid.box), a.prec, "impes3d wells_prepare coef");
  impl_.wells_prepare(a);
}

void Impes3DKernels::wells_finish(const Impes3DWellArgs& a) {
  check_wells(be_, a, "impes3d wells_finish");
  if (a.wells == 0) return;
  impl_.wells_finish(a);
}

void Impes3DKernels::wells_couple(const Impes3DWellArgs& a) {
  const char* w = "impes3d wells_couple";
  check_wells(be_, a, w);
  if (a.wells == 0) return;
  check_cells(a.grid, a.dp, 1, a.prec, w);
  check_values(a.coef, sor3d_coef_values(a.grid.box), a.prec, "impes3d wells_couple coef");
  impl_.wells_couple(a);
}

void Impes3DKernels::wells_apply(const Impes3DWellArgs& a) {
  const char* w = "impes3d wells_apply";
  check_wells(be_, a, w);
  if (a.wells == 0) return;
  check_cells(a.grid, a.x, 1, a.prec, w);
  check_cells(a.grid, a.y, 1, a.prec, w);
  if (a.x == a.y) throw BackendError("impes3d wells_apply: x and y must be different buffers");
  if (a.sign != 1 && a.sign != -1) throw BackendError("impes3d wells_apply: sign must be +1 or -1");
  impl_.wells_apply(a);
}

void Impes3DKernels::update(const Impes3DUpdateArgs& a) {
  const char* w = "impes3d update";
  check_precision(be_, a.prec, w);
  check_grid(a.grid, a.prec, w);
  check_tables(a.tables, a.prec, w);
  if (!(a.dt > 0)) throw BackendError("impes3d update: dt must be positive");
  for (const Buffer* b : {a.p_old, a.p_new, a.mw_in, a.mo_in, static_cast<const Buffer*>(a.mw_out),
                          static_cast<const Buffer*>(a.mo_out), static_cast<const Buffer*>(a.sw)})
    check_cells(a.grid, b, 1, a.prec, w);
  check_cells(a.grid, a.props, IMP_NPROPS, a.prec, w);
  if (!a.ccell) throw BackendError("impes3d update: missing ccell");
  check_range(*a.ccell, a.grid.box.extent() * sizeof(int), 0, w);
  if (a.completions > 0) check_values(a.comp, static_cast<std::size_t>(IMP_NCP * a.completions), a.prec, w, "comp");
  else if (!a.comp) throw BackendError("impes3d update: missing comp (any buffer when there are no completions)");
  if (a.mw_out == a.mw_in || a.mo_out == a.mo_in) throw BackendError("impes3d update: the masses must go to other buffers");
  if (!a.words) throw BackendError("impes3d update: missing words");
  check_range(*a.words, IMP_NSTAT * 8, 0, w);
  check_box_shape(a.shape, w);
  if (a.shape.threads() % 32 != 0)
    throw ConfigError("impes3d update: the launch shape " + to_string(a.shape) + " must have a multiple of 32 threads");
  impl_.update(a);
}

}  // namespace poreflow
