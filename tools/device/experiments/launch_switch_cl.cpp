// Experiment (GPU machine; not part of the build): does NVIDIA's OpenCL enqueue cost more when the
// launches switch between kernels, as a solver's do (some 15 kernels in turn), than when one
// kernel repeats? 16 kernels of the same body and parameters (a guard, 4 buffers, 8 longs), every
// launch guarded (it returns at once, so the device's part is the launch alone), the arguments
// set before every launch. 20 000 launches, taking 1, 4 or 16 kernels in turn.
//   g++ -O2 -std=c++17 -I/opt/kit/usr/include -o /tmp/launch_switch_cl tools/device/experiments/launch_switch_cl.cpp \
//     -L/opt/kit/usr/lib/x86_64-linux-gnu -lOpenCL && /tmp/launch_switch_cl NVIDIA
#include <chrono>
#include <string>

#include "experiment_cl.hpp"

static std::string source() {
  std::string s = "#define G __global double*\n";
  for (int k = 0; k < 16; ++k)
    s += "__kernel void k" + std::to_string(k) +
         "(__global const ulong* ctrl, G a, G b, G c, G d, long p1, long p2, long p3, long p4, long p5, long p6, long p7, "
         "long n) {\n  if (ctrl[0]) return;\n  const long i = get_global_id(0);\n  if (i < n) a[i] += " +
         std::to_string(k) + " * b[i] + c[i] * d[i] + p1 + p2 + p3 + p4 + p5 + p6 + p7;\n}\n";
  return s;
}

int main(int argc, char** argv) {
  const std::string want = argc > 1 ? argv[1] : "NVIDIA";
  const std::string src = source();
  const ClExperiment e = open_cl(want, src.c_str());
  cl_int err;
  const long n = 6000;
  cl_mem bufs[4];
  for (auto& b : bufs) {
    b = clCreateBuffer(e.ctx, CL_MEM_READ_WRITE, n * sizeof(double), nullptr, &err);
    CK(err);
  }
  cl_mem ctrl = clCreateBuffer(e.ctx, CL_MEM_READ_WRITE, 8, nullptr, &err);
  CK(err);
  const cl_ulong guard = 1;
  CK(clEnqueueWriteBuffer(e.q, ctrl, CL_TRUE, 0, 8, &guard, 0, nullptr, nullptr));
  std::vector<cl_kernel> ks;
  for (int k = 0; k < 16; ++k) ks.push_back(make_kernel(e, ("k" + std::to_string(k)).c_str()));
  const size_t block = 256, global = (n + block - 1) / block * block;
  const int launches = 20000;
  auto set = [&](cl_kernel k) {
    CK(clSetKernelArg(k, 0, sizeof(cl_mem), &ctrl));
    for (int b = 0; b < 4; ++b) CK(clSetKernelArg(k, 1 + b, sizeof(cl_mem), &bufs[b]));
    const cl_long one = 1, ln = n;
    for (int p = 5; p < 12; ++p) CK(clSetKernelArg(k, p, sizeof one, &one));
    CK(clSetKernelArg(k, 12, sizeof ln, &ln));
  };
  for (auto k : ks) {  // every kernel launched once before timing
    set(k);
    CK(clEnqueueNDRangeKernel(e.q, k, 1, nullptr, &global, &block, 0, nullptr, nullptr));
  }
  CK(clFinish(e.q));
  for (int pass = 0; pass < 2; ++pass)
    for (int turn : {1, 4, 16}) {
      const auto t0 = std::chrono::steady_clock::now();
      for (int r = 0; r < launches; ++r) {
        cl_kernel k = ks[r % turn];
        set(k);
        CK(clEnqueueNDRangeKernel(e.q, k, 1, nullptr, &global, &block, 0, nullptr, nullptr));
      }
      const auto t1 = std::chrono::steady_clock::now();
      CK(clFinish(e.q));
      const auto t2 = std::chrono::steady_clock::now();
      std::printf("pass %d, %2d kernels in turn: enqueue %.2f us, drained %.2f us a launch\n", pass, turn,
                  std::chrono::duration<double, std::micro>(t1 - t0).count() / launches,
                  std::chrono::duration<double, std::micro>(t2 - t0).count() / launches);
    }
  return 0;
}
