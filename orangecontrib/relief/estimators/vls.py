"""VLS (very large scale) Relief: an estimator run on random subsets of the attributes, each
attribute's estimate the best it got in the subsets it was in.

Eppstein & Haake, "Very large scale ReliefF for genome-wide association analysis" (IEEE CIBCB
2008). Among very many attributes the nearest neighbours are found by distances over all of
them, so a few that interact rarely decide them; in a small subset they do, whenever they are in
it together. The subsets are drawn with ``random_state``, as scikit-rebate 0.8 draws them: the
attributes in a random order, cut into consecutive subsets of ``size`` (the last one filled up
with attributes drawn from the others), so that every attribute is in one at least, then the
rest of the ``subsets`` drawn anew, each ``size`` attributes without repetition (around a base
estimator with ``preset="skrebate"`` and an integer seed, by scikit-rebate's own generator:
:func:`.skrebate.vls_subsets`, so that ``VLS(MultiSURF(preset="skrebate"), subsets=40, size=5,
random_state=7)`` gives ``skrebate.VLS(skrebate.MultiSURF(), random_state=7)``). The base
estimator (default MultiSURF) scores each subset with neighbourhoods found in the space of that
subset alone, and an attribute's estimate is the largest of its estimates:

    W[A] = max_{s : A in S_s} W_s[A].

An attribute whose every estimate is NaN (no known value) keeps NaN. Attribute weights of the
data (:attr:`.encoding.EncodedData.attribute_weights`) go with each subset to the base
estimator.
"""
import numbers
from dataclasses import dataclass

import numpy as np

from . import skrebate
from .base import Estimator, check_data, progress_part, random_generator
from .description import Param
from .wrapper import SEED, Wrapper, follows_skrebate, seeded

__all__ = ["VLS", "VLSContext", "vls_subsets", "covering_size", "subset_maximum"]


def covering_size(n_attributes, n_subsets, size):
    """``size``, at most ``n_attributes``; ``ValueError`` when ``n_subsets`` subsets of it
    cannot cover the attributes."""
    size = min(size, n_attributes)
    if n_subsets * size < n_attributes:
        raise ValueError(f"VLS: subsets x size must cover the {n_attributes} attributes, got "
                         f"{n_subsets} subsets of {size}: use more subsets or a larger size")
    return size


def vls_subsets(n_attributes, n_subsets, size, rng):
    """The ``n_subsets`` subsets (arrays of attribute indices) of ``size`` attributes each drawn
    by ``rng`` (module docstring): the first ones partition a random order of the attributes,
    the last of them filled up from the others, the rest are drawn anew. ``ValueError`` when
    ``n_subsets * size`` cannot cover the attributes."""
    size = covering_size(n_attributes, n_subsets, size)
    order = rng.permutation(n_attributes)
    covering = [order[lo:lo + size] for lo in range(0, n_attributes, size)]
    last = covering[-1]
    if last.size < size:
        others = np.setdiff1d(np.arange(n_attributes), last)
        covering[-1] = np.concatenate([last, rng.choice(others, size - last.size,
                                                        replace=False)])
    drawn = [rng.choice(n_attributes, size, replace=False)
             for _ in range(n_subsets - len(covering))]
    return [np.asarray(s, np.intp) for s in covering + drawn]


def subset_maximum(estimator, data, subsets, callback=None):
    """(estimates, per subset estimates): ``estimator`` run on the attributes of each subset of
    ``subsets`` alone, each attribute's largest estimate over the subsets it is in (NaN where
    all of them are NaN or it is in none)."""
    best = np.full(data.n_attributes, np.nan)
    each = []
    for s, subset in enumerate(subsets):
        part = progress_part(callback, s / len(subsets), (s + 1) / len(subsets))
        estimates = np.asarray(estimator.estimate(estimator.context(data.columns(subset), part)),
                               dtype=float)
        best[subset] = np.fmax(best[subset], estimates)
        each.append(estimates)
    if callback is not None:
        callback(1.0)
    return best, each


@dataclass(eq=False)
class VLSContext:
    """The subsets, each one's estimates by the base estimator, and the VLS estimates."""
    data: object
    subsets: list
    subset_estimates: list
    estimates: np.ndarray


class VLS(Wrapper, Estimator):
    """VLS around ``estimator`` (default MultiSURF()); see the module docstring. ``subsets``:
    the number of random subsets of the attributes; ``size``: attributes in each (None: enough
    for the subsets to cover the attributes twice, at least 5); ``random_state``: the seed of
    the subsets (and of the base estimator's own sample, if it takes a seed)."""
    name = "VLS"
    display_name = "VLS Relief"
    short_name = "VLS"
    paper = "Eppstein & Haake 2008, IEEE CIBCB (Very large scale ReliefF)"
    parameters = (
        Param("estimator", "estimator", None, "Base estimator", none="MultiSURF",
              tooltip="The estimator that scores the attributes of each subset."),
        Param("subsets", "int", 40, "Subsets", low=1, maximum=100000,
              tooltip="VLS (Eppstein & Haake 2008): the number of random subsets of the "
                      "attributes scored apart; each attribute gets its best estimate."),
        Param("size", "int", None, "Attributes per subset", low=1, maximum=1000000,
              none="twice the attributes / subsets",
              tooltip="The attributes in each subset; subsets x size must cover all the "
                      "attributes. By default each attribute is in two subsets on average "
                      "(at least 5 attributes a subset)."),
        SEED)
    #: attribute weights in the distance go with each subset to the base estimator
    weighs_distances = True
    #: not offered as a tree's split selector (the best of several subsets is no merit of a
    #: candidate split)
    split_selector = False

    def __init__(self, estimator=None, subsets=40, size=None, random_state=None):
        self.estimator = estimator
        self.subsets = subsets
        self.size = size
        self.random_state = random_state

    def size_(self, n_attributes):
        """The attributes of each subset on data of ``n_attributes``."""
        if self.size is not None:
            return min(self.size, n_attributes)
        return min(n_attributes, max(5, -(-2 * n_attributes // self.subsets)))

    def context(self, data, callback=None):
        """Draw the subsets and score each with the base estimator."""
        check_data(data, self)
        base = seeded(self.estimator_, self.random_state)
        check_data(data, base)
        n = data.n_attributes
        size = covering_size(n, self.subsets, self.size_(n))
        if follows_skrebate(base) \
                and isinstance(self.random_state, numbers.Integral):
            subsets = skrebate.vls_subsets(n, self.subsets, size, self.random_state)
        else:
            subsets = vls_subsets(n, self.subsets, size, random_generator(self.random_state))
        estimates, each = subset_maximum(base, data, subsets, callback)
        return VLSContext(data, subsets, each, estimates)

    def estimate(self, context, columns=None):
        """The VLS estimates of the context's attributes (``columns`` are refused: a subset's
        neighbourhoods say nothing of other columns)."""
        if columns is not None:
            raise ValueError("VLS estimates only the attributes of its data, not other columns")
        return context.estimates.copy()

    def __call__(self, data, callback=None):
        return self.estimate(self.context(data, callback))
