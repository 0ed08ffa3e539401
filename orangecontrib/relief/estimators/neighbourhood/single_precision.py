"""The brute-force neighbour search in single precision, each pair once, certified in double.

The Relief family's context (:mod:`.neighbours`) needs, for each sampled instance, its K
nearest instances of each group. Brute force costs N x m distances of A diff terms; this search
makes them cheap:

* **float32 panels.** The instances are laid out tile by tile (``WIDTH`` instances of one class
  a tile, sorted by class as :attr:`.diffs.DiffModel.tiles` sorts them) as ``panels[tile, row,
  j]`` in float32: one row per usable attribute, numeric before discrete (the value mapped
  onto [0, 1]: ``(x - min) / (max - min)``, times the ramp's slope for the ramp diff; a
  discrete code as it is; 0 where missing), so the kernel sums them four at a time for two
  query instances at once in loops numba vectorises (8 float32 lanes); the linear Manhattan
  diffs as ``sum c + sum x - 2 sum min(c, x)`` (:func:`_block`).
* **missing values as corrections.** With a missing value taken as 0 the kernel adds, for a
  pair with one value missing, the term of the known value against 0 instead of the diff
  against a missing value (RELIEF-B/D, Kononenko 1994 §3), and for two missing values 0. For
  each attribute with missing values the panels hold one more row per class c: instance j's
  *correction* toward an instance of class c, the diff of its value to a missing value of
  class c minus the kernel's term of its value against 0, or, its value missing, half the
  diff of two missing values of the two classes (:func:`_fill`). The distance of i and j is
  the kernel's sum plus j's corrections toward i's class on the attributes i misses and i's
  toward j's class on those j misses (:func:`_corrections`, lists of each instance's missing
  values): work in proportion to the missing values rather than a select per cell.
* **each pair once.** When the sampled instances are all instances (``iterations`` None),
  d(I_i, I_j) is computed once for the tile pair (I, J) and offered both to I_i's neighbours
  and to I_j's; the tile pairs are scheduled in rounds of a round-robin tournament, so that the
  threads of a round never share a tile (their neighbour heaps are their own without locks).
  The diff is symmetric wherever this path is taken (RELIEF-D's both-missing rule
  ``both_missing="both"``, not CORElearn's "current").
* **certified.** Each group keeps ``K + EXTRA`` candidates by float32 distance; their double
  precision distances are then computed with the same terms summed in the same order as the
  float64 kernel (:func:`.diffs._tile_distances`) sums them (:func:`_pair_distances`), and the
  K nearest by (distance, index) among them are the K nearest of the whole group whenever the
  K-th lies below the smallest float32 distance left out by more than the rounding bound
  :func:`error_bound` — a worst-case bound of the float32 rounding (Higham, *Accuracy and
  Stability of Numerical Algorithms*, §4.2). A row that is not certified (a near-tie at the
  K-th) is searched again in double precision. The context is therefore the one the
  double-precision search gives, to the last bit: neighbours, order and distances.

Used by :func:`.neighbours.nearest_neighbours` for dense data when the search is large enough
for the panels to pay (``MIN_WORK`` diff terms), not with CORElearn's arithmetic (its neighbour
order is its own), ``skip_zero_distance`` (a float32 zero is no double zero), bit planes (SNP
data has a faster search), RELIEF-D's asymmetric "current" both-missing rule with missing
values or more than ``MAX_ATTRIBUTES`` attributes, and when the panels fit in memory.
"""
from collections import namedtuple

import numba
import numpy as np
from numba import njit, prange

from ..base import available_memory, progress_part, parallel_launch
from .diffs import ROW_PAD, _code, _g, _load_tile, class_tiles
from .kinds import DISCRETE, UNUSABLE
from .heaps import _group, _heap_sort, _offer, _sift_down

__all__ = ["suits", "search", "error_bound", "Panels", "PanelArrays", "KernelOptions"]

#: candidates kept beyond K in each group, so that a row is certified unless its K-th and
#: (K + EXTRA)-th candidates are within the rounding bound
EXTRA = 2
#: the panels are used from this many diff terms (queries x candidates x attributes): below it
#: the double-precision search is as fast and needs no kernels of its own compiled
MIN_WORK = 2 * 10 ** 8
#: instances of one class per panel tile
WIDTH = 256
#: distances compared with a heap's farthest at once before any is offered to it
LANES = 16
#: rows of a panel tile summed while they stay in the core's cache
ROW_CHUNK = 128
#: attributes with missing values whose corrections are summed at a time (:func:`_corrections`):
#: their rows stay in the core's cache (fewer, or fewer instances at a time, measured slower)
CORRECTION_ROWS = 128
#: attributes at most (a tile pair's distances take about WIDTH^2 x attributes / 10^10 s,
#: a cancel waits for them)
MAX_ATTRIBUTES = 50_000
#: attributes of a tile transposed at a time while filling the panels
FILL_COLUMNS = 16
#: panel cells filled between two progress reports
FILL_CELLS = 2 ** 24
#: diff terms of one call of the kernel at most (a cancel between calls takes effect promptly)
CALL_DIFFS = 2 ** 29
_U32 = 2.0 ** -24
_U64 = 2.0 ** -53


def suits(model, n_queries, skip_zero, n_groups=1, K=10):
    """Whether :func:`search` serves this diff model and search of the K nearest in each of
    ``n_groups`` groups (see the module docstring)."""
    o = model.options
    a = model.data.n_attributes
    work = n_queries * model.data.n_instances * a
    if (model.sparse or o.corelearn or skip_zero or work < MIN_WORK or a > MAX_ATTRIBUTES
            or model.planes.shape[2] or model.weighted or not np.any(model.kind != UNUSABLE)):
        return False
    if model.has_missing.any() and o.missing == "D" and o.both_missing != "both":
        return False
    panels = 4 * (Panels.n_rows(model) + int(model.has_missing.sum())) * (
        model.data.n_instances + n_queries + 2 * model.n_cls * WIDTH)    # (+ missing lists)
    heaps = 12 * n_queries * n_groups * (K + EXTRA)
    available = available_memory()
    return available is None or 2 * (panels + heaps) < available


class Panels:
    """The float32 panels of a set of instances (see the module docstring): ``values[tile, row,
    j]`` for the instances ``order[ranges[tile, 0] + j]`` of class ``ranges[tile, 2]``. Rows:
    the values of each numeric, then each discrete usable attribute (a missing value as 0), then
    for each class c the corrections of the attributes with missing values (:attr:`partial`)
    toward an instance of class c (:func:`_fill`). The attributes an instance misses are listed
    at ``miss_idx[miss_ptr[p]:miss_ptr[p + 1]]`` (p its position in ``order``) as indices into
    :attr:`partial`."""

    def __init__(self, model, instances, callback=None):
        positions, self.ranges = class_tiles(model.cls[instances], model.n_cls, WIDTH)
        self.order = np.asarray(instances, dtype=np.intp)[positions]
        usable = model.kind != UNUSABLE
        discrete = model.kind == DISCRETE
        columns = np.concatenate([np.flatnonzero(usable & ~discrete),
                                  np.flatnonzero(usable & discrete)]).astype(np.intp)
        self.n_numeric = int(np.sum(usable & ~discrete))
        self.n_discrete = int(np.sum(usable & discrete))
        #: the rows of values of the attributes with missing values
        self.partial = np.flatnonzero(model.has_missing[columns]).astype(np.intp)
        n_values, n_partial = columns.size, self.partial.size
        n_rows = self.n_rows(model)
        first_row = np.concatenate([[0], np.cumsum(np.where(model.has_missing[columns],
                                                            1 + model.n_cls, 1))]).astype(np.intp)
        index = np.full(n_values, -1, np.intp)
        index[self.partial] = np.arange(n_partial)
        fill = model.tiles._replace(order=self.order, ranges=self.ranges, columns=columns,
                                    first_row=first_row,
                                    groups=np.append(np.arange(0, n_values, FILL_COLUMNS),
                                                     n_values).astype(np.intp))
        self.values = np.zeros((self.ranges.shape[0], n_rows, WIDTH), np.float32)
        factor = np.where(np.arange(n_values) < self.n_numeric, model._inv_w, 1.0)
        options = kernel_options(model)
        step = max(1, FILL_CELLS // (n_rows * WIDTH))
        counts = np.zeros(self.order.size + 1, np.intp)
        for t0 in range(0, self.ranges.shape[0], step):
            with parallel_launch():
                _fill(self.values, fill, factor, index, options, t0,
                      min(t0 + step, len(self.ranges)), counts)
            if callback is not None:
                callback(min(t0 + step, len(self.ranges)) / len(self.ranges))
        self.miss_ptr = np.cumsum(counts).astype(np.intp)
        self.miss_idx = np.empty(self.miss_ptr[-1], np.int32)
        if self.miss_idx.size:
            with parallel_launch():
                _list_missing(fill, self.partial, self.miss_ptr, self.miss_idx)
        #: each instance's sum of its values of the numeric attributes (as the float32 values
        #: they are, summed in double): see :func:`_block`
        self.sums = self.values[:, :self.n_numeric].sum(axis=1, dtype=float).astype(np.float32)

    @staticmethod
    def n_rows(model):
        usable = model.kind != UNUSABLE
        return int(np.sum(usable) + model.n_cls * np.sum(model.has_missing))

    @property
    def arrays(self):
        """What the kernels read (:class:`PanelArrays`)."""
        return PanelArrays(self.values, self.sums, self.order, self.ranges, self.miss_ptr,
                           self.miss_idx, self.n_numeric, self.n_discrete, self.partial.size)


#: what the float32 kernels read of a set of :class:`Panels`
PanelArrays = namedtuple("PanelArrays", "values sums order ranges miss_ptr miss_idx "
                                        "n_numeric n_discrete n_partial")
#: the float32 kernel's options (:func:`kernel_options`): the ramp (Manhattan or Euclidean)
#: between lo and hi, the Euclidean distance
KernelOptions = namedtuple("KernelOptions", "ramp euclid lo hi")
#: the candidates kept for each query position q and group g: a max-heap of ``size[q, g]``
#: (distance, index) pairs, and the farthest kept (``far_d[g, q]``, ``far_i[g, q]``)
Heaps = namedtuple("Heaps", "dist index size far_d far_i")


@njit(cache=True, nogil=True)
def _missing_term(x, discrete, options):
    """The exact value of the float32 kernel's term (:func:`_term`) of value x against 0, in
    double: what the kernel adds for a pair in which the other value is missing (0 in the
    panels)."""
    if discrete:
        return 1.0 if x != 0.0 else 0.0
    d = abs(np.float64(x))
    if options.ramp:
        d = min(max(d, np.float64(options.lo)), np.float64(options.hi)) - np.float64(options.lo)
    return d * d if options.euclid else d


@njit(cache=True, nogil=True, parallel=True)
def _fill(values, tiles, factor, index, options, t0, t1, counts):
    """values[tile] for the tiles t0..t1 (see :class:`Panels`): the centred, scaled values of
    :func:`.diffs._load_tile` times factor[u] in float32, a missing value 0; for an attribute
    with missing values (``index[u]`` its number p among them) and each class c the
    correction of instance j toward an instance I of class c: with j's value known, the diff
    of j's value to a missing value of I minus the kernel's term of j's value against 0
    (:func:`_missing_term`); with it missing, half the diff of two missing values (the other
    half comes from I's side). ``counts[1 + position]`` = the instance's missing values."""
    n_cls = tiles.both.shape[0]
    groups, first_row = tiles.groups, tiles.first_row
    n_values = groups[-1]
    n_partial = values.shape[1] - n_values
    n_partial = n_partial // n_cls if n_cls else 0
    for k in prange(t1 - t0):
        tile = t0 + k
        buf = np.empty((FILL_COLUMNS * (1 + n_cls), WIDTH + ROW_PAD))
        terms = np.empty(WIDTH)
        for group in range(groups.size - 1):       # a few columns at a time: buf in cache
            lo, width, _ = _load_tile(buf, tiles, tile, group, True)
            base = first_row[groups[group]]
            for u in range(groups[group], groups[group + 1]):
                row = first_row[u] - base
                p, f = index[u], factor[u]
                loaded, out = buf[row], values[tile, u]
                for j in range(width):          # selects, not branches: loops that vectorise
                    v = loaded[j]
                    out[j] = np.float32(v * f) if v == v else np.float32(0.0)
                if p < 0:
                    continue
                discrete = tiles.discrete[tiles.columns[u]]
                for j in range(width):
                    terms[j] = _missing_term(out[j], discrete, options)
                    counts[1 + lo + j] += 0 if loaded[j] == loaded[j] else 1
                for c in range(n_cls):
                    diffs = buf[row + 1 + c]
                    corrections = values[tile, n_values + c * n_partial + p]
                    for j in range(width):
                        known, half = np.float32(diffs[j] - terms[j]), np.float32(0.5 * diffs[j])
                        corrections[j] = known if loaded[j] == loaded[j] else half


@njit(cache=True, nogil=True, parallel=True)
def _list_missing(tiles, partial, miss_ptr, miss_idx):
    """miss_idx[miss_ptr[q]:miss_ptr[q + 1]] = the numbers p of the attributes (columns
    ``tiles.columns[partial[p]]``) whose value the instance at position q of ``tiles.order``
    misses."""
    X, order, columns = tiles.values, tiles.order, tiles.columns
    for q in prange(order.size):
        i = order[q]
        k = miss_ptr[q]
        for p in range(partial.size):
            x = X[i, columns[partial[p]]]
            if x != x:
                miss_idx[k] = p
                k += 1


def error_bound(model, panels):
    """(E0, gamma): ``abs(d32 - d64) <= E0 + gamma * (d32 + E0)`` for every pair, d32 the
    distance the float32 kernel computes and d64 the double-precision kernel's
    (:func:`_pair_distances`).

    E0 sums the worst error of each attribute's term (u = 2^-24; the kernel's values of
    magnitude at most M, the double kernel's at most M64 before centring): a numeric term
    ``abs(a - b)`` errs by at most 4.01 u M in float32 (two rounded values, a rounded
    difference) and 3 u64 M64 w in double (w the ramp's slope, :func:`kernel_options`); the
    ramp adds the double kernel's rounding of its two steps, the rounding of lo and hi and of
    the ``- lo``, the clamp being exact; the Euclidean square multiplies by twice the largest
    term; a discrete term is exact. The n linear Manhattan terms summed as sum c + sum x - 2
    sum min(c, x) (:func:`_block`) err by at most S (2 u for the rounded values, 2 gamma for
    the sum of minima, 6 u for the rounded sums and the last two steps; S the largest sum of
    an instance's values) and n 3 u64 M64 in double; the n ramp terms summed before their n lo
    is subtracted add (gamma + 2 u) hi each, gamma that of the numeric sum, summed in chunks of
    ``ROW_CHUNK``. A pair with a missing value: the kernel's term against 0 plus the
    corrections (:func:`_fill`) is the diff against a missing value up to the rounding of the
    corrections to float32 (u each) and of their sums (:func:`_corrections`): at most L
    corrections of magnitude at most P on each side (L the most values an instance misses),
    summed four at a time in chunks of ``CORRECTION_ROWS``, add (2 L P)(gamma_h + 2 u). gamma bounds
    the accumulation: a float32 sum whose terms pass through h additions errs by at most
    gamma_h = h u / (1 - h u) times the sum of the terms, and the double one by gamma_A in
    u64."""
    o = model.options
    u = _U32
    n_num, n_disc = panels.n_numeric, panels.n_discrete
    w = model._inv_w
    M, S, P = w, 0.0, 0.0
    n_values = n_num + n_disc
    for tile in panels.values:          # a tile at a time: no copy of the panels
        values = np.abs(tile[:n_num])
        if values.size:
            M = max(M, float(values.max()))
        if n_num:
            S = max(S, float(values.sum(axis=0, dtype=float).max()))
        if tile.shape[0] > n_values:
            P = max(P, float(np.abs(tile[n_values:]).max()))
    kind, usable = model.kind, model.kind != UNUSABLE
    numeric = usable & (kind != DISCRETE)
    with np.errstate(invalid="ignore"):
        raw = np.where(numeric, (np.abs(model.shift) + 1.0 / np.where(model.inv_span > 0,
                                                                        model.inv_span, 1.0))
                       * model.inv_span, 0.0)
    M64 = max(1.0, float(np.nanmax(raw)) if raw.size else 1.0)
    # the numeric attributes: chunks of ROW_CHUNK summed apart, then added up; each value of
    # the sum of the chunk passes at most h additions within it
    h, chunks = min(n_num, ROW_CHUNK) // 4 + 5, -(-n_num // ROW_CHUNK) + 1
    gamma_numeric = (h * u / (1.0 - h * u) + chunks * u / (1.0 - chunks * u)) * (1.0 + h * u)
    delta = 4.01 * u * M + 3.0 * _U64 * M64 * w
    big = 2.0 * M
    E_numeric = None
    if o.numeric == "ramp":
        hi = float(kernel_options(model).hi)
        delta += 8.0 * _U64 * (2.0 * M64 + 1.0) * w + 2.0 * u * (hi + 1.0)
        E_numeric = n_num * (delta + (gamma_numeric + 2.0 * u) * hi)
        delta += u
        big = 1.0
    elif o.distance == "manhattan":
        E_numeric = S * (2.0 * gamma_numeric + 8.0 * u) + n_num * 3.0 * _U64 * M64
    if o.distance == "euclidean":
        delta = 2.0 * big * delta + delta * delta + 2.0 * u * big * big
        E_numeric = None
    E0 = E_numeric if E_numeric is not None else float(np.where(numeric, delta, 0.0).sum())
    L = int(np.diff(panels.miss_ptr).max()) if panels.order.size else 0
    if L:
        h = L // 4 + 3 * (-(-L // CORRECTION_ROWS)) + 2
        E0 += 2.0 * L * P * (h * u / (1.0 - h * u) + 2.0 * u)
    # additions a lane's sum passes through after the numeric section: a quad's two levels,
    # then one per quad and up to three single terms in each chunk of discrete attributes,
    # and the corrections
    adds = n_disc // 4 + 3 * (-(-n_disc // ROW_CHUNK)) + 9
    gamma32 = adds * u / (1.0 - adds * u)
    if E_numeric is None:         # (Euclidean) the numeric section's sum of terms, relative
        gamma32 += gamma_numeric
    A = int(usable.sum())
    gamma64 = A * _U64 / (1.0 - A * _U64)
    exact = E0 == 0.0 and not model.has_missing.any() and A < 2 ** 24
    if exact:         # integer sums of 0/1 terms below 2^24: exact in float32
        return 0.0, 0.0
    return 1.0001 * E0, 1.0001 * (gamma32 + gamma64) * (1.0 + 2.0 * gamma32)


def kernel_options(model):
    """The :class:`KernelOptions` of the float32 kernel (lo, hi float32). The panels hold the
    numeric values times the ramp's slope w = 1 / (t_different - t_equal) (1 for the linear
    diff), so that the ramp is ``clamp(abs(c - x) - lo, 0, 1) = min(max(abs(c - x), lo), hi)
    - lo`` with lo = t_equal w and hi = t_different w: no multiplication per term."""
    o = model.options
    w = model._inv_w
    return KernelOptions(o.numeric == "ramp", o.distance == "euclidean",
                         np.float32(o.t_equal * w), np.float32(o.t_different * w))


def search(model, instances, mode, K, neighbours, distances, callback=None):
    """Fill ``neighbours``/``distances`` (m, G, K) with the context of ``instances`` (see
    :mod:`.neighbours`) by the single-precision search; return the positions (into
    ``instances``) of the rows that were not certified, for the double-precision search."""
    instances = np.asarray(instances, dtype=np.intp)
    n, m = model.data.n_instances, instances.size
    symmetric = m == n and np.array_equal(np.sort(instances), np.arange(n))
    cand = Panels(model, np.arange(n), progress_part(callback, 0.0, 0.02))
    query = cand if symmetric else Panels(model, instances, progress_part(callback, 0.02, 0.04))
    G = neighbours.shape[1]
    Kx = K + EXTRA
    n_q = query.order.size
    heaps = Heaps(np.full((n_q, G, Kx), np.inf, np.float32), np.full((n_q, G, Kx), -1, np.int64),
                  np.zeros((n_q, G), np.int64), np.full((G, n_q), np.inf, np.float32),
                  np.full((G, n_q), -1, np.int64))
    rounds = _schedule(cand.ranges.shape[0], query.ranges.shape[0], symmetric)
    threads = numba.get_num_threads()
    per_call = max(threads, CALL_DIFFS // (WIDTH * WIDTH * max(1, cand.values.shape[1])))
    accs = np.empty((threads, 3, WIDTH, WIDTH), np.float32)
    options = kernel_options(model)
    calls = [rounds[r][lo:lo + per_call] for r in range(len(rounds))
             for lo in range(0, len(rounds[r]), per_call)]
    report = progress_part(callback, 0.04, 0.95)
    Q, C = query.arrays, cand.arrays
    for step, pairs in enumerate(calls):
        with parallel_launch():
            _search_pairs(pairs, Q, C, options, mode, symmetric, threads, accs, heaps)
        if report is not None:
            report((step + 1) / len(calls))
    E0, gamma = error_bound(model, cand)
    position = np.empty(n, np.intp)
    position[query.order] = np.arange(n_q)
    counts = np.bincount(model.cls, minlength=model.n_cls).astype(np.int64)
    certified = np.ones(m, np.bool_)
    report = progress_part(callback, 0.95, 1.0)
    rows = max(threads, CALL_DIFFS // 16 // (G * Kx * max(1, model.data.n_attributes)))
    for q0 in range(0, m, rows):
        at = slice(q0, min(q0 + rows, m))
        with parallel_launch():
            _certify(instances[at], position[instances[at]], model.tiles, heaps, counts, mode,
                     K, E0, gamma, threads, neighbours[at], distances[at], certified[at])
        if report is not None:
            report(at.stop / m)
    return np.flatnonzero(~certified)


def _schedule(n_cand, n_query, symmetric):
    """Rounds of tile pairs (query tile, candidate tile) in which no two pairs share a query
    tile, nor (``symmetric``: every pair once, I <= J) any tile at all: a round-robin
    tournament (the circle method) and a last round of the diagonal pairs."""
    if not symmetric:
        return [np.array([(q, (q + r) % n_cand) for q in range(n_query)], np.intp)
                for r in range(n_cand)]
    players = list(range(n_cand)) + ([-1] if n_cand % 2 else [])
    p, rounds = len(players), []
    for _ in range(p - 1):
        pairs = [(min(a, b), max(a, b)) for a, b in zip(players[:p // 2], players[::-1])
                 if a >= 0 and b >= 0]
        if pairs:
            rounds.append(np.array(pairs, np.intp).reshape(-1, 2))
        players = [players[0], players[-1]] + players[1:-1]
    rounds.append(np.array([(t, t) for t in range(n_cand)], np.intp).reshape(-1, 2))
    return rounds


@njit(cache=True, nogil=True)
def _term(c, x, discrete, ramp, euclid, lo, hi, least=False, deferred=False):
    """The float32 distance term of candidate value c and query value x (:func:`.diffs._g`;
    the ramp on values times its slope, :func:`kernel_options`), or with ``least`` min(c, x)
    (see :func:`_block`); with ``deferred`` the ramp's ``- lo`` is left to the caller."""
    if least:
        return min(c, x)
    if discrete:
        return np.float32(1.0) if c != x else np.float32(0.0)
    d = abs(c - x)
    if ramp:
        d = min(max(d, lo), hi)
        if not deferred:
            d = d - lo
    return d * d if euclid else d


@njit(cache=True, nogil=True)
def _add_rows(acc, PI, PJ, wI, wJ, r0, r1, discrete, ramp, euclid, lo, hi, least, deferred):
    """acc[i, j] += the terms of rows r0..r1 (attributes without missing values) for the query
    instances i < wI (two at a time: a panel has room for an even count) and the candidates
    j < wJ, four rows at a time."""
    for i in range(0, wI, 2):
        a = acc[i]
        b = acc[i + 1]
        r = r0
        while r + 4 <= r1:
            x0, x1, x2, x3 = PI[r, i], PI[r + 1, i], PI[r + 2, i], PI[r + 3, i]
            y0, y1, y2, y3 = PI[r, i + 1], PI[r + 1, i + 1], PI[r + 2, i + 1], PI[r + 3, i + 1]
            c0, c1, c2, c3 = PJ[r], PJ[r + 1], PJ[r + 2], PJ[r + 3]
            for j in range(wJ):
                a[j] += ((_term(c0[j], x0, discrete, ramp, euclid, lo, hi, least, deferred)
                          + _term(c1[j], x1, discrete, ramp, euclid, lo, hi, least, deferred))
                         + (_term(c2[j], x2, discrete, ramp, euclid, lo, hi, least, deferred)
                            + _term(c3[j], x3, discrete, ramp, euclid, lo, hi, least,
                                    deferred)))
                b[j] += ((_term(c0[j], y0, discrete, ramp, euclid, lo, hi, least, deferred)
                          + _term(c1[j], y1, discrete, ramp, euclid, lo, hi, least, deferred))
                         + (_term(c2[j], y2, discrete, ramp, euclid, lo, hi, least, deferred)
                            + _term(c3[j], y3, discrete, ramp, euclid, lo, hi, least,
                                    deferred)))
            r += 4
        while r < r1:
            x0, y0, c0 = PI[r, i], PI[r, i + 1], PJ[r]
            for j in range(wJ):
                a[j] += _term(c0[j], x0, discrete, ramp, euclid, lo, hi, least, deferred)
                b[j] += _term(c0[j], y0, discrete, ramp, euclid, lo, hi, least, deferred)
            r += 1


@njit(cache=True, nogil=True)
def _add_sections(acc, PI, PJ, wI, wJ, r0, r1, discrete, options):
    """:func:`_add_rows` with the options as constants (numba compiles one branch-free loop
    per combination); the linear Manhattan terms as min(c, x) and the ramp's (Manhattan)
    without their ``- lo`` (see :func:`_block`)."""
    lo, hi = options.lo, options.hi
    if discrete:
        _add_rows(acc, PI, PJ, wI, wJ, r0, r1, True, False, False, lo, hi, False, False)
    elif options.ramp and options.euclid:
        _add_rows(acc, PI, PJ, wI, wJ, r0, r1, False, True, True, lo, hi, False, False)
    elif options.ramp:
        _add_rows(acc, PI, PJ, wI, wJ, r0, r1, False, True, False, lo, hi, False, True)
    elif options.euclid:
        _add_rows(acc, PI, PJ, wI, wJ, r0, r1, False, False, True, lo, hi, False, False)
    else:
        _add_rows(acc, PI, PJ, wI, wJ, r0, r1, False, False, False, lo, hi, True, False)


@njit(cache=True, nogil=True)
def _block(acc, part, PI, PJ, SI, SJ, wI, wJ, n_num, n_disc, options):
    """acc[i, j] = the float32 distance between query i of panel tile PI and candidate j of
    PJ over their ``n_num`` numeric and ``n_disc`` discrete rows of values (a missing value
    as 0: :func:`_corrections` adds the rest), summed in chunks of ``ROW_CHUNK`` rows that
    stay in cache (each numeric chunk summed in ``part`` first). The linear Manhattan diffs of
    the numeric attributes are summed as sum abs(c - x) = sum c + sum x - 2 sum min(c, x): a
    minimum and an addition per term instead of a difference, an absolute value and an
    addition (``SI``, ``SJ``: the sums of the instances' values, :attr:`Panels.sums`); the
    ramp's terms (Manhattan) as min(max(abs(c - x), lo), hi), their ``- lo`` subtracted once
    for all."""
    ramp, euclid, lo = options.ramp, options.euclid, options.lo
    for i in range(wI + wI % 2):
        for j in range(wJ):
            acc[i, j] = 0.0
    for r in range(0, n_num, ROW_CHUNK):       # each chunk's sum apart: a shorter chain of
        into = acc if r == 0 else part          # roundings (see error_bound)
        if r:
            for i in range(wI + wI % 2):
                for j in range(wJ):
                    part[i, j] = 0.0
        _add_sections(into, PI, PJ, wI, wJ, r, min(r + ROW_CHUNK, n_num), False, options)
        if r:
            for i in range(wI):
                a, b = acc[i], part[i]
                for j in range(wJ):
                    a[j] += b[j]
    if n_num and not ramp and not euclid:
        for i in range(wI):
            a = acc[i]
            s = SI[i]
            for j in range(wJ):
                a[j] = (s + SJ[j]) - np.float32(2.0) * a[j]
    elif n_num and ramp and not euclid:
        shift = np.float32(n_num * np.float64(lo))
        for i in range(wI):
            a = acc[i]
            for j in range(wJ):
                a[j] -= shift
    for r in range(n_num, n_num + n_disc, ROW_CHUNK):
        _add_sections(acc, PI, PJ, wI, wJ, r, min(r + ROW_CHUNK, n_num + n_disc), True,
                      options)


@njit(cache=True, nogil=True)
def _sum_listed(out, P, base, idx, starts, stops, width, n):
    """out[i, :n] += the rows base + idx[k] of P (starts[i] <= k < stops[i]), for i < width,
    four at a time."""
    for i in range(width):
        k, k1 = starts[i], stops[i]
        o = out[i, :n]
        while k + 4 <= k1:
            e0, e1 = P[base + idx[k], :n], P[base + idx[k + 1], :n]
            e2, e3 = P[base + idx[k + 2], :n], P[base + idx[k + 3], :n]
            for j in range(o.size):     # from 0: no negative index to wrap, vectorised
                o[j] += (e0[j] + e1[j]) + (e2[j] + e3[j])
            k += 4
        while k < k1:
            e0 = P[base + idx[k], :n]
            for j in range(o.size):
                o[j] += e0[j]
            k += 1


@njit(cache=True, nogil=True)
def _advance(starts, stops, idx, ptr, lo, width, r1):
    """starts[i] = stops[i]; stops[i] moved to the first of the listed indices
    ptr[lo + i]..ptr[lo + i + 1] at or past r1, for i < width."""
    for i in range(width):
        starts[i] = stops[i]
        k, k1 = stops[i], ptr[lo + i + 1]
        while k < k1 and idx[k] < r1:
            k += 1
        stops[i] = k


@njit(cache=True, nogil=True)
def _corrections(acc, part, tpart, Q, C, I, J, cursors):
    """acc[i, j] += the corrections (:func:`_fill`) of the attributes that query i of tile I
    of ``Q`` or candidate j of tile J of ``C`` misses: for each of i's, j's correction toward
    i's class (summed in ``part``), and for each of j's, i's toward j's class (summed in
    ``tpart`` transposed), ``CORRECTION_ROWS`` attributes at a time."""
    loI, wI, cI = Q.ranges[I, 0], Q.ranges[I, 1] - Q.ranges[I, 0], Q.ranges[I, 2]
    loJ, wJ, cJ = C.ranges[J, 0], C.ranges[J, 1] - C.ranges[J, 0], C.ranges[J, 2]
    n_values, n_p = C.n_numeric + C.n_discrete, C.n_partial
    PI, PJ = Q.values[I], C.values[J]
    startsI, stopsI, startsJ, stopsJ = cursors[0], cursors[1], cursors[2], cursors[3]
    for i in range(wI):
        stopsI[i] = Q.miss_ptr[loI + i]
        for j in range(wJ):
            part[i, j] = 0.0
    for j in range(wJ):
        stopsJ[j] = C.miss_ptr[loJ + j]
        for i in range(wI):
            tpart[j, i] = 0.0
    for r in range(0, n_p, CORRECTION_ROWS):
        _advance(startsI, stopsI, Q.miss_idx, Q.miss_ptr, loI, wI, r + CORRECTION_ROWS)
        _sum_listed(part, PJ, n_values + cI * n_p, Q.miss_idx, startsI, stopsI, wI, wJ)
        _advance(startsJ, stopsJ, C.miss_idx, C.miss_ptr, loJ, wJ, r + CORRECTION_ROWS)
        _sum_listed(tpart, PI, n_values + cJ * n_p, C.miss_idx, startsJ, stopsJ, wJ, wI)
    for i in range(wI):
        a, b = acc[i], part[i]
        for j in range(wJ):
            a[j] += b[j] + tpart[j, i]


@njit(cache=True, nogil=True)
def _pair_block(acc, part, tpart, cursors, Q, C, I, J, options):
    """acc[i, j] = the float32 distance between query i of tile I of panels ``Q`` and
    candidate j of tile J of panels ``C`` (:class:`PanelArrays`): :func:`_block`, then
    :func:`_corrections` where values are missing."""
    wI, wJ = Q.ranges[I, 1] - Q.ranges[I, 0], C.ranges[J, 1] - C.ranges[J, 0]
    _block(acc, part, Q.values[I], C.values[J], Q.sums[I], C.sums[J], wI, wJ, C.n_numeric,
           C.n_discrete, options)
    if C.n_partial:
        _corrections(acc, part, tpart, Q, C, I, J, cursors)


@njit(cache=True, nogil=True)
def _offer_row(acc_row, width, q, g, self_index, order, lo, heaps):
    """Offer the candidates order[lo + j] at distances acc_row[j] to query position q's heap of
    group g (by (distance, index); never the query itself). Each ``LANES`` candidates are first
    compared with the farthest kept at once (most have no chance)."""
    heap_d, heap_i, size = heaps.dist, heaps.index, heaps.size
    far_d, far_i = heaps.far_d, heaps.far_i
    K = heap_d.shape[2]
    for j0 in range(0, width, LANES):
        j1 = min(j0 + LANES, width)
        limit = far_d[g, q]
        chunk = acc_row[j0:j1]
        hit = False
        for j in range(chunk.size):          # from 0: no negative index to wrap, vectorised
            hit |= chunk[j] <= limit
        if not hit:
            continue
        for j in range(j0, j1):
            d = acc_row[j]
            if d > far_d[g, q]:
                continue
            c = order[lo + j]
            if c == self_index or (d == far_d[g, q] and c > far_i[g, q]):
                continue
            size[q, g] = _offer(heap_d[q, g], heap_i[q, g], size[q, g], K, d, c)
            if size[q, g] == K:
                far_d[g, q] = heap_d[q, g, 0]
                far_i[g, q] = heap_i[q, g, 0]


@njit(cache=True, nogil=True)
def _offer_column(acc_row, width, query, q0, g, heaps):
    """Offer instance ``query`` at distances acc_row[j] to the heaps of group g of the
    candidate positions q0 + j (the other half of a symmetric tile pair), ``LANES`` compared
    at once first."""
    heap_d, heap_i, size = heaps.dist, heaps.index, heaps.size
    far_d, far_i = heaps.far_d, heaps.far_i
    K = heap_d.shape[2]
    far = far_d[g]
    for j0 in range(0, width, LANES):
        j1 = min(j0 + LANES, width)
        chunk, limits = acc_row[j0:j1], far[q0 + j0:q0 + j1]
        hit = False
        for j in range(chunk.size):
            hit |= chunk[j] <= limits[j]
        if not hit:
            continue
        for j in range(j0, j1):
            d = acc_row[j]
            q = q0 + j
            if d > far[q] or (d == far[q] and query > far_i[g, q]):
                continue
            size[q, g] = _offer(heap_d[q, g], heap_i[q, g], size[q, g], K, d, query)
            if size[q, g] == K:
                far[q] = heap_d[q, g, 0]
                far_i[g, q] = heap_i[q, g, 0]


@njit(cache=True, nogil=True, parallel=True)
def _search_pairs(pairs, Q, C, options, mode, symmetric, n_threads, accs, heaps):
    """For each tile pair (I, J) of ``pairs`` (no two sharing a tile whose heaps they update):
    the float32 distances of the block (:func:`_pair_block`), offered to the heaps of I's
    queries and, ``symmetric`` and I != J, of J's instances. Split statically over
    ``n_threads`` (numba's dynamic schedule leaves the second thread idle on a few long
    iterations)."""
    for t in prange(n_threads):
        acc, part, tpart = accs[t, 0], accs[t, 1], accs[t, 2]
        cursors = np.empty((4, WIDTH), np.intp)
        for p in range(t, pairs.shape[0], n_threads):
            I, J = pairs[p, 0], pairs[p, 1]
            loI, wI, cI = Q.ranges[I, 0], Q.ranges[I, 1] - Q.ranges[I, 0], Q.ranges[I, 2]
            loJ, wJ, cJ = C.ranges[J, 0], C.ranges[J, 1] - C.ranges[J, 0], C.ranges[J, 2]
            _pair_block(acc, part, tpart, cursors, Q, C, I, J, options)
            g = _group(mode, cJ, cI)
            for i in range(wI):
                _offer_row(acc[i], wJ, loI + i, g, Q.order[loI + i], C.order, loJ, heaps)
            if symmetric and I != J:
                g = _group(mode, cI, cJ)
                for i in range(wI):
                    _offer_column(acc[i], wJ, Q.order[loI + i], loJ, g, heaps)


@njit(cache=True, nogil=True)
def _known_terms(out, X, r, others, s, t, scale, discrete, ramp, t_equal, inv_w, euclid):
    """out[h] += the term (:func:`.diffs._g`) of attribute t between query r and candidate
    others[h] (unsigned indices: no negative index to wrap); numba compiles a version per
    combination of the flags (:func:`_pair_distances` passes constants). Hot: the arrays are
    passed one by one (a bundle of them would be copied and reference-counted at each
    call)."""
    x = X[r, t] * scale
    for h in range(s):
        out[h] += _g(X[others[h], t] * scale, x, discrete, ramp, t_equal, inv_w, euclid)


@njit(cache=True, nogil=True)
def _partial_terms(out, X, r, others, s, t, scale, other, code, ci, discrete, ramp, t_equal,
                   inv_w, euclid):
    """:func:`_known_terms` of a column with missing values whose query value is known (code
    ``code``): where the candidate's value is missing, the diff to it (``other[t, code,
    ci[h]]``, ci[h] the candidate's class) selected without a branch. The flags are not
    constants here (one compiled loop: the select, not the flags, is what costs)."""
    x = X[r, t] * scale
    to_missing = other[t, code]
    for h in range(s):
        y = X[others[h], t]
        m = to_missing[ci[h]]           # loaded either way: a select, not a branch
        d = _g(y * scale, x, discrete, ramp, t_equal, inv_w, euclid)
        out[h] += d if y == y else m


@njit(cache=True, nogil=True)
def _pair_distances(tiles, r, others, s, ci, out):
    """out[h] = the double-precision distance between query r and candidate others[h], h < s
    (``ci``: room for their classes): the same terms summed in the same order as
    :func:`.diffs._tile_distances` sums them (so the same number, to the last bit); the
    candidates side by side, so that their sums proceed together. In a column with missing
    values the term is selected without a branch (the query's value is known or missing for
    all the candidates alike)."""
    X, cls, columns, partial, discrete = (tiles.values, tiles.cls, tiles.columns,
                                          tiles.partial, tiles.discrete)
    shift, inv_span, factor, n_codes = tiles.shift, tiles.inv_span, tiles.factor, tiles.n_codes
    other, both, options = tiles.other, tiles.both, tiles.options
    ramp, t_equal, inv_w, euclid = options[0] != 0.0, options[1], options[2], options[3] != 0.0
    out[:s] = 0.0
    r = np.uint64(r)
    c_r = cls[r]
    for h in range(s):
        ci[h] = cls[others[h]]
    for u in range(columns.size):
        t = np.uint64(columns[u])
        x = X[r, t]
        scale = inv_span[t]
        if not partial[t]:
            if discrete[t]:
                _known_terms(out, X, r, others, s, t, scale, True, False, t_equal, inv_w, False)
            elif ramp and euclid:
                _known_terms(out, X, r, others, s, t, scale, False, True, t_equal, inv_w, True)
            elif ramp:
                _known_terms(out, X, r, others, s, t, scale, False, True, t_equal, inv_w, False)
            elif euclid:
                _known_terms(out, X, r, others, s, t, scale, False, False, t_equal, inv_w, True)
            else:
                _known_terms(out, X, r, others, s, t, scale, False, False, t_equal, inv_w, False)
        elif x == x:
            code = _code(x, t, shift, inv_span, factor, n_codes)
            _partial_terms(out, X, r, others, s, t, scale, other, code, ci, discrete[t], ramp,
                           t_equal, inv_w, euclid)
        else:
            for h in range(s):
                y = X[others[h], t]
                code = _code(y, t, shift, inv_span, factor, n_codes)    # 0 for a missing y
                known, unknown = other[t, code, c_r], both[c_r, ci[h], t]    # both loaded:
                out[h] += known if y == y else unknown                     # a select


@njit(cache=True, nogil=True, parallel=True)
def _certify(instances, positions, tiles, heaps, counts, mode, K, E0, gamma, n_threads,
             out_idx, out_dist, certified):
    """For each query instances[q] (heap position positions[q]) and group: the kept candidates'
    double-precision distances (:func:`_pair_distances`), sorted by (distance, index); the
    first K into out_idx/out_dist. ``certified[q]`` is cleared where a group had more
    candidates than it kept and its K-th does not lie below the smallest float32 distance left
    out (the largest kept) by more than the rounding bound E0 + gamma * (d + E0)."""
    cls = tiles.cls
    n = cls.size
    heap_i, size, far_d = heaps.index, heaps.size, heaps.far_d
    G, Kx = heap_i.shape[1], heap_i.shape[2]
    for t in prange(n_threads):
        d64 = np.empty(Kx)
        idx = np.empty(Kx, np.int64)
        unsigned = np.empty(Kx, np.uint64)
        ci = np.empty(Kx, np.uint64)
        for q in range(t, instances.size, n_threads):
            r, p = instances[q], positions[q]
            own = cls[r]
            for g in range(G):
                s = size[p, g]
                idx[:s] = heap_i[p, g, :s]
                unsigned[:s] = idx[:s]
                _pair_distances(tiles, r, unsigned, s, ci, d64)
                for h in range(s // 2 - 1, -1, -1):
                    _sift_down(d64, idx, h, s)
                _heap_sort(d64, idx, s)
                if mode == 0:
                    members = counts[g] - (1 if g == own else 0)
                elif mode == 1:
                    members = counts[own] - 1 if g == 0 else n - counts[own]
                else:
                    members = n - 1
                if members > s and s >= K and E0 + gamma > 0.0:
                    T = np.float64(far_d[g, p])
                    if not d64[K - 1] < T - (E0 + gamma * (T + E0)):
                        certified[q] = False
                for h in range(min(K, s)):
                    out_idx[q, g, h] = idx[h]
                    out_dist[q, g, h] = d64[h]
