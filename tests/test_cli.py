"""Tests of the ``orange-relief`` command line (orangecontrib.relief.cli)."""
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from Orange.data import ContinuousVariable, Domain, Table

from orangecontrib.relief import datasets
from orangecontrib.relief.cli import main


@pytest.fixture(scope="module")
def parity_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("data") / "parity.tab"
    datasets.parity(order=2, n_irrelevant=10, n_instances=200).save(str(path))
    return str(path)


@pytest.fixture(scope="module")
def fraction_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("data") / "fraction.tab"
    datasets.fraction(n_informative=2, n_irrelevant=4, n_instances=300).save(str(path))
    return str(path)


def run(args, capsys):
    status = main(args)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def ranking(out):
    """(attribute, score) rows of the printed table, in printed order."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.split()[:2] == ["rank", "attribute"])
    rows = [line.split() for line in lines[start + 1:] if line.strip()]
    assert [int(r[0]) for r in rows] == list(range(1, len(rows) + 1))
    return [(" ".join(r[1:-1]), float(r[-1])) for r in rows]


def test_rank_puts_parity_informative_attributes_first(parity_file, capsys):
    status, out, err = run(["rank", parity_file], capsys)
    assert status == 0, err
    rows = ranking(out)
    assert len(rows) == 12
    assert {name for name, _ in rows[:2]} == {"I1", "I2"}
    scores = [score for _, score in rows]
    assert scores == sorted(scores, reverse=True)
    assert "ReliefF" in out.splitlines()[0]


def test_printed_scores_are_the_scorers_scores(parity_file, capsys):
    from orangecontrib.relief import scoring
    table = Table(parity_file)
    expected = dict(zip([a.name for a in table.domain.attributes],
                        scoring.ReliefF(k=5)(table)))
    status, out, _ = run(["rank", parity_file, "--k", "5"], capsys)
    assert status == 0
    for name, score in ranking(out):
        assert score == pytest.approx(expected[name], abs=5e-6)


def test_top_limits_the_printed_rows(parity_file, capsys):
    status, out, _ = run(["rank", parity_file, "--top", "3"], capsys)
    assert status == 0
    assert len(ranking(out)) == 3


def test_sampled_iterations_repeat_with_the_same_seed(parity_file, capsys):
    outs = [run(["rank", parity_file, "-m", "50", "--seed", str(seed)], capsys)[1]
            for seed in (3, 3, 4)]
    assert outs[0] == outs[1]
    assert ranking(outs[0]) != ranking(outs[2])


def test_numeric_class_uses_rrelieff_and_ranks_fraction_informative_first(fraction_file,
                                                                           capsys):
    status, out, err = run(["rank", fraction_file], capsys)
    assert status == 0, err
    assert out.splitlines()[0].startswith("RReliefF")
    assert {name for name, _ in ranking(out)[:2]} == {"I1", "I2"}


def test_default_data_is_a_data_set_shipped_with_orange(capsys):
    status, out, err = run(["rank", "--top", "5"], capsys)
    assert status == 0, err
    assert "heart_disease" in out.splitlines()[0]
    assert len(ranking(out)) == 5


def test_named_orange_data_set_is_read(capsys):
    status, out, _ = run(["rank", "iris"], capsys)
    assert status == 0
    assert {name for name, _ in ranking(out)} == {"sepal length", "sepal width",
                                                  "petal length", "petal width"}


def test_estimators_lists_relieff_and_rrelieff(capsys):
    status, out, _ = run(["estimators"], capsys)
    assert status == 0
    names = [line.split()[0] for line in out.splitlines()]
    assert "ReliefF" in names and "RReliefF" in names


@pytest.fixture(scope="module")
def no_class_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("data") / "noclass.tab"
    domain = Domain([ContinuousVariable("a"), ContinuousVariable("b")])
    Table.from_numpy(domain, np.arange(10.0).reshape(5, 2)).save(str(path))
    return str(path)


@pytest.mark.parametrize("args, message", [
    (["rank", "/nonexistent/data.tab"], "cannot read data"),
    (["rank", "no-such-orange-data-set"], "cannot read data"),
    (["rank", "{parity}", "--estimator", "NoSuchEstimator"], "unknown estimator"),
    (["rank", "{parity}", "--estimator", "RReliefF"], "does not suit"),
    (["rank", "{fraction}", "--estimator", "ReliefF"], "does not suit"),
    (["rank", "{parity}", "--k", "0"], "positive integer"),
    (["rank", "{parity}", "--k", "ten"], "positive integer"),
    (["rank", "{parity}", "--top", "-1"], "positive integer"),
    (["rank", "{parity}", "--param", "no_such_parameter=1"], "does not take"),
    (["rank", "{parity}", "--param", "novalue"], "NAME=VALUE"),
    (["rank", "{parity}", "--param", "weighting='no-such-weighting'"], "weighting"),
    (["rank", "{noclass}"], "no class"),
    (["rank", "{parity}", "--no-such-option"], "unrecognized arguments"),
    (["no-such-command"], "invalid choice"),
    ([], "required"),
])
def test_bad_arguments_exit_2_with_a_message(args, message, parity_file, fraction_file,
                                             no_class_file, capsys):
    files = {"parity": parity_file, "fraction": fraction_file, "noclass": no_class_file}
    status, out, err = run([a.format(**files) for a in args], capsys)
    assert status == 2
    assert message in err
    assert "Traceback" not in err
    assert out == ""


def test_console_script_runs_in_a_subprocess(parity_file):
    script = Path(sys.executable).parent / "orange-relief"
    result = subprocess.run([str(script), "rank", parity_file, "--top", "2"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert {name for name, _ in ranking(result.stdout)} == {"I1", "I2"}


def test_module_entry_point_reports_a_missing_file_without_traceback(tmp_path):
    result = subprocess.run([sys.executable, "-m", "orangecontrib.relief.cli", "rank",
                             str(tmp_path / "missing.tab")],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2
    assert "cannot read data" in result.stderr
    assert "Traceback" not in result.stderr
