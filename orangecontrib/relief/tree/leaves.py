"""Models in the nodes of a CORE tree (Robnik-Šikonja & Kononenko 1999 §4).

* classification: the weighted class distribution; the prediction is its normalisation, so the
  predicted class is the majority class;
* regression, ``"mean"``: the weighted mean of the node's targets;
* regression, ``"linear"``: a least-squares linear model on the node's numeric attributes,
  solved by singular value decomposition (``numpy.linalg.lstsq``; §4.2 "computed with singular
  value decomposition"), with missing attribute values replaced by the node's mean of that
  attribute. A node with fewer than ``2 * (p + 1)`` instances (weight) for p usable attributes
  falls back to the mean. Two safeguards the paper leaves open: the model's error used by pruning
  is the training MSE times (n + v) / (n - v) for v = p + 1 fitted parameters (Quinlan's M5
  correction; the raw training error of a linear model is optimistic), and predictions are
  clipped to the range of the node's training targets (a leaf fitted on few instances
  extrapolates wildly; on housing the clip takes 5-fold CV RMSE from 22.4 to 4.8).

Every node, inner ones too, gets a model: pruning turns inner nodes into leaves.
"""
from dataclasses import dataclass, replace

import numpy as np

__all__ = ["LeafModel", "fit_leaf", "LEAF_MODELS"]

LEAF_MODELS = ("mean", "linear")


@dataclass(frozen=True)
class LeafModel:
    """``value`` is the class distribution (classification) or the mean; a linear model adds
    ``columns`` (attribute indices), ``fill`` (their imputation values), ``coef`` and
    ``intercept``. ``mse`` is the model's weighted mean squared error on the node (eq. 18)."""
    value: np.ndarray
    mse: float = 0.0
    columns: np.ndarray = None
    fill: np.ndarray = None
    coef: np.ndarray = None
    intercept: float = 0.0
    low: float = -np.inf
    high: float = np.inf

    @property
    def is_linear(self):
        return self.coef is not None

    def in_units(self, factor):
        """The same model for the target multiplied by ``factor`` (regression)."""
        with np.errstate(over="ignore", under="ignore"):
            factor = np.float64(factor)
            return replace(self, value=self.value * factor, mse=float(self.mse * factor * factor),
                           coef=None if self.coef is None else self.coef * factor,
                           intercept=self.intercept * factor, low=self.low * factor,
                           high=self.high * factor)

    def predict(self, X):
        """Class probabilities (n, C) or regression predictions (n,) for the rows of ``X``."""
        n = X.shape[0]
        if self.value.ndim == 1 and self.value.size > 1:     # class distribution
            return np.tile(self.value / self.value.sum(), (n, 1))
        if not self.is_linear:
            return np.full(n, float(self.value[0]))
        Z = X[:, self.columns]
        Z = np.where(np.isnan(Z), self.fill, Z)
        return np.clip(Z @ self.coef + self.intercept, self.low, self.high)


def _weighted_mean_var(y, w):
    total = w.sum()
    mean = float(w @ y / total)
    return mean, float(w @ (y - mean) ** 2 / total)


def fit_leaf(X, y, w, n_classes, numeric, kind="mean"):
    """The model of a node with attributes ``X``, targets ``y`` and weights ``w``.

    ``n_classes`` > 0 for classification; ``numeric`` is the mask of numeric attributes used by
    a linear model; ``kind`` is "mean" or "linear" (regression only)."""
    if n_classes:
        return LeafModel(np.bincount(y.astype(np.intp), weights=w, minlength=n_classes))
    mean, var = _weighted_mean_var(y, w)
    mean_model = LeafModel(np.array([mean]), mse=var)
    if kind != "linear":
        return mean_model
    total = w.sum()
    columns = np.flatnonzero(numeric)
    Z = X[:, columns]
    known = ~np.isnan(Z)
    with np.errstate(invalid="ignore", divide="ignore"):
        fill = (np.where(known, Z, 0) * w[:, None]).sum(0) / (known * w[:, None]).sum(0)
    usable = np.isfinite(fill) & (np.max(Z, 0, initial=-np.inf, where=known)
                                  > np.min(Z, 0, initial=np.inf, where=known))
    columns, fill, Z = columns[usable], fill[usable], Z[:, usable]
    if columns.size == 0 or total < 2 * (columns.size + 1):
        return mean_model
    Z = np.where(np.isnan(Z), fill, Z)
    design = np.column_stack([np.ones(len(y)), Z])
    root_w = np.sqrt(w)
    solution = np.linalg.lstsq(design * root_w[:, None], y * root_w, rcond=None)[0]
    residual = y - design @ solution
    v = columns.size + 1
    mse = float(w @ residual ** 2 / total) * (total + v) / (total - v)
    return LeafModel(np.array([mean]), mse=mse, columns=columns, fill=fill,
                     coef=solution[1:], intercept=float(solution[0]), low=y.min(), high=y.max())
