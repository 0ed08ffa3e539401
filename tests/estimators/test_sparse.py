"""Sparse data: the estimates, neighbours and diffs from a CSR matrix equal the dense engine's on
the same values; the distances and diffs equal plain loops over the attributes; bad input is
refused clearly; an Orange sparse table goes through the scorers."""
import numpy as np
import pytest
import scipy.sparse as sp
from Orange.data import ContinuousVariable, DiscreteVariable, Domain, Table

from orangecontrib.relief import scoring
from orangecontrib.relief import sklearn as selectors
from orangecontrib.relief.estimators import encode
from orangecontrib.relief.estimators.relieff import Relief, ReliefF, ReliefFbestK
from orangecontrib.relief.estimators.rrelieff import RReliefF
from orangecontrib.relief.estimators.significance import significance
from orangecontrib.relief.estimators.neighbourhood.sparse import SparseDiffModel
from orangecontrib.relief.estimators.surf import MultiSURF
from orangecontrib.relief.estimators.turf import TuRF


def sparse_table(n=70, a=24, seed=0, dyadic=False):
    """(X, discrete): columns of densities from 2 % to 100 %, values of both signs, an all-zero
    column, an all-zero row, two identical rows and a discrete column (code 0 implicit); with
    ``dyadic`` the values are multiples of 1/4 in [-1, 1] (every sum exact: ties are real)."""
    rng = np.random.default_rng(seed)
    density = np.linspace(0.02, 1.0, a)
    X = rng.normal(size=(n, a)) * rng.choice([0.01, 1.0, 30.0], a)
    if dyadic:
        X = rng.integers(-4, 5, (n, a)) / 4
    X *= rng.random((n, a)) < density
    X[:, 3] = 0.0                               # all-zero column
    X[5] = 0.0                                  # all-zero row
    X[9] = X[8]                                 # two identical rows
    X[:, 7] = rng.integers(0, 3, n) * (rng.random(n) < 0.5)
    discrete = np.zeros(a, bool)
    discrete[7] = True
    return X, discrete


def both(X, y, discrete, **kwargs):
    """The encoded data, dense and sparse."""
    return (encode(X, y, discrete=discrete, **kwargs),
            encode(sp.csr_matrix(X), y, discrete=discrete, **kwargs))


CLASSIFIERS = [
    ReliefF(),
    ReliefF(k=5, weighting="exp-rank", sigma=2.0),
    ReliefF(k=3, numeric_diff="ramp", t_equal=0.1, t_different=0.5),
    ReliefF(k=4, distance="euclidean", skip_zero_distance=True),
    ReliefF(k=6, weighting="1/d", misses="pooled"),
    ReliefF(k=3, iterations=25, random_state=4),
    Relief(),
    ReliefFbestK(k_max=6),
]
REGRESSORS = [RReliefF(), RReliefF(k=5, weighting="equal", numeric_diff="ramp"),
              RReliefF(k=8, weighting="1/d2", distance="euclidean")]


@pytest.mark.parametrize("dyadic", [False, True])
@pytest.mark.parametrize("estimator", CLASSIFIERS + REGRESSORS,
                         ids=[f"{e.name}-{i}" for i, e in enumerate(CLASSIFIERS + REGRESSORS)])
def test_sparse_estimates_neighbours_and_distances_equal_dense(estimator, dyadic):
    X, discrete = sparse_table(dyadic=dyadic)
    regression = estimator.tasks == {"regression"}
    rng = np.random.default_rng(1)
    y = rng.random(len(X)) if regression else rng.integers(0, 3, len(X))
    dense, sparse = both(X, y, discrete, n_classes=0 if regression else 3)
    context_d, context_s = estimator.context(dense), estimator.context(sparse)
    np.testing.assert_array_equal(context_s.neighbours, context_d.neighbours)
    np.testing.assert_array_equal(context_s.distances, context_d.distances)
    want = estimator.estimate(context_d)
    np.testing.assert_allclose(estimator.estimate(context_s), want, rtol=0, atol=1e-12)
    assert np.all(np.isfinite(want)) and want[3] == 0.0     # the all-zero column


def test_sparse_with_instance_weights_equals_dense():
    X, discrete = sparse_table(dyadic=True, seed=3)
    rng = np.random.default_rng(2)
    y = rng.integers(0, 2, len(X))
    weights = rng.choice([0.5, 1.0, 2.0, 3.0], len(X))
    dense, sparse = both(X, y, discrete, n_classes=2, weights=weights)
    for estimator in (ReliefF(k=4), ReliefF(k=4, skip_zero_distance=True)):
        np.testing.assert_allclose(estimator(sparse), estimator(dense), rtol=0, atol=1e-12)


def plain_diff(x, z, discrete, span, ramp=None):
    """diff(A, x, z) by its definition (Robnik-Sikonja & Kononenko 1999, eqs. 1-2), the ramp
    as (t_equal, t_different) fractions of the range."""
    if discrete:
        return float(x != z)
    d = abs(x - z) / span if span > 0 else 0.0
    if ramp is None:
        return d
    return min(max((d - ramp[0]) / (ramp[1] - ramp[0]), 0.0), 1.0)


@pytest.mark.parametrize("ramp", [None, (0.05, 0.3)])
def test_pair_diffs_and_distances_equal_plain_loops(ramp):
    X, discrete = sparse_table(n=30, a=10, seed=5)
    y = np.arange(30) % 2
    data = encode(sp.csr_matrix(X), y, discrete=discrete, n_classes=2)
    options = ReliefF(numeric_diff="ramp", t_equal=ramp[0], t_different=ramp[1]) \
        .diff_options() if ramp else ReliefF().diff_options()
    model = SparseDiffModel(data, options)
    span = np.ptp(X, axis=0)
    rows, others = np.repeat(np.arange(30), 30), np.tile(np.arange(30), 30)
    want = np.array([[plain_diff(X[i, t], X[j, t], discrete[t], span[t], ramp)
                      for t in range(10)] for i, j in zip(rows, others)])
    np.testing.assert_allclose(model.pair_diffs(rows, others), want, rtol=1e-12, atol=1e-15)
    # the estimate's weighted sums of the diffs (no diffs formed), pairs of others = -1 skipped
    coefficients = np.random.default_rng(1).random((3, rows.size))
    skipped = np.where(np.arange(rows.size) % 7 == 0, -1, others)
    used = np.where(skipped >= 0, coefficients, 0.0)
    np.testing.assert_allclose(model.weighted_pair_sums(coefficients, rows, skipped),
                               used @ want, rtol=1e-12, atol=1e-14)
    # the search's distances: the 3 nearest of each class by the summed diffs, ties by index
    neighbours = np.full((30, 2, 3), -1)
    distances = np.full((30, 2, 3), np.inf)
    model.search(np.arange(30), 0, False, neighbours, distances)
    total = want.sum(axis=1).reshape(30, 30)
    for i in range(30):
        for g in range(2):
            cand = [j for j in range(30) if j != i and y[j] == g]
            best = sorted(cand, key=lambda j: (total[i, j], j))[:3]
            np.testing.assert_allclose(distances[i, g], total[i, best], rtol=1e-12)
            assert set(neighbours[i, g]) == set(best) or np.allclose(
                np.sort(total[i, neighbours[i, g]]), total[i, best], rtol=1e-12)


def test_ranges_count_the_implicit_zeros():
    # column 0 holds 2 and 3 stored, zeros implicit: its range is 0..3, so diff(2, 0) = 2/3
    X = sp.csr_matrix(np.array([[2.0, -1.0], [3.0, 0.0], [0.0, -3.0]]))
    data = encode(X, [0, 1, 1], n_classes=2)
    np.testing.assert_array_equal(data.minimum, [0.0, -3.0])
    np.testing.assert_array_equal(data.span, [3.0, 3.0])
    diffs = SparseDiffModel(data).pair_diffs([0, 0], [2, 1])
    np.testing.assert_allclose(diffs, [[2 / 3, 2 / 3], [1 / 3, 1 / 3]])


def test_wide_sparse_data_are_not_densified():
    # 1,000,000 columns: a dense copy (or dense pair diffs) would take gigabytes
    n, a = 60, 1_000_000
    rng = np.random.default_rng(7)
    columns = np.column_stack([np.zeros(n, int), rng.choice(np.arange(1, a + 1), (n, 20))])
    values = np.column_stack([np.arange(n) % 2, rng.normal(size=(n, 20))])  # column 0: the class
    X = sp.csr_matrix((values.ravel(), (np.repeat(np.arange(n), 21), columns.ravel())),
                      shape=(n, a + 1))
    y = np.arange(n) % 2
    scores = ReliefF(k=3)(encode(X, y, n_classes=2))
    assert scores.shape == (a + 1,) and scores[0] == pytest.approx(1.0, abs=1e-12)
    assert np.all(scores[1:] < 0.5)


@pytest.mark.parametrize("make,message", [
    (lambda: encode(sp.csr_matrix((0, 3)), np.zeros(0), n_classes=2), "at least 2 instances"),
    (lambda: encode(sp.csr_matrix(np.array([[np.nan, 1.0], [0.0, 2.0]])), [0, 1],
                    n_classes=2), "missing values"),
    (lambda: encode(sp.csr_matrix(np.array([[np.inf, 1.0], [0.0, 2.0]])), [0, 1],
                    n_classes=2), "finite"),
    (lambda: encode(sp.csr_matrix(np.array([[1.5, 1.0], [0.0, 2.0]])), [0, 1],
                    discrete=[True, False], n_classes=2), "integer codes"),
])
def test_bad_sparse_input_is_a_clear_error(make, message):
    with pytest.raises(ValueError, match=message):
        ReliefF()(make())


def test_estimators_without_sparse_support_refuse_clearly():
    X, discrete = sparse_table(n=30, a=8)
    data = encode(sp.csr_matrix(X), np.arange(30) % 2, discrete=discrete, n_classes=2)
    for estimator in (MultiSURF(), TuRF(ReliefF())):
        with pytest.raises(ValueError, match=f"{estimator.name} does not support sparse data"):
            estimator(data)
    with pytest.raises(ValueError, match="corelearn.*not available for sparse"):
        ReliefF.corelearn()(data)


def test_sparse_search_reports_progress_and_cancels():
    X = sp.random(3000, 200, density=0.05, format="csr", random_state=8)
    data = encode(X, np.arange(3000) % 2, n_classes=2)
    seen = []
    ReliefF(k=2)(data, callback=seen.append)
    assert seen == sorted(seen) and seen[-1] == 1.0 and len(seen) >= 3

    class Stop(Exception):
        pass

    def stop(fraction):
        if 0 < fraction < 1:
            raise Stop
    with pytest.raises(Stop):
        ReliefF(k=2)(data, callback=stop)


def orange_tables(seed=0):
    """An Orange table with sparse attributes (one of them categorical) and its dense twin."""
    X, discrete = sparse_table(n=40, a=8, seed=seed)
    attributes = [DiscreteVariable(f"d{t}", values=("0", "1", "2")) if discrete[t]
                  else ContinuousVariable(f"x{t}") for t in range(X.shape[1])]
    y = (X[:, 0] > 0).astype(float)
    domain = Domain(attributes, DiscreteVariable("y", values=("a", "b")))
    return Table.from_numpy(domain, sp.csr_matrix(X), y), Table.from_numpy(domain, X, y)


def test_orange_sparse_table_through_the_scorer():
    sparse, dense = orange_tables()
    assert sp.issparse(sparse.X)
    scorer = scoring.ReliefF(k=5)
    assert scorer.supports_sparse_data and not scoring.InfGain.supports_sparse_data
    np.testing.assert_allclose(scorer(sparse), scorer(dense), rtol=0, atol=1e-12)
    assert scorer(sparse, "x0") == pytest.approx(scorer(dense, "x0"), abs=1e-12)
    np.testing.assert_allclose(scorer.score_data(sparse), scorer.score_data(dense), atol=1e-12)
    with pytest.raises(ValueError, match="InfGain does not support sparse data"):
        scoring.InfGain()(sparse)


def test_orange_sparse_table_without_a_class_is_refused():
    sparse, _ = orange_tables()
    classless = Table.from_numpy(Domain(sparse.domain.attributes), sparse.X)
    with pytest.raises(ValueError, match="no target"):
        scoring.ReliefF()(classless)


def test_sklearn_selector_takes_sparse_input():
    X, _ = sparse_table(n=50, a=10, seed=9)
    X[:, 7] = np.abs(X[:, 7])                   # numeric features only
    y = (X[:, 9] > 0).astype(int)
    selector = selectors.ReliefF(k=5, n_features_to_select=3).fit(sp.csr_matrix(X), y)
    dense = selectors.ReliefF(k=5, n_features_to_select=3).fit(X, y)
    np.testing.assert_allclose(selector.feature_importances_, dense.feature_importances_,
                               atol=1e-12)
    assert sp.issparse(selector.transform(sp.csr_matrix(X)))
    with pytest.raises(ValueError, match="discrete_features are not supported with sparse"):
        selectors.ReliefF(discrete_features=[7]).fit(sp.csr_matrix(X), y)
    with pytest.raises(TypeError, match="[Ss]parse"):
        selectors.InfGain().fit(sp.csr_matrix(X), y)


@pytest.mark.parametrize("method", ["stir", "permutation"])
def test_significance_on_sparse_data_equals_dense(method):
    X, discrete = sparse_table(n=50, a=8, seed=10)
    y = (X[:, 7] > 0).astype(int)
    dense, sparse = both(X, y, discrete, n_classes=2)
    got = significance(ReliefF(k=5), sparse, method, 20, 1)
    want = significance(ReliefF(k=5), dense, method, 20, 1)
    np.testing.assert_allclose(got.scores, want.scores, atol=1e-12)
    np.testing.assert_allclose(got.pvalues, want.pvalues, atol=1e-12)
