"""Calibration and false discoveries of the significance methods on simulated data with known
null attributes.

Each repetition draws n instances of a uniform [0, 1] attributes and a two-class target:

* ``null 50/50`` and ``null 30/70``: the class is unrelated to the attributes, with classes of
  equal size or one class holding 30 % of the instances (every attribute is null);
* ``5 main``: the class is 1 when the sum of the first five attributes plus normal noise
  (sd 0.5) exceeds 2.5 (5 relevant attributes);
* ``XOR+main``: with probability 0.8 the XOR of the first two attributes thresholded at 0.5,
  else the third thresholded at 0.5 (3 relevant).

Methods: STIR with the authors' t distribution (``calibration=0``), STIR calibrated by 30
permutations (the default) on ReliefF (k = 10) and on MultiSURF, and permutation p-values of
ReliefF. Per setting and method, over the repetitions:

* ``KS p``: Kolmogorov-Smirnov test of the null attributes' p-values against the uniform
  distribution (pooled over repetitions; small = not uniform);
* ``null p<.05``: the share of null attributes with p < 0.05 (5 % for valid p-values);
* ``null q<.05``: the share of null attributes with Benjamini-Hochberg q < 0.05;
* ``any FD``: the share of repetitions with at least one null attribute at q < 0.05 (with no
  relevant attribute this is the false discovery rate, at most 5 % for valid p-values);
* ``FDR``: the mean share of null attributes among those with q < 0.05 (0 when none);
* ``power``: the share of relevant attributes with q < 0.05;
* the time per repetition in seconds.

    python benchmarks/significance_fdr.py            # 200 STIR / 40 permutation repetitions
    python benchmarks/significance_fdr.py --quick    # a smoke run (about a minute)
"""
import argparse
import os
import time

import numpy as np
from scipy import stats

from orangecontrib.relief.estimators import encode
from orangecontrib.relief.estimators.relieff import ReliefF
from orangecontrib.relief.estimators.significance import permutation_test, stir
from orangecontrib.relief.estimators.surf import MultiSURF

SETTINGS = ("null 50/50", "null 30/70", "5 main", "XOR+main")


def draw(setting, n, a, rng):
    """(data, null mask) of one repetition."""
    X = rng.random((n, a))
    if setting.startswith("null"):
        share = 0.5 if setting.endswith("50/50") else 0.3
        y = (rng.permutation(n) < round(share * n)).astype(int)
        relevant = 0
    elif setting == "5 main":
        y = (X[:, :5].sum(axis=1) + rng.normal(0, 0.5, n) > 2.5).astype(int)
        relevant = 5
    else:
        xor = (X[:, 0] > 0.5) ^ (X[:, 1] > 0.5)
        y = np.where(rng.random(n) < 0.8, xor, X[:, 2] > 0.5).astype(int)
        relevant = 3
    return encode(X, y, n_classes=2), np.arange(a) >= relevant


def methods(permutations):
    """name -> function(data, seed) giving a Significance."""
    return {
        "STIR ReliefF, t distribution": lambda data, seed: stir(ReliefF(k=10), data,
                                                                calibration=0),
        "STIR ReliefF, calibrated": lambda data, seed: stir(ReliefF(k=10), data,
                                                            random_state=seed),
        "STIR MultiSURF, calibrated": lambda data, seed: stir(MultiSURF(), data,
                                                              random_state=seed),
        f"permutations ReliefF, R={permutations}": lambda data, seed: permutation_test(
            ReliefF(k=10), data, permutations, random_state=seed),
    }


def run(setting, method, reps, n, a):
    null_p, rows = [], []
    start = time.perf_counter()
    for rep in range(reps):
        rng = np.random.default_rng(rep)
        data, null = draw(setting, n, a, rng)
        result = method(data, rep)
        chosen = result.qvalues < 0.05
        null_p.append(result.pvalues[null])
        rows.append((chosen[null].mean(), chosen[null].any(),
                     (chosen & null).sum() / max(chosen.sum(), 1),
                     chosen[~null].mean() if (~null).any() else np.nan))
    seconds = (time.perf_counter() - start) / reps
    null_p = np.concatenate(null_p)
    ks = stats.kstest(null_p, "uniform").pvalue
    share_q, any_fd, fdr, power = np.mean(rows, axis=0)
    return ks, (null_p < 0.05).mean(), share_q, any_fd, fdr, power, seconds


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=200, help="repetitions of the STIR methods")
    parser.add_argument("--multisurf-reps", type=int, default=None,
                        help="repetitions of STIR on MultiSURF (default: --reps)")
    parser.add_argument("--perm-reps", type=int, default=40,
                        help="repetitions of the permutation method")
    parser.add_argument("--permutations", type=int, default=499)
    parser.add_argument("-n", type=int, default=200, help="instances")
    parser.add_argument("-a", type=int, default=30, help="attributes")
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    if args.quick:
        args.reps, args.multisurf_reps, args.perm_reps, args.permutations = 20, 20, 3, 99
    load = os.getloadavg()
    print(f"{args.n} instances x {args.a} attributes; load average "
          f"{load[0]:.1f} {load[1]:.1f} {load[2]:.1f}\n")
    print("| setting | method | reps | KS p | null p<.05 | null q<.05 | any FD | FDR | power "
          "| s/rep |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for setting in SETTINGS:
        for name, method in methods(args.permutations).items():
            reps = args.perm_reps if name.startswith("perm") else \
                (args.multisurf_reps or args.reps) if "MultiSURF" in name else args.reps
            ks, p05, q05, any_fd, fdr, power, seconds = run(setting, method, reps, args.n,
                                                            args.a)
            power = "—" if np.isnan(power) else f"{power:.1%}"
            print(f"| {setting} | {name} | {reps} | {ks:.2g} | {p05:.1%} | {q05:.2%} | "
                  f"{any_fd:.1%} | {fdr:.1%} | {power} | {seconds:.2f} |", flush=True)


if __name__ == "__main__":
    main()
