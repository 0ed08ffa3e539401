"""False discoveries of the significance methods on simulated data with known null attributes.

Each repetition draws n instances of a uniform [0, 1] attributes; the class is random (the
"null" setting: every attribute is null) or, in the "signal" setting, the XOR of the first two
attributes thresholded at 0.5 plus a main effect of the third (so 3 relevant, a - 3 null). For
STIR and for permutation p-values of ReliefF (k = 10) it reports, averaged over repetitions:

* ``null q<.05``: the share of null attributes with Benjamini-Hochberg q < 0.05 (target <= 5 %);
* ``FDR``: the share of null attributes among those with q < 0.05 (0 when none is selected);
* ``null p<.05``: the share of null attributes with p < 0.05 (5 % for exact p-values);
* ``power``: the share of relevant attributes with q < 0.05;
* the time per repetition.

    python benchmarks/significance_fdr.py                  # 200 STIR / 40 permutation repetitions
    python benchmarks/significance_fdr.py --quick          # a smoke run
"""
import argparse
import time

import numpy as np

from orangecontrib.relief.estimators import encode
from orangecontrib.relief.estimators.relieff import ReliefF
from orangecontrib.relief.estimators.significance import permutation_test, stir

N_RELEVANT = 3


def draw(setting, n, a, rng):
    X = rng.random((n, a))
    if setting == "null":
        y = rng.integers(0, 2, n)
    else:
        xor = (X[:, 0] > 0.5) ^ (X[:, 1] > 0.5)
        y = np.where(rng.random(n) < 0.8, xor, X[:, 2] > 0.5).astype(int)
    return encode(X, y, n_classes=2)


def run(setting, method, reps, n, a, permutations):
    null = np.arange(a) >= (0 if setting == "null" else N_RELEVANT)
    rows = []
    start = time.perf_counter()
    for rep in range(reps):
        rng = np.random.default_rng(rep)
        data = draw(setting, n, a, rng)
        if method == "STIR":
            result = stir(ReliefF(k=10), data)
        else:
            result = permutation_test(ReliefF(k=10), data, permutations, random_state=rep)
        chosen = result.qvalues < 0.05
        rows.append((chosen[null].mean(), (chosen & null).sum() / max(chosen.sum(), 1),
                     (result.pvalues[null] < 0.05).mean(),
                     chosen[~null].mean() if (~null).any() else np.nan))
    seconds = (time.perf_counter() - start) / reps
    return np.mean(rows, axis=0), seconds


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=200, help="STIR repetitions")
    parser.add_argument("--perm-reps", type=int, default=40, help="permutation repetitions")
    parser.add_argument("--permutations", type=int, default=499)
    parser.add_argument("-n", type=int, default=100, help="instances")
    parser.add_argument("-a", type=int, default=30, help="attributes")
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    if args.quick:
        args.reps, args.perm_reps, args.permutations = 10, 3, 99
    print(f"{args.n} instances x {args.a} attributes, ReliefF k = 10\n")
    print("| setting | method | repetitions | null q<.05 | FDR | null p<.05 | power | s/rep |")
    print("|---|---|---|---|---|---|---|---|")
    for setting in ("null", "signal"):
        for method, reps in (("STIR", args.reps), (f"permutation R={args.permutations}",
                                                   args.perm_reps)):
            (share, fdr, type1, power), seconds = run(setting, method.split()[0], reps, args.n,
                                                      args.a, args.permutations)
            power = "—" if np.isnan(power) else f"{power:.1%}"
            print(f"| {setting} | {method} | {reps} | {share:.2%} | {fdr:.1%} | {type1:.1%} | "
                  f"{power} | {seconds:.2f} |")


if __name__ == "__main__":
    main()
