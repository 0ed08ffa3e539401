"""μ-Relief: ReliefF with the k instances of each class farthest from the class's mean distance.

Aggarwal, Shukla, Saxena et al., "Mean based relief: An improved feature selection method based
on ReliefF" (Applied Intelligence, 2023; scikit-rebate 0.8's ``MuRelief``). For a sampled
instance R_i and each class C, mu_iC is the mean distance from R_i to the other instances of
class C; the neighbours of class C are the k instances of C with the largest abs(d(i, j) - mu_iC)
(the most typical by their distance, near or far), and the update is ReliefF's with them as its
k hits and k misses of each other class (Robnik-Sikonja & Kononenko 2003, Fig. 3, equal
influences):

    W[A] = 1/m sum_i [ sum_{C != y_i} P(C) / (1 - P(y_i)) mean_{j in N_iC} diff(A, R_i, I_j)
                       - mean_{j in N_iy_i} diff(A, R_i, I_j) ].

For a numeric target the neighbours are the k instances farthest from R_i's mean distance, and
the update RReliefF's (Fig. 4, eq. 12) over them. Instances tied at the k-th place share the
remaining places (so the estimates do not depend on the order of the rows); with instance
weights an instance fills as many places as it weighs (R_i's other copies among them). The
update is the SURF family's over a band (:mod:`.surf`), the band being the chosen neighbours,
each standing for the places it fills.
"""
import numpy as np

from . import skrebate
from .base import available_memory, check_data, check_memory
from .neighbourhood.diffs import DiffModel
from .parameters import DIFF_PARAMETERS, ITERATIONS, K, PRESET, RANDOM_STATE
from .surf import NEAR, SURF, BandContext, band_blocks, band_distances

__all__ = ["MuRelief", "extreme_places"]


class MuRelief(SURF):
    """μ-Relief; see the module docstring. Parameters: ``k`` (neighbours of each class, default
    10), ``iterations``, ``random_state``, ``preset`` and the diff options."""
    #: STIR tests the near neighbours; its extreme ones are tested by permutations only
    significance_tests = ("permutation",)
    name = "MuRelief"
    display_name = "μ-Relief"
    short_name = "μRF"
    paper = ("Aggarwal, Shukla, Saxena et al. 2023, Applied Intelligence (μ-Relief); "
             "scikit-rebate 0.8 documentation")
    parameters = (K, ITERATIONS, RANDOM_STATE, PRESET) + DIFF_PARAMETERS
    dask_backend = False
    default_k = 10
    skrebate_neighbours = "extremes"

    def __init__(self, k=None, iterations=None, random_state=None, preset="papers", diff=None,
                 **diff_keywords):
        super().__init__(iterations=iterations, random_state=random_state, preset=preset,
                         diff=diff, **diff_keywords)
        self.k = k

    @property
    def k_(self):
        if self.k is not None:
            return self.k
        return skrebate.DEFAULT_K if self.preset == "skrebate" else self.default_k

    def named_parameters(self):
        """The number of neighbours k."""
        return {"k": self.k_}

    def context(self, data, callback=None):
        """The k places of each class (of all instances for a numeric target) of every sampled
        instance, from the distances of one block of rows at a time."""
        if self.skrebate_preset():
            return skrebate.context(self, data)
        check_data(data, self)
        n = data.n_instances
        instances = self.sample(n)
        m = instances.size
        available = available_memory()
        check_memory(18 * m * n, f"{self.name}: the neighbours of {m} sampled instances among "
                     f"{n} (a byte and a place per pair, and as much beside them)",
                     "set iterations to at most "
                     f"{max(1, available // (18 * n)) if available else m - 1}")
        model = DiffModel(data, self.diff_options())
        groups = data.y.astype(np.intp) if data.is_classification \
            else np.zeros(n, np.intp)
        places = np.zeros((m, n))
        blocks = band_blocks(m, n, model)
        for step, blk in enumerate(blocks):
            d = band_distances(model, instances[blk])
            places[blk] = extreme_places(d, instances[blk], groups, data.instance_weights,
                                         self.k_)
            if callback is not None:
                callback((step + 1) / len(blocks))
        bands = np.where(places > 0, NEAR, 0).astype(np.int8)
        return BandContext(data, model, instances, bands, np.full(m, np.nan),
                           np.full(m, np.inf),
                           "packed SNP" if model.distance_planes.shape[2]
                           else "double precision",
                           places=places)

    def target_contexts(self, data, callback=None):
        """None: the neighbours are chosen per class, so another target has its own."""
        return None


def extreme_places(d, rows, groups, weights, k):
    """(b, N): the places among the k of its group that each instance fills for each of
    ``rows`` (d: their distances to every instance): in each group, the instances in
    decreasing order of abs(d - mu), mu the group's mean distance from the row, fill places by
    their ``weights`` (the row's own other copies w_i - 1, at distance 0) until k are filled;
    instances tied at the last place filled share what remains in proportion to their
    weights. With unit weights the k-th largest abs(d - mu) of each row and group decides
    (a partition, not a sort)."""
    if np.all(weights == 1):
        return _unit_extreme_places(d, rows, groups, k)
    b, n = d.shape
    out = np.zeros((b, n))
    for q in range(b):
        mass = weights.astype(float)
        mass[rows[q]] = max(weights[rows[q]] - 1.0, 0.0)
        for g in np.unique(groups):
            members = np.flatnonzero((groups == g) & (mass > 0))
            if not members.size:
                continue
            w = mass[members]
            dist = d[q, members]
            mu = (w * dist).sum() / w.sum()
            score = np.abs(dist - mu)
            # tie blocks in decreasing order of score
            values, inverse = np.unique(-score, return_inverse=True)
            block_mass = np.bincount(inverse, weights=w, minlength=values.size)
            before = np.concatenate([[0.0], np.cumsum(block_mass)[:-1]])
            share = np.clip(k - before, 0.0, block_mass) / block_mass
            out[q, members] = w * share[inverse]
    return out


def _unit_extreme_places(d, rows, groups, k):
    """:func:`extreme_places` with every weight 1, all rows at once: a row's own instance
    fills no place; in a group of more than k others the instances above the k-th largest
    abs(d - mu) fill one place each and those tied with it share what remains."""
    b, n = d.shape
    out = np.zeros((b, n))
    own = np.zeros((b, n), bool)
    own[np.arange(b), rows] = True
    for g in np.unique(groups):
        members = np.flatnonzero(groups == g)
        others = ~own[:, members]
        count = others.sum(axis=1)
        dist = d[:, members]
        mu = np.where(others, dist, 0.0).sum(axis=1) / np.maximum(count, 1)
        if members.size <= k:                # every other member fills a place
            out[:, members] = others
            continue
        score = np.where(others, np.abs(dist - mu[:, None]), -1.0)
        kth = -np.partition(-score, k - 1, axis=1)[:, k - 1:k]
        above, tied = score > kth, score == kth
        share = (k - above.sum(axis=1)) / tied.sum(axis=1)
        out[:, members] = np.where(above, 1.0, np.where(tied, share[:, None], 0.0))
    return out
