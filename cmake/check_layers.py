#!/usr/bin/env python3
"""Checks that #includes follow poreflow's layers (docs/architecture.md, "Layers").

The core is a stack, each layer using only those below it:
    core/base -> core/physics -> core/kernels -> core/comm -> core/linalg -> core/solvers
              -> core/models -> core/io -> core/run
The backends (backends/, kernels_cu/, kernels_cl/) sit on core/kernels: they may include core/base,
core/physics, core/kernels and each other, nothing of the core above. apps/, tests/, fuzz/ and
tools/ may include anything. An include that runs back up is printed with its file and line, and
the script exits 1.

    cmake/check_layers.py [ROOT]
"""
import pathlib
import re
import sys

CORE = ["core/base", "core/physics", "core/kernels", "core/comm", "core/linalg", "core/solvers",
        "core/models", "core/io", "core/run"]
DEVICE = ["backends", "kernels_cu", "kernels_cl"]
FREE = ["apps", "tests", "fuzz", "tools"]
SUFFIXES = {".h", ".hpp", ".cpp", ".cu", ".cuh", ".cl"}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def group(path):
    """The layer a repository path belongs to: ('core', rank), ('device', 0), ('free', 0) or None."""
    for rank, prefix in enumerate(CORE):
        if path == prefix or path.startswith(prefix + "/"):
            return ("core", rank)
    for prefix in DEVICE:
        if path.startswith(prefix + "/"):
            return ("device", 0)
    for prefix in FREE:
        if path.startswith(prefix + "/"):
            return ("free", 0)
    return None


def allowed(src, dst):
    """May a file of layer src include one of layer dst?"""
    if dst is None or src[0] == "free":
        return True
    if src[0] == "core":
        return dst[0] == "core" and dst[1] <= src[1]
    # device code: the kernel layer and below, and the other device folders
    return dst[0] == "device" or (dst[0] == "core" and dst[1] <= CORE.index("core/kernels"))


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parent.parent)
    bad = []
    for folder in ["core"] + DEVICE:
        for f in sorted((root / folder).rglob("*")):
            if f.suffix not in SUFFIXES or not f.is_file():
                continue
            rel = f.relative_to(root).as_posix()
            src = group(rel)
            if src is None:
                bad.append(f"{rel}: not in any layer (add its folder to cmake/check_layers.py)")
                continue
            for n, line in enumerate(f.read_text(errors="replace").splitlines(), 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                inc = m.group(1)
                if not (root / inc).exists():
                    continue  # a system or generated header written with quotes
                dst = group(inc)
                if not allowed(src, dst):
                    bad.append(f"{rel}:{n}: includes {inc}, a layer above it")
    for b in bad:
        print(b)
    if bad:
        print(f"{len(bad)} include(s) against the layers (docs/architecture.md, \"Layers\")")
        return 1
    print("layers: every include runs down")
    return 0


if __name__ == "__main__":
    sys.exit(main())
