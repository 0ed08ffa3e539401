"""The sampled instances of the Dask estimate: chosen as the single-machine estimator chooses
them (:meth:`.ReliefFamily.sample`), sent by their partitions (as bit planes when the data
travel packed) to the client and from it to every worker."""
from dataclasses import dataclass

import numpy as np

from ..estimators.neighbourhood.packed import PackedColumns
from .partitions import packed_columns
from .passes import PROGRESS

__all__ = ["Sample", "gather"]


@dataclass(frozen=True)
class Sample:
    """The sampled instances: their rows' indices in the whole data and their targets."""
    instances: np.ndarray
    target: np.ndarray


def gather(passes, estimator, spec):
    """The :class:`Sample` of ``estimator`` over the partitions of ``passes``; their rows
    (with ``spec["packed"]`` as bit planes) and targets sent to every worker
    (:meth:`.passes.Passes.send_sample`)."""
    instances = estimator.sample(passes.n)
    # each partition sends its sampled rows (packed: as bit planes), in the rows' order
    order = np.argsort(instances)
    part = np.searchsorted(passes.offsets, instances[order], side="right") - 1
    pieces = passes.run(sampled_rows, lambda i: (instances[order][part == i] - passes.offsets[i],
                                                 spec["packed"]), PROGRESS[0], PROGRESS[0])
    back = np.argsort(order)
    rows, target = (np.concatenate([p[c] for p in pieces])[back] for c in range(2))
    passes.sample_rows = (PackedColumns(rows, passes.a) if spec["packed"] else rows, target)
    passes.send_sample()
    return Sample(instances, target)


# -- the partitions' tasks (run on the workers) ----------------------------------------------
def sampled_rows(x, y, rows, packed):
    """The partition's sampled instances ``rows``: their values (float64, or with ``packed``
    their bit planes) and their targets."""
    x = np.asarray(x)[rows]
    return (packed_columns(x).planes if packed else x.astype(np.float64),
            np.asarray(y, dtype=np.float64).ravel()[rows])
