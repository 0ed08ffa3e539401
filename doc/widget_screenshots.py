"""Take the widget screenshots shown in the widget help (doc/widgets/images/).

    QT_QPA_PLATFORM=offscreen python doc/widget_screenshots.py   # then: python doc/build_help.py

Each widget is created headless with its default settings (not those a canvas stored), given the
data of its help page, left to finish its computation and grabbed with ``QWidget.grab``. The data are the add-on's parity problems
(:func:`orangecontrib.relief.datasets.parity`), so the pictures match the numbers in the text.
"""
import tempfile
import time
from pathlib import Path

import orangewidget.settings

from AnyQt.QtWidgets import QApplication

IMAGES = Path(__file__).resolve().parent / "widgets" / "images"


def settle(app, widget, timeout=120):
    """Process events until the widget's background task (if any) has finished."""
    start = time.perf_counter()
    while time.perf_counter() - start < timeout:
        app.processEvents()
        if getattr(widget, "task", None) is None and not widget.isInvalidated():
            break
        time.sleep(0.02)
    for _ in range(20):
        app.processEvents()
        time.sleep(0.01)


def shoot(app, widget, data, name, prepare=None, size=None):
    """Send ``data`` to ``widget``, let it compute, and save its picture as ``name``.png."""
    widget.show()
    if size is not None:
        widget.resize(*size)
    if data is not None:
        widget.set_data(data)
        widget.handleNewSignals()
    settle(app, widget)
    if prepare is not None:
        prepare(widget)
        settle(app, widget)
    widget.grab().save(str(IMAGES / f"{name}.png"))
    widget.onDeleteWidget()
    widget.close()


def main():
    app = QApplication.instance() or QApplication([])
    # the widgets' defaults, not the settings a canvas stored for them
    defaults = tempfile.mkdtemp()
    orangewidget.settings.widget_settings_dir = lambda versioned=True: defaults
    from orangecontrib.relief.datasets import parity
    from orangecontrib.relief.widgets.owattributeestimation import OWAttributeEstimation
    from orangecontrib.relief.widgets.owlocalityprofile import OWLocalityProfile
    from orangecontrib.relief.widgets.owoblivioustree import OWObliviousTree
    from orangecontrib.relief.widgets.owrelieftree import OWReliefTree

    parity2 = parity(order=2, n_irrelevant=10, n_instances=200)
    parity3 = parity(order=3, n_irrelevant=10, n_instances=200)

    def best_two(widget):
        widget.controls.n_selected.setValue(2)
        widget.set_selection_method(widget.SelectNBest)

    shoot(app, OWAttributeEstimation(), parity2, "attribute-estimation", best_two, (820, 560))

    def pi(widget):
        widget.estimator_combo.setCurrentText("Unified Π")
        widget.estimator_combo.activated.emit(widget.estimator_combo.currentIndex())

    shoot(app, OWAttributeEstimation(), parity2, "attribute-estimation-pi", pi, (820, 640))

    def select_informative(widget):
        widget.attr_view.selectionModel().clear()
        for curve in widget.curves[:2]:
            curve.sigClicked.emit(curve, None)

    profile = OWLocalityProfile()
    profile.k_max = 100
    shoot(app, profile, parity2, "locality-profile", select_informative, (900, 620))
    shoot(app, OWReliefTree(), parity3, "relief-tree")
    shoot(app, OWObliviousTree(), parity(order=2, n_irrelevant=10, n_instances=300),
          "oblivious-tree", size=(640, 480))


if __name__ == "__main__":
    main()
