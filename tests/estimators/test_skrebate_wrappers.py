"""Iterative Relief, VLS and TuRF around every core with ``preset="skrebate"`` against
scikit-rebate 0.8.4's own numbers, stored in ``tests/data/skrebate/<file>.wrappers.scores.csv``
and ``<file>.turf.scores.csv`` (computed by scikit-rebate's ``Iter``, ``VLS`` and ``TURF``; see
``make_wrapper_cores.py`` and ``make_turf.py`` there): every third row of its five test files
and of 100 SNPs, to a relative 1e-8. scikit-rebate's Iter fails on mixed attributes (its
weighted distance); the preset refuses them with a clear error."""
import csv
import os
import random

import numpy as np
import pytest

from test_skrebate import HERE, OURS, TOL, ours, relative_difference

from orangecontrib.relief.estimators import encode
from orangecontrib.relief.estimators.iterative import Iter
from orangecontrib.relief.estimators.turf import TuRF
from orangecontrib.relief.estimators.vls import VLS, subset_maximum

#: the rows and rounds of the stored runs (make_wrapper_cores.py's STEP and ROUNDS)
STEP, ROUNDS = 3, 3


def load(name):
    """(encoded every third row of ``name``, {run: scores or None where it failed},
    VLS's subsets); discrete and numeric as scikit-rebate decides (at most 10 values)."""
    with open(os.path.join(HERE, f"{name}.csv")) as f:
        rows = list(csv.reader(f))[1::STEP]
    values = np.array([[float(v) if v else np.nan for v in r] for r in rows])
    X, y = values[:, :-1], values[:, -1]
    discrete = [np.unique(c[~np.isnan(c)]).size <= 10 for c in X.T]
    n_classes = 0 if np.unique(y).size > 10 else np.unique(y).size
    runs, subsets = {}, []
    with open(os.path.join(HERE, f"{name}.wrappers.scores.csv")) as f:
        for line in csv.reader(f):
            if line[0] == "subset":
                subsets.append(np.array(line[1:], np.intp))
            else:
                runs[line[0]] = None if line[1:] == ["failed"] else np.array(line[1:], float)
    return encode(X, y, discrete=discrete, n_classes=n_classes), runs, subsets


#: every combination was checked against the stored numbers when they were made; the suite
#: keeps every core on the two SNP files, one core of each kind and the two cores that take
#: the k nearest (ReliefF) or farthest (μ-Relief) on the others: their neighbours tie at the
#: k-th place under weighted distances, so the preset must reach scikit-rebate's estimates to
#: the last bit for the next round's ties to fall as its do (the missing values' weighted
#: distances are computed pair by pair, as scikit-rebate does: slow)
KINDS = ["SURF", "MultiSURFstar", "SWRFstar", "MultiSWRFDB"]
ITER_CASES = [(file, name) for file in ("binary", "snps") for name in OURS] \
    + [(file, name) for file in ("three_classes", "continuous")
       for name in KINDS + ["ReliefF", "MuRelief"]] \
    + [("missing", name) for name in ("SURF", "MultiSWRFDB", "ReliefF", "MuRelief")] \
    + [("mixed", "MultiSURF"), ("mixed", "ReliefF")]
VLS_CASES = [(file, name) for file in ("binary", "snps") for name in OURS] \
    + [(file, name) for file in ("three_classes", "continuous", "mixed", "missing")
       for name in KINDS + ["ReliefF", "MuRelief"]]
_LOADED = {}


def table(file):
    if file not in _LOADED:
        _LOADED[file] = load(file)
    return _LOADED[file]


@pytest.mark.parametrize("file, name", ITER_CASES)
def test_iter_with_the_preset_reproduces_skrebate(file, name):
    data, runs, _ = table(file)
    iterative = Iter(ours(name, data, preset="skrebate"), max_iter=ROUNDS)
    expected = runs[f"Iter({name})"]
    if expected is None:
        assert file == "mixed"
        with pytest.raises(ValueError, match="no weighted distance over discrete and numeric"):
            iterative(data)
    else:
        assert relative_difference(iterative(data), expected) < TOL


@pytest.mark.parametrize("file, name", VLS_CASES)
def test_vls_with_the_preset_reproduces_skrebate_on_its_subsets(file, name):
    data, runs, subsets = table(file)
    got, _ = subset_maximum(ours(name, data, preset="skrebate"), data, subsets)
    assert relative_difference(got, runs[f"VLS({name})"]) < TOL


@pytest.mark.parametrize("file", ["binary", "snps", "three_classes", "continuous", "mixed",
                                  "missing"])
def test_vls_with_the_preset_and_a_seed_draws_skrebates_subsets(file):
    """With the preset and an integer seed VLS draws the subsets scikit-rebate's VLS drew with
    that seed (stored with its numbers), so the whole run is scikit-rebate's, and Python's
    global generator is left alone."""
    data, runs, subsets = table(file)
    state = random.getstate()
    vls = VLS(ours("MultiSURF", data, preset="skrebate"), subsets=len(subsets),
              size=subsets[0].size, random_state=7)
    context = vls.context(data)
    assert random.getstate() == state
    assert [s.tolist() for s in context.subsets] == [s.tolist() for s in subsets]
    assert relative_difference(context.estimates, runs["VLS(MultiSURF)"]) < TOL
    # without the preset the same seed draws other subsets (our generator, the same law)
    plain = VLS(ours("MultiSURF", data), subsets=len(subsets), size=subsets[0].size,
                random_state=7).context(data)
    assert [s.tolist() for s in plain.subsets] != [s.tolist() for s in subsets]


def turf_runs(file):
    """{(core, pct, scores): scikit-rebate's TURF scores} of ``<file>.turf.scores.csv``
    (written by make_turf.py there)."""
    with open(os.path.join(HERE, f"{file}.turf.scores.csv")) as f:
        runs = {}
        for line in csv.reader(f):
            core, pct, scores = line[0][len("TURF("):-1].split(", ")
            runs[core, float(pct), int(scores)] = np.array(line[1:], float)
    return runs


@pytest.mark.parametrize("file", ["binary", "snps", "three_classes", "continuous", "mixed",
                                  "missing"])
def test_turf_with_the_preset_reproduces_skrebate(file):
    """TuRF around a core with the preset is scikit-rebate's TURF: its removal rounds, its
    stop and its flat tiers, on every stored core and setting (pct, num_scores_to_return)."""
    data, _, _ = table(file)
    runs = turf_runs(file)
    assert len(runs) == 15
    for (core, pct, scores), expected in runs.items():
        got = TuRF(ours(core, data, preset="skrebate"), remove=pct, keep=scores)(data)
        assert relative_difference(got, expected) < TOL, (core, pct, scores)


def test_iter_with_the_preset_goes_on_after_a_round_without_a_positive_estimate():
    """scikit-rebate's Iter weighs every attribute 0 after a round without a positive estimate;
    with the preset ours does too. By hand: the weighted distances are then all 0, so SURF's
    near band (closer than the mean distance, 0) is empty, every estimate of that round is 0,
    and it equals the previous round's weights (all 0): the rounds stop with 0 everywhere.
    Without the preset the rounds stop at the first round, whose estimates are the result."""
    rng = np.random.default_rng(18)
    X, y = rng.normal(size=(40, 4)), rng.normal(size=40)
    data = encode(X, y, discrete=False, n_classes=0)
    for preset in ("skrebate", "papers"):     # no positive estimate in the first round
        assert ours("SURF", data, preset=preset)(data).max() < 0
    context = Iter(ours("SURF", data, preset="skrebate"), max_iter=3).context(data)
    assert context.rounds == 2 and not context.weights.any()
    np.testing.assert_array_equal(context.estimates, np.zeros(4))
    plain = Iter(ours("SURF", data), max_iter=3).context(data)
    assert plain.rounds == 1 and plain.weights is None
    np.testing.assert_array_equal(plain.estimates, ours("SURF", data)(data))
    with pytest.raises(ValueError, match="must not all be 0"):
        data.with_attribute_weights(np.zeros(4))
