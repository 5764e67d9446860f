#include "backends/cuda/cusparse.hpp"

#include <spdlog/spdlog.h>

#include <string>

#include "core/base/error.hpp"

namespace poreflow::cuda_detail {

void throw_cusparse(cusparseStatus_t st, const char* what, const char* file, int line) {
  const std::string msg = std::string(what) + " failed: " + cusparseGetErrorString(st);
  throw BackendError(where(msg.c_str(), file, line));
}

SparseHandle::~SparseHandle() {
  if (!h_) return;
  if (cusparseStatus_t st = cusparseDestroy(h_); st != CUSPARSE_STATUS_SUCCESS)
    spdlog::error("cusparseDestroy failed: {}", cusparseGetErrorString(st));
}

cusparseHandle_t SparseHandle::get(cudaStream_t stream) {
  if (!h_) {
    cusparseHandle_t h = nullptr;
    PF_CHECK_CUSPARSE(cusparseCreate(&h));
    h_ = h;
    PF_CHECK_CUSPARSE(cusparseSetStream(h_, stream));
  }
  return h_;
}

}  // namespace poreflow::cuda_detail
