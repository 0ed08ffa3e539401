"""ReliefF, RReliefF and the SURF family (MultiSURF) over data partitioned by rows, on Dask.

The data are a row-partitioned ``dask.array`` (or a Dask dataframe) that need not fit one machine;
the estimates equal those of the single-machine estimators of :mod:`.estimators` with the same
``iterations`` = m and ``random_state``, because every number is computed by the same diff model
(:class:`.estimators.neighbourhood.diffs.DiffModel`) with the same ranges and the same treatment of ties:

1. a first pass over the partitions computes each column's minimum and maximum (the ranges of
   the diffs), the class counts (or the target's range) and checks the values;
2. the m sampled instances (:meth:`.ReliefFamily.sample`: the same choice the single-machine
   estimator makes) are gathered to the client and sent to every partition; data of discrete
   codes 0..3 without missing values (SNP genotypes) travel and are read as bit planes, two
   bits a value (:mod:`.estimators.neighbourhood.packed`);
3. each partition runs the single-machine neighbour search over its own rows and keeps, for
   ReliefF, the k nearest of each class (RReliefF: of all rows) and every row tied with the
   k-th, or computes for the SURF family the count, mean and variance of the distances; the
   client merges the candidates into the global k nearest and those tied with the k-th, which
   share the remaining places (as :mod:`.estimators.neighbourhood.neighbours` does), or the
   per-instance thresholds (the partitions' moments
   combined as Chan, Golub & LeVeque, "Updating formulae and a pairwise algorithm for computing
   sample variances", 1979);
4. a second pass sums, in each partition, the diffs between the sampled instances and their
   neighbours (or band members) found in it, weighted as the estimators weight them; the client
   adds the partitions' sums and forms the estimates with the estimators' own formulas. (The
   SURF family on bit planes with a discrete class first counts each band's classes in a pass
   of its own, so that the partitions weight their sums themselves and send back one sum per
   band and attribute.)

The work is m x N x a diff evaluations for the distances (ReliefF, RReliefF: one pass; the SURF
family: two, and the band's diffs), spread over the workers; what travels is the data's columns
once per pass from storage to the workers, the m sampled instances to every partition and
m x k candidates (ReliefF: per class) back from each.

Failing workers never make the call wait for ever: a worker that dies (killed, crashed or
restarted by its nanny for exceeding its memory limit) has its tasks rerun by Dask, and when
every worker holding the sampled instances died they are sent again and the pass rerun; a task
that kills every worker it runs on (``distributed.scheduler.allowed-failures`` times) ends the
call with a :class:`ClusterError` (a ``RuntimeError``) naming the cause, and so do workers
paused by Dask's memory manager (their memory above its pause fraction) that hold the only work
left while every other worker is idle, or a scheduler left without workers, for ``STALL_LIMIT``
seconds. A worker holds about 225 MB before it reads any data (``distributed``,
``dask.array``, numba and its compiled kernels): give workers room for a few copies of a
partition above that.

Missing values (NaN) are handled as on one machine (:mod:`.estimators.neighbourhood.diffs`): with any, an
extra pass counts the value codes per class for the probabilities P(value | class) of the
whole data. Needs ``dask.distributed`` (``pip install 'Orange3-Relief[dask]'``); without it only
calling :func:`estimate` fails. Without a ``client`` the active client is used (as dask-ml
does), and without one a ``distributed.LocalCluster`` is started (with ``cluster_options``) and
closed afterwards; ``client`` may also be a scheduler's address. Not handled here (a
``ValueError`` says so):
``iterations=None`` (every instance) on partitioned data (it is allowed for data given in
memory) and CORElearn's neighbour order
(``preset="corelearn"``); the data carry no instance weights.
"""
import logging
from contextlib import contextmanager

import numpy as np

from ..estimators.base import Estimator
from ..estimators.neighbourhood.searches import notify_search
from ..estimators.surf import SURF
from . import bands, k_nearest
from .passes import SEARCH, Passes, dask_modules
from .sample import gather
from .summary import summarise
from .watch import ClusterError

__all__ = ["estimate", "supports", "ClusterError"]


def estimate(estimator, X, y, discrete=False, n_values=None, n_classes=None, client=None,
             cluster_options=None, callback=None):
    """The estimates of ``estimator`` (a :class:`~.estimators.relieff.ReliefF`,
    :class:`~.estimators.rrelieff.RReliefF` or one of the SURF family of
    :mod:`.estimators.surf`, MultiSURF among them, configured with ``iterations`` = m and
    ``random_state``) over data partitioned by rows: equal, up to rounding, to
    ``estimator(data)`` on the same data in one machine.

    Parameters
    ----------
    estimator
        The configured single-machine estimator; ``iterations`` must be an integer.
    X
        A ``dask.array`` (n, a) partitioned by rows (columns are put into one chunk), a numpy
        array, or a Dask dataframe; the values are float (discrete columns hold the codes
        0, 1, ...), NaN = missing.
    y
        The class codes 0..C-1 or the numeric target: a ``dask.array``, a numpy array, or with a
        dataframe the name of its column.
    discrete
        A bool or a per-column mask of the discrete columns (with a dataframe also the list of
        their names); categorical dataframe columns are discrete.
    n_values, n_classes
        As :func:`.encoding.encode`: the values of the discrete columns (default: the largest
        code + 1) and the number of classes; ``n_classes`` None = a discrete class for
        ReliefF and for an integer (or categorical) ``y``, else a numeric target.
    client
        A ``distributed.Client`` to run on, or the address of its scheduler
        (``"tcp://host:8786"``); None = the active client (``distributed.default_client()``),
        else a ``LocalCluster(**cluster_options)`` started for the call and closed after it.
    callback
        ``callback(fraction)`` is called as the partitions' tasks finish (every ~0.2 s); an
        exception raised from it cancels the tasks (those running stop after their current
        block of sampled instances) and propagates.

    Returns
    -------
    numpy.ndarray
        The estimate of each column of ``X`` (the target excluded).

    Raises
    ------
    ValueError
        For data or an estimator the backend does not handle (the message says which).
    ClusterError
        (a ``RuntimeError``) When the workers die running a task, lose it, or stay paused
        because their memory is nearly full while holding the call's tasks (the message says
        which and gives their memory limit).
    """
    _check_estimator(estimator, in_memory=not hasattr(X, "dask"))
    dask, da, distributed = dask_modules()
    with quiet_cluster(client is None):
        client, own = _connect(distributed, client, cluster_options)
        try:
            with client.as_current():   # a dataframe's partition lengths are computed there too
                X, y, discrete = _as_arrays(da, X, y, discrete)
            return _estimate(estimator, X, y, discrete, n_values, n_classes, client, callback)
        finally:
            if own:
                cluster = client.cluster
                client.close()
                if cluster is not None:
                    cluster.close()


@contextmanager
def quiet_cluster(quiet=True):
    """While the block runs (with ``quiet``), distributed's loggers show warnings and errors
    only, not the information messages of starting and closing a cluster (its address, its
    workers) that its default configuration logs; a level set below or above that (INFO) is
    left as it is."""
    logger = logging.getLogger("distributed")
    level = logger.level
    if quiet and level == logging.INFO:
        logger.setLevel(logging.WARNING)
    try:
        yield
    finally:
        logger.setLevel(level)

def _estimate(estimator, X, y, discrete, n_values, n_classes, client, callback):
    """The passes of one estimate (X, y dask arrays partitioned alike by rows): the whole data's
    summary (:mod:`.summary`), the sampled instances (:mod:`.sample`), then the neighbours of
    ReliefF and RReliefF (:mod:`.k_nearest`) or the SURF family's bands (:mod:`.bands`); the
    search is told to :func:`.searches.search_notices` as the single-machine searches are."""
    passes = Passes(X, y, client, callback)
    discrete = np.broadcast_to(np.asarray(discrete, dtype=bool), (passes.a,)).copy()
    spec = summarise(passes, estimator, y.dtype, discrete, n_values, n_classes)
    notify_search(SEARCH)
    sample = gather(passes, estimator, spec)
    return (bands if isinstance(estimator, SURF) else k_nearest).estimates(
        passes, estimator, spec, sample)


def _connect(distributed, client, cluster_options):
    """``(client, own)``: a ``distributed.Client`` as given, connected to the scheduler at
    the address ``client`` (a string), the active client (as dask-ml takes it), or one of a
    ``LocalCluster(**cluster_options)`` started for the call; ``own``: to close afterwards."""
    if isinstance(client, str):
        try:
            return distributed.Client(client, timeout=30), True
        except (OSError, TimeoutError) as error:
            raise ClusterError(f"cannot connect to the Dask scheduler at {client!r}: "
                               f"{error}") from None
    if client is not None:
        return client, False
    try:
        return distributed.default_client(), False
    except ValueError:                                      # no active client
        return distributed.Client(distributed.LocalCluster(**(cluster_options or {}))), True


def supports(estimator_class):
    """Whether the backend computes estimators of this class (their ``dask_backend``):
    ReliefF (and Relief), RReliefF and the SURF family, not the best-over-k or cost-sampling
    variants."""
    return issubclass(estimator_class, Estimator) and estimator_class.dask_backend


def _check_estimator(estimator, in_memory=False):
    """``ValueError`` for an estimator the backend does not compute; ``iterations=None``
    (every instance sampled) only for data given in memory (sent whole anyway)."""
    if not supports(type(estimator)):
        raise ValueError("the Dask backend computes ReliefF, RReliefF and the SURF family "
                         f"(SURF, SURF*, MultiSURF, MultiSURF*), not {type(estimator).__name__}")
    if estimator.preset == "corelearn" or estimator.diff_options().corelearn:
        raise ValueError("the Dask backend does not reproduce CORElearn's neighbour order: "
                         "use preset='papers'")
    if estimator.preset == "skrebate":
        raise ValueError("the Dask backend does not reproduce scikit-rebate: use "
                         "preset='papers'")
    if estimator.iterations is None and not in_memory:
        raise ValueError("the Dask backend needs iterations=m, the number of sampled "
                         "instances (iterations=None would gather every instance)")
    estimator.check_parameters()


def _as_arrays(da, X, y, discrete):
    """(X, y, discrete): X a float dask array chunked by rows only, y a dask array of the same
    row chunks, discrete a bool mask (or a bool)."""
    if hasattr(X, "to_dask_array"):                     # a Dask dataframe
        if not isinstance(y, str) or y not in X.columns:
            raise ValueError(f"with a dataframe, y must name its target column, got {y!r}")
        columns = [c for c in X.columns if c != y]
        categorical = [c for c in X.columns if str(X[c].dtype) == "category"]
        if isinstance(discrete, (list, tuple, set)):
            mask = np.array([c in discrete or c in categorical for c in columns], dtype=bool)
        else:
            mask = np.broadcast_to(np.asarray(discrete, dtype=bool), (len(columns),)) \
                | np.array([c in categorical for c in columns], dtype=bool)
        frame = X[columns + [y]]
        if categorical:
            frame = frame.map_partitions(_category_codes, categorical)
        table = frame.to_dask_array(lengths=True).rechunk({1: -1})
        return table[:, :-1], table[:, -1], mask
    if not hasattr(X, "chunks") or not hasattr(X, "dask"):
        X = np.asarray(X)
        if X.ndim != 2:
            raise ValueError(f"attributes must be a 2-D array, got {X.ndim} dimension(s)")
        X = da.from_array(X, chunks=(max(1, X.shape[0]), -1))
    if X.ndim != 2:
        raise ValueError(f"attributes must be a 2-D array, got {X.ndim} dimension(s)")
    X = X.rechunk({1: -1})
    y = y if hasattr(y, "dask") else da.from_array(np.asarray(y).ravel())
    if y.ndim != 1 or y.shape[0] != X.shape[0]:
        raise ValueError(f"target has {y.shape} values for {X.shape[0]} instances")
    return X, y.rechunk((X.chunks[0],)), discrete


def _category_codes(frame, columns):
    """The codes of the categorical ``columns`` of a pandas frame as floats (NaN = missing)."""
    return frame.assign(**{c: frame[c].cat.codes.astype(float).where(frame[c].cat.codes >= 0)
                           for c in columns})
