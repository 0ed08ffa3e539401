"""A new user's first run of each documented command and example: each in a new process with an
empty kernel cache (``NUMBA_CACHE_DIR`` a new directory: numba then neither reads nor writes
the cache next to the package's sources) and the default kernel mode, in which the first
results come from the kernels' numpy equivalents while low-priority background processes
compile the kernels. Each run must give its result and no traceback.

The background compiles a run starts outlive it (in use they go on filling the cache for the
next session); here they would only load the machine and slow the runs after them, so each run's are
ended, found by their cache directory, as soon as the run has ended."""
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import psutil
import pytest

from checkout import ROOT, environment

SCRIPT = Path(sys.executable).parent / "orange-relief"
#: a cold run compiles nothing it can leave to the background, but a kernel the numpy
#: equivalents do not cover compiles in the run: generous on a loaded machine
TIMEOUT = 900
#: a ```python block of a Markdown page (as tests/test_doc_examples.py finds them)
BLOCK = re.compile(r"^```python[ \t]*\n(.*?)^```[ \t]*$", re.DOTALL | re.MULTILINE)


def end_background_compiles(cache):
    """End the background compiles that write into ``cache``; return how many there were."""
    mine = []
    for process in psutil.process_iter(["cmdline"]):
        try:
            if "orangecontrib.relief.compilation" in (process.info["cmdline"] or []) \
                    and process.environ().get("NUMBA_CACHE_DIR") == str(cache):
                mine.append(process)
        except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
            pass
    for process in mine:
        try:
            process.terminate()
        except psutil.NoSuchProcess:
            pass
    _, alive = psutil.wait_procs(mine, timeout=10)
    for process in alive:
        process.kill()
    return len(mine)


@pytest.fixture
def cold(tmp_path):
    """``run(*command)``: the finished process of ``command`` run cold in ``tmp_path`` (a new
    cache each run), checked for exit status 0 and no traceback."""
    caches = []

    def run(*command):
        cache = tmp_path / f"numba-cache-{len(caches)}"
        cache.mkdir()
        caches.append(cache)
        env = environment(NUMBA_CACHE_DIR=str(cache), QT_QPA_PLATFORM="offscreen")
        env.pop("ORANGE_RELIEF_KERNELS", None)           # the default mode
        try:
            result = subprocess.run([str(part) for part in command], cwd=tmp_path, env=env,
                                    capture_output=True, text=True, timeout=TIMEOUT)
        finally:
            # its background compiles would only slow the runs after it
            end_background_compiles(cache)
        assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
        return result

    yield run
    for cache in caches:
        end_background_compiles(cache)


def python(code):
    """The command that runs ``code`` (dedented) in a new Python process."""
    return [sys.executable, "-c", textwrap.dedent(code)]


def ranking(stdout):
    """The attribute names of an ``orange-relief rank`` table, best first (for PLINK data,
    whose rows are rank, CHR, SNP, BP, A1 and score, the SNPs)."""
    plink = re.search(r"^rank\s+CHR\s+SNP\s+BP\s+A1\s+score", stdout, re.MULTILINE)
    rows = [re.match(r"\s*\d+\s+(\S.*?)\s+-?\d+\.\d+\s*$", line) for line in stdout.splitlines()]
    return [row.group(1).split()[1] if plink else row.group(1) for row in rows if row]


def test_the_readme_first_command(cold):
    # the first command of the README: install, then the command after the last "&&"
    block = re.search(r"^```\n(.*?)^```", (ROOT / "README.md").read_text(encoding="utf-8"),
                      re.MULTILINE | re.DOTALL).group(1)
    command = block.strip().split("&&")[-1].split()
    assert command[:2] == ["orange-relief", "rank"]
    out = cold(SCRIPT, *command[1:]).stdout
    assert out.splitlines()[0].startswith("ReliefF() on heart_disease: 303 instances, "
                                          "13 attributes")
    assert len(ranking(out)) == 13


def page_examples(page):
    """The command that runs the ```python blocks of ``page`` in order, in one namespace (as
    tests/test_doc_examples.py runs them warm), in the current folder."""
    return python(f"""
        import re
        namespace = {{"__name__": "__main__"}}
        with open({str(page)!r}, encoding="utf-8") as file:
            blocks = re.findall({BLOCK.pattern!r}, file.read(), {BLOCK.flags})
        for number, block in enumerate(blocks, 1):
            exec(compile(block, f"{page.name}, example {{number}}", "exec"), namespace)
    """)


def test_the_examples_of_the_large_data_page(cold, tmp_path):
    page = ROOT / "doc" / "large-data.md"
    text = page.read_text(encoding="utf-8")
    assert len(BLOCK.findall(text)) >= 8
    out = cold(*page_examples(page)).stdout
    # what the page's comments say the prints show
    for shown in ("True [0, 1]", "0 True", "0 0", "int8 (200, 500) 25600", "sid8", "sid4",
                  "[1 4]"):
        assert shown in out, (shown, out)
    # its shell commands, as written, on the files its examples wrote into this folder
    commands = [line.split("#")[0].split() for block in
                re.findall(r"^```sh\n(.*?)^```", text, re.MULTILINE | re.DOTALL)
                for line in block.splitlines() if line.startswith("orange-relief ")]
    assert len(commands) >= 7
    outs = {" ".join(command): cold(SCRIPT, *command[1:]) for command in commands}
    for command, result in outs.items():
        assert "INFO" not in result.stderr, command
        if "table.parquet" in command:
            assert sorted(ranking(result.stdout)[:2]) == ["a", "b"], command
        elif "--output" not in command and "traits.pheno" not in command:
            assert ranking(result.stdout)[0] == "sid8", command
    assert ranking(outs["orange-relief rank small.bed --pheno traits.pheno --class height"]
                   .stdout)[0] == "sid4"
    best = (tmp_path / "scores.csv").read_text().splitlines()[1].split(",")
    assert best[:3] == ["1", "0", "sid8"]               # rank, CHR, SNP


def test_the_genetics_page(cold, tmp_path):
    # its Python examples (a tiny study written with bed-reader, ranked, tested with
    # covariates, its pairs, on Dask), then its shell commands on the same study written into
    # this folder, each a new process with an empty cache
    page = ROOT / "doc" / "genetics.md"
    text = page.read_text(encoding="utf-8")
    assert len(BLOCK.findall(text)) >= 5
    cold(*page_examples(page))
    first = BLOCK.findall(text)[0].replace("folder = tempfile.mkdtemp()", "folder = '.'")
    cold(*python(first))
    commands = re.search(r"^```text\n(.*?)^```", text, re.MULTILINE | re.DOTALL).group(1)
    outs = [cold(SCRIPT, *line.split()[1:]).stdout for line in commands.splitlines()
            if line.startswith("orange-relief ")]
    assert len(outs) == 3
    # the study's phenotype is the parity of rs3's and rs7's heterozygosity
    assert sorted(ranking(outs[0])[:2]) == ["rs3", "rs7"]
    assert outs[1].splitlines()[2].split()[1:3] == ["rs3", "rs7"]
    assert outs[2].splitlines()[1].startswith("1,rs3,rs7,")


@pytest.fixture
def files(tmp_path):
    """A PLINK .bed (with .bim and .fam) whose case/control status follows SNP 8, and the
    same table of two attributes a, b whose XOR is the class and one of noise, as Parquet and
    as CSV."""
    from bed_reader import to_bed
    import pyarrow as pa
    import pyarrow.parquet as pq
    rng = np.random.default_rng(0)
    genotypes = rng.integers(0, 3, size=(200, 500)).astype(np.int8)
    status = np.where(genotypes[:, 7] > 0, "2", "1")
    to_bed(tmp_path / "small.bed", genotypes, properties={"pheno": list(status)})
    a, b = rng.random(300), rng.random(300)
    label = np.where((a > 0.5) ^ (b > 0.5), "yes", "no")
    table = pa.table({"a": a, "b": b, "noise": rng.random(300), "label": label})
    pq.write_table(table, tmp_path / "table.parquet", row_group_size=100)
    with open(tmp_path / "table.csv", "w", encoding="utf-8") as file:
        file.write("a,b,noise,label\n")
        for row in zip(a, b, table["noise"].to_numpy(), label):
            file.write(",".join(map(str, row)) + "\n")
    return tmp_path


def test_rank_a_plink_file(cold, files):
    assert ranking(cold(SCRIPT, "rank", files / "small.bed", "--top", "5").stdout)[0] == "sid8"


@pytest.mark.parametrize("name", ["table.parquet", "table.csv"])
def test_rank_a_table(cold, files, name):
    out = cold(SCRIPT, "rank", files / name, "--class", "label").stdout
    assert sorted(ranking(out)[:2]) == ["a", "b"]


def test_a_scikit_learn_fit(cold):
    out = cold(*python("""
        import numpy as np
        from orangecontrib.relief.sklearn import ReliefF
        rng = np.random.default_rng(0)
        X = rng.random((300, 6))
        y = ((X[:, 1] > 0.5) ^ (X[:, 4] > 0.5)).astype(int)
        selector = ReliefF(k=10, n_features_to_select=2).fit(X, y)
        print(selector.get_support().nonzero()[0].tolist())
        import os
        from orangecontrib.relief.compilation import cache_dir
        print(cache_dir() == os.environ["NUMBA_CACHE_DIR"])     # not the one by the sources
    """)).stdout
    assert out.split("\n")[-3:-1] == ["[1, 4]", "True"]


def test_the_attribute_estimation_widget(cold):
    out = cold(*python("""
        import unittest
        from Orange.widgets.tests.base import WidgetTest
        from orangecontrib.relief.datasets import parity
        from orangecontrib.relief.widgets.owattributeestimation import OWAttributeEstimation

        class FirstUse(WidgetTest):
            def test_scores(self):
                widget = self.create_widget(OWAttributeEstimation)
                self.send_signal(widget.Inputs.data, parity(order=2, n_irrelevant=10,
                                                            n_instances=200), widget=widget)
                self.wait_until_finished(widget=widget, timeout=600000)
                scores = self.get_output(widget.Outputs.scores, widget=widget)
                best = sorted(zip(scores.X[:, 0], scores.metas[:, 0]), reverse=True)
                print("best:", sorted(name for _, name in best[:2]))
                self.assertEqual([], list(widget.Error.active))

        result = unittest.TextTestRunner().run(unittest.TestSuite([FirstUse("test_scores")]))
        raise SystemExit(not result.wasSuccessful())
    """))
    assert "best: ['I1', 'I2']" in out.stdout
