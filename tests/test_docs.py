"""The documentation: the Sphinx build (Markdown pages and the API reference from the docstrings)
succeeds without a warning, every page of doc/ is reachable from the index, and no user-facing
text refers to files or a process users do not have."""
import pkgutil
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "doc"

#: references to the developers' own notes, paper files and work items, which users do not have
#: the developers' note files, named from parts so that this file does not spell them out
NOTE_FILES = ["".join(parts) for parts in (("REFER", "ENCE.md"), ("DES", "IGN.md"),
                                            ("ORANGE-", "INTEGRATION"), ("orange", "-notes"))]
INTERNAL = re.compile("|".join(re.escape(name) for name in NOTE_FILES)
                      + r"|shared/|\b[Ii]ssues? #?[0-9]|[a-z]-[0-9]{4}\.txt|\.txt\b"
                      r"|\b[Ss]ession \d|this session|[Ss]ession-\d")
AUTOMODULE = re.compile(r"^\.\. automodule:: (\S+)", re.MULTILINE)
TOCTREE = re.compile(r"^```\{toctree\}\n(.*?)^```", re.DOTALL | re.MULTILINE)
MD_LINK = re.compile(r"\]\(([^)#\s]+\.md)(?:#[^)]*)?\)")


def user_facing_files():
    """README, changelog, contributing guide, doc/ and the package (code, help, workflows)."""
    files = [ROOT / "README.md", ROOT / "CHANGELOG.md", ROOT / "CONTRIBUTING.md",
             ROOT / "setup.py"]
    files += [p for p in DOC.rglob("*") if p.suffix in (".md", ".py")]
    files += [p for p in (ROOT / "orangecontrib").rglob("*")
              if p.suffix in (".py", ".html", ".md", ".ows")]
    return sorted(files)


def internal_references(text):
    """``(line number, line)`` of every line of ``text`` with an internal reference."""
    return [(number, line.strip()) for number, line in enumerate(text.splitlines(), 1)
            if INTERNAL.search(line)]


def test_internal_reference_pattern():
    notes = [f"see {NOTE_FILES[0]}", f"{NOTE_FILES[1]}, 'Trees'"]
    for text in notes + ["kononenko-" + "relieff-1994.txt §2", "(issue 2)",
                         "the sizes of Issue 14", "in session 2", "/".join(("", "shared", "papers")),
                         "notes.txt"]:
        assert internal_references(text), text
    for text in ("Kononenko 1994, §2", "reads data.csv or data.tab", "session_state",
                 "an issue with 3 classes"):
        assert not internal_references(text), text


def test_no_internal_references_in_user_facing_text():
    hits = [f"{path.relative_to(ROOT)}:{number}: {line}"
            for path in user_facing_files()
            for number, line in internal_references(path.read_text(encoding="utf-8"))]
    assert not hits, "\n".join(hits)


def reachable_pages():
    """The pages of doc/ reachable from index.md through toctrees and Markdown links."""
    todo, seen = ["index.md"], set()
    while todo:
        name = todo.pop()
        if name in seen or not (DOC / name).is_file():
            continue
        seen.add(name)
        text = (DOC / name).read_text(encoding="utf-8")
        base = Path(name).parent
        for block in TOCTREE.findall(text):
            todo += [(base / entry.strip()).as_posix() + ".md" for entry in block.splitlines()
                     if entry.strip() and not entry.startswith(":")]
        todo += [(base / link).as_posix() for link in MD_LINK.findall(text)]
    return seen


def test_every_page_is_reachable_from_the_index():
    pages = {p.relative_to(DOC).as_posix() for p in DOC.rglob("*.md")}
    assert {"index.md", "scripting.md", "api/index.md", "changelog.md"} <= pages
    assert pages - reachable_pages() == set()


def test_every_api_module_is_in_the_api_reference():
    """Each module of the scripting API (all but the widgets and the command line) has an
    ``automodule`` directive in a page of doc/api/."""
    import orangecontrib.relief     # pylint: disable=import-outside-toplevel
    package = orangecontrib.relief
    modules = {package.__name__} | {
        info.name for info in pkgutil.walk_packages(package.__path__, package.__name__ + ".")}
    modules = {name for name in modules
               if not name.startswith(("orangecontrib.relief.widgets",
                                       "orangecontrib.relief.workflows"))
               and name != "orangecontrib.relief.cli"}
    documented = {name for page in (DOC / "api").glob("*.md")
                  for name in AUTOMODULE.findall(page.read_text(encoding="utf-8"))}
    missing = sorted(modules - documented)
    assert not missing, ("add an automodule block for each of these to a page of doc/api/ "
                         f"(e.g. doc/api/estimators.md): {missing}")


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_sphinx_builds_without_warnings(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
         "-d", str(tmp_path / "doctrees"), str(DOC), str(tmp_path / "html")],
        capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stderr
    html = tmp_path / "html"
    assert (html / "index.html").is_file()
    api = (html / "api" / "estimators.html").read_text(encoding="utf-8")
    # autodoc rendered the classes (not just the directive's text)
    assert 'id="orangecontrib.relief.estimators.relieff.ReliefF"' in api
    scoring = (html / "api" / "relief.html").read_text(encoding="utf-8")
    assert 'id="orangecontrib.relief.scoring.ReliefF"' in scoring
