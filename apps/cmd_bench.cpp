// poreflow bench: the command and its kinds (bench_reduce.cpp, bench_bl1d.cpp, bench_tridiag.cpp,
// bench_adi2d.cpp). Every row is verified against the double reference and set against the copy
// bandwidth measured in the same run.
#include <fmt/core.h>
#include <spdlog/spdlog.h>

#include <algorithm>

#include "apps/bench_common.hpp"
#include "apps/bench_kinds.hpp"
#include "apps/common.hpp"

namespace poreflow::app {

void add_bench(CLI::App& app, Common& c) {
  auto* bench = app.add_subcommand("bench", "benchmarks: reduce, bl1d, tridiag, adi2d, sor3d, impes3d, fluids3d");
  bench->require_subcommand(1);
  static BenchOptions o;
  struct Kind {
    const char* name;
    const char* help;
  };
  for (Kind kind : {Kind{"reduce", "reductions: every variant, CUB on cuda, against the copy bandwidth"},
                    Kind{"bl1d", "one fused Jacobi iteration with its convergence check (paper 000)"},
                    Kind{"tridiag", "batched tridiagonal solvers: algorithm x layout x shape, cuSPARSE on cuda"},
                    Kind{"adi2d", "the 100-step adi2d case per backend, algorithm and grid (papers 002/004)"},
                    Kind{"sor3d", "one red-black SOR iteration with its residual per design and shape, cuSPARSE on cuda"},
                    Kind{"impes3d", "time per step of paper 003's cases per backend, and the whole of case 2"},
                    Kind{"fluids3d", "paper 001's table: 100 steps per grid and backend, the lin_solve sweep's GB/s"}}) {
    const std::string k = kind.name;
    auto* sub = bench->add_subcommand(k, kind.help);
    add_common_options(*sub, c, false, true);
    sub->add_option("--backends", o.backends, "comma-separated (default: every available; serial is always added)");
    sub->add_option("--json", o.json, "write the rows to this JSON file");
    sub->add_option("--sample-seconds", o.target, "target duration of one timing sample")
        ->capture_default_str()
        ->check(CLI::Range(1e-6, 60.0));
    if (k == "reduce" || k == "bl1d") {
      sub->add_option("--sizes", o.sizes, "e.g. 2^14..2^26 or 16384,1048576");
      sub->add_option("--variants", o.variants, "only these reduction variants (comma-separated)");
      sub->add_option("--block", o.block, "threads per block of the paper variants")
          ->capture_default_str()
          ->check(CLI::Range(32, 1024));
    }
    if (k == "reduce") sub->add_option("--op", o.op, "sum | min | max | max_abs | max_abs_diff")->capture_default_str();
    if (k == "bl1d")
      sub->add_option("--check-every", o.check_every, "convergence check every K iterations")
          ->capture_default_str()
          ->check(CLI::Range(1, 1 << 20));
    if (k == "tridiag") {
      sub->add_option("--shapes", o.shapes, "n x batch list, e.g. 1025x1025,33x2^19 (default: squares 65..8193 and "
                                            "large batches of small systems)");
      sub->add_option("--variants", o.variants, "only these algorithms (comma-separated)");
    }
    if (k == "adi2d") {
      sub->add_option("--sizes", o.sizes, "grid points per side (default 65,129,257,513,1025,2049,4097)");
      sub->add_option("--variants", o.variants, "only these tridiagonal algorithms (comma-separated)");
      sub->add_option("--steps", o.steps, "time steps of the case")->capture_default_str()->check(CLI::Range(1, 1000000));
      sub->add_option("--cpu-budget", o.serial_budget,
                      "seconds a serial or omp run may take; longer ones are timed over fewer steps and scaled")
          ->capture_default_str()
          ->check(CLI::PositiveNumber);
      sub->add_option("--gpu-budget", o.device_budget, "the same for a cuda or opencl run")
          ->capture_default_str()
          ->check(CLI::PositiveNumber);
    }
    if (k == "sor3d") {
      sub->add_option("--grids", o.sizes, "N^3 or NXxNYxNZ list (default 64^3,128^3,256^3,512x512x64)");
      sub->add_option("--variants", o.variants, "only these designs: simple, tiled, zline, vendor (comma-separated)");
    }
    if (k == "impes3d") {
      sub->add_option("--cases", o.cases, "case1:NXxNYxNZ, fig10:NXxNYxNZ, case2, case2-full (default: paper 003's "
                                          "variants, the figure-10 series, case 2 and its whole run)");
      sub->add_option("--cases-dir", o.cases_dir, "where impes_case1.toml and impes_case2.toml are")->capture_default_str();
      sub->add_option("--steps", o.impes_steps, "most steps timed per grid (serial times fewer within its budget; every "
                                          "backend then times as many)")
          ->capture_default_str()
          ->check(CLI::Range(1, 1000000));
      sub->add_option("--cpu-budget", o.serial_budget, "seconds of timed steps a serial or omp grid may take")
          ->capture_default_str()
          ->check(CLI::PositiveNumber);
      sub->add_option("--gpu-budget", o.device_budget, "the same for cuda and opencl")
          ->capture_default_str()
          ->check(CLI::PositiveNumber);
      sub->add_option("--serial-max-cells", o.serial_max_cells, "larger grids are not run on serial")
          ->capture_default_str()
          ->check(CLI::NonNegativeNumber);
    }
    if (k == "fluids3d") {
      sub->add_option("--sizes", o.sizes, "grid cells per side (default 32,64,...,288 and 42,84,168)");
      sub->add_option("--shapes", o.shapes, "GPU launch shapes of the sweep (default march:32x8,3d:8x8x8,3d:16x16x1)");
      sub->add_option("--cpu-budget", o.serial_budget, "seconds of steps a serial or omp run may take before it is scaled")
          ->capture_default_str()
          ->check(CLI::PositiveNumber);
      sub->add_option("--gpu-budget", o.device_budget, "the same for cuda and opencl")
          ->capture_default_str()
          ->check(CLI::PositiveNumber);
    }
    sub->callback([&c, sub, k] {
      apply_logging(c);
      // benchmarks default to float, as the papers measured
      // (impes3d: double, as its targets are set)
      auto prec = parse_precision(sub->count("--precision") ? c.precision : k == "impes3d" ? "double" : "float");
      const bool f = prec == Precision::Float;
      std::vector<BenchRow> rows;
      std::vector<std::pair<std::string, double>> bw;
      if (k == "reduce") f ? bench_reduce<float>(o, c.backend_opts, rows, bw) : bench_reduce<double>(o, c.backend_opts, rows, bw);
      if (k == "bl1d") f ? bench_bl1d<float>(o, c.backend_opts, rows, bw) : bench_bl1d<double>(o, c.backend_opts, rows, bw);
      if (k == "tridiag")
        f ? bench_tridiag<float>(o, c.backend_opts, rows, bw) : bench_tridiag<double>(o, c.backend_opts, rows, bw);
      if (k == "adi2d") f ? bench_adi2d<float>(o, c.backend_opts, rows, bw) : bench_adi2d<double>(o, c.backend_opts, rows, bw);
      if (k == "sor3d") f ? bench_sor3d<float>(o, c.backend_opts, rows, bw) : bench_sor3d<double>(o, c.backend_opts, rows, bw);
      if (k == "fluids3d")
        f ? bench_fluids3d<float>(o, c.backend_opts, rows, bw) : bench_fluids3d<double>(o, c.backend_opts, rows, bw);
      if (k == "impes3d")
        f ? bench_impes3d<float>(o, c.backend_opts, rows, bw) : bench_impes3d<double>(o, c.backend_opts, rows, bw);
      if (k != "impes3d" && k != "fluids3d")  // these fill their own: serial over the same steps
        fill_speedups(rows, k == "tridiag" || k == "adi2d" ? "thomas" : k == "sor3d" ? "simple" : "serial");
      if (k == "adi2d")
        print_adi2d_tables(rows);
      else if (k == "impes3d")
        print_impes3d_table(rows);
      else if (k == "fluids3d")
        print_fluids3d_table(rows);
      else
        print_rows(rows, k == "reduce" ? "us" : k == "bl1d" || k == "sor3d" ? "us/it" : "us");
      for (const auto& [name, gbps] : bw) fmt::print("copy bandwidth {}: {:.1f} GB/s (read + write)\n", name, gbps);
      if (!o.json.empty()) {
        write_json(o.json, k, rows, bw);
        fmt::print("wrote {}\n", o.json);
      }
      if (std::any_of(rows.begin(), rows.end(), [](const BenchRow& r) { return !r.verified; })) {
        spdlog::error("bench: some rows failed verification (marked NO)");
        c.exit_code = 1;
      }
    });
  }
}

}  // namespace poreflow::app
