"""Negotiation on held-out layout families: the measuring stick for a new schedule.

Usage (from the repository root)::

    python benchmarks/negotiate_families.py [--families LIST] [--seeds 8]
        [--backend cpu|gpu] [--option NAME=VALUE ...] [--jsonl FILE]

Seven families, none of them a suite's or a target's, each on ``--seeds`` seeds (the
seed draws the layout where the family has one, and always the nets):

* ``map``: the shared Moving AI maps at their own size (the seed picks the map), 150
  two-pin nets of span 60 whose pins share a connected region;
* ``maze-loops``: ``class_mask("maze:0.05", 255)``, 60 two-pin nets of span 60;
* ``kruskal``: ``kruskal_maze_mask(255, 255, 0.1)`` (a uniform spanning tree of rooms
  with 10 % of the other walls removed), 60 two-pin nets of span 60;
* ``rooms``: ``kruskal_maze_mask(256, 256, 0.1, corridor=8)``, 150 nets of 2-3 pins,
  span 60;
* ``winding``: ``serpentine:12`` on even seeds, ``spiral:4`` on odd ones, at 256, 100
  two-pin nets of span 60;
* ``wired``: ``class_mask("wired:2", 256)``, 150 two-pin nets of span 40;
* ``puzzles``: numberlink puzzles cut from random Hamiltonian paths of a 24 x 24 grid
  into pieces of 3-12 cells (``numberlink_heldout.cut_path_puzzle``): a complete
  routing exists.

Each layout is routed sequentially and negotiated (default options, or those of
``--option``, e.g. ``--option snapshot_nets=4``) on one backend. One line of JSON a
layout (nets, nets routed by each mode, iterations, the negotiation's seconds, of
them the loop's and each phase's after it, the weighted engine's calls during it, which
a device waits on one after another, and of those the PathFinder loop's (a batch of a
pass with the loop's state on the device counts as one), the contract checker's
findings and a digest of the
wires), then a table a family: layouts, nets, routed by each mode, calls and seconds
summed. Comparing two schedules: run this twice with their options and set the
families' routed nets side by side.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import scipy.ndimage

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from mazeroute import engines  # noqa: E402
from mazeroute.contract import check_routes  # noqa: E402
from mazeroute.engines import weighted  # noqa: E402
from mazeroute.generate import class_mask, kruskal_maze_mask, random_nets  # noqa: E402
from mazeroute.layout import Layout  # noqa: E402
from mazeroute.readers import load_layouts  # noqa: E402
from mazeroute.router import PathFinderOptions, route  # noqa: E402

MAPS = ROOT.parent / "shared" / "data" / "movingai"


def _layout(name: str, blocked: np.ndarray, mix: list[tuple[int, int, int]], seed: int,
            regions: bool = False) -> Layout:
    """``blocked`` with nets of ``mix`` (count, pins, span) drawn with ``seed``."""
    rng = np.random.default_rng(seed + 1000)
    label = scipy.ndimage.label(~blocked)[0] if regions else None
    nets = []
    for k, (count, pins, span) in enumerate(mix):
        nets += random_nets(blocked | _taken(nets, blocked.shape), count, pins, rng,
                            prefix=f"{'abc'[k]}", span=span, regions=label)
    h, w = blocked.shape
    return Layout(f"{name}-{seed}", w, h, nets=nets, blocked=blocked)


def _taken(nets, shape) -> np.ndarray:
    """The cells the nets drawn so far hold as pins."""
    taken = np.zeros(shape, bool)
    for n in nets:
        for x, y in n.pins:
            taken[y, x] = True
    return taken


def _map(seed: int) -> Layout:
    maps = sorted(MAPS.glob("*.map"))
    blocked = load_layouts(maps[seed % len(maps)])[0].blocked
    return _layout(maps[seed % len(maps)].stem, blocked, [(150, 2, 60)], seed, regions=True)


def _puzzle(seed: int) -> Layout:
    from numberlink_heldout import cut_path_puzzle

    return cut_path_puzzle(24, seed, 3, 12)


FAMILIES: dict[str, Callable[[int], Layout]] = {
    "map": _map,
    "maze-loops": lambda s: _layout("maze-loops", class_mask("maze:0.05", 255, s),
                                    [(60, 2, 60)], s, regions=True),
    "kruskal": lambda s: _layout("kruskal", kruskal_maze_mask(255, 255, 0.1, 1, s),
                                 [(60, 2, 60)], s, regions=True),
    "rooms": lambda s: _layout("rooms", kruskal_maze_mask(256, 256, 0.1, 8, s),
                               [(100, 2, 60), (50, 3, 60)], s, regions=True),
    "winding": lambda s: _layout("winding", class_mask(
        "serpentine:12" if s % 2 == 0 else "spiral:4", 256, s), [(100, 2, 60)], s,
        regions=True),
    "wired": lambda s: _layout("wired", class_mask("wired:2", 256, s), [(150, 2, 40)], s,
                               regions=True),
    "puzzles": _puzzle,
}


def _counted(calls: list[int]) -> Callable[[], None]:
    """Count the weighted engines' calls (CPU and GPU; a batch of a pass with the
    state on the device counts as one) until the returned undo runs."""
    saved = []
    for cls in weighted.NetSearch.__subclasses__():
        plain = cls.route

        def counting(self, *a, _plain=plain, **k):
            calls[0] += 1
            return _plain(self, *a, **k)
        saved.append((cls, "route", plain))
        cls.route = counting
        if hasattr(cls, "state_pass"):
            plain_pass = cls.state_pass

            def passing(self, packed, bounds, *a, _plain=plain_pass, **k):
                calls[0] += int(np.count_nonzero(np.diff(bounds)))
                return _plain(self, packed, bounds, *a, **k)
            saved.append((cls, "state_pass", plain_pass))
            cls.state_pass = passing

    def undo() -> None:
        for cls, name, plain in saved:
            setattr(cls, name, plain)
    return undo


def measure(lay: Layout, backend: str, options: PathFinderOptions) -> dict:
    """One layout: sequential, then negotiated with ``options``, on ``backend``."""
    from mazeroute.router.negotiate import Negotiator

    seq = route(lay, backend=backend, mode="sequential")
    calls, in_loop = [0], [0]
    undo = _counted(calls)
    plain = Negotiator.negotiate

    def negotiate(self, *a, **k):
        before = calls[0]
        try:
            return plain(self, *a, **k)
        finally:
            in_loop[0] += calls[0] - before
    Negotiator.negotiate = negotiate
    try:
        start = time.perf_counter()
        res = route(lay, backend=backend, mode="negotiate", options=options)
        seconds = time.perf_counter() - start
    finally:
        undo()
        Negotiator.negotiate = plain
    wires = hashlib.sha256()
    for n in res.nets:
        wires.update(np.asarray(n.cells if n.routed else [], np.int64).tobytes() + b"|")
    return dict(layout=lay.name, nets=len(lay.nets), sequential=seq.routed,
                negotiated=res.routed, iterations=len(res.iterations or []),
                seconds=round(seconds, 3),
                loop=round(sum(s.seconds for s in res.iterations or []), 3),
                phases={p.phase: round(p.seconds, 3) for p in res.phases or []},
                calls=calls[0], loop_calls=in_loop[0],
                contract=len(check_routes(lay, res.to_json())),
                digest=wires.hexdigest()[:16])


def _option(text: str) -> tuple[str, object]:
    name, _, value = text.partition("=")
    if value.lower() in ("true", "false"):
        return name, value.lower() == "true"
    for kind in (int, float):
        try:
            return name, kind(value)
        except ValueError:
            pass
    return name, value


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--families", default=",".join(FAMILIES))
    ap.add_argument("--seeds", type=int, default=8)
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("--option", action="append", default=[], metavar="NAME=VALUE")
    ap.add_argument("--jsonl", metavar="FILE", help="also append each layout's line here")
    args = ap.parse_args()
    options = PathFinderOptions(**dict(_option(o) for o in args.option))
    names = [f for f in args.families.split(",") if f]
    unknown = [f for f in names if f not in FAMILIES]
    if unknown:
        ap.error(f"unknown family {unknown[0]}; choose from {', '.join(FAMILIES)}")
    # compile first, on every engine the backend may take and on the planner's
    # features (auto's first layout paid the GPU's and the features' compiles before)
    warm = [args.backend] if args.backend != "auto" else ["cpu", "auto"] + (
        ["gpu"] if engines.gpu_available() else [])
    for b in warm:
        route(FAMILIES["puzzles"](0), backend=b)
        route(FAMILIES["wired"](args.seeds), backend=b, mode="negotiate")
    rows: dict[str, list[dict]] = {f: [] for f in names}
    for family in names:
        for seed in range(args.seeds):
            row = dict(family=family, seed=seed,
                       **measure(FAMILIES[family](seed), args.backend, options))
            rows[family].append(row)
            line = json.dumps(row)
            print(line, flush=True)
            if args.jsonl:
                with open(args.jsonl, "a") as f:
                    f.write(line + "\n")
    print(f"\n| family | layouts | nets | sequential | negotiated | calls | in the loop | "
          f"seconds | findings |  (backend {args.backend}, options "
          f"{args.option or 'default'})")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    keys = ("nets", "sequential", "negotiated", "calls", "loop_calls", "seconds", "contract")
    for family, got in rows.items():
        t = {k: sum(r[k] for r in got) for k in keys}
        print(f"| {family} | {len(got)} | {t['nets']} | {t['sequential']} | "
              f"{t['negotiated']} | {t['calls']} | {t['loop_calls']} | {t['seconds']:.1f} | "
              f"{t['contract']} |")


if __name__ == "__main__":
    main()
