"""The font of the walk-through of the widgets, 12 pt DejaVu Sans (the common Linux desktop
font), for the widget tests, on any machine.

Sizes in points are at 96 logical dpi, Qt 6's offscreen platform's and the desktops': Qt 5's
offscreen platform has 100 dpi (and a default font of 12 pt, 17 px), where a font of 12 pt is
17 px high and :data:`SAMPLE` 495 px wide, not 16 and 467 (:func:`dejavu_sans`)."""
from AnyQt.QtGui import QFont, QFontInfo, QFontMetrics
from AnyQt.QtWidgets import QApplication

#: a text and its width in DejaVu Sans 12 pt at Qt's 96 logical dpi (measured)
SAMPLE, SAMPLE_WIDTH = "The quick brown fox jumps over the lazy dog 0123456789", 467


def dejavu_sans(points):
    """DejaVu Sans of ``points`` pt at 96 dpi, as many pixels on a screen of any logical dpi
    (at PyQt5's offscreen 100 dpi, 12 pt at 96 dpi is 11.52 pt, 16 px)."""
    font = QFont("DejaVu Sans")
    font.setPointSizeF(points * 96 / QApplication.primaryScreen().logicalDotsPerInchY())
    return font


def big_font():
    """DejaVu Sans 12 pt (at 96 dpi, :func:`dejavu_sans`); where that family is missing, the
    default family at the size at which :data:`SAMPLE` is at least as wide as in DejaVu Sans
    12 pt (so that the check is as strict on any machine)."""
    font = dejavu_sans(12)
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
