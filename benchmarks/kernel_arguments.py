"""Named bundles against positional arguments: the same ReliefF runs timed with the engine of
two git revisions in one run (the kernels reading namedtuples, and before them tuples read by
position), alternating, so the machine's load falls on both.

    python benchmarks/kernel_arguments.py BEFORE [AFTER]     # e.g. main HEAD
    python benchmarks/kernel_arguments.py BEFORE --quick

Each revision is exported (``git archive``) into a temporary folder and run in child
processes with a numba cache of its own: first a cold process (empty cache: the compile time
of the warm-up set of kernels), then ``--rounds`` rounds of warm processes that time exhaustive
ReliefF (k = 10) on complete numeric data, on the same data with 20 % of the values missing,
on discrete SNP-like data and with a sample of m instances (min / median / max of the
rounds). The missing-values path also changed its arithmetic between such revisions; the other
rows compare the same algorithm.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
FULL = [("complete 10,000 × 100", 10_000, 100, 0.0, False, None),
        ("20 % missing 10,000 × 100", 10_000, 100, 0.2, False, None),
        ("complete 5,000 × 1,000", 5_000, 1_000, 0.0, False, None),
        ("20 % missing 5,000 × 1,000", 5_000, 1_000, 0.2, False, None),
        ("discrete 1,600 × 1,000 (6 values)", 1_600, 1_000, 0.0, True, None),
        ("sampled m = 500, 20,000 × 100", 20_000, 100, 0.0, False, 500)]
QUICK = [("complete 2,000 × 100", 2_000, 100, 0.0, False, None),
         ("20 % missing 2,000 × 100", 2_000, 100, 0.2, False, None)]


def child(cases, cold):
    """Run in a child: time the cases (or, ``cold``, the warm-up set) and print JSON."""
    sys.path.insert(0, HERE)
    from relieff_speed import make_data
    from orangecontrib.relief.estimators import encode
    from orangecontrib.relief.estimators.relieff import ReliefF

    def data(n, a, missing, discrete, seed=0):
        X, y = make_data(n, a, missing=missing, seed=seed)
        if discrete:
            X = np.floor(X * 6)
        return encode(X, y, discrete=discrete, n_classes=2)

    start = time.perf_counter()
    for n, a, missing, discrete in ((2_000, 100, 0.0, False), (2_000, 100, 0.1, False),
                                    (2_000, 100, 0.0, True), (200, 5, 0.0, False)):
        ReliefF(k=10)(data(n, a, missing, discrete))
    times = {"warm-up": time.perf_counter() - start}
    if not cold:
        for label, n, a, missing, discrete, m in cases:
            d = data(n, a, missing, discrete)
            start = time.perf_counter()
            ReliefF(k=10, iterations=m, random_state=0)(d)
            times[label] = time.perf_counter() - start
    print(json.dumps(times))


def export(revision, folder):
    path = os.path.join(folder, revision.replace("/", "_"))
    os.makedirs(path)
    archive = subprocess.run(["git", "archive", revision], cwd=HERE, check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", path], input=archive, check=True)
    return path


def run(path, cache, quick, cold):
    env = dict(os.environ, PYTHONPATH=path, NUMBA_CACHE_DIR=cache)
    out = subprocess.run([sys.executable, os.path.abspath(__file__), "--child"]
                         + (["--quick"] if quick else []) + (["--cold"] if cold else []),
                         env=env, check=True, capture_output=True, text=True, cwd=path)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", nargs="?", default="main")
    parser.add_argument("after", nargs="?", default="HEAD")
    parser.add_argument("--quick", action="store_true", help="small cases, 2 rounds")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--cold", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    cases = QUICK if args.quick else FULL
    if args.child:
        child(cases, args.cold)
        return
    rounds = 2 if args.quick else args.rounds
    print(f"load average {' '.join(open('/proc/loadavg').read().split()[:3])}", flush=True)
    with tempfile.TemporaryDirectory() as folder:
        engines = {rev: export(rev, folder) for rev in (args.before, args.after)}
        caches = {rev: os.path.join(folder, f"cache-{i}") for i, rev in enumerate(engines)}
        results = {rev: {} for rev in engines}
        for rev, path in engines.items():       # cold: compile into an empty cache
            results[rev]["compile (cold warm-up)"] = [run(path, caches[rev], args.quick,
                                                          True)["warm-up"]]
        for _ in range(rounds):
            for rev, path in engines.items():
                for label, seconds in run(path, caches[rev], args.quick, False).items():
                    if label != "warm-up":
                        results[rev].setdefault(label, []).append(seconds)
    before, after = args.before, args.after
    print(f"| case | {before} (s) | {after} (s) | {after} / {before} (median) |")
    print("|---|---|---|---|")
    for label in results[before]:
        b, a = results[before][label], results[after][label]
        spread = lambda v: (f"{min(v):.2f} / {float(np.median(v)):.2f} / {max(v):.2f}"
                            if len(v) > 1 else f"{v[0]:.1f}")
        print(f"| {label} | {spread(b)} | {spread(a)} | "
              f"{float(np.median(a)) / float(np.median(b)):.2f} |", flush=True)
    print(f"load average {' '.join(open('/proc/loadavg').read().split()[:3])}", flush=True)


if __name__ == "__main__":
    main()
