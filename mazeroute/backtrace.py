"""Backtracing (PMPP Fig. 15.5B): walk from the target to the root, one level down a step.

Among the neighbours one level lower the walk keeps its current direction when it can,
so straight runs stay straight (fewest bends); otherwise it takes the first in the fixed
order up, left, right, down. The same levels therefore always give the same wire.
"""

from __future__ import annotations

from collections.abc import Sequence

import numba
import numpy as np

from .engines import UNREACHED

_DX = np.array([0, -1, 1, 0], dtype=np.int64)
_DY = np.array([-1, 0, 0, 1], dtype=np.int64)


@numba.njit(cache=True, nogil=True)
def _trace(level, tx, ty, dx, dy):
    h, w = level.shape
    lv = level[ty, tx]
    path = np.empty((lv + 1, 2), dtype=np.int64)
    path[0, 0] = tx
    path[0, 1] = ty
    x, y, heading = tx, ty, -1
    for step in range(1, lv + 1):
        want = lv - step
        moved = False
        for k in range(5):
            d = heading if k == 0 else k - 1
            if d < 0 or (k > 0 and d == heading):
                continue
            nx, ny = x + dx[d], y + dy[d]
            if 0 <= nx < w and 0 <= ny < h and level[ny, nx] == want:
                x, y, heading, moved = nx, ny, d, True
                break
        if not moved:
            return path[:step], False
        path[step, 0] = x
        path[step, 1] = y
    return path, True


def backtrace(level: np.ndarray, target: tuple[int, int],
              origin: tuple[int, int] = (0, 0)) -> np.ndarray:
    """Cells ``[x, y]`` of a shortest path from ``target`` down to a level-0 cell.

    Parameters
    ----------
    level : (rows, cols) uint32 array of BFS levels (a window of the grid is enough)
    target : the ``(x, y)`` cell to start from, in grid coordinates
    origin : grid coordinates of ``level[0, 0]`` when ``level`` is a window

    Returns
    -------
    (k, 2) int array, target first, root last; ``k - 1`` is the target's level.

    Examples
    --------
    >>> import numpy as np
    >>> from mazeroute.engines import bfs
    >>> lv = bfs(np.ones((3, 4), bool), (0, 0), backend="cpu")
    >>> backtrace(lv, (3, 2)).tolist()     # up first, then straight on: one bend
    [[3, 2], [3, 1], [3, 0], [2, 0], [1, 0], [0, 0]]
    """
    ox, oy = origin
    tx, ty = target[0] - ox, target[1] - oy
    h, w = level.shape
    if not (0 <= tx < w and 0 <= ty < h) or level[ty, tx] == UNREACHED:
        raise ValueError(f"target {list(target)} was not reached by the wavefront")
    path, ok = _trace(np.ascontiguousarray(level), tx, ty, _DX, _DY)
    if not ok:
        raise ValueError(f"backtrace from {list(target)} stuck at {path[-1].tolist()}: "
                         "the levels are not a BFS labelling, or the window is too small")
    path[:, 0] += ox
    path[:, 1] += oy
    return path


def bends(path: np.ndarray) -> int:
    """Number of direction changes along a path of neighbouring cells."""
    return int(bends_many([path])[0])


@numba.njit(cache=True, nogil=True)
def _turns(xy, lens):
    out = np.zeros(lens.size, np.int64)
    at = 0
    for k in range(lens.size):
        for j in range(at + 1, at + lens[k] - 1):
            if (xy[j, 0] - xy[j - 1, 0] != xy[j + 1, 0] - xy[j, 0]
                    or xy[j, 1] - xy[j - 1, 1] != xy[j + 1, 1] - xy[j, 1]):
                out[k] += 1
        at += lens[k]
    return out


def bends_many(paths: Sequence[np.ndarray]) -> np.ndarray:
    """:func:`bends` of every path of ``paths`` (``(k, 2)`` arrays), in one compiled pass
    over them laid end to end: a router's result has tens of thousands of wires.

    >>> bends_many([np.array([[0, 0], [1, 0], [1, 1], [2, 1]]), np.array([[5, 5]])]).tolist()
    [2, 0]
    """
    if not len(paths):
        return np.zeros(0, np.int64)
    xy = [np.asarray(p, np.int64).reshape(-1, 2) for p in paths]
    lens = np.fromiter((len(p) for p in xy), np.int64, len(xy))
    return _turns(np.concatenate(xy), lens)
