"""``gpu/grid`` by tile sweeps: each visit settles a whole tile (kernels/sweep.cu).

The tiled kernel (:mod:`.gpu_grid`, kernels/grid.cu) steps a tile's wavefront level by
level, so a full wavefront costs about the number of levels times the latency of one
level step. Here two warps settle a 64 x 32 tile at once, GAMER-style: row min-plus scans
both ways (one lane a row, each warp one half of it), then column scans both ways (one
lane a column), repeated until nothing changes; a tile whose edge changed activates the
neighbour on that side through the work queue grid.cu uses. The cost follows the chain
of tile visits along the critical path (~194 tiles across the 4096^2 target layout,
against 8,214 levels) and the bends inside tiles.

:class:`~mazeroute.engines.gpu_grid.GridRelaxProblem` uses it with ``mode="sweep"``.
"""

from __future__ import annotations

import cupy
import numpy as np

from .cuda import device_attributes, get_kernel

TILE_ROWS, TILE_COLS, PITCH, WARPS = 32, 64, 65, 4     # kernels/sweep.cu
TEAM_INTS = TILE_ROWS * PITCH + 64 + 4
#: Dynamic shared memory a team of two warps needs: a padded tile of levels, its carries
#: and words.
TEAM_BYTES = TEAM_INTS * 4
#: Inside a tile, "no path yet" (kernels/sweep.cu): every level must stay below it.
INF = 0x1FFFFFFF


def fits(height: int, width: int) -> bool:
    """Whether the sweep kernel can count every level of a ``height`` x ``width`` grid.

    >>> fits(4096, 4096), fits(1 << 15, 1 << 15)
    (True, False)
    """
    return height * width <= INF
NUM_COUNTERS = 128                                       # kernels/tile_queue.cuh
EMPTY = -1


class SweepWavefront:
    """Full wavefronts from any sources by tile sweeps (kernels/sweep.cu).

    Parameters
    ----------
    height, width : the grid's shape
    words_per_row : 64-bit words per row of the packed free mask (``gpu_grid._pack_bits``)
    options : extra NVRTC flags (``("-DPROBE",)``: counters for benchmarks/sweep_probe.py)
    warps : warps per block (an even number; one block per SM)

    Examples
    --------
    >>> import cupy, numpy as np
    >>> from mazeroute.engines.gpu_grid import _pack_bits
    >>> free = np.ones((3, 70), bool)
    >>> level = cupy.full(free.size, 0xFFFFFFFF, dtype=cupy.uint32)
    >>> sw = SweepWavefront(3, 70, 2)
    >>> sw.run(level, cupy.asarray(_pack_bits(free)), np.array([0]))
    >>> int(level[-1]), sw.max_level()
    (71, 71)
    """

    def __init__(self, height: int, width: int, words_per_row: int,
                 options: tuple[str, ...] = (), warps: int = WARPS):
        if not fits(height, width):
            raise ValueError(f"a {height} x {width} grid has more cells than the sweep "
                             f"kernel's levels can count ({INF})")
        self.height, self.width, self.words_per_row = height, width, words_per_row
        self.tiles_x = -(-width // TILE_COLS)
        self.tiles_y = -(-height // TILE_ROWS)
        tiles = self.tiles_x * self.tiles_y
        if warps != WARPS:
            options = (*options, f"-DWARPS={warps}")
        self.warps, self.smem = warps, warps // 2 * TEAM_BYTES
        self._kernel = get_kernel("sweep", "sweep_wavefront", options)
        self._kernel.max_dynamic_shared_size_bytes = self.smem
        self._seed = get_kernel("sweep", "sweep_seed", options)
        self._max = get_kernel("sweep", "sweep_max_level", options)
        # one block per SM: a visit is latency-bound (chains of scans and round trips to
        # L2). Two teams a block run as fast as four (benchmarks/RESULTS.md,
        # "Figures behind code comments") with half the teams polling the queue
        self.blocks = device_attributes()["MultiProcessorCount"]
        # a tile is queued at most once; every warp may hold a ticket ahead of the tail
        cap = 1 << int(2 * (tiles + self.blocks * warps) + 64).bit_length()
        self._qmask = np.uint32(cap - 1)
        self._queue = cupy.full(cap, EMPTY, dtype=cupy.int32)    # a run leaves it EMPTY
        self._state = cupy.zeros(tiles, dtype=cupy.int32)        # ... and every tile IDLE
        self._counters = cupy.zeros(NUM_COUNTERS, dtype=cupy.int32)
        # per tile and warp the highest level its last visit left (the max level without
        # a pass over the grid); sweep_max_level reads and clears it
        self._tile_max = cupy.zeros(2 * tiles, dtype=cupy.int32)
        self._out = cupy.zeros(1, dtype=cupy.uint32)

    def run(self, level: cupy.ndarray, free_bits: cupy.ndarray, sources: np.ndarray) -> None:
        """Label ``level`` (already reset, sources free) from ``sources``."""
        src = cupy.asarray(np.asarray(sources, dtype=np.int32))
        w, tx = np.int32(self.width), np.int32(self.tiles_x)
        self._seed((1,), (256,), (level, src, np.int32(src.size), w, tx, self._state,
                                  self._queue, self._counters, self._qmask))
        self._kernel((self.blocks,), (self.warps * 32,), (
            level, free_bits, w, np.int32(self.height), np.int32(self.words_per_row), tx,
            np.int32(self.tiles_y), self._state, self._queue, self._counters, self._qmask,
            self._tile_max), shared_mem=self.smem)

    def max_level(self) -> int:
        """The highest level of the last :meth:`run` (0 if only sources); once per run."""
        self._out.fill(0)
        n = self._tile_max.size
        self._max((max(1, min(64, -(-n // 256))),), (256,), (self._tile_max, np.int32(n),
                                                              self._out))
        return int(self._out.get()[0])
