"""TuRF: iterative removal of the worst-scored attributes around a Relief-family estimator.

Moore & White, "Tuning ReliefF for genome-wide genetic analysis" (EvoBIO 2007); Urbanowicz et al.,
"Relief-based feature selection: introduction and review" (J Biomed Inform 85, 2018) §5.1. Each
round scores the remaining attributes with the base estimator (its neighbourhoods found in the
space of the remaining attributes only) and removes the share ``remove`` of them with the lowest
estimates (at least one); it stops after ``rounds`` removal rounds (default: 1/remove, as
scikit-rebate) or when ``keep`` attributes remain, and a last round scores the survivors.

Two kinds of input would defeat the removal, and are handled apart:

* An attribute with at most one known value (constant or all missing) says nothing about the
  class; every Relief estimate of it is 0 (or NaN), so it would outlive informative attributes
  whose estimates are negative. It is removed before the first removal round, as a group of its
  own that ranks below everything else, with its estimate from the first round (which runs on
  all attributes); it does not count in the share removed.
* A neighbourhood found in the space of a single attribute is found by that attribute alone: its
  nearest hits and misses all lie close to the instance in it, so its own diffs are small for
  both and its estimate no longer measures its relevance (an attribute that decides the class
  scores below 0 alone). So removal never leaves fewer than ``MIN_ATTRIBUTES`` (two) attributes,
  whatever ``keep``, and data with that many informative attributes or fewer get no removal
  round at all: the result is then the base estimator's own.

The result has one value per input attribute, in the input order:

* a surviving attribute: its estimate in the last round;
* a removed attribute: its estimate in the round that removed it, shifted down by the same amount
  for the whole group removed in that round so that the group lies below everything that outlived
  it (by 1 % of the range of the last round's estimates, as scikit-rebate separates its tiers).
  So sorting the result gives TuRF's ranking (survivors, then the groups in reverse order of
  removal, each group in the order of its estimates), and the differences within a group are
  that round's.

An attribute whose estimate is NaN counts as the worst and keeps NaN.

Around a base estimator with ``preset="skrebate"`` the rounds are scikit-rebate 0.8.4's
``TURF`` (its choices where ours above differ): ``rounds`` defaults to int(1 / remove); each
round keeps the ceil((1 - remove) n) attributes first in numpy's ``argsort`` of the estimates
reversed and stops once at most ``keep`` remain (checked after a removal, so at least one
removal happens); constant attributes and the two-attribute floor get no special treatment;
every attribute of the group removed k-th from last scores min - 0.01 (k + 1) (max - min) over
the survivors' last estimates. ``TuRF(MultiSURF(preset="skrebate"), remove=0.5, keep=100)``
gives ``skrebate.TURF(skrebate.MultiSURF())``.
"""
from dataclasses import dataclass

import numpy as np

from .base import Estimator, check_data, progress_part
from .description import Param
from .wrapper import Wrapper, follows_skrebate

__all__ = ["TuRF", "TuRFContext", "MIN_ATTRIBUTES", "informative_columns"]

#: the fewest attributes the removal rounds leave (module docstring)
MIN_ATTRIBUTES = 2


def informative_columns(data):
    """Boolean (a,): whether each attribute of ``data`` (:class:`.encoding.EncodedData`) has at
    least two distinct known values. Numeric columns are read off their ranges (span > 0);
    discrete ones are counted."""
    informative = np.asarray(data.span > 0)     # NaN (all missing) compares False
    for j in np.flatnonzero(data.discrete):
        column = data.X[:, [j]]
        values = column.toarray().ravel() if data.is_sparse else np.asarray(column).ravel()
        known = values[~np.isnan(values)]
        informative[j] = known.size > 0 and np.any(known != known[0])
    return informative


@dataclass(eq=False)
class TuRFContext:
    """The base estimator's context of the last round (over the ``survivors``), the survivors'
    estimates, and per removal round the attributes removed and their estimates then."""
    data: object
    base: object
    survivors: np.ndarray
    estimates: np.ndarray
    removed: list
    #: each removed group scored as one value below the survivors (scikit-rebate's tiers)
    flat_tiers: bool = False


class TuRF(Wrapper, Estimator):
    """TuRF around ``estimator`` (an engine estimator; default MultiSURF()); see the module
    docstring. ``remove``: the share of the remaining attributes removed per round, in (0, 1);
    ``rounds``: removal rounds (None: round(1 / remove)); ``keep``: stop when this many remain
    (None: no such limit)."""
    name = "TuRF"
    paper = "Moore & White 2007, EvoBIO (Tuned ReliefF)"
    removes_attributes = True
    #: attribute weights in the distance go to its estimators with the data (which refuse
    #: them if they cannot take them)
    weighs_distances = True
    parameters = (
        Param("estimator", "estimator", None, "Base estimator", none="MultiSURF",
              tooltip="The estimator whose estimates rank the attributes in each round."),
        Param("remove", "float", 0.1, "Removed per round", low=0, high=1, low_open=True,
              high_open=True, step=0.05, decimals=2,
              tooltip="TuRF (Moore & White 2007): the share of the remaining attributes with "
                      "the lowest estimates removed after each round, before the others are "
                      "estimated again without them."),
        Param("rounds", "int", None, "Rounds", low=0, maximum=1000, none="1 / share",
              advanced=True,
              tooltip="The number of removal rounds; by default the inverse of the share "
                      "removed per round."),
        Param("keep", "int", None, "Stop at attributes", low=1, maximum=100000, none="no limit",
              advanced=True, tooltip="Stop removing when this many attributes remain."))
    #: not offered as a tree's split selector (the removal rounds rank the node's attributes,
    #: not candidate splits)
    split_selector = False

    def __init__(self, estimator=None, remove=0.1, rounds=None, keep=None):
        self.estimator = estimator
        self.remove = remove
        self.rounds = rounds
        self.keep = keep

    def context(self, data, callback=None):
        """Run the rounds (the base estimator's context and estimate of each)."""
        return self._rounds(data, None, callback)

    def target_contexts(self, data, callback=None):
        """For a permutation test: a function from ``data`` with another target (the same
        instances and attributes) and a ``callback`` to its context. The rounds over all (informative) attributes
        search their neighbours in a space that does not depend on the target, so the base
        estimator's ``target_contexts`` finds them once; the later rounds, over the survivors
        of each target, search again. None when the base estimator has no such search."""
        check_data(data, self)
        base = self.estimator_
        make = getattr(base, "target_contexts", None)
        if make is None:
            return None
        informative = informative_columns(data)
        spaces = [np.arange(data.n_attributes)] if 0 < informative.sum() < informative.size \
            else []
        spaces.append(np.flatnonzero(informative))
        shared = [make(data.columns(space), progress_part(callback, i / len(spaces),
                                                          (i + 1) / len(spaces)))
                  for i, space in enumerate(spaces)]
        if any(function is None for function in shared):
            return None
        return lambda target, callback=None: self._rounds(target, [
            lambda columns, part, function=function: function(columns) for function in shared],
            callback)

    def _rounds(self, data, first, callback=None):
        """The rounds; ``first``: None, or the functions (columns, callback) -> context of the
        all-attribute round (when there are uninformative attributes) and the first round."""
        check_data(data, self)
        base = self.estimator_
        check_data(data, base)
        skrebate = follows_skrebate(base)       # (module docstring)
        rounds = self.rounds if self.rounds is not None else (
            int(1 / self.remove) if skrebate else int(round(1 / self.remove)))
        keep = (0 if self.keep is None else self.keep) if skrebate \
            else max(MIN_ATTRIBUTES, 1 if self.keep is None else self.keep)
        survivors = np.arange(data.n_attributes)
        informative = np.ones(data.n_attributes, bool) if skrebate \
            else informative_columns(data)
        removed = []
        steps = rounds + 1 + (0 < informative.sum() < informative.size)
        searches = list(first) if first is not None else []

        def search(columns, part):
            return (searches.pop(0) if searches else base.context)(columns, part)
        if steps > rounds + 1:
            # constant and all-missing attributes: a group of their own, removed first, with
            # their estimates among all attributes
            part = progress_part(callback, 0.0, 1 / steps)
            estimates = np.asarray(base.estimate(search(data, part)), dtype=float)
            removed.append((survivors[~informative], estimates[~informative]))
            survivors = survivors[informative]
        for r in range(rounds + 1):
            step = steps - (rounds + 1) + r
            context = search(data.columns(survivors), progress_part(
                callback, step / steps, (step + 1) / steps))
            estimates = np.asarray(base.estimate(context), dtype=float)
            if r == rounds or (survivors.size <= keep and (r > 0 or not skrebate)):
                break
            if skrebate:
                kept = np.argsort(estimates)[::-1][:int(np.ceil(survivors.size
                                                                 * (1 - self.remove)))]
                worst = np.setdiff1d(np.arange(survivors.size), kept)
            else:
                count = min(max(1, int(survivors.size * self.remove)), survivors.size - keep)
                worst = np.argsort(np.where(np.isnan(estimates), -np.inf, estimates),
                                   kind="stable")[:count]
            removed.append((survivors[worst], estimates[worst]))
            survivors = np.delete(survivors, worst)
        if callback is not None:
            callback(1.0)
        return TuRFContext(data, context, survivors, estimates, removed, flat_tiers=skrebate)

    def estimate(self, context, columns=None):
        """The TuRF result (module docstring); with ``columns``, their estimates by the base
        estimator against the last round's context."""
        if columns is not None:
            return self.estimator_.estimate(context.base, columns)
        out = np.full(context.data.n_attributes, np.nan)
        out[context.survivors] = context.estimates
        if context.flat_tiers:
            low, high = min(context.estimates), max(context.estimates)
            gap = 0.01 * (high - low if high != low else 1.0)
            for k, (attributes, _) in enumerate(reversed(context.removed)):
                out[attributes] = low - gap * (k + 1)
            return out
        finite = context.estimates[np.isfinite(context.estimates)]
        spread = np.ptp(finite) if finite.size else 0.0
        gap = 0.01 * (spread if spread > 0 else max(np.abs(finite).max(initial=0.0), 1.0))
        floor = finite.min(initial=0.0)
        for attributes, estimates in reversed(context.removed):
            known = np.isfinite(estimates)
            if known.any():
                shifted = estimates - estimates[known].max() + floor - gap
                out[attributes] = shifted
                floor = shifted[known].min()
        return out

    def __call__(self, data, callback=None):
        return self.estimate(self.context(data, callback))
