"""The numpy equivalents of the kernels (estimators/neighbourhood/vectorised.py), which give the
first result of a session while the kernels compile in a background process, against the
compiled kernels: the same estimates to the last bit (``np.array_equal``), since they add the
same terms in the same order."""
import subprocess
import sys
import textwrap
from dataclasses import replace

import numpy as np
import pytest
from Orange.data import Table

from orangecontrib.relief import compilation, scoring
from orangecontrib.relief.compilation import kernel_mode
from orangecontrib.relief.estimators import encode
from orangecontrib.relief.estimators.neighbourhood import diffs, neighbours, packed, vectorised
from orangecontrib.relief.estimators.contextual_merit import ContextualMerit
from orangecontrib.relief.estimators.multiscale import MultiScaleRelief
from orangecontrib.relief.estimators.relieff import ReliefF
from orangecontrib.relief.estimators.rrelieff import RReliefF
from orangecontrib.relief.estimators.npdr import NPDR
from orangecontrib.relief.estimators.surf import MultiSURF, MultiSURFstar, SURF

from checkout import environment


class NotCompiled:
    """Stands in for a numba dispatcher: the call did not take the numpy equivalent."""

    def __call__(self, *args):
        raise AssertionError("the compiled kernel ran instead of its numpy equivalent")


@pytest.fixture
def numpy_only(monkeypatch):
    """Within the test, ``numpy()`` runs a call with every kernel's numpy equivalent, failing
    if any call reaches a compiled kernel."""
    def numpy(call):
        with monkeypatch.context() as patch, kernel_mode("numpy"):
            for kernel in compilation.KERNELS:
                patch.setattr(kernel, "dispatcher", NotCompiled())
            return call()
    return numpy


def both_ways(call, numpy):
    with kernel_mode("compiled"):
        compiled = np.asarray(call(), dtype=float)
    fallback = np.asarray(numpy(call), dtype=float)
    assert np.array_equal(fallback, compiled, equal_nan=True), np.abs(fallback - compiled).max()
    return compiled


@pytest.mark.parametrize("name", [cls.__name__ for cls in scoring.SCORERS
                                  if "classification" in getattr(cls, "tasks", ())])
def test_every_classification_scorer_on_heart_disease(name, numpy_only):
    data = Table("heart_disease")            # numeric and discrete, missing values, 2 classes
    cls = {c.__name__: c for c in scoring.SCORERS}[name]
    # a seed for those that draw at random (VLS's subsets), so that both ways draw alike
    seeded = {"random_state": 0} if "random_state" in {p.name for p in cls.parameters} else {}
    scores = both_ways(lambda: cls(**seeded)(data), numpy_only)
    assert np.isfinite(scores).any()


@pytest.mark.parametrize("name", ["RReliefF", "SURF", "MultiSURF", "TuRF", "MultiScaleRelief"])
def test_regression_scorers_on_housing(name, numpy_only):
    data = Table("housing")
    cls = {c.__name__: c for c in scoring.SCORERS}[name]
    both_ways(lambda: cls()(data), numpy_only)


def mixed_data(n=150, seed=1, weights=None, classes=3):
    """Discrete and numeric columns, 15 % of the values missing, a constant and an empty
    column, and repeated rows (ties)."""
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.integers(0, 3, n), rng.integers(0, 2, n), rng.random(n),
                         np.round(rng.normal(size=n), 1), np.full(n, 2.0), np.full(n, np.nan),
                         rng.random(n) * 1e3]).astype(float)
    X[rng.random(X.shape) < 0.15] = np.nan
    X[:, 4] = 2.0
    X[n // 2:n // 2 + 10] = X[:10]
    y = rng.integers(0, classes, n).astype(float)
    return encode(X, y, discrete=[True, True, False, False, False, False, False],
                  n_classes=classes, weights=weights)


@pytest.mark.parametrize("options", [
    dict(), dict(missing="B"), dict(missing="C"), dict(missing="D", both_missing="current"),
    dict(numeric_diff="ramp", distance="euclidean"), dict(distance="euclidean"),
    dict(weighting="exp-rank", k=7), dict(weighting="1/d"), dict(k=1000),
    dict(iterations=40, random_state=3), dict(skip_zero_distance=True)])
def test_relieff_options_with_missing_values(options, numpy_only):
    data = mixed_data()
    both_ways(lambda: ReliefF(**options)(data), numpy_only)


def test_instance_weights_and_other_estimators(numpy_only):
    rng = np.random.default_rng(5)
    weighted = mixed_data(weights=rng.integers(1, 4, 150).astype(float))
    both_ways(lambda: ReliefF(k=5)(weighted), numpy_only)
    data = mixed_data(classes=2)
    for estimator in (SURF(), MultiSURFstar(numeric_diff="ramp"), MultiScaleRelief(),
                      ContextualMerit()):
        both_ways(lambda: estimator(data), numpy_only)
    regression = encode(data.X, np.random.default_rng(2).random(data.n_instances),
                        discrete=data.discrete)
    both_ways(lambda: RReliefF(k=10)(regression), numpy_only)


def test_a_kernel_mode_must_be_known():
    with pytest.raises(ValueError, match="kernel mode"):
        with kernel_mode("fast"):
            pass


def test_the_numpy_mode_compiles_nothing_in_the_background():
    with kernel_mode("numpy"):
        assert not compilation.run_in_background(compilation.background_compiles)


def test_large_data_run_the_compiled_kernel(monkeypatch):
    # above the numpy equivalents' size limit the kernel runs (and gives the same numbers);
    # the value codes (_fill_codes, linear in the data) are always within it
    data = mixed_data()
    with kernel_mode("compiled"):
        expected = ReliefF()(data)
    for limit in ("MAX_WORK", "SUMS_WORK", "CERTIFIED_WORK", "ONE_HOT_WORK"):
        monkeypatch.setattr(vectorised, limit, 10)
    for kernel in compilation.KERNELS:
        if kernel is not diffs._fill_codes:
            monkeypatch.setattr(kernel, "fallback", lambda *args, f=kernel.fallback: (
                pytest.fail("a numpy equivalent took large data")
                if f(*args) is not NotImplemented else NotImplemented))
    with kernel_mode("numpy"):
        assert np.array_equal(ReliefF()(data), expected, equal_nan=True)


COLD_RUN = textwrap.dedent("""
    import json, sys, time
    import numpy as np
    from orangecontrib.relief import compilation
    from orangecontrib.relief.estimators import encode
    from orangecontrib.relief.estimators.relieff import ReliefF
    rng = np.random.default_rng(0)
    X = rng.random((120, 4))
    X[rng.random(X.shape) < 0.1] = np.nan
    data = encode(X, (X[:, 0] > 0.5).astype(float), n_classes=2)
    compiled = []
    with compilation.compile_notices(compiled.append):
        scores = ReliefF()(data)
    started = compilation.background_compiles()
    deadline = time.time() + 600
    while compilation.background_compiles() and time.time() < deadline:
        time.sleep(0.5)
    print(json.dumps({"compiled": compiled, "scores": scores.tolist(), "started": started}))
""")


def run_cold(cache, mode):
    env = environment(NUMBA_CACHE_DIR=str(cache), ORANGE_RELIEF_KERNELS=mode)
    result = subprocess.run([sys.executable, "-c", COLD_RUN], env=env, capture_output=True,
                            text=True, timeout=900)
    assert result.returncode == 0, result.stderr
    import json
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_a_cold_start_computes_in_numpy_and_fills_the_cache_in_the_background(tmp_path):
    first = run_cold(tmp_path, "auto")
    assert first["compiled"] == []               # nothing compiled in the calling process
    assert first["started"] >= 1                 # ... but in background processes
    assert any(tmp_path.rglob("*.nbi"))          # which left the kernels in the cache
    second = run_cold(tmp_path, "auto")          # a new session loads them
    assert second["compiled"] == [] and second["started"] == 0
    assert second["scores"] == first["scores"]


def test_until_the_single_precision_search_is_compiled_the_double_precision_one_serves(
        monkeypatch):
    # the same context either way: the single-precision search is certified against it
    rng = np.random.default_rng(4)
    X = rng.random((1500, 100))
    X[rng.random(X.shape) < 0.05] = np.nan
    data = encode(X, (X[:, 0] > 0.5).astype(float), n_classes=2)
    with kernel_mode("compiled"):
        assert neighbours.single_precision.suits(diffs.DiffModel(data), 1500, False, 2, 10)
        expected = ReliefF()(data)
    started = []
    monkeypatch.setattr(neighbours, "compiled_somewhere", lambda *kernels: False)
    monkeypatch.setattr(neighbours, "run_in_background", started.append)
    monkeypatch.setattr(neighbours.single_precision, "search",
                        lambda *args, **kw: pytest.fail("the single-precision search ran"))
    with kernel_mode("auto"):
        assert np.array_equal(ReliefF()(data), expected)
    assert started == [neighbours.compile_single_precision]


def test_an_empty_column_beside_complete_ones(numpy_only):
    # the diff tables of missing values are then empty: the empty column's diffs are NaN
    rng = np.random.default_rng(8)
    X = np.column_stack([rng.random(80), rng.integers(0, 2, 80), np.full(80, np.nan)])
    data = encode(X, rng.integers(0, 2, 80).astype(float), discrete=[False, True, False],
                  n_classes=2)
    for estimator in (ReliefF(), MultiScaleRelief(), SURF(missing="C")):
        both_ways(lambda: estimator(data), numpy_only)


def test_neighbours_among_a_subset_of_the_instances(numpy_only):
    # the Dask backend searches each partition's rows only (tiles over a subset)
    from orangecontrib.relief.estimators.neighbourhood import class_tiles, nearest_among
    data = mixed_data(n=120)
    model = diffs.DiffModel(data)
    subset = np.arange(30, 90)
    order, ranges = class_tiles(model.cls[subset], model.n_cls)
    candidates = (subset[order], ranges)
    for groups in ("per-class", "pooled", "all"):
        def search():
            return np.concatenate([a.ravel() for a in nearest_among(
                model, np.arange(0, 120, 7), candidates, 5, groups)])
        both_ways(search, numpy_only)
        with kernel_mode("numpy"):
            neighbours_found = nearest_among(model, np.arange(0, 120, 7), candidates, 5,
                                             groups)[0]
        assert np.isin(neighbours_found[neighbours_found >= 0], subset).all()


# Data too large for the exact distance matrix: the certified search (fast distances, then
# the candidates near each K-th recomputed by the kernel's arithmetic) and the diff sums in
# blocks of instances. Small sizes stand in for large ones by lowering the limits.

@pytest.fixture
def large_data_path(monkeypatch, numpy_only):
    monkeypatch.setattr(vectorised, "MAX_WORK", 10)          # no exact distance matrix
    monkeypatch.setattr(vectorised, "BLOCK_DISTANCES", 5000)  # several blocks of rows
    monkeypatch.setattr(vectorised, "BLOCK_TERMS", 20000)     # several blocks of sums
    return numpy_only


def near_tied_numeric(n=600, a=40, seed=3):
    """Values on a coarse grid, columns of very different spans and repeated rows: many
    distances equal in exact arithmetic whose floating-point sums differ with the order of
    addition, and pairs at distance 0."""
    rng = np.random.default_rng(seed)
    X = np.round(rng.random((n, a)) * 10) / 10 * np.logspace(-3, 3, a)
    X[n // 2:n // 2 + 20] = X[:20]
    y = rng.integers(0, 3, n).astype(float)
    return X, y


@pytest.mark.parametrize("options", [dict(), dict(k=1), dict(k=50), dict(skip_zero_distance=True),
                                     dict(weighting="exp-rank"), dict(iterations=100,
                                                                      random_state=1)])
def test_certified_search_on_near_tied_numeric_data(options, large_data_path):
    X, y = near_tied_numeric()
    data = encode(X, y, n_classes=3)
    both_ways(lambda: ReliefF(**options)(data), large_data_path)


def reversed_manhattan(queries, candidates):
    """Manhattan distances summed over the columns from the last to the first."""
    acc = np.zeros((queries.shape[0], candidates.shape[0]))
    for t in range(queries.shape[1] - 1, -1, -1):
        acc += np.abs(candidates[None, :, t] - queries[:, None, t])
    return acc


def test_certified_search_whatever_order_the_fast_distances_add_in(large_data_path,
                                                                   monkeypatch):
    # fast distances added in another order than the kernel's differ from its own in the
    # last bits: the candidates within the rounding bound are recomputed, so the neighbours
    # and the estimates are still the kernel's
    X, y = near_tied_numeric()
    data = encode(X, y, n_classes=3)
    tiles = diffs.DiffModel(data).tiles
    scaled = X * tiles.inv_span
    cand = np.arange(X.shape[0])
    kernel_order = vectorised._distance_matrix(cand[:, None], tiles, cand[None, :],
                                               tiles.cls[None, :])
    assert (reversed_manhattan(scaled, scaled) != kernel_order).mean() > 0.01
    monkeypatch.setattr(vectorised, "_manhattan", reversed_manhattan)
    model = diffs.DiffModel(data)
    candidates = diffs.class_tiles(model.cls, model.n_cls)
    for k in (1, 7, 30):
        for groups in ("per-class", "all"):
            def search():
                return np.concatenate([a.ravel() for a in neighbours.nearest_among(
                    model, np.arange(0, 600, 2), candidates, k, groups)])
            both_ways(search, large_data_path)
    both_ways(lambda: ReliefF(k=5)(data), large_data_path)


def test_certified_search_with_every_grouping(large_data_path):
    X, y = near_tied_numeric(n=300, a=12, seed=5)
    model = diffs.DiffModel(encode(X, y, n_classes=3))
    for groups in ("per-class", "pooled", "all"):
        def search():
            context = neighbours.nearest_neighbours(model, np.arange(0, 300, 3), 10, groups)
            return np.concatenate([context.neighbours.ravel(), context.distances.ravel()])
        both_ways(search, large_data_path)
    regression = encode(X, y + np.random.default_rng(0).random(300))
    both_ways(lambda: RReliefF(k=10)(regression), large_data_path)


@pytest.mark.parametrize("n_columns", [30, 100])      # tiles, and bit planes from 64 columns
def test_certified_search_on_snps(n_columns, large_data_path):
    rng = np.random.default_rng(n_columns)
    u = rng.random((500, n_columns))
    X = (u > 0.6).astype(float) + (u > 0.9)
    X[250:260] = X[:10]
    y = (X[:, 0] != X[:, 1]).astype(float)
    data = encode(X, y, discrete=True, n_classes=2)
    for estimator in (ReliefF(), ReliefF(k=40, skip_zero_distance=True)):
        both_ways(lambda: estimator(data), large_data_path)


@pytest.mark.parametrize("estimator", [ReliefF(), ReliefF(iterations=60, random_state=0),
                                       ContextualMerit(), MultiScaleRelief()])
def test_certified_search_on_snps_held_only_as_bit_planes(estimator, numpy_only):
    """Genotypes as a PLINK file gives them, held only as bit planes (the values have no
    column): the numpy search (certified: bit planes) and sums decode the codes from the
    planes; MultiScaleRelief's columns read from them are int8 codes (their one-hot work
    counted without overflowing int8). Every kernel call takes its numpy equivalent."""
    snps_both_ways(estimator, numpy_only, 300, 100, seed=4)


def snps_both_ways(estimator, numpy, n, a, seed):
    """Run ``estimator`` on n x a random SNP codes (a few rows repeated) as an array and held
    only as bit planes, each both ways (:func:`both_ways`); check that the two agree and
    return the names of the kernels called."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, (n, a)).astype(float)
    X[n // 2:n // 2 + 10] = X[:10]
    y = (X[:, 0] != X[:, 1]).astype(float)
    data = encode(X, y, discrete=True, n_classes=2)
    held = replace(data, X=packed.PackedColumns(packed.pack_planes(X, np.arange(a)), a))
    called = set()
    with compilation.kernel_calls(lambda kernel, args: called.add(kernel.__name__)):
        expected = both_ways(lambda: np.asarray(estimator(data), dtype=float), numpy)
        assert np.array_equal(both_ways(lambda: np.asarray(estimator(held), dtype=float),
                                        numpy), expected, equal_nan=True)
    return called


@pytest.mark.parametrize("estimator,counts", [(MultiSURF(), "band_mismatch_counts"),
                                              (MultiSURFstar(), "band_mismatch_counts"),
                                              (NPDR(), "cell_mismatch_counts")])
def test_bands_on_snps_by_bit_planes(estimator, counts, numpy_only):
    """The SURF family counts the band members that differ on each attribute from the bit
    planes (70 columns of codes: packed; and held only as planes), NPDR the pairs that differ
    in each cell of its grouped counts: every kernel call takes its numpy equivalent, which
    gives the compiled numbers."""
    assert counts in snps_both_ways(estimator, numpy_only, 120, 70, seed=5)


def test_band_mismatch_counts_by_numpy_equal_a_count_by_hand():
    """Three groups (one empty), members chosen at random, codes 0..3 over two words."""
    rng = np.random.default_rng(6)
    X = rng.integers(0, 4, (40, 100)).astype(float)
    planes = packed.pack_planes(X, np.arange(100))
    rows = np.array([3, 0, 39, 3])
    member = rng.random((4, 40)) < 0.5
    groups = np.where(np.arange(40) % 3 == 2, 3, np.arange(40) % 3)
    out = np.full((4, 4, 100), -1, np.int64)
    assert vectorised.band_mismatch_counts(planes, rows, member, groups, 4, out) is None
    for q, r in enumerate(rows):
        for g in range(4):
            expected = sum((X[j] != X[r]).astype(int) for j in range(40)
                           if member[q, j] and groups[j] == g)
            assert np.array_equal(out[q, g], np.broadcast_to(expected, (100,)))
    assert (out[:, 2] == 0).all()


def test_certified_search_declines_what_it_does_not_reproduce():
    # missing values, ramped or Euclidean numeric diffs, mixed columns: the kernel runs
    X, y = near_tied_numeric(n=100, a=6)
    rows = np.arange(10)
    out = np.full((10, 3, 5), -1, np.intp), np.full((10, 3, 5), np.inf)
    missing = X.copy()
    missing[3, 2] = np.nan
    cases = [(encode(missing, y, n_classes=3), diffs.DiffOptions()),
             (encode(X, y, n_classes=3), diffs.DiffOptions(numeric="ramp")),
             (encode(X, y, n_classes=3), diffs.DiffOptions(distance="euclidean")),
             (encode(np.column_stack([X, y]), y, discrete=[False] * 6 + [True], n_classes=3),
              diffs.DiffOptions())]
    for data, options in cases:
        model = diffs.DiffModel(data, options)
        assert vectorised._certified_search(rows, model.tiles, model.planes, 0, False,
                                            *out) is NotImplemented
    assert (out[0] == -1).all()


def test_certified_search_declines_large_data(monkeypatch):
    X, y = near_tied_numeric(n=100, a=6)
    model = diffs.DiffModel(encode(X, y, n_classes=3))
    tiles, planes = model.tiles, model.planes
    out = np.full((10, 3, 5), -1, np.intp), np.full((10, 3, 5), np.inf)
    monkeypatch.setattr(vectorised, "CERTIFIED_WORK", 100 * 100 * 6 - 1)
    assert vectorised._certified_search(np.arange(10), tiles, planes, 0, False,
                                        *out) is NotImplemented
    monkeypatch.setattr(vectorised, "CERTIFIED_WORK", 100 * 100 * 6)
    assert vectorised._certified_search(np.arange(10), tiles, planes, 0, False, *out) is None


def test_bit_planes_packed_by_numpy_equal_the_kernels():
    rng = np.random.default_rng(2)
    values = rng.integers(0, 4, (50, 150)).astype(float)
    values[7, 3] = 5.0                              # not a code: that instance is not ok
    columns = np.arange(1, 150, 1)
    planes = [np.zeros((50, 2, 3), np.uint64) for _ in range(2)]
    ok = [np.ones(50, bool) for _ in range(2)]
    packed._pack.dispatcher(values, columns, planes[0], ok[0])
    assert vectorised.pack(values, columns, planes[1], ok[1]) is None
    assert np.array_equal(planes[0], planes[1]) and np.array_equal(ok[0], ok[1])
    assert not ok[1][7] and ok[1].sum() == 49
    # by hand: instance 0's attribute 64 (column 65) is bit 0 of word 1
    code = int(values[0, 65])
    assert int(planes[1][0, 0, 1]) & 1 == code & 1 and int(planes[1][0, 1, 1]) & 1 == code >> 1


def test_fast_distances_prepared_once_per_search_and_never_for_changed_values(
        large_data_path, monkeypatch):
    X, y = near_tied_numeric(n=400, a=10)
    prepared = []
    prepare = vectorised._approximate_distances
    monkeypatch.setattr(vectorised, "_approximate_distances",
                        lambda *args: prepared.append(1) or prepare(*args))
    monkeypatch.setattr(neighbours, "SEARCH_DIFFS", 50 * 400 * 10)     # 8 calls of 50 rows
    data = encode(X, y, n_classes=3)            # float64: X is not copied
    both_ways(lambda: ReliefF()(data), large_data_path)
    assert len(prepared) == 1
    X[:] = near_tied_numeric(n=400, a=10, seed=9)[0]       # the same array, other values
    both_ways(lambda: ReliefF()(encode(X, y, n_classes=3)), large_data_path)
    assert len(prepared) == 2
