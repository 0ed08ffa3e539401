"""scikit-rebate's choices (``preset="skrebate"``): the Relief family as scikit-rebate 0.8.4
computes it, where it differs from the papers.

scikit-rebate (Urbanowicz et al., "Benchmarking relief-based feature selection methods for
bioinformatics data mining", J Biomed Inform 85, 2018, and its 0.8 documentation) makes these
choices, each reproduced here (the papers' definitions are those of each estimator's module):

* **Distance.** The number of differing discrete values plus sum abs(x - y) / (max - min) over the
  numeric ones, divided by the number of attributes when all are discrete (Hamming); with both
  kinds, the discrete mismatches are counted a / (number of discrete attributes) times each;
  with missing values, the sum over the attributes known in both instances divided by their
  number (the papers: the diffs of missing values in the sum, all attributes counted).
* **Attribute weights in the distance** (Iterative Relief's later rounds): the weighted mean
  sum_t w_t diff_t / sum_t w_t over discrete attributes (the weighted Hamming distance), the
  weighted sum over numeric ones; with missing values the weighted mean over the attributes
  known in both instances, divided once more by their number. scikit-rebate has no weighted
  distance over attributes of both kinds (its Iter fails there); such data are refused.
* **Thresholds.** SURF's and SWRF's mean (and SWRF's standard deviation) distance is taken over
  the N x N distance table, its zero diagonal included (the papers: over the pairs); with missing
  values over the table's lower triangle and N x N - N(N - 1)/2 zeros, so about half of it.
  MultiSURF's are each instance's own (as the papers).
* **Diff of a numeric value** with both kinds of attributes: 1 where abs(x - y) exceeds the
  attribute's standard deviation, else abs(x - y) / (max - min) (the papers: the latter).
* **Missing values.** A band member or neighbour whose value is missing is left out of that
  attribute's hit or miss mean (the mean over the known ones), and an instance R_i whose own value
  is missing updates nothing (the papers: RELIEF-D's probabilities).
* **Normalisation.** Each sampled instance's update is the mean diff of its hits subtracted from
  that of its misses; a band without hits (or without misses) contributes its other mean alone
  (the papers: the same, 0 for the absent set). The estimates are divided by the number of
  instances N.
* **Several classes.** The misses of class C weigh (C - 1) n_C / n_miss^2 times their diff sum,
  n_C the number of R_i's misses of class C and n_miss of all its misses (the papers: P(C) /
  (1 - P(y_i)) / n_C).
* **A numeric target** is a two-class problem: a hit where abs(y_i - y_j) is below the target's
  standard deviation (n - 1 in the denominator), else a miss (the papers: RReliefF's probability
  estimate).
* **Far band.** SURF* subtracts the near update over the far band; MultiSURF* and the starred
  SWRF forms score a far member's discrete attribute as w (x == y) and a numeric one as
  1 - w diff, added with the near update's signs (so the far hits count for the estimate and
  the far misses against it).
* **SWRF's mean.** The weighted diffs of a band's hits or misses are divided by their number,
  not by their weights (also our default).
* **ReliefF's ties.** The k nearest hits and k nearest misses of each class are the first in
  numpy's (unstable) ``argsort`` of the distances, R_i itself last (the papers: ties at the k-th
  distance share its place); μ-Relief takes the first k of each class in the reversed ``argsort``
  of abs(d - mu) (R_i itself at 0).
* **k** defaults to 100 (ReliefF, RReliefF, μ-Relief).

Instance weights, sampled iterations other than all instances in order and the Dask backend are
not part of scikit-rebate and are refused. Attributes are discrete or numeric as the data say;
scikit-rebate calls an attribute with at most 10 distinct values discrete (``categorical_threshold``)
and a target with more than 10 values numeric: encode the data so, as its tests do.

The estimators read their neighbours from :func:`context` (the k nearest, the bands of SURF and
MultiSURF with SWRF's weights, or μ-Relief's farthest from the mean) and score them with
:func:`estimate`, the same for all. Both work over N x N tables of the pairs; over discrete
attributes the sums of mismatches are matrix products of the values' indicators (exact counts
where the members weigh 1), and weighted distances are added attribute by attribute in
scikit-rebate's order, so that its ties are ours.
"""
import random
import sys
import warnings
from dataclasses import dataclass

import numpy as np

from .base import check_data
from .skrebate_distances import weighted_distances

__all__ = ["SkrebateContext", "context", "estimate", "vls_subsets", "DEFAULT_K"]

#: scikit-rebate's default ``n_neighbors``
DEFAULT_K = 100
#: scikit-rebate's ``categorical_threshold``: more distinct values make a target numeric
CATEGORICAL_THRESHOLD = 10


@dataclass(eq=False)
class SkrebateContext:
    """The neighbours of every instance as scikit-rebate finds them: ``near`` and ``far`` (N, N)
    the weight of each member (0: not a member; 1, or SWRF's sigmoid weight), ``far_scoring``
    "none", "subtract" (SURF*) or "opposite" (MultiSURF*, SWRF*)."""
    data: object
    near: np.ndarray
    far: np.ndarray
    far_scoring: str
    hits: np.ndarray         # (N, N) bool: j is a hit of i


def _distances(data):
    """(N x N distances, whether the table has missing values): see the module docstring."""
    X, discrete = np.asarray(data.X, dtype=float), data.discrete      # (bit planes decoded)
    n, a = X.shape
    missing = np.isnan(X).any()
    d_cols, c_cols = np.flatnonzero(discrete), np.flatnonzero(~discrete)
    scaled = (X[:, c_cols] - data.minimum[c_cols]) / data.span[c_cols]
    w = data.attribute_weights
    if w is not None and d_cols.size and c_cols.size:
        raise ValueError("preset='skrebate': scikit-rebate 0.8.4 has no weighted distance "
                         "over discrete and numeric attributes together (its Iter fails on "
                         "such data); leave the preset out, or use attributes of one kind")
    if w is not None:           # one kind (see skrebate_distances)
        D = np.empty((n, n))
        weighted_distances(np.ascontiguousarray(X), np.asarray(data.minimum, float),
                           np.asarray(data.span, float), np.ascontiguousarray(w, dtype=float),
                           bool(d_cols.size), bool(missing), D)
        return D, missing
    if not c_cols.size:
        return _mismatch_fractions(X), missing
    D = np.zeros((n, n))
    for i in range(n):
        mismatch = X[:, d_cols] != X[i, d_cols]
        numeric = np.abs(scaled - scaled[i])
        if missing:
            known_d = ~np.isnan(X[:, d_cols]) & ~np.isnan(X[i, d_cols])
            known_c = ~np.isnan(scaled) & ~np.isnan(scaled[i])
            total = (mismatch & known_d).sum(axis=1) + np.where(known_c, numeric, 0).sum(axis=1)
            with np.errstate(invalid="ignore", divide="ignore"):
                D[i] = total / (known_d.sum(axis=1) + known_c.sum(axis=1))
        elif not d_cols.size:
            D[i] = numeric.sum(axis=1)
        else:
            D[i] = mismatch.sum(axis=1) / d_cols.size * a + numeric.sum(axis=1)
    return D, missing


def _mismatch_fractions(X):
    """(N, N) the fraction of mismatches among the discrete attributes known in both instances
    (all of them without missing values), by matrix products of the values' indicators: the
    counts are exact, so these are the quotients the pairs' sums give."""
    known = ~np.isnan(X)
    K = known.astype(float)
    both = K @ K.T
    matches = np.zeros_like(both)
    for v in np.unique(X[known]):
        E = (X == v).astype(float)
        matches += E @ E.T
    with np.errstate(invalid="ignore", divide="ignore"):
        return (both - matches) / both


def _target_groups(data):
    """(hits (N, N) bool, group (N, N) int: the class of j, or 1 for a hit and 0 for a miss of
    a numeric target)."""
    y = data.y
    if data.is_classification:
        hits = y[:, None] == y[None, :]
        return hits, np.broadcast_to(y.astype(np.intp), hits.shape)
    hits = np.abs(y[:, None] - y[None, :]) < np.std(y, ddof=1)
    return hits, hits.astype(np.intp)


def _first_k(order, group, k):
    """(N,) bool: the first k of each group in ``order``."""
    g = group[order]
    rank = np.zeros(order.size, np.intp)
    for value in np.unique(g):
        at = g == value
        rank[at] = np.arange(at.sum())
    member = np.zeros(order.size, bool)
    member[order[rank < k]] = True
    return member


def _sigmoid(d, t, sd):
    """scikit-rebate's SWRF weight: 2 / (1 + exp(clip(-4 abs(d - t) / sd, -50, 50))) - 1."""
    x = np.clip(-np.abs(d - t) * (4.0 / np.where(sd != 0, sd, 1.0)), -50, 50)
    return 2.0 / (1.0 + np.exp(x)) - 1.0


def context(estimator, data):
    """The neighbours of every instance of ``data`` as scikit-rebate's counterpart of
    ``estimator`` finds them (its ``skrebate_neighbours``: "k-nearest", "bands" or
    "extremes"). Distances undefined as scikit-rebate's are (NaN: attribute weights all 0
    over discrete attributes, or no attribute known in both instances) are so here, without
    numpy's warnings of them."""
    with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)     # means of all-NaN rows
        return _neighbours(estimator, data)


def _neighbours(estimator, data):
    check_data(data, estimator)
    if data.weights is not None:
        raise ValueError("preset='skrebate': scikit-rebate has no instance weights")
    if data.is_sparse:
        raise ValueError("preset='skrebate' is not available for sparse data")
    if estimator.iterations is not None:
        raise ValueError("preset='skrebate' visits every instance (iterations=None), as "
                         "scikit-rebate does")
    n = data.n_instances
    D, missing = _distances(data)
    table = np.tril(D, -1) if missing else D          # the table the thresholds are taken of
    has_nan = np.isnan(D).any()
    hits, group = _target_groups(data)
    near, far = np.zeros((n, n)), np.zeros((n, n))
    kind = estimator.skrebate_neighbours
    far_scoring = "none"
    mean_of, std_of = (np.nanmean, np.nanstd) if has_nan else (np.mean, np.std)
    if kind == "k-nearest":
        k = estimator.k_
        for i in range(n):
            d = D[i].copy()
            d[i] = sys.maxsize
            near[i] = _first_k(np.argsort(d), group[i], k)
    elif kind == "extremes":
        k = estimator.k_
        for i in range(n):
            score = np.zeros(n)
            others = np.arange(n) != i
            for g in np.unique(group[i][others]):
                at = others & (group[i] == g)
                score[at] = np.abs(D[i, at] - mean_of(D[i, at]))
            near[i] = _first_k(np.argsort(score)[::-1], group[i], k)
    else:       # every row at once (a row's mean and deviation as numpy's of the row alone)
        sigmoid, per_instance = estimator.sigmoid, estimator.per_instance
        others = ~np.eye(n, dtype=bool)
        if per_instance:
            off = D[others].reshape(n, n - 1)
            t, sd = mean_of(off, axis=1)[:, None], std_of(off, axis=1)[:, None]
        else:
            t, sd = mean_of(table), std_of(table)
        half = sd / 2 if (per_instance and estimator.dead_band) else 0.0
        lo, hi = t - half, t + half
        near = np.where(others & (D < lo), _sigmoid(D, lo, sd) if sigmoid else 1.0, 0.0)
        if estimator.far_band:
            far = np.where(others & (D > hi), _sigmoid(D, hi, sd) if sigmoid else 1.0, 0.0)
        if estimator.far_band:
            far_scoring = "opposite" if (per_instance or sigmoid) else "subtract"
    return SkrebateContext(data, near, far, far_scoring, hits)


def _diffs(data, t, rows):
    """(b, N) diff of attribute t between ``rows`` and every instance (NaN where one value is
    missing): the mismatch, or abs(x - y) / (max - min), 1 above the standard deviation when
    the data have both kinds of attributes."""
    x = data.X[:, t]
    if data.discrete[t]:
        diff = (x[rows, None] != x[None, :]).astype(float)
    else:
        raw = np.abs(x[rows, None] - x[None, :])
        diff = raw / data.span[t]
        if data.discrete.any():
            known = x[~np.isnan(x)]
            diff = np.where(raw > np.std(known), 1.0, diff)
    diff[np.isnan(x[rows, None]) | np.isnan(x[None, :])] = np.nan
    return diff


def _band_score(data, t, rows, weight, hits, opposite):
    """(b,) scikit-rebate's update of attribute t by each row over one band (``weight`` (b, N)
    its members' weights), scored as a near band or, with ``opposite``, as a far band."""
    diff = _diffs(data, t, rows)
    valid = (weight > 0) & ~np.isnan(diff)
    diff = np.where(valid, diff, 0.0)
    if opposite:        # discrete: w (x == y); numeric: 1 - w diff, summed as the count less
        term = weight * (1.0 - diff) if data.discrete[t] else np.where(valid, 1.0, 0.0) \
            - weight * diff
    else:
        term = weight * diff
    term = np.where(valid, term, 0.0)
    hit = valid & hits
    miss = valid & ~hits
    n_hit, s_hit = hit.sum(axis=1), (term * hit).sum(axis=1)
    n = data.n_instances
    with np.errstate(invalid="ignore", divide="ignore"):
        hit_part = np.where(n_hit > 0, -s_hit / np.maximum(n_hit, 1), 0.0)
        if data.is_classification and len(np.unique(data.y)) > 2:
            y = data.y
            classes = np.unique(y)
            n_miss = miss.sum(axis=1)
            miss_part = np.zeros(rows.size)
            for c in classes:
                of_c = miss & (y[None, :] == c)
                n_c, s_c = of_c.sum(axis=1), (term * of_c).sum(axis=1)
                miss_part += s_c * (n_c / np.maximum(n_miss, 1)) * (classes.size - 1)
            miss_part = np.where(n_miss > 0, miss_part / np.maximum(n_miss, 1), 0.0)
        else:
            n_miss, s_miss = miss.sum(axis=1), (term * miss).sum(axis=1)
            miss_part = np.where(n_miss > 0, s_miss / np.maximum(n_miss, 1), 0.0)
    score = (hit_part + miss_part) / n
    score[np.isnan(data.X[rows, t])] = 0.0        # R_i's own value missing
    return score


def _discrete_band_scores(data, cols, weight, hits, opposite):
    """(N, len(cols)) what :func:`_band_score` gives each row for the discrete attributes
    ``cols``, by matrix products: with E_v the indicator of value v and K of a known value,
    a row's weighted mismatches with its hits are (w H) K - sum_v [x_i = v] (w H) E_v, its
    counts (w > 0) H K, and so for the misses (and each class of them). Over 0/1 weights the
    products count, exactly as the sums of :func:`_band_score` do."""
    n = data.n_instances
    x = np.asarray(data.X[:, cols], dtype=float)
    known = ~np.isnan(x)
    K = None if known.all() else known.astype(float)
    values = np.unique(x[known])
    member = weight > 0

    def sums(select):
        """(counts, weighted mismatches or, with ``opposite``, matches) over the members of
        each row that ``select`` (N, N) keeps."""
        w = np.where(select, weight, 0.0)
        if K is None:           # (the products with K: the rows' sums)
            counts = np.broadcast_to((member & select).sum(axis=1)[:, None], x.shape)
            total = np.broadcast_to(w.sum(axis=1)[:, None], x.shape)
        else:
            counts, total = (member & select).astype(float) @ K, w @ K
        same = np.zeros(x.shape)
        for v in values:
            at = x == v
            same += np.where(at, w @ at.astype(float), 0.0)
        return counts, (same if opposite else total - same)

    n_hit, s_hit = sums(hits)
    with np.errstate(invalid="ignore", divide="ignore"):
        hit_part = np.where(n_hit > 0, -s_hit / np.maximum(n_hit, 1), 0.0)
        if data.is_classification and len(np.unique(data.y)) > 2:
            classes = np.unique(data.y)
            n_miss, _ = sums(~hits)
            miss_part = np.zeros(x.shape)
            for c in classes:
                n_c, s_c = sums(~hits & (data.y[None, :] == c))
                miss_part += s_c * (n_c / np.maximum(n_miss, 1)) * (classes.size - 1)
            miss_part = np.where(n_miss > 0, miss_part / np.maximum(n_miss, 1), 0.0)
        else:
            n_miss, s_miss = sums(~hits)
            miss_part = np.where(n_miss > 0, s_miss / np.maximum(n_miss, 1), 0.0)
    score = (hit_part + miss_part) / n
    score[~known] = 0.0             # R_i's own value missing
    return score


def _scores(data, weight, hits, opposite):
    """(N, A) each row's update of every attribute over one band: discrete attributes by
    :func:`_discrete_band_scores` (in blocks, to bound the memory), numeric ones by
    :func:`_band_score`."""
    rows = np.arange(data.n_instances)
    updates = np.zeros((data.n_instances, data.n_attributes))
    discrete = np.flatnonzero(data.discrete)
    block = max(1, 2 ** 22 // max(data.n_instances, 1))
    for start in range(0, discrete.size, block):
        cols = discrete[start:start + block]
        updates[:, cols] = _discrete_band_scores(data, cols, weight, hits, opposite)
    for t in np.flatnonzero(~data.discrete):
        updates[:, t] = _band_score(data, t, rows, weight, hits, opposite)
    return updates


def estimate(ctx, columns=None):
    """scikit-rebate's estimates of ``columns`` (default: the context's data) over the
    context's neighbours (see the module docstring)."""
    data = ctx.data if columns is None else columns
    updates = _scores(data, ctx.near, ctx.hits, False)          # (instance, attribute)
    if ctx.far_scoring == "subtract":
        updates = updates - _scores(data, ctx.far, ctx.hits, False)
    elif ctx.far_scoring == "opposite":
        updates = updates + _scores(data, ctx.far, ctx.hits, True)
    # the instances' updates added in their order, as scikit-rebate adds its rows (not numpy's
    # pairwise sum of a column): Iterative Relief's next distances, and so the ties among the
    # neighbours, follow these estimates to the last bit
    return updates.sum(axis=0)


def vls_subsets(n_attributes, n_subsets, size, seed):
    """scikit-rebate's VLS subsets (its ``make_subsets`` after seeding Python's generator with
    ``seed``): the attribute indices shuffled by Python's ``random.shuffle`` and cut into
    consecutive subsets of ``size``, the remainder, if any, filled up by ``random.choice`` of
    attributes not yet in it, then ``random.sample`` of ``size`` attributes for each other
    subset (of the shuffled list). The same law as :func:`.vls.vls_subsets`, by another
    generator; drawn by a generator of its own, so Python's global one is left as it was."""
    rng = random.Random(seed)
    order = list(range(n_attributes))
    rng.shuffle(order)
    remaining = list(order)
    subsets = []
    while True:
        subsets.append(remaining[:size])
        remaining = remaining[size:]
        if len(remaining) < size:
            break
    if remaining:
        while len(remaining) < size:
            candidate = rng.choice(order)
            if candidate not in remaining:
                remaining.append(candidate)
        subsets.append(remaining)
    subsets += [rng.sample(order, size) for _ in range(n_subsets - len(subsets))]
    return [np.asarray(subset, np.intp) for subset in subsets]
