"""The per-attribute regression test (allelic trend test) against statsmodels (logistic GLM
and least squares, attribute by attribute, to 1e-6) and firthmodels (Firth's fallback on
separated data), with discrete and numeric covariates, by the counted and the instance-wise
fits."""
import warnings
from dataclasses import replace

import numpy as np
import pytest
import statsmodels.api as sm
from firthmodels import FirthLogisticRegression

from orangecontrib.relief.estimators import encode
from orangecontrib.relief.estimators.encoding import as_covariates
from orangecontrib.relief.estimators.significance import significance
from orangecontrib.relief.estimators.trend import TrendTest

TOL = 1e-6


def genotypes(n=300, m=12, seed=2):
    rng = np.random.default_rng(seed)
    G = rng.binomial(2, rng.uniform(0.1, 0.5, m), (n, m)).astype(float)
    G[rng.random((n, m)) < 0.02] = np.nan
    sex = rng.integers(0, 2, n).astype(float)
    site = rng.integers(0, 3, n).astype(float)
    age = rng.normal(50, 10, n)
    logit = -0.3 + 0.6 * np.nan_to_num(G[:, 0]) + 0.4 * sex + 0.03 * (age - 50)
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(float)
    numeric = 0.5 * np.nan_to_num(G[:, 0]) + 0.02 * age + rng.normal(size=n)
    return G, y, numeric, dict(sex=sex, site=site, age=age)


#: covariate sets: (names, discrete mask); the first two are counted, the third fitted per
#: instance
COVARIATES = ((), ("sex", "site"), ("sex", "age"))


def design(covs, names):
    n = len(covs["sex"])
    columns = [np.ones((n, 1))]
    for name in names:
        values = covs[name]
        if name == "age":
            columns.append(values[:, None])
        else:
            columns.append((values[:, None] == np.unique(values)[1:]).astype(float))
    return np.hstack(columns)


def with_covariates(data, covs, names):
    if not names:
        return data
    return replace(data, covariates=as_covariates(
        np.column_stack([covs[name] for name in names]), data.n_instances,
        discrete=[name != "age" for name in names], names=names))


@pytest.mark.parametrize("names", COVARIATES)
def test_logistic_equals_statsmodels_glm(names):
    G, y, _, covs = genotypes()
    data = with_covariates(encode(G, y, discrete=True, n_classes=2), covs, names)
    result = TrendTest().test(data)
    C = design(covs, names)
    assert not result.firth.any()
    for j in range(G.shape[1]):
        rows = ~np.isnan(G[:, j])
        fit = sm.GLM(y[rows], np.column_stack([C[rows], G[rows, j]]),
                     family=sm.families.Binomial()).fit(tol=1e-13)
        assert abs(result.coefficients[j] - fit.params[-1]) < TOL
        assert abs(result.standard_errors[j] - fit.bse[-1]) < TOL
        assert abs(result.statistics[j] - fit.tvalues[-1]) < TOL
        assert abs(result.pvalues[j] - fit.pvalues[-1]) < TOL
        assert abs(result.scores[j] - fit.tvalues[-1] ** 2) < TOL
    np.testing.assert_allclose(TrendTest()(data), result.scores, rtol=1e-12)


@pytest.mark.parametrize("names", COVARIATES)
def test_numeric_target_equals_least_squares(names):
    G, _, target, covs = genotypes()
    data = with_covariates(encode(G, target, discrete=True), covs, names)
    result = TrendTest().test(data)
    C = design(covs, names)
    for j in range(G.shape[1]):
        rows = ~np.isnan(G[:, j])
        fit = sm.OLS(target[rows], np.column_stack([C[rows], G[rows, j]])).fit()
        assert abs(result.coefficients[j] - fit.params[-1]) < TOL
        assert abs(result.standard_errors[j] - fit.bse[-1]) < TOL
        assert abs(result.statistics[j] - fit.tvalues[-1]) < TOL
        assert abs(result.pvalues[j] - fit.pvalues[-1]) < TOL
        assert result.df[j] == fit.df_resid


def separated_data(names):
    """SNP 0 a rare allele seen in eight cases only (the ordinary estimate does not exist)."""
    G, y, _, covs = genotypes(n=200, m=4, seed=9)
    G[:, 0] = 0.0
    G[np.flatnonzero(y == 1)[:8], 0] = 1.0
    return with_covariates(encode(G, y, discrete=True, n_classes=2), covs, names), G, y, covs


@pytest.mark.parametrize("names", COVARIATES)
def test_firth_fallback_on_separated_data(names):
    data, G, y, covs = separated_data(names)
    result = TrendTest().test(data)
    assert list(np.flatnonzero(result.firth)) == [0]
    assert np.isfinite(result.statistics[0]) and np.isfinite(result.coefficients[0])
    assert 0 < result.pvalues[0] < 0.05
    C = design(covs, names)
    C = (C - C.mean(axis=0)) / np.where(C.std(axis=0) > 0, C.std(axis=0), 1)   # (age's unit)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = FirthLogisticRegression(gtol=1e-12, xtol=1e-12, max_iter=500).fit(
            np.column_stack([C[:, 1:], G[:, 0]]), y)
        model.lrt(C.shape[1] - 1)
    slot = C.shape[1] - 1
    assert abs(result.coefficients[0] - model.coef_[slot]) < TOL
    assert abs(result.standard_errors[0] - model.bse_[slot]) < TOL
    assert abs(result.pvalues[0] - model.lrt_pvalues_[slot]) < TOL
    # without the fallback the separated SNP has no statistic (PLINK's NA)
    never = TrendTest(firth="never").test(data)
    assert np.isnan(never.statistics[0]) and np.isnan(never.pvalues[0])
    np.testing.assert_allclose(never.statistics[1:], result.statistics[1:], rtol=1e-12)
    # always: every attribute by Firth's penalised likelihood ratio
    always = TrendTest(firth="always").test(data)
    assert always.firth.all()
    assert abs(always.statistics[0] - result.statistics[0]) < 1e-9


def test_degenerate_and_unknown_attributes():
    G, y, _, covs = genotypes(n=100, m=4)
    G[:, 1] = 1.0
    G[:, 2] = np.nan
    data = encode(G, y, discrete=True, n_classes=2, n_values=3)
    result = TrendTest().test(data)
    assert result.statistics[1] == 0 and result.pvalues[1] == 1
    assert np.isnan(result.statistics[2]) and np.isnan(result.pvalues[2])
    assert np.isfinite(result.pvalues[[0, 3]]).all()


def test_numeric_attributes_and_significance_method():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(120, 3))
    y = (X[:, 0] + rng.normal(size=120) > 0).astype(float)
    data = encode(X, y, n_classes=2)
    result = significance(TrendTest(), data, method="trend")
    for j in range(3):
        fit = sm.GLM(y, sm.add_constant(X[:, j]), family=sm.families.Binomial()).fit()
        assert abs(result.pvalues[j] - fit.pvalues[-1]) < TOL
    assert result.method == "trend" and result.qvalues[0] < 0.05
    from orangecontrib.relief.estimators import ReliefF
    with pytest.raises(ValueError, match="trend"):
        significance(ReliefF(), data, method="trend")


def test_refusals():
    G, y, _, covs = genotypes(n=60, m=3)
    with pytest.raises(ValueError, match="two classes"):
        TrendTest()(encode(G, np.arange(60) % 3, discrete=True, n_classes=3))
    data = encode(G, y, discrete=True, n_classes=2)
    with pytest.raises(ValueError, match="does not vary"):
        TrendTest()(replace(data, covariates=as_covariates(np.ones(60), 60, names=["c"])))
    twice = np.column_stack([covs["age"], 2 * covs["age"]])
    with pytest.raises(ValueError, match="linearly dependent"):
        TrendTest()(replace(data, covariates=as_covariates(twice, 60)))
    with pytest.raises(ValueError, match="firth"):
        TrendTest(firth="sometimes")(data)
