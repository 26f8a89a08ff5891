"""Refinement of a finished global route: each multi-pin net's maze tree in its pins' box,
taken where it costs less in GCell steps and vias than the net's route and fits in the
room the other nets leave.

A pattern route fixes a net's Steiner topology before its layers are chosen, and that
topology is the shortest one, not the one with the fewest vias; a maze search prices
steps and vias together and lets branches share wire on a layer. Refinement gives every
net of three GCells or more the better of the two (the final stage of many global
routers, CUGR's and FastRoute's among them, is such a pass over finished nets). The
search is Lee's on the GCell nodes with a via at ``via_cost`` steps (Dijkstra's with
Dial's buckets, ties going to the node reached first), grown from the first pin to the
nearest remaining pin as :func:`~mazeroute.router.layered_tree.grow_tree` grows trees,
but confined to the pins' bounding box widened by ``margin`` GCells and to nodes with
room, all nets in one compiled call: a refinement that ran a maze search per branch
through the general engines cost more than the whole route.

A node has room when its use is below its capacity. A new tree uses only nodes with
room, and an edge's capacity is at least that of its two nodes, so taking a tree never
puts an edge over capacity; nets are taken one at a time in the order given, each
checked against the use the ones before it left.

Examples
--------
>>> room = np.ones((2, 3, 4), bool)
>>> trees = maze_trees([np.array([[0, 0, 0], [3, 2, 0], [3, 0, 0]])], room,
...                    ("horizontal", "vertical"), 2)
>>> paths, steps, vias = trees[0]
>>> steps, vias
(5, 2)
>>> for p in paths:                    # each branch from its pin to the tree
...     print(p.tolist())
[[3, 0, 0], [2, 0, 0], [1, 0, 0], [0, 0, 0]]
[[3, 2, 0], [3, 2, 1], [3, 1, 1], [3, 0, 1], [3, 0, 0]]
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numba
import numpy as np

__all__ = ["maze_trees", "tree_cost"]

#: Fewest nets a compiled call takes when the work is split over threads.
_CHUNK = 256

@numba.njit(cache=True, nogil=True)
def _grow_net(room, along_x, along_y, via, pins, margin, out, used):
    """One net's tree into ``out`` from row ``used``: each branch's cells, pin first,
    ending on the tree node it joins, then a row ``(-1, length, 0)``. Returns the rows
    used, or -1 when a pin cannot be reached."""
    L, H, W = room.shape
    x0 = max(0, pins[:, 0].min() - margin)
    x1 = min(W, pins[:, 0].max() + margin + 1)
    y0 = max(0, pins[:, 1].min() - margin)
    y1 = min(H, pins[:, 1].max() + margin + 1)
    w, h = x1 - x0, y1 - y0
    size = L * h * w
    dist = np.empty(size, np.int64)
    parent = np.empty(size, np.int64)
    # a node's distance counts only when stamped with this search's number: no reset of
    # the whole box between branches
    stamp = np.zeros(size, np.int64)
    search = 0
    in_tree = np.zeros(size, np.bool_)
    target = np.zeros(size, np.bool_)
    usable = np.empty(size, np.bool_)
    for z in range(L):
        for y in range(h):
            for x in range(w):
                usable[(z * h + y) * w + x] = room[z, y0 + y, x0 + x]
    tree = np.empty(size, np.int64)
    first = (pins[0, 2] * h + pins[0, 1] - y0) * w + pins[0, 0] - x0
    tree[0], count = first, 1
    in_tree[first] = True
    usable[first] = True
    left = 0
    for k in range(1, len(pins)):
        i = (pins[k, 2] * h + pins[k, 1] - y0) * w + pins[k, 0] - x0
        usable[i] = True                        # a net's own pins are always open
        if not in_tree[i] and not target[i]:
            target[i] = True
            left += 1
    # Dial's buckets: steps cost 1 and vias ``via``, so the distances pending at any
    # time span at most ``via + 1`` values, each with its own first-in-first-out bucket
    spread = max(1, via) + 1
    bucket = np.empty((spread, 7 * size), np.int64)
    fill = np.zeros(spread, np.int64)
    while left:
        search += 1
        for t in range(count):
            dist[tree[t]] = 0
            stamp[tree[t]] = search
            bucket[0, t] = tree[t]
        fill[0] = count
        found, d, idle = -1, 0, 0
        while found < 0 and idle <= spread:
            b = d % spread
            if fill[b] == 0:
                idle += 1
                d += 1
                continue
            idle = 0
            i = 0
            while i < fill[b]:
                u = bucket[b, i]
                i += 1
                if dist[u] != d:
                    continue                    # reached more cheaply since
                if target[u]:
                    found = u
                    break
                z, rest = divmod(u, h * w)
                y, x = divmod(rest, w)
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
                    if usable[v] and (stamp[v] != search or d + step < dist[v]):
                        stamp[v] = search
                        dist[v] = d + step
                        parent[v] = u
                        nb = (d + step) % spread
                        bucket[nb, fill[nb]] = v
                        fill[nb] += 1
            fill[b] = 0
            d += 1
        fill[:] = 0
        if found < 0:
            return -1
        v, length = found, 0
        while True:
            if used + length + 2 > len(out):
                return -2                       # the caller gives more room
            z, rest = divmod(v, h * w)
            y, x = divmod(rest, w)
            out[used + length, 0], out[used + length, 1] = x + x0, y + y0
            out[used + length, 2] = z
            length += 1
            if dist[v] == 0:
                break
            if target[v]:
                target[v] = False
                left -= 1
            if not in_tree[v]:
                in_tree[v] = True
                tree[count] = v
                count += 1
            v = parent[v]
        out[used + length, 0], out[used + length, 1], out[used + length, 2] = -1, length, 0
        used += length + 1
    return used


@numba.njit(cache=True, nogil=True)
def _grow_nets(room, along_x, along_y, via, pins, starts, margin, out):
    """Every net's tree (:func:`_grow_net`) into ``out``; each net's end row in ``ends``
    (-1: a pin cannot be reached). Returns the rows used, or -2 when ``out`` is full."""
    ends = np.empty(len(starts) - 1, np.int64)
    used = 0
    for k in range(len(starts) - 1):
        got = _grow_net(room, along_x, along_y, via, pins[starts[k]:starts[k + 1]], margin,
                        out, used)
        if got == -2:
            return -2, ends
        ends[k] = got
        if got >= 0:
            used = got
    return used, ends


def _grow_chunk(room, along_x, along_y, via, pin_sets, margin):
    """:func:`_grow_nets` on ``pin_sets``, its buffer doubled until the trees fit; each
    net's branches, or None."""
    pins = np.concatenate(pin_sets).astype(np.int64, copy=False)
    starts = np.concatenate([[0], np.cumsum([len(p) for p in pin_sets])])
    rows = max(1024, 16 * len(pins))
    while True:
        out = np.empty((rows, 3), np.int64)
        used, ends = _grow_nets(room, along_x, along_y, via, pins, starts, margin, out)
        if used != -2:
            break
        rows *= 2
    sep = np.nonzero(out[:max(used, 0), 0] == -1)[0]
    first = np.concatenate([[0], sep[:-1] + 1]).tolist()
    rows_of = [out[a:b].copy() for a, b in zip(first, sep.tolist())]
    trees, path = [], 0
    for end in ends.tolist():
        if end < 0:
            trees.append(None)
            continue
        branches = []
        while path < len(sep) and sep[path] < end:
            branches.append(rows_of[path])
            path += 1
        trees.append(branches)
    return trees


def maze_trees(pin_sets: list[np.ndarray], room: np.ndarray, directions: tuple[str, ...],
               via_cost: int, margin: int = 1, threads: int = 1
               ) -> list[tuple[list[np.ndarray], int, int] | None]:
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
    list
        Each net's ``(paths, steps, vias)``: its branches (each pin first, ending on the
        tree node it joins), in-layer steps and vias; None where a pin is cut off.
    """
    room = np.ascontiguousarray(room, bool)
    along_x = np.array([d != "vertical" for d in directions])
    along_y = np.array([d != "horizontal" for d in directions])
    # a few chunks a thread, so that one of large nets does not hold the others up
    size = max(_CHUNK, -(-len(pin_sets) // (4 * max(1, threads))))
    chunks = [pin_sets[at:at + size] for at in range(0, len(pin_sets), size)]

    def grow(chunk):
        return _grow_chunk(room, along_x, along_y, int(via_cost), chunk, int(margin))

    if threads > 1 and len(chunks) > 1:
        with ThreadPoolExecutor(threads) as pool:
            parts = list(pool.map(grow, chunks))
    else:
        parts = [grow(c) for c in chunks]
    out = []
    for paths in (t for part in parts for t in part):
        if paths is None:
            out.append(None)
            continue
        vias = sum(int((p[1:, 2] != p[:-1, 2]).sum()) for p in paths)
        steps = sum(len(p) - 1 for p in paths) - vias
        out.append((paths, steps, vias))
    return out


def tree_cost(steps: int, vias: int, via_cost: int) -> int:
    """A tree's cost in GCell steps: its steps and ``via_cost`` for each via."""
    return steps + via_cost * vias
