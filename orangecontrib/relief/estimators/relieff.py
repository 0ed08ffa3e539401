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

from .base import row_blocks
from .description import Param
from .parameters import DIFF_PARAMETERS, ITERATIONS, K, PRESET, RANDOM_STATE, SIGMA, WEIGHTING
from .neighbourhood.neighbours import first_k_places, neighbour_places, neighbour_weights, regroup
from .relief_family import BestK, ReliefFamily, first_k_weights, weighted_diff_sums
from .significance import HitMissPairs

__all__ = ["Relief", "ReliefF", "ReliefFbestK", "ReliefFequalMisses", "ReliefFmerit",
           "group_coefficients"]

#: a permutation test keeps every instance's neighbours sorted (16 bytes each) up to this size
ORDER_BYTES = 256 * 2 ** 20


MISSES = Param(
    "misses", "choice", "per-class", "Misses", advanced=True,
    choices=(("per-class", "k of each class"), ("pooled", "k of all classes")),
    tooltip="RELIEF-F: k nearest misses from each other class, weighted by the class's prior "
            "probability; RELIEF-E: k nearest misses from all other classes together "
            "(Kononenko 1994).")
K_MAX = Param(
    "k_max", "int", None, "Largest k", low=1, none="100",
    tooltip="ReliefF is computed for every k = 1 … k_max from one neighbour search, and each "
            "attribute gets its best estimate over k (time and memory grow with k_max).")


class ReliefF(ReliefFamily):
    """ReliefF; see the module docstring and :class:`.ReliefFamily` for the parameters.

    misses: "per-class" (RELIEF-F, default) or "pooled" (RELIEF-E).
    """
    name = "ReliefF"
    short_name = "RF"
    paper = "Kononenko 1994 (RELIEF-A to F); Robnik-Šikonja & Kononenko 1999, Fig. 3"
    tasks = frozenset({"classification"})
    parameters = (K, ITERATIONS, RANDOM_STATE, WEIGHTING, SIGMA, MISSES, PRESET) \
        + DIFF_PARAMETERS
    dask_backend = True
    #: STIR tests the hits against the misses of the k nearest (:meth:`hit_miss_pairs`)
    significance_tests = ("stir", "permutation")

    def __init__(self, k=None, iterations=None, random_state=None, weighting=None, sigma=20.0,
                 misses="per-class", preset="papers", diff=None, **diff_keywords):
        super().__init__(k=k, iterations=iterations, random_state=random_state,
                         weighting=weighting, sigma=sigma, preset=preset, diff=diff,
                         **diff_keywords)
        self.misses = misses

    @property
    def groups(self):
        return self.misses

    def coefficients(self, context):
        """(2, m, G): the misses' and the hits' coefficient of each neighbour group."""
        data = context.data
        return group_coefficients(data.y[context.instances], data.class_priors(),
                                  context.neighbours.shape[1], context.groups,
                                  self.update_weights(context))

    def target_contexts(self, data, callback=None):
        """For a permutation test: a function from ``data`` with other classes (the same
        instances and attributes) to its context, all from one search that sorts all instances
        by distance from each sampled one; the groups are read off in that order
        (:func:`.neighbours.regroup`). None (search again for each class) with instance weights,
        with ``preset="corelearn"`` (its neighbour order is that of a search per class) or
        ``preset="skrebate"`` (its neighbours are scikit-rebate's, :mod:`.skrebate`),
        when RELIEF-D's distances depend on the class (missing values) or when the sorted
        neighbours would exceed ``ORDER_BYTES``."""
        n = data.n_instances
        if data.weights is not None or (self.missing == "D" and not data.is_sparse
                                        and data.any_missing) \
                or self.diff.corelearn or self.skrebate_preset() \
                or 16 * self.sample(n).size * n > ORDER_BYTES:
            return None
        ordered = self._search(data, n, "all", callback)
        k, groups = self.k_, self.groups
        return lambda target, callback=None: regroup(ordered, target, k, groups)

    def hit_miss_pairs(self, context):
        """The (instance, neighbour) pairs of the estimate with their weights in the hit and the
        miss mean (STIR, :mod:`.significance`): each instance's first k' neighbours of a group
        with their normalised influences times the group's coefficient (and the instance's
        weight)."""
        coef = self.coefficients(context)
        places = neighbour_places(context)
        w = first_k_weights(neighbour_weights(context, self.weighting_, self.sigma), places,
                            self.k_)
        miss, hit = coef[0][..., None] * w, coef[1][..., None] * w
        nb = context.neighbours
        keep = (nb >= 0) & (miss + hit > 0)
        rows = np.broadcast_to(context.instances[:, None, None], nb.shape)
        return HitMissPairs(rows=rows[keep], others=nb[keep], weights=(miss + hit)[keep],
                            miss=(miss > 0)[keep],
                            # (tied neighbours count by their shares; weighted: one each)
                            places=None if context.mass is not None
                            else first_k_places(places, self.k_)[keep])

    def pair_factors(self, context):
        """Per-neighbour factors (m, G, K) of the diffs, or None (all 1)."""
        return None

    def profile(self, context, ks, columns=None, callback=None):
        factors = self.pair_factors(context)
        if factors is not None:     # set 0: the plain totals; set 1: the diffs times the factors
            factors = np.stack([np.ones_like(factors), factors])
        sums, known, totals = weighted_diff_sums(
            context, ks, self.coefficients(context), factors=factors, columns=columns,
            weighting=self.weighting_, sigma=self.sigma, callback=callback)
        return self.combine(sums, known, totals, self.update_weights(context).sum())

    @staticmethod
    def combine(sums, known, totals, total_weight):
        """The estimates (n_k, a) from the sums of :func:`.weighted_diff_sums` over the
        :meth:`coefficients` (set 0 the misses, set 1 the hits) and the total weight of the
        updates: the miss sum less the hit sum over ``total_weight`` (m without instance
        weights), each renormalised over its known diffs (RELIEF-C); with several factor sets the
        last one (the diffs times the pair factors) is summed."""
        with np.errstate(invalid="ignore", divide="ignore"):
            renorm = sums[:, -1] * totals[:, 0, :, None] / known
        # no neighbour in the group at all (a class of one instance has no hits): no
        # contribution, where RELIEF-C's "none of the diffs known" stays NaN
        renorm[np.broadcast_to(totals[:, 0, :, None] == 0, renorm.shape)] = 0.0
        return (renorm[0] - renorm[1]) / total_weight


def group_coefficients(y, prior, n_groups, groups, update_weights):
    """(2, m, G): the misses' and the hits' coefficient of each neighbour group of the sampled
    instances of classes ``y`` (m,): per class (``groups="per-class"``) P(C) / (1 - P(y)) for
    a miss class C and 1 for the hits, pooled (``"pooled"``) 1 for group 1 (misses) and group 0
    (hits); times each instance's ``update_weights``. ``prior`` holds the class
    probabilities P(C) of the whole data."""
    y = np.asarray(y).astype(np.intp)
    m = y.size
    if groups == "pooled":
        miss = np.tile([0.0, 1.0], (m, 1))
        hit = np.tile([1.0, 0.0], (m, 1))
    else:
        hit = (np.arange(n_groups) == y[:, None]).astype(float)
        miss = np.where(hit > 0, 0.0, prior[None, :] / (1.0 - prior[y])[:, None])
    return np.stack([miss, hit]) * np.asarray(update_weights)[None, :, None]


class ReliefFequalMisses(ReliefF):
    """ReliefF in which every other class's misses weigh the same, 1/(C - 1) for C classes, in
    place of P(C)/(1 - P(y)) in the update of the module docstring: CORElearn's ReliefFavgC
    and ReliefFpa (Robnik-Šikonja & Savicky, CORElearn 1.57) under the uniform cost matrix,
    whose miss weights are the average misclassification costs of the classes, normalised. It
    equals ReliefF on two classes and on classes of equal size. CORElearn uses exp-rank weights
    with k = 70 for both: ``ReliefFequalMisses.corelearn(weighting="exp-rank")``."""
    skrebate_neighbours = None          # (scikit-rebate has none)
    name = "ReliefF (equal miss classes)"

    def coefficients(self, context):
        data = context.data
        uniform = np.full(data.n_classes, 1.0 / data.n_classes)
        return group_coefficients(data.y[context.instances], uniform,
                                  context.neighbours.shape[1], context.groups,
                                  self.update_weights(context))


class Relief(ReliefF):
    """Kira & Rendell's Relief (Fig. 1): one nearest hit and one nearest miss (from any other
    class), equal weights. ``k`` > 1 gives RELIEF-A's averaging over k hits and misses."""
    skrebate_neighbours = None          # (scikit-rebate has none)
    name = "Relief"
    paper = "Kira & Rendell 1992, Fig. 1 (as in Robnik-Šikonja & Kononenko 1999)"
    parameters = (K, ITERATIONS, RANDOM_STATE, PRESET) + DIFF_PARAMETERS
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

    def named_parameters(self):
        """None: Relief's one hit and one miss are its definition ("Relief k3" when k is
        changed)."""
        return {}


class ReliefFbestK(BestK, ReliefF):
    """ReliefF evaluated for every k from 1 to ``k_max`` (default 100, capped by the class
    sizes; with ``preset="corelearn"`` the largest class, as CORElearn's ReliefFbestK, which
    makes time and memory grow with the square of the number of instances) from one neighbour
    search; each attribute takes its best estimate over k."""
    name = "ReliefFbestK"
    short_name = "RFbestK"
    paper = "Robnik-Šikonja & Kononenko 1999, Fig. 2 (estimate versus k); CORElearn"
    parameters = (K_MAX, ITERATIONS, RANDOM_STATE, WEIGHTING, SIGMA, MISSES, PRESET) \
        + DIFF_PARAMETERS
    dask_backend = False

    def __init__(self, k_max=None, iterations=None, random_state=None, weighting=None,
                 sigma=20.0, misses="per-class", preset="papers", diff=None, **diff_keywords):
        super().__init__(iterations=iterations, random_state=random_state, weighting=weighting,
                         sigma=sigma, misses=misses, preset=preset, diff=diff, **diff_keywords)
        self.k_max = k_max

    #: STIR tests the hits and misses of one neighbourhood; the best over k is not one
    significance_tests = ("permutation",)


class ReliefFmerit(ReliefF):
    """ReliefF in which a neighbour's diff of an attribute counts by its share of all the
    attributes' diffs of that neighbour: diff(A, R, N) / Σ_A' diff(A', R, N) in place of
    diff(A, R, N) in the update of the module docstring (CORElearn 1.57, Robnik-Šikonja &
    Savicky, estimator ReliefFmerit; CORElearn uses exp-rank weights with k = 70). An attribute
    gains when it explains much of the distance to the misses and little of that to the hits.

    The shares are taken of the context's attributes (the ones the neighbours were found by),
    whichever ``columns`` are estimated; a neighbour with all diffs 0 contributes 0.
    """
    skrebate_neighbours = None          # (scikit-rebate has none)
    name = "ReliefFmerit"
    paper = "CORElearn 1.57 (Robnik-Šikonja & Savicky), estimator ReliefFmerit"
    dask_backend = False
    #: STIR tests unweighted diffs; the shares are not
    significance_tests = ("permutation",)

    def pair_factors(self, context):
        """1 / Σ_A diff(A, R_i, N_igj) for every neighbour (0 where the sum is 0); diffs left
        out under RELIEF-C (NaN) do not count."""
        nb = context.neighbours
        found = np.flatnonzero(nb.ravel() >= 0)
        rows = np.broadcast_to(context.instances[:, None, None], nb.shape).ravel()
        total = np.zeros(nb.size)
        model = context.diff_model
        for block in row_blocks(found.size, 8 * max(model.data.n_attributes, 1)):
            pairs = found[block]
            total[pairs] = np.nansum(model.pair_diffs(rows[pairs], nb.ravel()[pairs]), axis=1)
        return np.divide(1.0, total, out=np.zeros_like(total), where=total > 0).reshape(nb.shape)
