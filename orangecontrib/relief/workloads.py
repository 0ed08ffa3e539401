"""Compiling the kernels ahead of their first use (``orange-relief compile``): the workloads,
small data of each kind estimated with the compiled kernels, each selecting the kernels (and
argument types) that kind of data takes.

Without this, the first estimate of a kind of data computes with the kernels' numpy
equivalents while a background process compiles them (see
:mod:`orangecontrib.relief.compilation`); :func:`compile_ahead` fills the cache at once, a
process per workload.
"""
import os
import tempfile

import numpy as np

from . import readers
from .compilation import run_compiled
from .estimators import encode
from .estimators.contextual_merit import ContextualMerit
from .estimators.interactions import scan_pairs
from .estimators.iterative import Iter
from .estimators.multiscale import MultiScaleRelief
from .estimators.neighbourhood.neighbours import compile_single_precision
from .estimators.relieff import ReliefF
from .estimators.rrelieff import RReliefF
from .estimators.surf import MultiSURFstar, SURF
from .estimators.trend import TrendTest

__all__ = ["WORKLOADS", "compile_ahead", "small", "discrete", "snp", "plink", "sparse"]


def small():
    """Few instances, numeric and discrete with missing values: every estimator's
    double-precision search and sums."""
    rng = np.random.default_rng(0)
    n = 100
    X = np.column_stack([rng.integers(0, 3, n), rng.random(n), rng.random(n)])
    X[rng.random(X.shape) < 0.1] = np.nan
    data = encode(X, rng.integers(0, 2, n).astype(float), discrete=[True, False, False],
                  n_classes=2)
    for estimator in (ReliefF(), ReliefF(numeric_diff="ramp"), SURF(), MultiSURFstar(),
                      MultiScaleRelief(), ContextualMerit()):
        estimator(data)
    RReliefF()(encode(data.X, rng.random(n), discrete=data.discrete))


def discrete():
    """Discrete values with missing ones, two classes: the kernels that compute apart from the
    search and sums: the CORElearn-order search (``preset="corelearn"``), scikit-rebate's
    weighted distances (Iterative Relief's later rounds with ``preset="skrebate"``), the scan
    of every pair of attributes and, with a numeric covariate, the allelic trend test's fits
    over the instances."""
    rng = np.random.default_rng(0)
    n = 100
    X = rng.integers(0, 3, (n, 20)).astype(float)
    X[rng.random(X.shape) < 0.05] = np.nan
    y = (rng.random(n) > 0.5).astype(float)
    data = encode(X, y, discrete=True, n_values=3, n_classes=2)
    ReliefF(preset="corelearn")(data)
    Iter(ReliefF(preset="skrebate"), max_iter=2)(data)
    scan_pairs(data, top=10)
    TrendTest()(encode(X, y, discrete=True, n_values=3, n_classes=2,
                       covariates=rng.normal(size=n)))


def snp():
    """Discrete values 0/1/2 (SNPs): the bit-plane search."""
    rng = np.random.default_rng(0)
    X = (rng.random((300, 100)) > 0.6).astype(float) + (rng.random((300, 100)) > 0.9)
    ReliefF()(encode(X, (X[:, 0] > 0).astype(float), discrete=True, n_classes=2))


def plink():
    """Genotypes read from a PLINK .bed file (where bed-reader, which reads them, is
    installed), with and without missing calls: the search of float32 values (genotypes with
    missing calls) and the packing of int8 codes into bit planes (genotypes without)."""
    try:
        import bed_reader
    except ImportError:
        return
    rng = np.random.default_rng(0)
    X = rng.integers(0, 3, (100, 70)).astype(np.float32)
    y = (X[:, 0] > 0).astype(float)
    with tempfile.TemporaryDirectory() as folder:
        for missing in (0, 0.05):
            X[rng.random(X.shape) < missing] = np.nan
            path = os.path.join(folder, f"genotypes{missing}.bed")
            bed_reader.to_bed(path, X, properties={"pheno": y + 1})
            ReliefF()(readers.read_plink(path))


def sparse():
    """A scipy.sparse matrix: the sparse search."""
    import scipy.sparse as sp
    rng = np.random.default_rng(0)
    X = sp.random(300, 50, density=0.1, random_state=0, format="csr")
    ReliefF()(encode(X, rng.integers(0, 2, 300).astype(float), n_classes=2))


#: the workloads of :func:`compile_ahead`: {name: (what it compiles, the function)}
WORKLOADS = {
    "small": ("few instances, numeric and discrete with missing values: every estimator's "
              "double-precision search and sums", small),
    "numeric": ("many numeric instances with and without missing values: the "
                "single-precision search", compile_single_precision),
    "plink": ("genotypes of a PLINK file with and without missing calls: the float32 search, "
              "the packing of bit planes", plink),
    "discrete": ("discrete values with missing ones: the CORElearn-order search, "
                 "scikit-rebate's weighted distances, the scan of pairs, the trend test's fits",
                 discrete),
    "snp": ("discrete values 0/1/2 (SNPs): the bit-plane search", snp),
    "sparse": ("a scipy.sparse matrix: the sparse search", sparse),
}


def compile_ahead(workloads=None, jobs=None, callback=None):
    """Compile the kernels ahead of their first use into the disk cache: the workloads of
    :data:`WORKLOADS` (default: all), each in its own process, ``jobs`` at a time (default:
    the number of cores). ``callback(name, seconds)`` is called as each finishes. Raise
    ``ValueError`` for an unknown workload and ``RuntimeError`` naming one that failed."""
    names = list(WORKLOADS) if workloads is None else list(workloads)
    unknown = [name for name in names if name not in WORKLOADS]
    if unknown:
        raise ValueError(f"unknown workload {unknown[0]!r}; the workloads are "
                         f"{', '.join(WORKLOADS)}")
    run_compiled({name: WORKLOADS[name][1] for name in names}, jobs, callback)
