"""Take the widget screenshots shown in the widget help (doc/widgets/images/), one per state of
every widget, each at the size the widget opens with (which fits a 1366 x 768 screen).

    QT_QPA_PLATFORM=offscreen python doc/widget_screenshots.py   # then: python doc/build_help.py

Each widget is created headless with its default settings (not those a canvas stored), given the
data of its help page, put in the state named by :data:`STATES` (sections opened, estimators
compared, attributes selected), left to finish its computation and grabbed with
``QWidget.grab``. The data are the add-on's parity problems
(:func:`orangecontrib.relief.datasets.parity`) and Orange's housing, so the pictures match the
numbers in the text. The widget tests take the same states (``tests/widgets/test_layout.py``)
and check that each fits the screen and elides no text.
"""
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

import numpy as np
import orangewidget.settings
from AnyQt.QtCore import Qt
from AnyQt.QtWidgets import QApplication

IMAGES = Path(__file__).resolve().parent / "widgets" / "images"
#: the screen every widget fits
SCREEN = (1366, 768)
#: the largest minimum height of a widget (as Orange's own widgets keep)
MAX_MIN_HEIGHT = 700


@dataclass
class State:
    """A widget in one state: ``name`` of its picture, the widget's class ``widget`` (a dotted
    name under ``orangecontrib.relief.widgets``), the ``data`` it gets (a function), and
    ``before`` (settings made before the data arrive) and ``after`` (once computed);
    ``scrolls``: its table may be wider than its pane (then the column it is sorted by is in
    view)."""
    name: str
    widget: str
    data: Callable
    before: Optional[Callable] = None
    after: Optional[Callable] = None
    scrolls: bool = False

    def widget_class(self):
        module, cls = self.widget.rsplit(".", 1)
        return getattr(__import__(f"orangecontrib.relief.widgets.{module}", fromlist=[cls]),
                       cls)


# --- data
def parity2():
    from orangecontrib.relief.datasets import parity
    return parity(order=2, n_irrelevant=10, n_instances=200)


def parity3():
    from orangecontrib.relief.datasets import parity
    return parity(order=3, n_irrelevant=10, n_instances=200)


def parity2_300():
    from orangecontrib.relief.datasets import parity
    return parity(order=2, n_irrelevant=10, n_instances=300)


def housing():
    from Orange.data import Table
    return Table("housing")


def parity2_covariates():
    """:func:`parity2` with the meta attributes age (numeric), sex (categorical) and id (text),
    for the covariates' chooser."""
    from Orange.data import ContinuousVariable, DiscreteVariable, Domain, StringVariable, Table
    data = parity2()
    rng = np.random.default_rng(0)
    n = len(data)
    metas = np.array([[a, s, f"p{i:03d}"] for i, (a, s) in enumerate(
        zip(rng.normal(50, 10, n).round(), rng.integers(0, 2, n)))], dtype=object)
    domain = Domain(data.domain.attributes, data.domain.class_var,
                    [ContinuousVariable("age"), DiscreteVariable("sex", values=("f", "m")),
                     StringVariable("id")])
    return Table.from_numpy(domain, data.X, data.Y, metas=metas)


def long_name(i):
    """A 60-character attribute name (as gene and probe names are), told apart by its end."""
    return f"expression_in_tissue_sample_of_patient_cohort_A_probe_{i:06d}"


def many_long_names(n_attributes=500, n_instances=200):
    """``n_attributes`` binary attributes with 60-character names, the class the parity of the
    first two."""
    from Orange.data import DiscreteVariable, Domain, Table
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, (n_instances, n_attributes)).astype(float)
    y = (X[:, 0] != X[:, 1]).astype(float)
    attributes = [DiscreteVariable(long_name(i), values=("0", "1"))
                  for i in range(n_attributes)]
    return Table.from_numpy(Domain(attributes, DiscreteVariable("y", values=("0", "1"))), X, y)


def parity2_long_names():
    """:func:`parity2` with 60-character names."""
    from Orange.data import Domain, Table
    data = parity2()
    attributes = [a.renamed(long_name(i)) for i, a in enumerate(data.domain.attributes)]
    return Table.from_numpy(Domain(attributes, data.domain.class_var), data.X, data.Y)


def parity2_300_long_names():
    """:func:`parity2_300` with 60-character names."""
    from Orange.data import Domain, Table
    data = parity2_300()
    attributes = [a.renamed(long_name(i)) for i, a in enumerate(data.domain.attributes)]
    return Table.from_numpy(Domain(attributes, data.domain.class_var), data.X, data.Y)


def weak_2000():
    """2,000 weak (random) attributes of 200 instances: Relief's τ lies far above their
    estimates."""
    from Orange.data import DiscreteVariable, Domain, Table
    rng = np.random.default_rng(0)
    X = rng.integers(0, 3, (200, 2000)).astype(float)
    y = rng.integers(0, 2, 200).astype(float)
    attributes = [DiscreteVariable(f"a{i:04d}", values=("0", "1", "2")) for i in range(2000)]
    return Table.from_numpy(Domain(attributes, DiscreteVariable("y", values=("0", "1"))), X, y)


def snp_study():
    """300 individuals' genotypes (0, 1, 2; minor allele frequency 0.3) of 40 SNPs rs1 ... rs40
    and a case-control phenotype set by rs5 and rs12 together: a case where exactly one of them
    carries the minor allele (each alone is unrelated to it), 10 % of the phenotypes flipped."""
    from Orange.data import DiscreteVariable, Domain, Table
    rng = np.random.default_rng(0)
    X = rng.binomial(2, 0.3, (300, 40)).astype(float)
    y = ((X[:, 4] > 0) != (X[:, 11] > 0)).astype(float)
    flip = rng.random(300) < 0.1
    y[flip] = 1 - y[flip]
    attributes = [DiscreteVariable(f"rs{i + 1}", values=("0", "1", "2")) for i in range(40)]
    domain = Domain(attributes, DiscreteVariable("phenotype", values=("control", "case")))
    return Table.from_numpy(domain, X, y)


def snp_study_long_names():
    """:func:`snp_study` with 60-character names."""
    from Orange.data import Domain, Table
    data = snp_study()
    attributes = [a.renamed(long_name(i)) for i, a in enumerate(data.domain.attributes)]
    return Table.from_numpy(Domain(attributes, data.domain.class_var), data.X, data.Y)


# --- states
def choose(widget, name):
    """Choose estimator ``name`` in Attribute Estimation's combo."""
    widget.estimator_combo.setCurrentText(name)
    widget.estimator_combo.activated.emit(widget.estimator_combo.currentIndex())


def compare(widget, *names):
    """Tick ``names`` in Attribute Estimation's Compare with list."""
    model = widget.compare_model
    for row in range(model.rowCount()):
        item = model.item(row)
        if item.text() in names:
            item.setCheckState(Qt.Checked)


def best_two(widget):
    widget.controls.n_selected.setValue(2)
    widget.set_selection_method(widget.SelectNBest)


def everything_open(widget):
    """ReliefF's Advanced section open, STIR, two estimators compared."""
    choose(widget, "ReliefF")
    widget.params_stack.set_advanced_expanded(True)
    widget.significance_method = 1
    widget._on_significance_changed()
    compare(widget, "MultiSURF", "Unified Π")


def four_with_stir(widget):
    """ReliefF compared with Relief, MultiSURF and SURF, with STIR's p- and q-values."""
    choose(widget, "ReliefF")
    widget.significance_method = 1
    widget._on_significance_changed()
    compare(widget, "Relief", "MultiSURF", "SURF")


def sort_by_last_estimator(widget):
    """Sort the table by the last estimator's column (as a click on its header)."""
    from Orange.widgets.utils import enum2int
    column = 2 + 3 * (len(widget.runs()) - 1)
    widget.ranks_model.sort(column, Qt.DescendingOrder)
    widget.ranks_view.horizontalHeader().setSortIndicator(column, Qt.DescendingOrder)
    widget._on_header_click()
    assert widget.sorting == (column, enum2int(Qt.DescendingOrder))


def change_data_and_estimator(widget):
    """Other data, then another estimator, then the first data again."""
    widget.set_data(parity3())
    widget.handleNewSignals()
    choose(widget, "Unified Π")
    choose(widget, "MultiSURF")
    widget.set_data(parity2())
    widget.handleNewSignals()


def npdr_compared(widget):
    """NPDR compared with ReliefF."""
    choose(widget, "NPDR")
    compare(widget, "ReliefF")


def adjust_for_age_and_sex(widget):
    """Choose age and sex as covariates (as clicks in the list)."""
    domain = widget.input_data.domain
    widget.covariates = [domain["age"], domain["sex"]]
    widget._on_covariates_changed()


def pi_first(widget):
    choose(widget, "Unified Π")
    compare(widget, "ReliefF")


def turf(widget):
    choose(widget, "TuRF")


def switched_to_regression(widget):
    choose(widget, "Contextual Merit")
    compare(widget, "ReliefF", "MSE")


def tree_everything_open(widget):
    widget.advanced.set_expanded(True)
    widget.class_stack.set_advanced_expanded(True)
    widget.controls.switch.setChecked(True)


def select_informative(widget):
    widget.attr_view.selectionModel().clear()
    for index in range(2):          # as a click on each curve
        widget.toggle_attribute(index)


def select_first_two(widget):
    select_informative(widget)
    widget.filter_edit.setText("probe_00000")


def cross_validation(widget):
    widget.controls.estimate.buttons[1].click()


def ten_best(widget):
    widget.controls.top.setValue(10)


def select_best_pair(widget):
    widget.view.selectRow(0)


def choose_three(widget):
    """Choose rs5, rs12 and rs20 in Interacting Pairs' list."""
    selection = widget.attr_list.selectionModel()
    for row in (4, 11, 19):
        selection.select(widget.attr_model.index(row), selection.Select)


def thirty_best(widget):
    widget.controls.top.setValue(30)


STATES = (
    State("attribute-estimation", "owattributeestimation.OWAttributeEstimation", parity2,
          after=best_two),
    State("attribute-estimation-compare", "owattributeestimation.OWAttributeEstimation",
          parity2, before=everything_open, after=best_two),
    State("attribute-estimation-covariates", "owattributeestimation.OWAttributeEstimation",
          parity2_covariates, before=npdr_compared, after=adjust_for_age_and_sex),
    State("attribute-estimation-pi", "owattributeestimation.OWAttributeEstimation", parity2,
          before=pi_first),
    State("attribute-estimation-turf", "owattributeestimation.OWAttributeEstimation", parity2,
          before=turf),
    State("attribute-estimation-regression", "owattributeestimation.OWAttributeEstimation",
          housing, before=switched_to_regression),
    State("attribute-estimation-four", "owattributeestimation.OWAttributeEstimation",
          parity2, before=four_with_stir, after=sort_by_last_estimator, scrolls=True),
    State("attribute-estimation-long-names", "owattributeestimation.OWAttributeEstimation",
          parity2_long_names, after=best_two),
    State("attribute-estimation-long-names-four",
          "owattributeestimation.OWAttributeEstimation", parity2_long_names,
          before=four_with_stir, after=sort_by_last_estimator, scrolls=True),
    State("attribute-estimation-2000", "owattributeestimation.OWAttributeEstimation",
          weak_2000),
    State("attribute-estimation-changed", "owattributeestimation.OWAttributeEstimation",
          housing, after=change_data_and_estimator),
    State("relief-tree", "owrelieftree.OWReliefTree", parity3),
    State("relief-tree-advanced", "owrelieftree.OWReliefTree", parity3,
          before=tree_everything_open),
    State("locality-profile", "owlocalityprofile.OWLocalityProfile", parity2,
          after=select_informative),
    State("locality-profile-500", "owlocalityprofile.OWLocalityProfile", many_long_names,
          before=lambda w: w.controls.k_max.setValue(30), after=select_first_two),
    State("interacting-pairs", "owinteractingpairs.OWInteractingPairs", snp_study,
          before=ten_best, after=select_best_pair),
    State("interacting-pairs-chosen", "owinteractingpairs.OWInteractingPairs", snp_study,
          after=choose_three),
    State("interacting-pairs-2000", "owinteractingpairs.OWInteractingPairs", weak_2000,
          before=thirty_best),
    State("interacting-pairs-long-names", "owinteractingpairs.OWInteractingPairs",
          snp_study_long_names, before=ten_best, after=select_best_pair),
    State("oblivious-tree", "owoblivioustree.OWObliviousTree", parity2_300),
    State("oblivious-tree-cv", "owoblivioustree.OWObliviousTree", parity2_300,
          before=cross_validation),
    State("oblivious-tree-long-names", "owoblivioustree.OWObliviousTree",
          parity2_300_long_names),
)


def settle(app, widget, timeout=300):
    """Process events until the widget's background task (if any) has finished."""
    start = time.perf_counter()
    while time.perf_counter() - start < timeout:
        app.processEvents()
        if getattr(widget, "task", None) is None and not widget.isInvalidated():
            break
        time.sleep(0.02)
    for _ in range(20):
        app.processEvents()
        time.sleep(0.01)


def show(app, state, widget):
    """Show ``widget`` in ``state``, with its computation done, at the size it opens with then
    (its size hint with the data in)."""
    if state.before is not None:
        state.before(widget)
    for _ in range(5):          # let the layouts follow the sections opened
        app.processEvents()
    widget.show()
    widget.resize(widget.sizeHint())
    widget.set_data(state.data())
    widget.handleNewSignals()
    settle(app, widget)
    widget.resize(widget.sizeHint())    # as a widget opened on a canvas whose data are in
    settle(app, widget)
    if state.after is not None:
        state.after(widget)
        settle(app, widget)
    return widget


def main():
    app = QApplication.instance() or QApplication([])
    # the widgets' defaults, not the settings a canvas stored for them
    defaults = tempfile.mkdtemp()
    orangewidget.settings.widget_settings_dir = lambda versioned=True: defaults
    for state in STATES:
        widget = show(app, state, state.widget_class()())
        widget.grab().save(str(IMAGES / f"{state.name}.png"))
        print(f"{state.name}: {widget.width()} x {widget.height()}")
        widget.onDeleteWidget()
        widget.close()


if __name__ == "__main__":
    main()
