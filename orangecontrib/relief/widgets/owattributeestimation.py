"""Attribute Estimation: any estimator of the add-on (Relief family, Contextual Merit, Π,
impurity measures) with its parameters, compared side by side with further estimators in a
sortable score table with bars (as Orange's Rank) and a plot of the scores, the configured scorer
for Rank's Scorer input, and the selected attributes as Reduced Data. Variables of the data can be
chosen as covariates, which the estimators that adjust for them (NPDR) take into account."""
from functools import partial
from types import SimpleNamespace

import numpy as np
import pyqtgraph as pg
from AnyQt.QtCore import (QEvent, QItemSelection, QItemSelectionModel, QItemSelectionRange,
                          QLocale, QMimeData, QModelIndex, QSize, Qt)
from AnyQt.QtGui import (QColor, QFontMetrics, QKeySequence, QStandardItem,
                         QStandardItemModel)
from AnyQt.QtWidgets import (
    QAbstractItemView, QApplication, QButtonGroup, QComboBox, QFrame, QGridLayout, QHeaderView,
    QLabel, QListView, QRadioButton, QSizePolicy, QSplitter, QStyledItemDelegate, QTableWidget, QTableWidgetItem
)

from Orange.data import ContinuousVariable, DiscreteVariable, Domain, StringVariable, Table
from Orange.preprocess.preprocess import Preprocess
from Orange.preprocess.score import Scorer
from Orange.widgets import gui
from Orange.widgets.data.owrank import RankTableModel, TableView
from Orange.widgets.settings import ContextSetting, DomainContextHandler, Setting
from Orange.widgets.utils import enum2int
from Orange.widgets.utils.itemmodels import VariableListModel
from Orange.widgets.utils.widgetpreview import WidgetPreview
from Orange.widgets.widget import AttributeList, Input, Msg, Output

from orangecontrib.relief import scoring
from orangecontrib.relief.estimators.catalogue import for_task
from orangecontrib.relief.estimators.significance import (permutation_rule, significance,
                                                          supports_stir)
from orangecontrib.relief.estimators.threshold import relief_threshold
from orangecontrib.relief.selection import SelectAttributes
from orangecontrib.relief.widgets.background import BackgroundEstimationWidget, progress_callback
from orangecontrib.relief.widgets import missingcalls
from orangecontrib.relief.widgets.estimatorparams import ParameterStack, describe
from orangecontrib.relief.widgets.names import NAME_CHARACTERS
from orangecontrib.relief.widgets.numbers import count, format_p, format_scores

__all__ = ["OWAttributeEstimation", "estimate"]


def _scorer_or_none(name):
    try:
        return scoring.scorer_by_name(str(name))
    except ValueError:
        return None


#: the four cases of the Π framework (Vilalta et al. 2001 §4), in column order
CASES = ("same value,\nsame class", "same value,\ndiff. class",
         "diff. value,\nsame class", "diff. value,\ndiff. class")


#: the significance choices: (label, method of :func:`.significance.significance`); stored by
#: index, so a new choice goes last
SIGNIFICANCE = (("None", None), ("STIR", "stir"), ("Permutations", "permutation"),
                ("Regression (NPDR)", "npdr"), ("Regression (trend test)", "trend"))
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


class ScoreDelegate(gui.ColoredBarItemDelegate):
    """The estimates of one column with a bar, formatted alike (:func:`format_scores`); a text
    (such as "removed") is shown as it is."""
    def __init__(self, parent, text):
        super().__init__(parent)
        self.text = text

    def displayText(self, value, locale=None):
        if isinstance(value, float):
            return self.text(value)
        return super().displayText(value)


class CountDelegate(QStyledItemDelegate):
    """The number of values of a categorical attribute, as an integer; nothing for a numeric
    one."""
    def displayText(self, value, locale):
        if isinstance(value, float):
            return f"{value:.0f}" if np.isfinite(value) else ""
        return super().displayText(value, locale)

    def initStyleOption(self, option, index):
        super().initStyleOption(option, index)
        option.displayAlignment = Qt.AlignRight | Qt.AlignVCenter


class EstimatesView(TableView):
    """Rank's table, whose Copy (Ctrl+C) copies the selected rows with the header, tab
    separated (the widget's own Copy puts the plot on the clipboard). The attribute names (the
    first column) stay in view while the other columns scroll: a second view of the same model
    and selection, showing only that column, lies over the left edge of this one (as in Qt's
    "Frozen Column" example)."""
    def __init__(self, parent=None):
        super().__init__(parent)
        self.setHorizontalScrollMode(QAbstractItemView.ScrollPerPixel)
        names = self.names_view = TableView(self)
        names.setFrameShape(QFrame.NoFrame)
        names.verticalHeader().hide()
        names.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        names.setVerticalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        names.setVerticalScrollMode(self.verticalScrollMode())
        names.setFocusProxy(self)           # Ctrl+C after a click on a name copies the rows
        names.manualSelection.connect(self.manualSelection)
        names.horizontalHeader().sectionClicked.connect(self._on_names_header_clicked)
        self.horizontalHeader().sortIndicatorChanged.connect(self._sync_sort_indicator)
        self.horizontalHeader().sectionResized.connect(self._place_names)
        names.verticalScrollBar().valueChanged.connect(self.verticalScrollBar().setValue)
        self.verticalScrollBar().valueChanged.connect(names.verticalScrollBar().setValue)

    def setModel(self, model):
        super().setModel(model)
        self.names_view.setModel(model)
        self.names_view.setSelectionModel(self.selectionModel())
        for signal in (model.modelReset, model.columnsInserted, model.columnsRemoved):
            signal.connect(self._place_names)

    def updateGeometries(self):
        super().updateGeometries()
        self._place_names()

    def _place_names(self):
        """Show only the first column in the names' view, as wide as here, over this view's
        first column (and its header)."""
        names, model = getattr(self, "names_view", None), self.model()
        if names is None or model is None:     # (the base class lays out before __init__ ends)
            return
        for c in range(model.columnCount()):
            if names.isColumnHidden(c) != (c > 0):
                names.setColumnHidden(c, c > 0)
        names.setTextElideMode(self.textElideMode())
        names.setColumnWidth(0, self.columnWidth(0))
        header, viewport = self.horizontalHeader(), self.viewport().geometry()
        names.horizontalHeader().setFixedHeight(header.height())
        names.setGeometry(viewport.x(), header.y(), self.columnWidth(0),
                          viewport.bottom() + 1 - header.y())
        names.verticalScrollBar().setValue(self.verticalScrollBar().value())

    def _sync_sort_indicator(self, column, order):
        header = self.names_view.horizontalHeader()
        blocked = header.blockSignals(True)     # the model is sorted already
        header.setSortIndicator(column, order)
        header.blockSignals(blocked)

    def _on_names_header_clicked(self, column):
        """A click on the names' header sorts as a click on this view's header does."""
        self.horizontalHeader().setSortIndicator(
            column, self.names_view.horizontalHeader().sortIndicatorOrder())
        self.horizontalHeader().sectionClicked.emit(column)

    def scrollTo(self, index, hint=QAbstractItemView.EnsureVisible):
        """Scroll as the base class does, then further so that the column is not under the
        names."""
        super().scrollTo(index, hint)
        if index.isValid() and index.column() > 0:
            covered = self.columnWidth(0) - self.columnViewportPosition(index.column())
            if covered > 0:
                bar = self.horizontalScrollBar()
                bar.setValue(bar.value() - covered)

    def event(self, event):
        if event.type() == QEvent.ShortcutOverride and event.matches(QKeySequence.Copy):
            event.accept()      # the view copies, not the widget's Copy Image action
            return True
        return super().event(event)

    def keyPressEvent(self, event):
        if event.matches(QKeySequence.Copy):
            self.copy_selection()
        else:
            super().keyPressEvent(event)

    def copy_selection(self):
        """Put the selected rows on the clipboard as the view shows them."""
        model = self.model()
        rows = sorted({index.row() for index in self.selectionModel().selectedRows()})
        if not rows:
            return
        columns = range(model.columnCount())
        header = ["Attribute" if c == 0 else str(model.headerData(c, Qt.Horizontal) or "")
                  for c in columns]
        lines = [header]
        for row in rows:
            line = []
            for c in columns:
                value = model.index(row, c).data(Qt.DisplayRole)
                delegate = self.itemDelegateForColumn(c)
                if c and delegate is not None:
                    value = delegate.displayText(value, QLocale())
                line.append("" if value is None else str(value))
            lines.append(line)
        mime = QMimeData()
        mime.setText("".join("\t".join(line) + "\n" for line in lines))
        QApplication.clipboard().setMimeData(mime)


class PValueDelegate(QStyledItemDelegate):
    """p- and q-values to two significant digits (0.003, 1.2e-05; never 0.000)."""
    def displayText(self, value, locale):
        if isinstance(value, float):
            return format_p(value)
        return super().displayText(value, locale)

    def initStyleOption(self, option, index):
        super().initStyleOption(option, index)
        option.displayAlignment = Qt.AlignRight | Qt.AlignVCenter


class EstimatesModel(RankTableModel):
    """Rank's table model, with the cells of attributes that TuRF removed reading "removed"
    (they still sort by TuRF's ranking) and header tooltips; p- and q-value columns sort
    ascending first."""
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.notes = {}             # {(source row, column): (text, tooltip)}
        self.header_tips = []
        self.ascending = set()      # columns sorted ascending first (p and q)

    def data(self, index, role=Qt.DisplayRole):
        if index.isValid() and index.column() > 1 and self.notes:
            note = self.notes.get((self.mapToSourceRows(index.row()), index.column()))
            if note is not None:
                if role == Qt.DisplayRole:
                    return note[0]
                if role == Qt.ToolTipRole:
                    return note[1]
                if role == gui.BarRatioRole:
                    return None
        return super().data(index, role)

    def columnCount(self, parent=QModelIndex()):
        """The rows are equally long: the first one's length (the base class takes the
        longest of all rows at every call, which the view makes for every cell)."""
        return 0 if parent.isValid() or not self._table else len(self._table[0])

    def headerData(self, section, orientation, role=Qt.DisplayRole):
        if orientation == Qt.Horizontal:
            if role == Qt.ToolTipRole and section < len(self.header_tips):
                return self.header_tips[section]
            if role == Qt.InitialSortOrderRole and section in self.ascending:
                return Qt.AscendingOrder
        return super().headerData(section, orientation, role)


class CovariateModel(VariableListModel):
    """The variables that may be chosen as covariates: numeric and categorical ones; the others
    (text) are listed but cannot be chosen, their tooltip says why."""
    def flags(self, index):
        # a new flags object: the base class returns its own, shared by every row, which
        # PyQt5's in-place ``&=`` would change for all of them
        flags = super().flags(index)
        if index.isValid() and not self._choosable(self[index.row()]):
            return flags & ~(Qt.ItemIsEnabled | Qt.ItemIsSelectable)
        return flags

    def data(self, index, role=Qt.DisplayRole):
        if role == Qt.ToolTipRole and index.isValid() \
                and not self._choosable(self[index.row()]):
            return (f"{self[index.row()].name} is neither numeric nor categorical: it cannot be "
                    "a covariate.")
        return super().data(index, role)

    @staticmethod
    def _choosable(var):
        return isinstance(var, (ContinuousVariable, DiscreteVariable))


#: the rows of the covariates' list in view (it scrolls beyond)
COVARIATE_ROWS = 4


class OWAttributeEstimation(BackgroundEstimationWidget):
    name = "Attribute Estimation"
    description = ("Estimate the quality of attributes with ReliefF, RReliefF, Contextual "
                   "Merit, the Π framework or impurity measures, with all their parameters; "
                   "compare several estimators side by side.")
    icon = "icons/AttributeEstimation.svg"
    priority = 10
    keywords = ["relief", "relieff", "rrelieff", "rank", "feature selection", "contextual merit",
                "pi", "scorer", "non-myopic", "compare"]

    class Inputs:
        data = Input("Data", Table)

    class Outputs:
        reduced_data = Output("Reduced Data", Table, default=True)
        scores = Output("Scores", Table)
        features = Output("Features", AttributeList, dynamic=False)
        scorer = Output("Scorer", Scorer, dynamic=False)
        preprocessor = Output("Preprocessor", Preprocess, dynamic=False)

    SelectManual, SelectNBest, SelectThreshold, SelectFDR = range(4)
    #: Save Image and Copy Image to Clipboard take the score plot
    graph_name = "plot.plotItem"

    settingsHandler = DomainContextHandler()
    settings_version = 5
    #: the estimator chosen (its stem); on data whose target it does not suit, its counterpart
    #: for that target is used (:func:`.catalogue.for_task`)
    estimator_name = Setting("ReliefF")
    #: further estimators shown beside it (stems; those that suit the data are run)
    compared = Setting([])
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
    #: the variables chosen as covariates (used by the estimators that adjust for them)
    covariates = ContextSetting([])
    auto_apply = Setting(True)
    #: fill missing genotype calls before estimating (:mod:`.missingcalls`)
    impute_calls = Setting(False)

    class Warning(BackgroundEstimationWidget.Warning):
        threshold_nothing = Msg("No attribute is above the threshold τ = {:.3f} of {}: "
                                "with m = {} instances τ needs estimates this large; "
                                "a larger α lowers it.")
        fdr_nothing = Msg("No attribute of {} has q < {:g}.")
        no_stir = Msg("STIR tests Relief, ReliefF, SURF and MultiSURF of a categorical "
                      "target, without covariates; choose {} for {}.")
        no_npdr = Msg("The regression test is NPDR's own; choose permutations for {}.")
        no_trend = Msg("The trend test's p-values are the allelic trend test's own; choose "
                       "permutations for {}.")
        few_permutations = Msg("{} (Runs).")
        missing_calls = missingcalls.COST

    class Error(BackgroundEstimationWidget.Error):
        only_covariates = Msg("Every attribute is chosen as a covariate: none is left to "
                              "estimate.")

    class Information(BackgroundEstimationWidget.Information):
        no_threshold = Msg("Relief's threshold τ applies to the estimates of ReliefF and "
                           "the SURF family only; the best ranked attributes are output "
                           "instead.")
        no_qvalues = Msg("Selecting by q-values needs a significance method (STIR, "
                         "permutations or NPDR's regression); "
                         "the best ranked attributes are output instead.")
        switched = Msg("{} does not suit a {} target: the data are estimated with {}, "
                       "its counterpart for such targets.")
        not_compared = Msg("Not compared, since they do not suit a {} target: {}.")
        unadjusted = Msg("Estimated without the covariates, which only {} takes into "
                         "account: {}.")
        manual_preprocessor = Msg("A manual selection is not repeated on each training set: "
                                  "the Preprocessor output selects by a rule (the best ranked, "
                                  "above τ or q < level).")
        missing_covariates = Msg("{} instances with a missing covariate value are left out.")
        filled_calls = missingcalls.FILLED

    def __init__(self):
        super().__init__()
        self.scorer_classes = {cls.stem(): cls for cls in scoring.SCORERS}
        #: the estimators that adjust for covariates (their description's capability)
        self.adjusting = [name for name, cls in self.scorer_classes.items()
                          if cls.adjusts_covariates]
        self.input_data = None                # as received (self.data: the attributes estimated)
        self.target_type = "classification"   # of the data; without data, of the last choice
        if self.estimator_name not in self.scorer_classes:
            self.estimator_name = next(iter(self.scorer_classes))
        if self.target_type not in self.scorer_classes[self.estimator_name].tasks:
            self.target_type = "regression"
        self.compared = [name for name in self.compared if name in self.scorer_classes]

        # the form scrolls when it is taller than the window (e.g. ReliefF's advanced
        # parameters on a laptop screen); the selection and Send stay in view below it
        scroll = gui.VerticalScrollArea(self.controlArea)
        form = gui.vBox(None, margin=0)
        scroll.setWidget(form)
        self.controlArea.layout().addWidget(scroll)

        box = gui.vBox(form, "Estimator")
        self.estimator_combo = QComboBox(
            toolTip="The estimator whose parameters are edited below, whose scores come "
                    "first and which is the Scorer output. On data whose target it does not "
                    "suit, its counterpart is used: ReliefF (and Relief) becomes RReliefF on "
                    "a numeric target and RReliefF ReliefF on a categorical one, an impurity "
                    "measure MSE (and MSE Gini gain), any other the first estimator listed "
                    "for that target; estimators that suit both (such as MultiSURF) stay.")
        self.estimator_combo.addItems(list(self.scorer_classes))
        self.estimator_combo.activated.connect(self._on_estimator_changed)
        box.layout().addWidget(self.estimator_combo)

        self.params_stack = ParameterStack(self.scorer_classes, self.estimator_params,
                                           self.advanced_shown)
        self.params_stack.changed.connect(self._on_parameters_changed)
        self.params_stack.advanced_toggled.connect(self._on_advanced_toggled)
        self.editors = self.params_stack.editors
        box.layout().addWidget(self.params_stack)
        missingcalls.add_option(self, box, self.restart)

        box = gui.vBox(form, "Covariates")
        self.covariate_model = CovariateModel(parent=self)
        self.covariate_tip = (
            "Variables to adjust for (such as sex, age or ancestry), which may change both the "
            "target and some attributes: an attribute that only follows a covariate is then not "
            "credited. The estimators that adjust for covariates ("
            + ", ".join(self.adjusting) + ") regress, over the pairs of neighbours, the "
            "pair's target difference on the attribute's difference with the covariates' "
            "differences as further terms (NPDR: Le, Dawkins & McKinney, Bioinformatics 2020). "
            "Meta attributes are listed first, then attributes; an attribute chosen as a "
            "covariate is not estimated. Numeric or categorical variables without missing "
            "values; click to choose or leave out.")
        self.covariate_view = gui.listView(
            box, self, "covariates", model=self.covariate_model,
            selectionMode=QListView.MultiSelection, callback=self._on_covariates_changed,
            toolTip=self.covariate_tip)
        self.covariate_model[:] = [ContinuousVariable("x")]    # a row to measure
        self.covariate_view.setFixedHeight(
            COVARIATE_ROWS * self.covariate_view.sizeHintForRow(0)
            + 2 * self.covariate_view.frameWidth())
        self.covariate_model[:] = []
        self.covariate_note = QLabel(wordWrap=True)
        box.layout().addWidget(self.covariate_note)

        box = gui.vBox(form, "Compare with")
        self.compare_model = QStandardItemModel(self)
        for name in self.scorer_classes:
            item = QStandardItem(name)
            item.setCheckable(True)
            item.setEditable(False)
            item.setCheckState(Qt.Checked if name in self.compared else Qt.Unchecked)
            self.compare_model.appendRow(item)
        self.compare_model.itemChanged.connect(self._on_compared_changed)
        self.compare_view = QListView(
            toolTip="Further estimators whose scores are shown beside the first one's, each "
                    "with its own parameters (choose it above to edit them). Sort by any "
                    "column: the selection follows it.")
        self.compare_view.setModel(self.compare_model)
        self.compare_view.setEditTriggers(QListView.NoEditTriggers)
        rows = 6
        self.compare_view.setFixedHeight(rows * self.compare_view.sizeHintForRow(0)
                                         + 2 * self.compare_view.frameWidth())
        box.layout().addWidget(self.compare_view)

        # beside the selection, whose q < level needs it (in the form it was below the fold)
        column = gui.vBox(None, margin=0)
        box = gui.vBox(column, "Significance")
        gui.comboBox(box, self, "significance_method", items=[s[0] for s in SIGNIFICANCE],
                     callback=self._on_significance_changed,
                     tooltip="p-values and Benjamini-Hochberg q-values of the estimates: STIR "
                             "(Le et al.'s test of hit against miss diffs, calibrated by 30 "
                             "permutations of the class; Relief, ReliefF, SURF and MultiSURF; "
                             "approximate, fast), the estimates of the data with the class "
                             "permuted (any estimator; exact, slower) or NPDR's regression "
                             "test (NPDR only: the t statistic of the attribute's coefficient "
                             "in the regression over neighbour pairs, adjusted for the "
                             "covariates, calibrated by 30 permutations of the class; Le, "
                             "Dawkins & McKinney 2020)")
        self.permutations_spin = gui.spin(
            box, self, "n_permutations", 9, 100000, step=10, label="Runs:",
            callback=self._on_significance_changed,
            tooltip="The number of permutations R; p = (b + 1) / (R + 1), b the number of "
                    "permuted estimates reaching the observed one")
        self.permutations_spin.setEnabled(self._method() == "permutation")
        gui.rubber(form)

        sel_box = gui.vBox(self.buttonsArea, "Select Attributes")
        grid = QGridLayout()
        grid.setContentsMargins(0, 0, 0, 0)
        self.select_buttons = QButtonGroup()
        self.select_buttons.idClicked.connect(self.set_selection_method)
        for i, text in enumerate(("Manual", "Best ranked:", "Above Relief's τ, α:", "q <")):
            button = QRadioButton(text)
            self.select_buttons.addButton(button, i)
            grid.addWidget(button, i, 0)
        self.select_buttons.button(self.SelectNBest).setToolTip(
            "The attributes at the top of the table as it is sorted (by any column).")
        self.select_buttons.button(self.SelectThreshold).setToolTip(
            "Attributes whose estimate exceeds τ = 1/√(α·m) (Kira & Rendell): by Chebyshev's "
            "inequality an irrelevant attribute exceeds τ with a probability of at most α. "
            "The estimates are those of the column the table is sorted by.")
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
            "method; the q-values of the column the table is sorted by).")
        grid.addWidget(gui.doubleSpin(None, self, "fdr", 0.001, 1.0, 0.01, addToLayout=False,
                                      decimals=3, callback=lambda: self.set_selection_method(
                                          self.SelectFDR)), 3, 1)
        self.tau_label = QLabel(wordWrap=True)
        grid.addWidget(self.tau_label, 4, 0, 1, 2)
        sel_box.layout().addLayout(grid)
        self.buttonsArea.layout().addWidget(column)
        gui.rubber(column)
        gui.auto_send(column, self, "auto_apply")

        splitter = QSplitter(Qt.Vertical, childrenCollapsible=False)
        self.mainArea.layout().addWidget(splitter)
        self.ranks_model = EstimatesModel(parent=self)
        self.ranks_view = EstimatesView(self)
        self.ranks_view.setModel(self.ranks_model)
        self.ranks_view.selectionModel().selectionChanged.connect(self._on_select)
        self.ranks_view.manualSelection.connect(
            lambda: self.set_selection_method(self.SelectManual))
        self.ranks_view.horizontalHeader().sectionClicked.connect(self._on_header_click)
        self.ranks_view.horizontalHeader().setTextElideMode(Qt.ElideNone)
        self.ranks_view.setTextElideMode(Qt.ElideMiddle)
        self.formats = {}                   # {column: formatter of its estimates}
        self.score_delegates = []           # the view owns no delegates
        self.count_delegate = CountDelegate(self)
        self.ranks_view.setItemDelegateForColumn(1, self.count_delegate)
        self.pvalue_delegate = PValueDelegate(self)
        splitter.addWidget(self.ranks_view)

        self.plot = ScorePlot(self)
        splitter.addWidget(self.plot)

        # the Π counts of one attribute, chosen here and not in the table, whose selection
        # is the output
        self.counts_box = gui.vBox(None, "Π case counts")
        splitter.addWidget(self.counts_box)
        self.counts_attr_model = VariableListModel(parent=self)
        self.counts_combo = QComboBox(toolTip="The attribute whose case counts are shown")
        self.counts_combo.setModel(self.counts_attr_model)
        self.counts_combo.activated.connect(self._show_case_counts)
        row = gui.hBox(self.counts_box)
        gui.widgetLabel(row, "Attribute:")
        row.layout().addWidget(self.counts_combo, 1)
        self.counts_view = QTableWidget(0, 4)
        self.counts_view.setHorizontalHeaderLabels(CASES)
        header = self.counts_view.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeToContents)
        header.setTextElideMode(Qt.ElideNone)
        self.counts_view.verticalHeader().setSectionResizeMode(QHeaderView.ResizeToContents)
        self.counts_view.setEditTriggers(QTableWidget.NoEditTriggers)
        self.counts_view.setSizeAdjustPolicy(QTableWidget.AdjustToContents)
        self.counts_box.layout().addWidget(self.counts_view)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)
        splitter.setStretchFactor(2, 2)

        self.select_buttons.button(self.selection_method).setChecked(True)
        self._show_estimator()
        self.resize(1300, 700)

    def sizeHint(self):
        """Wide enough for the controls and every column of the table (several estimators
        with their p and q), at most a 1366 px screen's width; 700 px tall."""
        width = 1300
        if self.result is not None:
            width = max(width, self.controlArea.sizeHint().width() + self._table_width() + 60)
        return QSize(min(width, 1366), 700)

    @classmethod
    def migrate_context(cls, context, version):
        """Version 4 added the covariates, stored per domain (none before)."""
        if version is None or version < 4:
            context.values.setdefault("covariates", [])

    @classmethod
    def migrate_settings(cls, settings, version):
        """Version 1 stored the estimator possibly under an older name (a class name such as
        "Gini"); parameters an estimator no longer has are dropped when its editor is built
        (:class:`.estimatorparams.ParameterEditor`). Version 3 added the compared estimators
        (none before). Versions 2 to 4 kept a choice per target type, "estimator_name" for a
        categorical target and "regression_estimator_name" for a numeric one: the first is the
        choice now (the second where there was no first)."""
        if version is None or version < 2:
            names = {}
            for key in ("estimator_name", "regression_estimator_name"):
                try:
                    names[key] = scoring.scorer_by_name(str(settings[key])).stem()
                except (KeyError, ValueError):
                    pass
            settings.update(names)
            params = settings.get("estimator_params")
            if not isinstance(params, dict):
                settings.pop("estimator_params", None)
            else:
                settings["estimator_params"] = {
                    cls_.stem(): dict(params[name])
                    for name in params if isinstance(params[name], dict)
                    for cls_ in [_scorer_or_none(name)] if cls_ is not None}
        if version is None or version < 3:
            settings.setdefault("compared", [])
        if version is None or version < 5:
            regression = settings.pop("regression_estimator_name", None)
            if "estimator_name" not in settings and regression is not None:
                settings["estimator_name"] = regression

    # --- configuration
    @property
    def current_name(self):
        """The stem of the estimator used for the current target type: the chosen one, or
        its counterpart for a target it does not suit (:func:`.catalogue.for_task`)."""
        chosen = self.scorer_classes[self.estimator_name]
        used = for_task(chosen.engine(), self.target_type)
        if used is chosen.engine():
            return self.estimator_name
        return next(name for name, cls in self.scorer_classes.items() if cls.engine() is used)

    def compared_names(self):
        """The compared estimators that suit the current target type (besides the first)."""
        return [name for name in self.compared if name != self.current_name
                and self.target_type in self.scorer_classes[name].tasks]

    def create_scorer(self, name=None):
        """The configured scorer (the object sent on the Scorer output), constructed with the
        parameters that differ from their defaults, so its name shows just those, and with the
        covariates in use if it adjusts for them."""
        name = name or self.current_name
        names = self.covariates_in_use()
        if names and self.scorer_classes[name].adjusts_covariates:
            return self.params_stack.create(name, covariates=names)
        return self.params_stack.create(name)

    def covariates_in_use(self):
        """The names of the chosen covariates, in the list's order, when the estimator adjusts
        for them (else none)."""
        if self.input_data is None \
                or not self.scorer_classes[self.current_name].adjusts_covariates:
            return ()
        chosen = set(self.covariates)
        return tuple(var.name for var in self.covariate_model if var in chosen)

    def _update_covariates_enabled(self):
        name = self.current_name
        adjusts = self.scorer_classes[name].adjusts_covariates
        self.covariate_view.setEnabled(adjusts)
        note = "" if adjusts else (f"{name} does not adjust for covariates; "
                                   f"{', '.join(self.adjusting)} does.")
        self.covariate_note.setText(note)
        self.covariate_note.setVisible(bool(note))
        self.covariate_view.setToolTip(self.covariate_tip if adjusts
                                       else f"{note}\n\n{self.covariate_tip}")

    def _on_covariates_changed(self):
        self.Outputs.scorer.send(self.create_scorer())
        self.restart()

    def _show_estimator(self):
        name = self.current_name
        self.estimator_combo.setCurrentText(name)
        model = self.estimator_combo.model()
        for row, cls in enumerate(self.scorer_classes.values()):
            suits = self.data is None or self.target_type in cls.tasks
            model.item(row).setEnabled(suits)
            item = self.compare_model.item(row)
            item.setEnabled(suits)
            item.setToolTip("" if suits else f"{cls.stem()} does not suit a "
                                             f"{_TARGETS[self.target_type]} target.")
        self.params_stack.show_editor(name)
        self._update_covariates_enabled()
        self.counts_box.setVisible(self.scorer_classes[name].counts_cases)
        self._update_threshold_enabled()
        self.Outputs.scorer.send(self.create_scorer())

    def _update_threshold_enabled(self):
        relief = self._has_relief_threshold(self._selection_run_name())
        self.select_buttons.button(self.SelectThreshold).setEnabled(relief)
        self.alpha_spin.setEnabled(relief)

    def _has_relief_threshold(self, name):
        return self.scorer_classes[name].relief_threshold

    def _on_estimator_changed(self):
        name = self.estimator_combo.currentText()
        tasks = self.scorer_classes[name].tasks
        if self.data is None and self.target_type not in tasks:
            self.target_type = next(iter(tasks))
        self.estimator_name = name
        self._show_estimator()
        self.restart()

    def _on_compared_changed(self):
        self.compared = [self.compare_model.item(row).text()
                         for row in range(self.compare_model.rowCount())
                         if self.compare_model.item(row).checkState() == Qt.Checked]
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
        self.covariates = []
        self.accept_data(data)
        self.input_data = self.data
        if self.data is not None:
            self.target_type = "regression" if self.data.domain.class_var.is_continuous \
                else "classification"
        domain = self.data.domain if self.data is not None else None
        self.covariate_model[:] = domain.metas + domain.attributes if domain is not None else []
        self.openContext(self.input_data)
        self._show_estimator()
        self.select_buttons.button(self.selection_method).setChecked(True)
        self.restart(new_data=True)

    def _estimated_data(self):
        """The input data whose attributes are those estimated: the attributes chosen as
        covariates (when in use) become meta attributes; None when no attribute is left."""
        data, names = self.input_data, self.covariates_in_use()
        if data is None or not names:
            return data
        domain = data.domain
        moved = tuple(var for var in domain.attributes if var.name in names)
        if not moved:
            return data
        if len(moved) == len(domain.attributes):
            self.Error.only_covariates()
            return None
        return data.transform(Domain([var for var in domain.attributes if var not in moved],
                                     domain.class_vars, domain.metas + moved))

    def restart(self, new_data=False):
        self.Error.only_covariates.clear()
        data = self._estimated_data()
        if data is not self.data:
            self.data = data
        attributes = data.domain.attributes if data is not None else []
        if list(self.counts_attr_model) != list(attributes):
            self.counts_attr_model[:] = attributes
        super().restart(new_data)
        if self.data is not None and self.current_name != self.estimator_name:
            self.Information.switched(self.estimator_name, _TARGETS[self.target_type],
                                      self.current_name)
        if self.data is not None:
            left_out = [name for name in self.compared
                        if self.target_type not in self.scorer_classes[name].tasks]
            self.Information.not_compared(_TARGETS[self.target_type], ", ".join(left_out),
                                          shown=bool(left_out))

    def on_partial_result(self, calls):
        missingcalls.show(self, calls)

    def on_done(self, result):
        missingcalls.show(self, result.calls)
        missing = getattr(result, "n_missing_covariates", 0)
        self.Information.missing_covariates(missing, shown=missing > 0)
        super().on_done(result)

    def background_task(self):
        scorers = [self.create_scorer(name)
                   for name in [self.current_name] + self.compared_names()]
        # one message for all the estimators STIR does not test, with the advice that suits
        # them all (NPDR: its regression test, which adjusts for covariates, or permutations)
        no_stir = [s for s in scorers if not supports_stir(s)]
        advice = "Regression (NPDR) or Permutations" \
            if all("npdr" in s.significance_tests for s in no_stir) else "Permutations"
        self.Warning.no_stir(advice, ", ".join(s.stem() for s in no_stir),
                             shown=self._method() == "stir" and bool(no_stir))
        no_npdr = [s.stem() for s in scorers if "npdr" not in s.significance_tests]
        self.Warning.no_npdr(", ".join(no_npdr), shown=self._method() == "npdr" and no_npdr)
        no_trend = [s.stem() for s in scorers if "trend" not in s.significance_tests]
        self.Warning.no_trend(", ".join(no_trend),
                              shown=self._method() == "trend" and no_trend)
        adjusted = bool(self.covariates_in_use())
        unadjusted = [s.stem() for s in scorers if not s.adjusts_covariates]
        self.Information.unadjusted(", ".join(self.adjusting), ", ".join(unadjusted),
                                    shown=adjusted and bool(unadjusted))
        tested = len(self.data.domain.attributes) - len(self.covariates_in_use())
        message = permutation_rule(tested, self.n_permutations, kind="attributes")[1]
        self.Warning.few_permutations(message, shown=self._method() == "permutation"
                                      and message is not None)
        return (partial(estimate_all, method=self._method(), n_permutations=self.n_permutations,
                        impute=self.impute_calls), scorers, self.data)

    # --- score table
    def runs(self):
        """The results of the estimators shown, the first one's first."""
        return [] if self.result is None else [self.result] + self.result.compared

    def _columns(self):
        """(run, kind) of the table's columns from the third on: kind is "scores", "pvalues"
        or "qvalues"."""
        columns = []
        for run in self.runs():
            columns.append((run, "scores"))
            if run.pvalues is not None:
                columns += [(run, "pvalues"), (run, "qvalues")]
        return columns

    def show_result(self):
        for c in range(2, self.ranks_model.columnCount()):     # the previous result's
            self.ranks_view.setItemDelegateForColumn(c, None)
        self.ranks_model.clear()
        self.ranks_model.resetSorting(True)
        self.ranks_model.notes = {}
        self.formats.clear()
        self.score_delegates = []
        self.counts_view.setRowCount(0)
        if self.result is None:
            self._update_tau_label()
            self.plot.clear()
            return
        attrs = self.data.domain.attributes
        n_values = [float(len(a.values)) if a.is_discrete else np.nan for a in attrs]
        columns = self._columns()
        headers, tips = ["", "#"], ["Attribute", "Number of values"]
        self.ranks_model.ascending = set()
        view = self.ranks_view
        for c, (run, kind) in enumerate(columns, 2):
            if kind == "scores":
                headers.append(run.name)
                tips.append(f"Estimates by {run.name}")
                self.ranks_model.setExtremesFrom(c, run.scores)
                self.formats[c] = format_scores(run.scores)
                self.score_delegates.append(ScoreDelegate(self, self.formats[c]))
                view.setItemDelegateForColumn(c, self.score_delegates[-1])
                for row, round_ in run.removed.items():
                    self.ranks_model.notes[(row, c)] = (
                        "removed", f"Removed by TuRF in round {round_}: it ranks below the "
                                   "attributes that outlived that round.")
            else:
                headers.append(kind[0])
                what = "p-values" if kind == "pvalues" else "q-values (Benjamini-Hochberg)"
                tips.append(f"{what} of {run.name}'s estimates")
                self.ranks_model.ascending.add(c)
                view.setItemDelegateForColumn(c, self.pvalue_delegate)
        rows = [[a, nv, *map(float, values)] for a, nv, values in
                zip(attrs, n_values, zip(*(getattr(run, kind) for run, kind in columns)))]
        self.ranks_model.wrap(rows)
        self.ranks_model.setHorizontalHeaderLabels(headers)
        self.ranks_model.header_tips = tips
        self._fit_columns()
        column, order = self.sorting
        if column >= self.ranks_model.columnCount():
            column, order = 2, enum2int(Qt.DescendingOrder)
        self.ranks_model.sort(column, Qt.SortOrder(order))
        view.horizontalHeader().setSortIndicator(column, Qt.SortOrder(order))
        self._show_sorted_column()
        self._update_threshold_enabled()
        self._update_tau_label()
        if self.result.case_counts is not None:
            self.counts_combo.setCurrentIndex(
                int(np.argmax(np.nan_to_num(self.result.scores, nan=-np.inf))))
            self._show_case_counts()
        self.auto_select()

    def _fit_columns(self):
        """Every column as wide as its widest text and its header (with the sort arrow), so
        that no number or name is elided; measured on the texts (the view's own measure asks
        the delegate for every row)."""
        view = self.ranks_view
        header = view.horizontalHeader()
        metrics = view.fontMetrics()

        def widest(texts):
            # the widest is among the longest (not always the longest: digits are wider
            # than "e" and "-")
            longest = sorted(set(texts), key=len)[-64:]
            return max((metrics.horizontalAdvance(t) for t in longest), default=0)

        attrs = self.data.domain.attributes
        icon = view.iconSize().width() if view.iconSize().isValid() else 16
        # the names: measured, and by the view on its first hundred rows (icon and margins; a
        # thousand rows took 90 ms of the canvas's time)
        header.setResizeContentsPrecision(100)
        # (a name longer than NAME_CHARACTERS is shortened in the middle, its tooltip in full,
        # so that long names leave the estimates in view)
        names = max(widest(a.name for a in attrs) + icon + 16, view.sizeHintForColumn(0))
        widths = [min(names, metrics.averageCharWidth() * NAME_CHARACTERS + icon + 16),
                  widest(["99"]) + 12]
        for c, (run, kind) in enumerate(self._columns(), 2):
            values = np.sort(getattr(run, kind))       # the widest are among the extremes
            text = self.formats[c] if kind == "scores" else format_p
            texts = [text(v) for v in np.concatenate((values[:16], values[-16:]))]
            if kind == "scores" and run.removed:
                texts.append("removed")
            widths.append(widest(texts) + 12)
        for c, width in enumerate(widths):
            view.setColumnWidth(c, max(width, header.sectionSizeHint(c)))
        view.setMinimumWidth(min(self._table_width(), 500))

    def _table_width(self):
        """The width that shows every column of the table."""
        view = self.ranks_view
        width = sum(view.columnWidth(c) for c in range(self.ranks_model.columnCount()))
        return width + view.verticalHeader().width() + 2 * view.frameWidth() \
            + view.verticalScrollBar().sizeHint().width()

    def _show_sorted_column(self):
        """Scroll the table (when it is wider than its pane) so that the column it is sorted
        by, which the selection follows, is in view."""
        view = self.ranks_view
        column = view.horizontalHeader().sortIndicatorSection()
        if 0 <= column < self.ranks_model.columnCount() and self.ranks_model.rowCount():
            row = max(view.rowAt(0), 0)
            view.scrollTo(self.ranks_model.index(row, column))

    def _on_header_click(self):
        self.sorting = (self.ranks_model.sortColumn(), enum2int(self.ranks_model.sortOrder()))
        self._show_sorted_column()
        self._update_threshold_enabled()
        self._update_tau_label()
        if self.selection_method != self.SelectManual:
            self.auto_select()
        else:
            self._update_plot()

    def _selection_run(self):
        """The run whose column (estimates, p or q) the table is sorted by; the first one's
        when sorted by name."""
        column = self.sorting[0]
        columns = self._columns()
        if 2 <= column < len(columns) + 2:
            return columns[column - 2][0]
        return self.result

    def _selection_run_name(self):
        run = self._selection_run() if self.result is not None else None
        return run.name if run is not None else self.current_name

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
        text = format_scores(flat)
        for r, row in enumerate(flat):
            for c, x in enumerate(row):
                item = QTableWidgetItem(text(x))
                item.setTextAlignment(Qt.AlignRight | Qt.AlignVCenter)
                self.counts_view.setItem(r, c, item)
        view = self.counts_view     # every row in view, up to eight (then it scrolls)
        view.resizeRowsToContents()
        rows = sum(view.rowHeight(r) for r in range(min(len(flat), 8)))
        view.setMinimumHeight(rows + view.horizontalHeader().sizeHint().height()
                              + 2 * view.frameWidth()
                              + view.horizontalScrollBar().sizeHint().height())

    # --- selection
    def _threshold(self):
        """τ of the estimator the table is sorted by, or None when Relief's threshold does not
        apply to its estimates (:attr:`.base.Estimator.relief_threshold`)."""
        if self.result is None or not self._has_relief_threshold(self._selection_run().name):
            return None
        return relief_threshold(self.alpha, self._selection_run().m)

    def _update_tau_label(self):
        tau = self._threshold()
        if tau is None:
            self.tau_label.setText("")
            return
        run = self._selection_run()
        above = int(np.sum(run.scores > tau))
        self.tau_label.setText(
            f"τ = {tau:.3f} for m = {run.m}: {above} of {count(len(run.scores), 'attribute')} "
            f"above")
        self.tau_label.setToolTip(
            f"τ = 1/√(α·m) = 1/√({self.alpha:g} · {run.m}) for {run.name}'s estimates")

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
        run = self._selection_run()
        tau = self._threshold()
        if method == self.SelectThreshold and tau is None:
            self.Information.no_threshold()
            method = self.SelectNBest
        if method == self.SelectFDR and run.qvalues is None:
            self.Information.no_qvalues()
            method = self.SelectNBest
        if method == self.SelectNBest:      # the top rows as the table is sorted
            rows = range(min(self.n_selected, model.rowCount()))
            indices = model.mapToSourceRows(list(rows)) if len(rows) else []
        elif method == self.SelectThreshold:
            indices = np.flatnonzero(run.scores > tau)
            self.Warning.threshold_nothing(tau, run.name, run.m, shown=not len(indices))
        elif method == self.SelectFDR:
            indices = np.flatnonzero(run.qvalues < self.fdr)
            self.Warning.fdr_nothing(run.name, self.fdr, shown=not len(indices))
        else:
            indices = self._attribute_indices(self.selected_attrs)
        selection = QItemSelection()
        last = model.columnCount() - 1
        for row in model.mapFromSourceRows(list(indices)):
            selection.append(QItemSelectionRange(model.index(row, 0), model.index(row, last)))
        selection_model = self.ranks_view.selectionModel()
        blocked = selection_model.blockSignals(True)     # one update of the plot and outputs
        selection_model.select(selection, QItemSelectionModel.ClearAndSelect)
        selection_model.blockSignals(blocked)
        self.ranks_view.viewport().update()
        self._on_select()

    def _attribute_indices(self, variables):
        """The indices of ``variables`` among the data's attributes (those that are)."""
        domain, n = self.data.domain, len(self.data.domain.attributes)
        indices = []
        for var in variables:
            try:
                index = domain.index(var)
            except ValueError:
                continue
            if 0 <= index < n:
                indices.append(index)
        return indices

    def _on_select(self):
        rows = [i.row() for i in self.ranks_view.selectionModel().selectedRows(0)]
        indices = sorted(self.ranks_model.mapToSourceRows(rows)) if rows else []
        self.selected_attrs = [self.data.domain.attributes[i] for i in indices]
        if self.showing:        # a new result: its outputs and plot follow in later steps
            return
        self._update_plot()
        self.commit.deferred()

    def later_steps(self):
        """The score plot is drawn after the table and the outputs (a turn of the event loop
        of its own)."""
        return [self._update_plot]

    def _update_plot(self):
        if self.result is None:
            self.plot.clear()
            return
        run = self._selection_run()
        attrs = self.data.domain.attributes
        selected = set(self._attribute_indices(self.selected_attrs))
        if run.qvalues is not None:
            marked, mark = run.qvalues < self.fdr, f"q &lt; {self.fdr:g}"
        elif self._threshold() is not None:
            marked, mark = run.scores > self._threshold(), "above τ"
        else:
            marked, mark = None, ""
        self.plot.show_scores(run.name, [a.name for a in attrs], run.scores, selected,
                              marked, mark, self._threshold(), set(run.removed))

    # --- output
    @gui.deferred
    def commit(self):
        self.Outputs.preprocessor.send(self.create_preprocessor())
        self.Outputs.scores.send(self.scores_table())
        if self.result is None or not self.selected_attrs:
            self.Outputs.reduced_data.send(None)
            self.Outputs.features.send(None)
            return
        domain = Domain(self.selected_attrs, self.data.domain.class_vars,
                        self.data.domain.metas)
        self.Outputs.reduced_data.send(self.data.transform(domain))
        self.Outputs.features.send(AttributeList(self.selected_attrs))

    def create_preprocessor(self):
        """The selection as a preprocessor (:class:`.selection.SelectAttributes`) that
        estimates and selects anew on the data it is given — in Test and Score, on each
        training set: the estimator the selection follows with its parameters and covariates,
        and the selection rule, which falls back to the best ranked where the table does (τ or
        q-values that do not apply). None for a manual selection."""
        self.Information.manual_preprocessor.clear()
        if self.selection_method == self.SelectManual:
            self.Information.manual_preprocessor()
            return None
        name = self._selection_run_name()
        scorer = self.create_scorer(name)
        method = self._method()
        rule = {self.SelectNBest: "best", self.SelectThreshold: "threshold",
                self.SelectFDR: "fdr"}[self.selection_method]
        if rule == "threshold" and not self._has_relief_threshold(name) \
                or rule == "fdr" and method not in scorer.significance_tests:
            rule = "best"
        return SelectAttributes(scorer, rule=rule, n=self.n_selected, alpha=self.alpha,
                                fdr=self.fdr, significance=method or "stir",
                                n_permutations=self.n_permutations,
                                random_state=PERMUTATION_SEED)

    def scores_table(self):
        """Scores as a table in Rank's format: a column per estimator (with a significance
        method its p- and q-values after it, named "p" and "q" for the first estimator and
        "p (name)", "q (name)" for the others), attribute names as meta."""
        if self.result is None:
            return None
        columns, names = [], []
        for i, (run, kind) in enumerate(self._columns()):
            columns.append(getattr(run, kind))
            if kind == "scores":
                names.append(run.name)
            else:
                names.append(kind[0] if run is self.result else f"{kind[0]} ({run.name})")
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
                          + [("Covariates", ", ".join(self.covariates_in_use()) or "none"),
                             ("Compared with", ", ".join(self.compared_names()) or "none"),
                             ("Significance", SIGNIFICANCE[self.significance_method][0]
                              + (f" ({self.n_permutations} runs)"
                                 if method == "permutation" else ""))])
        if self.data is None:
            return
        self.report_data("Data", self.data)
        if self.result is not None:
            self.report_table("Estimates", self.ranks_view, num_format="{:.4g}")
            self.report_plot("Scores", self.plot)
            selection = ["manually", f"the {self.n_selected} best ranked",
                         f"above τ (α = {self.alpha:g})",
                         f"q < {self.fdr:g}"][self.selection_method]
            self.report_items("Output", [("Selected attributes",
                                          f"{len(self.selected_attrs)}, {selection}")])


#: the words for a target type in messages
_TARGETS = {"classification": "categorical", "regression": "numeric"}


#: the plot draws the attributes beyond this rank that are neither marked nor selected as a line
MAX_DOTS = 500


#: with at most this many attributes the x axis is labelled at every rank (not 1.5, 2.5, ...)
EVERY_RANK = 10


class ScorePlot(pg.PlotWidget):
    """The estimates of one estimator as dots, attributes ordered from the best: filled where
    the attribute is significant (q below the level, or above Relief's τ), ringed in the
    selection's colour where it is selected; τ as a dashed line. Hovering a dot names its
    attribute. Beyond the best :data:`MAX_DOTS`, the plain attributes are a line. The legend
    stands beside the plot, not over the dots; the range is the estimates' (a τ far beyond them
    is named in the legend, not drawn, so that the dots keep their spread)."""
    def __init__(self, parent=None):
        super().__init__(parent, background="w")
        # pyqtgraph's PlotWidget sets the plot item's ``clear`` on each instance, which would
        # hide :meth:`clear` (legend and title would stay from the previous result)
        del self.clear
        self.setMinimumHeight(160)
        self.getPlotItem().setMenuEnabled(False)
        self.getPlotItem().hideButtons()
        self.setMouseEnabled(x=False, y=False)
        self.showGrid(y=True, alpha=0.2)
        self.setLabel("bottom", "attributes, from the best", color="k")
        for side in ("left", "bottom"):
            self.getAxis(side).enableAutoSIPrefix(False)
        # the legend in a column of the plot item's grid right of the plot (row 2 holds the
        # view box)
        self.legend = pg.LegendItem(labelTextColor="k")
        # as tall as its entries, at the top (in a plot's full height its rows spread out)
        self.legend.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        self.getPlotItem().layout.addItem(self.legend, 2, 3, Qt.AlignTop)
        self.tau = None         # the τ line (None when there is none)
        # pyqtgraph sets the bottom axis' name 5 px below the axis: room for it below
        left, top, right, _ = self.getPlotItem().layout.getContentsMargins()
        self.getPlotItem().layout.setContentsMargins(left, top, right, 8)
        self._show_axes(False)

    def _show_axes(self, shown):
        """Show the axes (with a result) or hide them (an empty plot shows no numbers); the
        bottom axis as tall as its numbers and its whole name (pyqtgraph counts 80 % of the
        name's height, which clips its lower part at the plot's bottom edge)."""
        plot = self.getPlotItem()
        for side in ("left", "bottom"):
            if shown:
                plot.showAxis(side)
            else:
                plot.hideAxis(side)
        axis = self.getAxis("bottom")
        offset = axis.style["tickTextOffset"][1] + max(0, axis.style["tickLength"])
        axis.setHeight(QFontMetrics(axis.font()).height() + offset
                       + axis.label.boundingRect().height() + 2)
        self._fit_height()

    def _fit_height(self):
        """At least as tall as the plot item's minimum: the title, the bottom axis and the
        legend beside the dots (three entries at a large font did not fit the former fixed
        minimum, and the axis' name was cut)."""
        plot = self.getPlotItem()
        plot.layout.invalidate()
        needed = plot.effectiveSizeHint(Qt.SizeHint.MinimumSize).height()
        self.setMinimumHeight(max(160, int(np.ceil(needed)) + 2 * self.frameWidth() + 2))

    def showEvent(self, event):
        super().showEvent(event)
        self._fit_height()      # (the legend's entries are laid out once shown)

    def clear(self):
        """Remove the dots, the τ line, the legend's entries, the title, the axis name and the
        axes."""
        self.getPlotItem().clear()
        self.legend.clear()
        self.tau = None
        self.getPlotItem().titleLabel.setText("")
        self.setTitle(None)
        self.setLabel("left", "")
        self.getAxis("bottom").setTicks(None)
        self._show_axes(False)

    def legend_labels(self):
        """The texts of the legend's entries, in order."""
        return [label.text for _, label in self.legend.items]

    def show_scores(self, name, names, scores, selected, marked, mark, tau, removed):
        self.clear()
        scores = np.asarray(scores, dtype=float)
        order = np.argsort(-np.nan_to_num(scores, nan=-np.inf), kind="stable")
        order = [i for i in order if np.isfinite(scores[i]) and i not in removed]
        if not order:
            return
        self.setTitle(f"Estimates by {name}", color="k")
        self.setLabel("left", name, color="k")
        x = np.arange(1, len(order) + 1)
        y = scores[order]
        grey, red, blue = QColor(150, 150, 150), QColor(220, 50, 47), QColor(38, 139, 210)
        significant = np.zeros(len(order), bool) if marked is None \
            else np.asarray(marked)[order]
        chosen = np.array([i in selected for i in order])
        labels = np.array([names[i] for i in order], dtype=object)
        # beyond the best MAX_DOTS, attributes neither marked nor selected are a grey line
        plain = ~(significant | chosen) & (x > MAX_DOTS)
        if plain.any():
            self.addItem(pg.PlotDataItem(x[plain], y[plain], pen=pg.mkPen(grey, width=2)))
        # one item per look (significant or not, selected or not): pyqtgraph draws a look
        # once, not once per attribute
        for sig in (False, True):
            for sel in (False, True):
                mask = (significant == sig) & (chosen == sel) & ~plain
                if not mask.any():
                    continue
                self.addItem(pg.ScatterPlotItem(
                    x=x[mask], y=y[mask], data=labels[mask], size=10 if sel else 7,
                    pen=pg.mkPen(blue if sel else (red if sig else grey),
                                 width=2.5 if sel else 1),
                    brush=pg.mkBrush(red if sig else QColor(255, 255, 255)),
                    hoverable=True, tip=lambda x, y, data: f"{data}: {y:.4g}"))
        low, high = float(y.min()), float(y.max())
        tau_text = None
        if tau is not None:
            # τ is drawn when it is within half the estimates' spread of them; else the
            # legend says where it is
            spread = max(high - low, 1e-12)
            tau_text = f"τ = {tau:.3f}"
            if low - spread / 2 <= tau <= high + spread / 2:
                low, high = min(low, tau), max(high, tau)
                self.tau = pg.InfiniteLine(tau, angle=0, pen=pg.mkPen(grey, style=Qt.DashLine))
                self.addItem(self.tau)
            else:
                tau_text += " (above the plot)" if tau > high else " (below the plot)"
        # the legend: what the marks mean
        if significant.any():
            self.legend.addItem(pg.ScatterPlotItem(brush=pg.mkBrush(red), pen=pg.mkPen(red),
                                                   size=7), mark)
        if len(selected):
            self.legend.addItem(pg.ScatterPlotItem(brush=pg.mkBrush("w"),
                                                   pen=pg.mkPen(blue, width=2.5), size=10),
                                "selected")
        if tau_text is not None:
            self.legend.addItem(pg.PlotDataItem(pen=pg.mkPen(grey, style=Qt.DashLine)),
                                tau_text)
        if high == low:
            low, high = low - 0.5, high + 0.5
        self.setYRange(low, high, padding=0.08)
        self.setXRange(0.5, len(order) + 0.5, padding=0.02)
        if len(order) <= EVERY_RANK:
            self.getAxis("bottom").setTicks([[(int(i), str(i)) for i in x]])
        self._show_axes(True)


if __name__ == "__main__":  # pragma: no cover
    WidgetPreview(OWAttributeEstimation).run(Table("zoo"))
