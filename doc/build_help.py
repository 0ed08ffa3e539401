"""Build the HTML help shipped with the widgets (orangecontrib/relief/widgets/help/) from doc/.

    python doc/build_help.py            # rewrites orangecontrib/relief/widgets/help/

Converts doc/index.md, doc/widgets/*.md and every page they link to (scripting.md) to XHTML
pages with the same relative layout (``widgets/x.md`` -> ``widgets/x.html``) and copies the images
they show. Each ``##`` section becomes ``<section id="slug">``, so the index's "Widgets" list is
``.//*[@id='widgets']//li/a``, where orangecanvas's html-index help provider looks up the widget
names. Void elements are self-closed because that provider builds an element tree from the page.

Only the standard library is used, so the converter handles just the Markdown subset of our pages
and raises ``ValueError`` on what it does not support:

- headings: setext (``===``, ``---``) and ATX (``#`` ... ``######``);
- paragraphs; bullet (``-``, ``*``, ``+``) and ordered (``1.``) lists whose items are one
  paragraph (continuation lines indented or lazy; no nested lists or multi-paragraph items);
- fenced code blocks (```` ``` ````), except MyST directives (```` ```{toctree} ````), which only
  the Sphinx documentation renders and the help leaves out;
- pipe tables (header, ``|---|`` separator, rows; ``\\|`` is a literal ``|`` in a cell;
  alignment is ignored);
- inline: code spans, images ``![alt](src)``, links ``[text](href)`` (links to ``.md`` pages
  become ``.html``), ``**bold**``, ``*italic*``.

Not supported: raw HTML, indented code blocks, reference-style links, block quotes.
"""
import html
import posixpath
import re
import shutil
import sys
from pathlib import Path

DOC = Path(__file__).resolve().parent
HELP = DOC.parent / "orangecontrib" / "relief" / "widgets" / "help"
ROOT_PAGES = ("index.md",)
PAGE_GLOBS = ("widgets/*.md",)

STYLE = """body { font-family: sans-serif; max-width: 50em; margin: 1em auto; padding: 0 1em;
       line-height: 1.4; }
img { max-width: 100%; }
pre { background: #f4f4f4; padding: 0.5em; overflow-x: auto; }
code { background: #f4f4f4; }
table { border-collapse: collapse; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.5em; }
.nav { font-size: small; }"""

TEMPLATE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8" />
<title>{title}</title>
<style>
{style}
</style>
</head>
<body>
{nav}{body}
</body>
</html>
"""

ITEM = re.compile(r"^([-*+]|\d+\.)\s+(.*)$")
ATX = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
UNDERLINE = re.compile(r"^(=+|-+)\s*$")
TABLE_SEPARATOR = re.compile(r"^\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
IMAGE = re.compile(r"!\[([^\]]*)\]\(([^)\s]+)\)")
LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)")
BOLD = re.compile(r"\*\*(?!\s)(.+?)(?<!\s)\*\*")
ITALIC = re.compile(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])")
RAW_HTML = re.compile(r"<[a-zA-Z/!]")
URL_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def attribute(value):
    """``value`` escaped for a double-quoted XHTML attribute."""
    return html.escape(value, quote=True)


class Page:
    """One Markdown page converted to XHTML; ``links`` and ``images`` are the relative
    targets (without fragments) it refers to, as written in the Markdown."""

    def __init__(self, text, source):
        self.source = source
        self.links = []
        self.images = []
        self.title = None
        self.body = self._blocks(text.expandtabs(4).splitlines())

    # --- inline ---------------------------------------------------------------------------
    def _href(self, target):
        if URL_SCHEME.match(target) or target.startswith(("#", "/")):
            return target
        path, hash_, fragment = target.partition("#")
        self.links.append(path)
        if path.endswith(".md"):
            path = path[:-3] + ".html"
        return path + hash_ + fragment

    def _src(self, target):
        if not URL_SCHEME.match(target):
            self.images.append(target)
        return target

    def inline(self, text):
        """XHTML of a run of Markdown text: code spans are taken literally, the rest escaped
        and marked up."""
        out = []
        pos = 0
        for match in CODE_SPAN.finditer(text):
            out.append(self._markup(text[pos:match.start()]))
            out.append(f"<code>{html.escape(match.group(2).strip(), quote=False)}</code>")
            pos = match.end()
        out.append(self._markup(text[pos:]))
        return "".join(out)

    def _markup(self, text):
        if RAW_HTML.search(text):
            raise ValueError(f"{self.source}: raw HTML is not supported: {text!r}")
        # escaped first, so the groups below are escaped text: targets are unescaped to paths
        # and escaped again as attributes, labels only need their quotes escaped
        text = html.escape(text, quote=False)
        text = IMAGE.sub(lambda m: f'<img src="{attribute(self._src(html.unescape(m[2])))}" '
                                   f'alt="{m[1].replace(chr(34), "&quot;")}" />', text)
        text = LINK.sub(lambda m: f'<a href="{attribute(self._href(html.unescape(m[2])))}">'
                                  f'{m[1]}</a>', text)
        text = BOLD.sub(r"<strong>\1</strong>", text)
        return ITALIC.sub(r"<em>\1</em>", text)

    # --- blocks ---------------------------------------------------------------------------
    @staticmethod
    def _starts_block(lines, i):
        line = lines[i]
        return bool(ITEM.match(line) or line.startswith(("```", "|")) or ATX.match(line)
                    or (i + 1 < len(lines) and UNDERLINE.match(lines[i + 1])))

    def _blocks(self, lines):
        out = []
        sections = {}
        in_section = False
        i, n = 0, len(lines)
        while i < n:
            line = lines[i]
            if not line.strip():
                i += 1
                continue
            if line.startswith("    "):
                raise ValueError(f"{self.source}:{i + 1}: indented code blocks are not "
                                 f"supported; use a fenced block")
            heading = None
            if i + 1 < n and UNDERLINE.match(lines[i + 1]) and not ITEM.match(line):
                heading = (1 if lines[i + 1].startswith("=") else 2), line.strip()
                i += 2
            elif ATX.match(line):
                marks, text = ATX.match(line).groups()
                heading = len(marks), text
                i += 1
            if heading is not None:
                level, text = heading
                if level == 2:
                    slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "section"
                    sections[slug] = sections.get(slug, 0) + 1
                    if sections[slug] > 1:
                        slug += f"-{sections[slug]}"
                    out.append("</section>" if in_section else None)
                    out.append(f'<section id="{slug}">')
                    in_section = True
                if level == 1 and self.title is None:
                    self.title = text
                out.append(f"<h{level}>{self.inline(text)}</h{level}>")
            elif line.startswith("```"):
                lang = line[3:].strip()
                end = next((j for j in range(i + 1, n) if lines[j].startswith("```")), None)
                if end is None:
                    raise ValueError(f"{self.source}:{i + 1}: unclosed code block")
                if not lang.startswith("{"):      # {toctree}, {include}: for Sphinx only
                    code = html.escape("\n".join(lines[i + 1:end]), quote=False)
                    cls = f' class="language-{html.escape(lang)}"' if lang else ""
                    out.append(f"<pre><code{cls}>{code}</code></pre>")
                i = end + 1
            elif line.startswith("|"):
                i = self._table(lines, i, out)
            elif ITEM.match(line):
                i = self._list(lines, i, out)
            else:
                start = i
                i += 1
                while i < n and lines[i].strip() and not self._starts_block(lines, i):
                    i += 1
                text = " ".join(part.strip() for part in lines[start:i])
                out.append(f"<p>{self.inline(text)}</p>")
        out.append("</section>" if in_section else None)
        return "\n".join(part for part in out if part is not None)

    def _list(self, lines, i, out):
        ordered = ITEM.match(lines[i]).group(1)[0].isdigit()
        tag = "ol" if ordered else "ul"
        items = []
        n = len(lines)
        while i < n:
            match = ITEM.match(lines[i])
            if match is None or match.group(1)[0].isdigit() != ordered:
                break
            parts = [match.group(2)]
            i += 1
            while i < n and lines[i].strip() and not self._starts_block(lines, i):
                if ITEM.match(lines[i].strip()):
                    raise ValueError(f"{self.source}:{i + 1}: nested lists are not supported")
                parts.append(lines[i].strip())
                i += 1
            items.append(f"<li>{self.inline(' '.join(parts))}</li>")
            blank = i
            while i < n and not lines[i].strip():
                i += 1
            if i < n and i > blank and lines[i].startswith(" "):
                raise ValueError(f"{self.source}:{i + 1}: list items of more than one "
                                 f"paragraph are not supported")
            if i > blank and not (i < n and ITEM.match(lines[i])):
                break
        out.append(f"<{tag}>\n" + "\n".join(items) + f"\n</{tag}>")
        return i

    def _table(self, lines, i, out):
        n = len(lines)
        end = i
        while end < n and lines[end].startswith("|"):
            end += 1
        rows = lines[i:end]
        if len(rows) < 2 or not TABLE_SEPARATOR.match(rows[1]):
            raise ValueError(f"{self.source}:{i + 1}: a table needs a header row and a "
                             f"|---| separator row")

        def cells(row):
            row = row.strip().removeprefix("|")
            row = row[:-1] if row.endswith("|") and not row.endswith("\\|") else row
            return [cell.strip().replace("\\|", "|") for cell in re.split(r"(?<!\\)\|", row)]

        head = "".join(f"<th>{self.inline(c)}</th>" for c in cells(rows[0]))
        body = ["<tr>" + "".join(f"<td>{self.inline(c)}</td>" for c in cells(row)) + "</tr>"
                for row in rows[2:]]
        out.append("<table>\n<thead><tr>" + head + "</tr></thead>\n<tbody>\n"
                   + "\n".join(body) + "\n</tbody>\n</table>")
        return end


def render(page, name):
    """The complete XHTML document of ``page`` whose path in the help is ``name``."""
    index = posixpath.relpath("index.html", posixpath.dirname(name) or ".")
    nav = "" if name == "index.html" else \
        f'<p class="nav"><a href="{index}">Orange3-Relief help</a></p>\n'
    title = html.escape(page.title or "Orange3-Relief", quote=False)
    return TEMPLATE.format(title=title, style=STYLE, nav=nav, body=page.body)


def pages_to_build(doc=DOC):
    """Relative POSIX paths of the Markdown pages to convert: the root pages, the widget pages,
    and every page they link to, recursively; with their parsed :class:`Page`."""
    todo = list(ROOT_PAGES) + sorted(p.relative_to(doc).as_posix()
                                     for pattern in PAGE_GLOBS for p in doc.glob(pattern))
    pages = {}
    while todo:
        name = todo.pop(0)
        if name in pages:
            continue
        path = doc / name
        if not path.is_file():
            raise FileNotFoundError(f"{name} is linked but does not exist in {doc}")
        page = pages[name] = Page(path.read_text(encoding="utf-8"), name)
        for link in page.links:
            target = posixpath.normpath(posixpath.join(posixpath.dirname(name), link))
            if target.startswith(".."):
                raise ValueError(f"{name}: link {link!r} leaves {doc}")
            if target.endswith(".md"):
                todo.append(target)
    return pages


def build(out=HELP, doc=DOC):
    """Write the help pages and their images into ``out``, remove any other file there, and
    return the relative paths written (sorted)."""
    out = Path(out)
    written = {}
    for name, page in pages_to_build(doc).items():
        html_name = name[:-3] + ".html"
        written[html_name] = render(page, html_name).encode("utf-8")
        for image in page.images:
            image_name = posixpath.normpath(posixpath.join(posixpath.dirname(name), image))
            written[image_name] = (doc / image_name).read_bytes()
    for name, content in written.items():
        target = out / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content)
    for path in sorted(out.rglob("*"), reverse=True):   # files before their directories
        name = path.relative_to(out).as_posix()
        if path.is_file() and name not in written:
            path.unlink()
        elif path.is_dir() and not any(path.iterdir()):
            shutil.rmtree(path)
    return sorted(written)


if __name__ == "__main__":
    for written_name in build(sys.argv[1] if len(sys.argv) > 1 else HELP):
        print(written_name)
