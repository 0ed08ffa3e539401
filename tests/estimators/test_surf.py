"""SURF, SURF*, MultiSURF, MultiSURF* and TuRF: hand-computed tables, agreement with the plain
reference (reference_surf.py) to 1e-10, properties, parameters and bad input."""
import numpy as np
import pytest

from orangecontrib.relief.estimators import encode
from orangecontrib.relief.estimators import base, surf as surf_module
from orangecontrib.relief.estimators.multiscale import MultiScaleRelief, standardise
from orangecontrib.relief.estimators.relieff import ReliefF
from orangecontrib.relief.estimators.rrelieff import RReliefF
from orangecontrib.relief.estimators.surf import SURF, SURFstar, MultiSURF, MultiSURFstar
from orangecontrib.relief.estimators.turf import TuRF

from reference_relief import ReferenceData
from reference_surf import surf_family
from test_relief_reference import random_table

TOL = 1e-10
VARIANTS = {"SURF": SURF, "SURF*": SURFstar, "MultiSURF": MultiSURF, "MultiSURF*": MultiSURFstar}


def square():
    """Four instances at the corners of the unit square, the class = the first attribute."""
    X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]], float)
    return encode(X, [0, 0, 1, 1], discrete=True, n_classes=2)


def test_hand_computed_square():
    """Every instance's distances to the others are 1, 1, 2 (mean 4/3, sd sqrt(2)/3): the near
    band (below 4/3, and below 4/3 - sqrt(2)/6) holds the hit that differs in the second
    attribute and the miss that differs in the first: W = [1, -1]. The far band (above 4/3, and
    above 4/3 + sqrt(2)/6) holds the opposite corner, a miss differing in both, scored with
    the opposite sign: W* = [1, -1] - [1, 1] = [0, -2]."""
    data = square()
    np.testing.assert_allclose(SURF()(data), [1, -1], atol=TOL)
    np.testing.assert_allclose(MultiSURF()(data), [1, -1], atol=TOL)
    np.testing.assert_allclose(SURFstar()(data), [0, -2], atol=TOL)
    np.testing.assert_allclose(MultiSURFstar()(data), [0, -2], atol=TOL)


def test_hand_computed_bands():
    """The context's bands of the square: near = the two corners at distance 1, far = the
    opposite corner (starred variants); an instance is never in its own bands."""
    data = square()
    context = MultiSURFstar().context(data)
    near = context.bands == surf_module.NEAR
    far = context.bands == surf_module.FAR
    np.testing.assert_array_equal(near.sum(axis=1), [2, 2, 2, 2])
    np.testing.assert_array_equal(np.flatnonzero(far[0]), [3])
    assert not context.bands[np.arange(4), np.arange(4)].any()
    np.testing.assert_allclose(context.near, 4 / 3 - np.sqrt(2) / 6)
    np.testing.assert_allclose(context.far, 4 / 3 + np.sqrt(2) / 6)


def _reference(X, y, discrete, n_values, n_classes, **options):
    return ReferenceData(X.tolist(), y.tolist(), discrete, n_values, n_classes, **options)


@pytest.mark.parametrize("variant", list(VARIANTS))
@pytest.mark.parametrize("n_classes", [2, 3, 0])
@pytest.mark.parametrize("missing", ["D", "C"])
def test_matches_reference(variant, n_classes, missing):
    """Mixed attributes with 12 % missing values, two or three classes or a numeric target."""
    X, y, discrete, n_values = random_table(11 + n_classes, 36, n_classes)
    data = encode(X, y, discrete=discrete, n_values=n_values, n_classes=n_classes)
    ours = VARIANTS[variant](missing=missing)(data)
    ref = surf_family(_reference(X, y, discrete, n_values, n_classes, missing=missing), variant)
    np.testing.assert_allclose(ours, ref, atol=TOL, rtol=0)


@pytest.mark.parametrize("variant", ["SURF", "MultiSURF*"])
def test_matches_reference_with_options(variant):
    """Ramp diff, Euclidean distance, RELIEF-B and sampled iterations (the reference replays the
    sampled rows)."""
    X, y, discrete, n_values = random_table(5, 32, 2)
    options = dict(numeric_diff="ramp", t_equal=0.05, t_different=0.3, missing="B",
                   distance="euclidean")
    est = VARIANTS[variant](iterations=20, random_state=3, **options)
    data = encode(X, y, discrete=discrete, n_values=n_values, n_classes=2)
    rows = est.sample(data.n_instances)
    ref = surf_family(_reference(X, y, discrete, n_values, 2, **options), variant, rows)
    np.testing.assert_allclose(est(data), ref, atol=TOL, rtol=0)


def test_discrete_without_missing_values_matches_reference():
    """All attributes discrete and known: the compiled band sums alone (no pair diffs)."""
    rng = np.random.default_rng(4)
    X = rng.integers(0, 3, (40, 6)).astype(float)
    y = (X[:, 0] + X[:, 1] + rng.integers(0, 2, 40)) % 3
    data = encode(X, y, discrete=True, n_classes=3)
    for variant, cls in VARIANTS.items():
        ref = surf_family(_reference(X, y, [True] * 6, [3] * 6, 3), variant)
        np.testing.assert_allclose(cls()(data), ref, atol=TOL, rtol=0)


def xor_data(n=600, noise=8, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, (n, 2 + noise)).astype(float)
    return encode(X, (X[:, 0] + X[:, 1]) % 2, discrete=True, n_classes=2)


@pytest.mark.parametrize("cls", [SURF, MultiSURF, MultiSURFstar, TuRF])
def test_parity_attributes_rank_first(cls):
    """XOR of two bits among eight random ones: the two parity bits get the two highest
    estimates (the non-myopic property)."""
    w = cls()(xor_data())
    assert set(np.argsort(-w)[:2]) == {0, 1}


def test_columns_against_the_context():
    """estimate(context, columns) of the context's own data equals the estimate, and of a
    subset of the columns their estimates."""
    X, y, discrete, n_values = random_table(2, 40, 2)
    data = encode(X, y, discrete=discrete, n_values=n_values, n_classes=2)
    est = MultiSURFstar()
    context = est.context(data)
    full = est.estimate(context)
    np.testing.assert_allclose(est.estimate(context, data), full, atol=1e-12)
    np.testing.assert_allclose(est.estimate(context, data.columns([4, 0])), full[[4, 0]],
                               atol=1e-12)


def test_iterations_repeat_with_random_state():
    X, y, discrete, n_values = random_table(3, 50, 2)
    data = encode(X, y, discrete=discrete, n_values=n_values, n_classes=2)
    a = MultiSURF(iterations=20, random_state=7)(data)
    np.testing.assert_array_equal(a, MultiSURF(iterations=20, random_state=7)(data))
    assert not np.allclose(a, MultiSURF(iterations=20, random_state=8)(data))


def test_callback_progress_and_cancel():
    data = xor_data(300)
    seen = []
    MultiSURF()(data, seen.append)
    assert seen[-1] == 1.0 and all(0 <= f <= 1 for f in seen)
    assert np.all(np.diff(seen) >= 0)

    def cancel(fraction):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        SURF()(data, cancel)
    with pytest.raises(KeyboardInterrupt):
        TuRF()(data, cancel)


def test_constant_and_all_missing_attributes():
    """A constant attribute scores 0, an attribute with no known value NaN; the others are
    finite."""
    X, y, discrete, n_values = random_table(8, 30, 2)
    X[:, 1] = 0.5
    X[:, 2] = np.nan
    data = encode(X, y, discrete=discrete, n_values=n_values, n_classes=2)
    for cls in VARIANTS.values():
        w = cls()(data)
        assert w[1] == 0 and np.isnan(w[2]) and np.isfinite(np.delete(w, 2)).all()


@pytest.mark.parametrize("cls", [SURF, MultiSURFstar, TuRF])
def test_bad_input(cls):
    X = np.random.default_rng(0).random((10, 3))
    with pytest.raises(ValueError, match="two classes"):
        cls()(encode(X, np.zeros(10), n_classes=2))
    with pytest.raises(ValueError, match="at least 2 instances"):
        cls()(encode(X[:1], [0], n_classes=2))
    with pytest.raises(ValueError, match="no attributes"):
        cls()(encode(X[:, :0], np.arange(10) % 2, n_classes=2))
    with pytest.raises(ValueError, match="constant"):
        cls()(encode(X, np.ones(10)))


def test_bad_parameters():
    data = xor_data(50)
    with pytest.raises(ValueError, match="iterations"):
        MultiSURF(iterations=0)(data)
    with pytest.raises(ValueError, match="missing"):
        SURF(missing="X")(data)
    with pytest.raises(ValueError, match="remove"):
        TuRF(remove=1.5)(data)
    with pytest.raises(ValueError, match="rounds"):
        TuRF(rounds=-1)(data)
    with pytest.raises(ValueError, match="estimator"):
        TuRF(estimator="MultiSURF")(data)
    with pytest.raises(ValueError, match="regression"):
        TuRF(estimator=ReliefF())(encode(np.random.default_rng(0).random((20, 3)),
                                         np.arange(20.0)))


def test_too_many_bands_refused(monkeypatch):
    """The bands of m sampled instances among N take m N bytes, and as much beside them: beyond
    the available memory the estimator refuses before allocating and names the largest
    iterations that fits."""
    data = xor_data(100)
    available = 2 * 100 * 60            # bytes: the bands of 60 sampled instances
    monkeypatch.setattr(surf_module, "available_memory", lambda: available)
    monkeypatch.setattr(base, "available_memory", lambda: available)
    with pytest.raises(ValueError, match="iterations to at most 60"):
        MultiSURF()(data)
    assert np.isfinite(MultiSURF(iterations=60, random_state=0)(data)).all()


def test_turf_removes_worst_and_keeps_order():
    """Each round removes the worst tenth; removed attributes rank below the survivors, the
    earlier removed below the later, and the survivors keep the last round's estimates."""
    data = xor_data(400, noise=18)
    est = TuRF(remove=0.25, rounds=3)
    context = est.context(data)
    assert [r[0].size for r in context.removed] == [5, 3, 3]
    assert context.survivors.size == 9 and {0, 1} <= set(context.survivors)
    w = est.estimate(context)
    np.testing.assert_allclose(w[context.survivors], MultiSURF()(data.columns(context.survivors)))
    floor = w[context.survivors].min()
    for attributes, estimates in reversed(context.removed):
        assert w[attributes].max() < floor
        np.testing.assert_allclose(np.diff(w[attributes]), np.diff(estimates))
        floor = w[attributes].min()


def test_turf_keep_and_base_estimator():
    data = xor_data(300, noise=6)
    est = TuRF(estimator=ReliefF(k=10), remove=0.5, keep=3)
    context = est.context(data)
    assert context.survivors.size == 3
    np.testing.assert_allclose(est.estimate(context, data.columns([0, 1])),
                               ReliefF(k=10).estimate(context.base, data.columns([0, 1])))


def test_standardise_hand_computed():
    """median 3, MAD 2 (deviations 2, 1, 0, 2, 3): (W - 3) / (2 * 1.4826); NaN stays NaN;
    equal estimates (MAD and mean deviation 0) standardise to 0."""
    w = np.array([1.0, 2.0, 3.0, 5.0, 6.0, np.nan])
    np.testing.assert_allclose(standardise(w), np.append((w[:5] - 3) / 2.9652, np.nan))
    np.testing.assert_allclose(standardise([0.5, 0.5, np.nan]), [0, 0, np.nan])
    # MAD 0 but not all equal: the mean absolute deviation (0 + 0 + 0 + 4) / 4 = 1
    np.testing.assert_allclose(standardise([1.0, 1.0, 1.0, 5.0]), [0, 0, 0, 4])


def test_multiscale_is_the_largest_standardised_estimate():
    """By default the larger of the standardised MultiSURF estimate and the standardised TuRF
    ranking of one round around ReliefF with k = 10 (RReliefF for a numeric target) that
    removes the worse half: of the 7 attributes the 3 worst by ReliefF go and the 4 others are
    rescored on their own columns, the removed ones below them."""
    for n_classes, local in ((2, ReliefF(k=10)), (0, RReliefF(k=10, weighting="equal"))):
        X, y, discrete, n_values = random_table(6, 40, n_classes)
        data = encode(X, y, discrete=discrete, n_values=n_values, n_classes=n_classes)
        survivors = np.sort(np.argsort(local(data), kind="stable")[3:])
        removed = np.setdiff1d(np.arange(7), survivors)
        turf = TuRF(local, remove=0.5, rounds=1)(data)
        np.testing.assert_allclose(turf[survivors], local(data.columns(survivors)), atol=1e-12)
        assert turf[removed].max() < turf[survivors].min()
        want = np.maximum(standardise(MultiSURF()(data)), standardise(turf))
        np.testing.assert_allclose(MultiScaleRelief()(data), want, atol=1e-12)
    with pytest.raises(ValueError, match="estimators"):
        MultiScaleRelief(estimators=[])(data)


def test_multiscale_finds_five_way_parity():
    """The class is the parity of 5 of 16 random bits, 800 instances. ReliefF (k = 10) ranks
    the parity bits first but only just; MultiSURF does not find them, and in the maximum its
    noise bits' upper tail competes with them: the maximum of the standardised ReliefF and
    MultiSURF estimates does not rank them first on this sample (nor on 3 other samples of
    the seeds 0-7). One TuRF round sharpens ReliefF's evidence enough to clear that tail (on
    all 8)."""
    rng = np.random.default_rng(1)
    X = rng.integers(0, 2, (800, 16)).astype(float)
    y = X[:, :5].sum(axis=1) % 2
    data = encode(X, y, discrete=True, n_classes=2)
    parity = {0, 1, 2, 3, 4}
    assert set(np.argsort(-ReliefF(k=10)(data))[:5]) == parity
    without_turf = MultiScaleRelief([ReliefF(k=10), MultiSURF()])(data)
    assert set(np.argsort(-without_turf)[:5]) != parity
    assert set(np.argsort(-MultiScaleRelief()(data))[:5]) == parity


def test_multiscale_finds_four_way_parity_and_a_heterogeneous_mixture():
    """4-way XOR among 16 random bits (found by ReliefF's small neighbourhoods) and a mixture of
    two 2-way XORs, one for three quarters of the instances (found by MultiSURF): the
    MultiScale estimate puts the informative bits first in both."""
    rng = np.random.default_rng(1)
    X = rng.integers(0, 2, (1200, 20)).astype(float)
    y = X[:, :4].sum(axis=1) % 2
    w = MultiScaleRelief()(encode(X, y, discrete=True, n_classes=2))
    assert set(np.argsort(-w)[:4]) == {0, 1, 2, 3}
    X = rng.integers(0, 2, (1200, 20)).astype(float)
    first = rng.random(1200) < 0.75
    y = np.where(first, (X[:, 0] + X[:, 1]) % 2, (X[:, 2] + X[:, 3]) % 2)
    w = MultiScaleRelief()(encode(X, y, discrete=True, n_classes=2))
    assert set(np.argsort(-w)[:4]) == {0, 1, 2, 3}


def test_starred_variants_are_blind_to_main_effects():
    """An attribute equal to the class has diff 1 to every miss and 0 to every hit, so each band
    contributes the weight of its misses: P(other class) / (1 - P(own class)) = 1 for each
    instance whose band holds a miss. The far band, which always holds misses here, cancels
    the near band: 0 for SURF* and MultiSURF*, where MultiSURF gives 1, and noise attributes
    score above it (the docstrings' example)."""
    rng = np.random.default_rng(0)
    X = rng.integers(0, 3, (300, 10)).astype(float)
    y = rng.integers(0, 2, 300)
    X[:, 0] = y
    data = encode(X, y, discrete=True, n_classes=2)
    assert MultiSURF()(data)[0] == pytest.approx(1.0)
    for cls in (SURFstar, MultiSURFstar):
        w = cls()(data)
        assert w[0] == pytest.approx(0.0, abs=1e-12)
        assert (w[1:] > w[0]).any()


@pytest.mark.parametrize("cls", [SURF, MultiSURF, MultiSURFstar])
def test_permuted_targets_share_the_bands(cls):
    """The bands do not depend on the target: the shared context of a permuted class (or
    numeric target) estimates as a fresh one; with missing values under RELIEF-D (class-
    dependent diffs) there is no shared context."""
    rng = np.random.default_rng(1)
    X = rng.random((60, 5))
    for y, n_classes in ((rng.integers(0, 3, 60), 3), (X[:, 0] + rng.random(60), None)):
        data = encode(X, y, n_classes=n_classes)
        shared = cls().target_contexts(data)
        for _ in range(2):
            permuted = encode(X, y[rng.permutation(60)], n_classes=n_classes)
            np.testing.assert_allclose(cls().estimate(shared(permuted)), cls()(permuted),
                                       rtol=1e-12, atol=1e-15)
    X[0, 0] = np.nan
    assert cls().target_contexts(encode(X, rng.integers(0, 2, 60), n_classes=2)) is None
    assert cls(missing="C").target_contexts(encode(X, rng.integers(0, 2, 60),
                                                   n_classes=2)) is not None


@pytest.mark.parametrize("mode", ["numpy", "compiled"])
def test_weigh_bands_equals_the_sum_written_out(mode):
    # several pieces of WEIGH_COLUMNS columns, scattered into a wider array; the expected sums
    # added one product at a time in plain Python, in the kernel's order (rows, then groups)
    from orangecontrib.relief.compilation import kernel_mode
    rng = np.random.default_rng(5)
    b, S, F, G = 3, 2, 2, 2
    a = 2 * surf_module.WEIGH_COLUMNS + 5
    coef = rng.random((b, S, G))
    out = rng.random((b, F, G, a))
    cols = rng.permutation(a + 7)[:a]
    sums = np.full((S, F, a + 7), -1.0)
    with kernel_mode(mode):
        surf_module._weigh_bands(coef, out, cols, sums)
    for s in range(S):
        for f in range(F):
            for t in (0, 1, surf_module.WEIGH_COLUMNS, a - 1):
                expected = 0.0
                for q in range(b):
                    for g in range(G):
                        expected += coef[q, s, g] * out[q, f, g, t]
                assert sums[s, f, cols[t]] == expected
    untouched = np.setdiff1d(np.arange(a + 7), cols)
    assert (sums[:, :, untouched] == -1.0).all()
