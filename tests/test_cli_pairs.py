"""``orange-relief pairs``: the scripting API's pairs from a table and from PLINK genotypes,
the formats and files, and bad input refused in one line."""
import csv
import io
import json

import numpy as np
import pytest
from Orange.data import DiscreteVariable, Domain, Table

from orangecontrib.relief.cli import main
from orangecontrib.relief.estimators import encode, interacting_pairs

from bad_inputs import TASKS, bad_inputs, unreadable_files


def xor_genotypes(n=240, a=8, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.binomial(2, 0.5, size=(n, a))
    y = ((X[:, 2] == 1) ^ (X[:, 5] == 1)).astype(int)
    flip = rng.random(n) < 0.1
    y[flip] = 1 - y[flip]
    return X, y


@pytest.fixture(scope="module")
def xor_file(tmp_path_factory):
    X, y = xor_genotypes()
    domain = Domain([DiscreteVariable(f"snp{i}", values=("0", "1", "2"))
                     for i in range(X.shape[1])], DiscreteVariable("case", values=("0", "1")))
    path = tmp_path_factory.mktemp("data") / "xor.tab"
    Table.from_numpy(domain, X.astype(float), y.astype(float)).save(str(path))
    return str(path), X, y


@pytest.fixture(scope="module")
def xor_bed(tmp_path_factory):
    from bed_reader import to_bed
    X, y = xor_genotypes(seed=1)
    path = tmp_path_factory.mktemp("plink") / "xor.bed"
    to_bed(str(path), X.astype(np.int8),
           properties={"pheno": [str(v + 1) for v in y], "sid": [f"rs{i}" for i in range(8)]})
    return str(path), X, y


def run(args, capsys):
    status = main(args)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def api_pairs(X, y, **kwargs):
    data = encode(X.astype(float), y.astype(float), discrete=True, n_values=[3] * X.shape[1],
                  n_classes=2)
    return interacting_pairs(data, **kwargs)


def test_pairs_of_a_table_are_the_scripting_apis(xor_file, capsys):
    path, X, y = xor_file
    status, out, err = run(["pairs", path, "-q", "-r", "30", "-s", "4", "-f", "csv"], capsys)
    assert status == 0 and err == ""
    rows = list(csv.DictReader(io.StringIO(out)))
    want = api_pairs(X, y, n_permutations=30, random_state=4)
    assert len(rows) == len(want) == 28
    assert (rows[0]["first"], rows[0]["second"]) == ("snp2", "snp5")
    for row, pair in zip(rows, want):
        assert (row["first"], row["second"]) == (f"snp{pair.first}", f"snp{pair.second}")
        assert float(row["statistic"]) == pytest.approx(pair.statistic, rel=1e-12)
        assert float(row["p"]) == pytest.approx(pair.pvalue, rel=1e-12)
        assert float(row["q"]) == pytest.approx(pair.qvalue, rel=1e-12)


def test_pairs_of_plink_genotypes(xor_bed, capsys):
    path, X, y = xor_bed
    status, out, err = run(["pairs", path, "-q", "-a", "rs1,rs2,rs5,rs7", "-r", "10",
                            "-s", "1", "-f", "json"], capsys)
    assert status == 0, err
    document = json.loads(out)
    assert document["ranked_by"] is None and document["permutations"] == 10
    assert document["tested"] == ["rs1", "rs2", "rs5", "rs7"] and len(document["pairs"]) == 6
    want = api_pairs(X[:, [1, 2, 5, 7]], y, n_permutations=10, random_state=1)
    names = ["rs1", "rs2", "rs5", "rs7"]
    for row, pair in zip(document["pairs"], want):
        assert (row["first"], row["second"]) == (names[pair.first], names[pair.second])
        assert row["p"] == pytest.approx(pair.pvalue, rel=1e-12)
    best = document["pairs"][0]
    assert {best["first"], best["second"]} == {"rs2", "rs5"} and best["q"] < 0.05


def test_pairs_of_the_best_ranked_attributes(xor_file, capsys):
    path, _, _ = xor_file
    status, out, err = run(["pairs", path, "-q", "--top", "4", "-e", "ReliefF", "-r", "10",
                            "-s", "1", "-f", "json"], capsys)
    assert status == 0, err
    document = json.loads(out)
    assert document["ranked_by"] == "ReliefF" and document["permutations"] == 10
    assert document["method"] == "filter"
    assert len(document["tested"]) == 4 and len(document["pairs"]) == 6
    best = document["pairs"][0]
    assert {best["first"], best["second"]} == {"snp2", "snp5"} and best["q"] < 0.05


def test_the_output_says_whether_every_pair_was_scanned_or_the_filters_best(xor_file, capsys):
    path, _, _ = xor_file
    status, out, err = run(["pairs", path, "-q", "-r", "5", "-s", "1"], capsys)
    assert status == 0, err
    assert out.splitlines()[0].startswith("Pairs of all 8 attributes (exhaustive scan) in xor")
    status, out, err = run(["pairs", path, "-q", "-m", "filter", "-n", "4", "-r", "3",
                            "-s", "1"], capsys)
    assert status == 0, err
    assert out.splitlines()[0].startswith(
        "Pairs of the 4 attributes TuRF around MultiSURF (2 rounds removing 50%) ranks best "
        "(filter) in xor")
    status, out, err = run(["pairs", path, "-q", "-m", "filter", "-n", "4", "-r", "3",
                            "-s", "1", "-f", "json"], capsys)
    document = json.loads(out)
    assert document["method"] == "filter" and len(document["tested"]) == 4


def test_table_output_names_the_pairs_and_pairs_option_limits_them(xor_file, capsys, tmp_path):
    path, _, _ = xor_file
    status, out, _ = run(["pairs", path, "-q", "-a", "snp1,snp2,snp5", "-r", "20",
                          "--pairs", "2"], capsys)
    assert status == 0
    lines = out.splitlines()
    assert lines[0].startswith("Pairs of 3 attributes in xor")
    assert lines[1].split() == ["rank", "first", "second", "statistic", "df", "p", "q"]
    assert len(lines) == 4 and lines[2].split()[1:3] == ["snp2", "snp5"]
    target = tmp_path / "pairs.json"
    status, out, err = run(["pairs", path, "-a", "snp1,snp2,snp5", "-r", "20",
                            "-o", str(target)], capsys)
    assert status == 0 and out == "" and "wrote 3 pairs" in err
    assert len(json.loads(target.read_text())["pairs"]) == 3


@pytest.mark.parametrize("args, message", [
    (["iris"], "discrete attributes"),
    (["housing"], "discrete class"),
    (["XOR", "-a", "snp1,nothing"], "no attribute 'nothing'"),
    (["XOR", "-a", "snp1"], "at least two"),
    (["XOR", "-e", "NoSuch"], "unknown estimator"),
    (["XOR", "-e", "RReliefF"], "does not rank for a discrete class"),
    (["XOR", "-o", "pairs.txt"], "cannot tell the format"),
    (["XOR", "--top", "1"], "top must be"),
    (["XOR", "--pheno", "p.txt"], "--pheno"),
])
def test_bad_arguments_are_refused_in_one_line(xor_file, args, message, capsys, tmp_path,
                                               monkeypatch):
    monkeypatch.chdir(tmp_path)
    args = [xor_file[0] if a == "XOR" else a for a in args]
    status, out, err = run(["pairs", *args, "-q"], capsys)
    assert status == 2 and out == ""
    assert err.startswith("orange-relief pairs: error: ") and err.count("\n") == 1, err
    assert message in err


def test_files_that_cannot_be_read_are_refused_in_one_line(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name, extra, message in unreadable_files(tmp_path):
        status, out, err = run(["pairs", name, "--quiet", *extra], capsys)
        assert status == 2 and out == "", name
        assert err.startswith("orange-relief pairs: error: ") and err.count("\n") == 1, err


@pytest.mark.parametrize("task,case", [pytest.param(task, case, id=f"{task}-{case.name}")
                                       for task in TASKS for case in bad_inputs(task)])
def test_bad_input_battery_answered_or_refused_in_one_line(task, case, tmp_path, capsys):
    path = str(tmp_path / "data.pkl")
    case.table.save(path)
    status, out, err = run(["pairs", path, "--quiet", "-r", "3", "--format", "json"], capsys)
    assert "Traceback" not in err
    if status == 2:
        assert out == "" and err.startswith("orange-relief pairs: error: ")
        assert err.count("\n") == 1
    else:
        assert status == 0, err
        assert all(0 < row["p"] <= 1 for row in json.loads(out)["pairs"])


def test_the_genetics_pages_commands_run_as_written(tmp_path, capsys, monkeypatch):
    # the shell commands of doc/genetics.md, on the page's tiny study written the same way
    import re
    import shlex
    from pathlib import Path
    from bed_reader import to_bed
    page = (Path(__file__).resolve().parent.parent / "doc" / "genetics.md").read_text()
    block = re.search(r"```text\n(.*?)```", page, re.S).group(1)
    commands = [shlex.split(line) for line in block.splitlines() if line.strip()]
    assert [c[:2] for c in commands] == [["orange-relief", "rank"], ["orange-relief", "pairs"],
                                         ["orange-relief", "pairs"]]
    rng = np.random.default_rng(1)
    genotypes = rng.binomial(2, 0.5, size=(300, 40)).astype(np.int8)
    case = (genotypes[:, 3] == 1) ^ (genotypes[:, 7] == 1)
    flip = rng.random(300) < 0.1
    case[flip] = ~case[flip]
    to_bed(str(tmp_path / "study.bed"), genotypes, properties={
        "sid": [f"rs{i}" for i in range(40)], "pheno": [str(int(c) + 1) for c in case]})
    monkeypatch.chdir(tmp_path)
    outs = []
    for command in commands:
        status, out, err = run([*command[1:], "-q"], capsys)
        assert status == 0, (command, err)
        outs.append(out)
    # (a .bed file's ranking: rank CHR SNP BP A1 score)
    assert {row.split()[2] for row in outs[0].splitlines()[2:4]} == {"rs3", "rs7"}
    assert outs[1].splitlines()[2].split()[1:3] == ["rs3", "rs7"]
    assert next(csv.DictReader(io.StringIO(outs[2])))["second"] == "rs7"


def test_scan_of_every_pair_is_the_scripting_apis(xor_file, capsys):
    from orangecontrib.relief.estimators import scan_pairs
    path, X, y = xor_file
    status, out, err = run(["pairs", path, "-q", "--method", "scan", "--pairs", "5", "-f",
                            "json"], capsys)
    # without --permutations the scan's p-values are the chi-square test's
    assert status == 0, err
    document = json.loads(out)
    data = encode(X.astype(float), y.astype(float), discrete=True, n_values=[3] * X.shape[1],
                  n_classes=2)
    expected = scan_pairs(data, top=5)
    assert document["method"] == "scan" and document["pairs_tested"] == 28
    assert document["permutations"] == 0
    assert [(p["first"], p["second"]) for p in document["pairs"]] == \
        [(f"snp{a}", f"snp{b}") for a, b in zip(expected.first, expected.second)]
    np.testing.assert_array_equal([p["p"] for p in document["pairs"]], expected.pvalues)
    np.testing.assert_array_equal([p["q"] for p in document["pairs"]], expected.qvalues)


def test_scan_table_says_what_was_tested(xor_bed, capsys):
    path, _, _ = xor_bed
    status, out, err = run(["pairs", path, "-q", "--method", "scan"], capsys)
    assert status == 0, err
    head, columns, first = out.splitlines()[:3]
    assert "28 pairs tested" in head and "chi-square" in head
    assert first.split()[1:3] == ["rs2", "rs5"]

