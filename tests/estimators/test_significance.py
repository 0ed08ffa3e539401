"""Significance: STIR's pseudo t-test against plain-loop computations, permutation p-values,
Benjamini-Hochberg q-values and false discoveries on null data."""
import warnings
from dataclasses import replace

import numpy as np
import pytest
from scipy import stats

from orangecontrib.relief.estimators import encode
from orangecontrib.relief.estimators.impurity import InfGain
from orangecontrib.relief.estimators.relieff import Relief, ReliefF, ReliefFbestK
from orangecontrib.relief.estimators.rrelieff import RReliefF
from orangecontrib.relief.estimators.significance import (
    benjamini_hochberg, calibrated_pvalues, permutation_test, significance, stir)
from orangecontrib.relief.estimators.surf import MultiSURF, MultiSURFstar, SURF, SURFstar


def binary_table(n=40, seed=3):
    rng = np.random.default_rng(seed)
    X = rng.random((n, 5))
    X[:, 3] = rng.integers(0, 3, n)
    y = ((X[:, 0] > 0.5) ^ (X[:, 3] == 1)).astype(int)
    return X, y, [False, False, False, True, False]


def plain_diff(X, discrete, span, i, j, t):
    if discrete[t]:
        return float(X[i, t] != X[j, t])
    return abs(X[i, t] - X[j, t]) / span[t] if span[t] > 0 else 0.0


def test_stir_equals_a_pooled_t_test_of_plain_loop_hit_and_miss_diffs():
    # two classes, equal weights, k = 4: STIR is Student's pooled two-sample t-test of the miss
    # diffs against the hit diffs (the paper's S_p with |M| = |H| = m*k), one-sided; here the
    # neighbours and diffs come from plain loops and the test from scipy
    X, y, discrete = binary_table()
    n, a = X.shape
    span = X.max(axis=0) - X.min(axis=0)
    k = 4
    hits = [[] for _ in range(a)]
    misses = [[] for _ in range(a)]
    for i in range(n):
        dist = [(sum(plain_diff(X, discrete, span, i, j, t) for t in range(a)), j)
                for j in range(n) if j != i]
        dist.sort()
        near_hits = [j for _, j in dist if y[j] == y[i]][:k]
        near_misses = [j for _, j in dist if y[j] != y[i]][:k]
        for t in range(a):
            hits[t] += [plain_diff(X, discrete, span, i, j, t) for j in near_hits]
            misses[t] += [plain_diff(X, discrete, span, i, j, t) for j in near_misses]
    expected = [stats.ttest_ind(misses[t], hits[t], alternative="greater") for t in range(a)]
    result = stir(ReliefF(k=k), encode(X, y, discrete=discrete, n_classes=2), calibration=0)
    np.testing.assert_allclose(result.statistics, [e.statistic for e in expected], rtol=1e-9)
    np.testing.assert_allclose(result.pvalues, [e.pvalue for e in expected], rtol=1e-9)
    np.testing.assert_allclose(result.scores, [np.mean(misses[t]) - np.mean(hits[t])
                                               for t in range(a)], atol=1e-12)
    assert max(result.pvalues[[0, 3]]) < min(result.pvalues[[1, 2, 4]])   # the relevant ones


def weighted_t_by_loops(pairs):
    """STIR's t from a list of (weight, diff, is_miss) written out term by term."""
    groups = {}
    for miss in (False, True):
        ws = [w for w, d, m in pairs if m == miss and d is not None]
        ds = [d for w, d, m in pairs if m == miss and d is not None]
        total = sum(ws)
        mean = sum(w * d for w, d in zip(ws, ds)) / total
        var = sum(w * (d - mean) ** 2 for w, d in zip(ws, ds)) / total * len(ds) / (len(ds) - 1)
        groups[miss] = (len(ds), mean, var)
    (n_h, m_h, v_h), (n_m, m_m, v_m) = groups[False], groups[True]
    pooled = ((n_m - 1) * v_m + (n_h - 1) * v_h) / (n_m + n_h - 2)
    return (m_m - m_h) / np.sqrt(pooled * (1 / n_m + 1 / n_h)), n_m + n_h - 2


def test_stir_weighted_pairs_of_three_classes_and_missing_values_by_loops():
    # per-class misses weighted by P(C) / (1 - P(class)), RELIEF-C leaving out the pairs with a
    # missing value: the engine's neighbours, everything else by loops
    rng = np.random.default_rng(5)
    n = 45
    X = rng.random((n, 3))
    X[rng.random((n, 3)) < 0.15] = np.nan
    y = np.repeat([0, 1, 2], [10, 15, 20])
    data = encode(X, y, n_classes=3)
    estimator = ReliefF(k=3, missing="C")
    context = estimator.context(data)
    prior = np.bincount(y) / n
    span = np.nanmax(X, axis=0) - np.nanmin(X, axis=0)
    result = stir(estimator, data, calibration=0)
    for t in range(3):
        pairs = []
        for row, i in enumerate(context.instances):
            for c in range(3):
                coef = 1.0 if c == y[i] else prior[c] / (1 - prior[y[i]])
                for j in context.neighbours[row, c][:3]:
                    d = abs(X[i, t] - X[j, t]) / span[t]
                    pairs.append((coef / 3, None if np.isnan(d) else d, c != y[i]))
        t_stat, df = weighted_t_by_loops(pairs)
        assert result.statistics[t] == pytest.approx(t_stat, rel=1e-9)
        assert result.pvalues[t] == pytest.approx(stats.t.sf(t_stat, df), rel=1e-9)


def test_stir_degenerate_attributes():
    # a perfectly separating attribute: hit diffs all 0, miss diffs all 1, no variance: t = inf,
    # p = 0 by the t distribution; permuted, its nearest hit and miss share its value (t = 0
    # every time), so the calibration gives the permutation p-value 1 / (R + 1);
    # a constant attribute: every diff 0: p = 1
    y = np.repeat([0, 1], 10)
    X = np.column_stack([y, np.ones(20), np.arange(20) % 7])
    data = encode(X, y, n_classes=2)
    authors = stir(Relief(), data, calibration=0)
    assert authors.pvalues[0] == 0.0 and authors.statistics[0] == np.inf
    assert authors.pvalues[1] == 1.0
    result = stir(Relief(), data, random_state=0)
    assert result.pvalues[0] == 1 / 31 and result.pvalues[1] == 1.0
    assert 0 < result.pvalues[2] <= 1


def test_significance_tests_are_declared_and_kept():
    """Each catalogue estimator declares its tests as a class attribute; those declaring STIR
    give the hit and miss pairs it tests, NPDR its own test, and every one takes
    permutations."""
    from orangecontrib.relief.estimators.catalogue import ESTIMATORS
    stir_names = set()
    for cls in ESTIMATORS:
        assert isinstance(cls.significance_tests, tuple), cls.name
        assert "permutation" in cls.significance_tests, cls.name
        if "stir" in cls.significance_tests:
            assert callable(cls.hit_miss_pairs), cls.name
            stir_names.add(cls.name)
        if "npdr" in cls.significance_tests:
            assert callable(cls.test), cls.name
    # the hits and misses of one neighbourhood (Le et al. 2019): ReliefF's k nearest and
    # the near bands of SURF and MultiSURF, not the best over k, the weighted shares or the
    # far bands' opposite sign
    assert stir_names == {"Relief", "ReliefF", "SURF", "MultiSURF"}


def test_stir_refuses_estimates_it_cannot_test():
    X, y, discrete = binary_table()
    with pytest.raises(ValueError, match="permutation"):
        stir(RReliefF(), encode(X, X[:, 0]))
    with pytest.raises(ValueError, match="permutation"):
        stir(ReliefFbestK(), encode(X, y, n_classes=2))
    with pytest.raises(ValueError, match="permutation"):
        stir(InfGain(), encode(X, y, discrete=discrete, n_classes=2))
    for estimator in (SURFstar(), MultiSURFstar()):
        with pytest.raises(ValueError, match="permutation"):
            stir(estimator, encode(X, y, n_classes=2))
    with pytest.raises(ValueError, match="permutation"):
        stir(MultiSURF(), encode(X, X[:, 0]))
    for calibration in (1, 2, -1, 2.5, True):
        with pytest.raises(ValueError, match="calibration"):
            stir(ReliefF(), encode(X, y, n_classes=2), calibration=calibration)
    with pytest.raises(ValueError, match="method"):
        significance(ReliefF(), encode(X, y, n_classes=2), method="bootstrap")
    with pytest.raises(ValueError, match="n_permutations"):
        permutation_test(ReliefF(), encode(X, y, n_classes=2), n_permutations=0)


def test_permutation_p_values_repeat_for_a_seed_and_have_the_form_b_plus_1_over_r_plus_1():
    X, y, discrete = binary_table()
    data = encode(X, y, discrete=discrete, n_classes=2)
    # the estimator samples its iterations without a seed of its own: the test seeds it
    estimator = ReliefF(k=5, iterations=30)
    first = permutation_test(estimator, data, 19, random_state=7)
    again = permutation_test(estimator, data, 19, random_state=7)
    other = permutation_test(estimator, data, 19, random_state=8)
    np.testing.assert_array_equal(first.pvalues, again.pvalues)
    np.testing.assert_array_equal(first.scores, again.scores)
    assert not np.array_equal(first.pvalues, other.pvalues)
    b = first.pvalues * 20 - 1
    np.testing.assert_allclose(b, np.round(b), atol=1e-12)
    np.testing.assert_array_equal(b.round(), first.statistics)
    assert first.pvalues[0] == 1 / 20      # never reached by a permutation
    assert first.n_permutations == 19 and first.method == "permutation"


def test_permutation_counts_permuted_estimates_reaching_the_observed_one():
    # a hand-checkable estimator: the score is the class mean difference of each column; with
    # every permutation of 4 instances... here 2 instances: the permutations are the identity
    # and the swap, so b counts how often each arises among R draws
    X = np.array([[1.0, 0.0], [0.0, 0.0]])
    data = encode(X, [1, 0], n_classes=2)

    class MeanDifference(InfGain):
        def estimate(self, context, columns=None):
            d = context
            return d.X[d.y == 1].mean(axis=0) - d.X[d.y == 0].mean(axis=0)

    result = permutation_test(MeanDifference(), data, 200, random_state=0)
    # column 0: observed 1, reached only by the identity (about half the draws);
    # column 1: observed 0, reached by every draw
    assert 0.35 < result.pvalues[0] < 0.65
    assert result.pvalues[1] == 1.0


@pytest.mark.parametrize("estimator", [
    ReliefF(k=3), ReliefF(k=4, misses="pooled", skip_zero_distance=True), Relief(),
    ReliefF(k=2, iterations=15, random_state=3, weighting="exp-rank", sigma=2.0),
    ReliefFbestK(), ReliefF(k=3, missing="C")])
def test_one_search_serves_every_permuted_class(estimator):
    # discrete values: many neighbours at equal distances, so ties by index matter
    rng = np.random.default_rng(4)
    X = rng.integers(0, 3, (40, 4)).astype(float)
    if estimator.missing == "C":
        X[rng.random(X.shape) < 0.1] = np.nan
    data = encode(X, rng.integers(0, 3, 40), discrete=True, n_classes=3)
    contexts = estimator.target_contexts(data)
    for _ in range(3):
        permuted = replace(data, y=data.y[rng.permutation(40)])
        shared, fresh = contexts(permuted), estimator.context(permuted)
        np.testing.assert_array_equal(shared.neighbours, fresh.neighbours)
        np.testing.assert_allclose(estimator.estimate(shared), estimator.estimate(fresh),
                                   rtol=1e-12, atol=1e-15)


def test_relief_d_with_missing_values_searches_again_for_every_class():
    X = np.random.default_rng(0).random((30, 3))
    X[0, 0] = np.nan
    data = encode(X, np.arange(30) % 2, n_classes=2)
    assert ReliefF().target_contexts(data) is None
    assert ReliefF(missing="B").target_contexts(data) is not None


def test_permutation_of_a_numeric_target_keeps_rrelieff_neighbours():
    rng = np.random.default_rng(2)
    X = rng.random((50, 4))
    data = encode(X, X[:, 0] + 0.3 * rng.random(50))
    estimator = RReliefF(k=10)
    permuted = replace(data, y=data.y[rng.permutation(50)])
    np.testing.assert_allclose(estimator.estimate(estimator.target_contexts(data)(permuted)),
                               estimator(permuted), rtol=1e-12, atol=1e-15)
    result = permutation_test(estimator, data, 19, random_state=1)
    assert result.pvalues[0] == 1 / 20 and result.pvalues[1:].min() > 1 / 20


def test_permutation_progress_and_cancel():
    X, y, discrete = binary_table()
    data = encode(X, y, n_classes=2)
    seen = []
    permutation_test(ReliefF(), data, 4, random_state=0, callback=seen.append)
    assert seen == sorted(seen) and seen[-1] == pytest.approx(1.0)

    def cancel(fraction):
        if fraction > 0.3:
            raise KeyboardInterrupt
    with pytest.raises(KeyboardInterrupt):
        permutation_test(ReliefF(), data, 10, random_state=0, callback=cancel)


def test_benjamini_hochberg_by_hand():
    # sorted 0.005, 0.01, 0.03, 0.04 (n = 4): p*n/rank = 0.02, 0.02, 0.04, 0.04
    q = benjamini_hochberg([0.01, 0.04, 0.03, 0.005])
    np.testing.assert_allclose(q, [0.02, 0.04, 0.04, 0.02])
    # the running minimum from the top: 0.9*3/3 = 0.9 caps 0.8*3/2 = 1.2; NaN not counted
    np.testing.assert_allclose(benjamini_hochberg([0.8, np.nan, 0.9, 0.1]),
                               [0.9, np.nan, 0.9, 0.3])
    assert benjamini_hochberg([]).size == 0
    with pytest.raises(ValueError, match="0, 1"):
        benjamini_hochberg([0.5, 1.5])


def test_stir_false_discoveries_on_null_data():
    # 20 repetitions of 80 instances and 20 attributes unrelated to the class: the average
    # share of attributes with q < 0.05 stays at most 5 %
    rng = np.random.default_rng(11)
    shares = [np.mean(stir(ReliefF(k=10), encode(rng.random((80, 20)), rng.integers(0, 2, 80),
                                                 n_classes=2), random_state=rng).qvalues < 0.05)
              for _ in range(20)]
    assert np.mean(shares) <= 0.05


def test_permutation_false_discoveries_among_null_attributes_beside_relevant_ones():
    # 10 repetitions of 60 instances, 2 relevant and 8 null attributes, 199 permutations:
    # the relevant ones are found and the average share of null ones with q < 0.05 is <= 5 %
    rng = np.random.default_rng(12)
    shares = []
    for _ in range(10):
        X = rng.random((60, 10))
        y = (X[:, 0] + X[:, 1] > 1).astype(int)
        result = permutation_test(ReliefF(k=10), encode(X, y, n_classes=2), 199,
                                  random_state=rng)
        assert (result.qvalues[:2] < 0.05).all()
        shares.append(np.mean(result.qvalues[2:] < 0.05))
    assert np.mean(shares) <= 0.05


def test_stir_with_instance_weights_tests_the_weighted_estimate():
    # the weighted hit and miss means differ by the weighted ReliefF estimate; permutations
    # search again for each class
    X, y, discrete = binary_table()
    weights = np.random.default_rng(6).integers(1, 4, len(y)).astype(float)
    data = encode(X, y, discrete=discrete, n_classes=2, weights=weights)
    estimator = ReliefF(k=4)
    result = stir(estimator, data)
    assert np.isfinite(result.pvalues).all()
    context = estimator.context(data)
    pairs = estimator.hit_miss_pairs(context)
    diffs = context.diff_model.pair_diffs(pairs.rows, pairs.others)
    means = [np.average(diffs[pairs.miss == g], axis=0, weights=pairs.weights[pairs.miss == g])
             for g in (True, False)]
    np.testing.assert_allclose(means[0] - means[1], estimator(data), atol=1e-12)
    assert estimator.target_contexts(data) is None
    perm = permutation_test(estimator, data, 9, random_state=0)
    assert perm.pvalues[0] == 0.1


def test_stir_null_p_values_with_unequal_classes():
    """No attribute is relevant and 30 % of the instances are of one class: 6 data sets of 200
    instances and 30 null attributes, ReliefF k = 10. The authors' t distribution
    (calibration=0) gives about a third of them p < 0.05 (the hits of the small class are
    farther than its misses, so t is not centred on 0); calibrated by 30 permutations about
    5 % are."""
    authors, calibrated = [], []
    for seed in range(6):
        rng = np.random.default_rng(seed)
        y = (rng.permutation(200) < 60).astype(int)
        data = encode(rng.random((200, 30)), y, n_classes=2)
        first = stir(ReliefF(k=10), data, calibration=0)
        result = stir(ReliefF(k=10), data, random_state=seed)
        np.testing.assert_array_equal(result.statistics, first.statistics)
        assert result.n_permutations == 30
        authors.append(first.pvalues)
        calibrated.append(result.pvalues)
    assert np.mean(np.concatenate(authors) < 0.05) > 0.2
    assert np.mean(np.concatenate(calibrated) < 0.05) <= 0.08


@pytest.mark.parametrize("skewed", [False, True])
def test_calibrated_p_values_are_uniform(skewed):
    """The observed statistic and its R = 10 draws independent from one distribution (normal,
    or a gamma of skewness 0.63 whose tail beyond 3 sd the normal approximation halves), 3,000
    attributes with their own location and scale: the p-values are uniform (Kolmogorov-Smirnov)
    and 5 % of them are below 0.05, also 0.2 % below 0.002."""
    rng = np.random.default_rng(0)
    shape = (11, 3000)
    draws = rng.gamma(10.0, size=shape) if skewed else rng.normal(size=shape)
    draws = draws * rng.uniform(0.5, 3.0, 3000) + rng.normal(0, 5, 3000)
    p = calibrated_pvalues(draws[0], draws[1:])
    assert stats.kstest(p, "uniform").pvalue > 0.01
    assert abs(np.mean(p < 0.05) - 0.05) < 0.01
    assert np.mean(p < 0.002) < 0.004


def test_calibrated_p_values_by_loops():
    """Each value's prediction-interval t score against the others of its attribute (by
    np.delete and np.std), mapped to the normal scale; p = (b + 1) / (N + 1) over the pool of
    24, or beyond its largest score e the normal tail scaled by 2/25 / P(Z >= e)."""
    rng = np.random.default_rng(3)
    observed, null = rng.normal(size=4), rng.normal(size=(6, 4))
    observed[1] = 3.0
    observed[2] = 30.0

    def score(value, others):
        r = len(others)
        t = (value - np.mean(others)) / (np.std(others, ddof=1) * np.sqrt(1 + 1 / r))
        return stats.norm.ppf(stats.t.cdf(t, r - 1))

    pool = [score(null[i, a], np.delete(null[:, a], i)) for a in range(4) for i in range(6)]
    edge = max(pool)
    got = calibrated_pvalues(observed, null)
    for a in range(4):
        z = score(observed[a], null[:, a])
        b = sum(v >= z for v in pool)
        want = (b + 1) / 25
        if z > edge:
            want = min(want, stats.norm.sf(z) * 2 / 25 / stats.norm.sf(edge))
        assert got[a] == pytest.approx(want, rel=1e-9, abs=1e-15)
    assert got[2] < 1e-4


def test_calibrated_p_values_fall_back_to_ranks():
    # draws that do not vary or are not finite: (b + 1) / (R + 1); NaN stays NaN
    null = np.array([[0.0, 0.5, np.inf], [0.0, 0.5, 1.0], [0.0, 0.5, 2.0], [0.0, 0.5, 3.0]])
    p = calibrated_pvalues([0.0, 1.0, 2.5], null)
    np.testing.assert_allclose(p, [5 / 5, 1 / 5, 3 / 5])
    assert np.isnan(calibrated_pvalues([np.nan], np.ones((3, 1))))[0]


def test_stir_repeats_for_a_seed():
    X, y, discrete = binary_table()
    data = encode(X, y, discrete=discrete, n_classes=2)
    first = stir(ReliefF(k=5), data, calibration=9, random_state=3)
    again = stir(ReliefF(k=5), data, calibration=9, random_state=3)
    other = stir(ReliefF(k=5), data, calibration=9, random_state=4)
    np.testing.assert_array_equal(first.pvalues, again.pvalues)
    assert not np.array_equal(first.pvalues, other.pvalues)
    np.testing.assert_array_equal(first.statistics, other.statistics)


def band_pairs_by_loops(X, y, per_instance):
    """(instance, member, weight, miss) of SURF's (``per_instance`` False) or MultiSURF's near
    bands, by loops: Manhattan distances of the diffs |x - z| / span; the members of each
    class weigh 1 / their number in the band, the misses times P(C) / (1 - P(y_i))."""
    n, a = X.shape
    span = X.max(axis=0) - X.min(axis=0)
    d = np.array([[sum(abs(X[i, t] - X[j, t]) / span[t] for t in range(a)) for j in range(n)]
                  for i in range(n)])
    prior = np.bincount(y) / n
    others = [[j for j in range(n) if j != i] for i in range(n)]
    if per_instance:
        limits = [np.mean(d[i, o]) - np.std(d[i, o]) / 2 for i, o in enumerate(others)]
    else:
        limits = [np.mean([d[i, j] for i in range(n) for j in others[i]])] * n
    pairs = []
    for i in range(n):
        band = [j for j in others[i] if d[i, j] < limits[i]]
        for c in set(y[band]):
            members = [j for j in band if y[j] == c]
            factor = 1.0 if c == y[i] else prior[c] / (1 - prior[y[i]])
            pairs += [(i, j, factor / len(members), c != y[i]) for j in members]
    return pairs


@pytest.mark.parametrize("estimator", [MultiSURF(), SURF()], ids=["MultiSURF", "SURF"])
def test_stir_for_band_neighbourhoods_by_loops(estimator):
    """STIR over SURF's and MultiSURF's near bands: the pairs, their t and the authors'
    p-values from plain loops; the weighted miss sum less the hit sum over the instances is
    the estimate (the means differ from it where a band lacks hits or misses)."""
    rng = np.random.default_rng(8)
    X = rng.random((40, 4))
    y = (X[:, 0] + 0.3 * rng.random(40) > 0.6).astype(int)
    data = encode(X, y, n_classes=2)
    result = stir(estimator, data, calibration=0)
    span = X.max(axis=0) - X.min(axis=0)
    pairs = band_pairs_by_loops(X, y, isinstance(estimator, MultiSURF))
    got = estimator.hit_miss_pairs(estimator.context(data))
    assert sorted((int(i), int(j)) for i, j in zip(got.rows, got.others)) == \
        sorted((i, j) for i, j, _, _ in pairs)
    for t in range(4):
        t_stat, df = weighted_t_by_loops([(w, abs(X[i, t] - X[j, t]) / span[t], miss)
                                          for i, j, w, miss in pairs])
        assert result.statistics[t] == pytest.approx(t_stat, rel=1e-9)
        assert result.pvalues[t] == pytest.approx(stats.t.sf(t_stat, df), rel=1e-9)
    diffs = np.abs(data.X[got.rows] - data.X[got.others]) / span
    sums = [got.weights[got.miss == g] @ diffs[got.miss == g] for g in (True, False)]
    np.testing.assert_allclose((sums[0] - sums[1]) / 40, estimator(data), atol=1e-12)
    calibrated = stir(estimator, data, calibration=19, random_state=0)
    # the relevant attribute far beyond every permuted statistic of the pool (19 x 4 of them)
    assert calibrated.pvalues[0] < 1e-4 and calibrated.pvalues[1:].min() > 1 / 77


def test_stir_progress_and_cancel():
    X, y, discrete = binary_table()
    data = encode(X, y, n_classes=2)
    seen = []
    stir(MultiSURF(), data, calibration=4, random_state=0, callback=seen.append)
    assert seen == sorted(seen) and seen[-1] == pytest.approx(1.0) and len(seen) > 5

    def cancel(fraction):
        if fraction > 0.3:
            raise KeyboardInterrupt
    with pytest.raises(KeyboardInterrupt):
        stir(ReliefF(), data, calibration=10, random_state=0, callback=cancel)


def test_permutation_strata_keep_the_covariates_effect():
    """The strata of the permutations: all instances without covariates; the groups of equal
    discrete covariates; with a numeric covariate, runs of 10 instances of consecutive
    covariate values (the target's prediction is linear in it) within each discrete group."""
    from orangecontrib.relief.estimators.encoding import as_covariates
    from orangecontrib.relief.estimators.significance import (
        STRATUM_SIZE, permutation_strata, permuted_targets)
    rng = np.random.default_rng(3)
    n = 60
    X = rng.random((n, 3))
    age = rng.normal(size=n)
    sex = rng.integers(0, 2, n)
    y = (rng.random(n) < 1 / (1 + np.exp(-2 * age))).astype(float)

    def strata(covariates):
        data = encode(X, y, n_classes=2, covariates=covariates)
        return data, [set(s.tolist()) for s in permutation_strata(data)]

    _, plain = strata(None)
    assert plain == [set(range(n))]
    _, by_sex = strata(as_covariates(sex, n, discrete=True))
    assert sorted(by_sex, key=min) == sorted([{i for i in range(n) if sex[i] == v}
                                              for v in (0, 1)], key=min)
    _, by_age = strata(as_covariates(age, n))
    ranked = np.argsort(age)
    assert STRATUM_SIZE == 10
    assert sorted(by_age, key=min) == sorted([set(ranked[i:i + 10].tolist())
                                              for i in range(0, n, 10)], key=min)
    data, both = strata(as_covariates(np.c_[age, sex], n, discrete=[False, True]))
    want = []
    for v in (0, 1):
        members = [i for i in ranked if sex[i] == v]          # by age within the sex
        runs = [members[i:i + 10] for i in range(0, len(members), 10)]
        if len(runs) > 1 and len(runs[-1]) < 10:               # the last run takes the rest
            runs[-2:] = [runs[-2] + runs[-1]]
        want += [set(r) for r in runs]
    assert sorted(both, key=min) == sorted(want, key=min)
    permuted = permuted_targets(data, permutation_strata(data), np.random.default_rng(0))
    assert not np.array_equal(permuted, y)
    for stratum in both:
        index = sorted(stratum)
        assert sorted(permuted[index]) == sorted(y[index])


def test_permutation_rule_by_hand():
    # the smallest permutation p-value is 1/(R + 1) and the best of M attributes has q = p M
    # at best: q <= 0.05 needs R + 1 >= 20 M
    from orangecontrib.relief.estimators.significance import permutation_rule
    assert permutation_rule(1) == (19, None)
    assert permutation_rule(20) == (399, None)
    assert permutation_rule(20, 399) == (399, None)
    r, message = permutation_rule(20, 398, kind="attributes")
    assert r == 398 and message == ("398 permutations cannot give q < 0.05 among 20 "
                                    "attributes (a permutation p-value is at least 1/399); "
                                    "399 can")
    assert permutation_rule(5, 100) == (100, None)          # 5 / 101 < 0.05
    assert permutation_rule(6, 100)[1] is not None           # 6 / 101 > 0.05
    # beyond the most run by default: that many, with the warning
    r, message = permutation_rule(1000)
    assert r == 1000 and "19999 can" in message
    # pooled (calibrated) p-values have no floor: no default of their own, never a warning
    assert permutation_rule(1000, 30, pooled=True) == (30, None)


def test_default_permutations_reach_q_below_0_05():
    # 30 attributes, the first the class itself: by default 599 permutations, and its q-value
    # reaches 0.05 (p = 1/600, q = 30/600); with 100 the rule warns and q cannot (q = 30/101)
    from orangecontrib.relief.estimators.significance import PermutationWarning
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 40)
    X = rng.integers(0, 2, (40, 30)).astype(float)
    X[:, 0] = y
    data = encode(X, y, discrete=True, n_classes=2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = permutation_test(InfGain(), data, random_state=0)
    assert result.n_permutations == 599
    assert result.pvalues[0] == 1 / 600 and result.qvalues[0] <= 0.05
    with pytest.warns(PermutationWarning, match="100 permutations cannot give q < 0.05 among "
                                                "30 attributes .*; 599 can"):
        few = significance(InfGain(), data, "permutation", 100, random_state=0)
    assert few.qvalues.min() == pytest.approx(30 / 101)


def test_calibrated_pvalues_have_no_permutation_floor():
    # STIR's calibrated p-values with 30 permutations (and NPDR's, the same calibration)
    # reach far below 1/31 for a strong attribute among 100: q < 0.05 without 2,000
    # permutations, so the rule does not warn for them
    rng = np.random.default_rng(1)
    n = 120
    y = rng.integers(0, 2, n)
    X = rng.integers(0, 3, (n, 100)).astype(float)
    X[:, 0] = np.where(rng.random(n) < 0.9, 2 * y, X[:, 0])
    data = encode(X, y, discrete=True, n_classes=2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = stir(MultiSURF(), data, random_state=0)
    assert result.pvalues[0] < 1 / 31 / 100 and result.qvalues[0] < 0.05
