"""Numba's cache location and the compile notices (orangecontrib.relief.compilation).

Root ignores file permissions, so an unwritable cache is made with numba's own settings: only
the user-provided locator (NUMBA_CACHE_LOCATOR_CLASSES) pointed at a path below a regular file
(NUMBA_CACHE_DIR), which no one can create, not even root. Without the fallback, importing the
package then fails with "cannot cache function ...: no locator available"."""
import os
import subprocess
import sys
import threading

import numpy as np
from numba import njit

from orangecontrib.relief import compilation

from checkout import ROOT, environment

REPORT = """
import orangecontrib.relief
from orangecontrib.relief import compilation
from orangecontrib.relief.estimators.neighbourhood import diffs
cache = diffs._pair_diffs._cache
print(repr(compilation.cache_dir()))
print(type(cache).__name__)
print(getattr(cache, "_cache_path", ""))
"""


def run_import(tmp_path, **env):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    environ = environment(NUMBA_CACHE_DIR=str(blocker / "cache"), **env)
    result = subprocess.run([sys.executable, "-c", REPORT], env=environ, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout.splitlines()


def test_unwritable_cache_falls_back_to_a_private_temporary_directory(tmp_path):
    chosen, cache_kind, path = run_import(
        tmp_path, NUMBA_CACHE_LOCATOR_CLASSES="UserProvidedCacheLocator", TMPDIR=str(tmp_path))
    expected = str(tmp_path / f"orange3-relief-numba-{os.getuid()}")
    assert chosen == repr(expected)
    assert cache_kind == "FunctionCache"
    assert path.startswith(expected)
    assert os.stat(expected).st_mode & 0o077 == 0     # private: a cache holds pickled code


def test_without_any_usable_cache_location_kernels_are_not_cached(tmp_path):
    # a locator list that never serves a package file: no directory can help
    chosen, cache_kind, path = run_import(
        tmp_path, NUMBA_CACHE_LOCATOR_CLASSES="IPythonCacheLocator", TMPDIR=str(tmp_path))
    assert chosen == "''"
    assert cache_kind == "NullCache"


def test_a_directory_someone_else_can_write_to_is_not_used(tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    assert compilation._private_dir(str(shared)) is None
    assert compilation._private_dir(str(tmp_path / "mine")) == str(tmp_path / "mine")
    (tmp_path / "plain").write_text("")
    assert compilation._private_dir(str(tmp_path / "plain" / "below")) is None


def test_notices_name_each_compiled_kernel_once_and_stop_after_the_block():
    names = []

    def twice(x):
        return 2 * x

    kernel = njit(twice)
    with compilation.compile_notices(names.append):
        assert kernel(np.float64(3.0)) == 6.0
        assert kernel(np.float64(4.0)) == 8.0      # compiled already: no second notice
    assert names == [f"{__name__}.{twice.__qualname__}"]
    kernel(np.int8(2))                             # a new signature compiles, after the block
    assert len(names) == 1


def test_notices_come_from_the_thread_that_compiles():
    threads = []
    kernel = njit(lambda x: x + 1)
    with compilation.compile_notices(lambda name: threads.append(threading.get_ident())):
        worker = threading.Thread(target=kernel, args=(1.5,))
        worker.start()
        worker.join()
    assert threads == [worker.ident]


def test_every_kernel_releases_the_gil():
    """A kernel running in a widget's worker thread must not hold the GIL, which the canvas's
    event loop needs (helpers inlined into kernels are not called from Python)."""
    import importlib
    import pkgutil

    from numba.core.registry import CPUDispatcher

    import orangecontrib.relief as relief
    kernels = []
    for info in pkgutil.walk_packages(relief.__path__, "orangecontrib.relief."):
        if ".widgets" in info.name:
            continue
        module = importlib.import_module(info.name)
        dispatchers = {name: value.dispatcher if isinstance(value, compilation.Kernel) else value
                       for name, value in vars(module).items()}   # (a kernel with a twin too)
        kernels += [(info.name, name, value) for name, value in dispatchers.items()
                    if isinstance(value, CPUDispatcher)
                    and value.targetoptions.get("inline", "never") == "never"]
    holding = [(module, name) for module, name, kernel in kernels
               if not kernel.targetoptions.get("nogil")]
    assert len(kernels) >= 10 and holding == []


SLOW = """
def wait():
    import time
    time.sleep(30)
"""

STARTER = """
from orangecontrib.relief import compilation
import slow_background
if {owned}:
    compilation.end_background_with_this_process()
assert compilation.run_in_background(slow_background.wait)
print(compilation._children[0].pid, flush=True)
"""


def _running(pid):
    """Whether process ``pid`` runs (a zombie, ended but not yet reaped, does not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        with open(f"/proc/{pid}/status") as status:
            return not any(line.startswith("State:") and "Z" in line for line in status)
    except OSError:
        return True


def _background_of_a_process_that_ends(tmp_path, owned):
    """Start a process that starts a 30-second background run and ends at once; return the
    background process's id."""
    (tmp_path / "slow_background.py").write_text(SLOW)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), str(ROOT)]))
    env.pop("ORANGE_RELIEF_KERNELS", None)     # (the default mode: the numpy one runs none)
    done = subprocess.run([sys.executable, "-c", STARTER.format(owned=owned)], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return int(done.stdout.split()[-1])


def test_background_runs_of_a_widget_process_end_with_it(tmp_path):
    # the widgets call end_background_with_this_process: a closed Orange leaves none running
    import time
    pid = _background_of_a_process_that_ends(tmp_path, owned=True)
    deadline = time.monotonic() + 10
    while _running(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    try:
        assert not _running(pid)
    finally:
        if _running(pid):
            os.kill(pid, 9)


def test_background_runs_of_the_command_line_outlive_it_to_fill_the_cache(tmp_path):
    import time
    pid = _background_of_a_process_that_ends(tmp_path, owned=False)
    try:
        time.sleep(2)
        assert _running(pid)
    finally:
        if _running(pid):
            os.kill(pid, 9)
