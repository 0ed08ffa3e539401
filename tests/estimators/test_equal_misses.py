"""ReliefF with every miss class weighing 1/(C - 1) (CORElearn's ReliefFavgC and ReliefFpa
under uniform costs): a hand-computed three-class table, the plain reference with missing values
and unbalanced classes, and the agreement with ReliefF where the two must agree."""
import numpy as np
import pytest

from orangecontrib.relief.estimators import encode
from orangecontrib.relief.estimators.corelearn import corelearn_estimator
from orangecontrib.relief.estimators.relieff import ReliefF, ReliefFequalMisses

from reference_relief import relieff
from test_relief_reference import TOL, reference_options, tie_free


def test_hand_computed_three_classes():
    """x = 0, 1, 3, 6 of classes 0, 0, 1, 2 (range 6), k = 1. Hits: 1/6 for each instance of
    class 0, none for the others. Misses, each class by 1/2: (3/6 + 6/6)/2, (2/6 + 5/6)/2,
    (2/6 + 3/6)/2, (5/6 + 3/6)/2; W = (7/12 + 5/12 + 5/12 + 8/12) / 4 = 25/48. ReliefF weighs
    the misses of the one-instance classes 2/3 (class 0) and 1/3: the last two terms are
    2/9 + 1/6 and 5/9 + 1/6, W = 19/36."""
    data = encode(np.array([[0.0], [1.0], [3.0], [6.0]]), [0, 0, 1, 2], n_classes=3)
    np.testing.assert_allclose(ReliefFequalMisses(k=1)(data), [25 / 48], atol=1e-15)
    np.testing.assert_allclose(ReliefF(k=1)(data), [19 / 36], atol=1e-15)


CASES = [dict(k=3), dict(k=5, weighting="exp-rank", sigma=2.0), dict(k=3, missing="C"),
         dict(k=4, laplace=True, both_missing="current")]


@pytest.mark.parametrize("n_classes", [3, 4])
@pytest.mark.parametrize("options", CASES, ids=str)
def test_matches_plain_reference(options, n_classes):
    data, ref = tie_free(40, n_classes, options, seed=7 * n_classes)
    expected = relieff(ref, misses="equal", **reference_options(options, "k", "weighting",
                                                                "sigma"))
    np.testing.assert_allclose(ReliefFequalMisses(**options)(data), expected, rtol=0, atol=TOL)
    # unbalanced classes: not ReliefF
    assert np.abs(np.asarray(expected) - ReliefF(**options)(data)).max() > 1e-4


def test_equals_relieff_on_two_classes_and_equal_classes():
    rng = np.random.default_rng(1)
    X = rng.random((60, 4))
    for y in (rng.integers(0, 2, 60), np.repeat([0, 1, 2], 20)):
        data = encode(X, y, n_classes=int(y.max()) + 1)
        for name in ("ReliefFavgC", "ReliefFpa"):
            np.testing.assert_allclose(corelearn_estimator(name)(data),
                                       corelearn_estimator("ReliefFexpRank")(data), atol=1e-13)

