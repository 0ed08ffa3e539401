"""ReliefF speed: our engine against Orange's and scikit-rebate's ReliefF, in one run.

    python benchmarks/relieff_speed.py            # the target sizes (several minutes)
    python benchmarks/relieff_speed.py --quick    # a small smoke run (seconds)

Every case is ReliefF with k = 10 on numeric data (uniform [0, 1] attributes; the class is the
XOR of the first two attributes thresholded at 0.5), using all instances as iterations unless
the case says m:

* ours: ``orangecontrib.relief.estimators.relieff.ReliefF(k=10)`` on ``encode(X, y)`` (numba
  functions are compiled on a tiny warm-up set first, so the times exclude JIT compilation);
* Orange: ``Orange.preprocess.score.ReliefF(n_iterations=m, k_nearest=10)`` on a Table;
* scikit-rebate: ``skrebate.ReliefF(n_neighbors=10).fit(X, y)`` (always all instances; it
  builds an N x N distance matrix, so it cannot run at 50,000 rows).

A peer whose cost (N²·A, or m·N·A for Orange) exceeds its budget is timed at a smaller number of
rows n and n/2 and extrapolated to N with the exponent fitted to those two times (clamped to
[1, 2]); such cells are marked "≈" and the note says from which n. Peak memory is measured in a
subprocess: resident memory sampled every 5 ms during the call, minus the resident memory
before it (data, imports and compiled code already loaded); the process's ru_maxrss is shown
too. It uses m iterations (a few thousand) rather than all 50,000: the neighbour search works in
blocks of a fixed number of rows, so its peak does not grow with m, and the context (m x k
neighbour indices and weights per class) is a few MB at m = 50,000. Each time is one run (wall
clock), except the missing-values ratio, which compares the best of ``MISSING_REPEATS`` runs.
"""
import argparse
import functools
import json
import math
import os
import resource
import subprocess
import sys
import threading
import time

import numpy as np

K = 10
SEED = 0
#: the missing-values ratio compares the best of this many runs of each (a ratio of two
#: single runs of about a second moves by ±0.2 on a shared machine)
MISSING_REPEATS = 3

FULL = dict(
    speed=[(10_000, 100, 3), (50_000, 10, 10), (50_000, 100, 60), (10_000, 1_000, 40)],
    sampled=(50_000, 1_000, 100, 3),  # rows, attributes, m, target seconds
    memory=(50_000, 1_000, 500),      # rows, attributes, m
    missing=[(10_000, 100, 0.2), (5_000, 1_000, 0.2)],  # rows, attributes, fraction
    budgets={"Orange": 1.0e10, "skrebate": 4.0e8},
)
QUICK = dict(
    speed=[(1_000, 20, None), (2_000, 10, None), (2_000, 50, None), (500, 200, None)],
    sampled=(3_000, 200, 50, None),
    memory=(3_000, 200, 500),
    missing=[(1_000, 20, 0.2)],
    budgets={"Orange": 5.0e7, "skrebate": 2.0e7},
)


def make_data(n, a, missing=0.0, seed=SEED):
    """Uniform numeric attributes, class = XOR of the first two thresholded at 0.5; a fraction
    ``missing`` of the attribute values set to NaN."""
    rng = np.random.default_rng(seed)
    X = rng.random((n, a))
    y = ((X[:, 0] > 0.5) ^ (X[:, 1] > 0.5)).astype(float)
    if missing:
        X[rng.random(X.shape) < missing] = np.nan
    return X, y


def timed(function):
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


def run_ours(X, y, m=None):
    from orangecontrib.relief.estimators import encode
    from orangecontrib.relief.estimators.relieff import ReliefF
    return ReliefF(k=K, iterations=m, random_state=SEED)(encode(X, y, n_classes=2))


def run_orange(X, y, m=None):
    from Orange.data import ContinuousVariable, DiscreteVariable, Domain, Table
    from Orange.preprocess.score import ReliefF
    domain = Domain([ContinuousVariable(f"x{i}") for i in range(X.shape[1])],
                    DiscreteVariable("y", values=("0", "1")))
    table = Table.from_numpy(domain, X, y)
    return ReliefF(n_iterations=m or len(y), k_nearest=K, random_state=SEED)(table)


def run_skrebate(X, y, m=None):
    import skrebate
    return skrebate.ReliefF(n_neighbors=K).fit(X, y.astype(int)).feature_importances_


PEERS = {"Orange": run_orange, "skrebate": run_skrebate}


def peer_cost(peer, n, a, m):
    return (m or n) * n * a if peer == "Orange" else n * n * a


@functools.lru_cache(maxsize=None)
def measure_peer(peer, n, a, m):
    """Seconds of one run of ``peer`` on n x a (remembered: extrapolations share sizes)."""
    X, y = make_data(n, a)
    return timed(lambda: PEERS[peer](X, y, m))


def time_peer(peer, n, a, m, budget):
    """(seconds, note): measured at n rows, or extrapolated from two smaller sizes."""
    if m is not None and peer == "skrebate":
        return None, "skrebate has no iteration sampling"
    if peer_cost(peer, n, a, m) <= budget:
        return measure_peer(peer, n, a, m), ""
    # the largest n' (a multiple of 100) within the budget, and n'/2
    if m is None:
        rows = int(math.sqrt(budget / a)) // 100 * 100
    else:
        rows = int(budget / (m * a)) // 100 * 100
    rows = max(rows, 200)
    times = []
    for size in (rows // 2, rows):
        times.append(measure_peer(peer, size, a, m))
    exponent = min(2.0, max(1.0, math.log(times[1] / times[0]) / math.log(2)))
    return times[1] * (n / rows) ** exponent, \
        f"{peer} ≈ from {rows:,} and {rows // 2:,} rows, time ∝ N^{exponent:.2f}"


def current_rss_mb():
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2 ** 20


def memory_child(n, a, m):
    """Run in a subprocess: the resident memory (MB) before our ReliefF runs on n x a with m
    iterations (data and imports loaded, numba compiled), its peak during the run (sampled every
    5 ms), and the process's peak RSS (ru_maxrss, including the numba compilation)."""
    run_ours(*make_data(200, 5))  # warm-up: compile before measuring
    X, y = make_data(n, a)
    before = current_rss_mb()
    peak = [before]
    done = threading.Event()

    def sample():
        while not done.wait(0.005):
            peak[0] = max(peak[0], current_rss_mb())

    sampler = threading.Thread(target=sample)
    sampler.start()
    seconds = timed(lambda: run_ours(X, y, m))
    done.set()
    sampler.join()
    peak[0] = max(peak[0], current_rss_mb())
    print(json.dumps({"before_mb": before, "peak_mb": peak[0], "seconds": seconds,
                      "maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))


def measure_memory(n, a, m):
    out = subprocess.run([sys.executable, os.path.abspath(__file__), "--memory-child",
                          str(n), str(a), str(m)], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def fmt_seconds(s):
    return "—" if s is None else f"{s:.2f}" if s < 100 else f"{s:.0f}"


def fmt_ratio(peer, ours):
    return "—" if peer is None else f"{peer / ours:.1f}×"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small smoke run")
    parser.add_argument("--no-peers", action="store_true", help="time only our ReliefF")
    parser.add_argument("--memory-child", nargs=3, type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.memory_child:
        memory_child(*args.memory_child)
        return
    plan = QUICK if args.quick else FULL
    peers = [] if args.no_peers else list(PEERS)
    for run in [run_ours] + [PEERS[peer] for peer in peers]:
        run(*make_data(200, 5))  # warm-up: imports, numba compilation

    # cheap measurements first, then the speed cases by increasing cost; every line is
    # printed when measured, so an interrupted run still reports what it finished
    n, a, m = plan["memory"]
    memory = measure_memory(n, a, m)
    growth = memory["peak_mb"] - memory["before_mb"]
    report(f"Peak memory, ours, {n:,} × {a:,} (m = {m:,}; {memory['seconds']:.1f} s): "
           f"{growth:.0f} MB above the {memory['before_mb']:.0f} MB resident before the call "
           f"(data, imports, compiled code), peak resident {memory['peak_mb']:.0f} MB; the "
           f"process's ru_maxrss, numba compilation included, {memory['maxrss_mb']:.0f} MB "
           f"(target ≤ 1 GB).")

    def best(X, y):
        return min(timed(lambda: run_ours(X, y)) for _ in range(MISSING_REPEATS))

    for n, a, fraction in plan["missing"]:
        complete = best(*make_data(n, a))
        incomplete = best(*make_data(n, a, missing=fraction))
        report(f"Missing values, ours, {n:,} × {a:,} (best of {MISSING_REPEATS} runs each): "
               f"complete {complete:.2f} s, {fraction:.0%} missing {incomplete:.2f} s, ratio "
               f"{incomplete / complete:.2f} (target ≤ 1.5).")

    header = ["case", "ours (s)", "target (s)"]
    for peer in peers:
        header += [f"{peer} (s)", f"{peer} / ours"]
    report("")
    report("| " + " | ".join(header) + " |")
    report("|" + "---|" * len(header))
    notes = []
    n, a, m, target = plan["sampled"]
    cases = [(f"{n:,} × {a:,}, m = {m}", n, a, m, target)]
    cases += [(f"{n:,} × {a:,}", n, a, None, target)
              for n, a, target in sorted(plan["speed"], key=lambda c: c[0] ** 2 * c[1])]
    for label, n, a, m, target in cases:
        X, y = make_data(n, a)
        ours = timed(lambda: run_ours(X, y, m))
        del X, y
        row = [label, fmt_seconds(ours), "—" if target is None else f"≤ {target}"]
        for peer in peers:
            seconds, note = time_peer(peer, n, a, m, plan["budgets"][peer])
            mark = "≈ " if note and seconds is not None else ""
            row += [mark + fmt_seconds(seconds), fmt_ratio(seconds, ours)]
            if note:
                notes.append(f"{label}: {note}")
        report("| " + " | ".join(row) + " |")
    report("")
    for note in notes:
        report(f"- {note}")


def report(line):
    print(line, flush=True)

if __name__ == "__main__":
    main()
