"""Locality Profile: ReliefF's (RReliefF's) estimate of every attribute as a function of the
number of nearest neighbours k, from one neighbour search (Fig. 2 of Robnik-Šikonja &
Kononenko 1999), and the correlation (eq. 15) of those estimates with myopic estimates, as
functions of k (Fig. 5): with myopic ReliefF (eq. 5) and accuracy (eq. 16) for classification,
with the MSE of the mean (eq. 17) for regression."""
from types import SimpleNamespace

import numpy as np
import pyqtgraph as pg
from AnyQt.QtCore import QItemSelection, QItemSelectionModel, Qt
from AnyQt.QtGui import QColor
from AnyQt.QtWidgets import QListView

from Orange.data import Domain, Table
from Orange.widgets import gui
from Orange.widgets.settings import ContextSetting, DomainContextHandler, Setting
from Orange.widgets.utils.colorpalettes import LimitedDiscretePalette
from Orange.widgets.utils.itemmodels import VariableListModel
from Orange.widgets.utils.widgetpreview import WidgetPreview
from Orange.widgets.widget import AttributeList, Input, Msg, Output

from orangecontrib.relief.estimators import impurity
from orangecontrib.relief.estimators.relieff import ReliefF
from orangecontrib.relief.estimators.rrelieff import RReliefF
from orangecontrib.relief.orange_data import encode_table
from orangecontrib.relief.widgets.background import BackgroundEstimationWidget, progress_callback

__all__ = ["OWLocalityProfile", "locality_profile", "correlation"]

#: attributes named in the legend of the profile when none is selected
LEGEND_SIZE = 10

#: myopic estimators the profile is correlated with, per task (Fig. 5; eqs. 5, 16, 17)
REFERENCES = {
    "classification": (("myopic ReliefF (eq. 5)", impurity.MyopicReliefF),
                       ("accuracy (eq. 16)", impurity.Accuracy)),
    "regression": (("MSE (eq. 17)", impurity.MSE),),
}


def correlation(x, y):
    """Pearson's correlation coefficient of eq. 15 over the entries known in both vectors;
    NaN when fewer than two remain or either is constant."""
    known = ~(np.isnan(x) | np.isnan(y))
    x, y = x[known], y[known]
    if x.size < 2 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return np.nan
    x, y = x - x.mean(), y - y.mean()
    return float(x @ y / np.sqrt((x @ x) * (y @ y)))


def locality_profile(data, k_max, iterations, random_state, state):
    """ReliefF (or RReliefF for a numeric target) estimates for k = 1 .. k_max from one
    neighbour search (k_max capped by the neighbours available), and their correlation with the
    myopic estimators of :data:`REFERENCES` for every k.

    Returns a namespace with ``ks`` (K,), ``profile`` (K, n_attributes), ``correlations``
    ({label: (K,)}; NaN where a myopic measure refuses the data, with its reason in
    ``failures`` {label: message}) and ``n_ignored`` (instances dropped for a missing class)."""
    encoded, rows = encode_table(data, sparse=True)
    task = "classification" if encoded.is_classification else "regression"
    cls = ReliefF if task == "classification" else RReliefF
    estimator = cls(k=k_max, iterations=iterations, random_state=random_state)
    context = estimator.context(encoded, progress_callback(state, 0, 60))
    ks = np.arange(1, min(estimator.k_, context.neighbours.shape[2]) + 1)   # (ties may add more)
    profile = estimator.profile(context, ks, callback=progress_callback(state, 60, 95))
    callback = progress_callback(state, 95, 100)
    correlations, failures = {}, {}
    for label, reference in REFERENCES[task]:
        callback(0.0)
        try:
            myopic = np.asarray(reference()(encoded), dtype=float)
        except ValueError as error:     # data the myopic measure cannot take: no correlation
            failures[label] = str(error)
            myopic = np.full(profile.shape[1], np.nan)
        correlations[label] = np.array([correlation(row, myopic) for row in profile])
    return SimpleNamespace(ks=ks, profile=profile, correlations=correlations,
                           failures=failures, n_ignored=len(data) - len(rows))


class OWLocalityProfile(BackgroundEstimationWidget):
    name = "Locality Profile"
    description = ("ReliefF's estimates as a function of the number of nearest neighbours k, "
                   "and their correlation with myopic estimates: how local are the "
                   "dependencies?")
    icon = "icons/LocalityProfile.svg"
    priority = 30
    keywords = ["relief", "relieff", "nearest neighbours", "locality", "myopic", "profile",
                "correlation"]

    class Inputs:
        data = Input("Data", Table)

    class Outputs:
        selected_data = Output("Selected Data", Table, default=True)
        features = Output("Features", AttributeList, dynamic=False)

    settingsHandler = DomainContextHandler()
    k_max = Setting(100)
    iterations = Setting(0)          # 0 = all instances
    random_state = Setting(0)
    selected_attrs = ContextSetting([])
    auto_commit = Setting(True)

    class Warning(BackgroundEstimationWidget.Warning):
        no_correlation = Msg("Correlations are undefined: fewer than two attributes with "
                             "varying estimates.")
        no_reference = Msg("No correlation with {}")

    class Information(BackgroundEstimationWidget.Information):
        k_capped = Msg("k is limited to {} by the size of the classes.")

    def __init__(self):
        super().__init__()
        self.curves = []
        self.colors = []

        box = gui.vBox(self.controlArea, "ReliefF")
        gui.spin(box, self, "k_max", 1, 10000, label="Largest k:", callback=self.restart,
                 controlWidth=110,
                 tooltip="Estimates are computed for every number of nearest neighbours "
                         "k = 1 … this, from one neighbour search (at most the size of the "
                         "classes).")
        gui.spin(box, self, "iterations", 0, 1000000, label="Iterations m:",
                 specialValueText="all instances", callback=self._on_iterations_changed,
                 controlWidth=110,
                 tooltip="m, the number of instances R sampled at random whose neighbours "
                         "update the estimates; 'all instances' visits each once.")
        self.seed_spin = gui.spin(
            box, self, "random_state", 0, 2 ** 31 - 1, label="Random seed:",
            callback=self.restart, controlWidth=110,
            tooltip="Seed of the sample of m instances: the same seed repeats a run exactly "
                    "(used only when instances are sampled).")
        self.seed_spin.setEnabled(bool(self.iterations))

        box = gui.vBox(self.controlArea, "Attributes")
        self.attr_model = VariableListModel(parent=self)
        self.attr_view = QListView(selectionMode=QListView.ExtendedSelection)
        self.attr_view.setModel(self.attr_model)
        self.attr_view.selectionModel().selectionChanged.connect(self._on_list_selection)
        box.layout().addWidget(self.attr_view)
        gui.auto_send(self.buttonsArea, self, "auto_commit")

        self.profile_plot = self._plot("Estimate of each attribute", "estimate")
        self.correlation_plot = self._plot("Correlation with myopic estimates",
                                           "correlation (eq. 15)")
        self.profile_legend = self.profile_plot.addLegend(offset=(-10, 10),
                                                          labelTextColor="k")
        self.correlation_plot.addLegend(offset=(-10, -10), labelTextColor="k")
        self.correlation_plot.setYRange(-1, 1)
        self.mainArea.layout().addWidget(self.profile_plot, 3)
        self.mainArea.layout().addWidget(self.correlation_plot, 2)
        self.resize(900, 620)

    def _on_iterations_changed(self):
        self.seed_spin.setEnabled(bool(self.iterations))
        self.restart()

    def _plot(self, title, ylabel):
        plot = pg.PlotWidget(background="w")
        plot.setTitle(title, color="k")
        plot.setLabel("bottom", "number of nearest neighbours k", color="k")
        plot.setLabel("left", ylabel, color="k")
        for side in ("left", "bottom"):     # plain numbers, no "(x0.001)" scale in the label
            plot.getAxis(side).enableAutoSIPrefix(False)
        plot.showGrid(x=True, y=True, alpha=0.2)
        plot.getPlotItem().setMenuEnabled(False)
        return plot

    # --- data and computation
    @Inputs.data
    def set_data(self, data):
        self.closeContext()
        self.selected_attrs = []
        self.accept_data(data)
        self.attr_model[:] = self.data.domain.attributes if self.data is not None else []
        self.openContext(self.data)
        self.restart(new_data=True)

    def background_task(self):
        return (locality_profile, self.data, self.k_max, self.iterations or None,
                self.random_state)

    def on_done(self, result):
        self.Information.k_capped(len(result.ks), shown=len(result.ks) < self.k_max)
        self.Warning.no_correlation(
            shown=not result.failures
            and all(np.isnan(c).all() for c in result.correlations.values()))
        super().on_done(result)
        self.Warning.no_reference(
            "; ".join(f"{label}: {reason}" for label, reason in result.failures.items()),
            shown=bool(result.failures))

    # --- plots
    def show_result(self):
        self._plot_result()
        self._select_in_list()

    def _plot_result(self):
        self.profile_plot.clear()
        self.correlation_plot.clear()
        self.curves = []
        if self.result is None:
            return
        ks = self.result.ks
        n = self.result.profile.shape[1]
        self.colors = list(LimitedDiscretePalette(max(n, 1)).qcolors)
        for i, attr in enumerate(self.data.domain.attributes):
            curve = pg.PlotDataItem(ks, self.result.profile[:, i])
            curve.setCurveClickable(True, width=6)
            curve.sigClicked.connect(self._on_curve_clicked)
            curve.setToolTip(attr.name)
            self.profile_plot.addItem(curve)
            self.curves.append(curve)
        styles = (Qt.SolidLine, Qt.DotLine, Qt.DashLine)
        for (label, values), style in zip(self.result.correlations.items(), styles):
            pen = pg.mkPen(color="k", width=2, style=style)
            self.correlation_plot.plot(ks, values, pen=pen, name=label)
        self._style_curves()

    def _style_curves(self):
        """Selected attributes drawn thick in their colour, the others thin and grey; the
        legend names the coloured curves: the selected ones, or without a selection the
        :data:`LEGEND_SIZE` attributes with the highest estimates."""
        attrs = self.data.domain.attributes
        selected = {attrs.index(a) for a in self.selected_attrs}
        for i, curve in enumerate(self.curves):
            if i in selected or not selected:
                curve.setPen(pg.mkPen(self.colors[i], width=3 if selected else 1.5))
                curve.setZValue(2)
            else:
                curve.setPen(pg.mkPen(QColor(190, 190, 190), width=1))
                curve.setZValue(1)
        self.profile_legend.clear()
        if selected:
            shown = sorted(selected)
        else:
            profile = self.result.profile
            best = np.where(np.isnan(profile), -np.inf, profile).max(axis=0, initial=-np.inf)
            shown = np.argsort(-best, kind="stable")[:LEGEND_SIZE]
        for i in shown:
            self.profile_legend.addItem(self.curves[i], attrs[i].name)

    # --- selection
    def _on_curve_clicked(self, curve, _event=None):
        """pyqtgraph's sigClicked(item, event): toggle the curve's attribute."""
        attr = self.data.domain.attributes[self.curves.index(curve)]
        if attr in self.selected_attrs:
            self.selected_attrs = [a for a in self.selected_attrs if a is not attr]
        else:
            self.selected_attrs = self.selected_attrs + [attr]
        self._select_in_list()

    def _select_in_list(self):
        selection = QItemSelection()
        for attr in self.selected_attrs:
            index = self.attr_model.index(self.attr_model.indexOf(attr))
            selection.select(index, index)
        self.attr_view.selectionModel().select(selection, QItemSelectionModel.ClearAndSelect)

    def _on_list_selection(self):
        rows = sorted(i.row() for i in self.attr_view.selectionModel().selectedRows())
        self.selected_attrs = [self.attr_model[r] for r in rows]
        if self.curves:
            self._style_curves()
        self.commit.deferred()

    # --- output
    @gui.deferred
    def commit(self):
        if self.data is None or not self.selected_attrs:
            self.Outputs.selected_data.send(None)
            self.Outputs.features.send(None)
            return
        domain = Domain(self.selected_attrs, self.data.domain.class_vars,
                        self.data.domain.metas)
        self.Outputs.selected_data.send(self.data.transform(domain))
        self.Outputs.features.send(AttributeList(self.selected_attrs))

    def send_report(self):
        self.report_items("Parameters", [
            ("Largest k", self.k_max),
            ("Iterations", self.iterations or "all instances"),
            ("Random seed", self.random_state)])
        if self.data is None:
            return
        self.report_data("Data", self.data)
        if self.result is not None:
            self.report_plot("Estimates", self.profile_plot)
            self.report_plot("Correlations", self.correlation_plot)
            self.report_items("Selected", [("Attributes",
                                            ", ".join(a.name for a in self.selected_attrs)
                                            or "none")])


if __name__ == "__main__":  # pragma: no cover
    from orangecontrib.relief.datasets import parity
    WidgetPreview(OWLocalityProfile).run(parity())
