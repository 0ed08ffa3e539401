"""The science: attribute estimators on the encoded data form (numpy/scipy/numba only, never
Orange or Qt): a context computed once per data set, columns evaluated cheaply against it.

The public names of the submodules are available here too (``from
orangecontrib.relief.estimators import ReliefF, encode``); all but the data form, the diff
model and the base class are imported on first use (PEP 562), so importing this package stays
light."""
# before any numba kernel is defined: a writable cache location or none
from ..compilation import ensure_cache
ensure_cache()

from .encoding import EncodedData, encode
from .neighbourhood import DiffOptions, DiffModel
from .base import Estimator
from ..lazy import lazy_exports

#: the public names of the submodules, imported on first use; a name that is also a
#: submodule (``significance``) or defined twice (``unified_pi``'s ``gini_gain`` and
#: ``information_gain``) is read from its module
_EXPORTS = {
    "base": ["Parameters", "check_data", "check_summary", "random_generator"],
    "neighbourhood": ["NeighbourContext", "nearest_neighbours", "nearest_among",
                      "neighbour_weights", "class_tiles", "target_diffs", "SparseDiffModel",
                      "diff_model"],
    "neighbourhood.neighbours": ["WEIGHTINGS"],
    "neighbourhood.searches": ["SEARCHES", "search_notices"],
    "relief_family": ["ReliefFamily", "BestK", "weighted_diff_sums", "first_k_weights"],
    "relieff": ["Relief", "ReliefF", "ReliefFbestK", "ReliefFmerit", "group_coefficients"],
    "rrelieff": ["RReliefF", "RReliefFbestK"],
    "relief_mse": ["RReliefFwithMSE", "relief_share"],
    "surf": ["SURF", "SURFstar", "MultiSURF", "MultiSURFstar", "BandContext",
             "band_thresholds", "others_mean_std", "pooled_std", "sigmoid_strength",
             "band_coefficients", "band_estimates", "band_distances", "band_blocks"],
    "swrf": ["SWRF", "SWRFstar", "MultiSWRF", "MultiSWRFstar", "MultiSWRFDB", "MultiSWRFDBstar"],
    "murelief": ["MuRelief", "extreme_places"],
    "turf": ["TuRF", "TuRFContext"],
    "vls": ["VLS", "VLSContext", "vls_subsets", "subset_maximum"],
    "iterative": ["Iter", "IterContext", "relief_weights"],
    "multiscale": ["MultiScaleRelief", "standardise"],
    "cost_sampling": ["expected_cost_sample", "ReliefFsmp", "MDLsmp"],
    "contextual_merit": ["ContextualMerit", "MeritContext", "PairwiseClassEstimator"],
    "unified_pi": ["UnifiedPi", "PiContext", "value_codes", "distance_weights", "F_FUNCTIONS",
                   "WEIGHT_FUNCTIONS"],
    "impurity": ["information_gain", "gain_ratio", "gini_gain", "accuracy_gain", "mdl_gain",
                 "myopic_relieff", "mse_of_mean", "dkm", "dkm_gain", "cost_weighted",
                 "dkm_cost_gain", "cost_gain_ratio", "ImpurityEstimator", "InfGain",
                 "GainRatio", "Gini", "MDL", "Accuracy", "MSE", "MyopicReliefF", "DKM",
                 "DKMcost", "GainRatioCost"],
    "balanced_impurity": ["uniform_gain", "uniform_accuracy", "equal_branches",
                          "gini_impurity", "UniformDKM", "UniformGini", "UniformInf",
                          "UniformAccuracy", "EqualDKM", "EqualGini", "EqualInf"],
    "distribution_distance": ["impurity_distance", "equal_hellinger", "dist_hellinger",
                              "dist_euclid", "dist_angle", "dist_auc", "ImpurityEuclid",
                              "ImpurityHellinger", "EqualHellinger", "DistHellinger",
                              "DistEuclid", "DistAngle", "DistAUC"],
    "model_error": ["linear_model_predictions", "branch_error", "ModelError"],
    "significance": ["HitMissPairs", "Significance", "benjamini_hochberg", "stir", "stir_test",
                     "supports_stir", "permutation_test", "METHODS"],
    "encoding": ["Covariates", "as_covariates"],
    "npdr": ["NPDR", "NPDRContext", "NPDRSignificance"],
    "pair_regression": ["linear_fits", "logistic_fits"],
    "firth": ["LogisticFits", "logistic_regressions"],
    "trend": ["TrendTest", "TrendSignificance"],
    "threshold": ["relief_threshold", "select_above_threshold"],
    "selection": ["selection_mask"],
    "interactions": ["Pair", "InteractingPairs", "interacting_pairs", "scan_pairs",
                     "pair_statistics"],
    "corelearn": ["CORELEARN_ESTIMATORS", "corelearn_estimator"],
    "splits": ["Split", "target_statistics", "value_table", "candidate_thresholds",
               "best_threshold", "exhaustive_partitions", "search_partitions", "value_order",
               "best_partition", "GREEDY_MAX"],
}
__all__, __getattr__, __dir__ = lazy_exports(
    __name__, _EXPORTS, eager=["EncodedData", "encode", "DiffOptions", "DiffModel", "Estimator"])
