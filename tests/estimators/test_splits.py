"""Binary split machinery (orangecontrib.relief.estimators.splits): numeric thresholds on hand
tables, exhaustive and greedy partitions against plain loops, regression by sorted means."""
from itertools import combinations

import numpy as np
import pytest

from orangecontrib.relief.estimators.impurity import accuracy_gain, gini_gain, mse_of_mean
from orangecontrib.relief.estimators.splits import (
    Split, best_partition, best_threshold, candidate_thresholds, exhaustive_partitions,
    search_partitions, target_statistics, value_table)


def plain_gini(rows):
    """Gini gain of a list of per-branch class-count lists, written with plain loops."""
    n = sum(sum(r) for r in rows)
    n_c = [sum(r[c] for r in rows) for c in range(len(rows[0]))]
    after = sum(sum(x * x for x in r) / sum(r) for r in rows if sum(r) > 0) / n
    return after - sum(x * x for x in n_c) / n ** 2


def plain_counts(codes, y, values, n_classes):
    """Class counts of the instances whose code is in ``values`` (plain loop)."""
    counts = [0] * n_classes
    for code, cls in zip(codes, y):
        if not np.isnan(code) and int(code) in values:
            counts[int(cls)] += 1
    return counts


def test_candidate_thresholds_are_midpoints_respecting_side_minima():
    # known sorted values 1 1 2 3 3 4 5 (the NaN is left out): boundaries after 2, 3, 5, 6
    # instances at midpoints 1.5, 2.5, 3.5, 4.5; with >= 2 below and >= 3 above only the
    # boundaries with 2 <= n_lower <= 7 - 3 = 4 remain: 1.5 and 2.5
    x = np.array([3, 1, np.nan, 5, 2, 4, 1, 3])
    thresholds, n_lower, order = candidate_thresholds(x, 2, 3)
    np.testing.assert_array_equal(thresholds, [1.5, 2.5])
    np.testing.assert_array_equal(n_lower, [2, 3])
    np.testing.assert_array_equal(x[order], [1, 1, 2, 3, 3, 4, 5])
    thresholds, n_lower, _ = candidate_thresholds(x, 1, 1)
    np.testing.assert_array_equal(thresholds, [1.5, 2.5, 3.5, 4.5])
    np.testing.assert_array_equal(n_lower, [2, 3, 5, 6])


def test_best_threshold_on_hand_table_and_ties_go_to_lowest():
    # x = 1..8, y = 0 0 0 1 0 1 1 1; candidates with 2 below / 3 above: 2.5 3.5 4.5 5.5
    # accuracy gain (sum of branch majorities - majority) / 8:
    #   2.5: (2 + 4 - 4)/8 = .25   3.5: (3 + 4 - 4)/8 = .375
    #   4.5: (3 + 3 - 4)/8 = .25   5.5: (4 + 3 - 4)/8 = .375  -> tie, the lower 3.5 wins
    x = np.arange(1, 9, dtype=float)
    y = np.array([0, 0, 0, 1, 0, 1, 1, 1], dtype=float)
    split = best_threshold(x, target_statistics(y, 2), accuracy_gain)
    assert split.threshold == 3.5
    assert split.score == pytest.approx(0.375)
    assert split.left_values is None and split.is_numeric


def test_best_threshold_leaves_missing_values_out():
    x = np.arange(1, 9, dtype=float)
    y = np.array([0, 0, 0, 1, 0, 1, 1, 1], dtype=float)
    expected = best_threshold(x, target_statistics(y, 2), gini_gain)
    # three more instances of class 1 with a missing value change nothing
    x2 = np.concatenate([x, [np.nan] * 3])
    y2 = np.concatenate([y, [1, 1, 1]])
    assert best_threshold(x2, target_statistics(y2, 2), gini_gain) == expected


def test_best_threshold_none_without_admissible_candidate():
    y = np.array([0, 1, 0, 1], dtype=float)
    stats = target_statistics(y, 2)
    # 4 distinct values: n_lower >= 2 and 4 - n_lower >= 3 is impossible
    assert best_threshold(np.array([1., 2, 3, 4]), stats, gini_gain) is None
    assert best_threshold(np.array([5., 5, 5, 5]), stats, gini_gain, 1, 1) is None
    assert best_threshold(np.array([1., 2, 3, 4]), stats, gini_gain, 1, 1) is not None


def test_regression_threshold_on_hand_table():
    # y = 1 1 1 5 5 6 at x = 1..6; split at 3.5: left variance 0, right {5,5,6}: mean 16/3,
    # variance ((1/3)^2 * 2 + (2/3)^2) / 3 = 2/9, weighted 3/6 * 2/9 = 1/9 -> score -1/9;
    # split at 4.5: left {1,1,1,5} variance 3, weighted 4/6 * 3 = 2 (worse)
    x = np.arange(1, 7, dtype=float)
    y = np.array([1, 1, 1, 5, 5, 6], dtype=float)
    split = best_threshold(x, target_statistics(y, 0), mse_of_mean, 1, 1)
    assert split.threshold == 3.5
    assert split.score == pytest.approx(-1 / 9)


@pytest.mark.parametrize("seed", range(4))
def test_vectorised_threshold_scores_equal_plain_loop(seed):
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 12, 60).astype(float)
    x[rng.random(60) < 0.15] = np.nan
    y_cls = rng.integers(0, 3, 60).astype(float)
    y_reg = rng.normal(size=60) * 10 + 100
    known = ~np.isnan(x)
    best_cls, best_reg = (-np.inf, None), (-np.inf, None)
    values = np.unique(x[known])
    for a, b in zip(values[:-1], values[1:]):
        t = (a + b) / 2
        left, right = known & (x <= t), known & (x > t)
        if left.sum() < 2 or right.sum() < 3:
            continue
        rows = [[int(np.sum(y_cls[side] == c)) for c in range(3)] for side in (left, right)]
        g = plain_gini(rows)
        if g > best_cls[0] + 1e-12:
            best_cls = (g, t)
        m = -(left.sum() * np.var(y_reg[left]) + right.sum() * np.var(y_reg[right])) / known.sum()
        if m > best_reg[0] + 1e-12:
            best_reg = (m, t)
    split = best_threshold(x, target_statistics(y_cls, 3), gini_gain)
    assert (split.score, split.threshold) == pytest.approx(best_cls)
    split = best_threshold(x, target_statistics(y_reg, 0), mse_of_mean)
    assert (split.score, split.threshold) == pytest.approx(best_reg)


def test_value_table_is_the_contingency_table_without_missing():
    codes = np.array([0, 1, np.nan, 1, 2, 0, 1])
    y = np.array([0, 1, 1, 1, 0, 1, 0], dtype=float)
    table = value_table(codes, target_statistics(y, 2), 4)
    np.testing.assert_array_equal(table, [[1, 1], [1, 2], [1, 0], [0, 0]])


def test_exhaustive_partitions_are_all_distinct_unordered_partitions():
    for v in range(2, 7):
        masks = exhaustive_partitions(v)
        assert masks.shape == (2 ** (v - 1) - 1, v)
        # each unordered partition once: canonical form = the side without the last value
        keys = {tuple(m) for m in masks}
        assert len(keys) == masks.shape[0]
        assert not masks[:, -1].any() and masks.any(axis=1).all()
    assert exhaustive_partitions(1).shape[0] == 0


@pytest.mark.parametrize("n_values,seed", [(3, 0), (5, 1), (7, 2), (7, 3)])
def test_exhaustive_partition_matches_brute_force_loop(n_values, seed):
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, n_values, 80).astype(float)
    codes[rng.random(80) < 0.1] = np.nan
    y = rng.integers(0, 3, 80).astype(float)
    best, best_left = -np.inf, None
    values = list(range(n_values))
    for size in range(1, n_values):
        for left in combinations(values, size):
            right = [v for v in values if v not in left]
            g = plain_gini([plain_counts(codes, y, left, 3), plain_counts(codes, y, right, 3)])
            if g > best + 1e-12:
                best, best_left = g, set(left)
    split = best_partition(codes, target_statistics(y, 3), gini_gain, n_values)
    assert split.score == pytest.approx(best)
    found = set(split.left_values)
    assert found == best_left or found == set(values) - best_left
    assert split.threshold is None and not split.is_numeric


def plain_greedy(n_values, score):
    """CORElearn's greedy rule written as a loop: move one value at a time to the left."""
    left, best = set(), (-np.inf, None)
    for _ in range(n_values - 1):
        # the best score; on a tie the lowest value (max of -v)
        step = max((score(left | {v}), -v) for v in set(range(n_values)) - left)
        left = left | {-step[1]}
        if step[0] > best[0]:
            best = (step[0], frozenset(left))
    return best


def test_greedy_partition_beyond_seven_values_follows_the_greedy_rule():
    rng = np.random.default_rng(7)
    n_values = 9
    codes = rng.integers(0, n_values, 300).astype(float)
    y = rng.integers(0, 3, 300).astype(float)
    evaluated = []

    def score_partitions(masks):
        evaluated.append(masks.shape[0])
        rows = [[plain_gini([plain_counts(codes, y, set(np.flatnonzero(m)), 3),
                             plain_counts(codes, y, set(np.flatnonzero(~m)), 3)])]
                for m in masks]
        return np.array(rows)[:, 0]

    mask, score = search_partitions(n_values, score_partitions)
    # greedy: 9 + 8 + ... + 2 = 44 partitions scored instead of 2^8 - 1 = 255
    assert sum(evaluated) == 44
    expected_score, expected_left = plain_greedy(
        n_values, lambda left: plain_gini([plain_counts(codes, y, left, 3),
                                           plain_counts(codes, y, set(range(n_values)) - left,
                                                        3)]))
    assert score == pytest.approx(expected_score)
    assert set(np.flatnonzero(mask)) == set(expected_left)
    # the exhaustive search can only be as good or better
    _, exhaustive_score = search_partitions(n_values, score_partitions, exhaustive_max=9)
    assert exhaustive_score >= score - 1e-12


def test_greedy_partition_finds_a_class_separating_partition():
    # values 0..4 are all class 0, values 5..9 all class 1: the perfect split has gini gain 0.5
    codes = np.repeat(np.arange(10), 3).astype(float)
    y = (codes >= 5).astype(float)
    split = best_partition(codes, target_statistics(y, 2), gini_gain, 10)
    assert split.score == pytest.approx(0.5)
    assert set(split.left_values) in ({0, 1, 2, 3, 4}, {5, 6, 7, 8, 9})


def test_partition_only_of_occurring_values_and_min_branch():
    # value 1 never occurs: it is not partitioned (goes right)
    codes = np.array([0, 0, 2, 2, 3, 3, 3], dtype=float)
    y = np.array([0, 0, 1, 1, 1, 1, 0], dtype=float)
    split = best_partition(codes, target_statistics(y, 2), gini_gain, 4)
    assert 1 not in split.left_values
    assert set(split.left_values) in ({0}, {2, 3})
    # min_branch 3: {0} (2 instances) vs {2, 3} (5) is no longer admissible
    split = best_partition(codes, target_statistics(y, 2), gini_gain, 4, min_branch=3)
    assert set(split.left_values) in ({0, 2}, {3})
    assert best_partition(np.array([1., 1, np.nan]), target_statistics(np.array([0., 1, 1]), 2),
                          gini_gain, 3) is None


def test_regression_partition_by_sorted_means_on_hand_table():
    # value 0: y = 1 1 (mean 1); value 1: y = 2 4 (mean 3); value 2: y = 10 10 (mean 10)
    # prefixes of the mean order: {0}|{1,2}: 4/6 * var(2,4,10,10) = 4/6 * 12.75 = 8.5
    #                             {0,1}|{2}: 4/6 * var(1,1,2,4) = 4/6 * 1.5 = 1   -> score -1
    codes = np.array([0, 0, 1, 1, 2, 2], dtype=float)
    y = np.array([1, 1, 2, 4, 10, 10], dtype=float)
    split = best_partition(codes, target_statistics(y, 0), mse_of_mean, 3, sorted_by_mean=True)
    assert split.score == pytest.approx(-1.0)
    assert set(split.left_values) in ({0, 1}, {2})


@pytest.mark.parametrize("seed", range(3))
def test_sorted_mean_partition_equals_exhaustive_for_variance(seed):
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, 7, 70).astype(float)
    codes[rng.random(70) < 0.1] = np.nan
    y = rng.normal(size=70) + codes * rng.normal(size=70)
    y[np.isnan(y)] = 0.0
    stats = target_statistics(y, 0)
    by_mean = best_partition(codes, stats, mse_of_mean, 7, sorted_by_mean=True)
    exhaustive = best_partition(codes, stats, mse_of_mean, 7)
    assert by_mean.score == pytest.approx(exhaustive.score)


def test_split_branches_maps_values_and_keeps_missing():
    numeric = Split(score=0.1, threshold=2.5)
    np.testing.assert_array_equal(numeric.branches([1, 2.5, 3, np.nan]), [0, 0, 1, np.nan])
    discrete = Split(score=0.1, left_values=(0, 2))
    np.testing.assert_array_equal(discrete.branches([0, 1, 2, np.nan]), [0, 1, 0, np.nan])


def test_target_statistics_weights_and_shape_check():
    stats = target_statistics(np.array([0., 1, 1]), 2, weights=np.array([0.5, 1, 2]))
    np.testing.assert_array_equal(stats, [[0.5, 0], [0, 1], [0, 2]])
    with pytest.raises(ValueError, match="weights"):
        target_statistics(np.array([0., 1]), 2, weights=np.ones(3))


@pytest.mark.parametrize("seed", range(5))
def test_ordered_search_beyond_greedy_max_finds_the_two_class_optimum(seed):
    # two classes: the Gini optimum is a prefix of the values sorted by P(class 1 | value)
    # (Breiman et al. 1984, Thm. 4.5); the exhaustive search over 2^6 - 1 partitions confirms it
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, 7, 200).astype(float)
    y = (rng.random(200) < np.array([.1, .8, .4, .9, .2, .6, .5])[codes.astype(int)]).astype(float)
    stats = target_statistics(y, 2)
    ordered = best_partition(codes, stats, gini_gain, 7, greedy_max=2)
    exhaustive = best_partition(codes, stats, gini_gain, 7)
    assert ordered.score == pytest.approx(exhaustive.score)
    assert set(ordered.left_values) in (set(exhaustive.left_values),
                                        set(range(7)) - set(exhaustive.left_values))


def test_ordered_search_splits_a_100000_valued_attribute_into_its_classes():
    # three classes, 100,000 values: values 0..29,999 are class 0, the next 40,000 class 1 and
    # the rest class 2; the best binary split puts one pure class (a whole group) on one side
    codes = np.arange(100_000, dtype=float)
    y = np.digitize(codes, [30_000, 70_000]).astype(float)
    split = best_partition(codes, target_statistics(y, 3), gini_gain, 100_000)
    left = np.zeros(100_000, bool)
    left[list(split.left_values)] = True
    assert any(np.array_equal(left, y == c) or np.array_equal(~left, y == c) for c in range(3))
