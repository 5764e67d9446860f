#include "core/kernels/backend.hpp"

#include <limits>
#include <string>
#include <vector>

#include "core/base/error.hpp"

namespace poreflow {

namespace {
class PlainStagingBuffer final : public StagingBuffer {
 public:
  explicit PlainStagingBuffer(std::size_t bytes) : v_(bytes) {}
  unsigned char* data() override { return v_.data(); }
  std::size_t bytes() const override { return v_.size(); }

 private:
  std::vector<unsigned char> v_;
};
}  // namespace

std::unique_ptr<StagingBuffer> Backend::alloc_staging(std::size_t bytes) { return std::make_unique<PlainStagingBuffer>(bytes); }

void check_range(const Buffer& b, std::size_t bytes, std::size_t offset, const char* what) {
  if (offset > b.bytes() || bytes > b.bytes() - offset)
    throw BackendError(std::string(what) + ": range outside the buffer");
}

void check_values(const Buffer* b, std::size_t n, Precision prec, const char* what, const char* detail) {
  auto name = [&] { return std::string(what) + (detail ? std::string(" ") + detail : std::string()); };
  if (!b) throw BackendError(name() + ": missing buffer");
  if (n > std::numeric_limits<std::size_t>::max() / 8)
    throw BackendError(name() + ": " + std::to_string(n) + " values is too many");
  if (n * size_of(prec) > b->bytes()) throw BackendError(name() + ": range outside the buffer");
}

void check_precision(const Backend& be, Precision prec, const char* what) {
  if (!be.supports(prec))
    throw BackendError(std::string(what) + ": the " + be.name() + " device " + be.device_name() + " has no " +
                       to_string(prec) + " precision" + (prec == Precision::Double ? " (cl_khr_fp64); use float" : ""));
}

}  // namespace poreflow
