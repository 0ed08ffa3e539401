"""Equal-width pre-discretisation of numeric attributes (Vilalta et al. 2001 §5.1:
"an initial discretization step on all numeric features divides each feature domain into ten
equally-sized intervals").

The cut points of a numeric column with training minimum a and span s are a + s·i/bins,
i = 1..bins-1; a value x gets the code of its interval, the number of cut points below x
(``searchsorted(cuts, x, side="left")``), so a value equal to a cut point belongs to the
lower interval and values outside the training range fall into the first or last interval. A
constant or all-missing column gets no cut points and a single interval (code 0).
"""
import numpy as np

__all__ = ["equal_width_cuts", "apply_cuts", "discretize"]


def equal_width_cuts(data, bins):
    """{column: cut points} for the numeric columns of ``data`` (EncodedData)."""
    cuts = {}
    for c in np.flatnonzero(~data.discrete):
        span = data.span[c]
        if np.isfinite(span) and span > 0:
            cuts[int(c)] = data.minimum[c] + span * np.arange(1, bins) / bins
        else:
            cuts[int(c)] = np.empty(0)
    return cuts


def apply_cuts(X, cuts):
    """``X`` with the columns in ``cuts`` replaced by their interval codes (NaN stays NaN)."""
    X = np.array(X, dtype=float, copy=True)
    for c, points in cuts.items():
        col = X[:, c]
        known = ~np.isnan(col)
        col[known] = np.searchsorted(points, col[known], side="left")
    return X


def discretize(data, bins):
    """(discretised EncodedData, cuts): numeric columns become discrete with ``bins`` values
    (one value for a constant or all-missing column)."""
    cuts = equal_width_cuts(data, bins)
    discrete = np.ones(data.n_attributes, bool)
    n_values = data.n_values.copy()
    for c, points in cuts.items():
        n_values[c] = points.size + 1
    encoded = data.with_columns(apply_cuts(data.X, cuts), discrete, n_values, data.names)
    return encoded, cuts
