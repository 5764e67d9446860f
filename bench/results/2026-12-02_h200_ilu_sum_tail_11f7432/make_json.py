#!/usr/bin/env python3
"""Makes ilu_sum_tail.json from the logs here: every deck run (the steps' time, Newton and linear
iterations, produced oil), per deck, backend and variant the runs and their mean, the time per
linear iteration, and the ratios asked for (new / old: the ILU's sum; tail / new: the coarse levels
in one launch on OpenCL; OpenCL / cuda per variant).
    python3 make_json.py > ilu_sum_tail.json"""
import glob, json, os, re, statistics

here = os.path.dirname(os.path.abspath(__file__))


def stat(text, key):
    m = re.search(r"^\s*" + key + r"\s+(\S+)", text, re.M)
    return float(m.group(1)) if m else None


runs = []
for path in sorted(glob.glob(os.path.join(here, "logs", "it_*_*_*_*.log"))):
    deck, variant, backend, rep = os.path.basename(path)[3:-4].split("_")
    text = open(path).read()
    m = re.search(r"(\d+) steps to t = (\S+) in (\S+) s", text)
    runs.append({"deck": deck, "variant": variant, "backend": backend, "rep": int(rep), "steps": int(m.group(1)),
                 "seconds_steps": float(m.group(3)), "newton": stat(text, "newton_iterations_total"),
                 "linear": stat(text, "linear_iterations_total"), "oil_produced_sm3": stat(text, "oil_produced_sm3"),
                 "mass_balance_oil_rel": stat(text, "mass_balance_oil_rel"),
                 "mass_balance_water_rel": stat(text, "mass_balance_water_rel")})

groups = {}
for r in runs:
    groups.setdefault((r["deck"], r["backend"], r["variant"]), []).append(r)
summary = []
for (deck, backend, variant), rs in sorted(groups.items()):
    rs.sort(key=lambda r: r["rep"])
    t = [r["seconds_steps"] for r in rs]
    summary.append({"deck": deck, "backend": backend, "variant": variant, "runs": len(rs), "seconds_each_by_rep": t,
                    "seconds_mean": statistics.mean(t),
                    "ms_per_linear_iteration_mean": statistics.mean(1e3 * r["seconds_steps"] / r["linear"] for r in rs),
                    "same_iterations_and_oil_every_run": len({(r["newton"], r["linear"], r["oil_produced_sm3"]) for r in rs}) == 1,
                    "newton": rs[0]["newton"], "linear": rs[0]["linear"], "oil_produced_sm3": rs[0]["oil_produced_sm3"]})


def find(deck, backend, variant):
    return next((s for s in summary if s["deck"] == deck and s["backend"] == backend and s["variant"] == variant), None)


ratios = []
for deck in sorted({s["deck"] for s in summary}):
    row = {"deck": deck}
    for backend in ("opencl", "cuda"):
        o, n = find(deck, backend, "old"), find(deck, backend, "new")
        if o and n:
            row[f"new_over_old_{backend}_seconds"] = n["seconds_mean"] / o["seconds_mean"]
            row[f"new_and_old_same_iterations_and_oil_{backend}"] = (o["newton"], o["linear"], o["oil_produced_sm3"]) == (
                n["newton"], n["linear"], n["oil_produced_sm3"])
    t, n = find(deck, "opencl", "tail"), find(deck, "opencl", "new")
    if t and n:
        row["tail_over_new_opencl_seconds"] = t["seconds_mean"] / n["seconds_mean"]
        row["tail_over_new_opencl_per_linear_iteration"] = t["ms_per_linear_iteration_mean"] / n["ms_per_linear_iteration_mean"]
    for v in ("old", "new"):
        o, c = find(deck, "opencl", v), find(deck, "cuda", v)
        if o and c:
            row[f"opencl_over_cuda_{v}_seconds"] = o["seconds_mean"] / c["seconds_mean"]
    c, t = find(deck, "cuda", "new"), find(deck, "opencl", "tail")
    if c and t:
        row["opencl_tail_over_cuda_new_seconds"] = t["seconds_mean"] / c["seconds_mean"]
    ratios.append(row)

print(json.dumps({
    "what": "old: e3ccdd7 (CPR adds the ILU's z with an axpby); new: 11f7432 (the ILU's sweeps add it); tail: 11f7432 "
            "with linear.amg_tail_rows = -1 (the pressure AMG's levels of at most 1 100 rows in one launch on an OpenCL "
            "GPU; cuda makes none, so it was not run there). Fully implicit decks to their end; the steps' time",
    "device": open(os.path.join(here, "logs", "gpu.txt")).read().strip(),
    "date": "2026-12-02", "commit_new": "11f7432", "commit_old": "e3ccdd7",
    "command": "BUILD_TARGETS=poreflow STAGE_TIMEOUT=420 tools/device/gpu.sh build build-old "
               "\"cmd:tools/device/experiments/ilu_tail_compare.sh\" (carry .devkit, .gpu-old = git archive of e3ccdd7)",
    "order": "repetition 1: old, new, tail; 2: new, tail, old; 3: tail, old, new; each variant OpenCL then cuda; "
             "SPE10 once each on OpenCL, tail first",
    "summary": summary, "ratios": ratios, "runs": runs}, indent=1))
