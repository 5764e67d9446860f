// The .vtu writer and the Cartesian reservoir grid: the grid checked against corners computed
// here from the definition, the file read back by a reader written independently of the writer.
#include <doctest/doctest.h>

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/base/error.hpp"
#include "core/io/vtu.hpp"
#include "tests/vtu_reader.hpp"

using namespace poreflow;
using namespace poreflow::test;
namespace fs = std::filesystem;

namespace {

fs::path tmp_dir() {
  auto d = fs::temp_directory_path() / "poreflow_test_vtu";
  fs::create_directories(d);
  return d;
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::bit_cast<std::uint64_t>(a[i]) != std::bit_cast<std::uint64_t>(b[i])) return false;
  return true;
}

// f() throws an exception of type E whose message contains `text`.
template <class E>
void check_throws_naming(const std::string& text, const std::function<void()>& f) {
  try {
    f();
    FAIL("no exception naming " << text);
  } catch (const E& e) {
    CHECK_MESSAGE(std::string(e.what()).find(text) != std::string::npos, e.what());
  }
}

using Point = std::array<double, 3>;

Point point(const io::HexGrid& g, std::int64_t p) {
  return {g.points[3 * p], g.points[3 * p + 1], g.points[3 * p + 2]};
}

std::array<Point, 8> corners(const io::HexGrid& g, std::size_t cell) {
  std::array<Point, 8> c;
  for (int v = 0; v < 8; ++v) c[v] = point(g, g.connectivity[8 * cell + v]);
  return c;
}

// The signed volume of a hexahedron with planar faces in VTK order: six tetrahedra around the
// diagonal 0-6, positive when the bottom face 0-1-2-3 turns counter-clockwise seen from 4-5-6-7.
double signed_volume(const std::array<Point, 8>& p) {
  auto det = [&](int a, int b) {
    Point u, v, w;
    for (int d = 0; d < 3; ++d) u[d] = p[a][d] - p[0][d], v[d] = p[b][d] - p[0][d], w[d] = p[6][d] - p[0][d];
    return u[0] * (v[1] * w[2] - v[2] * w[1]) - u[1] * (v[0] * w[2] - v[2] * w[0]) + u[2] * (v[0] * w[1] - v[1] * w[0]);
  };
  const int ring[] = {1, 2, 3, 7, 4, 5};
  double sum = 0;
  for (int r = 0; r < 6; ++r) sum += det(ring[r], ring[(r + 1) % 6]);
  return sum / 6;
}

// The 3x2x2 test grid: dx varies along i, dy along j, dz along k; the tops dip 0.5 m per row in j
// and the second layer starts where the first ends (the values are exact in binary).
constexpr int nx = 3, ny = 2, nz = 2, n = nx * ny * nz;
const double kDx[nx] = {10, 20, 30}, kDy[ny] = {5, 7}, kDz[nz] = {2, 3};

struct Deck {
  std::vector<double> dx, dy, dz, tops;
  std::vector<int> active;
};

Deck deck(double dip) {
  Deck d;
  for (int k = 0; k < nz; ++k)
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i) {
        d.dx.push_back(kDx[i]);
        d.dy.push_back(kDy[j]);
        d.dz.push_back(kDz[k]);
        d.tops.push_back(1000 + dip * j + (k > 0 ? kDz[0] : 0));
      }
  return d;
}

io::HexGrid grid(const Deck& d) { return io::hex_grid_cartesian(nx, ny, nz, d.dx, d.dy, d.dz, d.tops, d.active); }

// Cell (i, j, k)'s corners from the definition, in VTK_HEXAHEDRON order (z = -depth, up).
std::array<Point, 8> expected_corners(const Deck& d, int i, int j, int k) {
  const int c = i + nx * (j + ny * k);
  double x0 = 0, y0 = 0;
  for (int a = 0; a < i; ++a) x0 += d.dx[a + nx * (j + ny * k)];
  for (int b = 0; b < j; ++b) y0 += d.dy[i + nx * (b + ny * k)];
  const double x1 = x0 + d.dx[c], y1 = y0 + d.dy[c], top = -d.tops[c], bot = -(d.tops[c] + d.dz[c]);
  return {{{x0, y0, bot}, {x1, y0, bot}, {x1, y1, bot}, {x0, y1, bot},
           {x0, y0, top}, {x1, y0, top}, {x1, y1, top}, {x0, y1, top}}};
}

// Every written cell has the corners of its definition; every point is used; no point repeats.
void check_grid(const Deck& d, const io::HexGrid& g) {
  REQUIRE(g.connectivity.size() == 8 * g.cells());
  REQUIRE(g.points.size() % 3 == 0);
  std::vector<bool> used(g.point_count(), false);
  for (std::size_t cell = 0; cell < g.cells(); ++cell) {
    const auto c = g.cell_index[cell];
    const int i = static_cast<int>(c % nx), j = static_cast<int>(c / nx % ny), k = static_cast<int>(c / nx / ny);
    CHECK(corners(g, cell) == expected_corners(d, i, j, k));
    for (int v = 0; v < 8; ++v) {
      auto p = g.connectivity[8 * cell + v];
      REQUIRE(p >= 0);
      REQUIRE(static_cast<std::size_t>(p) < g.point_count());
      used[static_cast<std::size_t>(p)] = true;
    }
  }
  CHECK(std::count(used.begin(), used.end(), false) == 0);
  std::set<Point> distinct;
  for (std::size_t p = 0; p < g.point_count(); ++p) distinct.insert(point(g, static_cast<std::int64_t>(p)));
  CHECK(distinct.size() == g.point_count());
}

}  // namespace

TEST_SUITE("io") {

TEST_CASE("vtu: hex_grid_cartesian of a regular grid shares every corner") {
  Deck d = deck(0);
  io::HexGrid g = grid(d);
  CHECK(g.cells() == n);
  CHECK(g.point_count() == (nx + 1) * (ny + 1) * (nz + 1));
  check_grid(d, g);
  for (std::size_t c = 0; c < g.cells(); ++c) CHECK(g.cell_index[c] == static_cast<std::int64_t>(c));
}

TEST_CASE("vtu: hex_grid_cartesian with varying dx and dipping tops: points, corners, orientation") {
  Deck d = deck(0.5);
  io::HexGrid g = grid(d);
  REQUIRE(g.cells() == n);
  // Rows j = 0 and 1 are 0.5 m apart in depth, so they share no corner; within a row, the cells
  // share their faces in i and k: 4 x 2 x 3 points per row.
  CHECK(g.point_count() == 2 * (4 * 2 * 3));
  check_grid(d, g);

  // Cell (2, 1, 1): x in [10 + 20, + 30], y in [5, + 7], depth [1000.5 + 2, + 3], z up.
  const std::size_t c = 2 + nx * (1 + ny * 1);
  REQUIRE(g.cell_index[c] == static_cast<std::int64_t>(c));
  const std::array<Point, 8> want = {{{30, 5, -1005.5},
                                      {60, 5, -1005.5},
                                      {60, 12, -1005.5},
                                      {30, 12, -1005.5},
                                      {30, 5, -1002.5},
                                      {60, 5, -1002.5},
                                      {60, 12, -1002.5},
                                      {30, 12, -1002.5}}};
  CHECK(corners(g, c) == want);

  // VTK_HEXAHEDRON order: positive volume dx*dy*dz for every cell.
  for (std::size_t cell = 0; cell < g.cells(); ++cell) {
    const auto ci = static_cast<std::size_t>(g.cell_index[cell]);
    CHECK(signed_volume(corners(g, cell)) == doctest::Approx(d.dx[ci] * d.dy[ci] * d.dz[ci]));
  }
  // and the bottom face is below the top face: z of corners 0-3 < z of corners 4-7
  auto p = corners(g, 0);
  for (int v = 0; v < 4; ++v) CHECK(p[v][2] < p[v + 4][2]);
}

TEST_CASE("vtu: hex_grid_cartesian leaves inactive cells out") {
  Deck d = deck(0);
  d.active.assign(n, 1);
  d.active[0] = 0;  // a corner cell: its outer corner point goes with it
  d.active[7] = 0;  // (1, 0, 1): all its corners are shared with active cells
  d.active[9] = 2;  // any non-zero value is active
  io::HexGrid g = grid(d);
  CHECK(g.cell_index == std::vector<std::int64_t>{1, 2, 3, 4, 5, 6, 8, 9, 10, 11});
  CHECK(g.cells() == n - 2);
  CHECK(g.point_count() == (nx + 1) * (ny + 1) * (nz + 1) - 1);
  check_grid(d, g);

  d.active.assign(n, 0);
  io::HexGrid none = grid(d);
  CHECK(none.cells() == 0);
  CHECK(none.point_count() == 0);
}

TEST_CASE("vtu: hex_grid_cartesian refuses bad sizes, naming the array") {
  Deck d = deck(0.5);
  auto make = [](const Deck& x) { return [x] { grid(x); }; };
  Deck bad = d;
  bad.dx.pop_back();
  check_throws_naming<ConfigError>("dx has 11 values", make(bad));
  bad = d;
  bad.tops.push_back(1);
  check_throws_naming<ConfigError>("tops has 13 values", make(bad));
  bad = d;
  bad.active.assign(n - 1, 1);
  check_throws_naming<ConfigError>("active has 11 values", make(bad));
  bad = d;
  bad.dx[4] = 0;
  check_throws_naming<ConfigError>("dx[4]", make(bad));
  bad = d;
  bad.dy[2] = -1;
  check_throws_naming<ConfigError>("dy[2]", make(bad));
  bad = d;
  bad.dz[11] = std::numeric_limits<double>::infinity();
  check_throws_naming<ConfigError>("dz[11]", make(bad));
  bad = d;
  bad.tops[3] = std::nan("");
  check_throws_naming<ConfigError>("tops[3]", make(bad));
  check_throws_naming<ConfigError>("nz", [&] { io::hex_grid_cartesian(nx, ny, 0, {}, {}, {}, {}, {}); });
  bad = d;
  bad.tops[3] = -5;  // above the datum is fine
  CHECK_NOTHROW(grid(bad));
}

TEST_CASE("vtu: header, topology and exact cell data of the appended block") {
  Deck d = deck(0.5);
  d.active.assign(n, 1);
  d.active[4] = 0;
  io::HexGrid g = grid(d);
  const std::size_t m = g.cells();
  const std::vector<double> tricky = {0.1, -0.0, 1.0 / 3.0, 1e-310, -2.5e300, 6.02214076e23,
                                      std::numeric_limits<double>::max(), std::numeric_limits<double>::min()};
  io::VtkField p{"pressure", {}, 1}, v{"velocity", {}, 3}, s{"s<&\"w\">", {}, 1};
  for (std::size_t c = 0; c < m; ++c) {
    p.values.push_back(tricky[c % tricky.size()]);
    s.values.push_back(static_cast<double>(c) * 0.7);
    for (int q = 0; q < 3; ++q) v.values.push_back(tricky[(c + q + 3) % tricky.size()] / 3);
  }
  auto file = tmp_dir() / "grid.vtu";
  io::write_vtu(file, g, {p, v, s}, 86400.25);

  Vtu r = read_vtu(file);
  auto vtk = tags(r.xml, "VTKFile").at(0), piece = tags(r.xml, "Piece").at(0);
  CHECK(attr(vtk, "type") == "UnstructuredGrid");
  CHECK(attr(vtk, "header_type") == "UInt64");
  CHECK(attr(vtk, "byte_order") == (std::endian::native == std::endian::little ? "LittleEndian" : "BigEndian"));
  CHECK(attr(piece, "NumberOfPoints") == std::to_string(g.point_count()));
  CHECK(attr(piece, "NumberOfCells") == std::to_string(m));
  auto time = tags(r.xml, "DataArray").at(0);
  CHECK(attr(time, "Name") == "TimeValue");
  CHECK(r.xml.find(">86400.25</DataArray>") != std::string::npos);

  // The layout VTK's reader expects: FieldData before the Piece; Points with one 3-component
  // array; Cells with connectivity, offsets and types.
  auto paths = element_paths(r.xml);
  const std::string ug = "VTKFile/UnstructuredGrid/";
  CHECK(std::count(paths.begin(), paths.end(), ug + "FieldData/DataArray") == 1);
  CHECK(std::count(paths.begin(), paths.end(), ug + "Piece/CellData/DataArray") == 4);
  CHECK(std::count(paths.begin(), paths.end(), ug + "Piece/Points/DataArray") == 1);
  CHECK(std::count(paths.begin(), paths.end(), ug + "Piece/Cells/DataArray") == 3);

  REQUIRE(r.arrays.size() == 8);
  CHECK(r.arrays["Points/Points"].type == "Float64");
  CHECK(r.arrays["Points/Points"].components == 3);
  CHECK(same_bits(r.arrays["Points/Points"].as<double>(), g.points));
  CHECK(r.arrays["Cells/connectivity"].type == "Int64");
  CHECK(r.arrays["Cells/connectivity"].as<std::int64_t>() == g.connectivity);
  std::vector<std::int64_t> offsets;
  for (std::size_t c = 1; c <= m; ++c) offsets.push_back(static_cast<std::int64_t>(8 * c));
  CHECK(r.arrays["Cells/offsets"].type == "Int64");
  CHECK(r.arrays["Cells/offsets"].as<std::int64_t>() == offsets);
  CHECK(r.arrays["Cells/types"].type == "UInt8");
  CHECK(r.arrays["Cells/types"].as<std::uint8_t>() == std::vector<std::uint8_t>(m, 12));

  CHECK(r.arrays["CellData/cell_index"].type == "Int64");
  CHECK(r.arrays["CellData/cell_index"].as<std::int64_t>() == g.cell_index);
  CHECK(r.arrays["CellData/cell_index"].as<std::int64_t>().at(4) == 5);  // cell 4 left out
  for (const auto& f : {p, v, s}) {
    const Array& a = r.arrays["CellData/" + f.name];
    CHECK(a.type == "Float64");
    CHECK(a.components == f.components);
    CHECK(same_bits(a.as<double>(), f.values));
  }
}

TEST_CASE("vtu: no time, no cell data; an empty grid") {
  Deck d = deck(0);
  auto file = tmp_dir() / "bare.vtu";
  io::write_vtu(file, grid(d), {});
  Vtu r = read_vtu(file);
  CHECK(r.xml.find("FieldData") == std::string::npos);
  CHECK(r.arrays.size() == 5);  // cell_index, points, connectivity, offsets, types

  io::write_vtu(file, io::HexGrid{}, {{"s", {}, 1}}, 0.0);
  Vtu e = read_vtu(file);
  CHECK(attr(tags(e.xml, "Piece").at(0), "NumberOfCells") == "0");
  CHECK(e.arrays["Points/Points"].bytes.empty());
}

TEST_CASE("vtu: a bad call leaves no file; an unwritable path throws naming it") {
  Deck d = deck(0);
  io::HexGrid g = grid(d);
  auto file = tmp_dir() / "refused.vtu";
  fs::remove(file);
  auto refused = [&](const std::vector<io::VtkField>& fields, const io::HexGrid& gg, double t) {
    check_throws_naming<Error>(file.string(), [&] { io::write_vtu(file, gg, fields, t); });
    CHECK_FALSE(fs::exists(file));
  };
  refused({{"s", std::vector<double>(n - 1), 1}}, g, 0);                          // too few values
  refused({{"v", std::vector<double>(n), 2}}, g, 0);                              // per component
  refused({{"s", std::vector<double>(n), 1}, {"s", std::vector<double>(n), 1}}, g, 0);  // same name
  refused({{"cell_index", std::vector<double>(n), 1}}, g, 0);                     // reserved name
  refused({}, g, std::numeric_limits<double>::infinity());
  io::HexGrid broken = g;
  broken.connectivity[5] = static_cast<std::int64_t>(g.point_count());
  refused({}, broken, 0);
  broken = g;
  broken.cell_index.pop_back();
  refused({}, broken, 0);
  broken = g;
  broken.points[7] = std::nan("");
  refused({}, broken, 0);

  auto bad = tmp_dir() / "no_such_dir" / "out.vtu";
  check_throws_naming<Error>(bad.string(), [&] { io::write_vtu(bad, g, {}); });
  CHECK_FALSE(fs::exists(bad));
  CHECK_FALSE(fs::exists(bad.parent_path()));
}

}  // TEST_SUITE
