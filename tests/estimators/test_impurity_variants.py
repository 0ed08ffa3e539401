"""DKM, the cost-weighted, uniform-prior, equal-branch and distribution-distance measures on a
hand-computed table, by the formulas written out with plain numbers."""
from math import log2, sqrt

import numpy as np
import pytest

from orangecontrib.relief.estimators import encode
from orangecontrib.relief.estimators.balanced_impurity import (
    EqualDKM, EqualGini, EqualInf, UniformAccuracy, UniformDKM, UniformGini, UniformInf)
from orangecontrib.relief.estimators.distribution_distance import (
    DistAngle, DistAUC, DistEuclid, DistHellinger, EqualHellinger, ImpurityEuclid,
    ImpurityHellinger)
from orangecontrib.relief.estimators.impurity import (
    DKM, DKMcost, GainRatioCost, cost_weighted)


def hand_table():
    """3 values, 2 classes; (value, class) counts v0: (3, 1), v1: (1, 3), v2: (2, 0)."""
    pairs = [(0, 0)] * 3 + [(0, 1)] + [(1, 0)] + [(1, 1)] * 3 + [(2, 0)] * 2
    x, y = np.array(pairs, dtype=float).T
    return encode(x[:, None], y, discrete=True, n_values=3, n_classes=2)


def h(*p):
    return -sum(q * log2(q) for q in p if q > 0)


def d(q):
    return 2 * sqrt(q * (1 - q))


# uniform priors: r_v(c) = n_vc / n_c, class 0: (3/6, 1/6, 2/6), class 1: (1/4, 3/4, 0);
# branch weights pi_v = (r_v(0) + r_v(1)) / 2 = 3/8, 11/24, 1/6; distributions q_v =
# (2/3, 1/3), (2/11, 9/11), (1, 0)
PI = (3 / 8, 11 / 24, 1 / 6)
R0, R1 = (1 / 2, 1 / 6, 1 / 3), (1 / 4, 3 / 4, 0)
HAND = {
    # D(.6) - (.4 D(.75) + .4 D(.75) + .2 D(1))
    DKM: d(.6) - .8 * d(.75),
    # GainRatio with CORElearn's rule: InfGain / H(A)
    GainRatioCost: (h(.6, .4) - .8 * h(.75, .25)) / h(.4, .4, .2),
    UniformInf: 1 - (PI[0] * h(2 / 3, 1 / 3) + PI[1] * h(2 / 11, 9 / 11)),
    UniformGini: 1 - (PI[0] * (1 - 5 / 9) + PI[1] * (1 - 85 / 121)),
    UniformDKM: 1 - (PI[0] * d(2 / 3) + PI[1] * d(9 / 11)),
    UniformAccuracy: PI[0] * 2 / 3 + PI[1] * 9 / 11 + PI[2] * 1,
    EqualDKM: -(d(.75) + d(.75) + 0),
    EqualGini: .625 + .625 + 1,
    EqualInf: -2 * h(.75, .25),
    # pairs of branches (v0, v1), (v0, v2), (v1, v2)
    EqualHellinger: (sqrt(2 * (sqrt(.75) - sqrt(.25)) ** 2)
                     + sqrt((sqrt(.75) - 1) ** 2 + .25)
                     + sqrt((sqrt(.25) - 1) ** 2 + .75)) / 3,
    # one pair of classes: (p0 - p1)^2 per branch = .25, .25, 1
    ImpurityEuclid: sqrt(1.5),
    ImpurityHellinger: sqrt(2 * (sqrt(.75) - sqrt(.25)) ** 2 + 1),
    DistHellinger: sqrt(sum((sqrt(a) - sqrt(b)) ** 2 for a, b in zip(R0, R1))),
    DistEuclid: sqrt(sum((a - b) ** 2 for a, b in zip(R0, R1)) / 2),
    DistAngle: sqrt(sum((a / sqrt(sum(x * x for x in R0)) - b / sqrt(sum(x * x for x in R1)))
                        ** 2 for a, b in zip(R0, R1)) / 2),
    DistAUC: (abs(R0[0] * R1[1] - R0[1] * R1[0]) + abs(R0[0] * R1[2] - R0[2] * R1[0])
              + abs(R0[1] * R1[2] - R0[2] * R1[1])),
}


@pytest.mark.parametrize("estimator", list(HAND), ids=lambda e: e.name)
def test_discrete_attribute_on_hand_table(estimator):
    assert estimator()(hand_table())[0] == pytest.approx(HAND[estimator], abs=1e-12)


def test_dkm_of_a_two_class_split_by_hand():
    # x = 1..8, y = 0 0 0 1 0 1 1 1; thresholds with 2 below and 3 above: 2.5 .. 5.5 with
    # (left | right) counts [2,0|2,4], [3,0|1,4], [3,1|1,3], [4,1|0,3]; D(.5) = 1
    x = np.arange(1, 9, dtype=float)
    y = np.array([0, 0, 0, 1, 0, 1, 1, 1], dtype=float)
    data = encode(x[:, None], y, n_classes=2)
    gains = [1 - 6 / 8 * d(2 / 3), 1 - 5 / 8 * d(.8), 1 - d(.75), 1 - 5 / 8 * d(.8)]
    assert DKM()(data)[0] == pytest.approx(max(gains))
    split = DKM().best_split(x, False, 0, np.eye(2)[y.astype(int)])
    assert split.threshold == 3.5         # the first of the two best
    # DKMcost: the splits with a pure branch (2.5, 3.5, 5.5) have no cost-weighted
    # distribution there and are never chosen, as in CORElearn; 4.5 is left
    assert DKMcost()(data)[0] == pytest.approx(gains[2])


def test_dkm_cost_equals_dkm_without_pure_branches_and_is_nan_with_one():
    assert np.isnan(DKMcost()(hand_table())[0])          # v2 holds class 0 only
    pairs = [(0, 0)] * 3 + [(0, 1)] + [(1, 0)] + [(1, 1)] * 3 + [(2, 0)] * 2 + [(2, 1)]
    x, y = np.array(pairs, dtype=float).T
    data = encode(x[:, None], y, discrete=True, n_values=3, n_classes=2)
    assert DKMcost()(data)[0] == pytest.approx(DKM()(data)[0], abs=1e-12)


def test_cost_weighted_distribution_by_hand():
    # p = (.5, .3, .2); e_0 = (.3 + .2) / .5 = 1, e_1 = (2 * .5 + 2 * .2) / .7 = 2,
    # e_2 = (.5 + .3) / .8 = 1; p e = (.5, .6, .2) / 1.3
    costs = np.array([[0, 1, 1], [2, 0, 2], [1, 1, 0]], dtype=float)
    np.testing.assert_allclose(cost_weighted([5, 3, 2], costs), np.array([.5, .6, .2]) / 1.3)
    np.testing.assert_allclose(cost_weighted([5, 3, 2], 1 - np.eye(3)), [.5, .3, .2])


def test_distances_between_classes_are_nan_when_a_class_has_no_known_value():
    x = np.array([0, 1, 0, 1, np.nan, np.nan])
    y = np.array([0, 0, 0, 0, 1, 1], dtype=float)
    data = encode(x[:, None], y, discrete=True, n_values=2, n_classes=2)
    for estimator in (DistHellinger, DistEuclid, DistAngle, DistAUC):
        assert np.isnan(estimator()(data)[0]), estimator.name


def test_informative_attribute_ranks_first_for_every_measure():
    rng = np.random.default_rng(2)
    X = rng.integers(0, 2, (200, 2)).astype(float)
    y = np.where(rng.random(200) < 0.9, X[:, 0], 1 - X[:, 0])
    data = encode(X, y, discrete=True, n_classes=2)
    for estimator in HAND:
        scores = estimator()(data)
        assert scores[0] > scores[1], estimator.name


def test_costs_weight_the_class_distributions():
    # two classes: e_0 = costs[0, 1], e_1 = costs[1, 0]; with costs[1, 0] = 3 the weighted
    # distribution of counts (n_0, n_1) is (n_0, 3 n_1) / (n_0 + 3 n_1). The hand table's
    # distributions become: prior (6, 12)/18, v0 (3, 3)/6, v1 (1, 9)/10, v2 pure (entropy 0)
    costs = [[0, 1], [3, 0]]
    want = (h(1 / 3, 2 / 3) - (.4 * h(.5, .5) + .4 * h(.1, .9))) / h(.4, .4, .2)
    assert GainRatioCost(costs=costs)(hand_table())[0] == pytest.approx(want)
    pairs = [(0, 0)] * 3 + [(0, 1)] + [(1, 0)] + [(1, 1)] * 3 + [(2, 0)] * 2 + [(2, 1)]
    x, y = np.array(pairs, dtype=float).T
    data = encode(x[:, None], y, discrete=True, n_values=3, n_classes=2)
    # n_c = (6, 5): prior (6, 15)/21, v0 (3, 3)/6, v1 (1, 9)/10, v2 (2, 3)/5;
    # p(v) = 4/11, 4/11, 3/11
    want = d(5 / 7) - (4 / 11 * d(.5) + 4 / 11 * d(.9) + 3 / 11 * d(.6))
    assert DKMcost(costs=costs)(data)[0] == pytest.approx(want)


@pytest.mark.parametrize("costs", [[[0, 1, 1], [1, 0, 1]], [[0, -1], [1, 0]],
                                   [[0, np.nan], [1, 0]]])
def test_bad_cost_matrix_named(costs):
    for estimator in (DKMcost, GainRatioCost):
        with pytest.raises(ValueError, match="costs must be a 2 x 2 matrix"):
            estimator(costs=costs)(hand_table())
