"""Filling missing genotype calls with each attribute's most frequent value: the array function
behind ``--impute mode``, the table function of the widgets and scripts, ``read_plink``'s
``impute``, and the count of the missing calls that keep a table off the bit-plane path. The
expected values are modes counted by hand or by ``np.unique`` per column."""
import numpy as np
import pytest
from Orange.data import ContinuousVariable, DiscreteVariable, Domain, StringVariable, Table

from orangecontrib.relief.estimators.neighbourhood.packed import PackedColumns
from orangecontrib.relief.imputation import fill_with_mode, impute_mode, missing_calls
from orangecontrib.relief.readers import read_plink

from test_plink_covariates import write_bed


def column_modes(values, missing, counted):
    """Each column's most frequent known value among the counted rows, the smaller of a tie
    (np.unique sorts, argmax takes the first), 0 for a column without one."""
    modes = []
    for j in range(values.shape[1]):
        known = values[counted & ~missing[:, j], j]
        if known.size == 0:
            modes.append(0)
            continue
        levels, counts = np.unique(known, return_counts=True)
        modes.append(levels[np.argmax(counts)])
    return np.array(modes)


def test_fill_with_mode_by_hand_ties_and_a_column_without_calls():
    values = np.array([[0, 2, 1, -1], [1, 2, 0, -1], [1, -1, 2, -1], [-1, 0, -1, -1]], np.int8)
    missing = values == -1
    filled = fill_with_mode(values, missing)
    # column 0: 0,1,1 -> 1; column 1: 2,2,0 -> 2; column 2: 1,0,2 a tie -> 0; column 3: none
    np.testing.assert_array_equal(filled, [[0, 2, 1, 0], [1, 2, 0, 0], [1, 2, 2, 0],
                                           [1, 0, 0, 0]])
    assert filled.dtype == np.int8 and values[3, 0] == -1          # a copy


def test_fill_with_mode_counts_only_the_counted_rows_and_reads_float_codes():
    rng = np.random.default_rng(3)
    values = rng.choice([0.0, 1.0, 2.0], size=(60, 30), p=[0.5, 0.3, 0.2])
    missing = rng.random(values.shape) < 0.1
    values[missing] = np.nan
    counted = rng.random(60) < 0.7
    filled = fill_with_mode(values, missing, counted)
    modes = column_modes(values, missing, counted)
    rows, cols = np.nonzero(missing)
    np.testing.assert_array_equal(filled[rows, cols], modes[cols])
    np.testing.assert_array_equal(filled[~missing], values[~missing])


def snp_table(n=50, a=70, share=0.02, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, size=(n, a)).astype(float)
    X[rng.random(X.shape) < share] = np.nan
    y = rng.integers(0, 2, size=n).astype(float)
    domain = Domain([DiscreteVariable(f"rs{i}", values=("0", "1", "2")) for i in range(a)],
                    DiscreteVariable("status", values=("control", "case")))
    return Table.from_numpy(domain, X, y)


def test_impute_mode_fills_categorical_attributes_by_the_instances_with_a_class():
    table = snp_table()
    numeric = ContinuousVariable("age")
    domain = Domain(table.domain.attributes + (numeric,), table.domain.class_vars,
                    [StringVariable("id")])
    ages = np.where(np.arange(50) % 7 == 0, np.nan, np.arange(50.0))
    X = np.column_stack([table.X, ages])
    y = table.Y.copy()
    y[:5] = np.nan
    ids = np.array([[f"i{k}"] for k in range(50)], dtype=object)
    table = Table.from_numpy(domain, X, y, metas=ids)
    filled = impute_mode(table)
    snps = table.X[:, :70]
    missing = np.isnan(snps)
    modes = column_modes(snps, missing, ~np.isnan(y))
    rows, cols = np.nonzero(missing)
    np.testing.assert_array_equal(filled.X[rows, cols], modes[cols])
    np.testing.assert_array_equal(filled.X[:, 70], ages)            # numeric: as it was
    np.testing.assert_array_equal(filled.Y, y)
    assert list(filled.metas[:, 0]) == list(ids[:, 0])
    assert np.isnan(table.X[:, :70]).sum() == missing.sum()         # the input unchanged
    complete = impute_mode(filled)
    assert complete is filled
    # with count: the same table and the number of values filled, the missing calls of the
    # categorical attributes (the numeric attribute's missing ages are not filled)
    counted, number = impute_mode(table, count=True)
    np.testing.assert_array_equal(counted.X, filled.X)
    assert number == missing.sum() > 0
    assert impute_mode(filled, count=True) == (filled, 0)


def test_missing_calls_count_only_what_keeps_the_bit_plane_path():
    table = snp_table()
    assert missing_calls(table) == np.isnan(table.X).sum() > 0
    assert missing_calls(impute_mode(table)) == 0
    # too few attributes for the path; a numeric attribute or one of five values anywhere
    assert missing_calls(table[:, [f"rs{i}" for i in range(10)] + ["status"]]) == 0
    numeric = table.transform(Domain(table.domain.attributes[:-1]
                                     + (ContinuousVariable("rs69"),), table.domain.class_var))
    assert missing_calls(numeric) == 0
    five = table.transform(Domain(table.domain.attributes[:-1]
                                  + (DiscreteVariable("rs69", values=tuple("abcde")),),
                                  table.domain.class_var))
    assert missing_calls(five) == 0


def test_sparse_data_with_missing_values_are_refused_by_name():
    table = snp_table().to_sparse()
    with pytest.raises(ValueError, match="sparse data"):
        impute_mode(table)


def test_read_plink_imputes_as_the_command_line_does(tmp_path):
    genotypes = np.array([[0, 2, 1], [1, 2, 1], [1, 0, 1], [-1, 2, -1], [2, -1, -1],
                          [1, 2, 0], [0, 1, 2], [-1, 0, 0]])
    bed = write_bed(tmp_path, genotypes, [1, 2, 1, 2, 1, 2, 1, 2])
    assert not isinstance(read_plink(bed).X, PackedColumns)
    data = read_plink(bed, impute="mode")
    assert isinstance(data.X, PackedColumns)
    want = genotypes.copy()                 # modes by hand: 1, 2 and 1 (three 1s, two 0s)
    want[[3, 7], 0] = 1
    want[4, 1] = 2
    want[[3, 4], 2] = 1
    np.testing.assert_array_equal(np.asarray(data.X), want)
    with pytest.raises(ValueError, match="impute must be one of"):
        read_plink(bed, impute="mean")
