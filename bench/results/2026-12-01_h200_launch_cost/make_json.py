#!/usr/bin/env python3
"""launch_cost.json from launch_cost.log (run here: python3 make_json.py > launch_cost.json)."""
import json
import re

rows = []
for line in open("launch_cost.log"):
    m = re.match(r"cuda n=(\d+) guard=(\d): enqueue (\S+) us/launch, drained (\S+) us/launch, graph node (\S+) us", line)
    if m:
        rows.append({"api": "cuda runtime", "n": int(m.group(1)), "guard_set": m.group(2) == "1", "args_set": "per launch",
                     "enqueue_us": float(m.group(3)), "drained_us": float(m.group(4)), "graph_node_us": float(m.group(5))})
    m = re.match(r"opencl n=(\d+) guard=(\d) args set (once|every launch): enqueue (\S+) us/launch, drained (\S+) us/launch", line)
    if m:
        rows.append({"api": "NVIDIA OpenCL", "n": int(m.group(1)), "guard_set": m.group(2) == "1",
                     "args_set": "once" if m.group(3) == "once" else "per launch (15 clSetKernelArg)",
                     "enqueue_us": float(m.group(4)), "drained_us": float(m.group(5))})
print(json.dumps({"device": "NVIDIA H200 (16-core host), NVIDIA's OpenCL 3.0 CUDA", "date": "2026-12-01",
                  "commit": "4e14f47", "command": "tools/device/gpu.sh 'cmd:nvcc -O2 -arch=sm_90 launch_cost_cu.cu && ./launch_cu; "
                  "g++ -O2 launch_cost_cl.cpp -lOpenCL && ./launch_cl NVIDIA' (tools/device/experiments/)",
                  "what": "20 000 back-to-back launches of a guarded 15-parameter axpby of n doubles, blocks of 256: the host's "
                          "time to enqueue one (the loop alone) and the time per launch until the queue drained; CUDA graphs: "
                          "200 launches captured, replayed 100 times, per node",
                  "opencl_extensions": {"cl_khr_command_buffer": False, "clCloneKernel": True},
                  "rows": rows}, indent=1))
