"""Regenerate scikit-rebate's numbers of its wrappers VLS and Iter (run by hand, never by the
tests; needs scikit-rebate 0.8.4):

    python tests/data/skrebate/make_wrappers.py

On ``binary.csv`` of this directory (300 rows of scikit-rebate's GAMETES 2-way SNP file, the
target last), ``wrappers.scores.csv`` gets one line per run: its name, then one score per
attribute, scikit-rebate's ``feature_importances_``:

* ``Iter(MultiSURF)``, ``Iter(SURF)``: ``Iter(Estimator(n_jobs=1)).fit(X, y)`` (max_iter=10,
  convergence_threshold=0.0001, beta=0.1);
* ``VLS(MultiSURF)``: ``VLS(MultiSURF(n_jobs=1), num_feature_subset=8, size_feature_subset=5,
  random_state=7).fit(X, y)``, and before it the lines ``subset`` with the attribute indices of
  each subset it scored (drawn as its ``fit`` draws them: Python's and numpy's generators seeded
  with 7, then its ``make_subsets``), so that a test scores the same subsets.
"""
import copy
import csv
import os
import random

import numpy as np
import skrebate
from skrebate.iter import Iter
from skrebate.vls import VLS

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    assert skrebate.__version__ == "0.8.4", skrebate.__version__
    with open(os.path.join(HERE, "binary.csv")) as f:
        rows = list(csv.reader(f))[1:]
    values = np.array(rows, dtype=float)
    X, y = values[:, :-1], values[:, -1]
    lines = []
    for name in ("MultiSURF", "SURF"):
        scores = Iter(getattr(skrebate, name)(n_jobs=1)).fit(X, y).feature_importances_
        lines.append([f"Iter({name})"] + [repr(float(s)) for s in scores])
        print(lines[-1][0], flush=True)
    vls = VLS(skrebate.MultiSURF(n_jobs=1), num_feature_subset=8, size_feature_subset=5,
              random_state=7)
    random.seed(7)
    np.random.seed(7)
    subsets = copy.deepcopy(vls).make_subsets(list(range(X.shape[1])), 8, 5)
    scores = vls.fit(X, y).feature_importances_
    lines += [["subset"] + [str(i) for i in s] for s in subsets]
    lines.append(["VLS(MultiSURF)"] + [repr(float(s)) for s in scores])
    with open(os.path.join(HERE, "wrappers.scores.csv"), "w", newline="") as f:
        csv.writer(f).writerows(lines)


if __name__ == "__main__":
    main()
