"""Estimates on a sample of instances stratified by expected misclassification cost: CORElearn's
ReliefFsmp and MDLsmp.

CORElearn (the R package of the ReliefF authors, Robnik-Šikonja & Savicky) offers these two
estimators for cost-sensitive learning, in the spirit of Robnik-Šikonja's "Experiments with
cost-sensitive feature evaluation" (ECML 2003): before estimating, it draws m instances so that
each class c gets the share P'(c) = P(c) E(c) / sum_d P(d) E(d) of them, with
E(c) = sum_{d != c} P(d) cost(c, d) / (1 - P(c)) the expected cost of misclassifying an instance
of class c and P the relative class frequencies. Class c (in the order of its values) fills
places int(F(c-1) m) .. int(F(c) m) - 1 of the sample, F the cumulative sum of P':
q = int(P'(c) m) places fix the class's instances int(q / n_c) times each, in data order, the rest
of its places are drawn from the class at random without replacement, and the places left over
at the end (by rounding) are drawn from all instances. Under uniform costs P' = P and the sample is
every instance once up to the floating-point rounding of P' and F: on 113 + 137 instances, for
example, int(P'(1) 250) comes out 112, so 112 of the first class's 113 instances are drawn at
random, and the second class fills places 112..249, its 137 instances and one drawn from them.

CORElearn draws from R's random number generator (``randBetween(0, u) = int(unif_rand() * u)``,
:mod:`.r_random`), so ``random_state=s`` gives its numbers after R's ``set.seed(s)``. ReliefFsmp
is ReliefF (exp-rank influences by default) whose iterations visit the sample; MDLsmp scores a
numeric attribute by the MDL gain of its best split on the sample, drawing a new sample for each
numeric attribute in turn (one stream), and a discrete attribute by MDL on all instances. Only
uniform costs and unweighted instances are supported.
"""
import numpy as np

from .base import check_data
from .parameters import RANDOM_STATE
from .impurity import MDL
from .r_random import RUniformStream, r_seed
from .relieff import ReliefF
from .splits import target_statistics

__all__ = ["expected_cost_sample", "ReliefFsmp", "MDLsmp"]


def expected_cost_sample(y, n_classes, size, stream):
    """Indices of ``size`` instances of classes ``y`` (codes 0..n_classes-1) stratified by
    expected misclassification cost under uniform costs (module docstring), drawn from
    ``stream`` (an :class:`.r_random.RUniformStream`), in CORElearn's floating-point
    arithmetic and order of draws."""
    y = np.asarray(y, dtype=np.intp)
    n = y.size
    counts = np.bincount(y, minlength=n_classes)
    p = [float(c) / float(n) for c in counts]
    expected = []
    total = 0.0
    for c in range(n_classes):
        e = 0.0
        for d in range(n_classes):
            if d != c:
                e += p[d]
        e /= 1.0 - p[c]
        expected.append(e)
        total += p[c] * e
    sample = np.empty(size, dtype=np.intp)
    cumulative, place = 0.0, 0
    for c in range(n_classes):
        share = p[c] * expected[c] / total
        quota = int(share * size)
        start = int(cumulative * size)
        cumulative += share
        members = np.flatnonzero(y == c)
        fixed = (quota // counts[c]) * counts[c] if counts[c] else 0
        sample[start:start + fixed] = np.resize(members, fixed)
        place = start + fixed
        drawn = max(int(cumulative * size) - place, 0)
        if drawn:
            picks = (stream.uniform(drawn) * np.arange(counts[c], counts[c] - drawn, -1)
                     ).astype(np.intp)
            pool = members.copy()
            for i, pick in enumerate(picks):
                upper = counts[c] - i
                sample[place + i] = pool[pick]
                pool[pick] = pool[upper - 1]
            place += drawn
    if place < size:
        sample[place:] = (stream.uniform(size - place) * n).astype(np.intp)
    return sample


def _check_unweighted(data, estimator):
    if data.weights is not None:
        raise ValueError(f"{estimator.name} samples instances by their expected "
                         "misclassification cost and does not take instance weights")


class ReliefFsmp(ReliefF):
    """ReliefF whose iterations visit a sample stratified by expected misclassification cost
    (CORElearn's ReliefFsmp; module docstring); the parameters are those of
    :class:`.relieff.ReliefF`, with exp-rank influences by default.

    iterations
        None = a sample as large as the data (CORElearn's default), an int m in 1..N = m
        places.
    random_state
        An int s: CORElearn's random stream after R's ``set.seed(s)``; None a fresh seed; a numpy
        ``Generator`` draws the seed.
    """
    skrebate_neighbours = None          # (scikit-rebate has none)
    name = "ReliefFsmp"
    dask_backend = False
    default_weighting = "exp-rank"

    def sample_instances(self, data):
        _check_unweighted(data, self)
        m = self.sample(data.n_instances).size      # checks ``iterations``
        return expected_cost_sample(data.y, data.n_classes, m,
                                    RUniformStream(r_seed(self.random_state)))

    def target_contexts(self, data, callback=None):
        """None: the sample depends on the classes, so a permutation test searches again for
        each."""
        return None


class MDLsmp(MDL):
    """Kononenko's MDL of numeric attributes on samples stratified by expected misclassification
    cost (CORElearn's MDLsmp; module docstring). ``random_state``: an int s gives CORElearn's
    random stream after R's ``set.seed(s)``, None a fresh seed, a numpy ``Generator`` draws
    the seed."""
    name = "MDLsmp"
    parameters = MDL.parameters + (RANDOM_STATE,)

    def __init__(self, min_lower=2, min_upper=3, random_state=None):
        super().__init__(min_lower, min_upper)
        self.random_state = random_state

    def context(self, data, callback=None):
        context = super().context(data, callback)
        _check_unweighted(context, self)
        return context

    def sampled_columns(self, context, columns=None):
        """(j, column, target statistics) of every column of ``columns`` (default: the
        context's attributes): a numeric column on its sample, drawn in column order from one
        stream, a discrete one on all instances."""
        self.check_parameters()
        _check_unweighted(context, self)
        columns = context if columns is None else columns
        if columns.n_instances != context.n_instances:
            raise ValueError(f"columns have {columns.n_instances} instances, "
                             f"the context {context.n_instances}")
        stream = RUniformStream(r_seed(self.random_state))
        y, n = context.y, context.n_instances
        for j in range(columns.n_attributes):
            rows = np.arange(n) if columns.discrete[j] else \
                expected_cost_sample(y, context.n_classes, n, stream)
            yield j, columns.X[rows, j], target_statistics(y[rows], context.n_classes)

    def estimate(self, context, columns=None, callback=None):
        """MDL of every column (numeric ones on their samples); ``callback(fraction)`` after
        each column."""
        columns = context if columns is None else columns
        mdl = MDL(self.min_lower, self.min_upper)
        scores = np.empty(columns.n_attributes)
        for j, column, stats in self.sampled_columns(context, columns):
            scores[j] = mdl.estimate_column(column, columns.discrete[j], columns.n_values[j],
                                            stats)
            if callback is not None:
                callback((j + 1) / columns.n_attributes)
        return scores

    def best_thresholds(self, data):
        """The best split threshold of each numeric attribute on its sample (NaN for discrete
        attributes and numeric ones without an admissible threshold)."""
        check_data(data, self)
        context = self.context(data)
        mdl = MDL(self.min_lower, self.min_upper)
        thresholds = np.full(data.n_attributes, np.nan)
        for j, column, stats in self.sampled_columns(context):
            if not data.discrete[j]:
                split = mdl.best_split(column, False, 0, stats)
                if split is not None:
                    thresholds[j] = split.threshold
        return thresholds

    def best_split(self, column, discrete, n_values, stats, weights=None):
        raise ValueError("MDLsmp draws a sample of the whole data for each attribute; "
                         "use best_thresholds(data), or MDL to split a single column")
