"""Properties of ReliefF stated or implied by the papers.

* Parity (Robnik-Šikonja & Kononenko 1999 §2, Fig. 2; Kononenko 1994 §2):
  ReliefF ranks the informative attributes of parity-2 / parity-3 with 10 irrelevant binary
  attributes (200 instances) first; information gain (myopic) does not.
* k = all neighbours (eqs. 4-6): ReliefF becomes myopic; exact relation to eq. 5 derived below.
* Relief (Fig. 1) equals ReliefF (Fig. 3) with k = 1 on two classes.
* Determinism for equal ``random_state``.
"""
import numpy as np
import pytest

from orangecontrib.relief import datasets
from orangecontrib.relief.estimators import encode
from orangecontrib.relief.estimators.impurity import InfGain
from orangecontrib.relief.estimators.relieff import Relief, ReliefF


def encoded_table(table):
    """EncodedData of an all-discrete Orange table with a discrete class (done here, so the
    test does not depend on the Orange adapter)."""
    return encode(table.X, table.Y, discrete=True,
                  n_values=[len(a.values) for a in table.domain.attributes],
                  n_classes=len(table.domain.class_var.values))


@pytest.mark.parametrize("order", [2, 3])
def test_parity_informative_attributes_rank_first_with_relieff_not_with_infgain(order):
    table = datasets.parity(order=order, n_irrelevant=10, n_instances=200, random_state=0)
    data = encoded_table(table)
    informative = {i for i, a in enumerate(table.domain.attributes) if a.name.startswith("I")}
    assert len(informative) == order and data.n_attributes == order + 10

    relieff = ReliefF(k=10)(data)
    assert set(np.argsort(-relieff)[:order]) == informative
    # a clear margin: the worst informative attribute beats the best irrelevant one
    irrelevant = [i for i in range(data.n_attributes) if i not in informative]
    assert min(relieff[list(informative)]) > max(relieff[irrelevant]) + 0.05

    gain = InfGain()(data)
    assert set(np.argsort(-gain)[:order]) != informative
    # each informative attribute alone tells (almost) nothing about the parity class
    assert max(gain[list(informative)]) < 0.02


def counts(data):
    """n_vc[t] = (V, C) count table of discrete attribute t."""
    y = data.y.astype(int)
    tables = []
    for t in range(data.n_attributes):
        n = np.zeros((data.n_values[t], data.n_classes))
        for v, c in zip(data.X[:, t].astype(int), y):
            n[v, c] += 1
        tables.append(n)
    return tables


def eq5(n_vc):
    """Myopic ReliefF, eq. 5 with eq. 6, from a count table (probabilities as relative
    frequencies): P_equal Gini'(A) / (P_samecl (1 - P_samecl))."""
    N = n_vc.sum()
    p_v = n_vc.sum(axis=1) / N
    p_c = n_vc.sum(axis=0) / N
    p_equal = (p_v ** 2).sum()
    p_samecl = (p_c ** 2).sum()
    with np.errstate(invalid="ignore", divide="ignore"):
        p_c_given_v = np.where(p_v[:, None] > 0, n_vc / n_vc.sum(axis=1, keepdims=True), 0)
    gini = (p_v ** 2 / p_equal * (p_c_given_v ** 2).sum(axis=1)).sum() - p_samecl   # eq. 6
    return p_equal * gini / (p_samecl * (1 - p_samecl))


def without_self(n_vc):
    """ReliefF with k = all, every instance once, equal weights, from the counts.

    With k >= every class size the hits of R (value v, class c) are the other n_c - 1 instances
    of c and its misses all instances of every other class C, class C weighted by
    P(C) / (1 - P(c)) / n_C = 1 / (N - n_c) each, i.e. all N - n_c misses uniformly. So
        hits:   mean diff = 1 - (n_vc - 1) / (n_c - 1)
        misses: mean diff = 1 - (n_v - n_vc) / (N - n_c)
    and W = 1/N sum_vc n_vc [ (n_vc - 1)/(n_c - 1) - (n_v - n_vc)/(N - n_c) ].
    Eq. 5 is the same difference of probabilities for pairs drawn *with* replacement (R may be
    its own hit), which is why it is the limit and not the exact value."""
    N = n_vc.sum()
    n_v = n_vc.sum(axis=1, keepdims=True)
    n_c = n_vc.sum(axis=0, keepdims=True)
    return (n_vc * ((n_vc - 1) / (n_c - 1) - (n_v - n_vc) / (N - n_c))).sum() / N


def independent_table(n_per_class, n_classes, seed):
    """Discrete attributes of varied informativeness and number of values, classes of equal
    size ``n_per_class``."""
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(n_classes), n_per_class)
    cols, n_values = [], []
    for strength, v in [(0.9, 2), (0.6, 2), (0.3, 3), (0.0, 2), (0.5, 4), (0.0, 3), (0.2, 2)]:
        informed = rng.random(y.size) < strength
        cols.append(np.where(informed, y % v, rng.integers(0, v, y.size)))
        n_values.append(v)
    X = np.column_stack(cols).astype(float)
    return encode(X, y, discrete=True, n_values=n_values, n_classes=n_classes)


@pytest.mark.parametrize("n_classes, seed", [(2, 1), (3, 2), (4, 3)])
def test_relieff_with_all_neighbours_is_eq5_without_replacement(n_classes, seed):
    data = independent_table(40, n_classes, seed)
    tables = counts(data)
    w = ReliefF(k=10_000)(data)          # k >= every class size: all hits, all misses
    # exact: the without-self form of eqs. 4-5 (see without_self)
    np.testing.assert_allclose(w, [without_self(n) for n in tables], rtol=0, atol=1e-12)

    # relation to eq. 5: with classes of equal size n_c (P(C) = 1/C) the two differ exactly by
    # the self-pair correction (1 - P(equal | same class)) / (n_c - 1), where
    # P(equal | same class) = sum_vc n_vc^2 / (N n_c) is eq. 5's with-replacement probability.
    # Derivation: with n_c = N/C, 1/(N - n_c) = C/(N (C-1)), so the miss terms coincide, and the
    # hit terms differ by sum_vc n_vc^2 / N * (1/(n_c - 1) - 1/n_c) - 1/(n_c - 1).
    n_c = 40
    N = n_c * n_classes
    myopic = np.array([eq5(n) for n in tables])
    p_equal_same = np.array([(n ** 2).sum() / (N * n_c) for n in tables])
    np.testing.assert_allclose(w, myopic - (1 - p_equal_same) / (n_c - 1), rtol=0, atol=1e-12)
    # so ReliefF is not exactly proportional to eq. 5 (the correction depends on the attribute)
    # but differs by O(1/n_c); the rankings agree and the correlation is nearly 1
    assert np.max(np.abs(w - myopic)) <= 1 / (n_c - 1)
    assert np.corrcoef(w, myopic)[0, 1] > 0.99
    np.testing.assert_array_equal(np.argsort(-w)[:3], np.argsort(-myopic)[:3])


def test_relieff_with_all_neighbours_on_unequal_classes():
    # priors 1/2, 1/3, 1/6: the without-self identity still holds exactly; eq. 5 only
    # approximately (the correction now differs between classes), correlation > 0.99
    rng = np.random.default_rng(4)
    data = independent_table(30, 3, 5)
    keep = np.concatenate([np.flatnonzero(data.y == 0), np.flatnonzero(data.y == 1)[:20],
                           np.flatnonzero(data.y == 2)[:10]])
    keep = rng.permutation(keep)
    data = data.subset(keep)
    tables = counts(data)
    w = ReliefF(k=10_000)(data)
    np.testing.assert_allclose(w, [without_self(n) for n in tables], rtol=0, atol=1e-12)
    assert np.corrcoef(w, [eq5(n) for n in tables])[0, 1] > 0.99


def test_relief_e_and_relief_f_agree_with_all_neighbours():
    # with every miss taken, P(C)/(1 - P(c)) / n_C = 1/(N - n_c): prior-weighted per-class misses
    # (RELIEF-F) weigh every miss as the pooled misses of RELIEF-E do
    data = independent_table(25, 3, 6)
    np.testing.assert_allclose(ReliefF(k=1000, misses="pooled")(data), ReliefF(k=1000)(data),
                               rtol=0, atol=1e-12)
    # but not with few neighbours (the nearest misses then come from different classes)
    assert not np.allclose(ReliefF(k=3, misses="pooled")(data), ReliefF(k=3)(data))


def test_parity_relieff_with_all_neighbours_is_myopic():
    # Fig. 2: with k -> all the informative parity attributes become indistinguishable from the
    # random ones (eq. 5 is near 0 for each of them)
    data = encoded_table(datasets.parity(order=2, n_instances=200, random_state=0))
    w = ReliefF(k=10_000)(data)
    assert np.max(np.abs(w)) < 0.05
    assert ReliefF(k=10)(data)[0] > 0.3


def tie_free_two_class(seed):
    rng = np.random.default_rng(seed)
    X = rng.random((40, 5))
    y = (X[:, 0] + X[:, 1] + 0.3 * rng.random(40) > 1.1).astype(float)
    return encode(X, y, n_classes=2)


@pytest.mark.parametrize("seed", [0, 1])
def test_relief_equals_relieff_with_k1_on_two_classes(seed):
    # Fig. 1 vs Fig. 3: with two classes P(C)/(1 - P(class(R))) = 1 and the one nearest miss of
    # "the other class" is the nearest of "a different class"
    data = tie_free_two_class(seed)
    np.testing.assert_allclose(Relief()(data), ReliefF(k=1)(data), rtol=0, atol=1e-12)
    # also on a parity table full of distance ties (both break ties the same way)
    parity = encoded_table(datasets.parity(order=2, n_instances=100, random_state=seed))
    np.testing.assert_allclose(Relief()(parity), ReliefF(k=1)(parity), rtol=0, atol=1e-12)


def test_relief_differs_from_relieff_k1_on_three_classes():
    # the property is specific to two classes: with three, ReliefF weighs a miss per class
    data = independent_table(20, 3, 7)
    assert not np.allclose(Relief()(data), ReliefF(k=1)(data))


@pytest.mark.parametrize("make", [
    lambda s: ReliefF(k=5, iterations=30, random_state=s),
    lambda s: ReliefF(k=5, iterations=30, random_state=s, weighting="exp-rank", sigma=2.0),
    lambda s: Relief(iterations=30, random_state=s),
], ids=["ReliefF", "ReliefF-exp-rank", "Relief"])
def test_equal_random_state_gives_identical_estimates(make):
    data = encoded_table(datasets.parity(order=2, n_instances=120, random_state=3))
    np.testing.assert_array_equal(make(11)(data), make(11)(data))
    np.testing.assert_array_equal(make(np.random.default_rng(5))(data),
                                  make(np.random.default_rng(5))(data))
    assert not np.array_equal(make(11)(data), make(12)(data))


def test_all_iterations_need_no_random_state():
    data = encoded_table(datasets.parity(order=2, n_instances=120, random_state=3))
    np.testing.assert_array_equal(ReliefF(k=5, random_state=1)(data),
                                  ReliefF(k=5, random_state=2)(data))
