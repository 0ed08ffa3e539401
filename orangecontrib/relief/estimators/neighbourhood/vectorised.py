"""The numpy equivalents of the neighbourhood kernels, for a first call before they are compiled.

A kernel decorated with :func:`orangecontrib.relief.compilation.kernel` runs its equivalent here
while numba has not compiled it for the call's argument types (a separate process compiles it
into the disk cache meanwhile). Each function takes the kernel's arguments and gives the
kernel's numbers to the last bit: the same floating-point operations on the same operands in
the same order, vectorised over the pairs instead of looped. Sums keep the kernels' order of
addition (over the columns for a distance, over the neighbours or the band members for a
sum of diffs); where a kernel skips a term, the term added here is an exact zero, which
changes no sum.

The neighbour search on more than :data:`MAX_WORK` diff terms (instances x instances x
attributes) does not build the exact distance matrix: on discrete codes without missing values
the numbers of differing attributes come exactly from a matrix product of one-hot codes, and
on numeric data (linear diff, Manhattan distance, no missing values) fast distances from
scipy are certified: the candidates within a rounding bound of each K-th get the kernel's own
sums (:func:`_certified_search`), so the neighbours are the kernel's, up to
:data:`CERTIFIED_WORK` and :data:`ONE_HOT_WORK`. The sums of diffs over the neighbours, linear
in the pairs, take on up to :data:`SUMS_WORK` terms in blocks of instances.

Each returns ``NotImplemented`` (having written nothing) where it does not apply: data above
those sizes (:data:`SMALL_WORK` where the kernel is in the disk cache, since loading it is then
quicker), or inputs the kernel treats in a way not reproduced here; the compiled kernel then
runs.
"""
import weakref
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ...compilation import small_data_only
from .bit_planes import MAX_VALUES, unpack
from .kinds import DISCRETE, DISCRETE_PLAIN, NUMERIC_PLAIN, PACKED, UNUSABLE

__all__ = ["MAX_WORK", "SMALL_WORK", "SUMS_WORK", "CERTIFIED_WORK", "ONE_HOT_WORK", "pack",
           "fill_codes", "pair_diffs", "distances", "clear_untied", "nearest_search",
           "fused_sums", "band_sums", "weigh_bands", "pair_mismatches", "band_mismatch_counts"]

#: the most diff terms (instances x instances x attributes of the data) a numpy equivalent
#: takes on: a few tenths of a second, well under the compile it stands in for
MAX_WORK = 2 * 10 ** 7
#: the most diff terms a numpy equivalent takes on where the kernel is compiled in the disk
#: cache: a tenth of a second or less, under the time loading the kernel takes
SMALL_WORK = 4 * 10 ** 6


#: the most terms (sums x instances x neighbours x attributes) the sums of diffs over the
#: neighbours take on (linear in the pairs: a second or two)
SUMS_WORK = 5 * 10 ** 8
#: terms the sums of diffs hold at once (a block's numpy operations, some of which hold the
#: interpreter lock, then take well under a widget's 100 ms)
BLOCK_TERMS = 5 * 10 ** 5
#: the most diff terms (instances x candidates x attributes) of numeric data the certified
#: search (:func:`_certified_search`) takes on: a few seconds, under the compile it stands in for
CERTIFIED_WORK = 10 ** 10
#: the most products (instances x candidates x one-hot columns) of discrete data it takes on
ONE_HOT_WORK = 10 ** 11
#: the most one-hot entries (instances x one-hot columns: 4 bytes each, twice) it holds
ONE_HOT_ENTRIES = 2 * 10 ** 7
#: the most values (codes 0, 1, ...) a discrete column may have for the one-hot product
ONE_HOT_VALUES = 16
#: distances the certified search holds at once (rows x candidates)
BLOCK_DISTANCES = 4 * 10 ** 6


def _limit(most=None):
    """``most`` (default :data:`MAX_WORK`), or :data:`SMALL_WORK` where the kernel is in the
    disk cache."""
    return SMALL_WORK if small_data_only() else MAX_WORK if most is None else most


def _too_large(n, a):
    return n * n * max(a, 1) > _limit()


def _codes(x, t, shift, inv_span, factor, n_codes):
    """:func:`.diffs._code` of the values ``x`` of columns ``t`` (arrays broadcast together)."""
    c = np.floor((x - shift[t]) * inv_span[t] * factor[t])
    c = np.where(c >= 0.0, c, 0.0)                      # NaN compares false: 0
    top = n_codes[t] - 1
    return np.where(c <= top, c, top).astype(np.intp)


def fill_codes(X, first, shift, inv_span, factor, n_codes, out):
    """:func:`.diffs._fill_codes`."""
    t = first + np.arange(out.shape[1])
    x = X[:out.shape[0], first:first + out.shape[1]]
    out[...] = np.where(x == x, _codes(x, t, shift, inv_span, factor, n_codes), -1)


def pack(values, columns, planes, ok):
    """:func:`.packed._pack`: bit u % 64 of word u // 64 of plane p set where bit p of the
    code of column u is (``np.packbits``, little-endian bit and byte order); ``ok[i]`` cleared
    where a value of instance i is not a code 0..3. Linear in the data: up to ``SUMS_WORK``
    values."""
    n, W = planes.shape[0], planes.shape[2]
    if n * columns.size > _limit(SUMS_WORK):
        return NotImplemented
    x = values[:, columns]
    valid = (x == 0.0) | (x == 1.0) | (x == 2.0) | (x == 3.0)
    ok &= valid.all(axis=1)
    code = np.where(valid, x, 0.0).astype(np.uint8)
    bits = np.zeros((n, 2, 64 * W), np.uint8)
    bits[:, 0, :columns.size] = code & 1
    bits[:, 1, :columns.size] = code >> 1
    words = np.packbits(bits, axis=2, bitorder="little").view(np.dtype("<u8"))
    planes |= words.astype(np.uint64)
    return None


def pair_mismatches(planes, rows, others, out):
    """:func:`.packed.pair_mismatches`: 1.0 where the codes decoded from the planes differ."""
    columns = np.arange(out.shape[1])
    if rows.size * max(columns.size, 1) > _limit():
        return NotImplemented
    out[...] = np.where(unpack(planes, rows, columns) != unpack(planes, others, columns),
                        1.0, 0.0)
    return None


def band_mismatch_counts(planes, rows, member, groups, n_groups, out):
    """:func:`.packed.band_mismatch_counts`: the members of each group of a row's band that
    differ from the row on an attribute are the group's members less those that share the
    row's code, counted for every code at once by a matrix product of the band (rows x
    members) with the members' one-hot codes. Every partial sum of that product is an
    integer count below 2^24, exact in float32 in any order (as the kernel's counts are)."""
    n, a, b = planes.shape[0], out.shape[2], rows.size
    values = MAX_VALUES * a
    if (b * n * values > _limit(ONE_HOT_WORK) or n * values > ONE_HOT_ENTRIES
            or n >= 2 ** 24):
        return NotImplemented
    if not (a and b):
        return None
    codes = unpack(planes, np.arange(n), np.arange(a)).astype(np.intp)
    one_hot = (codes[:, :, None] == np.arange(MAX_VALUES)).reshape(n, values)
    own = codes[rows][:, :, None]                                   # (b, a, 1)
    step = max(1, ONE_HOT_ENTRIES // values)
    for g in range(n_groups):
        of_g = np.flatnonzero(groups == g)
        band = member[:, of_g] != 0
        members = one_hot[of_g].astype(np.float32)
        for lo in range(0, b, step):
            part = band[lo:lo + step]
            counts = (part.astype(np.float32) @ members).reshape(-1, a, MAX_VALUES)
            same = np.take_along_axis(counts, own[lo:lo + step], axis=2)[:, :, 0]
            out[lo:lo + step, g] = part.sum(axis=1)[:, None] - same.astype(np.int64)


def cell_mismatch_counts(columns, masks, positions, bounds, cells, out):
    """:func:`.packed.cell_mismatch_counts`: the columns' and the masks' bits unpacked
    (``np.unpackbits``), compared with the queries' codes and summed over each group's bits
    (integer counts). Up to ``MAX_WORK`` bits compared."""
    a, m, bits = columns.shape[0], masks.shape[0], 64 * columns.shape[2]
    if a * m * bits > _limit():
        return NotImplemented
    planes = np.unpackbits(columns.astype("<u8").view(np.uint8), axis=2, bitorder="little")
    codes = planes[:, 0] | (planes[:, 1] << 1)                           # (a, bits)
    member = np.unpackbits(masks.astype("<u8").view(np.uint8), axis=1,
                           bitorder="little").astype(bool)               # (m, bits)
    differ = (codes[:, None, :] != codes[:, positions][:, :, None]) & member   # (a, m, bits)
    for g in range(bounds.size - 1):
        counts = differ[:, :, 64 * bounds[g]:64 * bounds[g + 1]].sum(axis=2)  # (a, m)
        np.add.at(out, (cells[None, :, g], np.arange(a)[:, None]), counts)
    return None


def _diffs(t, i, j, tables):
    """:func:`.diffs._diff` of the pairs (i, j) (instances I_i, I_j) on columns t (arrays
    broadcast together); ``tables``: a :class:`.diffs.DiffTables`."""
    X, cls, kind, lo, hi, slope = (tables.values, tables.cls, tables.kind, tables.lo, tables.hi,
                                   tables.slope)
    shift, inv_span, factor, n_codes = tables.shift, tables.inv_span, tables.factor, tables.n_codes
    other, both = tables.other, tables.both
    a, b = X[i, t], X[j, t]
    k = kind[t]
    known = (a == a) & (b == b)
    d = np.abs(b - a)
    numeric = np.where(d >= hi[t], 1.0, np.where(d <= lo[t], 0.0, (d - lo[t]) * slope[t]))
    value = np.where(k == DISCRETE, np.where(a == b, 0.0, 1.0), numeric)
    if (~known & (k != UNUSABLE)).any():      # (the tables cover usable columns only)
        a_missing, b_missing = a != a, b != b
        ci, cj = cls[i], cls[j]
        missing = np.where(
            a_missing & b_missing, both[ci, cj, t],
            np.where(a_missing, other[t, _codes(b, t, shift, inv_span, factor, n_codes), ci],
                     other[t, _codes(a, t, shift, inv_span, factor, n_codes), cj]))
        value = np.where(known, value, np.nan if tables.leave_out else missing)
    return np.where(k == UNUSABLE, np.nan, value)


def pair_diffs(rows, others, tables, out):
    """:func:`.diffs._pair_diffs`."""
    a = tables.values.shape[1]
    if rows.size * a > _limit():
        return NotImplemented
    out[...] = _diffs(np.arange(a)[None, :], rows[:, None], others[:, None], tables)
    return None


def _candidates(tiles):
    """(indices, classes) of the candidates of the tiles, in the tiles' order: ``order`` over
    each tile's range, each with its tile's class."""
    ranges = tiles.ranges
    if not ranges.shape[0]:
        return np.zeros(0, np.intp), np.zeros(0, np.intp)
    index = np.concatenate([tiles.order[lo:hi] for lo, hi, _ in ranges])
    classes = np.repeat(ranges[:, 2], ranges[:, 1] - ranges[:, 0])
    return index, classes


def _distance_matrix(rows, tiles, cand, c_cand):
    """The distances of :func:`.diffs._tile_distances` between instances ``rows`` and the
    candidates ``cand`` (of tile classes ``c_cand``), index arrays broadcast together (rows
    (b, 1) against candidates (1, c) for a matrix, or equal shapes for pairs): the terms of the
    columns added in the kernel's order, each times the column's weight."""
    X, cls, columns, partial, discrete = (tiles.values, tiles.cls, tiles.columns, tiles.partial,
                                          tiles.discrete)
    shift, inv_span, factor, n_codes = tiles.shift, tiles.inv_span, tiles.factor, tiles.n_codes
    other, both, options = tiles.other, tiles.both, tiles.options
    ramp, t_equal, inv_w, euclid = options[0] != 0.0, options[1], options[2], options[3] != 0.0
    acc = np.zeros(np.broadcast_shapes(rows.shape, cand.shape))
    c_query = cls[rows]
    for t in columns:
        y = X[cand, t]
        col = y * inv_span[t]                     # the candidates' values, as the tile loads them
        x = X[rows, t]
        query = x * inv_span[t]
        if discrete[t]:
            term = np.where(col != query, 1.0, 0.0)
        else:
            term = np.abs(col - query)
            if ramp:
                term = np.minimum(np.maximum((term - t_equal) * inv_w, 0.0), 1.0)
            if euclid:
                term = term * term
        if partial[t]:
            x_code = _codes(x, t, shift, inv_span, factor, n_codes)
            c_code = _codes(y, t, shift, inv_span, factor, n_codes)
            to_missing = other[t, x_code, c_cand]            # known query, missing candidate
            col_known = col == col
            known_query = np.where(col_known, term, to_missing)
            missing_query = np.where(col_known, other[t, c_code, c_query], both[c_query, c_cand, t])
            term = np.where(x == x, known_query, missing_query)
        acc += tiles.weight[t] * term
    return acc


def _plane_codes(tiles, planes, rows=None):
    """The codes 0..3 of the columns packed into bit ``planes`` (``tiles.columns``, in that
    order) of instances ``rows`` (default: all): read from the values, or decoded from the
    planes where the values have no column (:class:`.packed.PackedColumns`)."""
    X = tiles.values
    rows = np.arange(X.shape[0]) if rows is None else rows
    if X.shape[1]:
        return X[rows[:, None], tiles.columns]
    return unpack(planes, rows, np.arange(tiles.columns.size))


def distances(rows, tiles, planes, out):
    """:func:`.diffs._distances`; with bit planes the numbers of attributes on which two
    instances differ (the kernel's popcounts: integers, exact in any order), by the product
    of one-hot codes of :func:`_approximate_distances`, exact for such codes."""
    cand, c_cand = _candidates(tiles)
    if planes.shape[2]:
        exact = None
        if rows.size * tiles.values.shape[0] * MAX_VALUES * tiles.columns.size \
                <= _limit(ONE_HOT_WORK):
            exact = _approximate_distances(tiles, planes, cand)
        if exact is None or not exact[1]:
            return NotImplemented
        out[:, cand] = exact[0](rows)
        return None
    if _too_large(tiles.values.shape[0], tiles.columns.size):
        return NotImplemented
    out[:, cand] = _distance_matrix(rows[:, None], tiles, cand[None, :], c_cand[None, :])
    return None


def clear_untied(neighbours, distances, K):
    """Empty (-1, inf) the places after the K-th of each group (``neighbours``/``distances``
    (b, G, K'), sorted by (distance, index)) whose distance differs from the K-th's: after
    the K nearest only the instances tied with the K-th remain."""
    other = distances[:, :, K:] != distances[:, :, K - 1:K]
    np.copyto(neighbours[:, :, K:], -1, where=other)
    np.copyto(distances[:, :, K:], np.inf, where=other)


def nearest_search(rows, tiles, planes, mode, skip_zero, n_chunks, nearest, out_idx, out_dist):
    """:func:`.neighbours._nearest_search`: the K nearest of each group by (distance,
    index) among the candidates of the tiles, the places after the ``nearest`` only for those
    tied with the last of them."""
    if planes.shape[2] or _too_large(tiles.values.shape[0], tiles.columns.size):
        result = _certified_search(rows, tiles, planes, mode, skip_zero, out_idx, out_dist)
        if result is None and 0 < nearest < out_idx.shape[2]:    # only the tied after
            clear_untied(out_idx, out_dist, nearest)
        return result
    cand, c_cand = _candidates(tiles)
    d = _distance_matrix(rows[:, None], tiles, cand[None, :], c_cand[None, :])
    if np.isnan(d).any():
        return NotImplemented
    n_groups, K = out_idx.shape[1], out_idx.shape[2]
    index = np.broadcast_to(cand, d.shape)
    candidate = index != rows[:, None]
    if skip_zero:
        candidate &= d != 0.0
    group = np.broadcast_to(_group_of(mode, c_cand[None, :], tiles.cls[rows][:, None]), d.shape)
    for g in range(n_groups):
        member = candidate & (group == g)
        order = np.lexsort((index, d, ~member), axis=1)[:, :K]
        found = np.take_along_axis(member, order, axis=1)
        k = order.shape[1]
        if 0 < nearest < k:
            ranked = np.take_along_axis(d, order, axis=1)
            found[:, nearest:] &= ranked[:, nearest:] == ranked[:, nearest - 1:nearest]
        out_idx[:, g, :k] = np.where(found, np.take_along_axis(index, order, axis=1),
                                     out_idx[:, g, :k])
        out_dist[:, g, :k] = np.where(found, np.take_along_axis(d, order, axis=1),
                                      out_dist[:, g, :k])
    return None


def _group_of(mode, c_cand, c_query):
    """:func:`.heaps._group`: the group of a candidate of class ``c_cand`` for a query of class
    ``c_query`` (arrays broadcast together)."""
    if mode == 0:
        return c_cand + 0 * c_query
    if mode == 1:
        return np.where(c_cand == c_query, 0, 1)
    return np.zeros(np.broadcast_shapes(np.shape(c_cand), np.shape(c_query)), np.intp)


def _threads():
    """The threads the fast distances run in: numba's (``numba.set_num_threads``), as the
    kernels would."""
    import numba
    return numba.get_num_threads()


def _approximate_distances(tiles, planes, cand):
    """(distances, exact) for :func:`_certified_search`: ``distances(q)`` gives the (len(q),
    len(cand)) distances from instances ``q`` to the candidates ``cand`` computed fast, and
    ``exact`` says whether they are the kernel's numbers to the last bit; or None where the
    data are not of a kind this applies to (missing values, mixed or ramped columns) or too
    large for it.

    Discrete columns whose values are small codes: the number of columns on which two
    instances differ is the number of columns less the matches, a product of one-hot codes
    (``one_hot @ one_hot.T``) whose every partial sum is an integer below 2^24, so float32
    gives it exactly (the number the kernel counts in the bit planes ``planes`` too; values
    held only as planes, :class:`.packed.PackedColumns`, are decoded from them). Numeric
    columns with the linear diff and the Manhattan distance: the sum of the same terms
    |x_t / span_t - y_t / span_t| as the kernel's, in another order (scipy's ``cdist``),
    within a rounding bound of it."""
    X, columns, options = tiles.values, tiles.columns, tiles.options
    n, a = cand.size, columns.size
    if not a or tiles.partial[columns].any() or np.any(tiles.weight[columns] != 1.0):
        return None
    discrete = tiles.discrete[columns]
    if discrete.all():
        if X.shape[0] * a * 4 > ONE_HOT_ENTRIES and not X.shape[1]:    # (codes 0..3)
            return None
        codes = X[:, columns] if X.shape[1] else _plane_codes(tiles, planes)
        top = float(codes.max(initial=0))
        if (not 0.0 <= top < ONE_HOT_VALUES or n * n * a * (top + 1) > ONE_HOT_WORK
                or X.shape[0] * a * (top + 1) > ONE_HOT_ENTRIES or a >= 2 ** 24
                or (tiles.inv_span[columns] != 1.0).any() or (codes < 0.0).any()
                or (codes != np.floor(codes)).any()):
            return None
        one_hot = codes[:, :, None] == np.arange(top + 1)
        one_hot = one_hot.reshape(codes.shape[0], -1)
        one_hot = one_hot[:, one_hot.any(axis=0)].astype(np.float32)
        candidates = np.ascontiguousarray(one_hot[cand].T)
        return (lambda q: a - (one_hot[q] @ candidates).astype(float)), True
    if discrete.any() or options[0] != 0.0 or options[3] != 0.0 or n * n * a > CERTIFIED_WORK:
        return None
    scaled = X[:, columns] * tiles.inv_span[columns]
    if not np.isfinite(scaled).all():
        return None
    candidates = np.ascontiguousarray(scaled[cand])

    def distances(q):
        parts = np.array_split(q, min(_threads(), max(1, q.size // 64)))
        if len(parts) == 1:
            return _manhattan(scaled[q], candidates)
        with ThreadPoolExecutor(len(parts)) as pool:      # cdist releases the GIL
            return np.concatenate(list(pool.map(
                lambda part: _manhattan(scaled[part], candidates), parts)))
    return distances, False


#: the fast distances prepared last (:func:`_prepared_distances`): (weak references to the
#: values and the candidate order they were prepared from, the other arrays they depend on,
#: what :func:`_approximate_distances` gave)
_prepared = None


def _prepared_distances(tiles, planes, cand):
    """:func:`_approximate_distances`, prepared once for all the calls of one search (a
    search calls its kernel once per block of rows, on the same tiles). The preparation is
    kept while the values and candidate order it came from live, the same objects (a
    diff model's: never changed while it lives, nor its bit planes), for the same columns,
    scales, options and candidates; it goes when they go."""
    global _prepared
    depends = (tiles.columns, tiles.inv_span, tiles.partial, tiles.discrete, tiles.options, cand)
    last = _prepared
    if (last is not None and last[0]() is tiles.values and last[1]() is tiles.order
            and all(np.array_equal(a, b) for a, b in zip(last[2], depends))):
        return last[3]
    fast = _approximate_distances(tiles, planes, cand)
    if fast is None:
        return None

    def forget(_):
        global _prepared
        _prepared = None
    try:
        _prepared = (weakref.ref(tiles.values, forget), weakref.ref(tiles.order, forget),
                     tuple(np.array(a, copy=True) for a in depends), fast)
    except TypeError:          # (an array that takes no weak reference: not kept)
        _prepared = None
    return fast


def _manhattan(queries, candidates):
    """(len(queries), len(candidates)) the sums of |x_t - y_t| over the columns, in any order
    (scipy's ``cdist``)."""
    from scipy.spatial.distance import cdist         # imported when used
    return cdist(queries, candidates, "cityblock")


def _certified_search(rows, tiles, planes, mode, skip_zero, out_idx, out_dist):
    """:func:`nearest_search` on data too large for the exact distance matrix, from the fast
    distances of :func:`_approximate_distances`, or ``NotImplemented``. Where those are
    approximate, every candidate within a rounding bound of each group's K-th smallest has
    its distance computed again by the kernel's arithmetic (:func:`_distance_matrix`), and
    the K nearest by (distance, index) are taken among those: a sum of a nonnegative terms
    added in any order is within (a - 1) u of their exact sum relative to it (u = 2^-53,
    Higham 2002, eq. 4.4), so a candidate beyond the bound is farther than each of the K,
    whichever order the kernel adds in. Blocks of rows hold ``BLOCK_DISTANCES`` distances at
    most."""
    if small_data_only():
        return NotImplemented
    cand, c_cand = _candidates(tiles)
    fast = _prepared_distances(tiles, planes, cand) if cand.size else None
    if fast is None:
        return NotImplemented
    distances, exact = fast
    slack = 0.0 if exact else 4.0 * tiles.columns.size * np.finfo(float).eps
    n_groups, K = out_idx.shape[1], out_idx.shape[2]
    step = max(1, BLOCK_DISTANCES // max(cand.size, 1))
    for start in range(0, rows.size, step):
        q = rows[start:start + step]
        d = distances(q)
        candidate = cand[None, :] != q[:, None]
        if skip_zero:          # (a sum of nonnegative terms is 0 in any order or in none)
            candidate &= d != 0.0
        group = _group_of(mode, c_cand[None, :], tiles.cls[q][:, None])
        for g in range(n_groups):
            member = np.where(candidate & (group == g), d, np.inf)
            kk = min(K, cand.size)
            kth = np.partition(member, kk - 1, axis=1)[:, kk - 1:kk]
            i, j = np.nonzero((member <= kth * (1.0 + slack)) & (member < np.inf))
            dist = member[i, j] if exact else _distance_matrix(q[i], tiles, cand[j], c_cand[j])
            index = cand[j]
            order = np.lexsort((index, dist, i))
            i, index, dist = i[order], index[order], dist[order]
            rank = np.arange(i.size) - np.searchsorted(i, i)
            keep = rank < K
            out_idx[start + i[keep], g, rank[keep]] = index[keep]
            out_dist[start + i[keep], g, rank[keep]] = dist[keep]
    return None


def fused_sums(rows, nb, plan, runs, chunks, known, tables, out):
    """:func:`.diff_sums._fused_sums`: per run of columns, the running sums of pair x diff
    over each instance's neighbours (cumulative sums, in the neighbours' order) read out in
    the read-outs' order into the outputs of the instance's chunk; in blocks of instances
    (in their order) of ``BLOCK_TERMS`` terms at most. Its work is linear in the pairs, so it
    takes on up to ``SUMS_WORK`` terms (``SMALL_WORK`` where the kernel is in the disk cache)."""
    pair, ptr, at, source, target, scale = (plan.pair, plan.ptr, plan.at, plan.source,
                                            plan.target, plan.scale)
    X, lo, hi, slope, planes = tables.values, tables.lo, tables.hi, tables.slope, tables.planes
    b, G, K = nb.shape
    work = pair.shape[0] * nb.size * max(X.shape[1], int(runs[:, 1].max(initial=0)))
    if work > _limit(SUMS_WORK):
        return NotImplemented
    e_group = np.repeat(np.arange(b * G), np.diff(ptr))          # (i * G + g) of read-out e
    e_row, e_g = e_group // G, e_group % G
    e_chunk = np.zeros(e_row.size, np.intp)
    for chunk in range(chunks):
        e_chunk[(e_row >= chunk * b // chunks) & (e_row < (chunk + 1) * b // chunks)] = chunk
    width = int((runs[:, 1] - runs[:, 0]).max(initial=1))
    step = max(1, BLOCK_TERMS // max(pair.shape[0] * G * K * width, 1))
    for p0 in range(0, b, step):
        p1 = min(b, p0 + step)
        e0, e1 = ptr[p0 * G], ptr[p1 * G]
        block = nb[p0:p1]
        found = block >= 0
        o = np.where(found, block, 0)
        r = rows[p0:p1, None, None, None]
        w = pair[:, p0:p1, ..., None]                             # (F', b', G, K, 1)
        rows_e, g_e, at_e, source_e = e_row[e0:e1] - p0, e_g[e0:e1], at[e0:e1], source[e0:e1]
        for c0, c1, typ in runs:
            t = np.arange(c0, c1)
            if typ == PACKED:                                    # (codes held as bit planes)
                x = unpack(planes, rows[p0:p1], t)[:, None, None, :]
                z = unpack(planes, o.ravel(), t).reshape(o.shape + (t.size,))
            else:
                x, z = X[r, t], X[o[..., None], t]               # (b', G, K, width)
            if typ in (DISCRETE_PLAIN, PACKED):
                d = np.where(x == z, 0.0, 1.0)
            elif typ == NUMERIC_PLAIN:
                dz = np.abs(z - x)
                d = np.where(dz >= hi[t], 1.0, np.where(dz <= lo[t], 0.0,
                                                        (dz - lo[t]) * slope[t]))
            else:
                v = _diffs(t, r, o[..., None], tables)
                d = np.where(v == v, 1.0, 0.0) if known else np.where(v == v, v, 0.0)
            terms = np.where(found[None, ..., None] & (w != 0.0), w * d[None], 0.0)
            running = np.cumsum(terms, axis=3)
            values = scale[e0:e1, None] * running[source_e, rows_e, g_e, at_e]   # (E', width)
            for chunk in range(chunks):
                mine = e_chunk[e0:e1] == chunk
                view = out[chunk][:, c0:c1]
                np.add.at(view, target[e0:e1][mine], values[mine])
    return None


def band_sums(values, rows, member, groups, weights, ones, discrete, ramp, t_equal, inv_w,
              out):
    """:func:`.surf._band_sums`: the band members' terms added one member at a time, in the
    members' order, for all rows at once."""
    n, a = values.shape
    if _too_large(n, a):
        return NotImplemented
    x = values[rows]
    for j in range(n):
        inside = member[:, j]
        if not inside.any():
            continue
        z = values[j]
        if discrete:
            g = np.where(x != z, 1.0, 0.0)
        else:
            g = np.abs(x - z)
            if ramp:
                g = np.minimum(np.maximum((g - t_equal) * inv_w, 0.0), 1.0)
        for f in range(out.shape[1]):
            w = 1.0 if ones else weights[f, :, j][:, None]
            out[:, f, groups[j]] += np.where(inside[:, None], w * g, 0.0)
    return None


def weigh_bands(coef, out, cols, sums):
    """:func:`.surf._weigh_bands`: the products added over the rows and the groups in the
    kernel's order, for all the columns at once."""
    acc = np.zeros(sums.shape[:2] + (out.shape[3],))
    for q in range(coef.shape[0]):
        for g in range(coef.shape[2]):
            acc += coef[q, :, g, None, None] * out[q, None, :, g, :]
    sums[:, :, cols] = acc
    return None
