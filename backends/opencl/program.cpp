#include "backends/opencl/program.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <vector>

#include "backends/opencl/embedded_sources.hpp"
#include "core/base/error.hpp"
#include "core/kernels/program_builds.hpp"

namespace poreflow::ocl {
namespace {

bool has_word(const std::string& list, const std::string& word) {
  std::size_t pos = 0;
  while ((pos = list.find(word, pos)) != std::string::npos) {
    bool start = pos == 0 || list[pos - 1] == ' ';
    bool end = pos + word.size() == list.size() || list[pos + word.size()] == ' ';
    if (start && end) return true;
    pos += word.size();
  }
  return false;
}

bool contains_nocase(std::string s, std::string part) {
  auto lower = [](std::string& x) { std::transform(x.begin(), x.end(), x.begin(), [](unsigned char c) { return std::tolower(c); }); };
  lower(s);
  lower(part);
  return s.find(part) != std::string::npos;
}

std::string trim(const std::string& s) {
  auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

// POREFLOW_CL_DUMP=DIR (a developer's tool, tools/device/README.md): each program's source and the
// driver's binary (PTX on NVIDIA, for ptxas -v and a comparison with nvcc's code) go to DIR as
// cl_<hash>.cl and cl_<hash>.bin; DIR/index.txt names what each one is
void dump_program(const cl::Program& prog, const std::string& src, const std::string& what, const std::string& options) {
  const char* dir = std::getenv("POREFLOW_CL_DUMP");
  if (dir == nullptr || *dir == '\0') return;
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw BackendError("POREFLOW_CL_DUMP: cannot create " + std::string(dir) + ": " + ec.message());
  char stem[32];
  std::snprintf(stem, sizeof stem, "cl_%016zx", std::hash<std::string>{}(src + options));
  const fs::path base = fs::path(dir) / stem;
  std::vector<std::vector<unsigned char>> bins;
  PF_CHECK_CL_AS(prog.getInfo(CL_PROGRAM_BINARIES, &bins), "clGetProgramInfo(CL_PROGRAM_BINARIES)");
  std::ofstream(base.string() + ".cl") << src;
  if (!bins.empty()) std::ofstream(base.string() + ".bin", std::ios::binary).write(reinterpret_cast<const char*>(bins[0].data()), static_cast<std::streamsize>(bins[0].size()));
  std::ofstream(fs::path(dir) / "index.txt", std::ios::app) << stem << "  " << what << "  [" << options << "]\n";
  spdlog::info("POREFLOW_CL_DUMP: {} is {}", base.string(), what);
}

}  // namespace

DeviceTraits device_traits(const cl::Device& dev) {
  DeviceTraits t;
  std::string vendor, ext;
  cl_platform_id pid = nullptr;
  PF_CHECK_CL(dev.getInfo(CL_DEVICE_NAME, &t.name));
  PF_CHECK_CL(dev.getInfo(CL_DEVICE_VENDOR, &vendor));
  PF_CHECK_CL(dev.getInfo(CL_DEVICE_EXTENSIONS, &ext));
  PF_CHECK_CL(dev.getInfo(CL_DEVICE_MAX_WORK_GROUP_SIZE, &t.max_group));
  PF_CHECK_CL(dev.getInfo(CL_DEVICE_PLATFORM, &pid));
  std::string platform;
  PF_CHECK_CL(cl::Platform(pid, true).getInfo(CL_PLATFORM_NAME, &platform));
  t.nvidia = contains_nocase(vendor, "nvidia") || contains_nocase(platform, "nvidia");
  t.fp64 = has_word(ext, "cl_khr_fp64");
  t.int64_atomics = has_word(ext, "cl_khr_int64_base_atomics") && has_word(ext, "cl_khr_int64_extended_atomics");
  t.subgroups_khr = has_word(ext, "cl_khr_subgroups");
  t.subgroups = t.subgroups_khr;
  cl_device_fp_config fp32 = 0;
  PF_CHECK_CL(dev.getInfo(CL_DEVICE_SINGLE_FP_CONFIG, &fp32));
  t.fp32_exact_div = (fp32 & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) != 0;
  // OpenCL 3.0 queries; a device of an older version answers with an error, which means "no"
  std::vector<cl_name_version> versions, features;
  if (dev.getInfo(CL_DEVICE_OPENCL_C_ALL_VERSIONS, &versions) == CL_SUCCESS)
    for (const auto& v : versions) t.opencl_c_30 = t.opencl_c_30 || CL_VERSION_MAJOR(v.version) >= 3;
  if (t.opencl_c_30 && dev.getInfo(CL_DEVICE_OPENCL_C_FEATURES, &features) == CL_SUCCESS)
    for (const auto& f : features) t.subgroups = t.subgroups || std::string(f.name) == "__opencl_c_subgroups";
  return t;
}

Programs::Programs(cl::Context ctx, cl::Device dev) : ctx_(std::move(ctx)), dev_(std::move(dev)), traits_(device_traits(dev_)) {}

std::string Programs::prelude(Precision prec, int block) const {
  const bool dbl = prec == Precision::Double;
  std::string s = "#define PF_BLOCK " + std::to_string(block) + "\n";
  if (dbl) s += "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n";
  s += std::string("#define PF_DOUBLE ") + (dbl ? "1" : "0") + "\n";
  s += std::string("typedef ") + (dbl ? "double" : "float") + " pf_real;\n";
  // Kernels of 1D families run with work-groups of exactly PF_BLOCK: the compiler may rely on it
  // (NVIDIA caps kernels without it at 256 work-items, and sizes registers for it).
  s += "#define PF_KERNEL __kernel __attribute__((reqd_work_group_size(PF_BLOCK, 1, 1)))\n";
  if (dbl && traits_.int64_atomics)
    s += "#define PF_HAS_INT64_ATOMICS 1\n"
         "#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable\n"
         "#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable\n";
  if (traits_.nvidia) s += "#define PF_NV_PTX 1\n";
  if (traits_.subgroups) s += "#define PF_HAS_SUBGROUPS 1\n";
  if (traits_.subgroups_khr) s += "#pragma OPENCL EXTENSION cl_khr_subgroups : enable\n";
  return s;
}

namespace {

const cl_src::EmbeddedSource& embedded(const std::string& name, const std::string& needed_by) {
  for (const auto& e : cl_src::all())
    if (e.name == name) return e;
  throw BackendError("OpenCL source " + name + (needed_by.empty() ? "" : " (included by " + needed_by + ")") +
                     " is not embedded in this poreflow");
}

// name after everything it includes, depth first, each once; #line keeps the compiler's messages
// pointing at the real files
void append_closure(const std::string& name, const std::string& needed_by, std::vector<std::string>& done,
                    std::string& out) {
  if (std::find(done.begin(), done.end(), name) != done.end()) return;
  done.push_back(name);
  const auto& e = embedded(name, needed_by);
  for (const auto& dep : e.deps) append_closure(dep, name, done, out);
  out += "#line 1 \"" + e.name + "\"\n" + e.text + "\n";
}

}  // namespace

std::string Programs::source(const std::string& family, Precision prec, int block, const std::string& defines) const {
  std::string s = "/* poreflow OpenCL program: " + family + ", " + std::string(to_string(prec)) + ", block " +
                  std::to_string(block) + " */\n";
  s += prelude(prec, block);
  s += defines;
  std::vector<std::string> done;
  append_closure("kernels_cl/" + family + ".cl", "", done, s);
  return s;
}

cl::Program Programs::build(Precision prec, const std::string& src, const std::string& what) {
  if (prec == Precision::Double && !traits_.fp64)
    throw BackendError(what + ": the device has no double precision (cl_khr_fp64); use float");
  const auto t0 = std::chrono::steady_clock::now();
  cl_int err = CL_SUCCESS;
  cl::Program prog(ctx_, src, false, &err);
  PF_CHECK_CL_AS(err, "clCreateProgramWithSource");
  // OpenCL C 1.2 everywhere (NVIDIA's and PoCL's level); 3.0 only for sub-groups without the
  // extension. Float division rounded as IEEE (and as CUDA by default) where the device can: NVIDIA
  // would otherwise divide to 2 ulp and drift from the other backends.
  std::string options = traits_.subgroups && !traits_.subgroups_khr ? "-cl-std=CL3.0" : "-cl-std=CL1.2";
  if (traits_.fp32_exact_div) options += " -cl-fp32-correctly-rounded-divide-sqrt";
  // POREFLOW_CL_OPTIONS: extra build options for experiments (e.g. NVIDIA's -cl-nv-verbose, whose
  // register counts then show in the build log at -v)
  if (const char* extra = std::getenv("POREFLOW_CL_OPTIONS"); extra != nullptr && *extra != '\0') options += " " + std::string(extra);
  const cl_int build_err = prog.build(std::vector<cl::Device>{dev_}, options.c_str());
  std::string log;
  const cl_int log_err = prog.getBuildInfo(dev_, CL_PROGRAM_BUILD_LOG, &log);
  if (build_err != CL_SUCCESS) {
    std::string msg = what + " failed to build: " + cl_error_name(build_err) + " (" + std::to_string(build_err) + ")";
    msg += log_err == CL_SUCCESS ? "\nbuild log:\n" + log : "\n(no build log: " + std::string(cl_error_name(log_err)) + ")";
    throw BackendError(msg);
  }
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  record_program_build(ms / 1e3);
  spdlog::debug("built {} in {:.0f} ms", what, ms);
  if (log_err == CL_SUCCESS && !trim(log).empty()) spdlog::debug("build log of {}:\n{}", what, log);
  dump_program(prog, src, what, options);
  return prog;
}

const cl::Program& Programs::program(const std::string& family, Precision prec, int block, const std::string& defines) {
  const Key key{family, prec, block, defines};
  auto it = programs_.find(key);
  if (it != programs_.end()) return it->second;
  // the log names the shape (the #defines) of what was built
  std::string shape = defines;
  std::replace(shape.begin(), shape.end(), '\n', ';');
  const std::string what = "OpenCL program " + family + " (" + to_string(prec) + ", block " + std::to_string(block) +
                           (shape.empty() ? "" : ", " + shape) + ") for " + traits_.name;
  return programs_.emplace(key, build(prec, source(family, prec, block, defines), what)).first->second;
}

ClKernel& Programs::kernel(std::string_view family, Precision prec, int block, std::string_view name, std::string_view defines,
                           int instance) {
  auto it = kernels_.find(KernelView{family, prec, block, name, defines, instance});
  if (it != kernels_.end()) return it->second;
  cl_int err = CL_SUCCESS;
  const std::string n(name);
  cl::Kernel k(program(std::string(family), prec, block, std::string(defines)), n.c_str(), &err);
  PF_CHECK_CL_AS(err, "clCreateKernel(" + n + ")");
  cl_uint params = 0;
  PF_CHECK_CL(k.getInfo(CL_KERNEL_NUM_ARGS, &params));
  KernelKey key{std::string(family), prec, block, n, std::string(defines), instance};
  return kernels_.emplace(std::move(key), ClKernel(std::move(k), n, params)).first->second;
}

std::size_t Programs::max_group(const cl::Kernel& k) const {
  std::size_t n = 0;
  PF_CHECK_CL(k.getWorkGroupInfo(dev_, CL_KERNEL_WORK_GROUP_SIZE, &n));
  return n;
}

}  // namespace poreflow::ocl
