"""Missing genotype calls in the Attribute Estimation and Interacting Pairs widgets: a warning
of what they cost while they keep the estimators off the bit-plane path, the option that fills
them with each SNP's most frequent genotype (the estimates then those of a table filled
independently here, by ``np.unique`` counts per column), and settings stored before the option
existed."""
import numpy as np
from Orange.data import ContinuousVariable, DiscreteVariable, Domain, Table
from Orange.widgets.tests.base import WidgetTest

from orangecontrib.relief.estimators.interactions import interacting_pairs
from orangecontrib.relief.estimators.relieff import ReliefF
from orangecontrib.relief.estimators.surf import MultiSURF
from orangecontrib.relief.orange_data import encode_table
from orangecontrib.relief.widgets.owattributeestimation import OWAttributeEstimation
from orangecontrib.relief.widgets.owinteractingpairs import OWInteractingPairs

#: generous: the first estimate in a fresh kernel cache compiles
TIMEOUT = 240000
N_SNPS = 70


def genotypes(share=0.02, seed=0, n=60):
    """``n`` individuals x 70 SNPs (0, 1, 2), the class following SNP 0 and SNP 1 together,
    ``share`` of the calls missing (none of the class)."""
    rng = np.random.default_rng(seed)
    X = rng.binomial(2, 0.4, (n, N_SNPS)).astype(float)
    y = ((X[:, 0] > 0) != (X[:, 1] > 0)).astype(float)
    X[rng.random(X.shape) < share] = np.nan
    domain = Domain([DiscreteVariable(f"rs{i}", values=("0", "1", "2"))
                     for i in range(N_SNPS)],
                    DiscreteVariable("status", values=("control", "case")))
    return Table.from_numpy(domain, X, y)


def filled_by_hand(table):
    """``table`` with each SNP's missing calls set to its most frequent call (the smaller of a
    tie: np.unique sorts and argmax takes the first)."""
    X = table.X.copy()
    for j in range(X.shape[1]):
        known = X[~np.isnan(X[:, j]), j]
        levels, counts = np.unique(known, return_counts=True)
        X[np.isnan(X[:, j]), j] = levels[np.argmax(counts)]
    return Table.from_numpy(table.domain, X, table.Y)


class TestMissingCalls(WidgetTest):
    def setUp(self):
        self.widget = self.create_widget(OWAttributeEstimation)

    def send(self, data, widget=None):
        widget = widget or self.widget
        self.send_signal(widget.Inputs.data, data, widget=widget)
        self.wait_until_finished(widget=widget, timeout=TIMEOUT)

    def scores(self):
        return self.get_output(self.widget.Outputs.scores).X[:, 0]

    def test_missing_calls_warn_of_the_cost_and_filling_them_gives_the_filled_estimates(self):
        w = self.widget
        data = genotypes()
        missing = int(np.isnan(data.X).sum())
        self.send(data)
        self.assertEqual(w.estimator_name, "ReliefF")
        self.assertTrue(w.Warning.missing_calls.is_shown())
        self.assertIn(f"{missing} missing genotype calls", w.Warning.missing_calls.formatted)
        self.assertIn("many times as long", w.Warning.missing_calls.formatted)
        self.assertFalse(w.Information.filled_calls.is_shown())
        with_missing = self.scores()
        w.controls.impute_calls.click()
        self.assertTrue(w.impute_calls)
        self.wait_until_finished(timeout=TIMEOUT)
        self.assertFalse(w.Warning.missing_calls.is_shown())
        self.assertTrue(w.Information.filled_calls.is_shown())
        self.assertIn(f"{missing} missing values filled", w.Information.filled_calls.formatted)
        expected = ReliefF()(encode_table(filled_by_hand(data))[0])
        np.testing.assert_allclose(self.scores(), expected)
        self.assertGreater(np.abs(with_missing - expected).max(), 1e-3)  # the option matters
        # complete data: nothing to say, with the option on or off
        self.send(filled_by_hand(data))
        self.assertFalse(w.Warning.missing_calls.is_shown())
        self.assertFalse(w.Information.filled_calls.is_shown())
        w.controls.impute_calls.click()
        self.wait_until_finished(timeout=TIMEOUT)
        self.assertFalse(w.Warning.missing_calls.is_shown())

    def test_no_warning_where_filling_would_not_give_the_fast_path(self):
        data = genotypes()
        numeric = data.transform(Domain(data.domain.attributes[:-1] + (ContinuousVariable("x"),),
                                        data.domain.class_var))
        self.send(numeric)
        self.assertFalse(self.widget.Warning.missing_calls.is_shown())
        self.assertFalse(self.widget.Error.active)

    def test_settings_stored_before_the_option_load_and_the_option_is_stored(self):
        old = {"estimator_name": "MultiSURF", "compared": [], "__version__": 5}
        w = self.create_widget(OWAttributeEstimation, stored_settings=old)
        self.assertEqual(w.estimator_name, "MultiSURF")
        self.assertFalse(w.impute_calls)
        self.assertFalse(w.controls.impute_calls.isChecked())
        w.controls.impute_calls.click()
        stored = self.widget.settingsHandler.pack_data(w)
        self.assertTrue(stored["impute_calls"])
        again = self.create_widget(OWAttributeEstimation, stored_settings=stored)
        self.assertTrue(again.controls.impute_calls.isChecked())

    def test_interacting_pairs_ranking_warns_and_the_option_tests_the_filled_data(self):
        w = self.create_widget(OWInteractingPairs, stored_settings={
            "top": 3, "n_permutations": 19, "random_state": 1, "__version__": 1})
        self.assertFalse(w.impute_calls)
        # the ranking path (the automatic choice scans every pair of so few attributes, and
        # the scan keeps missing calls on its fast path: no warning there)
        w.choice_buttons.button(w.BestRanked).click()
        data = genotypes(seed=2)
        self.send_signal(w.Inputs.data, data, widget=w)
        self.assertEqual(w.attribute_choice, w.BestRanked)
        self.wait_until_finished(widget=w, timeout=TIMEOUT)
        self.assertTrue(w.Warning.missing_calls.is_shown())
        w.controls.impute_calls.click()
        self.wait_until_finished(widget=w, timeout=TIMEOUT)
        self.assertFalse(w.Warning.missing_calls.is_shown())
        self.assertTrue(w.Information.filled_calls.is_shown())
        encoded = encode_table(filled_by_hand(data))[0]
        expected = interacting_pairs(encoded, top=3, estimator=MultiSURF(),
                                     n_permutations=19, random_state=1)
        pairs = w.result.pairs
        self.assertEqual(list(zip(pairs.first, pairs.second)),
                         list(zip(expected.first, expected.second)))
        np.testing.assert_allclose(pairs.statistics, expected.statistics)
        np.testing.assert_allclose(pairs.pvalues, expected.pvalues)
