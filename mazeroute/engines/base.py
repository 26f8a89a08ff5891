"""What every wavefront engine shares: the problem object, its result, the sentinels.

Following Gunrock's split, a :class:`Problem` holds one graph's arrays on the engine's
device (host memory for CPU engines, GPU memory for GPU engines), keeps them alive
across the nets of a layout, and resets only what a wavefront touched. An engine
subclass supplies three things: how to run one wavefront, how to read levels back,
and how to flip cells between blocked and free.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass

import numpy as np

from ..graph import CSRGraph, GridGraph

#: Level of a vertex that the wavefront did not reach (and of every blocked vertex).
UNREACHED = np.uint32(0xFFFFFFFF)
#: Internal level of a blocked vertex. Engines never label it, because every strategy's
#: "unvisited" test is ``level == UNREACHED``; callers never see it.
BLOCKED = np.uint32(0xFFFFFFFE)

Graph = GridGraph | CSRGraph

#: Device arrays of at least this many bytes come back through page-locked host memory
#: (CuPy's pinned pool, reused from call to call): a copy into pageable memory runs at a
#: fraction of the bus's speed and first touches every page of a fresh array, while for
#: small arrays the pool's bookkeeping costs more than it saves.
PINNED_BYTES = 1 << 20


def host(a) -> np.ndarray:
    """``a`` as a NumPy array: a device array copied back, a host one as it is.

    Examples
    --------
    >>> host([1, 2]).tolist()
    [1, 2]
    """
    if not hasattr(a, "get"):
        return np.asarray(a)
    if a.nbytes < PINNED_BYTES or not a.flags.c_contiguous:
        return a.get()
    import cupyx

    out = cupyx.empty_pinned(a.shape, a.dtype)
    a.get(out=out)               # no stream given: the copy is done when this returns
    return out


#: Shared memory a block gets without opting in, its static variables included.
DEFAULT_SHARED = 48 << 10


def allow_shared(kernel, smem: int, static: int) -> None:
    """Let a device ``kernel`` launch with ``smem`` bytes of dynamic shared memory (beside
    its ``static`` bytes) where that is beyond :data:`DEFAULT_SHARED`.

    The allowance is the kernel function's, read back from the driver: every search
    object that holds the same compiled kernel shares it, so one that needs less must
    never lower it under another that needs more (keeping it per object, or per Python
    object id, did: a launch of the bigger one then fails with an invalid value).
    """
    if smem + static > DEFAULT_SHARED and smem > kernel.max_dynamic_shared_size_bytes:
        kernel.max_dynamic_shared_size_bytes = smem


@dataclass(frozen=True)
class Wavefront:
    """The outcome of one BFS. Its levels stay readable until the problem's next run.

    Attributes
    ----------
    target : int or None
        The reached target with the lowest level (the first listed among equals), or
        None when no target was given or none was reached.
    target_level : int or None
        Level of ``target``.
    num_levels : int
        Number of levels labelled, level 0 (the sources) included.
    """

    problem: Problem
    target: int | None
    target_level: int | None
    num_levels: int

    def levels(self, window: tuple[int, int, int, int] | None = None) -> np.ndarray:
        """Levels as a host ``uint32`` array, ``UNREACHED`` where not reached or blocked.

        For a grid the result has the grid's shape; ``window = (y0, y1, x0, x1)``
        (half-open) reads only that part, which is what keeps backtracing on a big
        GPU grid cheap. For a plain graph the result is one level per vertex.
        """
        return self.problem._levels_out(window)

    def host_levels(self) -> np.ndarray | None:
        """The whole grid's levels as they are on the host, without a copy (a read-only
        view, valid until the problem's next run), or None where the engine keeps them
        on the device (then read :meth:`levels`, of a window).

        Blocked cells may read ``BLOCKED`` and cells past the target's level anything
        unreached or deeper: what a backtrace reads (cells one level below the one it
        stands on) is exact. A router's backtrace of a long wire reads a few cells of a
        window that may be most of the grid, whose copy cost more than the search
        (benchmarks/RESULTS.md, "Figures behind code comments").

        Examples
        --------
        >>> import numpy as np
        >>> from mazeroute.engines import make_problem
        >>> from mazeroute.graph import GridGraph
        >>> problem = make_problem(GridGraph(np.ones((2, 3), bool)), "cpu", "grid")
        >>> problem.wavefront([0]).host_levels().tolist()
        [[0, 1, 2], [1, 2, 3]]
        """
        out = self.problem._host_levels()
        if out is not None:
            out = out.view()
            out.flags.writeable = False
        return out


class Problem(ABC):
    """One graph's state on an engine: levels, blockages, reusable buffers.

    Subclasses implement :meth:`_clear`, :meth:`_run`, :meth:`_read_levels` and
    :meth:`_write_levels`.
    The level array starts as :meth:`initial_levels` (``BLOCKED`` on blocked grid
    cells, ``UNREACHED`` elsewhere).
    """

    #: Set by the registry: ``(backend, strategy)`` of the engine that made this problem.
    name: tuple[str, str] = ("?", "?")

    def __init__(self, graph: Graph):
        self.graph = graph
        self.num_vertices = graph.num_vertices
        self.shape = (graph.height, graph.width) if isinstance(graph, GridGraph) else None

    # -- what engines implement ------------------------------------------------------
    @abstractmethod
    def _clear(self) -> None:
        """Return every vertex labelled by the last run to ``UNREACHED`` (blocked stay)."""

    @abstractmethod
    def _run(self, sources: np.ndarray, targets: np.ndarray | None) -> int:
        """Label levels from ``sources`` (all level 0); return the number of levels.

        With ``targets``, stop after the first level at which any target is labelled
        (every vertex of that level and below must be labelled exactly; deeper ones may
        be left unreached). :meth:`_clear` has already run.
        """

    @abstractmethod
    def _read_levels(self, window: tuple[int, int, int, int] | None) -> np.ndarray:
        """Raw levels on the host (may include ``BLOCKED``), for the whole graph or a window."""

    @abstractmethod
    def _write_levels(self, vertices: np.ndarray, value: np.uint32) -> None:
        """Set the resting level (``BLOCKED`` or ``UNREACHED``) of some vertices.

        :meth:`_clear` has already run, so no label of an earlier wavefront remains.
        """

    def _levels_out(self, window: tuple[int, int, int, int] | None) -> np.ndarray:
        """:meth:`Wavefront.levels`: a fresh host array, ``BLOCKED`` shown as
        ``UNREACHED`` (a device engine may override it to do that before the copy)."""
        out = np.array(self._read_levels(window), dtype=np.uint32, copy=True)
        out[out == BLOCKED] = UNREACHED
        return out

    def _host_levels(self) -> np.ndarray | None:
        """:meth:`Wavefront.host_levels` (None: the levels are on the device)."""
        return None

    # -- shared behaviour -----------------------------------------------------------
    def initial_levels(self) -> np.ndarray:
        level = np.full(self.num_vertices, UNREACHED, dtype=np.uint32)
        if self.shape is not None:
            level[~self.graph.free.ravel()] = BLOCKED
        return level

    def set_blocked(self, vertices, blocked: bool = True) -> None:
        """Block (or free again) vertices for later wavefronts, e.g. a committed wire.

        Only vertices that are free in the underlying graph may be freed again.
        """
        v = self._check_vertices(vertices, "vertices")
        if not blocked and self.shape is not None and not self.graph.free.ravel()[v].all():
            raise ValueError("cannot free a cell that the layout itself blocks")
        self._clear()
        self._write_levels(v, BLOCKED if blocked else UNREACHED)

    def free_view(self) -> np.ndarray:
        """``(H, W)`` bool of a grid problem: True where a wavefront may enter now (the
        layout's free cells less every blocked vertex). Read only: an engine may hand
        out its own host mirror."""
        return (np.asarray(self._read_levels(None)).reshape(self.shape) != BLOCKED)

    def wavefront(self, sources, targets=None) -> Wavefront:
        """Run one BFS from ``sources`` (vertex ids), optionally stopping at ``targets``."""
        src = np.unique(self._check_vertices(sources, "sources"))
        if src.size == 0:
            raise ValueError("a wavefront needs at least one source")
        if (self._read_vertices(src) == BLOCKED).any():
            raise ValueError("a source vertex is blocked")
        tgt = None if targets is None else self._check_vertices(targets, "targets")
        self._clear()
        num_levels = self._run(src, tgt if tgt is not None and tgt.size else None)
        target = target_level = None
        if tgt is not None and tgt.size:
            tl = self._read_vertices(tgt)
            reached = tl < BLOCKED
            if reached.any():
                i = int(np.flatnonzero(tl == tl[reached].min())[0])
                target, target_level = int(tgt[i]), int(tl[i])
        return Wavefront(self, target, target_level, int(num_levels))

    def _read_vertices(self, vertices: np.ndarray) -> np.ndarray:
        """Levels of a few vertices (engines on a device may override with a gather)."""
        return np.asarray(self._read_levels(None)).ravel()[vertices]

    def _check_vertices(self, vertices, what: str) -> np.ndarray:
        v = np.atleast_1d(np.asarray(vertices, dtype=np.int64)).ravel()
        if v.size and (v.min() < 0 or v.max() >= self.num_vertices):
            raise ValueError(f"{what} hold a vertex outside 0..{self.num_vertices - 1}")
        return v.astype(np.int32)


def distinct(xp, a):
    """The sorted distinct values of a 1-D integer array, on NumPy or CuPy (``xp``), by
    sorting: for the large arrays of many distinct values that global routing counts,
    faster than NumPy's hashing ``unique``.

    >>> distinct(np, np.array([3, 1, 3, 2])).tolist()
    [1, 2, 3]
    """
    a = xp.sort(a)
    keep = xp.ones(len(a), bool)
    keep[1:] = a[1:] != a[:-1]
    return a[keep]


def piece_places(xp, count):
    """For pieces of ``count`` items each (a 1-D integer array), every item's piece and
    its place in it, piece after piece, on NumPy or CuPy (``xp``).

    >>> [a.tolist() for a in piece_places(np, np.array([2, 0, 3]))]
    [[0, 0, 2, 2, 2], [0, 1, 0, 1, 2]]
    """
    piece = xp.repeat(xp.arange(len(count)), count)
    place = xp.arange(int(count.sum()), dtype=np.int64) - xp.repeat(xp.cumsum(count) - count,
                                                                     count)
    return piece, place


def block_cells(boxes: np.ndarray, rows: np.ndarray, cols: np.ndarray):
    """Every cell of a ``rows`` by ``cols`` block from each box's corner, the box's columns
    1 and 2 (``x``, ``y``): each cell's box, ``y`` and ``x``, box after box, row by row.

    >>> box, y, x = block_cells(np.array([[0, 5, 7]]), np.array([2]), np.array([2]))
    >>> box.tolist(), y.tolist(), x.tolist()
    ([0, 0, 0, 0], [7, 7, 8, 8], [5, 6, 5, 6])
    """
    box, k = piece_places(np, rows * cols)
    return box, boxes[box, 2] + k // cols[box], boxes[box, 1] + k % cols[box]
