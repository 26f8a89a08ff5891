"""Global routing on a GCell grid (mazeroute.router.groute): trees that connect every
pin and obey the layers' directions, shortest where nothing competes (the 3-D Dijkstra
oracle), spread by negotiation where capacity runs out, guides of hand-worked shape, and
the shared gcd design routed without overflow."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mazeroute.engines.oracle3d import neighbours3d, oracle_dist3d
from mazeroute.gcells import gcell_grid
from mazeroute.readers.lefdef import Design, RoutingLayer, Tracks
from mazeroute.router.groute import (
    GRouteOptions,
    GRouteProblem,
    global_route,
)
from mazeroute.router.groute_guides import guide_rects

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "lefdef"


def _design(size: int = 600) -> Design:
    """Three layers (H, V, H) with tracks every 10 DBU on a square die: GCells of 15
    tracks (150 DBU), ``size / 150`` a side, 15 tracks across every GCell edge of the
    routing layers m2 and m3 (m1, the lowest, carries pins only)."""
    layers = tuple(RoutingLayer(n, k + 1, d, 10, 4, 4, 5) for k, (n, d) in enumerate(
        (("m1", "HORIZONTAL"), ("m2", "VERTICAL"), ("m3", "HORIZONTAL"))))
    tracks = tuple(Tracks(n, a, 5, size // 10, 10)
                   for n, a in (("m1", "Y"), ("m2", "X"), ("m3", "Y")))
    return Design("t", 1000, (0, 0, size, size), layers, tracks, {}, (), {}, (), 0)


#: Takes all but one track of every edge away (an edge never drops below one).
ONE_TRACK = {"m2": 0.99, "m3": 0.99}


def _check_tree(problem: GRouteProblem, cells: np.ndarray, pins) -> None:
    """Every pin is in the tree, and the tree's nodes are connected by legal moves."""
    nodes = {tuple(c) for c in cells.tolist()}
    assert all(tuple(p) in nodes for p in pins)
    seen, todo = {tuple(pins[0])}, [tuple(pins[0])]
    free = problem.free.copy()
    for x, y, z in pins:
        free[z, y, x] = True
    while todo:
        c = todo.pop()
        for n, _via in neighbours3d(free, problem.directions, None, c):
            if n in nodes and n not in seen:
                seen.add(n)
                todo.append(n)
    assert seen == nodes


def test_a_lone_two_pin_net_takes_a_shortest_path():
    grid = gcell_grid(_design())
    pins = [(0, 0, 0), (3, 2, 0)]
    problem = GRouteProblem.of_grid(grid, {"a": pins})
    res = global_route(problem, GRouteOptions(via_cost=2))
    tree = res.routes["a"]
    _check_tree(problem, tree.cells, pins)
    free = problem.free.copy()
    free[0, 0, 0] = free[0, 2, 3] = True
    # unit steps and vias of 2 on the same rules: the oracle's cheapest cost
    want = oracle_dist3d(free, [pins[0]], directions=list(problem.directions),
                         via_cost=2)[0, 2, 3]
    assert tree.steps + 2 * tree.vias == want
    assert res.overflow == 0 and res.iterations == 1


def test_negotiation_spreads_nets_where_one_track_is_all_there_is():
    """One track per GCell edge: two nets whose shortest routes share a row both take
    it at first; negotiation moves one to another row, until nothing overflows."""
    grid = gcell_grid(_design(), adjust=ONE_TRACK)
    pins = {"a": [(0, 1, 0), (3, 1, 0)], "b": [(1, 1, 0), (2, 1, 0)]}
    problem = GRouteProblem.of_grid(grid, pins)
    assert problem.capacity[2].max() == 1 and problem.capacity[1].max() == 1
    first = global_route(problem, GRouteOptions(max_iterations=1))
    assert first.overflow > 0                        # alone, each takes the same row
    res = global_route(problem)
    assert res.overflow == 0 and res.iterations > 1
    for name, p in pins.items():
        _check_tree(problem, res.routes[name].cells, p)
    # every edge along a layer is used by at most its one track
    for z, along in ((1, 1), (2, 0)):
        used = {}
        for t in res.routes.values():
            cells = {tuple(c) for c in t.cells.tolist()}
            for x, y, zz in cells:
                nxt = (x + (along == 0), y + (along == 1), zz)
                if zz == z and nxt in cells:
                    used[(x, y)] = used.get((x, y), 0) + 1
        assert max(used.values(), default=0) <= 1


def test_overflow_is_reported_when_capacity_cannot_hold_the_nets():
    grid = gcell_grid(_design(), adjust=ONE_TRACK)
    pins = {f"n{k}": [(0, 0, 0), (3, 3, 0)] for k in range(12)}
    res = global_route(GRouteProblem.of_grid(grid, pins), GRouteOptions(max_iterations=4))
    assert res.overflow > 0 and res.iterations == 4
    assert res.overflows[-1] == res.overflow


def test_routing_is_deterministic():
    grid = gcell_grid(_design())
    rng = np.random.default_rng(5)
    pins = {f"n{k}": [tuple(int(v) for v in (rng.integers(4), rng.integers(4), 0))
                      for _ in range(3)] for k in range(10)}
    pins = {n: list(dict.fromkeys(p)) for n, p in pins.items() if len(set(p)) > 1}
    a = global_route(GRouteProblem.of_grid(grid, pins))
    b = global_route(GRouteProblem.of_grid(grid, pins))
    assert all(np.array_equal(a.routes[n].cells, b.routes[n].cells) for n in pins)


def test_guides_are_the_paths_runs_and_the_other_nodes_gcells():
    from mazeroute.router.groute import NetTree
    grid = gcell_grid(_design())          # GCells of 150 DBU, m1 H, m2 V, m3 H
    # one path from a pin on m1 at (2, 2): up to m3, west along row 2, down to m2 and
    # south along column 0 to row 0, down to the root pin on m1; a second pin on m1 at
    # (2, 1) joins the tree by a via up to m2 and one step north to (2, 2) on m2
    path = np.array([[2, 2, 0], [2, 2, 1], [2, 2, 2], [1, 2, 2], [0, 2, 2], [0, 2, 1],
                     [0, 1, 1], [0, 0, 1], [0, 0, 0]])
    stack = np.array([[2, 1, 0], [2, 1, 1], [2, 2, 1]])
    cells = np.concatenate([path[::-1], stack[:-1]])
    tree = NetTree(cells, 4, 5, paths=[path, stack])
    # the first pin's m2 GCell (a via pass on the path) lies inside the second path's
    # m2 run, so it gets no rectangle of its own
    want = {(300, 300, 450, 450, "m1"),                                 # the first pin
            (0, 300, 450, 450, "m3"),                                   # row 2, x 0-2
            (0, 0, 150, 450, "m2"),                                     # column 0, y 0-2
            (0, 0, 150, 150, "m1"),                                     # the root pin
            (300, 150, 450, 300, "m1"), (300, 150, 450, 450, "m2")}     # pin 2, its run
    assert set(guide_rects(tree, grid)) == want


@pytest.mark.skipif(not (DATA / "gcd" / "gcd.def").exists(),
                    reason="the shared LEF/DEF designs are absent")
def test_gcd_routes_every_net_without_overflow():
    from mazeroute.readers.lefdef import read_design
    from mazeroute.router.groute import design_pins
    d = read_design(DATA / "gcd" / "gcd.def", [DATA / "nangate45" / "Nangate45.lef"])
    grid = gcell_grid(d)
    pins = design_pins(d, grid)
    problem = GRouteProblem.of_grid(grid, pins)
    res = global_route(problem)
    assert res.overflow == 0
    assert all(t.routed for t in res.routes.values())
    for name in list(pins)[::25]:
        _check_tree(problem, res.routes[name].cells, pins[name])


def test_overflow_is_counted_on_edges_not_nodes():
    """Two nets between the same GCells with one track an edge: one takes row 1, the
    other leaves by column 0 of m2 to another row. They share the m2 GCell at (0, 1),
    one going north and one south of it, but no edge: the overflow is 0."""
    from mazeroute.router.groute import NetTree, edge_overflow
    grid = gcell_grid(_design(), adjust=ONE_TRACK)
    problem = GRouteProblem.of_grid(grid, {"a": [(0, 1, 0), (3, 1, 0)]})
    north = NetTree(np.zeros((0, 3), np.int64), paths=[np.array(
        [[0, 1, 1], [0, 2, 1]])])
    south = NetTree(np.zeros((0, 3), np.int64), paths=[np.array(
        [[0, 1, 1], [0, 0, 1]])])
    assert edge_overflow([north, south], problem) == 0
    assert edge_overflow([north, north], problem) == 1          # one edge, two nets
    again = NetTree(np.zeros((0, 3), np.int64), paths=[np.array(
        [[0, 1, 1], [0, 2, 1]]), np.array([[0, 2, 1], [0, 1, 1]])])
    assert edge_overflow([again], problem) == 0                  # a net takes one track
    res = global_route(GRouteProblem.of_grid(grid, {k: [(0, 1, 0), (3, 1, 0)]
                                                    for k in ("a", "b")}))
    assert res.overflow == 0


def test_uniform_costs_grow_the_trees_of_unit_steps():
    """The first iteration's shortcut: while every node costs the same, the unit-step
    search (buckets) grows exactly the trees the weighted search (a heap) grows."""
    from mazeroute.router.layered_search import window_search
    from mazeroute.router.layered_tree import Rules, grow_tree
    grid = gcell_grid(_design(900))
    problem = GRouteProblem.of_grid(grid, {})
    rules = Rules(problem.directions, 3, None, False)
    shape = problem.capacity.shape
    rng = np.random.default_rng(2)
    free = problem.free.copy()
    free[1:] &= rng.random(free[1:].shape) > 0.15

    def free_in(pins):
        def f(x0, y0, x1, y1):
            g = free[:, y0:y1, x0:x1].copy()
            for x, y, z in pins:
                if x0 <= x < x1 and y0 <= y < y1:
                    g[z, y - y0, x - x0] = True
            return g
        return f

    cost = np.full(shape, 16, np.int64)
    for _ in range(20):
        pins = [(int(rng.integers(6)), int(rng.integers(6)), int(rng.integers(1, 3)))
                for _ in range(3)]
        pins = list(dict.fromkeys(pins))
        f = free_in(pins)
        a = grow_tree(rules, None, pins, None, search=lambda s, t, f=f: window_search(
            rules, shape, f, None, s, t))
        b = grow_tree(rules, None, pins, cost, search=lambda s, t, f=f: window_search(
            rules, shape, f, cost, s, t))
        assert a.cells.tolist() == b.cells.tolist() and a.missing == b.missing


@pytest.mark.parametrize("present", ["pathfinder", "logistic"])
def test_both_present_costs_spread_nets_off_a_full_row(present):
    grid = gcell_grid(_design(), adjust=ONE_TRACK)
    pins = {"a": [(0, 1, 0), (3, 1, 0)], "b": [(1, 1, 0), (2, 1, 0)]}
    res = global_route(GRouteProblem.of_grid(grid, pins), GRouteOptions(present=present))
    assert res.overflow == 0 and res.iterations > 1


def test_the_logistic_cost_rises_before_capacity_is_reached():
    from mazeroute.router.groute import _Negotiation
    grid = gcell_grid(_design())                          # 15 tracks an edge
    problem = GRouteProblem.of_grid(grid, {})
    costs = {}
    for present in ("pathfinder", "logistic"):
        neg = _Negotiation(problem, GRouteOptions(present=present))
        neg.pres = 1.0
        neg.usage[1, 1, 1] = 13                               # one more: 14 of 15
        neg.price()
        costs[present] = (int(neg.cost[1, 1, 1]), int(neg.cost[1, 2, 2]))
    assert costs["pathfinder"][0] == costs["pathfinder"][1] == 16   # under capacity: base
    assert costs["logistic"][0] > costs["logistic"][1] >= 16        # nearly full: dearer


def test_an_unknown_present_cost_is_refused():
    with pytest.raises(ValueError, match="present cost"):
        GRouteOptions(present="linear")


@pytest.mark.parametrize("pattern", [True, False])
def test_overflow_counted_from_each_trees_kept_edges_is_counted_from_its_paths(pattern):
    from mazeroute.router.groute import NetTree, edge_overflow
    grid = gcell_grid(_design(), adjust=ONE_TRACK)
    rng = np.random.default_rng(11)
    pins = {f"n{k}": list(dict.fromkeys((int(rng.integers(4)), int(rng.integers(4)), 0)
                                        for _ in range(4))) for k in range(16)}
    problem = GRouteProblem.of_grid(grid, {n: p for n, p in pins.items() if len(p) > 1})
    res = global_route(problem, GRouteOptions(max_iterations=2, pattern=pattern))
    fresh = [NetTree(t.cells, t.steps, t.vias, t.routed, None, t.paths)
             for t in res.routes.values()]
    assert res.overflow > 0
    assert edge_overflow(res.routes.values(), problem) == edge_overflow(fresh, problem)
    assert res.overflow == edge_overflow(fresh, problem)


def test_reroutes_alternate_pattern_rounds_and_a_maze_round(monkeypatch):
    """After a pattern first pass, the conflicted nets are rerouted by patterns; a round
    of them that leaves the overflow where it was is followed by one maze round, and that
    by patterns again."""
    import mazeroute.router.groute as gr

    problem = GRouteProblem.of_grid(gcell_grid(_design()), {"a": [(0, 0, 0), (3, 3, 0)]})
    overflows = iter([10, 8, 8, 5, 5, 0])   # iterations 1-6; patterns stall at 3 and 5
    ran = []

    def rerouted(self, names, how):
        ran.append(how)
        self.trees.update({n: gr.NetTree(np.zeros((0, 3), np.int64), routed=False)
                           for n in names})
        return []
    monkeypatch.setattr(gr._Negotiation, "pattern",
                        lambda self, names, negotiated=False: rerouted(self, names, "pattern"))
    monkeypatch.setattr(gr._Negotiation, "route",
                        lambda self, names: rerouted(self, names, "maze"))

    def conflicts(self, problem, over):
        edges = next(overflows)
        return edges, (["a"] if edges else [])
    monkeypatch.setattr(gr._Negotiation, "conflicts", conflicts)
    res = global_route(problem)
    assert res.overflows == [10, 8, 8, 5, 5, 0]
    assert ran == ["pattern", "pattern", "pattern", "maze", "pattern", "maze"]
