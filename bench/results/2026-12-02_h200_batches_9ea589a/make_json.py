#!/usr/bin/env python3
"""Makes batches.json from logs/hl_*.log (tools/device/experiments/host_launch_compare.sh) and
logs/deck_SPE10_*.log with deck_timings.json (gpu.sh run-decks).
    python3 make_json.py"""
import glob, json, os, re, statistics

here = os.path.dirname(os.path.abspath(__file__))
runs = []
for f in sorted(glob.glob(os.path.join(here, "logs", "hl_*.log"))):
    deck, variant, backend, rep = re.match(r"hl_([A-Z0-9]+)_(old|new_b2|new)_(cuda|opencl)_(\d+)\.log", os.path.basename(f)).groups()
    t = open(f).read()
    stat = lambda k: float(re.search(rf"^\s+{k}\s+(\S+)", t, re.M).group(1))
    runs.append({"deck": deck, "variant": variant, "backend": backend, "repetition": int(rep),
                 "steps_seconds": float(re.search(r"steps to t = \S+ in (\S+) s", t).group(1)),
                 "newton_iterations": int(stat("newton_iterations_total")),
                 "linear_iterations": int(stat("linear_iterations_total")),
                 "linear_iterations_enqueued": int(stat("linear_iterations_enqueued")),
                 "wall_seconds_total": stat("wall_seconds_total")})
summary = {}
for r in runs:
    summary.setdefault(f"{r['deck']} {r['backend']} {r['variant']}", []).append(r["steps_seconds"])
ratios = {}
for deck in sorted({r["deck"] for r in runs}):
    for v in ("old", "new"):
        cl = summary[f"{deck} opencl {v}"]
        cu = summary[f"{deck} cuda {v}"]
        ratios[f"{deck} {v}"] = {"opencl_mean_s": statistics.mean(cl), "cuda_mean_s": statistics.mean(cu),
                                 "opencl_over_cuda": statistics.mean(cl) / statistics.mean(cu)}
spe10 = {}
for b in ("cuda", "opencl"):
    t = open(os.path.join(here, "logs", f"deck_SPE10_{b}.log")).read()
    stat = lambda k: float(re.search(rf"^\s+{k}\s+(\S+)", t, re.M).group(1))
    spe10[b] = {"steps_seconds": float(re.search(r"steps to t = \S+ in (\S+) s", t).group(1)),
                "process_wall_s": json.load(open(os.path.join(here, "deck_timings.json")))[f"SPE10_{b}"]["wall_s"],
                "newton_iterations": int(stat("newton_iterations_total")), "linear_iterations": int(stat("linear_iterations_total")),
                "linear_iterations_enqueued": int(stat("linear_iterations_enqueued")), "oil_produced_sm3": stat("oil_produced_sm3")}
out = {"device": "NVIDIA H200 (nvidia-h200, 16-core host)", "date": "2026-12-02", "commit": "9ea589a", "base": "4352704",
       "command": "DECKS=validation/decks/SPE10.DATA DECK_BACKENDS='cuda opencl' BUILD_TARGETS=poreflow tools/device/gpu.sh build "
                  "build-old 'cmd:DECKS=... VARIANTS=\\'old new\\' REPS=2 tools/device/experiments/host_launch_compare.sh' run-decks; "
                  "then TEST_PARALLEL=1 tools/device/gpu.sh build test",
       "variants": {"old": "4352704 (linear.batch 2: the guess + 1, then 2, 4, ...)",
                    "new": "9ea589a, linear.batch 0 (OpenCL: 3/4 of the guess + 1, then one iteration a read; cuda as before)"},
       "runs": runs, "means": ratios, "spe10_2000d": spe10,
       "suite": {"cuda": "263 of 263 test cases", "opencl_nvidia": "263 of 263 test cases"}}
json.dump(out, open(os.path.join(here, "batches.json"), "w"), indent=1)
for k, v in ratios.items():
    print(f"{k:20s} opencl {v['opencl_mean_s']:.3f} s  cuda {v['cuda_mean_s']:.3f} s  ratio {v['opencl_over_cuda']:.2f}")
