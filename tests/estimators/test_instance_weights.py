"""Instance weights: an instance of weight w counts as w instances. With integer weights every
estimator (every instance visited) gives the estimates of the data with each instance repeated
w times; the repeated data are an independent computation on ordinary, unweighted input."""
import numpy as np
import pytest

from orangecontrib.relief.estimators import encode
from orangecontrib.relief.estimators.contextual_merit import ContextualMerit
from orangecontrib.relief.estimators.impurity import MSE, GainRatio, InfGain, MyopicReliefF
from orangecontrib.relief.estimators.relieff import Relief, ReliefF, ReliefFbestK
from orangecontrib.relief.estimators.rrelieff import RReliefF
from orangecontrib.relief.estimators.unified_pi import UnifiedPi


def weighted_and_repeated(regression=False, missing=False, seed=0, n=30):
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.integers(0, 8, n) / 8, rng.random(n), rng.integers(0, 3, n)])
    if missing:
        X[rng.random(X.shape) < 0.15] = np.nan
    if regression:
        y, n_classes = rng.random(n) + (X[:, 2] == 1), 0
    else:
        y, n_classes = rng.integers(0, 3, n).astype(float), 3
    counts = rng.integers(1, 4, n)
    discrete = [False, False, True]
    weighted = encode(X, y, discrete=discrete, n_values=[0, 0, 3], n_classes=n_classes,
                      weights=counts.astype(float))
    repeated = encode(np.repeat(X, counts, axis=0), np.repeat(y, counts), discrete=discrete,
                      n_values=[0, 0, 3], n_classes=n_classes)
    return weighted, repeated


CLASSIFICATION = [
    ReliefF(k=5), ReliefF(k=5, weighting="exp-rank", sigma=2.0), ReliefF(k=4, weighting="1/d"),
    ReliefF(k=3, misses="pooled"), ReliefF(k=6, distance="euclidean"),
    ReliefF(k=5, skip_zero_distance=True), ReliefF(k=5, missing="B"),
    ReliefF(k=5, missing="C"), ReliefF(k=5, both_missing="current", laplace=True),
    Relief(), ReliefFbestK(k_max=12),
    ContextualMerit(), ContextualMerit(neighbours="all"), ContextualMerit(K=4),
    UnifiedPi(), UnifiedPi(f="power", alpha=1.0, F="gini"),
    InfGain(), GainRatio(), MyopicReliefF(),
]
REGRESSION = [RReliefF(k=8), RReliefF(k=5, weighting="equal"), RReliefF(k=6, missing="C"),
              MSE()]


@pytest.mark.parametrize("missing", [False, True], ids=["complete", "missing values"])
@pytest.mark.parametrize("estimator", CLASSIFICATION + REGRESSION, ids=repr)
def test_integer_weights_equal_repeated_instances(estimator, missing):
    regression = estimator in REGRESSION
    weighted, repeated = weighted_and_repeated(regression, missing)
    np.testing.assert_allclose(estimator(weighted), estimator(repeated), rtol=1e-9,
                               atol=1e-12)


def test_profile_over_k_with_weights_equals_repeated_instances():
    weighted, repeated = weighted_and_repeated()
    estimator = ReliefF(k=20)
    ks = [1, 2, 3, 7, 20]
    np.testing.assert_allclose(estimator.profile(estimator.context(weighted), ks),
                               estimator.profile(estimator.context(repeated), ks), rtol=1e-9)


def test_fractional_weights_fill_fractions_of_the_neighbour_places():
    # by hand, k = 2, span 1, two classes (each miss coefficient P(C) / (1 - P(y)) = 1); the
    # instance x = 1 weighs 0.5: it fills half a place, its update counts half, and m = 3.5
    #   R = 0    : hit 1 (only hit);  misses .25, .75 (one place each): .5  -> .5 - 1 = -.5
    #   R = 1    : hit 1;             misses .25, .75: .5                  -> .5 (.5 - 1) = -.25
    #   R = .25  : hit .5;  misses .25 (1 place), .75 (half): .625 / 1.5   -> -.5 + .41667
    #   R = .75  : hit .5;  misses .25 (half), .75 (1 place): .875 / 1.5   -> -.5 + .58333
    X = np.array([[0.0], [1.0], [0.25], [0.75]])
    data = encode(X, [0, 0, 1, 1], n_classes=2, weights=[1, 0.5, 1, 1])
    updates = [-0.5, -0.25, 0.625 / 1.5 - 0.5, 0.875 / 1.5 - 0.5]
    np.testing.assert_allclose(ReliefF(k=2)(data), [sum(updates) / 3.5])


def test_unit_weights_are_no_weights_and_bad_weights_are_named():
    X, y = np.random.default_rng(3).random((10, 2)), np.arange(10) % 2
    assert encode(X, y, n_classes=2, weights=np.ones(10)).weights is None
    for weights, message in (([1.0] * 9, "9 instance weights for 10"),
                             ([np.nan] + [1.0] * 9, "finite"), ([0.0] + [1.0] * 9, "> 0")):
        with pytest.raises(ValueError, match=message):
            encode(X, y, n_classes=2, weights=weights)
