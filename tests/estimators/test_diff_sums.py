"""The fused diff sums over columns with missing values equal the sums of the pair diffs
computed one by one by the scalar rule (RELIEF-B, C and D, known-diff counts included)."""
import numpy as np
import pytest

from orangecontrib.relief.estimators import encode
from orangecontrib.relief.estimators.neighbourhood.diff_sums import SumPlan, column_runs, fused_sums
from orangecontrib.relief.estimators.neighbourhood.diffs import DiffModel, DiffOptions
from orangecontrib.relief.estimators.neighbourhood.kinds import GENERAL


@pytest.mark.parametrize("missing", ["B", "C", "D"])
@pytest.mark.parametrize("numeric", ["linear", "ramp"])
@pytest.mark.parametrize("known", [False, True])
def test_fused_sums_with_missing_values_equal_the_pair_diffs(missing, numeric, known):
    rng = np.random.default_rng(11)
    n, a, b, G, K = 120, 9, 15, 2, 4
    X = rng.random((n, a))
    X[:, 1] = rng.integers(0, 3, n)                      # a discrete column among them
    X[rng.random(X.shape) < 0.3] = np.nan
    X[3] = np.nan                                        # an instance with no known value
    y = rng.integers(0, 2, n).astype(float)
    discrete = np.zeros(a, bool)
    discrete[1] = True
    model = DiffModel(encode(X, y, discrete=discrete, n_classes=2),
                      DiffOptions(missing=missing, numeric=numeric))
    runs = column_runs(model)
    assert np.all(runs[:, 2] == GENERAL)                 # every column misses values
    rows = rng.choice(n, b, replace=False)
    rows[0] = 3
    nb = rng.integers(0, n, (b, G, K))
    nb[1, 0, 2] = -1                                     # a neighbour not found
    pair = rng.random((1, b, G, K))
    # one read-out of running sum 0 into output 0 after the last neighbour of each (i, g)
    plan = SumPlan(pair, np.arange(b * G + 1, dtype=np.intp), np.full(b * G, K - 1, np.intp),
                   np.zeros(b * G, np.intp), np.zeros(b * G, np.intp), np.ones(b * G), 1)
    out = fused_sums(model, rows, nb, plan, runs, known=known)

    expected = np.zeros(a)
    for i in range(b):
        for g in range(G):
            for j in range(K):
                if nb[i, g, j] < 0:
                    continue
                d = model.pair_diffs(np.array([rows[i]]), np.array([nb[i, g, j]]))[0]
                d = np.where(np.isnan(d), 0.0, 1.0) if known else np.nan_to_num(d, nan=0.0)
                expected += pair[0, i, g, j] * d
    np.testing.assert_allclose(out[0], expected, rtol=1e-12, atol=1e-12)
