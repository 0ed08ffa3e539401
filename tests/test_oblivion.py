"""OBLIVION (Langley 1994, "Pruning of Oblivious Decision Trees"): backward
elimination with leave-one-out / k-fold accuracy, prediction by the nearest stored cases in the
reduced space. Expected values come from hand calculation or plain loops written here."""
import pickle

import numpy as np
import pytest
from Orange.classification import KNNLearner
from Orange.data import Table
from Orange.evaluation import CA, CrossValidation

from orangecontrib.relief.datasets import parity
from orangecontrib.relief.estimators import DiffModel, encode
from orangecontrib.relief.learners import ObliviousTreeLearner
from orangecontrib.relief.oblivion import ObliviousTree, query_distances
from orangecontrib.relief.orange_data import encode_table


# --- plain-loop references --------------------------------------------------------------------

def loop_distance(x, z, data, cols):
    """Manhattan distance of the papers: discrete 0/1, numeric |x - z| / range (no missing)."""
    s = 0.0
    for t in cols:
        if data.discrete[t]:
            s += 0.0 if x[t] == z[t] else 1.0
        else:
            s += abs(x[t] - z[t]) / data.span[t]
    return s


def loop_vote(dists, classes, n_classes):
    """Class of the majority of the nearest cases (lowest code on equal votes)."""
    best = min(dists)
    votes = [0] * n_classes
    for d, c in zip(dists, classes):
        if abs(d - best) <= 1e-9:
            votes[int(c)] += 1
    return votes.index(max(votes))


def loop_errors(data, cols, fold, dist=None):
    """Errors of the nearest-case vote over ``cols``, each instance against the other folds."""
    n = data.n_instances
    errors = 0
    for i in range(n):
        others = [j for j in range(n) if fold[j] != fold[i]]
        if dist is None:
            d = [loop_distance(data.X[i], data.X[j], data, cols) for j in others]
        else:
            d = [dist[i, j] for j in others]
        errors += loop_vote(d, data.y[others], data.n_classes) != data.y[i]
    return errors


def loop_oblivion(data, fold):
    """The paper's greedy backward elimination written as plain loops."""
    kept = list(range(data.n_attributes))
    current = loop_errors(data, kept, fold)
    path = []
    while kept:
        without = [loop_errors(data, [c for c in kept if c != t], fold) for t in kept]
        best = int(np.argmin(without))
        if without[best] > current:
            break
        path.append((kept[best], 1 - without[best] / data.n_instances))
        current = without[best]
        del kept[best]
    return kept, path


def mixed_data(n, seed, n_classes=3):
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.integers(0, 3, n), rng.random(n), rng.integers(0, 2, n),
                         rng.random(n), rng.integers(0, 2, n)]).astype(float)
    y = (X[:, 0] + (X[:, 1] > 0.5) + rng.integers(0, 2, n) * (rng.random(n) < 0.2)) % n_classes
    return encode(X, y, discrete=[True, False, True, False, True], n_classes=n_classes)


def parity_encoded(order, n_irrelevant, n=500, seed=0):
    data, _ = encode_table(parity(order, n_irrelevant, n, random_state=seed))
    return data


# --- the search -------------------------------------------------------------------------------

def test_hand_made_data_stops_after_removing_noise_and_constant():
    # class = A; B misleads; C is constant. By hand (leave-one-out, ties to the lowest code):
    # {A,B,C}: 1 error (instance (1,0) ties 2:2 -> class 0); without B: 0, without C: 1,
    # without A: 4  -> remove B (accuracy 1). {A,C}: 0; without C: 0, without A: 6 -> remove C.
    # {A}: 0; without A every other instance ties, the other class has the majority: 6 > 0 -> stop.
    X = np.array([[0, 0, 0], [0, 0, 0], [0, 1, 0], [1, 0, 0], [1, 1, 0], [1, 1, 0]], float)
    y = X[:, 0]
    data = encode(X, y, discrete=True, n_values=2, n_classes=2, names=["A", "B", "C"])
    model = ObliviousTree(search="greedy").fit(data)
    assert model.retained.tolist() == [0]
    assert [t for t, _ in model.path] == [1, 2]
    np.testing.assert_allclose([acc for _, acc in model.path], [1.0, 1.0])
    assert model.initial_accuracy == pytest.approx(5 / 6)
    assert model.accuracy == 1.0
    # accuracy lost on removal: A from the final tree 6/6; B, C at their steps -1/6 and 0
    np.testing.assert_allclose(model.accuracy_loss, [1.0, -1 / 6, 0.0])
    full = ObliviousTree().fit(data)            # the default: the full elimination path
    assert full.retained.tolist() == [0]
    assert [t for t, _ in full.path] == [1, 2, 0]
    assert full.eliminated.tolist() == [1, 2]


@pytest.mark.parametrize("seed", [0, 1])
def test_incremental_leave_one_out_search_equals_brute_force_loops(seed):
    data = mixed_data(40, seed)
    model = ObliviousTree(search="greedy").fit(data)
    kept, path = loop_oblivion(data, np.arange(40))
    assert model.initial_accuracy == pytest.approx(1 - loop_errors(data, range(5), np.arange(40)) / 40)
    assert model.retained.tolist() == kept
    assert [t for t, _ in model.path] == [t for t, _ in path]
    np.testing.assert_allclose([a for _, a in model.path], [a for _, a in path])


def test_k_fold_search_equals_brute_force_with_same_folds():
    data = mixed_data(45, 3)
    tree = ObliviousTree(folds=5, random_state=7, search="greedy")
    fold = tree.fold_assignment(data)
    assert sorted(np.bincount(fold).tolist()) == [9] * 5
    model = tree.fit(data)
    kept, path = loop_oblivion(data, fold)
    assert model.retained.tolist() == kept
    np.testing.assert_allclose([a for _, a in model.path], [a for _, a in path])
    again = ObliviousTree(folds=5, random_state=7, search="greedy").fit(data)
    assert again.path == model.path


def test_k_fold_assignment_is_stratified():
    data = mixed_data(60, 4)
    fold = ObliviousTree(folds=3, random_state=0).fold_assignment(data)
    for c in range(3):
        counts = np.bincount(fold[data.y == c], minlength=3)
        assert counts.max() - counts.min() <= 1


@pytest.mark.parametrize("order", [2, 3])
def test_parity_with_10_irrelevant_keeps_exactly_the_informative(order):
    data = parity_encoded(order, 10)
    model = ObliviousTree().fit(data)
    assert [data.names[t] for t in model.retained] == [f"I{i + 1}" for i in range(order)]
    assert model.accuracy == 1.0


@pytest.mark.parametrize("order", [2, 3])
def test_parity_with_50_irrelevant_full_path_keeps_exactly_the_informative(order):
    data = parity_encoded(order, 50)
    model = ObliviousTree(search="full-path").fit(data)
    assert [data.names[t] for t in model.retained] == [f"I{i + 1}" for i in range(order)]
    assert (model.accuracy_loss[model.retained] > 0.3).all()


def test_langleys_rule_stops_on_the_plateau_of_many_irrelevant_attributes():
    # the documented behaviour of search="greedy": with 50 irrelevant attributes the
    # leave-one-out estimate sits near chance and the rule stops after 12 removals
    data = parity_encoded(2, 50)
    model = ObliviousTree(search="greedy").fit(data)
    names = [data.names[t] for t in model.retained]
    assert len(names) == 40 and {"I1", "I2"} <= set(names)
    assert len(model.path) == 12


# --- prediction -------------------------------------------------------------------------------

def test_prediction_is_nearest_neighbour_on_retained_attributes_numeric():
    rng = np.random.default_rng(5)
    X = rng.random((80, 6))
    y = ((X[:, 0] > 0.5) ^ (X[:, 1] > 0.5)).astype(float)
    data = encode(X, y, n_classes=2)
    model = ObliviousTree().fit(data)
    assert model.retained.size < 6
    Q = rng.random((50, 6))
    expected = []
    for q in Q:
        d = [loop_distance(q, x, data, model.retained) for x in X]
        expected.append(y[int(np.argmin(d))])
    np.testing.assert_array_equal(model.predict(Q), expected)


def test_prediction_votes_among_all_tied_nearest_cases():
    rng = np.random.default_rng(6)
    X = rng.integers(0, 3, (90, 5)).astype(float)
    y = (X[:, 0] + rng.integers(0, 2, 90)) % 3
    data = encode(X, y, discrete=True, n_values=3, n_classes=3)
    model = ObliviousTree().fit(data)
    Q = rng.integers(0, 3, (40, 5)).astype(float)
    proba = model.predict_proba(Q)
    for q, p, pred in zip(Q, proba, model.predict(Q)):
        d = [loop_distance(q, x, data, model.retained) for x in X]
        nearest = np.abs(np.array(d) - min(d)) <= 1e-9
        np.testing.assert_allclose(p, np.bincount(y[nearest].astype(int), minlength=3)
                                   / nearest.sum())
        assert pred == loop_vote(d, y, 3)


# --- missing values (the engine's RELIEF-D diff) ------------------------------------------------

def missing_data(seed=8):
    data = mixed_data(40, seed)
    X = data.X.copy()
    rng = np.random.default_rng(seed)
    X[rng.random(X.shape) < 0.15] = np.nan
    return encode(X, data.y, discrete=data.discrete, n_values=data.n_values, n_classes=3)


def test_missing_values_leave_one_out_uses_the_engine_distances():
    data = missing_data()
    model = ObliviousTree().fit(data)
    dist = DiffModel(data).distances(np.arange(40))
    assert model.initial_accuracy == pytest.approx(1 - loop_errors(data, None, np.arange(40),
                                                                  dist) / 40)
    t, acc = model.path[0]
    kept = [c for c in range(5) if c != t]
    dist_without = DiffModel(data.columns(kept)).distances(np.arange(40))
    assert acc == pytest.approx(1 - loop_errors(data, None, np.arange(40), dist_without) / 40)


def test_query_with_missing_values_uses_relief_d_for_the_case_class():
    data = missing_data(9)
    engine = DiffModel(data).distances(np.arange(40))
    rows = np.flatnonzero(np.isnan(data.X).any(axis=1))[:8]
    got = query_distances(data, data.X[rows], DiffModel(data).options)
    for q, i in enumerate(rows):
        same = data.y == data.y[i]   # the query's class taken as the case's: equal there
        np.testing.assert_allclose(got[q, same], engine[i, same])
    model = ObliviousTree().fit(data)
    proba = model.predict_proba(data.X[rows])
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)


def test_query_with_all_retained_attributes_missing_gets_the_training_distribution():
    data = parity_encoded(2, 3)
    model = ObliviousTree().fit(data)
    assert model.retained.tolist() == [0, 1]
    Q = np.array([[np.nan, np.nan, 0, 1, 0], [0, 1, np.nan, np.nan, np.nan],
                  [np.nan, 1, 0, 0, 0]])
    proba = model.predict_proba(Q)
    counts = np.bincount(data.y.astype(int), minlength=2)
    np.testing.assert_allclose(proba[0], counts / counts.sum())
    np.testing.assert_allclose(proba[1], [0, 1])                # 0 xor 1
    assert proba[2].sum() == pytest.approx(1)   # one known: the nearest cases vote (RELIEF-D)


# --- bad input, parameters, progress ------------------------------------------------------------

def test_regression_target_is_a_value_error():
    data = encode(np.random.default_rng(0).random((20, 3)), np.arange(20.0))
    with pytest.raises(ValueError, match="classification"):
        ObliviousTree().fit(data)


def test_one_class_is_a_value_error():
    data = encode(np.random.default_rng(0).random((20, 3)), np.zeros(20), n_classes=2)
    with pytest.raises(ValueError, match="two classes"):
        ObliviousTree().fit(data)


@pytest.mark.parametrize("kwargs, match", [({"folds": 1}, "folds"), ({"folds": True}, "folds"),
                                           ({"folds": 41}, "folds"), ({"search": "x"}, "search"),
                                           ({"missing": "E"}, "missing")])
def test_bad_parameters_name_the_parameter(kwargs, match):
    with pytest.raises(ValueError, match=match):
        ObliviousTree(**kwargs).fit(mixed_data(40, 0))


def test_callback_reports_progress_and_cancels():
    fractions = []
    ObliviousTree().fit(mixed_data(40, 0), fractions.append)
    assert fractions[-1] == 1.0 and np.all(np.diff(fractions) >= 0)

    def cancel(fraction):
        raise KeyboardInterrupt
    with pytest.raises(KeyboardInterrupt):
        ObliviousTree().fit(mixed_data(40, 0), cancel)


# --- Orange learner -----------------------------------------------------------------------------

def test_learner_model_pickles_and_predicts_the_same():
    table = parity(2, 5, 100, random_state=2)
    model = ObliviousTreeLearner()(table)
    assert [v.name for v in model.retained_attributes] == ["I1", "I2"]
    assert model.eliminated_attributes[0] is model.path[0][0]
    clone = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(clone(table, clone.Probs), model(table, model.Probs))
    np.testing.assert_array_equal(model(table), table.Y)


def test_learner_in_cross_validation_beats_1nn_on_parity():
    table = parity(2, 10, 300, random_state=3)
    results = CrossValidation(k=5, random_state=0)(table, [ObliviousTreeLearner(),
                                                           KNNLearner(n_neighbors=1)])
    oblivion, knn = CA(results)
    assert oblivion > 0.95 and oblivion > knn + 0.2


def test_learner_as_rank_scorer_scores_accuracy_lost():
    table = parity(2, 5, 100, random_state=2)
    learner = ObliviousTreeLearner()
    scores = learner.score_data(table)
    assert scores.shape == (1, 7)
    assert set(np.argsort(-scores[0])[:2]) == {0, 1}
    np.testing.assert_allclose(scores[0], learner(table).tree.accuracy_loss)
    with pytest.raises(ValueError, match="categorical class"):
        learner.score_data(Table("housing"))


def test_a_fit_beyond_the_available_memory_is_refused_before_allocating(monkeypatch):
    from orangecontrib.relief.estimators import base
    monkeypatch.setattr(base, "available_memory", lambda: 10 * 2 ** 20)      # 10 MB
    with pytest.raises(ValueError, match="OBLIVION on 40 instances x 5 attributes needs about"):
        ObliviousTree().fit(mixed_data(40, 0))


def test_integer_weights_equal_repeated_instances():
    # leave-one-out: an instance of weight w is w copies, of which the other w - 1 stay cases
    data = mixed_data(30, 2)
    counts = 1 + np.arange(30) % 3
    weighted = encode(data.X, data.y, discrete=data.discrete, n_values=data.n_values,
                      n_classes=3, weights=counts.astype(float))
    repeated = encode(np.repeat(data.X, counts, axis=0), np.repeat(data.y, counts),
                      discrete=data.discrete, n_values=data.n_values, n_classes=3)
    for search in ("greedy", "full-path"):
        a = ObliviousTree(search=search).fit(weighted)
        b = ObliviousTree(search=search).fit(repeated)
        assert a.retained.tolist() == b.retained.tolist()
        assert [t for t, _ in a.path] == [t for t, _ in b.path]
        np.testing.assert_allclose([acc for _, acc in a.path], [acc for _, acc in b.path])
        assert a.accuracy == pytest.approx(b.accuracy)
        np.testing.assert_allclose(a.accuracy_loss, b.accuracy_loss)
        np.testing.assert_allclose(a.predict_proba(data.X), b.predict_proba(data.X))
