"""Shorter wires for a legal routing of two-pin nets, by rerouting touching wires together.

The space-filling completion (:mod:`.fill`) connects every net of a dense layout, but
its wires cover every free cell, so a net whose pins lie side by side may run round
half the board. Rerouting one wire at a time with the others fixed cannot help there:
no cell is free. Wires that touch, though, can trade cells: a pair (then, up to
``group``, sets of wires joined by touching) is ripped up and routed again, one wire
after another, each by the shortest way through the cells the set held and the cells
nobody uses within the box of the set's cells grown by half its longer side (never
through another net's wire or pin), in every order of the set; the set takes the best
order's wires when together they are shorter than before. Rounds over every such set
repeat until none gains (or ``max_passes``). Every net stays connected, no cell is
shared, and the total wire length only falls; the work stays near each set.

The searches are breadth-first, neighbours taken up, left, right, down, so the result
is deterministic.

Examples
--------
>>> import numpy as np
>>> free = np.ones((3, 4), bool)             # a wraps round b; b's pins are adjacent
>>> pins = [np.array([[0, 0], [1, 0]]), np.array([[2, 0], [3, 0]])]
>>> a = [(0, 0), (0, 1), (0, 2), (1, 2), (2, 2), (3, 2), (3, 1), (2, 1), (1, 1), (1, 0)]
>>> routes = [np.array([y * 4 + x for x, y in a]), np.array([2, 3])]
>>> new, gained = shorten_wires(free, pins, routes)
>>> [len(r) - 1 for r in new], gained
([1, 1], 8)
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import numba
import numpy as np

from ..engines.cpu import grid_neighbour


@numba.njit(cache=True, nogil=True)
def _path(ok, w, h, src, dst, parent, queue):
    """The shortest path from ``src`` to ``dst`` over cells where ``ok`` (flat), as flat
    indices from ``src``; empty when there is none. ``parent`` is -1 everywhere before
    and after."""
    parent[src] = src
    queue[0] = src
    head, tail = 0, 1
    found = src == dst
    while head < tail and not found:
        v = queue[head]
        head += 1
        for k in range(4):                      # up, left, right, down
            u = grid_neighbour(v, k, w, h)
            if u >= 0 and ok[u] and parent[u] < 0:
                parent[u] = v
                queue[tail] = u
                tail += 1
                if u == dst:
                    found = True
                    break
    size = 0
    if found:
        v = dst
        size = 1
        while v != src:
            v = parent[v]
            size += 1
    out = np.empty(size, np.int64)
    if found:
        v = dst
        for i in range(size - 1, -1, -1):
            out[i] = v
            v = parent[v]
    for j in range(tail):
        parent[queue[j]] = -1
    return out


def _touching(owner: np.ndarray, w: int) -> list[tuple[int, int]]:
    """Pairs ``(a, b)``, ``a < b``, of nets whose wires hold neighbouring cells."""
    flat = owner.reshape(-1)
    across = np.arange(flat.size - 1) % w != w - 1
    a = np.concatenate([flat[:-1][across], flat[:-w]])
    b = np.concatenate([flat[1:][across], flat[w:]])
    keep = (a >= 0) & (b >= 0) & (a != b)
    pairs = np.unique(np.stack([np.minimum(a, b)[keep], np.maximum(a, b)[keep]], axis=1),
                      axis=0)
    return [(int(x), int(y)) for x, y in pairs]


def _groups(pairs: list[tuple[int, int]], size: int) -> list[tuple[int, ...]]:
    """Sets of ``size`` nets joined by touching (connected in the graph of ``pairs``),
    each as an ascending tuple, in ascending order."""
    near: dict[int, set[int]] = {}
    for a, b in pairs:
        near.setdefault(a, set()).add(b)
        near.setdefault(b, set()).add(a)
    groups = {tuple(p) for p in pairs}
    for _ in range(size - 2):
        groups = {tuple(sorted((*g, c))) for g in groups for m in g for c in near[m]
                  if c not in g}
    return sorted(groups)


def shorten_wires(free: np.ndarray, pins: Sequence[np.ndarray],
                  routes: Sequence[np.ndarray | None], group: int = 3,
                  max_passes: int = 50,
                  max_work: int = 1 << 28) -> tuple[list[np.ndarray | None], int]:
    """Shorter wires for the two-pin nets of a legal routing (see the module notes).

    Parameters
    ----------
    free : (H, W) bool, the cells a wire may use
    pins : per net, its two pins as rows ``x, y``
    routes : per net, its wire as flat cell indices from one pin to the other (None:
        unrouted, left so; its pins stay out of every other wire)
    group : most wires rerouted together: touching pairs, then (from 3) sets of that
        many wires joined by touching, in every order (``group!`` orders a set)
    max_passes : most rounds over the groups
    max_work : cells that the searches' windows may hold in all, each window counted
        once per order tried; past it no set is tried any more, so that the work on a
        big grid of long wires stays bounded (and the result deterministic)

    Returns
    -------
    The new routes (flat cell indices, from the first pin; unchanged wires are the same
    arrays) and the number of cells the wires lost in all.
    """
    h, w = free.shape
    if any(len(p) != 2 for p in pins):
        raise ValueError("shorten_wires takes two-pin nets only")
    routes = list(routes)
    owner = np.full(h * w, -1, np.int64)
    pin_of = np.full(h * w, -1, np.int64)
    ends = []
    for i, p in enumerate(pins):
        a, b = (int(y) * w + int(x) for x, y in np.asarray(p, np.int64))
        ends.append((a, b))
        pin_of[[a, b]] = i
        if routes[i] is not None:
            owner[routes[i]] = i
    open_cells = free.reshape(-1) & (pin_of < 0)
    parent = np.full(h * w, -1, np.int64)
    queue = np.empty(h * w, np.int64)
    gained = work = 0
    for _ in range(max_passes):
        before = gained
        for size in range(2, group + 1):
            for nets in _groups(_touching(owner.reshape(h, w), w), size):
                if work > max_work:
                    return routes, gained
                got, area = _reroute(nets, routes, owner, open_cells, ends, w, h, parent,
                                     queue)
                gained += got
                work += area * math.factorial(size)
        if gained == before:
            break
    return routes, gained


def _reroute(nets, routes, owner, open_cells, ends, w, h, parent,
             queue) -> tuple[int, int]:
    """Rip up ``nets`` and route them again, one after another, in the order that makes
    them shortest together, through their cells and the cells nobody uses within the
    box of their cells grown by half its longer side (room for a way round, and the
    work stays local on a big grid); keep that when shorter than before. Returns the
    cells gained and the window's area."""
    old = sum(routes[i].size for i in nets)
    cells = np.concatenate([routes[i] for i in nets])
    xs, ys = cells % w, cells // w
    x0, x1, y0, y1 = int(xs.min()), int(xs.max()) + 1, int(ys.min()), int(ys.max()) + 1
    grow = max(x1 - x0, y1 - y0) // 2 + 1
    x0, y0, x1, y1 = max(0, x0 - grow), max(0, y0 - grow), min(w, x1 + grow), min(h, y1 + grow)
    bw, bh = x1 - x0, y1 - y0
    region = (open_cells.reshape(h, w)[y0:y1, x0:x1]
              & (owner.reshape(h, w)[y0:y1, x0:x1] < 0)).reshape(-1)
    region[(ys - y0) * bw + xs - x0] = True

    def local(c):
        return (c // w - y0) * bw + c % w - x0

    pins = {i: [local(c) for c in ends[i]] for i in nets}
    best = None
    for order in itertools.permutations(nets):
        ok = region.copy()
        for i in nets:
            ok[pins[i]] = False
        got, total = {}, 0
        for i in order:
            ok[pins[i]] = True
            path = _path(ok, bw, bh, *pins[i], parent, queue)
            if not path.size:
                break
            ok[path] = False
            got[i] = path
            total += path.size
        if len(got) == len(nets) and total < (old if best is None else best[0]):
            best = (total, got)
    if best is None:
        return 0, bw * bh
    for i in nets:
        owner[routes[i]] = -1
    for i, path in best[1].items():
        routes[i] = (path // bw + y0) * w + path % bw + x0
        owner[routes[i]] = i
    return old - best[0], bw * bh


__all__ = ["shorten_wires"]
