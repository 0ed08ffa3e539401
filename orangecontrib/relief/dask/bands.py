"""The SURF family (SURF, SURF*, MultiSURF, MultiSURF*) on Dask: a pass computes each sampled
instance's count, mean and variance of distances in every partition, combined by the client
(Chan, Golub & LeVeque, "Updating formulae and a pairwise algorithm for computing sample
variances", 1979) into the band thresholds; a second sums the diffs of the sampled instances
and the partitions' rows in their bands (on bit planes with a discrete class, a pass counting
the bands' classes first, so that the partitions weight their sums themselves)."""
import numpy as np

from ..estimators.base import BLOCK_BYTES, parallel_launch
from ..estimators.neighbourhood.packed import band_mismatch_counts
from ..estimators.surf import NEAR, FAR, band_coefficients, band_estimates, band_thresholds, \
    others_mean_std, pooled_std, sigmoid_strength
from .partitions import accumulate, partition_model, query_blocks, sample_distances, stopper
from .passes import PROGRESS, total

__all__ = ["estimates"]


def estimates(passes, estimator, spec, sample):
    """The estimates of ``estimator`` (one of the SURF family) from the
    :class:`.sample.Sample` ``sample`` and the whole data's ``spec``
    (:func:`.summary.summarise`)."""
    near, far, scale = thresholds(passes, estimator, spec, sample)
    bands = (NEAR, FAR) if estimator.far_band else (NEAR,)
    classification = spec["reference"].data.is_classification
    if spec["packed"] and classification and not estimator.sigmoid:
        return _packed_estimates(passes, estimator, spec, sample, near, far, bands)
    m, G = sample.instances.size, spec["reference"].n_cls
    parts = passes.run(_band_sums, lambda i: (passes.offsets[i], sample.instances,
                                              passes.queries, spec, near, far,
                                              estimator.far_band,
                                              scale if estimator.sigmoid else None), 0.4, 1.0)
    F = 1 if classification else 2
    slot_sums, slot_known, slot_totals, slot_counts = total(parts)
    B, a = len(bands), passes.a
    slot_sums = slot_sums.reshape(B, m, G, F, a)
    slot_known = slot_known.reshape(B, m, G, a)
    slot_totals = slot_totals.reshape(B, m, G, F)
    slot_counts = slot_counts.reshape(B, m, G)
    S = 2 if classification else 1
    sums, known, totals = np.zeros((B, S, F, a)), np.zeros((B, S, a)), np.zeros((B, S, F))
    for b in range(B):
        counts = slot_counts[b]                            # (m, G) band members per class
        if classification:
            prior = spec["counts"] / spec["counts"].sum()
            coef = band_coefficients(sample.target, prior, counts, np.ones(m))  # (m, 2, C)
        else:
            size = counts[:, 0]
            coef = np.where(size > 0, 1.0 / np.where(size > 0, size, 1.0), 0.0)
            coef = coef[:, None, None]
        sums[b] = np.einsum("qsg,qgfa->sfa", coef, slot_sums[b])
        known[b] = np.einsum("qsg,qga->sa", coef, slot_known[b])
        totals[b] = np.einsum("qsg,qgf->sf", coef, slot_totals[b])
    reference = spec["reference"]
    renorm = reference.options.missing == "C" and reference.has_missing.any()
    result = band_estimates(sums, known, totals, bands, classification, renorm, float(m))
    result[~reference.usable] = np.nan                      # no known value
    return result


def thresholds(passes, estimator, spec, sample):
    """The near and far thresholds of each sampled instance (:func:`.surf.band_thresholds`)
    and the sigma of its members' weights in the SWRF family (its own standard deviation, or
    that of all the distances, :func:`.surf.pooled_std`), from the partitions' counts, means
    and standard deviations of its distances, combined as Chan, Golub & LeVeque (1979) combine
    moments."""
    moments = passes.run(_moments, lambda i: (passes.offsets[i], sample.instances,
                                              passes.queries, spec), PROGRESS[0], 0.4)
    count = sum(p[0] for p in moments)
    mean = sum(p[0] * p[1] for p in moments) / np.where(count > 0, count, 1)
    m2 = sum(p[0] * p[2] ** 2 + p[0] * (p[1] - mean) ** 2 for p in moments)
    spread = np.sqrt(np.maximum(m2 / np.where(count > 0, count, 1), 0.0))
    near, far = band_thresholds(mean, spread, count, estimator.per_instance,
                                estimator.far_band, estimator.dead_band)
    scale = spread if estimator.per_instance else np.full(mean.size,
                                                          pooled_std(mean, spread, count))
    return near, far, scale


def _packed_estimates(passes, estimator, spec, sample, near, far, bands):
    """The SURF family's estimate on bit planes and a discrete class: a pass counts each
    band's members of each class (the band coefficients, :func:`.surf.band_coefficients`),
    a second adds in the workers the band members' mismatch counts
    (:func:`.packed.band_mismatch_counts`) weighted by them, so that a partition sends back
    (bands, 2, attributes) sums, never one row per sampled instance."""
    m, B, a = sample.instances.size, len(bands), passes.a

    def args(i):
        return (passes.offsets[i], sample.instances, passes.queries, spec, near, far,
                estimator.far_band)
    counts = sum(passes.run(_band_counts, args, 0.4, 0.55))                 # (B, m, G)
    prior = spec["counts"] / spec["counts"].sum()
    coef = np.stack([band_coefficients(sample.target, prior, counts[b], np.ones(m))
                     for b in range(B)])                                    # (B, m, 2, G)
    sums, totals = total(passes.run(_band_mismatches, lambda i: args(i) + (coef,), 0.55, 1.0))
    known = np.broadcast_to(totals[:, :, None], (B, 2, a))          # no missing value
    return band_estimates(sums[:, :, None], known, totals[:, :, None], bands, True, False,
                          float(m))


# -- the partitions' tasks (run on the workers) ----------------------------------------------
def _surf_distances(model, d):
    """The SURF family's distances: the square root of sums of squared diffs (Euclidean)."""
    return np.sqrt(d, out=d) if model.options.distance == "euclidean" else d


def _moments(x, y, offset, instances, queries, spec):
    """Per sampled instance, the number, mean and (population) standard deviation of its
    distances to the partition's other rows."""
    model, n_p = partition_model(x, y, queries, spec)
    stopped = stopper(spec["stop"])
    m = instances.size
    count, mean, spread = np.zeros(m), np.zeros(m), np.zeros(m)
    weights = np.ones(n_p)
    for blk in query_blocks(m, n_p):
        d, own = sample_distances(model, n_p, instances, offset, blk, stopped)
        d = _surf_distances(model, np.hstack([d, np.zeros((d.shape[0], 1))]))
        own = np.where(own >= 0, own, n_p)          # an instance elsewhere: the zero column
        mean[blk], spread[blk], count[blk] = others_mean_std(d, own, np.append(weights, 0))
    return count, mean, spread


def _band_sums(x, y, offset, instances, queries, spec, near, far, far_band, scale=None):
    """The second pass of the SURF family: the diffs of each sampled instance and the
    partition's rows in its bands, summed per (band, instance, class of the member) slot,
    each weighted by the member's w(d) in the SWRF family (``scale``: each sampled instance's
    sigma, :func:`.surf.sigmoid_strength`), and the members counted per slot."""
    model, n_p = partition_model(x, y, queries, spec)
    stopped = stopper(spec["stop"])
    m = instances.size
    G = model.n_cls
    classification = model.data.is_classification
    B = 2 if far_band else 1
    F = 1 if classification else 2
    a = model.data.n_attributes
    n_slots = B * m * G
    out = (np.zeros((n_slots, F, a)), np.zeros((n_slots, a)), np.zeros((n_slots, F)))
    counts = np.zeros(n_slots)
    cls = model.cls[:n_p] if classification else np.zeros(n_p, np.intp)
    for blk in query_blocks(m, n_p):
        band, d = _bands_of(model, n_p, instances, offset, blk, stopped, near, far, far_band,
                            True)
        r, j = np.nonzero(band >= 0)
        q = r + blk.start
        slots = (band[r, j] * m + q) * G + cls[j]
        weights = np.ones(q.size)
        if scale is not None:
            codes = np.where(band == 0, NEAR, np.where(band == 1, FAR, 0))
            weights = sigmoid_strength(d, codes, near[blk], far[blk], scale[blk])[r, j]
        accumulate(model, n_p + q, j, slots, weights, n_slots, not classification, out)
        counts += np.bincount(slots, minlength=n_slots)
    return out + (counts,)


def _bands_of(model, n_p, instances, offset, blk, stopped, near, far, far_band,
              with_distances=False):
    """band[q, j] of the sampled instances ``blk`` and the partition's rows j: 0 near, 1 far,
    -1 in neither (an instance is never in its own bands); and the distances d[q, j] with
    ``with_distances``."""
    d, own = sample_distances(model, n_p, instances, offset, blk, stopped)
    d = _surf_distances(model, d)
    band = np.where(d < near[blk, None], 0, -1)
    if far_band:
        band[d > far[blk, None]] = 1
    at = np.flatnonzero(own >= 0)
    band[at, own[at]] = -1
    return (band, d) if with_distances else band


def _band_counts(x, y, offset, instances, queries, spec, near, far, far_band):
    """counts[b, q, g]: the partition's rows of class g in band b of sampled instance q."""
    model, n_p = partition_model(x, y, queries, spec)
    stopped = stopper(spec["stop"])
    m, G = instances.size, model.n_cls
    counts = np.zeros((2 if far_band else 1, m, G))
    cls = model.cls[:n_p]
    for blk in query_blocks(m, n_p):
        band = _bands_of(model, n_p, instances, offset, blk, stopped, near, far, far_band)
        for b in range(counts.shape[0]):
            r, j = np.nonzero(band == b)
            counts[b, blk] += np.bincount(r * G + cls[j], minlength=(blk.stop - blk.start) * G
                                          ).reshape(-1, G)
    return counts


def _band_mismatches(x, y, offset, instances, queries, spec, near, far, far_band, coef):
    """On bit planes: ``sums[b, s, A]`` = the sum over the sampled instances q and the members
    j of band b of q in the partition of coef[b, q, s, class of j] diff(A, R_q, I_j), the
    diffs counted by :func:`.packed.band_mismatch_counts`, and ``totals[b, s]`` the same sum
    of the coefficients alone."""
    model, n_p = partition_model(x, y, queries, spec)
    stopped = stopper(spec["stop"])
    B, m, S, G = coef.shape
    a = model.data.n_attributes
    sums, totals = np.zeros((B, S, a)), np.zeros((B, S))
    groups = np.concatenate([model.cls[:n_p], np.zeros(m, np.int32)]).astype(np.intp)
    step = max(1, BLOCK_BYTES // (8 * G * a))            # mismatch counts of a block
    for whole in query_blocks(m, n_p):
        for lo in range(whole.start, whole.stop, step):
            blk = slice(lo, min(lo + step, whole.stop))
            band = _bands_of(model, n_p, instances, offset, blk, stopped, near, far, far_band)
            rows = (n_p + np.arange(blk.start, blk.stop)).astype(np.intp)
            for b in range(B):
                member = np.zeros((rows.size, n_p + m), np.bool_)
                member[:, :n_p] = band == b
                out = np.zeros((rows.size, G, a))
                with parallel_launch():
                    band_mismatch_counts(model.planes, rows, member, groups, G, out)
                size = np.stack([(member[:, :n_p] & (groups[:n_p] == g)).sum(axis=1)
                                 for g in range(G)], axis=1)                  # (b, G)
                sums[b] += np.einsum("qsg,qga->sa", coef[b, blk], out)
                totals[b] += np.einsum("qsg,qg->s", coef[b, blk], size)
    return sums, totals
