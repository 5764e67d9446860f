// The output module: every file is read back here, by a reader written independently of the
// writer (the VTI appended block, the PVD entries, the CSV text, the PNG pixels).
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "core/base/error.hpp"
#include "core/io/csv.hpp"
#include "core/io/png_map.hpp"
#include "core/io/png_plot.hpp"
#include "core/io/vtk.hpp"
#include "tests/png_image.hpp"

using namespace poreflow;
using poreflow::test::Image;
using poreflow::test::load_png;
namespace fs = std::filesystem;

namespace {

fs::path tmp_dir() {
  auto d = fs::temp_directory_path() / "poreflow_test_io";
  fs::create_directories(d);
  return d;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  REQUIRE(in);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The value of name="..." inside an XML tag.
std::string attr(const std::string& tag, const std::string& name) {
  auto p = tag.find(" " + name + "=\"");
  if (p == std::string::npos) return {};
  p += name.size() + 3;
  return tag.substr(p, tag.find('"', p) - p);
}

// The five XML entities back to characters (attribute values).
std::string unescape(std::string s) {
  const std::pair<std::string, std::string> entities[] = {
      {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&apos;", "'"}, {"&amp;", "&"}};
  for (const auto& [from, to] : entities)
    for (auto p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size())) s.replace(p, from.size(), to);
  return s;
}

// Every tag <name ...> in xml, as text.
std::vector<std::string> tags(const std::string& xml, const std::string& name) {
  std::vector<std::string> out;
  for (auto p = xml.find("<" + name + " "); p != std::string::npos; p = xml.find("<" + name + " ", p + 1))
    out.push_back(xml.substr(p, xml.find('>', p) - p + 1));
  return out;
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::bit_cast<std::uint64_t>(a[i]) != std::bit_cast<std::uint64_t>(b[i])) return false;
  return true;
}

// A VTK XML file with appended raw data and UInt64 block headers, read the way VTK does: the
// offset of each array counts from the byte after '_', where a byte count precedes the values.
struct Vti {
  std::string xml;  // everything before the binary block
  std::map<std::string, std::vector<double>> arrays;
  std::map<std::string, int> components;
};

Vti read_vti(const fs::path& p) {
  std::string s = slurp(p);
  Vti v;
  auto app = s.find("<AppendedData encoding=\"raw\">");
  REQUIRE(app != std::string::npos);
  v.xml = s.substr(0, app);
  std::size_t base = s.find('_', app) + 1, end = base;
  for (const auto& tag : tags(v.xml, "DataArray")) {
    if (attr(tag, "format") != "appended") continue;
    CHECK(attr(tag, "type") == "Float64");
    std::size_t at = base + std::stoull(attr(tag, "offset"));
    std::uint64_t bytes = 0;
    REQUIRE(at + sizeof bytes <= s.size());
    std::memcpy(&bytes, s.data() + at, sizeof bytes);
    REQUIRE(bytes % sizeof(double) == 0);
    REQUIRE(at + sizeof bytes + bytes <= s.size());
    std::vector<double> values(bytes / sizeof(double));
    std::memcpy(values.data(), s.data() + at + sizeof bytes, bytes);
    v.arrays[unescape(attr(tag, "Name"))] = values;
    v.components[unescape(attr(tag, "Name"))] = std::stoi(attr(tag, "NumberOfComponents"));
    end = std::max<std::size_t>(end, at + sizeof bytes + bytes);
  }
  CHECK(s.substr(end) == "\n  </AppendedData>\n</VTKFile>\n");  // nothing lost or extra
  return v;
}

// f() throws poreflow::Error whose message names `path`.
void check_throws_naming(const fs::path& path, const std::function<void()>& f) {
  try {
    f();
    FAIL("no exception for " << path);
  } catch (const Error& e) {
    CHECK_MESSAGE(std::string(e.what()).find(path.string()) != std::string::npos, e.what());
  }
}

const std::vector<double> kTricky = {0.1, -0.0, 1.0 / 3.0, 1e-310, -2.5e300, 6.02214076e23,
                                     std::numeric_limits<double>::max(), std::numeric_limits<double>::min()};

}  // namespace

TEST_SUITE("io") {

TEST_CASE("vti: header, sizes and exact values of the appended block") {
  auto file = tmp_dir() / "field.vti";
  const std::array<int, 3> n = {5, 4, 3};
  const std::size_t points = 5 * 4 * 3;
  io::VtkField p{"pressure", {}, 1}, v{"velocity", {}, 3}, s{"s<&\"w\">", {}, 1};
  for (std::size_t i = 0; i < points; ++i) {
    p.values.push_back(kTricky[i % kTricky.size()] * static_cast<double>(i + 1));
    s.values.push_back(std::sin(static_cast<double>(i)));
    for (int c = 0; c < 3; ++c) v.values.push_back(static_cast<double>(i) + 0.25 * c);
  }
  io::write_vti(file, n, {0.5, -1, 0}, {0.1, 0.2, 0.3}, {p, v, s}, 12.5);

  Vti r = read_vti(file);
  auto vtk = tags(r.xml, "VTKFile").at(0), image = tags(r.xml, "ImageData").at(0);
  CHECK(attr(vtk, "type") == "ImageData");
  CHECK(attr(vtk, "header_type") == "UInt64");
  CHECK(attr(vtk, "byte_order") == (std::endian::native == std::endian::little ? "LittleEndian" : "BigEndian"));
  CHECK(attr(image, "WholeExtent") == "0 4 0 3 0 2");
  CHECK(attr(image, "Origin") == "0.5 -1 0");
  CHECK(attr(image, "Spacing") == "0.1 0.2 0.3");
  CHECK(attr(tags(r.xml, "Piece").at(0), "Extent") == "0 4 0 3 0 2");
  CHECK(r.xml.find("Name=\"TimeValue\" NumberOfTuples=\"1\" format=\"ascii\">12.5</DataArray>") != std::string::npos);

  REQUIRE(r.arrays.size() == 3);
  CHECK(same_bits(r.arrays["pressure"], p.values));
  CHECK(same_bits(r.arrays["velocity"], v.values));
  CHECK(same_bits(r.arrays["s<&\"w\">"], s.values));  // the name is escaped in the file
  CHECK(r.components["velocity"] == 3);
  CHECK(r.components["pressure"] == 1);
  CHECK(r.xml.find("s&lt;&amp;&quot;w&quot;&gt;") != std::string::npos);
}

TEST_CASE("vti: no time, no field data; a field of the wrong size is refused") {
  auto file = tmp_dir() / "notime.vti";
  io::write_vti(file, {3, 2, 1}, {0, 0, 0}, {1, 1, 1}, {{"s", {1, 2, 3, 4, 5, 6}, 1}});
  Vti r = read_vti(file);
  CHECK(r.xml.find("FieldData") == std::string::npos);
  CHECK(same_bits(r.arrays["s"], {1, 2, 3, 4, 5, 6}));
  CHECK_THROWS_AS(io::write_vti(file, {3, 2, 1}, {0, 0, 0}, {1, 1, 1}, {{"s", {1, 2, 3}, 1}}), Error);
  CHECK_THROWS_AS(io::write_vti(file, {3, 2, 1}, {0, 0, 0}, {1, 1, 1}, {{"v", {1, 2, 3, 4, 5, 6}, 2}}), Error);
}

TEST_CASE("pvd: lists every snapshot, valid after each add") {
  auto dir = tmp_dir() / "series";
  fs::create_directories(dir);
  io::PvdCollection pvd(dir / "run.pvd");
  const std::vector<double> times = {0, 0.1, 1.0 / 3.0, 2.5e4};
  for (std::size_t k = 0; k < times.size(); ++k) {
    auto name = "snap_" + std::to_string(k) + ".vti";
    io::write_vti(dir / name, {2, 2, 1}, {0, 0, 0}, {1, 1, 1}, {{"s", {0, 1, 2, 3}, 1}}, times[k]);
    pvd.add(times[k], name);
    std::string xml = slurp(dir / "run.pvd");
    auto sets = tags(xml, "DataSet");
    REQUIRE(sets.size() == k + 1);  // rewritten at every add
    CHECK(xml.find("</Collection>\n</VTKFile>") != std::string::npos);
    for (std::size_t i = 0; i <= k; ++i) {
      CHECK(std::strtod(attr(sets[i], "timestep").c_str(), nullptr) == times[i]);
      CHECK(attr(sets[i], "file") == "snap_" + std::to_string(i) + ".vti");
      CHECK(fs::exists(dir / attr(sets[i], "file")));
    }
  }
  CHECK(attr(tags(slurp(dir / "run.pvd"), "VTKFile").at(0), "type") == "Collection");
  CHECK(pvd.size() == times.size());
  CHECK_FALSE(fs::exists(dir / "run.pvd.tmp"));
}

TEST_CASE("csv: header, exact round trip, flushed rows, wrong row refused") {
  auto file = tmp_dir() / "series.csv";
  std::vector<std::vector<double>> rows = {kTricky, {}, {}};
  for (double v : kTricky) rows[1].push_back(-v * 7.0 / 3.0);
  rows[2] = {std::nan(""), std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
             0, 1, 2, 3, 4};
  io::CsvWriter w(file, {"t", "a,b", "q\"x", "d", "e", "f", "g", "h"});
  for (const auto& r : rows) w.row(r);
  CHECK_THROWS_AS(w.row({1.0, 2.0}), Error);

  // read while the writer is still open: the rows must already be on disk
  std::istringstream in(slurp(file));
  std::string line;
  std::getline(in, line);
  CHECK(line == "t,\"a,b\",\"q\"\"x\",d,e,f,g,h");
  for (const auto& expect : rows) {
    REQUIRE(std::getline(in, line));
    std::vector<double> got;
    std::istringstream cells(line);
    for (std::string cell; std::getline(cells, cell, ',');) got.push_back(std::strtod(cell.c_str(), nullptr));
    REQUIRE(got.size() == expect.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
      if (std::isnan(expect[i])) CHECK(std::isnan(got[i]));
      else CHECK(std::bit_cast<std::uint64_t>(got[i]) == std::bit_cast<std::uint64_t>(expect[i]));
    }
  }
  CHECK_FALSE(std::getline(in, line));  // the refused row left nothing
}

TEST_CASE("png plot: decodes, right size, every series drawn in its color") {
  auto file = tmp_dir() / "plot.png";
  io::Panel top{"Saturation profile", "x [m]", "S_w", {}};
  io::Panel bottom{"Residual", "iteration", "log10 r", {}};
  io::Series a{"numerical", {}, {}, {220, 30, 30}};
  io::Series b{"analytic", {}, {}, {30, 60, 200}, true};
  io::Series c{"markers", {}, {}, {20, 160, 60}, false, true};
  for (int i = 0; i <= 200; ++i) {
    double x = i / 200.0;
    a.x.push_back(x);
    a.y.push_back(x < 0.6 ? 0.8 - 0.5 * x : 0.2);
    b.x.push_back(x);
    b.y.push_back(x < 0.62 ? 0.8 - 0.5 * x : 0.2);
  }
  for (int i = 0; i < 30; ++i) {
    c.x.push_back(i);
    c.y.push_back(i == 10 ? std::nan("") : -0.2 * i);  // a gap is allowed
  }
  top.series = {a, b};
  top.ymin = 0;
  top.ymax = 1;
  bottom.series = {c};
  io::write_plot_png(file, {top, bottom}, 900, 400);

  Image img = load_png(file);
  CHECK(img.w == 900);
  CHECK(img.h == 800);
  CHECK(img.count({255, 255, 255}) > img.w * img.h / 2);  // white background
  CHECK(img.count({0, 0, 0}) > 1000);                     // axes and text
  for (const auto& s : {a, b, c}) CHECK_MESSAGE(img.count(s.color) > 200, s.label);

  // a series off the fixed y range is clipped, not drawn over the margins
  io::Panel off{"", "", "", {{"far", {0, 1}, {5, 6}, {200, 0, 200}}}, 0, 1};
  io::write_plot_png(file, {off});
  Image img2 = load_png(file);
  CHECK(img2.w == 1000);
  CHECK(img2.h == 420);
  CHECK(img2.count({200, 0, 200}) < 400);  // only the legend sample
}

TEST_CASE("png map: decodes, viridis ends, y = 0 at the bottom") {
  auto file = tmp_dir() / "map.png";
  const int nx = 64, ny = 32;
  std::vector<double> v(nx * ny);
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) v[j * nx + i] = j < ny / 2 ? 1.0 : 0.0;  // high in the lower half
  io::MapPlot m;
  m.nx = nx;
  m.ny = ny;
  m.values = v;
  m.title = "water saturation";
  io::write_map_png(file, m, 512);

  Image img = load_png(file);
  CHECK(img.w >= 512);
  CHECK(img.h >= 256);
  CHECK(img.h < 512);
  const std::array<unsigned char, 3> lo{68, 1, 84}, hi{253, 231, 37};
  // the left half holds only the map (the color bar is on the right)
  long nlo = 0, nhi = 0;
  double ylo = 0, yhi = 0;
  for (int y = 0; y < img.h; ++y)
    for (int x = 0; x < img.w / 2; ++x) {
      if (img.at(x, y) == lo) nlo++, ylo += y;
      if (img.at(x, y) == hi) nhi++, yhi += y;
    }
  REQUIRE(nlo > 10000);
  REQUIRE(nhi > 10000);
  CHECK(yhi / nhi > ylo / nlo);  // image rows run downwards
  CHECK(img.count({0, 0, 0}) > 100);  // frame and labels
}

TEST_CASE("io: a path in a missing directory throws, naming the path") {
  auto bad = tmp_dir() / "no_such_dir" / "out";
  check_throws_naming(bad, [&] { io::write_vti(bad, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {{"s", {1}, 1}}); });
  check_throws_naming(bad, [&] {
    io::PvdCollection pvd(bad);
    pvd.add(0, "a.vti");
  });
  check_throws_naming(bad, [&] { io::CsvWriter w(bad, {"a"}); });
  check_throws_naming(bad, [&] { io::write_plot_png(bad, {io::Panel{"t", "x", "y", {}}}); });
  io::MapPlot m;
  m.nx = m.ny = 2;
  m.values = {0, 1, 2, 3};
  check_throws_naming(bad, [&] { io::write_map_png(bad, m); });
}

}  // TEST_SUITE
