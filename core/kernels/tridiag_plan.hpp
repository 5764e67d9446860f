#pragma once
// The CUDA tridiag family's plan (kernels_cu/tridiag.cu runs it): which kernels solve a batch of
// systems of a shape, with how many rows per thread, threads per system, systems per block, shared
// memory, and how many PCR levels run in global memory first (docs/tridiag.md). Host code, device
// neutral: it needs of the kernels only the numbers below, which kernels_cu/tridiag.cu uses too
// (its launch bounds, its shared-memory layouts), so that the plan and the kernels cannot disagree.
//
// The OpenCL plan (backends/opencl/tridiag.cpp) is a port of this one for work-groups and local
// memory; it shares the register table (max_threads, cr_max_threads) and the layout helpers.
#include <cstddef>
#include <string>

#include "core/kernels/tridiag.hpp"
#include "core/kernels/tridiag_view.hpp"

namespace poreflow::tri {

// ---- what the plan needs of the kernels ---------------------------------------------------------

constexpr int kThomasBlock = 128;  // thomas_direct_kernel: threads per block (at most)
constexpr int kTileSys = 32;       // thomas_tiled_kernel: systems (threads) per block
constexpr int kTileRows = 32;      // ... and rows per tile: 32 consecutive values of one system per warp access
constexpr int kCrPcrStop = 128;    // CR+PCR: CR across threads down to this many equations, then PCR
constexpr int kGlobalBlock = 256;  // pcr_global_kernel: threads per block
constexpr int kSplitThreads = 256; // pcr_split_kernel: threads per block
constexpr int kSplitGroup = 8;     // pcr_split_kernel, interleaved: systems side by side in a tile
constexpr int kSplitBytes = 48 * 1024;  // pcr_split_kernel: shared memory of its two tile buffers

// Threads per block of a kernel whose threads hold M equations (4M values of value_bytes each) in
// registers: the most that leave each thread the registers it needs without spills (ptxas -v on
// an H100; a block's warps are allotted registers in groups of four, so the counts are multiples
// of 128 threads).
constexpr int max_threads(std::size_t value_bytes, int M) {
  return value_bytes == 4 ? (M <= 4 ? 1024 : M == 8 ? 640 : 512) : (M <= 4 ? 640 : M == 8 ? 512 : 384);
}
// The staged (persistent) CR kernel keeps a few more values live: double with 8 rows and float
// with 16 need more than the 128 registers of 512 threads.
constexpr int cr_max_threads(std::size_t value_bytes, int M, bool staged) {
  return staged && ((value_bytes == 8 && M == 8) || (value_bytes == 4 && M == 16)) ? 384 : max_threads(value_bytes, M);
}
constexpr int log2_of(int M) { return M <= 1 ? 0 : 1 + log2_of(M / 2); }
// Values the CR part of cr_kernel needs in shared memory per thread of the block.
constexpr int cr_work_per_thread(int M) { return 4 * log2_of(M) > 9 ? 4 * log2_of(M) : 9; }
// One gap every 32 (4-byte values) or 16 (8-byte) values: a warp reading rows tM + j of a staged
// plane is conflict-free.
constexpr int pad(std::size_t value_bytes, int f) { return f + (f >> (value_bytes == 4 ? 5 : 4)); }
// Shared memory of a staged group, per plane: the coefficients of G systems of n rows.
constexpr int staged_plane(std::size_t value_bytes, int G, int n) { return pad(value_bytes, G * n) + 1; }
// thomas_tiled_kernel's shared memory, bytes
constexpr std::size_t tiled_smem_bytes(std::size_t value_bytes) { return 4 * kTileSys * (kTileRows + 1) * value_bytes; }
// pcr_split_kernel: (R + 2H) * G values of each of its 8 planes
constexpr int split_tile_values(std::size_t value_bytes) { return kSplitBytes / (8 * static_cast<int>(value_bytes)); }
// Rows per thread cr_kernel is built for (pcr_kernel: 4 and 8).
constexpr int kMaxRows = 16;

// ---- the plan ------------------------------------------------------------------------------------

// Overrides of the plan's choices, for benchmarks; 0 (split: -1) leaves the choice to the plan.
struct Tuning {
  int rows = 0;    // rows per thread: 4, 8 or 16 (pcr, pcr_thomas: 4 or 8)
  int group = 0;   // systems per block
  int split = -1;  // at least this many PCR levels in global memory before the on-chip solve
  int stop = 0;    // cr_pcr: equations left when CR across threads hands over to PCR
};

// A launch's shape: what the plan is made of.
struct Shape {
  TridiagAlgo algo = TridiagAlgo::CrPcr;  // a concrete algorithm, not Auto
  TridiagLayout layout = TridiagLayout::Contiguous;
  std::size_t n = 0, batch = 0;      // both > 0
  std::size_t value_bytes = 8;       // 4 (float) or 8 (double)
  std::size_t max_smem = 48 * 1024;  // the device's opt-in shared memory per block
  int sm_count = 1;                  // the device's multiprocessors
  Tuning tune;
};

enum class Kern { ThomasDirect, ThomasTiled, Cr, Pcr };

// A pass of global PCR levels: spans s0 .. s0 * 2^(k-1); tile rows R (0: one level, one equation
// per thread, pcr_global_kernel).
struct SplitPass {
  int s0 = 1, k = 1, R = 0;
};

struct Plan {
  Kern kern = Kern::ThomasDirect;
  int M = 0, P = 0, G = 1;  // rows per thread, threads per system, systems per block
  int stop = 1;             // cr_kernel: CR across threads down to this many equations, then PCR
  bool staged = false;      // cr_kernel: contiguous systems through shared memory, persistent blocks
  unsigned K = 1;           // subsystems per system after log2(K) global PCR levels
  int npass = 0;
  SplitPass pass[16];
  int threads = 0;
  std::size_t grid = 0, smem = 0;  // staged: grid is the number of groups (the launch takes fewer)
  std::size_t scratch = 0;         // values
  int mcap = 0;                    // longest (sub)system
  View view;                       // what the last kernel solves
};

// Default rows per thread: few threads per system for short ones (fewer levels across threads),
// more rows per thread as systems grow (the block's thread limit). Interleaved views take 16
// rows from 512 on: more systems per block, or none split (measured).
inline int default_rows(std::size_t m, bool inter) { return m <= 256 ? 4 : inter || m > 2048 ? 16 : 8; }

// The plan of a shape; BackendError when no kernel configuration fits.
Plan make_plan(const Shape& s);
// The cuda backend's Auto rule (documented in tridiag_plan.cpp and docs/tridiag.md; the opencl
// backend uses it too).
TridiagAlgo auto_algo(TridiagLayout layout, std::size_t n, std::size_t batch);
// make_plan's answer, worked out once per shape (a plan costs microseconds of host work, and ADI
// solves the same two shapes thousands of times in tiny launches); thread-safe.
Plan plan_of(const Shape& s);
// One line naming the kernels and their configuration, for benchmark logs.
std::string describe(const Plan& p, std::size_t value_bytes);

}  // namespace poreflow::tri
