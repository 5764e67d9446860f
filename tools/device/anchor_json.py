#!/usr/bin/env python3
"""The JSON of a run-decks call whose OPM Flow run may have been stopped by FLOW_TIMEOUT (gpu.sh):
how far each simulator got and in what time, read from the call's logs and deck_timings*.json.

usage: anchor_json.py DEVICE COMMIT DATE DIR > anchor.json
DIR holds deck_timings*.json (a call may run poreflow and OPM Flow in two run-decks, DECK_TAG) and
logs/deck_DECK_{flow,cuda,opencl,omp}.log.

OPM Flow prints no clock per step, only each step's Newton and linear iterations and the seconds of
its linearizations and linear solves: `opm.step_seconds` sums those (setup, well and output time
aside, so less than the time it took), and `opm.day_reached` is the last report it printed.
`opm.finished` says whether it printed its "Total time", and `exit` is the stage's status where the
log ends with gpu.sh's "=== NAME: exit N" line (124: stopped by FLOW_TIMEOUT; logs made before
that line was added have none). Where it did not finish, poreflow's speed-up
is a lower bound: OPM Flow's whole wall time (`wall_s`, the stage's) against poreflow's for the
whole deck, which is more work than OPM Flow did in that time. A poreflow row is verified when the
run ended (its "steps to t =" line) with each phase balanced to 1e-4.
"""
import json
import os
import re
import sys

STATS = ("wall_seconds_total", "seconds_linear", "seconds_assemble", "newton_iterations_total",
         "linear_iterations_total", "retried_steps", "oil_produced_sm3", "mass_balance_oil_rel",
         "mass_balance_water_rel")


def opm(text):
    steps = re.findall(r"Newton its=\s*(\d+), linearizations=\s*(\d+) \(([\d.]+)sec\), linear its=\s*(\d+) \(([\d.]+)sec\)", text)
    reports = re.findall(r"Report step\s+(\d+)/(\d+) at day ([\d.]+)/([\d.]+)", text)
    total = re.search(r"Total time \(seconds\):\s*([\d.]+)", text)
    return {
        "finished": total is not None,
        "total_time_s": float(total.group(1)) if total else None,
        "day_reached": float(reports[-1][2]) if reports else 0.0,
        "end_day": float(reports[-1][3]) if reports else None,
        "steps_logged": len(steps),
        "newton_iterations": sum(int(s[0]) for s in steps),
        "linear_iterations": sum(int(s[3]) for s in steps),
        "step_seconds": round(sum(float(s[2]) + float(s[4]) for s in steps), 1),
        "chops": text.count("Timestep chopped"),
    }


def poreflow(text):
    done = re.search(r"impes3d: (\d+) steps to t = ([\d.e+]+) in ([\d.]+) s on (\w+)", text)
    run = {"ended": done is not None}
    if done:
        run.update({"steps": int(done.group(1)), "day_reached": float(done.group(2)), "loop_s": float(done.group(3))})
    for k in STATS:
        m = re.search(r"^\s+%s\s+(\S+)" % k, text, re.M)
        if m:
            run[k] = float(m.group(1))
    run["verified"] = bool(run["ended"] and abs(run.get("mass_balance_oil_rel", 1)) < 1e-4
                           and abs(run.get("mass_balance_water_rel", 1)) < 1e-4)
    return run


def main():
    device, commit, date, d = sys.argv[1:5]
    timings = {}
    for name in sorted(f for f in os.listdir(d) if re.fullmatch(r"deck_timings.*\.json", f)):
        timings.update(json.load(open(os.path.join(d, name))))
    out = {"device": device, "commit": commit, "date": date, "host": timings.get("host"), "decks": {}}
    for key, t in timings.items():
        if key == "host":
            continue
        deck, backend = key.rsplit("_", 1)
        text = open(os.path.join(d, "logs", "deck_%s.log" % key)).read()
        row = opm(text) if backend == "flow" else poreflow(text)
        row["wall_s"] = round(t["wall_s"], 2)
        status = re.findall(r"^=== \S+: exit (\d+) after", text, re.M)
        row["exit"] = int(status[-1]) if status else None
        out["decks"].setdefault(deck, {})[backend] = row
    for deck, rows in out["decks"].items():
        f = rows.get("flow")
        if not f:
            continue
        for b, r in rows.items():
            if b == "flow" or not r.get("ended"):
                continue
            ratio = f["wall_s"] / r["wall_s"]
            if f["finished"]:
                r["speedup_vs_opm"] = round(ratio, 2)
            elif f["end_day"] is not None and r["day_reached"] >= f["end_day"] * (1 - 1e-9):
                r["speedup_vs_opm_at_least"] = round(ratio, 2)
    json.dump(out, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
