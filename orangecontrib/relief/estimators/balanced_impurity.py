"""Impurity measures that do not let the class or branch sizes weigh: class priors made uniform
("Uniform" measures) or branches weighted equally ("Equal" measures), as CORElearn 1.57
(Robnik-Šikonja & Savicky) defines its estimators UniformDKM, UniformGini, UniformInf,
UniformAccuracy, EqualDKM, EqualGini and EqualInf.

Every measure is a function of a contingency table ``n[..., v, c]`` (values or branches ×
classes, vectorised over leading axes) and is computed as in :mod:`.impurity`: a discrete
attribute as it is (multi-valued), a numeric one at its best binary split by the measure itself,
missing values left out. The impurities of a class distribution p are those of
:mod:`.impurity`: entropy H(p) = −Σ_c p_c log₂ p_c, Gini 1 − Σ_c p_c², DKM 2·sqrt(q (1 − q))
(q = max_c p_c; Dietterich, Kearns & Mansour 1996) and the accuracy max_c p_c.

Uniform priors
    Each class's instances are reweighted to the same total: with r_vc = n_vc / n_c (0 for a
    class absent from the table) a branch gets the weight π_v = (1/C) Σ_c r_vc (C the number of
    classes) and the class distribution q_v(c) = r_vc / Σ_c' r_vc'. The measure is
    1 − Σ_v π_v f(q_v) for an impurity f (entropy, Gini, DKM), and Σ_v π_v max_c q_v(c) for the
    accuracy; the prior impurity is left out (it is that of the uniform distribution, the same
    for every attribute).

Equal branches
    The branches' impurities are summed without the branch weights p(v): EqualDKM = −Σ_v D(p_v),
    EqualInf = −Σ_v H(p_v) and EqualGini = Σ_v Σ_c p(c|v)², over the values that occur.
"""
import numpy as np

from .impurity import ImpurityEstimator, _entropy_of, _margins, _nan_where_empty, _ratio, dkm

__all__ = ["uniform_gain", "uniform_accuracy", "equal_branches", "gini_impurity",
           "UniformDKM", "UniformGini", "UniformInf", "UniformAccuracy",
           "EqualDKM", "EqualGini", "EqualInf"]


def gini_impurity(p):
    """1 − Σ_c p_c² of distributions p along the last axis."""
    return 1.0 - np.sum(p ** 2, axis=-1)


def _uniform_priors(table):
    """(π_v, q_v) of tables (..., V, C): the branch weights and class distributions with the
    classes reweighted to equal totals (see the module docstring)."""
    table = np.asarray(table, dtype=np.float64)
    r = _ratio(table, table.sum(axis=-2, keepdims=True))
    mass = r.sum(axis=-1)
    return mass / table.shape[-1], _ratio(r, mass[..., None])


def uniform_gain(table, impurity):
    """1 − Σ_v π_v f(q_v) with uniform class priors, f = ``impurity`` (a function of
    distributions along the last axis): CORElearn's UniformInf, UniformGini, UniformDKM."""
    weight, dist = _uniform_priors(table)
    after = np.sum(np.where(weight > 0, weight * impurity(dist), 0.0), axis=-1)
    return _nan_where_empty(1.0 - after, _margins(table)[2])


def uniform_accuracy(table):
    """Σ_v π_v max_c q_v(c) with uniform class priors: CORElearn's UniformAccuracy."""
    weight, dist = _uniform_priors(table)
    return _nan_where_empty(np.sum(weight * dist.max(axis=-1), axis=-1), _margins(table)[2])


def equal_branches(table, impurity, sign=-1.0):
    """``sign`` · Σ_v f(p(C|v)) over the values v that occur, f = ``impurity``."""
    table = np.asarray(table, dtype=np.float64)
    n_v, _, n = _margins(table)
    terms = np.where(n_v > 0, impurity(_ratio(table, n_v[..., None])), 0.0)
    return _nan_where_empty(sign * terms.sum(axis=-1), n)


def _class_agreement(p):
    """Σ_c p_c² (1 − Gini impurity)."""
    return np.sum(p ** 2, axis=-1)


class UniformDKM(ImpurityEstimator):
    """DKM with uniform class priors: ``uniform_gain(table, dkm)``."""
    name = "UniformDKM"

    def criterion(self, table):
        return uniform_gain(table, dkm)


class UniformGini(ImpurityEstimator):
    """Gini with uniform class priors: ``uniform_gain(table, gini_impurity)``."""
    name = "UniformGini"

    def criterion(self, table):
        return uniform_gain(table, gini_impurity)


class UniformInf(ImpurityEstimator):
    """Entropy with uniform class priors: ``uniform_gain(table, entropy)``."""
    name = "UniformInf"

    def criterion(self, table):
        return uniform_gain(table, _entropy_of)


class UniformAccuracy(ImpurityEstimator):
    """Accuracy with uniform class priors: :func:`uniform_accuracy`."""
    name = "UniformAccuracy"
    criterion = staticmethod(uniform_accuracy)


class EqualDKM(ImpurityEstimator):
    """−Σ_v D(p(C|v)), branches weighted equally: ``equal_branches(table, dkm)``."""
    name = "EqualDKM"

    def criterion(self, table):
        return equal_branches(table, dkm)


class EqualGini(ImpurityEstimator):
    """Σ_v Σ_c p(c|v)², branches weighted equally."""
    name = "EqualGini"

    def criterion(self, table):
        return equal_branches(table, _class_agreement, sign=1.0)


class EqualInf(ImpurityEstimator):
    """−Σ_v H(C|v), branches weighted equally: ``equal_branches(table, entropy)``."""
    name = "EqualInf"

    def criterion(self, table):
        return equal_branches(table, _entropy_of)
