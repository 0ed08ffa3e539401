"""Relief (Kira & Rendell), ReliefF (RELIEF-A/E/F) and ReliefFbestK for a discrete class.

ReliefF (Robnik-Šikonja & Kononenko 1999, Fig. 3; Kononenko 1994 §2, §4):
for each sampled instance R with class y, its k nearest hits H_j and, per other class C, its
k nearest misses M_j(C):

    W[A] = 1/m * sum_R [ sum_{C != y} P(C) / (1 - P(y)) * sum_j w_j diff(A, R, M_j(C))
                         - sum_j w_j diff(A, R, H_j) ],

with the neighbour influences w_j normalised to sum 1 in each class (1/k for equal weights, as in
Fig. 3's division by m*k) and P(C) the relative class frequencies. A class with no candidate
contributes nothing. ``misses="pooled"`` is RELIEF-E: the k nearest misses are taken from all
other classes together, each with weight 1. Relief is RELIEF-E with k = 1 (Fig. 1), which on
two classes equals ReliefF with k = 1. Under RELIEF-C (missing="C") the hit and miss sums are
each renormalised by the share of their influence whose diffs are known; an attribute none of
whose hit (or miss) diffs is known then gets NaN.
"""
import numpy as np

from .neighbours import neighbour_weights, regroup
from .relief_family import BestK, ReliefFamily, first_k_weights, weighted_diff_sums
from .significance import HitMissPairs

__all__ = ["Relief", "ReliefF", "ReliefFbestK"]

#: a permutation test keeps every instance's neighbours sorted (16 bytes each) up to this size
ORDER_BYTES = 256 * 2 ** 20


class ReliefF(ReliefFamily):
    """ReliefF; see the module docstring and :class:`.ReliefFamily` for the parameters.

    misses: "per-class" (RELIEF-F, default) or "pooled" (RELIEF-E).
    """
    name = "ReliefF"
    tasks = frozenset({"classification"})

    def __init__(self, k=None, iterations=None, random_state=None, weighting=None, sigma=20.0,
                 misses="per-class", preset="papers", diff=None, **diff_keywords):
        super().__init__(k=k, iterations=iterations, random_state=random_state,
                         weighting=weighting, sigma=sigma, preset=preset, diff=diff,
                         **diff_keywords)
        self.misses = misses

    @property
    def groups(self):
        if self.misses not in ("per-class", "pooled"):
            raise ValueError(f"misses must be 'per-class' or 'pooled', got {self.misses!r}")
        return self.misses

    def coefficients(self, context):
        """(2, m, G): the misses' and the hits' coefficient of each neighbour group."""
        data = context.data
        y = data.y[context.instances].astype(np.intp)
        m, G = context.neighbours.shape[:2]
        if context.groups == "pooled":
            miss = np.tile([0.0, 1.0], (m, 1))
            hit = np.tile([1.0, 0.0], (m, 1))
        else:
            prior = data.class_priors()
            hit = (np.arange(G) == y[:, None]).astype(float)
            miss = np.where(hit > 0, 0.0, prior[None, :] / (1.0 - prior[y])[:, None])
        return np.stack([miss, hit]) * self.update_weights(context)[None, :, None]

    def target_contexts(self, data, callback=None):
        """For a permutation test: a function from ``data`` with other classes (the same
        instances and attributes) to its context, all from one search that sorts all instances
        by distance from each sampled one; the groups are read off in that order
        (:func:`.neighbours.regroup`). None (search again for each class) with instance weights,
        with ``preset="corelearn"`` (its neighbour order is that of a search per class),
        when RELIEF-D's distances depend on the class (missing values) or when the sorted
        neighbours would exceed ``ORDER_BYTES``."""
        n = data.n_instances
        if data.weights is not None or (self.missing == "D" and not data.is_sparse
                                        and np.isnan(data.X).any()) \
                or self.diff.corelearn or 16 * self.sample(n).size * n > ORDER_BYTES:
            return None
        ordered = self._search(data, n, "all", callback)
        k, groups = self.k_, self.groups
        return lambda target: regroup(ordered, target, k, groups)

    def hit_miss_pairs(self, context):
        """The (instance, neighbour) pairs of the estimate with their weights in the hit and the
        miss mean (STIR, :mod:`.significance`): each instance's first k' neighbours of a group
        with their normalised influences times the group's coefficient (and the instance's
        weight)."""
        coef = self.coefficients(context)
        w = first_k_weights(neighbour_weights(context, self.weighting_, self.sigma),
                            context.available, self.k_, context.mass)
        miss, hit = coef[0][..., None] * w, coef[1][..., None] * w
        nb = context.neighbours
        keep = (nb >= 0) & (miss + hit > 0)
        rows = np.broadcast_to(context.instances[:, None, None], nb.shape)
        return HitMissPairs(rows=rows[keep], others=nb[keep], weights=(miss + hit)[keep],
                            miss=(miss > 0)[keep])

    def profile(self, context, ks, columns=None, callback=None):
        sums, known, totals = weighted_diff_sums(
            context, ks, self.coefficients(context), columns=columns,
            weighting=self.weighting_, sigma=self.sigma, callback=callback)
        with np.errstate(invalid="ignore", divide="ignore"):
            renorm = sums[:, 0] * totals[:, 0, :, None] / known
        # no neighbour in the group at all (a class of one instance has no hits): no
        # contribution, where RELIEF-C's "none of the diffs known" stays NaN
        renorm[np.broadcast_to(totals[:, 0, :, None] == 0, renorm.shape)] = 0.0
        return (renorm[0] - renorm[1]) / self.update_weights(context).sum()


class Relief(ReliefF):
    """Kira & Rendell's Relief (Fig. 1): one nearest hit and one nearest miss (from any other
    class), equal weights. ``k`` > 1 gives RELIEF-A's averaging over k hits and misses."""
    name = "Relief"
    default_k = 1
    #: CORElearn's Relief takes the nearest hit and miss even at distance 0
    corelearn_skips_zero = False

    def __init__(self, k=None, iterations=None, random_state=None, preset="papers", diff=None,
                 **diff_keywords):
        super().__init__(k=k, iterations=iterations, random_state=random_state,
                         misses="pooled", preset=preset, diff=diff, **diff_keywords)

    @property
    def k_(self):
        return self.default_k if self.k is None else self.k


class ReliefFbestK(BestK, ReliefF):
    """ReliefF evaluated for every k from 1 to ``k_max`` (default 100, capped by the class
    sizes; with ``preset="corelearn"`` the largest class, as CORElearn's ReliefFbestK, which
    makes time and memory grow with the square of the number of instances) from one neighbour
    search; each attribute takes its best estimate over k."""
    name = "ReliefFbestK"

    def __init__(self, k_max=None, iterations=None, random_state=None, weighting=None,
                 sigma=20.0, misses="per-class", preset="papers", diff=None, **diff_keywords):
        super().__init__(iterations=iterations, random_state=random_state, weighting=weighting,
                         sigma=sigma, misses=misses, preset=preset, diff=diff, **diff_keywords)
        self.k_max = k_max

    #: STIR tests the hits and misses of one neighbourhood; the best over k is not one
    hit_miss_pairs = None
