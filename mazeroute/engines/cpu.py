"""The CPU wavefront engines: one sequential queue BFS, compiled with Numba.

A level-by-level NumPy loop costs tens of microseconds per level, which a maze with
100,000 levels turns into seconds; a compiled FIFO queue costs a few nanoseconds per
edge whatever the level count, which keeps it level with SciPy's
``breadth_first_order``. The queue doubles as the list of vertices touched, so the
next wavefront resets only those instead of the whole grid.
"""

from __future__ import annotations

import numba
import numpy as np

from ..graph import CSRGraph, GridGraph
from .base import UNREACHED, Problem

_UNREACHED = np.uint32(UNREACHED)
_NO_STOP = np.uint32(0xFFFFFFFF)


@numba.njit(cache=True, nogil=True)
def _reset(level, queue, count):
    for i in range(count):
        level[queue[i]] = _UNREACHED


@numba.njit(cache=True, nogil=True)
def _seed(level, queue, sources, is_target):
    """Put the sources on level 0; return (queue length, stop level)."""
    stop = _NO_STOP
    for i in range(sources.size):
        s = sources[i]
        level[s] = 0
        queue[i] = s
        if is_target[s]:
            stop = np.uint32(0)
    return sources.size, stop


@numba.njit(cache=True, nogil=True)
def _bfs_csr(srcPtrs, dst, level, queue, sources, is_target):
    tail, stop = _seed(level, queue, sources, is_target)
    head = 0
    while head < tail:
        vertex = queue[head]
        currLevel = level[vertex] + np.uint32(1)
        if currLevel > stop:   # the target's level is complete
            break
        head += 1
        for edge in range(srcPtrs[vertex], srcPtrs[vertex + 1]):
            neighbor = dst[edge]
            if level[neighbor] == _UNREACHED:
                level[neighbor] = currLevel
                queue[tail] = neighbor
                tail += 1
                if is_target[neighbor] and stop == _NO_STOP:
                    stop = currLevel
    return tail


@numba.njit(cache=True, nogil=True, inline="always")
def grid_neighbour(vertex, k, width, height):
    """Neighbour ``k`` (up, left, right, down) of ``vertex`` on the grid, or -1."""
    y, x = divmod(vertex, width)
    if k == 0:
        return vertex - width if y > 0 else -1
    if k == 1:
        return vertex - 1 if x > 0 else -1
    if k == 2:
        return vertex + 1 if x < width - 1 else -1
    return vertex + width if y < height - 1 else -1


@numba.njit(cache=True, nogil=True)
def _bfs_grid(width, height, level, queue, sources, is_target, free):
    """The queue BFS on the grid; blocked cells are those whose level is ``BLOCKED``, and
    where ``free`` holds a cell each (flat bool; empty: none), also those it marks not
    free."""
    masked = free.size > 0
    tail, stop = _seed(level, queue, sources, is_target)
    head = 0
    while head < tail:
        vertex = queue[head]
        currLevel = level[vertex] + np.uint32(1)
        if currLevel > stop:
            break
        head += 1
        for k in range(4):   # up, left, right, down
            neighbor = grid_neighbour(vertex, k, width, height)
            if neighbor >= 0 and (not masked or free[neighbor]) \
                    and level[neighbor] == _UNREACHED:
                level[neighbor] = currLevel
                queue[tail] = neighbor
                tail += 1
                if is_target[neighbor] and stop == _NO_STOP:
                    stop = currLevel
    return tail


_NO_MASK = np.zeros(0, np.bool_)


def bfs_on_mask(free: np.ndarray, width: int, height: int, level: np.ndarray,
                queue: np.ndarray, sources: np.ndarray, is_target: np.ndarray) -> int:
    """The grid BFS of :class:`GridQueueProblem` where ``free`` (flat bool), not the level
    array, says which cells are blocked: ``level`` is ``UNREACHED`` everywhere before, and
    after it only the ``queue[:returned]`` cells it labelled need a reset (``_reset``).
    A device engine runs it on its host mirror of the blockages, with no copy to sync."""
    return _bfs_grid(width, height, level, queue, sources, is_target, free)


class _QueueProblem(Problem):
    """Host arrays shared by both CPU engines: levels, the queue, the target marks."""

    def __init__(self, graph):
        super().__init__(graph)
        self.level = self.initial_levels()
        self.queue = np.empty(self.num_vertices, dtype=np.int32)
        self.is_target = np.zeros(self.num_vertices, dtype=np.bool_)
        self.touched = 0

    def _clear(self):
        _reset(self.level, self.queue, self.touched)
        self.touched = 0

    def _run(self, sources, targets):
        if targets is not None:
            self.is_target[targets] = True
        try:
            self.touched = self._search(sources)
        finally:
            if targets is not None:
                self.is_target[targets] = False
        return int(self.level[self.queue[self.touched - 1]]) + 1

    def _read_levels(self, window):
        if window is None:
            return self.level if self.shape is None else self.level.reshape(self.shape)
        y0, y1, x0, x1 = window
        return self.level.reshape(self.shape)[y0:y1, x0:x1]

    def _read_vertices(self, vertices):
        return self.level[vertices]

    def _host_levels(self):
        return self.level.reshape(self.shape) if self.shape is not None else None

    def _write_levels(self, vertices, value):
        self.level[vertices] = value


class CSRQueueProblem(_QueueProblem):
    """Sequential queue BFS over CSR: the CPU engine for any graph."""

    def __init__(self, graph: CSRGraph | GridGraph):
        super().__init__(graph)
        self.csr = graph.csr if isinstance(graph, GridGraph) else graph

    def _search(self, sources):
        return _bfs_csr(self.csr.srcPtrs, self.csr.dst, self.level, self.queue, sources,
                        self.is_target)


class GridQueueProblem(_QueueProblem):
    """Sequential queue BFS on the implicit grid: no CSR to build or walk."""

    def __init__(self, graph: GridGraph):
        if not isinstance(graph, GridGraph):
            raise TypeError("the grid engine needs a GridGraph")
        super().__init__(graph)

    def _search(self, sources):
        return _bfs_grid(self.graph.width, self.graph.height, self.level, self.queue,
                         sources, self.is_target, _NO_MASK)
