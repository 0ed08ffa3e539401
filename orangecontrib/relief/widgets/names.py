"""How the widgets show attribute names that may be long (gene and probe names of 60 characters):
in full up to :data:`NAME_CHARACTERS` characters, longer ones shortened in the middle, "…", where
the full name is at hand (a tooltip, a list beside the plot)."""

__all__ = ["NAME_CHARACTERS", "shorten"]

#: the tables' name columns show names up to about this many characters in full (longer ones
#: are shortened in the middle by the view, their tooltips in full)
NAME_CHARACTERS = 40


def shorten(name, length):
    """``name`` shortened in the middle to ``length`` characters: its first and last
    ``(length - 1) // 2`` characters around "…" (unchanged if it is no longer)."""
    if len(name) <= length:
        return name
    half = (length - 1) // 2
    return f"{name[:half]}…{name[-half:]}"
