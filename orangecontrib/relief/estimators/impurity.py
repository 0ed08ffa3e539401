"""Impurity ("myopic") attribute measures, computed as CORElearn's ``attrEval`` (the R package by
the ReliefF/RReliefF authors) computes them.

* A **discrete** attribute is used as it is, multi-valued (classification); for regression (MSE)
  through its best binary partition, found by sorting its values by mean target.
* A **numeric** attribute gets the value of its best binary split, and the split is chosen by the
  measure itself (candidate thresholds: midpoints between consecutive distinct known values leaving
  at least ``min_lower`` instances below and ``min_upper`` above; :mod:`.splits`).
* Instances with a missing value of the attribute are left out; the class priors come from the
  instances with a known value.
* Instance weights (``EncodedData.weights``) weight every count: an instance of weight w counts
  as w instances in the tables and in the side minima of a split, so integer weights give the
  estimates of the data with each instance repeated w times.
* A column with no known value gets NaN. A column with a single known value, or a numeric column
  without an admissible threshold, gets the measure's value for a single-valued attribute (0 for the
  classification gains, −variance for MSE; for GainRatio see ``unused_value_rule``).

Every measure is one small function of a contingency table ``n[..., v, c]`` (values × classes,
vectorised over leading axes: a multi-valued attribute's table, or a batch of binary-split tables);
one shared function (:func:`.splits.value_table`, one ``bincount``) builds the tables. Notation:
n_v = Σ_c n_vc, n_c = Σ_v n_vc, n = Σ_v n_v, p(v) = n_v/n, p(c) = n_c/n, p(c|v) = n_vc/n_v,
H(p) = −Σ p log₂ p (bits), 0·log 0 = 0.
"""
from dataclasses import replace

import numpy as np
from scipy.special import gammaln, xlogy

from .base import Estimator
from .description import Param
from .encoding import power_of_two_scale
from .splits import best_partition, best_threshold, target_statistics, value_table

__all__ = ["information_gain", "gain_ratio", "gini_gain", "accuracy_gain", "mdl_gain",
           "myopic_relieff", "mse_of_mean", "dkm", "dkm_gain", "cost_weighted", "dkm_cost_gain",
           "cost_gain_ratio",
           "ImpurityEstimator", "InfGain", "GainRatio", "Gini", "MDL", "Accuracy", "MSE",
           "MyopicReliefF", "DKM", "DKMcost", "GainRatioCost"]


def _ratio(a, b):
    """a / b, 0 where b == 0."""
    a, b = np.broadcast_arrays(np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64))
    return np.divide(a, b, out=np.zeros(a.shape), where=b != 0)


def _margins(table):
    """(n_v, n_c, n) of tables (..., V, C)."""
    table = np.asarray(table, dtype=np.float64)
    return table.sum(axis=-1), table.sum(axis=-2), table.sum(axis=(-2, -1))


def _xlog2x(a):
    """a·log₂ a, 0 for a = 0."""
    return xlogy(a, a) / np.log(2)


def _entropy(counts):
    """H in bits of the distributions given by counts m_i along the last axis:
    (m log₂ m − Σ_i m_i log₂ m_i) / m with m = Σ_i m_i; 0 for empty."""
    m = counts.sum(axis=-1)
    return _ratio(_xlog2x(m) - _xlog2x(counts).sum(axis=-1), m)


def _nan_where_empty(score, n):
    return np.where(n > 0, score, np.nan)


def information_gain(table):
    """InfGain = H(C) − Σ_v p(v) H(C|v) in bits (Kononenko 1994, eq. 1), computed as
    (n log₂ n − Σ_c n_c log₂ n_c − Σ_v n_v log₂ n_v + Σ_vc n_vc log₂ n_vc) / n."""
    table = np.asarray(table, dtype=np.float64)
    n_v, n_c, n = _margins(table)
    saved = (_xlog2x(n) - _xlog2x(n_c).sum(axis=-1) - _xlog2x(n_v).sum(axis=-1)
             + _xlog2x(table).sum(axis=(-2, -1)))
    return _nan_where_empty(_ratio(saved, n), n)


def gain_ratio(table, unused_value_rule="ignore"):
    """GainRatio = InfGain / H(A), H(A) = −Σ_v p(v) log₂ p(v) (Quinlan 1986).

    ``unused_value_rule="ignore"`` (default, the definition): values that never occur contribute
    nothing (0·log 0 = 0) and a single-valued attribute (H(A) = 0, gain 0) scores 0.
    ``"minus_one"`` (CORElearn): −1 when a declared value never occurs or H(A) = 0."""
    table = np.asarray(table, dtype=np.float64)
    return _per_attribute_entropy(information_gain(table), table, unused_value_rule)


def _per_attribute_entropy(gain, table, unused_value_rule):
    """``gain`` / H(A) of tables (..., V, C) under ``unused_value_rule`` (see :func:`gain_ratio`);
    NaN for an empty table."""
    n_v, _, n = _margins(table)
    h_attribute = _entropy(n_v)
    ratio = _ratio(gain, h_attribute)
    if unused_value_rule == "minus_one":
        ratio = np.where(np.any(n_v == 0, axis=-1) | (h_attribute <= 0), -1.0, ratio)
    return _nan_where_empty(ratio, n)


def gini_gain(table):
    """Gini gain = Σ_v p(v) Σ_c p(c|v)² − Σ_c p(c)² (Breiman et al. 1984; as CORElearn)."""
    table = np.asarray(table, dtype=np.float64)
    n_v, n_c, n = _margins(table)
    after = np.sum(_ratio(np.sum(table ** 2, axis=-1), n_v), axis=-1)
    gain = _ratio(after, n) - _ratio(np.sum(n_c ** 2, axis=-1), n ** 2)
    return _nan_where_empty(gain, n)


def accuracy_gain(table):
    """Accuracy = Σ_v p(v) max_c p(c|v) − max_c p(c).

    Eq. 16 of Robnik-Šikonja & Kononenko 1999 is the first term; like CORElearn we
    subtract the majority-class prior, which leaves rankings within a node as they
    are and makes a useless attribute score 0. Computed term by term as written (CORElearn's
    arithmetic), so that among splits of equal accuracy the rounding picks the same one as
    CORElearn does."""
    table = np.asarray(table, dtype=np.float64)
    n_v, n_c, n = _margins(table)
    after = np.sum(_ratio(n_v, n[..., None]) * _ratio(table.max(axis=-1), n_v), axis=-1)
    gain = after - _ratio(n_c.max(axis=-1), n)
    return _nan_where_empty(gain, n)


def _code_length(counts, n_classes):
    """log₂(m! / Π_c m_c!) + log₂ C(m + C − 1, C − 1) for counts m_c along the last axis
    (m = Σ_c m_c): the bits to encode which of the m instances has which class, plus the bits to
    encode the class distribution (Kononenko 1995)."""
    m = counts.sum(axis=-1)
    multinomial = gammaln(m + 1) - np.sum(gammaln(counts + 1), axis=-1)
    distribution = gammaln(m + n_classes) - gammaln(n_classes) - gammaln(m + 1)
    return (multinomial + distribution) / np.log(2)


def mdl_gain(table):
    """MDL (Kononenko 1995, as CORElearn computes it), with C classes::

        L(m_1..m_C) = log₂( m! / (m_1!·…·m_C!) ) + log₂ C(m + C − 1, C − 1),   m = Σ_c m_c
        MDL(A)      = ( L(n_1..n_C) − Σ_v L(n_v1..n_vC) ) / n

    the code length of the classes before minus after knowing the value, per instance."""
    table = np.asarray(table, dtype=np.float64)
    _, n_c, n = _margins(table)
    n_classes = table.shape[-1]
    saved = _code_length(n_c, n_classes) - np.sum(_code_length(table, n_classes), axis=-1)
    return _nan_where_empty(_ratio(saved, n), n)


def myopic_relieff(table):
    """Myopic ReliefF, eq. 5 of Robnik-Šikonja & Kononenko 1999::

        W'(A)  = P_equal · Gini'(A) / (P_samecl · (1 − P_samecl))
        Gini'  = Σ_v (p(v)² / Σ_v p(v)²) Σ_c p(c|v)² − Σ_c p(c)²          (eq. 6)

    with P_equal = Σ_v p(v)² and P_samecl = Σ_c p(c)². Since p(v)² p(c|v)² = (n_vc/n)², this is
    (Σ_vc (n_vc/n)² − P_equal·P_samecl) / (P_samecl (1 − P_samecl)). 0 when the known-value
    instances are of one class (P_samecl = 1: every pair has the same class)."""
    table = np.asarray(table, dtype=np.float64)
    n_v, n_c, n = _margins(table)
    n2 = n ** 2
    p_equal = _ratio(np.sum(n_v ** 2, axis=-1), n2)
    p_samecl = _ratio(np.sum(n_c ** 2, axis=-1), n2)
    joint = _ratio(np.sum(table ** 2, axis=(-2, -1)), n2)
    w = _ratio(joint - p_equal * p_samecl, p_samecl * (1 - p_samecl))
    return _nan_where_empty(w, n)


def dkm(p):
    """DKM impurity 2·sqrt(q (1 − q)) of class distributions p along the last axis, q = max_c p_c
    (Dietterich, Kearns & Mansour 1996, "Applying the weak learning framework to understand and
    improve C4.5"; for two classes 2·sqrt(p_1 p_2))."""
    q = np.max(p, axis=-1)
    return 2.0 * np.sqrt(q * (1.0 - q))


def dkm_gain(table):
    """DKM gain = D(p(C)) − Σ_v p(v) D(p(C|v)), D = :func:`dkm` (Dietterich, Kearns & Mansour
    1996; CORElearn's DKM)."""
    table = np.asarray(table, dtype=np.float64)
    n_v, n_c, n = _margins(table)
    prior = dkm(_ratio(n_c, n[..., None]))
    after = np.sum(_ratio(n_v, n[..., None]) * dkm(_ratio(table, n_v[..., None])), axis=-1)
    return _nan_where_empty(prior - after, n)


def cost_weighted(counts, costs):
    """Class distributions (along the last axis of ``counts``) weighted by the expected cost of
    misclassifying each class (Robnik-Šikonja 2003, "Experiments with cost-sensitive feature
    evaluation"; CORElearn 1.57, estimators DKMcost and GainRatioCost)::

        e_c  = Σ_{d≠c} p_d costs[c, d] / (1 − p_c)     (0 for p_c = 1)
        p'_c = p_c e_c / Σ_d p_d e_d

    ``costs[c, d]`` is the cost of predicting class d for an instance of class c. Under uniform
    costs (1 − identity) p' = p, except that a pure distribution (Σ_d p_d e_d = 0) has no
    weighted counterpart: NaN (CORElearn's arithmetic)."""
    counts = np.asarray(counts, dtype=np.float64)
    p = _ratio(counts, counts.sum(axis=-1, keepdims=True))
    off_diagonal = np.asarray(costs, dtype=np.float64) * (1.0 - np.eye(counts.shape[-1]))
    expected = _ratio(p @ off_diagonal.T, 1.0 - p)
    weighted = p * expected
    with np.errstate(invalid="ignore", divide="ignore"):
        return weighted / weighted.sum(axis=-1, keepdims=True)


def _uniform_costs(table):
    n_classes = np.shape(table)[-1]
    return 1.0 - np.eye(n_classes)


def dkm_cost_gain(table, costs=None):
    """DKM gain (:func:`dkm_gain`) of the cost-weighted class distributions
    (:func:`cost_weighted`; ``costs`` default uniform). As in CORElearn, a split with a pure
    branch, whose weighted distribution is undefined, scores NaN (is never chosen)."""
    table = np.asarray(table, dtype=np.float64)
    costs = _uniform_costs(table) if costs is None else costs
    n_v, n_c, n = _margins(table)
    prior = dkm(cost_weighted(n_c, costs))
    branch = np.where(n_v > 0, dkm(cost_weighted(table, costs)), 0.0)
    with np.errstate(invalid="ignore"):
        gain = prior - np.sum(_ratio(n_v, n[..., None]) * branch, axis=-1)
    return _nan_where_empty(gain, n)


def _entropy_of(p):
    """H in bits of distributions p along the last axis; undefined (NaN) entries count 0."""
    p = np.where(np.isnan(p), 0.0, p)
    return -_xlog2x(p).sum(axis=-1)


def cost_gain_ratio(table, costs=None, unused_value_rule="minus_one"):
    """Gain ratio (:func:`gain_ratio`) with the class entropies taken of the cost-weighted
    distributions (:func:`cost_weighted`; ``costs`` default uniform): CORElearn's GainRatioCost.
    A pure branch has entropy 0."""
    table = np.asarray(table, dtype=np.float64)
    costs = _uniform_costs(table) if costs is None else costs
    n_v, n_c, n = _margins(table)
    prior = _entropy_of(cost_weighted(n_c, costs))
    after = np.sum(_ratio(n_v, n[..., None]) * _entropy_of(cost_weighted(table, costs)), axis=-1)
    return _per_attribute_entropy(prior - after, table, unused_value_rule)


def mse_of_mean(table):
    """MSEofMean = −Σ_b p_b · R_b, eq. 17 of Robnik-Šikonja & Kononenko 1999 with the
    mean as predictor: R_b = (1/w_b) Σ_{i∈b} w_i (y_i − ȳ_b)², p_b = w_b / w (CORElearn's
    MSEofMean, negated so that higher = better).

    ``table`` holds regression moments ``[w, Σ w·y', Σ w·y'²]`` per branch (y' the centred target,
    :func:`.splits.target_statistics`), shape (..., B, 3); w·R_b = Σ w y'² − (Σ w y')² / w."""
    table = np.asarray(table, dtype=np.float64)
    w_b, s_b, q_b = table[..., 0], table[..., 1], table[..., 2]
    w = w_b.sum(axis=-1)
    within = np.maximum(q_b - _ratio(s_b ** 2, w_b), 0.0)
    return _nan_where_empty(-_ratio(within.sum(axis=-1), w), w)


MIN_LOWER = Param(
    "min_lower", "int", 2, "Fewest below a split", low=1, maximum=10000, advanced=True,
    tooltip="The fewest instances with a known value a numeric attribute's binary split must "
            "leave at or below its threshold (CORElearn: 2).")
MIN_UPPER = Param(
    "min_upper", "int", 3, "Fewest above a split", low=1, maximum=10000, advanced=True,
    tooltip="The fewest instances with a known value a numeric attribute's binary split must "
            "leave above its threshold (CORElearn: 3).")


class ImpurityEstimator(Estimator):
    """An impurity measure as an :class:`.base.Estimator` (see the module docstring).

    ``min_lower`` / ``min_upper``: the fewest known instances a numeric attribute's split must
    leave at or below / above its threshold (CORElearn: 2 and 3)."""
    tasks = frozenset({"classification"})
    parameters = (MIN_LOWER, MIN_UPPER)
    #: discrete attributes are scored multi-valued (True) or by their best binary partition
    multivalued = True

    def __init__(self, min_lower=2, min_upper=3):
        self.min_lower = min_lower
        self.min_upper = min_upper

    def criterion(self, table):
        """The measure's score of contingency tables (..., V, K); higher = better."""
        raise NotImplementedError

    def context(self, data, callback=None):
        self.check_parameters()
        return super().context(data, callback)

    def __call__(self, data, callback=None):
        return self.estimate(self.context(data), callback=callback)

    def estimate(self, context, columns=None, callback=None):
        """The measure of every column of ``columns`` (default: the context's attributes) for the
        target of ``context``; NaN for a column without known values. ``callback(fraction)`` is
        called after each column; an exception raised from it cancels."""
        self.check_parameters()
        columns = context if columns is None else columns
        if columns.n_instances != context.n_instances:
            raise ValueError(f"columns have {columns.n_instances} instances, "
                             f"the context {context.n_instances}")
        # a regression target is measured in units of a power of two near its magnitude (an
        # exact change of unit), so that its squares neither overflow nor underflow
        scale = 1.0 if context.is_classification else power_of_two_scale(np.max(np.abs(
            context.y)))
        stats = target_statistics(context.y * scale, context.n_classes, context.weights)
        scores = np.empty(columns.n_attributes)
        for j in range(columns.n_attributes):
            scores[j] = self.estimate_column(columns.X[:, j], columns.discrete[j],
                                             columns.n_values[j], stats, context.weights)
            if callback is not None:
                callback((j + 1) / columns.n_attributes)
        with np.errstate(over="ignore"):
            scores = np.ldexp(scores, -self.target_unit_power * (np.frexp(scale)[1] - 1))
        if np.isinf(scores).any():
            raise ValueError(f"{self.name}: the estimates exceed the largest float; the "
                             f"target's range ({context.y_span:.3g}) is too large, rescale it")
        return scores

    def estimate_column(self, column, discrete, n_values, stats, weights=None):
        """The measure of one column given per-instance target ``stats``
        (:func:`.splits.target_statistics`, weighted by the instance ``weights``, which also
        count the instances a split must leave on each side)."""
        known = ~np.isnan(column)
        if not known.any():
            return np.nan
        if discrete and self.multivalued:
            return float(self.criterion(value_table(column, stats, n_values)))
        split = self.best_split(column, discrete, n_values, stats, weights)
        if split is None:
            return float(self.criterion(stats[known].sum(axis=0)[None, :]))
        return split.score

    def best_split(self, column, discrete, n_values, stats, weights=None):
        """The best binary split of a column by this measure (a :class:`.splits.Split`), or
        ``None`` when there is none: a numeric column at the best threshold, a discrete one by the
        best partition of its values (exhaustive up to 7 values, greedy beyond; for regression by
        sorting the values by mean target)."""
        if discrete:
            return best_partition(column, stats, self.criterion, n_values,
                                  sorted_by_mean=not self.is_classifier, weights=weights)
        return best_threshold(column, stats, self.criterion, self.min_lower, self.min_upper,
                              weights)

    @property
    def is_classifier(self):
        return "classification" in self.tasks


class InfGain(ImpurityEstimator):
    """Information gain in bits (Kononenko 1994, eq. 1): :func:`information_gain`."""
    name = "InfGain"
    paper = "Kononenko 1994, eq. 1 (as CORElearn's InfGain)"

    def criterion(self, table):
        return information_gain(table)


class GainRatio(ImpurityEstimator):
    """Gain ratio, InfGain / H(A): :func:`gain_ratio`.

    ``unused_value_rule``: "ignore" (default; the definition, 0·log 0 = 0, a single-valued
    attribute scores 0) or "minus_one" (CORElearn: −1 when a declared value of a discrete attribute
    never occurs among the known values, or H(A) = 0)."""
    name = "GainRatio"
    short_name = "Gain r."
    paper = "Quinlan 1986 (as CORElearn's GainRatio)"
    parameters = ImpurityEstimator.parameters + (Param(
        "unused_value_rule", "choice", "ignore", "Unused values", advanced=True,
        choices=(("ignore", "ignored"), ("minus_one", "score −1")),
        tooltip="A declared value of a discrete attribute that never occurs: ignored (the "
                "definition), or the attribute scores −1 (CORElearn), as it does when its "
                "entropy H(A) is 0."),)

    def __init__(self, min_lower=2, min_upper=3, unused_value_rule="ignore"):
        super().__init__(min_lower, min_upper)
        self.unused_value_rule = unused_value_rule

    def criterion(self, table):
        return gain_ratio(table, self.unused_value_rule)


class Gini(ImpurityEstimator):
    """Gini-index gain: :func:`gini_gain`."""
    name = "Gini"
    display_name = "Gini gain"
    short_name = "Gini g."
    paper = "Breiman et al. 1984 (Gini index; as CORElearn's Gini)"

    def criterion(self, table):
        return gini_gain(table)


class MDL(ImpurityEstimator):
    """Kononenko's (1995) MDL measure: :func:`mdl_gain`."""
    name = "MDL"
    paper = "Kononenko 1995, IJCAI (MDL)"

    def criterion(self, table):
        return mdl_gain(table)


class Accuracy(ImpurityEstimator):
    """Accuracy gain (eq. 16 minus the majority prior): :func:`accuracy_gain`."""
    name = "Accuracy"
    short_name = "Accur."
    paper = "Robnik-Šikonja & Kononenko 1999, eq. 16"

    def criterion(self, table):
        return accuracy_gain(table)


class MyopicReliefF(ImpurityEstimator):
    """Myopic ReliefF (eq. 5 with Gini' of eq. 6): :func:`myopic_relieff`; numeric attributes
    binarised at their best split (by eq. 5 itself) first."""
    name = "MyopicReliefF"
    short_name = "Myopic"
    paper = "Robnik-Šikonja & Kononenko 1999, eqs. 5-6"

    def criterion(self, table):
        return myopic_relieff(table)


class MSE(ImpurityEstimator):
    """MSEofMean (eq. 17, mean predictor, negated): :func:`mse_of_mean`; regression only.

    Discrete attributes by their best binary partition (values sorted by mean target), numeric ones
    at their best threshold. The defaults ``min_lower=1, min_upper=1`` admit every threshold, as
    eq. 17 (the minimum over all splits) and CORElearn's MSEofMean do."""
    name = "MSE"
    paper = "Robnik-Šikonja & Kononenko 1999, eq. 17 (CORElearn's MSEofMean)"
    tasks = frozenset({"regression"})
    parameters = (replace(MIN_LOWER, default=1), replace(MIN_UPPER, default=1))
    target_unit_power = 2
    multivalued = False

    def __init__(self, min_lower=1, min_upper=1):
        super().__init__(min_lower, min_upper)

    def criterion(self, table):
        return mse_of_mean(table)


class DKM(ImpurityEstimator):
    """DKM gain (Dietterich, Kearns & Mansour 1996): :func:`dkm_gain`."""
    name = "DKM"
    criterion = staticmethod(dkm_gain)


class _CostSensitive(ImpurityEstimator):
    """An impurity measure of cost-weighted class distributions (:func:`cost_weighted`).

    ``costs``: a C × C matrix, ``costs[c, d]`` the cost of predicting class d for an instance
    of class c (the diagonal is not used); None = uniform costs (1 − identity), under which
    CORElearn's numbers are reproduced."""

    def __init__(self, min_lower=2, min_upper=3, costs=None):
        super().__init__(min_lower, min_upper)
        self.costs = costs

    def context(self, data, callback=None):
        data = super().context(data, callback)
        if self.costs is not None:
            costs = np.asarray(self.costs, dtype=np.float64)
            shape = (data.n_classes, data.n_classes)
            if costs.shape != shape or not np.all(np.isfinite(costs)) or np.any(costs < 0):
                raise ValueError(f"costs must be a {shape[0]} x {shape[1]} matrix (one row and "
                                 f"column per class) of finite non-negative numbers, got "
                                 f"{self.costs!r}")
        return data

    def cost_matrix(self, table):
        return _uniform_costs(table) if self.costs is None else self.costs


class DKMcost(_CostSensitive):
    """DKM gain of the class distributions weighted by the expected misclassification cost:
    :func:`dkm_cost_gain`."""
    name = "DKMcost"

    def criterion(self, table):
        return dkm_cost_gain(table, self.cost_matrix(table))


class GainRatioCost(_CostSensitive):
    """Gain ratio with cost-weighted class entropies and CORElearn's rule for unused values
    (−1): :func:`cost_gain_ratio`."""
    name = "GainRatioCost"

    def criterion(self, table):
        return cost_gain_ratio(table, self.cost_matrix(table))
