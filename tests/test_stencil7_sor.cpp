// stencil7 from_sor on every backend: a 7-point operator's rows from sor3d's colour-packed
// coefficients, against core/physics/stencil7_sor.h in double on the host; entries outside the
// box's cells are left alone, and the couplings across the box's edge kept.
#include <vector>

#include "core/kernels/sor3d.hpp"
#include "core/kernels/stencil7.hpp"
#include "core/physics/stencil7_sor.h"
#include "tests/harness.hpp"

using namespace poreflow;
using namespace poreflow::test;

namespace {
double scale_or_1(double s) { return s > 0 ? s : 1.0; }
}  // namespace

TEST_SUITE("backend") {

TEST_CASE_TEMPLATE("stencil7: from_sor gives the rows of sor3d's system, scaled per row", T, float, double) {
  for_each_backend([](Backend& be) {
    if (!be.supports(precision_of<T>())) return;
    const Box3 box = Box3::standalone(37, 11, 7, 1);  // odd nx: colour rows of unequal length
    const std::size_t E = box.extent();
    const auto rb = random_vector<double>(sor3d_coef_values(box), 0.1, 2);
    auto scale = random_vector<double>(E, 0.5, 4);
    for (std::size_t l = 0; l < E; l += 13) scale[l] = 0;  // no scale there: the row as it is
    std::vector<double> coef(7 * E, -7.0), b(E, -7.0);     // the poison stays outside the cells
    const pf_box3 v = box.view();
    for (long c = 0; c < box.cells(); ++c)
      phys::pf_s7_from_sor_cell<double>(v, c, rb.data(), scale.data(), coef.data(), b.data(), static_cast<long>(E));
    auto d_rb = make_field(be, convert<T>(rb)), d_scale = make_field(be, convert<T>(scale));
    Field<T> d_coef(be, 7 * E), d_b(be, E);
    d_coef.fill(T(-7));
    d_b.fill(T(-7));
    be.stencil7().from_sor({precision_of<T>(), box, &d_rb.buffer(), &d_scale.buffer(), &d_coef.buffer(), &d_b.buffer()});
    CHECK(max_rel_diff(convert<double>(d_coef.download()), coef) <= tol<T>());
    CHECK(max_rel_diff(convert<double>(d_b.download()), b) <= tol<T>());
    // a boundary cell's outward coefficient is sor3d's, kept for a decomposed operator's ghost
    // (a model writes 0 there at the grid's edge)
    const long L = box.at(0, 5, 3), q = phys::pf_rb_of(v, 0, 5, 3), m2 = 2 * phys::pf_rb_m(v);
    CHECK(coef[1 * E + L] == -scale_or_1(scale[L]) * rb[q + PF_SOR_W * m2]);
    CHECK(coef[1 * E + L] != 0);
  });
}

}  // TEST_SUITE
