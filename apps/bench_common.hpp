#pragma once
// Benchmark plumbing: timing, the copy-bandwidth yardstick, random data, result rows and JSON.
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "core/kernels/backend.hpp"
#include "core/models/model.hpp"

namespace poreflow::app {

struct Timing {
  double median = 0, min = 0;  // seconds per operation
  long reps = 0;               // operations per sample
};

// Times `op` in samples of `reps` back-to-back calls followed by `finish()` (a device sync),
// after a warm-up; reps is chosen so a sample takes about target_s. Wall clock on the host: for
// asynchronous backends the launches pipeline, so a sample measures device time plus whatever
// launch cost the device cannot hide (the cost a user sees).
Timing measure(const std::function<void()>& op, const std::function<void()>& finish, double target_s = 0.02,
               int samples = 7, long max_reps = 1'000'000);

// Device-to-device copy bandwidth in GB/s counting bytes read plus bytes written.
double copy_bandwidth(Backend& be, std::size_t bytes);

// Seconds on the steady clock, and since a time point of it.
double now_s();
double since(std::chrono::steady_clock::time_point t0);

// Deterministic fast random numbers in [lo, hi) for large benchmark inputs.
std::vector<double> bench_random(std::size_t n, double lo, double hi, std::uint64_t seed);

struct BenchRow {
  std::string bench, backend, device, variant, combine, precision;
  std::size_t size = 0;     // elements, points, unknowns per system or grid points per side
  std::size_t batch = 1;    // systems (tridiag)
  std::string layout;       // tridiag: contiguous | interleaved
  Timing t;
  double bytes = 0;         // minimal bytes one operation must move
  double gbps = 0;          // bytes / median time
  double copy_gbps = 0;     // measured in the same run on the same backend
  double ratio_copy = 0;    // gbps / copy_gbps
  double speedup = 0;       // serial median / this median (0: no serial row)
  bool verified = false;    // result checked (what against: `checked`)
  // false: not run to a result (the note says why: the memory it needs, a solve's time budget, an
  // algorithm a CPU backend does not time), so nothing verified either; such a row is no failure
  bool ran = true;
  std::string checked;      // what `verified` checked, in words (JSON "checked"); empty: the bench's usual check
  std::string timing;       // how the time was taken, where not the generic median of samples (JSON "timing")
  std::string note;
  // further keys of the row's JSON object, after the common ones (a kind's own measurements:
  // iterations, setup seconds, residuals); none for most kinds
  using Extra = std::variant<long, double, std::string, bool>;
  std::vector<std::pair<std::string, Extra>> extra;
  void set(const std::string& key, Extra v);
  const Extra* get(const std::string& key) const;
};

struct BenchOptions {
  std::string backends, sizes, json, op = "max_abs_diff", variants, shapes;
  int check_every = 1;
  int block = 512;
  double target = 0.02;
  double serial_budget = 30;  // adi2d: seconds a serial or omp run may take before it is scaled
  double device_budget = 30;  // adi2d: the same for cuda and opencl
  int steps = 100;            // adi2d
  int impes_steps = 10;       // impes3d: the most steps timed per grid
  std::string cases;          // impes3d: case1:NXxNYxNZ, fig10:..., case2, case2-full
  std::string cases_dir = "cases";
  long serial_max_cells = 3'000'000;  // impes3d: larger grids are not run on serial
  std::string solvers;                // linalg: the systems' solvers (sor, jacobi, ilu0, amg, cpr); empty: all
  std::string sor_omega = "auto";     // linalg: SOR's omega, or auto (Young's optimum, docs/linalg.md)
  int sor_check_every = 20;           // linalg: SOR iterations between two residual checks
  int amg_degree = 3;                 // linalg: the AMG smoother's Chebyshev degree (amg, amg-w, amg-f and cpr rows)
  int amg_coarse_degree = 0;          // linalg: the same below the finest level; 0: amg_degree
  double amg_upper = 1.1;             // linalg: the smoothers' upper end over the level's spectrum estimate
  bool amg_fused = true;              // linalg: every level's Chebyshev steps in one pass each
  long amg_tail_rows = 0;             // linalg: AMG's levels of at most so many rows in one launch (AmgConfig::tail_rows)
  long amg_coarse_size = 0;           // linalg: the coarsest level's rows at most (AmgOptions::coarse_size); 0: the row's default
  std::string amg_chebyshev = "first";  // linalg: the smoother's Chebyshev polynomial, first or fourth kind
  bool cuda_graphs = true;            // linalg: the Krylov rows replay their iterations as CUDA graphs on cuda
  int solves = 3;                     // linalg: timed solves per system and solver (the median)
  std::string decks = "validation/decks/HETERO.DATA,validation/decks/LAYERED.DATA";  // decks: the decks run
  std::string opm_reference;          // decks: a decks.json with OPM Flow's figures (NAME_flow runs)
};

// The backends to run: the list given (or every available one) with serial first, the baseline.
std::vector<std::string> bench_backends(const BenchOptions& o);
// whether --backends names serial or is not given: the benches whose serial rows may take hours
// (whole decks, large systems) run serial only then
bool serial_asked(const BenchOptions& o);

// speedup of every row against the serial row of the same size, batch and layout whose variant is
// `baseline` ("serial" for reduce and bl1d, "thomas" for tridiag and adi2d)
void fill_speedups(std::vector<BenchRow>& rows, const std::string& baseline);

BenchRow make_row(std::string bench, std::string backend, std::string device, std::string variant, std::string combine,
                  std::string precision, std::size_t size, const Timing& t, double bytes);

// Parses "16384,2^20,2^14..2^18" (a range doubles from its start to its end). A size past 2^48
// (core/base/limits.hpp) is refused naming `option` and the limit.
std::vector<std::size_t> parse_sizes(const std::string& s, const std::string& option = "--sizes");

// Before a bench allocates a size: refuses (ConfigError: what, the bytes needed, what is free) one
// whose arrays do not fit, `device_bytes` on the backend (its largest buffer `largest`) and
// `host_bytes` of the bench's own host arrays (references, inputs) in the host's memory.
void check_bench_memory(const std::string& what, const Backend& be, Precision prec, std::size_t device_bytes,
                        std::size_t largest, std::size_t host_bytes);

// The largest difference of `got` from `want` over their fields, each relative to the field's
// largest |value| (as `poreflow compare` measures), and the field it is in; infinite where `got`
// holds a value that is not finite or the fields do not match in number or size.
struct FieldDifference {
  double max_rel = 0;
  std::string field;
};
FieldDifference field_difference(const std::vector<NamedField>& want, const std::vector<NamedField>& got);

void print_rows(const std::vector<BenchRow>& rows, const char* time_unit_label);
void write_json(const std::string& path, const std::string& bench, const std::vector<BenchRow>& rows,
                const std::vector<std::pair<std::string, double>>& copy_bw);

}  // namespace poreflow::app
