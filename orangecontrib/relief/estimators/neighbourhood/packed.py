"""Discrete attributes with at most four values as packed bits: mismatch counts by popcount.

A value code v in 0..3 is two bits, (v & 1, v >> 1); attribute u of an instance is bit
u % 64 of word u // 64 of each of two *bit planes*. Two instances differ on attribute u exactly
when ``(a0 ^ b0) | (a1 ^ b1)`` has bit u set, so the number of attributes among 64 on which they
differ is one popcount of that word: the Relief distance over discrete attributes (diff 0 or 1,
Robnik-Šikonja & Kononenko 1999, eq. 1; squared the same) is a handful of instructions per 64
attributes instead of 64 comparisons. Genotype data (SNPs coded 0/1/2) are the case this
serves: 100,000 attributes of an instance take 25 KB instead of 800 KB.

:func:`pack_planes` builds the planes (n, 2, W) of the given columns, padding bits 0 in both
planes (never a mismatch); :func:`tile_mismatches` gives the distances of a block of query
instances to a tile of candidates (:meth:`.diffs.DiffModel.tiles`), word blocks of
``WORD_BLOCK`` at a time so that the tile's words stay in cache while every query reads them;
:func:`band_mismatch_counts` counts, for each query, the members of each group of its band that
differ on each attribute with vertical (bit-sliced) counters. :func:`column_planes` turns planes
over (a column's bits over the instances, each group of instances padded to whole words) and
:func:`cell_mismatch_counts` counts with them, for each query, attribute and group, the
members of the query's neighbourhood in that group that differ from it: one popcount pass over
the instances' words per query and attribute, however many groups.

:class:`PackedColumns` is a whole table held only as its planes (a quarter of a byte a value):
the form :func:`.readers.read_plink` hands genotypes over in, so that the estimators never hold
a byte a genotype beside the planes. The diff model reads its planes as they are; reading rows
or columns of it (``X[rows]``, ``np.asarray(X)``) decodes them (:func:`unpack`), and the
weighted diff sums and the pairs' diffs read each pair's mismatch bits (:func:`mismatch_bits`,
:func:`pair_mismatches`).
"""
import numpy as np
from numba import njit, prange, types
from numba.extending import intrinsic

from ...compilation import kernel
from ..base import parallel_launch
from . import vectorised
from .bit_planes import MAX_VALUES, unpack

__all__ = ["MAX_VALUES", "PackedColumns", "pack_planes", "unpack", "mismatch_bits",
           "pair_mismatches", "tile_mismatches", "band_mismatch_counts", "column_planes",
           "cell_mismatch_counts"]

#: levels of the vertical counters of :func:`band_mismatch_counts` (counts up to 2^levels - 1)
COUNTER_LEVELS = 8
#: bytes of the bits of one block of columns turned over by :func:`column_planes`
COLUMN_BLOCK_BYTES = 16 * 2 ** 20
#: words of each plane per pass over a tile: 512 candidates x 2 planes x 64 words = 512 KB
WORD_BLOCK = 64
#: words of each plane one task of :func:`band_mismatch_counts` counts (8 KB a plane, 65,536
#: attributes): a query's row of more words is split among the threads
BAND_WORDS = 1024


@intrinsic
def popcount(typingctx, x):
    """The number of set bits of an integer (LLVM's ctpop: one instruction where the CPU has
    it)."""
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])
    return x(x), codegen


def pack_planes(values, columns):
    """(n, 2, ceil(len(columns) / 64)) uint64 bit planes of ``values[:, columns]``, or None when
    a value there is not an integer code 0..3 (missing, or out of range)."""
    columns = np.ascontiguousarray(columns, dtype=np.intp)
    planes = np.zeros((values.shape[0], 2, (columns.size + 63) // 64), np.uint64)
    ok = np.ones(values.shape[0], np.bool_)
    with parallel_launch():
        _pack(values, columns, planes, ok)
    return planes if ok.all() else None


class PackedColumns:
    """An (n, a) table of value codes 0..3 held only as bit planes (``planes``, (n, 2, W) uint64
    of :func:`pack_planes` over all its columns): a quarter of a byte a value. It reads like a
    read-only int8 array: ``shape``, ``dtype``, ``X[rows]``, ``X[rows, columns]`` and
    ``np.asarray(X)`` give the decoded codes (:func:`unpack`); it has no missing values."""
    ndim = 2
    dtype = np.dtype(np.int8)

    def __init__(self, planes, n_columns):
        if planes.ndim != 3 or planes.shape[1] != 2 or planes.shape[2] != (n_columns + 63) // 64:
            raise ValueError(f"bit planes of shape {planes.shape} do not hold {n_columns} "
                             "columns")
        self.planes = planes
        self.shape = (planes.shape[0], int(n_columns))

    @property
    def size(self):
        return self.shape[0] * self.shape[1]

    @property
    def nbytes(self):
        return self.planes.nbytes

    def __len__(self):
        return self.shape[0]

    def __repr__(self):
        return f"PackedColumns({self.shape[0]} x {self.shape[1]}, {self.nbytes} bytes)"

    def __getitem__(self, key):
        rows, columns = key if isinstance(key, tuple) else (key, slice(None))
        row_index = np.arange(self.shape[0])[rows]
        column_index = np.arange(self.shape[1])[columns]
        out = unpack(self.planes, np.atleast_1d(row_index), np.atleast_1d(column_index))
        if np.ndim(column_index) == 0:
            out = out[:, 0]
        return out[0] if np.ndim(row_index) == 0 else out

    def __array__(self, dtype=None, copy=None):
        out = unpack(self.planes, np.arange(self.shape[0]), np.arange(self.shape[1]))
        return out if dtype is None else out.astype(dtype)


@njit(cache=True, nogil=True, inline="always")
def mismatch_bits(d, planes, r, o, c0, width):
    """d[u] = 1.0 where instances r and o differ on column c0 + u (of planes over all columns),
    else 0.0: the discrete diff (Robnik-Šikonja & Kononenko 1999, eq. 1). A word of mismatch
    bits at a time, its bits spread in a loop that vectorises."""
    u = 0
    while u < width:
        t = c0 + u
        w = t >> 6
        first = t & 63
        n = min(64 - first, width - u)
        m = ((planes[r, 0, w] ^ planes[o, 0, w]) | (planes[r, 1, w] ^ planes[o, 1, w])) \
            >> np.uint64(first)
        for b in range(n):
            d[u + b] = np.float64((m >> np.uint64(b)) & np.uint64(1))
        u += n


@kernel(vectorised.pair_mismatches)
@njit(cache=True, parallel=True, nogil=True)
def pair_mismatches(planes, rows, others, out):
    """out[p, t] = :func:`mismatch_bits` of instances rows[p] and others[p] on every column t
    (the pairs' discrete diffs). Parallel over the pairs."""
    for p in prange(rows.size):
        mismatch_bits(out[p], planes, rows[p], others[p], 0, out.shape[1])


@kernel(vectorised.pack)
@njit(cache=True, parallel=True, nogil=True)
def _pack(values, columns, planes, ok):
    """planes[i, p, w] |= bit p of the codes of row i's values of columns[64 w:64 w + 64], a
    word at a time (built in a register, stored once); ok[i] = False where a value is not a
    code 0..3 (its bits left 0). Parallel over the rows."""
    n_columns = columns.size
    for i in prange(values.shape[0]):
        for w in range(planes.shape[2]):
            p0 = np.uint64(0)
            p1 = np.uint64(0)
            for b in range(min(64, n_columns - 64 * w)):
                x = values[i, columns[64 * w + b]]
                if not (x == 0.0 or x == 1.0 or x == 2.0 or x == 3.0):
                    ok[i] = False
                    continue
                v = np.uint64(int(x))
                bit = np.uint64(b)
                p0 |= (v & np.uint64(1)) << bit
                p1 |= (v >> np.uint64(1)) << bit
            planes[i, 0, w] |= p0
            planes[i, 1, w] |= p1


@njit(cache=True, nogil=True)
def tile_mismatches(accs, planes, order, rows, lo, width):
    """accs[q, j] = the number of attributes on which instance rows[q] and candidate
    order[lo + j] differ. Two queries against two candidates at a time (:func:`_mismatch_2x2`:
    each word loaded serves two pairs), the words ``WORD_BLOCK`` at a time so that the tile's
    words stay in cache while every query reads them; the counts are exact, whatever the
    order."""
    W = planes.shape[2]
    accs[:, :width] = 0.0
    n_q = rows.size
    for w0 in range(0, W, WORD_BLOCK):
        w1 = min(W, w0 + WORD_BLOCK)
        for q in range(0, n_q, 2):
            q2 = min(q + 1, n_q - 1)        # an odd last query is paired with itself
            a0, a1 = planes[rows[q], 0, w0:w1], planes[rows[q], 1, w0:w1]
            c0, c1 = planes[rows[q2], 0, w0:w1], planes[rows[q2], 1, w0:w1]
            for j in range(0, width, 2):
                j2 = min(j + 1, width - 1)
                b0, b1 = planes[order[lo + j], 0, w0:w1], planes[order[lo + j], 1, w0:w1]
                e0, e1 = planes[order[lo + j2], 0, w0:w1], planes[order[lo + j2], 1, w0:w1]
                s_ab, s_ae, s_cb, s_ce = _mismatch_2x2(a0, a1, c0, c1, b0, b1, e0, e1)
                accs[q, j] += np.float64(s_ab)
                if j2 != j:
                    accs[q, j2] += np.float64(s_ae)
                if q2 != q:
                    accs[q2, j] += np.float64(s_cb)
                    if j2 != j:
                        accs[q2, j2] += np.float64(s_ce)


@njit(cache=True, nogil=True, inline="always")
def _mismatch_2x2(a0, a1, c0, c1, b0, b1, e0, e1):
    """The popcounts of the mismatch words of the pairs (a, b), (a, e), (c, b), (c, e) of
    instances given as their two planes' words."""
    s_ab = s_ae = s_cb = s_ce = np.uint64(0)     # (an int would make the sums floats)
    for w in range(a0.size):
        x0, x1, y0, y1 = a0[w], a1[w], c0[w], c1[w]
        z0, z1, v0, v1 = b0[w], b1[w], e0[w], e1[w]
        s_ab += popcount((x0 ^ z0) | (x1 ^ z1))
        s_ae += popcount((x0 ^ v0) | (x1 ^ v1))
        s_cb += popcount((y0 ^ z0) | (y1 ^ z1))
        s_ce += popcount((y0 ^ v0) | (y1 ^ v1))
    return s_ab, s_ae, s_cb, s_ce


@njit(cache=True, nogil=True)
def _flush(counters, totals):
    """totals[64 w + b] += the count held for that attribute by the vertical counters (bit b of
    word w of level l is bit l of the count); the counters are reset."""
    for w in range(counters.shape[1]):
        for level in range(COUNTER_LEVELS):
            word = counters[level, w]
            counters[level, w] = 0
            for b in range(64):
                totals[64 * w + b] += np.int64((word >> np.uint64(b)) & np.uint64(1)) << level


@kernel(vectorised.band_mismatch_counts)
@njit(cache=True, parallel=True, nogil=True)
def band_mismatch_counts(planes, rows, member, groups, n_groups, out):
    """out[q, g, u] = the number of band members j of group ``groups[j]`` = g (``member[q, j]``)
    whose value of attribute u differs from instance rows[q]'s. Each mismatch word is added to
    ``COUNTER_LEVELS`` vertical counters (bit u of level l holds bit l of the count of
    attribute u: a carry-save adder over 64 attributes at a time, without branches, so the
    loop over the words vectorises), which are read out before they could overflow. Parallel
    over the queries and, within a query, over pieces of ``BAND_WORDS`` words (so that even
    one query on many attributes keeps every thread busy); the counts are exact integers,
    whatever the split."""
    W = planes.shape[2]
    pieces = max(1, (W + BAND_WORDS - 1) // BAND_WORDS)
    for task in prange(rows.size * pieces):
        q, w0 = task // pieces, (task % pieces) * BAND_WORDS
        w1 = min(W, w0 + BAND_WORDS)
        x0, x1 = planes[rows[q], 0, w0:w1], planes[rows[q], 1, w0:w1]
        counters = np.zeros((n_groups, COUNTER_LEVELS, w1 - w0), np.uint64)
        totals = np.zeros((n_groups, 64 * (w1 - w0)), np.int64)
        pending = np.zeros(n_groups, np.int64)
        for j in range(planes.shape[0]):
            if not member[q, j]:
                continue
            g = groups[j]
            z0, z1 = planes[j, 0, w0:w1], planes[j, 1, w0:w1]
            c = counters[g]
            for w in range(w1 - w0):
                carry = (x0[w] ^ z0[w]) | (x1[w] ^ z1[w])
                for level in range(COUNTER_LEVELS):
                    held = c[level, w]
                    c[level, w] = held ^ carry
                    carry &= held
            pending[g] += 1
            if pending[g] == (1 << COUNTER_LEVELS) - 1:
                _flush(c, totals[g])
                pending[g] = 0
        u0, u1 = 64 * w0, min(out.shape[2], 64 * w1)
        for g in range(n_groups):
            if pending[g]:
                _flush(counters[g], totals[g])
            for u in range(u0, u1):
                out[q, g, u] = totals[g, u - u0]


def column_planes(planes, columns, positions, n_words):
    """(len(columns), 2, n_words) uint64: the bit planes turned over, bit ``positions[j]`` of
    plane p of column t set where bit p of instance j's code of column ``columns[t]`` is
    (``planes`` as of :func:`pack_planes`, (n, 2, W)); the other bits 0. Built a block of
    columns at a time (``COLUMN_BLOCK_BYTES``) with ``np.packbits``."""
    columns = np.asarray(columns, np.intp)
    n = planes.shape[0]
    out = np.empty((columns.size, 2, n_words), np.uint64)
    step = max(1, COLUMN_BLOCK_BYTES // (2 * 64 * n_words + 16 * n))
    rows = np.arange(n)
    for lo in range(0, columns.size, step):
        codes = unpack(planes, rows, columns[lo:lo + step]).T          # (b, n)
        bits = np.zeros((codes.shape[0], 2, 64 * n_words), np.uint8)
        bits[:, 0, positions] = codes & 1
        bits[:, 1, positions] = codes >> 1
        out[lo:lo + step] = np.packbits(bits, axis=2, bitorder="little").view("<u8")
    return out


@kernel(vectorised.cell_mismatch_counts)
@njit(cache=True, parallel=True, nogil=True)
def cell_mismatch_counts(columns, masks, positions, bounds, cells, out):
    """out[cells[q, g], t] += the number of instances of group g among the neighbourhood of
    query q whose code of column t differs from the query's: ``columns`` (a, 2, N) of
    :func:`column_planes`, group g at words ``bounds[g]:bounds[g + 1]``; ``masks[q]`` (N
    words) the neighbourhood's bits at the same positions, ``positions[q]`` the query's own
    bit. A column's mismatch word is ``(c0 ^ f0) | (c1 ^ f1)`` with f the query's bits spread
    over the word; integer counts (exact in any order). Parallel over the columns."""
    one = np.uint64(1)
    for t in prange(columns.shape[0]):
        c0, c1 = columns[t, 0], columns[t, 1]
        for q in range(masks.shape[0]):
            p = positions[q]
            bit = np.uint64(p & 63)
            f0 = np.uint64(0) - ((c0[p >> 6] >> bit) & one)
            f1 = np.uint64(0) - ((c1[p >> 6] >> bit) & one)
            mask = masks[q]
            for g in range(bounds.size - 1):
                s = np.uint64(0)
                for v in range(bounds[g], bounds[g + 1]):
                    s += popcount(((c0[v] ^ f0) | (c1[v] ^ f1)) & mask[v])
                out[cells[q, g], t] += np.int64(s)
