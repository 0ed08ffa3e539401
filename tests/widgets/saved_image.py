"""What a widget's Save Image (Orange's ``graph_name``) writes, for the widget tests."""
import os
import tempfile

from AnyQt.QtGui import QImage
from Orange.widgets.utils import getdeepattr
from orangewidget.io import PngFormat


def saved_image(widget):
    """The PNG that Save Image writes for ``widget`` (shown, at its size), read back."""
    graph = getdeepattr(widget, widget.graph_name)
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "plot.png")
        PngFormat.write_image(path, graph)
        return QImage(path)


def n_colours(image, step=7):
    """The number of distinct colours on a grid of ``image``'s pixels (a blank picture has
    one or two)."""
    return len({image.pixel(x, y) for x in range(0, image.width(), step)
                for y in range(0, image.height(), step)})
