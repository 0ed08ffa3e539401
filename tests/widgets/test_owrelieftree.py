"""Relief Tree widget: learner and model outputs, options reaching the learner, background
fitting, messages, settings and report."""
from Orange.data import Domain, Table
from Orange.widgets.tests.base import WidgetLearnerTestMixin, WidgetTest

from orangecontrib.relief.datasets import parity
from orangecontrib.relief.learners import CoreTreeLearner
from orangecontrib.relief.widgets.owrelieftree import OWReliefTree


class TestOWReliefTree(WidgetTest, WidgetLearnerTestMixin):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.parity3 = parity(order=3, n_irrelevant=10, n_instances=200)

    def setUp(self):
        self.widget = self.create_widget(OWReliefTree, stored_settings={"auto_apply": False})
        self.init()
        self.parameters = []

    def fit(self, data):
        self.send_signal(self.widget.Inputs.data, data)
        self.click_apply()
        self.wait_until_finished(timeout=60000)
        return self.get_output(self.widget.Outputs.model)

    def test_parity3_model_splits_on_the_informative_attributes_first(self):
        model = self.fit(self.parity3)
        self.assertIsInstance(self.get_output(self.widget.Outputs.learner), CoreTreeLearner)
        root = model.root
        self.assertIn(root.attr.name, {"I1", "I2", "I3"})
        second = {c.attr.name for c in root.children if c is not None and c.attr is not None}
        self.assertTrue(second <= {"I1", "I2", "I3"} and second, second)
        self.assertIs(model.instances, self.parity3)

    def test_options_reach_the_learner(self):
        w = self.widget
        w.estimator_name = "Gini gain"
        w.switch, w.switch_threshold = True, 0.7
        w.min_leaf, w.limit_depth, w.max_depth = 7, True, 3
        w.pruning = "pessimistic"
        w.discretize, w.n_intervals = True, 4
        w.limit_majority = False
        self.click_apply()
        params = self.get_output(w.Outputs.learner).kwargs
        self.assertEqual(type(params["estimator"]).__name__, "Gini")
        self.assertEqual((params["switch"], params["switch_threshold"]), (True, 0.7))
        self.assertEqual((params["min_leaf"], params["max_depth"]), (7, 3))
        self.assertEqual(params["min_majority"], 1.0)
        self.assertEqual((params["pruning"], params["discretize"]), ("pessimistic", 4))
        model = self.fit(self.parity3)
        self.assertLessEqual(model.depth(), 3)

    def test_regression_uses_the_regression_estimator_and_leaf_model(self):
        self.widget.leaf_model = "linear"
        model = self.fit(Table("housing")[:150])
        self.assertIsNotNone(model)
        self.assertFalse(self.widget.Error.active)
        self.assertEqual(self.get_output(self.widget.Outputs.learner)
                         .kwargs["regression_estimator"].name, "RReliefF")

    def test_unsuitable_data_show_errors_and_no_model(self):
        w = self.widget
        no_class = self.parity3.transform(Domain(self.parity3.domain.attributes))
        self.send_signal(w.Inputs.data, no_class)
        self.click_apply()
        self.assertTrue(w.Error.data_error.is_shown())
        self.assertIsNone(self.get_output(w.Outputs.model))
        self.fit(self.parity3[self.parity3.Y == 0])
        self.assertTrue(w.Error.data_error.is_shown())
        self.assertIsNotNone(self.fit(self.parity3))
        self.assertFalse(w.Error.active)

    def test_new_data_cancel_the_running_fit(self):
        w = self.widget
        self.send_signal(w.Inputs.data, self.parity3)
        self.click_apply()
        first = w.task
        self.send_signal(w.Inputs.data, self.parity3[:100])
        self.click_apply()
        self.assertTrue(first is None or first.is_interruption_requested())
        self.wait_until_finished(timeout=60000)
        self.assertEqual(len(self.get_output(w.Outputs.model).instances), 100)

    def test_settings_survive_saving(self):
        w = self.widget
        w.estimator_name, w.pruning, w.switch = "InfGain", None, True
        settings = w.settingsHandler.pack_data(w)
        widget = self.create_widget(OWReliefTree, stored_settings=settings)
        self.assertEqual(widget.estimator_combo.currentText(), "InfGain")
        self.assertEqual((widget.pruning, widget.switch), (None, True))

    def test_the_parameters_shown_are_those_of_the_estimator_for_the_target(self):
        w = self.widget
        relieff = w.class_stack.editors["ReliefF"]
        rrelieff = w.regression_stack.editors["RReliefF"]
        self.assertTrue(relieff.isVisibleTo(w))          # no data: classification
        self.assertFalse(rrelieff.isVisibleTo(w))
        self.send_signal(w.Inputs.data, Table("housing")[:60])
        self.wait_until_finished(timeout=60000)
        self.assertFalse(relieff.isVisibleTo(w))
        self.assertTrue(rrelieff.isVisibleTo(w))
        self.send_signal(w.Inputs.data, Table("iris"))
        self.wait_until_finished(timeout=60000)
        self.assertTrue(relieff.isVisibleTo(w))
        self.assertFalse(rrelieff.isVisibleTo(w))

    def test_estimator_parameters_reach_the_learner(self):
        w = self.widget
        editor = w.class_stack.editors["ReliefF"]
        self.assertTrue(editor.isVisibleTo(w))
        editor.controls["k"].setValue(4)
        combo = editor.controls["weighting"]
        combo.setCurrentIndex(combo.findData("exp-rank"))
        combo.activated.emit(combo.currentIndex())
        w.regression_stack.editors["RReliefF"].controls["k"].setValue(15)
        self.click_apply()
        kwargs = self.get_output(w.Outputs.learner).kwargs
        estimator = kwargs["estimator"]
        self.assertEqual((estimator.k, estimator.weighting), (4, "exp-rank"))
        self.assertEqual(kwargs["regression_estimator"].k, 15)
        # saved with the widget's settings
        settings = w.settingsHandler.pack_data(w)
        widget = self.create_widget(OWReliefTree, stored_settings=settings)
        self.assertEqual(widget.create_learner().kwargs["estimator"].k, 4)
        # another estimator shows its own parameters
        w.estimator_combo.setCurrentIndex(w.estimator_combo.findText("Contextual Merit"))
        w.estimator_combo.activated.emit(w.estimator_combo.currentIndex())
        self.assertIs(w.class_stack.currentWidget(), w.class_stack.editors["Contextual Merit"])
        self.assertIn("K", w.class_stack.editors["Contextual Merit"].controls)

    def test_inapplicable_options_are_disabled_and_all_have_tooltips(self):
        w = self.widget
        self.assertTrue(w.m_spin.isEnabled())
        self.assertFalse(w.confidence_spin.isEnabled())
        self.assertFalse(w.intervals_spin.isEnabled())
        for editor in list(w.class_stack.editors.values()) + list(w.regression_stack.editors.values()):
            for control in editor.controls.values():
                self.assertTrue(control.toolTip())
        for spin in (w.m_spin, w.confidence_spin, w.intervals_spin):
            self.assertTrue(spin.toolTip())
        self.assertFalse(w.advanced.is_expanded())

    def test_settings_of_version_1_load(self):
        old = {"estimator_name": "Gini", "regression_estimator_name": "No such estimator",
               "pruning": "removed-method", "leaf_model": "mean", "__version__": 1}
        widget = self.create_widget(OWReliefTree, stored_settings=old)
        kwargs = widget.create_learner().kwargs
        self.assertEqual(type(kwargs["estimator"]).__name__, "Gini")
        self.assertEqual(kwargs["regression_estimator"].name, "RReliefF")
        self.assertEqual(kwargs["pruning"], "m-estimate")

    def test_report_names_the_estimators_and_their_parameters(self):
        w = self.widget
        w.class_stack.editors["ReliefF"].controls["k"].setValue(4)
        self.fit(self.parity3)
        w.send_report()
        self.assertIn("ReliefF, Nearest neighbours k 4", w.report_html)
        self.assertIn("RReliefF", w.report_html)

    def test_the_two_sections_open_apart_and_the_switch_is_always_in_view(self):
        w = self.widget
        self.assertTrue(w.controls.switch.isVisibleTo(w))
        relieff = w.class_stack.editors["ReliefF"]
        relieff.advanced.button.click()
        self.assertTrue(relieff.advanced.is_expanded())
        self.assertFalse(w.advanced.is_expanded())
        self.assertFalse(w.controls.max_depth.isVisibleTo(w))
        w.advanced.button.click()
        self.assertTrue(w.controls.max_depth.isVisibleTo(w))
        relieff.advanced.button.click()
        self.assertFalse(relieff.advanced.is_expanded())
        self.assertTrue(w.advanced.is_expanded())
        self.assertEqual((w.advanced_shown, w.tree_advanced_shown), (False, True))

    def test_settings_of_version_2_keep_their_one_advanced_state_for_both(self):
        w = self.create_widget(OWReliefTree, stored_settings={"advanced_shown": True,
                                                              "__version__": 2})
        self.assertTrue(w.advanced.is_expanded())
        self.assertTrue(w.class_stack.editors["ReliefF"].advanced.is_expanded())
