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
  Newton-Raphson (iteratively reweighted least squares) on a block of attributes at once: every
  step forms each attribute's (q + 1) x (q + 1) information matrix from products of the weights
  with the shared columns, and solves the block's systems together. Rows may be groups of
  trials (``counts`` trials, ``successes`` of them), which gives the same estimates as the
  trials one by one. The standard error is that of the inverse information at the maximum and
  z = b / se (Wald).

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
Wald errors are too wide under separation). Shared columns whose own model has no finite maximum (they predict the outcome
perfectly) raise :class:`SeparatedError`."""
import numpy as np

from .encoding import power_of_two_scale

__all__ = ["linear_fits", "logistic_fits", "shared_logistic_fit", "PairFits", "NullModel",
           "score_statistics", "logistic_scores", "SeparatedError"]

#: Newton steps of a logistic fit at most
MAX_ITERATIONS = 100
#: a fit has converged when no coefficient moves by more than this (relative to 1 + |b|)
TOLERANCE = 1e-11
#: a column whose variance left after the shared columns is below this share of its own is
#: taken as a combination of them (no coefficient)
COLLINEAR = 1e-10
#: a logistic coefficient beyond this size means that the likelihood has no finite maximum
SEPARATED = 30.0


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


def _pair_products(Z):
    """(P, q, q) -> the q(q+1)/2 products of pairs of columns (upper triangle) and their
    indices."""
    iu = np.triu_indices(Z.shape[1])
    return Z[:, iu[0]] * Z[:, iu[1]], iu


class SeparatedError(ValueError):
    """The shared columns alone predict the outcome perfectly (or their information matrix is
    singular): their logistic model has no finite maximum."""


def shared_logistic_fit(Z, successes, counts):
    """The logistic fit of the shared columns alone, (q,) coefficients: the starting point of
    :func:`logistic_fits` and the null model of :func:`logistic_scores`. Raises
    :class:`SeparatedError` when its likelihood has no finite maximum."""
    theta = np.zeros(Z.shape[1])
    for _ in range(MAX_ITERATIONS):
        mu = _expit(Z @ theta)
        w = counts * mu * (1 - mu)
        info = Z.T @ (w[:, None] * Z)
        if _collinear_shared(info):
            raise SeparatedError("the shared columns separate the outcome")
        step = np.linalg.solve(info, Z.T @ (successes - counts * mu))
        theta += step
        if np.abs(theta).max() > SEPARATED:
            raise SeparatedError("the shared columns separate the outcome")
        if np.all(np.abs(step) <= TOLERANCE * (1 + np.abs(theta))):
            break
    return theta


def _collinear_shared(info):
    """Whether a column of the information matrix ``info`` (q, q) is (nearly) a combination of
    the others: a pivot of its Cholesky factorisation below ``COLLINEAR`` of its diagonal."""
    q = info.shape[0]
    for c in range(q):
        own = info[c, c]
        if c == 0:
            left = own
        else:
            a, v = info[:c, :c], info[:c, c]
            try:
                left = own - v @ np.linalg.solve(a, v)
            except np.linalg.LinAlgError:
                return True
        if not left > COLLINEAR * max(own, np.finfo(float).tiny):
            return True
    return False


class NullModel:
    """The logistic model of the shared columns ``Z`` alone: ``residuals`` s - n mu and
    ``weights`` n mu (1 - mu) of the rows, ``information`` Z'WZ (module docstring)."""

    def __init__(self, Z, successes, counts):
        theta = shared_logistic_fit(Z, successes, counts)
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
    each column of ``D`` (P, B) (module docstring). ``successes`` and ``counts`` are (P,) for
    every model or (P, B) per model; ``start`` (q,) the shared columns' starting coefficients
    (default: :func:`shared_logistic_fit`); ``tick()``, if given, is called before every
    Newton step (an exception raised from it ends the fits: a cancel between steps of a long
    block of pairs)."""
    P, q = Z.shape
    B = D.shape[1]
    successes = np.broadcast_to(successes.reshape(P, -1), (P, B))
    counts = np.broadcast_to(counts.reshape(P, -1), (P, B))
    ZZ, iu = _pair_products(Z)
    theta = np.zeros((B, q + 1))
    theta[:, :q] = shared_logistic_fit(Z, successes[:, 0], counts[:, 0]) if start is None \
        else start
    active = np.ones(B, bool)
    info = np.empty((B, q + 1, q + 1))
    for _ in range(MAX_ITERATIONS):
        if tick is not None:
            tick()
        eta = Z @ theta[:, :q].T + D * theta[:, q]
        mu = _expit(eta)
        w = counts * mu * (1 - mu)
        r = successes - counts * mu
        wd = w * D
        zz = ZZ.T @ w                                     # (q(q+1)/2, B)
        info[:, iu[0], iu[1]] = zz.T
        info[:, iu[1], iu[0]] = zz.T
        info[:, :q, q] = info[:, q, :q] = (Z.T @ wd).T
        info[:, q, q] = np.einsum("pb,pb->b", wd, D)
        score = np.concatenate([(Z.T @ r).T, np.einsum("pb,pb->b", D, r)[:, None]], axis=1)
        singular = _collinear(info, q)
        info[singular] = np.eye(q + 1)
        score[singular] = 0.0
        step = np.linalg.solve(info, score[:, :, None])[:, :, 0]
        step[~active] = 0.0
        theta += step
        moving = np.any(np.abs(step) > TOLERANCE * (1 + np.abs(theta)), axis=1)
        active &= moving & ~singular & (np.abs(theta[:, q]) <= SEPARATED)
        if not active.any():
            break
    b = theta[:, q]
    with np.errstate(invalid="ignore", divide="ignore"):
        se = np.sqrt(np.linalg.inv(info)[:, q, q])
    bad = singular | (np.abs(b) > SEPARATED) | active
    b, se = np.where(bad, np.nan, b), np.where(bad, np.nan, se)
    z = b / se
    separated = np.flatnonzero(bad & ~singular)
    if separated.size:
        from .firth import logistic_regressions
        with np.errstate(divide="ignore", invalid="ignore"):
            firth = logistic_regressions(Z, D[:, separated], successes[:, separated],
                                         counts[:, separated], firth=True,
                                         likelihood_ratio=True)
        b[separated] = firth.coefficients[:, -1]
        se[separated] = firth.standard_errors[:, -1]
        z[separated] = firth.signed_root
    return PairFits(b, se, z, None, singular)


def _collinear(info, q):
    """(B,) whether the own column of each model is (nearly) a combination of the shared ones:
    the information left after the shared columns is below ``COLLINEAR`` of its own."""
    a = info[:, :q, :q]
    c = info[:, :q, q]
    left = info[:, q, q] - np.einsum("bi,bi->b", c, np.linalg.solve(a, c[:, :, None])[:, :, 0])
    return ~(left > COLLINEAR * info[:, q, q])
