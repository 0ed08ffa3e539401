"""SURF, SURF*, MultiSURF and MultiSURF*: Relief with neighbourhoods defined by a distance radius.

Urbanowicz, Meeker, La Cava, Olson & Moore, "Relief-based feature selection: introduction and
review" (J Biomed Inform 85, 2018) §4.2 and "Benchmarking relief-based feature selection
methods for bioinformatics data mining" (J Biomed Inform 85, 2018) §2.1; Greene et al. (SURF,
SURF*); Granizo-Mackenzie & Moore, "Multiple threshold spatially uniform ReliefF for the
genetic analysis of complex human diseases" (EvoBIO 2013; MultiSURF*). With d(i, j) the
distance of :class:`~.diffs.DiffModel` (the sum of the attributes' diffs), each sampled
instance R_i has a *near* band and, in the starred variants, a *far* band of other instances:

* ``SURF``: near = {j : d(i, j) < T}, T the mean distance over all pairs (i, j), i != j
  (with ``iterations`` = m < N: over the pairs of the m sampled instances and all others);
* ``SURFstar``: as SURF, and far = {j : d(i, j) > T};
* ``MultiSURF``: near = {j : d(i, j) < T_i - sigma_i / 2}, T_i and sigma_i the mean and the
  (population) standard deviation of the distances from R_i to the N - 1 other instances;
* ``MultiSURFstar``: as MultiSURF, and far = {j : d(i, j) > T_i + sigma_i / 2} (the instances
  in between, the dead band, are not used).

The update over a band is ReliefF's (Fig. 3 of Robnik-Sikonja & Kononenko, "Theoretical and
empirical analysis of ReliefF and RReliefF") with all the band's hits and misses as neighbours,
each class's neighbours equally weighted: for a discrete class

    W_band[A] = 1/m sum_i [ sum_{C != y_i} P(C) / (1 - P(y_i)) mean_{j in band, y_j = C} diff(A, R_i, I_j)
                            - mean_{j in band, y_j = y_i} diff(A, R_i, I_j) ],

a class absent from R_i's band contributing nothing; and for a numeric target RReliefF's
probability estimate (its Fig. 4 and eq. 12) with equal influence 1 / size(band_i) of each band member.
The estimate is W = W_near - W_far (the far band scored with the opposite sign; W = W_near
without a far band). On two classes without missing values this is scikit-rebate's SURF*,
MultiSURF and (where a far band holds both hits and misses) MultiSURF*; scikit-rebate's SURF
threshold instead averages the N x N distance matrix diagonal included, i.e. T (N - 1) / N.
Missing values, mixed attribute types and the numeric diff follow :mod:`.diffs` (RELIEF-D by
default), as in our ReliefF; under RELIEF-C the hit and miss sums of each band are renormalised
as in :mod:`.relieff`.

Speed and memory: distances come from the tiled kernel of :meth:`.DiffModel.distances` a block of
rows at a time (never an N x N matrix of distances); the context keeps only each sampled
instance's band of every instance (one byte per pair; bands that would take more than half the
available memory are refused, with the largest ``iterations`` that fits). The update sums the diffs of attributes without
missing values over each row's band in one compiled pass (no list of pairs), those of the
others from :meth:`.DiffModel.pair_diffs` of the band's pairs.
"""
from dataclasses import dataclass, replace

import numpy as np
from numba import njit, prange

from ..compilation import kernel
from .base import (BLOCK_BYTES, available_memory, check_data, check_memory, parallel_launch,
                   progress_part)
from .neighbourhood.diffs import DiffModel, _g, target_diffs
from .neighbourhood import vectorised
from .neighbourhood.packed import band_mismatch_counts
from .parameters import DIFF_KEYWORDS, DIFF_PARAMETERS, ITERATIONS, PRESET, RANDOM_STATE
from . import skrebate
from .relief_family import ReliefFamily
from .rrelieff import N_DC_CLAMP
from .significance import HitMissPairs

__all__ = ["SURF", "SURFstar", "MultiSURF", "MultiSURFstar", "BandContext", "band_thresholds",
           "others_mean_std", "pooled_std", "sigmoid_strength", "band_coefficients",
           "band_estimates", "band_distances", "band_blocks"]

#: the band codes of :attr:`BandContext.bands`
NONE, NEAR, FAR = 0, 1, 2
#: distance cells (rows x instances x attributes) per block: a block takes well under a second
BLOCK_WORK = 100_000_000
#: columns of one task of :func:`_weigh_bands`
WEIGH_COLUMNS = 2048


@dataclass(eq=False)
class BandContext:
    """The bands of the sampled instances: ``bands[q, j]`` is NEAR (1), FAR (2) or NONE (0) for
    instance j seen from ``instances[q]`` (an instance is never in its own bands); ``near`` and
    ``far`` are the thresholds used (per sampled instance)."""
    data: object
    diff_model: DiffModel
    instances: np.ndarray    # (m,)
    bands: np.ndarray        # (m, N) int8
    near: np.ndarray         # (m,) d < near[q] is near
    far: np.ndarray          # (m,) d > far[q] is far (inf: no far band)
    #: which search gave the distances (:data:`.searches.SEARCHES`): the tiled kernel or
    #: the popcount of packed SNP bit planes
    search: str = None
    #: (m, N) the weight w(d) of each band member in the SWRF family (:func:`sigmoid_strength`;
    #: 0 outside the bands), None where every member weighs 1
    strength: np.ndarray = None
    #: (m, N) how many places each band member fills (μ-Relief's k, :mod:`.murelief`; its
    #: instance weight included), None where a member stands for its instance weight
    places: np.ndarray = None


def band_distances(model, rows):
    """The distances (b, N) of ``rows`` to every instance: :meth:`.DiffModel.distances`, their
    square root for the Euclidean distance (the kernel sums squared diffs)."""
    d = model.distances(rows)
    if model.options.distance == "euclidean":
        d = np.sqrt(d, out=d)
    return d


def band_blocks(m, n, model):
    """Blocks of the m sampled rows whose distances to the n instances take about
    ``BLOCK_WORK`` cells (bit planes: a cell per plane word, four for the band counts)."""
    words = model.distance_planes.shape[2]
    a = 4 * words if words else model.data.n_attributes
    step = max(1, min(BLOCK_WORK // max(n * a, 1), BLOCK_BYTES // (8 * 8 * max(n, 1))))
    return [slice(lo, min(lo + step, m)) for lo in range(0, m, step)]


class SURF(ReliefFamily):
    """SURF; see the module docstring. Parameters as :class:`.ReliefFamily` (no k: the band
    is given by the distance threshold): ``iterations``, ``random_state``, ``preset`` and the
    diff options (``diff`` or its keywords, ``distance`` among them)."""
    name = "SURF"
    paper = "Greene et al. 2009 (SURF); Urbanowicz et al. 2018, J Biomed Inform 85, §4.2"
    parameters = (ITERATIONS, RANDOM_STATE, PRESET) + DIFF_PARAMETERS
    sparse_input = False
    profiles_k = False
    dask_backend = True
    #: STIR tests the hits against the misses of the near band (:meth:`hit_miss_pairs`)
    significance_tests = ("stir", "permutation")
    #: the near and far thresholds are each instance's own (MultiSURF) or global (SURF)
    per_instance = False
    #: scores the far band with the opposite sign (the starred variants)
    far_band = False
    #: MultiSURF's bands leave out the instances within half a standard deviation of T_i
    dead_band = True
    #: the band members weigh w(d), the sigmoid of their distance from the band's threshold
    #: (the SWRF family, :func:`sigmoid_strength`), instead of 1 each
    sigmoid = False
    skrebate_neighbours = "bands"

    def __init__(self, iterations=None, random_state=None, preset="papers", diff=None,
                 **diff_keywords):
        unknown = set(diff_keywords) - set(DIFF_KEYWORDS)
        if unknown:         # (k and weighting would reach ReliefFamily's own arguments)
            raise TypeError(f"{type(self).__name__} got unexpected keyword argument(s) "
                            f"{', '.join(sorted(unknown))}")
        super().__init__(iterations=iterations, random_state=random_state, preset=preset,
                         diff=diff, **diff_keywords)

    def named_parameters(self):
        """None: the bands have no k."""
        return {}

    def context(self, data, callback=None):
        """The near (and far) band of every sampled instance, from the distances of one block of
        rows at a time."""
        if self.skrebate_preset():
            return skrebate.context(self, data)
        check_data(data, self)
        n = data.n_instances
        instances = self.sample(n)
        m = instances.size
        available = available_memory()
        per_pair = 2 + (16 if self.sigmoid else 0)
        check_memory(per_pair * m * n, f"{self.name}: the bands of {m} sampled instances "
                     f"among {n} ({'a byte and a weight' if self.sigmoid else 'a byte'} per "
                     "pair, and as much beside them)",
                     "set iterations to at most "
                     f"{max(1, available // (per_pair * n)) if available else m - 1}")
        model = DiffModel(data, self.diff_options())
        blocks = band_blocks(m, n, model)
        keep = not self.per_instance and m * n * 8 <= BLOCK_BYTES
        weights = data.instance_weights
        mean, spread, total, kept = np.empty(m), np.empty(m), np.empty(m), []
        passes = 1 if self.per_instance or keep else 2
        step, steps = 0, passes * len(blocks)

        def distances(blk):
            nonlocal step
            d = band_distances(model, instances[blk])
            step += 1
            if callback is not None:
                callback(step / steps)
            return d

        bands = np.zeros((m, n), np.int8)
        strength = np.zeros((m, n)) if self.sigmoid else None

        def fill(blk, d, near, far, scale):
            _fill_bands(bands[blk], d, instances[blk], weights, near,
                        far if self.far_band else None)
            if strength is not None:
                strength[blk] = sigmoid_strength(d, bands[blk], near, far, scale)

        for blk in blocks:
            d = distances(blk)
            mean[blk], spread[blk], total[blk] = others_mean_std(d, instances[blk], weights)
            if self.per_instance:
                near, far = band_thresholds(mean[blk], spread[blk], total[blk], True,
                                            self.far_band, self.dead_band)
                fill(blk, d, near, far, spread[blk])
            elif keep:
                kept.append(d)
        # each copy of R_i with the others
        pairs = weights[instances] * total
        near, far = band_thresholds(mean, spread, pairs, self.per_instance, self.far_band,
                                    self.dead_band)
        if not self.per_instance:
            scale = np.full(m, pooled_std(mean, spread, pairs))
            for b, blk in enumerate(blocks):
                d = kept[b] if keep else distances(blk)
                fill(blk, d, near[blk], far[blk], scale[blk])
        return BandContext(data, model, instances, bands, near, far,
                           "packed SNP" if model.distance_planes.shape[2]
                           else "double precision", strength)

    def __call__(self, data, callback=None):
        return self.estimate(self.context(data, progress_part(callback, 0.0, 0.6)),
                             callback=progress_part(callback, 0.6, 1.0))

    def target_contexts(self, data, callback=None):
        """For a permutation test (and STIR's calibration): a function from ``data`` with
        another target (the same instances and attributes) to its context. The bands depend on
        the distances only, so they are found once; None (find them again for each target)
        when RELIEF-D's diffs of missing values depend on the class."""
        options = self.diff_options()
        if options.missing == "D" and data.any_missing or self.skrebate_preset():
            return None
        context = self.context(data, callback)
        return lambda target, callback=None: replace(context, data=target,
                                      diff_model=DiffModel(target, options))

    def hit_miss_pairs(self, context):
        """The (instance, band member) pairs of the estimate with their weights in the hit and
        the miss mean (STIR, :mod:`.significance`; a discrete class): every member of each
        sampled instance's near band, weighted as in the update (1/size of its class in the
        band, times P(C)/(1 - P(y_i)) for a miss, times the instance weights)."""
        data = context.data
        y = data.y.astype(np.intp)
        m, n = context.bands.shape
        parts = []
        for blk in band_blocks(m, n, context.diff_model):
            rows = context.instances[blk]
            member = context.bands[blk] == NEAR
            mass = _member_mass(data, rows, member, context.places, blk)
            coef = _class_coefficients(data, rows, member, mass)
            q, j = np.nonzero(member)
            weight = coef[q, 0, y[j]] + coef[q, 1, y[j]]
            if mass is not None:
                weight = weight * mass[q, j]
            if context.strength is not None:
                weight = weight * context.strength[blk][q, j]
            keep = weight > 0
            parts.append((rows[q[keep]], j[keep], weight[keep], (y[j] != y[rows[q]])[keep]))
        rows, others, weights, miss = (np.concatenate(column) for column in zip(*parts))
        return HitMissPairs(rows=rows, others=others, weights=weights, miss=miss)

    def estimate(self, context, columns=None, callback=None):
        """W_near - W_far of ``columns`` (default: the context's data) over the bands;
        ``callback(fraction)`` after each block of rows."""
        if isinstance(context, skrebate.SkrebateContext):
            return skrebate.estimate(context, columns)
        data = context.data if columns is None else columns
        model = context.diff_model if columns is None else DiffModel(
            data, context.diff_model.options)
        m, n = context.bands.shape
        a = data.n_attributes
        bands = (NEAR, FAR) if self.far_band else (NEAR,)
        update = _BandUpdate(model)
        S, F = (2, 1) if data.is_classification else (1, 2)
        sums = np.zeros((len(bands), S, F, a))
        known = np.zeros((len(bands), S, a))
        totals = np.zeros((len(bands), S, F))
        blocks = band_blocks(m, n, model)
        for step, blk in enumerate(blocks):
            rows = context.instances[blk]
            for b, band in enumerate(bands):
                member = context.bands[blk] == band
                mass = _member_mass(data, rows, member, context.places, blk)
                if data.is_classification:
                    coef = _class_coefficients(data, rows, member, mass)
                    factors = None if mass is None else mass[None]
                else:
                    coef, factors = _target_coefficients(data, model, rows, member, mass)
                if context.strength is not None:    # the members' w(d): a factor of each pair
                    strength = np.where(member, context.strength[blk], 0.0)[None]
                    factors = strength if factors is None else factors * strength
                s, k, t = update(rows, member, coef, factors)
                sums[b] += s
                known[b] += k
                totals[b] += t
            if callback is not None:
                callback((step + 1) / len(blocks))
        renorm = model.options.missing == "C" and model.has_missing.any()
        result = band_estimates(sums, known, totals, bands, data.is_classification, renorm,
                                data.instance_weights[context.instances].sum())
        result[~model.usable] = np.nan            # no known value
        return result


def band_estimates(sums, known, totals, bands, classification, renorm, total_weight):
    """W_near - W_far from the weighted diff sums of each band (``sums`` (B, S, F, a),
    ``known`` (B, S, a), ``totals`` (B, S, F) as :class:`_BandUpdate` gives them, ``bands`` the
    band codes): for a discrete class the miss sum less the hit sum over ``total_weight`` (the
    sampled instances' weight), for a numeric target RReliefF's eq. 12 over the band; under
    RELIEF-C (``renorm``) each set's sums are taken over its known diffs and scaled to its
    total weight."""
    result = np.zeros(sums.shape[-1])
    with np.errstate(invalid="ignore", divide="ignore"):
        for b, band in enumerate(bands):
            sign = 1.0 if band == NEAR else -1.0
            scale = np.where(known[b] > 0, totals[b, :, :1] / known[b],
                             np.where(totals[b, :, :1] > 0, np.nan, 0.0)) if renorm else 1.0
            if classification:
                miss, hit = sums[b, :, 0] * scale
                result += sign * (miss - hit) / total_weight
                continue
            n_da, n_dcda = sums[b, 0] * scale
            m_band = totals[b, 0, 0]
            if m_band > 0:
                n_dc = np.clip(totals[b, 0, 1], N_DC_CLAMP, m_band - N_DC_CLAMP)
                result += sign * (n_dcda / n_dc - (n_da - n_dcda) / (m_band - n_dc))
    return result


def _member_mass(data, rows, member, places=None, blk=None):
    """How many instances each band member stands for (b, N): its instance weight, and for
    R_i itself its other copies (w_i - 1; in the band when w_i > 1); None without weights;
    the ``places`` of the rows ``blk`` where given (:attr:`BandContext.places`)."""
    if places is not None:
        return np.where(member, places[blk], 0.0)
    if data.weights is None:
        return None
    mass = np.where(member, data.weights[None, :], 0.0)
    q = np.arange(rows.size)
    mass[q, rows] = np.where(member[q, rows], np.maximum(data.weights[rows] - 1.0, 0.0), 0.0)
    return mass


def _class_coefficients(data, rows, member, mass=None):
    """(b, 2, C): the misses' (set 0) and the hits' (set 1) weight of a band member of class
    c: P(c) / (1 - P(y_i)) / size(band_i of class c) for a miss, 1 / size(band_i of class y_i) for a
    hit, times R_i's instance weight; 0 for a class absent from the band. Sizes count the
    members' ``mass``."""
    y = data.y.astype(np.intp)
    stand = member if mass is None else mass
    counts = np.stack([stand[:, y == c].sum(axis=1) for c in range(data.n_classes)], axis=1)
    return band_coefficients(y[rows], data.class_priors(), counts,
                             data.instance_weights[rows])


def band_coefficients(y, prior, counts, update_weights):
    """(b, 2, C) as :func:`_class_coefficients` for sampled instances of classes ``y`` (b,)
    whose bands hold ``counts`` (b, C) instances of each class (counted by weight), with the
    class probabilities ``prior`` of the whole data and the instances' ``update_weights``."""
    y = np.asarray(y).astype(np.intp)
    per_class = np.where(counts > 0, 1.0 / np.maximum(counts, 1), 0.0)
    own = np.arange(counts.shape[1])[None, :] == y[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        miss = np.where(own, 0.0, prior[None, :] / (1.0 - prior[y])[:, None] * per_class)
    coef = np.stack([miss, np.where(own, per_class, 0.0)], axis=1)
    return coef * np.asarray(update_weights)[:, None, None]


def _target_coefficients(data, model, rows, member, mass=None):
    """RReliefF's weights of a band: coefficients (b, 1, 1) = w_i / size(band_i) (sizes count the
    members' ``mass``) and per-pair factors (2, b, N): the mass (1 without instance weights)
    and the mass times diff(tau, R_i, I_j)."""
    mass = member.astype(float) if mass is None else mass
    size = mass.sum(axis=1)
    coef = np.where(size > 0, 1.0 / np.where(size > 0, size, 1.0), 0.0)
    coef = (coef * data.instance_weights[rows])[:, None, None]
    n = data.n_instances
    tau = target_diffs(data, np.repeat(rows, n), np.tile(np.arange(n), rows.size),
                       model.options).reshape(rows.size, n)
    return coef, np.stack([mass, mass * tau])


def band_thresholds(mean, spread, pairs, per_instance, far_band, dead_band=True):
    """(near, far): the thresholds of each sampled instance's bands (see the module docstring)
    from the ``mean`` and (population) standard deviation ``spread`` of its distances to the
    others (of ``pairs`` pairs): MultiSURF's T_i - sigma_i / 2 and T_i + sigma_i / 2
    (``per_instance``; T_i for both without a ``dead_band``), or SURF's T, the mean over all
    the pairs, for both; far = inf without a far band."""
    if per_instance:
        half = spread / 2 if dead_band else 0.0
        near = mean - half
        far = mean + half if far_band else np.full(mean.size, np.inf)
    else:
        near = np.full(mean.size, (pairs * mean).sum() / pairs.sum())
        far = near if far_band else np.full(mean.size, np.inf)
    return near, far


def pooled_std(mean, spread, pairs):
    """The (population) standard deviation of all the distances from the rows' ``mean``,
    ``spread`` (standard deviation) and number of ``pairs``: the SWRF family's sigma."""
    total = pairs.sum()
    if total <= 0:
        return 0.0
    grand = (pairs * mean).sum() / total
    return float(np.sqrt(max((pairs * (spread ** 2 + (mean - grand) ** 2)).sum() / total, 0.0)))


def sigmoid_strength(d, bands, near, far, scale):
    """The SWRF family's weight of each band member (Stokes & Visweswaran 2012, the sigmoid
    of SWRF*): w = 2 / (1 + exp(-4 abs(d - t) / sigma)) - 1 = tanh(2 abs(d - t) / sigma), with t
    the threshold of the member's band (``near`` or ``far`` per row) and sigma the row's
    ``scale`` (1 where it is 0); 0 outside the bands. A member just inside a threshold weighs
    about 0, one a standard deviation or more away about 1 (0.96)."""
    sigma = np.where(scale > 0, scale, 1.0)[:, None]
    w = np.zeros(d.shape)
    for code, limit in ((NEAR, near), (FAR, far)):
        at = bands == code
        if at.any():
            w = np.where(at, np.tanh(2.0 * np.abs(d - limit[:, None]) / sigma), w)
    return w


def others_mean_std(d, rows, weights):
    """Mean, population standard deviation and number of the distances from each row (an
    instance standing for w_i copies) to the others: instance j counts w_j times, the row's own
    other copies max(w_i - 1, 0) times (at its distance to itself)."""
    q = np.arange(rows.size)
    w = np.broadcast_to(weights, d.shape).copy()
    w[q, rows] = np.maximum(weights[rows] - 1.0, 0.0)
    total = w.sum(axis=1)
    mean = (w * d).sum(axis=1) / np.where(total > 0, total, 1.0)
    dev = d - mean[:, None]
    var = (w * dev * dev).sum(axis=1) / np.where(total > 0, total, 1.0)
    return mean, np.sqrt(np.maximum(var, 0.0)), total


def _fill_bands(out, d, rows, weights, near, far):
    """Band codes of a block of rows: NEAR where d < near, FAR where d > far (if given); a row
    is in its own band only through its other copies (instance weight > 1)."""
    out[...] = np.where(d < near[:, None], NEAR, NONE)
    if far is not None:
        out[d > far[:, None]] = FAR
    single = weights[rows] <= 1
    out[np.arange(rows.size)[single], rows[single]] = NONE


class _BandUpdate:
    """The weighted diff sums of a block of rows over a band, as
    :func:`.relief_family.weighted_diff_sums` over a neighbour context: with ``member`` (b, N)
    the band, ``coef`` (b, S, G) the weight of set s for a band member of group g (its class;
    one group for a numeric target) and optional per-pair ``factors`` (F, b, N),

        sums[s, f, A] = sum_i sum_{j in band_i} coef[i, s, g_j] factor[f, i, j] diff(A, R_i, I_j),

    ``known[s, A]`` the same with factor 0 (1 without factors) and "the diff is known" for the
    diff, and ``totals[s, f]`` the same with 1 for the diff. Attributes without missing values are summed per row
    and group by :func:`_band_sums` (the diff of :func:`.diffs._g`, over the whole band with
    no list of pairs), or, when the data are bit planes (:meth:`.DiffModel.planes`) and the
    band members weigh 1 each, counted by :func:`.packed.band_mismatch_counts`; the others from
    :meth:`.DiffModel.pair_diffs` of the band's pairs."""

    def __init__(self, model):
        data = model.data
        o = model.options
        self.groups = data.y.astype(np.intp) if data.is_classification \
            else np.zeros(data.n_instances, np.intp)
        self.n_groups = max(data.n_classes, 1)
        plain = model.usable & ~model.has_missing
        self.discrete = np.flatnonzero(plain & data.discrete)
        self.numeric = np.flatnonzero(plain & ~data.discrete)
        self.other = np.flatnonzero(~plain)
        self.other_model = None
        if self.other.size:
            self.other_model = model if not plain.any() else DiffModel(
                data.columns(self.other), o)
        self.model = model
        self.planes = model.planes
        self.codes = None
        self.scaled = np.ascontiguousarray(model.values[:, self.numeric]
                                           * model.inv_span[self.numeric])
        self.ramp = (o.numeric == "ramp", o.t_equal, model._inv_w)

    def _values(self, discrete):
        """The discrete columns' codes or the numeric columns' scaled values."""
        if not discrete:
            return self.scaled
        if self.codes is None:
            self.codes = np.ascontiguousarray(self.model.values[:, self.discrete], np.int32)
        return self.codes

    def __call__(self, rows, member, coef, factors=None):
        b, S, G = coef.shape
        F = 1 if factors is None else factors.shape[0]
        a = self.discrete.size + self.numeric.size + self.other.size
        sums, known, totals = np.zeros((S, F, a)), np.zeros((S, a)), np.zeros((S, F))
        member = np.ascontiguousarray(member)
        weights = np.ones((1, 1, 1)) if factors is None else np.ascontiguousarray(factors)
        ones = factors is None
        for f in range(F):
            total = np.stack([(member if ones else np.where(member, weights[f], 0.0))[
                :, self.groups == g].sum(axis=1) for g in range(G)], axis=1)
            totals[:, f] = np.einsum("bsg,bg->s", coef, total)
        known_plain = totals[:, 0]          # factor 0 is 1 or the members' instance weights
        coef = np.ascontiguousarray(coef, dtype=np.float64)
        for cols, is_discrete in ((self.discrete, True), (self.numeric, False)):
            if not cols.size:
                continue
            rows = np.ascontiguousarray(rows, dtype=np.intp)
            counted = is_discrete and self.planes.shape[2] and ones
            # (the counts are written whole; the sums are added to)
            out = (np.empty if counted else np.zeros)((b, F, G, cols.size))
            with parallel_launch():
                if counted:
                    band_mismatch_counts(self.planes, rows, member, self.groups, G, out[:, 0])
                else:
                    _band_sums(self._values(is_discrete), rows, member, self.groups, weights,
                               ones, is_discrete, *self.ramp, out)
                _weigh_bands(coef, out, cols, sums)
            known[:, cols] = known_plain[:, None]
        if self.other.size:
            q, j = np.nonzero(member)
            step = max(1, BLOCK_BYTES // (16 * self.other.size))
            for lo in range(0, q.size, step):
                qq, jj = q[lo:lo + step], j[lo:lo + step]
                diffs = self.other_model.pair_diffs(rows[qq], jj)
                ok = ~np.isnan(diffs)
                diffs[~ok] = 0.0
                w = coef[qq, :, self.groups[jj]].T                            # (S, P)
                known[:, self.other] += (w if ones else w * weights[0][qq, jj]) @ ok
                for f in range(F):
                    wf = w if ones else w * weights[f][qq, jj]
                    sums[:, f, self.other] += wf @ diffs
        return sums, known, totals


@kernel(vectorised.band_sums)
@njit(cache=True, nogil=True, parallel=True)
def _band_sums(values, rows, member, groups, weights, ones, discrete, ramp, t_equal, inv_w,
               out):
    """out[q, f, g, t] += sum over the band members j of group g of row q of
    weights[f, q, j] (1 if ``ones``) times diff(A_t, R_rows[q], I_j), for columns without
    missing values: ``values`` are discrete codes or numeric values divided by their span, and
    the diff is :func:`.diffs._g` (Manhattan terms). Parallel over the rows."""
    n, a = values.shape
    F = out.shape[1]
    for q in prange(rows.size):
        x = values[rows[q]]
        for j in range(n):
            if not member[q, j]:
                continue
            g = groups[j]
            z = values[j]
            for f in range(F):
                w = 1.0 if ones else weights[f, q, j]
                acc = out[q, f, g]
                if discrete:
                    for t in range(a):
                        acc[t] += w * _g(x[t], z[t], True, False, t_equal, inv_w, False)
                elif ramp:
                    for t in range(a):
                        acc[t] += w * _g(x[t], z[t], False, True, t_equal, inv_w, False)
                else:
                    for t in range(a):
                        acc[t] += w * _g(x[t], z[t], False, False, t_equal, inv_w, False)


@kernel(vectorised.weigh_bands)
@njit(cache=True, nogil=True, parallel=True)
def _weigh_bands(coef, out, cols, sums):
    """sums[s, f, cols[t]] = the sum over the rows q and the groups g, in that order, of
    coef[q, s, g] * out[q, f, g, t]: the band sums of :class:`_BandUpdate` weighted by each
    row's coefficients of its members' groups. Parallel over pieces of ``WEIGH_COLUMNS``
    columns; each column's sum is added in the same order whatever the split, so the result
    does not depend on the number of threads."""
    b, S, G = coef.shape
    F, a = out.shape[1], out.shape[3]
    for piece in prange((a + WEIGH_COLUMNS - 1) // WEIGH_COLUMNS):
        t0 = piece * WEIGH_COLUMNS
        t1 = min(a, t0 + WEIGH_COLUMNS)
        acc = np.zeros(t1 - t0)
        for s in range(S):
            for f in range(F):
                acc[:] = 0.0
                for q in range(b):
                    for g in range(G):
                        c = coef[q, s, g]
                        row = out[q, f, g]
                        for t in range(t0, t1):
                            acc[t - t0] += c * row[t]
                for t in range(t0, t1):
                    sums[s, f, cols[t]] = acc[t - t0]


class SURFstar(SURF):
    """SURF*: SURF with the instances farther than the mean distance scored with the opposite
    sign; see the module docstring.

    Blind to main effects by its definition: an attribute that on its own decides the class
    differs from the far misses as much as from the near ones and from the far hits as little
    as from the near ones, so the far band cancels the near band and it scores about 0, which
    noise attributes can exceed (an attribute equal to the class: 0.0, second of ten, where
    MultiSURF gives it 1.0; scikit-rebate's SURF* and MultiSURF* agree). Meant for pure
    interactions; to find main effects and interactions alike use MultiScaleRelief
    (:mod:`.multiscale`)."""
    name = "SURF*"
    paper = "Greene et al. 2010 (SURF*); Urbanowicz et al. 2018, J Biomed Inform 85, §4.2"
    far_band = True
    #: STIR tests the hits against the misses of one band; the far band's opposite sign is not
    significance_tests = ("permutation",)
    #: not offered as a tree's split selector: candidate splits gain from the far band's
    #: opposite sign without separating the classes (a 1,000-valued attribute misleads it)
    split_selector = False


class MultiSURF(SURF):
    """MultiSURF: each instance's near band is the instances closer than its mean distance
    less half the standard deviation of its distances; see the module docstring."""
    name = "MultiSURF"
    short_name = "MSURF"
    paper = "Urbanowicz, Olson, Schmitt, Meeker & Moore 2018, J Biomed Inform 85, §2.1"
    per_instance = True


class MultiSURFstar(MultiSURF):
    """MultiSURF*: MultiSURF with the instances farther than the mean distance plus half the
    standard deviation scored with the opposite sign (a dead band between); see the module
    docstring.

    Blind to main effects by its definition, as SURF* (:class:`SURFstar`): an attribute that
    decides the class on its own scores about 0 (0.0 for an attribute equal to the class, third
    of ten), below some noise attributes. Meant for pure interactions; MultiScaleRelief
    (:mod:`.multiscale`) finds main effects and interactions alike."""
    name = "MultiSURF*"
    short_name = "MSURF*"
    paper = "Granizo-Mackenzie & Moore 2013, EvoBIO (MultiSURF*)"
    far_band = True
    significance_tests = ("permutation",)   # as SURF*
    split_selector = False          # as SURF*
