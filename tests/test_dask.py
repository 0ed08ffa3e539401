"""The Dask backend (orangecontrib.relief.dask): estimates over row partitions of uneven size
equal the single-machine estimators' on the same sampled instances (to 1e-9), also with missing
values, on a hand-computed table, with a dataframe, a default LocalCluster and bad input. One in-process cluster serves the
module."""
import numpy as np
import pandas as pd
import pytest
import dask.array as da
import dask.dataframe as dd
from distributed import Client, LocalCluster

from orangecontrib.relief.dask import estimate, k_nearest
from orangecontrib.relief.estimators import encode
from orangecontrib.relief.estimators.relieff import Relief, ReliefF, ReliefFbestK
from orangecontrib.relief.estimators.neighbourhood.searches import search_notices
from orangecontrib.relief.estimators.rrelieff import RReliefF
from orangecontrib.relief.estimators.surf import SURFstar, MultiSURF, MultiSURFstar
from orangecontrib.relief.estimators.swrf import SWRF, SWRFstar, MultiSWRFDB, MultiSWRFstar

TOL = 1e-9
CHUNKS = (50, 90, 7, 53, 100)           # five partitions of uneven size, 300 rows
DISCRETE = np.array([False, True, False, True, False])


@pytest.fixture(scope="module")
def client():
    with LocalCluster(processes=False, n_workers=2, threads_per_worker=1,
                      dashboard_address=":0") as cluster, Client(cluster) as c:
        yield c


def table(seed=1, n=300):
    """Mixed numeric and discrete attributes (one with ties: values rounded to 0.1), a class
    of three values depending on two attributes, and a numeric target."""
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.random(n), rng.integers(0, 3, n), rng.normal(size=n),
                         rng.integers(0, 2, n), rng.random(n).round(1)])
    y = ((X[:, 0] > 0.5).astype(int) + (X[:, 1] == 1)).astype(float)
    target = 2 * X[:, 0] + X[:, 2] + rng.normal(scale=0.1, size=n)
    return X, y, target


def distributed(X, y, estimator, client, n_classes, **kwargs):
    return estimate(estimator, da.from_array(X, chunks=(CHUNKS, -1)),
                    da.from_array(y, chunks=(CHUNKS,)), discrete=DISCRETE, n_classes=n_classes,
                    client=client, **kwargs)


@pytest.mark.parametrize("estimator, regression", [
    (ReliefF(k=10, iterations=60, random_state=3), False),
    (ReliefF(k=5, iterations=40, random_state=0, weighting="exp-rank", sigma=2.0), False),
    (Relief(iterations=30, random_state=5), False),
    (RReliefF(k=20, iterations=50, random_state=2), True),
    (MultiSURF(iterations=40, random_state=4), False),
    (MultiSURF(iterations=40, random_state=4), True),
    (MultiSURFstar(iterations=30, random_state=1, distance="euclidean"), False),
    (SWRFstar(iterations=40, random_state=4), False),
    (MultiSWRFDB(iterations=40, random_state=4), True),
    (MultiSWRFstar(iterations=30, random_state=1, distance="euclidean"), False),
], ids=["ReliefF", "ReliefF-exp-rank", "Relief", "RReliefF", "MultiSURF", "MultiSURF-regr",
        "MultiSURF*-euclid", "SWRF*", "MultiSWRFDB-regr", "MultiSWRF*-euclid"])
def test_dask_vs_single_machine_equal(client, estimator, regression):
    """Dask vs single machine equal: the same m sampled instances, the same neighbours (and
    those tied with the k-th across partitions) and bands, the same estimates."""
    X, y, target = table()
    y = target if regression else y
    n_classes = 0 if regression else 3
    single = estimator(encode(X, y, discrete=DISCRETE, n_classes=n_classes))
    ours = distributed(X, y, estimator, client, n_classes)
    assert np.isfinite(single).all()
    np.testing.assert_allclose(ours, single, rtol=0, atol=TOL)


@pytest.mark.parametrize("estimator", [ReliefF(k=10, iterations=1500, random_state=0),
                                       RReliefF(k=10, iterations=1500, random_state=0)],
                         ids=["ReliefF", "RReliefF"])
def test_large_task_arguments_go_by_scatter_not_in_the_graph(client, estimator):
    """The sampled instances' neighbours sent to the partitions (the 10 nearest of 1,500
    sampled instances: 0.5-0.7 MB) are scattered: no "large graph" warning even with
    distributed's threshold lowered to 300 kB (it warns at 10 MB, which 20,000 sampled
    instances passed), and the same estimates as on one machine."""
    import warnings
    import dask
    X, y, target = table(n=3000)
    regression = isinstance(estimator, RReliefF)
    y = target if regression else y
    n_classes = 0 if regression else 3
    single = estimator(encode(X, y, discrete=DISCRETE, n_classes=n_classes))
    with dask.config.set({"distributed.admin.large-graph-warning-threshold": "300kB"}), \
            warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        ours = estimate(estimator, da.from_array(X, chunks=(750, -1)),
                        da.from_array(y, chunks=(750,)), discrete=DISCRETE,
                        n_classes=n_classes, client=client)
    assert not [w for w in seen if "large graph" in str(w.message)]
    np.testing.assert_allclose(ours, single, rtol=0, atol=TOL)


@pytest.mark.parametrize("estimator, regression", [
    (ReliefF(k=10, iterations=60, random_state=3), False),
    (ReliefF(k=10, iterations=60, random_state=3, missing="C", numeric_diff="ramp"), False),
    (RReliefF(k=20, iterations=50, random_state=2, laplace=True), True),
    (MultiSURF(iterations=40, random_state=4, both_missing="current"), False),
    (SWRF(iterations=40, random_state=4, missing="C"), False),
], ids=["ReliefF", "ReliefF-C-ramp", "RReliefF-laplace", "MultiSURF", "SWRF-C"])
def test_missing_values(client, estimator, regression):
    """With missing values (a tenth of the numeric and discrete values, one column all
    missing): RELIEF-D's probabilities P(value | class) from the whole data, the same
    neighbours and estimates as on one machine; the all-missing column gets NaN."""
    X, y, target = table(seed=4)
    rng = np.random.default_rng(5)
    X[rng.random(X.shape) < 0.1] = np.nan
    X[:, 3] = np.nan
    y = target if regression else y
    n_classes = 0 if regression else 3
    single = estimator(encode(X, y, discrete=DISCRETE, n_classes=n_classes))
    ours = distributed(X, y, estimator, client, n_classes)
    assert np.isnan(single[3]) and np.isfinite(np.delete(single, 3)).all()
    np.testing.assert_allclose(ours, single, rtol=0, atol=TOL)


def test_swrf_on_snps(client):
    """SNPs (bit planes on one machine): the SWRF family's weighted bands summed from the
    codes on Dask give the estimates of one machine."""
    rng = np.random.default_rng(3)
    X = rng.integers(0, 3, (300, 6)).astype(float)
    y = ((X[:, 0] + X[:, 1]) % 2).astype(float)
    for estimator in (SWRF(iterations=30, random_state=2), MultiSWRFstar(iterations=30,
                                                                         random_state=2)):
        single = estimator(encode(X, y, discrete=True, n_classes=2))
        ours = estimate(estimator, da.from_array(X, chunks=(CHUNKS, -1)),
                        da.from_array(y, chunks=(CHUNKS,)), discrete=True, n_classes=2,
                        client=client)
        np.testing.assert_allclose(ours, single, rtol=0, atol=TOL)


def test_ties_across_partitions(client):
    """Discrete attributes only: many instances share the k-th distance, in every partition;
    they share the remaining places, as on one machine, so with every instance sampled the
    estimates do not depend on the order of the rows."""
    rng = np.random.default_rng(7)
    X = rng.integers(0, 2, (300, 5)).astype(float)
    y = (X[:, 0] != X[:, 1]).astype(float)
    estimator = ReliefF(k=7, iterations=80, random_state=1)
    single = estimator(encode(X, y, discrete=True, n_classes=2))
    ours = estimate(estimator, da.from_array(X, chunks=(CHUNKS, -1)),
                    da.from_array(y, chunks=(CHUNKS,)), discrete=True, client=client)
    np.testing.assert_allclose(ours, single, rtol=0, atol=TOL)
    every = ReliefF(k=7, iterations=300, random_state=1)
    single = every(encode(X, y, discrete=True, n_classes=2))
    rows = rng.permutation(300)
    ours = estimate(every, da.from_array(X[rows], chunks=(CHUNKS, -1)),
                    da.from_array(y[rows], chunks=(CHUNKS,)), discrete=True, client=client)
    np.testing.assert_allclose(ours, single, rtol=0, atol=TOL)


def test_blocks_of_rows_within_a_partition(client, monkeypatch):
    """Tiles of 8 rows, one tile per search block: each partition's candidates come from many
    blocks, merged with the others by (distance, row)."""
    monkeypatch.setattr(k_nearest, "TILE_WIDTH", 8)
    monkeypatch.setattr(k_nearest, "SEARCH_WORK", 1)
    rng = np.random.default_rng(8)
    X = rng.integers(0, 3, (300, 4)).astype(float)
    y = (X[:, 0] == X[:, 1]).astype(float)
    estimator = ReliefF(k=6, iterations=70, random_state=2)
    single = estimator(encode(X, y, discrete=True, n_classes=2))
    ours = estimate(estimator, da.from_array(X, chunks=(CHUNKS, -1)),
                    da.from_array(y, chunks=(CHUNKS,)), discrete=True, client=client)
    np.testing.assert_allclose(ours, single, rtol=0, atol=TOL)


def test_context_names_the_dask_search(client, monkeypatch):
    """The neighbour context the backend builds from the partitions' candidates says that the
    Dask search found it (``context.search``), and its neighbours are weighted as on one
    machine."""
    seen = []
    weights = k_nearest.neighbour_weights

    def spy(context, *args):
        seen.append(context.search)
        return weights(context, *args)
    monkeypatch.setattr(k_nearest, "neighbour_weights", spy)
    X, y, _ = table()
    estimator = ReliefF(k=5, iterations=20, random_state=0)
    ours = distributed(X, y, estimator, client, 3)
    assert seen == ["dask"]
    single = estimator(encode(X, y, discrete=DISCRETE, n_classes=3))
    np.testing.assert_allclose(ours, single, rtol=0, atol=TOL)


def test_search_notice_names_the_dask_search(client):
    """A Dask estimate tells the callbacks of ``search_notices`` that the Dask search ran, as
    the single-machine searches do (ReliefF and MultiSURF alike); the partitions' tasks, run
    here in the client's process, may tell their own distance kernel after it. Data it refuses
    give no notice."""
    X, y, _ = table()
    for estimator in (ReliefF(k=5, iterations=20, random_state=0),
                      MultiSURF(iterations=20, random_state=0)):
        seen = []
        with search_notices(seen.append):
            distributed(X, y, estimator, client, 3)
        assert seen[0] == "dask" and seen.count("dask") == 1, seen
        assert set(seen) <= {"dask", "double precision"}, seen
    seen = []
    with search_notices(seen.append), pytest.raises(ValueError):
        estimate(ReliefF(k=5, iterations=20), np.full((10, 2), np.inf), np.zeros(10, int),
                 client=client)
    assert seen == []


def test_hand_computed_square(client):
    """Four corners of the unit square in two partitions, the class = the first attribute:
    every instance's near band holds the hit differing in the second attribute and the miss
    differing in the first (W = [1, -1]); the far band holds the opposite corner, a miss
    differing in both, scored with the opposite sign (W* = [0, -2])."""
    X = da.from_array(np.array([[0, 0], [0, 1], [1, 0], [1, 1]], float), chunks=(2, 2))
    y = da.from_array(np.array([0, 0, 1, 1]), chunks=2)
    for estimator, expected in ((MultiSURF(iterations=4), [1, -1]),
                                (SURFstar(iterations=4), [0, -2])):
        ours = estimate(estimator, X, y, discrete=True, n_classes=2, client=client)
        np.testing.assert_allclose(ours, expected, atol=TOL)


def test_dataframe_and_default_cluster():
    """A Dask dataframe with a categorical attribute and the class as a named column, on the
    LocalCluster the call starts (and closes)."""
    X, y, _ = table(seed=2, n=120)
    frame = pd.DataFrame({"a": X[:, 0], "b": pd.Categorical.from_codes(X[:, 1].astype(int),
                                                                       ["x", "y", "z"]),
                          "c": X[:, 2], "cls": y})
    estimator = ReliefF(k=5, iterations=30, random_state=0)
    single = estimator(encode(X[:, :3], y, discrete=[False, True, False], n_classes=3))
    ours = estimate(estimator, dd.from_pandas(frame, npartitions=3), "cls",
                    cluster_options=dict(processes=False, n_workers=1, dashboard_address=":0"))
    np.testing.assert_allclose(ours, single, rtol=0, atol=TOL)


def test_k_larger_than_a_class(client):
    """k beyond a class's size takes the whole class (as on one machine), and a class of one
    instance has no hits."""
    X, y, _ = table(seed=3)
    y = y.copy()
    y[:] = np.where(y == 2, 1, y)
    y[[10, 20, 30]] = 2                 # a class of three instances
    y[40] = 2
    estimator = ReliefF(k=50, iterations=100, random_state=0)
    single = estimator(encode(X, y, discrete=DISCRETE, n_classes=3))
    np.testing.assert_allclose(distributed(X, y, estimator, client, 3), single, atol=TOL)


def test_progress_and_cancel(client):
    """The callback sees fractions in [0, 1] rising to 1; an exception raised from it cancels
    the computation and propagates."""
    X, y, _ = table()
    seen = []
    distributed(X, y, ReliefF(k=3, iterations=20, random_state=0), client, 3,
                callback=seen.append)
    assert seen[-1] == 1.0 and all(0 <= f <= 1 for f in seen)
    assert seen == sorted(seen)

    class Stop(Exception):
        pass

    def cancel(fraction):
        if fraction > 0.1:
            raise Stop
    with pytest.raises(Stop):
        distributed(X, y, MultiSURF(iterations=20, random_state=0), client, 3, callback=cancel)


def test_bad_input(client):
    X, y, target = table()
    relieff = ReliefF(k=5, iterations=10, random_state=0)
    with pytest.raises(ValueError, match="at least two classes"):
        distributed(X, np.zeros(300), relieff, client, 1)
    with pytest.raises(ValueError, match="at least 2 instances, the data have 0"):
        estimate(relieff, da.zeros((0, 3), chunks=(1, 3)), da.zeros(0, chunks=1),
                 n_classes=2, client=client)
    with pytest.raises(ValueError, match="iterations must be None or an integer"):
        distributed(X, y, ReliefF(iterations=301), client, 3)
    with pytest.raises(ValueError, match="iterations=m"):
        distributed(X, y, ReliefF(), client, 3)
    with pytest.raises(ValueError, match="must be finite"):
        X_inf = X.copy()
        X_inf[5, 2] = np.inf
        distributed(X_inf, y, relieff, client, 3)
    with pytest.raises(ValueError, match="class codes"):
        distributed(X, np.where(np.arange(300) == 7, 0.5, y), relieff, client, 3)
    with pytest.raises(ValueError, match="regression target"):
        distributed(X, y, RReliefF(iterations=10), client, 3)
    with pytest.raises(ValueError, match="target is constant"):
        distributed(X, np.ones(300), RReliefF(iterations=10), client, 0)
    with pytest.raises(ValueError, match="not ReliefFbestK"):
        distributed(X, y, ReliefFbestK(iterations=10), client, 3)
    with pytest.raises(ValueError, match="CORElearn"):
        distributed(X, y, ReliefF.corelearn(iterations=10), client, 3)
    with pytest.raises(ValueError, match="scikit-rebate"):
        distributed(X, y, SWRF(iterations=10, preset="skrebate"), client, 3)
    with pytest.raises(ValueError, match="k must be None or an integer >= 1, got 0"):
        distributed(X, y, ReliefF(k=0, iterations=10), client, 3)


def test_without_dask(monkeypatch):
    """Without dask.distributed only the call fails, naming the extra to install."""
    import sys
    monkeypatch.setitem(sys.modules, "distributed", None)       # import distributed fails
    X, y, _ = table()
    with pytest.raises(ImportError, match=r"pip install 'Orange3-Relief\[dask\]'"):
        estimate(ReliefF(iterations=10), X, y)
