#include "core/models/memory.hpp"

#include <sstream>

#include "core/base/error.hpp"

namespace poreflow {

std::string bytes_text(std::size_t bytes) {
  std::ostringstream o;
  o.precision(3);
  double b = double(bytes) / 1024.0;
  for (const char* unit : {"KiB", "MiB", "GiB", "TiB", "PiB"}) {
    if (b < 1024.0 || unit[0] == 'P') {
      o << b << " " << unit;
      break;
    }
    b /= 1024.0;
  }
  return o.str();
}

void check_memory(const MemoryNeed& need, Precision prec, const Backend& be) {
  const auto have = be.memory();
  if (have.free > 0 && need.total > have.free)
    throw ConfigError(need.what + " needs " + bytes_text(need.total) + " of memory in " + to_string(prec) + ", but " +
                      be.device_name() + " has " + bytes_text(have.free) + " free");
  if (have.max_buffer > 0 && need.largest > have.max_buffer)
    throw ConfigError(need.what + " needs buffers of " + bytes_text(need.largest) + ", but the largest " + be.device_name() +
                      " allocates is " + bytes_text(have.max_buffer));
}

std::string describe_memory(const MemoryNeed& need, Precision prec, const Backend& be) {
  const auto have = be.memory();
  std::ostringstream o;
  o << need.what << " needs " << bytes_text(need.total) << " in " << to_string(prec) << " (largest buffer " << bytes_text(need.largest)
    << "); " << be.name() << " on " << be.device_name() << " has " << (have.free > 0 ? bytes_text(have.free) : "an unknown amount")
    << " free" << (have.max_buffer > 0 ? ", buffers up to " + bytes_text(have.max_buffer) : "") << ": "
    << (have.free > 0 && need.total > have.free     ? "does not fit"
        : have.max_buffer > 0 && need.largest > have.max_buffer ? "a buffer too large"
                                                                : "fits");
  return o.str();
}

}  // namespace poreflow
