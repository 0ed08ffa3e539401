"""Relief's relevance threshold tau (Kira & Rendell 1992): by Chebyshev's
inequality, tau = 1/sqrt(alpha * m) keeps the probability of selecting an irrelevant attribute
below alpha, m being the number of iterations."""
import numpy as np

__all__ = ["relief_threshold", "select_above_threshold"]


def relief_threshold(alpha, m):
    """tau = 1 / sqrt(alpha * m) for a confidence level ``alpha`` in (0, 1] and m iterations.

    Examples
    --------
    >>> float(relief_threshold(alpha=0.05, m=80))    # 1 / sqrt(4)
    0.5
    """
    if not 0 < alpha <= 1:
        raise ValueError(f"alpha must be in (0, 1], got {alpha!r}")
    if m < 1:
        raise ValueError(f"the number of iterations m must be >= 1, got {m!r}")
    return 1.0 / np.sqrt(alpha * m)


def select_above_threshold(weights, alpha, m):
    """Indices of the attributes whose estimate W exceeds tau = 1/sqrt(alpha*m), best first.

    Examples
    --------
    >>> select_above_threshold([0.6, 0.1, 0.7, 0.5], alpha=0.05, m=80)   # tau = 0.5
    array([2, 0])
    """
    weights = np.asarray(weights, dtype=float)
    chosen = np.flatnonzero(weights > relief_threshold(alpha, m))
    return chosen[np.argsort(-weights[chosen], kind="stable")]
