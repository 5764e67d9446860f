#pragma once
// What the standalone experiments of this folder share (not part of the build): a checked CUDA
// call and an event-timed loop of launches.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <type_traits>

#define CK(x)                                                                \
  do {                                                                       \
    cudaError_t e_ = (x);                                                    \
    if (e_ != cudaSuccess) {                                                 \
      std::printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      std::exit(1);                                                          \
    }                                                                        \
  } while (0)

// milliseconds per call of f over reps calls timed back to back on the default stream, after
// `warmup` untimed ones; f takes the call's number when it accepts an int (sweeps alternate colours)
template <class F>
float time_ms(F&& f, int reps, int warmup = 1) {
  auto call = [&](int r) {
    if constexpr (std::is_invocable_v<F&, int>) f(r);
    else f();
  };
  for (int r = 0; r < warmup; ++r) call(r);
  CK(cudaDeviceSynchronize());
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  CK(cudaEventRecord(e0));
  for (int r = 0; r < reps; ++r) call(r);
  CK(cudaEventRecord(e1));
  CK(cudaEventSynchronize(e1));
  CK(cudaGetLastError());
  float ms = 0;
  CK(cudaEventElapsedTime(&ms, e0, e1));
  CK(cudaEventDestroy(e0));
  CK(cudaEventDestroy(e1));
  return ms / reps;
}
