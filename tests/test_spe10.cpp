// The SPE10-like field: the same numbers for a seed on every machine (a fingerprint recorded once),
// the statistics docs/linalg.md states, and its Eclipse INCLUDE files.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "core/base/error.hpp"
#include "core/io/eclipse_include.hpp"
#include "core/models/spe10_fields.hpp"

using namespace poreflow;

TEST_CASE("generate_spe10_like: the same field for a seed on every machine, another for another seed") {
  const Spe10Fields a = generate_spe10_like(60, 220, 85, 1);
  const Spe10Fields b = generate_spe10_like(60, 220, 85, 1);
  CHECK(fingerprint(a) == fingerprint(b));
  // recorded when the generator was written (x86-64, GCC 12); a platform or compiler that changes a
  // single bit of the field changes this word: the generator uses only IEEE-exact operations
  CHECK(fingerprint(a) == 0x2214775ba122a0fdull);
  const Spe10Fields c = generate_spe10_like(30, 40, 17, 2), d = generate_spe10_like(30, 40, 17, 3);
  CHECK(fingerprint(c) != fingerprint(d));
  CHECK(c.kx.size() == 30u * 40u * 17u);
}

TEST_CASE("generate_spe10_like: about six orders of magnitude, kv/kh = 0.1, porosity following permeability") {
  const Spe10Fields f = generate_spe10_like(60, 220, 85, 1);
  const std::size_t n = 60u * 220u * 85u;
  REQUIRE(f.kx.size() == n);
  CHECK(f.tarbert_layers == 35);
  const FieldStats k = field_stats(f.kx);
  CHECK(std::log10(k.p99 / k.p01) > 5.5);  // the bulk spans ~6 decades ...
  CHECK(std::log10(k.p99 / k.p01) < 6.5);
  CHECK(k.min >= 1e-3);                     // ... inside SPE10's bounds
  CHECK(k.max <= 2e4 * (1 + 1e-12));
  CHECK(std::log10(k.max / k.min) > 7);
  CHECK(f.channel_fraction > 0.4);
  CHECK(f.channel_fraction < 0.55);
  bool aniso = true;
  double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
  for (std::size_t c = 0; c < n; ++c) {
    aniso = aniso && f.ky[c] == f.kx[c] && f.kz[c] == 0.1 * f.kx[c];
    const double x = std::log10(f.kx[c]), y = f.poro[c];
    sx += x, sy += y, sxx += x * x, syy += y * y, sxy += x * y;
  }
  CHECK(aniso);
  const double cov = sxy / n - sx / n * sy / n, r = cov / std::sqrt((sxx / n - sx / n * sx / n) * (syy / n - sy / n * sy / n));
  CHECK(r > 0.9);
  const FieldStats p = field_stats(f.poro);
  CHECK(p.min >= 0.01);
  CHECK(p.max <= 0.42);
  // the lower part is channelised: its spread is wider than the upper part's
  const std::size_t plane = 60u * 220u, split = plane * 35u;
  const FieldStats top = field_stats(std::vector<double>(f.kx.begin(), f.kx.begin() + long(split)));
  const FieldStats low = field_stats(std::vector<double>(f.kx.begin() + long(split), f.kx.end()));
  CHECK(std::log10(low.p90 / low.p10) > std::log10(top.p90 / top.p10));
  CHECK_THROWS_AS(generate_spe10_like(0, 5, 5), ConfigError);
}

TEST_CASE("write_spe10_includes: PERMX, PERMY, PERMZ and PORO with every value, in the deck's order") {
  const Spe10Fields f = generate_spe10_like(7, 5, 4, 9);
  const auto dir = (std::filesystem::temp_directory_path() / "poreflow_spe10_test").string();
  const auto paths = io::write_spe10_includes(dir, f, 9);
  REQUIRE(paths.size() == 4);
  std::ifstream in(paths[0]);
  std::string line, keyword;
  std::vector<double> values;
  bool closed = false;
  while (std::getline(in, line)) {
    if (line.rfind("--", 0) == 0) continue;
    if (keyword.empty()) {
      keyword = line;
      continue;
    }
    if (line == "/") {
      closed = true;
      break;
    }
    std::istringstream s(line);
    for (double v; s >> v;) values.push_back(v);
  }
  CHECK(keyword == "PERMX");
  CHECK(closed);
  REQUIRE(values.size() == f.kx.size());
  for (std::size_t i = 0; i < values.size(); ++i) CHECK(std::fabs(values[i] - f.kx[i]) <= 1e-6 * f.kx[i]);
  std::filesystem::remove_all(dir);
}
