"""Covariates in scikit-learn's cross-validation: split with the samples per fold, as arrays and
as :class:`Covariates`, with and without metadata routing."""
import numpy as np
import pytest
import sklearn
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import KFold, cross_val_score
from sklearn.pipeline import Pipeline

from orangecontrib.relief.estimators.encoding import Covariates, as_covariates
from orangecontrib.relief.sklearn import NPDR

N = 90


def study(seed=0):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, (N, 6)).astype(float)
    sex = rng.integers(0, 2, N)
    y = ((X[:, 0] > 0) ^ (rng.random(N) < 0.15)).astype(int)
    return X, y, sex


def pipeline():
    return Pipeline([("select", NPDR(n_features_to_select=2)),
                     ("model", LogisticRegression())])


def by_hand(X, y, sex, cv):
    """The folds' scores by a plain loop: each fit given the covariates of its training rows."""
    scores = []
    for train, test in cv.split(X, y):
        pipe = pipeline().fit(X[train], y[train],
                              select__covariates=as_covariates(sex[train], train.size,
                                                               discrete=True))
        scores.append(pipe.score(X[test], y[test]))
    return np.array(scores)


def test_covariates_index_by_instances():
    cov = as_covariates(np.column_stack([np.arange(5.0), np.arange(5.0) % 2]), 5,
                        discrete=[False, True], names=["age", "sex"])
    assert cov.shape == (5, 2) and len(cov) == 5
    part = cov[np.array([4, 1])]
    assert isinstance(part, Covariates) and part.names == ("age", "sex")
    assert part.values.tolist() == [[4.0, 0.0], [1.0, 1.0]]
    assert part.discrete.tolist() == [False, True]
    assert cov[np.arange(5) > 2].values[:, 0].tolist() == [3.0, 4.0]
    assert cov[np.array([2]), ...].values.tolist() == [[2.0, 0.0]]


@pytest.mark.parametrize("form", ["array", "Covariates"])
def test_cross_val_score_splits_the_covariates(form):
    X, y, sex = study()
    cov = sex[:, None].astype(float) if form == "array" else as_covariates(sex, N, discrete=True)
    cv = KFold(3, shuffle=True, random_state=0)
    scores = cross_val_score(pipeline(), X, y, params={"select__covariates": cov}, cv=cv,
                             error_score="raise")
    if form == "Covariates":    # the array form has its covariate numeric: same fits
        np.testing.assert_array_equal(scores, by_hand(X, y, sex, cv))
    assert scores.shape == (3,) and (scores > 0.6).all()


def test_cross_val_score_with_metadata_routing():
    X, y, sex = study()
    cv = KFold(3, shuffle=True, random_state=0)
    with sklearn.config_context(enable_metadata_routing=True):
        pipe = Pipeline([("select", NPDR(n_features_to_select=2).set_fit_request(
            covariates=True)), ("model", LogisticRegression())])
        scores = cross_val_score(pipe, X, y, cv=cv, error_score="raise",
                                 params={"covariates": as_covariates(sex, N, discrete=True)})
    np.testing.assert_array_equal(scores, by_hand(X, y, sex, cv))
