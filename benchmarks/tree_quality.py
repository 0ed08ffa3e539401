"""Quality of CORE trees: parity / modulo checks and the comparisons of Robnik-Šikonja &
Kononenko, "Comprehensiveness of tree based models: attribute dependencies and split selection"
(ICML'99, §4.1-4.2: ReliefF vs accuracy vs the switch on decision trees, RReliefF vs MSE vs the
switch with mean and linear leaves on regression trees).

    python benchmarks/tree_quality.py --part parity                 # parity-3, modulo-5-2 checks
    python benchmarks/tree_quality.py --part icml --data DIR        # decision trees, UCI + parity
    python benchmarks/tree_quality.py --part regression --data DIR  # regression trees
    python benchmarks/tree_quality.py --quick ...          # 5 folds, fewer/smaller data sets

Settings follow §4.1-4.2: at least 5 instances in a leaf, 97 % majority stop (classification),
m-estimate pruning with m = 2, switch threshold 0.8; ReliefF k = 10, RReliefF k = 70 with
exp-rank weights (sigma = 20). Every learner of one data set sees the same 10 folds; the
significance of a difference is a two-sided paired t-test over the folds at 0.05 with the
Bonferroni adjustment over the data sets of the table (as the paper does). ``--data DIR`` names a
directory holding the UCI data sets as Orange ``.tab`` files named as in ``ICML_SETS`` and
``REGRESSION_SETS`` (from the UCI Machine Learning Repository, archive.ics.uci.edu, converted
with Orange's File widget or ``Table.save``); the tests never read them.
"""
import argparse
import os
import time

import numpy as np
from Orange.data import Table
from Orange.evaluation import CrossValidation
from Orange.regression import MeanLearner
from scipy.stats import ttest_rel

from orangecontrib.relief import datasets
from orangecontrib.relief.estimators.impurity import MSE, Accuracy, Gini
from orangecontrib.relief.estimators.relieff import ReliefF
from orangecontrib.relief.estimators.rrelieff import RReliefF
from orangecontrib.relief.learners import (CoreTreeClassificationLearner,
                                           CoreTreeRegressionLearner)

DATA_DIR = None    #: set from --data
ICML_SETS = ["tic-tac-toe", "kr-vs-kp", "monks-1_learn", "monks-2_learn", "voting",
             "breast-cancer-wisconsin", "heart-statlog", "lymphography", "zoo", "promoters",
             "hepatitis", "crx", "bupa", "diabetes", "heart-cleveland", "ionosphere",
             "new-thyroid", "hypothyroid", "mushroom"]
REGRESSION_SETS = ["auto-mpg", "housing", "abalone"]


def uci(name, max_rows=None, seed=0):
    table = Table(os.path.join(DATA_DIR, name + ".tab"))
    table.name = name
    if max_rows is not None and len(table) > max_rows:
        rows = np.sort(np.random.default_rng(seed).choice(len(table), max_rows, replace=False))
        table = table[rows]
        table.name = f"{name} ({max_rows} sampled)"
    return table


def fold_scores(results, score):
    """(learners, folds) array of ``score(predicted, actual, learner)`` per fold."""
    return np.array([[score(results.predicted[i][f], results.actual[f], i)
                      for f in results.folds] for i in range(len(results.learners))])


def cross_validate(table, learners, folds, regression):
    """Per-fold accuracy, or per-fold relative squared error (eq. 19: the tree's MSE over the
    MSE of the training-mean predictor on the same fold) for regression."""
    if regression:
        res = CrossValidation(k=folds, random_state=0)(table, learners + [MeanLearner()])

        def rel_error(predicted, actual, _):
            return np.mean((predicted - actual) ** 2)
        mse = fold_scores(res, rel_error)
        return mse[:-1] / mse[-1]
    res = CrossValidation(k=folds, random_state=0, stratified=True)(table, learners)
    return fold_scores(res, lambda predicted, actual, _: np.mean(predicted == actual))


def split_share(model, names):
    """Fraction of the inner nodes whose split was chosen by one of ``names``."""
    inner = [n for n in _nodes(model.root) if n.children]
    return sum(n.split_estimator in names for n in inner) / max(len(inner), 1)


def _nodes(node):
    yield node
    for child in node.children:
        if child is not None:
            yield from _nodes(child)


def top_level_attributes(model, levels):
    return [n.attr.name for n, depth in _with_depth(model.root) if n.children and depth < levels]


def _with_depth(node, depth=0):
    yield node, depth
    for child in node.children:
        if child is not None:
            yield from _with_depth(child, depth + 1)


# ------------------------------------------------------------------------------------ parity
def part_parity(folds):
    print("### Parity-3 and modulo-5-2 (10 irrelevant attributes)\n")
    print("| data | estimator | top-3-level splits on informative attributes | nodes "
          f"| {folds}-fold CV accuracy |\n|---|---|---|---:|---:|")
    problems = [("parity-3, 200", datasets.parity(order=3, n_irrelevant=10, n_instances=200)),
                ("modulo-5-2, 1000", datasets.modulo(p=5, n_informative=2, n_irrelevant=10))]
    for label, table in problems:
        for name, estimator in (("ReliefF", ReliefF()), ("Gini", Gini())):
            learner = CoreTreeClassificationLearner(estimator=estimator)
            model = learner(table)
            top = top_level_attributes(model, 3)
            informative = sum(a.startswith("I") for a in top)
            accuracy = cross_validate(table, [learner], folds, False)[0].mean()
            print(f"| {label} | {name} | {informative}/{len(top)} | {model.node_count()} "
                  f"| {accuracy:.3f} |")
    print()


# ------------------------------------------------------------------------------ comparisons
def significance_table(labels, names, scores, higher_better):
    """Counts of significant wins (row over column) with Bonferroni over the data sets."""
    alpha = 0.05 / len(labels)
    wins = np.zeros((len(names), len(names)), int)
    for s in scores:
        for i in range(len(names)):
            for j in range(len(names)):
                if i == j or np.allclose(s[i], s[j]):
                    continue
                p = ttest_rel(s[i], s[j]).pvalue
                better = s[i].mean() > s[j].mean() if higher_better else s[i].mean() < s[j].mean()
                wins[i, j] += bool(p < alpha and better)
    print(f"Significant wins of the row over the column (paired t-test, 0.05 / {len(labels)}):\n")
    print("| | " + " | ".join(names) + " |\n|---|" + "---:|" * len(names))
    for i, name in enumerate(names):
        print(f"| {name} | " + " | ".join("-" if i == j else str(wins[i, j])
                                         for j in range(len(names))) + " |")
    print()


def compare(tables, configs, folds, regression, switch_names):
    names = [c[0] for c in configs]
    metric = "relative squared error (eq. 19)" if regression else "accuracy"
    print(f"| data | n | " + " | ".join(names) + " | switched splits | seconds |")
    print("|---|---:|" + "---:|" * (len(names) + 2))
    all_scores = []
    for table in tables:
        start = time.perf_counter()
        learners = [c[1] for c in configs]
        scores = cross_validate(table, learners, folds, regression)
        switch_model = [c[1] for c in configs if c[2]][0](table)
        share = split_share(switch_model, switch_names)
        all_scores.append(scores)
        cells = " | ".join(f"{m:.3f} ± {s:.3f}" for m, s in zip(scores.mean(1), scores.std(1)))
        print(f"| {table.name} | {len(table)} | {cells} | {share:.0%} "
              f"| {time.perf_counter() - start:.0f} |", flush=True)
    print(f"\n(mean ± std over {folds} folds of the {metric})\n")
    significance_table([t.name for t in tables], names, all_scores, not regression)


def part_icml(folds, quick):
    print("### Decision trees: ReliefF vs accuracy vs the switch (ICML'99 §4.1)\n")
    tables = [datasets.parity(order=3, n_irrelevant=10, n_instances=200)]
    tables[0].name = "parity-3"
    tables += [uci(n, max_rows=1000 if quick else None)
               for n in (ICML_SETS[:4] if quick else ICML_SETS)]
    common = dict(min_leaf=5, min_majority=0.97, pruning="m-estimate", m=2)
    configs = [("ReliefF", CoreTreeClassificationLearner(estimator=ReliefF(), **common), False),
               ("accuracy", CoreTreeClassificationLearner(estimator=Accuracy(), **common), False),
               ("switch", CoreTreeClassificationLearner(estimator=ReliefF(), switch=True,
                                                        **common), True)]
    compare(tables, configs, folds, False, {"Accuracy"})


def part_regression(folds, quick):
    n = 300 if quick else 500
    tables = [datasets.fraction(n_informative=2, n_instances=n),
              datasets.fraction(n_informative=3, n_instances=n),
              datasets.modulo(p=8, n_informative=2, regression=True, numeric=True, n_instances=n),
              datasets.parity_regression(order=2, n_instances=n),
              datasets.parity_regression(order=3, n_instances=n)]
    tables += [uci(name, max_rows=500 if quick else 1000) for name in REGRESSION_SETS]
    for leaf in ("mean", "linear"):
        print(f"### Regression trees, {leaf} leaves: RReliefF vs MSE vs the switch (§4.2)\n")
        rrelieff = RReliefF(k=70, weighting="exp-rank", sigma=20)
        common = dict(min_leaf=5, pruning="m-estimate", m=2, leaf_model=leaf)
        configs = [("RReliefF", CoreTreeRegressionLearner(estimator=rrelieff, **common), False),
                   ("MSE", CoreTreeRegressionLearner(estimator=MSE(), **common), False),
                   ("switch", CoreTreeRegressionLearner(estimator=rrelieff, switch=True,
                                                        **common), True)]
        compare(tables, configs, folds, True, {"MSE"})


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--part", choices=("parity", "icml", "regression", "all"),
                        default="all")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--data", metavar="DIR",
                        help="directory of the UCI data sets as .tab files (parts icml, regression)")
    args = parser.parse_args()
    global DATA_DIR
    DATA_DIR = args.data
    if args.part != "parity" and not (DATA_DIR and os.path.isdir(DATA_DIR)):
        parser.error("--data DIR (a directory of the UCI data sets) is needed for this part")
    folds = 5 if args.quick else 10
    if args.part in ("parity", "all"):
        part_parity(folds)
    if args.part in ("icml", "all"):
        part_icml(folds, args.quick)
    if args.part in ("regression", "all"):
        part_regression(folds, args.quick)


if __name__ == "__main__":
    main()
