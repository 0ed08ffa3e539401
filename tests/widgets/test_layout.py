"""Every widget in every state of the help's screenshots (doc/widget_screenshots.py: sections
open, estimators compared, 60-character names, 2,000 attributes, data and estimator changed):
it fits a 1366 x 768 screen, its minimum height is at most 700 px, and at the size it opens with
no header, cell, spin box or combo box text is elided (a name longer than the table's name
column is shortened in the middle, "…", its tooltip in full); a table wider than its pane shows
the column it is sorted by and, while its columns scroll, the attributes' names. Each state is checked at the default font and at 12 pt DejaVu Sans
(the common Linux desktop font; where it is not installed, the default family enlarged until it
is as wide)."""
import importlib.util
import os

from AnyQt.QtCore import QPoint, Qt
from AnyQt.QtGui import QFontMetrics
from AnyQt.QtWidgets import (QAbstractSpinBox, QApplication, QCheckBox, QComboBox, QHeaderView,
                             QLabel, QScrollArea, QTableView, QWidget)
from Orange.widgets.tests.base import WidgetTest

from fonts import SAMPLE, SAMPLE_WIDTH, BigFont

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_spec = importlib.util.spec_from_file_location(
    "widget_screenshots", os.path.join(ROOT, "doc", "widget_screenshots.py"))
screenshots = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(screenshots)

SCREEN_WIDTH, SCREEN_HEIGHT = screenshots.SCREEN
STATES = screenshots.STATES

#: names shortened in the middle are at least this many average characters wide at the default
#: font (the widgets show names of up to 40 characters in full)
NAME_CHARACTERS = 40


def visible(widget, cls):
    """The children of ``widget`` of class ``cls`` that are shown."""
    return [child for child in widget.findChildren(cls) if child.isVisibleTo(widget)]


def elided_in_table(view, name_characters=NAME_CHARACTERS):
    """The headers and columns of ``view`` narrower than their text: [(what, needed, width)].
    The names' columns (the model's ``name_columns``, else the first) of a view that shortens
    texts in the middle may be narrower than their longest name if they are
    ``name_characters`` average characters wide and their cells' tooltips hold the names in
    full."""
    problems = []
    model = view.model()
    header = view.horizontalHeader()
    name_columns = getattr(model, "name_columns", (0,))
    for c in range(model.columnCount()):
        if header.isSectionHidden(c):
            continue
        width = view.columnWidth(c)
        name = model.headerData(c, header.orientation())
        text_width = header.fontMetrics().horizontalAdvance(str(name or "").split("\n")[0])
        cells = view.sizeHintForColumn(c)
        if c in name_columns and view.textElideMode() == Qt.ElideMiddle \
                and width >= name_characters * view.fontMetrics().averageCharWidth() \
                and all(model.index(r, c).data(Qt.DisplayRole)
                        in str(model.index(r, c).data(Qt.ToolTipRole))
                        for r in range(min(model.rowCount(), 50))):
            cells = 0
        needed = max(cells, header.sectionSizeHint(c), text_width)
        if needed > width:
            problems.append((f"column {c} ({name!r})", needed, width))
    return problems


def names_overlays(view):
    """The tables lying over ``view`` that show its first column (the names) while its other
    columns scroll."""
    return [child for child in view.findChildren(QTableView)
            if child.isVisibleTo(view) and child.model() is view.model()
            and not child.isColumnHidden(0)]


def column_hidden(view, column, covered=0):
    """How many pixels of ``column`` are out of ``view``'s viewport or under its leftmost
    ``covered`` pixels."""
    left = view.columnViewportPosition(column)
    right = left + view.columnWidth(column)
    return max(0, covered - left) + max(0, right - view.viewport().width())


def sorted_column_hidden(view):
    """How many pixels of the column ``view`` is sorted by are out of view or under the names
    that stay in view (0: none)."""
    column = view.horizontalHeader().sortIndicatorSection()
    if column < 0:
        return 0
    covered = max((overlay.geometry().right() + 1 - view.viewport().x()
                   for overlay in names_overlays(view)), default=0)
    return column_hidden(view, column, covered if column else 0)


def names_hidden(view):
    """How many pixels of the names' cells (the first column) of the rows in view are out of
    view (0: none): in ``view`` itself or in a table over it that shows them on the same rows
    (whose viewport is inside ``view``'s)."""
    hidden = [column_hidden(view, 0)]
    top = view.rowAt(0)
    for overlay in names_overlays(view):
        corner = overlay.viewport().mapTo(view, QPoint(0, 0)) - view.viewport().pos()
        inside = corner.x() >= 0 and corner.x() + overlay.viewport().width() \
            <= view.viewport().width()
        same_rows = overlay.rowViewportPosition(top) + corner.y() \
            == view.rowViewportPosition(top)
        if inside and same_rows:
            hidden.append(column_hidden(overlay, 0))
    return min(hidden)


def hidden_columns(view):
    """Columns of ``view`` beyond its visible width (the table would need scrolling)."""
    widths = sum(view.columnWidth(c) for c in range(view.model().columnCount()))
    return widths - view.viewport().width()


class TestLayout(WidgetTest):
    #: the narrowest a column of names shortened in the middle may be, in average characters
    name_characters = NAME_CHARACTERS

    def setUp(self):
        super().setUp()
        self._widget = None

    @property
    def widget(self):
        """WidgetTest's own checks (minimum size, image export, messages) on one of ours:
        created when one of those checks asks for it, not for each state's test (which
        creates the widget it checks)."""
        if self._widget is None:
            self._widget = self.create_widget(STATES[0].widget_class())
        return self._widget

    def test_the_checks_see_an_elided_column_and_a_clipped_spin_box(self):
        state = STATES[1]
        widget = self.create_widget(state.widget_class())
        screenshots.show(QApplication.instance(), state, widget)
        view = widget.ranks_view
        view.setColumnWidth(3, 12)                        # the p-values' column
        self.assertEqual([what for what, *_ in elided_in_table(view)], ["column 3 ('p')"])
        spin = widget.editors["ReliefF"].controls["iterations"]
        spin.setFixedWidth(60)
        self.assertGreater(spin.lineEdit().fontMetrics().horizontalAdvance(spin.text()),
                           spin.lineEdit().width())

    def check_state(self, state):
        widget = self.create_widget(state.widget_class())
        screenshots.show(QApplication.instance(), state, widget)
        self.process_events()
        self.assertFalse(widget.Error.active, [m.formatted for m in widget.Error.active])
        hint, minimum = widget.sizeHint(), widget.minimumSizeHint()
        with self.subTest("fits the screen"):
            self.assertLessEqual(hint.width(), SCREEN_WIDTH)
            self.assertLessEqual(hint.height(), SCREEN_HEIGHT)
            self.assertLessEqual(minimum.width(), SCREEN_WIDTH)
            self.assertLessEqual(minimum.height(), screenshots.MAX_MIN_HEIGHT)
            self.assertLessEqual(widget.width(), SCREEN_WIDTH)
            self.assertLessEqual(widget.height(), SCREEN_HEIGHT)
        # (a table lying over another one to show its names is checked with that one)
        tables = [view for view in visible(widget, QTableView)
                  if not isinstance(view.parent(), QTableView)]
        self.assertTrue(tables or "relief-tree" in state.name, "no table found")
        for view in tables:
            with self.subTest("nothing elided", table=view.objectName() or type(view).__name__):
                self.assertEqual(elided_in_table(view, self.name_characters), [])
            if state.scrolls:
                with self.subTest("the sorted column in view"):
                    self.assertEqual(sorted_column_hidden(view), 0)
                with self.subTest("the names in view"):
                    self.assertGreater(view.model().rowCount(), 0)
                    self.assertEqual(names_hidden(view), 0)
            elif view.horizontalHeader().sectionResizeMode(0) != QHeaderView.ResizeMode.Stretch:
                with self.subTest("every column in view"):
                    self.assertLessEqual(hidden_columns(view), 0)
        for area in visible(widget, QScrollArea):
            viewport = area.viewport()
            for control in visible(area.widget(), QWidget):
                if isinstance(control, (QAbstractSpinBox, QComboBox, QCheckBox, QLabel)):
                    right = control.mapTo(viewport, QPoint(control.width(), 0)).x()
                    with self.subTest("inside the scroll area", control=type(control).__name__):
                        self.assertLessEqual(right, viewport.width())
        for spin in visible(widget, QAbstractSpinBox):
            edit = spin.lineEdit()
            needed = edit.fontMetrics().horizontalAdvance(spin.text())
            with self.subTest("spin box text", text=spin.text()):
                self.assertLessEqual(needed, edit.width())
        for combo in visible(widget, QComboBox):
            needed = combo.fontMetrics().horizontalAdvance(combo.currentText())
            with self.subTest("combo box text", text=combo.currentText()):
                self.assertLessEqual(needed, combo.width() - 24)
        return widget


def _add_test(state):
    def test(self):
        self.check_state(state)
    test.__name__ = f"test_{state.name.replace('-', '_')}"
    test.__doc__ = f"{state.name}: fits 1366 x 768, nothing elided"
    setattr(TestLayout, test.__name__, test)


for _state in STATES:
    _add_test(_state)


class TestLayoutBigFont(BigFont, TestLayout):
    """The same states at 12 pt DejaVu Sans (:func:`big_font`). A table with two columns of
    60-character names beside a heatmap (Interacting Pairs) cannot show 40 characters of each
    in 1366 pixels at this size: names shortened in the middle are at least 20 characters
    wide here."""
    name_characters = 20

    def test_the_font_is_as_wide_as_dejavu_sans_12_pt(self):
        metrics = QFontMetrics(QApplication.font())
        self.assertGreaterEqual(metrics.horizontalAdvance(SAMPLE), SAMPLE_WIDTH)
