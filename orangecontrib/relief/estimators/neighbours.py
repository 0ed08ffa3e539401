"""The Relief family's context: the nearest neighbours of the sampled instances, found once.

For each sampled instance R_i the context keeps its K nearest instances in each of G groups,
sorted by distance, ties by instance index (robnik-kononenko-relieff-rrelieff-trees.txt, Fig. 3 lines 4-6, Fig. 4 line 4):

* ``groups="per-class"``: one group per class (RELIEF-F: hits are the group of R_i's class,
  misses the others);
* ``groups="pooled"``: group 0 = R_i's class (hits), group 1 = every other class (RELIEF-E's
  misses, Kira & Rendell's Relief with K = 1);
* ``groups="all"``: a single group of all instances (RReliefF).

R_i itself is never its own neighbour; with ``skip_zero_distance`` no instance at distance 0 is
(CORElearn). K is capped by the group size; a missing neighbour has index -1 and distance inf.
The search is blocked brute force over :meth:`DiffModel.distances` (never an N x N matrix).

:func:`neighbour_weights` gives the unnormalised influence of each neighbour: equal, exp-rank
(eq. 14: exp(-(rank/sigma)^2), neighbours at equal distance sharing the rank of the first of
them), 1/d or 1/d^2. Estimators normalise them over the first k (eq. 13).
"""
from dataclasses import dataclass

import numpy as np
from numba import njit, prange

from .encoding import EncodedData
from .diffs import DiffModel

__all__ = ["NeighbourContext", "nearest_neighbours", "neighbour_weights", "WEIGHTINGS"]

WEIGHTINGS = ("equal", "exp-rank", "1/d", "1/d2")
#: bytes of one block of distances (rows x N float64)
BLOCK_BYTES = 64 * 2 ** 20


@dataclass(eq=False)
class NeighbourContext:
    """Nearest neighbours of the sampled instances; see the module docstring."""
    data: EncodedData
    diff_model: DiffModel
    instances: np.ndarray    # (m,) indices of the sampled instances R_i
    neighbours: np.ndarray   # (m, G, K) neighbour indices sorted by distance, -1 = none
    distances: np.ndarray    # (m, G, K) their distances, inf = none
    groups: str

    @property
    def available(self):
        """(m, G) number of neighbours found in each group."""
        return (self.neighbours >= 0).sum(axis=2)


_GROUP_MODES = {"per-class": 0, "pooled": 1, "all": 2}


def nearest_neighbours(diff_model, instances, k, groups="per-class", skip_zero_distance=False,
                       callback=None):
    """Find the context (see the module docstring) for the sampled ``instances``."""
    data = diff_model.data
    n = data.n_instances
    instances = np.asarray(instances, dtype=np.intp)
    m = instances.size
    cls = data.y.astype(np.intp) if data.is_classification else np.zeros(n, np.intp)
    if groups == "per-class":
        n_groups, size = data.n_classes, int(np.bincount(cls).max())
    elif groups == "pooled":
        n_groups, size = 2, n
    else:
        n_groups, size = 1, n
    K = max(0, min(k, size))
    neighbours = np.full((m, n_groups, K), -1, dtype=np.intp)
    distances = np.full((m, n_groups, K), np.inf)
    block = max(1, BLOCK_BYTES // (8 * max(n, 1)))
    for start in range(0, m, block):
        rows = instances[start:start + block]
        dist = diff_model.distances(rows)
        dist[np.arange(rows.size), rows] = np.inf
        out = slice(start, start + rows.size)
        _select_nearest(dist, cls[rows], cls, _GROUP_MODES[groups], skip_zero_distance,
                        neighbours[out], distances[out])
        if callback is not None:
            callback(min(1.0, (start + rows.size) / m))
    return NeighbourContext(data, diff_model, instances, neighbours, distances, groups)


@njit(cache=True, inline="always")
def _before(d1, i1, d2, i2):
    """(d1, i1) < (d2, i2): nearer, or as near and of a lower index."""
    return d1 < d2 or (d1 == d2 and i1 < i2)


@njit(cache=True, inline="always")
def _sift_down(dist, idx, root, size):
    """Restore the max-heap (by (distance, index)) below ``root`` in the first ``size``."""
    while True:
        child = 2 * root + 1
        if child >= size:
            return
        if child + 1 < size and _before(dist[child], idx[child], dist[child + 1], idx[child + 1]):
            child += 1
        if not _before(dist[root], idx[root], dist[child], idx[child]):
            return
        dist[root], dist[child] = dist[child], dist[root]
        idx[root], idx[child] = idx[child], idx[root]
        root = child


@njit(cache=True, parallel=True)
def _select_nearest(dist, row_cls, cls, mode, skip_zero, out_idx, out_dist):
    """For each row q of ``dist`` the K nearest candidates of each group, sorted by (distance,
    index), into out_idx/out_dist (b, G, K; prefilled with -1/inf). The group of candidate j:
    its class (mode 0), 0 = the row's class / 1 = another (mode 1), 0 (mode 2). Infinite
    distances (the row itself) are never neighbours, nor, with ``skip_zero``, zero ones. One
    pass per row with a bounded max-heap per group; candidates come in index order, so among
    equal distances the lowest indices stay."""
    b, n = dist.shape
    n_groups, K = out_idx.shape[1], out_idx.shape[2]
    if K == 0:
        return
    for q in prange(b):
        size = np.zeros(n_groups, np.int64)
        farthest = np.full(n_groups, np.inf)       # the farthest kept, once a heap is full
        dq = dist[q]
        for j in range(n):
            d = dq[j]
            if not d < np.inf or (skip_zero and d == 0.0):
                continue
            if mode == 0:
                g = cls[j]
            elif mode == 1:
                g = 0 if cls[j] == row_cls[q] else 1
            else:
                g = 0
            if not d < farthest[g]:
                continue
            hd = out_dist[q, g]
            hi = out_idx[q, g]
            s = size[g]
            if s < K:                               # grow the heap: sift the new one up
                pos = s
                hd[pos] = d
                hi[pos] = j
                while pos > 0:
                    parent = (pos - 1) // 2
                    if not _before(hd[parent], hi[parent], hd[pos], hi[pos]):
                        break
                    hd[parent], hd[pos] = hd[pos], hd[parent]
                    hi[parent], hi[pos] = hi[pos], hi[parent]
                    pos = parent
                size[g] = s + 1
            else:                                   # nearer than the farthest kept
                hd[0] = d
                hi[0] = j
                _sift_down(hd, hi, 0, K)
            if size[g] == K:
                farthest[g] = hd[0]
        for g in range(n_groups):                   # heap sort: ascending (distance, index)
            hd = out_dist[q, g]
            hi = out_idx[q, g]
            for end in range(size[g] - 1, 0, -1):
                hd[0], hd[end] = hd[end], hd[0]
                hi[0], hi[end] = hi[end], hi[0]
                _sift_down(hd, hi, 0, end)


def neighbour_weights(context, weighting="equal", sigma=20.0):
    """Unnormalised influence of each neighbour in the context, shape (m, G, K); 0 where there is
    no neighbour. ``exp-rank`` is eq. 14 (rank 0-based, equal distances share the rank of the
    first of them); ``1/d`` and ``1/d2`` use the distance, and where a group has neighbours at
    distance 0 those share all of its influence (the limit of 1/d as d -> 0)."""
    d = context.distances
    found = context.neighbours >= 0
    if weighting == "equal":
        w = np.ones_like(d)
    elif weighting == "exp-rank":
        K = d.shape[2]
        rank = np.broadcast_to(np.arange(K), d.shape).copy()
        if K > 1:
            same = np.zeros(d.shape, bool)
            same[..., 1:] = d[..., 1:] == d[..., :-1]
            # the rank of the first neighbour of each run of equal distances
            rank = np.maximum.accumulate(np.where(same, 0, rank), axis=2)
        w = np.exp(-(rank / sigma) ** 2)
    elif weighting in ("1/d", "1/d2"):
        if context.diff_model.options.distance == "euclidean":
            d = np.sqrt(d)          # the context keeps sums of squared diffs for ordering
        power = 1.0 if weighting == "1/d" else 2.0
        zero = found & (d == 0)
        with np.errstate(divide="ignore"):
            w = np.where(found & (d > 0), 1.0 / np.where(d > 0, d, 1.0) ** power, 0.0)
        has_zero = zero.any(axis=2, keepdims=True)
        w = np.where(has_zero, zero.astype(float), w)
    else:
        raise ValueError(f"weighting must be one of {', '.join(WEIGHTINGS)}, got {weighting!r}")
    return np.where(found, w, 0.0)
