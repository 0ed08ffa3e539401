"""The estimators' descriptions: each declares its parameters once (matching its constructor),
validation derives from the declaration with messages that name the parameter and its range, and
every surface (Orange scorer, scikit-learn selector, command line, documentation table) derives
from the catalogue and the descriptions, a new estimator included."""
import importlib.util
import re
import inspect
from pathlib import Path

import numpy as np
import pytest

from orangecontrib.relief import cli, scoring, sklearn as selectors
from orangecontrib.relief.estimators import encode
from orangecontrib.relief.estimators.base import Estimator
from orangecontrib.relief.estimators.catalogue import ESTIMATORS
from orangecontrib.relief.estimators.description import (
    N_INSTANCES, Param, estimator_rows, markdown_table, parameter_defaults)
from orangecontrib.relief.estimators.relieff import Relief, ReliefF
from orangecontrib.relief.estimators.rrelieff import RReliefF
from orangecontrib.relief.estimators.turf import TuRF
from orangecontrib.relief.estimators.unified_pi import UnifiedPi

DOC = Path(__file__).resolve().parent.parent / "doc"
KINDS = {"int", "float", "choice", "bool", "floats", "seed", "estimator", "estimators"}


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_the_declaration_matches_the_constructor(cls):
    signature = inspect.signature(cls.__init__).parameters
    keywords = [name for name, p in signature.items()
                if name not in ("self", "diff") and p.kind is not p.VAR_KEYWORD]
    declared = [param.name for param in cls.parameters]
    assert declared[:len(keywords)] == keywords
    assert declared[len(keywords):] == list(cls.diff_keywords)   # the Relief family's **
    for param in cls.parameters:
        assert param.kind in KINDS and param.label and param.tooltip, param.name
        assert not param.label.endswith(":"), param.name
        if param.name in signature:
            assert signature[param.name].default == param.default, param.name
        # the declared default is allowed (None where it stands for the class's own)
        default = parameter_defaults(cls)[param.name]
        assert default is None and param.none or param.accepts(default), param.name
    cls().check_parameters()
    assert cls.paper and cls.tasks <= {"classification", "regression"}


@pytest.mark.parametrize("make, message", [
    (lambda: ReliefF(k=0), "k must be None or an integer >= 1, got 0"),
    (lambda: ReliefF(k=2.5), "k must be None or an integer >= 1, got 2.5"),
    (lambda: ReliefF(k=True), "k must be None or an integer >= 1, got True"),
    (lambda: ReliefF(weighting="cubic"),
     "weighting must be None or one of 'equal', 'exp-rank', '1/d', '1/d2', got 'cubic'"),
    (lambda: RReliefF(sigma=0), r"sigma must be a number > 0, got 0"),
    (lambda: ReliefF(misses="some"), "misses must be 'per-class' or 'pooled', got 'some'"),
    (lambda: Relief(missing="E"), "missing must be one of 'B', 'C', 'D', got 'E'"),
    (lambda: Relief(numeric_diff="ramp", t_equal=0.2, t_different=0.1),
     "ramp thresholds need 0 <= t_equal < t_different <= 1"),
    (lambda: TuRF(remove=1.0), r"remove must be a number in \(0, 1\), got 1.0"),
    (lambda: TuRF(estimator="ReliefF"), "estimator must be None or an attribute estimator"),
    (lambda: UnifiedPi(theta=(1, 2, 0, 0)), r"theta must be 4 numbers in \[0, 1\]"),
    (lambda: UnifiedPi(f="threshold", alpha=0.0), "alpha must be a finite number > 0"),
    (lambda: UnifiedPi(F="entropy"), "F must be one of 'default', 'infgain', 'gini' or a "
                                     r"callable F\(R, Rm\), got 'entropy'"),
    (lambda: UnifiedPi(random_state="seed"),
     "random_state must be None, an int or a numpy Generator, got 'seed'"),
])
def test_validation_names_the_parameter_and_its_range(make, message):
    estimator = make()            # stored unchanged: nothing is checked before it runs
    with pytest.raises(ValueError, match=message):
        estimator.check_parameters()
    data = encode(np.arange(20.0).reshape(10, 2) % 3, np.arange(10) % 2, n_classes=2)
    with pytest.raises(ValueError, match=message):
        estimator(data)


def test_bounds_that_depend_on_the_data():
    data = encode(np.arange(20.0).reshape(10, 2) % 3, np.arange(10) % 2, n_classes=2)
    ReliefF(iterations=1000).check_parameters()          # no data: any count is allowed
    with pytest.raises(ValueError, match=r"iterations must be None or an integer in 1\.\.10 "
                                         r"\(the number of instances\), got 11"):
        ReliefF(iterations=11)(data)
    assert np.isfinite(ReliefF(iterations=10, random_state=0)(data)).all()
    param = Param("m", "int", None, "m", low=1, high=N_INSTANCES)
    assert param.accepts(5, n_instances=5) and not param.accepts(6, n_instances=5)


class Toy(Estimator):
    """The absolute correlation of each attribute with the target, scaled by ``power``."""
    name = "Toy"
    display_name = "Toy measure"
    paper = "a test of the description"
    tasks = frozenset({"regression"})
    parameters = (Param("power", "float", 1.0, "Power", low=0, low_open=True,
                        tooltip="the exponent of the correlation"),)

    def __init__(self, power=1.0):
        self.power = power

    def estimate(self, context, columns=None):
        data = context if columns is None else columns
        X, y = data.X, data.y
        r = [abs(np.corrcoef(X[:, j], y)[0, 1]) for j in range(X.shape[1])]
        return np.asarray(r) ** self.power


def test_a_new_estimator_appears_on_every_surface():
    rng = np.random.default_rng(0)
    X = rng.random((50, 3))
    y = 3 * X[:, 1] + 0.1 * rng.random(50)
    # Orange's scorer: regression only (Rank leaves it out on a categorical class)
    scorer_class = scoring.scorer_class(Toy)
    from Orange.data import ContinuousVariable, Domain, Table
    assert scorer_class.class_type is ContinuousVariable
    table = Table.from_numpy(Domain([ContinuousVariable(n) for n in "abc"],
                                    ContinuousVariable("y")), X, y)
    scorer = scorer_class(power=2.0)
    assert scorer.name == "Toy measure power=2.0"
    assert np.argmax(scorer(table)) == 1
    # scikit-learn: the declared parameter and those of the selection
    selector = selectors.selector_class(Toy)(n_features_to_select=1)
    assert selector.get_params()["power"] == 1.0
    assert list(np.flatnonzero(selector.fit(X, y).get_support())) == [1]
    # the command line's --param check and the listing
    assert cli.scorer_parameters(Toy, {("--param power", "power"): 3.0}) == {"power": 3.0}
    with pytest.raises(cli.CliError, match="power must be a number > 0, got -1"):
        cli.scorer_parameters(Toy, {("--param power", "power"): -1})
    with pytest.raises(cli.CliError, match="does not take --param k"):
        cli.scorer_parameters(Toy, {("--param k", "k"): 3})
    row, = estimator_rows([Toy])
    assert row == {"class": "Toy", "name": "Toy measure", "short": "Toy measure",
                   "targets": "numeric",
                   "parameters": "power=1.0", "advanced": "", "capabilities": "",
                   "paper": "a test of the description"}
    assert "| `Toy` | Toy measure | Toy measure | numeric | power=1.0 | — | — | a test of the " \
        "description |" in markdown_table([Toy])


def test_every_catalogued_estimator_is_a_scorer_and_a_selector_and_listed(capsys):
    names = [cls.__name__ for cls in ESTIMATORS]
    assert [cls.__name__ for cls in scoring.SCORERS] == names
    assert [cls.__name__ for cls in selectors.SELECTORS] == names
    assert [cls.engine for cls in selectors.SELECTORS] == list(ESTIMATORS)
    assert cli.main(["estimators"]) == 0
    listed = [line.split()[0] for line in capsys.readouterr().out.splitlines()
              if not line.startswith(" ")]
    assert listed == names


def test_the_documentation_table_is_current():
    spec = importlib.util.spec_from_file_location("build_estimators",
                                                  DOC / "build_estimators.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert (DOC / "estimators.md").read_text(encoding="utf-8") == module.page()
    assert "(estimators.md)" in (DOC / "index.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("argv, message", [
    (["rank", "iris", "--param", "sigma=-1"], "sigma must be a number > 0, got -1"),
    (["rank", "iris", "-e", "UnifiedPi", "--param", "theta=(1, 2)"],
     r"theta must be 4 numbers in \[0, 1\], got \(1, 2\)"),
    (["rank", "iris", "-e", "TuRF", "--param", "estimator=3"],
     "estimator must be None or an attribute estimator, got 3"),
    (["tree", "iris", "--param", "missing='E'"], "missing must be one of 'B', 'C', 'D'"),
])
def test_values_the_api_refuses_the_command_line_refuses(argv, message, capsys):
    assert cli.main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert re.search(message, err), err


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_an_estimator_is_used_where_it_suits_and_else_its_counterpart(cls):
    from orangecontrib.relief.estimators.catalogue import for_task
    for task in ("classification", "regression"):
        used = for_task(cls, task)
        assert task in used.tasks and used in ESTIMATORS
        if task in cls.tasks:
            assert used is cls


def test_the_declared_counterparts():
    from orangecontrib.relief.estimators.catalogue import for_task
    from orangecontrib.relief.estimators.contextual_merit import ContextualMerit
    from orangecontrib.relief.estimators.impurity import MSE, Gini, InfGain
    from orangecontrib.relief.estimators.surf import MultiSURF
    assert for_task(ReliefF, "regression") is RReliefF
    assert for_task(Relief, "regression") is RReliefF
    assert for_task(RReliefF, "classification") is ReliefF
    assert for_task(InfGain, "regression") is MSE
    assert for_task(MSE, "classification") is Gini
    assert for_task(MultiSURF, "regression") is MultiSURF
    assert for_task(ContextualMerit, "regression") is RReliefF     # the first for the task
    assert for_task(scoring.ReliefF, "regression") is RReliefF      # (a scorer class)
