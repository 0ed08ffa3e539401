"""Attribute Estimation widget: signals in, outputs read back, settings, messages, cancel."""
import warnings

import numpy as np
from AnyQt.QtCore import Qt

from Orange.data import Domain, Table
from Orange.widgets.tests.base import WidgetTest
from Orange.widgets.utils import enum2int
from Orange.widgets.utils.concurrent import TaskState

from orangecontrib.relief import scoring
from orangecontrib.relief.datasets import parity
from orangecontrib.relief.estimators.relieff import ReliefF
from orangecontrib.relief.estimators.significance import stir
from orangecontrib.relief.orange_data import encode_table
from orangecontrib.relief.widgets.background import Cancelled
from orangecontrib.relief.widgets.owattributeestimation import (SIGNIFICANCE,
                                                                OWAttributeEstimation, estimate)

from fonts import BigFont

#: generous: the first estimate compiles the engine's kernels (slow on a loaded machine)
TIMEOUT = 60000


class EstimationWidgetTest(WidgetTest):
    """A new widget for each test; parity data (two informative attributes and
    ``N_IRRELEVANT`` others, ``N_INSTANCES`` rows) made once for the class."""
    N_IRRELEVANT, N_INSTANCES = 6, 150

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.parity = parity(order=2, n_irrelevant=cls.N_IRRELEVANT, n_instances=cls.N_INSTANCES)

    def setUp(self):
        self.widget = self.create_widget(OWAttributeEstimation)

    def choose(self, name, **params):
        """Select estimator ``name`` in the combo and set ``params`` through its controls."""
        w = self.widget
        w.estimator_combo.setCurrentText(name)
        w.estimator_combo.activated.emit(w.estimator_combo.currentIndex())
        editor = w.editors[name]
        for key, value in params.items():
            control = editor.controls[key]
            control.setValue(value)
        self.wait_until_finished(timeout=TIMEOUT)

    def send(self, data):
        self.send_signal(self.widget.Inputs.data, data)
        self.wait_until_finished(timeout=TIMEOUT)


class TestOWAttributeEstimation(EstimationWidgetTest):
    N_IRRELEVANT, N_INSTANCES = 10, 200

    def scores(self):
        table = self.get_output(self.widget.Outputs.scores)
        return dict(zip(table.metas[:, 0], table.X[:, 0]))

    def test_parity_informative_attributes_rank_first_in_scores_and_reduced_data(self):
        self.choose("ReliefF")
        self.widget.n_selected = 2
        self.send_signal(self.widget.Inputs.data, self.parity)
        self.wait_until_finished(timeout=TIMEOUT)
        scores = self.scores()
        self.assertEqual(set(sorted(scores, key=scores.get)[-2:]), {"I1", "I2"})
        self.widget.set_selection_method(self.widget.SelectNBest)
        reduced = self.get_output(self.widget.Outputs.reduced_data)
        self.assertEqual({a.name for a in reduced.domain.attributes}, {"I1", "I2"})
        self.assertEqual(reduced.domain.class_var, self.parity.domain.class_var)
        self.assertEqual(len(reduced), len(self.parity))

    def test_scores_equal_the_engine_estimates_for_the_chosen_parameters(self):
        self.choose("ReliefF", k=5)
        self.send_signal(self.widget.Inputs.data, self.parity)
        self.wait_until_finished(timeout=TIMEOUT)
        expected = ReliefF(k=5)(encode_table(self.parity)[0])
        table = self.get_output(self.widget.Outputs.scores)
        np.testing.assert_allclose(table.X[:, 0], expected)
        self.assertEqual([a.name for a in self.parity.domain.attributes],
                         list(table.metas[:, 0]))

    def test_scorer_output_is_the_configured_scorer_usable_in_scripts(self):
        self.choose("ReliefF", k=7)
        scorer = self.get_output(self.widget.Outputs.scorer)
        self.assertIsInstance(scorer, scoring.ReliefF)
        self.assertEqual(scorer.k, 7)
        hash(scorer)                                   # Rank keys results by scorer
        w = scorer(self.parity)
        self.assertEqual(w.shape, (len(self.parity.domain.attributes),))

    def test_table_is_sorted_descending_with_bars(self):
        self.send_signal(self.widget.Inputs.data, self.parity)
        self.wait_until_finished(timeout=TIMEOUT)
        model = self.widget.ranks_model
        shown = [model.data(model.index(r, 2)) for r in range(model.rowCount())]
        self.assertEqual(shown, sorted(shown, reverse=True))
        ratios = [model.data(model.index(r, 2), Qt.UserRole + 1) for r in range(2)]
        self.assertTrue(all(0 <= r <= 1 for r in ratios if r is not None))

    def test_threshold_selects_attributes_above_tau_of_alpha_and_m(self):
        self.choose("ReliefF")
        self.send_signal(self.widget.Inputs.data, self.parity)
        self.wait_until_finished(timeout=TIMEOUT)
        self.widget.alpha = 0.5
        self.widget.set_selection_method(self.widget.SelectThreshold)
        tau = 1 / np.sqrt(0.5 * len(self.parity))      # 1/sqrt(alpha * m), m = 200
        scores = self.scores()
        expected = {name for name, s in scores.items() if s > tau}
        reduced = self.get_output(self.widget.Outputs.reduced_data)
        self.assertEqual({a.name for a in reduced.domain.attributes}, expected)
        self.assertIn("I1", expected)

    def test_manual_selection_is_restored_from_context_settings(self):
        self.send_signal(self.widget.Inputs.data, self.parity)
        self.wait_until_finished(timeout=TIMEOUT)
        attrs = self.parity.domain.attributes
        self.widget.selected_attrs = [attrs[5], attrs[7]]
        self.widget.set_selection_method(self.widget.SelectManual)
        self.assertEqual(self.get_output(self.widget.Outputs.features), [attrs[5], attrs[7]])
        self.choose("ReliefF", k=3)
        settings = self.widget.settingsHandler.pack_data(self.widget)

        widget = self.create_widget(OWAttributeEstimation, stored_settings=settings)
        self.send_signal(widget.Inputs.data, self.parity, widget=widget)
        self.wait_until_finished(widget=widget, timeout=TIMEOUT)
        self.assertEqual(widget.selection_method, widget.SelectManual)
        self.assertEqual(self.get_output(widget.Outputs.features, widget=widget),
                         [attrs[5], attrs[7]])
        self.assertEqual(self.get_output(widget.Outputs.scorer, widget=widget).k, 3)

    def test_no_class_is_an_error_not_a_traceback(self):
        w = self.widget
        no_class = self.parity.transform(Domain(self.parity.domain.attributes))
        self.send_signal(w.Inputs.data, no_class)
        self.assertTrue(w.Error.no_class.is_shown())
        self.assertIsNone(self.get_output(w.Outputs.scores))
        self.send_signal(w.Inputs.data, None)
        self.assertFalse(w.Error.active)

    def test_an_estimator_that_does_not_suit_the_target_becomes_its_counterpart(self):
        # one rule: ReliefF becomes RReliefF on a numeric target, an impurity measure MSE and
        # MSE Gini gain on a categorical one; an estimator that suits both stays
        w = self.widget
        housing = Table("housing")[:100]
        self.choose("ReliefF", k=4)
        self.send_signal(w.Inputs.data, housing)
        self.wait_until_finished(timeout=TIMEOUT)
        self.assertFalse(w.Error.active)
        self.assertEqual(w.estimator_combo.currentText(), "RReliefF")
        self.assertIn("ReliefF does not suit a numeric target", w.Information.switched.formatted)
        self.assertIsInstance(self.get_output(w.Outputs.scorer), scoring.RReliefF)
        from orangecontrib.relief.estimators.rrelieff import RReliefF
        np.testing.assert_allclose(self.get_output(w.Outputs.scores).X[:, 0],
                                   RReliefF()(encode_table(housing)[0]))
        # estimators for the other target type cannot be chosen for these data
        model = w.estimator_combo.model()
        names = list(w.scorer_classes)
        self.assertFalse(model.item(names.index("ReliefF")).isEnabled())
        self.assertTrue(model.item(names.index("MSE")).isEnabled())
        self.choose("MSE")
        self.send_signal(w.Inputs.data, self.parity)
        self.wait_until_finished(timeout=TIMEOUT)
        self.assertEqual(w.estimator_combo.currentText(), "Gini gain")
        self.send_signal(w.Inputs.data, housing)
        self.wait_until_finished(timeout=TIMEOUT)
        self.assertEqual(w.estimator_combo.currentText(), "MSE")
        self.assertFalse(w.Error.active)
        self.assertFalse(w.Information.switched.is_shown())
        # MultiSURF, chosen on categorical data, suits a numeric target too: it stays
        self.send_signal(w.Inputs.data, self.parity)
        self.choose("MultiSURF")
        self.send_signal(w.Inputs.data, housing)
        self.wait_until_finished(timeout=TIMEOUT)
        self.assertEqual(w.estimator_combo.currentText(), "MultiSURF")
        self.assertFalse(w.Information.switched.is_shown())
        # ReliefF chosen after it becomes RReliefF (not the MultiSURF chosen before)
        self.send_signal(w.Inputs.data, self.parity)
        self.choose("ReliefF")
        self.send_signal(w.Inputs.data, housing)
        self.wait_until_finished(timeout=TIMEOUT)
        self.assertEqual(w.estimator_combo.currentText(), "RReliefF")
        self.assertIn("RReliefF", w.estimator_combo.toolTip())

    def test_every_control_has_a_tooltip_and_advanced_ones_start_hidden(self):
        w = self.widget
        for name, editor in w.editors.items():
            for key, control in editor.controls.items():
                self.assertGreater(len(control.toolTip()), 20, (name, key))
        relieff = w.editors["ReliefF"]
        self.assertFalse(relieff.controls["distance"].isVisibleTo(w))
        self.assertTrue(relieff.controls["k"].isVisibleTo(w))
        relieff.advanced.button.click()
        self.assertTrue(relieff.controls["distance"].isVisibleTo(w))
        self.assertTrue(w.advanced_shown)
        # one state for all estimators, and it is saved
        self.assertTrue(w.editors["Unified Π"].advanced.is_expanded())
        settings = w.settingsHandler.pack_data(w)
        widget = self.create_widget(OWAttributeEstimation, stored_settings=settings)
        self.assertTrue(widget.editors["ReliefF"].advanced.is_expanded())

    def test_inapplicable_parameters_are_disabled(self):
        editor = self.widget.editors["ReliefF"]
        controls = editor.controls
        self.assertFalse(controls["sigma"].isEnabled())           # equal weights
        self.assertFalse(controls["random_state"].isEnabled())    # all instances
        self.assertFalse(controls["t_equal"].isEnabled())         # linear diff
        combo = controls["weighting"]
        combo.setCurrentIndex(combo.findData("exp-rank"))
        combo.activated.emit(combo.currentIndex())
        self.assertTrue(controls["sigma"].isEnabled())
        controls["iterations"].setValue(50)
        self.assertTrue(controls["random_state"].isEnabled())
        combo = controls["numeric_diff"]
        combo.setCurrentIndex(combo.findData("ramp"))
        combo.activated.emit(combo.currentIndex())
        self.assertTrue(controls["t_equal"].isEnabled())
        self.assertTrue(controls["t_different"].isEnabled())
        # Relief's threshold τ bounds means of m updates within [-1, 1]: offered for ReliefF
        # and MultiSURF, not for Π, NPDR (z statistics) nor RReliefF (a ratio of sums)
        self.assertTrue(self.widget.alpha_spin.isEnabled())
        threshold = self.widget.select_buttons.button(self.widget.SelectThreshold)
        for name, offered in (("Unified Π", False), ("NPDR", False), ("MultiSURF", True),
                              ("RReliefF", False), ("ReliefF", True)):
            self.choose(name)
            self.assertEqual(self.widget.alpha_spin.isEnabled(), offered, name)
            self.assertEqual(threshold.isEnabled(), offered, name)
        pi = self.widget.editors["Unified Π"].controls
        self.assertFalse(pi["random_state"].isEnabled())
        pi["sample"].setValue(30)
        self.assertTrue(pi["random_state"].isEnabled())

    def test_scorer_name_shows_only_non_default_parameters(self):
        w = self.widget
        self.choose("ReliefF")
        # ReliefF always names its k (apart from Rank's own ReliefF)
        self.assertEqual(self.get_output(w.Outputs.scorer).name, "RF k10")
        combo = w.editors["ReliefF"].controls["weighting"]
        combo.setCurrentIndex(combo.findData("exp-rank"))
        combo.activated.emit(combo.currentIndex())
        self.assertEqual(self.get_output(w.Outputs.scorer).name,
                         "RF k10 weighting=exp-rank")
        self.choose("Unified Π")
        self.assertEqual(self.get_output(w.Outputs.scorer).name, "Unif. Π")

    def test_settings_of_version_1_with_removed_parameters_load(self):
        old = {"estimator_name": "Gini",        # a class name, now shown as "Gini gain"
               "estimator_params": {"ReliefF": {"k": 7, "no_such_parameter": 3,
                                                "sigma": "wrong type"},
                                    "RReliefF": {"k": 30}, "Removed estimator": {"x": 1}},
               "n_selected": 3, "__version__": 1}
        w = self.create_widget(OWAttributeEstimation, stored_settings=old)
        self.assertEqual(w.estimator_combo.currentText(), "Gini gain")
        self.assertEqual(w.estimator_params["ReliefF"]["k"], 7)
        self.assertNotIn("no_such_parameter", w.estimator_params["ReliefF"])
        self.assertEqual(w.estimator_params["ReliefF"]["sigma"], 20.0)
        self.send_signal(w.Inputs.data, self.parity, widget=w)
        self.wait_until_finished(widget=w, timeout=TIMEOUT)
        self.assertFalse(w.Error.active)
        w.estimator_combo.setCurrentText("ReliefF")
        w.estimator_combo.activated.emit(w.estimator_combo.currentIndex())
        self.assertEqual(self.get_output(w.Outputs.scorer, widget=w).k, 7)
        # an old regression estimator is the choice (shown without data)
        w = self.create_widget(OWAttributeEstimation,
                               stored_settings={"estimator_name": "RReliefF",
                                                "__version__": 1})
        self.assertEqual(w.estimator_name, "RReliefF")
        self.assertEqual(w.estimator_combo.currentText(), "RReliefF")

    def test_settings_of_version_4_keep_the_categorical_targets_choice(self):
        old = {"estimator_name": "MultiSURF", "regression_estimator_name": "MSE",
               "__version__": 4}
        w = self.create_widget(OWAttributeEstimation, stored_settings=old)
        self.assertEqual(w.estimator_name, "MultiSURF")
        self.assertFalse(hasattr(w, "regression_estimator_name"))
        w = self.create_widget(OWAttributeEstimation, stored_settings={
            "regression_estimator_name": "MSE", "__version__": 4})
        self.assertEqual(w.estimator_name, "MSE")

    def test_choosing_the_case_counts_attribute_keeps_the_selection(self):
        w = self.widget
        self.choose("Unified Π")
        self.send_signal(w.Inputs.data, self.parity)
        self.wait_until_finished(timeout=TIMEOUT)
        self.assertTrue(w.counts_box.isVisibleTo(w))
        # the best attribute's counts are shown first
        best = w.data.domain.attributes[int(np.argmax(w.result.scores))]
        self.assertEqual(w.counts_combo.currentText(), best.name)
        before = self.get_output(w.Outputs.features)
        w.counts_combo.setCurrentIndex(5)
        w.counts_combo.activated.emit(5)
        attr = self.parity.domain.attributes[5]
        # a binary attribute and class: 2 x 2 rows of the four cases (shown to 4 digits)
        self.assertEqual(w.counts_view.rowCount(), 4)
        self.assertTrue(w.counts_view.verticalHeaderItem(0).text().startswith(attr.name))
        counts = np.asarray(w.result.case_counts[5]).reshape(-1, 4)
        self.assertLess(abs(float(w.counts_view.item(1, 2).text()) / counts[1, 2] - 1), 1e-3)
        self.assertEqual(self.get_output(w.Outputs.features), before)
        self.assertEqual(w.selection_method, w.SelectNBest)

    def test_auto_send_off_holds_changes_until_sent(self):
        w = self.widget
        w.auto_apply = False
        self.choose("ReliefF")
        self.send_signal(w.Inputs.data, self.parity)        # new data are sent at once
        self.wait_until_finished(timeout=TIMEOUT)
        first = self.get_output(w.Outputs.scores).X[:, 0].copy()
        self.choose("ReliefF", k=2)
        np.testing.assert_array_equal(self.get_output(w.Outputs.scores).X[:, 0], first)
        w.commit.now()
        expected = ReliefF(k=2)(encode_table(self.parity)[0])
        np.testing.assert_allclose(self.get_output(w.Outputs.scores).X[:, 0], expected)

    def test_the_table_is_wide_enough_for_the_score_column(self):
        w = self.widget
        self.send_signal(w.Inputs.data, self.parity)
        self.wait_until_finished(timeout=TIMEOUT)
        view = w.ranks_view
        columns = sum(view.columnWidth(c) for c in range(w.ranks_model.columnCount()))
        # at the size the widget opens with (its minimum stays narrower: Orange's 800 pixels)
        w.show()
        w.resize(w.sizeHint())
        self.process_events()
        self.assertGreaterEqual(view.viewport().width(), columns)

    def test_one_class_and_too_few_instances_are_errors(self):
        w = self.widget
        self.choose("ReliefF")
        one_class = self.parity[self.parity.Y == 0]
        self.send_signal(w.Inputs.data, one_class)
        self.wait_until_finished(timeout=TIMEOUT)
        self.assertTrue(w.Error.unsuitable.is_shown())
        self.send_signal(w.Inputs.data, self.parity[:1])
        self.wait_until_finished(timeout=TIMEOUT)
        self.assertTrue(w.Error.unsuitable.is_shown())

    def test_missing_class_values_are_ignored_with_a_warning(self):
        data = self.parity.copy()
        with data.unlocked(data.Y):
            data.Y[:10] = np.nan
        self.send_signal(self.widget.Inputs.data, data)
        self.wait_until_finished(timeout=TIMEOUT)
        self.assertTrue(self.widget.Warning.missing_class.is_shown())
        self.assertIn("10", self.widget.Warning.missing_class.formatted)

    def test_a_change_cancels_the_running_estimation(self):
        w = self.widget
        self.choose("ReliefF")
        self.send_signal(w.Inputs.data, self.parity)
        first = w.task
        self.choose("ReliefF", k=4)               # started while the first one may run
        self.assertTrue(first is None or first.is_interruption_requested())
        expected = ReliefF(k=4)(encode_table(self.parity)[0])
        np.testing.assert_allclose(self.get_output(w.Outputs.scores).X[:, 0], expected)

    def test_progress_callback_raises_when_interruption_is_requested(self):
        state = TaskState()
        state._TaskState__interruption_requested = True
        with self.assertRaises(Cancelled):
            estimate(scoring.ReliefF(), self.parity, state)

    def test_every_scorer_class_runs_on_suitable_data(self):
        for cls in scoring.SCORERS:
            self.choose(cls.stem())
            data = self.parity if "classification" in cls.tasks else Table("housing")[:80]
            self.send_signal(self.widget.Inputs.data, data)
            self.wait_until_finished(timeout=TIMEOUT)
            self.assertFalse(self.widget.Error.active, cls.stem())
            scores = self.get_output(self.widget.Outputs.scores)
            self.assertEqual(scores.domain.attributes[0].name, cls.stem())
            self.assertEqual(len(scores), len(data.domain.attributes))

    def test_creating_any_of_our_widgets_warns_about_nothing_of_ours(self):
        # no warning raised from our modules, none naming our widgets (such as orangewidget's
        # request to make a learner widget's apply gui.deferred)
        from orangecontrib.relief.widgets.owinteractingpairs import OWInteractingPairs
        from orangecontrib.relief.widgets.owlocalityprofile import OWLocalityProfile
        from orangecontrib.relief.widgets.owoblivioustree import OWObliviousTree
        from orangecontrib.relief.widgets.owrelieftree import OWReliefTree
        for cls in (OWAttributeEstimation, OWLocalityProfile, OWReliefTree, OWObliviousTree,
                    OWInteractingPairs):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                self.create_widget(cls)
                self.process_events()
            ours = [f"{w.category.__name__}: {w.message} ({w.filename})" for w in caught
                    if "orangecontrib" in w.filename or cls.__name__ in str(w.message)]
            self.assertEqual(ours, [], cls.__name__)

    def test_report(self):
        self.choose("ReliefF", k=6)
        self.send_signal(self.widget.Inputs.data, self.parity)
        self.wait_until_finished(timeout=TIMEOUT)
        self.widget.send_report()
        html = self.widget.report_html
        self.assertIn("Nearest neighbours k", html)
        self.assertIn("I1", html)


class TestSignificance(EstimationWidgetTest):
    """p- and q-values in the table and the Scores output, and the selection q < α."""
    def run_with(self, method, estimator="ReliefF"):
        w = self.widget
        w.estimator_combo.setCurrentText(estimator)
        self.assertEqual(w.estimator_combo.currentText(), estimator)
        w.estimator_combo.activated.emit(w.estimator_combo.currentIndex())
        w.significance_method = [m for _, m in SIGNIFICANCE].index(method)
        w._on_significance_changed()
        self.send_signal(w.Inputs.data, self.parity)
        self.wait_until_finished(timeout=TIMEOUT)
        return self.get_output(w.Outputs.scores)

    def test_stir_columns_equal_the_engine_and_select_by_q(self):
        table = self.run_with("stir")
        names = [v.name for v in table.domain.attributes]
        self.assertEqual(names, ["ReliefF", "p", "q"])
        expected = stir(ReliefF(), encode_table(self.parity)[0], random_state=0)
        np.testing.assert_allclose(table.X[:, 1], expected.pvalues)
        np.testing.assert_allclose(table.X[:, 2], expected.qvalues)
        self.assertEqual(self.widget.ranks_model.columnCount(), 5)
        self.widget.fdr = 0.01
        self.widget.set_selection_method(self.widget.SelectFDR)
        reduced = self.get_output(self.widget.Outputs.reduced_data)
        chosen = {a.name for a in reduced.domain.attributes}
        self.assertEqual(chosen, {name for name, q in zip(table.metas[:, 0], table.X[:, 2])
                                  if q < 0.01})
        self.assertTrue({"I1", "I2"} <= chosen)

    def test_permutations_repeat_and_apply_to_any_estimator(self):
        self.widget.n_permutations = 19
        first = self.run_with("permutation", "GainRatio")
        self.assertEqual([v.name for v in first.domain.attributes][1:], ["p", "q"])
        b = first.X[:, 1] * 20 - 1
        np.testing.assert_allclose(b, np.round(b), atol=1e-9)
        self.widget.restart()
        self.wait_until_finished(timeout=TIMEOUT)
        np.testing.assert_array_equal(self.get_output(self.widget.Outputs.scores).X, first.X)

    def test_too_few_permutations_for_q_below_0_05_warn(self):
        # the parity data's attributes need 20 x their number less one permutations for any q
        # to reach 0.05 (the rule of the API's warning): 19 warn, saying how many would do,
        # that many do not; other methods never warn
        n = len(self.parity.domain.attributes)
        self.widget.n_permutations = 19
        self.run_with("permutation", "GainRatio")
        warning = self.widget.Warning.few_permutations
        self.assertTrue(warning.is_shown())
        self.assertIn(f"19 permutations cannot give q < 0.05 among {n} attributes",
                      warning.formatted)
        self.assertIn(f"{20 * n - 1} can", warning.formatted)
        self.widget.n_permutations = 20 * n - 1
        self.widget._on_significance_changed()
        self.wait_until_finished(timeout=TIMEOUT)
        self.assertFalse(warning.is_shown())
        self.widget.n_permutations = 19
        self.run_with("stir")
        self.assertFalse(warning.is_shown())

    def test_stir_for_an_estimator_without_hits_and_misses_warns(self):
        table = self.run_with("stir", "GainRatio")
        self.assertEqual(len(table.domain.attributes), 1)
        self.assertTrue(self.widget.Warning.no_stir.is_shown())
        self.widget.set_selection_method(self.widget.SelectFDR)
        self.assertTrue(self.widget.Information.no_qvalues.is_shown())
        self.assertEqual(len(self.get_output(self.widget.Outputs.reduced_data).domain.attributes),
                         self.widget.n_selected)

    def test_npdr_regression_test_equals_the_engine_and_selects_by_q(self):
        from orangecontrib.relief.estimators.npdr import NPDR
        table = self.run_with("npdr", "NPDR")
        w = self.widget
        self.assertEqual(w.controls.significance_method.currentText(), "Regression (NPDR)")
        self.assertIn("regression", w.controls.significance_method.toolTip())
        self.assertEqual([v.name for v in table.domain.attributes], ["NPDR", "p", "q"])
        # NPDR's own test at the widget's seed (0) with its default 30 calibrating permutations
        expected = NPDR().test(encode_table(self.parity)[0], random_state=0)
        self.assertEqual(expected.n_permutations, 30)
        np.testing.assert_allclose(table.X[:, 0], expected.statistics)
        np.testing.assert_allclose(table.X[:, 1], expected.pvalues)
        np.testing.assert_allclose(table.X[:, 2], expected.qvalues)
        self.assertFalse(w.permutations_spin.isEnabled())
        self.assertFalse(w.Warning.no_npdr.is_shown())
        w.fdr = 0.05
        w.set_selection_method(w.SelectFDR)
        chosen = {a.name for a in self.get_output(w.Outputs.reduced_data).domain.attributes}
        self.assertEqual(chosen, {name for name, q in zip(table.metas[:, 0], table.X[:, 2])
                                  if q < 0.05})
        self.assertTrue({"I1", "I2"} <= chosen)
        w.send_report()
        self.assertIn("Regression (NPDR)", w.report_html)

    def test_regression_test_for_other_estimators_warns_as_stir_does(self):
        # alone: no p-values, a warning naming the estimator, q < falls back to the best
        table = self.run_with("npdr", "ReliefF")
        w = self.widget
        self.assertEqual([v.name for v in table.domain.attributes], ["ReliefF"])
        np.testing.assert_allclose(table.X[:, 0], ReliefF()(encode_table(self.parity)[0]))
        self.assertTrue(w.Warning.no_npdr.is_shown())
        self.assertTrue(w.Warning.no_npdr.formatted.endswith("permutations for ReliefF."))
        self.assertFalse(w.Warning.no_stir.is_shown())
        w.set_selection_method(w.SelectFDR)
        self.assertTrue(w.Information.no_qvalues.is_shown())
        self.assertIn("NPDR's regression", w.Information.no_qvalues.formatted)
        # NPDR compared with ReliefF and Gini: the p- and q-values are NPDR's only
        self.compare_with("ReliefF", scoring.Gini.stem())
        self.choose("NPDR")
        table = self.get_output(w.Outputs.scores)
        self.assertEqual([v.name for v in table.domain.attributes],
                         ["NPDR", "p", "q", "ReliefF", scoring.Gini.stem()])
        self.assertIn(f"for ReliefF, {scoring.Gini.stem()}.", w.Warning.no_npdr.formatted)
        # back to none: no warning
        w.significance_method = 0
        w._on_significance_changed()
        self.wait_until_finished(timeout=TIMEOUT)
        self.assertFalse(w.Warning.no_npdr.is_shown())

    def compare_with(self, *names):
        model = self.widget.compare_model
        for row in range(model.rowCount()):
            if model.item(row).text() in names:
                model.item(row).setCheckState(Qt.Checked)

    def test_stored_significance_choices_keep_their_meaning(self):
        # settings store the index: the choices of older versions keep theirs
        self.assertEqual([m for _, m in SIGNIFICANCE[:3]], [None, "stir", "permutation"])
        old = {"estimator_name": "ReliefF", "compared": [], "significance_method": 2,
               "n_permutations": 19, "__version__": 4}
        w = self.create_widget(OWAttributeEstimation, stored_settings=old)
        self.assertEqual(w.controls.significance_method.currentText(), "Permutations")
        self.send_signal(w.Inputs.data, self.parity, widget=w)
        self.wait_until_finished(widget=w, timeout=TIMEOUT)
        table = self.get_output(w.Outputs.scores, widget=w)
        self.assertEqual([v.name for v in table.domain.attributes], ["ReliefF", "p", "q"])
        b = table.X[:, 1] * 20 - 1                  # p = (b + 1) / 20
        np.testing.assert_allclose(b, np.round(b), atol=1e-9)

    def test_without_significance_no_p_columns(self):
        table = self.run_with(None)
        self.assertEqual(len(table.domain.attributes), 1)
        self.assertFalse(self.widget.permutations_spin.isEnabled())

    def test_small_p_values_show_their_magnitude(self):
        self.run_with("stir")
        view = self.widget.ranks_view
        index = self.widget.ranks_model.index(0, 3)          # the best attribute's p
        text = view.itemDelegateForIndex(index).displayText(
            self.widget.ranks_model.data(index), view.locale())
        self.assertIn("e-", text)

    # --- several estimators side by side: their columns, the selection by any column, the
    # plot, and the messages of the canvas review
    def compare(self, *names):
        model = self.widget.compare_model
        for row in range(model.rowCount()):
            if model.item(row).text() in names:
                model.item(row).setCheckState(Qt.Checked)

    def run_on(self, data):
        self.send_signal(self.widget.Inputs.data, data)
        self.wait_until_finished(timeout=TIMEOUT)

    def test_compared_estimators_have_their_own_columns_equal_to_the_engine(self):
        from orangecontrib.relief.estimators.impurity import Gini
        from orangecontrib.relief.estimators.relieff import Relief
        from orangecontrib.relief.estimators.surf import MultiSURF
        w = self.widget
        self.compare("Relief", "MultiSURF", scoring.Gini.stem())
        w.significance_method = [m for _, m in SIGNIFICANCE].index("stir")
        w._on_significance_changed()
        self.run_on(self.parity)
        table = self.get_output(w.Outputs.scores)
        names = [v.name for v in table.domain.attributes]
        gini = scoring.Gini.stem()
        # STIR applies to Relief, ReliefF and MultiSURF, not to the impurity measure
        self.assertEqual(names, ["ReliefF", "p", "q", "Relief", "p (Relief)", "q (Relief)",
                                 "MultiSURF", "p (MultiSURF)", "q (MultiSURF)", gini])
        encoded = encode_table(self.parity)[0]
        np.testing.assert_allclose(table.X[:, 0], ReliefF()(encoded))
        for estimator, at in ((Relief(), 3), (MultiSURF(), 6)):
            expected = stir(estimator, encoded, random_state=0)   # the widget's seed
            np.testing.assert_allclose(table.X[:, at], expected.scores)
            np.testing.assert_allclose(table.X[:, at + 1], expected.pvalues)
            np.testing.assert_allclose(table.X[:, at + 2], expected.qvalues)
        np.testing.assert_allclose(table.X[:, names.index(gini)], Gini()(encoded))
        self.assertTrue(w.Warning.no_stir.is_shown())
        self.assertIn(gini, w.Warning.no_stir.formatted)
        self.assertTrue(w.Warning.no_stir.formatted.endswith(f"choose Permutations for {gini}."))
        # the table has the same columns after the attribute and #, each header in full
        model = w.ranks_model
        headers = [model.headerData(c, Qt.Horizontal) for c in range(2, model.columnCount())]
        self.assertEqual(headers, [n if n in (gini, "ReliefF", "Relief", "MultiSURF")
                                   else n.split(" ")[0] for n in names])

    def test_best_ranked_follow_the_column_the_table_is_sorted_by(self):
        w = self.widget
        self.compare(scoring.Gini.stem())
        self.run_on(self.parity)
        w.controls.n_selected.setValue(2)
        w.set_selection_method(w.SelectNBest)
        features = {a.name for a in self.get_output(w.Outputs.features)}
        self.assertEqual(features, {"I1", "I2"})            # ReliefF's best
        gini = self.get_output(w.Outputs.scores).X[:, 1]
        w.ranks_view.horizontalHeader().sectionClicked.emit(3)  # sort by Gini gain
        w.ranks_model.sort(3, Qt.DescendingOrder)
        w._on_header_click()
        attrs = self.parity.domain.attributes
        expected = {attrs[i].name for i in np.argsort(-gini, kind="stable")[:2]}
        self.assertEqual({a.name for a in self.get_output(w.Outputs.features)}, expected)
        self.assertIn(f"Estimates by {scoring.Gini.stem()}",
                      w.plot.getPlotItem().titleLabel.text)

    def test_plot_marks_significant_and_selected_attributes(self):
        import pyqtgraph as pg
        w = self.widget
        w.significance_method = [m for _, m in SIGNIFICANCE].index("stir")
        w._on_significance_changed()
        self.run_on(self.parity)
        w.fdr = 0.01
        w.set_selection_method(w.SelectFDR)
        scatter = [i for i in w.plot.getPlotItem().items if isinstance(i, pg.ScatterPlotItem)]
        points = [p for item in scatter for p in item.points()]
        self.assertEqual(len(points), len(self.parity.domain.attributes))
        q = w.result.qvalues
        filled = {p.data() for p in points if p.brush().color().red() > 200
                  and p.brush().color().green() < 100}
        self.assertEqual(filled, {a.name for a, qi in zip(self.parity.domain.attributes, q)
                                  if qi < 0.01})
        # the legend says what the red dots mean here: q below the level, not above τ
        labels = w.plot.legend_labels()
        self.assertIn("q &lt; 0.01", labels)
        self.assertNotIn("above τ", labels)
        # the dots go from the best estimate down
        ys = [p.pos().y() for p in sorted(points, key=lambda p: p.pos().x())]
        self.assertEqual(ys, sorted(ys, reverse=True))

    def test_tau_says_how_many_attributes_pass_it_and_why_none(self):
        w = self.widget
        self.run_on(self.parity)
        tau = 1 / np.sqrt(0.05 * len(self.parity))
        above = int(np.sum(w.result.scores > tau))
        self.assertIn(f"{tau:.3f}", w.tau_label.text())
        self.assertIn(f"{above} of 8 attributes above", w.tau_label.text())
        w.controls.alpha.setValue(0.001)      # τ = 2.58: no estimate reaches it
        self.assertTrue(w.Warning.threshold_nothing.is_shown())
        self.assertIn("m = 150", w.Warning.threshold_nothing.formatted)
        self.assertIn("0 of 8", w.tau_label.text())

    def test_turf_shows_removed_attributes_as_removed(self):
        w = self.widget
        w.estimator_combo.setCurrentText("TuRF")
        w.estimator_combo.activated.emit(w.estimator_combo.currentIndex())
        self.run_on(self.parity)
        model = w.ranks_model
        texts = [model.data(model.index(r, 2)) for r in range(model.rowCount())]
        n_removed = len(w.result.removed)
        self.assertGreater(n_removed, 0)
        self.assertEqual(texts.count("removed"), n_removed)
        # the survivors rank first; a removed one's tooltip names its round
        self.assertTrue(all(t == "removed" for t in texts[-n_removed:]))
        self.assertIn("round", model.data(model.index(model.rowCount() - 1, 2), Qt.ToolTipRole))

    def test_several_targets_and_a_switched_estimator_are_said(self):
        from Orange.data import Table as T
        w = self.widget
        housing = T("housing")[:80]
        two = housing.transform(Domain(housing.domain.attributes[:-1],
                                       [housing.domain.attributes[-1],
                                        housing.domain.class_var]))
        self.run_on(two)
        self.assertTrue(w.Error.several_targets.is_shown())
        self.assertFalse(w.Error.no_class.is_shown())
        w.estimator_combo.setCurrentText("Contextual Merit")
        w.estimator_combo.activated.emit(w.estimator_combo.currentIndex())
        self.run_on(housing)
        self.assertFalse(w.Error.active)
        self.assertTrue(w.Information.switched.is_shown())
        self.assertIn("Contextual Merit", w.Information.switched.formatted)
        self.assertIn("RReliefF", w.Information.switched.formatted)
        self.run_on(self.parity)
        self.assertFalse(w.Information.switched.is_shown())
        self.assertEqual(w.estimator_combo.currentText(), "Contextual Merit")

    def test_settings_of_version_2_load_without_comparison(self):
        old = {"estimator_name": "ReliefF", "estimator_params": {"ReliefF": {"k": 4}},
               "sorting": (4, 1), "__version__": 2}
        w = self.create_widget(OWAttributeEstimation, stored_settings=old)
        self.assertEqual(w.compared, [])
        self.send_signal(w.Inputs.data, self.parity, widget=w)
        self.wait_until_finished(widget=w, timeout=TIMEOUT)
        self.assertFalse(w.Error.active)
        self.assertEqual(self.get_output(w.Outputs.scorer, widget=w).k, 4)
        self.assertEqual(w.ranks_model.columnCount(), 3)    # a stored column beyond: reset


def test_numbers_are_written_for_their_scale():
    from orangecontrib.relief.widgets.numbers import format_p, format_scores
    assert [format_p(p) for p in (0.003, 1.2e-05, 0.25, 1.0, np.nan)] == \
        ["0.003", "1.2e-05", "0.25", "1", "NA"]
    relieff = format_scores([0.427, -0.011, -0.0001])
    assert [relieff(v) for v in (0.427, -0.011, -0.0001)] == ["0.427", "-0.011", "0.000"]
    pi = format_scores([8541.37, 12.5])
    assert [pi(v) for v in (8541.37, 12.5)] == ["8541", "12"]   # 8541.37 reads in full
    tiny = format_scores([3.2e-9, 1e-10])
    assert tiny(3.2e-9) == "3.2e-09"
    from orangecontrib.relief.widgets.numbers import count
    assert [count(1, "attribute"), count(2, "pair"), count(2000, "attribute"),
            count(0, "instance"), count(1, "analysis", "analyses"),
            count(3, "analysis", "analyses")] == \
        ["1 attribute", "2 pairs", "2,000 attributes", "0 instances", "1 analysis",
         "3 analyses"]


class TestScorePlotFollowsTheResult(EstimationWidgetTest):
    """The score plot's title, legend and τ line always describe the current result: data and
    estimator changed several times, and the data removed."""
    def tau_lines(self):
        import pyqtgraph as pg
        return [item for item in self.widget.plot.getPlotItem().items
                if isinstance(item, pg.InfiniteLine)]

    def check(self, name, n_instances):
        """The plot shows ``name``'s estimates of data with ``n_instances`` (None: an estimator
        without τ)."""
        plot = self.widget.plot
        self.assertEqual(plot.getPlotItem().titleLabel.text, f"Estimates by {name}")
        labels = plot.legend_labels()
        self.assertEqual(len(labels), len(set(labels)), labels)       # nothing piled up
        taus = [label for label in labels if label.startswith("τ")]
        if n_instances is None:
            self.assertEqual(taus, [])
            self.assertEqual(self.tau_lines(), [])
        else:
            tau = 1 / np.sqrt(0.05 * n_instances)       # Kira & Rendell's τ, α = 0.05
            self.assertEqual(len(taus), 1, labels)
            self.assertTrue(taus[0].startswith(f"τ = {tau:.3f}"), taus)
            self.assertIn(f"τ = {tau:.3f}", self.widget.tau_label.text())
            lines = self.tau_lines()
            if "plot" in taus[0]:                        # beyond the estimates: not drawn
                self.assertEqual(lines, [])
            else:
                self.assertEqual([line.value() for line in lines], [tau])
        # red dots mean what the legend says: above τ here (no significance method)
        self.assertNotIn("q &lt; 0.05", labels)

    def test_legend_tau_and_title_follow_data_and_estimator(self):
        small = parity(order=2, n_irrelevant=6, n_instances=150)
        large = parity(order=2, n_irrelevant=6, n_instances=400)
        self.choose("ReliefF")
        self.send(small)
        self.check("ReliefF", 150)
        self.send(large)
        self.check("ReliefF", 400)
        self.choose("Unified Π")
        self.check("Unified Π", None)
        self.choose("TuRF")
        self.check("TuRF", None)
        self.send(small)
        self.check("TuRF", None)
        self.choose("Relief")
        self.check("Relief", 150)
        self.send(large)
        self.check("Relief", 400)
        self.send(None)
        plot = self.widget.plot
        self.assertEqual(plot.getPlotItem().titleLabel.text, "")
        self.assertEqual(plot.legend_labels(), [])
        self.assertEqual(plot.getPlotItem().items, [])
        # an empty plot keeps no axes of the previous result
        for side in ("left", "bottom"):
            self.assertFalse(plot.getAxis(side).isVisible(), side)
        self.send(small)
        for side in ("left", "bottom"):
            self.assertTrue(plot.getAxis(side).isVisible(), side)

    def test_a_tau_far_above_the_estimates_leaves_them_their_range(self):
        # 2,000 weak attributes of 60 instances: τ = 1/√(0.05 · 60) = 0.577, the estimates
        # all far below it
        from Orange.data import DiscreteVariable
        rng = np.random.default_rng(1)
        X = rng.integers(0, 3, (60, 2000)).astype(float)
        y = rng.integers(0, 2, 60).astype(float)
        domain = Domain([DiscreteVariable(f"a{i}", values=("0", "1", "2"))
                         for i in range(2000)], DiscreteVariable("y", values=("0", "1")))
        self.choose("ReliefF")
        self.send(Table.from_numpy(domain, X, y))
        scores = self.widget.result.scores
        tau = 1 / np.sqrt(0.05 * 60)
        self.assertLess(scores.max(), tau / 2)
        low, high = self.widget.plot.getPlotItem().viewRange()[1]
        # the dots fill the height: the range is the estimates', not stretched up to τ
        self.assertLess(high - low, 1.5 * (scores.max() - scores.min()))
        self.assertEqual(self.tau_lines(), [])
        self.assertIn(f"τ = {tau:.3f} (above the plot)", self.widget.plot.legend_labels())

    def test_few_attributes_are_ranked_by_whole_numbers(self):
        data = parity(order=2, n_irrelevant=1, n_instances=100)      # three attributes
        self.send(data)
        ticks = self.widget.plot.getAxis("bottom")._tickLevels
        self.assertEqual([label for _, label in ticks[0]], ["1", "2", "3"])

    def test_the_legend_stands_beside_the_dots(self):
        self.send(parity(order=2, n_irrelevant=6, n_instances=150))
        plot = self.widget.plot
        self.widget.show()
        self.widget.resize(1300, 700)
        self.process_events()
        legend = plot.legend.sceneBoundingRect()
        box = plot.getPlotItem().vb.sceneBoundingRect()
        self.assertGreater(legend.width(), 50)
        self.assertGreaterEqual(legend.left(), box.right() - 1)


class TestScorePlotAtALargeFont(BigFont, EstimationWidgetTest):
    def test_a_legend_of_three_entries_leaves_the_axis_name_whole(self):
        from saved_image import saved_image
        w = self.widget
        w.alpha = 0.3                   # τ below the two informative attributes' estimates
        self.send(parity(order=2, n_irrelevant=10, n_instances=200))
        w.show()
        w.resize(w.sizeHint())
        self.process_events()
        plot = w.plot
        self.assertEqual(len(plot.legend_labels()), 3, plot.legend_labels())  # above τ, sel., τ
        label = plot.getAxis("bottom").label
        name = label.mapRectToScene(label.boundingRect())
        item = plot.getPlotItem().sceneBoundingRect()
        shown = plot.mapToScene(plot.viewport().rect()).boundingRect()
        legend = plot.legend.sceneBoundingRect()
        for what, rect in (("axis name", name), ("legend", legend)):
            with self.subTest(what):
                self.assertLessEqual(rect.bottom(), item.bottom())       # in the saved image
                self.assertLessEqual(rect.bottom(), shown.bottom())      # in the widget
        image = saved_image(w)          # the plot item, whole
        self.assertAlmostEqual(image.height() / image.width(), item.height() / item.width(),
                               delta=0.02)


class TestNPDRAtALargeFont(BigFont, EstimationWidgetTest):
    def test_the_disabled_k_field_shows_its_whole_text(self):
        # with MultiSURF's neighbourhood (NPDR's default) k is disabled and reads "MultiSURF's
        # expected number", which was cut at 12 pt
        w = self.widget
        self.choose("NPDR")
        w.show()
        w.resize(w.sizeHint())
        self.process_events()
        spin = w.editors["NPDR"].controls["k"]
        self.assertFalse(spin.isEnabled())
        self.assertEqual(spin.text(), "MultiSURF's expected number")
        edit = spin.lineEdit()
        self.assertLessEqual(edit.fontMetrics().horizontalAdvance(spin.text()), edit.width())


class TestShowingAResult(EstimationWidgetTest):
    def test_new_data_start_one_estimation(self):
        # setting the compared estimators' enabled state emitted itemChanged, and each
        # restarted the estimation: five tasks started (four cancelled) for each new data
        w = self.widget
        started = []
        start = w.start
        w.start = lambda *args: (started.append(args), start(*args))
        self.send(self.parity)
        self.assertEqual(len(started), 1)
        self.send(parity(order=2, n_irrelevant=3, n_instances=60))
        self.assertEqual(len(started), 2)
        w.compare_model.item(1).setCheckState(Qt.Checked)       # a real change restarts
        self.wait_until_finished(timeout=TIMEOUT)
        self.assertEqual(len(started), 3)
        self.assertEqual(w.compared, [w.compare_model.item(1).text()])

    def test_the_loaded_modules_objects_are_left_out_of_full_collections(self):
        # a full garbage collection traversing the 300,000 objects of numba, scipy, Orange
        # and the canvas held the canvas for up to a second while the first result showed
        import gc
        self.assertGreater(gc.get_freeze_count(), 100_000)


class TestSavingAndCopying(EstimationWidgetTest):
    """Save Image and Copy Image to Clipboard (Orange's ``graph_name``), Ctrl+C in the table,
    the report's numbers and the messages' capitals."""
    def setUp(self):
        super().setUp()
        self.send(self.parity)

    def test_save_image_writes_the_score_plot(self):
        from AnyQt.QtWidgets import QApplication
        from saved_image import n_colours, saved_image
        w = self.widget
        w.show()
        w.resize(1300, 700)
        self.process_events()
        image = saved_image(w)
        self.assertFalse(image.isNull())
        self.assertGreater(image.width(), 300)
        self.assertGreater(n_colours(image), 2)               # not a blank picture
        QApplication.clipboard().clear()
        w.copy_to_clipboard()
        self.assertFalse(QApplication.clipboard().image().isNull())

    def test_ctrl_c_copies_the_selected_rows(self):
        from AnyQt.QtTest import QTest
        from AnyQt.QtWidgets import QApplication
        w = self.widget
        w.controls.n_selected.setValue(2)
        w.set_selection_method(w.SelectNBest)
        QApplication.clipboard().clear()
        w.ranks_view.setFocus()
        QTest.keyClick(w.ranks_view, Qt.Key_C, Qt.ControlModifier)
        lines = [line.split("\t") for line in QApplication.clipboard().text().splitlines()]
        self.assertEqual(lines[0][:3], ["Attribute", "#", "ReliefF"])
        self.assertEqual(sorted(line[0] for line in lines[1:]), ["I1", "I2"])
        self.assertEqual([line[1] for line in lines[1:]], ["2", "2"])     # binary attributes
        scores = dict(zip([a.name for a in self.parity.domain.attributes], w.result.scores))
        for line in lines[1:]:
            self.assertAlmostEqual(float(line[2]), scores[line[0]], places=2)

    def test_report_writes_the_number_of_values_as_an_integer(self):
        import re
        self.widget.send_report()
        cells = re.findall(r"<td[^>]*>([^<]*)</td>", self.widget.report_html)
        self.assertIn("2", cells)
        self.assertNotIn("2.0", cells)

    def test_messages_begin_with_a_capital_letter(self):
        from orangecontrib.relief.widgets.owinteractingpairs import OWInteractingPairs
        from orangecontrib.relief.widgets.owlocalityprofile import OWLocalityProfile
        from orangecontrib.relief.widgets.owoblivioustree import OWObliviousTree
        from orangecontrib.relief.widgets.owrelieftree import OWReliefTree
        for cls in (OWAttributeEstimation, OWLocalityProfile, OWReliefTree, OWObliviousTree,
                    OWInteractingPairs):
            for group in ("Error", "Warning", "Information"):
                for name, msg in vars(getattr(cls, group)).items():
                    text = getattr(msg, "formatted", None)
                    if isinstance(text, str) and text[:1].isalpha():
                        with self.subTest(widget=cls.__name__, message=name):
                            self.assertTrue(text[0].isupper(), text)
        # an estimator's refusal (the API's messages begin in lower case) is shown as a
        # sentence
        w = self.widget
        w.on_exception(ValueError("alpha must be in (0, 1], got 2"))
        self.assertEqual(w.Error.unsuitable.formatted, "Alpha must be in (0, 1], got 2")


class TestNamesStayInView(EstimationWidgetTest):
    """The attribute names shown over the table's left edge (so that they stay in view while
    the estimates scroll) select, sort and copy as the table does."""
    def setUp(self):
        super().setUp()
        self.send(self.parity)
        self.widget.show()
        self.process_events()

    def test_a_click_on_a_name_selects_its_row_for_the_output_and_ctrl_c(self):
        from AnyQt.QtTest import QTest
        from AnyQt.QtWidgets import QApplication
        w = self.widget
        names = w.ranks_view.names_view
        index = w.ranks_model.index(3, 0)
        QTest.mouseClick(names.viewport(), Qt.LeftButton, pos=names.visualRect(index).center())
        self.assertEqual(w.selection_method, w.SelectManual)
        self.assertEqual([i.row() for i in w.ranks_view.selectionModel().selectedRows()], [3])
        name = w.ranks_model.data(index)
        reduced = self.get_output(w.Outputs.reduced_data)
        self.assertEqual([a.name for a in reduced.domain.attributes], [name])
        QApplication.clipboard().clear()
        QTest.keyClick(w.ranks_view, Qt.Key_C, Qt.ControlModifier)
        lines = [line.split("\t") for line in QApplication.clipboard().text().splitlines()]
        self.assertEqual([line[0] for line in lines], ["Attribute", name])

    def test_a_click_on_the_names_header_sorts_by_name(self):
        from AnyQt.QtCore import QPoint
        from AnyQt.QtTest import QTest
        w = self.widget
        header = w.ranks_view.names_view.horizontalHeader()
        QTest.mouseClick(header.viewport(), Qt.LeftButton,
                         pos=QPoint(header.sectionSize(0) // 2, header.height() // 2))
        self.assertEqual(w.sorting[0], 0)
        self.assertEqual(w.ranks_view.horizontalHeader().sortIndicatorSection(), 0)
        rows = [str(w.ranks_model.data(w.ranks_model.index(r, 0)))
                for r in range(w.ranks_model.rowCount())]
        descending = w.sorting[1] == enum2int(Qt.DescendingOrder)
        self.assertEqual(rows, sorted(rows, reverse=descending))
        self.assertEqual(len(rows), len(self.parity.domain.attributes))


class TestCovariates(EstimationWidgetTest):
    """The covariates' chooser: NPDR adjusted as a direct call, the chooser disabled for
    estimators that do not adjust, the messages and the stored choice."""
    N_IRRELEVANT, N_INSTANCES = 4, 120

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        rng = np.random.default_rng(0)
        n = len(cls.parity)
        cls.age = rng.normal(50, 10, n).round()
        cls.sex = rng.integers(0, 2, n)
        from Orange.data import ContinuousVariable, DiscreteVariable, StringVariable
        domain = cls.parity.domain
        metas = [ContinuousVariable("age"), DiscreteVariable("sex", values=("f", "m")),
                 StringVariable("id")]
        M = np.array([[a, s, f"p{i}"] for i, (a, s) in enumerate(zip(cls.age, cls.sex))],
                     dtype=object)
        cls.data = Table.from_numpy(Domain(domain.attributes, domain.class_var, metas),
                                    cls.parity.X, cls.parity.Y, metas=M)

    def npdr_on_data(self, *covariates):
        """NPDR chosen, the data with metas sent, ``covariates`` chosen."""
        self.choose("NPDR")
        self.send(self.data)
        if covariates:
            self.choose_covariates(*covariates)
        return self.widget

    def choose_covariates(self, *names):
        w = self.widget
        w.covariates = [w.input_data.domain[name] for name in names]
        w._on_covariates_changed()
        self.wait_until_finished(timeout=TIMEOUT)

    def direct_npdr(self, columns, covariates, discrete):
        """NPDR by the engine's public API on the parity attributes ``columns`` with the
        given covariate values."""
        from orangecontrib.relief.estimators import NPDR, encode
        from orangecontrib.relief.estimators.encoding import as_covariates
        X = self.parity.X[:, columns]
        return NPDR()(encode(X, self.parity.Y, discrete=True,
                             n_values=[2] * X.shape[1], n_classes=2,
                             covariates=as_covariates(np.column_stack(covariates), len(X),
                                                      discrete=discrete)))

    def test_chosen_covariates_give_the_estimates_of_a_direct_npdr_call(self):
        w = self.widget
        self.choose("NPDR")
        self.send(self.data)
        self.assertTrue(w.covariate_view.isEnabled())
        self.assertFalse(w.covariate_note.isVisibleTo(w))
        unadjusted = self.get_output(w.Outputs.scores).X[:, 0]
        self.choose_covariates("age", "sex")
        self.assertFalse(w.Error.active)
        expected = self.direct_npdr(slice(None), [self.age, self.sex], [False, True])
        scores = self.get_output(w.Outputs.scores).X[:, 0]
        np.testing.assert_allclose(scores, expected, rtol=1e-10)
        self.assertFalse(np.allclose(scores, unadjusted))
        self.assertEqual(self.get_output(w.Outputs.scorer).covariates, ("age", "sex"))
        w.send_report()
        self.assertIn("age, sex", w.report_html)

    def test_an_attribute_chosen_as_covariate_is_not_estimated(self):
        w = self.npdr_on_data("R1")
        table = self.get_output(w.Outputs.scores)
        names = [a.name for a in self.parity.domain.attributes]
        self.assertEqual(list(table.metas[:, 0]), [n for n in names if n != "R1"])
        r1 = names.index("R1")
        expected = self.direct_npdr([i for i in range(len(names)) if i != r1],
                                    [self.parity.X[:, r1]], True)
        np.testing.assert_allclose(table.X[:, 0], expected, rtol=1e-10)
        reduced = self.get_output(w.Outputs.reduced_data)
        self.assertIn("R1", [m.name for m in reduced.domain.metas])
        self.choose("ReliefF")               # not in use: every attribute estimated again
        self.assertEqual(len(self.get_output(w.Outputs.scores)), len(names))

    def test_an_estimator_that_does_not_adjust_disables_the_chooser(self):
        w = self.npdr_on_data("sex")
        self.choose("ReliefF")
        self.assertFalse(w.covariate_view.isEnabled())
        self.assertTrue(w.covariate_note.isVisibleTo(w))
        self.assertEqual(w.covariate_note.text(),
                         "ReliefF does not adjust for covariates; the estimators NPDR and "
                         "Allelic trend test do.")
        self.assertIn("does not adjust", w.covariate_view.toolTip())
        self.assertIsNone(self.get_output(w.Outputs.scorer).covariates)
        expected = ReliefF()(encode_table(self.parity)[0])
        np.testing.assert_allclose(self.get_output(w.Outputs.scores).X[:, 0], expected)
        self.assertFalse(w.Error.active)
        self.choose("NPDR")                      # the choice is kept
        self.assertEqual(w.covariates_in_use(), ("sex",))
        self.assertIn("Bioinformatics 2020", w.covariate_tip)

    def test_stir_and_estimators_that_do_not_adjust_are_said(self):
        w = self.npdr_on_data("age")
        w.significance_method = [m for _, m in SIGNIFICANCE].index("stir")
        w._on_significance_changed()
        self.wait_until_finished(timeout=TIMEOUT)
        # one warning, one advice (NPDR's regression test adjusts for the covariates)
        self.assertEqual([m.formatted for m in w.Warning.active], [
            "STIR tests Relief, ReliefF, SURF and MultiSURF of a categorical target, without "
            "covariates; choose Regression (NPDR) or Permutations for NPDR."])
        w.compared = ["ReliefF"]
        w.restart()
        self.wait_until_finished(timeout=TIMEOUT)
        self.assertFalse(w.Error.active)
        self.assertEqual(w.Information.unadjusted.formatted,
                         "Only the estimators NPDR and Allelic trend test take the covariates "
                         "into account; ReliefF ignores them.")
        w.compared = ["ReliefF", "MultiSURF"]
        w.restart()
        self.wait_until_finished(timeout=TIMEOUT)
        self.assertTrue(w.Information.unadjusted.formatted.endswith(
            "; ReliefF and MultiSURF ignore them."))
        w.compared = ["ReliefF"]
        w.restart()
        self.wait_until_finished(timeout=TIMEOUT)
        table = self.get_output(w.Outputs.scores)       # ReliefF's STIR, unadjusted
        expected = stir(ReliefF(), encode_table(self.parity)[0], random_state=0)
        np.testing.assert_allclose(table.X[:, 2], expected.pvalues)
        self.assertEqual(len(w.Warning.active), 1)
        self.assertIn("Regression (NPDR)", w.Warning.no_stir.formatted)
        # permutations of NPDR adjust: no STIR message
        w.significance_method = [m for _, m in SIGNIFICANCE].index("permutation")
        w.n_permutations = 9
        w._on_significance_changed()
        self.wait_until_finished(timeout=TIMEOUT)
        self.assertFalse(w.Warning.no_stir.is_shown())
        self.assertFalse(w.Error.active)

    def test_regression_test_with_covariates_equals_the_engine(self):
        from orangecontrib.relief.estimators import NPDR, encode
        from orangecontrib.relief.estimators.encoding import as_covariates
        w = self.npdr_on_data("sex")
        w.significance_method = [m for _, m in SIGNIFICANCE].index("npdr")
        w._on_significance_changed()
        self.wait_until_finished(timeout=TIMEOUT)
        self.assertFalse(w.Error.active)
        self.assertFalse(w.Warning.active)
        table = self.get_output(w.Outputs.scores)
        X = self.parity.X
        data = encode(X, self.parity.Y, discrete=True, n_values=[2] * X.shape[1], n_classes=2,
                      covariates=as_covariates(self.sex, len(X), discrete=True))
        expected = NPDR().test(data, random_state=0)     # within the groups of equal sex
        np.testing.assert_allclose(table.X[:, 0], expected.statistics, rtol=1e-10)
        np.testing.assert_allclose(table.X[:, 1], expected.pvalues)
        np.testing.assert_allclose(table.X[:, 2], expected.qvalues)
        unadjusted = NPDR().test(encode_table(self.parity)[0], random_state=0)
        self.assertFalse(np.allclose(table.X[:, 0], unadjusted.statistics))

    def test_missing_covariate_values_text_metas_and_only_covariates_are_messages(self):
        w = self.widget
        self.choose("NPDR")
        data = self.data.copy()
        with data.unlocked(data.metas):
            data.metas[5, 0] = np.nan
        self.send(data)
        self.choose_covariates("age")
        self.wait_until_finished(widget=w)
        # as PLINK: the instance is left out, and the widget says so
        self.assertFalse(w.Error.unsuitable.is_shown())
        self.assertTrue(w.Information.missing_covariates.is_shown())
        self.assertIn("1 instances with a missing covariate value are left out",
                      w.Information.missing_covariates.formatted)
        self.assertIsNotNone(self.get_output(w.Outputs.scores))
        model = w.covariate_model
        row = [v.name for v in model].index("id")
        self.assertFalse(model.flags(model.index(row)) & Qt.ItemIsSelectable)
        self.assertIn("cannot be a covariate", model.data(model.index(row), Qt.ToolTipRole))
        self.choose_covariates(*[a.name for a in self.parity.domain.attributes])
        self.assertTrue(w.Error.only_covariates.is_shown())
        self.choose_covariates("sex")
        self.assertFalse(w.Error.active)

    def test_a_change_of_covariates_cancels_the_running_estimation(self):
        w = self.npdr_on_data()
        w.covariates = [w.input_data.domain["age"]]
        w._on_covariates_changed()               # started, not waited for
        first = w.task
        self.choose_covariates("sex")
        self.assertTrue(first is None or first.is_interruption_requested())
        expected = self.direct_npdr(slice(None), [self.sex], True)
        np.testing.assert_allclose(self.get_output(w.Outputs.scores).X[:, 0], expected,
                                   rtol=1e-10)

    def test_covariates_are_stored_with_the_domain(self):
        w = self.npdr_on_data("sex")
        settings = w.settingsHandler.pack_data(w)
        widget = self.create_widget(OWAttributeEstimation, stored_settings=settings)
        self.send_signal(widget.Inputs.data, self.data, widget=widget)
        self.wait_until_finished(widget=widget, timeout=TIMEOUT)
        self.assertEqual(widget.covariates_in_use(), ("sex",))
        selected = widget.covariate_view.selectionModel().selectedRows()
        self.assertEqual([widget.covariate_model[i.row()].name for i in selected], ["sex"])
        # other data: none chosen
        self.send_signal(widget.Inputs.data, self.parity, widget=widget)
        self.wait_until_finished(widget=widget, timeout=TIMEOUT)
        self.assertEqual(widget.covariates, [])

    def test_settings_of_version_3_load_without_covariates(self):
        # as the widget before covariates stored them (settingsHandler.pack_data)
        from orangewidget.settings import Context
        attributes = {a.name: 1 for a in self.parity.domain.attributes}
        attributes[self.parity.domain.class_var.name] = 1
        context = Context(
            values={"n_selected": (5, -2), "selected_attrs": ([("I1", 101), ("R2", 101)], -3),
                    "selection_method": (0, -2), "__version__": 3},
            attributes=attributes, metas={"age": 2, "sex": 1, "id": 3})
        old = {"estimator_name": "NPDR", "compared": [], "significance_method": 0,
               "estimator_params": {"NPDR": {"neighbourhood": "multisurf", "k": None,
                                             "iterations": None, "random_state": None}},
               "sorting": (2, 1), "context_settings": [context], "__version__": 3}
        w = self.create_widget(OWAttributeEstimation, stored_settings=old)
        self.send_signal(w.Inputs.data, self.data, widget=w)
        self.wait_until_finished(widget=w, timeout=TIMEOUT)
        self.assertFalse(w.Error.active)
        self.assertEqual(w.covariates, [])
        self.assertEqual(w.selection_method, w.SelectManual)
        self.assertEqual([a.name for a in self.get_output(w.Outputs.features, widget=w)],
                         ["I1", "R2"])
