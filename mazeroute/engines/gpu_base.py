"""The device-side half of :class:`~mazeroute.engines.base.Problem`, shared by GPU engines.

Levels live in GPU memory for the life of the problem. A second device array, the
*resting* levels (``BLOCKED`` on blocked cells, ``UNREACHED`` elsewhere), is patched in
place when a wire is committed, so resetting between nets is one device-to-device copy
and no graph is ever rebuilt. Reads copy back only what is asked for: a window of the
grid for the backtracer, or the few target levels for early exit.
"""

from __future__ import annotations

import cupy
import numpy as np

from .base import BLOCKED, UNREACHED, Problem


class DeviceProblem(Problem):
    """Device level array + resting levels; subclasses add graph arrays and ``_run``."""

    def __init__(self, graph):
        super().__init__(graph)
        self.rest = self._initial_levels_on_device()
        self.level = self.rest.copy()
        self.dirty = False

    def _initial_levels_on_device(self) -> cupy.ndarray:
        """:meth:`initial_levels`, made on the device: a grid uploads 1 byte a cell, not 4."""
        if self.shape is None:
            return cupy.asarray(self.initial_levels())
        free = cupy.asarray(np.ascontiguousarray(self.graph.free, dtype=bool).reshape(-1))
        return cupy.where(free, np.uint32(UNREACHED), np.uint32(BLOCKED)).astype(
            cupy.uint32, copy=False)

    def _clear(self) -> None:
        if self.dirty:
            cupy.copyto(self.level, self.rest)
            self.dirty = False

    def _write_levels(self, vertices: np.ndarray, value) -> None:
        v = cupy.asarray(vertices, dtype=cupy.int32)
        self.rest[v] = value
        self.level[v] = value

    def _device_levels(self, window) -> cupy.ndarray:
        """The device's levels, whole or a ``(y0, y1, x0, x1)`` window of the grid."""
        if self.shape is None or window is None:
            return self.level if self.shape is None else self.level.reshape(self.shape)
        y0, y1, x0, x1 = window
        return self.level.reshape(self.shape)[y0:y1, x0:x1]

    def _levels_out(self, window) -> np.ndarray:
        # cleaned on the device, so the host gets one copy and no pass over it (a
        # 4096 x 4096 grid is 64 MB)
        lv = self._device_levels(window)
        return cupy.where(lv >= self._hidden_from(), np.uint32(UNREACHED), lv).get()

    def _hidden_from(self) -> np.uint32:
        """Levels from this one up read back as ``UNREACHED`` (``BLOCKED`` and above)."""
        return np.uint32(BLOCKED)

    def _read_levels(self, window):
        if self.shape is None:
            return self.level.get()
        grid = self.level.reshape(self.shape)
        if window is None:
            return grid.get()
        y0, y1, x0, x1 = window
        return grid[y0:y1, x0:x1].get()

    def _read_vertices(self, vertices: np.ndarray) -> np.ndarray:
        return self.level[cupy.asarray(vertices, dtype=cupy.int32)].get()

    def _seed(self, sources: np.ndarray) -> cupy.ndarray:
        """Put the sources on level 0; mark the level array as needing a reset."""
        src = cupy.asarray(sources, dtype=cupy.int32)
        self.level[src] = 0
        self.dirty = True
        return src
