# POREFLOW_SANITIZE=address,undefined builds everything with those sanitizers (GCC or Clang),
# CUDA off (nvcc code is not instrumented; compute-sanitizer checks it on the GPU machine).
# UBSan stops at the first finding, so a test with undefined behaviour fails.
set(POREFLOW_SANITIZE "" CACHE STRING "Sanitizers for the whole build, e.g. address,undefined (CUDA off)")
if(POREFLOW_SANITIZE)
  if(POREFLOW_WITH_CUDA STREQUAL "ON")
    message(FATAL_ERROR "POREFLOW_SANITIZE needs POREFLOW_WITH_CUDA=OFF or AUTO")
  endif()
  set(POREFLOW_WITH_CUDA OFF CACHE STRING "Build the CUDA backend (AUTO, ON, OFF)" FORCE)
  # -O1: a quicker build and run than -O3 (CI builds this next to the Release build), still fast
  # line tables only (clang; GCC's -g1): the findings' stacks name file and line, and the build is
  # quicker than with -g
  add_compile_options(-fsanitize=${POREFLOW_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all $<IF:$<CXX_COMPILER_ID:Clang>,-gline-tables-only,-g1> -O1)
  add_link_options(-fsanitize=${POREFLOW_SANITIZE})
  message(STATUS "poreflow: sanitizers ${POREFLOW_SANITIZE}")
endif()

# POREFLOW_FUZZ=ON (clang): the layers a fuzzed input passes through instrumented for libFuzzer
# (core/CMakeLists.txt), and fuzz/fuzz_case built with its driver (docs/reliability.md). Usually
# together with POREFLOW_SANITIZE.
option(POREFLOW_FUZZ "Build the libFuzzer targets (clang)" OFF)
if(POREFLOW_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "POREFLOW_FUZZ needs clang (CMAKE_CXX_COMPILER=clang++)")
  endif()
  # 30 s a target: a smoke test in CI's time (the campaigns of docs/reliability.md run for hours)
  set(POREFLOW_FUZZ_SECONDS 30 CACHE STRING "seconds of each fuzz target's smoke test")
endif()
