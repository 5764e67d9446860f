#!/usr/bin/env python3
"""The JSON of gpu.sh's mpi-fim stage, read from its logs (one `poreflow run` of a tiled SPE10 deck per log).

usage: mpi_fim_json.py DEVICE COMMIT DATE LOG... > runs.json

A log fim_tT_npP.log is the SPE10-shaped deck tiled T times along y (tools/device/spe10_scaled.py) on
P processes, a GPU each, with the fully implicit scheme. A run records what `poreflow run` printed:
the grid, the cut, the steps, Newton and linear iterations, the cuts and their causes, and the
seconds of the time loop (setup and the deck's reading excluded) and of its parts. tT_npT against
t1_np1 is a weak pair (a tile a GPU), t1_npP against t1_np1 a strong pair. The efficiencies are
given per run, per Newton iteration and per linear iteration: the runs do not take the same
iterations (the pressure AMG and ILU0 work per process, block Jacobi across the cuts, and the
tiles meet at their faces), so only the run's ratio is the user's.
"""
import json
import os
import re
import sys

from mpi_logs import impes3d_run, mpi_tests_verified, read_runs

STATS = ("newton_iterations_total", "linear_iterations_total", "retried_steps", "cuts_linear_solve_failed",
         "cuts_newton_not_converged", "cuts_non_finite", "pressure_amg_refreshes", "seconds_assemble",
         "seconds_linear", "seconds_preconditioner_refresh", "wall_seconds_total", "mass_balance_oil_rel",
         "mass_balance_water_rel", "oil_produced_sm3")


def parse(path):
    text = open(path).read()
    run = impes3d_run(text, {"log": path.split("/")[-1]})
    run["wells"] = int(re.search(r"impes3d: .* cells .*?, (\d+) wells", text).group(1))
    assert "scheme fully implicit" in text, path
    for key in STATS:
        run[key] = float(re.search(key + r"\s+(\S+)", text).group(1))
    run["ms_per_newton_iteration"] = 1e3 * run["seconds"] / run["newton_iterations_total"]
    run["ms_per_linear_iteration"] = 1e3 * run["seconds_linear"] / run["linear_iterations_total"]
    return run


def main():
    device, commit, date = sys.argv[1:4]
    runs = read_runs("fim", sys.argv[4:], parse)
    one = runs["t1_np1"]
    scaling = []
    for name, run in runs.items():
        tiles, procs = run["grid"][1] // one["grid"][1], run["processes"]  # tiles along y, from the grids
        if procs == 1:
            continue
        s = {"pair": ["t1_np1", name], "processes": procs}
        if tiles == procs:  # weak: a tile a GPU
            s["kind"] = "weak"
            s["efficiency"] = one["seconds"] / run["seconds"]
        elif tiles == 1:
            s["kind"] = "strong"
            s["speedup"] = one["seconds"] / run["seconds"]
            s["efficiency"] = s["speedup"] / procs
        else:
            continue
        # per iteration: the work a GPU does for one Newton or linear iteration, its cells held equal
        cells = one["cells_per_process"] / run["cells_per_process"]
        s["efficiency_per_newton_iteration"] = one["ms_per_newton_iteration"] / run["ms_per_newton_iteration"] / cells
        s["efficiency_per_linear_iteration"] = one["ms_per_linear_iteration"] / run["ms_per_linear_iteration"] / cells
        s["newton_iterations"] = [one["newton_iterations_total"], run["newton_iterations_total"]]
        s["linear_iterations"] = [one["linear_iterations_total"], run["linear_iterations_total"]]
        # the same problem's answer: oil produced per tile against one GPU's (time steps differ with the cuts)
        s["oil_produced_per_tile_rel_diff"] = abs(run["oil_produced_sm3"] / tiles / one["oil_produced_sm3"] - 1)
        scaling.append(s)
    json.dump({"device": device, "commit": commit, "date": date,
               "what": "validation/decks/SPE10.DATA tiled T times along y (tools/device/spe10_scaled.py, a five-spot a "
                       "tile), its first days, the fully implicit scheme at the deck's defaults, cut between the GPUs "
                       "of `device` through MPI (a process a GPU), cuda, double; gpu.sh mpi-fim (tools/device/gpu.sh). "
                       "seconds: the time loop's",
               "verified": mpi_tests_verified(os.path.dirname(sys.argv[4]), "Each run here: its mass balance of each phase "
                                              "(mass_balance_*_rel) and its oil produced against one GPU's per tile "
                                              "(scaling's oil_produced_per_tile_rel_diff)."),
               "runs": runs, "scaling": scaling}, sys.stdout, indent=1)
    print()


main()
