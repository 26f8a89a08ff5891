"""``gpu/grid`` by whole-line scans: winding corridors in phases per bend (kernels/lines.cu).

The tiled kernels pay per tile crossed along a wavefront's critical path (:mod:`.gpu_grid`
one level at a time, :mod:`.gpu_sweep` a tile at a time), and a corridor winding across a
chip crosses tens of thousands of tiles. Here one persistent kernel alternates phases
that relax whole rows, then whole columns, by min-plus scans (GAMER's sweeps over the
whole grid), scanning only the lines whose cells the last phase improved, from those cells
outwards. A straight corridor settles in one phase, so the phases follow the bends of the
shortest paths. A phase costs a grid barrier and the longest line it scans; that is why
this suits long straight corridors and loses on one-cell mazes, whose paths bend every
few cells (:mod:`.auto` decides).

:class:`~mazeroute.engines.gpu_grid.GridRelaxProblem` uses it with ``mode="lines"``.
"""

from __future__ import annotations

import cupy
import numpy as np

from .cuda import device_attributes, get_kernel

#: Cells a lane scans in a step, and cells a warp scans in a step; both copies' lines
#: are padded to a multiple of STEP. This module passes CPL, INF, NOSPAN and THREADS
#: to kernels/lines.cu, so that both sides read them from here.
CPL = 8
STEP = 32 * CPL
#: "No path yet" inside a scan: every level must stay below it.
INF = 0x3FFFFFFF
#: The low end of a line's span when the line has none (its high end is then -1).
NOSPAN = 0x7FFFFFFF
#: Threads of a block of the wavefront kernel (one block per SM, all resident).
THREADS = 512
_OPTIONS = (f"-DCPL={CPL}", f"-DINF={INF:#x}", f"-DNOSPAN={NOSPAN:#x}",
            f"-DTHREADS={THREADS}")


def fits(height: int, width: int) -> bool:
    """Whether the line kernel can count every level of a ``height`` x ``width`` grid.

    >>> fits(4096, 4096), fits(1 << 15, 1 << 15)
    (True, False)
    """
    return height * width < INF


def _pad(n: int) -> int:
    return -(-n // STEP) * STEP


class LinesWavefront:
    """Whole wavefronts on a ``height`` x ``width`` grid by line scans (its device arrays,
    made when it is built: two padded copies of the levels, 8 bytes a cell, and the
    lines' spans).

    Examples
    --------
    >>> import cupy, numpy as np
    >>> free = np.ones((4, 300), bool); free[1:, 100] = False
    >>> level = cupy.asarray(np.where(free, 0xFFFFFFFF, 0xFFFFFFFE).astype(np.uint32).ravel())
    >>> lw = LinesWavefront(4, 300)
    >>> lw.run(level, np.array([3 * 300], np.int32))
    >>> int(level[3 * 300 + 101]), lw.max_level()
    (107, 305)
    """

    def __init__(self, height: int, width: int):
        if not fits(height, width):
            raise ValueError(f"a {height} x {width} grid has more cells than the line "
                             f"kernel's levels can count ({INF})")
        self.height, self.width = height, width
        self.row_pitch, self.col_pitch = _pad(width), _pad(height)
        self.blocks = device_attributes()["MultiProcessorCount"]
        # only the wavefront is a cooperative grid (its blocks meet between phases); the
        # other kernels have as many blocks as their data, more than can be resident
        self._wave = get_kernel("lines", "lines_wavefront", _OPTIONS, cooperative=True)
        self._load = get_kernel("lines", "lines_load", _OPTIONS)
        self._seed = get_kernel("lines", "lines_seed", _OPTIONS)
        self._store = get_kernel("lines", "lines_store", _OPTIONS)
        self._rows = cupy.empty(height * self.row_pitch, dtype=cupy.uint32)
        self._cols = cupy.empty(width * self.col_pitch, dtype=cupy.uint32)
        # spans: lo NOSPAN, hi -1 when a line has none; a run leaves them so
        self._row_lo = cupy.full(height, NOSPAN, dtype=cupy.int32)
        self._row_hi = cupy.full(height, -1, dtype=cupy.int32)
        self._col_lo = cupy.full(width, NOSPAN, dtype=cupy.int32)
        self._col_hi = cupy.full(width, -1, dtype=cupy.int32)
        self._flags = cupy.zeros(5, dtype=cupy.int32)
        self._out = cupy.zeros(1, dtype=cupy.uint32)

    def run(self, level: cupy.ndarray, sources: np.ndarray) -> None:
        """Label ``level`` (resting levels: blocked / unreached; sources free) from
        ``sources``."""
        h, w = np.int32(self.height), np.int32(self.width)
        rp, cp = np.int32(self.row_pitch), np.int32(self.col_pitch)
        self._load((self.row_pitch // 32, self.col_pitch // 32), (32, 8),
                   (level, h, w, self._rows, self._cols, rp, cp))
        src = cupy.asarray(np.asarray(sources, dtype=np.int32))
        self._seed((1,), (256,), (src, np.int32(src.size), w, self._rows, self._cols, rp, cp,
                                  self._row_lo, self._row_hi, self._col_lo, self._col_hi))
        # the seeds gave columns spans too: round 0's column phase must run
        self._flags[:4].set(np.array([0, 0, 1, 0], np.int32))
        self._wave((self.blocks,), (THREADS,), (
            self._rows, self._cols, rp, cp, h, w, self._row_lo, self._row_hi, self._col_lo,
            self._col_hi, self._flags))
        self._out.fill(0)
        n = self.height * self.width
        self._store((max(1, min(self.blocks * 8, -(-n // 256))),), (256,),
                    (self._rows, rp, h, w, level, self._out))

    def max_level(self) -> int:
        """The highest level of the last :meth:`run` (0 if only sources)."""
        return int(self._out.get()[0])

    def phases(self) -> int:
        """The row and column phases of the last :meth:`run` (a probe's figure)."""
        return int(self._flags[4].get())
