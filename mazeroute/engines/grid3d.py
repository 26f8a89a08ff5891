"""The 3-D engines on the CPU: wavefronts over a stack of routing layers joined by vias.

A multi-layer grid is a layer-major ``(L, H, W)`` array indexed ``[z, y, x]``; a cell is
``(x, y, z)`` and its vertex id is ``(z * H + y) * W + x``. The moves:

* In layer ``z`` a step goes to a 4-neighbour along the axes that the layer's direction
  allows: ``"horizontal"`` moves only along x, ``"vertical"`` only along y, ``"any"``
  along both.
* A via joins ``(x, y, z)`` and ``(x, y, z +- 1)`` where both cells are free and, when
  ``via_sites`` is given, it allows that via: an ``(H, W)`` bool array by
  ``via_sites[y, x]`` between every two adjacent layers, an ``(L - 1, H, W)`` one by
  ``via_sites[z, y, x]`` between layers ``z`` and ``z + 1`` alone.

Costs: :func:`bfs3d` charges 1 per in-layer step and ``via_cost`` per via.
:func:`weighted3d` charges the entered cell's cost ``cost[z, y, x]`` per in-layer step
and ``via_cost * cost`` of the entered cell per via, so that congestion prices a via as
it prices the cell the via lands on. Sources cost nothing. Both return ``uint32``
distances with :data:`UNREACHED` where not reached; a path dearer than
:data:`~mazeroute.engines.costs.DIST_MAX` counts as unreachable, as in the 2-D weighted
search. With targets, the search stops once the cheapest target is settled: every cell
at most that target's distance away holds its exact distance, every other cell
:data:`UNREACHED`.

The neighbour order, wherever one matters, is up, left, right, down (as in 2-D), then
the via below, the via above. The engines take plain arrays, never a layout.

Examples
--------
>>> import numpy as np
>>> free = np.ones((2, 1, 4), bool)            # two layers of one row
>>> d = bfs3d(free, [(0, 0, 0)], directions=["vertical", "any"], via_cost=2)
>>> d[0].tolist(), d[1].tolist()     # layer 0 cannot move along x: up, across, down
([[0, 5, 6, 7]], [[2, 3, 4, 5]])
"""

from __future__ import annotations

from collections.abc import Sequence

import numba
import numpy as np

from ..errors import InputError
from ..graph import CSRGraph
from ..layers import pair_sites
from .base import UNREACHED
from .costs import COST_MAX, DIST_MAX
from .weighted import _pop, _push, _reserve

__all__ = ["bfs3d", "weighted3d", "backtrace3d", "trace3d", "grid3d_csr", "DIRECTIONS",
           "UNREACHED", "stack_arrays", "cell_ids", "checked_via_cost", "target_mask",
           "finish", "check_cost", "trace_boxes"]

#: Layer directions, and the axes each lets a wire move along (bit 0: x, bit 1: y).
DIRECTIONS = ("horizontal", "vertical", "any")
_AXES = {"horizontal": 1, "vertical": 2, "any": 3}

_UNREACHED = np.int64(UNREACHED)
_DIST_MAX = np.int64(DIST_MAX)
_INF = np.int64(2**62)
_ONE = np.ones(1, np.int64)


# -- validation ------------------------------------------------------------------------
def stack_arrays(free: np.ndarray, directions: Sequence[str], via_sites, field: str = "free"):
    """The free mask as C-contiguous bool, per-layer axis bits and the flat per-pair via
    mask (``(L - 1) * H * W``: entry ``z * H * W + r`` allows the via from z to z + 1)."""
    free = np.asarray(free)
    if free.ndim != 3 or 0 in free.shape:
        raise InputError(f"must be a non-empty (layers, height, width) array, got shape "
                         f"{free.shape}", field=field)
    if free.size >= 2**31 - 2:
        raise InputError("grid too large for 32-bit vertex ids", field=field)
    layers, h, w = free.shape
    if isinstance(directions, str) or len(directions) != layers:
        raise InputError(f"needs one direction per layer ({layers})", field="directions")
    bad = [d for d in directions if d not in _AXES]
    if bad:
        raise InputError(f"{bad[0]!r} is not one of {', '.join(DIRECTIONS)}",
                         field="directions")
    axes = np.array([_AXES[d] for d in directions], np.int8)
    if via_sites is not None and np.asarray(via_sites).dtype != np.bool_:
        via_sites = np.asarray(via_sites).astype(np.bool_)    # 0/1 masks were accepted
    vias = pair_sites(via_sites, layers, h, w).ravel()
    return np.ascontiguousarray(free, np.bool_), axes, vias


def cell_ids(cells, free: np.ndarray, field: str) -> np.ndarray:
    """Vertex ids of ``(k, 3)`` cells ``(x, y, z)``, each inside the grid and free."""
    c = np.asarray(cells, dtype=np.int64)
    if c.size == 0 or c.shape[-1] != 3:
        raise InputError("must be a non-empty list of (x, y, z) cells", field=field)
    c = c.reshape(-1, 3)
    layers, h, w = free.shape
    inside = ((c >= 0) & (c < np.array([w, h, layers]))).all(axis=1)
    if not inside.all():
        raise InputError(f"cell {c[~inside][0].tolist()} is outside the grid", field=field)
    v = (c[:, 2] * h + c[:, 1]) * w + c[:, 0]
    blocked = ~free.ravel()[v]
    if blocked.any():
        raise InputError(f"cell {c[blocked][0].tolist()} is blocked", field=field)
    return v


def checked_via_cost(via_cost) -> int:
    """``via_cost`` as an int, refused unless an integer in ``1..DIST_MAX``."""
    if isinstance(via_cost, bool) or not isinstance(via_cost, (int, np.integer)) \
            or not 1 <= via_cost <= DIST_MAX:
        raise InputError(f"must be an integer in 1..{DIST_MAX}, got {via_cost!r}",
                         field="via_cost")
    return int(via_cost)


def check_cost(cost: np.ndarray, shape: tuple[int, ...]) -> None:
    """Refuse a cost array that is not integer, of ``shape``, each value in
    ``1..COST_MAX``."""
    if cost.shape != shape or not np.issubdtype(cost.dtype, np.integer):
        raise InputError(f"must be an integer array of shape {shape}", field="cost")
    if cost.min() < 1 or cost.max() > COST_MAX:
        raise InputError(f"every cost must be in 1..{COST_MAX}", field="cost")


def target_mask(targets, free: np.ndarray) -> np.ndarray:
    """A flat bool mask of ``targets`` (none: all False), each checked as a cell."""
    is_target = np.zeros(free.size, np.bool_)
    if targets is not None and np.size(targets):
        is_target[cell_ids(targets, free, "targets")] = True
    return is_target


# -- compiled kernels ------------------------------------------------------------------
@numba.njit(cache=True, nogil=True, inline="always")
def _coords(v, h, w):
    """``x, y, z`` of vertex ``v``, and ``r``, its cell's index within a layer."""
    z = v // (h * w)
    r = v - z * (h * w)
    y = r // w
    return r - y * w, y, z, r


@numba.njit(cache=True, nogil=True, inline="always")
def _step(v, k, x, y, z, r, layers, h, w, axes, vias):
    """The neighbour of vertex ``v`` (at ``x, y, z``, ``r``) by move ``k`` (up, left,
    right, down, below, above), or -1 where the grid's edge, the layer's direction or the
    via sites forbid it."""
    if k == 0:
        return v - w if y > 0 and axes[z] & 2 else -1
    if k == 1:
        return v - 1 if x > 0 and axes[z] & 1 else -1
    if k == 2:
        return v + 1 if x < w - 1 and axes[z] & 1 else -1
    if k == 3:
        return v + w if y < h - 1 and axes[z] & 2 else -1
    if k == 4:
        return v - h * w if z > 0 and vias[r + (z - 1) * h * w] else -1
    return v + h * w if z < layers - 1 and vias[r + z * h * w] else -1


@numba.njit(cache=True, nogil=True)
def _lee(free, axes, vias, sources, is_target, dist):
    """Lee's wavefront: a FIFO queue, each cell labelled once, one level at a time."""
    layers, h, w = free.shape
    flat = free.ravel()
    queue = np.empty(flat.size, np.int32)
    tail = 0
    stop = _INF
    for s in sources:
        if is_target[s]:
            stop = 0
        if dist[s] != 0:
            dist[s] = 0
            queue[tail] = s
            tail += 1
    head = 0
    while head < tail:
        v = queue[head]
        d = dist[v]
        if d >= stop:
            break                          # the target's level is complete
        head += 1
        x, y, z, r = _coords(v, h, w)
        for k in range(6):
            u = _step(v, k, x, y, z, r, layers, h, w, axes, vias)
            if u >= 0 and flat[u] and dist[u] == _UNREACHED:
                dist[u] = d + 1
                queue[tail] = u
                tail += 1
                if is_target[u] and stop == _INF:
                    stop = d + 1
    return stop


@numba.njit(cache=True, nogil=True)
def _dial(free, axes, vias, via_cost, sources, is_target, dist):
    """Dial's bucket queue for edge weights 1 and ``via_cost``, held as two FIFOs.

    Keys leave the queue in non-decreasing order, so the keys pushed along one weight
    never decrease: each FIFO is sorted, and taking the smaller head pops the buckets
    in order. A cell enters each FIFO at most once (a later push of the same weight
    cannot be cheaper), so each needs room for every cell.
    """
    layers, h, w = free.shape
    flat = free.ravel()
    n = flat.size
    qv = np.empty((2, n + sources.size), np.int64)
    qk = np.empty((2, n + sources.size), np.int64)
    head = np.zeros(2, np.int64)
    tail = np.zeros(2, np.int64)
    for s in sources:
        dist[s] = 0
        qv[0, tail[0]] = s
        qk[0, tail[0]] = 0
        tail[0] += 1
    stop = _INF
    while head[0] < tail[0] or head[1] < tail[1]:
        q = 0 if head[1] == tail[1] or (head[0] < tail[0]
                                         and qk[0, head[0]] <= qk[1, head[1]]) else 1
        v, d = qv[q, head[q]], qk[q, head[q]]
        head[q] += 1
        if d != dist[v]:
            continue                      # a stale entry: a cheaper one came first
        if is_target[v]:
            stop = d
            break
        x, y, z, r = _coords(v, h, w)
        for k in range(6):
            u = _step(v, k, x, y, z, r, layers, h, w, axes, vias)
            if u < 0 or not flat[u]:
                continue
            via = 1 if k >= 4 else 0
            nd = d + (via_cost if via else 1)
            if nd < dist[u] and nd <= _DIST_MAX:
                dist[u] = nd
                qv[via, tail[via]] = u
                qk[via, tail[via]] = nd
                tail[via] += 1
    return stop


@numba.njit(cache=True, nogil=True)
def _dijkstra(free, cost, axes, vias, via_cost, sources, is_target, dist):
    """Dijkstra with a lazy binary heap on entry costs; vias cost ``via_cost`` times."""
    layers, h, w = free.shape
    flat = free.ravel()
    price = cost.ravel()
    keys = np.empty(max(16, 2 * sources.size), np.int64)
    vals = np.empty(keys.size, np.int64)
    size = 0
    for s in sources:
        dist[s] = 0
        size = _push(keys, vals, size, np.int64(0), s)
    stop = _INF
    while size > 0:
        d, v, size = _pop(keys, vals, size)
        if d != dist[v]:
            continue
        if is_target[v]:
            stop = d
            break
        keys, vals = _reserve(keys, vals, size, 6)
        x, y, z, r = _coords(v, h, w)
        for k in range(6):
            u = _step(v, k, x, y, z, r, layers, h, w, axes, vias)
            if u < 0 or not flat[u]:
                continue
            nd = d + np.int64(price[u]) * (via_cost if k >= 4 else 1)
            if nd < dist[u] and nd <= _DIST_MAX:
                dist[u] = nd
                size = _push(keys, vals, size, nd, u)
    return stop


def finish(dist: np.ndarray, stop: int, shape) -> np.ndarray:
    """The search's answer: ``uint32`` distances of ``shape``, every label dearer than
    ``stop`` (the nearest target's distance; ``2**62``: none) made unreached."""
    if stop < _INF:
        dist[dist > stop] = _UNREACHED      # tentative labels beyond the target
    return dist.astype(np.uint32).reshape(shape)


# -- public searches -------------------------------------------------------------------
def bfs3d(free: np.ndarray, sources, *, directions: Sequence[str], via_cost: int = 1,
          via_sites: np.ndarray | None = None, targets=None) -> np.ndarray:
    """Distances from ``sources`` over a layer stack: 1 per step, ``via_cost`` per via.

    Parameters
    ----------
    free : (L, H, W) bool array
        True where a wire may pass.
    sources : (k, 3) array_like of int
        Cells ``(x, y, z)`` at distance 0; each must be free.
    directions : sequence of str
        One of ``"horizontal"``, ``"vertical"``, ``"any"`` per layer.
    via_cost : int
        Price of one via, in cell steps. 1 runs Lee's BFS; more runs Dial's bucket queue.
    via_sites : (H, W) or (L - 1, H, W) bool array, optional
        Where vias may go (see the module's notes); default anywhere free on both layers.
    targets : (m, 3) array_like of int, optional
        Stop once the nearest target is settled (see the module's notes); None or an
        empty list searches everything reachable.

    Returns
    -------
    (L, H, W) uint32 array of distances, :data:`UNREACHED` where not reached.

    Raises
    ------
    InputError
        For malformed arrays, a direction not in :data:`DIRECTIONS`, a cell outside the
        grid or blocked, or a ``via_cost`` that is not a positive integer.

    Examples
    --------
    >>> free = np.ones((2, 3, 3), bool); free[0, 1, :] = False   # a wall across layer 0
    >>> d = bfs3d(free, [(0, 0, 0)], directions=["any", "any"], targets=[(0, 2, 0)])
    >>> int(d[0, 2, 0])        # via up, two steps, via down
    4
    """
    vc = checked_via_cost(via_cost)
    free, axes, vias = stack_arrays(free, directions, via_sites)
    src = cell_ids(sources, free, "sources")
    dist = np.full(free.size, _UNREACHED, np.int64)
    is_target = target_mask(targets, free)
    if vc == 1:
        stop = _lee(free, axes, vias, src, is_target, dist)
    else:
        stop = _dial(free, axes, vias, vc, src, is_target, dist)
    return finish(dist, stop, free.shape)


def weighted3d(cost: np.ndarray, sources, targets=None, *, directions: Sequence[str],
               via_cost: int = 1, via_sites: np.ndarray | None = None,
               free: np.ndarray | None = None) -> np.ndarray:
    """Cheapest-path costs from ``sources`` on per-cell entry costs (Dijkstra).

    Entering a cell in-layer costs ``cost`` of that cell; entering it by a via costs
    ``via_cost`` times that. Sources cost nothing.

    Parameters
    ----------
    cost : (L, H, W) array of int
        Entry costs, each in ``1..COST_MAX``.
    sources, targets : (k, 3) array_like of int
        As in :func:`bfs3d`; ``targets`` may be None for a full search.
    directions, via_cost, via_sites
        As in :func:`bfs3d`.
    free : (L, H, W) bool array, optional
        Cells that may be entered; default every cell.

    Returns
    -------
    (L, H, W) uint32 array of path costs, :data:`UNREACHED` where not reached.

    Raises
    ------
    InputError
        As :func:`bfs3d`, and for costs outside ``1..COST_MAX`` or a ``free`` of another
        shape.

    Examples
    --------
    >>> cost = np.array([[[1, 9, 1]], [[1, 1, 1]]])
    >>> weighted3d(cost, [(0, 0, 0)], directions=["any", "any"], via_cost=2)[0].tolist()
    [[0, 9, 6]]
    """
    vc = checked_via_cost(via_cost)
    cost = np.asarray(cost)
    if free is None:
        free = np.ones(cost.shape, np.bool_)
    free, axes, vias = stack_arrays(free, directions, via_sites)
    check_cost(cost, free.shape)
    src = cell_ids(sources, free, "sources")
    dist = np.full(free.size, _UNREACHED, np.int64)
    stop = _dijkstra(free, np.ascontiguousarray(cost, np.int64), axes, vias, vc, src,
                     target_mask(targets, free), dist)
    return finish(dist, stop, free.shape)


# -- backtrace -------------------------------------------------------------------------
@numba.njit(cache=True, nogil=True, inline="always")
def _price(price, unit, x, y, z, at):
    """The entry cost of the box's cell ``x, y, z``: ``price`` is that of a grid in which
    the box lies at ``at`` (``x0, y0, H, W``)."""
    if unit:
        return np.int64(1)
    return price[(z * at[2] + at[1] + y) * at[3] + at[0] + x]


@numba.njit(cache=True, nogil=True)
def _tight(dist, price, unit, axes, vias, via_cost, shape, at, target, local, cells):
    """Number the cells of the shortest-path DAG behind ``target`` into ``local``/``cells``:
    ``u`` precedes ``v`` when ``dist[u] + weight(u -> v) == dist[v]``."""
    layers, h, w = shape
    local[target] = 0
    cells[0] = target
    m, head = 1, 0
    while head < m:
        v = cells[head]
        head += 1
        x, y, z, r = _coords(v, h, w)
        enter = _price(price, unit, x, y, z, at)
        for k in range(6):
            u = _step(v, k, x, y, z, r, layers, h, w, axes, vias)
            if u < 0 or dist[u] == _UNREACHED or local[u] >= 0:
                continue
            if dist[u] + enter * (via_cost if k >= 4 else 1) == dist[v]:
                local[u] = m
                cells[m] = u
                m += 1
    return m


@numba.njit(cache=True, nogil=True)
def _trace3d(dist, price, unit, axes, vias, via_cost, shape, at, target, local, cells):
    """The shortest path behind ``target`` with fewest vias, then fewest bends, in a box
    of ``shape`` whose entry costs ``price`` holds at ``at`` (see :func:`_price`).
    ``local`` is -1 everywhere (and is again on return), ``cells`` scratch, both at
    least the box's size.

    A dynamic programme over (cell, last move) states of the shortest-path DAG, in
    decreasing distance (a topological order, as every weight is positive); the score
    ``vias * big + bends`` ranks vias first since no path has ``big`` bends.
    """
    m = _tight(dist, price, unit, axes, vias, via_cost, shape, at, target, local, cells)
    layers, h, w = shape
    cells = cells[:m]
    big = np.int64(m + 1)
    best = np.full(m * 7, _INF, np.int64)
    parent = np.full(m * 7, -1, np.int64)
    best[6] = 0                                 # the target, no move yet
    for v in cells[np.argsort(-dist[cells], kind="mergesort")]:
        i = local[v]
        x, y, z, r = _coords(v, h, w)
        enter = _price(price, unit, x, y, z, at)
        for s in range(7):
            b = best[i * 7 + s]
            if b == _INF:
                continue
            for k in range(6):
                u = _step(v, k, x, y, z, r, layers, h, w, axes, vias)
                if u < 0 or local[u] < 0:
                    continue
                if dist[u] + enter * (via_cost if k >= 4 else 1) != dist[v]:
                    continue
                nb = b + (big if k >= 4 else 0) + (1 if s < 4 and k < 4 and s != k else 0)
                j = local[u] * 7 + k
                if nb < best[j]:
                    best[j] = nb
                    parent[j] = i * 7 + s
    end = -1
    for e in range(m * 7):
        if dist[cells[e // 7]] == 0 and best[e] < _INF and (end < 0 or best[e] < best[end]):
            end = e
    count = 0
    e = end
    while e >= 0:
        count += 1
        e = parent[e]
    path = np.empty(count, np.int64)
    e = end
    for i in range(count):
        path[count - 1 - i] = cells[e // 7]
        e = parent[e]
    for v in cells:
        local[v] = -1
    return path


def backtrace3d(dist: np.ndarray, target, *, directions: Sequence[str], via_cost: int = 1,
                via_sites: np.ndarray | None = None,
                cost: np.ndarray | None = None) -> np.ndarray:
    """Cells of a shortest path from ``target`` back to a source (a cell of distance 0).

    Among all shortest paths the one returned has the fewest vias, and among those the
    fewest bends, exactly (not greedily). A bend is a pair of consecutive in-layer steps
    along different directions; a via between two steps is counted as a via only.

    Parameters
    ----------
    dist : (L, H, W) array of distances
        From :func:`bfs3d` (``cost`` None) or :func:`weighted3d` (its ``cost``).
    target : (x, y, z)
        The cell to start from; it must have been reached.
    directions, via_cost, via_sites
        The rules ``dist`` was computed under.
    cost : (L, H, W) array of int, optional
        The entry costs of a :func:`weighted3d` search; None for unit steps.

    Returns
    -------
    (k, 3) int64 array of ``(x, y, z)``: target first, source last.

    Raises
    ------
    InputError
        For malformed arrays or directions.
    ValueError
        When ``target`` was not reached, or ``dist`` is not a distance field of these
        rules.

    Examples
    --------
    >>> free = np.ones((2, 3, 3), bool)
    >>> d = bfs3d(free, [(0, 0, 0)], directions=["any", "any"])
    >>> backtrace3d(d, (2, 2, 1), directions=["any", "any"]).tolist()  # via at the corner
    [[2, 2, 1], [1, 2, 1], [0, 2, 1], [0, 2, 0], [0, 1, 0], [0, 0, 0]]
    """
    vc = checked_via_cost(via_cost)
    dist = np.asarray(dist)
    _, axes, vias = stack_arrays(np.ones(dist.shape, np.bool_), directions, via_sites, "dist")
    layers, h, w = dist.shape
    x, y, z = (int(c) for c in target)
    if not (0 <= x < w and 0 <= y < h and 0 <= z < layers) or dist[z, y, x] == UNREACHED:
        raise ValueError(f"target {[x, y, z]} was not reached by the search")
    if cost is not None and np.size(cost) != dist.size:
        raise InputError(f"must have the shape of dist, {dist.shape}", field="cost")
    path = trace3d(dist, (x, y, z), axes, vias, vc, cost)
    if path.size == 0:
        raise ValueError(f"no source behind {[x, y, z]}: dist is not a distance field of "
                         "these rules")
    return path


def trace3d(dist: np.ndarray, target, axes: np.ndarray, vias: np.ndarray, via_cost: int,
            cost: np.ndarray | None = None) -> np.ndarray:
    """:func:`backtrace3d` without its checks, for callers that searched ``dist``
    themselves: ``axes`` and ``vias`` as :func:`stack_arrays` gives them, ``target``
    reached. Returns the path's cells ``(k, 3)``, target first (none when ``dist`` is not
    a distance field of these rules).

    >>> free = np.ones((2, 1, 3), bool)
    >>> _, axes, vias = stack_arrays(free, ["any", "any"], None)
    >>> d = bfs3d(free, [(0, 0, 0)], directions=["any", "any"])
    >>> trace3d(d, (2, 0, 1), axes, vias, 1).tolist()
    [[2, 0, 1], [2, 0, 0], [1, 0, 0], [0, 0, 0]]
    """
    layers, h, w = dist.shape
    x, y, z = target
    unit = cost is None
    price = _ONE if unit else np.ascontiguousarray(cost, np.int64).ravel()
    flat = np.ascontiguousarray(dist).ravel()
    if flat.dtype != np.uint32:
        flat = flat.astype(np.int64)
    path = _trace3d(flat, price, unit, axes, vias, via_cost, dist.shape, (0, 0, h, w),
                    (z * h + y) * w + x, np.full(flat.size, -1, np.int64),
                    np.empty(flat.size, np.int64))
    z, r = np.divmod(path, h * w)
    return np.stack([r % w, r // w, z], axis=1)


def trace_boxes(dist: np.ndarray, offsets: np.ndarray, boxes: np.ndarray, shape: tuple,
                targets: np.ndarray, starts: np.ndarray, axes: np.ndarray,
                vias: np.ndarray | None, via_cost: int,
                cost: np.ndarray | None = None) -> tuple:
    """The step of many searches at once, each done in its own box of the grid: the
    nearest of its targets, whether the box's distances are provably the grid's for it
    (no side of the box that borders more grid is within two of it), and when so its
    :func:`trace3d` backtrace, in one compiled call (one call a launch, not one a net).

    Parameters
    ----------
    dist : 1-D uint32 array
        Every box's distances, box ``b``'s ``(L, h, w)`` at ``offsets[b]``.
    offsets : (B,) int array
    boxes : (B, 4) int array
        ``x0, y0, w, h`` of each box.
    shape : tuple
        The grid's ``(L, H, W)``.
    targets : (T, 3) int array
        Every box's targets ``(x, y, z)`` (inside its box), box ``b``'s at
        ``starts[b]:starts[b + 1]``.
    starts : (B + 1,) int array
    axes, vias, via_cost
        The grid's rules as :func:`stack_arrays` gives them; ``vias`` None where every
        via is allowed.
    cost : (L, H, W) int array, optional
        The entry costs the boxes were searched on; None for unit steps.

    Returns
    -------
    pick : (B,) int64 array
        Each box's nearest target, an index into ``targets`` (the first among equals).
    level : (B,) int64 array
        Its distance (:data:`UNREACHED` when no target was reached).
    exact : (B,) bool array
        Whether the box's distances are the grid's for it (for none reached: whether
        nothing outside is reachable).
    paths : (P, 3) int64 array
        The traced paths' cells ``(x, y, z)``, target first, box ``b``'s at
        ``path_starts[b]:path_starts[b + 1]`` (none unless exact and reached).
    path_starts : (B + 1,) int64 array
    counts : (B, 2) int64 array
        Each path's vias and bends, as the layered router counts them.

    Examples
    --------
    >>> free = np.ones((2, 1, 3), bool)
    >>> _, axes, vias = stack_arrays(free, ["any", "any"], None)
    >>> d = bfs3d(free, [(0, 0, 0)], directions=["any", "any"]).ravel()
    >>> out = trace_boxes(d, np.array([0]), np.array([[0, 0, 3, 1]]), (2, 1, 3),
    ...                   np.array([[2, 0, 1]]), np.array([0, 1]), axes, vias, 1)
    >>> out[1].tolist(), out[2].tolist(), out[3].tolist()
    ([3], [True], [[2, 0, 1], [2, 0, 0], [1, 0, 0], [0, 0, 0]])
    """
    unit = cost is None
    price = _ONE if unit else np.ascontiguousarray(cost, np.int64).ravel()
    boxes = np.asarray(boxes, np.int64).reshape(-1, 4)
    every = vias is None
    if every:           # any index of a box's via mask reads "allowed"
        area = int((boxes[:, 2] * boxes[:, 3]).max(initial=0))
        vias = np.ones(max(1, (shape[0] - 1) * area), bool)
    return _trace_boxes(np.ascontiguousarray(dist, np.uint32),
                        np.asarray(offsets, np.int64), boxes,
                        np.asarray(shape, np.int64), np.asarray(targets, np.int64).reshape(-1, 3),
                        np.asarray(starts, np.int64), price, unit, axes,
                        np.ascontiguousarray(vias, np.bool_), every, np.int64(via_cost))


@numba.njit(cache=True, nogil=True)
def _sides_min(d, x0, y0, width, height, layers, h, w):
    """The least distance on the box's sides that border more grid (``UNREACHED``
    when none does)."""
    best = _UNREACHED
    for z in range(layers):
        for y in range(h):
            if x0 > 0:
                best = min(best, np.int64(d[(z * h + y) * w]))
            if x0 + w < width:
                best = min(best, np.int64(d[(z * h + y) * w + w - 1]))
        for x in range(w):
            if y0 > 0:
                best = min(best, np.int64(d[z * h * w + x]))
            if y0 + h < height:
                best = min(best, np.int64(d[(z * h + h - 1) * w + x]))
    return best


@numba.njit(cache=True, nogil=True)
def _crop(a, x0, y0, w, h, layers, height, width):
    """The box ``x0, y0, w, h`` of each of ``layers`` layers of the flat grid ``a``."""
    out = np.empty(layers * h * w, a.dtype)
    for z in range(layers):
        for y in range(h):
            src = (z * height + y0 + y) * width + x0
            out[(z * h + y) * w:(z * h + y + 1) * w] = a[src:src + w]
    return out


@numba.njit(cache=True, nogil=True)
def _trace_boxes(dist, offsets, boxes, shape, targets, starts, price, unit, axes, vias,
                 every, via_cost):
    """:func:`trace_boxes` on arrays, the boxes one after another."""
    layers, height, width = shape[0], shape[1], shape[2]
    n = boxes.shape[0]
    pick = np.full(n, -1, np.int64)
    level = np.full(n, _UNREACHED, np.int64)
    exact = np.zeros(n, np.bool_)
    length = np.zeros(n, np.int64)
    counts = np.zeros((n, 2), np.int64)
    scratch = np.empty(dist.size, np.int64)
    most = np.max(layers * boxes[:, 2] * boxes[:, 3]) if n else 0
    local = np.full(most, -1, np.int64)
    cells = np.empty(most, np.int64)
    for b in range(n):
        x0, y0, w, h = boxes[b, 0], boxes[b, 1], boxes[b, 2], boxes[b, 3]
        size = layers * h * w
        d = dist[offsets[b]:offsets[b] + size]
        for t in range(starts[b], starts[b + 1]):
            v = np.int64(d[(targets[t, 2] * h + targets[t, 1] - y0) * w + targets[t, 0] - x0])
            if pick[b] < 0 or v < level[b]:
                pick[b], level[b] = t, v
        edge = _sides_min(d, x0, y0, width, height, layers, h, w)
        exact[b] = edge == _UNREACHED if level[b] == _UNREACHED else level[b] < edge + 2
        if not exact[b] or level[b] == _UNREACHED:
            continue
        box_vias = vias if every else _crop(vias, x0, y0, w, h, layers - 1, height, width)
        t = pick[b]
        target = (targets[t, 2] * h + targets[t, 1] - y0) * w + targets[t, 0] - x0
        path = _trace3d(d, price, unit, axes, box_vias, via_cost, (layers, h, w),
                        (x0, y0, height, width), target, local, cells)
        length[b] = path.size
        scratch[offsets[b]:offsets[b] + path.size] = path
        counts[b, 0], counts[b, 1] = _via_bends(path, h * w, w)
    path_starts = np.zeros(n + 1, np.int64)
    for b in range(n):
        path_starts[b + 1] = path_starts[b] + length[b]
    paths = np.empty((path_starts[n], 3), np.int64)
    for b in range(n):
        w, hw = boxes[b, 2], boxes[b, 2] * boxes[b, 3]
        for k in range(length[b]):
            v = scratch[offsets[b] + k]
            r = v % hw
            at = path_starts[b] + k
            paths[at, 0] = r % w + boxes[b, 0]
            paths[at, 1] = r // w + boxes[b, 1]
            paths[at, 2] = v // hw
    return pick, level, exact, paths, path_starts, counts


@numba.njit(cache=True, nogil=True)
def _via_bends(path, hw, w):
    """The vias of a path of flat ids, and its bends: consecutive in-layer steps along
    different moves (a via between two steps is a via only)."""
    vias = bends = 0
    last = np.int64(0)
    for k in range(1, path.size):
        move = path[k] - path[k - 1]
        via = abs(move) == hw
        vias += via
        if k > 1 and not via and last != 0 and move != last:
            bends += 1
        last = 0 if via else move
    return vias, bends


# -- the 3-D grid as a plain graph -------------------------------------------------------
def grid3d_csr(free: np.ndarray, directions: Sequence[str],
               via_sites: np.ndarray | None = None) -> CSRGraph:
    """The layer stack's unit-cost graph in CSR form, for the textbook BFS engines.

    Vertex ``(z * H + y) * W + x`` is the cell ``(x, y, z)``; edges join free cells by
    the moves of :func:`bfs3d`, both ways, each row's neighbours in increasing id (via
    below, up, left, right, down, via above). Blocked cells keep their ids but have no
    edges, so a level array reshapes to ``(L, H, W)``.

    Parameters
    ----------
    free, directions, via_sites
        As in :func:`bfs3d`.

    Returns
    -------
    CSRGraph

    Examples
    --------
    >>> from mazeroute.engines import bfs
    >>> g = grid3d_csr(np.ones((2, 1, 3), bool), ["horizontal", "vertical"])
    >>> g.num_edges            # two steps along x in layer 0, both ways, and three vias
    10
    >>> bfs(g, 4, backend="cpu", strategy="csr").reshape(2, 1, 3).tolist()
    [[[2, 1, 2]], [[3, 0, 3]]]
    """
    free, axes, vias = stack_arrays(free, directions, via_sites)
    layers, h, w = free.shape
    n, hw = free.size, h * w
    along_x = np.broadcast_to((axes & 1).astype(bool)[:, None, None], free.shape)
    along_y = np.broadcast_to((axes & 2).astype(bool)[:, None, None], free.shape)
    via_ok = vias.reshape(layers - 1, h, w)
    valid = np.zeros((layers, h, w, 6), dtype=bool)
    valid[1:, :, :, 0] = free[1:] & free[:-1] & via_ok                  # via below
    valid[:, 1:, :, 1] = free[:, 1:] & free[:, :-1] & along_y[:, 1:]    # up
    valid[:, :, 1:, 2] = free[:, :, 1:] & free[:, :, :-1] & along_x[:, :, 1:]   # left
    valid[:, :, :-1, 3] = free[:, :, :-1] & free[:, :, 1:] & along_x[:, :, :-1]  # right
    valid[:, :-1, :, 4] = free[:, :-1] & free[:, 1:] & along_y[:, :-1]  # down
    valid[:-1, :, :, 5] = free[:-1] & free[1:] & via_ok                 # via above
    valid = valid.reshape(n, 6)
    srcPtrs = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(valid.sum(axis=1, dtype=np.int64), out=srcPtrs[1:])
    steps = np.array([-hw, -w, -1, 1, w, hw], dtype=np.int64)
    dst = (np.arange(n, dtype=np.int64)[:, None] + steps)[valid]
    return CSRGraph(srcPtrs, dst)
