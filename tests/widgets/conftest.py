import os
import sys

# A widget's report is rendered by Qt WebEngine, whose Chromium refuses to start as root
# (CI containers) unless its sandbox is off.
os.environ.setdefault("QTWEBENGINE_CHROMIUM_FLAGS", "--no-sandbox")

# the shared bad-input generators (tests/bad_inputs.py) for the widget battery
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
