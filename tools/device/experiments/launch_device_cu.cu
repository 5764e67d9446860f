// Experiment (GPU machine; not part of the build): the device's own time a launch through the CUDA
// runtime when the stream is already full, beside launch_device_cl.cpp for NVIDIA's OpenCL. A
// one-thread kernel that spins for milliseconds runs first, so the host has enqueued the timed
// launches before the device starts them; events after the spin and after the last launch give
// the device's time a launch. The same kernels as the OpenCL twin: an empty one, and the guarded
// 15-parameter axpby with the guard set and clear at 4 096 and 72 000 values.
//   nvcc -O2 -std=c++17 -arch=sm_90 -o /tmp/launch_dev_cu tools/device/experiments/launch_device_cu.cu && /tmp/launch_dev_cu
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "experiment.cuh"

__global__ void spin(double* out, long iters) {
  double x = out[0];
  for (long i = 0; i < iters; ++i) x = x * 0.9999999 + 1e-9;
  out[0] = x;
}

__global__ void empty(unsigned long long*) {}

__global__ void axpby(const unsigned long long* __restrict__ ctrl, long n, double a, const double* __restrict__ x, double b,
                      double* __restrict__ y, long p0, long p1, long p2, long p3, int q0, int q1, int q2, double c0,
                      double c1) {
  if (ctrl[0]) return;
  const long i = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x;
  if (i < n) y[i] = a * x[i] + b * y[i] + (p0 + p1 + p2 + p3 + q0 + q1 + q2) * c0 * c1;
}

int main(int argc, char** argv) {
  const long spin_iters = argc > 1 ? std::atol(argv[1]) : 10000000;
  const long nmax = 72000;
  const int block = 256, launches = 1000;
  double *x, *y, *out;
  unsigned long long* ctrl;
  CK(cudaMalloc(&x, nmax * sizeof(double)));
  CK(cudaMalloc(&y, nmax * sizeof(double)));
  CK(cudaMalloc(&out, sizeof(double)));
  CK(cudaMalloc(&ctrl, 8));
  CK(cudaMemset(x, 0, nmax * sizeof(double)));
  CK(cudaMemset(y, 0, nmax * sizeof(double)));
  CK(cudaMemset(out, 0, sizeof(double)));
  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaEvent_t e0, e1, e2;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  CK(cudaEventCreate(&e2));
  // the device's time a launch of `launch` (a callable enqueuing one), behind the spin
  auto measure = [&](auto&& launch, float* spin_ms, double* enqueue_ms) {
    CK(cudaEventRecord(e0, s));
    spin<<<1, 1, 0, s>>>(out, spin_iters);
    CK(cudaEventRecord(e1, s));
    const auto t0 = std::chrono::steady_clock::now();
    for (int r = 0; r < launches; ++r) launch();
    *enqueue_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    CK(cudaEventRecord(e2, s));
    CK(cudaEventSynchronize(e2));
    CK(cudaGetLastError());
    float after = 0;
    CK(cudaEventElapsedTime(spin_ms, e0, e1));
    CK(cudaEventElapsedTime(&after, e1, e2));
    return 1e3 * after / launches;
  };
  for (int pass = 0; pass < 2; ++pass) {
    float sm = 0;
    double em = 0;
    const double us = measure([&] { empty<<<1, block, 0, s>>>(ctrl); }, &sm, &em);
    std::printf("cuda pass %d empty kernel, one block: %.2f us a launch on the device (spin %.2f ms, enqueue %.2f ms)\n", pass,
                us, sm, em);
    for (long n : {4096L, 72000L})
      for (int guard : {1, 0}) {
        const unsigned long long g = guard;
        CK(cudaMemcpy(ctrl, &g, 8, cudaMemcpyHostToDevice));
        const int grid = static_cast<int>((n + block - 1) / block);
        const double t = measure([&] { axpby<<<grid, block, 0, s>>>(ctrl, n, 0.5, x, 0.25, y, 0, 0, 0, 0, 0, 0, 0, 0.0, 0.0); },
                                 &sm, &em);
        std::printf("cuda pass %d axpby n=%ld guard=%d: %.2f us a launch on the device (spin %.2f ms, enqueue %.2f ms)\n", pass,
                    n, guard, t, sm, em);
      }
  }
  return 0;
}
