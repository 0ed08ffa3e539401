"""R's default uniform random numbers, so that a sample drawn by R code can be drawn here too.

R's default generator (``RNGkind() == "Mersenne-Twister"``) is the Mersenne Twister MT19937 of
Matsumoto & Nishimura ("Mersenne Twister: a 623-dimensionally equidistributed uniform
pseudo-random number generator", 1998). ``set.seed(s)`` scrambles the seed by 50 steps of the
congruential map s -> 69069 s + 1 (mod 2^32), fills the 624 state words with the next 624 steps
(after one more step whose word R keeps as its position, set to 624) and so starts with a twist;
``unif_rand()`` returns the tempered 32-bit word times 2.3283064365386963e-10 (= 1 / (2^32 - 1)),
moved into the open interval (0, 1) at the ends. C code of R packages draws from this stream
(CORElearn's ``randBetween(from, to) = from + int(unif_rand() * (to - from))``).
"""
import numpy as np

__all__ = ["RUniformStream", "r_seed"]

_N, _M = 624, 397
_UPPER, _LOWER, _MATRIX_A = np.uint32(0x80000000), np.uint32(0x7FFFFFFF), np.uint32(0x9908B0DF)
_SCALE = 2.3283064365386963e-10
_I2_32M1 = 2.328306437080797e-10         # R's fixup: 1 / (2^32 - 1) to keep 0 and 1 out


def r_seed(random_state):
    """The integer seed of R's ``set.seed`` for ``random_state``: an int as it is (R takes it
    modulo 2^32), None for a fresh one, a numpy ``Generator`` draws one."""
    if isinstance(random_state, (int, np.integer)) and not isinstance(random_state, bool):
        return int(random_state)
    if random_state is None or isinstance(random_state, np.random.Generator):
        return int(np.random.default_rng(random_state).integers(2 ** 31))
    raise ValueError(f"random_state must be None, an int (R's set.seed) or a numpy Generator, "
                     f"got {random_state!r}")


class RUniformStream:
    """The uniform numbers R's ``runif`` / ``unif_rand`` give after ``set.seed(seed)``."""

    def __init__(self, seed):
        s = int(seed) & 0xFFFFFFFF
        for _ in range(51):      # 50 scrambling steps and the position word
            s = (69069 * s + 1) & 0xFFFFFFFF
        state = np.empty(_N, dtype=np.uint32)
        for i in range(_N):
            s = (69069 * s + 1) & 0xFFFFFFFF
            state[i] = s
        self._state = state
        self._values = np.empty(0)

    def _twist(self):
        """The next 624 words of MT19937, twisted in blocks whose inputs are already final."""
        mt = self._state
        for lo, hi in ((0, _N - _M), (_N - _M, 2 * (_N - _M)), (2 * (_N - _M), _N - 1)):
            kk = np.arange(lo, hi)
            y = (mt[kk] & _UPPER) | (mt[kk + 1] & _LOWER)
            mt[kk] = mt[(kk + _M) % _N] ^ (y >> np.uint32(1)) ^ ((y & np.uint32(1)) * _MATRIX_A)
        y = (mt[_N - 1] & _UPPER) | (mt[0] & _LOWER)
        mt[_N - 1] = mt[_M - 1] ^ (y >> np.uint32(1)) ^ ((y & np.uint32(1)) * _MATRIX_A)
        y = mt.copy()
        y ^= y >> np.uint32(11)
        y ^= (y << np.uint32(7)) & np.uint32(0x9D2C5680)
        y ^= (y << np.uint32(15)) & np.uint32(0xEFC60000)
        y ^= y >> np.uint32(18)
        values = y * _SCALE
        values[values <= 0.0] = 0.5 * _I2_32M1
        values[1.0 - values <= 0.0] = 1.0 - 0.5 * _I2_32M1
        return values

    def uniform(self, size):
        """The next ``size`` numbers of the stream (R's ``runif(size)``)."""
        parts, need = [], int(size)
        while need > 0:
            if self._values.size == 0:
                self._values = self._twist()
            take = self._values[:need]
            self._values = self._values[need:]
            parts.append(take)
            need -= take.size
        return np.concatenate(parts) if parts else np.empty(0)
