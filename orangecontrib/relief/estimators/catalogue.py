"""The estimators the add-on offers, in the order its surfaces list them: Orange's scorers
(:mod:`orangecontrib.relief.scoring`), the scikit-learn selectors
(:mod:`orangecontrib.relief.sklearn`), the command line's ``estimators`` and the documentation's
table all derive from this list and from each class's description (:mod:`.description`).
A new estimator appears on every surface once its class is added here."""
from .contextual_merit import ContextualMerit
from .impurity import MDL, MSE, Accuracy, GainRatio, Gini, InfGain, MyopicReliefF
from .multiscale import MultiScaleRelief
from .npdr import NPDR
from .relieff import Relief, ReliefF, ReliefFbestK
from .rrelieff import RReliefF
from .surf import SURF, MultiSURF, MultiSURFstar, SURFstar
from .trend import TrendTest
from .turf import TuRF
from .unified_pi import UnifiedPi

__all__ = ["ESTIMATORS"]

#: the offered estimator classes
ESTIMATORS = (ReliefF, RReliefF, Relief, ReliefFbestK, MultiScaleRelief, MultiSURF,
              MultiSURFstar, SURF, SURFstar, TuRF, NPDR, TrendTest, MyopicReliefF, ContextualMerit, UnifiedPi,
              InfGain, GainRatio, Gini, MDL, Accuracy, MSE)
