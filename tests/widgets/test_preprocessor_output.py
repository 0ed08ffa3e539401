"""Attribute Estimation's Preprocessor output: the estimator and selection rule of the widget as
an Orange preprocessor, run by Orange's cross-validation on each training set."""
import numpy as np
from Orange.classification import NaiveBayesLearner
from Orange.evaluation import CrossValidation

from orangecontrib.relief import ReliefF
from orangecontrib.relief.selection import SelectAttributes
from orangecontrib.relief.widgets.owattributeestimation import SIGNIFICANCE

from test_owattributeestimation import TIMEOUT, EstimationWidgetTest


class TestPreprocessorOutput(EstimationWidgetTest):
    N_IRRELEVANT, N_INSTANCES = 8, 120

    def preprocessor(self):
        return self.get_output(self.widget.Outputs.preprocessor)

    def test_best_ranked_rule_with_the_estimators_parameters(self):
        w = self.widget
        self.choose("ReliefF", k=7)
        self.send(self.parity)
        w.n_selected = 3
        w.set_selection_method(w.SelectNBest)
        select = self.preprocessor()
        self.assertIsInstance(select, SelectAttributes)
        self.assertEqual((select.rule, select.n, select.scorer.k), ("best", 3, 7))
        # on the widget's own data it keeps what Reduced Data holds
        reduced = self.get_output(w.Outputs.reduced_data)
        self.assertEqual({a.name for a in select(self.parity).domain.attributes},
                         {a.name for a in reduced.domain.attributes})

    def test_threshold_and_q_value_rules_follow_the_widget(self):
        w = self.widget
        self.choose("ReliefF")
        self.send(self.parity)
        w.alpha = 0.1
        w.set_selection_method(w.SelectThreshold)
        select = self.preprocessor()
        self.assertEqual((select.rule, select.alpha), ("threshold", 0.1))
        w.significance_method = [s[1] for s in SIGNIFICANCE].index("stir")
        w._on_significance_changed()
        self.wait_until_finished(timeout=TIMEOUT)
        w.fdr = 0.1
        w.set_selection_method(w.SelectFDR)
        select = self.preprocessor()
        self.assertEqual((select.rule, select.fdr, select.significance), ("fdr", 0.1, "stir"))
        self.assertEqual({a.name for a in select.selected(self.parity)}, {"I1", "I2"})

    def test_manual_selection_sends_no_preprocessor_and_says_why(self):
        w = self.widget
        self.send(self.parity)
        w.set_selection_method(w.SelectManual)
        self.assertIsNone(self.preprocessor())
        self.assertTrue(w.Information.manual_preprocessor.is_shown())
        w.set_selection_method(w.SelectNBest)
        self.assertIsNotNone(self.preprocessor())
        self.assertFalse(w.Information.manual_preprocessor.is_shown())

    def test_cross_validation_selects_on_each_training_set(self):
        w = self.widget
        self.choose("ReliefF")
        self.send(self.parity)
        w.n_selected = 2
        w.set_selection_method(w.SelectNBest)
        select = self.preprocessor()
        results = CrossValidation(k=3, random_state=1, store_models=True)(
            self.parity, [NaiveBayesLearner()], preprocessor=select)
        for fold, models in enumerate(results.models):
            test_rows = results.row_indices[results.folds[fold]]
            train = self.parity[np.setdiff1d(np.arange(len(self.parity)), test_rows)]
            scores = ReliefF()(train)
            best = {train.domain.attributes[i].name for i in np.argsort(-scores)[:2]}
            self.assertEqual({a.name for a in models[0].domain.attributes}, best)
