"""End-to-end: every shipped example workflow is loaded from its .ows with the widgets discovered
through the installed entry points, run headless, and the values on its links are checked; and
``python -m Orange.canvas.run`` runs one of them in a new process and exits 0."""
import glob
import os
import subprocess
import sys
import time
import unittest

import numpy as np

from AnyQt.QtCore import QEvent
from AnyQt.QtWidgets import QApplication
from orangecanvas import config as canvas_config
from orangecanvas.registry import WidgetRegistry
from orangecanvas.scheme.signalmanager import SignalManager
from Orange.canvas.config import Config
from Orange.evaluation import AUC, CA

import orangecontrib.relief.workflows as workflows_package
from orangecontrib.relief.selection import SelectAttributes

WORKFLOWS = os.path.dirname(workflows_package.__file__)


def workflow_path(name):
    return os.path.join(WORKFLOWS, name)


class TestShippedWorkflows(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.app = QApplication.instance() or QApplication([])
        cls.config = Config()
        canvas_config.set_default(cls.config)
        cls.registry = WidgetRegistry()
        cls.config.widget_discovery(cls.registry).run(cls.config.widgets_entry_points())

    def run_workflow(self, name, timeout=180):
        """Load and run ``name``; return {(source title, channel, sink title): value}."""
        model = self.config.workflow_constructor()
        path = workflow_path(name)
        model.set_runtime_env("basedir", os.path.dirname(path))
        manager = model.findChild(SignalManager)
        manager.pause()
        errors = []
        with open(path, "rb") as f:
            model.load_from(f, registry=self.registry, error_handler=errors.append)
        self.assertEqual(errors, [])
        widgets = [model.widget_for_node(n) for n in model.nodes]
        manager.resume()

        def busy():
            return (manager.has_pending()
                    or any(manager.is_blocking(n) or manager.is_invalidated(n)
                           for n in model.nodes)
                    or any(w.isInvalidated() or w.isBlocking() for w in widgets))

        start, quiet = time.perf_counter(), None
        while time.perf_counter() - start < timeout:
            self.app.processEvents()
            if busy():
                quiet = None
            elif quiet is None:
                quiet = time.perf_counter()
            elif time.perf_counter() - quiet > 0.5:
                break
            time.sleep(0.02)
        else:
            self.fail(f"{name} did not finish in {timeout} s")
        values = {}
        for link in model.links:
            contents = list(manager.link_contents(link).values())
            values[(link.source_node.title, link.source_channel.name,
                    link.sink_node.title)] = contents[0] if contents else None
        errors = {n.title: [m.formatted for m in model.widget_for_node(n).Error.active]
                  for n in model.nodes if model.widget_for_node(n).Error.active}
        self.addCleanup(self.close, model)
        return values, errors

    def close(self, model):
        model.clear()
        QApplication.sendEvent(model, QEvent(QEvent.Type.Close))
        self.app.processEvents()
        # the widgets are deleted later (deleteLater), which processEvents outside an event
        # loop leaves undone: half-removed widgets then received a later test's application
        # font change (a crash in the next widget test of the same process)
        QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete.value)
        self.app.processEvents()

    def test_every_workflow_is_registered_as_a_tutorial_and_has_its_data(self):
        names = sorted(os.path.basename(p) for p in glob.glob(workflow_path("*.ows")))
        self.assertEqual(names, ["attribute-estimation-parity.ows",
                                 "interacting-pairs-snps.ows", "locality-profile-parity.ows",
                                 "oblivious-tree-parity.ows", "relief-tree-parity.ows",
                                 "selection-in-cross-validation.ows"])
        tutorials = [ep.value for ep in self.config.examples_entry_points()]
        self.assertIn("orangecontrib.relief.workflows", tutorials)
        for data in ("parity2.tab", "parity3.tab", "snp-study.tab", "snp-noise.tab"):
            self.assertTrue(os.path.isfile(workflow_path(data)))

    def test_rank_shows_relieff_ranking_parity_attributes_first_where_gini_does_not(self):
        values, errors = self.run_workflow("attribute-estimation-parity.ows")
        self.assertEqual(errors, {})
        scores = values[("Rank", "Scores", "Scores")]
        names = list(scores.get_column("Feature"))
        # the notes name Rank's columns as Rank shows them: its own Gain ratio and Gini, ours
        # "RF k10"
        columns = {a.name for a in scores.domain.attributes}
        self.assertEqual(columns, {"Gain ratio", "Gini", "RF k10"})
        relieff = scores.get_column("RF k10")
        top = {names[i] for i in relieff.argsort()[-2:]}
        self.assertEqual(top, {"I1", "I2"})
        for own in ("Gain ratio", "Gini"):
            column = scores.get_column(own)
            self.assertNotEqual({names[i] for i in column.argsort()[-2:]}, {"I1", "I2"})
        # as its note says, the attributes above τ are just I1 and I2
        reduced = values[("Attribute Estimation", "Reduced Data", "Above τ")]
        self.assertEqual([a.name for a in reduced.domain.attributes], ["I1", "I2"])

    def test_relief_tree_roots_at_an_informative_attribute_and_beats_orange_tree(self):
        values, errors = self.run_workflow("relief-tree-parity.ows")
        self.assertEqual(errors, {})
        model = values[("Relief Tree", "Model", "Tree Viewer")]
        self.assertIn(model.root.attr.name, {"I1", "I2", "I3"})
        results = values[("Test and Score", "Evaluation Results", "Confusion Matrix")]
        accuracy = dict(zip(results.learner_names, CA(results)))
        self.assertEqual(set(accuracy), {"Relief Tree", "Tree"})
        self.assertGreater(accuracy["Relief Tree"], accuracy["Tree"] + 0.1)
        self.assertGreater(accuracy["Relief Tree"], 0.9)

    def test_locality_profile_runs_on_parity_and_shows_fig2(self):
        values, errors = self.run_workflow("locality-profile-parity.ows")
        self.assertEqual(errors, {})
        data = values[("File", "Data", "Locality Profile")]
        self.assertEqual(data.name, "parity2")
        # its note promises the informative attributes selected: the saved selection
        selected = values[("Locality Profile", "Selected Data", "Selected")]
        self.assertEqual({a.name for a in selected.domain.attributes}, {"I1", "I2"})

    def test_interacting_pairs_finds_the_pair_the_ranking_puts_first(self):
        values, errors = self.run_workflow("interacting-pairs-snps.ows")
        self.assertEqual(errors, {})
        # as the notes say: MultiSURF's two best are rs5 and rs12 ...
        best = values[("Attribute Estimation", "Reduced Data", "Best two")]
        self.assertEqual({a.name for a in best.domain.attributes}, {"rs5", "rs12"})
        # ... the pairs of the ten best are tested, rs5 x rs12 first with q far below 0.05,
        # every other pair with q above 0.05
        pairs = values[("Interacting Pairs", "Interacting Pairs", "Pairs")]
        self.assertEqual(len(pairs), 45)
        first, second = pairs.get_column("first"), pairs.get_column("second")
        q = pairs.get_column("q")
        self.assertEqual({first[0], second[0]}, {"rs5", "rs12"})
        self.assertLess(q[0], 1e-6)
        self.assertTrue(np.all(q[1:] > 0.05), q[1:5])
        # ... the saved selection, that pair, goes to Mosaic Display, where the cases fill the
        # cells with exactly one of the two genotypes 0
        selected = values[("Interacting Pairs", "Selected Data", "Mosaic Display")]
        self.assertEqual([a.name for a in selected.domain.attributes], ["rs5", "rs12"])
        one_zero = (selected.X[:, 0] == 0) != (selected.X[:, 1] == 0)
        case = selected.Y == selected.domain.class_var.values.index("case")
        self.assertGreater(case[one_zero].mean(), 0.8)
        self.assertLess(case[~one_zero].mean(), 0.2)

    def test_selection_in_each_fold_is_honest_where_selection_on_all_data_is_not(self):
        values, errors = self.run_workflow("selection-in-cross-validation.ows")
        self.assertEqual(errors, {})
        # the notes: the phenotype is unrelated to the SNPs (a permutation of 50 cases and 50
        # controls), ...
        data = values[("File", "Data", "Attribute Estimation")]
        self.assertEqual((len(data), len(data.domain.attributes)), (100, 500))
        self.assertEqual(int(data.Y.sum()), 50)
        # ... Reduced Data holds the five SNPs ReliefF ranks best on all data ...
        reduced = values[("Attribute Estimation", "Reduced Data", "Selected on all data")]
        self.assertEqual(len(reduced.domain.attributes), 5)
        # ... cross-validated on them, Naive Bayes looks good (AUC about 0.77, accuracy 0.71) ...
        optimistic = values[("Selected on all data", "Evaluation Results", "Optimistic")]
        self.assertAlmostEqual(AUC(optimistic)[0], 0.77, delta=0.01)
        self.assertAlmostEqual(CA(optimistic)[0], 0.71, delta=0.005)
        # ... selected in each fold through the Preprocessor, it is at chance (0.49, 0.50)
        honest = values[("Selected in each fold", "Evaluation Results", "Honest")]
        self.assertAlmostEqual(AUC(honest)[0], 0.49, delta=0.01)
        self.assertAlmostEqual(CA(honest)[0], 0.50, delta=0.005)
        # the Preprocessor link carries the selection rule itself
        self.assertIsInstance(values[("Attribute Estimation", "Preprocessor",
                                      "Selected in each fold")], SelectAttributes)

    def test_every_workflow_has_notes_and_is_listed_in_the_help_index(self):
        from xml.etree import ElementTree
        index = open(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                  "doc", "index.md"), encoding="utf-8").read()
        for path in glob.glob(workflow_path("*.ows")):
            name = os.path.basename(path)[:-len(".ows")]
            notes = [t.text for t in ElementTree.parse(path).getroot().iter("text")]
            self.assertGreaterEqual(len(notes), 2, name)
            self.assertTrue(all(len(text) > 40 for text in notes), name)
            self.assertIn(f"*{name}*", index)

    def test_oblivious_tree_keeps_the_parity_attributes_and_beats_knn(self):
        values, errors = self.run_workflow("oblivious-tree-parity.ows")
        self.assertEqual(errors, {})
        reduced = values[("Oblivious Tree", "Reduced Data", "Data Table")]
        self.assertEqual({a.name for a in reduced.domain.attributes}, {"I1", "I2"})
        results = values[("Test and Score", "Evaluation Results", "Confusion Matrix")]
        accuracy = dict(zip(results.learner_names, CA(results)))
        self.assertEqual(set(accuracy), {"Oblivious Tree", "kNN"})
        self.assertGreater(accuracy["Oblivious Tree"], 0.95)
        self.assertGreater(accuracy["Oblivious Tree"], accuracy["kNN"] + 0.1)

    def test_every_workflow_is_run_and_checked_here(self):
        """Each shipped workflow has a test above that runs it as Orange's canvas does (loaded
        through the installed entry points, every link's signal delivered) and checks its
        values; so the one run of Orange's own runner below stands for all of them."""
        import re
        with open(__file__, encoding="utf-8") as f:
            checked = set(re.findall(r'run_workflow\("([^"]+\.ows)"\)', f.read()))
        shipped = {os.path.basename(p) for p in glob.glob(workflow_path("*.ows"))}
        self.assertEqual(checked, shipped)

    def test_orange_canvas_run_exits_0(self):
        """``python -m Orange.canvas.run`` runs a shipped workflow in a new process (widget
        discovery through the entry points, the runner's own event loop) and exits 0."""
        env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
        path = workflow_path("attribute-estimation-parity.ows")
        proc = subprocess.run([sys.executable, "-m", "Orange.canvas.run", path],
                              env=env, capture_output=True, timeout=300, check=False)
        self.assertEqual(proc.returncode, 0, proc.stderr.decode()[-2000:])

if __name__ == "__main__":
    unittest.main()
