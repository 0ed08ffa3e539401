"""How the cells of Attribute Estimation's table of estimates are drawn: estimates with a bar,
the numbers of values as integers, p- and q-values to two significant digits."""
import numpy as np
from AnyQt.QtCore import Qt
from AnyQt.QtWidgets import QStyledItemDelegate

from Orange.widgets import gui

from orangecontrib.relief.widgets.numbers import format_p

__all__ = ["ScoreDelegate", "CountDelegate", "PValueDelegate"]


class ScoreDelegate(gui.ColoredBarItemDelegate):
    """The estimates of one column with a bar, formatted alike (:func:`format_scores`); a text
    (such as "removed") is shown as it is."""
    def __init__(self, parent, text):
        super().__init__(parent)
        self.text = text

    def displayText(self, value, locale=None):
        if isinstance(value, float):
            return self.text(value)
        return super().displayText(value)


class CountDelegate(QStyledItemDelegate):
    """The number of values of a categorical attribute, as an integer; nothing for a numeric
    one."""
    def displayText(self, value, locale):
        if isinstance(value, float):
            return f"{value:.0f}" if np.isfinite(value) else ""
        return super().displayText(value, locale)

    def initStyleOption(self, option, index):
        super().initStyleOption(option, index)
        option.displayAlignment = Qt.AlignRight | Qt.AlignVCenter


class PValueDelegate(QStyledItemDelegate):
    """p- and q-values to two significant digits (0.003, 1.2e-05; never 0.000)."""
    def displayText(self, value, locale):
        if isinstance(value, float):
            return format_p(value)
        return super().displayText(value, locale)

    def initStyleOption(self, option, index):
        super().initStyleOption(option, index)
        option.displayAlignment = Qt.AlignRight | Qt.AlignVCenter

