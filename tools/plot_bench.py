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
        if r.get("layout") not in (None, "-", ""):
            label += f' {r["layout"]}'
        if not r["median_s"] > 0:  # a failed run (bench adi2d) has no time
            continue
        lines[label].append(r)

    fig, (ax_t, ax_s, ax_b) = plt.subplots(1, 3, figsize=(18, 6))
    for label, rs in sorted(lines.items()):
        rs.sort(key=lambda r: r["size"])
        n = [r["size"] for r in rs]
        style = "--" if "(host)" in label else "-"
        ax_t.loglog(n, [r["median_s"] for r in rs], style, marker="o", ms=3, label=label)
        sp = [(r["size"], r["speedup_vs_serial"]) for r in rs if r["speedup_vs_serial"] > 0]
        if rs[0]["backend"] != "serial" and sp:  # 0: no serial run at that size
            ax_s.semilogx(*zip(*sp), style, marker="o", ms=3, label=label)
        bw = [(r["size"], r["ratio_copy"]) for r in rs if r["ratio_copy"] > 0]
        if bw:  # adi2d counts no bytes
            ax_b.semilogx(*zip(*bw), style, marker="o", ms=3, label=label)
    meta = data.get("meta", {})
    bench = meta.get("bench", "")
    unit = {"bl1d": "per iteration", "reduce": "per reduction", "tridiag": "per solve",
            "adi2d": "of the whole case"}.get(bench, "")
    xlabel = {"tridiag": "unknowns per system (n)", "adi2d": "grid points per side (N)"}.get(bench, "size (elements)")
    ax_t.set(xlabel=xlabel, ylabel=f"median time {unit} [s]", title="time")
    ax_s.set(xlabel=xlabel, ylabel="speedup against serial", title="speedup")
    ax_b.set(xlabel=xlabel, ylabel="effective bandwidth / copy bandwidth", title="fraction of copy bandwidth")
    for ax in (ax_t, ax_s, ax_b):
        ax.grid(True, which="both", alpha=0.3)
    (ax_b if ax_b.lines else ax_t).legend(fontsize=7, loc="best")
    devices = sorted({r["device"] for r in rows if r["backend"] not in ("serial", "omp")})
    fig.suptitle(f'poreflow bench {meta.get("bench", "")} ({rows[0]["precision"]}), {meta.get("date", "")}'
                 + (f' - {", ".join(devices)}' if devices else ""))
    fig.tight_layout()
    out = args.out or args.json.rsplit(".", 1)[0] + ".png"
    fig.savefig(out, dpi=110)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
