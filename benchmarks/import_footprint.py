"""Import footprint: the time and memory an ``import`` of the engine's entry points takes, against
the peers' imports in the same run, and how fast ``orange-relief --version`` answers.

    python benchmarks/import_footprint.py            # 3 runs of each
    python benchmarks/import_footprint.py --quick    # 1 run

Each import runs in a new Python process (the files are in the operating system's cache after
the first run): the seconds of the ``import`` statement itself, the process's peak resident
memory after it (``ru_maxrss``: the interpreter, ~10 MB, included), and whether Orange or Qt
came in with it. ``orange-relief --version`` is timed as a whole process, from start to exit.
Targets: each of our imports <= 1 s and <= 120 MB, without Orange and Qt; ``--version``
<= 0.5 s.
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

IMPORTS = [
    ("ours", "orangecontrib.relief.estimators"),
    ("ours", "orangecontrib.relief.sklearn"),
    ("ours", "orangecontrib.relief.dask"),
    ("baseline", "numpy, numba"),
    ("peer", "skrebate"),
    ("peer", "fast_select"),
]

CHILD = """
import resource, sys, time
start = time.perf_counter()
exec("import " + sys.argv[1])
seconds = time.perf_counter() - start
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
heavy = [m for m in ("Orange", "AnyQt", "PyQt5", "PyQt6") if m in sys.modules]
print(seconds, rss, ",".join(heavy) or "-")
"""


def environment():
    return dict(os.environ, PYTHONPATH=os.pathsep.join([ROOT, os.environ.get("PYTHONPATH", "")]))


def measure_import(module):
    out = subprocess.run([sys.executable, "-c", CHILD, module], capture_output=True, text=True,
                         check=True, env=environment()).stdout.split()
    return float(out[0]), float(out[1]), out[2]


def measure_version():
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "orangecontrib.relief.cli", "--version"],
                   capture_output=True, check=True, env=environment())
    return time.perf_counter() - start


def spread(values, unit=""):
    if len(values) == 1:
        return f"{values[0]:.2f}{unit}"
    return (f"{min(values):.2f} / {statistics.median(values):.2f} / "
            f"{max(values):.2f}{unit}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one run of each")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    repeat = 1 if args.quick else args.repeat
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; "
          f"{repeat} run(s) each: min / median / max")
    print()
    print("| import | whose | seconds | peak memory (MB) | Orange / Qt imported | target |")
    print("|---|---|---|---|---|---|")
    for whose, module in IMPORTS:
        measure_import(module)      # the first run reads the files from disk: not counted
        runs = [measure_import(module) for _ in range(repeat)]
        heavy = sorted({r[2] for r in runs})
        target = "<= 1 s, <= 120 MB, no Orange / Qt" if whose == "ours" else "—"
        print(f"| `import {module}` | {whose} | {spread([r[0] for r in runs])} "
              f"| {spread([r[1] for r in runs])} | {', '.join(heavy)} | {target} |", flush=True)
    measure_version()
    versions = [measure_version() for _ in range(repeat)]
    print(f"| `orange-relief --version` (whole process) | ours | {spread(versions)} | — | — "
          f"| <= 0.5 s |")
    print()
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
