"""Discrete data as packed bit planes: the distances, neighbours, band counts and estimates equal
those of the plain path exactly, and data that cannot be packed are not; data held only as
planes (PackedColumns) read like their array and give the same estimates without a decoded
copy."""
import numpy as np
import pytest

from orangecontrib.relief.estimators import encode, encoding
from orangecontrib.relief.estimators.neighbourhood import diffs
from orangecontrib.relief.estimators.neighbourhood.diffs import DiffModel
from dataclasses import replace

from orangecontrib.relief.compilation import kernel_mode
from orangecontrib.relief.estimators.neighbourhood.packed import (PackedColumns,
                                                                  BAND_WORDS, band_mismatch_counts,
                                                                  cell_mismatch_counts,
                                                                  column_planes, pack_planes)
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


@pytest.mark.parametrize("a, rows", [(100, [0, 5, 699]),
                                     # several blocks of words and of queries
                                     (64 * 64 + 70, [3, 0, 5, 699, 1, 2, 9, 11, 650, 10]),
                                     # a query's words split into pieces (BAND_WORDS)
                                     (64 * (BAND_WORDS + 2) + 70, [3, 650])])
def test_band_mismatch_counts_equal_counts_by_comparison(a, rows):
    # more than 255 members of a group: the vertical counters are read out on the way
    rng = np.random.default_rng(3)
    n = 700
    X = rng.integers(0, 3, (n, a)).astype(np.uint8)
    groups = rng.integers(0, 2, n).astype(np.intp)
    rows = np.array(rows)
    member = (rng.random((rows.size, n)) < 0.9).astype(np.int8)
    out = np.full((rows.size, 2, a), 7.0)
    band_mismatch_counts(pack_planes(X, np.arange(a)), rows, member, groups, 2, out)
    for q, r in enumerate(rows):
        for g in range(2):
            others = (member[q] > 0) & (groups == g)
            assert others.sum() > 255
            np.testing.assert_array_equal(out[q, g], (X[others] != X[r]).sum(axis=0))


@pytest.mark.parametrize("mode", ["compiled", "numpy"])
def test_cell_mismatch_counts_equal_counts_by_comparison(mode):
    # three groups of 70, 1 and 130 instances laid out each from a whole word; four values;
    # cells shared by two groups and a query whose cells differ from another's
    rng = np.random.default_rng(5)
    n, a = 201, 70
    X = rng.integers(0, 4, (n, a)).astype(float)
    groups = rng.permutation(np.repeat([0, 1, 2], [70, 1, 130]))
    bounds = np.array([0, 2, 3, 6])
    positions = np.empty(n, np.intp)
    for g in range(3):
        members = np.flatnonzero(groups == g)
        positions[members] = 64 * bounds[g] + rng.permutation(members.size)
    columns = column_planes(pack_planes(X, np.arange(a)), np.arange(a), positions, 6)
    rows = np.array([0, 7, 200, 7])
    member = rng.random((rows.size, n)) < 0.6
    masks = np.zeros((rows.size, 6), np.uint64)
    for q, j in zip(*np.nonzero(member)):
        masks[q, positions[j] // 64] |= np.uint64(1) << np.uint64(positions[j] % 64)
    cells = np.array([[0, 1, 1], [2, 0, 1], [0, 0, 0], [1, 2, 0]], np.intp)
    out = np.full((3, a), 5, np.int64)
    with kernel_mode(mode):
        cell_mismatch_counts(columns, masks, positions[rows], bounds, cells, out)
    expected = np.full((3, a), 5, np.int64)
    for q, r in enumerate(rows):
        for g in range(3):
            others = member[q] & (groups == g)
            expected[cells[q, g]] += (X[others] != X[r]).sum(axis=0)
    np.testing.assert_array_equal(out, expected)


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


def test_packed_columns_read_like_the_array_they_hold():
    # value v of column u: bit u % 64 of word u // 64, v & 1 in plane 0 and v >> 1 in plane 1
    planes = np.zeros((2, 2, 2), np.uint64)
    planes[0, 0, 0] = 1 << 1                     # row 0, column 1: value 1
    planes[0, 1, 0] = 1 << 2                     # row 0, column 2: value 2
    planes[1, 0, 1] = planes[1, 1, 1] = 1 << 3   # row 1, column 67: value 3
    held = PackedColumns(planes, 70)
    want = np.zeros((2, 70), np.int8)
    want[0, 1], want[0, 2], want[1, 67] = 1, 2, 3
    assert held.shape == (2, 70) and held.dtype == np.int8 and held.nbytes == 64
    np.testing.assert_array_equal(np.asarray(held), want)
    np.testing.assert_array_equal(held[[1, 0]], want[[1, 0]])
    np.testing.assert_array_equal(held[:, [67, 2]], want[:, [67, 2]])
    np.testing.assert_array_equal(held[1, 60:], want[1, 60:])
    assert held[1, 67] == 3 and held[0, 3] == 0
    with pytest.raises(ValueError, match="do not hold 200 columns"):
        PackedColumns(planes, 200)


def held_as_planes(data):
    return replace(data, X=PackedColumns(pack_planes(data.X, np.arange(data.n_attributes)),
                                         data.n_attributes))


@pytest.mark.parametrize("a", [5, 70, 300])
def test_data_held_as_planes_give_the_estimates_of_the_array(monkeypatch, a):
    data = snps(120, a, seed=a)
    regression = snps(100, a, seed=a + 1, regression=True)
    weighted = replace(data, weights=np.random.default_rng(0).integers(1, 4, 120).astype(float))
    monkeypatch.setattr(diffs, "PACKED_MIN_COLUMNS", 10 ** 9)   # the array: the plain path
    cases = [(ReliefF(k=7), data), (ReliefF(k=5, iterations=40, random_state=1), data),
             (ReliefF(k=3, misses="pooled"), data), (ReliefFbestK(k_max=12), data),
             (SURF(), data), (MultiSURF(), data), (MultiSURFstar(), data),
             (ReliefF.corelearn(), data), (RReliefF(k=10), regression),
             (MultiSURF(), regression), (ReliefF(k=4), weighted), (MultiSURF(), weighted)]
    for estimator, table in cases:
        np.testing.assert_array_equal(estimator(held_as_planes(table)), estimator(table),
                                      err_msg=estimator.name)


def test_data_held_as_planes_are_never_decoded_whole(monkeypatch):
    table = snps(150, 200, seed=4)
    data = held_as_planes(table)
    estimators = (ReliefF(k=10), ReliefF(k=10, iterations=50, random_state=0), MultiSURF(),
                  MultiSURFstar(iterations=50, random_state=0))
    want = [estimator(table) for estimator in estimators]

    def refuse(*args, **kwargs):
        raise AssertionError("the whole table was decoded")
    monkeypatch.setattr(PackedColumns, "__array__", refuse)
    for estimator, expected in zip(estimators, want):
        np.testing.assert_array_equal(estimator(data), expected, err_msg=estimator.name)
