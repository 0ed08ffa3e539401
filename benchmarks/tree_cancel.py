"""How fast a cancelled tree fit stops: a CORE tree (ReliefF for a discrete class, RReliefF for
a numeric one) and OBLIVION are fitted in a thread on a 20,000-row table; after 2 s the progress
callback raises, and the time from that moment until the fit returns is printed (target: <= 1 s),
with the largest gap between two callback calls while the fit ran (how smoothly progress moves)
and the last fraction reported.

    python benchmarks/tree_cancel.py             # 20,000 rows x 10 attributes
    python benchmarks/tree_cancel.py --rows 5000

Data: uniform [0, 1] attributes; class = XOR of the first two thresholded at 0.5 with 10 % class
noise (classification), or x0 + 2 x1 + noise (regression). OBLIVION gets the same attributes
cut into four equal-width values (it is meant for discrete data). numba is compiled on a small
table first.
"""
import argparse
import threading
import time

import numpy as np
from Orange.data import ContinuousVariable, DiscreteVariable, Domain, Table

from orangecontrib.relief.learners import CoreTreeLearner, ObliviousTreeLearner


class Cancelled(Exception):
    pass


def table(n, a, regression=False, discrete=False, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n, a))
    if regression:
        y = X[:, 0] + 2 * X[:, 1] + rng.normal(0, 0.1, n)
        class_var = ContinuousVariable("y")
    else:
        y = ((X[:, 0] > 0.5) ^ (X[:, 1] > 0.5)).astype(float)
        flip = rng.uniform(size=n) < 0.1
        y[flip] = 1 - y[flip]
        class_var = DiscreteVariable("class", values=("0", "1"))
    if discrete:
        X = np.floor(X * 4)
        attributes = [DiscreteVariable(f"x{i}", values=tuple("abcd")) for i in range(a)]
    else:
        attributes = [ContinuousVariable(f"x{i}") for i in range(a)]
    return Table.from_numpy(Domain(attributes, class_var), X, y)


def cancel_after(learner, data, delay):
    """(seconds from the cancel to the fit's return, largest gap between callbacks, last
    fraction reported before the cancel, whether the fit ended by the cancel)."""
    state = {"cancel_at": None, "calls": [], "outcome": None}
    start = time.perf_counter()

    def callback(fraction, message=None):     # Orange passes a message too
        now = time.perf_counter()
        state["calls"].append((now, fraction))
        if now - start >= delay:
            if state["cancel_at"] is None:
                state["cancel_at"] = start + delay
            raise Cancelled

    def run():
        try:
            learner(data, progress_callback=callback)
            state["outcome"] = "finished"
        except Cancelled:
            state["outcome"] = "cancelled"

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    end = time.perf_counter()
    times = [start] + [t for t, _ in state["calls"]]
    gaps = np.diff(times)
    before = [f for t, f in state["calls"] if t < start + delay]
    stop = end - (state["cancel_at"] or end)
    return stop, float(gaps.max(initial=0)), (before[-1] if before else 0.0), state["outcome"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=20000)
    parser.add_argument("--attributes", type=int, default=10)
    parser.add_argument("--delay", type=float, default=2.0)
    args = parser.parse_args()
    n, a = args.rows, args.attributes
    cases = [("CORE tree, ReliefF", CoreTreeLearner(), table(n, a)),
             ("CORE tree, RReliefF", CoreTreeLearner(), table(n, a, regression=True)),
             ("OBLIVION", ObliviousTreeLearner(), table(n, a, discrete=True))]
    for _, learner, data in cases:                                      # numba warm-up
        learner(data[:300])
    print(f"{n} x {a}, cancel after {args.delay:g} s")
    print("| learner | stop after cancel (s) | longest callback gap (s) | progress at cancel "
          "| outcome |")
    print("|---|---|---|---|---|")
    for name, learner, data in cases:
        stop, gap, fraction, outcome = cancel_after(learner, data, args.delay)
        print(f"| {name} | {stop:.2f} | {gap:.2f} | {fraction:.2f} | {outcome} |", flush=True)


if __name__ == "__main__":
    main()
