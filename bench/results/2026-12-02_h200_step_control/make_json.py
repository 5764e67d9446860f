#!/usr/bin/env python3
"""step_control.json from callN/logs/sc_DECK_CONTROL.log (tools/device/experiments/step_control_compare.sh)
and compare/CONTROL/DECK.json (validation/compare.py --goals fim against validation/reference/DECK/default_steps).
  python3 make_json.py > step_control.json"""
import glob, json, os, re, sys

here = os.path.dirname(os.path.abspath(__file__))
runs = []
for call in ("call1", "call2", "call3"):
    for path in sorted(glob.glob(os.path.join(here, call, "logs", "sc_*_*.log"))):
        parts = os.path.basename(path)[3:-4].split("_")
        if parts[0] == "gen":
            continue
        # call1 and call2: sc_DECK_CONTROL on cuda; call3: sc_DECK_BACKEND_CONTROL
        deck, backend, control = (parts[0], "cuda", parts[1]) if len(parts) == 2 else parts
        text = open(path).read()
        m = re.search(r"(\d+) steps to t = \S+ in ([\d.]+) s on", text)
        stats = dict(re.findall(r"^  (\w+)\s+(\S+)$", text, re.M))
        runs.append({"call": call, "deck": deck, "backend": backend, "control": control, "steps": int(m.group(1)),
                     "steps_seconds": float(m.group(2)), "newton": int(stats["newton_iterations_total"]),
                     "linear": int(stats["linear_iterations_total"]), "retried_steps": int(stats["retried_steps"]),
                     "linear_solves_retried": int(stats.get("linear_solves_retried", 0)),
                     "pressure_amg_refreshes": int(stats["pressure_amg_refreshes"]),
                     "seconds_preconditioner_refresh": float(stats["seconds_preconditioner_refresh"]),
                     "oil_produced_sm3": float(stats["oil_produced_sm3"])})
against_opm = {}
for path in sorted(glob.glob(os.path.join(here, "compare", "*", "*.json"))):
    control = os.path.basename(os.path.dirname(path))  # changes, newton (call2; HETERO call1), call3_BACKEND
    r = json.load(open(path))
    bt = {w: v["bt"]["rel"] for w, v in r["wells"].items() if v.get("bt")}
    against_opm.setdefault(r["case"], {})[control] = {
        "fopt_rel": r["field"]["FOPT"]["rel"], "breakthrough_rel": bt, "pass_fim_goals": r["pass"], "fails": r["fails"]}
json.dump({"meta": {"device": "NVIDIA H200", "date": "2026-12-02",
                    "commit": "2034d0a (call1), f0a0521 (call2: the same code, the script packing the summaries), a486971 (call3: "
                              "the Newton rule the default and a failed linear solve retried with a fresh AMG, 19f8423); "
                              "time.control set on the command line in each",
                    "command": "[DECKS=...] BUILD_TARGETS=poreflow STAGE_TIMEOUT=540 tools/device/gpu.sh build "
                               "cmd:tools/device/experiments/step_control_compare.sh (carry .devkit)",
                    "compare": "validation/compare.py --case DECK validation/reference/DECK/default_steps deck-runs/DECK_cuda_CONTROL (call3/deck-runs/DECK_BACKEND_newton) --goals fim"},
           "runs": runs, "against_opm_flow_default_steps": against_opm}, sys.stdout, indent=1)
