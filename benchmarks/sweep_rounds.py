"""How many GAMER-style sweep rounds reach the exact BFS levels (issue 4 idea, CPU only).

Run from the repository root: ``PYTHONPATH=. python benchmarks/sweep_rounds.py [SIZE]
[CLASS]`` (default 1024 open). One round = a segmented min-plus scan along every row
(both directions: ``d[x] = min(d[x], d[x'] + |x - x'|)`` within runs of free cells), then
the same along every column. Prints the cells still wrong after each round, compared with
cpu/grid's levels from the benchmark's corner source. A GPU version would pay about one
pass over the grid per scan, so the round count bounds what full-grid sweeps could cost.
"""

from __future__ import annotations

import sys

import numpy as np

from mazeroute.bench import make_case
from mazeroute.engines import UNREACHED, make_problem
from mazeroute.graph import GridGraph

INF = 1 << 40


def scan_rows(d: np.ndarray, free: np.ndarray) -> np.ndarray:
    """One left-to-right and one right-to-left segmented min-plus scan of every row."""
    h, w = d.shape
    x = np.arange(w)[None, :]
    seg = np.cumsum(~free, axis=1) + np.arange(h)[:, None] * (w + 1)   # run ids
    big = 1 << 42          # shifts each run below (or above) every earlier one
    fwd = np.minimum.accumulate(np.where(free, d - x, INF) - seg * big, axis=1) + seg * big + x
    g = np.where(free, d + x, INF) + seg * big
    bwd = np.minimum.accumulate(g[:, ::-1], axis=1)[:, ::-1] - seg * big - x
    out = np.minimum(d, np.minimum(fwd, bwd))
    out[~free] = INF
    return out


def main(argv: list[str]) -> None:
    size = int(argv[0]) if argv else 1024
    case = make_case(argv[1] if len(argv) > 1 else "open", size)
    free = case.free
    ref = make_problem(GridGraph(free), "cpu", "grid").wavefront([case.source]).levels()
    ref = np.where(ref == UNREACHED, INF, ref.astype(np.int64))
    d = np.full(free.shape, INF, np.int64)
    d.flat[case.source] = 0
    for r in range(1, 10_000):
        d = scan_rows(d, free)
        d = scan_rows(d.T.copy(), free.T.copy()).T
        wrong = int((d != ref).sum())
        print(f"round {r}: {wrong} cells wrong", flush=True)
        if not wrong:
            break
    print(f"{case.name} {case.size}: {r} rounds, {int(ref[ref < INF].max())} levels")


if __name__ == "__main__":
    main(sys.argv[1:])
