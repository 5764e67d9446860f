#!/usr/bin/env python3
"""case2_solvers.json from CALL/logs/c2_SOLVER_BACKEND_rREP.log (tools/device/experiments/case2_solvers.sh):
each run's steps, the wall seconds of its steps, its statistics, and per call, solver and backend
the medians over the repetitions. Run: python3 make_json.py > case2_solvers.json"""
import json, pathlib, re, statistics

here = pathlib.Path(__file__).parent
calls = {
    "call1_45f1188": {"commit": "45f1188", "amg_reuse_default": 1,
                      "command": "POREFLOW_COMMIT=45f1188 TEST_PARALLEL=1 STAGE_TIMEOUT=340 tools/device/gpu.sh build test "
                                 "\"cmd:tools/device/experiments/case2_solvers.sh\""},
    "call2_933d025": {"commit": "933d025", "amg_reuse_default": 1000,
                      "command": "POREFLOW_COMMIT=933d025 TEST_PARALLEL=1 STAGE_TIMEOUT=400 "
                                 "SOLVERS=\"sor cg-amg cg-amg-every cg-amgf\" tools/device/gpu.sh build test "
                                 "\"cmd:tools/device/experiments/case2_solvers.sh\""},
    "call3_13c83b5": {"commit": "13c83b5", "amg_reuse_default": 1000,
                      "command": "POREFLOW_COMMIT=13c83b5 TEST_PARALLEL=1 STAGE_TIMEOUT=420 tools/device/gpu.sh build test "
                                 "\"cmd:REPS=1 SOLVERS='sor cg-amg cg-amg-every' tools/device/experiments/case2_solvers.sh\""},
}
out = {
    "meta": {"device": "NVIDIA H200 (nvidia-h200, 16-core host)", "date": "2026-12-04",
             "case": "cases/impes_case2.toml, whole (450 days, 91 476 cells), double, --no-output",
             "solvers": {"sor": "the default (zline SOR)", "cg-amg": "pressure.solver = cg, AMG with the default pressure.amg_reuse",
                         "cg-amg-every": "cg, pressure.amg_reuse = 1 (every level every step)",
                         "cg-amgf": "cg, pressure.amg_float = true, the default reuse"},
             "timing": "each run once; wall_seconds_steps is the run's own time of its steps (the process's start, "
                       "program builds and set-up excluded); medians over 3 repetitions whose solvers' order turns",
             "verified": "every run exited 0, mass balance within 1e-15, oil produced 650 804 sm3 (6 digits) in every run"},
    "calls": {},
}
for call, meta in calls.items():
    runs = []
    for log in sorted((here / call / "logs").glob("c2_*.log")):
        solver, backend, rep = re.fullmatch(r"c2_(.+)_(cuda|opencl)_r(\d+)", log.stem).groups()
        text = log.read_text()
        head = re.search(r"impes3d: (\d+) steps to t = ([\d.]+) in ([\d.]+) s on (.+)", text)
        stats = {k: float(v) for k, v in re.findall(r"^  (\w+) +(\S+)$", text, re.M)}
        runs.append({"solver": solver, "backend": backend, "repetition": int(rep), "steps": int(head[1]),
                     "time_days": float(head[2]), "wall_seconds_steps": float(head[3]), "device": head[4],
                     "statistics": stats})
    groups = {}
    for r in runs:
        groups.setdefault(f"{r['solver']} {r['backend']}", []).append(r)
    # a statistic the runs did not print is null (pressure_amg_refreshes and the retries before
    # 933d025, and with pressure.amg_reuse = 1 at 933d025: those refreshed every level every step)
    def med(v, k):
        vals = [x["statistics"][k] for x in v if k in x["statistics"]]
        return statistics.median(vals) if vals else None
    out["calls"][call] = dict(meta, medians={
        k: {"wall_seconds_steps": statistics.median(x["wall_seconds_steps"] for x in v),
            "seconds_pressure": med(v, "seconds_pressure"),
            "seconds_preconditioner_update": med(v, "seconds_preconditioner_update"),
            "pressure_iterations_total": med(v, "sor_iterations_total"),
            "pressure_amg_refreshes": med(v, "pressure_amg_refreshes"),
            "pressure_solves_retried": med(v, "pressure_solves_retried"),
            "oil_produced_sm3": sorted({x["statistics"]["oil_produced_sm3"] for x in v}),
            "runs": len(v)} for k, v in sorted(groups.items())}, runs=runs)
print(json.dumps(out, indent=1))
