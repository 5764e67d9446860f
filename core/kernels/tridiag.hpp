#pragma once
// The tridiag family: batched tridiagonal solves (papers 002/004 and beyond): Thomas, cyclic
// reduction, parallel cyclic reduction and their hybrids, in two layouts, and a vendor library's
// solver for comparison (cuSPARSE on cuda). docs/tridiag.md has the kernels and measurements.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/kernels/backend.hpp"
#include "core/kernels/kernel_args.hpp"

namespace poreflow {

// Thomas (one thread per system), cyclic reduction, parallel cyclic reduction, the CR+PCR hybrid
// (Zhang, Cohen, Owens) and PCR+Thomas; Auto picks by n, batch and layout (each backend documents
// its rule).
enum class TridiagAlgo { Thomas, CR, PCR, CrPcr, PcrThomas, Auto };
const char* to_string(TridiagAlgo a);
TridiagAlgo parse_tridiag_algo(std::string_view s);
std::vector<TridiagAlgo> tridiag_algos();  // every concrete algorithm (not Auto)

// contiguous: unknown i of system s at s * n + i (rows of a grid: the x-sweep);
// interleaved: at i * batch + s (columns: the y-sweep). No transpose either way.
enum class TridiagLayout { Contiguous, Interleaved };
const char* to_string(TridiagLayout l);
TridiagLayout parse_tridiag_layout(std::string_view s);

// `batch` systems a x[i-1] + b x[i] + c x[i+1] = d of n unknowns in the given layout; a of the
// first and c of the last unknown of each system are ignored (they may hold anything). x must
// not alias the inputs; the inputs are not modified. With `add`, x receives the solution plus add
// (an iteration's update, q + correction, without a pass of its own). With a guard (a control
// block, core/base/converge.h) the solve does nothing once the block says stop.
struct TridiagArgs {
  Precision prec = Precision::Double;
  TridiagAlgo algo = TridiagAlgo::Auto;
  TridiagLayout layout = TridiagLayout::Contiguous;
  std::size_t n = 0, batch = 0;
  const Buffer *a = nullptr, *b = nullptr, *c = nullptr, *d = nullptr;
  Buffer* x = nullptr;
  const Buffer* guard = nullptr;
  const Buffer* add = nullptr;

  // a solve's leading parameters: a, b, c, d, x, add, guard (both may be null); what a backend's
  // plan adds follows them (core/kernels/kernel_args.hpp)
  auto kernel_args() const {
    using namespace karg;
    return std::tuple(In<Real>{this->a}, In<Real>{this->b}, In<Real>{this->c}, In<Real>{this->d}, Out<Real>{x}, Opt<Real>{add},
                      Opt<pf_u64>{guard});
  }
};

class TridiagImpl {
 public:
  virtual ~TridiagImpl() = default;
  // a concrete algorithm, n and batch > 0, arguments checked
  virtual void solve(const TridiagArgs& a) = 0;
  virtual TridiagAlgo resolve_auto(const TridiagArgs& a) const = 0;
  // A vendor library's batched solver on the same data; empty name: none for this layout.
  virtual std::string vendor_name(TridiagLayout) const { return ""; }
  virtual void vendor_solve(const TridiagArgs& a);
};

class TridiagKernels {
 public:
  TridiagKernels(Backend& be, TridiagImpl& impl) : be_(be), impl_(impl) {}
  void solve(const TridiagArgs& a);
  // the algorithm Auto means for these arguments on this backend
  TridiagAlgo resolve(const TridiagArgs& a) const;
  std::string vendor_name(TridiagLayout layout) const { return impl_.vendor_name(layout); }
  void vendor_solve(const TridiagArgs& a);

 private:
  void check(const TridiagArgs& a, const char* what) const;
  Backend& be_;
  TridiagImpl& impl_;
};

}  // namespace poreflow
