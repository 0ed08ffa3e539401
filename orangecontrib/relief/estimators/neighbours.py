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


def _nearest(dist, k):
    """Indices (into the columns of ``dist``) of the k smallest finite entries of each row,
    sorted by distance then index; -1 where a row has fewer than k finite entries."""
    b, n = dist.shape
    k = min(k, n)
    if k == 0:
        return np.empty((b, 0), np.intp)
    if k < n:
        # exactly the k smallest by (distance, index): all below the k-th distance, then the
        # lowest-indexed of those equal to it, so that ties never depend on the search depth
        kth = np.partition(dist, k - 1, axis=1)[:, k - 1:k]
        below = dist < kth
        tied = dist == kth
        need = k - below.sum(axis=1, keepdims=True)
        chosen = below | (tied & (np.cumsum(tied, axis=1) <= need))
        part = np.nonzero(chosen)[1].reshape(b, k)
    else:
        part = np.tile(np.arange(n), (b, 1))
    order = np.argsort(np.take_along_axis(dist, part, axis=1), axis=1, kind="stable")
    idx = np.take_along_axis(part, order, axis=1)
    idx[~np.isfinite(np.take_along_axis(dist, idx, axis=1))] = -1
    return idx


def nearest_neighbours(diff_model, instances, k, groups="per-class", skip_zero_distance=False,
                       callback=None):
    """Find the context (see the module docstring) for the sampled ``instances``."""
    data = diff_model.data
    n = data.n_instances
    instances = np.asarray(instances, dtype=np.intp)
    m = instances.size
    if groups == "all":
        members = [np.arange(n)]
    else:
        members = [np.flatnonzero(data.y == c) for c in range(data.n_classes)]
    if groups == "per-class":
        n_groups, size = len(members), max(len(g) for g in members)
    elif groups == "pooled":
        n_groups, size = 2, n
    else:
        n_groups, size = 1, n
    K = min(k, size)
    neighbours = np.full((m, n_groups, K), -1, dtype=np.intp)
    distances = np.full((m, n_groups, K), np.inf)
    block = max(1, BLOCK_BYTES // (8 * max(n, 1)))
    for start in range(0, m, block):
        rows = instances[start:start + block]
        dist = diff_model.distances(rows)
        dist[np.arange(rows.size), rows] = np.inf
        if skip_zero_distance:
            dist[dist == 0] = np.inf
        out = slice(start, start + rows.size)
        if groups == "pooled":
            row_cls = data.y[rows]
            for c, idx_c in enumerate(members):
                q = np.flatnonzero(row_cls == c)
                if not q.size:
                    continue
                others = np.setdiff1d(np.arange(n), idx_c, assume_unique=True)
                for g, cand in enumerate((idx_c, others)):
                    _store(neighbours, distances, out, q, g, dist[q][:, cand], cand, K)
        else:
            q = np.arange(rows.size)
            for g, cand in enumerate(members):
                _store(neighbours, distances, out, q, g, dist[:, cand], cand, K)
        if callback is not None:
            callback(min(1.0, (start + rows.size) / m))
    return NeighbourContext(data, diff_model, instances, neighbours, distances, groups)


def _store(neighbours, distances, out, q, g, dist, cand, K):
    idx = _nearest(dist, K)
    kk = idx.shape[1]
    found = idx >= 0
    pos = np.where(found, idx, 0)
    rows = np.arange(out.start, out.stop)[q]
    neighbours[rows, g, :kk] = np.where(found, cand[pos], -1)
    distances[rows, g, :kk] = np.where(found, np.take_along_axis(dist, pos, axis=1), np.inf)


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
