"""The PLINK and Parquet readers (orangecontrib.relief.readers): files written by the reader
libraries' own writers (bed-reader's ``to_bed``, pyarrow's ``write_table``), read back into the
same estimates as the same values given in memory, by the engine on one machine and on Dask; and
the files they refuse."""
import bed_reader
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from Orange.data import ContinuousVariable, DiscreteVariable, Domain, Table

from orangecontrib.relief import scoring
from orangecontrib.relief.estimators import encode
from orangecontrib.relief.estimators.relieff import ReliefF
from orangecontrib.relief.estimators.rrelieff import RReliefF
from orangecontrib.relief.estimators.surf import MultiSURF
from orangecontrib.relief import readers
from orangecontrib.relief.estimators.neighbourhood.packed import PackedColumns
from orangecontrib.relief.estimators.surf import MultiSURFstar, SURF
from orangecontrib.relief.readers import (PlinkFiles, parquet_dask, plink_dask, read_parquet,
                                          read_plink)


def genotypes(n=90, a=140, seed=0):
    """Random genotypes 0/1/2 and a case/control phenotype (PLINK's 2/1) following SNP 3."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, size=(n, a)).astype(np.int8)
    pheno = np.where(X[:, 3] > 0, "2", "1").astype(object)
    return X, pheno


def write_bed(path, X, pheno, **properties):
    bed_reader.to_bed(str(path), X, properties=dict(pheno=list(pheno), **properties))
    return str(path)


@pytest.fixture(scope="module")
def bed(tmp_path_factory):
    X, pheno = genotypes()
    pheno[7] = "-9"                                   # no phenotype: left out
    return write_bed(tmp_path_factory.mktemp("plink") / "g.bed", X, pheno), X, pheno


def in_memory(X, pheno):
    """The genotypes of the individuals with a phenotype, encoded from numpy (controls 0)."""
    keep = pheno != "-9"
    return encode(X[keep].astype(float), pheno[keep].astype(float) - 1, discrete=True,
                  n_values=3, n_classes=2)


def test_plink_is_read_two_bits_a_genotype_with_the_snp_names(bed):
    path, X, pheno = bed
    data = read_plink(path)
    assert isinstance(data.X, PackedColumns) and data.X.shape == (X.shape[0] - 1, X.shape[1])
    assert data.X.nbytes == (X.shape[0] - 1) * 2 * 3 * 8          # 140 SNPs: three words
    assert np.array_equal(np.asarray(data.X), X[pheno != "-9"])
    assert data.names[:2] == ("sid1", "sid2") and data.n_classes == 2
    assert np.array_equal(data.y, pheno[pheno != "-9"].astype(float) - 1)


@pytest.mark.parametrize("estimator", [ReliefF(k=5), MultiSURF(),
                                       ReliefF(k=5, iterations=30, random_state=2), SURF()],
                         ids=["ReliefF", "MultiSURF", "ReliefF-m30", "SURF"])
def test_plink_estimates_equal_those_of_the_same_genotypes_in_memory(bed, estimator):
    path, X, pheno = bed
    got = estimator(read_plink(path))
    want = estimator(in_memory(X, pheno))
    assert np.array_equal(got, want)
    assert np.argmax(got) == 3


def test_missing_calls_are_missing_values(tmp_path):
    X, pheno = genotypes(seed=1)
    values = X.astype(np.float32)
    values[[2, 5, 5], [0, 4, 9]] = np.nan
    path = write_bed(tmp_path / "m.bed", values, pheno)
    data = read_plink(path)
    assert data.X.dtype == np.float32 and np.isnan(data.X).sum() == 3
    want = encode(values.astype(float), pheno.astype(float) - 1, discrete=True, n_values=3,
                  n_classes=2)
    assert np.allclose(ReliefF(k=5)(data), ReliefF(k=5)(want), rtol=0, atol=1e-12)


def test_a_missing_call_after_the_first_blocks_of_snps(tmp_path, monkeypatch):
    # blocks of 64 SNPs: the first two are packed before the missing call is met
    monkeypatch.setattr(readers, "BLOCK_BYTES", 64 * 90)
    X, pheno = genotypes(seed=3)
    values = X.astype(np.float32)
    values[4, 131] = np.nan
    path = write_bed(tmp_path / "late.bed", values, pheno)
    steps = []
    data = read_plink(path, callback=steps.append)
    assert steps == [64 / 140, 128 / 140, 1.0]
    assert data.X.dtype == np.float32
    np.testing.assert_array_equal(data.X, values)                  # NaN where missing
    without = read_plink(write_bed(tmp_path / "full.bed", X, pheno))
    assert isinstance(without.X, PackedColumns)
    np.testing.assert_array_equal(np.asarray(without.X), X)


def test_phenotype_file_column_by_name_and_numeric_target(tmp_path):
    X, pheno = genotypes(seed=2)
    path = write_bed(tmp_path / "q.bed", X, pheno, iid=[f"i{i}" for i in range(len(X))])
    trait = X[:, 5] + 0.25 * X[:, 6]
    lines = ["FID IID status trait"] + [f"0 i{i} 1 {t}" for i, t in enumerate(trait)][::-1]
    (tmp_path / "pheno.tsv").write_text("\n".join(lines) + "\n")
    data = read_plink(path, pheno=str(tmp_path / "pheno.tsv"), column="trait")
    assert data.n_classes == 0 and np.array_equal(data.y, trait)     # matched by identifier
    want = encode(X.astype(float), trait, discrete=True, n_values=3, n_classes=0)
    assert np.array_equal(RReliefF(k=5)(data), RReliefF(k=5)(want))
    with pytest.raises(ValueError, match="no column 'height'"):
        read_plink(path, pheno=str(tmp_path / "pheno.tsv"), column="height")


def bad_plink(tmp_path, case):
    X, pheno = genotypes(n=20, a=30)
    path = write_bed(tmp_path / "b.bed", X, pheno)
    content = (tmp_path / "b.bed").read_bytes()
    if case == "truncated":
        (tmp_path / "b.bed").write_bytes(content[:-7])
    elif case == "magic":
        (tmp_path / "b.bed").write_bytes(b"BED" + content[3:])
    else:
        (tmp_path / f"b.{case}").unlink()
    return path


@pytest.mark.parametrize("case, message", [
    ("truncated", "truncated"), ("magic", "magic bytes"), ("fam", "missing b.fam"),
    ("bim", "missing b.bim")])
def test_unreadable_plink_files_are_refused(tmp_path, case, message):
    with pytest.raises(ValueError, match=message) as error:
        PlinkFiles(bad_plink(tmp_path, case))
    assert str(error.value).startswith("cannot read")


def test_plink_on_dask_equals_one_machine(bed, monkeypatch):
    from orangecontrib.relief.dask import estimate
    from orangecontrib.relief.dask.passes import Passes
    path, X, pheno = bed
    sent = []                       # the sampled instances travel as bit planes
    send = Passes.send_sample
    monkeypatch.setattr(Passes, "send_sample", lambda passes: (
        sent.append(type(passes.sample_rows[0])), send(passes)))
    X_dask, y, n_classes, names = plink_dask(path, partition_rows=25)
    assert X_dask.chunks[0] == (25, 25, 25, 14) and n_classes == 2 and X_dask.dtype == np.int8
    assert np.array_equal(X_dask.compute(scheduler="synchronous"), X[pheno != "-9"])
    for estimator in (ReliefF(k=5, iterations=40, random_state=0),
                      MultiSURF(iterations=40, random_state=0), SURF(iterations=30, random_state=0),
                      MultiSURFstar(iterations=40, random_state=1)):
        got = estimate(estimator, X_dask, y, discrete=True, n_values=3, n_classes=n_classes,
                       cluster_options=dict(processes=False, n_workers=1))
        assert np.allclose(got, estimator(in_memory(X, pheno)), rtol=0, atol=1e-12)
    assert sent and set(sent) == {PackedColumns}


def test_plink_on_dask_with_missing_calls_in_one_partition(tmp_path):
    from orangecontrib.relief.dask import estimate
    X, pheno = genotypes(seed=4)
    values = X.astype(np.float32)
    values[[31, 40], [2, 77]] = np.nan                            # both in the second partition
    X_dask, y, n_classes, _ = plink_dask(write_bed(tmp_path / "m.bed", values, pheno),
                                         partition_rows=30)
    blocks = [b.compute(scheduler="synchronous") for b in X_dask.to_delayed().ravel()]
    assert [b.dtype for b in blocks] == [np.int8, np.float32, np.int8]
    want = encode(values.astype(float), pheno.astype(float) - 1, discrete=True, n_values=3,
                  n_classes=2)
    for estimator in (ReliefF(k=5, iterations=40, random_state=0),
                      MultiSURF(iterations=40, random_state=0)):
        got = estimate(estimator, X_dask, y, discrete=True, n_values=3, n_classes=n_classes,
                       cluster_options=dict(processes=False, n_workers=1))
        assert np.allclose(got, estimator(want), rtol=0, atol=1e-12)


def frame_and_table(n=200, seed=0):
    """A pandas frame (two numbers, a text column, the class as text) and the same values as an
    Orange table built from numpy."""
    import pandas as pd
    rng = np.random.default_rng(seed)
    a, b = rng.random(n), rng.random(n)
    colour = rng.choice(["blue", "green", "red"], n)
    label = np.where((a > 0.5) ^ (b > 0.5), "yes", "no")
    frame = pd.DataFrame({"a": a, "b": b, "colour": colour, "label": label})
    domain = Domain([ContinuousVariable("a"), ContinuousVariable("b"),
                     DiscreteVariable("colour", values=("blue", "green", "red"))],
                    DiscreteVariable("label", values=("no", "yes")))
    codes = np.searchsorted(["blue", "green", "red"], colour)
    table = Table.from_numpy(domain, np.column_stack([a, b, codes]), (label == "yes") * 1.0)
    return frame, table


@pytest.mark.parametrize("folder", [False, True], ids=["file", "folder"])
def test_parquet_file_or_folder_ranks_as_the_same_table_in_memory(tmp_path, folder):
    frame, table = frame_and_table()
    if folder:
        path = tmp_path / "parts"
        path.mkdir()
        for i, lo in enumerate(range(0, len(frame), 70)):
            pq.write_table(pa.Table.from_pandas(frame.iloc[lo:lo + 70]), path / f"{i}.parquet",
                           row_group_size=30)
    else:
        path = tmp_path / "t.parquet"
        pq.write_table(pa.Table.from_pandas(frame), path, row_group_size=50)
    read = read_parquet(path, "label")
    assert [v.name for v in read.domain.attributes] == ["a", "b", "colour"]
    assert read.domain["colour"].is_discrete and read.domain.class_var.values == ("no", "yes")
    assert np.array_equal(scoring.ReliefF(k=10)(read), scoring.ReliefF(k=10)(table))


def test_parquet_on_dask_equals_one_machine(tmp_path):
    from orangecontrib.relief.dask import estimate
    frame, table = frame_and_table()
    numeric = frame[["a", "b"]].assign(label=(frame["label"] == "yes").astype(int))
    pq.write_table(pa.Table.from_pandas(numeric), tmp_path / "n.parquet", row_group_size=60)
    dataframe = parquet_dask(tmp_path / "n.parquet")
    assert dataframe.npartitions == 4                  # a partition per row group
    estimator = ReliefF(k=5, iterations=50, random_state=1)
    got = estimate(estimator, dataframe, "label", n_classes=2,
                   cluster_options=dict(processes=False, n_workers=1))
    want = estimator(encode(numeric[["a", "b"]].to_numpy(), numeric["label"].to_numpy(),
                            n_classes=2))
    assert np.allclose(got, want, rtol=0, atol=1e-12)


def test_not_parquet_and_missing_class_column_are_refused(tmp_path):
    (tmp_path / "fake.parquet").write_bytes(b"PAR1 not really parquet at all")
    with pytest.raises(ValueError, match="cannot read .* as Parquet"):
        read_parquet(tmp_path / "fake.parquet")
    frame, _ = frame_and_table(n=20)
    pq.write_table(pa.Table.from_pandas(frame), tmp_path / "t.parquet")
    with pytest.raises(ValueError, match="no column 'class'.*'label'"):
        read_parquet(tmp_path / "t.parquet", "class")


def test_parquet_with_inf_is_refused(tmp_path):
    frame, _ = frame_and_table(n=20)
    frame.loc[3, "a"] = np.inf
    pq.write_table(pa.Table.from_pandas(frame), tmp_path / "inf.parquet")
    with pytest.raises(ValueError, match="infinite values in 'a'"):
        read_parquet(tmp_path / "inf.parquet", "label")


def test_zero_is_missing_for_case_control_but_a_value_of_a_trait(tmp_path):
    X, _ = genotypes(n=12, a=70, seed=4)
    status = ["1", "2", "0", "2", "1", "-9", "1", "2", "2", "1", "NA", "1"]
    path = write_bed(tmp_path / "cc.bed", X, status)
    rows, y, n_classes = PlinkFiles(path).target()[:3]
    assert rows.tolist() == [0, 1, 3, 4, 6, 7, 8, 9, 11] and n_classes == 2
    assert y.tolist() == [0, 1, 1, 0, 0, 1, 1, 0, 0]
    trait = ["0.5", "0", "-1.25", "3", "0", "-9", "2", "1", "0", "7", "NA", "4"]
    path = write_bed(tmp_path / "qt.bed", X, trait)
    rows, y, n_classes = PlinkFiles(path).target()[:3]
    assert rows.tolist() == [0, 1, 2, 3, 4, 6, 7, 8, 9, 11] and n_classes == 0
    assert y.tolist() == [0.5, 0, -1.25, 3, 0, 2, 1, 0, 7, 4]
