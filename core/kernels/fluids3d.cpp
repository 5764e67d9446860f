#include "core/kernels/fluids3d.hpp"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <string>

#include "core/base/error.hpp"
#include "core/base/rb3.h"
#include "core/physics/fluids3d.h"

namespace poreflow {

Fluids3DKernels Backend::fluids3d() { return Fluids3DKernels(*this, fluids3d_impl()); }

std::size_t fluids3d_ctrl_bytes(int blocks) { return static_cast<std::size_t>(blocks < 1 ? 1 : blocks) * kControlBytes; }

std::size_t fluids3d_packed_values(const Box3& box) { return 2 * static_cast<std::size_t>(phys::fl_rb_part(box.view())); }

long fluids3d_sweep_layers(long nz, long blocks_xy, int threads, int units) {
  const long resident = static_cast<long>(std::max(units, 1)) * std::max(1, 2048 / std::max(threads, 1));
  const long chunks = std::clamp<long>(resident / std::max<long>(blocks_xy, 1), 1, std::max<long>(nz, 1));
  return (nz + chunks - 1) / chunks;
}

bool fluids3d_flat_sweep(const BoxShape& s) { return s.kind == BoxLaunch::March; }

FluidsSweepParts fluids3d_sweep_parts(long nz, bool split) {
  FluidsSweepParts p;
  auto add = [&](long first, long count) {
    if (count <= 0) return;
    p.first[p.n] = first;
    p.count[p.n] = count;
    ++p.n;
  };
  if (!split) {
    add(0, nz);
    p.outer = 1;
    return p;
  }
  add(0, 1);                            // the first layer
  if (nz > 1) add(nz - 1, 1);           // the last
  p.outer = p.n;
  add(1, nz - 2);                       // the rest
  return p;
}

int fluids3d_sweep_prefetch(const pf_box3& b, std::size_t value_bytes, std::size_t l2_bytes) {
  const double bytes = 2.0 * 2.0 * static_cast<double>(phys::fl_rb_part(b)) * static_cast<double>(value_bytes);  // x and x0, packed
  return bytes > static_cast<double>(l2_bytes) ? 1 : 0;
}

bool fluids3d_narrow_index(const pf_box3& b) { return 2 * phys::fl_rb_part(b) + phys::fl_rb_plane(b) < (1L << 31); }

namespace {

void check_field(const Box3& box, const Buffer* b, Precision prec, const char* what) {
  // the gradient adds the pitches to a cell's index as 32-bit ints (core/physics/fluids3d.h)
  if (box.sz >= (1L << 31))
    throw BackendError(std::string(what) + ": box " + box.describe() + ": a plane pitch of 2^31 values or more is not supported");
  check_box(box, b, prec, what);
  if (box.halo < 1) throw BackendError(std::string(what) + ": the box needs a halo of at least 1");
}

void check_quantity(int b, const char* what) {
  if (b < 0 || b > 3) throw BackendError(std::string(what) + ": quantity " + std::to_string(b) + " is not 0, 1, 2 or 3");
}

void check_distinct(const Buffer* out, std::initializer_list<const Buffer*> ins, const char* what) {
  for (const Buffer* in : ins)
    if (in && in == out) throw BackendError(std::string(what) + ": the output must not be an input");
}

}  // namespace

void Fluids3DKernels::add_source(const FluidsSourceArgs& a) {
  check_precision(be_, a.prec, "fluids3d add_source");
  check_field(a.box, a.x, a.prec, "fluids3d add_source x");
  check_quantity(a.b, "fluids3d add_source");
  check_box_shape(a.shape, "fluids3d add_source");
  const Box3& b = a.box;
  if (a.i0 < 0 || a.j0 < 0 || a.k0 < 0 || a.i1 >= b.nx || a.j1 >= b.ny || a.k1 >= b.nz || a.i0 > a.i1 || a.j0 > a.j1 ||
      a.k0 > a.k1)
    throw BackendError("fluids3d add_source: the region [" + std::to_string(a.i0) + ", " + std::to_string(a.i1) + "] x [" +
                       std::to_string(a.j0) + ", " + std::to_string(a.j1) + "] x [" + std::to_string(a.k0) + ", " +
                       std::to_string(a.k1) + "] is not inside the box " + b.describe());
  impl_.add_source(a);
}

void Fluids3DKernels::boundary(const FluidsBoundaryArgs& a) {
  check_precision(be_, a.prec, "fluids3d boundary");
  check_field(a.box, a.x, a.prec, "fluids3d boundary x");
  check_quantity(a.b, "fluids3d boundary");
  impl_.boundary(a);
}

void Fluids3DKernels::pack(const FluidsPackArgs& a) {
  check_precision(be_, a.prec, "fluids3d pack");
  check_field(a.box, a.x, a.prec, "fluids3d pack x");
  check_values(a.xp, fluids3d_packed_values(a.box), a.prec, "fluids3d pack xp");
  check_distinct(a.xp, {a.x}, "fluids3d pack");
  check_box_shape(a.shape, "fluids3d pack");
  impl_.pack(a);
}

void Fluids3DKernels::unpack(const FluidsUnpackArgs& a) {
  check_precision(be_, a.prec, "fluids3d unpack");
  check_field(a.box, a.x, a.prec, "fluids3d unpack x");
  check_values(a.xp, fluids3d_packed_values(a.box), a.prec, "fluids3d unpack xp");
  check_distinct(a.x, {a.xp}, "fluids3d unpack");
  check_quantity(a.b, "fluids3d unpack");
  check_box_shape(a.shape, "fluids3d unpack");
  impl_.unpack(a);
}

void Fluids3DKernels::reset(Buffer& ctrl, int blocks) {
  if (blocks < 1) throw BackendError("fluids3d reset: no control block");
  check_range(ctrl, fluids3d_ctrl_bytes(blocks), 0, "fluids3d reset");
  be_.fill(ctrl, Precision::Double, 0.0, static_cast<std::size_t>(blocks) * PF_CV_WORDS);
}

void Fluids3DKernels::solve(const FluidsSolveArgs& a, long first, long count) {
  check_precision(be_, a.prec, "fluids3d solve");
  if (a.box.nx < 1 || a.box.ny < 1 || a.box.nz < 1) throw BackendError("fluids3d solve: an empty box");
  check_values(a.x, fluids3d_packed_values(a.box), a.prec, "fluids3d solve x (packed)");
  check_values(a.x0, fluids3d_packed_values(a.box), a.prec, "fluids3d solve x0 (packed)");
  if (a.x == a.x0) throw BackendError("fluids3d solve: x0 must not be x");
  check_quantity(a.b, "fluids3d solve");
  if (!(a.c > 0)) throw BackendError("fluids3d solve: c = " + std::to_string(a.c) + " must be > 0");
  if (!(a.a >= 0)) throw BackendError("fluids3d solve: a = " + std::to_string(a.a) + " must be >= 0");
  if (!(a.tolerance >= 0)) throw BackendError("fluids3d solve: the tolerance must be >= 0");
  check_box_shape(a.shape, "fluids3d solve");
  if (a.shape.threads() % 32 != 0)
    throw ConfigError("fluids3d solve: the launch shape " + to_string(a.shape) + " must have a multiple of 32 threads");
  if (a.walls < 0 || a.walls > PF_FL_WALL_ALL)
    throw BackendError("fluids3d solve: walls = " + std::to_string(a.walls) + " is not a set of PF_FL_WALL_* bits");
  if (!a.ctrl) throw BackendError("fluids3d solve: missing control block");
  if (a.ctrl_block < 0) throw BackendError("fluids3d solve: negative control block");
  check_range(*a.ctrl, kControlBytes, static_cast<std::size_t>(a.ctrl_block) * kControlBytes, "fluids3d solve ctrl");
  if (first < 0) throw BackendError("fluids3d solve: negative first iteration");
  if (count <= 0) return;
  impl_.solve(a, first, count);
}

FluidsSolveStatus Fluids3DKernels::decode(const unsigned long long* words, int block, Precision prec, long enqueued) {
  const unsigned long long* w = words + static_cast<std::size_t>(block) * PF_CV_WORDS;
  FluidsSolveStatus s;
  auto metric = [&](long check) -> double {
    if (check < 0) return -1;
    const unsigned long long bits = w[PF_CV_SLOT0 + check % PF_CV_NSLOTS];
    return prec == Precision::Float ? double(phys::pf_from_word<float>(bits)) : phys::pf_from_word<double>(bits);
  };
  if (w[PF_CV_STOP] != 0) {
    s.sweeps = static_cast<long>(w[PF_CV_ITER]);
    s.converged = w[PF_CV_STOP] == PF_CV_CONVERGED;
    s.non_finite = w[PF_CV_STOP] == PF_CV_NONFINITE;
    s.last_change = metric(s.sweeps - 1);
  } else {
    s.sweeps = enqueued;
    s.last_change = metric(enqueued - 1);
  }
  return s;
}

void Fluids3DKernels::advect(const FluidsAdvectArgs& a) {
  check_precision(be_, a.prec, "fluids3d advect");
  check_field(a.box, a.d, a.prec, "fluids3d advect d");
  check_field(a.box, a.d0, a.prec, "fluids3d advect d0");
  check_field(a.box, a.u, a.prec, "fluids3d advect u");
  check_field(a.box, a.v, a.prec, "fluids3d advect v");
  check_field(a.box, a.w, a.prec, "fluids3d advect w");
  check_distinct(a.d, {a.d0, a.u, a.v, a.w}, "fluids3d advect");
  check_quantity(a.b, "fluids3d advect");
  check_box_shape(a.shape, "fluids3d advect");
  if (a.z_cells != 0) {
    // the trace reads layers floor(z) - 1 and floor(z) of d0 (classic numbering): they must lie in
    // its array, which may hold more layers below and above the box than its halo
    const Box3& b = a.box;
    const bool finite = std::isfinite(a.z_lo) && std::isfinite(a.z_hi) && a.z_lo < a.z_hi && std::fabs(a.z_lo) < 1e15 &&
                        std::fabs(a.z_hi) < 1e15;
    const long k_lo = finite ? static_cast<long>(std::floor(a.z_lo)) - 1 : 0, k_hi = finite ? static_cast<long>(std::floor(a.z_hi)) : 0;
    if (a.z_cells < b.nz || !finite || b.at(-1, -1, k_lo) < 0 ||
        a.d0->bytes() < static_cast<std::size_t>(b.at(b.nx, b.ny, k_hi) + 1) * size_of(a.prec))
      throw BackendError("fluids3d advect: the clamp [" + std::to_string(a.z_lo) + ", " + std::to_string(a.z_hi) +
                         "] of a box of " + std::to_string(b.nz) + " layers cut from " + std::to_string(a.z_cells) +
                         " reaches layers outside d0's array");
  }
  impl_.advect(a);
}

void Fluids3DKernels::divergence(const FluidsDivergenceArgs& a) {
  check_precision(be_, a.prec, "fluids3d divergence");
  check_field(a.box, a.u, a.prec, "fluids3d divergence u");
  check_field(a.box, a.v, a.prec, "fluids3d divergence v");
  check_field(a.box, a.w, a.prec, "fluids3d divergence w");
  check_field(a.box, a.div, a.prec, "fluids3d divergence div");
  if (a.p) check_field(a.box, a.p, a.prec, "fluids3d divergence p");
  check_distinct(a.div, {a.u, a.v, a.w, a.p}, "fluids3d divergence");
  check_distinct(a.p, {a.u, a.v, a.w}, "fluids3d divergence");
  check_box_shape(a.shape, "fluids3d divergence");
  impl_.divergence(a);
}

void Fluids3DKernels::gradient(const FluidsGradientArgs& a) {
  check_precision(be_, a.prec, "fluids3d gradient");
  check_field(a.box, a.u, a.prec, "fluids3d gradient u");
  check_field(a.box, a.v, a.prec, "fluids3d gradient v");
  check_field(a.box, a.w, a.prec, "fluids3d gradient w");
  check_field(a.box, a.p, a.prec, "fluids3d gradient p");
  check_distinct(a.p, {a.u, a.v, a.w}, "fluids3d gradient");
  if (a.u == a.v || a.u == a.w || a.v == a.w) throw BackendError("fluids3d gradient: u, v and w must differ");
  check_box_shape(a.shape, "fluids3d gradient");
  impl_.gradient(a);
}

}  // namespace poreflow
