"""SelectAttributes, the selection as an Orange preprocessor: its rules, its refusals, and that
Orange's cross-validation runs it on every training set (features chosen per fold, not once)."""
import unittest

import numpy as np
from Orange.classification import NaiveBayesLearner
from Orange.data import DiscreteVariable, Domain, Table
from Orange.evaluation import AUC, CrossValidation

from orangecontrib.relief import ContextualMerit, ReliefF, RReliefF, SelectAttributes
from orangecontrib.relief.datasets import parity


def null_snps(n, a, seed):
    """``n`` individuals' genotypes (0, 1, 2) of ``a`` SNPs and a phenotype unrelated to them."""
    rng = np.random.default_rng(seed)
    X = rng.binomial(2, rng.uniform(0.1, 0.5, a), (n, a)).astype(float)
    y = rng.permutation(np.arange(n) % 2).astype(float)
    domain = Domain([DiscreteVariable(f"rs{i}", values=("0", "1", "2")) for i in range(a)],
                    DiscreteVariable("phenotype", values=("control", "case")))
    return Table.from_numpy(domain, X, y)


def best_names(scores, domain, n):
    """The names of the ``n`` best ``scores``, by a sort written out (ties: the first)."""
    ranked = sorted(range(len(scores)), key=lambda i: (-scores[i], i))
    return {domain.attributes[i].name for i in ranked[:n]}


class TestSelectAttributes(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.parity = parity(order=2, n_irrelevant=8, n_instances=160)

    def test_best_keeps_the_n_best_estimates_and_the_class_and_metas(self):
        reduced = SelectAttributes(ReliefF(), rule="best", n=3)(self.parity)
        scores = ReliefF()(self.parity)
        self.assertEqual({a.name for a in reduced.domain.attributes},
                         best_names(scores, self.parity.domain, 3))
        self.assertEqual(reduced.domain.class_var, self.parity.domain.class_var)
        self.assertEqual(len(reduced), len(self.parity))
        np.testing.assert_array_equal(reduced.Y, self.parity.Y)

    def test_threshold_keeps_the_estimates_above_tau_of_alpha_and_the_instances(self):
        scores = ReliefF()(self.parity)
        tau = 1 / np.sqrt(0.2 * len(self.parity))      # Kira & Rendell's τ, m = n
        chosen = SelectAttributes(ReliefF(), rule="threshold", alpha=0.2).selected(self.parity)
        expected = [self.parity.domain.attributes[i].name
                    for i in sorted(np.flatnonzero(scores > tau), key=lambda i: -scores[i])]
        self.assertEqual([a.name for a in chosen], expected)
        self.assertEqual(set(expected), {"I1", "I2"})
        # m is the estimator's iterations where fewer than the instances: τ grows
        few = SelectAttributes(ReliefF(iterations=20, random_state=1), rule="threshold",
                               alpha=0.2).selected(self.parity)
        scores20 = ReliefF(iterations=20, random_state=1)(self.parity)
        self.assertEqual({a.name for a in few},
                         {self.parity.domain.attributes[i].name
                          for i in np.flatnonzero(scores20 > 1 / np.sqrt(0.2 * 20))})

    def test_fdr_keeps_the_attributes_with_q_below_the_level(self):
        select = SelectAttributes(ReliefF(), rule="fdr", fdr=0.05, significance="stir",
                                  random_state=3)
        result = ReliefF().significance(self.parity, "stir", random_state=3)
        expected = {self.parity.domain.attributes[i].name
                    for i in np.flatnonzero(result.qvalues < 0.05)}
        self.assertEqual({a.name for a in select.selected(self.parity)}, expected)
        self.assertEqual(expected, {"I1", "I2"})

    def test_bad_rules_are_refused_with_the_reason(self):
        cases = [(SelectAttributes(ReliefF(), rule="top"), "rule must be one of"),
                 (SelectAttributes(ReliefF(), n=0), "n must be an integer"),
                 (SelectAttributes(ReliefF(), n=2.5), "n must be an integer"),
                 (SelectAttributes(ContextualMerit(), rule="threshold"), "threshold does not"),
                 (SelectAttributes(ReliefF(), rule="fdr", significance="npdr"),
                  "offers the tests"),
                 (SelectAttributes(ReliefF(), rule="fdr", significance="t-test"),
                  "significance must be one of"),
                 (SelectAttributes(ReliefF(), rule="fdr", fdr=1.5), "fdr must be in")]
        for select, message in cases:
            with self.subTest(message=message), self.assertRaisesRegex(ValueError, message):
                select(self.parity)
        regression = Table("housing")[:60]
        with self.assertRaisesRegex(ValueError, "offers the tests"):
            SelectAttributes(RReliefF(), rule="fdr", significance="stir")(regression)

    def test_same_seed_same_selection_and_the_scorer_given_is_not_changed(self):
        scorer = ReliefF(iterations=15)
        data = null_snps(80, 40, 5)
        first = SelectAttributes(scorer, n=5, random_state=7).selected(data)
        again = SelectAttributes(scorer, n=5, random_state=7).selected(data)
        self.assertEqual(first, again)
        self.assertIsNone(scorer.random_state)


class TestSelectionInsideCrossValidation(unittest.TestCase):
    def test_every_fold_selects_on_its_own_training_set(self):
        data = null_snps(90, 60, 2)
        select = SelectAttributes(ReliefF(), n=4)
        results = CrossValidation(k=3, random_state=0, stratified=False, store_models=True)(
            data, [NaiveBayesLearner()], preprocessor=select)
        chosen = []
        for fold, models in enumerate(results.models):
            test_rows = results.row_indices[results.folds[fold]]
            train = np.setdiff1d(np.arange(len(data)), test_rows)
            expected = best_names(ReliefF()(data[train]), data.domain, 4)
            names = {a.name for a in models[0].domain.attributes}
            self.assertEqual(names, expected, f"fold {fold}")
            chosen.append(names)
        # on null data the folds choose differently, and none as the whole data would
        whole = best_names(ReliefF()(data), data.domain, 4)
        self.assertGreater(len({frozenset(c) for c in chosen}), 1)
        self.assertTrue(any(c != whole for c in chosen))

    def test_honest_estimate_is_at_chance_where_selection_on_all_data_is_optimistic(self):
        # no SNP is related to the phenotype: an AUC far above 0.5 is selection bias
        data = null_snps(100, 400, 1)
        select = SelectAttributes(ReliefF(), n=10)
        validation = CrossValidation(k=5, random_state=0)
        optimistic = AUC(validation(select(data), [NaiveBayesLearner()]))[0]
        honest = AUC(validation(data, [NaiveBayesLearner()], preprocessor=select))[0]
        self.assertGreater(optimistic, 0.7)
        self.assertLess(abs(honest - 0.5), 0.12)


if __name__ == "__main__":
    unittest.main()
