#!/usr/bin/env python3
"""cl_flush.json from logs/fl_DECK_VARIANT_REP.log ("cuda", or "clN": NVIDIA's OpenCL with a clFlush
after every N launches, 0 never) and the bench linalg JSON here.
  python3 make_json.py > cl_flush.json"""
import glob, json, os, re, statistics, sys

here = os.path.dirname(os.path.abspath(__file__))
runs = []
for path in sorted(glob.glob(os.path.join(here, "logs", "fl_*_*_*.log"))):
    parts = os.path.basename(path)[3:-4].split("_")
    if parts[0] == "linalg":
        continue
    deck, variant, rep = parts
    text = open(path).read()
    m = re.search(r"(\d+) steps to t = \S+ in ([\d.]+) s on", text)
    stats = dict(re.findall(r"^  (\w+)\s+(\S+)$", text, re.M))
    runs.append({"deck": deck, "variant": variant, "rep": int(rep), "steps": int(m.group(1)), "steps_seconds": float(m.group(2)),
                 "newton": int(stats["newton_iterations_total"]), "linear": int(stats["linear_iterations_total"]),
                 "oil_produced_sm3": float(stats["oil_produced_sm3"])})
summary = []
for deck in sorted({r["deck"] for r in runs}):
    for v in sorted({r["variant"] for r in runs}):
        sel = [r for r in runs if r["deck"] == deck and r["variant"] == v]
        summary.append({"deck": deck, "variant": v, "seconds": [r["steps_seconds"] for r in sel],
                        "mean_seconds": statistics.mean(r["steps_seconds"] for r in sel),
                        "linear": sorted({r["linear"] for r in sel}), "oil_produced_sm3": sorted({r["oil_produced_sm3"] for r in sel})})
linalg = {}
for path in sorted(glob.glob(os.path.join(here, "fl_linalg_*.json"))):
    rows = json.load(open(path))["rows"]
    linalg[os.path.basename(path)[10:-5]] = [{k: r.get(k) for k in ("size", "backend", "solver", "iterations", "solve_s")} for r in rows]
json.dump({"meta": {"device": "NVIDIA H200", "date": "2026-12-02",
                    "commit": "2f48ea8 with tools/device/experiments/cl_flush.patch",
                    "command": "BUILD_TARGETS=poreflow STAGE_TIMEOUT=450 tools/device/gpu.sh build "
                               "\"cmd:tools/device/experiments/flush_compare.sh\" (carry .devkit)"},
           "summary": summary, "runs": runs, "linalg": linalg}, sys.stdout, indent=1)
