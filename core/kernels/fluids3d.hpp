#pragma once
// The fluids3d family: the kernels of paper 001's stable-fluids solver (core/physics/fluids3d.h).
// Every field is a box of the same cells with one ghost layer (Box3, halo >= 1; all fields of a
// call share the box's layout). Every kernel that writes interior cells also writes the ghosts of
// the cells next to the boundary (fl_store), so the ghost layer always follows the boundary rule
// of quantity b and no separate boundary pass runs between kernels.
#include "core/kernels/backend.hpp"
#include "core/kernels/box3.hpp"
#include "core/kernels/control.hpp"
#include "core/kernels/kernel_args.hpp"
#include "core/physics/fluids3d.h"

namespace poreflow {

// x += value over the cells [i0, i1] x [j0, j1] x [k0, k1] of the box (inclusive, inside the box),
// then x's ghosts next to them (quantity b). value is dt times the source's rate.
struct FluidsSourceArgs {
  Precision prec = Precision::Double;
  Box3 box;
  Buffer* x = nullptr;
  long i0 = 0, i1 = 0, j0 = 0, j1 = 0, k0 = 0, k1 = 0;
  double value = 0;
  int b = 0;
  BoxShape shape;

  // fl_source(x, box, b, i0, j0, k0, ni, nj, nk, value), over the ni x nj x nk cells from (i0, j0, k0)
  // (core/kernels/kernel_args.hpp)
  auto kernel_args() const {
    using namespace karg;
    return std::tuple(Out<Real>{x}, box.view(), b, i0, j0, k0, i1 - i0 + 1, j1 - j0 + 1, k1 - k0 + 1, Real{value});
  }
};

// Every ghost cell of x from its nearest interior cell (quantity b): the classic set_bnd, for
// fields that came from the host.
struct FluidsBoundaryArgs {
  Precision prec = Precision::Double;
  Box3 box;
  Buffer* x = nullptr;
  int b = 0;

  // fl_boundary(x, box, b)
  auto kernel_args() const {
    using namespace karg;
    return std::tuple(Out<Real>{x}, box.view(), b);
  }
};

// pack: xp = the interior of x in the colour-packed layout of core/base/rb3.h
// (fluids3d_packed_values(box) values; the slots of absent cells are not written).
struct FluidsPackArgs {
  Precision prec = Precision::Double;
  Box3 box;
  const Buffer* x = nullptr;
  Buffer* xp = nullptr;
  BoxShape shape;

  // fl_pack(x, xp, box)
  auto kernel_args() const {
    using namespace karg;
    return std::tuple(In<Real>{x}, Out<Real>{xp}, box.view());
  }
};

// unpack: x's interior = xp, then x's ghosts (quantity b).
struct FluidsUnpackArgs {
  Precision prec = Precision::Double;
  Box3 box;
  const Buffer* xp = nullptr;
  Buffer* x = nullptr;
  int b = 0;
  BoxShape shape;

  // fl_unpack(xp, x, box, b)
  auto kernel_args() const {
    using namespace karg;
    return std::tuple(In<Real>{xp}, Out<Real>{x}, box.view(), b);
  }
};

// lin_solve: red-black Gauss-Seidel on (c x - a (sum of the 6 neighbours)) = x0 over the box's
// cells, x and x0 colour-packed (pack / unpack; a neighbour across a wall is the ghost the rule
// of quantity b gives from the cell's own value, as the classic set_bnd after each sweep). x is
// updated in place. Iteration `it` is a red sweep (cells with i + j + k even) then a black sweep;
// both fold max |x_new - x_old| of their cells into the control block's check slot (an atomic max
// on the bits: exact, and NaN wins), and the red sweep of the next iteration decides: converged
// when that max is below `tolerance`, stopped on NaN; launches after a stop return at once. So a
// solve of at most K sweeps is K iterations enqueued back to back with no host wait; the sweeps
// done are in the control block (PF_CV_ITER, or K when it did not stop).
// ctrl_block: the control block used is block number ctrl_block of the ctrl buffer (so one reset
// clears the blocks of all the solves of a step).
// The layers a march block of the GPU sweeps walks (nz layers; blocks_xy blocks over a layer; on
// `units` SMs/compute units of 2048 threads): the chunk that makes the launch one full wave of
// resident blocks and no more. A launch a few blocks over one wave pays a second, nearly empty
// one (N = 168 with one-wave chunks rounded the other way: 1071 blocks for 1056 places, 10%
// slower than 693 blocks of 16 layers); fewer, longer chunks pay each block's start (it reads the
// control block before its first load) less often.
long fluids3d_sweep_layers(long nz, long blocks_xy, int threads, int units);

class FluidsSolveSplit;

struct FluidsSolveArgs {
  Precision prec = Precision::Double;
  Box3 box;               // the cells (the packed arrays depend on nx, ny, nz only)
  Buffer* x = nullptr;    // packed
  const Buffer* x0 = nullptr;  // packed
  double a = 0, c = 1;    // c > 0
  int b = 0;
  double tolerance = 0;   // 0: never converges
  BoxShape shape;         // over (half-row, row, layer) of a colour's cells
  Buffer* ctrl = nullptr;
  int ctrl_block = 0;
  bool wide_index = false;  // GPU sweeps: 64-bit indices even where 32 bits fit (tests of the wide path)
  int prefetch = -1;  // CUDA march sweeps: ask L2 for the next layer (1) or not (0); -1: fluids3d_sweep_prefetch
  // the box's faces that are walls (PF_FL_WALL_* bits): a box cut from a larger grid reads its
  // neighbours' layers, received into the packed arrays' extra planes, across the others
  int walls = PF_FL_WALL_ALL;
  // a solve over several processes (FluidsSolveSplit); nullptr in one process
  const FluidsSolveSplit* split = nullptr;

  // a colour sweep's leading parameters: x, x0, box, a, 1 / c, tolerance, b, walls, and the
  // solve's control block (OutAt: on OpenCL the ctrl buffer and the block's offset)
  auto sweep_args() const {
    using namespace karg;
    return std::tuple(Out<Real>{x}, In<Real>{x0}, box.view(), Real{a}, Real{1.0 / c}, Real{tolerance}, b, walls,
                      OutAt<pf_u64>{ctrl, static_cast<long>(ctrl_block) * PF_CV_WORDS});
  }
};

// The colour sweeps of a box cut between processes (core/comm/fluids_split.hpp). With a split,
// every backend sweeps a colour in parts (fluids3d_sweep_parts): its first and last layers, the
// ones the neighbours read, then the others. It calls outer_swept after the first part is
// enqueued, so their values can go to the neighbours while the rest is swept, and after_sweep
// after the rest, to bring the neighbours' layers into the packed x's extra planes and, after a
// checking black sweep, to combine the check's slot over the processes, so every process decides
// alike.
class FluidsSolveSplit {
 public:
  virtual ~FluidsSolveSplit() = default;
  virtual void outer_swept(const FluidsSolveArgs& a, int colour, const FusedPlan& plan) const = 0;
  virtual void after_sweep(const FluidsSolveArgs& a, int colour, const FusedPlan& plan) const = 0;
};

// The layer ranges [first, first + count) a colour's sweep of nz layers is launched over: all of
// them at once, or with a split the outer ones (parts [0, outer)) and then the inner ones.
struct FluidsSweepParts {
  long first[3] = {0, 0, 0}, count[3] = {0, 0, 0};
  int n = 0, outer = 0;
};
FluidsSweepParts fluids3d_sweep_parts(long nz, bool split);

// Layers ahead a CUDA march sweep of box b asks L2 for (prefetch.global.L2 of the cell's own
// value, its x0 and its upper neighbour one layer on): 1 where x and x0 (value_bytes each) do not
// fit in an L2 of l2_bytes, so the sweep streams them from DRAM, else 0. On the H100 (50 MiB L2,
// float) it took the sweep from 0.77/0.77 to 0.82/0.82x copy at N = 256/288, while at N = 168,
// whose 38 MB stay in L2 between sweeps, the extra requests cost 9% (0.76 -> 0.69x); two layers
// ahead gave 0.79/0.83, four 0.67/0.66. NVIDIA's OpenCL has no such prefetch: its prefetch()
// changed nothing (docs/benchmarks.md).
int fluids3d_sweep_prefetch(const pf_box3& b, std::size_t value_bytes, std::size_t l2_bytes);

// whether the GPU sweeps index the packed arrays of box b with 32-bit ints (both colours and a
// plane beyond fit), or with 64-bit ones
bool fluids3d_narrow_index(const pf_box3& b);

// whether the GPU sweeps with shape s walk flat: a march block's threads on consecutive cells of a
// colour's layer, rows joined. A tile s.bx wide leaves threads idle at the end of every row where
// the half-rows are not a multiple of s.bx (12 of every 96 threads at N = 168), and where they are
// it was no faster on the H100: N = 128/192/256 flat vs tile 0.69/0.74/0.77 vs 0.64/0.73/0.77 x copy
// on CUDA, 0.69/0.75/0.78 vs 0.63/0.68/0.72 on NVIDIA's OpenCL. The 3d shapes keep their tiles.
bool fluids3d_flat_sweep(const BoxShape& s);

// d = d0 traced back along (u, v, w) and interpolated (fl_advect_point), then d's ghosts
// (quantity b). d0's ghost layer is read. d must not be d0, u, v or w.
struct FluidsAdvectArgs {
  Precision prec = Precision::Double;
  Box3 box;
  Buffer* d = nullptr;
  const Buffer *d0 = nullptr, *u = nullptr, *v = nullptr, *w = nullptr;
  double dt = 0;  // the time step; each axis traces dt times its cell count
  int b = 0;
  BoxShape shape;
  // A box cut from a taller grid (docs/mpi.md): the grid's layers (dt times it is z's trace), and
  // the trace's clamp in z in the classic numbering of the box (fl_advect_point), which keeps it
  // inside the grid and the box's halo. 0: the box is the grid, clamped to [0.5, nz + 0.5].
  long z_cells = 0;
  double z_lo = 0, z_hi = 0;

  // fl_advect(d, d0, u, v, w, box, b, dtx, dty, dtz, z_lo, z_hi), dtx = dt nx and so on
  auto kernel_args() const {
    using namespace karg;
    const bool own = z_cells == 0;
    return std::tuple(Out<Real>{d}, In<Real>{d0}, In<Real>{u}, In<Real>{v}, In<Real>{w}, box.view(), b,
                      Real{dt * double(box.nx)}, Real{dt * double(box.ny)}, Real{dt * double(own ? box.nz : z_cells)},
                      Real{own ? 0.5 : z_lo}, Real{own ? double(box.nz) + 0.5 : z_hi});
  }
};

// div = fl_div_point(u, v, w) over the interior; with p: p = 0 over the interior and its ghosts
// (project's starting guess). div's ghosts are not written.
struct FluidsDivergenceArgs {
  Precision prec = Precision::Double;
  Box3 box;
  const Buffer *u = nullptr, *v = nullptr, *w = nullptr;
  Buffer* div = nullptr;
  Buffer* p = nullptr;  // optional
  double h = 1;         // the cell size
  BoxShape shape;

  // fl_divergence(u, v, w, div, p, box, h)
  auto kernel_args() const {
    using namespace karg;
    return std::tuple(In<Real>{u}, In<Real>{v}, In<Real>{w}, Out<Real>{div}, OptOut<Real>{p}, box.view(), Real{h});
  }
};

// (u, v, w) -= scale * the central differences of p (p's ghosts read), then the ghosts of u, v, w
// (quantities 1, 2, 3). Stam: scale = 0.5 / h.
struct FluidsGradientArgs {
  Precision prec = Precision::Double;
  Box3 box;
  Buffer *u = nullptr, *v = nullptr, *w = nullptr;
  const Buffer* p = nullptr;
  double scale = 0.5;
  BoxShape shape;

  // fl_gradient(u, v, w, p, box, scale)
  auto kernel_args() const {
    using namespace karg;
    return std::tuple(Out<Real>{u}, Out<Real>{v}, Out<Real>{w}, In<Real>{p}, box.view(), Real{scale});
  }
};

// bytes of the control buffer with `blocks` blocks
std::size_t fluids3d_ctrl_bytes(int blocks);
// values of a colour-packed copy of a box's cells (both colours)
std::size_t fluids3d_packed_values(const Box3& box);

class Fluids3DImpl {
 public:
  virtual ~Fluids3DImpl() = default;
  virtual void add_source(const FluidsSourceArgs& a) = 0;
  virtual void boundary(const FluidsBoundaryArgs& a) = 0;
  virtual void pack(const FluidsPackArgs& a) = 0;
  virtual void unpack(const FluidsUnpackArgs& a) = 0;
  // iterations [first, first + count)
  virtual void solve(const FluidsSolveArgs& a, long first, long count) = 0;
  virtual void advect(const FluidsAdvectArgs& a) = 0;
  virtual void divergence(const FluidsDivergenceArgs& a) = 0;
  virtual void gradient(const FluidsGradientArgs& a) = 0;
};

// What a solve's control block says (read back by the host).
struct FluidsSolveStatus {
  long sweeps = 0;          // iterations (red + black sweeps) done
  bool converged = false;   // stopped by the tolerance
  bool non_finite = false;  // a change was NaN or infinite
  double last_change = -1;  // the max change of the last decided check (-1: none)
};

class Fluids3DKernels {
 public:
  Fluids3DKernels(Backend& be, Fluids3DImpl& impl) : be_(be), impl_(impl) {}
  void add_source(const FluidsSourceArgs& a);
  void boundary(const FluidsBoundaryArgs& a);
  void pack(const FluidsPackArgs& a);
  void unpack(const FluidsUnpackArgs& a);
  // zeroes `blocks` control blocks of ctrl (enqueued)
  void reset(Buffer& ctrl, int blocks);
  void solve(const FluidsSolveArgs& a, long first, long count);
  // decodes block `block` of a control buffer already downloaded (words), a solve of at most
  // `enqueued` iterations
  static FluidsSolveStatus decode(const unsigned long long* words, int block, Precision prec, long enqueued);
  void advect(const FluidsAdvectArgs& a);
  void divergence(const FluidsDivergenceArgs& a);
  void gradient(const FluidsGradientArgs& a);

 private:
  Backend& be_;
  Fluids3DImpl& impl_;
};

}  // namespace poreflow
