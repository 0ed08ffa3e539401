"""scikit-rebate's distances with attribute weights (``preset="skrebate"`` in Iterative Relief's
later rounds), pair by pair in scikit-rebate's order of operations, so that its ties are ours.

With weights ``w`` over attributes of one kind (scikit-rebate has none over both kinds), the
distance of instances i and j is (Draper, Kaito & Bins 2003, with scikit-rebate 0.8.4's
normalisation):

* without missing values, discrete attributes: sum_t w_t [x_it != x_jt] / sum_t w_t (scipy's
  weighted Hamming distance), the sums added from the first attribute to the last;
* without missing values, numeric ones: sum_t w_t abs(z_it - z_jt), z = (x - min) / (max - min),
  from the first attribute to the last (scipy's weighted city-block distance);
* with missing values anywhere in the table: over the K attributes known in both instances,
  (diff . w) / sum(w) / K, diff the mismatch (discrete) or abs(x_it - x_jt) / (max - min)
  (numeric); the dot product is BLAS's and the sum numpy's pairwise one, as scikit-rebate
  computes them with numpy pair by pair.

:func:`weighted_distances` is the compiled kernel, :func:`weighted_distances_numpy` its numpy
equivalent (the same operations in the same order, to the last bit).
"""
import numpy as np
from numba import njit, prange

from ..compilation import kernel, small_data_only
from .neighbourhood.vectorised import MAX_WORK, SMALL_WORK

__all__ = ["weighted_distances", "weighted_distances_numpy"]

#: the most pairs the numpy equivalent takes with missing values (one pair at a time: about a
#: second)
MAX_PAIRS = 50_000


def weighted_distances_numpy(X, minimum, span, w, discrete, missing, out):
    """:func:`weighted_distances` in numpy: column by column without missing values, pair by
    pair with them; ``NotImplemented`` on data too large for it."""
    n, a = X.shape
    if missing:
        if n * (n - 1) // 2 > (MAX_PAIRS // 10 if small_data_only() else MAX_PAIRS):
            return NotImplemented
        _pairs_with_missing(X, span, w, discrete, out)
        return None
    if n * n * max(a, 1) > (SMALL_WORK if small_data_only() else MAX_WORK):
        return NotImplemented
    Z = X if discrete else (X - minimum) / span
    D = np.zeros((n, n))
    for t, weight in enumerate(w):
        z = Z[:, t]
        if discrete:
            np.add(D, weight, out=D, where=z[:, None] != z[None, :])
        else:
            D += np.abs(z[None, :] - z[:, None]) * weight
    with np.errstate(invalid="ignore", divide="ignore"):
        out[...] = D / np.cumsum(w)[-1] if discrete else D
    return None


def _pairs_with_missing(X, span, w, discrete, out):
    """The distances with missing values, one pair at a time as scikit-rebate computes them."""
    n, a = X.shape
    gone = [np.flatnonzero(np.isnan(row)) for row in X]
    out[...] = 0.0
    with np.errstate(invalid="ignore", divide="ignore"):
        for i in range(n):
            for j in range(i):
                left = np.union1d(gone[i], gone[j])
                x1, x2, wk = np.delete(X[i], left), np.delete(X[j], left), np.delete(w, left)
                diff = (np.not_equal(x1, x2).astype(float) if discrete
                        else np.abs(x1 - x2) / np.delete(span, left))
                dist = 0.0
                if wk.size:
                    dist += np.dot(diff, wk) / np.sum(wk)
                out[i, j] = out[j, i] = dist / np.float64(a - left.size)


@njit(cache=True, nogil=True)
def _block_sum(v, lo, n):
    """sum(v[lo:lo + n]), n <= 128, added as numpy adds a block: one by one below 8 terms,
    else in eight partial sums."""
    if n < 8:
        res = 0.0
        for i in range(n):
            res += v[lo + i]
        return res
    r0, r1, r2, r3 = v[lo], v[lo + 1], v[lo + 2], v[lo + 3]
    r4, r5, r6, r7 = v[lo + 4], v[lo + 5], v[lo + 6], v[lo + 7]
    i = 8
    while i < n - n % 8:
        r0 += v[lo + i]
        r1 += v[lo + i + 1]
        r2 += v[lo + i + 2]
        r3 += v[lo + i + 3]
        r4 += v[lo + i + 4]
        r5 += v[lo + i + 5]
        r6 += v[lo + i + 6]
        r7 += v[lo + i + 7]
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        res += v[lo + i]
        i += 1
    return res


@njit(cache=True, nogil=True)
def _pairwise_sum(v, n):
    """sum(v[:n]) added as numpy adds a contiguous array: blocks of at most 128 terms, halves
    (a multiple of 8 first) added pairwise. The halving with an explicit stack (numba's disk
    cache does not hold recursive functions)."""
    if n <= 128:
        return _block_sum(v, 0, n)
    start = np.zeros(64, np.int64)
    size = np.zeros(64, np.int64)
    stage = np.zeros(64, np.int64)         # 1: the first half is running, 2: the second
    halves = np.zeros((64, 2))
    top, result = 0, 0.0
    size[0] = n
    while top >= 0:
        m = size[top]
        if m <= 128 or stage[top] == 2:
            r = _block_sum(v, start[top], m) if m <= 128 else halves[top, 0] + halves[top, 1]
            top -= 1
            if top < 0:
                result = r
            else:
                halves[top, stage[top] - 1] = r
            continue
        half = m // 2
        half -= half % 8
        stage[top] += 1
        start[top + 1] = start[top] if stage[top] == 1 else start[top] + half
        size[top + 1] = half if stage[top] == 1 else m - half
        stage[top + 1] = 0
        top += 1
    return result


@njit(cache=True, nogil=True, error_model="numpy")
def _known_distance(X, i, j, span, w, discrete, diff, wk):
    """The distance of instances i and j over the attributes known in both (module
    docstring), ``diff`` and ``wk`` room for the diffs and weights of those attributes."""
    k = 0
    for t in range(X.shape[1]):
        if not (np.isnan(X[i, t]) or np.isnan(X[j, t])):
            diff[k] = (1.0 if X[i, t] != X[j, t] else 0.0) if discrete \
                else abs(X[i, t] - X[j, t]) / span[t]
            wk[k] = w[t]
            k += 1
    dist = 0.0
    if k:
        dist += np.dot(diff[:k], wk[:k]) / _pairwise_sum(wk, k)
    return dist / np.float64(k)


#: rows whose distances to the rows before them one pass over the attributes adds (each
#: column read once for all of them)
ROWS = 16


@kernel(weighted_distances_numpy)
@njit(cache=True, parallel=True, nogil=True, error_model="numpy")
def weighted_distances(X, minimum, span, w, discrete, missing, out):
    """out[i, j] = the weighted distance of instances i and j (module docstring) over the
    columns of ``X`` (all ``discrete`` or all numeric, with ``minimum`` and ``span``), attribute
    weights ``w``, ``missing``: whether the table has missing values (every pair then takes the
    formula with missing values). Parallel over blocks of :data:`ROWS` rows; each pair's sum
    is added from the first attribute to the last, many pairs at once."""
    n, a = X.shape
    total = 0.0
    for t in range(a):
        total += w[t]
    # the values (numeric: scaled) column by column, for the sums without missing values
    columns = np.empty((0 if missing else a, n))
    for t in prange(columns.shape[0]):
        for i in range(n):
            columns[t, i] = X[i, t] if discrete else (X[i, t] - minimum[t]) / span[t]
    for block in prange((n + ROWS - 1) // ROWS):
        first = block * ROWS
        rows = min(ROWS, n - first)
        sums = np.zeros((rows, first + rows))
        if missing:
            diff = np.empty(a)
            wk = np.empty(a)
            for b in range(rows):
                for j in range(first + b):
                    sums[b, j] = _known_distance(X, first + b, j, span, w, discrete, diff, wk)
        else:
            for t in range(a):
                c = columns[t]
                wt = w[t]
                for b in range(rows):
                    own = c[first + b]
                    row = sums[b]
                    if discrete:            # (adding 0.0 changes no sum: no branch)
                        for j in range(first + b):
                            row[j] += wt if c[j] != own else 0.0
                    else:
                        for j in range(first + b):
                            row[j] += abs(c[j] - own) * wt
        for b in range(rows):
            i = first + b
            for j in range(i):
                d = sums[b, j] / total if discrete and not missing else sums[b, j]
                out[i, j] = d
                out[j, i] = d
            out[i, i] = 0.0 / total if discrete and not missing else 0.0
