#pragma once
// Small vocabulary types shared by the core, the backends and the apps.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace poreflow {

enum class Precision { Float, Double };

inline std::size_t size_of(Precision p) { return p == Precision::Float ? sizeof(float) : sizeof(double); }
const char* to_string(Precision p);
Precision parse_precision(std::string_view s);  // "float" | "double", else ConfigError

template <class T>
constexpr Precision precision_of();
template <>
constexpr Precision precision_of<float>() { return Precision::Float; }
template <>
constexpr Precision precision_of<double>() { return Precision::Double; }

// ---- reductions ---------------------------------------------------------------------------
enum class ReduceOp { Sum, Min, Max, MaxAbs, MaxAbsDiff };
const char* to_string(ReduceOp op);
ReduceOp parse_reduce_op(std::string_view s);

// The block-level algorithm. The first five are paper 000's variants (GPU backends only);
// Fast is poreflow's best GPU reduction; OmpReduction/OmpBlocked belong to omp; Serial to serial.
enum class ReduceVariant {
  InterleavedDivergent,
  Interleaved,
  Sequential,
  UnrollLastWarp,
  CompleteUnroll,
  Fast,
  OmpReduction,
  OmpBlocked,
  Serial,
};
const char* to_string(ReduceVariant v);
// Accepts every variant name and "auto" (returns nullopt-like flag through `is_auto`).
ReduceVariant parse_reduce_variant(std::string_view s, bool* is_auto = nullptr);
std::vector<ReduceVariant> paper_variants();

// How the per-block results of a paper variant are combined: on the device with atomics
// (paper 000) or by copying them to the host (papers 001, 003).
enum class Combine { Atomic, Host };
const char* to_string(Combine c);
Combine parse_combine(std::string_view s);

struct ReduceConfig {
  ReduceVariant variant = ReduceVariant::Fast;
  Combine combine = Combine::Atomic;
  int block = 512;  // threads per block / work-items per group for the paper variants
};

// ---- pressure iteration ---------------------------------------------------------------------
// Dp: the paper's max |p_new - p_old|. Residual: max flux imbalance of a cell relative to the
// through-flux scale (the solver turns the relative tolerance into an absolute threshold).
enum class JacobiMetric { Dp, Residual };
const char* to_string(JacobiMetric m);
JacobiMetric parse_jacobi_metric(std::string_view s);

// ---- batched tridiagonal solves -------------------------------------------------------------
// Algorithms of papers 002/004 and beyond: Thomas (one thread per system), cyclic reduction,
// parallel cyclic reduction, the CR+PCR hybrid (Zhang, Cohen, Owens) and PCR+Thomas; Auto picks
// by n, batch and layout (each backend documents its rule).
enum class TridiagAlgo { Thomas, CR, PCR, CrPcr, PcrThomas, Auto };
const char* to_string(TridiagAlgo a);
TridiagAlgo parse_tridiag_algo(std::string_view s);
std::vector<TridiagAlgo> tridiag_algos();  // every concrete algorithm (not Auto)

// contiguous: unknown i of system s at s * n + i (rows of a grid: the x-sweep);
// interleaved: at i * batch + s (columns: the y-sweep). No transpose either way.
enum class TridiagLayout { Contiguous, Interleaved };
const char* to_string(TridiagLayout l);
TridiagLayout parse_tridiag_layout(std::string_view s);

}  // namespace poreflow
