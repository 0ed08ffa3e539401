"""Locality Profile widget: the estimate-versus-k profile (Fig. 2), its correlation with myopic
estimates (Fig. 5), selection, settings, messages and cancel."""
import numpy as np

from Orange.data import ContinuousVariable, DiscreteVariable, Domain, Table
from Orange.widgets.tests.base import WidgetTest

from orangecontrib.relief.datasets import parity
from orangecontrib.relief.estimators.impurity import Accuracy, MyopicReliefF
from orangecontrib.relief.estimators.relieff import ReliefF
from orangecontrib.relief.orange_data import encode_table
from orangecontrib.relief.widgets.owlocalityprofile import OWLocalityProfile, correlation

from fonts import BigFont


class TestOWLocalityProfile(WidgetTest):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.parity = parity(order=2, n_irrelevant=10, n_instances=200)
        cls.encoded = encode_table(cls.parity)[0]

    def setUp(self):
        self.widget = self.create_widget(OWLocalityProfile)

    def run_on(self, data, k_max=100):
        self.widget.k_max = k_max
        self.send_signal(self.widget.Inputs.data, data)
        self.wait_until_finished(timeout=30000)
        return self.widget.result

    def test_profile_row_k_equals_relieff_searched_with_k_neighbours(self):
        # numeric data without distance ties, so each search finds the same neighbours
        rng = np.random.default_rng(1)
        X = rng.random((80, 5))
        domain = Domain([ContinuousVariable(f"x{i}") for i in range(5)],
                        DiscreteVariable("c", values=("a", "b")))
        data = Table.from_numpy(domain, X, (X[:, 0] > X[:, 1]).astype(float))
        result = self.run_on(data, k_max=30)
        np.testing.assert_array_equal(result.ks, np.arange(1, 31))
        for k in (1, 7, 30):
            np.testing.assert_allclose(result.profile[k - 1],
                                       ReliefF(k=k)(encode_table(data)[0]), atol=1e-12)

    def test_parity_informative_estimates_fall_towards_irrelevant_as_k_grows(self):
        # Fig. 2: I1, I2 clearly above the random attributes for small k, indistinguishable
        # from them when k covers whole classes.
        result = self.run_on(self.parity)
        small, last = result.profile[4], result.profile[-1]
        self.assertGreater(min(small[:2]), max(small[2:]) + 0.1)
        self.assertLess(abs(last[0] - last[2:].mean()), 0.05)
        self.assertEqual(len(result.ks), max(np.bincount(self.encoded.y.astype(int))))

    def test_correlations_are_eq15_with_myopic_relieff_and_accuracy(self):
        result = self.run_on(self.parity, k_max=20)
        myopic = MyopicReliefF()(self.encoded)
        accuracy = Accuracy()(self.encoded)
        got_myopic, got_accuracy = result.correlations.values()
        for i in (0, 19):
            self.assertAlmostEqual(got_myopic[i], np.corrcoef(result.profile[i], myopic)[0, 1])
            self.assertAlmostEqual(got_accuracy[i],
                                   np.corrcoef(result.profile[i], accuracy)[0, 1])

    def test_correlation_with_myopic_relieff_is_one_when_k_covers_the_classes(self):
        # eq. 5: with k = all (and discrete attributes) ReliefF is proportional to myopic
        # ReliefF; the largest k covers the larger class whole, the smaller one all but R itself
        result = self.run_on(self.parity)
        myopic = list(result.correlations.values())[0]
        self.assertGreater(myopic[-1], 0.9999)
        self.assertLess(myopic[4], 0.9)

    def test_correlation_ignores_nan_and_is_nan_for_constant_vectors(self):
        x = np.array([1.0, 2.0, np.nan, 4.0])
        y = np.array([2.0, 4.5, 1.0, 7.0])
        self.assertAlmostEqual(correlation(x, y), np.corrcoef([1, 2, 4], [2, 4.5, 7])[0, 1])
        self.assertTrue(np.isnan(correlation(np.ones(3), np.arange(3.0))))

    def test_clicking_curves_and_the_list_select_the_output_attributes(self):
        w = self.widget
        self.run_on(self.parity, k_max=10)
        self.assertIsNone(self.get_output(w.Outputs.selected_data))
        # a click on a curve toggles its attribute (the position: see the next test)
        w.toggle_attribute(0)
        w.toggle_attribute(3)
        out = self.get_output(w.Outputs.selected_data)
        self.assertEqual([a.name for a in out.domain.attributes], ["I1", "R2"])
        self.assertEqual(out.domain.class_var.name, "parity")
        w.toggle_attribute(0)     # a second click deselects
        self.assertEqual([a.name for a in self.get_output(w.Outputs.features)], ["R2"])
        w.attr_view.selectAll()
        self.assertEqual(len(self.get_output(w.Outputs.features)), 12)

    def test_a_mouse_click_on_a_grey_background_curve_selects_its_attribute(self):
        # The grey curves are one item: the attribute is found by the click's position. The
        # expected attribute comes from ReliefF run with each k on its own: the grey curve
        # (not among the ten highest) and k where every other curve, over the segments from
        # k - 1 to k + 1, stays farthest above or below it; a click on that point.
        from AnyQt.QtCore import QPoint, QPointF, Qt
        from AnyQt.QtTest import QTest
        from AnyQt.QtWidgets import QApplication
        rng = np.random.default_rng(4)        # a seed with a grey curve well apart
        X = rng.random((80, 25))
        domain = Domain([ContinuousVariable(f"x{i:02}") for i in range(25)],
                        DiscreteVariable("c", values=("a", "b")))
        data = Table.from_numpy(domain, X, (X[:, 0] > X[:, 1]).astype(float))
        encoded = encode_table(data)[0]
        profile = np.array([ReliefF(k=k)(encoded) for k in range(1, 11)])   # (k, attribute)
        top = np.argsort(-profile.max(axis=0), kind="stable")[:10]
        grey = [j for j in range(25) if j not in top]
        best_gap, target = -1, None
        for j in grey:
            for k in range(10):
                near = profile[max(k - 1, 0):k + 2] - profile[k, j]     # (3 or 2, attribute)
                others = np.delete(near, j, axis=1)
                same_side = (others > 0).all(axis=0) | (others < 0).all(axis=0)
                gap = np.where(same_side, np.abs(others).min(axis=0), 0).min()
                if gap > best_gap:
                    best_gap, target = gap, (j, k)
        j, k = target
        self.assertGreater(best_gap, 0.03 * np.ptp(profile))   # apart by several pixels
        w = self.widget
        self.run_on(data, k_max=10)
        np.testing.assert_allclose(w.result.profile, profile, atol=1e-12)
        self.assertNotIn(j, w.curves)                  # drawn grey, in the background item
        w.show()
        QApplication.processEvents()
        view = w.profile_plot.vb
        scene_point = view.mapViewToScene(QPointF(k + 1, profile[k, j]))
        pixel = w.profile_view.mapFromScene(scene_point)
        QTest.mouseClick(w.profile_view.viewport(), Qt.LeftButton, pos=QPoint(pixel))
        self.assertEqual([a.name for a in self.get_output(w.Outputs.features)], [f"x{j:02}"])
        self.assertEqual([label.text for _, label in w.profile_legend.items], [f"x{j:02}"])
        self.assertIn(j, w.curves)                     # now its own, coloured curve
        QTest.mouseClick(w.profile_view.viewport(), Qt.LeftButton, pos=QPoint(pixel))
        self.assertIsNone(self.get_output(w.Outputs.features))   # a second click deselects
        w._on_plot_hovered(scene_point)                # the mouse over the curve names it
        self.assertEqual(w.profile_view.toolTip(), f"x{j:02}")
        self.assertIsNone(w.curve_at(k + 1, profile.max() + np.ptp(profile)))   # far from all

    def test_a_large_selection_is_drawn_with_the_rest_as_one_curve(self):
        from orangecontrib.relief.widgets.owlocalityprofile import SELECTED_SHOWN
        rng = np.random.default_rng(0)
        X = rng.random((60, SELECTED_SHOWN + 5))
        domain = Domain([ContinuousVariable(f"x{i:02}") for i in range(X.shape[1])],
                        DiscreteVariable("c", values=("a", "b")))
        w = self.widget
        self.run_on(Table.from_numpy(domain, X, (X[:, 0] > X[:, 1]).astype(float)), k_max=5)
        w.attr_view.selectAll()
        self.assertEqual(len(self.get_output(w.Outputs.features)), SELECTED_SHOWN + 5)
        legend = [label.text for _, label in w.profile_legend.items]
        self.assertEqual(legend,
                         [f"x{i:02}" for i in range(SELECTED_SHOWN)] + ["+ 5 more selected"])
        self.assertEqual(sorted(w.curves), list(range(SELECTED_SHOWN)))
        self.assertIsNone(w.background)                # nothing left unselected
        # the rest: five curves of five points, broken by NaN between them
        x, y = w.rest.getData()
        self.assertEqual(np.isnan(y).sum(), 5)
        np.testing.assert_array_equal(y[~np.isnan(y)],
                                      w.result.profile[:, SELECTED_SHOWN:].T.ravel())

    def test_legend_names_the_coloured_curves_and_axes_have_no_scale_factor(self):
        w = self.widget
        self.run_on(self.parity, k_max=10)

        def legend():
            return [label.text for _, label in w.profile_legend.items]
        # without a selection, the ten highest curves; the informative attributes among them
        self.assertEqual(len(legend()), 10)
        self.assertLessEqual({"I1", "I2"}, set(legend()))
        w.toggle_attribute(3)
        self.assertEqual(legend(), ["R2"])
        for plot in (w.profile_plot, w.correlation_plot):
            for side in ("left", "bottom"):
                self.assertFalse(plot.getAxis(side).autoSIPrefix)
        self.assertNotIn("x0.0", w.profile_plot.getAxis("left").labelString())

    def test_selection_and_parameters_survive_saving(self):
        w = self.widget
        self.run_on(self.parity, k_max=12)
        w.toggle_attribute(1)
        settings = w.settingsHandler.pack_data(w)
        widget = self.create_widget(OWLocalityProfile, stored_settings=settings)
        self.send_signal(widget.Inputs.data, self.parity, widget=widget)
        self.wait_until_finished(widget=widget, timeout=30000)
        self.assertEqual(widget.k_max, 12)
        self.assertEqual(len(widget.result.ks), 12)
        self.assertEqual([a.name for a in self.get_output(widget.Outputs.features,
                                                          widget=widget)], ["I2"])

    def test_regression_profile_is_rrelieff_correlated_with_mse(self):
        result = self.run_on(Table("housing")[:120], k_max=15)
        self.assertEqual(list(result.correlations), ["MSE"])
        self.assertEqual(result.profile.shape, (15, 13))
        self.assertFalse(self.widget.Error.active)

    def test_unsuitable_data_show_errors_not_tracebacks(self):
        w = self.widget
        self.send_signal(w.Inputs.data, self.parity.transform(Domain(self.parity.domain.attributes)))
        self.assertTrue(w.Error.no_class.is_shown())
        self.run_on(self.parity[self.parity.Y == 0])
        self.assertTrue(w.Error.unsuitable.is_shown())
        self.assertIsNone(w.result)
        self.run_on(self.parity)
        self.assertFalse(w.Error.active)

    def test_k_larger_than_the_classes_is_capped_with_information(self):
        self.run_on(self.parity[:40], k_max=100)
        self.assertTrue(self.widget.Information.k_capped.is_shown())

    def test_a_new_setting_cancels_the_running_computation(self):
        w = self.widget
        w.k_max = 100
        self.send_signal(w.Inputs.data, self.parity)
        first = w.task
        w.k_max = 8
        w.restart()
        self.assertTrue(first is None or first.is_interruption_requested())
        self.wait_until_finished(timeout=30000)
        self.assertEqual(len(w.result.ks), 8)

    def test_report(self):
        self.run_on(self.parity, k_max=5)
        self.widget.send_report()
        self.assertIn("Largest k", self.widget.report_html)

    def test_a_myopic_measure_refusing_the_data_leaves_the_profile_with_a_warning(self):
        # a target near the largest float: MSE cannot be held by a float, RReliefF can
        data = Table("housing")[:60].copy()
        with data.unlocked(data.Y):
            data.Y[:] = data.Y * 2.0 ** 990
        result = self.run_on(data, k_max=5)
        self.assertFalse(self.widget.Error.active)
        self.assertTrue(np.all(np.isfinite(result.profile)))
        self.assertTrue(np.isnan(result.correlations["MSE"]).all())
        self.assertTrue(self.widget.Warning.no_reference.is_shown())
        self.assertIn("MSE", self.widget.Warning.no_reference.formatted)

    # --- the canvas review's defects: legend over the curves, a pale curve, a list that
    # could not be searched or sorted, nothing drawn for k = 1, a box titled ReliefF for RReliefF
    def test_legend_stands_beside_the_plot_not_over_it(self):
        w = self.widget
        self.run_on(self.parity)
        self.assertEqual(len(w.profile_legend.items), 10)
        plot_area = w.profile_plot.vb.sceneBoundingRect()
        legend = w.profile_legend.sceneBoundingRect()
        self.assertGreaterEqual(legend.left(), plot_area.right())
        self.assertFalse(legend.intersects(plot_area))

    def test_no_curve_colour_is_pale_on_white(self):
        from orangecontrib.relief.widgets.owlocalityprofile import curve_colours
        for n in (3, 12, 50, 500):
            for colour in curve_colours(n):
                luminance = 0.299 * colour.red() + 0.587 * colour.green() \
                    + 0.114 * colour.blue()
                self.assertLessEqual(luminance, 150, (n, colour.name()))

    def test_the_curves_drawn_each_in_its_own_have_distinct_colours(self):
        from itertools import combinations
        from orangecontrib.relief.widgets.owlocalityprofile import SELECTED_SHOWN, curve_colours

        def lab(colour):            # CIE L*a*b* of an sRGB colour (D65), written out
            rgb = np.array([colour.red(), colour.green(), colour.blue()]) / 255
            rgb = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
            x = (0.4124 * rgb[0] + 0.3576 * rgb[1] + 0.1805 * rgb[2]) / 0.95047
            y = 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2]
            z = (0.0193 * rgb[0] + 0.1192 * rgb[1] + 0.9505 * rgb[2]) / 1.08883
            f = [t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116 for t in (x, y, z)]
            return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])
        colours = [lab(c) for c in curve_colours(SELECTED_SHOWN)]
        distances = [np.linalg.norm(a - b) for a, b in combinations(colours, 2)]
        self.assertGreaterEqual(min(distances), 20)
        from AnyQt.QtGui import QColor
        grey = lab(QColor(190, 190, 190))           # the other attributes' curves
        self.assertGreaterEqual(min(np.linalg.norm(c - grey) for c in colours), 20)

    def test_the_list_has_no_sort_arrow_until_sorted_and_best_sorts_highest_first(self):
        from AnyQt.QtCore import QPoint, Qt
        from AnyQt.QtTest import QTest
        w = self.widget
        w.show()
        self.run_on(self.parity, k_max=5)
        header = w.attr_view.horizontalHeader()
        self.assertEqual(header.sortIndicatorSection(), -1)
        names = [w.attr_proxy.index(r, 0).data() for r in range(w.attr_proxy.rowCount())]
        self.assertEqual(names, [a.name for a in self.parity.domain.attributes])
        x = header.sectionViewportPosition(1) + header.sectionSize(1) // 2
        QTest.mouseClick(header.viewport(), Qt.LeftButton, pos=QPoint(x, header.height() // 2))
        self.assertEqual(header.sortIndicatorSection(), 1)
        best = w.result.profile.max(axis=0)
        shown = [w.attr_proxy.index(r, 1).data(Qt.UserRole)
                 for r in range(w.attr_proxy.rowCount())]
        self.assertEqual(shown, sorted(best, reverse=True))

    def test_save_image_writes_both_plots(self):
        from saved_image import n_colours, saved_image
        w = self.widget
        w.show()
        w.resize(1300, 680)
        self.run_on(self.parity, k_max=5)
        image = saved_image(w)
        self.assertFalse(image.isNull())
        both = w.profile_view.height() + w.correlation_view.height()
        self.assertGreaterEqual(image.height(), both)
        self.assertGreater(n_colours(image), 2)

    def test_sixty_character_names_keep_rows_one_line_and_the_best_column_in_view(self):
        w = self.widget
        w.show()
        w.resize(w.sizeHint())
        names = [f"{a.name} " + "expression of the probe set in the sample"[:58 - len(a.name)]
                 for a in self.parity.domain.attributes]
        domain = Domain([a.renamed(n) for a, n in zip(self.parity.domain.attributes, names)],
                        self.parity.domain.class_var)
        self.run_on(Table.from_numpy(domain, self.parity.X, self.parity.Y), k_max=5)
        self.process_events()
        view = w.attr_view
        line = view.fontMetrics().height()
        self.assertLess(view.rowHeight(0), 2 * line)          # one line of text, not wrapped
        header = view.horizontalHeader()
        right = header.sectionViewportPosition(1) + header.sectionSize(1)
        self.assertLessEqual(right, view.viewport().width())
        self.assertGreaterEqual(header.sectionSize(1), view.sizeHintForColumn(1))
        # the legend's names are shortened, the plot keeps most of the width
        self.assertGreater(w.profile_plot.vb.width(), w.profile_legend.boundingRect().width())

    def test_the_list_filters_and_sorts_and_keeps_the_selection(self):
        from AnyQt.QtCore import Qt
        w = self.widget
        self.run_on(self.parity)
        w.filter_edit.setText("i")                     # I1, I2 (names are matched in any case)
        shown = [w.attr_proxy.index(r, 0).data() for r in range(w.attr_proxy.rowCount())]
        self.assertEqual(sorted(shown), ["I1", "I2"])
        w.filter_edit.setText("")
        w.attr_view.sortByColumn(1, Qt.SortOrder.DescendingOrder)   # by the best estimate
        best = w.result.profile.max(axis=0)
        attrs = self.parity.domain.attributes
        first = [w.attr_proxy.index(r, 0).data() for r in range(3)]
        self.assertEqual(first, [attrs[i].name for i in np.argsort(-best, kind="stable")[:3]])
        w.attr_view.selectRow(0)
        self.assertEqual([a.name for a in self.get_output(w.Outputs.features)], [first[0]])

    def test_a_new_result_rewrites_the_best_estimates_of_the_list(self):
        from AnyQt.QtCore import Qt
        w = self.widget

        def listed():
            model = w.attr_model
            return {model.item(r, 0).text(): model.item(r, 1).data(Qt.UserRole)
                    for r in range(model.rowCount())}
        self.run_on(self.parity, k_max=20)
        w.attr_view.sortByColumn(1, Qt.SortOrder.DescendingOrder)
        w.attr_view.selectRow(0)
        first = w.attr_proxy.index(0, 0).data()
        best20 = dict(zip([a.name for a in self.parity.domain.attributes],
                          w.result.profile.max(axis=0)))
        self.assertEqual(listed(), best20)
        w.k_max = 1                                    # a new result for the same data
        w.restart()
        self.wait_until_finished(timeout=30000)
        best1 = dict(zip(best20, w.result.profile[0]))
        self.assertNotEqual(best1, best20)
        self.assertEqual(listed(), best1)
        order = [w.attr_proxy.index(r, 0).data() for r in range(w.attr_proxy.rowCount())]
        self.assertEqual(order, sorted(best1, key=lambda name: -best1[name]))   # re-sorted
        self.assertEqual([a.name for a in self.get_output(w.Outputs.features)], [first])
        housing = Table("housing")[:60]
        self.run_on(housing, k_max=5)                  # new data: new names
        self.assertEqual(set(listed()), {a.name for a in housing.domain.attributes})

    def test_list_rows_are_as_high_as_their_contents(self):
        w = self.widget
        self.run_on(self.parity, k_max=5)
        view = w.attr_view
        heights = {view.rowHeight(r) for r in range(w.attr_proxy.rowCount())}
        self.assertEqual(len(heights), 1)
        # as a row resized to its contents (the name with its icon) would be
        self.assertEqual(heights.pop(), view.sizeHintForRow(0))

    def test_one_k_is_drawn_as_dots(self):
        w = self.widget
        self.run_on(self.parity, k_max=1)
        self.assertEqual(list(w.result.ks), [1])
        items = [*w.curves.values(), w.background]
        self.assertEqual(len(items), 11)        # the ten in the legend, the others as one
        self.assertTrue(all(item.opts.get("symbol") == "o" for item in items))
        self.run_on(self.parity, k_max=5)
        items = [*w.curves.values(), w.background]
        self.assertTrue(all(item.opts.get("symbol") is None for item in items))

    def test_settings_box_is_named_after_the_estimator_it_runs(self):
        w = self.widget
        self.assertEqual(w.settings_box.title().strip(), "ReliefF / RReliefF")
        self.run_on(Table("housing")[:60], k_max=5)
        self.assertEqual(w.settings_box.title().strip(), "RReliefF")
        self.run_on(self.parity, k_max=5)
        self.assertEqual(w.settings_box.title().strip(), "ReliefF")


class TestLegendOfLongNames(BigFont, WidgetTest):
    """Names of 60 characters that differ only in the middle (gene identifiers with a shared
    description), at 12 pt: the legend tells them apart and leaves the plot most of the width."""
    def setUp(self):
        self.widget = self.create_widget(OWLocalityProfile)

    def test_the_legend_shows_what_tells_the_names_apart(self):
        data = parity(order=2, n_irrelevant=10, n_instances=200)
        names = [f"ENSG{i:011d}_probe_set_transcript_variant_long_gene_name_"
                 for i in range(len(data.domain.attributes))]
        domain = Domain([a.renamed(n) for a, n in zip(data.domain.attributes, names)],
                        data.domain.class_var)
        w = self.widget
        w.k_max = 20
        w.show()
        w.resize(w.sizeHint())
        self.send_signal(w.Inputs.data, Table.from_numpy(domain, data.X, data.Y))
        self.wait_until_finished(timeout=120000)
        self.process_events()
        items = w.profile_legend.items
        labels = [label.text for _, label in items]
        self.assertEqual(len(labels), 10)
        self.assertEqual(len(set(labels)), len(labels), labels)       # each its own
        shown = list(w.curves)                  # (in the order of the legend)
        for (_, label), i in zip(items, shown):
            self.assertEqual(label.toolTip(), names[i])                 # in full
            self.assertIn(f"{i:02d}_probe", label.text)                 # the digits that differ
        self.assertLessEqual(w.profile_legend.boundingRect().width(),
                             0.4 * w.profile_view.width())


def test_names_shown_together_keep_what_tells_them_apart():
    from orangecontrib.relief.widgets.names import distinguishing
    genes = [f"ENSG{i:011d}_probe_set_transcript_variant_long_gene_name_" for i in (0, 1, 12)]
    assert distinguishing(genes, 24) == ["ENSG0…0000000_probe_set…", "ENSG0…0000001_probe_set…",
                                         "ENSG0…0000012_probe_set…"]
    snps = [f"chr{c}_rs{r}_intergenic_region_near_GENEB_{g}"
            for c, r, g in ((1, 1000000, "000"), (2, 1000001, "001"))]
    # (the part between the shared "chr" and nothing shared at the end, shortened in the middle)
    assert distinguishing(snps, 24) == ["…1_rs1000000…r_GENEB_000", "…2_rs1000001…r_GENEB_001"]
    # nothing shared: shortened in the middle
    assert distinguishing(["I1", "expression_in_tissue_sample"], 24) == \
        ["I1", "expression_…ssue_sample"]
    assert distinguishing(["a", "b"], 24) == ["a", "b"]
    assert all(len(name) <= 24 for name in distinguishing(genes + snps, 24))
