"""CORE trees with ``preset="corelearn"`` against CORElearn 1.57.3's own trees and 10-fold CV
(``tests/data/corelearn/trees``, CORElearn's output kept as data).

The cheap configurations are checked here; CORElearn's ``discretizationSample = 50`` draws 50
candidate thresholds at random (R's generator) where a numeric attribute has more, and the
preset scores them all, so the structure is compared where CORElearn used all candidates
(all of iris's nodes have fewer than 50; the ``_ds0`` configurations).
"""
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from corelearn_oracle import (cv_summary, folds, load_data, reference_tree,  # noqa: E402
                              tree_cv, tree_structure)

from orangecontrib.relief.estimators.corelearn import corelearn_estimator  # noqa: E402
from orangecontrib.relief.tree.induction import CoreTree  # noqa: E402


def corelearn_tree(config, data):
    """Our tree for a configuration name of trees/manifest.json."""
    kwargs = {"estimator": corelearn_estimator(config.split("_")[0])}
    if "unpruned" in config:
        kwargs["pruning"] = None
    if not data.is_classification:
        kwargs["leaf_model"] = "mean" if config.endswith("_mean") else "linear"
    return CoreTree.corelearn(**kwargs)


@pytest.mark.parametrize("name, config", [
    ("iris", "Gini"), ("iris", "MDL"), ("iris", "ReliefFequalK"),
    ("iris", "ReliefFequalK_unpruned"), ("iris", "ReliefFexpRank"),
    ("missing20", "Gini"), ("missing20", "Gini_unpruned"), ("missing20", "InfGain"),
    ("missing20", "ReliefFequalK_ds0")])
def test_tree_on_all_data_is_corelearns(name, config):
    data, meta = load_data(name)
    splits, leaves = tree_structure(corelearn_tree(config, data).fit(data), meta)
    want_splits, want_leaves = reference_tree(name, config)
    assert splits == want_splits
    np.testing.assert_allclose(leaves, want_leaves, atol=0.006)


@pytest.mark.parametrize("name, config", [
    ("iris", "Gini"), ("iris", "InfGain"), ("iris", "Gini_unpruned"), ("iris", "ReliefFequalK"),
    ("missing20", "Gini"), ("missing20", "MDL"), ("missing20", "Gini_unpruned"),
    ("missing20", "ReliefFequalK_ds0"), ("housing", "MSEofMean_mean")])
def test_cross_validation_agrees_with_corelearn(name, config):
    data, _ = load_data(name)
    want = cv_summary()[(name, config)]
    score, leaves = tree_cv(data, folds(name), lambda: corelearn_tree(config, data))
    reference = want["accuracy_pooled"] if data.is_classification else want["rse_pooled"]
    assert abs(score - reference) <= 0.01, (score, reference)
    assert abs(leaves - want["leaves_mean"]) <= 0.2 * want["leaves_mean"], (leaves, want)


def test_the_growth_rule_matters():
    """Without the preset the tree differs from CORElearn's (the test checks something)."""
    data, meta = load_data("missing20")
    tree = CoreTree(estimator=corelearn_estimator("Gini")).fit(data)
    assert tree_structure(tree, meta)[0] != reference_tree("missing20", "Gini")[0]


def test_partitions_in_corelearns_order():
    """CORElearn's counter lists the subsets that contain the first value, growing; those
    larger than half of the values are replaced by their complements: for 3 values
    {a}, {a,b} -> {c}, {a,c} -> {b}."""
    from orangecontrib.relief.tree.candidates import corelearn_partitions
    order = [tuple(np.flatnonzero(m)) for m in corelearn_partitions(3)]
    assert order == [(0,), (2,), (1,)]
    masks = corelearn_partitions(5)
    assert len(masks) == 2 ** 4 - 1            # every binary partition once
    assert len({tuple(m) for m in masks} | {tuple(~m) for m in masks}) == 2 * len(masks)
