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
