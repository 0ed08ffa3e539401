"""MultiScale Relief: the strongest standardised evidence of Relief estimators of different
locality; the recommended estimator for detecting the relevant attributes among up to a few
thousand (among 10,000 SNPs and more, Iterative Relief around MultiSURF: :mod:`.iterative`).

Which neighbourhood finds an interaction depends on the problem: interactions of higher order
need small neighbourhoods (ReliefF with k = 10 finds 4-way XOR where MultiSURF fails), while
heterogeneous problems and weak effects need MultiSURF's wider, per-instance radius (MultiSURF
finds both models of a 75/25 heterogeneous mixture where ReliefF with k = 10 finds one); see
Urbanowicz et al., "Benchmarking relief-based feature selection methods for bioinformatics data
mining" (J Biomed Inform 85, 2018), whose best methods these are. An attribute is relevant if it
is relevant at some locality, so the estimate is the largest of its standardised estimates:

    W[A] = max_e (W_e[A] - median_B W_e[B]) / (1.4826 MAD_B W_e[B]),

with median and MAD (median absolute deviation; 1.4826 makes it the standard deviation of normal
noise) over the attributes B: robust to the few relevant attributes, they measure where a
method's noise attributes lie and how much they spread, so estimates of differently scaled
methods become comparable. Where the MAD is 0, the mean absolute deviation is used, and where
that is 0 too (all estimates equal, e.g. a single attribute) the standardised estimates are 0.
An attribute whose estimate is NaN (no known value) stays NaN.

The default estimators are MultiSURF() and, as the small-neighbourhood view, TuRF around ReliefF
with k = 10 (one round that removes the worse-scored half of the attributes and rescores the
others; RReliefF(k=10, weighting="equal") for a numeric target). The maximum has a price: each
estimator adds the upper tail of its noise attributes, so a weak effect seen by only one of them
must clear the noise of both (MultiSURF ranks the attributes of a 5-way XOR below noise, and
its highest noise attributes outrank those of ReliefF's correct but weak ranking). The removal
round is Moore & White's remedy for ReliefF in noisy data ("Tuning ReliefF for genome-wide
genetic analysis", EvoBIO 2007): the k nearest instances are chosen by distances over all the
attributes, so among many noise attributes they rarely agree on the few that interact; once the
worse half is gone they do, which sharpens the local estimates of higher-order interactions and
of weak pure epistasis in small samples enough to clear that tail. MultiSURF keeps all the
attributes, because a removal round makes neighbourhoods follow the strongest effect and loses
the weaker model of a heterogeneous mixture. TuRF's result ranks the removed half below the
survivors, so its standardised values are TuRF's ranking on the scale of its noise spread.

The values are standardised evidence for ranking and selecting attributes (how many noise
spreads above the typical attribute), not Relief's [-1, 1] estimates, so Relief's threshold
does not apply to them.
"""
from dataclasses import dataclass

import numpy as np

from .base import Estimator, check_data, progress_part
from .description import Param

__all__ = ["MultiScaleRelief", "standardise"]

#: the MAD of normally distributed noise times this is its standard deviation
MAD_TO_SD = 1.4826


def standardise(estimates):
    """(W - median W) / (1.4826 MAD W) over the finite estimates (see the module docstring)."""
    w = np.asarray(estimates, dtype=float)
    finite = w[np.isfinite(w)]
    if not finite.size:
        return np.full(w.shape, np.nan)
    centre = np.median(finite)
    spread = MAD_TO_SD * np.median(np.abs(finite - centre))
    if spread <= 0:
        spread = np.abs(finite - centre).mean()
    if spread <= 0:
        return np.where(np.isfinite(w), 0.0, np.nan)
    return (w - centre) / spread


@dataclass(eq=False)
class MultiScaleContext:
    """The contexts of the combined estimators, in their order."""
    data: object
    estimators: tuple
    contexts: list


class MultiScaleRelief(Estimator):
    """MultiScale Relief; see the module docstring. ``estimators``: the engine estimators to
    combine (None: the defaults for the data's target)."""
    name = "MultiScale Relief"
    short_name = "MScale"
    #: attribute weights in the distance go to its estimators with the data (which refuse
    #: them if they cannot take them)
    weighs_distances = True
    paper = ("this add-on: MultiSURF and TuRF around ReliefF, after Urbanowicz et al. 2018, "
             "J Biomed Inform 85")
    parameters = (Param("estimators", "estimators", None, "Estimators", none="the defaults",
                        tooltip="The estimators whose standardised estimates are combined."),)
    #: not offered as a tree's split selector (standardised among the columns evaluated
    #: together, its values do not compare across a node's candidate splits)
    split_selector = False

    def __init__(self, estimators=None):
        self.estimators = estimators

    def estimators_(self, data):
        """The estimators combined on ``data``."""
        if self.estimators is None:
            from .relieff import ReliefF
            from .rrelieff import RReliefF
            from .surf import MultiSURF
            from .turf import TuRF
            local = ReliefF(k=10) if data.is_classification else \
                RReliefF(k=10, weighting="equal")
            return (MultiSURF(), TuRF(local, remove=0.5, rounds=1))
        self.check_parameters()
        return tuple(self.estimators)

    def context(self, data, callback=None):
        """Each estimator's context."""
        check_data(data, self)
        estimators = self.estimators_(data)
        contexts = []
        for i, estimator in enumerate(estimators):
            contexts.append(estimator.context(data, progress_part(
                callback, i / len(estimators), (i + 1) / len(estimators))))
        if callback is not None:
            callback(1.0)
        return MultiScaleContext(data, estimators, contexts)

    def estimate(self, context, columns=None):
        """The largest standardised estimate of each attribute (NaN where every one is NaN)."""
        z = np.array([standardise(e.estimate(c, columns))
                      for e, c in zip(context.estimators, context.contexts)])
        known = np.isfinite(z)
        return np.where(known.any(axis=0),
                        np.max(np.where(known, z, -np.inf), axis=0), np.nan)

    def __call__(self, data, callback=None):
        return self.estimate(self.context(data, callback))
