#pragma once
// What the standalone OpenCL experiments of this folder share (not part of the build; the twin of
// experiment.cuh): a checked call, and the device of the first platform whose name contains a
// given text with its context, an in-order queue and a program built from source (the build log
// printed on failure).
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define CK(x)                                                       \
  do {                                                              \
    cl_int e_ = (x);                                                \
    if (e_ != CL_SUCCESS) {                                         \
      std::printf("%s:%d error %d\n", __FILE__, __LINE__, (int)e_); \
      std::exit(1);                                                 \
    }                                                               \
  } while (0)

struct ClExperiment {
  cl_device_id dev = nullptr;
  cl_context ctx = nullptr;
  cl_command_queue q = nullptr;
  cl_program prog = nullptr;
};

// exits with 1 when no platform's name contains `platform` or the program does not build
inline ClExperiment open_cl(const std::string& platform, const char* source, bool profiling = false) {
  cl_uint np = 0;
  CK(clGetPlatformIDs(0, nullptr, &np));
  std::vector<cl_platform_id> ps(np);
  CK(clGetPlatformIDs(np, ps.data(), nullptr));
  cl_platform_id plat = nullptr;
  for (auto p : ps) {
    char name[256] = {};
    CK(clGetPlatformInfo(p, CL_PLATFORM_NAME, sizeof name, name, nullptr));
    if (std::strstr(name, platform.c_str())) plat = p;
  }
  if (!plat) {
    std::printf("no platform named %s\n", platform.c_str());
    std::exit(1);
  }
  ClExperiment e;
  CK(clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &e.dev, nullptr));
  cl_int err;
  e.ctx = clCreateContext(nullptr, 1, &e.dev, nullptr, nullptr, &err);
  CK(err);
  const cl_queue_properties props[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
  e.q = clCreateCommandQueueWithProperties(e.ctx, e.dev, profiling ? props : nullptr, &err);
  CK(err);
  e.prog = clCreateProgramWithSource(e.ctx, 1, &source, nullptr, &err);
  CK(err);
  if (clBuildProgram(e.prog, 1, &e.dev, "", nullptr, nullptr) != CL_SUCCESS) {
    char log[16384] = {};
    clGetProgramBuildInfo(e.prog, e.dev, CL_PROGRAM_BUILD_LOG, sizeof log, log, nullptr);
    std::printf("build failed:\n%s\n", log);
    std::exit(1);
  }
  return e;
}

inline cl_kernel make_kernel(const ClExperiment& e, const char* name) {
  cl_int err;
  cl_kernel k = clCreateKernel(e.prog, name, &err);
  CK(err);
  return k;
}

// The arguments of the guarded 15-parameter axpby the launch experiments time (the shape of
// poreflow's vec kernels): ctrl, n, a, x, b, y, four longs, three ints, two doubles; the longs and
// ints take `fill`. A kernel with more parameters gets longs of `fill` past the 15th.
inline void set_axpby_args(cl_kernel k, cl_mem ctrl, long n, cl_mem x, cl_mem y, int params = 15, long fill = 0) {
  const cl_long ln = n, l = fill;
  const cl_double a = 0.5, b = 0.25, c = 0;
  const cl_int i0 = static_cast<cl_int>(fill);
  CK(clSetKernelArg(k, 0, sizeof(cl_mem), &ctrl));
  CK(clSetKernelArg(k, 1, sizeof ln, &ln));
  CK(clSetKernelArg(k, 2, sizeof a, &a));
  CK(clSetKernelArg(k, 3, sizeof(cl_mem), &x));
  CK(clSetKernelArg(k, 4, sizeof b, &b));
  CK(clSetKernelArg(k, 5, sizeof(cl_mem), &y));
  for (int i = 6; i < 10; ++i) CK(clSetKernelArg(k, i, sizeof l, &l));
  for (int i = 10; i < 13; ++i) CK(clSetKernelArg(k, i, sizeof i0, &i0));
  for (int i = 13; i < 15; ++i) CK(clSetKernelArg(k, i, sizeof c, &c));
  for (int i = 15; i < params; ++i) CK(clSetKernelArg(k, i, sizeof l, &l));
}
