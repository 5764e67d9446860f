#!/usr/bin/env python3
"""Makes round_trip_and_kernel_time.json from the logs here: every round-trip timing of
read_cost.log (API, launches K before the read, pass, way, microseconds), and the OpenCL kernel
tally of kernel_times/kt_opencl_profile.log (per kernel: launches, device milliseconds), with the
three HETERO runs' steps' time.
    python3 make_json.py > round_trip_and_kernel_time.json"""
import json, os, re

here = os.path.dirname(os.path.abspath(__file__))
trips = []
for line in open(os.path.join(here, "read_cost.log")):
    m = re.match(r"(cuda|opencl) K=(\d+) pass (\d) (.+?)\s+([\d.]+) us a round trip", line)
    if m:
        trips.append({"api": m.group(1), "launches_before_read": int(m.group(2)), "pass": int(m.group(3)),
                      "way": m.group(4).strip(), "us_per_round_trip": float(m.group(5))})
kernels, total = [], None
prof = open(os.path.join(here, "kernel_times", "kt_opencl_profile.log")).read()
m = re.search(r"CLPROFILE total (\d+) launches, ([\d.]+) ms device time", prof)
total = {"launches": int(m.group(1)), "device_ms": float(m.group(2))}
for m in re.finditer(r"CLPROFILE (\S+)\s+(\d+) launches\s+([\d.]+) ms\s+([\d.]+) us each", prof):
    kernels.append({"kernel": m.group(1), "launches": int(m.group(2)), "device_ms": float(m.group(3)),
                    "device_us_each": float(m.group(4))})
runs = {}
for name in ("kt_opencl_plain", "kt_cuda_nograph_plain", "kt_opencl_profile"):
    text = open(os.path.join(here, "kernel_times", name + ".log")).read()
    s = re.search(r"(\d+) steps to t = (\S+) in (\S+) s", text)
    st = lambda k: float(re.search(r"^\s*" + k + r"\s+(\S+)", text, re.M).group(1))
    runs[name] = {"steps": int(s.group(1)), "seconds_steps": float(s.group(3)), "newton": st("newton_iterations_total"),
                  "linear": st("linear_iterations_total"), "oil_produced_sm3": st("oil_produced_sm3")}
print(json.dumps({
    "device": open(os.path.join(here, "kernel_times", "gpu.txt")).read().strip(), "date": "2026-12-02",
    "commit": "e3ccdd7 (the kernel tally with tools/device/experiments/cl_profile.patch applied, not kept)",
    "round_trip_command": "tools/device/gpu.sh \"cmd:nvcc -O2 -std=c++17 -arch=sm_90 -o /tmp/read_cu "
                          "tools/device/experiments/read_cost_cu.cu && /tmp/read_cu && g++ -O2 -std=c++17 "
                          "-I/opt/kit/usr/include -o /tmp/read_cl tools/device/experiments/read_cost_cl.cpp "
                          "-L/opt/kit/usr/lib/x86_64-linux-gnu -lOpenCL && /tmp/read_cl NVIDIA\"",
    "kernel_time_command": "BUILD_TARGETS=poreflow STAGE_TIMEOUT=300 tools/device/gpu.sh build "
                           "\"cmd:tools/device/experiments/kernel_times.sh\" (cl_profile.patch applied to the tree)",
    "round_trips": trips, "opencl_kernel_tally_total": total, "opencl_kernels": kernels, "hetero_runs": runs}, indent=1))
