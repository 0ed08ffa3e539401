"""Orange's widget discovery, run over the installed distribution's ``orange.widgets`` entry
point, finds the Relief category with every widget and an existing icon for each."""
import importlib
import os
import unittest

from orangecanvas.registry import WidgetRegistry
from Orange.canvas.config import Config

#: the widgets of this add-on (module qualified names), as saved in .ows files
WIDGETS = {
    "Attribute Estimation": "orangecontrib.relief.widgets.owattributeestimation."
                            "OWAttributeEstimation",
    "Locality Profile": "orangecontrib.relief.widgets.owlocalityprofile.OWLocalityProfile",
    "Interacting Pairs": "orangecontrib.relief.widgets.owinteractingpairs.OWInteractingPairs",
    "Relief Tree": "orangecontrib.relief.widgets.owrelieftree.OWReliefTree",
}


def relief_registry():
    """A registry filled by discovery over this distribution's entry points only."""
    config = Config()
    registry = WidgetRegistry()
    entry_points = [ep for ep in config.widgets_entry_points()
                    if ep.dist is not None and ep.dist.name == "Orange3-Relief"]
    config.widget_discovery(registry).run(entry_points)
    return registry


class TestDiscovery(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.registry = relief_registry()

    def test_relief_category_has_every_widget(self):
        names = [c.name for c in self.registry.categories()]
        self.assertIn("Relief", names)
        found = {w.name: w.qualified_name for w in self.registry.widgets("Relief")}
        for name, qualified_name in WIDGETS.items():
            self.assertEqual(found.get(name), qualified_name)

    def test_every_widget_and_the_category_have_an_existing_svg_icon(self):
        category = self.registry.category("Relief")
        descriptions = [category] + self.registry.widgets("Relief")
        for desc in descriptions:
            icon = desc.icon
            self.assertTrue(icon.endswith(".svg"), (desc.name, icon))
            if not os.path.isabs(icon):       # relative to the widget's / category's package
                package = importlib.import_module(desc.package)
                icon = os.path.join(os.path.dirname(package.__file__), icon)
            self.assertTrue(os.path.isfile(icon), (desc.name, icon))
            with open(icon, encoding="utf-8") as f:
                self.assertIn("<svg", f.read())

    def test_widgets_have_keywords_priority_and_description(self):
        for desc in self.registry.widgets("Relief"):
            self.assertTrue(desc.keywords, desc.name)
            self.assertTrue(desc.description, desc.name)
            self.assertIsInstance(desc.priority, int)


if __name__ == "__main__":
    unittest.main()
