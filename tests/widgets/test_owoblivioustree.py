"""Widget tests for Oblivious Tree (OBLIVION, Langley 1994)."""
import numpy as np
from Orange.data import ContinuousVariable, DiscreteVariable, Domain, Table
from Orange.widgets.tests import base

from orangecontrib.relief.datasets import parity
from orangecontrib.relief.learners import ObliviousTreeClassifier, ObliviousTreeLearner
from orangecontrib.relief.widgets.owoblivioustree import OWObliviousTree


class TestOWObliviousTree(base.WidgetTest):
    def setUp(self):
        self.widget = self.create_widget(OWObliviousTree)
        self.parity = parity(2, 5, 120, random_state=1)

    def fit(self, data):
        self.send_signal(self.widget.Inputs.data, data)
        self.wait_until_finished(timeout=60000)

    def test_outputs_learner_model_and_reduced_data_with_informative_attributes(self):
        self.fit(self.parity)
        learner = self.get_output(self.widget.Outputs.learner)
        model = self.get_output(self.widget.Outputs.model)
        reduced = self.get_output(self.widget.Outputs.reduced_data)
        self.assertIsInstance(learner, ObliviousTreeLearner)
        self.assertIsInstance(model, ObliviousTreeClassifier)
        self.assertEqual([v.name for v in model.retained_attributes], ["I1", "I2"])
        self.assertEqual([v.name for v in reduced.domain.attributes], ["I1", "I2"])
        self.assertEqual(reduced.domain.class_var, self.parity.domain.class_var)
        self.assertEqual(len(reduced), len(self.parity))
        np.testing.assert_array_equal(model(self.parity), self.parity.Y)
        self.assertTrue(self.widget.Information.retained.is_shown())

    def test_path_table_lists_each_removal_with_its_accuracy(self):
        self.fit(self.parity)
        model = self.get_output(self.widget.Outputs.model)
        table = self.widget.path_model
        self.assertEqual(table.rowCount(), 1 + len(model.path))
        self.assertEqual(table.item(0, 1).text(), "(all attributes)")
        removed = [table.item(r, 1).text() for r in range(1, table.rowCount())]
        accuracies = [table.item(r, 2).text() for r in range(1, table.rowCount())]
        # the five random attributes go first, after which the tree is perfect
        self.assertEqual(sorted(removed[:5]), ["R1", "R2", "R3", "R4", "R5"])
        self.assertEqual(accuracies[4], "1.000")
        self.assertEqual(accuracies, [f"{acc:.3f}" for _, acc in model.path])
        # the kept tree (after the five removals) is in bold, no other step
        bold = [r for r in range(table.rowCount()) if table.item(r, 1).font().bold()]
        self.assertEqual(bold, [5])

    def test_regression_data_shows_error_and_clears_outputs(self):
        self.fit(self.parity)
        self.fit(Table("housing"))
        self.assertTrue(self.widget.Error.fitting_failed.is_shown()
                        or self.widget.Error.data_error.is_shown())
        self.assertIsNone(self.get_output(self.widget.Outputs.model))
        self.assertIsNone(self.get_output(self.widget.Outputs.reduced_data))
        self.assertEqual(self.widget.path_model.rowCount(), 0)
        self.fit(None)
        self.assertFalse(self.widget.Error.fitting_failed.is_shown())
        self.assertFalse(self.widget.Error.data_error.is_shown())

    def test_one_class_data_shows_error(self):
        one_class = self.parity[self.parity.Y == 0]
        self.fit(one_class)
        self.assertIsNone(self.get_output(self.widget.Outputs.model))
        self.assertTrue(self.widget.Error.fitting_failed.is_shown()
                        or self.widget.Error.data_error.is_shown())

    def test_cross_validation_setting_reaches_learner(self):
        self.widget.controls.estimate.buttons[1].click()
        self.widget.controls.folds.setValue(5)
        self.fit(self.parity)
        learner = self.get_output(self.widget.Outputs.learner)
        self.assertEqual(learner.folds, 5)
        self.assertTrue(self.widget.folds_spin.isEnabled())
        self.widget.controls.estimate.buttons[0].click()
        self.wait_until_finished(timeout=60000)
        self.assertIsNone(self.get_output(self.widget.Outputs.learner).folds)
        self.assertFalse(self.widget.folds_spin.isEnabled())

    def test_search_setting_is_saved_and_restored(self):
        combo = self.widget.search_combo
        index = combo.findData("greedy")
        combo.setCurrentIndex(index)
        combo.activated.emit(index)
        self.assertEqual(self.get_output(self.widget.Outputs.learner).search, "greedy")
        settings = self.widget.settingsHandler.pack_data(self.widget)
        restored = self.create_widget(OWObliviousTree, stored_settings=settings)
        self.assertEqual(restored.search, "greedy")
        self.assertEqual(restored.search_combo.currentData(), "greedy")
        self.assertEqual(restored.create_learner().search, "greedy")

    def test_no_retained_attribute_warns(self):
        # the class is independent of the only attribute: the empty tree (majority) is as good
        domain = Domain([ContinuousVariable("a")], DiscreteVariable("c", values=("0", "1")))
        data = Table.from_numpy(domain, np.zeros((20, 1)), np.r_[np.zeros(15), np.ones(5)])
        self.fit(data)
        model = self.get_output(self.widget.Outputs.model)
        self.assertEqual(model.retained_attributes, [])
        self.assertTrue(self.widget.Warning.no_attributes.is_shown())

    def test_report_with_model(self):
        self.fit(self.parity)
        self.widget.send_report()
        self.assertIn("Elimination path", self.widget.report_html)
        self.assertIn("I1, I2", self.widget.report_html)

    def test_features_output_is_the_retained_attributes(self):
        self.fit(self.parity)
        features = self.get_output(self.widget.Outputs.features)
        self.assertEqual([v.name for v in features], ["I1", "I2"])
        self.fit(None)
        self.assertIsNone(self.get_output(self.widget.Outputs.features))

    def test_learner_output_works_in_cross_validation(self):
        # what Test and Score does with the Learner output
        from Orange.evaluation import CA, CrossValidation
        learner = self.get_output(self.widget.Outputs.learner)
        results = CrossValidation(k=3, random_state=0)(self.parity, [learner])
        self.assertFalse(results.failed[0])
        self.assertGreater(CA(results)[0], 0.9)

    def test_settings_of_version_1_store_the_search_as_an_index(self):
        widget = self.create_widget(OWObliviousTree,
                                    stored_settings={"search": 1, "__version__": 1})
        self.assertEqual(widget.create_learner().search, "full-path")
        widget = self.create_widget(OWObliviousTree,
                                    stored_settings={"search": 7, "__version__": 1})
        self.assertIn(widget.create_learner().search, ("greedy", "full-path"))


class TestObliviousTreeInTreeViewer(base.WidgetTest):
    """The model is an Orange TreeModel: Tree Viewer shows the oblivious tree of the retained
    attributes, one level per attribute, each leaf with the class counts of its cases."""
    def setUp(self):
        from Orange.widgets.visualize.owtreeviewer import OWTreeGraph
        self.widget = self.create_widget(OWObliviousTree)
        self.viewer = self.create_widget(OWTreeGraph)
        self.parity = parity(2, 5, 120, random_state=1)

    def test_tree_viewer_shows_the_retained_attributes_as_levels(self):
        from Orange.tree import TreeModel
        self.send_signal(self.widget.Inputs.data, self.parity)
        self.wait_until_finished(timeout=60000)
        model = self.get_output(self.widget.Outputs.model)
        self.assertIsInstance(model, TreeModel)
        self.assertTrue(issubclass(self.widget.Outputs.model.type, TreeModel))  # a link is allowed
        self.send_signal(self.viewer.Inputs.tree, model)
        self.assertEqual(self.viewer.model, model)
        self.assertEqual(self.viewer.root_node.node_inst, model.root)
        # parity-2 keeps I1 and I2: a root, two children, four leaves
        self.assertEqual(model.node_count(), 7)
        self.assertEqual(model.leaf_count(), 4)
        levels = {model.root.attr.name, model.root.children[0].attr.name}
        self.assertEqual(levels, {"I1", "I2"})
        # every leaf holds the class counts of the cases with its two values, counted here
        X, y = self.parity.X, self.parity.Y
        a, b = (self.parity.domain.index(model.root.attr),
                self.parity.domain.index(model.root.children[0].attr))
        for u, child in enumerate(model.root.children):
            self.assertEqual(child.attr.name, model.root.children[0].attr.name)  # oblivious
            for v, leaf in enumerate(child.children):
                cases = (X[:, a] == u) & (X[:, b] == v)
                counts = np.bincount(y[cases].astype(int), minlength=2)
                np.testing.assert_array_equal(leaf.value, counts)
                np.testing.assert_array_equal(leaf.subset, np.flatnonzero(cases))
        # parity: each leaf is pure, so OBLIVION's prediction is the leaf's class
        np.testing.assert_array_equal(model(self.parity), y)
        self.viewer.show()
        self.process_events()
        self.assertEqual(len(self.viewer.scene.nodes()), 7)
