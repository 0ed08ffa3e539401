"""Detection power on the ReBATE benchmark: our Relief family against scikit-rebate and fast-select.

The data are the simulated genetic data sets of Urbanowicz et al., "Benchmarking relief-based
feature selection methods for bioinformatics data mining" (J Biomed Inform 85, 2018), published in
the ReBATE benchmark archive (github.com/EpistasisLab/rebate-benchmark, MIT licence): one
directory per configuration holding ``rep_NN.txt.gz`` tables (tab-separated, header row, target
column ``Class``; predictive attributes are named ``M...``, noise ``N...``; ``NA`` = missing).
Pass the root of such a tree as the first argument.

For each configuration and method, over the replicates:

* perfect: the share of replicates in which every predictive attribute scores above every noise
  attribute (ties count against: a noise attribute tied with a predictive one spoils it);
* worst: the median over the replicates of the worst rank of a predictive attribute (its rank
  counting every attribute that scores at least as high; the number of predictive attributes is
  the best possible);
* time: the seconds of all the replicates' runs.

Methods (``--methods``, comma-separated; default all): ours ``ReliefF-10``, ``ReliefF-100``,
``SURF``, ``SURF*``, ``MultiSURF``, ``MultiSURF*``, ``TuRF`` (around MultiSURF),
``TuRF-ReliefF-10`` (around ReliefF with k = 10), ``MaxZ-ReliefF-10`` (MultiScale Relief of
ReliefF with k = 10 and MultiSURF, the recommended estimator before it took TuRF around
ReliefF) and the recommended default ``Recommended`` (``MultiScaleRelief()``); scikit-rebate
``sk-`` and fast-select ``fs-`` versions of the first seven (fast-select has no TuRF, so no
``fs-TuRF``; it handles classification only). The members scikit-rebate 0.8 added, ours and
its ``sk-`` versions side by side: the wrappers ``VLS`` and ``Iter`` around MultiSURF (VLS:
40 subsets of max(5, attributes / 20) attributes, seed 0, in both; Iter: ten rounds at most,
Widrow-Hoff rate 0.1), and the cores ``SWRF``, ``SWRF*``, ``MultiSWRF``, ``MultiSWRF*``,
``MultiSWRFDB``, ``MultiSWRFDB*`` and ``MuRelief`` (k = 10) where the catalogue has them, and ``pre-`` versions of
these nine: scikit-rebate's numbers as our ``preset="skrebate"`` computes them (numpy over
scikit-rebate's N x N tables, the discrete attributes' sums as matrix products: faster than
scikit-rebate, slower than ours; the tests
reproduce scikit-rebate's cores, Iter and VLS with it to 1e-8; ``pre-VLS`` draws scikit-rebate's
subsets for seed 0, and on two classes of SNPs without missing values, where our MultiSURF is
scikit-rebate's, scores them with ours; where the preset refuses data, as
scikit-rebate's Iter fails on attributes of both kinds, a ``pre-`` run has no result). Every run
appends one JSON line to ``--results`` (runs already there are skipped, so a run can be resumed,
and several processes may share the file: each line is one append); ``--report`` prints the
table from the results files without running anything; with ``--against``, each method against
``Recommended`` on the configurations where both ran every replicate (the replicates each is
perfect on, and where it is perfect on more or fewer than Recommended); with ``--side-by-side``,
each member beside its ``pre-`` form (scikit-rebate's) where both ran every replicate.

    python benchmarks/rebate_power.py DATA --methods MultiSURF,fs-MultiSURF --reps 1-5
    python benchmarks/rebate_power.py DATA --configs XOR,Het --results xor.jsonl
    python benchmarks/rebate_power.py DATA --report --results a.jsonl,b.jsonl

``--chance`` prints instead how often, by chance alone, the best of m peer columns beats one
fixed method by more than 0.1 when all have the same true perfect share (a Monte Carlo of
replicate outcomes correlated through a shared replicate difficulty): what the "within 0.1 of
the best peer" criterion can tell apart at a given number of replicates.

``--ties`` runs instead each of our selected methods (default ReliefF-10) twice on every
replicate, with order-free neighbours (the default: the instances tied at the k-th distance
share the remaining places) and with ties broken by row index, and prints per configuration
the perfect share of both and the replicates that only one of them reaches (a paired
comparison on the same replicates).

``--compare`` times instead our MultiSURF, scikit-rebate's and fast-select's (CPU) in the same run
on the selected configurations and replicates (after a warm-up run that compiles the numba code
of ours and fast-select's) and prints the largest absolute difference of their estimates.
"""
import argparse
import gzip
import json
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from orangecontrib.relief.estimators import encode                              # noqa: E402
from orangecontrib.relief.estimators.relieff import ReliefF                     # noqa: E402
from orangecontrib.relief.estimators.rrelieff import RReliefF                   # noqa: E402
from orangecontrib.relief.estimators.surf import (SURF, SURFstar, MultiSURF,     # noqa: E402
                                                  MultiSURFstar)
from orangecontrib.relief.estimators.turf import TuRF                           # noqa: E402
from orangecontrib.relief.estimators.multiscale import MultiScaleRelief         # noqa: E402
from orangecontrib.relief.estimators.catalogue import ESTIMATORS                # noqa: E402
from orangecontrib.relief.estimators.iterative import Iter                      # noqa: E402
from orangecontrib.relief.estimators.vls import VLS, subset_maximum             # noqa: E402
from orangecontrib.relief.estimators.skrebate import (                          # noqa: E402
    vls_subsets as skrebate_vls_subsets)

#: the cores scikit-rebate 0.8 added: method name -> (class name, keyword arguments); the
#: same names in scikit-rebate
CORES = {"SWRF": ("SWRF", {}), "SWRF*": ("SWRFstar", {}), "MultiSWRF": ("MultiSWRF", {}),
         "MultiSWRF*": ("MultiSWRFstar", {}), "MultiSWRFDB": ("MultiSWRFDB", {}),
         "MultiSWRFDB*": ("MultiSWRFDBstar", {}), "MuRelief": ("MuRelief", {"k": 10})}
_CATALOGUE = {cls.__name__: cls for cls in ESTIMATORS}


def vls_size(n_attributes):
    """The attributes of each of VLS's 40 subsets: max(5, attributes / 20), as ours chooses
    (every attribute in two subsets on average; scikit-rebate's default of 5 cannot cover more
    than 200 attributes)."""
    return VLS(subsets=40).size_(n_attributes)

OURS = {
    "ReliefF-10": lambda reg: RReliefF(k=10, weighting="equal") if reg else ReliefF(k=10),
    "ReliefF-100": lambda reg: RReliefF(k=100, weighting="equal") if reg else ReliefF(k=100),
    "SURF": lambda reg: SURF(),
    "SURF*": lambda reg: SURFstar(),
    "MultiSURF": lambda reg: MultiSURF(),
    "MultiSURF*": lambda reg: MultiSURFstar(),
    "TuRF": lambda reg: TuRF(MultiSURF(), remove=0.5, rounds=1),
    "TuRF-ReliefF-10": lambda reg: TuRF(OURS["ReliefF-10"](reg), remove=0.5, rounds=1),
    "MaxZ-ReliefF-10": lambda reg: MultiScaleRelief([OURS["ReliefF-10"](reg), MultiSURF()]),
    "Recommended": lambda reg: MultiScaleRelief(),
    "VLS": lambda reg: VLS(MultiSURF(), subsets=40, random_state=0),
    "Iter": lambda reg: Iter(MultiSURF()),
}
OURS.update({name: (lambda reg, c=cls, kw=kwargs: _CATALOGUE[c](**kw))
             for name, (cls, kwargs) in CORES.items() if cls in _CATALOGUE})
#: scikit-rebate's numbers computed by ours with preset="skrebate" (``pre-``: the tests
#: reproduce its cores, its Iter and its VLS to 1e-8 with the preset; with the preset and an
#: integer seed VLS draws scikit-rebate's subsets)
OURS.update({f"pre-{name}": (lambda reg, c=cls, kw=kwargs: _CATALOGUE[c](preset="skrebate",
                                                                         **kw))
             for name, (cls, kwargs) in CORES.items() if cls in _CATALOGUE})
OURS["pre-VLS"] = lambda reg: VLS(MultiSURF(preset="skrebate"), subsets=40, random_state=0)
OURS["pre-Iter"] = lambda reg: Iter(MultiSURF(preset="skrebate"))


def _skrebate(name):
    import skrebate
    if name in CORES:
        cls, kwargs = CORES[name]
        kwargs = {"n_neighbors": kwargs["k"]} if "k" in kwargs else {}
        return lambda X, y: getattr(skrebate, cls)(n_features_to_select=2, **kwargs).fit(
            X, y).feature_importances_
    if name == "VLS":
        return lambda X, y: skrebate.VLS(
            skrebate.MultiSURF(n_features_to_select=2), num_feature_subset=40,
            size_feature_subset=vls_size(X.shape[1]), random_state=0).fit(
            X, y).feature_importances_
    if name == "Iter":
        return lambda X, y: skrebate.Iter(skrebate.MultiSURF(n_features_to_select=2)).fit(
            X, y).feature_importances_
    make = {"ReliefF-10": lambda: skrebate.ReliefF(n_neighbors=10, n_features_to_select=2),
            "ReliefF-100": lambda: skrebate.ReliefF(n_neighbors=100, n_features_to_select=2),
            "SURF": lambda: skrebate.SURF(n_features_to_select=2),
            "SURF*": lambda: skrebate.SURFstar(n_features_to_select=2),
            "MultiSURF": lambda: skrebate.MultiSURF(n_features_to_select=2),
            "MultiSURF*": lambda: skrebate.MultiSURFstar(n_features_to_select=2),
            "TuRF": lambda: skrebate.TURF(skrebate.MultiSURF(n_features_to_select=2),
                                          pct=0.5, num_scores_to_return=10)}[name]
    return lambda X, y: make().fit(X, y).feature_importances_


def _fast_select(name):
    import fast_select as fs
    make = {"ReliefF-10": lambda: fs.ReliefF(n_neighbors=10, backend="cpu"),
            "ReliefF-100": lambda: fs.ReliefF(n_neighbors=100, backend="cpu"),
            "SURF": lambda: fs.SURF(backend="cpu"),
            "SURF*": lambda: fs.SURF(backend="cpu", use_star=True),
            "MultiSURF": lambda: fs.MultiSURF(backend="cpu"),
            "MultiSURF*": lambda: fs.MultiSURF(backend="cpu", use_star=True)}[name]
    return lambda X, y: np.asarray(make().fit(X, y).feature_importances_, float)


PEERS = ["ReliefF-10", "ReliefF-100", "SURF", "SURF*", "MultiSURF", "MultiSURF*", "TuRF"]
#: the members scikit-rebate 0.8 added (ours where the catalogue has them, and scikit-rebate's)
NEW = ["VLS", "Iter"] + list(CORES)
METHODS = (list(OURS) + [f"sk-{m}" for m in PEERS] + [f"fs-{m}" for m in PEERS if m != "TuRF"]
           + [f"sk-{m}" for m in NEW])


def configurations(root):
    """The configuration directories under ``root`` (relative paths, sorted)."""
    root = Path(root)
    return sorted(str(p.relative_to(root)) for p in {f.parent for f in root.rglob("rep_*.txt.gz")})


def load(path):
    """(X, y, names, discrete, regression) of one replicate: SNP columns (values among 0, 1, 2)
    are discrete, others numeric; a target with more than ten values is a regression target."""
    with gzip.open(path, "rt") as f:
        header = f.readline().rstrip("\n").split("\t")
        rows = [line.rstrip("\n").split("\t") for line in f if line.strip()]
    table = np.array([[np.nan if v in ("NA", "") else float(v) for v in row] for row in rows])
    c = header.index("Class")
    y = table[:, c]
    X = np.delete(table, c, axis=1)
    names = [h for i, h in enumerate(header) if i != c]
    known = np.where(np.isnan(X), 0, X)
    discrete = np.all((known == 0) | (known == 1) | (known == 2), axis=0)
    regression = np.unique(y).size > 10
    return X, y, names, discrete, regression


def judge(scores, names):
    """(perfect, worst rank) of one ranking (see the module docstring)."""
    scores = np.where(np.isnan(scores), -np.inf, np.asarray(scores, float))
    predictive = np.array([n.startswith("M") for n in names])
    lowest = scores[predictive].min()
    worst = int((scores >= lowest).sum())
    return worst == predictive.sum(), worst


def plain(X, y, discrete, regression):
    """Two classes, SNPs only, no missing value: where our MultiSURF is scikit-rebate's
    (tests/estimators/test_skrebate.py, ``test_defaults_agree_where_the_choices_do``)."""
    return not regression and np.unique(y).size == 2 and bool(np.all(discrete)) \
        and not np.isnan(X).any()


def skrebate_vls_on_plain_data(data):
    """scikit-rebate's VLS around MultiSURF (40 subsets of :func:`vls_size` attributes, seed 0)
    on :func:`plain` data: its subsets, each scored by our MultiSURF, which equals its own
    there — the numbers of ``pre-VLS`` without the preset's N x N tables."""
    n = data.n_attributes
    subsets = skrebate_vls_subsets(n, 40, vls_size(n), 0)
    return subset_maximum(MultiSURF(), data, subsets)[0]


def run_one(method, X, y, discrete, regression):
    """The scores of one method on one replicate, and its seconds."""
    start = time.perf_counter()
    if method[:3] in ("sk-", "fs-"):
        if method.startswith("fs-") and regression:
            return None, 0.0
        try:
            scores = (_skrebate if method.startswith("sk-") else _fast_select)(method[3:])(X, y)
        except Exception as e:                  # a peer that fails on these data: no result
            print(f"{method}: {e!r}", file=sys.stderr)
            return None, time.perf_counter() - start
    else:
        data = encode(X, y, discrete=discrete, n_values=np.where(discrete, 3, 0),
                      n_classes=0 if regression else int(y.max()) + 1)
        if method == "pre-VLS" and plain(X, y, discrete, regression):
            scores = skrebate_vls_on_plain_data(data)
        else:
            try:
                scores = OURS[method](regression)(data)
            except ValueError as e:     # the preset refuses what scikit-rebate fails on
                if not method.startswith("pre-"):
                    raise
                print(f"{method}: {e}", file=sys.stderr)
                return None, time.perf_counter() - start
    return np.asarray(scores, float), time.perf_counter() - start


def select(items, wanted):
    if not wanted:
        return items
    keys = [w.strip() for w in wanted.split(",") if w.strip()]
    return [i for i in items if any(k in i for k in keys)]


def parse_reps(text):
    if "-" in text:
        lo, hi = map(int, text.split("-"))
        return list(range(lo, hi + 1))
    return [int(r) for r in text.split(",")]


def read_results(files):
    out = {}
    for name in files:
        if os.path.exists(name):
            with open(name) as f:
                for line in f:
                    r = json.loads(line)
                    out[r["config"], r["rep"], r["method"]] = r
    return out


def markdown(results, configs, methods):
    """The table as Markdown: per configuration and method "perfect share / median worst rank",
    the best peer's share and whether Recommended reaches it within 0.1; totals and seconds."""
    peers = [m for m in methods if m[:3] in ("sk-", "fs-")]
    print("| configuration | " + " | ".join(methods) + " | best peer | reached |")
    print("|---" * (len(methods) + 3) + "|")
    totals, seconds = {m: 0.0 for m in methods}, {m: 0.0 for m in methods}
    for config in configs:
        cells, shares = [], {}
        for m in methods:
            runs = [r for (c, _, mm), r in results.items() if c == config and mm == m
                    and r.get("perfect") is not None]
            if not runs:
                cells.append("—")
                continue
            shares[m] = np.mean([r["perfect"] for r in runs])
            totals[m] += shares[m]
            seconds[m] += sum(r["seconds"] for r in runs)
            cells.append(f"{shares[m]:.1f} / {np.median([r['worst'] for r in runs]):g}")
        best = max((shares[m] for m in peers if m in shares), default=None)
        reached = "—" if best is None or "Recommended" not in shares else (
            "yes" if shares["Recommended"] >= best - 0.1 else "**no**")
        print(f"| {config} | " + " | ".join(cells)
              + f" | {'—' if best is None else f'{best:.1f}'} | {reached} |")
    print("| total perfect share | " + " | ".join(f"{totals[m]:.1f}" for m in methods)
          + " | | |")
    print("| seconds (all runs) | " + " | ".join(f"{seconds[m]:.0f}" for m in methods)
          + " | | |")


def report(results, configs, methods):
    """Print the table: per configuration and method "perfect worst seconds", then the totals
    of the perfect shares; with ``Recommended`` and peers, the best peer's share per
    configuration and whether Recommended reaches it within 0.1 (one replicate in ten)."""
    peers = [m for m in methods if m[:3] in ("sk-", "fs-")]
    judged = "Recommended" in methods and peers
    print(f"{'configuration':58s} " + " ".join(f"{m:>16s}" for m in methods)
          + ("   best peer  reached" if judged else ""))
    totals = {m: 0.0 for m in methods}
    for config in configs:
        cells, shares = [], {}
        for m in methods:
            runs = [r for (c, _, mm), r in results.items() if c == config and mm == m
                    and r.get("perfect") is not None]
            if not runs:
                cells.append(f"{'-':>16s}")
                continue
            shares[m] = share = np.mean([r["perfect"] for r in runs])
            totals[m] += share
            worst = np.median([r["worst"] for r in runs])
            secs = sum(r["seconds"] for r in runs)
            cells.append(f"{share:4.2f} {worst:5.1f} {secs:5.1f}s")
        line = f"{config[:58]:58s} " + " ".join(cells)
        best = max((shares[m] for m in peers if m in shares), default=None)
        if judged and best is not None and "Recommended" in shares:
            line += f"   {best:9.2f}  {'yes' if shares['Recommended'] >= best - 0.1 else 'NO'}"
        print(line)
    print(f"{'total perfect share':58s} " + " ".join(f"{totals[m]:16.2f}" for m in methods))


def perfect_count(results, config, method):
    """(replicates on which ``method`` is perfect, replicates run) on ``config``, or None
    where it has not run or a run gave no result."""
    runs = [r for (c, _, m), r in results.items() if c == config and m == method]
    if not runs or any(r.get("perfect") is None for r in runs):
        return None
    return sum(bool(r["perfect"]) for r in runs), len(runs)


def against_recommended(results, configs, methods):
    """Print per method, over the configurations where both it and ``Recommended`` ran every
    selected replicate: the sum of its perfect shares and of Recommended's, and the
    configurations where it is perfect on more replicates than Recommended (named, with both
    counts) or on fewer — whether any member beats the recommended default anywhere."""
    print("| method | configurations | perfect (replicates) | Recommended's | more than "
          "Recommended | fewer |")
    print("|---|---|---|---|---|---|")
    for method in methods:
        if method == "Recommended":
            continue
        pairs = [(c, perfect_count(results, c, method),
                  perfect_count(results, c, "Recommended")) for c in configs]
        pairs = [(c, a, b) for c, a, b in pairs if a and b and a[1] == b[1]]
        if not pairs:
            continue
        better = [f"{c} ({a[0]} vs {b[0]} of {a[1]})" for c, a, b in pairs if a[0] > b[0]]
        worse = sum(a[0] < b[0] for _, a, b in pairs)
        print(f"| {method} | {len(pairs)} | {sum(a[0] for _, a, _ in pairs)} of "
              f"{sum(a[1] for _, a, _ in pairs)} | {sum(b[0] for _, _, b in pairs)} | "
              f"{len(better)}{': ' + '; '.join(better) if better else ''} | {worse} |")


def side_by_side(results, configs, methods):
    """Print per member of ``methods`` that has a ``pre-`` form (ours and scikit-rebate's by
    the preset), over the configurations where both ran every selected replicate: how many
    replicates each is perfect on, and the configurations where the counts differ (named,
    with both counts)."""
    print("| method | configurations run by both | ours: perfect replicates | "
          "scikit-rebate's (preset): perfect replicates | configurations where they differ |")
    print("|---|---|---|---|---|")
    for method in methods:
        if method.startswith("pre-") or f"pre-{method}" not in OURS:
            continue
        pairs = [(c, perfect_count(results, c, method),
                  perfect_count(results, c, f"pre-{method}")) for c in configs]
        pairs = [(c, a, b) for c, a, b in pairs if a and b and a[1] == b[1]]
        differ = [f"{c} ({a[0]} vs {b[0]})" for c, a, b in pairs if a[0] != b[0]]
        print(f"| {method} | {len(pairs)} | {sum(a[0] for _, a, _ in pairs)} of "
              f"{sum(a[1] for _, a, _ in pairs)} | {sum(b[0] for _, _, b in pairs)} | "
              f"{len(differ)}{': ' + '; '.join(differ) if differ else ''} |")


def chance_of_shortfall(p, n, m, rho, draws=20000, seed=0):
    """The probability that the best of ``m`` methods' shares over ``n`` replicates exceeds a
    fixed method's by more than 0.1 when all succeed with probability ``p`` per replicate: a
    method succeeds on a replicate when sqrt(rho) U + sqrt(1 - rho) E < Phi^-1(p), U shared by
    the methods on that replicate (its difficulty) and E each method's own, both standard
    normal (so rho is the correlation of two methods' latent scores)."""
    from scipy.stats import norm
    rng = np.random.default_rng(seed)
    latent = (np.sqrt(rho) * rng.standard_normal((draws, n, 1))
              + np.sqrt(1 - rho) * rng.standard_normal((draws, n, m + 1)))
    shares = (latent < norm.ppf(p)).mean(axis=1)
    return np.mean(shares[:, 1:].max(axis=1) > shares[:, 0] + 0.1 + 1e-9)


def chance():
    """The table of chance_of_shortfall for 5, 30 and 100 replicates."""
    print("replicates  peers   rho    " + "  ".join(f"p={p}" for p in (0.1, 0.3, 0.5, 0.7, 0.9)))
    for n in (5, 30, 100):
        for m, rho in ((7, 0.5), (7, 0.8), (12, 0.0)):
            print(f"{n:10d} {m:6d} {rho:5.1f}   " + "  ".join(
                f"{chance_of_shortfall(p, n, m, rho):5.2f}" for p in (0.1, 0.3, 0.5, 0.7, 0.9)))


def compare(root, configs, reps):
    """Largest |difference| between our MultiSURF and the peers' on the selected data."""
    for config in configs:
        for rep in reps:
            path = Path(root, config, f"rep_{rep:02d}.txt.gz")
            X, y, names, discrete, regression = load(path)
            if regression:
                continue
            for method in ("MultiSURF", "fs-MultiSURF"):     # compile (numba) before timing
                run_one(method, X[::25], y[::25], discrete, regression)
            ours, t_ours = run_one("MultiSURF", X, y, discrete, regression)
            sk, t_sk = run_one("sk-MultiSURF", X, y, discrete, regression)
            fs, t_fs = run_one("fs-MultiSURF", X, y, discrete, regression)
            print(f"{config} rep {rep}: ours {t_ours:.2f}s, skrebate {t_sk:.2f}s "
                  f"({t_sk / t_ours:.1f}x), fast-select {t_fs:.2f}s ({t_fs / t_ours:.1f}x); "
                  f"max |ours - skrebate| = {np.abs(ours - sk).max():.1e}, "
                  f"max |ours - fast-select| = {np.abs(ours - fs).max():.1e} (float32)")


def ties_compare(root, configs, reps, methods):
    """Order-free neighbours against ties by row index, paired on each replicate (see the
    module docstring)."""
    import functools
    from orangecontrib.relief.estimators import relief_family
    order_free = relief_family.nearest_neighbours
    by_index = functools.partial(order_free, shared_ties=False)
    print("| configuration | method | order-free perfect | by index perfect "
          "| only order-free | only by index |")
    print("|---|---|---|---|---|---|")
    totals = {}
    for config in configs:
        paths = [Path(root, config, f"rep_{rep:02d}.txt.gz") for rep in reps]
        loaded = [load(path) for path in paths if path.exists()]
        for method in methods:
            reached = {True: [], False: []}
            for X, y, names, discrete, regression in loaded:
                for shared in (True, False):
                    relief_family.nearest_neighbours = order_free if shared else by_index
                    try:
                        scores, _ = run_one(method, X, y, discrete, regression)
                    finally:
                        relief_family.nearest_neighbours = order_free
                    reached[shared].append(bool(judge(scores, names)[0]))
            free, index = np.array(reached[True]), np.array(reached[False])
            row = (free.mean(), index.mean(), int((free & ~index).sum()),
                   int((index & ~free).sum()))
            total = totals.setdefault(method, np.zeros(4))
            total += row
            print(f"| {config} | {method} | {row[0]:.1f} | {row[1]:.1f} | {row[2]} | {row[3]} |",
                  flush=True)
    for method, total in totals.items():
        print(f"| total | {method} | {total[0]:.1f} | {total[1]:.1f} | {int(total[2])} "
              f"| {int(total[3])} |")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", help="root of the ReBATE benchmark tree")
    parser.add_argument("--configs", default="", help="substrings of configuration paths")
    parser.add_argument("--methods", default="", help="comma-separated method names")
    parser.add_argument("--reps", default="1-5", help="replicates, e.g. 1-5 or 1,3")
    parser.add_argument("--results", default="rebate_power.jsonl",
                        help="results file(s), comma-separated (written: the first)")
    parser.add_argument("--report", action="store_true", help="only print the table")
    parser.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    parser.add_argument("--against", action="store_true",
                        help="print each method against Recommended, configuration by "
                             "configuration (with --report)")
    parser.add_argument("--side-by-side", action="store_true",
                        help="print ours beside scikit-rebate's (pre-) for each member "
                             "(with --report)")
    parser.add_argument("--compare", action="store_true",
                        help="agreement and speed of the MultiSURFs")
    parser.add_argument("--ties", action="store_true",
                        help="order-free neighbours against ties by row index, paired")
    parser.add_argument("--chance", action="store_true",
                        help="chance shortfalls against the best of many peer columns")
    args = parser.parse_args(argv)
    if args.chance:
        chance()
        return
    warnings.filterwarnings("ignore")
    configs = select(configurations(args.data), args.configs)
    methods = [m for m in METHODS if not args.methods or m in args.methods.split(",")]
    reps = parse_reps(args.reps)
    if args.compare:
        compare(args.data, configs, reps)
        return
    if args.ties:
        ties_compare(args.data, configs, reps, [m for m in methods if m in OURS]
                     if args.methods else ["ReliefF-10"])
        return
    files = args.results.split(",")
    results = read_results(files)
    if not args.report:
        for config in configs:
            for rep in reps:
                path = Path(args.data, config, f"rep_{rep:02d}.txt.gz")
                if not path.exists():
                    continue
                todo = [m for m in methods if (config, rep, m) not in results]
                if not todo:
                    continue
                X, y, names, discrete, regression = load(path)
                for m in todo:
                    scores, seconds = run_one(m, X, y, discrete, regression)
                    record = {"config": config, "rep": rep, "method": m, "seconds": seconds,
                              "perfect": None, "worst": None}
                    if scores is not None:
                        perfect, worst = judge(scores, names)
                        record.update(perfect=bool(perfect), worst=worst)
                    results[config, rep, m] = record
                    with open(files[0], "a") as f:
                        f.write(json.dumps(record) + "\n")
                    print(f"{config} rep {rep} {m}: {record['perfect']} {record['worst']} "
                          f"{seconds:.2f}s", file=sys.stderr, flush=True)
    results = {k: r for k, r in results.items() if k[1] in reps}
    (against_recommended if args.against else side_by_side if args.side_by_side
     else markdown if args.markdown else report)(results, configs, methods)


if __name__ == "__main__":
    main()
