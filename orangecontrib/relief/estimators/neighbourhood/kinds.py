"""The codes the kernels and their numpy equivalents share: the kinds of column the diff model
tells apart (:attr:`.diffs.DiffModel.kind`) and the types of the runs of columns the diff sums
take in one task (:func:`.diff_sums.column_runs`)."""

__all__ = ["DISCRETE", "NUMERIC", "UNUSABLE", "DISCRETE_PLAIN", "NUMERIC_PLAIN", "GENERAL",
           "PACKED"]

#: a column's kind: discrete (diff 0 or 1), numeric (diff by the distance of the values),
#: unusable (no known value: its diff is never known)
DISCRETE, NUMERIC, UNUSABLE = 0, 1, 2

#: a run's type: discrete or numeric columns without missing values, other usable columns,
#: columns held as bit planes
DISCRETE_PLAIN, NUMERIC_PLAIN, GENERAL, PACKED = 0, 1, 2, 3
