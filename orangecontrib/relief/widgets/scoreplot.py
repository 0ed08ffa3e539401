"""The plot of Attribute Estimation: the estimates of one estimator as dots, from the best."""
import numpy as np
import pyqtgraph as pg
from AnyQt.QtCore import Qt
from AnyQt.QtGui import QColor, QFontMetrics
from AnyQt.QtWidgets import QSizePolicy

__all__ = ["ScorePlot", "MAX_DOTS", "EVERY_RANK"]


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
