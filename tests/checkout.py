"""The environment of a process a test starts: this checkout first on the import path, so that
the child imports the code under test (not an installed copy of the package)."""
import os
from pathlib import Path

#: the checkout's root directory
ROOT = Path(__file__).resolve().parent.parent


def environment(**variables):
    """``os.environ`` with this checkout first on ``PYTHONPATH`` and ``variables`` set."""
    return dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT),
                                                        os.environ.get("PYTHONPATH", "")]),
                **variables)
