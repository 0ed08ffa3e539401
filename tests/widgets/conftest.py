import os

# A widget's report is rendered by Qt WebEngine, whose Chromium refuses to start as root
# (CI containers) unless its sandbox is off.
os.environ.setdefault("QTWEBENGINE_CHROMIUM_FLAGS", "--no-sandbox")
