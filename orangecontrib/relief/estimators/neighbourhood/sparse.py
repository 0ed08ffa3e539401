"""The Relief family's distances and diffs read from a sparse (CSR) matrix, never densified.

An implicit zero is the value 0: diff(A, x, 0) is the diff of x and 0 (for the linear diff
``|x| / (max - min)``, the range counting the zeros), and the distance of two instances sums the
diffs over the union of their non-zero columns. Every diff of :mod:`.diffs` (linear or ramp,
discrete, Manhattan terms or squared) is 0 for two zeros, so with
``S_i = sum_A g(A, x_iA, 0)`` (g the distance term of an attribute)

    d(i, j) = S_i + S_j - sum_{A non-zero in i and j} (g(A, x_iA, 0) + g(A, 0, x_jA) - g(A, x_iA, x_jA)):

the distances from instance i to all N instances cost O(N) plus, for each non-zero of i, the
non-zeros of its column (a CSC copy of the data), instead of O(N A).

The nearest neighbours (:meth:`SparseDiffModel.search`) are those of the dense engine
(:func:`.neighbours.nearest_neighbours`: per group, sorted by distance, ties by index): the
distances by the identity above differ from the sums of the diffs in attribute order by
rounding only, so they select the candidates that can be among the k nearest (each distance
within a bound of that rounding), and those few candidates' distances are summed over the union
of their non-zero columns in attribute order, the dense engine's arithmetic; ties, distances 0
(``skip_zero_distance``) and the distances kept in the context are exactly the dense engine's.
The estimates sum the weighted diffs of each (instance, neighbour) pair over the union of their
non-zeros (:meth:`SparseDiffModel.weighted_pair_sums`), so their cost is O(non-zeros) per pair
too. Memory: the data, its CSC copy, per search thread one distance per instance and per thread
one sum per attribute; no N x N or N x A array.

Supported: numeric (``numeric_diff`` "linear" or "ramp") and discrete attributes (an implicit
zero is the value of code 0), both distances, ``skip_zero_distance``, instance weights, every
neighbour weighting. Not supported (``ValueError``): missing values (a sparse matrix holding NaN
is refused by :func:`.encoding.encode`) and ``preset="corelearn"`` (CORElearn's neighbour order
is that of its own dense search).
"""
import numba
import numpy as np
import scipy.sparse as sp
from numba import njit, prange

from ..base import BLOCK_BYTES, parallel_launch
from .diffs import DiffModel, DiffOptions, class_codes, _bins_for, _g
from .kinds import DISCRETE, NUMERIC
from ..encoding import unit_scales
from .heaps import _before, _group, _heap_sort, _offer

__all__ = ["SparseDiffModel", "diff_model"]

#: distance work (candidates plus non-zero products) per block of rows of the search: a block
#: takes well under a second, between blocks the callback is called
SEARCH_WORK = 10_000_000
#: relative rounding bound of a sum, per term: a distance by the identity is within
#: ROUNDING * (terms) * (S_i + S_j + shared columns) of the sum in attribute order
ROUNDING = 1e-15
#: chunks of the pairs whose weighted diff sums :meth:`SparseDiffModel.weighted_pair_sums` adds
#: in parallel (fewer where their sums would take more than ``BLOCK_BYTES``): a function of the
#: data, never of the threads, so the sums are the same whatever the number of threads
SUM_CHUNKS = 16


def diff_model(data, options=DiffOptions()):
    """The diff model of ``data``: :class:`SparseDiffModel` for sparse data, else
    :class:`.DiffModel`."""
    return SparseDiffModel(data, options) if data.is_sparse else DiffModel(data, options)


class SparseDiffModel(DiffModel):
    """:class:`.DiffModel` (the same ranges, scales and diff definitions) of an
    :class:`.EncodedData` whose ``X`` is a CSR matrix; see the module docstring."""
    sparse = True

    def __init__(self, data, options=DiffOptions()):
        self.options = options.check()
        if self.options.corelearn:
            raise ValueError("preset='corelearn' is not available for sparse data (CORElearn's "
                             "neighbour order is that of its dense search): use the 'papers' "
                             "preset (numeric_diff='ramp' gives CORElearn's diff), or convert "
                             "the data to a dense array")
        if data.attribute_weights is not None:
            raise ValueError("attribute weights in the distance are not available for sparse "
                             "data: convert the data to a dense array")
        self.data = data
        self._reference = None
        self.distance_weights = None
        X = data.X
        n, a = X.shape
        self.kind = np.where(data.discrete, DISCRETE, NUMERIC).astype(np.int8)
        numeric = ~data.discrete
        bounds = np.vstack([X.min(axis=0).toarray(), X.max(axis=0).toarray()]) if n \
            else np.full((2, a), np.nan)
        self.scale, self.shift, self.inv_span = unit_scales(bounds, numeric, data.minimum,
                                                            data.span)
        self.has_missing = np.zeros(a, bool)
        self.bins = _bins_for(int(round(data.total_weight)), options.numeric_bins)
        self.n_codes = np.where(data.discrete, np.maximum(data.n_values, 1),
                                self.bins).astype(np.intp)
        self.cls, self.n_cls = class_codes(data)
        values = X if np.all(self.scale == 1) else sp.csr_matrix(X @ sp.diags(self.scale))
        values.sort_indices()
        self.values = values

    @property
    def pair_bytes(self):
        """Bytes of one pair's diffs as a sparse row (the union of two rows' non-zeros): the
        estimate's blocks of pairs are sized by it, so a block's work is bounded."""
        return 16 * (2 * self.values.nnz // max(self.data.n_instances, 1) + 1)

    def pair_diffs(self, rows, others):
        """diff(A, I_rows[p], I_others[p]) for every pair p and attribute A, shape (P, a), by the
        rule of :func:`.diffs._diff` (0 where both values are zero)."""
        rows = np.ascontiguousarray(rows, dtype=np.intp).ravel()
        others = np.ascontiguousarray(others, dtype=np.intp).ravel()
        out = np.zeros((rows.size, self.data.n_attributes))
        X = self.values
        with parallel_launch():
            _pair_diff_rows(rows, others, X.indptr, X.indices, X.data, self.kind,
                            *self._ramp_args, out)
        return out

    def weighted_pair_sums(self, coefficients, rows, others):
        """``coefficients`` (R, P) times the pairs' diffs (P, a), i.e. out[r, A] = sum_p
        coefficients[r, p] diff(A, I_rows[p], I_others[p]) (pairs with ``others[p]`` = -1 add
        nothing), summed over each pair's union of non-zero columns without forming the diffs
        (the diffs as :meth:`pair_diffs`)."""
        X = self.values
        coefficients = np.ascontiguousarray(coefficients, dtype=np.float64)
        row_bytes = 8 * max(coefficients.shape[0] * self.data.n_attributes, 1)
        n_chunks = max(1, min(SUM_CHUNKS, len(rows), BLOCK_BYTES // row_bytes))
        out = np.zeros((n_chunks,) + coefficients.shape[:1] + (self.data.n_attributes,))
        with parallel_launch():
            _weighted_union_sums(coefficients, np.ascontiguousarray(rows, dtype=np.intp),
                                 np.ascontiguousarray(others, dtype=np.intp), X.indptr,
                                 X.indices, X.data, self.kind, *self._ramp_args, out)
        return out.sum(axis=0)

    def _distance_terms(self):
        """What the search reads: the CSR data divided by the spans (the dense kernel's scaled
        values), each non-zero's term g(x, 0) and the rows' sums S_i of them, and the same
        scaled values and terms in a CSC copy."""
        o = self.options
        X = self.values
        flags = np.array([o.numeric == "ramp", o.t_equal, self._inv_w,
                          o.distance == "euclidean"], dtype=float)
        discrete = np.ascontiguousarray(self.data.discrete, dtype=np.bool_)
        scaled = X.data * self.inv_span[X.indices]
        zero_terms = np.empty_like(scaled)
        _terms_to_zero(scaled, X.indices, discrete, flags, zero_terms)
        sums = np.empty(X.shape[0])
        _row_sums(X.indptr, zero_terms, sums)
        by_column = X.tocsc()                                # the same values, by column
        by_column.sort_indices()
        columns = np.repeat(np.arange(X.shape[1]), np.diff(by_column.indptr))
        col_scaled = by_column.data * self.inv_span[columns]
        col_zero_terms = np.empty_like(col_scaled)
        _terms_to_zero(col_scaled, columns, discrete, flags, col_zero_terms)
        return (X.indptr, X.indices, scaled, zero_terms, by_column.indptr, by_column.indices,
                col_scaled, col_zero_terms, sums,
                discrete, flags)

    def search(self, instances, mode, skip_zero, neighbours, distances, callback=None):
        """Fill ``neighbours`` and ``distances`` (m, G, K; prefilled with -1 and inf) with the
        K nearest instances of each group (mode as :func:`.neighbours._group`) of each of
        ``instances``, as the dense search does (see the module docstring), in blocks of rows
        with ``callback(fraction)`` after each."""
        X = self.values
        n = X.shape[0]
        terms = self._distance_terms()
        col_nnz = np.diff(terms[4])
        work = n + col_nnz[X.indices].sum() / max(n, 1)          # per row, on average
        block = int(min(2048, max(1, SEARCH_WORK // max(work, 1))))
        nnz = np.diff(X.indptr)
        max_nnz = int(nnz.max(initial=0))
        for start in range(0, instances.size, block):
            at = slice(start, min(start + block, instances.size))
            with parallel_launch():
                _search_rows(np.ascontiguousarray(instances[at]), *terms, self.cls, max_nnz,
                             mode, skip_zero, numba.get_num_threads(), neighbours[at],
                             distances[at])
            if callback is not None:
                callback(at.stop / instances.size)

    def distances(self, rows):
        raise ValueError("distance matrices are not computed for sparse data")

    def extended(self, X_query, classes=None):
        raise ValueError("distances to new instances are not computed for sparse data")


@njit(cache=True, inline="always")
def _union_step(indices, a, a_end, b, b_end):
    """One step of the merge of two rows' sorted non-zero columns, at positions a (of a_end)
    and b (of b_end): the next column of the union and the positions of its values in the two
    rows (-1 where the value is zero). The caller moves each row past a position returned."""
    if b >= b_end or (a < a_end and indices[a] < indices[b]):
        return indices[a], a, -1
    if a >= a_end or indices[b] < indices[a]:
        return indices[b], -1, b
    return indices[a], a, b


@njit(cache=True, inline="always")
def _value_diff(x, y, discrete, lo, hi, slope):
    """diff of two known values of an attribute: [x != y] for a discrete one, else from
    ``d = |y - x|`` as :func:`.diffs._diff` (0 if d <= lo, 1 if d >= hi, else (d - lo) *
    slope)."""
    if discrete:
        return 0.0 if x == y else 1.0
    d = abs(y - x)
    if d >= hi:
        return 1.0
    if d <= lo:
        return 0.0
    return (d - lo) * slope


@njit(cache=True, inline="always")
def _union_diffs(i, j, indptr, indices, values, kind, lo, hi, slope, out, coefficients, p):
    """The diffs of rows i and j over the union of their non-zero columns: out[t] = diff
    (``coefficients`` None), or out[r, t] += coefficients[r, p] * diff for every r."""
    a, a_end = indptr[i], indptr[i + 1]
    b, b_end = indptr[j], indptr[j + 1]
    while a < a_end or b < b_end:
        t, pa, pb = _union_step(indices, a, a_end, b, b_end)
        x = values[pa] if pa >= 0 else 0.0
        y = values[pb] if pb >= 0 else 0.0
        a = pa + 1 if pa >= 0 else a
        b = pb + 1 if pb >= 0 else b
        d = _value_diff(x, y, kind[t] == DISCRETE, lo[t], hi[t], slope[t])
        if coefficients is None:
            out[t] = d
        else:
            for r in range(out.shape[0]):
                out[r, t] += coefficients[r, p] * d


@njit(cache=True, nogil=True, parallel=True)
def _pair_diff_rows(rows, others, indptr, indices, values, kind, lo, hi, slope, out):
    """out[p] = the diffs of rows[p] and others[p] (:func:`_union_diffs`; out prefilled with
    zeros); nothing where others[p] is -1."""
    for p in prange(rows.size):
        if others[p] >= 0:
            _union_diffs(rows[p], others[p], indptr, indices, values, kind, lo, hi, slope,
                         out[p], None, p)


@njit(cache=True, nogil=True, parallel=True)
def _weighted_union_sums(coefficients, rows, others, indptr, indices, values, kind, lo, hi,
                         slope, out):
    """out[chunk, r, t] += coefficients[r, p] * diff(A_t, I_rows[p], I_others[p]) over the
    union of the two rows' non-zero columns, for the pairs p of each chunk (``SUM_CHUNKS``,
    whatever the number of threads); the caller sums the chunks."""
    n_chunks, R = out.shape[0], out.shape[1]
    P = rows.size
    for chunk in prange(n_chunks):
        for p in range(chunk * P // n_chunks, (chunk + 1) * P // n_chunks):
            used = False
            for r in range(R):
                used |= coefficients[r, p] != 0.0
            if others[p] >= 0 and used:
                _union_diffs(rows[p], others[p], indptr, indices, values, kind, lo, hi, slope,
                             out[chunk], coefficients, p)


@njit(cache=True, inline="always")
def _term(x, y, discrete, flags):
    """The distance term of two scaled values (:func:`.diffs._g` with the search's options)."""
    return _g(x, y, discrete, flags[0] != 0.0, flags[1], flags[2], flags[3] != 0.0)


@njit(cache=True, nogil=True)
def _terms_to_zero(scaled, columns, discrete, flags, out):
    """out[p] = the distance term of stored value p and 0."""
    for p in range(scaled.size):
        out[p] = _term(scaled[p], 0.0, discrete[columns[p]], flags)


@njit(cache=True, nogil=True)
def _row_sums(indptr, zero_terms, out):
    """out[i] = S_i, the sum of row i's terms against 0 in column order (its distance to an
    all-zero instance, summed as the dense engine sums)."""
    for i in range(out.size):
        s = 0.0
        for p in range(indptr[i], indptr[i + 1]):
            s += zero_terms[p]
        out[i] = s


@njit(cache=True, nogil=True)
def _pair_distance(i, j, indptr, indices, scaled, zero_terms, discrete, flags):
    """The distance of rows i and j: their terms summed over the union of their non-zero
    columns in column order (the dense engine's sum: the columns zero in both add 0)."""
    a, a_end = indptr[i], indptr[i + 1]
    b, b_end = indptr[j], indptr[j + 1]
    s = 0.0
    while a < a_end or b < b_end:
        t, pa, pb = _union_step(indices, a, a_end, b, b_end)
        if pb < 0:
            s += zero_terms[pa]
            a = pa + 1
        elif pa < 0:
            s += zero_terms[pb]
            b = pb + 1
        else:
            s += _term(scaled[pb], scaled[pa], discrete[t], flags)
            a, b = pa + 1, pb + 1
    return s


@njit(cache=True, nogil=True, parallel=True)
def _search_rows(rows, indptr, indices, scaled, zero_terms, col_ptr, col_rows, col_scaled,
                 col_zero_terms, sums, discrete, flags, cls, max_nnz, mode, skip_zero,
                 n_chunks, out_idx, out_dist):
    """For each of ``rows`` the K nearest instances of each group into out_idx/out_dist (b, G,
    K; prefilled with -1/inf), sorted by (distance, index). Per row: the distances to all
    instances by the identity of the module docstring, each within ``err`` of the distance
    summed in column order (:func:`_pair_distance`); the K-th smallest upper bound of a group
    bounds its K nearest, whose candidates (lower bound below it) are offered to the group's
    heap with their summed distances (pass 2 visits only the candidates kept in pass 1). With
    ``skip_zero`` a candidate that may be at distance 0 is decided by its summed distance.
    Parallel over ``n_chunks`` chunks of the rows."""
    n = sums.size
    b = rows.size
    n_groups, K = out_idx.shape[1], out_idx.shape[2]
    n_chunks = min(b, n_chunks)
    for chunk in prange(n_chunks):
        dist = np.empty(n)
        cand = np.empty(n, np.int64)
        bound_d = np.empty((n_groups, K))
        bound_i = np.empty((n_groups, K), np.int64)
        size = np.empty(n_groups, np.int64)
        limit = np.empty(n_groups)
        for q in range(chunk * b // n_chunks, (chunk + 1) * b // n_chunks):
            r = rows[q]
            s_r = sums[r]
            for j in range(n):
                dist[j] = s_r + sums[j]
            for p in range(indptr[r], indptr[r + 1]):
                t = indices[p]
                x = scaled[p]
                gx = zero_terms[p]
                for c in range(col_ptr[t], col_ptr[t + 1]):
                    dist[col_rows[c]] -= gx + col_zero_terms[c] - _term(
                        col_scaled[c], x, discrete[t], flags)
            n_r = indptr[r + 1] - indptr[r]
            gamma = ROUNDING * (n_r + max_nnz + 4)
            # pass 1: the K-th smallest upper bound of each group, and the candidates whose
            # lower bound is below the group's bound when they are met (it only decreases)
            size[:] = 0
            n_cand = 0
            for j in range(n):
                if j == r:
                    continue
                g = _group(mode, cls[j], cls[r])
                err = gamma * (s_r + sums[j] + n_r)
                low = dist[j] - err
                if low <= 0.0 and skip_zero:
                    low = _pair_distance(r, j, indptr, indices, scaled, zero_terms, discrete,
                                         flags)
                    if low == 0.0:
                        continue
                    high = low
                else:
                    high = dist[j] + err
                if size[g] < K or low <= bound_d[g, 0]:
                    cand[n_cand] = j
                    n_cand += 1
                if size[g] < K or _before(high, j, bound_d[g, 0], bound_i[g, 0]):
                    size[g] = _offer(bound_d[g], bound_i[g], size[g], K, high, j)
            for g in range(n_groups):
                limit[g] = bound_d[g, 0] if size[g] == K else np.inf
            # pass 2: the candidates' distances summed in column order, into the heaps
            size[:] = 0
            for u in range(n_cand):
                j = cand[u]
                g = _group(mode, cls[j], cls[r])
                if dist[j] - gamma * (s_r + sums[j] + n_r) > limit[g]:
                    continue
                d = _pair_distance(r, j, indptr, indices, scaled, zero_terms, discrete, flags)
                if skip_zero and d == 0.0:
                    continue
                if size[g] < K or _before(d, j, out_dist[q, g, 0], out_idx[q, g, 0]):
                    size[g] = _offer(out_dist[q, g], out_idx[q, g], size[g], K, d, j)
            for g in range(n_groups):
                _heap_sort(out_dist[q, g], out_idx[q, g], size[g])
