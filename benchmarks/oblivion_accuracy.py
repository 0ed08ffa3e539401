"""OBLIVION's artificial experiment (Langley 1994, "Experimental Results"):
10-fold CV accuracy versus the number of irrelevant Boolean attributes for OBLIVION (full-path
search, the default, and Langley's greedy stopping rule, as in the paper), 1-NN (Orange's KNNLearner, n_neighbors=1) and a decision
tree (Orange's TreeLearner), on parity-2 and parity-3 with 500 instances; plus the time of one
fit on 2,000 instances x 50 attributes (target <= 30 s).

Run by hand: python benchmarks/oblivion_accuracy.py
"""
import time

import numpy as np
from Orange.classification import KNNLearner, TreeLearner
from Orange.evaluation import CA, CrossValidation

from orangecontrib.relief.datasets import parity
from orangecontrib.relief.estimators import encode
from orangecontrib.relief.learners import ObliviousTreeLearner
from orangecontrib.relief.oblivion import ObliviousTree

LEARNERS = {"OBLIVION greedy": ObliviousTreeLearner(search="greedy"),
            "OBLIVION full-path": ObliviousTreeLearner(),
            "1-NN": KNNLearner(n_neighbors=1),
            "tree": TreeLearner()}


def accuracy_table():
    print("| problem | irrelevant | " + " | ".join(LEARNERS) + " | kept (full data, greedy / full-path) |")
    print("|---|---|" + "---|" * len(LEARNERS) + "---|")
    for order in (2, 3):
        for irrelevant in (10, 50):
            data = parity(order, irrelevant, 500, random_state=0)
            results = CrossValidation(k=10, random_state=0)(data, list(LEARNERS.values()))
            kept = [", ".join(v.name for v in learner(data).retained_attributes)
                    for name, learner in LEARNERS.items() if name.startswith("OBLIVION")]
            kept = [k if len(k) < 30 else f"{k.count(',') + 1} attributes" for k in kept]
            cells = " | ".join(f"{a:.3f}" for a in CA(results))
            print(f"| parity-{order} | {irrelevant} | {cells} | {' / '.join(kept)} |", flush=True)


def timing():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, (2000, 50)).astype(float)
    y = X[:, :3].sum(axis=1) % 2
    data = encode(X, y, discrete=True, n_values=2, n_classes=2)
    ObliviousTree().fit(encode(X[:30, :4], y[:30], discrete=True, n_values=2, n_classes=2))
    print("\n| 2,000 x 50 binary (parity-3 + 47 irrelevant) | seconds | retained |")
    print("|---|---|---|")
    for search in ("greedy", "full-path"):
        start = time.perf_counter()
        model = ObliviousTree(search=search).fit(data)
        elapsed = time.perf_counter() - start
        print(f"| {search} | {elapsed:.1f} | {len(model.retained)} attributes |", flush=True)


if __name__ == "__main__":
    timing()
    accuracy_table()
