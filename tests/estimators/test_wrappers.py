"""VLS and Iterative Relief, and the attribute weights in the distance that Iterative Relief
needs. Expected values come from the plain references of the papers' definitions
(``reference_relief``, ``reference_surf``: Python loops, a weighted distance written here as a
loop over the attributes), from a plain loop of the wrappers' definitions over those, and from
scikit-rebate 0.8.4's numbers stored in ``tests/data/skrebate/wrappers.scores.csv``."""
import csv
import math
import os
from dataclasses import replace

import numpy as np
import pytest
import scipy.sparse as sp

from reference_relief import ReferenceData, relieff
from reference_surf import surf_family

from orangecontrib.relief.compilation import kernel_mode
from orangecontrib.relief.estimators import encode
from orangecontrib.relief.estimators.contextual_merit import ContextualMerit
from orangecontrib.relief.estimators.impurity import InfGain
from orangecontrib.relief.estimators.iterative import Iter, relief_weights
from orangecontrib.relief.estimators.multiscale import MultiScaleRelief
from orangecontrib.relief.estimators.neighbourhood.packed import PackedColumns, pack_planes
from orangecontrib.relief.estimators.neighbourhood.searches import search_notices
from orangecontrib.relief.estimators.relieff import ReliefF
from orangecontrib.relief.estimators.rrelieff import RReliefF
from orangecontrib.relief.estimators.surf import SURF, MultiSURF
from orangecontrib.relief.estimators.turf import TuRF
from orangecontrib.relief.estimators.vls import VLS, subset_maximum, vls_subsets

MODES = ("compiled", "numpy")
SKREBATE = os.path.join(os.path.dirname(__file__), os.pardir, "data", "skrebate")


class WeightedReference(ReferenceData):
    """The reference data whose distance weighs each attribute's diff: sum_t w_t diff_t."""

    def __init__(self, *args, weights, **kwargs):
        super().__init__(*args, **kwargs)
        self.w = [float(v) for v in weights]

    def _distance(self, i, j):
        s = 0.0
        for t in range(self.a):
            if self.w[t]:
                d = self.diff(t, i, j, current=i, in_distance=True)
                s += self.w[t] * (d * d if self.distance_kind == "euclidean" else d)
        return math.sqrt(s) if self.distance_kind == "euclidean" else s


def mixed(seed=0, n=45):
    """Two discrete and three numeric attributes with missing values, three classes."""
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.integers(0, 3, n), rng.integers(0, 2, n), rng.random((n, 3))])
    X[rng.random(X.shape) < 0.1] = np.nan
    y = np.arange(n) % 3
    disc = [True, True, False, False, False]
    return X, y.astype(float), disc, [3, 2, 0, 0, 0]


def snps(n=60, a=70, seed=1):
    """SNP codes 0/1/2, the class a XOR of the first two (enough columns for bit planes)."""
    X = np.random.default_rng(seed).integers(0, 3, (n, a)).astype(float)
    return X, ((X[:, 0] > 0) != (X[:, 1] > 0)).astype(float)


def reference(X, y, disc, nv, n_classes, weights):
    return WeightedReference(X.tolist(), y.tolist(), disc, nv, n_classes, weights=weights)


# ---------------------------------------------------------------------------------------------
# attribute weights in the distance


@pytest.mark.parametrize("mode", MODES)
def test_weighted_multisurf_equals_the_reference_on_mixed_data_with_missing_values(mode):
    X, y, disc, nv = mixed()
    w = [0.5, 0.0, 1.3, 0.2, 1.0]
    data = encode(X, y, discrete=disc, n_values=nv, n_classes=3).with_attribute_weights(w)
    with kernel_mode(mode):
        got = MultiSURF()(data)
    expected = surf_family(reference(X, y, disc, nv, 3, w), "MultiSURF")
    np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-12)
    plain = surf_family(reference(X, y, disc, nv, 3, [1.0] * 5), "MultiSURF")
    assert not np.allclose(got, plain)          # the weights changed the bands


@pytest.mark.parametrize("mode", MODES)
def test_weighted_relieff_equals_the_reference_on_numeric_data(mode):
    rng = np.random.default_rng(2)
    X = rng.random((40, 4))
    y = (X[:, 0] > 0.5).astype(float)
    w = [2.0, 0.1, 0.0, 0.7]
    data = encode(X, y, n_classes=2).with_attribute_weights(w)
    with kernel_mode(mode):
        got = ReliefF(k=5)(data)
    expected = relieff(reference(X, y, [False] * 4, [0] * 4, 2, w), k=5)
    np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-12)


def test_weighted_snps_are_searched_attribute_by_attribute_and_equal_the_reference():
    """SNP codes that would be packed into bit planes, and the same data held only as planes:
    the weighted search is the tiled kernel's (not a mismatch count), with the reference's
    estimates; the planes give the same numbers as the codes."""
    X, y = snps()
    w = np.random.default_rng(3).random(X.shape[1])
    w[5:40] = 0.0
    data = encode(X, y, discrete=True, n_values=3, n_classes=2)
    planes = replace(data, X=PackedColumns(pack_planes(X, np.arange(X.shape[1])), X.shape[1]))
    seen = []
    with search_notices(seen.append):
        plain = MultiSURF()(planes)
        dense = MultiSURF()(data.with_attribute_weights(w))
        packed = MultiSURF()(planes.with_attribute_weights(w))
    assert seen == ["packed SNP", "double precision", "double precision"]
    np.testing.assert_array_equal(dense, packed)
    expected = surf_family(reference(X, y, [True] * X.shape[1], [3] * X.shape[1], 2, w),
                           "MultiSURF")
    np.testing.assert_allclose(packed, expected, rtol=1e-9, atol=1e-12)
    assert not np.allclose(plain, packed)


def test_unit_weights_are_no_weights_and_bad_weights_are_refused():
    X, y, disc, nv = mixed()
    data = encode(X, y, discrete=disc, n_values=nv, n_classes=3)
    assert data.with_attribute_weights(np.ones(5)).attribute_weights is None
    np.testing.assert_array_equal(MultiSURF()(data.with_attribute_weights([2.0] * 5)),
                                  MultiSURF()(data))       # a common factor changes no band
    for bad, message in (([1.0] * 4, "4 attribute weights for 5"),
                         ([1, -1, 1, 1, 1], "finite and >= 0"),
                         ([1, np.nan, 1, 1, 1], "finite and >= 0"),
                         ([0.0] * 5, "not all be 0")):
        with pytest.raises(ValueError, match=message):
            data.with_attribute_weights(bad)
    weighted = data.with_attribute_weights([1, 2, 3, 4, 5])
    np.testing.assert_array_equal(weighted.columns([4, 0]).attribute_weights, [5.0, 1.0])
    with pytest.raises(ValueError, match="does not take attribute weights"):
        InfGain()(weighted)
    with pytest.raises(ValueError, match="preset='corelearn' does not take attribute weights"):
        ReliefF(preset="corelearn")(weighted)
    sparse = encode(sp.random(30, 4, density=0.5, format="csr", random_state=0),
                    np.arange(30) % 2, n_classes=2).with_attribute_weights([1, 2, 3, 4])
    with pytest.raises(ValueError, match="not available for sparse data"):
        ReliefF()(sparse)


# ---------------------------------------------------------------------------------------------
# Iterative Relief


def iterative_reference(X, y, disc, nv, n_classes, max_iter, threshold=1e-4, beta=0.1):
    """Iterative Relief around MultiSURF written from its definition with the reference."""
    w, previous, estimates = [1.0] * X.shape[1], None, None
    for r in range(max_iter):
        estimates = surf_family(reference(X, y, disc, nv, n_classes, w), "MultiSURF")
        if previous is not None and max(abs(a - b) for a, b in zip(estimates, previous)) \
                < threshold:
            break
        positive = [max(e, 0.0) if e == e else 0.0 for e in estimates]
        top = max(positive)
        if top <= 0:
            break
        u = [p / top for p in positive]
        w = u if r == 0 else [old + beta * (new - old) for old, new in zip(w, u)]
        previous = estimates
    return estimates


@pytest.mark.parametrize("mode", MODES)
def test_iter_equals_its_plain_reference(mode):
    X, y = snps(n=40, a=6, seed=4)
    disc, nv = [True] * 6, [3] * 6
    data = encode(X, y, discrete=True, n_values=3, n_classes=2)
    with kernel_mode(mode):
        context = Iter(max_iter=4).context(data)
    expected = iterative_reference(X, y, disc, nv, 2, max_iter=4)
    np.testing.assert_allclose(Iter().estimate(context), expected, rtol=1e-9, atol=1e-12)
    assert context.rounds == 4 and context.weights is not None


def test_iter_stops_when_the_estimates_converge():
    X, y, disc, nv = mixed(seed=5)
    data = encode(X, y, discrete=disc, n_values=nv, n_classes=3)
    context = Iter(threshold=1.0).context(data)   # no estimate moves by 1: two rounds
    assert context.rounds == 2
    expected = iterative_reference(X, y, disc, nv, 3, max_iter=10, threshold=1.0)
    np.testing.assert_allclose(context.estimates, expected, rtol=1e-9, atol=1e-12)


def test_relief_weights():
    np.testing.assert_array_equal(relief_weights(np.array([0.2, -0.1, np.nan, 0.4])),
                                  [0.5, 0.0, 0.0, 1.0])
    np.testing.assert_array_equal(relief_weights(np.array([-0.2, 0.0])), [0.0, 0.0])


def skrebate_lines():
    with open(os.path.join(SKREBATE, "wrappers.scores.csv")) as f:
        return list(csv.reader(f))


def skrebate_binary():
    with open(os.path.join(SKREBATE, "binary.csv")) as f:
        values = np.array(list(csv.reader(f))[1:], dtype=float)
    return encode(values[:, :-1], values[:, -1], discrete=True, n_values=3, n_classes=2)


@pytest.mark.parametrize("name, base", [("MultiSURF", MultiSURF()),
                                        ("SURF", SURF(preset="skrebate"))])
def test_iter_reproduces_skrebate_on_snps(name, base):
    """scikit-rebate 0.8.4's Iter (ten rounds at most, threshold 1e-4) stops when a round's
    estimates come within the threshold of the previous round's weights u, not of its
    estimates: with a base estimator under preset="skrebate" ours does the same. Our MultiSURF
    finds its bands as scikit-rebate's on SNPs; its SURF's radius, the mean distance, counts
    each instance's distance 0 to itself, which only the preset reproduces."""
    expected = next(np.array(line[1:], dtype=float) for line in skrebate_lines()
                    if line[0] == f"Iter({name})")
    got = Iter(base, threshold=0 if base.preset != "skrebate" else 1e-4)(skrebate_binary())
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-8)


def test_iter_repeats_with_its_seed_and_refuses_what_cannot_weigh():
    X, y, disc, nv = mixed(seed=6, n=60)
    data = encode(X, y, discrete=disc, n_values=nv, n_classes=3)
    sampled = Iter(ReliefF(iterations=20), max_iter=3, random_state=5)
    np.testing.assert_array_equal(sampled(data), sampled(data))
    assert not np.array_equal(sampled(data),
                              Iter(ReliefF(iterations=20), max_iter=3, random_state=6)(data))
    for base in (InfGain(), ContextualMerit(), Iter()):
        with pytest.raises(ValueError, match=f"Iterative Relief needs .*{base.name} has none"):
            Iter(base)(data)
    with pytest.raises(ValueError, match="Iterative Relief does not take attribute weights"):
        Iter()(data.with_attribute_weights([1, 2, 1, 1, 1]))
    with pytest.raises(ValueError, match="does not take attribute weights"):
        Iter(VLS(InfGain(), subsets=3))(data)     # the wrapper passes them on; InfGain refuses


# ---------------------------------------------------------------------------------------------
# VLS


def test_vls_subsets_cover_every_attribute():
    rng = np.random.default_rng(0)
    subsets = vls_subsets(23, 9, 4, rng)
    assert len(subsets) == 9 and all(s.size == 4 == np.unique(s).size for s in subsets)
    assert set(np.concatenate(subsets)) == set(range(23))
    with pytest.raises(ValueError, match="cover the 23 attributes, got 5 subsets of 4"):
        vls_subsets(23, 5, 4, rng)
    assert [s.size for s in vls_subsets(3, 2, 5, rng)] == [3, 3]      # size capped


@pytest.mark.parametrize("mode", MODES)
def test_vls_equals_the_best_of_the_references_over_its_subsets(mode):
    rng = np.random.default_rng(7)
    X = rng.random((30, 7))
    y = ((X[:, 0] > 0.5) != (X[:, 1] > 0.5)).astype(float)
    data = encode(X, y, n_classes=2)
    with kernel_mode(mode):
        context = VLS(ReliefF(k=4), subsets=5, size=3, random_state=1).context(data)
    best = np.full(7, -np.inf)
    for subset in context.subsets:
        ref = ReferenceData(X[:, subset].tolist(), y.tolist(), [False] * 3, [0] * 3, 2)
        best[subset] = np.maximum(best[subset], relieff(ref, k=4))
    np.testing.assert_allclose(VLS().estimate(context), best, rtol=1e-9, atol=1e-12)


def test_vls_reproduces_skrebate_on_its_subsets():
    lines = skrebate_lines()
    subsets = [np.array(line[1:], dtype=np.intp) for line in lines if line[0] == "subset"]
    expected = next(np.array(line[1:], dtype=float) for line in lines
                    if line[0] == "VLS(MultiSURF)")
    got, _ = subset_maximum(MultiSURF(), skrebate_binary(), subsets)
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-8)


def test_vls_repeats_with_its_seed():
    X, y, disc, nv = mixed(seed=8, n=40)
    data = encode(X, y, discrete=disc, n_values=nv, n_classes=3)
    a, b, c = (VLS(subsets=4, size=2, random_state=s).context(data) for s in (3, 3, 4))
    assert all(np.array_equal(s, t) for s, t in zip(a.subsets, b.subsets))
    np.testing.assert_array_equal(a.estimates, b.estimates)
    assert not all(np.array_equal(s, t) for s, t in zip(a.subsets, c.subsets))
    assert VLS().size_(1000) == 50 and VLS(subsets=4).size_(3) == 3
    with pytest.raises(ValueError, match="VLS estimates only the attributes of its data"):
        VLS().estimate(a, data)


def test_the_wrappers_wrap_any_estimator():
    X, y, disc, nv = mixed(seed=9, n=48)
    data = encode(X, y, discrete=disc, n_values=nv, n_classes=3)
    regression = encode(X[:, 2:], np.nan_to_num(X[:, 2]) + np.arange(48) / 48)
    for estimator, on in ((VLS(InfGain(), subsets=3), data),
                          (VLS(ContextualMerit(), subsets=3), data),
                          (VLS(TuRF(ReliefF(k=5)), subsets=3, size=3, random_state=0), data),
                          (VLS(Iter(max_iter=2), subsets=3, random_state=0), data),
                          (Iter(TuRF(MultiSURF()), max_iter=3), data),
                          (Iter(VLS(ReliefF(k=5), subsets=3, random_state=0), max_iter=3), data),
                          (Iter(MultiScaleRelief(), max_iter=2), data),
                          (Iter(RReliefF(k=5), max_iter=3), regression)):
        result = estimator(on)
        assert result.shape == (on.n_attributes,), estimator
        assert np.isfinite(result[[0, 2, 3, 4] if on is data else [0, 1, 2]]).all(), estimator
    # VLS around an impurity measure: each attribute's best is its own (it is alone in
    # its scores): the measure itself
    np.testing.assert_allclose(VLS(InfGain(), subsets=3, random_state=0)(data), InfGain()(data))


def test_the_wrappers_cancel_from_the_callback():
    X, y = snps(n=40, a=10, seed=10)
    data = encode(X, y, discrete=True, n_values=3, n_classes=2)

    def cancel(fraction):
        if fraction > 0.3:
            raise KeyboardInterrupt
    for estimator in (VLS(random_state=0), Iter()):
        with pytest.raises(KeyboardInterrupt):
            estimator(data, callback=cancel)
