"""The wavefront engines: the registry's classes loaded, and the public BFS entry points.

Every engine is a ``(backend, strategy)`` pair mapped to the :class:`Problem` subclass
that runs it in one registry (:mod:`mazeroute.plan.registry`, re-exported here as
:data:`ENGINES`), so a new strategy is one kernel file plus one entry there. Classes are
named by import path so that CPU-only machines never import CuPy. Which engine runs is
the planner's choice (:func:`mazeroute.plan.make_plan`); engines search what they are
given.

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

import importlib

import numpy as np

from ..errors import EngineUnavailable, InputError
from ..graph import CSRGraph, GridGraph
from ..plan import Plan, make_plan
from ..plan.device import (
    MIN_COMPUTE_CAPABILITY,
    device_errors,
    first_line,
    gpu_available,
    gpu_status,
)
from ..plan.registry import DEFAULT_STRATEGY, ENGINES, NET_SEARCHES, EngineSpec, strategies
from .base import BLOCKED, UNREACHED, Graph, Problem, Wavefront

__all__ = ["ENGINES", "EngineSpec", "Problem", "Wavefront", "UNREACHED", "BLOCKED",
           "bfs", "make_problem", "resolve", "gpu_available", "gpu_status", "device_errors",
           "first_line", "strategies", "NET_SEARCHES", "make_net_search",
           "DEFAULT_STRATEGY", "MIN_COMPUTE_CAPABILITY"]


def make_net_search(backend: str, free: np.ndarray, owner: np.ndarray, via_cost: int = 0):
    """The weighted net search of ``backend`` for one layout; see :mod:`.weighted` (a
    hand-off of some calls to the CPU engine is the router's:
    :class:`mazeroute.router.dispatch.SearchDispatch`).

    ``backend="auto"`` takes the planner's choice for negotiation
    (:attr:`mazeroute.plan.Plan.negotiation`).
    """
    if backend == "auto":
        backend = make_plan(free, "auto", mode="negotiate").negotiation
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
    return search


def resolve(backend: str = "auto", strategy: str | None = None,
            graph: Graph | None = None) -> tuple[EngineSpec, str | None]:
    """The wavefront engine the planner picks for a request, with its one-line notice
    (or None); see :func:`mazeroute.plan.make_plan`.

    Raises
    ------
    InputError
        For unknown names.
    EngineUnavailable
        For ``backend="gpu"`` on a machine without a usable GPU.

    Examples
    --------
    >>> spec, notice = resolve("cpu")
    >>> spec.backend, spec.strategy, notice
    ('cpu', 'grid', None)
    """
    plan = make_plan(graph, backend, strategy)
    return plan.spec, plan.notice


def make_problem(graph: Graph, backend: str = "auto", strategy: str | None = None,
                 plan: Plan | None = None) -> Problem:
    """Build the problem object of the planned engine for ``graph`` (``plan``: one made
    for it already; else the planner is asked with ``backend`` and ``strategy``).

    Parameters
    ----------
    graph : GridGraph or CSRGraph
        The graph the engine searches.
    backend : {"auto", "cpu", "gpu"}
        Where the wavefront runs; ``auto`` picks the GPU when one is usable.
    strategy : str, optional
        A BFS strategy by name (see ``mazeroute engines``); default the backend's fastest.
    plan : Plan, optional
        A plan made for ``graph`` already; ``backend`` and ``strategy`` are then unused.

    Returns
    -------
    Problem
        The engine's problem object; its ``name`` is ``(backend, strategy)``.

    Raises
    ------
    InputError
        For an unknown backend or strategy, or one that does not fit the graph.
    EngineUnavailable
        For a backend this machine cannot run (``gpu`` without CuPy or a device).

    Examples
    --------
    >>> import numpy as np
    >>> make_problem(GridGraph(np.ones((4, 4), bool)), "cpu").name
    ('cpu', 'grid')
    """
    plan = plan or make_plan(graph, backend, strategy)
    spec = plan.spec
    options = {}
    if plan.grid_mode is not None:
        options["planned"] = (plan.grid_mode, plan.host_targets)
    problem = spec.load()(graph, **options)
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

    backend : {"auto", "cpu", "gpu"}
        Where the wavefront runs; ``auto`` picks the GPU when one is usable.
    strategy : str, optional
        A BFS strategy by name (see ``mazeroute engines``); default the backend's fastest.

    Returns
    -------
    levels : uint32 array, grid-shaped for grids, ``UNREACHED`` where not reached.

    Raises
    ------
    InputError
        For a grid root that is not an ``(x, y)`` cell or a list of cells, or an unknown
        backend or strategy.
    EngineUnavailable
        For a backend this machine cannot run.

    Examples
    --------
    >>> import numpy as np
    >>> bfs(np.ones((1, 4), bool), (0, 0), backend="cpu").tolist()
    [[0, 1, 2, 3]]
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
