"""Attribute selection as an Orange preprocessor, so that it runs inside cross-validation.

Selecting attributes on the whole data and then cross-validating a model on those attributes
overstates its accuracy: the selection has seen the instances each fold tests on (selection bias,
Ambroise & McLachlan 2002, PNAS 99:6562; worst on wide data with few instances, such as SNPs).
:class:`SelectAttributes` is an Orange ``Preprocess``: given to Test and Score's *Preprocessor*
input, to ``Orange.evaluation.CrossValidation(...)(data, learners, preprocessor=...)`` or to a
learner's ``preprocessors``, it estimates the attributes on each training set it is given and
keeps those its rule chooses, so every fold selects anew::

    from Orange.classification import LogisticRegressionLearner
    from Orange.evaluation import CrossValidation, CA
    from orangecontrib.relief import ReliefF, SelectAttributes

    select = SelectAttributes(ReliefF(), rule="best", n=10)
    results = CrossValidation(k=5)(data, [LogisticRegressionLearner()], preprocessor=select)

Attribute Estimation's *Preprocessor* output is this object, with the widget's estimator and
selection rule.
"""
import numpy as np
from Orange.data import Domain
from Orange.preprocess.preprocess import Preprocess

from .estimators.selection import selection_mask
from .estimators.significance import METHODS, seeded
from .estimators.threshold import relief_threshold

__all__ = ["SelectAttributes", "RULES"]

#: the selection rules: the n best estimates, the estimates above Relief's threshold τ, the
#: q-values below a level
RULES = ("best", "threshold", "fdr")


class SelectAttributes(Preprocess):
    """Keep the attributes that ``scorer`` (a scorer of this package, such as ``ReliefF()``)
    estimates best on the data the preprocessor is given; the class and meta attributes stay.

    Parameters
    ----------
    scorer
        The estimator, with its parameters (and covariates, for one that adjusts for them).
    rule : {"best", "threshold", "fdr"}
        "best": the ``n`` best estimates; "threshold": the estimates above Relief's relevance
        threshold τ = 1/√(α·m) (Kira & Rendell 1992; m the estimator's iterations on these data,
        at most their instances), for the estimators to which it applies (ReliefF and the SURF
        family); "fdr": the attributes whose Benjamini-Hochberg q-value, from the significance
        test ``significance``, is below ``fdr``.
    n : int
        The number of attributes the rule "best" keeps.
    alpha : float
        α of τ, in (0, 1].
    fdr : float
        The level of the q-values, in (0, 1).
    significance : {"stir", "permutation", "npdr"}
        The test of the rule "fdr" (one of the scorer's ``significance_tests``).
    n_permutations : int
        The permutations of the tests that use them.
    random_state : int
        The seed of the permutations and, for an estimator that samples instances and has no
        ``random_state`` of its own, of its sampling: the same training set gets the same
        selection.
    """
    def __init__(self, scorer, rule="best", n=5, alpha=0.05, fdr=0.05, significance="stir",
                 n_permutations=100, random_state=0):
        self.scorer = scorer
        self.rule = rule
        self.n = n
        self.alpha = alpha
        self.fdr = fdr
        self.significance = significance
        self.n_permutations = n_permutations
        self.random_state = random_state

    def _check(self):
        if self.rule not in RULES:
            raise ValueError(f"rule must be one of {', '.join(RULES)}, got {self.rule!r}")
        if self.rule == "best" and (isinstance(self.n, bool)
                                    or not isinstance(self.n, (int, np.integer)) or self.n < 1):
            raise ValueError(f"n must be an integer >= 1, got {self.n!r}")
        if self.rule == "threshold" and not self.scorer.relief_threshold:
            raise ValueError(f"Relief's threshold does not apply to the estimates of "
                             f"{self.scorer.stem()}; choose the rule 'best' or 'fdr'")
        if self.rule == "fdr":
            if self.significance not in METHODS:
                raise ValueError(f"significance must be one of {', '.join(METHODS)}, "
                                 f"got {self.significance!r}")
            if self.significance not in self.scorer.significance_tests:
                raise ValueError(f"{self.scorer.stem()} offers the tests "
                                 f"{', '.join(self.scorer.significance_tests)}, "
                                 f"not {self.significance!r}")
            if not 0 < self.fdr < 1:
                raise ValueError(f"fdr must be in (0, 1), got {self.fdr!r}")

    def selected(self, data, callback=None):
        """The attributes of ``data`` (an Orange table) that the rule keeps, best first."""
        self._check()
        scorer = seeded(self.scorer, np.random.default_rng(self.random_state))
        qvalues = None
        if self.rule == "fdr":
            result = scorer.significance(data, self.significance, self.n_permutations,
                                         self.random_state, callback)
            scores, qvalues = result.scores, result.qvalues
        else:
            scores = scorer.scores(data, callback)
        threshold = None
        if self.rule == "threshold":
            threshold = relief_threshold(self.alpha, self._iterations(data))
        mask = selection_mask(scores, self.n if self.rule == "best" else None, threshold,
                              qvalues, self.fdr if self.rule == "fdr" else None)
        chosen = np.flatnonzero(mask)
        chosen = chosen[np.argsort(-scores[chosen], kind="stable")]
        return [data.domain.attributes[i] for i in chosen]

    def __call__(self, data):
        domain = Domain(self.selected(data), data.domain.class_vars, data.domain.metas)
        return data.transform(domain)

    def _iterations(self, data):
        """m of τ: the estimator's iterations on ``data``, at most its instances with a known
        class."""
        n = int(np.sum(~np.isnan(np.asarray(data.Y, dtype=float).reshape(len(data), -1)[:, 0])))
        iterations = getattr(self.scorer, "iterations", None)
        return min(iterations, n) if iterations else n
