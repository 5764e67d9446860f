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

void Backend::download_async(const Buffer& src, StagingBuffer& dst, std::size_t dst_offset, std::size_t bytes, std::size_t offset) {
  if (dst_offset > dst.bytes() || bytes > dst.bytes() - dst_offset) throw BackendError("download_async: range outside the staging buffer");
  download(src, dst.data() + dst_offset, bytes, offset);
}

void Backend::upload_async(Buffer& dst, std::size_t offset, StagingBuffer& src, std::size_t src_offset, std::size_t bytes) {
  if (src_offset > src.bytes() || bytes > src.bytes() - src_offset) throw BackendError("upload_async: range outside the staging buffer");
  upload(dst, src.data() + src_offset, bytes, offset);
}

namespace {
// a queue's point as a full wait: right, if without the overlap
class SyncMarker final : public Backend::Marker {
 public:
  explicit SyncMarker(Backend& be) : be_(be) {}
  void wait() override { be_.sync(); }

 private:
  Backend& be_;
};
}  // namespace

std::unique_ptr<Backend::Marker> Backend::mark() { return std::make_unique<SyncMarker>(*this); }

void Backend::begin_recording() { throw BackendError("the " + name() + " backend cannot record launches"); }
void Backend::end_recording(std::unique_ptr<Recording>&) { throw BackendError("the " + name() + " backend cannot record launches"); }

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
