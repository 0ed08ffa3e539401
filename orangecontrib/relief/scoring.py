"""Orange ``Scorer`` adapters of the estimators: one class per estimator, its parameters as keyword
arguments, usable in scripts and on the Rank widget's Scorer input.

* scripts: ``ReliefF(k=10)(data)`` -> 1-D array aligned with ``data.domain.attributes``;
  ``scorer(data, attr)`` -> float (``attr`` a variable, its name or its index);
* Rank: ``scorer.score_data(data)`` -> 2-D array (1, n_attributes), on
  the raw table. Rank runs every input scorer on every data set: data the estimator does not fit
  (no class, the other target type, ...) raise ``ValueError``, which Rank shows as an empty column.

Instances with a missing class value are left out (:func:`.orange_data.encode_table`). Sparse
tables are read without densifying by the estimators that support them (``supports_sparse_data``:
the Relief family's nearest-neighbour estimators, :mod:`.estimators.neighbourhood.sparse`); the others refuse
them with a ``ValueError``. Each
scorer class derives from :class:`EstimatorScorer` and from the engine class it adapts, so the
parameters, their defaults and their documentation exist once, in the engine.
"""
import inspect

import numpy as np
from Orange.data import Variable
from Orange.preprocess.score import Scorer

from .estimators import (base, contextual_merit, impurity, multiscale, relieff, rrelieff, surf,
                         turf, unified_pi)
from .estimators.significance import significance as estimate_significance
from .orange_data import encode_table

__all__ = ["EstimatorScorer", "SCORERS", "Relief", "ReliefF", "ReliefFbestK", "RReliefF",
           "InfGain", "GainRatio", "Gini", "MDL", "Accuracy", "MSE", "MyopicReliefF",
           "ContextualMerit", "UnifiedPi", "SURF", "SURFstar", "MultiSURF", "MultiSURFstar",
           "TuRF", "MultiScaleRelief", "scorer_by_name"]


class _Name:
    """``Scorer.name``: on the class, the estimator's name (:meth:`EstimatorScorer.stem`); on an
    instance, the name with its parameters (:meth:`EstimatorScorer._parameter_name`)."""
    def __get__(self, scorer, cls):
        return cls.stem() if scorer is None else scorer._parameter_name()


class EstimatorScorer(Scorer):
    """Base of the adapters: ``class X(EstimatorScorer, engine.X)``, documented by the engine
    class's docstring unless they have their own."""
    feature_type = Variable
    class_type = Variable
    #: whether the engine reads sparse tables (:attr:`.base.Estimator.sparse_input`), set
    #: per scorer class
    supports_sparse_data = False
    preprocessors = []

    __hash__ = object.__hash__   # Rank caches results by scorer: keep identity hashing

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls.supports_sparse_data = cls.engine().sparse_input
        if cls.__doc__ is None:
            cls.__doc__ = cls.engine().__doc__

    @classmethod
    def engine(cls):
        """The engine estimator class this scorer adapts."""
        return next(c for c in cls.__mro__
                    if issubclass(c, base.Estimator) and not issubclass(c, EstimatorScorer))

    #: the column header's stem (default: the engine's name)
    label = None
    name = _Name()

    def _parameter_name(self):
        """Column header in Rank: the estimator and the parameters that differ from their
        defaults, e.g. "ReliefF" or "ReliefF k=5 missing=B", short enough for Rank's header.
        A default of None that stands for the class's own default (``k=None`` ->
        ``default_k``) counts as that value. (Rank numbers equal names, e.g. beside its own
        ReliefF.)"""
        stem = self.stem()
        engine = self.engine()
        shown = []
        for key, param in inspect.signature(engine.__init__).parameters.items():
            if key in ("self", "diff") or param.kind is param.VAR_KEYWORD \
                    or not hasattr(self, key):
                continue
            value = getattr(self, key)
            if value is None and param.default is None:
                continue
            default = param.default
            if default is None:
                default = getattr(engine, f"default_{key}", None)
            if not _same(value, default):
                shown.append(f"{key}={value}")
        if hasattr(self, "changed_diff_keywords"):
            shown += [f"{key}={value}" for key, value in self.changed_diff_keywords().items()]
        return " ".join([stem] + shown)

    @property
    def friendly_name(self):
        return self.name

    @classmethod
    def stem(cls):
        """The estimator's name without parameters."""
        return cls.label or cls.engine().name

    def scores(self, data, callback=None):
        """The estimates of ``data.domain.attributes`` (1-D)."""
        encoded, _ = encode_table(data, sparse=True)
        return np.asarray(self.engine().__call__(self, encoded, callback), dtype=float)

    def significance(self, data, method="stir", n_permutations=100, random_state=None,
                     callback=None):
        """Estimates of ``data.domain.attributes`` with their p-values and Benjamini-Hochberg
        q-values: a :class:`~.estimators.significance.Significance`. ``method="stir"`` (the
        Relief estimators of a discrete class: STIR, calibrated by permutations) or ``"permutation"`` (any
        scorer: ``n_permutations`` estimates with the class permuted by ``random_state``)."""
        encoded, _ = encode_table(data, sparse=True)
        return estimate_significance(self, encoded, method, n_permutations, random_state,
                                     callback)

    def score_data(self, data, feature=None, callback=None):
        scores = self.scores(data, callback)
        if feature is not None:
            return float(scores[_attribute_index(data.domain, feature)])
        return np.atleast_2d(scores)

    def __call__(self, data, feature=None, callback=None):
        if feature is not None:
            return self.score_data(data, feature, callback)
        return self.scores(data, callback)


def _same(value, default):
    try:
        return bool(value == default)
    except (TypeError, ValueError):
        return value is default


def _attribute_index(domain, feature):
    if isinstance(feature, (int, np.integer)):
        index = int(feature)
        if not 0 <= index < len(domain.attributes):
            raise ValueError(f"attribute index {index} out of range 0..{len(domain.attributes) - 1}")
        return index
    name = feature.name if isinstance(feature, Variable) else feature
    for i, var in enumerate(domain.attributes):
        if var.name == name:
            return i
    raise ValueError(f"{name!r} is not an attribute of the data")


class Relief(EstimatorScorer, relieff.Relief):
    pass


class ReliefF(EstimatorScorer, relieff.ReliefF):
    pass


class ReliefFbestK(EstimatorScorer, relieff.ReliefFbestK):
    pass


class RReliefF(EstimatorScorer, rrelieff.RReliefF):
    pass


class SURF(EstimatorScorer, surf.SURF):
    pass


class SURFstar(EstimatorScorer, surf.SURFstar):
    pass


class MultiSURF(EstimatorScorer, surf.MultiSURF):
    pass


class MultiSURFstar(EstimatorScorer, surf.MultiSURFstar):
    pass


class TuRF(EstimatorScorer, turf.TuRF):
    pass


class MultiScaleRelief(EstimatorScorer, multiscale.MultiScaleRelief):
    pass


class InfGain(EstimatorScorer, impurity.InfGain):
    pass


class GainRatio(EstimatorScorer, impurity.GainRatio):
    pass


class Gini(EstimatorScorer, impurity.Gini):
    label = "Gini gain"


class MDL(EstimatorScorer, impurity.MDL):
    pass


class Accuracy(EstimatorScorer, impurity.Accuracy):
    pass


class MSE(EstimatorScorer, impurity.MSE):
    pass


class MyopicReliefF(EstimatorScorer, impurity.MyopicReliefF):
    pass


class ContextualMerit(EstimatorScorer, contextual_merit.ContextualMerit):
    pass


class UnifiedPi(EstimatorScorer, unified_pi.UnifiedPi):
    def case_counts(self, data, callback=None):
        """The count matrices {R_m} of every attribute of the table ``data``: a list of arrays
        (n_values, n_classes, 4), as :meth:`.unified_pi.UnifiedPi.case_counts`."""
        encoded, _ = encode_table(data)
        return unified_pi.UnifiedPi.case_counts(self, encoded, callback)


#: every scorer, in the order the widgets and the command line offer them
SCORERS = [ReliefF, RReliefF, Relief, ReliefFbestK, MultiScaleRelief, MultiSURF, MultiSURFstar,
           SURF, SURFstar, TuRF, MyopicReliefF, ContextualMerit, UnifiedPi, InfGain, GainRatio, Gini, MDL, Accuracy,
           MSE]


def scorer_by_name(name):
    """The scorer class whose ``name`` or class name matches ``name`` (case-insensitive)."""
    key = name.lower().replace(" ", "").replace("-", "")
    for cls in SCORERS:
        if key in (cls.__name__.lower(), cls.stem().lower().replace(" ", "").replace("-", "")):
            return cls
    raise ValueError(f"unknown estimator {name!r}; choose one of "
                     f"{', '.join(cls.__name__ for cls in SCORERS)}")
