"""The table of the Interacting Pairs widget: its columns and the model that shows the tested
pairs, one a row, read from the result's arrays (half a million pairs show and sort at once)."""
import numpy as np
from AnyQt.QtCore import QModelIndex, Qt

from Orange.widgets.utils.itemmodels import AbstractSortTableModel

from orangecontrib.relief.widgets.names import distinguishing
from orangecontrib.relief.widgets.numbers import format_p, format_statistic

__all__ = ["COLUMNS", "RANK", "FIRST", "SECOND", "STATISTIC", "DF", "P", "Q", "ASCENDING",
           "PairsModel", "widest_rows"]

#: the table's columns: (header, tooltip)
COLUMNS = (
    ("Rank", "The pair's place, best (smallest p) first"),
    ("First", "The first attribute of the pair"),
    ("Second", "The second attribute of the pair"),
    ("Statistic", "G², the likelihood-ratio statistic of the interaction: 2 Σ n log(n / m) "
                  "over the class x first x second table of counts n, m the counts fitted by "
                  "the model without the interaction (BOOST, Wan et al. 2010, eqs. 3-5)"),
    ("df", "Degrees of freedom of G²: (classes - 1)(values of the first - 1)"
           "(values of the second - 1)"),
    ("p", "p-value under the null of a class independent of the attributes: G²'s chi-square "
          "tail against the pooled tails of all pairs on the class permuted (p = (b + 1) / "
          "(N + 1), Phipson & Smyth 2010)"),
    ("q", "Benjamini-Hochberg q-value over the tested pairs"),
)
RANK, FIRST, SECOND, STATISTIC, DF, P, Q = range(len(COLUMNS))
#: the columns sorted ascending on their first click (the others descending)
ASCENDING = (RANK, FIRST, SECOND, P, Q)


def widest_rows(pairs, n=16):
    """Rows of ``pairs`` (best first: p, and with it q, ascending) among which each column's
    widest text is, found without a pass over all pairs but two: the first and last ``n``
    (the smallest and largest p and q, "NA" last), those around every power of ten of p and
    q (where "0.001" turns into "9.9e-04"), and those of the largest statistic and degrees of
    freedom (one decimal, integers: the largest is the longest)."""
    size = len(pairs)
    if size <= 4 * n:
        return np.arange(size)
    rows = [np.arange(n), np.arange(size - n, size)]
    powers = 10.0 ** -np.arange(0, 7)
    for values in (pairs.pvalues, pairs.qvalues):
        for at in np.searchsorted(values, powers):      # (NaN sort last)
            rows.append(np.arange(max(at - 2, 0), min(at + 2, size)))
    for values in (pairs.statistics, pairs.df):
        finite = np.isfinite(values)
        largest = np.max(values, where=finite, initial=-np.inf)
        rows.append(np.flatnonzero(values == largest)[:1])
    return np.unique(np.concatenate(rows).astype(int))


class PairsModel(AbstractSortTableModel):
    """The tested pairs, one a row (best first until sorted), read from the result's arrays
    (no item per cell: half a million pairs show and sort at once)."""
    #: the columns of the attributes' names (shortened in the middle if long, tooltips in full)
    name_columns = (FIRST, SECOND)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.pairs = None
        self.names = []
        self.shown_names = {}       # attribute index -> its name as the table shows it
        self._name_order = None

    def set_pairs(self, pairs, names):
        """Show ``pairs`` (:class:`.InteractingPairs`, or None) of the attributes ``names``."""
        self.beginResetModel()
        self.pairs, self.names = pairs, names
        self.shown_names = {}
        self._name_order = None
        self.endResetModel()
        self.resetSorting()

    @property
    def name_order(self):
        """Each name's place in alphabetical order: the name columns sort by it (an integer
        per pair, not a string); found at the first sort by a name."""
        if self._name_order is None:
            self._name_order = np.argsort(np.argsort([name.lower() for name in self.names],
                                                     kind="stable"), kind="stable")
        return self._name_order

    def rowCount(self, parent=QModelIndex()):
        return 0 if parent.isValid() or self.pairs is None else len(self.pairs)

    def columnCount(self, parent=QModelIndex()):
        return 0 if parent.isValid() else len(COLUMNS)

    def text(self, row, column):
        """The text of the cell of source ``row`` and ``column``."""
        pairs = self.pairs
        if column == RANK:
            return str(row + 1)
        if column == FIRST:
            return self.names[pairs.first[row]]
        if column == SECOND:
            return self.names[pairs.second[row]]
        if column == STATISTIC:
            return format_statistic(pairs.statistics[row])
        if column == DF:
            return f"{pairs.df[row]:.0f}"
        return format_p((pairs.pvalues if column == P else pairs.qvalues)[row])

    def show_names(self, characters):
        """Show the tested attributes' names in at most ``characters`` characters each, by
        what tells them apart (:func:`.names.distinguishing`; the tooltips in full)."""
        tested = [int(i) for i in self.pairs.attributes]
        shown = distinguishing([self.names[i] for i in tested], characters)
        self.shown_names = dict(zip(tested, shown))

    def data(self, index, role=Qt.DisplayRole):
        if not index.isValid() or self.pairs is None:
            return None
        row = int(self.mapToSourceRows(index.row()))
        column = index.column()
        if role == Qt.DisplayRole:
            if column in self.name_columns and self.shown_names:
                pairs = self.pairs
                attribute = (pairs.first if column == FIRST else pairs.second)[row]
                return self.shown_names.get(int(attribute), self.names[attribute])
            return self.text(row, column)
        if role == Qt.ToolTipRole and column in self.name_columns:
            return self.text(row, column)
        if role == Qt.TextAlignmentRole and column not in self.name_columns:
            return int(Qt.AlignRight | Qt.AlignVCenter)
        return None

    def headerData(self, section, orientation, role=Qt.DisplayRole):
        if orientation == Qt.Horizontal and 0 <= section < len(COLUMNS):
            if role == Qt.DisplayRole:
                return COLUMNS[section][0]
            if role == Qt.ToolTipRole:
                return COLUMNS[section][1]
            if role == Qt.InitialSortOrderRole:
                return Qt.AscendingOrder if section in ASCENDING else Qt.DescendingOrder
        return super().headerData(section, orientation, role)

    def sortColumnData(self, column):
        pairs = self.pairs
        if column == RANK:
            return np.arange(len(pairs))
        if column in self.name_columns:
            return self.name_order[pairs.first if column == FIRST else pairs.second]
        return {STATISTIC: pairs.statistics, DF: pairs.df, P: pairs.pvalues,
                Q: pairs.qvalues}[column]
