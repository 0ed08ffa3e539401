"""Oblivious Tree: OBLIVION (Langley 1994), backward elimination of attributes from an oblivious
decision tree with a leave-one-out or k-fold accuracy estimate; fitted in the background.
Outputs the learner, the model, the retained attributes and the data reduced to them, and shows
the elimination path."""
import inspect

from AnyQt.QtCore import QSize, Qt
from AnyQt.QtGui import QStandardItem, QStandardItemModel
from AnyQt.QtWidgets import QComboBox, QHeaderView, QTableView

from Orange.data import Domain, Table
from Orange.widgets import gui
from Orange.widgets.settings import Setting
from Orange.widgets.utils.owlearnerwidget import OWBaseLearner
from Orange.widgets.utils.widgetpreview import WidgetPreview
from Orange.widgets.widget import AttributeList, Msg, Output

from orangecontrib.relief import oblivion
from orangecontrib.relief.learners import ObliviousTreeLearner
from orangecontrib.relief.widgets.background import BackgroundLearnerWidget

__all__ = ["OWObliviousTree"]

ESTIMATES = ("Leave-one-out", "Cross-validation")
#: labels of the elimination searches (:data:`.oblivion.SEARCHES`); a search without a label
#: here is offered under its own name
SEARCH_LABELS = {"greedy": "Stop at the first loss (paper)",
                 "full-path": "Full path, keep the most accurate"}
SEARCHES = tuple((search, SEARCH_LABELS.get(search, search)) for search in oblivion.SEARCHES)
DEFAULT_SEARCH = inspect.signature(ObliviousTreeLearner).parameters["search"].default


class OWObliviousTree(BackgroundLearnerWidget):
    name = "Oblivious Tree"
    description = ("OBLIVION: prunes irrelevant attributes from an oblivious decision tree by "
                   "backward elimination; predicts by nearest neighbours on the rest.")
    icon = "icons/ObliviousTree.svg"
    priority = 40
    resizing_enabled = True     # the elimination path table needs room
    keywords = ["oblivion", "oblivious", "tree", "feature selection", "nearest neighbour",
                "backward elimination", "wrapper"]

    LEARNER = ObliviousTreeLearner
    want_main_area = True

    class Inputs(BackgroundLearnerWidget.Inputs):
        pass

    class Outputs(BackgroundLearnerWidget.Outputs):
        reduced_data = Output("Reduced Data", Table)
        features = Output("Features", AttributeList, dynamic=False)

    class Warning(OWBaseLearner.Warning):
        no_attributes = Msg("No attribute was retained: the model predicts the majority class.")

    class Information(OWBaseLearner.Information):
        retained = Msg("Retained {} of {} attributes (estimated accuracy {:.3f}).")

    settings_version = 2
    estimate = Setting(0)      # index into ESTIMATES
    folds = Setting(10)
    search = Setting(DEFAULT_SEARCH)
    random_state = Setting(0)

    @classmethod
    def migrate_settings(cls, settings, version):
        """Version 1 stored the search as an index into (greedy, full-path)."""
        if version is None or version < 2:
            search = settings.get("search")
            if isinstance(search, int) and not isinstance(search, bool):
                settings["search"] = ("greedy", "full-path")[search] if search in (0, 1) \
                    else DEFAULT_SEARCH

    def add_main_layout(self):
        box = gui.vBox(self.controlArea, "Accuracy estimate")
        radio = gui.radioButtons(
            box, self, "estimate", callback=self.settings_changed,
            tooltips=["Each instance is classified by its nearest other cases in the space of "
                      "the remaining attributes (Langley's choice).",
                      "Stratified k-fold cross-validation."])
        gui.appendRadioButton(radio, ESTIMATES[0])
        gui.appendRadioButton(radio, ESTIMATES[1])
        self.folds_spin = gui.spin(gui.indentedBox(radio), self, "folds", 2, 100,
                                   label="Folds:", callback=self.settings_changed,
                                   controlWidth=60, tooltip="The number of folds k.")
        box = gui.vBox(self.controlArea, "Elimination")
        if self.search not in oblivion.SEARCHES:
            self.search = DEFAULT_SEARCH
        self.search_combo = QComboBox(
            toolTip="Backward elimination: stop as soon as every removal loses accuracy "
                    "(Langley), or remove attributes down to none and keep the most accurate "
                    "tree met on the way.")
        for search, label in SEARCHES:
            self.search_combo.addItem(label, search)
        self.search_combo.setCurrentIndex(oblivion.SEARCHES.index(self.search))
        self.search_combo.activated.connect(self._on_search_changed)
        box.layout().addWidget(self.search_combo)
        gui.rubber(self.controlArea)

        self.path_model = QStandardItemModel(0, 3, self)
        self.path_model.setHorizontalHeaderLabels(["Step", "Removed", "Accuracy"])
        self.path_view = QTableView(editTriggers=QTableView.EditTrigger.NoEditTriggers,
                                    selectionMode=QTableView.SelectionMode.NoSelection)
        self.path_view.setModel(self.path_model)
        self._path_width = 0        # the width that shows the path's columns
        self.path_view.verticalHeader().hide()
        # the names take the room left; step and accuracy are as wide as their numbers (a
        # stretched last section kept a width of its own and pushed the accuracies out of view)
        header = self.path_view.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.path_view.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        gui.vBox(self.mainArea, "Elimination path").layout().addWidget(self.path_view)
        self._update_folds_enabled()
        self.resize(700, 560)

    def sizeHint(self):
        """700 x 560, wider when the elimination path's names need it (at most a 1366-pixel
        screen's width)."""
        width = self.controlArea.sizeHint().width() + self._path_width + 40
        return QSize(min(max(700, width), 1366), 560)

    def _on_search_changed(self):
        self.search = self.search_combo.currentData()
        self.settings_changed()

    def _update_folds_enabled(self):
        self.folds_spin.setEnabled(self.estimate == 1)

    def settings_changed(self, *args, **kwargs):
        self._update_folds_enabled()
        super().settings_changed(*args, **kwargs)

    def create_learner(self):
        return self.LEARNER(folds=self.folds if self.estimate == 1 else None,
                            search=self.search, random_state=self.random_state,
                            preprocessors=self.preprocessors)

    def get_learner_parameters(self):
        estimate = ESTIMATES[0] if self.estimate == 0 else f"{self.folds}-fold cross-validation"
        search = dict(SEARCHES)[self.search]
        return (("Accuracy estimate", estimate), ("Elimination", search))

    def model_changed(self):
        """The elimination path table, the messages and the Reduced Data output."""
        self.path_model.setRowCount(0)
        self.Warning.no_attributes.clear()
        self.Information.retained.clear()
        model = self.model
        if model is None:
            self.Outputs.reduced_data.send(None)
            self.Outputs.features.send(None)
            return
        tree = model.tree
        rows = [("0", "(all attributes)", tree.initial_accuracy)]
        rows += [(str(step), var.name, acc) for step, (var, acc) in enumerate(model.path, 1)]
        chosen = len(model.eliminated_attributes)   # the step of the tree that is kept
        for row, (step, name, acc) in enumerate(rows):
            items = [QStandardItem(step), QStandardItem(name), QStandardItem(f"{acc:.3f}")]
            for item in (items[0], items[2]):
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight
                                      | Qt.AlignmentFlag.AlignVCenter)
            if row == chosen:
                for item in items:
                    font = item.font()
                    font.setBold(True)
                    item.setFont(font)
                    item.setToolTip("The tree that is kept")
            self.path_model.appendRow(items)
        view = self.path_view       # every column in view, however long the names
        width = sum(max(view.sizeHintForColumn(c), view.horizontalHeader().sectionSizeHint(c))
                    for c in range(self.path_model.columnCount()))
        # the widget opens as wide as the path's columns (:meth:`sizeHint`); the path can be
        # made narrower (it scrolls), the widget as narrow as Orange's widgets can
        self._path_width = min(width + 2 * view.frameWidth()
                               + view.verticalScrollBar().sizeHint().width(), 1000)
        retained = model.retained_attributes
        self.Information.retained(len(retained), len(model.domain.attributes), tree.accuracy)
        self.Warning.no_attributes(shown=not retained)
        domain = Domain(retained, self.data.domain.class_vars, self.data.domain.metas)
        self.Outputs.reduced_data.send(self.data.transform(domain))
        self.Outputs.features.send(AttributeList(retained))

    def send_report(self):
        super().send_report()
        if self.model is not None:
            self.report_items("Retained attributes", (
                ("Attributes", ", ".join(v.name for v in self.model.retained_attributes)
                 or "none"),
                ("Estimated accuracy", f"{self.model.tree.accuracy:.3f}")))
            self.report_table("Elimination path", self.path_view)


if __name__ == "__main__":  # pragma: no cover
    WidgetPreview(OWObliviousTree).run(Table("iris"))
