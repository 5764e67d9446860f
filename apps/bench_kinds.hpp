#pragma once
// The benchmark kinds of `poreflow bench`, each filling rows and the copy bandwidth per backend.
#include <string>
#include <utility>
#include <vector>

#include "apps/bench_common.hpp"
#include "backends/registry.hpp"
#include "core/kernels/reduce.hpp"

namespace poreflow::app {

constexpr std::size_t kCopyBytes = std::size_t(1) << 28;  // 256 MiB: far beyond any cache

using BandwidthList = std::vector<std::pair<std::string, double>>;

template <class T>
void bench_reduce(const BenchOptions& o, const BackendOptions& bo, std::vector<BenchRow>& rows, BandwidthList& bw);
template <class T>
void bench_bl1d(const BenchOptions& o, const BackendOptions& bo, std::vector<BenchRow>& rows, BandwidthList& bw);
template <class T>
void bench_tridiag(const BenchOptions& o, const BackendOptions& bo, std::vector<BenchRow>& rows, BandwidthList& bw);
template <class T>
void bench_adi2d(const BenchOptions& o, const BackendOptions& bo, std::vector<BenchRow>& rows, BandwidthList& bw);
template <class T>
void bench_sor3d(const BenchOptions& o, const BackendOptions& bo, std::vector<BenchRow>& rows, BandwidthList& bw);
template <class T>
void bench_fluids3d(const BenchOptions& o, const BackendOptions& bo, std::vector<BenchRow>& rows, BandwidthList& bw);
template <class T>
void bench_linalg(const BenchOptions& o, const BackendOptions& bo, std::vector<BenchRow>& rows, BandwidthList& bw);
template <class T>
void bench_impes3d(const BenchOptions& o, const BackendOptions& bo, std::vector<BenchRow>& rows, BandwidthList& bw);
// whole deck runs per backend against OPM Flow's figures (apps/bench_decks.cpp)
template <class T>
void bench_decks(const BenchOptions& o, const BackendOptions& bo, std::vector<BenchRow>& rows, BandwidthList& bw);
void print_decks_table(const std::vector<BenchRow>& rows);
// the scalar linalg systems decomposed over the MPI processes of the run (apps/bench_linalg_ranks.cpp)
template <class T>
void bench_linalg_ranks(const BenchOptions& o, const BackendOptions& bo, std::vector<BenchRow>& rows, BandwidthList& bw);
void print_linalg_ranks_table(const std::vector<BenchRow>& rows);

// every reduction configuration of a backend (each variant; both combines for the paper
// variants), restricted to --variants
std::vector<ReduceConfig> bench_reduce_configs(Backend& be, const BenchOptions& o);

// paper 002's Tables 2 and 3: seconds per backend and algorithm over the grid sizes, then speedups
void print_adi2d_tables(const std::vector<BenchRow>& rows);
// paper 003's measurements: time per step (or per whole case), cell updates per second, speedup
void print_impes3d_table(const std::vector<BenchRow>& rows);
// paper 001's table: seconds for 100 steps per grid and backend, speedup, the sweep's GB/s
void print_fluids3d_table(const std::vector<BenchRow>& rows);

}  // namespace poreflow::app
