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

:func:`kernel` gives a kernel a numpy equivalent (``@kernel(fallback)`` over ``@njit``): while
the kernel is neither compiled in this process nor in the disk cache for the types of a call,
the numpy function computes the same numbers (to the last bit: the same floating-point
operations in the same order) on data small enough for it, and a separate low-priority process
compiles the kernel for those types into the disk cache. On very small data the numpy function
serves also when the kernel is in the disk cache, since loading it takes longer. The first result thus takes no compile
time, no compile holds the interpreter lock in this process (a widget's canvas keeps
responding), and the next call or session loads the compiled kernel. :func:`kernel_mode` or
the ``ORANGE_RELIEF_KERNELS`` environment variable chooses ``"auto"`` (the default),
``"compiled"`` (always the compiled kernel) or ``"numpy"`` (the numpy equivalent wherever it
applies, nothing compiled in the background). :func:`run_in_background` and
:func:`run_compiled` run functions with the compiled kernels in other processes, so that the
kernels those call compile into the cache: the first after a search that had to do without
its kernels, the second for compiling every kind of data at once
(:mod:`orangecontrib.relief.workloads`, ``orange-relief compile``). :data:`KERNELS` lists every
kernel defined with :func:`kernel`, and :func:`kernel_calls` shows the arguments each receives
(so that a test can run both implementations on them).

This module is the mechanism only: it imports none of the modules that define kernels (they
import it), and names the functions it runs in other processes by their module and name.
"""
import functools
import importlib
import os
import pickle
import stat
import subprocess
import sys
import tempfile
import threading
from contextlib import contextmanager, nullcontext

__all__ = ["configure_cache", "ensure_cache", "cache_dir", "compile_notices", "load_notices",
           "kernel", "kernel_mode",
           "KERNEL_MODES", "compile_in_background", "run_in_background", "run_compiled",
           "compiled_somewhere", "current_mode", "small_data_only", "KERNELS", "kernel_calls"]

PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))

#: the directory numba caches our kernels in: None for numba's own choice (next to the
#: sources), "" when caching is off; set by :func:`configure_cache`
_cache_dir = None
_configured = False


def ensure_cache():
    """:func:`configure_cache` once per process (the modules that define kernels call it
    before their first ``@njit``; importing the package alone imports no numba)."""
    if not _configured:
        configure_cache()


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
    global _cache_dir, _configured
    _configured = True
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


_notices = None
_notices_lock = threading.Lock()


@contextmanager
def compile_notices(callback):
    """While the block runs, call ``callback(name)`` whenever numba starts compiling one of
    the kernels (``name``: its qualified name) — not when it loads one from the disk cache.
    The callback runs in the thread that compiles (a widget's worker thread: use a
    thread-safe way to show it, e.g. ``TaskState.set_status``) and must not raise. Compiling
    is global to the process: a notice may come from a call made in another thread."""
    global _notices
    with _notices_lock:
        if _notices is None:        # numba imported on the first use only
            _notices = _Notices()
    _notices.add(callback)
    try:
        yield
    finally:
        _notices.remove(callback)


#: the callbacks of :func:`load_notices`
_load_callbacks = []


@contextmanager
def load_notices(callback):
    """While the block runs, call ``callback(name, True)`` when a kernel (:func:`kernel`;
    ``name``: its qualified name) starts loading from the disk cache, and ``callback(name,
    False)`` when it has loaded (or failed to). Loading takes up to seconds (a parallel kernel
    most), during which the computation reports no progress; the callback runs in the thread
    that loads and must not raise."""
    _load_callbacks.append(callback)
    try:
        yield
    finally:
        _load_callbacks.remove(callback)


# ---------------------------------------------------------------------------------------------
# kernels with a numpy equivalent, compiled in the background

#: "auto": the numpy equivalent while a kernel is not compiled (see the module docstring);
#: "compiled": always the compiled kernel; "numpy": the numpy equivalent wherever it applies
KERNEL_MODES = ("auto", "compiled", "numpy")
_mode = None
#: (module, kernel name, signature) already handed to a background compile by this process
_requested = set()
_requested_lock = threading.Lock()


def current_mode():
    """The kernel mode in force (see :func:`kernel_mode`)."""
    return _current_mode()


#: ``value``: whether a numpy equivalent is to serve small data only (the kernel is in the
#: disk cache: loading it takes longer than computing small data in numpy)
_small = threading.local()


def small_data_only():
    """Whether the numpy equivalent called in this thread is to serve small data only (it
    stands in for a kernel in the disk cache, not for a compile)."""
    return getattr(_small, "value", False)


def _current_mode():
    mode = _mode or os.environ.get("ORANGE_RELIEF_KERNELS", "auto")
    return mode if mode in KERNEL_MODES else "auto"


@contextmanager
def kernel_mode(mode):
    """Within the block, run the kernels in ``mode`` (one of :data:`KERNEL_MODES`), in every
    thread of the process."""
    global _mode
    if mode not in KERNEL_MODES:
        raise ValueError(f"kernel mode must be one of {', '.join(KERNEL_MODES)}, got {mode!r}")
    previous, _mode = _mode, mode
    try:
        yield
    finally:
        _mode = previous


class Kernel:
    """A numba dispatcher with a numpy equivalent; see :func:`kernel`. Attributes it does not
    have are the dispatcher's (``py_func``, ``signatures``, ...)."""

    def __init__(self, dispatcher, fallback):
        self.dispatcher = dispatcher
        self.fallback = fallback
        functools.update_wrapper(self, dispatcher.py_func)

    def __getattr__(self, name):
        return getattr(self.__dict__["dispatcher"], name)

    def __reduce__(self):           # pickled by name (a Dask worker imports the module)
        return _kernel_by_name, (self.__module__, self.__qualname__)

    def __call__(self, *args):
        if _call_observers:
            for observer in list(_call_observers):
                observer(self, args)
        mode = _current_mode()
        where = None
        if mode == "numpy":
            result = self.fallback(*args)
        elif mode == "auto":
            where, signature = self._compiled_where(args)
            result = NotImplemented
            if where == "cache":        # small data: numpy answers before the kernel loads
                _small.value = True
                try:
                    result = self.fallback(*args)
                finally:
                    _small.value = False
            elif where is None:
                result = self.fallback(*args)
                if result is not NotImplemented:
                    compile_in_background(self, signature)
        else:
            result = NotImplemented
        if result is not NotImplemented:
            return result
        if _load_callbacks and mode == "compiled":
            where = self._compiled_where(args)[0]
        if _load_callbacks and where == "cache":
            return self._load_and_call(args)
        return self.dispatcher(*args)

    def _load_and_call(self, args):
        """Call the dispatcher, which loads the kernel from the disk cache, telling the
        :func:`load_notices` callbacks."""
        name = f"{self.__module__}.{self.__qualname__}"
        callbacks = list(_load_callbacks)
        for callback in callbacks:
            callback(name, True)
        try:
            return self.dispatcher(*args)
        finally:
            for callback in callbacks:
                callback(name, False)

    def _compiled_where(self, args):
        """(where the kernel is compiled for the argument types of a call: "memory" (this
        process), "cache" (the disk cache), "here" (a call compiles it in this process: no disk
        cache, or types numba reports on), or None (nowhere yet); the types)."""
        dispatcher = self.dispatcher
        try:
            signature = tuple(dispatcher.typeof_pyval(a) for a in args)
        except Exception:            # let numba report what it cannot type
            return "here", None
        if signature in dispatcher.overloads:
            return "memory", signature
        cache = dispatcher._cache
        if not hasattr(cache, "_index_key"):     # caching is off (NullCache)
            return "here", signature
        try:
            key = cache._index_key(signature, dispatcher.targetctx.codegen())
            if key in cache._cache_file._load_index():
                return "cache", signature
        except Exception:
            return "here", signature
        return None, signature


def _kernel_by_name(module, name):
    return getattr(importlib.import_module(module), name)


#: every :class:`Kernel` defined with :func:`kernel` (in the modules imported so far), in the
#: order of definition
KERNELS = []
#: the callbacks of :func:`kernel_calls` in force
_call_observers = []


def kernel(fallback):
    """Decorator over ``@njit(cache=True, ...)``: the kernel with the numpy function
    ``fallback`` as its equivalent (see the module docstring). ``fallback`` takes the kernel's
    arguments and computes what the kernel computes, the same floating-point operations in the
    same order, or returns ``NotImplemented`` (before changing anything) where it does not
    apply (e.g. data too large for it); the kernel then runs. The kernel is listed in
    :data:`KERNELS`."""
    def wrap(dispatcher):
        made = Kernel(dispatcher, fallback)
        KERNELS.append(made)
        return made
    return wrap


@contextmanager
def kernel_calls(callback):
    """While the block runs, call ``callback(kernel, args)`` before every call of a kernel of
    :data:`KERNELS` (in any thread), with the :class:`Kernel` and the arguments it is about to
    run on (the kernels write their outputs into arguments: a callback that keeps them copies
    them). The callback must not raise."""
    _call_observers.append(callback)
    try:
        yield
    finally:
        _call_observers.remove(callback)


def compile_in_background(kernel, signature):
    """Start a separate low-priority process that compiles ``kernel`` (a :class:`Kernel` or a
    numba dispatcher of an importable module) for the argument types ``signature`` into the
    disk cache, once per process; the compiles into one cache run one at a time (those
    waiting end with the process that started them). Return whether one was started."""
    key = (kernel.__module__, kernel.__qualname__, signature)
    background_compiles()           # (collects those that ended)
    with _requested_lock:
        if key in _requested:
            return False
        _requested.add(key)
    try:
        data = pickle.dumps(signature)
    except pickle.PicklingError:
        return False
    return _start_background([kernel.__module__, kernel.__qualname__], data)


def run_in_background(function):
    """Start a separate low-priority process that calls ``function`` (a function of an
    importable module, without arguments) with the compiled kernels, compiling those it calls
    that are not yet in the disk cache; once per process (and function). Return whether one
    was started; never in the ``"numpy"`` mode."""
    if _current_mode() == "numpy":
        return False
    key = (function.__module__, function.__qualname__)
    background_compiles()           # (collects those that ended)
    with _requested_lock:
        if key in _requested:
            return False
        _requested.add(key)
    return _start_background(["--run", *key], b"")


def _environment():
    """The environment of a process that compiles into this process's cache."""
    env = dict(os.environ)
    if _cache_dir:
        env["NUMBA_CACHE_DIR"] = _cache_dir
    return env


#: the variable that names, to a background compile, the process whose end ends it
OWNER_VARIABLE = "ORANGE_RELIEF_BACKGROUND_OWNER"
#: the variable that names, to a background compile, the process that started it: one waiting
#: for another compile of the same cache to finish ends when that process has ended
PARENT_VARIABLE = "ORANGE_RELIEF_BACKGROUND_PARENT"
#: the process whose end also ends the background compiles started from now on (None: they
#: run to their end; :func:`end_background_with_this_process`)
_owner = None


def end_background_with_this_process():
    """Make the background compiles this process starts from now on end when it ends, within
    a second (Orange's widgets: a closed Orange leaves no compile running). Without it they run
    to their end and fill the disk cache for the next run (the command line's)."""
    global _owner
    _owner = os.getpid()


def _end_with(owner):
    """End this process (a background compile) once process ``owner``, its parent, has ended
    (the process is then re-parented): a thread checks every half second."""
    import time

    def watch():
        while os.getppid() == owner:
            time.sleep(0.5)
        os._exit(0)
    threading.Thread(target=watch, name="end-with-owner", daemon=True).start()


def _start_background(arguments, data):
    env = _environment()
    env.pop("ORANGE_RELIEF_KERNELS", None)
    env.pop(OWNER_VARIABLE, None)
    env[PARENT_VARIABLE] = str(os.getpid())
    if _owner is not None:
        env[OWNER_VARIABLE] = str(_owner)
    try:
        process = subprocess.Popen(
            [sys.executable, "-m", __name__, *arguments, "--background"],
            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            env=env, start_new_session=True)
        process.stdin.write(data)
        process.stdin.close()
    except OSError:
        return False
    _children.append(process)
    return True


def compiled_somewhere(*kernels):
    """Whether each of the numba dispatchers ``kernels`` has a compiled version in this process
    or in the disk cache (for any argument types)."""
    for dispatcher in kernels:
        if dispatcher.signatures:
            continue
        cache = dispatcher._cache
        try:
            if not cache._cache_file._load_index():
                return False
        except Exception:          # caching is off (NullCache) or unreadable
            return False
    return True


#: the background compiles started by this process (polled so that none is left a zombie)
_children = []


def background_compiles():
    """The number of background compiles of this process still running."""
    _children[:] = [p for p in _children if p.poll() is None]
    return len(_children)


def _lock_path():
    """The lock file of the kernel cache this process compiles into: in the cache directory
    (``NUMBA_CACHE_DIR``), else in the temporary directory, named after the package's
    directory (numba's cache beside the sources)."""
    cache = os.environ.get("NUMBA_CACHE_DIR")
    if cache and os.path.isdir(cache) and os.access(cache, os.W_OK):
        return os.path.join(cache, "orange3-relief-compile.lock")
    import hashlib
    tag = hashlib.sha1(PACKAGE_DIR.encode()).hexdigest()[:12]
    uid = os.getuid() if hasattr(os, "getuid") else 0
    return os.path.join(tempfile.gettempdir(), f"orange3-relief-compile-{uid}-{tag}.lock")


@contextmanager
def _in_background(parent=None):
    """Run the block at a low priority, once no other background compile into the same kernel
    cache runs (a lock file of the cache, :func:`_lock_path`): one compile at a time per cache,
    whatever process started it. While waiting, end this process when ``parent`` (the process
    that started it) has ended: no one would use its compile in this run, and a later one
    asks again."""
    import time
    try:
        os.nice(10)
    except (AttributeError, OSError):
        pass
    lock = None
    try:
        import fcntl
        lock = open(_lock_path(), "a")
        while True:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if parent is not None and os.getppid() != parent:
                    os._exit(0)
                time.sleep(0.2)
    except (ImportError, OSError, AttributeError):
        pass
    try:
        yield
    finally:
        if lock is not None:
            lock.close()


def _compile_signature(module, name, signature):
    """Compile kernel ``module.name`` for ``signature`` into the disk cache (the background
    process's work)."""
    target = _kernel_by_name(module, name)
    dispatcher = getattr(target, "dispatcher", target)
    dispatcher.compile(signature)


def run_compiled(functions, jobs=None, callback=None):
    """Call each of ``functions`` ({name: function of an importable module, called without
    arguments}) with the compiled kernels, each in its own process, ``jobs`` at a time
    (default: the number of cores), so that the kernels they call compile into the disk cache.
    ``callback(name, seconds)`` is called as each finishes. Raise ``RuntimeError`` naming one
    that failed."""
    import time
    todo = list(functions.items())
    jobs = max(1, jobs or os.cpu_count() or 1)
    env = _environment()
    running, failed = {}, []
    while todo or running:
        while todo and len(running) < jobs:
            name, function = todo.pop(0)
            running[name] = (time.perf_counter(), subprocess.Popen(
                [sys.executable, "-m", __name__, "--run", function.__module__,
                 function.__qualname__], env=env,
                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE))
        for name, (start, process) in list(running.items()):
            if process.poll() is not None:
                del running[name]
                if process.returncode:
                    failed.append(f"{name}: {process.stderr.read().decode().strip()[-500:]}")
                elif callback is not None:
                    callback(name, time.perf_counter() - start)
                process.stderr.close()
        time.sleep(0.05)
    if failed:
        raise RuntimeError("compiling failed for " + "; ".join(failed))


if __name__ == "__main__":
    # the package's own copy of this module (the kernels read its mode), not this __main__ one
    from orangecontrib.relief import compilation
    background = sys.argv[-1] == "--background"
    if background and os.environ.get(OWNER_VARIABLE):
        compilation._end_with(int(os.environ[OWNER_VARIABLE]))
    parent = os.environ.get(compilation.PARENT_VARIABLE)
    with compilation._in_background(int(parent) if parent else None) if background \
            else nullcontext():
        if sys.argv[1] == "--run":
            with compilation.kernel_mode("compiled"):
                compilation._kernel_by_name(sys.argv[2], sys.argv[3])()
        else:
            compilation._compile_signature(sys.argv[1], sys.argv[2],
                                           pickle.loads(sys.stdin.buffer.read()))
