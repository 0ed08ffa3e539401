"""The Π framework's case counts of one attribute, as Attribute Estimation shows them."""
import numpy as np
from AnyQt.QtCore import Qt
from AnyQt.QtWidgets import (QComboBox, QHeaderView, QTableWidget, QTableWidgetItem,
                             QVBoxLayout, QWidget)

from Orange.widgets import gui
from Orange.widgets.utils.itemmodels import VariableListModel

from orangecontrib.relief.widgets.numbers import format_scores

__all__ = ["CASES", "CaseCounts"]

#: the four cases of the Π framework (Vilalta et al. 2001 §4), in column order
CASES = ("same value,\nsame class", "same value,\ndiff. class",
         "diff. value,\nsame class", "diff. value,\ndiff. class")


class CaseCounts(QWidget):
    """The count matrices {R_m} of one attribute, chosen in a combo box (not in the table,
    whose selection is the output): one row per (value V_m, class), one column per case
    (eqs. 10-13 of Vilalta et al. 2001)."""
    def __init__(self, parent=None):
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.box = gui.vBox(self, "Π case counts")
        self.attr_model = VariableListModel(parent=self)
        self.combo = QComboBox(toolTip="The attribute whose case counts are shown")
        self.combo.setModel(self.attr_model)
        self.combo.activated.connect(self._show)
        row = gui.hBox(self.box)
        gui.widgetLabel(row, "Attribute:")
        row.layout().addWidget(self.combo, 1)
        self.view = QTableWidget(0, 4)
        self.view.setHorizontalHeaderLabels(CASES)
        header = self.view.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeToContents)
        header.setTextElideMode(Qt.ElideNone)
        self.view.verticalHeader().setSectionResizeMode(QHeaderView.ResizeToContents)
        self.view.setEditTriggers(QTableWidget.NoEditTriggers)
        self.view.setSizeAdjustPolicy(QTableWidget.AdjustToContents)
        self.box.layout().addWidget(self.view)
        self.domain = self.counts = None

    def set_attributes(self, attributes):
        """The attributes the combo offers."""
        if list(self.attr_model) != list(attributes):
            self.attr_model[:] = attributes

    def show_counts(self, domain, counts, index):
        """Show ``counts`` (per attribute of ``domain``, arrays (values, classes, 4)), first
        those of the attribute at ``index``."""
        self.domain, self.counts = domain, counts
        self.combo.setCurrentIndex(index)
        self._show()

    def clear(self):
        self.domain = self.counts = None
        self.view.setRowCount(0)

    def _show(self):
        view = self.view
        view.setRowCount(0)
        index = self.combo.currentIndex()
        if self.counts is None or index < 0:
            return
        attr = self.domain.attributes[index]
        counts = np.asarray(self.counts[index])   # (values, classes, 4)
        values = attr.values if attr.is_discrete else [f"bin {i + 1}"
                                                       for i in range(counts.shape[0])]
        labels = [f"{attr.name} = {v} | {c}" for v in values
                  for c in self.domain.class_var.values]
        flat = counts.reshape(-1, 4)
        view.setRowCount(len(flat))
        view.setVerticalHeaderLabels(labels)
        text = format_scores(flat)
        for r, row in enumerate(flat):
            for c, x in enumerate(row):
                item = QTableWidgetItem(text(x))
                item.setTextAlignment(Qt.AlignRight | Qt.AlignVCenter)
                view.setItem(r, c, item)
        view.resizeRowsToContents()     # every row in view, up to eight (then it scrolls)
        rows = sum(view.rowHeight(r) for r in range(min(len(flat), 8)))
        view.setMinimumHeight(rows + view.horizontalHeader().sizeHint().height()
                              + 2 * view.frameWidth()
                              + view.horizontalScrollBar().sizeHint().height())
