"""Regenerate the scikit-rebate reference numbers of this directory (run by hand, never by the
tests; needs scikit-rebate 0.8.4 and the source files):

    python tests/data/skrebate/make_reference.py SKREBATE_DATA_DIR REBATE_SNP_FILE

SKREBATE_DATA_DIR holds scikit-rebate's five GAMETES test files, REBATE_SNP_FILE one ReBATE
replicate (a gzipped tab-separated file with a ``Class`` column, e.g. the 100-SNP
``a_100/s_1600/her_0.4__maf_0.2/EDM-2/rep_05.txt.gz``). ``ROWS`` rows of each, evenly spaced (the
files are sorted by class; rows 0, ..., N - 1 at ``numpy.linspace(0, N - 1, ROWS)`` truncated), are written
here as ``<name>.csv`` (the target last, named ``class``), and the scores of every estimator as
``<name>.scores.csv``: one line per estimator, its name, then one score per attribute, as
scikit-rebate's ``feature_importances_`` after ``Estimator(n_jobs=1[, n_neighbors=10]).fit(X, y)``
with X, y the numpy arrays of the written file (missing values as NaN)."""
import csv
import gzip
import os
import sys

import numpy as np
import skrebate

ROWS = 300
HERE = os.path.dirname(os.path.abspath(__file__))
FILES = {
    "binary": "GAMETES_Epistasis_2-Way_20atts_0.4H_EDM-1_1.csv",
    "three_classes": "3Class_Datasets_Loc_2_01.csv",
    "continuous": "GAMETES_Epistasis_2-Way_continuous_endpoint_a_20s_1600her_0.4__maf_0.2_EDM-2_01.csv",
    "mixed": "GAMETES_Epistasis_2-Way_mixed_attribute_a_20s_1600her_0.4__maf_0.2_EDM-2_01.csv",
    "missing": "GAMETES_Epistasis_2-Way_missing_values_0.1_a_20s_1600her_0.4__maf_0.2_EDM-2_01.csv",
}
#: name -> the keyword arguments of scikit-rebate's class of that name
ESTIMATORS = {
    "ReliefF": dict(n_neighbors=10), "SURF": {}, "SURFstar": {}, "MultiSURF": {},
    "MultiSURFstar": {}, "SWRF": {}, "SWRFstar": {}, "MultiSWRF": {}, "MultiSWRFstar": {},
    "MultiSWRFDB": {}, "MultiSWRFDBstar": {}, "MuRelief": dict(n_neighbors=10),
}


def read(path, delimiter):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        rows = list(csv.reader(f, delimiter=delimiter))
    header, rows = rows[0], rows[1:]
    rows = [rows[i] for i in np.linspace(0, len(rows) - 1, ROWS).astype(int)]
    target = [h.lower() for h in header].index("class")
    names = [h for i, h in enumerate(header) if i != target]
    values = np.array([[float(v) if v != "" else np.nan for v in r] for r in rows])
    X = np.delete(values, target, axis=1)
    return names, X, values[:, target]


def main(skrebate_dir, snp_file):
    assert skrebate.__version__ == "0.8.4", skrebate.__version__
    sources = {name: (os.path.join(skrebate_dir, f), ",") for name, f in FILES.items()}
    sources["snps"] = (snp_file, "\t")
    for name, (path, delimiter) in sources.items():
        names, X, y = read(path, delimiter)
        with open(os.path.join(HERE, f"{name}.csv"), "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(names + ["class"])
            for row, target in zip(X, y):
                w.writerow(["" if np.isnan(v) else repr(float(v)) if v != int(v) else int(v)
                            for v in row] + [repr(float(target)) if target != int(target)
                                             else int(target)])
        with open(os.path.join(HERE, f"{name}.scores.csv"), "w", newline="") as f:
            w = csv.writer(f)
            for est, kwargs in ESTIMATORS.items():
                scores = getattr(skrebate, est)(n_jobs=1, **kwargs).fit(X, y).feature_importances_
                w.writerow([est] + [repr(float(s)) for s in scores])
                print(name, est, flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:])
