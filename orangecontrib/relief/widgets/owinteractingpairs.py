"""Interacting Pairs: which pairs of discrete attributes (SNPs) act on the class together. The
pairs of the attributes an estimator ranks best (or of the attributes chosen) are tested by
:func:`.estimators.interactions.interacting_pairs` — BOOST's likelihood-ratio test of the
interaction (Wan et al. 2010, eqs. 3-5), p-values from permutations of the class that repeat
the ranking, Benjamini-Hochberg q-values — and shown as a sortable table, best first, and as a
heatmap of -log10 p among the best attributes."""
from functools import partial
from types import SimpleNamespace

import numpy as np
from AnyQt.QtCore import QItemSelection, QItemSelectionModel, QModelIndex, QRectF, QSize, Qt
from AnyQt.QtGui import QBrush, QColor, QLinearGradient, QPen
from AnyQt.QtWidgets import (QAbstractItemView, QButtonGroup, QComboBox, QGraphicsRectItem,
                             QGraphicsScene, QGraphicsSimpleTextItem, QGraphicsView, QGridLayout,
                             QHeaderView, QLabel, QListView, QRadioButton, QSplitter, QStyle,
                             QTableView)

from Orange.data import ContinuousVariable, Domain, StringVariable, Table
from Orange.widgets import gui
from Orange.widgets.settings import ContextSetting, DomainContextHandler, Setting
from Orange.widgets.utils.itemmodels import AbstractSortTableModel, VariableListModel
from Orange.widgets.utils.widgetpreview import WidgetPreview
from Orange.widgets.widget import Input, Msg, Output

from orangecontrib.relief import scoring
from orangecontrib.relief.estimators.interactions import interacting_pairs, scan_pairs
from orangecontrib.relief.orange_data import encode_table
from orangecontrib.relief.widgets.background import BackgroundEstimationWidget, progress_callback
from orangecontrib.relief.widgets import missingcalls
from orangecontrib.relief.widgets.estimatorparams import ParameterStack, describe
from orangecontrib.relief.widgets.names import NAME_CHARACTERS, distinguishing
from orangecontrib.relief.widgets.numbers import count, format_p, format_statistic

__all__ = ["OWInteractingPairs", "pairs_task", "pairs_table"]

#: the estimator that ranks the attributes unless another is chosen (as the engine's default)
DEFAULT_ESTIMATOR = "MultiSURF"
#: the most best-ranked attributes whose pairs can be tested (half a million pairs)
MAX_TOP = 1000
#: the heatmap shows the pairs of at most this many attributes (the best ranked)
HEATMAP_SIZE = 25
#: the heatmap shows names up to this many characters in full, longer ones by what tells them
#: apart (:func:`.names.distinguishing`; tooltips in full)
HEATMAP_CHARACTERS = 12
#: the heatmap's pane shows at least this many columns of cells beside the names (it scrolls)
HEATMAP_MIN_CELLS = 3
#: the widget opens at most this wide (it fits a 1366-pixel screen)
MAX_WIDTH = 1360
#: a table too narrow for its columns shortens the names in the middle, to no fewer than this
#: many characters (then it scrolls)
MIN_NAME_CHARACTERS = 16
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


def classification_scorers():
    """{name: scorer class} of the estimators that rank attributes for a categorical target."""
    return {cls.stem(): cls for cls in scoring.SCORERS if "classification" in cls.tasks}


def pairs_task(data, top, chosen, estimator, n_permutations, random_state, state, scan=False,
               impute=False):
    """:func:`.interacting_pairs` on ``data`` (an Orange table with a categorical class) in a
    background task: the pairs of the ``top`` attributes ``estimator`` ranks best, or of the
    ``chosen`` attribute indices (None: rank), with ``n_permutations`` (None: the engine's
    default) permutations of the class drawn by ``random_state``; with ``scan``, every pair
    (:func:`.scan_pairs`: the chi-square p-values); with ``impute``, on ``data`` with missing
    genotype calls filled (:func:`.missingcalls.prepare`); cancelled through ``state``.

    Returns a namespace with ``pairs`` (:class:`.InteractingPairs`), ``table`` (them as an
    Orange table, :func:`pairs_table`), ``n_ignored`` (instances left out for a missing
    class) and ``calls`` (the missing genotype calls and those filled)."""
    if chosen is not None and len(chosen) < 2:
        raise ValueError("choose at least two attributes in the list, or test the best "
                         "ranked ones")
    # (only a ranking estimates the attributes: the tests count tables whatever is missing)
    filled, calls = missingcalls.prepare(data, impute, state,
                                         estimated=not scan and chosen is None)
    encoded, rows = encode_table(filled, sparse=True)
    if scan:
        pairs = scan_pairs(encoded, callback=progress_callback(state))
    else:
        pairs = interacting_pairs(encoded, attributes=chosen, top=top, estimator=estimator,
                                  n_permutations=n_permutations, random_state=random_state,
                                  callback=progress_callback(state))
    return SimpleNamespace(pairs=pairs, table=pairs_table(data, pairs),
                           n_ignored=len(data) - len(rows), calls=calls)


def pairs_table(data, pairs):
    """``pairs`` (:class:`.InteractingPairs` of ``data``'s attributes) as a table, best first:
    the two attributes' names (text columns "first" and "second"), the statistic, its degrees
    of freedom, p and q."""
    names = np.array([a.name for a in data.domain.attributes], dtype=object)
    domain = Domain([ContinuousVariable(n) for n in ("statistic", "df", "p", "q")],
                    metas=[StringVariable("first"), StringVariable("second")])
    X = np.column_stack([pairs.statistics, pairs.df, pairs.pvalues, pairs.qvalues])
    metas = np.column_stack([names[pairs.first], names[pairs.second]]) \
        if len(pairs) else np.empty((0, 2), dtype=object)
    table = Table.from_numpy(domain, X.reshape(len(pairs), 4), metas=metas)
    table.name = "Interacting Pairs"
    return table


def _widest_rows(pairs, n=16):
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


class OWInteractingPairs(BackgroundEstimationWidget):
    name = "Interacting Pairs"
    description = ("Which pairs of discrete attributes (SNPs) act on the class together: the "
                   "pairs of the best-ranked attributes tested for interaction, with p-values "
                   "and q-values, as a table and a heatmap.")
    icon = "icons/InteractingPairs.svg"
    priority = 40
    keywords = ["relief", "interaction", "epistasis", "pairs", "snp", "genetics", "boost",
                "heatmap"]

    class Inputs:
        data = Input("Data", Table)

    class Outputs:
        selected_data = Output("Selected Data", Table, default=True)
        pairs = Output("Interacting Pairs", Table)

    #: Save Image and Copy Image to Clipboard take the heatmap, whole
    graph_name = "heatmap_scene"

    BestRanked, Chosen, AllPairs = range(3)

    settingsHandler = DomainContextHandler()
    settings_version = 1
    attribute_choice = ContextSetting(BestRanked)
    top = Setting(20)
    #: the attributes whose pairs are tested when they are chosen
    chosen_attrs = ContextSetting([])
    estimator_name = Setting(DEFAULT_ESTIMATOR)
    estimator_params = Setting({})
    advanced_shown = Setting(False)
    n_permutations = Setting(0)      # 0: as many as the engine chooses
    random_state = Setting(0)
    #: the selected pairs, their attributes one after the other: [a1, b1, a2, b2, ...]
    selected_pairs = ContextSetting([])
    auto_commit = Setting(True)
    #: fill missing genotype calls before testing (:mod:`.missingcalls`)
    impute_calls = Setting(False)

    class Warning(BackgroundEstimationWidget.Warning):
        missing_calls = missingcalls.COST

    class Error(BackgroundEstimationWidget.Error):
        numeric_target = Msg("Interacting pairs need a categorical target; {} is numeric "
                             "(discretize it, or choose another target with Select Columns).")

    class Information(BackgroundEstimationWidget.Information):
        all_tested = Msg("The data have {}, no more than the number to test: all "
                         "their pairs are tested, without a ranking.")
        filled_calls = missingcalls.FILLED

    def __init__(self):
        super().__init__()
        self.scorer_classes = classification_scorers()
        if self.estimator_name not in self.scorer_classes:
            self.estimator_name = DEFAULT_ESTIMATOR
        self.heatmap_scene = None
        self._names_of, self._name_list = (), []     # the data's attributes and their names
        self._table_width = 0       # the width of the table's columns (and frame)

        scroll = gui.VerticalScrollArea(self.controlArea)
        form = gui.vBox(None, margin=0)
        scroll.setWidget(form)
        self.controlArea.layout().addWidget(scroll)

        box = gui.vBox(form, "Attributes")
        grid = QGridLayout()
        grid.setContentsMargins(0, 0, 0, 0)
        self.choice_buttons = QButtonGroup(self)
        best = QRadioButton("Best ranked:", toolTip=(
            "Test the pairs of this many attributes, those the estimator below ranks best. "
            "The ranking is repeated on every permutation of the class, so the p-values "
            "hold for pairs chosen from the same data."))
        chosen = QRadioButton("Chosen in the list", toolTip=(
            "Test the pairs of the attributes selected in the list (no ranking)."))
        every = QRadioButton("All pairs", toolTip=(
            "Test every pair of attributes (each of at most 4 values, as SNP genotypes) with "
            "the chi-square test; q-values over all the pairs. Thousands of attributes take "
            "seconds to a minute; the best pairs are listed."))
        for i, button in enumerate((best, chosen, every)):
            self.choice_buttons.addButton(button, i)
        self.choice_buttons.idClicked.connect(self._on_choice_changed)
        grid.addWidget(best, 0, 0)
        self.top_spin = gui.spin(None, self, "top", 2, MAX_TOP, addToLayout=False,
                                 callback=lambda: self._on_choice_changed(self.BestRanked),
                                 tooltip="The number of best-ranked attributes whose pairs "
                                         "are tested (n attributes: n(n - 1)/2 pairs).")
        grid.addWidget(self.top_spin, 0, 1)
        grid.addWidget(chosen, 1, 0, 1, 2)
        grid.addWidget(every, 2, 0, 1, 2)
        box.layout().addLayout(grid)
        self.attr_model = VariableListModel(parent=self)
        self.attr_list = QListView(
            selectionMode=QListView.ExtendedSelection,
            toolTip="The attributes whose pairs are tested when 'Chosen in the list' is on "
                    "(Ctrl or Shift and click to choose several).")
        self.attr_list.setModel(self.attr_model)
        self.attr_list.setFixedHeight(7 * self.attr_list.sizeHintForRow(0)
                                      if self.attr_list.sizeHintForRow(0) > 0 else 120)
        self.attr_list.selectionModel().selectionChanged.connect(self._on_chosen_changed)
        box.layout().addWidget(self.attr_list)
        missingcalls.add_option(self, box, self.restart)

        self.ranking_box = box = gui.vBox(form, "Ranking")
        self.estimator_combo = QComboBox(
            toolTip="The estimator that ranks the attributes (MultiSURF by default: it finds "
                    "attributes that act in pairs, which myopic measures miss).")
        self.estimator_combo.addItems(list(self.scorer_classes))
        self.estimator_combo.setCurrentText(self.estimator_name)
        self.estimator_combo.activated.connect(self._on_estimator_changed)
        box.layout().addWidget(self.estimator_combo)
        self.params_stack = ParameterStack(self.scorer_classes, self.estimator_params,
                                           self.advanced_shown)
        self.params_stack.changed.connect(self.restart)
        self.params_stack.advanced_toggled.connect(
            lambda shown: setattr(self, "advanced_shown", shown))
        self.params_stack.show_editor(self.estimator_name)
        # as wide as the shown editor: the stack's layout would make the widest editor its
        # minimum size (a layout leaves a minimum size that is set alone), and the controls
        # as wide as that before the window is laid out
        self.params_stack.setMinimumSize(1, 1)
        box.layout().addWidget(self.params_stack)

        self.significance_box = box = gui.vBox(form, "Significance")
        gui.spin(box, self, "n_permutations", 0, 100000, label="Permutations:",
                 specialValueText="automatic", callback=self.restart,
                 tooltip="R, the permutations of the class whose statistics form the null "
                         "pool; 'automatic': enough for 20,000 permuted statistics, at most "
                         "100 when each repeats the ranking and 2,000 otherwise.")
        gui.spin(box, self, "random_state", 0, 2 ** 31 - 1, label="Random seed:",
                 callback=self.restart,
                 tooltip="Seed of the permutations (and of the estimator's sampling): the "
                         "same seed repeats a run exactly.")
        gui.rubber(form)
        gui.auto_send(self.buttonsArea, self, "auto_commit")

        self.splitter = splitter = QSplitter(Qt.Horizontal, childrenCollapsible=False)
        self.mainArea.layout().addWidget(splitter)
        column = gui.vBox(None, margin=0)
        splitter.addWidget(column)
        self.summary = QLabel(wordWrap=True)
        column.layout().addWidget(self.summary)
        self.model = PairsModel(self)
        self.view = QTableView(
            selectionMode=QAbstractItemView.ExtendedSelection,
            selectionBehavior=QAbstractItemView.SelectRows,
            editTriggers=QAbstractItemView.NoEditTriggers, sortingEnabled=True,
            horizontalScrollMode=QAbstractItemView.ScrollPerPixel,
            textElideMode=Qt.ElideMiddle, wordWrap=False,
            toolTip="Click a row to select the pair (Ctrl or Shift for several); click a "
                    "header to sort.")
        self.view.setModel(self.model)
        self.view.verticalHeader().hide()
        self.view.verticalHeader().setSectionResizeMode(QHeaderView.Fixed)
        header = self.view.horizontalHeader()
        header.setTextElideMode(Qt.ElideNone)
        header.setSortIndicator(-1, Qt.AscendingOrder)
        self.view.selectionModel().selectionChanged.connect(
            lambda *_: self._on_table_selection())
        column.layout().addWidget(self.view)
        self.heatmap = Heatmap(self._on_cell_clicked)
        self.heatmap_scene = self.heatmap.scene_
        splitter.addWidget(self.heatmap)
        # the table as wide as its columns, the heatmap takes the rest
        splitter.setStretchFactor(0, 0)
        splitter.setStretchFactor(1, 1)
        self._set_choice_buttons()
        self.resize(1300, 700)

    def sizeHint(self):
        # as wide as the table's columns need beside the heatmap's narrowest pane, at most
        # a 1366-pixel screen's width
        needed = self._outside_splitter() + self._table_width \
            + self.splitter.handleWidth() + self.heatmap.minimumWidth() + 20
        return QSize(min(max(1300, needed), MAX_WIDTH), 700)

    def _outside_splitter(self):
        """The widget's width beside the table and heatmap (the controls and margins)."""
        if self.isVisible():
            return self.width() - self.splitter.width()
        return self.controlArea.sizeHint().width() + 30

    # --- controls
    def _set_choice_buttons(self):
        self.choice_buttons.button(self.attribute_choice).setChecked(True)
        self.ranking_box.setEnabled(self.attribute_choice == self.BestRanked)
        # the scan's p-values are the chi-square test's: no permutations
        self.significance_box.setEnabled(self.attribute_choice != self.AllPairs)

    def _on_choice_changed(self, choice):
        self.attribute_choice = choice
        self._set_choice_buttons()
        self.restart()

    def _on_estimator_changed(self):
        self.estimator_name = self.estimator_combo.currentText()
        self.params_stack.show_editor(self.estimator_name)
        self.restart()

    def _on_chosen_changed(self):
        if self.data is None:
            return
        rows = sorted(index.row() for index in self.attr_list.selectionModel().selectedRows())
        self.chosen_attrs = [self.attr_model[row] for row in rows]
        if self.attribute_choice == self.Chosen:
            self.restart()
        else:
            self._on_choice_changed(self.Chosen)

    def _show_chosen(self):
        selection = QItemSelection()
        attrs = list(self.attr_model)
        for attr in self.chosen_attrs:
            if attr in attrs:
                index = self.attr_model.index(attrs.index(attr))
                selection.select(index, index)
        selection_model = self.attr_list.selectionModel()
        blocked = selection_model.blockSignals(True)
        selection_model.select(selection, QItemSelectionModel.ClearAndSelect)
        selection_model.blockSignals(blocked)
        self.attr_list.viewport().update()

    # --- data and computation
    @Inputs.data
    def set_data(self, data):
        self.closeContext()
        self.chosen_attrs = []
        self.selected_pairs = []
        self.attribute_choice = self.BestRanked
        self.accept_data(data)
        if self.data is not None and self.data.domain.class_var.is_continuous:
            self.Error.numeric_target(self.data.domain.class_var.name)
            self.data = None
        self.attr_model[:] = self.data.domain.attributes if self.data is not None else []
        self.openContext(self.data)
        self._set_choice_buttons()
        self._show_chosen()
        self.restart(new_data=True)

    def _chosen_indices(self):
        attrs = self.data.domain.attributes
        return [attrs.index(a) for a in self.chosen_attrs if a in attrs]

    def restart(self, new_data=False):
        super().restart(new_data)
        if self.task is not None:
            # nothing of the previous result stays as if current while the new one is computed
            # (a run takes minutes): the table, the heatmap and the outputs are emptied
            self.show_result()
            self.summary.setText("Testing the pairs …")
            if new_data:
                self.commit.now()
            else:
                self.commit.deferred()
        if self.data is not None and self.attribute_choice == self.BestRanked:
            n = len(self.data.domain.attributes)
            # (fewer than two have no pair: an error says so)
            self.Information.all_tested(count(n, "attribute"), shown=2 <= n <= self.top)

    def background_task(self):
        if self.attribute_choice == self.AllPairs:
            return (partial(pairs_task, scan=True, impute=self.impute_calls), self.data, None,
                    None, None, None, self.random_state)
        ranked = self.attribute_choice == self.BestRanked
        estimator = self.params_stack.create(self.estimator_name) if ranked else None
        return (partial(pairs_task, impute=self.impute_calls), self.data, self.top,
                None if ranked else self._chosen_indices(), estimator,
                self.n_permutations or None, self.random_state)

    def on_partial_result(self, calls):
        missingcalls.show(self, calls)

    def on_done(self, result):
        missingcalls.show(self, result.calls)
        super().on_done(result)

    # --- table and heatmap
    def show_result(self):
        names = self._names()
        pairs = self.result.pairs if self.result is not None else None
        self.model.set_pairs(pairs, names)
        self.view.horizontalHeader().setSortIndicator(-1, Qt.AscendingOrder)
        if pairs is None:
            self.summary.setText("")
            self.heatmap.show_pairs(names, [], None, 0)
            return
        tested = len(pairs.attributes)
        shown = pairs.attributes
        if pairs.n_permutations == 0:          # the scan: its best pairs of every pair
            self.summary.setText(
                f"The best {count(len(pairs), 'pair')} of {pairs.n_tested:,} (every pair of "
                f"{count(tested, 'attribute')}); p-values of the chi-square test, q-values "
                f"over all the pairs.")
            ends = np.column_stack([pairs.first, pairs.second]).ravel()
            _, first_seen = np.unique(ends, return_index=True)
            shown = ends[np.sort(first_seen)]          # the best pairs' attributes
        else:
            how = (f"the {tested} attributes {self.estimator_name} ranks best"
                   if self.attribute_choice == self.BestRanked
                   and tested < len(self.data.domain.attributes)
                   else count(tested, "attribute"))
            self.summary.setText(f"{count(len(pairs), 'pair')} of {how}; p-values from "
                                 f"{count(pairs.n_permutations, 'permutation')} of the class.")
        self.heatmap.show_pairs(names, shown[:HEATMAP_SIZE], pairs, len(shown))
        self._fit_columns()
        self._select_stored_pairs()

    def _names(self):
        """The data's attribute names (kept for the data: 10,000 names take 5 ms)."""
        attributes = self.data.domain.attributes if self.data is not None else ()
        if self._names_of is not attributes:
            self._names_of, self._name_list = attributes, [a.name for a in attributes]
        return self._name_list

    def _fit_columns(self):
        """Every column as wide as its widest text and its header, measured on the texts (not
        by asking the view about every row); a name longer than :data:`NAME_CHARACTERS` is
        shortened in the middle, and shorter still (to :data:`MIN_NAME_CHARACTERS` at least)
        where the widget at its widest (:data:`MAX_WIDTH`) would not show every column beside
        the heatmap. The table's pane is then as wide as its columns."""
        view, model = self.view, self.model
        header = view.horizontalHeader()
        metrics = view.fontMetrics()
        margin = 2 * (view.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None,
                                               view) + 1) + 8
        pairs = model.pairs
        # the widest name is among the longest (not always the longest: "m" is wider than "i")
        names = sorted({model.names[i][:NAME_CHARACTERS] for i in pairs.attributes},
                       key=len)[-64:]
        rows = _widest_rows(pairs)
        widths = {}
        for c in range(len(COLUMNS)):
            if c not in model.name_columns:
                texts = {model.text(int(r), c) for r in rows} | {str(len(pairs))}
                widths[c] = max(max(metrics.horizontalAdvance(t) for t in texts) + margin,
                                header.sectionSizeHint(c))
        frame = 2 * view.frameWidth() + view.verticalScrollBar().sizeHint().width()
        room = (MAX_WIDTH - self._outside_splitter() - self.splitter.handleWidth()
                - self.heatmap.minimumWidth() - 20 - frame - sum(widths.values())) \
            // len(model.name_columns) - margin
        average = metrics.averageCharWidth()
        # every name of up to NAME_CHARACTERS characters in full (measured, not counted in
        # average characters: names are wider than the average of the font's characters)
        name_width = min(max(metrics.horizontalAdvance(n) for n in names),
                         max(room, average * MIN_NAME_CHARACTERS))
        # names longer than their column keep what tells them apart
        characters = max(int(name_width / average), MIN_NAME_CHARACTERS)
        while True:
            model.show_names(characters)
            longest = sorted(set(model.shown_names.values()), key=len)[-64:]
            if characters <= MIN_NAME_CHARACTERS or max(
                    (metrics.horizontalAdvance(n) for n in longest), default=0) <= name_width:
                break
            characters -= 1
        for c in model.name_columns:
            widths[c] = max(name_width + margin, header.sectionSizeHint(c))
        for c, width in widths.items():
            view.setColumnWidth(c, width)
        if len(pairs):
            view.verticalHeader().setDefaultSectionSize(view.sizeHintForRow(0))
        # the table's pane as wide as its columns when the widget opens; narrower (it scrolls)
        # rather than make the widget wider than the screen (the heatmap keeps its minimum)
        self._table_width = sum(widths.values()) + frame
        view.setMinimumWidth(min(self._table_width,
                                 MAX_WIDTH - self._outside_splitter() - 20
                                 - self.splitter.handleWidth() - self.heatmap.minimumWidth()))
        total = sum(self.splitter.sizes())
        if total > 0:
            self.splitter.setSizes([self._table_width, max(total - self._table_width, 1)])

    # --- selection
    def _select_rows(self, source_rows, toggle=False, quiet=False):
        """Select the table's rows of ``source_rows`` (or with ``toggle`` add or remove them);
        ``quiet``: without the signal (and the output it sends)."""
        model = self.model
        selection = QItemSelection()
        last = len(COLUMNS) - 1
        for row in model.mapFromSourceRows(list(source_rows)) if len(source_rows) else []:
            selection.select(model.index(int(row), 0), model.index(int(row), last))
        flags = QItemSelectionModel.Toggle if toggle else QItemSelectionModel.ClearAndSelect
        selection_model = self.view.selectionModel()
        blocked = selection_model.blockSignals(quiet)
        selection_model.select(selection, flags)
        selection_model.blockSignals(blocked)
        self.view.viewport().update()
        if len(source_rows):
            self.view.scrollTo(model.index(int(model.mapFromSourceRows(source_rows[0])), 0))

    def _attribute_index(self, var):
        """The index of ``var`` among the data's attributes, or None (looked up in the
        domain's table: a search of 10,000 attributes compares variables for 50 ms)."""
        domain = self.data.domain
        index = domain.index(var) if var in domain else -1
        return index if 0 <= index < len(domain.attributes) else None

    def _select_stored_pairs(self):
        pairs = self.model.pairs
        stored = [(self._attribute_index(a), self._attribute_index(b))
                  for a, b in zip(self.selected_pairs[::2], self.selected_pairs[1::2])]
        wanted = [sorted(pair) for pair in stored if None not in pair]
        rows = [int(r) for a, b in wanted
                for r in np.flatnonzero((pairs.first == a) & (pairs.second == b))]
        self._select_rows(sorted(rows), quiet=True)
        self._keep_selection()          # (the base class sends the outputs)

    def _on_cell_clicked(self, first, second, toggle=False):
        """Select the pair of attributes ``first`` and ``second`` (indices), or with
        ``toggle`` add it to the selection or remove it."""
        pairs = self.model.pairs
        a, b = min(first, second), max(first, second)
        rows = np.flatnonzero((pairs.first == a) & (pairs.second == b))
        self._select_rows(list(rows), toggle)

    def selected_rows(self):
        """The source rows (in the result's order) of the selected pairs."""
        rows = [index.row() for index in self.view.selectionModel().selectedRows()]
        return sorted(int(r) for r in self.model.mapToSourceRows(rows)) if rows else []

    def _keep_selection(self):
        """Store the selected pairs (for the settings and the output) and outline them."""
        pairs = self.model.pairs
        attrs = self.data.domain.attributes
        rows = self.selected_rows()
        self.selected_pairs = [attrs[i] for r in rows
                               for i in (pairs.first[r], pairs.second[r])]
        self.heatmap.outline({(int(pairs.first[r]), int(pairs.second[r])) for r in rows})

    def _on_table_selection(self):
        if self.model.pairs is not None:
            self._keep_selection()
            self.commit.deferred()

    # --- output
    @gui.deferred
    def commit(self):
        self.Outputs.pairs.send(self.pairs_table())
        if self.result is None or not self.selected_pairs:
            self.Outputs.selected_data.send(None)
            return
        attrs = self.data.domain.attributes
        indices = sorted({self._attribute_index(a) for a in self.selected_pairs} - {None})
        domain = Domain([attrs[i] for i in indices], self.data.domain.class_vars,
                        self.data.domain.metas)
        self.Outputs.selected_data.send(self.data.transform(domain))

    def pairs_table(self):
        """The Interacting Pairs output (:func:`pairs_table`, made by the background task)."""
        return None if self.result is None else self.result.table

    def send_report(self):
        if self.attribute_choice == self.BestRanked:
            params = self.params_stack.editors[self.estimator_name].values
            cls = self.scorer_classes[self.estimator_name]
            items = [("Attributes", f"the {self.top} best ranked"),
                     ("Ranked by", self.estimator_name)] \
                + [describe(name, value, cls) for name, value in params.items()]
        elif self.attribute_choice == self.Chosen:
            items = [("Attributes", ", ".join(a.name for a in self.chosen_attrs) or "none")]
        else:
            items = [("Attributes", "all pairs (chi-square test)")]
        if self.attribute_choice != self.AllPairs:
            items += [("Permutations", self.n_permutations or "automatic"),
                      ("Random seed", self.random_state)]
        self.report_items("Parameters", items)
        if self.data is None:
            return
        self.report_data("Data", self.data)
        if self.result is not None:
            self.report_items("Result", [("Pairs", self.summary.text())])
            self.report_table("Pairs", self.model)
            self.report_plot("Heatmap", self.heatmap_scene)


if __name__ == "__main__":  # pragma: no cover
    from orangecontrib.relief.datasets import parity
    WidgetPreview(OWInteractingPairs).run(parity())
