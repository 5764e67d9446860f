#pragma once
// Field<T>: n values of type T that live on a backend's device for the whole run.
// Host copies happen only for output and checks (download) and initial state (upload).
#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "core/kernels/backend.hpp"
#include "core/base/error.hpp"

namespace poreflow {

template <class T>
class Field {
 public:
  Field() = default;
  Field(Backend& be, std::size_t n) : be_(&be), buf_(be.alloc(n * sizeof(T))), n_(n) {}

  std::size_t size() const { return n_; }
  Buffer& buffer() { return *buf_; }
  const Buffer& buffer() const { return *buf_; }
  Backend& backend() const { return *be_; }
  static constexpr Precision precision() { return precision_of<T>(); }

  void upload(std::span<const T> host) {
    if (host.size() != n_) throw Error("Field::upload: size mismatch");
    be_->upload(*buf_, host.data(), n_ * sizeof(T));
  }
  std::vector<T> download() const {
    std::vector<T> host(n_);
    be_->download(*buf_, host.data(), n_ * sizeof(T));
    return host;
  }
  void fill(T value) { be_->fill(*buf_, precision(), static_cast<double>(value), n_); }
  void swap(Field& other) noexcept {
    std::swap(be_, other.be_);
    std::swap(buf_, other.buf_);
    std::swap(n_, other.n_);
  }

 private:
  Backend* be_ = nullptr;
  std::unique_ptr<Buffer> buf_;
  std::size_t n_ = 0;
};

}  // namespace poreflow
