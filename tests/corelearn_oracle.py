"""Reading the CORElearn reference numbers (``tests/data/corelearn``, CORElearn 1.57.3's output;
see the README there): data sets, ``attrEval`` columns and tree CV summaries, as the oracle
tests use them."""
import csv
import json
from pathlib import Path

import numpy as np

from orangecontrib.relief.estimators.encoding import encode

ORACLE = Path(__file__).resolve().parent / "data" / "corelearn"
DATASETS = ("iris", "missing20", "housing")
VARIANTS = ("default", "linear", "kvariants", "splits")


def oracle_dir():
    """The oracle folder; an AssertionError that says where it was looked for if it is absent."""
    assert ORACLE.is_dir(), f"the CORElearn reference numbers are missing: expected them in {ORACLE}"
    return ORACLE


def load_data(name):
    """(EncodedData, meta) of data set ``name``: discrete values coded in the declared order,
    the class last."""
    base = oracle_dir() / "data"
    meta = json.loads((base / f"{name}.meta.json").read_text())
    with open(base / f"{name}.csv", newline="") as f:
        rows = list(csv.reader(f))[1:]
    columns = meta["columns"]
    values = []
    for c, col in enumerate(columns):
        cells = [row[c] for row in rows]
        if col["type"] == "discrete":
            codes = {v: i for i, v in enumerate(col["values"])}
            values.append([codes[x] if x != "" else np.nan for x in cells])
        else:
            values.append([float(x) if x != "" else np.nan for x in cells])
    values = np.array(values, dtype=float).T
    discrete = np.array([col["type"] == "discrete" for col in columns[:-1]])
    n_values = np.array([len(col.get("values", ())) for col in columns[:-1]])
    classification = meta["task"] == "classification"
    data = encode(values[:, :-1], values[:, -1], discrete=discrete, n_values=n_values,
                  n_classes=len(columns[-1]["values"]) if classification else 0,
                  names=[col["name"] for col in columns[:-1]])
    return data, meta


def load_attreval(name, variant):
    """{column: array of the attributes' values} of one ``attrEval`` file (NaN for NA)."""
    path = oracle_dir() / "attreval" / f"{name}__{variant}.csv"
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    return {key: np.array([float(r[key]) if r[key] != "NA" else np.nan for r in rows])
            for key in rows[0] if key not in ("attribute", "type")}


def attreval_manifest():
    return json.loads((oracle_dir() / "attreval" / "manifest.json").read_text())


def cv_summary():
    """{(data set, config): row of trees/cv_summary.csv as floats (NaN for NA)}."""
    with open(oracle_dir() / "trees" / "cv_summary.csv", newline="") as f:
        return {(r["dataset"], r["config"]): {k: float(v) if v != "NA" else np.nan
                                              for k, v in r.items()
                                              if k not in ("dataset", "config")}
                for r in csv.DictReader(f)}


def folds(name):
    with open(oracle_dir() / "data" / f"{name}.folds.csv", newline="") as f:
        return np.array([int(r["fold"]) for r in csv.DictReader(f)])


def tree_cv(data, fold_of, make_tree):
    """10-fold CV of the trees ``make_tree()`` grows on the given folds: (accuracy, mean
    leaves) for classification, (relative squared error, mean leaves) for regression, pooled
    over the folds as in trees/cv_summary.csv."""
    correct, num, den, leaves = 0.0, 0.0, 0.0, []
    for fold in np.unique(fold_of):
        test, train = fold_of == fold, fold_of != fold
        tree = make_tree().fit(data.subset(np.flatnonzero(train)))
        leaves.append(tree.leaf_count())
        predicted = tree.predict(data.X[test])
        if data.is_classification:
            correct += np.sum(np.argmax(predicted, axis=1) == data.y[test])
        else:
            num += np.sum((data.y[test] - predicted) ** 2)
            den += np.sum((data.y[test] - data.y[train].mean()) ** 2)
    score = correct / len(fold_of) if data.is_classification else num / den
    return score, float(np.mean(leaves))


def reference_tree(name, config):
    """(splits, leaf weights) of CORElearn's tree in trees/<name>__<config>.tree.txt: the
    splits as printed ("x1 <= 0.251129", "d1= (a)") in preorder, the leaves' weights (2
    decimals) left to right."""
    text = (oracle_dir() / "trees" / f"{name}__{config}.tree.txt").read_text().splitlines()
    splits = {int(line.split(":")[0][1:]): line.split(": ", 1)[1]
              for line in text if line[:1] == "f" and ": " in line}
    leaves = [float(line.split("|")[1].split()[0]) for line in text
              if line[:1] == "l" and "|" in line]
    return [splits[i] for i in sorted(splits)], leaves


def tree_structure(tree, meta):
    """(splits, leaf weights) of our grown tree in the format of :func:`reference_tree`."""
    columns = meta["columns"]
    splits, leaves = [], []

    def walk(node):
        if node.is_leaf:
            leaves.append(round(node.weight, 2))
            return
        col = columns[node.attribute]
        if node.split.is_numeric:
            splits.append(f"{col['name']} <= {node.split.threshold:.6f}")
        else:
            names = ",".join(col["values"][v] for v in node.split.left_values)
            splits.append(f"{col['name']}= ({names})")
        for child in node.children:
            walk(child)
    walk(tree.root)
    return splits, leaves
