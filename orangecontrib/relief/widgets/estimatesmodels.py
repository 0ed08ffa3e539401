"""The item models of the Attribute Estimation widget: the table of estimates (Rank's model with
notes and header tooltips) and the list of variables that may be chosen as covariates."""
import numpy as np
from AnyQt.QtCore import QModelIndex, Qt

from Orange.data import ContinuousVariable, DiscreteVariable
from Orange.widgets import gui
from Orange.widgets.data.owrank import RankTableModel
from Orange.widgets.utils.itemmodels import VariableListModel

from orangecontrib.relief.widgets.names import NAME_CHARACTERS, distinguishing

__all__ = ["EstimatesModel", "CovariateModel"]


class EstimatesModel(RankTableModel):
    """Rank's table model, with the cells of attributes that TuRF removed reading "removed"
    (they still sort by TuRF's ranking) and header tooltips; p- and q-value columns sort
    ascending first; names longer than :data:`.names.NAME_CHARACTERS` shown by what tells them
    apart (a table of names that differ only in the middle would show the same start and end
    on every row), in full in their tooltips."""
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.notes = {}             # {(source row, column): (text, tooltip)}
        #: {source row: the name as shown} of names longer than :data:`.names.NAME_CHARACTERS`
        #: (:func:`.names.distinguishing`: what tells them apart kept; tooltips in full)
        self.shown_names = {}
        self.header_tips = []
        self.ascending = set()      # columns sorted ascending first (p and q)

    def data(self, index, role=Qt.DisplayRole):
        if index.isValid() and index.column() == 0 and self.shown_names \
                and role in (Qt.DisplayRole, Qt.ToolTipRole):
            row = self.mapToSourceRows(index.row())
            if row in self.shown_names:
                return self.shown_names[row] if role == Qt.DisplayRole \
                    else self._table[row][0].name
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

    def set_estimates(self, attributes, columns):
        """A row per attribute of ``attributes`` (the variable, its number of values) and a
        column per (run, kind) of ``columns``: the run's estimates ("scores", with bars, TuRF's
        removed attributes reading "removed"), p-values ("pvalues") or q-values ("qvalues");
        the headers with tooltips. None: no rows."""
        self.clear()
        self.resetSorting(True)
        self.notes, self.ascending, self.header_tips = {}, set(), []
        self.shown_names = {}
        if attributes is None:
            return
        names = [a.name for a in attributes]
        if any(len(name) > NAME_CHARACTERS for name in names):
            self.shown_names = {row: shown for row, (name, shown) in enumerate(
                zip(names, distinguishing(names, NAME_CHARACTERS))) if shown != name}
        headers, tips = ["", "#"], ["Attribute", "Number of values"]
        for c, (run, kind) in enumerate(columns, 2):
            if kind == "scores":
                headers.append(run.name)
                tips.append(f"Estimates by {run.name}")
                self.setExtremesFrom(c, run.scores)
                for row, round_ in run.removed.items():
                    self.notes[(row, c)] = (
                        "removed", f"Removed by TuRF in round {round_}: it ranks below the "
                                   "attributes that outlived that round.")
            else:
                headers.append(kind[0])
                what = "p-values" if kind == "pvalues" else "q-values (Benjamini-Hochberg)"
                tips.append(f"{what} of {run.name}'s estimates")
                self.ascending.add(c)
        n_values = [float(len(a.values)) if a.is_discrete else np.nan for a in attributes]
        self.wrap([[a, nv, *map(float, values)] for a, nv, values in
                   zip(attributes, n_values, zip(*(getattr(run, kind) for run, kind in columns)))])
        self.setHorizontalHeaderLabels(headers)
        self.header_tips = tips


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

