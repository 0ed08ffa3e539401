"""CORE tree induction on tiny hand-built data (Robnik-Šikonja & Kononenko 1999 §4;
CORElearn's tree options). Expected splits, weights and predictions are derived by hand."""
import numpy as np
import pytest

from orangecontrib.relief.estimators import encode
from orangecontrib.relief.estimators.contextual_merit import ContextualMerit
from orangecontrib.relief.estimators.impurity import (MDL, MSE, Accuracy, GainRatio, Gini,
                                                      InfGain, MyopicReliefF)
from orangecontrib.relief.estimators.relieff import Relief, ReliefF
from orangecontrib.relief.estimators.rrelieff import RReliefF
from orangecontrib.relief.estimators.unified_pi import UnifiedPi
from orangecontrib.relief.tree import CoreTree, correlation

CLASSIFIERS = [ReliefF(), Relief(), MyopicReliefF(), InfGain(), GainRatio(), Gini(), MDL(),
               Accuracy(), ContextualMerit(), UnifiedPi()]


def numeric_step_data():
    """x0 in 1..40, class 1 exactly when x0 > 20; x1 a noisy numeric attribute that is the
    same for both classes (x1 = i mod 5): the right split is x0 <= 20.5."""
    x0 = np.arange(1, 41, dtype=float)
    x1 = (np.arange(40) % 5).astype(float)
    return encode(np.column_stack([x0, x1]), (x0 > 20).astype(float), n_classes=2)


def discrete_partition_data():
    """x0 has four values, class 1 exactly for values {1, 3}; x1 (three values) is noise.
    The right split sends {1, 3} one way and {0, 2} the other."""
    x0 = np.tile(np.arange(4), 12).astype(float)
    x1 = np.repeat(np.arange(3), 16).astype(float)
    y = np.isin(x0, (1, 3)).astype(float)
    return encode(np.column_stack([x1, x0]), y, discrete=True, n_classes=2)


def parity_data(order=3, irrelevant=10, n=200, seed=1):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, (n, order + irrelevant)).astype(float)
    return encode(X, X[:, :order].sum(1) % 2, discrete=True, n_classes=2)


@pytest.mark.parametrize("estimator", CLASSIFIERS, ids=lambda e: type(e).__name__)
def test_every_classification_estimator_splits_at_the_known_threshold(estimator):
    tree = CoreTree(estimator, pruning=None).fit(numeric_step_data())
    assert tree.root.attribute == 0
    assert tree.root.split.threshold == 20.5
    assert tree.root.estimator == estimator.name
    assert [c.weight for c in tree.root.children] == [20, 20]


@pytest.mark.parametrize("estimator", [ReliefF(), InfGain(), Gini(), Accuracy(), UnifiedPi()],
                         ids=lambda e: type(e).__name__)
def test_discrete_attribute_is_split_by_the_known_value_partition(estimator):
    tree = CoreTree(estimator, pruning=None).fit(discrete_partition_data())
    assert tree.root.attribute == 1
    assert set(tree.root.split.left_values) in ({0, 2}, {1, 3})
    assert tree.node_count() == 3           # both branches are pure


@pytest.mark.parametrize("estimator", [RReliefF(), MSE()], ids=lambda e: type(e).__name__)
def test_regression_estimators_split_at_the_step_of_the_target(estimator):
    x0 = np.arange(1, 41, dtype=float)
    x1 = (np.arange(40) % 5).astype(float)
    y = np.where(x0 > 25, 10.0, 0.0)
    tree = CoreTree(estimator, pruning=None).fit(encode(np.column_stack([x1, x0]), y))
    assert tree.root.attribute == 1 and tree.root.split.threshold == 25.5
    np.testing.assert_allclose(tree.predict([[0, 3], [0, 30]]), [0, 10])


def test_relieff_tree_puts_parity_attributes_on_the_top_three_levels():
    tree = CoreTree(ReliefF()).fit(parity_data())
    top = {n.attribute for n in tree.root.nodes() if n.depth < 3 and not n.is_leaf}
    assert top == {0, 1, 2}
    assert tree.depth() == 3 and tree.leaf_count() == 8
    X = np.array([[a, b, c] + [0] * 10 for a in (0, 1) for b in (0, 1) for c in (0, 1)], float)
    np.testing.assert_array_equal(tree.predict(X).argmax(1), X[:, :3].sum(1) % 2)


def test_missing_split_values_go_down_both_branches_with_training_proportions():
    # x0 decides the class; 30 known values (10 left, 20 right) and 6 missing values
    x0 = np.r_[np.zeros(10), np.ones(20), np.full(6, np.nan)]
    y = np.r_[np.zeros(10), np.ones(20), [0, 1, 0, 1, 0, 1]]
    tree = CoreTree(InfGain(), pruning=None).fit(
        encode(x0[:, None], y, n_classes=2))
    left, right = tree.root.children
    assert tree.root.p_left == pytest.approx(10 / 30)
    assert left.weight == pytest.approx(10 + 6 / 3) and right.weight == pytest.approx(20 + 4)
    np.testing.assert_allclose(left.model.value, [10 + 3 / 3, 3 / 3])
    np.testing.assert_allclose(right.model.value, [3 * 2 / 3, 20 + 3 * 2 / 3])
    # prediction with a missing value: 1/3 of the left leaf's and 2/3 of the right leaf's
    expected = (left.model.value / left.weight) / 3 + (right.model.value / right.weight) * 2 / 3
    np.testing.assert_allclose(tree.predict([[np.nan]])[0], expected)


def test_stopping_rules_bound_leaf_weight_majority_and_depth():
    data = parity_data(order=2, irrelevant=4, n=120)
    for leaf_min in (5, 12):
        tree = CoreTree(Gini(), pruning=None, min_leaf=leaf_min).fit(data)
        assert min(n.weight for n in tree.root.nodes() if n.is_leaf) >= leaf_min
    assert CoreTree(Gini(), pruning=None, max_depth=1).fit(data).depth() == 1
    # 97 % majority: a node with 39 of 40 in one class (97.5 %) is not split
    X = np.arange(40, dtype=float)[:, None]
    y = np.r_[np.zeros(39), 1.0]
    assert CoreTree(InfGain(), pruning=None).fit(encode(X, y, n_classes=2)).node_count() == 1
    assert CoreTree(InfGain(), pruning=None, min_majority=1.0, min_leaf=1).fit(
        encode(X, y, n_classes=2)).node_count() == 3


def test_relief_tree_stops_when_no_estimate_is_positive():
    # the class is independent of both attributes in this balanced design (a full 2x2x2 cross),
    # so every ReliefF estimate is <= 0
    X = np.array([[a, b] for a in (0, 1) for b in (0, 1) for _ in range(2) for _ in range(3)],
                 float)
    y = np.tile([0.0, 1.0], 12)
    tree = CoreTree(ReliefF(), pruning=None).fit(encode(X, y, discrete=True, n_classes=2))
    assert tree.node_count() == 1


def test_linear_leaf_reproduces_a_linear_target_and_falls_back_to_the_mean_when_small():
    rng = np.random.default_rng(0)
    X = rng.uniform(0, 1, (30, 2))
    y = 2 * X[:, 0] - 3 * X[:, 1] + 1
    tree = CoreTree(MSE(), leaf_model="linear", max_depth=0).fit(encode(X, y))
    np.testing.assert_allclose(tree.predict([[0.5, 0.5], [0, 0]]), [0.5, 1.0], atol=1e-10)
    # 5 instances < 2 * (2 + 1): the mean
    tree = CoreTree(MSE(), leaf_model="linear", max_depth=0).fit(encode(X[:5], y[:5]))
    np.testing.assert_allclose(tree.predict([[0.5, 0.5]]), [y[:5].mean()])


def test_switch_fires_without_interactions_and_not_at_the_parity_root():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 300).astype(float)
    # independent attributes, each a noisy copy of the class with its own noise level
    flips = rng.uniform(size=(300, 6)) < np.array([0.05, 0.15, 0.25, 0.35, 0.45, 0.5])
    X = np.where(flips, 1 - y[:, None], y[:, None])
    tree = CoreTree(ReliefF(), switch=True).fit(encode(X, y, discrete=True, n_classes=2))
    assert tree.root.rho >= 0.8 and tree.root.estimator == "Accuracy"
    assert all(n.estimator == "Accuracy" for n in tree.root.nodes() if not n.is_leaf)

    parity = CoreTree(ReliefF(), switch=True).fit(parity_data())
    assert parity.root.rho < 0.8 and parity.root.estimator == "ReliefF"
    switched = [n for n in parity.root.nodes() if n.estimator == "Accuracy"]
    assert all(n.depth == 2 for n in switched)  # only the last parity attribute is myopic


def test_correlation_is_pearson_over_finite_estimates():
    x = np.array([1.0, 2.0, 3.0, np.nan, 5.0])
    y = np.array([2.0, 4.0, 5.0, 1.0, np.inf])
    # over the first three: x - mean = (-1, 0, 1), y - mean = (-5/3, 1/3, 4/3)
    assert correlation(x, y) == pytest.approx(3 / np.sqrt(2 * 42 / 9))
    assert np.isnan(correlation(np.ones(4), np.arange(4.0)))


def test_pre_discretisation_codes_ten_equal_width_intervals():
    X = np.column_stack([np.linspace(0, 10, 41), np.arange(41) % 3])
    y = (X[:, 0] > 3).astype(float)
    tree = CoreTree(InfGain(), pruning=None, discretize=10).fit(
        encode(X, y, discrete=[False, True], n_classes=2))
    np.testing.assert_allclose(tree.cuts[0], np.arange(1, 10))
    assert 1 not in tree.cuts
    # 3.0 lies on a cut point: interval 2 (values <= 3) on the class-0 side
    assert tree.root.attribute == 0 and set(tree.root.split.left_values) == {0, 1, 2}
    np.testing.assert_array_equal(tree.predict([[3.0, 0], [3.01, 0]]).argmax(1), [0, 1])


def test_degenerate_data_give_a_single_leaf():
    one = encode([[1.0, 2.0]], [1.0], n_classes=2)
    assert CoreTree().fit(one).node_count() == 1
    X = np.random.default_rng(0).uniform(size=(30, 2))
    assert CoreTree().fit(encode(X, np.ones(30), n_classes=2)).node_count() == 1
    assert CoreTree().fit(encode(np.ones((30, 2)), np.arange(30) % 2, n_classes=2)
                          ).node_count() == 1
    assert CoreTree().fit(encode(X, np.full(30, 3.0))).node_count() == 1
    tree = CoreTree(ReliefF()).fit(encode(np.column_stack([np.full(30, np.nan), X[:, 0]]),
                                          X[:, 0] > 0.5, n_classes=2))
    assert tree.root.attribute == 1


def test_bad_inputs_raise_value_errors_naming_the_problem():
    data = numeric_step_data()
    with pytest.raises(ValueError, match="without instances"):
        CoreTree().fit(encode(np.empty((0, 2)), [], n_classes=2))
    with pytest.raises(ValueError, match="no attributes"):
        CoreTree().fit(encode(np.empty((5, 0)), np.arange(5) % 2, n_classes=2))
    with pytest.raises(ValueError, match="RReliefF.*classification"):
        CoreTree(RReliefF()).fit(data)
    with pytest.raises(ValueError, match="pessimistic"):
        CoreTree(pruning="pessimistic").fit(encode(data.X, data.X[:, 0]))
    for bad in ({"min_leaf": 0}, {"min_majority": 1.5}, {"max_depth": -1},
                {"leaf_model": "tree"}, {"pruning": "cost"}, {"m": -1},
                {"switch_threshold": 2}, {"discretize": 1}, {"thresholds_per_pass": 0},
                {"confidence": 0}, {"leaf_model": "linear"}):
        name = next(iter(bad))
        with pytest.raises(ValueError, match=name):
            CoreTree(**bad).fit(data)


def test_callback_reports_progress_and_cancels_by_raising():
    seen = []
    CoreTree(Gini()).fit(parity_data(), callback=seen.append)
    assert seen[-1] == 1.0 and all(a <= b for a, b in zip(seen, seen[1:]))

    def cancel(fraction):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        CoreTree(Gini()).fit(parity_data(), callback=cancel)


def test_progress_is_refined_inside_the_root_by_the_estimators_own_progress():
    # the root owns the first half of the bar for choosing its split: ReliefF's neighbour search
    # reports there, before any instance has reached a leaf
    seen = []
    tree = CoreTree(ReliefF()).fit(parity_data(), callback=seen.append)
    assert not tree.root.is_leaf
    inside_root = [f for f in seen if 0 < f < 0.5 * 0.7]
    assert len(inside_root) >= 2
    assert seen[-1] == 1.0 and all(a <= b for a, b in zip(seen, seen[1:]))

    calls = []

    def cancel_in_root(fraction):
        calls.append(fraction)
        if fraction > 0:
            raise KeyboardInterrupt
    with pytest.raises(KeyboardInterrupt):
        CoreTree(ReliefF()).fit(parity_data(), callback=cancel_in_root)
    assert calls[-1] < 0.5


@pytest.mark.parametrize("estimator", [ReliefF(), InfGain()], ids=lambda e: type(e).__name__)
def test_many_valued_attribute_is_partitioned_greedily_into_the_known_groups(estimator):
    # 9 values (> 7: greedy search); class 1 exactly for values {2, 5, 7}
    x0 = np.tile(np.arange(9), 8).astype(float)
    x1 = np.repeat(np.arange(2), 36).astype(float)
    y = np.isin(x0, (2, 5, 7)).astype(float)
    tree = CoreTree(estimator, pruning=None).fit(
        encode(np.column_stack([x1, x0]), y, discrete=True, n_classes=2))
    assert tree.root.attribute == 1
    assert set(tree.root.split.left_values) in ({2, 5, 7}, set(range(9)) - {2, 5, 7})
    assert tree.node_count() == 3


def many_valued_data(regression=False, seed=4):
    """x0 has 300 values (4 instances each); the target is decided by whether x0 lies in a
    random set S of 90 values; x1 is binary noise. The right split is S against the rest."""
    rng = np.random.default_rng(seed)
    x0 = np.tile(np.arange(300), 4).astype(float)
    chosen = rng.choice(300, 90, replace=False)
    inside = np.isin(x0, chosen)
    X = np.column_stack([x0, rng.integers(0, 2, x0.size)])
    if regression:
        return encode(X, np.where(inside, 10.0, 0.0) + rng.uniform(0, 1, x0.size),
                      discrete=True), set(chosen.tolist())
    return encode(X, inside.astype(float), discrete=True, n_classes=2), set(chosen.tolist())


@pytest.mark.parametrize("estimator", [ReliefF(), Gini(), InfGain(), RReliefF(), MSE()],
                         ids=lambda e: type(e).__name__)
def test_many_valued_attribute_is_split_into_the_known_groups(estimator):
    # 300 values: far beyond exhaustive (7) and greedy (30) search; the ordered search ranks
    # the values by their class distribution (mean target) and splits that rank
    data, chosen = many_valued_data(regression=isinstance(estimator, (RReliefF, MSE)))
    tree = CoreTree(estimator, pruning=None, max_depth=1).fit(data)
    assert tree.root.attribute == 0
    assert set(tree.root.split.left_values) in (chosen, set(range(300)) - chosen)


def test_coarse_to_fine_threshold_search_finds_the_exact_threshold():
    # 200 distinct values, class boundary between 137 and 138: with 5 candidates per pass the
    # search needs several passes and must still land on 137.5, like scoring all candidates
    rng = np.random.default_rng(2)
    x0 = rng.permutation(200).astype(float)
    X = np.column_stack([x0, rng.uniform(size=200)])
    data = encode(X, (x0 > 137).astype(float), n_classes=2)
    for per_pass in (5, None):
        tree = CoreTree(ReliefF(), pruning=None, thresholds_per_pass=per_pass).fit(data)
        assert tree.root.attribute == 0 and tree.root.split.threshold == 137.5


@pytest.mark.parametrize("preset", ["papers", "corelearn"])
@pytest.mark.parametrize("estimator", [ReliefF(), Gini(), RReliefF(), MSE()],
                         ids=lambda e: type(e).__name__)
def test_integer_weights_grow_the_tree_of_repeated_instances(estimator, preset):
    # 80 instances, weights 1..3, 10 % missing values, a 9-valued discrete attribute: every
    # node statistic, split, leaf and the pruning must be those of the data with each instance
    # repeated w times
    rng = np.random.default_rng(5)
    X = np.column_stack([rng.uniform(size=(80, 3)), rng.integers(0, 9, 80)])
    regression = isinstance(estimator, (RReliefF, MSE))
    y = 2 * X[:, 0] + (X[:, 1] > 0.5) if regression else ((X[:, 0] > 0.4) ^ (X[:, 1] > 0.6))
    X[rng.uniform(size=X.shape) < 0.1] = np.nan
    counts = 1 + np.arange(80) % 3
    kind = {} if regression else {"n_classes": 2}
    discrete = [False, False, False, True]
    weighted = encode(X, y, weights=counts.astype(float), discrete=discrete, **kind)
    repeated = encode(np.repeat(X, counts, axis=0), np.repeat(y, counts), discrete=discrete,
                      **kind)
    a = CoreTree(estimator, min_leaf=3, preset=preset).fit(weighted)
    b = CoreTree(estimator, min_leaf=3, preset=preset).fit(repeated)
    assert a.node_count() > 3
    assert a.describe() == b.describe()
    np.testing.assert_allclose(a.predict(X), b.predict(X), rtol=1e-12)


@pytest.mark.parametrize("estimator", CLASSIFIERS, ids=lambda e: type(e).__name__)
def test_estimates_in_blocks_of_attributes_grow_the_same_tree(estimator, monkeypatch):
    # on large nodes the attributes are estimated in blocks (cancel points between them): one
    # attribute per block must give the very tree of one call for all attributes
    from orangecontrib.relief.tree import candidates
    data = parity_data(order=2, irrelevant=4, n=120)
    whole = CoreTree(estimator, pruning=None).fit(data)
    monkeypatch.setattr(candidates, "BLOCK_ELEMENTS", 120)
    blocked = CoreTree(estimator, pruning=None).fit(data)
    assert blocked.describe() == whole.describe()


def test_linear_leaves_beyond_the_available_memory_are_refused_before_allocating(monkeypatch):
    from orangecontrib.relief.estimators import base
    monkeypatch.setattr(base, "available_memory", lambda: 2 ** 10)          # 1 KB
    X = np.random.default_rng(0).uniform(size=(30, 2))
    with pytest.raises(ValueError, match="linear leaf models on 30 instances x 2 numeric "
                                         "attributes needs about .*leaf_model='mean'"):
        CoreTree(MSE(), leaf_model="linear").fit(encode(X, X[:, 0]))
