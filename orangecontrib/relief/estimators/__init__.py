"""The science: attribute estimators on the encoded data form (numpy/scipy/numba only, never
Orange or Qt): a context computed once per data set, columns evaluated cheaply against it."""
# before any numba kernel is defined: a writable cache location or none
from ..compilation import ensure_cache
ensure_cache()

from .encoding import EncodedData, encode
from .neighbourhood import DiffOptions, DiffModel
from .base import Estimator

__all__ = ["EncodedData", "encode", "DiffOptions", "DiffModel", "Estimator"]
