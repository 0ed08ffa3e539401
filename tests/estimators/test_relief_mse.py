"""RReliefFwithMSE: RReliefF and MSEofMean scaled to [0, 1] and mixed by exp(−1 / (n/50)²)."""
from math import exp

import numpy as np
import pytest

from orangecontrib.relief.estimators import encode
from orangecontrib.relief.estimators.impurity import MSE
from orangecontrib.relief.estimators.relief_mse import RReliefFwithMSE, relief_share
from orangecontrib.relief.estimators.rrelieff import RReliefF


def regression_data(n=60, seed=5):
    rng = np.random.default_rng(seed)
    X = rng.random((n, 4))
    y = 3 * X[:, 0] + np.where(X[:, 1] > .5, 1.0, 0.0) + .1 * rng.random(n)
    return encode(X, y)


def test_relief_share_by_hand():
    assert relief_share(50) == pytest.approx(exp(-1))
    assert relief_share(100) == pytest.approx(exp(-1 / 4))
    assert relief_share(25) == pytest.approx(exp(-4))


def test_mix_of_the_scaled_estimates():
    data = regression_data()
    relief, mse = RReliefF()(data), MSE()(data)
    w = exp(-1 / (60 / 50) ** 2)
    want = [w * (r - relief.min()) / (relief.max() - relief.min())
            + (1 - w) * (m - mse.min()) / (mse.max() - mse.min()) for r, m in zip(relief, mse)]
    np.testing.assert_allclose(RReliefFwithMSE()(data), want, atol=1e-12)
    # the best attribute of both scores 1, and every mixed estimate lies in [0, 1]
    got = RReliefFwithMSE()(data)
    assert got[0] == pytest.approx(1.0) and np.all((got >= 0) & (got <= 1))


def test_relief_keywords_reach_rrelieff():
    data = regression_data()
    a = RReliefFwithMSE(k=5, weighting="equal")(data)
    relief, mse = RReliefF(k=5, weighting="equal")(data), MSE()(data)
    w = relief_share(60)
    np.testing.assert_allclose(
        a, w * (relief - relief.min()) / np.ptp(relief) + (1 - w) * (mse - mse.min()) / np.ptp(mse))


def test_single_attribute_scores_zero_and_bad_parameters_named():
    data = encode(np.arange(10.0)[:, None], np.arange(10.0) ** 2)
    assert RReliefFwithMSE()(data)[0] == 0.0
    with pytest.raises(ValueError, match="necessary"):
        RReliefFwithMSE(necessary=0)(data)
    with pytest.raises(ValueError, match="regression"):
        RReliefFwithMSE()(encode(np.zeros((4, 1)), np.array([0., 1, 0, 1]), n_classes=2))
