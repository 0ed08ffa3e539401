"""The scan of every pair (BOOST's test): every pair's G² against a log-linear Poisson model
fitted by statsmodels, df from the rank of the design, p-values from scipy, q-values from
statsmodels' Benjamini-Hochberg, in both kernel modes; the bounded q-values of a scan above
the exactly fitted pairs; refusals; progress and cancel."""
from dataclasses import replace
from itertools import combinations, product

import numpy as np
import pytest
import statsmodels.api as sm
from scipy import stats
from statsmodels.stats.multitest import multipletests

from orangecontrib.relief.compilation import kernel_mode
from orangecontrib.relief.estimators import as_covariates, encode, interacting_pairs
from orangecontrib.relief.estimators import pair_scan
from orangecontrib.relief.estimators.interactions import scan_pairs
from orangecontrib.relief.estimators.pair_scan import BIN_WIDTH

MODES = ("compiled", "numpy")


def snp_data(n=240, a=9, seed=0, maf=(0.05, 0.5), missing=0.0, classes=2, values=3):
    rng = np.random.default_rng(seed)
    X = rng.binomial(values - 1, rng.uniform(*maf, a), (n, a)).astype(float)
    y = ((X[:, 1] == 1) ^ (X[:, 4] == 1)).astype(float)
    flip = rng.random(n) < 0.2
    y[flip] = rng.integers(0, classes, flip.sum())
    if missing:
        X[rng.random(X.shape) < missing] = np.nan
    return encode(X, y, discrete=True, n_values=values, n_classes=classes)


def loglinear_lrt(a, b, y):
    """Deviance of the Poisson log-linear model [CA][CB][AB] of the C x I x J table of the
    instances (both values known), fitted by statsmodels (the saturated model's deviance is 0),
    and its df (C - 1)(I - 1)(J - 1) of the classes and values present."""
    keep = ~(np.isnan(a) | np.isnan(b))
    a, b, y = a[keep].astype(int), b[keep].astype(int), y[keep].astype(int)
    av, bv, cv = np.unique(a), np.unique(b), np.unique(y)
    cells = list(product(cv, av, bv))
    counts = np.array([np.sum((y == c) & (a == i) & (b == j)) for c, i, j in cells], float)
    columns = [np.ones(len(cells))]
    for left, right in ((0, 1), (0, 2), (1, 2)):
        lv = [cv, av, bv][left][1:]
        rv = [cv, av, bv][right][1:]
        for u in lv:
            columns.append(np.array([cell[left] == u for cell in cells], float))
        for v in rv:
            columns.append(np.array([cell[right] == v for cell in cells], float))
        for u in lv:
            for v in rv:
                columns.append(np.array([cell[left] == u and cell[right] == v
                                         for cell in cells], float))
    design = np.unique(np.column_stack(columns), axis=1)
    fit = sm.GLM(counts, design, family=sm.families.Poisson()).fit(tol=1e-13, maxiter=500)
    return fit.deviance, (len(cv) - 1) * (len(av) - 1) * (len(bv) - 1)


def reference(data):
    X, y = np.asarray(data.X, float), data.y
    pairs = list(combinations(range(data.n_attributes), 2))
    g, df = np.array([loglinear_lrt(X[:, i], X[:, j], y) for i, j in pairs]).T
    p = np.where(df > 0, stats.chi2.sf(g, np.maximum(df, 1)), 1.0)
    q = multipletests(p, method="fdr_bh")[1]
    return pairs, g, df, p, q


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kind", ["snps", "missing", "three classes, two values"])
def test_every_pair_is_the_loglinear_likelihood_ratio_test(mode, kind):
    data = {"snps": lambda: snp_data(),
            "missing": lambda: snp_data(missing=0.05, seed=1),
            "three classes, two values": lambda: snp_data(classes=3, values=2, seed=2)}[kind]()
    pairs, g, df, p, q = reference(data)
    with kernel_mode(mode):
        result = scan_pairs(data, top=len(pairs))
    assert result.n_tested == len(pairs) == len(result)
    got = {(int(a), int(b)): k for k, (a, b) in enumerate(zip(result.first, result.second))}
    order = [got[pair] for pair in pairs]
    np.testing.assert_allclose(result.statistics[order], g, atol=1e-6, rtol=1e-7)
    np.testing.assert_array_equal(result.df[order], df)
    np.testing.assert_allclose(result.pvalues[order], p, rtol=1e-6, atol=1e-12)
    np.testing.assert_allclose(result.qvalues[order], q, rtol=1e-6, atol=1e-12)
    assert (np.diff(result.pvalues) >= 0).all()
    assert (result.first[0], result.second[0]) == (1, 4)


@pytest.mark.parametrize("missing", [0.01, 0.0])
@pytest.mark.parametrize("exact_pairs", [pair_scan.EXACT_PAIRS, 40])
def test_both_kernel_modes_give_the_same_pairs(missing, exact_pairs, monkeypatch):
    """Also with the screen deciding (40 of 780 pairs fitted): SNPs without missing values take
    the compiled kernel's scalar path, the numpy equivalent computes every table's margins."""
    monkeypatch.setattr(pair_scan, "EXACT_PAIRS", exact_pairs)
    data = snp_data(n=300, a=40, seed=3, missing=missing)
    runs = []
    for mode in MODES:
        with kernel_mode(mode):
            runs.append(scan_pairs(data, top=50).table())
    np.testing.assert_array_equal(runs[0], runs[1])
    assert len(runs[0]) > 20        # pairs to compare (p <= tau only, where tau < 1)


@pytest.mark.parametrize("mode", MODES)
def test_above_the_exact_pairs_the_best_are_exact_and_q_bounded(mode, monkeypatch):
    """With fewer pairs fitted than tested (the screen's tau below 1), the kept pairs are still
    the best of all by the exact test, and each q-value is at least the exact one and within
    exp(BIN_WIDTH) of it where it is at most tau."""
    data = snp_data(n=200, a=30, seed=4)
    pairs, g, df, p, q = reference(data)
    monkeypatch.setattr(pair_scan, "EXACT_PAIRS", 60)
    with kernel_mode(mode):
        result = scan_pairs(data, top=10)
    tau = 60 / len(pairs)
    assert result.exact_below == pytest.approx(tau) and result.n_tested == len(pairs)
    best = np.lexsort((-g, p))[:10]
    assert [tuple(map(int, pair)) for pair in zip(result.first, result.second)] == \
        [pairs[k] for k in best]
    np.testing.assert_allclose(result.pvalues, p[best], rtol=1e-6)
    assert (result.qvalues >= q[best] * (1 - 1e-9)).all()
    exact = q[best] <= tau
    assert exact.any()
    assert (result.qvalues[exact] <= q[best][exact] * np.exp(BIN_WIDTH) + 1e-12).all()


def test_a_planted_pair_among_null_pairs_is_first_and_significant():
    rng = np.random.default_rng(5)
    X = rng.binomial(2, 0.4, (500, 60)).astype(float)
    y = ((X[:, 10] == 1) ^ (X[:, 50] == 1)).astype(float)
    flip = rng.random(500) < 0.25
    y[flip] = 1 - y[flip]
    result = scan_pairs(encode(X, y, discrete=True, n_values=3, n_classes=2), top=5)
    assert (result.first[0], result.second[0]) == (10, 50)
    assert result.qvalues[0] < 1e-6 and result.qvalues[1] > 0.05


def test_a_constant_attribute_pairs_count_with_p_one():
    data = snp_data(a=5)
    X = np.asarray(data.X).copy()
    X[:, 2] = 1
    data = replace(data, X=X)
    result = scan_pairs(data, top=10)
    for pair, df in zip(result, result.df):
        if 2 in (pair.first, pair.second):
            assert df == 0 and pair.pvalue == 1
    assert result.n_tested == 10


def test_given_attributes_are_the_ones_scanned():
    result = scan_pairs(snp_data(a=9), attributes=[1, 4, 7], top=10)
    assert sorted(zip(result.first.tolist(), result.second.tolist())) == [(1, 4), (1, 7), (4, 7)]


def test_callback_reports_progress_and_cancels(monkeypatch):
    monkeypatch.setattr(pair_scan, "CHUNK_PAIRS", 200)
    monkeypatch.setattr(pair_scan, "TILE", 16)
    data = snp_data(a=60)
    seen = []
    scan_pairs(data, callback=seen.append)
    assert seen[-1] == 1.0 and seen == sorted(seen) and len(seen) >= 9

    class Stop(Exception):
        pass

    def stop(fraction):
        if fraction > 0.3:
            raise Stop
    with pytest.raises(Stop):
        scan_pairs(data, callback=stop)


@pytest.mark.parametrize("change, message", [
    (dict(values=5), "at most 4 values"),
    (dict(numeric=True), "discrete attributes"),
    (dict(regression=True), "discrete class"),
    (dict(top=0), "top must be"),
    (dict(covariates=True), "does not adjust for covariates"),
])
def test_bad_input_is_refused_with_a_message(change, message):
    data = snp_data(values=change.get("values", 3), a=6)
    if change.get("numeric"):
        data = replace(data, discrete=np.array([True, False, True, True, True, True]))
    if change.get("regression"):
        data = replace(data, n_classes=0)
    if change.get("covariates"):
        data = replace(data, covariates=as_covariates(np.arange(240.0)[:, None], 240))
    with pytest.raises(ValueError, match=message):
        scan_pairs(data, top=change.get("top", 10))


@pytest.mark.parametrize("keywords", [{}, {"attributes": [0, 1, 2]}])
def test_covariates_are_refused_on_the_other_paths_too(keywords):
    data = replace(snp_data(a=6), covariates=as_covariates(np.arange(240.0)[:, None], 240))
    with pytest.raises(ValueError, match="does not adjust for covariates"):
        interacting_pairs(data, n_permutations=2, **keywords)


def test_the_screens_df_counts_the_interaction_terms_a_sparse_table_can_estimate():
    """interaction_df: (classes present - 1) x (combinations of the two values present - the
    rank of the main effects' design on them), the rank by numpy, on random sparse tables; never
    above the test's df."""
    from orangecontrib.relief.estimators.interactions import table_df
    from orangecontrib.relief.estimators.pair_scan import interaction_df
    rng = np.random.default_rng(6)
    tables = rng.integers(0, 3, (300, 2, 4, 4)) * (rng.random((300, 2, 4, 4)) < 0.3)
    tables[:5, 1] = 0                                  # one class only: no test
    expected = []
    for table in tables:
        cells = [(i, j) for i in range(4) for j in range(4) if table[:, i, j].sum()]
        rows = sorted({i for i, _ in cells})
        cols = sorted({j for _, j in cells})
        design = np.array([[1.0] + [i == u for u in rows[1:]] + [j == v for v in cols[1:]]
                           for i, j in cells], float).reshape(len(cells), -1)
        classes = int((table.sum(axis=(1, 2)) > 0).sum())
        rank = np.linalg.matrix_rank(design) if cells else 0
        expected.append(max(classes - 1, 0) * (len(cells) - rank))
    np.testing.assert_array_equal(interaction_df(tables), expected)
    assert (interaction_df(tables) <= table_df(tables)).all()
    assert (interaction_df(tables) < table_df(tables)).any()


def test_a_pair_whose_chi_square_tail_underflows_is_first_with_a_finite_tail(monkeypatch):
    """G² in the thousands (scipy's chi-square tail underflows to 0): the scan still answers,
    the strongest pair first with p = 0 and q = 0, also with the histogram's q-values."""
    rng = np.random.default_rng(7)
    X = rng.binomial(2, 0.5, (3000, 12)).astype(float)
    y = ((X[:, 2] == 1) ^ (X[:, 9] == 1)).astype(float)
    data = encode(X, y, discrete=True, n_values=3, n_classes=2)
    for exact_pairs in (pair_scan.EXACT_PAIRS, 10):
        monkeypatch.setattr(pair_scan, "EXACT_PAIRS", exact_pairs)
        result = scan_pairs(data, top=5)
        assert (result.first[0], result.second[0]) == (2, 9)
        assert result.statistics[0] > 3000 and result.pvalues[0] == 0 == result.qvalues[0]
        assert stats.chi2.sf(result.statistics[0], result.df[0]) == 0
        assert result.pvalues[1] > 1e-6
