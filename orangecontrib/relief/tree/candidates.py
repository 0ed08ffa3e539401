"""The best binary split of one attribute in a tree node (Robnik-Šikonja & Kononenko 1999 §4).

The search itself is :mod:`..estimators.splits` (candidate thresholds at midpoints between
consecutive distinct values, ``x <= threshold`` left; value partitions exhaustive up to 7 values,
greedy up to 30, ordered beyond). This module only decides how candidates are scored in a node:

* impurity measures (:class:`..estimators.impurity.ImpurityEstimator`) score contingency tables
  of the node's *weighted* instances (fractional weights of instances with missing values),
  through the measure's own ``best_split``;
* every other estimator (the Relief family, Contextual Merit, Π) scores each candidate as a
  derived 0/1 column (NaN where the value is missing) with ``estimator.estimate(context,
  columns)`` over the node's one context (one neighbour search evaluates all thresholds of an
  attribute).

A candidate is *admissible* when each branch receives a weight of at least ``min_leaf``, the
instances with a missing value counted in proportion to the known ones, as they are sent down.
"""
import numpy as np

from ..estimators.impurity import ImpurityEstimator
from ..estimators.splits import (GREEDY_MAX, Split, best_partition, best_threshold,
                                 candidate_thresholds, search_partitions, target_statistics,
                                 value_order, value_table)

__all__ = ["best_split", "corelearn_split", "estimate_in_blocks", "BLOCK_ELEMENTS"]

#: largest number of values (instances x columns) in one estimator call
BLOCK_ELEMENTS = 2 ** 18
#: largest number of neighbour pairs x columns in one call of a neighbour-based estimate (the
#: Relief family's time is proportional to it): about 0.2 s between two cancel points
BLOCK_PAIRS = 2 ** 22


def best_split(estimator, context, node_data, weights, attribute, min_leaf,
               thresholds_per_pass=None, check=None):
    """The best admissible binary split (a :class:`..estimators.splits.Split`) of ``attribute``
    in the node whose :class:`EncodedData` is ``node_data``, instance weights ``weights`` and
    context for ``estimator`` is ``context``; ``None`` when no split is admissible.

    ``thresholds_per_pass``: how many candidate thresholds a column-scoring estimator scores in
    one pass (None = all at once); see :func:`_column_threshold`. ``check()`` is called between
    blocks of estimator calls (a cancel point: an exception raised there propagates)."""
    column = node_data.X[:, attribute]
    known = ~np.isnan(column)
    if known.sum() < 2 or weights[known].sum() <= 0:
        return None
    scale = weights.sum() / weights[known].sum()       # the missing weight follows the known
    if isinstance(estimator, ImpurityEstimator):
        return _impurity_split(estimator, node_data, weights, attribute, min_leaf, scale)
    if node_data.discrete[attribute]:
        return _column_partition(estimator, context, node_data, weights, attribute, min_leaf,
                                 scale, check, thresholds_per_pass)
    return _column_threshold(estimator, context, node_data, weights, column, min_leaf, scale,
                             thresholds_per_pass, check)


def corelearn_split(estimator, context, node_data, attribute, check=None):
    """The split of ``attribute`` as CORElearn chooses it, without regard to the branches'
    weights (the tree then makes a leaf when a branch is too light): an impurity measure's own
    best split of the node's instances counted once each; for the other estimators a numeric
    attribute's thresholds at the midpoints between consecutive distinct values among the
    sorted known values, leaving out the two lowest and the two highest values, scored as
    derived columns (the first best wins), a discrete attribute's partitions of its values
    leaving at least 2 instances on each side. ``None`` when there is no candidate."""
    column = node_data.X[:, attribute]
    known = ~np.isnan(column)
    if known.sum() < 2:
        return None
    impurity = isinstance(estimator, ImpurityEstimator)
    w = node_data.instance_weights          # an instance of weight w counts as w instances
    stats = target_statistics(node_data.y, node_data.n_classes, w)
    if node_data.discrete[attribute]:
        n_values = int(node_data.n_values[attribute])
        if n_values > CORELEARN_EXHAUSTIVE:
            if impurity:
                return estimator.best_split(column, True, n_values, stats, w)
            return _column_partition(estimator, context, node_data, w, attribute, 2, 1.0,
                                     check)
        masks = corelearn_partitions(n_values)
        codes = np.where(known, column, 0).astype(np.intp)
        n_left = (masks[:, codes] & known) @ w
        masks = masks[(n_left >= 2) & (w[known].sum() - n_left > 2)]
        if not masks.size:
            return None
        right = np.where(known, ~masks[:, codes], np.nan).T.astype(float)
        if impurity:
            scores = np.array([estimator.estimate_column(right[:, j], True, 2, stats, w)
                               for j in range(right.shape[1])])
        else:
            scores = _score_columns(estimator, context, node_data, right, check)
        if np.all(np.isnan(scores)):
            return None
        best = int(np.nanargmax(scores))
        return Split(score=float(scores[best]),
                     left_values=tuple(int(v) for v in np.flatnonzero(masks[best])))
    if impurity:
        return estimator.best_split(column, False, 0, stats, w)
    order = np.flatnonzero(known)[np.argsort(column[known], kind="stable")]
    last = np.cumsum(w[order])            # sorted places (as repeated instances) each fills
    first, total = last - w[order], last[-1]
    inner = np.unique(column[order][(last - 1 >= 2) & (first <= total - 3)])
    if inner.size < 2:
        return None
    thresholds = inner[:-1] / 2 + inner[1:] / 2        # no overflow near the float max
    right = (column[:, None] > thresholds).astype(float)
    right[~known] = np.nan
    scores = _score_columns(estimator, context, node_data, right, check)
    if np.all(np.isnan(scores)):
        return None
    best = int(np.nanargmax(scores))
    return Split(score=float(scores[best]), threshold=float(thresholds[best]))


#: CORElearn searches the partitions of a discrete attribute with fewer values exhaustively
CORELEARN_EXHAUSTIVE = 6


def corelearn_partitions(n_values):
    """The binary partitions of values 0..n_values-1 in the order CORElearn generates them, as
    a (P, n_values) bool mask of the left values: a counter (:func:`_next_subset`) lists the
    subsets of the values, and a subset larger than half of them is replaced by its
    complement."""
    n = int(n_values)
    if n < 2:
        return np.zeros((0, max(n, 0)), bool)
    digits, masks = [0] * n, []
    while _next_subset(digits, n):
        size = digits.index(1) + 1
        mask = np.zeros(n, bool)
        mask[[d - 1 for d in digits[:size]]] = True
        masks.append(~mask if size > n // 2 else mask)
    return np.array(masks, dtype=bool)


def _next_subset(digits, n):
    """Advance ``digits`` (1-based values in decreasing order, ending at value 1) to the next
    subset of 1..n that contains 1; False when done."""
    if digits[0] == 0:
        digits[0] = 1
        return True
    pos = 0
    while True:
        if digits[pos] == 1:
            if pos == n - 2:
                return False
            pos += 1
            digits[pos] = 0
        if digits[pos] < n - pos:
            digits[pos] += 1
            for i in range(pos - 1, -1, -1):
                digits[i] = digits[i + 1] + 1
            return True
        pos += 1


def _impurity_split(estimator, node_data, weights, attribute, min_leaf, scale):
    stats = target_statistics(node_data.y, node_data.n_classes, weights)

    def admissible_criterion(tables):
        branch = tables.sum(axis=-1) if node_data.n_classes else tables[..., 0]
        ok = np.all(branch * scale >= min_leaf, axis=-1)
        return np.where(ok, estimator.criterion(tables), np.nan)

    column = node_data.X[:, attribute]
    if node_data.discrete[attribute]:
        return best_partition(column, stats, admissible_criterion, node_data.n_values[attribute],
                              sorted_by_mean=not node_data.n_classes)
    return best_threshold(column, stats, admissible_criterion, 1, 1)


def estimate_in_blocks(estimator, context, n_rows, n_columns, block, check=None):
    """Estimates of ``n_columns`` columns over ``context``, ``block(lo, hi)`` giving the
    EncodedData of columns lo..hi-1 (or None: the context's own data, all columns), in
    blocks of at most ``BLOCK_ELEMENTS`` values and ``BLOCK_PAIRS`` neighbour pairs x columns;
    ``check()`` is called before each block (a cancel point between estimator calls of bounded
    time)."""
    pairs = getattr(getattr(context, "neighbours", None), "size", 0)
    step = max(1, min(BLOCK_ELEMENTS // max(n_rows, 1), BLOCK_PAIRS // max(pairs, 1)))
    out = np.empty(n_columns)
    for lo in range(0, n_columns, step):
        if check is not None:
            check()
        hi = min(lo + step, n_columns)
        out[lo:hi] = estimator.estimate(context, block(lo, hi))
    return out


def _score_columns(estimator, context, node_data, columns, check=None):
    """Estimates of the derived 0/1 ``columns`` (n x T) over ``context``, in blocks of columns
    bounded in memory and time."""
    return estimate_in_blocks(
        estimator, context, columns.shape[0], columns.shape[1],
        lambda lo, hi: node_data.with_columns(columns[:, lo:hi], discrete=True, n_values=2),
        check)


def _threshold_columns(node_data, column, thresholds):
    """``block(lo, hi)`` for :func:`estimate_in_blocks`: the 0/1 columns "x > t" of thresholds
    lo..hi-1 (NaN where x is missing), built block by block."""
    def block(lo, hi):
        right = (column[:, None] > thresholds[lo:hi]).astype(float)
        right[np.isnan(column)] = np.nan
        return node_data.with_columns(right, discrete=True, n_values=2)
    return block


def _column_threshold(estimator, context, node_data, weights, column, min_leaf, scale,
                      thresholds_per_pass, check=None):
    """Best admissible threshold, ``thresholds_per_pass`` candidates scored per pass: a pass
    scores candidates evenly spread over the current range of the sorted candidates, the next
    pass the candidates between the best one's scored neighbours, until none is left unscored
    there (all candidates in one pass when there are few, or with ``thresholds_per_pass=None``).
    A coarse-to-fine search: exact when the estimate of the thresholds is unimodal, and it keeps
    the number of derived columns per node near ``thresholds_per_pass * log(candidates)``."""
    thresholds, n_lower, order = candidate_thresholds(column, 1, 1)
    lower = np.cumsum(weights[order])[n_lower - 1] * scale
    ok = (lower >= min_leaf) & (weights.sum() - lower >= min_leaf)
    thresholds = thresholds[ok]
    per_pass = thresholds.size if thresholds_per_pass is None else int(thresholds_per_pass)
    scores = np.full(thresholds.size, np.nan)
    lo, hi = 0, thresholds.size - 1
    while hi >= lo:
        pick = np.unique(np.linspace(lo, hi, min(per_pass, hi - lo + 1)).round().astype(np.intp))
        pick = pick[np.isnan(scores[pick])]
        if pick.size == 0:
            break
        scores[pick] = estimate_in_blocks(estimator, context, column.size, pick.size,
                                          _threshold_columns(node_data, column, thresholds[pick]),
                                          check)
        if np.all(np.isnan(scores)):
            return None
        best = int(np.nanargmax(scores))
        scored = np.flatnonzero(~np.isnan(scores))
        lo = scored[scored < best].max(initial=-1) + 1
        hi = scored[scored > best].min(initial=thresholds.size) - 1
    if thresholds.size == 0 or np.all(np.isnan(scores)):
        return None
    best = int(np.nanargmax(scores))
    return Split(score=float(scores[best]), threshold=float(thresholds[best]))


def _column_partition(estimator, context, node_data, weights, attribute, min_leaf, scale,
                      check=None, thresholds_per_pass=None):
    """Best admissible partition of a discrete attribute's values: exhaustive or greedy
    (:func:`..estimators.splits.search_partitions`) up to ``GREEDY_MAX`` values; beyond, the
    values are ranked by :func:`..estimators.splits.value_order` and the rank is split like a
    numeric column (:func:`_column_threshold`), so a value set of any size costs about
    ``thresholds_per_pass * log(values)`` derived columns."""
    column = node_data.X[:, attribute]
    known = ~np.isnan(column)
    present = np.unique(column[known]).astype(np.intp)
    if present.size > GREEDY_MAX:
        stats = target_statistics(node_data.y, node_data.n_classes, weights)
        order = value_order(value_table(column, stats, node_data.n_values[attribute])[present],
                            classification=node_data.is_classification)
        rank = np.full(int(node_data.n_values[attribute]), np.nan)
        rank[present[order]] = np.arange(present.size)
        ranked = np.full(column.shape, np.nan)
        ranked[known] = rank[column[known].astype(np.intp)]
        split = _column_threshold(estimator, context, node_data, weights, ranked, min_leaf, scale,
                                  thresholds_per_pass, check)
        if split is None:
            return None
        left = np.sort(present[order[:int(split.threshold) + 1]])
        return Split(score=split.score, left_values=tuple(int(v) for v in left))
    value_weight = np.bincount(column[known].astype(np.intp), weights=weights[known],
                               minlength=int(node_data.n_values[attribute]))[present]
    total = weights.sum()

    def score_partitions(masks):
        left_weight = masks @ value_weight * scale
        ok = (left_weight >= min_leaf) & (total - left_weight >= min_leaf)
        scores = np.full(len(masks), np.nan)
        chosen = masks[ok]

        def derived(lo, hi):            # the 0/1 columns of partitions lo..hi-1 only
            right = np.column_stack([~np.isin(column, present[m]) for m in chosen[lo:hi]])
            return node_data.with_columns(np.where(known[:, None], right, np.nan),
                                          discrete=True, n_values=2)
        if ok.any():
            scores[ok] = estimate_in_blocks(estimator, context, column.size, len(chosen),
                                            derived, check)
        return scores

    found = search_partitions(present.size, score_partitions)
    if found is None:
        return None
    mask, score = found
    return Split(score=score, left_values=tuple(int(v) for v in present[mask]))
