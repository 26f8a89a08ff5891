"""``gpu/grid`` on a perfect maze: wavefront levels as Euler-tour depths (kernels/tree.cu).

A perfect maze of one-cell corridors is a BFS of ~100,000 levels with a handful of cells
each: walked level by level, its time is the latency of one level times the level count
(the tiled kernel pays a level's latency and a hand-over each time the wavefront leaves
a tile; a one-warp kernel with the whole mask in shared memory was tried and paid more a
level, see benchmarks/grid_notes.md). But when the free cells form a forest there is nothing to
walk: a cell's level is its depth in the tree hanging from the root, and depths come from
an Euler tour of the tree ranked by pointer jumping, in ~log2(cells) parallel rounds.

Whether the free cells form a forest is checked once per layout
(:meth:`mazeroute.plan.features.Measure.is_forest`); it stays true as wires are committed, because
committing a wire only takes cells away and a router only ever frees again cells that the
layout itself leaves free. :class:`~mazeroute.engines.gpu_grid.GridRelaxProblem` uses
this path for wavefronts from one root and the tiled kernel for several.

Examples
--------
>>> import numpy as np
>>> from mazeroute.graph import GridGraph
>>> from mazeroute.engines.gpu_grid import GridRelaxProblem
>>> comb = np.zeros((3, 5), bool)
>>> comb[0] = True
>>> comb[:, ::2] = True
>>> p = GridRelaxProblem(GridGraph(comb))
>>> p.mode
'tree'
>>> p.wavefront([0]).levels()[2].tolist()
[2, 4294967295, 4, 4294967295, 6]
"""

from __future__ import annotations

import cupy
import numpy as np

from .cuda import get_kernel

_STEPS = ((0, -1), (1, 0), (0, 1), (-1, 0))      # kernels/tree.cu: up, right, down, left
#: kernels/tree.cu numbers arcs ``4 * cell + direction`` in int32.
MAX_ARCS = 2**31 - 1


def fits(height: int, width: int) -> bool:
    """Whether every arc id ``4 * cell + direction`` of the grid fits in an int32.

    >>> fits(16384, 32768), fits(16384, 32769)
    (True, False)
    """
    return 4 * height * width - 1 <= MAX_ARCS


class TreeWavefront:
    """Full wavefronts from one root on a forest, as Euler-tour depths (kernels/tree.cu).

    Parameters
    ----------
    height, width : the grid's shape
    words_per_row : 64-bit words per row of the packed free mask (``gpu_grid._pack_bits``)
    """

    _KERNELS = ("tree_arcs", "tree_succ", "tree_rank", "tree_steps", "tree_levels")

    def __init__(self, height: int, width: int, words_per_row: int):
        if not fits(height, width):
            raise ValueError(f"a {height} x {width} grid has more arcs than kernels/tree.cu "
                             "can number in int32")
        self.height, self.width, self.words_per_row = height, width, words_per_row
        k = {name: get_kernel("tree", name) for name in self._KERNELS}
        self._arcs, self._succ, self._rank = k["tree_arcs"], k["tree_succ"], k["tree_rank"]
        self._steps, self._levels = k["tree_steps"], k["tree_levels"]
        self._exists = cupy.empty(4 * height * width, dtype=cupy.uint8)
        self._inv = cupy.empty(4 * height * width, dtype=cupy.int32)

    def run(self, level: cupy.ndarray, free_bits: cupy.ndarray, host_free: np.ndarray,
            root: int) -> int:
        """Label ``level`` (already reset) from ``root``; return the number of levels."""
        h, w = self.height, self.width
        y, x = divmod(int(root), w)
        level[root] = 0
        first = next((d for d, (dx, dy) in enumerate(_STEPS)
                      if 0 <= x + dx < w and 0 <= y + dy < h and host_free[y + dy, x + dx]),
                     None)
        if first is None:
            return 1
        n = h * w
        self._arcs((min(4096, -(-n // 256)),), (256,),
                   (free_bits, np.int32(self.words_per_row), np.int32(w), np.int32(h),
                    self._exists))
        ids = cupy.flatnonzero(self._exists).astype(cupy.int32)
        m = int(ids.size)
        self._inv.fill(-1)
        self._inv[ids] = cupy.arange(m, dtype=cupy.int32)
        nxt, val = cupy.empty(m, cupy.int32), cupy.empty(m, cupy.int32)
        nxt2, val2 = cupy.empty_like(nxt), cupy.empty_like(val)
        grid = (-(-m // 256),)
        first_arc = np.int32(4 * int(root) + first)
        self._succ(grid, (256,), (ids, self._inv, np.int32(m), np.int32(w), first_arc,
                                  nxt, val))
        for _ in range(max(1, (m - 1).bit_length())):
            self._rank(grid, (256,), (nxt, val, nxt2, val2, np.int32(m)))
            nxt, nxt2, val, val2 = nxt2, nxt, val2, val
        pos = cupy.empty(m, cupy.int32)
        step = cupy.zeros(m, cupy.int32)
        self._steps(grid, (256,), (ids, self._inv, nxt, val, np.int32(m), np.int32(w),
                                   first_arc, pos, step))
        depth = cupy.cumsum(step, dtype=cupy.int32)
        self._levels(grid, (256,), (ids, pos, step, depth, np.int32(m), np.int32(w), level))
        return int(depth.max()) + 1
