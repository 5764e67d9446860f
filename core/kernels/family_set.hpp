#pragma once
// What every backend owns: one implementation per kernel family (core/kernels/family_list.hpp).
// make_families(ctx) asks the backend for each of them through make_family(ctx, FamilyTag<FImpl>{}),
// overloads that each backend declares from the same list next to its context
// (PF_DECLARE_MAKE_FAMILIES in backends/host/families.hpp, backends/cuda/families.hpp,
// backends/opencl/families.hpp) and defines in its <family>.cpp: a backend that lacks one does not
// link. FamilyBackend implements Backend's family accessors from the set.
//
// A family is held through a shared_ptr made where its type is complete (the family's own file),
// so this header needs none of the families' definitions.
#include <memory>

#include "core/kernels/backend.hpp"

namespace poreflow {

template <class Impl>
struct FamilyTag {};

template <class Impl>
using FamilyPtr = std::shared_ptr<Impl>;

struct FamilySet {
#define PF_FAMILY_MEMBER(Type, name) FamilyPtr<Type##Impl> name;
  PF_FAMILIES(PF_FAMILY_MEMBER)
#undef PF_FAMILY_MEMBER
};

// the make_family declarations of a backend whose families take a `Ctx` (its device context)
#define PF_DECLARE_MAKE_FAMILY_FOR(Ctx, Type, name) FamilyPtr<Type##Impl> make_family(Ctx& ctx, FamilyTag<Type##Impl>);

template <class Ctx>
FamilySet make_families(Ctx& ctx) {
  FamilySet s;
#define PF_FAMILY_MAKE(Type, name) s.name = make_family(ctx, FamilyTag<Type##Impl>{});
  PF_FAMILIES(PF_FAMILY_MAKE)
#undef PF_FAMILY_MAKE
  return s;
}

// A backend whose families are a FamilySet, kept by the derived class (declared after what the
// families use, a device context, so that it goes first) and handed in by reference.
class FamilyBackend : public Backend {
 protected:
  explicit FamilyBackend(FamilySet& set) : set_(set) {}
#define PF_FAMILY_OVERRIDE(Type, name) \
  Type##Impl& name##_impl() override { return *set_.name; }
  PF_FAMILIES(PF_FAMILY_OVERRIDE)
#undef PF_FAMILY_OVERRIDE

 private:
  FamilySet& set_;
};

}  // namespace poreflow
