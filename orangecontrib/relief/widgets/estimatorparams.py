"""Editors for an estimator's keyword arguments, shared by the Relief widgets.

The controls are derived from the estimator's description (:mod:`..estimators.description`):
each parameter its class declares (``parameters``, a tuple of ``Param``) gets a control of its
kind ("int", "float", "seed", "choice", "bool", "floats"), its label, range, choices and
tooltip, initialised with its default (a default of None that stands for the class's own,
``k=None`` -> ``cls.default_k``, shows that value). So a widget shows only the parameters of the
chosen estimator, and a new estimator needs no widget code. Parameters that take an estimator
(TuRF's base, MultiScale Relief's list) get no control. Values are plain Python objects (int,
float, str, bool, None, tuple), so they can be stored in a widget ``Setting``.

The basic parameters are always shown, the others in a collapsible "Advanced" section; a
control whose parameter has no effect with the current values of the others (``applies``: σ
without the rank weighting, the ramp's thresholds with the linear diff, ...) is disabled.
"""
from AnyQt.QtCore import Qt, pyqtSignal as Signal
from AnyQt.QtWidgets import (
    QCheckBox, QComboBox, QDoubleSpinBox, QFormLayout, QHBoxLayout, QSizePolicy, QSpinBox,
    QStackedWidget, QToolButton, QVBoxLayout, QWidget
)

from orangecontrib.relief.estimators.description import parameter_defaults as declared_defaults
from orangecontrib.relief.estimators.description import same_value

__all__ = ["editable", "parameter_defaults", "non_default", "ParameterEditor", "ParameterStack",
           "Collapsible", "describe"]

#: the kinds of parameters that get a control
EDITABLE_KINDS = ("int", "float", "seed", "choice", "bool", "floats")
#: the largest value of a numeric control whose parameter has no upper bound
MAXIMUM = 10 ** 6


def editable(cls):
    """{name: Param} of the parameters of ``cls`` that get a control, in declaration order."""
    return {param.name: param for param in cls.parameters if param.kind in EDITABLE_KINDS}


def parameter_defaults(cls):
    """The editable parameters of ``cls`` with their defaults (in declaration order); a
    default of None that stands for the class's own default (``k=None`` ->
    ``cls.default_k``) is replaced by it."""
    defaults = declared_defaults(cls)
    return {name: defaults[name] for name in editable(cls)}


def non_default(cls, values):
    """The entries of ``values`` that are parameters of ``cls`` and differ from its defaults:
    the keyword arguments that construct the estimator (so its name shows only those)."""
    defaults = parameter_defaults(cls)
    return {name: value for name, value in values.items()
            if name in defaults and not same_value(value, defaults[name])}


def _none_text(param, default):
    """The text of None in a control (its lowest value), or "" when it offers no None: None
    is offered where the declaration allows it and it is the default, not a stand-in for the
    class's own default."""
    return param.none if param.none and default is None else ""


def describe(name, value, cls):
    """A short text for a report: the label of ``cls``'s parameter ``name`` and its value."""
    param = editable(cls)[name]
    if value is None and param.none:
        return param.label, param.none
    if param.kind == "choice":
        return param.label, dict(param.choices).get(value, str(value))
    if param.kind == "bool":
        return param.label, "yes" if value else "no"
    if param.kind == "floats":
        return param.label, ", ".join(f"{v:g}" for v in value)
    return param.label, str(value)


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
    """A form with one control per editable parameter an estimator class declares: the basic
    parameters, then the advanced ones in a :class:`Collapsible` section (``self.advanced``,
    None when the estimator has none).

    ``values`` (a dict) is edited in place, so a widget can keep it inside a ``Setting``;
    missing entries are filled from the declared defaults, entries the declaration does not
    accept (e.g. of another type, from an older version) are replaced by the default, and
    entries that are not parameters of ``cls`` (removed or renamed ones) are dropped.
    ``changed`` is emitted after every edit.
    """
    changed = Signal()

    def __init__(self, cls, values, advanced_expanded=False, parent=None):
        super().__init__(parent)
        self.values = values
        self.params = editable(cls)
        self.defaults = parameter_defaults(cls)
        for name in set(values) - set(self.defaults):
            del values[name]
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        forms = {False: QFormLayout(), True: QFormLayout()}
        self.controls = {}
        self.labels = {}
        for name, default in self.defaults.items():
            param = self.params[name]
            value = values.get(name, default)
            if not _valid(param, value, default):
                value = default
            values[name] = value
            control = self._make(name, param, value, _none_text(param, default))
            control.setToolTip(param.tooltip)
            self.controls[name] = control
            form = forms[param.advanced]
            if param.kind == "bool":
                form.addRow(control)
            else:
                form.addRow(param.label + ":", control)
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
            applies = self.params[name].applies
            enabled = applies is None or bool(applies(self.values))
            control.setEnabled(enabled)
            if name in self.labels:
                self.labels[name].setEnabled(enabled)

    def _make(self, name, param, value, none_text):
        def store(v):
            self.values[name] = v
            self._update_enabled()
            self.changed.emit()

        if param.kind in ("int", "seed"):
            spin = QSpinBox(minimum=int(param.low or 0) - bool(none_text),
                            maximum=int(_maximum(param)), singleStep=int(param.step))
            if none_text:
                spin.setSpecialValueText(none_text)
            spin.setValue(spin.minimum() if value is None else int(value))
            spin.valueChanged.connect(
                lambda v: store(None if none_text and v == spin.minimum() else v))
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


def _maximum(param):
    """The largest value of a numeric control: the declared bound, else its ``maximum``."""
    high = param.high if isinstance(param.high, (int, float)) else None
    return next(v for v in (high, param.maximum, MAXIMUM) if v is not None)


def _double_spin(param, value):
    step = 10.0 ** -param.decimals
    low = (param.low or 0.0) + (step if param.low_open else 0.0)
    high = _maximum(param) - (step if param.high_open and param.high is not None else 0.0)
    spin = QDoubleSpinBox(minimum=low, maximum=high, singleStep=param.step,
                          decimals=param.decimals)
    spin.setValue(value)
    return spin


def _valid(param, value, default):
    """Whether a stored ``value`` (e.g. from an older version's settings) suits the control:
    the declaration accepts it, and None only where the control offers it."""
    if value is None:
        return bool(_none_text(param, default))
    return param.accepts(value)


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

    def create(self, name, **keywords):
        """Estimator ``name`` constructed with its non-default parameters (and ``keywords``,
        such as a scorer's covariates)."""
        return self.classes[name](**self.arguments(name), **keywords)

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
