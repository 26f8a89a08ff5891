"""Negotiation with and without one of its stops (CPU engine unless ``--backend``), on
layouts no suite generates and on the negotiate suite's: nets routed, iterations, seconds, and
whether the routes are the same. ``--stop diverge`` (the default): the divergence stop
(``PathFinderOptions.diverge_factor``); ``--stop kept``: the plateau of the nets it
would keep (``kept_iterations``).

Run from the repository root: ``PYTHONPATH=. python benchmarks/diverge_probe.py [--stop
diverge|kept] [--backend cpu|gpu|auto] [--only SETS] [--verbose] [--numberlink FILE ...]
[--no-big] [--heldout SET ...]``. Sets: the
numberlink files given (e.g. the shared ones and the held-out ones of
``numberlink_heldout.py``), puzzles cut from Hamiltonian paths, the Moving AI maps of
``maps/`` with random nets (local and anywhere), eight classes at 300^2 with three net
mixes (seed 5, no suite's), the negotiate suite's 1024^2 layout of 4000 nets (``--no-big`` leaves
it out); ``--heldout``: also the layouts of ``auto_routing_heldout.py``'s sets (maps
tiled and cropped, four classes at 300-800, their net mixes) of at least 65,536 cells.
A set whose routes differ lists its layouts that changed: (routed, iterations, seconds)
without the stop, then with it.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from budget_probe import map_nets  # noqa: E402
from numberlink_heldout import cut_path_puzzle  # noqa: E402

from mazeroute.generate import class_mask, random_layout, random_nets  # noqa: E402
from mazeroute.layout import Layout  # noqa: E402
from mazeroute.readers import load_layouts, read_movingai  # noqa: E402
from mazeroute.router import PathFinderOptions, route  # noqa: E402

CLASSES = ("open:0.25", "dense:0.3", "maze:0.05", "maze:0.2", "maze:0", "wired:2",
           "serpentine:2", "spiral:4")


def sets(numberlink: list[Path], big: bool) -> list[tuple[str, list[Layout]]]:
    out = [(f.name, load_layouts(f)) for f in numberlink]
    out.append(("cut paths", [cut_path_puzzle(s, k, lo, hi) for s, lo, hi in
                              ((60, 3, 40), (100, 4, 60)) for k in range(4)]))
    rng = np.random.default_rng(11)
    maps = Path(__file__).resolve().parent / "maps"
    out.append(("maps", [map_nets(read_movingai(m), count, span, rng)
                         for m in sorted(maps.glob("*.map"))
                         for count, span in ((100, 40), (400, 40), (150, 10000))]))
    lays = []
    for c in CLASSES:
        b = class_mask(c, 300, 7)
        for n, span, pins in ((150, None, 2), (600, 48, 2), (80, 80, 4)):
            lay = Layout(f"{c}-{n}", 300, 300, [], [], b)
            lay.nets = random_nets(b, n, pins, np.random.default_rng(5), span=span)
            lays.append(lay)
    out.append(("classes 300^2", lays))
    if big:
        out.append(("rects 1024^2 4000 nets", [random_layout(
            1024, 1024, density=0.25, nets=4000, pins=2, seed=1, span=64)]))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--numberlink", nargs="*", type=Path, default=[])
    ap.add_argument("--no-big", action="store_true")
    ap.add_argument("--stop", choices=("diverge", "kept"), default="diverge")
    ap.add_argument("--heldout", type=int, nargs="*", default=[])
    ap.add_argument("--backend", default="cpu", choices=["cpu", "gpu", "auto"])
    ap.add_argument("--verbose", action="store_true",
                    help="a line per layout and arm as it ends")
    ap.add_argument("--only", default=None,
                    help="comma list of sets to run (by name) or of name parts that "
                         "the layouts to run must contain (e.g. ':any')")
    args = ap.parse_args()
    off = {"diverge": {"diverge_factor": None}, "kept": {"kept_iterations": None}}
    arms = (("off", PathFinderOptions(**off[args.stop])), ("on", PathFinderOptions()))
    todo = sets(args.numberlink, not args.no_big)
    for s in args.heldout:
        from auto_routing_heldout import layouts
        todo.append((f"held-out set {s}",
                     [lay for lay in layouts(s) if lay.width * lay.height >= 1 << 16]))
    if args.only:
        keys = args.only.split(",")
        todo = [(n, lays if n in keys else [lay for lay in lays
                                             if any(k in lay.name for k in keys)])
                for n, lays in todo]
        todo = [(n, lays) for n, lays in todo if lays]
    for name, lays in todo:
        total, per = {}, {}
        for label, opt in arms:
            digest, start, per[label] = hashlib.sha256(), time.perf_counter(), []
            for lay in lays:
                t0 = time.perf_counter()
                res = route(lay, backend=args.backend, mode="negotiate", options=opt)
                digest.update(json.dumps(res.to_json()["nets"], sort_keys=True).encode())
                per[label].append((res.routed, len(res.iterations),
                                   round(time.perf_counter() - t0, 2)))
                if args.verbose:
                    print(f"  {lay.name} {label}: {per[label][-1]}", flush=True)
            total[label] = (sum(p[0] for p in per[label]), sum(p[1] for p in per[label]),
                            round(time.perf_counter() - start, 1), digest.hexdigest())
        same = total["on"][3] == total["off"][3]
        changed = [(lays[i].name, a, b) for i, (a, b) in enumerate(zip(per["off"], per["on"]))
                   if a[:2] != b[:2]]
        print(f"{name} ({len(lays)} layouts): routed, iterations, seconds without the stop "
              f"{total['off'][:3]}, with it {total['on'][:3]}; "
              + ("same routes" if same else f"changed: {changed}"), flush=True)


if __name__ == "__main__":
    main()
