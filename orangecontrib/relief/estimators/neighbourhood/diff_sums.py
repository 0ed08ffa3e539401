"""Weighted sums of diffs over the neighbours of the sampled instances, in one compiled pass.

The Relief family's updates (Robnik-Šikonja & Kononenko 1999, Fig. 3 and Fig. 4) are, for each
output r (a coefficient set, a factor set and a number of neighbours k),

    out[r, A] = sum_{i, g} sum_{j < k'} coef_r[i, g, j] * diff(A, R_i, N_igj).

The coefficients of the first k' neighbours of a group are a running sum read at position
k' - 1: with p[f, i, g, j] the pair's factor f times its neighbour influence,
``sum_{j < k'} p[f, i, g, j] diff`` is the running sum of ``p * diff`` after neighbour k' - 1,
and each k only scales it (by the group's coefficient over the sum of the first k'
influences, eq. 13). A :class:`SumPlan` lists those *read-outs*: after neighbour j of (i, g),
add ``scale`` times running sum f to output r. With instance weights (neighbours filling
fractional places) the coefficients of each k are not a prefix; then every output has its own
running sum, read once after the last neighbour.

:func:`fused_sums` walks each sampled instance's neighbours, computes the diffs of a block of
``BLOCK_COLUMNS`` attributes (a branch-free loop per column type that the compiler vectorises)
and adds them to the running sums, so no (instances x neighbours x attributes) array of diffs
is ever built; blocks of columns and chunks of instances are the parallel tasks, and it
releases the GIL. The instances are split into chunks by the work alone (``SUM_TASKS``), never
by the number of threads, so the chunks' sums are added in the same order and the estimates are
the same to the last bit whatever the number of threads. Columns without missing values get the diff of :mod:`.diffs` inline (discrete
0/1; numeric from ``|x - y|`` by the ramp arguments of :attr:`.DiffModel._ramp_args`, the
same arithmetic as :func:`.diffs._diff`); the others the same numbers as :func:`.diffs._diff`
(missing values by RELIEF-B/C/D): a query's diffs to a missing value looked up once per query,
the diffs of known values selected without a branch, the query's missing values looked up
after (:func:`_general_diffs`). Data held only as bit planes (:class:`.packed.PackedColumns`)
get the discrete diff from each pair's mismatch bits (:func:`.packed.mismatch_bits`).
"""
from collections import namedtuple
from dataclasses import dataclass

import numpy as np
from numba import njit, prange

from ...compilation import kernel
from ..base import parallel_launch
from . import vectorised
from .diffs import _code, _threads_for
from .kinds import DISCRETE, DISCRETE_PLAIN, GENERAL, NUMERIC_PLAIN, PACKED, UNUSABLE
from .neighbours import first_k_weights
from .packed import mismatch_bits

__all__ = ["SumPlan", "sum_plan", "plan_totals", "plan_matrix", "column_runs", "fused_sums"]

#: columns per task: a task's running sums and a neighbour's values of them stay in cache
BLOCK_COLUMNS = 256
#: fewest parallel tasks of :func:`fused_sums`: with fewer runs of columns the sampled instances
#: are split into chunks too (a function of the work, not of the threads: see the docstring)
SUM_TASKS = 16


@dataclass(frozen=True)
class SumPlan:
    """What :func:`fused_sums` adds: ``pair[f, i, g, j]`` goes into running sum f with each
    diff of neighbour j of (i, g); read-out e, after neighbour ``at[e]`` of group
    ``ptr``-range (i * G + g), adds ``scale[e]`` times running sum ``source[e]`` to output
    ``target[e]``. Read-outs are sorted by (i, g, at)."""
    pair: np.ndarray       # (F', b, G, K)
    ptr: np.ndarray        # (b * G + 1,) read-outs of (i, g) are ptr[i*G+g]:ptr[i*G+g+1]
    at: np.ndarray         # (E,) neighbour position
    source: np.ndarray     # (E,) running sum
    target: np.ndarray     # (E,) output row
    scale: np.ndarray      # (E,)
    n_outputs: int
    #: (F', b, G) the sum of each group's pairs where every read-out is after its group's
    #: last non-zero pair (each reads that sum), else None
    pair_sums: np.ndarray = None


def sum_plan(ks, places, w, c, f):
    """The :class:`SumPlan` of outputs r = (s * F + f) * len(ks) + q: coefficient set s of
    ``c`` (S, b, G), factor set f of ``f`` (F, b, G, K; None: one set of ones), k = ks[q],
    with the neighbour influences ``w`` (b, G, K) of the first k neighbour places
    (:class:`.NeighbourPlaces` ``places``) normalised over them (eq. 13). With one place per
    neighbour the first k' = min(k, available) places are a prefix but for the run of tied
    neighbours that reaches past the k-th, which fills its remaining places in equal shares:
    the sum is then (1 - alpha) times the running sum before the run plus alpha times the one
    after it, alpha the share of the run's places among the first k' (for a single k, alpha
    is folded into the run's pair influences instead: one read-out, after the run)."""
    S, b, G = c.shape
    F, K = _n_factor_sets(f), w.shape[2]
    n_k = len(ks)
    R = S * F * n_k
    if places.prefix:
        kk = np.minimum(np.asarray(ks)[:, None, None], places.available[None])  # (n_k, b, G)
        i_, g_ = np.arange(b)[None, :, None], np.arange(G)[None, None, :]
        last = np.maximum(kk - 1, 0)
        start, stop = places.runs_through(last)
        alpha = (kk - start) / np.maximum(stop - start, 1)
        if n_k == 1 and np.any(alpha < 1.0):
            return _folded_plan(kk[0], start[0], stop[0], alpha[0], w, c, f)
        pair = _factored(w, f)
        cum = np.cumsum(w, axis=2)
        lo = np.maximum(start - 1, 0)
        below = np.where(start > 0, cum[i_, g_, lo], 0.0)
        first = (1.0 - alpha) * below + alpha * cum[i_, g_, stop - 1]
        norm = _normaliser(kk, first)
        scales = []
        for part, at in ((alpha, stop - 1), (np.where(start > 0, 1.0 - alpha, 0.0), lo)):
            scale = np.broadcast_to(c[:, None, None] * (part * norm)[None, None],
                                    (S, F, n_k, b, G))
            s_, f_, q_, i_, g_ = np.nonzero(scale)
            scales.append((scale[s_, f_, q_, i_, g_], f_, (s_ * F + f_) * n_k + q_,
                           at[q_, i_, g_], i_, g_))
        scale, source, target, position, i_, g_ = (np.concatenate(x) for x in zip(*scales))
    else:
        pair = np.empty((S, F, n_k, b, G, K))
        for q, k in enumerate(ks):
            wk = first_k_weights(w, places, k)
            pair[:, :, q] = c[:, None, ..., None] * wk[None, None]
            if f is not None:
                pair[:, :, q] *= f[None]
        pair = pair.reshape(R, b, G, K)
        last = np.maximum(places.available - 1, 0)
        r_, i_, g_ = np.nonzero(pair.any(axis=3))
        scale = np.ones(r_.size)
        source, target, position = r_, r_, last[i_, g_]
    group = i_ * G + g_
    order = np.lexsort((position, group))
    ptr = np.concatenate([[0], np.cumsum(np.bincount(group, minlength=b * G))])
    return SumPlan(np.ascontiguousarray(pair), ptr.astype(np.intp),
                   position[order].astype(np.intp), source[order].astype(np.intp),
                   target[order].astype(np.intp), scale[order].astype(float), R)


def _n_factor_sets(f):
    """F: the factor sets of ``f`` (F, b, G, K), 1 for None (one set of ones)."""
    return 1 if f is None else f.shape[0]


def _factored(w, f):
    """(F, b, G, K) the influences ``w`` (b, G, K) times each factor set of ``f`` (None: ones,
    ``w`` itself)."""
    return w[None] if f is None else f * w[None]


def _normaliser(kk, first):
    """1 over the influences ``first`` of the first kk places of each group (eq. 13), 0 where
    a group has no neighbour (kk = 0)."""
    return np.where(kk > 0, 1.0 / np.where(kk > 0, first, 1.0), 0.0)


def _folded_plan(kk, start, stop, alpha, w, c, f):
    """The :class:`SumPlan` of :func:`sum_plan` for a single k (``kk`` (b, G) = min(k,
    available)) whose runs through the k-th place (``start``, ``stop``, (b, G)) fill the
    share ``alpha`` of their places: alpha folded into the run's pair influences, one
    read-out per output and group, after the run (so every read-out is the sum of all of the
    group's pairs: ``pair_sums``)."""
    S, b, G = c.shape
    F, K = _n_factor_sets(f), w.shape[2]
    # each group's factors: 1 before the run, alpha in it, 0 after (runs of one value)
    fold = np.repeat(np.stack([np.ones_like(alpha), alpha, np.zeros_like(alpha)], axis=2),
                     np.stack([start, stop - start, K - stop], axis=2).ravel())
    w = np.multiply(w, fold.reshape(w.shape), out=fold.reshape(w.shape))
    first = w.sum(axis=2)
    norm = _normaliser(kk, first)
    # read-outs in the order (group, s, f): the outputs r = s * F + f of each group in turn
    scale = np.broadcast_to((c * norm[None]).transpose(1, 2, 0)[..., None], (b, G, S, F))
    i_, g_, s_, f_ = np.nonzero(scale)
    counts = np.count_nonzero(scale.reshape(b * G, S * F), axis=1)
    pair = _factored(w, f)
    return SumPlan(pair, np.concatenate([[0], np.cumsum(counts)]).astype(np.intp),
                   (stop - 1)[i_, g_].astype(np.intp), f_.astype(np.intp),
                   (s_ * F + f_).astype(np.intp), scale[i_, g_, s_, f_], S * F,
                   first[None] if f is None else pair.sum(axis=3))


def plan_totals(plan):
    """(R,) the outputs with every diff 1: the read-outs of the running sums of ``pair``."""
    if not plan.at.size:
        return np.zeros(plan.n_outputs)
    G = plan.pair.shape[2]
    group = np.repeat(np.arange(plan.ptr.size - 1), np.diff(plan.ptr))
    if plan.pair_sums is not None:      # every read-out sums all of its group's pairs
        values = plan.scale * plan.pair_sums[plan.source, group // G, group % G]
    else:
        cum = np.cumsum(plan.pair, axis=3)
        values = plan.scale * cum[plan.source, group // G, group % G, plan.at]
    return np.bincount(plan.target, weights=values, minlength=plan.n_outputs)


def plan_matrix(plan):
    """(R, b * G * K) the coefficient of each pair's diffs in each output (pairs in the order
    of ``plan.pair``), for diffs given as a matrix (sparse data)."""
    b, G, K = plan.pair.shape[1:]
    group = np.repeat(np.arange(b * G), np.diff(plan.ptr))
    upto = np.arange(K)[None, :] <= plan.at[:, None]
    values = plan.scale[:, None] * plan.pair[plan.source, group // G, group % G] * upto
    out = np.zeros((plan.n_outputs, b * G, K))
    np.add.at(out, (plan.target, group), values)
    return out.reshape(plan.n_outputs, -1)


def column_runs(model):
    """(n, 3) tasks of at most ``BLOCK_COLUMNS`` consecutive columns of one type: (start,
    stop, type), the type DISCRETE_PLAIN or NUMERIC_PLAIN for a usable column without
    missing values, GENERAL for the other usable ones, PACKED for data held as bit planes;
    columns with no known value are left out (their diff is never known)."""
    plain = np.where(model.kind == DISCRETE, DISCRETE_PLAIN, NUMERIC_PLAIN)
    usable = PACKED if model.packed else np.where(model.has_missing, GENERAL, plain)
    kind = np.where(model.kind == UNUSABLE, -1, usable)
    runs = []
    start = 0
    for t in range(1, kind.size + 1):
        if t == kind.size or kind[t] != kind[start] or t - start == BLOCK_COLUMNS:
            if kind[start] >= 0:
                runs.append((start, t, kind[start]))
            start = t
    return np.array(runs, dtype=np.intp).reshape(-1, 3)


def fused_sums(model, rows, neighbours, plan, runs, known=False):
    """out[r, A] of the module docstring for the columns of ``runs`` (:func:`column_runs`; 0
    elsewhere), shape (R, a). ``known``: each diff replaced by 1 where it is known, 0 where it
    is not (RELIEF-C leaves such contributions out), else an unknown diff counts 0."""
    a = model.data.n_attributes
    rows = np.ascontiguousarray(rows, dtype=np.intp)
    neighbours = np.ascontiguousarray(neighbours, dtype=np.intp)
    b, G, K = neighbours.shape
    chunks = min(-(-SUM_TASKS // max(runs.shape[0], 1)), max(b, 1))
    out = np.zeros((chunks, plan.n_outputs, a))
    if runs.shape[0] and plan.at.size:
        arrays = PlanArrays(plan.pair, plan.ptr, plan.at, plan.source, plan.target, plan.scale)
        with _threads_for(b * G * K * a), parallel_launch():
            _fused_sums(rows, neighbours, arrays, runs, chunks, known, model._pair_args(), out)
    return out.sum(axis=0) if chunks > 1 else out[0]


#: what :func:`_fused_sums` reads of a :class:`SumPlan`
PlanArrays = namedtuple("PlanArrays", "pair ptr at source target scale")


@njit(cache=True, nogil=True)
def _query_missing(tables, r, c0, width, xo, xmiss):
    """For query r and the columns c0..c0 + width: ``xo[c, u]`` = the diff of its known value
    to a missing value of an instance of class c (:attr:`.DiffModel.missing_diffs`); the
    columns whose value it misses into ``xmiss``; return their number."""
    X, other = tables.values, tables.other
    n_missing = 0
    for u in range(width):
        t = c0 + u
        x = X[r, t]
        if x == x:
            code = _code(x, t, tables.shift, tables.inv_span, tables.factor, tables.n_codes)
            for c in range(xo.shape[0]):
                xo[c, u] = other[t, code, c]
        else:
            xmiss[n_missing] = u
            n_missing += 1
    return n_missing


@njit(cache=True, nogil=True)
def _general_diffs(d, tables, r, o, c0, width, xo, xmiss, n_xmiss, known):
    """d[u] = :func:`.diffs._diff` (c0 + u, r, o) of columns with missing values, or with
    ``known`` 1 where it is known and 0 where not (an unknown diff otherwise 0): the diffs of
    known values and of a known query value to a missing one (``xo``, :func:`_query_missing`)
    selected without a branch, then those of the query's missing values (``xmiss``) looked
    up."""
    X, kind, lo, hi, slope = tables.values, tables.kind, tables.lo, tables.hi, tables.slope
    other, both = tables.other, tables.both
    shift, inv_span, factor, n_codes = tables.shift, tables.inv_span, tables.factor, tables.n_codes
    c_o, c_r = tables.cls[o], tables.cls[r]
    leave_out = tables.leave_out
    x, z, xc = X[r, c0:c0 + width], X[o, c0:c0 + width], xo[c_o]
    for u in range(width):
        t = c0 + u
        dz = abs(z[u] - x[u])
        v = 1.0 if dz >= hi[t] else (0.0 if dz <= lo[t] else (dz - lo[t]) * slope[t])
        v = (0.0 if x[u] == z[u] else 1.0) if kind[t] == DISCRETE else v
        m = xc[u]                   # loaded either way: a select, not a branch
        d[u] = v if z[u] == z[u] else m
    for k in range(n_xmiss):
        u = xmiss[k]
        t = c0 + u
        y = z[u]
        to_known = other[t, _code(y, t, shift, inv_span, factor, n_codes), c_r]  # both
        to_missing = both[c_r, c_o, t]                                 # loaded: a select
        d[u] = to_known if y == y else to_missing
    if leave_out:           # RELIEF-C: a diff with a missing value is unknown
        for u in range(width):
            d[u] = 1.0 if known else d[u]
            d[u] = d[u] if x[u] == x[u] and z[u] == z[u] else 0.0
    elif known:
        for u in range(width):
            d[u] = 1.0


@kernel(vectorised.fused_sums)
@njit(cache=True, parallel=True, nogil=True)
def _fused_sums(rows, nb, plan, runs, chunks, known, tables, out):
    """out[chunk, target, columns] += the read-outs of the running sums of pair x diff (see
    :class:`SumPlan`; ``plan`` its :class:`PlanArrays`, ``tables`` the diff model's
    :class:`.diffs.DiffTables`); task = (run of columns, chunk of the sampled instances)."""
    pair, ptr, at, source, target, scale = (plan.pair, plan.ptr, plan.at, plan.source,
                                            plan.target, plan.scale)
    X, lo, hi, slope = tables.values, tables.lo, tables.hi, tables.slope
    b, G, K = nb.shape
    n_sums = pair.shape[0]
    n_runs = runs.shape[0]
    n_cls = tables.other.shape[2]
    for task in prange(n_runs * chunks):
        run = task % n_runs
        chunk = task // n_runs
        c0, c1, typ = runs[run, 0], runs[run, 1], runs[run, 2]
        width = c1 - c0
        running = np.zeros((n_sums, width))
        d = np.empty(width)
        xo = np.zeros((n_cls, width))
        xmiss = np.empty(width, np.intp)
        n_xmiss = 0
        acc = out[chunk]
        for p in range(chunk * b // chunks, (chunk + 1) * b // chunks):
            r = rows[p]
            x = X[r, c0:c1]
            if typ == GENERAL:
                n_xmiss = _query_missing(tables, r, c0, width, xo, xmiss)
            for g in range(G):
                e, e_end = ptr[p * G + g], ptr[p * G + g + 1]
                if e == e_end:
                    continue
                running[:, :] = 0.0
                for j in range(K):
                    o = nb[p, g, j]
                    if o >= 0:
                        z = X[o, c0:c1]
                        if typ == DISCRETE_PLAIN:
                            for u in range(width):
                                d[u] = 0.0 if x[u] == z[u] else 1.0
                        elif typ == PACKED:
                            mismatch_bits(d, tables.planes, r, o, c0, width)
                        elif typ == NUMERIC_PLAIN:
                            for u in range(width):
                                t = c0 + u
                                dz = abs(z[u] - x[u])
                                d[u] = 1.0 if dz >= hi[t] else (
                                    0.0 if dz <= lo[t] else (dz - lo[t]) * slope[t])
                        else:
                            _general_diffs(d, tables, r, o, c0, width, xo, xmiss, n_xmiss,
                                           known)
                        for f in range(n_sums):
                            w = pair[f, p, g, j]
                            if w != 0.0:
                                run_f = running[f]
                                for u in range(width):
                                    run_f[u] += w * d[u]
                    while e < e_end and at[e] == j:
                        s = scale[e]
                        run_f = running[source[e]]
                        row = acc[target[e]]
                        for u in range(width):
                            row[c0 + u] += s * run_f[u]
                        e += 1
                    if e == e_end:
                        break
