"""Which attributes a selection rule keeps, from their estimates and q-values: the n best (a
number, or a share of the attributes), those whose estimate exceeds a threshold (such as Relief's
τ, :mod:`.threshold`), those whose Benjamini-Hochberg q-value is below a level — every rule given
applies (the n best among the attributes that pass the others). The scikit-learn selectors and
the Orange preprocessor select with it."""
import numpy as np

__all__ = ["selection_mask"]


def selection_mask(scores, count=None, threshold=None, qvalues=None, fdr=None):
    """A boolean mask of the attributes kept: ``scores > threshold`` (when ``threshold`` is
    given), ``qvalues < fdr`` (when ``fdr`` is given; ``qvalues`` aligned with ``scores``), and
    among those the ``count`` best by ``scores`` (an integer >= 0, or a float in (0, 1): that
    share of the attributes, at least one; ties keep the attribute that comes first). A NaN
    estimate counts as the lowest.

    Examples
    --------
    >>> selection_mask([0.2, 0.5, 0.1, 0.4], count=2)
    array([False,  True, False,  True])
    >>> selection_mask([0.2, 0.5, 0.1, 0.4], threshold=0.3, qvalues=[0.01, 0.2, 0.5, 0.01],
    ...                fdr=0.05)
    array([False, False, False,  True])
    """
    scores = np.asarray(scores, dtype=float)
    a = scores.size
    mask = np.ones(a, bool)
    if threshold is not None:
        mask &= scores > threshold
    if fdr is not None:
        mask &= np.asarray(qvalues, dtype=float) < fdr
    if count is not None:
        if isinstance(count, (float, np.floating)) and 0 < count < 1:
            count = max(1, int(count * a))
        elif isinstance(count, bool) or not isinstance(count, (int, np.integer)) or count < 0:
            raise ValueError("the number of attributes to select must be None, an integer "
                             f">= 0 or a float in (0, 1), got {count!r}")
        order = np.argsort(-np.where(mask, np.nan_to_num(scores, nan=-np.inf), -np.inf),
                           kind="stable")
        best = np.zeros(a, bool)
        best[order[:count]] = True
        mask &= best
    return mask
