"""Conversion of a grown CORE tree to Orange's ``TreeModel`` (the one module of ``tree/`` that
imports Orange).

The tree is rebuilt from the four stock node classes, which Tree Viewer, Pythagorean Tree,
Predictions, Test and Score and pickling require: ``NumericNode`` (children [x <= threshold,
x > threshold]), ``MappedDiscreteNode`` (mapping value -> branch 0 = left, 1 = right; values that
do not occur in the node go right, as in the split search) and ``Node`` for leaves. Node values
are float64 class counts (weighted) or [mean, variance]; ``subset`` holds the int32 indices of
the training rows of the input table that reach the node (an instance whose split value was
missing reaches both children). Each inner node also carries ``split_estimator`` (the name of the
estimator that chose the split) and ``rho`` (the switch's correlation, eq. 15).

:class:`CoreTreeModel` subclasses ``TreeModel`` only to predict with the fractional weights of
missing values (Orange's compiled predictor stops at a node whose split value is missing) and
with the linear leaf models; everything else is the stock model.
"""
import numpy as np
import scipy.sparse as sp
from Orange.tree import MappedDiscreteNode, Node, NumericNode, TreeModel

__all__ = ["CoreTreeModel", "orange_tree_model"]


class CoreTreeModel(TreeModel):
    """Orange ``TreeModel`` of a CORE tree; ``core_tree`` is the :class:`..nodes.GrownTree`.
    ``repr`` and ``print(model)`` give one line (size and root split); ``model.print_tree()``
    lists every node."""

    def __init__(self, data, root, core_tree):
        super().__init__(data, root)
        self.core_tree = core_tree

    def __repr__(self):
        tree = self.core_tree
        root = self.root
        split = "" if not root.children else \
            f", root split on {root.attr.name} by {root.split_estimator}"
        target = self.domain.class_var.name if self.domain.class_var else "?"
        return (f"CoreTreeModel(target {target}: {tree.node_count()} nodes, "
                f"{tree.leaf_count()} leaves, depth {tree.depth()}{split})")

    __str__ = __repr__

    def predict(self, X):
        """Class probabilities or regression values: an instance with a missing split value
        combines both branches by their training proportions."""
        if sp.issparse(X):
            X = X.toarray()
        return self.core_tree.predict_encoded(np.asarray(X, dtype=float))

    def print_tree(self, node=None, level=0):
        """The stock listing with each split's estimator (and ρ of the switch) added."""
        if node is None:
            node = self.root
        res = ""
        for child in node.children:
            if child is None:
                continue
            rho = "" if np.isnan(node.rho) else f", ρ={node.rho:.2f}"
            res += "{:>20} {}{} {} [{}{}]\n".format(
                str(child.value), "    " * level, node.attr.name, child.description,
                node.split_estimator, rho)
            res += self.print_tree(child, level + 1)
        return res


def _value(node, y, n_classes):
    if n_classes:
        return np.asarray(node.model.value, dtype=np.float64)
    w = node.weights
    mean = float(node.model.value[0])
    with np.errstate(over="ignore"):        # a variance beyond the float range is inf
        return np.array([mean, float(w @ (y[node.rows] - mean) ** 2 / w.sum())])


def orange_tree_model(core_tree, table, y, rows):
    """A :class:`CoreTreeModel` for ``core_tree`` grown on the encoded ``table``: ``y`` is the
    encoded target and ``rows`` maps encoded instances to rows of ``table``."""
    attributes = table.domain.attributes
    rows = np.asarray(rows, dtype=np.int32)

    def convert(node):
        value = _value(node, y, core_tree.n_classes)
        if node.is_leaf:
            out = Node(None, None, value)
        else:
            var = attributes[node.attribute]
            if node.split.is_numeric:
                out = NumericNode(var, node.attribute, node.split.threshold, value)
            else:
                mapping = np.ones(len(var.values), dtype=np.int16)
                mapping[list(node.split.left_values)] = 0
                out = MappedDiscreteNode(var, node.attribute, mapping, value)
            out.split_estimator, out.rho = node.estimator, node.rho
            out.children = [convert(child) for child in node.children]
        out.subset = np.sort(rows[node.rows])
        return out

    return CoreTreeModel(table, convert(core_tree.root), core_tree)
