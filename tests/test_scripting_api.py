"""The package's top-level scripting API: every estimator of the catalogue is exported under its
name (the list derived from the catalogue, none written by hand) and every top-level name takes
Orange tables."""
import subprocess
import sys

import numpy as np
import pytest
from Orange.data import ContinuousVariable, DiscreteVariable, Domain, Table

import orangecontrib.relief as package
from orangecontrib.relief.estimators.catalogue import ESTIMATORS


@pytest.mark.parametrize("engine", ESTIMATORS, ids=lambda cls: cls.__name__)
def test_every_catalogue_estimator_is_exported_as_a_scorer(engine):
    exported = getattr(package, engine.__name__)
    assert engine.__name__ in package.__all__
    assert issubclass(exported, engine) and exported is not engine
    assert exported.__module__ == "orangecontrib.relief.scoring"     # an Orange scorer


def test_npdr_imports_from_the_package_and_star_imports_everything():
    out = subprocess.run([sys.executable, "-c", """
import sys
import orangecontrib.relief
assert "Orange" not in sys.modules        # importing the package stays light
from orangecontrib.relief import NPDR
namespace = {}
exec("from orangecontrib.relief import *", namespace)
print(NPDR.__name__, sorted(n for n in ("NPDR", "MultiSURF", "interacting_pairs", "UnifiedPi")
                            if n in namespace))
"""], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["NPDR", "['MultiSURF',", "'NPDR',", "'UnifiedPi',",
                                  "'interacting_pairs']"]


def test_an_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'NoSuchEstimator'"):
        package.NoSuchEstimator


def xor_table(n=200, seed=0):
    """Discrete attributes a, b (the class is a XOR b), c, d (noise); the class of the first
    ten instances missing."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(n, 4)).astype(float)
    y = (X[:, 0] != X[:, 1]).astype(float)
    y[:10] = np.nan
    domain = Domain([DiscreteVariable(name, values=("0", "1")) for name in "abcd"],
                    DiscreteVariable("cls", values=("no", "yes")))
    return Table.from_numpy(domain, X, y)


def test_interacting_pairs_takes_an_orange_table():
    table = xor_table()
    pairs = package.interacting_pairs(table, top=4, n_permutations=20, random_state=0)
    names = [a.name for a in table.domain.attributes]
    assert len(pairs) == 6
    assert {names[pairs[0].first], names[pairs[0].second]} == {"a", "b"}
    assert pairs[0].pvalue < 0.1 and all(p.pvalue > pairs[0].pvalue for p in list(pairs)[1:])


def test_interacting_pairs_of_named_attributes():
    table = xor_table()
    pairs = package.interacting_pairs(table, attributes=["b", table.domain["a"], 2],
                                      n_permutations=20, random_state=0)
    assert len(pairs) == 3
    assert {pairs[0].first, pairs[0].second} == {0, 1}
    assert {(p.first, p.second) for p in pairs} == {(0, 1), (0, 2), (1, 2)}
    assert pairs[0].pvalue < min(p.pvalue for p in list(pairs)[1:])


def test_interacting_pairs_refuses_an_unknown_attribute():
    with pytest.raises(ValueError, match="'e' is not an attribute"):
        package.interacting_pairs(xor_table(), attributes=["a", "e"])


def test_scan_pairs_takes_an_orange_table():
    """Every pair of a table's attributes; the class-less instances left out, as the engine's
    scan of the encoded rows gives."""
    from orangecontrib.relief.estimators import encode, scan_pairs
    table = xor_table()
    pairs = package.scan_pairs(table)
    known = ~np.isnan(table.Y)
    expected = scan_pairs(encode(table.X[known], table.Y[known], discrete=True, n_values=2,
                                 n_classes=2))
    assert pairs.n_tested == 6 and (pairs.first[0], pairs.second[0]) == (0, 1)
    np.testing.assert_array_equal(pairs.table(), expected.table())
    named = package.scan_pairs(table, attributes=["b", table.domain["a"], 3])
    assert {(p.first, p.second) for p in named} == {(0, 1), (0, 3), (1, 3)}
