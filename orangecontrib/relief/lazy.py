"""Lazy re-exports of a package's public names (PEP 562): each is imported from its module on
first use, so that importing the package costs only what it imports itself."""
import importlib

__all__ = ["lazy_exports"]


def lazy_exports(package, exports, eager=()):
    """``(__all__, __getattr__, __dir__)`` for the package named ``package``: ``exports`` maps
    each submodule (relative to the package) to the names it exports; ``eager`` are the names
    the package imports itself. A name is imported on first use and then kept in the
    package's namespace."""
    module_of = {name: module for module, names in exports.items() for name in names}
    names = [*eager, *module_of]

    def __getattr__(name):
        module = module_of.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        setattr(importlib.import_module(package), name, value)
        return value

    def __dir__():
        return sorted(set(vars(importlib.import_module(package))) | set(names))
    return names, __getattr__, __dir__
