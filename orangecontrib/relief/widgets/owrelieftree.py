"""Relief Tree: CORE decision and regression trees whose binary splits are chosen by any
estimator of the add-on (Robnik-Šikonja & Kononenko 1999 §4), with the estimator
switch, stopping rules, pruning, leaf models and pre-discretisation; fitted in the background."""
from AnyQt.QtCore import QEvent, QSize, Qt, QTimer
from AnyQt.QtWidgets import QComboBox

from Orange.data import Table
from Orange.widgets import gui
from Orange.widgets.settings import Setting
from Orange.widgets.utils.widgetpreview import WidgetPreview

from orangecontrib.relief.learners import CoreTreeLearner
from orangecontrib.relief.scoring import SCORERS, scorer_by_name
from orangecontrib.relief.widgets.background import BackgroundLearnerWidget
from orangecontrib.relief.widgets.estimatorparams import Collapsible, ParameterStack, describe

__all__ = ["OWReliefTree"]

#: split selection estimators offered, by name: the engine classes of the scorers (those that
#: can select splits)
_SELECTORS = [s for s in SCORERS if s.split_selector]
CLASSIFICATION_ESTIMATORS = {s.stem(): s.engine() for s in _SELECTORS
                             if "classification" in s.tasks}
REGRESSION_ESTIMATORS = {s.stem(): s.engine() for s in _SELECTORS if "regression" in s.tasks}
PRUNINGS = (("m-estimate", "m-estimate"), ("pessimistic", "pessimistic (C4.5)"), (None, "none"))
LEAF_MODELS = (("mean", "mean"), ("linear", "linear model"))
#: the tallest the window opens (Orange's widgets fit a 1366 x 768 screen)
MAX_HEIGHT = 700


class OWReliefTree(BackgroundLearnerWidget):
    name = "Relief Tree"
    description = ("Decision and regression trees whose splits are chosen by ReliefF, "
                   "RReliefF or another estimator, with the switch to accuracy / MSE.")
    icon = "icons/ReliefTree.svg"
    priority = 20
    keywords = ["tree", "core", "relieff", "rrelieff", "decision tree", "regression tree",
                "classification tree", "switch"]

    LEARNER = CoreTreeLearner
    #: the form scrolls, so the window may be shorter than it (a laptop screen)
    resizing_enabled = True

    class Inputs(BackgroundLearnerWidget.Inputs):
        pass

    class Outputs(BackgroundLearnerWidget.Outputs):
        pass

    settings_version = 3
    estimator_name = Setting("ReliefF")
    regression_estimator_name = Setting("RReliefF")
    #: the parameters of each estimator, by name (as Attribute Estimation's)
    estimator_params = Setting({})
    #: whether the estimators' advanced parameters are shown
    advanced_shown = Setting(False)
    #: whether the tree's further options are shown (apart from the estimators')
    tree_advanced_shown = Setting(False)
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

    @classmethod
    def migrate_settings(cls, settings, version):
        """Version 1 had no estimator parameters and may name an estimator by its class
        ("Gini"); values a combo does not offer fall back to its first item. Up to version 2
        one "Advanced" state opened the estimators' and the tree's sections together."""
        if version is None or version < 2:
            for key in ("estimator_name", "regression_estimator_name"):
                try:
                    settings[key] = scorer_by_name(str(settings[key])).stem()
                except (KeyError, ValueError):
                    settings.pop(key, None)
        if version is None or version < 3:
            settings["tree_advanced_shown"] = bool(settings.get("advanced_shown", False))

    # --- layout
    def _combo(self, box, label, attr, items, tooltip):
        """A combo for setting ``attr`` with (value, label) ``items``."""
        combo = QComboBox(toolTip=tooltip)
        for value, text in items:
            combo.addItem(text, value)
        values = [value for value, _ in items]
        combo.setCurrentIndex(values.index(getattr(self, attr))
                              if getattr(self, attr) in values else 0)
        setattr(self, attr, combo.currentData())

        def changed(index):
            setattr(self, attr, combo.itemData(index))
            self._update_enabled()
            self.settings_changed()
        combo.activated.connect(changed)
        row = gui.hBox(box)
        gui.widgetLabel(row, label).setToolTip(tooltip)
        row.layout().addWidget(combo)
        return combo

    def _estimator_editors(self, box, estimators):
        """The parameters of the estimators, indented under their combo."""
        stack = ParameterStack(estimators, self.estimator_params, self.advanced_shown)
        stack.changed.connect(self.settings_changed)
        stack.advanced_toggled.connect(self._on_advanced_toggled)
        gui.indentedBox(box).layout().addWidget(stack)
        return stack

    def add_main_layout(self):
        # the form scrolls when taller than the window (both Advanced sections open on a
        # laptop screen); Apply stays in view below it
        scroll = self.form_scroll = gui.VerticalScrollArea(self.controlArea)
        form = self.form = gui.vBox(None, margin=0)
        scroll.setWidget(form)
        self.controlArea.layout().addWidget(scroll)
        form.installEventFilter(self)

        box = gui.vBox(form, "Split selection")
        self.estimator_combo = self._combo(
            box, "Classification:", "estimator_name",
            [(name, name) for name in CLASSIFICATION_ESTIMATORS],
            "The estimator that chooses the split in every node of a classification tree, "
            "re-estimated on the node's instances (Robnik-Šikonja & Kononenko 1999, §4)")
        self.class_stack = self._estimator_editors(
            box, CLASSIFICATION_ESTIMATORS)
        self.regression_estimator_combo = self._combo(
            box, "Regression:", "regression_estimator_name",
            [(name, name) for name in REGRESSION_ESTIMATORS],
            "The estimator that chooses the split in every node of a regression tree")
        self.regression_stack = self._estimator_editors(
            box, REGRESSION_ESTIMATORS)
        gui.doubleSpin(box, self, "switch_threshold", 0.0, 1.0, 0.05, decimals=2,
                       label="Switch to accuracy / MSE at correlation ", checked="switch",
                       callback=self.settings_changed, checkCallback=self.settings_changed,
                       controlWidth=70,
                       tooltip="In the subtree of a node where the correlation ρ of the "
                               "estimator's estimates with accuracy (MSE) reaches this, the "
                               "myopic measure chooses the splits: the dependencies there are "
                               "no longer hidden (Robnik-Šikonja & Kononenko 1999, §4, eq. 15).")

        box = gui.vBox(form, "Tree")
        gui.spin(box, self, "min_leaf", 1, 10000, label="Min. instances in leaves: ",
                 callback=self.settings_changed, alignment=Qt.AlignRight, controlWidth=70,
                 tooltip="A node is not split when a branch would get fewer instances.")
        self._combo(box, "Pruning:", "pruning", PRUNINGS,
                    "Post-pruning: a subtree is replaced by a leaf when the leaf's estimated "
                    "error (m-estimate of the probabilities, or C4.5's pessimistic upper "
                    "confidence bound) is not larger than the subtree's.")

        content = gui.vBox(None, margin=0)
        gui.checkBox(content, self, "discretize", "Discretize numeric attributes first",
                     callback=self._on_discretize_changed,
                     tooltip="Split numeric attributes into equal-width intervals before "
                             "growing, as the Π framework does (Vilalta et al. 2001, §5.1).")
        self.intervals_spin = gui.spin(
            gui.indentedBox(content), self, "n_intervals", 2, 100,
            label="Equal-width intervals: ", callback=self.settings_changed, controlWidth=70,
            tooltip="The number of equal-width intervals of each numeric attribute.")
        gui.spin(content, self, "max_depth", 1, 1000, label="Limit the depth to: ",
                 checked="limit_depth", callback=self.settings_changed,
                 checkCallback=self.settings_changed, alignment=Qt.AlignRight,
                 controlWidth=70, tooltip="Nodes at this depth are not split.")
        gui.checkBox(content, self, "stop_nonpositive", "Stop when the best estimate ≤ 0",
                     callback=self.settings_changed,
                     tooltip="A node is not split when no attribute has a positive estimate "
                             "(none looks related to the target there).")
        gui.spin(content, self, "min_majority", 51, 100,
                 label="Classification: stop at majority [%]: ",
                 checked="limit_majority", callback=self.settings_changed,
                 checkCallback=self.settings_changed, alignment=Qt.AlignRight,
                 controlWidth=70,
                 tooltip="A node whose majority class reaches this proportion is a leaf.")
        self.m_spin = gui.doubleSpin(
            content, self, "m", 0.0, 1000.0, 0.5, label="m (m-estimate): ",
            callback=self.settings_changed, controlWidth=70,
            tooltip="m of the m-estimate of probabilities in m-estimate pruning: how strongly "
                    "a node's class distribution is pulled towards its parent's.")
        self.confidence_spin = gui.doubleSpin(
            content, self, "confidence", 0.01, 0.5, 0.05, decimals=2,
            label="Confidence (pessimistic): ", callback=self.settings_changed,
            controlWidth=70,
            tooltip="Confidence level of C4.5's pessimistic error estimate (smaller prunes "
                    "more).")
        self._combo(content, "Regression leaves:", "leaf_model", LEAF_MODELS,
                    "What a regression tree's leaf predicts: the mean of its instances or a "
                    "linear model fitted on them.")
        self.advanced = Collapsible("More tree options", content, self.tree_advanced_shown)
        self.advanced.toggled.connect(self._on_tree_advanced_toggled)
        box.layout().addWidget(self.advanced)
        gui.rubber(form)
        self._update_enabled()
        self._fit_form_width()

    def eventFilter(self, obj, event):
        if obj is getattr(self, "form", None) and event.type() == QEvent.Type.LayoutRequest:
            QTimer.singleShot(0, self._fit_form_width)
        return super().eventFilter(obj, event)

    def _fit_form_width(self):
        """The scroll area as wide as the form, so that opening a section never clips the
        controls at the right (the form scrolls only vertically)."""
        self.form_scroll.setMinimumWidth(
            self.form.sizeHint().width()
            + self.form_scroll.verticalScrollBar().sizeHint().width() + 6)

    def sizeHint(self):
        """As tall as the form, at most :data:`MAX_HEIGHT` (then the form scrolls)."""
        hint = super().sizeHint()
        # a scroll area hints at a few lines; the window would show the whole form
        height = hint.height() - self.form_scroll.sizeHint().height() \
            + self.form.sizeHint().height()
        return QSize(hint.width(), min(height, MAX_HEIGHT))

    def _on_discretize_changed(self):
        self._update_enabled()
        self.settings_changed()

    def _on_advanced_toggled(self, shown):
        """The estimators' Advanced sections (of both target types) open and close together;
        the tree's options have their own toggle."""
        self.advanced_shown = shown
        self.class_stack.set_advanced_expanded(shown)
        self.regression_stack.set_advanced_expanded(shown)
        self._fit_form_width()

    def _on_tree_advanced_toggled(self, shown):
        self.tree_advanced_shown = shown
        self._fit_form_width()

    def _update_enabled(self):
        """Show the parameters of the estimator for the data's target (classification without
        data); disable the options that have no effect."""
        if not hasattr(self, "intervals_spin"):     # during the layout
            return
        target = self.data is not None and self.data.domain.class_var
        regression = bool(target) and target.is_continuous
        self.class_stack.show_editor(self.estimator_name, not regression)
        self.regression_stack.show_editor(self.regression_estimator_name, regression)
        self.intervals_spin.setEnabled(self.discretize)
        self.m_spin.setEnabled(self.pruning == "m-estimate")
        self.confidence_spin.setEnabled(self.pruning == "pessimistic")

    def update_model(self):
        self._update_enabled()          # new data may have the other target type
        super().update_model()

    # --- learner
    def learner_kwargs(self):
        return dict(
            estimator=self.class_stack.create(self.estimator_name),
            regression_estimator=self.regression_stack.create(self.regression_estimator_name),
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

    @staticmethod
    def _estimator_description(stack, name):
        return name + "".join(f", {label} {value}" for label, value in
                              (describe(k, v, stack.classes[name])
                               for k, v in stack.arguments(name).items()))

    def get_learner_parameters(self):
        pruning = dict(PRUNINGS)[self.pruning]
        if self.pruning == "m-estimate":
            pruning += f", m = {self.m:g}"
        elif self.pruning == "pessimistic":
            pruning += f", confidence {self.confidence:g}"
        return (
            ("Estimator (classification)",
             self._estimator_description(self.class_stack, self.estimator_name)),
            ("Estimator (regression)",
             self._estimator_description(self.regression_stack,
                                         self.regression_estimator_name)),
            ("Switch", f"at correlation ≥ {self.switch_threshold:g}" if self.switch else "off"),
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
