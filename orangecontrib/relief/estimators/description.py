"""The declarative description of an estimator's parameters, and their validation in one place.

Every estimator class declares its keyword arguments once, as a tuple of :class:`Param` in its
class attribute ``parameters`` (beside ``name``, ``display_name``, ``tasks``, ``paper`` and its
capabilities, see :class:`.base.Estimator`). From that declaration:

* :func:`validate` checks an estimator's values when it runs (a ``ValueError`` that names the
  parameter and the values it allows, e.g. "k must be an integer >= 1, got 0");
* the widgets build their editors (label, range, choices, tooltip, basic or advanced);
* the scikit-learn selectors, the command line's ``estimators`` listing and ``--param`` checking
  and the documentation's estimator table are derived (:func:`estimator_rows`,
  :func:`markdown_table`).

The model is scikit-learn's ``_parameter_constraints`` (constraints declared once, checked in one
place) together with Orange's scorers, whose capabilities are class attributes. This module
imports nothing beyond the standard library and numpy.
"""
import math
from dataclasses import dataclass, field
from typing import Callable, Optional

import numpy as np

__all__ = ["Param", "AttributeEstimator", "N_INSTANCES", "validate", "parameter_defaults",
           "same_value", "short_label", "estimator_rows", "markdown_table", "TARGETS"]

#: an upper bound that stands for the number of instances of the data (known when it runs)
N_INSTANCES = "n_instances"

#: the plain words of the target types
TARGETS = {"classification": "categorical", "regression": "numeric"}


def _is_int(value):
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _is_number(value):
    return isinstance(value, (int, float, np.integer, np.floating)) \
        and not isinstance(value, (bool, np.bool_))


class AttributeEstimator:
    """What a parameter of the kind "estimator" takes (and "estimators", a sequence of them):
    an attribute estimator, an instance of :class:`.base.Estimator`, which derives from this
    class so that this module need not import the module that imports it."""


@dataclass(frozen=True)
class Param:
    """One keyword argument of an estimator.

    ``kind``: "int", "float", "choice" (one of ``choices``, pairs of value and label), "bool",
    "floats" (``size`` numbers, e.g. Π's case weights), "seed" (None, an int or a numpy
    Generator), "estimator" (an attribute estimator) or "estimators" (a non-empty sequence of
    them). ``low`` and ``high`` bound numbers (``low_open`` / ``high_open``: the bound itself is
    excluded; ``high`` may be :data:`N_INSTANCES`). ``none``: what ``None`` means ("" when None
    is not allowed); ``callable``: a callable is allowed too (described by ``callable``).
    ``label`` (plain words) and ``tooltip`` (which may carry the equation and the paper) are
    what the widgets show; ``advanced`` parameters sit in their "Advanced" section; ``applies``,
    given the values of all parameters, says whether this one has any effect (the widgets
    disable it otherwise). ``maximum`` (the largest value an editor offers where ``high`` sets
    no bound), ``step`` and ``decimals`` guide a numeric editor.
    """
    name: str
    kind: str
    default: object = None
    label: str = ""
    tooltip: str = ""
    low: Optional[float] = None
    high: object = None
    low_open: bool = False
    high_open: bool = False
    none: str = ""
    choices: tuple = ()
    size: int = 0
    callable: str = ""
    maximum: Optional[float] = None
    advanced: bool = False
    applies: Optional[Callable] = field(default=None, compare=False)
    step: float = 1
    decimals: int = 3

    def allowed(self, n_instances=None):
        """The values this parameter takes, in words: "an integer >= 1", "one of 'a', 'b'",
        ... (:data:`N_INSTANCES` as ``n_instances`` when that is given)."""
        high = self.high
        if high == N_INSTANCES:
            high = n_instances
        if self.kind in ("int", "float"):
            what = "an integer" if self.kind == "int" else "a number"
            if self.low is not None and high is not None:
                if self.kind == "int" and not (self.low_open or self.high_open):
                    text = f"{what} in {self.low:g}..{high:g}"
                    if self.high == N_INSTANCES:
                        text += " (the number of instances)"
                else:
                    text = (f"{what} in {'(' if self.low_open else '['}{self.low:g}, "
                            f"{high:g}{')' if self.high_open else ']'}")
            elif self.low is not None:
                text = f"{what} {'>' if self.low_open else '>='} {self.low:g}"
            elif high is not None:
                text = f"{what} {'<' if self.high_open else '<='} {high:g}"
            else:
                text = what
        elif self.kind == "choice":
            names = [repr(value) for value, _ in self.choices]
            text = (" or ".join(names) if len(names) == 2
                    else f"one of {', '.join(names)}")
        elif self.kind == "bool":
            text = "True or False"
        elif self.kind == "floats":
            text = f"{self.size} numbers in [{self.low:g}, {self.high:g}]"
        elif self.kind == "seed":
            text = "an int or a numpy Generator"
        elif self.kind == "estimator":
            text = "an attribute estimator"
        elif self.kind == "estimators":
            text = "a non-empty sequence of attribute estimators"
        else:
            raise ValueError(f"unknown kind of parameter {self.kind!r}")
        if self.callable:
            text += f" or {self.callable}"
        if not self.none:
            return text
        return f"None, {text}" if self.kind == "seed" else f"None or {text}"

    def accepts(self, value, n_instances=None):
        """Whether ``value`` is allowed (``n_instances`` resolves :data:`N_INSTANCES`)."""
        if value is None:
            return bool(self.none)
        if self.callable and callable(value):
            return True
        kind = self.kind
        if kind in ("int", "float"):
            if not (_is_int(value) if kind == "int" else _is_number(value)):
                return False
            if not math.isfinite(value):
                return False
            high = n_instances if self.high == N_INSTANCES else self.high
            if self.low is not None and (value <= self.low if self.low_open
                                         else value < self.low):
                return False
            return high is None or (value < high if self.high_open else value <= high)
        if kind == "choice":
            return any(_equal(value, choice) for choice, _ in self.choices)
        if kind == "bool":
            return isinstance(value, (bool, np.bool_))
        if kind == "floats":
            if np.ndim(value) != 1 or len(value) != self.size \
                    or not all(_is_number(v) for v in value):
                return False
            values = np.asarray(value, dtype=float)
            return bool(np.all((values >= self.low) & (values <= self.high)))
        if kind == "seed":
            return _is_int(value) or isinstance(value, np.random.Generator)
        if kind == "estimator":
            return isinstance(value, AttributeEstimator)
        try:
            values = tuple(value)
        except TypeError:
            return False
        return bool(values) and all(isinstance(v, AttributeEstimator) for v in values)

    def check(self, value, n_instances=None):
        """Raise ``ValueError`` naming this parameter and its allowed values when ``value`` is
        not one of them."""
        if not self.accepts(value, n_instances):
            raise ValueError(f"{self.name} must be {self.allowed(n_instances)}, "
                             f"got {value!r}")


def _equal(value, choice):
    """``value`` is the choice (of its type: 1 is not the choice True, nor "1" the choice 1)."""
    try:
        return isinstance(value, type(choice)) \
            and isinstance(value, bool) == isinstance(choice, bool) and bool(value == choice)
    except (TypeError, ValueError):
        return False


def same_value(value, default):
    """Whether a parameter's ``value`` is its ``default`` (True and 1 differ; tuples and lists
    of equal items are the same)."""
    if isinstance(value, (bool, np.bool_)) or isinstance(default, (bool, np.bool_)):
        return isinstance(value, (bool, np.bool_)) and isinstance(default, (bool, np.bool_)) \
            and bool(value) == bool(default)
    if isinstance(value, (tuple, list)) and isinstance(default, (tuple, list)):
        return tuple(value) == tuple(default)
    try:
        return bool(value == default)
    except (TypeError, ValueError):
        return value is default


def validate(estimator, n_instances=None):
    """Check every declared parameter of ``estimator`` (its class's ``parameters``) and its
    class's ``rules`` (constraints between parameters: functions of the estimator that return a
    message or None); raise ``ValueError`` with the first problem. ``n_instances``: the number
    of instances of the data it is about to run on (bounds such as ``iterations <= N``), or None
    before there are data."""
    for param in type(estimator).parameters:
        param.check(getattr(estimator, param.name), n_instances)
    for rule in type(estimator).rules:
        message = rule(estimator)
        if message:
            raise ValueError(message)


def parameter_defaults(cls):
    """{name: default} of ``cls``'s declared parameters. A default of None that stands for the
    class's own default (``k=None`` -> ``cls.default_k``) is replaced by it."""
    return {param.name: getattr(cls, f"default_{param.name}", None)
            if param.default is None else param.default for param in cls.parameters}


def short_label(estimator):
    """The estimator's name in narrow column headers such as Orange's Rank: its short name
    (:meth:`~.base.Estimator.own_short_name`), the parameters it always names (ReliefF's and
    RReliefF's k, compactly: "RF k10") and those that differ from their defaults
    ("RF k5 missing=B")."""
    cls = type(estimator)
    named = estimator.named_parameters()
    changed = {key: value for key, value in estimator.changed_parameters().items()
               if key not in named}
    return " ".join([cls.own_short_name()]
                    + [f"{key}{value}" for key, value in named.items()]
                    + [f"{key}={value}" for key, value in changed.items()])


def estimator_rows(classes):
    """One row per estimator class for listings (the command line, the documentation): its
    class name, display name, name in Rank (:func:`short_label`), targets, basic parameters
    with their defaults, advanced parameters, capabilities and paper."""
    rows = []
    for cls in classes:
        defaults = parameter_defaults(cls)

        def shown(param):
            value = defaults[param.name]
            if value is None and param.none and param.kind != "seed":
                return f"{param.name}=None ({param.none})"
            return f"{param.name}={_text(value)}"
        rows.append({
            "class": cls.__name__,
            "name": cls.display_name or cls.name,
            "short": short_label(cls()),
            "targets": " and ".join(TARGETS[t] for t in ("classification", "regression")
                                    if t in cls.tasks),
            "parameters": ", ".join(shown(p) for p in cls.parameters if not p.advanced),
            "advanced": ", ".join(p.name for p in cls.parameters if p.advanced),
            "capabilities": ", ".join(cls.capabilities()),
            "paper": cls.paper,
        })
    return rows


def _text(value):
    if isinstance(value, tuple):
        return "(" + ", ".join(f"{v:g}" if _is_number(v) else str(v) for v in value) + ")"
    return str(value)


def markdown_table(classes):
    """The estimator table of the documentation (Markdown) from :func:`estimator_rows`."""
    header = ("Class", "Name", "In Rank", "Target", "Parameters (defaults)",
              "Advanced parameters", "Also", "Paper")
    keys = ("class", "name", "short", "targets", "parameters", "advanced", "capabilities",
            "paper")
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row in estimator_rows(classes):
        cells = [f"`{row['class']}`"] + [row[key].replace("|", "\\|") or "—"
                                          for key in keys[1:]]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"
