"""What the tasks of the Dask estimate compute on a partition: its rows followed by the sampled
instances as one diff model (:class:`.estimators.neighbourhood.diffs.DiffModel`, with the whole
data's ranges and probabilities), the distances of the sampled instances to its rows, the
weighted sums of pairs' diffs, and whether the client asked the tasks to stop."""
import time
from dataclasses import replace

import numpy as np
import scipy.sparse as sp

from ..estimators.base import BLOCK_BYTES
from ..estimators.neighbourhood import DiffModel, target_diffs
from ..estimators.neighbourhood.packed import PackedColumns, pack_planes

__all__ = ["packed_columns", "partition_model", "query_blocks", "sample_distances", "stopper",
           "accumulate"]


def packed_columns(x):
    """``x`` (discrete codes 0..3) as :class:`.packed.PackedColumns`."""
    x = np.asarray(x)
    planes = pack_planes(x, np.arange(x.shape[1]))
    if planes is None:
        raise ValueError("discrete codes beyond n_values")
    return PackedColumns(planes, x.shape[1])


def partition_model(x, y, queries, spec):
    """The diff model of the partition's rows followed by the sampled instances (rows n_p, ...),
    with the ranges, value bins, columns with missing values and probabilities P(value |
    class) of the whole data (its summary's model, ``spec["reference"]``); with
    ``spec["packed"]`` the rows are bit planes (the sampled instances come packed)."""
    rows, target = queries
    reference = spec["reference"]
    n_p = x.shape[0]
    if spec.get("packed"):
        values = PackedColumns(np.concatenate([packed_columns(x).planes, rows.planes]),
                               rows.shape[1])
    else:
        values = np.empty((n_p + rows.shape[0], rows.shape[1]))     # one float64 copy
        values[:n_p], values[n_p:] = x, rows
    data = replace(reference.data, X=values,
                   y=np.concatenate([np.asarray(y, dtype=np.float64).ravel(), target]))
    return DiffModel(data, reference.options, reference=reference), n_p


def query_blocks(m, n_rows):
    """Blocks of the sampled instances whose distances to ``n_rows`` rows fit ``BLOCK_BYTES``
    (a few copies of them are made)."""
    step = max(1, BLOCK_BYTES // (2 * 8 * max(n_rows, 1)))
    return [slice(lo, min(lo + step, m)) for lo in range(0, m, step)]


def sample_distances(model, n_p, instances, offset, blk, stopped):
    """Distances (sums of diffs, or of squared diffs) from the sampled instances ``blk`` to
    the partition's rows, and each one's own row in the partition (-1: elsewhere)."""
    if stopped():
        raise RuntimeError("cancelled")
    d = model.distances(n_p + np.arange(blk.start, blk.stop))[:, :n_p]
    own = instances[blk] - offset
    own = np.where((own >= 0) & (own < n_p), own, -1)
    return d, own


def stopper(name):
    """A function telling whether the client asked the tasks to stop (the event ``name``)."""
    import distributed
    try:
        distributed.get_worker()
    except ValueError:                  # not on a worker
        return lambda: False
    event = distributed.Event(name)
    last = [0.0]

    def stopped():
        if time.monotonic() - last[0] < 0.2:
            return False
        last[0] = time.monotonic()
        return event.is_set()
    return stopped


def accumulate(model, rows, others, slots, weights, n_slots, with_tau, out):
    """Add to ``out`` = (sums (n_slots, F, a), known (n_slots, a), totals (n_slots, F)) the
    pairs' diffs (:meth:`.DiffModel.pair_diffs`, R = ``rows``, the partition's ``others``),
    each weighted by its ``weights`` into its slot, with F = 2 the second set times
    diff(tau) (:func:`.diffs.target_diffs`)."""
    sums, known, totals = out
    a = model.data.n_attributes
    step = max(1, BLOCK_BYTES // (8 * 3 * max(a, 1)))
    for lo in range(0, rows.size, step):
        r, o = rows[lo:lo + step], others[lo:lo + step]
        s, w = slots[lo:lo + step], weights[lo:lo + step]
        diffs = model.pair_diffs(r, o)
        ok = ~np.isnan(diffs)
        diffs[~ok] = 0.0
        factor_sets = [w]
        if with_tau:
            factor_sets.append(w * target_diffs(model.data, r, o, model.options))
        cols = np.arange(r.size)
        for f, wf in enumerate(factor_sets):
            matrix = sp.csr_matrix((wf, (s, cols)), shape=(n_slots, r.size))
            sums[:, f] += matrix @ diffs
            totals[:, f] += np.bincount(s, weights=wf, minlength=n_slots)
            if f == 0:
                known += matrix @ ok.astype(np.float64)
