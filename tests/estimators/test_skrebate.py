"""``preset="skrebate"`` against scikit-rebate 0.8.4's own numbers, stored in tests/data/skrebate
(computed by scikit-rebate; see the README there): every core of the Relief family on its five
test files (two classes, three classes, a numeric target, mixed attributes, missing values) and
on 100 SNPs, to a relative 1e-8 (the largest difference over the largest |score|); and our
defaults where they agree with scikit-rebate's choices (two classes, no missing values)."""
import csv
import os

import numpy as np
import pytest

from orangecontrib.relief.estimators import encode
from orangecontrib.relief.estimators.murelief import MuRelief
from orangecontrib.relief.estimators.relieff import Relief, ReliefF
from orangecontrib.relief.estimators.rrelieff import RReliefF
from orangecontrib.relief.estimators.surf import SURF, MultiSURF, MultiSURFstar, SURFstar
from orangecontrib.relief.estimators.swrf import (SWRF, MultiSWRF, MultiSWRFDB, MultiSWRFDBstar,
                                                  MultiSWRFstar, SWRFstar)

HERE = os.path.join(os.path.dirname(__file__), os.pardir, "data", "skrebate")
FILES = ("binary", "three_classes", "continuous", "mixed", "missing", "snps")
#: scikit-rebate's class name -> ours (ReliefF of a numeric target: RReliefF)
OURS = {"ReliefF": ReliefF, "SURF": SURF, "SURFstar": SURFstar, "MultiSURF": MultiSURF,
        "MultiSURFstar": MultiSURFstar, "SWRF": SWRF, "SWRFstar": SWRFstar,
        "MultiSWRF": MultiSWRF, "MultiSWRFstar": MultiSWRFstar, "MultiSWRFDB": MultiSWRFDB,
        "MultiSWRFDBstar": MultiSWRFDBstar, "MuRelief": MuRelief}
#: the stored scores were computed with n_neighbors=10
K = {"ReliefF": 10, "MuRelief": 10}
TOL = 1e-8


def load(name):
    """(encoded data, {estimator: scikit-rebate's scores}); an attribute with at most 10
    distinct values is discrete, a target with more than 10 numeric (scikit-rebate's rule)."""
    with open(os.path.join(HERE, f"{name}.csv")) as f:
        rows = list(csv.reader(f))
    values = np.array([[float(v) if v else np.nan for v in r] for r in rows[1:]])
    X, y = values[:, :-1], values[:, -1]
    discrete = [np.unique(c[~np.isnan(c)]).size <= 10 for c in X.T]
    n_classes = 0 if np.unique(y).size > 10 else np.unique(y).size
    with open(os.path.join(HERE, f"{name}.scores.csv")) as f:
        reference = {r[0]: np.array(r[1:], float) for r in csv.reader(f)}
    return encode(X, y, discrete=discrete, n_classes=n_classes), reference


def relative_difference(ours, theirs):
    return np.max(np.abs(ours - theirs)) / np.max(np.abs(theirs))


def ours(name, data, **kwargs):
    cls = RReliefF if name == "ReliefF" and not data.is_classification else OURS[name]
    return cls(**({"k": K[name]} if name in K else {}), **kwargs)


@pytest.fixture(scope="module", params=FILES)
def table(request):
    return request.param, load(request.param)


@pytest.mark.parametrize("name", list(OURS))
def test_preset_reproduces_skrebate(table, name):
    file, (data, reference) = table
    got = ours(name, data, preset="skrebate")(data)
    assert relative_difference(got, reference[name]) < TOL, file


#: (file, estimator) where our defaults (the papers') agree with scikit-rebate's choices:
#: two classes and no missing values, MultiSURF's bands (SURF's mean differs by the diagonal
#: scikit-rebate includes, SWRF's by the same, the starred forms' far scoring by a constant
#: where it weighs, ReliefF's and μ-Relief's by ties)
AGREE = [(file, name) for file in ("binary", "snps")
         for name in ("MultiSURF", "MultiSURFstar", "MultiSWRF", "MultiSWRFDB")] \
    + [("binary", "SURF"), ("binary", "SURFstar")]


@pytest.mark.parametrize("file, name", AGREE)
def test_defaults_agree_where_the_choices_do(file, name):
    data, reference = load(file)
    assert relative_difference(ours(name, data)(data), reference[name]) < TOL


def test_defaults_differ_where_the_choices_do():
    """Three classes: scikit-rebate's weights of the miss classes are not the papers'."""
    data, reference = load("three_classes")
    assert relative_difference(MultiSURF()(data), reference["MultiSURF"]) > 1e-3
    assert relative_difference(MultiSURF(preset="skrebate")(data),
                               reference["MultiSURF"]) < TOL


def test_preset_refusals():
    data, _ = load("binary")
    with pytest.raises(ValueError, match="scikit-rebate has no Relief"):
        Relief(preset="skrebate")(data)
    with pytest.raises(ValueError, match="every instance"):
        SURF(preset="skrebate", iterations=20)(data)
    weighted = encode(data.X, data.y, discrete=data.discrete, n_classes=2,
                      weights=np.full(data.n_instances, 2.0))
    with pytest.raises(ValueError, match="instance weights"):
        SWRF(preset="skrebate")(weighted)
    with pytest.raises(ValueError, match="preset"):
        SURF(preset="sklearn")(data)


def test_preset_k_defaults_to_skrebates():
    assert ReliefF(preset="skrebate").k_ == 100 and MuRelief(preset="skrebate").k_ == 100
    assert ReliefF().k_ == 10 and MuRelief().k_ == 10


def test_columns_against_the_context():
    """Some columns estimated over a context are those columns of the whole estimate: exactly
    where the members weigh 0 or 1 (the sums count), to rounding where SWRF's sigmoid weighs
    them (the discrete attributes' weighted sums are matrix products, whose order of addition
    depends on how many columns are multiplied)."""
    data, _ = load("mixed")
    for est, exact in ((MultiSURFstar(preset="skrebate"), True),
                       (MultiSWRFstar(preset="skrebate"), False)):
        context = est.context(data)
        part, whole = est.estimate(context, data.columns([2, 5])), est.estimate(context)[[2, 5]]
        if exact:
            np.testing.assert_array_equal(part, whole)
        else:
            np.testing.assert_allclose(part, whole, rtol=1e-12, atol=0)


@pytest.mark.parametrize("file", ["binary", "continuous"])
def test_a_permutation_test_with_the_preset_scores_each_target_as_the_preset_does(file):
    """A permutation test rescoring other targets from one search (``target_contexts``) must
    find scikit-rebate's neighbours for each: for every core with the preset, the estimates of a
    permuted target through ``target_contexts`` (or, where it offers none, a search of its own)
    equal the preset's estimates of that target computed afresh."""
    data, _ = load(file)
    rng = np.random.default_rng(3)
    y = data.y[rng.permutation(data.n_instances)]
    permuted = encode(data.X, y, discrete=data.discrete,
                      n_classes=data.n_classes if data.is_classification else 0)
    for name in OURS:
        estimator = ours(name, data, preset="skrebate")
        make = estimator.target_contexts(data) if hasattr(estimator, "target_contexts") \
            else None
        if make is None:
            continue
        np.testing.assert_allclose(estimator.estimate(make(permuted)), estimator(permuted),
                                   rtol=0, atol=1e-12, err_msg=name)
