// The halo3d family: every face mode, halo widths 1 and 2, odd sizes, boxes alone and inside larger
// arrays, against an independent statement of the modes; then every backend against serial.
#include <array>
#include <cmath>
#include <limits>
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

TEST_SUITE("backend") {

namespace {

// One side's layers of direction dir moved from box `from` into the ghosts of box `to` by pack,
// a host copy of the buffer (what an exchange sends) and unpack; the rest of `to` is kept.
template <class T>
void move_side(Backend& be, Field<T>& from, const Box3& bf, int side_from, Field<T>& to, const Box3& bt, int dir,
               const BoxShape& shape, int block) {
  const std::size_t face = Halo3DPackArgs::face_values(bf, dir) * static_cast<std::size_t>(block);
  REQUIRE(face == Halo3DPackArgs::face_values(bt, dir) * static_cast<std::size_t>(block));
  Field<T> sbuf(be, 2 * face), rbuf(be, 2 * face);
  sbuf.fill(std::numeric_limits<T>::quiet_NaN());
  rbuf.fill(std::numeric_limits<T>::quiet_NaN());
  Halo3DPackArgs p;
  p.prec = precision_of<T>();
  p.box = bf;
  p.field = &from.buffer();
  p.buf = &sbuf.buffer();
  p.dir = dir;
  p.sides = 1 << side_from;
  p.shape = shape;
  p.block = block;
  be.halo3d().pack(p);
  const auto sent = sbuf.download();
  std::vector<T> recv(2 * face, std::numeric_limits<T>::quiet_NaN());
  const std::size_t s0 = side_from * face, r0 = (1 - side_from) * face;
  for (std::size_t q = 0; q < face; ++q) recv[r0 + q] = sent[s0 + q];
  rbuf.upload(recv);
  Halo3DPackArgs u = p;
  u.box = bt;
  u.field = &to.buffer();
  u.buf = &rbuf.buffer();
  u.unpack = true;
  u.sides = 1 << (1 - side_from);
  be.halo3d().pack(u);
}

}  // namespace

TEST_CASE_TEMPLATE("halo3d: two boxes of one grid exchange their layers by pack and unpack, 1 or 2 values a cell", T, float,
                   double) {
  for_each_backend([](Backend& be) {
    for (int block : {1, 2})
    for (long h : {1L, 2L})
      for (int dir = 0; dir < 3; ++dir)
        for (const char* shape : {"march:32x8", "3d:4x4x2"}) {
          // a grid of odd sizes (the x face past the omp threshold with h = 2), cut across dir
          const long g[3] = {41, 67, 37};
          long na[3] = {g[0], g[1], g[2]}, nb[3] = {g[0], g[1], g[2]};
          na[dir] = g[dir] / 3 + h;  // the first box's cells across dir
          nb[dir] = g[dir] - na[dir];
          const Box3 a = Box3::inside(na[0], na[1], na[2], h, na[0] + 2 * h + 3, na[1] + 2 * h + 1, na[2] + 2 * h + 2, h + 1, h, h + 2);
          const Box3 b = Box3::standalone(nb[0], nb[1], nb[2], h);
          const std::size_t B = static_cast<std::size_t>(block);
          const auto glob = random_vector<double>(static_cast<std::size_t>(g[0] * g[1] * g[2]) * B, -1, 1);
          auto gat = [&](long i, long j, long k, std::size_t c) { return glob[static_cast<std::size_t>(i + g[0] * (j + g[1] * k)) * B + c]; };
          // the interiors from the grid, every other value a marker
          std::vector<double> ia((a.extent() + 7) * B, kOutside), ib(b.extent() * B, kOutside);
          auto at = [&](const Box3& bx, long i, long j, long k, std::size_t c) { return static_cast<std::size_t>(bx.at(i, j, k)) * B + c; };
          long shift[3] = {0, 0, 0};
          shift[dir] = na[dir];
          for (long k = 0; k < na[2]; ++k)
            for (long j = 0; j < na[1]; ++j)
              for (long i = 0; i < na[0]; ++i)
                for (std::size_t c = 0; c < B; ++c) ia[at(a, i, j, k, c)] = gat(i, j, k, c);
          for (long k = 0; k < nb[2]; ++k)
            for (long j = 0; j < nb[1]; ++j)
              for (long i = 0; i < nb[0]; ++i)
                for (std::size_t c = 0; c < B; ++c) ib[at(b, i, j, k, c)] = gat(i + shift[0], j + shift[1], k + shift[2], c);
          // what the exchange must give: a's high ghosts are b's first layers and b's low ghosts
          // a's last ones, over the pass's tangential range (the halo of earlier directions too)
          auto wa = ia, wb = ib;
          long lo[3], hi[3];
          for (int d = 0; d < 3; ++d) {
            lo[d] = d < dir ? -h : 0;
            hi[d] = (d < dir ? h : 0) + na[d];
          }
          for (long gl = 0; gl < h; ++gl) {
            long c[3];
            const int d1 = (dir + 1) % 3, d2 = (dir + 2) % 3;
            for (c[d1] = lo[d1]; c[d1] < hi[d1]; ++c[d1])
              for (c[d2] = lo[d2]; c[d2] < hi[d2]; ++c[d2]) {
                long ca[3] = {c[0], c[1], c[2]}, cb[3] = {c[0], c[1], c[2]};
                for (std::size_t comp = 0; comp < B; ++comp) {
                  ca[dir] = na[dir] + gl;  // a's ghost
                  cb[dir] = gl;            // b's interior
                  wa[at(a, ca[0], ca[1], ca[2], comp)] = ib[at(b, cb[0], cb[1], cb[2], comp)];
                  ca[dir] = na[dir] - 1 - gl;  // a's interior
                  cb[dir] = -1 - gl;           // b's ghost
                  wb[at(b, cb[0], cb[1], cb[2], comp)] = ia[at(a, ca[0], ca[1], ca[2], comp)];
                }
              }
          }
          CAPTURE(block);
          CAPTURE(h);
          CAPTURE(dir);
          CAPTURE(shape);
          auto fa = make_field(be, convert<T>(ia)), fb = make_field(be, convert<T>(ib));
          const BoxShape s = parse_box_shape(shape);
          move_side<T>(be, fa, a, 1, fb, b, dir, s, block);  // a's high side into b's low ghosts
          move_side<T>(be, fb, b, 0, fa, a, dir, s, block);  // b's low side into a's high ghosts
          CHECK(convert<double>(fa.download()) == convert<double>(convert<T>(wa)));
          CHECK(convert<double>(fb.download()) == convert<double>(convert<T>(wb)));
        }
  });
}

}  // TEST_SUITE
