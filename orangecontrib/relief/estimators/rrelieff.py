"""RReliefF: the Relief estimate for a numeric (regression) target.

Robnik-Šikonja & Kononenko 1999, Fig. 4 and eq. 12: for each sampled instance R_i and
its k nearest instances I_j with influences d(i, j) (eqs. 13-14: exp(-(rank/sigma)^2) normalised
over the k; default k = 70, sigma = 20),

    N_dC     = sum_i sum_j diff(tau, R_i, I_j) d(i, j)
    N_dA     = sum_i sum_j diff(A, R_i, I_j) d(i, j)
    N_dC&dA  = sum_i sum_j diff(tau, R_i, I_j) diff(A, R_i, I_j) d(i, j)
    W[A]     = N_dC&dA / N_dC - (N_dA - N_dC&dA) / (m - N_dC).

diff(tau) is the target's difference divided by its range (ramped with ``numeric_diff="ramp"``,
as CORElearn). N_dC is clamped into [1e-7, m - 1e-7], as CORElearn does, so a target that never
(or always) differs among neighbours gives a finite estimate. Under RELIEF-C N_dA and N_dC&dA are
multiplied by m / (the influence whose diffs of A are known), while N_dC and m stay sums over all
neighbours.
"""
from dataclasses import replace

import numpy as np

from .neighbourhood.diffs import target_diffs
from .parameters import DIFF_PARAMETERS, ITERATIONS, PRESET, RANDOM_STATE, SIGMA, WEIGHTING
from .relief_family import BestK, ReliefFamily, weighted_diff_sums
from .relieff import K_MAX

__all__ = ["RReliefF", "RReliefFbestK"]

N_DC_CLAMP = 1e-7


class RReliefF(ReliefFamily):
    """RReliefF (Fig. 4); parameters as :class:`.ReliefFamily`, defaults k = 70, exp-rank
    weighting with sigma = 20 (the paper's defaults)."""
    name = "RReliefF"
    short_name = "RRF"
    paper = "Robnik-Šikonja & Kononenko 1999, Fig. 4 and eq. 12"
    tasks = frozenset({"regression"})
    dask_backend = True
    default_k = 70
    default_weighting = "exp-rank"
    groups = "all"
    #: eq. 12 is a difference of two ratios of sums over the m instances, not a mean of
    #: m bounded updates: Relief's threshold does not apply
    relief_threshold = False
    #: CORElearn's RReliefF keeps neighbours at distance 0
    corelearn_skips_zero = False

    def target_contexts(self, data, callback=None):
        """For a permutation test: a function from ``data`` with another target (the same
        instances and attributes) to its context. The neighbours do not depend on a numeric
        target, so one search serves every target; None with ``preset="skrebate"`` (its hits
        and misses are read off the target's standard deviation, :mod:`.skrebate`)."""
        if self.skrebate_preset():
            return None
        context = self.context(data, callback)
        return lambda target, callback=None: replace(context, data=target)

    def profile(self, context, ks, columns=None, callback=None):
        nb = context.neighbours
        factors = context.derived("target diffs", lambda: self.target_factors(context))
        coef = np.broadcast_to(self.update_weights(context)[None, :, None], (1,) + nb.shape[:2])
        sums, known, totals = weighted_diff_sums(
            context, ks, coef, factors=factors, columns=columns,
            weighting=self.weighting_, sigma=self.sigma, callback=callback)
        return self.combine(sums, known, totals)

    @staticmethod
    def target_factors(context):
        """(2, m, G, K): ones, and diff(tau) of each instance and neighbour (0 for no
        neighbour): the factor sets of :meth:`combine`."""
        nb = context.neighbours
        found = context.found
        rows = np.broadcast_to(context.instances[:, None, None], nb.shape)
        tau = np.zeros(nb.shape)
        tau[found] = target_diffs(context.data, rows[found], nb[found],
                                  context.diff_model.options)
        return np.stack([np.ones(nb.shape), tau])

    @staticmethod
    def combine(sums, known, totals):
        """The estimates (n_k, a) from the sums of :func:`.weighted_diff_sums` with factor
        sets 1 and diff(tau): eq. 12 from N_dA, N_dC&dA (renormalised over the known diffs
        under RELIEF-C), N_dC and m (the total influence)."""
        m = totals[0, 0][:, None]
        with np.errstate(invalid="ignore", divide="ignore"):
            renorm = totals[0, 0][:, None] / known[0]
            n_da = sums[0, 0] * renorm
            n_dcda = sums[0, 1] * renorm
        n_dc = np.clip(totals[0, 1][:, None], N_DC_CLAMP, m - N_DC_CLAMP)
        return n_dcda / n_dc - (n_da - n_dcda) / (m - n_dc)


class RReliefFbestK(BestK, RReliefF):
    """RReliefF with equal weights evaluated for every k from 1 to ``k_max`` (default 100; with
    ``preset="corelearn"`` all other instances, as CORElearn's RReliefFbestK) from one
    neighbour search; each attribute takes its best estimate over k."""
    name = "RReliefFbestK"
    paper = "Robnik-Šikonja & Kononenko 1999, Fig. 2 (estimate versus k); CORElearn"
    parameters = (K_MAX, ITERATIONS, RANDOM_STATE, WEIGHTING, SIGMA, PRESET) + DIFF_PARAMETERS
    dask_backend = False
    default_weighting = "equal"

    def __init__(self, k_max=None, iterations=None, random_state=None, weighting=None,
                 sigma=20.0, preset="papers", diff=None, **diff_keywords):
        super().__init__(iterations=iterations, random_state=random_state, weighting=weighting,
                         sigma=sigma, preset=preset, diff=diff, **diff_keywords)
        self.k_max = k_max
