"""What the Relief family shares: parameters, sampling of the iterations, the neighbour context,
and the weighted sums of diffs over that context for any number of neighbours k.

Every update of Relief, ReliefF (Robnik-Šikonja & Kononenko 1999, Fig. 3) and RReliefF
(Fig. 4) is a sum over the sampled instances R_i and their neighbour groups g of

    coef[i, g] * sum_{j < k'} w^(k)_igj * factor_igj * diff(A, R_i, N_igj),

with k' = min(k, neighbours found) and w^(k) the neighbour influences normalised over the first k'
(eq. 13). Neighbours tied at the k-th distance share the remaining places (:mod:`.neighbours`:
the expected sums over all orders of the tied instances, so the estimates do not depend on the
order of the rows). With instance weights, the neighbours fill places by their weights
(:mod:`.neighbours`): w^(k) then counts each neighbour's influence once per place it fills among
the first k (fractions at the k-th), and the estimators weight R_i's update by its weight and
divide by the sum of the weights instead of m; with integer weights the estimates are those of
the data with each instance repeated w times, when every instance is visited (``iterations``
None). A sample of ``iterations`` instances is drawn without regard to the weights and each
update is weighted. :func:`weighted_diff_sums` computes these sums for every k of a list at once from
running sums over the sorted neighbours (:mod:`.diff_sums`), so one neighbour search gives the estimates for all k
(ReliefFbestK, the papers' Fig. 2 "estimate versus k").
"""
from dataclasses import replace

import numba
import numpy as np

from . import skrebate
from .base import Estimator, check_data, check_memory, progress_part, random_generator
from .neighbourhood.diff_sums import column_runs, fused_sums, plan_matrix, plan_totals, sum_plan
from .neighbourhood.diffs import DiffOptions
from .neighbourhood.kinds import GENERAL, UNUSABLE
from .neighbourhood.neighbours import first_k_weights, nearest_neighbours, neighbour_places, \
    neighbour_weights
from .neighbourhood.sparse import diff_model
from .parameters import (DIFF_KEYWORDS, DIFF_PARAMETERS, ITERATIONS, K, PRESET, RANDOM_STATE,
                         SIGMA, WEIGHTING, ramp_rule)

__all__ = ["ReliefFamily", "BestK", "weighted_diff_sums", "first_k_weights"]

#: bytes of the per-block arrays of pair coefficients
BLOCK_BYTES = 128 * 2 ** 20
#: pair diffs in one block of :func:`weighted_diff_sums`: well under a second, so a cancel
#: between blocks takes effect promptly (2^25 discrete diffs take about 15 ms on one core),
#: and few blocks, since each block reads the attribute values of its neighbours again (on
#: 1,600 x 1,000 SNPs a second block cost 2-3 ms)
PAIR_DIFFS = 2 ** 26
#: read-outs of one block's :class:`.diff_sums.SumPlan` at most (one per coefficient set, factor
#: set, k, sampled instance and group; sorting them takes about 0.3 s per 2^20)
PLAN_READOUTS = 2 ** 20


#: CORElearn's k when k is not given: kNearestEqual for equal weights, else kNearestExpRank
CORELEARN_K = {"equal": 10, "other": 70}


class ReliefFamily(Estimator):
    """Parameters shared by the Relief family.

    Parameters
    ----------
    k
        Neighbours per group (class for ReliefF, all instances for RReliefF); capped by the
        group's size (CORElearn). None = the estimator's default (with ``preset="corelearn"``
        CORElearn's: 10 for equal weights, 70 otherwise). Instances tied at the k-th distance
        share the remaining places equally, so the estimates do not depend on the order of
        the rows (with ``preset="corelearn"``: CORElearn's order decides).
    iterations
        None = every instance once, in data order (deterministic; CORElearn's default); an int
        m < N = m instances sampled without replacement with ``random_state``.
    weighting, sigma
        Neighbour influence "equal", "exp-rank" (eq. 14 with sigma), "1/d", "1/d2".
    preset
        "papers" (default: the papers' definitions) or "corelearn": every choice as CORElearn,
        the R package of the ReliefF authors, makes it, to the last bit (the ramp diff,
        Laplace-corrected probabilities of missing values, CORElearn's arithmetic and neighbour
        order, its k); :meth:`corelearn` is a shortcut; or "skrebate": every choice as
        scikit-rebate 0.8.4 makes it (:mod:`.skrebate`).
    diff
        A :class:`.DiffOptions` (how diffs, distances and neighbours are computed); None = the
        preset's.
    numeric_diff, t_equal, t_different, missing, laplace, both_missing, numeric_bins, distance, skip_zero_distance
        Keyword arguments that change single fields of ``diff`` (see :mod:`.diffs`;
        ``numeric_diff`` is the field ``numeric``); also readable and settable attributes.
    """
    parameters = (K, ITERATIONS, RANDOM_STATE, WEIGHTING, SIGMA, PRESET) + DIFF_PARAMETERS
    rules = (ramp_rule,)
    default_k = 10
    default_weighting = "equal"
    groups = "per-class"
    sparse_input = True
    samples_instances = True
    relief_threshold = True
    profiles_k = True
    packed_snps = True
    weighs_distances = True
    #: whether CORElearn leaves out neighbours at distance 0 in this estimator
    corelearn_skips_zero = True
    #: how scikit-rebate's counterpart finds its neighbours (``preset="skrebate"``,
    #: :mod:`.skrebate`): "k-nearest", "bands" or "extremes"; None: it has none
    skrebate_neighbours = "k-nearest"
    #: the keyword arguments that set single fields of ``diff`` (also readable attributes)
    diff_keywords = tuple(DIFF_KEYWORDS)

    def __init__(self, k=None, iterations=None, random_state=None, weighting=None, sigma=20.0,
                 preset="papers", diff=None, **diff_keywords):
        self.k = k
        self.iterations = iterations
        self.random_state = random_state
        self.weighting = weighting
        self.sigma = sigma
        self.preset = preset
        unknown = set(diff_keywords) - set(DIFF_KEYWORDS)
        if unknown:
            raise TypeError(f"{type(self).__name__} got unexpected keyword argument(s) "
                            f"{', '.join(sorted(unknown))}")
        base = self.preset_diff() if diff is None else diff
        self.diff = replace(base, **{DIFF_KEYWORDS[key]: value
                                     for key, value in diff_keywords.items()})

    def defaults(self):
        """The declared defaults, the diff keywords' those of the preset."""
        preset = self.preset_diff()
        return dict(super().defaults(), **{key: getattr(preset, field)
                                           for key, field in DIFF_KEYWORDS.items()})

    def named_parameters(self):
        """The number of neighbours k."""
        return {"k": self.k_}

    @classmethod
    def corelearn(cls, **overrides):
        """The estimator with ``preset="corelearn"``: CORElearn's numbers (``overrides``: any
        other keyword arguments)."""
        return cls(preset="corelearn", **overrides)

    def preset_diff(self):
        """The :class:`.DiffOptions` of the preset."""
        if self.preset == "corelearn":
            return DiffOptions(numeric="ramp", t_equal=0.04, t_different=0.1, missing="D",
                               laplace=True, both_missing="current", numeric_bins=5,
                               skip_zero_distance=self.corelearn_skips_zero, corelearn=True)
        PRESET.check(self.preset)
        return DiffOptions()

    @property
    def k_(self):
        if self.k is not None:
            return self.k
        if self.preset == "corelearn":
            return CORELEARN_K["equal" if self.weighting_ == "equal" else "other"]
        if self.preset == "skrebate":
            return skrebate.DEFAULT_K
        return self.default_k

    @property
    def weighting_(self):
        return self.default_weighting if self.weighting is None else self.weighting

    def diff_options(self):
        return self.diff.check()

    def sample(self, n):
        """Indices of the instances R_i the iterations visit among ``n`` (``ValueError`` when
        a parameter is not allowed, see :meth:`check_parameters`)."""
        self.check_parameters(n)
        m = self.iterations
        if m is None:
            return np.arange(n)
        return random_generator(self.random_state).choice(n, size=int(m), replace=False)

    def sample_instances(self, data):
        """Indices of the instances of ``data`` the iterations visit (:meth:`sample`)."""
        return self.sample(data.n_instances)

    def skrebate_preset(self):
        """Whether ``preset="skrebate"`` (``ValueError`` where scikit-rebate has no
        counterpart)."""
        if self.preset != "skrebate":
            return False
        if self.skrebate_neighbours is None:
            raise ValueError(f"preset='skrebate': scikit-rebate has no {self.name}")
        return True

    def context(self, data, callback=None):
        """The nearest neighbours of the sampled instances (the expensive part, done once)."""
        if self.skrebate_preset():
            return skrebate.context(self, data)
        return self._search(data, self.k_, self.groups, callback)

    def _search(self, data, k, groups, callback):
        check_data(data, self)
        model = diff_model(data, self.diff_options())
        return nearest_neighbours(model, self.sample_instances(data), k, groups=groups,
                                  callback=callback)

    @staticmethod
    def update_weights(context):
        """The weight of each sampled instance's update: its instance weight."""
        return context.data.instance_weights[context.instances]

    def estimate(self, context, columns=None, callback=None):
        """Estimates of ``columns`` (default: the context's data) with k neighbours."""
        if isinstance(context, skrebate.SkrebateContext):
            return skrebate.estimate(context, columns)
        return self.profile(context, [self.k_], columns, callback)[0]

    def profile(self, context, ks, columns=None, callback=None):
        """Estimates for each k in ``ks`` from one neighbour search, shape (len(ks), a);
        ``callback(fraction)`` is called between blocks of sampled instances."""
        raise NotImplementedError

    def __call__(self, data, callback=None):
        context = self.context(data, progress_part(callback, 0.0, 0.9))
        result = self.estimate(context, callback=progress_part(callback, 0.9, 1.0))
        if callback is not None:
            callback(1.0)
        return result


def _diff_field(key):
    """An attribute that reads and sets one field of an estimator's ``diff``."""
    field = DIFF_KEYWORDS[key]

    def get(self):
        return getattr(self.diff, field)

    def set(self, value):
        self.diff = replace(self.diff, **{field: value})
    return property(get, set, doc=f"``diff.{field}``")


for _key in DIFF_KEYWORDS:
    setattr(ReliefFamily, _key, _diff_field(_key))


#: ReliefFbestK's default k_max: the estimates of Robnik-Šikonja & Kononenko 1999 (Fig. 2,
#: 200 instances) have turned myopic well before k = 100, and k_max neighbours of every instance
#: cost time and memory in proportion to k_max (the largest class made them quadratic)
DEFAULT_K_MAX = 100


class BestK:
    """Mixin of a Relief-family estimator evaluated for every k from 1 to ``k_max`` (None: 100,
    or with ``preset="corelearn"`` the largest group, as CORElearn) from one neighbour search,
    each attribute taking its best estimate over k (CORElearn's ReliefFbestK and
    RReliefFbestK)."""
    skrebate_neighbours = None          # (scikit-rebate has none)
    k_max = None

    def named_parameters(self):
        """None: the name says "best k"."""
        return {}

    @property
    def k_(self):
        if self.k_max is not None:
            return self.k_max
        return np.iinfo(np.int32).max if self.preset == "corelearn" else DEFAULT_K_MAX

    def estimate(self, context, columns=None, callback=None):
        K = min(self.k_, context.neighbours.shape[2])     # (more with neighbours tied at k_max)
        if context.mass is not None:     # the places the neighbours fill, at most k_max
            K = int(min(self.k_, np.ceil(context.mass.sum(axis=2).max())))
        ks = np.arange(1, K + 1)
        return np.max(self.profile(context, ks, columns, callback), axis=0)


def weighted_diff_sums(context, ks, coef, factors=None, columns=None, weighting="equal",
                       sigma=20.0, options=None, callback=None):
    """The Relief-family updates for every k in ``ks`` from one neighbour context.

    coef: (S, m, G) coefficient sets; factors: (F, m, G, K) per-pair factors (default one set of
    ones). Returns ``sums`` (S, F, n_k, a), ``known`` (S, n_k, a) and ``totals`` (S, F, n_k):
    sums[s, f, k] = sum_ig coef[s,i,g] sum_{j<k'} w^(k)_igj factor[f,i,g,j] diff(A, R_i, N_igj);
    known is the same with factor 1 and diff replaced by "the diff is known" (RELIEF-C leaves the
    others out); totals is the same with diff replaced by 1. The sums are computed by
    :func:`.diff_sums.fused_sums` a block of sampled instances at a time (at most
    ``PAIR_DIFFS`` pair diffs and ``PLAN_READOUTS`` read-outs), with ``callback(fraction
    done)`` before each.
    """
    data = context.data if columns is None else columns
    if columns is None and options is None:
        model = context.diff_model
    else:
        model = diff_model(data, options or context.diff_model.options)
    neighbours = context.neighbours
    m, G, K = neighbours.shape
    a = data.n_attributes
    ks = np.asarray(ks, dtype=np.intp)
    ones = factors is None
    S, F, n_k = coef.shape[0], 1 if ones else factors.shape[0], ks.size
    weights = neighbour_weights(context, weighting, sigma)
    places = neighbour_places(context)
    # running sums per pair: one per factor set, or with neighbour places one per output
    per_pair = 8 * max(G * K, 1) * (F + 2 + (0 if context.mass is None else S * F * n_k))
    check_memory(8 * n_k * a * (S * F + S) * (1 + numba.get_num_threads())
                 + per_pair * min(m, max(1, BLOCK_BYTES // per_pair)),
                 f"the sums of diffs for {n_k} values of k over {G * K} neighbours and {a} "
                 "attributes", "use a smaller k")
    runs = column_runs(model)
    # the columns whose diffs may be unknown (RELIEF-C): their own count of known diffs
    partial = runs[runs[:, 2] == GENERAL] if model.options.missing == "C" else runs[:0]
    usable = (model.kind != UNUSABLE).astype(float)
    sums = np.zeros((S, F, n_k, a))
    known = np.zeros((S, n_k, a))
    totals = np.zeros((S, F, n_k))
    # the pairs a sampled instance's sums read (the groups hold more than k with ties)
    pairs = int(np.ceil(places.available.sum() / max(m, 1)))
    block = int(max(1, min(BLOCK_BYTES // per_pair, PAIR_DIFFS // max(pairs * a, 1),
                           PLAN_READOUTS // max(S * F * n_k * G, 1))))
    for start in range(0, m, block):
        if callback is not None:
            callback(start / m)
        blk = slice(start, min(start + block, m))
        block_places = places.rows(blk)
        plan = sum_plan(ks, block_places, weights[blk], coef[:, blk],
                        None if ones else factors[:, blk])
        rows, nb = context.instances[blk], neighbours[blk]
        if model.sparse:        # the pairs' diffs summed over their non-zeros, all known
            sums += model.weighted_pair_sums(plan_matrix(plan), np.repeat(rows, G * K),
                                             nb.ravel()).reshape(S, F, n_k, a)
        else:
            sums += fused_sums(model, rows, nb, plan, runs).reshape(S, F, n_k, a)
        block_totals = plan_totals(plan).reshape(S, F, n_k)
        totals += block_totals
        # the known diffs: factor 1 (the plan itself without factors)
        count = plan if ones else sum_plan(ks, block_places, weights[blk], coef[:, blk], None)
        plain = block_totals[:, 0] if ones else plan_totals(count).reshape(S, n_k)
        block_known = plain[..., None] * usable
        if partial.size:
            counted = fused_sums(model, rows, nb, count, partial, known=True).reshape(S, n_k, a)
            for c0, c1, _ in partial:
                block_known[..., c0:c1] = counted[..., c0:c1]
        known += block_known
    return sums, known, totals
