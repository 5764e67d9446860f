#!/usr/bin/env python3
"""The JSON of tools/device/batch_runs.sh's logs: per deck and linear.batch, every run's time and
iterations, the median time, and whether every run of the deck took the same Newton and linear
iterations and produced the same oil (the batch changes when the host reads, not the arithmetic).

usage: batch_json.py DEVICE COMMIT DATE LOG... > batch.json
"""
import json
import re
import statistics
import sys

STATS = ("wall_seconds_total", "seconds_linear", "newton_iterations_total", "linear_iterations_total",
         "linear_iterations_replayed", "oil_produced_sm3")


def main():
    device, commit, date = sys.argv[1:4]
    decks = {}
    for path in sys.argv[4:]:
        name = path.split("/")[-1][: -len(".log")]
        m = re.fullmatch(r"batch_(\w+?)_(\d+)_(\d+)", name)
        text = open(path).read()
        run = {"log": name + ".log", "batch": int(m.group(2)), "rep": int(m.group(3))}
        for key in STATS:
            run[key] = float(re.search(r"\n\s*" + key + r"\s+(\S+)", text).group(1))
        decks.setdefault(m.group(1), []).append(run)
    out = {"device": device, "commit": commit, "date": date,
           "command": "tools/device/gpu.sh build \"cmd:tools/device/batch_runs.sh\"; tools/device/batch_json.py",
           "what": "fully implicit decks on cuda with CUDA Graphs, linear.batch varied, runs alternating", "decks": {}}
    for deck, runs in decks.items():
        first = runs[0]
        same = all(r["newton_iterations_total"] == first["newton_iterations_total"]
                   and r["linear_iterations_total"] == first["linear_iterations_total"]
                   and abs(r["oil_produced_sm3"] - first["oil_produced_sm3"]) <= 1e-12 * abs(first["oil_produced_sm3"])
                   for r in runs)
        med = {}
        for b in sorted({r["batch"] for r in runs}):
            med[str(b)] = statistics.median(r["wall_seconds_total"] for r in runs if r["batch"] == b)
        out["decks"][deck] = {"runs": runs, "median_s_by_batch": med, "verified": same,
                              "verified_what": "every run: equal Newton and linear iterations, oil produced within 1e-12"}
    json.dump(out, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
