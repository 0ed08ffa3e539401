"""The SWRF family and μ-Relief: agreement with the plain reference (reference_surf.py, written
from the definitions) on every kind of data, hand-computed sigmoid weights, instance weights as
repeated rows, the paper's property (interacting SNPs ranked first), parameters and bad input."""
import numpy as np
import pytest

from orangecontrib.relief.estimators import encode
from orangecontrib.relief.estimators.murelief import MuRelief, extreme_places
from orangecontrib.relief.estimators.surf import sigmoid_strength, NEAR, FAR
from orangecontrib.relief.estimators.swrf import (SWRF, MultiSWRF, MultiSWRFDB, MultiSWRFDBstar,
                                                  MultiSWRFstar, SWRFstar)

from reference_relief import ReferenceData
from reference_surf import surf_family
from test_relief_reference import random_table

TOL = 1e-10
VARIANTS = {"SWRF": SWRF, "SWRF*": SWRFstar, "MultiSWRF": MultiSWRF, "MultiSWRF*": MultiSWRFstar,
            "MultiSWRFDB": MultiSWRFDB, "MultiSWRFDB*": MultiSWRFDBstar, "MuRelief": MuRelief}


def _reference(X, y, discrete, n_values, n_classes, **options):
    return ReferenceData(X.tolist(), y.tolist(), discrete, n_values, n_classes, **options)


def test_sigmoid_hand_computed():
    """w = 2 / (1 + e^(-4 |d - t| / sigma)) - 1: at t 0, one sigma away 2 / (1 + e^-4) - 1 =
    0.96403..., half a sigma 2 / (1 + e^-2) - 1 = 0.76159...; the band's own threshold."""
    d = np.array([[1.0, 2.0, 3.0, 4.0, 5.0]])
    bands = np.array([[NEAR, NEAR, 0, FAR, FAR]], np.int8)
    w = sigmoid_strength(d, bands, np.array([3.0]), np.array([3.0]), np.array([2.0]))
    e = np.exp
    np.testing.assert_allclose(w, [[2 / (1 + e(-4)) - 1, 2 / (1 + e(-2)) - 1, 0,
                                    2 / (1 + e(-2)) - 1, 2 / (1 + e(-4)) - 1]], rtol=1e-14)
    assert abs(w[0, 0] - 0.9640275800758169) < 1e-15


def test_extreme_places_hand_computed():
    """Distances 1, 2, 3, 4, 6 to one class (mean 3.2): |d - mu| = 2.2, 1.2, 0.2, 0.8, 2.8,
    so k = 2 takes the fifth and the first; with the first two tied at 1.2 (d = 2, 4.4) for
    k = 2 the farthest (d = 6, 2.6) and the tie halves."""
    d = np.array([[0.0, 1.0, 2.0, 3.0, 4.0, 6.0]])
    groups = np.zeros(6, np.intp)
    places = extreme_places(d, np.array([0]), groups, np.ones(6), 2)
    np.testing.assert_allclose(places, [[0, 1, 0, 0, 0, 1]])
    d = np.array([[0.0, 2.0, 4.4, 3.2, 3.2, 6.0]])     # mean 3.76: 1.76, 0.64, 0.56, 0.56, 2.24
    places = extreme_places(d, np.array([0]), groups, np.ones(6), 3)
    np.testing.assert_allclose(places, [[0, 1, 1, 0, 0, 1]])
    places = extreme_places(d, np.array([0]), groups, np.ones(6), 4)
    np.testing.assert_allclose(places, [[0, 1, 1, 0.5, 0.5, 1]])


@pytest.mark.parametrize("variant", list(VARIANTS))
@pytest.mark.parametrize("n_classes", [2, 3, 0])
@pytest.mark.parametrize("missing", ["D", "C"])
def test_matches_reference(variant, n_classes, missing):
    """Mixed attributes with 12 % missing values, two or three classes or a numeric target."""
    X, y, discrete, n_values = random_table(11 + n_classes, 36, n_classes)
    data = encode(X, y, discrete=discrete, n_values=n_values, n_classes=n_classes)
    est = VARIANTS[variant](missing=missing)
    ref = surf_family(_reference(X, y, discrete, n_values, n_classes, missing=missing), variant,
                      k=10)
    np.testing.assert_allclose(est(data), ref, atol=TOL, rtol=0)


@pytest.mark.parametrize("variant", ["SWRF*", "MultiSWRFDB", "MuRelief"])
def test_matches_reference_with_options(variant):
    """Ramp diff, Euclidean distance, RELIEF-B, k = 4 and sampled iterations."""
    X, y, discrete, n_values = random_table(5, 32, 2)
    options = dict(numeric_diff="ramp", t_equal=0.05, t_different=0.3, missing="B",
                   distance="euclidean")
    extra = dict(k=4) if variant == "MuRelief" else {}
    est = VARIANTS[variant](iterations=20, random_state=3, **options, **extra)
    data = encode(X, y, discrete=discrete, n_values=n_values, n_classes=2)
    rows = est.sample(data.n_instances)
    ref = surf_family(_reference(X, y, discrete, n_values, 2, **options), variant, rows, k=4)
    np.testing.assert_allclose(est(data), ref, atol=TOL, rtol=0)


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_snps_match_reference(variant):
    """SNPs (three values, no missing ones; the bit planes' path) and three classes."""
    rng = np.random.default_rng(4)
    X = rng.integers(0, 3, (40, 6)).astype(float)
    y = (X[:, 0] + X[:, 1] + rng.integers(0, 2, 40)) % 3
    data = encode(X, y, discrete=True, n_classes=3)
    ref = surf_family(_reference(X, y, [True] * 6, [3] * 6, 3), variant, k=3)
    kwargs = dict(k=3) if variant == "MuRelief" else {}
    np.testing.assert_allclose(VARIANTS[variant](**kwargs)(data), ref, atol=TOL, rtol=0)


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_integer_weights_are_repeated_rows(variant):
    """Instance weights 1, 2 or 3 give the estimates of the data with each row repeated."""
    rng = np.random.default_rng(7)
    X = rng.integers(0, 3, (24, 5)).astype(float)
    X[:, 4] = rng.normal(size=24)
    y = (X[:, 0] + X[:, 1]) % 2
    w = rng.integers(1, 4, 24)
    discrete = [True] * 4 + [False]
    weighted = encode(X, y, discrete=discrete, n_classes=2, weights=w.astype(float))
    repeated = encode(np.repeat(X, w, axis=0), np.repeat(y, w), discrete=discrete, n_classes=2)
    kwargs = dict(k=5) if variant == "MuRelief" else {}
    np.testing.assert_allclose(VARIANTS[variant](**kwargs)(weighted),
                               VARIANTS[variant](**kwargs)(repeated), atol=1e-12, rtol=0)


@pytest.mark.parametrize("cls", [SWRF, MultiSWRF, MultiSWRFDB])
def test_interacting_snps_rank_first(cls):
    """A two-way interaction (XOR of two SNPs) among eight noise SNPs: the pair first."""
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, (300, 10)).astype(float)
    data = encode(X, (X[:, 0] + X[:, 1]) % 2, discrete=True, n_classes=2)
    assert set(np.argsort(cls()(data))[-2:]) == {0, 1}


def test_murelief_ranks_main_effects_first():
    """Two SNPs that each shift the class (a main effect, 80 % and 70 % agreement) among eight
    noise SNPs: μ-Relief ranks them first, the stronger first."""
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 300)
    X = rng.integers(0, 2, (300, 10)).astype(float)
    X[:, 0] = np.where(rng.random(300) < 0.8, y, 1 - y)
    X[:, 1] = np.where(rng.random(300) < 0.7, y, 1 - y)
    scores = MuRelief()(encode(X, y, discrete=True, n_classes=2))
    assert list(np.argsort(scores)[::-1][:2]) == [0, 1]


def test_random_state_and_columns():
    X, y, discrete, n_values = random_table(3, 40, 2)
    data = encode(X, y, discrete=discrete, n_values=n_values, n_classes=2)
    for cls in (SWRFstar, MuRelief):
        a = cls(iterations=15, random_state=5)(data)
        np.testing.assert_array_equal(a, cls(iterations=15, random_state=5)(data))
        est = cls()
        context = est.context(data)
        np.testing.assert_array_equal(est.estimate(context, data.columns([1, 3])),
                                      est.estimate(context)[[1, 3]])


def test_bad_parameters():
    X, y, discrete, n_values = random_table(3, 20, 2)
    data = encode(X, y, discrete=discrete, n_values=n_values, n_classes=2)
    with pytest.raises(ValueError, match="k must be None or an integer >= 1"):
        MuRelief(k=0)(data)
    with pytest.raises(ValueError, match="iterations"):
        SWRF(iterations=0)(data)
    with pytest.raises(TypeError):
        SWRF(k=3)
