"""Pruning formulas (CORElearn's m-estimate; C4.5's pessimistic pruning) on trees
built by hand, with the expected errors computed by hand or by an independent root search."""
import numpy as np
import pytest
from scipy.optimize import brentq
from scipy.stats import binom

from orangecontrib.relief.estimators.splits import Split
from orangecontrib.relief.tree.leaves import LeafModel
from orangecontrib.relief.tree.nodes import TreeNode
from orangecontrib.relief.tree.pruning import (pessimistic_errors, prune_m_estimate,
                                               prune_pessimistic, static_error)


def node(counts, children=(), mse=0.0):
    """A node with class ``counts`` (or, with ``mse``, a regression node of weight counts[0])."""
    counts = np.asarray(counts, float)
    weight = counts.sum()
    model = LeafModel(counts) if counts.size > 1 else LeafModel(np.array([0.0]), mse=mse)
    n = TreeNode(np.arange(int(weight)), np.ones(int(weight)), model)
    if children:
        n.attribute, n.split, n.children = 0, Split(0.1, threshold=0.5), list(children)
        n.estimator = "ReliefF"
    return n


def test_m_estimate_classification_errors_match_hand_computation():
    # root priors (Laplace): 60 and 40 of 100 -> p = (61/102, 41/102)
    prior = np.array([61, 41]) / 102
    # leaf [8, 2]: Es = 1 - (8 + 2 * 61/102) / (10 + 2)
    assert static_error(node([8, 2]), 2, prior) == pytest.approx(1 - (8 + 122 / 102) / 12)
    # majority class 1: [1, 5]: Es = 1 - (5 + 2 * 41/102) / 8
    assert static_error(node([1, 5]), 2, prior) == pytest.approx(1 - (5 + 82 / 102) / 8)


def test_m_estimate_prunes_a_useless_split_and_keeps_a_useful_one():
    prior = np.array([0.5, 0.5])
    # useless: children as impure as the parent. Parent [10, 10]: Es = 1 - (10 + 1) / 22 = 0.5;
    # children [5, 5]: Es = 1 - 6/12 = 0.5 each, backed-up 0.5 -> prune (Es <= backed-up)
    useless = node([10, 10], [node([5, 5]), node([5, 5])])
    assert prune_m_estimate(useless, 2, prior) == pytest.approx(0.5)
    assert useless.is_leaf and useless.split is None
    # useful: children [10, 0] and [0, 10]: Es = 1 - 11/12 = 1/12 each, backed-up 1/12 < 0.5
    useful = node([10, 10], [node([10, 0]), node([0, 10])])
    assert prune_m_estimate(useful, 2, prior) == pytest.approx(1 / 12)
    assert not useful.is_leaf


def test_m_estimate_backs_up_weighted_child_errors_bottom_up():
    prior = np.array([0.5, 0.5])
    # grandchildren [6, 0] and [0, 2] under the child [6, 2]:
    # Es(child) = 1 - (6 + 1)/10 = 0.3; backed-up = (6 (1 - 7/8) + 2 (1 - 3/4)) / 8 = 0.15625
    inner = node([6, 2], [node([6, 0]), node([0, 2])])
    root = node([6, 12], [inner, node([0, 10])])
    error = prune_m_estimate(root, 2, prior)
    assert not inner.is_leaf
    # root backed-up: (8 * 0.15625 + 10 * (1 - 11/12)) / 18; root Es = 1 - 13/20 = 0.35
    assert error == pytest.approx((8 * 0.15625 + 10 / 12) / 18)


def test_m_estimate_regression_uses_prior_mse():
    # Es = (m priorMSE + n MSE) / (m + n) = (2 * 4 + 10 * 1) / 12 = 1.5
    assert static_error(node([10], mse=1.0), 2, 4.0) == pytest.approx(1.5)
    # children errors (2*4 + 5*0.2)/7 = 9/7 each; parent (2*4 + 10*1)/12 = 1.5 > 9/7: kept
    parent = node([10], [node([5], mse=0.2), node([5], mse=0.2)], mse=1.0)
    assert prune_m_estimate(parent, 2, 4.0) == pytest.approx(9 / 7)
    assert not parent.is_leaf


def upper_bound_by_root_search(errors, n, cf):
    """U_CF(e, n): the p with P(X <= e | n, p) = CF for integer e (binomial tail)."""
    if errors == 0:
        return 1 - cf ** (1 / n)
    return brentq(lambda p: binom.cdf(errors, n, p) - cf, 1e-12, 1 - 1e-12)


@pytest.mark.parametrize("errors, n", [(0, 6), (1, 10), (3, 14), (7, 20)])
def test_pessimistic_error_is_the_binomial_upper_confidence_limit(errors, n):
    assert pessimistic_errors(n, errors, 0.25) == pytest.approx(
        n * upper_bound_by_root_search(errors, n, 0.25), rel=1e-8)


def test_pessimistic_pruning_collapses_a_subtree_no_better_than_its_leaf():
    # leaves [6, 1] and [5, 2] (3 errors in 14) vs the parent [11, 3] (3 errors):
    # subtree 7 U(1,7) + 7 U(2,7) > 14 U(3,14) -> prune
    subtree = node([11, 3], [node([6, 1]), node([5, 2])])
    expected = 14 * upper_bound_by_root_search(3, 14, 0.25)
    assert prune_pessimistic(subtree, 0.25) == pytest.approx(expected)
    assert subtree.is_leaf
    # a perfect split of [10, 10] is kept: 2 * 10 U(0, 10) < 20 U(10, 20)
    perfect = node([10, 10], [node([10, 0]), node([0, 10])])
    assert prune_pessimistic(perfect, 0.25) == pytest.approx(20 * (1 - 0.25 ** 0.1))
    assert not perfect.is_leaf


def test_regression_prior_is_the_node_models_error_on_all_root_instances():
    # root targets 0, 2, 4, 10; a node (rows 0 and 1) whose mean model predicts 1:
    # priorMSE = ((0-1)^2 + (2-1)^2 + (4-1)^2 + (10-1)^2) / 4 = 92 / 4 = 23
    from orangecontrib.relief.tree.pruning import root_prior_mse, training_mse
    X = np.zeros((4, 1))
    y = np.array([0.0, 2.0, 4.0, 10.0])
    leaf = TreeNode(np.array([0, 1]), np.ones(2), LeafModel(np.array([1.0]), mse=1.0))
    assert root_prior_mse(X, y)(leaf) == pytest.approx(23.0)
    # its own training error: ((0-1)^2 + (2-1)^2) / 2 = 1; Es = (2 * 23 + 2 * 1) / (2 + 2) = 12
    assert training_mse(X, y)(leaf) == pytest.approx(1.0)
    assert static_error(leaf, 2, root_prior_mse(X, y)) == pytest.approx(12.0)
