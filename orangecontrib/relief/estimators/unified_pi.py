"""The unified framework Π of evaluation metrics (Vilalta et al. 2001, §4).

Feature X_k splits the examples T into subsets T_m, one per value V_m. Each T_m has a p x 4 count
matrix R_m (p = number of classes; row r = class r; columns = the four cases of Fig. 3a for an
ordered pair (X_i, X_j) with C(X_i) = r and x_k^i = V_m):

    case 1: x_k^j = V_m,  same class          case 2: x_k^j = V_m,  different class
    case 3: x_k^j != V_m, same class          case 4: x_k^j != V_m, different class

Algorithm 2 (Fig. 4) visits every ordered pair (i, j), i = j included, and adds

    z_{r,case} += theta_case * f_alpha(D(X_i, X_j))                            (eq. 10)

with D the distance of eq. 5 (sum of the eq. 6/7 diffs, :class:`~.diffs.DiffModel`) and

* ``f="exp2"``: f_alpha(x) = 1 / 2^(alpha x)                                   (eq. 11, §5 default)
* ``f="power"``: f_alpha(x) = 1 / x^alpha                                      (eq. 11). At x = 0
  it is undefined: we give such pairs weight 0 (as Contextual Merit does with its 0/0 pairs),
  except for alpha = 0, where f = 1 everywhere ("all examples are considered equally", §4);
* ``f="threshold"``: 1 if x < alpha, else 0                                    (Prop. 2, Relief)
* ``f="zero"``: 1 if x = 0, else 0 (alpha unused)                              (Prop. 1)

The matrix R of the whole T (eq. 12) is the count matrix of a feature with a single value: its
columns 3 and 4 are 0.

The score is M(X_k) = F(R, {R_m}) (eqs. 12-13):

* ``F="default"``: eqs. 14-15, ``sum_m |T_m|/|T| sum_r (R_m[r,1] + R_m[r,4] - R_m[r,2] - R_m[r,3])``;
* ``F="gini"``, ``F="infgain"``: Gini gain sum_m p_m sum_c p(c|m)^2 - sum_c p(c)^2 and
  information gain H(C) - sum_m p_m H(C|m) (bits, eqs. 1-3), computed from column 1 of the R_m
  taken as class counts. With Prop. 1's setting (theta = (1,0,0,0), f = "zero") and no two
  instances identical in all features, column 1 *is* the class counts per value, and these are
  the traditional metrics (duplicates are counted once per identical same-class instance, as
  Algorithm 2 prescribes). NaN when column 1 is empty.
* a callable ``F(R, Rm)`` with R of shape (p, 4) and Rm of shape (n_values, p, 4).

Numeric features are partitioned into ``bins`` equal-width intervals of their range (§5.1) for
the T_m; D still uses their numeric diffs. An instance whose value of X_k is missing is in no
T_m, and pairs with a missing value of X_k are not counted for X_k (they are neither "same value"
nor "different value"); ``|T|`` counts the instances with a known value. A feature with no known
value scores NaN.

Instance weights: an instance of weight w stands for w copies of it, so a pair (i, j) adds
w_i w_j f_alpha(D) (the pairs among the copies of one instance included, as Algorithm 2 visits
them) and ``|T_m|`` sums weights; integer weights give the counts of the data with each instance
repeated w times.

``sample=s`` fills the matrices from s instances drawn without replacement with
``random_state`` (§4, complexity O(n s^2)); the missing-value probabilities of the diffs then come
from the sample too, the numeric ranges from the whole data.

Speed: with Z the one-hot encoding of (value, class) of every feature, the pair weights
W = f_alpha(D) give all the counts at once: P_k = Z_k^T W Z_k is the (value, class) x
(value, class) matrix of summed weights, and R_m follows from P_k by sums over its diagonals.
W is never materialised whole: a block of rows of W (sized to a memory budget) is multiplied
by Z, so the O(n t^2) work is matrix products, with no Python loop over pairs. Z is a dense
matrix (BLAS) while it is small and a sparse one (one non-zero per instance and feature, so its
size does not grow with the numbers of values and classes) beyond ``DENSE_ONE_HOT_BYTES``.
"""
from dataclasses import dataclass

import numpy as np
from scipy import sparse

from . import impurity
from .base import check_data, check_memory, random_generator, row_blocks
from .contextual_merit import PairwiseClassEstimator
from .description import Param
from .parameters import PAIRWISE_DIFF_PARAMETERS, RANDOM_STATE
from .neighbourhood.diffs import DiffModel
from .encoding import EncodedData, unit_scales

__all__ = ["UnifiedPi", "PiContext", "value_codes", "distance_weights",
           "gini_gain", "information_gain", "F_FUNCTIONS", "WEIGHT_FUNCTIONS"]

WEIGHT_FUNCTIONS = ("exp2", "power", "threshold", "zero")
#: the one-hot matrix Z is dense (BLAS products) up to this size, sparse (CSR) beyond
DENSE_ONE_HOT_BYTES = 256 * 2 ** 20


def distance_weights(distances, f="exp2", alpha=0.1):
    """f_alpha of the distances (eq. 11, Prop. 1 and 2); see the module docstring. The result
    may be written into ``distances`` (pass a copy if it is needed afterwards)."""
    x = distances
    if f == "exp2":
        x *= -alpha * np.log(2.0)
        return np.exp(x, out=x)
    if f == "power":
        if alpha == 0:
            x[...] = 1.0
            return x
        zero = x == 0
        with np.errstate(divide="ignore", over="ignore"):     # overflow: refused by the caller
            np.power(x, -float(alpha), out=x)
        x[zero] = 0.0
        return x
    if f == "threshold":
        return (x < alpha).astype(x.dtype)
    return (x == 0).astype(x.dtype)


def gini_gain(R, Rm):
    """Gini gain (eqs. 1 and 3) of column 1 of the R_m taken as class counts per value."""
    return float(impurity.gini_gain(Rm[:, :, 0]))


def information_gain(R, Rm):
    """Information gain in bits (eqs. 1-2) of column 1 of the R_m taken as class counts."""
    return float(impurity.information_gain(Rm[:, :, 0]))


F_FUNCTIONS = {"gini": gini_gain, "infgain": information_gain}


def value_codes(data, bins):
    """The value partition of §5.1: (codes, n_values). Discrete columns keep their codes;
    numeric ones get the index of their equal-width interval of [min, max] (``bins``
    intervals, the maximum in the last); -1 = missing."""
    X = data.X
    scale, shift, inv_span = unit_scales(X, ~data.discrete, data.minimum, data.span)
    with np.errstate(invalid="ignore"):
        numeric = np.clip(np.floor((X * scale - shift) * inv_span * bins), 0, bins - 1)
    codes = np.where(data.discrete, X, numeric)
    codes = np.where(np.isnan(X), -1, codes).astype(np.intp)
    n_values = np.where(data.discrete, np.maximum(data.n_values, 1), bins).astype(np.intp)
    return codes, n_values


@dataclass(eq=False)
class PiContext:
    """The instances the counts were filled from and the counts of the data's own features.

    data: the (sampled) instances S; rows: their indices in the input data; diff_model: the
    diff model of ``data`` (distances D); case_counts: per feature an array (n_values, p, 4),
    the R_m of eq. 10; total: R, the (p, 4) matrix of the whole T; sizes: per feature ``|T_m|``;
    n_input: the number of instances of the input data.
    """
    data: EncodedData
    rows: np.ndarray
    diff_model: DiffModel
    case_counts: list
    total: np.ndarray
    sizes: list
    n_input: int


def threshold_rule(estimator):
    """α must be > 0 for the threshold function (a message, or None)."""
    if estimator.f == "threshold" and estimator.alpha == 0:
        return f"alpha must be a finite number > 0 for f='threshold', got {estimator.alpha!r}"
    return None


class UnifiedPi(PairwiseClassEstimator):
    """The Π framework (F, theta, alpha, f_alpha) of eq. 13; see the module docstring.

    theta: the four case weights, each in [0, 1]. f: "exp2", "power", "threshold", "zero".
    alpha: >= 0 (> 0 for "threshold"). F: "default", "gini", "infgain" or a callable F(R, Rm).
    bins: equal-width intervals of a numeric feature's value partition (integer >= 2).
    sample: None (all instances) or the sample size s (integer >= 2; all if s >= #instances),
    drawn with ``random_state``. numeric_diff, t_equal, t_different, missing: the diffs.
    """
    name = "Unified Π"
    short_name = "Unif. Π"
    paper = "Vilalta, Blix & Rendell 2001 (the framework Π, eqs. 10-15)"
    samples_instances = True
    counts_cases = True
    parameters = (
        Param("theta", "floats", (1, 1, 1, 1), "Case weights", low=0.0, high=1.0, size=4,
              step=0.1, decimals=2,
              tooltip="Weights θ1…θ4 of the four cases of a pair of examples in the counts "
                      "{R_m} (Vilalta et al. 2001, eq. 10): same value and class, same value "
                      "and different class, different value and same class, different value "
                      "and class."),
        Param("f", "choice", "exp2", "Closeness weight",
              choices=(("exp2", "halving with distance"), ("power", "inverse power"),
                       ("threshold", "closer than α"), ("zero", "identical only")),
              tooltip="Locality function f_α of the distance x of two examples (eq. 11), the "
                      "weight of the pair in the case counts: 1/2^(α·x), 1/x^α, 1 if x < α "
                      "(Π Relief, Prop. 2) or 1 if x = 0 (a myopic impurity measure, "
                      "Prop. 1)."),
        Param("alpha", "float", 0.1, "Locality α", low=0.0, maximum=100.0, step=0.1,
              applies=lambda values: values.get("f") != "zero",
              tooltip="α of the locality function f_α (eq. 11): how fast the weight of a pair "
                      "of examples falls with their distance; for 'closer than α' the largest "
                      "distance counted."),
        Param("F", "choice", "default", "Merit from counts",
              choices=(("default", "case balance"), ("infgain", "information gain"),
                       ("gini", "Gini gain")), callable="a callable F(R, Rm)",
              tooltip="The function that turns the case counts {R_m} into the attribute's "
                      "merit (eqs. 12–13): the balance of the cases (eqs. 14–15), "
                      "information gain or Gini gain."),
        Param("bins", "int", 10, "Numeric intervals", low=2, maximum=100, advanced=True,
              tooltip="Numeric attributes are split into this many equal-width intervals, "
                      "which are their values in the case counts (§5.1)."),
        Param("sample", "int", None, "Sample size", low=2, maximum=1000000,
              none="all instances",
              tooltip="s examples drawn at random fill the case counts (every pair of them); "
                      "'all instances' uses all pairs."),
        RANDOM_STATE) + PAIRWISE_DIFF_PARAMETERS
    rules = PairwiseClassEstimator.rules + (threshold_rule,)

    def __init__(self, theta=(1, 1, 1, 1), f="exp2", alpha=0.1, F="default", bins=10,
                 sample=None, random_state=None, numeric_diff="linear", t_equal=0.04,
                 t_different=0.1, missing="D"):
        self.theta = theta
        self.f = f
        self.alpha = alpha
        self.F = F
        self.bins = bins
        self.sample = sample
        self.random_state = random_state
        self.numeric_diff = numeric_diff
        self.t_equal = t_equal
        self.t_different = t_different
        self.missing = missing

    def case_weights(self):
        """The four case weights as floats (after :meth:`check_parameters`)."""
        self.check_parameters()
        return np.asarray(self.theta, dtype=float)

    def context(self, data, callback=None):
        """Fill the count matrices of every feature (the O(n t^2) part)."""
        check_data(data, self)
        theta = self.case_weights()
        n = data.n_instances
        if self.sample is None or self.sample >= n:
            rows = np.arange(n)
        else:
            rows = np.sort(random_generator(self.random_state).choice(n, self.sample,
                                                                      replace=False))
        sampled = data.subset(rows)
        model = DiffModel(sampled, self.diff_options())
        counts, total, sizes = self._fill(model, sampled, theta, callback)
        return PiContext(sampled, rows, model, counts, total, sizes, n)

    def case_counts(self, data, callback=None):
        """The count matrices {R_m} of every feature: a list of arrays (n_values, p, 4)."""
        return self.context(data, callback).case_counts

    def estimate(self, context, columns=None):
        """M(X_k) = F(R, {R_m}) for every feature of ``columns`` (an EncodedData over the
        instances the context was built from; default: the context's own features). Distances
        D stay those of the context's data."""
        if columns is None:
            counts, total, sizes = context.case_counts, context.total, context.sizes
            columns = context.data
        else:
            if columns.n_instances != context.n_input:
                raise ValueError(f"columns have {columns.n_instances} instances, the data the "
                                 f"context was built from {context.n_input}")
            columns = columns.subset(context.rows)
            counts, total, sizes = self._fill(context.diff_model, columns,
                                              self.case_weights())
        scores = np.array([self._score(total, Rm, size) for Rm, size in zip(counts, sizes)])
        scores[np.isnan(columns.X).all(axis=0)] = np.nan
        return scores

    def _score(self, R, Rm, sizes):
        if self.F == "default":            # eqs. 14-15
            known = sizes.sum()
            if known == 0:
                return np.nan
            g = Rm[:, :, 0] + Rm[:, :, 3] - Rm[:, :, 1] - Rm[:, :, 2]
            return float((sizes / known) @ g.sum(axis=1))
        F = F_FUNCTIONS[self.F] if isinstance(self.F, str) else self.F
        return float(F(R.copy(), Rm.copy()))

    def _fill(self, model, columns, theta, callback=None):
        """Algorithm 2 for all features of ``columns`` at once, distances from ``model``.
        Returns the R_m of each feature, R, and |T_m| of each feature."""
        n = columns.n_instances
        p = columns.n_classes
        cls = columns.y.astype(np.intp)
        tick = (lambda: None) if callback is None else (lambda: callback(0.0))
        codes, n_values = value_codes(columns, self.bins)
        tick()                 # cancel points between the set-up steps of large data too
        # the whole T as one more feature with a single value: its R_m is R
        codes = np.column_stack([codes, np.zeros(n, np.intp)])
        n_values = np.append(n_values, 1)
        widths = n_values * p
        offsets = np.concatenate([[0], np.cumsum(widths)])
        known = codes >= 0
        # cell[i, k]: the (value, class) cell of instance i for feature k, -1 if missing
        cell = np.where(known, codes * p + cls[:, None], -1)
        r, k = np.nonzero(known)
        w_inst = columns.instance_weights      # an instance of weight w stands for w copies
        Z = sparse.csr_matrix((w_inst[r], (r, offsets[k] + cell[r, k])),
                              shape=(n, offsets[-1]))
        tick()
        if n * offsets[-1] * 8 <= DENSE_ONE_HOT_BYTES:
            Z = Z.toarray()        # BLAS is faster while the dense one-hot matrix is small
        tick()
        check_memory(8 * (int(np.sum(widths.astype(float) ** 2)) + n * offsets[-1] * (
            1 if sparse.issparse(Z) else 0)), f"the pair counts of {widths.size - 1} features "
                     f"(up to {n_values.max()} values x {p} classes each)",
                     "merge rare values or use fewer bins")
        pair_sums = [np.zeros((w, w)) for w in widths]
        blocks = row_blocks(n, 8 * (2 * n + offsets[-1]))
        for b, sl in enumerate(blocks):
            W = distance_weights(model.distances(np.arange(sl.start, sl.stop)), self.f,
                                 self.alpha)
            with np.errstate(invalid="ignore", over="ignore"):
                G = np.asarray(W @ Z)
            del W
            for k, (P, w) in enumerate(zip(pair_sums, widths)):
                one_hot = (cell[sl, k, None] == np.arange(w)) * w_inst[sl, None]
                P += one_hot.T @ G[:, offsets[k]:offsets[k + 1]]
            if callback is not None:
                callback((b + 1) / len(blocks))
        if not all(np.isfinite(P).all() for P in pair_sums):
            raise ValueError(f"{self.name}: the weights f_alpha(D) exceed the largest float "
                             f"(f={self.f!r}, alpha={self.alpha!r}); choose a smaller alpha")
        counts = [_cases(P.reshape(v, p, v, p)) * theta for P, v in zip(pair_sums, n_values)]
        sizes = [np.bincount(codes[known[:, k], k], weights=w_inst[known[:, k]], minlength=v)
                 for k, v in enumerate(n_values[:-1])]
        return counts[:-1], counts[-1][0], sizes


def _cases(P):
    """R_m (unweighted) from P[m, r, v, c] = summed f(D) over pairs with x^i = m, class r,
    x^j = v, class c: the four cases of Fig. 3a as columns."""
    same_value = np.einsum("mrmc->mrc", P)            # x^j = V_m
    same_class = np.einsum("mrvr->mrv", P)            # C(X_j) = r
    case1 = np.einsum("mrr->mr", same_value)
    value_total = same_value.sum(axis=2)
    class_total = same_class.sum(axis=2)
    case4 = P.sum(axis=(2, 3)) - value_total - class_total + case1
    return np.stack([case1, value_total - case1, class_total - case1, case4], axis=2)
