"""The scikit-learn selectors: sklearn's own estimator checks, Pipeline and GridSearchCV, the
estimates against the engine, discrete columns, p-values and the selection rules."""
import re

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import Pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks

from orangecontrib.relief import scoring, sklearn as selectors
from orangecontrib.relief.estimators import encode
from orangecontrib.relief.estimators import multiscale, relieff, rrelieff
from orangecontrib.relief.estimators.significance import stir

ALL = [cls() for cls in selectors.SELECTORS]


def sklearn_checks(estimators):
    """sklearn's checks, but the array API one, which it skips unless SCIPY_ARRAY_API is set
    (the selectors read numpy arrays)."""
    mark = parametrize_with_checks(estimators)
    cases = [case for case in mark.args[1]
             if getattr(case[1], "func", case[1]).__name__ != "check_array_api_input"]
    return pytest.mark.parametrize(mark.args[0], cases, **mark.kwargs)


@sklearn_checks(ALL + [selectors.ReliefF(pvalues="stir", n_features_to_select=2),
                       selectors.InfGain(pvalues="permutation", n_permutations=5,
                                         threshold=0.0)])
def test_sklearn_estimator_checks(estimator, check):
    limit = estimator.engine.max_classes if estimator.engine is not None else None
    if limit is None:
        check(estimator)
        return
    # an estimator of at most ``limit`` classes (the trend test: one log-odds) refuses the
    # checks' data of more classes with its own message, and passes the others
    try:
        check(estimator)
    except (ValueError, AssertionError) as error:      # some checks wrap the estimator's error
        refusal = error if isinstance(error, ValueError) else error.__cause__
        assert isinstance(refusal, ValueError) and limit == 2 and re.search(
            r"tests a case-control class \(two classes\), the data have ([3-9]|\d\d+)\b",
            str(refusal)), error


def xor_data(n=120, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.random((n, 6))
    y = ((X[:, 1] > 0.5) ^ (X[:, 4] > 0.5)).astype(int)
    return X, y


def test_every_estimator_has_a_selector_with_its_parameters():
    # one selector per scorer, named alike, each taking its estimator's declared parameters
    assert [cls.__name__ for cls in selectors.SELECTORS] == \
        [cls.__name__ for cls in scoring.SCORERS]
    assert len(ALL) == 30
    for selector in ALL:
        assert {p.name for p in selector.engine.parameters} <= set(selector.get_params())
    assert selectors.MultiScaleRelief is selectors.SELECTORS[4] and \
        selectors.MultiScaleRelief.engine is multiscale.MultiScaleRelief
    params = selectors.ReliefF().get_params()
    assert params["k"] is None and params["misses"] == "per-class"
    assert {"n_features_to_select", "threshold", "fdr", "pvalues", "n_permutations",
            "discrete_features", "random_state"} <= set(params)
    assert "random_state" in selectors.InfGain().get_params()     # for permutations
    with pytest.raises(TypeError):
        selectors.ReliefF(kk=3)


def test_importances_are_the_engine_estimates_and_xor_is_found():
    X, y = xor_data()
    selector = selectors.ReliefF(k=10, n_features_to_select=2).fit(X, y)
    np.testing.assert_allclose(selector.feature_importances_,
                               relieff.ReliefF(k=10)(encode(X, y, n_classes=2)))
    np.testing.assert_array_equal(selector.get_support(indices=True), [1, 4])
    np.testing.assert_array_equal(selector.transform(X), X[:, [1, 4]])
    assert selector.pvalues_ is None
    labels = np.array(["no", "yes"])[y]                     # any labels
    np.testing.assert_allclose(selectors.ReliefF(k=10).fit(X, labels).feature_importances_,
                               selector.feature_importances_)
    target = X[:, 2] + X[:, 3] ** 2
    np.testing.assert_allclose(selectors.RReliefF().fit(X, target).feature_importances_,
                               rrelieff.RReliefF()(encode(X, target)))


def test_pipeline_and_grid_search():
    X, y = xor_data(160)
    pipe = Pipeline([("select", selectors.ReliefF()), ("model", LogisticRegression())])
    search = GridSearchCV(pipe, {"select__k": [5, 15], "select__n_features_to_select": [2, 4]},
                          cv=3).fit(X, y)
    assert search.best_estimator_.named_steps["select"].get_support().sum() in (2, 4)
    assert set(search.cv_results_["param_select__k"]) == {5, 15}


def test_discrete_features_use_their_distinct_values():
    rng = np.random.default_rng(1)
    codes = rng.integers(0, 3, (50, 3)).astype(float)
    y = (codes[:, 0] == 2).astype(int)
    X = codes.copy()
    X[:, 0] = np.array([-7.0, 10.0, 25.5])[codes[:, 0].astype(int)]   # arbitrary values
    expected = relieff.ReliefF()(encode(codes, y, discrete=True, n_classes=2))
    for flags in (True, [True, True, True], [0, 1, 2], np.array([0, -2, 2])):
        np.testing.assert_allclose(selectors.ReliefF(discrete_features=flags)
                                   .fit(X, y).feature_importances_, expected)
    # numeric by default: the spread values count as distances
    assert not np.allclose(selectors.ReliefF().fit(X, y).feature_importances_, expected)
    with pytest.raises(ValueError, match="mask"):
        selectors.ReliefF(discrete_features=[True, False]).fit(X, y)
    with pytest.raises(ValueError, match="indices"):
        selectors.ReliefF(discrete_features=[5]).fit(X, y)


def test_p_values_and_selection_by_q_value():
    X, y = xor_data()
    selector = selectors.ReliefF(k=10, pvalues="stir", fdr=0.05, random_state=0).fit(X, y)
    expected = stir(relieff.ReliefF(k=10, random_state=0), encode(X, y, n_classes=2),
                    random_state=0)
    np.testing.assert_allclose(selector.pvalues_, expected.pvalues)
    np.testing.assert_allclose(selector.qvalues_, expected.qvalues)
    np.testing.assert_array_equal(selector.get_support(), expected.qvalues < 0.05)
    assert selector.get_support()[[1, 4]].all()
    perm = selectors.InfGain(pvalues="permutation", n_permutations=9, random_state=3)
    first = perm.fit(X, y).pvalues_.copy()
    np.testing.assert_array_equal(first, perm.fit(X, y).pvalues_)
    with pytest.raises(ValueError, match="pvalues"):
        selectors.ReliefF(fdr=0.05).fit(X, y).transform(X)
    with pytest.raises(ValueError, match="pvalues must be"):
        selectors.ReliefF(pvalues="exact").fit(X, y)


def test_selection_rules():
    X, y = xor_data()
    selector = selectors.ReliefF(k=10).fit(X, y)
    scores = selector.feature_importances_
    order = np.argsort(-scores)
    assert selector.get_support().sum() == 3                     # default: the better half
    selector.set_params(n_features_to_select=0.5)
    np.testing.assert_array_equal(selector.get_support(indices=True), np.sort(order[:3]))
    selector.set_params(n_features_to_select=None, threshold=0.0)
    np.testing.assert_array_equal(selector.get_support(), scores > 0)
    selector.set_params(n_features_to_select=1, threshold=0.0)
    np.testing.assert_array_equal(selector.get_support(indices=True), order[:1])
    with pytest.raises(ValueError, match="n_features_to_select"):
        selector.set_params(n_features_to_select=-1, threshold=None).transform(X)


def test_targets_the_estimator_cannot_use():
    X, y = xor_data()
    with pytest.raises(ValueError, match="continuous"):
        selectors.ReliefF().fit(X, X[:, 0])
    with pytest.raises(ValueError, match="class"):
        selectors.ReliefF().fit(X, np.zeros(len(X)))
    with pytest.raises(ValueError, match="STIR"):
        selectors.RReliefF(pvalues="stir").fit(X, X[:, 0])


@pytest.mark.parametrize("selector, regression, k", [(selectors.ReliefF, False, {"k": 5}),
                                                     (selectors.RReliefF, True, {"k": 5}),
                                                     (selectors.MultiSURF, False, {})])
def test_dask_backend_fits_as_in_memory(selector, regression, k):
    import dask.array as da
    import dask.dataframe as dd
    import pandas as pd
    from distributed import Client, LocalCluster
    X, y = xor_data(n=200, seed=4)
    X[:, 2] = np.arange(200) % 3                       # a discrete feature (codes 0, 1, 2)
    if regression:
        y = X[:, 1] + X[:, 4]
    params = dict(k, iterations=40, random_state=7, discrete_features=[2],
                  n_features_to_select=2)
    in_memory = selector(**params).fit(X, y)
    frame = dd.from_pandas(pd.DataFrame(X, columns=[f"f{i}" for i in range(6)]),
                           npartitions=3)
    with Client(LocalCluster(processes=False, n_workers=1)) as client:
        on_array = selector(backend="dask", client=client, **params).fit(
            da.from_array(X, chunks=(70, 6)), y)
        on_frame = selector(backend="dask", client=client, **params).fit(frame, y)
    for fitted in (on_array, on_frame):
        assert np.allclose(fitted.feature_importances_, in_memory.feature_importances_,
                           rtol=0, atol=1e-12)
        assert np.array_equal(fitted.get_support(), in_memory.get_support())
    assert list(on_frame.feature_names_in_) == [f"f{i}" for i in range(6)]
    assert np.flatnonzero(in_memory.get_support()).tolist() == [1, 4]


def test_dask_backend_refuses_p_values_and_unknown_backends():
    X, y = xor_data(n=40)
    with pytest.raises(ValueError, match="not p-values"):
        selectors.ReliefF(iterations=5, backend="dask", pvalues="stir").fit(X, y)
    with pytest.raises(ValueError, match="backend must be"):
        selectors.ReliefF(backend="spark").fit(X, y)


def test_the_base_selector_says_which_to_use_and_new_selectors_fit():
    X, y = xor_data()
    with pytest.raises(TypeError, match="base of the selectors.*MultiSURF"):
        selectors.EstimatorSelector().fit(X, y)
    # the selectors the hand-written list lacked: MultiSURF finds the XOR pair
    for cls in (selectors.MultiSURF, selectors.MultiScaleRelief, selectors.TuRF,
                selectors.SURFstar):
        fitted = cls(n_features_to_select=2).fit(X, y)
        assert set(np.flatnonzero(fitted.get_support())) == {1, 4}, cls.__name__


def test_covariates_reach_npdr_and_others_refuse_them():
    from orangecontrib.relief.estimators import encode
    from orangecontrib.relief.estimators.encoding import as_covariates
    from orangecontrib.relief.estimators.npdr import NPDR
    X, y = xor_data(n=80)
    covs = np.random.default_rng(1).normal(size=(80, 2))
    fitted = selectors.NPDR(pvalues="npdr", random_state=0).fit(X, y, covariates=covs)
    want = NPDR().test(encode(X, y, n_classes=2, covariates=covs), random_state=0)
    np.testing.assert_allclose(fitted.feature_importances_, want.statistics)
    np.testing.assert_allclose(fitted.pvalues_, want.pvalues)
    discrete = as_covariates(np.arange(80) % 2, 80, discrete=True)
    one = selectors.NPDR().fit(X, y, covariates=discrete).feature_importances_
    np.testing.assert_allclose(one, NPDR()(encode(X, y, n_classes=2, covariates=discrete)))
    with pytest.raises(ValueError, match="does not adjust for covariates"):
        selectors.ReliefF().fit(X, y, covariates=covs)
    with pytest.raises(ValueError, match="rows"):
        selectors.NPDR().fit(X, y, covariates=covs[:5])


@pytest.fixture(scope="module")
def dask_client():
    """One in-process cluster for the Dask selector's checks, its client the active one."""
    from distributed import Client, LocalCluster
    with LocalCluster(processes=False, n_workers=1, threads_per_worker=1,
                      dashboard_address=":0") as cluster, Client(cluster) as client:
        yield client


def test_dask_selector_passes_scikit_learns_checks(dask_client, monkeypatch):
    """check_estimator on ReliefF(backend="dask"): its tags say no sparse input (Dask refuses
    it), in-memory X is checked as in memory, and every fit runs on the active client (no
    LocalCluster started per fit: starting one fails here)."""
    import distributed
    from sklearn.utils.estimator_checks import check_estimator

    def no_cluster(*args, **kwargs):
        raise AssertionError("a LocalCluster was started although a client is active")
    monkeypatch.setattr(distributed, "LocalCluster", no_cluster)
    selector = selectors.ReliefF(backend="dask")
    assert not selector.__sklearn_tags__().input_tags.sparse
    assert selectors.ReliefF().__sklearn_tags__().input_tags.sparse
    results = check_estimator(selector, on_fail=None)
    failed = [(r["check_name"], str(r["exception"])[:200]) for r in results
              if r["status"] == "failed"]
    assert len(results) > 40 and failed == []


def test_dask_selector_with_a_client_clones_pickles_and_cross_validates(dask_client):
    """A selector given a client clones (sharing it) and pickles (keeping its scheduler's
    address, to which the unpickled one connects); cross_val_score runs it."""
    import pickle
    from sklearn.base import clone
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import cross_val_score
    from sklearn.pipeline import make_pipeline
    X, y = xor_data(n=120, seed=2)
    selector = selectors.ReliefF(backend="dask", client=dask_client, iterations=30,
                                 random_state=0, n_features_to_select=2)
    assert clone(selector).client is dask_client
    copy = pickle.loads(pickle.dumps(selector))
    assert copy.client == dask_client.scheduler.address
    want = selectors.ReliefF(iterations=30, random_state=0).fit(X, y).feature_importances_
    np.testing.assert_allclose(copy.fit(X, y).feature_importances_, want, rtol=0, atol=1e-12)
    scores = cross_val_score(make_pipeline(selector, LogisticRegression()), X, y, cv=2)
    assert scores.shape == (2,)
