"""The estimators the add-on offers, in the order its surfaces list them: Orange's scorers
(:mod:`orangecontrib.relief.scoring`), the scikit-learn selectors
(:mod:`orangecontrib.relief.sklearn`), the command line's ``estimators`` and the documentation's
table all derive from this list and from each class's description (:mod:`.description`).
A new estimator appears on every surface once its class is added here."""
from .contextual_merit import ContextualMerit
from .impurity import MDL, MSE, Accuracy, GainRatio, Gini, InfGain, MyopicReliefF
from .multiscale import MultiScaleRelief
from .murelief import MuRelief
from .npdr import NPDR
from .relieff import Relief, ReliefF, ReliefFbestK
from .rrelieff import RReliefF
from .surf import SURF, MultiSURF, MultiSURFstar, SURFstar
from .swrf import SWRF, MultiSWRF, MultiSWRFDB, MultiSWRFDBstar, MultiSWRFstar, SWRFstar
from .iterative import Iter
from .trend import TrendTest
from .turf import TuRF
from .unified_pi import UnifiedPi
from .vls import VLS

__all__ = ["ESTIMATORS", "COUNTERPARTS", "for_task"]

#: the offered estimator classes
ESTIMATORS = (ReliefF, RReliefF, Relief, ReliefFbestK, MultiScaleRelief, MultiSURF,
              MultiSURFstar, SURF, SURFstar, SWRF, SWRFstar, MultiSWRF, MultiSWRFstar,
              MultiSWRFDB, MultiSWRFDBstar, MuRelief, TuRF, VLS, Iter, NPDR, TrendTest,
              MyopicReliefF, ContextualMerit, UnifiedPi, InfGain, GainRatio, Gini, MDL,
              Accuracy, MSE)

#: the estimator that takes the place of one that suits only the other kind of target: the
#: Relief family's classification forms become RReliefF (and it ReliefF), the impurity
#: measures of a categorical target MSE (and it Gini gain); an estimator not listed here is
#: replaced by the first one of :data:`ESTIMATORS` that suits the target
COUNTERPARTS = {ReliefF: RReliefF, Relief: RReliefF, ReliefFbestK: RReliefF, RReliefF: ReliefF,
                InfGain: MSE, GainRatio: MSE, Gini: MSE, MDL: MSE, Accuracy: MSE, MSE: Gini}


def for_task(estimator, task):
    """The estimator class used for a ``task`` ("classification" or "regression") when
    ``estimator`` (a class of :data:`ESTIMATORS` or a subclass of one) is chosen: itself if it
    suits the task, else its counterpart (:data:`COUNTERPARTS`), else the first estimator of
    :data:`ESTIMATORS` that suits the task."""
    if task in estimator.tasks:
        return estimator
    counterpart = next((COUNTERPARTS[cls] for cls in estimator.__mro__ if cls in COUNTERPARTS),
                       None)
    if counterpart is not None and task in counterpart.tasks:
        return counterpart
    return next(cls for cls in ESTIMATORS if task in cls.tasks)
