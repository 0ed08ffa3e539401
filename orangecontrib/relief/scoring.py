"""Orange ``Scorer`` adapters of the estimators: one class per estimator, its parameters as keyword
arguments, usable in scripts and on the Rank widget's Scorer input.

* scripts: ``ReliefF(k=10)(data)`` -> 1-D array aligned with ``data.domain.attributes``;
  ``scorer(data, attr)`` -> float (``attr`` a variable, its name or its index);
* Rank: ``scorer.score_data(data)`` -> 2-D array (1, n_attributes), on
  the raw table. Rank runs every input scorer on every data set: data the estimator does not fit
  (no class, ...) raise ``ValueError``, which Rank shows as an empty column. Each scorer's
  ``class_type`` says which targets it suits (from the estimator's ``tasks``), so Rank leaves
  a classification scorer out on regression data (and the other way round) with a message;
  its ``name`` in Rank's header is the estimator's short name with ReliefF's and RReliefF's
  number of neighbours and the parameters that differ from their defaults ("RF k10" for
  ReliefF), apart from Rank's own ReliefF and RReliefF.

Instances with a missing class value are left out (:func:`.orange_data.encode_table`). Sparse
tables are read without densifying by the estimators that support them (``supports_sparse_data``:
the Relief family's nearest-neighbour estimators, :mod:`.estimators.neighbourhood.sparse`); the others refuse
them with a ``ValueError``. Each
scorer class is generated (:func:`scorer_class`) for an estimator of
:data:`.estimators.catalogue.ESTIMATORS` and derives from :class:`EstimatorScorer` and from the
engine class it adapts, so the parameters, their defaults and their documentation exist once,
in the engine's description.
"""
import numpy as np
from Orange.data import ContinuousVariable, DiscreteVariable, Variable
from Orange.preprocess.score import Scorer

from .estimators import base
from .estimators.catalogue import ESTIMATORS
from .estimators.description import TARGETS, short_label
from .estimators.significance import significance as estimate_significance
from .orange_data import encode_table

__all__ = ["EstimatorScorer", "CaseCountsScorer", "SCORERS", "scorer_class", "class_type",
           "scorer_by_name"] + [engine.__name__ for engine in ESTIMATORS]


class _Name:
    """``Scorer.name``: on the class, the estimator's name (:meth:`EstimatorScorer.stem`); on an
    instance, the name with its parameters (:meth:`EstimatorScorer._parameter_name`)."""
    def __get__(self, scorer, cls):
        return cls.stem() if scorer is None else scorer._parameter_name()


class EstimatorScorer(Scorer):
    """Base of the adapters: ``X(EstimatorScorer, engine.X)``, made by :func:`scorer_class`
    and documented by the engine class's docstring."""
    feature_type = Variable
    #: the target it suits (Rank leaves it out on data of another target type), set by
    #: :func:`scorer_class` from the engine's ``tasks``
    class_type = Variable
    #: whether the engine reads sparse tables (:attr:`.base.Estimator.sparse_input`), set by
    #: :func:`scorer_class`
    supports_sparse_data = False
    preprocessors = []

    __hash__ = object.__hash__   # Rank caches results by scorer: keep identity hashing

    @classmethod
    def engine(cls):
        """The engine estimator class this scorer adapts."""
        return next(c for c in cls.__mro__
                    if issubclass(c, base.Estimator) and not issubclass(c, EstimatorScorer))

    name = _Name()

    def _parameter_name(self):
        """Column header in Rank: :func:`.description.short_label`, e.g. "RF k10" (ReliefF)
        or "RF k5 missing=B": apart from Rank's own ReliefF and RReliefF, and the default
        ones short enough for Rank's fixed 80-pixel columns at 12 pt."""
        return short_label(self)

    @property
    def friendly_name(self):
        return self.name

    @classmethod
    def stem(cls):
        """The estimator's name without parameters."""
        engine = cls.engine()
        return engine.display_name or engine.name

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


def class_type(tasks):
    """The Orange variable type of a target of ``tasks``: ``DiscreteVariable`` for
    classification only, ``ContinuousVariable`` for regression only, else ``Variable``."""
    if set(tasks) == {"classification"}:
        return DiscreteVariable
    if set(tasks) == {"regression"}:
        return ContinuousVariable
    return Variable


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


class CaseCountsScorer(EstimatorScorer):
    """Base of the adapters of estimators that give the Π framework's case counts."""

    def case_counts(self, data, callback=None):
        """The count matrices {R_m} of every attribute of the table ``data``: a list of arrays
        (n_values, n_classes, 4), as the engine's ``case_counts``."""
        encoded, _ = encode_table(data)
        return self.engine().case_counts(self, encoded, callback)


def scorer_class(engine):
    """The Orange scorer class of the engine estimator class ``engine``, named as it."""
    adapter = CaseCountsScorer if engine.counts_cases else EstimatorScorer
    return type(engine.__name__, (adapter, engine), {
        "__module__": __name__, "__qualname__": engine.__name__, "__doc__": engine.__doc__,
        "supports_sparse_data": engine.sparse_input, "class_type": class_type(engine.tasks),
        "learner_adequacy_err_msg": "it estimates the attributes for a {} class only".format(
            " or ".join(TARGETS[task] for task in sorted(engine.tasks)))})


#: every scorer, in the order the widgets and the command line offer them
SCORERS = [scorer_class(engine) for engine in ESTIMATORS]
globals().update({cls.__name__: cls for cls in SCORERS})


def scorer_by_name(name):
    """The scorer class whose ``name`` or class name matches ``name`` (case-insensitive)."""
    key = name.lower().replace(" ", "").replace("-", "")
    for cls in SCORERS:
        if key in (cls.__name__.lower(), cls.stem().lower().replace(" ", "").replace("-", "")):
            return cls
    raise ValueError(f"unknown estimator {name!r}; choose one of "
                     f"{', '.join(cls.__name__ for cls in SCORERS)}")
