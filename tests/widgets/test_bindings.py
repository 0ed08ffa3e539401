"""Widget behaviour that differs between the Qt bindings Orange runs on (PyQt5 and PyQt6): the
tests of this module run under the binding of the suite, and the last one runs them again, in a
new process, under the other installed binding (``QT_API``), so that CI checks both (PyQt5 must
be installed beside PyQt6: the tests of the covariates' chooser failed only under PyQt5).

- The covariates' chooser with a text meta attribute: PyQt5's in-place ``&=`` on the flags the
  list model shares between its rows made every row unchoosable once the text row was drawn."""
import importlib.util
import os
import subprocess
import sys

import numpy as np
from AnyQt.QtCore import Qt
from AnyQt.QtTest import QTest
from Orange.data import ContinuousVariable, DiscreteVariable, Domain, StringVariable, Table
from Orange.widgets.tests.base import WidgetTest

from orangecontrib.relief.datasets import parity
from orangecontrib.relief.widgets.owattributeestimation import OWAttributeEstimation

#: run by the test that repeats this module under the other binding (no third level)
NESTED = "ORANGE_RELIEF_BINDING_TEST"


def current_binding():
    import AnyQt
    return AnyQt.USED_API


def with_text_meta():
    """Parity data with the meta attributes sex (categorical), age (numeric) and a text id,
    the usual shape of a genetics table."""
    data = parity(order=2, n_irrelevant=4, n_instances=80)
    rng = np.random.default_rng(0)
    metas = np.array([[s, a, f"p{i:03d}"] for i, (s, a) in enumerate(
        zip(rng.integers(0, 2, len(data)), rng.normal(50, 10, len(data)).round()))],
        dtype=object)
    domain = Domain(data.domain.attributes, data.domain.class_var,
                    [DiscreteVariable("sex", values=("f", "m")), ContinuousVariable("age"),
                     StringVariable("id")])
    return Table.from_numpy(domain, data.X, data.Y, metas=metas)


class TestCovariateChooser(WidgetTest):
    def setUp(self):
        if os.environ.get(NESTED):      # the run under the other binding is under it
            self.assertEqual(current_binding(), os.environ["QT_API"])
        self.widget = self.create_widget(OWAttributeEstimation)
        w = self.widget
        w.estimator_combo.setCurrentText("NPDR")
        w.estimator_combo.activated.emit(w.estimator_combo.currentIndex())
        self.send_signal(w.Inputs.data, with_text_meta())
        w.show()
        w.covariate_view.viewport().repaint()       # every row drawn, the text id too
        self.process_events()

    def click(self, name):
        view, model = self.widget.covariate_view, self.widget.covariate_model
        row = [var.name for var in model].index(name)
        rect = view.visualRect(model.index(row))
        QTest.mouseClick(view.viewport(), Qt.LeftButton, Qt.NoModifier, rect.center())

    def test_numeric_and_categorical_metas_stay_choosable_beside_a_text_one(self):
        model = self.widget.covariate_model
        names = [var.name for var in model]
        for _ in range(2):          # asking about the text row changes no other row
            flags = {name: model.flags(model.index(row)) for row, name in enumerate(names)}
            for name in ("sex", "age", "I1"):
                self.assertTrue(flags[name] & Qt.ItemIsSelectable, name)
                self.assertTrue(flags[name] & Qt.ItemIsEnabled, name)
            self.assertFalse(flags["id"] & Qt.ItemIsSelectable)
            self.assertFalse(flags["id"] & Qt.ItemIsEnabled)

    def test_clicks_choose_sex_and_age_and_not_the_text_id(self):
        w = self.widget
        self.assertTrue(w.covariate_view.isEnabled())
        self.click("sex")
        self.click("age")
        self.click("id")
        self.wait_until_finished(timeout=60000)
        self.assertEqual(w.covariates_in_use(), ("sex", "age"))
        self.assertEqual(self.get_output(w.Outputs.scorer).covariates, ("sex", "age"))
        self.click("sex")           # a second click leaves it out again
        self.wait_until_finished(timeout=60000)
        self.assertEqual(w.covariates_in_use(), ("age",))


def other_bindings():
    """The Qt bindings besides the current one that are installed (of PyQt5 and PyQt6)."""
    names = {"pyqt5": "PyQt5", "pyqt6": "PyQt6"}
    return [api for api, module in names.items()
            if api != current_binding() and importlib.util.find_spec(module) is not None]


def test_the_module_passes_under_the_other_installed_binding():
    """This module in a new process under each other installed binding; PyQt5 must be among
    the bindings checked (the one whose flags objects change in place)."""
    if os.environ.get(NESTED):       # the nested run: the other tests are what it checks
        return
    others = other_bindings()
    assert "pyqt5" in others + [current_binding()], \
        "PyQt5 is not installed: the widget tests need it beside PyQt6 (pip install PyQt5)"
    for api in others:
        env = dict(os.environ, QT_API=api, QT_QPA_PLATFORM="offscreen", **{NESTED: "1"})
        run = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "0",
             "-k", "TestCovariateChooser and (clicks or choosable)",
             os.path.abspath(__file__)],
            env=env, capture_output=True, text=True, timeout=600,
            cwd=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
        assert run.returncode == 0, f"under {api}:\n{run.stdout[-3000:]}\n{run.stderr[-2000:]}"
        assert "2 passed" in run.stdout and "skipped" not in run.stdout, run.stdout[-1000:]
