"""The test oracles: a tiny, obviously-correct BFS and a weighted net router (Dijkstra).

Not used for routing."""

from __future__ import annotations

import heapq
from collections import deque

import numpy as np

from ..graph import CSRGraph
from .base import UNREACHED
from .weighted import DIST_MAX


def oracle_levels(graph: CSRGraph, sources, blocked=None) -> np.ndarray:
    """Textbook BFS over CSR in plain Python; ``blocked`` vertices are never entered.

    >>> from mazeroute.graph import fig15_1_graph
    >>> oracle_levels(fig15_1_graph(), [0]).tolist()
    [0, 1, 1, 2, 2, 2, 2, 2, 3]
    """
    n = graph.num_vertices
    srcPtrs, dst = graph.srcPtrs.tolist(), graph.dst.tolist()
    bad = set() if blocked is None else set(np.flatnonzero(blocked).tolist())
    level = [None] * n
    queue = deque()
    for s in sources:
        level[s] = 0
        queue.append(s)
    while queue:
        v = queue.popleft()
        for u in dst[srcPtrs[v]:srcPtrs[v + 1]]:
            if level[u] is None and u not in bad:
                level[u] = level[v] + 1
                queue.append(u)
    return np.array([UNREACHED if x is None else x for x in level], dtype=np.uint32)


def oracle_net_route(free, owner, cost, net: int, pins, box):
    """Weighted route of one net by the rules of :mod:`mazeroute.engines.weighted`, in
    plain Python: Dijkstra with :mod:`heapq` over the whole box, then the backtrace.

    ``free``, ``owner``, ``cost`` are ``(H, W)``; ``pins`` ``[(x, y), ...]``; ``box``
    ``(x0, y0, x1, y1)`` inclusive. Returns ``[(x, y), ...]`` or None.

    >>> import numpy as np
    >>> free = np.ones((2, 3), bool); owner = np.full((2, 3), -1)
    >>> cost = np.array([[1, 5, 1], [1, 1, 1]])
    >>> oracle_net_route(free, owner, cost, 0, [(0, 0), (2, 0)], (0, 0, 2, 1))
    [(0, 0), (0, 1), (1, 1), (2, 1), (2, 0)]
    """
    x0, y0, x1, y1 = box
    steps = ((0, -1), (-1, 0), (1, 0), (0, 1))      # up, left, right, down

    def passable(x, y):
        return (x0 <= x <= x1 and y0 <= y <= y1 and bool(free[y][x])
                and int(owner[y][x]) in (-1, net))

    tree = [tuple(pins[0])]
    remaining = [tuple(p) for p in pins[1:]]
    while remaining:
        dist = {c: 0 for c in tree}
        heap = [(0, c) for c in tree]
        while heap:
            d, (x, y) = heapq.heappop(heap)
            if d > dist[(x, y)]:
                continue
            for dx, dy in steps:
                n = (x + dx, y + dy)
                if passable(*n):
                    nd = d + int(cost[n[1]][n[0]])
                    if nd <= DIST_MAX and nd < dist.get(n, nd + 1):
                        dist[n] = nd
                        heapq.heappush(heap, (nd, n))
        reached = [p for p in remaining if p in dist]
        if not reached:
            return None
        target = min(reached, key=lambda p: dist[p])     # min keeps the first of equals
        remaining.remove(target)
        path, heading = [target], None
        while dist[path[-1]] != 0:
            x, y = path[-1]
            want = dist[(x, y)] - int(cost[y][x])
            order = ([heading] if heading is not None else []) + [0, 1, 2, 3]
            k = next(k for k in order if dist.get((x + steps[k][0], y + steps[k][1])) == want)
            heading = k
            path.append((x + steps[k][0], y + steps[k][1]))
        tree += path[-2::-1]
    return tree
