"""ReliefF and RReliefF on Dask: each partition's candidates for the k nearest of each sampled
instance (the single-machine search over its rows), merged by the client into the global k
nearest and those tied with the k-th, and a second pass summing the weighted diffs of the
sampled instances and their neighbours in the partitions holding them."""
import numpy as np

from ..estimators.neighbourhood import NeighbourContext, class_tiles, nearest_among, \
    neighbour_weights
from ..estimators.neighbourhood.diffs import TILE_WIDTH
from ..estimators.neighbourhood.neighbours import neighbour_places, tie_margin, tied_with_kth
from ..estimators.relief_family import first_k_weights
from ..estimators.relieff import ReliefF, group_coefficients
from ..estimators.rrelieff import RReliefF
from .partitions import accumulate, partition_model, stopper
from .passes import PROGRESS, SEARCH, total

__all__ = ["estimates"]

#: the search's blocks: this many sampled instances against about ``SEARCH_WORK`` diffs'
#: worth of the partition's rows (well under a second; each block loads its rows' tiles once
#: for all its instances)
SEARCH_QUERIES = 4096
SEARCH_WORK = 100_000_000


def estimates(passes, estimator, spec, sample):
    """The estimates of ``estimator`` (ReliefF or RReliefF) from the :class:`.sample.Sample`
    ``sample`` and the whole data's ``spec`` (:func:`.summary.summarise`)."""
    m, groups = sample.instances.size, estimator.groups
    if groups == "per-class":
        G, size = spec["reference"].n_cls, int(spec["counts"].max())
    else:
        G, size = (2 if groups == "pooled" else 1), passes.n
    K = max(0, min(estimator.k_, size))
    neighbours, distances = nearest(passes, spec, sample, groups, G, K)
    context = NeighbourContext(None, spec["reference"], sample.instances, neighbours,
                               distances, groups, search=SEARCH, shared_ties=True)
    wk = first_k_weights(neighbour_weights(context, estimator.weighting_, estimator.sigma),
                         neighbour_places(context), estimator.k_)
    ones = np.ones(m)
    if isinstance(estimator, ReliefF):
        prior = spec["counts"] / spec["counts"].sum()
        coef = group_coefficients(sample.target, prior, G, groups, ones)
    else:
        coef = ones[None, :, None]
    pair = coef[..., None] * wk[None]                      # (S, m, G, K)
    S = pair.shape[0]
    s, qq, gg, jj = np.nonzero((pair != 0) & (neighbours >= 0)[None])
    weights, others = pair[s, qq, gg, jj], neighbours[qq, gg, jj]
    part = np.searchsorted(passes.offsets, others, side="right") - 1
    with_tau = isinstance(estimator, RReliefF)

    def args(i):
        at = part == i
        return (passes.queries, spec, qq[at], others[at] - passes.offsets[i], s[at],
                weights[at], S, with_tau)
    sums, known, totals = total(passes.run(_pair_sums, args, PROGRESS[1], 1.0))
    if with_tau:
        return RReliefF.combine(sums[:, :, None], known[:, None], totals[:, :, None])[0]
    return ReliefF.combine(sums[:, :, None], known[:, None], totals[:, :, None], m)[0]


def nearest(passes, spec, sample, groups, G, K):
    """``(neighbours, distances)`` (m, G, width): the global K nearest of each sampled instance
    in each of the G groups and every one tied with the K-th (-1, inf: none), merged from the
    partitions' candidates (each block of rows sent its own K nearest and those tied)."""
    m = sample.instances.size
    parts = passes.run(_search, lambda i: (passes.offsets[i], sample.instances, passes.queries,
                                           spec, groups, K), PROGRESS[0], PROGRESS[1])
    q, g, idx, dist = (np.concatenate([p[c] for p in parts]) for c in range(4))
    order = np.lexsort((idx, dist, g, q))
    q, g, idx, dist = q[order], g[order], idx[order], dist[order]
    key = q * G + g
    start = np.searchsorted(key, key, side="left")
    rank = np.arange(key.size) - start
    kth = np.minimum(start + K - 1, max(key.size - 1, 0))
    keep = (rank < K) | ((key[kth] == key) & (dist == dist[kth])) if K else rank < 0
    width = int(rank[keep].max(initial=K - 1)) + 1
    neighbours = np.full((m, G, width), -1, dtype=np.intp)
    distances = np.full((m, G, width), np.inf)
    neighbours[q[keep], g[keep], rank[keep]] = idx[keep]
    distances[q[keep], g[keep], rank[keep]] = dist[keep]
    return neighbours, distances


# -- the partitions' tasks (run on the workers) ----------------------------------------------
def _search(x, y, offset, instances, queries, spec, groups, K):
    """The candidates for the k nearest of each sampled instance in each group: its K nearest
    by (distance, row) and every one tied with the K-th (:func:`.neighbours.tied_with_kth`) in
    each block of the partition's rows, found by the single-machine search
    (:func:`.neighbours.nearest_among`) with the block's rows as the only candidates (each
    block's work is about ``SEARCH_WORK`` diffs; between blocks the task looks whether it is
    cancelled). Flat arrays of the instance's position, the group, the global row index and
    the distance."""
    model, n_p = partition_model(x, y, queries, spec)
    stopped = stopper(spec["stop"])
    m = instances.size
    # a sampled instance of this partition is searched from its own row, so that it is not
    # its own neighbour; the others from their rows appended after the partition's
    rows = instances - offset
    rows = np.where((rows >= 0) & (rows < n_p), rows, n_p + np.arange(m)).astype(np.intp)
    order, ranges = _candidate_tiles(model.cls[:n_p])
    a = model.data.n_attributes
    step = max(1, SEARCH_QUERIES)
    width = max(TILE_WIDTH, SEARCH_WORK // max(min(m, step) * a, 1))    # rows per block
    first = np.searchsorted(np.cumsum(ranges[:, 1] - ranges[:, 0]),
                            np.arange(width, n_p, width), side="right")
    out = []
    for lo in range(0, m if K else 0, step):
        blk = slice(lo, min(lo + step, m))
        for part in np.split(np.arange(len(ranges)), np.unique(first)):
            if stopped():
                raise RuntimeError("cancelled")
            candidates = (order, ranges[part])

            def find(at, wanted, queries=rows[blk], candidates=candidates):
                return nearest_among(model, queries[at], candidates, wanted, groups)
            # the block's K nearest and every one tied with its K-th (ties shared)
            size = int((ranges[part, 1] - ranges[part, 0]).sum())
            neighbours, distances = tied_with_kth(
                find, K, size, *find(np.arange(blk.stop - lo), min(K + tie_margin(K), max(size, K))))
            q, g, j = np.nonzero(neighbours >= 0)
            out.append((q + lo, g, neighbours[q, g, j] + offset, distances[q, g, j]))
    if not out:
        return np.zeros(0, np.intp), np.zeros(0, np.intp), np.zeros(0, np.intp), np.zeros(0)
    return tuple(np.concatenate([o[c] for o in out]) for c in range(4))


def _candidate_tiles(cls):
    """``order`` and ``ranges`` of :attr:`.DiffModel.tiles` over the first ``cls.size`` rows
    only (the partition's, not the sampled instances appended after them): the rows sorted by
    class, in tiles of at most ``TILE_WIDTH`` rows of one class."""
    return class_tiles(cls, int(cls.max()) + 1 if cls.size else 0)


def _pair_sums(x, y, queries, spec, q, others, slots, weights, n_slots, with_tau):
    """The second pass of ReliefF and RReliefF: the weighted diffs of the sampled instances
    ``q`` (positions) and their neighbours ``others`` (the partition's rows) in the slots."""
    F = 2 if with_tau else 1
    a = queries[0].shape[1]
    out = (np.zeros((n_slots, F, a)), np.zeros((n_slots, a)), np.zeros((n_slots, F)))
    if not len(q):
        return out
    # only the neighbours' rows are read (from a memory-mapped partition, only their pages)
    used, others = np.unique(np.asarray(others, np.intp), return_inverse=True)
    model, n_p = partition_model(x[used], np.asarray(y)[used], queries, spec)
    accumulate(model, n_p + np.asarray(q, np.intp), others.astype(np.intp),
                np.asarray(slots, np.intp), np.asarray(weights, float), n_slots, with_tau, out)
    return out
