#!/usr/bin/env python3
"""spe10_100d.json from this folder's call/: poreflow's statistics.json and timings, OPM Flow's log.
Run here: python3 make_json.py > spe10_100d.json"""
import json
import re

c = "call"
st = json.load(open(f"{c}/deck-runs/SPE10_100_omp/statistics.json"))
tim = json.load(open(f"{c}/deck_timings.json"))
timf = json.load(open(f"{c}/deck_timings_flow.json"))
log = open(f"{c}/logs/deck_SPE10_100_flow.log").read()


def num(pat):
    return float(re.search(pat, log).group(1))


keep = ("wall_seconds_total", "seconds_linear", "seconds_assemble", "seconds_preconditioner_refresh",
        "newton_iterations_total", "linear_iterations_total", "retried_steps", "oil_produced_sm3",
        "mass_balance_oil_rel", "mass_balance_water_rel")
out = {
    "device": "NVIDIA H200 (nvidia-h200), host: Intel(R) Xeon(R) Processor, 16 cores, 1 NUMA node",
    "date": "2026-12-03", "commit": "823fe37",
    "deck": "validation/decks/SPE10.DATA with TSTEP 2*50 (its first 100 days), made by the call",
    "poreflow_omp": {"process_wall_s": tim["SPE10_100_omp"]["wall_s"], "threads": tim["SPE10_100_omp"]["threads"],
                     "steps": st["steps"], "time_days": st["time"],
                     **{k: st["statistics"][k] for k in keep},
                     "verified": st["time"] == 100.0 and abs(st["statistics"]["mass_balance_oil_rel"]) < 1e-4
                     and abs(st["statistics"]["mass_balance_water_rel"]) < 1e-4},
    "opm_flow": {"command": "orterun -np 16 --bind-to none flow DECK --linear-solver=cpr --threads-per-process=1 "
                            "--linear-solver-max-iter=1000",
                 "version": "2022.10 (Debian libopm-simulators-bin)",
                 "process_wall_s": timf["SPE10_100_flow"]["wall_s"], "ranks": 16,
                 "finished": "End of simulation" in log,
                 "total_time_s": num(r"Total time \(seconds\):\s*([\d.]+)"),
                 "linear_solve_s": num(r"Linear solve time \(seconds\):\s*([\d.]+)"),
                 "newton_iterations": num(r"Overall Newton Iterations:\s*(\d+)"),
                 "linear_iterations": num(r"Overall Linear Iterations:\s*(\d+)")},
}
out["speedup_process_wall"] = round(out["opm_flow"]["process_wall_s"] / out["poreflow_omp"]["process_wall_s"], 3)
out["speedup_simulator_time"] = round(out["opm_flow"]["total_time_s"] / st["statistics"]["wall_seconds_total"], 3)
print(json.dumps(out, indent=2))
