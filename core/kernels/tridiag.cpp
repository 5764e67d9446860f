#include "core/kernels/tridiag.hpp"

#include <limits>
#include <string>

#include "core/base/enum_names.hpp"
#include "core/base/error.hpp"
#include "core/kernels/control.hpp"

namespace poreflow {
namespace {

constexpr EnumNames<TridiagAlgo, 6> kTridiag{{
    {"thomas", TridiagAlgo::Thomas},
    {"cr", TridiagAlgo::CR},
    {"pcr", TridiagAlgo::PCR},
    {"cr_pcr", TridiagAlgo::CrPcr},
    {"pcr_thomas", TridiagAlgo::PcrThomas},
    {"auto", TridiagAlgo::Auto},
}};
constexpr EnumNames<TridiagLayout, 2> kLayouts{{
    {"contiguous", TridiagLayout::Contiguous},
    {"interleaved", TridiagLayout::Interleaved},
}};

}  // namespace

const char* to_string(TridiagAlgo a) { return enum_name(a, kTridiag); }
TridiagAlgo parse_tridiag_algo(std::string_view s) { return parse_enum(s, kTridiag, "tridiagonal algorithm"); }
std::vector<TridiagAlgo> tridiag_algos() {
  return {TridiagAlgo::Thomas, TridiagAlgo::CR, TridiagAlgo::PCR, TridiagAlgo::CrPcr, TridiagAlgo::PcrThomas};
}
const char* to_string(TridiagLayout l) { return enum_name(l, kLayouts); }
TridiagLayout parse_tridiag_layout(std::string_view s) { return parse_enum(s, kLayouts, "tridiagonal layout"); }

TridiagKernels Backend::tridiag() { return TridiagKernels(*this, tridiag_impl()); }

void TridiagImpl::vendor_solve(const TridiagArgs&) { throw BackendError("this backend has no vendor tridiagonal solver"); }

void TridiagKernels::check(const TridiagArgs& a, const char* what) const {
  check_precision(be_, a.prec, what);
  if (!a.a || !a.b || !a.c || !a.d || !a.x) throw BackendError(std::string(what) + ": missing buffer");
  if (a.n != 0 && a.batch > std::numeric_limits<std::size_t>::max() / 8 / a.n)
    throw BackendError(std::string(what) + ": n * batch is too large");
  const std::size_t values = a.n * a.batch;
  for (const Buffer* b : {a.a, a.b, a.c, a.d}) {
    check_values(b, values, a.prec, what);
    if (b == a.x) throw BackendError(std::string(what) + ": x must not be one of the inputs");
  }
  check_values(a.x, values, a.prec, what);
  if (a.guard) check_control_block(a.guard, what);
  if (a.add) {
    check_values(a.add, values, a.prec, what, "add");
    if (a.add == a.x) throw BackendError(std::string(what) + ": add must not be x");
  }
}

void TridiagKernels::solve(const TridiagArgs& a) {
  check(a, "tridiag solve");
  if (a.n == 0 || a.batch == 0) return;
  TridiagArgs t = a;
  if (t.algo == TridiagAlgo::Auto) t.algo = impl_.resolve_auto(a);
  impl_.solve(t);
}

TridiagAlgo TridiagKernels::resolve(const TridiagArgs& a) const {
  return a.algo == TridiagAlgo::Auto ? impl_.resolve_auto(a) : a.algo;
}

void TridiagKernels::vendor_solve(const TridiagArgs& a) {
  if (impl_.vendor_name(a.layout).empty())
    throw BackendError("the " + be_.name() + " backend has no vendor tridiagonal solver for the " +
                       to_string(a.layout) + " layout");
  check(a, "vendor tridiag solve");
  if (a.guard || a.add) throw BackendError("vendor tridiag solve: a vendor solver takes no guard and no add");
  if (a.n == 0 || a.batch == 0) return;
  impl_.vendor_solve(a);
}

}  // namespace poreflow
