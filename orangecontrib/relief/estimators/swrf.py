"""The SWRF family: SURF and MultiSURF with sigmoid-weighted band members.

Stokes & Visweswaran, "Application of a spatially-weighted Relief algorithm for ranking genetic
predictors of disease" (BioData Mining 5:20, 2012) weigh every instance I_j by a sigmoid of its
distance d from the sampled instance R_i (SWRF*): near instances count for the estimate, far
ones against it, and those about the mean distance T hardly at all. scikit-rebate 0.8 (its
documentation: "SWRF, MultiSWRF, MultiSWRFDB and their starred forms") applies the same weight
to the bands of SURF and MultiSURF (:mod:`.surf`). With t the threshold of I_j's band and sigma
the standard deviation of the distances the thresholds are taken from, a band member weighs

    w(d) = 2 / (1 + exp(-4 abs(d - t) / sigma)) - 1  =  tanh(2 abs(d - t) / sigma)

(:func:`.surf.sigmoid_strength`): about 0 just inside the threshold, 0.96 a standard deviation
away. The bands:

* ``SWRF``: near = {j : d(i, j) < T}, T and sigma the mean and standard deviation of all
  distances (SURF's band); ``SWRFstar`` adds far = {j : d(i, j) > T} (SWRF*, the paper's);
* ``MultiSWRF``: near = {j : d(i, j) < T_i}, T_i and sigma_i the mean and standard deviation
  of R_i's distances to the others; ``MultiSWRFstar`` adds far = {j : d(i, j) > T_i};
* ``MultiSWRFDB``: MultiSURF's near band d < T_i - sigma_i / 2, each member weighed from that
  threshold; ``MultiSWRFDBstar`` adds MultiSURF*'s far band d > T_i + sigma_i / 2 (the dead
  band between unused).

The update is the SURF family's (:mod:`.surf`) with each member's diff times its weight: for a
discrete class

    W_band[A] = 1/m sum_i [ sum_{C != y_i} P(C) / (1 - P(y_i)) (1 / n_iC) sum_{j in band, y_j = C} w_ij diff(A, R_i, I_j)
                            - (1 / n_iy) sum_{j in band, y_j = y_i} w_ij diff(A, R_i, I_j) ],

n_iC the number of R_i's band members of class C (the weights damp the members, the mean stays
over the members, as scikit-rebate's), and for a numeric target RReliefF's probability estimate
with influence w_ij / size(band_i) of each member; W = W_near - W_far. On two classes without
missing values this is scikit-rebate's SWRF, MultiSWRF and MultiSWRFDB, and its starred forms up
to a constant shift of every discrete attribute's estimate where the far band weighs
(scikit-rebate scores a far member's discrete diff as w (1 - diff) and its numeric one as
1 - w diff); ``preset="skrebate"`` gives its numbers everywhere. The weights enter the SURF
family's one pass over the bands as a factor of each pair (instance weights multiply them), so
every data form of SURF takes SWRF (bit planes are summed from their codes, as the weights are
not counts).
"""
from .surf import SURF, MultiSURF

__all__ = ["SWRF", "SWRFstar", "MultiSWRF", "MultiSWRFstar", "MultiSWRFDB", "MultiSWRFDBstar"]

SKREBATE = "scikit-rebate 0.8 documentation (Urbanowicz lab, 2026)"


class SWRF(SURF):
    """SWRF: SURF's near band (closer than the mean distance T) with each member weighed by
    the sigmoid of its distance from T; see the module docstring."""
    #: STIR tests unweighted hits and misses: only permutations test the weighted estimates
    significance_tests = ("permutation",)
    name = "SWRF"
    paper = f"{SKREBATE}; after Stokes & Visweswaran 2012, BioData Mining 5:20"
    sigmoid = True


class SWRFstar(SWRF):
    """SWRF* (Stokes & Visweswaran 2012): every instance weighed by the sigmoid of its distance
    from the mean distance T, the near ones (d < T) counting for the estimate and the far ones
    (d > T) against it; see the module docstring. As SURF*, blind to main effects by its
    far band (meant for pure interactions)."""
    name = "SWRF*"
    paper = "Stokes & Visweswaran 2012, BioData Mining 5:20 (SWRF*)"
    far_band = True
    significance_tests = ("permutation",)       # as SURF*
    split_selector = False                      # as SURF*


class MultiSWRF(MultiSURF):
    """MultiSWRF: each instance's near band is the instances closer than its own mean distance
    T_i (no dead band), each weighed by the sigmoid of its distance from T_i with R_i's
    standard deviation; see the module docstring."""
    #: STIR tests unweighted hits and misses: only permutations test the weighted estimates
    significance_tests = ("permutation",)
    name = "MultiSWRF"
    short_name = "MSWRF"
    paper = SKREBATE
    dead_band = False
    sigmoid = True


class MultiSWRFstar(MultiSWRF):
    """MultiSWRF*: MultiSWRF with the instances farther than T_i scored with the opposite sign,
    weighed alike; see the module docstring."""
    name = "MultiSWRF*"
    short_name = "MSW*"
    far_band = True
    significance_tests = ("permutation",)
    split_selector = False


class MultiSWRFDB(MultiSURF):
    """MultiSWRFDB: MultiSURF's near band (closer than T_i - sigma_i / 2) with each member
    weighed by the sigmoid of its distance from that threshold; see the module docstring."""
    #: STIR tests unweighted hits and misses: only permutations test the weighted estimates
    significance_tests = ("permutation",)
    name = "MultiSWRFDB"
    short_name = "MSWD"
    paper = SKREBATE
    sigmoid = True


class MultiSWRFDBstar(MultiSWRFDB):
    """MultiSWRFDB*: MultiSURF*'s bands (the dead band T_i +- sigma_i / 2 unused) with each
    member weighed by the sigmoid of its distance from its band's threshold; see the module
    docstring."""
    name = "MultiSWRFDB*"
    short_name = "MSWD*"
    far_band = True
    significance_tests = ("permutation",)
    split_selector = False
