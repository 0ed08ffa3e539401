"""The standard per-SNP test of a genome-wide association study, beside the neighbourhood
estimators: each attribute alone, in a regression of the target on the attribute's value (a
discrete attribute's code 0, 1, 2, ...: for a SNP the count of its second allele, the additive
model) and the covariates. It finds main effects (each allele raising the odds), which the
neighbourhood statistics (:mod:`.npdr`, STIR) mostly miss, and misses interactions without a
marginal effect, which they find: report it beside them.

* A case-control class (two classes; the second is the cases): the logistic regression of the
  class on the code and the covariates, tested by the Wald z of the code's coefficient, as
  PLINK 2's ``--glm`` (Chang, Chow, Tellier, Vattikuti, Purcell & Lee, "Second-generation
  PLINK: rising to the challenge of larger and richer datasets", GigaScience 4:7, 2015).
  Without covariates its score test is Armitage's test for trend in proportions (Armitage,
  "Tests for linear trends in proportions and frequencies", Biometrics 11(3), 1955), the
  allelic trend test; the Wald test is its asymptotic equivalent.
* Where the maximum-likelihood estimate does not exist or is not reached (a rare allele seen
  only in cases: separated data, whose likelihood rises without bound) the attribute is fitted
  by Firth's penalised likelihood instead (Firth 1993; Heinze & Schemper 2002;
  :mod:`.firth`), PLINK 2's ``--glm firth-fallback``. The rule: Firth's fit is used exactly
  for the attributes whose ordinary fit has not converged (:func:`.firth.logistic_regressions`:
  a fitted probability numerically 0 or 1, a step that cannot raise the likelihood, or 100
  Newton steps), and its test is the penalised likelihood ratio (Heinze & Schemper's
  recommendation; Firth's Wald errors are too wide under separation), reported as
  sign(b) sqrt(χ²) on the scale of z. ``firth="always"`` fits every attribute so,
  ``firth="never"`` none (an attribute whose fit fails then gets NaN, PLINK's NA).
* A numeric target: least squares of the target on the code and the covariates, tested by the
  t of the code's coefficient with n - k - 1 degrees of freedom (n instances with a known
  value, k covariate columns and the intercept).

The estimate (the ranking's score) is the statistic squared, χ² with 1 degree of freedom (or
t²): larger is more evidence of association, in either direction; :meth:`TrendTest.test` gives
the signed statistics, the coefficients (log odds ratios per allele), their standard errors,
the two-sided p-values and their Benjamini-Hochberg q-values. A missing value leaves its
instance out of that attribute's test alone. An attribute that does not vary among the
instances with known values (or is a combination of the covariates) has no coefficient: its
statistic is 0 and p = 1; one without a known value gets NaN.

Covariates (:attr:`.encoding.EncodedData.covariates`) enter every regression as further
columns: a numeric one as it is, a discrete one as indicators of its values but the first.
With a case-control class and only discrete covariates (or none), the instances fall into few
strata of equal covariates, and an attribute of few values (a SNP) into few cells of (stratum,
value): the logistic fit of the cells' counts of instances and cases is the fit of the
instances one by one, so the attributes are counted (one pass over their values) and then
fitted on a dozen rows each. Otherwise (a numeric covariate, numeric attributes) each
attribute's maximum-likelihood fit runs over the instances in one compiled loop
(:mod:`.instance_fits`: a pass over the instances a Newton step, the first from the
covariates' fit, shared), the attributes in parallel; Firth's fallback refits those that fail.
"""
from dataclasses import dataclass

import numpy as np

from .base import Estimator, check_data, progress_part
from .description import Param
from .encoding import power_of_two_scale
from .firth import SeparatedError, logistic_regressions, shared_fit
from .instance_fits import DEGENERATE, FAILED, instance_fits
from .significance import Significance, benjamini_hochberg

__all__ = ["TrendTest", "TrendSignificance", "FIRTH"]

#: the fits of :func:`.firth.logistic_regressions` for each choice of ``firth``
FIRTH_FITS = {"fallback": "fallback", "always": True, "never": False}
#: the counted fits (module docstring) serve at most this many strata of equal covariates...
STRATUM_LIMIT = 64
#: ...and attributes of at most this many values
VALUE_LIMIT = 8
#: bytes of the (instances x attributes) arrays of one block of attributes
BLOCK_BYTES = 32 * 2 ** 20

FIRTH = Param(
    "firth", "choice", "fallback", "Firth's penalised likelihood",
    choices=(("fallback", "where the ordinary fit fails"), ("always", "always"),
             ("never", "never")),
    tooltip="Firth's penalised likelihood (Firth 1993; Heinze & Schemper 2002) gives a finite "
            "estimate and a valid test where the ordinary logistic fit has none (a rare allele "
            "seen only in cases): used where the ordinary fit does not converge (PLINK 2's "
            "--glm firth-fallback), for every attribute, or never (NaN where the fit fails).")


@dataclass(frozen=True)
class TrendSignificance(Significance):
    """:class:`.significance.Significance` of the per-attribute regressions: ``scores`` the
    statistics squared, ``statistics`` the signed z (or t), ``coefficients`` the attributes'
    coefficients (log odds ratios per unit of the code for a class), ``standard_errors``
    theirs, ``firth`` which attributes were fitted by Firth's penalised likelihood (their
    statistic is the penalised likelihood ratio's signed root), ``df`` the t-tests' degrees of
    freedom per attribute (None for the logistic z) and ``test`` the test in words."""
    coefficients: np.ndarray = None
    standard_errors: np.ndarray = None
    firth: np.ndarray = None
    df: np.ndarray = None
    test: str = ""


class TrendTest(Estimator):
    """Each attribute's regression test (logistic with Firth's fallback for a case-control
    class, least squares for a numeric target), with the covariates; see the module docstring.

    Parameters
    ----------
    firth
        "fallback" (Firth's penalised likelihood where the ordinary logistic fit fails, the
        default), "always" or "never".
    """
    name = "Trend"
    display_name = "Allelic trend test"
    short_name = "Trend"
    paper = "Armitage 1955, Biometrics 11(3); PLINK 2 --glm, Chang et al. 2015, GigaScience 4:7"
    parameters = (FIRTH,)
    adjusts_covariates = True
    reads_weights = False
    split_selector = False
    min_instances = 3
    max_classes = 2
    #: its own regression p-values (:meth:`test`) and permutations
    significance_tests = ("trend", "permutation")

    def __init__(self, firth="fallback"):
        self.firth = firth

    def context(self, data, callback=None):
        check_data(data, self)
        if data.is_classification and data.n_classes > self.max_classes:
            raise ValueError(f"{self.name} tests a case-control class (two classes), the data "
                             f"have {data.n_classes}: use a numeric target or merge classes")
        _design(data)      # the covariates' columns checked before any fit
        return data

    def estimate(self, context, columns=None, callback=None):
        """The statistics squared of the attributes of ``columns`` (default: the context's
        data)."""
        return self.test(context if columns is None else _with_target(columns, context),
                         callback=callback).scores

    def test(self, data, calibration=None, random_state=None, callback=None):
        """Statistics, two-sided p-values and Benjamini-Hochberg q-values of every attribute
        of ``data``: a :class:`TrendSignificance`. The p-values are the regressions' own
        (normal, χ² or t); ``calibration`` and ``random_state``, which calibrate the
        neighbourhood tests by permutations, are not used."""
        self.context(data)
        a = data.n_attributes
        C, strata = _design(data)
        if data.is_classification:
            b, se, stat, firth = _logistic_tests(data, C, strata, self.firth, callback)
            from scipy import stats           # (imported only when a test runs)
            p = 2 * stats.norm.sf(np.abs(stat))
            df = None
            test = ("logistic regression Wald z; Firth's penalised likelihood ratio where "
                    "the ordinary fit fails" if self.firth == "fallback" else
                    "Firth's penalised likelihood ratio" if self.firth == "always" else
                    "logistic regression Wald z")
        else:
            b, se, stat, df = _linear_tests(data, C, callback)
            from scipy import stats
            with np.errstate(invalid="ignore"):
                p = 2 * stats.t.sf(np.abs(stat), np.maximum(df, 1))
            firth = np.zeros(a, bool)
            test = "least-squares t"
        p = np.where(np.isnan(stat), np.nan, p)
        if callback is not None:
            callback(1.0)
        return TrendSignificance(scores=stat ** 2, pvalues=p, qvalues=benjamini_hochberg(p),
                                 method="trend", statistics=stat, coefficients=b,
                                 standard_errors=se, firth=firth, df=df, test=test)


def _with_target(columns, data):
    from dataclasses import replace
    return replace(columns, y=data.y, covariates=data.covariates, n_classes=data.n_classes)


def _design(data):
    """The shared columns (n, k): the intercept, numeric covariates (standardised: the
    attributes' coefficients do not change) and indicators of each discrete covariate's values
    but the first; and the strata of equal discrete covariates (an int array), or None when a
    covariate is numeric. Raises ``ValueError`` for a covariate that does not vary or columns
    that repeat one another."""
    n = data.n_instances
    covs = data.covariates
    columns = [np.ones((n, 1))]
    if covs is None:
        return columns[0], np.zeros(n, np.intp)
    for c, name in enumerate(covs.names):
        values = covs.values[:, c]
        if np.ptp(values) == 0:
            raise ValueError(f"covariate {name!r} does not vary: leave it out")
        if covs.discrete[c]:
            levels = np.unique(values)
            columns.append((values[:, None] == levels[1:]).astype(float))
        else:
            columns.append(((values - values.mean()) / values.std())[:, None])
    C = np.hstack(columns)
    if np.linalg.matrix_rank(C) < C.shape[1]:
        raise ValueError("the covariates are linearly dependent (one repeats others): leave "
                         "one out")
    if not np.all(covs.discrete):
        return C, None
    strata = np.unique(covs.values, axis=0, return_inverse=True)[1].ravel()
    return C, strata.astype(np.intp)


def _blocks(data, rows_bytes):
    a = data.n_attributes
    step = max(1, int(BLOCK_BYTES // max(rows_bytes, 1)))
    return [np.arange(lo, min(lo + step, a)) for lo in range(0, a, step)]


def _dense(X, cols):
    """Columns ``cols`` of ``X`` (a float array, bit planes or a sparse matrix) as a float
    array (NaN = missing), each multiplied by a power of two (exact) that brings its largest
    magnitude into [0.5, 1), and those factors: the statistics do not change, the
    coefficients and their errors are multiplied by the factor, and no product overflows or
    vanishes whatever the attributes' unit."""
    block = X[:, cols]
    if hasattr(block, "toarray"):
        block = block.toarray()
    block = np.asarray(block, dtype=float)
    with np.errstate(all="ignore"):
        largest = np.nanmax(np.abs(block), axis=0, initial=0.0)
    scale = power_of_two_scale(largest)
    return block * scale, scale


def _logistic_tests(data, C, strata, firth, callback):
    """(coefficients, standard errors, signed statistics, fitted by Firth) of the attributes'
    logistic regressions (module docstring)."""
    a, n = data.n_attributes, data.n_instances
    y = (data.y == 1).astype(float)
    b, se, stat = np.full(a, np.nan), np.full(a, np.nan), np.full(a, np.nan)
    by_firth = np.zeros(a, bool)
    counted = strata is not None and strata.max() < STRATUM_LIMIT and \
        np.all(data.discrete) and np.all(data.n_values <= VALUE_LIMIT)
    if counted:
        S = int(strata.max()) + 1
        V = int(max(data.n_values.max(), 2))
        first = np.array([np.flatnonzero(strata == s)[0] for s in range(S)])
        shared = np.repeat(C[first], V, axis=0)                 # rows (stratum, value)
        own = np.tile(np.arange(V, dtype=float), S)
        cell = (2 * strata + y.astype(np.intp)) * (V + 1)      # (stratum, class) of each
    blocks = _blocks(data, 8 * n * 4)
    start = None
    for done, cols in enumerate(blocks):
        X, scale = _dense(data.X, cols)
        known = ~np.isnan(X)
        if counted:
            X = X / scale                       # the codes themselves
            # one bincount of (attribute, stratum, class, value) over the block; a missing
            # value counts as value V, left out
            width = cols.size
            codes = np.where(known, X, V).astype(np.intp) + cell[:, None] \
                + (2 * S * (V + 1)) * np.arange(width)
            counts = np.bincount(codes.ravel(), minlength=width * 2 * S * (V + 1)).reshape(
                width, S, 2, V + 1)[..., :V].astype(float)
            counts = counts.transpose(1, 3, 2, 0).reshape(S * V, 2, width)  # (stratum, value)
            trials, successes = counts.sum(axis=1), counts[:, 1]
            args = (shared, own, successes, trials)
        else:
            args = (C, X, y, None)
        if counted or firth == "always":
            fits = logistic_regressions(*args, firth=FIRTH_FITS[firth],
                                        likelihood_ratio=firth == "always")
            cb, cse = fits.coefficients[:, -1], fits.standard_errors[:, -1]
            cstat, used = fits.statistics, fits.by_firth
            failed = ~fits.converged & ~fits.degenerate
            degenerate = fits.degenerate
        else:
            # over the instances: each attribute's maximum-likelihood fit in one compiled loop
            if start is None:
                try:
                    start = shared_fit(C, y, np.ones(n))
                except SeparatedError:      # (the covariates alone separate the classes)
                    start = np.zeros(C.shape[1])
            fits = instance_fits(C, X, y, start)
            cb, cse = fits.coefficients[:, -1], fits.standard_error
            with np.errstate(invalid="ignore", divide="ignore"):
                cstat = cb / cse
            degenerate = fits.status == DEGENERATE
            failed = fits.status == FAILED
            used = np.zeros(cols.size, bool)
            if firth == "fallback" and failed.any():
                sub = np.flatnonzero(failed)
                refit = logistic_regressions(C, X[:, sub], y, firth=True, likelihood_ratio=True,
                                             start=start)
                cb[sub], cse[sub] = refit.coefficients[:, -1], refit.standard_errors[:, -1]
                cstat[sub] = refit.signed_root
                used[sub] = True
        if firth == "never":
            cb, cse, cstat = (np.where(failed, np.nan, x) for x in (cb, cse, cstat))
        cstat = np.where(degenerate, 0.0, cstat)
        cstat = np.where(known.any(axis=0), cstat, np.nan)
        if not counted:
            cb, cse = cb * scale, cse * scale
        b[cols], se[cols], stat[cols], by_firth[cols] = cb, cse, cstat, used & ~degenerate
        if callback is not None:
            callback((done + 1) / len(blocks))
    return b, se, stat, by_firth


def _linear_tests(data, C, callback):
    """(coefficients, standard errors, t, degrees of freedom) of the attributes' least-squares
    regressions on the covariates' columns ``C``, by the normal equations of each attribute's
    instances with a known value (the target and the covariates centred first)."""
    a, n = data.n_attributes, data.n_instances
    k = C.shape[1]
    scale = data.y_span if data.y_span > 0 else 1.0
    y = (data.y - data.y.mean()) / scale
    b, se, t, df = (np.full(a, np.nan) for _ in range(4))
    iu = np.triu_indices(k)
    CC = C[:, iu[0]] * C[:, iu[1]]
    blocks = _blocks(data, 8 * n * 4)
    for done, cols in enumerate(blocks):
        X, factor = _dense(data.X, cols)
        M = (~np.isnan(X)).astype(float)
        X0 = np.where(M > 0, X, 0.0)
        m = cols.size
        A = np.empty((m, k + 1, k + 1))
        cc = (CC.T @ M).T
        A[:, iu[0], iu[1]] = cc
        A[:, iu[1], iu[0]] = cc
        A[:, :k, k] = A[:, k, :k] = (C.T @ X0).T
        A[:, k, k] = np.einsum("nb,nb->b", X0, X0)
        r = np.concatenate([((C * y[:, None]).T @ M).T, (y @ X0)[:, None]], axis=1)
        yy = (y * y) @ M
        count = M.sum(axis=0)
        d = np.sqrt(np.maximum(np.einsum("bii->bi", A), np.finfo(float).tiny))
        corr = A / d[:, :, None] / d[:, None, :]
        singular = ~(np.linalg.eigvalsh(corr)[:, 0] > 1e-10) | (count <= k + 1)
        corr[singular] = np.eye(k + 1)
        inverse = np.linalg.inv(corr) / d[:, :, None] / d[:, None, :]
        beta = np.einsum("bij,bj->bi", inverse, r)
        rss = np.maximum(yy - np.einsum("bi,bi->b", beta, r), 0.0)
        dof = count - k - 1
        with np.errstate(invalid="ignore", divide="ignore"):
            s = np.sqrt(rss / dof * inverse[:, k, k])
            tt = beta[:, k] / s
        tt = np.where(singular, 0.0, tt)
        tt = np.where(count > 0, tt, np.nan)
        b[cols] = np.where(singular, np.nan, beta[:, k] * scale * factor)
        se[cols] = np.where(singular, np.nan, s * scale * factor)
        t[cols], df[cols] = tt, dof
        if callback is not None:
            callback((done + 1) / len(blocks))
    return b, se, t, df
