"""A PLINK user's commands from an empty kernel cache, each a new process (as
tests/test_cold_start.py runs them): options checked before the genotypes are read, one-line
usage errors, more iterations than individuals, Dask without the cluster's information messages
(the large-data page's shell commands run in tests/test_cold_start.py)."""
import re
import subprocess

import pytest

import test_cold_start as cold_start
from checkout import environment

SCRIPT, BLOCK = cold_start.SCRIPT, cold_start.BLOCK
cold = cold_start.cold
files = cold_start.files
ranking = cold_start.ranking


def refused(tmp_path, *arguments):
    """The stderr lines of ``orange-relief`` with ``arguments`` (in ``tmp_path``, an empty
    cache), which must exit with status 2."""
    cache = tmp_path / "numba-cache"
    cache.mkdir(exist_ok=True)
    env = environment(NUMBA_CACHE_DIR=str(cache))
    result = subprocess.run([str(SCRIPT), *map(str, arguments)], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 2, result.stderr
    assert result.stdout == ""
    return result.stderr.splitlines()


@pytest.mark.parametrize("arguments, message", [
    (["-e", "ReliefFF"], "unknown estimator 'ReliefFF'"),
    (["-e", "NPDR", "--dask", "-m", "10"], "estimator NPDR has no Dask path"),
    (["-p", "kk=3"], "does not take --param kk"),
    (["-e", "MultiSURF", "-k", "10"], "estimator MultiSURF does not take --k"),
    (["-p", "k=0"], "k must be None or an integer >= 1"),
])
def test_options_are_checked_before_the_genotypes_are_read(tmp_path, arguments, message):
    # a .bed file whose size does not match: reading it would be refused; the options are
    # refused first, in one line
    (tmp_path / "study.bed").write_bytes(b"\x6c\x1b\x01" + bytes(10))
    (tmp_path / "study.bim").write_text("1 rs1 0 1 A G\n")
    (tmp_path / "study.fam").write_text("f1 i1 0 0 1 2\n")
    lines = refused(tmp_path, "rank", tmp_path / "study.bed", *arguments)
    assert len(lines) == 1 and message in lines[0], lines
    assert "reading" not in lines[0]


@pytest.mark.parametrize("arguments", [["--top", "-1"], ["--top", "x"], ["--nonsense"]])
def test_a_usage_error_is_one_line(tmp_path, arguments):
    lines = refused(tmp_path, "rank", "iris", *arguments)
    assert len(lines) == 1 and re.match(r"orange-relief( rank)?: error: ", lines[0]), lines


def test_more_iterations_than_individuals_on_dask(cold, files):
    result = cold(SCRIPT, "rank", files / "small.bed", "--dask", "-m", "1000", "-s", "1",
                  "--top", "3")
    assert ranking(result.stdout)[0] == "sid8"
    assert result.stdout.startswith("ReliefF(iterations=200, random_state=1) on small.bed: "
                                    "200 instances")
    assert ("--iterations 1000 is more than the 200 instances: each instance is sampled once "
            "(m = 200)") in result.stderr
    assert "INFO" not in result.stderr
