"""Refinement of a global route (mazeroute.router.groute_refine): every branch of a net's
maze tree is a shortest path from the tree so far to the nearest remaining pin, as the
3-D Dijkstra oracle finds it in the pins' widened box; trees use only nodes with room and
are the same however the nets are shared among threads; in the router, refinement never
makes a net dearer or the overflow larger, and on a hand-worked net it finds the tree of
fewest vias that the pattern's shortest topology misses."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from mazeroute.engines.base import UNREACHED
from mazeroute.engines.oracle3d import oracle_dist3d
from mazeroute.router.groute import GRouteOptions, GRouteProblem, global_route
from mazeroute.router.groute_refine import maze_trees, tree_cost

DIRECTIONS = (("vertical", "horizontal"), ("horizontal", "vertical", "horizontal"),
              ("any", "vertical"), ("horizontal", "vertical", "horizontal", "vertical"))


def _case(seed: int, blocked: float = 0.2, nets: int = 1, most_pins: int = 5):
    rng = np.random.default_rng(seed)
    dirs = DIRECTIONS[seed % len(DIRECTIONS)]
    L, h, w = len(dirs), int(rng.integers(2, 8)), int(rng.integers(2, 8))
    room = rng.random((L, h, w)) >= blocked
    pin_sets = []
    for _ in range(nets):
        k = int(rng.integers(2, most_pins + 1))
        cells = rng.choice(L * h * w, size=min(k, L * h * w), replace=False)
        z, rest = np.divmod(cells, h * w)
        y, x = np.divmod(rest, w)
        pin_sets.append(np.column_stack([x, y, z]).astype(np.int64))
    return dirs, room, pin_sets


def _box(pins: np.ndarray, shape, margin: int):
    L, h, w = shape
    x0, y0 = max(0, pins[:, 0].min() - margin), max(0, pins[:, 1].min() - margin)
    x1 = min(w, pins[:, 0].max() + margin + 1)
    y1 = min(h, pins[:, 1].max() + margin + 1)
    return x0, y0, x1, y1


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 100_000), st.sampled_from([1, 2, 3]), st.integers(0, 2))
def test_each_branch_is_a_shortest_path_to_the_nearest_pin(seed, via, margin):
    dirs, room, (pins,) = _case(seed)
    found = maze_trees([pins], room, dirs, via, margin=margin)
    got = None if found.steps[0] < 0 else (found.paths(0), int(found.steps[0]),
                                           int(found.vias[0]))
    x0, y0, x1, y1 = _box(pins, room.shape, margin)
    free = room[:, y0:y1, x0:x1].copy()
    local = pins - [x0, y0, 0]
    free[local[:, 2], local[:, 1], local[:, 0]] = True
    # a tree grows inside its root's component: it fails exactly when a pin lies outside
    reach = oracle_dist3d(free, [tuple(local[0].tolist())], directions=dirs, via_cost=via)
    cut = any(reach[z, y, x] == UNREACHED for x, y, z in local.tolist())
    assert (got is None) == cut
    if cut:
        return
    tree = {tuple(local[0].tolist())}
    left = {tuple(p) for p in local[1:].tolist()}
    paths, steps, vias = got
    for path in paths:
        path = path - [x0, y0, 0]
        start, end = tuple(path[0].tolist()), tuple(path[-1].tolist())
        assert end in tree and start in left
        dist = oracle_dist3d(free, sorted(tree), directions=dirs, via_cost=via)
        nearest = min(dist[p[2], p[1], p[0]] for p in left)
        cost = 0
        for p, q in zip(path[:-1].tolist(), path[1:].tolist()):
            d = np.abs(np.subtract(p, q))
            assert d.sum() == 1 and free[p[2], p[1], p[0]] and free[q[2], q[1], q[0]]
            if d[2]:
                cost += via
            else:
                assert dirs[p[2]] in ("horizontal" if d[0] else "vertical", "any")
                cost += 1
        assert cost == dist[start[2], start[1], start[0]] == nearest
        cells = {tuple(c) for c in path.tolist()}
        left -= cells
        tree |= cells
    assert not left
    assert tree_cost(steps, vias, via) == steps + via * vias
    assert vias == sum(int((p[1:, 2] != p[:-1, 2]).sum()) for p in paths)


def test_a_cut_off_pin_gives_no_tree():
    room = np.ones((2, 3, 3), bool)
    room[:, 1, :] = False                  # a wall across the middle row, every layer
    pins = np.array([[0, 0, 0], [2, 2, 0]])
    found = maze_trees([pins], room, ("horizontal", "vertical"), 2)
    assert found.steps[0] == found.vias[0] == -1


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 100_000))
def test_trees_do_not_depend_on_the_threads(seed):
    dirs, room, pin_sets = _case(seed, nets=600, most_pins=6)
    one = maze_trees(pin_sets, room, dirs, 2, threads=1)
    many = maze_trees(pin_sets, room, dirs, 2, threads=3)
    assert len(one.steps) == len(many.steps) == len(pin_sets)
    assert (one.steps == many.steps).all() and (one.vias == many.vias).all()
    assert (one.steps >= 0).any()
    for k in range(len(pin_sets)):
        a, b = one.paths(k), many.paths(k)
        assert len(a) == len(b) and all((p == q).all() for p, q in zip(a, b))


def _problem(dirs, free, cap, pins) -> GRouteProblem:
    return GRouteProblem(dirs, free, cap, {f"n{k}": [tuple(map(int, c)) for c in p]
                                           for k, p in enumerate(pins)})


def test_a_hand_worked_net_gets_its_cheapest_tree():
    # pins on the vertical layer: (0, 0) and (0, 5) in one column, (1, 1) and (1, 4) in
    # the next. Joining the columns takes a horizontal step and a via at each end. The
    # shortest tree (7 steps: the first column, and a link to each pin of the second)
    # pays 4 vias, 15 at a via cost of 2; one link and the second column's run (9 steps,
    # 2 vias) cost 13, and no tree costs less: two vias allow one link only, and then
    # the columns' runs are needed whole. The maze tree takes the first column, a link,
    # then the run
    pins = np.array([(0, 0, 0), (0, 5, 0), (1, 1, 0), (1, 4, 0)])
    dirs = ("vertical", "horizontal")
    free = np.ones((2, 6, 2), bool)
    cap = np.full(free.shape, 8, np.int64)
    problem = _problem(dirs, free, cap, [pins])
    plain = global_route(problem, GRouteOptions(refine=False)).routes["n0"]
    refined = global_route(problem, GRouteOptions()).routes["n0"]
    assert (plain.steps, plain.vias) == (7, 4)
    assert (refined.steps, refined.vias) == (9, 2)
    assert {tuple(c) for c in pins.tolist()} <= {tuple(c) for c in refined.cells.tolist()}


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 100_000))
def test_refinement_never_makes_a_net_dearer_or_the_overflow_larger(seed):
    rng = np.random.default_rng(seed)
    dirs = ("horizontal", "vertical", "horizontal")
    h, w = int(rng.integers(4, 10)), int(rng.integers(4, 10))
    free = np.ones((3, h, w), bool)
    cap = rng.integers(1, 3, (3, h, w)).astype(np.int64)
    pins = []
    for _ in range(int(rng.integers(4, 14))):
        k = int(rng.integers(2, 6))
        xy = np.column_stack([rng.integers(0, w, k), rng.integers(0, h, k)])
        cells = np.unique(np.column_stack([xy, np.zeros(k, np.int64)]), axis=0)
        if len(cells) >= 2:
            pins.append(cells)
    problem = _problem(dirs, free, cap, pins)
    opt = dict(max_iterations=int(rng.integers(1, 4)))
    plain = global_route(problem, GRouteOptions(refine=False, **opt))
    refined = global_route(problem, GRouteOptions(**opt))
    assert refined.overflow <= plain.overflow
    use = np.zeros_like(cap)
    for name, net in refined.routes.items():
        old = plain.routes[name]
        if old.routed:
            assert tree_cost(net.steps, net.vias, 2) <= tree_cost(old.steps, old.vias, 2)
        assert {tuple(c) for c in problem.pins[name]} <= {tuple(c) for c in
                                                          net.cells.tolist()}
        ends = [np.concatenate([p[:-1][same], p[1:][same]])
                for p in net.paths for same in [p[1:, 2] == p[:-1, 2]]]
        wired = np.unique(np.concatenate(ends), axis=0) if ends else np.zeros((0, 3), int)
        np.add.at(use, (wired[:, 2], wired[:, 1], wired[:, 0]), 1)
    # a node the refined nets took past its capacity was already past it before
    over = use > cap
    assert (refined.usage == use).all()
    assert (plain.usage[over] >= refined.usage[over]).all()
