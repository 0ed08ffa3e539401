"""One entry for reading a data file, used by every surface that reads files (the
``orange-relief`` command's ``rank`` and ``tree``, scripts): :func:`read_data` takes a path and
:class:`ReadOptions` (the class column, its type, PLINK's phenotype file and coding) and returns
a :class:`DataRead`: the data, the number of instances read and used, and those left out and
why.

What a path holds (:func:`data_kind`): a PLINK ``.bed`` file (with its ``.bim`` and ``.fam``),
a Parquet file or a folder of them, or anything Orange reads (``.tab``, ``.csv``, ``.xlsx``, ...,
or the name of a data set Orange ships). The data come in memory (an Orange ``Table``; PLINK
genotypes as :class:`~.estimators.encoding.EncodedData`, :func:`.readers.read_plink`) or, with
``partitions=True``, by partitions for the Dask backend (:class:`Partitions`: PLINK, Parquet,
CSV and TSV files).

One rule gives the class its type, whatever the file's format and however it is read:
``class_type`` "discrete" or "numeric" when given; else a class Orange's header flags type
keeps that type, text values are classes, and numbers are numeric unless they are all among
0 and 1, or among 1 and 2: two classes coded as numbers (the rule Orange's reader applies to
text tables, applied here to Parquet too). A PLINK phenotype follows PLINK's own rules
(:meth:`.readers.PlinkFiles.target`: 1 = control, 2 = case, 0 and -9 missing; ``coding="01"``
for PLINK's ``--1``, 0 = control and 1 = case).

Instances without a class value take no part in an estimate: they are counted in
:attr:`DataRead.dropped` (and left out of PLINK data and of partitions; the estimators leave
them out of a ``Table``, as they leave out instances of weight 0).

What cannot be read is a ``ValueError`` whose message says so (:class:`ReadError`): no such
file, a directory, an empty file, binary content where a text table is expected, infinite
values, no class, no attributes, no rows.
"""
import os
import re
import warnings
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

__all__ = ["read_data", "ReadOptions", "DataRead", "Partitions", "ReadError", "data_kind",
           "two_classes_coded", "reasons_text"]

#: extensions of the text tables Orange reads: a file of binary content named so is refused
TEXT_EXTENSIONS = (".csv", ".tsv", ".tab", ".basket")
#: bytes looked at to tell text from binary content
SNIFF_BYTES = 65536
#: the reason instances without a class value are left out, as :attr:`DataRead.dropped` says it
MISSING_CLASS = "missing class"
#: the reason instances are left out for a missing covariate value (or, in a PLINK covariate
#: file, no line)
MISSING_COVARIATE = "missing covariate"


class ReadError(ValueError):
    """Data that cannot be read or have nothing to estimate (the message says why)."""


@dataclass(frozen=True)
class ReadOptions:
    """How to read a file: ``class_name`` the class column (None: the class the file marks;
    for PLINK data a column of the phenotype file), ``class_type`` "discrete", "numeric" or
    None (by the rule of the module docstring), ``pheno`` a PLINK phenotype file, ``coding``
    PLINK's phenotype coding ("12": 1 = control, 2 = case; "01": PLINK's ``--1``),
    ``covariates`` the covariates to read beside the class (None: none): for PLINK data the
    path of a covariate file (:func:`.readers.read_covariates`), for other data the names of
    columns (attributes or meta attributes, which are then not estimated); the data are then
    :class:`~.estimators.encoding.EncodedData` carrying them; ``covar_names`` chooses columns
    of a PLINK covariate file as PLINK's ``--covar-name`` (names and ranges ``first-last``,
    comma-separated; None: all). Instances with a missing covariate value (and individuals
    without a line in a PLINK covariate file) are left out, as PLINK leaves them out, and
    counted (:attr:`DataRead.dropped`). ``impute="mode"`` fills the missing calls of PLINK
    genotypes read into memory with each SNP's most frequent genotype
    (:meth:`.readers.PlinkFiles.genotypes`)."""
    class_name: str = None
    class_type: str = None
    pheno: str = None
    coding: str = "12"
    covariates: object = None
    covar_names: object = None
    impute: str = None


class Partitions(NamedTuple):
    """Data read by partitions, for :func:`.dask.estimate`: ``X`` a Dask array partitioned by
    rows, ``y`` the class codes or target (in memory or a Dask array of the same partitions),
    ``keywords`` the rest of its arguments (``discrete``, ``n_values``, ``n_classes``)."""
    X: object
    y: object
    keywords: dict


@dataclass(frozen=True)
class DataRead:
    """What :func:`read_data` read: ``data`` (an Orange ``Table``,
    :class:`~.estimators.encoding.EncodedData` or :class:`Partitions`), the ``kind`` of file
    ("table", "parquet" or "plink"), a ``name`` to show, the ``attributes``' names, the
    ``class_name`` and ``task`` ("classification" or "regression"), ``read`` the instances
    read, ``dropped`` the instances left out by reason (e.g. ``{"missing class": 10}``) and
    ``covariates`` (None: none read); ``loci`` for PLINK data the ``.bim`` columns of each
    attribute (:meth:`.readers.PlinkFiles.loci`: CHR, SNP, BP, A1), else None;
    ``missing_calls`` the genotype calls missing in PLINK data read into memory."""
    data: object
    kind: str
    name: str
    attributes: tuple
    class_name: str
    task: str
    read: int
    dropped: dict = field(default_factory=dict)
    covariates: object = None
    loci: tuple = None
    missing_calls: int = 0

    @property
    def used(self):
        """The instances an estimate uses: those read but the dropped."""
        return self.read - sum(self.dropped.values())

    def dropped_text(self):
        """"" when every instance is used, else e.g. "10 of 100 instances left out: 10 with a
        missing class"."""
        if not self.used < self.read:
            return ""
        return (f"{self.read - self.used} of {self.read} instances left out: "
                f"{reasons_text(self.dropped)}")


def reasons_text(dropped):
    """The instances left out by reason, e.g. "10 with a missing class"."""
    return ", ".join(f"{count} with a {reason}" for reason, count in dropped.items() if count)


def read_data(path, options=None, partitions=False, callback=None):
    """The data of the file ``path`` (a PLINK ``.bed``, a Parquet file or folder, a file Orange
    reads, or the name of a data set Orange ships) read as ``options`` (a :class:`ReadOptions`)
    say: in memory, or with ``partitions`` by partitions for the Dask backend. ``callback``
    (fraction) reports the reading of PLINK genotypes into memory. A :class:`DataRead`;
    :class:`ReadError` (a ``ValueError``) for what cannot be read."""
    options = options or ReadOptions()
    path = os.fspath(path)
    if options.covariates is not None and partitions:
        raise ReadError("the Dask backend does not adjust for covariates: read the data "
                        "into memory")
    if options.class_type not in (None, "discrete", "numeric"):
        raise ReadError(f"class_type must be 'discrete', 'numeric' or None, got "
                        f"{options.class_type!r}")
    kind = data_kind(path)
    if kind != "plink" and (options.pheno is not None or options.coding != "12"):
        raise ReadError("a phenotype file and PLINK's phenotype coding (--pheno, --1) go "
                        "with PLINK (.bed) data")
    check_readable(path)
    try:
        if kind == "plink":
            return _plink(path, options, partitions, callback)
        if partitions:
            return _partitioned_table(path, kind, options)
        return _table(path, kind, options)
    except ImportError as error:
        raise ReadError(str(error)) from None


def data_kind(path):
    """"plink" (a .bed file), "parquet" (a .parquet file or a folder holding such files) or
    "table" (anything else: a file Orange reads or a data set it ships)."""
    lower = path.lower().rstrip("/" + os.sep)
    if lower.endswith(".bed"):
        return "plink"
    if lower.endswith((".parquet", ".pq")) or os.path.isdir(path) and any(
            name.lower().endswith((".parquet", ".pq")) for _, _, names in os.walk(path)
            for name in names):
        return "parquet"
    return "table"


def check_readable(path):
    """:class:`ReadError` when ``path`` names a file that cannot be data: a directory (but a
    Parquet folder), an empty file, one the user may not read, binary content in a text
    table's file. A name that is no file is left to Orange (a data set it ships)."""
    if not os.path.exists(path):
        if os.path.dirname(path) or data_kind(path) != "table":
            raise ReadError(f"cannot read data {path!r}: no such file")
        return
    if os.path.isdir(path):
        if data_kind(path) == "parquet":
            return
        raise ReadError(f"cannot read data {path!r}: it is a directory, not a data file")
    if not os.access(path, os.R_OK):
        raise ReadError(f"cannot read data {path!r}: permission denied")
    if os.path.getsize(path) == 0:
        raise ReadError(f"data file {path!r} is empty")
    if path.lower().endswith(TEXT_EXTENSIONS) or not os.path.splitext(path)[1]:
        with open(path, "rb") as file:
            head = file.read(SNIFF_BYTES)
        control = sum(head.count(bytes([c])) for c in range(32) if c not in (9, 10, 12, 13))
        if b"\0" in head or control > 0.01 * len(head):
            raise ReadError(f"cannot read data {path!r} as a table: it holds binary content, "
                            "not text")


def two_classes_coded(values):
    """The number to subtract from the class numbers ``values`` (NaN: missing) to make them
    class codes 0, 1 when they are two classes coded as numbers (all among 0 and 1: 0, among 1
    and 2: 1), else None (a numeric target)."""
    found = set(np.unique(np.asarray(values, float)[~np.isnan(values)]).tolist())
    if found and found <= {0.0, 1.0}:
        return 0.0
    if found and found <= {1.0, 2.0}:
        return 1.0
    return None


# -- PLINK -----------------------------------------------------------------------------------
def _plink(path, options, partitions, callback):
    from .readers import PlinkFiles, read_covariates
    files = PlinkFiles(path)
    phenotype = files.target(options.pheno, options.class_name, options.coding,
                             options.class_type)
    dropped = {"missing phenotype": phenotype.read - phenotype.rows.size}
    covariates = names = None
    if options.covariates is not None:
        # as PLINK: the individuals with a missing covariate (or no line) are left out
        check_readable(options.covariates)
        table = read_covariates(options.covariates, files, phenotype.rows, options.covar_names)
        phenotype = phenotype._replace(rows=phenotype.rows[table.kept],
                                       y=phenotype.y[table.kept])
        covariates, names = table.covariates, table.covariates.names
        dropped[MISSING_COVARIATE] = table.missing
        if phenotype.n_classes and np.unique(phenotype.y).size < 2:
            raise ReadError(f"the {phenotype.rows.size} individuals of {path!r} with a "
                            "phenotype and every covariate are all of one class: ranking "
                            "needs both")
    if partitions:
        data = Partitions(files.partitions(phenotype.rows), phenotype.y, dict(
            discrete=True, n_values=3, n_classes=phenotype.n_classes))
    else:
        data = files.genotypes(phenotype, callback, options.impute)
    if covariates is not None:
        from dataclasses import replace
        data = replace(data, covariates=covariates)
    return DataRead(data, "plink", os.path.basename(path), tuple(files.snps), phenotype.name,
                    "classification" if phenotype.n_classes else "regression", phenotype.read,
                    dropped, names, tuple(files.loci()), files.missing_calls)


# -- tables in memory ------------------------------------------------------------------------
def _table(path, kind, options):
    from .orange_data import target_kind
    table = _orange_table(path, kind)
    if not table.domain.variables and not table.domain.metas:
        raise ReadError(f"data {path!r} are empty: no columns")
    var = (table.domain.class_var if options.class_name is None
           else find_column(table.domain, options.class_name, path))
    class_type = options.class_type
    if var is not None and class_type is None and kind == "parquet" and var.is_continuous \
            and two_classes_coded(table.get_column(var)) is not None:
        class_type = "discrete"                 # the rule Orange's reader applies to text
    if var is not None and (options.class_name or class_type) is not None:
        table = with_class(table, var, class_type, path)
    if len(table.domain.class_vars) > 1:
        raise ReadError(f"data {path!r} have {len(table.domain.class_vars)} target variables "
                        f"({', '.join(repr(v.name) for v in table.domain.class_vars)}): name "
                        "the one to estimate against with --class NAME")
    if table.domain.class_var is None:
        raise ReadError(f"data {path!r} have no class (target) variable: ranking needs one; "
                        "name the class column with --class NAME")
    if len(table) == 0:
        raise ReadError(f"data {path!r} have no rows (instances)")
    if not table.domain.attributes:
        raise ReadError(f"data {path!r} have no attributes to rank")
    y = np.asarray(table.Y, dtype=float).reshape(len(table), -1)[:, 0]
    data, attributes, names = table, table.domain.attributes, None
    if options.covariates is not None:
        from .orange_data import encode_with_covariates
        names = tuple(options.covariates)
        try:
            data, _, attributes = encode_with_covariates(table, names)
        except ValueError as error:
            raise ReadError(f"covariates of {path!r}: {error}") from None
    # a file by its name (as the PLINK and partitioned readers do); a data set Orange ships
    # by Orange's name for it
    shown = os.path.basename(path) if os.path.isfile(path) else table.name or path
    return DataRead(data, kind, shown, tuple(a.name for a in attributes),
                    table.domain.class_var.name, target_kind(table.domain), len(table),
                    {MISSING_CLASS: int(np.isnan(y).sum())}, names)


def _orange_table(path, kind):
    """Orange's ``Table`` of ``path`` (a Parquet file or folder read by
    :func:`.readers.read_parquet`); :class:`ReadError` for what cannot be read, bytes that are
    no text and infinite values (which Orange would turn into missing ones with a warning)."""
    from Orange.data import Table
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            if kind == "parquet":
                from .readers import read_parquet
                table = read_parquet(path)
            else:
                table = Table(path)
        except ImportError:
            raise
        except Exception as error:  # Orange's readers raise many kinds of errors
            text = str(error)
            raise ReadError(text if text.startswith("cannot read")
                            else f"cannot read data {path!r}: {text}") from None
    for warning in caught:
        text = str(warning.message)
        if "invalid byte" in text:
            raise ReadError(f"cannot read data {path!r} as a table: {text.lower()} (not text "
                            "in a known encoding)")
        if "infinity" in text:
            raise ReadError(f"data {path!r} hold infinite values (inf): give a missing value "
                            "('?' or an empty field) instead")
        if not issubclass(warning.category, (DeprecationWarning, PendingDeprecationWarning)):
            warnings.warn_explicit(warning.message, warning.category, warning.filename,
                                   warning.lineno)
    return table


def find_column(domain, name, path):
    """The variable of ``domain`` called ``name``: exactly, else the only one that matches
    ignoring case (Orange renames repeated column names "x" to "x (1)", "x (2)", ...)."""
    columns = list(domain.variables) + list(domain.metas)
    exact = [var for var in columns if var.name == name]
    if len(exact) == 1:
        return exact[0]
    similar = [var for var in columns
               if re.sub(r" \(\d+\)$", "", var.name).lower() == name.lower()]
    if len(similar) == 1:
        return similar[0]
    if similar:
        raise ReadError(f"class {name!r} is ambiguous in {path!r}: columns "
                        f"{', '.join(repr(var.name) for var in similar)}; name one exactly")
    raise ReadError(f"data {path!r} have no column {name!r} for the class; the columns are: "
                    f"{', '.join(repr(var.name) for var in columns)}")


def with_class(table, var, class_type=None, path=""):
    """``table`` with ``var`` (read as ``class_type``, see :func:`typed`) as its only class;
    a former class becomes an attribute."""
    from Orange.data import Domain
    domain = table.domain
    values = table.get_column(var)
    new_var, values = typed(var, values, class_type, path)
    attributes = [a for a in domain.attributes if a is not var]
    attributes += [c for c in domain.class_vars if c is not var]
    metas = [m for m in domain.metas if m is not var]
    new_domain = Domain(attributes, new_var, metas)
    converted = table.transform(Domain(attributes, None, metas))
    result = type(table).from_numpy(new_domain, converted.X, values.astype(float),
                                    converted.metas, table.W if table.has_weights() else None,
                                    attributes=table.attributes, ids=table.ids)
    result.name = table.name
    return result


def typed(var, values, class_type, path):
    """(variable, float codes) for the class ``var`` read as ``class_type``: a discrete
    variable for "discrete" (and for text columns), a numeric one for "numeric"."""
    from Orange.data import ContinuousVariable, DiscreteVariable
    kind = class_type or ("numeric" if var.is_continuous else "discrete")
    if kind == "discrete" and var.is_discrete:
        return var, values
    if kind == "numeric" and var.is_continuous:
        return var, values.astype(float)
    if kind == "numeric":
        texts = [var.str_val(v) if var.is_discrete else str(v) for v in values]
        try:
            numbers = np.array([np.nan if t in ("", "?") else float(t) for t in texts])
        except ValueError:
            raise ReadError(f"class {var.name!r} of {path!r} cannot be numeric: it has "
                            "non-numeric values") from None
        return ContinuousVariable(var.name), numbers
    if var.is_continuous:
        known = ~np.isnan(values)
        names, codes = np.unique(values[known], return_inverse=True)
        labels = [var.str_val(v) for v in names]
    else:  # text (a meta column)
        known = np.array([v not in ("", None) and v == v for v in values], dtype=bool)
        labels, codes = np.unique(values[known].astype(str), return_inverse=True)
        labels = list(labels)
    codes_all = np.full(len(values), np.nan)
    codes_all[known] = codes
    return DiscreteVariable(var.name, values=labels), codes_all


# -- tables by partitions --------------------------------------------------------------------
def _partitioned_table(path, kind, options):
    """A Parquet file or folder (a partition per row group) or a CSV or TSV file (by blocks
    of lines) as :class:`Partitions`: text columns as their value codes, the class typed by
    the module's rule, the rows without a class value left out."""
    import dask
    name = options.class_name
    if name is None:
        raise ReadError("data read by partitions need their class column named (--class NAME)")
    try:
        if kind == "parquet":
            from .readers import parquet_dask
            frame = parquet_dask(path)
        elif path.lower().endswith((".csv", ".tsv")):
            import dask.dataframe as dd
            frame = dd.read_csv(os.path.abspath(path),
                                sep="\t" if path.lower().endswith(".tsv") else ",")
        else:
            raise ReadError(f"data read by partitions (--dask) are a Parquet file or folder, a "
                            f"CSV or a PLINK .bed file, not {path!r}")
    except ImportError as error:
        raise ImportError(f"reading by partitions needs dask: pip install "
                          f"'Orange3-Relief[dask]' ({error})") from None
    if name not in frame.columns:
        raise ReadError(f"data {path!r} have no column {name!r} for the class; the columns "
                        f"are: {', '.join(map(repr, frame.columns))}")
    text = [c for c in frame.columns if str(frame[c].dtype) in ("object", "string", "category")]
    class_text = name in text
    facts = frame.map_partitions(_class_facts, name, class_text, meta={
        "rows": "i8", "missing": "i8", "zero_one": "bool", "one_two": "bool"})
    from .readers import coded_frame
    if class_text and options.class_type == "numeric":
        raise ReadError(f"class {name!r} of {path!r} cannot be numeric: it has non-numeric "
                        "values")
    if options.class_type == "discrete" and not class_text:
        text.append(name)
    (facts,) = dask.compute(facts)
    frame, categories = coded_frame(frame, text)
    offset = None
    if name not in categories and options.class_type is None:
        offset = 0.0 if facts["zero_one"].all() else 1.0 if facts["one_two"].all() else None
    if offset:
        frame = frame.assign(**{name: frame[name] - offset})
    n_classes = len(categories[name]) if name in categories else 2 if offset is not None else 0
    attributes = [c for c in frame.columns if c != name]
    missing = int(facts["missing"].sum())
    if missing:
        frame = frame.dropna(subset=[name])
    lengths = tuple((facts["rows"] - facts["missing"]).tolist())
    table = frame[attributes + [name]].to_dask_array(lengths=lengths)
    data = Partitions(table[:, :-1], table[:, -1], dict(
        discrete=np.array([c in categories for c in attributes]), n_classes=n_classes,
        n_values=[len(categories.get(c, ())) for c in attributes]))
    return DataRead(data, kind, os.path.basename(path.rstrip("/" + os.sep)), tuple(attributes),
                    name, "classification" if n_classes else "regression",
                    int(facts["rows"].sum()), {MISSING_CLASS: missing})


def _class_facts(part, name, text):
    """A pandas partition's rows, its rows without a class value, and whether its class
    numbers are all among 0 and 1, all among 1 and 2 (one row)."""
    import pandas as pd
    column = part[name]
    known = column.dropna()
    numbers = known if not text else pd.Series([], dtype=float)
    return pd.DataFrame({"rows": [len(part)], "missing": [int(column.isna().sum())],
                         "zero_one": [bool(numbers.isin([0, 1]).all())],
                         "one_two": [bool(numbers.isin([1, 2]).all())]})
