"""CORE trees: binary decision and regression trees whose splits are chosen by any attribute
estimator (Robnik-Šikonja & Kononenko 1999 §4).

At each node the selection estimator is re-run on the node's instances; the attribute with the
best estimate is binarised at its best split (:mod:`.candidates`), scored by the same estimator.
Instances with a missing split value go down both branches with fractional weights p_left and
1 - p_left, the weight proportions of the known values.

Stopping (all configurable): node weight below 2 ``min_leaf`` or no split giving each branch at
least ``min_leaf`` (default 5, ICML'99 §4.1), majority class proportion >= ``min_majority``
(default 0.97), depth ``max_depth``, a constant target, and for Relief-family estimators (and
myopic ReliefF) a best estimate <= ``min_estimate`` (default 0: no attribute separates the
classes better than chance).

The estimator switch (ICML'99, §4): at each node the correlation ρ (eq. 15) between the
selection estimator's estimates of the attributes and their Accuracy (eq. 16, classification) or
MSE (eq. 17, regression) estimates is computed; when ρ >= ``switch_threshold`` (default 0.8) the
node and its whole subtree choose splits with Accuracy / MSE. Each node records the estimator
that chose its split and ρ.

Leaves: class distribution (majority class) or, for regression, the mean or a linear model
(:mod:`.leaves`). Post-pruning: m-estimate (m = 2), C4.5's pessimistic pruning, or none
(:mod:`.pruning`). Optional pre-discretisation of numeric attributes into ``discretize``
equal-width intervals (Vilalta et al. 2001 §5.1; :mod:`.discretization`).

Instance weights (``EncodedData.weights``, e.g. Orange's ``Table.W``): an instance of weight w
counts as w instances everywhere — the estimators in every node (which see each instance with its
instance weight, whatever fractional weight a missing split value gave it), the split search,
the stopping rules (node and branch weights), class distributions and leaf models, and pruning
(including the root's prior) — so integer weights grow the tree of the data with each instance
repeated w times. The fractional weights of missing split values multiply the instance weights
in the split search, leaves and pruning.
"""

from dataclasses import replace

import numpy as np

from ..estimators.base import Parameters, check_memory
from ..estimators.encoding import power_of_two_scale
from ..estimators.impurity import MSE, Accuracy, MyopicReliefF
from ..estimators.relief_family import ReliefFamily
from .candidates import best_split, corelearn_split, estimate_in_blocks
from .discretization import discretize as discretize_data
from .leaves import LEAF_MODELS, fit_leaf
from .nodes import GrownTree, TreeNode
from .pruning import (PRUNING, prune_m_estimate, prune_pessimistic, root_prior_mse,
                      training_mse)

__all__ = ["CoreTree", "correlation"]

def correlation(x, y):
    """Pearson's ρ (eq. 15) over the attributes where both estimates are finite; NaN when fewer
    than two remain or either vector is constant."""
    ok = np.isfinite(x) & np.isfinite(y)
    x, y = x[ok], y[ok]
    if x.size < 2:
        return np.nan
    dx, dy = x - x.mean(), y - y.mean()
    denom = np.sqrt((dx @ dx) * (dy @ dy))
    return float(dx @ dy / denom) if denom > 1e-12 * max(1.0, np.abs(x).max() * np.abs(y).max()) \
        else np.nan


def _estimate_attributes(estimator, context, node_data, check):
    """The estimates of all attributes of ``node_data`` over ``context``: one call when they are
    few, otherwise blocks of attributes with ``check()`` between them (a cancel point)."""
    n, a = node_data.X.shape
    return estimate_in_blocks(estimator, context, n, a,
                              lambda lo, hi: None if (lo, hi) == (0, a)
                              else node_data.columns(np.arange(lo, hi)), check)


def _is_relief_family(estimator):
    return isinstance(estimator, (ReliefFamily, MyopicReliefF))


class CoreTree(Parameters):
    """Grows a CORE tree on :class:`EncodedData`; see the module docstring.

    Parameters
    ----------
    estimator
        The split selector (an engine estimator); None = ReliefF() for classification,
        RReliefF() for regression.
    min_leaf, min_majority, max_depth, min_estimate
        Stopping (None disables max_depth / min_estimate).
    leaf_model
        "mean" or "linear" (regression).
    pruning, m, confidence
        "m-estimate", "pessimistic" (classification) or None; m, confidence their parameters.
    switch, switch_threshold
        The estimator switch and its ρ threshold.
    discretize
        None, or the number of equal-width intervals for numeric attributes.
    thresholds_per_pass
        Candidate thresholds of a numeric attribute a column-scoring (Relief-family, CM, Π)
        estimator scores per pass of its coarse-to-fine search (:mod:`.candidates`; None = all
        in one pass).
    preset
        "papers" (default) or "corelearn": grow as CORElearn (the R package of the CORE
        learner's authors) does. A node stops when its weight is below ``min_leaf`` (regression:
        at most ``min_leaf``), when it is pure (``min_majority`` is not used) or has a constant
        target, or when the best Relief-family estimate is below ``min_estimate``; otherwise
        the best attribute is split at its best split (:func:`.candidates.corelearn_split`, all
        candidate thresholds scored), and when a branch would be lighter than ``min_leaf`` the
        node becomes a leaf (the next best split is not tried). Instances whose share in a
        branch is at most 0.05 are not sent there. The default estimators are
        ``ReliefF.corelearn()`` and ``RReliefF.corelearn()``.
    """
    #: CORElearn's minInstanceWeight: a fractional instance weight at most this is dropped
    CORELEARN_MIN_INSTANCE_WEIGHT = 0.05

    def __init__(self, estimator=None, min_leaf=5, min_majority=0.97, max_depth=None,
                 min_estimate=0.0, leaf_model="mean", pruning="m-estimate", m=2.0,
                 confidence=0.25, switch=False, switch_threshold=0.8, discretize=None,
                 thresholds_per_pass=25, preset="papers"):
        self.estimator = estimator
        self.min_leaf = min_leaf
        self.min_majority = min_majority
        self.max_depth = max_depth
        self.min_estimate = min_estimate
        self.leaf_model = leaf_model
        self.pruning = pruning
        self.m = m
        self.confidence = confidence
        self.switch = switch
        self.switch_threshold = switch_threshold
        self.discretize = discretize
        self.thresholds_per_pass = thresholds_per_pass
        self.preset = preset

    @classmethod
    def corelearn(cls, **overrides):
        """A tree grown as CORElearn grows it (``preset="corelearn"``); ``overrides``: other
        keyword arguments."""
        return cls(preset="corelearn", **overrides)

    @property
    def _corelearn(self):
        return self.preset == "corelearn"

    # ------------------------------------------------------------------ validation
    def check_parameters(self, data):
        """Raise ``ValueError`` naming the parameter outside its allowed range."""
        def number(name, low, high, low_open=False):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float, np.number)) \
                    or not (low < value if low_open else low <= value) or value > high:
                rng = f"{'(' if low_open else '['}{low}, {high}]"
                raise ValueError(f"{name} must be a number in {rng}, got {value!r}")

        def integer_or_none(name, low):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool)
                                      or not isinstance(value, (int, np.integer)) or value < low):
                raise ValueError(f"{name} must be None or an integer >= {low}, got {value!r}")

        number("min_leaf", 0, np.inf, low_open=True)
        number("min_majority", 0, 1, low_open=True)
        integer_or_none("max_depth", 0)
        if self.min_estimate is not None:
            number("min_estimate", -np.inf, np.inf)
        if self.leaf_model not in LEAF_MODELS:
            raise ValueError(f"leaf_model must be one of {LEAF_MODELS}, got {self.leaf_model!r}")
        if self.leaf_model == "linear" and data.is_classification:
            raise ValueError("leaf_model='linear' needs a regression (numeric) target")
        if self.pruning not in PRUNING:
            raise ValueError(f"pruning must be one of {PRUNING}, got {self.pruning!r}")
        if self.pruning == "pessimistic" and not data.is_classification:
            raise ValueError("pruning='pessimistic' (C4.5) needs a classification target; "
                             "use 'm-estimate' for regression")
        number("m", 0, np.inf)
        number("confidence", 0, 1, low_open=True)
        if not isinstance(self.switch, (bool, np.bool_)):
            raise ValueError(f"switch must be True or False, got {self.switch!r}")
        number("switch_threshold", -1, 1)
        integer_or_none("discretize", 2)
        integer_or_none("thresholds_per_pass", 2)
        if self.preset not in ("papers", "corelearn"):
            raise ValueError(f"preset must be 'papers' or 'corelearn', got {self.preset!r}")

    def selection_estimator(self, data):
        """The estimator that chooses splits for ``data``'s task (checked against it)."""
        est = self.estimator
        if est is None:
            from ..estimators.relieff import ReliefF
            from ..estimators.rrelieff import RReliefF
            default = ReliefF if data.is_classification else RReliefF
            return default(preset=self.preset)
        task = "classification" if data.is_classification else "regression"
        if task not in getattr(est, "tasks", ()):
            raise ValueError(f"estimator {getattr(est, 'name', est)!r} cannot estimate a "
                             f"{task} target")
        return est

    # ------------------------------------------------------------------ growing
    def fit(self, data, callback=None):
        """Grow (and prune) a tree on ``data`` (EncodedData); returns a :class:`GrownTree`.

        Raises ``ValueError`` on bad parameters, no instances or no attributes. One instance,
        one class, a constant target or attributes that cannot split give a single leaf."""
        self.check_parameters(data)
        if data.n_instances == 0:
            raise ValueError("cannot grow a tree on data without instances")
        if data.n_attributes == 0:
            raise ValueError("cannot grow a tree: the data have no attributes")
        estimator = self.selection_estimator(data)
        if self.leaf_model == "linear":       # the root's least squares: design, copy, workspace
            p = int((~data.discrete).sum()) + 1
            check_memory(3 * 8 * data.n_instances * p, f"linear leaf models on "
                         f"{data.n_instances} instances x {p - 1} numeric attributes",
                         "use leaf_model='mean' or fewer instances or attributes")
        cuts = None
        if self.discretize is not None:
            data, cuts = discretize_data(data, self.discretize)
        # a regression target is grown in units of a power of two (an exact change of unit) so
        # that means and squared errors stay finite for targets near the float limits
        scale = 1.0 if data.is_classification else float(power_of_two_scale(np.abs(data.y).max()))
        if scale != 1.0:
            data = replace(data, y=data.y * scale, y_span=data.y_span * scale)
        n = data.n_instances
        progress = _Progress(callback)
        root = self._grow(data, np.arange(n), data.instance_weights, 0, estimator, False, progress,
                          (0.0, 1.0))
        tree = GrownTree(root, data.n_classes, data.names, cuts, halves_missing=self._corelearn)
        progress.report(1.0)            # a cancel point before pruning (one pass over the nodes)
        self._prune(tree, data)
        if scale != 1.0:
            for node in root.nodes():
                node.model = node.model.in_units(1.0 / scale)
        if callback is not None:
            callback(1.0)
        return tree

    def _node(self, data, rows, weights, depth):
        model = fit_leaf(data.X[rows], data.y[rows], weights, data.n_classes, ~data.discrete,
                         self.leaf_model)
        return TreeNode(rows, weights, model, depth)

    def _stops(self, node, data):
        if self.max_depth is not None and node.depth >= self.max_depth:
            return True
        if not self._corelearn:
            too_light = node.weight < 2 * self.min_leaf
        elif data.is_classification:
            too_light = node.weight < self.min_leaf
        else:
            too_light = node.weight <= self.min_leaf
        if too_light:
            return True
        if data.is_classification:
            dist = node.model.value
            majority = 1.0 if self._corelearn else self.min_majority
            return dist.max() >= majority * dist.sum()
        y = data.y[node.rows]
        return np.ptp(y) == 0

    def _grow(self, data, rows, weights, depth, estimator, switched, progress, span):
        """The subtree of the node holding ``rows``; its growth reports progress in ``span``
        (see :class:`_Progress`)."""
        lo, hi = span
        node = self._node(data, rows, weights, depth)
        if not self._stops(node, data):
            node_data = data.subset(rows)
            own = lo + _Progress.OWN_SHARE * (hi - lo)
            chosen = self._choose(estimator, switched, node_data, weights,
                                  progress.part(lo, own))
            if chosen is not None:
                attribute, split, used, rho = chosen
                self._split(node, data, node_data, attribute, split, used, rho,
                            switched or used is not estimator, progress, (own, hi))
                return node
        progress.report(hi)
        return node

    def _split(self, node, data, node_data, attribute, split, used, rho, switched, progress,
               span):
        branch = split.branches(node_data.X[:, attribute])
        missing = np.isnan(branch)
        known_weight = node.weights[~missing].sum()
        node.p_left = float(node.weights[branch == 0].sum() / known_weight)
        sides = []
        for side, share in ((0, node.p_left), (1, 1 - node.p_left)):
            take = (branch == side) | missing
            weights = node.weights[take] * np.where(missing[take], share, 1.0)
            if self._corelearn:         # CORElearn drops tiny shares, and a light branch
                # (the share of each copy: an instance of weight w stands for w copies)
                share_of_copy = weights / data.instance_weights[node.rows[take]]
                keep = share_of_copy > self.CORELEARN_MIN_INSTANCE_WEIGHT  # makes a leaf
                take[take] = keep
                weights = weights[keep]
                if weights.sum() < self.min_leaf or not keep.any():
                    progress.report(span[1])
                    return
            sides.append((take, weights))
        node.attribute, node.split, node.estimator, node.rho = attribute, split, used.name, rho
        lo, hi = span
        cut = lo + (hi - lo) * sides[0][1].sum() / (sides[0][1].sum() + sides[1][1].sum())
        for (take, weights), child_span in zip(sides, ((lo, cut), (cut, hi))):
            node.children.append(self._grow(data, node.rows[take], weights, node.depth + 1,
                                            used, switched, progress, child_span))

    def _choose(self, estimator, switched, node_data, weights, report):
        """(attribute, split, estimator used, ρ) for the node, or None for a leaf.
        ``report(fraction)`` reports the progress of this work (the context's own progress
        first, then the split search; it is also the cancel point between blocks)."""
        if node_data.n_instances < estimator.min_instances:
            return None
        context = estimator.context(node_data, callback=lambda f: report(0.6 * f))
        estimates = _estimate_attributes(estimator, context, node_data, lambda: report(0.6))
        report(0.7)
        rho = np.nan
        if self.switch and not switched:
            accuracy = Accuracy() if node_data.is_classification else MSE()
            if type(accuracy) is not type(estimator):
                accuracy_context = accuracy.context(node_data)
                accuracy_estimates = _estimate_attributes(accuracy, accuracy_context, node_data,
                                                          lambda: report(0.7))
                rho = correlation(estimates, accuracy_estimates)
                if rho >= self.switch_threshold:
                    estimator, context, estimates = accuracy, accuracy_context, accuracy_estimates
        finite = np.flatnonzero(np.isfinite(estimates))
        order = finite[np.argsort(-estimates[finite], kind="stable")]
        if self._corelearn:
            if not order.size or (self.min_estimate is not None and _is_relief_family(estimator)
                                  and estimates[order[0]] < self.min_estimate):
                return None
            split = corelearn_split(estimator, context, node_data, order[0],
                                    check=lambda: report(0.8))
            return None if split is None else (order[0], split, estimator, rho)
        if self.min_estimate is not None and _is_relief_family(estimator):
            order = order[estimates[order] > self.min_estimate]
        for i, attribute in enumerate(order):
            done = 0.7 + 0.3 * i / len(order)
            split = best_split(estimator, context, node_data, weights, attribute, self.min_leaf,
                               self.thresholds_per_pass, check=lambda: report(done))
            if split is not None:
                return attribute, split, estimator, rho
        return None

    # ------------------------------------------------------------------ pruning
    def _prune(self, tree, data):
        if self.pruning == "m-estimate":
            if data.is_classification:
                counts = np.bincount(data.y.astype(np.intp), weights=data.weights,
                                     minlength=data.n_classes)
                prior = (counts + 1.0) / (counts.sum() + data.n_classes)
            else:
                prior = root_prior_mse(data.X, data.y, data.weights)
            node_mse = training_mse(data.X, data.y) if self._corelearn else None
            prune_m_estimate(tree.root, self.m, prior, node_mse)
        elif self.pruning == "pessimistic":
            prune_pessimistic(tree.root, self.confidence)


class _Progress:
    """Growth progress: the share of the training weight that has reached a final leaf, refined
    within a node. Each node owns a span of [0, 1] as wide as its share of the weight (the root
    all of it): the first ``OWN_SHARE`` of the span measures the node's own work (the estimator's
    context by its own progress, then the split search), the rest is divided between its
    children by their weights; a leaf reports the end of its span. Reports never decrease, and
    each is a cancel point: an exception raised by ``callback`` propagates."""
    #: share of a node's span for choosing its split (the Relief family's neighbour search is
    #: quadratic in the node's size, so a node costs about as much as all of its subtree)
    OWN_SHARE = 0.5

    def __init__(self, callback):
        self.callback, self.last = callback, 0.0

    def report(self, fraction):
        if self.callback is not None:
            self.last = max(self.last, min(float(fraction), 1.0))
            self.callback(self.last)

    def part(self, lo, hi):
        """A callback reporting fraction f of the span [lo, hi]."""
        return lambda f: self.report(lo + (hi - lo) * f)
