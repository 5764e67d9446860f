// Experiment (GPU machine; not part of the build): does the host's enqueue of a small kernel on
// NVIDIA's OpenCL cost more with more parameters? Kernels of 1, 4, 8, 15 and 24 parameters, and the
// 15-parameter axpby with its 12 scalars packed into one struct passed by value (4 parameters);
// every launch returns at once (its guard is set), so the device's part is the launch alone.
// 20 000 launches each on an in-order queue without profiling: the host's enqueue loop and the time
// until the queue is drained, a launch; with the arguments set once, and set before every launch.
//   g++ -O2 -std=c++17 -I/opt/kit/usr/include -o /tmp/launch_args_cl tools/device/experiments/launch_args_cl.cpp \
//     -L/opt/kit/usr/lib/x86_64-linux-gnu -lOpenCL && /tmp/launch_args_cl NVIDIA
#include <chrono>
#include <cstdint>

#include "experiment_cl.hpp"

static const char* kSource = R"(
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef struct { long n, p0, p1, p2, p3, q0, q1, q2; double a, b, c0, c1; } Scalars;
__kernel void k1(__global const ulong* ctrl) { if (ctrl[0]) return; }
__kernel void k4(__global const ulong* ctrl, long n, __global const double* x, __global double* y) {
  if (ctrl[0]) return;
  const long i = get_global_id(0);
  if (i < n) y[i] += x[i];
}
__kernel void k8(__global const ulong* ctrl, long n, double a, __global const double* x, double b, __global double* y,
                 long p0, long p1) {
  if (ctrl[0]) return;
  const long i = get_global_id(0);
  if (i < n) y[i] = a * x[i] + b * y[i] + (p0 + p1);
}
__kernel void k15(__global const ulong* ctrl, long n, double a, __global const double* x, double b, __global double* y,
                  long p0, long p1, long p2, long p3, int q0, int q1, int q2, double c0, double c1) {
  if (ctrl[0]) return;
  const long i = get_global_id(0);
  if (i < n) y[i] = a * x[i] + b * y[i] + (p0 + p1 + p2 + p3 + q0 + q1 + q2) * c0 * c1;
}
__kernel void k24(__global const ulong* ctrl, long n, double a, __global const double* x, double b, __global double* y,
                  long p0, long p1, long p2, long p3, int q0, int q1, int q2, double c0, double c1,
                  long r0, long r1, long r2, long r3, long r4, long r5, long r6, long r7, long r8) {
  if (ctrl[0]) return;
  const long i = get_global_id(0);
  if (i < n) y[i] = a * x[i] + b * y[i] + (p0 + p1 + p2 + p3 + q0 + q1 + q2 + r0 + r1 + r2 + r3 + r4 + r5 + r6 + r7 + r8) * c0 * c1;
}
__kernel void kstruct(__global const ulong* ctrl, __global const double* x, __global double* y, Scalars s) {
  if (ctrl[0]) return;
  const long i = get_global_id(0);
  if (i < s.n) y[i] = s.a * x[i] + s.b * y[i] + (s.p0 + s.p1 + s.p2 + s.p3 + s.q0 + s.q1 + s.q2) * s.c0 * s.c1;
}
)";

struct Scalars {
  cl_long n, p0, p1, p2, p3, q0, q1, q2;
  cl_double a, b, c0, c1;
};

int main(int argc, char** argv) {
  const std::string want = argc > 1 ? argv[1] : "NVIDIA";
  const ClExperiment e = open_cl(want, kSource);
  cl_int err;
  const long n = 72000;
  cl_mem x = clCreateBuffer(e.ctx, CL_MEM_READ_WRITE, n * sizeof(double), nullptr, &err);
  CK(err);
  cl_mem y = clCreateBuffer(e.ctx, CL_MEM_READ_WRITE, n * sizeof(double), nullptr, &err);
  CK(err);
  cl_mem ctrl = clCreateBuffer(e.ctx, CL_MEM_READ_WRITE, 8, nullptr, &err);
  CK(err);
  const cl_ulong guard = 1;
  CK(clEnqueueWriteBuffer(e.q, ctrl, CL_TRUE, 0, 8, &guard, 0, nullptr, nullptr));
  const cl_long ln = n;
  Scalars s{n, 1, 1, 1, 1, 1, 1, 1, 0.5, 0.25, 0, 0};
  // sets every argument of k by its parameter count (the same values each time)
  auto set_all = [&](cl_kernel k, int params) {
    CK(clSetKernelArg(k, 0, sizeof(cl_mem), &ctrl));
    if (params == 1) return;
    if (params == -4) {  // kstruct
      CK(clSetKernelArg(k, 1, sizeof(cl_mem), &x));
      CK(clSetKernelArg(k, 2, sizeof(cl_mem), &y));
      CK(clSetKernelArg(k, 3, sizeof s, &s));
      return;
    }
    if (params == 4) {
      CK(clSetKernelArg(k, 1, sizeof ln, &ln));
      CK(clSetKernelArg(k, 2, sizeof(cl_mem), &x));
      CK(clSetKernelArg(k, 3, sizeof(cl_mem), &y));
      return;
    }
    if (params == 8) {  // the axpby's first eight
      const cl_double a = 0.5, b = 0.25;
      const cl_long l = 1;
      CK(clSetKernelArg(k, 1, sizeof ln, &ln));
      CK(clSetKernelArg(k, 2, sizeof a, &a));
      CK(clSetKernelArg(k, 3, sizeof(cl_mem), &x));
      CK(clSetKernelArg(k, 4, sizeof b, &b));
      CK(clSetKernelArg(k, 5, sizeof(cl_mem), &y));
      CK(clSetKernelArg(k, 6, sizeof l, &l));
      CK(clSetKernelArg(k, 7, sizeof l, &l));
      return;
    }
    set_axpby_args(k, ctrl, n, x, y, params, 1);  // k15, k24
  };
  struct K {
    const char* name;
    int params;  // -4: the struct
  };
  const K kernels[] = {{"k1", 1}, {"k4", 4}, {"k8", 8}, {"k15", 15}, {"k24", 24}, {"kstruct", -4}};
  const size_t block = 256, global = (n + block - 1) / block * block;
  const int launches = 20000;
  for (int pass = 0; pass < 2; ++pass)
    for (const K& k : kernels) {
      cl_kernel kk = make_kernel(e, k.name);
      for (int each : {0, 1}) {
        set_all(kk, k.params);
        CK(clFinish(e.q));
        const auto t0 = std::chrono::steady_clock::now();
        for (int r = 0; r < launches; ++r) {
          if (each) set_all(kk, k.params);
          CK(clEnqueueNDRangeKernel(e.q, kk, 1, nullptr, &global, &block, 0, nullptr, nullptr));
        }
        const auto t1 = std::chrono::steady_clock::now();
        CK(clFinish(e.q));
        const auto t2 = std::chrono::steady_clock::now();
        const double enq = std::chrono::duration<double, std::micro>(t1 - t0).count() / launches;
        const double drained = std::chrono::duration<double, std::micro>(t2 - t0).count() / launches;
        std::printf("pass %d %-8s %2d parameters%s, arguments %s: enqueue %.2f us, drained %.2f us a launch\n", pass, k.name,
                    k.params < 0 ? 4 : k.params, k.params < 0 ? " (12 scalars in a struct)" : "",
                    each ? "set each launch" : "set once", enq, drained);
      }
      CK(clReleaseKernel(kk));
    }
  return 0;
}
