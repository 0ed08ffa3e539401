"""The package's modules import one another without circles and in layers. The import graph is
derived from the sources: every ``import`` statement of every module, those inside functions
too, relative ones resolved; so a new module or import is checked without editing this file
(imports by name at run time, such as the lazy exports of the packages, are not seen)."""
import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "orangecontrib.relief"

#: the layers of the package, ground floor first: a module imports from its own layer or below
#: (the first part of its name below the package; "" is the package's own ``__init__``)
LAYERS = (
    {"", "lazy", "compilation"},                    # mechanism: lazy exports, kernel cache
    {"estimators"},                                 # the science, numpy/scipy/numba only
    {"tree", "oblivion", "readers", "reading", "orange_data", "imputation", "datasets",
     "workloads"},
    {"scoring", "learners", "sklearn", "dask", "selection"},    # the adapters
    {"widgets", "cli", "workflows"},
)
#: what the estimators may import besides the standard library and themselves
ENGINE_IMPORTS = {"numpy", "scipy", "numba", f"{PACKAGE}.compilation", f"{PACKAGE}.lazy"}


def modules(root, package):
    """{dotted name: path} of every module of ``package`` (a directory below ``root``)."""
    found = {}
    for path in sorted((root / package.replace(".", "/")).rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def imported_names(name, path, is_package):
    """The dotted names module ``name`` imports anywhere in its source (for ``from m import
    x``: ``m.x`` and ``m``), relative imports resolved."""
    here = name.split(".") if is_package else name.split(".")[:-1]
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = here[:len(here) - node.level + 1] if node.level else []
            module = ".".join(base + ([node.module] if node.module else []))
            names.add(module)
            names.update(f"{module}.{alias.name}" for alias in node.names)
    return names


def import_graph(root=ROOT, package=PACKAGE):
    """{module: the modules of the package it imports}: for each name it imports, the module
    the longest part of the name is (``from m import x``: module ``m.x`` where that is one, else
    ``m``) and the packages that module is in (Python imports them first), but not the
    packages of the importing module itself."""
    found = modules(root, package)
    graph = {}
    for name, path in found.items():
        targets = set()
        for imported in imported_names(name, path, path.name == "__init__.py"):
            parts = imported.split(".")
            for end in range(len(parts), 0, -1):
                if ".".join(parts[:end]) in found:
                    targets.update(".".join(parts[:i]) for i in range(1, end + 1))
                    break
        graph[name] = {t for t in targets & set(found)
                       if t != name and not name.startswith(t + ".")}
    return graph


def cycles(graph):
    """The import circles of ``graph``: each a list of modules m0, m1, ..., m0 where each
    imports the next (one circle per group of modules that import one another)."""
    index, low, stack, on_stack, groups = {}, {}, [], set(), []

    def visit(v):                 # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.add(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(group)

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10 * len(graph) + 100))
    try:
        for v in sorted(graph):
            if v not in index:
                visit(v)
    finally:
        sys.setrecursionlimit(limit)
    return [_circle(graph, group) for group in groups]


def _circle(graph, group):
    """A circle through the modules of ``group`` (which all reach one another)."""
    start = min(group)
    paths, todo = {start: [start]}, [start]
    while todo:                   # breadth first from start, back to start
        v = todo.pop(0)
        for w in sorted(graph[v] & group):
            if w == start:
                return paths[v] + [start]
            if w not in paths:
                paths[w] = paths[v] + [w]
                todo.append(w)
    raise AssertionError("not a strongly connected group")


def layer(module):
    part = module[len(PACKAGE) + 1:].split(".")[0] if module != PACKAGE else ""
    for level, parts in enumerate(LAYERS):
        if part in parts:
            return level
    raise AssertionError(f"{module} is in no layer: add its name to LAYERS in {__file__}")


def test_no_module_imports_what_imports_it():
    found = cycles(import_graph())
    assert not found, "import circles:\n" + "\n".join(" -> ".join(c) for c in found)


def test_imports_point_down_the_layers():
    graph = import_graph()
    upward = sorted(f"{m} -> {t}" for m, targets in graph.items() for t in targets
                    if layer(t) > layer(m))
    assert not upward, "imports from a higher layer:\n" + "\n".join(upward)


def test_the_estimators_import_only_numpy_scipy_numba_and_the_mechanism():
    found = modules(ROOT, PACKAGE)
    engine = f"{PACKAGE}.estimators"
    allowed = set(sys.stdlib_module_names) | ENGINE_IMPORTS
    wrong = set()
    for name, path in found.items():
        if name == engine or name.startswith(engine + "."):
            for imported in imported_names(name, path, path.name == "__init__.py"):
                top = imported.split(".")[0]
                if imported.startswith(engine) or top in allowed:
                    continue
                if imported.startswith(PACKAGE):
                    module = imported
                    while module not in found:
                        module = module.rpartition(".")[0]
                    if module in allowed:
                        continue
                wrong.add(f"{name} imports {imported}")
    assert not wrong, "\n".join(sorted(wrong))


def test_the_graph_sees_every_kind_of_import(tmp_path):
    # a package whose circle closes only through a function-level relative import
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    sources = {
        "__init__.py": "",
        "a.py": "from .sub import b\n",
        "sub/__init__.py": "from .b import f\n",
        "sub/b.py": "import os\n\ndef f():\n    from ..c import g\n    return g\n",
        "c.py": "import pkg.a\n\ndef g():\n    pass\n",
        "d.py": "from . import c\nfrom .sub.b import f\n",
    }
    for file, text in sources.items():
        (package / file).write_text(text)
    graph = import_graph(tmp_path, "pkg")
    assert graph == {"pkg": set(), "pkg.a": {"pkg.sub", "pkg.sub.b"}, "pkg.sub": {"pkg.sub.b"},
                     "pkg.sub.b": {"pkg.c"}, "pkg.c": {"pkg.a"},
                     "pkg.d": {"pkg.c", "pkg.sub", "pkg.sub.b"}}
    assert cycles(graph) == [["pkg.a", "pkg.sub.b", "pkg.c", "pkg.a"]]
    (package / "sub/b.py").write_text("def f():\n    pass\n")
    assert cycles(import_graph(tmp_path, "pkg")) == []
