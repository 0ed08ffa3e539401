"""Attribute measures that are distances between class distributions, as CORElearn 1.57
(Robnik-Šikonja & Savicky) defines its estimators ImpurityEuclid, ImpurityHellinger,
EqualHellinger, DistHellinger, DistEuclid, DistAUC and DistAngle. Multi-class problems are
handled by averaging over all pairs of classes (CORElearn's default ``multiclassEvaluation``).

Every measure is a function of a contingency table ``n[..., v, c]`` (values or branches ×
classes, vectorised over leading axes) and is computed as in :mod:`.impurity`: a discrete
attribute as it is (multi-valued), a numeric one at its best binary split by the measure itself,
missing values left out. Higher = better. Notation: p(c|v) = n_vc / n_v within a branch,
r_v(c) = p(v|c) = n_vc / n_c the distribution of the values within class c, pairs i < j of
classes.

Within the branches (ImpurityEuclid, ImpurityHellinger)
    sqrt( Σ_v mean_{i<j} d(p(i|v), p(j|v)) ) over the values that occur, with
    d(a, b) = (a − b)² (Euclid) or (√a − √b)² (Hellinger).

Between the branches (EqualHellinger)
    The mean over pairs of occurring values u < v of the Hellinger distance of their class
    distributions, sqrt( Σ_c (√p(c|u) − √p(c|v))² ) (0 with fewer than two values).

Between the classes (Dist*), the mean over class pairs i < j of a distance of r_i and r_j:
    * DistHellinger: sqrt( Σ_v (√r_v(i) − √r_v(j))² ) — Cieslak & Chawla 2008, "Learning decision
      trees for unbalanced data", the Hellinger distance as a split criterion;
    * DistEuclid: sqrt( Σ_v (r_v(i) − r_v(j))² / 2 );
    * DistAngle: DistEuclid of r_i and r_j each scaled to unit Euclidean norm;
    * DistAUC: ``Σ_{u<v} |r_u(i) r_v(j) − r_v(i) r_u(j)|`` (for a binary split ``|TPR − FPR|``,
      the distance of the split's ROC point from the diagonal).

    A class with no instance among the known values leaves r undefined: the measure is NaN.
"""
import numpy as np

from .impurity import ImpurityEstimator, _margins, _nan_where_empty, _ratio

__all__ = ["impurity_distance", "equal_hellinger", "dist_hellinger", "dist_euclid",
           "dist_angle", "dist_auc", "ImpurityEuclid", "ImpurityHellinger", "EqualHellinger",
           "DistHellinger", "DistEuclid", "DistAngle", "DistAUC"]


def _pairs(n):
    """Index arrays (i, j) of the pairs i < j of n items."""
    return np.triu_indices(n, 1)


def impurity_distance(table, hellinger=False):
    """sqrt( Σ_v mean_{i<j} (p(i|v) − p(j|v))² ) over the values that occur; with
    ``hellinger`` the square roots of the probabilities (CORElearn's ImpurityHellinger)."""
    table = np.asarray(table, dtype=np.float64)
    n_v, _, n = _margins(table)
    p = _ratio(table, n_v[..., None])
    if hellinger:
        p = np.sqrt(p)
    i, j = _pairs(table.shape[-1])
    spread = np.mean((p[..., i] - p[..., j]) ** 2, axis=-1)
    return _nan_where_empty(np.sqrt(np.sum(np.where(n_v > 0, spread, 0.0), axis=-1)), n)


def equal_hellinger(table):
    """The mean Hellinger distance sqrt( Σ_c (√p(c|u) − √p(c|v))² ) over the pairs u < v of
    values that occur; 0 when fewer than two occur (CORElearn's EqualHellinger)."""
    table = np.asarray(table, dtype=np.float64)
    n_v, _, n = _margins(table)
    root = np.sqrt(_ratio(table, n_v[..., None]))
    u, v = _pairs(table.shape[-2])
    distance = np.sqrt(np.sum((root[..., u, :] - root[..., v, :]) ** 2, axis=-1))
    both = (n_v[..., u] > 0) & (n_v[..., v] > 0)
    mean = _ratio(np.sum(np.where(both, distance, 0.0), axis=-1), both.sum(axis=-1))
    return _nan_where_empty(mean, n)


def _within_class(table):
    """r_v(c) = n_vc / n_c of tables (..., V, C); NaN for a class without instances."""
    table = np.asarray(table, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        return table / table.sum(axis=-2, keepdims=True)


def _mean_over_class_pairs(table, distance):
    """mean_{i<j} distance(r_i, r_j), ``distance`` taking (..., V, P) arrays of the pairs'
    value distributions and reducing the value axis."""
    r = _within_class(table)
    i, j = _pairs(table.shape[-1])
    return _nan_where_empty(np.mean(distance(r[..., i], r[..., j]), axis=-1),
                            _margins(table)[2])


def dist_hellinger(table):
    """mean over class pairs of sqrt( Σ_v (√r_v(i) − √r_v(j))² ) (Cieslak & Chawla 2008)."""
    return _mean_over_class_pairs(
        table, lambda a, b: np.sqrt(np.sum((np.sqrt(a) - np.sqrt(b)) ** 2, axis=-2)))


def _euclid(a, b):
    return np.sqrt(np.sum((a - b) ** 2, axis=-2) / 2.0)


def dist_euclid(table):
    """mean over class pairs of sqrt( Σ_v (r_v(i) − r_v(j))² / 2 )."""
    return _mean_over_class_pairs(table, _euclid)


def dist_angle(table):
    """:func:`dist_euclid` of the value distributions scaled to unit Euclidean norm."""
    def unit(a):
        return a / np.sqrt(np.sum(a ** 2, axis=-2, keepdims=True))
    with np.errstate(invalid="ignore", divide="ignore"):
        return _mean_over_class_pairs(table, lambda a, b: _euclid(unit(a), unit(b)))


def dist_auc(table):
    """mean over class pairs of ``Σ_{u<v} |r_u(i) r_v(j) − r_v(i) r_u(j)|``."""
    u, v = _pairs(np.shape(table)[-2])
    return _mean_over_class_pairs(table, lambda a, b: np.sum(np.abs(
        a[..., u, :] * b[..., v, :] - a[..., v, :] * b[..., u, :]), axis=-2))


class ImpurityEuclid(ImpurityEstimator):
    """Euclidean distance of the classes' probabilities within the branches:
    :func:`impurity_distance`."""
    name = "ImpurityEuclid"
    criterion = staticmethod(impurity_distance)


class ImpurityHellinger(ImpurityEstimator):
    """Hellinger distance of the classes' probabilities within the branches:
    ``impurity_distance(table, hellinger=True)``."""
    name = "ImpurityHellinger"

    def criterion(self, table):
        return impurity_distance(table, hellinger=True)


class EqualHellinger(ImpurityEstimator):
    """Mean Hellinger distance between the branches' class distributions:
    :func:`equal_hellinger`."""
    name = "EqualHellinger"
    criterion = staticmethod(equal_hellinger)


class DistHellinger(ImpurityEstimator):
    """Hellinger distance between the classes' value distributions (Cieslak & Chawla 2008):
    :func:`dist_hellinger`."""
    name = "DistHellinger"
    criterion = staticmethod(dist_hellinger)


class DistEuclid(ImpurityEstimator):
    """Euclidean distance between the classes' value distributions: :func:`dist_euclid`."""
    name = "DistEuclid"
    criterion = staticmethod(dist_euclid)


class DistAngle(ImpurityEstimator):
    """Distance between the directions of the classes' value distributions:
    :func:`dist_angle`."""
    name = "DistAngle"
    criterion = staticmethod(dist_angle)


class DistAUC(ImpurityEstimator):
    """Distance of the classes' value distributions from the ROC diagonal: :func:`dist_auc`."""
    name = "DistAUC"
    criterion = staticmethod(dist_auc)
