"""The 3-D test oracle: a tiny, obviously-correct Dijkstra over a layer stack, and the
list of every shortest path. Plain Python, for tests only; the rules are those of
:mod:`mazeroute.engines.grid3d`, written out again independently.

Examples
--------
>>> import numpy as np
>>> free = np.ones((2, 1, 3), bool)
>>> rules = dict(directions=["horizontal", "vertical"], via_cost=2)
>>> oracle_dist3d(free, [(0, 0, 0)], **rules).tolist()
[[[0, 1, 2]], [[2, 3, 4]]]
>>> oracle_paths3d(free, [(0, 0, 0)], (2, 0, 1), **rules)   # layer 1 cannot move along x
[[(2, 0, 1), (2, 0, 0), (1, 0, 0), (0, 0, 0)]]
>>> vias_and_bends(_[0])
(1, 0)
"""

from __future__ import annotations

import heapq

import numpy as np

from .base import UNREACHED
from .costs import DIST_MAX


def neighbours3d(free: np.ndarray, directions, via_sites: np.ndarray | None,
                 cell) -> list[tuple[tuple[int, int, int], bool]]:
    """The free cells one move from ``cell`` (itself free), each with "is it a via"."""
    x, y, z = cell
    layers, h, w = free.shape
    moves = []
    if directions[z] in ("vertical", "any"):
        moves += [(0, -1, 0), (0, 1, 0)]
    if directions[z] in ("horizontal", "any"):
        moves += [(-1, 0, 0), (1, 0, 0)]
    for dz, pair in ((-1, z - 1), (1, z)):
        # a 2-D mask holds between every pair; a 3-D one names the pair (lower layer)
        if via_sites is None or (via_sites[y][x] if np.ndim(via_sites) == 2
                                 else 0 <= pair < layers - 1 and via_sites[pair][y][x]):
            moves.append((0, 0, dz))
    out = []
    for dx, dy, dz in moves:
        nx, ny, nz = x + dx, y + dy, z + dz
        if 0 <= nx < w and 0 <= ny < h and 0 <= nz < layers and free[nz][ny][nx]:
            out.append(((nx, ny, nz), dz != 0))
    return out


def _price(cost, via_cost, cell, via) -> int:
    """What entering ``cell`` costs: its cost (1 without costs), times ``via_cost`` by via."""
    x, y, z = cell
    base = 1 if cost is None else int(cost[z][y][x])
    return base * via_cost if via else base


def oracle_dist3d(free: np.ndarray, sources, *, directions, via_cost: int = 1,
                  via_sites: np.ndarray | None = None,
                  cost: np.ndarray | None = None) -> np.ndarray:
    """Distances from ``sources`` to every cell (no early exit), ``UNREACHED`` where none
    or where the path costs more than ``DIST_MAX``."""
    free = np.asarray(free, bool)
    dist = {}
    heap = []
    for s in sources:
        s = tuple(int(c) for c in s)
        dist[s] = 0
        heap.append((0, s))
    heapq.heapify(heap)
    while heap:
        d, cell = heapq.heappop(heap)
        if d > dist[cell]:
            continue
        for n, via in neighbours3d(free, directions, via_sites, cell):
            nd = d + _price(cost, via_cost, n, via)
            if nd <= DIST_MAX and nd < dist.get(n, nd + 1):
                dist[n] = nd
                heapq.heappush(heap, (nd, n))
    out = np.full(free.shape, UNREACHED, np.uint32)
    for (x, y, z), d in dist.items():
        out[z, y, x] = d
    return out


def oracle_early3d(free: np.ndarray, sources, targets, **rules) -> np.ndarray:
    """What a search with ``targets`` returns: the distances up to the nearest target's,
    ``UNREACHED`` beyond (everything reached, when no target is)."""
    dist = oracle_dist3d(free, sources, **rules)
    reached = [int(dist[z, y, x]) for x, y, z in targets if dist[z, y, x] != UNREACHED]
    if reached:
        dist[dist > min(reached)] = UNREACHED
    return dist


def oracle_paths3d(free: np.ndarray, sources, target, *, directions, via_cost: int = 1,
                   via_sites: np.ndarray | None = None, cost: np.ndarray | None = None,
                   limit: int = 200_000) -> list[list[tuple[int, int, int]]]:
    """Every shortest path from a source to ``target``, each listed target first."""
    free = np.asarray(free, bool)
    dist = oracle_dist3d(free, sources, directions=directions, via_cost=via_cost,
                         via_sites=via_sites, cost=cost)
    x, y, z = target
    if dist[z, y, x] == UNREACHED:
        return []
    paths = []

    def walk(path):
        cell = path[-1]
        d = int(dist[cell[2], cell[1], cell[0]])
        if d == 0:
            paths.append(list(path))
            if len(paths) > limit:
                raise RuntimeError("too many shortest paths to list")
            return
        for n, via in neighbours3d(free, directions, via_sites, cell):
            dn = dist[n[2], n[1], n[0]]
            if dn != UNREACHED and int(dn) + _price(cost, via_cost, cell, via) == d:
                walk(path + [n])

    walk([tuple(int(c) for c in target)])
    return paths


def vias_and_bends(path) -> tuple[int, int]:
    """Vias of a path, and bends: consecutive in-layer steps along different directions."""
    moves = [tuple(int(b[i]) - int(a[i]) for i in range(3)) for a, b in zip(path, path[1:])]
    vias = sum(1 for m in moves if m[2] != 0)
    bends = sum(1 for a, b in zip(moves, moves[1:]) if a[2] == 0 and b[2] == 0 and a != b)
    return vias, bends
