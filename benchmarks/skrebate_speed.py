"""Speed of the members scikit-rebate 0.8 added, ours against scikit-rebate 0.8.4's, in one run.

    python benchmarks/skrebate_speed.py --snp SNP_FILE          # the two target tables
    python benchmarks/skrebate_speed.py --quick                 # a smoke run (small tables)
    python benchmarks/skrebate_speed.py --snp SNP_FILE --methods VLS,Iter

Tables (``--tables``): ``snps``, 1,600 × 1,000 SNPs (``--snp``: a ReBATE replicate such as
``2wayEpiFeatures/a_1000/s_1600/her_0.4__maf_0.2/EDM-2/rep_01.txt.gz``; without it a random
table of that shape, minor allele frequency 0.3, the class a XOR of two SNPs), and ``numeric``,
2,000 × 100 uniform [0, 1) attributes whose class is the XOR of the first two thresholded at
0.5. Methods (``--methods``; default every one the catalogue has):

* ``VLS``: VLS around MultiSURF with 4 subsets of a quarter of the attributes each (one pass that
  covers them; seed 0) — ours ``VLS(MultiSURF(), subsets=4, size=a/4, random_state=0)``,
  scikit-rebate's ``VLS(MultiSURF(n_jobs=1), num_feature_subset=4, size_feature_subset=a/4,
  random_state=0)``;
* ``Iter``: Iterative Relief around MultiSURF, exactly two rounds in both (the second weighted,
  the costly one) — ours ``Iter(MultiSURF(), max_iter=2, threshold=0)``, scikit-rebate's
  ``Iter(MultiSURF(n_jobs=1), max_iter=2)``;
* the cores ``SWRF``, ``SWRF*``, ``MultiSWRF``, ``MultiSWRF*``, ``MultiSWRFDB``,
  ``MultiSWRFDB*`` and ``MuRelief`` (k = 10) — ours from the catalogue, scikit-rebate's class of
  the same name with ``n_jobs=1``.

scikit-rebate runs with ``n_jobs=1`` (its joblib workers would take both cores from everyone
else); ours with numba's threads (2 on this machine). Both work on the same arrays in the same
process, ours after a warm-up run on the same table (numba's compilation excluded), each timed once
by the CPU time of the process (``time.process_time``: every thread's, so ours counts both of
its threads; on a loaded machine CPU time is what wall clock would be alone); the ratio is
scikit-rebate's time over ours. ``--skrebate-attributes N`` times scikit-rebate on the first N
and the first N / 2 attributes only and extrapolates to all a attributes along the line through
those two times: its distances and its per-attribute scoring loop grow linearly with the
attributes, its neighbour bands (a Python loop over the N x N distances) not at all, and the
line counts both as they are. Ours is timed on all attributes. Fewer rounds and subsets than
the defaults keep scikit-rebate's runs to minutes; each wrapper's time is proportional to its
rounds or subsets in both libraries, so the ratio stands for the defaults. Record ``uptime``'s
load average beside the figures.
"""
import argparse
import gzip
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from orangecontrib.relief.estimators import encode                          # noqa: E402
from orangecontrib.relief.estimators.catalogue import ESTIMATORS            # noqa: E402
from orangecontrib.relief.estimators.iterative import Iter                  # noqa: E402
from orangecontrib.relief.estimators.surf import MultiSURF                  # noqa: E402
from orangecontrib.relief.estimators.vls import VLS                         # noqa: E402

#: the cores: method -> (class name in both libraries, our keyword arguments)
CORES = {"SWRF": ("SWRF", {}), "SWRF*": ("SWRFstar", {}), "MultiSWRF": ("MultiSWRF", {}),
         "MultiSWRF*": ("MultiSWRFstar", {}), "MultiSWRFDB": ("MultiSWRFDB", {}),
         "MultiSWRFDB*": ("MultiSWRFDBstar", {}), "MuRelief": ("MuRelief", {"k": 10})}
_CATALOGUE = {cls.__name__: cls for cls in ESTIMATORS}


def ours(method, a):
    if method == "VLS":
        return VLS(MultiSURF(), subsets=4, size=-(-a // 4), random_state=0)
    if method == "Iter":
        return Iter(MultiSURF(), max_iter=2, threshold=0)
    cls, kwargs = CORES[method]
    return _CATALOGUE[cls](**kwargs)


def theirs(method, a):
    import skrebate
    if method == "VLS":
        return skrebate.VLS(skrebate.MultiSURF(n_jobs=1), num_feature_subset=4,
                            size_feature_subset=-(-a // 4), random_state=0)
    if method == "Iter":
        return skrebate.Iter(skrebate.MultiSURF(n_jobs=1), max_iter=2)
    cls, kwargs = CORES[method]
    extra = {"n_neighbors": kwargs["k"]} if "k" in kwargs else {}
    return getattr(skrebate, cls)(n_jobs=1, **extra)


def available():
    return ["VLS", "Iter"] + [m for m, (cls, _) in CORES.items() if cls in _CATALOGUE]


def snp_table(path, n=1600, a=1000, seed=0):
    if path:
        with gzip.open(path, "rt") as f:
            header = f.readline().rstrip("\n").split("\t")
            rows = np.array([line.rstrip("\n").split("\t") for line in f if line.strip()],
                            dtype=float)
        c = header.index("Class")
        return np.delete(rows, c, axis=1), rows[:, c]
    rng = np.random.default_rng(seed)
    X = rng.binomial(2, 0.3, (n, a)).astype(float)
    return X, ((X[:, 0] % 2) != (X[:, 1] % 2)).astype(float)


def numeric_table(n=2000, a=100, seed=1):
    X = np.random.default_rng(seed).random((n, a))
    return X, ((X[:, 0] > 0.5) != (X[:, 1] > 0.5)).astype(float)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--snp", default="", help="a ReBATE replicate of 1,600 x 1,000 SNPs")
    parser.add_argument("--methods", default="", help="comma-separated methods")
    parser.add_argument("--tables", default="snps,numeric", help="snps, numeric")
    parser.add_argument("--quick", action="store_true", help="small tables, seconds")
    parser.add_argument("--skrebate-attributes", type=int, default=0,
                        help="time scikit-rebate on this many attributes, scaled to all")
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore")
    methods = [m for m in available() if not args.methods or m in args.methods.split(",")]
    tables = {}
    if "snps" in args.tables:
        X, y = snp_table(None if args.quick else args.snp, *((200, 100) if args.quick else ()))
        tables["1,600 × 1,000 SNPs" if not args.quick else "200 × 100 SNPs"] = (X, y, True)
    if "numeric" in args.tables:
        X, y = numeric_table(*((200, 20) if args.quick else ()))
        tables["2,000 × 100 numeric" if not args.quick else "200 × 20 numeric"] = (X, y, False)
    print(f"load average before: {os.getloadavg()}", flush=True)
    print("| table | method | ours (s) | scikit-rebate (s) | ratio |")
    print("|---|---|---|---|---|")
    for label, (X, y, snps) in tables.items():
        data = encode(X, y, discrete=snps, n_values=3 if snps else None, n_classes=2)
        for method in methods:
            ours(method, X.shape[1])(data)              # compiled and warm before timing
            start = time.process_time()
            ours(method, X.shape[1])(data)
            t_ours = time.process_time() - start
            a = min(args.skrebate_attributes or X.shape[1], X.shape[1])
            times = []
            for b in ((a // 2, a) if a < X.shape[1] else (a,)):
                start = time.process_time()
                theirs(method, b).fit(X[:, :b], y)
                times.append((b, time.process_time() - start))
            (b0, t0), (b1, t1) = times[0], times[-1]
            slope = (t1 - t0) / (b1 - b0) if b1 > b0 else 0.0
            t_theirs = t1 + slope * (X.shape[1] - b1)
            note = "" if a == X.shape[1] else (f" (≈ from {b0}: {t0:.1f} s and {b1}: "
                                               f"{t1:.1f} s)")
            print(f"| {label} | {method} | {t_ours:.2f} | {t_theirs:.1f}{note} | "
                  f"{t_theirs / t_ours:.0f}× |", flush=True)
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
