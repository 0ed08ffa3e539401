"""Speed and peak memory of the unified Π framework (targets: t = 5,000 x 100 discrete <= 5 s;
t = 20,000 x 20 <= 20 s with peak memory <= 2 GB) and of Contextual Merit on the same data.

Each case runs in a fresh subprocess, which reports the wall time of the estimator call (after
a warm-up on a tiny table, so numba compilation is not counted) and its peak resident memory
(``ru_maxrss``, the whole process: Python, numpy, the data), and the CPU time of all its
threads (on a machine shared with other jobs the wall time grows, the CPU time does not; on an
idle machine with c cores the wall time is about CPU / c). No PyPI package implements Π or
Contextual Merit, so there is no peer to compare with; the last column is the time per pair of
instances and attribute, which makes the O(n t^2) cases comparable.

    python benchmarks/pi_speed.py            # the two acceptance cases
    python benchmarks/pi_speed.py --all      # plus numeric, sampled and CM rows
"""
import argparse
import json
import resource
import subprocess
import sys
import time

import numpy as np

#: name -> (instances, discrete attributes, numeric attributes, classes, estimator expression)
CASES = {
    "pi-5000x100": (5000, 100, 0, 2, "UnifiedPi()"),
    "pi-20000x20": (20000, 20, 0, 2, "UnifiedPi()"),
    "pi-20000x20-numeric": (20000, 0, 20, 2, "UnifiedPi()"),
    "pi-100000x20-sample5000": (100000, 20, 0, 2, "UnifiedPi(sample=5000, random_state=0)"),
    "cm-5000x100": (5000, 100, 0, 2, "ContextualMerit()"),
}
ACCEPTANCE = {"pi-5000x100": (5.0, None), "pi-20000x20": (20.0, 2048.0)}


def make_data(n, n_discrete, n_numeric, n_classes, seed=0):
    """Discrete attributes with 2-5 values and uniform numeric ones; the class depends on the
    first two attributes (parity-like) so the data are not pure noise."""
    from orangecontrib.relief.estimators import encode
    rng = np.random.default_rng(seed)
    n_values = rng.integers(2, 6, n_discrete)
    disc = rng.integers(0, n_values, size=(n, n_discrete)).astype(float)
    num = rng.random((n, n_numeric))
    X = np.column_stack([disc, num])
    first = X[:, :2] if n_discrete else np.floor(X[:, :2] * 3)
    y = first.sum(axis=1) % n_classes
    discrete = np.r_[np.ones(n_discrete, bool), np.zeros(n_numeric, bool)]
    return encode(X, y, discrete=discrete, n_values=np.r_[n_values, np.zeros(n_numeric, int)],
                  n_classes=n_classes)


def run_case(name):
    from orangecontrib.relief.estimators.contextual_merit import ContextualMerit  # noqa: F401
    from orangecontrib.relief.estimators.unified_pi import UnifiedPi  # noqa: F401
    n, n_disc, n_num, n_cls, expr = CASES[name]
    estimator = eval(expr)
    estimator(make_data(50, n_disc, n_num, n_cls))            # numba compilation
    data = make_data(n, n_disc, n_num, n_cls)
    start, cpu_start = time.perf_counter(), time.process_time()
    scores = estimator(data)
    seconds = time.perf_counter() - start
    cpu = time.process_time() - cpu_start
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"seconds": seconds, "cpu": cpu, "peak_mb": peak_mb,
                      "finite": bool(np.isfinite(scores).all())}))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--all", action="store_true", help="also the extra rows")
    parser.add_argument("--case", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.case:
        run_case(args.case)
        return
    names = list(CASES) if args.all else list(ACCEPTANCE)
    print(f"{'case':26} {'t':>7} {'attrs':>5} {'seconds':>8} {'CPU s':>7} {'peak MB':>8} "
          f"{'ns/pair/attr':>12}  criterion")
    ok = True
    for name in names:
        out = subprocess.run([sys.executable, __file__, "--case", name], check=True,
                             capture_output=True, text=True).stdout
        result = json.loads(out.strip().splitlines()[-1])
        n, n_disc, n_num, _, expr = CASES[name]
        s = int(expr.split("sample=")[1].split(",")[0]) if "sample=" in expr else n
        per = result["seconds"] / (s * s * (n_disc + n_num)) * 1e9
        verdict = ""
        if name in ACCEPTANCE:
            limit_s, limit_mb = ACCEPTANCE[name]
            passed = result["seconds"] <= limit_s and (limit_mb is None
                                                       or result["peak_mb"] <= limit_mb)
            ok &= passed
            verdict = (f"<= {limit_s:g} s" + (f", <= {limit_mb:g} MB" if limit_mb else "")
                       + (": ok" if passed else ": FAILED"))
        print(f"{name:26} {n:7d} {n_disc + n_num:5d} {result['seconds']:8.2f} {result['cpu']:7.2f} "
              f"{result['peak_mb']:8.0f} {per:12.2f}  {verdict}")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
