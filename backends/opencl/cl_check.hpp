#pragma once
// Error checking for OpenCL calls. The C++ bindings run without exceptions, so every cl_int that
// comes back goes through one of these:
//   PF_CHECK_CL(queue.finish());              calls that return cl_int
//   PF_CHECK_CL_AS(err, "clCreateBuffer");    calls that report through a cl_int* argument
// Both throw BackendError "clFinish(...) failed: CL_OUT_OF_RESOURCES (-5) (at file:line)".
// Include the bindings through this header. Debian 12's opencl.hpp (v2023.02.06) does not compile
// with TARGET 300 and MINIMUM 120: its CommandQueue constructors call a detail function that it
// only defines for MINIMUM < 120. With MINIMUM 200 the constructors use
// clCreateCommandQueueWithProperties, which every OpenCL 2.0+ platform has (NVIDIA's 3.0, PoCL).
#if defined(CL_HPP_MINIMUM_OPENCL_VERSION) && CL_HPP_MINIMUM_OPENCL_VERSION >= 120 && CL_HPP_MINIMUM_OPENCL_VERSION < 200 && \
    CL_HPP_TARGET_OPENCL_VERSION >= 200
#undef CL_HPP_MINIMUM_OPENCL_VERSION
#define CL_HPP_MINIMUM_OPENCL_VERSION 200
#endif
#include <CL/opencl.hpp>

#include <cctype>
#include <string>
#include <string_view>

#include "core/base/error.hpp"

namespace poreflow {

inline const char* cl_error_name(cl_int code) {
  switch (code) {
#define PF_CL_ERR(name) \
  case name:            \
    return #name;
    PF_CL_ERR(CL_SUCCESS)
    PF_CL_ERR(CL_DEVICE_NOT_FOUND)
    PF_CL_ERR(CL_DEVICE_NOT_AVAILABLE)
    PF_CL_ERR(CL_COMPILER_NOT_AVAILABLE)
    PF_CL_ERR(CL_MEM_OBJECT_ALLOCATION_FAILURE)
    PF_CL_ERR(CL_OUT_OF_RESOURCES)
    PF_CL_ERR(CL_OUT_OF_HOST_MEMORY)
    PF_CL_ERR(CL_PROFILING_INFO_NOT_AVAILABLE)
    PF_CL_ERR(CL_MEM_COPY_OVERLAP)
    PF_CL_ERR(CL_IMAGE_FORMAT_MISMATCH)
    PF_CL_ERR(CL_IMAGE_FORMAT_NOT_SUPPORTED)
    PF_CL_ERR(CL_BUILD_PROGRAM_FAILURE)
    PF_CL_ERR(CL_MAP_FAILURE)
    PF_CL_ERR(CL_MISALIGNED_SUB_BUFFER_OFFSET)
    PF_CL_ERR(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
    PF_CL_ERR(CL_COMPILE_PROGRAM_FAILURE)
    PF_CL_ERR(CL_LINKER_NOT_AVAILABLE)
    PF_CL_ERR(CL_LINK_PROGRAM_FAILURE)
    PF_CL_ERR(CL_DEVICE_PARTITION_FAILED)
    PF_CL_ERR(CL_KERNEL_ARG_INFO_NOT_AVAILABLE)
    PF_CL_ERR(CL_INVALID_VALUE)
    PF_CL_ERR(CL_INVALID_DEVICE_TYPE)
    PF_CL_ERR(CL_INVALID_PLATFORM)
    PF_CL_ERR(CL_INVALID_DEVICE)
    PF_CL_ERR(CL_INVALID_CONTEXT)
    PF_CL_ERR(CL_INVALID_QUEUE_PROPERTIES)
    PF_CL_ERR(CL_INVALID_COMMAND_QUEUE)
    PF_CL_ERR(CL_INVALID_HOST_PTR)
    PF_CL_ERR(CL_INVALID_MEM_OBJECT)
    PF_CL_ERR(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)
    PF_CL_ERR(CL_INVALID_IMAGE_SIZE)
    PF_CL_ERR(CL_INVALID_SAMPLER)
    PF_CL_ERR(CL_INVALID_BINARY)
    PF_CL_ERR(CL_INVALID_BUILD_OPTIONS)
    PF_CL_ERR(CL_INVALID_PROGRAM)
    PF_CL_ERR(CL_INVALID_PROGRAM_EXECUTABLE)
    PF_CL_ERR(CL_INVALID_KERNEL_NAME)
    PF_CL_ERR(CL_INVALID_KERNEL_DEFINITION)
    PF_CL_ERR(CL_INVALID_KERNEL)
    PF_CL_ERR(CL_INVALID_ARG_INDEX)
    PF_CL_ERR(CL_INVALID_ARG_VALUE)
    PF_CL_ERR(CL_INVALID_ARG_SIZE)
    PF_CL_ERR(CL_INVALID_KERNEL_ARGS)
    PF_CL_ERR(CL_INVALID_WORK_DIMENSION)
    PF_CL_ERR(CL_INVALID_WORK_GROUP_SIZE)
    PF_CL_ERR(CL_INVALID_WORK_ITEM_SIZE)
    PF_CL_ERR(CL_INVALID_GLOBAL_OFFSET)
    PF_CL_ERR(CL_INVALID_EVENT_WAIT_LIST)
    PF_CL_ERR(CL_INVALID_EVENT)
    PF_CL_ERR(CL_INVALID_OPERATION)
    PF_CL_ERR(CL_INVALID_GL_OBJECT)
    PF_CL_ERR(CL_INVALID_BUFFER_SIZE)
    PF_CL_ERR(CL_INVALID_MIP_LEVEL)
    PF_CL_ERR(CL_INVALID_GLOBAL_WORK_SIZE)
    PF_CL_ERR(CL_INVALID_PROPERTY)
    PF_CL_ERR(CL_INVALID_IMAGE_DESCRIPTOR)
    PF_CL_ERR(CL_INVALID_COMPILER_OPTIONS)
    PF_CL_ERR(CL_INVALID_LINKER_OPTIONS)
    PF_CL_ERR(CL_INVALID_DEVICE_PARTITION_COUNT)
    PF_CL_ERR(CL_INVALID_PIPE_SIZE)
    PF_CL_ERR(CL_INVALID_DEVICE_QUEUE)
    PF_CL_ERR(CL_INVALID_SPEC_ID)
    PF_CL_ERR(CL_MAX_SIZE_RESTRICTION_EXCEEDED)
#undef PF_CL_ERR
    case -1001:  // from cl_khr_icd: the loader found no platform
      return "CL_PLATFORM_NOT_FOUND_KHR";
    default:
      return "unknown OpenCL error";
  }
}

// The C API name of a call given as source text: "queue_.finish()" -> "clFinish",
// "k.setArg(2, x)" -> "clSetKernelArg"; a C call ("clFlush(q)") keeps its name.
inline std::string cl_call_name(std::string_view text) {
  std::string_view fn = text.substr(0, text.find('('));
  for (std::string_view sep : {".", "->", "::"}) {
    auto p = fn.rfind(sep);
    if (p != std::string_view::npos) fn = fn.substr(p + sep.size());
  }
  if (fn.size() > 2 && fn.substr(0, 2) == "cl" && std::isupper(static_cast<unsigned char>(fn[2]))) return std::string(fn);
  // the bindings' methods whose C function has another name
  static constexpr std::pair<std::string_view, const char*> renamed[] = {
      {"setArg", "clSetKernelArg"},          {"build", "clBuildProgram"},
      {"getBuildInfo", "clGetProgramBuildInfo"}, {"getWorkGroupInfo", "clGetKernelWorkGroupInfo"},
      {"getDevices", "clGetDeviceIDs"},      {"get", "clGetPlatformIDs"},
      {"wait", "clWaitForEvents"},           {"createKernels", "clCreateKernelsInProgram"},
  };
  for (const auto& [method, c_name] : renamed)
    if (fn == method) return c_name;
  std::string s = "cl" + std::string(fn);  // enqueueWriteBuffer -> clEnqueueWriteBuffer
  if (s.size() > 2) s[2] = static_cast<char>(std::toupper(static_cast<unsigned char>(s[2])));
  return s;
}

[[noreturn]] inline void cl_fail(cl_int code, const std::string& call, const char* file, int line) {
  const std::string shown = call.find('(') == std::string::npos ? call + "(...)" : call;
  throw BackendError(where((shown + " failed: " + cl_error_name(code) + " (" + std::to_string(code) + ")").c_str(), file, line));
}

}  // namespace poreflow

#define PF_CHECK_CL(call)                                                                      \
  do {                                                                                         \
    const cl_int pf_cl_err_ = (call);                                                          \
    if (pf_cl_err_ != CL_SUCCESS)                                                              \
      ::poreflow::cl_fail(pf_cl_err_, ::poreflow::cl_call_name(#call), __FILE__, __LINE__);    \
  } while (0)

#define PF_CHECK_CL_AS(err, name)                                                              \
  do {                                                                                         \
    const cl_int pf_cl_err_ = (err);                                                           \
    if (pf_cl_err_ != CL_SUCCESS) ::poreflow::cl_fail(pf_cl_err_, (name), __FILE__, __LINE__); \
  } while (0)
