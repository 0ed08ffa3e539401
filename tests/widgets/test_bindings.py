"""Widget behaviour that differs between the Qt bindings Orange runs on (PyQt5 and PyQt6): the
tests of this module run under the binding of the suite, and the last one runs them again, in a
new process, under the other installed binding (``QT_API``), so that CI checks both (PyQt5 must
be installed beside PyQt6: the tests of the covariates' chooser failed only under PyQt5).

- The covariates' chooser with a text meta attribute: PyQt5's in-place ``&=`` on the flags the
  list model shares between its rows made every row unchoosable once the text row was drawn.
- A new user's walk-through (:class:`TestWalkThrough`): each widget of the add-on at 12 pt on a
  table with 60-character names alike at both ends, a text meta and a class fits a 1366 x 768
  screen and Orange's own minimum size, and elides no header or number (sizes differ between
  the bindings: Interacting Pairs' minimum width grew past Orange's 800 pixels)."""
import importlib.util
import os
import re
import subprocess
import sys

import numpy as np
from AnyQt.QtCore import Qt
from AnyQt.QtTest import QTest
from Orange.data import ContinuousVariable, DiscreteVariable, Domain, StringVariable, Table
from Orange.widgets.tests.base import WidgetTest

from orangecontrib.relief.datasets import parity
from orangecontrib.relief.widgets.owattributeestimation import OWAttributeEstimation

from fonts import BigFont
import test_layout

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


#: 60-character names alike at both ends, told apart by the middle (as a study's SNP names)
WALK_PREFIX, WALK_SUFFIX = "genome_wide_association_cohort_A_", "_imputed_genotypes"


def walkthrough_table(n_instances=120, n_attributes=12):
    """Genotypes (0, 1, 2) of ``n_attributes`` SNPs named ``WALK_PREFIX rs... WALK_SUFFIX``
    (60 characters), a case-control class set by the first two together (one of them carries
    the minor allele; 10 % flipped), and the metas sex, age and a text id."""
    rng = np.random.default_rng(1)
    X = rng.binomial(2, 0.3, (n_instances, n_attributes)).astype(float)
    y = ((X[:, 0] > 0) != (X[:, 1] > 0)).astype(float)
    flip = rng.random(n_instances) < 0.1
    y[flip] = 1 - y[flip]
    names = [f"{WALK_PREFIX}rs{1000003 + 7 * i:07d}{WALK_SUFFIX}" for i in range(n_attributes)]
    metas = np.array([[s, a, f"p{i:04d}"] for i, (s, a) in enumerate(
        zip(rng.integers(0, 2, n_instances), rng.normal(50, 10, n_instances).round()))],
        dtype=object)
    domain = Domain([DiscreteVariable(n, values=("0", "1", "2")) for n in names],
                    DiscreteVariable("phenotype", values=("control", "case")),
                    [DiscreteVariable("sex", values=("f", "m")), ContinuousVariable("age"),
                     StringVariable("id")])
    return Table.from_numpy(domain, X, y, metas=metas)


def click_covariates(widget, *names):
    """Click the covariates ``names`` in Attribute Estimation's chooser, as a user does."""
    view, model = widget.covariate_view, widget.covariate_model
    view.viewport().repaint()           # every row drawn, the text id too
    for name in names:
        row = [var.name for var in model].index(name)
        QTest.mouseClick(view.viewport(), Qt.LeftButton, Qt.NoModifier,
                         view.visualRect(model.index(row)).center())


class TestWalkThrough(BigFont, WidgetTest):
    """Each widget opened as a new user meets it (12 pt, :func:`walkthrough_table`): it fits
    a 1366 x 768 screen and Orange's minimum size (under 800 x 700), nothing elided at the size
    it opens with (:meth:`test_layout.TestLayout.check_state`), names told apart."""
    #: names shortened in the middle keep at least this many average characters at 12 pt
    name_characters = 20
    check_state = test_layout.TestLayout.check_state
    # Orange's own checks need ``self.widget``: its minimum size is checked on each widget
    # walked through (:meth:`walk`), its messages and image export in the widgets' own tests
    test_minimum_size = test_msg_base_class = test_image_export = test_zero_size_data = None

    def walk(self, name, widget, before=None, after=None):
        state = test_layout.screenshots.State(f"walk-{name}", widget, walkthrough_table, before, after)
        widget = self.check_state(state)
        self.check_minimum_size(widget)         # Orange's own test of a widget's minimum
        return widget

    def test_attribute_estimation_with_covariates_chosen_beside_a_text_meta(self):
        w = self.walk("attribute-estimation", "owattributeestimation.OWAttributeEstimation",
                      before=lambda w: test_layout.screenshots.choose(w, "NPDR"),
                      after=lambda w: click_covariates(w, "sex", "age", "id"))
        self.assertEqual(w.covariates_in_use(), ("sex", "age"))
        self.assertEqual(self.get_output(w.Outputs.scorer, widget=w).covariates,
                         ("sex", "age"))
        shown = {w.ranks_model.index(r, 0).data() for r in range(w.ranks_model.rowCount())}
        self.assertEqual(len(shown), 12)                    # each name its own

    def test_interacting_pairs(self):
        w = self.walk("interacting-pairs", "owinteractingpairs.OWInteractingPairs")
        self.assertEqual(len(w.model.pairs), 66)            # every pair of 12
        shown = {w.model.index(r, c).data() for r in range(w.model.rowCount())
                 for c in (1, 2)}
        self.assertEqual(len(shown), 12)
        # what tells the names apart kept: the middle (four digits of the SNP's number)
        self.assertTrue(all(re.search(r"\d{4}", name) for name in shown), shown)

    def test_locality_profile(self):
        w = self.walk("locality-profile", "owlocalityprofile.OWLocalityProfile",
                      after=test_layout.screenshots.select_informative)
        labels = [label.text for _, label in w.profile_legend.items]
        self.assertEqual(len(set(labels)), len(labels))
        self.assertTrue(all(re.search(r"\d{4}", label) for label in labels), labels)
        listed = [w.attr_proxy.index(r, 0).data() for r in range(w.attr_proxy.rowCount())]
        self.assertEqual(len(set(listed)), 12)                  # the list's names too

    def test_relief_tree(self):
        w = self.walk("relief-tree", "owrelieftree.OWReliefTree")
        self.assertIsNotNone(self.get_output(w.Outputs.model, widget=w))

    def test_oblivious_tree(self):
        w = self.walk("oblivious-tree", "owoblivioustree.OWObliviousTree")
        self.assertIsNotNone(self.get_output(w.Outputs.model, widget=w))


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
             "-k", "TestCovariateChooser and (clicks or choosable) or TestWalkThrough",
             os.path.abspath(__file__)],
            env=env, capture_output=True, text=True, timeout=600,
            cwd=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
        assert run.returncode == 0, f"under {api}:\n{run.stdout[-3000:]}\n{run.stderr[-2000:]}"
        assert "7 passed" in run.stdout and "skipped" not in run.stdout, run.stdout[-1000:]
