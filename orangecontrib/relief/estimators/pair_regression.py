"""Many regressions that share every column but one, fitted together: the fits of NPDR
(:mod:`.npdr`), one per attribute, over the same neighbour pairs.

Each model regresses an outcome on shared columns ``Z`` (an intercept and the covariates'
diffs) and one column ``d`` of its own (the attribute's diff); the coefficient of ``d`` is
wanted, with its standard error and test statistic.

* :func:`linear_fits`: least squares, by the Frisch-Waugh-Lovell theorem: ``d`` and the outcome
  are projected off the span of ``Z`` once for all attributes (a QR factorisation of ``Z``), and
  the coefficient is that of the residuals' simple regression,
  ``b = <r_d, r_y> / <r_d, r_d>``, with ``se² = RSS / (P - q - 1) / <r_d, r_d>`` (P rows, q
  shared columns) and t = b / se.
* :func:`logistic_fits`: maximum likelihood of a binomial model with the logit link, by
  :func:`.firth.logistic_regressions` (Newton-Raphson on a block of attributes at once). Rows
  may be groups of trials (``counts`` trials, ``successes`` of them), which gives the same
  estimates as the trials one by one. The standard error is that of the inverse information at
  the maximum and z = b / se (Wald).

* :func:`logistic_scores`: Rao's score test of each own column from the model of the shared
  columns alone, fitted once (as REGENIE and SAIGE test genetic variants: Mbatchou et al. 2021,
  Nat. Genet. 53:1097; Zhou et al. 2018, Nat. Genet. 50:1335). With the null model's fitted
  probabilities mu, weights W = n mu (1 - mu) and information A = Z'WZ, the score of a column d
  is U = d'(s - n mu) and its variance given the shared columns'
  V = d'Wd - d'WZ A^-1 Z'Wd (Rao 1948; Cox & Hinkley 1974, sec. 9.3); z = U / sqrt(V) is
  standard normal under the null, as the Wald z is, and exists whether or not the likelihood
  with d has a finite maximum (separation). The sums the statistics need, ``d'r``, ``d'Wd``
  and ``Z'Wd``, are linear in d, so they can be computed for many columns at once in whatever
  way the columns are held (:func:`score_statistics` takes the sums). The reported coefficient
  is the one Newton step from 0, U / V, with standard error 1 / sqrt(V).

An attribute whose column is constant or a combination of the shared columns has no
coefficient (NaN). One whose likelihood has no finite maximum (separated data: the column
predicts the outcome perfectly) is fitted by Firth's penalised likelihood instead, as PLINK 2's
``--glm firth-fallback`` does (:func:`.firth.logistic_regressions`; Firth 1993, Heinze &
Schemper 2002): its coefficient and standard error are Firth's and its statistic the signed
root of the penalised likelihood-ratio statistic (Heinze & Schemper's recommended test: Firth's
Wald errors are too wide under separation). Shared columns whose own model has no finite
maximum (they predict the outcome perfectly) raise :class:`.firth.SeparatedError`
(:func:`.firth.shared_fit`, the fit of the shared columns alone that every fit starts from)."""
import numpy as np

from .encoding import power_of_two_scale
from .firth import SeparatedError, logistic_regressions, shared_fit

__all__ = ["linear_fits", "logistic_fits", "PairFits", "NullModel", "score_statistics",
           "logistic_scores", "SeparatedError"]

#: a column whose variance left after the shared columns is below this share of its own is
#: taken as a combination of them (no coefficient)
COLLINEAR = 1e-10


class PairFits:
    """The coefficient of the own column of each model, ``coefficients``, its
    ``standard_errors``, the test ``statistics`` (t or z), the residual degrees of freedom
    ``df`` (P - q - 1; None for the Wald z of a logistic fit) and ``degenerate``, whether the
    own column is constant or a combination of the shared ones (no coefficient)."""

    def __init__(self, coefficients, standard_errors, statistics, df=None, degenerate=None):
        self.coefficients = coefficients
        self.standard_errors = standard_errors
        self.statistics = statistics
        self.df = df
        self.degenerate = np.zeros(np.shape(coefficients), bool) if degenerate is None \
            else degenerate


def linear_fits(Z, D, y):
    """Least-squares fits of ``y`` (P,) on ``Z`` (P, q) and each column of ``D`` (P, B)
    (module docstring)."""
    P, q = Z.shape
    # the outcome brought to [0.5, 1) by a power of two (exact): its squares neither overflow
    # nor vanish; the statistics do not depend on its unit
    scale = power_of_two_scale(np.max(np.abs(y)))
    Q, _ = np.linalg.qr(Z)
    y = y * scale
    r_y = y - Q @ (Q.T @ y)
    r_d = D - Q @ (Q.T @ D)
    s_dd = np.einsum("pb,pb->b", r_d, r_d)
    centred = D - D.mean(axis=0)
    own = np.einsum("pb,pb->b", centred, centred)
    ok = s_dd > COLLINEAR * np.maximum(own, np.finfo(float).tiny)
    df = P - q - 1
    with np.errstate(invalid="ignore", divide="ignore"):
        b = np.where(ok, (r_d.T @ r_y) / s_dd, np.nan)
        rss = np.maximum(r_y @ r_y - b ** 2 * s_dd, 0.0)
        se = np.sqrt(rss / df / s_dd) if df > 0 else np.full(b.shape, np.nan)
        t = np.where(se > 0, b / se, np.where(b > 0, np.inf, np.where(b < 0, -np.inf, np.nan)))
    se = np.where(ok, se, np.nan)
    return PairFits(b / scale, se / scale, np.where(ok, t, np.nan), df, ~ok)


def _expit(eta):
    return 0.5 * (1.0 + np.tanh(0.5 * eta))


class NullModel:
    """The logistic model of the shared columns ``Z`` alone: ``residuals`` s - n mu and
    ``weights`` n mu (1 - mu) of the rows, ``information`` Z'WZ (module docstring)."""

    def __init__(self, Z, successes, counts):
        theta = shared_fit(Z, successes, counts)
        mu = _expit(Z @ theta)
        self.coefficients = theta
        self.residuals = successes - counts * mu
        self.weights = counts * mu * (1 - mu)
        self.information = Z.T @ (self.weights[:, None] * Z)


def score_statistics(U, dWd, ZWd, information):
    """Rao's score test of columns d from their sums against a null model (module docstring):
    ``U`` (B,) d'r, ``dWd`` (B,) d'Wd, ``ZWd`` (q, B) Z'Wd, ``information`` (q, q) Z'WZ. Returns
    :class:`PairFits`: the one-step coefficients U / V, standard errors 1 / sqrt(V) and
    z = U / sqrt(V); a column whose variance left after the shared columns' is below
    ``COLLINEAR`` of its own (constant, or a combination of the shared columns) is degenerate
    (NaN)."""
    projected = np.einsum("qb,qb->b", ZWd, np.linalg.solve(information, ZWd))
    V = dWd - projected
    ok = V > COLLINEAR * np.maximum(dWd, np.finfo(float).tiny)
    with np.errstate(invalid="ignore", divide="ignore"):
        b = np.where(ok, U / V, np.nan)
        se = np.where(ok, 1 / np.sqrt(V), np.nan)
        z = np.where(ok, U / np.sqrt(V), np.nan)
    return PairFits(b, se, z, None, ~ok)


def logistic_scores(Z, D, successes, counts, null=None):
    """Score tests (module docstring) of each column of ``D`` (P, B) against the logistic model
    of ``successes`` out of ``counts`` on ``Z`` (P, q) alone (``null``, a :class:`NullModel`
    fitted here when not given). ``successes`` and ``counts`` are (P,), or (P, B) per column
    when the rows are groups whose totals over the column's values are the same for every
    column (the grouped counts of :mod:`.npdr`): the null model is then fitted on the first
    column's rows."""
    P = Z.shape[0]
    B = D.shape[1]
    successes = np.broadcast_to(successes.reshape(P, -1), (P, B))
    counts = np.broadcast_to(counts.reshape(P, -1), (P, B))
    if null is None:
        null = NullModel(Z, successes[:, 0], counts[:, 0])
    mu = _expit(Z @ null.coefficients)[:, None]
    r = successes - counts * mu
    wd = counts * (mu * (1 - mu)) * D
    U = np.einsum("pb,pb->b", D, r)
    return score_statistics(U, np.einsum("pb,pb->b", wd, D), Z.T @ wd, null.information)


def logistic_fits(Z, D, successes, counts, start=None, tick=None):
    """Logistic fits of ``successes`` out of ``counts`` trials per row on ``Z`` (P, q) and
    each column of ``D`` (P, B) (module docstring), by :func:`.firth.logistic_regressions`
    with Firth's fallback. ``successes`` and ``counts`` are (P,) for every model or (P, B) per
    model; ``start`` (q,) the shared columns' starting coefficients (default:
    :func:`.firth.shared_fit`); ``tick()``, if given, is called before every Newton step (an
    exception raised from it ends the fits: a cancel between steps of a long block of
    pairs)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        fits = logistic_regressions(Z, D, successes, counts, firth="fallback", start=start,
                                    tick=tick)
    return PairFits(fits.coefficients[:, -1], fits.standard_errors[:, -1], fits.statistics,
                    None, fits.degenerate)
