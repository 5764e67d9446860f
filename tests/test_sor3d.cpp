// The sor3d family: red-black SOR sweeps of every design and launch shape against the serial double
// reference on boxes that are no multiple of any block, inside larger arrays whose cells outside the
// box and its halo are NaN (a stray read or write shows), with inactive cells; the fused
// convergence decision (exact iteration counts whatever the batches, check_every, NaN stops).
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "core/kernels/sor3d.hpp"
#include "core/physics/sor3d.h"
#include "tests/harness.hpp"

using namespace poreflow;
using namespace poreflow::test;

namespace {


// A random diagonally dominant 7-point system on a box inside a larger array, with about a tenth of
// the cells inactive (rows D = 1, R = the cell's value, no coupling either way).
struct System {
  Box3 box;
  std::size_t values = 0;  // of p's array
  std::vector<double> p0;  // p's array: NaN outside the box and its halo, finite halo
  std::vector<double> coef;
};

System make_system(long nx, long ny, long nz, double inactive_share = 0.1) {
  System s;
  const long ax = nx + 5, ay = ny + 3, az = nz + 4;
  s.box = Box3::inside(nx, ny, nz, 1, ax, ay, az, 2, 1, 2);
  s.values = static_cast<std::size_t>(ax * ay * az);
  s.p0.assign(s.values, kNaN);
  const Box3& b = s.box;
  auto u = random_vector<double>(s.values, 0, 1);
  for (long k = -1; k <= nz; ++k)
    for (long j = -1; j <= ny; ++j)
      for (long i = -1; i <= nx; ++i) s.p0[b.at(i, j, k)] = 10 * u[b.at(i, j, k)] - 5;
  const pf_box3 v = b.view();
  const long m2 = 2 * phys::pf_rb_m(v);
  s.coef.assign(sor3d_coef_values(b), kNaN);  // the unused slots of odd rows stay NaN: never read
  auto active = [&](long i, long j, long k) {
    if (i < 0 || j < 0 || k < 0 || i >= nx || j >= ny || k >= nz) return false;
    return u[b.at(i, j, k)] >= inactive_share;
  };
  const long di[6] = {-1, 1, 0, 0, 0, 0}, dj[6] = {0, 0, -1, 1, 0, 0}, dk[6] = {0, 0, 0, 0, -1, 1};
  for (long k = 0; k < nz; ++k)
    for (long j = 0; j < ny; ++j)
      for (long i = 0; i < nx; ++i) {
        const long q = phys::pf_rb_of(v, i, j, k);
        if (!active(i, j, k)) {
          for (int f = 0; f < 6; ++f) s.coef[q + f * m2] = 0;
          s.coef[q + PF_SOR_D * m2] = 1;
          s.coef[q + PF_SOR_R * m2] = s.p0[b.at(i, j, k)];
          continue;
        }
        auto r = random_vector<double>(8, 0, 1);
        double sum = 0;
        for (int f = 0; f < 6; ++f) {
          // the vertical couplings stronger, as in layered reservoirs
          const double t = active(i + di[f], j + dj[f], k + dk[f]) ? (0.1 + r[f]) * (f >= 4 ? 5.0 : 1.0) : 0.0;
          s.coef[q + f * m2] = t;
          sum += t;
        }
        s.coef[q + PF_SOR_D * m2] = sum + 0.02 + 0.2 * r[6];  // some compressibility: never singular
        s.coef[q + PF_SOR_R * m2] = 4 * r[7] - 2;
      }
  return s;
}

struct SorRun {
  std::vector<double> p;
  FusedStatus st;
};

template <class T>
SorRun run_sor(Backend& be, const System& s, SorDesign design, const char* shape, double omega, double threshold,
               int check_every, long iters, long batch, int lanes = 0) {
  auto p = make_field(be, convert<T>(s.p0));
  auto coef = make_field(be, convert<T>(s.coef));
  auto ctrl = be.alloc(kControlBytes);
  Field<T> scratch(be, 3 * s.box.extent());
  scratch.fill(T(kNaN));  // every factor is written before it is read
  Sor3DArgs a;
  a.prec = precision_of<T>();
  a.box = s.box;
  a.p = &p.buffer();
  a.coef = &coef.buffer();
  a.omega = omega;
  a.threshold = threshold;
  a.check_every = check_every;
  a.design = design;
  a.shape = parse_box_shape(shape);
  a.ctrl = ctrl.get();
  a.scratch = &scratch.buffer();
  a.zline_lanes = lanes;
  auto sor = be.sor3d();
  sor.reset(a);
  SorRun r;
  long done = 0;
  while (done < iters) {
    const long c = std::min(batch, iters - done);
    sor.iterate(a, done, c);
    done += c;
    r.st = sor.status(a, done);
    if (r.st.converged || r.st.non_finite) break;
  }
  r.p = convert<double>(p.download());
  return r;
}

// max |R - A p| over the active rows, computed here from the formula (checks the reference too)
double host_residual(const System& s, const std::vector<double>& p) {
  const Box3& b = s.box;
  const pf_box3 v = b.view();
  const long m2 = 2 * phys::pf_rb_m(v);
  double worst = 0;
  for (long k = 0; k < b.nz; ++k)
    for (long j = 0; j < b.ny; ++j)
      for (long i = 0; i < b.nx; ++i) {
        const long q = phys::pf_rb_of(v, i, j, k), at = b.at(i, j, k);
        auto c = [&](int f) { return s.coef[q + f * m2]; };
        const double r = c(PF_SOR_R) - c(PF_SOR_D) * p[at] + c(PF_SOR_W) * p[at - 1] + c(PF_SOR_E) * p[at + 1] +
                         c(PF_SOR_S) * p[at - b.sy] + c(PF_SOR_N) * p[at + b.sy] + c(PF_SOR_B) * p[at - b.sz] +
                         c(PF_SOR_T) * p[at + b.sz];
        worst = std::max(worst, std::fabs(r));
      }
  return worst;
}

// the array outside the box and its halo is still NaN, everything inside finite
bool untouched_outside(const System& s, const std::vector<double>& p) {
  std::vector<char> inside(s.values, 0);
  const Box3& b = s.box;
  for (long k = -1; k <= b.nz; ++k)
    for (long j = -1; j <= b.ny; ++j)
      for (long i = -1; i <= b.nx; ++i) inside[b.at(i, j, k)] = 1;
  for (std::size_t x = 0; x < s.values; ++x)
    if (inside[x] ? !std::isfinite(p[x]) : !std::isnan(p[x])) return false;
  return true;
}

// the box's cells of an array
std::vector<double> cells_of(const System& s, const std::vector<double>& p) {
  std::vector<double> v;
  const Box3& b = s.box;
  for (long k = 0; k < b.nz; ++k)
    for (long j = 0; j < b.ny; ++j)
      for (long i = 0; i < b.nx; ++i) v.push_back(p[b.at(i, j, k)]);
  return v;
}

struct Variant {
  SorDesign design;
  const char* shape;
  int lanes = 0;  // zline on cuda: a thread (1) or a warp (32) per column, or the automatic choice
};
const Variant kVariants[] = {{SorDesign::Simple, "3d:32x4x2"}, {SorDesign::Simple, "march:32x8"},
                             {SorDesign::Simple, "3d:8x8x8"},  {SorDesign::Tiled, "march:16x16"},
                             {SorDesign::Tiled, "march:32x8"}, {SorDesign::Tiled, "march:32x16"},
                             {SorDesign::Tiled, "march:32x3"},  {SorDesign::Zline, "march:32x4"},
                             {SorDesign::Zline, "march:64x1", 1}, {SorDesign::Zline, "march:32x4", 32}};

// the point designs iterate alike; zline is its own method
SorDesign family_of(SorDesign d) { return d == SorDesign::Zline ? SorDesign::Zline : SorDesign::Simple; }

}  // namespace

TEST_CASE("sor3d: the red-black layout") {
  const pf_box3 b = Box3::standalone(5, 3, 2, 1).view();
  CHECK(phys::pf_rb_hx(b) == 3);
  CHECK(phys::pf_rb_m(b) == 18);
  // every cell has one slot, the two colours apart, rows contiguous
  std::vector<int> seen(2 * 18, 0);
  for (long k = 0; k < 2; ++k)
    for (long j = 0; j < 3; ++j)
      for (long i = 0; i < 5; ++i) {
        const long q = phys::pf_rb_of(b, i, j, k);
        REQUIRE(q >= 0);
        REQUIRE(q < 36);
        CHECK((q >= 18) == (((i + j + k) & 1) == 1));
        ++seen[q];
        const int c = phys::pf_rb_colour(i, j, k);
        CHECK(2 * (i >> 1) + phys::pf_rb_shift(c, j, k) == i);
      }
  int used = 0;
  for (int x : seen) {
    CHECK(x <= 1);
    used += x;
  }
  CHECK(used == 30);
}

TEST_SUITE("backend") {

TEST_CASE_TEMPLATE("sor3d: fixed iterations match the reference, every design and shape", T, float, double) {
  for (auto [nx, ny, nz] : {std::array<long, 3>{17, 9, 5}, {33, 31, 7}, {41, 37, 9}, {1, 1, 1}, {2, 1, 3}}) {
    const System s = make_system(nx, ny, nz);
    const auto ref_point = run_sor<double>(reference(), s, SorDesign::Simple, "3d:32x4x2", 1.5, 0.0, 1, 12, 12);
    const auto ref_line = run_sor<double>(reference(), s, SorDesign::Zline, "march:32x4", 1.5, 0.0, 1, 12, 12);
    REQUIRE(ref_point.st.iterations == 12);
    REQUIRE(untouched_outside(s, ref_point.p));
    REQUIRE(untouched_outside(s, ref_line.p));
    for_each_backend([&](Backend& be) {
      for (const auto& v : kVariants) {
        const auto& ref = family_of(v.design) == SorDesign::Zline ? ref_line : ref_point;
        CAPTURE(s.box.describe());
        INFO("design ", std::string(to_string(v.design)), " shape ", std::string(v.shape), " lanes ", v.lanes);
        for (int check_every : {1, 5}) {
          CAPTURE(check_every);
          const auto got = run_sor<T>(be, s, v.design, v.shape, 1.5, 0.0, check_every, 12, 5, v.lanes);
          CHECK(got.st.iterations == 12);
          CHECK_FALSE(got.st.converged);
          CHECK(untouched_outside(s, got.p));
          CHECK(max_rel_diff(cells_of(s, got.p), cells_of(s, ref.p)) <= 50 * tol<T>());
        }
      }
    });
  }
}

TEST_CASE_TEMPLATE("sor3d: converges on the device to the threshold, iteration counts exact", T, float, double) {
  const System s = make_system(33, 31, 7);
  const double r0 = host_residual(s, s.p0);
  const double thr = r0 * (sizeof(T) == 4 ? 1e-4 : 1e-9);
  const auto ref_point = run_sor<double>(reference(), s, SorDesign::Simple, "3d:32x4x2", 1.3, thr, 1, 500, 500);
  const auto ref_line = run_sor<double>(reference(), s, SorDesign::Zline, "march:32x4", 1.3, thr, 1, 500, 500);
  for (const auto* ref : {&ref_point, &ref_line}) {
    REQUIRE(ref->st.converged);
    REQUIRE(ref->st.last_metric < thr);
    // the reference's answer solves the system (its residual is its last check's, or smaller)
    CHECK(host_residual(s, ref->p) <= thr);
  }
  CHECK(ref_line.st.iterations < ref_point.st.iterations);  // the lines solve the strong coupling (z) at once
  for_each_backend([&](Backend& be) {
    for (const auto& v : kVariants) {
      const auto& ref = family_of(v.design) == SorDesign::Zline ? ref_line : ref_point;
      INFO("design ", std::string(to_string(v.design)), " shape ", std::string(v.shape));
      for (long batch : {1L, 7L, 1000L}) {
        CAPTURE(batch);
        const auto got = run_sor<T>(be, s, v.design, v.shape, 1.3, thr, 1, 500, batch, v.lanes);
        CHECK(got.st.converged);
        CHECK(got.st.last_metric < thr);
        if (sizeof(T) == 8) CHECK(got.st.iterations == ref.st.iterations);
        else CHECK(std::abs(got.st.iterations - ref.st.iterations) <= 2);
        CHECK(max_rel_diff(cells_of(s, got.p), cells_of(s, ref.p)) <= 100 * tol<T>() + thr);
      }
      // checks every 4 iterations: it stops at the first check past the reference's count
      const auto every4 = run_sor<T>(be, s, v.design, v.shape, 1.3, thr, 4, 500, 9, v.lanes);
      CHECK(every4.st.converged);
      CHECK(every4.st.iterations % 4 == 0);
      if (sizeof(T) == 8) CHECK(every4.st.iterations == (ref.st.iterations + 3) / 4 * 4);
    }
  });
}

TEST_CASE_TEMPLATE("sor3d: a NaN in the system stops the iteration", T, float, double) {
  System s = make_system(17, 9, 5, 0.0);
  const pf_box3 v = s.box.view();
  s.coef[phys::pf_rb_of(v, 8, 4, 2) + PF_SOR_R * 2 * phys::pf_rb_m(v)] = kNaN;
  for_each_backend([&](Backend& be) {
    for (const auto& v2 : kVariants) {
      INFO("design ", std::string(to_string(v2.design)), " shape ", std::string(v2.shape));
      const auto got = run_sor<T>(be, s, v2.design, v2.shape, 1.2, 1e-30, 1, 50, 10, v2.lanes);
      CHECK(got.st.non_finite);
      CHECK_FALSE(got.st.converged);
      CHECK(got.st.iterations == 1);  // the check of iteration 0 saw it; iteration 1's red sweep stopped
    }
  });
}

TEST_CASE_TEMPLATE("sor3d: the vendor sparse product applies the same operator", T, float, double) {
  const System s = make_system(33, 31, 7);
  const Box3& b = s.box;
  const pf_box3 v = b.view();
  const long m2 = 2 * phys::pf_rb_m(v), n = b.cells();
  auto x = random_vector<double>(static_cast<std::size_t>(n), -1, 1);
  std::vector<double> want(static_cast<std::size_t>(n));
  for (long k = 0; k < b.nz; ++k)
    for (long j = 0; j < b.ny; ++j)
      for (long i = 0; i < b.nx; ++i) {
        const long r = i + b.nx * (j + b.ny * k), q = phys::pf_rb_of(v, i, j, k);
        auto c = [&](int f) { return double(T(s.coef[q + f * m2])); };
        auto xs = [&](long di, long dj, long dk, bool has) {
          return has ? double(T(x[(i + di) + b.nx * ((j + dj) + b.ny * (k + dk))])) : 0.0;
        };
        want[r] = c(PF_SOR_D) * double(T(x[r])) - c(PF_SOR_W) * xs(-1, 0, 0, i > 0) - c(PF_SOR_E) * xs(1, 0, 0, i + 1 < b.nx) -
                  c(PF_SOR_S) * xs(0, -1, 0, j > 0) - c(PF_SOR_N) * xs(0, 1, 0, j + 1 < b.ny) -
                  c(PF_SOR_B) * xs(0, 0, -1, k > 0) - c(PF_SOR_T) * xs(0, 0, 1, k + 1 < b.nz);
      }
  for_each_backend([&](Backend& be) {
    if (be.sor3d().vendor_name().empty()) return;
    auto coef = make_field(be, convert<T>(s.coef));
    auto fx = make_field(be, convert<T>(x));
    Field<T> fy(be, static_cast<std::size_t>(n));
    fy.fill(T(kNaN));
    Sor3DArgs a;
    a.prec = precision_of<T>();
    a.box = b;
    a.coef = &coef.buffer();
    be.sor3d().vendor_spmv(a, fx.buffer(), fy.buffer());
    CHECK(max_rel_diff(convert<double>(fy.download()), want) <= 50 * tol<T>());
    CHECK(be.sor3d().vendor_bytes(a) > 0);
  });
}

}  // TEST_SUITE
