"""The ``orange-relief`` console command (also ``python -m orangecontrib.relief.cli``).

Subcommands:

* ``rank [DATA]``: estimate the attributes of a data set with one of the scorers of
  :mod:`orangecontrib.relief.scoring` and print them ranked;
* ``estimators``: list the estimator names ``rank --estimator`` accepts.

DATA is a file Orange reads (.tab, .csv, .xlsx, ...) or the name of a data set Orange ships
(``iris``, ``zoo``, ``housing``, ...); without DATA, Orange's ``heart_disease`` (numeric and
discrete attributes with missing values, two classes) is ranked.

Bad arguments, unreadable files, data without a class and an estimator that does not suit the
target print a one-line message to stderr and exit with status 2.

Adding a subcommand is one function: decorate a function that declares its arguments on the
given ``argparse`` parser and returns the function that runs it::

    @command("tree", "build a CORE tree and print it")
    def tree_command(parser):
        add_data_argument(parser)
        parser.add_argument("--min-instances", type=int, default=5)
        return run_tree          # run_tree(args, out) -> exit status; raise CliError for misuse

Helpers shared by subcommands: :func:`add_data_argument`, :func:`load_table`,
:func:`positive_int`, :class:`CliError`.
"""
import argparse
import ast
import inspect
import sys

import numpy as np

__all__ = ["main", "command", "CliError", "load_table", "add_data_argument", "positive_int"]

PROGRAM = "orange-relief"
#: the data set ranked when DATA is omitted (shipped with Orange)
DEFAULT_DATA = "heart_disease"
#: the estimator used when --estimator is omitted, by target type
DEFAULT_ESTIMATORS = {"classification": "ReliefF", "regression": "RReliefF"}

#: subcommand name -> (help, function that declares its arguments and returns its runner)
COMMANDS = {}


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
    parser.add_argument(
        "data", nargs="?", default=DEFAULT_DATA, metavar="DATA",
        help="a data file Orange reads (.tab, .csv, .xlsx, ...) or the name of a data set "
             f"shipped with Orange (iris, zoo, housing, ...); default: {DEFAULT_DATA}")


def load_table(spec):
    """The Orange table named by ``spec`` (a path or a data set shipped with Orange), with a
    class variable; :class:`CliError` when it cannot be read or has no class."""
    from Orange.data import Table
    try:
        table = Table(spec)
    except Exception as error:  # Orange's readers raise many kinds of errors
        raise CliError(f"cannot read data {spec!r}: {error}") from None
    if table.domain.class_var is None:
        raise CliError(f"data {spec!r} have no class (target) variable: ranking needs one; "
                       "mark one column as the class (e.g. the 'class' flag in a .tab header)")
    if not table.domain.attributes:
        raise CliError(f"data {spec!r} have no attributes to rank")
    return table


# ---------------------------------------------------------------------------------------------
# rank

def scorer_classes():
    """Estimator name -> scorer class of :data:`orangecontrib.relief.scoring.SCORERS`."""
    from orangecontrib.relief import scoring
    return {cls.__name__: cls for cls in scoring.SCORERS}


def find_scorer(name, classes):
    """The scorer class called ``name`` (class name or its ``name``, any case)."""
    for cls_name, cls in classes.items():
        if name.lower() in (cls_name.lower(), str(getattr(cls, "name", "")).lower()):
            return cls
    raise CliError(f"unknown estimator {name!r}; choose one of: {', '.join(classes)}")


def scorer_parameters(cls, options):
    """Keyword arguments for ``cls`` from the given options (name -> value, None = not
    given); :class:`CliError` for an option ``cls`` does not take."""
    signature = inspect.signature(cls).parameters
    # the Relief family names the keywords its **diff_keywords takes
    named = getattr(cls, "diff_keywords", None)
    accepted = [name for name, p in signature.items() if p.kind is not p.VAR_KEYWORD]
    accepted += list(named or ())
    takes_any = named is None and any(p.kind is p.VAR_KEYWORD for p in signature.values())
    kwargs = {}
    for (option, parameter), value in options.items():
        if value is None:
            continue
        if parameter not in accepted and not takes_any:
            raise CliError(f"estimator {cls.__name__} does not take {option} "
                           f"(its parameters: {', '.join(accepted) or 'none'})")
        kwargs[parameter] = value
    return kwargs


@command("rank", "estimate the attributes' quality and print them ranked")
def rank_command(parser):
    add_data_argument(parser)
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
    parser.add_argument("-n", "--top", type=positive_int, metavar="N",
                        help="print only the N best attributes")
    return run_rank


def run_rank(args, out):
    from orangecontrib.relief.orange_data import target_kind
    table = load_table(args.data)
    classes = scorer_classes()
    task = target_kind(table.domain)
    cls = find_scorer(args.estimator or DEFAULT_ESTIMATORS[task], classes)
    tasks = getattr(cls, "tasks", None)
    if tasks is not None and task not in tasks:
        target = "discrete" if task == "classification" else "numeric"
        suitable = [name for name, c in classes.items() if task in getattr(c, "tasks", {task})]
        raise CliError(f"estimator {cls.__name__} does not suit the {target} class "
                       f"{table.domain.class_var.name!r} of {args.data!r}; estimators for "
                       f"{task}: {', '.join(suitable)}")
    options = {("--k", "k"): args.k, ("--iterations", "iterations"): args.iterations,
               ("--seed", "random_state"): args.seed}
    options.update({(f"--param {name}", name): value for name, value in args.param})
    kwargs = scorer_parameters(cls, options)
    try:
        scores = np.asarray(cls(**kwargs)(table), dtype=float)
    except ValueError as error:
        raise CliError(f"{cls.__name__} cannot rank {args.data!r}: {error}") from None
    settings = ", ".join(f"{k}={v!r}" for k, v in kwargs.items())
    print(f"{cls.__name__}({settings}) on {table.name or args.data}: {len(table)} instances, "
          f"{len(table.domain.attributes)} attributes, class "
          f"{table.domain.class_var.name!r} ({'discrete' if task == 'classification' else 'numeric'})",
          file=out)
    print(format_ranking([a.name for a in table.domain.attributes], scores, args.top), file=out)
    return 0


def format_ranking(names, scores, top=None):
    """Aligned table (rank, attribute, score), best first, NaN scores last."""
    order = np.argsort(-scores, kind="stable")[:top]
    width = max([len("attribute")] + [len(names[i]) for i in order])
    lines = [f"{'rank':>4}  {'attribute':<{width}}  {'score':>9}"]
    lines += [f"{r:>4}  {names[i]:<{width}}  {scores[i]:>9.5f}"
              for r, i in enumerate(order, start=1)]
    return "\n".join(lines)


@command("estimators", "list the estimators that 'rank --estimator' accepts")
def estimators_command(parser):
    return run_estimators


def run_estimators(args, out):
    for name, cls in scorer_classes().items():
        tasks = sorted(getattr(cls, "tasks", ()))
        print(f"{name:<16} {' and '.join(tasks)}", file=out)
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
    from Orange.evaluation import CA, MSE, CrossValidation
    from Orange.regression import MeanLearner
    from orangecontrib.relief.learners import (CoreTreeClassificationLearner,
                                               CoreTreeRegressionLearner)
    from orangecontrib.relief.orange_data import target_kind
    table = load_table(args.data)
    task = target_kind(table.domain)
    classes = scorer_classes()
    cls = find_scorer(args.estimator or DEFAULT_ESTIMATORS[task], classes)
    if task not in getattr(cls, "tasks", {task}):
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
        model = learner(table)
        if args.folds > 1:
            results = CrossValidation(k=args.folds, random_state=args.seed)(
                table, [learner, MeanLearner()] if task == "regression" else [learner])
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
            tree_mse, mean_mse = MSE(results)
            print(f"{args.folds}-fold cross-validated relative squared error (eq. 19): "
                  f"{tree_mse / mean_mse:.4f}", file=out)
    return 0


# ---------------------------------------------------------------------------------------------

def build_parser():
    parser = argparse.ArgumentParser(
        prog=PROGRAM, description="Non-myopic attribute estimation (the Relief family) on "
                                  "Orange data from the command line.")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, (help, declare) in COMMANDS.items():
        sub = subparsers.add_parser(name, help=help, description=help)
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


if __name__ == "__main__":
    sys.exit(main())
