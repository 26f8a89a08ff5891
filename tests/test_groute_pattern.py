"""Pattern routes, the first pass of global routing (mazeroute.router.groute_pattern):
each net's cost is the least that any choice of its tree edges' shapes and layers
gives (a brute-force oracle over every shape, every layer of every run and every via
stack), its paths are legal and connected and cover its pins, the use it adds is its
wired nodes', a tree with no possible route is left to the maze search, and CuPy gives
NumPy's routes (``gpu``-marked)."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mazeroute.router.groute_pattern import pattern_route
from mazeroute.router.pattern_shapes import BLOCK, UNIT, node_costs
from mazeroute.router.steiner import steiner_tree

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "lefdef"
gpu = pytest.mark.gpu
DIRECTIONS = ("horizontal", "vertical", "any")


def _case(seed: int, blocked: float = 0.0, nets: int = 1, most_pins: int = 4):
    rng = np.random.default_rng(seed)
    L, ny, nx = int(rng.integers(2, 5)), int(rng.integers(2, 7)), int(rng.integers(2, 7))
    dirs = [DIRECTIONS[int(rng.integers(3))] for _ in range(L)]
    dirs[0], dirs[-1] = "horizontal", "vertical"          # both directions somewhere
    free = rng.random((L, ny, nx)) >= blocked
    cap = rng.integers(0, 4, (L, ny, nx))
    usage = rng.integers(0, 4, (L, ny, nx)).astype(np.int64)
    pin_sets = []
    for _ in range(nets):
        k = int(rng.integers(2, most_pins + 1))
        pins = np.stack([rng.integers(0, nx, k), rng.integers(0, ny, k),
                         rng.integers(0, L, k)], axis=1)
        pin_sets.append(np.array(list(dict.fromkeys(map(tuple, pins.tolist()))), np.int64))
    return tuple(dirs), free, cap, usage, pin_sets


def _shapes(a, b):
    """Every pattern shape from ``a`` to ``b`` as its three runs ``(horizontal, cells)``:
    a straight edge one run, a bent one each horizontal-vertical-horizontal and
    vertical-horizontal-vertical path with its middle run on any line between."""
    (xa, ya), (xb, yb) = a, b

    def h(y, x0, x1):
        s = 1 if x1 >= x0 else -1
        return True, [(x, y) for x in range(x0, x1 + s, s)]

    def v(x, y0, y1):
        s = 1 if y1 >= y0 else -1
        return False, [(x, y) for y in range(y0, y1 + s, s)]

    if ya == yb:
        return [[h(ya, xa, xb)]]
    if xa == xb:
        return [[v(xa, ya, yb)]]
    out = []
    for xm in range(min(xa, xb), max(xa, xb) + 1):
        out.append([h(ya, xa, xm), v(xm, ya, yb), h(yb, xm, xb)])
    for ym in range(min(ya, yb), max(ya, yb) + 1):
        out.append([v(xa, ya, ym), h(ym, xa, xb), v(xb, ym, yb)])
    return out


def _edge_table(cost, dirs, via, a, b):
    """``[z_a][z_b]``: the cheapest shape and layers from layer ``z_a`` at ``a`` to
    ``z_b`` at ``b`` (vias at the bends; a run of no step is only a place to turn)."""
    L = len(dirs)
    table = np.full((L, L), np.inf)
    for runs in _shapes(a, b):
        for zs in itertools.product(range(L), repeat=len(runs)):
            c = via * sum(abs(p - q) for p, q in zip(zs, zs[1:]))
            for (horizontal, cells), z in zip(runs, zs):
                if len(cells) > 1:
                    if dirs[z] == ("vertical" if horizontal else "horizontal"):
                        c = np.inf
                        break
                    c += sum(int(cost[z, y, x]) for x, y in cells)
            table[zs[0], zs[-1]] = min(table[zs[0], zs[-1]], c)
    return table


def _oracle(pins, free, cap, usage, dirs, via_cost):
    """The least cost of the net over every choice on its Steiner tree: each edge's
    table entry, plus at each point a via per layer its stack spans (its pins' layers
    and the layers its edges start and end on)."""
    cost = node_costs(np, usage, cap, free)
    via = via_cost * UNIT
    xy = np.array(list(dict.fromkeys(map(tuple, pins[:, :2].tolist()))), np.int64)
    points, edges = steiner_tree(xy)
    pin_layers = [[int(z) for x, y, z in pins.tolist() if (x, y) == tuple(p)]
                  for p in points.tolist()]
    tables = [_edge_table(cost, dirs, via, tuple(points[a]), tuple(points[b]))
              for a, b in edges.tolist()]
    L = len(dirs)
    best = np.inf
    for ends in itertools.product(itertools.product(range(L), repeat=2), repeat=len(edges)):
        total = sum(t[za, zb] for t, (za, zb) in zip(tables, ends))
        if total >= best:
            continue
        stacks = [list(p) for p in pin_layers]
        for (a, b), (za, zb) in zip(edges.tolist(), ends):
            stacks[a].append(za)
            stacks[b].append(zb)
        total += via * sum(max(s) - min(s) for s in stacks if s)
        best = min(best, total)
    return best


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 100_000), st.sampled_from([1, 2, 3]))
def test_a_nets_cost_is_the_oracles_least(seed, via_cost):
    dirs, free, cap, usage, (pins,) = _case(seed, most_pins=3 + seed % 2)
    got = pattern_route([pins], free, cap, dirs, via_cost, usage.copy(), rounds=1)[0]
    want = _oracle(pins, free, cap, usage, dirs, via_cost)
    assert got is not None and got.cost == want


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 100_000))
def test_blocked_nodes_are_never_used_and_an_impossible_net_is_left_to_the_maze(seed):
    dirs, free, cap, usage, (pins,) = _case(seed, blocked=0.25, most_pins=3)
    free[pins[:, 2], pins[:, 1], pins[:, 0]] = True
    got = pattern_route([pins], free, cap, dirs, 2, usage.copy(), rounds=1)[0]
    want = _oracle(pins, free, cap, usage, dirs, 2)
    if want >= BLOCK:
        assert got is None
    if got is not None:                 # else a via stack would cross a blocked node
        assert got.cost == want
        assert free[got.cells[:, 2], got.cells[:, 1], got.cells[:, 0]].all()


def _check_route(net, pins, dirs) -> None:
    """Legal moves along each path, every pin covered, all one connected tree, and the
    steps, vias and wired nodes as the paths give them."""
    cells = {tuple(c) for c in net.cells.tolist()}
    assert {tuple(p) for p in pins.tolist()} <= cells
    links: dict[tuple, set] = {c: set() for c in cells}
    steps, vias, wired = set(), set(), set()
    for path in net.paths:
        for p, q in zip(path[:-1].tolist(), path[1:].tolist()):
            d = np.abs(np.subtract(p, q))
            assert d.sum() == 1
            if d[2]:
                vias.add(frozenset((tuple(p), tuple(q))))
            else:
                along = "horizontal" if d[0] else "vertical"
                assert dirs[p[2]] in (along, "any")
                steps.add(frozenset((tuple(p), tuple(q))))
                wired |= {tuple(p), tuple(q)}
            links[tuple(p)].add(tuple(q))
            links[tuple(q)].add(tuple(p))
    seen, todo = {tuple(pins[0])}, [tuple(pins[0])]
    while todo:
        for n in links[todo.pop()]:
            if n not in seen:
                seen.add(n)
                todo.append(n)
    assert seen == cells
    assert (net.steps, net.vias) == (len(steps), len(vias))
    assert {tuple(c) for c in net.wired.tolist()} == wired


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 100_000), st.integers(1, 4))
def test_routes_are_legal_trees_and_their_use_is_added(seed, rounds):
    dirs, free, cap, usage, pin_sets = _case(seed, nets=6, most_pins=5)
    before = usage.copy()
    nets = pattern_route(pin_sets, free, cap, dirs, 2, usage, rounds=rounds)
    added = np.zeros_like(usage)
    for net, pins in zip(nets, pin_sets):
        assert net is not None
        _check_route(net, pins, dirs)
        np.add.at(added, (net.wired[:, 2], net.wired[:, 1], net.wired[:, 0]), 1)
    assert (usage - before == added).all()


def test_a_later_round_turns_away_from_a_full_layer():
    # two nets along the same row: the second round sees the first's track and, the
    # row's lower horizontal layer full, takes the upper one
    dirs = ("horizontal", "vertical", "horizontal")
    free = np.ones((3, 1, 6), bool)
    cap = np.ones((3, 1, 6), np.int64)
    usage = np.zeros((3, 1, 6), np.int64)
    pins = [np.array([[0, 0, 0], [5, 0, 0]]), np.array([[0, 0, 0], [5, 0, 0]])]
    first, second = pattern_route(pins, free, cap, dirs, 1, usage, rounds=2)
    assert set(first.wired[:, 2].tolist()) == {0}
    assert set(second.wired[:, 2].tolist()) == {2}
    assert second.vias == 4                       # up two layers at each end
    assert usage[0].sum() == usage[2].sum() == 6


@gpu
@pytest.mark.parametrize("seed", range(4))
def test_device_routes_are_the_cpus(seed):
    import cupy

    dirs, free, cap, usage, pin_sets = _case(seed, blocked=0.1, nets=40, most_pins=6)
    rng = np.random.default_rng(seed)
    big = (4, 40, 37)
    free, cap = rng.random(big) > 0.1, rng.integers(0, 4, big)
    usage = rng.integers(0, 3, big).astype(np.int64)
    dirs = ("horizontal", "vertical", "horizontal", "vertical")
    pin_sets = [np.stack([rng.integers(0, 37, k), rng.integers(0, 40, k),
                          rng.integers(0, 4, k)], 1) for k in rng.integers(2, 9, 60)]
    pin_sets = [np.array(list(dict.fromkeys(map(tuple, p.tolist())))) for p in pin_sets]
    u_cpu, u_gpu = usage.copy(), usage.copy()
    cpu = pattern_route(pin_sets, free, cap, dirs, 2, u_cpu, rounds=3)
    dev = pattern_route(pin_sets, free, cap, dirs, 2, u_gpu, rounds=3, xp=cupy)
    assert (u_cpu == u_gpu).all()
    for a, b in zip(cpu, dev):
        assert (a is None) == (b is None)
        if a is not None:
            assert a.cells.tolist() == b.cells.tolist() and a.cost == b.cost
            assert [p.tolist() for p in a.paths] == [p.tolist() for p in b.paths]


@gpu
@pytest.mark.parametrize("seed", range(3))
def test_device_kernels_price_as_numpy_does(seed):
    import cupy

    from mazeroute.engines.gpu_pattern import PatternKernels
    from mazeroute.router.pattern_shapes import Prices, Segments, best_shapes
    from mazeroute.router.pattern_tree import arrivals, junction_costs

    rng = np.random.default_rng(seed)
    L, ny, nx, n = 6, 30, 41, 500
    cost = rng.integers(16, 200, (L, ny, nx)).astype(np.int64)
    along_x, along_y = np.arange(L) % 2 == 0, np.arange(L) % 2 == 1
    ends = [rng.integers(0, m, n) for m in (nx, ny, nx, ny)]
    end = rng.integers(0, 500, (n, L)).astype(np.int64)
    cpu = best_shapes(Segments(np, np.zeros(n, np.int64), *ends),
                      Prices(np, cost, along_x, along_y, 32), end)
    dev = best_shapes(Segments(cupy, cupy.zeros(n, np.int64), *map(cupy.asarray, ends)),
                      Prices(cupy, cupy.asarray(cost), along_x, along_y, 32, PatternKernels()),
                      cupy.asarray(end))
    for a, b in zip(cpu, dev):
        assert (a == b.get()).all()
    f = rng.integers(0, 300, (200, L)).astype(np.int64)
    point = rng.integers(0, 80, 200)
    lo = rng.integers(0, L + 1, 80)
    hi = np.where(lo < L, np.minimum(L - 1, lo + rng.integers(0, 3, 80)), -1)
    tot = junction_costs(np, 80, L, point, f, lo, hi, 32)
    t = cupy.zeros((80, L, L), np.int64)
    arrive = PatternKernels().junctions(t, cupy.asarray(f), cupy.asarray(point),
                                        cupy.asarray(lo), cupy.asarray(hi), 32)
    assert (t.get() == tot).all() and (arrive.get() == arrivals(np, tot)).all()
