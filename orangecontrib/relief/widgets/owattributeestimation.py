"""Attribute Estimation: any estimator of the add-on (Relief family, Contextual Merit, Π,
impurity measures) with its parameters, a sortable score table with bars (as Orange's Rank), the
configured scorer for Rank's Scorer input, and the selected attributes as Reduced Data."""
from functools import partial
from types import SimpleNamespace

import numpy as np
from AnyQt.QtCore import QItemSelection, QItemSelectionModel, QItemSelectionRange, Qt
from AnyQt.QtWidgets import (
    QButtonGroup, QComboBox, QGridLayout, QHeaderView, QLabel, QRadioButton, QStyledItemDelegate,
    QTableWidget, QTableWidgetItem
)

from Orange.data import ContinuousVariable, Domain, StringVariable, Table
from Orange.preprocess.score import Scorer
from Orange.widgets import gui
from Orange.widgets.data.owrank import RankTableModel, TableView
from Orange.widgets.settings import ContextSetting, DomainContextHandler, Setting
from Orange.widgets.utils import enum2int
from Orange.widgets.utils.itemmodels import VariableListModel
from Orange.widgets.utils.widgetpreview import WidgetPreview
from Orange.widgets.widget import AttributeList, Input, Msg, Output

from orangecontrib.relief import scoring
from orangecontrib.relief.estimators.significance import significance, supports_stir
from orangecontrib.relief.estimators.threshold import relief_threshold
from orangecontrib.relief.orange_data import encode_table
from orangecontrib.relief.widgets.background import BackgroundEstimationWidget, progress_callback
from orangecontrib.relief.widgets.estimatorparams import ParameterStack, describe

__all__ = ["OWAttributeEstimation", "estimate"]


def _scorer_or_none(name):
    try:
        return scoring.scorer_by_name(str(name))
    except ValueError:
        return None


#: the four cases of the Π framework (Vilalta et al. 2001 §4), in column order
CASES = ("same value,\nsame class", "same value,\ndiff. class",
         "diff. value,\nsame class", "diff. value,\ndiff. class")


#: the significance choices: (label, method of :func:`.significance.significance`)
SIGNIFICANCE = (("None", None), ("STIR", "stir"), ("Permutations", "permutation"))
#: the seed of the widget's permutations, so that its p-values repeat
PERMUTATION_SEED = 0


def estimate(scorer, data, state, *, method=None, n_permutations=100):
    """Estimates of ``data``'s attributes by ``scorer`` (a scorer of ``scoring.SCORERS``, which is
    also an engine estimator): encode once and run the estimator with a progress callback that
    raises :class:`~.background.Cancelled` when ``state`` requests interruption (its context and
    its estimate step alike); for the Π framework the context is kept, for its four-case count
    matrices.
    With ``method`` ("stir" or "permutation", :func:`.significance.significance`) also the
    p-values and q-values (STIR only for an estimator that supports it).

    Returns a namespace with ``scores`` (1-D, aligned with ``data.domain.attributes``),
    ``pvalues`` and ``qvalues`` (or None), ``case_counts`` (list of per-attribute count arrays,
    or None), ``m`` (the iterations used) and ``n_ignored`` (instances dropped for a missing
    class)."""
    encoded, rows = encode_table(data, sparse=True)
    callback = progress_callback(state)
    pvalues = qvalues = None
    if method == "stir" and not supports_stir(scorer):
        method = None
    context = None
    if scorer.counts_cases:              # Π: the context holds the counts the widget shows
        context = scorer.context(encoded, None if method else callback)
        scores = np.asarray(scorer.estimate(context), dtype=float)
    elif method is None:                 # the estimator's own run reports all its steps
        scores = np.asarray(scorer.engine().__call__(scorer, encoded, callback), dtype=float)
    if method is not None:
        result = significance(scorer, encoded, method, n_permutations, PERMUTATION_SEED,
                              callback)
        scores, pvalues, qvalues = result.scores, result.pvalues, result.qvalues
    counts = getattr(context, "case_counts", None)
    iterations = getattr(scorer, "iterations", None)
    m = min(iterations, encoded.n_instances) if iterations else encoded.n_instances
    return SimpleNamespace(scores=scores, pvalues=pvalues, qvalues=qvalues, case_counts=counts,
                           m=m, n_ignored=len(data) - len(rows))


class PValueDelegate(QStyledItemDelegate):
    """p- and q-values to three significant digits (1.2e-31, not 0.000)."""
    def displayText(self, value, locale):
        if isinstance(value, float):
            return f"{value:.3g}"
        return super().displayText(value, locale)


class OWAttributeEstimation(BackgroundEstimationWidget):
    name = "Attribute Estimation"
    description = ("Estimate the quality of attributes with ReliefF, RReliefF, Contextual "
                   "Merit, the Π framework or impurity measures, with all their parameters.")
    icon = "icons/AttributeEstimation.svg"
    priority = 10
    keywords = ["relief", "relieff", "rrelieff", "rank", "feature selection", "contextual merit",
                "pi", "scorer", "non-myopic"]

    class Inputs:
        data = Input("Data", Table)

    class Outputs:
        reduced_data = Output("Reduced Data", Table, default=True)
        scores = Output("Scores", Table)
        features = Output("Features", AttributeList, dynamic=False)
        scorer = Output("Scorer", Scorer, dynamic=False)

    SelectManual, SelectNBest, SelectThreshold, SelectFDR = range(4)

    settingsHandler = DomainContextHandler()
    settings_version = 2
    #: the estimator for a categorical target and for a numeric one (its stem)
    estimator_name = Setting("ReliefF")
    regression_estimator_name = Setting("RReliefF")
    estimator_params = Setting({})
    advanced_shown = Setting(False)
    sorting = Setting((2, enum2int(Qt.DescendingOrder)))
    selection_method = ContextSetting(SelectNBest)
    n_selected = ContextSetting(5)
    alpha = Setting(0.05)
    significance_method = Setting(0)
    n_permutations = Setting(100)
    fdr = Setting(0.05)
    selected_attrs = ContextSetting([])
    auto_apply = Setting(True)

    class Warning(BackgroundEstimationWidget.Warning):
        threshold_nothing = Msg("No attribute is above the threshold τ = {:.3f}.")
        fdr_nothing = Msg("No attribute has q < {:g}.")
        no_stir = Msg("STIR tests Relief and ReliefF of a categorical target; choose "
                      "permutations for {}.")

    class Information(BackgroundEstimationWidget.Information):
        no_threshold = Msg("Relief's threshold τ needs an estimator with iterations; "
                           "the best ranked attributes are output instead.")
        no_qvalues = Msg("q-values need a significance method (STIR or permutations); "
                         "the best ranked attributes are output instead.")

    def __init__(self):
        super().__init__()
        self.scorer_classes = {cls.stem(): cls for cls in scoring.SCORERS}
        self.target_type = "classification"   # of the data; without data, of the last choice
        for attr, task in (("estimator_name", "classification"),
                           ("regression_estimator_name", "regression")):
            if getattr(self, attr) not in self.scorer_classes:
                setattr(self, attr, next(name for name, cls in self.scorer_classes.items()
                                         if task in cls.tasks))

        box = gui.vBox(self.controlArea, "Estimator")
        self.estimator_combo = QComboBox(
            toolTip="The estimator; each target type (categorical or numeric) keeps its own "
                    "choice, so ReliefF becomes RReliefF on a numeric target.")
        self.estimator_combo.addItems(list(self.scorer_classes))
        self.estimator_combo.activated.connect(self._on_estimator_changed)
        box.layout().addWidget(self.estimator_combo)

        self.params_stack = ParameterStack(self.scorer_classes, self.estimator_params,
                                           self.advanced_shown)
        self.params_stack.changed.connect(self._on_parameters_changed)
        self.params_stack.advanced_toggled.connect(self._on_advanced_toggled)
        self.editors = self.params_stack.editors
        box.layout().addWidget(self.params_stack)

        box = gui.hBox(self.controlArea, "Significance")
        gui.comboBox(box, self, "significance_method", items=[s[0] for s in SIGNIFICANCE],
                     callback=self._on_significance_changed,
                     tooltip="p-values and Benjamini-Hochberg q-values of the estimates: STIR "
                             "(Le et al.'s pseudo t-test of hit against miss diffs; Relief and "
                             "ReliefF) or the estimates of the data with the class permuted "
                             "(any estimator; exact, slower)")
        self.permutations_spin = gui.spin(
            box, self, "n_permutations", 9, 100000, step=10, label="runs:",
            callback=self._on_significance_changed,
            tooltip="The number of permutations R; p = (b + 1) / (R + 1), b the number of "
                    "permuted estimates reaching the observed one")
        self.permutations_spin.setEnabled(self._method() == "permutation")
        gui.rubber(self.controlArea)

        sel_box = gui.vBox(self.buttonsArea, "Select Attributes")
        grid = QGridLayout()
        grid.setContentsMargins(0, 0, 0, 0)
        self.select_buttons = QButtonGroup()
        self.select_buttons.idClicked.connect(self.set_selection_method)
        for i, text in enumerate(("Manual", "Best ranked:", "Above Relief's τ, α:", "q <")):
            button = QRadioButton(text)
            self.select_buttons.addButton(button, i)
            grid.addWidget(button, i, 0)
        self.select_buttons.button(self.SelectThreshold).setToolTip(
            "Attributes whose estimate exceeds τ = 1/√(α·m) (Kira & Rendell): by Chebyshev's "
            "inequality an irrelevant attribute exceeds τ with a probability of at most α.")
        grid.addWidget(gui.spin(None, self, "n_selected", 1, 10000, addToLayout=False,
                                callback=lambda: self.set_selection_method(self.SelectNBest),
                                tooltip="The number of attributes with the highest estimates "
                                        "that are output."), 1, 1)
        self.alpha_spin = gui.doubleSpin(
            None, self, "alpha", 0.001, 1.0, 0.01, addToLayout=False, decimals=3,
            callback=self._on_alpha_changed,
            tooltip="α of Relief's threshold τ = 1/√(α·m): the largest probability that an "
                    "irrelevant attribute's estimate exceeds τ (Kira & Rendell 1992; for "
                    "estimators with iterations m).")
        grid.addWidget(self.alpha_spin, 2, 1)
        self.select_buttons.button(self.SelectFDR).setToolTip(
            "Attributes whose Benjamini-Hochberg q-value is below the level: the expected share "
            "of false discoveries among them is at most that level (needs a significance "
            "method).")
        grid.addWidget(gui.doubleSpin(None, self, "fdr", 0.001, 1.0, 0.01, addToLayout=False,
                                      decimals=3, callback=lambda: self.set_selection_method(
                                          self.SelectFDR)), 3, 1)
        self.tau_label = QLabel()
        grid.addWidget(self.tau_label, 4, 0, 1, 2)
        sel_box.layout().addLayout(grid)
        gui.auto_send(self.buttonsArea, self, "auto_apply")

        self.ranks_model = RankTableModel(parent=self)
        self.ranks_view = TableView(self)
        self.ranks_view.setModel(self.ranks_model)
        self.ranks_view.selectionModel().selectionChanged.connect(self._on_select)
        self.ranks_view.manualSelection.connect(
            lambda: self.set_selection_method(self.SelectManual))
        self.ranks_view.horizontalHeader().sectionClicked.connect(self._on_header_click)
        self.pvalue_delegate = PValueDelegate(self)      # the view does not own delegates
        for column in (3, 4):
            self.ranks_view.setItemDelegateForColumn(column, self.pvalue_delegate)
        self.mainArea.layout().addWidget(self.ranks_view)

        # the Π counts of one attribute, chosen here and not in the table, whose selection
        # is the output
        self.counts_box = gui.vBox(self.mainArea, "Π case counts")
        self.counts_attr_model = VariableListModel(parent=self)
        self.counts_combo = QComboBox(toolTip="The attribute whose case counts are shown")
        self.counts_combo.setModel(self.counts_attr_model)
        self.counts_combo.activated.connect(self._show_case_counts)
        row = gui.hBox(self.counts_box)
        gui.widgetLabel(row, "Attribute:")
        row.layout().addWidget(self.counts_combo, 1)
        self.counts_view = QTableWidget(0, 4)
        self.counts_view.setHorizontalHeaderLabels(CASES)
        self.counts_view.horizontalHeader().setSectionResizeMode(QHeaderView.Stretch)
        self.counts_view.setEditTriggers(QTableWidget.NoEditTriggers)
        self.counts_box.layout().addWidget(self.counts_view)

        self.select_buttons.button(self.selection_method).setChecked(True)
        self._show_estimator()
        self.resize(820, 560)

    @classmethod
    def migrate_settings(cls, settings, version):
        """Version 1 stored one estimator for both target types, possibly under an older name
        (a class name such as "Gini"); parameters an estimator no longer has are dropped when
        its editor is built (:class:`.estimatorparams.ParameterEditor`)."""
        if version is None or version < 2:
            names = {}
            for key in ("estimator_name", "regression_estimator_name"):
                try:
                    names[key] = scoring.scorer_by_name(str(settings[key])).stem()
                except (KeyError, ValueError):
                    pass
            settings.update(names)
            if "estimator_name" in names and "classification" not in \
                    scoring.scorer_by_name(names["estimator_name"]).tasks:
                settings["regression_estimator_name"] = settings.pop("estimator_name")
            params = settings.get("estimator_params")
            if not isinstance(params, dict):
                settings.pop("estimator_params", None)
            else:
                settings["estimator_params"] = {
                    cls_.stem(): dict(params[name])
                    for name in params if isinstance(params[name], dict)
                    for cls_ in [_scorer_or_none(name)] if cls_ is not None}

    # --- configuration
    @property
    def current_name(self):
        """The stem of the estimator used for the current target type."""
        return (self.regression_estimator_name if self.target_type == "regression"
                else self.estimator_name)

    def create_scorer(self):
        """The configured scorer (the object sent on the Scorer output), constructed with the
        parameters that differ from their defaults, so its name shows just those."""
        return self.params_stack.create(self.current_name)

    def _show_estimator(self):
        name = self.current_name
        self.estimator_combo.setCurrentText(name)
        model = self.estimator_combo.model()
        for row, cls in enumerate(self.scorer_classes.values()):
            model.item(row).setEnabled(self.data is None or self.target_type in cls.tasks)
        self.params_stack.show_editor(name)
        relief = "iterations" in self.editors[name].defaults     # τ needs the iterations m
        self.select_buttons.button(self.SelectThreshold).setEnabled(relief)
        self.alpha_spin.setEnabled(relief)
        self.counts_box.setVisible(self.scorer_classes[name].counts_cases)
        self.Outputs.scorer.send(self.create_scorer())

    def _on_estimator_changed(self):
        name = self.estimator_combo.currentText()
        tasks = self.scorer_classes[name].tasks
        if self.data is None and self.target_type not in tasks:
            self.target_type = next(iter(tasks))
        if "classification" in tasks:
            self.estimator_name = name
        if "regression" in tasks:
            self.regression_estimator_name = name
        self._show_estimator()
        self.restart()

    def _on_parameters_changed(self):
        self.Outputs.scorer.send(self.create_scorer())
        self.restart()

    def _on_significance_changed(self):
        self.permutations_spin.setEnabled(self._method() == "permutation")
        self.restart()

    def _method(self):
        return SIGNIFICANCE[self.significance_method][1]

    def _on_advanced_toggled(self, shown):
        self.advanced_shown = shown

    # --- data and computation
    @Inputs.data
    def set_data(self, data):
        self.closeContext()
        self.selected_attrs = []
        self.accept_data(data)
        if self.data is not None:
            self.target_type = "regression" if self.data.domain.class_var.is_continuous \
                else "classification"
        self.counts_attr_model[:] = self.data.domain.attributes if self.data else []
        self._show_estimator()
        self.openContext(self.data)
        self.select_buttons.button(self.selection_method).setChecked(True)
        self.restart(new_data=True)

    def background_task(self):
        scorer = self.create_scorer()
        self.Warning.no_stir(scorer.stem(),
                             shown=self._method() == "stir" and not supports_stir(scorer))
        return (partial(estimate, method=self._method(), n_permutations=self.n_permutations),
                scorer, self.data)

    # --- score table
    def show_result(self):
        self.ranks_model.clear()
        self.ranks_model.resetSorting(True)
        self.counts_view.setRowCount(0)
        self._update_tau_label()
        if self.result is None:
            return
        attrs = self.data.domain.attributes
        n_values = [float(len(a.values)) if a.is_discrete else np.nan for a in attrs]
        columns = [self.result.scores]
        headers = ["", "#", self.current_name]
        if self.result.pvalues is not None:
            columns += [self.result.pvalues, self.result.qvalues]
            headers += ["p", "q"]
        rows = [[a, nv, *map(float, values)]
                for a, nv, values in zip(attrs, n_values, zip(*columns))]
        self.ranks_model.setExtremesFrom(2, self.result.scores)
        self.ranks_model.wrap(rows)
        self.ranks_model.setHorizontalHeaderLabels(headers)
        self.ranks_view.setColumnWidth(1, 40)
        self.ranks_view.resizeColumnToContents(0)
        self._fit_table_width()
        column, order = self.sorting
        self.ranks_model.sort(column, Qt.SortOrder(order))
        self.ranks_view.horizontalHeader().setSortIndicator(column, Qt.SortOrder(order))
        if self.result.case_counts is not None:
            self.counts_combo.setCurrentIndex(
                int(np.argmax(np.nan_to_num(self.result.scores, nan=-np.inf))))
            self._show_case_counts()
        self.auto_select()

    def _on_header_click(self):
        self.sorting = (self.ranks_model.sortColumn(), enum2int(self.ranks_model.sortOrder()))
        if self.selection_method != self.SelectManual:
            self.auto_select()

    def _fit_table_width(self):
        """Make the main area at least as wide as the table's columns, so the score column is
        never clipped."""
        view = self.ranks_view
        width = sum(view.columnWidth(c) for c in range(self.ranks_model.columnCount()))
        view.setMinimumWidth(width + view.verticalHeader().width() + 2 * view.frameWidth()
                             + view.verticalScrollBar().sizeHint().width())

    def _show_case_counts(self):
        """Fill the Π table with the count matrices {R_m} of the attribute chosen in the
        combo: one row per (value V_m, class), one column per case (eqs. 10-13 of the Π
        paper)."""
        self.counts_view.setRowCount(0)
        index = self.counts_combo.currentIndex()
        if self.result is None or self.result.case_counts is None or index < 0:
            return
        attr = self.data.domain.attributes[index]
        counts = np.asarray(self.result.case_counts[index])   # (values, classes, 4)
        values = attr.values if attr.is_discrete else [f"bin {i + 1}"
                                                       for i in range(counts.shape[0])]
        classes = self.data.domain.class_var.values
        labels = [f"{attr.name} = {v} | {c}" for v in values for c in classes]
        flat = counts.reshape(-1, 4)
        self.counts_view.setRowCount(len(flat))
        self.counts_view.setVerticalHeaderLabels(labels)
        for r, row in enumerate(flat):
            for c, x in enumerate(row):
                item = QTableWidgetItem(f"{x:.4g}")
                item.setTextAlignment(Qt.AlignRight | Qt.AlignVCenter)
                self.counts_view.setItem(r, c, item)

    # --- selection
    def _threshold(self):
        """τ, or None when the estimator has no iterations (not a Relief-family estimate)."""
        if self.result is None or "iterations" not in self.editors[self.current_name].defaults:
            return None
        return relief_threshold(self.alpha, self.result.m)

    def _update_tau_label(self):
        tau = self._threshold()
        self.tau_label.setText("" if tau is None else
                               f"τ = 1/√(α·m) = {tau:.4f} (m = {self.result.m})")

    def _on_alpha_changed(self):
        self._update_tau_label()
        self.set_selection_method(self.SelectThreshold)

    def set_selection_method(self, method):
        self.selection_method = method
        self.select_buttons.button(method).setChecked(True)
        self.auto_select()

    def auto_select(self):
        """Select the table rows of the current selection method."""
        self.Warning.threshold_nothing.clear()
        self.Warning.fdr_nothing.clear()
        self.Information.no_threshold.clear()
        self.Information.no_qvalues.clear()
        model = self.ranks_model
        if self.result is None:
            return
        method = self.selection_method
        tau = self._threshold()
        if method == self.SelectThreshold and tau is None:
            self.Information.no_threshold()
            method = self.SelectNBest
        if method == self.SelectFDR and self.result.qvalues is None:
            self.Information.no_qvalues()
            method = self.SelectNBest
        attrs = self.data.domain.attributes
        if method == self.SelectNBest:
            order = np.argsort(-np.nan_to_num(self.result.scores, nan=-np.inf), kind="stable")
            indices = order[:self.n_selected]
        elif method == self.SelectThreshold:
            indices = np.flatnonzero(self.result.scores > tau)
            self.Warning.threshold_nothing(tau, shown=not len(indices))
        elif method == self.SelectFDR:
            indices = np.flatnonzero(self.result.qvalues < self.fdr)
            self.Warning.fdr_nothing(self.fdr, shown=not len(indices))
        else:
            indices = [attrs.index(a) for a in self.selected_attrs if a in attrs]
        selection = QItemSelection()
        last = model.columnCount() - 1
        for row in model.mapFromSourceRows(list(indices)):
            selection.append(QItemSelectionRange(model.index(row, 0), model.index(row, last)))
        self.ranks_view.selectionModel().select(selection, QItemSelectionModel.ClearAndSelect)

    def _on_select(self):
        rows = [i.row() for i in self.ranks_view.selectionModel().selectedRows(0)]
        indices = sorted(self.ranks_model.mapToSourceRows(rows)) if rows else []
        self.selected_attrs = [self.data.domain.attributes[i] for i in indices]
        self.commit.deferred()

    # --- output
    @gui.deferred
    def commit(self):
        self.Outputs.scores.send(self.scores_table())
        if self.result is None or not self.selected_attrs:
            self.Outputs.reduced_data.send(None)
            self.Outputs.features.send(None)
            return
        domain = Domain(self.selected_attrs, self.data.domain.class_vars,
                        self.data.domain.metas)
        self.Outputs.reduced_data.send(self.data.transform(domain))
        self.Outputs.features.send(AttributeList(self.selected_attrs))

    def scores_table(self):
        """Scores as a table in Rank's format: the score column (and with a significance method
        the p- and q-values), attribute names as meta."""
        if self.result is None:
            return None
        columns = [self.result.scores]
        names = [self.current_name]
        if self.result.pvalues is not None:
            columns += [self.result.pvalues, self.result.qvalues]
            names += ["p", "q"]
        domain = Domain([ContinuousVariable(name) for name in names],
                        metas=[StringVariable("Feature")])
        features = np.array([[a.name] for a in self.data.domain.attributes], dtype=object)
        table = Table.from_numpy(domain, np.column_stack(columns), metas=features)
        table.name = "Attribute Estimates"
        return table

    def send_report(self):
        params = self.editors[self.current_name].values
        method = self._method()
        self.report_items("Estimator", [("Estimator", self.current_name)]
                          + [describe(name, value, self.scorer_classes[self.current_name])
                             for name, value in params.items()]
                          + [("Significance", SIGNIFICANCE[self.significance_method][0]
                              + (f" ({self.n_permutations} runs)"
                                 if method == "permutation" else ""))])
        if self.data is None:
            return
        self.report_data("Data", self.data)
        if self.result is not None:
            self.report_table("Estimates", self.ranks_view, num_format="{:.4f}")
            selection = ["manually", f"the {self.n_selected} best ranked",
                         f"above τ (α = {self.alpha:g})",
                         f"q < {self.fdr:g}"][self.selection_method]
            self.report_items("Output", [("Selected attributes",
                                          f"{len(self.selected_attrs)}, {selection}")])


if __name__ == "__main__":  # pragma: no cover
    WidgetPreview(OWAttributeEstimation).run(Table("zoo"))
