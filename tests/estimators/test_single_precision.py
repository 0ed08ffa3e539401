"""The single-precision neighbour search: its float32 distances stay within the rounding bound of
the double-precision ones, and the context it certifies is the double-precision search's to
the last bit (neighbours, order and distances), near-ties included."""
import itertools

import numpy as np
import pytest

from orangecontrib.relief.estimators import encode
from orangecontrib.relief.estimators.neighbourhood import single_precision
from orangecontrib.relief.estimators.neighbourhood.diffs import DiffModel, DiffOptions
from orangecontrib.relief.estimators.neighbourhood.single_precision import WIDTH
from orangecontrib.relief.estimators.neighbourhood.neighbours import nearest_neighbours
from orangecontrib.relief.estimators.relieff import ReliefF
from orangecontrib.relief.estimators.rrelieff import RReliefF

GROUPS = {"per-class": 0, "pooled": 1, "all": 2}


def table(n=1300, a=13, missing=0.0, offset=0.0, seed=0, n_classes=3):
    """Numeric columns (one far from zero: its double-precision diffs carry rounding too),
    three discrete ones, a class of ``n_classes``; a fraction ``missing`` of values NaN."""
    rng = np.random.default_rng(seed)
    X = rng.random((n, a))
    X[:, 0] += offset
    X[:, 1:4] = rng.integers(0, 4, (n, 3))
    if missing:
        X[rng.random(X.shape) < missing] = np.nan
    y = rng.integers(0, n_classes, n).astype(float)
    discrete = np.zeros(a, bool)
    discrete[1:4] = True
    return X, y, discrete


def contexts(data, options, instances, k, groups, monkeypatch):
    """The context by the double-precision search and by the single-precision one."""
    monkeypatch.setattr(single_precision, "MIN_WORK", 10 ** 30)
    model = DiffModel(data, options)
    assert not single_precision.suits(model, instances.size, options.skip_zero_distance)
    double = nearest_neighbours(model, instances, k, groups)
    monkeypatch.setattr(single_precision, "MIN_WORK", 0)
    model = DiffModel(data, options)
    assert single_precision.suits(model, instances.size, options.skip_zero_distance)
    single = nearest_neighbours(model, instances, k, groups)
    return double, single


def assert_same(double, single):
    np.testing.assert_array_equal(single.neighbours, double.neighbours)
    np.testing.assert_array_equal(single.distances, double.distances)   # to the last bit


@pytest.mark.parametrize("groups", list(GROUPS))
@pytest.mark.parametrize("numeric,distance", list(itertools.product(
    ["linear", "ramp"], ["manhattan", "euclidean"])))
def test_every_pair_once_gives_the_double_precision_context(numeric, distance, groups,
                                                            monkeypatch):
    X, y, discrete = table(offset=1e6)
    data = encode(X, y, discrete=discrete, n_classes=3)
    assert np.bincount(y.astype(int)).min() > WIDTH      # several tiles of each class
    double, single = contexts(data, DiffOptions(numeric=numeric, distance=distance),
                              np.arange(X.shape[0]), 10, groups, monkeypatch)
    assert_same(double, single)


@pytest.mark.parametrize("missing", ["B", "D"])
@pytest.mark.parametrize("groups", ["per-class", "all"])
@pytest.mark.parametrize("numeric,distance", list(itertools.product(
    ["linear", "ramp"], ["manhattan", "euclidean"])))
def test_missing_values_give_the_double_precision_context(missing, groups, numeric, distance,
                                                          monkeypatch):
    # a missing value is 0 in the panels plus corrections toward each class
    X, y, discrete = table(missing=0.2)
    X[7] = np.nan                                   # an instance with no known value
    X[8, :10] = np.nan
    data = encode(X, y, discrete=discrete, n_classes=3)
    options = DiffOptions(missing=missing, numeric=numeric, distance=distance)
    double, single = contexts(data, options, np.arange(X.shape[0]), 7, groups, monkeypatch)
    assert_same(double, single)


def test_sampled_instances_give_the_double_precision_context(monkeypatch):
    X, y, discrete = table(missing=0.1)
    data = encode(X, y, discrete=discrete, n_classes=3)
    sample = np.random.default_rng(5).choice(X.shape[0], 400, replace=False)
    double, single = contexts(data, DiffOptions(numeric="ramp"), sample, 10, "per-class",
                              monkeypatch)
    assert_same(double, single)


def test_near_ties_are_searched_again_in_double_precision(monkeypatch):
    # values on a grid of 1/4: many candidates equally far at the k-th, which float32 cannot
    # order with certainty (the rounding bound is not zero for numeric columns)
    rng = np.random.default_rng(2)
    X = np.floor(rng.random((900, 6)) * 4) / 4
    y = rng.integers(0, 2, 900).astype(float)
    data = encode(X, y, n_classes=2)
    monkeypatch.setattr(single_precision, "MIN_WORK", 0)
    model = DiffModel(data)
    K = 10
    neighbours = np.full((900, 2, K), -1)
    distances = np.full((900, 2, K), np.inf)
    again = single_precision.search(model, np.arange(900), 0, K, neighbours, distances)
    assert 0 < again.size < 900
    double, single = contexts(data, DiffOptions(), np.arange(900), K, "per-class", monkeypatch)
    assert_same(double, single)
    certified = np.setdiff1d(np.arange(900), again)
    # (the context holds the instances tied with the K-th too, after the K nearest)
    np.testing.assert_array_equal(neighbours[certified], double.neighbours[certified, :, :K])


def test_discrete_data_are_exact_in_float32(monkeypatch):
    # 0/1 terms sum exactly: no row is searched again, ties broken by index as in double
    rng = np.random.default_rng(3)
    X = rng.integers(0, 6, (800, 9)).astype(float)          # six values: no bit planes
    y = rng.integers(0, 2, 800).astype(float)
    data = encode(X, y, discrete=True, n_classes=2)
    model = DiffModel(data)
    assert model.planes.shape[2] == 0
    monkeypatch.setattr(single_precision, "MIN_WORK", 0)
    assert single_precision.error_bound(model, single_precision.Panels(
        model, np.arange(800))) == (0.0, 0.0)
    neighbours = np.full((800, 2, 5), -1)
    distances = np.full((800, 2, 5), np.inf)
    assert single_precision.search(model, np.arange(800), 0, 5, neighbours,
                                   distances).size == 0
    double, single = contexts(data, DiffOptions(), np.arange(800), 5, "per-class", monkeypatch)
    assert_same(double, single)


@pytest.mark.parametrize("numeric,distance,offset", [
    ("linear", "manhattan", 0.0), ("linear", "manhattan", 1e9), ("ramp", "manhattan", 1e3),
    ("linear", "euclidean", 1e3), ("ramp", "euclidean", 0.0)])
def test_float32_distances_lie_within_the_rounding_bound(numeric, distance, offset):
    # the float32 kernel's distances of two tiles against the double-precision kernel's
    X, y, discrete = table(n=600, a=40, missing=0.15, offset=offset, seed=4)
    X[:, 5] *= 1e-7                                      # a tiny span: rescaled to [0, 1]
    data = encode(X, y, discrete=discrete, n_classes=3)
    model = DiffModel(data, DiffOptions(numeric=numeric, distance=distance))
    panels = single_precision.Panels(model, np.arange(600))
    E0, gamma = single_precision.error_bound(model, panels)
    assert E0 > 0 and 0 < gamma < 1e-4
    double = model.distances(np.arange(600))
    options = single_precision.kernel_options(model)
    acc, part, tpart = np.empty((3, WIDTH, WIDTH), np.float32)
    cursors = np.empty((4, WIDTH), np.intp)
    arrays = panels.arrays
    worst = 0.0
    for I, J in itertools.product(range(panels.ranges.shape[0]), repeat=2):
        (loI, hiI, cI), (loJ, hiJ, cJ) = panels.ranges[I], panels.ranges[J]
        single_precision._pair_block(acc, part, tpart, cursors, arrays, arrays, I, J, options)
        d32 = acc[:hiI - loI, :hiJ - loJ].astype(float)
        d64 = double[np.ix_(panels.order[loI:hiI], panels.order[loJ:hiJ])]
        bound = E0 + gamma * (d32 + E0)
        assert np.all(np.abs(d32 - d64) <= bound)
        worst = max(worst, float(np.max(np.abs(d32 - d64) / bound)))
    assert worst > 1e-3             # the bound is not vacuous: the errors come within 1000x


@pytest.mark.parametrize("estimator", [ReliefF(k=10), ReliefF(k=5, weighting="exp-rank"),
                                       RReliefF(k=10, weighting="1/d")])
def test_estimates_equal_the_double_precision_search(estimator, monkeypatch):
    rng = np.random.default_rng(6)
    X = rng.random((1100, 12))
    if isinstance(estimator, RReliefF):
        y, n_classes = X[:, 0] + X[:, 1] ** 2, 0
    else:
        y, n_classes = ((X[:, 0] > 0.5) ^ (X[:, 1] > 0.5)).astype(float), 2
    data = encode(X, y, n_classes=n_classes)
    monkeypatch.setattr(single_precision, "MIN_WORK", 10 ** 30)
    expected = estimator(data)
    monkeypatch.setattr(single_precision, "MIN_WORK", 0)
    np.testing.assert_array_equal(estimator(data), expected)


def test_not_taken_where_it_could_differ(monkeypatch):
    monkeypatch.setattr(single_precision, "MIN_WORK", 0)
    X, y, discrete = table(n=300, missing=0.1)
    data = encode(X, y, discrete=discrete, n_classes=3)
    assert single_precision.suits(DiffModel(data), 300, False)
    assert not single_precision.suits(DiffModel(data), 300, True)            # skip zero
    assert not single_precision.suits(DiffModel(data, DiffOptions(both_missing="current")),
                                      300, False)                           # asymmetric
    assert not single_precision.suits(DiffModel(data, DiffOptions(corelearn=True)), 300,
                                      False)


def test_a_cancel_stops_the_search(monkeypatch):
    monkeypatch.setattr(single_precision, "MIN_WORK", 0)
    monkeypatch.setattr(single_precision, "CALL_DIFFS", 1)     # a call per tile pair
    X, y, discrete = table()
    data = encode(X, y, discrete=discrete, n_classes=3)
    calls = []

    def cancel(fraction):
        calls.append(fraction)
        if len(calls) == 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        nearest_neighbours(DiffModel(data), np.arange(1300), 10, callback=cancel)
    assert len(calls) == 3 and calls[-1] < 0.5


def test_instance_weights_give_the_double_precision_estimates(monkeypatch):
    # a weight w fills w neighbour places: K grows to k / (smallest weight)
    rng = np.random.default_rng(8)
    X = rng.random((900, 10))
    y = ((X[:, 0] > 0.5) ^ (X[:, 1] > 0.5)).astype(float)
    data = encode(X, y, n_classes=2, weights=rng.choice([0.5, 1.0, 3.0], 900))
    monkeypatch.setattr(single_precision, "MIN_WORK", 10 ** 30)
    expected = ReliefF(k=10)(data)
    monkeypatch.setattr(single_precision, "MIN_WORK", 0)
    np.testing.assert_array_equal(ReliefF(k=10)(data), expected)
