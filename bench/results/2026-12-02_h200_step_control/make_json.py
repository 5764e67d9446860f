#!/usr/bin/env python3
"""step_control.json from callN/logs/sc_DECK_CONTROL.log (tools/device/experiments/step_control_compare.sh)
and compare/CONTROL/DECK.json (validation/compare.py --goals fim against validation/reference/DECK/default_steps).
  python3 make_json.py > step_control.json"""
import glob, json, os, re, sys

here = os.path.dirname(os.path.abspath(__file__))
runs = []
for call in ("call1", "call2"):
    for path in sorted(glob.glob(os.path.join(here, call, "logs", "sc_*_*.log"))):
        deck, control = os.path.basename(path)[3:-4].split("_")
        if deck == "gen":
            continue
        text = open(path).read()
        m = re.search(r"(\d+) steps to t = \S+ in ([\d.]+) s on", text)
        stats = dict(re.findall(r"^  (\w+)\s+(\S+)$", text, re.M))
        runs.append({"call": call, "deck": deck, "control": control, "steps": int(m.group(1)), "steps_seconds": float(m.group(2)),
                     "newton": int(stats["newton_iterations_total"]), "linear": int(stats["linear_iterations_total"]),
                     "retried_steps": int(stats["retried_steps"]), "oil_produced_sm3": float(stats["oil_produced_sm3"])})
against_opm = {}
for path in sorted(glob.glob(os.path.join(here, "compare", "*", "*.json"))):
    control = os.path.basename(os.path.dirname(path))
    r = json.load(open(path))
    bt = {w: v["bt"]["rel"] for w, v in r["wells"].items() if v.get("bt")}
    against_opm.setdefault(r["case"], {})[control] = {
        "fopt_rel": r["field"]["FOPT"]["rel"], "breakthrough_rel": bt, "pass_fim_goals": r["pass"], "fails": r["fails"]}
json.dump({"meta": {"device": "NVIDIA H200", "date": "2026-12-02",
                    "commit": "2034d0a (call1), f0a0521 (call2: the same code, the script packing the summaries); time.control set on the command line in both",
                    "command": "[DECKS=...] BUILD_TARGETS=poreflow STAGE_TIMEOUT=540 tools/device/gpu.sh build "
                               "cmd:tools/device/experiments/step_control_compare.sh (carry .devkit)",
                    "compare": "validation/compare.py --case DECK validation/reference/DECK/default_steps deck-runs/DECK_cuda_CONTROL --goals fim"},
           "runs": runs, "against_opm_flow_default_steps": against_opm}, sys.stdout, indent=1)
