"""Missing genotype calls: how many keep a table off the estimators' bit-plane path, and filling
them with each attribute's most frequent value.

Genotypes (SNPs coded 0, 1, 2) without a missing call are held and compared as two bit planes, a
quarter of a byte a value, the distance between two instances counted by popcount
(:mod:`.estimators.neighbourhood.packed`). A single missing value sends the whole table to the
general path: the values held as numbers, the diffs of missing values by RELIEF-D's rules
(Kononenko 1994; Robnik-Šikonja & Kononenko 2003, §2.3), many times the time and more memory.
Filling each attribute's missing values with its most frequent value (mode imputation) keeps the
fast path; the few filled values then count as that value.

* :func:`fill_with_mode` fills an array of value codes (the one function behind the command
  line's ``--impute mode``, :func:`.readers.read_plink`'s ``impute="mode"`` and the widgets'
  option);
* :func:`impute_mode` fills the categorical attributes of an Orange ``Table``;
* :func:`missing_calls` counts the missing values that keep a table off the bit-plane path.

Only numpy is imported here: tables are read through their ``X``, ``Y`` and ``domain``.
"""
import numpy as np

__all__ = ["IMPUTATIONS", "fill_with_mode", "impute_mode", "missing_calls"]

#: how missing genotype calls may be filled: None leaves them missing, "mode" gives each
#: attribute (SNP) its most frequent value
IMPUTATIONS = (None, "mode")


def fill_with_mode(values, missing, counted=None):
    """``values`` (instances x attributes, integer value codes 0, 1, ... of any dtype) with its
    ``missing`` calls (a boolean array of the same shape) replaced by each attribute's most
    frequent value among the ``counted`` rows (a boolean array over the rows; None: all): the
    smaller code of a tie, 0 for an attribute without a value there. A copy; ``values``
    unchanged."""
    values = values.copy()
    counted = slice(None) if counted is None else np.asarray(counted, bool)
    for column in np.flatnonzero(missing.any(axis=0)):
        known = ~missing[:, column]
        calls = values[counted, column][known[counted]]
        mode = int(np.bincount(calls.astype(np.intp)).argmax()) if calls.size else 0
        values[missing[:, column], column] = mode
    return values


def _categorical_columns(domain):
    return np.array([var.is_discrete for var in domain.attributes], bool)


def missing_calls(table):
    """The number of missing values in ``table``'s attributes when they are what keeps it off
    the bit-plane path: every attribute categorical with at most four values (genotypes), at
    least as many as that path needs, dense data; else 0 (for such a table nothing is lost,
    or filling them would not give the path)."""
    from .estimators.neighbourhood.diffs import PACKED_MIN_COLUMNS
    from .estimators.neighbourhood.packed import MAX_VALUES
    attributes = table.domain.attributes
    if (len(attributes) < PACKED_MIN_COLUMNS or not isinstance(table.X, np.ndarray)
            or not all(var.is_discrete and len(var.values) <= MAX_VALUES
                       for var in attributes)):
        return 0
    return int(np.isnan(table.X).sum())


def impute_mode(table, count=False):
    """``table`` (an Orange ``Table``) with the missing values of its categorical attributes
    (such as genotype calls) filled by :func:`fill_with_mode`: each attribute's most frequent
    value among the instances with a known class (those an estimate uses; all instances without
    a class variable). Numeric attributes, the class and meta attributes are left as they are;
    the table itself when nothing is missing. With ``count``, ``(table, filled)``: the table
    and the number of values filled. ``ValueError`` for sparse data with missing values."""
    columns = np.flatnonzero(_categorical_columns(table.domain))
    if not isinstance(table.X, np.ndarray):
        if np.isnan(table.X.data).any():
            raise ValueError("filling missing values of sparse data is not supported: convert "
                             "the data to dense first")
        return (table, 0) if count else table
    values = table.X[:, columns]
    missing = np.isnan(values)
    filled = int(missing.sum())
    if filled:
        counted = None
        if table.domain.class_var is not None:
            Y = np.asarray(table.Y, dtype=float).reshape(len(table), -1)
            counted = ~np.isnan(Y[:, 0])
        copy = table.copy()
        with copy.unlocked(copy.X):
            copy.X[:, columns] = fill_with_mode(values, missing, counted)
        table = copy
    return (table, filled) if count else table
