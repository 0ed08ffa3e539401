"""TuRF on few attributes: constant and all-missing columns, removal that would leave a single
attribute. The expected values are the base estimator's own, run on exactly the columns that
survive (an independent run), and the order of the removal groups."""
from dataclasses import replace

import numpy as np
import pytest

from orangecontrib.relief.estimators import encode
from orangecontrib.relief.estimators.relieff import ReliefF
from orangecontrib.relief.estimators.surf import MultiSURF
from orangecontrib.relief.estimators.turf import MIN_ATTRIBUTES, TuRF, informative_columns


def few(constant=True, seed=0):
    """60 rows x 4 attributes; the class is a0 > 0.5, a2 is constant (or random)."""
    rng = np.random.default_rng(seed)
    X = rng.random((60, 4))
    if constant:
        X[:, 2] = 0.5
    return encode(X, (X[:, 0] > 0.5).astype(int), n_classes=2)


def check_tiers(est, data):
    """The survivors carry the base estimator's estimates on exactly their columns; each removed
    group ranks below everything removed later and below the survivors."""
    context = est.context(data)
    w = est.estimate(context)
    np.testing.assert_allclose(w[context.survivors],
                               est.estimator_(data.columns(context.survivors)), atol=1e-12)
    floor = np.nanmin(w[context.survivors])
    for attributes, _ in reversed(context.removed):
        known = w[attributes][np.isfinite(w[attributes])]
        if known.size:
            assert known.max() < floor
            floor = known.min()
    return context, w


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("constant", [True, False])
@pytest.mark.parametrize("base", [None, ReliefF(k=10)])
def test_deciding_attribute_ranks_first(seed, constant, base):
    """The attribute that decides the class ranks first and keeps a positive estimate (before:
    it was removed when it stood alone in the neighbour space and scored -0.04 there, leaving
    the constant column first); the constant column ranks last."""
    data = few(constant, seed)
    context, w = check_tiers(TuRF(base), data)
    assert np.argmax(w) == 0 and w[0] > 0
    assert context.survivors.size == MIN_ATTRIBUTES
    if constant:
        assert np.argmin(w) == 2
        np.testing.assert_array_equal(context.removed[0][0], [2])


def test_keep_one_still_leaves_two():
    data = few(False)
    context, w = check_tiers(TuRF(keep=1, remove=0.5, rounds=5), data)
    assert context.survivors.size == 2 and 0 in context.survivors


def test_two_attributes_no_removal():
    """With no more informative attributes than the floor, TuRF is its base estimator."""
    data = few(True).columns([0, 1])
    np.testing.assert_allclose(TuRF()(data), MultiSURF()(data), atol=1e-12)
    data = few(True).columns([0, 2])          # one informative column and the constant one
    w = TuRF()(data)
    np.testing.assert_allclose(w[0], MultiSURF()(data)[0], atol=1e-12)
    assert w[1] < w[0]


def test_all_missing_and_constant_discrete_columns():
    """An all-missing column keeps NaN and a constant discrete column ranks below the rest; the
    others get what they get without those columns."""
    rng = np.random.default_rng(3)
    X = rng.integers(0, 3, (80, 7)).astype(float)
    y = (X[:, 0] > 0).astype(int)
    X[:, 4] = 1.0
    X[:, 5] = np.nan
    data = encode(X, y, discrete=True, n_classes=2)
    np.testing.assert_array_equal(informative_columns(data), [1, 1, 1, 1, 0, 0, 1])
    est = TuRF(ReliefF(k=10), remove=0.25)
    context, w = check_tiers(est, data)
    assert np.isnan(w[5]) and w[4] == np.nanmin(w)
    plain = est(data.columns([0, 1, 2, 3, 6]))
    np.testing.assert_allclose(w[[0, 1, 2, 3, 6]], plain, atol=1e-12)
    assert np.nanargmax(w) == 0


def test_informative_columns_sparse():
    import scipy.sparse as sp
    X = np.array([[0, 1, 0, 2], [0, 1, 0, 0], [0, 1, 0, 1]], float)
    data = encode(sp.csr_matrix(X), [0, 1, 0], discrete=[True, True, False, False],
                  n_classes=2)
    np.testing.assert_array_equal(informative_columns(data), [0, 0, 0, 1])


def test_target_contexts_give_the_rounds_of_each_target():
    # the rounds over all attributes share one neighbour search across targets (a permutation
    # test); the estimates equal TuRF's own on each target, with a constant attribute too
    rng = np.random.default_rng(3)
    X = rng.integers(0, 3, (80, 9)).astype(float)
    X[:, 4] = 1.0
    y = ((X[:, 0] == 1) ^ (X[:, 1] == 1)).astype(float)
    data = encode(X, y, discrete=True, n_values=[3] * 9, n_classes=2)
    for base in (MultiSURF(), ReliefF(k=10)):
        turf = TuRF(base, remove=0.5, rounds=2)
        make = turf.target_contexts(data)
        for seed in range(3):
            target = replace(data, y=data.y[np.random.default_rng(seed).permutation(80)])
            np.testing.assert_allclose(turf.estimate(make(target)), turf(target), atol=1e-12)
