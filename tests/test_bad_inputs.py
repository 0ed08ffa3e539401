"""The scorer battery: every scorer of ``scoring.SCORERS`` x every bad input of
:mod:`tests.bad_inputs`, each answered correctly (checked against an equivalent ordinary table)
or refused with a ``ValueError`` naming the problem."""
import inspect

import numpy as np
import pytest

from orangecontrib.relief import scoring

from bad_inputs import TASKS, bad_inputs, base_table, weighted_inputs


#: (scorer, case) pairs whose equivalence does not hold by definition: MultiScale Relief
#: standardises by the median and spread of all attributes' estimates, which the constant
#: attribute's 0 joins
NOT_EQUIVALENT = {("MultiScaleRelief", "constant attribute")}


def _cases(make):
    return [pytest.param(scorer, case, id=f"{scorer.__name__}-{task}-{case.name}")
            for scorer in scoring.SCORERS for task in TASKS if task in scorer.engine().tasks
            for case in make(task) if (scorer.__name__, case.name) not in NOT_EQUIVALENT]


def check(scorer_class, case):
    """Assert the handling ``case`` states (see :mod:`tests.bad_inputs`)."""
    scorer = scorer_class()
    limit = scorer_class.engine().max_classes
    class_var = case.table.domain.class_var
    if case.error is None and not case.sparse and limit is not None and class_var is not None \
            and class_var.is_discrete and len(class_var.values) > limit:
        # an estimator of a case-control class refuses more classes, saying so
        with pytest.raises(ValueError, match=f"the data have {len(class_var.values)}"):
            scorer(case.table)
        return
    if case.error is not None or (case.sparse and not scorer_class.supports_sparse_data):
        with pytest.raises(ValueError, match=case.error or "sparse"):
            scorer(case.table)
        return
    if case.same_as is not None:
        power = scorer_class.engine().target_unit_power
        with np.errstate(over="ignore", under="ignore"):
            factor = np.float64(case.target_scale) ** power
            want = np.asarray(scorer_class()(case.same_as), dtype=float) * factor
        if not np.all(np.isfinite(want[~np.isnan(want)])):
            with pytest.raises(ValueError, match="largest float"):   # no float holds them
                scorer(case.table)
            return
    got = np.asarray(scorer(case.table), dtype=float)
    assert got.shape == (len(case.table.domain.attributes),)
    if case.same_as is None:
        assert np.all(np.isfinite(got)), got
        return
    kept = case.kept if case.kept is not None else list(range(got.size))
    np.testing.assert_allclose(got[kept], want, rtol=1e-9, atol=1e-12 * factor)
    others = np.setdiff1d(np.arange(got.size), kept)
    nan = np.isin(others, case.nan_attributes)
    assert np.all(np.isnan(got[others[nan]])) and np.all(np.isfinite(got[others[~nan]]))


@pytest.mark.parametrize("scorer_class,case", _cases(bad_inputs))
def test_bad_input(scorer_class, case):
    check(scorer_class, case)


@pytest.mark.parametrize("scorer_class", scoring.SCORERS, ids=lambda c: c.__name__)
def test_the_other_target_type_is_named(scorer_class):
    for task in TASKS:
        if task not in scorer_class.engine().tasks:
            with pytest.raises(ValueError, match=f"needs a .*target.* {task} target"):
                scorer_class()(base_table(task))


K_SCORERS = [s for s in scoring.SCORERS
             if "k" in inspect.signature(s.engine().__init__).parameters]


@pytest.mark.parametrize("scorer_class", K_SCORERS, ids=lambda c: c.__name__)
def test_k_larger_than_any_group_equals_k_of_all_instances(scorer_class):
    task = next(t for t in TASKS if t in scorer_class.engine().tasks)
    data = base_table(task)
    n = len(data)
    np.testing.assert_allclose(scorer_class(k=10 * n)(data), scorer_class(k=n)(data),
                               rtol=1e-12)


@pytest.mark.parametrize("scorer_class,case", _cases(weighted_inputs))
def test_instance_weights(scorer_class, case):
    if not scorer_class.engine().reads_weights \
            and case.name not in ("unit weights", "zero weights"):
        # an estimator that does not read weights refuses them (unit weights are none, and
        # so are the ones left after the rows of weight 0)
        with pytest.raises(ValueError, match="weights"):
            scorer_class()(case.table)
        return
    check(scorer_class, case)
