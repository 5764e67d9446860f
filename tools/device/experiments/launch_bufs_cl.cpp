// Experiment (GPU machine; not part of the build): does NVIDIA's OpenCL enqueue cost more with more
// buffer parameters, and with buffers that change between launches? Kernels of 10 parameters after
// the guard: 1, 4 or 8 buffers and longs for the rest (kb1, kb4, kb8), every launch guarded (it
// returns at once), so the device's part is the launch alone. 20 000 launches each on an in-order
// queue without profiling, the arguments set before every launch: the same buffers each time, or
// the buffers taken in turn from 16 sets (48 KB each, as a solver's vectors of a small deck).
//   g++ -O2 -std=c++17 -I/opt/kit/usr/include -o /tmp/launch_bufs_cl tools/device/experiments/launch_bufs_cl.cpp \
//     -L/opt/kit/usr/lib/x86_64-linux-gnu -lOpenCL && /tmp/launch_bufs_cl NVIDIA
#include <chrono>
#include <cstdint>

#include "experiment_cl.hpp"

static const char* kSource = R"(
#define G __global double*
__kernel void kb1(__global const ulong* ctrl, G a, long p1, long p2, long p3, long p4, long p5, long p6, long p7, long p8, long n) {
  if (ctrl[0]) return;
  const long i = get_global_id(0);
  if (i < n) a[i] += p1 + p2 + p3 + p4 + p5 + p6 + p7 + p8;
}
__kernel void kb4(__global const ulong* ctrl, G a, G b, G c, G d, long p4, long p5, long p6, long p7, long p8, long n) {
  if (ctrl[0]) return;
  const long i = get_global_id(0);
  if (i < n) a[i] += b[i] + c[i] + d[i] + p4 + p5 + p6 + p7 + p8;
}
__kernel void kb8(__global const ulong* ctrl, G a, G b, G c, G d, G e, G f, G g, G h, long p8, long n) {
  if (ctrl[0]) return;
  const long i = get_global_id(0);
  if (i < n) a[i] += b[i] + c[i] + d[i] + e[i] + f[i] + g[i] + h[i] + p8;
}
)";

int main(int argc, char** argv) {
  const std::string want = argc > 1 ? argv[1] : "NVIDIA";
  const ClExperiment e = open_cl(want, kSource);
  cl_int err;
  const long n = 6000;
  const int sets = 16;
  std::vector<cl_mem> bufs(8 * sets);
  for (auto& b : bufs) {
    b = clCreateBuffer(e.ctx, CL_MEM_READ_WRITE, n * sizeof(double), nullptr, &err);
    CK(err);
  }
  cl_mem ctrl = clCreateBuffer(e.ctx, CL_MEM_READ_WRITE, 8, nullptr, &err);
  CK(err);
  const cl_ulong guard = 1;
  CK(clEnqueueWriteBuffer(e.q, ctrl, CL_TRUE, 0, 8, &guard, 0, nullptr, nullptr));
  struct K {
    const char* name;
    int buffers;
  };
  const K kernels[] = {{"kb1", 1}, {"kb4", 4}, {"kb8", 8}};
  const size_t block = 256, global = (n + block - 1) / block * block;
  const int launches = 20000;
  for (int pass = 0; pass < 2; ++pass)
    for (const K& k : kernels) {
      cl_kernel kk = make_kernel(e, k.name);
      for (int rotate : {0, 1}) {
        auto set = [&](int r) {
          const int s = rotate ? r % sets : 0;
          CK(clSetKernelArg(kk, 0, sizeof(cl_mem), &ctrl));
          for (int b = 0; b < k.buffers; ++b) CK(clSetKernelArg(kk, 1 + b, sizeof(cl_mem), &bufs[8 * s + b]));
          const cl_long one = 1, ln = n;
          for (int p = 1 + k.buffers; p < 10; ++p) CK(clSetKernelArg(kk, p, sizeof one, &one));
          CK(clSetKernelArg(kk, 10, sizeof ln, &ln));
        };
        set(0);
        CK(clFinish(e.q));
        const auto t0 = std::chrono::steady_clock::now();
        for (int r = 0; r < launches; ++r) {
          set(r);
          CK(clEnqueueNDRangeKernel(e.q, kk, 1, nullptr, &global, &block, 0, nullptr, nullptr));
        }
        const auto t1 = std::chrono::steady_clock::now();
        CK(clFinish(e.q));
        const auto t2 = std::chrono::steady_clock::now();
        const double enq = std::chrono::duration<double, std::micro>(t1 - t0).count() / launches;
        const double drained = std::chrono::duration<double, std::micro>(t2 - t0).count() / launches;
        std::printf("pass %d %-4s %d buffers, %s: enqueue %.2f us, drained %.2f us a launch\n", pass, k.name, k.buffers,
                    rotate ? "16 sets in turn" : "the same set", enq, drained);
      }
      CK(clReleaseKernel(kk));
    }
  return 0;
}
