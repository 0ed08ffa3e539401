"""The Relief family's context: the nearest neighbours of the sampled instances, found once.

For each sampled instance R_i the context keeps its K nearest instances in each of G groups,
sorted by (distance, instance index) (Robnik-Šikonja & Kononenko 1999, Fig. 3 lines 4-6, Fig. 4
line 4), and by default every other instance tied with the K-th (see Ties below):

* ``groups="per-class"``: one group per class (RELIEF-F: hits are the group of R_i's class,
  misses the others);
* ``groups="pooled"``: group 0 = R_i's class (hits), group 1 = every other class (RELIEF-E's
  misses, Kira & Rendell's Relief with K = 1);
* ``groups="all"``: a single group of all instances (RReliefF).

R_i itself is never its own neighbour; with ``skip_zero_distance`` no instance at distance 0 is
(CORElearn). K is capped by the group size; a missing neighbour has index -1 and distance inf.

Ties: which of several instances at the k-th distance are "the k nearest" would depend on the
order of the rows. Unless the diff model follows CORElearn (which keeps its own order), the
context keeps every instance tied with the K-th (``shared_ties``), so a group may hold more
than K neighbours, and neighbours at equal distance share their places: of k places, the run
of equal distances that reaches past the k-th place fills the places left by the nearer ones,
each of its instances the share of them its own places are of the run's
(:func:`first_k_places`). That is the expected number of places each fills over all orders of
the tied instances; since tied neighbours have equal influence under every weighting (exp-rank
gives them the rank of the first of them, 1/d the same distance), the influences normalised
over the first k (:func:`first_k_weights`), and so every sum of the Relief family, are their
expected values over those orders. The search keeps places beyond the K-th
(:func:`tie_places`): the brute-force search (tiles, bit planes) fills them only with instances
tied with the K-th, beside a heap of K, the others (single precision, k-d tree, sparse) with
the K' nearest by (distance, index); the rows whose run of the K-th distance fills them are
searched again with more (:func:`tied_with_kth`). Every path gives the K nearest by (distance,
index) exactly and every instance tied with the K-th, so they all give the same context.

Instance weights: an instance of weight w stands for w copies of it, so it fills w of the k
neighbour places (``mass``; fractional weights fill fractions), and R_i's own other copies
(w_i - 1 of them, none when w_i <= 1) are its neighbours at distance D(R_i, R_i) (0 unless
values are missing), placed among the others by (distance, index). The search then keeps
enough neighbours to fill k places. With integer weights this is the context of the data with
each instance repeated w times, where the copies of an instance are consecutive.
The search is brute force over the tiles of :meth:`DiffModel.tiles` (never an N x N matrix; for
sparse data :meth:`.sparse.SparseDiffModel.search`); a large dense search runs in single
precision, each pair once when every instance is sampled, and is certified against this
double-precision kernel (:mod:`.single_precision`: the same context to the last bit); or,
for many instances with few numeric attributes, no missing values and the linear diff, k-d trees
(``scipy.spatial.cKDTree``, Robnik-Sikonja 1998 in the papers' §3.3); a row whose k-th and
(k+1)-th candidates are (nearly) equally far is searched by brute force again, so both searches
give the same neighbours in the same order.

:func:`neighbour_weights` gives the unnormalised influence of each neighbour: equal, exp-rank
(eq. 14: exp(-(rank/sigma)^2), neighbours at equal distance sharing the rank of the first of
them), 1/d or 1/d^2. Estimators normalise them over the first k (eq. 13).
"""
from dataclasses import dataclass
from functools import cached_property
from typing import NamedTuple

import numba
import numpy as np
from numba import njit, prange

from ...compilation import compiled_somewhere, current_mode, kernel, run_in_background
from . import single_precision, vectorised
from ..base import check_memory, parallel_launch, progress_part
from ..encoding import EncodedData, encode
from .diffs import DiffModel, DiffOptions, _any_tile_distances, _diff, _tile_buffers
from .heaps import _group, _heap_sort, _offer, _offer_tie, _sort_ties
from .kinds import DISCRETE, NUMERIC, UNUSABLE
from .searches import notify_search

__all__ = ["NeighbourContext", "nearest_neighbours", "nearest_among", "regroup",
           "neighbour_weights", "WEIGHTINGS", "NeighbourPlaces", "neighbour_places",
           "first_k_places", "first_k_weights", "tie_margin", "tie_places", "tied_with_kth",
           "compile_single_precision"]

WEIGHTINGS = ("equal", "exp-rank", "1/d", "1/d2")


@dataclass(eq=False)
class NeighbourContext:
    """Nearest neighbours of the sampled instances; see the module docstring."""
    data: EncodedData
    diff_model: DiffModel
    instances: np.ndarray    # (m,) indices of the sampled instances R_i
    neighbours: np.ndarray   # (m, G, K) neighbour indices sorted by distance, -1 = none
    distances: np.ndarray    # (m, G, K) their distances, inf = none
    groups: str
    mass: np.ndarray = None  # (m, G, K) neighbour places each fills; None = one each
    #: which search found the neighbours (one of :data:`.searches.SEARCHES`)
    search: str = None
    shared_ties: bool = False    # neighbours at equal distance share their places

    @cached_property
    def found(self):
        """(m, G, K) whether a place holds a neighbour (computed once: the influences and the
        places of the diff sums both read it)."""
        return self.neighbours >= 0

    def derived(self, key, compute):
        """``compute()``, kept read-only for later calls with the same ``key``: what an
        estimator derives from the context alone (the neighbours' influences, the target's
        diffs) is computed once however many blocks of columns it scores over the context (a
        tree scores its candidate splits so)."""
        memo = self.__dict__.setdefault("_derived", {})
        if key not in memo:
            value = compute()
            value.setflags(write=False)
            memo[key] = value
        return memo[key]

    @cached_property
    def available(self):
        """(m, G) number of neighbours found in each group."""
        # (einsum sums the bytes along the short last axis in half the time of .sum)
        return np.einsum("igk->ig", self.found.view(np.uint8), dtype=np.intp)


_GROUP_MODES = {"per-class": 0, "pooled": 1, "all": 2}
#: rows per call of the search (no distance matrix is kept): progress and cancelling
SEARCH_BLOCK = 2048
#: diff terms (rows x candidates x attributes) of one call of the search at most, down to 8
#: rows per thread: a few tenths of a second, so a cancel between calls takes effect promptly
SEARCH_DIFFS = 2 ** 29
#: diffs per call of the CORElearn-order search (well under a second)
CORELEARN_BLOCK_DIFFS = 2 * 10 ** 7
#: the k-d tree search is used from this many instances, up to this many attributes
KD_TREE_MIN_INSTANCES = 5000
KD_TREE_MAX_ATTRIBUTES = 6


class _SearchSpec(NamedTuple):
    """What :func:`_search` searches: the diff model, the grouping, whether instances at
    distance 0 are skipped, the class code of every instance and the number of groups."""
    diff_model: DiffModel
    groups: str
    skip_zero_distance: bool
    cls: np.ndarray
    n_groups: int


def nearest_neighbours(diff_model, instances, k, groups="per-class", skip_zero_distance=None,
                       callback=None, shared_ties=None):
    """Find the context (see the module docstring) for the sampled ``instances``;
    ``skip_zero_distance`` None = the diff model's option; ``shared_ties`` None = unless the
    diff model follows CORElearn."""
    if skip_zero_distance is None:
        skip_zero_distance = diff_model.options.skip_zero_distance
    if shared_ties is None:
        shared_ties = not diff_model.options.corelearn
    data = diff_model.data
    n = data.n_instances
    instances = np.asarray(instances, dtype=np.intp)
    cls = data.y.astype(np.intp) if data.is_classification else np.zeros(n, np.intp)
    if groups == "per-class":
        n_groups, size = data.n_classes, int(np.bincount(cls).max())
    elif groups == "pooled":
        n_groups, size = 2, n
    else:
        n_groups, size = 1, n
    if data.weights is not None:      # enough neighbours to fill k places
        k = int(np.ceil(k / data.weights.min()))
    K = max(0, min(k, size))
    ties = min(tie_places(diff_model, K, size), size - K) if shared_ties and K else 0
    how = _SearchSpec(diff_model, groups, skip_zero_distance, cls, n_groups)
    neighbours, distances, search = _search(
        how, instances, K, progress_part(callback, 0.0, 0.95 if shared_ties else 1.0), ties)
    if shared_ties and K:
        again = progress_part(callback, 0.95, 1.0)
        neighbours, distances = tied_with_kth(
            lambda rows, wider: _search(how, instances[rows], K, again, wider - K)[:2], K,
            size, neighbours, distances, only_tied=search in ("packed SNP", "double precision"))
    mass = None
    if data.weights is not None and K:
        neighbours, distances, mass = _with_copies(diff_model, instances, cls, groups,
                                                   skip_zero_distance, neighbours, distances)
    if callback is not None:
        callback(1.0)
    return NeighbourContext(data, diff_model, instances, neighbours, distances, groups, mass,
                            search, bool(shared_ties))


def tie_margin(K):
    """Neighbours searched beyond the K-th, so that most runs of equal distances through the
    K-th end within one search: a larger margin costs memory (and the searches other than
    the brute-force one a larger heap), a row searched again costs more than its share, as a
    few rows are searched less efficiently than many (ReliefF on 1,600 x 1,000 SNPs: no row
    searched again with K = 10 or 100)."""
    return max(K // 4 + 4, 16)


#: the most places :func:`tie_places` gives for the expected run of equal distances
MAX_TIE_PLACES = 64


def tie_places(model, K, size):
    """Places searched for the instances tied with the K-th in groups of at most ``size``: the
    :func:`tie_margin`, or where every usable attribute is discrete and no value is missing
    (distances are then counts of differing attributes, few distinct values) the margin
    plus the instances of a group spread evenly over those values would put at each one (at
    most ``MAX_TIE_PLACES``): ReliefF (k = 10) on 1,600 x 20 SNPs searched 699 of the 1,600
    rows again with the margin of 16 places, none with 54."""
    usable = model.kind != UNUSABLE
    margin = tie_margin(K)
    if model.sparse or model.has_missing[usable].any() or np.any(model.kind[usable] != DISCRETE):
        return margin
    return max(margin, min(margin + size // (int(usable.sum()) + 1), MAX_TIE_PLACES))


def _search(how, instances, K, callback, ties=0):
    """(neighbours, distances, search): the K nearest (m, G, K + ties) of each group by
    (distance, index) and after them ``ties`` more: the next nearest, or (the brute-force
    search) only those tied with the K-th; by the search that suits the data (see the module
    docstring), and which search that was (one of :data:`.searches.SEARCHES`). ``how``: a
    :class:`_SearchSpec`."""
    diff_model, groups, skip_zero_distance, cls, n_groups = how
    m = instances.size
    nearest, K = K, K + ties       # (K: the places searched)
    check_memory(16 * n_groups * K * (m + min(m, SEARCH_BLOCK)),
                 f"the nearest neighbours ({K} in each of {n_groups} group(s) of {m} instances)",
                 "use a smaller k or fewer iterations")
    neighbours = np.full((m, n_groups, K), -1, dtype=np.intp)
    distances = np.full((m, n_groups, K), np.inf)
    todo, done, deferred = np.arange(m), 0.0, False
    search = None
    if not K:
        search = "none"
    elif diff_model.options.corelearn:
        _corelearn_search(diff_model, instances, groups, skip_zero_distance, neighbours,
                          distances, callback)
        todo, search = todo[:0], "CORElearn order"
    elif diff_model.sparse:
        diff_model.search(instances, _GROUP_MODES[groups], skip_zero_distance, neighbours,
                          distances, callback)
        todo, search = todo[:0], "sparse"
    elif not skip_zero_distance and _kd_tree_suits(diff_model):
        todo = _kd_tree_search(diff_model, instances, cls, groups, neighbours, distances,
                               callback)
        done, search = 0.9, "k-d tree"
    elif single_precision.suits(diff_model, m, skip_zero_distance, n_groups, K):
        if _single_precision_compiled():
            todo = single_precision.search(diff_model, instances, _GROUP_MODES[groups], K,
                                           neighbours, distances,
                                           progress_part(callback, 0.0, 0.9))
            done, search = 0.9, "single precision"
        else:
            deferred = True
    alone = search is None          # (the outputs are then as filled above)
    if alone:                       # the brute-force search (planes: packed by then anyway)
        search = "packed SNP" if diff_model.distance_planes.shape[2] else "double precision"
    notify_search(search)
    if K and todo.size:
        _brute_force_search(diff_model, instances, todo, groups, skip_zero_distance,
                            neighbours, distances, callback, done, nearest, alone)
    if deferred:
        run_in_background(compile_single_precision)
    return neighbours, distances, search


def tied_with_kth(find, K, size, neighbours, distances, only_tied=False):
    """The K nearest and every instance tied with the K-th, from ``neighbours`` and
    ``distances`` (b, G, K' >= K, each group sorted by (distance, index)) as found by ``find``
    (positions of rows, K'') -> their K'' nearest (b', G, K''), for groups of at most ``size``
    candidates; others beyond the K-th are left out (``only_tied``: there are none, as the
    brute-force search leaves none). The rows whose run of the K-th distance reaches the last
    one found are searched again with four times as many (such runs tend to be long). The
    places after the last one any group fills are cut off where they are a quarter or more."""
    while True:
        found = neighbours.shape[2]
        kth = distances[:, :, K - 1]
        open_run = (neighbours[:, :, -1] >= 0) & (distances[:, :, -1] == kth)
        if found >= size or not open_run.any():
            break
        rows = np.flatnonzero(open_run.any(axis=1))
        wider = min(4 * found, size)
        pad = ((0, 0), (0, 0), (0, wider - found))
        neighbours = np.pad(neighbours, pad, constant_values=-1)
        distances = np.pad(distances, pad, constant_values=np.inf)
        neighbours[rows], distances[rows] = find(rows, wider)
        only_tied = False           # (``find`` may be another search)
    if not only_tied:
        vectorised.clear_untied(neighbours, distances, K)
    # the tied follow the K-th: the width is the first place no group fills (bisection); the
    # last quarter is kept if any group fills it: the copy would cost more than the steps
    # after save on fewer places (places no group fills are empty places, as in any group
    # with fewer neighbours)
    width, end = K, max(K, 3 * neighbours.shape[2] // 4)
    if end == neighbours.shape[2] or (neighbours[:, :, end] >= 0).any():
        return neighbours, distances
    while width < end:
        middle = (width + end) // 2
        if (neighbours[:, :, middle] >= 0).any():
            width = middle + 1
        else:
            end = middle
    return (np.ascontiguousarray(neighbours[:, :, :width]),
            np.ascontiguousarray(distances[:, :, :width]))


def _single_precision_compiled():
    """Whether the single-precision search is to run: its kernels are compiled (in this process
    or in the disk cache) or the kernels are to run compiled (``kernel_mode("compiled")``).
    Until then the double-precision search serves, which gives the same context (the
    single-precision one is certified against it) and compiles in half the time; once the
    search is done, a background process compiles the single-precision kernels
    (:func:`compile_single_precision`)."""
    return current_mode() == "compiled" or compiled_somewhere(single_precision._search_pairs,
                                                              single_precision._certify)


def compile_single_precision():
    """Search the neighbours of every instance of numeric data of the kinds the
    single-precision search serves (2,000 instances and 100 attributes, with and without
    missing values, by the linear and the ramp diff), so that its kernels compile when the
    kernels run compiled: what a background process does after a search that had to do without
    them (:func:`orangecontrib.relief.compilation.run_in_background`), and a workload of
    ``orange-relief compile``."""
    rng = np.random.default_rng(0)
    for missing in (0.0, 0.1):
        X = rng.random((2000, 100))
        X[rng.random(X.shape) < missing] = np.nan
        data = encode(X, (X[:, 0] > 0.5).astype(float), n_classes=2)
        for numeric in ("linear", "ramp"):
            nearest_neighbours(DiffModel(data, DiffOptions(numeric=numeric)),
                               np.arange(data.n_instances), 10)


def _self_distances(model, instances):
    """D(R_i, R_i) of each sampled instance: the diffs of its missing values to themselves."""
    if not model.has_missing.any():
        return np.zeros(instances.size)
    missing = np.isnan(model.values[instances]) & (model.kind != UNUSABLE)
    if not missing.any():
        return np.zeros(instances.size)
    c = model.cls[instances]
    terms = model.missing_diffs[1][c, c, :]
    if model.options.distance == "euclidean":
        terms = terms * terms
    if model.weighted:
        terms = terms * model.distance_weights
    return np.where(missing, terms, 0.0).sum(axis=1)


def _with_copies(model, instances, cls, groups, skip_zero, neighbours, distances):
    """The weighted context (see the module docstring): each neighbour's ``mass`` (its weight),
    and R_i's other copies (mass w_i - 1) inserted in its own group by (distance, index)."""
    weights = model.data.weights
    m, G, K = neighbours.shape
    pad = np.full((m, G, 1), -1, np.intp)
    neighbours = np.concatenate([neighbours, pad], axis=2)
    distances = np.concatenate([distances, np.full((m, G, 1), np.inf)], axis=2)
    mass = np.where(neighbours >= 0, weights[np.maximum(neighbours, 0)], 0.0)
    own = cls[instances] if groups == "per-class" else np.zeros(m, np.intp)
    d_self = _self_distances(model, instances)
    copies = weights[instances] - 1.0
    rows = np.flatnonzero((copies > 0) & ~(skip_zero & (d_self == 0)))
    if rows.size:
        nb, d, g = neighbours[rows, own[rows]], distances[rows, own[rows]], own[rows]
        ds, me = d_self[rows, None], instances[rows, None]
        pos = ((nb >= 0) & ((d < ds) | ((d == ds) & (nb < me)))).sum(axis=1)[:, None]
        j = np.arange(K + 1)[None, :]
        src = np.maximum(j - (j > pos), 0)
        at = j == pos
        for array, value in ((neighbours, me), (distances, ds),
                             (mass, copies[rows, None])):
            shifted = np.take_along_axis(array[rows, g], src, axis=1)
            array[rows, g] = np.where(at, value, shifted)
    return neighbours, distances, mass


def regroup(ordered, data, k, groups):
    """The context of ``data`` (the instances of ``ordered.data`` with other class values, e.g.
    permuted) for ``k`` neighbours per group, without a new search: ``ordered`` holds every
    other instance of each sampled one sorted by (distance, index) (a ``groups="all"`` context
    with k = n - 1), and the first k of each group in that order are the group's nearest (with
    ``ordered.shared_ties`` and every one tied with the k-th). Only valid when distances do not
    depend on the class (no RELIEF-D missing values)."""
    nb, dist = ordered.neighbours[:, 0], ordered.distances[:, 0]
    n, m = data.n_instances, nb.shape[0]
    cls = data.y.astype(np.intp)
    neighbour_cls = np.where(nb >= 0, cls[np.maximum(nb, 0)], -1)
    if groups == "per-class":
        members = [neighbour_cls == g for g in range(data.n_classes)]
        size = int(np.bincount(cls).max())
    else:
        same = neighbour_cls == cls[ordered.instances][:, None]
        members = [same, (nb >= 0) & ~same]
        size = n
    K = max(0, min(k, size))
    chosen = []
    for member in members:
        rank = np.cumsum(member, axis=1, dtype=np.int32)
        take = member & (rank <= K)
        if ordered.shared_ties and K:      # and every one tied with the K-th
            at_k = member & (rank == K)
            kth = np.where(at_k.any(axis=1), dist[np.arange(m), at_k.argmax(axis=1)], np.nan)
            take |= member & (dist == kth[:, None])
        chosen.append((take, rank))
    width = max([K] + [int(take.sum(axis=1).max(initial=0)) for take, _ in chosen])
    neighbours = np.full((m, len(members), width), -1, dtype=np.intp)
    distances = np.full((m, len(members), width), np.inf)
    for g, (take, rank) in enumerate(chosen):
        rows, at = np.nonzero(take)
        neighbours[rows, g, rank[rows, at] - 1] = nb[rows, at]
        distances[rows, g, rank[rows, at] - 1] = dist[rows, at]
    return NeighbourContext(data, ordered.diff_model, ordered.instances, neighbours, distances,
                            groups, search=ordered.search, shared_ties=ordered.shared_ties)


def _brute_force_search(model, instances, todo, groups, skip_zero, neighbours, distances,
                        callback, done, nearest, alone):
    """:func:`_nearest_search` (the ``nearest`` and the instances tied with the last of them
    in the places after) for the rows ``todo`` (positions in ``instances``), in blocks of
    ``SEARCH_BLOCK`` rows and about ``SEARCH_DIFFS`` diff terms for progress and
    cancelling; ``alone``: no other search filled ``neighbours`` and ``distances`` (all -1
    and inf), which then take the results as they come."""
    work = max(model.data.n_instances * model.data.n_attributes, 1)
    block = int(np.clip(SEARCH_DIFFS // work, 8 * _chunks(), SEARCH_BLOCK))
    for start in range(0, todo.size, block):
        at = todo[start:start + block]
        if alone:                   # (todo: every row, in order)
            rows = slice(start, start + at.size)
            _search_rows(model, instances[at], model.tiles, groups, skip_zero,
                         neighbours.shape[1:], nearest, (neighbours[rows], distances[rows]))
        else:
            neighbours[at], distances[at] = _search_rows(
                model, instances[at], model.tiles, groups, skip_zero, neighbours.shape[1:],
                nearest)
        if callback is not None:
            callback(done + (1.0 - done) * (start + at.size) / todo.size)


def _search_rows(model, rows, tiles, groups, skip_zero, shape, nearest=None, out=None):
    """:func:`_nearest_search` of ``rows`` over the candidates of ``tiles``: (neighbours,
    distances), each of shape (rows.size, *shape) = (b, G, K'), the ``nearest`` (default K')
    and after them those tied with the last of them; into ``out`` (two such arrays, filled
    with -1 and inf) if given."""
    if out is None:
        out = (np.full((rows.size,) + tuple(shape), -1, dtype=np.intp),
               np.full((rows.size,) + tuple(shape), np.inf))
    found_idx, found_dist = out
    planes = model.distance_planes          # (packing launches a kernel itself)
    with parallel_launch():
        _nearest_search(np.ascontiguousarray(rows, dtype=np.intp), tiles, planes,
                        _GROUP_MODES[groups], skip_zero, _chunks(),
                        shape[-1] if nearest is None else nearest, found_idx, found_dist)
    return found_idx, found_dist


def nearest_among(diff_model, rows, candidates, k, groups="per-class", skip_zero_distance=None):
    """The k nearest instances of each group (see the module docstring) of each of ``rows``
    among the ``candidates`` only, by the brute-force search: ``candidates`` = (order,
    ranges) as :func:`.diffs.class_tiles` gives them for a subset of the instances (order:
    their indices sorted by class, ranges: tiles of one class in it). Ties by index, as
    :func:`nearest_neighbours`; a row is never its own neighbour. Returns (neighbours,
    distances) of shape (len(rows), G, k), -1 and inf where a group has fewer."""
    if skip_zero_distance is None:
        skip_zero_distance = diff_model.options.skip_zero_distance
    order, ranges = candidates
    n_groups = {"per-class": diff_model.n_cls, "pooled": 2, "all": 1}[groups]
    tiles = diff_model.tiles._replace(order=np.ascontiguousarray(order),
                                      ranges=np.ascontiguousarray(ranges))
    return _search_rows(diff_model, np.asarray(rows), tiles, groups, skip_zero_distance,
                        (n_groups, k))


def _corelearn_search(model, instances, groups, skip_zero, neighbours, distances, callback):
    """Fill the context as CORElearn does (:func:`_corelearn_rows`), in blocks of rows of
    about ``CORELEARN_BLOCK_DIFFS`` diffs for progress and cancelling."""
    kind = model.kind
    columns = np.concatenate([np.flatnonzero(kind == 0), np.flatnonzero(kind == 1)])
    n = model.data.n_instances
    block = int(min(SEARCH_BLOCK, max(1, CORELEARN_BLOCK_DIFFS // max(n * columns.size, 1))))
    tables = model._pair_args()._replace(leave_out=False)
    for start in range(0, instances.size, block):
        at = slice(start, min(start + block, instances.size))
        with parallel_launch():
            _corelearn_rows(instances[at], columns.astype(np.intp), tables,
                            _GROUP_MODES[groups], skip_zero, neighbours[at], distances[at])
        if callback is not None:
            callback(at.stop / instances.size)


@njit(cache=True, inline="always")
def _push_down(keys, vals, first, last):
    """CORElearn's heap step (pushdownDsc): move the element at 1-based position ``first`` down
    the min-heap of the first ``last`` elements, ordered by key only."""
    r = first
    while r <= last // 2:
        c2 = 2 * r
        c1 = c2 - 1
        p = r - 1
        if last == c2:
            if keys[p] > keys[c1]:
                keys[p], keys[c1] = keys[c1], keys[p]
                vals[p], vals[c1] = vals[c1], vals[p]
            return
        if keys[p] > keys[c1] and not keys[c1] > keys[c2]:
            keys[p], keys[c1] = keys[c1], keys[p]
            vals[p], vals[c1] = vals[c1], vals[p]
            r = c2
        elif keys[p] > keys[c2] and keys[c1] > keys[c2]:
            keys[p], keys[c2] = keys[c2], keys[p]
            vals[p], vals[c2] = vals[c2], vals[p]
            r = c2 + 1
        else:
            return


@njit(cache=True, nogil=True)
def _sort_k_smallest(keys, vals, edge, K):
    """CORElearn's partial heap sort (sortKsmallest) of the first ``edge`` (key, value) pairs:
    afterwards the K smallest keys lie at the end, the smallest last. Equal keys end in the
    order this heap leaves them, which is what decides CORElearn's neighbours among ties."""
    K = min(K, edge)
    for i in range(edge // 2, 0, -1):
        _push_down(keys, vals, i, edge)
    lower = max(edge - K, 1)
    i = edge
    while i > lower:
        i -= 1
        keys[i], keys[0] = keys[0], keys[i]
        vals[i], vals[0] = vals[0], vals[i]
        _push_down(keys, vals, 1, i)


@njit(cache=True, nogil=True, parallel=True)
def _corelearn_rows(rows, columns, tables, mode, skip_zero, out_idx, out_dist):
    """CORElearn's neighbours of each of ``rows``: the distance to every instance sums the diffs
    (:func:`.diffs._diff`) of ``columns`` (discrete first) in order; the candidates of a group,
    in index order, are partially heap sorted (:func:`_sort_k_smallest`). Per class (mode 0)
    the instance itself and, with ``skip_zero``, every instance at distance 0 are left out
    (ReliefF); of all instances (mode 2) the instance is sorted with the rest and then taken
    out, its place filled by the nearest (RReliefF); mode 1 takes the first nearest hit and
    miss in index order (Kira & Rendell's Relief) or, for K > 1, sorts each of the two groups."""
    cls = tables.cls
    n = cls.size
    n_groups, K = out_idx.shape[1], out_idx.shape[2]
    for q in prange(rows.size):
        r = rows[q]
        dist = np.zeros(n)
        for j in range(n):
            if j != r:
                s = 0.0
                for u in range(columns.size):
                    s += _diff(columns[u], r, j, tables)
                dist[j] = s
        keys = np.empty(n)
        vals = np.empty(n, np.intp)
        if mode == 1 and K == 1:
            for g in range(2):
                for j in range(n):
                    if j != r and (cls[j] == cls[r]) == (g == 0) and not (
                            skip_zero and dist[j] == 0.0) and dist[j] < out_dist[q, g, 0]:
                        out_dist[q, g, 0] = dist[j]
                        out_idx[q, g, 0] = j
            continue
        for g in range(n_groups):
            edge = 0
            for j in range(n):
                if mode == 0 and cls[j] != g or mode == 1 and (cls[j] == cls[r]) != (g == 0):
                    continue
                if (j == r and mode != 2) or (skip_zero and dist[j] == 0.0 and j != r):
                    continue
                keys[edge] = dist[j]
                vals[edge] = j
                edge += 1
            if mode == 2:
                _sort_k_smallest(keys, vals, edge, K + 1)
                for i in range(edge - 1, -1, -1):
                    if vals[i] == r:
                        keys[i], vals[i] = keys[edge - 1], vals[edge - 1]
                        break
                edge -= 1
            elif edge > 1:
                _sort_k_smallest(keys, vals, edge, K)
            for i in range(min(K, edge)):
                out_dist[q, g, i] = keys[edge - 1 - i]
                out_idx[q, g, i] = vals[edge - 1 - i]


def _chunks():
    """Query chunks for :func:`_nearest_search`: one per thread, since each chunk loads every
    candidate tile once (with missing values, a tile's diff rows too), whatever its size."""
    return numba.get_num_threads()


def _kd_tree_suits(model):
    n, a = model.data.X.shape
    return (n >= KD_TREE_MIN_INSTANCES and a <= KD_TREE_MAX_ATTRIBUTES and not model.weighted
            and model.options.numeric == "linear" and not model.has_missing.any()
            and np.all(model.kind == NUMERIC))


def _kd_tree_search(model, instances, cls, groups, neighbours, distances, callback):
    """Fill the context by k-d tree searches; return the positions (into ``instances``) of the
    rows whose k nearest are not certain (a near-tie at the k-th), for the brute-force search."""
    from scipy.spatial import cKDTree      # imported when used: it adds to every import
    euclid = model.options.distance == "euclidean"
    points = (model.values - model.shift) * model.inv_span
    K = neighbours.shape[2]
    row_cls = cls[instances]
    if groups == "per-class":
        searches = [(g, np.arange(instances.size), cls == g) for g in range(neighbours.shape[1])]
    elif groups == "pooled":
        searches = [(g, np.flatnonzero(row_cls == c), (cls == c) == (g == 0))
                    for c in np.unique(cls) for g in (0, 1)]
    else:
        searches = [(0, np.arange(instances.size), np.ones(cls.size, bool))]
    uncertain = np.zeros(instances.size, bool)
    for step, (g, at, member) in enumerate(searches):
        candidates = np.flatnonzero(member)
        if not at.size or not candidates.size:
            continue
        tree = cKDTree(points[candidates])
        want = min(K + 2, candidates.size)
        d, local = tree.query(points[instances[at]], k=want, p=2 if euclid else 1, workers=-1)
        d, local = d.reshape(at.size, want), local.reshape(at.size, want)
        idx = candidates[np.minimum(local, candidates.size - 1)]
        if euclid:
            d = d * d                           # the context keeps sums of squared diffs
        self_hit = idx == instances[at][:, None]
        d = np.where(self_hit, np.inf, d)
        order = np.lexsort((idx, d), axis=1)
        d, idx = np.take_along_axis(d, order, 1), np.take_along_axis(idx, order, 1)
        found = np.isfinite(d)
        kk = min(K, want)
        if want > kk:     # the row's k nearest are certain when the next is clearly farther
            kth, nxt = d[:, kk - 1], d[:, kk]
            uncertain[at] |= np.isfinite(nxt) & (nxt - kth <= 1e-9 * (1.0 + kth))
        neighbours[at, g, :kk] = np.where(found[:, :kk], idx[:, :kk], -1)
        distances[at, g, :kk] = d[:, :kk]
        if callback is not None:
            callback(0.9 * (step + 1) / len(searches))
    return np.flatnonzero(uncertain)


@kernel(vectorised.nearest_search)
@njit(cache=True, parallel=True, nogil=True)
def _nearest_search(rows, tiles, planes, mode, skip_zero, n_chunks, K, out_idx, out_dist):
    """For each query rows[q] the K nearest instances of each group (:func:`_group`), sorted by
    (distance, index), into out_idx/out_dist (b, G, K + T; prefilled with -1/inf), and in the
    T places after them the instances tied with the K-th (of lowest index, when there are
    more), without a matrix of distances: a chunk's distances to one tile of
    :meth:`.DiffModel.tiles` at a time (:func:`.diffs._any_tile_distances`: the tiled kernel,
    or mismatch counts of the bit ``planes`` of :meth:`.DiffModel.planes`) go straight into
    each query's bounded max-heap of K, which keeps the lowest indices among equal distances;
    an instance as far as the farthest kept and of a higher index, or the farthest pushed out
    by a nearer one while the next farthest is as far, goes to the T places of
    :func:`.heaps._offer_tie`, emptied when the farthest kept comes nearer. The query itself
    is never its own neighbour, nor, with ``skip_zero``, an instance at distance 0. Parallel
    over ``n_chunks`` chunks of the queries: few, since each chunk loads every tile once for
    all its queries."""
    cls, order, ranges = tiles.cls, tiles.order, tiles.ranges
    b = rows.size
    n_groups, T = out_idx.shape[1], out_idx.shape[2] - K
    n_chunks = min(b, n_chunks)
    for chunk in prange(n_chunks):
        q0 = chunk * b // n_chunks
        q1 = (chunk + 1) * b // n_chunks
        size = np.zeros((q1 - q0, n_groups), np.int64)
        tied = np.zeros((q1 - q0, n_groups), np.int64)
        far_d = np.full((q1 - q0, n_groups), np.inf)   # the farthest kept, once a heap is full
        far_i = np.full((q1 - q0, n_groups), -1, np.int64)
        # the heaps apart from the tie places, so that the heaps, read for every candidate,
        # stay as dense in cache as without tie places
        heap_d = np.full((q1 - q0, n_groups, K), np.inf)
        heap_i = np.full((q1 - q0, n_groups, K), -1, np.int64)
        buf, accs = _tile_buffers(tiles, q1 - q0)
        for tile in range(ranges.shape[0]):
            lo, width, c_tile = _any_tile_distances(accs, buf, tiles, planes, rows[q0:q1], tile)
            for q in range(q0, q1):
                r = rows[q]
                qq = q - q0
                g = _group(mode, c_tile, cls[r])
                hd, hi = heap_d[qq, g], heap_i[qq, g]
                td, ti = out_dist[q, g, K:], out_idx[q, g, K:]
                # the heap's state in locals for the loop over the tile
                n_kept, n_tied, fd, fi = size[qq, g], tied[qq, g], far_d[qq, g], far_i[qq, g]
                for j in range(width):
                    d = accs[qq, j]
                    if d > fd:
                        continue
                    c = order[lo + j]
                    if c == r or (skip_zero and d == 0.0):
                        continue
                    if d == fd and c > fi:
                        if T:
                            n_tied = _offer_tie(td, ti, n_tied, d, c)
                        continue
                    n_kept = _offer(hd, hi, n_kept, K, d, c)
                    if n_kept == K:
                        if T and fi >= 0:               # (fd, fi) was pushed out
                            n_tied = (_offer_tie(td, ti, n_tied, fd, fi) if hd[0] == fd
                                      else 0)
                        fd, fi = hd[0], hi[0]
                size[qq, g], tied[qq, g], far_d[qq, g], far_i[qq, g] = n_kept, n_tied, fd, fi
        for q in range(q0, q1):
            for g in range(n_groups):
                qq = q - q0
                _heap_sort(heap_d[qq, g], heap_i[qq, g], size[qq, g])
                out_dist[q, g, :K] = heap_d[qq, g]
                out_idx[q, g, :K] = heap_i[qq, g]
                t = tied[qq, g]
                _sort_ties(out_dist[q, g, K:], out_idx[q, g, K:], t)
                j = K + t           # the places emptied since: filled from K on, in turn
                while j < K + T and out_idx[q, g, j] >= 0:
                    out_dist[q, g, j] = np.inf
                    out_idx[q, g, j] = -1
                    j += 1


def neighbour_weights(context, weighting="equal", sigma=20.0):
    """Unnormalised influence of each neighbour in the context, shape (m, G, K), per neighbour
    place it fills; 0 where there is no neighbour. ``exp-rank`` is eq. 14 (rank 0-based: the
    places before the neighbour; equal distances share the rank of the first of them, so tied
    neighbours have equal influence); ``1/d`` and ``1/d2`` use the distance, and where a group
    has neighbours at distance 0 those share all of its influence (the limit of 1/d as
    d -> 0)."""
    return context.derived(("influences", weighting, float(sigma)),
                           lambda: _influences(context, weighting, sigma))


def _influences(context, weighting, sigma):
    """:func:`neighbour_weights`, computed."""
    d = context.distances
    found = context.found
    if weighting == "equal":
        return found.astype(float)
    elif weighting == "exp-rank":
        if context.mass is None:
            before = np.broadcast_to(np.arange(d.shape[2], dtype=float), d.shape)
        else:       # the places before a neighbour, filled by the masses of the nearer ones
            before = np.cumsum(context.mass, axis=2) - context.mass
        # the rank of the first neighbour of each run of equal distances
        rank = np.take_along_axis(before, _equal_runs(d)[0], axis=2)
        w = np.exp(-(rank / sigma) ** 2)
    elif weighting in ("1/d", "1/d2"):
        if context.diff_model.options.distance == "euclidean":
            d = np.sqrt(d)          # the context keeps sums of squared diffs for ordering
        power = 1.0 if weighting == "1/d" else 2.0
        zero = found & (d == 0)
        with np.errstate(divide="ignore"):
            w = np.where(found & (d > 0), 1.0 / np.where(d > 0, d, 1.0) ** power, 0.0)
        has_zero = zero.any(axis=2, keepdims=True)
        if context.diff_model.options.corelearn:
            # CORElearn: a neighbour at distance 0 weighs twice the nearest non-zero one
            nonzero = np.where(found & (d > 0), d, np.inf).min(axis=2, keepdims=True)
            nonzero = np.where(np.isfinite(nonzero), nonzero, 1.0)
            w = np.where(zero, 2.0 / nonzero ** power, w)
        else:
            w = np.where(has_zero, zero.astype(float), w)
    else:
        raise ValueError(f"weighting must be one of {', '.join(WEIGHTINGS)}, got {weighting!r}")
    return np.where(found, w, 0.0)


def _equal_runs(d):
    """(start, stop) (..., K): the positions of the first and after the last neighbour of each
    neighbour's run of equal distances along the last axis (sorted)."""
    K = d.shape[-1]
    first = np.ones(d.shape, bool)
    first[..., 1:] = d[..., 1:] != d[..., :-1]
    if not first.size:
        return np.zeros(d.shape, np.intp), np.zeros(d.shape, np.intp)
    first = first.ravel()            # every row starts a run: runs never cross rows
    starts = np.flatnonzero(first)
    run = np.cumsum(first) - 1
    row = (np.arange(first.size // K) * K)[:, None]      # where each row starts
    stops = np.append(starts[1:], first.size)
    return ((starts[run].reshape(-1, K) - row).reshape(d.shape),
            (stops[run].reshape(-1, K) - row).reshape(d.shape))


class NeighbourPlaces(NamedTuple):
    """The neighbour places of a context (see the module docstring): ``found`` (whether
    there is a neighbour), each neighbour's ``mass`` (places it fills, 0 = no neighbour; None:
    one per neighbour found, ``prefix``), ``distances`` (with ``shared_ties``, else None: each
    neighbour is a run of its own), all (m, G, K); ``available`` (m, G) the neighbours found.
    The runs neighbours share their places with are computed where needed (:meth:`runs`,
    :meth:`runs_through`)."""
    found: np.ndarray
    mass: np.ndarray
    distances: np.ndarray
    available: np.ndarray

    @property
    def prefix(self):
        """Whether the places are one per neighbour (no instance weights): the first k
        places are those of the first k neighbours."""
        return self.mass is None

    def masses(self):
        """(m, G, K) the places each neighbour fills."""
        return self.found.astype(float) if self.mass is None else self.mass

    def rows(self, block):
        """The places of a block of the sampled instances."""
        return NeighbourPlaces(*(a if a is None else a[block] for a in self))

    def runs(self):
        """(run_before, run_mass, run_stop), each (m, G, K): of the run each neighbour shares
        its places with (itself, or with shared ties its run of equal distances), the places
        before the run, the run's places and the position after its last neighbour."""
        found = self.found
        if self.distances is not None:
            start, stop = _equal_runs(np.where(found, self.distances, np.nan))
        else:
            start = np.broadcast_to(np.arange(found.shape[2]), found.shape)
            stop = start + 1
        if self.prefix:
            return start.astype(float), (stop - start).astype(float), stop
        after = np.cumsum(self.mass, axis=2)
        before = after - self.mass
        if self.distances is None:
            return before, self.mass, stop
        run_before = np.take_along_axis(before, start, axis=2)
        return run_before, np.take_along_axis(after, stop - 1, axis=2) - run_before, stop

    def runs_through(self, last):
        """(start, stop), each shaped as ``last`` (n, m, G): the positions of the first and
        after the last neighbour of the run through position ``last`` of each group (one
        place per neighbour: ``prefix``)."""
        if self.distances is None:
            return last, last + 1
        if last.shape[0] > 1:       # several positions: every run at once
            run_before, _, run_stop = self.runs()
            i, g = np.ogrid[:last.shape[1], :last.shape[2]]
            return run_before[i, g, last].astype(np.intp), run_stop[i, g, last]
        # the distances are sorted, the found first: the first as far and the first farther
        # (argmax: the first True, 0 if none; none is as far only without neighbours)
        d = self.distances[None]
        at = _along_last(self.distances, last)[..., None]
        # (the first as far is at or before ``last``)
        start = np.argmax(d[..., :int(last.max(initial=0)) + 1] >= at, axis=3)
        start = np.minimum(start, self.available)
        end = _along_last(self.distances, np.maximum(self.available - 1, 0)[None])[..., None]
        if np.array_equal(end, at):         # every run reaches the last neighbour found
            return start, np.broadcast_to(self.available, start.shape)
        farther = np.argmax(d > at, axis=3)
        stop = np.where(farther > 0, farther, d.shape[3])
        return start, np.minimum(stop, self.available)


def _along_last(a, positions):
    """``a[i, g, positions[..., i, g]]`` for ``a`` (m, G, K) and ``positions`` (..., m, G): one
    gather from the flat array (``np.take_along_axis`` builds an index per axis)."""
    m, G, K = a.shape
    return np.take(a.reshape(-1), np.arange(0, m * G * K, K).reshape(m, G) + positions)


def neighbour_places(context):
    """The :class:`NeighbourPlaces` of ``context``."""
    return NeighbourPlaces(context.found, context.mass,
                           context.distances if context.shared_ties else None,
                           context.available)


def first_k_places(places, k):
    """(m, G, K): the places among the first ``k`` (broadcast against (m, G, 1)) each neighbour
    fills: all of its own before the k-th place; in the run that reaches past it, its share
    (its mass over the run's) of the run's places before it, the expected number over all
    orders of the run."""
    run_before, run_mass, _ = places.runs()
    mass = places.masses()
    filled = np.clip(k - run_before, 0.0, run_mass)
    share = np.divide(mass, run_mass, out=np.zeros_like(mass), where=run_mass > 0)
    return filled * share


def first_k_weights(weights, places, k):
    """The influences ``weights`` (..., G, K) of the neighbours among the first k places
    (:func:`first_k_places`) of each group, counted once per place, normalised to sum 1
    (eq. 13); 0 beyond and in a group without neighbours."""
    wk = weights * first_k_places(places, k)
    total = wk.sum(axis=-1, keepdims=True)
    return np.divide(wk, total, out=np.zeros_like(wk), where=total > 0)
