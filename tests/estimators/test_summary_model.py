"""The engine's entry points for data known by a summary (as the Dask backend's passes over
row partitions give it): a diff model built from each column's minimum, maximum and missing
values (and the value counts) measures a part of the data as the model of the whole data
does; the band thresholds of SURF and MultiSURF; the checks of a summary."""
from dataclasses import replace

import numpy as np
import pytest

from orangecontrib.relief.estimators import (DiffModel, DiffOptions, ReliefF, RReliefF,
                                             band_thresholds, check_summary, encode)


def mixed(n=60, seed=0):
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.random(n) * 10, rng.integers(0, 3, n), rng.normal(size=n),
                         np.full(n, np.nan)])
    X[rng.random(n) < 0.15, 0] = np.nan
    X[rng.random(n) < 0.15, 1] = np.nan
    y = rng.integers(0, 2, n).astype(float)
    return encode(X, y, discrete=[False, True, False, True], n_values=[0, 3, 0, 2],
                  n_classes=2)


@pytest.mark.parametrize("options", [DiffOptions(), DiffOptions(numeric="ramp", missing="D",
                                                                laplace=True)])
def test_model_of_a_summary_measures_a_part_as_the_whole(options):
    """Rows 20..39 measured by a model whose reference is built from the summary equal the
    whole data's model on those rows: distances to each other and pair diffs (the all-missing
    column is unusable in both)."""
    data = mixed()
    whole = DiffModel(data, options)
    X = data.X
    summary = dict(minimum=np.fmin.reduce(X, axis=0), maximum=np.fmax.reduce(X, axis=0),
                   has_missing=np.isnan(X).any(axis=0), discrete=data.discrete,
                   n_values=data.n_values, n_classes=2, n_instances=data.n_instances,
                   options=options)
    reference = DiffModel.from_summary(**summary, value_counts=whole.value_counts())
    rows = np.arange(20, 40)
    part = DiffModel(replace(data, X=X[rows], y=data.y[rows]), options, reference=reference)
    assert list(reference.usable) == [True, True, True, False]
    np.testing.assert_allclose(part.distances(np.arange(20)),
                               whole.distances(rows)[:, rows], rtol=0, atol=1e-12)
    pairs = np.arange(20)
    np.testing.assert_allclose(part.pair_diffs(pairs, pairs[::-1]),
                               whole.pair_diffs(rows, rows[::-1]), rtol=0, atol=1e-12,
                               equal_nan=True)


def test_band_thresholds_by_hand():
    mean, spread, pairs = np.array([2.0, 4.0]), np.array([1.0, 2.0]), np.array([1.0, 3.0])
    near, far = band_thresholds(mean, spread, pairs, per_instance=True, far_band=True)
    assert list(near) == [1.5, 3.0] and list(far) == [2.5, 5.0]
    near, far = band_thresholds(mean, spread, pairs, per_instance=True, far_band=False)
    assert list(far) == [np.inf, np.inf]
    near, far = band_thresholds(mean, spread, pairs, per_instance=False, far_band=True)
    assert list(near) == [3.5, 3.5] and list(far) == [3.5, 3.5]      # (2 + 3 x 4) / 4


def test_checks_of_a_summary():
    check_summary(ReliefF(), 10, 3, "classification", classes_present=2)
    with pytest.raises(ValueError, match="needs a regression target"):
        check_summary(RReliefF(), 10, 3, "classification")
    with pytest.raises(ValueError, match="no attributes"):
        check_summary(ReliefF(), 10, 0)
    with pytest.raises(ValueError, match="at least 2 instances, the data have 1"):
        check_summary(ReliefF(), 1, 3)
    with pytest.raises(ValueError, match="at least two classes, the data have 1"):
        check_summary(ReliefF(), 10, 3, "classification", classes_present=1)
    with pytest.raises(ValueError, match="target is constant"):
        check_summary(RReliefF(), 10, 3, "regression", y_span=0.0)
