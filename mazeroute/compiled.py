"""The compiled CPU engines: where Numba keeps them, the one-line notice of a first
compile, and ``mazeroute warmup``, which compiles them ahead of use.

Every ``numba.njit`` function of the package says ``cache=True``: the first process
that calls one compiles it and writes the machine code to Numba's cache, and later
processes load it from there. That cache lives in ``NUMBA_CACHE_DIR`` when it is set,
else beside the sources (``__pycache__``), else, where the package is installed
read-only, in the user's cache folder (``~/.cache/numba``). Where none of these can be
written Numba refuses to define the functions at all, so :func:`ensure_cache_dir` points
it at a private folder of the temporary directory first.

Numba reads, changes and writes a function's cache index without a lock, so two
processes that compile one function at once (a batch's workers on a fresh install) can
give two signatures one data file, and a process that loads it later runs the wrong
machine code. :func:`lock_numba_cache` makes each save of the cache hold an exclusive
lock on a file beside the index, and each load a shared one.

A compile happens only on a cache miss, and Numba announces each one by its
``numba:compile`` event (a load from the cache raises none), so the notice of
:func:`notice_first_compile` is printed exactly when a command is about to compile, and
never when everything it needs is cached.

Examples
--------
>>> import argparse
>>> sub = argparse.ArgumentParser(prog="mazeroute").add_subparsers()
>>> add_parser(sub)
>>> sub.choices["warmup"].parse_args([]).func.__name__
'cmd_warmup'
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.abc
import importlib.machinery
import os
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

#: The line printed on stderr before a command's first compile.
NOTICE = "mazeroute: compiling the CPU engines for first use (once; later runs reuse the cache)"

_PACKAGE = Path(__file__).resolve().parent


def _source_dirs() -> list[Path]:
    """The package's folders of modules (Numba caches beside each source)."""
    with contextlib.suppress(OSError):
        return [_PACKAGE, *(p for p in _PACKAGE.iterdir() if (p / "__init__.py").is_file())]
    return [_PACKAGE]


def _writable(folder: Path) -> bool:
    """Whether a file can be created in ``folder`` (made if missing), as Numba tests it:
    by trying, since permission bits say nothing of a read-only mount or of root."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError:
        return False
    return True


def _user_cache_dir() -> Path:
    """Numba's user-wide cache folder on Linux and other XDG systems."""
    root = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(root) / "numba"


def ensure_cache_dir(source_dirs: Sequence[Path] | None = None,
                     user_dir: Path | None = None) -> Path | None:
    """Give Numba a writable cache folder when it would find none.

    Parameters
    ----------
    source_dirs : the folders whose ``__pycache__`` Numba tries first (default: the
        package's)
    user_dir : the user-wide folder it tries next (default: ``~/.cache/numba``)

    Returns
    -------
    The folder set as ``NUMBA_CACHE_DIR`` (per user, under the temporary directory), or
    None when Numba already has one (``NUMBA_CACHE_DIR`` set, or the sources' or the
    user's folder writable) or none can be made.
    """
    if os.environ.get("NUMBA_CACHE_DIR"):
        return None
    dirs = _source_dirs() if source_dirs is None else source_dirs
    if all(_writable(d / "__pycache__") for d in dirs if d.exists()):
        return None
    if _writable(user_dir if user_dir is not None else _user_cache_dir()):
        return None
    uid = os.getuid() if hasattr(os, "getuid") else 0
    fallback = Path(tempfile.gettempdir()) / f"mazeroute-numba-cache-{uid}"
    try:
        fallback.mkdir(mode=0o700, exist_ok=True)
        st = fallback.stat()
    except OSError:
        return None
    # the cache holds pickles that Numba loads: never one that another user could write
    if (hasattr(os, "getuid") and st.st_uid != uid) or st.st_mode & 0o022 \
            or not _writable(fallback):
        return None
    os.environ["NUMBA_CACHE_DIR"] = str(fallback)
    config = getattr(sys.modules.get("numba"), "config", None)
    if config is not None:          # already imported: it read the environment before
        config.CACHE_DIR = str(fallback)
    return fallback


@contextlib.contextmanager
def _locked(index_path: str, exclusive: bool) -> Iterator[None]:
    """A lock on the file beside a cache index ``index_path`` for the block (none where
    the file cannot be opened, as in a read-only cache, which no process writes, or
    where its file system has no locks)."""
    import fcntl

    try:
        fd = os.open(index_path + ".lock", os.O_RDWR | os.O_CREAT, 0o644)
    except OSError:
        yield
        return
    try:
        # a file system without locks (some network mounts) refuses: then as Numba alone
        with contextlib.suppress(OSError):
            fcntl.flock(fd, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
        yield
    finally:
        os.close(fd)            # closing lets the lock go


def _lock_cache_files(caching) -> bool:
    """Wrap the save and load of Numba's cache files (``numba.core.caching``) in
    :func:`_locked`; False where this Numba keeps them otherwise."""
    files = getattr(caching, "IndexDataCacheFile", None)
    if files is None or not all(hasattr(files, n) for n in ("save", "load")):
        return False
    if getattr(files, "_mazeroute_locked", False):
        return True
    save, load = files.save, files.load

    def locked_save(self, key, data):
        with _locked(self._index_path, exclusive=True):
            return save(self, key, data)

    def locked_load(self, key):
        with _locked(self._index_path, exclusive=False):
            return load(self, key)

    files.save, files.load = locked_save, locked_load
    files._mazeroute_locked = True
    return True


class _LockOnImport(importlib.abc.MetaPathFinder):
    """Finds ``numba.core.caching`` once, as the path finder would, and locks its cache
    files as soon as the module has run: ``import mazeroute`` does not import Numba."""

    NAME = "numba.core.caching"

    def find_spec(self, name, path, target=None):
        if name != self.NAME:
            return None
        with contextlib.suppress(ValueError):
            sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        loader = getattr(spec, "loader", None)
        if loader is None or not hasattr(loader, "exec_module"):
            return spec
        run = loader.exec_module

        def exec_module(module) -> None:
            run(module)
            _lock_cache_files(module)

        loader.exec_module = exec_module
        return spec


def lock_numba_cache() -> bool:
    """Make Numba's cache safe for processes that compile at once (module notes): now
    where Numba is loaded, else as soon as it is.

    Returns
    -------
    Whether the cache's files are (or will be) locked: False where locks are not to be
    had (no ``fcntl``) or this Numba keeps its cache otherwise.

    Examples
    --------
    >>> lock_numba_cache()
    True
    """
    try:
        import fcntl  # noqa: F401
    except ImportError:
        return False
    caching = sys.modules.get(_LockOnImport.NAME)
    if caching is not None:
        return _lock_cache_files(caching)
    if not any(isinstance(f, _LockOnImport) for f in sys.meta_path):
        sys.meta_path.insert(0, _LockOnImport())
    return True


#: Seconds of wall time during which some thread of this process compiled: the total of
#: the spans ended, how many compiles run now, and when the current span began.
_COMPILING = {"listening": False, "seconds": 0.0, "active": 0, "since": 0.0}
_COMPILING_LOCK = threading.Lock()


def _compile_started(event) -> None:
    with _COMPILING_LOCK:
        if _COMPILING["active"] == 0:
            _COMPILING["since"] = time.perf_counter()
        _COMPILING["active"] += 1


def _compile_ended(event) -> None:
    with _COMPILING_LOCK:
        _COMPILING["active"] = max(0, _COMPILING["active"] - 1)
        if _COMPILING["active"] == 0:
            _COMPILING["seconds"] += time.perf_counter() - _COMPILING["since"]


def compile_seconds() -> float:
    """Wall seconds during which this process compiled with Numba, since the first call
    (compiles in several threads at once, or one inside another, count once): what a
    first run on a fresh install spends before its engines run.

    Returns
    -------
    The seconds, never falling.

    Examples
    --------
    >>> a = compile_seconds(); compile_seconds() >= a
    True
    """
    with _COMPILING_LOCK:
        if not _COMPILING["listening"]:
            from numba.core import event

            class Span(event.Listener):
                def on_start(self, ev):
                    _compile_started(ev)

                def on_end(self, ev):
                    _compile_ended(ev)

            event.register("numba:compile", Span())
            _COMPILING["listening"] = True
        running = time.perf_counter() - _COMPILING["since"] if _COMPILING["active"] else 0.0
        return _COMPILING["seconds"] + running


def compile_excluded(clock: Callable[[], float]) -> Callable[[], float]:
    """``clock`` less the seconds compiled from now on (:func:`compile_seconds`): a
    clock that stands still while the process compiles.

    Parameters
    ----------
    clock : seconds, such as :func:`time.perf_counter`

    Returns
    -------
    The clock that excludes compiles.

    Examples
    --------
    >>> import time
    >>> now = compile_excluded(time.perf_counter)
    >>> a = now(); now() >= a
    True
    """
    start = compile_seconds()
    return lambda: clock() - (compile_seconds() - start)


#: Whether the notice is wanted, and whether it was printed (once a process).
_NOTICE = {"registered": False, "enabled": False, "printed": False}
_NOTICE_LOCK = threading.Lock()


def _on_compile(event) -> None:
    func = getattr(event.data.get("dispatcher"), "py_func", None)
    if not _NOTICE["enabled"] or not getattr(func, "__module__", "").startswith("mazeroute"):
        return
    with _NOTICE_LOCK:
        if _NOTICE["printed"]:
            return
        _NOTICE["printed"] = True
    print(NOTICE, file=sys.stderr, flush=True)


def notice_first_compile(enabled: bool = True) -> None:
    """Print :data:`NOTICE` on stderr just before this process first compiles one of the
    package's functions (a cache miss); nothing when all it runs is cached.

    Parameters
    ----------
    enabled : False silences the notice (``--quiet``) until called again with True
    """
    if not _NOTICE["registered"]:
        from numba.core import event

        class Notice(event.Listener):
            def on_start(self, ev):
                _on_compile(ev)

            def on_end(self, ev):
                pass

        event.register("numba:compile", Notice())
        _NOTICE["registered"] = True
    _NOTICE["enabled"] = enabled


def compiled_functions() -> list:
    """The package's Numba dispatchers among the modules loaded so far."""
    from numba.core.dispatcher import Dispatcher

    found: dict[int, object] = {}
    for name, module in list(sys.modules.items()):
        if name == "mazeroute" or name.startswith("mazeroute."):
            for value in list(vars(module).values()):
                if isinstance(value, Dispatcher):
                    found.setdefault(id(value), value)
    return list(found.values())


@contextlib.contextmanager
def _parallel_everywhere() -> Iterator[None]:
    """The weighted engine's parallel variants on small inputs too: on a machine of many
    cores large layouts run them, and they are compiled separately."""
    from .engines import weighted
    from .router import pricing

    saved = weighted.PARALLEL_REQUESTS, pricing.PARALLEL_PRICE_CELLS
    weighted.PARALLEL_REQUESTS, pricing.PARALLEL_PRICE_CELLS = 1, 1
    try:
        yield
    finally:
        weighted.PARALLEL_REQUESTS, pricing.PARALLEL_PRICE_CELLS = saved


def _commands(folder: Path) -> list[list[str]]:
    """The commands warmup runs: small generated layouts, every CPU path of ``route``
    (both modes, two-pin and multi-pin nets, congested), ``check`` and ``generate``."""
    rects, maze = str(folder / "rects.yaml"), str(folder / "maze.yaml")
    quiet = ["-q", "--no-png", "--backend", "cpu"]
    return [
        ["generate", "rects", "-W", "24", "-H", "24", "--nets", "16", "--pins", "3",
         "--seed", "1", "-o", rects, "-q"],
        ["generate", "maze", "-W", "15", "-H", "15", "--nets", "6", "--seed", "1",
         "-o", maze, "-q"],
        ["route", rects, "-o", str(folder / "n"), *quiet],
        ["route", maze, "-o", str(folder / "m"), *quiet],
        ["route", rects, "-o", str(folder / "s"), "--mode", "sequential", *quiet],
        ["check", rects, "--routes", str(folder / "s" / "routes.json"), "--sequential"],
    ]


def _groute_warmup(gpu: bool) -> None:
    """Global routing's Steiner trees and refinement, which no layout route uses, and
    (``gpu``) a small congested global route on the GPU: its pattern pass, maze rounds
    and pricing run on array kernels that CuPy compiles at their first use."""
    import numpy as np

    from .router.groute import GRouteOptions, GRouteProblem, global_route
    from .router.groute_refine import maze_trees
    from .router.steiner import steiner_trees

    steiner_trees(np.array([[0, 0], [2, 1], [1, 3]]), np.array([0, 3]))
    maze_trees([np.array([[0, 0, 0], [2, 1, 0], [1, 2, 0]])], np.ones((2, 3, 3), bool),
               ("horizontal", "vertical"), 2)
    if not gpu:
        return
    # as a design's problem: pins on a layer below the lowest routing layer, each edge's
    # capacity given, too little room for every net, so that nets are rerouted
    layers, side = 4, 12
    rng = np.random.default_rng(1)
    free = np.ones((layers, side, side), bool)
    free[0] = False
    cap = np.full((layers, side, side), 2, np.int64)
    edge_cap = (np.full((layers, side, side - 1), 2, np.int64),
                np.full((layers, side - 1, side), 2, np.int64))
    pins = {f"n{k}": list(dict.fromkeys((int(x), int(y), 0) for x, y in
                                        rng.integers(0, side, (2 + k % 3, 2))))
            for k in range(60)}
    problem = GRouteProblem(("horizontal", "vertical") * 2, free, cap, pins, 1, edge_cap)
    global_route(problem, GRouteOptions(max_iterations=6), backend="gpu")


def layers_warmup(gpu: bool) -> None:
    """Multi-layer routing in both modes, and (``gpu``) the host code of the GPU's
    searches and the device's array kernels of their two ways of sweeping (a small box
    a block, a large one a launch a sweep), which no 2-D layout's route uses."""
    import numpy as np

    from .generate3d import random_layout3d
    from .router.layered import route_layered

    lay = random_layout3d(12, 12, 2, nets=6, span=6, seed=1,
                          directions=["horizontal", "vertical"])
    for mode in ("negotiate", "sequential"):
        for backend in ("cpu", "gpu") if gpu else ("cpu",):
            route_layered(lay, mode, backend=backend)
    if gpu:
        from .engines import gpu_grid3d

        side = int((gpu_grid3d.CudaKernels(owned=False).box_cells / 2) ** 0.5) + 2
        gpu_grid3d.bfs3d(np.ones((2, side, side), bool), [(0, 0, 0)],
                         directions=["horizontal", "vertical"], targets=[(side - 1, 0, 1)])


def cmd_warmup(args: argparse.Namespace) -> int:
    """``mazeroute warmup``: run :func:`_commands` in a temporary folder, then say how
    many functions were compiled and how many were already cached."""
    from .cli import build_parser
    from .engines import gpu_available
    from .limits import many_cores

    with (tempfile.TemporaryDirectory(prefix="mazeroute-warmup-") as tmp,
          open(os.devnull, "w") as null, contextlib.redirect_stdout(null)):
        runs = [(argv, contextlib.nullcontext()) for argv in _commands(Path(tmp))]
        if many_cores():
            runs.append((runs[2][0], _parallel_everywhere()))
        if gpu_available():         # the GPU engines' host code is compiled too
            runs.append(([*runs[2][0][:-2], "--backend", "auto"], contextlib.nullcontext()))
        for argv, scope in runs:
            sub = build_parser().parse_args(argv)
            with scope:
                sub.func(sub)       # the status of a small layout's route is no matter
        _groute_warmup(gpu_available())
        layers_warmup(gpu_available())
    funcs = compiled_functions()
    fresh = sum(len(f.stats.cache_misses) for f in funcs)
    cached = sum(len(f.stats.cache_hits) for f in funcs)
    if not args.quiet:
        print(f"compiled functions ready: {fresh} compiled now, {cached} loaded from the "
              "cache")
    return 0


def add_parser(sub) -> None:
    """Add ``warmup`` to the command line's subcommands ``sub``."""
    w = sub.add_parser(
        "warmup", help="compile the CPU engines now, for install scripts and CI images",
        description="Compile every CPU engine the commands use on this machine and keep "
        "it in Numba's cache, so that later commands start at once instead of compiling "
        "on first use (which a one-line notice announces). The cache is NUMBA_CACHE_DIR "
        "when set, else __pycache__ beside the package's sources, else ~/.cache/numba "
        "(a read-only install); a later run reuses it while the package, Numba and the "
        "Python version stay the same. Routes a few small generated layouts in a "
        "temporary folder and writes nothing else; running it again is quick.")
    w.add_argument("-q", "--quiet", action="store_true", help="print nothing on success")
    w.set_defaults(func=cmd_warmup)


__all__ = ["NOTICE", "add_parser", "cmd_warmup", "compile_excluded", "compile_seconds",
           "compiled_functions", "ensure_cache_dir",
           "lock_numba_cache", "notice_first_compile"]
