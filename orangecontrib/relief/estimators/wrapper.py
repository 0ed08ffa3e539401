"""What the wrappers around a base estimator share (TuRF, VLS, Iterative Relief): the base
estimator, MultiSURF when none is given (Urbanowicz et al., "Benchmarking relief-based feature
selection methods for bioinformatics data mining", J Biomed Inform 85, 2018: the recommended
core of the family)."""

import copy

import numpy as np

from .description import Param

__all__ = ["Wrapper", "seeded", "follows_skrebate", "SEED"]

#: the seed of a wrapper, passed on to a base estimator that takes one
SEED = Param(
    "random_state", "seed", None, "Random seed", low=0, maximum=2 ** 31 - 1, none="none",
    tooltip="Seed of the wrapper's random choices, passed on to the base estimator when it "
            "takes a seed too: the same seed repeats a run exactly; 'none' draws anew every "
            "time.")


def seeded(estimator, random_state):
    """``estimator``, or with an int ``random_state`` a copy of it with that seed when it takes
    one (a ``random_state`` parameter), so that a wrapper's seed repeats its base's samples."""
    names = {param.name for param in type(estimator).parameters}
    if random_state is None or isinstance(random_state, np.random.Generator) \
            or "random_state" not in names:
        return estimator
    estimator = copy.copy(estimator)
    estimator.random_state = random_state
    return estimator


def follows_skrebate(estimator):
    """Whether a wrapper's base ``estimator`` has ``preset="skrebate"`` (asked of the Relief
    family's ``skrebate_preset``, which refuses an estimator scikit-rebate lacks): the wrapper
    then runs its rounds or draws its subsets as scikit-rebate's counterpart does."""
    asks = getattr(estimator, "skrebate_preset", None)
    return asks() if asks is not None else getattr(estimator, "preset", None) == "skrebate"


class Wrapper:
    """A mixin for an :class:`.base.Estimator` with an ``estimator`` parameter (None:
    MultiSURF)."""

    @property
    def estimator_(self):
        """The base estimator (ValueError if a parameter is not allowed, ``estimator`` among
        them)."""
        self.check_parameters()
        if self.estimator is None:
            from .surf import MultiSURF
            return MultiSURF()
        return self.estimator
