#!/usr/bin/env python3
"""The JSON of gpu.sh's run-tail stage, read from its logs and bench JSON.

usage: tail_json.py DEVICE COMMIT DATE CALL_DIR... > tail.json

Each CALL_DIR holds one device call's logs/ (tail_DECK_BACKEND_ROWS_REP.log: DECK run whole with the
fully implicit scheme on BACKEND with linear.amg_tail_rows = ROWS; deck_DECK_flow.log: OPM Flow's
run of DECK in the same call, where there is one) and its tail_linalg_ROWS.json (bench linalg with
--amg-tail-rows ROWS). The runs of one deck do not all take the same iterations (a cycle in one launch
sums in another order, and the Newton path follows the rounding), so the deck figures compare the
time per linear iteration (seconds_linear / linear_iterations_total) as well as the whole run. Per
deck and backend: every run, and per setting the median of each. A deck is verified when every run
ended with exit status 0 (a run stops on a balance that fails its own check, docs/fim.md) and
produced the same oil to 1e-5 of the produced volume.
"""
import json
import os
import re
import statistics
import sys

STATS = ("wall_seconds_total", "seconds_linear", "seconds_preconditioner_refresh", "newton_iterations_total",
         "linear_iterations_total", "retried_steps", "oil_produced_sm3", "mass_balance_oil_rel", "mass_balance_water_rel")


def parse(path):
    name = os.path.basename(path)[: -len(".log")]
    m = re.fullmatch(r"tail_(\w+?)_(cuda|opencl)_(-?\d+)_(\d+)", name)
    text = open(path).read()
    run = {"log": os.path.basename(os.path.dirname(os.path.dirname(path))) + "/logs/" + name + ".log",
           "backend": m.group(2), "amg_tail_rows": int(m.group(3)), "rep": int(m.group(4))}
    head = re.search(r"impes3d: (\d+) steps to t = (\S+) in (\S+) s on (.*)", text)
    run["steps"], run["days"], run["device"] = int(head.group(1)), float(head.group(2)), head.group(4)
    for key in STATS:
        run[key] = float(re.search(r"\n\s*" + key + r"\s+(\S+)", text).group(1))
    run["exit"] = int(re.search(r"=== \S+: exit (\d+) after", text).group(1))
    run["us_per_linear_iteration"] = 1e6 * run["seconds_linear"] / run["linear_iterations_total"]
    return m.group(1), run


def main():
    device, commit, date = sys.argv[1:4]
    decks, flow, linalg = {}, {}, []
    for call in sys.argv[4:]:
        logs = os.path.join(call, "logs")
        for f in sorted(os.listdir(logs)):
            path = os.path.join(logs, f)
            m = re.fullmatch(r"deck_(\w+)_flow\.log", f)
            if m:
                text = open(path).read()
                flow[m.group(1)] = {"log": os.path.basename(call) + "/logs/" + f,
                                    "total_s": float(re.search(r"Total time \(seconds\):\s+(\S+)", text).group(1)),
                                    "newton_iterations": int(re.search(r"Overall Newton Iterations:\s+(\d+)", text).group(1)),
                                    "what": "OPM Flow 2022.10, --linear-solver=cpr, 16 MPI ranks of one thread, its own time steps"}
            elif re.fullmatch(r"tail_\w+?_(cuda|opencl)_-?\d+_\d+\.log", f):
                deck, run = parse(path)
                decks.setdefault(deck, []).append(run)
        for f in sorted(os.listdir(call)):
            m = re.fullmatch(r"tail_linalg_(-?\d+)\.json", f)
            if m:
                d = json.load(open(os.path.join(call, f)))
                for r in d["rows"]:
                    linalg.append({"call": os.path.basename(call), "amg_tail_rows": int(m.group(1)),
                                   "system": r["system"], "backend": r["backend"], "solver": r["solver"],
                                   "iterations": r["iterations"], "solve_ms": 1e3 * r["solve_s"],
                                   "verified": r["verified"]})
    out = {"device": device, "commit": commit, "date": date,
           "command": "tools/device/gpu.sh build run-decks run-tail (DECK_BACKENDS=flow); tools/device/tail_json.py",
           "decks": {}, "linalg": linalg}
    for deck, runs in decks.items():
        oil = runs[0]["oil_produced_sm3"]
        ok = all(abs(r["oil_produced_sm3"] - oil) <= 1e-5 * abs(oil) and r["exit"] == 0 for r in runs)
        d = {"runs": runs, "verified": ok,
             "verified_what": "every run exited 0 (its own balance check passed) with oil produced within 1e-5 of the first's",
             "medians": {}}
        for b in ("cuda", "opencl"):
            for rows in sorted({r["amg_tail_rows"] for r in runs if r["backend"] == b}):
                sel = [r for r in runs if r["backend"] == b and r["amg_tail_rows"] == rows]
                d["medians"][f"{b}_{rows}"] = {
                    "runs": len(sel),
                    "wall_s": statistics.median(r["wall_seconds_total"] for r in sel),
                    "us_per_linear_iteration": statistics.median(r["us_per_linear_iteration"] for r in sel),
                    "linear_iterations": statistics.median(r["linear_iterations_total"] for r in sel),
                    "newton_iterations": statistics.median(r["newton_iterations_total"] for r in sel)}
        if deck in flow:
            d["opm_flow"] = flow[deck]
        out["decks"][deck] = d
    json.dump(out, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
