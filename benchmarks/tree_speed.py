"""Growing a ReliefF CORE tree vs Orange's own TreeLearner on the same data (target: on 5,000 x
20 numeric data the ReliefF tree should take at most 5x Orange's time).

    python benchmarks/tree_speed.py            # 5,000 x 20, best of 5 rounds
    python benchmarks/tree_speed.py --quick    # 1,000 x 20, one run

Data: uniform [0, 1] attributes, class = XOR of the first two thresholded at 0.5, 10 % class
noise. Orange: ``Orange.classification.TreeLearner()`` (its defaults: information gain, binary
numeric splits). Ours: ``CoreTreeClassificationLearner()`` (ReliefF k = 10 on every node, at most
50 candidate thresholds, m-estimate pruning) and, for scale, the same tree with Gini. Both fitted
through Orange's ``Learner.__call__`` on the same ``Table``; numba is compiled on a warm-up set
first. Prints the times and the ratios.
"""
import argparse
import time

import numpy as np
from Orange.classification import TreeLearner
from Orange.data import ContinuousVariable, DiscreteVariable, Domain, Table

from orangecontrib.relief.estimators.impurity import Gini
from orangecontrib.relief.learners import CoreTreeClassificationLearner


def xor_table(n, a, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n, a))
    y = ((X[:, 0] > 0.5) ^ (X[:, 1] > 0.5)).astype(float)
    flip = rng.uniform(size=n) < 0.1
    y[flip] = 1 - y[flip]
    domain = Domain([ContinuousVariable(f"x{i}") for i in range(a)],
                    DiscreteVariable("class", values=("0", "1")))
    return Table.from_numpy(domain, X, y)


def best_times(learners, data, repeats):
    """Best wall-clock time of each learner over ``repeats`` rounds; the learners take turns in
    every round, so a change of the machine's load hits them alike."""
    times = np.full((repeats, len(learners)), np.inf)
    models = [None] * len(learners)
    for r in range(repeats):
        for i, learner in enumerate(learners):
            start = time.perf_counter()
            models[i] = learner(data)
            times[r, i] = time.perf_counter() - start
    return times.min(axis=0), models


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    n, a, repeats = (1000, 20, 1) if args.quick else (5000, 20, 5)
    data = xor_table(n, a)
    CoreTreeClassificationLearner()(xor_table(200, a, seed=1))          # numba warm-up
    learners = [("Orange TreeLearner", TreeLearner()),
                ("CORE tree, ReliefF", CoreTreeClassificationLearner()),
                ("CORE tree, Gini", CoreTreeClassificationLearner(estimator=Gini()))]
    times, models = best_times([learner for _, learner in learners], data, repeats)
    print(f"{n} x {a} numeric, best of {repeats}")
    print("| learner | time [s] | nodes | ratio to Orange |\n|---|---:|---:|---:|")
    for (name, _), seconds, model in zip(learners, times, models):
        print(f"| {name} | {seconds:.2f} | {model.node_count()} | {seconds / times[0]:.1f} |")


if __name__ == "__main__":
    main()
