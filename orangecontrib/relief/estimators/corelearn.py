"""CORElearn's attribute estimators by their names in CORElearn's ``attrEval``.

CORElearn is the R package of the authors of ReliefF and RReliefF (Robnik-Sikonja and Savicky).
:func:`corelearn_estimator` gives our estimator that reproduces the named one with CORElearn's
defaults (``preset="corelearn"`` for the Relief family); :data:`CORELEARN_ESTIMATORS` lists the
names with the keyword arguments they stand for. CORElearn's cost-sensitive ReliefF variants
(ReliefFexpC, ReliefFpe) and ReliefKukar reduce to ReliefFexpRank and Relief under the uniform
cost matrix, which is the only one supported for them, and ReliefFavgC and ReliefFpa to
ReliefFexpRank with every miss class weighing 1/(C - 1) (:class:`.relieff.ReliefFequalMisses`); DKMcost and
GainRatioCost default to it. ReliefFsmp and MDLsmp draw their samples from CORElearn's random
stream, R's, here after R's ``set.seed(1)`` (``random_state=1``; pass another ``random_state`` for
``set.seed`` with another seed); so do MSEofModel and MAEofModel, which draw the split points of
numeric attributes.
"""
from .balanced_impurity import (EqualDKM, EqualGini, EqualInf, UniformAccuracy, UniformDKM,
                                UniformGini, UniformInf)
from .cost_sampling import MDLsmp, ReliefFsmp
from .distribution_distance import (DistAngle, DistAUC, DistEuclid, DistHellinger,
                                    EqualHellinger, ImpurityEuclid, ImpurityHellinger)
from .impurity import (DKM, MSE, Accuracy, DKMcost, GainRatio, GainRatioCost, Gini, InfGain, MDL,
                       MyopicReliefF)
from .model_error import ModelError
from .relief_mse import RReliefFwithMSE
from .relieff import Relief, ReliefF, ReliefFbestK, ReliefFequalMisses, ReliefFmerit
from .rrelieff import RReliefF, RReliefFbestK

__all__ = ["CORELEARN_ESTIMATORS", "corelearn_estimator"]

#: CORElearn name -> (our estimator class, its keyword arguments)
CORELEARN_ESTIMATORS = {
    "ReliefFequalK": (ReliefF, dict(preset="corelearn")),
    "ReliefFexpRank": (ReliefF, dict(preset="corelearn", weighting="exp-rank")),
    "ReliefFbestK": (ReliefFbestK, dict(preset="corelearn")),
    "Relief": (Relief, dict(preset="corelearn")),
    "ReliefFdistance": (ReliefF, dict(preset="corelearn", weighting="1/d")),
    "ReliefFsqrDistance": (ReliefF, dict(preset="corelearn", weighting="1/d2")),
    "ReliefFexpC": (ReliefF, dict(preset="corelearn", weighting="exp-rank")),
    "ReliefFavgC": (ReliefFequalMisses, dict(preset="corelearn", weighting="exp-rank")),
    "ReliefFpe": (ReliefF, dict(preset="corelearn", weighting="exp-rank")),
    "ReliefFpa": (ReliefFequalMisses, dict(preset="corelearn", weighting="exp-rank")),
    "ReliefKukar": (Relief, dict(preset="corelearn")),
    "ReliefFsmp": (ReliefFsmp, dict(preset="corelearn", random_state=1)),
    "ReliefFmerit": (ReliefFmerit, dict(preset="corelearn", weighting="exp-rank")),
    "RReliefFequalK": (RReliefF, dict(preset="corelearn", weighting="equal")),
    "RReliefFexpRank": (RReliefF, dict(preset="corelearn")),
    "RReliefFbestK": (RReliefFbestK, dict(preset="corelearn")),
    "RReliefFdistance": (RReliefF, dict(preset="corelearn", weighting="1/d")),
    "RReliefFsqrDistance": (RReliefF, dict(preset="corelearn", weighting="1/d2")),
    "RReliefFwithMSE": (RReliefFwithMSE, dict(preset="corelearn")),
    "InfGain": (InfGain, {}),
    "GainRatio": (GainRatio, dict(unused_value_rule="minus_one")),
    "Gini": (Gini, {}),
    "MDL": (MDL, {}),
    "MDLsmp": (MDLsmp, dict(random_state=1)),
    "Accuracy": (Accuracy, {}),
    "MyopicReliefF": (MyopicReliefF, {}),
    "MSEofMean": (MSE, {}),
    "MSEofModel": (ModelError, dict(loss="squared", random_state=1)),
    "MAEofModel": (ModelError, dict(loss="absolute", random_state=1)),
    "DKM": (DKM, {}),
    "DKMcost": (DKMcost, {}),
    "GainRatioCost": (GainRatioCost, {}),
    "UniformDKM": (UniformDKM, {}),
    "UniformGini": (UniformGini, {}),
    "UniformInf": (UniformInf, {}),
    "UniformAccuracy": (UniformAccuracy, {}),
    "EqualDKM": (EqualDKM, {}),
    "EqualGini": (EqualGini, {}),
    "EqualInf": (EqualInf, {}),
    "EqualHellinger": (EqualHellinger, {}),
    "ImpurityEuclid": (ImpurityEuclid, {}),
    "ImpurityHellinger": (ImpurityHellinger, {}),
    "DistHellinger": (DistHellinger, {}),
    "DistEuclid": (DistEuclid, {}),
    "DistAngle": (DistAngle, {}),
    "DistAUC": (DistAUC, {}),
}


def corelearn_estimator(name, **overrides):
    """Our estimator that gives CORElearn's ``attrEval(estimator=name)`` (``overrides``: other
    keyword arguments, e.g. ``k=5`` for CORElearn's ``kNearestEqual=5``); ``ValueError`` for a
    name without a counterpart here."""
    try:
        cls, kwargs = CORELEARN_ESTIMATORS[name]
    except KeyError:
        raise ValueError(f"no counterpart of CORElearn's estimator {name!r}; known: "
                         f"{', '.join(CORELEARN_ESTIMATORS)}") from None
    return cls(**{**kwargs, **overrides})
