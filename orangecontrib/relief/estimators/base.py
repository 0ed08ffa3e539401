"""The protocol every attribute estimator follows: a context computed once, columns cheap.

An estimator is configured by keyword arguments stored unchanged in ``__init__`` and validated
when it runs. Running it has two parts:

* ``context(data, callback=None)``: the expensive part, computed once on an
  :class:`~.encoding.EncodedData` (the Relief family's nearest neighbours; for the impurity
  measures just the data);
* ``estimate(context, columns=None)``: the estimates of ``columns`` (an ``EncodedData`` over the
  same instances, e.g. candidate binary splits in a tree node; default: the context's own data)
  as a 1-D float array.

``estimator(data)`` does both. ``callback(fraction)`` reports progress in [0, 1]; an exception
raised from it cancels the computation and propagates.
"""
import os
import threading
from contextlib import contextmanager

import numba
import numpy as np

from .description import AttributeEstimator, parameter_defaults, same_value, validate

__all__ = ["Parameters", "Estimator", "check_data", "check_summary", "random_generator", "row_blocks",
           "available_memory", "check_memory", "parallel_launch", "progress_part"]

#: bytes of the per-row arrays (such as rows x N distances) of one block of rows
BLOCK_BYTES = 64 * 2 ** 20


_launch_lock = threading.Lock()
#: whether numba's threading layer lets several threads launch parallel kernels at once (None:
#: not known before the first launch)
_threadsafe_layer = None


@contextmanager
def parallel_launch():
    """Wrap every call of a ``parallel=True`` kernel. Numba's "workqueue" threading layer (its
    fallback where neither TBB nor OpenMP is installed) aborts the whole process when two
    threads launch parallel kernels at once, as two widgets computing on the canvas do; under
    it the launches take turns. The TBB and OpenMP layers are thread-safe and take no lock."""
    global _threadsafe_layer
    if _threadsafe_layer:
        yield
        return
    with _launch_lock:
        yield
        if _threadsafe_layer is None:
            try:
                _threadsafe_layer = numba.threading_layer() != "workqueue"
            except ValueError:    # no parallel kernel has launched the threads yet
                pass


def progress_part(callback, lo, hi):
    """The progress callback of a part of a computation that takes the share [lo, hi] of the
    whole: ``f`` of the part reports ``lo + (hi - lo) * f``; None without a ``callback``."""
    return None if callback is None else (lambda f: callback(lo + (hi - lo) * f))


class Parameters:
    """Objects configured by keyword arguments stored unchanged as attributes: their repr is the
    class name and those attributes. ``parameters`` declares them (a tuple of
    :class:`.description.Param`) and ``rules`` the constraints between them (functions of the
    object that return a message or None); :meth:`check_parameters` validates both."""
    parameters = ()
    rules = ()

    def check_parameters(self, n_instances=None):
        """Raise ``ValueError`` naming a parameter whose value is not allowed (for data of
        ``n_instances`` instances, when given): :func:`.description.validate`."""
        validate(self, n_instances)

    def __repr__(self):
        params = ", ".join(f"{k}={v!r}" for k, v in vars(self).items() if not k.startswith("_"))
        return f"{type(self).__name__}({params})"


class Estimator(Parameters, AttributeEstimator):
    """Base class; subclasses set ``name``, ``tasks``, ``parameters`` and their capabilities
    and implement ``estimate``. The class attributes are the estimator's description, from
    which its validation, the widgets' editors, the scikit-learn selectors, the command line
    and the documentation's table derive (:mod:`.description`)."""
    name = "estimator"
    #: the name shown to users (None: ``name``)
    display_name = None
    #: the name in narrow column headers such as those of Orange's Rank, whose 80-pixel
    #: columns hold about 8 characters of a 12 pt font (None: the display name); a class's own,
    #: not inherited (a subclass is another estimator)
    short_name = None
    #: the paper that defines the estimator (authors, year, where)
    paper = ""
    #: the targets the estimator handles: a subset of {"classification", "regression"}
    tasks = frozenset({"classification", "regression"})
    #: it samples instances (``iterations`` or ``sample``) and takes ``random_state``
    samples_instances = False
    #: its estimates for several numbers of neighbours k come from one search (``profile``)
    profiles_k = False
    #: it packs SNP-like data (discrete, at most four values) into bit planes
    packed_snps = False
    #: the Dask backend (:mod:`orangecontrib.relief.dask`) computes it on partitioned data
    dask_backend = False
    #: it gives the case counts of the Π framework (``case_counts``)
    counts_cases = False
    #: its context lists the attributes it removed, round by round (``removed``: TuRF)
    removes_attributes = False
    #: Kira & Rendell's threshold τ = 1/√(α·m) applies to its estimates: each is the mean of
    #: m updates within [-1, 1], one per sampled instance (Relief's, by Chebyshev's inequality)
    relief_threshold = False
    #: it adjusts for covariates (:attr:`.encoding.EncodedData.covariates`); the others refuse
    #: data that carry them
    adjusts_covariates = False
    #: the most classes of a discrete target it takes (None: any); data with more are refused
    max_classes = None
    #: it reads instance weights (:attr:`.encoding.EncodedData.weights`); the others refuse
    #: weighted data
    reads_weights = True
    #: its neighbourhoods take attribute weights in the distance
    #: (:attr:`.encoding.EncodedData.attribute_weights`, as Iterative Relief sets them); the
    #: others refuse data that carry them
    weighs_distances = False
    #: it is offered as a tree's split selector (its values compare across candidate splits)
    split_selector = True
    #: the parameters whose default is the preset's (None in a selector: the preset's value)
    diff_keywords = ()

    def defaults(self):
        """{name: default} of its declared parameters, as they apply to this estimator (a
        preset's values where they depend on it)."""
        return parameter_defaults(type(self))

    def changed_parameters(self):
        """{name: value} of the declared parameters that differ from :meth:`defaults`."""
        defaults = self.defaults()
        changed = {}
        for param in self.parameters:
            value = getattr(self, param.name)
            # None where None is the declared default stands for the class's own default
            if not (value is None and param.default is None) \
                    and not same_value(value, defaults[param.name]):
                changed[param.name] = value
        return changed

    @classmethod
    def own_short_name(cls):
        """:attr:`short_name` as the estimator's class (the first class of ``cls``'s ancestry
        that names an estimator) defines it, not inherited from the estimator it derives from;
        else the display name."""
        owner = next(c for c in cls.__mro__ if issubclass(c, Estimator) and "name" in vars(c))
        return vars(owner).get("short_name") or cls.display_name or cls.name

    def named_parameters(self):
        """{name: value} of the parameters always shown in its short name (e.g. the number of
        neighbours, "RF k10"), whatever their value."""
        return {}
    #: the fewest instances the estimator needs
    min_instances = 2
    #: whether the estimator reads sparse data (:attr:`.EncodedData.is_sparse`) without
    #: densifying them
    sparse_input = False
    #: estimates scale as (unit of a regression target) ** this: multiplying the target by c
    #: multiplies them by c ** target_unit_power (0: they do not depend on the target's unit)
    target_unit_power = 0

    #: the significance tests of :mod:`.significance` its estimates take: "permutation" (any
    #: estimator), "stir" (it gives the hit and miss pairs of one neighbourhood,
    #: ``hit_miss_pairs``) and "npdr" (regression p-values of its own, ``test``)
    significance_tests = ("permutation",)

    @classmethod
    def capabilities(cls):
        """Its capabilities in words, for listings."""
        flags = [(cls.samples_instances, "samples instances (random_state)"),
                 ("stir" in cls.significance_tests, "STIR"),
                 (cls.profiles_k, "profile over k"), (cls.sparse_input, "sparse"),
                 (cls.packed_snps, "bit-packed SNPs"), (cls.dask_backend, "Dask"),
                 (cls.counts_cases, "case counts"), (cls.adjusts_covariates, "covariates"),
                 (cls.weighs_distances, "weighted distance")]
        return [text for flag, text in flags if flag]

    def context(self, data, callback=None):
        check_data(data, self)
        return data

    def estimate(self, context, columns=None):
        raise NotImplementedError

    def __call__(self, data, callback=None):
        return self.estimate(self.context(data, callback))


def check_data(data, estimator):
    """Raise ``ValueError`` with a clear message when ``data`` does not suit ``estimator``:
    wrong target type, too few instances, fewer than two classes present, no attributes, sparse
    data for an estimator that does not read them, weights or covariates for one that does not adjust for
    them; before those, a parameter whose value is not allowed
    (:meth:`Parameters.check_parameters`)."""
    check_summary(estimator, data.n_instances, data.n_attributes,
                  "classification" if data.is_classification else "regression",
                  np.unique(data.y).size if data.is_classification else None,
                  None if data.is_classification else data.y_span, data.is_sparse)
    # (getattr: learners such as the oblivious tree check their data here too)
    if data.weights is not None and not getattr(estimator, "reads_weights", True):
        raise ValueError(f"{estimator.name} does not take instance weights: leave them out")
    if getattr(data, "attribute_weights", None) is not None \
            and not getattr(estimator, "weighs_distances", False):
        raise ValueError(f"{estimator.name} does not take attribute weights in its distance: "
                         "use a Relief-family estimator (ReliefF, RReliefF, the SURF family)")
    if data.covariates is not None and not getattr(estimator, "adjusts_covariates", False):
        raise ValueError(f"{estimator.name} does not adjust for covariates: use NPDR or "
                         "TrendTest, or leave the covariates out")


def check_summary(estimator, n_instances, n_attributes, task=None, classes_present=None,
                  y_span=None, sparse=False):
    """:func:`check_data` on a summary of the data (as a pass over partitions gives it): the
    numbers of instances and attributes, the ``task`` ("classification" or "regression"), the
    number of classes present or the target's span (max - min); what is None is not checked.
    The parameters are checked first, those whose range depends on the number of instances
    (such as ``iterations``) once the data have instances."""
    estimator.check_parameters()
    if task is not None and task not in estimator.tasks:
        wanted = " or ".join(sorted(estimator.tasks))
        raise ValueError(f"{estimator.name} needs a {wanted} target "
                         f"({'discrete' if wanted == 'classification' else 'numeric'} class), "
                         f"but the data have a {task} target")
    if n_attributes == 0:
        raise ValueError(f"{estimator.name}: the data have no attributes")
    if sparse and not estimator.sparse_input:
        raise ValueError(f"{estimator.name} does not support sparse data: use ReliefF, "
                         "RReliefF or Relief, or convert the data to a dense array")
    if n_instances < estimator.min_instances:
        raise ValueError(f"{estimator.name} needs at least {estimator.min_instances} instances, "
                         f"the data have {n_instances}")
    if classes_present is not None and classes_present < 2:
        raise ValueError(f"{estimator.name} needs at least two classes, "
                         f"the data have {classes_present}")
    if y_span is not None and y_span <= 0:
        raise ValueError(f"{estimator.name}: the target is constant")
    estimator.check_parameters(n_instances)


def random_generator(random_state):
    """``np.random.Generator`` from None, an int seed or a Generator (``random_state``)."""
    if isinstance(random_state, np.random.Generator):
        return random_state
    if random_state is None or isinstance(random_state, (int, np.integer)):
        return np.random.default_rng(random_state)
    raise ValueError(f"random_state must be None, an int or a numpy Generator, "
                     f"got {random_state!r}")


def row_blocks(n_rows, bytes_per_row, budget=BLOCK_BYTES):
    """Consecutive slices of ``range(n_rows)`` whose per-row arrays fit in ``budget`` bytes."""
    step = max(1, int(budget // max(bytes_per_row, 1)))
    return [slice(lo, min(lo + step, n_rows)) for lo in range(0, n_rows, step)]


def available_memory():
    """Bytes of memory available to a new allocation: ``MemAvailable`` of /proc/meminfo (Linux),
    else the free physical pages (``os.sysconf``), else None (unknown)."""
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None


def _size(n_bytes):
    for unit in ("bytes", "KB", "MB", "GB", "TB"):
        if n_bytes < 1024 or unit == "TB":
            return f"{n_bytes:.0f} {unit}" if unit == "bytes" else f"{n_bytes:.1f} {unit}"
        n_bytes /= 1024


def check_memory(n_bytes, what, advice=""):
    """Raise ``ValueError`` before allocating when ``n_bytes`` (an estimate of what ``what``
    needs at once) exceeds the memory available (:func:`available_memory`; nothing is refused
    when it is unknown). ``advice`` says how to ask for less."""
    available = available_memory()
    if available is not None and n_bytes > available:
        raise ValueError(f"{what} needs about {_size(n_bytes)} of memory, more than the "
                         f"{_size(available)} available" + (f"; {advice}" if advice else ""))
