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
