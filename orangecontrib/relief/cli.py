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
``--iterations M``, reading the data by partitions (:mod:`orangecontrib.relief.dask`).
``--class NAME`` names the class column of a plain file (one without Orange's header flags);
``--class-type`` reads it as discrete or numeric where the rule is not what is meant (e.g.
integer class labels; :mod:`orangecontrib.relief.reading` reads every file, by one rule). A
PLINK phenotype follows PLINK's rules (1 = control, 2 = case, 0 and -9 missing; ``--1``: 0 =
control, 1 = case). Every output says the instances used and those left out (a missing class).

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

Helpers shared by subcommands: :func:`add_data_argument`, :func:`read_input`,
:func:`progress`, :func:`positive_int`, :class:`CliError`.
"""
import argparse
import ast
import csv
import importlib.util
import json
import os
import sys
from contextlib import contextmanager

from . import __version__
from .compilation import cache_dir, compile_notices

__all__ = ["main", "command", "CliError", "read_input", "add_data_argument", "progress",
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
             "folder, a PLINK .bed file (rank and pairs), or the name of a data set shipped "
             "with "
             f"Orange (iris, zoo, housing, ...); default: {DEFAULT_DATA}")
    parser.add_argument(
        "-c", "--class", dest="class_name", metavar="NAME",
        help="the class (target) column, for files without Orange's header flags (a plain "
             "CSV); default: the class the file marks")
    parser.add_argument(
        "--class-type", choices=("discrete", "numeric"),
        help="read the class as discrete (classification) or numeric (regression) instead of "
             "as guessed from its values (integer labels read as numeric)")


def add_covariate_options(parser):
    """PLINK's phenotype options (--pheno, --1) and the covariates' (--covariates for the
    columns of a table; --covar and --covar-name for PLINK data)."""
    parser.add_argument("--pheno", metavar="FILE",
                        help="PLINK data: a phenotype file (FID IID and phenotype columns, "
                             "optionally a header 'FID IID name ...'); --class names its "
                             "column (default: the first); without it, the .fam file's")
    parser.add_argument("--1", dest="coding", action="store_const", const="01", default="12",
                        help="PLINK data: read the phenotype as 0 = control, 1 = case (PLINK's "
                             "--1) instead of 1 = control, 2 = case with 0 missing")
    parser.add_argument("--covariates", metavar="NAME,...",
                        help="columns of the data to adjust for (NPDR, TrendTest): they are not "
                             "ranked; instances with a missing value in them are left out")
    parser.add_argument("--covar", metavar="FILE",
                        help="PLINK data: a covariate file whose columns NPDR and TrendTest adjust "
                             "for: FID IID and a column per covariate, a line per individual, "
                             "headerless (PLINK 1.9) or under a header 'FID IID name ...' or "
                             "'#FID IID name ...' ('#IID name ...' without FID); as PLINK, "
                             "individuals with NA or -9, or without a line, are left out")
    parser.add_argument("--impute", choices=("mode",),
                        help="PLINK data: fill missing genotype calls with each SNP's most "
                             "frequent genotype, so that the genotypes stay packed two bits a "
                             "call (with missing calls they take four bytes a call and the "
                             "estimators a slower path); not with --dask")
    parser.add_argument("--covar-name", metavar="NAME,...",
                        help="PLINK data: the columns of --covar to use, names or ranges "
                             "first-last (e.g. age,PC1-PC4); default: all (headerless files "
                             "name them COV1, COV2, ...)")


def covariate_read_options(args):
    """:class:`.reading.ReadOptions` of the class, phenotype and covariate options; a
    :class:`CliError` for covariate options that do not fit the data's kind (checked before
    reading)."""
    from .reading import ReadOptions, data_kind
    plink = data_kind(args.data) == "plink"
    if args.covar is not None and not plink:
        raise CliError("--covar names the covariate file of PLINK (.bed) data; name the "
                       "columns of other data with --covariates")
    if args.covariates is not None and plink:
        raise CliError("PLINK (.bed) data take their covariates from a file: --covar FILE")
    if args.covar_name is not None and args.covar is None:
        raise CliError("--covar-name chooses columns of a covariate file: give it with "
                       "--covar FILE")
    covariates = args.covar if plink else None if args.covariates is None else \
        [name.strip() for name in args.covariates.split(",") if name.strip()]
    if args.impute is not None and not plink:
        raise CliError("--impute fills the missing calls of PLINK (.bed) genotypes")
    return ReadOptions(args.class_name, args.class_type, args.pheno, args.coding, covariates,
                       args.covar_name, args.impute)


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


def read_input(spec, options, partitions=False, callback=None):
    """:func:`.reading.read_data` of ``spec`` (a :class:`.reading.DataRead`: the data, the
    instances read, used and left out); :class:`CliError` for what cannot be read."""
    from .reading import read_data
    try:
        return read_data(spec, options, partitions, callback)
    except (ImportError, ValueError) as error:
        text = str(error)
        raise CliError(text if text.startswith("cannot read") or spec in text
                       else f"cannot read data {spec!r}: {text}") from None


def note_dropped(args, data):
    """A notice on stderr of the instances left out (a missing class or phenotype), and of the
    missing calls of PLINK genotypes: what they cost, or that they were imputed."""
    if args.quiet:
        return
    if data.dropped_text():
        print(f"{PROGRAM}: {data.dropped_text()}", file=sys.stderr)
    calls = data.missing_calls
    if calls and getattr(args, "impute", None):
        print(f"{PROGRAM}: {calls} missing genotype calls filled with their SNP's most "
              "frequent genotype (--impute mode)", file=sys.stderr)
    elif calls:
        share = 100 * calls / (data.used * len(data.attributes))
        print(f"{PROGRAM}: {calls} genotype calls are missing ({share:.2g} %): the genotypes "
              "are held as four bytes a call instead of two bits, and the estimators take "
              "their general path, many times slower (on 1,000 x 5,000 SNPs with 0.5 % missing: "
              "ReliefF 9 to over 100 times, NPDR over 60 times); --impute mode fills them with "
              "each SNP's most frequent genotype and keeps the packed path", file=sys.stderr)


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
    refuses. A text given to a parameter that takes an estimator (or several) is read by
    :func:`estimator_from_text`."""
    kinds = {param.name: param.kind for param in cls.parameters}
    kwargs = {}
    for (option, parameter), value in options.items():
        if value is None:
            continue
        if parameter not in kinds:
            raise CliError(f"estimator {cls.__name__} does not take {option} "
                           f"(its parameters: {', '.join(kinds) or 'none'})")
        if kinds[parameter] in ("estimator", "estimators") and isinstance(value, str):
            value = estimator_from_text(value, many=kinds[parameter] == "estimators")
        kwargs[parameter] = value
    try:
        cls(**kwargs).check_parameters()
    except ValueError as error:
        raise CliError(f"estimator {cls.__name__}: {error}") from None
    return kwargs


def estimator_from_text(text, many=False):
    """The estimator written in ``text`` as NAME or NAME(param=value, ...) — a name of
    'orange-relief estimators', values Python literals, words (``preset=skrebate``) or
    estimators written the same way, e.g. ``ReliefF(k=10, preset=skrebate)`` or
    ``VLS(estimator=MultiSURF, subsets=20)``; with ``many``, several separated by commas (a
    tuple). :class:`CliError` for anything else."""
    usage = (f"expected an estimator NAME or NAME(param=value, ...){', ...' if many else ''}, "
             f"got {text!r}")
    try:
        node = ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        raise CliError(usage) from None
    nodes = node.elts if many and isinstance(node, ast.Tuple) else [node]
    built = tuple(_estimator_node(item, usage) for item in nodes)
    return built if many else built[0]


def _estimator_node(node, usage):
    """The estimator of one parsed NAME or NAME(param=value, ...) (see estimator_from_text)."""
    if isinstance(node, ast.Name):
        name, keywords = node.id, []
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.args \
            and all(keyword.arg for keyword in node.keywords):
        name, keywords = node.func.id, node.keywords
    else:
        raise CliError(usage)
    cls = find_scorer(name, scorer_classes())
    options = {}
    for keyword in keywords:
        value = keyword.value
        if isinstance(value, ast.Name) and value.id not in ("True", "False", "None"):
            value = value.id                                # a word, or an estimator's name
        elif isinstance(value, (ast.Call, ast.Tuple)):
            value = ast.unparse(value)                      # an estimator written in full
        else:
            try:
                value = ast.literal_eval(value)
            except ValueError:
                raise CliError(usage) from None
        options[(f"{keyword.arg} of {cls.__name__}", keyword.arg)] = value
    return cls.engine()(**scorer_parameters(cls, options))


@command("rank", "estimate the attributes' quality and print them ranked")
def rank_command(parser):
    add_data_argument(parser)
    add_covariate_options(parser)
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
                             "-p sigma=20 -p missing=C (repeatable); a wrapper's base "
                             "estimator by name, with its own parameters in brackets: -p "
                             "'estimator=ReliefF(k=10, preset=skrebate)'")
    parser.add_argument("--dask", nargs="?", const=LOCAL, metavar="ADDRESS",
                        help="rank on a Dask cluster: the scheduler at ADDRESS (e.g. "
                             "tcp://host:8786), or without ADDRESS a local cluster; reads the "
                             "data by partitions; ReliefF, RReliefF and the SURF family, "
                             "with --iterations M")
    parser.add_argument("-n", "--top", type=positive_int, metavar="N",
                        help="print only the N best attributes")
    parser.add_argument("--calibration", type=calibration_count, default=None, metavar="R",
                        help="NPDR: the permutations of the class that calibrate its p-values "
                             "(default 30; 0 = the regression's own p-values, which are too "
                             "small: its neighbour pairs are not independent)")
    add_output_options(parser, "the ranking", FORMATS)
    return run_rank


def calibration_count(text):
    """--calibration: 0 or an integer >= 3."""
    value = int_value(text)
    if value != 0 and value < 3:
        raise argparse.ArgumentTypeError(f"must be 0 or an integer >= 3, got {text!r}")
    return value


def add_output_options(parser, what, formats):
    """--output and --format of a command whose result is ``what``, written in ``formats``."""
    parser.add_argument("-o", "--output", metavar="FILE",
                        help=f"write {what} to FILE: CSV (.csv) or JSON (.json), by its "
                             "extension; stdout then stays empty unless --format is given")
    parser.add_argument("-f", "--format", choices=formats,
                        help="what stdout shows: an aligned table (the default), CSV or JSON")


#: ``--dask`` without an address: a local cluster
LOCAL = "local"

def run_rank(args, out):
    output_format = file_format(args.output) if args.output else None
    if args.dask and args.iterations is None:
        raise CliError("--dask needs --iterations M, the number of sampled instances (the "
                       "cluster gathers them)")
    read_options = covariate_read_options(args)
    if args.dask and (args.covar or args.covariates):
        raise CliError("--dask does not adjust for covariates (--covar, --covariates): rank "
                       "in memory")
    if args.dask and args.impute:
        raise CliError("--impute fills missing calls of genotypes read into memory, not of "
                       "--dask partitions: fill them with PLINK first, or rank in memory")
    classes = scorer_classes()
    options = {("--k", "k"): args.k, ("--iterations", "iterations"): args.iterations,
               ("--seed", "random_state"): args.seed}
    options.update({(f"--param {name}", name): value for name, value in args.param})
    check_estimator_options(args, classes, options)     # all that does not need the data
    with progress(args, "reading") as callback:
        data = read_input(args.data, read_options, partitions=bool(args.dask),
                          callback=callback)
    if data.kind != "plink" and not args.dask and data.covariates is None:   # a Table
        note_integer_class(args, data.data)
    note_dropped(args, data)
    task = data.task
    cls = find_scorer(args.estimator or DEFAULT_ESTIMATORS[task], classes)
    if task not in cls.tasks:
        target = "discrete" if task == "classification" else "numeric"
        suitable = [name for name, c in classes.items() if task in c.tasks]
        raise CliError(f"estimator {cls.__name__} does not suit the {target} class "
                       f"{data.class_name!r} of {args.data!r}; estimators for "
                       f"{task}: {', '.join(suitable)}")
    if args.iterations is not None and args.iterations > data.used:
        # m instances sampled without replacement (Kononenko 1994; Robnik-Šikonja &
        # Kononenko 2003, Fig. 3): at most every instance once
        options[("--iterations", "iterations")] = data.used
        if not args.quiet:
            print(f"{PROGRAM}: --iterations {args.iterations} is more than the {data.used} "
                  f"instances: each instance is sampled once (m = {data.used})",
                  file=sys.stderr)
    kwargs = scorer_parameters(cls, options)
    own = own_test(cls) if not args.dask else None
    if args.calibration is not None and own != "npdr":
        raise CliError("--calibration calibrates NPDR's p-values; the estimator is "
                       f"{cls.__name__}")
    tested = None
    try:
        with progress(args, cls.__name__) as callback:
            if own is None:
                scores = np.asarray(score(args, data, cls, kwargs, callback), dtype=float)
            else:
                tested = own_significance(args, data, cls, kwargs, own, callback)
                scores = np.asarray(tested.scores, dtype=float)
    except ValueError as error:
        raise CliError(f"{cls.__name__} cannot rank {args.data!r}: {error}") from None
    result = {
        "estimator": cls.__name__, "parameters": kwargs, "data": data.name,
        "instances": data.used, "instances_read": data.read,
        "left_out": {reason: count for reason, count in data.dropped.items() if count},
        "attributes": len(data.attributes), "class": data.class_name,
        "class_type": "discrete" if task == "classification" else "numeric",
        "ranking": ranking(list(data.attributes), scores, args.top, tested)}
    result["loci"] = loci(data, [row[1] for row in result["ranking"]])
    if tested is not None:
        result["pvalues"] = pvalue_notice(cls, own, tested)
        if not args.quiet:
            print(f"{PROGRAM}: {result['pvalues']['score']}; p: {result['pvalues']['p']}; "
                  f"q: {result['pvalues']['q']}", file=sys.stderr)
    return write_result(args, out, result, FORMATS, output_format,
                        f"{len(result['ranking'])} scores")


def check_estimator_options(args, classes, options):
    """:class:`CliError` before any data are read for what does not depend on them: an
    unknown ``--estimator``, one without a Dask path under ``--dask``, and options (``options``,
    as :func:`scorer_parameters` takes them) the estimator does not take or values it
    refuses; without ``--estimator``, options that neither default estimator takes."""
    if args.estimator is not None:
        candidates = [find_scorer(args.estimator, classes)]
    else:
        candidates = [find_scorer(name, classes) for name in DEFAULT_ESTIMATORS.values()]
    if args.dask:
        from .dask import supports
        if not any(supports(cls.engine()) for cls in candidates):
            raise CliError(f"estimator {candidates[0].__name__} has no Dask path: --dask "
                           "computes ReliefF, RReliefF and the SURF family (SURF, SURFstar, "
                           "MultiSURF, MultiSURFstar)")
    sized = {key: value for key, value in options.items() if key[1] != "iterations"}
    errors = []
    for cls in candidates:
        try:
            scorer_parameters(cls, sized)
        except CliError as error:
            errors.append(error)
    if len(errors) == len(candidates):
        raise errors[0]


def own_test(cls):
    """The method of the estimator's own test whose p-values ``rank`` prints beside its
    scores ("npdr", "trend"), or None."""
    from .estimators.significance import OWN_TESTS
    return next((m for m in cls.engine().significance_tests if m in OWN_TESTS), None)


def own_significance(args, data, cls, kwargs, method, callback):
    """The scores with their p-values and q-values by the estimator's own test ``method``
    (:func:`.estimators.significance.significance`; NPDR's calibrated by ``--calibration``
    permutations of the class drawn with ``--seed``)."""
    from .estimators.significance import STIR_CALIBRATION, significance
    calibration = STIR_CALIBRATION if args.calibration is None else args.calibration
    if data.kind == "plink" or data.covariates is not None:     # encoded data
        return significance(cls.engine()(**kwargs), data.data, method,
                            random_state=args.seed, callback=callback,
                            calibration=calibration)
    encoded, _, _ = cls(**kwargs).encode(data.data)
    return significance(cls(**kwargs), encoded, method, random_state=args.seed,
                        callback=callback, calibration=calibration)


def pvalue_notice(cls, method, tested):
    """What the score, p and q columns of an own test's ranking are, in words (the notice on
    stderr and the JSON's ``pvalues``)."""
    if method == "npdr":
        score = ("score: NPDR's regression z (not a p-value; its neighbour pairs are not "
                 "independent, so its own normal p-values are too small)")
        p = (f"one-sided, z referred to its null distribution from {tested.n_permutations} "
             "permutations of the class (calibrated)" if tested.n_permutations else
             "one-sided normal p of the regression's z, not calibrated (too small)")
    else:
        score = ("score: the statistic squared, chi-squared with 1 degree of freedom "
                 "(t squared for a numeric class)")
        p = f"two-sided, {tested.test}, with the covariates"
    return {"method": method, "score": score, "p": p,
            "q": "Benjamini-Hochberg over the attributes ranked (FDR, an average over data "
                 "sets)",
            "n_permutations": int(tested.n_permutations)}


def write_result(args, out, result, formats, output_format, what):
    """``result`` written by ``formats`` (format name -> function) to ``--output`` in its
    ``output_format`` (a notice of ``what`` was written on stderr), and to ``out`` in
    ``--format`` (the table when there is no ``--output``); exit status 0."""
    if args.output:
        try:
            with open(args.output, "w", encoding="utf-8", newline="") as file:
                file.write(formats[output_format](result))
        except OSError as error:
            raise CliError(f"cannot write {args.output!r}: {error.strerror}") from None
        if not args.quiet:
            print(f"{PROGRAM}: wrote {what} to {args.output}", file=sys.stderr)
    if args.format or not args.output:
        out.write(formats[args.format or "table"](result))
    return 0


def score(args, data, cls, kwargs, callback):
    """The estimates of the scorer class ``cls`` with ``kwargs`` on ``data`` (a
    :class:`.reading.DataRead`): an Orange table by the scorer, PLINK genotypes by its engine
    estimator, partitions on the Dask cluster of ``--dask``."""
    from .reading import Partitions
    if isinstance(data.data, Partitions):
        return dask_score(args, data.data, cls.engine()(**kwargs), callback)
    if data.kind == "plink" or data.covariates is not None:     # encoded data
        return cls.engine()(**kwargs)(data.data, callback=callback)
    return cls(**kwargs)(data.data, callback=callback)


def dask_score(args, partitions, estimator, callback):
    """The estimates of the engine ``estimator`` by :func:`.dask.estimate` on the cluster
    ``args.dask`` names; Ctrl-C cancels the cluster's tasks (the backend cancels them as the
    interrupt leaves it); the cluster's failures (workers dying, paused, lost) are a
    :class:`CliError`."""
    import logging
    from .dask import estimate
    logger = logging.getLogger("distributed")
    logger.setLevel(logging.ERROR if args.quiet else logging.WARNING)
    # the dataframe's column selection is fused differently into the passes' graphs; the
    # tasks compute the same partitions (the estimates equal one machine's)
    logging.getLogger("distributed.scheduler").addFilter(
        lambda record: "Detected different `run_spec`" not in record.getMessage())
    import distributed
    cluster = local_cluster(distributed) if args.dask == LOCAL else None
    try:
        client = distributed.Client(cluster or args.dask, timeout=30)
    except (OSError, TimeoutError) as error:
        raise CliError(f"cannot connect to the Dask scheduler at {args.dask!r}: "
                       f"{error}") from None
    try:
        return estimate(estimator, partitions.X, partitions.y, client=client,
                        callback=callback, **partitions.keywords)
    except RuntimeError as error:
        raise CliError(str(error)) from None
    except KeyboardInterrupt:          # the cluster's shutdown is no news after "cancelled"
        logger.setLevel(logging.CRITICAL)
        raise
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def local_cluster(distributed, **options):
    """A ``LocalCluster(**options)`` (default: the machine's cores) whose worker processes
    ignore Ctrl-C (it reaches every process of the terminal's group): the command cancels
    their tasks and closes them, without each printing its own traceback."""
    import signal
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)     # inherited by the workers
    try:
        return distributed.LocalCluster(**options)
    finally:
        signal.signal(signal.SIGINT, previous)


#: the .bim columns the results of PLINK data carry (those users join results on)
LOCUS = ("CHR", "SNP", "BP", "A1")


def loci(data, names):
    """For PLINK data (a :class:`.reading.DataRead` with ``loci``), the ``.bim`` columns
    (:data:`LOCUS`) of the attributes ``names``: {name: {"CHR": ..., "SNP": ..., "BP": ...,
    "A1": ...}}; None for other data."""
    if data.loci is None:
        return None
    index = {name: i for i, name in enumerate(data.attributes)}
    return {name: data.loci[index[name]] for name in names}


def locus_fields(result, name, suffix=""):
    """The .bim columns of the attribute ``name`` in ``result`` (each key with ``suffix``), {}
    for data other than PLINK's."""
    found = (result.get("loci") or {}).get(name)
    return {f"{key}{suffix}": found[key] for key in LOCUS} if found else {}


def ranking(names, scores, top=None, tested=None):
    """[(rank, attribute, score)], best first (ties in the attributes' order), NaN last; with
    ``tested`` (a Significance) [(rank, attribute, score, p, q)]."""
    order = np.argsort(-scores, kind="stable")[:top]
    if tested is None:
        return [(rank, names[i], float(scores[i])) for rank, i in enumerate(order, start=1)]
    return [(rank, names[i], float(scores[i]), float(tested.pvalues[i]),
             float(tested.qvalues[i])) for rank, i in enumerate(order, start=1)]


def format_table(result):
    """A line saying what was estimated, then rank, attribute and score aligned."""
    settings = ", ".join(f"{k}={v!r}" for k, v in result["parameters"].items())
    rows = result["ranking"]
    width = max([len("attribute")] + [len(row[1]) for row in rows])
    from .reading import reasons_text
    left_out = reasons_text(result["left_out"])
    used = (f"{result['instances']} instances" if not left_out else
            f"{result['instances']} of {result['instances_read']} instances (left out: "
            f"{left_out})")
    lines = [f"{result['estimator']}({settings}) on {result['data']}: {used}, "
             f"{result['attributes']} attributes, class {result['class']!r} "
             f"({result['class_type']})"]
    tested = "pvalues" in result
    if result.get("loci"):          # PLINK data: CHR SNP BP A1 as PLINK's results show them
        fields = [locus_fields(result, row[1]) for row in rows]
        widths = {key: max([len(key)] + [len(str(f[key])) for f in fields]) for key in LOCUS}
        head = "  ".join(f"{key:<{widths[key]}}" for key in LOCUS)
        names = ["  ".join(f"{str(f[key]):<{widths[key]}}" for key in LOCUS) for f in fields]
    else:
        head = f"{'attribute':<{width}}"
        names = [f"{row[1]:<{width}}" for row in rows]
    lines.append(f"{'rank':>4}  {head}  {'score':>9}"
                 + (f"  {'p':>9}  {'q':>9}" if tested else ""))
    lines += [f"{row[0]:>4}  {name}  {row[2]:>9.5f}"
              + (f"  {row[3]:>9.3g}  {row[4]:>9.3g}" if tested else "")
              for row, name in zip(rows, names)]
    return "\n".join(lines) + "\n"


def format_csv(result):
    """``rank,attribute,score`` rows (scores in full precision, NaN as an empty field), with
    ``p,q`` columns for an estimator's own test; for PLINK data ``rank,CHR,SNP,BP,A1,score``
    (and ``p,q``)."""
    from io import StringIO
    text = StringIO()
    writer = csv.writer(text, lineterminator="\n")
    tested = "pvalues" in result
    plink = bool(result.get("loci"))
    writer.writerow(["rank", *(LOCUS if plink else ["attribute"]), "score"]
                    + (["p", "q"] if tested else []))
    writer.writerows((rank, *(locus_fields(result, name).values() if plink else [name]),
                      *("" if np.isnan(v) else repr(v) for v in values))
                     for rank, name, *values in result["ranking"])
    return text.getvalue()


def format_json(result):
    """One JSON object: what was estimated (``instances`` used of ``instances_read``, those
    ``left_out`` by reason) and ``ranking``, a list of {rank, attribute, score} (NaN as
    null), with ``p`` and ``q`` for an estimator's own test, whose ``pvalues`` says how they
    were computed; for PLINK data with CHR, SNP, BP and A1."""
    keys = ("score", "p", "q")
    document = dict(result, ranking=[
        {"rank": rank, "attribute": name, **locus_fields(result, name),
         **{key: None if np.isnan(v) else v for key, v in zip(keys, values)}}
        for rank, name, *values in result["ranking"]])
    document.pop("loci", None)
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
    add_covariate_options(parser)
    parser.add_argument("-m", "--method", choices=("auto", "scan", "filter"), default="auto",
                        help="which pairs: 'scan' every pair, 'filter' the pairs of the "
                             "attributes an estimator ranks best, 'auto' (default) the scan "
                             "where it takes about a minute or less, else the filter")
    parser.add_argument("-n", "--top", type=positive_int, metavar="N",
                        help="filter: test the pairs of the N attributes the estimator ranks "
                             "best (default 50)")
    parser.add_argument("-a", "--attributes", metavar="NAME,...",
                        help="test the pairs of these attributes instead (no ranking)")
    parser.add_argument("-e", "--estimator", metavar="NAME",
                        help="filter: the estimator that ranks the attributes (default two "
                             "TuRF rounds around MultiSURF, each removing half the attributes; "
                             "see 'orange-relief estimators')")
    parser.add_argument("-r", "--permutations", type=positive_int, metavar="R",
                        help="permutations of the class for the p-values (default: enough "
                             "for 20,000 permuted statistics, at most 10 with a ranking)")
    parser.add_argument("-s", "--seed", type=int_value, metavar="S",
                        help="random seed of the permutations")
    parser.add_argument("--pairs", type=positive_int, metavar="K",
                        help="print only the K best pairs")
    add_output_options(parser, "the pairs", PAIR_FORMATS)
    return run_pairs


def pairs_data(args):
    """(EncodedData, :class:`.reading.DataRead`) of DATA for the engine
    (:func:`.reading.read_data`): PLINK genotypes as read, an Orange table encoded."""
    options = covariate_read_options(args)
    with progress(args, "reading") as callback:
        data = read_input(args.data, options, callback=callback)
    note_dropped(args, data)
    if data.kind == "plink" or data.covariates is not None:       # encoded
        return data.data, data
    note_integer_class(args, data.data)
    from orangecontrib.relief.orange_data import encode_table
    try:
        encoded, _ = encode_table(data.data)
    except ValueError as error:
        raise CliError(f"cannot read {args.data!r}: {error}") from None
    return encoded, data


def run_pairs(args, out):
    from .estimators.interactions import interacting_pairs
    output_format = file_format(args.output) if args.output else None
    estimator = None
    if args.estimator is not None:                              # checked before reading
        cls = find_scorer(args.estimator, scorer_classes())
        if "classification" not in cls.tasks:
            raise CliError(f"estimator {cls.__name__} does not rank for a discrete class")
        estimator = cls.engine()()
    data, read = pairs_data(args)
    attributes = None
    if args.attributes is not None:
        wanted = [a.strip() for a in args.attributes.split(",") if a.strip()]
        unknown = [a for a in wanted if a not in data.names]
        if unknown:
            raise CliError(f"no attribute {unknown[0]!r} in {args.data!r}")
        attributes = [data.names.index(a) for a in wanted]
    try:
        with progress(args, "pairs") as callback:
            result = interacting_pairs(data, attributes=attributes, top=args.top,
                                       estimator=estimator, n_permutations=args.permutations,
                                       method=args.method, random_state=args.seed,
                                       callback=callback)
    except ValueError as error:
        raise CliError(f"cannot test the pairs of {args.data!r}: {error}") from None
    names = data.names
    tested = [names[i] for i in result.attributes]
    found = {"loci": loci(read, tested)}
    document = {
        "data": read.name, "instances": data.n_instances, "instances_read": read.read,
        "left_out": {reason: count for reason, count in read.dropped.items() if count},
        "attributes": data.n_attributes, "method": result.method, "tested": tested,
        "ranked_by": describe_filter(result.estimator) if result.estimator else None,
        "permutations": result.n_permutations, "pairs_tested": int(result.n_tested),
        "plink": read.loci is not None,
        "pairs": [{"rank": rank, "first": names[p.first], "second": names[p.second],
                   "statistic": p.statistic, "df": float(result.df[rank - 1]),
                   "p": p.pvalue, "q": p.qvalue,
                   **{key: value for key, value in locus_fields(found, names[p.first],
                                                                "_1").items()
                      if not key.startswith("SNP")},
                   **{key: value for key, value in locus_fields(found, names[p.second],
                                                                "_2").items()
                      if not key.startswith("SNP")}}
                  for rank, p in enumerate(result, start=1)][:args.pairs]}
    return write_result(args, out, document, PAIR_FORMATS, output_format,
                        f"{len(document['pairs'])} pairs")


PAIR_COLUMNS = ("rank", "first", "second", "statistic", "df", "p", "q")


def describe_filter(estimator):
    """The filter's estimator in words: its name, and for TuRF its base estimator and rounds."""
    from .estimators.turf import TuRF
    if isinstance(estimator, TuRF):
        rounds = round(1 / estimator.remove) if estimator.rounds is None else estimator.rounds
        return (f"TuRF around {estimator.estimator_.name} ({rounds} round"
                f"{'s' if rounds != 1 else ''} removing {estimator.remove:.0%})")
    return estimator.name


def format_pairs_table(document):
    """A line saying what was tested and how it was chosen, then the pairs aligned, best
    first."""
    rows = document["pairs"]
    width = max([len("second")] + [len(r[k]) for r in rows for k in ("first", "second")])
    tested = len(document["tested"])
    how = {"scan": f"all {tested} attributes (exhaustive scan)",
           "filter": f"the {tested} attributes {document['ranked_by']} ranks best (filter)",
           "given": f"{tested} attributes"}[document["method"]]
    how_p = (f"{document['pairs_tested']:,} pairs tested, p-values of the chi-square test, "
             f"q-values over all pairs" if document["permutations"] == 0 else
             f"p-values from {document['permutations']} permutations of the class")
    lines = [f"Pairs of {how} in {document['data']}: {document['instances']} instances; "
             f"{how_p}",
             f"{'rank':>4}  {'first':<{width}}  {'second':<{width}}  {'statistic':>10}  "
             f"{'df':>3}  {'p':>9}  {'q':>9}"]
    lines += [f"{r['rank']:>4}  {r['first']:<{width}}  {r['second']:<{width}}  "
              f"{r['statistic']:>10.4f}  {r['df']:>3.0f}  {r['p']:>9.3g}  {r['q']:>9.3g}"
              for r in rows]
    extra = pair_locus_columns(document)
    if extra:                       # PLINK data: each SNP's .bim columns after the test's
        widths = [max([len(key)] + [len(str(r[key])) for r in rows]) for key in extra]
        lines[1] += "".join(f"  {key:<{w}}" for key, w in zip(extra, widths))
        lines[2:] = [(line + "".join(f"  {str(r[key]):<{w}}" for key, w in zip(extra, widths))
                      ).rstrip() for line, r in zip(lines[2:], rows)]
    return "\n".join(lines) + "\n"


def pair_locus_columns(document):
    """The .bim columns of the pairs of PLINK data (CHR_1, BP_1, A1_1 of the first SNP, then
    the second's), [] for other data."""
    return [f"{key}_{n}" for n in (1, 2) for key in LOCUS if key != "SNP"] \
        if document.get("plink") else []


def format_pairs_csv(document):
    """``rank,first,second,statistic,df,p,q`` rows in full precision (for PLINK data then
    ``CHR_1,BP_1,A1_1,CHR_2,BP_2,A1_2``)."""
    from io import StringIO
    text = StringIO()
    writer = csv.writer(text, lineterminator="\n")
    columns = PAIR_COLUMNS + tuple(pair_locus_columns(document))
    writer.writerow(columns)
    writer.writerows([r[k] if isinstance(r[k], (int, str)) else repr(r[k])
                      for k in columns] for r in document["pairs"])
    return text.getvalue()


def format_pairs_json(document):
    """One JSON object: what was tested and ``pairs``, a list of {rank, first, second,
    statistic, df, p, q} (for PLINK data with CHR_1, BP_1, A1_1, CHR_2, BP_2, A1_2)."""
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
    from .compilation import cache_dir, ensure_cache
    from .workloads import WORKLOADS, compile_ahead
    ensure_cache()
    where = {None: "next to the installed package", "": "nowhere: no writable cache directory"}
    print(f"compiling the kernels of {len(WORKLOADS)} kinds of data into the cache "
          f"({where.get(cache_dir(), cache_dir())}) ...", file=out, flush=True)
    try:
        compile_ahead(jobs=args.jobs, callback=lambda name, seconds: print(
            f"  {name}: {WORKLOADS[name][0]} ({seconds:.0f} s)", file=out, flush=True))
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
    from .reading import ReadOptions, data_kind
    if data_kind(args.data) == "plink":
        raise CliError(f"PLINK data {args.data!r} are read by 'orange-relief rank' only")
    data = read_input(args.data, ReadOptions(args.class_name, args.class_type))
    table = data.data
    note_integer_class(args, table)
    note_dropped(args, data)
    task = data.task
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

class Parser(argparse.ArgumentParser):
    """argparse's parser whose usage errors are one line on stderr (``--help`` shows the
    usage)."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def build_parser():
    parser = Parser(
        prog=PROGRAM, description="Non-myopic attribute estimation (the Relief family) on "
                                  "Orange data from the command line.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    common = Parser(add_help=False)
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
