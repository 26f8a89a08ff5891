"""Route guides of many trees at once: each GCell of a tree in exactly the guides that
should hold it, on random routed designs (the hand-made case is in test_groute.py)."""

import numpy as np
import pytest

from mazeroute.gcells import gcell_grid
from mazeroute.router.groute import GRouteOptions, GRouteProblem, global_route
from mazeroute.router.groute_guides import guides_of
from tests.test_groute import _design


def _gcells(rect, grid, level):
    x0, y0, x1, y1, name = rect
    xs, ys = grid.xs.tolist(), grid.ys.tolist()
    gx = range(xs.index(x0), xs.index(x1))
    gy = range(ys.index(y0), ys.index(y1))
    return {(x, y, level[name]) for x in gx for y in gy}


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("pattern", [True, False])
def test_guides_hold_every_node_once_a_line_and_nothing_else(seed, pattern):
    grid = gcell_grid(_design(900))                    # 6 x 6 GCells, m1 pins only
    rng = np.random.default_rng(seed)
    pins = {f"n{k}": [tuple(p) for p in np.column_stack(
        [rng.integers(0, 6, (3, 2)), rng.integers(0, 2, 3)]).tolist()] for k in range(12)}
    problem = GRouteProblem.of_grid(grid, pins)
    res = global_route(problem, GRouteOptions(pattern=pattern))
    guides = guides_of(res.routes, grid)
    level = {lay.name: z for z, lay in enumerate(grid.layers)}
    for name, tree in res.routes.items():
        rects = guides[name]
        nodes = {tuple(c) for c in tree.cells.tolist()}
        for p in tree.paths:
            nodes |= {tuple(c) for c in p.tolist()}
        covered = [_gcells(r, grid, level) for r in rects]
        assert set().union(*covered) == nodes          # every node, and nothing else
        # a rectangle is one GCell or a run along its layer's direction; no two share a
        # GCell (runs of one line that do are merged; a lone node is one outside them)
        for r, cells in zip(rects, covered):
            xs = {c[0] for c in cells}
            ys = {c[1] for c in cells}
            horizontal = grid.layers[level[r[4]]].direction == "HORIZONTAL"
            assert len(ys if horizontal else xs) == 1
        assert sum(len(c) for c in covered) == len(nodes)


def test_nets_inside_one_gcell_get_their_nodes_gcells():
    # no net has a path: each node is a guide of its own GCell
    grid = gcell_grid(_design())
    problem = GRouteProblem.of_grid(grid, {"a": [(1, 1, 0)], "b": [(2, 0, 0), (2, 0, 0)]})
    res = global_route(problem)
    guides = guides_of(res.routes, grid)
    assert guides["a"] == [(150, 150, 300, 300, "m1"), (150, 150, 300, 300, "m2")]
    assert guides["b"] == [(300, 0, 450, 150, "m1"), (300, 0, 450, 150, "m2")]
