"""The diff function of the Relief family and the distances built from it.

diff(A, I1, I2) for one attribute (robnik-kononenko-relieff-rrelieff-trees.txt, eqs. 1-2):

* discrete: 0 if the values are equal, 1 otherwise (eq. 1);
* numeric, ``numeric="linear"``: |x - y| / (max - min) (eq. 2, the default);
* numeric, ``numeric="ramp"``: with d = |x - y| / (max - min), 0 if d <= t_equal, 1 if
  d >= t_different, linear in between (CORElearn's default, t_equal = 0.04, t_different = 0.1,
  as fractions of the range; REFERENCE.md).

Missing values (kononenko-relieff-1994.txt, section 3):

* ``missing="D"`` (RELIEF-D, default): one value missing (I1's), diff = 1 - P(value(I2) | class(I1));
  both missing, diff = 1 - sum_v P(v | class(I1)) P(v | class(I2)). With ``both_missing="current"``
  the class of the current instance (the one whose neighbours are sought) is used for both factors,
  as CORElearn does. P(v | c) is the relative frequency among the instances of class c with a
  known value, or with ``laplace=True`` (n_vc + 1) / (n_c + |V|) (CORElearn). For a regression
  target the class conditioning is dropped (P(v)). A numeric attribute's known values are put into
  ``numeric_bins`` equal-width bins (max(2, N // 5) when N < 25) for these probabilities, and no
  ramp is applied to such diffs (CORElearn's rule; the papers define only the discrete case).
* ``missing="B"`` (RELIEF-B): diff = 1 - 1/#values whenever a value is missing (#values of a
  numeric attribute = its number of bins).
* ``missing="C"`` (RELIEF-C): as B inside distances, but in the estimate such contributions are left
  out and the rest renormalised: :meth:`DiffModel.pair_diffs` returns NaN for them and the
  estimators renormalise.

An attribute with no known value does not take part in distances (diff 0) and gets a NaN
estimate. A constant numeric attribute has diff 0 everywhere.

Distances are the sum of the diffs over the attributes (Manhattan, the papers' choice), or with
``distance="euclidean"`` the sum of squared diffs (Kira & Rendell's original; relief-overview.txt),
whose order is that of the Euclidean distance.

The scalar rule :func:`_diff` gives the pair diffs; :meth:`DiffModel.distances` computes the same
numbers summed over the attributes by a vectorised kernel plus matrix products for missing values.
"""
from contextlib import contextmanager
from dataclasses import dataclass, replace
from functools import cached_property

import numba
import numpy as np
from numba import njit, prange

__all__ = ["DiffOptions", "DiffModel", "target_diffs"]

MISSING_VARIANTS = ("B", "C", "D")
_VARIANT_CODE = {"B": 0, "C": 1, "D": 2}
_DISCRETE, _NUMERIC, _UNUSABLE = 0, 1, 2


@dataclass(frozen=True)
class DiffOptions:
    """How diffs and distances are computed; see the module docstring."""
    numeric: str = "linear"
    t_equal: float = 0.04
    t_different: float = 0.1
    missing: str = "D"
    laplace: bool = False
    both_missing: str = "both"
    numeric_bins: int = 5
    distance: str = "manhattan"

    def check(self):
        """Raise ``ValueError`` naming the offending parameter and its allowed values."""
        if self.numeric not in ("linear", "ramp"):
            raise ValueError(f"numeric_diff must be 'linear' or 'ramp', got {self.numeric!r}")
        if self.numeric == "ramp" and not 0 <= self.t_equal < self.t_different <= 1:
            raise ValueError("ramp thresholds need 0 <= t_equal < t_different <= 1, got "
                             f"t_equal={self.t_equal}, t_different={self.t_different}")
        if self.missing not in MISSING_VARIANTS:
            raise ValueError(f"missing must be one of 'B', 'C', 'D', got {self.missing!r}")
        if self.both_missing not in ("both", "current"):
            raise ValueError("both_missing must be 'both' or 'current', "
                             f"got {self.both_missing!r}")
        if int(self.numeric_bins) != self.numeric_bins or self.numeric_bins < 2:
            raise ValueError(f"numeric_bins must be an integer >= 2, got {self.numeric_bins}")
        if self.distance not in ("manhattan", "euclidean"):
            raise ValueError("distance must be 'manhattan' or 'euclidean', "
                             f"got {self.distance!r}")
        return self


#: kernel calls with less work than this (pairs x attributes) run on one thread: starting the
#: threads costs more than such a call (a tree's small nodes make hundreds of them)
SERIAL_WORK = 1_000_000


@contextmanager
def _threads_for(work):
    if work >= SERIAL_WORK or numba.get_num_threads() == 1:
        yield
        return
    previous = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        yield
    finally:
        numba.set_num_threads(previous)


def _bins_for(n, numeric_bins):
    return int(numeric_bins) if n >= 25 else max(2, n // 5)


class DiffModel:
    """Per-attribute diff tables for one :class:`EncodedData`: the numeric scales 1/(max - min),
    and, where values are missing, value codes (numeric values binned) and the conditional
    probabilities P(v | c). The attribute values are read as they are (never copied when none
    is missing), so the model costs little memory beyond the data."""

    def __init__(self, data, options=DiffOptions(), reference=None):
        """``reference``: a model of the training instances whose ranges, bins, usable columns
        and probabilities P(v | c) this one takes over (see :meth:`extended`)."""
        self.options = options.check()
        self.data = data
        self._reference = reference
        X = data.X
        n, a = X.shape
        missing = np.isnan(X)
        if reference is not None:
            usable = reference.kind != _UNUSABLE
        else:
            usable = ~missing.all(axis=0) if n else np.zeros(a, bool)
        self.kind = np.where(data.discrete, _DISCRETE, _NUMERIC).astype(np.int8)
        self.kind[~usable] = _UNUSABLE
        plain = data.discrete | ~usable
        with np.errstate(divide="ignore", invalid="ignore"):
            self.inv_span = np.where(plain, 1.0, np.where(data.span > 0, 1.0 / data.span, 0.0))
        self.shift = np.where(plain, 0.0, data.minimum)
        self.has_missing = missing.any(axis=0) & usable
        self.bins = reference.bins if reference is not None else _bins_for(n, options.numeric_bins)
        self.n_codes = np.where(data.discrete, np.maximum(data.n_values, 1),
                                self.bins).astype(np.intp)
        if data.is_classification:
            self.cls = data.y.astype(np.int32)
            self.n_cls = data.n_classes
        else:
            self.cls = np.zeros(n, dtype=np.int32)
            self.n_cls = 1
        # the distance kernel's values: a missing value filled by the column's minimum (a diff
        # of 0 after shifting), which the matrix-product terms then replace
        if self.has_missing.any():
            self.filled = np.where(missing, self.shift, X)
        else:
            self.filled = np.ascontiguousarray(X)
        self._fast = [(np.flatnonzero(usable & (self.kind == kind)), kind == _DISCRETE)
                      for kind in (_NUMERIC, _DISCRETE)]
        self._missing_cols = np.flatnonzero(self.has_missing)

    @property
    def complete_columns(self):
        """(numeric, discrete) indices of the usable columns; with no missing value anywhere,
        distances are sums over these of the kernel's g (see :func:`_accumulate`)."""
        return self._fast[0][0], self._fast[1][0]

    @cached_property
    def codes(self):
        """(n, a) int32 value codes: discrete values as they are, numeric values in ``bins``
        equal-width bins of the range; -1 = missing."""
        X = self.data.X
        codes = np.empty(X.shape, dtype=np.int32)
        for t in range(X.shape[1]):
            col = X[:, t]
            if self.data.discrete[t]:
                c = col
            else:
                c = np.floor((col - self.shift[t]) * self.inv_span[t] * self.bins)
            c = np.clip(c, 0, self.n_codes[t] - 1)
            codes[:, t] = np.where(np.isnan(col), -1, c)
        return codes

    @cached_property
    def prob(self):
        """P[t, v, c] = P(value v of attribute t | class c), kononenko-relieff-1994.txt §3."""
        if self._reference is not None:
            return self._reference.prob
        codes = self.codes
        a = codes.shape[1]
        vmax = int(self.n_codes.max()) if a else 1
        prob = np.zeros((a, vmax, self.n_cls))
        for t in range(a):
            known = codes[:, t] >= 0
            v_count = self.n_codes[t]
            counts = np.zeros((v_count, self.n_cls))
            np.add.at(counts, (codes[known, t], self.cls[known]), 1.0)
            total = counts.sum(axis=0)
            if self.options.laplace:
                prob[t, :v_count] = (counts + 1.0) / (total + v_count)
            else:
                with np.errstate(invalid="ignore", divide="ignore"):
                    prob[t, :v_count] = np.where(total > 0, counts / total, 1.0 / v_count)
        return prob

    def extended(self, X_query, classes=None):
        """A model of the training instances followed by the rows of ``X_query`` (encoded like
        the training attributes), measured with the training data's ranges, value bins and
        probabilities P(v | c): ``distances(rows)`` from query rows n, n+1, ... to the training
        instances 0..n-1 are distances of new instances. ``classes`` are the class codes the
        queries are taken to have (RELIEF-D conditions a missing value on its instance's class;
        default 0). Query values outside the training range give numeric diffs above 1."""
        X_query = np.asarray(X_query, dtype=float).reshape(-1, self.data.n_attributes)
        classes = np.zeros(len(X_query)) if classes is None else np.asarray(classes, float)
        data = replace(self.data, X=np.vstack([self.data.X, X_query]),
                       y=np.concatenate([self.data.y, np.broadcast_to(classes, len(X_query))]))
        return DiffModel(data, self.options, reference=self)

    @property
    def _inv_w(self):
        o = self.options
        return 1.0 / (o.t_different - o.t_equal) if o.numeric == "ramp" else 1.0

    def _kernel_args(self):
        o = self.options
        if self.has_missing.any():
            codes, prob = self.codes, self.prob
        else:           # the kernel never looks a value up when none is missing
            codes, prob = np.zeros((1, 1), np.int32), np.zeros((1, 1, 1))
        return (self.data.X, self.inv_span, codes, self.cls, self.kind, o.numeric == "ramp",
                o.t_equal, self._inv_w, prob, self.n_codes, _VARIANT_CODE[o.missing],
                o.both_missing == "current")

    def pair_diffs(self, rows, others):
        """diff(A, I_rows[p], I_others[p]) for every pair p and attribute A, shape (P, a).

        ``rows[p]`` is the current instance (its class is used for RELIEF-D's both-missing rule
        with ``both_missing="current"``). Under RELIEF-C the contributions that involve a missing
        value are NaN, for the estimator to leave out; an attribute with no known value is NaN.
        """
        rows = np.ascontiguousarray(rows, dtype=np.intp)
        others = np.ascontiguousarray(others, dtype=np.intp)
        out = np.empty((rows.size, self.data.n_attributes))
        with _threads_for(out.size):
            _pair_diffs(rows, others, *self._kernel_args(), out)
        return out

    def distances(self, rows):
        """Distances (sums of diffs, or of squared diffs) from each of ``rows`` to every instance,
        shape (len(rows), n).

        Computed without a per-element branch: a vectorised kernel sums g(|a - b|) over the
        columns, missing values filled by the column minimum (g = the linear or ramp diff,
        squared for the Euclidean distance), and for the columns with missing values one
        matrix product replaces the cells where one or both values are missing by their
        RELIEF-B/D diffs:
        sum_t (1-k_it) k_jt (h(M_ci)[j,t] - g(x_jt)) + k_it (h(A_i)[c_j,t] - g(x_it)) (1-k_jt)
        + (1-k_it)(1-k_jt) h(BM)[c_i,c_j,t], with k = "is known", M_c[j,t] = A_j[c,t] = the diff
        to an instance of class c whose value is missing and BM the both-missing diff.
        """
        rows = np.ascontiguousarray(rows, dtype=np.intp)
        o = self.options
        if self._missing_cols.size:
            out = self._missing_terms(rows)
        else:
            out = np.zeros((rows.size, self.data.n_instances))
        for cols, discrete in self._fast:
            if cols.size:
                with _threads_for(out.size * cols.size):
                    _fast_distances(rows, self.filled, cols, self.inv_span, discrete,
                                    o.numeric == "ramp", o.t_equal, self._inv_w,
                                    o.distance == "euclidean", out)
        return out

    @cached_property
    def _missing_tables(self):
        """The tables of :meth:`distances`' matrix product (see there). Candidate side, one
        block per class c of the current instance, then one per class c of the candidate:
        k_jt (h(M_c)[j,t] - g(x_jt)) + (1 - k_jt) h(BM)[c, c_j, t], and (1 - k_jt) [c_j = c]."""
        cols = self._missing_cols
        known = (self.codes[:, cols] >= 0).astype(float)
        unknown = 1.0 - known
        scaled = (self.filled[:, cols] - self.shift[cols]) * self.inv_span[cols]
        g = self._transform(scaled, self.kind[cols] == _DISCRETE)
        both = self._h(self._both_missing_table(cols))                # (C, C, a_m)
        classes = range(self.n_cls)
        candidates = np.hstack(
            [known * (self._h(self._other_missing(self.codes[:, cols], c)) - g)
             + unknown * both[c][self.cls] for c in classes]
            + [unknown * (self.cls == c)[:, None] for c in classes])
        return known, unknown, g, candidates

    def _transform(self, values, discrete):
        """g: what the vectorised kernel adds for a (shifted, scaled) value against a fill."""
        o = self.options
        d = np.where(discrete, values != 0, values).astype(float)
        if o.numeric == "ramp":
            d = np.where(discrete, d, np.clip((d - o.t_equal) * self._inv_w, 0.0, 1.0))
        return self._h(d)

    def _h(self, d):
        return d * d if self.options.distance == "euclidean" else d

    def _other_missing(self, codes, c):
        """diff(A_t, I, J) for instances I with ``codes``, J of class c with A_t missing."""
        cols = self._missing_cols
        if self.options.missing != "D":
            return np.broadcast_to(1.0 - 1.0 / self.n_codes[cols], codes.shape)
        safe = np.maximum(codes, 0)
        return 1.0 - self.prob[cols[None, :], safe, c]

    def _both_missing_table(self, cols):
        """(C, C, a_missing): the both-missing diff for the current class and the other's."""
        if self.options.missing != "D":
            return np.broadcast_to(1.0 - 1.0 / self.n_codes[cols], (self.n_cls, self.n_cls,
                                                                     cols.size))
        p = self.prob[cols]                                   # (a, V, C)
        if self.options.both_missing == "current":
            same = 1.0 - np.einsum("tvc,tvc->ct", p, p)
            return np.broadcast_to(same[:, None, :], (p.shape[2],) + same.shape)
        return 1.0 - np.einsum("tvc,tvd->cdt", p, p)

    def _missing_terms(self, rows):
        """The three missing-value terms of :meth:`distances` as one matrix product (b, n).
        Current side, per class c: (1 - k_it) [c_i = c] (its value missing), then
        k_it (h(A_i)[c,t] - g(x_it)) (its value known, the candidate's of class c missing)."""
        known, unknown, g, candidates = self._missing_tables
        cls_r = self.cls[rows]
        codes_r = self.codes[rows][:, self._missing_cols]
        known_r, g_r = known[rows], g[rows]
        classes = range(self.n_cls)
        current = np.hstack(
            [unknown[rows] * (cls_r == c)[:, None] for c in classes]
            + [known_r * (self._h(self._other_missing(codes_r, c)) - g_r) for c in classes])
        return current @ candidates.T


@njit(cache=True, inline="always")
def _diff(t, i, j, X, inv_span, codes, cls, kind, ramp, t_equal, inv_w, prob, n_codes, variant,
          both_current):
    """diff(A_t, I_i, I_j) for the estimate: RELIEF-C's excluded contributions are NaN."""
    k = kind[t]
    if k == _UNUSABLE:
        return np.nan
    a = X[i, t]
    b = X[j, t]
    if a == a and b == b:
        if k == _DISCRETE:
            return 0.0 if a == b else 1.0
        d = abs(a - b) * inv_span[t]
        if ramp:
            d = min(max((d - t_equal) * inv_w, 0.0), 1.0)
        return d
    if variant == 1:
        return np.nan
    if variant == 0:
        return 1.0 - 1.0 / n_codes[t]
    ci = cls[i]
    if a != a and b != b:
        cj = ci if both_current else cls[j]
        s = 0.0
        for v in range(n_codes[t]):
            s += prob[t, v, ci] * prob[t, v, cj]
        return 1.0 - s
    if a != a:
        return 1.0 - prob[t, codes[j, t], ci]
    return 1.0 - prob[t, codes[i, t], cls[j]]


@njit(cache=True, parallel=True)
def _pair_diffs(rows, others, X, inv_span, codes, cls, kind, ramp, t_equal, inv_w, prob, n_codes,
                variant, both_current, out):
    n_attr = X.shape[1]
    for p in prange(rows.size):
        i = rows[p]
        j = others[p]
        for t in range(n_attr):
            out[p, t] = _diff(t, i, j, X, inv_span, codes, cls, kind, ramp, t_equal, inv_w, prob,
                              n_codes, variant, both_current)


#: bytes of one candidate tile (transposed) in the distance kernel: it stays in cache
_TILE_BYTES = 128 * 1024


@njit(cache=True)
def tile_size(n_cols):
    """Candidates per tile for ``n_cols`` columns (a tile of them stays in cache)."""
    return max(8, min(512, _TILE_BYTES // (8 * max(n_cols, 1))))


@njit(cache=True, inline="always", fastmath=True)
def _accumulate(acc, col, x, width, discrete, ramp, t_equal, inv_w, euclid):
    """acc[j] += g(col[j], x) for the first ``width`` candidates of a tile (values scaled):
    [col != x] for a discrete column, else |col - x| (ramped), squared for Euclidean."""
    if discrete:
        for j in range(width):
            acc[j] += 1.0 if col[j] != x else 0.0
    elif ramp:
        for j in range(width):
            d = min(max((abs(col[j] - x) - t_equal) * inv_w, 0.0), 1.0)
            acc[j] += d * d if euclid else d
    elif euclid:
        for j in range(width):
            d = col[j] - x
            acc[j] += d * d
    else:
        for j in range(width):
            acc[j] += abs(col[j] - x)


@njit(cache=True, inline="always")
def _load_tile(buf, first, values, cols, inv_span, lo, width):
    """Rows ``first``... of ``buf``: the scaled values (x / span; a discrete column's scale is
    1) of ``cols`` for the candidates lo..lo+width-1, transposed so that a column's values lie
    together for :func:`_accumulate`."""
    for u in range(cols.size):
        t = cols[u]
        s = inv_span[t]
        for j in range(width):
            buf[first + u, j] = values[lo + j, t] * s


@njit(cache=True, inline="always", fastmath=True)
def _add_diffs(acc, buf, first, values, r, cols, inv_span, width, discrete, ramp, t_equal, inv_w,
               euclid):
    """acc[j] += the distance terms of ``cols`` between instance r and the tile's candidates
    (loaded by :func:`_load_tile` from row ``first`` of ``buf``)."""
    for u in range(cols.size):
        t = cols[u]
        _accumulate(acc, buf[first + u], values[r, t] * inv_span[t], width, discrete, ramp,
                    t_equal, inv_w, euclid)


@njit(cache=True, parallel=True, fastmath=True)
def _fast_distances(rows, values, cols, inv_span, discrete, ramp, t_equal, inv_w, euclid, out):
    """out[q, j] += sum over ``cols`` of g(value of rows[q], value of j), values without NaN:
    g = [a != b] for discrete columns, else |a - b| / span (ramped), squared for the Euclidean
    distance. Tiled over the instances: each tile of candidates is transposed once into a small
    buffer that stays in cache while every query passes, the inner loop running over the
    tile's candidates."""
    n = values.shape[0]
    n_cols = cols.size
    tile = tile_size(n_cols)
    n_tiles = (n + tile - 1) // tile
    for ti in prange(n_tiles):
        lo = ti * tile
        width = min(lo + tile, n) - lo
        buf = np.empty((n_cols, width))
        _load_tile(buf, 0, values, cols, inv_span, lo, width)
        acc = np.empty(width)
        for q in range(rows.size):
            acc[:] = 0.0
            _add_diffs(acc, buf, 0, values, rows[q], cols, inv_span, width, discrete, ramp,
                       t_equal, inv_w, euclid)
            for j in range(width):
                out[q, lo + j] += acc[j]


def target_diffs(data, rows, others, options=DiffOptions()):
    """diff(tau, I_rows[p], I_others[p]) of a regression target (RReliefF, Fig. 4): |y_i - y_j|
    divided by the target's range, with the same ramp as numeric attributes when
    ``options.numeric == "ramp"`` (REFERENCE.md)."""
    span = data.y_span if data.y_span > 0 else 1.0
    d = np.abs(data.y[rows] - data.y[others]) / span
    if options.numeric == "ramp":
        d = np.clip((d - options.t_equal) / (options.t_different - options.t_equal), 0.0, 1.0)
    return d
