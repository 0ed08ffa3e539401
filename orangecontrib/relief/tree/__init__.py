"""CORE trees: binary decision and regression trees that choose splits with any attribute
estimator (numpy only; :mod:`.to_orange` converts a grown tree to Orange's TreeModel)."""
from .induction import CoreTree, correlation
from .nodes import GrownTree, TreeNode

__all__ = ["CoreTree", "GrownTree", "TreeNode", "correlation"]
