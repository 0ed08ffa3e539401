"""How the widgets show attribute names that may be long (gene and probe names of 60 characters):
in full up to :data:`NAME_CHARACTERS` characters, longer ones shortened in the middle, "…", where
the full name is at hand (a tooltip, a list beside the plot); names shown together (a legend, a
heatmap's labels) without the start and end they all share, so that what tells them apart
shows."""
import os

__all__ = ["NAME_CHARACTERS", "shorten", "distinguishing"]

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


def distinguishing(names, length):
    """``names`` (shown together) each at most ``length`` characters long, keeping what tells
    them apart: a name that is too long keeps its part between the start and the end that all
    the names share (shortened in the middle if that is still too long), with as much of the
    shared start and end beside it as there is room for, each cut marked "…". Names that differ
    only in a few digits after a long common start, such as gene identifiers, read
    "ENSG0…01_probe_set_tr…" rather than "ENSG0000000…_gene_name_"."""
    names = list(names)
    if len(names) < 2 or all(len(name) <= length for name in names):
        return [shorten(name, length) for name in names]
    prefix = len(os.path.commonprefix(names))
    suffix = len(os.path.commonprefix([name[::-1] for name in names]))
    suffix = min(suffix, min(len(name) for name in names) - prefix)
    return [name if len(name) <= length else _around(name, prefix, suffix, length)
            for name in names]


def _around(name, prefix, suffix, length):
    """``name`` in ``length`` characters: its part between the first ``prefix`` and the last
    ``suffix`` characters, with as much of those as fits."""
    head, tail = name[:prefix], name[len(name) - suffix:]
    core = name[prefix:len(name) - suffix]
    marks = bool(head) + bool(tail)
    if len(core) + marks >= length:
        core = shorten(core, length - marks)
        return ("…" if head else "") + core + ("…" if tail else "")
    room = length - len(core) - marks
    keep_tail = min(len(tail), room // 2)
    keep_head = min(len(head), room - keep_tail)
    keep_tail = min(len(tail), room - keep_head)
    if keep_head < len(head):       # the shared start's beginning and its end next to the core
        end = keep_head // 2
        head = head[:keep_head - end] + "…" + head[len(head) - end:]
    return head + core + tail[:keep_tail] + ("…" if keep_tail < len(tail) else "")
