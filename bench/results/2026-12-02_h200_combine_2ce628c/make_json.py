#!/usr/bin/env python3
"""combine.json from logs/cc_DECK_VARIANT_BACKEND_REP.log: each deck run's steps' time, iterations and
oil, and per deck and backend the means of each variant ("apart": linear.amg_combine_rows = 0,
"one": 2000) over the repetitions, a run and a linear iteration; and from logs/launch_device.log
(tools/device/experiments/launch_device_{cu.cu,cl.cpp}) the device's time a launch behind a spin
kernel and the host's time to enqueue the 1 000 launches.
  python3 make_json.py > combine.json"""
import glob, json, os, re, statistics, sys

here = os.path.dirname(os.path.abspath(__file__))
runs = []
for path in sorted(glob.glob(os.path.join(here, "logs", "cc_*_*_*_*.log"))):
    deck, variant, backend, rep = os.path.basename(path)[3:-4].split("_")
    text = open(path).read()
    m = re.search(r"(\d+) steps to t = \S+ in ([\d.]+) s on", text)
    stats = dict(re.findall(r"^  (\w+)\s+(\S+)$", text, re.M))
    runs.append({"deck": deck, "variant": variant, "backend": backend, "rep": int(rep), "steps": int(m.group(1)),
                 "steps_seconds": float(m.group(2)), "newton": int(stats["newton_iterations_total"]),
                 "linear": int(stats["linear_iterations_total"]), "oil_produced_sm3": float(stats["oil_produced_sm3"]),
                 "seconds_linear": float(stats["seconds_linear"])})
summary = []
for deck in sorted({r["deck"] for r in runs}):
    for backend in ("cuda", "opencl"):
        row = {"deck": deck, "backend": backend}
        for v in ("apart", "one"):
            sel = [r for r in runs if r["deck"] == deck and r["backend"] == backend and r["variant"] == v]
            row[v] = {"runs": len(sel), "seconds": [r["steps_seconds"] for r in sel],
                      "mean_seconds": statistics.mean(r["steps_seconds"] for r in sel),
                      "linear": sorted({r["linear"] for r in sel}),
                      "us_per_linear": statistics.mean(1e6 * r["steps_seconds"] / r["linear"] for r in sel)}
        row["one_over_apart_run"] = row["one"]["mean_seconds"] / row["apart"]["mean_seconds"]
        row["one_over_apart_linear"] = row["one"]["us_per_linear"] / row["apart"]["us_per_linear"]
        summary.append(row)
launches = []
for line in open(os.path.join(here, "logs", "launch_device.log")):
    m = re.match(r"(cuda|opencl) pass (\d) (.*?): ([\d.]+) us a launch on the device \(spin ([\d.]+) ms, enqueue ([\d.]+) ms\)", line)
    if m:
        launches.append({"api": m.group(1), "pass": int(m.group(2)), "kernel": m.group(3), "device_us_per_launch": float(m.group(4)),
                         "spin_ms": float(m.group(5)), "enqueue_ms_1000_launches": float(m.group(6))})
json.dump({"meta": {"device": "NVIDIA H200", "date": "2026-12-02", "commit": "2ce628c",
                    "command": "BUILD_TARGETS=poreflow STAGE_TIMEOUT=400 tools/device/gpu.sh build "
                               "\"cmd:tools/device/experiments/combine_compare.sh\" (carry .devkit)"},
           "summary": summary, "runs": runs, "launch_device": launches}, sys.stdout, indent=1)
