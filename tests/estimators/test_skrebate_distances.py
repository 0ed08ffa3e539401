"""scikit-rebate's distances with attribute weights (``preset="skrebate"``, Iterative Relief's
later rounds): against scipy's weighted ``pdist`` (an independent implementation, to the last
bit) without missing values, against a pair-by-pair numpy computation written from scikit-rebate's
formula with missing values (to the last bit) and against a plain loop over the definitions (to
rounding), in both kernel modes."""
import numpy as np
import pytest
from scipy.spatial.distance import pdist, squareform

from orangecontrib.relief.compilation import kernel_mode
from orangecontrib.relief.estimators.skrebate_distances import weighted_distances

MODES = ["compiled", "numpy"]


def table(kind, n, a, missing, seed):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, (n, a)).astype(float) if kind == "discrete" else rng.random((n, a)) * 4
    if missing:
        X[rng.random(X.shape) < missing] = np.nan
    w = rng.random(a) * rng.choice([1e-3, 1.0, 9.0], a)
    w[rng.random(a) < 0.2] = 0.0
    lo, hi = np.nanmin(X, axis=0), np.nanmax(X, axis=0)
    return X, lo, np.where(hi > lo, hi - lo, 1.0), w


def distances(X, lo, span, w, discrete, mode):
    out = np.full((X.shape[0],) * 2, -1.0)
    with kernel_mode(mode):
        weighted_distances(X, lo, span, w, discrete, bool(np.isnan(X).any()), out)
    return out


def by_definition(X, lo, span, w, discrete):
    """A plain loop over the pairs and attributes (the module docstring's formulas; an instance
    is at distance 0 from itself)."""
    n, a = X.shape
    missing = np.isnan(X).any()
    D = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            if i == j and missing:
                continue
            num = den = 0.0
            known = 0
            for t in range(a):
                if np.isnan(X[i, t]) or np.isnan(X[j, t]):
                    continue
                known += 1
                if discrete:
                    diff = float(X[i, t] != X[j, t])
                elif missing:
                    diff = abs(X[i, t] - X[j, t]) / span[t]
                else:
                    diff = abs((X[i, t] - lo[t]) / span[t] - (X[j, t] - lo[t]) / span[t])
                num += w[t] * diff
                den += w[t]
            if missing:
                D[i, j] = (num / den if known else 0.0) / known if known else np.nan
            else:
                D[i, j] = num / den if discrete else num
    return D


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kind", ["discrete", "numeric"])
def test_without_missing_values_as_scipy_weighted_pdist(kind, mode):
    X, lo, span, w = table(kind, 45, 37, 0, seed=1)
    if kind == "discrete":
        expected = squareform(pdist(X, "hamming", w=w))
    else:
        expected = squareform(pdist((X - lo) / span, "cityblock", w=w))
    got = distances(X, lo, span, w, kind == "discrete", mode)
    assert np.array_equal(got, expected)
    assert np.allclose(got, by_definition(X, lo, span, w, kind == "discrete"), rtol=1e-12)


def pairs_with_missing(X, span, w, discrete):
    """scikit-rebate's formula pair by pair: over the attributes known in both instances,
    dot(diff, w) / sum(w), divided by their number."""
    n = X.shape[0]
    D = np.zeros((n, n))
    with np.errstate(invalid="ignore", divide="ignore"):
        for i in range(n):
            for j in range(n):
                if i == j:
                    continue
                known = ~np.isnan(X[i]) & ~np.isnan(X[j])
                x, y, wk = X[i][known], X[j][known], np.ascontiguousarray(w[known])
                diff = (x != y).astype(float) if discrete else np.abs(x - y) / span[known]
                share = np.dot(diff, wk) / np.sum(wk) if known.any() else 0.0
                D[i, j] = share / np.float64(known.sum())
    return D


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kind,a", [("discrete", 20), ("numeric", 20), ("discrete", 300)])
def test_with_missing_values_as_scikit_rebate_computes_them(kind, a, mode):
    """300 attributes: the weights' sum over more than 128 known values takes numpy's
    pairwise halving."""
    X, lo, span, w = table(kind, 40, a, 0.15, seed=2)
    X[3, :] = np.nan                    # a row with nothing known: NaN distances
    got = distances(X, lo, span, w, kind == "discrete", mode)
    expected = pairs_with_missing(X, span, w, kind == "discrete")
    assert np.array_equal(got, expected, equal_nan=True)
    assert np.isnan(got[3, :3]).all() and got[3, 3] == 0.0
    assert np.allclose(got, by_definition(X, lo, span, w, kind == "discrete"), rtol=1e-12,
                       equal_nan=True)


@pytest.mark.parametrize("mode", MODES)
def test_all_weights_zero_leaves_no_discrete_distance(mode):
    """Every weight 0 (scikit-rebate's Iter goes on after such a round): 0 / 0 everywhere,
    as scipy's weighted Hamming distance gives."""
    X, lo, span, w = table("discrete", 12, 5, 0, seed=3)
    got = distances(X, lo, span, np.zeros(5), True, mode)
    assert np.isnan(got).all()
