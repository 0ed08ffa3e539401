"""NPDR (Le, Dawkins & McKinney 2020): its regressions equal independent fits of the same pair
design by statsmodels, its neighbourhoods the definitions computed here by brute force, and its
calibrated p-values are uniform on null data."""
import numpy as np
import pytest
import statsmodels.api as sm
from scipy import stats

from orangecontrib.relief.estimators import ReliefF, encode
from orangecontrib.relief.estimators.encoding import as_covariates
from orangecontrib.relief.estimators.npdr import NPDR, default_k
from orangecontrib.relief.estimators.significance import benjamini_hochberg, significance


def _snps(rng, n, a):
    return rng.binomial(2, rng.uniform(0.1, 0.5, a), (n, a)).astype(float)


def _data(kind, covariates, seed=0):
    """(EncodedData, logistic, discrete) of one kind: SNPs (100 columns: the grouped counts),
    numeric attributes with a class, or numeric attributes with a numeric target."""
    rng = np.random.default_rng(seed)
    n = 70
    if kind == "snp":
        X = _snps(rng, n, 100)
        y = ((X[:, 0] > 0) ^ (rng.random(n) < 0.3)).astype(float)
    else:
        X = rng.normal(size=(n, 12))
        y = X[:, 0] + X[:, 1] + rng.normal(size=n)
        if kind == "numeric":
            y = (y > 0).astype(float)
    covs = None
    if covariates == "numeric":
        covs = as_covariates(rng.normal(size=(n, 2)), n)
    elif covariates == "discrete":
        covs = as_covariates(np.c_[rng.integers(0, 2, n), rng.integers(0, 3, n)], n,
                             discrete=True)
    elif covariates == "mixed":
        covs = as_covariates(np.c_[rng.normal(size=n), rng.integers(0, 2, n)], n,
                             discrete=[False, True])
    logistic = kind != "quantitative"
    data = encode(X, y, discrete=kind == "snp", n_classes=2 if logistic else 0,
                  covariates=covs)
    return data, logistic


def _independent_fit(data, rows, others, column, logistic, statistic="wald"):
    """statsmodels' fit of the pair design of one attribute, written from the definitions;
    ``statistic="score"``: statsmodels' score test of the attribute's diff from the fit of the
    other columns (signed by the score), with the one-step coefficient and its standard error
    from the same chi-square."""
    y, x = data.y, data.X[:, column]
    outcome = (y[rows] != y[others]).astype(float) if logistic else np.abs(y[rows] - y[others])
    d = (x[rows] != x[others]).astype(float) if data.discrete[column] \
        else np.abs(x[rows] - x[others]) / (x.max() - x.min())
    design = [np.ones(rows.size)]
    covs = data.covariates
    if covs is not None:
        for c in range(covs.n_covariates):
            u, v = covs.values[rows, c], covs.values[others, c]
            design.append((u != v).astype(float) if covs.discrete[c] else np.abs(u - v))
    design = np.column_stack(design + [d])
    if logistic and statistic == "score":
        null = sm.GLM(outcome, design[:, :-1], family=sm.families.Binomial()).fit(tol=1e-14)
        chi2 = float(np.ravel(null.score_test(exog_extra=d[:, None])[0])[0])
        U = d @ (outcome - null.fittedvalues)
        z = np.sign(U) * np.sqrt(chi2)
        # chi2 = U^2 / V: V = U^2 / chi2, the one-step coefficient U / V, its se 1 / sqrt(V)
        return U / (U ** 2 / chi2), np.sqrt(chi2) / abs(U), z, stats.norm.sf(z)
    if logistic:
        fit = sm.GLM(outcome, design, family=sm.families.Binomial()).fit(tol=1e-14)
        p = stats.norm.sf(fit.tvalues[-1])
    else:
        fit = sm.OLS(outcome, design).fit()
        p = stats.t.sf(fit.tvalues[-1], fit.df_resid)
    return fit.params[-1], fit.bse[-1], fit.tvalues[-1], p


@pytest.mark.parametrize("neighbourhood,statistic", [("multisurf", "score"), ("multisurf", "wald"),
                                                     ("k-nearest", "score")])
@pytest.mark.parametrize("covariates", [None, "numeric", "discrete", "mixed"])
@pytest.mark.parametrize("kind", ["snp", "numeric", "quantitative"])
def test_equals_statsmodels(kind, covariates, neighbourhood, statistic):
    # (a numeric target has one test, least squares, whatever the statistic; the SNP data with
    # a numeric covariate take the counted score sums, single-precision products: 1e-5)
    data, logistic = _data(kind, covariates)
    npdr = NPDR(neighbourhood=neighbourhood, k=8, statistic=statistic)
    context = npdr.context(data)
    result = npdr.test(data, calibration=0)
    assert result.df is (None if logistic else result.df)
    counted = statistic == "score" and kind == "snp" and covariates in ("numeric", "mixed")
    tolerance = 1e-5 if counted else 1e-6
    for column in range(0, data.n_attributes, 1 if kind != "snp" else 9):
        b, se, z, p = _independent_fit(data, context.rows, context.others, column, logistic,
                                       statistic)
        np.testing.assert_allclose(
            [result.coefficients[column], result.standard_errors[column],
             result.statistics[column], result.pvalues[column]], [b, se, z, p],
            rtol=tolerance, atol=tolerance)
    np.testing.assert_allclose(result.qvalues, benjamini_hochberg(result.pvalues))
    np.testing.assert_allclose(result.bonferroni,
                               np.minimum(result.pvalues * data.n_attributes, 1))


def _manhattan(data):
    X = data.X
    diffs = np.abs(X[:, None, :] - X[None, :, :])
    diffs = np.where(data.discrete, diffs > 0, diffs / np.where(data.span > 0, data.span, 1))
    return diffs.sum(axis=2)


@pytest.mark.parametrize("kind", ["snp", "numeric"])
def test_neighbourhoods_are_the_definitions(kind):
    data, _ = _data(kind, None, seed=3)
    d = _manhattan(data)
    n = data.n_instances
    off = ~np.eye(n, dtype=bool)
    # MultiSURF: closer than the mean distance to the others less half their (population) sd
    others = np.where(off, d, np.nan)
    radius = np.nanmean(others, axis=1) - np.nanstd(others, axis=1) / 2
    context = NPDR().context(data)
    want = off & (d < radius[:, None])
    got = np.zeros((n, n), bool)
    got[context.rows, context.others] = True
    np.testing.assert_array_equal(got, want)
    # k nearest of any class, every instance tied with the k-th included
    k = 7
    kth = np.sort(others, axis=1)[:, k - 1]
    want = off & (d <= kth[:, None] + 1e-12)
    context = NPDR(neighbourhood="k-nearest", k=k).context(data)
    got = np.zeros((n, n), bool)
    got[context.rows, context.others] = True
    np.testing.assert_array_equal(got, want)


def test_default_k_is_the_expected_multisurf_neighbourhood():
    # (n - 1)(1 - erf(0.5 / sqrt 2)) / 2: 0.3085... of the others, as the R package npdr
    assert default_k(101) == 30
    assert default_k(2) == 1


@pytest.mark.parametrize("share", [0.5, 0.3])
def test_calibrated_pvalues_are_uniform_on_null_data(share):
    pvalues, discoveries, raw = [], 0, []
    for seed in range(3):
        rng = np.random.default_rng(seed)
        n = 200
        X = _snps(rng, n, 100)
        y = rng.permutation((np.arange(n) < share * n).astype(float))
        data = encode(X, y, discrete=True, n_classes=2)
        result = NPDR().test(data, random_state=seed)
        pvalues.append(result.pvalues)
        discoveries += np.count_nonzero(result.qvalues < 0.05)
        raw.append(NPDR().test(data, calibration=0).pvalues)
    p = np.concatenate(pvalues)
    assert stats.kstest(p, "uniform").pvalue > 0.01
    assert discoveries <= 1          # of 300 null attributes at q < 0.05
    if share == 0.3:
        # why the calibration: the pairs are not independent, and the regressions' own
        # p-values are far too small with unequal classes
        assert np.mean(np.concatenate(raw) < 0.05) > 0.1


def test_interacting_snps_rank_first():
    rng = np.random.default_rng(5)
    X = _snps(rng, 300, 30)
    y = ((X[:, 3] > 0) ^ (X[:, 7] > 0)).astype(float)
    y = np.where(rng.random(300) < 0.1, 1 - y, y)
    scores = NPDR()(encode(X, y, discrete=True, n_classes=2))
    assert set(np.argsort(-scores)[:2]) == {3, 7}


def test_covariate_adjustment_removes_a_confounded_snp():
    # the covariate sets both the class and SNP 0's genotype; SNP 0 has no effect of its own
    rng = np.random.default_rng(11)
    n = 300
    sex = rng.integers(0, 2, n)
    X = _snps(rng, n, 70)
    X[:, 0] = rng.binomial(2, np.where(sex == 1, 0.8, 0.1))
    y = (rng.random(n) < np.where(sex == 1, 0.85, 0.15)).astype(float)
    plain = NPDR().test(encode(X, y, discrete=True, n_classes=2), random_state=0)
    adjusted = NPDR().test(encode(X, y, discrete=True, n_classes=2,
                                  covariates=as_covariates(sex, n, discrete=True)),
                           random_state=0)
    assert plain.qvalues[0] < 0.05
    assert adjusted.pvalues[0] > 0.05


def test_random_state_repeats_the_sample():
    data, _ = _data("numeric", "numeric", seed=2)
    one = NPDR(iterations=30, random_state=4)(data)
    np.testing.assert_array_equal(one, NPDR(iterations=30, random_state=4)(data))
    assert not np.array_equal(one, NPDR(iterations=30, random_state=5)(data))
    first = NPDR().test(data, random_state=1)
    np.testing.assert_array_equal(first.pvalues, NPDR().test(data, random_state=1).pvalues)


def test_significance_dispatches_to_npdr_and_others_refuse():
    data, _ = _data("numeric", None, seed=2)
    result = significance(NPDR(), data, method="npdr", random_state=0, calibration=0)
    np.testing.assert_allclose(result.pvalues, NPDR().test(data, calibration=0).pvalues)
    with pytest.raises(ValueError, match="no regression p-values"):
        significance(ReliefF(), data, method="npdr")
    with pytest.raises(ValueError, match="calibration"):
        NPDR().test(data, calibration=2)


def test_estimators_that_do_not_adjust_refuse_covariates():
    data, _ = _data("numeric", "numeric")
    with pytest.raises(ValueError, match="does not adjust for covariates"):
        ReliefF()(data)


@pytest.mark.parametrize("statistic", ["score", "wald"])
@pytest.mark.parametrize("kind,bad,discrete,match", [
    ("numeric", np.full((70, 1), 2.0), False, "'covariate 1' does not vary"),
    ("numeric", np.c_[np.arange(70.0), np.arange(70.0)], False,
     "'covariate 2' repeats 'covariate 1'"),
    ("numeric", np.c_[np.arange(70.0), 3 - 2 * np.arange(70.0)], False,
     "'covariate 2' repeats 'covariate 1'"),
    ("numeric", "class", False, "'covariate 2' predicts whether a neighbour pair is a hit"),
    ("snp", "class", True, "'covariate 2' predicts whether a neighbour pair is a hit"),
    ("snp", np.c_[np.arange(70) % 2, np.arange(70) % 2], True,
     "'covariate 2' repeats 'covariate 1'"),
    ("quantitative", "class", False, "'covariate 2' explains the target's differences"),
])
def test_bad_covariates(kind, bad, discrete, match, statistic):
    # a constant covariate, one repeating another (equal, or a linear function of it: the same
    # diffs up to a factor), one that equals the class (or the numeric target): a ValueError
    # that names it, never a LinAlgError
    data, _ = _data(kind, None)
    if isinstance(bad, str):
        other = np.random.default_rng(1).integers(0, 2, 70) if discrete \
            else np.random.default_rng(1).normal(size=70)
        bad = np.c_[other, data.y]
    covariates = as_covariates(bad, 70, discrete=discrete)
    with pytest.raises(ValueError, match=match):
        NPDR(statistic=statistic)(encode(data.X, data.y, discrete=data.discrete,
                                          n_classes=data.n_classes, covariates=covariates))


@pytest.mark.parametrize("mixed,statistic", [(False, "score"), (True, "score"),
                                             (False, "wald"), (True, "wald")])
def test_an_attribute_equal_to_the_class_comes_first(mixed, statistic):
    # 8 instances x 2,000 attributes, attribute 0 equal to the class (its logistic likelihood
    # has no finite maximum: separation): its score statistic (or, for the Wald statistic of
    # its own regression, Firth's penalised likelihood ratio) is finite, the largest, and its
    # p-value the smallest (random attributes equal to the class, or to its complement, by
    # chance tie with it: 2,000 attributes of 8 binary values repeat each pattern about 8
    # times); in mixed data (numeric attributes beside the discrete ones) the same. Calibrated
    # by permutations of 8 classes (70 distinct ones, 2 of them reproducing a0's pattern), no
    # p-value can be far below 2/70: a0's is of that size and in the first percentile
    rng = np.random.default_rng(0)
    y = np.tile([0.0, 1.0], 4)
    X = rng.integers(0, 2, (8, 2000)).astype(float)
    X[:, 0] = y
    discrete = np.ones(2000, bool)
    if mixed:
        X[:, 1000:] = rng.normal(size=(8, 1000))
        discrete[1000:] = False
    data = encode(X, y, discrete=discrete, n_classes=2)
    for calibration in (0, 30):
        result = NPDR(statistic=statistic).test(data, calibration=calibration, random_state=0)
        assert np.isfinite(result.statistics[0])
        assert result.statistics[0] == np.nanmax(result.statistics)
        if calibration:
            assert 0 < result.pvalues[0] < 0.1
            assert np.mean(result.pvalues < result.pvalues[0]) < 0.01
        else:
            assert 0 < result.pvalues[0] == np.nanmin(result.pvalues) < 1e-5
        twins = discrete & (np.all(X == y[:, None], axis=0) | np.all(X == 1 - y[:, None], axis=0))
        top = np.flatnonzero(result.statistics == result.statistics[0])
        np.testing.assert_array_equal(top, np.flatnonzero(twins))


def test_covariates_bad_shape_and_values():
    with pytest.raises(ValueError, match="rows"):
        as_covariates(np.zeros((3, 1)), 4)
    with pytest.raises(ValueError, match="missing"):
        as_covariates([0.0, np.nan], 2)


def test_cancel():
    data, _ = _data("snp", "discrete")

    def cancel(fraction):
        if fraction > 0.3:
            raise KeyboardInterrupt
    with pytest.raises(KeyboardInterrupt):
        NPDR().test(data, callback=cancel)


def test_cancel_between_newton_steps_of_a_block(monkeypatch):
    # with a numeric covariate the pairs' Wald regressions are fitted a block of attributes at
    # a time (here one attribute a block); a block of a million pairs takes seconds, so each
    # of its Newton steps reports the progress so far: more reports than blocks, the fraction
    # never decreasing, and a cancel raised within the first block ends the call
    from orangecontrib.relief.estimators import npdr
    data, _ = _data("snp", "numeric")
    wald = NPDR(statistic="wald")
    context = wald.context(data)
    monkeypatch.setattr(npdr, "PAIR_BLOCK_BYTES", 8 * context.rows.size)
    seen = []
    wald.estimate(context, callback=seen.append)
    assert len(seen) > 2 * data.n_attributes
    assert seen == sorted(seen) and seen[-1] == 1.0

    def cancel(fraction):
        seen.append(fraction)
        if len(seen) == 2:
            raise KeyboardInterrupt
    seen.clear()
    with pytest.raises(KeyboardInterrupt):
        wald.estimate(context, callback=cancel)
    assert seen == [0.0, 0.0]


def test_adjustment_for_a_numeric_confounder():
    # age sets both the class and the allele frequency of SNPs 0-2, which have no effect of
    # their own: unadjusted they are discoveries; adjusted, with the permutations in strata of
    # similar age (a permutation over all instances would remove age's effect from the null
    # and leave them discoveries), they are not
    rng = np.random.default_rng(5)
    n = 240
    age = rng.normal(size=n)
    X = _snps(rng, n, 12)
    X[:, :3] = rng.binomial(2, np.clip(1 / (1 + np.exp(-2 * age)), 0.05, 0.95)[:, None],
                            (n, 3))
    y = (rng.random(n) < 1 / (1 + np.exp(-2 * age))).astype(float)
    plain = NPDR().test(encode(X, y, discrete=True, n_classes=2), random_state=0)
    adjusted = NPDR().test(encode(X, y, discrete=True, n_classes=2,
                                  covariates=as_covariates(age, n)), random_state=0)
    assert (plain.qvalues[:3] < 0.05).all()
    assert (adjusted.pvalues[:3] > 0.05).all()


def test_score_test_agrees_with_the_full_regression_under_the_null():
    # null SNPs with two numeric covariates (the counted score sums) and numeric attributes
    # (the score from the pairs' diffs): the score test's z and the full regressions' Wald z
    # are one statistic up to sampling noise (correlation > 0.99 over the attributes), and
    # their own p-values agree (both shares below 0.05 within 3 points of each other)
    rng = np.random.default_rng(11)
    n = 150
    covs = as_covariates(rng.normal(size=(n, 2)), n)
    y = (rng.random(n) < 0.4).astype(float)
    for X, discrete in ((_snps(rng, n, 120), True), (rng.normal(size=(n, 40)), False)):
        data = encode(X, y, discrete=discrete, n_classes=2, covariates=covs)
        score = NPDR(statistic="score").test(data, calibration=0)
        wald = NPDR(statistic="wald").test(data, calibration=0)
        assert np.corrcoef(score.statistics, wald.statistics)[0, 1] > 0.99
        assert abs(np.mean(score.pvalues < 0.05) - np.mean(wald.pvalues < 0.05)) <= 0.03
        np.testing.assert_allclose(score.statistics, wald.statistics, atol=0.25)


def test_progress_is_proportional_to_the_work(monkeypatch):
    # NPDR.test finds the neighbours once and fits once a permutation: the fraction reported
    # never decreases, each of the (1 + calibration) passes of fits takes an equal share, and
    # within a pass the fraction grows with the attributes done (blocks of attributes here)
    from orangecontrib.relief.estimators import npdr
    data, _ = _data("snp", "numeric")
    estimator = NPDR()
    seen = []
    monkeypatch.setattr(npdr, "SCORE_BLOCK_BYTES", 4 * 2 * 280 * 7)   # blocks of 7 attributes
    estimator.test(data, calibration=3, random_state=0, callback=seen.append)
    assert seen == sorted(seen) and seen[-1] == 1.0
    found = 1 / (1 + 4 * estimator.fit_work(data))
    assert found < 0.05                      # the counted score sums: the fits are the work
    fits = np.array([f for f in seen if f > found])
    runs = (fits - found) / (1 - found) * 4      # passes done, fractional within one
    first = runs[runs <= 1]
    assert len(first) >= 4
    steps = np.diff(np.r_[0.0, first])
    # equal blocks of attributes, equal steps (the last block takes the rest)
    np.testing.assert_allclose(steps[:-1], steps[0], rtol=1e-9)
    assert steps[-1] <= steps[0] + 1e-12
    for r in range(1, 5):
        assert np.any(np.isclose(runs, r))


def test_separated_wald_fits_are_firths():
    # the Wald statistic of an attribute equal to the class: the fit has no finite maximum, so
    # its coefficient and standard error are those of Firth's penalised likelihood and its
    # statistic the signed root of the penalised likelihood ratio, as firthmodels computes them
    # on the pairs one by one
    import warnings
    from firthmodels import FirthLogisticRegression
    rng = np.random.default_rng(3)
    y = np.tile([0.0, 1.0], 10)
    X = rng.integers(0, 3, (20, 70)).astype(float)
    X[:, 0] = 2 * y
    data = encode(X, y, discrete=True, n_classes=2)
    npdr = NPDR(statistic="wald")
    context = npdr.context(data)
    result = npdr.test(data, calibration=0)
    outcome = (y[context.rows] != y[context.others]).astype(float)
    d = (X[context.rows, 0] != X[context.others, 0]).astype(float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = FirthLogisticRegression(gtol=1e-12, xtol=1e-12, max_iter=500).fit(
            d[:, None], outcome)
        model.lrt()
    z = np.sign(model.coef_[0]) * np.sqrt(stats.chi2.isf(model.lrt_pvalues_[0], 1))
    np.testing.assert_allclose([result.coefficients[0], result.standard_errors[0],
                                result.statistics[0]], [model.coef_[0], model.bse_[0], z],
                               rtol=1e-5)


def test_the_work_is_sized_from_the_data_summary_without_a_model(monkeypatch):
    # fit_work tells from the data's summary whether the fits read bit planes, as a model of
    # the data (built here) holds them, and builds no model itself
    import scipy.sparse as sp
    from dataclasses import replace
    from orangecontrib.relief.estimators import npdr
    from orangecontrib.relief.estimators.neighbourhood import diffs
    from orangecontrib.relief.estimators.neighbourhood.packed import PackedColumns, pack_planes
    rng = np.random.default_rng(5)
    n = 40
    y = (rng.random(n) < 0.5).astype(float)
    snps = _snps(rng, n, 70)
    gap = snps.copy()
    gap[3, 5] = np.nan
    empty = snps.copy()
    empty[:, 7] = np.nan
    five = snps.copy()
    five[0, 9] = 4
    forms = {
        "snps": (encode(snps, y, discrete=True, n_classes=2), True),
        "held as planes": (encode(PackedColumns(pack_planes(snps, np.arange(70)), 70), y,
                                  discrete=True, n_classes=2), True),
        "too few columns": (encode(snps[:, :30], y, discrete=True, n_classes=2), False),
        "a missing call": (encode(gap, y, discrete=True, n_classes=2), False),
        "a column without a value": (encode(empty, y, discrete=True, n_classes=2), False),
        "five values": (encode(five, y, discrete=True, n_classes=2), False),
        "numeric": (encode(rng.normal(size=(n, 70)), y, discrete=False, n_classes=2), False),
        "sparse": (encode(sp.csr_matrix(snps), y, discrete=True, n_classes=2), False),
    }
    numeric_covs = as_covariates(rng.normal(size=(n, 2)), n)
    discrete_covs = as_covariates(rng.integers(0, 2, (n, 1)), n, discrete=True)
    for name, (data, expected) in forms.items():
        if not data.is_sparse:
            model = diffs.DiffModel(data, npdr.DIFFS)
            assert (model.planes.shape[2] > 0 and bool(model.usable.all())) == expected, name
        assert diffs.in_planes(data, npdr.DIFFS) == expected, name
        built = []
        monkeypatch.setattr(npdr, "DiffModel", lambda *a, **k: built.append(a))
        for covs, kind in ((None, "grouped"), (discrete_covs, "grouped"),
                           (numeric_covs, "counted")):
            work = NPDR().fit_work(replace(data, covariates=covs))
            if expected:
                assert work == (npdr.FIT_WORK["grouped"] if kind == "grouped"
                                else npdr.FIT_WORK["counted"] * 4), name
            else:
                assert work == npdr.FIT_WORK["score"], name
            assert NPDR(statistic="wald").fit_work(replace(data, covariates=covs)) == \
                (npdr.FIT_WORK["grouped"] if expected and kind == "grouped"
                 else npdr.FIT_WORK["wald"])
        monkeypatch.undo()
        assert not built, name
    quantitative = encode(snps, rng.normal(size=n), discrete=True, n_classes=0)
    assert NPDR().fit_work(quantitative) == npdr.FIT_WORK["linear"]
