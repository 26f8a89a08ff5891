"""Negotiated routing (the default mode, CPU engine) on numberlink files that no suite
holds (negotiation's quality on puzzles nobody tuned for): puzzles complete, time, and for
each incomplete puzzle of up to ``--brute-cells`` cells an exhaustive search that says
whether it has a solution at all (a depth-first search over each net's simple paths in
turn, pins of other nets off limits; exact, so only for small grids).

Run from the repository root: ``PYTHONPATH=. python benchmarks/numberlink_heldout.py
FILE ... [--brute-cells N]``. The held-out files of RESULTS.md, "Held-out numberlink
puzzles", are the other puzzle files of the repository that the shared ones come from
(``../shared/data/SOURCES.md``: ``puzzles/inputs1`` .. ``inputs5``, ``inputs7``,
``inputs8``, ``janko``). ``--cut-paths SIDE:LO:HI ...``: also four puzzles each made by
cutting a random Hamiltonian path of a SIDE x SIDE grid (a boustrophedon shuffled by 20
backbite moves a cell) into pieces of LO-HI cells, each piece a net between its ends:
every such puzzle has a solution that fills the board, but its wires may run beside
themselves, which the space-filling search of ``router/fill.py`` excludes.
``--window-work N``: negotiation's ``PathFinderOptions.window_work`` (the exact windows of
``router/windows.py``; 0 turns them off), to compare the two on the same puzzles.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numba  # noqa: E402
import numpy as np  # noqa: E402

from mazeroute.readers import load_layouts, parse_layout  # noqa: E402
from mazeroute.router import PathFinderOptions, route  # noqa: E402


def solvable(lay) -> bool:
    """Whether every net can be connected at once, cells disjoint (exhaustive)."""
    w, h = lay.width, lay.height
    pins = {tuple(p) for net in lay.nets for p in net.pins}
    blocked = {(x, y) for y in range(h) for x in range(w) if lay.blocked[y, x]}
    nets = [tuple(tuple(p) for p in net.pins) for net in lay.nets]

    def solve(k: int, used: frozenset) -> bool:
        if k == len(nets):
            return True
        a, b = nets[k]

        def walk(c, seen) -> bool:
            if c == b:
                return solve(k + 1, used | seen)
            x, y = c
            for q in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
                if (0 <= q[0] < w and 0 <= q[1] < h and q not in seen and q not in used
                        and q not in blocked and (q not in pins or q == b)):
                    if walk(q, seen | {q}):
                        return True
            return False
        return walk(a, frozenset([a]))
    sys.setrecursionlimit(max(10_000, 4 * w * h))
    if any(len(n) != 2 for n in nets):
        raise ValueError("two-pin nets only")
    return solve(0, frozenset())


@numba.njit(cache=True)
def _backbite(path, pos, w, h, steps, seed):
    np.random.seed(seed)
    n = path.shape[0]
    for _ in range(steps):
        if np.random.random() < 0.5:                    # walk from the other end
            path[:] = path[::-1].copy()
            for k in range(n):
                pos[path[k]] = k
        x, y = path[n - 1] % w, path[n - 1] // w
        d = np.random.randint(4)
        x, y = x + (d == 0) - (d == 1), y + (d == 2) - (d == 3)
        if x < 0 or x >= w or y < 0 or y >= h:
            continue
        i = pos[y * w + x]
        if i == n - 2:
            continue
        a, b = i + 1, n - 1                              # reverse the tail after i
        while a < b:
            path[a], path[b] = path[b], path[a]
            a += 1
            b -= 1
        for k in range(i + 1, n):
            pos[path[k]] = k


def cut_path_puzzle(side: int, seed: int, lo: int, hi: int):
    """A random Hamiltonian path of the grid cut into pieces of ``lo``-``hi`` cells."""
    rows = [np.arange(y * side, (y + 1) * side)[::1 if y % 2 == 0 else -1]
            for y in range(side)]
    path = np.concatenate(rows).astype(np.int64)
    pos = np.empty(path.size, np.int64)
    pos[path] = np.arange(path.size)
    _backbite(path, pos, side, side, 20 * path.size, seed)
    rng = np.random.default_rng(seed + 99)
    nets, i = [], 0
    while i < path.size - 1:
        piece = path[i:i + int(rng.integers(lo, hi + 1))]
        i += piece.size
        if piece.size >= 2:
            ends = [[int(c % side), int(c // side)] for c in (piece[0], piece[-1])]
            nets.append({"name": f"n{len(nets)}", "pins": ends})
    return parse_layout({"name": f"cut{side}-{seed}", "width": side, "height": side,
                         "nets": nets})


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("files", nargs="*", type=Path)
    ap.add_argument("--cut-paths", nargs="*", default=[])
    ap.add_argument("--brute-cells", type=int, default=64)
    ap.add_argument("--window-work", type=int)
    args = ap.parse_args()
    options = None if args.window_work is None else PathFinderOptions(
        window_work=args.window_work)
    route(cut_path_puzzle(8, 0, 3, 9), backend="cpu")               # compile first
    sets = [(f.name, load_layouts(f)) for f in args.files]
    for spec in args.cut_paths:
        side, lo, hi = (int(v) for v in spec.split(":"))
        sets.append((f"cut paths {spec}", [cut_path_puzzle(side, s, lo, hi) for s in range(4)]))
    for name, lays in sets:
        start = time.perf_counter()
        complete, slowest, missed, routed = 0, 0.0, [], 0
        for k, lay in enumerate(lays):
            t0 = time.perf_counter()
            res = route(lay, backend="cpu", options=options)
            slowest = max(slowest, time.perf_counter() - t0)
            routed += res.routed
            if res.routed == len(lay.nets):
                complete += 1
                continue
            verdict = ("no solution" if not solvable(lay) else "SOLVABLE") \
                if lay.width * lay.height <= args.brute_cells else "not checked"
            missed.append(f"#{k} {lay.width}x{lay.height} {res.routed}/{len(lay.nets)} "
                          f"({verdict})")
        print(f"{name}: {complete} of {len(lays)} complete ({routed} of "
              f"{sum(len(lay.nets) for lay in lays)} nets) in "
              f"{time.perf_counter() - start:.1f} s (slowest {slowest:.2f} s)"
              + (f"; incomplete: {', '.join(missed)}" if missed else ""), flush=True)


if __name__ == "__main__":
    main()
