"""The widget part of the bad-input battery: every widget x every bad input of
:mod:`tests.bad_inputs` (both target types, and instance weights). Each is either answered —
no error, outputs sent, and for Attribute Estimation the scores of an equivalent ordinary table —
or refused with an error message that names the problem, never a traceback or an exception
class in the message. One widget of each class takes all the cases in turn, as on a canvas, so
each case also checks that the messages of the one before are gone once the data are good."""
import re

import numpy as np
import pytest
from Orange.widgets.tests.base import WidgetTest

from orangecontrib.relief import scoring
from orangecontrib.relief.widgets.owattributeestimation import OWAttributeEstimation
from orangecontrib.relief.widgets.owinteractingpairs import OWInteractingPairs
from orangecontrib.relief.widgets.owlocalityprofile import OWLocalityProfile
from orangecontrib.relief.widgets.owoblivioustree import OWObliviousTree
from orangecontrib.relief.widgets.owrelieftree import OWReliefTree

from bad_inputs import TASKS, bad_inputs, weighted_inputs

WIDGETS = (OWAttributeEstimation, OWLocalityProfile, OWReliefTree, OWObliviousTree,
           OWInteractingPairs)
TIMEOUT = 60000
#: what an error message must not look like: a traceback or a bare exception
TRACEBACK = re.compile(r"Traceback|\b\w+(Error|Exception)\b|File \"")


def _cases():
    return [pytest.param(cls, task, case, id=f"{cls.__name__}-{task}-{case.name}")
            for cls in WIDGETS for task in TASKS
            for case in bad_inputs(task) + weighted_inputs(task)]


def _output(widget):
    """The widget's main result on its outputs (None when it has none)."""
    if isinstance(widget, OWAttributeEstimation):
        return widget.Outputs.scores
    if isinstance(widget, OWLocalityProfile):
        return None
    if isinstance(widget, OWInteractingPairs):
        return widget.Outputs.pairs
    return widget.Outputs.model


class BadInputCase(WidgetTest):
    __test__ = False

    def runTest(self):      # pylint: disable=invalid-name; instances made per case below
        pass


@pytest.fixture(scope="module")
def harness():
    BadInputCase.setUpClass()
    case = BadInputCase()
    case.widgets = {cls: case.create_widget(cls) for cls in WIDGETS}
    yield case
    BadInputCase.tearDownClass()


def _send(harness, widget, table):
    harness.send_signal(widget.Inputs.data, table, widget=widget)
    if hasattr(widget, "apply"):            # learner widgets fit on handleNewSignals
        widget.unconditional_apply()
    harness.wait_until_finished(widget=widget, timeout=TIMEOUT)


@pytest.mark.parametrize("widget_class,task,case", _cases())
def test_bad_input(harness, widget_class, task, case):
    widget = harness.widgets[widget_class]
    _send(harness, widget, case.table)
    errors = [m.formatted for m in widget.Error.active]
    for message in errors:
        assert not TRACEBACK.search(message), message
    output = _output(widget)
    answered = not errors
    refused = case.error is not None or (widget_class is OWObliviousTree and task == "regression")
    if widget_class is OWInteractingPairs and not refused:
        # the test of interaction takes categorical attributes and a categorical target only
        numeric = [a.name for a in case.table.domain.attributes if a.is_continuous]
        if task == "regression":
            refused = True
            assert any("categorical target" in message for message in errors), errors
        elif numeric or case.table.has_weights():     # (it counts instances: no weights)
            refused = True
            assert any("weights" in message if not numeric
                       else "discretize" in message and numeric[0] in message
                       or "weights" in message for message in errors), errors
    if case.sparse and widget_class in (OWReliefTree, OWObliviousTree) and not refused:
        refused = True                                  # the trees need dense data
        assert any("sparse" in message for message in errors), errors
    if refused:
        assert errors, f"{case.name}: no error shown"
    elif isinstance(widget, OWAttributeEstimation) and case.same_as is not None:
        _check_scores(harness, widget, case, errors)
    elif not (case.name == "every class a singleton" and widget_class is OWObliviousTree):
        assert answered, errors
    if output is not None and not answered:
        assert harness.get_output(output, widget=widget) is None
    if answered and output is not None:
        assert harness.get_output(output, widget=widget) is not None
    if answered and isinstance(widget, OWLocalityProfile):
        assert widget.result is not None and widget.result.profile.shape[1] == \
            len(case.table.domain.attributes)


def _check_scores(harness, widget, case, errors):
    """The widget's scores are those of the equivalent ordinary table (default estimator of
    the target type), or an error where no float holds them."""
    cls = scoring.scorer_by_name(widget.current_name)
    with np.errstate(over="ignore", under="ignore"):
        factor = np.float64(case.target_scale) ** cls.engine().target_unit_power
        want = np.asarray(cls()(case.same_as), dtype=float) * factor
    if not np.all(np.isfinite(want[~np.isnan(want)])):
        assert errors
        return
    assert not errors, errors
    got = harness.get_output(widget.Outputs.scores, widget=widget).X[:, 0]
    kept = case.kept if case.kept is not None else list(range(got.size))
    np.testing.assert_allclose(got[kept], want, rtol=1e-9, atol=1e-12 * factor)
