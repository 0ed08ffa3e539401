"""Many logistic regressions that share every column but one, fitted together, by maximum
likelihood or by Firth's penalised likelihood: the per-SNP tests of a genome (one model per
SNP, the same covariates in each).

Each model m regresses ``successes`` out of ``trials`` per row r (0/1 outcomes and one trial a
row for instances; counts for rows that group alike instances) on the shared columns ``C`` (r,
k) (an intercept and the covariates) and a column ``t_m`` of its own (the SNP's additive code),
with the logit link: logit p_r = C_r a_m + t_rm b_m. A missing value (NaN) of ``t_m`` leaves its
row out of model m alone.

* **Maximum likelihood** (``firth=False``): Newton-Raphson on the log-likelihood
  l(β) = Σ_r s_r log p_r + (n_r - s_r) log(1 - p_r), with the Fisher information
  I(β) = X' W X, W = diag(n_r p_r (1 - p_r)) (for the logit link the observed and expected
  information agree, so this is also iteratively reweighted least squares).
* **Firth's penalised likelihood** (``firth=True``; Firth, "Bias reduction of maximum
  likelihood estimates", Biometrika 80(1), 1993, eq. 2 and §3.3; Heinze & Schemper, "A
  solution to the problem of separation in logistic regression", Statistics in Medicine 21,
  2002, eqs. 2-3): l*(β) = l(β) + ½ log det I(β), Jeffreys' invariant prior as a penalty, whose
  maximum is finite even where the data are separated (a SNP seen only in cases), when l has
  none. Its score is U*(β)_j = Σ_r (s_r - n_r p_r + h_r (½ - p_r)) x_rj, h_r the diagonal of the
  hat matrix W^½ X I⁻¹ X' W^½; the steps solve U* with the augmented information below (Heinze
  & Schemper's step with I in its place converges to the same root, more slowly), halved while
  l* decreases and at most ``MAX_STEP`` in any coefficient.

Every step forms each model's (k + 1) x (k + 1) information from products of the weights with
the shared columns (one matrix product for all the models of a block), the models' systems are
solved together, and only the models that have not converged take further steps.

Standard errors: those of I(β̂)⁻¹ for the maximum-likelihood estimate; for Firth's, those of
the inverse information of the augmented data, X' diag(w_r + h_r p_r (1 - p_r)) X (Firth's
estimate is the maximum-likelihood estimate of the data with each row's leverage h_r added as
h_r / 2 pseudo-trials of each outcome; as ``firthmodels`` and REGENIE, Mbatchou et al.,
Nature Genetics 53, 2021), which also makes the steps Newton-like. The Wald statistic
z = b / se has its two-sided normal p-value; ``likelihood_ratio=True`` adds the (penalised)
likelihood-ratio test of b = 0 (Heinze & Schemper §2.2): twice the gain of l (or l*) from the
fit of the shared columns with b held at 0 (for l*, whose penalty is that of the full model's
information, the constrained fit is one per model) to the full fit, referred to χ² with 1
degree of freedom. Firth's Wald errors are known to be too wide under separation (Heinze &
Schemper §2.2); the penalised likelihood ratio is their recommended test.

A model whose own column is constant or a combination of the shared columns among its rows
(``degenerate``) has no coefficient: NaN everywhere. A maximum-likelihood fit fails
(``converged=False``; its numbers are the last step's) where its likelihood has no finite
maximum (separated data: the coefficient grows without bound): when a fitted probability of a
row becomes numerically 0 or 1 (a logit beyond ±``EXTREME``, where R's ``glm`` warns so), when
no step halved ``MAX_HALVINGS`` times raises the likelihood, or after ``max_iterations`` steps.
Firth's fits converge on separated data too. ``firth="fallback"`` fits by maximum likelihood
and refits by Firth's penalised likelihood, with its likelihood-ratio test, exactly the models
whose ordinary fit failed (PLINK 2's ``--glm firth-fallback``).
"""
from dataclasses import dataclass

import numpy as np

__all__ = ["LogisticFits", "logistic_regressions", "shared_fit", "SeparatedError",
           "MAX_ITERATIONS", "TOLERANCE"]

#: Newton steps of one fit at most
MAX_ITERATIONS = 100
#: a fit has converged when no coefficient moves by more than this (relative to 1 + abs(β))
TOLERANCE = 1e-10
#: the largest change of a coefficient in one step (Heinze & Schemper's step limit)
MAX_STEP = 5.0
#: halvings of a step that lowers the (penalised) log-likelihood (logistf's maxhs)
MAX_HALVINGS = 5
#: a model's information whose smallest eigenvalue, in correlation form, is below this is
#: singular: its own column is a combination of the shared ones among its rows
COLLINEAR = 1e-10
#: a maximum-likelihood fit with a fitted probability within exp(-EXTREME) of 0 or 1 (as R's
#: glm warns, "fitted probabilities numerically 0 or 1") is on separated data: stopped, not
#: converged
EXTREME = 36.0
#: bytes of the (rows x models) arrays of one block of models
BLOCK_BYTES = 48 * 2 ** 20


@dataclass(frozen=True, eq=False)
class LogisticFits:
    """The fits of m models: ``coefficients`` (m, k + 1), the shared columns' first and the own
    column's last, ``standard_errors`` (m, k + 1) from the inverse information, the own
    column's Wald ``z`` and two-sided ``pvalues``, the likelihood-ratio ``chi2`` and its
    ``lr_pvalues`` (None unless asked for), the maximised (penalised) ``loglik``, ``converged``,
    ``iterations`` (Newton steps) and ``degenerate`` (no coefficient, module docstring)."""
    coefficients: np.ndarray
    standard_errors: np.ndarray
    z: np.ndarray
    pvalues: np.ndarray
    loglik: np.ndarray
    converged: np.ndarray
    iterations: np.ndarray
    degenerate: np.ndarray
    chi2: np.ndarray = None
    lr_pvalues: np.ndarray = None
    firth: bool = False
    fallback: np.ndarray = None

    @property
    def signed_root(self):
        """sign(b) sqrt(χ²): the likelihood-ratio statistic on the scale of z."""
        return np.sign(self.coefficients[:, -1]) * np.sqrt(self.chi2)

    @property
    def by_firth(self):
        """(m,) which models were fitted by Firth's penalised likelihood: all (``firth``) or
        those whose ordinary fit failed (``fallback``)."""
        m = self.z.size
        return np.full(m, True) if self.firth is True else \
            np.zeros(m, bool) if self.fallback is None else self.fallback

    @property
    def statistics(self):
        """(m,) each model's test statistic: the Wald z of an ordinary fit, the penalised
        likelihood ratio's signed root of a fit by Firth's (Heinze & Schemper's recommended
        test) where its χ² was computed."""
        if self.chi2 is None:
            return self.z
        return np.where(self.by_firth, self.signed_root, self.z)


def _logistic(eta, S, N, loglik=True):
    """At the linear predictors ``eta`` (r, b): the fitted probabilities p = 1 / (1 + exp(-eta))
    and 1 - p, the weights N p (1 - p), the residuals S - N p (as S (1 - p) - (N - S) p: exact
    in both tails), the log-likelihoods Σ_r S eta - N log(1 + exp(eta)) (None unless
    ``loglik``) and whether a row with trials has a fitted probability numerically 0 or 1
    (abs(eta) > ``EXTREME``), from one exponential of -abs(eta)."""
    e = np.exp(-np.abs(eta))
    d = 1.0 + e
    positive = eta >= 0
    p = np.where(positive, 1.0, e) / d
    q = np.where(positive, e, 1.0) / d
    w = N * p * q
    residual = S * q - (N - S) * p
    ll = None
    if loglik:
        ll = np.einsum("rb,rb->b", S, eta) \
            - np.einsum("rb,rb->b", N, np.maximum(eta, 0.0) + np.log(d))
    extreme = np.any((e < np.exp(-EXTREME)) & (N > 0), axis=0)
    return p, q, w, residual, ll, extreme


@dataclass(eq=False)
class _Point:
    """The fits of some models at their coefficients: the objective (the log-likelihood or
    Firth's penalised one), the matrix of the step (the information, or
    the augmented information for Firth's), the (modified) score, which informations are
    singular and which fits reached a fitted probability numerically 0 or 1."""
    objective: np.ndarray
    matrix: np.ndarray
    score: np.ndarray
    singular: np.ndarray
    extreme: np.ndarray


class _Block:
    """The models of one block: shared columns ``C`` (r, k), own columns ``T`` (r, b) (0 where
    missing), ``S`` successes and ``N`` trials (r, b) (0 trials where missing)."""

    def __init__(self, C, T, S, N, firth):
        self.C, self.T, self.S, self.N, self.firth = C, T, S, N, firth
        k = C.shape[1]
        self.k = k
        self.iu = np.triu_indices(k)
        self.CC = C[:, self.iu[0]] * C[:, self.iu[1]]        # (r, k(k+1)/2)
        self.twice = np.where(self.iu[0] == self.iu[1], 1.0, 2.0)

    def columns(self, cols):
        """T, S, N of the models ``cols`` (an index array, or None for all)."""
        if cols is None:
            return self.T, self.S, self.N
        return self.T[:, cols], self.S[:, cols], self.N[:, cols]

    def information(self, w, T):
        """(b, k+1, k+1) X' diag(w) X of each model, rows weighted by ``w`` (r, b)."""
        C, k, iu = self.C, self.k, self.iu
        info = np.empty((w.shape[1], k + 1, k + 1))
        cc = (self.CC.T @ w).T
        info[:, iu[0], iu[1]] = cc
        info[:, iu[1], iu[0]] = cc
        wt = w * T
        info[:, :k, k] = info[:, k, :k] = (C.T @ wt).T
        info[:, k, k] = np.einsum("rb,rb->b", wt, T)
        return info

    def evaluate(self, beta, cols):
        """The :class:`_Point` of the models ``cols`` (None: all) at ``beta`` (b, k+1): for
        Firth's fits the modified score Σ_r (s_r - n_r p_r + h_r (½ - p_r)) x_r, h_r = w_r x_r'
        I⁻¹ x_r the diagonal of the hat matrix, and the augmented information
        X' diag(w + h p (1 - p)) X (module docstring)."""
        C, k = self.C, self.k
        T, S, N = self.columns(cols)
        eta = C @ beta[:, :k].T + T * beta[:, k]
        p, q, w, residual, objective, extreme = _logistic(eta, S, N)
        info = self.information(w, T)
        matrix = info
        inverse, logdet, singular = _inverse(info)
        if self.firth:
            a = inverse[:, self.iu[0], self.iu[1]] * self.twice
            h = w * (self.CC @ a.T + 2.0 * T * (C @ inverse[:, :k, k].T)
                     + T * T * inverse[:, k, k])
            residual = residual + h * (0.5 - p)
            matrix = self.information(w + h * p * q, T)
            objective = objective + 0.5 * logdet
        score = np.concatenate([(C.T @ residual).T,
                                np.einsum("rb,rb->b", T, residual)[:, None]], axis=1)
        return _Point(objective, matrix, score, singular, extreme)


def _inverse(info):
    """Inverses and log-determinants of the (b, p, p) informations, and which are singular
    (smallest eigenvalue of the correlation form below ``COLLINEAR``)."""
    d = np.sqrt(np.maximum(np.einsum("bii->bi", info), np.finfo(float).tiny))
    corr = info / d[:, :, None] / d[:, None, :]
    singular = ~(np.linalg.eigvalsh(corr)[:, 0] > COLLINEAR)
    corr[singular] = np.eye(info.shape[1])
    inverse = np.linalg.inv(corr) / d[:, :, None] / d[:, None, :]
    logdet = np.linalg.slogdet(corr)[1] + 2.0 * np.log(d).sum(axis=1)
    return inverse, logdet, singular


def _fit(block, beta, free, max_iterations, tick=None):
    """Steps from ``beta`` (b, k+1) on the coefficients ``free`` (a boolean mask over the
    k + 1; the others held) until a step moves none by more than ``TOLERANCE`` (that last step
    is taken without a new evaluation: its size is the estimate's error squared, so the
    information where it starts serves for the errors). A step is accepted when it does not
    lower the objective (l, or Firth's l*); otherwise it is halved. A model
    whose step is not accepted even halved ``MAX_HALVINGS`` times has stalled, and a
    maximum-likelihood fit that reaches a fitted probability numerically 0 or 1 (``EXTREME``)
    has diverged: neither has converged (the likelihood of separated data rises without bound).
    Returns (beta, objective, covariance, converged, iterations, singular); the covariance is
    the inverse of the information (of the augmented information for Firth's fit). ``tick()``,
    if given, is called before every step (an exception raised from it ends the fits)."""
    n_models = beta.shape[0]
    beta = beta.copy()
    point = block.evaluate(beta, None)
    objective, matrix, score = point.objective, point.matrix, point.score
    singular = point.singular
    converged = np.zeros(n_models, bool)
    iterations = np.zeros(n_models, np.intp)
    active = ~singular
    fi = np.flatnonzero(free)
    for _ in range(max_iterations):
        idx = np.flatnonzero(active)
        if idx.size == 0:
            break
        if tick is not None:
            tick()
        iterations[idx] += 1
        step_free = np.linalg.solve(matrix[idx][:, fi[:, None], fi],
                                    score[idx][:, fi, None])[:, :, 0]
        largest = np.abs(step_free).max(axis=1, keepdims=True)
        step_free *= MAX_STEP / np.maximum(largest, MAX_STEP)
        step = np.zeros((idx.size, beta.shape[1]))
        step[:, fi] = step_free
        small = ~np.any(np.abs(step) > TOLERANCE * (1.0 + np.abs(beta[idx])), axis=1)
        beta[idx[small]] += step[small]
        converged[idx[small]] = True
        active[idx[small]] = False
        pending = np.flatnonzero(~small)
        for _ in range(MAX_HALVINGS + 1):
            if pending.size == 0:
                break
            models = idx[pending]
            trial = beta[models] + step[pending]
            t = block.evaluate(trial, None if models.size == n_models else models)
            old = objective[models]
            ok = (t.objective >= old - 1e-12 * (1 + np.abs(old))) & ~t.singular
            done = models[ok]
            beta[done] = trial[ok]
            matrix[done], score[done] = t.matrix[ok], t.score[ok]
            objective[done] = t.objective[ok]
            if not block.firth:
                # a fitted probability numerically 0 or 1: separated data
                active[done[t.extreme[ok]]] = False
            pending = pending[~ok]
            step[pending] *= 0.5
        active[idx[pending]] = False            # stalled
    covariance = _inverse(matrix)[0]
    return beta, objective, covariance, converged, iterations, singular


class SeparatedError(ValueError):
    """The shared columns alone predict the outcome perfectly (or their information is
    singular): their logistic model has no finite maximum."""


def shared_fit(C, S, N):
    """The maximum-likelihood coefficients (k,) of the shared columns ``C`` (r, k) alone on
    rows of ``S`` successes out of ``N`` trials (r,): the start of every model's fit, and the
    null model of a score test. Newton steps as :func:`logistic_regressions`' (at most
    ``MAX_STEP`` in a coefficient); raises :class:`SeparatedError` where the likelihood has no
    finite maximum (a fitted probability numerically 0 or 1, a singular information, no
    convergence in ``MAX_ITERATIONS`` steps)."""
    k = C.shape[1]
    beta = np.zeros(k)
    for _ in range(MAX_ITERATIONS):
        _, _, w, residual, _, extreme = _logistic((C @ beta)[:, None], S[:, None], N[:, None],
                                                  False)
        inverse, _, singular = _inverse((C.T @ (w[:, 0][:, None] * C))[None])
        if singular[0] or extreme[0]:
            raise SeparatedError("the shared columns separate the outcome")
        step = inverse[0] @ (C.T @ residual[:, 0])
        largest = np.abs(step).max()
        step *= MAX_STEP / largest if largest > MAX_STEP else 1.0
        beta += step
        if np.all(np.abs(step) <= TOLERANCE * (1 + np.abs(beta))):
            return beta
    raise SeparatedError("the fit of the shared columns does not converge")


def logistic_regressions(shared, own, successes, trials=None, firth=False, likelihood_ratio=False,
                         max_iterations=MAX_ITERATIONS, callback=None, start=None, tick=None):
    """Logistic fits of m models (module docstring).

    Parameters
    ----------
    shared
        (r, k) the shared columns, the intercept (a column of ones) included by the caller.
    own
        (r, m) each model's own column (NaN = missing: the row is left out of that model), or
        (r,) one column for every model.
    successes
        (r,) or (r, m): the 0/1 outcome of each row, or the number of successes among its
        trials.
    trials
        None (one trial a row), (r,) or (r, m): the number of trials of each row (0 leaves
        the row out).
    firth
        False: maximum likelihood; True: Firth's penalised likelihood; "fallback": Firth's
        penalised likelihood, with its likelihood-ratio test, for the models whose ordinary fit
        has failed (not converged and not degenerate: PLINK 2's ``--glm firth-fallback``).
    likelihood_ratio
        Also the (penalised) likelihood-ratio test of the own column's coefficient.
    callback
        ``callback(fraction)`` after each block of models.
    start
        (k,) the shared columns' starting coefficients (default: their fit alone,
        :func:`shared_fit`, or zeros where it has no finite maximum).
    tick
        ``tick()`` before every Newton step (an exception raised from it ends the fits).

    Returns
    -------
    :class:`LogisticFits`
    """
    C = np.asarray(shared, dtype=float)
    if C.ndim != 2:
        raise ValueError("the shared columns must be a 2-D array (rows x columns)")
    r, k = C.shape
    T = np.asarray(own, dtype=float)
    T = T.reshape(r, -1)
    S = np.asarray(successes, dtype=float).reshape(r, -1)
    N = np.ones((r, 1)) if trials is None else np.asarray(trials, dtype=float).reshape(r, -1)
    m = max(T.shape[1], S.shape[1], N.shape[1])
    if not np.all(np.isfinite(C)):
        raise ValueError("the shared columns must be finite")
    if np.any(S < 0) or np.any(N < 0) or np.any(S > N):
        raise ValueError("successes must be between 0 and the number of trials")
    if firth not in (False, True, "fallback"):
        raise ValueError(f"firth must be False, True or 'fallback', got {firth!r}")
    beta0 = np.zeros(k + 1)
    if start is not None:
        beta0[:k] = start
    else:
        try:
            beta0[:k] = shared_fit(C, S[:, 0] if S.shape[1] == 1 else S.mean(axis=1),
                                   N[:, 0] if N.shape[1] == 1 else N.mean(axis=1))
        except SeparatedError:
            pass                  # from zeros
    p = k + 1
    out = dict(coefficients=np.full((m, p), np.nan), standard_errors=np.full((m, p), np.nan),
               loglik=np.full(m, np.nan), converged=np.zeros(m, bool),
               iterations=np.zeros(m, np.intp), degenerate=np.zeros(m, bool))
    chi2 = np.full(m, np.nan) if likelihood_ratio else None
    per_model = 8 * r * (12 + k * (k + 1) // 2)
    step = max(1, int(BLOCK_BYTES // per_model))
    free_all = np.ones(p, bool)
    held = free_all.copy()
    held[k] = False
    for lo in range(0, m, step):
        cols = slice(lo, min(lo + step, m))
        t = np.broadcast_to(T if T.shape[1] == 1 else T[:, cols], (r, cols.stop - lo))
        missing = np.isnan(t)
        n = np.broadcast_to(N if N.shape[1] == 1 else N[:, cols], t.shape)
        s = np.broadcast_to(S if S.shape[1] == 1 else S[:, cols], t.shape)
        if missing.any():
            n, s, t = np.where(missing, 0.0, n), np.where(missing, 0.0, s), \
                np.where(missing, 0.0, t)
        block = _Block(C, np.ascontiguousarray(t), np.ascontiguousarray(s),
                       np.ascontiguousarray(n), firth is True)
        begin = np.tile(beta0, (t.shape[1], 1))
        beta, objective, inverse, converged, iterations, singular = _fit(
            block, begin, free_all, max_iterations, tick)
        with np.errstate(invalid="ignore"):
            se = np.sqrt(np.einsum("bii->bi", inverse))
        beta[singular], se[singular] = np.nan, np.nan
        out["coefficients"][cols] = beta
        out["standard_errors"][cols] = se
        out["loglik"][cols] = np.where(singular, np.nan, objective)
        out["converged"][cols] = converged & ~singular
        out["iterations"][cols] = iterations
        out["degenerate"][cols] = singular
        if likelihood_ratio:
            _, null_objective, _, _, _, _ = _fit(block, begin, held, max_iterations, tick)
            chi2[cols] = np.where(singular, np.nan,
                                  np.maximum(2.0 * (objective - null_objective), 0.0))
        if callback is not None:
            callback(min(lo + step, m) / m)
    fallback = None
    if firth == "fallback":
        fallback = ~out["converged"] & ~out["degenerate"]
        sub = np.flatnonzero(fallback)
        if sub.size:
            pick = (lambda x: x if x.shape[1] == 1 else x[:, sub])
            refit = logistic_regressions(C, pick(T), pick(S), pick(N), firth=True,
                                         likelihood_ratio=True, max_iterations=max_iterations,
                                         start=beta0[:k], tick=tick)
            for name in out:
                out[name][sub] = getattr(refit, name)
            if chi2 is None:
                chi2 = np.full(m, np.nan)
            chi2[sub] = refit.chi2
    from scipy import stats           # here: the fits themselves never need it
    b, se = out["coefficients"][:, k], out["standard_errors"][:, k]
    with np.errstate(invalid="ignore", divide="ignore"):
        z = b / se
    pvalues = 2.0 * stats.norm.sf(np.abs(z))
    lr_p = None if chi2 is None else stats.chi2.sf(chi2, 1)
    return LogisticFits(z=z, pvalues=pvalues, chi2=chi2, lr_pvalues=lr_p, firth=firth is True,
                        fallback=fallback, **out)
