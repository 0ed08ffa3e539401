"""Every ```python example of README.md and doc/ runs as written: the blocks of one page are
executed in order in one namespace, as a user pasting them into one Python session would. The
``>>>`` examples of the docstrings of the scripting API (every module but the widgets) pass as
doctests."""
import doctest
import importlib
import pkgutil
import re
from pathlib import Path

import pytest

import orangecontrib.relief

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted([ROOT / "README.md", *(ROOT / "doc").rglob("*.md")])
BLOCK = re.compile(r"^```python[ \t]*\n(.*?)^```[ \t]*$", re.DOTALL | re.MULTILINE)


def python_blocks(text):
    """The contents of the ```python fenced blocks of a Markdown text, in order."""
    return BLOCK.findall(text)


def pages_with_examples():
    return [page for page in PAGES if python_blocks(page.read_text(encoding="utf-8"))]


def test_block_extraction():
    text = ("intro\n```python\na = 1\n```\ntext\n```\nnot python\n```\n"
            "```python\nb = a + 1\n```\n")
    assert python_blocks(text) == ["a = 1\n", "b = a + 1\n"]


def test_pages_found():
    names = {page.relative_to(ROOT).as_posix() for page in pages_with_examples()}
    assert {"README.md", "doc/scripting.md", "doc/trees.md"} <= names


@pytest.mark.parametrize("page", pages_with_examples(),
                         ids=lambda page: page.relative_to(ROOT).as_posix())
def test_examples_run(page, monkeypatch, tmp_path, capsys):
    monkeypatch.chdir(tmp_path)                 # examples that write files write them here
    namespace = {"__name__": "__main__"}
    for number, block in enumerate(python_blocks(page.read_text(encoding="utf-8")), 1):
        code = compile(block, f"{page.name}, example {number}", "exec")
        exec(code, namespace)                   # pylint: disable=exec-used


def api_modules():
    """Names of the modules of the scripting API: the package and its modules, widgets excluded."""
    package = orangecontrib.relief
    names = [package.__name__] + [
        info.name for info in pkgutil.walk_packages(package.__path__, package.__name__ + ".")]
    return [name for name in names if not name.startswith(package.__name__ + ".widgets")]


def test_api_modules_found():
    names = api_modules()
    assert {"orangecontrib.relief", "orangecontrib.relief.estimators.relieff",
            "orangecontrib.relief.tree.induction", "orangecontrib.relief.datasets"} <= set(names)


def test_public_api_has_docstring_examples():
    examples = sum(len(test.examples)
                   for name in ("orangecontrib.relief", "orangecontrib.relief.estimators.encoding",
                                "orangecontrib.relief.estimators.threshold")
                   for test in doctest.DocTestFinder().find(importlib.import_module(name)))
    assert examples >= 10


@pytest.mark.parametrize("name", api_modules())
def test_docstring_examples(name):
    module = importlib.import_module(name)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in doctest.DocTestFinder().find(module):
        runner.run(test)
    assert runner.failures == 0, f"{runner.failures} failing docstring example(s) in {name}"
