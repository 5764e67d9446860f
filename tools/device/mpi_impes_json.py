#!/usr/bin/env python3
"""The JSON of gpu.sh's mpi-impes stage, read from its logs (one `poreflow run` per log).

usage: mpi_impes_json.py DEVICE COMMIT DATE LOG... > runs.json

A run records what `poreflow run` printed: the grid, the pressure solver, the decomposition,
the steps, the pressure iterations, the seconds of the steps (wall_seconds: the time loop's
compute, setup excluded) and of the pressure solves. Pairs named NAME_np1 / NAME_np2 give the
scaling: a strong pair solves one grid, a weak pair (w*) a grid per GPU, and its efficiency is
reported per pressure iteration and per step (the grids differ, so their steps' iterations do).
"""
import json
import os
import re
import sys

from mpi_logs import impes3d_run, mpi_tests_verified, read_runs


def parse(path):
    text = open(path).read()
    run = impes3d_run(text, {"log": path.split("/")[-1]})
    run["solver"] = re.search(r"scheme IMPES, (?:pressure by )?(.+?), to a", text).group(1)
    for key in ("sor_iterations_total", "seconds_pressure", "wall_seconds_total", "mass_balance_oil_rel",
                "mass_balance_water_rel"):  # (sor_*: every pressure solver)
        run[key] = float(re.search(key + r"\s+(\S+)", text).group(1))
    m = re.search(r"seconds_preconditioner_update\s+(\S+)", text)
    if m:
        run["seconds_preconditioner_update"] = float(m.group(1))
    run["pressure_iterations_total"] = run.pop("sor_iterations_total")
    run["ms_per_pressure_iteration"] = 1e3 * run["seconds_pressure"] / run["pressure_iterations_total"]
    run["seconds_per_step"] = run["seconds"] / run["steps"]
    return run


def main():
    device, commit, date = sys.argv[1:4]
    runs = read_runs("impes", sys.argv[4:], parse)
    scaling = []
    for name, one in runs.items():
        if not name.endswith("_np1"):
            continue
        base = name[:-4]
        for other, two in runs.items():
            if not other.startswith(base + "_np") or other == name:
                continue
            s = {"pair": [name, other], "processes": two["processes"]}
            if base.startswith("w"):  # weak: the same cells per GPU
                s["kind"] = "weak"
                s["efficiency_per_iteration"] = one["ms_per_pressure_iteration"] / two["ms_per_pressure_iteration"]
                s["efficiency_per_step"] = one["seconds_per_step"] / two["seconds_per_step"]
            else:
                s["kind"] = "strong"
                s["speedup"] = one["seconds"] / two["seconds"]
                s["efficiency"] = s["speedup"] / two["processes"]
            scaling.append(s)
    json.dump({"device": device, "commit": commit, "date": date,
               "what": "impes3d case 1 (cases/impes_case1.toml, its cell sizes) cut between the GPUs of `device` through MPI, "
                       "the pressure solver each run's `solver` names, --no-output; gpu.sh mpi-impes (tools/device/gpu.sh)",
               "verified": mpi_tests_verified(os.path.dirname(sys.argv[4]), "Each run here: its mass balance of each phase "
                                              "(mass_balance_*_rel); the pressure solves' iterations equal on 1, 2 and 4 "
                                              "GPUs for one grid."),
               "runs": runs, "scaling": scaling}, sys.stdout, indent=1)
    print()


main()
