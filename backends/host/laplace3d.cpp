// laplace3d on the host backends: the box loop around the shared point function.
#include "core/physics/laplace3d.h"
#include "backends/host/families.hpp"
#include "core/kernels/laplace3d.hpp"

namespace poreflow {
namespace {

class HostLaplace3D final : public Laplace3DImpl {
 public:
  explicit HostLaplace3D(const HostContext& hc) : hc_(hc) {}
  void apply(const Laplace3DApplyArgs& a) override {
    with_type(a.prec, [&](auto tag) {
      using T = decltype(tag);
      const T* in = host_ptr<T>(*a.in);
      T* out = host_ptr<T>(*a.out);
      const pf_box3 bi = a.in_box.view(), bo = a.out_box.view();
      const T cx = T(a.cx), cy = T(a.cy), cz = T(a.cz);
      for_box(hc_, a.in_box, [&](long i, long j, long k) {
        out[phys::pf_box_at(bo, i, j, k)] = phys::lap7_at<T>(in, bi, i, j, k, cx, cy, cz);
      });
    });
  }

 private:
  HostContext hc_;
};

}  // namespace

FamilyPtr<Laplace3DImpl> make_family(const HostContext& hc, FamilyTag<Laplace3DImpl>) { return std::make_shared<HostLaplace3D>(hc); }

}  // namespace poreflow
