#include "core/base/types.hpp"

#include "core/base/enum_names.hpp"

namespace poreflow {
namespace {
constexpr EnumNames<Precision, 2> kPrecisions{{{"float", Precision::Float}, {"double", Precision::Double}}};
}

const char* to_string(Precision p) { return enum_name(p, kPrecisions); }
Precision parse_precision(std::string_view s) { return parse_enum(s, kPrecisions, "precision"); }

}  // namespace poreflow
