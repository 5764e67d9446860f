#!/usr/bin/env python3
"""Makes cl_arena.json from logs/launch_svm.log (tools/device/experiments/launch_svm_cl.cpp, run twice),
logs/hl_*.log (the decks, tools/device/experiments/host_launch_compare.sh through arena_compare.sh) and
logs/linalg_*.json (bench linalg's SPE10-like systems).
    python3 make_json.py"""
import glob, json, os, re, statistics

here = os.path.dirname(os.path.abspath(__file__))
svm = [dict(zip(("pass", "variant", "enqueue_us", "drained_us"), (int(m[0]), m[1], float(m[2]), float(m[3]))))
       for m in re.findall(r"pass (\d) (\w+)\s+enqueue (\S+) us, drained (\S+) us",
                           open(os.path.join(here, "logs", "launch_svm.log")).read())]
runs = []
for f in sorted(glob.glob(os.path.join(here, "logs", "hl_*.log"))):
    deck, variant, backend, rep = re.match(r"hl_([A-Z0-9]+)_(old|new)_(cuda|opencl)_(\d+)\.log", os.path.basename(f)).groups()
    t = open(f).read()
    stat = lambda k: float(re.search(rf"^\s+{k}\s+(\S+)", t, re.M).group(1))
    runs.append({"deck": deck, "variant": variant, "backend": backend, "repetition": int(rep),
                 "steps_seconds": float(re.search(r"steps to t = \S+ in (\S+) s", t).group(1)),
                 "newton_iterations": int(stat("newton_iterations_total")),
                 "linear_iterations": int(stat("linear_iterations_total")),
                 "linear_iterations_enqueued": int(stat("linear_iterations_enqueued")),
                 "oil_produced_sm3": stat("oil_produced_sm3") if re.search(r"^\s+oil_produced_sm3", t, re.M) else None})
same = {}
for r in runs:
    same.setdefault((r["deck"], r["backend"]), set()).add((r["newton_iterations"], r["linear_iterations"], r["oil_produced_sm3"]))
means = {}
for deck in sorted({r["deck"] for r in runs}):
    for b in ("opencl", "cuda"):
        old = [r["steps_seconds"] for r in runs if (r["deck"], r["backend"], r["variant"]) == (deck, b, "old")]
        new = [r["steps_seconds"] for r in runs if (r["deck"], r["backend"], r["variant"]) == (deck, b, "new")]
        means[f"{deck} {b}"] = {"old_s": old, "new_s": new, "old_mean_s": statistics.mean(old),
                                "new_mean_s": statistics.mean(new), "new_over_old": statistics.mean(new) / statistics.mean(old)}
linalg = []
for f in sorted(glob.glob(os.path.join(here, "logs", "linalg_*.json"))):
    variant, rep = re.match(r"linalg_(old|new)_(\d)\.json", os.path.basename(f)).groups()
    for r in json.load(open(f))["rows"]:
        if r.get("part") == "system":
            linalg.append({"variant": variant, "pass": int(rep), "layout": r["layout"], "backend": r["backend"],
                           "variant_solver": r["variant"], "iterations": r["iterations"], "solve_s": r["solve_s"],
                           "verified": r["verified"]})
out = {"device": "NVIDIA H200 (nvidia-h200, 16-core host)", "date": "2026-12-03",
       "commit": "e3111f4 with tools/device/experiments/cl_arena.patch applied (committed in e8f9234)", "base": "e3111f4",
       "commands": ["tools/device/gpu.sh 'cmd:g++ ... launch_svm_cl.cpp ... && /tmp/launch_svm_cl NVIDIA && /tmp/launch_svm_cl NVIDIA'",
                    "BUILD_TARGETS=poreflow STAGE_TIMEOUT=420 tools/device/gpu.sh build build-old 'cmd:tools/device/experiments/arena_compare.sh'"],
       "launch_svm_us": svm,
       "decks_same_iterations_and_oil_every_run_of_a_backend": all(len(v) == 1 for v in same.values()),
       "decks": runs, "deck_means": means, "linalg": linalg}
json.dump(out, open(os.path.join(here, "cl_arena.json"), "w"), indent=1)
for k, v in means.items():
    print(f"{k:16s} old {v['old_mean_s']:.3f} s  new {v['new_mean_s']:.3f} s  new/old {v['new_over_old']:.3f}")
for r in linalg:
    print(r["variant"], r["pass"], r["layout"], r["backend"], r["variant_solver"], r["iterations"], f"{r['solve_s']*1e3:.1f} ms")
print("same iterations and oil:", out["decks_same_iterations_and_oil_every_run_of_a_backend"])
