"""Binary splits of one attribute column, shared by the impurity measures and the CORE trees.

A split sends each instance with a known value to the left or the right branch; instances with a
missing value are left out of the evaluation (as in CORElearn).

Target statistics
    Every split criterion is a function of a *table* of summed per-instance target statistics,
    shape ``(..., B, K)`` (B branches or values, K statistics), built by :func:`target_statistics`:

    * classification: K = C class indicators (weighted), so a table is a contingency table
      ``n[b, c]``;
    * regression: K = 3 moments ``[w, w·(y−ȳ), w·(y−ȳ)²]`` (the target centred on its mean for
      numerical accuracy), from which each branch's weight, mean and variance follow.

    A table of all splits at once is a batch ``(n_splits, 2, K)``; criteria are vectorised over the
    leading axes and return one score per table, higher = better.

Numeric attributes (:func:`candidate_thresholds`, :func:`best_threshold`)
    Candidate thresholds are the midpoints between consecutive distinct known values, kept when they
    leave at least ``min_lower`` instances on the lower side and ``min_upper`` on the upper side
    (CORElearn: 2 and 3). The lower side is ``x <= threshold`` (Orange's
    ``NumericNode`` convention). All candidates are evaluated at once from cumulative sums of the
    statistics in the sorted order (class counts for classification; sums and sums of squares for
    regression).

Discrete attributes (:func:`search_partitions`, :func:`best_partition`)
    The best binary partition of the values that occur (values that never occur go right):

    * V <= ``exhaustive_max`` (7) occurring values: all 2^(V−1) − 1 partitions (the last occurring
      value fixed on the right, so each unordered partition is seen once);
    * up to ``greedy_max`` (30, CORElearn's default limit for greedy binarisation) values, greedy
      forward selection (CORElearn's rule): start with all values on the right; V − 1 times move
      to the left the one value whose move gives the best score; the best of the V − 1
      partitions visited wins (V(V−1)/2 partitions scored);
    * more values, or regression with ``sorted_by_mean=True``: an *ordered* search — the values
      sorted by :func:`value_order` (mean target for regression; for classification the first
      principal component of the values' class distributions, Coppersmith, Hong & Hosking 1999,
      "Partitioning nominal attributes in decision trees"), the V − 1 prefixes of that order are
      the only candidates, scored at once from cumulative sums, so the time is O(V log V) and
      any attribute the machine can hold is split. For the weighted variance (eq. 17 of
      Robnik-Šikonja & Kononenko 1999, CORElearn's MSEofMean) and for two classes with any
      concave impurity (Gini, entropy) the optimum is among these prefixes (Breiman et al. 1984,
      Thm. 4.5); with more classes it is a close approximation. (CORElearn binarises such
      attributes at random instead.)

    :func:`search_partitions` takes any scoring function of partition masks, so a tree can run the
    same search with a Relief-family estimator scoring the binary columns.

Ties go to the first candidate (lowest threshold; first partition in enumeration order).
"""
from dataclasses import dataclass

import numpy as np

__all__ = ["Split", "target_statistics", "value_table", "candidate_thresholds", "best_threshold",
           "exhaustive_partitions", "search_partitions", "value_order", "best_partition",
           "GREEDY_MAX"]

#: the most values a discrete attribute may have for the greedy partition search; beyond it the
#: search is ordered (see the module docstring)
GREEDY_MAX = 30


@dataclass(frozen=True)
class Split:
    """The best binary split of one column and its score (higher = better).

    ``threshold`` is set for a numeric split (``x <= threshold`` goes left), ``left_values`` (a
    sorted tuple of value codes) for a discrete one; the other is ``None``.
    """
    score: float
    threshold: float = None
    left_values: tuple = None

    @property
    def is_numeric(self):
        return self.threshold is not None

    def branches(self, column):
        """The branch of each value of ``column``: 0.0 left, 1.0 right, NaN missing.

        The result is a binary discrete column (codes 0/1), e.g. for
        ``EncodedData.with_columns`` when a Relief-family estimator scores the split."""
        column = np.asarray(column, dtype=np.float64)
        known = ~np.isnan(column)
        if self.is_numeric:
            left = column <= self.threshold
        else:
            left = np.isin(column, self.left_values)
        return np.where(known, np.where(left, 0.0, 1.0), np.nan)


def target_statistics(y, n_classes, weights=None):
    """Per-instance target statistics ``(n, K)`` whose sums make the split tables.

    Classification (``n_classes`` > 0): one-hot class indicators times the instance weight.
    Regression (``n_classes`` == 0): ``[w, w·(y−ȳ), w·(y−ȳ)²]`` with ȳ the (weighted) mean.
    ``weights`` default to 1 (a tree passes fractional weights of instances sent down both
    branches)."""
    y = np.asarray(y, dtype=np.float64)
    w = np.ones(y.shape[0]) if weights is None else np.asarray(weights, dtype=np.float64)
    if w.shape != y.shape:
        raise ValueError(f"weights have shape {w.shape}, the target {y.shape}")
    if n_classes:
        stats = np.zeros((y.shape[0], int(n_classes)))
        stats[np.arange(y.shape[0]), y.astype(np.intp)] = w
        return stats
    total = w.sum()
    centred = y - (w @ y / total if total > 0 else 0.0)
    return np.column_stack((w, w * centred, w * centred ** 2))


def value_table(codes, stats, n_values):
    """Sum of ``stats`` per value of a discrete column: ``(n_values, K)``, with one ``bincount``.

    Instances whose code is NaN (missing) are left out. For classification statistics this is the
    value × class contingency table n[v, c]."""
    known = ~np.isnan(codes)
    k = stats.shape[1]
    index = (codes[known].astype(np.intp)[:, None] * k + np.arange(k)).ravel()
    table = np.bincount(index, weights=stats[known].ravel(), minlength=int(n_values) * k)
    return table.reshape(int(n_values), k)


def candidate_thresholds(x, min_lower=2, min_upper=3, weights=None):
    """Candidate thresholds of a numeric column and the sort order they refer to.

    Returns ``(thresholds, n_lower, order)``: the midpoints between consecutive distinct known
    values that leave at least ``min_lower`` known instances at or below and ``min_upper`` above
    them (with ``weights``, instances counted by their weights), the number of known instances
    below each (ascending), and the indices of the known instances in ascending order of value
    (stable, so ties keep data order)."""
    x = np.asarray(x, dtype=np.float64)
    known = np.flatnonzero(~np.isnan(x))
    order = known[np.argsort(x[known], kind="stable")]
    values = x[order]
    n = values.size
    n_lower = np.flatnonzero(values[1:] != values[:-1]) + 1
    if weights is None:
        lower, total = n_lower, n
    else:
        mass = np.cumsum(np.asarray(weights, dtype=np.float64)[order])
        lower, total = mass[n_lower - 1], (mass[-1] if n else 0.0)
    n_lower = n_lower[(lower >= min_lower) & (total - lower >= min_upper)]
    thresholds = values[n_lower - 1] / 2 + values[n_lower] / 2     # no overflow near the float max
    return thresholds, n_lower, order


def best_threshold(x, stats, criterion, min_lower=2, min_upper=3, weights=None):
    """The best numeric split of column ``x`` by ``criterion`` (a function of ``(T, 2, K)``
    tables), or ``None`` when no candidate threshold exists (no two distinct known values, or too
    few instances for the side minima, counted by ``weights`` if given). All candidates are
    scored at once from cumulative sums."""
    thresholds, n_lower, order = candidate_thresholds(x, min_lower, min_upper, weights)
    if thresholds.size == 0:
        return None
    cumulative = np.cumsum(stats[order], axis=0)
    lower = cumulative[n_lower - 1]
    tables = np.stack((lower, cumulative[-1] - lower), axis=1)
    scores = criterion(tables)
    if np.all(np.isnan(scores)):
        return None
    best = int(np.nanargmax(scores))
    return Split(score=float(scores[best]), threshold=float(thresholds[best]))


def exhaustive_partitions(n_values):
    """All 2^(V−1) − 1 binary partitions of V values as a ``(P, V)`` bool mask (True = left),
    value V−1 always on the right so that each unordered partition appears once."""
    n_values = int(n_values)
    if n_values < 2:
        return np.zeros((0, max(n_values, 0)), dtype=bool)
    codes = np.arange(1, 2 ** (n_values - 1))
    masks = (codes[:, None] >> np.arange(n_values - 1)) & 1
    return np.column_stack((masks.astype(bool), np.zeros(codes.size, dtype=bool)))


def search_partitions(n_values, score_partitions, exhaustive_max=7):
    """The best binary partition of V = ``n_values`` values: ``(left_mask, score)`` or ``None``.

    ``score_partitions(masks)`` maps a ``(P, V)`` bool mask (True = left) to ``(P,)`` scores,
    NaN for an inadmissible partition. Exhaustive for V <= ``exhaustive_max``; greedy beyond (see
    the module docstring: values moved to the left one at a time, each time the one giving the best
    score; a step whose candidates are all inadmissible moves the lowest remaining value)."""
    n_values = int(n_values)
    if n_values < 2:
        return None
    if n_values <= exhaustive_max:
        masks = exhaustive_partitions(n_values)
        scores = np.asarray(score_partitions(masks), dtype=np.float64)
    else:
        left = np.zeros(n_values, dtype=bool)
        visited, scores = [], []
        for _ in range(n_values - 1):
            moves = np.flatnonzero(~left)
            candidates = np.repeat(left[None, :], moves.size, axis=0)
            candidates[np.arange(moves.size), moves] = True
            step = np.asarray(score_partitions(candidates), dtype=np.float64)
            pick = 0 if np.all(np.isnan(step)) else int(np.nanargmax(step))
            left = candidates[pick]
            visited.append(left)
            scores.append(step[pick])
        masks, scores = np.array(visited), np.array(scores)
    if np.all(np.isnan(scores)):
        return None
    best = int(np.nanargmax(scores))
    return masks[best], float(scores[best])


def value_order(table, classification):
    """Order of the values (rows of a value table ``(V, K)`` of :func:`target_statistics` sums)
    for the ordered partition search: by mean target (regression) or, for classification, by
    the projection of each value's class distribution on the first principal component of the
    distributions (weighted by the values' weights). Ties keep the row order."""
    table = np.asarray(table, dtype=np.float64)
    weight = table.sum(axis=1) if classification else table[:, 0]
    with np.errstate(invalid="ignore", divide="ignore"):
        if classification:
            p = table / weight[:, None]
            p[~np.isfinite(p)] = 0.0
            total = weight.sum()
            centred = p - (weight @ p / total if total > 0 else p.mean(axis=0))
            cov = (centred * weight[:, None]).T @ centred
            key = centred @ np.linalg.eigh(cov)[1][:, -1]
        else:
            key = table[:, 1] / weight
    key = np.where(np.isfinite(key), key, 0.0)
    return np.argsort(key, kind="stable")


def best_partition(codes, stats, criterion, n_values, exhaustive_max=7, min_branch=1,
                   sorted_by_mean=False, weights=None, greedy_max=GREEDY_MAX):
    """The best binary partition of a discrete column by ``criterion`` (a function of
    ``(P, 2, K)`` tables), or ``None`` when fewer than two values occur.

    Only the values that occur among the known values are partitioned (the others go right);
    each branch must hold at least ``min_branch`` instances (counted by ``weights`` if given).
    Exhaustive up to ``exhaustive_max`` occurring values, greedy up to ``greedy_max``, ordered
    beyond; ``sorted_by_mean=True`` (regression statistics only) always searches the prefixes of
    the values sorted by mean target."""
    codes = np.asarray(codes, dtype=np.float64)
    table = value_table(codes, stats, n_values)
    known = ~np.isnan(codes)
    counts = np.bincount(codes[known].astype(np.intp), minlength=int(n_values),
                         weights=None if weights is None else np.asarray(weights)[known])
    present = np.flatnonzero(counts > 0)
    if present.size < 2:
        return None
    table, counts = table[present], counts[present]
    total = table.sum(axis=0)

    def score_tables(left, n_left):
        tables = np.stack((left, total - left), axis=1)
        scores = criterion(tables)
        admissible = (n_left >= min_branch) & (counts.sum() - n_left >= min_branch)
        return np.where(admissible, scores, np.nan)

    if sorted_by_mean or present.size > greedy_max:
        order = value_order(table, classification=not sorted_by_mean)
        scores = score_tables(np.cumsum(table[order], axis=0)[:-1],
                              np.cumsum(counts[order])[:-1])
        if np.all(np.isnan(scores)):
            return None
        best = int(np.nanargmax(scores))
        mask = np.zeros(present.size, dtype=bool)
        mask[order[:best + 1]] = True
        found = mask, float(scores[best])
    else:
        found = search_partitions(present.size,
                                  lambda masks: score_tables(masks @ table, masks @ counts),
                                  exhaustive_max)
        if found is None:
            return None
    mask, score = found
    return Split(score=score, left_values=tuple(int(v) for v in present[mask]))
