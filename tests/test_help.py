"""The widget help shipped in orangecontrib/relief/widgets/help/: it is the current build of the
Markdown in doc/ (doc/build_help.py), the canvas's help manager finds a page for every widget of
the Relief category through our ``orange.canvas.help`` entry point, and every link and image of
the pages exists. Plus the Markdown converter on tiny hand-checked inputs."""
import importlib.util
import os
import posixpath
import re
import unittest
from html.parser import HTMLParser
from pathlib import Path
from tempfile import TemporaryDirectory
from urllib.parse import urlsplit

from orangecanvas.help.manager import HelpManager

import orangecontrib.relief.widgets
from test_discovery import relief_registry

ROOT = Path(__file__).resolve().parent.parent
# the help of the package under test (the source tree's, or the installed one's)
HELP = Path(orangecontrib.relief.widgets.__file__).resolve().parent / "help"


def load_build_help():
    spec = importlib.util.spec_from_file_location("build_help", ROOT / "doc" / "build_help.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


build_help = load_build_help()


class References(HTMLParser):
    """Local targets of ``<a href>`` and ``<img src>`` and the text of ``<h1>``."""

    def __init__(self):
        super().__init__()
        self.hrefs, self.srcs, self.h1 = [], [], ""
        self._in_h1 = False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self._in_h1 = tag == "h1"
        if tag == "a" and not urlsplit(attrs["href"]).scheme:
            self.hrefs.append(attrs["href"])
        if tag == "img":
            self.srcs.append(attrs["src"])

    def handle_endtag(self, tag):
        self._in_h1 = False

    def handle_data(self, data):
        if self._in_h1:
            self.h1 += data


def references(path):
    parser = References()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


def files_under(directory):
    return {p.relative_to(directory).as_posix(): p.read_bytes()
            for p in directory.rglob("*") if p.is_file()}


class TestShippedHelp(unittest.TestCase):
    def test_committed_help_is_exactly_the_build_of_the_markdown(self):
        with TemporaryDirectory() as out:
            written = build_help.build(out)
            built = files_under(Path(out))
        self.assertEqual(sorted(built), written)
        shipped = files_under(HELP)
        self.assertEqual(sorted(shipped), sorted(built),
                         "help/ is stale: run python doc/build_help.py")
        for name, content in built.items():
            self.assertEqual(shipped[name], content,
                             f"help/{name} is stale: run python doc/build_help.py")

    def test_help_manager_maps_every_relief_widget_to_its_page(self):
        registry = relief_registry()
        widgets = registry.widgets("Relief")
        self.assertEqual(len(widgets), 5)
        manager = HelpManager()
        manager.set_registry(registry)
        for desc in widgets:
            url = manager.search({"id": desc.qualified_name})
            self.assertTrue(url.isLocalFile(), (desc.name, url))
            page = Path(url.toLocalFile())
            self.assertTrue(page.is_file(), (desc.name, page))
            self.assertEqual(page.parent, HELP / "widgets")
            self.assertEqual(references(page).h1, desc.name)

    def test_index_lists_exactly_the_five_widget_names_under_id_widgets(self):
        text = (HELP / "index.html").read_text(encoding="utf-8")
        section = re.search(r'<section id="widgets">(.*?)</section>', text, re.S).group(1)
        names = re.findall(r'<li><a href="[^"]+">([^<]+)</a></li>', section)
        self.assertEqual(sorted(names), ["Attribute Estimation", "Interacting Pairs",
                                         "Locality Profile", "Oblivious Tree", "Relief Tree"])

    def test_every_link_and_image_of_the_pages_exists(self):
        pages = sorted(HELP.rglob("*.html"))
        self.assertEqual(len(pages), 17)   # index, five widgets, eleven scripting pages
        images = 0
        for page in pages:
            refs = references(page)
            images += len(refs.srcs)
            for target in refs.hrefs + refs.srcs:
                path = urlsplit(target).path
                if path:
                    self.assertTrue((page.parent / path).is_file(), (page.name, target))
        # every screenshot of doc/widget_screenshots.py is shown in a page
        shots = sorted((ROOT / "doc" / "widgets" / "images").glob("*.png"))
        self.assertEqual(len(shots), 22)
        self.assertEqual(images, len(shots))

    def test_widget_help_path_is_the_shipped_index(self):
        from orangecontrib.relief.widgets import WIDGET_HELP_PATH
        (location, xpath), = WIDGET_HELP_PATH
        self.assertEqual(os.path.realpath(location), os.path.realpath(HELP / "index.html"))
        self.assertIsNone(xpath)


class TestMarkdownConverter(unittest.TestCase):
    def test_setext_and_atx_headings_sections_and_paragraph_joining(self):
        page = build_help.Page("Title\n=====\n\nOne\ntwo.\n\nPart A\n------\ntext\n\n"
                               "## Part A\n### Sub\n", "t.md")
        self.assertEqual(page.title, "Title")
        self.assertEqual(page.body.splitlines(), [
            "<h1>Title</h1>", "<p>One two.</p>",
            '<section id="part-a">', "<h2>Part A</h2>", "<p>text</p>",
            "</section>", '<section id="part-a-2">', "<h2>Part A</h2>", "<h3>Sub</h3>",
            "</section>"])

    def test_lists_after_a_paragraph_with_indented_and_lazy_continuation(self):
        page = build_help.Page("**In**\n- a\n  b\nc\n- d\n\n1. x\n2. y\n\npara", "t.md")
        self.assertEqual(page.body.splitlines(), [
            "<p><strong>In</strong></p>", "<ul>", "<li>a b c</li>", "<li>d</li>", "</ul>",
            "<ol>", "<li>x</li>", "<li>y</li>", "</ol>", "<p>para</p>"])

    def test_inline_markup_escapes_text_but_not_code_spans_twice(self):
        page = build_help.Page("A & *b* `x < *y*` [see](w/p.md#s) ![i \"q\"](img/a.png) "
                               "[ext](https://e.org/a.md) k < 5", "t.md")
        self.assertEqual(page.body, '<p>A &amp; <em>b</em> <code>x &lt; *y*</code> '
                                    '<a href="w/p.html#s">see</a> '
                                    '<img src="img/a.png" alt="i &quot;q&quot;" /> '
                                    '<a href="https://e.org/a.md">ext</a> k &lt; 5</p>')
        self.assertEqual(page.links, ["w/p.md"])
        self.assertEqual(page.images, ["img/a.png"])

    def test_fenced_code_and_table(self):
        page = build_help.Page("```python\nif a < b:\n    c()\n```\n\n| x | `y` |\n|---|:-:|\n"
                               "| 1 | 2 |\n", "t.md")
        self.assertEqual(page.body.splitlines(), [
            '<pre><code class="language-python">if a &lt; b:', "    c()</code></pre>",
            "<table>", "<thead><tr><th>x</th><th><code>y</code></th></tr></thead>", "<tbody>",
            "<tr><td>1</td><td>2</td></tr>", "</tbody>", "</table>"])


    def test_sphinx_directives_are_left_out_and_escaped_pipes_stay_in_their_cell(self):
        page = build_help.Page("a\n\n```{toctree}\n:hidden:\n\nscripting\n```\n\n"
                               "| P(v \\| c) | 2 |\n|---|---|\n| \\|V\\| | x |\n", "t.md")
        self.assertEqual(page.body.splitlines(), [
            "<p>a</p>", "<table>", "<thead><tr><th>P(v | c)</th><th>2</th></tr></thead>",
            "<tbody>", "<tr><td>|V|</td><td>x</td></tr>", "</tbody>", "</table>"])
    def test_unsupported_markdown_is_an_error_not_wrong_html(self):
        for text in ("- a\n  - nested\n", "- a\n\n  second paragraph\n", "    code\n",
                     "<div>x</div>\n", "```\nunclosed\n", "| a |\n| b |\n"):
            with self.assertRaises(ValueError, msg=text):
                build_help.Page(text, "t.md")

    def test_page_paths_keep_the_layout_and_link_to_the_index(self):
        with TemporaryDirectory() as tmp:
            doc = Path(tmp)
            (doc / "widgets" / "images").mkdir(parents=True)
            (doc / "index.md").write_text("Help\n====\n\n## Widgets\n- [W](widgets/w.md)\n")
            (doc / "widgets" / "w.md").write_text("W\n=\n![s](images/s.png) [i](../x.md)\n")
            (doc / "widgets" / "images" / "s.png").write_bytes(b"png")
            (doc / "x.md").write_text("X\n=\n")
            out = doc / "out"
            (out / "stale").mkdir(parents=True)
            (out / "stale" / "old.html").write_text("old")
            written = build_help.build(out, doc)
            self.assertEqual(written, ["index.html", "widgets/images/s.png", "widgets/w.html",
                                       "x.html"])
            self.assertEqual(sorted(files_under(out)), written)
            self.assertFalse((out / "stale").exists())
            refs = references(out / "widgets" / "w.html")
            self.assertEqual(refs.hrefs, ["../index.html", "../x.html"])
            self.assertEqual(posixpath.normpath(posixpath.join("widgets", refs.srcs[0])),
                             "widgets/images/s.png")
