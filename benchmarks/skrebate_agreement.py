"""``preset="skrebate"`` against scikit-rebate 0.8.4 itself, on fresh random tables.

The tests compare the preset with scikit-rebate's numbers stored in the repository (its five
test files and 100 SNPs). This benchmark runs scikit-rebate beside us on tables it draws anew
for each seed — data neither library was tuned on — and prints every run where the two differ
by more than 1e-8 of the largest |score| (or where only one of them fails):

    python benchmarks/skrebate_agreement.py --seeds 1-3
    python benchmarks/skrebate_agreement.py --seeds 7 --rows 150 --attributes 16

For each seed, seven kinds of table (``--rows`` × ``--attributes``): SNPs (0, 1, 2) with two
classes (an XOR of two SNPs, 20 % noise) and with a numeric target (a product of two SNPs
plus noise), numeric attributes with three classes and with a numeric target, half SNPs and
half numeric with two classes, and SNPs and numeric attributes each with 8 % of their values
missing. Every core of scikit-rebate 0.8.4 (ReliefF and MuRelief with ``n_neighbors=10``),
alone and in each of its wrappers: ``Iter(core, max_iter=4)``, ``VLS(core,
num_feature_subset=6, size_feature_subset=4, random_state=3)``, ``TURF(core, pct=0.4,
num_scores_to_return=4)`` — ours the same estimator with ``preset="skrebate"`` in ``Iter(max_iter=4)``,
``VLS(subsets=6, size=4, random_state=3)``, ``TuRF(remove=0.4, keep=4)``. Attributes with at
most 10 values are discrete and a target with more than 10 values numeric, as scikit-rebate
decides. scikit-rebate's ``Iter`` fails on attributes of both kinds; the preset refuses them
too, which counts as agreement.
"""
import argparse
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from orangecontrib.relief.estimators import encode                          # noqa: E402
from orangecontrib.relief.estimators.catalogue import ESTIMATORS            # noqa: E402
from orangecontrib.relief.estimators.iterative import Iter                  # noqa: E402
from orangecontrib.relief.estimators.turf import TuRF                       # noqa: E402
from orangecontrib.relief.estimators.vls import VLS                         # noqa: E402

#: scikit-rebate's cores (its class names; ours of the same name, RReliefF for ReliefF of a
#: numeric target)
CORES = ("ReliefF", "SURF", "SURFstar", "MultiSURF", "MultiSURFstar", "SWRF", "SWRFstar",
         "MultiSWRF", "MultiSWRFstar", "MultiSWRFDB", "MultiSWRFDBstar", "MuRelief")
KINDS = ("SNPs, two classes", "SNPs, numeric target", "numeric, three classes",
         "numeric, numeric target", "mixed, two classes", "SNPs, missing values",
         "numeric, missing values")
_CATALOGUE = {cls.__name__: cls for cls in ESTIMATORS}


def table(kind, rows, attributes, rng):
    """(X, y) of one kind of table (module docstring)."""
    snps = rng.integers(0, 3, (rows, attributes)).astype(float)
    numeric = rng.normal(size=(rows, attributes)) * rng.uniform(0.5, 3, attributes)
    noise = rng.random(rows) < 0.2
    if kind == "SNPs, two classes":
        return snps, (((snps[:, 0] + snps[:, 1]) % 2) + noise) % 2
    if kind == "SNPs, numeric target":
        return snps, snps[:, 0] * snps[:, 1] + rng.normal(size=rows)
    if kind == "numeric, three classes":
        return numeric, (np.digitize(numeric[:, 0] + numeric[:, 1], [-1, 1]) + noise) % 3
    if kind == "numeric, numeric target":
        return numeric, 2 * numeric[:, 0] + numeric[:, 1] + rng.normal(size=rows)
    half = attributes // 2
    if kind == "mixed, two classes":
        X = np.hstack([snps[:, :half], numeric[:, :attributes - half]])
        return X, ((snps[:, 0] > 0) ^ (numeric[:, 0] > 0)).astype(float)
    X = (snps if kind == "SNPs, missing values" else numeric).copy()
    X[rng.random(X.shape) < 0.08] = np.nan
    y = (snps[:, 0] + snps[:, 1]) % 2 if kind == "SNPs, missing values" \
        else (numeric[:, 0] > 0).astype(float)
    return X, y


def ours(core, data):
    """Our counterpart of scikit-rebate's ``core`` with the preset."""
    if core == "ReliefF" and not data.is_classification:
        core = "RReliefF"
    keywords = {"k": 10} if core in ("ReliefF", "RReliefF", "MuRelief") else {}
    return _CATALOGUE[core](preset="skrebate", **keywords)


def runs(core, X, y, data):
    """{run: (ours, scikit-rebate's)}: functions that return the scores."""
    import skrebate
    from skrebate.iter import Iter as SkIter
    from skrebate.turf import TURF
    from skrebate.vls import VLS as SkVLS

    def theirs():
        keywords = {"n_neighbors": 10} if core in ("ReliefF", "MuRelief") else {}
        return getattr(skrebate, core)(n_jobs=1, **keywords)
    return {
        "core": (lambda: ours(core, data)(data),
                 lambda: theirs().fit(X, y).feature_importances_),
        "Iter": (lambda: Iter(ours(core, data), max_iter=4)(data),
                 lambda: SkIter(theirs(), max_iter=4).fit(X, y).feature_importances_),
        "VLS": (lambda: VLS(ours(core, data), subsets=6, size=4, random_state=3)(data),
                lambda: SkVLS(theirs(), num_feature_subset=6, size_feature_subset=4,
                              random_state=3).fit(X, y).feature_importances_),
        "TuRF": (lambda: TuRF(ours(core, data), remove=0.4, keep=4)(data),
                 lambda: TURF(theirs(), pct=0.4, num_scores_to_return=4).fit(
                     X, y).feature_importances_)}


def outcome(function):
    """(scores, None) or (None, the error's text)."""
    try:
        return np.asarray(function(), float), None
    except Exception as error:               # a refusal of either library is an outcome
        return None, f"{type(error).__name__}: {error}"[:80]


def compare(seed, rows, attributes):
    """(runs compared, the runs that differ as printable lines) on the tables of ``seed``."""
    rng = np.random.default_rng(seed)
    compared, differ = 0, []
    for kind in KINDS:
        X, y = table(kind, rows, attributes, rng)
        discrete = [np.unique(c[~np.isnan(c)]).size <= 10 for c in X.T]
        n_classes = 0 if np.unique(y).size > 10 else np.unique(y).size
        data = encode(X, y, discrete=discrete, n_classes=n_classes)
        for core in CORES:
            for name, (mine, theirs) in runs(core, X, y, data).items():
                (got, my_error), (expected, their_error) = outcome(mine), outcome(theirs)
                compared += 1
                if got is None or expected is None:
                    if (got is None) != (expected is None):
                        differ.append(f"{seed} {kind} {core} {name}: ours "
                                      f"{my_error or 'scores'}, scikit-rebate's "
                                      f"{their_error or 'scores'}")
                    continue
                scale = np.nanmax(np.abs(expected), initial=0.0)
                gap = np.nanmax(np.abs(got - expected), initial=0.0)
                same_nan = np.array_equal(np.isnan(got), np.isnan(expected))
                if not same_nan or gap > 1e-8 * max(scale, 1e-300):
                    differ.append(f"{seed} {kind} {core} {name}: largest difference "
                                  f"{gap:.2e} of {scale:.2e}")
    return compared, differ


def parse_seeds(text):
    if "-" in text:
        low, high = map(int, text.split("-"))
        return list(range(low, high + 1))
    return [int(s) for s in text.split(",")]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", default="1-3", help="seeds, e.g. 1-3 or 4,9")
    parser.add_argument("--rows", type=int, default=90)
    parser.add_argument("--attributes", type=int, default=12)
    args = parser.parse_args(argv)
    import skrebate
    print(f"scikit-rebate {skrebate.__version__}")
    warnings.filterwarnings("ignore")
    total, differ = 0, []
    for seed in parse_seeds(args.seeds):
        compared, lines = compare(seed, args.rows, args.attributes)
        total += compared
        differ += lines
        print(f"seed {seed}: {compared} runs, {len(lines)} differ", flush=True)
    for line in differ:
        print(line)
    print(f"{total} runs, {len(differ)} differ by more than 1e-8 of the largest |score|")


if __name__ == "__main__":
    main()
