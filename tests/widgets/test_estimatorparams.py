"""The shared parameter editor: controls from the estimator's signature, values kept in the
given dict, stale entries dropped, the Advanced section, and plain controls for parameters of a
newer estimator that the editor's table does not list."""
import unittest

from orangewidget.tests.base import GuiTest

from orangecontrib.relief.widgets.estimatorparams import ParameterEditor, non_default


class Newer:
    """A newer estimator. ``strength`` scales every update by this factor. ``exact``: count
    ties exactly."""

    def __init__(self, k=None, strength=0.5, exact=True, repeats=3, method="fast", other=None):
        self.k, self.strength, self.exact, self.repeats = k, strength, exact, repeats
        self.method, self.other = method, other

    default_k = 10


class TestParameterEditor(GuiTest):      # its QApplication suits the report's web view
    def test_known_and_plain_controls_with_tooltips_from_the_docstring(self):
        values = {"k": 4, "removed_parameter": 1, "strength": "not a number"}
        editor = ParameterEditor(Newer, values)
        # a string without known choices and an object parameter get no control
        self.assertEqual(list(editor.controls), ["k", "strength", "exact", "repeats"])
        self.assertEqual(values, {"k": 4, "strength": 0.5, "exact": True, "repeats": 3})
        self.assertIn("scales every update", editor.controls["strength"].toolTip())
        self.assertIn("count ties exactly", editor.controls["exact"].toolTip())
        self.assertIn("Newer", editor.controls["repeats"].toolTip())    # undocumented
        # the unlisted ones are advanced, k (listed) is basic
        self.assertIs(editor.controls["strength"].parentWidget(), editor.advanced.content)
        self.assertIsNot(editor.controls["k"].parentWidget(), editor.advanced.content)
        editor.controls["strength"].setValue(2.0)
        self.assertEqual(non_default(Newer, values), {"k": 4, "strength": 2.0})
        editor.controls["k"].setValue(10)                 # the class's own default
        self.assertEqual(non_default(Newer, values), {"strength": 2.0})


if __name__ == "__main__":
    unittest.main()
