// The halo3d family: every face mode, halo widths 1 and 2, odd sizes, boxes alone and inside larger
// arrays, against an independent statement of the modes; then every backend against serial.
#include <array>
#include <cmath>
#include <vector>

#include "core/kernels/halo3d.hpp"
#include "tests/harness.hpp"

using namespace poreflow;
using namespace poreflow::test;

namespace {

const double kOutside = 12345.0;  // the array outside the box and its halo: never written

struct Case {
  Box3 box;
  std::size_t values;  // the array's size
};

// boxes of odd sizes, alone and inside larger arrays (extra room on every side)
std::vector<Case> cases() {
  std::vector<Case> out;
  for (long h : {1L, 2L}) {
    // the last one's passes are past the omp threshold (8192 ghost cells: the loops run in parallel)
    for (auto [nx, ny, nz] : {std::array<long, 3>{7, 5, 3}, {33, 9, 17}, {2, 3, 4}, {97, 65, 9}}) {
      if (nx < h || ny < h || nz < h) continue;
      const Box3 alone = Box3::standalone(nx, ny, nz, h);
      out.push_back({alone, alone.extent()});
      const long ax = nx + 2 * h + 5, ay = ny + 2 * h + 3, az = nz + 2 * h + 2;
      const Box3 in = Box3::inside(nx, ny, nz, h, ax, ay, az, h + 2, h + 1, h + 1);
      out.push_back({in, static_cast<std::size_t>(ax * ay * az)});
    }
  }
  return out;
}

// The modes as the documentation of core/physics/halo3d.h states them, one direction at a time.
double expect_ghost(HaloMode m, double value, const std::vector<double>& f, const Box3& b, int dir, long i, long j,
                    long k) {
  long c[3] = {i, j, k};
  const long n = dir == 0 ? b.nx : dir == 1 ? b.ny : b.nz;
  const long x = c[dir];
  const bool hi = x >= n;
  const long g = hi ? x - n : -1 - x;
  long src = 0;
  switch (m) {
    case HaloMode::Value: return value;
    case HaloMode::Copy: src = hi ? n - 1 : 0; break;
    case HaloMode::Mirror:
    case HaloMode::Negate: src = hi ? n - 1 - g : g; break;
    case HaloMode::Periodic: src = hi ? g : n - 1 - g; break;
    case HaloMode::None: return f[b.at(i, j, k)];
  }
  c[dir] = src;
  const double v = f[b.at(c[0], c[1], c[2])];
  return m == HaloMode::Negate ? -v : v;
}

std::vector<double> reference_fill(std::vector<double> f, const Box3& b, const std::array<HaloFace, 6>& face) {
  const long h = b.halo;
  for (int dir = 0; dir < 3; ++dir) {
    // the extent this pass covers: the interior in later directions, the halo in earlier ones
    long lo[3], hi[3];
    for (int d = 0; d < 3; ++d) {
      const long n = d == 0 ? b.nx : d == 1 ? b.ny : b.nz;
      lo[d] = d < dir ? -h : 0;
      hi[d] = d < dir ? n + h : n;
    }
    const long n = dir == 0 ? b.nx : dir == 1 ? b.ny : b.nz;
    for (long side = 0; side < 2; ++side)
      for (long g = 0; g < h; ++g) {
        long c[3];
        c[dir] = side ? n + g : -1 - g;
        const int d1 = (dir + 1) % 3, d2 = (dir + 2) % 3;
        for (c[d1] = lo[d1]; c[d1] < hi[d1]; ++c[d1])
          for (c[d2] = lo[d2]; c[d2] < hi[d2]; ++c[d2]) {
            const HaloFace& fc = face[2 * dir + side];
            f[b.at(c[0], c[1], c[2])] = expect_ghost(fc.mode, fc.value, f, b, dir, c[0], c[1], c[2]);
          }
      }
  }
  return f;
}

std::array<HaloFace, 6> random_faces(const Box3& b) {
  const HaloMode modes[] = {HaloMode::Copy, HaloMode::Mirror, HaloMode::Negate, HaloMode::Value, HaloMode::Periodic,
                            HaloMode::None};
  auto pick = random_vector<double>(6, 0, 5.999);
  auto val = random_vector<double>(6, -9, 9);
  std::array<HaloFace, 6> f{};
  for (int i = 0; i < 6; ++i) {
    f[i].mode = modes[static_cast<int>(pick[i])];
    // periodic pairs with periodic on the other side; mirror-like modes need n >= halo (ensured)
    f[i].value = val[i];
  }
  for (int d = 0; d < 3; ++d)
    if ((f[2 * d].mode == HaloMode::Periodic) != (f[2 * d + 1].mode == HaloMode::Periodic))
      f[2 * d + 1].mode = f[2 * d].mode;
  (void)b;
  return f;
}

template <class T>
std::vector<double> fill_on(Backend& be, const Case& c, const std::vector<double>& init,
                            const std::array<HaloFace, 6>& face, const BoxShape& shape) {
  auto f = make_field(be, convert<T>(init));
  Halo3DFillArgs a;
  a.prec = precision_of<T>();
  a.box = c.box;
  a.field = &f.buffer();
  a.face = face;
  a.shape = shape;
  be.halo3d().fill(a);
  return convert<double>(f.download());
}

// the interior random, the halo and the rest of the array a marker
std::vector<double> initial(const Case& c) {
  std::vector<double> v(c.values, kOutside);
  const Box3& b = c.box;
  auto r = random_vector<double>(static_cast<std::size_t>(b.cells()), -1, 1);
  std::size_t q = 0;
  for (long k = 0; k < b.nz; ++k)
    for (long j = 0; j < b.ny; ++j)
      for (long i = 0; i < b.nx; ++i) v[b.at(i, j, k)] = r[q++];
  return v;
}

}  // namespace

TEST_CASE("halo3d: the reference statement of the modes fills edges and corners from earlier passes") {
  // a 3 x 3 x 3 box, halo 1, every face COPY: every ghost equals the nearest interior cell,
  // corners included
  const Case c{Box3::standalone(3, 3, 3, 1), Box3::standalone(3, 3, 3, 1).extent()};
  std::array<HaloFace, 6> copy{};
  auto f = reference_fill(initial(c), c.box, copy);
  auto clampi = [](long x, long n) { return x < 0 ? 0 : x >= n ? n - 1 : x; };
  for (long k = -1; k <= 3; ++k)
    for (long j = -1; j <= 3; ++j)
      for (long i = -1; i <= 3; ++i)
        CHECK(f[c.box.at(i, j, k)] == f[c.box.at(clampi(i, 3), clampi(j, 3), clampi(k, 3))]);
}

TEST_SUITE("backend") {

TEST_CASE_TEMPLATE("halo3d: every mode, halo 1 and 2, boxes alone and inside arrays", T, float, double) {
  for_each_backend([](Backend& be) {
    for (const Case& c : cases()) {
      for (int rep = 0; rep < 3; ++rep) {
        const auto face = random_faces(c.box);
        const auto init = initial(c);
        const auto want = reference_fill(init, c.box, face);
        for (const char* shape : {"march:32x8", "3d:4x4x2", "march:7x3"}) {
          CAPTURE(c.box.describe());
          CAPTURE(shape);
          for (int f = 0; f < 6; ++f) INFO("face ", f, ": ", to_string(face[f].mode));
          const auto ref = fill_on<double>(reference(), c, init, face, parse_box_shape(shape));
          REQUIRE(ref == want);  // the serial backend is the statement of the modes
          const auto got = fill_on<T>(be, c, init, face, parse_box_shape(shape));
          CHECK(max_rel_diff(got, ref) <= tol<T>());
        }
      }
    }
  });
}

}  // TEST_SUITE
