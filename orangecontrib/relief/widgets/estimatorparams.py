"""Editors for an estimator's keyword arguments, shared by the Relief widgets.

The controls are built from the estimator (scorer or learner) class itself: the keyword arguments
of its ``__init__`` that appear in :data:`PARAMETERS` get a control, initialised with the default
from the signature. So a widget shows only the parameters of the chosen estimator, and a new
estimator with the usual parameter names needs no widget code; a parameter not listed there gets
a plain control when its default is a number or a truth value (:func:`parameter`). Values are plain Python objects
(int, float, str, bool, None, tuple), so they can be stored in a widget ``Setting``.

The basic parameters are always shown, the others in a collapsible "Advanced" section; a
control whose parameter has no effect with the current values of the others (σ without the
exp-rank weighting, the ramp's thresholds with the linear diff, ...) is disabled.
"""
import inspect
import re
from dataclasses import dataclass
from typing import Callable, Optional

from AnyQt.QtCore import Qt, pyqtSignal as Signal
from AnyQt.QtWidgets import (
    QCheckBox, QComboBox, QDoubleSpinBox, QFormLayout, QHBoxLayout, QSizePolicy, QSpinBox,
    QStackedWidget, QToolButton, QVBoxLayout, QWidget
)

__all__ = ["Parameter", "PARAMETERS", "parameter", "parameter_defaults", "non_default", "ParameterEditor",
           "ParameterStack", "Collapsible", "describe"]


def _equals(name, *allowed):
    """Applies when the estimator's ``name`` is one of ``allowed`` (or it has no ``name``)."""
    return lambda values: name not in values or values[name] in allowed


def _sampled(values):
    """A seed applies when instances are sampled (``iterations`` or ``sample`` not None)."""
    sizes = [values[name] for name in ("iterations", "sample") if name in values]
    return not sizes or any(size is not None for size in sizes)


@dataclass(frozen=True)
class Parameter:
    """How one keyword argument is edited.

    ``kind`` is "int", "float", "choice", "bool" or "floats" (a tuple of floats, e.g. Π's θ).
    For "int", ``none_text`` names the value ``None`` (shown at ``low - 1``), e.g. "all" for
    ``iterations=None``; for "choice", ``choices`` maps each value to its label.
    ``advanced`` parameters are shown in the collapsible "Advanced" section; ``applies``, given
    the values of all the estimator's parameters, says whether this one has any effect (else its
    control is disabled).
    """
    label: str
    kind: str
    low: float = 0
    high: float = 0
    step: float = 1
    decimals: int = 3
    none_text: str = ""
    choices: tuple = ()
    tooltip: str = ""
    advanced: bool = False
    applies: Optional[Callable] = None


PARAMETERS = {
    "k": Parameter(
        "Nearest neighbours k:", "int", 1, 10000,
        tooltip="ReliefF: the k nearest hits and the k nearest misses (of each other class) "
                "whose diffs update the estimates for every sampled instance R; RReliefF: its "
                "k nearest instances. A larger k gives steadier but less local estimates."),
    "neighbours": Parameter(
        "Counter-examples:", "choice",
        choices=(("nearest", "K nearest"), ("all", "all")),
        tooltip="Contextual Merit: the counter-examples (instances of another class) each "
                "example is compared with — its K nearest (Hong 1997) or all of them."),
    "K": Parameter(
        "Counter-examples K:", "int", 1, 10000, none_text="automatic",
        tooltip="Contextual Merit: nearest counter-examples per example; 'automatic' = "
                "⌈log₂⌉ of the number of counter-examples, rounded up (Hong 1997).",
        applies=_equals("neighbours", "nearest")),
    "k_max": Parameter(
        "Largest k:", "int", 1, 10000, none_text="100",
        tooltip="ReliefFbestK: ReliefF is computed for every k = 1 … k_max from one neighbour "
                "search, and each attribute gets its best estimate over k (time and memory grow "
                "with k_max)."),
    "iterations": Parameter(
        "Iterations m:", "int", 1, 1000000, none_text="all instances",
        tooltip="m, the number of instances R sampled at random whose neighbours update the "
                "estimates; 'all instances' visits every instance once, in order "
                "(deterministic)."),
    "weighting": Parameter(
        "Neighbour weights:", "choice",
        choices=(("equal", "equal"), ("exp-rank", "falling with rank"), ("1/d", "inverse distance"),
                 ("1/d2", "inverse squared distance")),
        tooltip="Influence of each of the k neighbours: equal, decreasing exponentially with "
                "its rank, exp(-(rank/σ)²) (Robnik-Šikonja & Kononenko 1999, eq. 14), or "
                "inversely proportional to its distance (1/d, 1/d²)."),
    "sigma": Parameter(
        "Rank scale σ:", "float", 0.1, 1000.0, step=1.0, decimals=1,
        tooltip="σ of the exp-rank weighting: the rank at which a neighbour's influence has "
                "dropped to 1/e (used only with the exp-rank weights).",
        applies=_equals("weighting", "exp-rank")),
    "misses": Parameter(
        "Misses:", "choice", advanced=True,
        choices=(("per-class", "per class (RELIEF-F)"), ("pooled", "pooled (RELIEF-E)")),
        tooltip="RELIEF-F: k nearest misses from each other class, weighted by the class's "
                "prior probability; RELIEF-E: k nearest misses from all other classes together "
                "(Kononenko 1994)."),
    "distance": Parameter(
        "Distance:", "choice", advanced=True,
        choices=(("manhattan", "Manhattan"), ("euclidean", "Euclidean")),
        tooltip="Distance that finds the nearest neighbours: the sum of the attributes' diffs "
                "(Manhattan, as in the ReliefF papers) or the sum of their squares (Euclidean, "
                "Kira & Rendell 1992)."),
    "numeric_diff": Parameter(
        "Numeric diff:", "choice", advanced=True,
        choices=(("linear", "linear"), ("ramp", "ramp")),
        tooltip="diff of two numeric values: linear, |x − y| / (max − min) (eq. 2), or a "
                "ramp: 0 up to t_equal, 1 from t_different, linear in between (CORElearn)."),
    "t_equal": Parameter(
        "Ramp, equal up to:", "float", 0.0, 1.0, step=0.01, advanced=True,
        tooltip="Ramp diff: differences up to this fraction of the attribute's range count as "
                "equal values (diff 0).",
        applies=_equals("numeric_diff", "ramp")),
    "t_different": Parameter(
        "Ramp, different from:", "float", 0.0, 1.0, step=0.01, advanced=True,
        tooltip="Ramp diff: differences from this fraction of the attribute's range on count "
                "as different values (diff 1); linear in between.",
        applies=_equals("numeric_diff", "ramp")),
    "missing": Parameter(
        "Missing values:", "choice", advanced=True,
        choices=(("B", "RELIEF-B"), ("C", "RELIEF-C"), ("D", "RELIEF-D")),
        tooltip="diff with a missing value (Kononenko 1994): RELIEF-B "
                "1 − 1/#values; RELIEF-C the same in distances, but such diffs are left out of "
                "the estimate; RELIEF-D 1 − P(value | class), from the class-conditional "
                "probabilities."),
    "both_missing": Parameter(
        "Both missing:", "choice", advanced=True,
        choices=(("both", "classes of both"), ("current", "class of the current (CORElearn)")),
        tooltip="RELIEF-D, both values missing: diff = 1 − Σ_v P(v | class of one) "
                "P(v | class of the other), or with the class of the current instance R for "
                "both (CORElearn).",
        applies=_equals("missing", "D")),
    "numeric_bins": Parameter(
        "Bins for missing numeric:", "int", 2, 100, advanced=True,
        tooltip="Equal-width intervals of a numeric attribute in which the probabilities of "
                "its values are counted for the diffs of missing values."),
    "skip_zero_distance": Parameter(
        "Skip neighbours at distance 0", "bool", advanced=True,
        tooltip="Never take an instance at distance 0 from R (a duplicate) as its neighbour "
                "(CORElearn)."),
    "laplace": Parameter(
        "Laplace-corrected probabilities", "bool", advanced=True,
        tooltip="RELIEF-D: estimate P(value | class) as (n_vc + 1) / (n_c + #values) instead of "
                "the relative frequency (CORElearn).",
        applies=_equals("missing", "D")),
    "theta": Parameter(
        "Case weights:", "floats", 0.0, 1.0, step=0.1, decimals=2,
        tooltip="Weights of the four cases of a pair of examples in the counts {R_m} "
                "(Vilalta et al. 2001, eq. 10): same value/same class, same value/different "
                "class, different value/same class, different value/different class."),
    "alpha": Parameter(
        "Locality scale:", "float", 0.0, 100.0, step=0.1, decimals=3,
        tooltip="α of the locality function f_α (Vilalta et al. 2001, eq. 11): how fast the "
                "weight of a pair of examples falls with their distance; for 'threshold' the "
                "largest distance counted.",
        applies=lambda values: values.get("f") != "zero"),
    "f": Parameter(
        "Locality function:", "choice",
        choices=(("exp2", "exponential"), ("power", "power"),
                 ("threshold", "threshold (Relief)"), ("zero", "distance 0 only (myopic)")),
        tooltip="Locality function f_α of the distance x of two examples (Vilalta et al. "
                "2001, eq. 11): the weight of the pair in the case counts — exponential "
                "1/2^(α·x), power 1/x^α, threshold 1 if x < α, or 1 only if x = 0. "
                "'threshold' makes Π Relief (Prop. 2), 'distance 0 only' a myopic impurity "
                "measure (Prop. 1)."),
    "F": Parameter(
        "Merit function:", "choice",
        choices=(("default", "Π merit"), ("infgain", "information gain"),
                 ("gini", "Gini gain")),
        tooltip="The function that turns the case counts {R_m} into the attribute's merit "
                "(Vilalta et al. 2001, eqs. 12–13): the Π merit (eqs. 14–15), information "
                "gain or Gini gain."),
    "bins": Parameter(
        "Numeric intervals:", "int", 2, 100, advanced=True,
        tooltip="Numeric attributes are split into this many equal-width intervals, which are "
                "their values in the case counts (§5.1)."),
    "sample": Parameter(
        "Sample size s:", "int", 2, 1000000, none_text="all instances",
        tooltip="s examples drawn at random fill the case counts (every pair of them); 'all "
                "instances' uses all pairs."),
    "remove": Parameter(
        "Removed per round:", "float", 0.01, 0.99, step=0.05, decimals=2,
        tooltip="TuRF (Moore & White 2007): the share of the remaining attributes with the "
                "lowest estimates removed after each round, before the others are estimated "
                "again without them."),
    "rounds": Parameter(
        "Rounds:", "int", 1, 1000, none_text="1 / share", advanced=True,
        tooltip="TuRF: the number of removal rounds; by default the inverse of the share "
                "removed per round."),
    "keep": Parameter(
        "Stop at attributes:", "int", 1, 100000, none_text="no limit", advanced=True,
        tooltip="TuRF: stop removing when this many attributes remain."),
    "random_state": Parameter(
        "Random seed:", "int", 0, 2 ** 31 - 1, none_text="none",
        tooltip="Seed of the random sample of instances: the same seed repeats a run exactly; "
                "'none' draws a different sample every time. Used only when instances are "
                "sampled.",
        applies=_sampled),
}


def parameter_defaults(cls):
    """The editable keyword arguments of ``cls.__init__`` with their defaults (in signature
    order); ``**kwargs`` and parameters without a control are skipped. A default of None that
    stands for the class's own default (``k=None`` -> ``cls.default_k``) is replaced by it."""
    signature = inspect.signature(cls.__init__)
    defaults = {}
    for name, p in signature.parameters.items():
        if p.default is inspect.Parameter.empty:
            continue
        default = getattr(cls, f"default_{name}", p.default) if p.default is None else p.default
        if parameter(name, default, cls) is not None:
            defaults[name] = default
    # the Relief family takes its diff options as named keywords (**diff_keywords)
    named = [name for name in getattr(cls, "diff_keywords", ()) if name in PARAMETERS]
    if named:
        instance = cls()
        defaults.update({name: getattr(instance, name) for name in named})
    return defaults


#: controls made for parameters that :data:`PARAMETERS` does not list (see :func:`parameter`)
_GENERIC = {}


def parameter(name, default=None, cls=None):
    """How parameter ``name`` is edited: its entry of :data:`PARAMETERS`, or for a parameter of
    a newer estimator that is not listed there and has a number or a truth value as default, a
    plain control in the Advanced section whose tooltip is what the docstring of ``cls`` says
    about it; None if it cannot be edited (e.g. an estimator object or an unknown choice)."""
    if name in PARAMETERS:
        return PARAMETERS[name]
    if name not in _GENERIC and cls is not None and default is not None:
        tooltip = _documented(cls, name)
        if isinstance(default, bool):
            _GENERIC[name] = Parameter(name, "bool", advanced=True, tooltip=tooltip)
        elif isinstance(default, int):
            _GENERIC[name] = Parameter(f"{name}:", "int", 0, 10 ** 6, advanced=True,
                                       tooltip=tooltip)
        elif isinstance(default, float):
            _GENERIC[name] = Parameter(f"{name}:", "float", -1e6, 1e6, step=0.1, decimals=4,
                                       advanced=True, tooltip=tooltip)
    return _GENERIC.get(name)


def _documented(cls, name):
    """The sentences of ``cls``'s docstring that name ``name`` (or the class's first line)."""
    doc = " ".join((inspect.getdoc(cls) or "").split())
    sentences = [s for s in re.split(r"(?<=[.;])\s+", doc) if re.search(rf"\b{name}\b", s)]
    return " ".join(sentences) or f"{name} of {cls.__name__}: {doc.split('.')[0]}."


def non_default(cls, values):
    """The entries of ``values`` that are parameters of ``cls`` and differ from its defaults:
    the keyword arguments that construct the estimator (so its name shows only those)."""
    defaults = parameter_defaults(cls)
    return {name: value for name, value in values.items()
            if name in defaults and not _same(value, defaults[name])}


def _same(value, default):
    if isinstance(value, bool) or isinstance(default, bool):
        return value is default
    if isinstance(value, (tuple, list)) and isinstance(default, (tuple, list)):
        return tuple(value) == tuple(default)
    try:
        return bool(value == default)
    except (TypeError, ValueError):
        return False


def describe(name, value):
    """A short text for a report: the parameter's label (without the colon) and value."""
    param = parameter(name)
    label = param.label.rstrip(":")
    if value is None and param.none_text:
        return label, param.none_text
    if param.kind == "choice":
        return label, dict(param.choices).get(value, str(value))
    if param.kind == "bool":
        return label, "yes" if value else "no"
    if param.kind == "floats":
        return label, ", ".join(f"{v:g}" for v in value)
    return label, str(value)


class Collapsible(QWidget):
    """A section whose title, a button with an arrow, shows and hides its ``content``."""
    toggled = Signal(bool)

    def __init__(self, title, content, expanded=False, parent=None):
        super().__init__(parent)
        self.content = content
        self.button = QToolButton(text=title, checkable=True, checked=expanded,
                                  toolButtonStyle=Qt.ToolButtonStyle.ToolButtonTextBesideIcon,
                                  autoRaise=True)
        self.button.toggled.connect(self.set_expanded)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.button)
        layout.addWidget(content)
        self.set_expanded(expanded)

    def set_expanded(self, expanded):
        self.button.setChecked(expanded)
        self.button.setArrowType(Qt.ArrowType.DownArrow if expanded else Qt.ArrowType.RightArrow)
        if self.content.isVisibleTo(self) != expanded:
            self.content.setVisible(expanded)
            self.toggled.emit(expanded)

    def is_expanded(self):
        return self.button.isChecked()


class ParameterEditor(QWidget):
    """A form with one control per editable keyword argument of an estimator class: the basic
    parameters, then the advanced ones in a :class:`Collapsible` section (``self.advanced``,
    None when the estimator has none).

    ``values`` (a dict) is edited in place, so a widget can keep it inside a ``Setting``;
    missing entries are filled from the signature's defaults, entries of a different type
    than the control's (e.g. from an older version) are replaced by the default, and entries
    that are not parameters of ``cls`` (removed or renamed ones) are dropped.
    ``changed`` is emitted after every edit.
    """
    changed = Signal()

    def __init__(self, cls, values, advanced_expanded=False, parent=None):
        super().__init__(parent)
        self.values = values
        self.defaults = parameter_defaults(cls)
        for name in set(values) - set(self.defaults):
            del values[name]
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        forms = {False: QFormLayout(), True: QFormLayout()}
        self.controls = {}
        self.labels = {}
        for name, default in self.defaults.items():
            param = parameter(name)
            value = values.get(name, default)
            if not _valid(param, value, default):
                value = default
            values[name] = value
            control = self._make(name, param, value)
            control.setToolTip(param.tooltip)
            self.controls[name] = control
            form = forms[param.advanced]
            if param.kind == "bool":
                form.addRow(control)
            else:
                form.addRow(param.label, control)
                self.labels[name] = form.labelForField(control)
                self.labels[name].setToolTip(param.tooltip)
        layout.addLayout(forms[False])
        self.advanced = None
        if forms[True].rowCount():
            content = QWidget()
            content.setLayout(forms[True])
            self.advanced = Collapsible("Advanced", content, advanced_expanded)
            layout.addWidget(self.advanced)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        self._update_enabled()

    def arguments(self, cls):
        """The keyword arguments that construct ``cls`` with these values (the non-default
        ones, see :func:`non_default`)."""
        return non_default(cls, self.values)

    def _update_enabled(self):
        for name, control in self.controls.items():
            applies = parameter(name).applies
            enabled = applies is None or bool(applies(self.values))
            control.setEnabled(enabled)
            if name in self.labels:
                self.labels[name].setEnabled(enabled)

    def _make(self, name, param, value):
        def store(v):
            self.values[name] = v
            self._update_enabled()
            self.changed.emit()

        if param.kind == "int":
            spin = QSpinBox(minimum=int(param.low) - bool(param.none_text),
                            maximum=int(param.high), singleStep=int(param.step))
            if param.none_text:
                spin.setSpecialValueText(param.none_text)
            spin.setValue(spin.minimum() if value is None else int(value))
            spin.valueChanged.connect(
                lambda v: store(None if param.none_text and v == spin.minimum() else v))
            return spin
        if param.kind == "float":
            spin = _double_spin(param, value)
            spin.valueChanged.connect(store)
            return spin
        if param.kind == "bool":
            box = QCheckBox(param.label, checked=bool(value))
            box.toggled.connect(store)
            return box
        if param.kind == "choice":
            combo = QComboBox()
            values = [v for v, _ in param.choices]
            if value not in values:          # a choice this table does not know: keep it
                values.append(value)
            for v in values:
                combo.addItem(dict(param.choices).get(v, str(v)), v)
            combo.setCurrentIndex(values.index(value))
            combo.activated.connect(lambda i: store(combo.itemData(i)))
            return combo
        assert param.kind == "floats"
        row = QWidget()
        box = QHBoxLayout(row)
        box.setContentsMargins(0, 0, 0, 0)
        spins = [_double_spin(param, v) for v in value]
        for spin in spins:
            box.addWidget(spin)
            spin.valueChanged.connect(lambda _: store(tuple(s.value() for s in spins)))
        return row


def _double_spin(param, value):
    spin = QDoubleSpinBox(minimum=param.low, maximum=param.high, singleStep=param.step,
                          decimals=param.decimals)
    spin.setValue(value)
    return spin


def _valid(param, value, default):
    if param.kind == "floats":
        return isinstance(value, (tuple, list)) and len(value) == len(default)
    if value is None:
        return bool(param.none_text) or param.kind == "choice" and default is None
    if param.kind == "choice":
        return isinstance(value, str) or type(value) is type(default)
    if param.kind == "bool":
        return isinstance(value, bool)
    return isinstance(value, (int, float)) and not isinstance(value, bool)


class ParameterStack(QStackedWidget):
    """One :class:`ParameterEditor` per estimator class of ``classes`` ({name: class}), of
    which the current one is shown (and sized for: the others do not stretch it). ``values``
    holds each estimator's values by name (a widget ``Setting``); the Advanced sections of all
    editors open and close together. ``changed`` is emitted after an edit, ``advanced_toggled``
    when the Advanced sections open or close."""
    changed = Signal()
    advanced_toggled = Signal(bool)

    def __init__(self, classes, values, advanced_expanded=False, parent=None):
        super().__init__(parent)
        self.classes = classes
        self.editors = {}
        self._expanded = advanced_expanded
        for name, cls in classes.items():
            editor = ParameterEditor(cls, values.setdefault(name, {}), advanced_expanded)
            editor.changed.connect(self.changed)
            if editor.advanced is not None:
                editor.advanced.toggled.connect(self.set_advanced_expanded)
            self.editors[name] = editor
            self.addWidget(editor)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)

    def show_editor(self, name, shown=True):
        """Show the parameters of estimator ``name`` (nothing if it has none, or if not
        ``shown``)."""
        self.setCurrentWidget(self.editors[name])
        self.setVisible(shown and bool(self.editors[name].defaults))
        self.updateGeometry()

    def arguments(self, name):
        """The non-default keyword arguments of estimator ``name`` (see :func:`non_default`)."""
        return self.editors[name].arguments(self.classes[name])

    def create(self, name):
        """Estimator ``name`` constructed with its non-default parameters."""
        return self.classes[name](**self.arguments(name))

    def set_advanced_expanded(self, shown):
        if shown == self._expanded:
            return
        self._expanded = shown
        for editor in self.editors.values():
            if editor.advanced is not None:
                editor.advanced.set_expanded(shown)
        self.updateGeometry()
        self.advanced_toggled.emit(shown)

    def sizeHint(self):
        current = self.currentWidget()
        return current.sizeHint() if current is not None else super().sizeHint()

    def minimumSizeHint(self):
        current = self.currentWidget()
        return current.minimumSizeHint() if current is not None else super().minimumSizeHint()
