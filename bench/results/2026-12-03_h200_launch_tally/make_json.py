#!/usr/bin/env python3
"""Makes launch_tally.json from the logs here: the decks with the run's launch tally, this build
("base", 2ceb6dc) and it with tools/device/experiments/cl_arena.patch ("arena"), on NVIDIA's OpenCL
(logs/tc_*.log, tally_compare.sh); HETERO pinned and unpinned (logs/pin_*.log, pin_compare.sh, whose output is logs/pinning_compare.log);
the enqueue with kernels in turn (logs/launch_switch.log, launch_switch_cl.cpp).
    python3 make_json.py"""
import glob, json, os, re, statistics

here = os.path.dirname(os.path.abspath(__file__))


def run(f):
    t = open(f).read()
    stat = lambda k: float(m.group(1)) if (m := re.search(rf"^\s+{k}\s+(\S+)", t, re.M)) else None
    r = {"steps_seconds": float(re.search(r"steps to t = \S+ in (\S+) s", t).group(1)),
         "newton_iterations": stat("newton_iterations_total"), "linear_iterations": stat("linear_iterations_total"),
         "oil_produced_sm3": stat("oil_produced_sm3"), "opencl_launches": stat("opencl_launches"),
         "seconds_opencl_enqueue": stat("seconds_opencl_enqueue"), "seconds_opencl_wait": stat("seconds_opencl_wait")}
    if r["opencl_launches"]:
        r["enqueue_us_a_launch"] = 1e6 * r["seconds_opencl_enqueue"] / r["opencl_launches"]
        r["enqueue_share_of_steps"] = r["seconds_opencl_enqueue"] / r["steps_seconds"]
        r["wait_share_of_steps"] = r["seconds_opencl_wait"] / r["steps_seconds"]
    return r


decks = []
for f in sorted(glob.glob(os.path.join(here, "logs", "tc_*.log"))):
    deck, variant, backend, rep = re.match(r"tc_([A-Z0-9]+)_(base|arena)_(cuda|opencl)_(\d+)\.log", os.path.basename(f)).groups()
    decks.append({"deck": deck, "variant": variant, "backend": backend, "repetition": int(rep), **run(f)})
same = {}
for r in decks:
    same.setdefault((r["deck"], r["backend"]), set()).add((r["newton_iterations"], r["linear_iterations"], r["oil_produced_sm3"]))
means = {}
for deck in sorted({r["deck"] for r in decks}):
    for v in ("base", "arena"):
        rs = [r for r in decks if (r["deck"], r["variant"], r["backend"]) == (deck, v, "opencl")]
        means[f"{deck} opencl {v}"] = {k: statistics.mean(r[k] for r in rs) for k in
                                       ("steps_seconds", "seconds_opencl_enqueue", "seconds_opencl_wait", "enqueue_us_a_launch")}
    cu = [r["steps_seconds"] for r in decks if (r["deck"], r["backend"]) == (deck, "cuda")]
    means[f"{deck} cuda base"] = {"steps_seconds": statistics.mean(cu)}
pins = []
for f in sorted(glob.glob(os.path.join(here, "logs", "pin_*.log"))):
    v, rep = re.match(r"pin_(none|one|four)_(\d)\.log", os.path.basename(f)).groups()
    pins.append({"pinning": {"none": "none", "one": "taskset -c 2", "four": "taskset -c 2-5"}[v], "repetition": int(rep), **run(f)})
switch = [{"pass": int(m[0]), "kernels_in_turn": int(m[1]), "enqueue_us": float(m[2]), "drained_us": float(m[3])}
          for m in re.findall(r"pass (\d), +(\d+) kernels in turn: enqueue (\S+) us, drained (\S+) us",
                              open(os.path.join(here, "logs", "launch_switch.log")).read())]
out = {"device": "NVIDIA H200 (nvidia-h200, 16-core host, one NUMA node)", "date": "2026-12-03",
       "commit": "2ceb6dc (base); arena: 2ceb6dc with tools/device/experiments/cl_arena.patch; pinning and kernels in turn: c359710",
       "commands": ["BUILD_TARGETS=poreflow STAGE_TIMEOUT=400 tools/device/gpu.sh build build-old 'cmd:tools/device/experiments/tally_compare.sh'",
                    "BUILD_TARGETS=poreflow STAGE_TIMEOUT=300 tools/device/gpu.sh build 'cmd:g++ ... launch_switch_cl.cpp ... && /tmp/launch_switch_cl NVIDIA' 'cmd:tools/device/experiments/pin_compare.sh'"],
       "decks_same_iterations_and_oil_every_run_of_a_backend": all(len(v) == 1 for v in same.values()),
       "decks": decks, "deck_means": means, "pinning": pins, "kernels_in_turn": switch}
json.dump(out, open(os.path.join(here, "launch_tally.json"), "w"), indent=1)
for k, v in means.items():
    print(k, {a: round(b, 3) for a, b in v.items()})
for p in pins:
    print(p["pinning"], p["repetition"], p["steps_seconds"], round(p["enqueue_us_a_launch"], 2), round(p["enqueue_share_of_steps"], 3))
print("same:", out["decks_same_iterations_and_oil_every_run_of_a_backend"])
