"""Widgets of the Relief category."""
NAME = "Relief"
DESCRIPTION = "Non-myopic attribute estimation (Relief family, Contextual Merit, Pi), CORE trees, OBLIVION."
BACKGROUND = "#FAC1D9"
ICON = "icons/category.svg"
PRIORITY = 2100
