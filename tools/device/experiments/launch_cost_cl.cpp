// Experiment (GPU machine; not part of the build): what one launch of a small kernel costs through
// NVIDIA's OpenCL, beside launch_cost_cu.cu for the CUDA runtime: the same guarded 15-parameter
// axpby. With the .devkit unpacked in /opt/kit (gpu.sh does it):
//   g++ -O2 -std=c++17 -I/opt/kit/usr/include -o /tmp/launch_cl tools/device/experiments/launch_cost_cl.cpp \
//     -L/opt/kit/usr/lib/x86_64-linux-gnu -lOpenCL && /tmp/launch_cl NVIDIA
// Prints, per element count: the host's time to enqueue a launch whose arguments are already set,
// the time per launch until the queue is drained, the same when all 15 arguments are set before
// every launch, each with the guard clear and set (every launch returns at once); and whether the
// driver offers clCloneKernel and cl_khr_command_buffer.
#include <chrono>
#include <functional>

#include "experiment_cl.hpp"

static const char* kSource = R"(
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
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
  const ClExperiment e = open_cl(want, kSource);
  cl_device_id dev = e.dev;
  cl_context ctx = e.ctx;
  cl_command_queue q = e.q;
  char ext[8192] = {}, ver[256] = {};
  CK(clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, sizeof ext, ext, nullptr));
  CK(clGetDeviceInfo(dev, CL_DEVICE_VERSION, sizeof ver, ver, nullptr));
  std::printf("opencl device %s; cl_khr_command_buffer: %s\n", ver, std::strstr(ext, "cl_khr_command_buffer") ? "yes" : "no");
  cl_int err;
  cl_kernel k = make_kernel(e, "axpby");
  cl_kernel clone = clCloneKernel(k, &err);
  std::printf("clCloneKernel: %s (%d)\n", err == CL_SUCCESS ? "yes" : "no", (int)err);
  if (err == CL_SUCCESS) clReleaseKernel(clone);

  const int launches = 20000;
  const size_t block = 256;
  for (long n : {4096L, 72000L, 1200000L}) {
    cl_mem x = clCreateBuffer(ctx, CL_MEM_READ_WRITE, n * sizeof(double), nullptr, &err);
    CK(err);
    cl_mem y = clCreateBuffer(ctx, CL_MEM_READ_WRITE, n * sizeof(double), nullptr, &err);
    CK(err);
    cl_mem ctrl = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 8, nullptr, &err);
    CK(err);
    const double zero = 0;
    CK(clEnqueueFillBuffer(q, x, &zero, sizeof zero, 0, n * sizeof(double), 0, nullptr, nullptr));
    CK(clEnqueueFillBuffer(q, y, &zero, sizeof zero, 0, n * sizeof(double), 0, nullptr, nullptr));
    const size_t global = (n + block - 1) / block * block;
    auto set_all = [&] { set_axpby_args(k, ctrl, n, x, y); };
    set_all();
    auto enqueue = [&] { CK(clEnqueueNDRangeKernel(q, k, 1, nullptr, &global, &block, 0, nullptr, nullptr)); };
    for (int guard : {0, 1}) {
      const cl_ulong g = guard;
      CK(clEnqueueWriteBuffer(q, ctrl, CL_TRUE, 0, 8, &g, 0, nullptr, nullptr));
      for (int args_each : {0, 1}) {
        for (int r = 0; r < 100; ++r) enqueue();
        CK(clFinish(q));
        const auto t0 = std::chrono::steady_clock::now();
        for (int r = 0; r < launches; ++r) {
          if (args_each) set_all();
          enqueue();
        }
        const auto t1 = std::chrono::steady_clock::now();
        CK(clFinish(q));
        const auto t2 = std::chrono::steady_clock::now();
        const double enq = std::chrono::duration<double, std::micro>(t1 - t0).count() / launches;
        const double all = std::chrono::duration<double, std::micro>(t2 - t0).count() / launches;
        std::printf("opencl n=%ld guard=%d args set %s: enqueue %.2f us/launch, drained %.2f us/launch\n", n, guard,
                    args_each ? "every launch" : "once", enq, all);
      }
    }
    clReleaseMemObject(x);
    clReleaseMemObject(y);
    clReleaseMemObject(ctrl);
  }
  return 0;
}
