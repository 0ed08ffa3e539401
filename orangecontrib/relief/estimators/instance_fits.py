"""Maximum-likelihood logistic fits of many attributes one at a time over the instances, in one
compiled loop per attribute: the per-SNP test with numeric covariates (:mod:`.trend`), where
the instances do not fall into few cells that could be counted.

Each attribute j is fitted alone: logit P(y_r = 1) = C_r a_j + x_rj b_j over the instances r
whose value x_rj is known, with the shared columns ``C`` (the intercept and the covariates)
and the attribute's column x_j, by Newton-Raphson on the log-likelihood
l = sum_r y_r eta_r - log(1 + exp(eta_r)) (iteratively reweighted least squares: for the
logit link the observed and the expected information X'WX, W = diag(p_r (1 - p_r)), agree).
The steps follow :func:`.firth.logistic_regressions`' maximum-likelihood fits: from the fit of
the shared columns alone (b = 0), each step solves the information against the score, is
limited to ``MAX_STEP`` in any coefficient and halved while it lowers the likelihood; a fit has
converged when no coefficient moves by more than ``TOLERANCE`` (relative to 1 + abs(beta)).
It has failed where the likelihood has no finite maximum (separated data): a fitted
probability numerically 0 or 1 (a logit beyond ``EXTREME``), a step that halved
``MAX_HALVINGS`` times cannot raise the likelihood, or ``MAX_ITERATIONS`` steps (the caller
then fits it by Firth's penalised likelihood). An attribute whose column is constant among its
instances or a combination of the shared columns (a pivot of the Cholesky factorisation of the
information in correlation form below ``COLLINEAR``, the attribute's column last) is
degenerate: no coefficient. The standard error of b is that of the inverse information at the
estimate, sqrt((X'WX)^-1)_bb, and z = b / se is the Wald statistic.

Each attribute's fit reads its column once per Newton step (the products for the information,
the score and the likelihood in one pass over the instances), the attributes are fitted in
parallel (``prange``), and :func:`fit_columns_numpy` computes the same numbers (the same
floating-point operations in the same order: sums over the instances in their order) for all
the attributes of a small block at once, as the kernel's numpy equivalent.
"""
from collections import namedtuple

import numpy as np
from numba import njit, prange

from ..compilation import kernel, small_data_only
from .base import parallel_launch
from .firth import COLLINEAR, EXTREME, MAX_HALVINGS, MAX_ITERATIONS, MAX_STEP, TOLERANCE

__all__ = ["instance_fits", "fit_columns", "fit_columns_numpy", "Design", "ColumnFits",
           "CONVERGED", "FAILED", "DEGENERATE"]

#: a fit's outcome: converged, failed (no finite maximum reached), degenerate (no coefficient)
CONVERGED, FAILED, DEGENERATE = 0, 1, 2
#: the most (instances x attributes) the numpy equivalent takes on (about a second)...
NUMPY_WORK = 10 ** 6
#: ...and where the kernel is in the disk cache (loading it takes longer: a tenth of a second)
SMALL_WORK = 10 ** 5
#: rows whose terms 1 + exp(-abs(eta)) (each at most 2) are multiplied before one logarithm
LOG_ROWS = 512
#: a likelihood that falls by less than this share (of 1 + itself) is not lower
SLACK = 1e-12
#: the smallest exp(-abs(eta)) of a fitted probability not numerically 0 or 1
SMALLEST = float(np.exp(-EXTREME))
TINY = float(np.finfo(float).tiny)

#: the shared data of the fits: ``C`` (n, k) the shared columns, ``y`` (n,) the 0/1 outcome,
#: ``start`` (k + 1,) the starting coefficients (the shared columns' fit, 0 for the attribute)
Design = namedtuple("Design", "C y start")
#: the fits' outputs, one row per attribute: ``coefficients`` (m, k + 1) (the attribute's
#: last), ``standard_error`` (m,) of the attribute's coefficient, ``status`` (m,) int8
#: (``CONVERGED``, ``FAILED``, ``DEGENERATE``), ``iterations`` (m,) Newton steps
ColumnFits = namedtuple("ColumnFits", "coefficients standard_error status iterations")


# ---------------------------------------------------------------------------------------------
# numpy equivalent: every attribute of the block at once, the kernel's operations in its order


def _evaluate_numpy(C, y, X, known, beta):
    """The log-likelihoods (b,), whether a fitted probability is numerically 0 or 1 (b,), the
    informations (b, p, p) and the scores (b, p) of the attributes ``X`` (b, n) at ``beta``
    (b, p): the kernel's :func:`_evaluate`, sums over the instances in their order (the
    logarithms of the products of ``LOG_ROWS`` rows' terms after the rows)."""
    b, n = X.shape
    p = beta.shape[1]
    k = p - 1
    x = np.where(known, X, 0.0)
    eta = np.zeros((b, n))
    for c in range(k):
        eta = eta + C[:, c] * beta[:, c, None]
    eta = eta + x * beta[:, k, None]
    e = np.exp(-np.abs(eta))
    dd = 1.0 + e
    inv = 1.0 / dd
    positive = eta >= 0
    pr = np.where(positive, inv, e * inv)
    qr = np.where(positive, e * inv, inv)
    w = pr * qr
    residual = y * qr - (1.0 - y) * pr
    chunks = -(-n // LOG_ROWS)
    pad = chunks * LOG_ROWS - n
    terms = np.pad(np.where(known, y * eta - np.maximum(eta, 0.0), 0.0), ((0, 0), (0, pad)))
    factors = np.pad(np.where(known, dd, 1.0), ((0, 0), (0, pad)), constant_values=1.0)
    products = np.cumprod(factors.reshape(b, chunks, LOG_ROWS), axis=2)[:, :, -1:]
    series = np.concatenate([terms.reshape(b, chunks, LOG_ROWS), -np.log(products)], axis=2)
    loglik = np.cumsum(series.reshape(b, -1), axis=1)[:, -1]
    total = (lambda values: np.cumsum(np.where(known, values, 0.0), axis=1)[:, -1])
    extreme = np.any(known & (e < SMALLEST), axis=1)
    columns = [C[:, c] for c in range(k)] + [x]
    info = np.empty((b, p, p))
    score = np.empty((b, p))
    for i in range(p):
        score[:, i] = total(residual * columns[i])
        wx = w * columns[i]
        for j in range(i, p):
            info[:, i, j] = info[:, j, i] = total(wx * columns[j])
    return loglik, extreme, info, score


def _factor_numpy(info):
    """The kernel's :func:`_factor` of each information (b, p, p): (L, d, nonsingular)."""
    b, p, _ = info.shape
    d = np.sqrt(np.maximum(np.einsum("bii->bi", info), TINY))
    L = np.zeros((b, p, p))
    ok = np.ones(b, bool)
    for j in range(p):
        s = info[:, j, j] / d[:, j] / d[:, j]
        for q in range(j):
            s = s - L[:, j, q] * L[:, j, q]
        ok &= s > COLLINEAR
        L[:, j, j] = np.sqrt(np.where(s > COLLINEAR, s, 1.0))
        for i in range(j + 1, p):
            t = info[:, i, j] / d[:, i] / d[:, j]
            for q in range(j):
                t = t - L[:, i, q] * L[:, j, q]
            L[:, i, j] = t / L[:, j, j]
    return L, d, ok


def _solve_numpy(L, d, score):
    """The kernel's :func:`_solve` for each model: the Newton steps (b, p)."""
    b, p = score.shape
    v = np.empty((b, p))
    for i in range(p):
        s = score[:, i] / d[:, i]
        for q in range(i):
            s = s - L[:, i, q] * v[:, q]
        v[:, i] = s / L[:, i, i]
    x = np.empty((b, p))
    for i in range(p - 1, -1, -1):
        s = v[:, i]
        for q in range(i + 1, p):
            s = s - L[:, q, i] * x[:, q]
        x[:, i] = s / L[:, i, i]
    return x / d


#: states of a fit in :func:`fit_columns_numpy`
_STEP, _TRIAL, _DONE = 0, 1, 2


def fit_columns_numpy(design, X, coefficients, standard_error, status, iterations):
    """:func:`fit_columns` with numpy: every attribute's fit advanced together, each by the
    kernel's rule (a state per fit: to take a step, to try one, done); up to ``NUMPY_WORK``
    instances x attributes."""
    C, y, start = design.C, design.y, design.start
    b, n = X.shape
    if b * n > (SMALL_WORK if small_data_only() else NUMPY_WORK):
        return NotImplemented
    p = start.size
    k = p - 1
    known = ~np.isnan(X)
    beta = np.tile(start, (b, 1))
    loglik, _, info, score = _evaluate_numpy(C, y, X, known, beta)
    L, d, ok = _factor_numpy(info)
    status[:] = np.where(ok, FAILED, DEGENERATE)
    state = np.where(ok, _STEP, _DONE)
    iterations[:] = 0
    halvings = np.zeros(b, np.int64)
    step = np.zeros((b, p))
    while True:
        s = np.flatnonzero(state == _STEP)
        state[s[iterations[s] >= MAX_ITERATIONS]] = _DONE
        s = s[iterations[s] < MAX_ITERATIONS]
        if s.size:
            iterations[s] += 1
            new = _solve_numpy(L[s], d[s], score[s])
            largest = np.abs(new).max(axis=1)
            shrink = largest > MAX_STEP
            new[shrink] = new[shrink] * (MAX_STEP / largest[shrink])[:, None]
            small = np.all(np.abs(new) <= TOLERANCE * (1.0 + np.abs(beta[s])), axis=1)
            done = s[small]
            beta[done] = beta[done] + new[small]
            status[done] = CONVERGED
            state[done] = _DONE
            trying = s[~small]
            step[trying] = new[~small]
            halvings[trying] = 0
            state[trying] = _TRIAL
        t = np.flatnonzero(state == _TRIAL)
        if t.size == 0:
            if not np.any(state == _STEP):
                break
            continue
        trial = beta[t] + step[t]
        t_ll, t_extreme, t_info, t_score = _evaluate_numpy(C, y, X[t], known[t], trial)
        t_L, t_d, t_ok = _factor_numpy(t_info)
        old = loglik[t]
        accept = (t_ll >= old - SLACK * (1.0 + np.abs(old))) & t_ok
        a = t[accept]
        beta[a], loglik[a], info[a], score[a] = trial[accept], t_ll[accept], \
            t_info[accept], t_score[accept]
        L[a], d[a] = t_L[accept], t_d[accept]
        state[a] = np.where(t_extreme[accept], _DONE, _STEP)
        r = t[~accept]
        step[r] = step[r] * 0.5
        halvings[r] += 1
        state[r[halvings[r] > MAX_HALVINGS]] = _DONE
    se = 1.0 / (L[:, k, k] * d[:, k])
    degenerate = status == DEGENERATE
    coefficients[:] = np.where(degenerate[:, None], np.nan, beta)
    standard_error[:] = np.where(degenerate, np.nan, se)
    return None


# ---------------------------------------------------------------------------------------------
# the kernel


@njit(cache=True, nogil=True, inline="always")
def _row_values(C, y, beta, r, t, row):
    """Row ``r`` of the fit with attribute value ``t`` at ``beta``: its columns written into
    ``row`` (the shared ones, then t); (weight p (1 - p), residual y - p, its log-likelihood
    but for -log(1 + exp(-abs(eta))), 1 + exp(-abs(eta)), whether p is numerically 0 or 1)."""
    k = C.shape[1]
    eta = 0.0
    for c in range(k):
        row[c] = C[r, c]
        eta += C[r, c] * beta[c]
    row[k] = t
    eta += t * beta[k]
    e = np.exp(-abs(eta))
    dd = 1.0 + e
    inv = 1.0 / dd
    if eta >= 0:
        pr = inv
        qr = e * inv
    else:
        pr = e * inv
        qr = inv
    return pr * qr, y[r] * qr - (1.0 - y[r]) * pr, y[r] * eta - max(eta, 0.0), dd, \
        e < SMALLEST


@njit(cache=True, nogil=True, inline="always")
def _accumulate(row, w, residual, info, score):
    p = row.size
    for i in range(p):
        score[i] += residual * row[i]
        wx = w * row[i]
        for j in range(i, p):
            info[i, j] += wx * row[j]


@njit(cache=True, nogil=True)
def _evaluate(C, y, x, beta, start_rows, info, score):
    """The log-likelihood at ``beta`` of the fit of column ``x`` (n,) (NaN rows left out),
    whether a fitted probability is numerically 0 or 1, and, written into ``info`` (p, p) and
    ``score`` (p,), the information X'WX and the score X'(y - p): one pass over the rows. The
    log-likelihood's terms -log(1 + exp(-abs(eta))) are taken as the logarithm of the product
    of ``LOG_ROWS`` rows' at a time (a product of at most 2^LOG_ROWS). ``start_rows``: the
    rows' values of :func:`_row_values` at ``beta`` where it is the start (the attribute's
    coefficient 0: they do not depend on the attribute), else an empty array."""
    n, k = C.shape
    p = k + 1
    info[:, :] = 0.0
    score[:] = 0.0
    row = np.empty(p)
    loglik = 0.0
    product = 1.0
    extreme = False
    shared = start_rows.shape[0] > 0
    for r in range(n):
        t = x[r]
        if t == t:
            if shared:
                for c in range(k):
                    row[c] = C[r, c]
                row[k] = t
                w, residual, term, dd = start_rows[0, r], start_rows[1, r], \
                    start_rows[2, r], start_rows[3, r]
                far = start_rows[4, r] > 0
            else:
                w, residual, term, dd, far = _row_values(C, y, beta, r, t, row)
            loglik += term
            product *= dd
            extreme |= far
            _accumulate(row, w, residual, info, score)
        if (r + 1) % LOG_ROWS == 0 or r == n - 1:
            loglik -= np.log(product)
            product = 1.0
    for i in range(p):
        for j in range(i):
            info[i, j] = info[j, i]
    return loglik, extreme


@njit(cache=True, nogil=True)
def _start_rows(C, y, start):
    """(5, n) the values of :func:`_row_values` of every row at ``start`` (the attribute's
    coefficient 0), for :func:`_evaluate`."""
    n, k = C.shape
    out = np.empty((5, n))
    row = np.empty(k + 1)
    for r in range(n):
        w, residual, term, dd, far = _row_values(C, y, start, r, 0.0, row)
        out[0, r], out[1, r], out[2, r], out[3, r] = w, residual, term, dd
        out[4, r] = 1.0 if far else 0.0
    return out


@njit(cache=True, nogil=True)
def _factor(info, L, d):
    """Cholesky factor ``L`` of ``info`` in correlation form (scaled by ``d``, the square
    roots of its diagonal); False where a pivot is below ``COLLINEAR`` (singular)."""
    p = info.shape[0]
    ok = True
    for j in range(p):
        d[j] = np.sqrt(max(info[j, j], TINY))
    for j in range(p):
        s = info[j, j] / d[j] / d[j]
        for q in range(j):
            s = s - L[j, q] * L[j, q]
        if not s > COLLINEAR:
            ok = False
            s = 1.0
        L[j, j] = np.sqrt(s)
        for i in range(j + 1, p):
            t = info[i, j] / d[i] / d[j]
            for q in range(j):
                t = t - L[i, q] * L[j, q]
            L[i, j] = t / L[j, j]
    return ok


@njit(cache=True, nogil=True)
def _solve(L, d, score, out):
    """``out`` = info^-1 ``score`` from :func:`_factor`'s ``L`` and ``d``."""
    p = score.size
    v = np.empty(p)
    for i in range(p):
        s = score[i] / d[i]
        for q in range(i):
            s = s - L[i, q] * v[q]
        v[i] = s / L[i, i]
    for i in range(p - 1, -1, -1):
        s = v[i]
        for q in range(i + 1, p):
            s = s - L[q, i] * out[q]
        out[i] = s / L[i, i]
    for i in range(p):
        out[i] = out[i] / d[i]


@njit(cache=True, nogil=True)
def _fit_one(C, y, x, start, start_rows, beta):
    """The fit of column ``x`` (module docstring) from ``start``, its coefficients written
    into ``beta``: (status, standard error of the column's coefficient, Newton steps)."""
    p = start.size
    k = p - 1
    info, t_info = np.empty((p, p)), np.empty((p, p))
    L, t_L = np.zeros((p, p)), np.zeros((p, p))
    score, t_score = np.empty(p), np.empty(p)
    d, t_d = np.empty(p), np.empty(p)
    step, trial = np.empty(p), np.empty(p)
    beta[:] = start
    loglik, _ = _evaluate(C, y, x, beta, start_rows, info, score)
    if not _factor(info, L, d):
        beta[:] = np.nan
        return DEGENERATE, np.nan, 0
    status = FAILED
    iterations = 0
    for _ in range(MAX_ITERATIONS):
        iterations += 1
        _solve(L, d, score, step)
        largest = 0.0
        for i in range(p):
            largest = max(largest, abs(step[i]))
        if largest > MAX_STEP:
            shrink = MAX_STEP / largest
            for i in range(p):
                step[i] = step[i] * shrink
        small = True
        for i in range(p):
            if not abs(step[i]) <= TOLERANCE * (1.0 + abs(beta[i])):
                small = False
        if small:
            for i in range(p):
                beta[i] = beta[i] + step[i]
            status = CONVERGED
            break
        accepted = False
        extreme = False
        for _halving in range(MAX_HALVINGS + 1):
            for i in range(p):
                trial[i] = beta[i] + step[i]
            t_ll, extreme = _evaluate(C, y, x, trial, start_rows[:0], t_info, t_score)
            t_ok = _factor(t_info, t_L, t_d)
            if t_ll >= loglik - SLACK * (1.0 + abs(loglik)) and t_ok:
                beta[:] = trial
                loglik = t_ll
                info[:, :] = t_info
                score[:] = t_score
                L[:, :] = t_L
                d[:] = t_d
                accepted = True
                break
            for i in range(p):
                step[i] = step[i] * 0.5
        if not accepted or extreme:
            break
    return status, 1.0 / (L[k, k] * d[k]), iterations


@kernel(fit_columns_numpy)
@njit(cache=True, parallel=True, nogil=True)
def fit_columns(design, X, coefficients, standard_error, status, iterations):
    """The fits (module docstring) of the columns of ``X`` (b, n) (an attribute a row, NaN
    missing) on the :class:`Design` ``design``, written into the outputs (:class:`ColumnFits`'
    fields, a row per attribute); parallel over the attributes."""
    start_rows = _start_rows(design.C, design.y, design.start)
    for j in prange(X.shape[0]):
        s, se, steps = _fit_one(design.C, design.y, X[j], design.start, start_rows,
                                coefficients[j])
        status[j] = s
        standard_error[j] = se
        iterations[j] = steps


def instance_fits(C, X, y, start):
    """The fits of the columns of ``X`` (n, m) (NaN missing) with the shared columns ``C``
    (n, k) and outcome ``y`` (n,) 0/1, from ``start`` (k,) (the shared columns' fit): a
    :class:`ColumnFits`."""
    n, m = X.shape
    k = C.shape[1]
    begin = np.zeros(k + 1)
    begin[:k] = start
    design = Design(np.ascontiguousarray(C, dtype=float), np.ascontiguousarray(y, dtype=float),
                    begin)
    out = ColumnFits(np.empty((m, k + 1)), np.empty(m), np.empty(m, np.int8),
                     np.empty(m, np.int64))
    with parallel_launch():
        fit_columns(design, np.ascontiguousarray(X.T, dtype=float), *out)
    return out
