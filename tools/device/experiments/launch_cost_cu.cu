// Experiment (GPU machine; not part of the build): what one launch of a small kernel costs through
// the CUDA runtime, beside tools/device/experiments/launch_cost_cl.cpp for NVIDIA's OpenCL. The
// kernel is an axpby with a control-word guard and 15 parameters, as poreflow's vec kernels have.
//   nvcc -O2 -std=c++17 -o /tmp/launch_cu tools/device/experiments/launch_cost_cu.cu && /tmp/launch_cu
// Prints, per element count: the host's time to enqueue a launch (the loop alone), the time per
// launch until the stream is drained (the host's clock after a stream sync), the same with the
// guard set (every launch returns at once), and per kernel node of a CUDA graph of 200 launches
// replayed.
#include <chrono>
#include <cstdio>
#include <vector>

#include "experiment.cuh"

__global__ void axpby(const unsigned long long* __restrict__ ctrl, long n, double a, const double* __restrict__ x, double b,
                      double* __restrict__ y, long p0, long p1, long p2, long p3, int q0, int q1, int q2, double c0,
                      double c1) {
  if (ctrl[0]) return;  // a stopped solve: the launch returns at once
  const long i = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x;
  if (i < n) y[i] = a * x[i] + b * y[i] + (p0 + p1 + p2 + p3 + q0 + q1 + q2) * c0 * c1;
}

int main() {
  const int launches = 20000, block = 256;
  for (long n : {4096L, 72000L, 1200000L}) {
    double *x, *y;
    unsigned long long* ctrl;
    CK(cudaMalloc(&x, n * sizeof(double)));
    CK(cudaMalloc(&y, n * sizeof(double)));
    CK(cudaMalloc(&ctrl, 8));
    CK(cudaMemset(x, 0, n * sizeof(double)));
    CK(cudaMemset(y, 0, n * sizeof(double)));
    const int grid = static_cast<int>((n + block - 1) / block);
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    auto one = [&] { axpby<<<grid, block, 0, s>>>(ctrl, n, 0.5, x, 0.25, y, 0, 0, 0, 0, 0, 0, 0, 0.0, 0.0); };
    for (int guard : {0, 1}) {
      const unsigned long long g = guard;
      CK(cudaMemcpy(ctrl, &g, 8, cudaMemcpyHostToDevice));
      for (int r = 0; r < 100; ++r) one();
      CK(cudaStreamSynchronize(s));
      const auto t0 = std::chrono::steady_clock::now();
      for (int r = 0; r < launches; ++r) one();
      const auto t1 = std::chrono::steady_clock::now();
      CK(cudaStreamSynchronize(s));
      const auto t2 = std::chrono::steady_clock::now();
      CK(cudaGetLastError());
      const double enq = std::chrono::duration<double, std::micro>(t1 - t0).count() / launches;
      const double all = std::chrono::duration<double, std::micro>(t2 - t0).count() / launches;
      // a graph of 200 launches, replayed
      cudaGraph_t graph;
      cudaGraphExec_t exec;
      CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
      for (int r = 0; r < 200; ++r) one();
      CK(cudaStreamEndCapture(s, &graph));
      CK(cudaGraphInstantiate(&exec, graph, 0));
      CK(cudaGraphLaunch(exec, s));
      CK(cudaStreamSynchronize(s));
      const int replays = launches / 200;
      const auto t3 = std::chrono::steady_clock::now();
      for (int r = 0; r < replays; ++r) CK(cudaGraphLaunch(exec, s));
      CK(cudaStreamSynchronize(s));
      const auto t4 = std::chrono::steady_clock::now();
      const double node = std::chrono::duration<double, std::micro>(t4 - t3).count() / (replays * 200.0);
      std::printf("cuda n=%ld guard=%d: enqueue %.2f us/launch, drained %.2f us/launch, graph node %.2f us\n", n, guard, enq,
                  all, node);
      CK(cudaGraphExecDestroy(exec));
      CK(cudaGraphDestroy(graph));
    }
    CK(cudaStreamDestroy(s));
    CK(cudaFree(x));
    CK(cudaFree(y));
    CK(cudaFree(ctrl));
  }
  return 0;
}
