"""Numba compilation: where compiled kernels are cached on disk, and notices while they compile.

The numeric kernels are compiled by numba on their first call (only the kernels that call
needs, for the argument types it passes) and cached on disk, so that later sessions load them in
a fraction of a second. The first call of a session with an empty cache compiles, which takes
seconds to tens of seconds.

:func:`configure_cache` runs when :mod:`orangecontrib.relief` is imported, before any kernel is
defined. Numba keeps its cache next to the source files (in ``__pycache__``) or, where that is
not writable, in the user's cache directory; where neither is writable (a system-wide install
used from an account without a writable home), numba would refuse to define the kernels. The
cache then goes to a private per-user directory in the system's temporary directory
(``orange3-relief-numba-<uid>``), and if there is none, kernels are compiled in every session
without a disk cache. A cache directory set with ``NUMBA_CACHE_DIR`` is used whenever it is
writable.

:func:`compile_notices` tells a caller when a call starts compiling, so that it can say so
(the command line prints a line on stderr; a widget can show it in its status bar)::

    with compile_notices(lambda name: print(f"compiling {name} ...", file=sys.stderr)):
        scores = ReliefF()(data)
"""
import os
import stat
import tempfile
import threading
from contextlib import contextmanager

__all__ = ["configure_cache", "cache_dir", "compile_notices"]

PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))

#: the directory numba caches our kernels in: None for numba's own choice (next to the
#: sources), "" when caching is off; set by :func:`configure_cache`
_cache_dir = None


def cache_dir():
    """The directory the kernels are cached in when it is not numba's default (the
    ``__pycache__`` directories next to the sources): a path, or None for the default, or ""
    when there is no writable place and kernels are not cached."""
    return _cache_dir


def _can_cache(source):
    """Whether numba finds a writable cache location for functions defined in ``source``."""
    from numba.core.caching import FunctionCache

    def probe():
        pass
    probe.__code__ = probe.__code__.replace(co_filename=source)
    try:
        FunctionCache(probe)
    except RuntimeError:  # "cannot cache function ...: no locator available for file ..."
        return False
    return True


def _sources():
    """One source file in each directory of the package (numba caches per directory)."""
    return [os.path.join(root, "__init__.py") for root, _, files in os.walk(PACKAGE_DIR)
            if "__init__.py" in files]


def _private_dir(path):
    """``path`` as a directory only this user can write to (created if missing), or None.
    A cache holds pickled code that numba loads: a directory someone else owns or can
    write to is never used."""
    try:
        os.makedirs(path, mode=0o700, exist_ok=True)
        info = os.stat(path)
        if hasattr(os, "getuid") and (info.st_uid != os.getuid()
                                      or info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)):
            return None
        tempfile.TemporaryFile(dir=path).close()
    except OSError:
        return None
    return path


def _fallback_dirs():
    """Candidate cache directories, in order of preference."""
    try:
        user = str(os.getuid()) if hasattr(os, "getuid") else os.getlogin()
    except OSError:
        user = "user"
    try:
        yield os.path.join(tempfile.gettempdir(), f"orange3-relief-numba-{user}")
    except OSError:  # no usable temporary directory at all
        return


def configure_cache(sources=None, fallbacks=None):
    """Make sure numba can define the package's cached kernels (see the module docstring);
    return :func:`cache_dir`. ``sources`` (files whose directories must be cachable) and
    ``fallbacks`` (candidate directories) default to the package's and the user's."""
    global _cache_dir
    from numba.core import config
    sources = _sources() if sources is None else sources
    if all(map(_can_cache, sources)):
        _cache_dir = config.CACHE_DIR or None
        return _cache_dir
    for candidate in _fallback_dirs() if fallbacks is None else fallbacks:
        if _private_dir(candidate):
            config.CACHE_DIR = candidate
            if all(map(_can_cache, sources)):
                _cache_dir = candidate
                return _cache_dir
    _disable_caching()
    _cache_dir = ""
    return _cache_dir


def _disable_caching():
    """Let ``@njit(cache=True)`` define kernels without a disk cache (numba would raise
    'no locator available' for every one of them, ours or others', in this process)."""
    from numba.core.dispatcher import Dispatcher
    Dispatcher.enable_caching = lambda self: None


class _Notices:
    """The numba event listener behind :func:`compile_notices`: calls each registered
    callback with the name of every kernel whose compilation starts outside another one's."""

    def __init__(self):
        from numba.core import event

        class Listener(event.Listener):
            def on_start(listener, ev):
                self.depth.value = getattr(self.depth, "value", 0) + 1
                if self.depth.value == 1:
                    func = ev.data["dispatcher"].py_func
                    name = f"{func.__module__}.{func.__qualname__}"
                    for callback in list(self.callbacks):
                        callback(name)

            def on_end(listener, ev):
                self.depth.value -= 1

        self.callbacks = []
        self.depth = threading.local()
        self.lock = threading.Lock()
        self.listener = Listener()
        self.event = event

    def add(self, callback):
        with self.lock:
            if not self.callbacks:
                self.event.register("numba:compile", self.listener)
            self.callbacks.append(callback)

    def remove(self, callback):
        with self.lock:
            self.callbacks.remove(callback)
            if not self.callbacks:
                self.event.unregister("numba:compile", self.listener)


_notices = _Notices()


@contextmanager
def compile_notices(callback):
    """While the block runs, call ``callback(name)`` whenever numba starts compiling one of
    the kernels (``name``: its qualified name) — not when it loads one from the disk cache.
    The callback runs in the thread that compiles (a widget's worker thread: use a
    thread-safe way to show it, e.g. ``TaskState.set_status``) and must not raise. Compiling
    is global to the process: a notice may come from a call made in another thread."""
    _notices.add(callback)
    try:
        yield
    finally:
        _notices.remove(callback)
