"""Engine internals: distances vs summed pair diffs, the neighbour context, profiles over k,
sampling, progress and cancelling, parameter validation."""
import itertools

import numpy as np
import pytest

from orangecontrib.relief.estimators import encode, relief_family
from orangecontrib.relief.estimators.neighbourhood.diffs import (DiffModel, DiffOptions, FEW_QUERIES,
                                                   GROUP_BYTES, TILE_WIDTH)
from orangecontrib.relief.estimators.neighbourhood.neighbours import nearest_neighbours, neighbour_weights
from orangecontrib.relief.estimators.relieff import Relief, ReliefF, ReliefFbestK
from orangecontrib.relief.estimators.rrelieff import RReliefF


def mixed_data(regression=False, n=60, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.random((n, 6))
    X[:, 2] = rng.integers(0, 3, n)
    X[:, 4] = rng.integers(0, 4, n)
    X[rng.random((n, 6)) < 0.25] = np.nan
    X[:, 5] = np.nan                                   # an attribute with no known value
    y = rng.random(n) if regression else rng.integers(0, 3, n)
    return encode(X, y, discrete=[False, False, True, False, True, False],
                  n_classes=0 if regression else 3)


@pytest.mark.parametrize("regression", [False, True])
@pytest.mark.parametrize("missing,both,numeric,distance,laplace", list(itertools.product(
    "BCD", ["both", "current"], ["linear", "ramp"], ["manhattan", "euclidean"], [False, True])))
def test_distances_equal_summed_pair_diffs(regression, missing, both, numeric, distance,
                                           laplace):
    # the tiled distance kernel and the scalar pair-diff rule are written differently;
    # inside distances RELIEF-C uses RELIEF-B's diff (Kononenko 1994 §3)
    data = mixed_data(regression)
    options = dict(both_missing=both, numeric=numeric, distance=distance, laplace=laplace)
    dist = DiffModel(data, DiffOptions(missing=missing, **options)).distances(np.arange(7))
    as_b = DiffModel(data, DiffOptions(missing="B" if missing == "C" else missing, **options))
    pairs = as_b.pair_diffs(np.repeat(np.arange(7), 60), np.tile(np.arange(60), 7))
    pairs = np.nan_to_num(pairs)                       # the unusable column adds nothing
    if distance == "euclidean":
        pairs = pairs ** 2
    np.testing.assert_allclose(dist.ravel(), pairs.sum(axis=1), rtol=1e-12, atol=1e-12)


def test_distances_over_several_tiles_and_column_groups_equal_summed_pair_diffs():
    # 1,800 instances of 3 classes and 48 columns with missing values: the kernel works on
    # several candidate tiles per class and several groups of columns
    rng = np.random.default_rng(20)
    n, a = 1800, 48
    X = rng.random((n, a))
    X[:, ::3] = rng.integers(0, 4, (n, a // 3))
    X[rng.random((n, a)) < 0.2] = np.nan
    y = rng.integers(0, 3, n)
    assert (y == 0).sum() > TILE_WIDTH and 8 * TILE_WIDTH * a * (1 + 3) > 2 * GROUP_BYTES
    data = encode(X, y, discrete=np.arange(a) % 3 == 0, n_classes=3)
    model = DiffModel(data)
    rows = np.arange(0, n, 97)
    pairs = model.pair_diffs(np.repeat(rows, n), np.tile(np.arange(n), rows.size))
    np.testing.assert_allclose(model.distances(rows), pairs.sum(axis=1).reshape(rows.size, n),
                               rtol=1e-12)
    # a few queries look their diffs to missing values up one by one instead of loading them
    # with each tile for every class: the same numbers, summed in the same order
    assert rows.size > FEW_QUERIES >= 3
    np.testing.assert_array_equal(model.distances(rows[[4, 0, 11]]),
                                  model.distances(rows)[[4, 0, 11]])


@pytest.mark.parametrize("groups", ["per-class", "pooled", "all"])
def test_search_keeps_the_lowest_indices_among_equal_distances(groups):
    # binary attributes with RELIEF-B's 1 - 1/2 for a missing value: every distance is a
    # multiple of 1/2, exact in any order of summation, and ties abound. With 1,600 instances
    # of 3 classes the candidates come in several tiles per class, and the pooled misses and
    # the single group of "all" gather them from tiles of different classes
    rng = np.random.default_rng(21)
    n = 1600
    X = rng.integers(0, 2, (n, 24)).astype(float)
    X[rng.random(X.shape) < 0.1] = np.nan
    y = rng.integers(0, 3, n)
    assert (y == 0).sum() > TILE_WIDTH
    model = DiffModel(encode(X, y, discrete=True, n_classes=3), DiffOptions(missing="B"))
    rows = np.arange(0, n, 53)
    ctx = nearest_neighbours(model, rows, 15, groups=groups, shared_ties=False)
    # by default the context holds every instance tied with the 15th too
    shared = nearest_neighbours(model, rows, 15, groups=groups)
    assert shared.shared_ties and not ctx.shared_ties
    pairs = model.pair_diffs(np.repeat(rows, n), np.tile(np.arange(n), rows.size))
    dist = pairs.sum(axis=1).reshape(rows.size, n)
    longer = 0
    for i, r in enumerate(rows):
        members = {"per-class": [y == c for c in range(3)],
                   "pooled": [y == y[r], y != y[r]], "all": [np.ones(n, bool)]}[groups]
        for g, member in enumerate(members):
            idx = np.flatnonzero(member & (np.arange(n) != r))
            ordered = idx[np.lexsort((idx, dist[i, idx]))]
            expect = ordered[:15]
            np.testing.assert_array_equal(ctx.neighbours[i, g], expect)
            np.testing.assert_array_equal(ctx.distances[i, g], dist[i, expect])
            tied = ordered[(np.arange(ordered.size) < 15) | (dist[i, ordered] == dist[i, expect[-1]])]
            found = shared.neighbours[i, g]
            np.testing.assert_array_equal(found[found >= 0], tied)
            np.testing.assert_array_equal(shared.distances[i, g][found >= 0], dist[i, tied])
            longer += tied.size > 15
    assert longer > 0       # ties at the 15th distance occur, some beyond the margin


def test_relief_c_leaves_missing_contributions_out_of_pair_diffs():
    data = encode([[0.0, np.nan], [1.0, 1.0], [np.nan, 0.0]], [0, 1, 0], n_classes=2)
    diffs = DiffModel(data, DiffOptions(missing="C")).pair_diffs([0, 0, 1], [1, 2, 2])
    # column 0: |0-1| = 1, then missing, then missing; column 1: missing, missing, |1-0| = 1
    np.testing.assert_array_equal(np.isnan(diffs), [[False, True], [True, True], [True, False]])
    assert diffs[0, 0] == 1.0 and diffs[2, 1] == 1.0


def test_context_neighbours_are_sorted_per_class_and_exclude_self():
    data = mixed_data(seed=3)
    est = ReliefF(k=4)
    ctx = est.context(data)
    dist = ctx.diff_model.distances(ctx.instances)
    for i, r in enumerate(ctx.instances):
        for c in range(3):
            found = ctx.neighbours[i, c][ctx.neighbours[i, c] >= 0]
            assert r not in found
            assert np.all(data.y[found] == c)
            # they are the 4 nearest of class c (self excluded), in order of distance, and
            # any others tied with the 4th
            members = np.flatnonzero((data.y == c) & (np.arange(data.n_instances) != r))
            expect = np.sort(dist[i, members])[:found.size]
            np.testing.assert_allclose(ctx.distances[i, c, :found.size], expect)
            assert found.size == min(4, members.size) or (
                found.size > 4 and np.all(ctx.distances[i, c, 4:found.size] == ctx.distances[i, c, 3]))


def test_k_is_capped_by_the_class_size():
    X = np.arange(7.0)[:, None]
    data = encode(X, [0, 0, 0, 0, 0, 1, 1], n_classes=2)
    ctx = ReliefF(k=10).context(data)
    np.testing.assert_array_equal(ctx.available[ctx.instances == 0], [[4, 2]])
    np.testing.assert_array_equal(ctx.available[ctx.instances == 6], [[5, 1]])


def test_skip_zero_distance_never_uses_duplicates():
    X = np.array([[0.0], [0.0], [1.0], [2.0]])
    data = encode(X, [0, 0, 1, 0], n_classes=2)
    ctx = ReliefF(k=3, skip_zero_distance=True).context(data)
    assert np.all(ctx.distances[ctx.neighbours >= 0] > 0)
    ctx_all = ReliefF(k=3).context(data)
    assert 1 in ctx_all.neighbours[0, 0]


def test_exp_rank_weights_share_the_rank_of_the_first_of_equal_distances():
    # eq. 14 with ties: distances 1, 1, 2, 3 -> ranks 0, 0, 2, 3
    X = np.array([[0.0], [1.0], [-1.0], [2.0], [3.0], [10.0]])
    data = encode(X, [0, 0, 0, 0, 0, 1], n_classes=2)
    ctx = ReliefF(k=4).context(data)
    w = neighbour_weights(ctx, "exp-rank", sigma=2.0)
    np.testing.assert_allclose(w[0, 0], np.exp(-(np.array([0, 0, 2, 3]) / 2.0) ** 2))


def test_inverse_distance_weights_give_zero_distance_neighbours_all_influence():
    X = np.array([[0.0], [0.0], [1.0], [4.0]])
    data = encode(X, [0, 0, 0, 1], n_classes=2)
    ctx = ReliefF(k=2).context(data)
    # (a third place: instance 3's two class-0 neighbours tied at the 2nd distance)
    np.testing.assert_allclose(neighbour_weights(ctx, "1/d")[0, 0], [1.0, 0.0, 0.0])
    # the range is 4: instance 2 (x = 1) is at 1/4 from both zeros -> 1/d^2 = 16 each
    np.testing.assert_allclose(neighbour_weights(ctx, "1/d2")[2, 0], [16.0, 16.0, 0.0])
    # instance 3 (x = 4): class-0 neighbours at 3/4 and 1, 1 (tied) -> 1/d = 4/3, 1, 1
    np.testing.assert_allclose(neighbour_weights(ctx, "1/d")[3, 0], [4 / 3, 1.0, 1.0])


@pytest.mark.parametrize("weighting", ["equal", "exp-rank", "1/d", "1/d2"])
def test_profile_at_each_k_equals_a_separate_run_with_that_k(weighting):
    data = mixed_data(seed=5)
    est = ReliefF(k=6, weighting=weighting, sigma=3.0)
    profile = est.profile(est.context(data), [1, 3, 6])
    for row, k in zip(profile, [1, 3, 6]):
        np.testing.assert_allclose(row, ReliefF(k=k, weighting=weighting, sigma=3.0)(data),
                                   rtol=1e-12, atol=1e-14)


def test_rrelieff_profile_at_each_k_equals_a_separate_run():
    data = mixed_data(regression=True, seed=6)
    est = RReliefF(k=8)
    profile = est.profile(est.context(data), [2, 8])
    np.testing.assert_allclose(profile[0], RReliefF(k=2)(data), rtol=1e-12)
    np.testing.assert_allclose(profile[1], RReliefF(k=8)(data), rtol=1e-12)


def test_best_k_is_the_maximum_of_the_profile_over_all_k():
    data = mixed_data(seed=7)
    best = ReliefFbestK(k_max=5)(data)
    stack = np.array([ReliefF(k=k)(data) for k in range(1, 6)])
    np.testing.assert_allclose(best, stack.max(axis=0), rtol=1e-12)


def test_attribute_without_known_values_gets_nan_and_others_stay_finite():
    data = mixed_data(seed=8)
    for est in (ReliefF(), Relief(), ReliefF(missing="C"), ReliefF(missing="B")):
        w = est(data)
        assert np.isnan(w[5]) and np.all(np.isfinite(w[:5]))
    w = RReliefF()(mixed_data(regression=True))
    assert np.isnan(w[5]) and np.all(np.isfinite(w[:5]))


def test_constant_attribute_scores_zero():
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.random(30), np.full(30, 3.0)])
    data = encode(X, rng.integers(0, 2, 30), n_classes=2)
    assert ReliefF(k=3)(data)[1] == 0.0


def test_estimates_of_derived_columns_over_one_context():
    # evaluating a subset of the columns over a context equals evaluating the full data
    data = mixed_data(seed=9)
    est = ReliefF(k=3)
    ctx = est.context(data)
    full = est.estimate(ctx)
    part = est.estimate(ctx, data.columns([0, 2]))
    np.testing.assert_allclose(part, full[[0, 2]], rtol=1e-12)


def test_sampled_iterations_repeat_for_the_same_seed():
    data = mixed_data(seed=10)
    a = ReliefF(iterations=20, random_state=42)(data)
    b = ReliefF(iterations=20, random_state=42)(data)
    c = ReliefF(iterations=20, random_state=43)(data)
    np.testing.assert_array_equal(a, b)
    assert not np.allclose(a[:5], c[:5])
    ctx = ReliefF(iterations=20, random_state=42).context(data)
    assert ctx.instances.size == 20 and np.unique(ctx.instances).size == 20


def test_all_instances_once_in_data_order_by_default():
    data = mixed_data(seed=11)
    np.testing.assert_array_equal(ReliefF().context(data).instances, np.arange(60))


def test_progress_is_reported_and_an_exception_from_the_callback_cancels():
    data = mixed_data(seed=12)
    seen = []
    ReliefF()(data, callback=seen.append)
    assert seen and seen[-1] == 1.0 and all(0 <= f <= 1 for f in seen)
    assert seen == sorted(seen)

    class Cancelled(Exception):
        pass

    def cancel(fraction):
        raise Cancelled

    with pytest.raises(Cancelled):
        ReliefF()(data, callback=cancel)


@pytest.mark.parametrize("cls", [ReliefF, RReliefF])
def test_the_diff_sums_of_a_profile_report_progress_by_blocks_and_cancel(cls, monkeypatch):
    data = mixed_data(seed=13) if cls is ReliefF else mixed_data(seed=13, regression=True)
    estimator = cls(k=8)
    context = estimator.context(data)
    expected = estimator.profile(context, [1, 4, 8])
    # blocks of 7 sampled instances (60 of them): progress 0, 7/60, ..., 56/60 before each block
    G, K = context.neighbours.shape[1:]
    monkeypatch.setattr(relief_family, "PAIR_DIFFS", 7 * G * K * data.n_attributes)
    seen = []
    np.testing.assert_allclose(estimator.profile(context, [1, 4, 8], callback=seen.append),
                               expected, rtol=1e-12, atol=1e-15)
    assert seen == [start / 60 for start in range(0, 60, 7)]

    class Cancelled(Exception):
        pass

    def cancel_later(fraction):
        if fraction > 0.5:
            raise Cancelled

    with pytest.raises(Cancelled):
        estimator.profile(context, [1, 4, 8], callback=cancel_later)


def test_the_blocks_of_a_profile_over_many_k_are_bounded_by_their_read_outs(monkeypatch):
    # a profile over many k reads each pair's running sum out once per k: the blocks shrink
    # with the number of k, not only with the pair diffs (60 instances, 3 groups, 8 k)
    data = mixed_data(seed=13)
    estimator = ReliefF(k=8)
    context = estimator.context(data)
    ks = np.arange(1, 9)
    expected = estimator.profile(context, ks)
    G = context.neighbours.shape[1]
    monkeypatch.setattr(relief_family, "PLAN_READOUTS", 2 * 1 * ks.size * G * 5)
    seen = []
    np.testing.assert_allclose(estimator.profile(context, ks, callback=seen.append), expected,
                               rtol=1e-12, atol=1e-15)
    assert seen == [start / 60 for start in range(0, 60, 5)]      # blocks of 5 instances


@pytest.mark.parametrize("params,word", [
    (dict(k=0), "k"), (dict(k=2.5), "k"), (dict(iterations=0), "iterations"),
    (dict(iterations=1000), "iterations"), (dict(weighting="gauss"), "weighting"),
    (dict(missing="E"), "missing"), (dict(numeric_diff="square"), "numeric_diff"),
    (dict(numeric_diff="ramp", t_equal=0.2, t_different=0.1), "t_equal"),
    (dict(distance="chebyshev"), "distance"), (dict(misses="some"), "misses"),
    (dict(weighting="exp-rank", sigma=0), "sigma"), (dict(random_state="x", iterations=3),
                                                      "random_state"),
])
def test_bad_parameters_raise_value_error_naming_the_parameter(params, word):
    with pytest.raises(ValueError, match=word):
        ReliefF(**params)(mixed_data())


@pytest.mark.parametrize("X,y,n_classes,message", [
    (np.zeros((1, 2)), [0], 2, "at least 2 instances"),
    (np.zeros((0, 2)), [], 2, "at least 2 instances"),
    (np.random.default_rng(0).random((5, 2)), [1] * 5, 2, "two classes"),
    (np.random.default_rng(0).random((5, 0)), [0, 1, 0, 1, 0], 2, "no attributes"),
])
def test_degenerate_data_raise_value_error(X, y, n_classes, message):
    with pytest.raises(ValueError, match=message):
        ReliefF()(encode(X, y, n_classes=n_classes))


def test_encode_rejects_infinite_and_missing_targets_and_bad_codes():
    with pytest.raises(ValueError, match="finite"):
        encode([[np.inf]], [0], n_classes=2)
    with pytest.raises(ValueError, match="missing"):
        encode([[0.0], [1.0]], [0, np.nan], n_classes=2)
    with pytest.raises(ValueError, match="codes"):
        encode([[0.5], [1.0]], [0, 1], discrete=True, n_values=2, n_classes=2)


def test_wrong_target_type_is_named():
    with pytest.raises(ValueError, match="classification target"):
        ReliefF()(mixed_data(regression=True))
    with pytest.raises(ValueError, match="regression target"):
        RReliefF()(mixed_data())


def test_ties_are_shared_so_profiles_match_separate_runs_on_binary_data():
    # binary parity data has many equal distances; the k nearest are taken by (distance, index)
    # and every other one tied with the k-th is kept too
    rng = np.random.default_rng(13)
    X = rng.integers(0, 2, (80, 6)).astype(float)
    data = encode(X, (X[:, 0] != X[:, 1]).astype(int), discrete=True, n_classes=2)
    est = ReliefF(k=12)
    ctx = est.context(data)
    profile = est.profile(ctx, [1, 4, 12])
    for row, k in zip(profile, [1, 4, 12]):
        np.testing.assert_allclose(row, ReliefF(k=k)(data), rtol=1e-12, atol=1e-15)
    # and the chosen neighbours are the lowest-indexed among equal distances
    dist = ctx.diff_model.distances(ctx.instances[:1])[0]
    dist[0] = np.inf
    members = np.flatnonzero(data.y == data.y[0])
    ordered = members[np.lexsort((members, dist[members]))]
    expect = ordered[(np.arange(ordered.size) < 12) | (dist[ordered] == dist[ordered[11]])]
    assert expect.size > 12
    found = ctx.neighbours[0, int(data.y[0])]
    np.testing.assert_array_equal(found[found >= 0], expect)


def test_extended_model_measures_new_rows_with_the_training_ranges_and_probabilities():
    train = mixed_data(seed=14)
    model = DiffModel(train)
    queries = train.X[:3]                    # copies of training rows, with their classes
    ext = model.extended(queries, train.y[:3])
    n = train.n_instances
    np.testing.assert_allclose(ext.distances(np.arange(n, n + 3))[:, :n],
                               model.distances(np.arange(3)), rtol=1e-12)
    # a value beyond the training maximum gives a diff above 1 (the training range is kept)
    far = np.array([[train.minimum[0] + 2 * train.span[0]] + [np.nan] * 5])
    diff = model.extended(far).pair_diffs([n], [int(np.nanargmin(train.X[:, 0]))])
    assert diff.shape == (1, 6) and diff[0, 0] == pytest.approx(2.0)


@pytest.mark.parametrize("integer_valued", [False, True])
@pytest.mark.parametrize("est", [ReliefF(k=5), ReliefF(k=5, misses="pooled"), Relief(),
                                 ReliefF(k=5, distance="euclidean", weighting="1/d")])
def test_kd_tree_search_finds_the_brute_force_neighbours(monkeypatch, est, integer_valued):
    # the k-d tree path (few numeric attributes, many instances) against brute force, also on
    # integer-valued data where many distances tie (those rows fall back to brute force)
    from orangecontrib.relief.estimators.neighbourhood import neighbours
    rng = np.random.default_rng(15)
    X = rng.integers(0, 4, (400, 3)).astype(float) if integer_valued else rng.random((400, 3))
    data = encode(X, ((X[:, 0] > 1.5) ^ (X[:, 1] > 1.5)).astype(int) if integer_valued
                  else ((X[:, 0] > 0.5) ^ (X[:, 1] > 0.5)).astype(int), n_classes=2)
    brute = est.context(data)
    monkeypatch.setattr(neighbours, "KD_TREE_MIN_INSTANCES", 100)
    assert neighbours._kd_tree_suits(brute.diff_model)
    kd = est.context(data)
    np.testing.assert_array_equal(kd.neighbours, brute.neighbours)
    np.testing.assert_allclose(kd.distances, brute.distances, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(est.estimate(kd), est.estimate(brute), rtol=1e-10)


def test_kd_tree_search_for_rrelieff_matches_brute_force(monkeypatch):
    from orangecontrib.relief.estimators.neighbourhood import neighbours
    rng = np.random.default_rng(16)
    X = rng.random((300, 4))
    data = encode(X, X[:, 0] + rng.random(300) * 0.1)
    brute = RReliefF(k=20).context(data)
    monkeypatch.setattr(neighbours, "KD_TREE_MIN_INSTANCES", 100)
    kd = RReliefF(k=20).context(data)
    np.testing.assert_array_equal(kd.neighbours, brute.neighbours)
