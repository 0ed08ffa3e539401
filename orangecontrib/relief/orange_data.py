"""The encoded data form (:mod:`.estimators.encoding`) built from an Orange ``Table``.

Attributes become columns (discrete values as their codes, numeric values as they are, NaN =
missing); metas (strings, identifiers) are not attributes and are ignored. Instances with a
missing class value are left out (the estimators need the class of every instance), and so are
instances of weight 0; the table's instance weights (``Table.W``) become the encoded weights. The
indices of the instances kept are returned so that results can be mapped back. Everything an estimator
cannot use is a ``ValueError`` with a message that says what is wrong.

A table with sparse attributes (``Table.X`` a ``scipy.sparse`` matrix) stays sparse when the
caller accepts it (``sparse=True``: the estimators with ``sparse_input``, see
:mod:`.estimators.neighbourhood.sparse`); otherwise it is refused with a message saying so.
"""
from dataclasses import replace

import numpy as np
import scipy.sparse as sp
from Orange.data import ContinuousVariable, DiscreteVariable

from .estimators.encoding import as_covariates, encode

__all__ = ["encode_table", "encode_with_covariates", "target_kind"]


def target_kind(domain):
    """"classification" or "regression" for the domain's single class variable; ValueError if
    there is none, several, or one of another type."""
    if not domain.class_vars:
        raise ValueError("the data have no target variable (class): attribute estimation "
                         "needs one")
    if len(domain.class_vars) > 1:
        raise ValueError(f"the data have {len(domain.class_vars)} target variables; "
                         "attribute estimation needs exactly one")
    var = domain.class_var
    if isinstance(var, DiscreteVariable):
        return "classification"
    if isinstance(var, ContinuousVariable):
        return "regression"
    raise ValueError(f"the target {var.name!r} is neither categorical nor numeric")


def encode_table(table, sparse=False):
    """``(EncodedData, rows_kept)`` for an Orange ``Table`` with one class variable; sparse
    attributes are kept sparse if ``sparse``, else refused."""
    domain = table.domain
    task = target_kind(domain)
    if sp.issparse(table.X) and not sparse:
        raise ValueError("sparse data are not supported here: convert the data to dense first")
    if len(table) == 0:
        raise ValueError("the data are empty (no instances)")
    attributes = domain.attributes
    for var in attributes:
        if not isinstance(var, (DiscreteVariable, ContinuousVariable)):
            raise ValueError(f"attribute {var.name!r} is neither categorical nor numeric")
    Y = table.Y.toarray() if sp.issparse(table.Y) else table.Y
    y = np.asarray(Y, dtype=float).reshape(len(table), -1)[:, 0]
    weights = np.asarray(table.W, dtype=float).reshape(-1) if table.has_weights() else None
    if weights is not None and not np.all(np.isfinite(weights) & (weights >= 0)):
        raise ValueError("instance weights must be finite and >= 0")
    rows = np.flatnonzero(~np.isnan(y))
    if rows.size == 0:
        raise ValueError("every instance has a missing class value")
    if weights is not None:
        rows = rows[weights[rows] > 0]
        if rows.size == 0:
            raise ValueError("every instance with a class value has weight 0")
    X = sp.csr_matrix(table.X, dtype=float) if sp.issparse(table.X) \
        else np.asarray(table.X, dtype=float)
    if rows.size < len(table):
        X = X[rows]
    infinite = np.unique(X.indices[np.isinf(X.data)]) if sp.issparse(X) \
        else np.flatnonzero(np.isinf(X).any(axis=0))
    if infinite.size:
        bad = [attributes[c].name for c in infinite]
        raise ValueError(f"infinite values in attribute(s) {', '.join(bad)}")
    discrete = np.array([isinstance(v, DiscreteVariable) for v in attributes], dtype=bool)
    n_values = np.array([len(v.values) if isinstance(v, DiscreteVariable) else 0
                         for v in attributes], dtype=np.intp)
    n_classes = len(domain.class_var.values) if task == "classification" else 0
    data = encode(X, y[rows], discrete=discrete, n_values=n_values, n_classes=n_classes,
                  names=[v.name for v in attributes],
                  weights=None if weights is None else weights[rows])
    return data, rows


def encode_with_covariates(table, names):
    """``(EncodedData, rows_kept, attributes)`` as :func:`encode_table` with the variables
    ``names`` (attributes or meta attributes, numeric or categorical) as covariates: those
    among the attributes are not estimated (``attributes`` are the variables that are).
    The instances with a missing covariate value are left out (as PLINK leaves them out), as
    those with a missing class: ``rows_kept`` says which remain. ``ValueError`` for a name the
    table lacks, a variable of another kind, or no instance left."""
    from Orange.data import Domain
    domain = table.domain
    chosen = []
    for name in names:
        var = next((v for v in domain.attributes + domain.metas if v.name == name), None)
        if var is None:
            raise ValueError(f"the data have no attribute or meta attribute {name!r} for a "
                             "covariate")
        if not isinstance(var, (DiscreteVariable, ContinuousVariable)):
            raise ValueError(f"covariate {name!r} is neither categorical nor numeric")
        chosen.append(var)
    attributes = tuple(v for v in domain.attributes if v not in chosen)
    rest = table.transform(Domain(attributes, domain.class_vars, domain.metas))
    encoded, rows = encode_table(rest)
    values = np.column_stack([table.get_column(var) for var in chosen]).astype(float)[rows]
    complete = ~np.isnan(values).any(axis=1)
    if not complete.any():
        raise ValueError("every instance with a class value has a missing covariate value")
    if not complete.all():          # as PLINK: instances with a missing covariate left out
        encoded = replace(encoded, X=encoded.X[complete], y=encoded.y[complete],
                          weights=None if encoded.weights is None
                          else encoded.weights[complete])
        rows, values = rows[complete], values[complete]
    covariates = as_covariates(values, rows.size, [v.is_discrete for v in chosen],
                               [v.name for v in chosen])
    return replace(encoded, covariates=covariates), rows, attributes
