"""RReliefF and the mean squared error combined, weighted by the number of instances: CORElearn
1.57 (Robnik-Šikonja & Savicky), estimator RReliefFwithMSE.

RReliefF needs many instances before its estimates are reliable, MSEofMean (eq. 17 of
Robnik-Šikonja & Kononenko 1999) does not. Both sets of estimates are scaled to [0, 1] over the
attributes estimated together, (W − min W) / (max W − min W), and mixed as

    w · RReliefF' + (1 − w) · MSE',     w = exp(−1 / (n / 50)²)

for n instances (w = 0.37 at 50 instances, 0.78 at 100, 0.99 at 500). An estimator whose
estimates are all equal contributes 0 (CORElearn divides by the zero range); an attribute an
estimator cannot score (NaN) stays NaN and does not enter the range.
"""
import numpy as np

from .base import Estimator, check_data, progress_part
from .description import Param
from .parameters import PRESET
from .impurity import MSE
from .rrelieff import RReliefF

__all__ = ["RReliefFwithMSE", "relief_share"]


def relief_share(n_instances, necessary=50):
    """w = exp(−1 / (n / ``necessary``)²): RReliefF's share of the mix for n instances."""
    return float(np.exp(-1.0 / (n_instances / necessary) ** 2))


def _scaled(estimates):
    """(W − min W) / (max W − min W) over the attributes (NaN ignored), 0 for a zero range."""
    low, high = np.nanmin(estimates), np.nanmax(estimates)
    if not high > low:
        return np.where(np.isnan(estimates), np.nan, 0.0)
    return (estimates - low) / (high - low)


class RReliefFwithMSE(Estimator):
    """RReliefF and MSEofMean, each scaled to [0, 1], mixed by the number of instances (see the
    module docstring).

    Parameters
    ----------
    preset
        The RReliefF preset ("papers" or "corelearn").
    necessary
        The number of instances at which RReliefF's share is exp(−1) (CORElearn: 50).
    relief_keywords
        Further keyword arguments of
        :class:`~orangecontrib.relief.estimators.rrelieff.RReliefF` (default: its exp-rank
        weighting with k = 70, sigma = 20, as CORElearn's RReliefFexpRank).
    """
    name = "RReliefFwithMSE"
    tasks = frozenset({"regression"})
    paper = "CORElearn's RReliefFwithMSE (Robnik-Šikonja & Savicky)"
    parameters = (PRESET, Param(
        "necessary", "float", 50, "Instances for RReliefF's share", low=0, low_open=True,
        tooltip="The number of instances at which RReliefF's share of the mix is exp(−1)."))

    def __init__(self, preset="papers", necessary=50, **relief_keywords):
        self.preset = preset
        self.necessary = necessary
        self.relief_keywords = relief_keywords

    @property
    def relief(self):
        return RReliefF(preset=self.preset, **self.relief_keywords)

    def context(self, data, callback=None):
        """The RReliefF neighbour context (the expensive part)."""
        check_data(data, self)
        return self.relief.context(data, callback)

    def estimate(self, context, columns=None):
        """The mixed estimates of ``columns`` (default: the context's data)."""
        relief = self.relief.estimate(context, columns)
        mse = MSE().estimate(context.data, columns)
        w = relief_share(context.data.n_instances, self.necessary)
        return w * _scaled(relief) + (1.0 - w) * _scaled(mse)

    def __call__(self, data, callback=None):
        context = self.context(data, progress_part(callback, 0.0, 0.9))
        result = self.estimate(context)
        if callback is not None:
            callback(1.0)
        return result
