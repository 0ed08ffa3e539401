"""Cold start: how long the first result of a session takes with an empty numba cache (cold), and
with the cache the first session filled (warm), against fast-select in the same run.

    python benchmarks/cold_start.py                     # every case, 3 runs each
    python benchmarks/cold_start.py --quick             # ReliefF and MultiScaleRelief, 1 run
    python benchmarks/cold_start.py --snp PATH          # a ReBATE SNP table (.txt.gz, 'Class')
    python benchmarks/cold_start.py --large-only        # only 5,000 x 100 and the SNP table

Every measurement is a whole new Python process with ``NUMBA_CACHE_DIR`` a new empty directory
(cold) or the directory a cold run filled (warm), timed from its start to its exit (imports,
reading the data, the estimate). A cold small-data run computes with the kernels' numpy
equivalents while separate low-priority processes compile the kernels into the cache; the
table says how long after the run's start the cache was complete ("cache filled after"), and
the warm runs start only then (in a case without warm runs the background compiles are ended
after the cold run, so that they do not slow down the next case). Cases:

* ``orange-relief rank`` (the README's first command: ReliefF on Orange's heart_disease) and
  ``orange-relief rank --estimator NAME`` for every name ``orange-relief estimators`` lists;
* the Attribute Estimation widget given heart_disease (offscreen): time until its scores, and
  the longest the Qt event loop went without running (the canvas's longest stall);
* ReliefF (k = 10) on 5,000 x 100 uniform numeric attributes, and on a 1,600 x 1,000 SNP table
  (``--snp``: a ReBATE replicate, e.g. from the ReBATE benchmark data sets of Urbanowicz et al.
  2018; else generated SNPs of that size), ours and fast-select's ``ReliefF(backend="cpu")``;
  and the widget given generated data of those sizes (time to its scores, longest stall).

Two reference rows: a process that only reads heart_disease with Orange (the floor of any
``rank``), and ``rank`` compiling its kernels in the process as before the numpy equivalents
(``ORANGE_RELIEF_KERNELS=compiled``).

Targets: cold <= 5 s on heart_disease (every estimator, CLI and widget), <= 15 s and at most
fast-select's cold time on 5,000 x 100 and the SNP table; warm <= 2 s on heart_disease.
Each case runs ``--repeat`` times (3): min / median / max. The load average is printed.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

WIDGET = r"""
import sys, time
start = time.perf_counter()
from AnyQt.QtCore import QTimer
from AnyQt.QtWidgets import QApplication
from Orange.data import Table
from orangecontrib.relief.widgets.owattributeestimation import OWAttributeEstimation
app = QApplication([])
widget = OWAttributeEstimation()
widget.auto_apply = True
gaps = [0.0]
last = [time.perf_counter()]
def tick():
    now = time.perf_counter()
    gaps.append(now - last[0])
    last[0] = now
timer = QTimer(interval=5)
timer.timeout.connect(tick)
source = sys.argv[1] if len(sys.argv) > 1 else "heart_disease"
if source == "heart_disease":
    data = Table("heart_disease")
else:               # generated, as ENGINE's: 5,000 x 100 numeric or 1,600 x 1,000 SNPs
    import numpy as np
    from Orange.data import ContinuousVariable, DiscreteVariable, Domain
    rng = np.random.default_rng(0)
    if source == "numeric":
        X = rng.random((5000, 100))
        attributes = [ContinuousVariable(f"a{i}") for i in range(100)]
    else:
        u = rng.random((1600, 1000))
        X = (u > 0.64).astype(float) + (u > 0.96)
        attributes = [DiscreteVariable(f"s{i}", values=("0", "1", "2")) for i in range(1000)]
    y = ((X[:, 0] > 0.5) ^ (X[:, 1] > 0.5)).astype(float)
    data = Table.from_numpy(Domain(attributes, DiscreteVariable("y", values=("0", "1"))), X, y)
timer.start()
last[0] = time.perf_counter()
widget.set_data(data)
widget.handleNewSignals()
while widget.task is not None and time.perf_counter() - start < 600:
    app.processEvents()
    time.sleep(0.001)
timer.stop()
print("RESULT", time.perf_counter() - start, max(gaps))
"""

ENGINE = r"""
import sys, time
start = time.perf_counter()
import numpy as np
which, source = sys.argv[1], sys.argv[2]
if source == "numeric":
    rng = np.random.default_rng(0)
    X = rng.random((5000, 100))
    y = ((X[:, 0] > 0.5) ^ (X[:, 1] > 0.5)).astype(float)
elif source == "snp":
    rng = np.random.default_rng(0)
    u = rng.random((1600, 1000))
    X = (u > 0.64).astype(float) + (u > 0.96)
    y = ((X[:, 0] % 2) != (X[:, 1] % 2)).astype(float)
else:
    import gzip
    with gzip.open(source, "rt") as f:
        header = f.readline().rstrip("\n").split("\t")
        table = np.loadtxt(f, delimiter="\t")
    c = header.index("Class")
    X, y = np.ascontiguousarray(np.delete(table, c, axis=1)), table[:, c]
discrete = source != "numeric"
loaded = time.perf_counter()
if which == "ours":
    from orangecontrib.relief.estimators import encode
    from orangecontrib.relief.estimators.relieff import ReliefF
    scores = ReliefF(k=10)(encode(X, y, discrete=discrete, n_classes=2))
else:
    import fast_select
    scores = fast_select.ReliefF(n_neighbors=10, backend="cpu").fit(
        X, y.astype(int)).feature_importances_
print("RESULT", loaded - start)
"""


def background_compiles(cache):
    """The process ids of background compiles writing into ``cache`` (Linux: /proc)."""
    found = []
    for pid in os.listdir("/proc") if os.path.isdir("/proc") else ():
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read()
            if b"orangecontrib.relief.compilation" not in cmd:
                continue
            with open(f"/proc/{pid}/environ", "rb") as f:
                if f"NUMBA_CACHE_DIR={cache}".encode() in f.read().split(b"\0"):
                    found.append(int(pid))
        except OSError:
            continue
    return found


def run(args, cache, start=None, mode=None):
    """(seconds from start to exit, the RESULT line's numbers or None) of one process;
    ``mode``: ORANGE_RELIEF_KERNELS (default: auto)."""
    env = dict(os.environ, NUMBA_CACHE_DIR=cache, QT_QPA_PLATFORM="offscreen",
               PYTHONPATH=os.pathsep.join([ROOT, os.environ.get("PYTHONPATH", "")]))
    env.pop("ORANGE_RELIEF_KERNELS", None)
    if mode:
        env["ORANGE_RELIEF_KERNELS"] = mode
    start = time.perf_counter() if start is None else start
    result = subprocess.run([sys.executable] + args, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if result.returncode:
        raise RuntimeError(f"{' '.join(args)} failed:\n{result.stderr}")
    numbers = [line.split()[1:] for line in result.stdout.splitlines()
               if line.startswith("RESULT")]
    return elapsed, [float(x) for x in numbers[0]] if numbers else None


def wait_for_cache(cache, start, limit=900):
    """Seconds from ``start`` until no background compile writes into ``cache``."""
    while background_compiles(cache) and time.perf_counter() - start < limit:
        time.sleep(0.2)
    return time.perf_counter() - start


def stop_compiles(cache):
    """End the background compiles a cold run started into ``cache`` (a case without a warm
    run: the next case's cold run is measured without them)."""
    import signal
    for pid in background_compiles(cache):
        try:
            os.kill(pid, signal.SIGTERM)
        except OSError:
            pass
    while background_compiles(cache):
        time.sleep(0.1)


def summary(values):
    values = [v for v in values if v is not None]
    if not values:
        return "—"
    if len(values) == 1:
        return f"{values[0]:.2f}"
    return f"{min(values):.2f} / {statistics.median(values):.2f} / {max(values):.2f}"


def cli_case(estimator, repeat, warm):
    """(cold times, cache-filled times, warm times) of ``orange-relief rank [-e NAME]``."""
    args = ["-m", "orangecontrib.relief.cli", "rank", "-q"]
    if estimator:
        args += ["--estimator", estimator]
    cold, filled, hot = [], [], []
    for _ in range(repeat):
        with tempfile.TemporaryDirectory(prefix="relief-cold-") as cache:
            start = time.perf_counter()
            cold.append(run(args, cache, start)[0])
            if warm:
                filled.append(wait_for_cache(cache, start))
                hot.append(run(args, cache)[0])
            else:
                stop_compiles(cache)
    return cold, filled, hot


def widget_case(repeat, source="heart_disease", wait=True):
    """(cold seconds, longest stalls, cache filled after) of the Attribute Estimation widget
    given ``source`` (heart_disease, or generated "numeric" or "snp" data); ``wait``: for the
    background compiles to fill the cache (else they are ended)."""
    cold, stalls, filled = [], [], []
    for _ in range(repeat):
        with tempfile.TemporaryDirectory(prefix="relief-cold-") as cache:
            start = time.perf_counter()
            _, (seconds, stall) = run(["-c", WIDGET, source], cache, start)
            cold.append(seconds)
            stalls.append(stall)
            if wait:
                filled.append(wait_for_cache(cache, start))
            else:
                stop_compiles(cache)
    return cold, stalls, filled


def engine_case(which, source, repeat):
    """Cold seconds of the estimate (excluding making or reading the data)."""
    times = []
    for _ in range(repeat):
        with tempfile.TemporaryDirectory(prefix="relief-cold-") as cache:
            start = time.perf_counter()
            elapsed, (data_seconds,) = run(["-c", ENGINE, which, source], cache, start)
            times.append(elapsed - data_seconds)
            stop_compiles(cache)
    return times


def estimator_names():
    out = subprocess.run([sys.executable, "-m", "orangecontrib.relief.cli", "estimators"],
                         capture_output=True, text=True, check=True,
                         env=dict(os.environ, PYTHONPATH=ROOT)).stdout
    # one line per estimator: its name, then the class types it suits; indented detail lines
    return [(line.split()[0], "categorical" in line or "classification" in line)
            for line in out.splitlines() if line and not line[0].isspace()]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="ReliefF and MultiScaleRelief on heart_disease, the widget, "
                             "5,000 x 100 (ours and fast-select); one run each")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each case (3)")
    parser.add_argument("--snp", metavar="PATH",
                        help="a ReBATE SNP table (gzipped, tab-separated, a 'Class' column); "
                             "default: generated SNPs, 1,600 x 1,000")
    parser.add_argument("--large-only", action="store_true",
                        help="only ReliefF on 5,000 x 100 and the SNP table, ours and "
                             "fast-select")
    args = parser.parse_args(argv)
    repeat = 1 if args.quick else args.repeat
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; "
          f"{os.cpu_count()} cores; {repeat} run(s) per case: min / median / max", flush=True)
    if not args.large_only:
        heart_disease_cases(args, repeat)
    print()
    print("| ReliefF, k = 10, cold (s; the estimate, data made or read first) | ours "
          "| fast-select | fast-select / ours | target |")
    print("|---|---|---|---|---|")
    sources = [("5,000 × 100 numeric", "numeric")]
    if not args.quick:
        sources.append(("SNPs 1,600 × 1,000 (ReBATE)" if args.snp
                        else "SNPs 1,600 × 1,000 (generated)", args.snp or "snp"))
    for label, source in sources:
        ours = engine_case("ours", source, repeat)
        theirs = engine_case("fast-select", source, repeat)
        ratio = statistics.median(theirs) / statistics.median(ours)
        print(f"| {label} | {summary(ours)} | {summary(theirs)} | {ratio:.2f}× "
              f"| <= 15 s and <= fast-select |", flush=True)
    print()
    print("| Attribute Estimation widget, cold, generated data | seconds to its scores "
          "| longest stall (s) | target |")
    print("|---|---|---|---|")
    for label, source in [("5,000 × 100 numeric", "numeric"),
                          ("SNPs 1,600 × 1,000", "snp")][:1 if args.quick else 2]:
        cold, stalls, _ = widget_case(repeat, source, wait=False)
        print(f"| {label} | {summary(cold)} | {summary(stalls)} | stall <= 0.1 |", flush=True)
    print()
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


def heart_disease_cases(args, repeat):
    """The table of the heart_disease cases (the CLI for every estimator, the widget)."""
    print()
    print("| heart_disease, `orange-relief rank` | cold (s) | cache filled after (s) "
          "| warm (s) | target |")
    print("|---|---|---|---|---|")
    floor = []
    for _ in range(repeat):
        with tempfile.TemporaryDirectory(prefix="relief-cold-") as cache:
            floor.append(run(["-c", "from Orange.data import Table; Table('heart_disease')"],
                             cache)[0])
    print(f"| floor: a process that only reads heart_disease with Orange | {summary(floor)} "
          "| — | — | — |", flush=True)
    before = []
    for _ in range(repeat):
        with tempfile.TemporaryDirectory(prefix="relief-cold-") as cache:
            before.append(run(["-m", "orangecontrib.relief.cli", "rank", "-q"], cache,
                              mode="compiled")[0])
    print(f"| `rank` compiling its kernels in the process (ORANGE_RELIEF_KERNELS=compiled, "
          f"as before) | {summary(before)} | — | — | — |", flush=True)
    names = [("ReliefF", True), ("MultiScaleRelief", True)] if args.quick else estimator_names()
    for name, classification in names:
        if not classification:
            continue
        label = "`rank` (README's first command: ReliefF)" if name == "ReliefF" \
            else f"`rank --estimator {name}`"
        cold, filled, hot = cli_case(None if name == "ReliefF" else name, repeat,
                                     warm=name in ("ReliefF", "MultiScaleRelief"))
        print(f"| {label} | {summary(cold)} | {summary(filled)} | {summary(hot)} "
              f"| cold <= 5, warm <= 2 |", flush=True)
    cold, stalls, filled = widget_case(repeat)
    print(f"| Attribute Estimation widget (longest stall {summary(stalls)} s) | {summary(cold)} "
          f"| {summary(filled)} | — | cold <= 5, stall <= 0.1 |", flush=True)


if __name__ == "__main__":
    main()
