// Experiment (GPU machine; not part of the build): what a host round trip costs through NVIDIA's
// OpenCL, beside read_cost_cu.cu for the CUDA runtime. A round trip is K launches of a small kernel
// that writes a control word, then a read of 16 bytes of it that the host waits for, as a Krylov
// batch's check or a Newton iteration's convergence numbers are read. Ways to wait compared:
//   blocking       clEnqueueReadBuffer(CL_TRUE) into pageable memory (what the backend does)
//   pinned         the same into a CL_MEM_ALLOC_HOST_PTR buffer's mapped pointer
//   poll           clEnqueueReadBuffer(CL_FALSE) into pageable memory, clFlush, spin on the event
//   poll pinned    the same into pinned memory
//   wait pinned    non-blocking read into pinned memory, clFlush, clWaitForEvents
//   finish+read    clFinish, then the blocking read
//   map            the word in a CL_MEM_ALLOC_HOST_PTR buffer the kernel writes, a blocking map/unmap
//   g++ -O2 -std=c++17 -I/opt/kit/usr/include -o /tmp/read_cl tools/device/experiments/read_cost_cl.cpp \
//     -L/opt/kit/usr/lib/x86_64-linux-gnu -lOpenCL && /tmp/read_cl NVIDIA
#include <chrono>
#include <functional>

#include "experiment_cl.hpp"

static const char* kSource = R"(
__kernel void touch(__global ulong* ctrl, __global double* y, long n) {
  const long i = get_global_id(0);
  if (i < n) y[i] = y[i] * 0.5 + 1.0;
  if (i == 0) { ctrl[0] += 1; ctrl[1] = (ulong)n; }
}
)";

int main(int argc, char** argv) {
  const std::string want = argc > 1 ? argv[1] : "NVIDIA";
  const ClExperiment e = open_cl(want, kSource);
  cl_context ctx = e.ctx;
  cl_command_queue q = e.q;
  cl_int err;
  cl_kernel k = make_kernel(e, "touch");
  const long n = 72000;
  const size_t block = 256, global = (n + block - 1) / block * block;
  cl_mem y = clCreateBuffer(ctx, CL_MEM_READ_WRITE, n * sizeof(double), nullptr, &err);
  CK(err);
  cl_mem ctrl = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 16, nullptr, &err);
  CK(err);
  cl_mem hostctrl = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, 16, nullptr, &err);
  CK(err);
  cl_mem pinbuf = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, 4096, nullptr, &err);
  CK(err);
  auto* pinned = static_cast<cl_ulong*>(clEnqueueMapBuffer(q, pinbuf, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, 4096, 0,
                                                          nullptr, nullptr, &err));
  CK(err);
  const double zero = 0;
  const cl_ulong z2[2] = {0, 0};
  CK(clEnqueueFillBuffer(q, y, &zero, sizeof zero, 0, n * sizeof(double), 0, nullptr, nullptr));
  CK(clEnqueueWriteBuffer(q, ctrl, CL_TRUE, 0, 16, z2, 0, nullptr, nullptr));
  CK(clEnqueueWriteBuffer(q, hostctrl, CL_TRUE, 0, 16, z2, 0, nullptr, nullptr));
  const cl_long ln = n;
  auto set = [&](cl_mem c) {
    CK(clSetKernelArg(k, 0, sizeof(cl_mem), &c));
    CK(clSetKernelArg(k, 1, sizeof(cl_mem), &y));
    CK(clSetKernelArg(k, 2, sizeof ln, &ln));
  };
  std::vector<cl_ulong> pageable(2);
  auto spin = [&](cl_event e) {
    cl_int st = CL_QUEUED;
    do CK(clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, nullptr));
    while (st > CL_COMPLETE);
    if (st < 0) std::exit(2);
    CK(clReleaseEvent(e));
  };
  struct Way {
    const char* name;
    bool host_word;
    std::function<cl_ulong()> read;
  };
  std::vector<Way> ways = {
      {"blocking", false, [&] { CK(clEnqueueReadBuffer(q, ctrl, CL_TRUE, 0, 16, pageable.data(), 0, nullptr, nullptr)); return pageable[0]; }},
      {"pinned", false, [&] { CK(clEnqueueReadBuffer(q, ctrl, CL_TRUE, 0, 16, pinned, 0, nullptr, nullptr)); return pinned[0]; }},
      {"poll", false, [&] { cl_event e; CK(clEnqueueReadBuffer(q, ctrl, CL_FALSE, 0, 16, pageable.data(), 0, nullptr, &e)); CK(clFlush(q)); spin(e); return pageable[0]; }},
      {"poll pinned", false, [&] { cl_event e; CK(clEnqueueReadBuffer(q, ctrl, CL_FALSE, 0, 16, pinned, 0, nullptr, &e)); CK(clFlush(q)); spin(e); return pinned[0]; }},
      {"wait pinned", false, [&] { cl_event e; CK(clEnqueueReadBuffer(q, ctrl, CL_FALSE, 0, 16, pinned, 0, nullptr, &e)); CK(clFlush(q)); CK(clWaitForEvents(1, &e)); CK(clReleaseEvent(e)); return pinned[0]; }},
      {"finish+read", false, [&] { CK(clFinish(q)); CK(clEnqueueReadBuffer(q, ctrl, CL_TRUE, 0, 16, pageable.data(), 0, nullptr, nullptr)); return pageable[0]; }},
      {"map", true, [&] {
         auto* p = static_cast<cl_ulong*>(clEnqueueMapBuffer(q, hostctrl, CL_TRUE, CL_MAP_READ, 0, 16, 0, nullptr, nullptr, &err));
         CK(err);
         const cl_ulong v = p[0];
         CK(clEnqueueUnmapMemObject(q, hostctrl, p, 0, nullptr, nullptr));
         return v;
       }},
  };
  const int trips = 3000;
  for (int K : {1, 10, 50}) {
    for (int pass = 0; pass < 2; ++pass) {
      for (auto& w : ways) {
        set(w.host_word ? hostctrl : ctrl);
        cl_ulong before = w.read();
        const auto t0 = std::chrono::steady_clock::now();
        for (int t = 0; t < trips; ++t) {
          for (int i = 0; i < K; ++i) CK(clEnqueueNDRangeKernel(q, k, 1, nullptr, &global, &block, 0, nullptr, nullptr));
          const cl_ulong v = w.read();
          if (v != before + K) {
            std::printf("%s: read %llu, expected %llu\n", w.name, (unsigned long long)v, (unsigned long long)(before + K));
            return 3;
          }
          before = v;
        }
        const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / trips;
        std::printf("opencl K=%d pass %d %-12s %8.2f us a round trip (%6.2f us a launch incl. the read)\n", K, pass, w.name,
                    us, us / K);
      }
    }
  }
  return 0;
}
