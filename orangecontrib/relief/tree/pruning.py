"""Post-pruning of a grown tree, bottom up: a subtree is replaced by a leaf when the leaf's
estimated error is not larger than the subtree's.

* ``"m-estimate"`` (as CORElearn; Robnik-Šikonja & Kononenko 1999 §4.1-4.2,
  m = 2):

  - classification: static error Es = 1 - (n_maj + m p_maj) / (n + m), where n is the node
    weight, n_maj the weight of its majority class and p_maj = (N_maj + 1) / (N + C) that class's
    Laplace prior at the root (N instances, C classes);
  - regression: Es = (m priorMSE + n MSE) / (m + n), MSE the node model's mean squared error
    (eq. 18) and priorMSE the mean squared error of the node's model over all root instances
    (as CORElearn: a model that fits only its node's instances gets a large prior error);
  - the backed-up error of a subtree is the children's errors weighted by their weight share,
    sum_i (n_i / sum_j n_j) E_i; prune when Es <= backed-up, the node's error being
    min(Es, backed-up).

* ``"pessimistic"`` (C4.5's error-based pruning, used by Vilalta et al. 2001 §5.1,
  classification only): a leaf with weight n and e errors is charged n U_CF(e, n), U_CF the
  upper limit of the binomial confidence interval at confidence ``confidence`` (default 25 %),
  computed exactly as the Clopper-Pearson bound (the beta quantile; it equals C4.5's
  1 - CF^(1/n) at e = 0); a subtree is charged the sum over its leaves; prune when the leaf's
  charge <= the subtree's + 0.1 (C4.5's margin).
"""
import numpy as np
from scipy.special import betaincinv

__all__ = ["PRUNING", "prune_m_estimate", "prune_pessimistic", "static_error",
           "root_prior_mse", "training_mse", "pessimistic_errors"]

PRUNING = ("m-estimate", "pessimistic", None)


def static_error(node, m, prior, node_mse=None):
    """Es of ``node`` (see the module docstring). ``prior`` is the Laplace class prior at the
    root (classification) or, for regression, a function giving a node's prior MSE (or that
    MSE as a number); ``node_mse(node)``: the node's own MSE (default ``node.model.mse``)."""
    n = node.weight
    if np.ndim(prior):                                   # classification
        dist = node.model.value
        c = int(np.argmax(dist))
        return 1.0 - (dist[c] + m * prior[c]) / (n + m)
    prior_mse = prior(node) if callable(prior) else prior
    mse = node.model.mse if node_mse is None else node_mse(node)
    return (m * prior_mse + n * mse) / (m + n)


def root_prior_mse(X, y, weights=None):
    """The regression prior of :func:`static_error`: a node's model's mean squared error over
    all root instances ``X``, ``y`` (weighted by ``weights``)."""
    return lambda node: float(np.average((y - node.model.predict(X)) ** 2, weights=weights))


def training_mse(X, y):
    """A node's model's weighted mean squared error on the node's own instances of ``X``,
    ``y``, without the linear model's correction for its fitted parameters (CORElearn's)."""
    return lambda node: float(np.average((y[node.rows] - node.model.predict(X[node.rows])) ** 2,
                                         weights=node.weights))


def prune_m_estimate(node, m, prior, node_mse=None):
    """Prune the subtree of ``node`` in place; returns its error after pruning. ``node_mse``
    as in :func:`static_error`."""
    es = static_error(node, m, prior, node_mse)
    if node.is_leaf:
        return es
    child_errors = [prune_m_estimate(c, m, prior, node_mse) for c in node.children]
    shares = np.array([c.weight for c in node.children])
    backed_up = float(shares @ child_errors / shares.sum())
    if es <= backed_up:
        node.make_leaf()
        return es
    return backed_up


def pessimistic_errors(n, errors, confidence):
    """n U_CF(e, n): the pessimistic error count of a leaf (C4.5)."""
    if errors >= n:
        return n
    return n * float(betaincinv(errors + 1.0, n - errors, 1.0 - confidence))


def prune_pessimistic(node, confidence):
    """Prune the subtree of ``node`` in place; returns its pessimistic error count."""
    dist = node.model.value
    leaf = pessimistic_errors(float(dist.sum()), float(dist.sum() - dist.max()), confidence)
    if node.is_leaf:
        return leaf
    subtree = sum(prune_pessimistic(c, confidence) for c in node.children)
    if leaf <= subtree + 0.1:
        node.make_leaf()
        return leaf
    return subtree
