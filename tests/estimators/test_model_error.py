"""MSEofModel / MAEofModel (:mod:`orangecontrib.relief.estimators.model_error`) on data small
enough to compute by hand, and their errors on bad input. CORElearn's own numbers are checked in
``test_corelearn_oracle.py``."""
import numpy as np
import pytest

from orangecontrib.relief.estimators import encode
from orangecontrib.relief.estimators.model_error import ModelError

# one numeric attribute (p = 1): a branch of m <= 2 instances is predicted by its mean, a larger
# one by a least-squares line x, 1 (clipped to the branch's target range)
X = np.array([[1.0], [2.0], [3.0], [4.0]])
Y = np.array([1.0, 3.0, 10.0, 14.0])


def test_hand_computed_splits():
    """Splits of x = 1, 2, 3, 4 with y = 1, 3, 10, 14:
    {1}|{2,3,4}: the line through (2,3), (3,10), (4,14) is 5.5 x - 7.5; dropping a term does not
      pay (MAE 2/3 * 5/1 = 10/3 against 6 * 4/2 without x and 7.5 * 4/2 without the constant);
      predictions 3.5, 9, 14.5 -> 14 (clipped): squared errors 0.25, 1, 0 and absolute 0.5, 1, 0,
      so MSE = (0 + 1.25) / 4 = 0.3125 and MAE = 1.5 / 4 = 0.375;
    {1,2}|{3,4}: means 2 and 12: MSE (2 * 1 + 2 * 4) / 4 = 2.5, MAE (2 * 1 + 2 * 2) / 4 = 1.5;
    {1,2,3}|{4}: the line 4.5 x - 13/3 gives 1/6 -> 1 (clipped), 14/3, 55/6: squared errors
      0, 25/9, 25/36 and absolute 0, 5/3, 5/6: MSE = 3.4722.../4, MAE = 2.5/4 = 0.625."""
    data = encode(X, Y)
    assert ModelError(loss="squared", random_state=1)(data) == pytest.approx([-0.3125],
                                                                                abs=1e-12)
    assert ModelError(loss="absolute", random_state=1)(data) == pytest.approx([-0.375],
                                                                                 abs=1e-12)


def test_exact_lines_on_both_sides_give_zero_error():
    x = np.arange(1.0, 13.0)
    y = np.where(x <= 6, 2 * x, 30 - x)
    noise = np.random.default_rng(0).uniform(size=12)
    data = encode(np.column_stack([x, noise]), y)
    scores = ModelError(sample=0, random_state=1)(data)
    assert scores[0] == pytest.approx(0.0, abs=1e-9)
    assert scores[1] < -1e-3


def test_discrete_attribute_is_split_like_the_same_numeric_one():
    """A two-valued discrete attribute has one partition, the split of its numeric coding."""
    codes = np.array([0.0, 0.0, 1.0, 1.0, 0.0, 1.0, 0.0, 1.0])
    other = np.array([3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0])
    y = np.array([1.0, 2.0, 7.0, 9.0, 2.5, 8.0, 1.5, 6.0])
    as_numeric = encode(np.column_stack([codes, other]), y)
    as_discrete = encode(np.column_stack([codes, other]), y, discrete=[True, False])
    for loss in ("squared", "absolute"):
        want = ModelError(loss=loss, random_state=1)(as_numeric)[0]
        assert ModelError(loss=loss, random_state=1)(as_discrete)[0] == pytest.approx(want)


def test_bad_input():
    with pytest.raises(ValueError, match="regression"):
        ModelError()(encode(X, np.array([0, 1, 0, 1]), n_classes=2))
    with pytest.raises(ValueError, match="weights"):
        ModelError()(encode(X, Y, weights=np.array([1.0, 2.0, 1.0, 1.0])))
    with pytest.raises(ValueError, match="loss"):
        ModelError(loss="huber")(encode(X, Y))
    with pytest.raises(ValueError, match="sample"):
        ModelError(sample=-1)(encode(X, Y))


def test_a_zero_column_adds_nothing_to_exact_lines():
    """An attribute that is 0 on every instance is a zero column of the linear models: the
    lines are still exact (and nothing is divided by a zero singular value)."""
    x = np.arange(1.0, 13.0)
    y = np.where(x <= 6, 2 * x, 30 - x)
    scores = ModelError(sample=0, random_state=1)(encode(np.column_stack([x, np.zeros(12)]), y))
    assert np.isfinite(scores).all()
    assert scores[0] == pytest.approx(0.0, abs=1e-9)
