"""Attribute Estimation: any estimator of the add-on (Relief family, Contextual Merit, Π,
impurity measures) with its parameters, compared side by side with further estimators in a
sortable score table with bars (as Orange's Rank) and a plot of the scores, the configured scorer
for Rank's Scorer input, and the selected attributes as Reduced Data. Variables of the data can be
chosen as covariates, which the estimators that adjust for them (NPDR, the trend test) take into
account.

The parts are modules of their own: the computation (:mod:`.estimation`), the controls
(:mod:`.estimationform`), the table's model, view and delegates (:mod:`.estimatesmodels`,
:mod:`.estimatesview`, :mod:`.estimatesdelegates`), the plot (:mod:`.scoreplot`), the Π case
counts (:mod:`.casecounts`), the notes on a run's significance test and covariates
(:mod:`.estimationnotes`), the Preprocessor output and the report (:mod:`.estimationoutputs`) and
the settings' migration (:mod:`.estimationsettings`)."""
from functools import partial

import numpy as np
from AnyQt.QtCore import QSize, Qt
from AnyQt.QtWidgets import QSplitter

from Orange.data import Domain, Table
from Orange.preprocess.preprocess import Preprocess
from Orange.preprocess.score import Scorer
from Orange.widgets import gui
from Orange.widgets.settings import ContextSetting, DomainContextHandler, Setting
from Orange.widgets.utils import enum2int
from Orange.widgets.utils.widgetpreview import WidgetPreview
from Orange.widgets.widget import AttributeList, Input, Msg, Output

from orangecontrib.relief import scoring
from orangecontrib.relief.estimators.catalogue import for_task
from orangecontrib.relief.estimators.threshold import relief_threshold
from orangecontrib.relief.widgets import missingcalls
from orangecontrib.relief.widgets.background import BackgroundEstimationWidget
from orangecontrib.relief.widgets.casecounts import CaseCounts
from orangecontrib.relief.widgets.estimatesmodels import EstimatesModel
from orangecontrib.relief.widgets.estimatesview import EstimatesView
from orangecontrib.relief.widgets.estimation import (
    SIGNIFICANCE, attribute_indices, covariates_as_metas, estimate, estimate_all, scores_table)
from orangecontrib.relief.widgets.estimationform import build_form
from orangecontrib.relief.widgets.estimationnotes import show_notes
from orangecontrib.relief.widgets.estimationoutputs import selection_preprocessor, send_report
from orangecontrib.relief.widgets.estimationsettings import migrate_context, migrate_settings
from orangecontrib.relief.widgets.numbers import count, estimators
from orangecontrib.relief.widgets.scoreplot import ScorePlot

__all__ = ["OWAttributeEstimation", "estimate", "SIGNIFICANCE"]

#: the words for a target type in messages
_TARGETS = {"classification": "categorical", "regression": "numeric"}


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
        unadjusted = Msg("Only {} take{} the covariates into account; {} ignore{} them.")
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

        build_form(self)

        splitter = QSplitter(Qt.Vertical, childrenCollapsible=False)
        self.mainArea.layout().addWidget(splitter)
        self.ranks_model = EstimatesModel(parent=self)
        self.ranks_view = EstimatesView(self)
        self.ranks_view.setModel(self.ranks_model)
        self.ranks_view.selectionModel().selectionChanged.connect(self._on_select)
        self.ranks_view.manualSelection.connect(
            lambda: self.set_selection_method(self.SelectManual))
        self.ranks_view.horizontalHeader().sectionClicked.connect(self._on_header_click)
        splitter.addWidget(self.ranks_view)

        self.plot = ScorePlot(self)
        splitter.addWidget(self.plot)

        self.case_counts = CaseCounts()
        self.counts_box, self.counts_combo = self.case_counts.box, self.case_counts.combo
        self.counts_view = self.case_counts.view
        splitter.addWidget(self.case_counts)
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
            width = max(width, self.controlArea.sizeHint().width()
                        + self.ranks_view.full_width() + 60)
        return QSize(min(width, 1366), 700)

    migrate_context = staticmethod(migrate_context)
    migrate_settings = staticmethod(migrate_settings)

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
                                   f"{estimators(self.adjusting)} "
                                   f"do{'es' if len(self.adjusting) == 1 else ''}.")
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
        self.case_counts.setVisible(self.scorer_classes[name].counts_cases)
        self._update_threshold_enabled()
        self.Outputs.scorer.send(self.create_scorer())

    def _update_threshold_enabled(self):
        relief = self.has_relief_threshold(self.selection_run_name())
        self.select_buttons.button(self.SelectThreshold).setEnabled(relief)
        self.alpha_spin.setEnabled(relief)

    def has_relief_threshold(self, name):
        """Whether Relief's threshold τ applies to the estimates of estimator ``name``."""
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
        """A check changed (not an item's enabled state or tooltip, which also emit
        itemChanged: four spurious restarts on each new data)."""
        compared = [self.compare_model.item(row).text()
                    for row in range(self.compare_model.rowCount())
                    if self.compare_model.item(row).checkState() == Qt.Checked]
        if compared != self.compared:
            self.compared = compared
            self.restart()

    def _on_parameters_changed(self):
        self.Outputs.scorer.send(self.create_scorer())
        self.restart()

    def _on_significance_changed(self):
        self.permutations_spin.setEnabled(self.significance_test() == "permutation")
        self.restart()

    def significance_test(self):
        """The chosen significance method (of :func:`.significance.significance`), or None."""
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
        """The input data whose attributes are those estimated (None when none is left)."""
        data = covariates_as_metas(self.input_data, self.covariates_in_use())
        self.Error.only_covariates(shown=self.input_data is not None and data is None)
        return data

    def restart(self, new_data=False):
        data = self._estimated_data()
        if data is not self.data:
            self.data = data
        self.case_counts.set_attributes(data.domain.attributes if data is not None else [])
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
        show_notes(self, scorers)
        return (partial(estimate_all, method=self.significance_test(),
                        n_permutations=self.n_permutations, impute=self.impute_calls),
                scorers, self.data)

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

    def showing_steps(self):
        """The table filled and sorted in one turn of the event loop; its columns fitted, the
        Π counts and the selection in the next (before the outputs, which it decides)."""
        return [self.show_result, self._show_selection]

    def show_result(self):
        self.case_counts.clear()
        if self.result is None:
            self.ranks_view.show_estimates(None, [], self.sorting)
            self._update_tau_label()
            self.plot.clear()
            return
        self.ranks_view.show_estimates(self.data.domain.attributes, self._columns(),
                                       self.sorting)

    def _show_selection(self):
        if self.result is None:
            return
        self.ranks_view.fit_columns([a.name for a in self.data.domain.attributes],
                                    self._columns())
        self._update_threshold_enabled()
        self._update_tau_label()
        if self.result.case_counts is not None:
            self.case_counts.show_counts(
                self.data.domain, self.result.case_counts,
                int(np.argmax(np.nan_to_num(self.result.scores, nan=-np.inf))))
        self.auto_select()

    def _on_header_click(self):
        self.sorting = (self.ranks_model.sortColumn(), enum2int(self.ranks_model.sortOrder()))
        self.ranks_view.show_sorted_column()
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

    def selection_run_name(self):
        """The name of the estimator the selection follows (the table's sorted column's)."""
        run = self._selection_run() if self.result is not None else None
        return run.name if run is not None else self.current_name

    # --- selection
    def _threshold(self):
        """τ of the estimator the table is sorted by, or None when Relief's threshold does not
        apply to its estimates (:attr:`.base.Estimator.relief_threshold`)."""
        if self.result is None or not self.has_relief_threshold(self._selection_run().name):
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
            indices = attribute_indices(self.data.domain, self.selected_attrs)
        self.ranks_view.select_source_rows(indices)
        self._on_select()

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
        selected = set(attribute_indices(self.data.domain, self.selected_attrs))
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
        """The selection as a preprocessor that selects anew on each training set
        (:func:`.estimationoutputs.selection_preprocessor`); None for a manual selection."""
        return selection_preprocessor(self)

    def scores_table(self):
        """The scores as a table in Rank's format (:func:`.estimation.scores_table`)."""
        if self.result is None:
            return None
        return scores_table(self.data.domain.attributes, self._columns(), self.result)

    def send_report(self):
        send_report(self)


if __name__ == "__main__":  # pragma: no cover
    WidgetPreview(OWAttributeEstimation).run(Table("zoo"))
