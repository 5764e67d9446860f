#!/usr/bin/env python3
"""record.json from the logs of this folder (run here: python3 make_json.py > record.json).

call1_729dfd6/: gpu.sh run-decks (OPM Flow, DECK_BACKENDS=flow) and run-record at 729dfd6: each deck
on cuda and NVIDIA OpenCL with linear.record true and false, twice, alternating (record_DECK_BACKEND_ON_REP.log);
OpenCL's recording gave every recorded launch a kernel object of its own.
call2_3f6d215/: tools/device/experiments/record_compare.sh at 3f6d215 (OpenCL's replay on the same kernel
objects): OpenCL with the base build d7099fe (old), this build with linear.record false and true, and
cuda (recorded, CUDA graphs), twice, alternating (rc_DECK_VARIANT_REP.log).
Times: the steps' ("N steps to t = T in X s", OpenCL's program builds left out). A deck's runs are
verified when each backend's runs took the same Newton and linear iterations (OpenCL's with either
build and either setting) and every run produced the same oil to the digits printed (six).
"""
import glob
import json
import re
import statistics


def run(path):
    t = open(path).read()
    h = re.search(r"impes3d: (\d+) steps to t = (\S+) in (\S+) s on (.*)", t)
    r = {"log": path, "steps": int(h.group(1)), "steps_s": float(h.group(3)), "device": h.group(4)}
    for k in ("newton_iterations_total", "linear_iterations_total", "linear_iterations_replayed", "oil_produced_sm3"):
        r[k] = float(re.search(r"\n\s*" + k + r"\s+(\S+)", t).group(1))
    return r


def group(paths, pattern):
    out = {}
    for p in sorted(paths):
        m = re.search(pattern, p)
        if m:
            out.setdefault(m.group(1), {}).setdefault(m.group(2), []).append(run(p))
    return out


def summary(decks):
    res = {}
    for deck, variants in decks.items():
        runs = [r for rs in variants.values() for r in rs]
        oil = [r["oil_produced_sm3"] for r in runs]
        same = True
        for backend in ("cuda", "opencl"):  # the backends round apart; each repeats its own iterations exactly
            rb = [r for v, rs in variants.items() if v.startswith("cuda") == (backend == "cuda") for r in rs]
            same = same and all(r["newton_iterations_total"] == rb[0]["newton_iterations_total"]
                                and r["linear_iterations_total"] == rb[0]["linear_iterations_total"] for r in rb)
        res[deck] = {"median_steps_s": {v: statistics.median(r["steps_s"] for r in rs) for v, rs in variants.items()},
                     "runs": variants,
                     "verified": same and max(oil) - min(oil) <= 1e-6 * abs(oil[0]),
                     "verified_what": "per backend (cuda; OpenCL with either build and either setting) equal Newton and linear iterations in every run; every run's oil the same to the six digits printed"}
    return res


flow = {}
for p in glob.glob("call1_729dfd6/deck_*_flow.log"):
    t = open(p).read()
    flow[re.search(r"deck_(\w+)_flow", p).group(1)] = {
        "total_s": float(re.search(r"Total time \(seconds\):\s+(\S+)", t).group(1)),
        "newton_iterations": int(re.search(r"Overall Newton Iterations:\s+(\d+)", t).group(1)),
        "what": "OPM Flow 2022.10, --linear-solver=cpr, 16 MPI ranks of one thread"}
out = {"device": "NVIDIA H200 (16-core host)", "date": "2026-12-01",
       "call1": {"commit": "729dfd6", "command": "tools/device/gpu.sh build run-decks run-record (DECK_BACKENDS=flow, RECORD_REPS=2)",
                 "opm_flow": flow,
                 "decks": summary(group(glob.glob("call1_729dfd6/record_*.log"), r"record_(\w+?)_((?:cuda|opencl)_(?:true|false))_\d"))},
       "call2": {"commit": "3f6d215", "base": "d7099fe",
                 "command": "tools/device/gpu.sh build build-old cmd:tools/device/experiments/record_compare.sh",
                 "decks": summary(group(glob.glob("call2_3f6d215/rc_*.log"), r"rc_(\w+?)_(old|norecord|record|cuda)_\d"))}}
print(json.dumps(out, indent=1))
