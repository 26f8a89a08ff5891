"""The one corpus of BFS cases that every engine, CPU or GPU, is checked on.

A case is a graph (a grid's free mask, or a plain CSR graph) plus its sources. The
expected levels always come from the oracle, never from a stored answer.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mazeroute.engines import ENGINES
from mazeroute.engines.oracle import oracle_levels
from mazeroute.generate import maze_mask, random_rects
from mazeroute.graph import CSRGraph, GridGraph, fig15_1_graph
from mazeroute.layout import paint


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
