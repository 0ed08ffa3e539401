"""Lazy re-exports of a package's public names (PEP 562): each is imported from its module on
first use, so that importing the package costs only what it imports itself."""
import importlib
import importlib.util

__all__ = ["lazy_exports"]


def lazy_exports(package, exports, eager=()):
    """``(__all__, __getattr__, __dir__)`` for the package named ``package``: ``exports`` maps
    each submodule (relative to the package) to the names it exports, a list, or a function of
    the imported submodule that returns them (a list derived from what the submodule defines,
    read when a name of no list is first asked for, or ``__all__``); ``eager`` are the names the
    package imports itself. A name is imported on first use and then kept in the package's
    namespace. With derived lists, ``__all__`` is served on first use too (it is then None
    here)."""
    module_of = {name: module for module, names in exports.items() if not callable(names)
                 for name in names}
    derived = {module: names for module, names in exports.items() if callable(names)}
    names = [*eager, *module_of]

    def derive():
        """Add the derived lists' names (importing their modules), once."""
        for module, names_of in list(derived.items()):
            found = names_of(importlib.import_module(f"{package}.{module}"))
            module_of.update({name: module for name in found if name not in module_of})
            names.extend(name for name in found if name not in names)
            del derived[module]

    def __getattr__(name):
        if name == "__all__":
            derive()
            setattr(importlib.import_module(package), "__all__", list(names))
            return list(names)
        module = module_of.get(name)
        if module is None and derived and not name.startswith("__") \
                and importlib.util.find_spec(f"{package}.{name}") is None:
            derive()                # not a submodule (``from package import submodule``)
            module = module_of.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        setattr(importlib.import_module(package), name, value)
        return value

    def __dir__():
        derive()
        return sorted(set(vars(importlib.import_module(package))) | set(names))
    return (None if derived else names), __getattr__, __dir__
