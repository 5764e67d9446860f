#!/usr/bin/env python3
"""Makes batches.json from logs/hl_*.log (tools/device/experiments/host_launch_compare.sh) and
logs/launch_bufs.log (tools/device/experiments/launch_bufs_cl.cpp).
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
    for v in ("old", "new_b2", "new"):
        cl = summary[f"{deck} opencl {v}"]
        cu = summary[f"{deck} cuda {v}"]
        ratios[f"{deck} {v}"] = {"opencl_mean_s": statistics.mean(cl), "cuda_mean_s": statistics.mean(cu),
                                 "opencl_over_cuda": statistics.mean(cl) / statistics.mean(cu)}
bufs = [dict(zip(("pass", "kernel", "buffers", "buffers_change", "enqueue_us"),
                 (int(m[0]), m[1], int(m[2]), m[3] == "16 sets in turn", float(m[4]))))
        for m in re.findall(r"pass (\d) (\w+)\s+(\d) buffers, (the same set|16 sets in turn): enqueue (\S+) us",
                            open(os.path.join(here, "logs", "launch_bufs.log")).read())]
out = {"device": "NVIDIA H200 (nvidia-h200, 16-core host)", "date": "2026-12-02", "commit": "c1cce06", "base": "4352704",
       "command": "BUILD_TARGETS=poreflow tools/device/gpu.sh build build-old 'cmd:...launch_bufs_cl NVIDIA' "
                  "'cmd:tools/device/experiments/host_launch_compare.sh'",
       "variants": {"old": "4352704 (linear.batch 2: the guess + 1, then 2, 4, ...)",
                    "new": "c1cce06, linear.batch 0 (OpenCL: 3/4 of the guess + 1, then one iteration a read; cuda as before)",
                    "new_b2": "c1cce06 with --set linear.batch=2 (the launch path's lookups alone)"},
       "runs": runs, "means": ratios, "launch_buffers": bufs}
json.dump(out, open(os.path.join(here, "batches.json"), "w"), indent=1)
for k, v in ratios.items():
    print(f"{k:20s} opencl {v['opencl_mean_s']:.3f} s  cuda {v['cuda_mean_s']:.3f} s  ratio {v['opencl_over_cuda']:.2f}")
