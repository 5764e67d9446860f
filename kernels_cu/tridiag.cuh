#pragma once
// Launch wrappers of the tridiag family (kernels_cu/tridiag.cu: its kernels, plan and launches;
// twin kernels_cl/tridiag.cl).
#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>

#include "core/kernels/tridiag.hpp"

namespace poreflow::cu {

// Overrides of the plan's choices, for benchmarks; 0 (split: -1) leaves the choice to the plan.
struct TridiagTuning {
  int rows = 0;    // rows per thread: 4, 8 or 16 (pcr, pcr_thomas: 4 or 8)
  int group = 0;   // systems per block
  int split = -1;  // at least this many PCR levels in global memory before the on-chip solve
  int stop = 0;    // cr_pcr: equations left when CR across threads hands over to PCR
};

// What the plan is made of, and the scratch: a solve's data are launch_tridiag's arguments.
struct TridiagLaunch {
  TridiagAlgo algo = TridiagAlgo::CrPcr;  // a concrete algorithm, not Auto
  TridiagLayout layout = TridiagLayout::Contiguous;
  std::size_t n = 0, batch = 0;      // both > 0
  void* scratch = nullptr;           // tridiag_scratch_bytes() bytes (nullptr when 0)
  std::size_t max_smem = 48 * 1024;  // the device's opt-in shared memory per block
  int sm_count = 1;                  // the device's multiprocessors
  TridiagTuning tune;
};

// Scratch the launch needs: c' of Thomas, or the arrays of the global PCR levels.
template <class T>
std::size_t tridiag_scratch_bytes(const TridiagLaunch& l);
// One line naming the kernels and their configuration, for benchmark logs.
template <class T>
std::string tridiag_describe(const TridiagLaunch& l);
// The solve of a, b, c, d into x (TridiagArgs::kernel_args): x = the solution + add (add null:
// the solution alone); with a guard (a control block, or null) every kernel returns once it says stop.
template <class T>
void launch_tridiag(const T* a, const T* b, const T* c, const T* d, T* x, const T* add, const unsigned long long* guard,
                    const TridiagLaunch& l, cudaStream_t stream);
// The cuda backend's Auto rule (documented in tridiag.cu and docs/tridiag.md).
TridiagAlgo tridiag_auto(Precision prec, TridiagLayout layout, std::size_t n, std::size_t batch);

// cuSPARSE solves in place and wants the ignored couplings zero: x = d, a0 = a with a[first] = 0,
// c0 = c with c[last] = 0, and b0 = b unless b0 is null (gtsvInterleavedBatch takes its
// diagonals as writable arrays, so it gets copies).
template <class T>
void launch_tridiag_vendor_prep(const T* a, const T* b, const T* c, const T* d, T* a0, T* b0, T* c0, T* x,
                                std::size_t n, std::size_t batch, TridiagLayout layout, cudaStream_t stream);

}  // namespace poreflow::cu
