"""Contextual Merit (Hong; eq. 9 of Vilalta et al. 2004).

Expected values come from plain loops over pairs written here from eqs. 5-7 and 9, and from hand
calculation -- never from the code under test.
"""
import itertools
import math

import numpy as np
import pytest

from orangecontrib.relief.estimators import encode
from orangecontrib.relief.estimators.contextual_merit import ContextualMerit
from orangecontrib.relief.estimators.unified_pi import UnifiedPi


def reference_diff(X, discrete, k, i, j, ramp=None):
    """Eq. 6 (nominal) or eq. 7 with TH = max - min (numeric); ``ramp`` = (t_eq, t_diff) as
    fractions of the range."""
    if discrete[k]:
        return float(X[i, k] != X[j, k])
    th = X[:, k].max() - X[:, k].min()
    d = abs(X[i, k] - X[j, k]) / th if th > 0 else 0.0
    if ramp is not None:
        lo, hi = ramp
        d = 0.0 if d <= lo else 1.0 if d >= hi else (d - lo) / (hi - lo)
    return d


def reference_merit(X, y, discrete, K=None, ramp=None):
    """Eq. 9 by loops. K=None: all counter-examples; an int or "hong": the K nearest at D > 0
    (ties by lower index), "hong" = ceil(log2(#counter-examples)). Pairs at D = 0 add 0."""
    n, a = X.shape
    merit = np.zeros(a)
    for i in range(n):
        counter = [j for j in range(n) if y[j] != y[i]]
        dist = {j: sum(reference_diff(X, discrete, k, i, j, ramp) for k in range(a))
                for j in counter}
        if K is not None:
            kk = max(1, math.ceil(math.log2(len(counter)))) if K == "hong" else K
            counter = sorted((j for j in counter if dist[j] > 0),
                             key=lambda j: (dist[j], j))[:kk]
        for j in counter:
            if dist[j] == 0:
                continue
            for k in range(a):
                merit[k] += reference_diff(X, discrete, k, i, j, ramp) / dist[j] ** 2
    return merit


def random_mixed_data(rng, n, n_classes, decimals=1):
    """Discrete and numeric columns; numeric values rounded to ``decimals`` (ties, equal
    values) unless None (no ties in distance: the nearest counter-examples are unambiguous
    despite floating-point rounding)."""
    disc = rng.integers(0, [2, 3, 4], size=(n, 3)).astype(float)
    num = rng.random((n, 2)) * 4
    if decimals is not None:
        num = np.round(num, decimals)
    X = np.column_stack([disc[:, :2], num[:, 0], disc[:, 2], num[:, 1]])
    discrete = np.array([True, True, False, True, False])
    y = np.arange(n) % n_classes
    rng.shuffle(y)
    return encode(X, y, discrete=discrete, n_values=[2, 3, 0, 4, 0], n_classes=n_classes)


@pytest.mark.parametrize("n_classes", [2, 3, 4])
@pytest.mark.parametrize("neighbours, K", [("all", None), ("nearest", None), ("nearest", 3)])
def test_merit_agrees_with_pairwise_loop_on_mixed_data(n_classes, neighbours, K):
    rng = np.random.default_rng(10 + n_classes)
    data = random_mixed_data(rng, 26, n_classes, 1 if neighbours == "all" else None)
    got = ContextualMerit(neighbours=neighbours, K=K)(data)
    ref_K = None if neighbours == "all" else ("hong" if K is None else K)
    want = reference_merit(data.X, data.y, data.discrete, ref_K)
    np.testing.assert_allclose(got, want, rtol=1e-10)


def test_ramp_numeric_diff_option():
    rng = np.random.default_rng(1)
    data = random_mixed_data(rng, 20, 2)
    got = ContextualMerit(neighbours="all", numeric_diff="ramp", t_equal=0.1,
                          t_different=0.4)(data)
    want = reference_merit(data.X, data.y, data.discrete, None, ramp=(0.1, 0.4))
    np.testing.assert_allclose(got, want, rtol=1e-10)
    assert not np.allclose(got, ContextualMerit(neighbours="all")(data))


def test_default_K_is_ceil_log2_of_counter_examples():
    y = np.array([0] * 5 + [1] * 3 + [2] * 12)
    data = encode(np.zeros((20, 1)), y, discrete=True, n_values=1, n_classes=3)
    ks = ContextualMerit().counter_example_counts(data)
    # counter-examples: 15 -> 4, 17 -> 5, 8 -> 3
    np.testing.assert_array_equal(ks, [4] * 5 + [5] * 3 + [3] * 12)
    np.testing.assert_array_equal(ContextualMerit(K=2).counter_example_counts(data), [2] * 20)


def test_pairs_at_distance_zero_add_nothing_and_take_no_neighbour_slot():
    # A and B contradict (same attributes, other class); with K = 1 A's neighbour is C, not B
    X = np.array([[0, 0], [0, 0], [1, 0], [0, 1]], dtype=float)   # A, B, C, D
    y = np.array([0, 1, 1, 1])
    data = encode(X, y, discrete=True, n_values=2, n_classes=2)
    # K = 1: A -> C (distance 1, lower index than D): x0 += 1;
    #        B, C, D -> A: B at D = 0 is skipped, so B has no neighbour; C -> A: x0 += 1;
    #        D -> A: x1 += 1
    np.testing.assert_array_equal(ContextualMerit(K=1)(data), [2, 1])
    # all counter-examples: A-C and C-A give x0 1 each, A-D and D-A give x1 1 each; A-B adds 0
    np.testing.assert_array_equal(ContextualMerit(neighbours="all")(data), [2, 2])


def test_xor_cube_of_fig1_unit_hamming_counter_examples_score_4_4_0_per_direction():
    X = np.array(list(itertools.product([0, 1], repeat=3)), dtype=float)
    data = encode(X, (X[:, 0] != X[:, 1]).astype(float), discrete=True, n_classes=2)
    # K = 2: each example's two nearest counter-examples are its unit-Hamming flips of X1 and
    # X2 (weight 1/1^2); Fig. 1's 4 counts unordered pairs, eq. 9 ordered ones
    np.testing.assert_array_equal(ContextualMerit(K=2)(data), [8, 8, 0])


def test_estimate_of_other_columns_uses_the_context_pairs():
    rng = np.random.default_rng(3)
    data = random_mixed_data(rng, 20, 3)
    for neighbours in ("nearest", "all"):
        cm = ContextualMerit(neighbours=neighbours)
        ctx = cm.context(data)
        np.testing.assert_allclose(cm.estimate(ctx, data.columns([3, 0, 2])),
                                   cm.estimate(ctx)[[3, 0, 2]], rtol=1e-12)


def test_all_missing_column_scores_nan_and_constant_column_zero():
    X = np.array([[0, np.nan, 2], [1, np.nan, 2], [1, np.nan, 2], [0, np.nan, 2]], dtype=float)
    data = encode(X, [0, 1, 1, 0], discrete=[True, True, False], n_values=[2, 1, 0],
                  n_classes=2)
    for neighbours in ("nearest", "all"):
        merit = ContextualMerit(neighbours=neighbours)(data)
        assert np.isnan(merit[1]) and merit[2] == 0 and merit[0] > 0


def test_callback_progress_and_cancel():
    rng = np.random.default_rng(0)
    data = random_mixed_data(rng, 30, 2)
    for neighbours in ("nearest", "all"):
        seen = []
        ContextualMerit(neighbours=neighbours)(data, callback=seen.append)
        assert seen and seen[-1] == 1.0 and np.all(np.diff(seen) >= 0)

        def cancel(fraction):
            raise RuntimeError("cancelled")
        with pytest.raises(RuntimeError, match="cancelled"):
            ContextualMerit(neighbours=neighbours)(data, callback=cancel)


# the bad-input checks of PairwiseClassEstimator, for both of its estimators

@pytest.mark.parametrize("estimator", [ContextualMerit, UnifiedPi])
def test_regression_data_is_rejected_with_a_clear_error(estimator):
    data = encode(np.eye(4), [0.1, 0.5, 0.2, 0.9])
    with pytest.raises(ValueError, match="classification"):
        estimator()(data)


@pytest.mark.parametrize("estimator", [ContextualMerit, UnifiedPi])
@pytest.mark.parametrize("X, y, message", [
    (np.zeros((1, 2)), [0], "at least 2 instances"),
    (np.zeros((3, 2)), [1, 1, 1], "two classes"),
    (np.zeros((3, 0)), [0, 1, 0], "no attributes"),
])
def test_degenerate_data_is_rejected(estimator, X, y, message):
    data = encode(X, y, discrete=True, n_values=1, n_classes=2)
    with pytest.raises(ValueError, match=message):
        estimator()(data)


@pytest.mark.parametrize("kwargs, name", [
    (dict(neighbours="some"), "neighbours"), (dict(K=0), "K"), (dict(K=1.5), "K"),
    (dict(K=True), "K"), (dict(numeric_diff="cubic"), "numeric_diff"),
    (dict(missing="E"), "missing"),
])
def test_bad_parameters_raise_value_error_naming_them(kwargs, name):
    data = encode(np.eye(4), [0, 1, 0, 1], discrete=True, n_classes=2)
    with pytest.raises(ValueError, match=name):
        ContextualMerit(**kwargs)(data)
