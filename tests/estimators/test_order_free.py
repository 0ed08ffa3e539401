"""Estimates that do not depend on the order of the rows.

On discrete data many distances tie, and which of the instances tied at the k-th distance are
"the k nearest" would depend on the row order. The Relief family shares the remaining places
among them: the expected estimate over all orders of the tied instances. Checked here by
permuting the rows (every instance sampled, so the same iterations in another order), against
a hand-worked case, against the plain reference of ``reference_relief`` averaged over every
order of the rows of a tiny data set, and across the search paths (single precision, k-d tree,
sparse, bit planes); ``preset="corelearn"`` keeps CORElearn's order.
"""
import itertools

import numpy as np
import pytest
import scipy.sparse as sp

from orangecontrib.relief.estimators import encode
from orangecontrib.relief.estimators.multiscale import MultiScaleRelief
from orangecontrib.relief.estimators.neighbourhood import neighbours as search_module
from orangecontrib.relief.estimators.neighbourhood import single_precision
from orangecontrib.relief.estimators.neighbourhood.diffs import DiffModel
from orangecontrib.relief.estimators.relieff import Relief, ReliefF, ReliefFbestK
from orangecontrib.relief.estimators.rrelieff import RReliefF, RReliefFbestK
from orangecontrib.relief.estimators.surf import MultiSURF
from orangecontrib.relief.estimators.turf import TuRF

import reference_relief as ref


def snps(n=240, a=12, missing=0.0, regression=False, seed=0):
    """SNP-like columns coded 0/1/2; the class is the XOR of two SNPs' parity with 10 % noise
    (or, for a numeric target, their sum plus noise); a fraction ``missing`` of values NaN."""
    rng = np.random.default_rng(seed)
    X = rng.choice(3, size=(n, a), p=[0.64, 0.32, 0.04]).astype(float)
    if regression:
        y = X[:, 0] + X[:, 1] + rng.normal(0, 0.3, n)
    else:
        y = ((X[:, 0] % 2) != (X[:, 1] % 2)).astype(float)
        flip = rng.random(n) < 0.1
        y[flip] = 1 - y[flip]
    if missing:
        X[rng.random(X.shape) < missing] = np.nan
    return X, y


def discretised(n=300, a=8, seed=1):
    """Uniform numeric columns cut into 4 equal-width intervals (discrete codes 0..3), a class
    of three values decided by the first two."""
    rng = np.random.default_rng(seed)
    U = rng.random((n, a))
    X = np.minimum((U * 4).astype(int), 3).astype(float)
    y = ((U[:, 0] > 0.5).astype(int) + (U[:, 1] > 0.3)).astype(float)
    return X, y


def encoded(X, y, rows=None, regression=False, weights=None, n_values=3):
    rows = np.arange(len(y)) if rows is None else rows
    return encode(X[rows], y[rows], discrete=True, n_values=n_values,
                  n_classes=0 if regression else int(y.max()) + 1,
                  weights=None if weights is None else weights[rows])


def assert_order_free(estimator, X, y, regression=False, weights=None, n_values=3, shuffles=3):
    """The estimates on ``shuffles`` permutations of the rows equal those in the data's order
    to 1e-12; returns the estimates."""
    base = np.asarray(estimator(encoded(X, y, None, regression, weights, n_values)))
    rng = np.random.default_rng(7)
    for _ in range(shuffles):
        rows = rng.permutation(len(y))
        again = estimator(encoded(X, y, rows, regression, weights, n_values))
        np.testing.assert_allclose(again, base, rtol=0, atol=1e-12)
    return base


CLASSIFICATION = [
    ReliefF(k=1), ReliefF(k=5), ReliefF(k=10), ReliefF(k=25),
    ReliefF(k=10, weighting="exp-rank", sigma=4.0), ReliefF(k=10, weighting="1/d"),
    ReliefF(k=10, weighting="1/d2", distance="euclidean"), ReliefF(k=7, misses="pooled"),
    ReliefF(k=10, skip_zero_distance=True), Relief(), Relief(k=3), ReliefFbestK(k_max=30),
]


@pytest.mark.parametrize("estimator", CLASSIFICATION, ids=repr)
def test_relief_family_on_snps_does_not_depend_on_the_row_order(estimator):
    X, y = snps()
    assert_order_free(estimator, X, y)


@pytest.mark.parametrize("estimator", [ReliefF(k=10), ReliefF(k=3, weighting="exp-rank"),
                                       ReliefFbestK(k_max=15), Relief()], ids=repr)
def test_discretised_data_does_not_depend_on_the_row_order(estimator):
    X, y = discretised()
    assert_order_free(estimator, X, y, n_values=4)


@pytest.mark.parametrize("missing", ["B", "C", "D"])
@pytest.mark.parametrize("weighting", ["equal", "exp-rank"])
def test_missing_value_variants_do_not_depend_on_the_row_order(missing, weighting):
    X, y = snps(missing=0.08, seed=3)
    assert_order_free(ReliefF(k=10, missing=missing, weighting=weighting, sigma=5.0), X, y)


@pytest.mark.parametrize("estimator", [RReliefF(k=10), RReliefF(k=40), RReliefF(k=10, weighting="equal"),
                                       RReliefF(k=10, missing="C"), RReliefFbestK(k_max=20)],
                         ids=repr)
def test_rrelieff_does_not_depend_on_the_row_order(estimator):
    X, y = snps(missing=0.05 if estimator.missing == "C" else 0.0, regression=True, seed=4)
    assert_order_free(estimator, X, y, regression=True)


def test_multiscale_relief_and_turf_do_not_depend_on_the_row_order():
    X, y = snps(n=200, a=10, seed=5)
    assert_order_free(MultiScaleRelief(), X, y, shuffles=2)
    assert_order_free(TuRF(ReliefF(k=10), remove=0.5, rounds=1), X, y, shuffles=2)
    assert_order_free(MultiSURF(), X, y, shuffles=2)


def test_instance_weights_do_not_depend_on_the_row_order():
    X, y = snps(n=150, seed=6)
    weights = np.random.default_rng(6).integers(1, 4, 150).astype(float)
    for estimator in (ReliefF(k=10), ReliefF(k=5, weighting="exp-rank"), RReliefF(k=10)):
        target = y if isinstance(estimator, ReliefF) else y + X[:, 2]
        assert_order_free(estimator, X, target, regression=isinstance(estimator, RReliefF),
                          weights=weights, shuffles=2)


def test_the_old_order_dependence_is_real():
    # the same data in another order gives other estimates when ties are broken by index (the
    # search keeps that order on request): what the shared places mend
    X, y = snps()
    est = ReliefF(k=10)

    def by_index(rows):
        data = encoded(X, y, rows)
        model = DiffModel(data, est.diff_options())
        context = search_module.nearest_neighbours(model, np.arange(len(y)), 10,
                                                   shared_ties=False)
        return est.estimate(context)
    rows = np.random.default_rng(7).permutation(len(y))
    assert np.abs(by_index(rows) - by_index(None)).max() > 1e-3


def test_equal_to_index_order_where_no_distances_tie():
    # continuous numeric data: no two distances equal, so sharing changes nothing
    rng = np.random.default_rng(8)
    X = rng.random((200, 6))
    y = (X[:, 0] > X[:, 1]).astype(float)
    data = encode(X, y, n_classes=2)
    for est in (ReliefF(k=10), ReliefF(k=10, weighting="exp-rank"), ReliefFbestK(k_max=20),
                Relief()):
        model = DiffModel(data, est.diff_options())
        old = search_module.nearest_neighbours(model, np.arange(200), est.k_, est.groups,
                                               shared_ties=False)
        assert old.neighbours.shape == est.context(data).neighbours.shape
        np.testing.assert_allclose(est(data), est.estimate(old), rtol=0, atol=1e-15)
    r_data = encode(X, X[:, 0] + X[:, 2], n_classes=0)
    est = RReliefF(k=10)
    old = search_module.nearest_neighbours(DiffModel(r_data, est.diff_options()),
                                           np.arange(200), 10, "all", shared_ties=False)
    np.testing.assert_allclose(est(r_data), est.estimate(old), rtol=0, atol=1e-15)


# A hand-worked case: two binary attributes A, B (Manhattan distance = number of differing
# attributes), two classes, ReliefF with k = 1, every instance once:
#
#   i0 (0,0) c0: hits i1, i2 both at 1 -> half a place each; miss i3 at 0.
#                A: 0 - (0 + 1)/2 = -1/2        B: 0 - (1 + 0)/2 = -1/2
#   i1 (0,1) c0: hit i0 at 1; misses i3, i4 both at 1 -> half each.
#                A: (0 + 1)/2 - 0 = 1/2         B: (1 + 0)/2 - 1 = -1/2
#   i2 (1,0) c0: hit i0 at 1; misses i3, i4 both at 1.
#                A: (1 + 0)/2 - 1 = -1/2        B: (0 + 1)/2 - 0 = 1/2
#   i3 (0,0) c1: hit i4 at 2; miss i0 at 0.     A: 0 - 1 = -1   B: 0 - 1 = -1
#   i4 (1,1) c1: hit i3 at 2; misses i1, i2 at 1.
#                A: (1 + 0)/2 - 1 = -1/2        B: (0 + 1)/2 - 1 = -1/2
#
# W = (sum) / 5 = (-2/5, -2/5). Ties broken by index (the lower one taken) give
# (-1/5, -3/5) instead, and another order of the rows other numbers again.
HAND_X = np.array([[0, 0], [0, 1], [1, 0], [0, 0], [1, 1]], dtype=float)
HAND_Y = np.array([0, 0, 0, 1, 1], dtype=float)


def test_hand_worked_ties_share_the_place():
    data = encode(HAND_X, HAND_Y, discrete=True, n_values=2, n_classes=2)
    np.testing.assert_allclose(ReliefF(k=1)(data), [-0.4, -0.4], rtol=0, atol=1e-15)
    np.testing.assert_allclose(ReliefF.corelearn(k=1, skip_zero_distance=False)(data),
                               [-0.2, -0.6], rtol=0, atol=1e-15)


def test_hand_worked_ties_share_by_instance_weights():
    # i1 of weight 2 (two copies): the copies fill places as two instances would.
    #   i0: hits i1 (2 places), i2 (1) at 1 -> i1 2/3, i2 1/3 of the place.
    #       A: -(0 * 2/3 + 1 * 1/3) = -1/3        B: -(1 * 2/3 + 0) = -2/3
    #   i1 (update weight 2): hit its other copy at 0 (diff 0); misses i3, i4 at 1, half each.
    #       A: 2 * 1/2 = 1                         B: 2 * 1/2 = 1
    #   i2: A -1/2, B 1/2 (as above); i3: A -1, B -1
    #   i4: misses i1 (2 places), i2 (1) at 1 -> 2/3, 1/3; hit i3: 1, 1.
    #       A: 2/3 - 1 = -1/3                      B: 1/3 - 1 = -2/3
    # W = (sum) / (total weight 6) = (-7/6, -5/6) / 6
    data = encode(HAND_X, HAND_Y, discrete=True, n_values=2, n_classes=2,
                  weights=[1.0, 2.0, 1.0, 1.0, 1.0])
    np.testing.assert_allclose(ReliefF(k=1)(data), [-7 / 36, -5 / 36], rtol=0, atol=1e-15)


def tiny(seed, regression=False):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, (6, 3)).astype(float)
    y = rng.random(6) if regression else np.array([0, 0, 0, 1, 1, 1], float)
    return X, y


def reference_average(X, y, run, regression=False):
    """The plain reference's estimates (ties broken by row index) averaged over every order
    of the rows: the expected value over all orders of the tied instances."""
    total = 0.0
    orders = list(itertools.permutations(range(len(y))))
    for rows in orders:
        rows = list(rows)
        data = ref.ReferenceData(X[rows].tolist(), y[rows].tolist(), [True] * X.shape[1],
                                 [2] * X.shape[1], 0 if regression else 2)
        total += np.array(run(data))
    return total / len(orders)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("case", ["k1", "k2", "k2 exp-rank", "k2 1/d", "relief"])
def test_equal_to_the_reference_averaged_over_every_row_order(case, seed):
    X, y = tiny(seed)
    estimator, run = {
        "k1": (ReliefF(k=1), lambda d: ref.relieff(d, k=1)),
        "k2": (ReliefF(k=2), lambda d: ref.relieff(d, k=2)),
        "k2 exp-rank": (ReliefF(k=2, weighting="exp-rank", sigma=1.0),
                        lambda d: ref.relieff(d, k=2, weighting="exp-rank", sigma=1.0)),
        "k2 1/d": (ReliefF(k=2, weighting="1/d"), lambda d: ref.relieff(d, k=2, weighting="1/d")),
        "relief": (Relief(), lambda d: ref.relief(d)),
    }[case]
    data = encode(X, y, discrete=True, n_values=2, n_classes=2)
    np.testing.assert_allclose(estimator(data), reference_average(X, y, run), atol=1e-12)


def reference_rrelieff_sums(data, k):
    """N_dC, N_dA, N_dC&dA (Fig. 4, equal influences) by the plain reference's search (ties
    by row index) and diffs."""
    n_dc, n_da, n_dcda = 0.0, np.zeros(data.a), np.zeros(data.a)
    for r in range(data.n):
        found = ref.nearest(data, r, range(data.n), k)
        for w, (_, j) in zip(ref.neighbour_weights(found), found):
            d_c = data.target_diff(r, j)
            n_dc += w * d_c
            for t in range(data.a):
                n_da[t] += w * data.diff(t, r, j, current=r)
                n_dcda[t] += w * d_c * data.diff(t, r, j, current=r)
    return np.concatenate([[n_dc], n_da, n_dcda])


@pytest.mark.parametrize("seed", [0, 3])
def test_rrelieff_equal_to_the_reference_sums_averaged_over_every_row_order(seed):
    # RReliefF's estimate is a ratio of sums: the sums are their expected values over the
    # orders of the tied instances (for ReliefF, a plain sum, so is the estimate)
    X, y = tiny(seed, regression=True)
    data = encode(X, y, discrete=True, n_values=2, n_classes=0)
    sums = reference_average(X, y, lambda d: reference_rrelieff_sums(d, 2), True)
    a, m = X.shape[1], len(y)
    n_dc, n_da, n_dcda = sums[0], sums[1:1 + a], sums[1 + a:]
    expect = n_dcda / n_dc - (n_da - n_dcda) / (m - n_dc)
    np.testing.assert_allclose(RReliefF(k=2, weighting="equal")(data), expect, atol=1e-12)


def test_corelearn_preset_keeps_its_order():
    X, y = snps()
    data = encoded(X, y)
    est = ReliefF.corelearn(k=10)
    context = est.context(data)
    assert not context.shared_ties and context.neighbours.shape[2] == 10
    model = DiffModel(data, est.diff_options())
    old = search_module.nearest_neighbours(model, np.arange(len(y)), 10, shared_ties=False)
    np.testing.assert_array_equal(context.neighbours, old.neighbours)
    np.testing.assert_array_equal(est(data), est.estimate(old))


def numeric_ties(n):
    """Numeric columns on a grid of 5 values (distances tie), a class decided by two."""
    rng = np.random.default_rng(9)
    X = rng.integers(0, 5, (n, 4)) / 4.0
    y = (X[:, 0] + X[:, 1] > 1.0).astype(float)
    return X, y


@pytest.mark.parametrize("path", ["single precision", "k-d tree"])
def test_search_paths_give_the_same_tied_context(path, monkeypatch):
    # the double-precision brute-force search against the single-precision one (certified,
    # exact ties at the k-th included) or the k-d tree (near-ties searched again)
    X, y = numeric_ties(900)
    data = encode(X, y, n_classes=2)
    module, name, off, on = {
        "single precision": (single_precision, "MIN_WORK", 10 ** 30, 0),
        "k-d tree": (search_module, "KD_TREE_MIN_INSTANCES", 10 ** 9, 100)}[path]
    monkeypatch.setattr(module, name, off)
    brute = ReliefF(k=10).context(data)
    monkeypatch.setattr(module, name, on)
    assert (single_precision.suits(DiffModel(data), 900, False) if module is single_precision
            else search_module._kd_tree_suits(DiffModel(data)))
    other = ReliefF(k=10).context(data)
    assert brute.neighbours.shape[2] > 10         # ties beyond the 10th
    np.testing.assert_array_equal(other.neighbours, brute.neighbours)
    np.testing.assert_array_equal(other.distances, brute.distances)


@pytest.mark.parametrize("places", [1, 3, 64])
@pytest.mark.parametrize("mode", ["compiled", "numpy"])
@pytest.mark.parametrize("a", [6, 70])
def test_the_search_keeps_every_instance_tied_with_the_kth(places, mode, a, monkeypatch):
    # the K nearest by (distance, index) and every instance tied with the K-th, however few
    # places the search keeps for the tied (rows whose places fill up are searched again):
    # by the kernel (tiles on 6 columns, bit planes on 70) and its numpy equivalent, against
    # a plain sort of the numbers of differing values
    from orangecontrib.relief.compilation import kernel_mode
    X, y = snps(n=150, a=a, seed=13)
    monkeypatch.setattr(search_module, "tie_places", lambda model, K, size: places)
    K = 5
    model = DiffModel(encode(X, y, discrete=True, n_classes=2))
    with kernel_mode(mode):
        context = search_module.nearest_neighbours(model, np.arange(150), K)
    assert context.search == ("packed SNP" if a == 70 else "double precision")
    D = (X[:, None, :] != X[None, :, :]).sum(axis=2)
    longest = 0
    for i in range(150):
        for g in range(2):
            others = sorted((D[i, j], j) for j in range(150) if y[j] == g and j != i)
            want = [j for d, j in others[:K]] + [j for d, j in others[K:] if d == others[K - 1][0]]
            found = context.neighbours[i, g]
            np.testing.assert_array_equal(found[found >= 0], want)
            np.testing.assert_array_equal(context.distances[i, g, :len(want)], D[i, want])
            longest = max(longest, len(want) - K)
    assert longest > 3                          # (more tied than the fewest places kept)
    # the places after the longest run are empty, and cut off unless they are under a quarter
    width = context.neighbours.shape[2]
    assert (context.neighbours[:, :, K + longest:] < 0).all()
    assert width == K + longest or K + longest < width < 4 * (K + longest) / 3


def test_sparse_search_gives_the_same_estimates():
    X, y = snps(n=200, seed=10)
    dense = encode(X, y, n_classes=2)
    sparse = encode(sp.csr_matrix(X), y, n_classes=2)
    for est in (ReliefF(k=10), ReliefF(k=4, weighting="exp-rank"), Relief()):
        np.testing.assert_allclose(est(sparse), est(dense), rtol=0, atol=1e-12)
        rows = np.random.default_rng(1).permutation(200)
        np.testing.assert_allclose(est(encode(sp.csr_matrix(X[rows]), y[rows], n_classes=2)),
                                   est(dense), rtol=0, atol=1e-12)


def test_bit_planes_and_tiles_give_the_same_estimates():
    # SNP codes as discrete columns are searched by bit planes; as numeric 0/0.5/1 by tiles
    # (on 0/1 data, where the discrete and the linear numeric diff are both 0 or 1)
    X, y = snps(n=300, a=70, seed=11)
    binary = (X > 0).astype(float)
    for est in (ReliefF(k=10), RReliefF(k=10)):
        target = y if isinstance(est, ReliefF) else y + binary[:, 3]
        n_classes = 2 if isinstance(est, ReliefF) else 0
        planes = encode(binary, target, discrete=True, n_values=2, n_classes=n_classes)
        tiles = encode(binary, target, n_classes=n_classes)
        assert DiffModel(planes).planes.shape[2] and not DiffModel(tiles).planes.shape[2]
        np.testing.assert_allclose(est(planes), est(tiles), rtol=0, atol=1e-12)


def test_permutation_test_contexts_keep_the_ties():
    # a permutation test reads each permuted class's groups off one sorted search (regroup):
    # the same context as a search of the permuted data, ties at the k-th included
    X, y = snps(n=150, seed=12)
    est = ReliefF(k=10)
    contexts = est.target_contexts(encoded(X, y))
    permuted = np.random.default_rng(2).permutation(y)
    target = encoded(X, permuted)
    read_off, searched = contexts(target), est.context(target)
    assert read_off.shared_ties and searched.neighbours.shape[2] > 10
    np.testing.assert_array_equal(read_off.neighbours, searched.neighbours)
    np.testing.assert_array_equal(read_off.distances, searched.distances)
    np.testing.assert_allclose(est.estimate(read_off), est(target), rtol=0, atol=1e-15)


def test_stir_does_not_depend_on_the_row_order():
    # STIR's hit and miss pairs: tied neighbours enter by their shares of the places, and
    # count as that many pairs (so ties do not inflate the number of pairs)
    from orangecontrib.relief.estimators.significance import stir
    X, y = snps(n=200, seed=13)
    base = stir(ReliefF(k=10), encoded(X, y))
    rows = np.random.default_rng(3).permutation(200)
    again = stir(ReliefF(k=10), encoded(X, y, rows))
    np.testing.assert_allclose(again.statistics, base.statistics, rtol=1e-10)
    pairs = ReliefF(k=10).hit_miss_pairs(ReliefF(k=10).context(encoded(X, y)))
    # every sampled instance fills exactly k places in its hit group and each miss group
    per_row = np.bincount(pairs.rows, weights=pairs.places, minlength=200)
    np.testing.assert_allclose(per_row, 20.0)
