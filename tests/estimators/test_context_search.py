"""``context.search`` names the neighbour search that ran, one test per path: CORElearn's
order, the sparse search, k-d trees, the single-precision search, the double-precision tiled
kernel, packed SNP bit planes, none (k = 0); the SURF family's bands say which distances they
read. The data are chosen to fall on each path by the rules of the search's documentation
(e.g. k-d trees from 5,000 instances with at most 6 numeric attributes)."""
import numpy as np
import scipy.sparse as sp

from orangecontrib.relief import estimators
from orangecontrib.relief.compilation import kernel_mode
from orangecontrib.relief.estimators import (DiffModel, MultiSURF, ReliefF, RReliefF, SEARCHES,
                                             encode, nearest_neighbours)


def numeric(n, a, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.random((n, a))
    return encode(X, (X[:, 0] > 0.5).astype(float), n_classes=2)


def snps(n=200, a=70, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, (n, a)).astype(float)
    return encode(X, (X[:, 0] == 1).astype(float), discrete=True, n_values=3, n_classes=2)


def test_double_precision_on_small_data():
    assert ReliefF(k=5).context(numeric(100, 8)).search == "double precision"


def test_single_precision_on_large_data():
    """m x N x a = 500 x 5,000 x 100 = 2.5e8 diff terms: the float32 search (from 2e8). A test
    of the compiled path: the kernels run compiled whatever ``ORANGE_RELIEF_KERNELS`` says (in
    the numpy mode the double-precision search serves until the single-precision kernels are
    compiled, the same neighbours)."""
    with kernel_mode("compiled"):
        context = ReliefF(k=10, iterations=500, random_state=0).context(numeric(5000, 100))
    assert context.search == "single precision"


def test_kd_tree_on_many_instances_with_few_attributes():
    context = ReliefF(k=10, iterations=50, random_state=0).context(numeric(6000, 3))
    assert context.search == "k-d tree"


def test_sparse():
    rng = np.random.default_rng(1)
    X = sp.random(200, 30, density=0.1, format="csr", random_state=1)
    data = encode(X, rng.integers(0, 2, 200).astype(float), n_classes=2)
    assert ReliefF(k=5).context(data).search == "sparse"


def test_packed_snps():
    """70 discrete columns of three values, none missing: bit planes (from 64 columns)."""
    assert ReliefF(k=5).context(snps()).search == "packed SNP"
    assert ReliefF(k=5).context(snps(a=20)).search == "double precision"


def test_corelearn_order():
    assert ReliefF.corelearn().context(numeric(60, 4)).search == "CORElearn order"
    assert RReliefF.corelearn().context(encode(np.arange(40.0)[:, None] % 7,
                                               np.arange(40.0))).search == "CORElearn order"


def test_no_neighbours_wanted():
    data = numeric(30, 3)
    assert nearest_neighbours(DiffModel(data), np.arange(5), 0).search == "none"


def test_surf_bands():
    assert MultiSURF().context(numeric(80, 5)).search == "double precision"
    assert MultiSURF().context(snps()).search == "packed SNP"


def test_every_label_is_listed():
    assert {"CORElearn order", "sparse", "k-d tree", "single precision", "double precision",
            "packed SNP", "dask", "none"} == set(SEARCHES)


def test_reexports():
    """The estimator classes and public functions of the submodules are names of the
    package, the same objects as in their modules; a name that is also a submodule stays the
    submodule."""
    from orangecontrib.relief.estimators import relieff, significance, surf
    assert estimators.ReliefF is relieff.ReliefF and estimators.MultiSURF is surf.MultiSURF
    assert estimators.band_thresholds is surf.band_thresholds
    assert estimators.significance is significance
    assert set(estimators.__all__) <= set(dir(estimators))
    for name in estimators.__all__:
        assert getattr(estimators, name) is not None, name
