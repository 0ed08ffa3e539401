"""How responsive the widgets stay while they compute on 20,000-row tables.

    QT_QPA_PLATFORM=offscreen python benchmarks/responsiveness.py             # 20,000 rows
    QT_QPA_PLATFORM=offscreen python benchmarks/responsiveness.py --rows 2000 --delay 0.5
    ... --only "Relief Tree" --diagnose 0.1    # stacks of any stall over 100 ms, on stderr
    ... --cold --only "ReliefF, classification" --irrelevant 48   # empty kernel cache, 20,000 x 50
    ... --only "Interacting" --rows 2000 --timeline    # when progress and status first change

For every widget (Attribute Estimation with its default estimator for each target type and on
200 rows of 2,000 binary attributes, where showing the result is most of the work, Locality
Profile, Relief Tree, Oblivious Tree, Interacting Pairs) three runs on the same table (the stall
run lasts until the widget has shown the whole result, which it does in several turns of the
event loop):

* stall: data are sent and the Qt event loop runs (``processEvents``) until the computation ends
  or ``--limit`` seconds pass, with a ``QTimer`` ticking every 5 ms; the longest gap between two
  ticks is the longest time the canvas would not respond (target <= 100 ms). The number of
  distinct progress-bar values seen tells whether progress moves; "gc ms" is the longest
  garbage collection meanwhile (it holds the interpreter lock, in whichever thread it runs).
* close: data are sent, after ``--delay`` seconds and again half-way through the computation
  (half its time in the stall run, or of ``--limit``) the widget is closed (``onDeleteWidget``,
  which cancels the task and joins the worker); the longer time until it returns (target
  <= 1 s), so both an early and a late phase of the computation are interrupted.
* new data: the same, sending the table again instead of closing; the longer time from that
  until the old task's worker has stopped (target <= 1 s).

Data: ``orangecontrib.relief.datasets.parity`` (order 2, 10 random binary attributes) for the
classification widgets, uniform [0, 1) attributes with y = x0 + 2 x1 + noise for regression, and
for Oblivious Tree and Interacting Pairs the parity table (they are meant for discrete data;
Interacting Pairs tests all pairs of the 12 attributes with its defaults, and those of the
6 best ranked by MultiSURF; ``--irrelevant`` sets the number of random attributes). The numba
kernels are compiled on a small table first. Prints one table row per widget.

With ``--cold`` the kernel cache is a new empty directory (``NUMBA_CACHE_DIR``), nothing is
compiled first, and each widget's first result is watched alone (the stall run only, in this
order, so later widgets find the kernels the earlier ones compiled in the background): the
longest stall of a first result, compiling and first display included.
"""
import argparse
import faulthandler
import gc
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
#: with --cold, the empty kernel cache (set before the package is imported, which reads it)
COLD_CACHE = tempfile.mkdtemp(prefix="relief-cold-") if "--cold" in sys.argv else None
if COLD_CACHE:
    os.environ["NUMBA_CACHE_DIR"] = COLD_CACHE

from AnyQt.QtCore import QTimer  # noqa: E402
from AnyQt.QtWidgets import QApplication  # noqa: E402
from Orange.data import ContinuousVariable, Domain, Table  # noqa: E402

from orangecontrib.relief.datasets import parity  # noqa: E402
from orangecontrib.relief.widgets.owattributeestimation import OWAttributeEstimation  # noqa
from orangecontrib.relief.widgets.owinteractingpairs import OWInteractingPairs  # noqa: E402
from orangecontrib.relief.widgets.owlocalityprofile import OWLocalityProfile  # noqa: E402
from orangecontrib.relief.widgets.owoblivioustree import OWObliviousTree  # noqa: E402
from orangecontrib.relief.widgets.owrelieftree import OWReliefTree  # noqa: E402


def wide_table(n_attributes=2000, n_rows=200, seed=0):
    """``n_rows`` of ``n_attributes`` random binary attributes, the class the parity of the
    first two (the display of a result is most of the work)."""
    from Orange.data import DiscreteVariable
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, (n_rows, n_attributes)).astype(float)
    y = (X[:, 0] != X[:, 1]).astype(float)
    attributes = [DiscreteVariable(f"gene_{i:05d}", values=("0", "1"))
                  for i in range(n_attributes)]
    return Table.from_numpy(Domain(attributes, DiscreteVariable("y", values=("0", "1"))), X, y)


def regression_table(n, a=12, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n, a))
    y = X[:, 0] + 2 * X[:, 1] + rng.normal(0, 0.1, n)
    domain = Domain([ContinuousVariable(f"x{i}") for i in range(a)], ContinuousVariable("y"))
    return Table.from_numpy(domain, X, y)


class Ticker:
    """A QTimer ticking every ``interval`` ms that records the longest gap between ticks, and
    the longest garbage collection meanwhile (in any thread: it holds the interpreter lock).
    With ``diagnose`` (seconds), a stall longer than that dumps every thread's stack to stderr
    (``faulthandler``'s watchdog needs no GIL), which names the code the worker is in."""
    diagnose = None

    def __init__(self, interval=5):
        self.timer = QTimer(interval=interval)
        self.timer.timeout.connect(self.tick)
        self.last = self.longest = None
        self.collection = 0.0
        self._collecting = None

    def on_gc(self, phase, _info):
        if phase == "start":
            self._collecting = time.perf_counter()
        elif self._collecting is not None:
            self.collection = max(self.collection, time.perf_counter() - self._collecting)

    def tick(self):
        if self.diagnose:
            faulthandler.dump_traceback_later(self.diagnose)
        now = time.perf_counter()
        if self.last is not None:
            self.longest = max(self.longest or 0.0, now - self.last)
        self.last = now

    def start(self):
        self.last, self.longest, self.collection = time.perf_counter(), 0.0, 0.0
        gc.callbacks.append(self.on_gc)
        self.timer.start()

    def stop(self):
        self.timer.stop()
        gc.callbacks.remove(self.on_gc)
        faulthandler.cancel_dump_traceback_later()
        return self.longest


def send(widget, data):
    widget.set_data(data)
    widget.handleNewSignals()


def running(widget):
    """Computing, or still showing the result (a widget shows it in several turns of the event
    loop and stays invalidated until done)."""
    return widget.task is not None or widget.isInvalidated()


def spin(app, seconds, until=None):
    """Run the event loop for ``seconds`` or until ``until()``."""
    end = time.perf_counter() + seconds
    while time.perf_counter() < end and not (until and until()):
        app.processEvents()
        time.sleep(0.001)


#: with --timeline: the first progress values and status texts of each stall run, with times
TIMELINE = 8


def stall(app, make, data, limit, timeline=False):
    """(longest event-loop gap in s, computation time or None if cut at ``limit``, progress
    values seen, longest garbage collection in s); with ``timeline``, prints the times of the
    first :data:`TIMELINE` progress values and status texts."""
    widget = make()
    ticker = Ticker()
    progress = set()
    events = []
    widget.progressBarValueChanged.connect(lambda value: progress.add(round(value, 1)))
    if timeline:
        def note(what):
            events.append(f"{time.perf_counter() - start:.2f} s {what}")
        widget.progressBarValueChanged.connect(lambda value: note(f"{value:.1f} %"))
        widget.statusMessageChanged.connect(lambda text: note(repr(text)))
    ticker.start()
    start = time.perf_counter()
    send(widget, data)
    spin(app, limit, lambda: not running(widget))
    elapsed = time.perf_counter() - start
    longest = ticker.stop()
    done = not running(widget)
    widget.onDeleteWidget()
    if timeline:
        print(f"  {make.label}: " + "; ".join(events[:TIMELINE]))
    return longest, elapsed if done else None, len(progress), ticker.collection


def close_time(app, make, data, delay):
    """Seconds ``onDeleteWidget`` takes when called ``delay`` s into the computation (None if
    it had ended by then)."""
    widget = make()
    send(widget, data)
    spin(app, delay)
    if not running(widget):
        widget.onDeleteWidget()
        return None
    start = time.perf_counter()
    widget.onDeleteWidget()
    return time.perf_counter() - start


def new_data_time(app, make, data, delay):
    """Seconds from sending new data ``delay`` s into the computation until the old task's
    worker stops (None if it had ended by then)."""
    widget = make()
    send(widget, data)
    spin(app, delay)
    old = widget.task
    if old is None:
        widget.onDeleteWidget()
        return None
    start = time.perf_counter()
    send(widget, data)
    while not old.future.done():
        app.processEvents()
        time.sleep(0.001)
    stopped = time.perf_counter() - start
    widget.onDeleteWidget()
    return stopped


def _worst(times):
    """The longest of ``times`` (None where the computation had ended: None if all had)."""
    times = [t for t in times if t is not None]
    return max(times) if times else None


def created(cls):
    """A new ``cls`` widget, made with Python's garbage collector paused: orangewidget builds
    its menus from temporary wrappers, and a collection at that moment (seen once in a long
    run with PyQt6) leaves a menu deleted under it."""
    gc.disable()
    try:
        return cls()
    finally:
        gc.enable()


def estimation(target):
    def make():
        widget = created(OWAttributeEstimation)
        widget.auto_apply = True
        return widget
    make.label = f"Attribute Estimation ({target})"
    return make


def ranked_pairs():
    """Interacting Pairs testing the pairs of the 6 attributes MultiSURF ranks best (the
    ranking repeated on each permutation)."""
    def make():
        widget = created(OWInteractingPairs)
        widget.top = 6
        return widget
    make.label = "Interacting Pairs (6 best of MultiSURF)"
    return make


def named(cls, label):
    def make():
        return created(cls)
    make.label = label
    return make


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=20000)
    parser.add_argument("--delay", type=float, default=1.0,
                        help="seconds into the computation at which to close / send new data")
    parser.add_argument("--limit", type=float, default=30.0,
                        help="longest time to watch the event loop during a computation")
    parser.add_argument("--diagnose", type=float, default=None, metavar="SECONDS",
                        help="dump the threads' stacks to stderr at any stall this long")
    parser.add_argument("--only", default=None,
                        help="run only the widgets whose label contains this text")
    parser.add_argument("--irrelevant", type=int, default=10,
                        help="random attributes beside the two of the parity (10)")
    parser.add_argument("--cold", action="store_true",
                        help="an empty kernel cache: the stall of each first result only")
    parser.add_argument("--timeline", action="store_true",
                        help="print when the first progress values and status texts came")
    args = parser.parse_args()
    try:
        measure(args)
    finally:
        if COLD_CACHE:
            shutil.rmtree(COLD_CACHE, ignore_errors=True)
            from orangecontrib.relief.compilation import background_compiles
            if background_compiles():
                # they end within a second of this process (the widgets' rule) and may write
                # into the cache meanwhile: remove it once more after them
                subprocess.Popen(["sh", "-c", f'sleep 3; rm -rf "{COLD_CACHE}"'],
                                 start_new_session=True)


def measure(args):

    app = QApplication.instance() or QApplication([])
    classification = parity(order=2, n_irrelevant=args.irrelevant, n_instances=args.rows,
                            random_state=0)
    regression = regression_table(args.rows)
    runs = [(estimation("ReliefF, classification"), classification),
            (estimation("ReliefF, 2,000 attributes"), wide_table()),
            (estimation("RReliefF, regression"), regression),
            (named(OWLocalityProfile, "Locality Profile (classification)"), classification),
            (named(OWLocalityProfile, "Locality Profile (regression)"), regression),
            (named(OWReliefTree, "Relief Tree (classification)"), classification),
            (named(OWReliefTree, "Relief Tree (regression)"), regression),
            (named(OWObliviousTree, "Oblivious Tree"), classification),
            (named(OWInteractingPairs, "Interacting Pairs"), classification),
            (ranked_pairs(), classification)]

    if args.only:
        runs = [(make, data) for make, data in runs if args.only in make.label]
    Ticker.diagnose = args.diagnose
    if args.cold:
        print(f"{args.rows:,} rows, empty kernel cache; load average "
              f"{os.getloadavg()[0]:.1f}")
        print(f"{'widget':46} {'stall ms':>9} {'compute s':>10} {'progress':>9} {'gc ms':>6}")
        for make, data in runs:
            longest, elapsed, steps, collection = stall(app, make, data, args.limit,
                                                        args.timeline)
            compute = f"> {args.limit:g}" if elapsed is None else f"{elapsed:.1f}"
            print(f"{make.label:46} {longest * 1000:9.0f} {compute:>10} {steps:9d} "
                  f"{collection * 1000:6.0f}", flush=True)
        return
    # compile the kernels on small tables first
    for make, data in runs:
        stall(app, make, data[:200], 120)

    print(f"{args.rows:,} rows; close / new data {args.delay:g} s into the computation and "
          f"half-way through it (the longer time); load average {os.getloadavg()[0]:.1f}")
    header = (f"{'widget':46} {'stall ms':>9} {'compute s':>10} {'progress':>9} "
              f"{'gc ms':>6} {'close s':>8} {'new data s':>10}")
    print(header)
    print("-" * len(header))
    for make, data in runs:
        longest, elapsed, steps, collection = stall(app, make, data, args.limit,
                                                    args.timeline)
        delays = (args.delay, (elapsed or args.limit) / 2)
        closed = _worst(close_time(app, make, data, delay) for delay in delays)
        renewed = _worst(new_data_time(app, make, data, delay) for delay in delays)

        def fmt(value):
            return "done" if value is None else f"{value:.2f}"
        compute = f"> {args.limit:g}" if elapsed is None else f"{elapsed:.1f}"
        print(f"{make.label:46} {longest * 1000:9.0f} {compute:>10} {steps:9d} "
              f"{collection * 1000:6.0f} {fmt(closed):>8} {fmt(renewed):>10}", flush=True)


if __name__ == "__main__":
    main()
