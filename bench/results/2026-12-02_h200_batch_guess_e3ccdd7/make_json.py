#!/usr/bin/env python3
"""Makes batch_guess.json from the logs here: every deck run (the steps' time, Newton and linear
iterations taken and enqueued, produced oil, the phases' balance), per deck and backend each build's
mean, the change, and whether every run of a backend took the same iterations and oil.
    python3 make_json.py > batch_guess.json"""
import glob, json, os, re, statistics

here = os.path.dirname(os.path.abspath(__file__))


def stat(text, key):
    m = re.search(r"^\s*" + key + r"\s+(\S+)", text, re.M)
    return float(m.group(1)) if m else None


runs = []
for path in sorted(glob.glob(os.path.join(here, "logs", "bc_*_*_*_*.log"))):
    deck, build, backend, rep = os.path.basename(path)[3:-4].split("_")
    text = open(path).read()
    m = re.search(r"(\d+) steps to t = (\S+) in (\S+) s", text)
    runs.append({"deck": deck, "build": build, "backend": backend, "rep": int(rep),
                 "ran_first_in_pair": (build == "old") == (int(rep) % 2 == 1),
                 "steps": int(m.group(1)), "seconds_steps": float(m.group(3)),
                 "newton": stat(text, "newton_iterations_total"), "linear": stat(text, "linear_iterations_total"),
                 "linear_enqueued": stat(text, "linear_iterations_enqueued"),
                 "oil_produced_sm3": stat(text, "oil_produced_sm3"),
                 "mass_balance_oil_rel": stat(text, "mass_balance_oil_rel"),
                 "mass_balance_water_rel": stat(text, "mass_balance_water_rel")})

summary = []
for deck in sorted({r["deck"] for r in runs}):
    for backend in ("cuda", "opencl"):
        row = {"deck": deck, "backend": backend}
        for build in ("old", "new"):
            rs = sorted((r for r in runs if r["deck"] == deck and r["backend"] == backend and r["build"] == build),
                        key=lambda r: r["rep"])
            t = [r["seconds_steps"] for r in rs]
            row[build] = {"runs": len(rs), "seconds_each_by_rep": t, "seconds_mean": statistics.mean(t),
                          "linear_enqueued": rs[0]["linear_enqueued"]}
        row["new_over_old_mean"] = row["new"]["seconds_mean"] / row["old"]["seconds_mean"]
        row["new_over_old_by_rep"] = [n / o for n, o in zip(row["new"]["seconds_each_by_rep"], row["old"]["seconds_each_by_rep"])]
        same = {(r["newton"], r["linear"], r["oil_produced_sm3"]) for r in runs if r["deck"] == deck and r["backend"] == backend}
        row["verified_same_iterations_and_oil_every_run"] = len(same) == 1
        summary.append(row)

print(json.dumps({
    "what": "Krylov's first batch: the last converged solve's count plus one (old, main at 8aeb1f2) against the smaller "
            "of the last two converged solves' plus one, a solve at its limit leaving the guess (new, e3ccdd7); "
            "fully implicit decks to their end, each backend's steps' time",
    "device": open(os.path.join(here, "logs", "gpu.txt")).read().strip(),
    "date": "2026-12-02", "commit_new": "e3ccdd7", "commit_old": "8aeb1f2",
    "command": "REPS=3 BUILD_TARGETS=poreflow STAGE_TIMEOUT=250 tools/device/gpu.sh build build-old "
               "\"cmd:tools/device/experiments/batch_compare.sh\" (carry .devkit, .gpu-old = git archive of 8aeb1f2)",
    "order": "repetitions 1 and 3 ran old then new, repetition 2 new then old; within a build opencl then cuda",
    "old_build_reports_no_enqueued_count": True,
    "summary": summary, "runs": runs}, indent=1))
