"""The Orange Scorer adapters: scripting calls, Rank's Scorer input, and bad input."""
import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from Orange.data import (ContinuousVariable, DiscreteVariable, Domain, StringVariable, Table,
                         Variable)
from AnyQt.QtCore import Qt
from AnyQt.QtWidgets import QStyle
from Orange.widgets.data.owrank import OWRank
from Orange.widgets.tests import base as widget_test

from orangecontrib.relief import scoring
from orangecontrib.relief.estimators import encode
from orangecontrib.relief.estimators.relieff import ReliefF as EngineReliefF
from orangecontrib.relief.orange_data import encode_table


def table(X, y, discrete_class=True, metas=None):
    X = np.asarray(X, dtype=float)
    attrs = [ContinuousVariable(f"a{i}") for i in range(X.shape[1])]
    if discrete_class:
        cls = DiscreteVariable("y", values=("0", "1", "2"))
    else:
        cls = ContinuousVariable("y")
    meta_vars = [StringVariable("name")] if metas is not None else []
    return Table.from_numpy(Domain(attrs, cls, meta_vars), X, np.asarray(y, dtype=float),
                            metas=None if metas is None else np.asarray(metas, object)[:, None])


@pytest.fixture(scope="module")
def iris():
    return Table("iris")


def test_scripting_call_returns_one_estimate_per_attribute_equal_to_the_engine(iris):
    scores = scoring.ReliefF(k=7)(iris)
    X = iris.X
    engine = EngineReliefF(k=7)(encode(X, iris.Y, n_classes=3))
    assert scores.shape == (4,)
    np.testing.assert_allclose(scores, engine, rtol=1e-12)


def test_scoring_one_attribute_by_variable_name_or_index(iris):
    scorer = scoring.ReliefF()
    all_scores = scorer(iris)
    var = iris.domain.attributes[2]
    assert scorer(iris, var) == pytest.approx(all_scores[2])
    assert scorer(iris, var.name) == pytest.approx(all_scores[2])
    assert scorer(iris, 2) == pytest.approx(all_scores[2])
    with pytest.raises(ValueError, match="not an attribute"):
        scorer(iris, "no such")


def test_score_data_is_two_dimensional_for_rank(iris):
    assert scoring.ReliefF().score_data(iris).shape == (1, 4)


def test_scorers_are_hashable_picklable_and_keep_parameters(iris):
    scorer = scoring.ReliefF(k=3, missing="B")
    assert hash(scorer) != hash(scoring.ReliefF(k=3, missing="B"))
    clone = pickle.loads(pickle.dumps(scorer))
    assert clone.k == 3 and clone.missing == "B"
    np.testing.assert_array_equal(clone(iris), scorer(iris))
    assert "k=3" in repr(scorer)


def test_every_scorer_has_a_name_and_scores_data_of_its_target_type():
    cls_data, reg_data = Table("zoo"), Table("housing")[:120]
    for cls in scoring.SCORERS:
        scorer = cls()
        assert scorer.name
        fits = [d for d in (cls_data, reg_data) if _fits(scorer, d)]
        assert fits, cls
        for data in fits:
            assert scorer(data).shape == (len(data.domain.attributes),)


def _fits(scorer, data):
    try:
        scorer(data)
        return True
    except ValueError as error:
        assert "target" in str(error)
        return False


def test_names_show_parameters_and_differ_from_ranks_built_in_columns():
    # ReliefF and RReliefF always name their k, so ours differ from Rank's ReliefF and
    # RReliefF; the short names fit Rank's 80-pixel columns (tests/widgets/test_rank_headers)
    assert scoring.ReliefF().name == "RF k10"
    assert scoring.ReliefF(k=10, weighting="equal").name == "RF k10"
    assert scoring.ReliefF(k=5, missing="B").name == "RF k5 missing=B"
    assert scoring.RReliefF().name == "RRF k70"
    assert scoring.ReliefF.corelearn().name == "RF k10 preset=corelearn"
    assert scoring.Relief().name == "Relief"
    assert scoring.Relief(k=3).name == "Relief k=3"
    assert scoring.ReliefFbestK().name == "RFbestK"      # its own, not ReliefF's
    assert scoring.Gini().name == "Gini g."
    assert scoring.InfGain().name == "InfGain"
    assert scoring.MultiSURF().name == "MSURF"
    assert scoring.ContextualMerit().name == "C. Merit"
    assert scoring.ContextualMerit.name == "Contextual Merit"     # the class: its stem


def test_scorer_by_name_finds_class_and_display_names():
    assert scoring.scorer_by_name("relieff") is scoring.ReliefF
    assert scoring.scorer_by_name("Contextual Merit") is scoring.ContextualMerit
    with pytest.raises(ValueError, match="unknown estimator"):
        scoring.scorer_by_name("nope")


def test_missing_class_values_are_left_out():
    rng = np.random.default_rng(0)
    X = rng.random((40, 3))
    y = (X[:, 0] > 0.5).astype(float)
    with_missing = np.concatenate([y, [np.nan, np.nan]])
    data = table(np.vstack([X, rng.random((2, 3))]), with_missing)
    np.testing.assert_allclose(scoring.ReliefF()(data), scoring.ReliefF()(table(X, y)),
                               rtol=1e-12)
    _, rows = encode_table(data)
    np.testing.assert_array_equal(rows, np.arange(40))


def test_meta_and_string_columns_are_ignored():
    rng = np.random.default_rng(1)
    X = rng.random((20, 2))
    y = (X[:, 0] > 0.5).astype(float)
    with_metas = table(X, y, metas=[f"row{i}" for i in range(20)])
    np.testing.assert_allclose(scoring.ReliefF()(with_metas), scoring.ReliefF()(table(X, y)))


BAD_TABLES = [
    (lambda: Table.from_numpy(Domain([ContinuousVariable("a")]), np.zeros((3, 1))),
     "no target"),
    (lambda: table(np.zeros((0, 2)), np.zeros(0)), "empty"),
    (lambda: table([[1.0, 2.0]], [0]), "at least 2 instances"),
    (lambda: table(np.random.default_rng(0).random((6, 2)), np.zeros(6)), "two classes"),
    (lambda: _with_inf(table([[0.5, 1.0], [0.0, 2.0]], [0, 1])), "infinite"),
    (lambda: table([[0.0], [1.0]], [np.nan, np.nan]), "missing class"),
    (lambda: Table.from_numpy(Table("iris").domain, sp.csr_matrix(
        np.where(np.arange(150)[:, None] == 3, np.nan, Table("iris").X)), Table("iris").Y),
     "sparse data with missing values"),
]


def _with_inf(data):
    # Table.from_numpy turns inf into NaN; a table edited in place can still hold one
    with data.unlocked():
        data.X[0, 0] = np.inf
    return data


@pytest.mark.parametrize("make,message", BAD_TABLES)
def test_bad_tables_raise_clear_value_errors(make, message):
    with pytest.raises(ValueError, match=message):
        scoring.ReliefF()(make())


def test_wrong_class_type_is_a_clear_error():
    with pytest.raises(ValueError, match="classification target"):
        scoring.ReliefF()(Table("housing"))
    with pytest.raises(ValueError, match="regression target"):
        scoring.RReliefF()(Table("iris"))


def test_constant_and_all_missing_columns_get_zero_and_nan():
    rng = np.random.default_rng(2)
    X = np.column_stack([rng.random(30), np.full(30, 1.0), np.full(30, np.nan)])
    y = (X[:, 0] > 0.5).astype(float)
    scores = scoring.ReliefF()(table(X, y))
    assert scores[1] == 0.0 and np.isnan(scores[2]) and scores[0] > 0.3


def test_k_larger_than_a_class_uses_the_whole_class():
    # k is capped by the class size (CORElearn): k = 100 on 30 instances equals k = all
    rng = np.random.default_rng(3)
    X = rng.random((30, 2))
    y = (X[:, 0] > 0.5).astype(float)
    data = table(X, y)
    largest = int(np.bincount(y.astype(int)).max())
    np.testing.assert_allclose(scoring.ReliefF(k=100)(data), scoring.ReliefF(k=largest)(data))


class TestScorerInRank(widget_test.WidgetTest):
    """Our scorers on Orange's Rank widget (offscreen) give the numbers scripts give."""

    def setUp(self):
        self.widget = self.create_widget(OWRank)

    def scores_by_column(self):
        out = self.get_output(self.widget.Outputs.scores)
        return {var.name: out.X[:, i] for i, var in enumerate(out.domain.attributes)}

    def test_rank_shows_our_scores_beside_its_own(self):
        data = Table("zoo")
        self.send_signal(self.widget.Inputs.data, data)
        self.send_signal(self.widget.Inputs.scorer, scoring.ReliefF(k=5), 1)
        self.send_signal(self.widget.Inputs.scorer, scoring.ContextualMerit(), 2)
        self.wait_until_finished()
        columns = self.scores_by_column()
        np.testing.assert_allclose(columns["RF k5"], scoring.ReliefF(k=5)(data),
                                   rtol=1e-10)
        np.testing.assert_allclose(columns["C. Merit"],
                                   scoring.ContextualMerit()(data), rtol=1e-10)
        assert len(columns) >= 3           # Rank's own methods stay beside ours

    def test_rank_copes_with_regression_and_missing_classes(self):
        housing = Table("housing")
        self.send_signal(self.widget.Inputs.data, housing)
        self.send_signal(self.widget.Inputs.scorer, scoring.RReliefF(k=10), 1)
        self.send_signal(self.widget.Inputs.scorer, scoring.ReliefF(), 2)
        self.wait_until_finished()
        columns = self.scores_by_column()
        np.testing.assert_allclose(columns["RRF k10"], scoring.RReliefF(k=10)(housing),
                                   rtol=1e-10)
        # ReliefF does not suit a numeric target: Orange 3.40's Rank takes every input scorer
        # as unsupervised (ProblemType.from_variable tests isinstance on the class_type
        # class), so it runs it and shows an empty column (its Scores output turns NaN into
        # -1.797e308), no crash
        assert np.all(columns["RF k10"] < -1e300)

    def headers(self):
        model = self.widget.ranksModel
        return [model.headerData(i, Qt.Orientation.Horizontal, Qt.ItemDataRole.DisplayRole)
                for i in range(2, model.columnCount())]

    def rank_all(self, check):
        """All our scorers on Rank with a categorical and then a numeric class; ``check(task,
        suitable names, unsuitable names, headers)`` after each."""
        scorers = [cls() for cls in scoring.SCORERS]
        for i, scorer in enumerate(scorers):
            self.send_signal(self.widget.Inputs.scorer, scorer, i)
        for data, task in ((Table("zoo")[:40], "classification"),
                           (Table("housing")[:60], "regression")):
            self.send_signal(self.widget.Inputs.data, data)
            self.wait_until_finished(timeout=60000)
            check(task, [s.name for s in scorers if task in s.tasks],
                  [s.name for s in scorers if task not in s.tasks], self.headers())

    def test_every_scorer_in_rank_has_its_own_name_that_fits(self):
        """The headers of our scorers are distinct, not Rank's own, fit its fixed 80-pixel
        columns, and the columns of the scorers that suit the target are filled."""
        from Orange.widgets.data.owrank import SCORES
        own = {method.shortname.lower() for method in SCORES} | \
            {method.name.lower() for method in SCORES}
        header = self.widget.ranksView.horizontalHeader()
        width = header.defaultSectionSize() - 2 * header.style().pixelMetric(
            QStyle.PixelMetric.PM_HeaderMargin, None, header)

        def check(task, ours, others, headers):
            assert set(ours) <= set(headers), task
            assert len(set(ours + others)) == len(ours + others)
            assert not {n.lower() for n in ours + others} & own
            assert all(header.fontMetrics().horizontalAdvance(n) <= width
                       for n in ours + others)
            columns = self.scores_by_column()
            assert all(np.isfinite(columns[n]).any() for n in ours), task
        self.rank_all(check)

    def test_scorers_declare_the_target_they_suit(self):
        """``class_type`` follows the description's targets, as Orange's own scorers and
        learners declare it (a Rank that honours it leaves the others out with
        ``learner_adequacy_err_msg``; Orange 3.40's Rank takes every input scorer as
        unsupervised and shows an empty column instead, see above)."""
        assert scoring.ReliefF.class_type is DiscreteVariable
        assert scoring.RReliefF.class_type is ContinuousVariable
        assert scoring.MultiSURF.class_type is Variable
        assert scoring.ReliefF.learner_adequacy_err_msg == \
            "it estimates the attributes for a categorical class only"
        for cls in scoring.SCORERS:
            assert cls.class_type is scoring.class_type(cls.engine().tasks)


def test_scorers_give_p_and_q_values_of_the_table_attributes():
    data = Table("heart_disease")
    stir_result = scoring.ReliefF(k=10).significance(data)
    assert stir_result.pvalues.shape == (len(data.domain.attributes),)
    np.testing.assert_allclose(stir_result.scores, scoring.ReliefF(k=10)(data))
    assert np.nanmin(stir_result.qvalues) < 0.05 and stir_result.method == "stir"
    perm = scoring.InfGain().significance(data, method="permutation", n_permutations=9,
                                          random_state=0)
    np.testing.assert_array_equal(perm.pvalues, scoring.InfGain().significance(
        data, method="permutation", n_permutations=9, random_state=0).pvalues)
    assert set(np.round(perm.pvalues * 10)) <= set(range(1, 11))


# --- covariates: the scorers name variables of the table, as the command line does
def confounded_table(n=120, seed=0):
    """Discrete attributes, a class and the metas age (numeric), sex (categorical) and id
    (text); attribute 0 follows sex only, the class follows sex and attributes 1 and 2."""
    rng = np.random.default_rng(seed)
    sex = rng.integers(0, 2, n)
    age = rng.normal(50, 10, n).round()
    X = rng.integers(0, 3, (n, 6)).astype(float)
    X[:, 0] = rng.binomial(2, np.where(sex == 1, 0.8, 0.2))
    y = ((X[:, 1] > 0) != (X[:, 2] > 0)) ^ (rng.random(n) < np.where(sex == 1, 0.3, 0.1))
    attrs = [DiscreteVariable(f"snp{i}", values=("0", "1", "2")) for i in range(6)]
    metas = [ContinuousVariable("age"), DiscreteVariable("sex", values=("f", "m")),
             StringVariable("id")]
    domain = Domain(attrs, DiscreteVariable("case", values=("no", "yes")), metas)
    M = np.array([[a, s, f"p{i}"] for i, (a, s) in enumerate(zip(age, sex))], dtype=object)
    return Table.from_numpy(domain, X, y.astype(float), metas=M), X, y, age, sex


def test_npdr_scorer_with_named_covariates_equals_the_engine_on_encoded_covariates():
    from orangecontrib.relief.estimators.encoding import as_covariates
    from orangecontrib.relief.estimators.npdr import NPDR as EngineNPDR
    data, X, y, age, sex = confounded_table()
    covariates = as_covariates(np.c_[age, sex], len(y), discrete=[False, True])
    expected = EngineNPDR()(encode(X, y * 1.0, discrete=True, n_values=3, n_classes=2,
                                   covariates=covariates))
    scorer = scoring.NPDR(covariates=["age", "sex"])
    np.testing.assert_allclose(scorer(data), expected, rtol=1e-10)
    unadjusted = scoring.NPDR()(data)
    assert not np.allclose(unadjusted, expected)
    # a variable or a single name serve as well; order and pickling keep them
    assert scoring.NPDR(covariates=data.domain["sex"]).covariates == ("sex",)
    assert scoring.NPDR(covariates="sex").covariates == ("sex",)
    assert repr(scorer) == "NPDR(covariates=('age', 'sex'))"
    assert pickle.loads(pickle.dumps(scorer)).covariates == ("age", "sex")
    assert scorer(data, "snp3") == pytest.approx(expected[3])


def test_an_attribute_named_as_covariate_is_not_estimated_and_scores_stay_aligned():
    from orangecontrib.relief.estimators.encoding import as_covariates
    from orangecontrib.relief.estimators.npdr import NPDR as EngineNPDR
    data, X, y, _, _ = confounded_table()
    covariates = as_covariates(X[:, [0]], len(y), discrete=True)
    expected = EngineNPDR()(encode(X[:, 1:], y * 1.0, discrete=True, n_values=3, n_classes=2,
                                   covariates=covariates))
    scores = scoring.NPDR(covariates=["snp0"])(data)
    assert scores.shape == (6,) and np.isnan(scores[0])
    np.testing.assert_allclose(scores[1:], expected, rtol=1e-10)
    result = scoring.NPDR(covariates=["snp0"]).significance(data, "npdr", random_state=0)
    assert np.isnan(result.pvalues[0]) and np.isnan(result.coefficients[0])
    engine = EngineNPDR().test(encode(X[:, 1:], y * 1.0, discrete=True, n_values=3,
                                      n_classes=2, covariates=covariates), random_state=0)
    np.testing.assert_allclose(result.pvalues[1:], engine.pvalues)
    np.testing.assert_allclose(result.bonferroni[1:], engine.bonferroni)


@pytest.mark.parametrize("make, message", [
    (lambda: scoring.ReliefF(covariates=["age"]), "does not adjust for covariates"),
    (lambda: scoring.NPDR(covariates=["height"]), "no attribute or meta attribute 'height'"),
    (lambda: scoring.NPDR(covariates=["id"]), "'id' is neither categorical nor numeric"),
])
def test_covariates_a_scorer_cannot_use_are_clear_errors(make, message):
    data = confounded_table()[0]
    with pytest.raises(ValueError, match=message):
        make()(data)


def test_covariates_with_missing_values_leave_instances_out_and_bad_names_are_errors():
    data = confounded_table()[0].copy()
    with data.unlocked(data.metas):
        data.metas[3, 0] = np.nan
    # as PLINK: the instance with a missing covariate value is left out
    assert np.array_equal(scoring.NPDR(covariates="age")(data),
                          scoring.NPDR(covariates="age")(data[np.arange(len(data)) != 3]))
    with data.unlocked(data.metas):
        data.metas[:, 0] = np.nan
    with pytest.raises(ValueError, match="every instance with a class value has a missing "
                                         "covariate value"):
        scoring.NPDR(covariates="age")(data)
    with pytest.raises(ValueError, match="named by variables or their names"):
        scoring.NPDR(covariates=[3])
    with pytest.raises(ValueError, match="STIR"):
        scoring.NPDR(covariates="sex").significance(data, "stir")
    # no covariates: an empty list is none, for every scorer
    assert scoring.ReliefF(covariates=[]).covariates is None
