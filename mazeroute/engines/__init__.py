"""The one registry of wavefront engines, and the public BFS entry points.

Every engine is a ``(backend, strategy)`` pair mapped to the :class:`Problem` subclass
that runs it. The CLI, the tests and the benchmark all read :data:`ENGINES`, so a new
strategy is one kernel file plus one entry here. Classes are named by import path so
that CPU-only machines never import CuPy.

Examples
--------
>>> import numpy as np
>>> from mazeroute.graph import fig15_1_graph
>>> bfs(fig15_1_graph(), 2, backend="cpu").tolist()
[2, 3, 0, 4, 4, 1, 1, 1, 2]
>>> lv = bfs(np.ones((5, 5), bool), (2, 2), backend="cpu")
>>> [int((lv == k).sum()) for k in range(1, 4)]   # Fig. 15.5's diamond, clipped by the border
[4, 8, 8]
"""

from __future__ import annotations

import functools
import importlib
from dataclasses import dataclass

import numpy as np

from ..errors import EngineUnavailable, InputError
from ..graph import CSRGraph, GridGraph
from .base import BLOCKED, UNREACHED, Graph, Problem, Wavefront

__all__ = ["ENGINES", "EngineSpec", "Problem", "Wavefront", "UNREACHED", "BLOCKED",
           "bfs", "make_problem", "resolve", "gpu_available", "gpu_status", "device_errors",
           "first_line", "strategies", "NET_SEARCHES", "make_net_search"]


@dataclass(frozen=True)
class EngineSpec:
    """One registry entry.

    ``form`` says what graph the engine walks: ``"grid"`` engines need a
    :class:`GridGraph`; ``"csr"`` engines take any graph (a grid is converted).
    """

    backend: str
    strategy: str
    form: str
    cls: str
    summary: str
    figure: str = ""

    def load(self) -> type[Problem]:
        module, _, name = self.cls.partition(":")
        return getattr(importlib.import_module(module), name)


_SPECS = [
    EngineSpec("cpu", "grid", "grid", "mazeroute.engines.cpu:GridQueueProblem",
               "sequential queue BFS on the implicit 4-neighbour grid (compiled)", "Fig. 15.5"),
    EngineSpec("cpu", "csr", "csr", "mazeroute.engines.cpu:CSRQueueProblem",
               "sequential queue BFS over CSR (compiled); works on any graph", "Fig. 15.3A"),
    EngineSpec("gpu", "push", "csr", "mazeroute.engines.gpu:PushProblem",
               "vertex-centric push: one thread per vertex, one launch per level", "Fig. 15.6"),
    EngineSpec("gpu", "pull", "csr", "mazeroute.engines.gpu:PullProblem",
               "vertex-centric pull over CSC: unvisited vertices scan in-neighbours",
               "Fig. 15.8"),
    EngineSpec("gpu", "edge", "csr", "mazeroute.engines.gpu:EdgeProblem",
               "edge-centric over COO: one thread per edge", "Fig. 15.10"),
    EngineSpec("gpu", "frontier", "csr", "mazeroute.engines.gpu:FrontierProblem",
               "frontier queues: threads only for the previous frontier", "Fig. 15.12"),
    EngineSpec("gpu", "privatized", "csr", "mazeroute.engines.gpu:PrivatizedProblem",
               "frontier queues privatized in shared memory, one atomicAdd per block",
               "Fig. 15.14"),
    EngineSpec("gpu", "diropt", "csr", "mazeroute.engines.gpu:DirOptProblem",
               "direction-optimised: push while the frontier is small, pull when large",
               "15.3 end"),
    EngineSpec("gpu", "singleblock", "csr", "mazeroute.engines.gpu:SingleBlockProblem",
               "one block runs many small levels in shared memory, hands back on overflow",
               "Fig. 15.16"),
    EngineSpec("gpu", "rodinia", "csr", "mazeroute.engines.gpu:RodiniaProblem",
               "Rodinia two-kernel mask scheme over Node{start, count} lists",
               "ROCm tutorial"),
    EngineSpec("gpu", "grid", "grid", "mazeroute.engines.gpu_grid:GridRelaxProblem",
               "tiled bit-parallel relaxation on the implicit grid: one persistent kernel, "
               "device work queue of 64-column tiles, windowed early exit", "Fig. 15.5"),
]

#: ``(backend, strategy) -> EngineSpec`` for every engine mazeroute offers.
ENGINES: dict[tuple[str, str], EngineSpec] = {(s.backend, s.strategy): s for s in _SPECS}

#: What ``strategy=None`` means per backend and graph kind.
DEFAULT_STRATEGY = {("cpu", "grid"): "grid", ("cpu", "csr"): "csr",
                    ("gpu", "grid"): "grid", ("gpu", "csr"): "frontier"}


#: Weighted net-search engines (:class:`~mazeroute.engines.weighted.NetSearch`: "route
#: these nets on these costs", what negotiated routing runs), by backend.
NET_SEARCHES: dict[str, str] = {"cpu": "mazeroute.engines.weighted:CPUNetSearch",
                                "gpu": "mazeroute.engines.gpu_weighted:GPUNetSearch"}


def make_net_search(backend: str, free: np.ndarray, owner: np.ndarray, via_cost: int = 0,
                    adaptive: bool = False):
    """The weighted net search of ``backend`` (``auto``: the GPU's when it has one, a
    device is present and the grid is not small, :func:`.auto.negotiation_prefers_cpu`;
    else the CPU's) for one layout; see :mod:`.weighted` (``adaptive``: see
    :class:`~.weighted.NetSearch`)."""
    if backend == "auto":
        from .auto import negotiation_prefers_cpu
        # the device first (remembered): a machine without one never weighs the layout
        backend = "gpu" if ("gpu" in NET_SEARCHES and gpu_available()
                            and not negotiation_prefers_cpu(free)) else "cpu"
    if backend not in NET_SEARCHES:
        raise InputError(f"backend {backend!r} has no weighted search; choose from "
                         + ", ".join(NET_SEARCHES), field="backend")
    if backend == "gpu" and not gpu_available():
        raise EngineUnavailable(f"backend 'gpu' needs CuPy and a CUDA device: "
                                f"{gpu_status()[1] or 'none is usable'} (install "
                                "mazeroute[gpu] or use --backend cpu)")
    module, _, name = NET_SEARCHES[backend].partition(":")
    search = getattr(importlib.import_module(module), name)(free, owner, via_cost)
    search.backend = backend
    search.adaptive = adaptive
    return search


def strategies(backend: str | None = None) -> list[str]:
    """Strategy names offered by ``backend`` (all backends when None), registry order."""
    names = [s.strategy for s in ENGINES.values() if backend in (None, s.backend)]
    return list(dict.fromkeys(names))


#: Oldest GPU the kernels run on: they use ``__reduce_*_sync`` (sm_80) and DPX (sm_90,
#: emulated by NVRTC below that).
MIN_COMPUTE_CAPABILITY = (8, 0)


@functools.cache
def gpu_status() -> tuple[bool, str]:
    """Whether the GPU engines can run here, and if not, why (one line).

    >>> ok, why = gpu_status()
    >>> ok or why != ""
    True
    """
    try:
        import cupy
    except Exception:
        return False, "CuPy is not installed"
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as e:
        return False, f"no usable CUDA device ({first_line(e)})"
    if count < 1:
        return False, "no CUDA device found"
    try:
        cc = cupy.cuda.Device().compute_capability          # e.g. "90"
    except Exception as e:
        return False, f"the CUDA device cannot be queried ({first_line(e)})"
    major, minor = divmod(int(cc), 10)
    if (major, minor) < MIN_COMPUTE_CAPABILITY:
        need = ".".join(map(str, MIN_COMPUTE_CAPABILITY))
        return False, (f"the GPU has compute capability {major}.{minor}; mazeroute's kernels "
                       f"need {need} or newer")
    return True, ""


def gpu_available() -> bool:
    """True when CuPy imports and sees a CUDA device new enough for the kernels."""
    return gpu_status()[0]


def device_errors() -> tuple[type[BaseException], ...]:
    """The exception types of a failing GPU: out of memory, CUDA runtime and driver errors,
    kernel compilation. Empty without CuPy (``except ()`` catches nothing)."""
    try:
        import cupy
        from cupy.cuda import compiler, driver, memory, runtime
    except Exception:
        return ()
    kinds = [memory.OutOfMemoryError, runtime.CUDARuntimeError, driver.CUDADriverError,
             compiler.CompileException]
    cuda_error = getattr(getattr(cupy, "cuda", None), "CUDAError", None)
    if isinstance(cuda_error, type):
        kinds.append(cuda_error)
    return tuple(kinds)


def first_line(e: BaseException, limit: int = 160) -> str:
    """An exception as one short line (CUDA compile errors span pages)."""
    text = str(e).strip().splitlines()
    line = text[0] if text else type(e).__name__
    return line if len(line) <= limit else line[:limit - 1] + "…"


def resolve(backend: str = "auto", strategy: str | None = None,
            graph: Graph | None = None) -> tuple[EngineSpec, str | None]:
    """Pick the engine for a request; return it with a one-line notice (or None).

    ``backend="auto"`` means the GPU when CuPy and a device are present, else the CPU.
    Raises :class:`InputError` for unknown names and :class:`EngineUnavailable` for
    ``backend="gpu"`` on a machine without one.
    """
    kind = "csr" if isinstance(graph, CSRGraph) else "grid"
    backends = sorted({"cpu", "gpu"} | {s.backend for s in ENGINES.values()})
    if backend not in (*backends, "auto"):
        raise InputError(f"unknown backend {backend!r}; choose from auto, "
                         + ", ".join(backends), field="backend")
    if strategy is not None and strategy not in strategies():
        raise InputError(f"unknown strategy {strategy!r}; choose from "
                         + ", ".join(strategies()), field="strategy")
    notice = None
    if backend == "auto":
        has_gpu = "gpu" in backends and gpu_available()
        if strategy is not None:
            offering = [b for b in ("gpu", "cpu") if (b, strategy) in ENGINES]
            if "gpu" in offering and not has_gpu:
                offering.remove("gpu")
            if not offering:
                raise EngineUnavailable(
                    f"strategy {strategy!r} runs only on the GPU, and no CUDA device "
                    "with CuPy was found")
            backend = offering[0]
        else:
            backend = "gpu" if has_gpu else "cpu"
            if has_gpu and isinstance(graph, GridGraph):
                from .auto import prefers_cpu  # the one place auto weighs CPU vs GPU
                if prefers_cpu(graph.free):
                    backend = "cpu"
            if "gpu" in backends and not has_gpu:
                notice = f"{gpu_status()[1] or 'no usable CUDA device'}; using the CPU engine"
    elif backend == "gpu" and not gpu_available():
        why = gpu_status()[1] or "none is usable"
        raise EngineUnavailable(f"backend 'gpu' needs CuPy and a CUDA device: {why} (install "
                                "mazeroute[gpu] on a machine with a CUDA GPU, or use "
                                "--backend cpu)")
    strategy = strategy or DEFAULT_STRATEGY[(backend, kind)]
    spec = ENGINES.get((backend, strategy))
    if spec is None:
        raise InputError(f"strategy {strategy!r} has no {backend} engine; {backend} offers "
                         + ", ".join(strategies(backend)), field="strategy")
    if spec.form == "grid" and kind != "grid":
        raise InputError(f"strategy {strategy!r} works on grids only, not on a plain graph",
                         field="strategy")
    return spec, notice


def make_problem(graph: Graph, backend: str = "auto",
                 strategy: str | None = None) -> Problem:
    """Build the problem object of the chosen engine for ``graph``."""
    spec, _ = resolve(backend, strategy, graph)
    problem = spec.load()(graph)
    problem.name = (spec.backend, spec.strategy)
    return problem


def bfs(graph: Graph | np.ndarray, root, *, backend: str = "auto",
        strategy: str | None = None) -> np.ndarray:
    """BFS levels from ``root`` on a grid or a plain graph.

    Parameters
    ----------
    graph : GridGraph, CSRGraph, or (height, width) bool array of free cells
    root : for a grid, an ``(x, y)`` cell or a list of cells; for a plain graph, a
        vertex id or a list of ids. Several roots make a multi-source wavefront.

    Returns
    -------
    levels : uint32 array, grid-shaped for grids, ``UNREACHED`` where not reached.
    """
    if not isinstance(graph, (GridGraph, CSRGraph)):
        graph = GridGraph(graph)
    roots = np.asarray(root, dtype=np.int64)
    if isinstance(graph, GridGraph):
        if roots.ndim == 0 or roots.shape[-1] != 2:
            raise InputError("a grid root is an (x, y) cell or a list of cells", field="root")
        roots = graph.vertices(roots.reshape(-1, 2))
    problem = make_problem(graph, backend, strategy)
    return problem.wavefront(roots.ravel()).levels()
