"""Orange3-Relief: non-myopic attribute estimation for Orange — the public scripting API.

Scorers (Orange ``Scorer``s: ``ReliefF(k=10)(table)`` -> one estimate per attribute)::

    from orangecontrib.relief import ReliefF, RReliefF, ContextualMerit, UnifiedPi

Learners (Orange ``Learner``s: ``CoreTreeLearner(estimator=ReliefF())(table)`` -> a model)::

    from orangecontrib.relief import CoreTreeLearner, ObliviousTreeLearner

The numpy engine behind them is :mod:`orangecontrib.relief.estimators`; generators of the papers'
artificial problems are in :mod:`orangecontrib.relief.datasets`.
"""
from .scoring import (SCORERS, Accuracy, ContextualMerit, GainRatio, Gini, InfGain, MDL, MSE,
                      MultiSURF, MultiSURFstar, MyopicReliefF, Relief, ReliefF, ReliefFbestK,
                      RReliefF, SURF, SURFstar, TuRF, UnifiedPi, scorer_by_name)
from .estimators.threshold import relief_threshold, select_above_threshold
from .learners import (CoreTreeClassificationLearner, CoreTreeLearner, CoreTreeRegressionLearner,
                       ObliviousTreeLearner)

__all__ = ["SCORERS", "Accuracy", "ContextualMerit", "GainRatio", "Gini", "InfGain", "MDL", "MSE",
           "MyopicReliefF", "Relief", "ReliefF", "ReliefFbestK", "RReliefF", "UnifiedPi",
           "SURF", "SURFstar", "MultiSURF", "MultiSURFstar", "TuRF",
           "scorer_by_name", "relief_threshold", "select_above_threshold",
           "CoreTreeClassificationLearner", "CoreTreeLearner", "CoreTreeRegressionLearner",
           "ObliviousTreeLearner"]
