"""Tables written as the files users give: CSV and Parquet, for the tests of reading them."""
import csv


def write_table(folder, name, columns, kind, row_group_size=25):
    """``columns`` (name -> list of values, None = missing) as ``folder/name.kind``: a CSV file
    (a header, missing values empty) or a Parquet file (row groups of ``row_group_size`` rows,
    each a partition when read by Dask); the path as a string."""
    path = str(folder / f"{name}.{kind}")
    if kind == "parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq
        pq.write_table(pa.table(columns), path, row_group_size=row_group_size)
    else:
        with open(path, "w", newline="") as file:
            writer = csv.writer(file)
            writer.writerow(columns)
            writer.writerows([["" if v is None else v for v in row]
                              for row in zip(*columns.values())])
    return path
