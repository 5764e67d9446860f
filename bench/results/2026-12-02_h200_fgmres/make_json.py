#!/usr/bin/env python3
"""fgmres.json from logs/fg_DECK_BACKEND_SOLVER_rREP.log (tools/device/experiments/fgmres_compare.sh).
  python3 make_json.py > fgmres.json"""
import glob, json, os, re, statistics, sys

here = os.path.dirname(os.path.abspath(__file__))
runs = []
for path in sorted(glob.glob(os.path.join(here, "logs", "fg_*_r*.log"))):
    deck, backend, solver, rep = os.path.basename(path)[3:-4].split("_")
    text = open(path).read()
    m = re.search(r"(\d+) steps to t = \S+ in ([\d.]+) s on", text)
    stats = dict(re.findall(r"^  (\w+)\s+(\S+)$", text, re.M))
    runs.append({"deck": deck, "backend": backend, "solver": solver, "round": int(rep[1:]), "steps": int(m.group(1)),
                 "steps_seconds": float(m.group(2)), "newton": int(stats["newton_iterations_total"]),
                 "linear": int(stats["linear_iterations_total"]), "replayed": int(stats.get("linear_iterations_replayed", 0)),
                 "retried_steps": int(stats["retried_steps"]), "oil_produced_sm3": float(stats["oil_produced_sm3"])})
summary = []
for deck in sorted({r["deck"] for r in runs}):
    for b in ("cuda", "opencl"):
        row = {"deck": deck, "backend": b}
        for s in ("bicgstab", "fgmres"):
            sel = [r for r in runs if r["deck"] == deck and r["backend"] == b and r["solver"] == s]
            row[s] = {"seconds": [r["steps_seconds"] for r in sel], "mean_seconds": statistics.mean(r["steps_seconds"] for r in sel),
                      "newton": sorted({r["newton"] for r in sel}), "linear": sorted({r["linear"] for r in sel})}
        row["fgmres_over_bicgstab"] = row["fgmres"]["mean_seconds"] / row["bicgstab"]["mean_seconds"]
        summary.append(row)
json.dump({"meta": {"device": "NVIDIA H200", "date": "2026-12-02", "commit": "9ce0e4b (the script as at 616f814)",
                    "command": "BUILD_TARGETS=poreflow STAGE_TIMEOUT=500 tools/device/gpu.sh build "
                               "cmd:tools/device/experiments/fgmres_compare.sh (carry .devkit)"},
           "summary": summary, "runs": runs}, sys.stdout, indent=1)
