"""Readers of the files large data come in: PLINK genotypes (``.bed/.bim/.fam``) and Parquet
tables, for one machine and for the Dask backend (:mod:`orangecontrib.relief.dask`).

* :func:`read_plink` reads a PLINK binary file set into the encoded form the estimators read
  (:class:`.estimators.encoding.EncodedData`), a block of SNPs at a time, each genotype (the
  count of the A1 allele, 0/1/2) packed into two bit planes as it is read (two bits a
  genotype, :class:`.estimators.neighbourhood.packed.PackedColumns`), which the Relief family
  reads as they are: 2,000 x 100,000 SNPs take 50 MB, never 1.6 GB of floats. A file with
  missing calls is read as float32 with NaN for them (four bytes a genotype): the estimators'
  missing-value rules then apply (:mod:`.estimators.neighbourhood.diffs`).
* :func:`plink_dask` gives the same genotypes as a Dask array of int8 partitioned by
  individuals (each partition read by its own task), with the phenotype in memory; the Dask
  backend packs them into bit planes on the workers and sends the sampled instances packed.
* :func:`read_parquet` reads a Parquet file or a folder of them (a dataset) into an Orange
  ``Table``; :func:`parquet_dask` into a Dask dataframe, a partition per row group.

The phenotype (the class) of PLINK data is the sixth column of the ``.fam`` file, or a column of
a separate phenotype file: white space separated, the family and individual identifiers first,
then the phenotypes, with an optional header line ``FID IID name ...`` that names them. It is
read by PLINK's rules: 1 = control and 2 = case (two classes), 0 missing; with PLINK's ``--1``
coding (``coding="01"``) 0 = control and 1 = case; other numbers are a numeric target, 0 among
them; -9 and NA are always missing; individuals with a missing phenotype are left out.

The readers refuse what they cannot read with a ``ValueError`` that says so ("cannot read
..."): a missing ``.fam`` or ``.bim``, a ``.bed`` that does not start with PLINK's magic bytes or
whose size does not match the individuals and SNPs, a file that is not Parquet. PLINK needs
``pip install 'Orange3-Relief[plink]'`` (bed-reader), Parquet ``pip install
'Orange3-Relief[parquet]'`` (pyarrow).
"""
import os
from typing import NamedTuple

import numpy as np

from .estimators.encoding import EncodedData
from .imputation import IMPUTATIONS, fill_with_mode

__all__ = ["PlinkFiles", "Phenotype", "read_plink", "read_covariates", "covariate_columns",
           "CovariateTable", "MISSING_COVARIATES", "plink_dask",
           "read_parquet", "parquet_dask", "coded_frame", "MISSING_PHENOTYPES"]

#: the phenotype texts read as missing (and the number -9; 0 too for a 1/2 case/control one)
MISSING_PHENOTYPES = ("-9", "NA", "na", "nan", "NaN", "")
#: the phenotype codings: PLINK's default (1 = control, 2 = case, 0 missing) and its ``--1``
#: (0 = control, 1 = case)
CODINGS = ("12", "01")
#: PLINK's .bed magic bytes (SNP-major mode)
BED_MAGIC = b"\x6c\x1b\x01"
#: bytes of one block of genotypes read by :func:`read_plink` (as int8, plus bed-reader's own)
BLOCK_BYTES = 64 * 2 ** 20
#: bytes of a partition of :func:`plink_dask` (as int8)
PARTITION_BYTES = 128 * 2 ** 20
#: bed-reader's code of a missing call in its int8 output
INT8_MISSING = -127


def _bed_reader():
    try:
        import bed_reader
    except ImportError as error:
        raise ImportError("reading PLINK files needs bed-reader: "
                          "pip install 'Orange3-Relief[plink]'") from error
    return bed_reader


class Phenotype(NamedTuple):
    """A PLINK phenotype as read (:meth:`PlinkFiles.target`): ``rows`` the individuals that
    have one, ``y`` its values for them (class codes 0, 1, ... or numbers), ``n_classes`` (0: a
    numeric target), its ``name``, ``read`` the individuals read and ``rule`` how the values
    were read (e.g. "1 = control, 2 = case (0, -9 and NA missing)")."""
    rows: np.ndarray
    y: np.ndarray
    n_classes: int
    name: str
    read: int
    rule: str


def _listed(values):
    return ", ".join(f"{v:g}" for v in sorted(values))


class PlinkFiles:
    """A PLINK binary file set checked for what can be read: ``path`` the ``.bed`` file (or its
    name without the extension). ``fids``, ``iids`` the family and individual identifiers,
    ``phenotype`` of the ``.fam`` file; ``chromosomes``, ``snps`` (the SNP names),
    ``positions`` (base-pair) and ``alleles`` (A1, the allele counted) of the ``.bim`` file
    (strings). ``ValueError`` ("cannot read ...") for a
    missing ``.fam``/``.bim``, a ``.bed`` without PLINK's magic bytes, of the wrong size, or
    unreadable companion files."""

    def __init__(self, path):
        path = os.fspath(path)
        stem = path[:-4] if path.lower().endswith(".bed") else path
        self.bed, self.fam, self.bim = stem + ".bed", stem + ".fam", stem + ".bim"
        for name, what in ((self.bed, "genotypes"), (self.fam, "individuals"),
                           (self.bim, "SNPs")):
            if not os.path.isfile(name):
                raise ValueError(f"cannot read PLINK data {path!r}: missing "
                                 f"{os.path.basename(name)} (the {what})")
        with open(self.bed, "rb") as file:
            magic = file.read(3)
        if magic != BED_MAGIC:
            raise ValueError(f"cannot read PLINK data {path!r}: {os.path.basename(self.bed)} "
                             "does not start with PLINK's magic bytes (not a SNP-major .bed "
                             "file)")
        self.fids, self.iids, self.phenotype = _columns(self.fam, 6, (0, 1, 5), path)
        self.chromosomes, self.snps, self.positions, self.alleles = _columns(
            self.bim, 6, (0, 1, 3, 4), path)
        n, a = len(self.iids), len(self.snps)
        expected = 3 + (n + 3) // 4 * a
        size = os.path.getsize(self.bed)
        if size != expected:
            raise ValueError(
                f"cannot read PLINK data {path!r}: {os.path.basename(self.bed)} has {size} "
                f"bytes, {n} individuals and {a} SNPs need {expected}"
                + (" (the file is truncated)" if size < expected else ""))
        if n == 0 or a == 0:
            raise ValueError(f"cannot read PLINK data {path!r}: {n} individuals, {a} SNPs")
        self.path = path

    @property
    def shape(self):
        return len(self.iids), len(self.snps)

    def loci(self):
        """The ``.bim`` columns a PLINK user joins results on, per SNP in the file's order:
        ``{"CHR": ..., "SNP": ..., "BP": ..., "A1": ...}`` (BP as an integer when it is one)."""
        return [{"CHR": chromosome, "SNP": snp, "BP": int(bp) if bp.lstrip("-").isdigit()
                 else bp, "A1": allele}
                for chromosome, snp, bp, allele in zip(self.chromosomes, self.snps,
                                                       self.positions, self.alleles)]

    def open(self):
        """bed-reader's reader of the file set (counts given: it reads no companion file)."""
        n, a = self.shape
        return _bed_reader().open_bed(self.bed, iid_count=n, sid_count=a,
                                      properties={"iid": self.iids, "sid": self.snps})

    def target(self, pheno=None, column=None, coding="12", class_type=None):
        """The phenotype (the class) by PLINK's rules, as a :class:`Phenotype`: of the
        ``.fam`` file (``pheno`` None) or the column ``column`` (a name of the header, or None
        for the first) of the phenotype file ``pheno``.

        ``coding`` "12" (PLINK's default): values among 0, 1, 2 are case/control, 1 = control
        and 2 = case (class codes 0, 1), 0 missing; other numbers a quantitative trait, 0
        among its values. "01" (PLINK's ``--1``): 0 = control, 1 = case. -9 and NA are
        always missing. ``class_type`` "numeric" reads the values as numbers whatever they
        are (0 then a value), "discrete" each distinct value as a class. ``ValueError`` naming
        what was read when fewer than two classes (or no value) remain."""
        if coding not in CODINGS:
            raise ValueError(f"phenotype coding must be one of {', '.join(CODINGS)}, "
                             f"got {coding!r}")
        if pheno is None:
            if column is not None:
                raise ValueError(f"PLINK data {self.path!r} have one phenotype, in "
                                 f"{os.path.basename(self.fam)}; a named phenotype needs a "
                                 "phenotype file")
            values, name = self.phenotype, "phenotype"
        else:
            values, name = self._pheno_file(pheno, column)
        values = np.asarray(values, dtype=str)
        known = ~np.isin(values, MISSING_PHENOTYPES)
        try:
            numbers = np.array([float(v) if ok else np.nan for v, ok in zip(values, known)])
        except ValueError:
            raise ValueError(f"phenotype {name!r} of {self.path!r} has values that are not "
                             "numbers") from None
        if np.isinf(numbers).any():
            raise ValueError(f"phenotype {name!r} of {self.path!r} has infinite values")
        known &= numbers != -9.0
        found = set(np.unique(numbers[known]).tolist())
        if class_type == "numeric":
            rule, control = "numbers (-9 and NA missing)", None
        elif coding == "01":
            if not found <= {0.0, 1.0}:
                raise ValueError(
                    f"phenotype {name!r} of {self.path!r} read with the 0/1 coding (PLINK's "
                    "--1: 0 = control, 1 = case, -9 and NA missing) holds other values: "
                    f"{_listed(found - {0.0, 1.0})}")
            rule, control = "0 = control, 1 = case (-9 and NA missing)", 0.0
        elif found <= {0.0, 1.0, 2.0}:
            rule, control = "1 = control, 2 = case (0, -9 and NA missing)", 1.0
            known &= numbers != 0.0
        else:
            rule, control = "a quantitative trait (-9 and NA missing)", None
        rows = np.flatnonzero(known)
        read = (f"phenotype {name!r} of {self.path!r} read as {rule}: {rows.size} of "
                f"{values.size} individuals have one")
        if control is not None and class_type is None:
            y = numbers[rows] - control
            counts = f"{int((y == 0).sum())} controls, {int((y == 1).sum())} cases"
            if (y == 0).all() or (y == 1).all():
                hint = ("; if 0 means control and 1 case, read it with PLINK's 0/1 coding "
                        "(--1)" if coding == "12" and 0.0 in found and 2.0 not in found
                        else "")
                raise ValueError(f"{read} ({counts}): ranking needs both{hint}")
            return Phenotype(rows, y, 2, name, values.size, rule)
        if rows.size == 0:
            raise ValueError(f"{read}")
        y = numbers[rows]
        if class_type == "discrete":
            levels, y = np.unique(y, return_inverse=True)
            if levels.size < 2:
                raise ValueError(f"{read}, all of the value {_listed(levels)}: ranking needs "
                                 "two classes or more")
            return Phenotype(rows, y.astype(float), levels.size, name, values.size, rule)
        return Phenotype(rows, y, 0, name, values.size, rule)

    def genotypes(self, phenotype, callback=None, impute=None):
        """:class:`~.estimators.encoding.EncodedData` of the individuals of ``phenotype`` (a
        :class:`Phenotype`), read a block of SNPs at a time (see :func:`read_plink`).
        ``impute="mode"`` fills each SNP's missing calls with its most frequent genotype among
        these individuals (the smaller one of a tie), so that the genotypes stay packed;
        ``missing_calls`` is then the number of calls that were missing (filled or not)."""
        from .estimators.neighbourhood.packed import PackedColumns, pack_planes, unpack
        if impute not in IMPUTATIONS:
            raise ValueError(f"impute must be one of {', '.join(map(str, IMPUTATIONS))}, got "
                             f"{impute!r}")
        rows, y, n_classes = phenotype.rows, phenotype.y, phenotype.n_classes
        n, a = rows.size, self.shape[1]
        self.missing_calls = 0
        index = slice(None) if n == self.shape[0] else rows
        planes = np.zeros((n, 2, (a + 63) // 64), np.uint64)
        X = None                                        # float32, once a call is missing
        step = max(64, BLOCK_BYTES // max(n, 1) // 64 * 64)
        with self.open() as bed:
            for lo in range(0, a, step):
                hi = min(a, lo + step)
                block = bed.read(np.s_[index, lo:hi], dtype="int8", order="C")
                missing = block == INT8_MISSING
                self.missing_calls += int(missing.sum())
                if impute == "mode" and missing.any():
                    block = fill_with_mode(block, missing)
                if X is None:
                    packed = pack_planes(block, np.arange(hi - lo))    # None: a call missing
                    if packed is not None:
                        planes[:, :, lo // 64:lo // 64 + packed.shape[2]] = packed
                    else:                               # the first missing call: decode so far
                        X = np.empty((n, a), np.float32)
                        X[:, :lo] = unpack(planes, np.arange(n), np.arange(lo))
                        planes = None
                if X is not None:
                    X[:, lo:hi] = np.where(block == INT8_MISSING, np.float32(np.nan),
                                           block.astype(np.float32))
                if callback is not None:
                    callback(hi / a)
        return EncodedData(X=PackedColumns(planes, a) if X is None else X, y=y,
                           discrete=np.ones(a, bool), n_values=np.full(a, 3, np.intp),
                           n_classes=n_classes, minimum=np.zeros(a), span=np.ones(a),
                           names=tuple(self.snps),
                           y_span=1.0 if n_classes else float(np.ptp(y)))

    #: calls missing in the genotypes last read (:meth:`genotypes`)
    missing_calls = 0

    def partitions(self, rows, partition_rows=None):
        """The genotypes of the individuals ``rows`` as a Dask array partitioned by them (see
        :func:`plink_dask`), each partition read by a task from the file's absolute path."""
        import dask
        import dask.array as da
        a = self.shape[1]
        bed = os.path.abspath(self.bed)
        step = partition_rows or max(1, PARTITION_BYTES // a)
        return da.concatenate([
            da.from_delayed(dask.delayed(_read_rows)(bed, self.shape, rows[lo:lo + step]),
                            shape=(min(step, rows.size - lo), a), dtype=np.int8)
            for lo in range(0, rows.size, step)], axis=0)

    def _pheno_file(self, pheno, column):
        lines = []
        try:
            with open(pheno, encoding="utf-8") as file:
                lines = [line.split() for line in file if line.strip()]
        except (OSError, UnicodeDecodeError) as error:
            raise ValueError(f"cannot read phenotype file {pheno!r}: {error}") from None
        if not lines or any(len(line) != len(lines[0]) or len(line) < 3 for line in lines):
            raise ValueError(f"cannot read phenotype file {pheno!r}: expected lines of the "
                             "same number (at least 3) of fields: FID IID phenotype ...")
        header = lines[0][:2] == ["FID", "IID"]
        names = lines[0][2:] if header else [f"PHENO{i}" for i in range(1, len(lines[0]) - 1)]
        body = lines[1:] if header else lines
        if column is None:
            index = 0
        elif column in names:
            index = names.index(column)
        else:
            raise ValueError(f"phenotype file {pheno!r} has no column {column!r}; its "
                             f"phenotypes: {', '.join(names)}")
        by_id = {(line[0], line[1]): line[2 + index] for line in body}
        values = [by_id.get((f, i), "NA") for f, i in zip(self.fids, self.iids)]
        return values, names[index]


#: the covariate texts read as missing (PLINK 1.9's -9 and plink2's NA)
MISSING_COVARIATES = ("NA", "na", "nan", "NaN", "-9", "-9.0")


class CovariateTable(NamedTuple):
    """PLINK covariate columns matched to the individuals of a file set
    (:func:`read_covariates`): ``covariates`` (:class:`~.estimators.encoding.Covariates`) of
    the individuals ``kept`` (indices into the rows asked for) and ``missing`` the number of
    those left out for a missing value (NA, -9) or no line in the file."""
    covariates: object
    kept: np.ndarray
    missing: int


def covariate_columns(path, names=None):
    """``(ids, names, values)`` of PLINK's covariate file ``path``: one line per individual,
    whitespace-separated, the family and individual identifiers first, then the covariates:
    headerless (PLINK 1.9: columns COV1, COV2, ...), under a header ``FID IID name ...`` or
    plink2's ``#FID IID name ...``, or ``#IID name ...`` (no family identifiers: matched by
    the individual's alone). ``ids`` the (FID, IID) of each line (FID None without them);
    ``names`` chooses the columns as PLINK's ``--covar-name`` does: names and ranges of
    columns ``first-last`` (in the file's order), comma-separated (a list or a string; None:
    all). ``ValueError`` ("cannot read ...") for a malformed file or a name it lacks."""
    try:
        with open(path, encoding="utf-8") as file:
            lines = [line.split() for line in file if line.strip()]
    except (OSError, UnicodeDecodeError) as error:
        raise ValueError(f"cannot read covariate file {path!r}: {error}") from None
    head = lines[0] if lines else []
    if head[:1] == ["#IID"]:
        width, columns, body = 1, head[1:], lines[1:]
    elif head[:2] in (["#FID", "IID"], ["FID", "IID"]):
        width, columns, body = 2, head[2:], lines[1:]
    else:
        width, body = 2, lines
        columns = [f"COV{i}" for i in range(1, len(head) - 1)]
    bad = next((i for i, line in enumerate(body) if len(line) != width + len(columns)), None)
    if not columns or not body or bad is not None:
        where = f" (line {bad + 1 + (body is not lines)})" if bad is not None else ""
        raise ValueError(
            f"cannot read covariate file {path!r}{where}: expected the identifiers FID IID "
            "(or plink2's #IID), then at least one covariate, on every line (optionally "
            "under a header 'FID IID name ...' or '#FID IID name ...')")
    chosen = list(range(len(columns))) if names is None else _chosen(names, columns, path)
    ids = [(line[0], line[1]) if width == 2 else (None, line[0]) for line in body]
    values = np.array([[line[width + c] for c in chosen] for line in body], dtype=str)
    return ids, [columns[c] for c in chosen], values.reshape(len(body), len(chosen))


def _chosen(names, columns, path):
    """The indices of the columns ``names`` chooses (PLINK's ``--covar-name``: names and ranges
    ``first-last``, comma-separated)."""
    items = [item.strip() for item in (names.split(",") if isinstance(names, str) else names)
             if item.strip()]
    chosen = []
    for item in items:
        if item in columns:
            found = [columns.index(item)]
        elif item.count("-") == 1 and all(end in columns for end in item.split("-")):
            first, last = (columns.index(end) for end in item.split("-"))
            if last < first:
                raise ValueError(f"covariate range {item!r} of {path!r} runs backwards: its "
                                 "columns are in the order " + ", ".join(columns))
            found = list(range(first, last + 1))
        else:
            raise ValueError(f"covariate file {path!r} has no column {item!r}; its columns: "
                             f"{', '.join(columns)}")
        chosen += [c for c in found if c not in chosen]
    if not chosen:
        raise ValueError(f"no covariate chosen of {path!r}; its columns: {', '.join(columns)}")
    return chosen


def read_covariates(path, files, rows, names=None):
    """The covariates of PLINK's covariate file ``path`` (:func:`covariate_columns`; ``names``
    chooses columns as PLINK's ``--covar-name``) for the individuals ``rows`` of the file set
    ``files`` (:class:`PlinkFiles`), as a :class:`CovariateTable`: a column of numbers is
    numeric, any other categorical (codes of its values in sorted order). As PLINK does, the
    individuals with a missing value (NA or -9) or without a line are left out (``kept`` says
    which remain, ``missing`` counts the others). ``ValueError`` for a malformed file or when no
    individual remains."""
    from .estimators.encoding import as_covariates
    ids, names, values = covariate_columns(path, names)
    by_id = {}
    for (fid, iid), line in zip(ids, values):
        by_id[(fid, iid)] = line
    plink2 = ids[0][0] is None
    fids, iids = np.asarray(files.fids)[rows], np.asarray(files.iids)[rows]
    absent = np.full(len(names), "NA")
    table = np.array([by_id.get((None if plink2 else f, i), absent)
                      for f, i in zip(fids, iids)], dtype=str).reshape(len(rows), len(names))
    kept = np.flatnonzero(~np.isin(table, MISSING_COVARIATES).any(axis=1))
    if kept.size == 0:
        raise ValueError(f"covariate file {path!r}: none of the {len(rows)} individuals has "
                         "a line without missing values (NA, -9)")
    table = table[kept]
    columns, discrete = [], []
    for c in range(len(names)):
        try:
            columns.append(table[:, c].astype(float))
            discrete.append(False)
        except ValueError:
            columns.append(np.unique(table[:, c], return_inverse=True)[1].astype(float))
            discrete.append(True)
    covariates = as_covariates(np.column_stack(columns), kept.size, discrete, names)
    return CovariateTable(covariates, kept, len(rows) - kept.size)


def _columns(path, fields, wanted, spec):
    """The ``wanted`` columns (lists of strings) of a whitespace-separated file whose lines
    have ``fields`` fields."""
    try:
        with open(path, encoding="utf-8") as file:
            lines = [line.split() for line in file if line.strip()]
    except (OSError, UnicodeDecodeError) as error:
        raise ValueError(f"cannot read PLINK data {spec!r}: {os.path.basename(path)}: "
                         f"{error}") from None
    bad = next((i for i, line in enumerate(lines) if len(line) != fields), None)
    if bad is not None:
        raise ValueError(f"cannot read PLINK data {spec!r}: line {bad + 1} of "
                         f"{os.path.basename(path)} has {len(lines[bad])} fields, not {fields}")
    return tuple(np.array([line[c] for line in lines], dtype=object).astype(str)
                 for c in wanted)


def read_plink(path, pheno=None, column=None, callback=None, coding="12", class_type=None,
               impute=None):
    """The genotypes of a PLINK binary file set and a phenotype as
    :class:`~.estimators.encoding.EncodedData`, ready for the estimators
    (``ReliefF(...)(data)``): one discrete attribute (values 0, 1, 2) per SNP, named as in the
    ``.bim`` file; the individuals without a phenotype left out.

    Parameters
    ----------
    path
        The ``.bed`` file (its ``.bim`` and ``.fam`` beside it, of the same name).
    pheno, column
        A phenotype file and its column (see the module docstring); None: the ``.fam``
        file's phenotype.
    callback
        ``callback(fraction)`` after each block of SNPs read; raising from it stops reading.
    coding, class_type
        How the phenotype is read (:meth:`PlinkFiles.target`): PLINK's 1/2 case/control
        coding ("12") or its ``--1`` 0/1 coding ("01"); "numeric" or "discrete" to read it
        so whatever its values.
    impute
        None: missing calls stay missing; "mode": each SNP's missing calls are filled with its
        most frequent genotype among the individuals read (:func:`.imputation.fill_with_mode`,
        the command line's ``--impute mode``), which keeps the bit planes.

    The genotypes are read a block of SNPs at a time and packed into two bit planes
    (:class:`~.estimators.neighbourhood.packed.PackedColumns`, two bits a genotype: 10,000 x
    500,000 SNPs take 1.25 GB), which the estimators read as they are. With missing calls (and
    ``impute=None``) the array is float32 with NaN for them (four bytes a genotype), which the
    estimators read by their general path, many times slower.
    """
    files = PlinkFiles(path)
    return files.genotypes(files.target(pheno, column, coding, class_type), callback, impute)


def plink_dask(path, pheno=None, column=None, partition_rows=None, coding="12",
               class_type=None):
    """``(X, y, n_classes, names)``: the genotypes of a PLINK file set as a Dask array of int8
    codes 0, 1, 2 partitioned by individuals, each partition read from the file by its own task
    (``partition_rows`` individuals; default: ``PARTITION_BYTES`` a partition), and the
    phenotype (see :meth:`PlinkFiles.target`, ``coding`` and ``class_type`` as there) in
    memory; for :func:`.dask.estimate` with ``discrete=True, n_values=3``. A partition holding
    missing calls is float32 with NaN for them (four bytes a genotype). The workers read the
    file at its absolute path: they must see it there (a shared file system)."""
    files = PlinkFiles(path)
    phenotype = files.target(pheno, column, coding, class_type)
    return (files.partitions(phenotype.rows, partition_rows), phenotype.y,
            phenotype.n_classes, tuple(files.snps))


def _read_rows(bed, shape, rows):
    """The genotypes of the individuals ``rows`` as int8, or with a missing call among them as
    float32 (NaN = missing), read on a worker; ``ValueError`` naming the worker when it cannot
    see the file."""
    if not os.path.isfile(bed):
        import socket
        raise ValueError(f"cannot read PLINK data {bed!r} on the Dask worker of "
                         f"{socket.gethostname()!r}: no such file (the workers read the file "
                         "at the same path as the client: put it on a file system they share)")
    with _bed_reader().open_bed(bed, iid_count=shape[0], sid_count=shape[1]) as reader:
        block = reader.read(np.s_[rows, :], dtype="int8", order="C", num_threads=1)
    missing = block == INT8_MISSING
    if missing.any():
        return np.where(missing, np.float32(np.nan), block.astype(np.float32))
    return block


def _pyarrow_dataset(path):
    try:
        import pyarrow.dataset as ds
    except ImportError as error:
        raise ImportError("reading Parquet needs pyarrow: "
                          "pip install 'Orange3-Relief[parquet]'") from error
    import pyarrow
    try:
        return ds.dataset(os.fspath(path), format="parquet")
    except (pyarrow.ArrowInvalid, OSError) as error:
        raise ValueError(f"cannot read {os.fspath(path)!r} as Parquet: {error}") from None


def read_parquet(path, class_name=None):
    """An Orange ``Table`` of a Parquet file or of a folder of Parquet files (one dataset),
    read a row group at a time; ``class_name`` names the class column (default: none, to be set
    by the caller). Text and categorical columns become discrete variables, numbers numeric
    ones (Orange's ``table_from_frame``). ``ValueError`` for what cannot be read: a file that is
    not Parquet ("cannot read ..."), infinite values, a missing class column (the message
    names the columns)."""
    import pyarrow
    import pandas as pd
    from Orange.data import Domain
    from Orange.data.pandas_compat import table_from_frame
    dataset = _pyarrow_dataset(path)
    names = dataset.schema.names
    if class_name is not None and class_name not in names:
        raise ValueError(f"Parquet data {os.fspath(path)!r} have no column {class_name!r}; "
                         f"the columns are: {', '.join(map(repr, names))}")
    try:
        frames = [batch.to_pandas() for batch in dataset.to_batches()]
    except (pyarrow.ArrowInvalid, OSError) as error:
        raise ValueError(f"cannot read {os.fspath(path)!r} as Parquet: {error}") from None
    frame = pd.concat(frames, ignore_index=True) if frames else dataset.schema.empty_table() \
        .to_pandas()
    text = [c for c in frame.columns if frame[c].dtype == object or str(frame[c].dtype)
            in ("string", "bool")]
    frame = frame.astype({c: "category" for c in text})   # discrete, never parsed as dates
    numeric = frame.select_dtypes("number")
    if np.isinf(numeric.to_numpy(dtype=float)).any():
        bad = [c for c in numeric.columns if np.isinf(numeric[c].to_numpy(dtype=float)).any()]
        raise ValueError(f"Parquet data {os.fspath(path)!r} hold infinite values in "
                         f"{', '.join(map(repr, bad))} (use a missing value instead)")
    table = table_from_frame(frame)
    if class_name is not None:
        var = table.domain[class_name]
        variables = [v for v in table.domain.attributes if v is not var]
        table = table.transform(Domain(variables, var, table.domain.metas))
    table.name = os.path.splitext(os.path.basename(os.fspath(path).rstrip(os.sep)))[0]
    return table


def parquet_dask(path):
    """A Dask dataframe of a Parquet file or folder, a partition per row group (for
    :func:`.dask.estimate`: name the class column as ``y``); ``ValueError`` ("cannot read
    ...") when it is not Parquet."""
    import dask.dataframe as dd
    _pyarrow_dataset(path)              # the clear error before Dask's
    return dd.read_parquet(os.fspath(path), split_row_groups=True)


def coded_frame(frame, columns):
    """``(frame, categories)``: a Dask dataframe with the text ``columns`` replaced by their
    value codes 0, 1, ... (float, NaN = missing; the values sorted), and the values of each,
    found in one pass over the partitions; for :func:`.dask.estimate` with these columns
    discrete."""
    import dask
    found = dask.compute(*[frame[c].dropna().unique() for c in columns])
    categories = {c: sorted(map(str, values)) for c, values in zip(columns, found)}
    return frame.map_partitions(_codes, categories), categories


def _codes(part, categories):
    """A pandas partition with the columns of ``categories`` as codes (NaN: missing)."""
    import pandas as pd
    return part.assign(**{
        c: pd.Categorical(part[c].astype("string"), categories=values).codes.astype(float)
        for c, values in categories.items()}).replace({c: {-1.0: np.nan} for c in categories})
