"""Sequential routing under ``auto`` against the faster backend on layouts no suite
generates (the aim: auto never more than 1.2x slower than the best engine).

Thirteen sets, each with its own seed, layouts and net mixes, so that a rule chosen on
some can be checked on the others:

1. the Moving AI maps at their size and tiled 2-4x; nets: ``150 t`` two-pin nets of
   span ``60 t`` (t tiles), local two-pin nets, pins anywhere, four-pin nets; plus the
   first three puzzles of each shared numberlink file; seed 43;
2. the maps tiled 1-3x and the classes ``open:0.25``, ``dense:0.45``, ``wired:1``,
   ``maze:0.1`` at 300-600 cells a side; spans 100 and 32, three-pin nets, anywhere;
   seed 47;
3. cropped tilings of the maps and ``open:0.1``, ``dense:0.3``, ``wired:3``, ``maze:0.3``
   at 350-640; spans 40 and 150, five-pin nets, anywhere; seed 53;
4. other crops and ``open:0.4``, ``dense:0.2``, ``wired:2``, ``maze:0.2`` at 400-800;
   spans 60 and 120, four- and six-pin nets, anywhere; seed 59;
5. mazes that ``class_mask`` does not make (``kruskal:LOOPS:WIDTH``,
   :func:`~mazeroute.generate.kruskal_maze_mask`: a uniform spanning tree of rooms, short
   dead ends) with 2-30 % loops, corridors 1 and 2 wide, at 511 and 1023; spans 60 and
   150, four-pin nets, anywhere; seed 71 (added after every maze rule was chosen; the
   evidence for the span rule for mazes, and with set 6 and the maze probe the data the
   rule ``maze_span_line`` was fitted on);
6. the check of that rule's first form, made after it: Kruskal mazes with 5 and 20 %
   loops and ``maze:0.15``, ``maze:0.25`` at 380 and 700; spans 50 and 200, three-pin
   nets, anywhere; seed 73 (it failed the check and moved the line);
7. the check of the span rule's second form (with set 8, the check of
   ``maze_span_line``): Kruskal mazes with 10 and 40 % loops and ``maze:0.12``,
   ``maze:0.18`` at 330 and 600; spans 80 and 250, four-pin nets, anywhere; seed 79;
8. mazes of fewer free cells than ``min_gpu_cells`` on grids of more cells (whose
   features the maze rules read too): Kruskal mazes with 8 and 30 % loops, ``maze:0.2``
   and ``maze:0.1`` at 280 and 320; spans 60 and 200, four-pin nets, anywhere; seed 83;
9. the check of the maze line ``maze_span_line``, made before it was measured: Kruskal
   mazes with 3 and 15 % loops, ``maze:0.01`` and ``maze:0.3`` at 450 and 900; spans 100
   and 300, three-pin nets, anywhere; seed 89;
10. the check of ``maze_spanning`` (nets spanning most of a maze go by its size),
    made before it was measured: Kruskal mazes with 1 and 25 % loops, ``maze:0.005``
    and ``maze:0.15`` at 560 and 760 (either side of ``maze_spanning_cells``); spans
    120 and 350, three-pin nets, anywhere; seed 97;
11. the check of a refit of the grid rule, made before it was measured: ``dense:0.35``,
    ``dense:0.25``, ``open:0.2`` and ``wired:1.5`` at 330, 520 and 720; spans 80 and 200,
    six-pin nets of span 300, anywhere; seed 101.
    It kept ``dense_wall`` and ``gpu_cells_per_span_dense``, and showed long trees
    faster on the CPU (the refit had dropped ``tree_span``), so that with set 4 it is
    now the evidence for ``tree_span``;
12. the check of ``tree_span`` at its value, made before it was measured: ``open:0.3``,
    ``dense:0.3`` and ``wired:2.5`` at 450 and 650; four-pin nets of span 150, six-pin
    of span 200, eight-pin of span 260, two-pin of span 90; seed 103.
13. the check of the maze line's refit after the CPU router's backtraces stopped
    copying their levels (``maze_span_line``, ``min_maze_loops``,
    ``maze_spanning_cells``, fitted on the maze probe and sets 5-6), made before it was
    measured: Kruskal mazes with 0.4 and 6 % loops,
    ``maze:0.003`` and ``maze:0.08`` at 420 and 1100; spans 70 and 220, three-pin nets,
    anywhere; seed 107.

Run on a GPU machine from the repository root: ``PYTHONPATH=. python
benchmarks/auto_routing_heldout.py SET... [--rounds K] [--numberlink DIR]``. Per
layout, after one warm-up each, ``Router(layout, b).run()`` for ``cpu``, ``gpu`` and
``auto`` taking turns, K rounds (default 5): medians in ms, CPU over GPU, auto's pick
and auto over the faster backend; then the count over 1.2x. ``--picks-only`` (no GPU
needed) prints each layout's features and the routing rule's pick
(:func:`mazeroute.plan.decide.routing_prefers_cpu` under ``DEFAULT_RULES``) without
routing. ``--mode negotiate``: the default mode instead (``Negotiator(layout,
b).run()``, whose auto asks :func:`~mazeroute.plan.decide.negotiation_prefers_cpu`);
``--mixes TAG ...``
keeps only those net mixes (negotiation of nets with pins anywhere takes seconds),
``--layouts MASK ...`` only those masks (the names before ``:mix``).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

from mazeroute.generate import (  # noqa: E402
    class_mask,
    kruskal_maze_mask,
    random_nets,
    tile_mask,
)
from mazeroute.layout import Layout  # noqa: E402
from mazeroute.plan import Measure  # noqa: E402
from mazeroute.plan.decide import routing_prefers_cpu  # noqa: E402
from mazeroute.readers import load_layouts, read_movingai  # noqa: E402

HERE = Path(__file__).resolve().parent
MAPS = sorted((HERE / "maps").glob("*.map"))

# per set: seed, map tilings (times, crop rows x cols or None), classes, sides, mixes
# (tag, nets per free cell or a function of the tiling, pins, span)
SETS = {
    1: (43, [(t, None) for t in (1, 2, 3, 4)], (), (),
        [("m1", None, 2, "60t"), ("loc", 1000, 2, 64), ("any", 4000, 2, None),
         ("mp4", 4000, 4, 64)]),
    2: (47, [(t, None) for t in (1, 2, 3)], ("open:0.25", "dense:0.45", "wired:1", "maze:0.1"),
        (300, 450, 600),
        [("s100", 1500, 2, 100), ("d32", 400, 2, 32), ("mp3", 2000, 3, 48),
         ("any", 3000, 2, None)]),
    3: (53, [(2, (700, 380)), (3, (900, 1200)), (4, (640, 1500))],
        ("open:0.1", "dense:0.3", "wired:3", "maze:0.3"), (350, 520, 640),
        [("s40", 800, 2, 40), ("s150", 3000, 2, 150), ("mp5", 3000, 5, 60),
         ("any", 5000, 2, None)]),
    4: (59, [(2, (500, 600)), (3, (700, 1000)), (5, (1300, 1300))],
        ("open:0.4", "dense:0.2", "wired:2", "maze:0.2"), (400, 560, 800),
        [("s60", 1200, 2, 60), ("s120", 2500, 2, 120), ("mp4", 2500, 4, 80),
         ("mp6", 4000, 6, 100), ("any", 4000, 2, None)]),
    5: (71, [], ("kruskal:0.02:1", "kruskal:0.1:1", "kruskal:0.3:1", "kruskal:0.05:2"),
        (511, 1023),
        [("s60", 1500, 2, 60), ("s150", 3000, 2, 150), ("mp4", 3000, 4, 60),
         ("any", 4000, 2, None)]),
    6: (73, [], ("kruskal:0.05:1", "kruskal:0.2:1", "maze:0.15", "maze:0.25"), (380, 700),
        [("s50", 1500, 2, 50), ("s200", 3000, 2, 200), ("mp3", 3000, 3, 80),
         ("any", 4000, 2, None)]),
    7: (79, [], ("kruskal:0.1:1", "kruskal:0.4:1", "maze:0.12", "maze:0.18"), (330, 600),
        [("s80", 1500, 2, 80), ("s250", 3000, 2, 250), ("mp4", 3000, 4, 70),
         ("any", 4000, 2, None)]),
    8: (83, [], ("kruskal:0.08:1", "kruskal:0.3:1", "maze:0.2", "maze:0.1"), (280, 320),
        [("s60", 1200, 2, 60), ("s200", 2500, 2, 200), ("mp4", 2500, 4, 70),
         ("any", 4000, 2, None)]),
    9: (89, [], ("kruskal:0.03:1", "kruskal:0.15:1", "maze:0.01", "maze:0.3"), (450, 900),
        [("s100", 1500, 2, 100), ("s300", 3000, 2, 300), ("mp3", 3000, 3, 90),
         ("any", 4000, 2, None)]),
    10: (97, [], ("kruskal:0.01:1", "kruskal:0.25:1", "maze:0.005", "maze:0.15"), (560, 760),
         [("s120", 1500, 2, 120), ("s350", 3000, 2, 350), ("mp3", 3000, 3, 100),
          ("any", 4000, 2, None)]),
    11: (101, [], ("dense:0.35", "dense:0.25", "open:0.2", "wired:1.5"), (330, 520, 720),
         [("s80", 1500, 2, 80), ("s200", 3000, 2, 200), ("mp6", 4000, 6, 300),
          ("any", 4000, 2, None)]),
    12: (103, [], ("open:0.3", "dense:0.3", "wired:2.5"), (450, 650),
         [("mp4", 3000, 4, 150), ("mp6", 4000, 6, 200), ("mp8", 4000, 8, 260),
          ("s90", 1500, 2, 90)]),
    13: (107, [], ("kruskal:0.004:1", "kruskal:0.06:1", "maze:0.003", "maze:0.08"),
         (420, 1100),
         [("s70", 1500, 2, 70), ("s220", 3000, 2, 220), ("mp3", 3000, 3, 60),
          ("any", 4000, 2, None)]),
}
# fewest and most nets of a mix (pins anywhere are capped: the CPU's searches are long)
FLOOR = {1: 50, 2: 20, 3: 20, 4: 20, 5: 20, 6: 20, 7: 20, 8: 20, 9: 20, 10: 20, 11: 20,
         12: 20, 13: 20}
ANY_CAP = {1: 300, 2: 200, 3: 150, 4: 120, 5: 120, 6: 120, 7: 120, 8: 120, 9: 120,
           10: 120, 11: 120, 12: 120, 13: 120}


def mask(cls: str, side: int, seed: int) -> np.ndarray:
    """A class's mask, or a Kruskal maze's for ``kruskal:LOOPS:WIDTH``."""
    if cls.startswith("kruskal:"):
        _, loops, width = cls.split(":")
        return kruskal_maze_mask(side, side, float(loops), int(width), seed)
    return class_mask(cls, side, seed)


def _nets(set_no, blocked, tiles, tag, per, pins, span, rng):
    cells = int((~blocked).sum())
    if per is None:                       # set 1's m1: 150 t nets of span 60 t
        count, span = 150 * tiles, 60 * tiles
    else:
        count = max(FLOOR[set_no] if tag != "d32" else 40, cells // per)
        if tag == "any":
            count = min(ANY_CAP[set_no], max(30 if set_no == 1 else 20, cells // per))
    return random_nets(blocked, count, pins, rng, span=span)


def set_masks(set_no: int) -> list[tuple[str, int, np.ndarray]]:
    """The blocked masks of a set: name, map tiles (1 for a class) and mask."""
    seed, tilings, classes, sides, _ = SETS[set_no]
    masks = []
    for m in MAPS if tilings else ():
        blocked = read_movingai(m).blocked
        for tiles, crop in tilings:
            b = tile_mask(blocked, tiles) if tiles > 1 else blocked
            name = f"{m.stem}:x{tiles}"
            if crop is not None:
                b = b[:crop[0], :crop[1]]
                name = f"{m.stem}:t{tiles}:{crop[1]}x{crop[0]}"
            masks.append((name, tiles, b))
    for cls in classes:
        for side in sides:
            masks.append((f"{cls}@{side}", 1, mask(cls, side, seed)))
    return masks


def layouts(set_no: int, numberlink: Path | None = None) -> list[Layout]:
    seed, mixes = SETS[set_no][0], SETS[set_no][4]
    out = []
    for name, tiles, b in set_masks(set_no):
        for tag, per, pins, span in mixes:
            nets = _nets(set_no, b, tiles, tag, per, pins, span, np.random.default_rng(seed))
            out.append(Layout(f"{name}:{tag}", b.shape[1], b.shape[0], [], nets, b))
    if set_no == 1 and numberlink is not None:
        for f in ("inputs9.txt", "inputs10.txt", "inputs6.txt"):
            if (numberlink / f).exists():
                out += load_layouts(numberlink / f)[:3]
    return out


def pick(lay: Layout) -> tuple[str, int, float, float]:
    """auto's routing pick, free cells, median span and median pins."""
    free = ~lay.blocked
    pins = [np.asarray(n.pins) for n in lay.nets]
    spans = np.array([int(np.ptp(p, axis=0).sum()) for p in pins])
    counts = np.array([len(p) for p in pins])
    cpu = routing_prefers_cpu(Measure(free), counts, spans)
    return ("cpu" if cpu else "gpu"), int(free.sum()), float(np.median(spans)), \
        float(np.median(counts))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("sets", type=int, nargs="+", choices=sorted(SETS))
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--numberlink", type=Path, default=None,
                    help="folder of the shared numberlink files (set 1 adds puzzles)")
    ap.add_argument("--picks-only", action="store_true")
    ap.add_argument("--mode", choices=["sequential", "negotiate"], default="sequential")
    ap.add_argument("--mixes", nargs="+", metavar="TAG", default=None)
    ap.add_argument("--layouts", nargs="+", metavar="NAME", default=None,
                    help="only the layouts whose mask is one of these (name before ':mix')")
    args = ap.parse_args()
    from mazeroute.router import Router
    from mazeroute.router.negotiate import Negotiator

    def run(lay, backend):
        if args.mode == "negotiate":
            return Negotiator(lay, backend).run().engine
        router = Router(lay, backend)
        router.run()
        return router.engine

    for s in args.sets:
        cases = [lay for lay in layouts(s, args.numberlink)
                 if (args.mixes is None or lay.name.rsplit(":", 1)[-1] in args.mixes)
                 and (args.layouts is None or lay.name.rsplit(":", 1)[0] in args.layouts)]
        print(f"# set {s}: name WxH nets | cpu_ms gpu_ms auto_ms cpu/gpu pick auto/best",
              flush=True)
        over = 0
        for lay in cases:
            if args.picks_only:
                p, free, span, pins = pick(lay)
                print(f"{lay.name} {lay.width}x{lay.height} {len(lay.nets)} | free {free} "
                      f"span {span:.0f} pins {pins:.0f} {p}", flush=True)
                continue
            arms = ("cpu", "gpu", "auto")
            for backend in arms:
                run(lay, backend)
            ts: dict[str, list[float]] = {a: [] for a in arms}
            chose = {}
            for _ in range(args.rounds):
                for arm in arms:
                    start = time.perf_counter()
                    engine = run(lay, arm)
                    ts[arm].append(time.perf_counter() - start)
                    chose[arm] = engine.split("/")[0]
            t = {a: statistics.median(v) for a, v in ts.items()}
            best = min(t["cpu"], t["gpu"])
            r = t["auto"] / best
            over += r > 1.2
            print(f"{lay.name} {lay.width}x{lay.height} {len(lay.nets)} | {t['cpu'] * 1e3:.2f} "
                  f"{t['gpu'] * 1e3:.2f} {t['auto'] * 1e3:.2f} {t['cpu'] / t['gpu']:.2f} "
                  f"{chose['auto']} {r:.2f}", flush=True)
        if not args.picks_only:
            print(f"# set {s}: auto over 1.2x best on {over} of {len(cases)}", flush=True)


if __name__ == "__main__":
    main()
