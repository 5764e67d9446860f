#!/usr/bin/env python3
"""The JSON of gpu.sh's run-record stage, read from its logs (one `poreflow run` of a deck per log).

usage: record_json.py DEVICE COMMIT DATE LOG... > record.json

A log record_DECK_BACKEND_RECORD_REP.log (graphs_DECK_... from the stage's former name,
run-graphs) is DECK run whole with the fully implicit scheme on BACKEND (cuda or opencl) with
linear.record = RECORD: the iterations of each linear solve recorded and replayed, as a CUDA graph
on cuda and as a list of launches on OpenCL (docs/linalg.md, "Recorded iterations"). A log
deck_DECK_flow.log is OPM Flow's run of DECK in the same call (gpu.sh run-decks with
DECK_BACKENDS=flow: CPR on 16 MPI ranks, the timing anchor): its "Total time" and Newton
iterations, and each backend's speed-up against it.

Per deck and backend: every run's figures as `poreflow run` printed them, the median time with and
without recording and their ratio; OpenCL's median against cuda's, both recorded and both not. A
deck is verified when each backend's runs took the same Newton and linear iterations and produced
the same oil to 1e-12 (a replay is the same arithmetic), the runs with recording replayed
iterations while those without replayed none, and the backends' oil agrees to 1e-6.
"""
import json
import re
import statistics
import sys

STATS = ("wall_seconds_total", "seconds_linear", "seconds_assemble", "seconds_preconditioner_refresh",
         "newton_iterations_total", "linear_iterations_total", "linear_iterations_replayed", "retried_steps",
         "oil_produced_sm3", "mass_balance_oil_rel", "mass_balance_water_rel")


def parse(path):
    name = path.split("/")[-1][: -len(".log")]
    m = re.fullmatch(r"(?:record|graphs)_(\w+?)_(cuda|opencl)_(true|false)_(\d+)", name)
    deck, backend, recorded, rep = m.group(1), m.group(2), m.group(3) == "true", int(m.group(4))
    text = open(path).read()
    run = {"log": name + ".log", "backend": backend, "recorded": recorded, "rep": rep}
    head = re.search(r"impes3d: (\d+) steps to t = (\S+) in (\S+) s on (.*)", text)
    run["steps"], run["days"], run["device"] = int(head.group(1)), float(head.group(2)), head.group(4)
    for key in STATS:
        run[key] = float(re.search(r"\n\s*" + key + r"\s+(\S+)", text).group(1))
    return deck, run


def median_of(runs, backend, recorded):
    t = [r["wall_seconds_total"] for r in runs if r["backend"] == backend and r["recorded"] == recorded]
    return statistics.median(t) if t else None


def main():
    device, commit, date = sys.argv[1:4]
    decks, flow = {}, {}
    for path in sys.argv[4:]:
        m = re.fullmatch(r"deck_(\w+)_flow\.log", path.split("/")[-1])
        if m:
            text = open(path).read()
            flow[m.group(1)] = {"log": m.group(0), "total_s": float(re.search(r"Total time \(seconds\):\s+(\S+)", text).group(1)),
                                "newton_iterations": int(re.search(r"Overall Newton Iterations:\s+(\d+)", text).group(1)),
                                "what": "OPM Flow 2022.10, --linear-solver=cpr, 16 MPI ranks of one thread, its own time steps"}
            continue
        deck, run = parse(path)
        decks.setdefault(deck, []).append(run)
    out = {"device": device, "commit": commit, "date": date,
           "command": "tools/device/gpu.sh build run-record; tools/device/record_json.py", "decks": {}}
    for deck, runs in decks.items():
        d = {"runs": runs}
        verified = True
        for b in sorted({r["backend"] for r in runs}):
            rb = [r for r in runs if r["backend"] == b]
            same = all(r["newton_iterations_total"] == rb[0]["newton_iterations_total"]
                       and r["linear_iterations_total"] == rb[0]["linear_iterations_total"]
                       and abs(r["oil_produced_sm3"] - rb[0]["oil_produced_sm3"]) <= 1e-12 * abs(rb[0]["oil_produced_sm3"])
                       for r in rb)
            replays = all((r["linear_iterations_replayed"] > 0) == r["recorded"] for r in rb)
            verified = verified and same and replays
            on, off = median_of(runs, b, True), median_of(runs, b, False)
            d[b] = {"recorded_median_s": on, "not_recorded_median_s": off,
                    "speedup_of_recording": off / on if on and off else None,
                    "speedup_over_opm_flow": flow[deck]["total_s"] / on if on and deck in flow else None}
        oil = [r["oil_produced_sm3"] for r in runs]
        verified = verified and max(oil) - min(oil) <= 1e-6 * abs(oil[0])
        d["verified"] = verified
        d["verified_what"] = ("per backend, runs with and without recording: equal Newton and linear iterations, oil "
                              "produced within 1e-12, iterations replayed exactly when recording; every run's oil within "
                              "1e-6 of the others'")
        for mode in (True, False):
            c, o = median_of(runs, "cuda", mode), median_of(runs, "opencl", mode)
            d["opencl_over_cuda_" + ("recorded" if mode else "not_recorded")] = o / c if c and o else None
        if deck in flow:
            d["opm_flow"] = flow[deck]
        out["decks"][deck] = d
    json.dump(out, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
