"""Critical path of a tiled relaxation whose tile visit reaches the tile's own fixpoint.

Issue 4, target a2 (CPU only). Run from the repository root: ``PYTHONPATH=. python
benchmarks/tile_rounds.py [SIZE] [CLASS]`` (default 4096 open). gpu/grid steps a tile
level by level (~600 cycles a level on an H100), so its time follows the number of
levels. If a visit instead settled its whole 64 x 32 tile at once (row and column sweeps
in shared memory, a few thousand cycles), the time would follow the number of rounds of
tile visits. This simulates that schedule synchronously: in each round every tile whose
halo changed takes its neighbours' values from the start of the round and relaxes to its
local fixpoint; a changed edge wakes the neighbour on that side. A tile settles either by raster
sweep pairs (top-left to bottom-right and back) or GAMER-style (every row both ways, then
every column both ways). It prints the rounds (the critical path in visits), the visits in
all, the passes per visit, and checks the result against cpu/grid's levels.
"""

from __future__ import annotations

import sys

import numba
import numpy as np

from mazeroute.bench import make_case
from mazeroute.engines import UNREACHED, make_problem
from mazeroute.graph import GridGraph

INF = np.int32(1 << 30)
TW, TH = 64, 32


@numba.njit(cache=True)
def _settle(d, old, free, y0, y1, x0, x1):
    """Relax tile [y0, y1) x [x0, x1) to its fixpoint, halo read from ``old``. Returns the
    number of raster sweeps and whether each edge (top, bottom, left, right) changed."""
    _seed_halo(d, old, free, y0, y1, x0, x1)
    sweeps = 0
    changed = True
    while changed:
        changed = False
        sweeps += 1
        for y in range(y0, y1):
            for x in range(x0, x1):
                if free[y, x]:
                    v = d[y, x]
                    if y > y0 and d[y - 1, x] + 1 < v:
                        v = d[y - 1, x] + 1
                    if x > x0 and d[y, x - 1] + 1 < v:
                        v = d[y, x - 1] + 1
                    if v < d[y, x]:
                        d[y, x] = v
                        changed = True
        for y in range(y1 - 1, y0 - 1, -1):
            for x in range(x1 - 1, x0 - 1, -1):
                if free[y, x]:
                    v = d[y, x]
                    if y < y1 - 1 and d[y + 1, x] + 1 < v:
                        v = d[y + 1, x] + 1
                    if x < x1 - 1 and d[y, x + 1] + 1 < v:
                        v = d[y, x + 1] + 1
                    if v < d[y, x]:
                        d[y, x] = v
                        changed = True
    return sweeps, _edges(d, old, y0, y1, x0, x1)


@numba.njit(cache=True)
def _edges(d, old, y0, y1, x0, x1):
    """Whether the tile's top, bottom, left and right edges changed."""
    edges = np.zeros(4, np.bool_)
    for x in range(x0, x1):
        edges[0] |= d[y0, x] != old[y0, x]
        edges[1] |= d[y1 - 1, x] != old[y1 - 1, x]
    for y in range(y0, y1):
        edges[2] |= d[y, x0] != old[y, x0]
        edges[3] |= d[y, x1 - 1] != old[y, x1 - 1]
    return edges


@numba.njit(cache=True)
def _settle_scans(d, old, free, y0, y1, x0, x1):
    """The same fixpoint by GAMER-style scans: every row both ways (one lane a row on a
    GPU), then every column both ways (one lane a column), until a round changes nothing.
    Returns the rounds (the last one changes nothing) and the changed edges."""
    _seed_halo(d, old, free, y0, y1, x0, x1)
    rounds = 0
    changed = True
    while changed:
        changed = False
        rounds += 1
        for y in range(y0, y1):
            for x in range(x0 + 1, x1):
                if free[y, x] and free[y, x - 1] and d[y, x - 1] + 1 < d[y, x]:
                    d[y, x] = d[y, x - 1] + 1
                    changed = True
            for x in range(x1 - 2, x0 - 1, -1):
                if free[y, x] and free[y, x + 1] and d[y, x + 1] + 1 < d[y, x]:
                    d[y, x] = d[y, x + 1] + 1
                    changed = True
        for x in range(x0, x1):
            for y in range(y0 + 1, y1):
                if free[y, x] and free[y - 1, x] and d[y - 1, x] + 1 < d[y, x]:
                    d[y, x] = d[y - 1, x] + 1
                    changed = True
            for y in range(y1 - 2, y0 - 1, -1):
                if free[y, x] and free[y + 1, x] and d[y + 1, x] + 1 < d[y, x]:
                    d[y, x] = d[y + 1, x] + 1
                    changed = True
    return rounds, _edges(d, old, y0, y1, x0, x1)


@numba.njit(cache=True)
def _seed_halo(d, old, free, y0, y1, x0, x1):
    """Edge cells take the neighbouring tiles' values (as of the round's start) + 1."""
    h, w = d.shape
    for y in range(y0, y1):
        for x in range(x0, x1):
            if not free[y, x]:
                continue
            v = d[y, x]
            if y == y0 and y > 0 and free[y - 1, x]:
                v = min(v, old[y - 1, x] + 1)
            if y == y1 - 1 and y + 1 < h and free[y + 1, x]:
                v = min(v, old[y + 1, x] + 1)
            if x == x0 and x > 0 and free[y, x - 1]:
                v = min(v, old[y, x - 1] + 1)
            if x == x1 - 1 and x + 1 < w and free[y, x + 1]:
                v = min(v, old[y, x + 1] + 1)
            d[y, x] = v


@numba.njit(cache=True)
def simulate(free, source, scans):
    h, w = free.shape
    ty, tx = (h + TH - 1) // TH, (w + TW - 1) // TW
    d = np.full((h, w), INF, np.int32)
    d[source // w, source % w] = 0
    active = np.zeros((ty, tx), np.bool_)
    active[(source // w) // TH, (source % w) // TW] = True
    rounds = visits = sweeps = 0
    while active.any():
        rounds += 1
        old = d.copy()
        nxt = np.zeros((ty, tx), np.bool_)
        for j in range(ty):
            for i in range(tx):
                if not active[j, i]:
                    continue
                visits += 1
                y0, y1, x0, x1 = j * TH, min(h, j * TH + TH), i * TW, min(w, i * TW + TW)
                if scans:
                    s, e = _settle_scans(d, old, free, y0, y1, x0, x1)
                else:
                    s, e = _settle(d, old, free, y0, y1, x0, x1)
                sweeps += s
                if e[0] and j > 0:
                    nxt[j - 1, i] = True
                if e[1] and j + 1 < ty:
                    nxt[j + 1, i] = True
                if e[2] and i > 0:
                    nxt[j, i - 1] = True
                if e[3] and i + 1 < tx:
                    nxt[j, i + 1] = True
        active = nxt
    return d, rounds, visits, sweeps


def main(argv: list[str]) -> None:
    size = int(argv[0]) if argv else 4096
    case = make_case(argv[1] if len(argv) > 1 else "open", size)
    ref = make_problem(GridGraph(case.free), "cpu", "grid").wavefront([case.source]).levels()
    tiles = -(-case.free.shape[0] // TH) * -(-case.free.shape[1] // TW)
    print(f"{case.name} {case.size}: {int(ref[ref != UNREACHED].max())} levels")
    for scans, what in ((False, "raster sweep pairs"), (True, "row+column scan rounds")):
        d, rounds, visits, passes = simulate(case.free, case.source, scans)
        got = np.where(d >= INF, UNREACHED, d).astype(np.uint32)
        got[~case.free] = UNREACHED
        print(f"  {what:>22}: {rounds} rounds, {visits} visits ({visits / tiles:.1f} per "
              f"tile), {passes / max(1, visits):.2f} per visit (the last changes nothing), "
              f"levels {'equal' if np.array_equal(got, ref) else 'WRONG'}")


if __name__ == "__main__":
    main(sys.argv[1:])
