// The Krylov solvers of core/linalg on every backend: CG on SPD 7-point problems (its energy norm
// of the error decreasing at every iteration, convergence to 1e-8), BiCGSTAB and FGMRES on an
// upwinded convection-diffusion system, block-Jacobi on a 2 x 2-block system, a solve that runs to
// its limit, the errors (a NaN in b, a singular diagonal, sizes), the communicator's hook after
// every dot, and the reads of the control block. The reference is the known solution x* of each
// problem (b = A x* in double).
#include <array>
#include <cmath>
#include <span>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "core/kernels/control.hpp"
#include "core/linalg/csr.hpp"
#include "core/linalg/jacobi.hpp"
#include "core/linalg/krylov.hpp"
#include "core/linalg/stencil7.hpp"
#include "tests/harness.hpp"

using namespace poreflow;
using namespace poreflow::linalg;
using namespace poreflow::test;

namespace {


// A 7-point problem on the host, in double: a finite-volume diffusion with face transmissibilities
// in [0.5, 1.5], first-order upwinded convection by a constant velocity, Dirichlet 0 outside the box
// and at inactive cells; for blocks of 2, two components scaled by s[c] and coupled in each cell by
// `coupling`.
struct KrylovProblem {
  Box3 box;
  int block = 1;
  std::vector<double> coef;
  std::vector<int> active;
  std::vector<double> xstar, b;
  std::size_t n() const { return static_cast<std::size_t>(block) * box.extent(); }
};

std::vector<double> ref_apply(const KrylovProblem& p, const std::vector<double>& x) {
  const std::size_t e = p.box.extent(), b2 = static_cast<std::size_t>(p.block * p.block);
  const long off[7] = {0, -1, 1, -p.box.sy, p.box.sy, -p.box.sz, p.box.sz};
  std::vector<double> y(p.n(), 0.0);
  for (std::size_t l = 0; l < e; ++l) {
    if (!p.active[l]) continue;
    for (int r = 0; r < p.block; ++r)
      for (int q = 0; q < 7; ++q)
        for (int c = 0; c < p.block; ++c)
          y[l * p.block + r] += p.coef[(q * e + l) * b2 + r * p.block + c] * x[(l + off[q]) * p.block + c];
  }
  return y;
}

KrylovProblem make_problem(long nx, long ny, long nz, unsigned holes, std::array<double, 3> vel, int block = 1,
                     double coupling = 0, double row_spread = 1) {
  KrylovProblem p;
  p.box = Box3::standalone(nx, ny, nz, 1);
  p.block = block;
  const Box3& bx = p.box;
  const std::size_t e = bx.extent(), b2 = static_cast<std::size_t>(block * block);
  p.coef.assign(7 * b2 * e, 0.0);
  p.active.assign(e, 0);
  for (long k = 0; k < nz; ++k)
    for (long j = 0; j < ny; ++j)
      for (long i = 0; i < nx; ++i) p.active[bx.at(i, j, k)] = holes == 0 || rng()() % holes != 0;
  const long off[7] = {0, -1, 1, -bx.sy, bx.sy, -bx.sz, bx.sz};
  const double scale[2] = {1.0, 0.3};
  for (long k = 0; k < nz; ++k)
    for (long j = 0; j < ny; ++j)
      for (long i = 0; i < nx; ++i) {
        const long L = bx.at(i, j, k);
        if (!p.active[L]) continue;
        double diag = 0, offd[7] = {0};
        for (int q = 1; q < 7; ++q) {
          const long N = L + off[q];
          const int axis = (q - 1) / 2, sign = q % 2 == 0 ? 1 : -1;
          // symmetric: a function of the face (the lower cell and the axis)
          const long face = std::min(L, N) * 3 + axis;
          const double t = 1.0 + 0.5 * std::sin(0.7 * double(face));
          const double F = sign * vel[axis];  // the flux out of L through this face
          diag += t + std::max(F, 0.0);
          if (p.active[N]) offd[q] = -(t + std::max(-F, 0.0));
        }
        for (int q = 0; q < 7; ++q)
          for (int c = 0; c < block; ++c) {
            const double v = q == 0 ? diag : offd[q];
            p.coef[(q * e + L) * b2 + c * block + c] = scale[c] * v + (q == 0 && block == 2 ? coupling : 0.0);
          }
        if (block == 2) p.coef[L * b2 + 1] = p.coef[L * b2 + 2] = -coupling;
        // a cell's equations scaled by a factor in [1 / row_spread, row_spread] (log-uniform)
        const double sigma = std::exp(std::log(row_spread) * std::uniform_real_distribution<double>(-1, 1)(rng()));
        for (int q = 0; q < 7; ++q)
          for (std::size_t c = 0; c < b2; ++c) p.coef[(q * e + L) * b2 + c] *= sigma;
      }
  p.xstar.assign(p.n(), 0.0);
  for (std::size_t l = 0; l < e; ++l)
    if (p.active[l])
      for (int c = 0; c < block; ++c) p.xstar[l * block + c] = std::uniform_real_distribution<double>(-1, 1)(rng());
  p.b = ref_apply(p, p.xstar);
  return p;
}

// The problem's matrix on a backend (its values rounded to T).
template <class T>
struct Device {
  Device(Backend& be, const KrylovProblem& p) : m(be, p.box, p.block), op(m), b(make_field(be, convert<T>(p.b))) {
    m.coef.upload(convert<T>(p.coef));
    be.upload(*m.active, p.active.data(), p.active.size() * sizeof(int));
  }
  Stencil7Matrix<T> m;
  Stencil7Operator<T> op;
  Field<T> b;
};

// max |x - x*| over max |x*|
double solution_error(const std::vector<double>& x, const KrylovProblem& p) { return max_rel_diff(x, p.xstar); }

// (x - x*)^T A (x - x*) in double
double energy(const KrylovProblem& p, const std::vector<double>& x) {
  std::vector<double> e(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) e[i] = x[i] - p.xstar[i];
  const auto ae = ref_apply(p, e);
  double s = 0;
  for (std::size_t i = 0; i < e.size(); ++i) s += e[i] * ae[i];
  return s;
}

template <class T>
double solve_tol() {
  return sizeof(T) == 4 ? 1e-5 : 1e-8;
}

// A communicator of "two processes" whose device hook doubles the slots, as a sum over two ranks
// holding the same data would: every ratio of dots is unchanged, so CG and BiCGSTAB must give the
// same bits as one process, unless a dot reaches a reader without the hook. It counts the calls.
class DoublingHook final : public DeviceCombine, public Communicator {
 public:
  explicit DoublingHook(Backend& be) : be_(be) {}
  mutable long calls = 0, slots = 0;
  void max_words(Buffer&, std::size_t, std::size_t) const override {}
  void sum_values(Buffer& v, Precision prec, std::size_t offset, std::size_t count) const override {
    ++calls;
    slots += static_cast<long>(count);
    with_type(prec, [&](auto t) {
      using T = decltype(t);
      std::vector<T> h(count);
      be_.download(v, h.data(), count * sizeof(T), offset * sizeof(T));
      for (auto& x : h) x = T(2) * x;
      be_.upload(v, h.data(), count * sizeof(T), offset * sizeof(T));
    });
  }
  int rank() const override { return 0; }
  int size() const override { return 2; }
  double sum(double v) const override { return v; }
  double max(double v) const override { return v; }
  double min(double v) const override { return v; }
  long sum(long v) const override { return v; }
  long max(long v) const override { return v; }
  void sum(std::span<double>) const override {}
  void max(std::span<double>) const override {}
  bool any(bool v) const override { return v; }
  void max(std::span<std::uint64_t>) const override {}
  void exchange(std::span<const Transfer>) const override {}
  void broadcast(void*, std::size_t, int) const override {}
  void gather(const void*, std::size_t, void*, std::span<const std::size_t>, int) const override {}
  const DeviceCombine* device_combine() const override { return this; }

 private:
  Backend& be_;
};

}  // namespace

TEST_SUITE("backend") {

TEST_CASE_TEMPLATE("krylov CG: the energy norm of the error decreases at every iteration", T, double) {
  for_each_backend([](Backend& be) {
    const KrylovProblem p = make_problem(15, 13, 11, 9, {0, 0, 0});
    Device<T> d(be, p);
    JacobiPreconditioner<T> M;
    M.update(d.op);
    KrylovOptions opt;
    opt.tolerance = 1e-8;
    // the iterate after k iterations: a solve limited to k (the kernels are deterministic, so it is
    // the k-th iterate of the full solve)
    double prev = energy(p, std::vector<double>(p.n(), 0.0));
    long converged_at = -1;
    for (long k = 1; k <= 200 && converged_at < 0; ++k) {
      opt.max_iterations = k;
      KrylovSolver<T> cg(d.op, opt);
      Field<T> x(be, p.n());
      x.fill(T(0));
      const auto r = cg.solve(d.b, x, M);
      CAPTURE(k);
      const double en = energy(p, convert<double>(x.download()));
      CHECK(en < prev);
      prev = en;
      if (r.converged) converged_at = r.iterations;
      else CHECK(r.iterations == k);
    }
    CHECK(converged_at > 5);
  });
}

TEST_CASE_TEMPLATE("krylov CG: SPD 7-point problems converge to the tolerance", T, float, double) {
  for_each_backend([](Backend& be) {
    // past the omp threshold, odd sizes, inactive cells; scalar with and without Jacobi, 2 x 2 blocks
    // with block-Jacobi
    for (int block : {1, 2}) {
      const KrylovProblem p = make_problem(27, 23, 17, 8, {0, 0, 0}, block, 4.0);
      Device<T> d(be, p);
      JacobiPreconditioner<T> M;
      M.update(d.op);
      CHECK(M.describe() == (block == 1 ? "Jacobi" : "block-Jacobi (2 x 2)"));
      for (bool precond : {true, false}) {
        CAPTURE(block);
        CAPTURE(precond);
        KrylovOptions opt;
        opt.tolerance = solve_tol<T>();
        opt.max_iterations = 2000;
        KrylovSolver<T> cg(d.op, opt);
        Field<T> x(be, p.n());
        x.fill(T(0));
        const auto r = precond ? cg.solve(d.b, x, M) : cg.solve(d.b, x);
        INFO(r.describe());
        CHECK(r.converged);
        CHECK(r.relative_residual <= solve_tol<T>());
        CHECK(r.history.size() == std::size_t(r.iterations) + 1);
        CHECK(r.history.back() == r.relative_residual);
        CHECK(r.history[0] == doctest::Approx(1.0).epsilon(1e-4));  // x0 = 0
        CHECK(r.true_relative_residual <= (sizeof(T) == 4 ? 20 : 2) * solve_tol<T>());
        CHECK(solution_error(convert<double>(x.download()), p) <= (sizeof(T) == 4 ? 1e-3 : 1e-6));
      }
    }
  });
}

TEST_CASE_TEMPLATE("krylov BiCGSTAB and FGMRES: an upwinded convection-diffusion system", T, float, double) {
  for_each_backend([](Backend& be) {
    const KrylovProblem p = make_problem(23, 19, 21, 10, {1.5, -0.8, 0.6});
    Device<T> d(be, p);
    JacobiPreconditioner<T> M;
    M.update(d.op);
    for (KrylovMethod method : {KrylovMethod::BiCGSTAB, KrylovMethod::FGMRES}) {
      for (bool precond : {true, false}) {
        for (bool reorth : {true, false}) {
          if (method != KrylovMethod::FGMRES && !reorth) continue;
          const std::string name = to_string(method);
      CAPTURE(name);
          CAPTURE(precond);
          CAPTURE(reorth);
          KrylovOptions opt;
          opt.method = method;
          opt.tolerance = solve_tol<T>();
          opt.max_iterations = 600;
          opt.restart = 15;
          opt.reorthogonalize = reorth;
          KrylovSolver<T> solver(d.op, opt);
          Field<T> x(be, p.n());
          x.fill(T(0));
          const auto r = precond ? solver.solve(d.b, x, M) : solver.solve(d.b, x);
          INFO(r.describe());
          CHECK(r.converged);
          CHECK(r.true_relative_residual <= (sizeof(T) == 4 ? 20 : 5) * solve_tol<T>());
          CHECK(solution_error(convert<double>(x.download()), p) <= (sizeof(T) == 4 ? 1e-3 : 1e-6));
          if (method == KrylovMethod::FGMRES) CHECK(r.iterations > opt.restart);  // it restarted at least once
        }
      }
    }
  });
}

TEST_CASE_TEMPLATE("krylov: block-Jacobi on a strongly coupled 2 x 2-block system", T, double) {
  for_each_backend([](Backend& be) {
    // the cells' two unknowns coupled 30 times more than their neighbours, each cell's equations
    // scaled by up to 100 either way: block-Jacobi removes both
    const KrylovProblem p = make_problem(19, 17, 13, 0, {0.7, 0.2, -0.4}, 2, 30.0, 100.0);
    Device<T> d(be, p);
    JacobiPreconditioner<T> M;
    M.update(d.op);
    KrylovOptions opt;
    opt.method = KrylovMethod::FGMRES;
    opt.tolerance = 1e-8;
    opt.max_iterations = 1000;
    KrylovSolver<T> solver(d.op, opt);
    Field<T> x(be, p.n());
    x.fill(T(0));
    const auto r = solver.solve(d.b, x, M);
    INFO(r.describe());
    CHECK(r.converged);
    CHECK(solution_error(convert<double>(x.download()), p) <= 1e-5);
    // without it, three times as many iterations do not reach the tolerance
    opt.max_iterations = 3 * r.iterations;
    KrylovSolver<T> plain(d.op, opt);
    x.fill(T(0));
    const auto r0 = plain.solve(d.b, x);
    INFO(r0.describe());
    CHECK(r0.reason == KrylovStop::Limit);
  });
}

TEST_CASE_TEMPLATE("krylov: a solve that runs to its limit reports its iterations and residual", T, float, double) {
  for_each_backend([](Backend& be) {
    const KrylovProblem p = make_problem(17, 15, 13, 0, {0, 0, 0});
    Device<T> d(be, p);
    for (KrylovMethod method : {KrylovMethod::CG, KrylovMethod::BiCGSTAB, KrylovMethod::FGMRES}) {
      const std::string name = to_string(method);
      CAPTURE(name);
      KrylovOptions opt;
      opt.method = method;
      opt.tolerance = 1e-14;
      opt.max_iterations = 7;
      opt.restart = 3;
      KrylovSolver<T> solver(d.op, opt);
      Field<T> x(be, p.n());
      x.fill(T(0));
      const auto r = solver.solve(d.b, x);
      CHECK(r.reason == KrylovStop::Limit);
      CHECK_FALSE(r.converged);
      CHECK(r.iterations == 7);
      REQUIRE(r.history.size() == 8);
      CHECK(r.relative_residual == r.history[7]);
      CHECK(r.relative_residual > 1e-14);
      CHECK(r.relative_residual < 0.5 * r.history[0]);
      // the iterate is the one whose residual was measured (FGMRES: the estimate of its last cycle)
      CHECK(r.true_relative_residual == doctest::Approx(r.relative_residual).epsilon(method == KrylovMethod::FGMRES ? 0.05 : 1e-3));
    }
  });
}

TEST_CASE_TEMPLATE("krylov: a NaN in the right-hand side stops the solve with its row named", T, float, double) {
  for_each_backend([](Backend& be) {
    KrylovProblem p = make_problem(9, 7, 5, 0, {0, 0, 0}, 2, 1.0);
    const long L = p.box.at(4, 3, 2);
    p.b[2 * L + 1] = kNaN;
    Device<T> d(be, p);
    for (KrylovMethod method : {KrylovMethod::CG, KrylovMethod::BiCGSTAB, KrylovMethod::FGMRES}) {
      const std::string name = to_string(method);
      CAPTURE(name);
      KrylovOptions opt;
      opt.method = method;
      KrylovSolver<T> solver(d.op, opt);
      Field<T> x(be, p.n());
      x.fill(T(0));
      CHECK_THROWS_WITH_AS(solver.solve(d.b, x), doctest::Contains("cell (4, 3, 2), unknown 1"), NumericalError);
    }
  });
}

TEST_CASE_TEMPLATE("krylov: a singular diagonal is named by the Jacobi setup", T, float, double) {
  for_each_backend([](Backend& be) {
    for (int block : {1, 2}) {
      CAPTURE(block);
      KrylovProblem p = make_problem(8, 6, 5, 0, {0, 0, 0}, block, 1.0);
      const std::size_t e = p.box.extent(), b2 = static_cast<std::size_t>(block * block);
      const long L = p.box.at(5, 2, 3), L2 = p.box.at(6, 4, 4);
      for (int c = 0; c < block; ++c) p.coef[L * b2 + (block - 1) * block + c] = 0;  // the last row of the block
      p.coef[L2 * b2] = 0;                                                          // a later one
      p.coef[(e + 3) * b2] = 1;  // a halo entry's plane: inactive, never read
      Device<T> d(be, p);
      JacobiPreconditioner<T> M;
      CHECK_THROWS_WITH_AS(M.update(d.op), doctest::Contains(("cell (5, 2, 3), unknown " + std::to_string(block - 1)).c_str()),
                           ConfigError);
      p.coef[L * b2 + (block - 1) * block + (block - 1)] = kNaN;
      Device<T> n(be, p);
      CHECK_THROWS_WITH_AS(M.update(n.op), doctest::Contains("cell (5, 2, 3)"), NumericalError);
    }
  });
}

TEST_CASE_TEMPLATE("krylov: Jacobi and block-Jacobi on a CSR operator solve as on the 7-point one, and name a singular row", T, double) {
  for_each_backend([](Backend& be) {
    for (int block : {1, 2}) {
      CAPTURE(block);
      const KrylovProblem p = make_problem(17, 13, 11, 9, {0.9, -0.4, 0.3}, block, block == 2 ? 30.0 : 0.0, 20.0);
      const std::size_t b2 = static_cast<std::size_t>(block * block);
      // the same matrix as block CSR: each entry's block from the stencil's plane of its column
      const CsrPattern pat = csr_pattern_of_stencil7(p.box, p.active);
      const auto from = stencil7_to_csr_map(p.box, p.active);
      std::vector<double> val(pat.nnz() * b2);
      for (std::size_t k = 0; k < pat.nnz(); ++k)
        for (std::size_t c = 0; c < b2; ++c) val[k * b2 + c] = p.coef[static_cast<std::size_t>(from[k]) * b2 + c];
      CsrMatrix<T> m(be, pat, block);
      m.val.upload(convert<T>(val));
      CsrOperator<T> op(m);
      Device<T> d(be, p);
      KrylovOptions opt;
      opt.method = KrylovMethod::BiCGSTAB;
      opt.tolerance = 1e-8;
      opt.max_iterations = 2000;
      long its[2] = {0, 0};
      for (int csr = 0; csr < 2; ++csr) {
        const LinearOperator<T>& A = csr ? static_cast<const LinearOperator<T>&>(op) : d.op;
        JacobiPreconditioner<T> M;
        M.update(A);
        KrylovSolver<T> solver(A, opt);
        Field<T> x(be, p.n());
        x.fill(T(0));
        const auto r = solver.solve(d.b, x, M);
        INFO(r.describe());
        CHECK(r.converged);
        CHECK(r.true_relative_residual <= 5e-8);
        CHECK(solution_error(convert<double>(x.download()), p) <= 1e-5);  // rows scaled 20x either way
        its[csr] = r.iterations;
      }
      // the same preconditioned system: the iterations differ by the rounding of the products at most
      CHECK(std::abs(its[1] - its[0]) <= 2);
      // a zero diagonal (block) is named by its row
      std::size_t row = 0;
      while (pat.ptr[row + 1] == pat.ptr[row]) ++row;  // the first row with entries
      row += 40;
      while (pat.ptr[row + 1] == pat.ptr[row]) ++row;
      const long k = pat.find(row, row);
      REQUIRE(k >= 0);
      for (std::size_t c = 0; c < b2; ++c) val[static_cast<std::size_t>(k) * b2 + c] = 0;
      m.val.upload(convert<T>(val));
      JacobiPreconditioner<T> M;
      CHECK_THROWS_WITH_AS(M.update(op), doctest::Contains(("row " + std::to_string(row) + " has a missing, zero or singular").c_str()),
                           NumericalError);
    }
  });
}

TEST_CASE_TEMPLATE("krylov: the communicator's hook sums every dot before it is read", T, double) {
  for_each_backend([](Backend& be) {
    const KrylovProblem p = make_problem(13, 11, 9, 7, {0, 0, 0});  // symmetric: CG too
    Device<T> d(be, p);
    JacobiPreconditioner<T> M;
    M.update(d.op);
    for (KrylovMethod method : {KrylovMethod::CG, KrylovMethod::BiCGSTAB, KrylovMethod::FGMRES}) {
      const std::string name = to_string(method);
      CAPTURE(name);
      KrylovOptions opt;
      opt.method = method;
      opt.tolerance = 1e-9;
      opt.max_iterations = 500;
      opt.restart = 10;
      opt.batches = BatchSizes{1000, 16, 1024};  // one batch of iterations 0 .. 500: count the calls
      KrylovSolver<T> one(d.op, opt);
      Field<T> x1(be, p.n()), x2(be, p.n());
      x1.fill(T(0));
      x2.fill(T(0));
      const auto r1 = one.solve(d.b, x1, M);
      DoublingHook hook(be);
      KrylovSolver<T> two(d.op, opt, hook);
      const auto r2 = two.solve(d.b, x2, M);
      CHECK(r1.converged);
      if (method == KrylovMethod::FGMRES) {
        // its basis is scaled by 1 / sqrt(2) and y by sqrt(2): the same solve up to rounding
        CHECK(std::abs(r2.iterations - r1.iterations) <= 1);
        CHECK(max_rel_diff(convert<double>(x2.download()), convert<double>(x1.download())) <= 1e-8);
      } else {
        CHECK(r2.iterations == r1.iterations);
        CHECK(x2.download() == x1.download());
        CHECK(r2.history == r1.history);
      }
      // every dot's slots, in each of the batch's iterations (guarded or not), and the true residual's:
      //   CG: ||b||^2 and the first (r.z, r.r); then p.q and (r.z, r.r) an iteration;
      //   BiCGSTAB: ||b||^2 and (rho_1, r.r); then r^.v, (t.s, t.t), (rho, r.r) an iteration;
      //   FGMRES(10): ||b||^2; ||r0||^2 at each of the 50 cycles' start; h1 and h2 (j + 1 each)
      //   and ||w||^2 for column j
      const long want_calls[3] = {2 + 2 * 500 + 1, 2 + 3 * 500 + 1, 1 + 50 + 3 * 500 + 1};
      const long want_slots[3] = {3 + 3 * 500 + 1, 3 + 5 * 500 + 1, 1 + 50 + 50 * (2 * 55 + 10) + 1};
      CHECK(hook.calls == want_calls[int(method)]);
      CHECK(hook.slots == want_slots[int(method)]);
    }
  });
}

TEST_CASE_TEMPLATE("krylov: the control block is read once per batch", T, double) {
  for_each_backend([](Backend& be) {
    const KrylovProblem p = make_problem(21, 19, 17, 0, {0, 0, 0});
    Device<T> d(be, p);
    KrylovOptions opt;  // batches of 16, then 16, 32, ...; later solves start from the last counts
    KrylovSolver<T> cg(d.op, opt);
    Field<T> x(be, p.n());
    x.fill(T(0));
    const auto r = cg.solve(d.b, x);
    REQUIRE(r.converged);
    // where iterations are recorded (cuda), CG's first batch ends where a pair starts: 17
    const long first = be.can_record() ? 17 : 16;
    long enq = first, reads = 1, batch = 16;
    while (enq < r.iterations + 1) enq += batch, batch *= 2, ++reads;
    CHECK(r.control_reads == reads);
    CHECK(r.enqueued == enq);
    // what a solve enqueues with a first batch of guess + 1 (on cuda lengthened to a recorded
    // pair's start, as above), then batches of 16, 32, ...
    auto expected = [&](long guess, long iterations) {
      long f = guess + 1;
      if (be.can_record() && f > 1 && (f - 1) % 2 != 0) ++f;
      long e = f, b16 = 16;
      while (e < iterations + 1) e += b16, b16 *= 2;
      return e;
    };
    x.fill(T(0));
    const auto again = cg.solve(d.b, x);
    CHECK(again.control_reads == 1);  // the first batch: the one converged count so far plus one
    CHECK(again.enqueued == expected(r.iterations, again.iterations));
    CHECK(again.iterations == r.iterations);
    CHECK(again.history == r.history);  // deterministic, bit for bit
    // the smaller of the last two converged counts, and a solve stopped at its limit leaves the
    // guess as it was. From near the solution a solve takes fewer iterations than from 0.
    x.fill(T(0));
    const auto full = cg.solve(d.b, x);
    auto near = x.download();
    for (auto& v : near) v *= T(1 + 1e-5);
    Field<T> xn = make_field(be, near);
    auto from_near = [&](KrylovSolver<T>& s) {
      xn.upload(near);
      return s.solve(d.b, xn);
    };
    auto from_zero = [&](KrylovSolver<T>& s) {
      x.fill(T(0));
      return s.solve(d.b, x);
    };
    const auto few = from_near(cg);
    REQUIRE(few.converged);
    REQUIRE(few.iterations > 0);
    REQUIRE(few.iterations + 4 < full.iterations);
    const auto z1 = from_zero(cg);  // the last two: full and few
    CHECK(z1.iterations == full.iterations);
    CHECK(z1.enqueued == expected(few.iterations, z1.iterations));
    const auto z2 = from_zero(cg);  // the last two: few and full: still the smaller
    CHECK(z2.enqueued == expected(few.iterations, z2.iterations));
    KrylovOptions lim = opt;
    lim.max_iterations = few.iterations + 4;
    KrylovSolver<T> lim_cg(d.op, lim);
    const auto a = from_near(lim_cg);
    REQUIRE(a.converged);
    for (int k = 0; k < 2; ++k) {  // twice: the smaller of two limits would be the limit
      const auto cut = from_zero(lim_cg);
      REQUIRE(!cut.converged);
      CHECK(cut.enqueued == lim.max_iterations + 1);  // held to the limit
    }
    CHECK(from_near(lim_cg).enqueued == expected(a.iterations, a.iterations));
  });
}

// KrylovOptions::adapt_batches: where iterations are recorded and on the CPU, a first batch of the
// guess plus one (where recorded lengthened to a pair's start) and then 2, 4, 8, ...; on a device
// without a recording (OpenCL) 3/4 of the guess plus one and then a read after every iteration, so
// that no iteration runs past the stop once the guess was short.
TEST_CASE_TEMPLATE("krylov: the batches follow the backend when asked", T, double) {
  for_each_backend([](Backend& be) {
    const KrylovProblem p = make_problem(21, 19, 17, 0, {0, 0, 0});
    Device<T> d(be, p);
    const bool rec = be.can_record();
    const bool reads = !rec && !be.is_host();  // a read after every iteration once 3/4 of the guess ran
    for (KrylovMethod method : {KrylovMethod::CG, KrylovMethod::BiCGSTAB}) {
      const std::string name = to_string(method);
      CAPTURE(name);
      KrylovOptions opt;
      opt.method = method;
      opt.batches = {5, 3, 7};  // not read
      opt.adapt_batches = true;
      KrylovSolver<T> solver(d.op, opt);
      // where a backend records, the first batch ends where a pair starts (CG's pairs from
      // iteration 1, BiCGSTAB's from 2)
      const long periodic = method == KrylovMethod::CG ? 1 : 2;
      // the iterations enqueued and the reads of a solve of `iterations` after a first batch `first`
      auto expected = [&](long first, long iterations) {
        if (rec && first > periodic && (first - periodic) % 2 != 0) ++first;
        long e = first, n = 1, batch = reads ? 1 : 2;
        while (e < iterations + 1) e += batch, batch = reads ? 1 : batch * 2, ++n;
        return std::pair<long, long>{e, n};
      };
      // the first batch from a guess: 3/4 of it plus one where a read follows every iteration, else the count plus one
      auto first_of = [&](long guess) { return reads ? guess * 3 / 4 + 1 : guess + 1; };
      auto enq_reads = [](const KrylovResult& r) { return std::pair<long, long>{r.enqueued, r.control_reads}; };
      Field<T> x(be, p.n());
      auto from_zero = [&] {
        x.fill(T(0));
        const auto r = solver.solve(d.b, x);
        REQUIRE(r.converged);
        return r;
      };
      const auto r0 = from_zero();  // no guess yet: a first batch of 16
      REQUIRE(r0.iterations + 1 > 18);
      CHECK(enq_reads(r0) == expected(16, r0.iterations));
      const auto r1 = from_zero();
      CHECK(r1.iterations == r0.iterations);
      CHECK(enq_reads(r1) == expected(first_of(r0.iterations), r1.iterations));
      if (reads) {
        CHECK(r1.enqueued == r1.iterations + 1);  // none past the stop
        CHECK(r1.control_reads == r1.iterations + 1 - first_of(r0.iterations) + 1);
      }
      CHECK(r1.history == r0.history);
      // from near the solution fewer iterations; the next guess is the smaller of the last two
      auto near = x.download();
      for (auto& v : near) v *= T(1 + 1e-5);
      Field<T> xn = make_field(be, near);
      const auto few = solver.solve(d.b, xn);
      REQUIRE(few.converged);
      REQUIRE(few.iterations + 4 < r0.iterations);
      CHECK(enq_reads(few) == expected(first_of(r1.iterations), few.iterations));  // past its stop where recorded
      const auto r2 = from_zero();  // the last two: r1's and few's
      CHECK(r2.iterations == r0.iterations);
      CHECK(enq_reads(r2) == expected(first_of(few.iterations), r2.iterations));
    }
  });
}

// Jacobi that waits for the device in every application: work that cannot be recorded
template <class T>
class WaitingJacobi final : public Preconditioner<T> {
 public:
  void update(const LinearOperator<T>& A) override { j_.update(A); }
  void apply(const Field<T>& r, Field<T>& z, Guard g) const override {
    j_.apply(r, z, g);
    r.backend().sync();
  }
  std::string describe() const override { return "Jacobi, waiting"; }

 private:
  JacobiPreconditioner<T> j_;
};

TEST_CASE_TEMPLATE("krylov: recorded iterations (CUDA Graphs) replay the solve bit for bit", T, float, double) {
  for_each_backend([](Backend& be) {
    const KrylovProblem spd = make_problem(27, 23, 17, 8, {0, 0, 0});
    const KrylovProblem up = make_problem(23, 19, 21, 10, {1.5, -0.8, 0.6});
    for (KrylovMethod method : {KrylovMethod::CG, KrylovMethod::BiCGSTAB}) {
      const KrylovProblem& p = method == KrylovMethod::CG ? spd : up;
      const std::string name = to_string(method);
      CAPTURE(name);
      Device<T> d(be, p);
      JacobiPreconditioner<T> M;
      M.update(d.op);
      KrylovOptions o;
      o.method = method;
      o.tolerance = solve_tol<T>();
      o.max_iterations = 600;
      o.batches = {5, 7, 1024};  // odd batches: pairs that would straddle two run as plain launches
      o.record = false;
      KrylovSolver<T> plain(d.op, o);
      o.record = true;
      KrylovSolver<T> rec(d.op, o);
      // batches of 2 after the first (linear.batch's default): the first batch is lengthened to end
      // where a pair starts, so every pair after the first periodic iteration replays
      o.batches = {method == KrylovMethod::CG ? 6 : 5, 2, 1024};
      KrylovSolver<T> aligned(d.op, o);
      // two right-hand sides in turn: the second solve updates the first's recording
      for (int rhs = 0; rhs < 2; ++rhs) {
        CAPTURE(rhs);
        auto b = make_field(be, convert<T>(rhs == 0 ? p.b : std::vector<double>(p.b.rbegin(), p.b.rend())));
        Field<T> x1(be, p.n()), x2(be, p.n());
        x1.fill(T(0)), x2.fill(T(0));
        const auto r1 = plain.solve(b, x1, M);
        const auto r2 = rec.solve(b, x2, M);
        INFO(r2.describe());
        CHECK(r2.converged);
        CHECK(r1.replays == 0);
        // pairs from iteration 1 (CG) or 2 (BiCGSTAB) replay where the backend records
        CHECK((r2.replays > 0) == be.can_record());
        CHECK(r2.iterations == r1.iterations);
        CHECK(r2.history == r1.history);
        CHECK(x2.download() == x1.download());
        Field<T> x3(be, p.n());
        x3.fill(T(0));
        const auto r3 = aligned.solve(b, x3, M);
        CHECK(r3.history == r1.history);
        CHECK(x3.download() == x1.download());
        if (be.can_record()) {
          // the iterations enqueued: the first batch (7 for CG, 6 for BiCGSTAB), then 2, 4, 8, ...
          const long periodic = method == KrylovMethod::CG ? 1 : 2;
          long enq = method == KrylovMethod::CG ? 7 : 6, batch = 2;
          while (enq < r3.iterations + 1) enq += batch, batch *= 2;
          CHECK(r3.replays == (enq - periodic) / 2);
        }
      }
    }
  });
}

// Its capture fails on purpose: compute-sanitizer reports those CUDA API errors (gpu.sh leaves it
// out of the sanitizer's runs)
TEST_CASE_TEMPLATE("krylov: work that waits while recorded is enqueued instead", T, float, double) {
  for_each_backend([](Backend& be) {
    const KrylovProblem spd = make_problem(27, 23, 17, 8, {0, 0, 0});
    Device<T> d(be, spd);
    WaitingJacobi<T> W;
    W.update(d.op);
    JacobiPreconditioner<T> M;
    M.update(d.op);
    KrylovOptions o;
    o.tolerance = solve_tol<T>();
    o.max_iterations = 600;
    KrylovSolver<T> a(d.op, o), c(d.op, o);
    Field<T> x1(be, spd.n()), x2(be, spd.n());
    x1.fill(T(0)), x2.fill(T(0));
    const auto r1 = a.solve(d.b, x1, M);
    const auto r2 = c.solve(d.b, x2, W);
    CHECK(r2.converged);
    CHECK(r2.replays == 0);
    CHECK(r2.history == r1.history);
    CHECK(x2.download() == x1.download());
  });
}

}  // TEST_SUITE

TEST_CASE("krylov: vectors of another size are refused, naming the sizes") {
  Backend& be = reference();
  const KrylovProblem p = make_problem(5, 4, 3, 0, {0, 0, 0});
  Device<double> d(be, p);
  KrylovSolver<double> cg(d.op, KrylovOptions{});
  Field<double> x(be, p.n() + 1), b(be, p.n() - 2);
  CHECK_THROWS_WITH_AS(cg.solve(d.b, x), doctest::Contains(("the iterate has " + std::to_string(p.n() + 1) + " values, the operator " + std::to_string(p.n())).c_str()),
                       ConfigError);
  Field<double> y(be, p.n());
  CHECK_THROWS_WITH_AS(cg.solve(b, y), doctest::Contains((std::to_string(p.n() - 2) + " values").c_str()), ConfigError);
  CHECK_THROWS_WITH_AS(d.op.apply(b, y, Guard{}), doctest::Contains(("x has " + std::to_string(p.n() - 2)).c_str()), ConfigError);
  KrylovOptions bad;
  bad.method = KrylovMethod::FGMRES;
  bad.restart = 0;
  CHECK_THROWS_AS(KrylovSolver<double>(d.op, bad), ConfigError);
  bad.restart = 10, bad.tolerance = -1;
  CHECK_THROWS_AS(KrylovSolver<double>(d.op, bad), ConfigError);
  CHECK(parse_krylov_method("bicgstab") == KrylovMethod::BiCGSTAB);
  CHECK_THROWS_AS(parse_krylov_method("gmres"), ConfigError);
}
