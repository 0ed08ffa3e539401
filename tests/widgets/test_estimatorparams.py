"""The shared parameter editor: controls derived from the estimator's description (kind, label,
range, choices, tooltip, basic or advanced), values kept in the given dict, stale entries
dropped, and a new estimator's editor from nothing but its declaration."""
import unittest

from orangewidget.tests.base import GuiTest

from orangecontrib.relief.estimators.base import Estimator
from orangecontrib.relief.estimators.description import Param
from orangecontrib.relief.estimators.relieff import ReliefF
from orangecontrib.relief.widgets.estimatorparams import ParameterEditor, describe, non_default


class Newer(Estimator):
    """A newer estimator, known only by its description."""
    name = "Newer"
    default_k = 10
    parameters = (
        Param("k", "int", None, "Neighbours", low=1, none="the default", tooltip="k near"),
        Param("strength", "float", 0.5, "Strength", low=0, high=4, advanced=True,
              tooltip="scales every update"),
        Param("exact", "bool", True, "Count ties exactly", tooltip="ties"),
        Param("method", "choice", "fast", "Method", choices=(("fast", "quickly"),
                                                            ("slow", "thoroughly"))),
        Param("repeats", "int", None, "Repeats", low=1, none="once"),
        Param("other", "estimator", None, "Base", none="ReliefF"))

    def __init__(self, k=None, strength=0.5, exact=True, method="fast", repeats=None,
                 other=None):
        self.k, self.strength, self.exact = k, strength, exact
        self.method, self.repeats, self.other = method, repeats, other


class TestParameterEditor(GuiTest):      # its QApplication suits the report's web view
    def test_controls_from_the_description(self):
        values = {"k": 4, "removed_parameter": 1, "strength": "not a number", "method": "gone"}
        editor = ParameterEditor(Newer, values)
        # an estimator parameter gets no control; stale and wrong-typed entries are replaced
        self.assertEqual(list(editor.controls), ["k", "strength", "exact", "method", "repeats"])
        self.assertEqual(values, {"k": 4, "strength": 0.5, "exact": True, "method": "fast",
                                  "repeats": None})
        self.assertEqual(editor.controls["strength"].toolTip(), "scales every update")
        self.assertEqual(editor.labels["k"].text(), "Neighbours:")
        self.assertEqual(editor.controls["strength"].maximum(), 4)
        combo = editor.controls["method"]
        self.assertEqual([combo.itemText(i) for i in range(combo.count())],
                         ["quickly", "thoroughly"])
        # k's None stands for the class's default 10, so k offers no None; repeats does
        self.assertEqual(editor.controls["k"].minimum(), 1)
        self.assertEqual(editor.controls["repeats"].specialValueText(), "once")
        self.assertIs(editor.controls["strength"].parentWidget(), editor.advanced.content)
        self.assertIsNot(editor.controls["k"].parentWidget(), editor.advanced.content)
        editor.controls["strength"].setValue(2.0)
        self.assertEqual(non_default(Newer, values), {"k": 4, "strength": 2.0})
        editor.controls["k"].setValue(10)                 # the class's own default
        self.assertEqual(non_default(Newer, values), {"strength": 2.0})
        self.assertEqual(describe("method", "slow", Newer), ("Method", "thoroughly"))
        self.assertEqual(describe("repeats", None, Newer), ("Repeats", "once"))

    def test_relieff_editor_follows_its_declaration(self):
        values = {}
        editor = ParameterEditor(ReliefF, values)
        declared = [p.name for p in ReliefF.parameters]
        self.assertEqual(list(editor.controls), declared)
        self.assertEqual(values["k"], 10)
        self.assertEqual(values["weighting"], "equal")
        # sigma applies only with the rank weighting, the ramp's thresholds with the ramp
        self.assertFalse(editor.controls["sigma"].isEnabled())
        self.assertFalse(editor.controls["t_equal"].isEnabled())
        combo = editor.controls["weighting"]
        combo.setCurrentIndex(combo.findData("exp-rank"))
        combo.activated.emit(combo.currentIndex())
        self.assertTrue(editor.controls["sigma"].isEnabled())
        for name, param in zip(declared, ReliefF.parameters):
            self.assertEqual(editor.controls[name].toolTip(), param.tooltip)


if __name__ == "__main__":
    unittest.main()
