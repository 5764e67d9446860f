// Experiment (GPU machine; not part of the build): what a host round trip costs through the CUDA
// runtime, beside read_cost_cl.cpp for NVIDIA's OpenCL: K launches of a small kernel that writes a
// control word, then a read of 16 bytes of it that the host waits for. Ways: cudaMemcpy into
// pageable memory; cudaMemcpyAsync into pinned memory and cudaStreamSynchronize.
//   nvcc -O2 -std=c++17 -o /tmp/read_cu tools/device/experiments/read_cost_cu.cu && /tmp/read_cu
#include <chrono>
#include <cstdio>
#include <vector>

#include "experiment.cuh"

__global__ void touch(unsigned long long* ctrl, double* y, long n) {
  const long i = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x;
  if (i < n) y[i] = y[i] * 0.5 + 1.0;
  if (i == 0) {
    ctrl[0] += 1;
    ctrl[1] = n;
  }
}

int main() {
  const long n = 72000;
  const int block = 256, grid = static_cast<int>((n + block - 1) / block), trips = 3000;
  double* y;
  unsigned long long *ctrl, *pinned;
  CK(cudaMalloc(&y, n * sizeof(double)));
  CK(cudaMalloc(&ctrl, 16));
  CK(cudaMemset(y, 0, n * sizeof(double)));
  CK(cudaMemset(ctrl, 0, 16));
  CK(cudaMallocHost(&pinned, 16));
  std::vector<unsigned long long> pageable(2);
  cudaStream_t s;
  CK(cudaStreamCreate(&s));
  for (int K : {1, 10, 50}) {
    for (int pass = 0; pass < 2; ++pass) {
      for (int way = 0; way < 2; ++way) {
        auto read = [&]() -> unsigned long long {
          if (way == 0) {
            CK(cudaMemcpy(pageable.data(), ctrl, 16, cudaMemcpyDeviceToHost));
            return pageable[0];
          }
          CK(cudaMemcpyAsync(pinned, ctrl, 16, cudaMemcpyDeviceToHost, s));
          CK(cudaStreamSynchronize(s));
          return pinned[0];
        };
        CK(cudaDeviceSynchronize());
        unsigned long long before = read();
        const auto t0 = std::chrono::steady_clock::now();
        for (int t = 0; t < trips; ++t) {
          for (int i = 0; i < K; ++i) touch<<<grid, block, 0, way == 0 ? cudaStreamLegacy : s>>>(ctrl, y, n);
          const unsigned long long v = read();
          if (v != before + K) {
            std::printf("read %llu, expected %llu\n", v, before + K);
            return 3;
          }
          before = v;
        }
        const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / trips;
        std::printf("cuda K=%d pass %d %-12s %8.2f us a round trip (%6.2f us a launch incl. the read)\n", K, pass,
                    way == 0 ? "pageable" : "pinned+sync", us, us / K);
      }
    }
  }
  return 0;
}
