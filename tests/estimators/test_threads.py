"""The estimates do not depend on the number of threads the compiled kernels run on.

Each case is computed with ``numba.set_num_threads(1)`` and again with two threads (as many as
numba may use, up to two) in this process, on data large enough that the parallel kernels split
their work (the diff sums' chunks of instances, the searches' chunks of queries, MultiSURF's
bands, the sparse sums' chunks of pairs); the two results must be equal to the last bit: the
work is split by the data, never by the threads, so the same partial sums are added in the same
order.
"""
import numba
import numpy as np
import pytest
import scipy.sparse as sp

from orangecontrib.relief.estimators import encode
from orangecontrib.relief.estimators.neighbourhood.packed import (BAND_WORDS, PackedColumns,
                                                                  pack_planes)
from orangecontrib.relief.estimators.relieff import ReliefF
from orangecontrib.relief.estimators.rrelieff import RReliefF
from orangecontrib.relief.estimators.surf import MultiSURF

THREADS = min(2, numba.config.NUMBA_NUM_THREADS)


def numeric(n, a, missing=0.0):
    """Normal attributes (a fraction ``missing`` of them NaN), the class the sign of the
    product of the first two."""
    rng = np.random.default_rng(n + a)
    X = rng.normal(size=(n, a))
    y = (X[:, 0] * X[:, 1] > 0).astype(float)
    X[rng.random(X.shape) < missing] = np.nan
    return X, y


def snps(n, a, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.choice(3, size=(n, a), p=[0.64, 0.32, 0.04]).astype(float)
    y = ((X[:, 0] > 0) ^ (X[:, 1] > 0)).astype(float)
    return X, y


def packed(n, a):
    X, y = snps(n, a)
    return encode(PackedColumns(pack_planes(X, np.arange(a)), a), y, discrete=True,
                  n_values=3, n_classes=2)


def sparse(n, a):
    rng = np.random.default_rng(1)
    X = sp.random(n, a, density=0.02, format="csr", random_state=rng)
    y = (np.asarray(X[:, :20].sum(axis=1)).ravel() > 0.1).astype(float)
    return encode(X, y, n_classes=2)


CASES = {
    # the double-precision search and the fused diff sums (few runs of columns: chunked)
    "ReliefF numeric": lambda: (ReliefF(k=10), encode(*numeric(600, 100), n_classes=2)),
    "ReliefF missing values": lambda: (ReliefF(k=10),
                                       encode(*numeric(600, 100, missing=0.1), n_classes=2)),
    "ReliefF sampled": lambda: (ReliefF(k=5, iterations=200, random_state=3),
                                encode(*numeric(800, 60), n_classes=2)),
    "RReliefF": lambda: (RReliefF(k=20),
                         encode(numeric(600, 100)[0], numeric(600, 100)[0][:, :3].sum(axis=1))),
    # the single-precision search (over its MIN_WORK diff terms)
    "ReliefF single precision": lambda: (ReliefF(k=10), encode(*numeric(2_200, 50), n_classes=2)),
    # bit planes: the popcount search, the mismatch bits of the diff sums, the band counts
    "ReliefF bit planes": lambda: (ReliefF(k=10), packed(300, 700)),
    "MultiSURF bit planes": lambda: (MultiSURF(), packed(300, 700)),
    # a query's band counts split into pieces of words among the threads
    "MultiSURF bit planes, many words": lambda: (MultiSURF(), packed(60, 64 * BAND_WORDS + 100)),
    "MultiSURF numeric": lambda: (MultiSURF(), encode(*numeric(400, 80), n_classes=2)),
    "ReliefF discrete codes": lambda: (ReliefF(k=10),
                                       encode(*snps(400, 300), discrete=True, n_classes=2)),
    # the sparse search and its weighted sums over the pairs' unions of non-zeros
    "ReliefF sparse": lambda: (ReliefF(k=10), sparse(500, 3_000)),
}


def at_threads(threads, estimator, data):
    previous = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        return estimator(data)
    finally:
        numba.set_num_threads(previous)


@pytest.mark.parametrize("case", sorted(CASES))
def test_estimates_equal_for_any_number_of_threads(case):
    estimator, data = CASES[case]()
    one = at_threads(1, estimator, data)
    two = at_threads(THREADS, estimator, data)
    assert np.isfinite(one).all()
    assert one.tobytes() == two.tobytes(), np.abs(one - two).max()
    assert at_threads(1, estimator, data).tobytes() == one.tobytes()


def test_two_threads_are_available():
    """The cases above compare one thread with two: the machine must let numba use two."""
    assert THREADS == 2
