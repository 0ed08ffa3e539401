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

One scalar rule, :func:`_diff`, serves the pair kernel and the distance kernel; columns without
missing values take a vectorised fast path that computes the same numbers.
"""
from dataclasses import dataclass

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


def _bins_for(n, numeric_bins):
    return int(numeric_bins) if n >= 25 else max(2, n // 5)


class DiffModel:
    """Per-attribute diff tables for one :class:`EncodedData`: scaled values, value codes
    (numeric values binned) and the conditional probabilities P(v | c) used for missing values."""

    def __init__(self, data, options=DiffOptions()):
        self.options = options.check()
        self.data = data
        X = data.X
        n, a = X.shape
        missing = np.isnan(X)
        known_any = ~missing.all(axis=0) if n else np.zeros(a, bool)
        self.kind = np.where(data.discrete, _DISCRETE, _NUMERIC).astype(np.int8)
        self.kind[~known_any] = _UNUSABLE
        with np.errstate(divide="ignore", invalid="ignore"):
            inv_span = np.where(data.span > 0, 1.0 / data.span, 0.0)
        inv_span = np.where(data.discrete | ~known_any, 1.0, inv_span)
        shift = np.where(data.discrete | ~known_any, 0.0, data.minimum)
        # numeric columns scaled to [0, 1] so that diff = |a - b|; discrete keep their codes
        self.scaled = np.ascontiguousarray((X - shift) * inv_span)
        bins = _bins_for(n, options.numeric_bins)
        self.n_codes = np.where(data.discrete, np.maximum(data.n_values, 1), bins).astype(np.intp)
        codes = np.where(data.discrete, X, np.floor(self.scaled * bins))
        codes = np.minimum(codes, self.n_codes - 1)
        self.codes = np.where(missing, -1, codes).astype(np.int32)
        if data.is_classification:
            self.cls = data.y.astype(np.int32)
            n_cls = data.n_classes
        else:
            self.cls = np.zeros(n, dtype=np.int32)
            n_cls = 1
        self.prob = self._probabilities(n_cls)
        self.has_missing = missing.any(axis=0) & known_any

    def _probabilities(self, n_cls):
        """P[t, v, c] = P(value v of attribute t | class c), eq. in kononenko-relieff-1994.txt §3."""
        a = self.codes.shape[1]
        vmax = int(self.n_codes.max()) if a else 1
        prob = np.zeros((a, vmax, n_cls))
        for t in range(a):
            known = self.codes[:, t] >= 0
            v_count = self.n_codes[t]
            counts = np.zeros((v_count, n_cls))
            np.add.at(counts, (self.codes[known, t], self.cls[known]), 1.0)
            total = counts.sum(axis=0)
            if self.options.laplace:
                prob[t, :v_count] = (counts + 1.0) / (total + v_count)
            else:
                with np.errstate(invalid="ignore", divide="ignore"):
                    prob[t, :v_count] = np.where(total > 0, counts / total, 1.0 / v_count)
        return prob

    def _kernel_args(self):
        o = self.options
        ramp = o.numeric == "ramp"
        inv_w = 1.0 / (o.t_different - o.t_equal) if ramp else 1.0
        return (self.scaled, self.codes, self.cls, self.kind, ramp, o.t_equal, inv_w,
                self.prob, self.n_codes, _VARIANT_CODE[o.missing], o.both_missing == "current")

    def pair_diffs(self, rows, others):
        """diff(A, I_rows[p], I_others[p]) for every pair p and attribute A, shape (P, a).

        ``rows[p]`` is the current instance (its class is used for RELIEF-D's both-missing rule
        with ``both_missing="current"``). Under RELIEF-C the contributions that involve a missing
        value are NaN, for the estimator to leave out; an attribute with no known value is NaN.
        """
        rows = np.ascontiguousarray(rows, dtype=np.intp)
        others = np.ascontiguousarray(others, dtype=np.intp)
        out = np.empty((rows.size, self.codes.shape[1]))
        _pair_diffs(rows, others, *self._kernel_args(), out)
        return out

    def distances(self, rows, callback=None):
        """Distances (sums of diffs, or of squared diffs) from each of ``rows`` to every instance,
        shape (len(rows), n). Columns without missing values go through a vectorised path."""
        rows = np.ascontiguousarray(rows, dtype=np.intp)
        fast = (self.kind != _UNUSABLE) & ~self.has_missing
        slow = np.flatnonzero(self.has_missing).astype(np.intp)
        o = self.options
        euclid = o.distance == "euclidean"
        out = np.zeros((rows.size, self.scaled.shape[0]))
        fast_num = np.flatnonzero(fast & (self.kind == _NUMERIC))
        fast_disc = np.flatnonzero(fast & (self.kind == _DISCRETE))
        if fast_num.size:
            ramp = o.numeric == "ramp"
            inv_w = 1.0 / (o.t_different - o.t_equal) if ramp else 1.0
            cols = np.ascontiguousarray(self.scaled[:, fast_num])
            _fast_numeric_distances(rows, cols, ramp, o.t_equal, inv_w, euclid, out)
        if fast_disc.size:
            cols = np.ascontiguousarray(self.scaled[:, fast_disc])
            _fast_discrete_distances(rows, cols, out)
        if slow.size:
            _slow_distances(rows, slow, *self._kernel_args(), euclid, out)
        return out


@njit(cache=True, inline="always")
def _diff(t, i, j, scaled, codes, cls, kind, ramp, t_equal, inv_w, prob, n_codes, variant,
          both_current):
    """diff(A_t, I_i, I_j) for the estimate: RELIEF-C's excluded contributions are NaN."""
    k = kind[t]
    if k == _UNUSABLE:
        return np.nan
    a = scaled[i, t]
    b = scaled[j, t]
    if a == a and b == b:
        if k == _DISCRETE:
            return 0.0 if a == b else 1.0
        d = abs(a - b)
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
def _pair_diffs(rows, others, scaled, codes, cls, kind, ramp, t_equal, inv_w, prob, n_codes,
                variant, both_current, out):
    n_attr = scaled.shape[1]
    for p in prange(rows.size):
        i = rows[p]
        j = others[p]
        for t in range(n_attr):
            out[p, t] = _diff(t, i, j, scaled, codes, cls, kind, ramp, t_equal, inv_w, prob,
                              n_codes, variant, both_current)


_TILE = 256


@njit(cache=True, parallel=True, fastmath=True)
def _fast_numeric_distances(rows, cols, ramp, t_equal, inv_w, euclid, out):
    n, n_attr = cols.shape
    n_tiles = (n + _TILE - 1) // _TILE
    for tile in prange(n_tiles):
        lo = tile * _TILE
        hi = min(lo + _TILE, n)
        for q in range(rows.size):
            r = rows[q]
            for j in range(lo, hi):
                s = 0.0
                for t in range(n_attr):
                    d = abs(cols[r, t] - cols[j, t])
                    if ramp:
                        d = min(max((d - t_equal) * inv_w, 0.0), 1.0)
                    if euclid:
                        d = d * d
                    s += d
                out[q, j] += s


@njit(cache=True, parallel=True, fastmath=True)
def _fast_discrete_distances(rows, cols, out):
    n, n_attr = cols.shape
    n_tiles = (n + _TILE - 1) // _TILE
    for tile in prange(n_tiles):
        lo = tile * _TILE
        hi = min(lo + _TILE, n)
        for q in range(rows.size):
            r = rows[q]
            for j in range(lo, hi):
                s = 0.0
                for t in range(n_attr):
                    s += 1.0 if cols[r, t] != cols[j, t] else 0.0
                out[q, j] += s


@njit(cache=True, parallel=True)
def _slow_distances(rows, slow, scaled, codes, cls, kind, ramp, t_equal, inv_w, prob, n_codes,
                    variant, both_current, euclid, out):
    # inside distances RELIEF-C uses RELIEF-B's diff (kononenko-relieff-1994.txt §3)
    dist_variant = 0 if variant == 1 else variant
    n = scaled.shape[0]
    n_tiles = (n + _TILE - 1) // _TILE
    for tile in prange(n_tiles):
        lo = tile * _TILE
        hi = min(lo + _TILE, n)
        for q in range(rows.size):
            r = rows[q]
            for j in range(lo, hi):
                s = 0.0
                for u in range(slow.size):
                    d = _diff(slow[u], r, j, scaled, codes, cls, kind, ramp, t_equal, inv_w,
                              prob, n_codes, dist_variant, both_current)
                    s += d * d if euclid else d
                out[q, j] += s


def target_diffs(data, rows, others, options=DiffOptions()):
    """diff(tau, I_rows[p], I_others[p]) of a regression target (RReliefF, Fig. 4): |y_i - y_j|
    divided by the target's range, with the same ramp as numeric attributes when
    ``options.numeric == "ramp"`` (REFERENCE.md)."""
    span = data.y_span if data.y_span > 0 else 1.0
    d = np.abs(data.y[rows] - data.y[others]) / span
    if options.numeric == "ramp":
        d = np.clip((d - options.t_equal) / (options.t_different - options.t_equal), 0.0, 1.0)
    return d
