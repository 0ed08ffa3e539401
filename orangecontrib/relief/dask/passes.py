"""The passes of the Dask estimate over the partitions: a task per partition, their progress,
cancelling and the cluster's failures (watched by :class:`.watch.Watch`), and the sampled
instances every worker holds."""
import uuid
from concurrent.futures import CancelledError

import numpy as np

from .watch import ClusterError, Lost, Watch

__all__ = ["Passes", "dask_modules", "total", "PROGRESS", "SEARCH"]

INSTALL = "pip install 'Orange3-Relief[dask]'"
#: seconds between two looks at the running tasks (progress and cancelling)
POLL = 0.2
#: the shares of the progress of the passes: summary, search (or moments), sums
PROGRESS = (0.05, 0.85, 1.0)
#: the neighbour search of every Dask estimate (one of :data:`.searches.SEARCHES`): the
#: partitions' candidates merged by the client; told to :func:`.searches.search_notices`
SEARCH = "dask"
#: how many times a pass is rerun after the workers holding the sampled instances died
RESENDS = 2
#: when the tasks' array arguments add up to more than this (bytes), they go to the workers by
#: ``scatter``, not in the task graph, which passes through the scheduler (distributed warns of
#: graphs over 10 MB: the neighbours of 20,000 sampled instances made one of 19 MB)
SCATTER_BYTES = 1 << 18


def dask_modules():
    """The modules of dask this backend uses, or an ImportError saying how to install them."""
    try:
        import dask
        import dask.array as da
        import distributed
    except ImportError as error:
        raise ImportError(f"the Dask backend needs dask.distributed: {INSTALL}") from error
    return dask, da, distributed


def total(parts):
    """The sums over the partitions of each part of their results (tuples of arrays)."""
    return tuple(sum(p[c] for p in parts) for c in range(len(parts[0])))


class Passes:
    """The partitions of ``X`` and ``y`` (row chunks of dask arrays) on ``client``: :meth:`run`
    runs a function over each, reporting to ``callback(fraction)``; ``stop`` names the
    ``distributed.Event`` that tells running tasks to stop; :attr:`queries` is the sampled
    instances held by every worker (:meth:`send_sample`)."""

    def __init__(self, X, y, client, callback):
        self.client, self.callback = client, callback
        self.n, self.a = X.shape
        self.delayed = dask_modules()[0].delayed
        self.blocks = list(X.to_delayed().ravel())
        self.y_blocks = list(y.to_delayed().ravel())
        #: the first row of each partition, and the number of rows after the last
        self.offsets = np.concatenate([[0], np.cumsum(X.chunks[0])]).astype(np.int64)
        self.stop = f"relief-stop-{uuid.uuid4().hex}"
        self.sample_rows = None
        self.queries = None

    def run(self, function, args, lo, hi):
        """``function(block, y_block, *args(i))`` for every partition i, as distributed tasks;
        progress from ``lo`` to ``hi``; the results in partition order. When the workers
        holding the sampled instances all die (Dask reruns lost tasks, but not scattered
        data), the instances are sent again and the pass rerun, up to ``RESENDS`` times."""
        for resend in range(RESENDS + 1):
            arguments = self._scattered([args(i) for i in range(len(self.blocks))])
            tasks = [self.delayed(function, pure=False)(x, yb, *arguments[i])
                     for i, (x, yb) in enumerate(zip(self.blocks, self.y_blocks))]
            try:
                return self._wait(self.client.compute(tasks), lo, hi)
            except Lost:
                if resend == RESENDS or self.sample_rows is None:
                    raise
                self.send_sample()

    def _scattered(self, arguments):
        """``arguments`` (a tuple for each partition), their arrays replaced by the futures of
        copies scattered to the workers when they add up to more than ``SCATTER_BYTES``."""
        arrays = [(i, j) for i, each in enumerate(arguments) for j, value in enumerate(each)
                  if isinstance(value, np.ndarray)]
        if sum(arguments[i][j].nbytes for i, j in arrays) <= SCATTER_BYTES:
            return arguments
        futures = self.client.scatter([arguments[i][j] for i, j in arrays], hash=False)
        arguments = [list(each) for each in arguments]
        for (i, j), future in zip(arrays, futures):
            arguments[i][j] = future
        return arguments

    def send_sample(self):
        """Scatter the sampled instances' rows and targets (:attr:`sample_rows`) to every
        worker."""
        self.queries = self.client.scatter([self.sample_rows], broadcast=True)[0]

    def _wait(self, futures, lo, hi):
        """The results of ``futures``, reporting progress from ``lo`` to ``hi``; watched by a
        :class:`.watch.Watch`, so that dead, lost or paused workers end the call with a clear
        error (a ``RuntimeError`` naming the cause) instead of a hang."""
        distributed = dask_modules()[2]
        watch = Watch(self.client)
        try:
            try:
                while True:
                    pending = [f for f in futures if not f.done()]
                    if self.callback is not None:
                        self.callback(lo + (hi - lo) * (1 - len(pending) / max(len(futures), 1)))
                    if not pending or any(f.status in ("error", "cancelled") for f in futures):
                        return self.client.gather(futures)      # raises a task's error
                    try:
                        distributed.wait(pending, timeout=POLL, return_when="FIRST_COMPLETED")
                    except TimeoutError:
                        pass
                    watch.check()
            except distributed.KilledWorker as error:
                raise ClusterError(
                    f"the Dask workers died while running a task of the estimate "
                    f"({watch.cause()}): {error}") from error
            except CancelledError as error:
                raise Lost(
                    "the Dask cluster lost the estimate's tasks or data (the workers holding "
                    f"them died or the cluster was restarted; {watch.cause()})") from error
        except BaseException as error:
            if not isinstance(error, Lost):        # the next pass's tasks may run
                distributed.Event(self.stop, client=self.client).set()
            self.client.cancel(futures)
            raise
