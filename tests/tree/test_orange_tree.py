"""CORE trees as Orange models: TreeModel structure, prediction with missing values, pickling,
cross-validation, Rank's Scorer input, Tree Viewer (offscreen), bad inputs."""
import pickle

import numpy as np
import pytest
from Orange.data import ContinuousVariable, DiscreteVariable, Domain, Table
from Orange.evaluation import CA, CrossValidation
from Orange.tree import MappedDiscreteNode, Node, NumericNode, TreeModel
from Orange.widgets.tests import base as widget_base
from Orange.widgets.visualize.owtreeviewer import OWTreeGraph

from orangecontrib.relief.datasets import parity
from orangecontrib.relief.estimators.impurity import MSE, Gini, InfGain
from orangecontrib.relief.learners import (CoreTreeClassificationLearner, CoreTreeLearner,
                                           CoreTreeRegressionLearner)
from orangecontrib.relief.orange_data import encode_table


@pytest.fixture(scope="module")
def iris():
    return Table("iris")


def orange_nodes(node):
    yield node
    for child in node.children:
        if child is not None:
            yield from orange_nodes(child)


def test_model_is_a_tree_model_of_stock_nodes_with_consistent_counts(iris):
    model = CoreTreeClassificationLearner(estimator=InfGain())(iris)
    assert isinstance(model, TreeModel)
    nodes = list(orange_nodes(model.root))
    assert {type(n) for n in nodes} <= {Node, NumericNode, MappedDiscreteNode}
    np.testing.assert_array_equal(model.root.value, [50, 50, 50])
    np.testing.assert_array_equal(model.root.subset, np.arange(150))
    for n in nodes:
        assert n.value.dtype == np.float64 and n.subset.dtype == np.int32
        # counts are the class distribution of the node's rows (iris has no missing values)
        np.testing.assert_array_equal(
            n.value, np.bincount(iris.Y[n.subset].astype(int), minlength=3))
        if n.children:
            assert n.split_estimator == "InfGain"
            left, right = n.children
            column = iris.X[n.subset, n.attr_idx]
            np.testing.assert_array_equal(left.subset, n.subset[column <= n.threshold])
            np.testing.assert_array_equal(right.subset, n.subset[column > n.threshold])
    # the first split separates setosa at a midpoint between observed petal values
    assert model.root.attr.name.startswith("petal")
    assert model.root.children[0].value.tolist() == [50, 0, 0]
    assert "[InfGain]" in model.print_tree()


def test_discrete_split_becomes_a_mapped_discrete_node():
    data = parity(order=2, n_irrelevant=3, n_instances=120, random_state=0)
    model = CoreTreeClassificationLearner()(data)
    assert isinstance(model.root, MappedDiscreteNode)
    assert model.root.attr.name in ("I1", "I2") and model.root.split_estimator == "ReliefF"
    assert sorted(model.root.mapping.tolist()) == [0, 1]
    np.testing.assert_array_equal(model(data), data.Y)


def proportional_prediction(node, x):
    """Plain recursive prediction over the Orange nodes: a missing split value takes both
    branches weighted by their share of the node's training rows (no missing values in iris)."""
    if not node.children:
        return node.value / node.value.sum()
    value = x[node.attr_idx]
    left, right = node.children
    if np.isnan(value):
        share = len(left.subset) / len(node.subset)
        return (share * proportional_prediction(left, x)
                + (1 - share) * proportional_prediction(right, x))
    return proportional_prediction(left if value <= node.threshold else right, x)


def test_prediction_with_a_missing_split_value_combines_branches_by_proportions(iris):
    model = CoreTreeClassificationLearner(estimator=Gini())(iris)
    assert isinstance(model.root, NumericNode)
    X = iris.X[::10].copy()
    X[:, model.root.attr_idx] = np.nan
    X[::2, 0] = np.nan
    expected = np.array([proportional_prediction(model.root, x) for x in X])
    np.testing.assert_allclose(model.predict(X), expected)
    # Orange's stock predictor would have stopped at the root: (1/3, 1/3, 1/3)
    assert not np.allclose(model.predict(X), 1 / 3)


def test_pickled_model_predicts_the_same(iris):
    model = CoreTreeLearner()(iris)
    clone = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(clone(iris, clone.Probs), model(iris, model.Probs))


def test_fitter_builds_regression_trees_and_cross_validates(iris):
    housing = Table("housing")[::4]
    model = CoreTreeLearner(leaf_model="linear", pruning="m-estimate")(housing)
    assert isinstance(model.root, NumericNode) and model.root.value.shape == (2,)
    assert model.root.value[0] == pytest.approx(housing.Y.mean())
    assert model.root.split_estimator == "RReliefF"
    # the fitter hands regression_estimator to the regression learner
    mse_model = CoreTreeLearner(estimator=Gini(), regression_estimator=MSE(), max_depth=1)(housing)
    assert mse_model.root.split_estimator == "MSE"
    ca = CA(CrossValidation(k=3)(iris, [CoreTreeLearner()]))[0]
    assert ca > 0.9


def test_learner_scores_attributes_with_the_root_estimates(iris):
    learner = CoreTreeClassificationLearner(estimator=InfGain())
    scores = learner.score_data(iris)
    encoded, _ = encode_table(iris)
    np.testing.assert_allclose(scores, [InfGain()(encoded)])
    assert scores.shape == (1, 4) and scores[0, 2:].min() > scores[0, :2].max()


def test_discretize_puts_discretised_variables_in_the_model_domain(iris):
    model = CoreTreeLearner(discretize=10)(iris)
    assert all(var.is_discrete for var in model.domain.attributes)
    assert len(model.domain["petal length"].values) == 10
    assert CA(CrossValidation(k=3)(iris, [CoreTreeLearner(discretize=10)]))[0] > 0.85


def test_bad_tables_give_clear_errors_or_a_single_leaf():
    domain = Domain([ContinuousVariable("a"), ContinuousVariable("b")],
                    DiscreteVariable("c", values=("x", "y")))
    X = np.column_stack([np.full(8, np.nan), np.arange(8.0)])
    one_class = Table.from_numpy(domain, X, np.zeros(8))
    model = CoreTreeClassificationLearner()(one_class)
    assert model.node_count() == 1 and model.root.value.tolist() == [8, 0]
    single = Table.from_numpy(domain, X[:1], [1])
    assert CoreTreeClassificationLearner()(single).node_count() == 1
    no_class = Table.from_numpy(Domain(domain.attributes), X)
    with pytest.raises(ValueError, match="class"):
        CoreTreeLearner()(no_class)
    with pytest.raises(ValueError, match="discretize"):
        CoreTreeLearner(discretize=1)(one_class)
    with pytest.raises(ValueError, match="numeric class variable.*is categorical"):
        CoreTreeRegressionLearner()(Table("iris"))


class TestTreeViewer(widget_base.WidgetTest):
    def setUp(self):
        self.widget = self.create_widget(OWTreeGraph)

    def test_tree_viewer_shows_the_model(self):
        data = Table("iris")
        model = CoreTreeClassificationLearner()(data)
        model.instances = data          # what OWBaseLearner.update_model does
        widget = self.widget
        self.send_signal(widget.Inputs.tree, model, widget=widget)
        assert f"{model.node_count()} nodes" in widget.infolabel.text()
        leaf = next(n for n in widget.scene.nodes() if n.node_inst is model.root.children[0])
        leaf.setSelected(True)
        selected = self.get_output(widget.Outputs.selected_data, widget=widget)
        assert len(selected) == len(model.root.children[0].subset) == 50


def test_learner_reports_fit_progress_and_cancels_when_the_callback_raises(iris):
    seen = []
    CoreTreeLearner()(iris, progress_callback=lambda fraction, *_: seen.append(fraction))
    assert seen[-1] == 1 and any(0.1 < f < 1 for f in seen)

    class Cancelled(Exception):
        pass

    def cancel(fraction, *_):
        if fraction > 0.1:
            raise Cancelled

    with pytest.raises(Cancelled):
        CoreTreeClassificationLearner()(iris, progress_callback=cancel)
