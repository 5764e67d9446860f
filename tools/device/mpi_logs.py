"""What the mpi_*_json.py scripts read alike from `poreflow run` logs (tools/device/gpu.sh's stages)."""
import glob
import os
import re


def read_runs(prefix, paths, parse):
    """{name: parse(path)} for logs named PREFIX_NAME.log."""
    return {re.sub(r"^" + prefix + r"_|\.log$", "", path.split("/")[-1]): parse(path) for path in paths}


def impes3d_run(text, run):
    """An impes3d run's grid, cut and steps (either scheme) into `run`."""
    m = re.search(r"impes3d: (\d+) x (\d+) x (\d+) cells \((\d+) active", text)
    run["grid"] = [int(m.group(i)) for i in (1, 2, 3)]
    run["active_cells"] = int(m.group(4))
    # "impes3d over ..." before 2026-12-03, "impes3d, scheme IMPES, over ..." since
    d = re.search(r"impes3d(?:, scheme [^,]+,)? over (.*)", text)
    run["processes"] = 1
    if d:
        run["decomposition"] = d.group(1).strip()
        p = re.match(r"(\d+) x (\d+) x (\d+) processes", run["decomposition"])
        run["processes"] = int(p.group(1)) * int(p.group(2)) * int(p.group(3))
    m = re.search(r"impes3d: (\d+) steps to t = (\S+) in (\S+) s on (\w+) \((.*)\)", text)
    run["steps"], run["days"], run["seconds"] = int(m.group(1)), float(m.group(2)), float(m.group(3))
    run["backend"], run["device"] = m.group(4), m.group(5)
    run["cells_per_process"] = run["active_cells"] / run["processes"]
    return run


def mpi_tests_verified(log_dir, what):
    """What the same call verified: the MPI tests' counts of each mpi_tests_P.log beside the runs'."""
    runs = {}
    for tests in sorted(glob.glob(os.path.join(log_dir, "mpi_tests_*.log"))):
        counts = []
        for line in open(tests):
            m = re.search(r"test cases:\s+(\d+)\s*\|.*?(\d+) passed.*?(\d+) failed", re.sub(r"\x1b\[[0-9;]*m", "", line))
            if m:
                counts.append({"test_cases": int(m.group(1)), "passed": int(m.group(2)), "failed": int(m.group(3))})
        runs[os.path.basename(tests)[:-4]] = counts
    return {"mpi_tests": runs,
            "what": "poreflow_mpi_tests on the processes each log names (mpi_tests_P), cuda then NVIDIA's OpenCL, on the "
                    "same machine: decomposed runs against one process's. " + what}
