"""The heatmap of the Interacting Pairs widget: -log10 p of the pairs among the best attributes
as a symmetric matrix of cells, the names beside and above it."""
import numpy as np
from AnyQt.QtCore import QRectF, QSize, Qt
from AnyQt.QtGui import QBrush, QColor, QLinearGradient, QPen
from AnyQt.QtWidgets import QGraphicsRectItem, QGraphicsScene, QGraphicsSimpleTextItem, QGraphicsView

from orangecontrib.relief.widgets.names import distinguishing
from orangecontrib.relief.widgets.numbers import count, format_p

__all__ = ["Heatmap", "HEATMAP_CHARACTERS", "HEATMAP_MIN_CELLS"]

#: the heatmap shows names up to this many characters in full, longer ones by what tells them
#: apart (:func:`.names.distinguishing`; tooltips in full)
HEATMAP_CHARACTERS = 12
#: the heatmap's pane shows at least this many columns of cells beside the names (it scrolls)
HEATMAP_MIN_CELLS = 3


class Heatmap(QGraphicsView):
    """-log10 p of the pairs among the best attributes as a symmetric matrix of cells, white
    (p = 1) to dark red, with the attributes' names left and above, a colour scale below and
    the selected pairs outlined. The mouse over a cell names its pair; a click selects it
    (``clicked(first, second, toggle)`` is called with the attribute indices, ``toggle`` when
    Ctrl is held)."""
    WHITE, RED, BLUE = QColor(255, 255, 255), QColor(165, 15, 21), QColor(38, 139, 210)
    #: the outline of a cell, and of a selected one
    PEN, SELECTED_PEN = QPen(QColor(235, 235, 235), 1), QPen(BLUE, 3)

    def __init__(self, clicked, parent=None):
        self.scene_ = QGraphicsScene()
        super().__init__(self.scene_, parent)
        self.setBackgroundBrush(QBrush(Qt.white))
        self.setAlignment(Qt.AlignLeft | Qt.AlignTop)
        self.setMinimumWidth(200)
        self.clicked = clicked
        self.cells = {}         # (first, second) attribute indices -> cell item (both halves)
        self.outlined = set()   # the keys of self.cells outlined as selected
        self.attributes = []    # the attribute indices shown, in order

    def colours(self, fractions):
        """The cells' colours of ``fractions`` (0: white, 1: dark red; clipped to 0 ... 1)."""
        white, red = (np.array(c.getRgb()[:3], dtype=float) for c in (self.WHITE, self.RED))
        rgb = np.round(white + (red - white) * np.clip(fractions, 0.0, 1.0)[:, None])
        return [QColor(*map(int, c)) for c in rgb]

    def show_pairs(self, names, attributes, pairs, total):
        """Draw the cells of the pairs of ``attributes`` (indices, at most
        :data:`HEATMAP_SIZE`), ``names`` the data's attribute names, ``pairs`` the result
        (:class:`.InteractingPairs`), ``total`` the number of attributes tested."""
        scene = self.scene_
        scene.clear()
        self.setMinimumWidth(200)
        self.cells, self.outlined = {}, set()
        self.attributes = list(attributes)
        if pairs is None or len(self.attributes) < 2:
            return
        metrics = self.fontMetrics()
        cell = metrics.height() + 6
        labels = distinguishing([names[a] for a in self.attributes], HEATMAP_CHARACTERS)
        margin = max(metrics.horizontalAdvance(label) for label in labels) + 8
        position = {a: i for i, a in enumerate(self.attributes)}
        shown = self._pairs_among(pairs, self.attributes)
        scores = -np.log10(np.maximum(pairs.pvalues[shown], 1e-300))
        top = max(float(scores.max(initial=0.0)), 1.0)
        colours = self.colours(scores / top)
        side = len(self.attributes) * cell
        # the title wraps within the matrix's width (or the narrowest pane's), not cut
        title = scene.addText(
            "-log10 p of the pairs of the "
            + (f"{len(self.attributes)} best ranked of {count(total, 'attribute')}"
               if len(self.attributes) < total else count(total, "attribute")))
        title.setDefaultTextColor(QColor(Qt.black))
        title.setFont(self.font())
        title.setTextWidth(margin + min(len(self.attributes), HEATMAP_MIN_CELLS) * cell)
        title.setPos(0, 0)
        y0 = title.boundingRect().height() + 4 + margin
        x0 = margin
        for i, label in enumerate(labels):
            left = QGraphicsSimpleTextItem(label)
            left.setPos(x0 - 4 - metrics.horizontalAdvance(label),
                        y0 + i * cell + (cell - metrics.height()) / 2)
            left.setToolTip(names[self.attributes[i]])
            scene.addItem(left)
            above = QGraphicsSimpleTextItem(label)
            above.setRotation(-90)
            above.setPos(x0 + i * cell + (cell - metrics.height()) / 2, y0 - 4)
            above.setToolTip(names[self.attributes[i]])
            scene.addItem(above)
        grey = QBrush(QColor(220, 220, 220))
        for i in range(len(self.attributes)):
            scene.addRect(QRectF(x0 + i * cell, y0 + i * cell, cell, cell),
                          QPen(Qt.NoPen), grey)
        pen = self.PEN
        firsts, seconds = pairs.first[shown].tolist(), pairs.second[shown].tolist()
        for f, s, colour, statistic, p, q in zip(
                firsts, seconds, colours, pairs.statistics[shown].tolist(),
                pairs.pvalues[shown].tolist(), pairs.qvalues[shown].tolist()):
            tip = (f"{names[f]} × {names[s]}\nstatistic {statistic:.4g}, "
                   f"p = {format_p(p)}, q = {format_p(q)}")
            brush = QBrush(colour)
            for a, b in ((f, s), (s, f)):
                rect = QGraphicsRectItem(x0 + position[b] * cell, y0 + position[a] * cell,
                                         cell, cell)
                rect.setBrush(brush)
                rect.setPen(pen)
                rect.setToolTip(tip)
                rect.setData(0, (f, s))
                scene.addItem(rect)
                self.cells[(a, b)] = rect
        # the colour scale
        bar = QRectF(x0, y0 + side + cell, min(side, 240), cell * 0.8)
        gradient = QLinearGradient(bar.topLeft(), bar.topRight())
        gradient.setColorAt(0, self.WHITE)
        gradient.setColorAt(1, self.RED)
        scene.addRect(bar, QPen(QColor(150, 150, 150)), QBrush(gradient))
        for value, x in ((0.0, bar.left()), (top, bar.right())):
            text = scene.addSimpleText(f"{value:.3g}")
            text.setPos(x - text.boundingRect().width() / 2, bar.bottom() + 2)
        scene.setSceneRect(scene.itemsBoundingRect().adjusted(-4, -4, 4, 4))
        # the names and a few columns of cells in view (the rest scrolls)
        self.setMinimumWidth(int(min(scene.sceneRect().width(),
                                     x0 + HEATMAP_MIN_CELLS * cell + 4))
                             + 2 * self.frameWidth()
                             + self.verticalScrollBar().sizeHint().width())

    @staticmethod
    def _pairs_among(pairs, attributes):
        """The rows of ``pairs`` whose two attributes are both among ``attributes``."""
        inside = np.zeros(max(list(attributes) + [int(pairs.first.max(initial=0)),
                                                  int(pairs.second.max(initial=0))]) + 1, bool)
        inside[list(attributes)] = True
        return np.flatnonzero(inside[pairs.first] & inside[pairs.second])

    def outline(self, selected):
        """Outline the cells of the ``selected`` pairs (a set of (first, second) indices), and
        no others (only the cells that change are touched)."""
        chosen = {key for f, s in selected for key in ((f, s), (s, f)) if key in self.cells}
        for key in self.outlined - chosen:
            self.cells[key].setPen(self.PEN)
            self.cells[key].setZValue(0)
        for key in chosen - self.outlined:
            self.cells[key].setPen(self.SELECTED_PEN)
            self.cells[key].setZValue(1)
        self.outlined = chosen

    def mousePressEvent(self, event):
        item = self.itemAt(event.pos())
        pair = item.data(0) if isinstance(item, QGraphicsRectItem) else None
        if event.button() == Qt.LeftButton and pair is not None:
            self.clicked(*pair, bool(event.modifiers() & Qt.ControlModifier))
        else:
            super().mousePressEvent(event)

    def sizeHint(self):
        rect = self.scene_.sceneRect()
        return QSize(int(min(rect.width(), 620)) + 2 * self.frameWidth() + 2, 400)
