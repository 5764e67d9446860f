// Experiment (GPU machine; not part of the build): can a launch of NVIDIA's OpenCL be enqueued
// faster if its buffers are not cl_mem objects? A guarded kernel (it returns at once, so the
// device's part is the launch alone) of a guard, 8 vectors and 2 longs, passed five ways:
//   mem      the guard and 8 vectors as cl_mem (what poreflow does now);
//   svm      the same as coarse-grained SVM pointers (clSetKernelArgSVMPointer), if the device has them;
//   arena    one cl_mem holding every vector, and 9 ulong offsets (the guard's and 8 vectors');
//   astruct  one cl_mem and a struct of the 9 offsets and the 2 longs;
//   sstruct  one struct of 9 SVM addresses and the 2 longs (the pointers declared once with
//            clSetKernelExecInfo), if the device has SVM.
// 20 000 launches each, the arguments set before every launch from one of 16 sets in turn (48 KB
// vectors, as a small deck's). Also prints the device's SVM capabilities and OpenCL version.
//   g++ -O2 -std=c++17 -I/opt/kit/usr/include -o /tmp/launch_svm_cl tools/device/experiments/launch_svm_cl.cpp \
//     -L/opt/kit/usr/lib/x86_64-linux-gnu -lOpenCL && /tmp/launch_svm_cl NVIDIA
#include <chrono>
#include <cstdint>

#include "experiment_cl.hpp"

static const char* kSource = R"(
#define G __global double*
__kernel void k_mem(__global const ulong* ctrl, G a, G b, G c, G d, G e, G f, G g, G h, long p, long n) {
  if (ctrl[0]) return;
  const long i = get_global_id(0);
  if (i < n) a[i] += b[i] + c[i] + d[i] + e[i] + f[i] + g[i] + h[i] + p;
}
__kernel void k_arena(__global char* base, ulong oc, ulong oa, ulong ob, ulong oc2, ulong od, ulong oe, ulong of,
                      ulong og, ulong oh, long p, long n) {
  if (((__global const ulong*)(base + oc))[0]) return;
  const long i = get_global_id(0);
  G a = (G)(base + oa);
  if (i < n) a[i] += ((G)(base + ob))[i] + ((G)(base + oc2))[i] + ((G)(base + od))[i] + ((G)(base + oe))[i] +
                     ((G)(base + of))[i] + ((G)(base + og))[i] + ((G)(base + oh))[i] + p;
}
typedef struct { ulong o[9]; long p, n; } Args;
__kernel void k_astruct(__global char* base, Args s) {
  if (((__global const ulong*)(base + s.o[0]))[0]) return;
  const long i = get_global_id(0);
  G a = (G)(base + s.o[1]);
  double t = 0;
  for (int k = 2; k < 9; ++k) t += i < s.n ? ((G)(base + s.o[k]))[i] : 0;
  if (i < s.n) a[i] += t + s.p;
}
__kernel void k_sstruct(Args s) {
  if (((__global const ulong*)s.o[0])[0]) return;
  const long i = get_global_id(0);
  G a = (G)s.o[1];
  double t = 0;
  for (int k = 2; k < 9; ++k) t += i < s.n ? ((G)s.o[k])[i] : 0;
  if (i < s.n) a[i] += t + s.p;
}
)";

struct Args {
  cl_ulong o[9];
  cl_long p, n;
};

int main(int argc, char** argv) {
  const std::string want = argc > 1 ? argv[1] : "NVIDIA";
  const ClExperiment e = open_cl(want, kSource);
  char version[256] = {};
  CK(clGetDeviceInfo(e.dev, CL_DEVICE_VERSION, sizeof version, version, nullptr));
  cl_device_svm_capabilities caps = 0;
  const bool svm = clGetDeviceInfo(e.dev, CL_DEVICE_SVM_CAPABILITIES, sizeof caps, &caps, nullptr) == CL_SUCCESS &&
                   (caps & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER);
  std::printf("device version: %s; SVM capabilities 0x%llx (coarse-grained buffers: %s)\n", version,
              static_cast<unsigned long long>(caps), svm ? "yes" : "no");
  cl_int err;
  const long n = 6000;
  const size_t vbytes = n * sizeof(double);
  const int sets = 16;
  // per set: a guard and 8 vectors
  std::vector<cl_mem> mems(9 * sets);
  for (int s = 0; s < sets; ++s)
    for (int v = 0; v < 9; ++v) {
      mems[9 * s + v] = clCreateBuffer(e.ctx, CL_MEM_READ_WRITE, v ? vbytes : 8, nullptr, &err);
      CK(err);
    }
  const size_t slot = (vbytes + 255) / 256 * 256;
  cl_mem arena = clCreateBuffer(e.ctx, CL_MEM_READ_WRITE, slot * 9 * sets, nullptr, &err);
  CK(err);
  std::vector<void*> svms;
  if (svm)
    for (int i = 0; i < 9 * sets; ++i) {
      void* p = clSVMAlloc(e.ctx, CL_MEM_READ_WRITE, i % 9 ? vbytes : 8, 0);
      if (!p) {
        std::printf("clSVMAlloc failed\n");
        return 1;
      }
      svms.push_back(p);
    }
  const cl_ulong guard = 1;
  for (int s = 0; s < sets; ++s) {
    CK(clEnqueueWriteBuffer(e.q, mems[9 * s], CL_TRUE, 0, 8, &guard, 0, nullptr, nullptr));
    CK(clEnqueueWriteBuffer(e.q, arena, CL_TRUE, slot * 9 * s, 8, &guard, 0, nullptr, nullptr));
    if (svm) CK(clEnqueueSVMMemcpy(e.q, CL_TRUE, svms[9 * s], &guard, 8, 0, nullptr, nullptr));
  }
  const size_t block = 256, global = (n + block - 1) / block * block;
  const int launches = 20000;
  const cl_long p = 1, ln = n;
  struct Variant {
    const char* name;
    const char* kernel;
    bool needs_svm;
  };
  const Variant variants[] = {{"mem", "k_mem", false},
                              {"svm", "k_mem", true},
                              {"arena", "k_arena", false},
                              {"astruct", "k_astruct", false},
                              {"sstruct", "k_sstruct", true}};
  for (int pass = 0; pass < 2; ++pass)
    for (const Variant& v : variants) {
      if (v.needs_svm && !svm) {
        std::printf("pass %d %-8s skipped: no coarse-grained SVM\n", pass, v.name);
        continue;
      }
      cl_kernel k = make_kernel(e, v.kernel);
      if (std::string(v.name) == "sstruct")
        CK(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_PTRS, svms.size() * sizeof(void*), svms.data()));
      auto set = [&](int r) {
        const int s = r % sets;
        const std::string name = v.name;
        if (name == "mem") {
          for (int a = 0; a < 9; ++a) CK(clSetKernelArg(k, a, sizeof(cl_mem), &mems[9 * s + a]));
          CK(clSetKernelArg(k, 9, sizeof p, &p));
          CK(clSetKernelArg(k, 10, sizeof ln, &ln));
        } else if (name == "svm") {
          for (int a = 0; a < 9; ++a) CK(clSetKernelArgSVMPointer(k, a, svms[9 * s + a]));
          CK(clSetKernelArg(k, 9, sizeof p, &p));
          CK(clSetKernelArg(k, 10, sizeof ln, &ln));
        } else if (name == "arena") {
          CK(clSetKernelArg(k, 0, sizeof(cl_mem), &arena));
          for (int a = 0; a < 9; ++a) {
            const cl_ulong off = slot * (9 * s + a);
            CK(clSetKernelArg(k, 1 + a, sizeof off, &off));
          }
          CK(clSetKernelArg(k, 10, sizeof p, &p));
          CK(clSetKernelArg(k, 11, sizeof ln, &ln));
        } else if (name == "astruct") {
          Args args{};
          for (int a = 0; a < 9; ++a) args.o[a] = slot * (9 * s + a);
          args.p = p;
          args.n = ln;
          CK(clSetKernelArg(k, 0, sizeof(cl_mem), &arena));
          CK(clSetKernelArg(k, 1, sizeof args, &args));
        } else {
          Args args{};
          for (int a = 0; a < 9; ++a) args.o[a] = reinterpret_cast<std::uintptr_t>(svms[9 * s + a]);
          args.p = p;
          args.n = ln;
          CK(clSetKernelArg(k, 0, sizeof args, &args));
        }
      };
      set(0);
      CK(clEnqueueNDRangeKernel(e.q, k, 1, nullptr, &global, &block, 0, nullptr, nullptr));
      CK(clFinish(e.q));
      const auto t0 = std::chrono::steady_clock::now();
      for (int r = 0; r < launches; ++r) {
        set(r);
        CK(clEnqueueNDRangeKernel(e.q, k, 1, nullptr, &global, &block, 0, nullptr, nullptr));
      }
      const auto t1 = std::chrono::steady_clock::now();
      CK(clFinish(e.q));
      const auto t2 = std::chrono::steady_clock::now();
      const double enq = std::chrono::duration<double, std::micro>(t1 - t0).count() / launches;
      const double drained = std::chrono::duration<double, std::micro>(t2 - t0).count() / launches;
      std::printf("pass %d %-8s enqueue %.2f us, drained %.2f us a launch\n", pass, v.name, enq, drained);
      CK(clReleaseKernel(k));
    }
  // the guard held: no kernel wrote (a vector's first value is still as written, checked on set 0)
  return 0;
}
