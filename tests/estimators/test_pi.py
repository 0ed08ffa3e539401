"""The unified framework Π (Vilalta et al. 2004, §4, Algorithm 2, eqs. 10-15).

Expected values come from a plain loop over all ordered pairs written here from the paper
(``reference_counts``), from hand calculation, from the paper's Prop. 1 and 2 and Fig. 1, and from
the impurity engine (Gini / InfGain) -- never from the code under test.
"""
import itertools
import math

import numpy as np
import pytest

from orangecontrib.relief.datasets import parity
from orangecontrib.relief.estimators import encode
from orangecontrib.relief.estimators.contextual_merit import ContextualMerit
from orangecontrib.relief.estimators.impurity import Gini, InfGain
from orangecontrib.relief.estimators import unified_pi
from orangecontrib.relief.estimators.unified_pi import UnifiedPi


# ------------------------------------------------------------------------------------------
# an independent, literal implementation of Algorithm 2 (Fig. 4)

def reference_f(x, f, alpha):
    if f == "exp2":
        return 1.0 / 2 ** (alpha * x)
    if f == "power":
        if alpha == 0:
            return 1.0
        return 0.0 if x == 0 else 1.0 / x ** alpha
    if f == "threshold":
        return 1.0 if x < alpha else 0.0
    return 1.0 if x == 0 else 0.0


def reference_distance(X, discrete, i, j):
    """Eq. 5 with eq. 6 (nominal) and eq. 7, TH = max - min (numeric); no missing values."""
    total = 0.0
    for k in range(X.shape[1]):
        if discrete[k]:
            total += X[i, k] != X[j, k]
        else:
            th = X[:, k].max() - X[:, k].min()
            total += abs(X[i, k] - X[j, k]) / th if th > 0 else 0.0
    return total


def reference_values(column, is_discrete, bins):
    """Value of every instance (None = missing): numeric values into ``bins`` equal-width
    intervals of [min, max], the maximum into the last one (§5.1)."""
    known = column[~np.isnan(column)]
    lo, hi = known.min(), known.max()
    out = []
    for x in column:
        if math.isnan(x):
            out.append(None)
        elif is_discrete:
            out.append(int(x))
        else:
            out.append(min(int((x - lo) / (hi - lo) * bins), bins - 1) if hi > lo else 0)
    return out


def reference_counts(X, y, discrete, n_values, n_classes, theta=(1, 1, 1, 1), f="exp2",
                     alpha=0.1, bins=10, values_of=None, value_discrete=None, value_counts=None):
    """The R_m of every feature by Algorithm 2's double loop. ``values_of`` (default X, with
    ``value_discrete`` and ``value_counts`` its discrete mask and numbers of values) gives the
    value partitions; the distances always come from X."""
    if values_of is None:
        values_of, value_discrete, value_counts = X, discrete, n_values
    n = X.shape[0]
    result = []
    for k in range(values_of.shape[1]):
        v = reference_values(values_of[:, k], value_discrete[k], bins)
        nv = value_counts[k] if value_discrete[k] else bins
        R = np.zeros((nv, n_classes, 4))
        for i in range(n):
            if v[i] is None:
                continue
            for j in range(n):
                if v[j] is None:
                    continue
                same_value = v[i] == v[j]
                same_class = y[i] == y[j]
                case = {(True, True): 0, (True, False): 1,
                        (False, True): 2, (False, False): 3}[same_value, same_class]
                D = reference_distance(X, discrete, i, j)
                R[v[i], int(y[i]), case] += theta[case] * reference_f(D, f, alpha)
        result.append(R)
    return result


def reference_default_score(R, values):
    """Eqs. 14-15: sum_m |T_m|/|T| G(R_m)."""
    sizes = np.bincount([v for v in values if v is not None], minlength=R.shape[0])
    G = (R[:, :, 0] + R[:, :, 3] - R[:, :, 1] - R[:, :, 2]).sum(axis=1)
    return float(sizes @ G / sizes.sum())


def random_mixed_data(rng, n, n_classes):
    """Discrete (2-4 values) and numeric columns, classes 0..n_classes-1 all present."""
    disc = rng.integers(0, [2, 3, 4], size=(n, 3)).astype(float)
    num = np.round(rng.random((n, 2)) * 4, 1)      # rounded: some ties and equal bins
    X = np.column_stack([disc[:, :2], num[:, 0], disc[:, 2], num[:, 1]])
    discrete = np.array([True, True, False, True, False])
    y = np.arange(n) % n_classes
    rng.shuffle(y)
    return encode(X, y, discrete=discrete, n_values=[2, 3, 0, 4, 0], n_classes=n_classes)


def table_data(table):
    return encode(table.X, table.Y, discrete=True, n_values=2, n_classes=2)


def xor_cube():
    """Fig. 1: the 3-D Boolean cube, class X1 xor X2, X3 irrelevant."""
    X = np.array(list(itertools.product([0, 1], repeat=3)), dtype=float)
    return encode(X, (X[:, 0] != X[:, 1]).astype(float), discrete=True, n_classes=2)


# ------------------------------------------------------------------------------------------
# the vectorised code against the loop

@pytest.mark.parametrize("n_classes, f, alpha, theta", [
    (2, "exp2", 0.1, (1, 1, 1, 1)),
    (3, "power", 1.5, (0.5, 1, 0.25, 1)),
    (4, "threshold", 1.2, (1, 0, 1, 1)),
    (3, "zero", 0.0, (1, 1, 1, 1)),
    (2, "power", 0.0, (1, 0.5, 0, 1)),
])
def test_case_counts_agree_with_pairwise_loop_on_mixed_data(n_classes, f, alpha, theta):
    rng = np.random.default_rng(n_classes)
    data = random_mixed_data(rng, 23, n_classes)
    pi = UnifiedPi(theta=theta, f=f, alpha=alpha, bins=3)
    ctx = pi.context(data)
    expected = reference_counts(data.X, data.y, data.discrete, data.n_values, n_classes,
                                theta, f, alpha, bins=3)
    assert len(ctx.case_counts) == data.n_attributes
    for got, want in zip(ctx.case_counts, expected):
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
    scores = pi.estimate(ctx)
    for k in range(data.n_attributes):
        values = reference_values(data.X[:, k], data.discrete[k], 3)
        assert scores[k] == pytest.approx(reference_default_score(expected[k], values),
                                          rel=1e-10, abs=1e-12)


def test_sparse_one_hot_path_agrees_with_pairwise_loop(monkeypatch):
    # large data use a sparse one-hot matrix; force that path on a small table
    monkeypatch.setattr(unified_pi, "DENSE_ONE_HOT_BYTES", 0)
    rng = np.random.default_rng(9)
    data = random_mixed_data(rng, 21, 3)
    counts = UnifiedPi(theta=(1, 0.5, 0.25, 1), alpha=0.3, bins=4).case_counts(data)
    want = reference_counts(data.X, data.y, data.discrete, data.n_values, 3, (1, 0.5, 0.25, 1),
                            "exp2", 0.3, bins=4)
    for got, expected in zip(counts, want):
        np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-12)


def test_total_matrix_R_counts_same_and_different_class_pairs_only():
    rng = np.random.default_rng(5)
    data = random_mixed_data(rng, 15, 3)
    ctx = UnifiedPi(theta=(1, 0.5, 1, 1), f="exp2", alpha=0.7).context(data)
    constant = np.zeros((data.n_instances, 1))
    want = reference_counts(data.X, data.y, data.discrete, data.n_values, 3, (1, 0.5, 1, 1),
                            "exp2", 0.7, values_of=constant, value_discrete=[True],
                           value_counts=[1])[0][0]
    np.testing.assert_allclose(ctx.total, want, rtol=1e-10)
    assert np.all(ctx.total[:, 2:] == 0)


def test_estimate_of_other_columns_partitions_by_them_and_measures_distance_by_context():
    rng = np.random.default_rng(7)
    data = random_mixed_data(rng, 18, 2)
    other = np.column_stack([rng.integers(0, 3, 18), rng.random(18)])
    columns = data.with_columns(other, discrete=[True, False], n_values=[3, 0])
    pi = UnifiedPi(theta=(1, 1, 1, 1), f="exp2", alpha=0.5, bins=4,
                   F=lambda R, Rm: Rm[:, :, 3].sum() - Rm[:, :, 2].sum())
    got = pi.estimate(pi.context(data), columns)
    want = reference_counts(data.X, data.y, data.discrete, data.n_values, 2, (1, 1, 1, 1),
                            "exp2", 0.5, bins=4, values_of=other, value_discrete=[True, False],
                           value_counts=[3, 0])
    np.testing.assert_allclose(got, [R[:, :, 3].sum() - R[:, :, 2].sum() for R in want],
                               rtol=1e-10)


def test_pairs_with_a_missing_value_are_left_out_of_that_feature():
    # alpha = 0: every pair weighs 1 whatever its distance, so counts are plain pair counts
    X = np.array([[0, 0], [1, np.nan], [np.nan, 1], [1, 1], [0, 1]], dtype=float)
    y = np.array([0, 0, 1, 1, 0], dtype=float)
    data = encode(X, y, discrete=True, n_values=2, n_classes=2)
    counts = UnifiedPi(f="exp2", alpha=0.0).case_counts(data)
    # feature 0 known in rows 0, 1, 3, 4: values 0, 1, 1, 0; classes 0, 0, 1, 0
    # value 0 (rows 0, 4, both class 0): case 1 = 2*2 pairs, case 3 = row 1, case 4 = row 3
    np.testing.assert_array_equal(counts[0][0], [[4, 0, 2, 2], [0, 0, 0, 0]])
    # value 1: row 1 (class 0): same value row 1 (c1), row 3 (c2); other value rows 0, 4 (c3)
    #          row 3 (class 1): same value row 3 (c1), row 1 (c2); other value rows 0, 4 (c4)
    np.testing.assert_array_equal(counts[0][1], [[1, 1, 2, 0], [1, 1, 0, 2]])
    assert counts[0].sum() == 16            # 4 known values: 4 x 4 ordered pairs


# ------------------------------------------------------------------------------------------
# the paper's propositions and example

def test_prop1_column1_is_class_counts_per_value_and_other_columns_zero():
    rng = np.random.default_rng(11)
    data = random_mixed_data(rng, 40, 3)
    assert len({tuple(r) for r in data.X}) == data.n_instances   # no duplicates (Prop. 1)
    counts = UnifiedPi(theta=(1, 0, 0, 0), f="zero", bins=4).case_counts(data)
    for k, R in enumerate(counts):
        values = reference_values(data.X[:, k], data.discrete[k], 4)
        class_counts = np.zeros(R.shape[:2])
        for v, c in zip(values, data.y.astype(int)):
            class_counts[v, c] += 1
        np.testing.assert_array_equal(R[:, :, 0], class_counts)
        assert not R[:, :, 1:].any()


@pytest.mark.parametrize("F, engine", [("gini", Gini), ("infgain", InfGain)])
def test_prop1_gini_and_infgain_reproduce_the_impurity_engine(F, engine):
    rng = np.random.default_rng(3)
    X = rng.integers(0, [2, 3, 4, 3], size=(60, 4)).astype(float)
    X[:, 3] = (X[:, 0] + rng.integers(0, 2, 60)) % 3      # one informative attribute
    y = (X[:, 0] + X[:, 1] > 1).astype(float)
    unique = np.unique(X, axis=0, return_index=True)[1]   # Prop. 1 needs distinct instances
    data = encode(X[np.sort(unique)], y[np.sort(unique)], discrete=True,
                  n_values=[2, 3, 4, 3], n_classes=2)
    pi = UnifiedPi(theta=(1, 0, 0, 0), f="zero", F=F)
    want = engine()(data)
    assert np.ptp(want) > 0.05                            # the comparison is not trivial
    np.testing.assert_allclose(pi(data), want, rtol=1e-12, atol=1e-15)


def test_prop2_column4_sum_is_all_pairs_contextual_merit():
    rng = np.random.default_rng(4)
    X = rng.integers(0, [2, 3, 2, 4], size=(30, 4)).astype(float)
    y = rng.integers(0, 3, 30).astype(float)
    data = encode(X, y, discrete=True, n_values=[2, 3, 2, 4], n_classes=3)
    counts = UnifiedPi(theta=(0, 0, 0, 1), f="power", alpha=2).case_counts(data)
    col4 = [R[:, :, 3].sum() for R in counts]
    assert all(not R[:, :, :3].any() for R in counts)
    np.testing.assert_allclose(col4, ContextualMerit(neighbours="all")(data), rtol=1e-12)


@pytest.mark.parametrize("alpha", [1.5, 2.5, 3.5])
def test_prop2_column4_minus_column3_is_relief_over_the_alpha_neighbourhood(alpha):
    rng = np.random.default_rng(int(alpha * 10))
    data = random_mixed_data(rng, 25, 2)
    counts = UnifiedPi(theta=(0, 0, 1, 1), f="threshold", alpha=alpha, bins=3).case_counts(data)
    # Relief's update, eq. 8, over all ordered pairs closer than alpha, with the 0/1 diff of
    # the binned value partition (what Π's cases see)
    relief = np.zeros(data.n_attributes)
    values = [reference_values(data.X[:, k], data.discrete[k], 3)
              for k in range(data.n_attributes)]
    for i, j in itertools.product(range(data.n_instances), repeat=2):
        if reference_distance(data.X, data.discrete, i, j) >= alpha:
            continue
        for k in range(data.n_attributes):
            d = values[k][i] != values[k][j]
            relief[k] += d if data.y[i] != data.y[j] else -d
    assert np.abs(relief).max() > 0
    np.testing.assert_allclose([(R[:, :, 3] - R[:, :, 2]).sum() for R in counts], relief)
    assert all(not R[:, :, :2].any() for R in counts)


def test_xor_cube_of_fig1_scores_4_4_0():
    # unit-Hamming pairs (D < 1.5 also admits D = 0, which never has a different value);
    # every unordered pair is visited twice by Algorithm 2, hence theta_4 = 1/2
    pi = UnifiedPi(theta=(0, 0, 0, 0.5), f="threshold", alpha=1.5,
                   F=lambda R, Rm: Rm[:, :, 3].sum())
    np.testing.assert_array_equal(pi(xor_cube()), [4, 4, 0])


def test_worked_example_of_doc_pi_md():
    # doc/pi.md: A=(0,0) B=(0,1) class a, C=(1,0) D=(1,1) class b; f = 2^(-x) (alpha = 1),
    # theta = (1, 1, 1, 1); the hand calculation is written out there
    X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]], dtype=float)
    data = encode(X, [0, 0, 1, 1], discrete=True, n_classes=2)
    pi = UnifiedPi(alpha=1.0)
    ctx = pi.context(data)
    np.testing.assert_allclose(ctx.case_counts[0], [[[3, 0, 0, 1.5], [0, 0, 0, 0]],
                                                    [[0, 0, 0, 0], [3, 0, 0, 1.5]]])
    np.testing.assert_allclose(ctx.case_counts[1], [[[1, 0.5, 0.5, 0.25], [1, 0.5, 0.5, 0.25]],
                                                    [[1, 0.5, 0.5, 0.25], [1, 0.5, 0.5, 0.25]]])
    np.testing.assert_allclose(ctx.total, [[3, 1.5, 0, 0], [3, 1.5, 0, 0]])
    np.testing.assert_allclose(pi.estimate(ctx), [4.5, 0.5])
    np.testing.assert_allclose(UnifiedPi(theta=(1, 0, 0, 0), f="zero", F="gini")(data), [0.5, 0])


# ------------------------------------------------------------------------------------------
# parity

@pytest.mark.parametrize("order, estimator", [
    (2, UnifiedPi()), (2, UnifiedPi(alpha=1.0)), (3, UnifiedPi(alpha=1.0)),
    (2, ContextualMerit()), (3, ContextualMerit()),
    (2, ContextualMerit(neighbours="all")), (3, ContextualMerit(neighbours="all"))])
def test_parity_informative_attributes_rank_first_for_pi_and_cm(order, estimator):
    # the paper's alpha = 0.1 is nearly global: on parity-3 the pairs' discrimination signal is
    # (1 - 2^-0.1)^2 ~ 0.5 % of the weights and drowns in sampling noise (doc/pi.md), so the
    # parity-3 check uses the more local alpha = 1
    data = table_data(parity(order=order, n_irrelevant=6, n_instances=300, random_state=1))
    scores = estimator(data)
    assert scores[:order].min() > scores[order:].max(), scores


@pytest.mark.parametrize("order", [2, 3])
def test_parity_gini_does_not_separate_informative_attributes(order):
    # the full cube of parity-order with 3 irrelevant bits: every attribute's class
    # distribution per value is (1/2, 1/2), so Gini scores all attributes alike (Fig. 1's point)
    X = np.array(list(itertools.product([0, 1], repeat=order + 3)), dtype=float)
    data = encode(X, X[:, :order].sum(axis=1) % 2, discrete=True, n_classes=2)
    gini = UnifiedPi(theta=(1, 0, 0, 0), f="zero", F="gini")(data)
    np.testing.assert_allclose(gini, 0, atol=1e-15)
    assert not gini[:order].min() > gini[order:].max()
    pi = UnifiedPi()(data)
    assert pi[:order].min() > pi[order:].max()


# ------------------------------------------------------------------------------------------
# scores, options, sampling, progress

def test_default_F_is_weighted_average_of_G_eq14_15():
    data = xor_cube()
    R_list = reference_counts(data.X, data.y, data.discrete, data.n_values, 2)
    want = [reference_default_score(R, list(data.X[:, k].astype(int)))
            for k, R in enumerate(R_list)]
    np.testing.assert_allclose(UnifiedPi()(data), want, rtol=1e-9, atol=1e-12)
    assert want[0] > want[2]


def test_callable_F_receives_R_and_the_count_matrices():
    data = xor_cube()
    seen = []
    UnifiedPi(F=lambda R, Rm: seen.append((R.shape, Rm.shape)) or 0.0)(data)
    assert seen == [((2, 4), (2, 2, 4))] * 3


def test_numeric_bins_parameter_sets_the_number_of_value_matrices():
    rng = np.random.default_rng(0)
    data = random_mixed_data(rng, 20, 2)
    counts = UnifiedPi(bins=7).case_counts(data)
    assert [R.shape[0] for R in counts] == [2, 3, 7, 4, 7]


def test_sample_fills_counts_from_the_sampled_instances_and_repeats():
    rng = np.random.default_rng(2)
    X = rng.integers(0, [2, 3, 4], size=(40, 3)).astype(float)
    data = encode(X, rng.integers(0, 3, 40), discrete=True, n_values=[2, 3, 4], n_classes=3)
    pi = UnifiedPi(sample=15, random_state=8)
    ctx = pi.context(data)
    assert ctx.rows.size == 15 and np.unique(ctx.rows).size == 15
    sub = data.subset(ctx.rows)
    want = reference_counts(sub.X, sub.y, sub.discrete, sub.n_values, 3)
    for got, expected in zip(ctx.case_counts, want):
        np.testing.assert_allclose(got, expected, rtol=1e-10)
    np.testing.assert_array_equal(pi(data), pi(data))
    assert not np.array_equal(pi.context(data).rows,
                              UnifiedPi(sample=15, random_state=9).context(data).rows)
    np.testing.assert_array_equal(UnifiedPi(sample=40)(data), UnifiedPi()(data))


def test_callback_reports_increasing_progress_and_exception_cancels():
    data = xor_cube()
    seen = []
    UnifiedPi()(data, callback=seen.append)
    assert seen and seen[-1] == 1.0 and np.all(np.diff(seen) >= 0)

    def cancel(fraction):
        raise RuntimeError("cancelled")
    with pytest.raises(RuntimeError, match="cancelled"):
        UnifiedPi()(data, callback=cancel)


def test_all_missing_column_scores_nan_and_constant_column_is_finite():
    X = np.array([[0, np.nan, 1], [1, np.nan, 1], [1, np.nan, 1], [0, np.nan, 1]], dtype=float)
    data = encode(X, [0, 1, 1, 0], discrete=[True, True, False], n_values=[2, 1, 0],
                  n_classes=2)
    for F in ("default", "gini", "infgain"):
        scores = UnifiedPi(F=F)(data)
        assert np.isnan(scores[1]) and np.isfinite(scores[[0, 2]]).all()


# ------------------------------------------------------------------------------------------
# bad input (regression and degenerate data: test_cm.py, for both pairwise estimators)

@pytest.mark.parametrize("kwargs, name", [
    (dict(theta=(1, 1, 1)), "theta"), (dict(theta=(1, 1, 2, 1)), "theta"),
    (dict(theta=(1, -0.1, 1, 1)), "theta"), (dict(f="gauss"), "f must"),
    (dict(alpha=-1), "alpha"), (dict(alpha=np.inf), "alpha"),
    (dict(f="threshold", alpha=0), "alpha"), (dict(F="entropy"), "F must"),
    (dict(bins=1), "bins"), (dict(bins=2.5), "bins"), (dict(sample=1), "sample"),
    (dict(sample=0.5), "sample"), (dict(random_state="x"), "random_state"),
    (dict(numeric_diff="cubic"), "numeric_diff"),
])
def test_bad_parameters_raise_value_error_naming_them(kwargs, name):
    with pytest.raises(ValueError, match=name):
        UnifiedPi(**kwargs)(xor_cube())


def test_columns_with_other_instances_are_rejected():
    pi = UnifiedPi()
    ctx = pi.context(xor_cube())
    with pytest.raises(ValueError, match="instances"):
        pi.estimate(ctx, xor_cube().subset(np.arange(5)))


def test_scorer_exposes_the_count_matrices_of_an_orange_table():
    from orangecontrib.relief import scoring
    table = parity(order=2, n_irrelevant=2, n_instances=40, random_state=3)
    got = scoring.UnifiedPi(alpha=0.5).case_counts(table)
    want = reference_counts(table.X, table.Y, [True] * 4, [2] * 4, 2, alpha=0.5)
    assert len(got) == 4
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-10)
