"""The parameters several estimators share, declared once (:class:`.description.Param`): the
Relief family's neighbours and sampling, the seed, and the options of the diff function
(:class:`.neighbourhood.diffs.DiffOptions`), with the constraints between them.

An estimator's own ``parameters`` tuple picks these and adds its own; :data:`DIFF_KEYWORDS`
maps the diff keywords to the fields of ``DiffOptions``.
"""
from types import SimpleNamespace

from .description import N_INSTANCES, Param

__all__ = ["K", "ITERATIONS", "RANDOM_STATE", "WEIGHTING", "SIGMA", "PRESET", "DIFF_PARAMETERS",
           "DIFF_KEYWORDS", "PAIRWISE_DIFF_PARAMETERS", "ramp_rule", "check_diff_options",
           "sampled", "equals"]


def equals(name, *allowed):
    """``applies``: the parameter has an effect when ``name``'s value is one of ``allowed`` (or
    the estimator has no parameter ``name``)."""
    return lambda values: name not in values or values[name] in allowed


def sampled(values):
    """``applies`` of a seed: it has an effect when instances are sampled (``iterations`` or
    ``sample`` not None)."""
    sizes = [values[name] for name in ("iterations", "sample") if name in values]
    return not sizes or any(size is not None for size in sizes)


K = Param(
    "k", "int", None, "Nearest neighbours k", low=1, maximum=10000,
    none="the estimator's default",
    tooltip="ReliefF: the k nearest hits and the k nearest misses (of each other class) whose "
            "diffs update the estimates for every sampled instance R; RReliefF: its k nearest "
            "instances (Robnik-Šikonja & Kononenko 1999). A larger k gives steadier but less "
            "local estimates.")
ITERATIONS = Param(
    "iterations", "int", None, "Sampled instances", low=1, high=N_INSTANCES,
    none="all instances",
    tooltip="m, the number of instances R sampled at random whose neighbours update the "
            "estimates; 'all instances' visits every instance once, in order (deterministic).")
RANDOM_STATE = Param(
    "random_state", "seed", None, "Random seed", low=0, maximum=2 ** 31 - 1, none="none",
    applies=sampled,
    tooltip="Seed of the random sample of instances: the same seed repeats a run exactly; "
            "'none' draws a different sample every time. Used only when instances are sampled.")
WEIGHTING = Param(
    "weighting", "choice", None, "Neighbour weights", none="the estimator's default",
    choices=(("equal", "equal"), ("exp-rank", "falling with rank"), ("1/d", "1 / distance"),
             ("1/d2", "1 / distance²")),
    tooltip="Influence of each of the k neighbours: equal, decreasing exponentially with its "
            "rank, exp(-(rank/σ)²) (Robnik-Šikonja & Kononenko 1999, eq. 14), or inversely "
            "proportional to its distance (1/d, 1/d²).")
SIGMA = Param(
    "sigma", "float", 20.0, "Weight fall-off σ", low=0, low_open=True, maximum=1000.0, step=1.0,
    decimals=1, applies=equals("weighting", "exp-rank"),
    tooltip="σ of the rank weighting exp(-(rank/σ)²): the rank at which a neighbour's "
            "influence has dropped to 1/e (used only with the weights falling with rank).")
PRESET = Param(
    "preset", "choice", "papers", "Definitions", advanced=True,
    choices=(("papers", "the papers'"), ("corelearn", "CORElearn's"),
             ("skrebate", "scikit-rebate's")),
    tooltip="'the papers'': the definitions of the papers; 'CORElearn's': every choice as "
            "CORElearn, the R package of the ReliefF authors, makes it (the ramp diff, "
            "Laplace-corrected probabilities of missing values, its neighbour order and k); "
            "'scikit-rebate's': every choice as scikit-rebate 0.8.4 makes it (its distance, "
            "thresholds, missing values, several classes, numeric target, ties and k = 100).")

NUMERIC_DIFF = Param(
    "numeric_diff", "choice", "linear", "Numeric difference", advanced=True,
    choices=(("linear", "linear"), ("ramp", "ramp")),
    tooltip="diff of two numeric values: |x − y| / (max − min) (Robnik-Šikonja & Kononenko "
            "2003, eq. 2), or a ramp: 0 up to t_equal, 1 from t_different, linear in between "
            "(CORElearn).")
T_EQUAL = Param(
    "t_equal", "float", 0.04, "Ramp: equal up to", low=0.0, high=1.0, step=0.01,
    advanced=True, applies=equals("numeric_diff", "ramp"),
    tooltip="Ramp diff: differences up to this fraction of the attribute's range count as "
            "equal values (diff 0).")
T_DIFFERENT = Param(
    "t_different", "float", 0.1, "Ramp: different from", low=0.0, high=1.0, step=0.01,
    advanced=True, applies=equals("numeric_diff", "ramp"),
    tooltip="Ramp diff: differences from this fraction of the attribute's range on count as "
            "different values (diff 1); linear in between.")
MISSING = Param(
    "missing", "choice", "D", "Missing values", advanced=True,
    choices=(("B", "known values' share"), ("C", "left out"), ("D", "class-conditional")),
    tooltip="diff with a missing value (Kononenko 1994): RELIEF-B 1 − 1/#values; RELIEF-C the "
            "same in distances, but such diffs are left out of the estimate; RELIEF-D "
            "1 − P(value | class), from the class-conditional probabilities.")
LAPLACE = Param(
    "laplace", "bool", False, "Laplace-corrected probabilities", advanced=True,
    applies=equals("missing", "D"),
    tooltip="RELIEF-D: estimate P(value | class) as (n_vc + 1) / (n_c + #values) instead of the "
            "relative frequency (CORElearn).")
BOTH_MISSING = Param(
    "both_missing", "choice", "both", "Both values missing", advanced=True,
    choices=(("both", "classes of both"), ("current", "class of the current")),
    applies=equals("missing", "D"),
    tooltip="RELIEF-D, both values missing: diff = 1 − Σ_v P(v | class of one) "
            "P(v | class of the other), or with the class of the current instance R for both "
            "(CORElearn).")
NUMERIC_BINS = Param(
    "numeric_bins", "int", 5, "Intervals for missing numbers", low=2, maximum=100, advanced=True,
    tooltip="Equal-width intervals of a numeric attribute in which the probabilities of its "
            "values are counted for the diffs of missing values.")
DISTANCE = Param(
    "distance", "choice", "manhattan", "Distance", advanced=True,
    choices=(("manhattan", "Manhattan"), ("euclidean", "Euclidean")),
    tooltip="Distance that finds the nearest neighbours: the sum of the attributes' diffs "
            "(Manhattan, as in the ReliefF papers) or the sum of their squares (Euclidean, "
            "Kira & Rendell 1992).")
SKIP_ZERO_DISTANCE = Param(
    "skip_zero_distance", "bool", False, "Skip neighbours at distance 0", advanced=True,
    tooltip="Never take an instance at distance 0 from R (a duplicate) as its neighbour "
            "(CORElearn).")

#: the options of the diff function, as keyword arguments of the Relief family
DIFF_PARAMETERS = (NUMERIC_DIFF, T_EQUAL, T_DIFFERENT, MISSING, LAPLACE, BOTH_MISSING,
                   NUMERIC_BINS, DISTANCE, SKIP_ZERO_DISTANCE)
#: the estimators' keyword arguments for the fields of :class:`.DiffOptions`
DIFF_KEYWORDS = {param.name: "numeric" if param.name == "numeric_diff" else param.name
                 for param in DIFF_PARAMETERS}
#: the diff options that Contextual Merit and the Π framework take
PAIRWISE_DIFF_PARAMETERS = (NUMERIC_DIFF, T_EQUAL, T_DIFFERENT, MISSING)


def ramp_rule(values):
    """The ramp's thresholds need 0 <= t_equal < t_different <= 1 (a message, or None);
    ``values`` reads the parameters by name (an estimator or :class:`.DiffOptions`)."""
    if values.numeric_diff == "ramp" and not 0 <= values.t_equal < values.t_different <= 1:
        return ("ramp thresholds need 0 <= t_equal < t_different <= 1, got "
                f"t_equal={values.t_equal}, t_different={values.t_different}")
    return None


def check_diff_options(options):
    """Validate a :class:`.DiffOptions` by the declarations of its keyword arguments."""
    values = SimpleNamespace(**{key: getattr(options, field)
                                for key, field in DIFF_KEYWORDS.items()})
    for param in DIFF_PARAMETERS:
        param.check(getattr(values, param.name))
    message = ramp_rule(values)
    if message:
        raise ValueError(message)
