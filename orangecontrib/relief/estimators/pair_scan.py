"""Every pair of discrete attributes (SNPs) tested for interaction: BOOST's exhaustive scan.

The test is the one of :mod:`.interactions`: for attributes A and B (values i, j) and a class C
(values c), the likelihood ratio of the saturated log-linear model of the C x I x J table of
counts ``n_cij`` against the model of no three-factor interaction [CA][CB][AB] — for a binary
class the logistic regression with A, B and A x B as factors against the one without A x B
(Wan, Yang, Yang, Xue, Fan, Tang & Yu, "BOOST: a fast approach to detecting gene-gene
interactions in genome-wide case-control studies", Am. J. Hum. Genet. 87(3):325-340, 2010,
eqs. 3-5)::

    G² = 2 Σ n_cij log(n_cij / m_cij),        p = P(χ²_df >= G²),

``m_cij`` the fit of no interaction (iterative proportional fitting,
:func:`.interactions.no_interaction_fit`) and df = (C - 1)(I - 1)(J - 1) counting the classes and
values present in the pair's table (:func:`.interactions.table_df`). Here every pair of the
attributes is tested and the p-value is the chi-square test's. Measured on simulated
SNPs without interaction (the benchmark ``pair_scan.py``), the p-values are valid in every
stratum of allele frequencies: common x common pairs give p < 0.05 in about 5 % of the pairs,
rare x rare ones in fewer (the test is conservative on sparse tables), with and without main
effects of the SNPs. The screen below uses the df of the interaction terms that can be
estimated on the table (:func:`interaction_df`), never more than the test's: a lower threshold,
so it keeps every pair the test may find.

**Tables from bit planes** (Wan et al. 2010, "Boolean representation"): the instances are
ordered by class and, for each attribute and value v, a bit plane marks the instances of each
class that have the value (each class padded to whole 64-bit words). The count ``n_cij`` of a
pair is the popcount of the AND of A's plane of i and B's plane of j over the words of class c.
Without missing values only the cells i, j < V - 1 are counted (V the most values of an
attribute: 3 genotypes give 4 cells of 9); the others follow from the attributes' own counts
``n_ci`` and ``n_cj`` and the class size ``n_c``::

    n_{c,i,V-1} = n_ci - Σ_{j<V-1} n_cij,    n_{c,V-1,j} = n_cj - Σ_{i<V-1} n_cij,
    n_{c,V-1,V-1} = n_c - (the other cells).

With missing values every cell is counted (an instance missing A or B is in no cell).

**The screen** (Wan et al. 2010, eqs. 6-8): iterative fitting of every pair would cost more than
its counting. The Kirkwood superposition approximation of the fit, in counts::

    m'_cij = (N / S) n_.ij n_ci. n_c.j / (n_.i. n_..j n_c..),
    S = Σ_cij n_.ij n_ci. n_c.j / (n_.i. n_..j n_c..),

is a distribution of no three-factor interaction (a product of functions of (i, j), (c, i) and
(c, j)), so its statistic G'² = 2 Σ n_cij log(n_cij / m'_cij) is at least the likelihood ratio
G², which is the smallest over that family. G'² is a sum of ``k log k`` terms of the table and
its margins (looked up) plus ``N log(S / N)``: one logarithm a pair. A pair whose G'² is below
the chi-square quantile of a p-value ``tau`` cannot have p <= tau; every other pair (the
*survivors*) gets the exact test, G² by iterative proportional fitting and its chi-square
p-value. ``tau`` is 1 (every pair exact) up to ``EXACT_PAIRS`` pairs and ``EXACT_PAIRS / M``
for M pairs above, so that about that many pairs are fitted however many are tested.

**What is kept** (memory bounded): the ``top`` best pairs (smallest p, ties by G²) among those
with p <= tau, merged block after block, and a histogram of -log p of every pair with
p <= tau in bins of width ``BIN_WIDTH`` — never an array of all pairs (up to ``EXACT_PAIRS``
pairs, their p-values themselves).

**q-values** (Benjamini & Hochberg 1995 over all M pairs tested, pairs of a constant attribute
counting with p = 1): q_(r) = min_{j >= r} p_(j) M / j. Up to ``EXACT_PAIRS`` pairs every
p-value is kept and q is exact. Above, the kept pairs are the r smallest p-values exactly, and
the histogram gives, for each bin edge t = exp(-b w), the number J_b of pairs with
p <= t: the J_b-th smallest p-value is at most t, so t M / J_b bounds the term of rank J_b from
above. The q-value reported is the minimum of the exact terms of the kept pairs and the bins'
bounds (those with J_b >= r): never below the exact q-value, and at most exp(w) (1 %) above it
whenever the minimum is reached at a pair with p <= tau — in particular whenever the reported
q-value is at most tau. Above tau, the reported q-values are upper bounds.

Without missing values the margins of every pair's table are its attributes' own counts
(``n_ci.`` and ``n_c.j``, ``n_.i.``, ``n_..j``, ``n_c..``), so the terms of G'² that depend
on one attribute's margins (``own = sum_i (n_.i. log n_.i. - sum_c n_ci. log n_ci.)``, and
``n_ci. / (n_.i. n_c..)``, ``n_c.j / n_..j`` of S) are computed once an attribute; a pair adds
the k log k of its cells and of ``n_.ij``. For SNPs of two classes (the common case) the kernel keeps the 18 cells in scalars;
the order of the operations is the same as for any table, so the same G'².

**Cost** (``benchmarks/pair_scan.py``): the popcounts of 4 word pairs (SNPs, 2 classes) per
64 instances of each pair, then 27 lookups of k log k and a logarithm, in tiles of attributes
that stay in the cache, on every core (``prange`` over the tiles); the bit planes take
(V - 1) N / 8 bytes an attribute.
"""
from collections import namedtuple

import numpy as np
from numba import njit, prange

from ..compilation import kernel, small_data_only
from .base import parallel_launch
from .neighbourhood.packed import popcount
from .neighbourhood.vectorised import SMALL_WORK
from .significance import benjamini_hochberg

__all__ = ["scan", "Scan", "interaction_df", "margin_terms", "pair_planes", "scan_tiles",
           "PairPlanes", "SCAN_VALUES", "EXACT_PAIRS", "BIN_WIDTH"]

#: the most values an attribute of the scan may have (genotypes: 3)
SCAN_VALUES = 4
#: the pairs given the exact test however many are tested (module docstring: ``tau``)
EXACT_PAIRS = 50_000
#: width of the histogram's bins of -log p (q-values within exp(BIN_WIDTH) of exact)
BIN_WIDTH = 0.01
#: -log p of the last bin (p below 1e-323 are in it)
LAST_TAIL = 745.0
#: attributes a side of a tile of pairs
TILE = 128
#: pairs of one call of the kernel (a progress report and a chance to cancel after each)
CHUNK_PAIRS = 2 ** 19
#: survivors fitted at once (the fitting calls the progress callback between rounds)
FIT_BLOCK = 8192
#: the most word operations (pairs x words x counted cells) the numpy equivalent takes on
NUMPY_WORK = 5 * 10 ** 8

#: the bit planes of the scan: ``planes`` (a, P, W) uint64, bit k of word w of plane v of an
#: attribute set where the k-th instance of the class whose words ``bounds[c]:bounds[c + 1]``
#: hold w has value v; ``counts`` (a, C, V) int64 the instances of class c with value v;
#: ``derive``: whether the last value's cells are derived from the counts (no missing values;
#: then P = V - 1, else P = V)
PairPlanes = namedtuple("PairPlanes", "planes counts bounds derive")
#: the screen: ``thresholds[df]`` the least G'² of a survivor, ``xlogx[k]`` = k log k; where no
#: value is missing (the margins of a pair's table are then its attributes' own counts), each
#: attribute's part of G'² ``own`` (a,) and its ``weight`` and ``share`` (a, C, V)
#: (:func:`margin_terms`), ``constant`` the classes' part and ``n`` the instances
Screen = namedtuple("Screen", "thresholds xlogx own weight share constant n")


def interaction_df(tables):
    """(P,) degrees of freedom (C' - 1)(E - I - J + K) of the test of interaction on each
    (C, I, J) table of counts in ``tables`` (P, C, I, J): C' the classes present, I and J the
    values of the two attributes present, E their combinations present and K the connected
    components of the graph whose edges are those combinations — the parameters of the
    logistic model with interaction on the present combinations less those of the model
    without it (the rank of its design there, I + J - K). A full table has E = IJ, K = 1 and
    df = (C - 1)(I - 1)(J - 1); 0 where fewer than two classes are present. The components by
    propagating the smallest row index along the edges."""
    tables = np.asarray(tables)
    rows_n, cols_n = tables.shape[2], tables.shape[3]
    cells = tables.sum(axis=1) > 0                                  # (P, I, J)
    rows, cols = cells.any(axis=2), cells.any(axis=1)
    classes = (tables.sum(axis=(2, 3)) > 0).sum(axis=1)
    none = rows_n + cols_n
    label = np.where(rows, np.arange(rows_n), none)                 # (P, I)
    for _ in range(rows_n + cols_n):
        col_label = np.where(cells, label[:, :, None], none).min(axis=1)          # (P, J)
        label = np.minimum(label, np.where(cells, col_label[:, None, :], none).min(axis=2))
    components = (rows & (label == np.arange(rows_n))).sum(axis=1)
    free = cells.sum(axis=(1, 2)) - rows.sum(axis=1) - cols.sum(axis=1) + components
    return np.where(classes > 1, (classes - 1) * free, 0).astype(float)


# ---------------------------------------------------------------------------------------------
# the numpy equivalent of the kernel


def _tables_numpy(bundle, i0, i1, j0, j1):
    """(pairs i, j of the tile with i < j in row order, their (C, V, V) int64 tables)."""
    planes, counts, bounds, derive = bundle
    C, V = counts.shape[1], counts.shape[2]
    P = planes.shape[1]
    ri, rj = np.nonzero(np.arange(j0, j1)[None, :] > np.arange(i0, i1)[:, None])
    ii, jj = ri + i0, rj + j0
    tables = np.zeros((ii.size, C, V, V), np.int64)
    # (W, r, P, 1) and (W, 1, s, 1, P): a word at a time, every pair of the tile's rectangle
    a = np.ascontiguousarray(planes[i0:i1].transpose(2, 0, 1))[:, :, None, :, None]
    b = np.ascontiguousarray(planes[j0:j1].transpose(2, 0, 1))[:, None, :, None, :]
    rect = np.empty((i1 - i0, j1 - j0, P, P), np.int64)
    for c in range(C):
        rect[:] = 0
        for w in range(bounds[c], bounds[c + 1]):
            rect += np.bitwise_count(a[w] & b[w])
        tables[:, c, :P, :P] = rect[ri, rj]
        if derive:              # (sums over the short axes by adding their slices)
            last = V - 1
            tables[:, c, :P, last] = counts[ii, c, :P] - _add(tables[:, c, :P, :P], axis=2)
            tables[:, c, last, :P] = counts[jj, c, :P] - _add(tables[:, c, :P, :P], axis=1)
            tables[:, c, last, last] = counts[ii, c, last] - _add(tables[:, c, last, :P],
                                                                  axis=1)
    return ii, jj, tables


def _add(x, axis):
    """x summed over a short ``axis`` by adding its slices (numpy's reduction over a short
    inner axis is slow)."""
    x = np.moveaxis(x, axis, 0)
    total = x[0].copy()
    for part in x[1:]:
        total += part
    return total


def margin_terms(ncv, nc, xlogx):
    """The parts of G'² (module docstring) that depend on one attribute's margins, of each of
    Q attributes or pairs' sides: ``ncv`` (Q, C, V) the instances of class c with value v,
    ``nc`` (Q, C) those of class c. Returns ``own`` (Q,) = sum_v (n_v log n_v -
    sum_c n_cv log n_cv), ``weight`` (Q, C, V) = n_cv / (n_v n_c) and ``share`` (Q, C, V) =
    n_cv / n_v (0 where n_cv = 0) — each the kernel's operations in its order, so the same
    numbers per attribute (the scan's screen without missing values) as per pair."""
    Q, C, V = ncv.shape
    nv = ncv.sum(axis=1)
    own = np.zeros(Q)
    for v in range(V):
        own = own + xlogx[nv[:, v]]
        for c in range(C):
            own = own - xlogx[ncv[:, c, v]]
    counted = ncv.astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        weight = np.where(ncv > 0, counted / (nv.astype(float)[:, None, :]
                                              * nc.astype(float)[:, :, None]), 0.0)
        share = np.where(ncv > 0, counted / nv.astype(float)[:, None, :], 0.0)
    return own, weight, share


def _screen_numpy(tables, screen, ii, jj, derive):
    """G'² of each table (module docstring) of the pairs ``ii``, ``jj``, the kernel's
    operations in the kernel's order; without missing values (``derive``) the attributes'
    margin terms are ``screen``'s."""
    t, xlogx = tables, screen.xlogx
    Q, C, V, _ = t.shape
    nij = _add(t, axis=1)
    if derive:
        own_a, weight, own_b, share = screen.own[ii], screen.weight[ii], screen.own[jj], \
            screen.share[jj]
        n = np.full(Q, screen.n)
        constant = np.full(Q, screen.constant)
    else:
        nci, ncj = t.sum(axis=3), t.sum(axis=2)
        nc = nci.sum(axis=2)
        n = nc.sum(axis=1)
        own_a, weight, _ = margin_terms(nci, nc, xlogx)
        own_b, _, share = margin_terms(ncj, nc, xlogx)
        constant = np.zeros(Q)
        for c in range(C):
            constant = constant + xlogx[nc[:, c]]
    acc = np.zeros(Q)
    for c in range(C):
        for i in range(V):
            for j in range(V):
                acc = acc + xlogx[t[:, c, i, j]]
    for i in range(V):
        for j in range(V):
            acc = acc - xlogx[nij[:, i, j]]
    acc = acc + own_a + own_b + constant
    s = np.zeros(Q)
    for c in range(C):
        for i in range(V):
            inner = np.zeros(Q)
            for j in range(V):
                inner = inner + nij[:, i, j].astype(float) * share[:, c, j]
            s = s + weight[:, c, i] * inner
    nf = n.astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        g = np.where(n > 0, 2.0 * (acc + nf * np.log(s / nf)), 0.0)
    return np.maximum(g, 0.0)


def scan_tiles_numpy(bundle, screen, tiles, offsets, found, found_tables, n_found):
    """:func:`scan_tiles` with numpy: the tables by ``np.bitwise_count``, the screen's sums in
    the kernel's order, df of the pairs the screen may keep; up to ``NUMPY_WORK`` word
    operations."""
    planes = bundle.planes
    work = int(_tile_pairs(tiles).sum()) * planes.shape[2] * planes.shape[1] ** 2
    if work > (SMALL_WORK if small_data_only() else NUMPY_WORK):
        return NotImplemented
    least = screen.thresholds.min()
    for t in range(tiles.shape[0]):
        i0, i1, j0, j1 = tiles[t]
        ii, jj, tables = _tables_numpy(bundle, i0, i1, j0, j1)
        g = _screen_numpy(tables, screen, ii, jj, bundle.derive)
        near = np.flatnonzero(g >= least)      # below every df's threshold: no df needed
        df = interaction_df(tables[near]).astype(np.intp)
        keep = near[g[near] >= screen.thresholds[df]]
        k = keep.size
        start = offsets[t]
        found[start:start + k, 0] = ii[keep]
        found[start:start + k, 1] = jj[keep]
        found_tables[start:start + k] = tables[keep]
        n_found[t] = k
    return None


# ---------------------------------------------------------------------------------------------
# the kernel


@njit(cache=True, nogil=True, inline="always")
def _popcounts(planes, i, j, lo, hi):
    """The four counted cells (0, 0), (0, 1), (1, 0), (1, 1) of attributes i and j over the
    words [lo, hi) of planes 0 and 1: four AND-popcounts a word."""
    s00 = np.uint64(0)
    s01 = np.uint64(0)
    s10 = np.uint64(0)
    s11 = np.uint64(0)
    # slices indexed from 0: the indices are known not to be negative (no wraparound), so the
    # loop is vectorised over contiguous words
    pa0, pa1 = planes[i, 0, lo:hi], planes[i, 1, lo:hi]
    pb0, pb1 = planes[j, 0, lo:hi], planes[j, 1, lo:hi]
    for w in range(hi - lo):
        a0, a1, b0, b1 = pa0[w], pa1[w], pb0[w], pb1[w]
        s00 += popcount(a0 & b0)
        s01 += popcount(a0 & b1)
        s10 += popcount(a1 & b0)
        s11 += popcount(a1 & b1)
    return np.int64(s00), np.int64(s01), np.int64(s10), np.int64(s11)


@njit(cache=True, nogil=True)
def _count(planes, counts, bounds, derive, i, j, table):
    """table[c, a, b] = the instances of class c with value a of attribute i and b of j."""
    n_planes = planes.shape[1]
    last = table.shape[1] - 1
    for c in range(bounds.size - 1):
        lo, hi = bounds[c], bounds[c + 1]
        if n_planes == 2:
            table[c, 0, 0], table[c, 0, 1], table[c, 1, 0], table[c, 1, 1] = _popcounts(
                planes, i, j, lo, hi)
        else:
            for a in range(n_planes):
                for b in range(n_planes):
                    s = np.uint64(0)
                    for w in range(lo, hi):
                        s += popcount(planes[i, a, w] & planes[j, b, w])
                    table[c, a, b] = np.int64(s)
        if derive:
            size = np.int64(0)
            for v in range(counts.shape[2]):
                size += counts[i, c, v]
            inner = np.int64(0)
            for a in range(n_planes):
                row = np.int64(0)
                for b in range(n_planes):
                    row += table[c, a, b]
                table[c, a, last] = counts[i, c, a] - row
                inner += row
            for b in range(n_planes):
                col = np.int64(0)
                for a in range(n_planes):
                    col += table[c, a, b]
                table[c, last, b] = counts[j, c, b] - col
            rest = inner
            for a in range(n_planes):
                rest += table[c, a, last] + table[c, last, a]
            table[c, last, last] = size - rest


@njit(cache=True, nogil=True, inline="always")
def _snp_cells(planes, counts, i, j, c, lo, hi):
    """The 3 x 3 table of class c (words [lo, hi)) of SNPs i and j without missing values:
    four cells counted, five derived from the SNPs' own counts (module docstring)."""
    n00, n01, n10, n11 = _popcounts(planes, i, j, lo, hi)
    n02 = counts[i, c, 0] - n00 - n01
    n12 = counts[i, c, 1] - n10 - n11
    n20 = counts[j, c, 0] - n00 - n10
    n21 = counts[j, c, 1] - n01 - n11
    return n00, n01, n02, n10, n11, n12, n20, n21, counts[i, c, 2] - n20 - n21


@njit(cache=True, nogil=True, inline="always")
def _inner(n0, n1, n2, share, j, c):
    """sum_j' n_ij' n_cj' / n_j' of a row (n0, n1, n2) of the pair's table, ``share`` of SNP j
    (the operations of :func:`_screen` in its order)."""
    inner = 0.0
    inner += np.float64(n0) * share[j, c, 0]
    inner += np.float64(n1) * share[j, c, 1]
    inner += np.float64(n2) * share[j, c, 2]
    return inner


@njit(cache=True, nogil=True, inline="always")
def _snp_screen(planes, counts, bounds, screen, i, j, table):
    """G'² of :func:`_screen` for two classes and SNPs (3 values) without missing values, in
    scalars: the 18 cells counted and derived, the margins of each SNP read from ``screen``
    (:func:`margin_terms`), the same operations in the same order as :func:`_screen`, so the
    same number. The cells are written to ``table``."""
    xl = screen.xlogx
    a00, a01, a02, a10, a11, a12, a20, a21, a22 = _snp_cells(planes, counts, i, j, 0,
                                                             bounds[0], bounds[1])
    b00, b01, b02, b10, b11, b12, b20, b21, b22 = _snp_cells(planes, counts, i, j, 1,
                                                             bounds[1], bounds[2])
    acc = 0.0
    acc += xl[a00]
    acc += xl[a01]
    acc += xl[a02]
    acc += xl[a10]
    acc += xl[a11]
    acc += xl[a12]
    acc += xl[a20]
    acc += xl[a21]
    acc += xl[a22]
    acc += xl[b00]
    acc += xl[b01]
    acc += xl[b02]
    acc += xl[b10]
    acc += xl[b11]
    acc += xl[b12]
    acc += xl[b20]
    acc += xl[b21]
    acc += xl[b22]
    n00, n01, n02 = a00 + b00, a01 + b01, a02 + b02
    n10, n11, n12 = a10 + b10, a11 + b11, a12 + b12
    n20, n21, n22 = a20 + b20, a21 + b21, a22 + b22
    acc -= xl[n00]
    acc -= xl[n01]
    acc -= xl[n02]
    acc -= xl[n10]
    acc -= xl[n11]
    acc -= xl[n12]
    acc -= xl[n20]
    acc -= xl[n21]
    acc -= xl[n22]
    acc += screen.own[i]
    acc += screen.own[j]
    acc += screen.constant
    weight, share = screen.weight, screen.share
    s = 0.0
    for c in range(2):
        s += weight[i, c, 0] * _inner(n00, n01, n02, share, j, c)
        s += weight[i, c, 1] * _inner(n10, n11, n12, share, j, c)
        s += weight[i, c, 2] * _inner(n20, n21, n22, share, j, c)
    table[0, 0, 0], table[0, 0, 1], table[0, 0, 2] = a00, a01, a02
    table[0, 1, 0], table[0, 1, 1], table[0, 1, 2] = a10, a11, a12
    table[0, 2, 0], table[0, 2, 1], table[0, 2, 2] = a20, a21, a22
    table[1, 0, 0], table[1, 0, 1], table[1, 0, 2] = b00, b01, b02
    table[1, 1, 0], table[1, 1, 1], table[1, 1, 2] = b10, b11, b12
    table[1, 2, 0], table[1, 2, 1], table[1, 2, 2] = b20, b21, b22
    nf = np.float64(screen.n)
    return max(2.0 * (acc + nf * np.log(s / nf)), 0.0)


@njit(cache=True, nogil=True)
def _degrees(table, nij, parent):
    """(C' - 1)(E - I' - J' + K) of :func:`interaction_df`, by union-find; ``nij`` and
    ``parent`` are its workspace."""
    C, V = table.shape[0], table.shape[1]
    nij[:] = 0
    classes = 0
    for c in range(C):
        size = np.int64(0)
        for i in range(V):
            for j in range(V):
                size += table[c, i, j]
                nij[i, j] += table[c, i, j]
        if size > 0:
            classes += 1
    if classes < 2:
        return 0
    for x in range(2 * V):
        parent[x] = x
    edges = 0
    for i in range(V):
        for j in range(V):
            if nij[i, j] > 0:
                edges += 1
                a = i
                while parent[a] != a:
                    a = parent[a]
                b = V + j
                while parent[b] != b:
                    b = parent[b]
                if a != b:
                    parent[max(a, b)] = min(a, b)
    nodes = 0
    components = 0
    for x in range(2 * V):
        present = False
        for y in range(V):
            if (x < V and nij[x, y] > 0) or (x >= V and nij[y, x - V] > 0):
                present = True
        if present:
            nodes += 1
            if parent[x] == x:
                components += 1
    return (classes - 1) * (edges - nodes + components)


@njit(cache=True, nogil=True)
def _own(n, ncv, xlogx):
    """sum_v (n_v log n_v - sum_c n_cv log n_cv): an attribute's part of G'² (its margins)."""
    own = 0.0
    for v in range(n.size):
        own += xlogx[n[v]]
        for c in range(ncv.shape[0]):
            own -= xlogx[ncv[c, v]]
    return own


@njit(cache=True, nogil=True)
def _screen(table, xlogx, nij, nci, ncj, ni, nj, nc):
    """G'² of the Kirkwood superposition approximation (module docstring); fills the
    margins."""
    C, V = table.shape[0], table.shape[1]
    nij[:] = 0
    nci[:] = 0
    ncj[:] = 0
    ni[:] = 0
    nj[:] = 0
    nc[:] = 0
    for c in range(C):
        for i in range(V):
            for j in range(V):
                x = table[c, i, j]
                nij[i, j] += x
                nci[c, i] += x
                ncj[c, j] += x
                ni[i] += x
                nj[j] += x
                nc[c] += x
    acc = 0.0
    for c in range(C):
        for i in range(V):
            for j in range(V):
                acc += xlogx[table[c, i, j]]
    for i in range(V):
        for j in range(V):
            acc -= xlogx[nij[i, j]]
    acc += _own(ni, nci, xlogx)
    acc += _own(nj, ncj, xlogx)
    constant = 0.0
    n = np.int64(0)
    for c in range(C):
        constant += xlogx[nc[c]]
        n += nc[c]
    acc += constant
    if n == 0:
        return 0.0
    s = 0.0
    for c in range(C):
        for i in range(V):
            if nci[c, i] > 0:
                w = np.float64(nci[c, i]) / (np.float64(ni[i]) * np.float64(nc[c]))
                inner = 0.0
                for j in range(V):
                    if ncj[c, j] > 0:
                        inner += np.float64(nij[i, j]) * (np.float64(ncj[c, j])
                                                          / np.float64(nj[j]))
                s += w * inner
    nf = np.float64(n)
    return max(2.0 * (acc + nf * np.log(s / nf)), 0.0)


@kernel(scan_tiles_numpy)
@njit(cache=True, parallel=True, nogil=True)
def scan_tiles(bundle, screen, tiles, offsets, found, found_tables, n_found):
    """For each tile (i0, i1, j0, j1) of ``tiles``, the pairs i < j of attributes i in
    [i0, i1), j in [j0, j1), in row order: the table of counts from ``bundle``
    (:class:`PairPlanes`), its df and the screen's G'² (module docstring); a pair with
    G'² >= ``screen.thresholds[df]`` survives: its indices and table are written to ``found``
    and ``found_tables`` from row ``offsets[t]`` on, and ``n_found[t]`` counts them. Parallel
    over the tiles."""
    planes, counts, bounds, derive = bundle
    C, V = counts.shape[1], counts.shape[2]
    snps = derive and C == 2 and V == 3
    least = screen.thresholds.min()
    for t in prange(tiles.shape[0]):
        i0, i1, j0, j1 = tiles[t, 0], tiles[t, 1], tiles[t, 2], tiles[t, 3]
        table = np.zeros((C, V, V), np.int64)
        nij = np.zeros((V, V), np.int64)
        nci = np.zeros((C, V), np.int64)
        ncj = np.zeros((C, V), np.int64)
        ni = np.zeros(V, np.int64)
        nj = np.zeros(V, np.int64)
        nc = np.zeros(C, np.int64)
        parent = np.zeros(2 * V, np.int64)
        k = offsets[t]
        for i in range(i0, i1):
            for j in range(max(j0, i + 1), j1):
                if snps:
                    g = _snp_screen(planes, counts, bounds, screen, i, j, table)
                else:
                    _count(planes, counts, bounds, derive, i, j, table)
                    g = _screen(table, screen.xlogx, nij, nci, ncj, ni, nj, nc)
                if g < least:           # below the threshold of every df: no df needed
                    continue
                df = _degrees(table, nij, parent)
                if g >= screen.thresholds[df]:
                    found[k, 0] = i
                    found[k, 1] = j
                    for c in range(C):
                        for a in range(V):
                            for b in range(V):
                                found_tables[k, c, a, b] = table[c, a, b]
                    k += 1
        n_found[t] = k - offsets[t]


# ---------------------------------------------------------------------------------------------
# the scan


def pair_planes(data, columns, codes, block=2048):
    """:class:`PairPlanes` of ``data``'s attributes ``columns`` (module docstring), built a
    ``block`` of attributes at a time; ``codes(columns)`` gives the (n, len(columns)) float
    value codes of some of them (NaN missing)."""
    y = data.y.astype(np.intp)
    n_classes = int(data.n_classes)
    order = np.argsort(y, kind="stable")
    sizes = np.bincount(y, minlength=n_classes)
    words = (sizes + 63) // 64
    bounds = np.concatenate([[0], np.cumsum(words)]).astype(np.int64)
    starts = np.concatenate([[0], np.cumsum(sizes)])
    V = max(2, int(data.n_values[columns].max()))
    missing = data.any_missing and any(
        np.isnan(codes(columns[lo:lo + block])).any()
        for lo in range(0, columns.size, block))
    n_planes = V if missing else V - 1
    planes = np.zeros((columns.size, n_planes, int(bounds[-1])), np.uint64)
    counts = np.zeros((columns.size, n_classes, V), np.int64)
    for lo in range(0, columns.size, block):
        block_codes = codes(columns[lo:lo + block])[order].T                  # (b, n)
        for c in range(n_classes):
            part = block_codes[:, starts[c]:starts[c + 1]]
            for v in range(V):
                bits = part == v
                counts[lo:lo + block, c, v] = bits.sum(axis=1)
                if v < n_planes:
                    padded = np.zeros((bits.shape[0], 64 * int(words[c])), np.uint8)
                    padded[:, :bits.shape[1]] = bits
                    planes[lo:lo + block, v, bounds[c]:bounds[c + 1]] = np.packbits(
                        padded, axis=1, bitorder="little").view("<u8")
    return PairPlanes(planes, counts, bounds, not missing)


def _tiles(a):
    """(tiles (T, 4) int64 of the upper triangle of a x a in row order, their pair counts)."""
    edges = list(range(0, a, TILE)) + [a]
    tiles = [(edges[r], edges[r + 1], edges[s], edges[s + 1])
             for r in range(len(edges) - 1) for s in range(r, len(edges) - 1)]
    tiles = np.array(tiles, np.int64).reshape(-1, 4)
    return tiles, _tile_pairs(tiles)


def _tile_pairs(tiles):
    """The pairs i < j of each tile (i0, i1, j0, j1) of the upper triangle."""
    sides = tiles[:, 1] - tiles[:, 0]
    return np.where(tiles[:, 0] == tiles[:, 2], sides * (sides - 1) // 2,
                    sides * (tiles[:, 3] - tiles[:, 2]))


def _screen_for(tau, max_df, counts, n):
    """:class:`Screen` for the exact test of every pair that may have p <= ``tau``, of
    attributes of ``counts`` (:class:`PairPlanes`) among ``n`` instances."""
    from scipy import stats
    df = np.arange(1, max_df + 1)
    quantile = stats.chi2.isf(tau, df) if tau < 1 else np.zeros(max_df)
    thresholds = np.concatenate([[np.inf], quantile * (1 - 1e-9) - 1e-6])
    k = np.arange(n + 1, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        xlogx = np.where(k > 0, k * np.log(k), 0.0)
    nc = counts.sum(axis=2)
    own, weight, share = margin_terms(counts, nc, xlogx)
    constant = 0.0
    for c in range(counts.shape[1]):
        constant += xlogx[nc[0, c]] if counts.shape[0] else 0.0
    return Screen(thresholds, xlogx, own, weight, share, constant, np.int64(nc[0].sum())
                  if counts.shape[0] else np.int64(0))


#: what :func:`scan` finds: the ``top`` best pairs (indices ``first`` < ``second`` into the
#: data's attributes, G² ``statistics``, ``df``, -log p ``tails``, ``qvalues``), best first;
#: ``n_tested`` the pairs tested, ``exact_below`` the screen's tau (module docstring)
Scan = namedtuple("Scan", "first second statistics df tails qvalues n_tested exact_below")


def check_scan(data, columns):
    """Raise ValueError where the scan cannot take ``data``'s attributes ``columns`` (more
    than ``SCAN_VALUES`` values)."""
    many = columns[data.n_values[columns] > SCAN_VALUES]
    if many.size:
        name = data.names[many[0]] if len(data.names) > many[0] else f"attribute {many[0]}"
        raise ValueError(f"the scan of every pair takes attributes of at most {SCAN_VALUES} "
                         f"values (genotypes); {name} has {data.n_values[many[0]]}: test "
                         f"the pairs of chosen attributes instead")


def scan(data, columns, top, exact, codes, callback=None):
    """BOOST's scan (module docstring) of every pair of ``data``'s attributes ``columns``
    (:class:`.encoding.EncodedData`, discrete attributes of at most ``SCAN_VALUES`` values, a
    discrete class): the tables of all pairs from bit planes, the screen, and for the survivors
    ``exact(tables, step)`` — (G², df, -log p) of (P, C, V, V) float tables, calling
    ``step()`` now and then — with ``codes(columns)`` the attributes' float value codes.
    Returns :class:`Scan`. ``callback(fraction)`` reports progress; raising from it cancels."""
    check_scan(data, columns)
    a = columns.size
    m = a * (a - 1) // 2
    tau = 1.0 if m <= EXACT_PAIRS else EXACT_PAIRS / m
    bundle = pair_planes(data, columns, codes)
    if callback is not None:
        callback(0.0)
    n_classes, n_values = bundle.counts.shape[1], bundle.counts.shape[2]
    screen = _screen_for(tau, (n_classes - 1) * (n_values - 1) ** 2, bundle.counts,
                         data.n_instances)
    tiles, tile_pairs = _tiles(a)
    n_bins = int(LAST_TAIL / BIN_WIDTH) + 1
    histogram = np.zeros(n_bins, np.int64)
    every = [] if tau == 1.0 else None
    best = _Best(top)
    done = 0
    lo = 0
    while lo < tiles.shape[0]:
        hi = lo + 1
        while hi < tiles.shape[0] and tile_pairs[lo:hi + 1].sum() <= CHUNK_PAIRS:
            hi += 1
        offsets = np.concatenate([[0], np.cumsum(tile_pairs[lo:hi])]).astype(np.int64)
        capacity = int(offsets[-1])
        found = np.zeros((capacity, 2), np.int32)
        found_tables = np.zeros((capacity, n_classes, n_values, n_values), np.int32)
        n_found = np.zeros(hi - lo, np.int64)
        with parallel_launch():
            scan_tiles(bundle, screen, tiles[lo:hi], offsets[:-1], found, found_tables,
                       n_found)
        rows = np.concatenate([np.arange(o, o + k) for o, k in zip(offsets[:-1], n_found)])
        pairs_done = done
        for start in range(0, rows.size, FIT_BLOCK):
            block = rows[start:start + FIT_BLOCK]
            tables = found_tables[block].astype(float)
            step = None if callback is None else \
                (lambda: callback(pairs_done / m))
            statistic, df, tail = exact(tables, step)
            counted = tail >= -np.log(tau) if tau < 1 else np.ones(tail.size, bool)
            histogram += np.bincount(
                (np.minimum(tail[counted], LAST_TAIL) / BIN_WIDTH).astype(np.intp),
                minlength=n_bins)
            if every is not None:
                every.append(tail)
            one, other = columns[found[block[counted], 0]], columns[found[block[counted], 1]]
            best.offer(tail[counted], statistic[counted], df[counted], np.minimum(one, other),
                       np.maximum(one, other))
        done += capacity
        if callback is not None:
            callback(done / m)
        lo = hi
    if every is not None:
        tails = np.concatenate(every + [np.zeros(m - sum(map(len, every)))])
        qvalues = _exact_q(tails, best.tail.size)
    else:
        qvalues = _bounded_q(best.tail, histogram, m)
    return Scan(best.first, best.second, best.statistic, best.df, best.tail, qvalues, m, tau)


class _Best:
    """The ``top`` pairs of the largest -log p (ties: the largest G², then the indices) among
    those offered so far."""

    def __init__(self, top):
        self.top = top
        self.tail = np.zeros(0)
        self.statistic = np.zeros(0)
        self.df = np.zeros(0)
        self.first = np.zeros(0, np.intp)
        self.second = np.zeros(0, np.intp)

    def offer(self, tail, statistic, df, first, second):
        names = ("tail", "statistic", "df", "first", "second")
        merged = [np.concatenate([getattr(self, k), v])
                  for k, v in zip(names, (tail, statistic, df, first, second))]
        order = np.lexsort((merged[4], merged[3], -merged[1], -merged[0]))[:self.top]
        for k, v in zip(names, merged):
            setattr(self, k, v[order])


def _exact_q(tails, k):
    """The q-values of the ``k`` pairs of the smallest p-values among all pairs' -log p
    ``tails``, best first (equal p-values have equal q-values)."""
    return benjamini_hochberg(np.exp(-np.sort(tails)[::-1]))[:k]


def _bounded_q(tail, histogram, m):
    """Upper bounds of the q-values of the kept pairs (module docstring): the exact terms
    p_(j) m / j of the kept ones (ranks j = 1..K) and, for each bin b of the histogram of -log p,
    exp(-b w) m / J_b with J_b the pairs in bins b and above (when J_b >= the pair's rank)."""
    k = tail.size
    if k == 0:
        return np.zeros(0)
    p = np.exp(-tail)
    exact = p * m / np.arange(1, k + 1)
    suffix = np.minimum.accumulate(exact[::-1])[::-1]
    above = np.cumsum(histogram[::-1])[::-1]                      # J_b
    edges = np.exp(-np.arange(histogram.size) * BIN_WIDTH)
    with np.errstate(divide="ignore"):
        terms = np.where(above > 0, edges * m / np.maximum(above, 1), np.inf)
    # the bins usable for rank r are those with J_b >= r: a prefix b <= b_r (J falls with b)
    prefix = np.minimum.accumulate(terms)
    ranks = np.arange(1, k + 1)
    last_usable = np.searchsorted(-above, -ranks, side="right") - 1     # largest b, J_b >= r
    from_bins = np.where(last_usable >= 0, prefix[np.maximum(last_usable, 0)], np.inf)
    return np.minimum(np.minimum(suffix, from_bins), 1.0)
