"""Statistical significance of attribute estimates: STIR p-values for the Relief family,
permutation p-values for any estimator, and Benjamini-Hochberg q-values.

**STIR** (Le, Urbanowicz, Moore & McKinney, "STatistical Inference Relief (STIR) feature
selection", Bioinformatics 35(8), 2019) reads a Relief estimate as the difference of two means:
the mean diff of attribute A over the (instance, miss) pairs minus its mean over the (instance,
hit) pairs, W[A] = M̄_A - H̄_A, and tests it with a pseudo two-sample t-test of pooled variance::

    S_p² = ((|M| - 1) S_M² + (|H| - 1) S_H²) / (|M| + |H| - 2),
    t_A  = (M̄_A - H̄_A) / (S_p * sqrt(1/|M| + 1/|H|)),   df = |M| + |H| - 2,

with ``|M|``, ``|H|`` the numbers of miss and hit pairs and the one-sided p-value P(T_df >= t_A)
(only a positive estimate is evidence of relevance). The means are weighted by each pair's
weight in the estimate (1/k for ReliefF's k nearest, P(C)/(1 - P(class(R))) for the misses of
class C, the influences of a rank weighting, 1/size for the members of a MultiSURF band), so
M̄ - H̄ is the estimator's own estimate whenever every instance has hits and misses; S_M² and
S_H² are the variances of the diffs about those means under the same weights, with Bessel's
factor n/(n - 1). Under RELIEF-C a pair whose diff of A involves a missing value is left out of
A's test. An estimator that supports STIR gives its (instance, neighbour, weight, hit or miss)
pairs by ``hit_miss_pairs(context)``: ReliefF's and Relief's k nearest, and the near bands of
SURF and MultiSURF (the paper's main variant).

"Pseudo", because the pairs are not independent: every instance is in many pairs, as the one
estimated and as a neighbour, so S_p understates the spread of t_A; and with classes of unequal
size t_A is not centred on 0 when no attribute is relevant (the instances of the smaller class
find their hits among fewer candidates, farther away, than their misses, and the larger class
the other way round). On data with no relevant attribute (200 instances, 30 attributes, ReliefF
k = 10) the t distribution gives 9.5 % of p < 0.05 with equal classes and 28 % with 30 % / 70 %.
So by default (``calibration`` R > 0) STIR's statistic is referred to its own null
distribution: t_A is computed again for R copies of the data with the class permuted (the same
class sizes, every dependence between pairs kept). Each attribute's t_A gets a normal score
against its R permuted values, by the t-test of one new observation against a normal sample
(a prediction interval): with their mean t̄_A and standard deviation s_A,

    z_A = Φ⁻¹(F_{R-1}((t_A - t̄_A) / (s_A sqrt(1 + 1/R)))),

F_{R-1} the t distribution; each permuted value gets its score against the other R - 1 of its
attribute in the same way, and p_A = (b + 1)/(N + 1), b being the number of the N permuted
values' scores, of all attributes together, at least z_A. Were t_A's permutation distribution
normal, every score would be standard normal; it is an average over many pairs and nearly so,
but skewed (skewness about 0.2 for ReliefF on uniform attributes, which doubles the share
beyond 3 standard deviations), and pooling the scores of all attributes' permuted values
carries that skewness into the p-values. Beyond the pool's largest score e, where it cannot
count, p is the normal tail P(Z >= z_A) scaled by 2/(N + 1) over P(Z >= e), where that is
below 1/(N + 1) (so a strong attribute gets a p-value far below 1/(N + 1)). It is an
approximation, measured by
``benchmarks/significance_fdr.py``, not an exact test: it assumes the attributes' permuted
statistics have one shape. An attribute whose permuted statistics do not vary (or are not
finite) is left out of the pool and gets the permutation p-value (b + 1)/(R + 1) of its own.
``calibration=0`` gives the authors' t distribution with ``|M| + |H| - 2`` degrees of freedom.

**Permutation p-values** (any estimator, any target): the estimates of R copies of the data with
the target randomly permuted; p = (b + 1) / (R + 1), b being the number of permuted estimates at
least as large as the observed one (Phipson & Smyth, "Permutation p-values should never be zero").
Data with covariates (which only estimators that adjust for them take: NPDR, the trend test) are
permuted within strata of instances alike in their covariates (:func:`permutation_strata`), so
that the permuted target keeps its dependence on the covariates: the null hypothesis is that an
attribute tells nothing of the target beyond the covariates, and a permutation over all
instances would break the covariates' own effect and count an attribute that merely follows a
covariate as a discovery.
An estimator with ``target_contexts(data, callback)`` (ReliefF, Relief, RReliefF, the SURF
family; TuRF for its rounds over all attributes) gives the contexts of the permuted targets,
``function(target, callback)``, from one neighbour search.

**q-values** (Benjamini & Hochberg, "Controlling the false discovery rate", 1995): selecting the
attributes with q <= alpha keeps the expected share of false discoveries among them at most alpha
(for independent or positively dependent p-values).

**How many permutations** (:func:`permutation_rule`): a permutation p-value is at least
1/(R + 1), and the best of M tested attributes has q = p M at best, so q <= alpha needs
R >= M / alpha - 1 (20 M - 1 for alpha = 0.05): 100 permutations cannot give q < 0.05 among
more than 5 attributes. By default :func:`permutation_test` runs that many, up to
``MAX_DEFAULT_PERMUTATIONS``, and warns (``PermutationWarning``) when its number of
permutations cannot reach q < 0.05, saying how many would. Calibrated p-values (STIR's, NPDR's)
and the pooled p-values of interacting pairs have no such floor: beyond the pool of permuted
statistics they follow the normal (chi-square) tail, so any number of permutations can give
q < 0.05.
"""
from copy import copy
from dataclasses import dataclass, replace

import numpy as np

from .base import progress_part, random_generator, row_blocks
from .description import Param

__all__ = ["HitMissPairs", "Significance", "benjamini_hochberg", "stir", "stir_test",
           "calibrated_pvalues", "check_calibration", "supports_stir", "permutation_test",
           "target_estimates", "seeded", "significance", "permutation_strata",
           "permuted_targets", "METHODS", "STIR_CALIBRATION", "STRATUM_SIZE", "permutation_rule",
           "PermutationWarning", "MAX_DEFAULT_PERMUTATIONS", "warn_permutations"]

METHODS = ("stir", "permutation", "npdr", "trend")
#: the methods that are an estimator's own test (its ``test`` method), by the estimator's name
OWN_TESTS = {"npdr": "NPDR", "trend": "the allelic trend test"}
#: permutations that calibrate STIR's statistic by default (module docstring)
STIR_CALIBRATION = 30
#: instances of a stratum of the permutations when a covariate is numeric
#: (:func:`permutation_strata`)
STRATUM_SIZE = 10
#: the calibration's normal tail takes over beyond the pool's this many largest scores (1:
#: beyond them all, where the pool cannot count)
TAIL_DRAWS = 1
#: relative tolerance by which a permuted estimate still counts as reaching the observed one
#: (the same number summed in another order)
TIE_RTOL = 1e-9
#: the q-value the default number of permutations is to make reachable
TARGET_Q = 0.05
#: permutations :func:`permutation_test` runs at most by default (each is a whole estimate)
MAX_DEFAULT_PERMUTATIONS = 1000


class PermutationWarning(UserWarning):
    """Too few permutations for a permutation p-value to reach q < 0.05 among the tests."""


def permutation_rule(n_tests, n_permutations=None, pooled=False, alpha=TARGET_Q,
                     most=MAX_DEFAULT_PERMUTATIONS, kind="tests"):
    """``(R, warning)``: the number of permutations R of a test of ``n_tests`` attributes (or
    pairs), ``n_permutations`` or by default the fewest with which the smallest permutation
    p-value, 1/(R + 1), can pass Benjamini-Hochberg at ``alpha`` (q = p n_tests <= alpha:
    R = ceil(n_tests / alpha) - 1), at most ``most``; and ``warning``, None or a sentence saying
    that R permutations cannot give q < alpha and how many would (module docstring).
    ``pooled`` p-values (calibrated, pooled over the tests, with a normal tail beyond the pool)
    have no floor: the default is then ``n_permutations`` as given and there is no warning.
    ``kind`` names the tests in the warning ("attributes", "pairs").

    >>> permutation_rule(20)
    (399, None)
    >>> permutation_rule(30, 100)[1].split("; ")[1]
    '599 can'
    """
    n_tests = max(int(n_tests), 1)
    needed = max(int(np.ceil(n_tests / alpha - 1e-9)) - 1, 1)
    if pooled:
        return n_permutations, None
    r = min(needed, most) if n_permutations is None else int(n_permutations)
    if r >= needed:
        return r, None
    return r, (f"{r} permutations cannot give q < {alpha:g} among {n_tests} {kind} (a "
               f"permutation p-value is at least 1/{r + 1}); {needed} can")


def warn_permutations(message):
    """Issue ``message`` of :func:`permutation_rule` as a :class:`PermutationWarning` (None:
    nothing)."""
    if message:
        import warnings
        warnings.warn(message, PermutationWarning, stacklevel=3)


@dataclass(frozen=True)
class HitMissPairs:
    """The (instance, neighbour) pairs of a Relief estimate: ``rows[p]`` is the current instance,
    ``others[p]`` its neighbour, ``weights[p]`` > 0 the pair's weight in its mean and ``miss[p]``
    whether it is a miss (else a hit); ``places[p]`` the neighbour places the pair fills (a
    share of one for neighbours tied at the k-th distance; None: one each), which count as
    pairs in the test."""
    rows: np.ndarray
    others: np.ndarray
    weights: np.ndarray
    miss: np.ndarray
    places: np.ndarray = None


@dataclass(frozen=True)
class Significance:
    """Estimates with their significance, one entry per attribute: ``scores`` (the estimator's
    estimates), ``pvalues``, ``qvalues`` (Benjamini-Hochberg), ``method`` ("stir" or
    "permutation"), ``statistics`` (STIR's t, or the number of permuted estimates reaching the
    observed one) and ``n_permutations`` (for STIR those of its calibration, 0 for the
    authors' t distribution)."""
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
            n_b = kn.sum(axis=0) if pairs.places is None else pairs.places[blk][sel] @ kn
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
    :attr:`.base.Estimator.significance_tests`: it gives ``hit_miss_pairs``)."""
    return "stir" in estimator.significance_tests


def _normal_scores(values, mean, sd, r):
    """Normal scores of ``values`` against R = ``r`` draws of mean ``mean`` and standard
    deviation ``sd``: Φ⁻¹(F_{R-1}((v - mean) / (sd sqrt(1 + 1/R)))), F the t distribution (the
    prediction-interval t-test of one new value, standard normal for normal draws)."""
    from scipy import stats           # (imported only when significance runs)
    score = (values - mean) / (sd * np.sqrt(1 + 1 / r))
    return stats.norm.isf(stats.t.sf(score, r - 1))


def calibrated_pvalues(observed, null):
    """One-sided p-values of the ``observed`` statistics (a,) against R draws of each from its
    null distribution, ``null`` (R, a) (module docstring). Each attribute's observed statistic
    gets its normal score against its own draws, and so does each draw against the other draws
    of its attribute (:func:`_normal_scores`); p = (b + 1) / (N + 1), b the number of the N
    draws' scores of all attributes at least as large, or beyond the ``TAIL_DRAWS``-th largest
    of them, e, the normal tail P(Z >= z) (TAIL_DRAWS + 1) / ((N + 1) P(Z >= e)) where it is
    smaller. Normal draws make every score standard normal; pooling the draws' scores carries
    their common skewness into the p-values. An attribute whose draws do not vary or are not finite is left out of the pool and gets the
    permutation p-value of its own draws. NaN observed statistics give NaN."""
    from scipy import stats           # (imported only when significance runs)
    observed = np.asarray(observed, dtype=float)
    null = np.asarray(null, dtype=float)
    r = null.shape[0]
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        mean = null.mean(axis=0)
        sd = null.std(axis=0, ddof=1)
        usable = np.isfinite(null).all(axis=0) & (sd > 0) & ~np.isnan(observed)
        lowest = np.where(np.isfinite(observed), observed - TIE_RTOL * np.abs(observed),
                          observed)
        reached = (~(null < lowest)).sum(axis=0)
        p = (reached + 1) / (r + 1)
        if usable.any() and r >= 3:
            x, m, v = null[:, usable], mean[usable], sd[usable]
            # each draw against the other R - 1: their mean and standard deviation
            m_out = (r * m - x) / (r - 1)
            ss = (r - 1) * v ** 2 - (x - m) ** 2 * r / (r - 1)
            sd_out = np.sqrt(np.maximum(ss, 0.0) / (r - 2))
            pool = np.sort(_normal_scores(x, m_out, sd_out, r - 1).ravel())
            pool = pool[~np.isnan(pool)]
            z = _normal_scores(observed[usable], m, v, r)
            b = pool.size - np.searchsorted(pool, z - TIE_RTOL * np.abs(z), side="left")
            pooled = (b + 1) / (pool.size + 1)
            if pool.size > TAIL_DRAWS:
                # beyond the TAIL_DRAWS-th largest score: the normal tail, scaled to meet the
                # pool's share there
                edge = pool[-TAIL_DRAWS]
                scale = (TAIL_DRAWS + 1) / (pool.size + 1) / stats.norm.sf(edge)
                pooled = np.where(z > edge, np.minimum(pooled, scale * stats.norm.sf(z)),
                                  pooled)
            p[usable] = pooled
    return np.where(np.isnan(observed), np.nan, p)


def check_calibration(calibration):
    """Raise ``ValueError`` unless ``calibration`` (the permutations that calibrate a
    statistic) is 0 (none: the statistic's own distribution) or an integer >= 3."""
    if isinstance(calibration, bool) or not isinstance(calibration, (int, np.integer)) \
            or calibration < 0 or 0 < calibration < 3:
        raise ValueError(f"calibration must be 0 (the t distribution) or an integer >= 3, "
                         f"got {calibration!r}")


def stir(estimator, data, calibration=STIR_CALIBRATION, random_state=None, callback=None):
    """STIR p-values and q-values of a Relief-family ``estimator`` on ``data``
    (:class:`.encoding.EncodedData`) with a discrete class: the estimates and STIR's statistic
    of their hit and miss pairs, referred to its null distribution from ``calibration``
    permutations of the class drawn by ``random_state`` (None, an int or a numpy Generator), or
    for ``calibration=0`` to the authors' t distribution (module docstring). ``estimator`` must
    give ``hit_miss_pairs(context)`` (ReliefF, Relief, SURF, MultiSURF); otherwise use
    :func:`permutation_test`. ``callback(fraction)`` reports progress; raising from it
    cancels."""
    if not supports_stir(estimator) or not data.is_classification:
        raise ValueError(f"STIR tests the hits against the misses of one neighbourhood of a "
                         f"discrete class; {estimator.name} has none here: use permutation "
                         f"p-values")
    check_calibration(calibration)
    rng = random_generator(random_state)
    estimator = seeded(estimator, rng)
    runs = calibration + 1

    def statistic(context, part):
        pairs = estimator.hit_miss_pairs(context)
        return stir_test(context.diff_model, pairs, part)

    context = estimator.context(data, progress_part(callback, 0.0, 0.7 / runs))
    scores = np.asarray(estimator.estimate(context), dtype=float)
    t, _, p = statistic(context, progress_part(callback, 0.7 / runs, 1 / runs))
    if calibration:
        make = getattr(estimator, "target_contexts", None)
        shared = make(data) if make is not None else None
        null = np.empty((calibration, t.size))
        for r in range(calibration):
            part = progress_part(callback, (r + 1) / runs, (r + 2) / runs)
            permuted = replace(data, y=data.y[rng.permutation(data.n_instances)])
            permuted_context = shared(permuted, progress_part(part, 0.0, 0.7)) \
                if shared is not None else estimator.context(permuted,
                                                             progress_part(part, 0.0, 0.7))
            null[r] = statistic(permuted_context, progress_part(part, 0.7, 1.0))[0]
        p = calibrated_pvalues(t, null)
    if callback is not None:
        callback(1.0)
    return Significance(scores=scores, pvalues=p, qvalues=benjamini_hochberg(p),
                        method="stir", statistics=t, n_permutations=int(calibration))


def target_estimates(estimator, data, callback=None):
    """A function ``estimate(target, callback=None)`` from ``data`` with another target (the
    same instances and attributes, e.g. a permuted class) to the estimator's estimates (a float
    array): through the estimator's ``target_contexts`` where it has one (the neighbours found
    once, by the first ``callback``), else a context computed for each target."""
    make = getattr(estimator, "target_contexts", None)
    shared = make(data, callback) if make is not None else None

    def estimate(target, part=None):
        context = shared(target, part) if shared is not None \
            else estimator.context(target, part)
        scores = np.asarray(estimator.estimate(context), dtype=float)
        if part is not None:
            part(1.0)
        return scores
    return estimate


def seeded(estimator, rng):
    """``estimator``, or a copy whose own ``random_state`` (None: unseeded sampling) is drawn
    from ``rng``, so that the whole test repeats for the same seed."""
    if getattr(estimator, "random_state", 0) is not None:
        return estimator
    estimator = copy(estimator)
    estimator.random_state = int(rng.integers(2 ** 32))
    return estimator


#: the number of permutations of a permutation test
N_PERMUTATIONS = Param("n_permutations", "int", None, "Permutations", low=1,
                       none="enough for q < 0.05 among the attributes, at most 1,000",
                       tooltip="Estimates with the target permuted at random.")


def permutation_strata(data):
    """The strata of instances whose targets a permutation exchanges (module docstring): all
    instances for data without covariates; with discrete covariates only, the groups of equal
    covariates; with a numeric one, within each group of equal discrete covariates, runs of
    ``STRATUM_SIZE`` instances (the last run of a group takes the rest) in the order of the
    target's least-squares prediction from the covariates, a balancing score (Rosenbaum & Rubin,
    "The central role of the propensity score", Biometrika 70, 1983): instances alike in it are
    alike in how the covariates move the target."""
    covs = data.covariates
    n = data.n_instances
    if covs is None:
        return [np.arange(n)]
    discrete = np.asarray(covs.discrete, bool)
    group = np.zeros(n, np.intp)
    if discrete.any():
        group = np.unique(covs.values[:, discrete], axis=0, return_inverse=True)[1].ravel()
    groups = int(group.max()) + 1
    if discrete.all():
        return [np.flatnonzero(group == g) for g in range(groups)]
    design = np.hstack([np.ones((n, 1)), covs.values[:, ~discrete],
                        np.eye(groups)[group][:, 1:]])
    prediction = design @ np.linalg.lstsq(design, data.y, rcond=None)[0]
    order = np.lexsort((np.arange(n), prediction, group))
    strata = []
    for g in range(groups):
        members = order[group[order] == g]
        strata += np.split(members, np.arange(STRATUM_SIZE, members.size - STRATUM_SIZE + 1,
                                              STRATUM_SIZE))
    return strata


def permuted_targets(data, strata, rng):
    """``data``'s target permuted by ``rng`` within each of ``strata``
    (:func:`permutation_strata`)."""
    order = np.arange(data.n_instances)
    for members in strata:
        order[members] = members[rng.permutation(members.size)]
    return data.y[order]


def permutation_test(estimator, data, n_permutations=None, random_state=None, callback=None):
    """Permutation p-values (module docstring) of any ``estimator`` on ``data``
    (:class:`.encoding.EncodedData`): R = ``n_permutations`` estimates with the target permuted
    (within :func:`permutation_strata`) by ``random_state`` (None, an int or a numpy
    Generator); by default enough for q < 0.05 among the attributes, at most
    ``MAX_DEFAULT_PERMUTATIONS`` (:func:`permutation_rule`, which warns with a
    :class:`PermutationWarning` when R cannot reach q < 0.05). ``callback(fraction)`` reports
    progress after each part of each run; raising from it cancels."""
    N_PERMUTATIONS.check(n_permutations)
    n_permutations, message = permutation_rule(data.n_attributes, n_permutations,
                                               kind="attributes")
    warn_permutations(message)
    rng = random_generator(random_state)
    runs = n_permutations + 1
    estimate = target_estimates(seeded(estimator, rng), data,
                                progress_part(callback, 0.0, 1 / runs))
    observed = estimate(data, progress_part(callback, 0.0, 1 / runs))
    reached = np.zeros(observed.shape, dtype=np.intp)
    lowest = observed - TIE_RTOL * np.abs(observed)
    strata = permutation_strata(data)
    for r in range(1, runs):
        permuted = replace(data, y=permuted_targets(data, strata, rng))
        scores = estimate(permuted, progress_part(callback, r / runs, (r + 1) / runs))
        # a NaN permuted estimate counts as reaching the observed one (conservative)
        reached += ~(np.asarray(scores, dtype=float) < lowest)
    p = np.where(np.isnan(observed), np.nan, (reached + 1) / runs)
    return Significance(scores=observed, pvalues=p, qvalues=benjamini_hochberg(p),
                        method="permutation", statistics=reached.astype(float),
                        n_permutations=int(n_permutations))


def significance(estimator, data, method="stir", n_permutations=None, random_state=None,
                 callback=None, calibration=STIR_CALIBRATION):
    """:func:`stir` (``method="stir"``, with ``calibration`` permutations),
    :func:`permutation_test` (``"permutation"``, with ``n_permutations``, None: enough for
    q < 0.05, see :func:`permutation_rule`), NPDR's own p-values (``"npdr"``,
    :meth:`.npdr.NPDR.test`, with ``calibration`` permutations) or the per-attribute
    regression test's (``"trend"``, :meth:`.trend.TrendTest.test`), drawn by
    ``random_state``."""
    if method == "stir":
        return stir(estimator, data, calibration, random_state, callback)
    if method == "permutation":
        return permutation_test(estimator, data, n_permutations, random_state, callback)
    if method in OWN_TESTS:
        if method not in estimator.significance_tests:
            raise ValueError(f"{estimator.name} has no regression p-values of its own "
                             f"({method!r} are {OWN_TESTS[method]}'s): use STIR or "
                             "permutation p-values")
        return estimator.test(data, calibration, random_state, callback)
    raise ValueError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
