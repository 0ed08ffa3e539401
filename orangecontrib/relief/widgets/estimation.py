"""The computation behind the Attribute Estimation widget, run in its background task: the
estimates of a table's attributes by one or several scorers (with p- and q-values when a
significance method is chosen) and the estimates as a table in the format of Orange's Rank."""
from types import SimpleNamespace

import numpy as np

from Orange.data import ContinuousVariable, Domain, StringVariable, Table

from orangecontrib.relief.estimators.significance import significance
from orangecontrib.relief.widgets import missingcalls
from orangecontrib.relief.widgets.background import progress_callback

__all__ = ["SIGNIFICANCE", "PERMUTATION_SEED", "estimate", "estimate_all", "scores_table",
           "covariates_as_metas", "attribute_indices"]


#: the significance choices: (label, method of :func:`.significance.significance`); stored by
#: index, so a new choice goes last
SIGNIFICANCE = (("None", None), ("STIR", "stir"), ("Permutations", "permutation"),
                ("Regression (NPDR)", "npdr"), ("Trend test", "trend"))
#: the seed of the widget's permutations, so that its p-values repeat
PERMUTATION_SEED = 0


def estimate(scorer, data, state, *, method=None, n_permutations=100, callback=None):
    """Estimates of ``data``'s attributes by ``scorer`` (a scorer of ``scoring.SCORERS``, which is
    also an engine estimator): encode once (with the scorer's covariates, which must be meta
    attributes of ``data``) and run the estimator with a progress callback that
    raises :class:`~.background.Cancelled` when ``state`` requests interruption (its context and
    its estimate step alike); for the Π framework the context is kept, for its four-case count
    matrices, and for TuRF, for the attributes its rounds removed.
    With ``method`` ("stir", "permutation", "npdr" or "trend",
    :func:`.significance.significance`) also the p-values and q-values (STIR and the
    regression tests only for an estimator that
    offers it, :attr:`.base.Estimator.significance_tests`). ``callback`` replaces
    the one made from ``state`` (a part of a longer task's progress).

    Returns a namespace with ``name`` (the scorer's stem), ``scores`` (1-D, aligned with
    ``data.domain.attributes``), ``pvalues`` and ``qvalues`` (or None), ``case_counts`` (list
    of per-attribute count arrays, or None), ``removed`` ({attribute index: TuRF round that
    removed it}, empty for other estimators), ``m`` (the iterations used), ``n_ignored``
    (instances dropped for a missing class) and ``n_missing_covariates`` (those dropped for a
    missing covariate value)."""
    encoded, rows, _ = scorer.encode(data)
    n_missing_covariates = 0
    if scorer.covariates:
        values = np.column_stack([data.get_column(name) for name in scorer.covariates])
        has_class = ~np.isnan(np.asarray(data.Y, dtype=float).reshape(len(data), -1)[:, 0])
        n_missing_covariates = int((np.isnan(values.astype(float)).any(axis=1)
                                    & has_class).sum())
    if callback is None:
        callback = progress_callback(state)
    pvalues = qvalues = None
    if method is not None and method not in scorer.significance_tests:
        method = None
    context = None
    if scorer.counts_cases or scorer.removes_attributes:
        # Π: the context holds the counts the widget shows; TuRF: the removal rounds
        context = scorer.context(encoded, None if method else callback)
        scores = np.asarray(scorer.estimate(context), dtype=float)
    elif method is None:                 # the estimator's own run reports all its steps
        scores = np.asarray(scorer.engine().__call__(scorer, encoded, callback), dtype=float)
    if method is not None:
        result = significance(scorer, encoded, method, n_permutations, PERMUTATION_SEED,
                              callback)
        scores, pvalues, qvalues = result.scores, result.pvalues, result.qvalues
    counts = context.case_counts if scorer.counts_cases else None
    rounds = context.removed if scorer.removes_attributes else ()
    removed = {int(attr): round_ for round_, (attributes, _) in enumerate(rounds, 1)
               for attr in attributes}
    iterations = getattr(scorer, "iterations", None)
    m = min(iterations, encoded.n_instances) if iterations else encoded.n_instances
    return SimpleNamespace(name=scorer.stem(), scores=scores, pvalues=pvalues, qvalues=qvalues,
                           case_counts=counts, removed=removed, m=m,
                           n_ignored=len(data) - len(rows) - n_missing_covariates,
                           n_missing_covariates=n_missing_covariates)


def estimate_all(scorers, data, state, *, method=None, n_permutations=100, impute=False):
    """:func:`estimate` for each of ``scorers`` in turn (the progress bar split evenly between
    them) on ``data`` with missing genotype calls filled if ``impute``
    (:func:`.missingcalls.prepare`): the namespace of the first, with ``compared`` the list of
    the others' and ``calls`` what was missing and filled."""
    data, calls = missingcalls.prepare(data, impute, state)
    n = len(scorers)
    runs = [estimate(scorer, data, state, method=method, n_permutations=n_permutations,
                     callback=progress_callback(state, 100 * i / n, 100 * (i + 1) / n))
            for i, scorer in enumerate(scorers)]
    runs[0].compared = runs[1:]
    runs[0].calls = calls
    return runs[0]



def scores_table(attributes, columns, first):
    """The estimates as a table in Rank's format: a column per (run, kind) of ``columns`` (kind
    "scores", "pvalues" or "qvalues"), the scores named by the run's name and the p- and
    q-values after them "p" and "q" for the ``first`` run and "p (name)", "q (name)" for the
    others; the names of ``attributes`` as the meta attribute "Feature"."""
    values, names = [], []
    for run, kind in columns:
        values.append(getattr(run, kind))
        if kind == "scores":
            names.append(run.name)
        else:
            names.append(kind[0] if run is first else f"{kind[0]} ({run.name})")
    domain = Domain([ContinuousVariable(name) for name in names],
                    metas=[StringVariable("Feature")])
    features = np.array([[a.name] for a in attributes], dtype=object)
    table = Table.from_numpy(domain, np.column_stack(values), metas=features)
    table.name = "Attribute Estimates"
    return table


def covariates_as_metas(data, names):
    """``data`` whose attributes named in ``names`` (the covariates) are meta attributes, so
    that they are not estimated (``data`` itself when it has none of them); None when every
    attribute is named."""
    if data is None or not names:
        return data
    domain = data.domain
    moved = tuple(var for var in domain.attributes if var.name in names)
    if not moved:
        return data
    if len(moved) == len(domain.attributes):
        return None
    return data.transform(Domain([var for var in domain.attributes if var not in moved],
                                 domain.class_vars, domain.metas + moved))


def attribute_indices(domain, variables):
    """The indices of ``variables`` among the attributes of ``domain`` (those that are)."""
    n, indices = len(domain.attributes), []
    for var in variables:
        try:
            index = domain.index(var)
        except ValueError:
            continue
        if 0 <= index < n:
            indices.append(index)
    return indices
