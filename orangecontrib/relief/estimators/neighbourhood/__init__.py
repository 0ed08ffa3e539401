"""The machinery every neighbourhood-based estimator stands on, apart from the estimators:

* :mod:`.diffs` — the per-attribute diffs and their sums, the distances (``DiffModel``,
  ``DiffOptions``);
* :mod:`.neighbours` — the nearest-neighbour context of the Relief family and Contextual Merit
  (``nearest_neighbours``, ``neighbour_weights``), with :mod:`.single_precision` (the certified
  float32 search), :mod:`.heaps` (bounded neighbour heaps) and :mod:`.sparse` (``scipy.sparse``
  data);
* :mod:`.searches` — the names of the searches and notices of the one each search takes;
* :mod:`.packed` — SNP genotypes packed as bit planes (:mod:`.bit_planes` decodes them);
* :mod:`.diff_sums` — the weighted sums of diffs over a context that turn it into estimates;
* :mod:`.vectorised` — the numpy equivalents of the kernels, and :mod:`.kinds` — the codes
  both share.
"""
from .diffs import DiffModel, DiffOptions, class_codes, class_tiles, target_diffs
from .neighbours import NeighbourContext, nearest_among, nearest_neighbours, neighbour_weights, \
    regroup
from .sparse import SparseDiffModel, diff_model

__all__ = ["DiffModel", "DiffOptions", "class_codes", "class_tiles", "target_diffs",
           "NeighbourContext", "nearest_among", "nearest_neighbours", "neighbour_weights",
           "regroup",
           "SparseDiffModel", "diff_model"]
