// The one argument check of every family (core/kernels/<family>.cpp): the same bad arguments give the
// same error type on every backend, before anything reaches a device.
#include <string>

#include "core/base/error.hpp"
#include "core/kernels/adi2d.hpp"
#include "core/kernels/bl1d.hpp"
#include "core/kernels/blas.hpp"
#include "core/kernels/control.hpp"
#include "core/kernels/halo3d.hpp"
#include "core/kernels/jacobi1d.hpp"
#include "core/kernels/laplace3d.hpp"
#include "core/kernels/reduce.hpp"
#include "core/kernels/sor3d.hpp"
#include "core/kernels/tridiag.hpp"
#include "tests/harness.hpp"

using namespace poreflow;
using namespace poreflow::test;

TEST_SUITE("backend") {

TEST_CASE("arguments: jacobi1d checks check_every, sizes and the control block the same way everywhere") {
  for_each_backend([](Backend& be) {
    const std::size_t n = 100;
    Field<double> p0(be, n), p1(be, n), mf(be, n - 1), small(be, n - 2);
    auto ctrl = be.alloc(kControlBytes);
    auto tiny = be.alloc(8);
    Jacobi1DArgs a;
    a.n = n;
    a.mface = &mf.buffer();
    a.p[0] = &p0.buffer();
    a.p[1] = &p1.buffer();
    a.reduce = {be.reduce().default_variant()};
    a.ctrl = ctrl.get();
    auto jac = be.jacobi1d();
    a.check_every = 0;
    CHECK_THROWS_WITH_AS(jac.iterate(a, 0, 5), doctest::Contains("check_every"), ConfigError);
    a.check_every = -3;
    CHECK_THROWS_AS(jac.iterate(a, 0, 5), ConfigError);
    a.check_every = 1;
    a.mface = &small.buffer();
    CHECK_THROWS_WITH_AS(jac.iterate(a, 0, 5), doctest::Contains("mface"), BackendError);
    a.mface = &mf.buffer();
    a.ctrl = tiny.get();
    CHECK_THROWS_WITH_AS(jac.iterate(a, 0, 5), doctest::Contains("ctrl"), BackendError);
    a.ctrl = ctrl.get();
    a.n = 2;
    CHECK_THROWS_WITH_AS(jac.iterate(a, 0, 5), doctest::Contains("at least 3"), BackendError);
    a.n = n;
    a.p[1] = a.p[0];
    CHECK_THROWS_AS(jac.iterate(a, 0, 5), BackendError);
    a.p[1] = &p1.buffer();
    a.reduce.variant = ReduceVariant::Serial == be.reduce().default_variant() ? ReduceVariant::Fast : ReduceVariant::Serial;
    CHECK_THROWS_WITH_AS(jac.iterate(a, 0, 5), doctest::Contains("not available"), ConfigError);
  });
}

TEST_CASE("arguments: sor3d checks omega, the layout, the shape and the design") {
  for_each_backend([](Backend& be) {
    const Box3 box = Box3::standalone(9, 5, 3, 1), flat = Box3::standalone(9, 5, 3, 0);
    Field<double> p(be, box.extent()), coef(be, sor3d_coef_values(box)), small(be, sor3d_coef_values(box) - 1);
    auto ctrl = be.alloc(kControlBytes);
    Sor3DArgs a;
    a.box = box;
    a.p = &p.buffer();
    a.coef = &coef.buffer();
    a.ctrl = ctrl.get();
    a.shape = parse_box_shape("march:32x8");
    auto sor = be.sor3d();
    for (double w : {0.0, 2.0, -1.0}) {
      a.omega = w;
      CHECK_THROWS_WITH_AS(sor.iterate(a, 0, 1), doctest::Contains("relaxation"), ConfigError);
    }
    a.omega = 1.5;
    a.coef = &small.buffer();
    CHECK_THROWS_WITH_AS(sor.iterate(a, 0, 1), doctest::Contains("coef"), BackendError);
    a.coef = &coef.buffer();
    a.box = flat;
    CHECK_THROWS_WITH_AS(sor.iterate(a, 0, 1), doctest::Contains("halo"), BackendError);
    a.box = box;
    a.shape = parse_box_shape("march:7x3");
    CHECK_THROWS_WITH_AS(sor.iterate(a, 0, 1), doctest::Contains("multiple of 32"), ConfigError);
    a.shape = parse_box_shape("3d:8x8x8");
    a.design = SorDesign::Tiled;
    CHECK_THROWS_WITH_AS(sor.iterate(a, 0, 1), doctest::Contains("tiled design needs a march"), ConfigError);
    a.design = SorDesign::Simple;
    a.check_every = 0;
    CHECK_THROWS_AS(sor.iterate(a, 0, 1), ConfigError);
    CHECK_THROWS_WITH_AS(parse_sor_design("blocked"), doctest::Contains("blocked"), ConfigError);
  });
}

TEST_CASE("arguments: buffers too small for the sizes are refused by every family") {
  for_each_backend([](Backend& be) {
    const std::size_t n = 1000;
    Field<double> x(be, n), y(be, n), z(be, n - 1), w(be, n);
    CHECK_THROWS_WITH_AS(be.blas().axpy({Precision::Double, n, 1.0, &z.buffer(), &y.buffer()}), doctest::Contains("axpy x"),
                         BackendError);
    CHECK_THROWS_AS(be.blas().axpy({Precision::Double, n, 1.0, &x.buffer(), &x.buffer()}), BackendError);
    ReduceArgs r{Precision::Double, ReduceOp::MaxAbsDiff, {be.reduce().default_variant()}, &x.buffer(), nullptr, n};
    CHECK_THROWS_WITH_AS(be.reduce().run(r), doctest::Contains("two inputs"), BackendError);
    r.b = &z.buffer();
    CHECK_THROWS_AS(be.reduce().run(r), BackendError);
    CHECK_THROWS_WITH_AS(be.bl1d().face_mobility({Precision::Double, n, &z.buffer(), &x.buffer(), {}}), doctest::Contains(" s"),
                         BackendError);
  });
}

TEST_CASE("arguments: bl1d, tridiag, adi2d and the box families") {
  for_each_backend([](Backend& be) {
    const std::size_t n = 64;
    Field<double> a(be, n), b(be, n), c(be, n), d(be, n), x(be, n), s(be, n - 2);
    // bl1d
    CHECK_THROWS_WITH_AS(be.bl1d().saturation({Precision::Double, 1, &a.buffer(), &s.buffer(), &b.buffer(), 0, 1, {}}),
                         doctest::Contains("at least 2"), BackendError);
    CHECK_THROWS_WITH_AS(be.bl1d().face_velocity({Precision::Double, n, &a.buffer(), &s.buffer(), &b.buffer()}),
                         doctest::Contains("mface"), BackendError);
    CHECK_THROWS_AS(be.bl1d().saturation({Precision::Double, n, &a.buffer(), &b.buffer(), &a.buffer(), 0, 1, {}}), BackendError);
    // tridiag: x aliasing an input, a system larger than the buffers
    CHECK_THROWS_WITH_AS(be.tridiag().solve({Precision::Double, TridiagAlgo::Auto, TridiagLayout::Contiguous, 8, 8,
                                             &a.buffer(), &b.buffer(), &c.buffer(), &d.buffer(), &a.buffer()}),
                         doctest::Contains("x must not"), BackendError);
    CHECK_THROWS_AS(be.tridiag().solve({Precision::Double, TridiagAlgo::Auto, TridiagLayout::Contiguous, 9, 8, &a.buffer(),
                                        &b.buffer(), &c.buffer(), &d.buffer(), &x.buffer()}),
                    BackendError);
    // adi2d: node arrays of the wrong size, check slots outside the ring
    Adi2DSweepArgs sw{Precision::Double, {8, 8, 0.1}, true, 0.5, &a.buffer(), &a.buffer(), &a.buffer(), &a.buffer(),
                      &a.buffer(), &a.buffer(), &a.buffer(), &b.buffer(), &c.buffer(), &d.buffer(), &x.buffer(), {}};
    auto ctrl = be.alloc(kControlBytes);
    sw.ctl = {ctrl.get(), 3, 0};
    CHECK_THROWS_WITH_AS(be.adi2d().sweep(sw), doctest::Contains("ring"), BackendError);
    sw.ctl = {};
    sw.g = {9, 8, 0.1};
    CHECK_THROWS_AS(be.adi2d().sweep(sw), BackendError);
    // boxes: a pitch too short for the halo, a mode that needs more cells than the halo
    Box3 box = Box3::standalone(2, 2, 2, 1);
    Field<double> f(be, box.extent());
    Halo3DFillArgs h;
    h.box = box;
    h.field = &f.buffer();
    h.box.sy = 3;
    CHECK_THROWS_WITH_AS(be.halo3d().fill(h), doctest::Contains("pitch"), BackendError);
    h.box = Box3::standalone(1, 4, 4, 2);
    Field<double> g(be, h.box.extent());
    h.field = &g.buffer();
    h.face[0].mode = HaloMode::Periodic;
    CHECK_THROWS_WITH_AS(be.halo3d().fill(h), doctest::Contains("periodic"), BackendError);
    // pack and unpack: a direction out of range, a buffer too small, fewer cells than the halo
    Halo3DPackArgs pk;
    pk.box = Box3::standalone(5, 4, 3, 2);
    Field<double> pf(be, pk.box.extent()), pb(be, 2 * Halo3DPackArgs::face_values(pk.box, 0) - 1);
    pk.field = &pf.buffer();
    pk.buf = &pb.buffer();
    pk.dir = 3;
    CHECK_THROWS_WITH_AS(be.halo3d().pack(pk), doctest::Contains("direction 3"), BackendError);
    pk.dir = 0;
    CHECK_THROWS_WITH_AS(be.halo3d().pack(pk), doctest::Contains("buffer"), BackendError);
    pk.box = Box3::standalone(1, 4, 3, 2);
    CHECK_THROWS_WITH_AS(be.halo3d().pack(pk), doctest::Contains("fewer than the halo"), BackendError);
    pk.box = Box3::standalone(5, 4, 3, 2);
    pk.block = 3;
    CHECK_THROWS_WITH_AS(be.halo3d().pack(pk), doctest::Contains("3 values a cell"), BackendError);
    pk.block = 2;  // a field of one value a cell is too small for two
    CHECK_THROWS_WITH_AS(be.halo3d().pack(pk), doctest::Contains("the field"), BackendError);
    Laplace3DApplyArgs l{Precision::Double, Box3::standalone(2, 2, 2, 0), &f.buffer(), box, &g.buffer(), 1, 1, 1, {}};
    CHECK_THROWS_WITH_AS(be.laplace3d().apply(l), doctest::Contains("halo"), BackendError);
  });
}

}  // TEST_SUITE
