"""Orange learners (DESIGN.md "Orange integration facts"; ORANGE-INTEGRATION.md §3-4).

* :class:`CoreTreeClassificationLearner`, :class:`CoreTreeRegressionLearner` and the
  :class:`CoreTreeLearner` fitter grow CORE trees (:mod:`.tree`) whose splits are chosen by any
  engine estimator and return a ``TreeModel`` (:class:`.tree.to_orange.CoreTreeModel`) built from
  Orange's stock node classes, so Tree Viewer, Pythagorean Tree, Predictions, Test and Score,
  cross-validation and pickling take it. Each inner node's ``split_estimator`` and ``rho`` say
  which estimator chose its split (``model.print_tree()`` shows them).
* The learners are also ``LearnerScorer``s: on Rank's Scorer input the score of each attribute is
  the selection estimator's estimate at the root, i.e. on the whole training data.

``discretize=N`` pre-discretises numeric attributes into N equal-width intervals (Π paper §5.1)
as part of preprocessing, so the model's domain holds the discretised variables and new data are
discretised the same way.
"""
import numpy as np
from Orange.base import Learner
from Orange.classification.base_classification import LearnerClassification
from Orange.data import Domain, Variable
from Orange.modelling import Fitter
from Orange.preprocess.discretize import Discretizer
from Orange.preprocess.score import LearnerScorer
from Orange.regression.base_regression import LearnerRegression

from .orange_data import encode_table
from .tree import CoreTree
from .tree.discretization import equal_width_cuts
from .tree.to_orange import CoreTreeModel, orange_tree_model

__all__ = ["CoreTreeClassificationLearner", "CoreTreeRegressionLearner", "CoreTreeLearner"]


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


class _CoreTreeLearner(Learner, _RootEstimateScorer):
    """The shared part of the classification and regression learners; parameters are those of
    :class:`.tree.CoreTree`."""
    __returns__ = CoreTreeModel
    supports_weights = False

    def __init__(self, estimator=None, min_leaf=5, min_majority=0.97, max_depth=None,
                 min_estimate=0.0, leaf_model="mean", pruning="m-estimate", m=2.0,
                 confidence=0.25, switch=False, switch_threshold=0.8, discretize=None,
                 max_thresholds=50, preprocessors=None):
        super().__init__(preprocessors=preprocessors)
        self.params = {k: v for k, v in vars().items()
                       if k not in ("self", "preprocessors", "__class__")}

    def core_tree(self):
        """The numpy tree builder with this learner's parameters (discretisation is done by
        :meth:`preprocess`)."""
        return CoreTree(**{**self.params, "discretize": None})

    def preprocess(self, data, progress_callback=None):
        data = super().preprocess(data, progress_callback)
        bins = self.params["discretize"]
        if bins is None:
            return data
        if isinstance(bins, bool) or not isinstance(bins, (int, np.integer)) or bins < 2:
            raise ValueError(f"discretize must be None or an integer >= 2, got {bins!r}")
        encoded, _ = encode_table(data)
        cuts = equal_width_cuts(encoded, bins)
        attributes = [Discretizer.create_discretized_var(var, list(cuts[i]))
                      if i in cuts and cuts[i].size else var
                      for i, var in enumerate(data.domain.attributes)]
        return data.transform(Domain(attributes, data.domain.class_vars, data.domain.metas))

    def fit_storage(self, data):
        encoded, rows = encode_table(data)
        grown = self.core_tree().fit(encoded)
        return orange_tree_model(grown, data, encoded.y, rows)


class CoreTreeClassificationLearner(_CoreTreeLearner, LearnerClassification):
    """CORE decision tree (default selection estimator ReliefF)."""
    name = "CORE tree"


class CoreTreeRegressionLearner(_CoreTreeLearner, LearnerRegression):
    """CORE regression tree (default selection estimator RReliefF)."""
    name = "CORE regression tree"


class CoreTreeLearner(Fitter, _RootEstimateScorer):
    """CORE tree for a discrete or a numeric class. ``estimator`` is used for classification
    and ``regression_estimator`` for regression (None: ReliefF / RReliefF)."""
    name = "CORE tree"
    __fits__ = {"classification": CoreTreeClassificationLearner,
                "regression": CoreTreeRegressionLearner}
    __returns__ = CoreTreeModel

    def __init__(self, estimator=None, regression_estimator=None, min_leaf=5, min_majority=0.97,
                 max_depth=None, min_estimate=0.0, leaf_model="mean", pruning="m-estimate",
                 m=2.0, confidence=0.25, switch=False, switch_threshold=0.8, discretize=None,
                 max_thresholds=50, preprocessors=None):
        kwargs = {k: v for k, v in vars().items()
                  if k not in ("self", "preprocessors", "__class__")}
        super().__init__(preprocessors=preprocessors, **kwargs)

    def get_learner(self, problem_type):
        try:
            return super().get_learner(problem_type)
        except TypeError:
            raise ValueError("CORE tree needs data with a single class variable: discrete "
                             "(classification) or numeric (regression)") from None

    def _change_kwargs(self, kwargs, problem_type):
        kwargs = dict(kwargs)
        regression_estimator = kwargs.pop("regression_estimator")
        if problem_type == self.REGRESSION:
            kwargs["estimator"] = regression_estimator
        return kwargs
