"""Interacting Pairs widget: the table is the engine's answer (an independent call of
interacting_pairs on the same data), selection and outputs, cancel, messages for unsuitable data,
settings, report, Save Image and the layout at 12 pt."""
import concurrent.futures
import time

import numpy as np
from AnyQt.QtCore import Qt
from AnyQt.QtWidgets import QApplication
from Orange.data import ContinuousVariable, DiscreteVariable, Domain, StringVariable, Table
from Orange.widgets.tests.base import WidgetTest
from Orange.widgets.utils.concurrent import TaskState
from orangewidget.settings import VERSION_KEY

from orangecontrib.relief.estimators.interactions import interacting_pairs
from orangecontrib.relief.estimators.relieff import ReliefF
from orangecontrib.relief.estimators.surf import MultiSURF
from orangecontrib.relief.orange_data import encode_table
from orangecontrib.relief.widgets.background import Cancelled
from orangecontrib.relief.widgets.owinteractingpairs import (COLUMNS, OWInteractingPairs,
                                                             pairs_task)

from fonts import BigFont, dejavu_sans
from test_layout import elided_in_table

#: generous: with an empty kernel cache the first runs compile the engine's kernels, and a
#: cancelled task finishes its compile before the next one starts (minutes on a loaded machine)
TIMEOUT = 240000


def snps(n_instances=150, n_snps=8, seed=0):
    """Genotypes 0, 1, 2 of ``n_snps`` SNPs (minor allele frequency 0.4) with a case-control
    class that depends on SNP 0 and SNP 1 together (a case where exactly one carries the minor
    allele, with 10 % noise), plus a meta column of identifiers."""
    rng = np.random.default_rng(seed)
    X = rng.binomial(2, 0.4, (n_instances, n_snps)).astype(float)
    y = ((X[:, 0] > 0) != (X[:, 1] > 0)).astype(float)
    flip = rng.random(n_instances) < 0.1
    y[flip] = 1 - y[flip]
    domain = Domain([DiscreteVariable(f"rs{i}", values=("0", "1", "2")) for i in range(n_snps)],
                    DiscreteVariable("case", values=("control", "case")),
                    metas=[StringVariable("id")])
    ids = np.array([[f"p{i}"] for i in range(n_instances)], dtype=object)
    return Table.from_numpy(domain, X, y, metas=ids)


def ranked(widget):
    """``widget`` set to test the pairs of the best-ranked attributes (most tests here are of
    the ranking; the default, automatic, scans data of this size)."""
    widget.choice_buttons.button(widget.BestRanked).click()
    return widget


class TestOWInteractingPairs(WidgetTest):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.data = snps()
        cls.encoded = encode_table(cls.data)[0]

    def setUp(self):
        self.widget = ranked(self.create_widget(OWInteractingPairs))

    def run_on(self, data, widget=None):
        widget = widget or self.widget
        self.send_signal(widget.Inputs.data, data, widget=widget)
        self.wait_until_finished(widget=widget, timeout=TIMEOUT)
        return widget.result

    def restart(self):
        self.widget.restart()
        self.wait_until_finished(timeout=TIMEOUT)

    def choose_estimator(self, name):
        combo = self.widget.estimator_combo
        combo.setCurrentText(name)
        combo.activated.emit(combo.currentIndex())

    def shown_rows(self):
        """The table as the view shows it: the texts of every row."""
        model = self.widget.model
        return [[model.index(r, c).data() for c in range(len(COLUMNS))]
                for r in range(model.rowCount())]

    # --- the table is the engine's answer
    def test_table_and_pairs_output_equal_an_independent_call_ranked_by_multisurf(self):
        w = self.widget
        w.top = 5
        w.n_permutations = 30
        w.random_state = 7
        self.run_on(self.data)
        want = interacting_pairs(self.encoded, top=5, estimator=MultiSURF(), n_permutations=30,
                                 random_state=7)
        names = [a.name for a in self.data.domain.attributes]
        self.assertEqual(len(want), 10)
        rows = self.shown_rows()
        self.assertEqual([(r[1], r[2]) for r in rows],
                         [(names[p.first], names[p.second]) for p in want])
        self.assertEqual([r[0] for r in rows], [str(i) for i in range(1, 11)])
        self.assertEqual([r[5] for r in rows], [f"{p.pvalue:.2g}" for p in want])
        self.assertEqual([r[3] for r in rows], [f"{p.statistic:.1f}" for p in want])
        out = self.get_output(w.Outputs.pairs)
        self.assertEqual(list(out.get_column("first")), [names[p.first] for p in want])
        self.assertEqual(list(out.get_column("second")), [names[p.second] for p in want])
        np.testing.assert_array_equal(out.get_column("statistic"), want.statistics)
        np.testing.assert_array_equal(out.get_column("df"), want.df)
        np.testing.assert_array_equal(out.get_column("p"), want.pvalues)
        np.testing.assert_array_equal(out.get_column("q"), want.qvalues)
        # the planted pair first; its df (2 - 1)(3 - 1)(3 - 1) = 4
        self.assertEqual(rows[0][1:3], ["rs0", "rs1"])
        self.assertEqual(rows[0][4], "4")
        self.assertIn("the 5 attributes MultiSURF ranks best", w.summary.text())
        self.assertIn("30 permutations", w.summary.text())

    def test_another_estimator_ranks_and_chosen_attributes_are_tested_without_ranking(self):
        w = self.widget
        w.top = 4
        w.n_permutations = 20
        self.choose_estimator("ReliefF")
        self.run_on(self.data)
        want = interacting_pairs(self.encoded, top=4, estimator=ReliefF(), n_permutations=20,
                                 random_state=0)
        np.testing.assert_array_equal(self.get_output(w.Outputs.pairs).get_column("p"),
                                      want.pvalues)
        # choosing attributes in the list tests their pairs (switching to that choice)
        for row in (5, 0, 3):
            w.attr_list.selectionModel().select(w.attr_model.index(row),
                                                w.attr_list.selectionModel().Select)
        self.wait_until_finished(timeout=TIMEOUT)
        self.assertEqual(w.attribute_choice, w.Chosen)
        self.assertFalse(w.ranking_box.isEnabled())
        want = interacting_pairs(self.encoded, attributes=[0, 3, 5], n_permutations=20,
                                 random_state=0)
        out = self.get_output(w.Outputs.pairs)
        np.testing.assert_array_equal(out.get_column("statistic"), want.statistics)
        np.testing.assert_array_equal(out.get_column("p"), want.pvalues)
        self.assertEqual(len(out), 3)

    def test_columns_sort_by_their_values(self):
        w = self.widget
        w.n_permutations = 20
        self.run_on(self.data)
        pairs = w.result.pairs
        w.view.sortByColumn(3, Qt.DescendingOrder)       # the statistic, largest first
        rows = w.model.mapToSourceRows(np.arange(len(pairs)))
        self.assertTrue(np.all(np.diff(pairs.statistics[rows]) <= 0))
        w.view.sortByColumn(1, Qt.AscendingOrder)        # by the first attribute's name
        firsts = [w.model.index(r, 1).data() for r in range(len(pairs))]
        self.assertEqual(firsts, sorted(firsts))
        w.view.sortByColumn(0, Qt.AscendingOrder)        # back to best first
        self.assertEqual([w.model.index(r, 0).data() for r in range(3)], ["1", "2", "3"])

    # --- selection and outputs
    def test_selected_pairs_output_their_attributes_with_class_and_metas(self):
        w = self.widget
        w.n_permutations = 20
        self.run_on(self.data)
        self.assertIsNone(self.get_output(w.Outputs.selected_data))
        pairs = w.result.pairs
        w.view.selectRow(0)
        out = self.get_output(w.Outputs.selected_data)
        attrs = self.data.domain.attributes
        best = sorted((pairs.first[0], pairs.second[0]))
        self.assertEqual([a.name for a in out.domain.attributes], [attrs[i].name for i in best])
        self.assertEqual(out.domain.class_var.name, "case")
        self.assertEqual([m.name for m in out.domain.metas], ["id"])
        np.testing.assert_array_equal(out.X, self.data.X[:, best])
        # a click on a heatmap cell with Ctrl adds its pair; without, selects it alone
        f, s = int(pairs.first[1]), int(pairs.second[1])
        w._on_cell_clicked(s, f, toggle=True)
        out = self.get_output(w.Outputs.selected_data)
        self.assertEqual({a.name for a in out.domain.attributes},
                         {attrs[i].name for i in {*best, f, s}})
        self.assertEqual(len(w.selected_rows()), 2)
        w._on_cell_clicked(f, s)
        self.assertEqual(w.selected_rows(), [1])
        outlined = {pair for pair, rect in w.heatmap.cells.items() if rect.pen().width() == 3}
        self.assertEqual(outlined, {(f, s), (s, f)})
        w.view.clearSelection()
        self.assertIsNone(self.get_output(w.Outputs.selected_data))

    def test_heatmap_shows_minus_log10_p_of_the_best_ranked_attributes(self):
        w = self.widget
        w.top = 6
        w.n_permutations = 20
        self.run_on(self.data)
        pairs = w.result.pairs
        self.assertEqual(w.heatmap.attributes, list(pairs.attributes))
        self.assertEqual(len(w.heatmap.cells), 6 * 5)
        # the darkest cell is the pair with the smallest p
        best = (int(pairs.first[0]), int(pairs.second[0]))
        lightness = {pair: rect.brush().color().lightness()
                     for pair, rect in w.heatmap.cells.items()}
        self.assertEqual(min(lightness, key=lightness.get) in (best, best[::-1]), True)
        self.assertIn("rs0 × rs1", w.heatmap.cells[best].toolTip())

    def test_save_image_writes_the_heatmap(self):
        from saved_image import n_colours, saved_image
        w = self.widget
        w.show()
        w.n_permutations = 20
        self.run_on(self.data)
        image = saved_image(w)
        self.assertFalse(image.isNull())
        self.assertGreaterEqual(image.width(), w.heatmap_scene.sceneRect().width())
        self.assertGreater(n_colours(image, step=3), 2)

    # --- cancel
    def test_cancel_stops_the_computation_within_a_second(self):
        # the kernels for these data compiled (or read from the cache) first: numba's first
        # use of a kernel is not interruptible, and is announced in the status bar instead
        data = snps(n_instances=400, n_snps=80)
        interacting_pairs(encode_table(data)[0], top=60, estimator=MultiSURF(),
                          n_permutations=1)
        w = self.widget
        w.top = 60
        w.n_permutations = 2000            # minutes of work
        self.send_signal(w.Inputs.data, data)
        task = w.task
        self.assertIsNotNone(task)
        time.sleep(1.0)                    # under way
        QApplication.processEvents()
        start = time.perf_counter()
        w.cancel()
        concurrent.futures.wait([task.future], timeout=5)
        self.assertTrue(task.future.done())
        self.assertLess(time.perf_counter() - start, 1.0)
        self.assertIsNone(w.task)

    def test_pairs_task_raises_cancelled_once_interruption_is_requested(self):
        state = TaskState()
        state._TaskState__interruption_requested = True
        with self.assertRaises(Cancelled):
            pairs_task(self.data, 5, None, MultiSURF(), 10, 0, state)

    def test_a_new_setting_cancels_the_running_computation(self):
        w = self.widget
        w.n_permutations = 500
        self.send_signal(w.Inputs.data, self.data)
        first = w.task
        w.controls.n_permutations.setValue(15)
        self.assertTrue(first is None or first.is_interruption_requested())
        self.wait_until_finished(timeout=TIMEOUT)
        self.assertEqual(w.result.pairs.n_permutations, 15)

    def test_nothing_of_the_previous_result_shows_while_the_next_is_computed(self):
        w = self.widget
        w.n_permutations = 10
        self.run_on(self.data)
        w.view.selectRow(0)
        self.assertIsNotNone(self.get_output(w.Outputs.selected_data))
        self.assertGreater(w.model.rowCount(), 0)
        self.assertTrue(w.heatmap.cells)
        w.n_permutations = 2000                 # a long run on other data
        self.send_signal(w.Inputs.data, snps(seed=1))
        self.assertIsNotNone(w.task)
        self.assertEqual(w.model.rowCount(), 0)
        self.assertFalse(w.heatmap.cells)
        self.assertEqual(w.heatmap_scene.items(), [])
        sent = self.signal_manager.outputs         # (without waiting for the computation)
        self.assertIsNone(sent.get((w, w.Outputs.pairs.name)))
        self.assertIsNone(sent.get((w, w.Outputs.selected_data.name)))
        self.assertNotIn("pairs of", w.summary.text())
        w.controls.n_permutations.setValue(10)   # a new setting: emptied as well
        self.assertEqual(w.model.rowCount(), 0)
        self.wait_until_finished(timeout=TIMEOUT)
        self.assertGreater(w.model.rowCount(), 0)
        self.assertIsNotNone(self.get_output(w.Outputs.pairs))

    # --- messages
    def test_unsuitable_data_show_messages_not_tracebacks(self):
        w = self.widget
        domain = self.data.domain
        self.send_signal(w.Inputs.data, self.data.transform(Domain(domain.attributes)))
        self.assertTrue(w.Error.no_class.is_shown())
        self.assertIsNone(self.get_output(w.Outputs.pairs))
        housing = Table("housing")[:50]
        self.send_signal(w.Inputs.data, housing)
        self.assertTrue(w.Error.numeric_target.is_shown())
        self.assertIn("MEDV", w.Error.numeric_target.formatted)
        self.assertFalse(w.Error.no_class.is_shown())
        # one attribute: no pair
        self.run_on(self.data.transform(Domain(domain.attributes[:1], domain.class_var)))
        self.assertTrue(w.Error.unsuitable.is_shown())
        self.assertIn("two attributes", w.Error.unsuitable.formatted)
        self.assertFalse(w.Error.numeric_target.is_shown())
        # numeric attributes are named, with the way out
        numeric = Domain([ContinuousVariable("x")] + list(domain.attributes[1:]),
                         domain.class_var)
        self.run_on(self.data.transform(numeric).copy())
        self.assertIn("x", w.Error.unsuitable.formatted)
        self.assertIn("discretize", w.Error.unsuitable.formatted)
        self.assertTrue(w.Error.unsuitable.formatted[0].isupper())
        self.assertIsNone(self.get_output(w.Outputs.pairs))
        # a single class
        self.run_on(self.data[self.data.Y == 0])
        self.assertIn("two classes", w.Error.unsuitable.formatted)
        # good data again: no message left
        w.n_permutations = 10
        self.run_on(self.data)
        self.assertFalse(w.Error.active)
        self.assertIsNotNone(self.get_output(w.Outputs.pairs))

    def test_fewer_than_two_chosen_attributes_is_an_error_and_missing_classes_a_warning(self):
        w = self.widget
        w.n_permutations = 10
        data = self.data.copy()
        with data.unlocked(data.Y):
            data.Y[:3] = np.nan
        self.run_on(data)
        self.assertTrue(w.Warning.missing_class.is_shown())
        w.attr_list.selectionModel().select(w.attr_model.index(2),
                                            w.attr_list.selectionModel().Select)
        self.wait_until_finished(timeout=TIMEOUT)
        self.assertTrue(w.Error.unsuitable.is_shown())
        self.assertIn("Choose at least two attributes", w.Error.unsuitable.formatted)
        w.choice_buttons.button(w.BestRanked).click()
        self.wait_until_finished(timeout=TIMEOUT)
        self.assertFalse(w.Error.active)

    def test_fewer_attributes_than_the_top_says_so(self):
        w = self.widget
        w.n_permutations = 10
        self.run_on(self.data)                      # 8 attributes, top 20
        self.assertTrue(w.Information.all_tested.is_shown())
        self.assertIn("8 attributes", w.summary.text())
        w.controls.top.setValue(5)
        self.wait_until_finished(timeout=TIMEOUT)
        self.assertFalse(w.Information.all_tested.is_shown())

    def test_one_attribute_is_only_an_error_and_one_pair_is_said_in_the_singular(self):
        w = self.widget
        w.n_permutations = 10
        domain = self.data.domain
        self.run_on(self.data.transform(Domain(domain.attributes[:1], domain.class_var)))
        self.assertTrue(w.Error.unsuitable.is_shown())
        self.assertFalse(w.Information.all_tested.is_shown())     # (no pairs to test)
        self.run_on(self.data.transform(Domain(domain.attributes[:2], domain.class_var)))
        self.assertFalse(w.Error.active)
        self.assertTrue(w.summary.text().startswith("1 pair of 2 attributes;"),
                        w.summary.text())
        self.assertIn("10 permutations", w.summary.text())
        self.assertIn("The data have 2 attributes,", w.Information.all_tested.formatted)

    # --- settings and report
    def test_settings_and_selection_survive_saving(self):
        w = self.widget
        w.n_permutations = 25
        w.random_state = 3
        self.choose_estimator("ReliefF")
        w.params_stack.editors["ReliefF"].controls["k"].setValue(5)
        w.top = 4
        self.run_on(self.data)
        w.view.selectRow(1)
        pair = {a.name for a in self.get_output(w.Outputs.selected_data).domain.attributes}
        settings = w.settingsHandler.pack_data(w)
        self.assertEqual(settings[VERSION_KEY], OWInteractingPairs.settings_version)
        widget = ranked(self.create_widget(OWInteractingPairs, stored_settings=settings))
        self.run_on(self.data, widget=widget)
        self.assertEqual((widget.top, widget.n_permutations, widget.random_state,
                          widget.estimator_name), (4, 25, 3, "ReliefF"))
        self.assertEqual(widget.estimator_combo.currentText(), "ReliefF")
        self.assertEqual(widget.params_stack.arguments("ReliefF"), {"k": 5})
        np.testing.assert_array_equal(widget.result.pairs.pvalues, w.result.pairs.pvalues)
        out = self.get_output(widget.Outputs.selected_data, widget=widget)
        self.assertEqual({a.name for a in out.domain.attributes}, pair)
        # chosen attributes are kept with the data
        for row in (1, 2):
            widget.attr_list.selectionModel().select(widget.attr_model.index(row),
                                                     widget.attr_list.selectionModel().Select)
        self.wait_until_finished(widget=widget, timeout=TIMEOUT)
        settings = widget.settingsHandler.pack_data(widget)
        again = ranked(self.create_widget(OWInteractingPairs, stored_settings=settings))
        self.run_on(self.data, widget=again)
        self.assertEqual(again.attribute_choice, again.Chosen)
        self.assertEqual([a.name for a in again.chosen_attrs], ["rs1", "rs2"])
        self.assertEqual(list(again.result.pairs.attributes), [1, 2])

    def test_settings_without_a_version_and_an_unknown_estimator_load(self):
        widget = ranked(self.create_widget(OWInteractingPairs, stored_settings={
            "top": 7, "estimator_name": "NoSuchEstimator", "estimator_params": {"x": 1}}))
        self.assertEqual(widget.top, 7)
        self.assertEqual(widget.estimator_name, "MultiSURF")
        widget.n_permutations = 10
        self.run_on(self.data, widget=widget)
        self.assertFalse(widget.Error.active)

    def test_names_of_40_characters_show_in_full_longer_ones_shortened_with_full_tooltips(self):
        # at a desktop's default size, 9 pt DejaVu Sans at 96 dpi (12 px, PyQt6's offscreen
        # default). Not at PyQt5's offscreen default, 12 pt at 100 dpi (17 px, larger than
        # big_font): there two name columns of 40 characters (376 px each), the other columns
        # (401 px) and the controls (330 px) are wider than a 1366-pixel screen; the names at
        # 12 pt are checked by TestOWInteractingPairsBigFont
        font = QApplication.font()
        QApplication.setFont(dejavu_sans(9))
        try:
            self.widget = ranked(self.create_widget(OWInteractingPairs))
            self.check_40_character_names()
        finally:
            QApplication.setFont(font)

    def check_40_character_names(self):
        w = self.widget
        w.show()
        w.n_permutations = 10
        data = self.data
        # names of 40 and 60 characters (of average width, as text is)
        names = ["expression_in_tissue_sample_of_probe_001",
                 "expression_in_tissue_sample_of_patient_cohort_A_probe_000002"] \
            + [a.name for a in data.domain.attributes[2:]]
        self.assertEqual([len(n) for n in names[:2]], [40, 60])
        renamed = Domain([a.renamed(n) for a, n in zip(data.domain.attributes, names)],
                         data.domain.class_var, data.domain.metas)
        self.run_on(Table.from_numpy(renamed, data.X, data.Y, metas=data.metas))
        view, model = w.view, w.model
        metrics = view.fontMetrics()
        for column in (1, 2):
            width = view.columnWidth(column)
            # a 40-character name fits its column (with the cell's margins)
            self.assertGreaterEqual(width, metrics.horizontalAdvance(names[0]) + 8)
            # a 60-character name does not: shortened in the middle, whole in the tooltip
            self.assertLess(width, metrics.horizontalAdvance(names[1]))
        self.assertEqual(view.textElideMode(), Qt.ElideMiddle)
        tip = Qt.ToolTipRole
        row = next(r for r in range(model.rowCount())
                   if names[1] in (model.index(r, 1).data(tip), model.index(r, 2).data(tip)))
        column = 1 if model.index(row, 1).data(tip) == names[1] else 2
        shown = model.index(row, column).data()
        self.assertIn("…", shown)
        self.assertLessEqual(metrics.horizontalAdvance(shown), view.columnWidth(column))
        self.assertTrue(shown.endswith("000002"), shown)     # the end that tells it apart
        self.assertEqual(elided_in_table(view), [])

    def test_columns_are_as_wide_as_the_widest_text_of_all_pairs(self):
        # the widths are measured on a few rows; measured on every row they are the same
        from types import SimpleNamespace
        from orangecontrib.relief.estimators.significance import benjamini_hochberg
        from orangecontrib.relief.widgets.pairsmodel import PairsModel, widest_rows

        class Pairs(SimpleNamespace):
            def __len__(self):
                return len(self.pvalues)

        rng = np.random.default_rng(1)
        n = 20000
        p = np.sort(10.0 ** -rng.uniform(0, 9, n))          # best first, as the engine's
        p[-5:] = np.nan                                      # untestable pairs last
        pairs = Pairs(first=np.zeros(n, int), second=np.ones(n, int), pvalues=p,
                      qvalues=benjamini_hochberg(p), statistics=rng.exponential(50, n),
                      df=rng.integers(1, 30, n).astype(float))
        model = PairsModel()
        model.pairs, model.names = pairs, ["a", "b"]
        metrics = self.widget.view.fontMetrics()
        rows = widest_rows(pairs)
        self.assertLess(len(rows), 200)
        for column in range(3, len(COLUMNS)):
            every = max(metrics.horizontalAdvance(model.text(r, column)) for r in range(n))
            measured = max(metrics.horizontalAdvance(model.text(int(r), column)) for r in rows)
            self.assertEqual(measured, every, COLUMNS[column][0])

    def test_all_pairs_are_the_scan_of_every_pair(self):
        """"All pairs": the scan's pairs (an independent call of scan_pairs), its summary, the
        heatmap of the best pairs' attributes, no ranking or permutations, and a report."""
        from orangecontrib.relief.estimators.interactions import scan_pairs
        w = self.widget
        self.run_on(self.data)
        w.choice_buttons.button(w.AllPairs).click()
        self.wait_until_finished(timeout=TIMEOUT)
        self.assertEqual(w.attribute_choice, w.AllPairs)
        self.assertFalse(w.ranking_box.isEnabled())
        self.assertFalse(w.significance_box.isEnabled())
        want = scan_pairs(self.encoded)
        out = self.get_output(w.Outputs.pairs)
        self.assertEqual(len(out), 28)
        np.testing.assert_array_equal(out.get_column("statistic"), want.statistics)
        np.testing.assert_array_equal(out.get_column("p"), want.pvalues)
        np.testing.assert_array_equal(out.get_column("q"), want.qvalues)
        self.assertEqual(self.shown_rows()[0][1:3], ["rs0", "rs1"])
        self.assertIn("of 28 (every pair of 8 attributes)", w.summary.text())
        self.assertIn("chi-square", w.summary.text())
        self.assertEqual(w.heatmap.attributes[:2], [0, 1])
        w.send_report()
        self.assertIn("all pairs", w.report_html)
        self.assertNotIn("Permutations", w.report_html)

    def test_automatic_scans_every_pair_where_the_scan_fits_else_ranks(self):
        """A new widget chooses as the engine's method "auto": every pair (the scan, as an
        independent call of scan_pairs) on data whose instances x pairs are within the scan's
        size, the pairs of the best ranked above it (the scan's size made 0 here)."""
        from unittest import mock

        from orangecontrib.relief.estimators import interactions
        from orangecontrib.relief.estimators.interactions import scan_pairs
        w = self.create_widget(OWInteractingPairs)
        self.assertEqual(w.attribute_choice, w.Automatic)
        w.top = 5
        w.n_permutations = 5
        self.run_on(self.data, widget=w)
        self.assertTrue(w.ranking_box.isEnabled() and w.significance_box.isEnabled())
        want = scan_pairs(self.encoded)
        out = self.get_output(w.Outputs.pairs, widget=w)
        self.assertEqual(w.result.pairs.method, "scan")
        np.testing.assert_array_equal(out.get_column("p"), want.pvalues)
        self.assertIn("of 28 (every pair of 8 attributes)", w.summary.text())
        with mock.patch.object(interactions, "SCAN_WORK", 0):
            w.restart()
            self.wait_until_finished(widget=w, timeout=TIMEOUT)
        want = interacting_pairs(self.encoded, top=5, estimator=MultiSURF(), n_permutations=5,
                                 random_state=0)
        out = self.get_output(w.Outputs.pairs, widget=w)
        self.assertEqual(w.result.pairs.method, "filter")
        np.testing.assert_array_equal(out.get_column("p"), want.pvalues)
        np.testing.assert_array_equal(out.get_column("statistic"), want.statistics)
        self.assertIn("the 5 attributes MultiSURF ranks best", w.summary.text())
        w.send_report()
        self.assertIn("automatic", w.report_html)

    def test_report(self):
        w = self.widget
        w.n_permutations = 10
        self.run_on(self.data)
        w.send_report()
        html = w.report_html
        self.assertIn("Ranked by", html)
        self.assertIn("rs0", html)


class TestOWInteractingPairsBigFont(BigFont, WidgetTest):
    def setUp(self):
        self.widget = ranked(self.create_widget(OWInteractingPairs))

    def test_nothing_is_elided_and_the_widget_fits_a_laptop_screen_at_12_pt(self):
        # G² of four digits, p-values in scientific notation, 30 attributes: the widest texts
        w = self.widget
        w.show()
        w.resize(w.sizeHint())
        w.top = 30
        w.n_permutations = 10
        data = snps(n_instances=2000, n_snps=30)
        self.send_signal(w.Inputs.data, data, widget=w)
        self.wait_until_finished(widget=w, timeout=TIMEOUT)
        self.process_events()
        self.assertFalse(w.Error.active)
        self.assertGreater(w.result.pairs.statistics.max(), 1000)
        self.assertEqual(elided_in_table(w.view), [])
        for size in (w.sizeHint(), w.minimumSizeHint(), w.size()):
            self.assertLessEqual(size.width(), 1366)
            self.assertLessEqual(size.height(), 768)
        view = w.view
        widths = sum(view.columnWidth(c) for c in range(len(COLUMNS)))
        self.assertLessEqual(widths, view.viewport().width())      # every column in view
        self.assertEqual(len(w.heatmap.attributes), 25)

    def test_sixty_character_names_that_differ_in_the_middle_at_9_and_12_pt(self):
        # names as a genome-wide table's: chromosome and position in the middle, a gene at
        # the end, a shared description between them
        from AnyQt.QtGui import QFont
        big = QApplication.font()
        for font in (QFont("DejaVu Sans", 9), big):
            with self.subTest(points=font.pointSizeF()):
                QApplication.setFont(font)
                try:
                    self.check_long_names()
                finally:
                    QApplication.setFont(big)

    def check_long_names(self):
        w = ranked(self.create_widget(OWInteractingPairs))
        w.show()
        w.resize(w.sizeHint())
        w.n_permutations = 10
        data = snps(n_instances=300, n_snps=30)
        names = [f"chr{i % 22 + 1}_rs{1000000 + i}_intergenic_region_of_cohort_A_near_GENEB_"
                 f"{i:03d}" for i in range(30)]
        self.assertTrue(all(59 <= len(n) <= 60 for n in names), names)
        domain = Domain([a.renamed(n) for a, n in zip(data.domain.attributes, names)],
                        data.domain.class_var)
        self.send_signal(w.Inputs.data, Table.from_numpy(domain, data.X, data.Y), widget=w)
        self.wait_until_finished(widget=w, timeout=TIMEOUT)
        w.resize(w.sizeHint())
        self.process_events()
        for size in (w.sizeHint(), w.minimumSizeHint(), w.size()):
            self.assertLessEqual(size.width(), 1366)
        # Orange's own test of a widget's minimum size (under 800 x 700): the table's pane
        # made its minimum as wide as its columns (1,340 pixels)
        self.check_minimum_size(w)
        view, model = w.view, w.model
        self.assertLessEqual(sum(view.columnWidth(c) for c in range(len(COLUMNS))),
                             view.viewport().width())                 # q in view
        shown = {model.index(r, c).data() for r in range(model.rowCount()) for c in (1, 2)}
        self.assertEqual(len(shown), 20)                               # each name its own
        self.assertEqual(elided_in_table(view, 15), [])
        # the heatmap's pane shows cells beside the names, and its whole title
        heatmap = w.heatmap
        visible = heatmap.mapToScene(heatmap.viewport().rect()).boundingRect()
        cell = heatmap.cells[next(iter(heatmap.cells))]
        self.assertGreaterEqual(sum(visible.intersects(item.sceneBoundingRect())
                                    for item in heatmap.cells.values()), 2)
        self.assertGreater(cell.rect().width(), 10)
        title = [item for item in heatmap.scene_.items() if hasattr(item, "toPlainText")][0]
        self.assertLessEqual(title.sceneBoundingRect().right(), visible.right())
        w.onDeleteWidget()
