"""The controls of the Attribute Estimation widget, each group built by a function on the
widget (the master whose settings the controls edit and whose handlers they call), which keeps
the controls as its attributes: the estimator with its parameters, the covariates, the
estimators compared, the significance method and the selection of attributes."""
from AnyQt.QtCore import Qt
from AnyQt.QtGui import QStandardItem, QStandardItemModel
from AnyQt.QtWidgets import (QButtonGroup, QComboBox, QGridLayout, QLabel, QListView, QRadioButton,
                             QSizePolicy)

from Orange.data import ContinuousVariable
from Orange.widgets import gui

from orangecontrib.relief.widgets import missingcalls
from orangecontrib.relief.widgets.estimatesmodels import CovariateModel
from orangecontrib.relief.widgets.estimation import SIGNIFICANCE
from orangecontrib.relief.widgets.estimatorparams import ParameterStack

__all__ = ["build_form"]

#: the rows of the covariates' list in view (it scrolls beyond)
COVARIATE_ROWS = 4
#: the rows of the compared estimators' list in view
COMPARED_ROWS = 6


def build_form(widget):
    """The controls in ``widget``'s control area: the estimator, covariates and compared
    estimators in a form that scrolls when it is taller than the window (e.g. ReliefF's
    advanced parameters on a laptop screen); the significance, the selection and Send below
    it, always in view."""
    scroll = gui.VerticalScrollArea(widget.controlArea)
    form = gui.vBox(None, margin=0)
    scroll.setWidget(form)
    widget.controlArea.layout().addWidget(scroll)
    estimator_box(widget, form)
    covariates_box(widget, form)
    compare_box(widget, form)
    gui.rubber(form)
    # the significance beside the selection, whose q < level needs it (in the form it was
    # below the fold)
    column = gui.vBox(None, margin=0)
    significance_box(widget, column)
    selection_box(widget, widget.buttonsArea)
    widget.buttonsArea.layout().addWidget(column)
    gui.rubber(column)
    gui.auto_send(column, widget, "auto_apply")


def estimator_box(widget, form):
    """The estimator's combo (``estimator_combo``), its parameters (``params_stack``, whose
    editors are ``editors``) and the option to fill missing genotype calls
    (:func:`.missingcalls.add_option`)."""
    box = gui.vBox(form, "Estimator")
    widget.estimator_combo = QComboBox(
        toolTip="The estimator whose parameters are edited below, whose scores come "
                "first and which is the Scorer output. On data whose target it does not "
                "suit, its counterpart is used: ReliefF (and Relief) becomes RReliefF on "
                "a numeric target and RReliefF ReliefF on a categorical one, an impurity "
                "measure MSE (and MSE Gini gain), any other the first estimator listed "
                "for that target; estimators that suit both (such as MultiSURF) stay.")
    widget.estimator_combo.addItems(list(widget.scorer_classes))
    widget.estimator_combo.activated.connect(widget._on_estimator_changed)
    box.layout().addWidget(widget.estimator_combo)

    widget.params_stack = ParameterStack(widget.scorer_classes, widget.estimator_params,
                                         widget.advanced_shown)
    widget.params_stack.changed.connect(widget._on_parameters_changed)
    widget.params_stack.advanced_toggled.connect(widget._on_advanced_toggled)
    widget.editors = widget.params_stack.editors
    box.layout().addWidget(widget.params_stack)
    missingcalls.add_option(widget, box, widget.restart)


def covariates_box(widget, form):
    """The list of variables that may be chosen as covariates (``covariate_view`` of
    ``covariate_model``, bound to the setting ``covariates``) and a note why it is disabled
    (``covariate_note``)."""
    box = gui.vBox(form, "Covariates")
    widget.covariate_model = CovariateModel(parent=widget)
    widget.covariate_tip = (
        "Variables to adjust for (such as sex, age or ancestry), which may change both the "
        "target and some attributes: an attribute that only follows a covariate is then not "
        "credited. The estimators that adjust for covariates ("
        + ", ".join(widget.adjusting) + ") regress, over the pairs of neighbours, the "
        "pair's target difference on the attribute's difference with the covariates' "
        "differences as further terms (NPDR: Le, Dawkins & McKinney, Bioinformatics 2020). "
        "Meta attributes are listed first, then attributes; an attribute chosen as a "
        "covariate is not estimated. Numeric or categorical variables without missing "
        "values; click to choose or leave out.")
    widget.covariate_view = gui.listView(
        box, widget, "covariates", model=widget.covariate_model,
        selectionMode=QListView.MultiSelection, callback=widget._on_covariates_changed,
        toolTip=widget.covariate_tip)
    widget.covariate_model[:] = [ContinuousVariable("x")]    # a row to measure
    widget.covariate_view.setFixedHeight(
        COVARIATE_ROWS * widget.covariate_view.sizeHintForRow(0)
        + 2 * widget.covariate_view.frameWidth())
    widget.covariate_model[:] = []
    widget.covariate_note = QLabel(wordWrap=True)
    box.layout().addWidget(widget.covariate_note)


def compare_box(widget, form):
    """The estimators compared with the first, checked in a list (``compare_view`` of
    ``compare_model``)."""
    box = gui.vBox(form, "Compare with")
    widget.compare_model = QStandardItemModel(widget)
    for name in widget.scorer_classes:
        item = QStandardItem(name)
        item.setCheckable(True)
        item.setEditable(False)
        item.setCheckState(Qt.Checked if name in widget.compared else Qt.Unchecked)
        widget.compare_model.appendRow(item)
    widget.compare_model.itemChanged.connect(widget._on_compared_changed)
    widget.compare_view = QListView(
        toolTip="Further estimators whose scores are shown beside the first one's, each "
                "with its own parameters (choose it above to edit them). Sort by any "
                "column: the selection follows it.")
    widget.compare_view.setModel(widget.compare_model)
    widget.compare_view.setEditTriggers(QListView.NoEditTriggers)
    widget.compare_view.setFixedHeight(COMPARED_ROWS * widget.compare_view.sizeHintForRow(0)
                                       + 2 * widget.compare_view.frameWidth())
    box.layout().addWidget(widget.compare_view)


def significance_box(widget, column):
    """The significance method and the number of permutations (``permutations_spin``)."""
    box = gui.vBox(column, "Significance")
    gui.comboBox(box, widget, "significance_method", items=[s[0] for s in SIGNIFICANCE],
                 callback=widget._on_significance_changed,
                 tooltip="p-values and Benjamini-Hochberg q-values of the estimates: STIR "
                         "(Le et al.'s test of hit against miss diffs, calibrated by 30 "
                         "permutations of the class; Relief, ReliefF, SURF and MultiSURF; "
                         "approximate, fast), the estimates of the data with the class "
                         "permuted (any estimator; exact, slower) or NPDR's regression "
                         "test (NPDR only: the t statistic of the attribute's coefficient "
                         "in the regression over neighbour pairs, adjusted for the "
                         "covariates, calibrated by 30 permutations of the class; Le, "
                         "Dawkins & McKinney 2020) or the allelic trend test's regression "
                         "(the trend test only: the Wald statistic of the allele count's "
                         "coefficient, adjusted for the covariates; Armitage 1955)")
    widget.permutations_spin = gui.spin(
        box, widget, "n_permutations", 9, 100000, step=10, label="Runs:",
        callback=widget._on_significance_changed,
        tooltip="The number of permutations R; p = (b + 1) / (R + 1), b the number of "
                "permuted estimates reaching the observed one")
    widget.permutations_spin.setEnabled(widget.significance_test() == "permutation")


def selection_box(widget, parent):
    """The selection rules (``select_buttons``, ids the widget's ``Select*``) with their
    number, α (``alpha_spin``) and level, and τ's text (``tau_label``)."""
    sel_box = gui.vBox(parent, "Select Attributes")
    grid = QGridLayout()
    grid.setContentsMargins(0, 0, 0, 0)
    widget.select_buttons = QButtonGroup()
    widget.select_buttons.idClicked.connect(widget.set_selection_method)
    for i, text in enumerate(("Manual", "Best ranked:", "Above Relief's τ, α:", "q <")):
        button = QRadioButton(text)
        widget.select_buttons.addButton(button, i)
        grid.addWidget(button, i, 0)
    widget.select_buttons.button(widget.SelectNBest).setToolTip(
        "The attributes at the top of the table as it is sorted (by any column).")
    widget.select_buttons.button(widget.SelectThreshold).setToolTip(
        "Attributes whose estimate exceeds τ = 1/√(α·m) (Kira & Rendell): by Chebyshev's "
        "inequality an irrelevant attribute exceeds τ with a probability of at most α. "
        "The estimates are those of the column the table is sorted by.")
    grid.addWidget(gui.spin(None, widget, "n_selected", 1, 10000, addToLayout=False,
                            callback=lambda: widget.set_selection_method(widget.SelectNBest),
                            tooltip="The number of attributes with the highest estimates "
                                    "that are output."), 1, 1)
    widget.alpha_spin = gui.doubleSpin(
        None, widget, "alpha", 0.001, 1.0, 0.01, addToLayout=False, decimals=3,
        callback=widget._on_alpha_changed,
        tooltip="α of Relief's threshold τ = 1/√(α·m): the largest probability that an "
                "irrelevant attribute's estimate exceeds τ (Kira & Rendell 1992; for "
                "estimators with iterations m).")
    grid.addWidget(widget.alpha_spin, 2, 1)
    widget.select_buttons.button(widget.SelectFDR).setToolTip(
        "Attributes whose Benjamini-Hochberg q-value is below the level: the expected share "
        "of false discoveries among them is at most that level (needs a significance "
        "method; the q-values of the column the table is sorted by).")
    grid.addWidget(gui.doubleSpin(None, widget, "fdr", 0.001, 1.0, 0.01, addToLayout=False,
                                  decimals=3, callback=lambda: widget.set_selection_method(
                                      widget.SelectFDR)), 3, 1)
    # τ's text wraps to the width of the rules above it: a wrapping label's width hint (about
    # 60 average characters, 341 px at PyQt5's default 12 pt) would widen the box, and the
    # buttons area takes its width hint as its minimum, past Orange's 800 px with the table
    widget.tau_label = QLabel(wordWrap=True)
    widget.tau_label.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Preferred)
    grid.addWidget(widget.tau_label, 4, 0, 1, 2)
    sel_box.layout().addLayout(grid)
