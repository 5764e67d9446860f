// The decomposition of a grid into one box per process (core/comm/decomposition.hpp): the boxes
// tile the grid with whole columns, neighbours agree, the cuts balance active cells, and a split
// that cannot be made says why.
#include <doctest/doctest.h>

#include <algorithm>
#include <numeric>
#include <vector>

#include "core/base/error.hpp"
#include "core/comm/decomposition.hpp"

using namespace poreflow;

TEST_CASE("decomposition: the boxes tile the grid with whole columns and agree on their neighbours") {
  for (int p : {1, 2, 3, 4, 5, 6, 8, 12}) {
    const long gx = 37, gy = 23, gz = 9;
    const Decomposition d = decompose(gx, gy, gz, p);
    CAPTURE(p);
    CAPTURE(d.describe());
    REQUIRE(d.size() == p);
    CHECK(d.parts[2] == 1);
    std::vector<int> owner(static_cast<std::size_t>(gx * gy * gz), -1);
    for (int r = 0; r < p; ++r) {
      const RankBox b = d.box(r);
      CHECK(b.k0 == 0);
      CHECK(b.nz == gz);
      CHECK(b.nx >= 1);
      CHECK(b.ny >= 1);
      for (long k = b.k0; k < b.k0 + b.nz; ++k)
        for (long j = b.j0; j < b.j0 + b.ny; ++j)
          for (long i = b.i0; i < b.i0 + b.nx; ++i) {
            auto& o = owner[static_cast<std::size_t>(i + gx * (j + gy * k))];
            CHECK(o == -1);
            o = r;
            CHECK(d.owner(i, j, k) == r);
          }
      for (int dir = 0; dir < 3; ++dir)
        for (int side = 0; side < 2; ++side) {
          const int n = d.neighbour(r, dir, side);
          if (n < 0) continue;
          CHECK(d.neighbour(n, dir, 1 - side) == r);
          // the neighbour's face is the same face: equal extents across it
          const RankBox o = d.box(n);
          if (dir == 0) CHECK((o.ny == b.ny && o.j0 == b.j0 && (side ? o.i0 == b.i0 + b.nx : o.i0 + o.nx == b.i0)));
          if (dir == 1) CHECK((o.nx == b.nx && o.i0 == b.i0 && (side ? o.j0 == b.j0 + b.ny : o.j0 + o.ny == b.j0)));
        }
    }
    CHECK(std::count(owner.begin(), owner.end(), -1) == 0);
    CHECK(d.owner(-1, 0, 0) == -1);
    CHECK(d.owner(0, gy, 0) == -1);
  }
}

TEST_CASE("decomposition: the cuts balance the active cells, not the cells") {
  // the active cells crowd into the grid's first third along x
  const long gx = 60, gy = 40, gz = 6;
  std::vector<char> active(static_cast<std::size_t>(gx * gy * gz), 0);
  for (long k = 0; k < gz; ++k)
    for (long j = 0; j < gy; ++j)
      for (long i = 0; i < gx; ++i) active[static_cast<std::size_t>(i + gx * (j + gy * k))] = i < 20 || (i + j) % 7 == 0;
  const long total = std::accumulate(active.begin(), active.end(), 0L);
  for (int p : {2, 3, 4, 6}) {
    const Decomposition d = decompose(gx, gy, gz, p, active);
    CAPTURE(d.describe());
    const long mx = *std::max_element(d.active.begin(), d.active.end());
    CHECK(std::accumulate(d.active.begin(), d.active.end(), 0L) == total);
    CHECK(mx <= 1.1 * total / p);
  }
  // a grid without active cells still splits
  CHECK(decompose(8, 8, 2, 4, std::vector<char>(128, 0)).size() == 4);
}

TEST_CASE("decomposition: a split that cannot be made names the grid and the processes") {
  CHECK_THROWS_WITH_AS(decompose(3, 2, 50, 7), doctest::Contains("7 processes for a grid of 3 x 2 columns"), ConfigError);
  // boxes narrower than the halo: 2 cells across 2 processes with a halo of 2
  CHECK_THROWS_WITH_AS(decompose(2, 1, 4, 2, {}, 2), doctest::Contains("at least 2 cells across"), ConfigError);
  CHECK_THROWS_AS(decompose(4, 4, 4, 0), ConfigError);
  CHECK_THROWS_WITH_AS(decompose(4, 4, 4, 2, std::vector<char>(5, 1)), doctest::Contains("5 activity flags"), ConfigError);
  CHECK(decompose(3, 2, 50, 6).size() == 6);  // one column each
}

TEST_CASE("decomposition: layers split into slabs at even boundaries, each as wide as asked") {
  for (long gz : {7L, 12L, 33L, 645L})
    for (int p : {1, 2, 3, 4})
      for (bool even : {true, false}) {
        const long w = 2;
        if (p * (w + (even ? 1 : 0)) > gz) continue;
        INFO("layers ", gz, ", processes ", p, ", even ", even);
        const Decomposition d = decompose_layers(5, 4, gz, p, w, even);
        REQUIRE(d.size() == p);
        CHECK(d.parts[0] == 1);
        CHECK(d.parts[1] == 1);
        long k = 0, lo = gz, hi = 0;
        for (int r = 0; r < p; ++r) {
          const RankBox b = d.box(r);
          CHECK(b.nx == 5);
          CHECK(b.ny == 4);
          CHECK(b.k0 == k);  // rank order is layer order
          CHECK(b.nz >= w);
          if (even) CHECK(b.k0 % 2 == 0);
          CHECK(d.neighbour(r, 2, 0) == (r > 0 ? r - 1 : -1));
          CHECK(d.neighbour(r, 2, 1) == (r < p - 1 ? r + 1 : -1));
          CHECK(d.neighbour(r, 0, 1) == -1);
          lo = std::min(lo, b.nz), hi = std::max(hi, b.nz);
          k += b.nz;
        }
        CHECK(k == gz);
        CHECK(hi - lo <= 2);  // even boundaries: within two layers
      }
  CHECK_THROWS_WITH_AS(decompose_layers(8, 8, 8, 5, 2, true), doctest::Contains("8 layers does not split into 5 slabs"), ConfigError);
}
