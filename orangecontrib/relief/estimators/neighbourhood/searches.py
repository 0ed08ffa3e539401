"""The neighbour searches the engine chooses between, and notices of the one each search takes.

The Relief family's context (:func:`.neighbours.nearest_neighbours`) and the distance rows of
the other neighbourhood estimators (:meth:`.diffs.DiffModel.distances`: the SURF family's bands,
Contextual Merit, the Π framework) are computed by one of several searches, chosen by the data
and the options (see :mod:`.neighbours`); each gives the same numbers. A context records the
one it came from (``context.search``); :func:`search_notices` tells a caller about every
search as it is chosen, also those inside an estimator's own steps (TuRF's rounds,
MultiScaleRelief's scales), e.g. to show which one ran or to check that data of some kind take
the path meant for them::

    seen = []
    with search_notices(seen.append):
        ReliefF()(data)
"""
import threading
from contextlib import contextmanager

__all__ = ["SEARCHES", "search_notices", "notify_search"]

#: the searches a context can come from (:attr:`.neighbours.NeighbourContext.search`):
#: CORElearn's neighbour order, the sparse search, k-d trees, the certified single-precision
#: search, the tiled double-precision kernel, the popcount of packed SNP bit planes, the Dask
#: backend's search over row partitions, or none (no neighbour wanted)
SEARCHES = ("CORElearn order", "sparse", "k-d tree", "single precision", "double precision",
            "packed SNP", "dask", "none")

_callbacks = []
_lock = threading.Lock()


@contextmanager
def search_notices(callback):
    """While the block runs, call ``callback(search)`` (one of :data:`SEARCHES`) whenever a
    search is chosen, in any thread of the process. The callback must not raise."""
    with _lock:
        _callbacks.append(callback)
    try:
        yield
    finally:
        with _lock:
            _callbacks.remove(callback)


def notify_search(search):
    """Tell the callbacks of :func:`search_notices` that ``search`` was chosen."""
    for callback in list(_callbacks):
        callback(search)
