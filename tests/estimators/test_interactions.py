"""Interacting pairs: G² against a logistic-regression fit by statsmodels, the epistatic pair
found first, uniform p-values on null data (with and without a ranking), bad input, seeds and
cancellation."""
from dataclasses import replace
from itertools import combinations

import numpy as np
import pytest
import statsmodels.api as sm
from scipy import stats

from orangecontrib.relief.estimators import encode, interacting_pairs
from orangecontrib.relief.estimators import interactions
from orangecontrib.relief.estimators.interactions import choose_method, pair_statistics
from orangecontrib.relief.estimators.relieff import ReliefF
from orangecontrib.relief.estimators.surf import MultiSURF
from orangecontrib.relief.estimators.turf import TuRF


def snps(n, a, seed, maf=0.3):
    rng = np.random.default_rng(seed)
    X = rng.binomial(2, maf, size=(n, a)).astype(float)
    y = rng.permutation(np.arange(n) % 2)
    return X, y


def xor_data(n=400, a=8, seed=0):
    # the class is the parity of the heterozygosity of SNPs 2 and 5 (each alone unrelated to it),
    # with 10 % of the classes flipped
    rng = np.random.default_rng(seed)
    X = rng.binomial(2, 0.5, size=(n, a)).astype(float)
    y = ((X[:, 2] == 1) ^ (X[:, 5] == 1)).astype(int)
    flip = rng.random(n) < 0.1
    y[flip] = 1 - y[flip]
    return encode(X, y.astype(float), discrete=True, n_values=[3] * a, n_classes=2)


def logistic_lrt(a, b, y):
    """2 (log L(A * B) - log L(A + B)) of logistic regressions with A and B as factors, by
    statsmodels' GLM on the instances (not on tables)."""
    def design(interaction):
        columns = [np.ones(len(y))]
        levels_a, levels_b = np.unique(a)[1:], np.unique(b)[1:]
        columns += [(a == v).astype(float) for v in levels_a]
        columns += [(b == v).astype(float) for v in levels_b]
        if interaction:
            columns += [((a == u) & (b == v)).astype(float) for u in levels_a for v in levels_b]
        return np.column_stack(columns)
    fits = [sm.GLM(y, design(i), family=sm.families.Binomial()).fit(tol=1e-12, maxiter=200)
            for i in (True, False)]
    return 2 * (fits[0].llf - fits[1].llf)


def test_statistic_is_the_likelihood_ratio_of_logistic_regressions_with_and_without_interaction():
    X, y = snps(300, 5, 1, maf=0.4)
    g, df = pair_statistics(X, y, 2, np.full(5, 3))
    expected = [logistic_lrt(X[:, i], X[:, j], y) for i, j in combinations(range(5), 2)]
    np.testing.assert_allclose(g, expected, atol=1e-6)
    assert (df == 4).all()


def test_missing_values_leave_the_instance_out_of_the_pairs_table():
    X, y = snps(200, 3, 2, maf=0.4)
    X[[3, 7, 11], 0] = np.nan
    g, _ = pair_statistics(X, y, 2, np.full(3, 3))
    keep = ~np.isnan(X[:, 0])
    assert g[0] == pytest.approx(logistic_lrt(X[keep, 0], X[keep, 1], y[keep]), abs=1e-6)
    assert g[2] == pytest.approx(logistic_lrt(X[:, 1], X[:, 2], y), abs=1e-6)


def test_three_classes_and_two_valued_attributes_take_their_degrees_of_freedom():
    rng = np.random.default_rng(5)
    X = np.column_stack([rng.integers(0, 2, 300), rng.integers(0, 3, 300)]).astype(float)
    y = rng.integers(0, 3, 300)
    g, df = pair_statistics(X, y, 3, np.array([2, 3]))
    assert df[0] == (3 - 1) * (2 - 1) * (3 - 1)
    # the multinomial model: the sum over classes of log-linear terms; a check by hand on the
    # fitted counts' margins is in the fit itself, so compare with a multinomial GLM
    import statsmodels.discrete.discrete_model as dm
    a, b = X[:, 0], X[:, 1]
    main = np.column_stack([np.ones(300), a == 1, b == 1, b == 2]).astype(float)
    full = np.column_stack([main, (a == 1) & (b == 1), (a == 1) & (b == 2)]).astype(float)
    llf = [dm.MNLogit(y, d).fit(disp=0, method="newton", maxiter=100, tol=1e-12).llf
           for d in (full, main)]
    assert g[0] == pytest.approx(2 * (llf[0] - llf[1]), abs=1e-6)


def test_epistatic_pair_is_first_and_significant():
    result = interacting_pairs(xor_data(), n_permutations=100, random_state=0)
    best = result[0]
    assert (best.first, best.second) == (2, 5)
    assert best.pvalue < 1e-3 and best.qvalue < 0.05
    assert len(result) == 28
    assert result.pvalues.tolist() == sorted(result.pvalues.tolist())
    table = result.table()
    assert table.shape == (28, 5) and tuple(table[0, :2]) == (2, 5)
    assert list(result)[0] == best
    # the others are noise: few significant
    assert (result.qvalues[1:] < 0.05).sum() <= 1


def test_the_ranking_picks_the_top_attributes_and_the_pair():
    data = xor_data(a=12)
    result = interacting_pairs(data, top=4, estimator=ReliefF(k=10), n_permutations=19,
                               random_state=0)
    assert len(result) == 6 and result.n_permutations == 19
    assert {2, 5} <= set(result.attributes.tolist())
    assert (result[0].first, result[0].second) == (2, 5)


def test_given_attributes_are_the_ones_tested():
    data = xor_data()
    result = interacting_pairs(data, attributes=[5, 1, 2], n_permutations=50, random_state=0)
    assert sorted((p.first, p.second) for p in result) == [(1, 2), (1, 5), (2, 5)]
    assert (result[0].first, result[0].second) == (2, 5)


def test_pvalues_are_uniform_on_null_data():
    # rare genotypes (minor allele frequency 0.15, 150 instances) put the chi-square far off;
    # the pooled permutations do not depend on it
    pvalues = []
    for seed in range(20):
        X, y = snps(150, 10, seed, maf=0.15)
        data = encode(X, y.astype(float), discrete=True, n_values=[3] * 10, n_classes=2)
        pvalues.append(interacting_pairs(data, n_permutations=25, random_state=seed).pvalues)
    p = np.concatenate(pvalues)
    assert stats.kstest(p, "uniform").pvalue > 0.01
    assert 0.03 < np.mean(p < 0.05) < 0.07


def test_pvalues_after_a_ranking_are_uniform_on_null_data():
    # the ranking picks attributes with large chance interactions; the permutations repeat it
    pvalues = []
    for seed in range(12):
        X, y = snps(120, 12, 100 + seed, maf=0.4)
        data = encode(X, y.astype(float), discrete=True, n_values=[3] * 12, n_classes=2)
        pvalues.append(interacting_pairs(data, top=6, estimator=ReliefF(k=10),
                                         n_permutations=15, random_state=seed).pvalues)
    p = np.concatenate(pvalues)
    assert stats.kstest(p, "uniform").pvalue > 0.01


def test_pvalues_after_the_default_filter_are_uniform_on_null_data():
    # the default filter (TuRF around MultiSURF) with its default 10 rankings, pooled; the
    # p-values of one data set share its pool, so many data sets
    pvalues = []
    for seed in range(30):
        X, y = snps(120, 12, 300 + seed, maf=0.4)
        data = encode(X, y.astype(float), discrete=True, n_values=[3] * 12, n_classes=2)
        result = interacting_pairs(data, top=6, random_state=seed)
        assert result.method == "filter" and result.n_permutations == 10
        pvalues.append(result.pvalues)
    p = np.concatenate(pvalues)
    assert stats.kstest(p, "uniform").pvalue > 0.01
    assert 0.02 < np.mean(p < 0.05) < 0.09


def test_auto_scans_while_instances_times_pairs_fit_the_scan_and_filters_above():
    for n in (300, 1000, 2000):
        a, pairs = 2, 1          # the most attributes whose pairs fit, a new attribute at a time
        while n * (pairs + a) <= interactions.SCAN_WORK:
            pairs += a
            a += 1
        assert choose_method(n, a) == "scan" and choose_method(n, a + 1) == "filter"


def test_the_result_names_the_method_that_chose_the_pairs(monkeypatch):
    data = xor_data(n=300, a=60)                    # 1,770 pairs
    scanned = interacting_pairs(data, n_permutations=2, random_state=0)
    assert scanned.method == "scan" and len(scanned) == 1770 and scanned.estimator is None
    assert (scanned[0].first, scanned[0].second) == (2, 5)
    # the same data taken for too large to scan: the pairs of the default filter's best 50
    monkeypatch.setattr(interactions, "SCAN_WORK", 300 * 1770 - 1)
    filtered = interacting_pairs(data, n_permutations=2, random_state=0)
    assert filtered.method == "filter" and len(filtered) == 50 * 49 // 2
    estimator = filtered.estimator
    assert isinstance(estimator, TuRF) and isinstance(estimator.estimator, MultiSURF)
    assert (estimator.remove, estimator.rounds) == (0.5, 2)
    assert (filtered[0].first, filtered[0].second) == (2, 5)
    # asking for the scan, for the filter's top or estimator, or naming attributes
    assert interacting_pairs(data, method="scan", n_permutations=1).method == "scan"
    ranked = interacting_pairs(data.columns(np.arange(12)), top=4, estimator=ReliefF(k=10),
                               n_permutations=2, random_state=0)
    assert ranked.method == "filter" and len(ranked) == 6
    assert interacting_pairs(data, attributes=[1, 2], n_permutations=2).method == "given"
    # a filter that would keep every attribute tests every pair
    assert interacting_pairs(data.columns(np.arange(8)), method="filter",
                             n_permutations=2).method == "scan"


def test_same_seed_same_pvalues_and_another_seed_other_ones():
    data = xor_data(n=200)
    runs = [interacting_pairs(data, n_permutations=20, random_state=s).pvalues for s in (1, 1, 2)]
    np.testing.assert_array_equal(runs[0], runs[1])
    assert not np.array_equal(runs[0], runs[2])


def test_callback_reports_progress_and_cancels():
    seen = []
    interacting_pairs(xor_data(n=200), n_permutations=5, random_state=0, callback=seen.append)
    assert seen[-1] == 1.0 and all(0 <= f <= 1 for f in seen)
    assert seen == sorted(seen)

    class Stop(Exception):
        pass

    def stop(fraction):
        if fraction > 0.3:
            raise Stop
    with pytest.raises(Stop):
        interacting_pairs(xor_data(n=200), n_permutations=5, random_state=0, callback=stop)


def test_a_constant_attribute_gets_no_test():
    data = xor_data(n=200, a=6)
    X = data.X.copy()
    X[:, 0] = 1
    result = interacting_pairs(data.with_columns(X, True, n_values=[3] * 6), n_permutations=20,
                               random_state=0)
    for pair in result:
        if 0 in (pair.first, pair.second):
            assert pair.statistic == 0 and pair.pvalue == 1


@pytest.mark.parametrize("change, message", [
    (dict(numeric=True), "discrete attributes"),
    (dict(regression=True), "discrete class"),
    (dict(weights=True), "instance weights"),
    (dict(one_class=True), "two classes"),
    (dict(top=1), "top must be"),
    (dict(top=2.5), "top must be"),
    (dict(attributes=[0]), "at least two"),
    (dict(attributes=[0, 0]), "twice"),
    (dict(attributes=[0, 99]), "indices must be"),
    (dict(attributes=[0.5, 1]), "at least two attribute indices"),
    (dict(n_permutations=0), "n_permutations"),
    (dict(method="all"), "method must be one of auto, scan, filter"),
    (dict(missing_class=True), "class is missing"),
])
def test_bad_input_is_refused_with_a_message(change, message):
    data = xor_data(n=60, a=6)
    kwargs = {k: change[k] for k in ("top", "attributes", "n_permutations", "method")
              if k in change}
    if change.get("numeric"):
        data = replace(data, discrete=np.array([True, False, True, True, True, True]))
    if change.get("regression"):
        data = replace(data, n_classes=0)
    if change.get("weights"):
        data = replace(data, weights=np.ones(60))
    if change.get("one_class"):
        data = replace(data, y=np.zeros(60))
    if change.get("missing_class"):
        y = data.y.copy()
        y[0] = np.nan
        data = replace(data, y=y)
    with pytest.raises(ValueError, match=message):
        interacting_pairs(data, **kwargs)


def test_many_valued_attributes_are_refused():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 20, (50, 3)).astype(float)
    data = encode(X, rng.integers(0, 2, 50).astype(float), discrete=True, n_classes=2)
    with pytest.raises(ValueError, match="at most 16 values"):
        interacting_pairs(data)


def test_weak_pairs_of_one_degree_of_freedom_raise_no_warning():
    """A pair's tail series (for G² far above its df) is computed for every pair; for G² <= 1
    on 1 df (binary attributes and class) it is log(0), which warned — and Orange's warning
    log, which walks the stack, held the Interacting Pairs widget at 0 % for seconds."""
    import warnings
    rng = np.random.default_rng(3)
    X = rng.integers(0, 2, size=(60, 8)).astype(float)
    y = rng.integers(0, 2, 60)
    weak = [logistic_lrt(X[:, i], X[:, j], y) <= 1 for i, j in combinations(range(8), 2)]
    assert any(weak)                  # pairs of G² <= 1 are among those scanned
    data = encode(X, y.astype(float), discrete=True, n_values=[2] * 8, n_classes=2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = interactions.scan_pairs(data)
    assert len(result) == 28 and np.isfinite(result.pvalues).all()
