"""Tests of the generators of the papers' artificial problems (orangecontrib.relief.datasets).

Expected values come from the papers' definitions (Kononenko 1994 §2 and §4,
Robnik-Šikonja & Kononenko 1999 §2/§4), recomputed here with plain loops."""
import numpy as np
import pytest
from Orange.data import ContinuousVariable, DiscreteVariable

from orangecontrib.relief import datasets

GENERATORS = [
    lambda **kw: datasets.parity(**kw),
    lambda **kw: datasets.parity_regression(**kw),
    lambda **kw: datasets.independent(**kw),
    lambda **kw: datasets.independent_parity(order=3, **kw),
    lambda **kw: datasets.multiclass(n_classes=4, parity=True, **kw),
    lambda **kw: datasets.modulo(**kw),
    lambda **kw: datasets.fraction(**kw),
]


def names(table):
    return [a.name for a in table.domain.attributes]


def column(table, name):
    return table.get_column(name)


@pytest.mark.parametrize("generate", GENERATORS)
def test_equal_random_state_gives_equal_table(generate):
    a, b = generate(), generate()
    np.testing.assert_array_equal(a.X, b.X)
    np.testing.assert_array_equal(a.Y, b.Y)
    c, d = generate(random_state=7), generate(random_state=7)
    np.testing.assert_array_equal(c.X, d.X)
    np.testing.assert_array_equal(c.Y, d.Y)


@pytest.mark.parametrize("generate", GENERATORS)
def test_different_random_states_give_different_tables(generate):
    a, b = generate(random_state=1), generate(random_state=2)
    assert not np.array_equal(a.X, b.X)


def test_parity_class_is_xor_of_informative_attributes():
    for order in (2, 3, 4):
        table = datasets.parity(order=order, n_irrelevant=5, n_instances=300)
        assert names(table) == [f"I{i}" for i in range(1, order + 1)] + [f"R{i}" for i in
                                                                         range(1, 6)]
        assert all(a.values == ("0", "1") for a in table.domain.attributes)
        assert table.domain.class_var.values == ("0", "1")
        for row in table:
            xor = 0
            for i in range(order):
                xor ^= int(row[i])
            assert int(row.get_class()) == xor


def test_parity_attributes_are_uniform_and_each_alone_uninformative():
    table = datasets.parity(order=2, n_instances=40000)
    y = table.Y
    for name in ("I1", "I2", "R1"):
        x = column(table, name)
        assert abs(x.mean() - 0.5) < 0.015
        # a single informative attribute says nothing about the parity class
        assert abs(y[x == 1].mean() - y[x == 0].mean()) < 0.03


def test_parity_regression_target_is_numeric_xor():
    table = datasets.parity_regression(order=3, n_irrelevant=2, n_instances=200)
    assert isinstance(table.domain.class_var, ContinuousVariable)
    expected = [(int(r[0]) + int(r[1]) + int(r[2])) % 2 for r in table]
    np.testing.assert_array_equal(table.Y, expected)


@pytest.mark.parametrize("noise", [0.1, 0.2, 0.35])
def test_class_noise_changes_exactly_that_fraction_of_classes(noise):
    for generate, n_classes in [(datasets.parity, 2), (datasets.independent, 2),
                                (lambda **kw: datasets.multiclass(n_classes=4, **kw), 4),
                                (lambda **kw: datasets.modulo(p=5, **kw), 5)]:
        clean = generate(n_instances=400)
        noisy = generate(n_instances=400, class_noise=noise)
        np.testing.assert_array_equal(clean.X, noisy.X)  # attributes are untouched
        changed = clean.Y != noisy.Y
        assert changed.sum() == round(noise * 400)
        assert set(np.unique(noisy.Y)) <= set(range(n_classes))


def test_independent_probabilities_hold_on_a_large_sample():
    """Kononenko 1994 §2: P(V1) = 0.5..0.1 for random attributes,
    P(V1|C1) = 0.95..0.55 and P(V1|C2) = 1 - P(V1|C1) for informative ones, P(C1) = 0.5."""
    table = datasets.independent(n_instances=60000)
    assert names(table) == ["R1", "R2", "R3", "R4", "R5", "I1", "I2", "I3", "I4", "I5"]
    c1 = table.Y == 0
    assert abs(c1.mean() - 0.5) < 0.01
    for name, prior in zip(["R1", "R2", "R3", "R4", "R5"], [0.5, 0.4, 0.3, 0.2, 0.1]):
        x = column(table, name)
        assert abs(x.mean() - prior) < 0.01
        assert abs(x[c1].mean() - x[~c1].mean()) < 0.02  # independent of the class
    for name, p in zip(["I1", "I2", "I3", "I4", "I5"], [0.95, 0.85, 0.75, 0.65, 0.55]):
        x = column(table, name)
        assert abs(x[c1].mean() - p) < 0.01
        assert abs(x[~c1].mean() - (1 - p)) < 0.01


@pytest.mark.parametrize("order", [2, 3])
def test_independent_parity_groups_encode_the_informative_attribute(order):
    """Kononenko 1994 §2: each informative attribute becomes `order` bits whose
    parity is even exactly for V1, so P(even | C1) = P(V1|C1) while every bit alone is
    uninformative."""
    table = datasets.independent_parity(order=order, n_instances=60000)
    assert len(table.domain.attributes) == 5 + 5 * order
    c1 = table.Y == 0
    suffixes = "abc"[:order]
    for i, p in enumerate([0.95, 0.85, 0.75, 0.65, 0.55], start=1):
        bits = [column(table, f"I{i}{s}") for s in suffixes]
        even = sum(bits) % 2 == 0
        assert abs(even[c1].mean() - p) < 0.01
        assert abs(even[~c1].mean() - (1 - p)) < 0.01
        for bit in bits:
            assert abs(bit[c1].mean() - 0.5) < 0.015
            assert abs(bit[~c1].mean() - 0.5) < 0.015


@pytest.mark.parametrize("n_classes, parity, n_attributes",
                         [(3, False, 12), (4, False, 21), (3, True, 21), (4, True, 39)])
def test_multiclass_attribute_counts_match_the_paper(n_classes, parity, n_attributes):
    table = datasets.multiclass(n_classes=n_classes, parity=parity, n_instances=50)
    assert len(table.domain.attributes) == n_attributes  # Kononenko 1994 §4
    assert len(table.domain.class_var.values) == n_classes


def test_multiclass_probabilities_hold_on_a_large_sample():
    """§4: for the attribute informative for classes 1 and 3, P(V1|C1) = 0.95, 0.75, 0.55,
    P(V1|C3) = 1 - P(V1|C1), P(V1|C2) = P(V1|C4) = 0.5; classes equally probable."""
    table = datasets.multiclass(n_classes=4, n_instances=80000)
    y = table.Y
    for c in range(4):
        assert abs((y == c).mean() - 0.25) < 0.01
    for level, p in zip((1, 2, 3), (0.95, 0.75, 0.55)):
        x = column(table, f"I13.{level}")
        assert abs(x[y == 0].mean() - p) < 0.015
        assert abs(x[y == 2].mean() - (1 - p)) < 0.015
        assert abs(x[y == 1].mean() - 0.5) < 0.015
        assert abs(x[y == 3].mean() - 0.5) < 0.015
    for name in ("R1", "R2", "R3"):
        assert abs(column(table, name).mean() - 0.5) < 0.01


def test_multiclass_parity_pairs_encode_the_informative_attribute():
    table = datasets.multiclass(n_classes=3, parity=True, n_instances=60000)
    y = table.Y
    even = (column(table, "I23.1a") + column(table, "I23.1b")) % 2 == 0
    assert abs(even[y == 1].mean() - 0.95) < 0.015
    assert abs(even[y == 2].mean() - 0.05) < 0.015
    assert abs(even[y == 0].mean() - 0.5) < 0.015


def test_modulo_class_is_sum_of_informative_attributes_mod_p():
    table = datasets.modulo(p=8, n_informative=3, n_irrelevant=4, n_instances=300)
    assert names(table) == ["I1", "I2", "I3", "R1", "R2", "R3", "R4"]
    assert all(a.values == tuple(str(v) for v in range(8)) for a in table.domain.attributes)
    assert table.domain.class_var.values == tuple(str(v) for v in range(8))
    for row in table:
        assert int(row.get_class()) == (int(row[0]) + int(row[1]) + int(row[2])) % 8


def test_modulo_numeric_and_regression_variants_change_only_the_variable_types():
    base = datasets.modulo(p=5)
    variant = datasets.modulo(p=5, numeric=True, regression=True)
    assert all(isinstance(a, ContinuousVariable) for a in variant.domain.attributes)
    assert isinstance(variant.domain.class_var, ContinuousVariable)
    assert all(isinstance(a, DiscreteVariable) for a in base.domain.attributes)
    np.testing.assert_array_equal(base.X, variant.X)
    np.testing.assert_array_equal(base.Y, variant.Y)
    assert set(np.unique(variant.X)) == set(range(5))


def test_fraction_target_is_fractional_part_of_informative_sum():
    table = datasets.fraction(n_informative=3, n_irrelevant=2, n_instances=500)
    assert isinstance(table.domain.class_var, ContinuousVariable)
    assert all(isinstance(a, ContinuousVariable) for a in table.domain.attributes)
    assert table.X.min() >= 0 and table.X.max() <= 1
    for row in table:
        total = float(row[0]) + float(row[1]) + float(row[2])
        assert float(row.get_class()) == pytest.approx(total - int(total))


@pytest.mark.parametrize("call, parameter", [
    (lambda: datasets.parity(order=0), "order"),
    (lambda: datasets.parity(n_instances=0), "n_instances"),
    (lambda: datasets.parity(n_irrelevant=-1), "n_irrelevant"),
    (lambda: datasets.parity(class_noise=1.5), "class_noise"),
    (lambda: datasets.independent(class_noise=-0.1), "class_noise"),
    (lambda: datasets.independent_parity(order=1), "order"),
    (lambda: datasets.multiclass(n_classes=1), "n_classes"),
    (lambda: datasets.modulo(p=1), "p"),
    (lambda: datasets.fraction(n_informative=2.5), "n_informative"),
    (lambda: datasets.parity(random_state="x"), "random_state"),
])
def test_bad_parameters_raise_value_error_naming_the_parameter(call, parameter):
    with pytest.raises(ValueError, match=parameter):
        call()
