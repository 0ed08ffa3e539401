"""OBLIVION: pruning irrelevant attributes from oblivious decision trees (Langley 1994).

An oblivious decision tree tests the same attribute at every node of a level, so it is a set of
disjoint rules over one attribute set. Langley's OBLIVION ("Pruning of Oblivious Decision Trees")

1. starts from the full oblivious tree over all attributes and estimates its accuracy on the
   training set by a conservative estimate (leave-one-out here by default, or n-fold
   cross-validation);
2. removes each remaining attribute in turn, estimates the accuracy of each pruned tree and keeps
   the most accurate one if it makes no more errors than the current tree;
3. repeats until the best pruned tree is less accurate than the current one.

That stopping rule (Langley's rule, ``search="greedy"``) stops early when many irrelevant
attributes hold the estimate near chance: on parity-2 with 50 irrelevant attributes and 500
instances it keeps 40 of the 50. The default search (``search="full-path"``) therefore goes on
removing the least harmful attribute down to none and keeps the most accurate tree on that path;
there it keeps exactly the two informative attributes.

Prediction with the retained attributes (same section of the paper): the class distribution of
the matching rule, and when no rule matches the summed distributions of the best matching rules —
which "is equivalent to using the simple nearest neighbor algorithm, but with some attributes
ignored": all stored cases at the smallest distance in the reduced space vote, the majority wins
(equal votes go to the lowest class code). A query whose retained attributes are all missing
matches every rule equally: it gets the class distribution of the training data.

Distances are the Relief engine's (:class:`~.estimators.neighbourhood.diffs.DiffModel`: sums of per-attribute
diffs, RELIEF-D missing values by default). The distance without attribute t is the current
distance minus t's contribution, so one step of the search evaluates every candidate removal with
a subtraction per pair, and the leave-one-out nearest cases are the row minimum with the instance
itself excluded — no refitting. Rows are processed in blocks sized to a memory budget (no N x N
matrix beyond a fixed size); a data set whose blocks would not fit in the memory available is
refused before anything is allocated.

Instance weights (``EncodedData.weights``, Orange's ``Table.W``): an instance of weight w counts
as w copies of it — its vote weighs w, a misclassification costs w in the accuracy estimate, and
under leave-one-out its other w − 1 copies stay cases of it (at the engine's distance of two
copies) — so integer weights give the search and the model of the data with each instance
repeated w times (with k-fold cross-validation the copies share the instance's fold). The numpy core knows nothing about Orange; ``learners.ObliviousTreeLearner`` wraps it.
"""
from dataclasses import dataclass, replace

import numpy as np
from numba import njit, prange

from .estimators.base import (BLOCK_BYTES, Parameters, check_data, check_memory,
                              parallel_launch, random_generator, row_blocks)
from .estimators.description import N_INSTANCES, Param
from .estimators.neighbourhood.diffs import DiffModel, DiffOptions

__all__ = ["ObliviousTree", "ObliviousTreeModel"]

#: the largest N x N distance matrix kept between steps (updated by subtraction); above it the
#: distances are recomputed block by block at every step
MATRIX_BYTES = 256 * 2 ** 20
#: bytes of the per-row arrays of one block of rows (rows x N distances): about 0.2 s of work at
#: N = 20,000 between two progress reports (cancel points)
STEP_BYTES = 16 * 2 ** 20
#: "full-path" (default): remove attributes down to none and keep the most accurate tree met on
#: the way; "greedy": Langley's rule, stop when the best pruned tree makes more errors
SEARCHES = ("full-path", "greedy")


#: the folds of the cross-validation that scores a candidate tree
FOLDS = Param("folds", "int", None, "Folds", low=2, high=N_INSTANCES, none="leave-one-out",
              tooltip="k-fold cross-validation, or leave-one-out.")


class ObliviousTree(Parameters):
    """OBLIVION's backward elimination (Langley 1994, "Pruning of Oblivious Decision
    Trees").

    ``folds=None`` estimates accuracy by leave-one-out; an integer k >= 2 by stratified k-fold
    cross-validation with folds drawn from ``random_state``. ``search="full-path"`` (default)
    removes the least harmful attribute at each step down to none and keeps the most accurate
    tree on that path (the one with fewer attributes among equals), which escapes the plateaus
    where many irrelevant attributes leave the estimate at chance. ``search="greedy"`` is
    Langley's rule: it stops at the first step whose best pruned tree makes more errors than the
    current one (on parity-2 with 50 irrelevant attributes and 500 instances it keeps 40 of
    them). ``numeric_diff``, ``missing`` and ``distance`` are the engine's diff options
    (:class:`~.estimators.neighbourhood.diffs.DiffOptions`).
    ``fit(data, callback)`` takes an :class:`~.estimators.encoding.EncodedData` with a class
    and returns an :class:`ObliviousTreeModel`.
    """
    name = "OBLIVION"
    tasks = frozenset({"classification"})
    min_instances = 2

    def __init__(self, folds=None, search="full-path", random_state=None, numeric_diff="linear",
                 missing="D", distance="manhattan"):
        self.folds = folds
        self.search = search
        self.random_state = random_state
        self.numeric_diff = numeric_diff
        self.missing = missing
        self.distance = distance

    def diff_options(self):
        return DiffOptions(numeric=self.numeric_diff, missing=self.missing,
                           distance=self.distance).check()

    def fold_assignment(self, data):
        """Fold of each instance: its own index for leave-one-out; for k-fold CV a stratified
        random assignment (each class spread evenly over the folds)."""
        n = data.n_instances
        if self.folds is None:
            return np.arange(n)
        k = self.folds
        FOLDS.check(k, n)
        rng = random_generator(self.random_state)
        order = np.lexsort((rng.random(n), data.y))
        fold = np.empty(n, dtype=np.intp)
        fold[order] = np.arange(n) % k
        return fold

    def fit(self, data, callback=None):
        """Run the backward elimination on ``data`` and return the model; see the class doc."""
        check_data(data, self)
        if self.search not in SEARCHES:
            raise ValueError(f"search must be one of {', '.join(map(repr, SEARCHES))}, "
                             f"got {self.search!r}")
        options = self.diff_options()
        # inside distances RELIEF-C uses RELIEF-B's diff (diffs.py); pair diffs must agree
        pair_options = replace(options, missing="B") if options.missing == "C" else options
        fold = self.fold_assignment(data)
        n, a = data.n_instances, data.n_attributes
        check_memory(_peak_bytes(n, a), f"OBLIVION on {n} instances x {a} attributes",
                     "use fewer instances or attributes")
        total_work = (a + 1) * (a + 2) / 2  # candidate evaluations if every attribute goes
        done = 0.0

        def progress(units):
            nonlocal done
            done += units
            if callback is not None:
                callback(min(1.0, done / total_work))

        kept = list(range(a))
        keep_matrix = 8 * n * n <= MATRIX_BYTES
        dist = _distances(data, pair_options, kept, progress) if keep_matrix else None
        steps = []      # (attributes before the step, their errors, errors without each)
        while True:
            errors = _candidate_errors(data, pair_options, kept, fold, progress, dist)
            steps.append((list(kept), errors[0], errors[1:]))
            if not kept:
                break
            best = int(np.argmin(errors[1:]))
            if self.search == "greedy" and errors[1 + best] > errors[0]:
                break
            if dist is not None:
                dist -= _distances(data, pair_options, [kept[best]], progress)
            del kept[best]
        if callback is not None:
            callback(1.0)
        total = data.total_weight
        path = tuple((before[int(np.argmin(without))], 1.0 - without.min() / total)
                     for before, _, without in steps if before)
        path = path[:len(steps) - 1]        # the removals made
        # the final tree: the most accurate on the path (the latest, i.e. smallest, of equals);
        # greedy search ends at its last accepted step, which is that one
        chosen = len(steps) - 1 - int(np.argmin([e for _, e, _ in steps][::-1]))
        retained, errors_chosen, without_chosen = steps[chosen]
        losses = np.zeros(a)
        for (before, current, without) in steps[:chosen]:
            losses[before[int(np.argmin(without))]] = (without.min() - current) / total
        losses[retained] = (without_chosen - errors_chosen) / total
        return ObliviousTreeModel(data, options, np.array(retained, dtype=np.intp),
                                  1.0 - steps[0][1] / total, 1.0 - errors_chosen / total, path,
                                  losses)


def _peak_bytes(n, a):
    """The most memory a fit on n instances x a attributes holds at once: the kept N x N
    matrix, one block's distances and candidate lists, one chunk's pair diffs (at least one
    row's candidates, up to N pairs x a attributes) and the folds."""
    matrix = 8 * n * n if 8 * n * n <= MATRIX_BYTES else 0
    return matrix + 4 * max(STEP_BYTES, 8 * n) + max(BLOCK_BYTES, 8 * n * a) + 16 * n


def _distances(data, options, columns, progress):
    """The N x N engine distances over ``columns``, computed in blocks of rows (``progress(0)``
    between blocks: a cancel point)."""
    n = data.n_instances
    model = DiffModel(data.columns(columns), options)
    out = np.empty((n, n))
    for rows in row_blocks(n, 8 * n, STEP_BYTES):
        progress(0)
        out[rows] = model.distances(np.arange(rows.start, rows.stop))
    return out


def _candidate_errors(data, options, kept, fold, progress, dist=None):
    """Errors of the current tree (entry 0) and of the tree without each of ``kept`` (entries
    1..), each instance classified by its nearest cases outside its own fold. ``dist`` holds
    the current N x N distances, or None to compute them block by block.

    A diff is at most 1 (also squared), so removing one attribute lowers a distance by at most
    1: the nearest cases of instance i without any one attribute lie among the cases within
    (current nearest distance + 1) of i. Only those pairs get their per-attribute diffs
    (:meth:`DiffModel.pair_diffs`); the distance without t is the current one minus t's diff.
    """
    n = data.n_instances
    m = len(kept)
    y = data.y.astype(np.intp)
    w = data.instance_weights
    errors = np.zeros(m + 1)
    tol = _tolerance(m)
    model = DiffModel(data.columns(kept), options) if m else None
    pair_limit = int(max(1, BLOCK_BYTES // (8 * max(m, 1))))
    for block in row_blocks(n, 8 * n, STEP_BYTES):
        rows = np.arange(block.start, block.stop)
        if dist is not None:
            block_dist = dist[rows]
        else:
            block_dist = model.distances(rows) if m else np.zeros((rows.size, n))
        _exclude_own_fold(block_dist, rows, fold, w)
        indptr, others, cand_dist, cand_y = _candidate_pairs(block_dist, y, 1.0 + 2 * tol)
        del block_dist
        cand_w = _case_weights(w, rows, indptr, others)
        lo = 0
        while lo < rows.size:    # chunks of rows whose pairs' diffs fit the memory budget
            hi = int(np.searchsorted(indptr, indptr[lo] + pair_limit, side="right")) - 1
            hi = min(rows.size, max(lo + 1, hi))
            pairs = slice(indptr[lo], indptr[hi])
            chunk_ptr = indptr[lo:hi + 1] - indptr[lo]
            if m:
                contrib = model.pair_diffs(np.repeat(rows[lo:hi], np.diff(chunk_ptr)),
                                           others[pairs])
                # an attribute with no known value has NaN diffs and no part in distances
                np.nan_to_num(contrib, copy=False, nan=0.0)
                if options.distance == "euclidean":
                    contrib **= 2
            else:
                contrib = np.zeros((indptr[hi] - indptr[lo], 0))
            out = np.zeros((m + 1, hi - lo))
            with parallel_launch():
                _count_errors(chunk_ptr, cand_dist[pairs], cand_y[pairs], cand_w[pairs],
                              contrib, y[rows[lo:hi]], w[rows[lo:hi]], data.n_classes, tol, out)
            errors += out.sum(axis=1)
            progress((m + 1) * (hi - lo) / n)
            lo = hi
    return errors


def _exclude_own_fold(dist, rows, fold, weights):
    """Distances to the cases of the row's own fold become inf. For leave-one-out (each
    instance its own fold) an instance of weight w > 1 stands for w copies, of which only the
    one classified is left out: it stays a case of itself (with weight w - 1,
    :func:`_case_weights`), at the engine's distance of two copies."""
    own = np.arange(rows.size), rows
    self_dist = dist[own].copy()
    dist[fold[rows][:, None] == fold[None, :]] = np.inf
    copies = (weights[rows] > 1) & (np.bincount(fold, minlength=fold.size)[fold[rows]] == 1)
    dist[own[0][copies], rows[copies]] = self_dist[copies]


def _case_weights(weights, rows, indptr, others):
    """Vote weight of each candidate case: its instance weight, less the one copy classified
    when the case is the row itself (see :func:`_exclude_own_fold`)."""
    cand_w = weights[others]
    row_of_pair = np.repeat(rows, np.diff(indptr))
    cand_w[others == row_of_pair] -= 1.0
    return cand_w


def _candidate_pairs(dist, y, margin):
    """CSR lists of the cases within ``margin`` of each row's nearest distance: row pointers,
    case indices, their distances and classes."""
    near = dist <= dist.min(axis=1, keepdims=True) + margin
    rows, others = np.nonzero(near)
    indptr = np.searchsorted(rows, np.arange(dist.shape[0] + 1))
    return indptr, others, dist[rows, others], y[others]


def _tolerance(n_attributes):
    """Distances within this of the minimum count as equal: sums of up to ``n_attributes`` diffs
    in [0, 1] differ by rounding when an attribute's diff is subtracted instead of left out."""
    return 1e-9 * max(1, n_attributes)


@njit(cache=True, inline="always")
def _nearest_votes(indptr, cand_dist, cand_y, cand_w, contrib, t, b, tol, votes):
    """Class votes (summed case weights) of row ``b``'s nearest candidate cases, at distance
    ``cand_dist`` minus the diff of candidate attribute ``t`` (or the distance itself when
    t < 0). A case of weight 0 takes no part."""
    best = np.inf
    votes[:] = 0.0
    for p in range(indptr[b], indptr[b + 1]):
        if cand_w[p] <= 0:
            continue
        d = cand_dist[p] - contrib[p, t] if t >= 0 else cand_dist[p]
        if d < best - tol:
            best = d
            votes[:] = 0.0
            votes[cand_y[p]] = cand_w[p]
        elif d <= best + tol:
            votes[cand_y[p]] += cand_w[p]


@njit(cache=True, nogil=True, parallel=True)
def _count_errors(indptr, cand_dist, cand_y, cand_w, contrib, y_rows, w_rows, n_classes, tol,
                  out):
    n_cand = contrib.shape[1]
    for b in prange(y_rows.size):
        votes = np.zeros(n_classes)
        for t in range(-1, n_cand):
            _nearest_votes(indptr, cand_dist, cand_y, cand_w, contrib, t, b, tol, votes)
            out[t + 1, b] = w_rows[b] if np.argmax(votes) != y_rows[b] else 0.0


@njit(cache=True, nogil=True, parallel=True)
def _vote_distributions(indptr, cand_dist, cand_y, cand_w, tol, out):
    no_contrib = np.zeros((1, 1))
    for b in prange(out.shape[0]):
        votes = np.zeros(out.shape[1])
        _nearest_votes(indptr, cand_dist, cand_y, cand_w, no_contrib, -1, b, tol, votes)
        out[b] = votes / votes.sum()


@dataclass(eq=False)
class ObliviousTreeModel:
    """The pruned oblivious tree: the training data on the ``retained`` attributes.

    ``initial_accuracy`` and ``accuracy`` are the estimated accuracies of the full and the final
    tree; ``path`` lists the removals the search made as (attribute index, estimated accuracy
    after its removal), in elimination order (with ``search="full-path"`` it runs past the final
    tree); ``accuracy_loss[t]`` is the estimated accuracy lost by removing t: at its step for
    eliminated attributes, from the final tree for retained ones.
    """
    data: object              # EncodedData the model was fitted on (all attributes)
    options: DiffOptions
    retained: np.ndarray      # retained attribute indices, in the data's column order
    initial_accuracy: float
    accuracy: float
    path: tuple
    accuracy_loss: np.ndarray

    def __repr__(self):
        """One line: how many attributes are kept and the estimated accuracies (not the
        training data)."""
        return (f"ObliviousTreeModel({self.retained.size} of {self.data.n_attributes} "
                f"attributes retained, columns {self.retained.tolist()}; estimated accuracy "
                f"{self.initial_accuracy:.3f} -> {self.accuracy:.3f})")

    @property
    def eliminated(self):
        """Attributes removed from the final tree, in elimination order."""
        gone = [t for t, _ in self.path if t not in set(self.retained.tolist())]
        return np.array(gone, dtype=np.intp)

    def predict_proba(self, X, callback=None):
        """Class distribution of the nearest stored cases in the space of the retained
        attributes, for query rows ``X`` encoded like the training data (all its columns); the
        training class distribution for a row whose retained attributes are all missing."""
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2 or X.shape[1] != self.data.n_attributes:
            raise ValueError(f"X must have {self.data.n_attributes} columns, "
                             f"got shape {X.shape}")
        train = self.data.columns(self.retained)
        n_train, n_q = train.n_instances, X.shape[0]
        y = train.y.astype(np.intp)
        out = np.empty((n_q, self.data.n_classes))
        tol = _tolerance(self.retained.size)
        for rows in row_blocks(n_q, 8 * (n_train + 25)):
            if self.retained.size:
                dist = query_distances(train, X[rows][:, self.retained], self.options)
            else:
                dist = np.zeros((rows.stop - rows.start, n_train))
            indptr, others, cand_dist, cand_y = _candidate_pairs(dist, y, 0.0)
            with parallel_launch():
                _vote_distributions(indptr, cand_dist, cand_y, train.instance_weights[others],
                                    tol, out[rows])
            unknown = np.isnan(X[rows][:, self.retained]).all(axis=1) & (self.retained.size > 0)
            out[rows][unknown] = self.data.class_priors()
            if callback is not None:
                callback(rows.stop / n_q)
        return out

    def predict(self, X):
        """The majority class of the nearest stored cases (lowest code among equal votes)."""
        return np.argmax(self.predict_proba(X), axis=1)


def query_distances(train, X_query, options):
    """Engine distances (:meth:`DiffModel.extended`) from each query row to each training
    instance, shape (len(X_query), n_train), with the training data's ranges, bins and
    P(v | c). RELIEF-D conditions a missing value on the class of its own instance, which a
    query does not have: a query's missing value is compared with the case of class c as if the
    query were of class c (the hypothesis that case votes for)."""
    n_train, n_q = train.n_instances, X_query.shape[0]
    model = DiffModel(train, options)
    rows = np.arange(n_train, n_train + n_q)
    missing = np.isnan(X_query).any(axis=1)
    dist = np.empty((n_q, n_train))
    if (~missing).any():
        dist[~missing] = model.extended(X_query[~missing]).distances(
            rows[:(~missing).sum()])[:, :n_train]
    if missing.any():
        queries = X_query[missing]
        for c in range(train.n_classes):
            cases = np.flatnonzero(train.y == c)
            as_c = model.extended(queries, np.full(len(queries), c))
            dist[np.ix_(missing, cases)] = as_c.distances(rows[:len(queries)])[:, cases]
    return dist
