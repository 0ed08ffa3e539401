"""ReliefFmerit against a plain loop over instances and neighbours, and a hand-computed case."""
import numpy as np
import pytest

from orangecontrib.relief.estimators import encode
from orangecontrib.relief.estimators.relieff import ReliefF, ReliefFmerit


def merit_loop(X, y, k):
    """ReliefF with equal weights, per-class misses, diff |x - y| / range and each neighbour's
    diffs divided by their sum, written as loops."""
    n, a = X.shape
    span = X.max(axis=0) - X.min(axis=0)
    prior = np.bincount(y) / n
    w = np.zeros(a)
    for i in range(n):
        diffs = np.abs(X - X[i]) / span
        dist = diffs.sum(axis=1)
        for c in np.unique(y):
            others = [j for j in np.argsort(dist, kind="stable") if j != i and y[j] == c][:k]
            share = sum(diffs[j] / dist[j] for j in others) / len(others)
            w += -share if c == y[i] else prior[c] / (1 - prior[y[i]]) * share
    return w / n


def test_merit_equals_the_loop():
    rng = np.random.default_rng(7)
    X = rng.random((40, 4))
    y = (X[:, 0] + .3 * rng.random(40) > .6).astype(int) + (X[:, 1] > .7)
    got = ReliefFmerit(k=3, numeric_diff="linear")(encode(X, y.astype(float), n_classes=3))
    np.testing.assert_allclose(got, merit_loop(X, y, 3), atol=1e-12)


def test_merit_by_hand():
    # four instances, three binary attributes, every two instances differ in exactly two
    # attributes (distance 2, shares 1/2); k = 1, equal distances in index order; the miss
    # coefficient P(C) / (1 - P(y)) is 1:
    #   R0: hit I1 (x1, x2), miss I2 (x0, x2) -> x0 +.5, x1 -.5
    #   R1: hit I0 (x1, x2), miss I2 (x0, x1) -> x0 +.5, x2 -.5
    #   R2: hit I3 (x1, x2), miss I0 (x0, x2) -> x0 +.5, x1 -.5
    #   R3: hit I2 (x1, x2), miss I0 (x0, x1) -> x0 +.5, x2 -.5
    X = np.array([[0, 0, 0], [0, 1, 1], [1, 0, 1], [1, 1, 0]], float)
    data = encode(X, np.array([0., 0, 1, 1]), discrete=True, n_values=2, n_classes=2)
    np.testing.assert_allclose(ReliefFmerit(k=1)(data), [.5, -.25, -.25], atol=1e-12)
    # ReliefF counts each differing attribute fully: twice as much
    np.testing.assert_allclose(ReliefF(k=1)(data), [1, -.5, -.5], atol=1e-12)


def test_merit_differs_from_relieff_only_by_the_shares():
    # with one attribute every nonzero share is 1: ReliefFmerit counts each differing neighbour
    # fully, as ReliefF does for diffs of a discrete attribute
    x = np.array([0, 0, 1, 1, 0, 1, 1, 0], float)
    y = np.array([0, 0, 1, 1, 1, 0, 1, 0], float)
    data = encode(x[:, None], y, discrete=True, n_values=2, n_classes=2)
    assert ReliefFmerit(k=2)(data)[0] == pytest.approx(ReliefF(k=2)(data)[0])
