"""How long the widgets hold the GUI thread to show a finished result on wide data.

    QT_QPA_PLATFORM=offscreen python benchmarks/widget_display.py            # 2,000 and 10,000
    QT_QPA_PLATFORM=offscreen python benchmarks/widget_display.py --quick    # 2,000 attributes

The estimates are computed in the background; what the canvas waits for is the widget's
``on_done``: filling the table, sizing its columns, the score plot, the selection and the
outputs. Attribute Estimation runs information gain and compares it with gain ratio and Gini
(fast estimators, so the run is about the display), on 200 rows of random binary attributes whose
class is the parity of the first two; Locality Profile runs ReliefF for k = 1 ... 10; Interacting
Pairs tests the pairs of the 1,000 attributes MultiSURF ranks best (499,500 pairs; one
permutation, so the run is about the display, not the p-values). Prints the
time of ``on_done`` and of a click on a header (re-sorting and re-selecting) per widget and
width, with the load average (the canvas target is 100 ms).
"""
import argparse
import os
import time

import numpy as np

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from AnyQt.QtCore import Qt  # noqa: E402
from AnyQt.QtWidgets import QApplication  # noqa: E402
from Orange.data import DiscreteVariable, Domain, Table  # noqa: E402


def wide_table(n_attributes, n_rows=200, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, (n_rows, n_attributes)).astype(float)
    y = (X[:, 0] != X[:, 1]).astype(float)
    attributes = [DiscreteVariable(f"gene_{i:05d}", values=("0", "1"))
                  for i in range(n_attributes)]
    return Table.from_numpy(Domain(attributes, DiscreteVariable("y", values=("0", "1"))), X, y)


def time_on_done(app, widget, data, timeout=600):
    """Seconds of the widget's ``on_done`` for ``data``."""
    times = []
    original = widget.on_done

    def timed(result):
        start = time.perf_counter()
        original(result)
        times.append(time.perf_counter() - start)
    widget.on_done = timed
    widget.set_data(data)
    widget.handleNewSignals()
    start = time.time()
    while not times and time.time() - start < timeout:
        app.processEvents()
        time.sleep(0.01)
    return times[0] if times else float("nan")


def attribute_estimation(app, data):
    from orangecontrib.relief.widgets.owattributeestimation import OWAttributeEstimation
    widget = OWAttributeEstimation()
    widget.estimator_combo.setCurrentText("InfGain")
    widget.estimator_combo.activated.emit(widget.estimator_combo.currentIndex())
    model = widget.compare_model
    for row in range(model.rowCount()):
        if model.item(row).text() in ("GainRatio", "Gini gain", "Gini"):
            model.item(row).setCheckState(Qt.Checked)
    shown = time_on_done(app, widget, data)
    start = time.perf_counter()
    widget.ranks_model.sort(3, Qt.DescendingOrder)
    widget._on_header_click()
    click = time.perf_counter() - start
    widget.onDeleteWidget()
    return shown, click


def show_sort_select(app, widget, data, view, column):
    """(seconds of ``on_done`` for ``data``, seconds of sorting ``view`` by ``column``,
    highest first, and selecting its first row), then the widget is deleted."""
    shown = time_on_done(app, widget, data)
    start = time.perf_counter()
    view.sortByColumn(column, Qt.SortOrder.DescendingOrder)
    view.selectRow(0)
    app.processEvents()
    click = time.perf_counter() - start
    widget.onDeleteWidget()
    return shown, click


def locality_profile(app, data):
    from orangecontrib.relief.widgets.owlocalityprofile import OWLocalityProfile
    widget = OWLocalityProfile()
    widget.k_max = 10
    return show_sort_select(app, widget, data, widget.attr_view, 1)


def interacting_pairs(app, data):
    from orangecontrib.relief.widgets.owinteractingpairs import OWInteractingPairs
    widget = OWInteractingPairs()
    widget.top = 1000
    widget.n_permutations = 1
    return show_sort_select(app, widget, data, widget.view, 3)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2,000 attributes only")
    args = parser.parse_args()
    app = QApplication.instance() or QApplication([])
    widths = (2000,) if args.quick else (2000, 10000)
    print(f"load average {os.getloadavg()[0]:.1f}")
    print(f"{'widget':<22} {'attributes':>10} {'show (ms)':>10} {'click (ms)':>11}")
    for name, run in (("Attribute Estimation", attribute_estimation),
                      ("Locality Profile", locality_profile),
                      ("Interacting Pairs", interacting_pairs)):
        for n in widths:
            shown, click = run(app, wide_table(n))
            print(f"{name:<22} {n:>10,} {shown * 1000:>10.0f} {click * 1000:>11.0f}")


if __name__ == "__main__":
    main()
