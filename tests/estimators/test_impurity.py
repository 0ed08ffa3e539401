"""Impurity measures (orangecontrib.relief.estimators.impurity) on hand-computed tables, eq. 5
against a plain loop over instance pairs, missing values, bad inputs."""
from math import comb, log2

import numpy as np
import pytest

from orangecontrib.relief.estimators import encode
from orangecontrib.relief.estimators.impurity import (
    MDL, MSE, Accuracy, GainRatio, Gini, InfGain, MyopicReliefF)
from orangecontrib.relief.estimators.splits import target_statistics

CLASSIFICATION = [InfGain, GainRatio, Gini, MDL, Accuracy, MyopicReliefF]


def hand_table():
    """Attribute with 3 values, 2 classes; (value, class) counts:
        v0: 3 of class 0, 1 of class 1;  v1: 1, 3;  v2: 2, 0   -> n = 10, n_c = (6, 4)."""
    pairs = [(0, 0)] * 3 + [(0, 1)] + [(1, 0)] + [(1, 1)] * 3 + [(2, 0)] * 2
    x, y = np.array(pairs, dtype=float).T
    return encode(x[:, None], y, discrete=True, n_values=3, n_classes=2)


def h(*p):
    return -sum(q * log2(q) for q in p if q > 0)


# H(C) = H(.6, .4); H(C|v0) = H(C|v1) = H(.75, .25), H(C|v2) = 0, p(v) = .4 .4 .2
INF_GAIN = h(.6, .4) - (.4 * h(.75, .25) + .4 * h(.75, .25) + .2 * 0)     # = 0.3219...
HAND_VALUES = {
    InfGain: INF_GAIN,
    # H(A) = H(.4, .4, .2)
    GainRatio: INF_GAIN / h(.4, .4, .2),
    # sum_v p(v) sum_c p(c|v)^2 = .4 * (9 + 1)/16 * 2 + .2 * 1 = .7; sum_c p(c)^2 = .36 + .16
    Gini: .7 - .52,
    # (sum_v max_c n_vc - max_c n_c) / n = (3 + 3 + 2 - 6) / 10
    Accuracy: .2,
    # L(6, 4) = log2(10!/(6!4!)) + log2 C(11, 1) = log2 210 + log2 11
    # L(3, 1) = log2 4 + log2 C(5, 1); L(2, 0) = log2 1 + log2 C(3, 1)
    MDL: (log2(210) + log2(11) - 2 * (log2(4) + log2(5)) - (0 + log2(3))) / 10,
    # P_equal = .16 + .16 + .04 = .36, P_samecl = .52,
    # Gini' = (.16 * .625 * 2 + .04 * 1) / .36 - .52, W = P_equal Gini' / (.52 * .48)
    MyopicReliefF: .36 * ((.16 * .625 * 2 + .04) / .36 - .52) / (.52 * .48),
}


@pytest.mark.parametrize("estimator", CLASSIFICATION)
def test_discrete_attribute_on_hand_table(estimator):
    assert estimator()(hand_table())[0] == pytest.approx(HAND_VALUES[estimator], abs=1e-12)


def test_mdl_hand_value_by_binomials():
    # the same MDL value written with binomial coefficients: log2(2310 / (20 * 20 * 3)) / 10
    assert MDL()(hand_table())[0] == pytest.approx(
        log2(comb(10, 4) * comb(11, 1) / (comb(4, 1) * comb(5, 1)) ** 2 / comb(3, 1)) / 10)


def numeric_data():
    """x = 1..8, y = 0 0 0 1 0 1 1 1. Thresholds with 2 below / 3 above: 2.5, 3.5, 4.5, 5.5
    with (left | right) class counts [2,0|2,4], [3,0|1,4], [3,1|1,3], [4,1|0,3]."""
    x = np.arange(1, 9, dtype=float)
    y = np.array([0, 0, 0, 1, 0, 1, 1, 1], dtype=float)
    return encode(x[:, None], y, n_classes=2)


# per threshold 2.5 / 3.5 / 4.5 / 5.5 (H(C) = 1):
#   InfGain 1 - 6/8 H(1/3) = .3113 / 1 - 5/8 H(1/5) = .5488 / 1 - H(1/4) = .1887 / .5488
#   Gini    2/8 + 6/8 * 20/36 - .5 = .1667 / 3/8 + 5/8 * 17/25 - .5 = .3 / .125 / .3
#   Accuracy .25 / .375 / .25 / .375
NUMERIC_HAND = {
    InfGain: (1 - 5 / 8 * h(.2, .8), 3.5),
    Gini: (3 / 8 + 5 / 8 * 17 / 25 - .5, 3.5),
    Accuracy: (.375, 3.5),
}


@pytest.mark.parametrize("estimator", list(NUMERIC_HAND))
def test_numeric_attribute_best_split_on_hand_table(estimator):
    value, threshold = NUMERIC_HAND[estimator]
    data = numeric_data()
    assert estimator()(data)[0] == pytest.approx(value)
    stats_split = estimator().best_split(data.X[:, 0], False, 0, _stats(data))
    assert stats_split.threshold == threshold


def _stats(data):
    return target_statistics(data.y, data.n_classes)


@pytest.mark.parametrize("estimator", CLASSIFICATION)
def test_numeric_attribute_scores_as_its_best_binary_column(estimator):
    # the numeric estimate is the measure of the binarised column at the split it chose, and no
    # other admissible binarisation scores higher (the split is chosen by the measure itself)
    rng = np.random.default_rng(3)
    x = np.round(rng.normal(size=40), 1)
    y = ((x + rng.normal(scale=.7, size=40)) > 0).astype(float)
    data = encode(x[:, None], y, n_classes=2)
    est = estimator()
    value = est(data)[0]
    split = est.best_split(x, False, 0, _stats(data))
    binary = data.with_columns(split.branches(x)[:, None], discrete=True, n_values=2)
    assert est.estimate(data, binary)[0] == pytest.approx(value)
    values = np.unique(x)
    for t in (values[1:] + values[:-1]) / 2:
        if 2 <= np.sum(x <= t) <= 40 - 3:
            other = data.with_columns((x > t).astype(float)[:, None], discrete=True, n_values=2)
            assert est.estimate(data, other)[0] <= value + 1e-12


def test_mse_discrete_attribute_on_hand_table():
    # value 0: y = 1 1; value 1: y = 2 4; value 2: y = 10 10 (means 1, 3, 10)
    # {0,1}|{2}: 4/6 * var(1,1,2,4) + 2/6 * 0 = 4/6 * 1.5 = 1 (best; {0}|{1,2}: 8.5,
    # {0,2}|{1}: 4/6 * 20.25 + 2/6 * 1 = 13.83)  ->  MSE = -1
    x = np.array([0, 0, 1, 1, 2, 2], dtype=float)
    y = np.array([1, 1, 2, 4, 10, 10], dtype=float)
    assert MSE()(encode(x[:, None], y, discrete=True))[0] == pytest.approx(-1.0)


def test_mse_numeric_attribute_on_hand_table():
    # y = 1 1 1 5 5 6 at x = 1..6: at 3.5 the weighted variance is 3/6 * 2/9 = 1/9 (the
    # smallest; 2.5: 2/6*0 + 4/6*var(1,5,5,6) = 4/6 * 3.6875 = 2.46; 4.5: 4/6 * 3 = 2)
    x = np.arange(1, 7, dtype=float)
    y = np.array([1, 1, 1, 5, 5, 6], dtype=float)
    assert MSE()(encode(x[:, None], y))[0] == pytest.approx(-1 / 9)
    # with at least 2 instances below and 4 above only the threshold 2.5 remains
    assert MSE(min_lower=2, min_upper=4)(encode(x[:, None], y))[0] == pytest.approx(
        -4 / 6 * np.var([1, 5, 5, 6]))


def test_mse_single_valued_attribute_scores_minus_variance():
    y = np.array([1., 2, 3, 6])
    data = encode(np.array([[1., 0], [1, 0], [1, 0], [1, 0]]), y, discrete=[False, True])
    np.testing.assert_allclose(MSE()(data), [-np.var(y), -np.var(y)])


def test_eq5_myopic_relieff_equals_pair_loop():
    """eq. 5 (Robnik-Šikonja & Kononenko 1999) from probabilities counted over all
    ordered pairs of instances, with replacement (i = j included)."""
    rng = np.random.default_rng(11)
    n = 40
    X = rng.integers(0, 3, (n, 3)).astype(float)
    y = rng.integers(0, 3, n).astype(float)
    y[X[:, 0] == 2] = 0  # make the first attribute informative
    data = encode(X, y, discrete=True, n_values=3, n_classes=3)
    expected = []
    for a in range(3):
        equal = same = both = 0
        for i in range(n):
            for j in range(n):
                eq, sc = X[i, a] == X[j, a], y[i] == y[j]
                equal += eq
                same += sc
                both += eq and sc
        p_equal, p_samecl, p_samecl_equal = equal / n ** 2, same / n ** 2, both / equal
        expected.append(p_equal * (p_samecl_equal - p_samecl) / (p_samecl * (1 - p_samecl)))
        # the same value as eq. 4: P(diff A | diff class) - P(diff A | same class)
        eq4 = (n ** 2 - same - (equal - both)) / (n ** 2 - same) - (same - both) / same
        assert expected[-1] == pytest.approx(eq4)
    np.testing.assert_allclose(MyopicReliefF()(data), expected, rtol=1e-12)


@pytest.mark.parametrize("estimator", CLASSIFICATION)
def test_missing_values_are_left_out_with_priors_from_known_values(estimator):
    rng = np.random.default_rng(5)
    X = np.column_stack([rng.integers(0, 3, 30), np.round(rng.normal(size=30), 1)])
    y = (rng.random(30) < 0.4 + 0.2 * X[:, 0]).astype(float)
    base = encode(X, y, discrete=[True, False], n_values=[3, 0], n_classes=2)
    # five more instances, all of class 1, with missing values: nothing may change
    X2 = np.vstack([X, np.full((5, 2), np.nan)])
    y2 = np.concatenate([y, np.ones(5)])
    extended = encode(X2, y2, discrete=[True, False], n_values=[3, 0], n_classes=2)
    np.testing.assert_allclose(estimator()(extended), estimator()(base), rtol=1e-12)


def test_mse_leaves_missing_values_out():
    x = np.array([0, 0, 1, 1, 2, 2, np.nan, np.nan])
    y = np.array([1, 1, 2, 4, 10, 10, 100, -50], dtype=float)
    data = encode(np.column_stack([x, np.where(np.isnan(x), np.nan, y)]), y,
                  discrete=[True, False])
    # both columns split the known six as {1,1,2,4} | {10,10} (-1, as in the hand table above);
    # counted, the missing targets 100 and -50 would change the variances
    np.testing.assert_allclose(MSE()(data), [-1.0, -1.0], atol=1e-12)


@pytest.mark.parametrize("estimator", CLASSIFICATION + [MSE])
def test_all_missing_column_is_nan_and_constant_column_is_single_valued(estimator):
    X = np.array([[np.nan, 1, 1, 0], [np.nan, 1, 1, 1], [np.nan, 1, 1, 0],
                  [np.nan, 1, 1, 1], [np.nan, 1, 1, 1], [np.nan, 1, 1, 0]])
    y = np.array([0, 1, 0, 1, 1, 0], dtype=float)
    discrete = [False, False, True, True]
    n_classes = 0 if estimator is MSE else 2
    data = encode(X, y, discrete=discrete, n_values=[0, 0, 2, 2], n_classes=n_classes)
    scores = estimator()(data)
    assert np.isnan(scores[0])
    single = -np.var(y) if estimator is MSE else 0.0
    assert scores[1] == pytest.approx(single) and scores[2] == pytest.approx(single)
    assert np.isfinite(scores[3])


def test_numeric_column_without_admissible_threshold_scores_as_single_valued():
    # 4 known distinct values cannot leave 2 below and 3 above any threshold
    data = encode(np.array([[1.], [2], [3], [4]]), np.array([0., 0, 1, 1]), n_classes=2)
    assert InfGain()(data)[0] == 0.0
    assert InfGain(min_lower=1, min_upper=1)(data)[0] == pytest.approx(1.0)


def test_gain_ratio_unused_value_rule():
    # declared 3 values, value 2 never occurs: the definition ignores it, CORElearn gives -1
    x = np.array([0, 0, 1, 1, 0, 1], dtype=float)
    y = np.array([0, 0, 1, 1, 1, 0], dtype=float)
    data = encode(x[:, None], y, discrete=True, n_values=3, n_classes=2)
    # InfGain = 1 - H(2/3) = .0817, H(A) = 1 -> ratio = InfGain
    assert GainRatio()(data)[0] == pytest.approx(1 - h(2 / 3, 1 / 3))
    assert GainRatio(unused_value_rule="minus_one")(data)[0] == -1.0
    complete = encode(x[:, None], y, discrete=True, n_values=2, n_classes=2)
    assert GainRatio(unused_value_rule="minus_one")(complete)[0] == pytest.approx(
        1 - h(2 / 3, 1 / 3))


@pytest.mark.parametrize("estimator", CLASSIFICATION)
def test_regression_target_rejected_by_classification_measures(estimator):
    data = encode(np.array([[0.], [1], [0], [1]]), np.array([0.5, 1.5, 2.5, 3.5]),
                  discrete=True)
    with pytest.raises(ValueError, match="classification.*regression target"):
        estimator()(data)


def test_classification_target_rejected_by_mse():
    data = encode(np.array([[0.], [1], [0], [1]]), np.array([0., 1, 0, 1]), n_classes=2)
    with pytest.raises(ValueError, match="regression.*classification target"):
        MSE()(data)


@pytest.mark.parametrize("estimator", CLASSIFICATION)
def test_one_class_rejected(estimator):
    data = encode(np.array([[0.], [1], [0]]), np.zeros(3), discrete=True, n_classes=2)
    with pytest.raises(ValueError, match="two classes"):
        estimator()(data)


@pytest.mark.parametrize("params,name", [
    ({"min_lower": 0}, "min_lower"), ({"min_upper": 2.5}, "min_upper"),
    ({"unused_value_rule": "drop"}, "unused_value_rule")])
def test_bad_parameters_named(params, name):
    with pytest.raises(ValueError, match=name):
        GainRatio(**params)(hand_table())


def test_columns_of_other_length_rejected():
    data = hand_table()
    other = encode(np.zeros((3, 1)), np.zeros(3), discrete=True, n_classes=2)
    with pytest.raises(ValueError, match="instances"):
        InfGain().estimate(data, other)


def test_informative_attribute_ranks_first_for_every_measure():
    # x0 decides the class up to 10% noise, x1 is noise: every measure prefers x0
    rng = np.random.default_rng(2)
    X = rng.integers(0, 2, (200, 2)).astype(float)
    y = np.where(rng.random(200) < 0.9, X[:, 0], 1 - X[:, 0])
    data = encode(X, y, discrete=True, n_classes=2)
    for estimator in CLASSIFICATION:
        scores = estimator()(data)
        assert scores[0] > scores[1], estimator.name


def test_callback_reports_progress_and_cancels():
    data = encode(np.zeros((6, 4)), np.array([0., 1, 0, 1, 0, 1]), n_classes=2)
    fractions = []
    InfGain()(data, callback=fractions.append)
    assert fractions == [0.25, 0.5, 0.75, 1.0]

    class Cancelled(Exception):
        pass

    def cancel(fraction):
        raise Cancelled

    with pytest.raises(Cancelled):
        MSE()(encode(np.zeros((4, 2)), np.arange(4.)), callback=cancel)
