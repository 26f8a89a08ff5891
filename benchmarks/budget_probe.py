"""Negotiation held to 50 iterations against the default iteration budget
(``PathFinderOptions.budget_after`` / ``budget_cells``), CPU engine, on puzzles no suite
holds.

Run from the repository root: ``PYTHONPATH=. python benchmarks/budget_probe.py [--sides
40 60 80 120] [--seeds 8] [--maps DIR] [--shared DIR]``. Puzzles: a random cover of an
N x N grid by paths (merged end to end, at most ``--max-len`` cells each); every path of
three cells or more is a net with its pins at the path's ends, so every puzzle has a
complete routing, and the cells of shorter paths stay empty (so the space-filling search,
which needs every cell on a wire, cannot complete them). ``--maps``: Moving AI maps with
random two-pin nets; ``--shared``: the numberlink files of a folder. Per case: nets
routed, complete layouts, iterations, wirelength and seconds for each setting, and how
many layouts got the same routes.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mazeroute.layout import Net, with_nets  # noqa: E402
from mazeroute.readers import load_layouts, parse_layout  # noqa: E402
from mazeroute.router import PathFinderOptions, route  # noqa: E402

SETTINGS = (("held to 50", PathFinderOptions(max_iterations=50)),
            ("budget", PathFinderOptions()))


def path_cover(w: int, h: int, seed: int, max_len: int) -> list[list[tuple[int, int]]]:
    """Paths covering every cell of a ``w`` x ``h`` grid, made by joining the ends of
    neighbouring paths at random (every cell starts as a path of its own)."""
    rng = random.Random(seed)
    paths = {i: [(i % w, i // w)] for i in range(w * h)}
    end = {p[0]: i for i, p in paths.items()}
    merged = True
    while merged:
        merged = False
        ids = list(paths)
        rng.shuffle(ids)
        for p in ids:
            if p not in paths or len(paths[p]) >= max_len:
                continue
            P = paths[p]
            e = rng.choice([P[0], P[-1]])
            around = [(e[0] + dx, e[1] + dy) for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1))]
            rng.shuffle(around)
            for n in around:
                q = end.get(n)
                if q is None or q == p or len(paths[q]) + len(P) > max_len:
                    continue
                Q = paths[q]
                joined = (P if P[-1] == e else P[::-1]) + (Q if Q[0] == n else Q[::-1])
                for c in (P[0], P[-1], Q[0], Q[-1]):
                    end.pop(c, None)
                del paths[q]
                paths[p] = joined
                end[joined[0]] = end[joined[-1]] = p
                merged = True
                break
    return list(paths.values())


def puzzle(side: int, seed: int, max_len: int):
    nets = [{"name": f"n{k}", "pins": [list(p[0]), list(p[-1])]}
            for k, p in enumerate(sorted((p for p in path_cover(side, side, seed, max_len)
                                          if len(p) >= 3), key=lambda p: p[0]))]
    return parse_layout({"name": f"cover{side}-{seed}", "width": side, "height": side,
                         "nets": nets})


def map_nets(base, count: int, span: int, rng):
    free = np.argwhere(~base.blocked)
    nets, used = [], set()
    for j in range(count):
        a = free[rng.integers(len(free))]
        near = free[np.abs(free - a).sum(1) <= span]
        b = near[rng.integers(len(near))]
        if (a == b).all() or tuple(a) in used or tuple(b) in used:
            continue
        used |= {tuple(a), tuple(b)}
        nets.append(Net(f"m{j}", [(int(a[1]), int(a[0])), (int(b[1]), int(b[0]))]))
    return with_nets(base, nets)


def compare(name: str, layouts: list) -> None:
    got = {}
    for label, options in SETTINGS:
        start = time.perf_counter()
        results = [route(lay, backend="cpu", mode="negotiate", options=options)
                   for lay in layouts]
        got[label] = (results, time.perf_counter() - start)
    line = f"{name}: {len(layouts)} layouts, {sum(len(x.nets) for x in layouts)} nets"
    for label, (results, took) in got.items():
        line += (f" | {label}: {sum(r.routed for r in results)} routed, "
                 f"{sum(r.routed == len(x.nets) for r, x in zip(results, layouts))} complete, "
                 f"{sum(len(r.iterations) for r in results)} iterations, wirelength "
                 f"{sum(n.length for r in results for n in r.nets if n.routed)}, {took:.2f} s")
    a, b = (got[label][0] for label, _ in SETTINGS)
    same = sum(x.to_json()["nets"] == y.to_json()["nets"] for x, y in zip(a, b))
    print(f"{line} | same routes {same}/{len(layouts)}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sides", type=int, nargs="+", default=[40, 60, 80, 120])
    ap.add_argument("--max-len", type=int, nargs="+", default=[10, 25])
    ap.add_argument("--seeds", type=int, default=8)
    ap.add_argument("--maps", type=Path, help="a folder of Moving AI maps")
    ap.add_argument("--shared", type=Path, help="a folder of numberlink files")
    args = ap.parse_args()
    route(puzzle(12, 0, 10), backend="cpu", mode="negotiate")      # compile first
    for side in args.sides:
        for max_len in args.max_len:
            compare(f"cover {side}^2, paths <= {max_len}",
                    [puzzle(side, 50_000 + 7 * s + side, max_len) for s in range(args.seeds)])
    rng = np.random.default_rng(11)
    for path in sorted(args.maps.glob("*.map")) if args.maps else []:
        base = load_layouts(path)[0]
        for count, span in ((60, 24), (200, 40), (400, 16), (1500, 12)):
            compare(f"{path.name}, {count} nets of span {span}",
                    [map_nets(base, count, span, rng)])
    for path in sorted(args.shared.glob("*.txt")) if args.shared else []:
        compare(path.name, load_layouts(path))


if __name__ == "__main__":
    main()
