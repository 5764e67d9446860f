#!/usr/bin/env python3
"""galerkin_entry.json: the AMG refresh and the SPE10 deck with the Galerkin product a work-item an
entry (this folder, commit d0b33ca) against a work-item a row (earlier calls the same day on the
same kind of machine: ../2026-12-02_h200_graphs_vs_opencl, gv_cuda_graphs_* and gv_opencl_*; the
SPE10 deck from ../2026-12-02_h200_step_control/call3, commit a486971).
  python3 make_json.py > galerkin_entry.json"""
import glob, json, os, re, statistics, sys

here = os.path.dirname(os.path.abspath(__file__))
res = os.path.dirname(here)


def rows(path):
    return [{k: r.get(k) for k in ("backend", "solver", "iterations", "setup_s", "refresh_s", "solve_s", "verified")}
            for r in json.load(open(path))["rows"]]


def deck(path):
    text = open(path).read()
    m = re.search(r"(\d+) steps to t = \S+ in ([\d.]+) s on", text)
    stats = dict(re.findall(r"^  (\w+)\s+(\S+)$", text, re.M))
    keep = ("newton_iterations_total", "linear_iterations_total", "pressure_amg_refreshes", "seconds_preconditioner_refresh",
            "seconds_linear", "retried_steps", "oil_produced_sm3")
    return {"steps": int(m.group(1)), "steps_seconds": float(m.group(2)), **{k: float(stats[k]) for k in keep}}


after = {b: rows(os.path.join(here, f"ga_new_{b}.json")) for b in ("cuda", "opencl")}
before = {}
for b, pat in (("cuda", "gv_cuda_graphs_*.json"), ("opencl", "gv_opencl_*.json")):
    before[b] = [r for p in sorted(glob.glob(os.path.join(res, "2026-12-02_h200_graphs_vs_opencl", pat))) for r in rows(p)]
summary = []
for b in ("cuda", "opencl"):
    for solver in ("amg", "cpr"):
        old = [r["refresh_s"] for r in before[b] if r["solver"] == solver]
        new = [r["refresh_s"] for r in after[b] if r["solver"] == solver]
        summary.append({"backend": b, "solver": solver, "refresh_s_row_a_work_item": old, "refresh_s_entry_a_work_item": new,
                        "ratio": statistics.median(old) / statistics.median(new)})
json.dump({"meta": {"device": "NVIDIA H200", "date": "2026-12-02", "commit": "d0b33ca (the kernels of 46fe618)",
                    "command": "TEST_PARALLEL=1 STAGE_TIMEOUT=500 BUILDS=new tools/device/gpu.sh build test "
                               "cmd:tools/device/experiments/galerkin_compare.sh (carry .devkit)",
                    "note": "bench linalg ran with -v: the debug log drains the queue after each part of a refresh, "
                            "so refresh_s here includes those waits"},
           "refresh": summary, "bench_rows_after": after,
           "spe10_deck_cuda": {"entry_a_work_item": deck(os.path.join(here, "logs", "ga_SPE10_new_cuda.log")),
                               "row_a_work_item": deck(os.path.join(res, "2026-12-02_h200_step_control", "call3", "logs",
                                                                    "sc_SPE10_cuda_newton.log"))}},
          sys.stdout, indent=1)
