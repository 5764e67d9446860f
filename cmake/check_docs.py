#!/usr/bin/env python3
"""Checks the documentation against the repository (the ctest `docs`): every file a page cites
exists (docs/bl1d.md cited tests/test_models.cpp, which never did), and no page shows a TODO.

Usage: check_docs.py SOURCE_DIR. Looks at README.md and docs/*.md; a cited file is a path under
one of the source folders with an extension, braces expanded (core/models/x.{hpp,cpp}). Skipped:
the recipe's placeholder family F (core/kernels/F.hpp), files that validation/run.sh and the
benches write (validation/*.png), and paths without an extension (a stem such as
backends/cuda/context for context.hpp and context.cpp)."""
import glob
import itertools
import os
import re
import sys

ROOTS = "tests|core|apps|backends|kernels_cu|kernels_cl|tools|validation|cmake|scripts|fuzz|cases|bench"
PATH = re.compile(r"(?<![\w/.-])((?:%s)/[\w./{},-]*\w)" % ROOTS)
PLACEHOLDER = re.compile(r"(^|/)(test_|bench_)?F(_omp)?\.\w+$")
GENERATED = re.compile(r"^validation/[A-Z]+\.png$")


def expand(p):
    parts = re.split(r"\{([^{}]*)\}", p)
    if len(parts) == 1:
        return [p]
    fixed, choices = parts[0::2], [c.split(",") for c in parts[1::2]]
    return ["".join(x for pair in itertools.zip_longest(fixed, combo, fillvalue="") for x in pair)
            for combo in itertools.product(*choices)]


def main(src):
    pages = [os.path.join(src, "README.md")] + sorted(glob.glob(os.path.join(src, "docs", "*.md")))
    problems = []
    for page in pages:
        rel = os.path.relpath(page, src)
        with open(page, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                if "TODO" in line:
                    problems.append(f"{rel}:{n}: shows a TODO: {line.strip()}")
                for m in PATH.finditer(line):
                    for p in expand(m.group(1)):
                        if "{" in p or "}" in p or not os.path.splitext(p)[1] or PLACEHOLDER.search(p) or GENERATED.match(p):
                            continue
                        if not os.path.exists(os.path.join(src, p)):
                            problems.append(f"{rel}:{n}: cites {p}, which does not exist")
    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} problem(s) in the documentation")
        return 1
    print(f"{len(pages)} pages: every cited file exists, no TODO")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))
