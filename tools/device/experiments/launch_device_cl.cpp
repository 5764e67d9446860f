// Experiment (GPU machine; not part of the build): the device's own time a launch through NVIDIA's
// OpenCL when the queue is already full, beside launch_device_cu.cu. A one-work-item kernel that
// spins for milliseconds is enqueued first, so the host has enqueued all the timed launches before
// the device starts them; then (END of the last - END of the spin) / launches is the device's time
// a launch, whatever the host's enqueue costs. Kernels: an empty one (one argument), the guarded
// 15-parameter axpby of launch_cost_cl.cpp with the guard set (returns at once) and clear, at
// 4 096 and 72 000 values, and with one work-group or a grid. Only the spin and the last launch
// take events. With the .devkit unpacked in /opt/kit (gpu.sh does it):
//   g++ -O2 -std=c++17 -I/opt/kit/usr/include -o /tmp/launch_dev_cl tools/device/experiments/launch_device_cl.cpp \
//     -L/opt/kit/usr/lib/x86_64-linux-gnu -lOpenCL && /tmp/launch_dev_cl NVIDIA
#include <chrono>
#include <functional>

#include "experiment_cl.hpp"

static const char* kSource = R"(
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void spin(__global double* out, long iters) {
  double x = out[0];
  for (long i = 0; i < iters; ++i) x = x * 0.9999999 + 1e-9;
  out[0] = x;
}
__kernel void empty(__global ulong* ctrl) {}
__kernel void axpby(__global const ulong* restrict ctrl, long n, double a, __global const double* restrict x, double b,
                    __global double* restrict y, long p0, long p1, long p2, long p3, int q0, int q1, int q2, double c0,
                    double c1) {
  if (ctrl[0]) return;
  const long i = get_global_id(0);
  if (i < n) y[i] = a * x[i] + b * y[i] + (p0 + p1 + p2 + p3 + q0 + q1 + q2) * c0 * c1;
}
)";

int main(int argc, char** argv) {
  const std::string want = argc > 1 ? argv[1] : "NVIDIA";
  const long spin_iters = argc > 2 ? std::atol(argv[2]) : 10000000;
  const ClExperiment e = open_cl(want, kSource, true);  // profiling: the spin's and the last launch's events
  cl_context ctx = e.ctx;
  cl_command_queue q = e.q;
  cl_int err;
  cl_kernel spin = make_kernel(e, "spin");
  cl_kernel empty = make_kernel(e, "empty");
  cl_kernel axpby = make_kernel(e, "axpby");
  const long nmax = 72000;
  cl_mem x = clCreateBuffer(ctx, CL_MEM_READ_WRITE, nmax * sizeof(double), nullptr, &err);
  CK(err);
  cl_mem y = clCreateBuffer(ctx, CL_MEM_READ_WRITE, nmax * sizeof(double), nullptr, &err);
  CK(err);
  cl_mem ctrl = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 8, nullptr, &err);
  CK(err);
  cl_mem out = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 8, nullptr, &err);
  CK(err);
  const double zero = 0;
  CK(clEnqueueFillBuffer(q, x, &zero, sizeof zero, 0, nmax * sizeof(double), 0, nullptr, nullptr));
  CK(clEnqueueFillBuffer(q, y, &zero, sizeof zero, 0, nmax * sizeof(double), 0, nullptr, nullptr));
  CK(clEnqueueFillBuffer(q, out, &zero, sizeof zero, 0, 8, 0, nullptr, nullptr));
  CK(clSetKernelArg(spin, 0, sizeof(cl_mem), &out));
  CK(clSetKernelArg(spin, 1, sizeof spin_iters, &spin_iters));
  CK(clSetKernelArg(empty, 0, sizeof(cl_mem), &ctrl));
  const size_t block = 256, one = 1;
  auto ns = [](cl_event e, cl_profiling_info what) {
    cl_ulong t = 0;
    CK(clGetEventProfilingInfo(e, what, sizeof t, &t, nullptr));
    return t;
  };
  // the device's time a launch for `launches` launches of k over `global` items, behind the spin;
  // the host's enqueue time must stay below the spin's for the figure to be the device's alone
  double enqueue_ms = 0;
  auto measure = [&](cl_kernel k, size_t global, int launches, double* spin_ms) {
    cl_event e0, e1;
    CK(clEnqueueNDRangeKernel(q, spin, 1, nullptr, &one, &one, 0, nullptr, &e0));
    CK(clFlush(q));
    const auto t0 = std::chrono::steady_clock::now();
    for (int r = 0; r < launches - 1; ++r) CK(clEnqueueNDRangeKernel(q, k, 1, nullptr, &global, &block, 0, nullptr, nullptr));
    CK(clEnqueueNDRangeKernel(q, k, 1, nullptr, &global, &block, 0, nullptr, &e1));
    enqueue_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    CK(clFinish(q));
    const cl_ulong spin_end = ns(e0, CL_PROFILING_COMMAND_END), last_end = ns(e1, CL_PROFILING_COMMAND_END);
    *spin_ms = (spin_end - ns(e0, CL_PROFILING_COMMAND_START)) * 1e-6;
    CK(clReleaseEvent(e0));
    CK(clReleaseEvent(e1));
    return (last_end - spin_end) * 1e-3 / launches;
  };
  const int launches = 1000;
  for (int pass = 0; pass < 2; ++pass) {
    double sm = 0;
    std::printf("opencl pass %d empty kernel, one group: %.2f us a launch on the device", pass, measure(empty, block, launches, &sm));
    std::printf(" (spin %.2f ms, enqueue %.2f ms)\n", sm, enqueue_ms);
    for (long n : {4096L, 72000L})
      for (int guard : {1, 0}) {
        const cl_ulong g = guard;
        CK(clEnqueueWriteBuffer(q, ctrl, CL_TRUE, 0, 8, &g, 0, nullptr, nullptr));
        set_axpby_args(axpby, ctrl, n, x, y);
        const size_t global = (n + block - 1) / block * block;
        const double us = measure(axpby, global, launches, &sm);
        std::printf("opencl pass %d axpby n=%ld guard=%d: %.2f us a launch on the device (spin %.2f ms, enqueue %.2f ms)\n", pass, n,
                    guard, us, sm, enqueue_ms);
      }
  }
  return 0;
}
