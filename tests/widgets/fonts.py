"""The font of the walk-through of the widgets, 12 pt DejaVu Sans (the common Linux desktop
font), for the widget tests, on any machine."""
from AnyQt.QtGui import QFont, QFontInfo, QFontMetrics
from AnyQt.QtWidgets import QApplication

#: a text and its width in DejaVu Sans 12 pt at Qt's 96 logical dpi (measured)
SAMPLE, SAMPLE_WIDTH = "The quick brown fox jumps over the lazy dog 0123456789", 467


def big_font():
    """DejaVu Sans 12 pt; where that family is missing, the default family at the size at
    which :data:`SAMPLE` is at least as wide as in DejaVu Sans 12 pt (so that the check is as
    strict on any machine)."""
    font = QFont("DejaVu Sans", 12)
    if QFontInfo(font).family() == "DejaVu Sans":
        return font
    font = QFont(QApplication.font())
    size = 12.0
    font.setPointSizeF(size)
    while QFontMetrics(font).horizontalAdvance(SAMPLE) < SAMPLE_WIDTH:
        size += 0.25
        font.setPointSizeF(size)
    return font


class BigFont:
    """A mixin of test classes: the application's font is :func:`big_font` while the class's
    tests run (widgets created then take it)."""
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.font = QApplication.font()
        QApplication.setFont(big_font())

    @classmethod
    def tearDownClass(cls):
        QApplication.setFont(cls.font)
        super().tearDownClass()
