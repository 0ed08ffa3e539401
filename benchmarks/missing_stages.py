"""Where exhaustive ReliefF's time goes with missing values: each stage of the single-precision
search and the diff sums timed on complete data and with 20 % of the values missing (MCAR), in
the same rounds, and the missing / complete ratio of each stage.

    python benchmarks/missing_stages.py            # 10,000 x 100 and 5,000 x 1,000, 3 rounds
    python benchmarks/missing_stages.py --quick    # 2,000 x 100, 2 rounds

Stages: ``panels`` (the float32 panels with their corrections, and the lists of each instance's
missing values), ``pairs`` (the float32 pair kernel), ``certify`` (the kept candidates'
double-precision distances), ``sums`` (the diff sums of the estimate) and ``rest`` (everything
else of the call: the diff model and RELIEF-D's probabilities, the rows searched again in double
precision, the plan of the sums). The kernels run compiled (compiled first, untimed). Median of
the rounds; the load average is printed with the figures.
"""
import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from relieff_speed import make_data  # noqa: E402

STAGES = {"panels": ("single_precision", ("_fill", "_list_missing")),
          "pairs": ("single_precision", ("_search_pairs",)),
          "certify": ("single_precision", ("_certify",)),
          "sums": ("diff_sums", ("_fused_sums",))}


class Timed:
    """A stand-in for a kernel that adds the seconds of each call to ``times[stage]``."""

    def __init__(self, function, stage, times):
        self.function, self.stage, self.times = function, stage, times

    def __call__(self, *args, **kwargs):
        start = time.perf_counter()
        try:
            return self.function(*args, **kwargs)
        finally:
            self.times[self.stage] = self.times.get(self.stage, 0.0) + time.perf_counter() - start

    def __getattr__(self, name):         # the dispatcher's attributes (signatures, cache)
        return getattr(self.function, name)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2,000 x 100, 2 rounds")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    from importlib import import_module
    from orangecontrib.relief.compilation import kernel_mode
    from orangecontrib.relief.estimators import encode
    from orangecontrib.relief.estimators.relieff import ReliefF

    sizes = [(2_000, 100)] if args.quick else [(10_000, 100), (5_000, 1_000)]
    rounds = 2 if args.quick else args.rounds
    times = {}
    for stage, (module, names) in STAGES.items():
        module = import_module(f"orangecontrib.relief.estimators.neighbourhood.{module}")
        for name in names:
            setattr(module, name, Timed(getattr(module, name), stage, times))
    print(f"load average {' '.join(open('/proc/loadavg').read().split()[:3])}", flush=True)
    with kernel_mode("compiled"):
        for n, a in sizes:
            X, y = make_data(n, a)
            cases = {"complete": encode(X, y, n_classes=2),
                     "20 % missing": encode(*make_data(n, a, missing=0.2), n_classes=2)}
            for data in cases.values():
                ReliefF(k=10)(data)                 # compile (or load) the kernels
            table = {case: {} for case in cases}
            for _ in range(rounds):
                for case, data in cases.items():
                    times.clear()
                    start = time.perf_counter()
                    ReliefF(k=10)(data)
                    total = time.perf_counter() - start
                    times["rest"] = total - sum(times.values())
                    times["total"] = total
                    for stage, seconds in times.items():
                        table[case].setdefault(stage, []).append(seconds)
            print(f"\n{n:,} × {a:,}, median of {rounds} rounds (s)")
            print("| stage | complete | 20 % missing | missing − complete | ratio |")
            print("|---|---|---|---|---|")
            for stage in list(STAGES) + ["rest", "total"]:
                c = float(np.median(table["complete"].get(stage, [0.0])))
                m = float(np.median(table["20 % missing"].get(stage, [0.0])))
                ratio = f"{m / c:.2f}" if c > 0 else "–"
                print(f"| {stage} | {c:.3f} | {m:.3f} | {m - c:+.3f} | {ratio} |", flush=True)
    print(f"\nload average {' '.join(open('/proc/loadavg').read().split()[:3])}", flush=True)


if __name__ == "__main__":
    main()
