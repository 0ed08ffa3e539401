"""What starting the command line and importing the engine load, and compiling ahead
(``orange-relief compile``): the targets of benchmarks/import_footprint.py and
benchmarks/cold_start.py that are not timings."""
import json
import subprocess
import sys
import textwrap

from checkout import environment


def run(*parts, **env):
    """The stdout of a new Python process running the code ``parts`` (each dedented)."""
    code = "\n".join(textwrap.dedent(part) for part in parts)
    environ = environment(**env)
    result = subprocess.run([sys.executable, "-c", code], env=environ,
                            capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stderr
    return result.stdout


LOADED = """
    import json, sys
    print(json.dumps(sorted(m for m in ("numpy._core", "numpy.core", "numba", "scipy",
                                        "Orange", "AnyQt", "PyQt5", "PyQt6")
                            if m in sys.modules)))
"""


def test_version_loads_no_numpy_numba_or_orange():
    out = run("""
        import sys
        from orangecontrib.relief import cli
        try:
            cli.main(["--version"])
        except SystemExit:
            pass
    """, LOADED)
    lines = out.strip().splitlines()
    assert lines[0].startswith("orange-relief ")
    assert json.loads(lines[-1]) == []


def test_the_engine_imports_without_orange_or_qt():
    out = run("import orangecontrib.relief.estimators.relieff", LOADED)
    loaded = json.loads(out.strip().splitlines()[-1])
    assert "numba" in loaded and not {"Orange", "AnyQt", "PyQt5", "PyQt6"} & set(loaded)


def test_compiling_ahead_leaves_nothing_to_compile(tmp_path):
    env = dict(NUMBA_CACHE_DIR=str(tmp_path), ORANGE_RELIEF_KERNELS="auto")
    done = run("""
        from orangecontrib.relief.workloads import compile_ahead
        compile_ahead(["small"], callback=lambda name, seconds: print(name))
    """, **env)
    assert done.split() == ["small"]
    out = run("""
        import json
        import numpy as np
        from orangecontrib.relief import compilation
        from orangecontrib.relief.estimators import encode
        from orangecontrib.relief.estimators.relieff import ReliefF
        from orangecontrib.relief.estimators.surf import MultiSURF
        rng = np.random.default_rng(7)
        X = np.column_stack([rng.integers(0, 4, 60), rng.random(60), rng.random(60)])
        X[rng.random(X.shape) < 0.2] = np.nan
        data = encode(X, rng.integers(0, 3, 60).astype(float), discrete=[True, False, False],
                      n_classes=3)
        compiled = []
        with compilation.compile_notices(compiled.append):
            ReliefF(k=5)(data)
            MultiSURF()(data)
        print(json.dumps([compiled, compilation.background_compiles()]))
    """, **env)
    compiled, background = json.loads(out.strip().splitlines()[-1])
    assert compiled == [] and background == 0     # loaded from the cache, none to start
