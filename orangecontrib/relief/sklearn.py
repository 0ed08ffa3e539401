"""scikit-learn feature selectors: every estimator of the add-on with ``fit(X, y)``,
``feature_importances_``, optional p-values and ``transform`` to the selected columns, usable in a
``Pipeline`` and in ``GridSearchCV``::

    from orangecontrib.relief.sklearn import ReliefF
    selector = ReliefF(k=10, n_features_to_select=5).fit(X, y)
    X_small = selector.transform(X)

Each selector takes its estimator's parameters (``ReliefF(k=..., iterations=..., ...)``, as in
:mod:`orangecontrib.relief.estimators`) and these of the selection:

* ``n_features_to_select``: keep the n best (an int), or this share of the features (a float in
  (0, 1));
* ``threshold``: keep the features whose estimate exceeds it;
* ``fdr``: keep the features whose Benjamini-Hochberg q-value is below it (needs ``pvalues``);
* ``pvalues``: None, "stir" (STIR, the Relief family of a discrete class, calibrated by 30
  permutations drawn with ``random_state``), "permutation" (any estimator;
  ``n_permutations`` runs with ``random_state``; None: enough for q < 0.05 among the
  features, at most 1,000, with a warning when that cannot reach it), "npdr" (NPDR's
  regression test) or "trend" (the allelic trend test's regression p-values, of
  ``selectors.TrendTest``): fitting then sets
  ``pvalues_`` and ``qvalues_`` (see :mod:`orangecontrib.relief.estimators.significance`);
* ``discrete_features``: which columns are discrete (nominal): False (none, the default), True
  (all), a boolean mask or column indices. A discrete column's distinct values are its values;
  the others are numeric. NaN is a missing value.

``X`` may be a ``scipy.sparse`` matrix for the estimators that read sparse data (Relief, ReliefF,
ReliefFbestK, RReliefF; :mod:`orangecontrib.relief.estimators.neighbourhood.sparse`), with numeric features
only; the other selectors refuse it.

The criteria given are all applied (the n best among the features passing the others); with
none given, the better half of the features is kept. A classification estimator treats ``y`` as
class labels; a regression one as numbers.

``backend="dask"`` fits ReliefF, RReliefF and the SURF family (with ``iterations`` = m) on a
Dask array or dataframe partitioned by rows (:func:`orangecontrib.relief.dask.estimate`):
``client`` is a ``distributed.Client`` or its scheduler's address; None uses the active client
(as dask-ml does), else a local cluster started for the fit. The estimates equal those of the
fit in memory. A selector with a client clones (sharing the client) and pickles (keeping the
scheduler's address); its tags say it takes no sparse input. Discrete features must then hold the codes 0, 1, ... (in memory any values are coded);
``y`` (a Dask array or series, or in memory) is read whole, the features by partitions.
"""
import inspect
from dataclasses import replace

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils.multiclass import check_classification_targets, type_of_target
from sklearn.utils.validation import check_is_fitted, validate_data

from .estimators import encode
from .estimators.encoding import as_covariates
from .estimators.catalogue import ESTIMATORS
from .estimators.selection import selection_mask
from .estimators.significance import METHODS, significance

__all__ = ["EstimatorSelector", "SELECTORS", "selector_class"] + [
    engine.__name__ for engine in ESTIMATORS]

#: the selection's parameters and their defaults, after the estimator's
SELECTION = {"n_features_to_select": None, "threshold": None, "fdr": None, "pvalues": None,
             "n_permutations": None, "discrete_features": False, "backend": None,
             "client": None}

#: where :meth:`EstimatorSelector.fit` computes: in memory (None or "numpy") or on Dask
BACKENDS = (None, "numpy", "dask")


class EstimatorSelector(SelectorMixin, BaseEstimator):
    """A feature selector by the estimates of ``engine`` (an estimator class of
    :mod:`orangecontrib.relief.estimators`); see the module docstring. Subclasses name the
    engine; their ``__init__`` takes its parameters and those of the selection.

    Fitted attributes: ``feature_importances_`` (the estimates), ``pvalues_`` and ``qvalues_``
    (None unless ``pvalues`` is set), ``n_features_in_`` (and ``feature_names_in_``)."""
    engine = None

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if cls.engine is None:
            return
        # the engine's declared parameters (None for those whose default is the preset's,
        # e.g. the Relief family's diff keywords), then those of the selection
        names = [param.name for param in cls.engine.parameters]
        defaults = {param.name: None if param.name in cls.engine.diff_keywords
                    else param.default for param in cls.engine.parameters}
        defaults.update((name, default) for name, default in SELECTION.items()
                        if name not in defaults)
        defaults.setdefault("random_state", None)
        signature = inspect.Signature(
            [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
            + [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default)
               for name, default in defaults.items()])

        def __init__(self, **kwargs):
            bound = signature.bind(self, **kwargs)
            bound.apply_defaults()
            for name, value in list(bound.arguments.items())[1:]:
                setattr(self, name, value)

        __init__.__signature__ = signature
        __init__.__doc__ = f"Parameters of {cls.engine.__name__} and of the selection."
        cls.__init__ = __init__
        cls._engine_params = tuple(names)
        if cls.__doc__ is None:
            cls.__doc__ = (f"Feature selection by {cls.engine.name} (scikit-learn selector).\n\n"
                           + inspect.cleandoc(cls.engine.__doc__ or ""))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.sparse = (self.engine is not None and self.engine.sparse_input
                                  and self.backend != "dask")    # Dask: dense partitions
        tags.target_tags.required = True
        return tags

    def __sklearn_clone__(self):
        """A clone sharing ``client`` (a connection is not copied); the other parameters
        cloned as scikit-learn clones them, and so are the metadata requests
        (``set_fit_request(covariates=True)``)."""
        import copy
        from sklearn.base import clone
        params = self.get_params(deep=False)
        client = params.pop("client")
        cloned = type(self)(client=client, **{name: clone(value, safe=False)
                                              for name, value in params.items()})
        if hasattr(self, "_metadata_request"):
            cloned._metadata_request = copy.deepcopy(self._metadata_request)
        return cloned

    def __getstate__(self):
        """A pickled selector keeps its ``client``'s scheduler address (a connection cannot be
        pickled); the unpickled one connects to it when it fits."""
        state = super().__getstate__()
        client = state.get("client")
        if client is not None and not isinstance(client, str):
            state = dict(state, client=client.scheduler.address)
        return state

    def _discrete_mask(self, a, sparse=False):
        """The boolean mask of the discrete features (``discrete_features``) of ``a``."""
        discrete = np.zeros(a, bool)
        flags = self.discrete_features
        if sparse and not (isinstance(flags, (bool, np.bool_)) and not flags):
            raise ValueError("discrete_features are not supported with sparse X: give the "
                             "discrete features as a dense array")
        if isinstance(flags, (bool, np.bool_)):
            discrete[:] = flags
        else:
            flags = np.asarray(flags)
            if flags.dtype == bool:
                if flags.shape != (a,):
                    raise ValueError(f"discrete_features as a mask needs {a} values, "
                                     f"got {flags.size}")
                discrete = flags.copy()
            elif flags.size and (not np.issubdtype(flags.dtype, np.integer)
                                 or flags.min() < -a or flags.max() >= a):
                raise ValueError("discrete_features must be a bool, a boolean mask or column "
                                 f"indices in 0..{a - 1}")
            else:
                discrete[flags] = True
        return discrete

    def _target(self, y):
        """``(y, n_classes)``: class codes (``classes_`` set) or numbers with 0."""
        tasks = self.engine.tasks
        labels = "regression" not in tasks or (
            "classification" in tasks and type_of_target(y) in ("binary", "multiclass"))
        if labels:
            check_classification_targets(y)
            self.classes_, y = np.unique(y, return_inverse=True)
            return y, self.classes_.size
        return np.asarray(y, dtype=float), 0

    def _encode(self, X, y):
        n, a = X.shape
        discrete = self._discrete_mask(a, sp.issparse(X))
        X = X.copy() if discrete.any() else X
        n_values = np.zeros(a, np.intp)
        for c in np.flatnonzero(discrete):
            known = ~np.isnan(X[:, c])
            values, X[known, c] = np.unique(X[known, c], return_inverse=True)
            n_values[c] = values.size
        y, n_classes = self._target(y)
        if n < 2:
            raise ValueError(f"{self.engine.name} needs at least 2 samples, got n_samples={n}")
        return encode(X, y, discrete=discrete, n_values=n_values, n_classes=n_classes)

    def _engine(self):
        """The configured engine estimator (a named diff keyword left None: its preset's)."""
        named = self.engine.diff_keywords
        return self.engine(**{name: getattr(self, name) for name in self._engine_params
                              if name not in named or getattr(self, name) is not None})

    def _fit_dask(self, X, y):
        """:meth:`fit` with ``backend="dask"``: X a Dask array or dataframe (or in memory)."""
        from .dask import estimate
        if self.pvalues is not None:
            raise ValueError("backend='dask' computes the estimates, not p-values: set "
                             "pvalues=None")
        if hasattr(X, "dask"):                              # a Dask array or dataframe
            if hasattr(X, "columns"):
                self.feature_names_in_ = np.asarray([str(c) for c in X.columns], dtype=object)
                X = X.to_dask_array(lengths=True)
            y = np.asarray(y.compute() if hasattr(y, "compute") else y).ravel()
            if X.ndim != 2:
                raise ValueError(f"X must be 2-D, got {X.ndim} dimension(s)")
            self.n_features_in_ = X.shape[1]
        else:                                               # in memory: checked as there
            X, y = validate_data(self, X, y, dtype=np.float64, ensure_all_finite="allow-nan",
                                 y_numeric="classification" not in self.engine.tasks)
            if X.shape[0] < 2:
                raise ValueError(f"{self.engine.name} needs at least 2 samples, got "
                                 f"n_samples={X.shape[0]}")
        y, n_classes = self._target(y)
        self.feature_importances_ = np.asarray(estimate(
            self._engine(), X, y, discrete=self._discrete_mask(X.shape[1]),
            n_classes=n_classes, client=self.client), dtype=float)
        self.pvalues_ = self.qvalues_ = None
        return self

    def fit(self, X, y, covariates=None):
        """Estimate the features of ``X`` (n_samples, n_features) for the target ``y``;
        ``covariates`` (n_samples, n_covariates), numeric, or an
        :class:`~.estimators.encoding.Covariates` made by
        :func:`~.estimators.encoding.as_covariates` (which marks discrete ones), are variables
        to adjust for (NPDR, TrendTest; the other estimators refuse them). In cross-validation they are
        split with the samples, as arrays or as :class:`~.estimators.encoding.Covariates`:
        ``cross_val_score(pipe, X, y, params={"select__covariates": covariates})``, or with
        scikit-learn's metadata routing ``set_fit_request(covariates=True)``."""
        if self.engine is None:
            raise TypeError("EstimatorSelector is the base of the selectors; fit one of "
                            f"{', '.join(cls.__name__ for cls in SELECTORS)}, e.g. "
                            "orangecontrib.relief.sklearn.ReliefF")
        if self.backend not in BACKENDS:
            raise ValueError(f"backend must be None, 'numpy' or 'dask', got {self.backend!r}")
        if self.backend == "dask":
            if covariates is not None:
                raise ValueError("backend='dask' does not adjust for covariates: use the "
                                 "numpy backend")
            return self._fit_dask(X, y)
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_all_finite="allow-nan",
                             accept_sparse="csr" if self.engine.sparse_input else False,
                             y_numeric="classification" not in self.engine.tasks)
        data = self._encode(X, y)
        if covariates is not None:
            data = replace(data, covariates=as_covariates(covariates, data.n_instances))
        engine = self._engine()
        if self.pvalues is None and hasattr(engine, "max_iter"):     # rounds until converged
            context = engine.context(data)
            self.feature_importances_ = np.asarray(engine.estimate(context), dtype=float)
            self.n_iter_ = context.rounds
            self.pvalues_ = self.qvalues_ = None
        elif self.pvalues is None:
            self.feature_importances_ = np.asarray(engine(data), dtype=float)
            self.pvalues_ = self.qvalues_ = None
        elif self.pvalues in METHODS:
            result = significance(engine, data, self.pvalues, self.n_permutations,
                                  self.random_state)
            self.feature_importances_ = result.scores
            self.pvalues_, self.qvalues_ = result.pvalues, result.qvalues
        else:
            raise ValueError(f"pvalues must be None or one of {', '.join(METHODS)}, "
                             f"got {self.pvalues!r}")
        return self

    def _get_support_mask(self):
        check_is_fitted(self, "feature_importances_")
        if self.fdr is not None and self.qvalues_ is None:
            raise ValueError("fdr selects by q-values: set pvalues='stir' or "
                             "'permutation' before fitting")
        count = self.n_features_to_select
        if count is None and self.threshold is None and self.fdr is None:
            count = max(1, self.feature_importances_.size // 2)
        try:
            return selection_mask(self.feature_importances_, count, self.threshold,
                                  self.qvalues_, self.fdr)
        except ValueError:
            raise ValueError("n_features_to_select must be None, an integer >= 0 or a "
                             f"float in (0, 1), got {count!r}") from None


def selector_class(engine):
    """The scikit-learn selector class of the engine estimator class ``engine``, named as
    it."""
    return type(engine.__name__, (EstimatorSelector,), {
        "engine": engine, "__module__": __name__, "__qualname__": engine.__name__})


#: a selector for every estimator of :data:`.estimators.catalogue.ESTIMATORS`, in its order
SELECTORS = [selector_class(engine) for engine in ESTIMATORS]
globals().update({cls.__name__: cls for cls in SELECTORS})
