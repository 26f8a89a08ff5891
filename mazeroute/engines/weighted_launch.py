"""How one call of the GPU weighted search is launched (:mod:`.gpu_weighted`): request
records, the scratch each call needs, and the launches by shared-memory size class.

Host code only (NumPy and numba): what the kernels of ``kernels/weighted.cu`` read.

Examples
--------
>>> chunks(np.array([4, 4, 3, 9, 1]), 10).tolist()
[0, 2, 3, 5]
"""

from __future__ import annotations

import numba
import numpy as np

from .weighted import NetRequest, box_sides

__all__ = ["plan_launches", "chunks", "records", "shared_bytes", "own_parts", "REC", "HDR",
           "CELL_BYTES",
           "SMEM_CLASSES", "MAX_BLOCKS", "R_ROW", "R_NET", "R_X0", "R_Y0", "R_X1", "R_Y1",
           "R_PIN0", "R_PIN1", "R_SEG"]

#: int64 fields of a request record (kernels/weighted.cu R_*).
REC = 9
#: int32 fields of a request's result (kernels/weighted.cu HDR): status, cells, offset in
#: the output.
HDR = 3
R_ROW, R_NET, R_X0, R_Y0, R_X1, R_Y1, R_PIN0, R_PIN1, R_SEG = range(REC)
#: Bytes of shared memory a box cell takes (a uint32 distance and a uint16 cost).
CELL_BYTES = 6
#: Upper bounds of the shared-memory size classes: boxes of one class share a launch, so
#: that a few big boxes do not cut the occupancy of the many small ones.
SMEM_CLASSES = (8 << 10, 16 << 10, 32 << 10, 64 << 10, 128 << 10)
#: Most blocks in one launch.
MAX_BLOCKS = 1 << 20

def shared_bytes(boxes: np.ndarray) -> np.ndarray:
    """Dynamic shared memory of each box ``(x0, y0, x1, y1)`` searched in shared memory
    (rows padded to an odd pitch)."""
    bw, bh = box_sides(boxes)
    return CELL_BYTES * bh * (bw | 1)


@numba.njit(cache=True, nogil=True)
def chunks(areas: np.ndarray, cap: int) -> np.ndarray:
    """Bounds ``[b[i], b[i + 1])`` of consecutive requests whose box areas sum to at most
    ``cap`` (each area is at most ``cap``): the scratch one call needs. Disjoint boxes
    of one grid always make one chunk.

    >>> chunks(np.array([4, 4, 3, 9, 1]), 10).tolist()
    [0, 2, 3, 5]
    """
    out = [0]
    total = 0
    for i in range(areas.size):
        if total + areas[i] > cap:
            out.append(i)
            total = 0
        total += areas[i]
    out.append(areas.size)
    return np.array(out, dtype=np.int64)


@numba.njit(cache=True, nogil=True)
def _plan(boxes, need, smem_limit, classes, max_blocks):
    n = boxes.shape[0]
    key = np.empty(n, np.int64)
    ncls = classes.size + 1
    for i in range(n):
        k = 0
        while k < classes.size and need[i] > classes[k]:
            k += 1
        # boxes in global memory (each in a region of its own) make the last class
        key[i] = k if need[i] <= smem_limit else ncls
    order = np.argsort(key, kind="mergesort")
    launches = []
    s = 0
    while s < n:
        k = key[order[s]]
        e = s
        lines = 1
        smem = 0
        while e < n and key[order[e]] == k and e - s < max_blocks:
            i = order[e]
            lines = max(lines, max(boxes[i, 2] - boxes[i, 0], boxes[i, 3] - boxes[i, 1]) + 1)
            if k < ncls:
                smem = max(smem, need[i])
            e += 1
        threads = min(1024, max(32, (lines + 31) // 32 * 32))
        launches.append((s, e - s, smem, threads))
        s = e
    out = np.empty((len(launches), 4), np.int64)
    for j in range(len(launches)):
        out[j, 0], out[j, 1], out[j, 2], out[j, 3] = launches[j]
    return order, out


def plan_launches(boxes: np.ndarray, smem_limit: int,
                  max_blocks: int = MAX_BLOCKS) -> tuple[np.ndarray, np.ndarray]:
    """How one call's requests are launched.

    Boxes whose distances and costs fit in ``smem_limit`` bytes run in shared memory,
    grouped by size class (:data:`SMEM_CLASSES`); the others run together in global
    memory, each box's distances in a region of its own. Returns ``order``
    (the requests, launch after launch) and per launch ``(start in order, blocks, dynamic
    shared memory or 0 for a global-memory launch, threads)``.

    Examples
    --------
    >>> boxes = np.array([[0, 0, 9, 9], [0, 0, 99, 99], [50, 50, 149, 149], [20, 0, 29, 9]])
    >>> order, launches = plan_launches(boxes, 48 << 10)
    >>> order.tolist()          # two small ones in shared memory, two big ones together
    [0, 3, 1, 2]
    >>> launches.tolist()
    [[0, 2, 660, 32], [2, 2, 0, 128]]
    """
    boxes = np.ascontiguousarray(boxes, dtype=np.int64).reshape(-1, 4)
    need = shared_bytes(boxes)
    return _plan(boxes, need, int(smem_limit), np.array(SMEM_CLASSES, np.int64),
                 int(max_blocks))


@numba.njit(cache=True, nogil=True)
def records(order, nets, pin_ptr, boxes, seg):
    """Request records (``(m, REC)`` int64, kernels/weighted.cu) in launch ``order``;
    ``R_ROW`` is a request's index among ``nets`` (its row of the result header)."""
    m = order.size
    rec = np.empty((m, REC), np.int64)
    for k in range(m):
        i = order[k]
        rec[k, R_ROW] = i
        rec[k, R_NET] = nets[i]
        rec[k, R_X0] = boxes[i, 0]
        rec[k, R_Y0] = boxes[i, 1]
        rec[k, R_X1] = boxes[i, 2]
        rec[k, R_Y1] = boxes[i, 3]
        rec[k, R_PIN0] = pin_ptr[i]
        rec[k, R_PIN1] = pin_ptr[i + 1]
        rec[k, R_SEG] = seg[i]
    return rec


def own_parts(requests: list[NetRequest], own_ptr: np.ndarray, cells: np.ndarray
              ) -> list[list[int]]:
    """The requests of one call in parts whose own cells (``cells[own_ptr[r]:own_ptr[r +
    1]]``, each request's inside its box: :func:`~.weighted.pack_own`) are disjoint and
    whose nets with own cells appear once, in request order: the device prices a part's
    own cells with one overlay for the whole launch (kernels/weighted.cu ``CellCosts``),
    where the CPU engine swaps each request's costs in for its own search. The requests of
    a call search on the same costs, so running its parts one after another gives the
    same wires.

    Examples
    --------
    >>> reqs = [NetRequest(n, np.zeros((1, 2)), (0, 0, 0, 0)) for n in (0, 1, 2)]
    >>> own_parts(reqs, np.array([0, 2, 3, 4]), np.array([5, 6, 7, 5]))
    [[0, 1], [2]]
    """
    n = len(requests)
    sizes = np.diff(own_ptr)
    nets = np.fromiter((r.net for r in requests), np.int64, n)
    owning = nets[sizes > 0]
    if (np.unique(cells).size == cells.size and np.unique(owning).size == owning.size
            and not np.isin(nets[sizes == 0], owning).any()):
        return [list(range(n))]                 # the group schedule's calls: one part
    parts: list[list[int]] = []
    taken: list[tuple[set, tuple[set, set]]] = []   # a part's own cells; its nets
    for r in range(n):
        mine = set(cells[own_ptr[r]:own_ptr[r + 1]].tolist())
        net, owns = int(nets[r]), bool(sizes[r])
        k = next((k for k, (used, (bare, owning)) in enumerate(taken)
                  if used.isdisjoint(mine) and net not in owning
                  and not (owns and net in bare)), len(parts))
        if k == len(parts):
            parts.append([])
            taken.append((set(), (set(), set())))
        parts[k].append(r)
        taken[k][0].update(mine)
        taken[k][1][owns].add(net)
    return parts
