"""Bit planes of value codes decoded with numpy (:mod:`.packed` holds how they are laid out and
the kernels that read them).

A code v in 0..3 of attribute u is bit u % 64 of word u // 64 of two planes, (v & 1, v >> 1);
:func:`unpack` gives the codes back, for reading a :class:`.packed.PackedColumns` as an array
and for the numpy equivalents of the kernels (:mod:`.vectorised`).
"""
import numpy as np

__all__ = ["MAX_VALUES", "unpack"]

#: the most values a packed attribute may have (two bits)
MAX_VALUES = 4

#: cells decoded at a time by :func:`unpack` (its temporary words take 16 bytes a cell)
UNPACK_CELLS = 2 ** 22


def unpack(planes, rows, columns):
    """(len(rows), len(columns)) int8: the codes of columns ``columns`` of instances ``rows``
    held in bit planes (:func:`.packed.pack_planes` over all columns), decoded a block at a
    time."""
    rows, columns = np.asarray(rows, np.intp), np.asarray(columns, np.intp)
    out = np.empty((rows.size, columns.size), np.int8)
    words, bits = columns >> 6, (columns & 63).astype(np.uint64)
    step = max(1, UNPACK_CELLS // max(columns.size, 1))
    for lo in range(0, rows.size if columns.size else 0, step):
        block = planes[rows[lo:lo + step, None, None], np.arange(2)[:, None],
                       words]                                       # (b, 2, columns)
        out[lo:lo + step] = ((block[:, 0] >> bits) & np.uint64(1)) \
            | (((block[:, 1] >> bits) & np.uint64(1)) << np.uint64(1))
    return out
