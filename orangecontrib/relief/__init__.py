"""Orange3-Relief: non-myopic attribute estimation for Orange — the public scripting API.

Scorers (Orange ``Scorer`` objects: ``ReliefF(k=10)(table)`` -> one estimate per attribute)::

    from orangecontrib.relief import ReliefF, RReliefF, ContextualMerit, UnifiedPi

Learners (Orange ``Learner`` objects: ``CoreTreeLearner(estimator=ReliefF())(table)`` -> a model)::

    from orangecontrib.relief import CoreTreeLearner, ObliviousTreeLearner

The numpy engine behind them is :mod:`orangecontrib.relief.estimators`; generators of the papers'
artificial problems are in :mod:`orangecontrib.relief.datasets`.

Examples
--------
On a parity problem (the class is ``I1`` XOR ``I2``; ``R1``..``R3`` are random) ReliefF puts the
two informative attributes above Relief's relevance threshold and the random ones below it:

>>> from orangecontrib.relief import ReliefF, CoreTreeLearner, select_above_threshold
>>> from orangecontrib.relief.datasets import parity
>>> data = parity(order=2, n_irrelevant=3)
>>> scores = ReliefF(k=10)(data)
>>> chosen = select_above_threshold(scores, alpha=0.05, m=len(data))
>>> sorted(data.domain.attributes[i].name for i in chosen)
['I1', 'I2']

A CORE tree split by ReliefF learns the parity concept:

>>> model = CoreTreeLearner(estimator=ReliefF())(data)
>>> bool((model(data) == data.Y).all())
True
"""
__version__ = "0.1.0"

from .lazy import lazy_exports


def _scoring_names(scoring):
    """The names :mod:`.scoring` exports here: the Orange scorer of every estimator of the
    catalogue (:data:`.estimators.catalogue.ESTIMATORS`), each under its estimator's name, their
    list, the look-up by name and the interacting pairs of a table (of the best-ranked
    attributes, or every pair)."""
    return ["SCORERS", "scorer_by_name", "interacting_pairs", "scan_pairs",
            *(cls.__name__ for cls in scoring.SCORERS)]


#: the public names and the modules that define them (a list, or a function of the module that
#: derives it); imported on first use (PEP 562), so that the numpy engine (:mod:`.estimators`),
#: :mod:`.sklearn` and :mod:`.dask` import without Orange. Every name takes Orange tables.
_EXPORTS = {
    "scoring": _scoring_names,
    "estimators.threshold": ["relief_threshold", "select_above_threshold"],
    "selection": ["SelectAttributes"],
    "learners": ["CoreTreeClassificationLearner", "CoreTreeLearner", "CoreTreeRegressionLearner",
                 "ObliviousTreeLearner"],
}
# ``__all__`` is derived from the catalogue on its first use (by ``__getattr__``)
_, __getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
