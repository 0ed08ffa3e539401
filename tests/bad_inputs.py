"""Bad inputs for the test batteries of the scorers, the learners and the widgets.

Every case is a :class:`BadInput`: an Orange ``Table`` and what a correct handling of it is,
stated so that it can be checked without the code under test:

* ``error``: a ``ValueError`` whose message matches this pattern (it names the problem);
* ``same_as``: an equivalent table whose answer must be the same (computed by the same method
  on ordinary data, so the bad part is checked against an independent, well-behaved run):
  attributes ``kept`` of ``table`` correspond, in order, to the attributes of ``same_as``;
  an estimate of an attribute not kept must be NaN if it is in ``nan_attributes``, otherwise
  finite;
* ``sparse``: ``table``'s attributes are a sparse matrix: a consumer that reads sparse data must
  answer as for ``same_as``, any other must refuse them with a message naming them ("sparse");
* ``target_scale``: ``table``'s target is ``same_as``'s times this (regression), so an estimate
  that is a power p of the target's unit (``Estimator.target_unit_power``) is ``same_as``'s
  times ``target_scale ** p``;
* otherwise (neither ``error`` nor ``same_as``) every estimate must be finite.

The base data are small (24 instances) and hold multiples of 1/16 only, so that scaling them by
a power of two (huge, tiny and subnormal magnitudes) changes no value's digits: a scaled table
must give the very same estimates. :func:`bad_inputs` makes every case for a task;
:func:`encoded_arrays` gives the engine's numpy form of a table; :func:`unreadable_files` writes the
files the command line's readers must refuse.
"""
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from Orange.data import (ContinuousVariable, DiscreteVariable, Domain, StringVariable, Table)

__all__ = ["BadInput", "bad_inputs", "unreadable_files", "base_table", "make_table", "encoded_arrays", "TASKS",
           "N_INSTANCES"]

TASKS = ("classification", "regression")
N_INSTANCES = 24
CLASS_VALUES = ("a", "b", "c")


@dataclass
class BadInput:
    """One bad input and the correct handling of it (see the module docstring)."""
    name: str
    table: Table
    error: str = None
    same_as: Table = None
    kept: list = None
    nan_attributes: list = field(default_factory=list)
    target_scale: float = 1.0
    sparse: bool = False

    def __repr__(self):
        return self.name


def base_arrays(task, n=N_INSTANCES, seed=0):
    """``(X, y, discrete)``: two numeric attributes (multiples of 1/16 in [0, 1)), one discrete
    with 3 values, and a class (3 values, each at least 4 times) or a numeric target (multiples
    of 1/16) depending on attributes 0 and 2."""
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.integers(0, 16, n) / 16, rng.integers(0, 16, n) / 16,
                         rng.integers(0, 3, n)]).astype(float)
    if task == "classification":
        y = ((X[:, 0] > 0.5).astype(int) + (X[:, 2] == 2)).astype(float)
        y[:12] = np.arange(12) % 3             # every class present, at least 4 times
    else:
        y = np.round(16 * (X[:, 0] + 0.5 * (X[:, 2] == 1) + 0.25 * rng.random(n))) / 16
    return X, y, np.array([False, False, True])


def make_table(X, y, task, discrete=(), n_values=None, W=None, metas=None, names=None):
    """An Orange table: columns of ``X`` in ``discrete`` are categorical with values "0", "1",
    ... (``n_values[column]`` of them, default the largest code + 1); ``y`` a class with values
    a, b, c or a numeric target; ``W`` instance weights; ``metas`` one string meta column."""
    X = np.asarray(X, dtype=float)
    names = names or [f"x{i}" for i in range(X.shape[1])]
    attributes = []
    for i in range(X.shape[1]):
        if i in discrete:
            count = (n_values or {}).get(i) or int(np.nanmax(X[:, i], initial=0)) + 1
            attributes.append(DiscreteVariable(names[i], values=tuple(map(str, range(count)))))
        else:
            attributes.append(ContinuousVariable(names[i]))
    target = (DiscreteVariable("y", values=CLASS_VALUES) if task == "classification"
              else ContinuousVariable("y"))
    meta_vars = [StringVariable("name")] if metas is not None else []
    return Table.from_numpy(Domain(attributes, target, meta_vars), X,
                            np.asarray(y, dtype=float), W=W,
                            metas=None if metas is None else np.asarray(metas, object)[:, None])


def base_table(task, n=N_INSTANCES, seed=0):
    X, y, discrete = base_arrays(task, n, seed)
    return make_table(X, y, task, discrete=np.flatnonzero(discrete))


def _from(X, y, task, **kwargs):
    return make_table(X, y, task, discrete=(2,), **kwargs)


def _with_value(table, where, value, target=False):
    """The table with X[where] (or Y[where]) set in place: ``Table.from_numpy`` turns inf into
    NaN, a table edited in place can still hold one."""
    table = table.copy()
    with table.unlocked():
        if target:
            table.Y[where] = value
        else:
            table.X[where] = value
    return table


def bad_inputs(task):
    """Every bad input for a classification or a regression task (list of :class:`BadInput`)."""
    X, y, _ = base_arrays(task)
    n = X.shape[0]
    base = _from(X, y, task)
    cases = [
        BadInput("no class", Table.from_numpy(Domain(base.domain.attributes), X),
                 error="no target"),
        BadInput("two classes", Table.from_numpy(
            Domain(base.domain.attributes, [ContinuousVariable("t1"), ContinuousVariable("t2")]),
            X, np.column_stack([y, y])), error="target variables"),
        BadInput("empty", base[:0], error="empty"),
        BadInput("one instance", base[:1], error="at least"),
        BadInput("no attributes", Table.from_numpy(Domain([], base.domain.class_var),
                                                   np.zeros((n, 0)), y),
                 error="no attributes"),
        BadInput("sparse", Table.from_numpy(base.domain, sp.csr_matrix(X), y), same_as=base,
                 sparse=True),
        BadInput("inf attribute", _with_value(base, (3, 0), np.inf), error="infinite"),
        BadInput("inf target", _with_value(base, 3, np.inf, target=True), error="finite"),
        BadInput("all classes missing", _from(X, np.full(n, np.nan), task),
                 error="missing class"),
        BadInput("missing class values", _from(X, np.where(np.arange(n) % 5 == 1, np.nan, y),
                                               task),
                 same_as=_from(X[np.arange(n) % 5 != 1], y[np.arange(n) % 5 != 1], task)),
        BadInput("string meta", _from(X, y, task, metas=[f"row {i}" for i in range(n)]),
                 same_as=base),
        BadInput("constant attribute", _from(np.column_stack([X, np.full(n, 0.25)]), y, task),
                 same_as=base, kept=[0, 1, 2]),
        BadInput("all-missing attribute",
                 _from(np.column_stack([X, np.full(n, np.nan)]), y, task),
                 same_as=base, kept=[0, 1, 2], nan_attributes=[3]),
        BadInput("missing values", _from(np.where((np.arange(n)[:, None] + np.arange(3)) % 7
                                                  == 0, np.nan, X), y, task)),
        BadInput("all-missing row", _from(np.where(np.arange(n)[:, None] == 5, np.nan, X),
                                          y, task)),
    ]
    for name, factor in (("huge magnitudes", 2.0 ** 996), ("tiny magnitudes", 2.0 ** -1000),
                         ("subnormal magnitudes", 2.0 ** -1066)):
        cases.append(BadInput(name, _from(X * [factor, 1, 1], y, task), same_as=base))
    # values of both signs near the largest float: max - min overflows
    wide = np.column_stack([(X[:, 0] - 0.5) * 3, X[:, 1:]])
    cases.append(BadInput("huge span", _from(wide * [2.0 ** 1023, 1, 1], y, task),
                          same_as=_from(wide, y, task)))
    if task == "classification":
        cases += [
            BadInput("one class", _from(X, np.zeros(n), task), error="two classes"),
            BadInput("singleton classes", _from(X, np.r_[0, 1, np.full(n - 2, 2)], task)),
            BadInput("every class a singleton", _from(X[:3], [0, 1, 2], task)),
        ]
    else:
        cases += [
            BadInput("constant target", _from(X, np.full(n, 0.5), task), error="constant"),
        ]
        for name, factor in (("huge target", 2.0 ** 996), ("subnormal target", 2.0 ** -1066)):
            cases.append(BadInput(name, _from(X, y * factor, task), same_as=base,
                                  target_scale=factor))
    # many values: 100 declared values of which each instance has its own; relabelling the
    # values (reversing the codes) must not change any estimate
    codes = np.arange(n) * 4 % 100
    many = np.column_stack([X, codes])
    relabelled = np.column_stack([X, 99 - codes])
    cases.append(BadInput("many-valued attribute",
                          make_table(many, y, task, discrete=(2, 3), n_values={3: 100}),
                          same_as=make_table(relabelled, y, task, discrete=(2, 3),
                                             n_values={3: 100}),
                          kept=[0, 1, 2, 3]))
    return cases


def weighted_inputs(task):
    """Instance weights: unit weights are no weights, integer weights are duplicated rows,
    a zero weight is a left-out row; fractional weights give finite estimates."""
    X, y, _ = base_arrays(task)
    n = X.shape[0]
    base = _from(X, y, task)
    counts = 1 + np.arange(n) % 3
    zero = np.where(np.arange(n) % 4 == 3, 0.0, 1.0)
    return [
        BadInput("unit weights", _from(X, y, task, W=np.ones(n)), same_as=base),
        BadInput("integer weights", _from(X, y, task, W=counts.astype(float)),
                 same_as=_from(np.repeat(X, counts, axis=0), np.repeat(y, counts), task)),
        BadInput("zero weights", _from(X, y, task, W=zero),
                 same_as=_from(X[zero > 0], y[zero > 0], task)),
        BadInput("fractional weights", _from(X, y, task, W=0.25 + np.arange(n) % 5 / 3)),
        BadInput("huge weights", _from(X, y, task, W=np.full(n, 1e300)), error="rescale"),
        BadInput("tiny weights", _from(X, y, task, W=np.full(n, 1e-300)), error="rescale"),
    ]


def encoded_arrays(table):
    """``(X, y, discrete, n_values, n_classes)`` of a table, for ``estimators.encode``."""
    attributes = table.domain.attributes
    discrete = np.array([var.is_discrete for var in attributes], dtype=bool)
    n_values = np.array([len(var.values) if var.is_discrete else 0 for var in attributes])
    n_classes = len(table.domain.class_var.values) if table.domain.class_var.is_discrete else 0
    return np.asarray(table.X, float), np.asarray(table.Y, float), discrete, n_values, n_classes


# ---------------------------------------------------------------------------------------------
# files a reader cannot read: (file name, extra command-line arguments, words of the message)

def unreadable_files(directory):
    """Write into ``directory`` the files the command line must refuse with a one-line message
    (exit status 2), and return ``[(name, arguments, message)]``: random bytes named as a text
    table, a CSV holding inf, PLINK file sets that are truncated, lack their .fam or .bim or
    start with the wrong magic bytes, a file named .parquet that is not Parquet, a Parquet file
    without the class column named."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    from bed_reader import to_bed
    directory = Path(directory)
    rng = np.random.default_rng(0)
    (directory / "random.csv").write_bytes(rng.bytes(4096))
    (directory / "random.tab").write_bytes(rng.bytes(4096))
    (directory / "inf.csv").write_text("a,b,label\n1,2,x\ninf,3,y\n2,1,x\n3,4,y\n")
    genotypes = rng.integers(0, 3, size=(20, 30)).astype(np.int8)
    for name in ("truncated", "magic", "nofam", "nobim"):
        to_bed(str(directory / f"{name}.bed"), genotypes,
               properties={"pheno": ["1", "2"] * 10})
    bed = directory / "truncated.bed"
    bed.write_bytes(bed.read_bytes()[:-5])
    bed = directory / "magic.bed"
    bed.write_bytes(b"\x00\x00\x00" + bed.read_bytes()[3:])
    (directory / "nofam.fam").unlink()
    (directory / "nobim.bim").unlink()
    (directory / "fake.parquet").write_bytes(b"PAR1" + rng.bytes(200))
    pq.write_table(pa.table({"a": [0.5, 0.25, 1.0], "label": ["x", "y", "x"]}),
                   directory / "table.parquet")
    return [
        ("random.csv", [], "cannot read data 'random.csv' as a table"),
        ("random.tab", [], "cannot read data 'random.tab' as a table"),
        ("inf.csv", ["--class", "label"], "infinite values"),
        ("truncated.bed", [], "truncated"),
        ("magic.bed", [], "magic bytes"),
        ("nofam.bed", [], "missing nofam.fam"),
        ("nobim.bed", [], "missing nobim.bim"),
        ("fake.parquet", ["--class", "label"], "cannot read 'fake.parquet' as Parquet"),
        ("table.parquet", ["--class", "cls"], "no column 'cls'"),
    ]
