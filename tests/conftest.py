"""Settings for the whole suite.

The suite runs with the kernels compiled by default (``ORANGE_RELIEF_KERNELS=compiled``, set
here unless the environment sets it); ``ORANGE_RELIEF_KERNELS=numpy python -m pytest tests``
runs it with the numpy equivalents of the kernels and passes as well
(tests/estimators/test_matrix.py and tests/estimators/test_vectorised.py compare the two modes
within one run whatever the variable says).

Tests of the compiled path itself set their kernel mode themselves (``kernel_mode(...)`` or
the environment of the process they start), so that they pass in either run:

- tests/estimators/test_context_search.py::test_single_precision_on_large_data (the
  single-precision search runs once its kernels are compiled; until then the numpy mode takes
  the double-precision search);
- tests/test_compilation.py::test_background_runs_of_a_widget_process_end_with_it and
  ::test_background_runs_of_the_command_line_outlive_it_to_fill_the_cache (they start a
  process in the default mode: the numpy mode starts no background run);
- tests/test_cold_start.py (every test: a new process in the default mode with an empty
  kernel cache);
- tests/test_startup.py::test_compiling_ahead_leaves_nothing_to_compile (mode "auto": the
  kernels compiled ahead are loaded, none compiled again).
"""
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# the tests exercise the compiled kernels; tests/estimators/test_vectorised.py compares their
# numpy equivalents (used before a kernel is compiled) with them
os.environ.setdefault("ORANGE_RELIEF_KERNELS", "compiled")


def pytest_pycollect_makeitem(collector, name, obj):
    """Never collect test base classes imported from Orange (``from ... import WidgetTest``):
    run on their own they only skip their built-in checks for want of a widget."""
    if isinstance(obj, type) and obj.__module__.startswith(("Orange.", "orangewidget.")):
        return []
    return None
