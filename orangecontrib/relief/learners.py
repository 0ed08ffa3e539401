"""Orange learners: CORE trees and OBLIVION.

* :class:`CoreTreeClassificationLearner`, :class:`CoreTreeRegressionLearner` and the
  :class:`CoreTreeLearner` fitter grow CORE trees (:mod:`.tree`) whose splits are chosen by any
  engine estimator and return a ``TreeModel`` (:class:`.tree.to_orange.CoreTreeModel`) built from
  Orange's stock node classes, so Tree Viewer, Pythagorean Tree, Predictions, Test and Score,
  cross-validation and pickling take it. Each inner node's ``split_estimator`` and ``rho`` say
  which estimator chose its split (``model.print_tree()`` shows them).
* The learners are also ``LearnerScorer`` objects: on Rank's Scorer input the score of each attribute is
  the selection estimator's estimate at the root, i.e. on the whole training data.

``discretize=N`` pre-discretises numeric attributes into N equal-width intervals (Π paper §5.1)
as part of preprocessing, so the model's domain holds the discretised variables and new data are
discretised the same way.
"""
import inspect

import numpy as np
import scipy.sparse as sp

from Orange.base import Learner
from Orange.classification.base_classification import LearnerClassification
from Orange.data import ContinuousVariable, DiscreteVariable, Domain, Variable
from Orange.modelling import Fitter
from Orange.preprocess.discretize import Discretizer
from Orange.preprocess.score import LearnerScorer
from Orange.regression.base_regression import LearnerRegression
from Orange.util import wrap_callback

from .estimators.description import Param
from .orange_data import encode_table
from .tree import CoreTree
from .tree.discretization import equal_width_cuts
from .tree.to_orange import CoreTreeModel, orange_tree_model

__all__ = ["CoreTreeClassificationLearner", "CoreTreeRegressionLearner", "CoreTreeLearner",
           "ObliviousTreeLearner", "ObliviousTreeClassifier"]


def _target_reason(domain, name, tasks):
    """Why a learner called ``name`` that handles ``tasks`` cannot fit data with ``domain``'s
    target (a message naming the problem), or None."""
    class_vars = domain.class_vars
    if not class_vars:
        return f"{name} needs a target variable (class): the data have no target"
    if len(class_vars) > 1:
        return (f"{name} needs a single target variable: the data have {len(class_vars)} "
                f"target variables")
    var = domain.class_var
    task = ("classification" if isinstance(var, DiscreteVariable)
            else "regression" if isinstance(var, ContinuousVariable) else None)
    if task not in tasks:
        kinds = {"classification": "categorical", "regression": "numeric"}
        return (f"{name} needs a {' or '.join(kinds[t] for t in sorted(tasks))} class variable "
                f"({' or '.join(sorted(tasks))}); {var.name!r} is "
                f"{kinds.get(task, 'neither categorical nor numeric')}")
    return None


#: pre-discretisation of numeric attributes into equal-width intervals
DISCRETIZE = Param("discretize", "int", None, "Intervals", low=2, none="none",
                   tooltip="Numeric attributes are split into this many equal-width "
                           "intervals before the tree is grown.")


class _FitProgress:
    """Passes the ``progress_callback`` of ``Learner.__call__`` on to the tree's growth (Orange's
    ``_fit_model`` takes none): 10-100 % of the progress; an exception raised from the callback
    cancels the fit."""
    _fit_callback = None

    def __call__(self, data, progress_callback=None):
        self._fit_callback = (None if progress_callback is None
                              else wrap_callback(progress_callback, start=0.1, end=1.0))
        try:
            return super().__call__(data, progress_callback)
        finally:
            self._fit_callback = None


class _RootEstimateScorer(LearnerScorer):
    """Rank's Scorer input: the selection estimator's estimates of the attributes at the root."""
    feature_type = Variable
    class_type = Variable

    def score(self, data):
        learner = self.get_learner(data) if isinstance(self, Fitter) else self
        data = learner.preprocess(data)
        encoded, _ = encode_table(data)
        estimator = learner.core_tree().selection_estimator(encoded)
        return estimator(encoded), data.domain.attributes


class _CoreTreeLearner(_FitProgress, Learner, _RootEstimateScorer):
    """The shared part of the classification and regression learners; parameters are those of
    :class:`.tree.CoreTree`."""
    __returns__ = CoreTreeModel
    supports_weights = True

    def __init__(self, estimator=None, min_leaf=5, min_majority=0.97, max_depth=None,
                 min_estimate=0.0, leaf_model="mean", pruning="m-estimate", m=2.0,
                 confidence=0.25, switch=False, switch_threshold=0.8, discretize=None,
                 thresholds_per_pass=25, preset="papers", preprocessors=None):
        super().__init__(preprocessors=preprocessors)
        for name, value in vars().items():
            if name not in ("self", "preprocessors", "__class__"):
                setattr(self, name, value)

    def incompatibility_reason(self, domain):
        return _target_reason(domain, self.name, {self.task})

    def core_tree(self):
        """The numpy tree builder with this learner's parameters (discretisation is done by
        :meth:`preprocess`)."""
        names = inspect.signature(CoreTree).parameters
        return CoreTree(**{name: getattr(self, name) for name in names if name != "discretize"})

    def preprocess(self, data, progress_callback=None):
        data = super().preprocess(data, progress_callback)
        bins = self.discretize
        if bins is None:
            return data
        DISCRETIZE.check(bins)
        encoded, _ = encode_table(data)
        cuts = equal_width_cuts(encoded, bins)
        attributes = [Discretizer.create_discretized_var(var, list(cuts[i]))
                      if i in cuts and cuts[i].size else var
                      for i, var in enumerate(data.domain.attributes)]
        return data.transform(Domain(attributes, data.domain.class_vars, data.domain.metas))

    def fit_storage(self, data):
        encoded, rows = encode_table(data)
        grown = self.core_tree().fit(encoded, callback=self._fit_callback)
        return orange_tree_model(grown, data, encoded.y, rows)


class CoreTreeClassificationLearner(_CoreTreeLearner, LearnerClassification):
    """CORE decision tree (default selection estimator ReliefF)."""
    name = "CORE tree"
    task = "classification"


class CoreTreeRegressionLearner(_CoreTreeLearner, LearnerRegression):
    """CORE regression tree (default selection estimator RReliefF)."""
    name = "CORE regression tree"
    task = "regression"


class CoreTreeLearner(_FitProgress, Fitter, _RootEstimateScorer):
    """CORE tree for a discrete or a numeric class. ``estimator`` is used for classification
    and ``regression_estimator`` for regression (None: ReliefF / RReliefF)."""
    name = "CORE tree"
    __fits__ = {"classification": CoreTreeClassificationLearner,
                "regression": CoreTreeRegressionLearner}
    __returns__ = CoreTreeModel

    def __init__(self, estimator=None, regression_estimator=None, min_leaf=5, min_majority=0.97,
                 max_depth=None, min_estimate=0.0, leaf_model="mean", pruning="m-estimate",
                 m=2.0, confidence=0.25, switch=False, switch_threshold=0.8, discretize=None,
                 thresholds_per_pass=25, preset="papers", preprocessors=None):
        kwargs = {k: v for k, v in vars().items()
                  if k not in ("self", "preprocessors", "__class__")}
        super().__init__(preprocessors=preprocessors, **kwargs)
        for name, value in kwargs.items():
            setattr(self, name, value)

    def _fit_model(self, data):
        learner = self.get_learner(data)
        learner._fit_callback = self._fit_callback
        try:
            return learner.fit_storage(data)
        finally:
            learner._fit_callback = None

    def incompatibility_reason(self, domain):
        return _target_reason(domain, self.name, {"classification", "regression"})

    def get_learner(self, problem_type):
        try:
            return super().get_learner(problem_type)
        except TypeError:
            domain = getattr(problem_type, "domain", problem_type)
            raise ValueError(_target_reason(domain, self.name, {"classification", "regression"})
                             or "CORE tree needs a single class variable") from None

    def _change_kwargs(self, kwargs, problem_type):
        kwargs = dict(kwargs)
        regression_estimator = kwargs.pop("regression_estimator")
        if problem_type == self.REGRESSION:
            kwargs["estimator"] = regression_estimator
        return kwargs


# ---------------------------------------------------------------------------------------------
# OBLIVION (Langley 1994; the numpy core is orangecontrib.relief.oblivion)

from Orange.tree import DiscreteNode, Node, TreeModel  # noqa: E402  (OBLIVION's model)

from .oblivion import ObliviousTree  # noqa: E402


def oblivious_tree_root(data, tree, rows):
    """The root of the oblivious tree (Langley 1994, §2) of ``tree`` (an
    :class:`.oblivion.ObliviousTreeModel` fitted on the rows ``rows`` of the table ``data``) as
    Orange's tree nodes: one level per retained categorical attribute, the one whose removal
    loses the most accuracy first, every node of a level split on the same attribute with a
    branch per value (None where no training case has the value); each node's value is the
    weighted class counts of the training cases that reach it, its ``subset`` their rows of
    ``data``. Numeric retained attributes are not split: within a leaf the cases vote by their
    distance in them (the model's prediction)."""
    attributes = data.domain.attributes
    retained = [int(i) for i in tree.retained if attributes[int(i)].is_discrete]
    retained.sort(key=lambda i: -tree.accuracy_loss[i])
    rows = np.asarray(rows, dtype=np.int32)
    y = np.asarray(tree.data.y, dtype=np.intp)
    weights = np.asarray(tree.data.instance_weights, dtype=float)
    columns = {i: data.get_column(attributes[i])[rows] for i in retained}
    n_classes = tree.data.n_classes

    def build(level, cases):
        counts = np.bincount(y[cases], weights=weights[cases], minlength=n_classes)
        if level == len(retained):
            node = Node(None, None, counts)
        else:
            index = retained[level]
            node = DiscreteNode(attributes[index], index, counts)
            values = columns[index][cases]
            node.children = [build(level + 1, cases[values == v]) if np.any(values == v)
                             else None for v in range(len(attributes[index].values))]
        node.subset = np.sort(rows[cases])
        return node

    return build(0, np.arange(len(rows)))


class ObliviousTreeClassifier(TreeModel):
    """An OBLIVION oblivious tree: predicts the class distribution of the nearest training cases
    in the space of the retained attributes (the rules of the pruned oblivious tree). It is an
    Orange ``TreeModel`` whose nodes are the oblivious tree of the retained categorical
    attributes (:func:`oblivious_tree_root`), so Tree Viewer shows it.

    ``tree`` is the numpy :class:`.oblivion.ObliviousTreeModel`; ``retained_attributes`` are
    the variables kept, ``eliminated_attributes`` those removed in elimination order, ``path`` the
    removals as (variable, estimated accuracy after removal)."""

    def __init__(self, data, tree, rows):
        super().__init__(data, oblivious_tree_root(data, tree, rows))
        self.tree = tree

    def __repr__(self):
        """One line: the retained attributes and the estimated accuracy;
        :meth:`print_tree` gives the elimination path."""
        names = ", ".join(a.name for a in self.retained_attributes) or "none"
        return (f"ObliviousTreeClassifier(retained {names} of "
                f"{len(self.domain.attributes)} attributes; estimated accuracy "
                f"{self.tree.accuracy:.3f})")

    __str__ = __repr__

    def print_tree(self):
        """The full printout: the retained attributes and every step of the elimination path
        with the estimated accuracy after it."""
        lines = [repr(self), f"{0:>4}  {'(all attributes)':<24} {self.tree.initial_accuracy:.3f}"]
        lines += [f"{step:>4}  {var.name:<24} {acc:.3f}"
                  for step, (var, acc) in enumerate(self.path, 1)]
        return "\n".join(lines)

    @property
    def retained_attributes(self):
        return [self.domain.attributes[i] for i in self.tree.retained]

    @property
    def eliminated_attributes(self):
        return [self.domain.attributes[i] for i in self.tree.eliminated]

    @property
    def path(self):
        return [(self.domain.attributes[i], acc) for i, acc in self.tree.path]

    def predict(self, X):
        """OBLIVION's prediction (not the stock tree's descent, which would stop at a missing
        value and ignore the numeric attributes)."""
        if sp.issparse(X):
            X = X.toarray()
        return self.tree.predict_proba(X)


class ObliviousTreeLearner(Learner, LearnerScorer):
    """OBLIVION (Langley 1994): backward elimination of attributes from an
    oblivious decision tree, accuracy estimated by leave-one-out (``folds=None``) or k-fold
    cross-validation; parameters are those of :class:`.oblivion.ObliviousTree` (``search``:
    "full-path", the default, or "greedy" for Langley's stopping rule).

    On Rank's Scorer input the score of an attribute is the estimated accuracy lost when it is
    removed (positive for the retained attributes; for eliminated ones, at the step that removed
    them).
    """
    name = "oblivious tree"
    __returns__ = ObliviousTreeClassifier
    supports_weights = True
    feature_type = Variable
    class_type = DiscreteVariable
    _progress_callback = None

    def __init__(self, folds=None, search="full-path", random_state=0, numeric_diff="linear",
                 missing="D", distance="manhattan", preprocessors=None):
        super().__init__(preprocessors=preprocessors)
        self.folds = folds
        self.search = search
        self.random_state = random_state
        self.numeric_diff = numeric_diff
        self.missing = missing
        self.distance = distance

    def oblivious_tree(self):
        """The numpy OBLIVION with this learner's parameters."""
        return ObliviousTree(folds=self.folds, search=self.search,
                             random_state=self.random_state, numeric_diff=self.numeric_diff,
                             missing=self.missing, distance=self.distance)

    def incompatibility_reason(self, domain):
        return _target_reason(domain, "Oblivious tree", {"classification"})

    def __call__(self, data, progress_callback=None):
        # fit_storage gets no callback from Orange's Learner: hand it over for this call
        self._progress_callback = progress_callback
        try:
            return super().__call__(data, progress_callback)
        finally:
            del self._progress_callback

    def fit_storage(self, data):
        encoded, rows = encode_table(data)
        report = self._progress_callback
        callback = None if report is None else (lambda f: report(0.1 + 0.9 * f))
        return ObliviousTreeClassifier(data, self.oblivious_tree().fit(encoded, callback), rows)

    def score(self, data):
        model = self(data)
        return model.tree.accuracy_loss, model.domain.attributes
