"""The diff function of the Relief family and the distances built from it.

diff(A, I1, I2) for one attribute (Robnik-Šikonja & Kononenko 1999, eqs. 1-2):

* discrete: 0 if the values are equal, 1 otherwise (eq. 1);
* numeric, ``numeric="linear"``: ``|x - y| / (max - min)`` (eq. 2, the default);
* numeric, ``numeric="ramp"``: with ``d = |x - y| / (max - min)``, 0 if d <= t_equal, 1 if
  d >= t_different, linear in between (CORElearn's default, t_equal = 0.04, t_different = 0.1,
  as fractions of the range).

Missing values (Kononenko 1994, section 3):

* ``missing="D"`` (RELIEF-D, default): one value missing (I1's), diff = 1 - P(value(I2) | class(I1));
  both missing, diff = 1 - sum_v P(v | class(I1)) P(v | class(I2)). With ``both_missing="current"``
  the class of the current instance (the one whose neighbours are sought) is used for both factors,
  as CORElearn does. P(v | c) is the relative frequency among the instances of class c with a
  known value (counted by their weights), or with ``laplace=True`` ``(n_vc + 1) / (n_c + |V|)``
  (CORElearn). For a regression
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
``distance="euclidean"`` the sum of squared diffs (Kira & Rendell's original, 1992),
whose order is that of the Euclidean distance. Data with attribute weights
(:attr:`.encoding.EncodedData.attribute_weights`, Iterative Relief: Draper, Kaito & Bins
2003) weigh each attribute's term by its weight, sum_t w_t diff_t (or w_t diff_t^2); an
attribute of weight 0 takes no part. Only distances are weighted, never the pair diffs
(:meth:`DiffModel.pair_diffs`) the estimates sum. Weighted distances are the tiled kernel's
alone: a popcount of bit planes counts mismatches, not their weights, so SNP data held as
planes are decoded for a weighted search (8 bytes a genotype; a tiled pass reads a column per
genotype where the popcount reads 64), and the faster searches of :mod:`.neighbours` (k-d
trees, single precision) stand aside.

With ``corelearn=True`` the arithmetic is CORElearn's (Robnik-Sikonja's R package), so that
near-equal distances order as there: a numeric diff is computed from ``d = |x - y|`` as 0 if
d <= t_equal * range, 1 if d >= t_different * range, else (d - t_equal * range) / ((t_different
- t_equal) * range) (the linear diff is the case t_equal = 0, t_different = 1); a distance sums
the discrete attributes' diffs first, then the numeric ones, each in attribute order; a value on
a boundary of the equal-width bins goes to the lower bin (the bin width is enlarged by a factor
1.000001); and the neighbour search (:mod:`.neighbours`) orders equally distant candidates as
CORElearn's partial heap sort does.

The scalar rule :func:`_diff` gives the pair diffs; :meth:`DiffModel.distances` and the neighbour
search compute the same numbers summed over the attributes by one tiled kernel
(:func:`_load_tile`, :func:`_add_group`), in which a cell with a missing value costs about as much
as a known one: a branch-free select of a number looked up once per tile or loaded with it.
"""
from collections import namedtuple
from contextlib import contextmanager
from dataclasses import dataclass, replace
from functools import cached_property

import numba
import numpy as np
from numba import njit, prange

from ...compilation import kernel
from ..base import check_memory, parallel_launch, row_blocks
from . import vectorised
from ..encoding import EncodedData, power_of_two_scale, unit_scales
from .kinds import DISCRETE, NUMERIC, UNUSABLE
from .packed import MAX_VALUES, PackedColumns, pack_planes, pair_mismatches, tile_mismatches
from .searches import notify_search

__all__ = ["DiffOptions", "DiffModel", "target_diffs", "in_planes", "packable"]


@dataclass(frozen=True)
class DiffOptions:
    """How diffs, distances and neighbours are computed; see the module docstring.

    numeric ("linear" or "ramp"), t_equal, t_different: the numeric diff; missing ("B", "C",
    "D"), laplace, both_missing ("both" or "current"), numeric_bins: missing values;
    distance: "manhattan" or "euclidean"; skip_zero_distance: no instance at distance 0 is a
    neighbour; corelearn: reproduce CORElearn to the last bit (see the module docstring).
    """
    numeric: str = "linear"
    t_equal: float = 0.04
    t_different: float = 0.1
    missing: str = "D"
    laplace: bool = False
    both_missing: str = "both"
    numeric_bins: int = 5
    distance: str = "manhattan"
    skip_zero_distance: bool = False
    corelearn: bool = False

    def check(self):
        """Raise ``ValueError`` naming the offending parameter and its allowed values (the
        declarations of :mod:`..parameters`)."""
        from ..parameters import check_diff_options
        check_diff_options(self)
        return self


#: what the distance kernels read (:attr:`DiffModel.tiles`): the values and classes, the
#: candidates in tiles, the columns in groups, the scales and value codes (:func:`_code`), the
#: diffs against a missing value, the options (ramp, t_equal, slope, Euclidean) and each
#: attribute's weight in the distance (ones without attribute weights)
Tiles = namedtuple("Tiles", "values cls order ranges columns first_row groups partial discrete "
                            "shift inv_span factor n_codes other both options weight")

#: what the pair-diff kernels read (:meth:`DiffModel._pair_args`): the values, classes and
#: kinds, the value codes (:func:`_code`), the numeric ramp (:attr:`DiffModel._ramp_args`), the
#: diffs against a missing value, whether RELIEF-C leaves them out, and the bit planes of data
#: held only as planes (:class:`.packed.PackedColumns`; their ``values`` then have no column)
DiffTables = namedtuple("DiffTables", "values cls kind shift inv_span factor n_codes lo hi slope "
                                      "other both leave_out planes")

#: discrete data with at most four values and no missing values are packed into bit planes
#: (:mod:`.packed`) from this many usable columns: fewer are as fast read as they are
PACKED_MIN_COLUMNS = 64

#: kernel calls with less work than this (pairs x attributes) run on one thread: starting the
#: threads costs more than such a call (a tree's small nodes make hundreds of them)
SERIAL_WORK = 1_000_000


def packable(discrete, n_codes, missing):
    """Whether columns are held as bit planes (:attr:`DiffModel.planes`): at least
    ``PACKED_MIN_COLUMNS`` of them, each ``discrete`` with ``n_codes`` of at most
    ``MAX_VALUES``, and no value ``missing`` (a bool)."""
    return (len(discrete) >= PACKED_MIN_COLUMNS and bool(np.all(discrete))
            and bool(np.all(np.asarray(n_codes) <= MAX_VALUES)) and not missing)


def in_planes(data, options=DiffOptions()):
    """Whether a :class:`DiffModel` of ``data`` (with ``options``) holds every attribute in bit
    planes, told from the data's summary (how they are held, the columns' kinds and numbers of
    values) and a scan for a missing value, without building the model."""
    if isinstance(data.X, PackedColumns) and not options.corelearn and np.all(data.discrete):
        return True                                 # the planes as the data hold them
    return not data.is_sparse and packable(data.discrete, np.maximum(data.n_values, 1),
                                           data.any_missing)


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


def class_codes(data):
    """``(codes, n_codes)``: each instance's class as int32 and the number of classes; a
    numeric target is one class (RELIEF-D's probabilities are then not conditioned on it)."""
    if data.is_classification:
        return data.y.astype(np.int32), data.n_classes
    return np.zeros(data.n_instances, dtype=np.int32), 1


def _bins_for(n, numeric_bins):
    return int(numeric_bins) if n >= 25 else max(2, n // 5)


class DiffModel:
    """Per-attribute diff tables for one :class:`EncodedData`: the numeric scales 1/(max - min)
    (:func:`.encoding.unit_scales`: a column whose span is no finite float is read exactly
    rescaled by a power of two),
    and, where values are missing, the conditional probabilities P(v | c) of the value codes
    (numeric values binned; :func:`_code`) and the diffs against a missing value. The
    attribute values are read as they are (a C-ordered X is never copied) and codes are
    computed where they are needed, so the model costs little memory beyond the data."""
    #: whether the values are a sparse matrix (:class:`.sparse.SparseDiffModel`)
    sparse = False
    #: whether the data are held only as bit planes (:class:`.packed.PackedColumns`)
    packed = False

    def __init__(self, data, options=DiffOptions(), reference=None):
        """``reference``: a model of the training instances whose ranges, bins, usable columns
        and probabilities P(v | c) this one takes over (see :meth:`extended`)."""
        self.options = options.check()
        self.data = data
        self._reference = reference
        #: (a,) the attributes' weights in the distance, or None (all 1; module docstring)
        self.distance_weights = data.attribute_weights
        if self.distance_weights is not None and options.corelearn:
            raise ValueError("preset='corelearn' does not take attribute weights in the "
                             "distance (CORElearn has none): use the 'papers' preset")
        X = data.X
        n, a = X.shape
        # (CORElearn's search reads values, not planes, and numeric diffs are no mismatches:
        # they get the values decoded)
        self.packed = (isinstance(X, PackedColumns) and not options.corelearn
                       and bool(np.all(data.discrete)))
        X = np.asarray(X) if isinstance(X, PackedColumns) and not self.packed else X
        any_missing, all_missing = np.zeros(a, bool), np.full(a, not self.packed)
        for rows in () if self.packed else row_blocks(n, 8 * a):  # wide: no n x a mask at once
            missing = np.isnan(X[rows])
            any_missing |= missing.any(axis=0)
            all_missing &= missing.all(axis=0)
        if reference is not None:
            usable = reference.kind != UNUSABLE
        else:
            usable = ~all_missing
        self.kind = np.where(data.discrete, DISCRETE, NUMERIC).astype(np.int8)
        self.kind[~usable] = UNUSABLE
        if reference is not None:
            self.scale, self.shift, self.inv_span = (reference.scale, reference.shift,
                                                     reference.inv_span)
        else:
            self.scale, self.shift, self.inv_span = unit_scales(
                X, ~data.discrete & usable, data.minimum, data.span)
        # a model extending a reference has missing values where the reference has them too
        # (a part of the data, see :meth:`from_summary`, orders its columns as the whole data)
        self.has_missing = (any_missing if reference is None
                            else any_missing | reference.has_missing) & usable
        self.bins = reference.bins if reference is not None else _bins_for(
            int(round(data.total_weight)), options.numeric_bins)
        self.n_codes = np.where(data.discrete, np.maximum(data.n_values, 1),
                                self.bins).astype(np.intp)
        self.cls, self.n_cls = class_codes(data)
        # columns whose span or its reciprocal is no finite float are read scaled (exactly);
        # planes are read as they are (the kernels read ``_kernel_values``, no column of them)
        self.values = X if self.packed else np.ascontiguousarray(
            X if np.all(self.scale == 1) else X * self.scale)

    @property
    def weighted(self):
        """Whether distances weigh the attributes (:attr:`distance_weights`)."""
        return self.distance_weights is not None

    @cached_property
    def _distance_values(self):
        """The values the distance kernels read: :attr:`_kernel_values`, or for weighted
        distances over data held as bit planes their codes decoded (module docstring)."""
        if self.packed and self.weighted:
            return np.asarray(self.data.X, dtype=np.float64)
        return self._kernel_values

    @property
    def distance_planes(self):
        """:attr:`planes` where distances are mismatch counts, else (weighted distances) an
        empty (n, 2, 0) array: the distances then come from the tiled kernel."""
        if self.weighted:
            return np.zeros((self.data.n_instances, 2, 0), np.uint64)
        return self.planes

    @property
    def _kernel_values(self):
        """The values the compiled kernels read: :attr:`values`, or for data held as bit planes
        an (n, 0) array (the kernels read the planes) of float64, the type of other data's
        values, so that bit planes take the kernels compiled for those."""
        return np.zeros((self.data.n_instances, 0)) if self.packed else self.values

    @classmethod
    def from_summary(cls, minimum, maximum, has_missing, discrete, n_values, n_classes,
                     n_instances, y_span=1.0, options=DiffOptions(), value_counts=None):
        """The model of data known only by a summary (as a pass over row partitions gives
        it), to be the ``reference`` of models of their parts: each column's ``minimum`` and
        ``maximum`` (NaN: no known value; the column takes no part), whether it has missing
        values, the ``discrete`` mask with the columns' ``n_values``, ``n_classes`` (0: a
        numeric target of span ``y_span``), the value bins of ``n_instances`` instances and,
        with ``value_counts`` (:meth:`value_counts` summed over the parts), the probabilities
        P(value | class) of the whole data. Its ranges and scales are those of a model of the
        whole data."""
        discrete = np.asarray(discrete, dtype=bool)
        known = ~np.isnan(maximum)
        minimum = np.where(discrete, 0.0, minimum)
        with np.errstate(over="ignore", invalid="ignore"):
            span = np.where(discrete, 1.0, maximum - minimum)
        # two rows, the extremes, give the scales (a span that is no finite float is read from
        # the column's largest magnitude)
        extremes = np.where(known, np.vstack([minimum, np.where(discrete, 0.0, maximum)]),
                            np.nan)
        model = cls(EncodedData(X=extremes, y=np.zeros(2), discrete=discrete,
                                n_values=np.asarray(n_values, np.intp), n_classes=n_classes,
                                minimum=minimum, span=span, y_span=y_span), options)
        model.bins = _bins_for(n_instances, options.numeric_bins)
        model.n_codes = np.where(discrete, np.maximum(n_values, 1), model.bins).astype(np.intp)
        model.has_missing = np.asarray(has_missing, dtype=bool) & known
        if value_counts is not None:
            model.prob = model.probabilities(value_counts)
        return model

    @property
    def usable(self):
        """The columns that take part in distances (those with a known value)."""
        return self.kind != UNUSABLE

    @cached_property
    def _code_args(self):
        """What :func:`_code` reads: per column the shift, scale, bin factor and #codes (with
        ``corelearn`` the bins are 1.000001 times wider, so a boundary value goes to the lower
        bin)."""
        bins = self.bins / 1.000001 if self.options.corelearn else float(self.bins)
        factor = np.where(self.data.discrete, 1.0, bins)
        return self.shift, self.inv_span, factor, self.n_codes

    @cached_property
    def _ramp_args(self):
        """Per column (lo, hi, slope) of the numeric diff of ``d = |x - y|`` (:func:`_diff`): 0 if
        d <= lo, 1 if d >= hi, else (d - lo) * slope; the ramp's lo = t_equal * span, hi =
        t_different * span, slope = 1 / (hi - lo); the linear diff's lo = 0, slope = 1 / span,
        hi = inf (a query outside the training range gets a diff above 1), or with
        ``corelearn`` hi = span. A constant column's diff is 0."""
        o = self.options
        with np.errstate(divide="ignore"):      # a column read rescaled: its rescaled span
            span = np.where(self.scale == 1, self.data.span, 1.0 / self.inv_span)
        span = np.where((self.kind == NUMERIC) & np.isfinite(span), span, 0.0)
        constant = span <= 0
        safe = np.where(constant, 1.0, span)
        if o.numeric == "ramp":
            lo, hi = o.t_equal * span, o.t_different * span
            slope = 1.0 / np.where(constant, 1.0, hi - lo)
        else:
            lo, hi = np.zeros_like(span), (span if o.corelearn else np.full_like(span, np.inf))
            slope = 1.0 / safe
        slope = np.where(constant, 0.0, slope)
        hi = np.where(constant, np.inf, hi)
        return lo, hi, slope

    def codes(self, columns):
        """(n, len(columns)) int32 value codes (:func:`_code`) of a slice of the columns;
        -1 = missing."""
        if self.packed:                         # discrete codes 0..3, none missing
            return self.values[:, columns].astype(np.int32)
        out = np.empty((self.data.n_instances, columns.stop - columns.start), np.int32)
        _fill_codes(self.values, columns.start, *self._code_args, out)
        return out

    @cached_property
    def prob(self):
        """P[t, v, c] = P(value v of attribute t | class c), Kononenko 1994 §3: the
        relative frequency among the instances of class c with a known value, 1/#values when
        there are none; with ``laplace`` (n_vc + 1) / (n_c + #values)."""
        if self._reference is not None:
            return self._reference.prob
        return self.probabilities(self.value_counts())

    def value_counts(self):
        """counts[t, v, c]: the number (the weight) of the instances of class c whose value of
        A_t has code v (:func:`_code`)."""
        a = self.data.n_attributes
        vmax, C = (int(self.n_codes.max()) if a else 1), self.n_cls
        check_memory(3 * 8 * a * vmax * C, f"the probabilities P(value | class) of {a} "
                     f"attributes with up to {vmax} values", "merge rare values")
        counts = np.zeros((a, vmax, C))
        cls = self.cls.astype(np.int32)[:, None]
        for cols in row_blocks(a, 12 * self.data.n_instances):   # codes, cells, mask per column
            sub = self.codes(cols)
            size = sub.shape[1] * vmax * C
            cell = sub * C                  # int32 cells: (column * vmax + code) * C + class
            cell += np.arange(0, size, vmax * C, dtype=np.int32)
            cell += cls
            cell[sub < 0] = size            # a missing value: into a bin of its own, dropped
            weights = None if self.data.weights is None else np.broadcast_to(
                self.data.weights[:, None], sub.shape).ravel()
            counts[cols] = np.bincount(cell.ravel(), weights=weights,
                                       minlength=size + 1)[:size].reshape(-1, vmax, C)
        return counts

    def probabilities(self, counts):
        """:attr:`prob` from value counts (:meth:`value_counts`, or their sum over parts of
        the data)."""
        vmax = counts.shape[1]
        total = counts.sum(axis=1, keepdims=True)
        v_count = self.n_codes[:, None, None].astype(float)
        if self.options.laplace:
            prob = (counts + 1.0) / (total + v_count)
        else:
            with np.errstate(invalid="ignore", divide="ignore"):
                prob = np.where(total > 0, counts / total, 1.0 / v_count)
        return np.where(np.arange(vmax)[None, :, None] < v_count, prob, 0.0)

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
                       y=np.concatenate([self.data.y, np.broadcast_to(classes, len(X_query))]),
                       weights=None if self.data.weights is None else np.concatenate(
                           [self.data.weights, np.ones(len(X_query))]))
        return DiffModel(data, self.options, reference=self)

    @property
    def _inv_w(self):
        o = self.options
        return 1.0 / (o.t_different - o.t_equal) if o.numeric == "ramp" else 1.0

    def _pair_args(self):
        """What the pair-diff kernels read (:class:`DiffTables`)."""
        other, both = self.missing_diffs
        planes = self.data.X.planes if self.packed else np.zeros((0, 2, 0), np.uint64)
        return DiffTables(self._kernel_values, self.cls, self.kind, *self._code_args,
                          *self._ramp_args, other, both, self.options.missing == "C", planes)

    @property
    def pair_bytes(self):
        """Bytes of the diffs of one pair (one value per attribute)."""
        return 8 * self.data.n_attributes

    def pair_diffs(self, rows, others):
        """diff(A, I_rows[p], I_others[p]) for every pair p and attribute A, shape (P, a).

        ``rows[p]`` is the current instance (its class is used for RELIEF-D's both-missing rule
        with ``both_missing="current"``). Under RELIEF-C the contributions that involve a missing
        value are NaN, for the estimator to leave out; an attribute with no known value is NaN.
        """
        rows = np.ascontiguousarray(rows, dtype=np.intp)
        others = np.ascontiguousarray(others, dtype=np.intp)
        out = np.empty((rows.size, self.data.n_attributes))
        with _threads_for(out.size), parallel_launch():
            if self.packed:                     # discrete, none missing: 0 or 1 (eq. 1)
                pair_mismatches(self.planes, rows, others, out)
            else:
                _pair_diffs(rows, others, self._pair_args(), out)
        return out

    def distances(self, rows):
        """Distances (sums of diffs, or of squared diffs) from each of ``rows`` to every instance,
        shape (len(rows), n), by the tiled kernel of :meth:`tiles`."""
        rows = np.ascontiguousarray(rows, dtype=np.intp)
        out = np.empty((rows.size, self.data.n_instances))
        tiles, planes = self.tiles, self.distance_planes   # (packing launches a kernel itself)
        notify_search("packed SNP" if planes.shape[2] else "double precision")
        with _threads_for(out.size * self.data.n_attributes), parallel_launch():
            _distances(rows, tiles, planes, out)
        return out

    @cached_property
    def planes(self):
        """The usable columns as bit planes (:func:`.packed.pack_planes`) when there are at
        least ``PACKED_MIN_COLUMNS`` of them and every one is discrete with at most
        ``MAX_VALUES`` values and no missing value: the distance is then the number of
        attributes on which two instances differ, counted by popcount (the same number the
        tiled kernel sums). Otherwise an empty (n, 2, 0) array."""
        if self.packed:                         # every column, as the data hold them
            return self.data.X.planes
        columns = np.flatnonzero(self.kind != UNUSABLE)
        empty = np.zeros((self.data.n_instances, 2, 0), np.uint64)
        if self.sparse or not packable(self.kind[columns] == DISCRETE, self.n_codes[columns],
                                       self.has_missing.any()):
            return empty
        planes = pack_planes(self.values, columns)
        return empty if planes is None else planes

    @cached_property
    def tiles(self):
        """What the distance kernels read, as one :class:`Tiles` (for numba): the values and
        classes, the candidates in tiles, the columns in groups, and the diff tables.

        ``order`` lists the instances sorted by class (stable), and ``ranges`` holds each
        tile's (start, stop, class) in it: at most ``TILE_WIDTH`` candidates of one class.
        The usable ``columns`` (those without missing values first) are split at ``groups``
        (boundaries into ``columns``) so that a tile's rows of one group fill at most
        ``GROUP_BYTES``; column u's rows start at ``first_row[u]``: one row of values for a
        column without missing values, and for a column with them (``partial``) the values
        (NaN where missing) followed by one row per query class c: the diff of a query of
        class c whose value is missing to each candidate. :func:`_load_tile` transposes one
        group of one tile into a buffer that stays in cache while every query adds its diffs
        (:func:`_add_group`). A tile having one class makes the diff of a known query value to
        a missing candidate value one number per tile (RELIEF-D conditions it on the
        candidate's class), so every cell is one branch-free select. ``other[t, v, c]`` and
        ``both[c, d, t]`` are the diffs against a missing value (:attr:`missing_diffs`, squared
        for the Euclidean distance); ``weight[t]`` weighs A_t's terms (:attr:`distance_weights`;
        a column of weight 0 is left out of ``columns``)."""
        o = self.options
        partial = self.has_missing
        other, both = (d * d if o.distance == "euclidean" else d for d in self.missing_diffs)
        order, ranges = class_tiles(self.cls, self.n_cls)
        usable = self.kind != UNUSABLE
        if self.weighted:
            usable = usable & (self.distance_weights > 0)
        columns = np.concatenate([np.flatnonzero(usable & ~partial), np.flatnonzero(partial)])
        first_row = np.concatenate([[0], np.cumsum(np.where(partial[columns],
                                                            1 + self.n_cls, 1))])
        group_rows = max(1 + self.n_cls, GROUP_BYTES // (8 * TILE_WIDTH))
        groups = [0]
        for u in range(columns.size):
            if first_row[u + 1] - first_row[groups[-1]] > group_rows:
                groups.append(u)
        groups.append(columns.size)
        options = np.array([o.numeric == "ramp", o.t_equal, self._inv_w,
                            o.distance == "euclidean"], dtype=float)
        weight = (np.ones(self.data.n_attributes) if self.distance_weights is None
                  else np.ascontiguousarray(self.distance_weights, dtype=np.float64))
        return Tiles(self._distance_values, self.cls, order, ranges, columns.astype(np.intp),
                     first_row.astype(np.intp), np.array(groups, np.intp), partial,
                     np.ascontiguousarray(self.data.discrete, dtype=np.bool_), *self._code_args,
                     other, both, options, weight)

    @cached_property
    def missing_diffs(self):
        """The diffs against a missing value (Kononenko 1994 §3): ``other[t, v, c]``
        of a known value code v of A_t against an instance of class c whose value is missing
        (RELIEF-D: 1 - P(v | c)), and ``both[c, d, t]`` when both values are missing, c the
        current instance's class and d the other's (RELIEF-D: 1 - sum_v P(v | c) P(v | d), or
        with ``both_missing="current"`` d = c); RELIEF-B/C: 1 - 1/#values throughout."""
        a, C = self.data.n_attributes, self.n_cls
        if not self.has_missing.any():
            return np.zeros((1, 1, 1)), np.zeros((1, 1, 1))
        if self.options.missing != "D":
            diff = 1.0 - 1.0 / self.n_codes
            other = np.broadcast_to(diff[:, None, None], (a, int(self.n_codes.max()), C))
            both = np.broadcast_to(diff, (C, C, a))
        else:
            p = self.prob                                              # (a, V, C)
            other = 1.0 - p
            if self.options.both_missing == "current":
                same = 1.0 - np.einsum("tvc,tvc->ct", p, p)
                both = np.broadcast_to(same[:, None, :], (C, C, a))
            else:
                both = 1.0 - np.einsum("tvc,tvd->cdt", p, p)
        # copies, writable whatever they came from (``ascontiguousarray`` keeps a read-only
        # broadcast that is contiguous, such as ``both`` of one class), so that the kernels
        # take one type of argument
        return np.array(other, order="C"), np.array(both, order="C")


@njit(cache=True, inline="always")
def _code(x, t, shift, inv_span, factor, n_codes):
    """The value code of A_t's value x, by which RELIEF-D's probabilities are looked up: a
    discrete value as it is, a numeric one's bin of ``bins`` equal-width bins of the range
    (``factor``: ``bins``, or 1 for a discrete column), clipped to 0..#values - 1. A missing x
    gives 0 (such a code is never used), so the tile loader selects instead of branching."""
    c = np.floor((x - shift[t]) * inv_span[t] * factor[t])
    c = c if c >= 0.0 else 0.0                          # NaN compares false: 0
    top = n_codes[t] - 1
    return int(c if c <= top else top)


@kernel(vectorised.fill_codes)
@njit(cache=True, nogil=True)
def _fill_codes(X, first, shift, inv_span, factor, n_codes, out):
    """out[i, u] = the code (:func:`_code`) of X[i, first + u], -1 where it is missing."""
    for i in range(out.shape[0]):
        for u in range(out.shape[1]):
            x = X[i, first + u]
            out[i, u] = _code(x, first + u, shift, inv_span, factor, n_codes) if x == x else -1


@njit(cache=True, inline="always")
def _diff(t, i, j, tables):
    """diff(A_t, I_i, I_j) for the estimate, I_i the current instance (``tables``: a
    :class:`DiffTables`): a numeric one from ``|x - y|`` by :attr:`DiffModel._ramp_args`
    (CORElearn's arithmetic); RELIEF-C's excluded contributions (``leave_out``) are NaN; a
    missing value's diff is looked up in the tables of :attr:`DiffModel.missing_diffs`."""
    k = tables.kind[t]
    if k == UNUSABLE:
        return np.nan
    X = tables.values
    a = X[i, t]
    b = X[j, t]
    if a == a and b == b:
        if k == DISCRETE:
            return 0.0 if a == b else 1.0
        d = abs(b - a)
        if d >= tables.hi[t]:
            return 1.0
        if d <= tables.lo[t]:
            return 0.0
        return (d - tables.lo[t]) * tables.slope[t]
    if tables.leave_out:
        return np.nan
    cls = tables.cls
    if a != a and b != b:
        return tables.both[cls[i], cls[j], t]
    shift, inv_span, factor, n_codes = tables.shift, tables.inv_span, tables.factor, tables.n_codes
    if a != a:
        return tables.other[t, _code(b, t, shift, inv_span, factor, n_codes), cls[i]]
    return tables.other[t, _code(a, t, shift, inv_span, factor, n_codes), cls[j]]


@kernel(vectorised.pair_diffs)
@njit(cache=True, nogil=True, parallel=True)
def _pair_diffs(rows, others, tables, out):
    n_attr = tables.values.shape[1]
    for p in prange(rows.size):
        i = rows[p]
        j = others[p]
        for t in range(n_attr):
            out[p, t] = _diff(t, i, j, tables)


#: candidates per tile of the distance kernels
TILE_WIDTH = 512
#: bytes of one group of columns of a tile (transposed): it stays in the core's cache
GROUP_BYTES = 256 * 1024
#: doubles of padding after each row of a transposed tile buffer (:func:`_load_tile`), so that
#: its rows do not lie a power of two apart: the transpose's stores would fall into one set of
#: the core's cache (a load of a tile measured 2.4 times as long)
ROW_PAD = 8
#: queries at most whose diffs to missing values the distance kernel looks up per query
#: instead of loading them with each tile for every class (:func:`_tile_distances`)
FEW_QUERIES = 8


def class_tiles(cls, n_cls, width=TILE_WIDTH):
    """``(order, ranges)``: the positions of ``cls`` sorted by class (stable), and each tile's
    (start, stop, class) in that order: at most ``width`` positions of one class."""
    order = np.argsort(cls, kind="stable").astype(np.intp)
    bounds = np.searchsorted(cls[order], np.arange(n_cls + 1))
    ranges = np.array([(lo, min(lo + width, stop), c)
                       for c, (start, stop) in enumerate(zip(bounds[:-1], bounds[1:]))
                       for lo in range(start, stop, width)], np.intp).reshape(-1, 3)
    return order, ranges


@njit(cache=True, nogil=True)
def _tile_buffers(tiles, n_queries):
    """Empty buffers for any group of any tile of :meth:`DiffModel.tiles` and for the distances
    of ``n_queries`` queries to a tile."""
    ranges, first_row, groups = tiles.ranges, tiles.first_row, tiles.groups
    width, rows = 1, 1
    for u in range(ranges.shape[0]):
        width = max(width, ranges[u, 1] - ranges[u, 0])
    for g in range(groups.size - 1):
        rows = max(rows, first_row[groups[g + 1]] - first_row[groups[g]])
    return np.empty((rows, width + ROW_PAD)), np.empty((n_queries, width))


@njit(cache=True, nogil=True)
def _load_tile(buf, tiles, tile, group, centred=False, diffs=True):
    """Transpose group ``group`` of tile ``tile`` into ``buf``: per column the scaled values
    (x / span, or with ``centred`` (x - min) / span; a discrete column's scale is 1 and its
    shift 0; NaN where missing), and (``diffs``) for a column with missing values, for each
    query class c, the diff of a query of class c whose value is missing to each candidate
    (times the column's weight). Return (start, width, class) of the tile."""
    X, order, ranges, columns, first_row = (tiles.values, tiles.order, tiles.ranges,
                                            tiles.columns, tiles.first_row)
    groups, partial, other, both = tiles.groups, tiles.partial, tiles.other, tiles.both
    shift, inv_span, factor, n_codes = tiles.shift, tiles.inv_span, tiles.factor, tiles.n_codes
    weight = tiles.weight
    lo, width, c_tile = ranges[tile, 0], ranges[tile, 1] - ranges[tile, 0], ranges[tile, 2]
    n_cls = both.shape[0]
    base = first_row[groups[group]]
    for j in range(width):              # a candidate's values lie together in X
        i = order[lo + j]
        for u in range(groups[group], groups[group + 1]):
            t = columns[u]
            row = first_row[u] - base
            x = X[i, t]
            buf[row, j] = (x - shift[t]) * inv_span[t] if centred else x * inv_span[t]
            if diffs and partial[t]:
                code = _code(x, t, shift, inv_span, factor, n_codes)
                for c in range(n_cls):
                    buf[row + 1 + c, j] = weight[t] * (other[t, code, c] if x == x
                                                       else both[c, c_tile, t])
    return lo, width, c_tile


@njit(cache=True, nogil=True)
def _g(a, b, discrete, ramp, t_equal, inv_w, euclid):
    """The distance term of two known scaled values: [a != b] for a discrete column, else
    |a - b| (ramped), squared for the Euclidean distance."""
    if discrete:
        return 1.0 if a != b else 0.0
    d = abs(a - b)
    if ramp:
        d = min(max((d - t_equal) * inv_w, 0.0), 1.0)
    return d * d if euclid else d


@njit(cache=True, nogil=True)
def _add_terms(acc, col, x, to_missing, width, discrete, ramp, t_equal, inv_w, euclid, partial,
               w):
    """acc[j] += w * g(col[j], x) (:func:`_g`), or ``to_missing`` (weighted already) where
    col[j] is NaN (missing) when the column is ``partial``. :func:`_add_column` passes
    ``discrete``, ``ramp`` and ``euclid`` as constants, so numba compiles a version per
    combination whose loops carry no branch (and vectorise); w = 1 without attribute weights
    (exact: the terms are those of an unweighted distance to the last bit)."""
    if partial:
        for j in range(width):
            d = w * _g(col[j], x, discrete, ramp, t_equal, inv_w, euclid)
            acc[j] += d if col[j] == col[j] else to_missing
    else:
        for j in range(width):
            acc[j] += w * _g(col[j], x, discrete, ramp, t_equal, inv_w, euclid)


@njit(cache=True, nogil=True)
def _add_column(acc, col, x, to_missing, width, discrete, ramp, t_equal, inv_w, euclid, partial,
                w):
    """:func:`_add_terms` with the flags of the column and the options as constants."""
    if discrete:
        _add_terms(acc, col, x, to_missing, width, True, False, t_equal, inv_w, False, partial,
                   w)
    elif ramp and euclid:
        _add_terms(acc, col, x, to_missing, width, False, True, t_equal, inv_w, True, partial, w)
    elif ramp:
        _add_terms(acc, col, x, to_missing, width, False, True, t_equal, inv_w, False, partial,
                   w)
    elif euclid:
        _add_terms(acc, col, x, to_missing, width, False, False, t_equal, inv_w, True, partial,
                   w)
    else:
        _add_terms(acc, col, x, to_missing, width, False, False, t_equal, inv_w, False, partial,
                   w)


@njit(cache=True, nogil=True)
def _missing_query_terms(acc, tiles, r, t, lo, c_tile, width):
    """acc[j] += the diff of instance r, whose value of A_t is missing, to candidate j of the
    tile of class ``c_tile`` starting at ``lo``: the numbers :func:`_load_tile` loads into the
    diff rows of r's class, looked up here for one query (both loaded, then selected)."""
    X, order, other, both = tiles.values, tiles.order, tiles.other, tiles.both
    shift, inv_span, factor, n_codes = tiles.shift, tiles.inv_span, tiles.factor, tiles.n_codes
    c_r = tiles.cls[r]
    w = tiles.weight[t]
    unknown = w * both[c_r, c_tile, t]
    for j in range(width):
        y = X[order[lo + j], t]
        known = w * other[t, _code(y, t, shift, inv_span, factor, n_codes), c_r]
        acc[j] += known if y == y else unknown


@njit(cache=True, nogil=True)
def _add_group(acc, buf, tiles, group, r, lo, c_tile, width, loaded=True):
    """acc[j] += the distance terms of the columns of ``group`` between instance r and
    candidate j of the tile of class ``c_tile`` starting at ``lo``, loaded by
    :func:`_load_tile` (``loaded``: with its diff rows, else r's diffs to missing values are
    looked up for r alone): g (:func:`_g`) where both values are known, else the RELIEF-B/D
    diff against a missing value (squared for the Euclidean distance), each times the column's
    weight. Summed over the groups, acc is the distance."""
    X, cls, columns, first_row, groups = (tiles.values, tiles.cls, tiles.columns,
                                          tiles.first_row, tiles.groups)
    partial, discrete, other, options = tiles.partial, tiles.discrete, tiles.other, tiles.options
    shift, inv_span, factor, n_codes = tiles.shift, tiles.inv_span, tiles.factor, tiles.n_codes
    ramp, t_equal, inv_w, euclid = options[0] != 0.0, options[1], options[2], options[3] != 0.0
    weight = tiles.weight
    base = first_row[groups[group]]
    for u in range(groups[group], groups[group + 1]):
        t = columns[u]
        row = first_row[u] - base
        if not partial[t]:
            _add_column(acc, buf[row], X[r, t] * inv_span[t], 0.0, width, discrete[t], ramp,
                        t_equal, inv_w, euclid, False, weight[t])
        elif X[r, t] == X[r, t]:
            code = _code(X[r, t], t, shift, inv_span, factor, n_codes)
            _add_column(acc, buf[row], X[r, t] * inv_span[t],
                        weight[t] * other[t, code, c_tile], width, discrete[t], ramp, t_equal,
                        inv_w, euclid, True, weight[t])
        elif loaded:        # the query's value is missing: its diffs were loaded with the tile
            diffs = buf[row + 1 + cls[r]]
            for j in range(width):
                acc[j] += diffs[j]
        else:
            _missing_query_terms(acc, tiles, r, t, lo, c_tile, width)


@njit(cache=True, nogil=True)
def _tile_distances(accs, buf, tiles, rows, tile):
    """accs[q, j] = the distance between instance rows[q] and candidate j of tile ``tile``,
    group by group (``buf`` holds one group at a time); return (start, width, class). For
    up to ``FEW_QUERIES`` queries their diffs to missing values are looked up per query
    rather than loaded with the tile for every class."""
    groups, ranges = tiles.groups, tiles.ranges
    lo, width, c_tile = ranges[tile, 0], ranges[tile, 1] - ranges[tile, 0], ranges[tile, 2]
    accs[:, :width] = 0.0
    loaded = rows.size > FEW_QUERIES
    for group in range(groups.size - 1):
        _load_tile(buf, tiles, tile, group, False, loaded)
        for q in range(rows.size):
            _add_group(accs[q], buf, tiles, group, rows[q], lo, c_tile, width, loaded)
    return lo, width, c_tile


@njit(cache=True, nogil=True)
def _any_tile_distances(accs, buf, tiles, planes, rows, tile):
    """:func:`_tile_distances`, or with bit planes (:meth:`DiffModel.planes`) the mismatch
    counts (:func:`.packed.tile_mismatches`); return (start, width, class) of the tile."""
    if planes.shape[2] == 0:
        return _tile_distances(accs, buf, tiles, rows, tile)
    ranges = tiles.ranges
    lo, width = ranges[tile, 0], ranges[tile, 1] - ranges[tile, 0]
    tile_mismatches(accs, planes, tiles.order, rows, lo, width)
    return lo, width, ranges[tile, 2]


@kernel(vectorised.distances)
@njit(cache=True, parallel=True, nogil=True)
def _distances(rows, tiles, planes, out):
    """out[q, j] = the distance between instances rows[q] and j; parallel over the tiles."""
    order, ranges = tiles.order, tiles.ranges
    for tile in prange(ranges.shape[0]):
        buf, accs = _tile_buffers(tiles, rows.size)
        lo, width, _ = _any_tile_distances(accs, buf, tiles, planes, rows, tile)
        for q in range(rows.size):
            for j in range(width):
                out[q, order[lo + j]] = accs[q, j]


def target_diffs(data, rows, others, options=DiffOptions()):
    """diff(tau, I_rows[p], I_others[p]) of a regression target (RReliefF, Fig. 4): ``|y_i - y_j|``
    divided by the target's range, with the same ramp as numeric attributes when
    ``options.numeric == "ramp"``, in CORElearn's arithmetic (see
    :attr:`DiffModel._ramp_args`)."""
    scale = power_of_two_scale(np.max(np.abs(data.y)))   # exact, and nothing below overflows
    span = data.y_span * scale
    if not np.isfinite(span):                 # a range beyond the largest float
        span = np.ptp(data.y * scale)
    span = span if span > 0 else 1.0
    d = np.abs(data.y[others] * scale - data.y[rows] * scale)
    if options.numeric == "ramp":
        lo, hi = options.t_equal * span, options.t_different * span
        return np.where(d >= hi, 1.0, np.where(d <= lo, 0.0, (d - lo) * (1.0 / (hi - lo))))
    if options.corelearn:
        return np.where(d >= span, 1.0, d * (1.0 / span))
    return d * (1.0 / span)
