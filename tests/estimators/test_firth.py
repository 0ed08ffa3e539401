"""The batched logistic fits of :mod:`.estimators.firth` against statsmodels' GLM (maximum
likelihood) and firthmodels' FirthLogisticRegression (Firth's penalised likelihood), model by
model, to 1e-6."""
import warnings

import numpy as np
import pytest
import statsmodels.api as sm
from firthmodels import FirthLogisticRegression

from orangecontrib.relief.estimators.firth import logistic_regressions

TOL = 1e-6


def snp_data(n=250, m=12, missing=0.03, seed=3):
    rng = np.random.default_rng(seed)
    age = rng.normal(size=n)
    sex = rng.integers(0, 2, n).astype(float)
    G = rng.binomial(2, rng.uniform(0.1, 0.5, m), (n, m)).astype(float)
    G[rng.random((n, m)) < missing] = np.nan
    logit = -0.4 + 0.6 * np.nan_to_num(G[:, 0]) + 0.5 * age - 0.3 * sex
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(float)
    return np.column_stack([np.ones(n), age, sex]), G, y


def firthmodels_fit(X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = FirthLogisticRegression(gtol=1e-12, xtol=1e-12, max_iter=500).fit(X, y)
        model.lrt()
    return model


def test_maximum_likelihood_equals_statsmodels_glm():
    C, G, y = snp_data()
    fits = logistic_regressions(C, G, y, likelihood_ratio=True)
    assert fits.converged.all() and not fits.degenerate.any()
    for j in range(G.shape[1]):
        rows = ~np.isnan(G[:, j])
        X = np.column_stack([C[rows], G[rows, j]])
        full = sm.GLM(y[rows], X, family=sm.families.Binomial()).fit(tol=1e-13)
        null = sm.GLM(y[rows], X[:, :-1], family=sm.families.Binomial()).fit(tol=1e-13)
        np.testing.assert_allclose(fits.coefficients[j], full.params, atol=TOL, rtol=0)
        np.testing.assert_allclose(fits.standard_errors[j], full.bse, atol=TOL, rtol=0)
        assert abs(fits.z[j] - full.tvalues[-1]) < TOL
        assert abs(fits.pvalues[j] - full.pvalues[-1]) < TOL
        assert abs(fits.loglik[j] - full.llf) < TOL
        assert abs(fits.chi2[j] - 2 * (full.llf - null.llf)) < TOL


def test_firth_equals_firthmodels():
    C, G, y = snp_data(n=120, seed=5)
    fits = logistic_regressions(C, G, y, firth=True, likelihood_ratio=True)
    assert fits.converged.all()
    for j in range(G.shape[1]):
        rows = ~np.isnan(G[:, j])
        # firthmodels adds the intercept last
        model = firthmodels_fit(np.column_stack([C[rows, 1:], G[rows, j]]), y[rows])
        coefficients = np.r_[model.intercept_, model.coef_]
        bse = np.r_[model.bse_[-1], model.bse_[:-1]]
        np.testing.assert_allclose(fits.coefficients[j], coefficients, atol=TOL, rtol=0)
        np.testing.assert_allclose(fits.standard_errors[j], bse, atol=TOL, rtol=0)
        assert abs(fits.pvalues[j] - model.pvalues_[2]) < TOL
        assert abs(fits.lr_pvalues[j] - model.lrt_pvalues_[2]) < TOL
        assert abs(fits.loglik[j] - model.loglik_) < TOL


def separated():
    """A SNP whose minor allele is seen only in cases (quasi-complete separation: the
    likelihood has no finite maximum) beside an ordinary one."""
    rng = np.random.default_rng(7)
    n = 60
    y = np.r_[np.zeros(30), np.ones(30)]
    only_cases = np.r_[np.zeros(30), rng.integers(0, 3, 30)].astype(float)
    only_cases[30] = 2
    ordinary = rng.integers(0, 3, n).astype(float)
    age = rng.normal(size=n)
    return np.column_stack([np.ones(n), age]), np.column_stack([only_cases, ordinary]), y


def test_separation_ml_does_not_converge_firth_is_finite():
    C, G, y = separated()
    ml = logistic_regressions(C, G, y)
    assert not ml.converged[0] and ml.converged[1]
    fits = logistic_regressions(C, G, y, firth=True, likelihood_ratio=True)
    assert fits.converged.all()
    assert np.all(np.isfinite(fits.coefficients)) and np.all(np.isfinite(fits.chi2))
    assert 0 < fits.lr_pvalues[0] < 1e-4 and 0 < fits.pvalues[0] < 1
    for j in range(2):
        model = firthmodels_fit(np.column_stack([C[:, 1], G[:, j]]), y)
        assert abs(fits.coefficients[j, -1] - model.coef_[-1]) < TOL
        assert abs(fits.standard_errors[j, -1] - model.bse_[1]) < TOL
        assert abs(fits.lr_pvalues[j] - model.lrt_pvalues_[1]) < TOL


def test_grouped_rows_equal_instances():
    """Rows of alike instances with counts of trials and successes fit as the instances one
    by one (the same estimates, errors and penalised likelihood ratio)."""
    C, G, y = snp_data(n=200, m=4, missing=0.0)
    sex = C[:, 2]
    for firth in (False, True):
        one_by_one = logistic_regressions(C[:, [0, 2]], G, y, firth=firth, likelihood_ratio=True)
        for j in range(G.shape[1]):
            cells = [(s, g) for s in (0, 1) for g in (0, 1, 2)]
            trials = np.array([np.sum((sex == s) & (G[:, j] == g)) for s, g in cells])
            wins = np.array([np.sum(y[(sex == s) & (G[:, j] == g)]) for s, g in cells])
            shared = np.array([[1.0, s] for s, _ in cells])
            own = np.array([float(g) for _, g in cells])
            grouped = logistic_regressions(shared, own, wins, trials, firth=firth,
                                    likelihood_ratio=True)
            np.testing.assert_allclose(grouped.coefficients[0], one_by_one.coefficients[j],
                                       atol=1e-9)
            np.testing.assert_allclose(grouped.standard_errors[0],
                                       one_by_one.standard_errors[j], atol=1e-9)
            assert abs(grouped.chi2[0] - one_by_one.chi2[j]) < 1e-8


def test_degenerate_columns_have_no_coefficient():
    C, G, y = snp_data(n=80, m=3, missing=0.0)
    G[:, 1] = 1.0                   # constant
    G[:, 2] = 2 * C[:, 2]           # a multiple of the shared column sex
    fits = logistic_regressions(C, G, y, firth=True, likelihood_ratio=True)
    assert list(fits.degenerate) == [False, True, True]
    assert np.isnan(fits.coefficients[1:]).all() and np.isnan(fits.pvalues[1:]).all()
    assert np.isfinite(fits.pvalues[0])


def test_refuses_bad_counts():
    with pytest.raises(ValueError, match="successes"):
        logistic_regressions(np.ones((3, 1)), np.arange(3.0), np.array([0.0, 2.0, 1.0]))
