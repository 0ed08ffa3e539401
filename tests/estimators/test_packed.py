"""Discrete data as packed bit planes: the distances, neighbours, band counts and estimates equal
those of the plain path exactly, and data that cannot be packed are not."""
import numpy as np
import pytest

from orangecontrib.relief.estimators import encode, encoding
from orangecontrib.relief.estimators.neighbourhood import diffs
from orangecontrib.relief.estimators.neighbourhood.diffs import DiffModel
from orangecontrib.relief.estimators.neighbourhood.packed import band_mismatch_counts, pack_planes
from orangecontrib.relief.estimators.relieff import ReliefF, ReliefFbestK
from orangecontrib.relief.estimators.rrelieff import RReliefF
from orangecontrib.relief.estimators.surf import SURF, MultiSURF, MultiSURFstar


def snps(n, a, seed, values=3, regression=False):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, values, (n, a)).astype(float)
    if regression:
        return encode(X, X[:, 0] + rng.random(n), discrete=True, n_values=values)
    y = ((X[:, 0] % 2 != X[:, -1] % 2) ^ (rng.random(n) < 0.1)).astype(float)
    return encode(X, y, discrete=True, n_values=values, n_classes=2)


@pytest.fixture
def packed_always(monkeypatch):
    monkeypatch.setattr(diffs, "PACKED_MIN_COLUMNS", 1)


def both_paths(monkeypatch, compute):
    """compute() with the bit planes and without them."""
    monkeypatch.setattr(diffs, "PACKED_MIN_COLUMNS", 1)
    packed = compute()
    monkeypatch.setattr(diffs, "PACKED_MIN_COLUMNS", 10 ** 9)
    return packed, compute()


@pytest.mark.parametrize("a", [1, 63, 64, 65, 130])
@pytest.mark.parametrize("values", [2, 3, 4])
def test_packed_distances_count_the_attributes_that_differ(packed_always, a, values):
    data = snps(40, a, seed=a + values, values=values)
    model = DiffModel(data)
    assert model.planes.shape == (40, 2, (a + 63) // 64)
    X = data.X
    expected = (X[:, None, :] != X[None, :, :]).sum(axis=2)      # plain comparisons
    np.testing.assert_array_equal(model.distances(np.arange(40)), expected)
    euclidean = DiffModel(data, diffs.DiffOptions(distance="euclidean"))
    np.testing.assert_array_equal(euclidean.distances(np.arange(40)), expected)


@pytest.mark.parametrize("a", [1, 70, 128])
def test_packed_bit_and_plain_estimates_are_equal(monkeypatch, a):
    data = snps(150, a, seed=a)
    for estimator in (ReliefF(k=7), ReliefF(k=3, misses="pooled"), ReliefFbestK(k_max=12),
                      SURF(), MultiSURF(), MultiSURFstar(), ReliefF.corelearn()):
        packed, plain = both_paths(monkeypatch, lambda: estimator(data))
        np.testing.assert_array_equal(packed, plain, err_msg=estimator.name)
    packed, plain = both_paths(monkeypatch, lambda: ReliefF(k=5).context(data).neighbours)
    np.testing.assert_array_equal(packed, plain)
    regression = snps(120, a, seed=a + 1, regression=True)
    for estimator in (RReliefF(k=10), MultiSURF()):
        packed, plain = both_paths(monkeypatch, lambda: estimator(regression))
        np.testing.assert_array_equal(packed, plain, err_msg=estimator.name)


def test_packed_bit_and_plain_estimates_are_equal_with_instance_weights(monkeypatch):
    data = snps(90, 66, seed=5)
    weighted = encode(data.X, data.y, discrete=True, n_values=3, n_classes=2,
                      weights=np.random.default_rng(0).integers(1, 4, 90))
    for estimator in (ReliefF(k=4), MultiSURF()):
        packed, plain = both_paths(monkeypatch, lambda: estimator(weighted))
        np.testing.assert_array_equal(packed, plain, err_msg=estimator.name)


def test_band_mismatch_counts_equal_counts_by_comparison():
    # more than 255 members of a group: the vertical counters are read out on the way
    rng = np.random.default_rng(3)
    n, a = 700, 100
    X = rng.integers(0, 3, (n, a)).astype(float)
    groups = rng.integers(0, 2, n).astype(np.intp)
    rows = np.array([0, 5, 699])
    member = (rng.random((rows.size, n)) < 0.9).astype(np.int8)
    out = np.zeros((rows.size, 2, a))
    band_mismatch_counts(pack_planes(X, np.arange(a)), rows, member, groups, 2, out)
    for q, r in enumerate(rows):
        for g in range(2):
            others = (member[q] > 0) & (groups == g)
            assert others.sum() > 255
            np.testing.assert_array_equal(out[q, g], (X[others] != X[r]).sum(axis=0))


@pytest.mark.parametrize("change", ["missing", "five values", "numeric column"])
def test_data_that_cannot_be_packed_use_the_plain_path(packed_always, change):
    X = np.random.default_rng(0).integers(0, 3, (30, 10)).astype(float)
    discrete = np.ones(10, bool)
    if change == "missing":
        X[3, 4] = np.nan
    elif change == "five values":
        X[3, 4] = 4
    else:
        discrete[2] = False
    data = encode(X, np.arange(30) % 2, discrete=discrete, n_classes=2)
    assert DiffModel(data).planes.shape[2] == 0
    assert pack_planes(np.array([[0.0, 1.5]]), np.arange(2)) is None


def test_a_column_with_no_known_value_is_left_out_of_the_planes(packed_always):
    X = np.random.default_rng(1).integers(0, 3, (30, 5)).astype(float)
    X[:, 2] = np.nan
    data = encode(X, np.arange(30) % 2, discrete=True, n_classes=2)
    model = DiffModel(data)
    assert model.planes.shape == (30, 2, 1)
    kept = X[:, [0, 1, 3, 4]]
    np.testing.assert_array_equal(model.distances(np.arange(30)),
                                  (kept[:, None] != kept[None]).sum(axis=2))


def test_codes_are_checked_in_blocks_of_columns(monkeypatch):
    monkeypatch.setattr(encoding, "CHECK_BYTES", 1)            # one column a block
    X = np.zeros((4, 6))
    X[2, 5] = 1.5
    with pytest.raises(ValueError, match="discrete column 5"):
        encode(X, [0, 1, 0, 1], discrete=True, n_classes=2)
    X[2, 5] = 2
    assert encode(X, [0, 1, 0, 1], discrete=True, n_classes=2).n_values.tolist() == [1] * 5 + [3]
