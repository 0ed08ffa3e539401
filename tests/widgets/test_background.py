"""The widgets' background tasks say in the status bar when numba compiles a kernel."""
from numba import njit

from orangecontrib.relief.widgets.background import COMPILING, announcing_compilation


class RecordingState:
    """The part of a ``TaskState`` a task uses to show a status."""
    def __init__(self):
        self.statuses = []

    def set_status(self, text):
        self.statuses.append(text)


def test_a_task_that_compiles_a_kernel_shows_it_in_the_status():
    def task(x, state):
        @njit
        def fresh(v):         # a new function: numba compiles it on this call
            return v + 1
        return fresh(x)

    state = RecordingState()
    assert announcing_compilation(task)(41, state) == 42
    assert state.statuses and set(state.statuses) == {COMPILING}


def test_a_task_that_compiles_nothing_shows_nothing_and_the_notice_ends_with_it():
    state = RecordingState()
    assert announcing_compilation(lambda x, state: 2 * x)(21, state) == 42
    assert state.statuses == []

    @njit
    def later(v):             # compiled after the task: no notice for it
        return v - 1
    assert later(1) == 0
    assert state.statuses == []


CACHED = '''
from numba import njit
from orangecontrib.relief.compilation import kernel


def add_one_numpy(x):
    return NotImplemented          # no numpy equivalent: the compiled kernel always runs


@kernel(add_one_numpy)
@njit(cache=True)
def add_one(x):
    return x + 1.0
'''


def test_a_task_that_loads_a_cached_kernel_says_so_until_it_has_loaded(tmp_path, monkeypatch):
    """Interacting Pairs sat at 0 % for seconds while numba loaded its kernels from the disk
    cache: the status says so while a kernel loads (and not once it is in memory)."""
    import importlib
    import sys
    from orangecontrib.relief.compilation import Kernel
    from orangecontrib.relief.widgets.background import LOADING

    (tmp_path / "cached_kernel.py").write_text(CACHED)
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("cached_kernel")
    try:
        assert module.add_one(1.0) == 2.0          # compiled here, into the disk cache
        # the same kernel as a new session finds it: in the disk cache, not in memory
        fresh = Kernel(njit(cache=True)(module.add_one.py_func), module.add_one_numpy)
        events = []

        def task(x, state):
            events.append(("progress", None))
            return fresh(x) + fresh(x)             # loaded by the first call only

        state = RecordingState()
        state.set_status = lambda text: events.append(("status", text))
        assert announcing_compilation(task)(1.0, state) == 4.0
        assert events == [("progress", None), ("status", LOADING), ("status", "")]
        assert fresh.signatures                    # loaded, not compiled: no COMPILING
    finally:
        sys.modules.pop("cached_kernel", None)
