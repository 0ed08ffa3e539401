"""R's uniform random stream and CORElearn's sample by expected misclassification cost
(ReliefFsmp, MDLsmp); CORElearn's own numbers are checked in test_corelearn_oracle.py."""
import numpy as np
import pytest

from orangecontrib.relief.estimators import encode
from orangecontrib.relief.estimators.cost_sampling import (MDLsmp, ReliefFsmp,
                                                           expected_cost_sample)
from orangecontrib.relief.estimators.r_random import RUniformStream
from orangecontrib.relief.estimators.relieff import ReliefF


def test_r_uniform_stream_gives_r_runif():
    """R 4.x: set.seed(1); runif(3) and set.seed(42); runif(2)."""
    np.testing.assert_allclose(RUniformStream(1).uniform(3),
                               [0.2655087, 0.3721239, 0.5728534], atol=5e-8)
    np.testing.assert_allclose(RUniformStream(42).uniform(2), [0.914806, 0.9370754], atol=5e-7)


def _scalar_mt_words(seed, count):
    """MT19937 one word at a time (Matsumoto & Nishimura's reference loop) from R's seeding."""
    s = seed & 0xFFFFFFFF
    for _ in range(51):
        s = (69069 * s + 1) & 0xFFFFFFFF
    mt = []
    for _ in range(624):
        s = (69069 * s + 1) & 0xFFFFFFFF
        mt.append(s)
    out, i = [], 624
    while len(out) < count:
        if i == 624:
            for k in range(624):
                y = (mt[k] & 0x80000000) | (mt[(k + 1) % 624] & 0x7FFFFFFF)
                mt[k] = mt[(k + 397) % 624] ^ (y >> 1) ^ (0x9908B0DF if y & 1 else 0)
            i = 0
        y = mt[i]
        i += 1
        y ^= y >> 11
        y ^= (y << 7) & 0x9D2C5680
        y ^= (y << 15) & 0xEFC60000
        y ^= y >> 18
        out.append(y)
    return np.array(out, dtype=float)


def test_r_uniform_stream_across_twists_and_calls():
    """The block-wise twist gives the reference loop's words, whatever the sizes asked for."""
    stream = RUniformStream(7)
    got = np.concatenate([stream.uniform(5), stream.uniform(700), stream.uniform(0),
                          stream.uniform(1300)])
    assert np.array_equal(got, _scalar_mt_words(7, 2005) * 2.3283064365386963e-10)


class _Constant:
    """A stream of one repeated number (to follow the draws by hand)."""
    def __init__(self, value):
        self.value, self.drawn = value, 0

    def uniform(self, size):
        self.drawn += size
        return np.full(size, self.value)


def test_sample_is_every_instance_in_class_order_when_the_quotas_are_exact():
    stream = _Constant(0.5)
    y = np.array([1, 0, 1, 0, 0, 1])
    assert expected_cost_sample(y, 2, 6, stream).tolist() == [1, 3, 4, 0, 2, 5]
    assert stream.drawn == 0


def test_sample_draws_the_short_class_and_the_leftover_place():
    """113 + 137 instances: the first class's share int(0.452 * 250) comes out 112 in floating
    point, so its 112 places are drawn without replacement (int(u * upper) with u = 0 takes the
    first of the pool, whose place the pool's last fills); the second class's places run to
    int(1.0 * 250), its 137 instances in order and one more drawn from them (instance 113)."""
    y = np.array([0] * 113 + [1] * 137)
    stream = _Constant(0.0)
    sample = expected_cost_sample(y, 2, 250, stream)
    assert sample.tolist() == [0] + list(range(112, 1, -1)) + list(range(113, 250)) + [113]
    assert stream.drawn == 113


def _data(seed=0, n=60):
    rng = np.random.default_rng(seed)
    X = rng.random((n, 3))
    score = X[:, 0] + 0.3 * rng.random(n)
    y = (score > np.median(score)).astype(float)
    return encode(X, y, n_classes=2)


def test_relieffsmp_on_a_sample_of_every_instance_is_relieff():
    data = _data()
    counts = np.bincount(data.y.astype(int))
    assert counts.tolist() == [30, 30]     # exact quotas: every instance once
    np.testing.assert_allclose(ReliefFsmp(random_state=3)(data),
                               ReliefF(weighting="exp-rank")(data), rtol=0, atol=1e-12)


def test_sampled_estimators_repeat_for_a_seed_and_refuse_weights_and_single_splits():
    data = _data(1, 61)
    for estimator in (ReliefFsmp, MDLsmp):
        assert np.array_equal(estimator(random_state=5)(data), estimator(random_state=5)(data))
        weighted = encode(data.X, data.y, n_classes=2, weights=np.linspace(1, 2, 61))
        with pytest.raises(ValueError, match="instance weights"):
            estimator(random_state=5)(weighted)
    with pytest.raises(ValueError, match="best_thresholds"):
        MDLsmp().best_split(data.X[:, 0], False, 0, np.eye(2)[data.y.astype(int)])
    with pytest.raises(ValueError, match="random_state"):
        MDLsmp(random_state="1")(data)


def test_the_dask_backend_refuses_the_cost_sample():
    from orangecontrib.relief.dask import estimate
    data = _data()
    with pytest.raises(ValueError, match="ReliefFsmp"):
        estimate(ReliefFsmp(random_state=1), data.X, data.y, n_classes=2)
