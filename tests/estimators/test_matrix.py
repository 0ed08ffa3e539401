"""Every path gives the same answer: every estimator of the catalogue, in each of its variants,
on every form of data the engine accepts, in both kernel modes (the compiled kernels and their
numpy equivalents), gives the same estimates, or the same refusal (the same exception type and
message).

Nothing here is listed by hand:

* the estimators are the catalogue's (:data:`.catalogue.ESTIMATORS`), each with its variants
  derived from its description (:func:`variants`): its defaults, then each parameter of
  choice or yes/no changed alone to each other value, and a sample of the instances for those
  that sample them; beside them the computations with kernels of their own that are no
  estimator (:data:`COMPUTATIONS`: the scan of every pair);
* the data forms are the builders registered with :func:`form` below, one per form the
  engine accepts; a new form is a new builder;
* the kernels are those of :data:`.compilation.KERNELS`, and the searches those of
  :data:`.searches.SEARCHES`.

Tolerance: none. The numpy equivalents add the same terms in the same order as the kernels
(their documentation says so, to the last bit), and every search is certified to give the
context of the double-precision kernel, so estimates are compared with ``np.array_equal``
(NaN equal to NaN).

The data are small; the two forms meant to reach a size threshold of the engine (the
single-precision search, k-d trees) lower that threshold while they run (the threshold only
chooses the path: the path's arithmetic is the same at any size, and the engine's own tests
check the thresholds at their values) and have the smallest size that reaches it. Every estimator's
defaults run on every form, its other variants on the forms registered with
``variants=True``, which between them hold every kind of column and target.
"""
import contextlib
import copy
import functools
import hashlib
import importlib
import os
import pkgutil
import tempfile
from dataclasses import replace

import numpy as np
import pytest
import scipy.sparse as sp

import orangecontrib.relief as relief
from orangecontrib.relief import compilation, readers
from orangecontrib.relief.compilation import kernel_calls, kernel_mode
from orangecontrib.relief.estimators import encode
from orangecontrib.relief.estimators.encoding import as_covariates
from orangecontrib.relief.estimators.catalogue import ESTIMATORS
from orangecontrib.relief.estimators.description import N_INSTANCES
from orangecontrib.relief.estimators.neighbourhood import neighbours, single_precision
from orangecontrib.relief.estimators.neighbourhood.searches import SEARCHES, search_notices
from orangecontrib.relief.estimators.interactions import scan_pairs

MODES = ("compiled", "numpy")
#: the searches no estimator of the catalogue takes on data in memory: the Dask backend's (its
#: own tests) and "none" (no estimator asks for zero neighbours: k >= 1 is declared; the
#: function ``nearest_neighbours`` with k = 0 takes it, see test_context_search)
ELSEWHERE = {"dask", "none"}
#: instances sampled by the variants that sample them (every form has more)
SAMPLED = 25
#: calls of each kernel recorded per estimator and form for the kernel-twin test
RECORDED_CALLS = 2
#: parameters that repeat the whole estimation a number of times (VLS's random subsets of the
#: attributes), set to a few repeats in every variant: the path is the same whether it runs 4
#: or 40 times, and 40 runs of the base estimator in both modes on every form cost minutes
REPEATS = {"subsets": 4}

# ---------------------------------------------------------------------------------------------
# the data forms

#: name -> (builder, whether every variant runs on it)
FORMS = {}
#: name -> {(module, name): value}: the engine's size thresholds a form lowers while it runs
THRESHOLDS = {}


def form(name, variants=False, thresholds=None):
    """Register a builder of a data form (no arguments, an :class:`.EncodedData`). Every
    estimator's defaults run on every form; its other variants on the forms with
    ``variants`` True (the forms whose columns exercise every diff option: discrete and numeric
    values, missing ones, bit planes; a regression target), or those of its variants whose
    label ``variants`` names (a tuple: a path only those variants take). ``thresholds``
    ({(module, name): value}) are the engine's size thresholds set while the form's cases run."""
    def register(build):
        FORMS[name] = (functools.cache(build), variants)
        THRESHOLDS[name] = thresholds or {}
        return build
    return register


@contextlib.contextmanager
def lowered(name):
    """The size thresholds of form ``name`` set for the duration."""
    saved = {key: getattr(*key) for key in THRESHOLDS[name]}
    try:
        for (module, attribute), value in THRESHOLDS[name].items():
            setattr(module, attribute, value)
        yield
    finally:
        for (module, attribute), value in saved.items():
            setattr(module, attribute, value)


def rng(seed):
    return np.random.default_rng(seed)


def classes(n, k, seed):
    y = np.arange(n) % k
    return rng(seed).permutation(y).astype(float)


@form("numeric")
def numeric():
    X = rng(1).random((60, 6))
    return encode(X, (X[:, 0] + X[:, 1] > 1).astype(float), n_classes=2)


@form("numeric with missing values")
def numeric_missing():
    X = rng(2).random((60, 6))
    y = (X[:, 0] > 0.5).astype(float) + (X[:, 1] > 0.7)
    X[rng(3).random(X.shape) < 0.15] = np.nan
    return encode(X, y, n_classes=3)


@form("discrete")
def discrete():
    X = rng(4).integers(0, 4, (60, 8)).astype(float)
    return encode(X, (X[:, 0] == X[:, 1]).astype(float), discrete=True, n_values=4,
                  n_classes=2)


@form("mixed", variants=True)
def mixed():
    """Discrete and numeric columns with missing values, a constant and an empty column."""
    r = rng(5)
    n = 60
    X = np.column_stack([r.integers(0, 3, n), r.integers(0, 2, n), r.random(n),
                         np.round(r.normal(size=n), 1), np.full(n, 2.0), np.full(n, np.nan)])
    X[r.random(X.shape) < 0.1] = np.nan
    return encode(X, classes(n, 3, 6), discrete=[True, True, False, False, False, False],
                  n_classes=3)


def snp_codes(n=80, a=70, seed=7):
    X = rng(seed).integers(0, 3, (n, a)).astype(float)
    X[n // 2:n // 2 + 5] = X[:5]
    return X, (X[:, 0] != X[:, 1]).astype(float)


@form("SNP codes")
def snps():
    """Codes 0/1/2 in a float array, enough columns to be packed into bit planes."""
    X, y = snp_codes()
    return encode(X, y, discrete=True, n_values=3, n_classes=2)


def plink(missing):
    """Genotypes written by bed-reader's ``to_bed`` and read back as a PLINK file is read."""
    import bed_reader
    X, y = snp_codes(seed=8)
    if missing:
        X[rng(9).random(X.shape) < 0.05] = np.nan
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "genotypes.bed")
        bed_reader.to_bed(path, X.astype(np.float32), properties={"pheno": y + 1})
        return readers.read_plink(path)


@form("PLINK bit planes", variants=True)
def plink_planes():
    return plink(missing=False)


@form("PLINK with missing calls")
def plink_missing():
    return plink(missing=True)


@form("sparse")
def sparse():
    X = sp.random(60, 20, density=0.2, format="csr", random_state=10)
    return encode(X, classes(60, 2, 11), n_classes=2)


@form("regression", variants=True)
def regression():
    X = rng(12).random((60, 5))
    X[rng(13).random(X.shape) < 0.1] = np.nan
    return encode(X, np.nan_to_num(X[:, 0]) * 3 + rng(14).random(60))


@form("instance weights")
def weights():
    data = mixed()
    w = np.where(np.arange(60) % 3 == 0, 2.0, np.where(np.arange(60) % 3 == 1, 0.5, 1.0))
    return encode(data.X, data.y, discrete=data.discrete, n_classes=3, weights=w)


@form("attribute weights", variants=True)
def attribute_weights():
    """The mixed form with weights of its attributes in the distance (Iterative Relief's), one
    of them 0."""
    return mixed().with_attribute_weights([0.5, 2.0, 0.0, 1.5, 1.0, 0.7])


@form("SNP attribute weights", variants=("preset=skrebate",))
def snp_attribute_weights():
    """Genotypes held as bit planes with attribute weights: distances weighed column by
    column (scikit-rebate's weighted distances under its preset)."""
    data = plink_planes()
    return data.with_attribute_weights(rng(19).random(data.n_attributes))


@form("SNP attribute weights, missing calls", variants=("preset=skrebate",))
def snp_attribute_weights_missing():
    """Genotypes with missing calls and attribute weights (scikit-rebate's weighted distances
    with missing values, pair by pair, under its preset)."""
    data = plink_missing()
    return data.with_attribute_weights(rng(23).random(data.n_attributes))


@form("heavy ties")
def ties():
    """Two binary columns and a numeric one on a coarse grid: most distances are tied."""
    r = rng(15)
    X = np.column_stack([r.integers(0, 2, 60), r.integers(0, 2, 60),
                         r.integers(0, 3, 60) / 2.0])
    return encode(X, classes(60, 2, 16), discrete=[True, True, False], n_classes=2)


#: the single-precision search's fewest diff terms while its form runs (N = 200, a = 50)
SINGLE_WORK = 200 * 200 * 50


@form("single precision", thresholds={(single_precision, "MIN_WORK"): SINGLE_WORK})
def single():
    """Every instance sampled, N x N x a = the single-precision search's fewest diff terms."""
    a = 50
    n = int(np.ceil(np.sqrt(SINGLE_WORK / a)))
    X = rng(17).random((n, a))
    return encode(X, (X[:, 0] > 0.5).astype(float), n_classes=2)


@form("numeric covariates")
def numeric_covariates():
    """SNP codes with missing values and a numeric covariate: the estimators that adjust for
    covariates fit over the instances (the per-SNP test's compiled fits)."""
    X, y = snp_codes(seed=20)
    X[rng(21).random(X.shape) < 0.05] = np.nan
    data = encode(X, y, discrete=True, n_values=3, n_classes=2)
    n = X.shape[0]
    return replace(data, covariates=as_covariates(rng(22).normal(size=n), n, names=["age"]))


#: the k-d tree search's fewest instances while its form runs
KD_TREE_INSTANCES = 300


@form("k-d tree", thresholds={(neighbours, "KD_TREE_MIN_INSTANCES"): KD_TREE_INSTANCES})
def kd_tree():
    """The fewest instances and the most attributes of the k-d tree search."""
    X = rng(18).random((KD_TREE_INSTANCES, neighbours.KD_TREE_MAX_ATTRIBUTES))
    return encode(X, (X[:, 0] + X[:, 1] > 1).astype(float), n_classes=2)


# ---------------------------------------------------------------------------------------------
# the estimators and their variants


def variants(cls):
    """(label, keyword arguments) of ``cls``'s variants, from its description: the defaults
    (with a seed where it draws at random without sampling instances), each "choice" or
    "bool" parameter changed alone to each of its other values, and, if it samples
    instances, a sample of :data:`SAMPLED` (with a seed); the parameters of :data:`REPEATS`
    at their few repeats in all of them."""
    names = {p.name for p in cls.parameters}
    # a wrapper that draws at random whatever its other parameters (VLS's subsets) runs with
    # a seed, so that both kernel modes see the same draw
    drawn = "random_state" in names and not any(p.high == N_INSTANCES for p in cls.parameters)
    fewer = {name: value for name, value in REPEATS.items() if name in names}
    out = [("defaults", {**fewer, "random_state": 0} if drawn else dict(fewer))]
    for p in cls.parameters:
        if p.kind == "choice":
            others = [value for value, _ in p.choices if value != p.default]
        elif p.kind == "bool":
            others = [not p.default]
        elif p.kind == "int" and p.high == N_INSTANCES and cls.samples_instances:
            others = [SAMPLED]
        else:
            continue
        for value in others:
            keywords = {**fewer, p.name: value}
            if p.high == N_INSTANCES and "random_state" in names:
                keywords["random_state"] = 0
            out.append((f"{p.name}={value}", keywords))
    return out


class PairScan:
    """The scan of every pair (:func:`.pair_scan.scan_pairs`) as an estimator of the matrix:
    the table of the pairs it keeps (indices, G², p and q)."""

    def __call__(self, data):
        return scan_pairs(data, top=50).table()


#: the computations with kernels of their own beside the catalogue's estimators, each called
#: on the data like an estimator (defaults only)
COMPUTATIONS = [PairScan]

#: (estimator class, variant label, keyword arguments) of every variant of the catalogue
VARIANTS = [(cls, label, keywords) for cls in ESTIMATORS for label, keywords in variants(cls)] \
    + [(cls, "defaults", {}) for cls in COMPUTATIONS]
#: (estimator index in VARIANTS, form name) of every case
CASES = [(v, name) for v, (_, label, _) in enumerate(VARIANTS)
         for name, (_, runs) in FORMS.items()
         if label == "defaults" or runs is True or label in (runs or ())]


def case_id(case):
    v, name = case
    cls, label, _ = VARIANTS[v]
    return f"{cls.__name__}[{label}]-{name}"


# ---------------------------------------------------------------------------------------------
# running a case

#: kernel -> [(case, args)]: the arguments of calls recorded while the cases ran
RECORDED = {}
#: digests of the recorded calls: a call with the same arguments as one recorded (the other
#: kernel mode's, or another estimator's that searches alike) is not recorded again
_SEEN = set()


def _digest(kernel, args):
    """A digest of ``kernel`` and its arguments' values (arrays by dtype, shape and bytes;
    a new object, equal to no other, where an argument is neither an array, a tuple nor a
    scalar)."""
    digest = hashlib.blake2b(kernel.__name__.encode())

    def add(value):
        if isinstance(value, np.ndarray):
            digest.update(f"{value.dtype.str}{value.shape}".encode())
            digest.update(np.ascontiguousarray(value).view(np.uint8).tobytes())
        elif isinstance(value, tuple):
            digest.update(b"(")
            for item in value:
                add(item)
            digest.update(b")")
        elif value is None or isinstance(value, (bool, int, float, str, np.generic)):
            digest.update(repr(value).encode())
        else:                   # a value whose repr may not tell it apart: recorded anyway
            raise TypeError
    try:
        add(args)
    except TypeError:
        return object()
    return digest.digest()


def _recorder(case):
    counts = {}

    def record(kernel, args):
        if counts.get(kernel, 0) < RECORDED_CALLS:
            counts[kernel] = counts.get(kernel, 0) + 1
            key = _digest(kernel, args)
            if key not in _SEEN:
                _SEEN.add(key)
                RECORDED.setdefault(kernel, []).append((case, copy.deepcopy(args)))
    return record


@functools.cache
def outcome(case, mode):
    """(("estimates", array) or ("refused", exception type, message), the searches taken)."""
    v, name = case
    cls, _, keywords = VARIANTS[v]
    data = FORMS[name][0]()
    searches = set()
    with kernel_mode(mode), search_notices(searches.add), kernel_calls(_recorder(case)), \
            lowered(name):
        try:
            result = ("estimates", np.asarray(cls(**keywords)(data), dtype=float))
        except (ValueError, TypeError, MemoryError) as error:
            result = ("refused", type(error), str(error))
    return result, frozenset(searches)


def same(a, b):
    if a[0] != b[0]:
        return False
    if a[0] == "estimates":
        return a[1].shape == b[1].shape and np.array_equal(a[1], b[1], equal_nan=True)
    return a[1:] == b[1:]


@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_both_kernel_modes_give_the_same_estimates_or_refusal(case):
    compiled, numpy = (outcome(case, mode)[0] for mode in MODES)
    assert same(compiled, numpy), (compiled, numpy)


def test_the_forms_take_every_search():
    """The searches the cases took (in the compiled mode, where every search can be chosen)
    are every search of the engine but the Dask backend's."""
    taken = set().union(*(outcome(case, "compiled")[1] for case in CASES))
    assert taken == set(SEARCHES) - ELSEWHERE


def test_every_estimator_gives_estimates_on_some_form():
    """No estimator refuses every form (a matrix of refusals would compare nothing)."""
    estimated = {VARIANTS[v][0] for v, name in CASES
                 if outcome((v, name), "compiled")[0][0] == "estimates"}
    assert estimated == set(ESTIMATORS) | set(COMPUTATIONS)


# ---------------------------------------------------------------------------------------------
# every kernel against its numpy equivalent


def _all_kernels():
    """Every kernel of the package (each module imported but the widgets, which define
    none)."""
    for info in pkgutil.walk_packages(relief.__path__, "orangecontrib.relief."):
        if ".widgets" not in info.name and not info.name.endswith("__main__"):
            importlib.import_module(info.name)
    return list(compilation.KERNELS)


def _arrays(value):
    """The arrays in a kernel's arguments (nested in tuples), in order."""
    if isinstance(value, np.ndarray):
        return [value]
    if isinstance(value, tuple):
        return [a for item in value for a in _arrays(item)]
    return []


def _equal(a, b):
    return a.shape == b.shape and a.dtype == b.dtype and np.array_equal(
        a, b, equal_nan=a.dtype.kind in "fc")


def test_every_kernel_equals_its_numpy_equivalent_on_every_form():
    """Each kernel and its numpy equivalent run on the arguments a kernel received while the
    cases ran (for each form, the first calls of each estimator, each set of arguments
    once): the same outputs (the
    arrays the kernel writes into) and the same result, wherever the numpy equivalent
    applies; an equivalent that declines (``NotImplemented``) has changed nothing. Every
    kernel is exercised by some form."""
    kernels = _all_kernels()
    for case in CASES:
        for mode in MODES:
            outcome(case, mode)
    compared = {kernel: set() for kernel in kernels}
    for kernel in kernels:
        for case, args in RECORDED.get(kernel, []):
            by_numpy, by_kernel = copy.deepcopy(args), copy.deepcopy(args)
            result = kernel.fallback(*by_numpy)
            if result is NotImplemented:
                assert all(map(_equal, _arrays(by_numpy), _arrays(args))), case_id(case)
                continue
            expected = kernel.dispatcher(*by_kernel)
            assert (result is None and expected is None) or np.array_equal(result, expected), \
                (kernel.__name__, case_id(case))
            for a, b in zip(_arrays(by_numpy), _arrays(by_kernel)):
                assert _equal(a, b), (kernel.__name__, case_id(case))
            compared[kernel].add(case[1])
    assert [k.__name__ for k, forms in compared.items() if not forms] == []
