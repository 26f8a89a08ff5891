"""The 3-D router on the CPU (mazeroute.router.layered): sequential Lee and negotiated
PathFinder over a stack of layers, checked against the routes contract (version 1.2),
the 3-D oracle and the 2-D router."""

import numpy as np
import pytest

from mazeroute.contract import check_routes
from mazeroute.engines.oracle3d import oracle_dist3d, oracle_paths3d, vias_and_bends
from mazeroute.generate import random_layout
from mazeroute.generate3d import random_layout3d, solvable_puzzle
from mazeroute.layers import Layer, Stack
from mazeroute.layout import Layout, Net
from mazeroute.router import Router
from mazeroute.router.layered import route_layered
from mazeroute.router.negotiation.options import PathFinderOptions
from mazeroute.router.result import NetRoute, RouteResult

UNREACHED = 0xFFFFFFFF


def _stack(*directions, via_cost=1, via_sites=None):
    return Stack(tuple(Layer(f"M{k + 1}", d) for k, d in enumerate(directions)),
                 via_cost=via_cost, via_sites=via_sites)


def _random(seed, w=10, h=8, layers=2, nets=8, via_cost=2, dirs=("horizontal", "vertical")):
    directions = [dirs[z % len(dirs)] for z in range(layers)]
    return random_layout3d(w, h, layers, nets=nets, span=6, seed=seed, density=0.15,
                           directions=directions, via_cost=via_cost)


RANDOM = [_random(s) for s in range(4)] + [
    _random(10, layers=3, dirs=("any",), via_cost=1),
    _random(11, w=12, h=12, layers=3, nets=14, via_cost=3),
]


def _valid(layout, result):
    assert check_routes(layout, result.to_json()) == []


# -- hand-made cases -------------------------------------------------------------------
def test_direction_rules_force_a_via_and_the_path_is_exact():
    lay = Layout("d", 4, 3, nets=[Net("a", [(0, 0, 0), (3, 2, 1)])],
                 stack=_stack("horizontal", "vertical", via_cost=2))
    res = route_layered(lay, "sequential")
    net = res.nets[0]
    assert net.cells == [(0, 0, 0), (1, 0, 0), (2, 0, 0), (3, 0, 0), (3, 0, 1), (3, 1, 1),
                         (3, 2, 1)]
    assert (net.length, net.vias, net.bends, net.levels) == (5, 1, 0, 7)
    assert res.engine == "cpu/grid3d" and res.mode == "sequential"
    _valid(lay, res)


def test_vias_go_only_at_via_sites():
    sites = np.zeros((3, 5), bool)
    sites[2, 4] = True
    lay = Layout("s", 5, 3, rects=[(2, 0, 2, 1, 0)],
                 nets=[Net("a", [(0, 0, 0), (4, 0, 0)])],
                 stack=_stack("any", "any", via_sites=sites))
    net = route_layered(lay, "sequential").nets[0]
    # a wall on M1 with a gap at the bottom row; the only via site is far off: stay on M1
    assert net.vias == 0 and net.length == 8
    assert all(c[2] == 0 for c in net.cells)
    sites[2, 4], sites[0, 0], sites[0, 4] = False, True, True
    lay.stack = _stack("any", "any", via_sites=sites)
    net = route_layered(lay, "sequential").nets[0]
    assert net.cells == [(0, 0, 0), (0, 0, 1), (1, 0, 1), (2, 0, 1), (3, 0, 1), (4, 0, 1),
                         (4, 0, 0)]
    assert (net.length, net.vias) == (4, 2)


@pytest.mark.parametrize("mode", ["sequential", "negotiate"])
def test_per_pair_via_sites_route_through_each_pair_at_its_own_site(mode):
    # M1 -> M3 at (0, 0) would be shortest, but only M1-M2 vias go there; M2-M3 at (4, 0)
    sites = np.zeros((2, 1, 5), bool)
    sites[0, 0, 0] = sites[1, 0, 4] = True
    lay = Layout("p", 5, 1, nets=[Net("a", [(0, 0, 0), (0, 0, 2)])],
                 stack=_stack("any", "any", "any", via_sites=sites))
    res = route_layered(lay, mode)
    net = res.nets[0]
    assert net.cells == [(0, 0, 0), (0, 0, 1), (1, 0, 1), (2, 0, 1), (3, 0, 1), (4, 0, 1),
                         (4, 0, 2), (3, 0, 2), (2, 0, 2), (1, 0, 2), (0, 0, 2)]
    assert (net.length, net.vias) == (8, 2)
    _valid(lay, res)


def test_an_enclosed_pin_is_unrouted_with_a_reason_and_no_cells():
    lay = Layout("e", 4, 3, rects=[(1, 0, 1, 2)],
                 nets=[Net("a", [(0, 0, 0), (3, 0, 0)])], stack=_stack("any"))
    for mode in ("sequential", "negotiate"):
        res = route_layered(lay, mode)
        net = res.nets[0]
        assert not net.routed and net.cells == [] and net.order is None
        assert net.reason == "cut off from its pins by blockages and other nets' pins"
        entry = res.to_json()["nets"][0]
        assert "vias" not in entry and entry["bends"] == 0
        _valid(lay, res)


def test_a_net_walled_off_by_an_earlier_wire_names_it():
    lay = Layout("w", 3, 3, nets=[Net("a", [(1, 0, 0), (1, 2, 0)]),
                                  Net("b", [(0, 1, 0), (2, 1, 0)])], stack=_stack("any"))
    res = route_layered(lay, "sequential")
    assert res.nets[0].routed and not res.nets[1].routed
    assert res.nets[1].reason == "walled off by the wires of nets a"


def test_negotiate_lets_the_crossing_net_hop_to_another_layer():
    lay = Layout("x", 3, 3, nets=[Net("a", [(0, 1, 0), (2, 1, 0)]),
                                  Net("b", [(1, 0, 0), (1, 2, 0)])],
                 stack=_stack("any", "any"))
    res = route_layered(lay)
    assert res.routed == 2 and res.engine == "cpu/weighted3d" and res.mode == "negotiate"
    assert sorted(n.vias for n in res.nets) == [0, 2]
    assert res.stop is None and res.iterations[-1].overused == 0
    assert res.history.shape == (2, 3, 3)
    _valid(lay, res)


def test_multi_pin_nets_grow_trees():
    lay = Layout("t", 6, 5, nets=[Net("a", [(0, 0, 0), (5, 0, 0), (2, 4, 1)]),
                                  Net("b", [(0, 2, 1), (5, 2, 1)])],
                 stack=_stack("horizontal", "vertical", via_cost=2))
    for mode in ("sequential", "negotiate"):
        res = route_layered(lay, mode)
        assert res.routed == 2
        _valid(lay, res)


# -- the routes file -------------------------------------------------------------------
def test_to_json_of_a_stack_is_version_1_2():
    lay = _random(3)
    res = route_layered(lay, "sequential")
    doc = res.to_json()
    assert doc["layers"] == ["M1", "M2"]
    assert doc["vias"] == sum(n.vias for n in res.nets if n.routed) > 0
    routed = [e for e in doc["nets"] if e["routed"]]
    assert all(len(c) == 3 for e in routed for c in e["cells"])
    assert all("vias" in e for e in routed)
    assert res.to_json(arrays=True) == doc
    _valid(lay, res)


def test_a_2d_routes_file_never_gains_vias():
    lay = random_layout(12, 10, nets=6, seed=1)
    doc = Router(lay, "cpu").run().to_json()
    assert "vias" not in doc and "layers" not in doc
    assert all("vias" not in e for e in doc["nets"])
    assert NetRoute("a", [(0, 0)]).vias == 0


def test_cell_array_keeps_three_columns():
    r = NetRoute("a", [(0, 0, 0)], cells=[(0, 0, 0), (0, 0, 1)])
    assert r.cell_array().shape == (2, 3)
    assert NetRoute("b", [(0, 0)]).cell_array().shape == (0, 2)


# -- every result keeps the contract --------------------------------------------------
@pytest.mark.parametrize("mode", ["sequential", "negotiate"])
@pytest.mark.parametrize("k", range(len(RANDOM)))
def test_random_layouts_keep_the_contract(mode, k):
    lay = RANDOM[k]
    res = route_layered(lay, mode)
    _valid(lay, res)
    assert [n.name for n in res.nets] == [n.name for n in lay.nets]


@pytest.mark.parametrize("k", range(len(RANDOM)))
def test_sequential_wires_are_shortest_with_fewest_vias(k):
    lay = RANDOM[k]
    st = lay.stack
    rules = dict(directions=st.directions, via_cost=st.via_cost, via_sites=st.via_sites)
    res = route_layered(lay, "sequential")
    taken = lay.blocked.copy()
    for net in lay.nets:
        for x, y, z in net.pins:
            taken[z, y, x] = True
    for net, r in sorted(zip(lay.nets, res.nets), key=lambda p: (p[1].order is None,
                                                                  p[1].order)):
        free = ~taken
        for x, y, z in net.pins:
            free[z, y, x] = True
        a, b = net.pins
        d = int(oracle_dist3d(free, [a], **rules)[b[2], b[1], b[0]])
        if not r.routed:
            assert d == UNREACHED, net.name
            continue
        assert r.length + st.via_cost * r.vias == d == r.levels, net.name
        fewest = min(vias_and_bends(p)[0] for p in oracle_paths3d(free, [a], b, **rules))
        assert r.vias == fewest, net.name
        for x, y, z in r.cells:
            taken[z, y, x] = True


@pytest.mark.parametrize("seed", range(4))
def test_a_one_layer_stack_routes_as_the_2d_router(seed):
    flat = random_layout(14, 12, nets=8, pins=2 + seed % 3, seed=seed, density=0.2)
    stacked = Layout(flat.name, flat.width, flat.height,
                     nets=[Net(n.name, [(x, y, 0) for x, y in n.pins]) for n in flat.nets],
                     blocked=flat.blocked[None].copy(), stack=_stack("any"))
    want = Router(flat, "cpu").run()
    got = route_layered(stacked, "sequential")
    assert want.routed > 0
    for w, g in zip(want.nets, got.nets):
        assert g.routed == w.routed
        assert [c[:2] for c in g.cells] == list(w.cells)
        assert (g.length, g.vias, g.order) == (w.length, 0, w.order)


def test_hpwl_order_routes_the_shortest_net_first():
    lay = Layout("h", 6, 4, nets=[Net("long", [(0, 0, 0), (5, 3, 0)]),
                                  Net("short", [(0, 3, 0), (2, 3, 0)])],
                 stack=_stack("any", "any"))
    res = route_layered(lay, "sequential", order="hpwl")
    assert [n.order for n in res.nets] == [1, 0] and res.order == "hpwl"
    _valid(lay, res)


# -- negotiation -----------------------------------------------------------------------
@pytest.mark.parametrize("k", range(len(RANDOM)))
def test_negotiate_routes_at_least_as_many_nets_as_sequential(k):
    lay = RANDOM[k]
    assert route_layered(lay).routed >= route_layered(lay, "sequential").routed


def test_negotiate_beats_sequential_where_first_wires_wall_others_off():
    lay = random_layout3d(16, 16, 2, nets=30, span=8, seed=0, density=0.1,
                          directions=["horizontal", "vertical"], via_cost=2)
    seq, neg = route_layered(lay, "sequential"), route_layered(lay)
    assert neg.routed > seq.routed
    _valid(lay, neg)


@pytest.mark.parametrize("w,h,layers,nets", [(16, 16, 2, 30), (24, 24, 3, 80),
                                             (32, 32, 4, 180)])
def test_negotiate_completes_solvable_puzzles(w, h, layers, nets):
    total = routed = 0
    for seed in range(3):
        p = solvable_puzzle(w, h, layers, nets=nets, seed=seed)
        res = route_layered(p.layout)
        _valid(p.layout, res)
        total += len(p.layout.nets)
        routed += res.routed
    assert routed >= 0.95 * total


def test_negotiate_is_deterministic():
    lay = RANDOM[5]
    assert route_layered(lay).to_json() == route_layered(lay).to_json()


def test_negotiate_honours_max_iterations_and_reports_each():
    lay = random_layout3d(16, 16, 2, nets=30, span=8, seed=0, density=0.1,
                          directions=["horizontal", "vertical"], via_cost=2)
    seen = []
    res = route_layered(lay, options=PathFinderOptions(max_iterations=2),
                        progress=seen.append)
    assert [s.iteration for s in res.iterations] == [1, 2] and seen == res.iterations
    assert res.stop == "max iterations"
    assert res.iterations[0].pres_fac == 0.0 and res.iterations[0].rerouted == 30
    _valid(lay, res)


def test_negotiate_honours_a_time_limit_and_stays_legal():
    lay = RANDOM[5]
    res = route_layered(lay, options=PathFinderOptions(time_limit=0.0))
    assert res.stop == "time limit" and res.iterations == []
    assert res.routed >= route_layered(lay, "sequential").routed
    _valid(lay, res)


# -- refusals --------------------------------------------------------------------------
def test_refusals():
    lay = RANDOM[0]
    with pytest.raises(ValueError, match="unknown mode"):
        route_layered(lay, "fast")
    with pytest.raises(ValueError, match="negotiate mode only"):
        route_layered(lay, "sequential", options=PathFinderOptions())
    with pytest.raises(ValueError, match="unknown net order"):
        route_layered(lay, order="random")
    with pytest.raises(ValueError, match="no layers"):
        route_layered(random_layout(5, 5, nets=1, seed=0))


def test_route_result_of_2d_layout_is_unchanged_by_vias_field():
    lay = Layout("p", 3, 1, nets=[Net("a", [(0, 0), (2, 0)])])
    r = NetRoute("a", [(0, 0), (2, 0)], routed=True, order=0,
                 cells=[(0, 0), (1, 0), (2, 0)], length=2)
    doc = RouteResult(lay, [r], "cpu/grid", "file", 0.0).to_json()
    assert doc["nets"][0] == {"name": "a", "routed": True, "order": 0,
                              "cells": [[0, 0], [1, 0], [2, 0]], "length": 2, "bends": 0}
