"""The numpy equivalents of the neighbourhood kernels, for a first call before they are compiled.

A kernel decorated with :func:`orangecontrib.relief.compilation.kernel` runs its equivalent here
while numba has not compiled it for the call's argument types (a separate process compiles it
into the disk cache meanwhile). Each function takes the kernel's arguments and gives the
kernel's numbers to the last bit: the same floating-point operations on the same operands in
the same order, vectorised over the pairs instead of looped. Sums keep the kernels' order of
addition (over the columns for a distance, over the neighbours or the band members for a
sum of diffs); where a kernel skips a term, the term added here is an exact zero, which
changes no sum. Each returns ``NotImplemented`` (having written nothing) where it does not
apply: data larger than :data:`MAX_WORK` diff terms (:data:`SMALL_WORK` where the kernel is
in the disk cache), or inputs the kernel treats in a way not
reproduced here (bit planes); the compiled kernel then runs.
"""
import numpy as np

from ...compilation import small_data_only

__all__ = ["MAX_WORK", "SMALL_WORK", "fill_codes", "pair_diffs", "distances", "nearest_search",
           "fused_sums", "band_sums"]

#: the most diff terms (instances x instances x attributes of the data) a numpy equivalent
#: takes on: a few tenths of a second, well under the compile it stands in for
MAX_WORK = 2 * 10 ** 7
#: the most diff terms a numpy equivalent takes on where the kernel is compiled in the disk
#: cache: a tenth of a second or less, under the time loading the kernel takes
SMALL_WORK = 4 * 10 ** 6


def _limit():
    return SMALL_WORK if small_data_only() else MAX_WORK


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


def _diffs(t, i, j, tables):
    """:func:`.diffs._diff` of the pairs (i, j) (instances I_i, I_j) on columns t (arrays
    broadcast together); ``tables``: a :class:`.diffs.DiffTables`."""
    from .diffs import _DISCRETE, _UNUSABLE
    X, cls, kind, lo, hi, slope = (tables.values, tables.cls, tables.kind, tables.lo, tables.hi,
                                   tables.slope)
    shift, inv_span, factor, n_codes = tables.shift, tables.inv_span, tables.factor, tables.n_codes
    other, both = tables.other, tables.both
    a, b = X[i, t], X[j, t]
    k = kind[t]
    known = (a == a) & (b == b)
    d = np.abs(b - a)
    numeric = np.where(d >= hi[t], 1.0, np.where(d <= lo[t], 0.0, (d - lo[t]) * slope[t]))
    value = np.where(k == _DISCRETE, np.where(a == b, 0.0, 1.0), numeric)
    if (~known & (k != _UNUSABLE)).any():      # (the tables cover usable columns only)
        a_missing, b_missing = a != a, b != b
        ci, cj = cls[i], cls[j]
        missing = np.where(
            a_missing & b_missing, both[ci, cj, t],
            np.where(a_missing, other[t, _codes(b, t, shift, inv_span, factor, n_codes), ci],
                     other[t, _codes(a, t, shift, inv_span, factor, n_codes), cj]))
        value = np.where(known, value, np.nan if tables.leave_out else missing)
    return np.where(k == _UNUSABLE, np.nan, value)


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
    """(len(rows), len(cand)) the distances of :func:`.diffs._tile_distances` from each of
    ``rows`` to the candidates ``cand`` (of tile classes ``c_cand``): the terms of the columns
    added in the kernel's order."""
    X, cls, columns, partial, discrete = (tiles.values, tiles.cls, tiles.columns, tiles.partial,
                                          tiles.discrete)
    shift, inv_span, factor, n_codes = tiles.shift, tiles.inv_span, tiles.factor, tiles.n_codes
    other, both, options = tiles.other, tiles.both, tiles.options
    ramp, t_equal, inv_w, euclid = options[0] != 0.0, options[1], options[2], options[3] != 0.0
    acc = np.zeros((rows.size, cand.size))
    c_query = cls[rows][:, None]
    c_cand = c_cand[None, :]
    for t in columns:
        y = X[cand, t]
        col = y * inv_span[t]                     # the candidates' values, as the tile loads them
        x = X[rows, t]
        query = (x * inv_span[t])[:, None]
        if discrete[t]:
            term = np.where(col[None, :] != query, 1.0, 0.0)
        else:
            term = np.abs(col[None, :] - query)
            if ramp:
                term = np.minimum(np.maximum((term - t_equal) * inv_w, 0.0), 1.0)
            if euclid:
                term = term * term
        if partial[t]:
            x_code = _codes(x, t, shift, inv_span, factor, n_codes)[:, None]
            c_code = _codes(y, t, shift, inv_span, factor, n_codes)[None, :]
            to_missing = other[t, x_code, c_cand]            # known query, missing candidate
            col_known = (col == col)[None, :]
            known_query = np.where(col_known, term, to_missing)
            missing_query = np.where(col_known, other[t, c_code, c_query], both[c_query, c_cand, t])
            term = np.where((x == x)[:, None], known_query, missing_query)
        acc += term
    return acc


def distances(rows, tiles, planes, out):
    """:func:`.diffs._distances`."""
    if planes.shape[2] or _too_large(tiles.values.shape[0], tiles.columns.size):
        return NotImplemented
    cand, c_cand = _candidates(tiles)
    out[:, cand] = _distance_matrix(rows, tiles, cand, c_cand)
    return None


def nearest_search(rows, tiles, planes, mode, skip_zero, n_chunks, out_idx, out_dist):
    """:func:`.neighbours._nearest_search`: the K nearest of each group by (distance,
    index) among the candidates of the tiles."""
    if planes.shape[2] or _too_large(tiles.values.shape[0], tiles.columns.size):
        return NotImplemented
    cand, c_cand = _candidates(tiles)
    d = _distance_matrix(rows, tiles, cand, c_cand)
    if np.isnan(d).any():
        return NotImplemented
    n_groups, K = out_idx.shape[1], out_idx.shape[2]
    index = np.broadcast_to(cand, d.shape)
    candidate = index != rows[:, None]
    if skip_zero:
        candidate &= d != 0.0
    if mode == 0:
        group = np.broadcast_to(c_cand[None, :], d.shape)
    elif mode == 1:
        group = np.where(c_cand[None, :] == tiles.cls[rows][:, None], 0, 1)
    else:
        group = np.zeros(d.shape, np.intp)
    for g in range(n_groups):
        member = candidate & (group == g)
        order = np.lexsort((index, d, ~member), axis=1)[:, :K]
        found = np.take_along_axis(member, order, axis=1)
        k = order.shape[1]
        out_idx[:, g, :k] = np.where(found, np.take_along_axis(index, order, axis=1),
                                     out_idx[:, g, :k])
        out_dist[:, g, :k] = np.where(found, np.take_along_axis(d, order, axis=1),
                                      out_dist[:, g, :k])
    return None


def fused_sums(rows, nb, plan, runs, chunks, known, tables, out):
    """:func:`.diff_sums._fused_sums`: per run of columns, the running sums of pair x diff
    over each instance's neighbours (cumulative sums, in the neighbours' order) read out in
    the read-outs' order into the outputs of the instance's chunk."""
    from .diff_sums import DISCRETE_PLAIN, NUMERIC_PLAIN
    pair, ptr, at, source, target, scale = (plan.pair, plan.ptr, plan.at, plan.source,
                                            plan.target, plan.scale)
    X, lo, hi, slope = tables.values, tables.lo, tables.hi, tables.slope
    b, G, K = nb.shape
    if (tables.planes.shape[2] or pair.shape[0] * nb.size * X.shape[1] > _limit()
            or _too_large(X.shape[0], X.shape[1])):
        return NotImplemented
    found = nb >= 0
    o = np.where(found, nb, 0)
    r = rows[:, None, None, None]
    e_group = np.repeat(np.arange(b * G), np.diff(ptr))          # (i * G + g) of read-out e
    e_row, e_g = e_group // G, e_group % G
    e_chunk = np.zeros(e_row.size, np.intp)
    for chunk in range(chunks):
        e_chunk[(e_row >= chunk * b // chunks) & (e_row < (chunk + 1) * b // chunks)] = chunk
    for c0, c1, typ in runs:
        t = np.arange(c0, c1)
        x, z = X[r, t], X[o[..., None], t]                       # (b, G, K, width)
        if typ == DISCRETE_PLAIN:
            d = np.where(x == z, 0.0, 1.0)
        elif typ == NUMERIC_PLAIN:
            dz = np.abs(z - x)
            d = np.where(dz >= hi[t], 1.0, np.where(dz <= lo[t], 0.0, (dz - lo[t]) * slope[t]))
        else:
            v = _diffs(t, r, o[..., None], tables)
            d = np.where(v == v, 1.0, 0.0) if known else np.where(v == v, v, 0.0)
        w = pair[..., None]                                       # (F', b, G, K, 1)
        terms = np.where(found[None, ..., None] & (w != 0.0), w * d[None], 0.0)
        running = np.cumsum(terms, axis=3)
        values = scale[:, None] * running[source, e_row, e_g, at]     # (E, width)
        for chunk in range(chunks):
            mine = e_chunk == chunk
            view = out[chunk][:, c0:c1]
            np.add.at(view, target[mine], values[mine])
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
