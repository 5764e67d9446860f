#!/usr/bin/env python3
"""Compares one run of tools/identical/check.sh: the base build's folder against the new one's.

    compare.py BASE_RUN NEW_RUN [--renames FILE]

A run folder holds rc (the exit code), stdout, stderr, out/ (every file the run wrote) and
checkpoint.h5 (the checkpoint at the end). Prints one line per difference and exits 1 when
there is any, 0 when the two runs are the same.

- rc: equal.
- stdout, stderr: equal after the wall-clock parts are masked (log time stamps, "in X s",
  statistics named *seconds*, the checkpoint's size and write time).
- out/: the same files, each equal byte for byte.
- checkpoint.h5: equal by contents, record by record (h5dump: attributes and text by value,
  arrays by their raw little-endian bytes), not by the file's bytes (HDF5's layout may move).
  Skipped: SKIP below. Records renamed by a change are paired through the rename map.

Standard library only; h5dump is Debian's hdf5-tools.
"""
import argparse
import os
import re
import struct
import subprocess
import sys
import tempfile

# Checkpoint records that legitimately differ between two runs of the same computation:
# the poreflow version string (a release bump), the wall-clock seconds of a model's phases.
SKIP = {"/@poreflow_version", "/model/seconds"}
# the checkpoint format's number: a change that renames records bumps it (the renames pair them)
SKIP_FORMAT = "/@format_version"
# wall-clock seconds under any name (a change may split /model/seconds into named records)
SKIP_PREFIXES = ("/model/seconds",)
# records a change adds (`+ /model/x` in the rename map: no base counterpart, not compared) or
# drops (`- /model/x`)
ADDED, DROPPED = set(), set()

# stdout/stderr: what is wall-clock or file size, not the computation
MASKS = [
    (re.compile(r"^\[\d\d:\d\d:\d\d\.\d+\] "), "[TIME] "),         # spdlog's time stamp
    (re.compile(r" in [0-9.]+ s on "), " in X s on "),               # "N steps to t = T in X s on ..."
    (re.compile(r"\(([0-9.]+) MB, written in [0-9.]+ s\)"), "(X MB, written in X s)"),
    (re.compile(r"\(([0-9.]+) MB in [0-9.]+ s\)"), "(X MB in X s)"),
]
STAT_LINE = re.compile(r"^  (\S+)\s+\S+$")  # "  name value" of run's final statistics

TYPES = {  # h5dump's type name -> struct format of one element
    "H5T_IEEE_F64LE": "<d", "H5T_IEEE_F32LE": "<f", "H5T_STD_I64LE": "<q", "H5T_STD_I32LE": "<i",
    "H5T_STD_U8LE": "<B",
}


def normalized(path):
    if not os.path.exists(path):
        return None
    out = []
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            m = STAT_LINE.match(line)
            if m and "seconds" in m.group(1):
                continue
            for rx, to in MASKS:
                line = rx.sub(to, line)
            out.append(line)
    return out


def first_difference(a, b):
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return "line %d: base %r, new %r" % (i + 1, x, y)
    return "base has %d lines, new %d" % (len(a), len(b))


def files_under(d):
    out = set()
    for top, _, names in os.walk(d):
        for n in names:
            out.add(os.path.relpath(os.path.join(top, n), d))
    return out


def same_bytes(a, b):
    if os.path.getsize(a) != os.path.getsize(b):
        return False
    with open(a, "rb") as fa, open(b, "rb") as fb:
        while True:
            x, y = fa.read(1 << 20), fb.read(1 << 20)
            if x != y:
                return False
            if not x:
                return True


def h5dump(*args):
    r = subprocess.run(["h5dump", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        raise RuntimeError("h5dump %s failed: %s" % (" ".join(args), r.stderr.strip()))
    return r.stdout


class Record:
    """One attribute or dataset: its h5dump type, and its value as text (strings, attributes) or
    as raw little-endian bytes (numeric datasets)."""

    def __init__(self, type_, text=None, raw=None):
        self.type, self.text, self.raw = type_, text, raw

    def values(self):
        """The elements, for the rename map (numbers) or a one-element list of the text."""
        if self.raw is None:
            return [self.text]
        fmt = TYPES.get(self.type)
        if fmt is None:
            raise RuntimeError("no element format for %s" % self.type)
        size = struct.calcsize(fmt)
        return [struct.unpack_from(fmt, self.raw, i)[0] for i in range(0, len(self.raw), size)]

    def element(self, i):
        """Element i's raw bytes (None for text)."""
        if self.raw is None:
            return None
        size = struct.calcsize(TYPES[self.type])
        return self.raw[i * size:(i + 1) * size]

    def same(self, other):
        return self.type == other.type and self.text == other.text and self.raw == other.raw


def read_checkpoint(path):
    """Every record of a checkpoint by name: "/@attr", "/group/@attr", "/group/dataset"."""
    # -A: attributes with their values, datasets with their type and shape only
    listing = h5dump("-A", "-m", "%.17g", "-w", "0", path)
    records, datasets = {}, []
    stack = []  # ("GROUP"|"ATTRIBUTE"|"DATASET"|"DATA"|..., name)
    current = None  # [kind, name, type, data lines]
    for raw in listing.splitlines():
        line = raw.strip()
        m = re.match(r'^(GROUP|ATTRIBUTE|DATASET) "(.*)" \{$', line)
        if m:
            stack.append((m.group(1), m.group(2)))
            if m.group(1) != "GROUP":
                current = [m.group(1), m.group(2), None, None]
            continue
        if line.endswith("{"):
            stack.append(("BLOCK", line))
            if current and line.startswith("DATATYPE"):
                current[2] = line.split()[1]  # H5T_STRING
            if current and line == "DATA {":
                current[3] = []
            continue
        if line == "}":
            kind, _ = stack.pop()
            if kind in ("ATTRIBUTE", "DATASET") and current:
                groups = "/".join(n for k, n in stack if k == "GROUP" and n != "/")
                prefix = "/" + groups + ("/" if groups else "")
                if kind == "ATTRIBUTE":
                    records[prefix + "@" + current[1]] = Record(current[2], text="\n".join(current[3] or []))
                else:
                    datasets.append((prefix + current[1], current[2]))
                current = None
            continue
        if current is None:
            continue
        if line.startswith("DATATYPE"):
            current[2] = line.split()[1]
        elif current[3] is not None:
            current[3].append(line)
    with tempfile.TemporaryDirectory() as tmp:
        raw_file = os.path.join(tmp, "d.bin")
        for name, type_ in datasets:
            if type_ == "H5T_STRING":
                text = h5dump("-d", name, "-y", "-w", "0", path)
                body = text.split("DATA {", 1)[1].rsplit("}", 2)[0] if "DATA {" in text else ""
                records[name] = Record(type_, text=body)
                continue
            if os.path.exists(raw_file):
                os.remove(raw_file)
            h5dump("-d", name, "-b", "LE", "-o", raw_file, path)
            with open(raw_file, "rb") as f:
                records[name] = Record(type_, raw=f.read())
    return records


def read_renames(path):
    """`old[index] new[index]` lines (index optional: a whole record, or element 0 of a one-value
    one); # starts a comment. Returns [(old, old_index|None, new, new_index|None)]."""
    out = []
    if not path or not os.path.exists(path):
        return out
    section = None  # `[model]` starts lines that apply to that model's checkpoints only
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            if line.startswith("[") and line.endswith("]"):
                section = line[1:-1].strip() or None
                continue
            parts = line.split()
            if len(parts) == 2 and parts[0] in ("+", "-"):
                name = parts[1] if parts[1].startswith("/") else "/" + parts[1]
                (ADDED if parts[0] == "+" else DROPPED).add((section, name))  # name may hold [index]
                continue
            if len(parts) != 2:
                raise SystemExit("%s:%d: expected 'old_record[index] new_record', got %r" % (path, n, line))
            pair = []
            for p in parts:
                m = re.match(r"^(/[^\[\]]+?)(?:\[(\d+)\])?$", p if p.startswith("/") else "/" + p)
                if not m:
                    raise SystemExit("%s:%d: bad record name %r" % (path, n, p))
                pair += [m.group(1), int(m.group(2)) if m.group(2) is not None else None]
            out.append(tuple(pair) + (section,))
    return out


def compare_checkpoints(a_path, b_path, renames, diffs):
    a, b = read_checkpoint(a_path), read_checkpoint(b_path)
    model = None  # the root attribute as h5dump prints it: (0): "impes3d"
    if "/@model" in a and a["/@model"].text is not None:
        m = re.search(r'"([^"]*)"', a["/@model"].text)
        model = m.group(1) if m else a["/@model"].text.strip()
    added = {n for s, n in ADDED if s in (None, model)}
    dropped = set()
    covered_a, covered_b = {}, set()  # base record -> mapped element indices (None: whole)
    for s_, n in DROPPED:
        if s_ not in (None, model):
            continue
        m = re.match(r"^(/[^\[\]]+?)\[(\d+)\]$", n)
        if m:  # one element of an array the change split up: not carried over
            covered_a.setdefault(m.group(1), set()).add(int(m.group(2)))
        else:
            dropped.add(n)
    new_elements = {}  # new record -> the element indices renames map into it
    for old, oi, new, ni, section in renames:
        if section not in (None, model):
            continue
        if old not in a:
            continue  # a rename for another model's checkpoint
        if new not in b:
            diffs.append("checkpoint: %s is renamed to %s, which the new checkpoint lacks" % (old, new))
            continue
        va, vb = a[old].values(), b[new].values()
        if oi is None and ni is None:
            ok = a[old].same(b[new]) or va == vb
            what = "%s -> %s" % (old, new)
        else:
            ia, ib = oi or 0, ni or 0
            if ia >= len(va):
                continue  # a rename for a larger case (more wells)
            if ib >= len(vb):
                diffs.append("checkpoint: rename %s[%d] -> %s[%d] is out of range" % (old, ia, new, ib))
                continue
            if a[old].type == b[new].type:
                ok = a[old].element(ia) == b[new].element(ib)  # the bits: NaN and -0 too
            else:  # e.g. an int64 counter that became a double: equal as numbers
                ok = va[ia] == vb[ib]
            what = "%s[%d] -> %s[%d]: base %r, new %r" % (old, ia, new, ib, va[ia], vb[ib])
        if not ok:
            diffs.append("checkpoint: differs after rename " + what)
        covered_a.setdefault(old, set()).add(oi)
        if ni is None or len(vb) == 1:
            covered_b.add(new)
        else:
            new_elements.setdefault(new, set()).add(ni)
            if len(new_elements[new]) == len(vb):
                covered_b.add(new)
    for name in sorted(set(a) | set(b)):
        if name in SKIP or name == SKIP_FORMAT or name.startswith(SKIP_PREFIXES):
            continue
        if (name in added and name not in a) or (name in dropped and name not in b):
            continue
        if name in covered_a:
            idx = covered_a[name]
            if None not in idx and name not in b:
                missing = [i for i in range(len(a[name].values())) if i not in idx]
                if missing:
                    diffs.append("checkpoint: %s elements %s have no counterpart in the rename map" % (name, missing))
            if name not in b or name in covered_b:
                continue
        if name in covered_b and name not in a:
            continue
        if name not in a:
            diffs.append("checkpoint: %s only in the new build's" % name)
        elif name not in b:
            diffs.append("checkpoint: %s only in the base build's" % name)
        elif not a[name].same(b[name]):
            diffs.append("checkpoint: %s differs%s" % (name, element_difference(a[name], b[name])))


def element_difference(x, y):
    if x.type != y.type:
        return " (type %s, new %s)" % (x.type, y.type)
    if x.raw is None:
        return ""
    va, vb = x.values(), y.values()
    if len(va) != len(vb):
        return " (%d values, new %d)" % (len(va), len(vb))
    bad = [i for i in range(len(va)) if x.element(i) != y.element(i)]
    i = bad[0]
    return " (%d of %d values; first at [%d]: base %r, new %r)" % (len(bad), len(va), i, va[i], vb[i])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("base")
    ap.add_argument("new")
    ap.add_argument("--renames", default=None)
    o = ap.parse_args()
    diffs = []
    rc = [open(os.path.join(d, "rc")).read().strip() if os.path.exists(os.path.join(d, "rc")) else "?" for d in (o.base, o.new)]
    if rc[0] != rc[1]:
        diffs.append("exit code: base %s, new %s" % tuple(rc))
    for stream in ("stdout", "stderr"):
        x, y = normalized(os.path.join(o.base, stream)), normalized(os.path.join(o.new, stream))
        if x != y:
            diffs.append("%s differs: %s" % (stream, first_difference(x or [], y or [])))
    da, db = os.path.join(o.base, "out"), os.path.join(o.new, "out")
    fa, fb = files_under(da), files_under(db)
    for f in sorted(fa - fb):
        diffs.append("out/%s only in the base build's output" % f)
    for f in sorted(fb - fa):
        diffs.append("out/%s only in the new build's output" % f)
    for f in sorted(fa & fb):
        if not same_bytes(os.path.join(da, f), os.path.join(db, f)):
            diffs.append("out/%s differs" % f)
    ca, cb = os.path.join(o.base, "checkpoint.h5"), os.path.join(o.new, "checkpoint.h5")
    if os.path.exists(ca) != os.path.exists(cb):
        diffs.append("checkpoint.h5 written by the %s build only" % ("base" if os.path.exists(ca) else "new"))
    elif os.path.exists(ca):
        try:
            compare_checkpoints(ca, cb, read_renames(o.renames), diffs)
        except RuntimeError as e:
            diffs.append("checkpoint: cannot compare: %s" % e)
    for d in diffs:
        print(d)
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
