"""Widgets of the Relief category."""
NAME = "Relief"
DESCRIPTION = "Non-myopic attribute estimation (Relief family, Contextual Merit, Pi), CORE trees, OBLIVION."
BACKGROUND = "#FAC1D9"
ICON = "icons/category.svg"
PRIORITY = 2100

# Help pages for the canvas (``orange.canvas.help`` entry point, html-index provider): the
# documentation built from doc/ with Sphinx in a development checkout.
WIDGET_HELP_PATH = (
    ("{DEVELOP_ROOT}/doc/_build/html/index.html", None),
)
