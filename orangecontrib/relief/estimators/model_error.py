"""Error of linear models on the two sides of a binary split: CORElearn's MSEofModel and
MAEofModel (regression only).

CORElearn (the R package of the RReliefF authors, Robnik-Šikonja & Savicky) scores an attribute
by the smallest error of a binary split into two branches, each predicted by the model its
regression trees put in a leaf: with its defaults the M5-style linear model of Quinlan
("Learning with continuous classes", 1992) simplified as in M5, and the estimate is minus the
error, −(n_L e_L + n_R e_R) / n, with e the mean squared (MSEofModel) or mean absolute
(MAEofModel) error of a branch's model on its own instances and n the instances with a known
value of the attribute (the others are left out).

* **Branch model.** A branch of m instances with m <= p + 1 (p numeric attributes) is predicted
  by its mean target. Otherwise all p numeric attributes and a constant are fitted by least
  squares (singular values below 1e-5 times the largest set to zero, as Numerical Recipes'
  ``svdfit``), then terms are dropped one at a time: of the k terms left, the one whose removal
  (keeping the other coefficients) gives the smallest mean absolute error times
  (m + k − 1) / (m − k + 1) goes, the rest are refitted, and down to one term; the model kept is
  the last whose corrected error was at most the best before (the full model's with k = p + 1).
  The constant is one of the terms. Predictions are clipped to the branch's target range.
* **Numeric attribute.** Splits fall between distinct values; with more than ``sample`` distinct
  values, ``sample`` of them (their positions in sorted order) are drawn without replacement from
  R's random stream (``randBetween(0, u) = int(unif_rand() u)``, :mod:`.r_random`; one stream
  for all attributes in column order) and sorted, and the splits are just below the second to
  the last of them. ``sample=0`` tries every split.
* **Discrete attribute.** Its present values are partitioned into two groups: all partitions
  when the attribute has at most 6 values (more when ``sample`` allows: exhaustive while the
  number of partitions is below ``sample`` or 0.8 times it is at most V(V + 1) / 2), otherwise
  greedily, moving to the left group one value at a time the value that gives the smallest
  error (the first on ties), keeping the best split seen.
* Missing values of the other numeric attributes in a branch's model are replaced by their mean
  in the branch (CORElearn's code means to do this, but crashes on data with missing values).
  An attribute with one known value gets minus the error of
  a single model of the known instances (CORElearn gives −3.4e38), one with none NaN.
"""
from itertools import combinations
from math import comb

import numpy as np

from .base import Estimator
from .description import Param
from .parameters import RANDOM_STATE
from .r_random import RUniformStream, r_seed

__all__ = ["linear_model_predictions", "branch_error", "ModelError"]

LOSSES = ("squared", "absolute")
_SVD_TOLERANCE = 1e-5


def _least_squares(A, b):
    """Least-squares coefficients of ``A x = b``, singular values below 1e-5 times the largest
    treated as zero (minimum-norm solution; all zero for a zero matrix)."""
    U, s, Vt = np.linalg.svd(A, full_matrices=False)
    keep = (s > 0) & (s >= _SVD_TOLERANCE * s.max(initial=0.0))
    inverse = np.zeros_like(s)
    inverse[keep] = 1.0 / s[keep]
    return Vt.T @ (inverse * (U.T @ b))


def linear_model_predictions(X, y):
    """Predictions on its own instances of the model of a branch with numeric attributes ``X``
    (m × p, no missing values) and target ``y``: the mean for m <= p + 1, else the simplified
    linear model (module docstring), clipped to [min y, max y]."""
    m, p = X.shape
    if m <= p + 1:
        return np.full(m, y.mean())
    D = np.column_stack([X, np.ones(m)])
    terms = p + 1
    active = np.ones(terms, dtype=bool)
    coef = np.zeros(terms)
    coef[active] = _least_squares(D[:, active], y)
    best_error = np.abs(y - D @ coef).mean() * (m + terms) / (m - terms)
    best_active = active.copy()
    for size in range(terms - 1, 0, -1):
        full = D[:, active] @ coef[active]
        candidates = np.flatnonzero(active)
        # without term t: full - D[:, t] coef[t], for every active t at once
        errors = np.abs(y[:, None] - (full[:, None] - D[:, candidates] * coef[candidates]))
        errors = errors.mean(axis=0) * (m + size) / (m - size)
        drop = int(np.argmin(errors))
        active[candidates[drop]] = False
        if errors[drop] <= best_error:
            best_error, best_active = errors[drop], active.copy()
        coef[active] = _least_squares(D[:, active], y)
    coef[best_active] = _least_squares(D[:, best_active], y)
    return np.clip(D[:, best_active] @ coef[best_active], y.min(), y.max())


def branch_error(X, y, loss, fill=None):
    """Mean squared (``loss="squared"``) or absolute error of a branch's model on its instances;
    missing values of ``X`` are replaced by their column's mean in the branch, or by ``fill[j]``
    (default 0) where column j has no known value there."""
    if np.isnan(X).any():
        X = X.copy()
        for j in np.flatnonzero(np.isnan(X).any(axis=0)):
            column = X[:, j]
            known = column[~np.isnan(column)]
            column[np.isnan(column)] = known.mean() if known.size else \
                (0.0 if fill is None else fill[j])
    residuals = y - linear_model_predictions(X, y)
    return float(np.mean(residuals ** 2) if loss == "squared" else np.mean(np.abs(residuals)))


def _sampled_starts(starts, sample, stream):
    """The positions (in sorted order) of the first instance of each distinct value that delimit
    splits: ``sample`` of ``starts`` drawn without replacement from ``stream`` and sorted, or
    all when there are no more than ``sample`` (or ``sample`` is 0)."""
    if sample == 0 or starts.size <= sample:
        return starts
    pool = np.arange(starts.size)
    chosen = np.empty(sample, dtype=np.intp)
    upper = starts.size
    for i, u in enumerate(stream.uniform(sample)):
        pick = int(u * upper)
        chosen[i] = starts[pool[pick]]
        upper -= 1
        pool[pick] = pool[upper]
    return np.sort(chosen)


def _exhaustive(n_values, sample, n_known):
    """Whether CORElearn searches all partitions of a discrete attribute's ``n_values`` values."""
    if n_values >= 32:
        return False
    partitions = sum(comb(n_values, i) for i in range(1, (n_values - 1) // 2 + 1))
    if n_values % 2 == 0:
        partitions += comb(n_values, n_values // 2) // 2
    max_sample = n_known - 1 if sample == 0 else sample
    return 0.8 * partitions <= n_values * (n_values + 1) // 2 or partitions < max_sample


class ModelError(Estimator):
    """Minus the smallest error of linear models on the two sides of a binary split of the
    attribute (CORElearn's MSEofModel for ``loss="squared"``, MAEofModel for
    ``loss="absolute"``; module docstring). Regression only; instance weights are not
    supported.

    loss
        ``"squared"`` (mean squared error) or ``"absolute"`` (mean absolute error).
    sample
        Splits tried per numeric attribute: at most ``sample`` distinct values are drawn as
        split points (CORElearn's ``discretizationSample``, 50); 0 tries all.
    random_state
        An int s: CORElearn's random stream after R's ``set.seed(s)``; None a fresh seed; a
        numpy ``Generator`` draws the seed.
    """
    name = "ModelError"
    tasks = frozenset({"regression"})
    paper = "CORElearn's MSEofModel and MAEofModel (Robnik-Šikonja & Savicky)"
    parameters = (
        Param("loss", "choice", "squared", "Error", choices=tuple((loss, loss) for loss in LOSSES),
              tooltip="Mean squared or mean absolute error of the linear models."),
        Param("sample", "int", 50, "Split points tried", low=0, maximum=100000,
              tooltip="At most this many distinct values of a numeric attribute are drawn as "
                      "split points (CORElearn's discretizationSample); 0 tries all."),
        RANDOM_STATE)

    def __init__(self, loss="squared", sample=50, random_state=None):
        self.loss = loss
        self.sample = sample
        self.random_state = random_state

    @property
    def target_unit_power(self):
        return 2 if self.loss == "squared" else 1

    def context(self, data, callback=None):
        data = super().context(data, callback)
        if data.weights is not None:
            raise ValueError(f"{self.name} does not take instance weights")
        return data

    def estimate(self, context, columns=None, callback=None):
        """The estimate of every column of ``columns`` (default: the context's attributes);
        ``callback(fraction)`` is called after each split tried, an exception raised from it
        cancels."""
        self.check_parameters()
        columns = context if columns is None else columns
        if columns.n_instances != context.n_instances:
            raise ValueError(f"columns have {columns.n_instances} instances, "
                             f"the context {context.n_instances}")
        stream = RUniformStream(r_seed(self.random_state))
        numeric = context.X[:, ~context.discrete]
        # the model's inputs: the numeric attributes, the target, and the midpoints of the
        # attributes' ranges for a branch without a known value of one
        model = (numeric, context.y, np.nan_to_num(
            (np.fmin.reduce(numeric, axis=0) + np.fmax.reduce(numeric, axis=0)) / 2))
        a = columns.n_attributes
        scores = np.empty(a)

        def report(j, done):
            if callback is not None:
                callback((j + done) / a)

        for j in range(a):      # only numeric attributes draw from the stream
            column = columns.X[:, j]
            known = np.flatnonzero(~np.isnan(column))
            if columns.discrete[j]:
                scores[j] = self._discrete(column, known, columns.n_values[j], model,
                                           lambda done, j=j: report(j, done))
            else:
                scores[j] = self._numeric(column, known, model, stream,
                                          lambda done, j=j: report(j, done))
            report(j, 1.0)
        return scores

    def _error(self, rows, model):
        numeric, y, fill = model
        return branch_error(numeric[rows], y[rows], self.loss, fill)

    def _split_error(self, left, right, model):
        return (left.size * self._error(left, model) + right.size * self._error(right, model)) \
            / (left.size + right.size)

    def _unsplit(self, known, model):
        return np.nan if known.size == 0 else -self._error(known, model)

    def _numeric(self, column, known, model, stream, report):
        rows = known[np.argsort(column[known], kind="stable")]
        values = column[rows]
        starts = np.flatnonzero(np.r_[True, values[1:] != values[:-1]])
        if starts.size < 2:
            return self._unsplit(known, model)
        bounds = _sampled_starts(starts, self.sample, stream)[1:]
        best = np.inf
        for i, b in enumerate(bounds):
            best = min(best, self._split_error(rows[:b], rows[b:], model))
            report((i + 1) / (bounds.size + 1))
        return -best

    def _discrete(self, column, known, n_values, model, report):
        codes = column[known].astype(np.intp)
        present = np.unique(codes)
        if present.size < 2:
            return self._unsplit(known, model)

        def error(left_values):
            on_left = np.isin(codes, left_values)
            return self._split_error(known[on_left], known[~on_left], model)

        best = np.inf
        if _exhaustive(int(n_values), self.sample, known.size):
            # each partition once: the groups holding the last present value are the right ones
            rest = present[:-1]
            subsets = [s for k in range(1, rest.size + 1) for s in combinations(rest, k)]
            for i, left in enumerate(subsets):
                best = min(best, error(list(left)))
                report((i + 1) / (len(subsets) + 1))
            return -best
        left, remaining = [], list(present)
        for step in range(present.size - 1):
            errors = [error(left + [v]) for v in remaining]
            pick = int(np.argmin(errors))
            best = min(best, errors[pick])
            left.append(remaining.pop(pick))
            report((step + 1) / present.size)
        return -best
