#include "core/kernels/vec.hpp"

#include <cstdint>
#include <initializer_list>
#include <string>

#include "core/base/error.hpp"
#include "core/kernels/control.hpp"

namespace poreflow {

namespace {

using Ins = std::initializer_list<const Buffer*>;

[[noreturn]] void fail(const char* what, const std::string& msg) { throw BackendError(std::string(what) + ": " + msg); }

std::size_t slots_in(const Buffer* s, Precision prec) { return s ? s->bytes() / size_of(prec) : 0; }

void check_slot(int slot, const Buffer* s, Precision prec, const char* what, const char* name) {
  if (!s) fail(what, std::string("slot ") + name + " without a scalar array");
  if (slot < 0 || static_cast<std::size_t>(slot) >= slots_in(s, prec))
    fail(what, std::string("slot ") + name + " = " + std::to_string(slot) + " outside the " +
                   std::to_string(slots_in(s, prec)) + " scalars");
}

void check_coef(const VecCoef& c, const Buffer* s, Precision prec, const char* what) {
  for (int k : {c.num0, c.num1, c.den0, c.den1}) {
    if (k < -1) fail(what, "a coefficient's slot " + std::to_string(k));
    if (k >= 0) check_slot(k, s, prec, what, "of a coefficient");
  }
  (void)c.packed();  // the slots fit the kernels' fields
}

void distinct(const Buffer* out, const Buffer* in, const char* what, const char* names) {
  if (out && out == in) fail(what, std::string(names) + " must be distinct buffers");
}

void check_guard(const Buffer* guard, const char* what) {
  if (guard) check_control_block(guard, what);
}

// a basis of count vectors of n values from v_at, ldv apart
void check_basis(const Buffer* v, std::size_t v_at, std::size_t ldv, int count, std::size_t n, Precision prec,
                 const char* what) {
  if (count < 0) fail(what, "a negative count of vectors");
  if (count > 1 && ldv < n) fail(what, "the basis' vectors overlap (" + std::to_string(ldv) + " apart, " +
                                           std::to_string(n) + " values)");
  const std::size_t need = count == 0 ? 0 : v_at + static_cast<std::size_t>(count - 1) * ldv + n;
  check_values(v, need, prec, what, "basis");
}

bool coef_reads(const VecCoef& c, int slot) {
  return slot >= 0 && (c.num0 == slot || c.num1 == slot || c.den0 == slot || c.den1 == slot);
}

}  // namespace

long VecCoef::packed() const {
  long p = 0;
  const int slots[4] = {num0, num1, den0, den1};
  for (int q = 0; q < 4; ++q) {
    if (slots[q] > PF_COEF_MAX_SLOT)
      throw BackendError("a coefficient's slot " + std::to_string(slots[q]) + " is past the kernels' " +
                         std::to_string(PF_COEF_MAX_SLOT));
    if (slots[q] >= 0) p |= static_cast<long>(slots[q] + 1) << (PF_COEF_BITS * q);
  }
  if (sqrt_den) p |= 1L << PF_COEF_SQRT_BIT;
  return p;
}

long pack_slots(int a, int b, int c, int d) {
  VecCoef k;
  k.num0 = a, k.num1 = b, k.den0 = c, k.den1 = d;
  return k.packed();
}

VecKernels Backend::vec() { return VecKernels(*this, vec_impl()); }

void VecKernels::dot(const VecDotArgs& a) {
  const char* w = "vec dot";
  check_precision(be_, a.prec, w);
  check_values(a.x1, a.n, a.prec, w, "x1");
  check_values(a.y1, a.n, a.prec, w, "y1");
  check_slot(a.slot1, a.s, a.prec, w, "1");
  if (a.x2 || a.y2 || a.slot2 >= 0) {
    check_values(a.x2, a.n, a.prec, w, "x2");
    check_values(a.y2, a.n, a.prec, w, "y2");
    check_slot(a.slot2, a.s, a.prec, w, "2");
    if (a.slot2 == a.slot1) fail(w, "the two pairs write one slot");
  }
  for (const Buffer* in : Ins{a.x1, a.y1, a.x2, a.y2}) distinct(a.s, in, w, "the scalars and the vectors");
  check_guard(a.guard, w);
  impl_.dot(a);
}

void VecImpl::vendor_dot(const VecDotArgs&) { throw BackendError("vec: no vendor dot product on this backend"); }

void VecKernels::vendor_dot(const VecDotArgs& a) {
  const char* w = "vec vendor_dot";
  if (impl_.vendor_name().empty()) fail(w, "the " + be_.name() + " backend has no vendor dot product");
  if (a.x2 || a.y2 || a.slot2 >= 0 || a.guard) fail(w, "one pair and no guard");
  check_precision(be_, a.prec, w);
  check_values(a.x1, a.n, a.prec, w, "x1");
  check_values(a.y1, a.n, a.prec, w, "y1");
  check_slot(a.slot1, a.s, a.prec, w, "1");
  for (const Buffer* in : Ins{a.x1, a.y1}) distinct(a.s, in, w, "the scalars and the vectors");
  impl_.vendor_dot(a);
}

void VecKernels::multi_dot(const VecMultiDotArgs& a) {
  const char* w = "vec multi_dot";
  check_precision(be_, a.prec, w);
  check_basis(a.v, a.v_at, a.ldv, a.count, a.n, a.prec, w);
  check_values(a.w, a.n, a.prec, w, "w");
  if (a.count > 0) {
    check_slot(a.slot, a.s, a.prec, w, "first");
    check_slot(a.slot + a.count - 1, a.s, a.prec, w, "last");
  }
  distinct(a.s, a.v, w, "the scalars and the basis");
  distinct(a.s, a.w, w, "the scalars and w");
  check_guard(a.guard, w);
  if (a.count > 0) impl_.multi_dot(a);
}

void VecKernels::axpby(const VecAxpbyArgs& a) {
  const char* w = "vec axpby";
  check_precision(be_, a.prec, w);
  check_values(a.x, a.n, a.prec, w, "x");
  check_values(a.y, a.n, a.prec, w, "y");
  distinct(a.y, a.x, w, "x and y");
  check_coef(a.a, a.s, a.prec, w);
  check_coef(a.b, a.s, a.prec, w);
  distinct(a.y, a.s, w, "y and the scalars");
  check_guard(a.guard, w);
  if (a.n > 0) impl_.axpby(a);
}

void VecKernels::axpbypcz(const VecAxpbypczArgs& a) {
  const char* w = "vec axpbypcz";
  check_precision(be_, a.prec, w);
  check_values(a.x, a.n, a.prec, w, "x");
  check_values(a.y, a.n, a.prec, w, "y");
  check_values(a.z, a.n, a.prec, w, "z");
  distinct(a.z, a.x, w, "x and z");
  distinct(a.z, a.y, w, "y and z");
  for (const VecCoef* c : {&a.a, &a.b, &a.c}) check_coef(*c, a.s, a.prec, w);
  distinct(a.z, a.s, w, "z and the scalars");
  check_guard(a.guard, w);
  if (a.n > 0) impl_.axpbypcz(a);
}

void VecKernels::update2(const VecUpdate2Args& a) {
  const char* w = "vec update2";
  check_precision(be_, a.prec, w);
  check_values(a.x1, a.n, a.prec, w, "x1");
  check_values(a.y1, a.n, a.prec, w, "y1");
  check_values(a.x2, a.n, a.prec, w, "x2");
  check_values(a.y2, a.n, a.prec, w, "y2");
  for (const VecCoef* c : {&a.a1, &a.b1, &a.a2, &a.b2}) check_coef(*c, a.s, a.prec, w);
  for (const Buffer* in : Ins{a.x1, a.x2, a.y2, a.w}) distinct(a.y1, in, w, "y1 and the other vectors");
  for (const Buffer* in : Ins{a.x1, a.x2, a.w}) distinct(a.y2, in, w, "y2 and the inputs");
  for (const Buffer* v : Ins{a.x1, a.y1, a.x2, a.y2, a.w}) distinct(a.s, v, w, "the scalars and the vectors");
  if (a.slot_wy >= 0) {
    check_values(a.w, a.n, a.prec, w, "w");
    check_slot(a.slot_wy, a.s, a.prec, w, "w.y2");
  }
  if (a.slot_yy >= 0) check_slot(a.slot_yy, a.s, a.prec, w, "y2.y2");
  if (a.slot_wy >= 0 && a.slot_wy == a.slot_yy) fail(w, "the two dots write one slot");
  for (const VecCoef* c : {&a.a1, &a.b1, &a.a2, &a.b2})
    if (coef_reads(*c, a.slot_wy) || coef_reads(*c, a.slot_yy)) fail(w, "a coefficient reads a slot the dots write");
  check_guard(a.guard, w);
  if (a.n > 0) impl_.update2(a);
}

void VecKernels::multi_axpy(const VecMultiAxpyArgs& a) {
  const char* w = "vec multi_axpy";
  check_precision(be_, a.prec, w);
  check_basis(a.v, a.v_at, a.ldv, a.count, a.n, a.prec, w);
  check_values(a.y, a.n, a.prec, w, "y");
  distinct(a.y, a.v, w, "y and the basis");
  distinct(a.s, a.v, w, "the scalars and the basis");
  distinct(a.s, a.y, w, "the scalars and y");
  if (a.count > 0) {
    check_slot(a.slot, a.s, a.prec, w, "first");
    check_slot(a.slot + a.count - 1, a.s, a.prec, w, "last");
  }
  if (a.count_slot >= 0) check_slot(a.count_slot, a.s, a.prec, w, "count");
  if (a.norm_slot >= 0) {
    check_slot(a.norm_slot, a.s, a.prec, w, "norm");
    if ((a.norm_slot >= a.slot && a.norm_slot < a.slot + a.count) || a.norm_slot == a.count_slot)
      fail(w, "the norm's slot is one the update reads");
  }
  check_guard(a.guard, w);
  if (a.n > 0 && (a.count > 0 || a.norm_slot >= 0)) impl_.multi_axpy(a);
}

void VecKernels::store(const VecStoreArgs& a) {
  const char* w = "vec store";
  check_precision(be_, a.prec, w);
  check_values(a.w, a.n, a.prec, w, "w");
  check_values(a.basis, a.v_at + a.n, a.prec, w, "basis (v)");
  if (a.v) check_values(a.v, a.n, a.prec, w, "v");
  if (a.z) {
    check_values(a.z, a.n, a.prec, w, "z");
    check_values(a.basis, a.z_at + a.n, a.prec, w, "basis (z)");
    if (a.z_at < a.v_at + a.n && a.v_at < a.z_at + a.n) fail(w, "v and z overlap in the basis");
  }
  check_coef(a.a, a.s, a.prec, w);
  for (const Buffer* in : Ins{a.w, a.z, a.s}) {
    distinct(a.basis, in, w, "the basis and the inputs");
    distinct(a.v, in, w, "v and the inputs");
  }
  distinct(a.v, a.basis, w, "v and the basis");
  check_guard(a.guard, w);
  if (a.n > 0) impl_.store(a);
}

void VecKernels::diag(const VecDiagArgs& a) {
  const char* w = "vec diag";
  check_precision(be_, a.prec, w);
  if (a.block != 1 && a.block != 2) fail(w, "blocks of " + std::to_string(a.block) + " (1 or 2)");
  const std::size_t b = static_cast<std::size_t>(a.block);
  check_values(a.d, a.cells * b * b, a.prec, w, "d");
  check_values(a.r, a.cells * b, a.prec, w, "r");
  check_values(a.z, a.cells * b, a.prec, w, "z");
  distinct(a.z, a.r, w, "r and z");
  distinct(a.z, a.d, w, "d and z");
  check_guard(a.guard, w);
  if (a.cells > 0) impl_.diag(a);
}

void VecKernels::gather(const VecGatherArgs& a) {
  const char* w = "vec gather";
  check_precision(be_, a.prec, w);
  if (!a.map) fail(w, "missing map");
  check_range(*a.map, a.n * sizeof(int), 0, w);
  check_values(a.x, a.x_size, a.prec, w, "x");
  check_values(a.y, a.n, a.prec, w, "y");
  distinct(a.y, a.x, w, "x and y");
  distinct(a.y, a.map, w, "the map and y");
  check_guard(a.guard, w);
  if (a.n > 0) impl_.gather(a);
}

void VecKernels::convert(const VecConvertArgs& a) {
  const char* w = a.to_float ? "vec narrow" : "vec widen";
  check_precision(be_, a.prec, w);
  check_values(a.x, a.n, a.to_float ? a.prec : Precision::Float, w, "x");
  check_values(a.y, a.n, a.to_float ? Precision::Float : a.prec, w, "y");
  distinct(a.y, a.x, w, "x and y");
  check_guard(a.guard, w);
  if (a.n > 0) impl_.convert(a);
}

void VecKernels::check(const VecCheckArgs& a) {
  const char* w = "vec check";
  check_precision(be_, a.prec, w);
  check_control_block(a.ctrl, w);
  if (a.max_it < 0 || a.it < -1 || a.it > a.max_it)
    fail(w, "iteration " + std::to_string(a.it) + " of a limit of " + std::to_string(a.max_it));
  check_values(a.hist, static_cast<std::size_t>(a.max_it) + 1, a.prec, w, "history");
  check_slot(a.rr, a.s, a.prec, w, "rr");
  check_slot(a.ref, a.s, a.prec, w, "ref");
  for (int q = 0; q < 4; ++q) {
    const int k = phys::pf_slot_of(a.breakdown, q);
    if (k >= 0) check_slot(k, a.s, a.prec, w, "breakdown");
  }
  if (!(a.tol >= 0)) fail(w, "a tolerance of " + std::to_string(a.tol));
  distinct(a.hist, a.s, w, "the history and the scalars");
  impl_.check(a);
}

void VecKernels::gmres_column(const VecGmresColumnArgs& a) {
  const char* w = "vec gmres_column";
  check_precision(be_, a.prec, w);
  check_control_block(a.ctrl, w);
  if (a.m < 1 || a.j < 0 || a.j >= a.m) fail(w, "column " + std::to_string(a.j) + " of a restart of " + std::to_string(a.m));
  if (a.max_it < 0 || a.it < 0 || a.it > a.max_it)
    fail(w, "iteration " + std::to_string(a.it) + " of a limit of " + std::to_string(a.max_it));
  check_values(a.hist, static_cast<std::size_t>(a.max_it) + 1, a.prec, w, "history");
  check_slot(a.base, a.s, a.prec, w, "base");
  check_slot(a.base + phys::pf_gm_slots(a.m) - 1, a.s, a.prec, w, "the last of the restart's");
  check_slot(a.ref, a.s, a.prec, w, "ref");
  if (a.ref >= a.base && a.ref < a.base + phys::pf_gm_slots(a.m)) fail(w, "the reference is one of the restart's slots");
  if (!(a.tol >= 0)) fail(w, "a tolerance of " + std::to_string(a.tol));
  distinct(a.hist, a.s, w, "the history and the scalars");
  impl_.gmres_column(a);
}

void VecKernels::gmres_solve(const VecGmresSolveArgs& a) {
  const char* w = "vec gmres_solve";
  check_precision(be_, a.prec, w);
  if (a.m < 1) fail(w, "a restart of " + std::to_string(a.m));
  check_slot(a.base, a.s, a.prec, w, "base");
  check_slot(a.base + phys::pf_gm_slots(a.m) - 1, a.s, a.prec, w, "the last of the restart's");
  check_guard(a.guard, w);
  impl_.gmres_solve(a);
}

long VecKernels::first_nonfinite(const VecFirstNonfiniteArgs& a) {
  const char* w = "vec first_nonfinite";
  check_precision(be_, a.prec, w);
  check_values(a.x, a.n, a.prec, w, "x");
  if (!a.word) fail(w, "missing word");
  check_range(*a.word, sizeof(std::uint64_t), 0, w);
  distinct(a.word, a.x, w, "x and the word");
  if (a.n == 0) return -1;
  impl_.first_nonfinite(a);
  std::uint64_t v = 0;
  be_.download(*a.word, &v, sizeof v);  // waits
  return v == ~std::uint64_t{0} ? -1 : static_cast<long>(v);
}

}  // namespace poreflow
