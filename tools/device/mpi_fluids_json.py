#!/usr/bin/env python3
"""The JSON of gpu.sh's mpi-fluids stage, read from its logs (one `poreflow run` per log).

usage: mpi_fluids_json.py DEVICE COMMIT DATE LOG... > runs.json

A run records what `poreflow run` printed: the grid, dt, the solves' tolerance and sweep limit,
the slabs, the steps and their seconds (the time loop's compute, setup excluded), the sweeps a
solve took in the last step, and the exchanges and megabytes this process sent. Pairs name the
scaling in the stage's FLUIDS_RUNS: w1_N / wP_M a weak pair (a grid per GPU: N^3 and M^3 ~ P N^3
cells on P GPUs), sP_N against w1_N a strong pair (one grid). Both pairs run tolerance 0, so every solve
takes its sweep limit and the two runs do the same sweeps a cell. d1_N / d2_N: a strong pair at
the case's own tolerance (the same sweeps on one and two GPUs: the decomposed solve is one
process's).
"""
import json
import os
import re
import sys

from mpi_logs import mpi_tests_verified, read_runs


def parse(path):
    text = open(path).read()
    run = {"log": path.split("/")[-1]}
    m = re.search(r"fluids3d: (\d+)\^3 cells, dt (\S+), (\d+) steps, .*lin_solve: tolerance (\S+), at most (\d+) sweeps", text)
    run["n"], run["dt"], run["tolerance"], run["max_sweeps"] = int(m.group(1)), float(m.group(2)), float(m.group(4)), int(m.group(5))
    run["cells"] = run["n"] ** 3
    d = re.search(r"cut into (\d+) slabs along z \(layers (\d+) \.\. (\d+) here\), each keeping (\d+)", text)
    run["processes"] = int(d.group(1)) if d else 1
    if d:
        run["slab_of_process_0"] = [int(d.group(2)), int(d.group(3))]
        run["trace_layers"] = int(d.group(4))
    m = re.search(r"fluids3d: (\d+) steps to t = (\S+) in (\S+) s on (\w+) \((.*)\)", text)
    run["steps"], run["seconds"] = int(m.group(1)), float(m.group(3))
    run["backend"], run["device"] = m.group(4), m.group(5)
    for key in ("sweeps_per_solve_last_step", "exchanges", "exchanged_mb"):
        m = re.search(key + r"\s+(\S+)", text)
        if m:
            run[key] = float(m.group(1))
    run["ms_per_step"] = 1e3 * run["seconds"] / run["steps"]
    run["cells_per_process"] = run["cells"] / run["processes"]
    run["ns_per_cell_step"] = 1e9 * run["seconds"] / run["steps"] / run["cells_per_process"]
    return run


def main():
    device, commit, date = sys.argv[1:4]
    runs = read_runs("fluids", sys.argv[4:], parse)
    scaling = []
    for name, one in runs.items():
        if name.startswith("d1_") and "d2_" + name[3:] in runs:  # strong, at the case's tolerance
            two = runs["d2_" + name[3:]]
            s = one["seconds"] / two["seconds"]
            scaling.append({"pair": [name, "d2_" + name[3:]], "kind": "strong, case tolerance", "processes": two["processes"],
                            "speedup": s, "efficiency": s / two["processes"]})
        if not name.startswith("w1_"):
            continue
        for other, two in runs.items():
            if re.match(r"w([2-9]|\d\d+)_", other):  # weak (wP_M: P GPUs): time a cell-step on each GPU
                scaling.append({"pair": [name, other], "kind": "weak", "processes": two["processes"],
                                "efficiency": one["ns_per_cell_step"] / two["ns_per_cell_step"]})
            if re.fullmatch(r"s\d+_" + name[3:], other):  # strong (sP_N: P GPUs, w1_N's grid)
                s = one["seconds"] / two["seconds"]
                scaling.append({"pair": [name, other], "kind": "strong", "processes": two["processes"], "speedup": s,
                                "efficiency": s / two["processes"]})
    json.dump({"device": device, "commit": commit, "date": date,
               "verified": mpi_tests_verified(os.path.dirname(sys.argv[4]), "Each run here: its steps ended (fluids3d's "
                                               "decomposed runs are checked against one process's by those tests)."),
               "what": "fluids3d (cases/fluids3d.toml's sources at the centre, float) cut into slabs along z between the GPUs of `device` "
                       "through MPI, --no-output; gpu.sh mpi-fluids (tools/device/gpu.sh)",
               "runs": runs, "scaling": scaling}, sys.stdout, indent=1)
    print()


main()
