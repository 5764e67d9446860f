#pragma once
// cuSPARSE on the cuda backend: checked calls and the handle, shared by the families that offer a
// vendor comparison (tridiag's batched solvers, sor3d's sparse matrix-vector product).
#include <cuda_runtime_api.h>
#include <cusparse.h>

namespace poreflow::cuda_detail {

[[noreturn]] void throw_cusparse(cusparseStatus_t st, const char* what, const char* file, int line);

#define PF_CHECK_CUSPARSE(call)                                                                      \
  do {                                                                                               \
    cusparseStatus_t pf_sp_st_ = (call);                                                             \
    if (pf_sp_st_ != CUSPARSE_STATUS_SUCCESS)                                                        \
      ::poreflow::cuda_detail::throw_cusparse(pf_sp_st_, #call, __FILE__, __LINE__);                 \
  } while (0)

// The handle, created on first use and bound to the backend's stream.
class SparseHandle {
 public:
  SparseHandle() = default;
  ~SparseHandle();
  SparseHandle(const SparseHandle&) = delete;
  SparseHandle& operator=(const SparseHandle&) = delete;
  cusparseHandle_t get(cudaStream_t stream);

 private:
  cusparseHandle_t h_ = nullptr;
};

}  // namespace poreflow::cuda_detail
