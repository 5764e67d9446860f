#!/usr/bin/python3
"""Compare poreflow's summary results against OPM Flow's for the validation decks.

Run with Debian's /usr/bin/python3 (python3-opm-common, python3-matplotlib, numpy).

    compare.py --case NAME REF_DIR TEST_DIR [--case ...]
               [--timings out/timings.json] [--results-dir out/compare]
               [--plot-dir docs/validation] [--update-md docs/validation.md]
               [--bt-threshold 0.01] [--strict] [--until DAYS] [--ref-label "OPM Flow"] [--test-label poreflow]

REF_DIR / TEST_DIR hold NAME.SMSPEC + NAME.UNSMRY (opm's summary files); where TEST_DIR (or
REF_DIR) has no SMSPEC, its impes3d_series.csv is read instead (a TIME column in days, then
columns named like FOPR, WOPR:NAME, WBHP:NAME, WWCT:NAME).  A path to a .SMSPEC or .csv file
may be given instead of a directory.  Without python3-opm-common a directory's
impes3d_series.csv or NAME.csv is read instead of its SMSPEC (the committed reference has both).
--export-csv FILE writes the first case's REF vectors in that CSV form.

Metrics (the reference is REF, normally OPM Flow; all times in days):

* breakthrough time of a producer: the first time its WWCT reaches --bt-threshold (0.01),
  linearly interpolated between the last sample below and the first sample at or above it
  (the first sample's time if that is above already).
  Producers: wells whose WOPT or WWPT is positive at the end in REF.  Relative difference
  |bt_test - bt_ref| / bt_ref.  Goal: <= 5 %.
* cumulatives: FOPT, FWPT, FWIT and each well's WOPT, WWPT, WWIT, both interpolated linearly
  to the common end time (the smaller of the two end times; with --until DAYS, DAYS, which both
  runs must reach, and breakthroughs after it count as none).  Relative difference
  |test - ref| / |ref| (absolute, reported as n/a, where ref is 0).  Goal: FOPT <= 3 %.
* series (each well's WBHP, WOPR, WWPR, WWIR, the field's FOPR, FWPR, FWIR, FPR): TEST is
  interpolated linearly onto REF's sample times inside the common time range; at each time
      d(t) = |test(t) - ref(t)| / max(|ref(t)|, 0.1 * max_t |ref(t)|),
  i.e. relative to the reference value, but never relative to less than a tenth of the
  series' peak magnitude (so a rate near zero, a shut well, does not blow up the ratio).
  Reported: max_t d(t) with the time it occurs ("largest relative difference"), and the
  integral measure  L1 = sum |test - ref| dt / sum |ref| dt  (the time-weighted mean relative
  difference, insensitive to a single step's misalignment at a control change).  Series that
  are zero throughout in both (an injector's oil rate) are skipped.  Goals on the L1 measure of
  each well: WBHP <= 2 %, its rates (a producer's WOPR and WWPR, an injector's WWIR) <= 5 %.
  The field series (FOPR, ...) and max_t d(t) are reported only.

A case NAME may carry a label after '@' (LAYERED@omp): the deck is NAME's part before it, and
the label names the run in the tables (one row per deck and run, e.g. per backend).

--goals fim sets issue 23's goals for the fully implicit scheme instead: breakthrough within 2 %,
FOPT and each producer's WOPT within 1 %, each well's BHP and rates within 2 % (L1), and the
time-step and Newton-iteration counts within 2x of REF's either way. (With the default goals each
producer's WOPT is held to FOPT's 3 %, and the counts are reported only.)

* counts: accepted time steps, cut steps and Newton iterations (cut attempts' included) of each
  run, read from the directory's NAME.INFOSTEP (OPM Flow's, written with --enable-opm-rst-file or
  by default in 2022.10: a row per attempt, Conv 1 for an accepted step, NewtIt summed over all
  rows) or its statistics.json (poreflow's: steps, statistics.retried_steps and
  statistics.newton_iterations_total).  With --goals fim a run without them misses the goal.

Exit status: 0, or 1 with --strict when a goal is missed (or a series could not be read).
"""
import argparse
import csv
import json
import math
import os
import sys

import numpy as np

try:
    from opm.io.ecl import ESmry  # noqa: F401
    HAVE_OPM = True
except ImportError:                 # CSV files only (impes3d_series.csv, reference NAME.csv)
    HAVE_OPM = False

BEGIN = "<!-- validation-table:begin (written by validation/compare.py; do not edit by hand) -->"
END = "<!-- validation-table:end -->"

BT_GOAL = 0.05
FOPT_GOAL = 0.03
BHP_L1_GOAL = 0.02     # time-weighted mean relative difference of each well's WBHP
RATE_L1_GOAL = 0.05    # the same for each well's rates (producers WOPR and WWPR, injectors WWIR)
COUNT_GOAL = None      # --goals fim: 2, time steps and Newton iterations within 2x of REF's
SERIES_FIELD = ["FOPR", "FWPR", "FWIR", "FPR"]
SERIES_WELL = ["WBHP", "WOPR", "WWPR", "WWIR"]
CUM_FIELD = ["FOPT", "FWPT", "FWIT"]
CUM_WELL = ["WOPT", "WWPT", "WWIT"]


class Series:
    """Summary vectors of one run: times (days, increasing) and key -> values."""

    def __init__(self, path, name):
        self.source = None
        self.data = {}
        smspec = None
        csvpath = None
        if os.path.isdir(path):
            cand = os.path.join(path, name + ".SMSPEC")
            if os.path.exists(cand):
                smspec = cand
            else:
                for f in sorted(os.listdir(path)):
                    if f.upper().endswith(".SMSPEC"):
                        smspec = os.path.join(path, f)
                        break
            if smspec is None:
                for cand in ("impes3d_series.csv", name + ".csv"):
                    if os.path.exists(os.path.join(path, cand)):
                        csvpath = os.path.join(path, cand)
                        break
        elif path.upper().endswith(".SMSPEC"):
            smspec = path
        elif path.endswith(".csv"):
            csvpath = path
        if smspec and csvpath is None and os.path.isdir(path) and not HAVE_OPM:
            alt = os.path.join(path, "impes3d_series.csv")
            for cand in (alt, os.path.join(path, name + ".csv")):
                if os.path.exists(cand):
                    smspec, csvpath = None, cand
                    break
        if smspec:
            self._read_smspec(smspec)
        elif csvpath:
            self._read_csv(csvpath)
        else:
            raise FileNotFoundError(f"no {name}.SMSPEC or impes3d_series.csv under {path}")
        order = np.argsort(self.time, kind="stable")
        self.time = self.time[order]
        for k in self.data:
            self.data[k] = self.data[k][order]

    def _read_smspec(self, path):
        if not HAVE_OPM:
            raise FileNotFoundError(f"{path}: reading SMSPEC needs python3-opm-common (no CSV beside it)")
        from opm.io.ecl import ESmry
        s = ESmry(path)
        self.source = path
        self.time = np.asarray(s["TIME"], dtype=float)
        for k in s.keys():
            if k in ("TIME", "YEARS", "DAY", "MONTH", "YEAR", "TIMESTEP"):
                continue
            self.data[k] = np.asarray(s[k], dtype=float)

    def _read_csv(self, path):
        self.source = path
        with open(path, newline="") as f:
            rows = list(csv.reader(f))
        header = [h.strip() for h in rows[0]]
        cols = {h: [] for h in header}
        for r in rows[1:]:
            if not r or r[0].lstrip().startswith("#"):
                continue
            for h, v in zip(header, r):
                try:
                    cols[h].append(float(v))
                except ValueError:
                    cols[h].append(math.nan)
        tkey = next((h for h in header if h.upper() in ("TIME", "TIME_DAYS", "T")), None)
        if tkey is None:
            raise ValueError(f"{path}: no TIME column")
        self.time = np.asarray(cols[tkey], dtype=float)
        for h in header:
            if h != tkey and h.upper() not in ("STEP", "DT", "YEARS"):
                self.data[h.upper() if ":" not in h else h.split(":")[0].upper() + ":" + h.split(":", 1)[1]] = \
                    np.asarray(cols[h], dtype=float)

    def has(self, key):
        return key in self.data

    def get(self, key):
        return self.data[key]

    def wells(self):
        return sorted({k.split(":", 1)[1] for k in self.data if ":" in k and k.startswith("W")})

    def at(self, key, t):
        """Linear interpolation of key at times t (held constant outside the samples)."""
        return np.interp(t, self.time, self.data[key])


def breakthrough(time, wct, thr):
    """First time the water cut reaches thr, interpolated linearly; None if never."""
    above = np.nonzero(wct >= thr)[0]
    if len(above) == 0:
        return None
    i = above[0]
    if i == 0:                  # above the threshold at the first sample already
        return float(time[0])
    t0, w0 = time[i - 1], wct[i - 1]
    t1, w1 = time[i], wct[i]
    if w1 == w0:
        return float(t1)
    return float(t0 + (thr - w0) * (t1 - t0) / (w1 - w0))


def rel(a, b):
    if a is None or b is None:
        return None
    if b == 0:
        return None if a == 0 else math.inf
    return abs(a - b) / abs(b)


def series_diff(ref, test, key, t_end):
    """Largest relative difference and L1 measure of one vector (see the module doc)."""
    tr = ref.time
    m = (tr <= t_end + 1e-9) & (tr >= max(ref.time[0], test.time[0]) - 1e-9)
    tr = tr[m]
    if len(tr) == 0:
        return None
    b = ref.get(key)[m]
    a = test.at(key, tr)
    peak = float(np.max(np.abs(b))) if len(b) else 0.0
    if peak == 0.0 and float(np.max(np.abs(a))) == 0.0:
        return None
    scale = max(0.1 * peak, 1e-12)
    d = np.abs(a - b) / np.maximum(np.abs(b), scale)
    i = int(np.argmax(d))
    dt = np.diff(np.concatenate(([0.0], tr)))
    den = float(np.sum(np.abs(b) * dt))
    l1 = float(np.sum(np.abs(a - b) * dt)) / den if den > 0 else math.inf
    return {"max": float(d[i]), "t_max": float(tr[i]), "ref_at_max": float(b[i]),
            "test_at_max": float(a[i]), "l1": l1}


def run_counts(path, name):
    """{steps, cuts, newton, source} of the run in path (a directory, or a file in it): OPM Flow's
    NAME.INFOSTEP or poreflow's statistics.json; None when it has neither."""
    d = path if os.path.isdir(path) else os.path.dirname(path)
    info = os.path.join(d, name + ".INFOSTEP")
    stats = os.path.join(d, "statistics.json")
    try:
        if os.path.exists(info):
            with open(info) as f:
                header = f.readline().split()
                conv, newt = header.index("Conv"), header.index("NewtIt")
                # a last line cut short (a run stopped while writing) is left out
                rows = [r for r in (line.split() for line in f) if len(r) == len(header)]
            ok = [r for r in rows if int(float(r[conv])) == 1]
            return {"steps": len(ok), "cuts": len(rows) - len(ok), "newton": int(sum(float(r[newt]) for r in rows)),
                    "source": info}
        if os.path.exists(stats):
            with open(stats) as f:
                j = json.load(f)
            st = j.get("statistics", {})
            if "newton_iterations_total" not in st:
                return None     # a scheme without Newton iterations (IMPES)
            return {"steps": int(j["steps"]), "cuts": int(st.get("retried_steps", 0)),
                    "newton": int(st["newton_iterations_total"]), "source": stats}
    except (OSError, ValueError, KeyError, IndexError) as e:
        print(f"{d}: counts not read: {e}", file=sys.stderr)
    return None


def counts_text(c, short=False):
    """One run's counts in words ("307 steps (1 cut), 779 Newton"; short: "307 (1), 779"), or None."""
    if not c:
        return None
    return f"{c['steps']} ({c['cuts']}), {c['newton']}" if short else f"{c['steps']} steps ({c['cuts']} cut), {c['newton']} Newton"


def compare_counts(ref, test):
    """The two runs' counts and test/ref ratios (None where either is missing)."""
    c = {"ref": ref, "test": test}
    if ref and test:
        for k in ("steps", "newton"):
            c[k + "_ratio"] = test[k] / ref[k] if ref[k] else None
    return c


def compare_case(name, ref, test, thr, counts=None, until=None):
    # until: compare the first `until` days only (both runs must reach them); else to the common end
    t_end = float(until) if until is not None else float(min(ref.time[-1], test.time[-1]))
    res = {"case": name, "ref_source": ref.source, "test_source": test.source,
           "t_end_ref": float(ref.time[-1]), "t_end_test": float(test.time[-1]), "t_end": t_end, "until": until,
           "bt_threshold": thr, "wells": {}, "field": {}, "missing": [],
           "counts": counts or compare_counts(None, None)}
    # field cumulatives
    for k in CUM_FIELD:
        if ref.has(k) and test.has(k):
            r, a = float(ref.at(k, t_end)), float(test.at(k, t_end))
            res["field"][k] = {"ref": r, "test": a, "rel": rel(a, r)}
        elif ref.has(k):
            res["missing"].append(k)
    for k in SERIES_FIELD:
        if ref.has(k) and test.has(k):
            d = series_diff(ref, test, k, t_end)
            if d:
                res["field"][k] = d
        elif ref.has(k):
            res["missing"].append(k)
    for w in ref.wells():
        wr = {}
        prod = any(ref.has(f"{k}:{w}") and ref.at(f"{k}:{w}", t_end) > 0 for k in ("WOPT", "WWPT"))
        inj = ref.has(f"WWIT:{w}") and ref.at(f"WWIT:{w}", t_end) > 0
        wr["kind"] = "producer" if prod else ("injector" if inj else "idle")
        if prod and ref.has(f"WWCT:{w}"):
            btr = breakthrough(ref.time, ref.get(f"WWCT:{w}"), thr)
            btt = breakthrough(test.time, test.get(f"WWCT:{w}"), thr) if test.has(f"WWCT:{w}") else None
            if not test.has(f"WWCT:{w}"):
                res["missing"].append(f"WWCT:{w}")
            if until is not None:  # a crossing after the compared days is none within them
                btr = btr if btr is not None and btr <= t_end else None
                btt = btt if btt is not None and btt <= t_end else None
            wr["bt"] = {"ref": btr, "test": btt, "rel": rel(btt, btr)}
        for k in CUM_WELL:
            key = f"{k}:{w}"
            if ref.has(key) and test.has(key):
                r, a = float(ref.at(key, t_end)), float(test.at(key, t_end))
                if r != 0 or a != 0:
                    wr[k] = {"ref": r, "test": a, "rel": rel(a, r)}
            elif ref.has(key):
                res["missing"].append(key)
        for k in SERIES_WELL:
            key = f"{k}:{w}"
            if ref.has(key) and test.has(key):
                d = series_diff(ref, test, key, t_end)
                if d:
                    wr[k] = d
            elif ref.has(key):
                res["missing"].append(key)
        res["wells"][w] = wr
    # goals
    fails = []
    for w, wr in res["wells"].items():
        bt = wr.get("bt")
        if bt is None:
            continue
        if bt["ref"] is None and bt["test"] is None:
            continue
        if bt["rel"] is None or bt["rel"] > BT_GOAL:
            fails.append(f"breakthrough {w}")
    for w, wr in res["wells"].items():
        keys = [("WBHP", BHP_L1_GOAL)]
        if wr["kind"] == "producer":
            keys += [("WOPR", RATE_L1_GOAL), ("WWPR", RATE_L1_GOAL)]
        elif wr["kind"] == "injector":
            keys += [("WWIR", RATE_L1_GOAL)]
        for k, goal in keys:
            d = wr.get(k)
            if d is not None and not d["l1"] <= goal:
                fails.append(f"{k} {w}")
    fo = res["field"].get("FOPT")
    if fo is None or fo["rel"] is None or fo["rel"] > FOPT_GOAL:
        fails.append("FOPT")
    # each producer's cumulative oil at the end, to the field's goal (issue 23: "for every producer")
    for w, wr in res["wells"].items():
        wo = wr.get("WOPT")
        if wr["kind"] == "producer" and wo is not None and (wo["rel"] is None or wo["rel"] > FOPT_GOAL):
            fails.append(f"WOPT {w}")
    if until is not None:
        if min(res["t_end_ref"], res["t_end_test"]) < until - 1e-6 * max(1.0, until):
            fails.append("end time")
    elif abs(res["t_end_ref"] - res["t_end_test"]) > 1e-6 * max(1.0, res["t_end_ref"]):
        fails.append("end time")
    if COUNT_GOAL is not None:
        c = res["counts"]
        for k, what in (("steps", "time steps"), ("newton", "Newton iterations")):
            q = c.get(k + "_ratio")
            if not (c["ref"] and c["test"]):
                res["missing"].append("counts (INFOSTEP or statistics.json)")
                break
            if q is None or not 1 / COUNT_GOAL <= q <= COUNT_GOAL:
                fails.append(what)
    res["fails"] = fails
    res["pass"] = not fails and not res["missing"]
    return res


# ---------------------------------------------------------------------------------------------
# plots

def have_matplotlib():
    try:
        import matplotlib  # noqa: F401
        return True
    except ImportError:
        return False


def plot_case(name, ref, test, res, path, ref_label, test_label):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    wells = list(res["wells"].keys())
    prods = [w for w in wells if res["wells"][w]["kind"] == "producer"]
    npan = 3 + len(wells)
    ncol = 3
    nrow = (npan + ncol - 1) // ncol
    fig, axes = plt.subplots(nrow, ncol, figsize=(5.0 * ncol, 3.3 * nrow), squeeze=False)
    ax = axes.ravel()

    def both(a, key, color, label):
        if ref.has(key):
            a.plot(ref.time, ref.get(key), color=color, lw=1.6, label=f"{label} {ref_label}")
        if test.has(key):
            a.plot(test.time, test.get(key), color=color, lw=1.2, ls="--", label=f"{label} {test_label}")

    a = ax[0]
    both(a, "FOPR", "tab:green", "FOPR")
    both(a, "FWPR", "tab:blue", "FWPR")
    both(a, "FWIR", "tab:cyan", "FWIR")
    a.set_title("field rates (sm3/day)")
    a.legend(fontsize=6)
    a = ax[1]
    both(a, "FWCT", "tab:blue", "FWCT")
    colors = matplotlib.rcParams["axes.prop_cycle"].by_key()["color"]
    for n, w in enumerate(prods):
        c = colors[(n + 2) % len(colors)]
        both(a, f"WWCT:{w}", c, f"WWCT:{w}")
        bt = res["wells"][w].get("bt") or {}
        if bt.get("ref") is not None:
            a.axvline(bt["ref"], color=c, lw=0.8)
        if bt.get("test") is not None:
            a.axvline(bt["test"], color=c, lw=0.8, ls="--")
    a.axhline(res["bt_threshold"], color="grey", lw=0.5, ls=":")
    a.set_title("water cut (breakthrough: vertical lines)")
    a.legend(fontsize=6)
    a = ax[2]
    both(a, "FOPT", "tab:green", "FOPT")
    both(a, "FWPT", "tab:blue", "FWPT")
    both(a, "FWIT", "tab:cyan", "FWIT")
    a.set_title("field cumulatives (sm3)")
    a.legend(fontsize=6)
    for n, w in enumerate(wells):
        a = ax[3 + n]
        both(a, f"WBHP:{w}", "k", "BHP")
        a.set_ylabel("BHP (bar)")
        a2 = a.twinx()
        for key, c in (("WOPR", "tab:green"), ("WWPR", "tab:blue"), ("WWIR", "tab:cyan")):
            k = f"{key}:{w}"
            if ref.has(k) and (np.any(ref.get(k) != 0) or (test.has(k) and np.any(test.get(k) != 0))):
                a2.plot(ref.time, ref.get(k), color=c, lw=1.0, alpha=0.7)
                if test.has(k):
                    a2.plot(test.time, test.get(k), color=c, lw=0.9, ls="--", alpha=0.7)
        a2.set_ylabel("rate (sm3/day): oil green, water blue/cyan", fontsize=6)
        a.set_title(f"{w} ({res['wells'][w]['kind']}): BHP black, rates colour")
        a.legend(fontsize=6, loc="upper left")
    for a in ax[npan:]:
        a.axis("off")
    for a in ax[:npan]:
        a.set_xlabel("time (days)", fontsize=7)
        a.tick_params(labelsize=7)
    fig.suptitle(f"{name}: {test_label} (dashed) vs {ref_label} (solid)")
    fig.tight_layout()
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    fig.savefig(path, dpi=90)
    plt.close(fig)


# ---------------------------------------------------------------------------------------------
# tables

def pct(x):
    if x is None:
        return "n/a"
    if math.isinf(x):
        return "inf"
    return f"{100 * x:.2f} %"


def num(x, fmt="{:.1f}"):
    return "—" if x is None else fmt.format(x)


def secs(timings, case, runner):
    v = (timings.get(case) or {}).get(runner)
    if not v:
        return "—"
    s = f"{v['wall_s']:.2f}" if v["wall_s"] < 10 else f"{v['wall_s']:.1f}"
    if v.get("ranks", 1) > 1:
        s += f" ({v['ranks']} ranks)"
    elif v.get("threads"):
        s += f" ({v['threads']} thr)"
    return s


def tables(results, timings, ref_label, test_label):
    out = []
    out.append(f"Goals: breakthrough time within {100 * BT_GOAL:.0f} %, FOPT and each producer's WOPT at the end within "
               f"{100 * FOPT_GOAL:.0f} %, each well's BHP within {100 * BHP_L1_GOAL:.0f} % and its rates within "
               f"{100 * RATE_L1_GOAL:.0f} % (time-weighted mean relative difference, L1)"
               + (f", time steps and Newton iterations within {COUNT_GOAL:g}x" if COUNT_GOAL else "")
               + f"; {test_label} against {ref_label}. Steps (cut), Newton: {test_label}'s against {ref_label}'s, "
               f"from INFOSTEP or statistics.json. Wall times in seconds (threads in brackets), from the timings JSON; "
               f"`—`: not run.")
    out.append("")
    runners = sorted({k for d in timings.values() for k in d if k.startswith("poreflow_")})
    cols = ["deck", "run", "end (d)", f"FOPT {ref_label}", f"FOPT {test_label}", "ΔFOPT", "ΔFWPT",
            "worst Δbreakthrough", "worst BHP (L1)", "worst rate (L1)", "steps (cut), Newton", "goals", f"wall {ref_label}"]
    cols += [f"wall {test_label} {k[len('poreflow_'):]}" for k in runners]
    out.append("| " + " | ".join(cols) + " |")
    out.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|" + "---:|" * len(runners))

    def counts(r):
        c = r.get("counts") or {}
        if not (c.get("test") or c.get("ref")):
            return "—"
        return " against ".join(counts_text(c.get(k), short=True) or "—" for k in ("test", "ref"))


    def worst_l1(r, keys):
        vals = [(wr[k]["l1"], w) for w, wr in r["wells"].items() for k in keys
                if k in wr and (k != "WWIR" or wr["kind"] == "injector") and (k == "WBHP" or wr["kind"] != "idle")]
        if not vals:
            return "—"
        v, w = max(vals)
        return f"{pct(v)} ({w})"

    for r in results:
        deck = r["case"].split("@")[0]
        fo = r["field"].get("FOPT", {})
        fw = r["field"].get("FWPT", {})
        bts = [wr["bt"]["rel"] for wr in r["wells"].values() if wr.get("bt") and wr["bt"]["rel"] is not None]
        worst = max(bts) if bts else None
        goal = "pass" if r["pass"] else "MISS: " + ", ".join(r["fails"] + [f"missing {m}" for m in r["missing"]])
        label = r["case"].split("@")[1] if "@" in r["case"] else "—"
        out.append(f"| {deck} | {label} | {r['t_end']:.0f} | {num(fo.get('ref'), '{:.4g}')} | "
                   f"{num(fo.get('test'), '{:.4g}')} | {pct(fo.get('rel'))} | {pct(fw.get('rel'))} | "
                   f"{pct(worst)} | {worst_l1(r, ['WBHP'])} | {worst_l1(r, ['WOPR', 'WWPR', 'WWIR'])} | {counts(r)} | {goal} | "
                   + " | ".join([secs(timings, deck, "flow")] + [secs(timings, deck, k) for k in runners]) + " |")
    out.append("")
    out.append("Per well: breakthrough time (WWCT reaches the threshold) in days, cumulatives at the end, and the "
               "largest relative difference over time of BHP and rates (max d(t), see compare.py; "
               "in brackets the time-weighted mean L1).")
    out.append("")
    out.append(f"| deck | run | well | kind | bt {ref_label} | bt {test_label} | Δbt | ΔWOPT | ΔWWPT/ΔWWIT | "
               "max ΔBHP (L1) | max Δoil rate (L1) | max Δwater rate (L1) |")
    out.append("|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")

    def sd(d, goal=None):
        if not d:
            return "—"
        miss = goal is not None and not d["l1"] <= goal
        return f"{pct(d['max'])} ({'**' if miss else ''}{pct(d['l1'])}{'**' if miss else ''})"

    for r in results:
        for w, wr in r["wells"].items():
            bt = wr.get("bt") or {}
            water_cum = wr.get("WWIT") if wr["kind"] == "injector" else wr.get("WWPT")
            water_rate = wr.get("WWIR") if wr["kind"] == "injector" else wr.get("WWPR")
            btm = bt and (bt.get("rel") is None or bt["rel"] > BT_GOAL) and not (bt.get("ref") is None and bt.get("test") is None)
            label = r["case"].split("@")[1] if "@" in r["case"] else "—"
            rate_goal = RATE_L1_GOAL if wr["kind"] != "idle" else None
            out.append(f"| {r['case'].split('@')[0]} | {label} | {w} | {wr['kind']} | {num(bt.get('ref'))} | {num(bt.get('test'))} | "
                       f"{('**' + pct(bt.get('rel')) + '**') if btm else (pct(bt.get('rel')) if bt else '—')} | "
                       f"{pct((wr.get('WOPT') or {}).get('rel')) if wr.get('WOPT') else '—'} | "
                       f"{pct(water_cum['rel']) if water_cum else '—'} | {sd(wr.get('WBHP'), BHP_L1_GOAL)} | "
                       f"{sd(wr.get('WOPR'), rate_goal if wr['kind'] == 'producer' else None)} | {sd(water_rate, rate_goal)} |")
    return "\n".join(out) + "\n"


def update_md(path, text, section="validation-table"):
    with open(path) as f:
        doc = f.read()
    begin = BEGIN.replace("validation-table", section)
    end = END.replace("validation-table", section)
    a = doc.find(begin)
    b = doc.find(end)
    if a < 0 or b < a:
        raise SystemExit(f"{path}: markers not found:\n{begin}\n{end}")
    doc = doc[:a + len(begin)] + "\n\n" + text + "\n" + doc[b:]
    with open(path, "w") as f:
        f.write(doc)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--case", nargs=3, action="append", metavar=("NAME", "REF", "TEST"), required=True)
    p.add_argument("--timings", action="append", default=[], help="JSON {deck: {runner: {wall_s, threads}}}")
    p.add_argument("--results-dir", default=None, help="write NAME.json there; the table covers every JSON there")
    p.add_argument("--plot-dir", default=None)
    p.add_argument("--plot-label", default=None,
                   help="plot only the cases with this label (NAME@LABEL); the file is NAME.png")
    p.add_argument("--update-md", default=None)
    p.add_argument("--table", default=None, help="also write the Markdown table to this file")
    p.add_argument("--md-section", default="validation-table",
                   help="the markers in --update-md's file between which the table goes (<!-- NAME:begin ...)")
    p.add_argument("--bt-threshold", type=float, default=0.01)
    p.add_argument("--goals", choices=["default", "fim"], default="default",
                   help="default: breakthrough 5 %%, FOPT 3 %%, BHP 2 %%, rates 5 %%; fim: issue 23's goals for the "
                        "fully implicit scheme, breakthrough 2 %%, FOPT 1 %%, BHP and rates 2 %%, steps and Newton "
                        "iterations within 2x")
    p.add_argument("--strict", action="store_true")
    p.add_argument("--until", type=float, default=None, metavar="DAYS",
                   help="compare the first DAYS days only (cumulatives at DAYS, breakthroughs up to it); both runs "
                        "must reach DAYS, else the end-time goal is missed")
    p.add_argument("--export-csv", default=None, metavar="CSV",
                   help="write the first case's REF series as CSV (TIME + vectors) and stop")
    p.add_argument("--ref-label", default="OPM Flow")
    p.add_argument("--test-label", default="poreflow")
    args = p.parse_args(argv)
    if args.goals == "fim":
        global BT_GOAL, FOPT_GOAL, BHP_L1_GOAL, RATE_L1_GOAL, COUNT_GOAL
        BT_GOAL, FOPT_GOAL, BHP_L1_GOAL, RATE_L1_GOAL, COUNT_GOAL = 0.02, 0.01, 0.02, 0.02, 2.0

    timings = {}
    for tf in args.timings:
        if os.path.exists(tf):
            with open(tf) as f:
                for case, d in json.load(f).items():
                    timings.setdefault(case, {}).update(d)

    if args.export_csv:
        name, refp, _ = args.case[0]
        ref = Series(refp, name.split("@")[0])
        keys = sorted(ref.data)
        with open(args.export_csv, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["TIME"] + keys)
            for i in range(len(ref.time)):
                w.writerow([f"{ref.time[i]:.9g}"] + [f"{ref.data[k][i]:.8g}" for k in keys])
        return 0

    results = []
    ok = True
    for name, refp, testp in args.case:
        deck = name.split("@")[0]
        try:
            ref = Series(refp, deck)
            test = Series(testp, deck)
        except (FileNotFoundError, ValueError) as e:
            print(f"{name}: {e}", file=sys.stderr)
            ok = False
            continue
        counts = compare_counts(run_counts(refp, deck), run_counts(testp, deck))
        r = compare_case(name, ref, test, args.bt_threshold, counts, args.until)
        results.append(r)
        label = name.split("@")[1] if "@" in name else None
        plot = args.plot_dir and (args.plot_label is None or args.plot_label == label)
        if plot and not have_matplotlib():
            print(f"{name}: no plot (python3-matplotlib is not installed)", file=sys.stderr)
        elif plot:
            png = os.path.join(args.plot_dir, f"{deck if args.plot_label else name.replace('@', '_')}.png")
            plot_case(name, ref, test, r, png, args.ref_label, args.test_label)
            r["plot"] = png
        if args.results_dir:
            os.makedirs(args.results_dir, exist_ok=True)
            with open(os.path.join(args.results_dir, f"{name}.json"), "w") as f:
                json.dump(r, f, indent=1)
        fo = r["field"].get("FOPT", {})
        print(f"{name}: FOPT {num(fo.get('ref'), '{:.6g}')} vs {num(fo.get('test'), '{:.6g}')} "
              f"({pct(fo.get('rel'))})")
        for w, wr in r["wells"].items():
            if wr.get("bt"):
                b = wr["bt"]
                print(f"  {w}: breakthrough {num(b['ref'])} vs {num(b['test'])} d ({pct(b['rel'])})")
        c = r["counts"]
        if c.get("ref") or c.get("test"):
            print(f"  {counts_text(c.get('test')) or 'no counts'} vs {counts_text(c.get('ref')) or 'no counts'}")
        print(f"  {'pass' if r['pass'] else 'MISS: ' + ', '.join(r['fails'] + r['missing'])}")
        ok = ok and r["pass"]

    if args.results_dir:   # the table covers every case compared so far
        done = {r["case"] for r in results}
        for f in sorted(os.listdir(args.results_dir)):
            if f.endswith(".json") and f[:-5] not in done:
                with open(os.path.join(args.results_dir, f)) as fh:
                    results.append(json.load(fh))
    order = {"QFS": 0, "LAYERED": 1, "HETERO": 2}
    runs = {"serial": 0, "omp": 1, "opencl": 2, "cuda": 3}
    results.sort(key=lambda r: (order.get(r["case"].split("@")[0], 9),
                                runs.get(r["case"].split("@")[1] if "@" in r["case"] else "", 9), r["case"]))
    text = tables(results, timings, args.ref_label, args.test_label)
    if args.table:
        with open(args.table, "w") as f:
            f.write(text)
    if args.update_md:
        update_md(args.update_md, text, args.md_section)
    if args.strict and not ok:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
