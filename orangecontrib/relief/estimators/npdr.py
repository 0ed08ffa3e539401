"""NPDR: nearest-neighbour projected-distance regression (Le, Dawkins & McKinney, "Nearest-
neighbor Projected-Distance Regression (NPDR) for detecting network interactions with
adjustments for multiple tests and confounding", Bioinformatics 36(9), 2020, §2.2-2.4).

The pairs (i, j) of every sampled instance R_i with each member j of its neighbourhood
(MultiSURF's: the instances closer than the mean distance from R_i less half its standard
deviation; or its k nearest, all those tied with the k-th included) are the observations of one
regression per attribute A:

* a discrete class (case-control): the logistic regression of the pair's miss indicator (1 when
  the classes of i and j differ, 0 for a hit: the probability modelled is that of a miss, as in
  the authors' R package ``npdr``) on diff(A, i, j);
* a numeric target: the least-squares regression of ``|y_i - y_j|`` on diff(A, i, j);

with an intercept and, when the data carry covariates, the covariates' diffs as further
regressors (``|c_i - c_j|`` for a numeric covariate, 1 for unequal values of a discrete one), so
that a phenotype difference explained by a covariate difference (sex, age, ancestry) is not
credited to an attribute whose frequencies follow the covariate (§2.4). The diffs of the
attributes are Relief's (:mod:`.neighbourhood.diffs`: 1 for unequal discrete values, ``|x -
x'| / (max - min)`` for numeric ones); scaling a regressor scales its coefficient and leaves its
statistic and p-value unchanged.

The coefficient b_A of the attribute's diff is the estimate's ingredient; its test statistic (the
Wald z = b_A / se of the logistic fit, the t = b_A / se of the linear one, with P - q - 1 degrees
of freedom for P pairs and q other regressors) is the estimate, and the p-value is one-sided,
P(Z >= z) or P(T >= t), as in ``npdr``: only a positive coefficient, larger diffs across misses
(or across larger phenotype differences) than across hits, is evidence that A is relevant; a
negative one is not. The pairs share instances and are not independent, so the regressions'
own p-values are too small (on null SNP data with classes of 30 % and 70 %, a fifth of them
below 0.05); by default the statistics are referred to their null distribution from
permutations of the target, as STIR's (:meth:`NPDR.test`), which ``benchmarks/npdr.py``
measures. The p-values are adjusted by Benjamini-Hochberg and by Bonferroni.

What it finds: attributes whose values differ more often across the pairs of unlike class than
across the pairs of like class, as in interactions. A SNP with a main effect (each allele
raising the odds) changes that comparison little, and with unequal classes the comparison
moves with the class sizes too: most pairs of like class then belong to the larger class,
whose genotypes are more varied than the other's where its risk allele is the minor one (less
varied where it is the major one), so the one-sided test may find such a SNP irrelevant. On
400 individuals with 10 of 100 SNPs of an odds ratio of 2 per allele, NPDR found about a fifth
of them at q < 0.05 (averaged over 40 data sets, 20 % with 200 cases and 200 controls,
16 % with 42 % to 62 % cases), where the allelic trend test (:class:`.trend.TrendTest`,
the standard test for main effects) found 60 %.

The fits of all attributes share every regressor but one and are computed together
(:mod:`.pair_regression`). For a discrete class and discrete attributes of at most four values
(SNPs) whose instances fall into few groups of equal class and covariates (at most
``GROUP_LIMIT``: no covariates, or discrete ones such as sex and site), the pairs reduce
exactly to counts: for each attribute, the numbers of pairs and of misses among them in each
cell of (diff 0 or 1, covariate diffs), counted by popcount on the SNPs' bit planes without a
list of pairs; the logistic fit of those grouped counts is the fit of the pairs. Otherwise (a
numeric covariate, numeric attributes) the pairs' diffs are formed for a block of attributes at
a time and every fit runs over all the pairs: about 1.2 million for 2,000 instances in
MultiSURF's neighbourhoods, a second or so per attribute.
"""
from dataclasses import dataclass, replace

import numpy as np

from .base import Estimator, check_data, parallel_launch, progress_part, random_generator
from .description import Param
from .neighbourhood.diffs import DiffModel, DiffOptions, in_planes
from .neighbourhood.neighbours import nearest_neighbours
from .neighbourhood.bit_planes import unpack
from .neighbourhood.packed import cell_mismatch_counts, column_planes
from .pair_regression import (COLLINEAR, NullModel, PairFits, SeparatedError, linear_fits,
                              logistic_fits, logistic_scores, score_statistics)
from .parameters import ITERATIONS, RANDOM_STATE, equals
from .significance import (STIR_CALIBRATION, Significance, benjamini_hochberg,
                           calibrated_pvalues, check_calibration, permutation_strata,
                           permuted_targets)
from .surf import NEAR, MultiSURF

__all__ = ["NPDR", "NPDRContext", "NPDRSignificance", "default_k", "GROUP_LIMIT"]

#: the grouped counts (module docstring) are used for at most this many groups of instances of
#: equal class and covariates
GROUP_LIMIT = 64
#: the diffs of NPDR: Relief's, a missing value's diff the share of the other values (RELIEF-B:
#: RELIEF-D's class-conditional diffs would tell the regressions the classes of the pair)
DIFFS = DiffOptions(missing="B")
#: bytes of the pair diffs of one block of attributes (times the few arrays beside them)
PAIR_BLOCK_BYTES = 32 * 2 ** 20
#: words (sampled instances x words of the instances' bits x attributes) the grouped counts
#: read per block of attributes (a tenth of a second or so between progress reports)
COUNT_BLOCK_WORDS = 2 * 10 ** 8
#: bytes of the pair weights laid out as (weight, sampled instance, instance) matrices for the
#: counted score sums (:func:`_counted_scores`): kept for every block of attributes up to this
#: size, made again for each block above it
STACK_BYTES = 2 ** 30
#: bytes of the value indicators (and the products) of one block of attributes of the counted
#: score sums
SCORE_BLOCK_BYTES = 128 * 2 ** 20
#: the work of one pass of fits relative to the neighbour search on the same data, the share
#: of the progress each part reports (measured on 1,000 instances by ``benchmarks/npdr.py
#: --sections progress``: 1.0, 2.3 x 12, 19 and 77): the grouped counts read about as many
#: words as the search; the counted score sums multiply about 2.5 x (covariates + 2) times as
#: much; the fits over the pairs' diffs form them pair by pair, and the Wald fits take Newton
#: steps over them
FIT_WORK = {"grouped": 1.0, "counted": 2.5, "score": 20.0, "wald": 80.0, "linear": 20.0}

NEIGHBOURHOOD = Param(
    "neighbourhood", "choice", "multisurf", "Neighbours",
    choices=(("multisurf", "MultiSURF radius"), ("k-nearest", "k nearest")),
    tooltip="The neighbour pairs the regressions are fitted on: each instance with those closer "
            "than its mean distance less half a standard deviation (MultiSURF, the default of "
            "the NPDR paper, Le, Dawkins & McKinney 2020), or with its k nearest instances of "
            "any class (ties at the k-th distance included).")
NPDR_K = Param(
    "k", "int", None, "Nearest neighbours k", low=1, maximum=10000,
    none="MultiSURF's expected number",
    applies=equals("neighbourhood", "k-nearest"),
    tooltip="k nearest instances of each instance, of any class; by default "
            "(n − 1)(1 − erf(0.5/√2))/2, the expected number within MultiSURF's radius "
            "(as in the R package npdr).")
NPDR_STATISTIC = Param(
    "statistic", "choice", "score", "Test of an attribute",
    choices=(("score", "Score test"), ("wald", "Regression of each attribute")),
    advanced=True,
    tooltip="For a categorical class, how each attribute's diff is tested in the logistic "
            "regression of whether a neighbour pair is a miss: Rao's score test from the "
            "regression on the covariates' diffs alone, fitted once for all attributes (as "
            "REGENIE and SAIGE test genetic variants: fast with numeric covariates such as "
            "ancestry components, and defined when an attribute predicts the class "
            "perfectly), or the Wald z of each attribute's own regression (the NPDR paper's; "
            "where the attribute predicts the class perfectly, Firth's penalised likelihood). "
            "Both are standard normal under the null hypothesis. A numeric target is tested "
            "by its least-squares t either way.")


def default_k(n):
    """The k of ``npdr``'s k-nearest neighbourhoods by default: the expected number of
    instances within MultiSURF's radius (mean less half a standard deviation) among ``n`` for
    normal distances, floor((n - 1)(1 - erf(0.5 / sqrt 2)) / 2), at least 1."""
    from math import erf, sqrt
    return max(1, int(np.floor((n - 1) * (1 - erf(0.5 / sqrt(2))) / 2)))


@dataclass(eq=False)
class NPDRContext:
    """The neighbour pairs of NPDR: ``member[q, j]`` whether instance j is a neighbour of
    ``instances[q]``; ``rows``, ``others`` the same pairs as two index arrays (R_i first)."""
    data: object
    diff_model: DiffModel
    instances: np.ndarray
    member: np.ndarray
    rows: np.ndarray
    others: np.ndarray


@dataclass(frozen=True)
class NPDRSignificance(Significance):
    """:class:`.significance.Significance` of NPDR: ``scores`` and ``statistics`` are the test
    statistics (z or t), ``coefficients`` the attributes' diff coefficients b_A,
    ``standard_errors`` theirs, ``bonferroni`` the Bonferroni-adjusted p-values
    (min(1, p x the number of attributes tested)) and ``df`` the t-tests' degrees of freedom
    (None for the logistic fits' z)."""
    coefficients: np.ndarray = None
    standard_errors: np.ndarray = None
    bonferroni: np.ndarray = None
    df: int = None


class NPDR(Estimator):
    """Nearest-neighbour projected-distance regression; see the module docstring.

    Parameters
    ----------
    neighbourhood
        "multisurf" (each instance's MultiSURF radius) or "k-nearest".
    k
        Neighbours of each instance for "k-nearest" (at most N - 1 are taken); None =
        :func:`default_k`.
    iterations
        None = the neighbourhoods of every instance; an int m < N = those of m instances
        sampled with ``random_state``.
    random_state
        Seed of the sample of instances.
    statistic
        For a discrete class, "score" (Rao's score test of each attribute from the model of
        the covariates alone, :func:`.pair_regression.logistic_scores`) or "wald" (the Wald z of
        each attribute's own fit).
    """
    name = "NPDR"
    paper = "Le, Dawkins & McKinney 2020, Bioinformatics 36(9), §2"
    parameters = (NEIGHBOURHOOD, NPDR_K, ITERATIONS, RANDOM_STATE, NPDR_STATISTIC)
    samples_instances = True
    adjusts_covariates = True
    reads_weights = False
    split_selector = False
    min_instances = 3

    def __init__(self, neighbourhood="multisurf", k=None, iterations=None, random_state=None,
                 statistic="score"):
        self.neighbourhood = neighbourhood
        self.k = k
        self.statistic = statistic
        self.iterations = iterations
        self.random_state = random_state

    #: NPDR's own p-values (:meth:`test`) and permutations
    significance_tests = ("npdr", "permutation")

    def context(self, data, callback=None):
        """The neighbour pairs (the expensive part): the neighbourhoods of the sampled
        instances, found without the covariates."""
        check_data(data, self)
        n = data.n_instances
        plain = replace(data, covariates=None)
        if self.neighbourhood == "multisurf":
            bands = MultiSURF(iterations=self.iterations, random_state=self.random_state,
                              missing=DIFFS.missing).context(plain, callback)
            instances, member, model = bands.instances, bands.bands == NEAR, bands.diff_model
        else:
            k = min(default_k(n) if self.k is None else self.k, n - 1)
            model = DiffModel(plain, DIFFS)
            instances = np.arange(n) if self.iterations is None else \
                random_generator(self.random_state).choice(n, size=self.iterations,
                                                           replace=False)
            found = nearest_neighbours(model, instances, k, groups="all", callback=callback,
                                       shared_ties=True)
            neighbours, distances = found.neighbours[:, 0], found.distances[:, 0]
            kth = distances[:, k - 1:k]
            keep = (neighbours >= 0) & (distances <= kth)
            member = np.zeros((instances.size, n), bool)
            q, place = np.nonzero(keep)
            member[q, neighbours[q, place]] = True
        q, others = np.nonzero(member)
        if callback is not None:
            callback(1.0)
        return NPDRContext(data, model, instances, member, instances[q], others)

    def estimate(self, context, columns=None, callback=None):
        """The test statistics of the attributes of ``columns`` (default: the context's
        data): :meth:`fits`' statistics, 0 for an attribute whose diff does not vary among
        the pairs beyond the covariates' or when the outcome does not vary (no evidence
        either way)."""
        fits = self.fits(context, columns, callback)
        return np.where(fits.degenerate, 0.0, fits.statistics)

    def fits(self, context, columns=None, callback=None):
        """The regressions of every attribute of ``columns`` (default: the context's data) on
        the context's pairs: a :class:`.pair_regression.PairFits`. ``ValueError`` names a
        covariate that does not vary among the pairs, repeats others or explains the outcome
        of the pairs by itself."""
        data = context.data
        columns = data if columns is None else replace(columns, covariates=data.covariates)
        Z = _shared_columns(data, context.rows, context.others)
        if data.is_classification:
            outcome = (data.y[context.rows] != data.y[context.others]).astype(float)
        else:
            outcome = np.abs(data.y[context.rows] - data.y[context.others])
        if outcome.size == 0 or np.ptp(outcome) == 0:
            # every pair a hit, or every one a miss: no attribute explains anything
            nan = np.full(columns.n_attributes, np.nan)
            return PairFits(nan, nan, nan, None, np.ones(columns.n_attributes, bool))
        null = _null_model(data, Z, outcome)
        if data.is_classification:
            score = self.statistic == "score"
            model = context.diff_model if columns is data else \
                DiffModel(replace(columns, covariates=None), DIFFS)
            grouped = _grouped_fits(context, model, score, callback)
            if grouped is not None:
                return grouped
            if score and _counted(model, context, Z):
                return _counted_scores(context, model, Z, null, callback)
            return _pair_fits(context, columns, Z, outcome, self.statistic, null, callback)
        return _pair_fits(context, columns, Z, outcome, "linear", null, callback)

    def fit_work(self, data):
        """The work of one pass of :meth:`fits` on ``data`` relative to that of
        :meth:`context` (``FIT_WORK``): the share of the progress each part reports, told
        from the data's summary (:func:`.neighbourhood.diffs.in_planes`: whether the fits read
        the attributes from bit planes) without a model of the data; :meth:`context` checks
        the data."""
        if not data.is_classification:
            return FIT_WORK["linear"]
        bits = in_planes(data, DIFFS)
        covs = data.covariates
        if bits and (covs is None or np.all(covs.discrete)):
            return FIT_WORK["grouped"]
        if self.statistic == "wald":
            return FIT_WORK["wald"]
        if bits:
            return FIT_WORK["counted"] * (2 + (0 if covs is None else covs.n_covariates))
        return FIT_WORK["score"]

    def test(self, data, calibration=STIR_CALIBRATION, random_state=None, callback=None):
        """Statistics, one-sided p-values and their Benjamini-Hochberg and Bonferroni
        adjustments of every attribute of ``data``: an :class:`NPDRSignificance`.

        The pairs are not independent, so the regressions' own p-values (``calibration=0``)
        are too small, the more so with unequal classes; by default the statistics are
        referred to their null distribution from ``calibration`` permutations of the target
        drawn by ``random_state``, as STIR's (:func:`.significance.calibrated_pvalues`). The
        permutations keep the neighbourhoods (they do not depend on the target) and permute
        within strata of instances alike in their covariates
        (:func:`.significance.permutation_strata`: the groups of equal discrete covariates;
        with a numeric one, runs of instances of similar predicted targets), so that the
        target keeps its dependence on them. An attribute whose diff does not vary among the
        pairs beyond the covariates' gets the statistic 0 and p = 1; one without a known value
        (or whose likelihood has no finite maximum) NaN. ``callback(fraction)`` reports progress."""
        check_calibration(calibration)
        runs = calibration + 1
        # the neighbours are found once and the fits run once a permutation: each part's share
        # of the progress is its share of the work (:meth:`fit_work`)
        found = 1 / (1 + runs * self.fit_work(data))

        def run(r):
            lo = found + (1 - found) * r / runs
            return progress_part(callback, lo, lo + (1 - found) / runs)
        context = self.context(data, progress_part(callback, 0.0, found))
        fits = self.fits(context, callback=run(0))
        statistics = np.where(fits.degenerate, 0.0, fits.statistics)
        if calibration:
            rng = random_generator(random_state)
            strata = permutation_strata(data)
            null = np.empty((calibration, statistics.size))
            for r in range(calibration):
                permuted = replace(context, data=replace(
                    data, y=permuted_targets(data, strata, rng)))
                null[r] = self.estimate(permuted, callback=run(r + 1))
            p = calibrated_pvalues(statistics, null)
        else:
            from scipy import stats           # here: 30 MB that the estimates never need
            with np.errstate(invalid="ignore"):
                p = stats.norm.sf(statistics) if fits.df is None \
                    else stats.t.sf(statistics, fits.df)
            p = np.where(fits.degenerate, 1.0, p)
        if callback is not None:
            callback(1.0)
        tested = np.count_nonzero(~np.isnan(p))
        return NPDRSignificance(
            scores=statistics, pvalues=p, qvalues=benjamini_hochberg(p), method="npdr",
            statistics=statistics, n_permutations=int(calibration),
            coefficients=fits.coefficients, standard_errors=fits.standard_errors,
            bonferroni=np.minimum(p * tested, 1.0), df=fits.df)

    def __call__(self, data, callback=None):
        found = 1 / (1 + self.fit_work(data))
        context = self.context(data, progress_part(callback, 0.0, found))
        return self.estimate(context, callback=progress_part(callback, found, 1.0))


def _shared_columns(data, rows, others):
    """(P, 1 + c) the intercept and the covariates' diffs of the pairs; ``ValueError`` naming a
    covariate whose diffs do not vary or repeat others'."""
    ones = np.ones((rows.size, 1))
    if data.covariates is None:
        return ones
    Z = np.hstack([ones, data.covariates.pair_diffs(rows, others)])
    names = data.covariates.names
    gram = Z.T @ Z
    for c, name in enumerate(names):
        if np.ptp(Z[:, c + 1]) == 0:
            raise ValueError(f"NPDR: covariate {name!r} does not vary among the neighbour "
                             "pairs")
        # the share of the column's sum of squares left after the earlier columns' (from the
        # (q x q) Gram matrix: the pairs are read once)
        earlier, own = gram[:c + 1, :c + 1], gram[:c + 1, c + 1]
        left = gram[c + 1, c + 1] - own @ np.linalg.solve(earlier, own)
        if not left > COLLINEAR * gram[c + 1, c + 1]:
            earlier = ", ".join(repr(n) for n in names[:c])
            raise ValueError(f"NPDR: covariate {name!r} repeats {earlier} (its diffs among the "
                             "neighbour pairs are a combination of theirs): leave one out")
    return Z


def _null_model(data, Z, outcome):
    """The model of the pairs' outcome on the shared columns ``Z`` alone: a
    :class:`.pair_regression.NullModel` for a discrete class, None for a numeric target;
    ``ValueError`` naming the covariates that explain the outcome by themselves (a logistic
    model without a finite maximum; least squares without residuals)."""
    null, explained = _null_fit(data, Z, outcome)
    if not explained or data.covariates is None:     # the intercept alone explains nothing
        return null
    explains = "predicts whether a neighbour pair is a hit or a miss" \
        if data.is_classification else "explains the target's differences of the neighbour pairs"
    names = data.covariates.names if data.covariates is not None else ()
    alone = [name for c, name in enumerate(names)
             if _null_fit(data, Z[:, [0, c + 1]], outcome)[1]]
    named = ", ".join(repr(n) for n in (alone or names))
    raise ValueError(f"NPDR: covariate {named} {explains} by itself (nothing is left for the "
                     "attributes to explain): leave it out")


def _null_fit(data, Z, outcome):
    """(the null model, None for a numeric target; whether ``Z`` explains the outcome)."""
    if data.is_classification:
        try:
            return NullModel(Z, outcome, np.ones(outcome.size)), False
        except SeparatedError:
            return None, True
    Q, _ = np.linalg.qr(Z)
    left = outcome - Q @ (Q.T @ outcome)
    centred = outcome - outcome.mean()
    return None, not left @ left > COLLINEAR * (centred @ centred)


def _pair_fits(context, columns, Z, outcome, how, null, callback):
    """The fits from the pairs' diffs, a block of attributes at a time: ``how`` "linear",
    "wald" (logistic) or "score" (from the :class:`.pair_regression.NullModel` ``null``)."""
    P, a = context.rows.size, columns.n_attributes
    step = max(1, PAIR_BLOCK_BYTES // (8 * max(P, 1)))
    blocks = [np.arange(lo, min(lo + step, a)) for lo in range(0, a, step)]
    b, se, stat, flat = np.empty(a), np.empty(a), np.empty(a), np.zeros(a, bool)
    start = None
    if how == "wald":
        start = null.coefficients
    df = None
    plain = replace(columns, covariates=None)
    ones = np.ones(P)
    for cols in blocks:
        D = DiffModel(plain.columns(cols), DIFFS).pair_diffs(context.rows, context.others)
        unknown = np.isnan(D).any(axis=0)          # an attribute without a known value
        D[:, unknown] = 0.0
        # a block of many pairs (a million with a numeric covariate) takes seconds: its Newton
        # steps report the progress so far, so that a cancel takes effect between them
        tick = None if callback is None else lambda lo=cols[0]: callback(lo / a)
        if how == "wald":
            fit = logistic_fits(Z, D, outcome, ones, start, tick)
        elif how == "score":
            fit = logistic_scores(Z, D, outcome, ones, null)
        else:
            fit = linear_fits(Z, D, outcome)
        b[cols], se[cols], stat[cols], df = (fit.coefficients, fit.standard_errors,
                                             fit.statistics, fit.df)
        flat[cols] = fit.degenerate & ~unknown
        stat[cols[unknown]] = np.nan
        if callback is not None:
            callback((cols[-1] + 1) / a)
    return PairFits(b, se, stat, df, flat)


def _counted(model, context, Z):
    """Whether :func:`_counted_scores` applies: every attribute in the model's bit planes."""
    return model.planes.shape[2] > 0 and bool(model.usable.all())


def _counted_scores(context, model, Z, null, callback):
    """The score tests (:func:`.pair_regression.score_statistics`) of attributes held in bit
    planes (discrete, at most four values, none missing), without the pairs' diffs: the sums
    over the pairs of a weight c_p (the null model's residual r_p, and its weight w_p times each
    shared column) where the two instances of the pair differ, sum_p c_p - sum_p c_p [v_i =
    v_j], and the sums over the pairs of equal values come from one matrix product: with the
    weights of the pairs of each sampled instance q laid out as a row C[q, j] (0 for non-
    neighbours) and A_v the (instance, attribute) indicators of value v,
    sum_p c_p [v_i = v_j] = sum_v sum_q A_v[i_q] (C A_v)[q], the last value's product C A_V =
    C 1 - sum of the others'. Single-precision products (the sums of a sampled instance's
    neighbours), double-precision totals."""
    data = model.data
    n, a = data.n_instances, data.n_attributes
    member = context.member
    m = member.shape[0]
    q_of, others = np.nonzero(member)
    weights = np.column_stack([null.residuals, null.weights[:, None] * Z])      # (P, K)
    K = weights.shape[1]
    totals = weights.sum(axis=0)
    row_sums = np.stack([np.bincount(q_of, weights[:, k], minlength=m) for k in range(K)])
    V = int(max(int(np.max(data.n_values)), 1))
    chunk = max(1, STACK_BYTES // 4 // (K * n * 4)) if K * m * n * 4 > STACK_BYTES \
        else m
    chunks = [np.arange(lo, min(lo + chunk, m)) for lo in range(0, m, chunk)]

    def stack(queries):
        """(K * len(queries), n) float32 weights of the pairs of ``queries``."""
        out = np.zeros((K, queries.size, n), np.float32)
        inside = (q_of >= queries[0]) & (q_of <= queries[-1])
        out[:, q_of[inside] - queries[0], others[inside]] = weights[inside].T
        return out.reshape(K * queries.size, n)
    kept = [stack(c) for c in chunks] if K * m * n * 4 <= STACK_BYTES else None
    step = max(1, SCORE_BLOCK_BYTES // (4 * max(V - 1, 1) * max(K * chunk, n)))
    blocks = [np.arange(lo, min(lo + step, a)) for lo in range(0, a, step)]
    U, dWd, ZWd = np.empty(a), np.empty(a), np.empty((K - 1, a))
    constant = np.zeros(a, bool)
    for cols in blocks:
        codes = unpack(model.planes, np.arange(n), cols)                       # (n, b)
        constant[cols] = np.all(codes == codes[:1], axis=0)
        last = (codes == V - 1).astype(np.float32)
        A = np.concatenate([(codes == v) for v in range(V - 1)], axis=1).astype(np.float32)
        equal = np.zeros((K, cols.size))
        for c, queries in enumerate(chunks):
            rows = context.instances[queries]
            equal += row_sums[:, queries] @ last[rows]
            if V > 1:
                T = (kept[c] if kept is not None else stack(queries)) @ A
                T = T.reshape(K, queries.size, V - 1, cols.size)
                for v in range(V - 1):
                    weight = (codes[rows] == v).astype(np.float32) - last[rows]
                    equal += (T[:, :, v] * weight).sum(axis=1, dtype=np.float64)
        sums = totals[:, None] - equal
        U[cols], dWd[cols], ZWd[:, cols] = sums[0], sums[1], sums[1:]
        if callback is not None:
            callback((cols[-1] + 1) / a)
    fit = score_statistics(U, dWd, ZWd, null.information)
    nan = np.where(constant, np.nan, 0.0)
    return PairFits(fit.coefficients + nan, fit.standard_errors + nan, fit.statistics + nan,
                    None, fit.degenerate | constant)


def _grouped_fits(context, model, score, callback):
    """The logistic fits (``score``: the score tests) from the grouped counts of the pairs
    (module docstring), or None when the data do not allow them (not every attribute in bit
    planes, too many groups)."""
    data = model.data
    planes = model.planes
    usable = np.flatnonzero(model.usable)
    if planes.shape[2] == 0 or usable.size != data.n_attributes:
        return None
    ctx = context.data
    keys = ctx.y[:, None] if ctx.covariates is None else \
        np.hstack([ctx.y[:, None], ctx.covariates.values])
    kinds, groups = np.unique(keys, axis=0, return_inverse=True)
    G = kinds.shape[0]
    if G > GROUP_LIMIT:
        return None
    groups = groups.ravel().astype(np.intp)
    # the cell of a pair of groups (of R_i, of its neighbour): (miss, covariate diffs)
    first, second = np.repeat(np.arange(G), G), np.tile(np.arange(G), G)
    miss = (kinds[first, 0] != kinds[second, 0]).astype(float)
    if ctx.covariates is None:
        cov = np.zeros((G * G, 0))
    else:
        representative = np.array([np.flatnonzero(groups == g)[0] for g in range(G)])
        cov = ctx.covariates.pair_diffs(representative[first], representative[second])
    cells, cell_of = np.unique(np.hstack([miss[:, None], cov]), axis=0, return_inverse=True)
    cell_of = cell_of.ravel().reshape(G, G)
    K, a = cells.shape[0], data.n_attributes
    m, n = context.member.shape
    # the instances laid out group by group, each group padded to whole 64-bit words
    sizes = np.bincount(groups, minlength=G)
    bounds = np.concatenate([[0], np.cumsum((sizes + 63) // 64)]).astype(np.intp)
    order = np.argsort(groups, kind="stable")
    rank = np.empty(n, np.intp)
    rank[order] = np.arange(n) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    positions = 64 * bounds[groups] + rank
    n_words = int(bounds[-1])
    bits = np.zeros((m, 64 * n_words), np.uint8)
    bits[:, positions] = context.member
    masks = np.packbits(bits, axis=1, bitorder="little").view("<u8").astype(np.uint64)
    query_cells = np.ascontiguousarray(cell_of[groups[context.instances]], dtype=np.intp)
    query_positions = np.ascontiguousarray(positions[context.instances])
    mismatches = np.zeros((K, a), np.int64)
    step = max(1, COUNT_BLOCK_WORDS // max(m * n_words, 1))
    blocks = [np.arange(lo, min(lo + step, a)) for lo in range(0, a, step)]
    for done, cols in enumerate(blocks):
        columns = column_planes(planes, cols, positions, n_words)
        out = np.zeros((K, cols.size), np.int64)
        with parallel_launch():
            cell_mismatch_counts(columns, masks, query_positions, bounds, query_cells, out)
        mismatches[:, cols] = out
        if callback is not None:
            callback((done + 1) / len(blocks))
    in_groups = context.member.astype(np.int64) @ np.eye(G, dtype=np.int64)[groups]   # (m, G)
    totals = np.bincount(query_cells.ravel(), weights=in_groups.ravel(), minlength=K)
    mismatches = mismatches.astype(float)
    # rows of the grouped fit: (diff 0 or 1, covariate pattern), trials and misses per attribute
    patterns, pattern_of = np.unique(cells[:, 1:], axis=0, return_inverse=True)
    pattern_of = pattern_of.ravel()
    is_miss = cells[:, 0] == 1
    S = patterns.shape[0]
    to_pattern = np.eye(S)[pattern_of]                     # (K, S)
    trials1 = to_pattern.T @ mismatches                    # (S, a) pairs with diff 1
    misses1 = to_pattern[is_miss].T @ mismatches[is_miss]
    trials = to_pattern.T @ totals
    misses = to_pattern[is_miss].T @ totals[is_miss]
    Z = np.vstack([np.hstack([np.ones((S, 1)), patterns])] * 2)
    D = np.broadcast_to(np.repeat([0.0, 1.0], S)[:, None], (2 * S, a))
    counts = np.vstack([trials[:, None] - trials1, trials1])
    successes = np.vstack([misses[:, None] - misses1, misses1])
    return (logistic_scores if score else logistic_fits)(Z, D, successes, counts)
