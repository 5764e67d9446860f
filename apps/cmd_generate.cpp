// poreflow generate: inputs made by poreflow's own generators, for decks and benches.
//   generate spe10 --out DIR [--grid 60x220x85] [--seed 1]: an SPE10-model-2-shaped field
//   (core/models/spe10_fields.hpp) as Eclipse INCLUDE files, with its statistics
#include <fmt/core.h>

#include <cmath>
#include <cstdio>

#include "apps/common.hpp"
#include "core/base/error.hpp"
#include "core/io/eclipse_include.hpp"
#include "core/models/spe10_fields.hpp"

namespace poreflow::app {

void add_generate(CLI::App& app, Common& c) {
  auto* gen = app.add_subcommand("generate", "generated inputs: spe10 (an SPE10-like field as Eclipse INCLUDE files)");
  gen->require_subcommand(1);
  static std::string out, grid = "60x220x85";
  static std::uint64_t seed = 1;
  auto* sub = gen->add_subcommand("spe10", "an SPE10-model-2-shaped permeability and porosity field (PERMX, PERMY, "
                                           "PERMZ, PORO), the same for a seed on every machine");
  sub->add_option("--out", out, "folder for PERMX.INC, PERMY.INC, PERMZ.INC and PORO.INC")->required();
  sub->add_option("--grid", grid, "NXxNYxNZ")->capture_default_str();
  sub->add_option("--seed", seed, "the generator's seed")->capture_default_str();
  add_common_options(*sub, c, false, false);
  sub->callback([&c] {
    apply_logging(c);
    int nx = 0, ny = 0, nz = 0, used = -1;
    if (std::sscanf(grid.c_str(), "%dx%dx%d%n", &nx, &ny, &nz, &used) != 3 || used != static_cast<int>(grid.size()))
      throw ConfigError("--grid: '" + grid + "' is not NXxNYxNZ");
    const Spe10Fields f = generate_spe10_like(nx, ny, nz, seed);
    const auto paths = io::write_spe10_includes(out, f, seed);
    fmt::print("SPE10-like field {} x {} x {}, seed {}, fingerprint {:016x}\n", nx, ny, nz, seed, fingerprint(f));
    fmt::print("Tarbert-like layers 0..{}, Upper Ness-like {}..{} ({:.0f} % channel cells)\n", f.tarbert_layers - 1,
               f.tarbert_layers, nz - 1, 100 * f.channel_fraction);
    const auto k = field_stats(f.kx), p = field_stats(f.poro);
    fmt::print("{:<10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10}\n", "", "min", "p1", "p10", "p50", "p90", "p99",
               "max", "mean");
    auto row = [](const char* name, const FieldStats& s) {
      fmt::print("{:<10} {:>10.4g} {:>10.4g} {:>10.4g} {:>10.4g} {:>10.4g} {:>10.4g} {:>10.4g} {:>10.4g}\n", name, s.min, s.p01,
                 s.p10, s.p50, s.p90, s.p99, s.max, s.mean);
    };
    row("kx (mD)", k);
    row("poro", p);
    fmt::print("kx spans {:.1f} orders of magnitude (max / min), {:.1f} from p1 to p99; geometric mean {:.3g} mD\n",
               std::log10(k.max / k.min), std::log10(k.p99 / k.p01), k.geo_mean);
    for (const auto& path : paths) fmt::print("wrote {}\n", path);
  });
}

}  // namespace poreflow::app
