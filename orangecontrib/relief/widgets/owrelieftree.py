"""Relief Tree: CORE decision and regression trees whose binary splits are chosen by any
estimator of the add-on (Robnik-Šikonja & Kononenko 1999 §4), with the estimator
switch, stopping rules, pruning, leaf models and pre-discretisation; fitted in the background."""
from AnyQt.QtCore import Qt
from AnyQt.QtWidgets import QComboBox

from Orange.data import Table
from Orange.widgets import gui
from Orange.widgets.settings import Setting
from Orange.widgets.utils.widgetpreview import WidgetPreview

from orangecontrib.relief.learners import CoreTreeLearner
from orangecontrib.relief.scoring import SCORERS
from orangecontrib.relief.widgets.background import BackgroundLearnerWidget

__all__ = ["OWReliefTree"]

#: split selection estimators offered, by name: the engine classes of the scorers, used with
#: their default parameters
CLASSIFICATION_ESTIMATORS = {s.stem(): s.engine() for s in SCORERS if "classification" in s.tasks}
REGRESSION_ESTIMATORS = {s.stem(): s.engine() for s in SCORERS if "regression" in s.tasks}
PRUNINGS = (("m-estimate", "m-estimate"), ("pessimistic", "pessimistic (C4.5)"), (None, "none"))
LEAF_MODELS = (("mean", "mean"), ("linear", "linear model"))


class OWReliefTree(BackgroundLearnerWidget):
    name = "Relief Tree"
    description = ("Decision and regression trees whose splits are chosen by ReliefF, "
                   "RReliefF or another estimator, with the switch to accuracy / MSE.")
    icon = "icons/ReliefTree.svg"
    priority = 20
    keywords = ["tree", "core", "relieff", "rrelieff", "decision tree", "regression tree",
                "classification tree", "switch"]

    LEARNER = CoreTreeLearner

    class Inputs(BackgroundLearnerWidget.Inputs):
        pass

    class Outputs(BackgroundLearnerWidget.Outputs):
        pass

    estimator_name = Setting("ReliefF")
    regression_estimator_name = Setting("RReliefF")
    switch = Setting(False)
    switch_threshold = Setting(0.8)
    min_leaf = Setting(5)
    limit_majority = Setting(True)
    min_majority = Setting(97)
    limit_depth = Setting(False)
    max_depth = Setting(10)
    stop_nonpositive = Setting(True)
    pruning = Setting("m-estimate")
    m = Setting(2.0)
    confidence = Setting(0.25)
    leaf_model = Setting("mean")
    discretize = Setting(False)
    n_intervals = Setting(10)

    # --- layout
    def _combo(self, box, label, attr, items):
        """A combo for setting ``attr`` with (value, label) ``items``."""
        combo = QComboBox()
        for value, text in items:
            combo.addItem(text, value)
        values = [value for value, _ in items]
        combo.setCurrentIndex(values.index(getattr(self, attr))
                              if getattr(self, attr) in values else 0)
        setattr(self, attr, combo.currentData())

        def changed(index):
            setattr(self, attr, combo.itemData(index))
            self.settings_changed()
        combo.activated.connect(changed)
        row = gui.hBox(box)
        gui.widgetLabel(row, label)
        row.layout().addWidget(combo)
        return combo

    def add_main_layout(self):
        box = gui.vBox(self.controlArea, "Split selection")
        self.estimator_combo = self._combo(
            box, "Classification:", "estimator_name",
            [(name, name) for name in CLASSIFICATION_ESTIMATORS])
        self.regression_estimator_combo = self._combo(
            box, "Regression:", "regression_estimator_name",
            [(name, name) for name in REGRESSION_ESTIMATORS])
        gui.doubleSpin(box, self, "switch_threshold", 0.0, 1.0, 0.05, decimals=2,
                       label="Switch to accuracy / MSE at ρ ≥ ", checked="switch",
                       callback=self.settings_changed, checkCallback=self.settings_changed,
                       controlWidth=70)
        gui.checkBox(box, self, "discretize", "Discretize numeric attributes first",
                     callback=self.settings_changed)
        gui.spin(gui.indentedBox(box), self, "n_intervals", 2, 100,
                 label="Equal-width intervals: ", callback=self.settings_changed,
                 controlWidth=70)

        box = gui.vBox(self.controlArea, "Stopping")
        gui.spin(box, self, "min_leaf", 1, 10000, label="Min. instances in leaves: ",
                 callback=self.settings_changed, alignment=Qt.AlignRight, controlWidth=70)
        gui.spin(box, self, "max_depth", 1, 1000, label="Limit the depth to: ",
                 checked="limit_depth", callback=self.settings_changed,
                 checkCallback=self.settings_changed, alignment=Qt.AlignRight,
                 controlWidth=70)
        gui.checkBox(box, self, "stop_nonpositive", "Stop when the best estimate ≤ 0",
                     callback=self.settings_changed)

        box = gui.vBox(self.controlArea, "Pruning")
        self._combo(box, "Method:", "pruning", PRUNINGS)
        gui.doubleSpin(box, self, "m", 0.0, 1000.0, 0.5, label="m (m-estimate): ",
                       callback=self.settings_changed, controlWidth=70)
        gui.doubleSpin(box, self, "confidence", 0.01, 0.5, 0.05, decimals=2,
                       label="Confidence (pessimistic): ", callback=self.settings_changed,
                       controlWidth=70)

    def add_classification_layout(self, box):
        gui.spin(box, self, "min_majority", 51, 100, label="Stop when majority reaches [%]: ",
                 checked="limit_majority", callback=self.settings_changed,
                 checkCallback=self.settings_changed, alignment=Qt.AlignRight,
                 controlWidth=70)

    def add_regression_layout(self, box):
        self._combo(box, "Leaf model:", "leaf_model", LEAF_MODELS)

    # --- learner
    def learner_kwargs(self):
        return dict(
            estimator=CLASSIFICATION_ESTIMATORS[self.estimator_name](),
            regression_estimator=REGRESSION_ESTIMATORS[self.regression_estimator_name](),
            switch=self.switch, switch_threshold=self.switch_threshold,
            min_leaf=self.min_leaf,
            min_majority=self.min_majority / 100 if self.limit_majority else 1.0,
            max_depth=self.max_depth if self.limit_depth else None,
            min_estimate=0.0 if self.stop_nonpositive else None,
            pruning=self.pruning, m=self.m, confidence=self.confidence,
            leaf_model=self.leaf_model,
            discretize=self.n_intervals if self.discretize else None,
            preprocessors=self.preprocessors)

    def create_learner(self):
        return self.LEARNER(**self.learner_kwargs())

    def get_learner_parameters(self):
        pruning = dict(PRUNINGS)[self.pruning]
        if self.pruning == "m-estimate":
            pruning += f", m = {self.m:g}"
        elif self.pruning == "pessimistic":
            pruning += f", confidence {self.confidence:g}"
        return (
            ("Estimator", f"{self.estimator_name} (classification), "
                          f"{self.regression_estimator_name} (regression)"),
            ("Switch", f"at ρ ≥ {self.switch_threshold:g}" if self.switch else "off"),
            ("Discretization", f"{self.n_intervals} equal-width intervals"
                               if self.discretize else "none"),
            ("Stopping", ", ".join(filter(None, (
                f"at least {self.min_leaf} instances in leaves",
                f"majority {self.min_majority} %" if self.limit_majority else "",
                f"depth {self.max_depth}" if self.limit_depth else "",
                "best estimate ≤ 0" if self.stop_nonpositive else "")))),
            ("Pruning", pruning),
            ("Leaf model (regression)", dict(LEAF_MODELS)[self.leaf_model]),
        )


if __name__ == "__main__":  # pragma: no cover
    WidgetPreview(OWReliefTree).run(Table("iris"))
