"""Interacting Pairs: which pairs of discrete attributes (SNPs) act on the class together.
Every pair is tested where that takes about a minute or less (:func:`.choose_method`, as the
command line's ``pairs`` chooses), else, or as chosen, the pairs of the attributes an estimator
ranks best (or of the attributes chosen) are tested by
:func:`.estimators.interactions.interacting_pairs` — BOOST's likelihood-ratio test of the
interaction (Wan et al. 2010, eqs. 3-5), p-values from permutations of the class that repeat
the ranking, Benjamini-Hochberg q-values — and shown as a sortable table, best first, and as a
heatmap of -log10 p among the best attributes (the table's model in :mod:`.pairsmodel`, the
heatmap in :mod:`.pairsheatmap`, the report in :mod:`.pairsreport`)."""
from functools import partial
from types import SimpleNamespace

import numpy as np
from AnyQt.QtCore import QEvent, QItemSelection, QItemSelectionModel, QSize, Qt
from AnyQt.QtWidgets import (QAbstractItemView, QButtonGroup, QComboBox, QGridLayout, QHeaderView,
                             QLabel, QListView, QRadioButton, QSplitter, QStyle, QTableView)

from Orange.data import ContinuousVariable, Domain, StringVariable, Table
from Orange.widgets import gui
from Orange.widgets.settings import ContextSetting, DomainContextHandler, Setting
from Orange.widgets.utils.itemmodels import VariableListModel
from Orange.widgets.utils.widgetpreview import WidgetPreview
from Orange.widgets.widget import Input, Msg, Output

from orangecontrib.relief import scoring
from orangecontrib.relief.estimators.interactions import (choose_method, interacting_pairs,
                                                          scan_pairs)
from orangecontrib.relief.orange_data import encode_table
from orangecontrib.relief.widgets.background import BackgroundEstimationWidget, progress_callback
from orangecontrib.relief.widgets import missingcalls
from orangecontrib.relief.widgets.estimatorparams import ParameterStack
from orangecontrib.relief.widgets.names import NAME_CHARACTERS
from orangecontrib.relief.widgets.numbers import count
from orangecontrib.relief.widgets.pairsheatmap import Heatmap
from orangecontrib.relief.widgets.pairsmodel import COLUMNS, PairsModel, widest_rows
from orangecontrib.relief.widgets.pairsreport import send_report

__all__ = ["OWInteractingPairs", "pairs_task", "pairs_table"]

#: the estimator that ranks the attributes unless another is chosen (as the engine's default)
DEFAULT_ESTIMATOR = "MultiSURF"
#: the most best-ranked attributes whose pairs can be tested (half a million pairs)
MAX_TOP = 1000
#: the heatmap shows the pairs of at most this many attributes (the best ranked)
HEATMAP_SIZE = 25
#: the widget opens at most this wide (it fits a 1366-pixel screen)
MAX_WIDTH = 1360
#: a table too narrow for its columns shortens the names in the middle, to no fewer than this
#: many characters (then it scrolls)
MIN_NAME_CHARACTERS = 16
#: names are shown by what tells them apart in no fewer characters than this (the column is at
#: least :data:`MIN_NAME_CHARACTERS` average characters wide, which names of wide characters,
#: digits and "_", may exceed)
FEWEST_NAME_CHARACTERS = 8


def classification_scorers():
    """{name: scorer class} of the estimators that rank attributes for a categorical target."""
    return {cls.stem(): cls for cls in scoring.SCORERS if "classification" in cls.tasks}


def pairs_task(data, top, chosen, estimator, n_permutations, random_state, state, scan=False,
               impute=False):
    """:func:`.interacting_pairs` on ``data`` (an Orange table with a categorical class) in a
    background task: the pairs of the ``top`` attributes ``estimator`` ranks best, or of the
    ``chosen`` attribute indices (None: rank), with ``n_permutations`` (None: the engine's
    default) permutations of the class drawn by ``random_state``; with ``scan``, every pair
    (:func:`.scan_pairs`: the chi-square p-values), with ``scan`` None every pair where the
    data's size allows (:func:`.choose_method`), else the ranking; with ``impute``, on ``data``
    with missing genotype calls filled (:func:`.missingcalls.prepare`); cancelled through
    ``state``.

    Returns a namespace with ``pairs`` (:class:`.InteractingPairs`), ``table`` (them as an
    Orange table, :func:`pairs_table`), ``n_ignored`` (instances left out for a missing
    class) and ``calls`` (the missing genotype calls and those filled)."""
    if chosen is not None and len(chosen) < 2:
        raise ValueError("choose at least two attributes in the list, or test the best "
                         "ranked ones")
    if scan is None:        # as interacting_pairs' method "auto", on the table's size
        scan = choose_method(len(data), len(data.domain.attributes)) == "scan"
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

    BestRanked, Chosen, AllPairs, Automatic = range(4)

    settingsHandler = DomainContextHandler()
    settings_version = 1
    attribute_choice = ContextSetting(Automatic)
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
        automatic = QRadioButton("Automatic", toolTip=(
            "Every pair, as 'All pairs', where that takes about a minute or less; on larger "
            "data the pairs of the attributes best ranked by the estimator below, as 'Best "
            "ranked'."))
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
        for i, button in enumerate((best, chosen, every, automatic)):
            self.choice_buttons.addButton(button, i)
        self.choice_buttons.idClicked.connect(self._on_choice_changed)
        grid.addWidget(automatic, 0, 0, 1, 2)
        grid.addWidget(best, 1, 0)
        self.top_spin = gui.spin(None, self, "top", 2, MAX_TOP, addToLayout=False,
                                 callback=lambda: self._on_choice_changed(self.BestRanked),
                                 tooltip="The number of best-ranked attributes whose pairs "
                                         "are tested (n attributes: n(n - 1)/2 pairs).")
        grid.addWidget(self.top_spin, 1, 1)
        grid.addWidget(chosen, 2, 0, 1, 2)
        grid.addWidget(every, 3, 0, 1, 2)
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
        # rows as high as their contents, not the hidden header's minimum (its font's height
        # and margins, a pixel more at PyQt5's default 12 pt)
        self.view.verticalHeader().setMinimumSectionSize(1)
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
        splitter.installEventFilter(self)
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
        self.ranking_box.setEnabled(self.may_rank())
        # the scan's p-values are the chi-square test's: no permutations
        self.significance_box.setEnabled(self.attribute_choice != self.AllPairs)

    def may_rank(self):
        """Whether the attributes are (or, automatically, may be) ranked."""
        return self.attribute_choice in (self.BestRanked, self.Automatic)

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
        if self.attribute_choice == self.Chosen:    # (the previous data's attributes)
            self.attribute_choice = self.Automatic
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
        ranked = self.may_rank()
        automatic = self.attribute_choice == self.Automatic
        estimator = self.params_stack.create(self.estimator_name) if ranked else None
        return (partial(pairs_task, scan=None if automatic else False,
                        impute=self.impute_calls), self.data, self.top,
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
                   if self.may_rank() and tested < len(self.data.domain.attributes)
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
        rows = widest_rows(pairs)
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
        # (below MIN_NAME_CHARACTERS too, rather than let the view cut what tells them apart)
        while True:
            model.show_names(characters)
            longest = sorted(set(model.shown_names.values()), key=len)[-64:]
            if characters <= FEWEST_NAME_CHARACTERS or max(
                    (metrics.horizontalAdvance(n) for n in longest), default=0) <= name_width:
                break
            characters -= 1
        for c in model.name_columns:
            widths[c] = max(name_width + margin, header.sectionSizeHint(c))
        for c, width in widths.items():
            view.setColumnWidth(c, width)
        if len(pairs):
            view.verticalHeader().setDefaultSectionSize(view.sizeHintForRow(0))
        self._table_width = sum(widths.values()) + frame
        self._share_width()

    def _share_width(self):
        """The table's pane as wide as its columns where the splitter has room for them
        beside the heatmap's narrowest pane, else narrower (it scrolls); the heatmap the rest.
        Set when the columns are fitted and whenever the splitter is resized (not by minimum
        widths: the widget's minimum size stays small, whatever the names' lengths)."""
        total = self.splitter.width() - self.splitter.handleWidth()
        if total <= 0 or not self._table_width:
            return
        table = max(min(self._table_width, total - self.heatmap.minimumWidth()), 1)
        self.splitter.setSizes([table, max(total - table, 1)])

    def eventFilter(self, obj, event):
        if obj is self.splitter and event.type() == QEvent.Type.Resize:
            self._share_width()
        return super().eventFilter(obj, event)

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
        send_report(self)


if __name__ == "__main__":  # pragma: no cover
    from orangecontrib.relief.datasets import parity
    WidgetPreview(OWInteractingPairs).run(parity())
