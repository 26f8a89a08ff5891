"""The one corpus of BFS cases that every engine, CPU or GPU, is checked on.

A case is a graph (a grid's free mask, or a plain CSR graph) plus its sources. The
expected levels always come from the oracle, never from a stored answer.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mazeroute.engines import ENGINES
from mazeroute.engines.oracle import oracle_levels, oracle_net_route
from mazeroute.engines.weighted import COST_DTYPE, COST_MAX, NetRequest
from mazeroute.generate import maze_mask, random_rects
from mazeroute.graph import CSRGraph, GridGraph, fig15_1_graph
from mazeroute.layout import paint


def bfs_connected(free: np.ndarray, pins) -> bool:
    """Plain BFS: are all ``pins`` (x, y tuples) in one 4-connected component of
    ``free``?"""
    h, w = free.shape
    seen, todo = {pins[0]}, [pins[0]]
    while todo:
        x, y = todo.pop()
        for nx, ny in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
            if 0 <= nx < w and 0 <= ny < h and free[ny, nx] and (nx, ny) not in seen:
                seen.add((nx, ny))
                todo.append((nx, ny))
    return all(p in seen for p in pins)


@dataclass(frozen=True)
class Case:
    id: str
    graph: GridGraph | CSRGraph
    sources: tuple[int, ...]

    @property
    def is_grid(self) -> bool:
        return isinstance(self.graph, GridGraph)

    def expected(self) -> np.ndarray:
        g = self.graph
        if self.is_grid:
            lv = oracle_levels(g.csr, self.sources, ~g.free.ravel())
            return lv.reshape(g.shape)
        return oracle_levels(g, self.sources)


def _grid(id_, free, cells) -> Case:
    g = GridGraph(free)
    return Case(id_, g, tuple(int(v) for v in g.vertices(cells)))


def hand_cases() -> list[Case]:
    """Small cases whose answers a reader can check by eye."""
    open9 = np.ones((9, 9), bool)
    isolated = np.ones((5, 5), bool)
    isolated[1, 2] = isolated[3, 2] = isolated[2, 1] = isolated[2, 3] = False
    maze = ~maze_mask(15, 11, seed=3)
    return [
        Case("fig15.1-root0", fig15_1_graph(), (0,)),
        Case("fig15.1-root2", fig15_1_graph(), (2,)),
        Case("fig15.1-roots0+6", fig15_1_graph(), (0, 6)),
        _grid("1x1", np.ones((1, 1), bool), [(0, 0)]),
        _grid("diamond-9x9", open9, [(4, 4)]),
        _grid("strip-1x17", np.ones((1, 17), bool), [(5, 0)]),
        _grid("strip-23x1", np.ones((23, 1), bool), [(0, 22)]),
        _grid("isolated-root", isolated, [(2, 2)]),
        _grid("two-roots", open9, [(0, 0), (8, 8)]),
        _grid("maze-15x11", maze, [(0, 0)]),
    ]


def random_case(rng: np.random.Generator, max_side: int, index: int) -> Case:
    """One random grid: rectangles, speckle, a maze, a strip or an isolated root."""
    kind = ["rects", "speckle", "maze", "strip", "isolated"][index % 5]
    side = lambda: int(np.exp(rng.uniform(0, np.log(max_side))))  # noqa: E731
    w, h = side(), side()
    if kind == "strip":
        w, h = (w, 1) if rng.random() < 0.5 else (1, h)
    density = float(rng.uniform(0, 0.6))
    if kind == "maze":
        free = ~maze_mask(w, h, seed=int(rng.integers(1 << 30)))
    elif kind == "speckle" or kind == "strip":
        free = rng.random((h, w)) >= density
    else:
        free = ~paint(w, h, random_rects(w, h, min(density, 0.59), rng))
    cells = np.argwhere(free)
    if cells.size == 0:
        free[0, 0] = True
        cells = np.array([[0, 0]])
    y, x = cells[rng.integers(len(cells))]
    if kind == "isolated":
        for dx, dy in ((0, -1), (-1, 0), (1, 0), (0, 1)):
            if 0 <= x + dx < w and 0 <= y + dy < h:
                free[y + dy, x + dx] = False
    roots = [(int(x), int(y))]
    if rng.random() < 0.2 and len(cells) > 1:       # a multi-source wavefront now and then
        y2, x2 = cells[rng.integers(len(cells))]
        if free[y2, x2] and (x2, y2) != (x, y):
            roots.append((int(x2), int(y2)))
    return _grid(f"{kind}-{w}x{h}-{index}", free, roots)


def random_cases(count: int, max_side: int, seed: int = 2026) -> list[Case]:
    rng = np.random.default_rng(seed)
    return [random_case(rng, max_side, i) for i in range(count)]


def engines(backend: str) -> list[tuple[str, str]]:
    """Registry keys of every engine of ``backend``."""
    return [key for key in ENGINES if key[0] == backend]


def runs(case: Case, key: tuple[str, str]) -> bool:
    """Whether engine ``key`` applies to ``case`` (grid-only engines skip plain graphs)."""
    return case.is_grid or ENGINES[key].form != "grid"


# -- weighted net searches (engines.weighted) ---------------------------------------
@dataclass(frozen=True)
class WeightedCase:
    """One call of a weighted net search: the layout's arrays and the requests.

    ``expected()`` routes each request with the Dijkstra oracle.
    """

    id: str
    free: np.ndarray
    owner: np.ndarray
    cost: np.ndarray
    requests: tuple

    def expected(self) -> list:
        out = []
        for req in self.requests:
            cost = self.cost
            if getattr(req, "own", None) is not None:   # its own cells at their own costs
                cost = cost.astype(np.int64)
                for c, v in zip(np.ravel(req.own).tolist(), np.ravel(req.own_cost).tolist()):
                    cost.flat[c] = v                # a cell listed twice: its last cost
            r = oracle_net_route(self.free, self.owner, cost, req.net,
                                 [tuple(int(v) for v in p) for p in req.pins], req.box)
            out.append(None if r is None else np.array(r, dtype=np.int64).reshape(-1, 2))
        return out


def _weighted(id_, free, nets, cost=None, boxes=None) -> WeightedCase:
    """A case from a free mask and nets ``[pins, ...]`` (net i owns its pins)."""
    free = np.asarray(free, bool)
    h, w = free.shape
    owner = np.full((h, w), -1, np.int32)
    for i, pins in enumerate(nets):
        for x, y in pins:
            owner[y, x] = i
    cost = np.ones((h, w), COST_DTYPE) if cost is None else np.asarray(cost, COST_DTYPE)
    boxes = boxes or [(0, 0, w - 1, h - 1)] * len(nets)
    reqs = tuple(NetRequest(i, np.array(p, np.int64), b)
                 for i, (p, b) in enumerate(zip(nets, boxes)) if b is not None)
    return WeightedCase(id_, free, owner, cost, reqs)


def weighted_hand_cases() -> list[WeightedCase]:
    """Small weighted cases whose answers a reader can check by eye."""
    open_ = np.ones((7, 9), bool)
    ridge = np.full((7, 9), 4, COST_DTYPE)
    ridge[:, 4] = 100                   # dear column: a detour of 12 cells (48) is cheaper
    ridge[6, 4] = 1                     # ... except at the bottom, where it is cheap
    walled = np.ones((8, 8), bool)
    walled[2:6, 2] = walled[2:6, 5] = walled[2, 2:6] = walled[5, 2:6] = False
    big = np.ones((130, 130), bool)     # above REACH_CHECK_CELLS: the flood check runs
    big[60:70, 60] = big[60:70, 69] = big[60, 60:70] = big[69, 60:70] = False
    levels = np.ones((6, 6), COST_DTYPE)
    levels[:, 1] = COST_MAX
    return [
        _weighted("straight", open_, [[(0, 3), (8, 3)]]),
        _weighted("tie-keeps-direction", open_, [[(1, 1), (6, 5)]]),
        _weighted("ridge", open_, [[(0, 0), (8, 0)]], ridge),
        _weighted("other-pin-in-the-way", open_, [[(0, 3), (8, 3)], [(4, 3), (4, 0)]],
                  boxes=[(0, 0, 8, 6), None]),
        _weighted("five-pin-tree", open_, [[(4, 3), (0, 0), (8, 0), (0, 6), (8, 6)]], ridge),
        _weighted("pin-on-the-way", open_, [[(0, 2), (8, 2), (4, 2)]]),
        _weighted("one-pin", open_, [[(3, 3)]]),
        _weighted("enclosed-target", walled, [[(0, 0), (3, 3)]]),
        _weighted("enclosed-root", walled, [[(3, 4), (7, 7)]]),
        _weighted("box-too-small", open_, [[(0, 3), (8, 3)], [(4, 2), (4, 3), (4, 4)]],
                  boxes=[(0, 2, 8, 4), None]),
        _weighted("disjoint-boxes", open_, [[(0, 0), (3, 2)], [(5, 4), (8, 6)],
                                            [(8, 0), (5, 1)]],
                  boxes=[(0, 0, 3, 3), (5, 4, 8, 6), (5, 0, 8, 2)]),
        _weighted("big-enclosed", big, [[(0, 0), (65, 65)], [(1, 0), (129, 129)]],
                  boxes=[(0, 0, 129, 129), None]),
        _weighted("big-open", big, [[(5, 0), (129, 129)]]),
        _weighted("cost-max-column", np.ones((6, 6), bool), [[(0, 0), (5, 5)]], levels),
    ]


def random_weighted_case(rng: np.random.Generator, max_side: int, index: int,
                         whole: bool = False) -> WeightedCase:
    """A random layout, cost field and a few nets with random boxes around their pins
    (``whole``: the first net's box is the whole grid, the only request)."""
    w, h = (int(v) for v in rng.integers(1, max_side + 1, 2))
    kind = ["rects", "speckle", "open"][index % 3]
    density = float(rng.uniform(0.3, 0.5) if whole else rng.uniform(0, 0.5))
    if kind == "rects":
        free = ~paint(w, h, random_rects(w, h, density, rng))
    elif kind == "speckle":
        free = rng.random((h, w)) >= density
    else:
        free = np.ones((h, w), bool)
    costs = ["small", "wide", "base+spikes"][(index // 3) % 3]
    if costs == "small":                      # many ties
        cost = rng.integers(1, 4, (h, w))
    elif costs == "wide":
        cost = rng.integers(1, COST_MAX + 1, (h, w))
    else:                                     # what negotiation makes: a base, a few dear
        cost = np.full((h, w), 16) + 16 * rng.integers(0, 3, (h, w))
        spikes = rng.random((h, w)) < 0.1
        cost[spikes] = rng.integers(16, COST_MAX + 1, int(spikes.sum()))
    cells = np.argwhere(free)[:, ::-1]
    rng.shuffle(cells)
    nets, boxes, k = [], [], 0
    while k < len(cells) and len(nets) < 4:
        m = min(int(rng.integers(1, 5)), len(cells) - k)
        pins = [tuple(int(v) for v in c) for c in cells[k:k + m]]
        k += m
        xs, ys = [p[0] for p in pins], [p[1] for p in pins]
        grow = max(w, h) if whole else int(rng.integers(0, 4))
        boxes.append((max(0, min(xs) - grow), max(0, min(ys) - grow),
                      min(w - 1, max(xs) + grow), min(h - 1, max(ys) + grow)))
        nets.append(pins)
    # disjoint boxes in one call: keep each box that overlaps none kept before it
    keep: list = []
    for b in boxes:
        apart = all(o is None or b[2] < o[0] or o[2] < b[0] or b[3] < o[1] or o[3] < b[1]
                    for o in keep)
        keep.append(b if apart else None)
    return _weighted(f"{kind}-{costs}-{w}x{h}-{index}", free, nets, cost, keep)


def random_weighted_cases(count: int, max_side: int, seed: int = 7,
                          whole: bool = False) -> list[WeightedCase]:
    rng = np.random.default_rng(seed)
    return [random_weighted_case(rng, max_side, i, whole) for i in range(count)]


# -- more weighted cases, for the GPU engine (engines.gpu_weighted) ----------------------
def two_net_case(rng: np.random.Generator) -> WeightedCase:
    """A 2-pin and a 3-pin net in disjoint boxes of a speckled 30 x 20 grid."""
    free = rng.random((20, 30)) >= 0.15
    owner = np.full((20, 30), -1, np.int32)
    pins = [[(1, 1), (12, 17)], [(16, 2), (28, 18), (17, 17)]]
    for j, net in enumerate(pins):
        for x, y in net:
            free[y, x] = True
            owner[y, x] = j
    cost = rng.integers(1, 5, (20, 30)).astype(COST_DTYPE)
    reqs = (NetRequest(0, np.array(pins[0]), (0, 0, 13, 19)),
            NetRequest(1, np.array(pins[1]), (15, 0, 29, 19)))
    return WeightedCase("two-nets", free, owner, cost, reqs)


def overlapping_case(rng: np.random.Generator, nets: int, least_cost: int) -> WeightedCase:
    """``nets`` requests in boxes of 20 x 20 that overlap, on a 70 x 50 grid."""
    free = rng.random((50, 70)) >= 0.2
    owner = np.full(free.shape, -1, np.int32)
    cost = rng.integers(least_cost, 30, free.shape).astype(COST_DTYPE)
    reqs = []
    for k in range(nets):
        x0, y0 = int(rng.integers(0, 50)), int(rng.integers(0, 30))
        box = (x0, y0, x0 + 19, y0 + 19)
        cells = np.argwhere(free[y0:y0 + 20, x0:x0 + 20] & (owner[y0:y0 + 20, x0:x0 + 20] < 0))
        pins = cells[rng.choice(len(cells), 2 + k % 3, replace=False)][:, ::-1] + (x0, y0)
        owner[pins[:, 1], pins[:, 0]] = k
        reqs.append(NetRequest(k, pins, box))
    return WeightedCase("overlapping", free, owner, cost, tuple(reqs))


def with_own_cells(case: WeightedCase, rng: np.random.Generator) -> WeightedCase:
    """``case`` with each request pricing some cells of the grid (inside its box or not)
    at costs of its own, some below every cost of the grid."""
    h, w = case.free.shape
    reqs = []
    for req in case.requests:
        own = rng.choice(h * w, size=int(rng.integers(0, max(2, h * w // 4))), replace=False)
        own = np.concatenate([own, own[:own.size // 8]])     # a few listed twice
        own_cost = rng.integers(1, 60, own.size)
        reqs.append(req._replace(own=own, own_cost=own_cost))
    return WeightedCase(case.id + "-own", case.free, case.owner,
                        np.maximum(case.cost, 2).astype(COST_DTYPE), tuple(reqs))


def grid_of_boxes_case(rng: np.random.Generator, h: int, w: int, bh: int,
                       bw: int) -> WeightedCase:
    """Many requests in one call: the grid cut into ``bh`` x ``bw`` tiles, one net of 2 to
    4 pins in each (every other box half as wide, so that box sizes differ), costs 1..8
    on 20 % speckle."""
    free = rng.random((h, w)) >= 0.2
    cost = rng.integers(1, 9, (h, w)).astype(COST_DTYPE)
    owner = np.full((h, w), -1, np.int32)
    reqs = []
    tiles = [(x, y) for y in range(0, h - bh + 1, bh) for x in range(0, w - bw + 1, bw)]
    for j, (bx, by) in enumerate(tiles):
        wide = bw if j % 2 else max(1, bw // 2)
        cells = np.argwhere(free[by:by + bh, bx:bx + wide])[:, ::-1] + (bx, by)
        if len(cells) < 2:
            continue
        pins = cells[rng.choice(len(cells), min(len(cells), 2 + j % 3), replace=False)]
        owner[pins[:, 1], pins[:, 0]] = j
        reqs.append(NetRequest(j, pins, (bx, by, bx + wide - 1, by + bh - 1)))
    return WeightedCase(f"grid-of-boxes-{w}x{h}", free, owner, cost, tuple(reqs))



def boxes_of_sizes_case(rng: np.random.Generator, sides: tuple[int, ...]) -> WeightedCase:
    """Boxes of the given ``sides`` (square, in a row, one cell apart), a net of 2 or 3
    pins in each, costs 1..8 on 15 % speckle: one call whose boxes fall in several
    classes of shared memory, and in tiles where a box is larger than a block holds."""
    h, w = max(sides), sum(sides) + len(sides) - 1
    free = rng.random((h, w)) >= 0.15
    cost = rng.integers(1, 9, (h, w)).astype(COST_DTYPE)
    owner = np.full((h, w), -1, np.int32)
    reqs, x0 = [], 0
    for j, side in enumerate(sides):
        cells = np.argwhere(free[:side, x0:x0 + side])[:, ::-1] + (x0, 0)
        pins = cells[rng.choice(len(cells), 2 + j % 2, replace=False)]
        owner[pins[:, 1], pins[:, 0]] = j
        reqs.append(NetRequest(j, pins, (x0, 0, x0 + side - 1, side - 1)))
        x0 += side + 1
    return WeightedCase(f"boxes-of-sizes-{'-'.join(map(str, sides))}", free, owner, cost,
                        tuple(reqs))

# -- negotiation (router.negotiate) ----------------------------------------------------
def _layout(width, height, nets, blockages=()):
    from mazeroute.readers import parse_layout
    return parse_layout({"width": width, "height": height, "blockages": list(blockages),
                         "nets": [{"name": n, "pins": p} for n, p in nets]}, "case.yaml")


def other_side_layout():
    """a runs between b's pins; routed first and straight (sequential, file order) it
    walls b off, but a can pass below b's lower pin.

    ``. . b . .``
    ``a . . . a``
    ``. . b . .``
    ``. . . . .``
    """
    return _layout(5, 4, [("a", [[0, 1], [4, 1]]), ("b", [[2, 0], [2, 2]])])


def corridor_layout():
    """Three nets contest a one-cell-wide corridor through a wall; ``c`` has no other
    way, ``a`` and ``b`` each have a longer private lane (over the top, under the bottom)
    whose only entrances are their own pins. Sequential routing in file order gives the
    corridor to ``a`` (its shortest path), ``b`` takes its lane and ``c`` is walled off;
    the solution gives the corridor to ``c``.

    Corridor: (5, 4)..(7, 4); a: (4, 3) - (8, 3); b: (4, 5) - (8, 5); c: (3, 4) - (9, 4).
    """
    walls = [
        [6, 1, 6, 3], [6, 5, 6, 7],             # the middle wall, open at y = 0, 4, 8
        [5, 3, 5, 3], [7, 3, 7, 3], [5, 5, 5, 5], [7, 5, 7, 5],   # corridor sides
        [3, 0, 3, 2], [5, 1, 5, 2], [7, 1, 7, 2], [9, 0, 9, 2],   # a's private columns
        [3, 6, 3, 8], [5, 6, 5, 7], [7, 6, 7, 7], [9, 6, 9, 8],   # b's private columns
    ]
    return _layout(13, 9, [("a", [[4, 3], [8, 3]]), ("b", [[4, 5], [8, 5]]),
                           ("c", [[3, 4], [9, 4]])], walls)


def unroutable_layout():
    """Nets whose reasons a reader can check: ``boxed`` has its second pin fenced in by
    the pins of ``n1`` .. ``n4`` (short nets, routed); ``walled`` is cut off by
    blockages; ``x`` and ``y`` both need the single cell (10, 1)."""
    return _layout(13, 7, [
        ("boxed", [[0, 3], [3, 5]]),
        ("n1", [[3, 4], [3, 3]]), ("n2", [[2, 5], [2, 6]]), ("n3", [[4, 5], [5, 5]]),
        ("n4", [[3, 6], [4, 6]]),
        ("walled", [[7, 3], [7, 6]]),
        ("x", [[9, 1], [11, 1]]), ("y", [[10, 0], [10, 2]]),
    ], [[6, 2, 8, 2], [6, 4, 8, 4], [6, 3, 6, 3], [8, 3, 8, 3],
        [8, 0, 8, 1], [12, 0, 12, 2], [9, 2, 9, 2], [11, 2, 11, 2],
        [9, 0, 9, 0], [11, 0, 11, 0], [9, 3, 12, 3]])


#: A numberlink puzzle (``../shared/data/numberlink/inputs9.txt``, the fourth; puzzles by
#: Thomas Ahle, github.com/thomasahle/numberlink) whose 18 nets can all be connected only
#: by long winding wires: negotiation alone leaves two unrouted.
PUZZLE = """\
40 20
.......................................b
........................................
.......3................................
...................................i....
....1.............4.....................
................1......a................
....2..................5................
..........................c.............
....................................h...
...................6....39...fdfg.......
.........4.................d.......e....
......................62........ga..c...
....................................8...
..................................h.....
........................................
.....................7..................
................5....89.....e...........
....................7...b...............
........................................
.......................................i
"""


def puzzle_layout():
    """:data:`PUZZLE` as a layout."""
    import tempfile
    from pathlib import Path

    from mazeroute.readers import read_numberlink
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "puzzle.txt"
        path.write_text(PUZZLE)
        return read_numberlink(path)[0]


def oversubscribed_layout():
    """80 nets with pins anywhere on a 100 x 100 field of 25 % rectangles: far more
    nets than room, so that nearly every net stays in conflict while negotiating."""
    from mazeroute.generate import class_mask, random_nets
    from mazeroute.layout import Layout

    blocked = class_mask("open:0.25", 100, seed=7)
    lay = Layout("field", 100, 100, [], [], blocked)
    lay.nets = random_nets(blocked, 80, 2, np.random.default_rng(5))
    return lay


def multi_pin_benchmark_layout(seed: int):
    """The multi-pin benchmark's layout (benchmarks/multipin_probe.py): 1024^2, 15 %
    rectangles, 300 four-pin nets of span 64."""
    from mazeroute.generate import random_layout
    return random_layout(1024, 1024, density=0.15, nets=300, pins=4, seed=seed, span=64)


#: The loop's iterations for an emulated kernel's run of :func:`chain_layouts` (CPU
#: time): their negotiation goes on for hundreds of cheap iterations, and its batches,
#: chains, groups and grown boxes all come in the first few dozen.
EMULATED_ITERATIONS = 40


def chain_layouts() -> list:
    """Crowded layouts whose negotiation reroutes nets in chains of several batches
    (router.negotiate, engines.gpu_weighted route_chain): two-pin and three-pin nets,
    shared by the kernel's emulation and the device."""
    from mazeroute.generate import random_layout
    return [random_layout(40, 32, density=0.2, nets=36, seed=s, span=14, pins=1 + (s % 2 + 1),
                          name=f"chain-{s}") for s in range(4)]


def fresh_compile() -> None:
    """Compile a new function with Numba now (uncached: a new function object compiles
    anew), as a first run on a fresh install does inside its work."""
    import numba

    @numba.njit(cache=False)
    def total(a):
        s = 0.0
        for v in a:
            s += v * v
        return s

    assert total(np.arange(4.0)) == 14.0
