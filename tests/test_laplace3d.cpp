// The laplace3d family: the box loop of every backend in every launch shape, odd sizes, halo widths 1
// and 2, boxes inside larger arrays with their own pitches; cells outside the box are never written.
#include <array>
#include <cmath>
#include <vector>

#include "core/kernels/laplace3d.hpp"
#include "tests/harness.hpp"

using namespace poreflow;
using namespace poreflow::test;

namespace {

const double kMarker = -777.0;

struct Arrays {
  Box3 in, out;
  std::size_t in_values, out_values;
};

std::vector<Arrays> layouts() {
  std::vector<Arrays> v;
  for (long h : {1L, 2L})
    // 41 x 37 x 9 is past the omp threshold (8192 cells: the loop runs in parallel)
    for (auto [nx, ny, nz] : {std::array<long, 3>{17, 9, 5}, {33, 31, 7}, {65, 3, 2}, {1, 1, 1}, {41, 37, 9}}) {
      const Box3 a = Box3::standalone(nx, ny, nz, h);
      // out: inside a larger array, a different offset and pitches
      const long ax = nx + 9, ay = ny + 4, az = nz + 3;
      const Box3 b = Box3::inside(nx, ny, nz, 1, ax, ay, az, 3, 2, 1);
      v.push_back({a, b, a.extent(), static_cast<std::size_t>(ax * ay * az)});
      // in inside a larger array too
      const Box3 c = Box3::inside(nx, ny, nz, h, nx + 2 * h + 3, ny + 2 * h + 1, nz + 2 * h + 2, h + 1, h, h + 2);
      v.push_back({c, Box3::standalone(nx, ny, nz, 0),
                   static_cast<std::size_t>((nx + 2 * h + 3) * (ny + 2 * h + 1) * (nz + 2 * h + 2)),
                   static_cast<std::size_t>(nx * ny * nz)});
    }
  return v;
}

}  // namespace

TEST_CASE("box3: views, extents and launch shapes") {
  const Box3 b = Box3::standalone(4, 3, 2, 1);
  CHECK(b.sy == 6);
  CHECK(b.sz == 30);
  CHECK(b.at(-1, -1, -1) == 0);
  CHECK(b.extent() == 6u * 5 * 4);
  CHECK(to_string(parse_box_shape("march:32x8")) == "march:32x8");
  CHECK(parse_box_shape("3d:8x8x8").threads() == 512);
  CHECK_THROWS_AS(parse_box_shape("3d:16x16x16"), ConfigError);  // 4096 threads
  CHECK_THROWS_AS(parse_box_shape("march:32"), ConfigError);
  CHECK_THROWS_AS(parse_box_shape("tiles:8x8"), ConfigError);
  CHECK_THROWS_AS(Box3::inside(4, 4, 4, 1, 5, 6, 6, 1, 1, 1), BackendError);  // the halo leaves the array
}

TEST_SUITE("backend") {

TEST_CASE_TEMPLATE("laplace3d: every launch shape against the double reference", T, float, double) {
  for_each_backend([](Backend& be) {
    for (const auto& L : layouts()) {
      auto in = random_vector<double>(L.in_values, -1, 1);
      const double cx = 1.7, cy = 0.4, cz = 2.3;
      // the reference from the formula, cell by cell
      std::vector<double> want(L.out_values, kMarker);
      const Box3& bi = L.in;
      for (long k = 0; k < bi.nz; ++k)
        for (long j = 0; j < bi.ny; ++j)
          for (long i = 0; i < bi.nx; ++i) {
            auto v = [&](long a, long b, long c) { return double(T(in[bi.at(a, b, c)])); };
            const double c0 = v(i, j, k);
            want[L.out.at(i, j, k)] = cx * (v(i - 1, j, k) - 2 * c0 + v(i + 1, j, k)) +
                                      cy * (v(i, j - 1, k) - 2 * c0 + v(i, j + 1, k)) +
                                      cz * (v(i, j, k - 1) - 2 * c0 + v(i, j, k + 1));
          }
      for (const char* shape : {"march:32x8", "march:16x16", "march:32x16", "march:7x3", "3d:8x8x8", "3d:16x16x1",
                                "3d:32x4x2"}) {
        auto fin = make_field(be, convert<T>(in));
        auto fout = make_field(be, convert<T>(std::vector<double>(L.out_values, kMarker)));
        be.laplace3d().apply({precision_of<T>(), L.in, &fin.buffer(), L.out, &fout.buffer(), cx, cy, cz,
                              parse_box_shape(shape)});
        auto got = convert<double>(fout.download());
        CAPTURE(L.in.describe());
        CAPTURE(L.out.describe());
        CAPTURE(shape);
        // every cell outside the out box untouched, every one inside written
        CHECK(max_rel_diff(got, want, 1.0) <= 20 * tol<T>());
      }
    }
  });
}

}  // TEST_SUITE
