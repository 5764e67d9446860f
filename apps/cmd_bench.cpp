// poreflow bench: the command and its kinds (bench_<kind>.cpp), dispatched from one table. Every
// row is verified against the double reference and set against the copy bandwidth measured in
// the same run.
#include <fmt/core.h>
#include <spdlog/spdlog.h>

#include <algorithm>

#include "apps/bench_common.hpp"
#include "apps/bench_kinds.hpp"
#include "apps/bench_linalg.hpp"
#include "core/comm/mpi.hpp"
#include "apps/common.hpp"
#include "apps/options.hpp"

namespace poreflow::app {

namespace {

using BenchFn = void (*)(const BenchOptions&, const BackendOptions&, std::vector<BenchRow>&, BandwidthList&);

// One kind of `poreflow bench`: its runs in float and double, its options, and how its rows are
// compared and printed.
struct BenchKind {
  const char* name;
  const char* help;
  BenchFn run_float, run_double;
  const char* default_precision;  // the papers measured in float; impes3d's targets are set in double
  void (*options)(CLI::App& sub, BenchOptions& o);
  const char* speedup_baseline;  // the serial row's variant each row is set against; nullptr: the kind fills its own
  void (*print)(const std::vector<BenchRow>& rows);
};

void sizes_options(CLI::App& sub, BenchOptions& o, const char* sizes_help) {
  sub.add_option("--sizes", o.sizes, sizes_help);
}
void cpu_gpu_budgets(CLI::App& sub, BenchOptions& o, const char* cpu_help, const char* gpu_help) {
  sub.add_option("--cpu-budget", o.serial_budget, cpu_help)->capture_default_str()->check(positive_number());
  sub.add_option("--gpu-budget", o.device_budget, gpu_help)->capture_default_str()->check(positive_number());
}
void reduce_like_options(CLI::App& sub, BenchOptions& o) {
  sizes_options(sub, o, "e.g. 2^14..2^26 or 16384,1048576");
  sub.add_option("--variants", o.variants, "only these reduction variants (comma-separated)");
  sub.add_option("--block", o.block, "threads per block of the paper variants")->capture_default_str()->check(int_in(32, 1024));
}

void reduce_options(CLI::App& sub, BenchOptions& o) {
  reduce_like_options(sub, o);
  sub.add_option("--op", o.op, "sum | min | max | max_abs | max_abs_diff")->capture_default_str();
}
void bl1d_options(CLI::App& sub, BenchOptions& o) {
  reduce_like_options(sub, o);
  sub.add_option("--check-every", o.check_every, "convergence check every K iterations")
      ->capture_default_str()
      ->check(int_in(1, 1 << 20));
}
void tridiag_options(CLI::App& sub, BenchOptions& o) {
  sub.add_option("--shapes", o.shapes, "n x batch list, e.g. 1025x1025,33x2^19 (default: squares 65..8193 and "
                                       "large batches of small systems)");
  sub.add_option("--variants", o.variants, "only these algorithms (comma-separated)");
}
void adi2d_options(CLI::App& sub, BenchOptions& o) {
  sizes_options(sub, o, "grid points per side (default 65,129,257,513,1025,2049,4097)");
  sub.add_option("--variants", o.variants, "only these tridiagonal algorithms (comma-separated)");
  sub.add_option("--steps", o.steps, "time steps of the case")->capture_default_str()->check(int_in(1, 1000000));
  cpu_gpu_budgets(sub, o, "seconds a serial or omp run may take; longer ones are timed over fewer steps and scaled",
                  "the same for a cuda or opencl run");
}
void sor3d_options(CLI::App& sub, BenchOptions& o) {
  sub.add_option("--grids", o.sizes, "N^3 or NXxNYxNZ list (default 64^3,128^3,256^3,512x512x64)");
  sub.add_option("--variants", o.variants, "only these designs: simple, tiled, zline, vendor (comma-separated)");
}
void impes3d_options(CLI::App& sub, BenchOptions& o) {
  sub.add_option("--cases", o.cases, "case1:NXxNYxNZ, fig10:NXxNYxNZ, case2, case2-full (default: paper 003's "
                                     "variants, the figure-10 series, case 2 and its whole run)");
  sub.add_option("--cases-dir", o.cases_dir, "where impes_case1.toml and impes_case2.toml are")->capture_default_str();
  sub.add_option("--steps", o.impes_steps, "most steps timed per grid (serial times fewer within its budget; every "
                                           "backend then times as many)")
      ->capture_default_str()
      ->check(int_in(1, 1000000));
  cpu_gpu_budgets(sub, o, "seconds of timed steps a serial or omp grid may take", "the same for cuda and opencl");
  sub.add_option("--serial-max-cells", o.serial_max_cells, "larger grids are not run on serial")
      ->capture_default_str()
      ->check(int_at_least(0));
}
void fluids3d_options(CLI::App& sub, BenchOptions& o) {
  sizes_options(sub, o, "grid cells per side (default 32,64,...,288 and 42,84,168)");
  sub.add_option("--shapes", o.shapes, "GPU launch shapes of the sweep (default march:32x8,3d:8x8x8,3d:16x16x1)");
  cpu_gpu_budgets(sub, o, "seconds of steps a serial or omp run may take before it is scaled", "the same for cuda and opencl");
}

void linalg_options(CLI::App& sub, BenchOptions& o) {
  sizes_options(sub, o, "products: grids N^3 (or N) of the 7-point operator (stencil7 and csr), 27-point grids 27ptN, "
                        "dense coarse levels denseN; dots: dotN (e.g. dot2^24, both precisions); systems (double): "
                        "poissonN, spe10[:NXxNYxNZ], spe10-2p[:NXxNYxNZ], impes-case2[:DAY] (impes3d case 2's pressure "
                        "system of the step after DAY, default 225, from a run of the model; --cases-dir) (default "
                        "64^3,128^3,256^3,27pt96,dense500,dot2^20,dot2^24,dot2^26 and, in double, poisson128,poisson256,spe10,"
                        "spe10-2p,impes-case2)");
  sub.add_option("--cases-dir", o.cases_dir, "systems: where impes_case2.toml is")->capture_default_str();
  sub.add_option("--variants", o.variants, "products only these: auto (the lanes rule), 1, 2, 4, 8, 16, 32 (lanes forced "
                                           "on the GPU backends), vendor (comma-separated)");
  sub.add_option("--solvers", o.solvers, "systems: only these solvers: sor, jacobi, ilu0, amg, amg-w (W-cycle), amg-f (AMG in float under CG in double), cpr, cpr-f (its pressure AMG in float) (comma-separated)");
  sub.add_option("--sor-omega", o.sor_omega, "systems: SOR's omega, or auto (Young's optimum: Poisson's closed form, "
                                              "else from a host Lanczos estimate), or lanczos (the estimate everywhere)")
      ->capture_default_str();
  sub.add_option("--sor-check-every", o.sor_check_every, "systems: SOR iterations between two residual checks")
      ->capture_default_str()
      ->check(CLI::Range(1, 1 << 20));
  sub.add_option("--amg-degree", o.amg_degree, "systems: the AMG smoother's Chebyshev degree, before and after the coarse "
                                               "correction (amg, amg-w, amg-f and cpr rows)")
      ->capture_default_str()
      ->check(CLI::Range(1, 10));
  sub.add_option("--amg-coarse-degree", o.amg_coarse_degree, "systems: the same on the levels below the finest; 0: "
                                                             "--amg-degree")
      ->capture_default_str()
      ->check(CLI::Range(0, 10));
  sub.add_option("--amg-chebyshev", o.amg_chebyshev, "systems: the AMG smoother's Chebyshev polynomial: first (kind, "
                                                     "over [hi/30, hi]) or fourth (kind, over [0, hi]; docs/linalg.md)")
      ->capture_default_str()
      ->check(CLI::IsMember({"first", "fourth"}));
  sub.add_option("--amg-upper", o.amg_upper, "systems: the AMG smoothers' upper end of D^-1 A's spectrum, times each "
                                             "level's estimate (AmgConfig::upper)")
      ->capture_default_str()
      ->check(CLI::Range(0.5, 4.0));
  sub.add_option("--amg-tail-rows", o.amg_tail_rows, "systems: AMG's levels below the finest of at most so many rows, "
                                                     "down to the coarsest, cycle in one launch of one work-group (0: a launch a step; -1: the backend's choice)")
      ->capture_default_str()
      ->check(CLI::Range(-1L, 1L << 30));
  sub.add_option("--amg-coarse-size", o.amg_coarse_size, "systems: the AMG's coarsest level of at most so many rows, "
                                                       "solved by its dense inverse (0: AmgOptions's 500)")
      ->capture_default_str()
      ->check(CLI::Range(0L, 2000L));
  sub.add_option("--amg-fused", o.amg_fused, "systems: every level's Chebyshev steps in one pass each (a 7-point "
                                             "finest level and the scalar CSR levels; false: a residual and an update)")
      ->capture_default_str();
  sub.add_option("--cuda-graphs", o.cuda_graphs, "systems: the Krylov rows record two iterations and replay them as a CUDA "
                                                 "graph on cuda (docs/linalg.md); false: every launch enqueued")
      ->capture_default_str();
  sub.add_option("--solves", o.solves, "systems: timed solves per row (the median; fewer where the budget says)")
      ->capture_default_str()
      ->check(CLI::Range(1, 100));
  cpu_gpu_budgets(sub, o, "systems: seconds the solves of one row may take on serial or omp (a row that would take "
                          "longer says so instead)",
                  "the same for cuda and opencl");
}

void linalg_ranks_options(CLI::App& sub, BenchOptions& o) {
  sizes_options(sub, o, "systems: poissonN, spe10[:NXxNYxNZ] (default poisson128,spe10)");
  sub.add_option("--solvers", o.solvers, "jacobi, ilu0, amg-local (AMG per process), amg (its coarse level across processes) (comma-separated; default all)");
  sub.add_option("--solves", o.solves, "timed solves per row (the median)")->capture_default_str()->check(CLI::Range(1, 100));
}

void decks_options(CLI::App& sub, BenchOptions& o) {
  sub.add_option("--decks", o.decks, "Eclipse decks to run whole (comma-separated; serial runs them only where --backends "
                                     "names it or is not given)")->capture_default_str();
  sub.add_option("--opm-reference", o.opm_reference, "a decks.json holding OPM Flow's runs of the same decks "
                                                     "(bench/results/2026-11-26_h100_fim/decks.json: its NAME_flow entries)");
}

void print_us(const std::vector<BenchRow>& rows) { print_rows(rows, "us"); }
void print_us_per_iteration(const std::vector<BenchRow>& rows) { print_rows(rows, "us/it"); }

const BenchKind kKinds[] = {
    {"reduce", "reductions: every variant, CUB on cuda, against the copy bandwidth", bench_reduce<float>,
     bench_reduce<double>, "float", reduce_options, "serial", print_us},
    {"bl1d", "one fused Jacobi iteration with its convergence check (paper 000)", bench_bl1d<float>, bench_bl1d<double>,
     "float", bl1d_options, "serial", print_us_per_iteration},
    {"tridiag", "batched tridiagonal solvers: algorithm x layout x shape, cuSPARSE on cuda", bench_tridiag<float>,
     bench_tridiag<double>, "float", tridiag_options, "thomas", print_us},
    {"adi2d", "the 100-step adi2d case per backend, algorithm and grid (papers 002/004)", bench_adi2d<float>,
     bench_adi2d<double>, "float", adi2d_options, nullptr, print_adi2d_tables},
    {"sor3d", "one red-black SOR iteration with its residual per design and shape, cuSPARSE on cuda", bench_sor3d<float>,
     bench_sor3d<double>, "float", sor3d_options, "simple", print_us_per_iteration},
    {"linalg", "sparse products y = A x (stencil7 and block CSR of 7-point grids, 27-point grids, a dense coarse level; "
               "cuSPARSE on cuda), dot products (CUB on cuda), and systems solved to 1e-8 by SOR, CG + Jacobi, ILU0, "
               "AMG and BiCGSTAB + CPR",
     bench_linalg<float>, bench_linalg<double>, "double", linalg_options, nullptr, print_linalg_tables},
    {"linalg-ranks", "the scalar systems of linalg cut into one box per MPI process (mpirun -n P poreflow bench "
                     "linalg-ranks): CG with Jacobi, with ILU0 or AMG per process, and with AMG across processes; iterations, "
                     "setup, solve (default "
                     "backend omp)",
     bench_linalg_ranks<float>, bench_linalg_ranks<double>, "double", linalg_ranks_options, nullptr, print_linalg_ranks_table},
    {"impes3d", "time per step of paper 003's cases per backend, and the whole of case 2", bench_impes3d<float>,
     bench_impes3d<double>, "double", impes3d_options, nullptr, print_impes3d_table},
    {"fluids3d", "paper 001's table: 100 steps per grid and backend, the lin_solve sweep's GB/s", bench_fluids3d<float>,
     bench_fluids3d<double>, "float", fluids3d_options, nullptr, print_fluids3d_table},
    {"decks", "whole Eclipse deck runs per backend (decks run fully implicit): time, steps, Newton and linear iterations, "
              "against OPM Flow's figures",
     bench_decks<float>, bench_decks<double>, "double", decks_options, nullptr, print_decks_table},
};

}  // namespace

void add_bench(CLI::App& app, Common& c) {
  std::string names;
  for (const BenchKind& k : kKinds) names += (names.empty() ? "" : ", ") + std::string(k.name);
  auto* bench = app.add_subcommand("bench", "benchmarks: " + names);
  bench->require_subcommand(1);
  static BenchOptions o;
  for (const BenchKind& kind : kKinds) {
    auto* sub = bench->add_subcommand(kind.name, kind.help);
    add_common_options(*sub, c, false, true, kind.default_precision);
    sub->add_option("--backends", o.backends, "comma-separated (default: every available; serial is always added, except by bench decks and the systems of bench linalg, which run it only where named or where --backends is not given)");
    sub->add_option("--json", o.json, "write the rows to this JSON file")->check(not_empty());
    sub->add_option("--sample-seconds", o.target, "target duration of one timing sample")
        ->capture_default_str()
        ->check(number_in(1e-6, 60.0));
    kind.options(*sub, o);
    sub->callback([&c, sub, &kind] {
      apply_logging(c);
      if (c.processes > 1 && std::string(kind.name) != "linalg-ranks")
        throw ConfigError(std::string("bench ") + kind.name + " runs as one process; under mpirun only bench linalg-ranks runs "
                          "(docs/mpi.md)");
      const auto prec = parse_precision(sub->count("--precision") ? c.precision : kind.default_precision);
      std::vector<BenchRow> rows;
      BandwidthList bw;
      (prec == Precision::Float ? kind.run_float : kind.run_double)(o, c.backend_opts, rows, bw);
      if (kind.speedup_baseline) fill_speedups(rows, kind.speedup_baseline);
      // under mpirun every process measures; rank 0 reports
      const mpi::Session* session = mpi::Session::current();
      const bool reporter = !session || session->rank() == 0;
      if (reporter) kind.print(rows);
      if (reporter)
        for (const auto& [name, gbps] : bw) fmt::print("copy bandwidth {}: {:.1f} GB/s (read + write)\n", name, gbps);
      if (reporter && !o.json.empty()) {
        write_json(o.json, kind.name, rows, bw);
        fmt::print("wrote {}\n", o.json);
      }
      if (std::any_of(rows.begin(), rows.end(), [](const BenchRow& r) { return r.ran && !r.verified; })) {
        spdlog::error("bench: some rows failed verification (marked NO)");
        c.exit_code = 1;
      }
    });
  }
}

}  // namespace poreflow::app
