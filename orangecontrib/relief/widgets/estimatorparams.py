"""Editors for an estimator's keyword arguments, shared by the Relief widgets.

The controls are built from the estimator (scorer or learner) class itself: the keyword arguments
of its ``__init__`` that appear in :data:`PARAMETERS` get a control, initialised with the default
from the signature. So a widget shows only the parameters of the chosen estimator, and a new
estimator with the usual parameter names needs no widget code. Values are plain Python objects
(int, float, str, bool, None, tuple), so they can be stored in a widget ``Setting``.
"""
import inspect
from dataclasses import dataclass

from AnyQt.QtCore import pyqtSignal as Signal
from AnyQt.QtWidgets import (
    QCheckBox, QComboBox, QDoubleSpinBox, QFormLayout, QHBoxLayout, QSpinBox, QWidget
)

__all__ = ["Parameter", "PARAMETERS", "parameter_defaults", "ParameterEditor", "describe"]


@dataclass(frozen=True)
class Parameter:
    """How one keyword argument is edited.

    ``kind`` is "int", "float", "choice", "bool" or "floats" (a tuple of floats, e.g. Π's θ).
    For "int", ``none_text`` names the value ``None`` (shown at ``low - 1``), e.g. "all" for
    ``iterations=None``; for "choice", ``choices`` maps each value to its label.
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


PARAMETERS = {
    "k": Parameter("Nearest neighbours k:", "int", 1, 10000,
                   tooltip="k nearest hits and misses (ReliefF) or neighbours (RReliefF)"),
    "neighbours": Parameter("Counter-examples:", "choice",
                            choices=(("nearest", "K nearest (Hong)"), ("all", "all (Prop. 2)"))),
    "K": Parameter("Counter-examples K:", "int", 1, 10000, none_text="⌈log₂⌉",
                   tooltip="nearest counter-examples per example; ⌈log₂⌉ = ⌈log₂ of the "
                           "number of counter-examples⌉ (Hong)"),
    "k_max": Parameter("Largest k:", "int", 1, 10000, none_text="100",
                       tooltip="ReliefFbestK: each attribute's best estimate over k = 1..k_max"),
    "iterations": Parameter("Iterations m:", "int", 1, 1000000, none_text="all instances",
                            tooltip="instances sampled; 'all instances' visits each one once"),
    "weighting": Parameter("Neighbour weights:", "choice",
                           choices=(("equal", "equal"), ("exp-rank", "exp(-(rank/σ)²)"),
                                    ("1/d", "1/d"), ("1/d2", "1/d²"))),
    "sigma": Parameter("σ:", "float", 0.1, 1000.0, step=1.0, decimals=1,
                       tooltip="width of the exponential rank weighting"),
    "misses": Parameter("Misses:", "choice",
                        choices=(("per-class", "per class (RELIEF-F)"),
                                 ("pooled", "pooled (RELIEF-E)"))),
    "distance": Parameter("Distance:", "choice",
                          choices=(("manhattan", "Manhattan"), ("euclidean", "Euclidean"))),
    "numeric_diff": Parameter("Numeric diff:", "choice",
                              choices=(("linear", "linear |x−y|/range"), ("ramp", "ramp"))),
    "t_equal": Parameter("Ramp t_equal:", "float", 0.0, 1.0, step=0.01),
    "t_different": Parameter("Ramp t_different:", "float", 0.0, 1.0, step=0.01),
    "missing": Parameter("Missing values:", "choice",
                         choices=(("B", "RELIEF-B"), ("C", "RELIEF-C"), ("D", "RELIEF-D"))),
    "both_missing": Parameter("Both missing:", "choice",
                              choices=(("both", "classes of both"),
                                       ("current", "class of the current (CORElearn)"))),
    "numeric_bins": Parameter("Bins for missing numeric:", "int", 2, 100),
    "skip_zero_distance": Parameter("Skip neighbours at distance 0", "bool"),
    "laplace": Parameter("Laplace-corrected probabilities", "bool"),
    "theta": Parameter("θ1…θ4:", "floats", 0.0, 1.0, step=0.1, decimals=2,
                       tooltip="weights of the four cases: same value/same class, same value/"
                               "different class, different value/same class, different value/"
                               "different class"),
    "alpha": Parameter("α:", "float", 0.0, 100.0, step=0.1, decimals=3),
    "f": Parameter("f_α(x):", "choice",
                   choices=(("exp2", "1/2^(α·x)"), ("power", "1/x^α"),
                            ("threshold", "1 if x < α (Prop. 2)"),
                            ("zero", "1 if x = 0 (Prop. 1)"))),
    "F": Parameter("F:", "choice",
                   choices=(("default", "eqs. 14–15"), ("infgain", "information gain"),
                            ("gini", "Gini gain"))),
    "bins": Parameter("Numeric intervals:", "int", 2, 100),
    "sample": Parameter("Sample size s:", "int", 2, 1000000, none_text="all instances"),
    "random_state": Parameter("Random seed:", "int", 0, 2 ** 31 - 1, none_text="none"),
}


def parameter_defaults(cls):
    """The editable keyword arguments of ``cls.__init__`` with their defaults (in signature
    order); ``**kwargs`` and parameters without a control are skipped. A default of None that
    stands for the class's own default (``k=None`` -> ``cls.default_k``) is replaced by it."""
    signature = inspect.signature(cls.__init__)
    defaults = {name: getattr(cls, f"default_{name}", p.default) if p.default is None
                else p.default
                for name, p in signature.parameters.items()
                if name in PARAMETERS and p.default is not inspect.Parameter.empty}
    # the Relief family takes its diff options as named keywords (**diff_keywords)
    named = [name for name in getattr(cls, "diff_keywords", ()) if name in PARAMETERS]
    if named:
        instance = cls()
        defaults.update({name: getattr(instance, name) for name in named})
    return defaults


def describe(name, value):
    """A short text for a report: the parameter's label (without the colon) and value."""
    param = PARAMETERS[name]
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


class ParameterEditor(QWidget):
    """A form with one control per editable keyword argument of an estimator class.

    ``values`` (a dict) is edited in place, so a widget can keep it inside a ``Setting``;
    missing entries are filled from the signature's defaults and entries of a different type
    than the control's (e.g. from an older version) are replaced by the default.
    ``changed`` is emitted after every edit.
    """
    changed = Signal()

    def __init__(self, cls, values, parent=None):
        super().__init__(parent)
        self.values = values
        self.defaults = parameter_defaults(cls)
        layout = QFormLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.controls = {}
        for name, default in self.defaults.items():
            param = PARAMETERS[name]
            value = values.get(name, default)
            if not _valid(param, value, default):
                value = default
            values[name] = value
            control = self._make(name, param, value)
            control.setToolTip(param.tooltip)
            self.controls[name] = control
            if param.kind == "bool":
                layout.addRow(control)
            else:
                layout.addRow(param.label, control)

    def _make(self, name, param, value):
        def store(v):
            self.values[name] = v
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
