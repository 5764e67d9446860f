#!/usr/bin/env python3
"""Makes fewer_launches.json from the logs here: every deck run of both calls (the steps' time,
Newton and linear iterations, produced oil, the phases' balance), each build's SPE10-like solve
(bench linalg's JSON), the suites' counts, the launch tallies, and what the rows verify.
    python3 make_json.py > fewer_launches.json"""
import glob, json, os, re, statistics, sys

here = os.path.dirname(os.path.abspath(__file__))


def stat(text, key):
    m = re.search(r"^\s*" + key + r"\s+(\S+)", text, re.M)
    return float(m.group(1)) if m else None


runs = []
for path in sorted(glob.glob(os.path.join(here, "call*", "logs", "lc_*_*_*_*.log"))):
    name = os.path.basename(path)[3:-4]
    deck, build, backend, rep = name.split("_")
    text = open(path).read()
    m = re.search(r"(\d+) steps to t = (\S+) in (\S+) s", text)
    runs.append({"call": os.path.relpath(path, here).split(os.sep)[0], "deck": deck, "build": build, "backend": backend,
                 "rep": int(rep), "steps": int(m.group(1)) if m else None, "seconds_steps": float(m.group(3)) if m else None,
                 "newton": stat(text, "newton_iterations_total"), "linear": stat(text, "linear_iterations_total"),
                 "oil_produced_sm3": stat(text, "oil_produced_sm3"),
                 "mass_balance_oil_rel": stat(text, "mass_balance_oil_rel"),
                 "mass_balance_water_rel": stat(text, "mass_balance_water_rel")})

summary = []
for deck in sorted({r["deck"] for r in runs}):
    for backend in ("cuda", "opencl"):
        row = {"deck": deck, "backend": backend}
        for build in ("old", "new"):
            rs = [r for r in runs if r["deck"] == deck and r["backend"] == backend and r["build"] == build]
            if not rs:
                continue
            t = [r["seconds_steps"] for r in rs]
            row[build] = {"runs": len(rs), "seconds_each": t, "seconds_mean": statistics.mean(t),
                          "seconds_per_linear_iteration_mean": statistics.mean(r["seconds_steps"] / r["linear"] for r in rs)}
        # equal work: every run of the backend (both builds) took the same iterations and produced the same oil
        same = {(r["newton"], r["linear"], r["oil_produced_sm3"]) for r in runs if r["deck"] == deck and r["backend"] == backend}
        row["verified_same_iterations_and_oil_every_run"] = len(same) == 1
        summary.append(row)
for deck in sorted({r["deck"] for r in runs}):
    c = next(s for s in summary if s["deck"] == deck and s["backend"] == "cuda")
    o = next(s for s in summary if s["deck"] == deck and s["backend"] == "opencl")
    for build in ("old", "new"):
        if build in c and build in o:
            o[build]["opencl_over_cuda_seconds"] = o[build]["seconds_mean"] / c[build]["seconds_mean"]
            o[build]["opencl_over_cuda_per_linear_iteration"] = (o[build]["seconds_per_linear_iteration_mean"] /
                                                                 c[build]["seconds_per_linear_iteration_mean"])

linalg = {}
for build in ("old", "new"):
    d = json.load(open(os.path.join(here, "call1_compare", f"lc_linalg_{build}.json")))
    linalg[build] = [{k: r.get(k) for k in ("backend", "variant", "iterations", "solve_s", "setup_s", "rel_residual", "verified")}
                     for r in d["rows"] if r.get("part") == "system"]

suites = {}
for b in ("cuda", "opencl_nvidia"):
    text = open(os.path.join(here, "call2_suite_spe10", "logs", f"test_{b}.log")).read()
    m = re.findall(r"test cases:\s+(\d+) \|\s+(\d+) passed \|\s+(\d+) failed", text)
    suites[b] = {"cases": int(m[-1][0]), "passed": int(m[-1][1]), "failed": int(m[-1][2])}

# the launch tallies on PoCL (launches_pocl.txt: this build's section first, then the base's)
tallies = [int(m) for m in re.findall(r"HIST\s+(\d+) total", open(os.path.join(here, "launches_pocl.txt")).read())]
launches = {"what": "kernels and buffer copies enqueued over HETERO's first 60 days on PoCL (58 Newton, 611 linear, "
                    "974 BiCGSTAB iterations enqueued, with either build)",
            "new": tallies[0], "old": tallies[1], "new_over_old": tallies[0] / tallies[1]}

json.dump({"device": "NVIDIA H200 (nvidia-h200, 16-core host)", "date": "2026-12-02", "commit": "434ff6d",
           "base_commit": "facae18",
           "what": "AMG with the first two Chebyshev steps (or a degree-1 step and its residual) in one pass and the "
                   "last prolongation into r (13e6b81, 0b63b8d) against the base; every fully implicit deck with its "
                   "default settings, the steps' time (OpenCL's program builds left out)",
           "runs": runs, "summary": summary, "linalg_spe10_like": linalg, "suite_at_434ff6d": suites, "launches_pocl": launches},
          sys.stdout, indent=1)
