#!/usr/bin/env python3
"""The rows of two builds' benches side by side (gpu.sh bench-compare): for every kind, each row of
the new build against the same row of the old one (bench, backend, variant, size, batch, layout),
the medians of both passes of each, and the ratio new/old. Prints a table per kind and the worst
ratio; writes OUT/compare.json.

    compare_benches.py OUT
"""
import glob
import json
import os
import statistics
import sys


def rows(path):
    with open(path) as f:
        data = json.load(f)
    out = {}
    for r in data.get("rows", []):
        key = (r.get("backend"), r.get("variant"), r.get("combine"), r.get("size"), r.get("batch"), r.get("layout"))
        t = r.get("median_s", r.get("median"))
        if t is None and isinstance(r.get("t"), dict):
            t = r["t"].get("median")
        if t is not None:
            out[key] = t
    return data, out


def main():
    out = sys.argv[1]
    kinds = sorted({os.path.basename(p).split("_")[1] for p in glob.glob(os.path.join(out, "cmp_*_new_*.json"))})
    summary = {}
    for k in kinds:
        times = {"old": {}, "new": {}}
        for which in times:
            for p in sorted(glob.glob(os.path.join(out, "cmp_%s_%s_*.json" % (k, which)))):
                _, rs = rows(p)
                for key, t in rs.items():
                    times[which].setdefault(key, []).append(t)
        print("== %s: new / old of the median over both passes (backend variant combine size batch layout)" % k)
        ratios = []
        for key in sorted(times["new"], key=str):
            if key not in times["old"] or key[0] not in ("cuda", "opencl"):
                continue
            o, n = statistics.median(times["old"][key]), statistics.median(times["new"][key])
            if o <= 0:
                continue
            ratios.append((n / o, tuple(str(x) for x in key), o, n))
            print("  %-60s old %.6g  new %.6g  new/old %.3f" % (" ".join(str(x) for x in key), o, n, n / o))
        if ratios:
            worst = max(ratios, key=lambda r: r[0])
            med = statistics.median(r[0] for r in ratios)
            print("  %s: %d rows, median new/old %.3f, worst %.3f (%s)" % (k, len(ratios), med, worst[0], " ".join(str(x) for x in worst[1])))
            summary[k] = {"rows": len(ratios), "median_ratio": med, "worst_ratio": worst[0], "worst_row": [str(x) for x in worst[1]],
                          "rows_detail": [{"key": [str(x) for x in r[1]], "old_s": r[2], "new_s": r[3], "ratio": r[0]} for r in ratios]}
    with open(os.path.join(out, "compare.json"), "w") as f:
        json.dump(summary, f, indent=1)


if __name__ == "__main__":
    main()
