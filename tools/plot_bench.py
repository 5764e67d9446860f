#!/usr/bin/env python3
"""Draw poreflow benchmark JSON (poreflow bench ... --json FILE) like paper 000's figures 5-6:
time and speedup against serial over the problem size, one line per backend and variant.

usage: tools/plot_bench.py bench/results/FILE.json [--out FILE.png]
Needs matplotlib (Debian: python3-matplotlib).
"""
import argparse
import json
import sys
from collections import defaultdict


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("json")
    ap.add_argument("--out", help="PNG file (default: the JSON name with .png)")
    args = ap.parse_args()
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("plot_bench.py needs matplotlib: apt-get install python3-matplotlib")

    with open(args.json) as f:
        data = json.load(f)
    rows = data["rows"]
    lines = defaultdict(list)
    for r in rows:
        label = r["backend"] if r["variant"] in ("serial",) else f'{r["backend"]} {r["variant"]}'
        if r.get("combine") not in (None, "-", "atomic"):
            label += f' ({r["combine"]})'
        lines[label].append(r)

    fig, (ax_t, ax_s, ax_b) = plt.subplots(1, 3, figsize=(18, 6))
    for label, rs in sorted(lines.items()):
        rs.sort(key=lambda r: r["size"])
        n = [r["size"] for r in rs]
        style = "--" if "(host)" in label else "-"
        ax_t.loglog(n, [r["median_s"] for r in rs], style, marker="o", ms=3, label=label)
        if rs[0]["backend"] != "serial":
            ax_s.semilogx(n, [r["speedup_vs_serial"] for r in rs], style, marker="o", ms=3, label=label)
        ax_b.semilogx(n, [r["ratio_copy"] for r in rs], style, marker="o", ms=3, label=label)
    meta = data.get("meta", {})
    unit = "per iteration" if meta.get("bench") == "bl1d" else "per reduction"
    ax_t.set(xlabel="size (elements)", ylabel=f"median time {unit} [s]", title="time")
    ax_s.set(xlabel="size (elements)", ylabel="speedup against serial", title="speedup")
    ax_b.set(xlabel="size (elements)", ylabel="effective bandwidth / copy bandwidth", title="fraction of copy bandwidth")
    for ax in (ax_t, ax_s, ax_b):
        ax.grid(True, which="both", alpha=0.3)
    ax_b.legend(fontsize=7, loc="best")
    devices = sorted({r["device"] for r in rows if r["backend"] not in ("serial", "omp")})
    fig.suptitle(f'poreflow bench {meta.get("bench", "")} ({rows[0]["precision"]}), {meta.get("date", "")}'
                 + (f' - {", ".join(devices)}' if devices else ""))
    fig.tight_layout()
    out = args.out or args.json.rsplit(".", 1)[0] + ".png"
    fig.savefig(out, dpi=110)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
