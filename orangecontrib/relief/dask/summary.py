"""The first pass of the Dask estimate: each column's minimum and maximum (the ranges of the
diffs), the class counts or the target's range, the values checked, and with missing values a
pass counting the value codes per class (the probabilities P(value | class)); the client
combines the partitions' summaries into the whole data's diff model (the ``spec`` the other
passes send to the partitions)."""
import numpy as np

from ..estimators.base import check_summary
from ..estimators.neighbourhood import DiffModel
from ..estimators.neighbourhood.diffs import PACKED_MIN_COLUMNS
from ..estimators.neighbourhood.packed import MAX_VALUES
from .partitions import partition_model
from .passes import PROGRESS

__all__ = ["summarise"]


def summarise(passes, estimator, y_dtype, discrete, n_values_given, n_classes_given):
    """``spec``: the whole data's diff model (``reference``), its class counts (``counts``,
    None for a numeric target), whether the partitions travel as bit planes (``packed``) and
    the name of the event that stops the tasks (``stop``), from a pass over the partitions of
    ``passes`` (:class:`.passes.Passes`); ``ValueError`` for data the estimator refuses."""
    if n_classes_given is not None:
        classification = n_classes_given > 0
    elif len(estimator.tasks) == 1:
        classification = "classification" in estimator.tasks
    else:
        classification = np.issubdtype(y_dtype, np.integer) \
            or np.issubdtype(y_dtype, np.bool_)
    check_summary(estimator, passes.n, passes.a)
    parts = passes.run(_partition_summary, lambda i: (discrete, classification),
                       0.0, PROGRESS[0])
    for key, message in (
            ("inf", "attribute values must be finite: the data contain inf "
                    "(use NaN for a missing value)"),
            ("bad_code", "discrete columns must hold integer codes 0, 1, ..."),
            ("y_bad", "the target has missing or infinite values" if not classification
             else "class codes must be integers 0, 1, ...")):
        if any(p[key] for p in parts):
            raise ValueError(message)
    minimum = np.fmin.reduce([p["minimum"] for p in parts if p["n"]], axis=0)
    maximum = np.fmax.reduce([p["maximum"] for p in parts if p["n"]], axis=0)
    missing = np.any([p["missing"] for p in parts if p["n"]], axis=0)
    known = ~np.isnan(maximum)
    if n_values_given is None:
        n_values = np.where(discrete & known, np.nan_to_num(maximum) + 1, 0)
        n_values = n_values.astype(np.intp)
    else:
        n_values = np.broadcast_to(np.asarray(n_values_given, np.intp), (passes.a,)).copy()
        n_values[~discrete] = 0
        if np.any(discrete & (maximum >= n_values)):
            raise ValueError("discrete codes beyond n_values")
    y_min = min(p["y_min"] for p in parts if p["n"])
    y_max = max(p["y_max"] for p in parts if p["n"])
    task = "classification" if classification else "regression"
    check_summary(estimator, passes.n, passes.a, task)
    if classification:
        n_classes = int(n_classes_given or y_max + 1)
        if y_max >= n_classes:
            raise ValueError(f"class codes must be integers 0..{n_classes - 1}")
        counts = np.zeros(n_classes)
        for p in parts:
            counts[:p["counts"].size] += p["counts"]
        check_summary(estimator, passes.n, passes.a, task, classes_present=int((counts > 0).sum()))
        y_span = 1.0
    else:
        n_classes, counts = 0, None
        with np.errstate(over="ignore"):
            y_span = float(y_max - y_min)
        check_summary(estimator, passes.n, passes.a, task, y_span=y_span)
    # the whole data's ranges, value bins, columns with missing values and (with any)
    # probabilities P(value | class), from the partitions' value counts
    summary = dict(minimum=minimum, maximum=maximum, has_missing=missing,
                   discrete=discrete, n_values=n_values, n_classes=n_classes,
                   n_instances=passes.n, y_span=y_span, options=estimator.diff_options())
    reference = DiffModel.from_summary(**summary)
    # discrete codes 0..3 without missing values travel and are read as bit planes
    packed = bool(passes.a >= PACKED_MIN_COLUMNS and discrete.all()
                  and not reference.has_missing.any() and n_values.max() <= MAX_VALUES)
    spec = dict(reference=reference, counts=counts, stop=passes.stop, packed=packed)
    if reference.has_missing.any():
        value_counts = passes.run(_value_counts, lambda i: (spec,), PROGRESS[0], PROGRESS[0])
        spec["reference"] = DiffModel.from_summary(**summary,
                                                   value_counts=sum(value_counts))
    return spec


# -- the partitions' tasks (run on the workers) ----------------------------------------------
def _partition_summary(x, y, discrete, classification):
    """The partition's size, each column's minimum and maximum, what is wrong in it, and the
    class counts or the target's range."""
    x = np.asarray(x)                   # float32 and integers are read as they are: no copy
    if not np.issubdtype(x.dtype, np.floating) and not np.issubdtype(x.dtype, np.integer):
        x = x.astype(np.float64)
    floating = np.issubdtype(x.dtype, np.floating)
    y = np.asarray(y, dtype=np.float64).ravel()
    n = x.shape[0]
    out = dict(n=n, inf=floating and bool(np.isinf(x).any()))
    if not n:
        return dict(out, bad_code=False, y_bad=False, counts=np.zeros(0))
    out["missing"] = np.isnan(x).any(axis=0) if floating else np.zeros(x.shape[1], bool)
    out["minimum"] = np.fmin.reduce(x, axis=0).astype(np.float64)     # NaN: none known
    out["maximum"] = np.fmax.reduce(x, axis=0).astype(np.float64)
    codes = x[:, discrete] if floating else out["minimum"][discrete]  # integers: the least
    with np.errstate(invalid="ignore"):
        out["bad_code"] = bool(np.any(((codes != np.round(codes)) | (codes < 0))
                                      & ~np.isnan(codes)))
    out["y_bad"] = bool(not np.all(np.isfinite(y)) or classification and np.any(
        (y != np.round(y)) | (y < 0)))
    out["y_min"], out["y_max"] = (float(y.min()), float(y.max())) if not out["y_bad"] \
        else (0.0, 0.0)
    out["counts"] = np.bincount(y.astype(np.intp)) if classification and not out["y_bad"] \
        else np.zeros(0)
    return out


def _value_counts(x, y, spec):
    """The partition's counts of each value code per class (:meth:`.DiffModel.value_counts`)
    with the value bins of the whole data."""
    a = spec["reference"].data.n_attributes
    return partition_model(x, y, (np.zeros((0, a)), np.zeros(0)), spec)[0].value_counts()
