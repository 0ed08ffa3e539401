"""Finite estimates, or a clear error, for any finite input: magnitudes near the float limits,
singleton classes, and weights f_alpha(D) or 1/D^2 beyond the largest float."""
import numpy as np
import pytest

from orangecontrib.relief.estimators import DiffModel, base, encode
from orangecontrib.relief.estimators.contextual_merit import ContextualMerit
from orangecontrib.relief.estimators.neighbourhood.diffs import target_diffs
from orangecontrib.relief.estimators.encoding import power_of_two_scale, unit_scales
from orangecontrib.relief.estimators.relieff import ReliefF, ReliefFbestK
from orangecontrib.relief.estimators.unified_pi import UnifiedPi


@pytest.mark.parametrize("factor", [2.0 ** 1000, 2.0 ** -1000, 2.0 ** -1070])
def test_diffs_of_scaled_columns_equal_the_unscaled_ones(factor):
    X = np.array([[0.0], [0.25], [0.75], [1.0]])
    plain = DiffModel(encode(X, [0, 1, 0, 1], n_classes=2))
    scaled = DiffModel(encode(X * factor, [0, 1, 0, 1], n_classes=2))
    rows, others = np.array([0, 1, 2, 0]), np.array([3, 2, 0, 1])
    np.testing.assert_array_equal(scaled.pair_diffs(rows, others),
                                  [[1.0], [0.5], [0.75], [0.25]])
    np.testing.assert_array_equal(scaled.distances(rows), plain.distances(rows))


def test_span_beyond_the_largest_float_gives_diffs_as_fractions_of_it():
    # -1.5 * 2^1023 .. 1.5 * 2^1023: max - min overflows, the diffs are still |x - y| / span
    X = np.array([[-1.5], [0.0], [0.75], [1.5]]) * 2.0 ** 1023
    model = DiffModel(encode(X, [0, 1, 0, 1], n_classes=2))
    np.testing.assert_array_equal(model.pair_diffs(np.array([0, 1, 2]), np.array([3, 2, 0])),
                                  [[1.0], [0.25], [0.75]])


def test_unit_scales_leave_ordinary_columns_alone():
    X = np.array([[1.0, 3.0], [2.0, 5.0]])
    scale, shift, inv_span = unit_scales(X, np.array([True, False]), np.array([1.0, 0.0]),
                                         np.array([1.0, 1.0]))
    np.testing.assert_array_equal(scale, [1.0, 1.0])
    np.testing.assert_array_equal(shift, [1.0, 0.0])
    np.testing.assert_array_equal(inv_span, [1.0, 1.0])
    assert power_of_two_scale(3.0) == 0.25 and power_of_two_scale(0.0) == 1.0


def test_target_diffs_of_a_target_beyond_the_float_range():
    data = encode(np.zeros((3, 1)), np.array([-1.5, 0.0, 1.5]) * 2.0 ** 1023)
    np.testing.assert_array_equal(target_diffs(data, np.array([0, 1]), np.array([2, 2])),
                                  [1.0, 0.5])


def test_every_class_a_singleton_gives_the_misses_alone():
    # no instance has a hit: the estimate is the miss term only (no 0/0 renormalisation)
    X = np.array([[0.0, 0.0], [1.0, 0.0], [0.5, 1.0]])
    data = encode(X, [0, 1, 2], n_classes=3)
    estimator = ReliefF(k=1)
    profile = estimator.profile(estimator.context(data), [1, 2])
    # each instance: P(C)/(1 - P(y)) = 1/2 per other class, times the diff to its one member
    misses = np.array([0.5 * (1 + 0.5) + 0.5 * (1 + 0.5) + 0.5 * (0.5 + 0.5),
                       0.5 * (0 + 1) + 0.5 * (0 + 1) + 0.5 * (1 + 1)]) / 3
    np.testing.assert_allclose(profile, [misses, misses])


def test_pi_refuses_weights_that_overflow_and_handles_a_huge_alpha_of_exp2():
    rng = np.random.default_rng(0)
    X = rng.random((20, 3))
    data = encode(X, rng.integers(0, 2, 20), n_classes=2)
    with pytest.raises(ValueError, match="alpha"):
        UnifiedPi(f="power", alpha=1e300)(data)
    # 2^(-alpha D) is 1 at D = 0 (i = j) and 0 elsewhere: only the pairs (i, i) count, each
    # a case 1 (same value, same class): M = sum_m |T_m|/|T| * |T_m| per feature
    scores = UnifiedPi(alpha=1e300, bins=10)(data)
    low, high = X.min(axis=0), X.max(axis=0)
    bins = np.minimum(np.floor((X - low) / (high - low) * 10), 9).astype(int)
    sizes = [np.bincount(bins[:, k], minlength=10) for k in range(3)]
    np.testing.assert_allclose(scores, [np.sum(s ** 2) / 20 for s in sizes])


def test_contextual_merit_refuses_pair_weights_that_overflow():
    X = np.array([[0.0, 0.0], [1e-200, 0.0], [1.0, 1.0], [0.5, 1.0]])
    with pytest.raises(ValueError, match="largest float"):
        ContextualMerit()(encode(X, [0, 1, 0, 1], n_classes=2))


def test_best_k_default_stops_at_100_neighbours():
    rng = np.random.default_rng(1)
    data = encode(rng.random((240, 2)), np.repeat([0, 1], 120), n_classes=2)
    estimator = ReliefFbestK()
    assert estimator.context(data).neighbours.shape[2] == 100
    np.testing.assert_array_equal(estimator(data), ReliefFbestK(k_max=100)(data))


def test_a_request_beyond_the_available_memory_is_refused_before_allocating(monkeypatch):
    monkeypatch.setattr(base, "available_memory", lambda: 10 * 2 ** 20)      # 10 MB
    rng = np.random.default_rng(2)
    data = encode(rng.random((400, 3)), np.repeat([0, 1], 200), n_classes=2)
    ReliefF(k=10)(data)                         # 400 x 2 x 10 neighbours fit
    with pytest.raises(ValueError, match="needs about .* of memory.*smaller k"):
        ReliefFbestK(k_max=10 ** 6)(encode(rng.random((4000, 3)), np.repeat([0, 1], 2000),
                                           n_classes=2))
    codes = np.arange(2000.0)[:, None] % 1000                 # 1,000 values x 2 classes
    with pytest.raises(ValueError, match="pair counts .* of memory"):
        UnifiedPi()(encode(codes, np.arange(2000) % 2, discrete=True, n_classes=2))


def test_available_memory_is_a_positive_number_of_bytes():
    assert base.available_memory() > 2 ** 20
