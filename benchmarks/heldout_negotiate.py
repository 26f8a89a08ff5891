"""Negotiated routing on layouts that no suite or target generates: nets routed, time,
and the routes (pickled), to compare two versions of the code net by net.

Usage, from the repository root: ``python benchmarks/heldout_negotiate.py BACKEND OUT.pkl
[CHECKOUT [DATA]]``: BACKEND ``cpu`` or ``gpu``; CHECKOUT the folder whose ``mazeroute``
is imported (default: this one; a ``git worktree`` of an older commit for "before");
DATA the shared data folder (default ``../shared/data``). Compare two pickles with
``pickle.load(...) == pickle.load(...)`` per case.
"""
import pickle
import sys
import time
from pathlib import Path

sys.path.insert(0, sys.argv[3] if len(sys.argv) > 3 else str(Path(__file__).resolve().parents[1]))
import numpy as np  # noqa: E402

from mazeroute.generate import (  # noqa: E402
    loopy_maze_mask,
    mask_to_rects,
    random_layout,
    random_nets,
    serpentine_mask,
    wired_mask,
)
from mazeroute.layout import Layout  # noqa: E402
from mazeroute.readers import load_layouts  # noqa: E402
from mazeroute.router.negotiate import Negotiator  # noqa: E402

HERE = Path(__file__).resolve()
D = sys.argv[4] if len(sys.argv) > 4 else str(HERE.parents[2] / "shared" / "data")


def from_mask(name, mask, nets, pins, span, seed):
    lay = Layout(name, mask.shape[1], mask.shape[0], mask_to_rects(mask))
    lay.nets = random_nets(lay.blocked, nets, pins, np.random.default_rng(seed), span=span)
    return lay


def from_map(name, nets, pins, span, seed):
    lay = load_layouts(f"{D}/movingai/{name}.map")[0]
    lay.nets = random_nets(lay.blocked, nets, pins, np.random.default_rng(seed), span=span)
    return lay


cases = [
    ("brc202d 400x2p span40", lambda: from_map("brc202d", 400, 2, 40, 3)),
    ("den520d 200x3p span30", lambda: from_map("den520d", 200, 3, 30, 4)),
    ("ost003d 150x2p anywhere", lambda: from_map("ost003d", 150, 2, None, 5)),
    ("loopy maze 511 5% 200 span60",
     lambda: from_mask("lm", loopy_maze_mask(511, 511, 0.05, 6), 200, 2, 60, 6)),
    ("wired 1024 1500 span50",
     lambda: from_mask("wd", wired_mask(1024, 1024, 1.0, 7), 1500, 2, 50, 7)),
    ("serpentine:3 1024 300 span200",
     lambda: from_mask("sp", serpentine_mask(1024, 3), 300, 2, 200, 8)),
    ("rects 2048 35% 2500x4p span80",
     lambda: random_layout(2048, 2048, density=0.35, nets=2500, pins=4, seed=11, span=80)),
    ("inputs10 puzzles 0-2", None),
]
backend, out = sys.argv[1], sys.argv[2]
small = random_layout(256, 256, density=0.25, nets=300, span=32, seed=9)
Negotiator(small, backend).run()                      # compile and warm up
res = {}
for name, make in cases:
    lays = load_layouts(f"{D}/numberlink/inputs10.txt")[:3] if make is None else [make()]
    t = time.perf_counter()
    runs = [Negotiator(lay, backend).run() for lay in lays]
    el = time.perf_counter() - t
    routed = sum(r.routed for r in runs)
    total = sum(len(lay.nets) for lay in lays)
    res[name] = [[n.cells for n in r.nets] for r in runs]
    print(f"{name:34s} {backend}  routed {routed}/{total}  {el:7.2f} s", flush=True)
pickle.dump(res, open(out, "wb"))
