"""Widgets of the Relief category."""
import os

NAME = "Relief"
DESCRIPTION = "Non-myopic attribute estimation (Relief family, Contextual Merit, Pi), CORE trees, OBLIVION."
BACKGROUND = "#FAC1D9"
ICON = "icons/category.svg"
PRIORITY = 2100

# Help pages for the canvas (``orange.canvas.help`` entry point, html-index provider): the HTML
# built from doc/ by doc/build_help.py and installed with the package in help/. An entry is
# (location, xpath): an absolute path (braces doubled, as orangecanvas formats it with
# str.format) and None for the default xpath, the links under id="widgets".
WIDGET_HELP_PATH = (
    (os.path.join(os.path.dirname(os.path.abspath(__file__)), "help", "index.html")
     .replace("{", "{{").replace("}", "}}"), None),
)
