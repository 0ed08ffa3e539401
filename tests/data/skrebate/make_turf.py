"""Regenerate scikit-rebate's numbers of its TURF around the cores (run by hand, never by the
tests; needs scikit-rebate 0.8.4):

    python tests/data/skrebate/make_turf.py

On every third row of each ``<name>.csv`` of this directory (100 rows; attributes with at most
10 values discrete, as scikit-rebate decides), ``<name>.turf.scores.csv`` gets one line per run:
``TURF(C, pct, num_scores_to_return)``, then scikit-rebate's ``feature_importances_`` of

    TURF(C(n_jobs=1), pct=pct, num_scores_to_return=num_scores_to_return).fit(X, y)

for the cores ``C`` of ``CORES`` (ReliefF and MuRelief with ``n_neighbors=10``) and the settings
of ``SETTINGS``: removal rounds that stop at the number of scores, that run out of rounds, and
that stop after one round (its default 100 scores of 20 attributes).
"""
import csv
import os
import warnings

import skrebate
from skrebate.turf import TURF

from make_wrapper_cores import FILES, HERE, every_third_row
CORES = {"MultiSURF": {}, "SURFstar": {}, "ReliefF": {"n_neighbors": 10},
         "SWRFstar": {}, "MuRelief": {"n_neighbors": 10}}
SETTINGS = ((0.5, 5), (0.3, 2), (0.5, 100))


def main():
    assert skrebate.__version__ == "0.8.4", skrebate.__version__
    warnings.filterwarnings("ignore")
    for name in FILES:
        X, y = every_third_row(name)
        lines = []
        for core, kwargs in CORES.items():
            for pct, scores in SETTINGS:
                turf = TURF(getattr(skrebate, core)(n_jobs=1, **kwargs), pct=pct,
                            num_scores_to_return=scores)
                lines.append([f"TURF({core}, {pct}, {scores})"]
                             + [repr(float(s)) for s in turf.fit(X, y).feature_importances_])
                print(name, lines[-1][0], flush=True)
        with open(os.path.join(HERE, f"{name}.turf.scores.csv"), "w", newline="") as f:
            csv.writer(f).writerows(lines)


if __name__ == "__main__":
    main()
