// The serial reference reduction: one loop, accumulated in double. omp has its own
// (backends/host/reduce_omp.cpp).
#include <algorithm>
#include <cmath>
#include <limits>

#include "backends/host/families.hpp"
#include "core/kernels/reduce.hpp"

namespace poreflow {
namespace {

template <class T>
double reduce_t(const ReduceArgs& args) {
  const T* a = host_ptr<T>(args.a);
  const T* b = host_ptr<T>(args.b);
  const std::size_t n = args.n;
  // accumulate in double: this is the reference every backend is compared with
  switch (args.op) {
    case ReduceOp::Sum: {
      double s = 0;
      for (std::size_t i = 0; i < n; ++i) s += a[i];
      return s;
    }
    case ReduceOp::Min: {
      double m = std::numeric_limits<double>::infinity();
      for (std::size_t i = 0; i < n; ++i) m = std::min<double>(m, a[i]);
      return m;
    }
    case ReduceOp::Max: {
      double m = -std::numeric_limits<double>::infinity();
      for (std::size_t i = 0; i < n; ++i) m = std::max<double>(m, a[i]);
      return m;
    }
    case ReduceOp::MaxAbs: {
      double m = 0;
      for (std::size_t i = 0; i < n; ++i) m = std::max<double>(m, std::fabs(a[i]));
      return m;
    }
    case ReduceOp::MaxAbsDiff: {
      double m = 0;
      for (std::size_t i = 0; i < n; ++i) m = std::max<double>(m, std::fabs(static_cast<double>(a[i]) - b[i]));
      return m;
    }
  }
  return 0;
}

class SerialReduce final : public ReduceImpl {
 public:
  std::vector<ReduceVariant> variants() const override { return {ReduceVariant::Serial}; }
  void enqueue(const ReduceArgs& a) override {
    last_ = a.prec == Precision::Float ? reduce_t<float>(a) : reduce_t<double>(a);
  }
  double fetch() override { return last_; }

 private:
  double last_ = 0;
};

}  // namespace

FamilyPtr<ReduceImpl> make_family(const HostContext&, FamilyTag<ReduceImpl>) { return std::make_shared<SerialReduce>(); }

}  // namespace poreflow
