"""The grown tree: nodes and prediction with fractional weights for missing values.

An instance whose split value is missing goes down both branches, weighted by the training
proportions ``p_left`` and 1 - ``p_left`` of the node (a better choice
than CORElearn's 0.5/0.5); its prediction is the weighted sum of the leaves it reaches.
"""
from dataclasses import dataclass, field

import numpy as np

from ..estimators.splits import Split
from .discretization import apply_cuts
from .leaves import LeafModel

__all__ = ["TreeNode", "GrownTree"]


@dataclass(eq=False)
class TreeNode:
    """One node. ``rows`` are the training instances that reach it (indices into the training
    data) with their fractional ``weights``; ``model`` its leaf model; an inner node has a
    ``split``, two ``children`` [left, right], ``p_left`` (the known-value weight proportion that
    went left), ``estimator`` (the name of the estimator that chose the split) and ``rho``
    (the correlation of the estimator switch, eq. 15; NaN when not computed)."""
    rows: np.ndarray
    weights: np.ndarray
    model: LeafModel
    depth: int = 0
    attribute: int = -1
    split: Split = None
    children: list = field(default_factory=list)
    p_left: float = 0.5
    estimator: str = ""
    rho: float = np.nan

    @property
    def weight(self):
        return float(self.weights.sum())

    @property
    def is_leaf(self):
        return not self.children

    def __repr__(self):
        """One line: depth, weight and split, not the arrays of rows and weights."""
        what = "leaf" if self.is_leaf else f"split on column {self.attribute} by " \
                                           f"{self.estimator or 'an estimator'}"
        return f"TreeNode(depth {self.depth}, weight {self.weight:g}, {what})"

    def make_leaf(self):
        self.attribute, self.split, self.children = -1, None, []
        self.estimator, self.rho = "", np.nan

    def nodes(self):
        """This node and all below it, depth first (left before right)."""
        yield self
        for child in self.children:
            yield from child.nodes()


@dataclass(eq=False)
class GrownTree:
    """A finished tree with what prediction needs; ``n_classes`` = 0 for regression;
    ``cuts`` the pre-discretisation cut points ({column: points}) or None."""
    root: TreeNode
    n_classes: int
    names: tuple = ()
    cuts: dict = None
    #: an instance whose split value is missing goes down both branches with the training
    #: proportions (False) or half to each (True, as CORElearn predicts)
    halves_missing: bool = False

    @property
    def is_classification(self):
        return self.n_classes > 0

    def __repr__(self):
        """One line: the tree's kind and size (the nodes' arrays are left out)."""
        kind = f"{self.n_classes} classes" if self.is_classification else "regression"
        return (f"GrownTree({kind}, {self.node_count()} nodes, {self.leaf_count()} leaves, "
                f"depth {self.depth()})")

    def node_count(self):
        return sum(1 for _ in self.root.nodes())

    def leaf_count(self):
        return sum(1 for n in self.root.nodes() if n.is_leaf)

    def depth(self):
        return max(n.depth for n in self.root.nodes())

    def predict(self, X):
        """Class probabilities (n, C) or regression predictions (n,) for the rows of ``X``
        (encoded like the training data before any pre-discretisation; NaN = missing)."""
        X = np.asarray(X, dtype=float)
        if self.cuts is not None:
            X = apply_cuts(X, self.cuts)
        return self.predict_encoded(X)

    def predict_encoded(self, X):
        """As :meth:`predict` for ``X`` already discretised with ``cuts``."""
        X = np.asarray(X, dtype=float)
        n = X.shape[0]
        out = np.zeros((n, self.n_classes)) if self.is_classification else np.zeros(n)
        self._descend(self.root, X, np.arange(n), np.ones(n), out)
        return out

    def _descend(self, node, X, rows, weights, out):
        if rows.size == 0:
            return
        if node.is_leaf:
            pred = node.model.predict(X[rows])
            out[rows] += pred * (weights[:, None] if pred.ndim == 2 else weights)
            return
        branch = node.split.branches(X[rows, node.attribute])
        missing = np.isnan(branch)
        left, right = branch == 0, branch == 1
        p_left = 0.5 if self.halves_missing else node.p_left
        for child, mask, share in ((node.children[0], left, p_left),
                                   (node.children[1], right, 1 - p_left)):
            take = mask | missing
            self._descend(child, X, rows[take], weights[take] * np.where(missing[take], share, 1),
                          out)

    def describe(self):
        """The tree as indented text: split, estimator that chose it, ρ, node weight, value."""
        lines = []

        def show(node, indent, label):
            head = f"{'    ' * indent}{label}"
            if self.is_classification:
                value = "[" + ", ".join(f"{v:g}" for v in node.model.value) + "]"
            else:
                value = f"mean {node.model.value[0]:.4g}" + (" (linear)"
                                                             if node.model.is_linear else "")
            if node.is_leaf:
                lines.append(f"{head}leaf, weight {node.weight:g}: {value}")
                return
            s = node.split
            name = self.names[node.attribute] if self.names else f"x{node.attribute}"
            rho = "" if np.isnan(node.rho) else f", ρ={node.rho:.2f}"
            lines.append(f"{head}{name} [{node.estimator} {s.score:.4g}{rho}], "
                         f"weight {node.weight:g}: {value}")
            if not s.is_numeric:
                conds = (f"in {{{', '.join(map(str, s.left_values))}}}",
                         f"not in {{{', '.join(map(str, s.left_values))}}}")
            else:
                conds = (f"<= {s.threshold:.4g}", f"> {s.threshold:.4g}")
            for child, cond in zip(node.children, conds):
                show(child, indent + 1, f"{name} {cond}: ")

        show(self.root, 0, "")
        return "\n".join(lines)
