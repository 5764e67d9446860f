#pragma once
// The sor3d family: red-black SOR on the 7-point operator of a box (core/physics/sor3d.h), with
// the residual reduced and the convergence decided on the device as jacobi1d does (the fused stop
// of core/base/converge.h): the host reads the control block once per batch of iterations.
// impes3d solves its pressure equation with it; fluids3d's red-black sweeps share its layout.
#include <string>
#include <string_view>

#include "core/kernels/backend.hpp"
#include "core/kernels/box3.hpp"
#include "core/kernels/control.hpp"
#include "core/kernels/kernel_args.hpp"

namespace poreflow {

// How the GPU backends run a colour sweep (host backends: an OpenMP loop over rows either way).
//   Simple: one thread per cell of the colour, neighbours from global memory (through the caches),
//           over the launch shape (march:BXxBY or 3d:BXxBYxBZ, over half-rows x rows x layers).
//   Tiled:  paper 003's design: 2D blocks of BX x BY threads over (half-row, row) tiles marching
//           along k through a chunk of layers, the k - 1, k, k + 1 planes in shared (local)
//           memory, each plane stored by colour in padded rows so that no two threads of a warp
//           hit the same bank. Needs a march shape.
//   Zline:  line SOR along k: columns coloured by (i + j) parity, each solved exactly along k
//           (Thomas, one thread per column) and relaxed; its factors go through `scratch`,
//           computed once a solve, before iteration 0 (the coefficients must not change
//           between the iterations of one solve). Far
//           fewer iterations where the vertical coupling dominates (thin layers: reservoirs),
//           at less parallelism per sweep. The same semantics on every backend.
enum class SorDesign { Simple, Tiled, Zline };
const char* to_string(SorDesign d);
SorDesign parse_sor_design(std::string_view s);

// Iteration `it` is a red sweep (colour 0) then a black sweep (colour 1), each updating every cell
// of its colour: p += omega * res / D, res = R - D p + the neighbours' terms, from the current
// values of the other colour (Zline: every column of its colour, core/physics/sor3d.h). Every backend sweeps in this order and computes the same iterates
// to rounding. With a check (fused_plan(it, check_every)), both sweeps fold the largest |res| they
// saw (each row's residual just before its update) into the check's slot; the red sweep of the
// next iteration decides (converged when it is below `threshold`; stopped on NaN); launches after
// a stop return at once, so the iteration count is exact.
class Sor3DSplit;

struct Sor3DArgs {
  Precision prec = Precision::Double;
  Box3 box;                   // p's box: halo >= 1 (boundary neighbours are read, times a zero coefficient)
  Buffer* p = nullptr;        // updated in place
  const Buffer* coef = nullptr;  // PF_SOR_NCOEF colour-packed arrays of the box's cells (core/base/rb3.h)
  double omega = 1.0;         // (0, 2)
  double threshold = 0;       // absolute threshold on max |residual|; 0: never converges
  int check_every = 1;
  SorDesign design = SorDesign::Simple;
  BoxShape shape;             // zline: the threads of a block over (half-row, row) columns
  Buffer* ctrl = nullptr;     // a control block (kControlBytes)
  // zline on cuda and opencl: 1 a thread per column, 32 a warp (32 work-items) per column, 0
  // automatic (sor3d_zline_wide). The same arithmetic either way. Host backends: a thread.
  int zline_lanes = 0;
  Buffer* scratch = nullptr;  // zline: 3 x p's extent values (the columns' factors, filled by iteration 0)
  const Sor3DSplit* split = nullptr;  // a run cut between processes (Sor3DSplit); nullptr in one process

  // a colour sweep's leading parameters: coef, p, b, omega, threshold, ctrl
  // (core/kernels/kernel_args.hpp)
  auto sweep_args() const {
    using namespace karg;
    return std::tuple(In<Real>{coef}, Out<Real>{p}, box.view(), Real{omega}, Real{threshold}, Out<pf_u64>{ctrl});
  }
  // a zline sweep's: those, then scratch (null for the other designs, whose sweeps CUDA launches
  // through the same wrapper) and its values per array, E = p's extent
  auto zline_args() const {
    using namespace karg;
    return std::tuple_cat(sweep_args(), std::tuple(OptOut<Real>{scratch}, static_cast<long>(box.extent())));
  }
  // the zline factors of every column: coef, scratch, E, b
  auto factor_args() const {
    using namespace karg;
    return std::tuple(In<Real>{coef}, Out<Real>{scratch}, static_cast<long>(box.extent()), box.view());
  }
};

// Whether a zline launch runs a warp per column. Automatic on a GPU: a warp when a warp per column
// of one colour still fits the device's resident threads (about 2048 a compute unit), i.e. when a
// thread per column would leave most of it idle and each column's chain of loads is the latency.
// Measured on the H100 (case 2, 1386 columns a colour): 0.66 s -> 0.46 s on cuda, 0.70 -> 0.44 s
// on OpenCL.
inline bool sor3d_zline_wide(int lanes, long columns_per_colour, long compute_units, bool gpu) {
  if (lanes != 0) return lanes == 32;
  return gpu && columns_per_colour * 32 <= compute_units * 2048;
}

// values of the coefficient buffer of a box (both colours, every coefficient)
std::size_t sor3d_coef_values(const Box3& box);

// Launch geometry shared by the GPU backends:
// layers per block of a marching launch, so that the grid holds about one full wave of resident
// blocks (blocks_xy blocks cover a layer; units: SMs or compute units)
long sor3d_kchunk(long nz, long blocks_xy, int threads, int units);
// tiled: the padded row of a shared-memory plane (values) and a block's shared memory (bytes)
int sor3d_tile_pitch(int bx);
std::size_t sor3d_tile_bytes(int bx, int by, std::size_t value_bytes);

// Between the colour sweeps of a run cut between processes (docs/mpi.md): every backend calls
// after_sweep after each colour's sweep of an iteration, once that colour's values (and, after the
// black sweep of a checking iteration, the check's slot) are written: the ghosts of p are
// exchanged there, and the slot combined across processes before a sweep decides on it. The
// colours are the grid's when every box starts at even i, j and k, so the iterates are those of
// one process. nullptr (one process): the launches of a batch are unchanged.
class Sor3DSplit {
 public:
  virtual ~Sor3DSplit() = default;
  virtual void after_sweep(const Sor3DArgs& a, int colour, const FusedPlan& plan) const = 0;
};

class Sor3DImpl {
 public:
  virtual ~Sor3DImpl() = default;
  // iterations [first, first + count), count > 0, arguments checked
  virtual void iterate(const Sor3DArgs& a, long first, long count) = 0;
  // A vendor library's y = A x with the operator of a's coefficients (D on the diagonal, minus the
  // neighbour coefficients), x and y holding the box's cells compactly (i + nx (j + ny k)): the
  // bandwidth anchor of reading one sweep's data. Empty name: none on this backend.
  virtual std::string vendor_name() const { return ""; }
  virtual void vendor_spmv(const Sor3DArgs& a, const Buffer& x, Buffer& y);
  // the bytes one vendor product moves (its matrix format, x and y)
  virtual double vendor_bytes(const Sor3DArgs& a) const;
};

class Sor3DKernels {
 public:
  Sor3DKernels(Backend& be, Sor3DImpl& impl) : be_(be), impl_(impl) {}
  // clears the control block before a solve
  void reset(const Sor3DArgs& a);
  void iterate(const Sor3DArgs& a, long first, long count);
  // waits and reads the control block; `next` is the first iteration not yet enqueued
  FusedStatus status(const Sor3DArgs& a, long next);
  std::string vendor_name() const { return impl_.vendor_name(); }
  void vendor_spmv(const Sor3DArgs& a, const Buffer& x, Buffer& y);
  double vendor_bytes(const Sor3DArgs& a) const { return impl_.vendor_bytes(a); }

 private:
  void check(const Sor3DArgs& a) const;
  Backend& be_;
  Sor3DImpl& impl_;
};

}  // namespace poreflow
