"""Locality Profile: ReliefF's (RReliefF's) estimate of every attribute as a function of the
number of nearest neighbours k, from one neighbour search (Fig. 2 of Robnik-Šikonja &
Kononenko 1999), and the correlation (eq. 15) of those estimates with myopic estimates, as
functions of k (Fig. 5): with myopic ReliefF (eq. 5) and accuracy (eq. 16) for classification,
with the MSE of the mean (eq. 17) for regression. The legends stand beside the plots, and the
attributes are listed with their best estimates, to filter and sort."""
from types import SimpleNamespace

import numpy as np
import pyqtgraph as pg
from AnyQt.QtCore import QItemSelection, QItemSelectionModel, QSize, QSortFilterProxyModel, Qt
from AnyQt.QtGui import QColor, QStandardItem, QStandardItemModel
from AnyQt.QtWidgets import (QHeaderView, QLineEdit, QSizePolicy, QSplitter, QStyle,
                             QTableView)

from Orange.data import Domain, Table
from Orange.widgets import gui
from Orange.widgets.settings import ContextSetting, DomainContextHandler, Setting
from Orange.widgets.utils import enum2int
from Orange.widgets.utils.widgetpreview import WidgetPreview
from Orange.widgets.widget import AttributeList, Input, Msg, Output

from orangecontrib.relief.estimators import impurity
from orangecontrib.relief.estimators.relieff import ReliefF
from orangecontrib.relief.estimators.rrelieff import RReliefF
from orangecontrib.relief.orange_data import encode_table
from orangecontrib.relief.widgets.background import BackgroundEstimationWidget, progress_callback
from orangecontrib.relief.widgets.numbers import format_scores
from orangecontrib.relief.widgets.names import NAME_CHARACTERS, distinguishing

__all__ = ["OWLocalityProfile", "locality_profile", "correlation"]

#: attributes named in the legend of the profile when none is selected
LEGEND_SIZE = 10
#: the longest attribute name the legend shows in full (longer names lose the start and end the
#: names in the legend share, :func:`.names.distinguishing`; their tooltips are in full)
LEGEND_CHARACTERS = 22
#: the widest the attribute list opens (its names and estimates)
LIST_WIDTH = 380
#: selected attributes drawn (and named in the legend) each as its own curve; the rest of a
#: larger selection is drawn together as one curve
SELECTED_SHOWN = 20
#: how near (in pixels) to a curve a click selects its attribute
CLICK_PIXELS = 6

#: myopic estimators the profile is correlated with, per task (Fig. 5; eqs. 5, 16, 17)
REFERENCES = {
    "classification": (("myopic ReliefF", impurity.MyopicReliefF),
                       ("accuracy", impurity.Accuracy)),
    "regression": (("MSE", impurity.MSE),),
}
#: where each myopic estimate is defined (the tooltip of the correlation plot)
REFERENCE_SOURCES = {"myopic ReliefF": "eq. 5", "accuracy": "eq. 16", "MSE": "eq. 17"}
#: what a settings box is titled by the target type of the data (None: no data)
ESTIMATORS = {"classification": "ReliefF", "regression": "RReliefF",
              None: "ReliefF / RReliefF"}


#: the colours of the curves drawn each in its own (at most :data:`SELECTED_SHOWN`), in the
#: order of the legend: distinct from each other (at least 22 apart in CIE L*a*b*), from the
#: grey of the other curves, and dark enough for a thin line on white (luminance at most 150)
CURVE_COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#e6550d", "#9467bd", "#8c564b", "#d6459b",
                 "#17a5b8", "#8c8c00", "#393b79", "#0b5e2c", "#ff2d8a", "#6b3e00", "#5aa0ff",
                 "#a30059", "#00a87e", "#b86e00", "#7a1fd6", "#4c6b00", "#2f4f4f")


def curve_colours(n):
    """The colours of ``n`` curves (:data:`CURVE_COLOURS`, repeated beyond them)."""
    return [QColor(CURVE_COLOURS[i % len(CURVE_COLOURS)]) for i in range(n)]


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

    #: Save Image and Copy Image to Clipboard take both plots with their legends
    graph_name = "plots"

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
        k_capped = Msg("The number of neighbours k is limited to {} by the size of the "
                       "classes.")

    def __init__(self):
        super().__init__()
        #: attribute index -> its own curve item (the coloured curves the legend names)
        self.curves = {}
        #: the grey curves of all the other attributes, one item (None before a result)
        self.background = None
        self._listed = None         # the data whose attributes the list holds
        self._names_width = None    # the width of their names (they do not change)
        #: the selected attributes beyond :data:`SELECTED_SHOWN`, one item (or None)
        self.rest = None

        box = self.settings_box = gui.vBox(self.controlArea, ESTIMATORS[None])
        gui.spin(box, self, "k_max", 1, 10000, label="Largest k:", callback=self.restart,
                 tooltip="Estimates are computed for every number of nearest neighbours "
                         "k = 1 … this, from one neighbour search (at most the size of the "
                         "classes).")
        gui.spin(box, self, "iterations", 0, 1000000, label="Iterations m:",
                 specialValueText="all instances", callback=self._on_iterations_changed,
                 tooltip="m, the number of instances R sampled at random whose neighbours "
                         "update the estimates; 'all instances' visits each once.")
        self.seed_spin = gui.spin(
            box, self, "random_state", 0, 2 ** 31 - 1, label="Random seed:",
            callback=self.restart,
            tooltip="Seed of the sample of m instances: the same seed repeats a run exactly "
                    "(used only when instances are sampled).")
        self.seed_spin.setEnabled(bool(self.iterations))
        gui.rubber(self.controlArea)

        # the attribute list beside the plots, where long names have room
        splitter = QSplitter(Qt.Horizontal, childrenCollapsible=False)
        self.mainArea.layout().addWidget(splitter)
        plots = self.plots = gui.vBox(None, margin=0)
        splitter.addWidget(plots)
        box = gui.vBox(None, "Attributes")
        splitter.addWidget(box)
        splitter.setStretchFactor(0, 1)
        self.filter_edit = QLineEdit(placeholderText="Filter attributes ...",
                                     clearButtonEnabled=True,
                                     toolTip="Show the attributes whose names contain this")
        box.layout().addWidget(self.filter_edit)
        self.attr_model = QStandardItemModel(0, 2, self)
        self.attr_model.setHorizontalHeaderLabels(["Attribute", "Best"])
        self.attr_model.setHeaderData(
            1, Qt.Horizontal, "The attribute's highest estimate over all k", Qt.ToolTipRole)
        # a first click on Best sorts the highest first (as Rank does)
        self.attr_model.setHeaderData(1, Qt.Horizontal, enum2int(Qt.DescendingOrder),
                                      Qt.InitialSortOrderRole)
        self.attr_proxy = QSortFilterProxyModel(self, filterCaseSensitivity=Qt.CaseInsensitive,
                                                sortRole=Qt.UserRole, filterRole=Qt.ToolTipRole)
        self.attr_proxy.setSourceModel(self.attr_model)
        self.filter_edit.textChanged.connect(self.attr_proxy.setFilterFixedString)
        self.attr_view = QTableView(
            selectionMode=QTableView.SelectionMode.ExtendedSelection,
            selectionBehavior=QTableView.SelectionBehavior.SelectRows,
            editTriggers=QTableView.EditTrigger.NoEditTriggers, sortingEnabled=True,
            horizontalScrollMode=QTableView.ScrollMode.ScrollPerPixel,
            textElideMode=Qt.ElideMiddle, wordWrap=False,
            toolTip="Click a row (or a curve) to select the attribute; click a header to "
                    "sort.")
        self.attr_view.setModel(self.attr_proxy)
        self.attr_view.verticalHeader().hide()
        # rows as high as their contents, measured on one row: resizing every row to its
        # contents at each sort or selection holds the canvas on thousands of attributes
        self.attr_view.verticalHeader().setSectionResizeMode(QHeaderView.Fixed)
        # (the hidden header's own minimum, its font's height and margins, would make them
        # taller: 25 px for rows of 24 at PyQt5's default 12 pt)
        self.attr_view.verticalHeader().setMinimumSectionSize(1)
        header = self.attr_view.horizontalHeader()
        # names take the list's width (a name longer than that is shortened in the middle,
        # its tooltip in full); the estimates are as wide as their numbers
        header.setSectionResizeMode(0, QHeaderView.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeToContents)
        header.setTextElideMode(Qt.ElideNone)
        # listed in the data's order until a header is clicked: no sort arrow
        header.setSortIndicator(-1, Qt.AscendingOrder)
        self.attr_proxy.sort(-1)
        self.attr_view.selectionModel().selectionChanged.connect(self._on_list_selection)
        box.layout().addWidget(self.attr_view)
        gui.auto_send(self.buttonsArea, self, "auto_commit")

        self.profile_view, self.profile_plot, self.profile_legend = self._plot(
            "Estimate of each attribute", "estimate")
        self.correlation_view, self.correlation_plot, self.correlation_legend = self._plot(
            "Correlation with myopic estimates", "correlation")
        self.correlation_view.setToolTip(
            "Pearson's correlation of the estimates at each k with myopic estimates "
            "(Robnik-Šikonja & Kononenko 1999, eq. 15): myopic ReliefF (eq. 5) and accuracy "
            "(eq. 16) for a categorical target, MSE (eq. 17) for a numeric one.")
        self.correlation_plot.setYRange(-1, 1)
        # curves are found by position, not by an item's click signal: one item holds many
        self.profile_view.scene().sigMouseClicked.connect(self._on_plot_clicked)
        self.profile_view.scene().sigMouseMoved.connect(self._on_plot_hovered)
        plots.layout().addWidget(self.profile_view, 3)
        plots.layout().addWidget(self.correlation_view, 2)
        self.resize(1300, 680)

    def sizeHint(self):
        return QSize(1300, 680)

    def _on_iterations_changed(self):
        self.seed_spin.setEnabled(bool(self.iterations))
        self.restart()

    @staticmethod
    def _plot(title, ylabel):
        """A view with a plot and its legend beside it (not over the curves): (view, plot,
        legend)."""
        view = pg.GraphicsLayoutWidget()
        view.setBackground("w")
        plot = view.addPlot(row=0, col=0)
        plot.setTitle(title, color="k")
        plot.setLabel("bottom", "number of nearest neighbours k", color="k")
        plot.setLabel("left", ylabel, color="k")
        for side in ("left", "bottom"):     # plain numbers, no "(x0.001)" scale in the label
            plot.getAxis(side).enableAutoSIPrefix(False)
        plot.showGrid(x=True, y=True, alpha=0.2)
        plot.setMenuEnabled(False)
        legend = pg.LegendItem(labelTextColor="k")
        column = view.addLayout(row=0, col=1)    # the legend at the top, not spread out
        column.addItem(legend, row=0, col=0)
        column.addLabel("", row=1, col=0)
        column.layout.setRowStretchFactor(1, 1)
        # the legend's column as wide as its names, the plot takes the rest
        column.setSizePolicy(QSizePolicy.Policy.Maximum, QSizePolicy.Policy.Preferred)
        view.ci.layout.setColumnStretchFactor(0, 1)
        return view, plot, legend

    # --- data and computation
    @Inputs.data
    def set_data(self, data):
        self.closeContext()
        self.selected_attrs = []
        self.accept_data(data)
        target = None if self.data is None else \
            "regression" if self.data.domain.class_var.is_continuous else "classification"
        self.settings_box.setTitle(f" {ESTIMATORS[target]} ")   # padded as gui.vBox pads
        self._fill_list()
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
        self._remove_profile_curves()
        self.profile_plot.clear()
        self.correlation_plot.clear()
        self.correlation_legend.clear()
        self._fill_list()
        if self.result is None:
            self.profile_legend.clear()
            return
        ks = self.result.ks
        styles = (Qt.SolidLine, Qt.DotLine, Qt.DashLine)
        for (label, values), style in zip(self.result.correlations.items(), styles):
            pen = pg.mkPen(color="k", width=2, style=style)
            item = self.correlation_plot.plot(ks, values, pen=pen, **self._dots())
            self.correlation_legend.addItem(item, label)
        self._style_curves()

    def _remove_profile_curves(self):
        """Remove the curves added to the view box directly (the plot item's ``clear`` does not
        know them)."""
        for item in [*self.curves.values(), self.background, self.rest]:
            if item is not None:
                self.profile_plot.vb.removeItem(item)
        self.curves, self.background, self.rest = {}, None, None

    def _dots(self):
        """With a single k (the smallest class has two instances) a line has no length: dots."""
        return dict(symbol="o", symbolSize=7) if len(self.result.ks) < 2 else {}

    def _many_curves(self, columns, pen, z):
        """One item drawing the profile curves of ``columns`` (attribute indices), broken by
        NaN between attributes; plain dots for a single k."""
        ks = self.result.ks
        profile = self.result.profile[:, columns]
        if len(ks) < 2:
            item = pg.PlotDataItem(np.repeat(ks, len(columns)).astype(float), profile.ravel(),
                                   pen=None, symbol="o", symbolSize=7,
                                   symbolPen=pen.color(), symbolBrush=pen.color())
        else:
            gap = np.full((len(columns), 1), np.nan)
            x = np.hstack([np.broadcast_to(ks.astype(float), (len(columns), len(ks))), gap])
            y = np.hstack([profile.T, gap])
            item = pg.PlotCurveItem(x.ravel(), y.ravel(), pen=pen, connect="finite")
        item.setZValue(z)
        self.profile_plot.vb.addItem(item)
        return item

    def _style_curves(self):
        """Selected attributes drawn thick in their colour, each its own item; without a
        selection the :data:`LEGEND_SIZE` attributes with the highest estimates in their colour;
        all the other attributes thin and grey, together one item. The legend names the
        coloured curves."""
        self._remove_profile_curves()
        view = self.profile_plot.vb
        attrs = self.data.domain.attributes
        domain = self.data.domain        # its own index: no dictionary of every attribute
        selected = sorted({i for i in (domain.index(a) for a in self.selected_attrs
                                       if a in domain) if 0 <= i < len(attrs)})
        if selected:
            shown, rest, width = selected[:SELECTED_SHOWN], selected[SELECTED_SHOWN:], 3
        else:
            profile = self.result.profile
            best = np.where(np.isnan(profile), -np.inf, profile).max(axis=0, initial=-np.inf)
            shown, rest, width = list(np.argsort(-best, kind="stable")[:LEGEND_SIZE]), [], 1.5
        ks = self.result.ks
        dots = self._dots()
        for i, colour in zip(shown, curve_colours(len(shown))):
            if dots:
                curve = pg.PlotDataItem(ks, self.result.profile[:, i], symbolPen=colour,
                                        symbolBrush=colour, **dots)
            else:
                curve = pg.PlotCurveItem(ks, self.result.profile[:, i])
            curve.setPen(pg.mkPen(colour, width=width))
            curve.setZValue(3)
            view.addItem(curve)
            self.curves[int(i)] = curve
        others = np.setdiff1d(np.arange(len(attrs)), selected or shown)
        if len(others):
            self.background = self._many_curves(others, pg.mkPen(QColor(190, 190, 190), width=1),
                                                z=1)
        if rest:
            self.rest = self._many_curves(rest, pg.mkPen(QColor(90, 90, 90), width=2), z=2)
        self.profile_legend.clear()
        labels = distinguishing([attrs[i].name for i in shown], LEGEND_CHARACTERS)
        for i, label in zip(shown, labels):
            self.profile_legend.addItem(self.curves[int(i)], label)
            self.profile_legend.items[-1][1].setToolTip(attrs[i].name)
        if rest:
            self.profile_legend.addItem(self.rest, f"+ {len(rest)} more selected")

    # --- selection
    def curve_at(self, x, y, pixels=CLICK_PIXELS):
        """The index of the attribute whose profile curve passes nearest to the point (x, y)
        in data coordinates, measured in pixels of the plot, if within ``pixels``; else None."""
        if self.result is None or self.data is None:
            return None
        width, height = self.profile_plot.vb.viewPixelSize()   # data units per pixel
        if not (width > 0 and height > 0):
            return None
        xs = self.result.ks.astype(float) / width
        ys = self.result.profile.T / height                     # (attributes, K), in pixels
        px, py = x / width, y / height
        if len(xs) < 2:
            distance = np.hypot(xs[0] - px, ys[:, 0] - py)
        else:
            # only the segments that reach within ``pixels`` of the point's x (the mouse moves
            # over thousands of curves of a hundred k); distance to each: project the point on
            # it, clipped to its ends
            near = np.flatnonzero((xs[:-1] - pixels <= px) & (xs[1:] + pixels >= px))
            if not len(near):
                return None
            x0, dx = xs[near], xs[near + 1] - xs[near]
            y0, dy = ys[:, near], ys[:, near + 1] - ys[:, near]
            t = np.clip(((px - x0) * dx + (py - y0) * dy) / (dx ** 2 + dy ** 2), 0, 1)
            distance = np.hypot(x0 + t * dx - px, y0 + t * dy - py)
            distance = np.where(np.isnan(distance), np.inf, distance).min(axis=1)
        distance = np.where(np.isnan(distance), np.inf, distance)
        if not len(distance):
            return None
        nearest = int(np.argmin(distance))
        return nearest if distance[nearest] <= pixels else None

    def _scene_to_curve(self, scene_pos):
        view = self.profile_plot.vb
        if not view.sceneBoundingRect().contains(scene_pos):
            return None
        pos = view.mapSceneToView(scene_pos)
        return self.curve_at(pos.x(), pos.y())

    def _on_plot_clicked(self, event):
        """A left click on or near a curve toggles its attribute."""
        if event.button() != Qt.LeftButton or self.result is None:
            return
        index = self._scene_to_curve(event.scenePos())
        if index is not None:
            self.toggle_attribute(index)

    def _on_plot_hovered(self, scene_pos):
        """The name of the attribute under the mouse as the plot's tooltip."""
        index = self._scene_to_curve(scene_pos) if self.result is not None else None
        self.profile_view.setToolTip(
            "" if index is None else self.data.domain.attributes[index].name)

    def toggle_attribute(self, index):
        """Select the attribute at ``index``, or deselect it if selected."""
        attr = self.data.domain.attributes[index]
        if attr in self.selected_attrs:
            self.selected_attrs = [a for a in self.selected_attrs if a is not attr]
        else:
            self.selected_attrs = self.selected_attrs + [attr]
        self._select_in_list()

    def _fill_list(self):
        """The attribute list: each attribute with its highest estimate over k (once
        computed), sortable by either. The names are listed once per data; a result only
        rewrites the estimates (rebuilding thousands of rows holds the canvas)."""
        if self.data is None:
            self.attr_model.setRowCount(0)
            self._listed = None
            return
        best = None
        if self.result is not None:
            profile = self.result.profile
            best = np.where(np.isnan(profile), -np.inf, profile).max(axis=0, initial=-np.inf)
        text = format_scores(best if best is not None else [])
        attrs = self.data.domain.attributes
        model = self.attr_model
        blocked = self.attr_view.selectionModel().blockSignals(True)
        if self._listed is not self.data or model.rowCount() != len(attrs):
            model.setRowCount(0)
            # names that differ only in the middle read apart (the filter reads the tooltips,
            # the names in full)
            shown = self._list_names(attrs)
            for attr, text in zip(attrs, shown):
                name = QStandardItem(gui.attributeIconDict[attr], text)
                name.setData(attr.name.lower(), Qt.UserRole)
                name.setToolTip(attr.name)
                value = QStandardItem()
                value.setTextAlignment(Qt.AlignRight | Qt.AlignVCenter)
                model.appendRow([name, value])
            self._listed = self.data
            self._names_width = None
            if attrs:
                self.attr_view.verticalHeader().setDefaultSectionSize(
                    self.attr_view.sizeHintForRow(0))
        # the estimates without a signal per row (each would re-sort the proxy), then one
        dynamic = self.attr_proxy.dynamicSortFilter()
        self.attr_proxy.setDynamicSortFilter(False)
        signals = model.blockSignals(True)
        longest = ""
        for i in range(len(attrs)):
            value = model.item(i, 1)
            if best is not None and np.isfinite(best[i]):
                shown = text(best[i])
                longest = max(longest, shown, key=len)
                value.setText(shown)
                value.setData(float(best[i]), Qt.UserRole)
            else:
                value.setText("")
                value.setData(-np.inf, Qt.UserRole)
        model.blockSignals(signals)
        if len(attrs):
            model.dataChanged.emit(model.index(0, 1), model.index(len(attrs) - 1, 1))
        self.attr_proxy.setDynamicSortFilter(dynamic)     # (re-sorts, once)
        self.attr_view.selectionModel().blockSignals(blocked)
        view = self.attr_view      # as wide as the names, up to a third of a laptop screen
        header = view.horizontalHeader()
        if self._names_width is None:
            self._names_width = max(view.sizeHintForColumn(0), header.sectionSizeHint(0))
        # the estimates' column from the longest text (as the item delegate pads it, and the
        # grid), not by asking every row for its size
        margin = view.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, view) + 1
        estimates = view.fontMetrics().horizontalAdvance(longest) + 2 * margin + 1
        width = self._names_width + max(estimates, header.sectionSizeHint(1))
        view.setMinimumWidth(min(width + 2 * view.frameWidth()
                                 + view.verticalScrollBar().sizeHint().width() + 4, LIST_WIDTH))

    def _list_names(self, attrs):
        """The names of ``attrs`` as the list shows them: in full where they fit the list's
        names column (at its widest), else by what tells them apart
        (:func:`.names.distinguishing`), in as many characters as fit (measured on the widest
        of the longest; tooltips in full)."""
        view = self.attr_view
        metrics = view.fontMetrics()
        room = LIST_WIDTH - 2 * view.frameWidth() - view.verticalScrollBar().sizeHint().width() \
            - 4 - metrics.horizontalAdvance("-0.000") - 16 - view.iconSize().width() - 16
        names = [attr.name for attr in attrs]
        characters = min(NAME_CHARACTERS, max(room // metrics.horizontalAdvance("0"), 8))
        while True:
            shown = distinguishing(names, characters)
            longest = sorted(set(shown), key=len)[-64:]
            if characters <= 8 or max((metrics.horizontalAdvance(n) for n in longest),
                                      default=0) <= room:
                return shown
            characters -= 1

    def _select_in_list(self):
        attrs = self.data.domain.attributes if self.data is not None else []
        selection = QItemSelection()
        for attr in self.selected_attrs:
            if attr in attrs:
                index = self.attr_proxy.mapFromSource(self.attr_model.index(attrs.index(attr), 0))
                if index.isValid():
                    selection.select(index, index)
        self.attr_view.selectionModel().select(
            selection, QItemSelectionModel.ClearAndSelect | QItemSelectionModel.Rows)

    def _on_list_selection(self):
        if self.data is None:
            return
        rows = sorted(self.attr_proxy.mapToSource(i).row()
                      for i in self.attr_view.selectionModel().selectedRows())
        self.selected_attrs = [self.data.domain.attributes[r] for r in rows]
        if self.result is not None:
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
            self.report_plot("Estimates", self.profile_view)
            self.report_plot("Correlations", self.correlation_view)
            self.report_items("Selected", [("Attributes",
                                            ", ".join(a.name for a in self.selected_attrs)
                                            or "none")])


if __name__ == "__main__":  # pragma: no cover
    from orangecontrib.relief.datasets import parity
    WidgetPreview(OWLocalityProfile).run(parity())
