"""The single reader entry (orangecontrib.relief.reading.read_data): one rule for the class's
type whatever the file's format, in memory and by partitions; the instances read, used and
left out counted alike in both; PLINK's phenotype rules (1/2 case/control, 0 and -9 missing,
PLINK's --1 for 0/1) with messages that say what was read; PLINK files read by partitions at
their absolute path, and a clear error when a worker cannot see the file."""
import os

import bed_reader
import numpy as np
import pytest

from orangecontrib.relief.reading import (DataRead, Partitions, ReadError, ReadOptions,
                                          read_data)
from orangecontrib.relief.readers import plink_dask

from table_files import write_table


def columns(labels, n=100, seed=0):
    rng = np.random.default_rng(seed)
    return {"a": rng.random(n).tolist(), "b": rng.random(n).tolist(),
            "label": [labels[i % len(labels)] for i in range(n)]}


@pytest.mark.parametrize("labels, task", [
    ([0, 1], "classification"), ([1, 2], "classification"), ([0, 1, 2], "regression"),
    (["no", "yes"], "classification"), ([0.5, 1.5, 2.5], "regression")])
def test_one_rule_for_the_class_type_whatever_the_format(labels, task, tmp_path):
    """A class of numbers among 0, 1 or among 1, 2 is two classes, other numbers a numeric
    target, text classes, alike from CSV and Parquet, in memory and by partitions."""
    found = []
    for kind in ("csv", "parquet"):
        path = write_table(tmp_path, "t", columns(labels), kind)
        for partitions in (False, True):
            read = read_data(path, ReadOptions("label"), partitions=partitions)
            found.append((kind, partitions, read.task))
            if task == "classification" and partitions:
                assert read.data.keywords["n_classes"] == 2
                assert set(np.unique(read.data.y.compute())) == {0.0, 1.0}
    assert all(t == task for *_, t in found), found


def test_class_type_given_overrides_the_rule(tmp_path):
    path = write_table(tmp_path, "t", columns([0, 1]), "parquet")
    for partitions in (False, True):
        assert read_data(path, ReadOptions("label", "numeric"),
                         partitions=partitions).task == "regression"
    path = write_table(tmp_path, "u", columns([0, 1, 2]), "csv")
    for partitions in (False, True):
        read = read_data(path, ReadOptions("label", "discrete"), partitions=partitions)
        assert read.task == "classification"


@pytest.mark.parametrize("kind", ["csv", "parquet"])
def test_instances_without_a_class_counted_alike_in_memory_and_by_partitions(kind, tmp_path):
    """100 rows, every tenth without a class value: 100 read, 90 used, 10 left out for a
    missing class; by partitions the 10 rows are gone from X and y (no NaN class left)."""
    data = columns(["no", "yes"])
    data["label"] = [None if i % 10 == 3 else v for i, v in enumerate(data["label"])]
    path = write_table(tmp_path, "m", data, kind)
    memory = read_data(path, ReadOptions("label"))
    split = read_data(path, ReadOptions("label"), partitions=True)
    for read in (memory, split):
        assert (read.read, read.used, read.dropped) == (100, 90, {"missing class": 10})
        assert read.dropped_text() == "10 of 100 instances left out: 10 with a missing class"
    X, y = split.data.X.compute(), split.data.y.compute()
    assert X.shape == (90, 2) and not np.isnan(y).any()
    keep = [i for i in range(100) if i % 10 != 3]
    np.testing.assert_allclose(X[:, 0], np.asarray(data["a"])[keep], rtol=0, atol=1e-15)


def write_bed(path, pheno, n_snps=8, seed=1):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, size=(len(pheno), n_snps)).astype(np.int8)
    bed_reader.to_bed(str(path), X, properties={"pheno": list(pheno)})
    return str(path), X


def test_plink_phenotype_coded_zero_one_is_refused_with_what_was_read(tmp_path):
    """0/1 by PLINK's default rules: 0 missing, 1 control, so one class: the message says how
    the values were read, the counts, and the 0/1 coding (PLINK's --1) that reads them."""
    path, _ = write_bed(tmp_path / "zo.bed", ["0", "1"] * 10 + ["-9"] * 2)
    with pytest.raises(ValueError) as caught:
        read_data(path)
    message = str(caught.value)
    assert "1 = control, 2 = case" in message and "--1" in message
    assert "10 of 22 individuals" in message and "10 controls, 0 cases" in message
    read = read_data(path, ReadOptions(coding="01"))
    assert (read.task, read.read, read.used) == ("classification", 22, 20)
    assert read.dropped == {"missing phenotype": 2}
    assert read.data.y.tolist() == [0.0, 1.0] * 10


def test_plink_zero_one_two_keeps_its_zeros_as_numbers(tmp_path):
    """0/1/2 is case/control by PLINK's rules (0 missing); read as numeric its zeros are
    values (-9 still missing)."""
    pheno = ["0", "1", "2", "-9"] * 5
    path, _ = write_bed(tmp_path / "z.bed", pheno)
    case_control = read_data(path)
    assert case_control.used == 10 and case_control.data.n_classes == 2
    numeric = read_data(path, ReadOptions(class_type="numeric"))
    assert numeric.task == "regression" and numeric.used == 15
    assert numeric.data.y.tolist() == [0.0, 1.0, 2.0] * 5
    with pytest.raises(ValueError, match="holds other values: 2"):
        read_data(path, ReadOptions(coding="01"))


def test_plink_partitions_read_at_the_absolute_path(tmp_path, monkeypatch):
    """A relative .bed path reaches the partitions' tasks absolute: they read the file from
    another working directory (as workers started elsewhere do); a file they cannot see is a
    ValueError naming it, not a FileNotFoundError."""
    import dask
    folder = tmp_path / "data"
    folder.mkdir()
    _, X = write_bed(folder / "g.bed", ["1", "2"] * 10)
    monkeypatch.chdir(folder)
    read = read_data("g.bed", partitions=True)
    partitions = plink_dask("g.bed", partition_rows=7)[0]
    monkeypatch.chdir(tmp_path)
    with dask.config.set(scheduler="synchronous"):
        np.testing.assert_array_equal(read.data.X.compute(), X)
        np.testing.assert_array_equal(partitions.compute(), X)
        os.rename(folder / "g.bed", folder / "moved.bed")
        with pytest.raises(ValueError, match="cannot read PLINK data .*g.bed.* on the Dask "
                                             "worker .* no such file"):
            partitions.compute()


def test_what_cannot_be_read_is_a_value_error(tmp_path):
    path = write_table(tmp_path, "t", columns([0, 1]), "csv")
    with pytest.raises(ReadError, match="class column named"):
        read_data(path, partitions=True)
    with pytest.raises(ReadError, match="go with PLINK"):
        read_data(path, ReadOptions("label", pheno="p.txt"))
    with pytest.raises(ReadError, match="no column 'nope'"):
        read_data(path, ReadOptions("nope"), partitions=True)
    assert isinstance(read_data(path, ReadOptions("label")), DataRead)
    assert isinstance(read_data(path, ReadOptions("label"), partitions=True).data, Partitions)
