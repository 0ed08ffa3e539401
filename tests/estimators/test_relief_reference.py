"""The vectorised Relief engine agrees with the plain loop-by-loop reference (reference_relief.py)
to 1e-10 on random data with missing values, for classification and regression.

The data are continuous random values (plus discrete attributes), so that no two distances from an
instance tie and the neighbour sets are well defined; a generated table with a tie is replaced by
the next seed's.
"""
import numpy as np
import pytest

from orangecontrib.relief.estimators import encode
from orangecontrib.relief.estimators.relieff import Relief, ReliefF, ReliefFbestK
from orangecontrib.relief.estimators.rrelieff import RReliefF

from reference_relief import ReferenceData, relief, relieff, relieff_best_k, rrelieff

TOL = 1e-10
DIFF_KEYS = ("numeric_diff", "t_equal", "t_different", "missing", "laplace", "both_missing",
             "numeric_bins", "distance")


def random_table(seed, n, n_classes, missing_rate=0.12, duplicates=0):
    """4 numeric and 3 discrete (2, 3, 4 values) attributes, NaN at ``missing_rate``;
    class codes 0..n_classes-1 (each class at least 3 instances) or, for n_classes=0, a
    real target that depends on the first two attributes. ``duplicates`` rows are exact copies
    of earlier rows (same class)."""
    rng = np.random.default_rng(seed)
    numeric = rng.random((n, 4))
    discrete = np.column_stack([rng.integers(0, v, n) for v in (2, 3, 4)]).astype(float)
    X = np.hstack([numeric, discrete])
    if n_classes:
        y = np.concatenate([np.repeat(np.arange(n_classes), 3),
                            rng.integers(0, n_classes, n - 3 * n_classes)]).astype(float)
        rng.shuffle(y)
        # make the first attributes informative, so estimates are not all noise
        X[:, 0] = (X[:, 0] + y) / n_classes
        X[:, 4] = np.where(rng.random(n) < 0.7, y % 2, X[:, 4])
    else:
        y = X[:, 0] + X[:, 1] ** 2 + 0.1 * rng.random(n)
    X[rng.random(X.shape) < missing_rate] = np.nan
    if duplicates:
        X[-duplicates:] = X[:duplicates]
        y[-duplicates:] = y[:duplicates]
    return X, y, np.array([False] * 4 + [True] * 3), np.array([0] * 4 + [2, 3, 4])


def has_distance_ties(ref, ignore_zero=False):
    """Whether two distances from some instance tie (the neighbour order would be ambiguous).
    Exact copies of a row (same values and class) are counted once: whichever of them is taken,
    the contribution is the same."""
    rows = [tuple(str(v) for v in row) + (ref.y[j],) for j, row in enumerate(ref.X)]
    distinct = [j for j in range(ref.n) if rows[j] not in rows[:j]]
    for i in range(ref.n):
        ds = [ref.distance(i, j) for j in distinct if j != i]
        if ignore_zero:
            ds = [d for d in ds if d != 0]
        ds.sort()
        if any(abs(a - b) < 1e-9 for a, b in zip(ds, ds[1:])):
            return True
    return False


def tie_free(n, n_classes, options, seed=0, duplicates=0):
    """(EncodedData, ReferenceData) of the first seed whose table has no distance ties."""
    diff_options = {key: options[key] for key in DIFF_KEYS if key in options}
    for s in range(seed, seed + 50):
        X, y, disc, nv = random_table(s, n, n_classes, duplicates=duplicates)
        ref = ReferenceData(X.tolist(), y.tolist(), disc, nv, n_classes, **diff_options)
        if not has_distance_ties(ref, ignore_zero=bool(duplicates)):
            data = encode(X, y, discrete=disc, n_values=nv, n_classes=n_classes or None)
            return data, ref
    raise AssertionError("no tie-free table found")


def reference_options(options, *keys):
    return {key: options[key] for key in keys if key in options}


CLASSIFICATION_CASES = [
    dict(k=1),
    dict(k=3),
    dict(k=6),
    dict(k=50),                                     # k larger than every class: capped
    dict(k=5, weighting="exp-rank", sigma=2.0),
    dict(k=4, weighting="1/d"),
    dict(k=4, weighting="1/d2"),
    dict(k=3, misses="pooled"),                     # RELIEF-E
    dict(k=4, misses="pooled", weighting="exp-rank", sigma=1.5),
    dict(k=3, missing="B"),
    dict(k=3, missing="C"),
    dict(k=5, missing="C", weighting="exp-rank", sigma=3.0),
    dict(k=3, laplace=True),
    dict(k=3, both_missing="current"),
    dict(k=3, laplace=True, both_missing="current", numeric_diff="ramp", t_equal=0.02,
         t_different=0.7),
    dict(k=4, numeric_diff="ramp", t_equal=0.03, t_different=0.6),
    dict(k=3, distance="euclidean"),
    # 1/d with the Euclidean distance: d = sqrt(sum of squared diffs), not the sum itself
    dict(k=4, weighting="1/d", distance="euclidean"),
    dict(k=3, numeric_bins=3),
]


@pytest.mark.parametrize("n_classes", [2, 3, 4])
@pytest.mark.parametrize("options", CLASSIFICATION_CASES, ids=str)
def test_relieff_matches_plain_reference(options, n_classes):
    data, ref = tie_free(36, n_classes, options, seed=10 * n_classes)
    expected = relieff(ref, **reference_options(options, "k", "weighting", "sigma", "misses"))
    got = ReliefF(**options)(data)
    np.testing.assert_allclose(got, expected, rtol=0, atol=TOL)


@pytest.mark.parametrize("options", [dict(k=2), dict(k=3, missing="B", laplace=True)], ids=str)
def test_relieff_below_25_instances_uses_n_over_5_bins(options):
    # 20 instances: numeric missing values are binned into max(2, 20 // 5) = 4 bins
    data, ref = tie_free(20, 2, options, seed=3)
    assert ref.n_vals[0] == 4
    expected = relieff(ref, **reference_options(options, "k"))
    np.testing.assert_allclose(ReliefF(**options)(data), expected, rtol=0, atol=TOL)


@pytest.mark.parametrize("n_classes", [2, 3])
def test_skip_zero_distance_matches_reference_on_duplicated_rows(n_classes):
    options = dict(k=3, skip_zero_distance=True)
    data, ref = tie_free(34, n_classes, options, seed=5, duplicates=4)
    expected = relieff(ref, k=3, skip_zero_distance=True)
    np.testing.assert_allclose(ReliefF(**options)(data), expected, rtol=0, atol=TOL)
    # and the duplicates do change the estimate when they are not skipped
    assert not np.allclose(ReliefF(k=3)(data), expected, atol=1e-6)


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("options", [dict(), dict(missing="B"), dict(distance="euclidean")],
                         ids=str)
def test_relief_matches_plain_reference(options, n_classes):
    data, ref = tie_free(30, n_classes, options, seed=7)
    np.testing.assert_allclose(Relief(**options)(data), relief(ref), rtol=0, atol=TOL)


@pytest.mark.parametrize("options", [dict(), dict(weighting="exp-rank", sigma=2.0),
                                     dict(missing="C")], ids=str)
def test_relieff_best_k_matches_reference(options):
    data, ref = tie_free(24, 3, options, seed=11)
    expected = relieff_best_k(ref, **reference_options(options, "weighting", "sigma"))
    got = ReliefFbestK(**options)(data)
    np.testing.assert_allclose(got, expected, rtol=0, atol=TOL)


def test_profile_gives_the_reference_estimate_for_every_k():
    options = dict(weighting="exp-rank", sigma=2.0)
    data, ref = tie_free(30, 3, options, seed=13)
    est = ReliefF(k=8, **options)
    ks = [1, 2, 5, 8]
    got = est.profile(est.context(data), ks)
    assert got.shape == (len(ks), data.n_attributes)
    for row, k in zip(got, ks):
        np.testing.assert_allclose(row, relieff(ref, k, **options), rtol=0, atol=TOL)


def test_estimate_of_a_column_subset_over_the_context():
    data, ref = tie_free(30, 3, {}, seed=17)
    est = ReliefF(k=4)
    ctx = est.context(data)
    cols = [5, 0, 2]
    expected = np.array(relieff(ref, 4))[cols]
    np.testing.assert_allclose(est.estimate(ctx, data.columns(cols)), expected, rtol=0,
                               atol=TOL)


REGRESSION_CASES = [
    dict(k=5, weighting="equal"),
    dict(k=8, weighting="exp-rank", sigma=3.0),
    dict(k=70),                                       # paper defaults; k capped at n - 1
    dict(k=6, weighting="1/d"),
    dict(k=6, missing="B"),
    dict(k=6, missing="C"),
    dict(k=6, missing="C", weighting="exp-rank", sigma=2.0),
    dict(k=6, laplace=True),
    dict(k=6, both_missing="current", laplace=True),
    dict(k=6, numeric_diff="ramp", t_equal=0.03, t_different=0.6),
    dict(k=6, distance="euclidean", weighting="equal"),
    dict(k=6, distance="euclidean", weighting="1/d2"),
]


@pytest.mark.parametrize("options", REGRESSION_CASES, ids=str)
def test_rrelieff_matches_plain_reference(options):
    data, ref = tie_free(34, 0, options, seed=21)
    expected = rrelieff(ref, **reference_options(options, "k", "weighting", "sigma"))
    got = RReliefF(**options)(data)
    np.testing.assert_allclose(got, expected, rtol=0, atol=TOL)


def test_rrelieff_skip_zero_distance_matches_reference():
    options = dict(k=6, skip_zero_distance=True)
    data, ref = tie_free(30, 0, options, seed=23, duplicates=3)
    expected = rrelieff(ref, k=6, skip_zero_distance=True)
    np.testing.assert_allclose(RReliefF(**options)(data), expected, rtol=0, atol=TOL)


@pytest.mark.parametrize("make, reference, n_classes", [
    (lambda: ReliefF(k=3, iterations=12, random_state=5),
     lambda ref, rows: relieff(ref, 3, rows), 3),
    (lambda: Relief(iterations=9, random_state=2), lambda ref, rows: relief(ref, rows), 2),
    (lambda: RReliefF(k=7, iterations=10, random_state=8),
     lambda ref, rows: rrelieff(ref, 7, rows), 0),
], ids=["ReliefF", "Relief", "RReliefF"])
def test_sampled_iterations_match_reference_on_the_same_instances(make, reference, n_classes):
    data, ref = tie_free(32, n_classes, {}, seed=31)
    estimator = make()
    ctx = estimator.context(data)
    rows = [int(i) for i in ctx.instances]
    assert len(rows) == estimator.iterations == len(set(rows))   # without replacement
    assert all(0 <= i < data.n_instances for i in rows)
    np.testing.assert_allclose(estimator.estimate(ctx), reference(ref, rows), rtol=0,
                               atol=TOL)
    # the same seed samples the same instances and gives identical numbers
    again = make()
    np.testing.assert_array_equal(again.context(data).instances, ctx.instances)
    np.testing.assert_array_equal(again(data), estimator(data))


def test_different_seeds_sample_different_instances():
    data, _ = tie_free(32, 2, {}, seed=31)
    samples = {tuple(ReliefF(k=3, iterations=10, random_state=s).context(data).instances)
               for s in range(5)}
    assert len(samples) > 1


def test_all_iterations_visit_every_instance_once():
    data, ref = tie_free(25, 2, {}, seed=37)
    ctx = ReliefF(k=2).context(data)
    assert sorted(int(i) for i in ctx.instances) == list(range(data.n_instances))
    # and so equal the reference's exhaustive run
    np.testing.assert_allclose(ReliefF(k=2).estimate(ctx), relieff(ref, 2), rtol=0, atol=TOL)


def test_tie_check_would_notice_a_tie():
    # the guard that keeps the comparison well defined is itself real
    ref = ReferenceData([[0.0], [1.0], [2.0]], [0, 1, 0], [False], [0], 2)
    assert has_distance_ties(ref)
    ref = ReferenceData([[0.0], [1.0], [3.0]], [0, 1, 0], [False], [0], 2)
    assert not has_distance_ties(ref)

