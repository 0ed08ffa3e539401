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

``covariates`` (every scorer takes the keyword; the estimators that adjust for covariates,
:attr:`.base.Estimator.adjusts_covariates`, use them, the others refuse them with a
``ValueError``) names variables of the table, meta attributes or attributes, numeric or
categorical, without missing values, to adjust for, as the command line's ``--covariates``:
``NPDR(covariates=["age", "sex"])(data)`` (Le, Dawkins & McKinney 2020, §2.4). An attribute
named as a covariate is not estimated: its score is NaN, so that the scores stay aligned with
``data.domain.attributes`` (:func:`.orange_data.encode_with_covariates`).

Instances with a missing class value are left out (:func:`.orange_data.encode_table`). Sparse
tables are read without densifying by the estimators that support them (``supports_sparse_data``:
the Relief family's nearest-neighbour estimators, :mod:`.estimators.neighbourhood.sparse`); the others refuse
them with a ``ValueError``. Each
scorer class is generated (:func:`scorer_class`) for an estimator of
:data:`.estimators.catalogue.ESTIMATORS` and derives from :class:`EstimatorScorer` and from the
engine class it adapts, so the parameters, their defaults and their documentation exist once,
in the engine's description.
"""
import inspect
from dataclasses import fields, replace

import numpy as np
from Orange.data import ContinuousVariable, DiscreteVariable, Variable
from Orange.preprocess.score import Scorer

from .estimators import base
from .estimators.catalogue import ESTIMATORS
from .estimators.description import TARGETS, short_label
from .estimators.significance import significance as estimate_significance
from .orange_data import encode_table, encode_with_covariates

__all__ = ["EstimatorScorer", "CaseCountsScorer", "SCORERS", "scorer_class", "class_type",
           "scorer_by_name", "covariate_names", "interacting_pairs", "scan_pairs"] + [engine.__name__ for engine in ESTIMATORS]


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
    #: the names of the variables adjusted for (None: none); set by the ``covariates`` keyword
    #: of every scorer's constructor (:func:`scorer_class`)
    covariates = None

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

    def encode(self, data):
        """``(EncodedData, rows_kept, estimated)`` of the table ``data`` for this scorer:
        :func:`.orange_data.encode_table` (sparse attributes kept sparse), or with
        :attr:`covariates` :func:`.orange_data.encode_with_covariates`; ``estimated`` the
        indices, among ``data.domain.attributes``, of the attributes estimated (all but those
        named as covariates)."""
        if not self.covariates:
            encoded, rows = encode_table(data, sparse=True)
            return encoded, rows, np.arange(len(data.domain.attributes))
        encoded, rows, attributes = encode_with_covariates(data, self.covariates)
        kept = set(attributes)
        return encoded, rows, np.array([i for i, var in enumerate(data.domain.attributes)
                                        if var in kept], dtype=np.intp)

    def scores(self, data, callback=None):
        """The estimates of ``data.domain.attributes`` (1-D; NaN for an attribute named as a
        covariate)."""
        encoded, _, estimated = self.encode(data)
        scores = np.asarray(self.engine().__call__(self, encoded, callback), dtype=float)
        return _aligned(scores, estimated, len(data.domain.attributes))

    def significance(self, data, method="stir", n_permutations=None, random_state=None,
                     callback=None):
        """Estimates of ``data.domain.attributes`` with their p-values and Benjamini-Hochberg
        q-values: a :class:`~.estimators.significance.Significance`. ``method="stir"`` (the
        Relief estimators of a discrete class: STIR, calibrated by permutations) or
        ``"permutation"`` (any scorer: ``n_permutations`` estimates with the class permuted by
        ``random_state``; None: enough for q < 0.05 among the attributes, at most 1,000, with a
        warning when that cannot reach it);
        with :attr:`covariates` also ``"npdr"`` (NPDR's own test) and permutations of an
        estimator that adjusts for them (the permutations exchange the class over all
        instances), while STIR refuses them. The per-attribute arrays are aligned with
        ``data.domain.attributes`` (NaN for an attribute named as a covariate)."""
        encoded, _, estimated = self.encode(data)
        result = estimate_significance(self, encoded, method, n_permutations, random_state,
                                       callback)
        n = len(data.domain.attributes)
        if estimated.size == n:
            return result
        return replace(result, **{
            field.name: _aligned(getattr(result, field.name), estimated, n)
            for field in fields(result)
            if isinstance(getattr(result, field.name), np.ndarray)
            and getattr(result, field.name).shape == (estimated.size,)})

    def score_data(self, data, feature=None, callback=None):
        scores = self.scores(data, callback)
        if feature is not None:
            return float(scores[_attribute_index(data.domain, feature)])
        return np.atleast_2d(scores)

    def __call__(self, data, feature=None, callback=None):
        if feature is not None:
            return self.score_data(data, feature, callback)
        return self.scores(data, callback)


def _aligned(values, estimated, n):
    """``values`` of the attributes ``estimated`` (indices) spread over ``n`` attributes, NaN for
    the others."""
    if estimated.size == n:
        return values
    out = np.full(n, np.nan)
    out[estimated] = values
    return out


def covariate_names(covariates):
    """The names of ``covariates`` (a name, a variable, or a sequence of them) as a tuple; None
    for None or none. ``ValueError`` for anything else."""
    if covariates is None:
        return None
    if isinstance(covariates, (str, Variable)):
        covariates = [covariates]
    names = []
    for cov in covariates:
        if isinstance(cov, Variable):
            cov = cov.name
        if not isinstance(cov, str):
            raise ValueError(f"covariates are named by variables or their names, got {cov!r}")
        names.append(cov)
    return tuple(names) or None


def _constructor(engine):
    """The scorer's ``__init__``: the engine's parameters and the keyword ``covariates``
    (:func:`covariate_names`), with a signature that says so (Orange's repr reads it)."""
    signature = inspect.signature(engine.__init__)
    keyword = inspect.Parameter("covariates", inspect.Parameter.KEYWORD_ONLY, default=None)

    def __init__(self, *args, covariates=None, **kwargs):
        engine.__init__(self, *args, **kwargs)
        self.covariates = covariate_names(covariates)
    params = list(signature.parameters.values())
    place = len(params) - (params and params[-1].kind == inspect.Parameter.VAR_KEYWORD)
    __init__.__signature__ = signature.replace(
        parameters=params[:place] + [keyword] + params[place:])
    __init__.__doc__ = engine.__init__.__doc__
    return __init__


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
        encoded, _, _ = self.encode(data)
        return self.engine().case_counts(self, encoded, callback)


def scorer_class(engine):
    """The Orange scorer class of the engine estimator class ``engine``, named as it."""
    adapter = CaseCountsScorer if engine.counts_cases else EstimatorScorer
    return type(engine.__name__, (adapter, engine), {
        "__module__": __name__, "__qualname__": engine.__name__, "__doc__": engine.__doc__,
        "__init__": _constructor(engine),
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


def interacting_pairs(data, attributes=None, top=None, estimator=None, **options):
    """The interacting pairs of the attributes of the Orange table ``data`` (discrete attributes
    and a discrete class), best first: :func:`.estimators.interactions.interacting_pairs` on the
    table encoded (:func:`.orange_data.encode_table`: instances without a class left out).
    ``attributes`` names the attributes to pair (variables, names or indices; None: every pair
    or, on data too large for that or with ``top`` or ``estimator`` given, the pairs of the
    ``top`` the ``estimator`` ranks best, a scorer or an engine estimator); the other keywords
    (``method``, ``n_permutations``, ``random_state``, ``callback``, ...) are the engine's.
    Each pair's ``first`` and ``second`` index ``data.domain.attributes``."""
    from .estimators.interactions import interacting_pairs as engine_pairs
    encoded, _ = encode_table(data)
    if attributes is not None:
        attributes = [_attribute_index(data.domain, a) for a in attributes]
    return engine_pairs(encoded, attributes=attributes, top=top, estimator=estimator, **options)


def scan_pairs(data, attributes=None, top=None, callback=None):
    """Every pair of the attributes of the Orange table ``data`` (discrete attributes of at
    most four values, e.g. SNP genotypes, and a discrete class) tested for interaction, the
    ``top`` best first: :func:`.estimators.interactions.scan_pairs` (BOOST's scan: the chi-square
    p-values, q-values over every pair) on the table encoded (:func:`.orange_data.encode_table`:
    instances without a class left out). ``attributes`` limits the scan to the pairs of these
    (variables, names or indices). Each pair's ``first`` and ``second`` index
    ``data.domain.attributes``."""
    from .estimators.interactions import scan_pairs as engine_scan
    encoded, _ = encode_table(data)
    if attributes is not None:
        attributes = [_attribute_index(data.domain, a) for a in attributes]
    return engine_scan(encoded, attributes=attributes, top=top, callback=callback)
