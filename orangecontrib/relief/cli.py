"""The ``orange-relief`` console command (also ``python -m orangecontrib.relief.cli``).

Subcommands:

* ``rank [DATA]``: estimate the attributes of a data set with one of the scorers of
  :mod:`orangecontrib.relief.scoring` and print them ranked (``--format table|csv|json``), or
  write them to a file (``--output scores.csv`` or ``scores.json``);
* ``pairs [DATA]``: test the pairs of the attributes an estimator ranks best (or of the named
  ones) for interaction with the class (:mod:`.estimators.interactions`) and print them, best
  first, with their p-values and q-values;
* ``estimators``: list the estimator names ``rank --estimator`` accepts;
* ``tree [DATA]``: grow a CORE tree and print it with its cross-validated accuracy.
* ``compile``: compile the numeric kernels for every kind of data into the cache now, rather
  than on their first use.

DATA is a file Orange reads (.tab, .csv, .tsv, .xlsx, ...), a Parquet file or folder, a PLINK
``.bed`` file (with its ``.bim`` and ``.fam``; the phenotype of the ``.fam`` file is the class, or
``--pheno FILE`` names a phenotype file), or the name of a data set Orange ships (``iris``,
``zoo``, ``housing``, ...); without DATA, Orange's ``heart_disease`` (numeric and discrete
attributes with missing values, two classes) is ranked. ``rank --dask [ADDRESS]`` ranks on a
Dask cluster (a local one by default) with ReliefF, RReliefF or the SURF family and
``--iterations M``, reading the data by partitions (:mod:`orangecontrib.relief.dask`). ``--class NAME`` names the
class column of a plain file (one without Orange's header flags); ``--class-type`` reads it as
discrete or numeric where the guess is not what is meant (e.g. integer class labels).

Results go to stdout and nothing else does: a progress bar (for work longer than a second), the
notice that numba compiles the kernels on their first use, and errors go to stderr; ``--quiet``
keeps only the errors. Bad arguments, empty or unreadable files (binary content where a text
table is expected, infinite values), data without a class and an estimator that does not suit the
target print a one-line message to stderr and exit with status 2; Ctrl-C stops the work (on Dask,
the workers' tasks) and exits with status 130.

Adding a subcommand is one function: decorate a function that declares its arguments on the
given ``argparse`` parser and returns the function that runs it::

    @command("tree", "build a CORE tree and print it")
    def tree_command(parser):
        add_data_argument(parser)
        parser.add_argument("--min-instances", type=int, default=5)
        return run_tree          # run_tree(args, out) -> exit status; raise CliError for misuse

Helpers shared by subcommands: :func:`add_data_argument`, :func:`load_table`,
:func:`progress`, :func:`positive_int`, :class:`CliError`.
"""
import argparse
import ast
import csv
import importlib.util
import json
import os
import re
import sys
import warnings
from collections import namedtuple
from contextlib import contextmanager

from . import __version__
from .compilation import cache_dir, compile_notices

__all__ = ["main", "command", "CliError", "load_table", "add_data_argument", "progress",
           "positive_int"]

PROGRAM = "orange-relief"
#: the data set ranked when DATA is omitted (shipped with Orange)
DEFAULT_DATA = "heart_disease"
#: the estimator used when --estimator is omitted, by target type
DEFAULT_ESTIMATORS = {"classification": "ReliefF", "regression": "RReliefF"}

#: subcommand name -> (help, function that declares its arguments and returns its runner)
COMMANDS = {}


def _lazy_import(name):
    """Module ``name``, loaded on its first attribute access: ``orange-relief --version`` and
    ``--help`` start in a fraction of a second without numpy, numba or Orange."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.find_spec(name)
    spec.loader = importlib.util.LazyLoader(spec.loader)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


np = _lazy_import("numpy")


class CliError(Exception):
    """A user error: its message goes to stderr and the command exits with status 2."""


def command(name, help):
    """Register a subcommand (see the module docstring)."""
    def register(declare):
        COMMANDS[name] = (help, declare)
        return declare
    return register


# ---------------------------------------------------------------------------------------------
# argument types and helpers shared by subcommands

def positive_int(text):
    """argparse type: an integer >= 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value}")
    return value


def int_value(text):
    """argparse type: any integer (e.g. a seed)."""
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None


def key_value(text):
    """argparse type for ``--param NAME=VALUE``: VALUE is a Python literal (number, True,
    None, 'text') or else taken as a string."""
    name, sep, value = text.partition("=")
    if not sep or not name.isidentifier():
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, got {text!r}")
    try:
        value = ast.literal_eval(value)
    except (ValueError, SyntaxError):
        pass
    return name, value


def add_data_argument(parser):
    """DATA and the options that say which column is the class."""
    parser.add_argument(
        "data", nargs="?", default=DEFAULT_DATA, metavar="DATA",
        help="a data file Orange reads (.tab, .csv, .tsv, .xlsx, ...), a Parquet file or "
             "folder, a PLINK .bed file (rank and pairs), or the name of a data set shipped with "
             f"Orange (iris, zoo, housing, ...); default: {DEFAULT_DATA}")
    parser.add_argument(
        "-c", "--class", dest="class_name", metavar="NAME",
        help="the class (target) column, for files without Orange's header flags (a plain "
             "CSV); default: the class the file marks")
    parser.add_argument(
        "--class-type", choices=("discrete", "numeric"),
        help="read the class as discrete (classification) or numeric (regression) instead of "
             "as guessed from its values (integer labels read as numeric)")


def note_integer_class(args, table):
    """A hint on stderr when the class was read as numeric but holds a few integers only
    (class labels 0, 1, 2 in a plain CSV): ``--class-type discrete`` makes it a class."""
    var = table.domain.class_var
    if args.quiet or args.class_type or not var.is_continuous:
        return
    values = np.unique(table.get_column(var))
    values = values[~np.isnan(values)]
    if len(values) <= 10 and np.all(values == np.round(values)):
        print(f"{PROGRAM}: the class {var.name!r} is read as numeric (values "
              f"{', '.join(var.str_val(v) for v in values)}); for classification add "
              "--class-type discrete", file=sys.stderr)


#: extensions of the text tables Orange reads: a file of binary content named so is refused
TEXT_EXTENSIONS = (".csv", ".tsv", ".tab", ".basket")
#: bytes looked at to tell text from binary content
SNIFF_BYTES = 65536


def data_kind(spec):
    """"plink" (a .bed file), "parquet" (a .parquet file or a folder holding such files) or
    "table" (anything else: a file Orange reads or a data set it ships)."""
    lower = spec.lower().rstrip("/" + os.sep)
    if lower.endswith(".bed"):
        return "plink"
    if lower.endswith((".parquet", ".pq")) or os.path.isdir(spec) and any(
            name.lower().endswith((".parquet", ".pq")) for _, _, names in os.walk(spec)
            for name in names):
        return "parquet"
    return "table"


def check_readable(spec):
    """:class:`CliError` when ``spec`` names a file that cannot be data: a directory (but a
    Parquet folder), an empty file, one the user may not read, binary content in a text
    table's file. A name that is no file is left to Orange (a data set it ships)."""
    if not os.path.exists(spec):
        if os.path.dirname(spec) or data_kind(spec) != "table":
            raise CliError(f"cannot read data {spec!r}: no such file")
        return
    if os.path.isdir(spec):
        if data_kind(spec) == "parquet":
            return
        raise CliError(f"cannot read data {spec!r}: it is a directory, not a data file")
    if not os.access(spec, os.R_OK):
        raise CliError(f"cannot read data {spec!r}: permission denied")
    if os.path.getsize(spec) == 0:
        raise CliError(f"data file {spec!r} is empty")
    if spec.lower().endswith(TEXT_EXTENSIONS) or not os.path.splitext(spec)[1]:
        with open(spec, "rb") as file:
            head = file.read(SNIFF_BYTES)
        control = sum(head.count(bytes([c])) for c in range(32) if c not in (9, 10, 12, 13))
        if b"\0" in head or control > 0.01 * len(head):
            raise CliError(f"cannot read data {spec!r} as a table: it holds binary content, "
                           "not text")


def read_table(spec):
    """Orange's ``Table`` of ``spec`` (a Parquet file or folder read by
    :func:`.readers.read_parquet`); :class:`CliError` for what cannot be read, bytes that are
    no text and infinite values (which Orange would turn into missing ones with a warning)."""
    from Orange.data import Table
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            if data_kind(spec) == "parquet":
                from .readers import read_parquet
                table = read_parquet(spec)
            else:
                table = Table(spec)
        except ImportError as error:
            raise CliError(str(error)) from None
        except Exception as error:  # Orange's readers raise many kinds of errors
            text = str(error)
            raise CliError(text if text.startswith("cannot read")
                           else f"cannot read data {spec!r}: {text}") from None
    for warning in caught:
        text = str(warning.message)
        if "invalid byte" in text:
            raise CliError(f"cannot read data {spec!r} as a table: {text.lower()} (not text "
                           "in a known encoding)")
        if "infinity" in text:
            raise CliError(f"data {spec!r} hold infinite values (inf): give a missing value "
                           "('?' or an empty field) instead")
        if not issubclass(warning.category, (DeprecationWarning, PendingDeprecationWarning)):
            warnings.warn_explicit(warning.message, warning.category, warning.filename,
                                   warning.lineno)
    return table


def load_table(spec, class_name=None, class_type=None):
    """The Orange table named by ``spec`` (a path or a data set shipped with Orange), with the
    column ``class_name`` (if given) as its class, read as ``class_type`` ("discrete",
    "numeric" or None for as read); :class:`CliError` when it cannot be read, is empty, or has
    no class or no attributes."""
    check_readable(spec)
    if data_kind(spec) == "plink":
        raise CliError(f"PLINK data {spec!r} are read by 'orange-relief rank' only")
    table = read_table(spec)
    if not table.domain.variables and not table.domain.metas:
        raise CliError(f"data {spec!r} are empty: no columns")
    var = (table.domain.class_var if class_name is None
           else find_column(table.domain, class_name, spec))
    if var is not None and (class_name or class_type) is not None:
        table = with_class(table, var, class_type, spec)
    if len(table.domain.class_vars) > 1:
        raise CliError(f"data {spec!r} have {len(table.domain.class_vars)} target variables "
                       f"({', '.join(repr(v.name) for v in table.domain.class_vars)}): name "
                       "the one to estimate against with --class NAME")
    if table.domain.class_var is None:
        raise CliError(f"data {spec!r} have no class (target) variable: ranking needs one; "
                       "name the class column with --class NAME")
    if len(table) == 0:
        raise CliError(f"data {spec!r} have no rows (instances)")
    if not table.domain.attributes:
        raise CliError(f"data {spec!r} have no attributes to rank")
    return table


def find_column(domain, name, spec):
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
        raise CliError(f"class {name!r} is ambiguous in {spec!r}: columns "
                       f"{', '.join(repr(var.name) for var in similar)}; name one exactly")
    raise CliError(f"data {spec!r} have no column {name!r} for the class; the columns are: "
                   f"{', '.join(repr(var.name) for var in columns)}")


def with_class(table, var, class_type=None, spec=""):
    """``table`` with ``var`` (read as ``class_type``, see :func:`typed`) as its only class;
    a former class becomes an attribute."""
    from Orange.data import Domain
    domain = table.domain
    values = table.get_column(var)
    new_var, values = typed(var, values, class_type, spec)
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


def typed(var, values, class_type, spec):
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
            raise CliError(f"class {var.name!r} of {spec!r} cannot be numeric: it has "
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


@contextmanager
def progress(args, description):
    """A ``callback(fraction)`` for the engine that drives a progress bar on stderr, shown
    once the work has lasted a second; and, while the block runs, a line on stderr when numba
    compiles kernels (their first use). Neither with ``--quiet``."""
    from tqdm import tqdm
    quiet = getattr(args, "quiet", False)
    with tqdm(total=100, desc=description, unit="%", delay=1.0, file=sys.stderr,
              disable=quiet, leave=False,
              bar_format="{desc}: {percentage:3.0f}%|{bar}| {elapsed}<{remaining}") as bar:
        told = []

        def notice(_name):
            if not told:
                told.append(True)
                where = ("kernels are not cached: no writable cache directory"
                         if cache_dir() == "" else "once: later runs load them from the cache")
                bar.write(f"{PROGRAM}: compiling the numeric kernels for their first use "
                          f"({where}) ...", file=sys.stderr)

        def callback(fraction):
            bar.update(max(0.0, min(100.0, 100.0 * fraction)) - bar.n)

        if quiet:
            yield callback
        else:
            with compile_notices(notice):
                yield callback


# ---------------------------------------------------------------------------------------------
# rank

def scorer_classes():
    """Estimator name -> scorer class of :data:`orangecontrib.relief.scoring.SCORERS`."""
    from orangecontrib.relief import scoring
    return {cls.__name__: cls for cls in scoring.SCORERS}


def find_scorer(name, classes):
    """The scorer class called ``name`` (class name or its ``name``, any case)."""
    for cls_name, cls in classes.items():
        if name.lower() in (cls_name.lower(), cls.name.lower()):
            return cls
    raise CliError(f"unknown estimator {name!r}; choose one of: {', '.join(classes)}")


def scorer_parameters(cls, options):
    """Keyword arguments for ``cls`` from the given options (name -> value, None = not
    given), checked against its declared parameters (:mod:`.estimators.description`):
    :class:`CliError` (exit status 2) for an option ``cls`` does not take or a value it
    refuses."""
    accepted = [param.name for param in cls.parameters]
    kwargs = {}
    for (option, parameter), value in options.items():
        if value is None:
            continue
        if parameter not in accepted:
            raise CliError(f"estimator {cls.__name__} does not take {option} "
                           f"(its parameters: {', '.join(accepted) or 'none'})")
        kwargs[parameter] = value
    try:
        cls(**kwargs).check_parameters()
    except ValueError as error:
        raise CliError(f"estimator {cls.__name__}: {error}") from None
    return kwargs


@command("rank", "estimate the attributes' quality and print them ranked")
def rank_command(parser):
    add_data_argument(parser)
    parser.add_argument("--pheno", metavar="FILE",
                        help="PLINK data: a phenotype file (FID IID and phenotype columns, "
                             "optionally a header 'FID IID name ...'); --class names its "
                             "column (default: the first); without it, the .fam file's")
    parser.add_argument("-e", "--estimator", metavar="NAME",
                        help="estimator (see 'orange-relief estimators'); default: ReliefF "
                             "for a discrete class, RReliefF for a numeric one")
    parser.add_argument("-k", "--k", type=positive_int, metavar="K",
                        help="number of nearest neighbours (Relief family)")
    parser.add_argument("-m", "--iterations", type=positive_int, metavar="M",
                        help="number of sampled instances (default: all instances once)")
    parser.add_argument("-s", "--seed", type=int_value, metavar="S",
                        help="random seed for sampling the iterations")
    parser.add_argument("-p", "--param", type=key_value, action="append", default=[],
                        metavar="NAME=VALUE",
                        help="any other estimator parameter, e.g. -p weighting=exp-rank "
                             "-p sigma=20 -p missing=C (repeatable)")
    parser.add_argument("--dask", nargs="?", const=LOCAL, metavar="ADDRESS",
                        help="rank on a Dask cluster: the scheduler at ADDRESS (e.g. "
                             "tcp://host:8786), or without ADDRESS a local cluster; reads the "
                             "data by partitions; ReliefF, RReliefF and the SURF family, "
                             "with --iterations M")
    parser.add_argument("-n", "--top", type=positive_int, metavar="N",
                        help="print only the N best attributes")
    parser.add_argument("-o", "--output", metavar="FILE",
                        help="write the ranking to FILE: CSV (.csv) or JSON (.json), by its "
                             "extension; stdout then stays empty unless --format is given")
    parser.add_argument("-f", "--format", choices=FORMATS,
                        help="what stdout shows: an aligned table (the default), CSV or JSON")
    return run_rank


#: ``--dask`` without an address: a local cluster
LOCAL = "local"

#: what ranking needs of the data: its name, the attributes' names, the number of instances,
#: the class's name and task ("classification" or "regression"), and
#: ``score(scorer_class, kwargs, callback)`` -> the estimates
RankData = namedtuple("RankData", "name attributes instances class_name task score")


def run_rank(args, out):
    output_format = file_format(args.output) if args.output else None
    if args.dask and args.iterations is None:
        raise CliError("--dask needs --iterations M, the number of sampled instances (the "
                       "cluster gathers them)")
    kind = data_kind(args.data)
    if args.pheno is not None and kind != "plink":
        raise CliError("--pheno names the phenotype file of PLINK (.bed) data")
    if args.dask:
        data = dask_data(args, kind)
    elif kind == "plink":
        data = plink_data(args)
    else:
        data = table_data(args)
    classes = scorer_classes()
    task = data.task
    cls = find_scorer(args.estimator or DEFAULT_ESTIMATORS[task], classes)
    if task not in cls.tasks:
        target = "discrete" if task == "classification" else "numeric"
        suitable = [name for name, c in classes.items() if task in c.tasks]
        raise CliError(f"estimator {cls.__name__} does not suit the {target} class "
                       f"{data.class_name!r} of {args.data!r}; estimators for "
                       f"{task}: {', '.join(suitable)}")
    if args.dask:
        from .dask import supports
        if not supports(cls.engine()):
            raise CliError(f"estimator {cls.__name__} has no Dask path: --dask computes "
                           "ReliefF, RReliefF and the SURF family (SURF, SURFstar, MultiSURF, "
                           "MultiSURFstar)")
    options = {("--k", "k"): args.k, ("--iterations", "iterations"): args.iterations,
               ("--seed", "random_state"): args.seed}
    options.update({(f"--param {name}", name): value for name, value in args.param})
    kwargs = scorer_parameters(cls, options)
    try:
        with progress(args, cls.__name__) as callback:
            scores = np.asarray(data.score(cls, kwargs, callback), dtype=float)
    except ValueError as error:
        raise CliError(f"{cls.__name__} cannot rank {args.data!r}: {error}") from None
    result = {
        "estimator": cls.__name__, "parameters": kwargs, "data": data.name,
        "instances": data.instances, "attributes": len(data.attributes),
        "class": data.class_name,
        "class_type": "discrete" if task == "classification" else "numeric",
        "ranking": ranking(list(data.attributes), scores, args.top)}
    if args.output:
        try:
            with open(args.output, "w", encoding="utf-8", newline="") as file:
                file.write(FORMATS[output_format](result))
        except OSError as error:
            raise CliError(f"cannot write {args.output!r}: {error.strerror}") from None
        if not args.quiet:
            print(f"{PROGRAM}: wrote {len(result['ranking'])} scores to {args.output}",
                  file=sys.stderr)
    if args.format or not args.output:
        out.write(FORMATS[args.format or "table"](result))
    return 0


def table_data(args):
    """:class:`RankData` of an Orange table (a file Orange reads, Parquet, a shipped data
    set), ranked by the scorers in memory."""
    from orangecontrib.relief.orange_data import target_kind
    table = load_table(args.data, args.class_name, args.class_type)
    note_integer_class(args, table)
    return RankData(table.name or args.data, [a.name for a in table.domain.attributes],
                    len(table), table.domain.class_var.name, target_kind(table.domain),
                    lambda cls, kwargs, callback: cls(**kwargs)(table, callback=callback))


def plink_target(args):
    """The checked PLINK file set of ``args.data`` and its phenotype ``(rows, y, n_classes,
    name)``, as ``--pheno``, ``--class`` and ``--class-type`` say."""
    from .readers import PlinkFiles
    check_readable(args.data)
    try:
        files = PlinkFiles(args.data)
        rows, y, n_classes, name = files.target(args.pheno, args.class_name)
    except ImportError as error:
        raise CliError(str(error)) from None
    except ValueError as error:
        raise CliError(str(error)) from None
    if args.class_type == "numeric" and n_classes:
        y, n_classes = y + 1.0, 0                      # PLINK's 1 and 2 as numbers
    elif args.class_type == "discrete" and not n_classes:
        values, y = np.unique(y, return_inverse=True)
        y, n_classes = y.astype(float), values.size
    return files, rows, y, n_classes, name


def plink_encoded(args):
    """The checked PLINK file set of ``args.data``, its genotypes and phenotype as
    :class:`.estimators.encoding.EncodedData` (read a block of SNPs at a time by
    :func:`.readers.read_plink`: two bits a genotype, the bit planes the Relief family reads)
    and the phenotype's name."""
    from dataclasses import replace
    from .readers import read_plink
    files, rows, y, n_classes, name = plink_target(args)
    with progress(args, "reading") as callback:
        data = read_plink(args.data, args.pheno, args.class_name, callback=callback)
    return files, replace(data, y=y, n_classes=n_classes,
                          y_span=1.0 if n_classes else float(np.ptp(y))), name


def plink_data(args):
    """:class:`RankData` of PLINK genotypes (:func:`plink_encoded`), ranked by the engine
    estimators."""
    files, data, name = plink_encoded(args)

    def score(cls, kwargs, callback):
        return cls.engine()(**kwargs)(data, callback=callback)
    return RankData(os.path.basename(args.data), files.snps, data.n_instances, name,
                    "classification" if data.is_classification else "regression", score)


def dask_data(args, kind):
    """:class:`RankData` of data read by partitions on a Dask cluster
    (:func:`.dask.estimate`): PLINK genotypes by individuals, a Parquet file or folder by row
    groups, a CSV by blocks of lines."""
    if kind == "plink":
        from .readers import plink_dask
        files, rows, y, n_classes, name = plink_target(args)
        X = plink_dask(args.data, args.pheno, args.class_name)[0]
        return RankData(os.path.basename(args.data), files.snps, rows.size, name,
                        "classification" if n_classes else "regression",
                        dask_scorer(args, X, y, dict(discrete=True, n_values=3,
                                                     n_classes=n_classes)))
    check_readable(args.data)
    if args.class_name is None:
        raise CliError("with --dask, name the class column with --class NAME")
    try:
        if kind == "parquet":
            from .readers import parquet_dask
            frame = parquet_dask(args.data)
        else:
            if not args.data.lower().endswith((".csv", ".tsv")):
                raise CliError(f"with --dask, DATA is a Parquet file or folder, a CSV or a "
                               f"PLINK .bed file, not {args.data!r}")
            import dask.dataframe as dd
            frame = dd.read_csv(args.data, sep="\t" if args.data.lower().endswith(".tsv")
                                else ",")
        if args.class_name not in frame.columns:
            raise CliError(f"data {args.data!r} have no column {args.class_name!r} for the "
                           f"class; the columns are: {', '.join(map(repr, frame.columns))}")
        text = [c for c in frame.columns if str(frame[c].dtype) in ("object", "string")]
        if args.class_type == "discrete" and args.class_name not in text:
            text.append(args.class_name)
        from .readers import coded_frame
        frame, categories = coded_frame(frame, text)
    except ImportError as error:
        raise CliError(f"the Dask backend needs dask: pip install 'Orange3-Relief[dask]' "
                       f"({error})") from None
    except ValueError as error:
        text = str(error)
        raise CliError(text if text.startswith("cannot read")
                       else f"cannot read data {args.data!r}: {text}") from None
    n_classes = len(categories.get(args.class_name, ()))
    attributes = [c for c in frame.columns if c != args.class_name]
    keywords = dict(discrete=np.array([c in categories for c in attributes]),
                    n_classes=n_classes,
                    n_values=[len(categories.get(c, ())) for c in attributes])
    # an array of known partition sizes (counted here, before the cluster): the cluster then
    # computes one graph whose keys do not change between its passes
    table = frame[attributes + [args.class_name]].to_dask_array(lengths=True)
    return RankData(os.path.basename(args.data.rstrip("/" + os.sep)), attributes,
                    table.shape[0], args.class_name,
                    "classification" if n_classes else "regression",
                    dask_scorer(args, table[:, :-1], table[:, -1], keywords))


def dask_scorer(args, X, y, keywords):
    """``score(cls, kwargs, callback)``: the estimates of the engine estimator of ``cls`` by
    :func:`.dask.estimate` on the cluster ``args.dask`` names; Ctrl-C cancels the cluster's
    tasks (the backend cancels them as the interrupt leaves it)."""
    def score(cls, kwargs, callback):
        import logging
        from .dask import estimate
        logger = logging.getLogger("distributed")
        logger.setLevel(logging.ERROR if args.quiet else logging.WARNING)
        # the dataframe's column selection is fused differently into the passes' graphs; the
        # tasks compute the same partitions (the estimates equal one machine's)
        logging.getLogger("distributed.scheduler").addFilter(
            lambda record: "Detected different `run_spec`" not in record.getMessage())
        estimator = cls.engine()(**kwargs)
        client = None
        if args.dask != LOCAL:
            import distributed
            try:
                client = distributed.Client(args.dask, timeout=30)
            except (OSError, TimeoutError) as error:
                raise CliError(f"cannot connect to the Dask scheduler at {args.dask!r}: "
                               f"{error}") from None
        try:
            return estimate(estimator, X, y, client=client, callback=callback, **keywords)
        finally:
            if client is not None:
                client.close()
    return score


def ranking(names, scores, top=None):
    """[(rank, attribute, score)], best first (ties in the attributes' order), NaN last."""
    order = np.argsort(-scores, kind="stable")[:top]
    return [(rank, names[i], float(scores[i])) for rank, i in enumerate(order, start=1)]


def format_table(result):
    """A line saying what was estimated, then rank, attribute and score aligned."""
    settings = ", ".join(f"{k}={v!r}" for k, v in result["parameters"].items())
    rows = result["ranking"]
    width = max([len("attribute")] + [len(name) for _, name, _ in rows])
    lines = [f"{result['estimator']}({settings}) on {result['data']}: {result['instances']} "
             f"instances, {result['attributes']} attributes, class {result['class']!r} "
             f"({result['class_type']})",
             f"{'rank':>4}  {'attribute':<{width}}  {'score':>9}"]
    lines += [f"{rank:>4}  {name:<{width}}  {score:>9.5f}" for rank, name, score in rows]
    return "\n".join(lines) + "\n"


def format_csv(result):
    """``rank,attribute,score`` rows (scores in full precision, NaN as an empty field)."""
    from io import StringIO
    text = StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(["rank", "attribute", "score"])
    writer.writerows((rank, name, "" if np.isnan(score) else repr(score))
                     for rank, name, score in result["ranking"])
    return text.getvalue()


def format_json(result):
    """One JSON object: what was estimated and ``ranking``, a list of {rank, attribute,
    score} (NaN as null)."""
    document = dict(result, ranking=[
        {"rank": rank, "attribute": name, "score": None if np.isnan(score) else score}
        for rank, name, score in result["ranking"]])
    return json.dumps(document, indent=2, default=str) + "\n"


#: --format / --output extension -> formatter
FORMATS = {"table": format_table, "csv": format_csv, "json": format_json}


def file_format(path):
    """The format of an --output file, by its extension."""
    extension = os.path.splitext(path)[1].lower().lstrip(".")
    if extension not in ("csv", "json"):
        raise CliError(f"cannot tell the format of --output {path!r}: name a .csv or a .json "
                       "file")
    return extension


# ---------------------------------------------------------------------------------------------
# pairs

@command("pairs", "test the pairs of the best-ranked attributes for interaction")
def pairs_command(parser):
    add_data_argument(parser)
    parser.add_argument("--pheno", metavar="FILE",
                        help="PLINK data: a phenotype file, as for rank")
    parser.add_argument("-n", "--top", type=positive_int, default=20, metavar="N",
                        help="test the pairs of the N attributes the estimator ranks best "
                             "(default 20)")
    parser.add_argument("-a", "--attributes", metavar="NAME,...",
                        help="test the pairs of these attributes instead (no ranking)")
    parser.add_argument("-e", "--estimator", metavar="NAME", default="MultiSURF",
                        help="estimator that ranks the attributes (default MultiSURF; see "
                             "'orange-relief estimators')")
    parser.add_argument("-r", "--permutations", type=positive_int, metavar="R",
                        help="permutations of the class for the p-values (default: enough "
                             "for 20,000 permuted statistics, at most 100 with a ranking)")
    parser.add_argument("-s", "--seed", type=int_value, metavar="S",
                        help="random seed of the permutations")
    parser.add_argument("--pairs", type=positive_int, metavar="K",
                        help="print only the K best pairs")
    parser.add_argument("-o", "--output", metavar="FILE",
                        help="write the pairs to FILE: CSV (.csv) or JSON (.json), by its "
                             "extension; stdout then stays empty unless --format is given")
    parser.add_argument("-f", "--format", choices=PAIR_FORMATS,
                        help="what stdout shows: an aligned table (the default), CSV or JSON")
    return run_pairs


def pairs_data(args):
    """(name, EncodedData) of DATA for the engine: PLINK genotypes or an Orange table."""
    if data_kind(args.data) == "plink":
        _, data, _ = plink_encoded(args)
        return os.path.basename(args.data), data
    if args.pheno is not None:
        raise CliError("--pheno names the phenotype file of PLINK (.bed) data")
    from orangecontrib.relief.orange_data import encode_table
    table = load_table(args.data, args.class_name, args.class_type)
    note_integer_class(args, table)
    try:
        data, _ = encode_table(table)
    except ValueError as error:
        raise CliError(f"cannot read {args.data!r}: {error}") from None
    return table.name or args.data, data


def run_pairs(args, out):
    from .estimators.interactions import interacting_pairs
    output_format = file_format(args.output) if args.output else None
    name, data = pairs_data(args)
    attributes = None
    if args.attributes is not None:
        wanted = [a.strip() for a in args.attributes.split(",") if a.strip()]
        unknown = [a for a in wanted if a not in data.names]
        if unknown:
            raise CliError(f"no attribute {unknown[0]!r} in {args.data!r}")
        attributes = [data.names.index(a) for a in wanted]
    cls = find_scorer(args.estimator, scorer_classes())
    if "classification" not in cls.tasks:
        raise CliError(f"estimator {cls.__name__} does not rank for a discrete class")
    try:
        with progress(args, "pairs") as callback:
            result = interacting_pairs(data, attributes=attributes, top=args.top,
                                       estimator=cls.engine()(),
                                       n_permutations=args.permutations,
                                       random_state=args.seed, callback=callback)
    except ValueError as error:
        raise CliError(f"cannot test the pairs of {args.data!r}: {error}") from None
    names = data.names
    ranked = attributes is None and args.top < data.n_attributes
    document = {
        "data": name, "instances": data.n_instances, "attributes": data.n_attributes,
        "tested": [names[i] for i in result.attributes],
        "ranked_by": cls.__name__ if ranked else None,
        "permutations": result.n_permutations,
        "pairs": [{"rank": rank, "first": names[p.first], "second": names[p.second],
                   "statistic": p.statistic, "df": float(result.df[rank - 1]),
                   "p": p.pvalue, "q": p.qvalue}
                  for rank, p in enumerate(result, start=1)][:args.pairs]}
    if args.output:
        try:
            with open(args.output, "w", encoding="utf-8", newline="") as file:
                file.write(PAIR_FORMATS[output_format](document))
        except OSError as error:
            raise CliError(f"cannot write {args.output!r}: {error.strerror}") from None
        if not args.quiet:
            print(f"{PROGRAM}: wrote {len(document['pairs'])} pairs to {args.output}",
                  file=sys.stderr)
    if args.format or not args.output:
        out.write(PAIR_FORMATS[args.format or "table"](document))
    return 0


PAIR_COLUMNS = ("rank", "first", "second", "statistic", "df", "p", "q")


def format_pairs_table(document):
    """A line saying what was tested, then the pairs aligned, best first."""
    rows = document["pairs"]
    width = max([len("second")] + [len(r[k]) for r in rows for k in ("first", "second")])
    how = (f"the {len(document['tested'])} attributes {document['ranked_by']} ranks best"
           if document["ranked_by"] else f"{len(document['tested'])} attributes")
    lines = [f"Pairs of {how} in {document['data']}: {document['instances']} instances; "
             f"p-values from {document['permutations']} permutations of the class",
             f"{'rank':>4}  {'first':<{width}}  {'second':<{width}}  {'statistic':>10}  "
             f"{'df':>3}  {'p':>9}  {'q':>9}"]
    lines += [f"{r['rank']:>4}  {r['first']:<{width}}  {r['second']:<{width}}  "
              f"{r['statistic']:>10.4f}  {r['df']:>3.0f}  {r['p']:>9.3g}  {r['q']:>9.3g}"
              for r in rows]
    return "\n".join(lines) + "\n"


def format_pairs_csv(document):
    """``rank,first,second,statistic,df,p,q`` rows in full precision."""
    from io import StringIO
    text = StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(PAIR_COLUMNS)
    writer.writerows([r[k] if isinstance(r[k], (int, str)) else repr(r[k])
                      for k in PAIR_COLUMNS] for r in document["pairs"])
    return text.getvalue()


def format_pairs_json(document):
    """One JSON object: what was tested and ``pairs``, a list of {rank, first, second,
    statistic, df, p, q}."""
    return json.dumps(document, indent=2) + "\n"


#: --format / --output extension -> formatter of the pairs
PAIR_FORMATS = {"table": format_pairs_table, "csv": format_pairs_csv, "json": format_pairs_json}


@command("estimators", "list the estimators that 'rank --estimator' accepts")
def estimators_command(parser):
    return run_estimators


def run_estimators(args, out):
    from orangecontrib.relief.estimators.catalogue import ESTIMATORS
    from orangecontrib.relief.estimators.description import estimator_rows
    rows = estimator_rows(ESTIMATORS)
    width = max(len(row["class"]) for row in rows) + 2
    for row in rows:
        print(f"{row['class']:<{width}}{row['targets']}", file=out)
        print(f"{'':<{width}}parameters: {row['parameters'] or 'none'}", file=out)
        if row["advanced"]:
            print(f"{'':<{width}}advanced: {row['advanced']}", file=out)
        if row["capabilities"]:
            print(f"{'':<{width}}also: {row['capabilities']}", file=out)
    return 0


@command("compile", "compile the numeric kernels ahead of their first use (into the cache)")
def compile_command(parser):
    parser.add_argument("-j", "--jobs", type=positive_int, metavar="N",
                        help="processes compiling at once (default: one per core)")
    return run_compile


def run_compile(args, out):
    from .compilation import WORKLOADS, cache_dir, compile_ahead, ensure_cache
    ensure_cache()
    where = {None: "next to the installed package", "": "nowhere: no writable cache directory"}
    print(f"compiling the kernels of {len(WORKLOADS)} kinds of data into the cache "
          f"({where.get(cache_dir(), cache_dir())}) ...", file=out, flush=True)
    try:
        compile_ahead(jobs=args.jobs, callback=lambda name, seconds: print(
            f"  {name}: {WORKLOADS[name]} ({seconds:.0f} s)", file=out, flush=True))
    except RuntimeError as error:
        raise CliError(str(error)) from None
    return 0


# ---------------------------------------------------------------------------------------------
# tree (owned by the trees engineer)

@command("tree", "grow a CORE tree, print it and its cross-validated accuracy / relative error")
def tree_command(parser):
    add_data_argument(parser)
    parser.add_argument("-e", "--estimator", metavar="NAME",
                        help="split selection estimator (see 'orange-relief estimators'); "
                             "default: ReliefF for a discrete class, RReliefF for a numeric one")
    parser.add_argument("-p", "--param", type=key_value, action="append", default=[],
                        metavar="NAME=VALUE", help="an estimator parameter, e.g. -p k=20")
    parser.add_argument("--min-leaf", type=float, default=5, help="minimal leaf weight (5)")
    parser.add_argument("--min-majority", type=float, default=0.97,
                        help="stop at this majority class proportion (0.97)")
    parser.add_argument("--max-depth", type=positive_int, help="maximal depth (none)")
    parser.add_argument("--leaf-model", choices=("mean", "linear"), default="mean",
                        help="regression leaves (mean)")
    parser.add_argument("--pruning", choices=("m-estimate", "pessimistic", "none"),
                        default="m-estimate", help="post-pruning (m-estimate, m = 2)")
    parser.add_argument("--switch", action="store_true",
                        help="switch to Accuracy / MSE where ρ >= --switch-threshold (ICML'99)")
    parser.add_argument("--switch-threshold", type=float, default=0.8)
    parser.add_argument("--discretize", type=positive_int, metavar="BINS",
                        help="pre-discretise numeric attributes into BINS equal-width intervals")
    parser.add_argument("--folds", type=positive_int, default=10,
                        help="cross-validation folds (10)")
    parser.add_argument("-s", "--seed", type=int_value, default=0,
                        help="random seed of the folds (0)")
    return run_tree


def run_tree(args, out):
    from Orange.evaluation import CA, CrossValidation
    from Orange.regression import MeanLearner
    from orangecontrib.relief.estimators.encoding import power_of_two_scale
    from orangecontrib.relief.learners import (CoreTreeClassificationLearner,
                                               CoreTreeRegressionLearner)
    from orangecontrib.relief.orange_data import target_kind
    table = load_table(args.data, args.class_name, args.class_type)
    note_integer_class(args, table)
    task = target_kind(table.domain)
    # instances without a class value take no part in fitting, nor in cross-validation
    table = table[~np.isnan(np.asarray(table.Y, dtype=float).reshape(len(table), -1)[:, 0])]
    if 1 < args.folds and 0 < len(table) < args.folds:
        raise CliError(f"{args.folds}-fold cross-validation needs at least {args.folds} "
                       f"instances with a class value, {args.data!r} has {len(table)} "
                       f"(--folds 1 grows the tree without cross-validation)")
    classes = scorer_classes()
    cls = find_scorer(args.estimator or DEFAULT_ESTIMATORS[task], classes)
    if task not in cls.tasks:
        raise CliError(f"estimator {cls.__name__} does not suit the "
                       f"{'discrete' if task == 'classification' else 'numeric'} class of "
                       f"{args.data!r}")
    estimator = cls(**scorer_parameters(cls, {(f"--param {k}", k): v for k, v in args.param}))
    learner_class = (CoreTreeClassificationLearner if task == "classification"
                     else CoreTreeRegressionLearner)
    learner = learner_class(
        estimator=estimator, min_leaf=args.min_leaf, min_majority=args.min_majority,
        max_depth=args.max_depth, leaf_model=args.leaf_model,
        pruning=None if args.pruning == "none" else args.pruning, switch=args.switch,
        switch_threshold=args.switch_threshold, discretize=args.discretize)
    try:
        with progress(args, "CORE tree") as callback:
            share = 1 / (args.folds + 1) if args.folds > 1 else 1
            model = learner(table, progress_callback=lambda f, *_: callback(share * f))
            if args.folds > 1:
                results = CrossValidation(k=args.folds, random_state=args.seed)(
                    table, [learner, MeanLearner()] if task == "regression" else [learner],
                    callback=lambda f: callback(share + (1 - share) * f))
    except ValueError as error:
        raise CliError(f"cannot grow a tree on {args.data!r}: {error}") from None
    print(f"CORE tree on {table.name or args.data} ({len(table)} instances), split selection "
          f"{cls.__name__}{' with the switch' if args.switch else ''}: {model.node_count()} "
          f"nodes, {model.leaf_count()} leaves, depth {model.depth()}", file=out)
    print(f"root: {model.root.value.tolist()}", file=out)
    print(model.print_tree(), end="", file=out)
    if args.folds > 1:
        if task == "classification":
            print(f"{args.folds}-fold cross-validated accuracy: {CA(results)[0]:.4f}", file=out)
        else:
            # in units of a power of two (exact), so that squares of huge targets stay finite
            scale = power_of_two_scale(np.abs(results.actual).max())
            tree_se, mean_se = ((results.predicted * scale - results.actual * scale) ** 2
                                ).sum(axis=1)
            relative = (f"{tree_se / mean_se:.4f}" if mean_se > 0
                        else "undefined (the mean predicts the target without error)")
            print(f"{args.folds}-fold cross-validated relative squared error (eq. 19): "
                  f"{relative}", file=out)
    return 0


# ---------------------------------------------------------------------------------------------

def build_parser():
    parser = argparse.ArgumentParser(
        prog=PROGRAM, description="Non-myopic attribute estimation (the Relief family) on "
                                  "Orange data from the command line.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("-q", "--quiet", action="store_true",
                        help="no progress bar and no notices on stderr, only errors")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, (help, declare) in COMMANDS.items():
        sub = subparsers.add_parser(name, help=help, description=help, parents=[common])
        sub.set_defaults(run=declare(sub))
    return parser


def main(argv=None, out=None):
    """Run the command line ``argv`` (default ``sys.argv[1:]``); return the exit status:
    0 on success, 2 for a usage error (message on stderr)."""
    out = out or sys.stdout
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exit_:  # argparse reports usage errors (status 2) and --help (0)
        return exit_.code
    try:
        return args.run(args, out)
    except CliError as error:
        print(f"{PROGRAM} {args.command}: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{PROGRAM} {args.command}: cancelled", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
