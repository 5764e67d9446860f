#!/usr/bin/python3
"""Self-test of compare.py without poreflow: compares OPM Flow's results with themselves (all
differences 0) and with a perturbed copy written as an impes3d_series.csv (the CSV fallback),
checking that the metrics come out as constructed.

    /usr/bin/python3 validation/selftest.py FLOW_DIR NAME [WORKDIR]

The copy: times stretched by 1.04 (so every breakthrough time is 4 % later: fails the 5 % goal
only when stretched further), every cumulative scaled by 0.98 (FOPT 2 % low: passes 3 %), every
BHP raised by 5 bar.  A second copy stretched by 1.08 must miss the breakthrough goal; both end
later than the reference, so compare.py --strict must exit 1.  A third copy only has every BHP
2 bar higher: all goals met, --strict exits 0, each well's largest BHP difference is 2 bar.  Two
more must miss the series goals and only those: every BHP 5 bar higher (the BHP goal), every rate
6 % lower with the cumulatives unchanged (the rate goals).  Where FLOW_DIR has NAME.INFOSTEP,
copies with a statistics.json of 1.9, 2.1 and 0.45 times its steps and Newton iterations must
pass, miss, miss the count goal of --goals fim, and one without it must miss it as missing.
The reference cut at half its time must miss only the end time, pass with --until its end, and
miss the end time (and the cumulatives it holds still) with --until past it.
"""
import csv
import json
import os
import subprocess
import sys


here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import compare  # noqa: E402



def perturbed_csv(src, path, stretch, cum_scale, bhp_shift, rate_scale=None, until=None):
    # until: the rows of times (after the stretch) up to it only
    cols = ["TIME"] + sorted(src.data)
    t = src.time * stretch
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(cols)
        for i in range(len(t)):
            if until is not None and t[i] > until:
                break
            row = [t[i]]
            for k in cols[1:]:
                v = src.data[k][i]
                kw = k.split(":")[0]
                if kw in ("FOPT", "FWPT", "FWIT", "WOPT", "WWPT", "WWIT", "FLPT", "WLPT"):
                    v = v * cum_scale
                elif kw in ("FOPR", "FWPR", "FWIR", "WOPR", "WWPR", "WWIR", "FLPR", "WLPR"):
                    v = v * (cum_scale / stretch if rate_scale is None else rate_scale)
                elif kw == "WBHP":
                    v = v + bhp_shift
                row.append(repr(float(v)))
            w.writerow(row)


def main():
    flow_dir, name = sys.argv[1], sys.argv[2]
    work = sys.argv[3] if len(sys.argv) > 3 else os.path.join(here, "out", "selftest")
    os.makedirs(work, exist_ok=True)
    ref = compare.Series(flow_dir, name)
    failures = []

    r = compare.compare_case(name, ref, ref, 0.01)
    if not r["pass"]:
        failures.append(f"self-comparison fails: {r['fails']} {r['missing']}")
    for w, wr in r["wells"].items():
        for k, v in wr.items():
            if isinstance(v, dict) and v.get("rel") not in (None, 0.0) and v.get("max", 0.0) != 0.0:
                failures.append(f"self-comparison {w} {k} not 0: {v}")

    for stretch, expect_pass in ((1.04, True), (1.08, False)):
        d = os.path.join(work, f"perturbed_{stretch}")
        os.makedirs(d, exist_ok=True)
        perturbed_csv(ref, os.path.join(d, "impes3d_series.csv"), stretch, 0.98, 5.0)
        test = compare.Series(d, name)
        assert test.source.endswith("impes3d_series.csv")
        # ends differ by the stretch: compare over the common range, so cut the copy at ref's end
        r = compare.compare_case(name, ref, test, 0.01)
        for w, wr in r["wells"].items():
            bt = wr.get("bt")
            if bt and bt["ref"] is not None:
                if abs(bt["test"] / bt["ref"] - stretch) > 1e-6:
                    failures.append(f"{stretch}: {w} breakthrough {bt} not stretched by {stretch}")
        fo = r["field"]["FOPT"]
        # FOPT compared at the reference's end time: test(t_end) = 0.98 ref(t_end / stretch)
        want = 0.98 * float(ref.at("FOPT", r["t_end"] / stretch))
        if abs(fo["test"] - want) > 1e-6 * want:
            failures.append(f"{stretch}: FOPT {fo} expected test {want}")
        plots = ["--plot-dir", os.path.join(work, "plots_" + str(stretch))] if compare.have_matplotlib() else []
        rc = subprocess.call([sys.executable, os.path.join(here, "compare.py"), "--strict",
                              "--case", name, flow_dir, d] + plots, stdout=subprocess.DEVNULL)
        bt_ok = all((wr.get("bt") or {}).get("rel") in (None,) or wr["bt"]["rel"] <= 0.05
                    for wr in r["wells"].values())
        print(f"stretch {stretch}: FOPT {compare.pct(fo['rel'])}, breakthrough within 5 %: {bt_ok}, "
              f"--strict exit {rc}")
        if bt_ok != expect_pass:
            failures.append(f"{stretch}: breakthrough goal {'met' if bt_ok else 'missed'} unexpectedly")
        # the end times differ (stretched), which compare.py counts as a miss; --strict must say 1
        if rc != 1:
            failures.append(f"{stretch}: --strict exit {rc}, expected 1 (end times differ)")

    # --until: the reference cut at half its time, unchanged, misses only the end time over the
    # whole run, passes over the first half, and misses the end time again over more than it holds
    half = float(ref.time[-1]) / 2
    d = os.path.join(work, "cut_half")
    os.makedirs(d, exist_ok=True)
    perturbed_csv(ref, os.path.join(d, "impes3d_series.csv"), 1.0, 1.0, 0.0, until=half)
    cut = compare.Series(d, name)
    whole = compare.compare_case(name, ref, cut, 0.01)
    first = compare.compare_case(name, ref, cut, 0.01, until=float(cut.time[-1]))
    over = compare.compare_case(name, ref, cut, 0.01, until=1.5 * half)
    print(f"cut at day {cut.time[-1]:g}: whole run {whole['fails']}, --until its end {first['fails']}, "
          f"--until {1.5 * half:g} {over['fails']}")
    if whole["fails"] != ["end time"] or not first["pass"] or "end time" not in over["fails"]:
        failures.append(f"--until: {whole['fails']} / {first['fails']} / {over['fails']}")

    # BHP + 2 bar, nothing else changed: every goal met (--strict exit 0), BHP differences 2 bar
    # (under 2 % of every BHP of the deck: PROD is held at 150 bar)
    d = os.path.join(work, "perturbed_bhp")
    os.makedirs(d, exist_ok=True)
    perturbed_csv(ref, os.path.join(d, "impes3d_series.csv"), 1.0, 1.0, 2.0)
    r = compare.compare_case(name, ref, compare.Series(d, name), 0.01)
    for w, wr in r["wells"].items():
        b = wr.get("WBHP")
        if b is None or abs(abs(b["test_at_max"] - b["ref_at_max"]) - 2.0) > 1e-3:
            failures.append(f"BHP+2: {w} WBHP {b}")
        for k in ("WOPR", "WWPR", "WWIR"):
            if k in wr and wr[k]["max"] > 1e-6:
                failures.append(f"BHP+2: {w} {k} differs {wr[k]}")
    rc = subprocess.call([sys.executable, os.path.join(here, "compare.py"), "--strict",
                          "--case", name, flow_dir, d], stdout=subprocess.DEVNULL)
    print(f"BHP + 2 bar: pass {r['pass']}, --strict exit {rc}")
    if rc != 0 or not r["pass"]:
        failures.append(f"BHP+2: expected a pass, got {r['fails']} {r['missing']} exit {rc}")

    # the series goals can fail: BHP + 5 bar (3.3 % of PROD's 150 bar) misses the BHP goal, every
    # rate 6 % low (the cumulatives untouched) the rate goal, and nothing else
    for label, shift, rscale, want in (("BHP+5", 5.0, None, "WBHP"), ("rates x0.94", 0.0, 0.94, "W")):
        d = os.path.join(work, "perturbed_" + label.replace(" ", "_"))
        os.makedirs(d, exist_ok=True)
        perturbed_csv(ref, os.path.join(d, "impes3d_series.csv"), 1.0, 1.0, shift, rscale)
        r = compare.compare_case(name, ref, compare.Series(d, name), 0.01)
        rc = subprocess.call([sys.executable, os.path.join(here, "compare.py"), "--strict",
                              "--case", name, flow_dir, d], stdout=subprocess.DEVNULL)
        print(f"{label}: fails {r['fails']}, --strict exit {rc}")
        bad = [f for f in r["fails"] if not f.startswith(want) or (want == "W" and f.startswith("WBHP"))]
        if r["pass"] or rc != 1 or bad or not r["fails"]:
            failures.append(f"{label}: expected only {want}... goals missed, got {r['fails']} exit {rc}")

    # the counts (--goals fim): a copy identical to the reference with a statistics.json whose
    # steps and Newton iterations are k times the reference's INFOSTEP counts: within 2x passes,
    # beyond misses exactly those two goals; without statistics.json the counts are missing
    rc_ref = compare.run_counts(flow_dir, name)
    if rc_ref is None:
        print(f"counts: no {name}.INFOSTEP in {flow_dir}, not checked")
    else:
        for k, expect in ((1.9, []), (2.1, ["time steps", "Newton iterations"]), (0.45, ["time steps", "Newton iterations"]),
                          (None, None)):
            d = os.path.join(work, f"counts_{k}")
            os.makedirs(d, exist_ok=True)
            perturbed_csv(ref, os.path.join(d, "impes3d_series.csv"), 1.0, 1.0, 0.0)
            stats = os.path.join(d, "statistics.json")
            if k is None:
                if os.path.exists(stats):
                    os.remove(stats)
            else:
                with open(stats, "w") as f:
                    json.dump({"steps": round(k * rc_ref["steps"]), "statistics": {
                        "retried_steps": 0, "newton_iterations_total": round(k * rc_ref["newton"])}}, f)
            rc = subprocess.call([sys.executable, os.path.join(here, "compare.py"), "--strict", "--goals", "fim",
                                  "--results-dir", os.path.join(work, f"counts_json_{k}"),
                                  "--case", name, flow_dir, d], stdout=subprocess.DEVNULL)
            with open(os.path.join(work, f"counts_json_{k}", name + ".json")) as f:
                r = json.load(f)
            print(f"counts x{k}: fails {r['fails']}, missing {r['missing']}, --strict exit {rc}")
            if k is None:
                if rc != 1 or not any(m.startswith("counts") for m in r["missing"]):
                    failures.append(f"counts missing: expected a miss, got {r['fails']} {r['missing']} exit {rc}")
            elif r["fails"] != expect or r["missing"] or rc != (1 if expect else 0):
                failures.append(f"counts x{k}: expected {expect}, got {r['fails']} {r['missing']} exit {rc}")

    for f in failures:
        print("FAIL:", f)
    print("selftest", "FAILED" if failures else "passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
