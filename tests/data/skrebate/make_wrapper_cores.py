"""Regenerate scikit-rebate's numbers of its wrappers around every core (run by hand, never by
the tests; needs scikit-rebate 0.8.4):

    python tests/data/skrebate/make_wrapper_cores.py

On every third row of each ``<name>.csv`` of this directory (rows 0, 3, ..., 297: 100 rows of
the five GAMETES files and of the 100 SNPs; attributes with at most 10 values discrete, as
scikit-rebate decides), ``<name>.wrappers.scores.csv`` gets one line per run: its name, then one score per attribute, scikit-rebate's
``feature_importances_``, for every core ``C`` of ``make_reference.ESTIMATORS`` (ReliefF and
MuRelief with ``n_neighbors=10``):

* ``Iter(C)``: ``Iter(C(n_jobs=1), max_iter=3).fit(X, y)`` (convergence_threshold=0.0001,
  beta=0.1: an unweighted round, one weighted by u, one by the Widrow-Hoff update); on ``mixed`` its weighted distance fails (a ValueError of scipy), and the line
  says ``failed`` instead of scores;
* ``VLS(C)``: ``VLS(C(n_jobs=1), num_feature_subset=8, size_feature_subset=SIZE,
  random_state=7).fit(X, y)`` (SIZE 5 of 20 attributes, 20 of 100 SNPs), after the lines
  ``subset`` with the attribute indices of each subset it scored (drawn as its ``fit`` draws
  them: Python's and numpy's generators seeded with 7, then its ``make_subsets``; the same for
  every core).
"""
import copy
import csv
import os
import random
import warnings

import numpy as np
import skrebate
from skrebate.iter import Iter
from skrebate.vls import VLS

from make_reference import ESTIMATORS

HERE = os.path.dirname(os.path.abspath(__file__))
FILES = ("binary", "three_classes", "continuous", "mixed", "missing", "snps")
SUBSETS = 8
#: every STEP-th row of each file
STEP = 3
ROUNDS = 3


def every_third_row(name):
    """(X, y) of every STEP-th row of ``<name>.csv`` (an empty cell NaN, the target last)."""
    with open(os.path.join(HERE, f"{name}.csv")) as f:
        rows = list(csv.reader(f))[1:]
    values = np.array([[float(v) if v else np.nan for v in r] for r in rows])
    return values[::STEP, :-1], values[::STEP, -1]


def main():
    assert skrebate.__version__ == "0.8.4", skrebate.__version__
    warnings.filterwarnings("ignore")
    for name in FILES:
        X, y = every_third_row(name)
        size = 5 if X.shape[1] <= 40 else 20
        lines = []
        for core, kwargs in ESTIMATORS.items():
            try:
                iterative = Iter(getattr(skrebate, core)(n_jobs=1, **kwargs), max_iter=ROUNDS)
                scores = iterative.fit(X, y).feature_importances_
                lines.append([f"Iter({core})"] + [repr(float(s)) for s in scores])
            except ValueError:
                lines.append([f"Iter({core})", "failed"])
            print(name, lines[-1][0], flush=True)
        random.seed(7)
        np.random.seed(7)
        vls = VLS(skrebate.MultiSURF(n_jobs=1), num_feature_subset=SUBSETS,
                  size_feature_subset=size, random_state=7)
        subsets = copy.deepcopy(vls).make_subsets(list(range(X.shape[1])), SUBSETS, size)
        lines += [["subset"] + [str(i) for i in s] for s in subsets]
        for core, kwargs in ESTIMATORS.items():
            vls = VLS(getattr(skrebate, core)(n_jobs=1, **kwargs), num_feature_subset=SUBSETS,
                      size_feature_subset=size, random_state=7)
            lines.append([f"VLS({core})"] + [repr(float(s))
                                               for s in vls.fit(X, y).feature_importances_])
            print(name, lines[-1][0], flush=True)
        with open(os.path.join(HERE, f"{name}.wrappers.scores.csv"), "w", newline="") as f:
            csv.writer(f).writerows(lines)


if __name__ == "__main__":
    main()
