#!/usr/bin/env python3
"""The JSON of gpu.sh's run-graphs stage, read from its logs (one `poreflow run` of a deck per log).

usage: graphs_json.py DEVICE COMMIT DATE LOG... > graphs.json

A log deck_DECK_flow.log is OPM Flow's run of DECK in the same call (gpu.sh run-decks with
DECK_BACKENDS=flow: CPR on 16 MPI ranks, the timing anchor): its "Total time" and Newton iterations,
and the speed-up of cuda with the graphs against it. A log graphs_DECK_BACKEND_GRAPHS_REP.log is DECK run whole with the fully implicit scheme on BACKEND
with linear.cuda_graphs = GRAPHS. Per deck: every run's figures as `poreflow run` printed them, the
median time on cuda with and without the graphs and their ratio, and OpenCL's time against cuda's
with the graphs. A deck is verified when every cuda run took the same Newton and linear iterations
and produced the same oil to 1e-12 (recorded launches replay the same arithmetic), and the runs
with the graphs replayed iterations while those without replayed none.
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
    m = re.fullmatch(r"graphs_(\w+?)_(cuda|opencl)_(true|false)_(\d+)", name)
    deck, backend, graphs, rep = m.group(1), m.group(2), m.group(3) == "true", int(m.group(4))
    text = open(path).read()
    run = {"log": name + ".log", "backend": backend, "cuda_graphs": graphs, "rep": rep}
    head = re.search(r"impes3d: (\d+) steps to t = (\S+) in (\S+) s on (.*)", text)
    run["steps"], run["days"], run["device"] = int(head.group(1)), float(head.group(2)), head.group(4)
    for key in STATS:
        run[key] = float(re.search(r"\n\s*" + key + r"\s+(\S+)", text).group(1))
    return deck, run


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
           "command": "tools/device/gpu.sh build run-graphs; tools/device/graphs_json.py", "decks": {}}
    for deck, runs in decks.items():
        cuda = [r for r in runs if r["backend"] == "cuda"]
        on = [r["wall_seconds_total"] for r in cuda if r["cuda_graphs"]]
        off = [r["wall_seconds_total"] for r in cuda if not r["cuda_graphs"]]
        ocl = [r["wall_seconds_total"] for r in runs if r["backend"] == "opencl"]
        same = all(r["newton_iterations_total"] == cuda[0]["newton_iterations_total"]
                   and r["linear_iterations_total"] == cuda[0]["linear_iterations_total"]
                   and abs(r["oil_produced_sm3"] - cuda[0]["oil_produced_sm3"]) <= 1e-12 * abs(cuda[0]["oil_produced_sm3"])
                   for r in cuda)
        replays = all((r["linear_iterations_replayed"] > 0) == r["cuda_graphs"] for r in cuda)
        d = {"runs": runs, "verified": same and replays,
             "verified_what": "cuda runs with and without the graphs: equal Newton and linear iterations, oil produced "
                              "within 1e-12; iterations replayed exactly when the graphs were on"}
        if on and off:
            d["cuda_graphs_median_s"] = statistics.median(on)
            d["cuda_no_graphs_median_s"] = statistics.median(off)
            d["speedup_of_graphs"] = d["cuda_no_graphs_median_s"] / d["cuda_graphs_median_s"]
        if ocl and on:
            d["opencl_s"] = statistics.median(ocl)
            d["opencl_over_cuda_graphs"] = d["opencl_s"] / d["cuda_graphs_median_s"]
            d["opencl_over_cuda_no_graphs"] = d["opencl_s"] / statistics.median(off) if off else None
        if deck in flow:
            d["opm_flow"] = flow[deck]
            if on:
                d["speedup_over_opm_flow"] = flow[deck]["total_s"] / d["cuda_graphs_median_s"]
        out["decks"][deck] = d
    json.dump(out, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
