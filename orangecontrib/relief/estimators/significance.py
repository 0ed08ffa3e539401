"""Statistical significance of attribute estimates: STIR p-values for the Relief family,
permutation p-values for any estimator, and Benjamini-Hochberg q-values.

**STIR** (Le, Urbanowicz, Moore & McKinney, "STatistical Inference Relief (STIR) feature
selection", Bioinformatics 35(8), 2019) reads a Relief estimate as the difference of two means:
the mean diff of attribute A over the (instance, miss) pairs minus its mean over the (instance,
hit) pairs, W[A] = M̄_A - H̄_A, and tests it with a pseudo two-sample t-test of pooled variance::

    S_p² = ((|M| - 1) S_M² + (|H| - 1) S_H²) / (|M| + |H| - 2),
    t_A  = (M̄_A - H̄_A) / (S_p * sqrt(1/|M| + 1/|H|)),   df = |M| + |H| - 2,

with ``|M|``, ``|H|`` the numbers of miss and hit pairs and the one-sided p-value P(T_df >= t_A)
(only a positive estimate is evidence of relevance). "Pseudo", because pairs that share an
instance are not independent. The means are weighted by each pair's weight in the estimate
(1/k for ReliefF's k nearest, P(C)/(1 - P(class(R))) for the misses of class C, the influences of
a rank weighting), so M̄ - H̄ is the estimator's own estimate whenever every instance has hits and
misses; S_M² and S_H² are the variances of the diffs about those means under the same weights,
with Bessel's factor n/(n - 1) (the sample variances for equal weights). Under RELIEF-C a pair
whose diff of A involves a missing value is left out of A's test. Any neighbourhood works: an
estimator that supports STIR gives its (instance, neighbour, weight, hit or miss) pairs by
``hit_miss_pairs(context)`` (fixed-k neighbourhoods of ReliefF and Relief; adaptive radii such as
MultiSURF's give a varying number of pairs per instance).

**Permutation p-values** (any estimator, any target): the estimates of R copies of the data with
the target randomly permuted; p = (b + 1) / (R + 1), b being the number of permuted estimates at
least as large as the observed one (Phipson & Smyth, "Permutation p-values should never be zero").
An estimator with ``target_contexts(data, callback)`` (ReliefF, Relief, RReliefF) gives the
contexts of the permuted targets from one neighbour search.

**q-values** (Benjamini & Hochberg, "Controlling the false discovery rate", 1995): selecting the
attributes with q <= alpha keeps the expected share of false discoveries among them at most alpha
(for independent or positively dependent p-values).
"""
from copy import copy
from dataclasses import dataclass, replace

import numpy as np

from .base import progress_part, random_generator, row_blocks
from .description import Param

__all__ = ["HitMissPairs", "Significance", "benjamini_hochberg", "stir", "stir_test",
           "supports_stir", "permutation_test", "significance", "METHODS"]

METHODS = ("stir", "permutation")
#: relative tolerance by which a permuted estimate still counts as reaching the observed one
#: (the same number summed in another order)
TIE_RTOL = 1e-9


@dataclass(frozen=True)
class HitMissPairs:
    """The (instance, neighbour) pairs of a Relief estimate: ``rows[p]`` is the current instance,
    ``others[p]`` its neighbour, ``weights[p]`` > 0 the pair's weight in its mean and ``miss[p]``
    whether it is a miss (else a hit)."""
    rows: np.ndarray
    others: np.ndarray
    weights: np.ndarray
    miss: np.ndarray


@dataclass(frozen=True)
class Significance:
    """Estimates with their significance, one entry per attribute: ``scores`` (the estimator's
    estimates), ``pvalues``, ``qvalues`` (Benjamini-Hochberg), ``method`` ("stir" or
    "permutation"), ``statistics`` (STIR's t, or the number of permuted estimates reaching the
    observed one) and ``n_permutations`` (0 for STIR)."""
    scores: np.ndarray
    pvalues: np.ndarray
    qvalues: np.ndarray
    method: str
    statistics: np.ndarray
    n_permutations: int = 0

    def selected(self, alpha=0.05):
        """Indices of the attributes with q <= ``alpha``, best estimate first."""
        chosen = np.flatnonzero(self.qvalues <= alpha)
        return chosen[np.argsort(-self.scores[chosen], kind="stable")]


def benjamini_hochberg(pvalues):
    """Benjamini-Hochberg adjusted p-values (q-values): q_(i) = min_{j >= i} p_(j) * n / j over
    the p-values sorted increasingly, at most 1. NaN p-values stay NaN and do not count in n.

    >>> benjamini_hochberg([0.01, 0.04, 0.03, 0.005])
    array([0.02, 0.04, 0.04, 0.02])
    """
    p = np.asarray(pvalues, dtype=float)
    if p.ndim != 1:
        raise ValueError(f"p-values must be a 1-D array, got {p.ndim} dimension(s)")
    known = np.flatnonzero(~np.isnan(p))
    if np.any((p[known] < 0) | (p[known] > 1)):
        raise ValueError("p-values must lie in [0, 1]")
    q = np.full(p.shape, np.nan)
    n = known.size
    if n:
        order = known[np.argsort(p[known], kind="stable")]
        scaled = p[order] * n / np.arange(1, n + 1)
        q[order] = np.minimum(np.minimum.accumulate(scaled[::-1])[::-1], 1.0)
    return q


def stir_test(diff_model, pairs, callback=None):
    """STIR's pseudo t-test (module docstring) of every attribute of ``diff_model.data`` on
    ``pairs`` (:class:`HitMissPairs`). Returns ``(t, df, pvalues)``; an attribute without a hit
    or a miss pair with a known diff gets NaN. Zero pooled variance gives t = ±inf (p = 0 for a
    positive difference) and, for a zero difference, t = 0 and p = 1."""
    a = diff_model.data.n_attributes
    # per group (0 = hits, 1 = misses) and attribute: pair count, weight, mean, weighted M2
    count = np.zeros((2, a))
    weight = np.zeros((2, a))
    mean = np.zeros((2, a))
    m2 = np.zeros((2, a))
    miss = np.asarray(pairs.miss, dtype=bool)
    blocks = row_blocks(len(miss), 8 * 4 * max(a, 1))
    for done, blk in enumerate(blocks):
        diffs = diff_model.pair_diffs(pairs.rows[blk], pairs.others[blk])
        known = ~np.isnan(diffs)
        diffs = np.where(known, diffs, 0.0)
        for g in (0, 1):
            sel = miss[blk] == bool(g)
            if not sel.any():
                continue
            w = pairs.weights[blk][sel]
            d, kn = diffs[sel], known[sel]
            w_b = w @ kn
            n_b = kn.sum(axis=0)
            with np.errstate(invalid="ignore", divide="ignore"):
                mean_b = np.where(w_b > 0, (w @ d) / w_b, 0.0)
            m2_b = w @ (kn * (d - mean_b) ** 2)
            # Chan et al.'s update of a weighted mean and sum of squared deviations
            total = weight[g] + w_b
            with np.errstate(invalid="ignore", divide="ignore"):
                share = np.where(total > 0, w_b / total, 0.0)
            delta = mean_b - mean[g]
            m2[g] += m2_b + delta ** 2 * weight[g] * share
            mean[g] += delta * share
            weight[g] = total
            count[g] += n_b
        if callback is not None:
            callback((done + 1) / len(blocks))
    n_hit, n_miss = count
    df = n_hit + n_miss - 2
    with np.errstate(invalid="ignore", divide="ignore"):
        # S² = (M2 / W) * n / (n - 1), so (n - 1) S² = n M2 / W
        pooled = (n_miss * m2[1] / weight[1] + n_hit * m2[0] / weight[0]) / df
        diff = mean[1] - mean[0]
        t = diff / np.sqrt(pooled * (1 / n_miss + 1 / n_hit))
    flat = pooled <= 0
    t = np.where(flat, np.where(diff > 0, np.inf, np.where(diff < 0, -np.inf, 0.0)), t)
    valid = (n_hit >= 1) & (n_miss >= 1) & (df >= 1)
    t = np.where(valid, t, np.nan)
    from scipy import stats           # here: 30 MB that the estimators without STIR never need
    p = np.where(flat & (diff == 0), 1.0, stats.t.sf(t, np.maximum(df, 1)))
    return t, np.where(valid, df, np.nan), np.where(valid, p, np.nan)


def supports_stir(estimator):
    """Whether :func:`stir` can test ``estimator``'s estimates (its capability, see
    :meth:`.base.Estimator.significance_tests`: it gives ``hit_miss_pairs``)."""
    return "stir" in estimator.significance_tests()


def stir(estimator, data, callback=None):
    """STIR p-values and q-values of a Relief-family ``estimator`` on ``data``
    (:class:`.encoding.EncodedData`): the estimates and the pseudo t-test of their hit and miss
    pairs from one neighbour search. ``estimator`` must give ``hit_miss_pairs(context)``
    (classification estimators with a fixed neighbourhood); otherwise use
    :func:`permutation_test`."""
    if not supports_stir(estimator):
        raise ValueError(f"STIR tests the hits against the misses of one neighbourhood of a "
                         f"discrete class; {estimator.name} has none: use permutation p-values")
    context = estimator.context(data, progress_part(callback, 0.0, 0.7))
    pairs = estimator.hit_miss_pairs(context)
    scores = np.asarray(estimator.estimate(context), dtype=float)
    t, _, p = stir_test(context.diff_model, pairs, progress_part(callback, 0.7, 1.0))
    return Significance(scores=scores, pvalues=p, qvalues=benjamini_hochberg(p),
                        method="stir", statistics=t)


def _seeded(estimator, rng):
    """``estimator``, or a copy whose own ``random_state`` (None: unseeded sampling) is drawn
    from ``rng``, so that the whole test repeats for the same seed."""
    if getattr(estimator, "random_state", 0) is not None:
        return estimator
    estimator = copy(estimator)
    estimator.random_state = int(rng.integers(2 ** 32))
    return estimator


#: the number of permutations of a permutation test
N_PERMUTATIONS = Param("n_permutations", "int", 100, "Permutations", low=1,
                       tooltip="Estimates with the target permuted at random.")


def permutation_test(estimator, data, n_permutations=100, random_state=None, callback=None):
    """Permutation p-values (module docstring) of any ``estimator`` on ``data``
    (:class:`.encoding.EncodedData`): R = ``n_permutations`` estimates with the target permuted
    by ``random_state`` (None, an int or a numpy Generator). ``callback(fraction)`` reports
    progress after each part of each run; raising from it cancels."""
    N_PERMUTATIONS.check(n_permutations)
    rng = random_generator(random_state)
    estimator = _seeded(estimator, rng)
    runs = n_permutations + 1
    make = getattr(estimator, "target_contexts", None)
    shared = make(data, progress_part(callback, 0.0, 1 / runs)) if make is not None else None

    def estimate(target, part):
        context = shared(target) if shared is not None else estimator.context(target, part)
        scores = np.asarray(estimator.estimate(context), dtype=float)
        if part is not None:
            part(1.0)
        return scores

    observed = estimate(data, progress_part(callback, 0.0, 1 / runs))
    reached = np.zeros(observed.shape, dtype=np.intp)
    lowest = observed - TIE_RTOL * np.abs(observed)
    for r in range(1, runs):
        permuted = replace(data, y=data.y[rng.permutation(data.n_instances)])
        scores = estimate(permuted, progress_part(callback, r / runs, (r + 1) / runs))
        # a NaN permuted estimate counts as reaching the observed one (conservative)
        reached += ~(np.asarray(scores, dtype=float) < lowest)
    p = np.where(np.isnan(observed), np.nan, (reached + 1) / runs)
    return Significance(scores=observed, pvalues=p, qvalues=benjamini_hochberg(p),
                        method="permutation", statistics=reached.astype(float),
                        n_permutations=int(n_permutations))


def significance(estimator, data, method="stir", n_permutations=100, random_state=None,
                 callback=None):
    """:func:`stir` (``method="stir"``) or :func:`permutation_test` (``"permutation"``)."""
    if method == "stir":
        return stir(estimator, data, callback)
    if method == "permutation":
        return permutation_test(estimator, data, n_permutations, random_state, callback)
    raise ValueError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
