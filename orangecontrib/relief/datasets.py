"""Generators of the artificial problems used in the papers, as Orange tables.

Every generator takes ``n_instances`` and ``random_state`` (default a fixed seed, so the same call
returns the same table; an int, ``None`` or a ``numpy.random.Generator``), and, where the papers
use it, ``class_noise``: the fraction of instances, chosen at random, whose class is changed to a
different value ("X% of noise means that class was changed for X% of randomly selected
instances", Kononenko 1994 §2).

Discrete attributes are ``DiscreteVariable`` with values "0", "1", ... (for the binary attributes
of Kononenko 1994, value "1" is the paper's V1); numeric ones are
``ContinuousVariable``. Attribute names say which attributes are informative: ``I...`` are
informative, ``R...`` random (irrelevant).

References: K94 = Kononenko, *Estimating attributes: analysis and extensions of RELIEF* (ECML
1994); Robnik-Šikonja & Kononenko, *Comprehensiveness of tree based models: attribute dependencies
and split selection* (1999); Langley, *Pruning irrelevant features from oblivious decision trees*
(AAAI Fall Symposium on Relevance, 1994).
"""
from itertools import combinations
from numbers import Integral, Real

import numpy as np
from Orange.data import ContinuousVariable, DiscreteVariable, Domain, Table

from .estimators.base import random_generator

__all__ = ["parity", "parity_regression", "independent", "independent_parity", "multiclass",
           "modulo", "fraction"]

#: the seed used when ``random_state`` is not given
DEFAULT_SEED = 42

#: P(V1|C1) of the informative attributes of K94's first data set (§2)
INDEPENDENT_STRENGTHS = (0.95, 0.85, 0.75, 0.65, 0.55)
#: P(V1) of its random attributes
INDEPENDENT_RANDOM_PRIORS = (0.5, 0.4, 0.3, 0.2, 0.1)
#: P(V1|Ci) of the three attributes informative for a pair of classes (K94 §4)
MULTICLASS_STRENGTHS = (0.95, 0.75, 0.55)


# ---------------------------------------------------------------------------------------------
# validation and the shared building blocks

def _check_int(name, value, minimum):
    if not isinstance(value, Integral) or isinstance(value, bool) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def _check_fraction(name, value):
    if not isinstance(value, Real) or isinstance(value, bool) or not 0 <= value <= 1:
        raise ValueError(f"{name} must be a number in [0, 1], got {value!r}")
    return float(value)


def _binary(rng, p_one):
    """0/1 matrix with P(1) = ``p_one`` (broadcast to the result's shape)."""
    p_one = np.asarray(p_one, dtype=float)
    return (rng.random(p_one.shape) < p_one).astype(float)


def _parity_bits(rng, parities, order):
    """Replace each entry of ``parities`` (n, g) by ``order`` uniform random bits whose XOR
    equals that entry: (n, g * order), the bits of one group adjacent (K94 §2)."""
    n, groups = parities.shape
    free = rng.integers(0, 2, size=(n, groups, order - 1)).astype(float)
    last = (parities - free.sum(axis=2)) % 2
    return np.concatenate([free, last[:, :, None]], axis=2).reshape(n, groups * order)


def _parity_names(names, order):
    """Names of the ``order`` attributes that replace each of ``names``: I1 -> I1a, I1b, ..."""
    return [f"{name}{chr(ord('a') + i)}" for name in names for i in range(order)]


def _change_classes(rng, y, n_values, class_noise):
    """Change the class of round(class_noise * n) randomly chosen instances to another of
    the ``n_values`` values, uniformly (K94 §2's class noise)."""
    y = y.copy()
    changed = rng.choice(len(y), size=int(round(class_noise * len(y))), replace=False)
    y[changed] = (y[changed] + rng.integers(1, n_values, size=changed.size)) % n_values
    return y


def _table(name, X, names, n_values, y, class_name, class_values):
    """Orange table: column ``j`` is discrete with values "0".."n_values[j]-1" or numeric when
    ``n_values[j]`` is 0; the class is discrete with ``class_values``, numeric when None."""
    attributes = [DiscreteVariable(attr, values=tuple(str(v) for v in range(nv))) if nv
                  else ContinuousVariable(attr)
                  for attr, nv in zip(names, n_values)]
    class_var = (ContinuousVariable(class_name) if class_values is None
                 else DiscreteVariable(class_name, values=tuple(class_values)))
    table = Table.from_numpy(Domain(attributes, class_var), X, y)
    table.name = name
    return table


def _classes(n_classes):
    return [f"C{c + 1}" for c in range(n_classes)]


# ---------------------------------------------------------------------------------------------
# parity

def _parity_table(order, n_irrelevant, n_instances, class_noise, random_state, regression):
    order = _check_int("order", order, 1)
    n_irrelevant = _check_int("n_irrelevant", n_irrelevant, 0)
    n_instances = _check_int("n_instances", n_instances, 1)
    class_noise = _check_fraction("class_noise", class_noise)
    rng = random_generator(random_state)
    X = rng.integers(0, 2, size=(n_instances, order + n_irrelevant)).astype(float)
    y = _change_classes(rng, X[:, :order].sum(axis=1) % 2, 2, class_noise)
    names = [f"I{i + 1}" for i in range(order)] + [f"R{i + 1}" for i in range(n_irrelevant)]
    kind = "regression" if regression else ""
    return _table(f"parity{order}{kind}", X, names, [2] * X.shape[1], y, "parity",
                  None if regression else ("0", "1"))


def parity(order=2, n_irrelevant=10, n_instances=200, class_noise=0.0,
           random_state=DEFAULT_SEED):
    """Parity-``order`` with ``n_irrelevant`` random binary attributes: all attributes uniform
    0/1, the class ("0"/"1") the XOR (sum mod 2) of the informative ``I1..I<order>``; the
    ``R1..`` attributes are irrelevant. This is the parity domain of
    Robnik-Šikonja & Kononenko 1999 (§2, Fig. 2 and §3, Fig. 5: two informative and
    10 random attributes, 200 examples; Parity-3 in §4.1), the parity concept of
    Kononenko 1994 §1, and the Boolean parity targets with irrelevant features of
    Langley 1994. ``class_noise`` flips the class of that fraction of instances
    (Kononenko 1994 §2)."""
    return _parity_table(order, n_irrelevant, n_instances, class_noise, random_state, False)


def parity_regression(order=2, n_irrelevant=10, n_instances=1000, class_noise=0.0,
                      random_state=DEFAULT_SEED):
    """Regression parity (Parity-2 / Parity-3 of the CORE regression-tree experiments,
    Robnik-Šikonja & Kononenko 1999 §4.2). The papers do not define it; we
    implement the reading that keeps it a parity problem: uniform binary attributes ``I1..``
    (informative) and ``R1..`` (random) and a *numeric* target, 0.0 or 1.0, equal to the XOR of
    the informative attributes, so that the target is independent of every single attribute and
    only RReliefF-like (non-myopic) estimators see the informative ones. ``class_noise`` flips
    the target (0 <-> 1) of that fraction of instances. Default 1000 instances (our choice)."""
    return _parity_table(order, n_irrelevant, n_instances, class_noise, random_state, True)


# ---------------------------------------------------------------------------------------------
# the data sets of Kononenko 1994

def _independent_data(rng, n_instances, class_noise):
    """K94 §2's first set as arrays: class codes (0 = C1), 5 random attributes with
    P(V1) = 0.5..0.1, and 5 informative with P(V1|C1) = 0.95..0.55, P(V1|C2) = 1 - P(V1|C1)."""
    c = rng.integers(0, 2, size=n_instances)
    strengths = np.array(INDEPENDENT_STRENGTHS)
    p_informative = np.where(c[:, None] == 0, strengths, 1 - strengths)
    random = _binary(rng, np.broadcast_to(INDEPENDENT_RANDOM_PRIORS, (n_instances, 5)))
    informative = _binary(rng, p_informative)
    y = _change_classes(rng, c.astype(float), 2, class_noise)
    return random, informative, y


def independent(n_instances=200, class_noise=0.0, random_state=DEFAULT_SEED):
    """The first data set of Kononenko 1994 §2: two equally probable classes C1, C2,
    5 random binary attributes ``R1..R5`` with P(V1) = 0.5, 0.4, 0.3, 0.2, 0.1 independent of
    the class, and 5 independent informative binary attributes ``I1..I5`` with
    P(V1|C1) = 0.95, 0.85, 0.75, 0.65, 0.55 and P(V1|C2) = 1 - P(V1|C1) (so P(V1) = 0.5). Value
    "1" is V1. The paper uses 200 instances and 0 %, 10 % and 20 % ``class_noise``."""
    n_instances = _check_int("n_instances", n_instances, 1)
    class_noise = _check_fraction("class_noise", class_noise)
    random, informative, y = _independent_data(random_generator(random_state), n_instances,
                                               class_noise)
    names = [f"R{i + 1}" for i in range(5)] + [f"I{i + 1}" for i in range(5)]
    return _table("independent", np.hstack([random, informative]), names, [2] * 10, y,
                  "class", _classes(2))


def independent_parity(order=2, n_instances=200, class_noise=0.0, random_state=DEFAULT_SEED):
    """The second (``order`` = 2) and third (``order`` = 3) data sets of
    Kononenko 1994 §2: the first set (:func:`independent`) with each informative
    attribute ``Ii`` replaced by ``order`` uniform binary attributes ``Iia, Iib[, Iic]`` whose
    parity encodes it: their XOR is 0 exactly when ``Ii`` has value V1 (for a pair: "if original
    attribute has value V1 then two new attributes have equal values, otherwise different").
    5 + 5·2 = 15 or 5 + 5·3 = 20 attributes; 200 instances and 0/10/20 % class noise in the
    paper."""
    order = _check_int("order", order, 2)
    n_instances = _check_int("n_instances", n_instances, 1)
    class_noise = _check_fraction("class_noise", class_noise)
    rng = random_generator(random_state)
    random, informative, y = _independent_data(rng, n_instances, class_noise)
    X = np.hstack([random, _parity_bits(rng, 1 - informative, order)])
    names = ([f"R{i + 1}" for i in range(5)]
             + _parity_names([f"I{i + 1}" for i in range(5)], order))
    return _table(f"independent-parity{order}", X, names, [2] * X.shape[1], y, "class",
                  _classes(2))


def multiclass(n_classes=3, parity=False, n_instances=200, class_noise=0.0,
               random_state=DEFAULT_SEED):
    """The multi-class data sets of Kononenko 1994 §4 (RELIEF-E vs RELIEF-F):
    ``n_classes`` equally probable classes, 3 random binary attributes ``R1..R3`` (P(V1) = 0.5;
    the paper does not give their priors) and, for each pair of classes i < j, 3 attributes
    ``Iij.1, Iij.2, Iij.3`` with P(V1|Ci) = 0.95, 0.75, 0.55, P(V1|Cj) = 1 - P(V1|Ci) and
    P(V1|other classes) = 0.5: 3 + 3·3 = 12 attributes for 3 classes, 21 for 4. With
    ``parity=True`` each informative attribute is replaced by a parity-2 pair as in
    :func:`independent_parity` (21 and 39 attributes). The instance count is not stated in §4;
    the default, 200, follows §2."""
    n_classes = _check_int("n_classes", n_classes, 2)
    n_instances = _check_int("n_instances", n_instances, 1)
    class_noise = _check_fraction("class_noise", class_noise)
    rng = random_generator(random_state)
    c = rng.integers(0, n_classes, size=n_instances)
    pairs = list(combinations(range(n_classes), 2))
    strengths = np.tile(MULTICLASS_STRENGTHS, len(pairs))
    first = np.repeat([i for i, _ in pairs], len(MULTICLASS_STRENGTHS))
    second = np.repeat([j for _, j in pairs], len(MULTICLASS_STRENGTHS))
    p_informative = np.select([c[:, None] == first, c[:, None] == second],
                              [strengths, 1 - strengths], 0.5)
    informative = _binary(rng, p_informative)
    random = _binary(rng, np.full((n_instances, 3), 0.5))
    y = _change_classes(rng, c.astype(float), n_classes, class_noise)
    names = [f"I{i + 1}{j + 1}.{s + 1}" for i, j in pairs
             for s in range(len(MULTICLASS_STRENGTHS))]
    if parity:
        informative = _parity_bits(rng, 1 - informative, 2)
        names = _parity_names(names, 2)
    X = np.hstack([random, informative])
    names = [f"R{i + 1}" for i in range(3)] + names
    return _table(f"multiclass{n_classes}{'-parity' if parity else ''}", X, names,
                  [2] * X.shape[1], y, "class", _classes(n_classes))


# ---------------------------------------------------------------------------------------------
# modulo and fraction (RReliefF / CORE experiments)

def modulo(p=5, n_informative=2, n_irrelevant=10, numeric=False, regression=False,
           n_instances=1000, class_noise=0.0, random_state=DEFAULT_SEED):
    """Modulo-``p``-``n_informative`` (e.g. Modulo8-2 of the CORE regression-tree experiments,
    Robnik-Šikonja & Kononenko 1999 §4.2): all attributes uniform integers
    0..p-1, the target the sum of the informative ``I1..`` modulo ``p``; ``R1..`` are random.
    The papers name the problem but do not define it; this is the definition of the
    authors' later work (attributes with values 0..p-1, target (Σ I_j) mod p). Attributes are
    discrete with values "0".."p-1", or numeric (the same integers) with ``numeric=True``. The
    target is a discrete class "0".."p-1", or numeric (the regression variant, as in §4.2) with
    ``regression=True``. ``class_noise`` changes the target of that fraction of instances to
    another residue. Default 1000 instances (our choice)."""
    p = _check_int("p", p, 2)
    n_informative = _check_int("n_informative", n_informative, 1)
    n_irrelevant = _check_int("n_irrelevant", n_irrelevant, 0)
    n_instances = _check_int("n_instances", n_instances, 1)
    class_noise = _check_fraction("class_noise", class_noise)
    rng = random_generator(random_state)
    X = rng.integers(0, p, size=(n_instances, n_informative + n_irrelevant)).astype(float)
    y = _change_classes(rng, X[:, :n_informative].sum(axis=1) % p, p, class_noise)
    names = ([f"I{i + 1}" for i in range(n_informative)]
             + [f"R{i + 1}" for i in range(n_irrelevant)])
    return _table(f"modulo{p}-{n_informative}", X, names,
                  [0 if numeric else p] * X.shape[1], y, "modulo",
                  None if regression else [str(v) for v in range(p)])


def fraction(n_informative=2, n_irrelevant=10, n_instances=1000, random_state=DEFAULT_SEED):
    """Fraction-``n_informative`` (Fraction-2 / Fraction-3 of the CORE regression-tree
    experiments, Robnik-Šikonja & Kononenko 1999 §4.2), a regression problem: all
    attributes numeric, uniform in [0, 1]; the target is the fractional part of the sum of the
    informative ``I1..``, Σ I_j − ⌊Σ I_j⌋; ``R1..`` are random. The papers name the
    problem without defining it; this is the definition of the RReliefF paper (Robnik-Šikonja
    & Kononenko 1997), as we read it. Default 1000 instances (our choice)."""
    n_informative = _check_int("n_informative", n_informative, 1)
    n_irrelevant = _check_int("n_irrelevant", n_irrelevant, 0)
    n_instances = _check_int("n_instances", n_instances, 1)
    rng = random_generator(random_state)
    X = rng.random((n_instances, n_informative + n_irrelevant))
    total = X[:, :n_informative].sum(axis=1)
    names = ([f"I{i + 1}" for i in range(n_informative)]
             + [f"R{i + 1}" for i in range(n_irrelevant)])
    return _table(f"fraction-{n_informative}", X, names, [0] * X.shape[1],
                  total - np.floor(total), "fraction", None)
