"""Graph forms of a routing grid: the implicit grid and PMPP Fig. 15.3's CSR, CSC, COO.

A routing grid of ``height`` x ``width`` cells is a graph whose vertex ``y * width + x``
is the cell ``[x, y]`` and whose edges join free 4-neighbours in both directions.
Blocked cells stay in the numbering (so a level array reshapes to the grid) but have
no edges. Every conversion here is vectorised NumPy, with no Python loop over the cells,
as grids of millions of cells are converted.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from .errors import InputError

#: Neighbour order used everywhere a cell's neighbours are listed: up, left, right, down.
#: With row-major numbering this is increasing vertex id, as CSR expects.
NEIGHBOUR_STEPS = ((0, -1), (-1, 0), (1, 0), (0, 1))


@dataclass(frozen=True)
class COOGraph:
    """Edge list: edge ``i`` runs from ``src[i]`` to ``dst[i]`` (PMPP Fig. 15.3C)."""

    src: np.ndarray
    dst: np.ndarray
    num_vertices: int

    @property
    def num_edges(self) -> int:
        return int(self.dst.size)


@dataclass(frozen=True)
class CSCGraph:
    """In-edges of vertex ``v`` come from ``src[dstPtrs[v]:dstPtrs[v+1]]`` (Fig. 15.3B)."""

    dstPtrs: np.ndarray
    src: np.ndarray

    @property
    def num_vertices(self) -> int:
        return int(self.dstPtrs.size - 1)

    @property
    def num_edges(self) -> int:
        return int(self.src.size)


@dataclass(frozen=True)
class RodiniaGraph:
    """Rodinia's adjacency lists: ``Node{starting, no_of_edges}`` plus one edge array."""

    starting: np.ndarray
    no_of_edges: np.ndarray
    edges: np.ndarray

    @property
    def num_vertices(self) -> int:
        return int(self.starting.size)


class CSRGraph:
    """Out-edges of vertex ``v`` go to ``dst[srcPtrs[v]:srcPtrs[v+1]]`` (Fig. 15.3A).

    Parameters
    ----------
    srcPtrs, dst : array_like of int
        Row pointers (length ``num_vertices + 1``) and column indices.

    Raises
    ------
    InputError
        When the arrays are not 1-D, ``srcPtrs`` does not start at 0, decreases or does
        not end at ``len(dst)``, ``dst`` names a vertex outside the graph, or the graph is
        too large for 32-bit indices.

    Examples
    --------
    >>> g = fig15_1_graph()
    >>> g.num_vertices, g.num_edges
    (9, 15)
    >>> g.csc().dstPtrs.tolist()
    [0, 1, 2, 3, 4, 6, 8, 11, 12, 15]
    """

    def __init__(self, srcPtrs: np.ndarray, dst: np.ndarray):
        srcPtrs = np.asarray(srcPtrs)
        dst = np.asarray(dst)
        if srcPtrs.ndim != 1 or srcPtrs.size < 1 or dst.ndim != 1:
            raise InputError("srcPtrs and dst must be 1-D, srcPtrs non-empty", field="srcPtrs")
        n = srcPtrs.size - 1
        if srcPtrs[0] != 0 or srcPtrs[-1] != dst.size or np.any(np.diff(srcPtrs) < 0):
            raise InputError("srcPtrs must start at 0, never decrease and end at len(dst)",
                             field="srcPtrs")
        if dst.size and (dst.min() < 0 or dst.max() >= n):
            raise InputError(f"dst holds a vertex outside 0..{n - 1}", field="dst")
        if n >= 2**31 - 2 or dst.size >= 2**31:
            raise InputError("graph too large for 32-bit indices", field="srcPtrs")
        self.srcPtrs = np.ascontiguousarray(srcPtrs, dtype=np.int32)
        self.dst = np.ascontiguousarray(dst, dtype=np.int32)

    @property
    def num_vertices(self) -> int:
        return int(self.srcPtrs.size - 1)

    @property
    def num_edges(self) -> int:
        return int(self.dst.size)

    @cached_property
    def degree(self) -> np.ndarray:
        return np.diff(self.srcPtrs).astype(np.int32)

    def coo(self) -> COOGraph:
        src = np.repeat(np.arange(self.num_vertices, dtype=np.int32), self.degree)
        return COOGraph(src, self.dst, self.num_vertices)

    def csc(self) -> CSCGraph:
        # A stable sort by destination keeps each column's sources in increasing order.
        order = np.argsort(self.dst, kind="stable")
        src = self.coo().src[order]
        counts = np.bincount(self.dst, minlength=self.num_vertices)
        dstPtrs = np.zeros(self.num_vertices + 1, dtype=np.int32)
        np.cumsum(counts, out=dstPtrs[1:])
        return CSCGraph(dstPtrs, src)

    def rodinia(self) -> RodiniaGraph:
        return RodiniaGraph(self.srcPtrs[:-1].copy(), self.degree, self.dst)


class GridGraph:
    """A routing grid as a graph: free cells joined to free 4-neighbours.

    Parameters
    ----------
    free : (height, width) array_like of bool
        True where a wire may pass.

    Raises
    ------
    InputError
        When ``free`` is not a non-empty 2-D array, or has too many cells for 32-bit
        vertex ids.

    Examples
    --------
    >>> import numpy as np
    >>> g = GridGraph(np.ones((2, 3), bool))
    >>> g.vertex(2, 1), g.cell(5)
    (5, (2, 1))
    >>> g.csr.num_edges   # 7 grid edges, both directions
    14
    """

    def __init__(self, free: np.ndarray):
        free = np.asarray(free, dtype=bool)
        if free.ndim != 2 or free.shape[0] < 1 or free.shape[1] < 1:
            raise InputError("free mask must be a non-empty 2-D array", field="free")
        if free.size >= 2**31 - 2:
            raise InputError("grid too large for 32-bit vertex ids", field="free")
        self.free = np.ascontiguousarray(free)

    @property
    def height(self) -> int:
        return int(self.free.shape[0])

    @property
    def width(self) -> int:
        return int(self.free.shape[1])

    @property
    def shape(self) -> tuple[int, int]:
        return (self.height, self.width)

    @property
    def num_vertices(self) -> int:
        return int(self.free.size)

    def vertex(self, x: int, y: int) -> int:
        return int(y) * self.width + int(x)

    def cell(self, v: int) -> tuple[int, int]:
        y, x = divmod(int(v), self.width)
        return x, y

    def vertices(self, cells) -> np.ndarray:
        """Vertex ids of an ``(k, 2)`` array of ``[x, y]`` cells."""
        c = np.asarray(cells, dtype=np.int64).reshape(-1, 2)
        return (c[:, 1] * self.width + c[:, 0]).astype(np.int32)

    @cached_property
    def csr(self) -> CSRGraph:
        return grid_to_csr(self.free)


def grid_to_csr(free: np.ndarray) -> CSRGraph:
    """CSR of the 4-neighbour graph of ``free`` (blocked cells keep ids, lose edges)."""
    free = np.asarray(free, dtype=bool)
    h, w = free.shape
    n = h * w
    valid = np.zeros((h, w, 4), dtype=bool)
    valid[1:, :, 0] = free[1:] & free[:-1]          # up
    valid[:, 1:, 1] = free[:, 1:] & free[:, :-1]    # left
    valid[:, :-1, 2] = free[:, :-1] & free[:, 1:]   # right
    valid[:-1, :, 3] = free[:-1] & free[1:]         # down
    valid = valid.reshape(n, 4)
    srcPtrs = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(valid.sum(axis=1, dtype=np.int32), out=srcPtrs[1:])
    steps = np.array([-w, -1, 1, w], dtype=np.int32)
    dst = (np.arange(n, dtype=np.int32)[:, None] + steps)[valid]
    return CSRGraph(srcPtrs, dst)


def fig15_1_graph() -> CSRGraph:
    """The 9-vertex, 15-edge directed example graph of PMPP Fig. 15.1 in CSR form.

    Returns
    -------
    CSRGraph
        The graph, whose BFS from vertex 0 gives the figure's levels.

    Examples
    --------
    >>> g = fig15_1_graph()
    >>> g.num_vertices, g.dst[g.srcPtrs[0]:g.srcPtrs[1]].tolist()
    (9, [1, 2])
    """
    return CSRGraph(np.array([0, 2, 4, 7, 9, 11, 12, 13, 15, 15]),
                    np.array([1, 2, 3, 4, 5, 6, 7, 4, 8, 5, 8, 6, 8, 0, 6]))
