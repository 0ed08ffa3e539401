"""Contextual Merit (Hong 1997), as eq. 9 of Vilalta et al. 2001 defines it.

For every example X_i and each of its counter-examples X_j (examples of another class) every
feature X_k gains

    d(x_k^i, x_k^j) / D(X_i, X_j)^2                                            (eq. 9)

where d is the diff of one feature (eq. 6 for nominal features, eq. 7 with TH = the feature's
range for numeric ones, or CORElearn's ramp with ``numeric_diff="ramp"``) and D is the sum of the
diffs of all features (eq. 5); both come from :class:`~.diffs.DiffModel`.

Which counter-examples count (``neighbours``):

* ``"nearest"`` (Hong's practical form, the default): the K nearest counter-examples of each
  example, K = ceil(log2(number of its counter-examples)) (at least 1) unless ``K`` is given;
  ties in distance are broken by the lower instance index;
* ``"all"``: every counter-example, the form in which Prop. 2 of the Π paper shows Contextual
  Merit to be an instance of the unified framework.

Pairs at distance 0 (a counter-example identical to the example in every feature, i.e.
contradicting examples): every feature diff of such a pair is 0 as well, so eq. 9 is 0/0. We
define their contribution as 0 (they say nothing about any feature) and, in the ``"nearest"``
form, never count them among the K nearest (the K nearest are taken among the counter-examples
at distance > 0), so they do not waste a neighbour slot.

Each ordered pair (i, j) counts once, i.e. every unordered pair of counter-examples twice.
Instance weights: an example of weight w stands for w copies of it, so its pairs count w times
and as a counter-example it fills w of the K places (:mod:`.neighbours`); K counts
counter-examples by their weights. With integer weights this is Contextual Merit of the data
with each example repeated w times.
Missing values use the diff model's rule (``missing``); under RELIEF-C the contributions with a
missing value are left out. A feature with no known value gets NaN.
"""
from dataclasses import dataclass

import numpy as np

from .base import Estimator, check_data, progress_part, row_blocks
from .neighbourhood.diffs import DiffModel, DiffOptions
from .description import Param
from .encoding import EncodedData
from .parameters import PAIRWISE_DIFF_PARAMETERS, equals, ramp_rule
from .neighbourhood.neighbours import first_k_places, nearest_neighbours, neighbour_places

__all__ = ["ContextualMerit", "MeritContext", "PairwiseClassEstimator"]


class PairwiseClassEstimator(Estimator):
    """What Contextual Merit and the Π framework share: a classification target and the diff
    function of eqs. 5-7 (``numeric_diff`` "linear" = eq. 7 with TH = range, or "ramp" with
    ``t_equal``/``t_different`` as fractions of the range; ``missing`` as in :mod:`.diffs`)."""
    tasks = frozenset({"classification"})
    rules = (ramp_rule,)

    def diff_options(self):
        return DiffOptions(numeric=self.numeric_diff, t_equal=self.t_equal,
                           t_different=self.t_different, missing=self.missing).check()


def _unknown_columns(columns):
    """Columns without a known value: their estimates are NaN."""
    return np.isnan(columns.X).all(axis=0) if columns.n_instances else np.ones(
        columns.n_attributes, bool)


@dataclass(eq=False)
class MeritContext:
    """The pairs eq. 9 sums over.

    ``rows``/``others``/``weights``: for ``neighbours="nearest"``, each example's chosen
    counter-examples and their weights 1/D^2; ``None`` for ``"all"``, whose pairs are generated
    block by block from the distances. ``merit`` holds the estimates of the data's own features.
    """
    data: EncodedData
    diff_model: DiffModel
    neighbours: str
    rows: np.ndarray = None
    others: np.ndarray = None
    weights: np.ndarray = None
    merit: np.ndarray = None


class ContextualMerit(PairwiseClassEstimator):
    """Contextual Merit; see the module docstring.

    neighbours: "nearest" (K nearest counter-examples per example) or "all".
    K: counter-examples per example for "nearest"; None = ceil(log2(#counter-examples)) (Hong).
    numeric_diff, t_equal, t_different, missing: the diff function (:mod:`.diffs`).
    """
    name = "Contextual Merit"
    short_name = "C. Merit"
    paper = "Hong 1997, IEEE TKDE 9(5) (eq. 9)"
    parameters = (
        Param("neighbours", "choice", "nearest", "Counter-examples",
              choices=(("nearest", "the nearest"), ("all", "all")),
              tooltip="The counter-examples (instances of another class) each example is "
                      "compared with: its K nearest (Hong 1997) or all of them (Prop. 2)."),
        Param("K", "int", None, "Nearest counter-examples", low=1, maximum=10000,
              none="⌈log₂⌉", applies=equals("neighbours", "nearest"),
              tooltip="Nearest counter-examples per example; ⌈log₂⌉ = the logarithm of the "
                      "number of counter-examples, rounded up (Hong 1997).")) \
        + PAIRWISE_DIFF_PARAMETERS

    def __init__(self, neighbours="nearest", K=None, numeric_diff="linear", t_equal=0.04,
                 t_different=0.1, missing="D"):
        self.neighbours = neighbours
        self.K = K
        self.numeric_diff = numeric_diff
        self.t_equal = t_equal
        self.t_different = t_different
        self.missing = missing

    def counter_example_counts(self, data):
        """K of each example: ``self.K`` or ceil(log2(number of its counter-examples)), at
        least 1 (Hong's default)."""
        class_sizes = np.bincount(data.y.astype(np.intp), weights=data.weights,
                                  minlength=data.n_classes)
        counter = data.total_weight - class_sizes[data.y.astype(np.intp)]
        if self.K is not None:
            return np.full(data.n_instances, int(self.K))
        return np.maximum(1, np.ceil(np.log2(np.maximum(counter, 1)))).astype(np.intp)

    def context(self, data, callback=None):
        """The counter-example pairs (and, for "all", the estimates, which are the expensive
        part there)."""
        check_data(data, self)
        model = DiffModel(data, self.diff_options())
        ctx = MeritContext(data, model, self.neighbours)
        if self.neighbours == "nearest":
            ks = self.counter_example_counts(data)
            found = nearest_neighbours(model, np.arange(data.n_instances), int(ks.max()),
                                       groups="pooled", skip_zero_distance=True, shared_ties=False,
                                       callback=progress_part(callback, 0.0, 0.8))
            others = found.neighbours[:, 1, :]       # group 1 = the other classes
            dist = found.distances[:, 1, :]
            # the places among the K nearest that each counter-example fills
            places = first_k_places(neighbour_places(found), ks[:, None, None])[:, 1, :]
            chosen = places > 0
            ctx.rows = np.nonzero(chosen)[0]
            ctx.others = others[chosen]
            ctx.weights = data.instance_weights[ctx.rows] * places[chosen] / dist[chosen] ** 2
            ctx.merit = self._merit(ctx, model, data, progress_part(callback, 0.8, 1.0))
        else:
            ctx.merit = self._merit(ctx, model, data, callback)
        return ctx

    def estimate(self, context, columns=None):
        """Eq. 9 summed over the context's pairs for ``columns`` (an EncodedData over the same
        instances; default the context's data)."""
        if columns is None and context.merit is not None:
            return context.merit.copy()
        if columns is None:
            columns, model = context.data, context.diff_model
        else:
            if columns.n_instances != context.data.n_instances:
                raise ValueError(f"columns have {columns.n_instances} instances, the context "
                                 f"{context.data.n_instances}")
            model = DiffModel(columns, context.diff_model.options)
        return self._merit(context, model, columns)

    def _merit(self, context, model, columns, callback=None):
        a = columns.n_attributes
        merit = np.zeros(a)
        for rows, others, weights, done in self._pair_blocks(context, a):
            diffs = model.pair_diffs(rows, others)
            merit += weights @ np.where(np.isnan(diffs), 0.0, diffs)
            if callback is not None:
                callback(done)
        unknown = _unknown_columns(columns)
        if not np.isfinite(merit[~unknown]).all():
            raise ValueError(f"{self.name} exceeds the largest float: examples of different "
                             "classes lie so close (distance D near 0) that 1/D^2 overflows")
        merit[unknown] = np.nan
        return merit

    @staticmethod
    def _pair_blocks(context, n_columns):
        """(rows, others, weights, fraction done) in blocks of pairs whose diffs fit the
        memory budget."""
        if context.neighbours == "nearest":
            blocks = row_blocks(context.rows.size, 8 * n_columns)
            for sl in blocks:
                yield context.rows[sl], context.others[sl], context.weights[sl], sl.stop / max(
                    context.rows.size, 1)
            return
        data = context.data
        n = data.n_instances
        y = data.y
        for sl in row_blocks(n, 8 * n * (n_columns + 3)):
            rows = np.arange(sl.start, sl.stop)
            dist = context.diff_model.distances(rows)
            pair = (y[rows, None] != y[None, :]) & (dist > 0)
            r, o = np.nonzero(pair)
            w = data.instance_weights
            yield rows[r], o, w[rows[r]] * w[o] / dist[r, o] ** 2, sl.stop / n
