"""The view of Attribute Estimation's table of estimates: Rank's table with the attribute names
frozen at its left edge, Ctrl+C copying the selected rows, and columns fitted to their texts."""
import numpy as np
from AnyQt.QtCore import (QEvent, QItemSelection, QItemSelectionModel, QItemSelectionRange,
                          QLocale, QMimeData, Qt)
from AnyQt.QtGui import QKeySequence
from AnyQt.QtWidgets import QAbstractItemView, QApplication, QFrame

from Orange.widgets.data.owrank import TableView
from Orange.widgets.utils import enum2int

from orangecontrib.relief.widgets.estimatesdelegates import (CountDelegate, PValueDelegate,
                                                             ScoreDelegate)
from orangecontrib.relief.widgets.numbers import format_p, format_scores

__all__ = ["EstimatesView"]

#: the table's narrowest width (its columns scroll beyond): the widget opens as wide as all its
#: columns (:meth:`EstimatesView.full_width`), and can be made as narrow as Orange's widgets can
#: (under 800 pixels, with 60-character names at 12 pt too)
MIN_WIDTH = 200


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
        self.horizontalHeader().setTextElideMode(Qt.ElideNone)
        self.setTextElideMode(Qt.ElideMiddle)
        self.formats = {}                   # {column: formatter of its estimates}
        self.score_delegates = []           # (a view does not own its delegates)
        self.count_delegate = CountDelegate(self)
        self.pvalue_delegate = PValueDelegate(self)
        self.setItemDelegateForColumn(1, self.count_delegate)

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

    def show_estimates(self, attributes, columns, sorting):
        """Show the estimates of ``attributes`` in ``columns`` (see
        :meth:`.EstimatesModel.set_estimates`; None: none) with their delegates, sorted by
        ``sorting`` (column, order as an int; by the first estimates, descending, when there is
        no such column). The columns are fitted to their texts by :meth:`fit_columns` (in a
        turn of the event loop of its own: a table of 2,000 rows took both too long for one)."""
        model = self.model()
        for c in range(2, model.columnCount()):     # the previous result's
            self.setItemDelegateForColumn(c, None)
        self.formats.clear()
        self.score_delegates = []
        model.set_estimates(attributes, columns)
        if attributes is None:
            return
        for c, (run, kind) in enumerate(columns, 2):
            if kind == "scores":
                self.formats[c] = format_scores(run.scores)
                self.score_delegates.append(ScoreDelegate(self, self.formats[c]))
                self.setItemDelegateForColumn(c, self.score_delegates[-1])
            else:
                self.setItemDelegateForColumn(c, self.pvalue_delegate)
        column, order = sorting
        if column >= model.columnCount():
            column, order = 2, enum2int(Qt.DescendingOrder)
        model.sort(column, Qt.SortOrder(order))
        self.horizontalHeader().setSortIndicator(column, Qt.SortOrder(order))

    def fit_columns(self, names, columns):
        """Every column as wide as its widest text and its header (with the sort arrow), so
        that no number or name is elided: the first for the longest of ``names`` as the model
        shows them (a name longer than :data:`.names.NAME_CHARACTERS` by what tells it apart
        from the others, :func:`.names.distinguishing`, its tooltip in full, so that long names
        leave the estimates in view), the second for two digits, the
        others (``columns`` as in :meth:`show_estimates`) for the widest of their extreme
        values (the widest texts are among them). Measured on the texts: the view's own
        measure asks the delegate for every row."""
        header = self.horizontalHeader()
        metrics = self.fontMetrics()

        def widest(texts):
            # the widest is among the longest (not always the longest: digits are wider
            # than "e" and "-")
            longest = sorted(set(texts), key=len)[-64:]
            return max((metrics.horizontalAdvance(t) for t in longest), default=0)

        icon = self.iconSize().width() if self.iconSize().isValid() else 16
        # the names: measured, and by the view on its first hundred rows (icon and margins; a
        # thousand rows took 90 ms of the canvas's time)
        header.setResizeContentsPrecision(100)
        # (the names as shown: those over NAME_CHARACTERS by what tells them apart)
        shown = self.model().shown_names
        names = [shown.get(row, name) for row, name in enumerate(names)]
        widths = [max(widest(names) + icon + 16, self.sizeHintForColumn(0)),
                  widest(["99"]) + 12]
        for c, (run, kind) in enumerate(columns, 2):
            values = np.sort(getattr(run, kind))
            text = self.formats[c] if kind == "scores" else format_p
            texts = [text(v) for v in np.concatenate((values[:16], values[-16:]))]
            if kind == "scores" and run.removed:
                texts.append("removed")
            widths.append(widest(texts) + 12)
        for c, width in enumerate(widths):
            self.setColumnWidth(c, max(width, header.sectionSizeHint(c)))
        self.setMinimumWidth(min(self.full_width(), MIN_WIDTH))
        self.show_sorted_column()

    def full_width(self):
        """The width that shows every column."""
        width = sum(self.columnWidth(c) for c in range(self.model().columnCount()))
        return width + self.verticalHeader().width() + 2 * self.frameWidth() \
            + self.verticalScrollBar().sizeHint().width()

    def show_sorted_column(self):
        """Scroll (when the table is wider than its pane) so that the column it is sorted by
        is in view."""
        model = self.model()
        column = self.horizontalHeader().sortIndicatorSection()
        if 0 <= column < model.columnCount() and model.rowCount():
            self.scrollTo(model.index(max(self.rowAt(0), 0), column))

    def select_source_rows(self, rows):
        """Select the model's source ``rows`` (whole rows) instead of the current selection,
        quietly: the caller updates what follows the selection once (not once a row)."""
        model = self.model()
        selection = QItemSelection()
        last = model.columnCount() - 1
        for row in model.mapFromSourceRows(list(rows)):
            selection.append(QItemSelectionRange(model.index(row, 0), model.index(row, last)))
        selection_model = self.selectionModel()
        blocked = selection_model.blockSignals(True)     # one update of the plot and outputs
        selection_model.select(selection, QItemSelectionModel.ClearAndSelect)
        selection_model.blockSignals(blocked)
        self.viewport().update()
