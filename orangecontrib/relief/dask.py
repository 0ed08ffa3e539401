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
import time
import uuid
from concurrent.futures import CancelledError
from dataclasses import replace

import numpy as np
import scipy.sparse as sp

from .estimators.base import BLOCK_BYTES, Estimator, check_summary, parallel_launch
from .estimators.neighbourhood import DiffModel, NeighbourContext, class_tiles, nearest_among, \
    neighbour_weights, target_diffs
from .estimators.neighbourhood.diffs import PACKED_MIN_COLUMNS, TILE_WIDTH
from .estimators.neighbourhood.packed import MAX_VALUES, PackedColumns, band_mismatch_counts, \
    pack_planes
from .estimators.neighbourhood.neighbours import neighbour_places, tie_margin, tied_with_kth
from .estimators.relief_family import first_k_weights
from .estimators.relieff import ReliefF, group_coefficients
from .estimators.rrelieff import RReliefF
from .estimators.surf import SURF, NEAR, FAR, band_coefficients, band_estimates, \
    band_thresholds, others_mean_std

__all__ = ["estimate", "supports", "ClusterError"]

INSTALL = "pip install 'Orange3-Relief[dask]'"
#: seconds between two looks at the running tasks (progress and cancelling)
POLL = 0.2
#: the shares of the progress of the passes: summary, search (or moments), sums
PROGRESS = (0.05, 0.85, 1.0)
#: seconds every worker may stay paused (its memory above Dask's pause fraction of its limit)
#: or the cluster without a worker, before the call ends with an error
STALL_LIMIT = 30.0
#: seconds between two looks at the workers' state
WATCH_EVERY = 0.5
#: seconds to wait for the nannies to tell why workers died
CAUSE_WAIT = 20.0
#: how many times a pass is rerun after the workers holding the sampled instances died
RESENDS = 2


def _dask():
    """The modules of dask this backend uses, or an ImportError saying how to install them."""
    try:
        import dask
        import dask.array as da
        import distributed
    except ImportError as error:
        raise ImportError(f"the Dask backend needs dask.distributed: {INSTALL}") from error
    return dask, da, distributed


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
    dask, da, distributed = _dask()
    client, own = _connect(distributed, client, cluster_options)
    try:
        with client.as_current():     # a dataframe's partition lengths are computed there too
            X, y, discrete = _as_arrays(da, X, y, discrete)
        return _Run(estimator, X, y, discrete, n_values, n_classes, client, callback).estimate()
    finally:
        if own:
            cluster = client.cluster
            client.close()
            if cluster is not None:
                cluster.close()


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


class _Run:
    """One estimate: the passes over the partitions and the client's reductions."""

    def __init__(self, estimator, X, y, discrete, n_values, n_classes, client, callback):
        self.estimator, self.X, self.y, self.client = estimator, X, y, client
        self.callback = callback
        dask = _dask()[0]
        self.delayed = dask.delayed
        self.blocks = list(X.to_delayed().ravel())
        self.y_blocks = list(y.to_delayed().ravel())
        self.offsets = np.concatenate([[0], np.cumsum(X.chunks[0])]).astype(np.int64)
        self.n, self.a = X.shape
        self.discrete = np.broadcast_to(np.asarray(discrete, dtype=bool), (self.a,)).copy()
        self.n_values, self.n_classes = n_values, n_classes
        self.stop = f"relief-stop-{uuid.uuid4().hex}"
        self.query_rows = None

    # -- running the tasks of a pass ---------------------------------------------------------
    def _run(self, function, args, lo, hi):
        """``function(block, y_block, *args(i))`` for every partition i, as distributed tasks;
        progress from ``lo`` to ``hi``; the results in partition order. When the workers
        holding the sampled instances all die (Dask reruns lost tasks, but not scattered
        data), the instances are sent again and the pass rerun, up to ``RESENDS`` times."""
        for resend in range(RESENDS + 1):
            tasks = [self.delayed(function, pure=False)(x, yb, *args(i))
                     for i, (x, yb) in enumerate(zip(self.blocks, self.y_blocks))]
            try:
                return self._wait(self.client.compute(tasks), lo, hi)
            except _Lost:
                if resend == RESENDS or self.query_rows is None:
                    raise
                self._send_queries()

    def _send_queries(self):
        """Scatter the sampled instances' rows and targets to every worker."""
        self.queries = self.client.scatter([self.query_rows], broadcast=True)[0]

    def _wait(self, futures, lo, hi):
        """The results of ``futures``, reporting progress from ``lo`` to ``hi``; watched by a
        :class:`_Watch`, so that dead, lost or paused workers end the call with a clear error
        (a ``RuntimeError`` naming the cause) instead of a hang."""
        distributed = _dask()[2]
        watch = _Watch(self.client)
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
                raise _Lost(
                    "the Dask cluster lost the estimate's tasks or data (the workers holding "
                    f"them died or the cluster was restarted; {watch.cause()})") from error
        except BaseException as error:
            if not isinstance(error, _Lost):        # the next pass's tasks may run
                distributed.Event(self.stop, client=self.client).set()
            self.client.cancel(futures)
            raise

    def estimate(self):
        spec = self._summary()
        self.spec = spec
        est = self.estimator
        instances = est.sample(self.n)
        self.instances = instances
        # each partition sends its sampled rows (packed: as bit planes), in the rows' order
        order = np.argsort(instances)
        part = np.searchsorted(self.offsets, instances[order], side="right") - 1
        pieces = self._run(_sampled, lambda i: (instances[order][part == i] - self.offsets[i],
                                                spec["packed"]), PROGRESS[0], PROGRESS[0])
        back = np.argsort(order)
        rows, target = (np.concatenate([p[c] for p in pieces])[back] for c in range(2))
        self.query_rows = (PackedColumns(rows, self.a) if spec["packed"] else rows, target)
        self._send_queries()
        self.query_y = target
        if isinstance(est, SURF):
            return self._bands()
        return self._neighbours()

    # -- pass 1: ranges and checks -----------------------------------------------------------
    def _summary(self):
        est = self.estimator
        if self.n_classes is not None:
            classification = self.n_classes > 0
        elif len(est.tasks) == 1:
            classification = "classification" in est.tasks
        else:
            classification = np.issubdtype(self.y.dtype, np.integer) \
                or np.issubdtype(self.y.dtype, np.bool_)
        check_summary(est, self.n, self.a)
        parts = self._run(_summary, lambda i: (self.discrete, classification),
                          0.0, PROGRESS[0])
        for key, message in (
                ("inf", "attribute values must be finite: the data contain inf "
                        "(use NaN for a missing value)"),
                ("bad_code", "discrete columns must hold integer codes 0, 1, ..."),
                ("y_bad", "the target has missing or infinite values" if not classification
                 else "class codes must be integers 0, 1, ...")):
            if any(p[key] for p in parts):
                raise ValueError(message)
        minimum = np.fmin.reduce([p["minimum"] for p in parts if p["n"]], axis=0)
        maximum = np.fmax.reduce([p["maximum"] for p in parts if p["n"]], axis=0)
        missing = np.any([p["missing"] for p in parts if p["n"]], axis=0)
        known = ~np.isnan(maximum)
        if self.n_values is None:
            n_values = np.where(self.discrete & known, np.nan_to_num(maximum) + 1, 0)
            n_values = n_values.astype(np.intp)
        else:
            n_values = np.broadcast_to(np.asarray(self.n_values, np.intp), (self.a,)).copy()
            n_values[~self.discrete] = 0
            if np.any(self.discrete & (maximum >= n_values)):
                raise ValueError("discrete codes beyond n_values")
        y_min = min(p["y_min"] for p in parts if p["n"])
        y_max = max(p["y_max"] for p in parts if p["n"])
        task = "classification" if classification else "regression"
        check_summary(est, self.n, self.a, task)
        if classification:
            n_classes = int(self.n_classes or y_max + 1)
            if y_max >= n_classes:
                raise ValueError(f"class codes must be integers 0..{n_classes - 1}")
            counts = np.zeros(n_classes)
            for p in parts:
                counts[:p["counts"].size] += p["counts"]
            check_summary(est, self.n, self.a, task, classes_present=int((counts > 0).sum()))
            y_span = 1.0
        else:
            n_classes, counts = 0, None
            with np.errstate(over="ignore"):
                y_span = float(y_max - y_min)
            check_summary(est, self.n, self.a, task, y_span=y_span)
        # the whole data's ranges, value bins, columns with missing values and (with any)
        # probabilities P(value | class), from the partitions' value counts
        summary = dict(minimum=minimum, maximum=maximum, has_missing=missing,
                       discrete=self.discrete, n_values=n_values, n_classes=n_classes,
                       n_instances=self.n, y_span=y_span, options=est.diff_options())
        reference = DiffModel.from_summary(**summary)
        # discrete codes 0..3 without missing values travel and are read as bit planes
        packed = bool(self.a >= PACKED_MIN_COLUMNS and self.discrete.all()
                      and not reference.has_missing.any() and n_values.max() <= MAX_VALUES)
        spec = dict(reference=reference, counts=counts, stop=self.stop, packed=packed)
        if reference.has_missing.any():
            value_counts = self._run(_value_counts, lambda i: (spec,), PROGRESS[0], PROGRESS[0])
            spec["reference"] = DiffModel.from_summary(**summary,
                                                       value_counts=sum(value_counts))
        return spec

    # -- ReliefF and RReliefF ------------------------------------------------------------------
    def _neighbours(self):
        est, spec, m = self.estimator, self.spec, self.instances.size
        groups = est.groups
        if groups == "per-class":
            G, size = spec["reference"].n_cls, int(spec["counts"].max())
        else:
            G, size = (2 if groups == "pooled" else 1), self.n
        K = max(0, min(est.k_, size))
        parts = self._run(_search, lambda i: (self.offsets[i], self.instances, self.queries,
                                              spec, groups, K), PROGRESS[0], PROGRESS[1])
        q, g, idx, dist = (np.concatenate([p[c] for p in parts]) for c in range(4))
        order = np.lexsort((idx, dist, g, q))
        q, g, idx, dist = q[order], g[order], idx[order], dist[order]
        key = q * G + g
        start = np.searchsorted(key, key, side="left")
        rank = np.arange(key.size) - start
        # the K nearest and every one tied with the K-th (each block sent its own such)
        kth = np.minimum(start + K - 1, max(key.size - 1, 0))
        keep = (rank < K) | ((key[kth] == key) & (dist == dist[kth])) if K else rank < 0
        width = int(rank[keep].max(initial=K - 1)) + 1
        neighbours = np.full((m, G, width), -1, dtype=np.intp)
        distances = np.full((m, G, width), np.inf)
        neighbours[q[keep], g[keep], rank[keep]] = idx[keep]
        distances[q[keep], g[keep], rank[keep]] = dist[keep]
        context = NeighbourContext(None, spec["reference"], self.instances, neighbours,
                                   distances, groups, search="dask", shared_ties=True)
        wk = first_k_weights(neighbour_weights(context, est.weighting_, est.sigma),
                             neighbour_places(context), est.k_)
        ones = np.ones(m)
        if isinstance(est, ReliefF):
            prior = spec["counts"] / spec["counts"].sum()
            coef = group_coefficients(self.query_y, prior, G, groups, ones)
        else:
            coef = ones[None, :, None]
        pair = coef[..., None] * wk[None]                      # (S, m, G, K)
        S = pair.shape[0]
        s, qq, gg, jj = np.nonzero((pair != 0) & (neighbours >= 0)[None])
        weights, others = pair[s, qq, gg, jj], neighbours[qq, gg, jj]
        part = np.searchsorted(self.offsets, others, side="right") - 1
        with_tau = isinstance(est, RReliefF)

        def args(i):
            at = part == i
            return (self.queries, spec, qq[at], others[at] - self.offsets[i], s[at],
                    weights[at], S, with_tau)
        sums, known, totals = self._add(self._run(_pair_sums, args, PROGRESS[1], 1.0))
        if with_tau:
            return RReliefF.combine(sums[:, :, None], known[:, None], totals[:, :, None])[0]
        return ReliefF.combine(sums[:, :, None], known[:, None], totals[:, :, None], m)[0]

    @staticmethod
    def _add(parts):
        return tuple(sum(p[c] for p in parts) for c in range(3))

    # -- the SURF family ---------------------------------------------------------------------
    def _bands(self):
        est, spec, m = self.estimator, self.spec, self.instances.size
        moments = self._run(_moments, lambda i: (self.offsets[i], self.instances, self.queries,
                                                 spec), PROGRESS[0], 0.4)
        count = sum(p[0] for p in moments)
        mean = sum(p[0] * p[1] for p in moments) / np.where(count > 0, count, 1)
        m2 = sum(p[0] * p[2] ** 2 + p[0] * (p[1] - mean) ** 2 for p in moments)
        spread = np.sqrt(np.maximum(m2 / np.where(count > 0, count, 1), 0.0))
        near, far = band_thresholds(mean, spread, count, est.per_instance, est.far_band)
        bands = (NEAR, FAR) if est.far_band else (NEAR,)
        classification = spec["reference"].data.is_classification
        if spec["packed"] and classification:
            return self._packed_bands(near, far, bands)
        G = spec["reference"].n_cls
        parts = self._run(_band_sums, lambda i: (self.offsets[i], self.instances, self.queries,
                                                 spec, near, far, est.far_band),
                          0.4, 1.0)
        F = 1 if classification else 2
        slot_sums, slot_known, slot_totals = self._add(parts)
        B, a = len(bands), self.a
        slot_sums = slot_sums.reshape(B, m, G, F, a)
        slot_known = slot_known.reshape(B, m, G, a)
        slot_totals = slot_totals.reshape(B, m, G, F)
        S = 2 if classification else 1
        sums, known, totals = np.zeros((B, S, F, a)), np.zeros((B, S, a)), np.zeros((B, S, F))
        for b in range(B):
            counts = slot_totals[b, :, :, 0]                   # (m, G) band members per class
            if classification:
                prior = spec["counts"] / spec["counts"].sum()
                coef = band_coefficients(self.query_y, prior, counts, np.ones(m))  # (m, 2, C)
            else:
                size = counts[:, 0]
                coef = np.where(size > 0, 1.0 / np.where(size > 0, size, 1.0), 0.0)
                coef = coef[:, None, None]
            sums[b] = np.einsum("qsg,qgfa->sfa", coef, slot_sums[b])
            known[b] = np.einsum("qsg,qga->sa", coef, slot_known[b])
            totals[b] = np.einsum("qsg,qgf->sf", coef, slot_totals[b])
        reference = spec["reference"]
        renorm = reference.options.missing == "C" and reference.has_missing.any()
        result = band_estimates(sums, known, totals, bands, classification, renorm, float(m))
        result[~reference.usable] = np.nan                      # no known value
        return result


    def _packed_bands(self, near, far, bands):
        """The SURF family's estimate on bit planes and a discrete class: a pass counts each
        band's members of each class (the band coefficients, :func:`.surf.band_coefficients`),
        a second adds in the workers the band members' mismatch counts
        (:func:`.packed.band_mismatch_counts`) weighted by them, so that a partition sends back
        (bands, 2, attributes) sums, never one row per sampled instance."""
        est, spec, m = self.estimator, self.spec, self.instances.size
        B, a = len(bands), self.a

        def args(i):
            return self.offsets[i], self.instances, self.queries, spec, near, far, est.far_band
        counts = sum(self._run(_band_counts, args, 0.4, 0.55))                  # (B, m, G)
        prior = spec["counts"] / spec["counts"].sum()
        coef = np.stack([band_coefficients(self.query_y, prior, counts[b], np.ones(m))
                         for b in range(B)])                                    # (B, m, 2, G)
        parts = self._run(_band_mismatches, lambda i: args(i) + (coef,), 0.55, 1.0)
        sums, totals = (sum(p[c] for p in parts) for c in range(2))     # (B, 2, a), (B, 2)
        known = np.broadcast_to(totals[:, :, None], (B, 2, a))          # no missing value
        return band_estimates(sums[:, :, None], known, totals[:, :, None], bands, True, False,
                              float(m))


class ClusterError(RuntimeError):
    """The cluster cannot finish the estimate: workers died, lost its tasks or data, or stay
    paused (the message says why)."""


class _Lost(ClusterError):
    """The cluster lost a pass's tasks or the data they read."""


class _Watch:
    """The workers' state while a pass waits for its tasks: :meth:`check` raises a
    :class:`ClusterError` when for ``STALL_LIMIT`` seconds workers paused by Dask's memory
    manager (their process memory above the pause fraction of their limit: they start none of
    the tasks assigned to them) hold the only work left, every other worker idle (or there is
    no other), or the scheduler has had no worker; :meth:`cause` tells why workers died."""

    def __init__(self, client):
        self.client = client
        self.started = time.time()          # the scheduler's clock stamps its events
        self.last = time.monotonic()
        self.stalled_since = None
        self.workers = client.scheduler_info(n_workers=-1)["workers"]
        #: the workers seen paused (their memory nearly full) and their memory limits
        self.full = {}
        #: every worker's memory limit seen, by address (restarted workers get new addresses)
        self.limits = {address: w["memory_limit"] for address, w in self.workers.items()}

    def check(self):
        now = time.monotonic()
        if now - self.last < WATCH_EVERY:
            return
        self.last = now
        self._refresh()
        paused = {address: w["memory_limit"] for address, w in self.workers.items()
                  if w.get("status") == "paused"}
        self.full.update(paused)
        if self.workers and not (paused and self._only_paused_work(paused)):
            self.stalled_since = None
            return
        if self.stalled_since is None:
            self.stalled_since = now
        if now - self.stalled_since >= STALL_LIMIT:
            if not self.workers:
                raise ClusterError(f"the Dask scheduler has had no worker for {STALL_LIMIT:.0f} s "
                                   "(they died or were never started): the estimate cannot go on")
            memory = ", ".join(f"{_mb(self.workers[a]['metrics'].get('memory'))} of "
                               f"{_mb(self.workers[a]['memory_limit'])}" for a in paused)
            who = ("every Dask worker has" if len(paused) == len(self.workers) else
                   f"{len(paused)} of {len(self.workers)} Dask workers, holding the "
                   "estimate's tasks while the others are idle, have")
            raise ClusterError(f"{who} been paused for {STALL_LIMIT:.0f} s because "
                               f"its memory is nearly full ({memory}), so the estimate cannot "
                               "go on: give the workers more memory (memory_limit) or split the "
                               "data into smaller partitions")

    def _only_paused_work(self, paused):
        """Whether the workers that are not paused run nothing: the work left is the paused
        workers' (a paused worker starts none of the tasks assigned to it)."""
        if len(paused) == len(self.workers):
            return True
        processing = self.client.processing()
        return not any(processing.get(address) for address in self.workers
                       if address not in paused)

    def cause(self):
        """Why workers died: out of memory when their nannies restarted them for exceeding
        their memory limit (the nannies' "worker-restart-memory" events on the scheduler, or
        the warning in their logs) or they were seen paused before, else killed or crashed.
        A nanny sends its event in the background and can be asked for its log only once its
        worker is back, so both are looked for during up to ``CAUSE_WAIT`` seconds."""
        limits = set(self.full.values())
        deadline = time.monotonic() + CAUSE_WAIT
        while True:
            try:
                self._refresh()
            except Exception:                               # noqa: BLE001 the cluster is gone
                break
            restarted = self._memory_restarts()
            if restarted:
                limits |= {self.limits[a] for a in restarted if a in self.limits}
                return self._out_of_memory(limits or set(self.limits.values()))
            logs = self._nanny_logs()
            if logs is not None or time.monotonic() >= deadline:
                if logs and any("memory budget" in str(record) for records in logs.values()
                                for record in records):
                    limits |= {w["memory_limit"] for w in self.workers.values()}
                break
            time.sleep(WATCH_EVERY)
        return self._out_of_memory(limits) if limits else "killed or crashed"

    def _refresh(self):
        """The scheduler's workers now, and every memory limit seen by address."""
        self.workers = self.client.scheduler_info(n_workers=-1)["workers"]
        self.limits.update({address: w["memory_limit"] for address, w in self.workers.items()})

    def _memory_restarts(self):
        """The addresses of the workers that their nannies restarted for exceeding their
        memory limit since the pass began."""
        try:
            events = self.client.get_events("worker-restart-memory")
        except Exception:                                   # noqa: BLE001 the cluster is gone
            events = ()
        return [event.get("worker") for stamp, event in events if stamp >= self.started]

    def _nanny_logs(self):
        """The nannies' logs, or None while the scheduler has no worker (whose nanny it asks)."""
        if not self.workers:
            return None
        try:
            return self.client.get_worker_logs(nanny=True)
        except Exception:                                   # noqa: BLE001 a worker just died
            return None

    @staticmethod
    def _out_of_memory(limits):
        return (f"out of memory: a worker exceeded its memory limit "
                f"({', '.join(_mb(limit) for limit in sorted(limits))}); give the workers more "
                "memory or split the data into smaller partitions")


def _mb(n_bytes):
    return f"{(n_bytes or 0) / 2 ** 20:.0f} MB"


# -- the partitions' tasks (run on the workers) ----------------------------------------------
def _summary(x, y, discrete, classification):
    """The partition's size, each column's minimum and maximum, what is wrong in it, and the
    class counts or the target's range."""
    x = np.asarray(x)                   # float32 and integers are read as they are: no copy
    if not np.issubdtype(x.dtype, np.floating) and not np.issubdtype(x.dtype, np.integer):
        x = x.astype(np.float64)
    floating = np.issubdtype(x.dtype, np.floating)
    y = np.asarray(y, dtype=np.float64).ravel()
    n = x.shape[0]
    out = dict(n=n, inf=floating and bool(np.isinf(x).any()))
    if not n:
        return dict(out, bad_code=False, y_bad=False, counts=np.zeros(0))
    out["missing"] = np.isnan(x).any(axis=0) if floating else np.zeros(x.shape[1], bool)
    out["minimum"] = np.fmin.reduce(x, axis=0).astype(np.float64)     # NaN: none known
    out["maximum"] = np.fmax.reduce(x, axis=0).astype(np.float64)
    codes = x[:, discrete] if floating else out["minimum"][discrete]  # integers: the least
    with np.errstate(invalid="ignore"):
        out["bad_code"] = bool(np.any(((codes != np.round(codes)) | (codes < 0))
                                      & ~np.isnan(codes)))
    out["y_bad"] = bool(not np.all(np.isfinite(y)) or classification and np.any(
        (y != np.round(y)) | (y < 0)))
    out["y_min"], out["y_max"] = (float(y.min()), float(y.max())) if not out["y_bad"] \
        else (0.0, 0.0)
    out["counts"] = np.bincount(y.astype(np.intp)) if classification and not out["y_bad"] \
        else np.zeros(0)
    return out


def _value_counts(x, y, spec):
    """The partition's counts of each value code per class (:meth:`.DiffModel.value_counts`)
    with the value bins of the whole data."""
    a = spec["reference"].data.n_attributes
    return _model(x, y, (np.zeros((0, a)), np.zeros(0)), spec)[0].value_counts()


def _packed(x):
    """``x`` (discrete codes 0..3) as :class:`.packed.PackedColumns`."""
    x = np.asarray(x)
    planes = pack_planes(x, np.arange(x.shape[1]))
    if planes is None:
        raise ValueError("discrete codes beyond n_values")
    return PackedColumns(planes, x.shape[1])


def _sampled(x, y, rows, packed):
    """The partition's sampled instances ``rows``: their values (float64, or with ``packed``
    their bit planes) and their targets."""
    x = np.asarray(x)[rows]
    return (_packed(x).planes if packed else x.astype(np.float64),
            np.asarray(y, dtype=np.float64).ravel()[rows])


def _model(x, y, queries, spec):
    """The diff model of the partition's rows followed by the sampled instances (rows n_p, ...),
    with the ranges, value bins, columns with missing values and probabilities P(value |
    class) of the whole data (its summary's model, ``spec["reference"]``); with
    ``spec["packed"]`` the rows are bit planes (the sampled instances come packed)."""
    rows, target = queries
    reference = spec["reference"]
    n_p = x.shape[0]
    if spec.get("packed"):
        values = PackedColumns(np.concatenate([_packed(x).planes, rows.planes]), rows.shape[1])
    else:
        values = np.empty((n_p + rows.shape[0], rows.shape[1]))     # one float64 copy
        values[:n_p], values[n_p:] = x, rows
    data = replace(reference.data, X=values,
                   y=np.concatenate([np.asarray(y, dtype=np.float64).ravel(), target]))
    return DiffModel(data, reference.options, reference=reference), n_p


def _query_blocks(m, n_rows):
    """Blocks of the sampled instances whose distances to ``n_rows`` rows fit ``BLOCK_BYTES``
    (a few copies of them are made)."""
    step = max(1, BLOCK_BYTES // (2 * 8 * max(n_rows, 1)))
    return [slice(lo, min(lo + step, m)) for lo in range(0, m, step)]


def _distances(model, n_p, instances, offset, blk, stopped):
    """Distances (sums of diffs, or of squared diffs) from the sampled instances ``blk`` to
    the partition's rows, and each one's own row in the partition (-1: elsewhere)."""
    if stopped():
        raise RuntimeError("cancelled")
    d = model.distances(n_p + np.arange(blk.start, blk.stop))[:, :n_p]
    own = instances[blk] - offset
    own = np.where((own >= 0) & (own < n_p), own, -1)
    return d, own


def _stopper(name):
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


def _search(x, y, offset, instances, queries, spec, groups, K):
    """The candidates for the k nearest of each sampled instance in each group: its K nearest
    by (distance, row) and every one tied with the K-th (:func:`.neighbours.tied_with_kth`) in
    each block of the partition's rows, found by the single-machine search
    (:func:`.neighbours.nearest_among`) with the block's rows as the only candidates (each
    block's work is about ``SEARCH_WORK`` diffs; between blocks the task looks whether it is
    cancelled). Flat arrays of the instance's position, the group, the global row index and
    the distance."""
    model, n_p = _model(x, y, queries, spec)
    stopped = _stopper(spec["stop"])
    m = instances.size
    # a sampled instance of this partition is searched from its own row, so that it is not
    # its own neighbour; the others from their rows appended after the partition's
    rows = instances - offset
    rows = np.where((rows >= 0) & (rows < n_p), rows, n_p + np.arange(m)).astype(np.intp)
    order, ranges = _candidate_tiles(model.cls[:n_p])
    a = model.data.n_attributes
    step = max(1, SEARCH_QUERIES)
    width = max(TILE_WIDTH, SEARCH_WORK // max(min(m, step) * a, 1))    # rows per block
    first = np.searchsorted(np.cumsum(ranges[:, 1] - ranges[:, 0]),
                            np.arange(width, n_p, width), side="right")
    out = []
    for lo in range(0, m if K else 0, step):
        blk = slice(lo, min(lo + step, m))
        for part in np.split(np.arange(len(ranges)), np.unique(first)):
            if stopped():
                raise RuntimeError("cancelled")
            candidates = (order, ranges[part])

            def find(at, wanted, queries=rows[blk], candidates=candidates):
                return nearest_among(model, queries[at], candidates, wanted, groups)
            # the block's K nearest and every one tied with its K-th (ties shared)
            size = int((ranges[part, 1] - ranges[part, 0]).sum())
            neighbours, distances = tied_with_kth(
                find, K, size, *find(np.arange(blk.stop - lo), min(K + tie_margin(K), max(size, K))))
            q, g, j = np.nonzero(neighbours >= 0)
            out.append((q + lo, g, neighbours[q, g, j] + offset, distances[q, g, j]))
    if not out:
        return np.zeros(0, np.intp), np.zeros(0, np.intp), np.zeros(0, np.intp), np.zeros(0)
    return tuple(np.concatenate([o[c] for o in out]) for c in range(4))


#: the search's blocks: this many sampled instances against about ``SEARCH_WORK`` diffs'
#: worth of the partition's rows (well under a second; each block loads its rows' tiles once
#: for all its instances)
SEARCH_QUERIES = 4096
SEARCH_WORK = 100_000_000


def _candidate_tiles(cls):
    """``order`` and ``ranges`` of :attr:`.DiffModel.tiles` over the first ``cls.size`` rows
    only (the partition's, not the sampled instances appended after them): the rows sorted by
    class, in tiles of at most ``TILE_WIDTH`` rows of one class."""
    return class_tiles(cls, int(cls.max()) + 1 if cls.size else 0)


def _accumulate(model, rows, others, slots, weights, n_slots, with_tau, out):
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


def _pair_sums(x, y, queries, spec, q, others, slots, weights, n_slots, with_tau):
    """The second pass of ReliefF and RReliefF: the weighted diffs of the sampled instances
    ``q`` (positions) and their neighbours ``others`` (the partition's rows) in the slots."""
    F = 2 if with_tau else 1
    a = queries[0].shape[1]
    out = (np.zeros((n_slots, F, a)), np.zeros((n_slots, a)), np.zeros((n_slots, F)))
    if not len(q):
        return out
    # only the neighbours' rows are read (from a memory-mapped partition, only their pages)
    used, others = np.unique(np.asarray(others, np.intp), return_inverse=True)
    model, n_p = _model(x[used], np.asarray(y)[used], queries, spec)
    _accumulate(model, n_p + np.asarray(q, np.intp), others.astype(np.intp),
                np.asarray(slots, np.intp), np.asarray(weights, float), n_slots, with_tau, out)
    return out


def _surf_distances(model, d):
    """The SURF family's distances: the square root of sums of squared diffs (Euclidean)."""
    return np.sqrt(d, out=d) if model.options.distance == "euclidean" else d


def _moments(x, y, offset, instances, queries, spec):
    """Per sampled instance, the number, mean and (population) standard deviation of its
    distances to the partition's other rows."""
    model, n_p = _model(x, y, queries, spec)
    stopped = _stopper(spec["stop"])
    m = instances.size
    count, mean, spread = np.zeros(m), np.zeros(m), np.zeros(m)
    weights = np.ones(n_p)
    for blk in _query_blocks(m, n_p):
        d, own = _distances(model, n_p, instances, offset, blk, stopped)
        d = _surf_distances(model, np.hstack([d, np.zeros((d.shape[0], 1))]))
        own = np.where(own >= 0, own, n_p)          # an instance elsewhere: the zero column
        mean[blk], spread[blk], count[blk] = others_mean_std(d, own, np.append(weights, 0))
    return count, mean, spread


def _band_sums(x, y, offset, instances, queries, spec, near, far, far_band):
    """The second pass of the SURF family: the diffs of each sampled instance and the
    partition's rows in its bands, summed per (band, instance, class of the member) slot."""
    model, n_p = _model(x, y, queries, spec)
    stopped = _stopper(spec["stop"])
    m = instances.size
    G = model.n_cls
    classification = model.data.is_classification
    B = 2 if far_band else 1
    F = 1 if classification else 2
    a = model.data.n_attributes
    n_slots = B * m * G
    out = (np.zeros((n_slots, F, a)), np.zeros((n_slots, a)), np.zeros((n_slots, F)))
    cls = model.cls[:n_p] if classification else np.zeros(n_p, np.intp)
    for blk in _query_blocks(m, n_p):
        band = _bands_of(model, n_p, instances, offset, blk, stopped, near, far, far_band)
        r, j = np.nonzero(band >= 0)
        q = r + blk.start
        slots = (band[r, j] * m + q) * G + cls[j]
        _accumulate(model, n_p + q, j, slots, np.ones(q.size), n_slots, not classification,
                    out)
    return out


def _bands_of(model, n_p, instances, offset, blk, stopped, near, far, far_band):
    """band[q, j] of the sampled instances ``blk`` and the partition's rows j: 0 near, 1 far,
    -1 in neither (an instance is never in its own bands)."""
    d, own = _distances(model, n_p, instances, offset, blk, stopped)
    d = _surf_distances(model, d)
    band = np.where(d < near[blk, None], 0, -1)
    if far_band:
        band[d > far[blk, None]] = 1
    at = np.flatnonzero(own >= 0)
    band[at, own[at]] = -1
    return band


def _band_counts(x, y, offset, instances, queries, spec, near, far, far_band):
    """counts[b, q, g]: the partition's rows of class g in band b of sampled instance q."""
    model, n_p = _model(x, y, queries, spec)
    stopped = _stopper(spec["stop"])
    m, G = instances.size, model.n_cls
    counts = np.zeros((2 if far_band else 1, m, G))
    cls = model.cls[:n_p]
    for blk in _query_blocks(m, n_p):
        band = _bands_of(model, n_p, instances, offset, blk, stopped, near, far, far_band)
        for b in range(counts.shape[0]):
            r, j = np.nonzero(band == b)
            counts[b, blk] += np.bincount(r * G + cls[j], minlength=(blk.stop - blk.start) * G
                                          ).reshape(-1, G)
    return counts


def _band_mismatches(x, y, offset, instances, queries, spec, near, far, far_band, coef):
    """On bit planes: ``sums[b, s, A]`` = the sum over the sampled instances q and the members
    j of band b of q in the partition of coef[b, q, s, class of j] diff(A, R_q, I_j), the
    diffs counted by :func:`.packed.band_mismatch_counts`, and ``totals[b, s]`` the same sum
    of the coefficients alone."""
    model, n_p = _model(x, y, queries, spec)
    stopped = _stopper(spec["stop"])
    B, m, S, G = coef.shape
    a = model.data.n_attributes
    sums, totals = np.zeros((B, S, a)), np.zeros((B, S))
    groups = np.concatenate([model.cls[:n_p], np.zeros(m, np.int32)]).astype(np.intp)
    step = max(1, BLOCK_BYTES // (8 * G * a))            # mismatch counts of a block
    for whole in _query_blocks(m, n_p):
        for lo in range(whole.start, whole.stop, step):
            blk = slice(lo, min(lo + step, whole.stop))
            band = _bands_of(model, n_p, instances, offset, blk, stopped, near, far, far_band)
            rows = (n_p + np.arange(blk.start, blk.stop)).astype(np.intp)
            for b in range(B):
                member = np.zeros((rows.size, n_p + m), np.bool_)
                member[:, :n_p] = band == b
                out = np.zeros((rows.size, G, a))
                with parallel_launch():
                    band_mismatch_counts(model.planes, rows, member, groups, G, out)
                size = np.stack([(member[:, :n_p] & (groups[:n_p] == g)).sum(axis=1)
                                 for g in range(G)], axis=1)                  # (b, G)
                sums[b] += np.einsum("qsg,qga->sa", coef[b, blk], out)
                totals[b] += np.einsum("qsg,qg->s", coef[b, blk], size)
    return sums, totals
