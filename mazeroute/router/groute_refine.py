"""Refinement of a finished global route: each multi-pin net's maze tree in its pins' box,
taken where it costs less in GCell steps and vias than the net's route and fits in the
room the other nets leave.

A pattern route fixes a net's Steiner topology before its layers are chosen, and that
topology is the shortest one, not the one with the fewest vias; a maze search prices
steps and vias together and lets branches share wire on a layer. Refinement gives every
net of three GCells or more the better of the two (the final stage of many global
routers, CUGR's and FastRoute's among them, is such a pass over finished nets). The
search is Lee's on the GCell nodes with a via at ``via_cost`` steps, grown from the
first pin to the nearest remaining pin as :func:`~mazeroute.router.layered_tree.grow_tree`
grows trees (each branch a shortest path; ties may fall otherwise), but confined to the
pins' bounding box widened by ``margin`` GCells and to nodes with room, each search A*
toward the nearest remaining pin with Dial's buckets, and all nets in one compiled call:
a refinement that ran a maze search per branch through the general engines cost more
than the whole route.

A node has room when its use is below its capacity. A new tree uses only nodes with
room, and an edge's capacity is at least that of its two nodes, so taking a tree never
puts an edge over capacity; nets are taken one at a time in the order given, each
checked against the use the ones before it left.

Examples
--------
>>> room = np.ones((2, 3, 4), bool)
>>> trees = maze_trees([np.array([[0, 0, 0], [3, 2, 0], [3, 0, 0]])], room,
...                    ("horizontal", "vertical"), 2)
>>> int(trees.steps[0]), int(trees.vias[0])
(5, 2)
>>> for p in trees.paths(0):           # each branch from its pin to the tree
...     print(p.tolist())
[[3, 0, 0], [2, 0, 0], [1, 0, 0], [0, 0, 0]]
[[3, 2, 0], [3, 2, 1], [3, 1, 1], [3, 0, 1], [3, 0, 0]]
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numba
import numpy as np

from ..layers import layer_moves

__all__ = ["MazeTrees", "maze_trees", "tree_cost"]

#: Fewest nets a compiled call takes when the work is split over threads.
_CHUNK = 256


@numba.njit(cache=True, inline="always")
def _estimate(x, y, targets):
    """Steps from ``(x, y)`` to the nearest of ``targets`` (``(k, 2)``, ``x, y``): a lower
    bound to the way to any of them, which changes by at most one a step (so A* may use
    it)."""
    best = abs(targets[0, 0] - x) + abs(targets[0, 1] - y)
    for k in range(1, len(targets)):
        best = min(best, abs(targets[k, 0] - x) + abs(targets[k, 1] - y))
    return best


@numba.njit(cache=True, nogil=True)
def _nearest(room, along_x, along_y, via, x0, y0, w, h, tree, count, scratch, bucket,
             epoch, search, targets):
    """The nearest target (``goal == epoch``, at ``targets``) from the tree's ``count``
    nodes, by A* over the box at ``x0, y0`` (``w`` by ``h``, every layer) with the
    steps to the nearest target as its estimate; -1 when none is reached. Distances and
    parents go into ``scratch``, stamped with ``search``.

    The estimate of a step changes by at most one and a via's not at all, so an
    estimated total grows by at most ``max(2, via)`` a move: Dial's buckets, that many
    and one, each first in, first out, hold the totals pending. The tree's nodes enter as
    the totals reach their estimates."""
    dist, parent, stamp, _, goal = scratch
    L = room.shape[0]
    spread = len(bucket)
    fill = np.zeros(spread, np.int64)
    est = np.empty(count, np.int64)
    for t in range(count):
        y, x = divmod(tree[t] % (h * w), w)
        est[t] = _estimate(x, y, targets)
        dist[tree[t]] = 0
        stamp[tree[t]] = search
    order = np.argsort(est)
    nxt, f, idle = 0, est[order[0]], 0
    while True:
        while nxt < count and est[order[nxt]] == f:
            bucket[f % spread, fill[f % spread]] = tree[order[nxt]]
            fill[f % spread] += 1
            nxt += 1
        b = f % spread
        if fill[b] == 0:
            idle += 1
            if idle > spread:
                if nxt == count:
                    return -1
                f, idle = est[order[nxt]], 0
            else:
                f += 1
            continue
        idle = 0
        i = 0
        while i < fill[b]:
            u = bucket[b, i]
            i += 1
            z, rest = divmod(u, h * w)
            y, x = divmod(rest, w)
            if dist[u] + _estimate(x, y, targets) != f:
                continue                        # reached more cheaply since
            if goal[u] == epoch:
                return u
            for m in range(6):
                if m < 2:
                    if not along_x[z]:
                        continue
                    nx, ny, nz, step = x + 2 * m - 1, y, z, 1
                elif m < 4:
                    if not along_y[z]:
                        continue
                    nx, ny, nz, step = x, y + 2 * m - 5, z, 1
                else:
                    nx, ny, nz, step = x, y, z + 2 * m - 9, via
                if nx < 0 or nx >= w or ny < 0 or ny >= h or nz < 0 or nz >= L:
                    continue
                v = (nz * h + ny) * w + nx
                # a net's own pins are always open
                if not (room[nz, y0 + ny, x0 + nx] or goal[v] == epoch):
                    continue
                if stamp[v] != search or dist[u] + step < dist[v]:
                    stamp[v] = search
                    dist[v] = dist[u] + step
                    parent[v] = u
                    nf = dist[v] + _estimate(nx, ny, targets)
                    bucket[nf % spread, fill[nf % spread]] = v
                    fill[nf % spread] += 1
        fill[b] = 0
        f += 1


@numba.njit(cache=True, nogil=True)
def _grow_net(room, along_x, along_y, via, pins, margin, out, used, scratch, bucket, epoch,
              search):
    """One net's tree into ``out`` from row ``used``: each branch's cells, pin first,
    ending on the tree node it joins, then a row ``(-1, length, 0)``. Returns the rows
    used (-1 when a pin cannot be reached, -2 when ``out`` is full), the tree's in-layer
    steps, its vias and the last search's number.

    ``scratch`` is five arrays of at least the box's nodes: distances, parents, and the
    numbers that make them count (the search's), that put a node in the tree and that
    make it a target or an open pin (``epoch``, this net's); nothing in it is
    cleared between nets or searches. ``bucket`` is ``(max(2, via) + 1, n)``: a bucket
    holds the nodes of one estimated total, each once."""
    L, H, W = room.shape
    x0 = max(0, pins[:, 0].min() - margin)
    x1 = min(W, pins[:, 0].max() + margin + 1)
    y0 = max(0, pins[:, 1].min() - margin)
    y1 = min(H, pins[:, 1].max() + margin + 1)
    w, h = x1 - x0, y1 - y0
    dist, parent, stamp, in_tree, goal = scratch
    at = (pins[:, 2] * h + pins[:, 1] - y0) * w + pins[:, 0] - x0     # the pins' nodes
    tree = np.empty(L * h * w, np.int64)
    tree[0], count = at[0], 1
    in_tree[at[0]] = epoch
    left, steps, vias = 0, 0, 0
    for k in range(1, len(pins)):
        if in_tree[at[k]] != epoch and goal[at[k]] != epoch:
            goal[at[k]] = epoch
            left += 1
    while left:
        search += 1
        # the remaining pins, whose nearest is a lower bound to the way to any
        targets = np.empty((left, 2), np.int64)
        n = 0
        for k in range(1, len(pins)):
            if goal[at[k]] == epoch:
                targets[n, 0], targets[n, 1] = pins[k, 0] - x0, pins[k, 1] - y0
                n += 1
        found = _nearest(room, along_x, along_y, via, x0, y0, w, h, tree, count, scratch,
                         bucket, epoch, search, targets[:n])
        if found < 0:
            return -1, steps, vias, search
        v, length = found, 0
        while True:
            if used + length + 2 > len(out):
                return -2, steps, vias, search  # the caller gives more room
            z, rest = divmod(v, h * w)
            y, x = divmod(rest, w)
            out[used + length, 0], out[used + length, 1] = x + x0, y + y0
            out[used + length, 2] = z
            length += 1
            if stamp[v] == search and dist[v] == 0:
                break
            if goal[v] == epoch:
                goal[v] = 0
                left -= 1
            if in_tree[v] != epoch:
                in_tree[v] = epoch
                tree[count] = v
                count += 1
            if parent[v] // (h * w) != z:
                vias += 1
            else:
                steps += 1
            v = parent[v]
        out[used + length, 0], out[used + length, 1], out[used + length, 2] = -1, length, 0
        used += length + 1
    return used, steps, vias, search


@numba.njit(cache=True, nogil=True)
def _grow_nets(room, along_x, along_y, via, pins, starts, margin, out):
    """Every net's tree (:func:`_grow_net`) into ``out``: the rows used (-2 when ``out``
    is full), and each net's first row, end row (-1: a pin cannot be reached), steps and
    vias."""
    n = len(starts) - 1
    L, H, W = room.shape
    most = 1
    for k in range(n):
        p = pins[starts[k]:starts[k + 1]]
        w = min(W, p[:, 0].max() + margin + 1) - max(0, p[:, 0].min() - margin)
        h = min(H, p[:, 1].max() + margin + 1) - max(0, p[:, 1].min() - margin)
        most = max(most, L * w * h)
    scratch = (np.zeros(most, np.int64), np.zeros(most, np.int64), np.zeros(most, np.int64),
               np.zeros(most, np.int64), np.zeros(most, np.int64))
    bucket = np.empty((max(2, via) + 1, most), np.int64)
    first = np.zeros(n, np.int64)
    ends = np.full(n, -1, np.int64)
    steps = np.zeros(n, np.int64)
    vias = np.zeros(n, np.int64)
    used, search = 0, 0
    for k in range(n):
        got, s, v, search = _grow_net(room, along_x, along_y, via,
                                      pins[starts[k]:starts[k + 1]], margin, out, used,
                                      scratch, bucket, k + 1, search)
        if got == -2:
            return -2, first, ends, steps, vias
        if got >= 0:
            first[k], ends[k], steps[k], vias[k] = used, got, s, v
            used = got
    return used, first, ends, steps, vias


class MazeTrees:
    """What :func:`maze_trees` found: each net's in-layer ``steps`` and ``vias`` (both -1
    where a pin is cut off) and, by :meth:`paths`, its branches."""

    def __init__(self, count: int):
        self.steps = np.full(count, -1, np.int64)
        self.vias = np.full(count, -1, np.int64)
        self._rows: list[tuple[np.ndarray, int, int]] = [(np.zeros((0, 3), np.int64), 0, 0)
                                                          ] * count

    def paths(self, k: int) -> list[np.ndarray]:
        """Net ``k``'s branches, each its pin first and the tree node it joins last."""
        out, first, end = self._rows[k]
        rows = out[first:end]
        sep = np.nonzero(rows[:, 0] == -1)[0].tolist()
        return [rows[a:b].copy() for a, b in zip([0] + [s + 1 for s in sep[:-1]], sep)]

    def grow(self, room, along_x, along_y, via: int, pin_sets: list[np.ndarray],
             margin: int, at: int) -> None:
        """Grow the trees of nets ``at`` on (:func:`_grow_nets` on ``pin_sets``), its
        buffer doubled until they fit."""
        pins = np.concatenate(pin_sets).astype(np.int64, copy=False)
        starts = np.concatenate([[0], np.cumsum([len(p) for p in pin_sets])])
        rows = max(1024, 16 * len(pins))
        while True:
            out = np.empty((rows, 3), np.int64)
            used, first, ends, steps, vias = _grow_nets(room, along_x, along_y, via, pins,
                                                        starts, margin, out)
            if used != -2:
                break
            rows *= 2
        found = ends >= 0
        where = at + np.nonzero(found)[0]
        self.steps[where], self.vias[where] = steps[found], vias[found]
        for k, a, b in zip(where.tolist(), first[found].tolist(), ends[found].tolist()):
            self._rows[k] = (out, a, b)


def maze_trees(pin_sets: list[np.ndarray], room: np.ndarray, directions: tuple[str, ...],
               via_cost: int, margin: int = 1, threads: int = 1) -> MazeTrees:
    """Each net's maze tree in its pins' box (see the module's notes).

    Parameters
    ----------
    pin_sets : list of (k, 3) int arrays
        Each net's distinct pin nodes ``(x, y, z)``, the root first.
    room : (L, H, W) bool array
        The nodes a tree may use (a net's own pins are always open).
    directions : tuple of str
        Each layer's direction (``horizontal``, ``vertical`` or ``any``).
    via_cost : int
        A via's cost in GCell steps.
    margin : int
        GCells the pins' bounding box is widened by on each side.
    threads : int
        Threads the nets are shared among (the trees do not depend on it).

    Returns
    -------
    MazeTrees
        Each net's in-layer steps and vias (-1 where a pin is cut off) and its branches
        (each pin first, ending on the tree node it joins).
    """
    room = np.ascontiguousarray(room, bool)
    along_x, along_y = layer_moves(directions)
    trees = MazeTrees(len(pin_sets))
    # a few chunks a thread, so that one of large nets does not hold the others up
    size = max(_CHUNK, -(-len(pin_sets) // (4 * max(1, threads))))
    starts = range(0, len(pin_sets), size)

    def grow(at: int) -> None:
        trees.grow(room, along_x, along_y, int(via_cost), pin_sets[at:at + size],
                   int(margin), at)

    if threads > 1 and len(starts) > 1:
        with ThreadPoolExecutor(threads) as pool:
            list(pool.map(grow, starts))
    else:
        for at in starts:
            grow(at)
    return trees


def tree_cost(steps: int | np.ndarray, vias: int | np.ndarray,
              via_cost: float) -> int | float | np.ndarray:
    """A tree's cost in GCell steps: its steps and ``via_cost`` for each via (numbers or
    arrays)."""
    return steps + via_cost * vias
