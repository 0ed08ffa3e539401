"""PLINK users' conventions read as PLINK reads them, on hand-written file sets: covariate files
headerless (PLINK 1.9) and under plink2's headers, ``--covar-name``, the individuals with a
missing covariate (NA, -9), without a line or without a phenotype left out and counted, and the
``.bim`` columns (CHR, SNP, BP, A1) in the results; missing genotype calls told on stderr, or
filled with each SNP's most frequent genotype (``--impute mode``) to keep the packed path."""
import csv
import io
import json

import numpy as np
import pytest

from orangecontrib.relief import cli
from orangecontrib.relief.readers import PlinkFiles, covariate_columns, read_covariates

N, SNPS = 24, 6


def write_bed(folder, genotypes, phenotypes):
    """A .bed/.bim/.fam written by hand: PLINK's magic bytes, SNP-major, four genotypes a byte
    (00 homozygous A1 = 2 copies, 10 heterozygous, 11 homozygous A2 = 0 copies)."""
    codes = {2: 0b00, 1: 0b10, 0: 0b11, -1: 0b01}           # -1: a missing call
    n, a = genotypes.shape
    data = bytearray(b"\x6c\x1b\x01")
    for snp in range(a):
        for start in range(0, n, 4):
            byte = 0
            for k, g in enumerate(genotypes[start:start + 4, snp]):
                byte |= codes[int(g)] << (2 * k)
            data.append(byte)
    (folder / "hand.bed").write_bytes(bytes(data))
    (folder / "hand.bim").write_text("".join(
        f"{1 + s // 3} rs{100 + s} 0 {1000 * (s + 1)} {'ACGT'[s % 4]} {'TGCA'[s % 4]}\n"
        for s in range(a)))
    (folder / "hand.fam").write_text("".join(
        f"fam{i} ind{i} 0 0 1 {p}\n" for i, p in enumerate(phenotypes)))
    return folder / "hand.bed"


@pytest.fixture
def study(tmp_path):
    rng = np.random.default_rng(7)
    genotypes = rng.integers(0, 3, (N, SNPS))
    phenotypes = np.where(genotypes[:, 2] > 0, 2, 1)
    phenotypes[0] = -9                        # a missing phenotype
    return write_bed(tmp_path, genotypes, phenotypes), genotypes


def run(arguments, capsys):
    status = cli.main([str(a) for a in arguments])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_the_hand_written_bed_reads_as_written(study):
    bed, genotypes = study
    files = PlinkFiles(bed)
    assert files.loci()[4] == {"CHR": "2", "SNP": "rs104", "BP": 5000, "A1": "A"}
    data = files.genotypes(files.target())
    np.testing.assert_array_equal(np.asarray(data.X), genotypes[1:])


@pytest.mark.parametrize("form", ["plink1.9", "plink2", "FID IID", "#IID"])
def test_covariate_file_forms(tmp_path, study, form):
    bed, _ = study
    ages = [30 + i for i in range(N)]
    lines = [f"fam{i} ind{i} {ages[i]} {'MF'[i % 2]}" for i in range(N)]
    header = {"plink1.9": [], "plink2": ["#FID IID age sex"], "FID IID": ["FID IID age sex"],
              "#IID": ["#IID age sex"]}[form]
    if form == "#IID":
        lines = [line.split(" ", 1)[1] for line in lines]
    path = tmp_path / "cov.txt"
    path.write_text("\n".join(header + lines) + "\n")
    ids, names, values = covariate_columns(path)
    assert names == (["COV1", "COV2"] if form == "plink1.9" else ["age", "sex"])
    assert values[3].tolist() == ["33", "F"]
    table = read_covariates(path, PlinkFiles(bed), np.arange(1, N))
    assert table.missing == 0 and table.kept.tolist() == list(range(N - 1))
    assert table.covariates.values[:2].tolist() == [[31.0, 0.0], [32.0, 1.0]]   # F=0, M=1
    assert table.covariates.discrete.tolist() == [False, True]


def test_covar_name_chooses_names_and_ranges(tmp_path):
    path = tmp_path / "cov.txt"
    path.write_text("#FID IID age sex PC1 PC2 PC3\nf i 1 2 3 4 5\n")
    assert covariate_columns(path, "PC1-PC3,age")[1] == ["PC1", "PC2", "PC3", "age"]
    assert covariate_columns(path, ["sex", "PC2"])[2].tolist() == [["2", "4"]]
    with pytest.raises(ValueError, match="no column 'PC4'; its columns: age, sex, PC1"):
        covariate_columns(path, "PC4")
    with pytest.raises(ValueError, match="runs backwards"):
        covariate_columns(path, "PC3-PC1")


def test_missing_covariates_leave_individuals_out_and_are_counted(tmp_path, study, capsys):
    bed, _ = study
    lines = []
    for i in range(N):
        if i == 5:
            continue                                    # no line
        sex = "NA" if i == 7 else "-9" if i == 9 else str(1 + i % 2)
        lines.append(f"fam{i} ind{i} {sex}")
    (tmp_path / "cov.txt").write_text("\n".join(lines) + "\n")
    status, out, err = run(["rank", bed, "-e", "NPDR", "--covar", tmp_path / "cov.txt",
                            "-f", "json"], capsys)
    assert status == 0, err
    document = json.loads(out)
    # 24 read; 1 without a phenotype, 3 of the others without a covariate (NA, -9, no line)
    assert document["instances_read"] == N and document["instances"] == N - 4
    assert document["left_out"] == {"missing phenotype": 1, "missing covariate": 3}
    assert "4 of 24 instances left out: 1 with a missing phenotype, 3 with a missing " \
           "covariate" in err
    status, out, _ = run(["rank", bed, "-e", "NPDR", "--covar", tmp_path / "cov.txt", "-q"],
                         capsys)
    assert "20 of 24 instances (left out: 1 with a missing phenotype, 3 with a missing " \
           "covariate)" in out.splitlines()[0]


def test_individuals_missing_from_a_phenotype_file_are_left_out(tmp_path, study, capsys):
    bed, genotypes = study
    (tmp_path / "pheno.txt").write_text("".join(
        f"fam{i} ind{i} {1 + int(genotypes[i, 2] > 0)}\n" for i in range(N) if i % 6))
    status, out, err = run(["pairs", bed, "--pheno", tmp_path / "pheno.txt", "-a",
                            "rs101,rs102", "-r", "20", "-s", "0", "-f", "json"], capsys)
    assert status == 0, err
    document = json.loads(out)
    assert document["instances"] == N - 4 and document["left_out"] == {"missing phenotype": 4}


def test_bim_columns_in_rank_and_pairs(study, capsys):
    bed, _ = study
    status, out, err = run(["rank", bed, "-q", "-f", "csv"], capsys)
    assert status == 0, err
    rows = list(csv.DictReader(io.StringIO(out)))
    assert list(rows[0]) == ["rank", "CHR", "SNP", "BP", "A1", "score"]
    assert rows[0]["SNP"] == "rs102"                    # the phenotype follows SNP 2
    by_snp = {row["SNP"]: row for row in rows}
    assert [by_snp["rs104"][key] for key in ("CHR", "BP", "A1")] == ["2", "5000", "A"]
    status, out, _ = run(["rank", bed, "-q", "-f", "json", "--top", "1"], capsys)
    best = json.loads(out)["ranking"][0]
    assert best == dict(best, attribute="rs102", CHR="1", SNP="rs102", BP=3000, A1="G")
    status, out, _ = run(["rank", bed, "-q", "--top", "1"], capsys)
    assert out.splitlines()[1].split() == ["rank", "CHR", "SNP", "BP", "A1", "score"]
    assert out.splitlines()[2].split()[:5] == ["1", "1", "rs102", "3000", "G"]
    status, out, err = run(["pairs", bed, "-a", "rs100,rs104", "-r", "20", "-s", "0", "-q",
                            "-f", "json"], capsys)
    assert status == 0, err
    pair = json.loads(out)["pairs"][0]
    assert (pair["CHR_1"], pair["BP_1"], pair["A1_1"], pair["CHR_2"], pair["BP_2"],
            pair["A1_2"]) == ("1", 1000, "A", "2", 5000, "A")


def test_missing_calls_are_told_or_imputed_and_stay_packed(tmp_path, capsys):
    from orangecontrib.relief.estimators.neighbourhood.packed import PackedColumns
    genotypes = np.array([[0, 2, 1], [1, 2, 1], [1, 0, 1], [-1, 2, -1], [2, -1, -1],
                          [1, 2, 0], [0, 1, 2], [-1, 0, 0]])
    bed = write_bed(tmp_path, genotypes, [1, 2, 1, 2, 1, 2, 1, 2])
    files = PlinkFiles(bed)
    as_read = files.genotypes(files.target())
    assert files.missing_calls == 5 and not isinstance(as_read.X, PackedColumns)
    assert np.isnan(np.asarray(as_read.X)).sum() == 5
    filled = files.genotypes(files.target(), impute="mode")
    assert isinstance(filled.X, PackedColumns)
    # by hand: SNP 0's calls 0,1,1,2,1,0 -> 1; SNP 1's 2,2,0,2,1,0 -> 2; SNP 2's 1,1,1,0,2,0
    # -> 1 (three 1s against two 0s)
    want = genotypes.copy()
    want[[3, 7], 0] = 1
    want[4, 1] = 2
    want[[3, 4], 2] = 1
    np.testing.assert_array_equal(np.asarray(filled.X), want)
    status, _, err = run(["rank", bed], capsys)
    assert status == 0 and "5 genotype calls are missing (21 %)" in err and "--impute mode" \
        in err
    status, _, err = run(["rank", bed, "--impute", "mode"], capsys)
    assert status == 0 and "5 missing genotype calls filled" in err
    status, _, err = run(["rank", "iris", "--impute", "mode"], capsys)
    assert status == 2 and "--impute fills the missing calls of PLINK" in err
    status, _, err = run(["rank", bed, "--dask", "--iterations", "4", "--impute", "mode"],
                         capsys)
    assert status == 2 and "not of --dask partitions" in err
