"""The one encoded data form that every estimator reads.

A float64 matrix ``X`` (NaN = missing; discrete values as integer codes 0..V-1), a boolean mask of
the discrete columns, the number of values of each discrete column, the minimum and the span
(max - min) of each numeric column, and the target: class codes 0..C-1 for classification or the
real values for regression. Ranges are kept from the data the encoding was built on, so a subset
(a tree node) still measures numeric differences against the whole training data, as
CORElearn does.

``X`` may also hold discrete codes 0..3 as bit planes (:class:`.neighbourhood.packed.PackedColumns`,
as PLINK genotypes are read): a quarter of a byte a value, decoded where rows are read.

``X`` may instead be a ``scipy.sparse`` CSR matrix (float64, sorted column indices, no stored
zeros, no missing values): an implicit zero is the value 0, so the minimum and span of a column
count its zeros too. Only estimators that declare ``sparse_input`` accept such data
(:mod:`.sparse`).

Nothing here knows about Orange: ``orangecontrib.relief.orange_data`` builds this form from a
``Table``; scripts build it from numpy arrays with :func:`encode`.
"""
from dataclasses import dataclass, replace

import numpy as np
import scipy.sparse as sp

__all__ = ["EncodedData", "Covariates", "encode", "as_covariates", "unit_scales",
           "power_of_two_scale"]


@dataclass(frozen=True, eq=False)
class Covariates:
    """Variables of no interest measured on the instances (age, sex, ancestry components):
    ``values`` (n, c) float64 (discrete ones as integer codes), ``discrete`` (c,) which are
    discrete and their ``names``. Estimators that adjust for them (NPDR, the trend test) take
    them as further regressors; the others refuse data that carry them.

    They index by instances as an array does (``shape``, ``len``, ``covariates[rows]`` with an
    index array, a mask or a slice: the covariates of those instances), so that scikit-learn
    splits them with the samples, as it splits any sample-aligned metadata of ``fit`` (in
    cross-validation, ``params={"select__covariates": covariates}``)."""
    values: np.ndarray
    discrete: np.ndarray
    names: tuple

    @property
    def n_covariates(self):
        return self.values.shape[1]

    @property
    def shape(self):
        """(instances, covariates)."""
        return self.values.shape

    def __len__(self):
        return self.values.shape[0]

    def __getitem__(self, rows):
        if isinstance(rows, tuple):       # scikit-learn's ``array[rows, ...]``
            if len(rows) != 2 or rows[1] is not Ellipsis:
                raise IndexError("covariates are indexed by instances only")
            rows = rows[0]
        values = self.values[rows]
        return Covariates(values=values.reshape(-1, self.values.shape[1]),
                          discrete=self.discrete, names=self.names)

    def pair_diffs(self, rows, others):
        """(P, c) the covariates' diffs of the instance pairs (rows[p], others[p]): 1 where a
        discrete covariate differs, else 0; ``|u - v|`` for a numeric one (Le, Dawkins &
        McKinney 2020, as the attributes' diffs)."""
        u, v = self.values[rows], self.values[others]
        return np.where(self.discrete, (u != v).astype(float), np.abs(u - v))


@dataclass(frozen=True, eq=False)
class EncodedData:
    """Encoded attributes and target; see the module docstring for the fields' meaning."""
    X: np.ndarray            # (n, a) float64, NaN = missing; or a CSR matrix (module docstring)
    y: np.ndarray            # (n,) float64: class codes, or target values
    discrete: np.ndarray     # (a,) bool
    n_values: np.ndarray     # (a,) int: values of a discrete column (0 for numeric)
    n_classes: int           # number of classes, 0 for a regression target
    minimum: np.ndarray      # (a,) minimum of numeric columns (0 for discrete, NaN if all missing)
    span: np.ndarray         # (a,) max - min of numeric columns (1 for discrete, NaN if all missing)
    names: tuple = ()        # attribute names
    y_span: float = 1.0      # max - min of a regression target (1 for classification)
    weights: np.ndarray = None   # (n,) instance weights > 0; None = every instance weighs 1
    covariates: Covariates = None    # variables to adjust for (NPDR, trend test); None = none
    #: (a,) weights >= 0 of the attributes in the distances between instances (Iterative
    #: Relief; :meth:`with_attribute_weights`); None = every attribute weighs 1. They weigh
    #: each attribute's diff in the distance only, never in the estimates.
    attribute_weights: np.ndarray = None

    @property
    def n_instances(self):
        return self.X.shape[0]

    @property
    def n_attributes(self):
        return self.X.shape[1]

    @property
    def is_sparse(self):
        """Whether ``X`` is a sparse (CSR) matrix."""
        return sp.issparse(self.X)

    @property
    def is_classification(self):
        return self.n_classes > 0

    @property
    def instance_weights(self):
        """(n,) instance weights (ones when there are none)."""
        return np.ones(self.n_instances) if self.weights is None else self.weights

    @property
    def total_weight(self):
        """The number of instances the data stand for: the sum of the instance weights."""
        return float(self.n_instances if self.weights is None else self.weights.sum())

    @property
    def missing(self):
        """Boolean (n, a) mask of the missing values."""
        return np.isnan(self.X)

    @property
    def any_missing(self):
        """Whether a value is missing (a float NaN; integer codes and bit planes have none)."""
        X = self.X
        if sp.issparse(X):
            return bool(np.isnan(X.data).any())
        if not np.issubdtype(X.dtype, np.floating):
            return False
        step = max(1, CHECK_BYTES // max(X.shape[1], 1))      # no n x a mask of a wide table
        return any(np.isnan(X[lo:lo + step]).any() for lo in range(0, X.shape[0], step))

    def class_priors(self):
        """Relative class frequencies P(c), instances counted by their weights (classification
        only)."""
        counts = np.bincount(self.y.astype(np.intp), weights=self.weights,
                             minlength=self.n_classes)
        return counts / counts.sum()

    def subset(self, rows):
        """The given rows, with the ranges of the whole data kept (used inside tree nodes)."""
        rows = np.asarray(rows)
        covs = self.covariates
        return replace(self, X=self.X[rows], y=self.y[rows],
                       weights=None if self.weights is None else self.weights[rows],
                       covariates=None if covs is None else replace(covs,
                                                                    values=covs.values[rows]))

    def with_columns(self, X, discrete, n_values=None, names=None):
        """The same instances and target with other columns (derived binary split columns in a
        tree node, a subset of attributes): their ranges are computed from ``X`` itself."""
        X = _as_matrix(X)
        discrete = np.broadcast_to(np.asarray(discrete, dtype=bool), (X.shape[1],)).copy()
        n_values = _n_values(X, discrete, n_values)
        minimum, span = _ranges(X, discrete)
        names = tuple(names) if names is not None else tuple(f"x{i}" for i in range(X.shape[1]))
        return replace(self, X=X, discrete=discrete, n_values=n_values, minimum=minimum,
                       span=span, names=names, attribute_weights=None)

    def columns(self, cols):
        """A view on a subset of the attributes (ranges kept)."""
        cols = np.asarray(cols, dtype=np.intp)
        weights = self.attribute_weights
        return replace(self, X=self.X[:, cols], discrete=self.discrete[cols],
                       n_values=self.n_values[cols], minimum=self.minimum[cols],
                       span=self.span[cols], names=tuple(self.names[c] for c in cols),
                       attribute_weights=None if weights is None else weights[cols])

    def with_attribute_weights(self, weights, all_zero=False):
        """The same data whose distances weigh attribute t's diff by ``weights[t]`` (finite,
        >= 0, not all 0; None: all 1): D(I1, I2) = sum_t w_t diff(A_t, I1, I2), the weighted
        distance of Iterative Relief (Draper, Kaito & Bins 2003). The estimates' diffs stay
        unweighted. ``ValueError`` for weights of the wrong length or value. ``all_zero``
        admits weights that are all 0 (scikit-rebate's Iterative Relief runs a round so after
        one without a positive estimate; only ``preset="skrebate"`` computes such distances)."""
        if weights is None:
            return replace(self, attribute_weights=None)
        weights = np.array(weights, dtype=np.float64, copy=True).ravel()
        if weights.shape != (self.n_attributes,):
            raise ValueError(f"{weights.size} attribute weights for {self.n_attributes} "
                             "attributes")
        if not np.all(np.isfinite(weights)) or np.any(weights < 0):
            raise ValueError("attribute weights must be finite and >= 0")
        if not np.any(weights > 0) and not all_zero:
            raise ValueError("attribute weights must not all be 0")
        return replace(self, attribute_weights=None if np.all(weights == 1) else weights)


#: bytes of the temporary arrays of one block of rows or columns checked by :func:`_as_matrix`
#: and :func:`_n_values`
CHECK_BYTES = 64 * 2 ** 20


def _as_matrix(X):
    # a float64 array is used as it is, not copied: at 50,000 x 1,000 a copy is 400 MB
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(f"attributes must be a 2-D array, got {X.ndim} dimension(s)")
    step = max(1, CHECK_BYTES // max(X.shape[1], 1))      # no n x a mask of a wide table
    if any(np.isinf(X[lo:lo + step]).any() for lo in range(0, X.shape[0], step)):
        raise ValueError("attribute values must be finite: the data contain inf "
                         "(use NaN for a missing value)")
    return X


def _column_blocks(X, cols):
    """``cols`` in blocks whose temporaries (about 24 bytes a cell) fit in ``CHECK_BYTES``."""
    step = max(1, CHECK_BYTES // (24 * max(X.shape[0], 1)))
    return [cols[lo:lo + step] for lo in range(0, cols.size, step)]


def _as_sparse(X):
    """A CSR float64 copy of a sparse matrix with sorted indices and no stored zeros; ValueError
    for missing or infinite values."""
    if X.ndim != 2:
        raise ValueError(f"attributes must be a 2-D matrix, got {X.ndim} dimension(s)")
    X = sp.csr_matrix(X, dtype=np.float64, copy=True)
    X.sum_duplicates()
    if np.isnan(X.data).any():
        raise ValueError("sparse data with missing values (NaN) are not supported: impute them "
                         "or convert the data to a dense array")
    if np.isinf(X.data).any():
        raise ValueError("attribute values must be finite: the data contain inf")
    X.eliminate_zeros()
    X.sort_indices()
    return X


def _sparse_columns(X, discrete, n_values):
    """``(n_values, minimum, span)`` of a CSR matrix (:func:`_as_sparse`), its implicit zeros
    counted as values; ValueError for discrete codes out of range."""
    n, a = X.shape
    if n:
        largest = X.max(axis=0).toarray().ravel()       # implicit zeros included
        smallest = X.min(axis=0).toarray().ravel()
    else:
        largest = smallest = np.full(a, np.nan)
    stored_discrete = discrete[X.indices]
    codes, code_cols = X.data[stored_discrete], X.indices[stored_discrete]
    if n_values is None:
        n_values = np.where(discrete & ~np.isnan(largest), np.nan_to_num(largest) + 1, 0)
    n_values = np.broadcast_to(np.asarray(n_values, dtype=np.intp), (a,)).copy()
    n_values[~discrete] = 0
    bad = (codes != np.round(codes)) | (codes < 0) | (codes >= n_values[code_cols])
    if bad.any():
        c = code_cols[np.flatnonzero(bad)[0]]
        raise ValueError(f"discrete column {c} must hold integer codes 0..{n_values[c] - 1}")
    with np.errstate(over="ignore", invalid="ignore"):
        span = largest - smallest
    return n_values, np.where(discrete, 0.0, smallest), np.where(discrete, 1.0, span)


def _n_values(X, discrete, n_values):
    """The number of values of each discrete column (0 for numeric ones); raise ValueError
    where a discrete column holds something other than integer codes 0..V-1. Blocks of
    columns at a time: a wide table is not copied."""
    cols = np.flatnonzero(discrete)
    largest = np.full(cols.size, np.nan)
    if X.shape[0]:
        with _quiet_nan_warnings():
            at = 0
            for block in _column_blocks(X, cols):
                largest[at:at + block.size] = np.nanmax(X[:, block], axis=0)
                at += block.size
    if n_values is None:
        n_values = np.zeros(X.shape[1], dtype=np.intp)
        n_values[cols] = np.where(np.isnan(largest), 0, largest + 1)
    n_values = np.broadcast_to(np.asarray(n_values, dtype=np.intp), (X.shape[1],)).copy()
    n_values[~discrete] = 0
    for block in _column_blocks(X, cols):
        codes = X[:, block]
        with np.errstate(invalid="ignore"):
            bad = ~np.isnan(codes) & ((codes != np.round(codes)) | (codes < 0)
                                      | (codes >= n_values[block]))
        if bad.any():
            c = block[np.flatnonzero(bad.any(axis=0))[0]]
            raise ValueError(f"discrete column {c} must hold integer codes 0..{n_values[c] - 1}")
    return n_values


def _ranges(X, discrete):
    """Minimum and span (max - min) of each column; a span beyond the largest float (values of
    both signs near it) is inf, which :func:`unit_scales` handles."""
    with np.errstate(all="ignore"), _quiet_nan_warnings():
        minimum = np.nanmin(X, axis=0) if X.shape[0] else np.full(X.shape[1], np.nan)
        maximum = np.nanmax(X, axis=0) if X.shape[0] else np.full(X.shape[1], np.nan)
        span = maximum - minimum
    minimum = np.where(discrete, 0.0, minimum)
    span = np.where(discrete, 1.0, span)
    return minimum, span


def power_of_two_scale(magnitude):
    """2^-e with 2^(e-1) <= ``magnitude`` < 2^e (1 for 0 or NaN), e limited to ``|e| <= 1022`` so
    that the factor is a float: multiplying by it is exact and brings values of that magnitude
    into [0.5, 1) (subnormal ones at least to 2^-52)."""
    magnitude = np.nan_to_num(np.asarray(magnitude, dtype=float), nan=0.0, posinf=0.0)
    return np.ldexp(1.0, np.clip(-np.frexp(magnitude)[1], -1022, 1022))


def unit_scales(X, numeric, minimum, span):
    """``(scale, shift, inv_span)`` per column such that ``(X[:, t] * scale[t] - shift[t]) *
    inv_span[t]`` maps a numeric column's range onto [0, 1] and ``|x - x'| * scale * inv_span``
    is the diff of two of its values, with every step finite for any finite data.

    ``scale`` is 1 unless the span or its reciprocal is not a finite float (values of both signs
    near the largest float, or a subnormal span): then it is the power of two
    (:func:`power_of_two_scale`, exact) that brings the column's largest magnitude into [0.5, 1).
    Columns not ``numeric`` get (1, 0, 1); a constant numeric column gets inv_span 0."""
    numeric = np.asarray(numeric, dtype=bool)
    scale = np.ones(X.shape[1])
    shift = np.where(numeric, minimum, 0.0)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        inv_span = np.where(~numeric, 1.0, np.where(span > 0, 1.0 / span, 0.0))
        odd = np.flatnonzero(numeric & (span > 0) & ~(np.isfinite(span) & np.isfinite(inv_span)))
        for t in odd:
            scale[t] = power_of_two_scale(max(abs(minimum[t]), np.nanmax(np.abs(X[:, t]))))
            low, high = minimum[t] * scale[t], np.nanmax(X[:, t]) * scale[t]
            shift[t], inv_span[t] = low, 1.0 / (high - low)
    return scale, shift, inv_span


class _quiet_nan_warnings:
    """nanmin/nanmax of an all-NaN column warn; an all-missing column is legal input."""
    def __enter__(self):
        import warnings
        self._catch = warnings.catch_warnings()
        self._catch.__enter__()
        warnings.simplefilter("ignore", RuntimeWarning)

    def __exit__(self, *exc):
        self._catch.__exit__(*exc)


def as_covariates(values, n, discrete=False, names=None):
    """:class:`Covariates` of ``n`` instances from ``values`` (n, c), or (n,) for one;
    ``discrete`` a bool or a per-covariate mask (discrete covariates hold integer codes),
    ``names`` (default "covariate 1", ...). A :class:`Covariates` is checked and returned.
    Raises ``ValueError`` for a wrong number of rows, missing or non-finite values."""
    if isinstance(values, Covariates):
        discrete, names, values = values.discrete, values.names, values.values
    values = np.array(values, dtype=np.float64, copy=True)
    if values.ndim == 1:
        values = values[:, None]
    if values.ndim != 2:
        raise ValueError(f"covariates must be a 2-D array, got {values.ndim} dimension(s)")
    if values.shape[0] != n:
        raise ValueError(f"covariates have {values.shape[0]} rows for {n} instances")
    if np.isnan(values).any():
        raise ValueError("covariates have missing values: impute them or leave those "
                         "instances out")
    if np.isinf(values).any():
        raise ValueError("covariate values must be finite")
    c = values.shape[1]
    discrete = np.broadcast_to(np.asarray(discrete, dtype=bool), (c,)).copy()
    names = tuple(names) if names is not None else tuple(f"covariate {i + 1}"
                                                         for i in range(c))
    if len(names) != c:
        raise ValueError(f"{len(names)} names for {c} covariates")
    return Covariates(values=values, discrete=discrete, names=names)


def encode(X, y, discrete=False, n_values=None, n_classes=None, names=None, weights=None,
           covariates=None):
    """Build :class:`EncodedData` from numpy arrays.

    ``discrete`` is a bool or a per-column mask; discrete columns hold integer codes (NaN =
    missing) and ``n_values`` gives their number of values (default: largest code + 1).
    ``n_classes`` > 0 declares a classification target with codes 0..n_classes-1; ``None`` infers
    it (an integer-coded target with ``n_classes`` given, otherwise regression when 0).
    ``weights`` (n,) are instance weights: an instance of weight w counts as w instances (each
    estimator's documentation says how exactly); they must be finite and > 0 (leave out the
    instances of weight 0), all ones is the same as none. ``covariates`` (n, c) are variables
    to adjust for (a :class:`Covariates`, or an array of numeric ones: :func:`as_covariates`).
    Raises ``ValueError`` on non-finite attributes, a missing or non-finite target, codes out of
    range, bad weights, or a shape mismatch. A float64 ``X`` is not copied: do not change it while an
    estimator uses it. A ``scipy.sparse`` ``X`` is kept sparse (as CSR; see the module docstring);
    it must not hold missing values (NaN).

    Examples
    --------
    A discrete column with values 0, 1 and a numeric one, and two classes:

    >>> data = encode([[0, 1.5], [1, 0.5], [1, 2.5]], [0, 1, 1],
    ...               discrete=[True, False], n_classes=2)
    >>> data.n_values, data.minimum, data.span     # numeric diffs are relative to the span
    (array([2, 0]), array([0. , 0.5]), array([1., 2.]))
    """
    X = _as_sparse(X) if sp.issparse(X) else _as_matrix(X)
    y = np.array(y, dtype=np.float64, copy=True).ravel()
    if y.shape[0] != X.shape[0]:
        raise ValueError(f"target has {y.shape[0]} values for {X.shape[0]} instances")
    if np.isnan(y).any():
        raise ValueError("the target has missing values: remove those instances first")
    if np.isinf(y).any():
        raise ValueError("target values must be finite")
    discrete = np.broadcast_to(np.asarray(discrete, dtype=bool), (X.shape[1],)).copy()
    if sp.issparse(X):
        n_values, minimum, span = _sparse_columns(X, discrete, n_values)
    else:
        n_values = _n_values(X, discrete, n_values)
        minimum, span = _ranges(X, discrete)
    if n_classes is None:
        n_classes = 0
    if n_classes:
        if y.size and (np.any(y != np.round(y)) or y.min() < 0 or y.max() >= n_classes):
            raise ValueError(f"class codes must be integers 0..{n_classes - 1}")
        y_span = 1.0
    else:
        with np.errstate(over="ignore"):      # a range beyond the largest float is inf
            y_span = float(np.ptp(y)) if y.size else 0.0
    names = tuple(names) if names is not None else tuple(f"x{i}" for i in range(X.shape[1]))
    if len(names) != X.shape[1]:
        raise ValueError(f"{len(names)} names for {X.shape[1]} columns")
    return EncodedData(X=X, y=y, discrete=discrete, n_values=n_values, n_classes=int(n_classes),
                       minimum=minimum, span=span, names=names, y_span=y_span,
                       weights=_weights(weights, X.shape[0]),
                       covariates=None if covariates is None
                       else as_covariates(covariates, X.shape[0]))


#: the largest total and the smallest largest instance weight: counts of instances are
#: squared (impurity measures, Relief's normalisations), which must neither overflow nor vanish
WEIGHT_LIMIT = 2.0 ** 480


def _weights(weights, n):
    if weights is None:
        return None
    weights = np.array(weights, dtype=np.float64, copy=True).ravel()
    if weights.shape != (n,):
        raise ValueError(f"{weights.size} instance weights for {n} instances")
    if not np.all(np.isfinite(weights)):
        raise ValueError("instance weights must be finite")
    if np.any(weights <= 0):
        raise ValueError("instance weights must be > 0: leave out the instances of weight 0")
    if weights.sum() > WEIGHT_LIMIT or weights.max() < 1 / WEIGHT_LIMIT:
        raise ValueError(f"instance weights from {weights.min():.3g} to {weights.max():.3g} "
                         "are too extreme for the estimates (squared counts would overflow or "
                         "vanish): rescale them, e.g. divide them by their mean")
    return None if np.all(weights == 1) else weights
