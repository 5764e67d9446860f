// halo3d on the host backends: each pass over its face index space (core/physics/halo3d.h).
#include "core/physics/halo3d.h"
#include "backends/host/families.hpp"
#include "core/kernels/halo3d.hpp"

namespace poreflow {
namespace {

class HostHalo3D final : public Halo3DImpl {
 public:
  explicit HostHalo3D(const HostContext& hc) : hc_(hc) {}
  void fill_pass(const Halo3DFillArgs& a, int dir) override {
    with_type(a.prec, [&](auto tag) {
      using T = decltype(tag);
      T* f = host_ptr<T>(*a.field);
      const pf_box3 b = a.box.view();
      long nu = 0, nv = 0;
      phys::pf_halo_extent(b, dir, &nu, &nv);
      const long nw = 2 * b.halo;
      const HaloFace& lo = a.face[2 * dir];
      const HaloFace& hi = a.face[2 * dir + 1];
      const int mlo = static_cast<int>(lo.mode), mhi = static_cast<int>(hi.mode);
      const T vlo = T(lo.value), vhi = T(hi.value);
#pragma omp parallel for collapse(2) schedule(static) num_threads(hc_.threads) if (hc_.par(std::size_t(nu * nv * nw)))
      for (long w = 0; w < nw; ++w)
        for (long v = 0; v < nv; ++v)
          for (long u = 0; u < nu; ++u) phys::pf_halo_fill_point<T>(f, b, dir, u, v, w, mlo, mhi, vlo, vhi);
    });
  }
  void pack(const Halo3DPackArgs& a) override {
    with_type(a.prec, [&](auto tag) {
      using T = decltype(tag);
      T* f = host_ptr<T>(*a.field);
      T* buf = host_ptr<T>(*a.buf);
      const pf_box3 b = a.box.view();
      long nu = 0, nv = 0;
      phys::pf_halo_extent(b, a.dir, &nu, &nv);
      const long nw = 2 * b.halo;
      const int unpack = a.unpack ? 1 : 0;
#pragma omp parallel for collapse(2) schedule(static) num_threads(hc_.threads) if (hc_.par(std::size_t(nu * nv * nw)))
      for (long w = 0; w < nw; ++w)
        for (long v = 0; v < nv; ++v)
          for (long u = 0; u < nu; ++u) phys::pf_halo_pack_point<T>(f, b, a.dir, u, v, w, buf, unpack, a.sides, a.block);
    });
  }

 private:
  HostContext hc_;
};

}  // namespace

FamilyPtr<Halo3DImpl> make_family(const HostContext& hc, FamilyTag<Halo3DImpl>) { return std::make_shared<HostHalo3D>(hc); }

}  // namespace poreflow
