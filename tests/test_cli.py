"""Tests of the ``orange-relief`` command line (orangecontrib.relief.cli)."""
import csv
import io
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from Orange.data import ContinuousVariable, Domain, Table

from orangecontrib.relief import datasets
from orangecontrib.relief.cli import main
from orangecontrib.relief.estimators import encode
from orangecontrib.relief.estimators.encoding import as_covariates

from bad_inputs import TASKS, bad_inputs, unreadable_files
from checkout import environment
from table_files import write_table

#: seconds a command run in a new process may take before the test fails: a guard against a
#: hang, not a speed test (beside the other tests on two cores a first command once took
#: over 120 s; alone it takes 5 s)
SUBPROCESS_TIMEOUT = 600


def script_environment():
    """The environment of the console script run in a new process: it imports the package
    of this checkout, as the suite and its other new processes do (where the package is also
    installed, not in editable mode, the installed copy would compile all its kernels anew
    into a cache of its own: about a minute)."""
    return environment()


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
    (["rank", "{parity}", "-e", "VLS", "--param", "estimator=NoSuch(k=2)"],
     "unknown estimator 'NoSuch'"),
    (["rank", "{parity}", "-e", "VLS", "--param", "estimator=ReliefF(2)"],
     "NAME(param=value, ...)"),
    (["rank", "{parity}", "-e", "Iter", "--param", "estimator=ReliefF(k=0)"],
     "estimator ReliefF: k must be"),
    (["rank", "{parity}", "-e", "TuRF", "--param", "estimator=ReliefF(nope=1)"],
     "does not take nope of ReliefF"),
    (["rank", "{parity}", "-e", "VLS", "--param", "estimator=ReliefF(k=[1)"],
     "NAME(param=value, ...)"),
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


def test_a_wrappers_base_estimator_is_written_with_its_parameters(parity_file, capsys):
    """-p estimator=NAME(param=value, ...) gives a wrapper the base the API would: the printed
    scores are those of VLS around ReliefF with k = 5 and scikit-rebate's preset, and of
    MultiScaleRelief over two estimators written the same way."""
    from orangecontrib.relief import scoring
    from orangecontrib.relief.estimators.relieff import ReliefF
    from orangecontrib.relief.estimators.surf import MultiSURF
    table = Table(parity_file)
    names = [a.name for a in table.domain.attributes]
    for params, scorer in [
            (["estimator=ReliefF(k=5, preset=skrebate)", "subsets=6", "size=4"],
             scoring.VLS(ReliefF(k=5, preset="skrebate"), subsets=6, size=4, random_state=3)),
            (["estimators=ReliefF(k=5), MultiSURF"],
             scoring.MultiScaleRelief((ReliefF(k=5), MultiSURF())))]:
        args = ["rank", parity_file, "-e", type(scorer).__name__, "-s", "3"] \
            if isinstance(scorer, scoring.VLS) else ["rank", parity_file, "-e",
                                                     type(scorer).__name__]
        status, out, err = run(args + [a for p in params for a in ("-p", p)], capsys)
        assert status == 0, err
        expected = dict(zip(names, scorer(table)))
        rows = ranking(out)
        assert len(rows) == len(names)
        for name, score in rows:
            assert score == pytest.approx(expected[name], abs=5e-6)


def test_console_script_runs_in_a_subprocess(parity_file):
    script = Path(sys.executable).parent / "orange-relief"
    result = subprocess.run([str(script), "rank", parity_file, "--top", "2"],
                            env=script_environment(), capture_output=True, text=True,
                            timeout=SUBPROCESS_TIMEOUT)
    assert result.returncode == 0, result.stderr
    assert {name for name, _ in ranking(result.stdout)} == {"I1", "I2"}


def test_module_entry_point_reports_a_missing_file_without_traceback(tmp_path):
    result = subprocess.run([sys.executable, "-m", "orangecontrib.relief.cli", "rank",
                             str(tmp_path / "missing.tab")],
                            capture_output=True, text=True, timeout=SUBPROCESS_TIMEOUT)
    assert result.returncode == 2
    assert "cannot read data" in result.stderr
    assert "Traceback" not in result.stderr


# ---------------------------------------------------------------------------------------------
# plain files: --class, --class-type; --output and --format; progress, --quiet, --version

def plain_rows(table, class_labels):
    """A header of names (no Orange flags), then the rows; the class last as ``label`` with
    ``class_labels[code]`` as its values."""
    yield [a.name for a in table.domain.attributes] + ["label"]
    for x, y in zip(table.X, table.Y):
        yield [float(v) for v in x] + [class_labels[int(y)]]


def write_plain_csv(path, table, class_labels, delimiter=","):
    with open(path, "w", newline="") as file:
        csv.writer(file, delimiter=delimiter).writerows(plain_rows(table, class_labels))
    return str(path)


def write_plain_xlsx(path, table, class_labels):
    from openpyxl import Workbook
    book = Workbook()
    for row in plain_rows(table, class_labels):
        book.active.append(row)
    book.save(path)
    return str(path)


@pytest.fixture(scope="module")
def plain_csv(tmp_path_factory):
    table = datasets.parity(order=2, n_irrelevant=6, n_instances=150)
    return write_plain_csv(tmp_path_factory.mktemp("data") / "data.csv", table, ["no", "yes"])


def scripting_ranking(path, class_name, **kwargs):
    """The attributes of a plain CSV ranked by the scripting API: Orange reads the file, the
    class is set by Orange's own domain transformation."""
    from Orange.data import Domain
    from orangecontrib.relief import ReliefF
    table = Table(path)
    domain = Domain([v for v in table.domain.attributes if v.name != class_name],
                    table.domain[class_name])
    table = table.transform(domain)
    scores = ReliefF(**kwargs)(table)
    order = sorted(range(len(scores)), key=lambda i: -scores[i])
    return [domain.attributes[i].name for i in order], dict(
        zip([a.name for a in domain.attributes], scores))


def test_plain_csv_ranked_into_a_csv_file_as_by_the_scripting_api(plain_csv, tmp_path):
    output = tmp_path / "scores.csv"
    script = Path(sys.executable).parent / "orange-relief"
    result = subprocess.run([str(script), "rank", plain_csv, "--class", "label",
                             "--output", str(output)], env=script_environment(),
                            capture_output=True, text=True, timeout=SUBPROCESS_TIMEOUT)
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""                       # the ranking went to the file
    with open(output, newline="") as file:
        rows = list(csv.DictReader(file))
    names, scores = scripting_ranking(plain_csv, "label")
    assert [row["attribute"] for row in rows] == names
    assert [int(row["rank"]) for row in rows] == list(range(1, len(names) + 1))
    for row in rows:
        assert float(row["score"]) == pytest.approx(scores[row["attribute"]], abs=1e-12)
    assert set(names[:2]) == {"I1", "I2"}


@pytest.mark.parametrize("extension", ["tsv", "xlsx"])
def test_plain_tsv_and_xlsx_name_their_class_as_csv_does(extension, tmp_path, capsys):
    table = datasets.parity(order=2, n_irrelevant=6, n_instances=150)
    path = tmp_path / f"data.{extension}"
    if extension == "xlsx":
        write_plain_xlsx(path, table, ["no", "yes"])
    else:
        write_plain_csv(path, table, ["no", "yes"], delimiter="\t")
    status, out, err = run(["rank", str(path), "--class", "label", "-f", "csv"], capsys)
    assert status == 0, err
    same_as_csv = write_plain_csv(tmp_path / "data.csv", table, ["no", "yes"])
    assert [row[1] for row in csv.reader(io.StringIO(out))][1:] == \
        scripting_ranking(same_as_csv, "label")[0]


def test_json_output_file_and_stdout_formats_hold_the_same_ranking(plain_csv, tmp_path,
                                                                    capsys):
    output = tmp_path / "scores.json"
    status, out, err = run(["rank", plain_csv, "-c", "label", "-k", "5", "-o", str(output),
                            "--format", "csv"], capsys)
    assert status == 0, err
    document = json.loads(output.read_text())
    names, scores = scripting_ranking(plain_csv, "label", k=5)
    assert [r["attribute"] for r in document["ranking"]] == names
    assert document["estimator"] == "ReliefF" and document["parameters"] == {"k": 5}
    assert document["class"] == "label" and document["class_type"] == "discrete"
    assert document["instances"] == 150 and document["attributes"] == 8
    assert [row[1] for row in csv.reader(io.StringIO(out))][1:] == names
    status, out, _ = run(["rank", plain_csv, "-c", "label", "-k", "5", "-f", "json"], capsys)
    assert json.loads(out)["ranking"] == document["ranking"]


def test_stdout_holds_nothing_but_the_result_even_with_a_progress_bar(plain_csv):
    result = subprocess.run([sys.executable, "-m", "orangecontrib.relief.cli", "rank",
                             plain_csv, "-c", "label", "-f", "csv", "--top", "3"],
                            capture_output=True, text=True, timeout=SUBPROCESS_TIMEOUT)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "rank,attribute,score" and len(lines) == 4


def test_integer_labels_are_a_class_with_class_type_discrete(tmp_path, capsys):
    table = datasets.parity(order=2, n_irrelevant=4, n_instances=120)
    path = write_plain_csv(tmp_path / "ints.csv", table, ["1", "3"])  # 0/1 reads as discrete
    status, out, err = run(["rank", path, "--class", "label"], capsys)
    assert status == 0
    assert "--class-type discrete" in err            # read as numeric: the hint says what to do
    assert out.splitlines()[0].startswith("RReliefF")
    status, out, err = run(["rank", path, "--class", "label", "--class-type", "discrete"],
                           capsys)
    assert status == 0 and err == ""
    assert out.splitlines()[0].startswith("ReliefF") and "(discrete)" in out.splitlines()[0]
    assert {name for name, _ in ranking(out)[:2]} == {"I1", "I2"}


def test_class_chosen_from_a_tab_file_replaces_its_class(parity_file, capsys):
    status, out, _ = run(["rank", parity_file, "--class", "I1", "-f", "json"], capsys)
    assert status == 0
    document = json.loads(out)
    attributes = {r["attribute"] for r in document["ranking"]}
    assert document["class"] == "I1" and "I1" not in attributes
    assert len(attributes) == 12                     # the former class is an attribute now


@pytest.fixture
def bad_files(tmp_path):
    (tmp_path / "empty.csv").write_text("")
    (tmp_path / "header.csv").write_text("a,b,label\n")
    (tmp_path / "twice.csv").write_text("a,a,label\n1,2,x\n3,4,y\n5,6,x\n")
    (tmp_path / "text.csv").write_text("a,b,label\n1,2,x\n3,4,y\n5,6,x\n")
    (tmp_path / "broken.xlsx").write_bytes(b"\x00\x01 not a spreadsheet")
    (tmp_path / "folder.csv").mkdir()
    return tmp_path


@pytest.mark.parametrize("args, message", [
    (["rank", "empty.csv"], "is empty"),
    (["rank", "header.csv", "--class", "label"], "no rows"),
    (["rank", "folder.csv"], "is a directory"),
    (["rank", "broken.xlsx"], "cannot read data"),
    (["rank", "missing/data.csv"], "no such file"),
    (["rank", "text.csv"], "--class NAME"),
    (["rank", "text.csv", "--class", "nope"], "no column 'nope'"),
    (["rank", "twice.csv", "--class", "a"], "ambiguous"),
    (["rank", "text.csv", "--class", "label", "--class-type", "numeric"], "non-numeric"),
    (["rank", "text.csv", "--class", "label", "--output", "scores.txt"], ".csv or a .json"),
    (["rank", "text.csv", "--class", "label", "--output", "no/dir/s.csv"], "cannot write"),
    (["rank", "text.csv", "--format", "xml"], "invalid choice"),
])
def test_bad_files_and_columns_exit_2_naming_the_problem(args, message, bad_files, capsys,
                                                          monkeypatch):
    monkeypatch.chdir(bad_files)
    status, out, err = run(args, capsys)
    assert status == 2
    assert message in err
    assert "Traceback" not in err and out == ""


def test_version_prints_the_package_version(capsys):
    from orangecontrib.relief import __version__
    status, out, _ = run(["--version"], capsys)
    assert status == 0
    assert out.strip() == f"orange-relief {__version__}"


def test_progress_bar_on_stderr_after_a_second_and_none_when_quiet(capsys):
    import argparse
    from orangecontrib.relief.cli import progress
    for quiet in (False, True):
        with progress(argparse.Namespace(quiet=quiet), "Work") as callback:
            callback(0.25)
            time.sleep(1.1)
            callback(0.5)
        captured = capsys.readouterr()
        assert captured.out == ""
        assert ("Work:  50%" in captured.err) is not quiet
        assert (captured.err == "") is quiet


def test_compiling_is_announced_on_stderr_once(capsys):
    import argparse
    from numba import njit
    from orangecontrib.relief.cli import progress
    kernels = [njit(lambda x: x + 1), njit(lambda x: x + 2)]
    with progress(argparse.Namespace(quiet=False), "Work"):
        assert [kernel(1) for kernel in kernels] == [2, 3]
    err = capsys.readouterr().err
    assert err.count("compiling") == 1


def test_quiet_run_writes_only_the_result(plain_csv, capsys):
    status, out, err = run(["rank", plain_csv, "-c", "label", "--quiet", "--top", "2"], capsys)
    assert status == 0 and err == ""
    assert len(ranking(out)) == 2


# ---------------------------------------------------------------------------------------------
# the bad-input battery through the command line: what the scripting API answers, or one line
# on stderr and status 2 where it refuses

BATTERY = [pytest.param(task, case, id=f"{task}-{case.name}")
           for task in TASKS for case in bad_inputs(task)]


@pytest.mark.parametrize("task,case", BATTERY)
def test_bad_input_ranked_as_by_the_scripting_api_or_refused_in_one_line(task, case, tmp_path,
                                                                         capsys):
    from orangecontrib.relief import scoring
    path = str(tmp_path / "data.pkl")        # Orange's pickle keeps weights, sparsity, metas
    case.table.save(path)
    scorer = scoring.ReliefF if task == "classification" else scoring.RReliefF
    try:
        want = np.asarray(scorer()(case.table), dtype=float)
    except ValueError:
        want = None
    status, out, err = run(["rank", path, "--quiet", "--format", "json"], capsys)
    assert "Traceback" not in err
    if want is None:
        assert status == 2 and out == ""
        assert err.startswith("orange-relief rank: error: ") and err.count("\n") == 1
        return
    assert status == 0, err
    got = {row["attribute"]: row["score"] for row in json.loads(out)["ranking"]}
    for var, score in zip(case.table.domain.attributes, want):
        if np.isnan(score):
            assert got[var.name] is None
        else:
            assert got[var.name] == pytest.approx(score, rel=1e-12, abs=0)


def test_tree_command_takes_the_class_of_a_plain_csv(plain_csv, capsys):
    status, out, err = run(["tree", plain_csv, "--class", "label", "--folds", "2", "-q"],
                           capsys)
    assert status == 0 and err == ""
    assert "2-fold cross-validated accuracy" in out
    assert "I1" in out and "I2" in out           # parity: the tree splits on both


# ---------------------------------------------------------------------------------------------
# files the readers refuse; PLINK and Parquet data; --dask

def test_files_that_cannot_be_read_are_refused_in_one_line(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name, extra, message in unreadable_files(tmp_path):
        status, out, err = run(["rank", name, "--quiet", *extra], capsys)
        assert status == 2 and out == "", name
        assert err.startswith("orange-relief rank: error: ") and err.count("\n") == 1, err
        assert message in err, (name, err)


@pytest.fixture(scope="module")
def plink_file(tmp_path_factory):
    """PLINK genotypes written by bed-reader (the class follows SNP 4) and a phenotype file
    with a numeric trait following SNP 9."""
    from bed_reader import to_bed
    rng = np.random.default_rng(3)
    X = rng.integers(0, 3, size=(80, 100)).astype(np.int8)
    folder = tmp_path_factory.mktemp("plink")
    to_bed(str(folder / "g.bed"), X,
           properties={"pheno": list(np.where(X[:, 4] > 0, "2", "1")),
                       "iid": [f"i{i}" for i in range(80)]})
    lines = ["FID IID trait"] + [f"0 i{i} {X[i, 9] * 1.5 + 0.1 * (i % 3)}" for i in range(80)]
    (folder / "pheno.tsv").write_text("\n".join(lines) + "\n")
    return str(folder / "g.bed"), X


def test_plink_ranked_as_the_same_genotypes_by_the_scripting_api(plink_file, capsys):
    from orangecontrib.relief.estimators.relieff import ReliefF
    path, X = plink_file
    status, out, err = run(["rank", path, "-q", "-k", "7", "--format", "json"], capsys)
    assert status == 0, err
    document = json.loads(out)
    assert document["class"] == "phenotype" and document["class_type"] == "discrete"
    assert document["instances"] == 80 and document["ranking"][0]["attribute"] == "sid5"
    want = ReliefF(k=7)(encode(X.astype(float), (X[:, 4] > 0) * 1.0, discrete=True,
                               n_values=3, n_classes=2))
    got = {row["attribute"]: row["score"] for row in document["ranking"]}
    assert [got[f"sid{i + 1}"] for i in range(100)] == pytest.approx(want, rel=0, abs=1e-15)


def test_plink_with_a_phenotype_file_column(plink_file, capsys):
    path, _ = plink_file
    pheno = str(Path(path).with_name("pheno.tsv"))
    status, out, err = run(["rank", path, "--pheno", pheno, "--class", "trait", "-q",
                            "--format", "json", "--top", "1"], capsys)
    assert status == 0, err
    document = json.loads(out)
    assert document["estimator"] == "RReliefF" and document["class"] == "trait"
    assert document["ranking"][0]["attribute"] == "sid10"


@pytest.fixture(scope="module")
def cluster():
    from distributed import LocalCluster
    with LocalCluster(processes=False, n_workers=1, threads_per_worker=2) as local:
        yield local.scheduler_address


def local_and_dask_scores(args, cluster, capsys):
    """The scores (attribute -> score) of ``args`` ranked in memory and with ``--dask``; both
    name the data by the file's name."""
    scores = []
    for extra in ([], ["--dask", cluster]):
        status, out, err = run(args + ["-q", "--format", "json"] + extra, capsys)
        assert status == 0, err
        document = json.loads(out)
        assert document["data"] == Path(args[1]).name
        scores.append({r["attribute"]: r["score"] for r in document["ranking"]})
    return scores


@pytest.mark.parametrize("estimator", ["ReliefF", "MultiSURF"])
def test_dask_ranking_of_plink_equals_one_machine(plink_file, cluster, estimator, capsys):
    path, _ = plink_file
    want, got = local_and_dask_scores(["rank", path, "-e", estimator, "-m", "30", "-s", "4"],
                                      cluster, capsys)
    assert got.keys() == want.keys() and len(got) == 100
    assert all(got[name] == pytest.approx(want[name], abs=1e-12) for name in want)


@pytest.mark.parametrize("kind", ["parquet", "csv"])
def test_dask_ranking_of_a_table_equals_one_machine(kind, tmp_path, cluster, capsys):
    rng = np.random.default_rng(5)
    a, b = rng.random(150), rng.random(150)
    columns = {"a": a, "b": b, "colour": rng.choice(["red", "blue"], 150),
               "label": np.where((a > 0.5) ^ (b > 0.5), "yes", "no")}
    path = write_table(tmp_path, "t", columns, kind, row_group_size=40)
    want, got = local_and_dask_scores(["rank", path, "-c", "label", "-m", "40", "-s", "2"],
                                      cluster, capsys)
    assert got.keys() == want.keys() == {"a", "b", "colour"}
    assert all(got[name] == pytest.approx(want[name], abs=1e-12) for name in want)


@pytest.mark.parametrize("args, message", [
    (["-e", "InfGain", "-m", "10"], "InfGain has no Dask path"),
    (["-e", "ReliefFbestK", "-m", "10"], "ReliefFbestK has no Dask path"),
    ([], "--dask needs --iterations M"),
])
def test_dask_refuses_what_it_cannot_compute(plink_file, cluster, args, message, capsys):
    path, _ = plink_file
    status, out, err = run(["rank", path, "-q", "--dask", cluster, *args], capsys)
    assert status == 2 and out == ""
    assert message in err and err.count("\n") == 1


def test_ctrl_c_on_dask_cancels_the_tasks_and_exits_130(plink_file, cluster, capsys,
                                                        monkeypatch):
    """Ctrl-C arrives as a KeyboardInterrupt in the client while it waits for the tasks (here
    raised from the progress callback): the tasks are cancelled, the command exits 130."""
    from contextlib import contextmanager
    from distributed import Client
    from orangecontrib.relief import cli

    @contextmanager
    def interrupting(args, description):
        def callback(fraction):
            raise KeyboardInterrupt
        yield callback
    monkeypatch.setattr(cli, "progress", interrupting)
    path, _ = plink_file
    status, out, err = run(["rank", path, "-q", "-m", "50", "--dask", cluster], capsys)
    assert status == 130 and out == ""
    assert err.strip().endswith("orange-relief rank: cancelled")
    with Client(cluster) as client:
        deadline = time.monotonic() + 10
        while any(client.processing().values()) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(client.processing().values())


def test_instances_used_and_left_out_said_in_every_output_in_memory_and_on_dask(
        tmp_path, cluster, capsys):
    """100 rows of which 10 lack a class value: the table header, the JSON document and a
    notice on stderr say 90 of 100 used and why, in memory and with --dask alike (which ranks
    the same 90)."""
    rng = np.random.default_rng(2)
    a, b = rng.random(100), rng.random(100)
    label = np.where(a > 0.5, "yes", "no").astype(object)
    label[::10] = ""
    path = tmp_path / "gaps.csv"
    with open(path, "w", newline="") as file:
        csv.writer(file).writerows([("a", "b", "label"), *zip(a, b, label)])
    documents = []
    for extra in ([], ["--dask", cluster]):
        args = ["rank", str(path), "-c", "label", "-m", "30", "-s", "1", *extra]
        status, out, err = run(args, capsys)
        assert status == 0, err
        assert "90 of 100 instances (left out: 10 with a missing class)" in out.splitlines()[0]
        assert "10 of 100 instances left out: 10 with a missing class" in err
        status, out, err = run(args + ["-q", "-f", "json"], capsys)
        assert status == 0 and err == ""
        documents.append(json.loads(out))
    for document in documents:
        assert document["instances"] == 90 and document["instances_read"] == 100
        assert document["left_out"] == {"missing class": 10}
    memory, dask = ({r["attribute"]: r["score"] for r in d["ranking"]} for d in documents)
    assert memory.keys() == dask.keys() == {"a", "b"}
    assert all(dask[name] == pytest.approx(memory[name], abs=1e-12) for name in memory)


def test_plink_zero_one_phenotype_with_plinks_1_option(tmp_path, capsys):
    """A phenotype coded 0/1 is refused by PLINK's default rules in one line that says what
    was read and names --1; with --1 it is control/case."""
    from bed_reader import to_bed
    X = np.random.default_rng(4).integers(0, 3, size=(40, 20)).astype(np.int8)
    to_bed(str(tmp_path / "zo.bed"), X, properties={"pheno": list(np.where(X[:, 2] > 0, "1",
                                                                             "0"))})
    status, out, err = run(["rank", str(tmp_path / "zo.bed"), "-q"], capsys)
    assert status == 2 and out == "" and err.count("\n") == 1
    assert "1 = control, 2 = case" in err and "--1" in err
    status, out, err = run(["rank", str(tmp_path / "zo.bed"), "--1", "-q", "-f", "json"],
                           capsys)
    assert status == 0, err
    document = json.loads(out)
    assert document["class_type"] == "discrete" and document["ranking"][0]["attribute"] == "sid3"


def _sigint_handler():
    import signal
    return signal.getsignal(signal.SIGINT) == signal.SIG_IGN


def test_local_cluster_workers_leave_ctrl_c_to_the_command():
    """Ctrl-C reaches every process of the terminal's group: the workers of the command's
    local cluster ignore it (the command cancels their tasks and closes them, so no worker
    prints a traceback), while the command itself still gets it."""
    import signal
    import distributed
    from orangecontrib.relief.cli import local_cluster
    before = signal.getsignal(signal.SIGINT)
    cluster = local_cluster(distributed, n_workers=1, threads_per_worker=1,
                            dashboard_address=":0")
    try:
        assert signal.getsignal(signal.SIGINT) is before
        with distributed.Client(cluster) as client:
            ignored = client.run(_sigint_handler)
        assert ignored and all(ignored.values()), ignored
    finally:
        cluster.close()


def test_plink_covariate_file_reaches_npdr(plink_file, tmp_path, capsys):
    from orangecontrib.relief.estimators.npdr import NPDR
    path, X = plink_file
    rng = np.random.default_rng(8)
    age, site = rng.normal(50, 10, 80), rng.choice(["north", "south"], 80)
    covar = tmp_path / "covar.txt"
    # (the lines in another order than the .fam file's: matched by FID and IID)
    covar.write_text("FID IID age site\n" + "".join(
        f"0 i{i} {float(age[i])!r} {site[i]}\n" for i in reversed(range(80))))
    status, out, err = run(["rank", path, "-e", "NPDR", "--covar", str(covar), "-q",
                            "--format", "json"], capsys)
    assert status == 0, err
    got = {row["attribute"]: row["score"] for row in json.loads(out)["ranking"]}
    covariates = as_covariates(np.c_[age, site == "south"], 80, discrete=[False, True])
    want = NPDR()(encode(X.astype(float), (X[:, 4] > 0) * 1.0, discrete=True, n_values=3,
                         n_classes=2, covariates=covariates))
    assert [got[f"sid{i + 1}"] for i in range(100)] == pytest.approx(want, rel=1e-12)
    # bad files and covariates for an estimator that does not adjust: one line, exit 2
    # (a file of one individual: as PLINK, the others are left out; one class remains)
    (tmp_path / "short.txt").write_text("FID IID age\n0 i0 3\n")
    for extra, message in ((["--covar", str(tmp_path / "short.txt")], "all of one class"),
                           (["--covar", str(covar), "-e", "ReliefF"], "does not adjust"),
                           (["--covariates", "age"], "--covar FILE")):
        status, out, err = run(["rank", path, "-q", "-e", "NPDR", *extra], capsys)
        assert status == 2 and message in err and err.count("\n") == 1, err


def test_covariate_columns_of_a_table_are_adjusted_for_and_not_ranked(tmp_path, capsys):
    from orangecontrib.relief.estimators.npdr import NPDR
    rng = np.random.default_rng(4)
    X = rng.normal(size=(60, 4))
    sex = rng.integers(0, 2, 60)
    y = np.where(X[:, 0] + sex > 0.5, "yes", "no")
    path = tmp_path / "d.csv"
    path.write_text("a,b,c,d,sex,y\n" + "".join(
        f"{r[0]},{r[1]},{r[2]},{r[3]},{'fm'[s]},{c}\n" for r, s, c in zip(X, sex, y)))
    status, out, err = run(["rank", str(path), "--class", "y", "-e", "NPDR",
                            "--covariates", "sex", "-q", "--format", "json"], capsys)
    assert status == 0, err
    got = {row["attribute"]: row["score"] for row in json.loads(out)["ranking"]}
    assert set(got) == {"a", "b", "c", "d"}
    covariates = as_covariates(sex, 60, discrete=True)
    want = NPDR()(encode(X, (y == "yes") * 1.0, n_classes=2, covariates=covariates))
    assert [got[name] for name in "abcd"] == pytest.approx(want, rel=1e-12)
    for extra, message in ((["--covariates", "age"], "no attribute or meta attribute 'age'"),
                           (["--covariates", "sex", "-e", "ReliefF"], "does not adjust")):
        status, out, err = run(["rank", str(path), "--class", "y", "-q", "-e", "NPDR", *extra],
                               capsys)
        assert status == 2 and message in err and err.count("\n") == 1, err


def test_rank_prints_p_and_q_of_the_trend_test_and_npdr(tmp_path, capsys):
    """An estimator with a test of its own (the trend test, NPDR) gets p and q columns, and
    stderr and the JSON say how they were computed: NPDR's z is not read as a p-value."""
    from orangecontrib.relief.estimators.trend import TrendTest
    rng = np.random.default_rng(5)
    G = rng.integers(0, 3, (120, 5))
    y = np.where(rng.random(120) < 1 / (1 + np.exp(-(G[:, 0] - 1.0))), "case", "control")
    path = tmp_path / "snps.csv"
    path.write_text("s0,s1,s2,s3,s4,y\n" + "".join(
        ",".join(map(str, row)) + f",{c}\n" for row, c in zip(G, y)))
    status, out, err = run(["rank", str(path), "--class", "y", "-e", "TrendTest"], capsys)
    assert status == 0, err
    lines = out.splitlines()
    assert lines[1].split() == ["rank", "attribute", "score", "p", "q"]
    assert "p: two-sided, logistic regression Wald z" in err and "q: Benjamini-Hochberg" in err
    status, out, err = run(["rank", str(path), "--class", "y", "-e", "TrendTest", "-q",
                            "--format", "json"], capsys)
    document = json.loads(out)
    assert document["pvalues"]["method"] == "trend" and err == ""
    rows = {row["attribute"]: row for row in document["ranking"]}
    # the class's second value ("control", sorted) is the cases of the logistic fit; the
    # test is two-sided, so p and chi-squared do not depend on which
    want = TrendTest().test(encode(G.astype(float), (y == "control") * 1.0, discrete=True,
                                   n_values=3, n_classes=2))
    for j in range(5):
        row = rows[f"s{j}"]
        assert row["score"] == pytest.approx(want.scores[j], rel=1e-9)
        assert row["p"] == pytest.approx(want.pvalues[j], rel=1e-9)
        assert row["q"] == pytest.approx(want.qvalues[j], rel=1e-9)
    status, out, err = run(["rank", str(path), "--class", "y", "-e", "TrendTest", "-q",
                            "--format", "csv"], capsys)
    assert out.splitlines()[0] == "rank,attribute,score,p,q"
    # NPDR: p calibrated by permutations, said so
    status, out, err = run(["rank", str(path), "--class", "y", "-e", "NPDR", "--calibration",
                            "3", "-s", "1", "--format", "json"], capsys)
    assert status == 0, err
    document = json.loads(out)
    assert document["pvalues"]["n_permutations"] == 3
    assert "3 permutations of the class (calibrated)" in document["pvalues"]["p"]
    assert "not a p-value" in err and "calibrated" in err
    assert all(0 < row["p"] <= 1 and row["q"] >= row["p"] for row in document["ranking"])
    # --calibration belongs to NPDR; and not 1 or 2
    status, out, err = run(["rank", str(path), "--class", "y", "-q", "-e", "ReliefF",
                            "--calibration", "3"], capsys)
    assert status == 2 and "calibrates NPDR" in err and err.count("\n") == 1, err
    status, out, err = run(["rank", str(path), "--class", "y", "-e", "NPDR", "--calibration",
                            "2"], capsys)
    assert status == 2 and "0 or an integer >= 3" in err


def test_npdr_refuses_degenerate_covariates_as_the_api_does(tmp_path, capsys):
    # a covariate equal to the class, one repeating another, a constant one: the API's
    # ValueError naming the covariate, one line on stderr, exit 2
    rng = np.random.default_rng(4)
    X = rng.normal(size=(60, 3))
    y = np.where(X[:, 0] > 0, "yes", "no")
    age = rng.normal(size=60)
    path = tmp_path / "d.csv"
    path.write_text("a,b,c,age,age2,same,twin,y\n" + "".join(
        f"{r[0]},{r[1]},{r[2]},{g},{2 * g + 1},1,{c},{c}\n" for r, g, c in zip(X, age, y)))
    for covariates, message in (("twin", "covariate 'twin' predicts whether a neighbour pair"),
                                ("age,age2", "covariate 'age2' repeats 'age'"),
                                ("same", "covariate 'same' does not vary")):
        status, out, err = run(["rank", str(path), "--class", "y", "-q", "-e", "NPDR",
                                "--covariates", covariates], capsys)
        assert status == 2 and message in err and err.count("\n") == 1, err
