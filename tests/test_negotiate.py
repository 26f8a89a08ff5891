"""Negotiated-congestion routing (router.negotiate): conflicts sequential routing cannot
resolve, legality and the floor, determinism, batches, reasons, iterations."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import mazeroute.router.negotiate as neg
import mazeroute.router.negotiation.device as device_loop
import mazeroute.router.negotiation.legal as legal
import mazeroute.router.negotiation.schedule as schedule
from mazeroute.contract import check_routes
from mazeroute.engines.weighted import LEVEL_TILE, NetRequest, box_colours, box_levels
from mazeroute.generate import random_layout
from mazeroute.router import PathFinderOptions, Router, route
from mazeroute.router.congestion import COST_SCALE, Congestion
from mazeroute.router.negotiate import Negotiator, sequential_routes
from mazeroute.router.negotiation.phases import run_phases
from mazeroute.router.negotiation.schedule import colour_order
from tests.corpus import (
    bfs_connected,
    corridor_layout,
    other_side_layout,
    oversubscribed_layout,
    puzzle_layout,
    unroutable_layout,
)


def _negotiate(lay, **kw):
    res = route(lay, backend="cpu", mode="negotiate", **kw)
    assert check_routes(lay, res.to_json()) == []
    return res


def test_net_passes_on_the_other_side_where_sequential_walls_it_off():
    lay = other_side_layout()
    seq = route(lay, backend="cpu", mode="sequential")
    assert [n.routed for n in seq.nets] == [True, False]
    res = _negotiate(lay)
    assert [n.routed for n in res.nets] == [True, True]
    a = res.nets[0]
    assert all(y != 1 or x in (0, 4) for x, y in a.cells)      # a left row 1 ...
    assert max(y for _, y in a.cells) == 3                      # ... to pass below b
    assert res.iterations[-1].overused == 0 and res.notice is None


def test_corridor_contested_by_three_nets_goes_to_the_one_without_a_way_round():
    lay = corridor_layout()
    seq = route(lay, backend="cpu", mode="sequential")
    assert [n.routed for n in seq.nets] == [True, True, False]
    assert (6, 4) in seq.nets[0].cells                          # a took the corridor
    res = _negotiate(lay)
    assert [n.routed for n in res.nets] == [True, True, True]
    a, b, c = res.nets
    assert (6, 4) in c.cells and (6, 0) in a.cells and (6, 8) in b.cells
    assert res.mode == "negotiate" and res.to_json()["mode"] == "negotiate"


def test_reasons_of_unroutable_nets():
    lay = unroutable_layout()
    res = _negotiate(lay, max_iterations=6)
    why = {n.name: n.reason for n in res.nets if not n.routed}
    assert why == {"boxed": "enclosed by the pins of nets n1, n2, n3, n4",
                   "walled": "cut off from its pins by blockages",
                   "y": "still in conflict with nets x after 6 iterations"}
    assert all(n.reason is None for n in res.nets if n.routed)
    assert res.to_json()["nets"][0]["reason"] == why["boxed"]
    assert len(res.iterations) == 6      # x and y never agree: every iteration runs
    assert res.stop == "iteration cap (6) reached"


def test_walled_off_reason_names_the_wires():
    lay = other_side_layout()
    seq = route(lay, backend="cpu", mode="sequential")      # b walled off by a's straight wire
    ng = Negotiator(lay, "cpu")
    ng._explain(seq, 0, negotiated=False)
    assert seq.nets[1].reason == "walled off by the wires of nets a"


def test_iterations_are_reported_and_limits_hold():
    lay = unroutable_layout()
    seen = []
    res = _negotiate(lay, max_iterations=4, progress=seen.append)
    assert [s.iteration for s in seen] == [1, 2, 3, 4] == [s.iteration for s in res.iterations]
    first = seen[0]
    assert first.rerouted == len(lay.nets) - 0 and first.pres_fac == 0.0
    assert all(s.overused == 1 and s.conflicts == 2 for s in seen[1:])   # x and y
    assert all(s.rerouted == 2 for s in seen[1:])
    limited = _negotiate(lay, time_limit=0)
    assert len(limited.iterations) == 1 and limited.stop == "time limit (0 s) reached"
    assert res.history is not None and res.history.shape == (lay.height, lay.width)
    assert res.history[1, 10] > 0 and res.history.sum() == res.history[1, 10]


def test_phases_after_the_loop_are_timed_in_order():
    """The phases after the loop (seconds on large layouts) are in the result, in the
    order they ran, each with the nets routed at its end; the reasons and the
    sequential floor only where nets stay unrouted."""
    lay = unroutable_layout()                    # three of its nets stay unrouted
    res = _negotiate(lay, max_iterations=3)
    names = [ph.phase for ph in res.phases]
    assert names[:3] == ["legalise", "repair", "tidy"] and "reasons" in names
    assert all(ph.seconds >= 0 for ph in res.phases)
    assert res.phases[-1].routed == res.routed == len(lay.nets) - 3
    routed = [ph.routed for ph in res.phases]
    assert routed == sorted(routed)              # repair and tidy never lose a net
    done = _negotiate(other_side_layout())       # everything routes: no reasons, no floor
    assert [ph.phase for ph in done.phases] == ["legalise", "repair", "tidy"]
    assert done.stop is None and done.iterations[-1].overused == 0
    assert done.phases[-1].routed == len(done.nets) == done.routed


def test_a_conflict_nothing_changes_stops_negotiation():
    """x and y both need one cell: after stall_iterations iterations of the same
    conflict negotiation gives up; without the predictor it runs to max_iterations."""
    lay = unroutable_layout()
    stalled = _negotiate(lay, options=PathFinderOptions(stall_iterations=5,
                                                        stall_min_conflicts=0))
    assert len(stalled.iterations) == 6                 # conflict set fixed from iteration 1
    assert stalled.stop == ("a plateau (no new low of overused cells or nets in conflict "
                            "for 5 iterations)")
    full = _negotiate(lay, options=PathFinderOptions(stall_iterations=None, max_iterations=20))
    assert len(full.iterations) == 20
    assert [n.routed for n in stalled.nets] == [n.routed for n in full.nets]
    # by default a plateau of two nets in conflict is no stall (too few to give up on)...
    assert len(_negotiate(lay, options=PathFinderOptions(max_iterations=15)).iterations) == 15
    # ... unless its iterations search many cells (here: any at all)
    dear = _negotiate(lay, options=PathFinderOptions(stall_iterations=5, stall_min_cells=1))
    assert len(dear.iterations) == 6
    assert [n.routed for n in dear.nets] == [n.routed for n in full.nets]


def test_cheap_iterations_go_on_past_budget_after_until_the_budget():
    """The corpus puzzle resolves its last conflicts after more than 50 iterations:
    negotiation goes on past ``budget_after`` while its searches covered fewer than
    ``budget_cells`` cells, stops at the first iteration that reaches the budget, and
    never passes ``max_iterations``."""
    from dataclasses import replace
    lay = puzzle_layout()
    opt = PathFinderOptions(fill_steps=0, window_work=0)   # negotiation's own routes
    ng = Negotiator(lay, "cpu", opt)
    full = ng.run()
    assert full.routed == len(lay.nets) and len(full.iterations) > opt.budget_after
    assert ng.cells_searched < opt.budget_cells
    assert check_routes(lay, full.to_json()) == []
    held = _negotiate(lay, options=replace(opt, budget_cells=0))
    assert len(held.iterations) == opt.budget_after and held.routed < len(lay.nets)
    assert held.stop == "past 50 iterations it goes on only while its searches are cheap"
    assert len(_negotiate(lay, options=replace(opt, max_iterations=60)).iterations) == 60
    # a cap the caller names (route's max_iterations, --max-iterations) lifts the budget
    assert len(_negotiate(lay, options=replace(opt, budget_cells=0),
                          max_iterations=70).iterations) == 70
    spent = np.cumsum(ng.searched)                          # cells after each iteration
    k = opt.budget_after + 10
    part = _negotiate(lay, options=replace(opt, budget_cells=int(spent[k - 1])))
    assert len(part.iterations) == k
    assert [s.overused for s in part.iterations] == [s.overused for s in full.iterations[:k]]


def test_a_lag_past_the_last_box_is_bounded():
    """box_levels' compiled loop runs over the lag: a lag of 10**12 (``snapshot_nets``)
    answers at once, as a lag of the box count does."""
    import time
    boxes = np.array([[0, 0, 9, 9], [5, 5, 14, 14], [20, 0, 29, 9]])
    start = time.perf_counter()
    assert box_levels(boxes, (32, 32), 10**12).tolist() == \
        box_levels(boxes, (32, 32), 3).tolist() == [0, 0, 0]
    assert time.perf_counter() - start < 5
    lay = unroutable_layout()
    assert _negotiate(lay, options=PathFinderOptions(snapshot_nets=10**12,
                                                     max_iterations=5)).routed >= 0


def test_route_refuses_options_of_the_other_mode():
    lay = unroutable_layout()
    with pytest.raises(ValueError, match="max_iterations"):
        route(lay, backend="cpu", mode="sequential", max_iterations=3)
    with pytest.raises(ValueError, match="time_limit"):
        route(lay, backend="cpu", mode="sequential", time_limit=1.0)
    with pytest.raises(TypeError, match="PathFinderOptions"):
        route(lay, backend="cpu", mode="negotiate", options={"max_iterations": 3})


def test_searched_cells_are_the_box_areas_of_each_iteration():
    lay = unroutable_layout()
    ng = Negotiator(lay, "cpu", PathFinderOptions(max_iterations=4, stall_iterations=None))
    areas = []
    real = ng.search.route

    def route(cost, requests, changed=None):
        areas.append(sum((r.box[2] - r.box[0] + 1) * (r.box[3] - r.box[1] + 1)
                         for r in requests))
        return real(cost, requests, changed)

    ng.search.route = route
    per = []
    for k in range(4):
        before = len(areas)
        ng.reroute(ng.order if k == 0 else [0, 1])
        per.append(sum(areas[before:]))
    assert ng.cells_searched == sum(per) > 0
    ng2 = Negotiator(lay, "cpu", PathFinderOptions(max_iterations=4, stall_iterations=None))
    ng2.negotiate()
    assert len(ng2.searched) == 4 and ng2.searched[0] == per[0]
    assert sum(ng2.searched) == ng2.cells_searched


@pytest.mark.parametrize("seed", range(3))
def test_tidy_never_lengthens_a_wire_and_shortens_detours(seed):
    lay = random_layout(60, 60, density=0.2, nets=80, pins=2 + seed % 2, seed=seed, span=20)
    ng = Negotiator(lay, "cpu")
    ng.negotiate()
    ng.legalise()
    before = [None if c is None else len(c) for c in ng.cells]
    ng.tidy()
    after = [None if c is None else len(c) for c in ng.cells]
    assert [b is None for b in before] == [a is None for a in after]
    assert all(a <= b for a, b in zip(after, before) if a is not None)
    assert sum(a for a in after if a) < sum(b for b in before if b)
    res = ng._result()
    assert check_routes(lay, res.to_json()) == []


def test_repair_rips_up_a_net_that_has_another_way():
    """From sequential mode's routes of the corridor case (a in the corridor, c walled
    off), repair routes c through the corridor and sends a round its private lane."""
    lay = corridor_layout()
    ng = Negotiator(lay, "cpu")
    for i, net in enumerate(sequential_routes(lay, "cpu").nets):
        if net.routed:
            ng._set_route(i, np.array(net.cells))
    assert ng.cells[2] is None
    assert ng.repair() == 1
    a, _, c = ng.cells
    assert (6, 4) in map(tuple, c.tolist()) and (6, 0) in map(tuple, a.tolist())
    assert check_routes(lay, ng._result().to_json()) == []


def test_repair_puts_everything_back_when_a_victim_finds_no_way():
    """x and y both need (10, 1): y may rip x up, but x then has no way; nothing
    changes."""
    lay = unroutable_layout()
    ng = Negotiator(lay, "cpu")
    for i, net in enumerate(sequential_routes(lay, "cpu").nets):
        if net.routed:
            ng._set_route(i, np.array(net.cells))
    before = [None if c is None else c.tolist() for c in ng.cells]
    assert ng.repair() == 0
    assert [None if c is None else c.tolist() for c in ng.cells] == before


def test_same_input_same_routes():
    lay = random_layout(60, 50, density=0.25, nets=60, pins=2, seed=5, span=20)
    a = _negotiate(lay).to_json()
    b = _negotiate(lay).to_json()
    assert a == b


#: PathFinder's order exactly: each net sees every net rerouted before it.
IN_ORDER = PathFinderOptions(snapshot_nets=1)


@pytest.mark.parametrize("lag", [1, 2, 5, 40])
@pytest.mark.parametrize("seed", range(3))
def test_box_levels_follow_the_overlapping_boxes_lag_places_before(seed, lag):
    """Each box's level is one more than the highest level of the boxes at least
    ``lag`` places before it that share a tile with it (a direct statement of the rule),
    and at most ``i // lag``; with lag 1 the boxes of a level are pairwise disjoint."""
    rng = np.random.default_rng(seed)
    h, w = 120, 160
    x0, y0 = rng.integers(0, w, 200), rng.integers(0, h, 200)
    boxes = np.stack([x0, y0, np.minimum(w - 1, x0 + rng.integers(0, 30, 200)),
                      np.minimum(h - 1, y0 + rng.integers(0, 30, 200))], axis=1)
    got = box_levels(boxes, (h, w), lag)
    t = LEVEL_TILE
    tiles = [{(tx, ty) for tx in range(b[0] // t, b[2] // t + 1)
              for ty in range(b[1] // t, b[3] // t + 1)} for b in boxes.tolist()]
    want = []
    for i in range(len(boxes)):
        want.append(1 + max([want[j] for j in range(i - lag + 1) if tiles[i] & tiles[j]],
                            default=-1))
    assert got.tolist() == want
    assert all(got[i] <= i // lag for i in range(len(boxes)))
    if lag == 1:
        for level in np.unique(got):
            members = boxes[got == level]
            for i, p in enumerate(members):
                for q in members[i + 1:]:
                    assert p[2] < q[0] or q[2] < p[0] or p[3] < q[1] or q[3] < p[1]


def _random_boxes(rng, n, h, w, most):
    x0, y0 = rng.integers(0, w, n), rng.integers(0, h, n)
    return np.stack([x0, y0, np.minimum(w - 1, x0 + rng.integers(0, most, n)),
                     np.minimum(h - 1, y0 + rng.integers(0, most, n))], axis=1)


def _tiles(boxes):
    t = LEVEL_TILE
    return [{(tx, ty) for tx in range(b[0] // t, b[2] // t + 1)
             for ty in range(b[1] // t, b[3] // t + 1)} for b in boxes.tolist()]


@pytest.mark.parametrize("most", [10, 30, 200])
@pytest.mark.parametrize("seed", range(3))
def test_box_colours_are_first_fit(seed, most):
    """Each box's colour is the least colour no earlier box sharing a tile with it has
    (a direct statement of the rule; boxes up to the whole grid need more than one
    64-colour word), never above its level; the order by colour keeps the position
    order within a colour."""
    rng = np.random.default_rng(seed)
    h, w = 120, 160
    boxes = _random_boxes(rng, 300, h, w, most)
    got = box_colours(boxes, (h, w))
    tiles = _tiles(boxes)
    want = []
    for i in range(len(boxes)):
        taken = {want[j] for j in range(i) if tiles[i] & tiles[j]}
        want.append(min(set(range(len(boxes) + 1)) - taken))
    assert got.tolist() == want
    assert (got <= box_levels(boxes, (h, w))).all()
    assert (most < 200) or got.max() >= 64
    order = colour_order(boxes, (h, w))
    assert sorted(order.tolist()) == list(range(len(boxes)))
    key = [(want[i], i) for i in order.tolist()]
    assert key == sorted(key)


@pytest.mark.parametrize("reroute_order", ["colour", "hpwl"])
def test_nets_go_in_reroute_order(monkeypatch, reroute_order):
    """From iteration 2 on the nets reach the batches in ``reroute_order``: by first-fit
    colour of their boxes in hpwl order, then hpwl order (each batch then holds one
    colour's boxes, or fewer), or in hpwl order alone; the routes are legal and never
    fewer than sequential's either way."""
    lay = random_layout(96, 96, density=0.25, nets=150, pins=2, seed=5, span=24)
    ng = Negotiator(lay, "cpu", PathFinderOptions(reroute_order=reroute_order))
    real_order, real_batches = ng._order, neg.batches
    seen, counts = [], []

    def ordered(boxes):
        perm = real_order(boxes)
        seen.append((boxes.copy(), perm))
        return perm

    def batched(boxes, shape, lag=1):
        out = real_batches(boxes, shape, lag)
        if len(counts) < len(seen):     # the cut of an order (legalise keeps its own)
            counts.append((boxes.copy(), len(out)))
        return out

    ng._order = ordered
    monkeypatch.setattr(schedule, "batches", batched)
    res = ng.run()
    assert check_routes(lay, res.to_json()) == []
    assert res.routed >= route(lay, backend="cpu", mode="sequential").routed
    assert len(seen) > 3 and len(counts) == len(seen)
    reordered = False
    for (asked, perm), (boxes, count) in zip(seen, counts):
        colours = box_colours(asked, ng.shape)
        if reroute_order == "hpwl":
            assert perm.tolist() == list(range(len(asked)))
        else:
            assert perm.tolist() == sorted(range(len(asked)), key=lambda k: (colours[k], k))
            assert count <= colours.max() + 1 <= box_levels(asked, ng.shape).max() + 1
            reordered |= perm.tolist() != list(range(len(asked)))
        # tidy (the last) passes over wires that cannot get shorter: a subsequence
        ordered_boxes = iter(asked[perm].tolist())
        assert all(b in ordered_boxes for b in boxes.tolist())
        assert len(boxes) == len(asked) or seen[-1][0] is asked
    assert reordered or reroute_order == "hpwl"


@pytest.mark.parametrize("seed", range(12))
def test_tidy_in_batches_equals_one_net_at_a_time(monkeypatch, seed):
    """Tidying in batches gives the wires of one net a call, and legal ones, even where
    wires run outside their nets' boxes (here every box is cut down to its pins' after
    repair): a batch's regions, box and wire, are disjoint."""
    lay = random_layout(64, 64, density=0.25, nets=90, pins=2, seed=seed, span=24)

    def tidied():
        ng = Negotiator(lay, "cpu")
        ng.negotiate()
        ng.legalise()
        ng.repair()
        ng.margin[:] = 0
        outside = sum(c is not None and bool(((c < ng.lo[i]) | (c > ng.hi[i])).any())
                      for i, c in enumerate(ng.cells))
        ng.tidy()
        return ng, outside

    batched, outside = tidied()
    assert outside > 10
    assert check_routes(lay, batched._result().to_json()) == []
    monkeypatch.setattr(schedule, "batches",
                        lambda boxes, shape, lag=1: [np.array([k]) for k in range(len(boxes))])
    alone, _ = tidied()
    assert [None if c is None else c.tolist() for c in batched.cells] == \
        [None if c is None else c.tolist() for c in alone.cells]


@pytest.mark.parametrize("seed", range(4))
def test_batches_change_nothing(monkeypatch, seed):
    """Order-keeping batches give exactly the routes of one net per search call, and
    so do runs of one net."""
    lay = random_layout(64, 64, density=0.2, nets=70, pins=2 + seed % 2, seed=seed, span=24)
    batched = _negotiate(lay, options=IN_ORDER).to_json()
    counts = []

    def one_by_one(boxes, shape, lag=1):
        counts.append(len(boxes))
        return [np.array([k]) for k in range(len(boxes))]

    monkeypatch.setattr(schedule, "batches", one_by_one)
    assert _negotiate(lay, options=IN_ORDER).to_json() == batched
    assert counts


@pytest.mark.parametrize("seed", range(3))
def test_nets_closer_than_snapshot_nets_share_calls_and_stay_legal(monkeypatch, seed):
    """From iteration 2 on, each call is one batch, and nets of one batch whose boxes
    overlap are fewer than ``snapshot_nets`` places apart among the nets rerouted; such
    calls do come, and the routes stay legal and never fewer than sequential's."""
    lay = random_layout(72, 64, density=0.25, nets=110, pins=2 + seed % 2, seed=seed, span=20)
    k = 8
    ng = Negotiator(lay, "cpu", PathFinderOptions(snapshot_nets=k))
    real_batches, real_route = neg.batches, ng.search.route
    planned, calls = [], []

    def recorded(boxes, shape, lag=1):
        out = real_batches(boxes, shape, lag)
        planned.extend([boxes[g].tolist() for g in out])
        for g in out:
            for a, i in enumerate(g.tolist()):
                for j in g[a + 1:].tolist():
                    p, q = boxes[i], boxes[j]
                    if not (p[2] < q[0] or q[2] < p[0] or p[3] < q[1] or q[3] < p[1]):
                        assert abs(i - j) < k
                        close.append((i, j))
        return out

    def counted(cost, requests, changed=None):
        if not ng.state.order_free():
            calls.append([list(r.box) for r in requests])
        return real_route(cost, requests, changed)

    close: list = []
    monkeypatch.setattr(schedule, "batches", recorded)
    ng.search.route = counted
    ng.negotiate()
    assert len(ng.iterations) > 1 and calls == planned
    assert close                             # calls do hold overlapping boxes
    res = route(lay, backend="cpu", mode="negotiate", options=PathFinderOptions(snapshot_nets=k))
    assert check_routes(lay, res.to_json()) == []
    assert res.routed >= route(lay, backend="cpu", mode="sequential").routed


@pytest.mark.parametrize("seed", range(3))
def test_first_iteration_in_one_call_changes_nothing(monkeypatch, seed):
    """With pres_fac 0 every net goes in one call (boxes overlapping); the routes are
    those of order-keeping batches of one net each."""
    lay = random_layout(64, 64, density=0.2, nets=70, pins=2 + seed % 2, seed=seed, span=24)
    sizes = []
    ng = Negotiator(lay, "cpu", IN_ORDER)
    real = ng.search.route

    def counted(cost, requests, changed=None):
        sizes.append(len(requests))
        return real(cost, requests, changed)

    ng.search.route = counted
    together = ng.run().to_json()
    assert sizes[0] == len(lay.nets)                  # iteration 1: one call
    monkeypatch.setattr(Congestion, "order_free", lambda self: False)
    monkeypatch.setattr(schedule, "batches",
                        lambda boxes, shape, lag=1: [np.array([k]) for k in range(len(boxes))])
    assert _negotiate(lay, options=IN_ORDER).to_json() == together


@pytest.mark.parametrize("snapshot", [1, 64])
def test_search_contract_disjoint_boxes_and_changed_cells(snapshot):
    """Every call the router makes: boxes pairwise disjoint whenever costs depend on the
    order (pres_fac > 0; in the loop only under PathFinder's order, since a run is
    searched on one snapshot), and the cost array differs from the previous call's only
    in the cells listed as changed."""
    lay = random_layout(80, 60, density=0.25, nets=80, pins=3, seed=2, span=25)
    ng = Negotiator(lay, "cpu", PathFinderOptions(snapshot_nets=snapshot))
    real = ng.search.route
    last = {"loop": True}
    overlaps = []

    def checked(cost, requests, changed=None):
        boxes = [r.box for r in requests]
        apart = all(p[2] < q[0] or q[2] < p[0] or p[3] < q[1] or q[3] < p[1]
                    for i, p in enumerate(boxes) for q in boxes[i + 1:])
        if last["loop"] and snapshot > 1:
            overlaps.append(not apart)
        else:
            assert ng.state.order_free() or apart
        if "cost" in last and changed is not None:
            moved = np.flatnonzero(cost.ravel() != last["cost"].ravel())
            assert set(moved.tolist()) <= set(np.asarray(changed).tolist())
        last["cost"] = cost.copy()
        return real(cost, requests, changed)

    ng.search.route = checked
    iterations = ng.negotiate()
    last["loop"] = False
    ng.legalise()
    ng.repair()
    ng.tidy()
    res = ng._result()
    assert check_routes(lay, res.to_json()) == []
    assert iterations > 1
    assert any(overlaps) == (snapshot > 1)     # calls do hold overlapping boxes


@st.composite
def layouts(draw):
    w, h = draw(st.integers(3, 24)), draw(st.integers(3, 24))
    seed = draw(st.integers(0, 2**16))
    density = draw(st.sampled_from([0.0, 0.1, 0.3]))
    pins = draw(st.integers(2, 4))
    nets = draw(st.integers(1, max(1, min(12, (w * h) // (3 * pins)))))
    span = draw(st.sampled_from([None, 4, 8]))
    try:
        return random_layout(w, h, density=density, nets=nets, pins=pins, seed=seed,
                             span=span)
    except Exception:
        assume(False)


@given(lay=layouts())
@settings(max_examples=60, deadline=None)
def test_never_fewer_nets_than_sequential_and_always_legal(lay):
    seq = route(lay, backend="cpu", mode="sequential")
    res = _negotiate(lay, max_iterations=12)
    assert res.routed >= seq.routed
    for n in res.nets:
        assert (n.reason is None) == n.routed


@pytest.mark.parametrize("seed", range(8))
def test_never_fewer_nets_than_sequential_on_crowded_layouts(seed):
    lay = random_layout(48, 40, density=0.3, nets=90, pins=2 + seed % 2, seed=seed, span=16)
    seq = route(lay, backend="cpu", mode="sequential")
    res = _negotiate(lay, max_iterations=15)
    assert res.routed >= seq.routed


@given(lay=layouts())
@settings(max_examples=60, deadline=None)
def test_sequential_floor_equals_the_sequential_router(lay):
    """The floor's loop over the nets (weighted search on unit costs, for a time limit
    or a watched net) draws the sequential router's wires, and counts their bends as it
    does, trees included (from the cells alone; an unrouted tree has none in the floor,
    the bends of the branches it found in sequential mode)."""
    floor = sequential_routes(lay, "cpu", until=lambda: False).to_json()
    want = Router(lay, "cpu").run().to_json()
    for d in (floor, want):
        d.pop("engine")
        for net in d["nets"]:
            if not net["routed"]:
                net.pop("bends")
    assert floor == want


@given(lay=layouts())
@settings(max_examples=40, deadline=None)
def test_sequential_floor_stops_once_it_cannot_beat(lay):
    """``beat``: None exactly when the floor routes at most ``beat`` nets, the same
    routes otherwise."""
    floor = sequential_routes(lay, "cpu")
    for beat in {max(0, floor.routed - 1), floor.routed}:
        for until in (None, lambda: False):           # the router, and the loop
            got = sequential_routes(lay, "cpu", beat=beat, until=until)
            if floor.routed <= beat:
                assert got is None
            else:
                assert [n.cells for n in got.nets] == [n.cells for n in floor.nets]


def test_without_a_clock_or_a_watched_net_the_floor_is_sequential_modes_router():
    """The wait bound is timed on the floor: it is the router ``--mode sequential``
    runs, not the slower loop over the nets."""
    lay = random_layout(60, 50, density=0.2, nets=30, pins=2, seed=3, span=20)
    router = Router(lay, "cpu")
    floor = sequential_routes(lay, "cpu")
    assert floor.engine == router.engine != "cpu/weighted"
    assert sequential_routes(lay, "cpu", until=lambda: False).engine == "cpu/weighted"
    from mazeroute.router.watch import Watch
    assert sequential_routes(lay, "cpu", watch=Watch(0)).engine == "cpu/weighted"
    assert [n.cells for n in floor.nets] == [n.cells for n in router.run().nets]


def test_options_reach_the_negotiation():
    lay = corridor_layout()
    res = route(lay, backend="cpu", mode="negotiate",
                options=PathFinderOptions(max_iterations=1))
    assert len(res.iterations) == 1
    with pytest.raises(ValueError, match="unknown routing mode"):
        route(lay, mode="bogus")


@pytest.mark.gpu
def test_negotiation_stopped_for_the_nets_kept_on_the_gpu_equals_the_cpu():
    """The stop on the nets kept (``kept_iterations``) fires at the same iteration
    whatever engine searches, and the routes are the same."""
    lay = oversubscribed_layout()
    # the over-subscription rule stops this layout sooner (its own test: test_bounded)
    kept = PathFinderOptions(crowd_iterations=None, wait_factor=0)
    cpu = route(lay, backend="cpu", options=kept)
    gpu = route(lay, backend="gpu", options=kept)
    assert gpu.stop == cpu.stop and cpu.stop.startswith("the nets it would keep")
    assert len(gpu.iterations) == len(cpu.iterations)
    assert [n.cells for n in gpu.nets] == [n.cells for n in cpu.nets]
    assert check_routes(lay, gpu.to_json()) == []


@pytest.mark.gpu
@pytest.mark.parametrize("seed", range(4))
def test_negotiation_on_the_gpu_equals_the_cpu(seed):
    """The same negotiation whatever engine searches: every wire equal, and the
    sequential floor too (the GPU's is the batched sequential router)."""
    lay = random_layout(160, 120, density=0.2, nets=90 + 20 * seed, seed=seed, span=24)
    cpu = route(lay, backend="cpu", mode="negotiate")
    gpu = route(lay, backend="gpu", mode="negotiate")
    assert [n.cells for n in gpu.nets] == [n.cells for n in cpu.nets]
    assert [n.reason for n in gpu.nets] == [n.reason for n in cpu.nets]
    assert check_routes(lay, gpu.to_json()) == []
    floor_cpu, floor_gpu = sequential_routes(lay, "cpu"), sequential_routes(lay, "gpu")
    assert [n.cells for n in floor_gpu.nets] == [n.cells for n in floor_cpu.nets]
    assert sequential_routes(lay, "gpu", beat=floor_cpu.routed) is None
    if floor_cpu.routed:
        got = sequential_routes(lay, "gpu", beat=floor_cpu.routed - 1)
        assert [n.cells for n in got.nets] == [n.cells for n in floor_cpu.nets]


def test_route_negotiates_by_default_and_sequential_is_the_router():
    """``mode=`` defaults to negotiate; ``mode="sequential"`` is exactly
    :class:`Router`'s loop (same wires, same order)."""
    from mazeroute.router import DEFAULT_MODE, Router
    lay = other_side_layout()
    assert DEFAULT_MODE == "negotiate"
    res = route(lay, backend="cpu")
    assert res.mode == "negotiate" and [n.routed for n in res.nets] == [True, True]
    for order in ("file", "hpwl"):
        seq = route(lay, backend="cpu", mode="sequential", order=order)
        assert seq.mode == "sequential"
        assert seq.to_json()["nets"] == Router(lay, "cpu").run(order).to_json()["nets"]
    assert route(lay, backend="cpu", mode="sequential").to_json()["nets"] == \
        Router(lay, "cpu").run("file").to_json()["nets"]
    for option in ({"order": "hpwl"}, {"strategy": "cpu/grid"}):
        with pytest.raises(ValueError, match="sequential"):
            route(lay, backend="cpu", **option)


@pytest.mark.parametrize("seed", range(3))
def test_conflicts_found_from_the_rerouted_nets_equal_a_full_scan(seed, monkeypatch):
    """The loop finds the nets in conflict from the nets it rerouted (and id sums); a
    scan of every route gives the same, in every iteration."""
    lay = random_layout(40, 36, density=0.25, nets=70, pins=2 + seed % 2, seed=seed, span=14)
    real = Negotiator.conflicting
    calls = []

    def both(self, changed=None, uses=None):
        got = real(self, changed, uses)
        assert got.tolist() == sorted(self.in_conflict()) == real(self).tolist()
        calls.append(uses is not None and bool(got.size))
        return got
    monkeypatch.setattr(Negotiator, "conflicting", both)
    Negotiator(lay, "cpu", PathFinderOptions(max_iterations=12)).run()
    assert any(calls)                                  # some iteration had conflicts


def test_negotiation_stops_when_the_overuse_grows_past_the_first_iterations():
    """Long nets through a maze's one-cell corridors: their detours round each other
    double the overuse of the first iteration and keep it there, so negotiation stops
    (``diverge_factor``), legalises, and still routes no fewer nets than sequential."""
    from mazeroute.generate import class_mask, random_nets
    from mazeroute.layout import Layout

    blocked = class_mask("maze:0.05", 160, seed=7)
    lay = Layout("maze", 160, 160, [], [], blocked)
    lay.nets = random_nets(blocked, 80, 2, np.random.default_rng(5))
    res = route(lay, backend="cpu")
    over = [s.overused for s in res.iterations]
    k = PathFinderOptions().diverge_iterations
    assert min(over[-k:]) >= PathFinderOptions().diverge_factor * over[0]
    assert res.stop.startswith("the overused cells stayed at 1.5 times the first")
    from mazeroute.report import format_negotiation
    assert f"nets: {res.stop}" in format_negotiation(res).splitlines()[0]
    longer = route(lay, backend="cpu", options=PathFinderOptions(diverge_factor=None))
    assert len(longer.iterations) > len(res.iterations)
    assert res.routed >= route(lay, backend="cpu", mode="sequential").routed
    assert check_routes(lay, res.to_json()) == []


def test_negotiation_stops_when_the_nets_it_would_keep_stop_growing():
    """Far more nets with pins anywhere than an open field has room for: nearly every
    net stays in conflict while the overused cells keep falling, so the plateau rule
    goes on; the nets it would keep stop growing, and negotiation stops there
    (``kept_iterations``), legalises, and routes no fewer nets than sequential, nor
    than the same negotiation run to its plateau."""
    from mazeroute.report import format_negotiation

    lay = oversubscribed_layout()
    # the over-subscription rule (test_bounded) stops this layout sooner: off here
    res = route(lay, backend="cpu", options=PathFinderOptions(crowd_iterations=None))
    assert res.stop == "the nets it would keep reached no new high in 10 iterations"
    assert f"nets: {res.stop}" in format_negotiation(res).splitlines()[0]
    assert min(s.conflicts for s in res.iterations) >= 32
    longer = route(lay, backend="cpu", options=PathFinderOptions(kept_iterations=None,
                                                                 crowd_iterations=None))
    assert len(longer.iterations) > len(res.iterations) + 10
    assert res.routed >= longer.routed
    assert res.routed >= route(lay, backend="cpu", mode="sequential").routed
    assert check_routes(lay, res.to_json()) == []


@pytest.mark.parametrize("edges, n, want", [
    ([], 3, 3),                                        # no edges: every vertex
    ([(0, 1), (1, 2)], 3, 2),                          # a path: both ends
    ([(0, 1), (0, 2), (0, 3), (0, 4)], 5, 4),          # a star: its leaves
    ([(0, 1), (1, 2), (0, 2)], 3, 1),                  # a triangle
    ([(a, b) for a in (0, 1) for b in (2, 3, 4)], 5, 3),   # K(2,3): the side of three
    ([(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)], 6, 3),  # a path of six
])
def test_independent_set_of_hand_made_conflict_graphs(edges, n, want):
    from mazeroute.router.negotiate import _independent
    m = scipy.sparse.eye(n, dtype=np.int32, format="lil")
    for a, b in edges:
        m[a, b] = m[b, a] = 1
    m = m.tocsr()
    assert _independent(m.indptr, m.indices) == want


@pytest.mark.parametrize("seed", range(25))
def test_independent_set_is_maximal_and_never_beats_the_best(seed):
    """On random graphs: never more than a maximum independent set (brute force), and
    at least n / (largest degree + 1), as every maximal independent set."""
    from itertools import combinations

    from mazeroute.router.negotiate import _independent
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 11))
    adj = np.triu(rng.random((n, n)) < rng.uniform(0.1, 0.7), 1)
    adj = adj | adj.T
    m = scipy.sparse.csr_matrix(adj | np.eye(n, dtype=bool))
    got = _independent(m.indptr, m.indices)
    best = max(k for k in range(n + 1) for c in combinations(range(n), k)
               if not adj[np.ix_(c, c)].any())
    assert n / (adj.sum(axis=1).max() + 1) <= got <= best


def _pair_routes(routes) -> tuple[dict[int, set[int]], int]:
    """Each net that shares a cell with others, with those nets, by pairing the routes
    (flat cell lists) directly; and the most users of one cell."""
    cells: dict[int, set[int]] = {}
    for i, r in enumerate(routes):
        for c in ([] if r is None else r.tolist()):
            cells.setdefault(c, set()).add(i)
    graph: dict[int, set[int]] = {}
    for users in cells.values():
        if len(users) > 1:
            for i in users:
                graph.setdefault(i, set()).update(users - {i})
    return graph, max((len(u) for u in cells.values()), default=0)


@pytest.mark.parametrize("seed", range(3))
def test_nets_kept_are_the_routed_nets_less_a_cover_of_the_conflicts(seed, monkeypatch):
    """Negotiator.kept against the routes themselves after each iteration: the routed
    nets, less the nets in conflict outside an independent set of the conflict graph
    built by pairing routes directly (the set taken fewest conflicts first, as kept's
    own, whose greedy the tests above hold against brute force)."""
    lay = random_layout(40, 36, density=0.25, nets=120, pins=2, seed=seed)
    seen = []
    real = Negotiator.kept

    def check(self, changed=None, uses=None):
        got = real(self, changed, uses)
        graph, _ = _pair_routes(self.routes)
        routed = sum(r is not None for r in self.routes)
        free = routed - len(graph)
        assert free <= got <= routed
        # the fewest-first greedy on the direct pairing gives the same count
        left, taken = dict(graph), 0
        for i in sorted(graph, key=lambda j: (len(graph[j]), j)):
            if i in left:
                taken += 1
                for j in graph[i]:
                    left.pop(j, None)
                left.pop(i)
        assert got == free + taken
        seen.append(len(graph))
        return got
    monkeypatch.setattr(Negotiator, "kept", check)
    Negotiator(lay, "cpu", PathFinderOptions(max_iterations=6, stall_min_conflicts=0)).run()
    assert seen and max(seen) > 2


@pytest.mark.parametrize("seed", range(3))
def test_conflict_graph_pairs_the_nets_that_share_a_cell(seed, monkeypatch):
    """Legalisation's conflict graph: each net in conflict with exactly the nets whose
    routes share a cell with its own, checked against pairing the routes directly, on
    layouts with many users to a cell."""
    lay = random_layout(40, 36, density=0.25, nets=120, pins=2, seed=seed)
    seen = []
    real = Negotiator.legalise

    def check(self):
        want, most = _pair_routes(self.routes)
        assert self.in_conflict() == want
        seen.append(most)
        return real(self)
    monkeypatch.setattr(Negotiator, "legalise", check)
    Negotiator(lay, "cpu", PathFinderOptions(max_iterations=2)).run()
    assert seen and seen[0] > 2                          # some cell had several users


def test_gpu_fault_under_auto_negotiates_again_on_the_cpu(monkeypatch):
    """In negotiate mode (the default): a device fault under auto is a
    notice and the CPU engine's routes; with the GPU asked for, one clear error."""
    from mazeroute.errors import EngineUnavailable
    from mazeroute.generate import random_layout
    from mazeroute.router import negotiate as negotiate_module

    class FakeDeviceError(RuntimeError):
        pass

    real = negotiate_module.Negotiator

    class Faulty(real):
        def __init__(self, layout, backend="auto", options=None, plan=None):
            if backend != "cpu":
                raise FakeDeviceError("out of memory allocating 512 bytes")
            super().__init__(layout, backend, options, plan)

    # the planner's one check pretends a GPU, so that asking for one by name plans it
    from mazeroute.plan import device
    monkeypatch.setattr(device, "gpu_available", lambda: True)
    monkeypatch.setattr(device, "gpu_status", lambda: (True, ""))
    monkeypatch.setattr(negotiate_module, "Negotiator", Faulty)
    monkeypatch.setattr(negotiate_module, "device_errors", lambda: (FakeDeviceError,))
    lay = random_layout(40, 30, nets=8, seed=3, span=12)
    want = real(lay, "cpu").run()
    got = negotiate_module.negotiate(lay, "auto")
    assert "failed" in got.notice and "CPU" in got.notice
    assert [n.cells for n in got.nets] == [n.cells for n in want.nets]
    with pytest.raises(EngineUnavailable, match="GPU engine failed: out of memory"):
        negotiate_module.negotiate(lay, "gpu")


def _enclosure_whole_grid(ng: Negotiator, i: int) -> str:
    """The reason of an enclosed net from one labelling of the whole grid (the rule
    written plainly, to hold the windowed search of ``Negotiator._enclosure`` to)."""
    import scipy.ndimage
    passable = ng.free & ((ng.owner == -1) | (ng.owner == i))
    label, _ = scipy.ndimage.label(passable)
    pins = ng.pins[i]
    parts = np.unique(label[pins[:, 1], pins[:, 0]])
    sizes = np.bincount(label.ravel())
    part = parts[np.argmin(sizes[parts])]
    inside = np.pad(label == part, 1)
    rim = (inside[:-2, 1:-1] | inside[2:, 1:-1] | inside[1:-1, :-2] | inside[1:-1, 2:])
    others = set(ng.owner[rim & (ng.owner >= 0) & (ng.owner != i)].tolist())
    if not others:
        return "cut off from its pins by blockages"
    return f"enclosed by the pins of nets {neg._names(ng.layout, others)}"


@pytest.mark.parametrize("seed", range(8))
def test_enclosure_in_windows_equals_the_whole_grid(seed):
    """Pockets small and large (dense pins, blockages up to 45 %, grids past the first
    window): the windowed search names the same nets as one whole-grid labelling."""
    rng = np.random.default_rng(seed)
    w, h = int(rng.integers(20, 160)), int(rng.integers(20, 160))
    lay = random_layout(w, h, density=float(rng.choice([0.1, 0.3, 0.45])),
                        nets=int(rng.integers(20, 200)), pins=2 + seed % 3, seed=seed,
                        span=None if seed % 2 else 12)
    ng = Negotiator(lay, "cpu")
    reasons = [ng._enclosure(i) for i in range(len(lay.nets))]
    assert reasons == [_enclosure_whole_grid(ng, i) for i in range(len(lay.nets))]
    assert len(set(reasons)) > 1


def _reaches_all_pins(ng: Negotiator, i: int) -> bool:
    """A plain BFS over the cells net ``i`` may enter (free, no other net's pin)."""
    may = ng.free & ((ng.owner < 0) | (ng.owner == i))
    return bfs_connected(may, [tuple(p) for p in ng.pins[i].tolist()])


@pytest.mark.parametrize("seed", range(10))
def test_cut_off_equals_a_search_of_the_cells_a_net_may_enter(seed):
    rng = np.random.default_rng(seed)
    w, h = int(rng.integers(8, 60)), int(rng.integers(8, 60))
    lay = random_layout(w, h, density=float(rng.choice([0.2, 0.35, 0.45])),
                        nets=int(rng.integers(10, 120)), pins=2 + seed % 3, seed=seed,
                        span=None if seed % 2 else 6)
    ng = Negotiator(lay, "cpu")
    cut = [ng._cut_off(i) for i in range(len(lay.nets))]
    assert cut == [not _reaches_all_pins(ng, i) for i in range(len(lay.nets))]


def test_cut_off_nets_over_the_corpus_include_both_answers():
    seen = set()
    for seed in range(10):
        lay = random_layout(30, 30, density=0.4, nets=80, pins=2 + seed % 3, seed=seed)
        ng = Negotiator(lay, "cpu")
        seen |= {ng._cut_off(i) for i in range(len(lay.nets))}
    assert seen == {True, False}


def test_a_cut_off_net_is_enclosed_without_growing_its_box_to_the_grid():
    # net c's pin (100, 100) is ringed by the pins of a and b, on a grid of 200 x 200
    lay = random_layout(200, 200, density=0.0, nets=0, seed=1)
    from mazeroute.layout import Net
    lay.nets = [Net("a", [(100, 99), (101, 100)]), Net("b", [(99, 100), (100, 101)]),
                Net("c", [(100, 100), (150, 150)]), Net("d", [(10, 10), (30, 40)])]
    ng = Negotiator(lay, "cpu")
    res = ng.run()
    assert [n.routed for n in res.nets] == [True, True, False, True]
    assert ng.enclosed == {2} and not ng._whole(2)
    assert "enclosed by the pins of nets a, b" in res.nets[2].reason


@pytest.mark.parametrize("seed", range(6))
def test_tidy_passes_over_wires_as_short_as_their_pins_allow_and_no_route_changes(
        monkeypatch, seed):
    """Tidy searches no wire of two pins whose cells are one more than the pins'
    Manhattan distance; the routes are those of tidying every net."""
    lay = random_layout(64, 64, density=0.25, nets=90, pins=2 + (seed % 3 == 2), seed=seed,
                        span=24)

    def tidied():
        ng = Negotiator(lay, "cpu")
        ng.negotiate()
        ng.legalise()
        ng.repair()
        short = {i for i, c in enumerate(ng.cells) if c is not None and len(ng.pins[i]) == 2
                 and len(c) == int(np.abs(ng.pins[i][0] - ng.pins[i][1]).sum()) + 1}
        searched, route = [], ng.search.route

        def spy(cost, requests, changed=None):
            searched.extend(r.net for r in requests)
            return route(cost, requests, changed)
        monkeypatch.setattr(ng.search, "route", spy)
        ng.tidy()
        return ng, searched, short

    skipping, asked, short = tidied()
    monkeypatch.setattr(schedule, "as_short_as_can_be",
                        lambda pins, wires: np.zeros(len(wires), bool))
    every, all_asked, _ = tidied()
    assert [None if c is None else c.tolist() for c in skipping.cells] == \
        [None if c is None else c.tolist() for c in every.cells]
    assert bool(short) == (seed % 3 != 2)        # trees are always searched
    assert set(asked).isdisjoint(short)
    assert sorted(asked) == sorted(set(all_asked) - short)
    assert check_routes(lay, skipping._result().to_json()) == []


def test_as_short_as_can_be():
    pins = [np.array([[0, 0], [3, 1]]), np.array([[0, 0], [3, 1]]),
            np.array([[0, 0], [2, 0], [1, 1]])]
    wires = [np.zeros((5, 2)), np.zeros((7, 2)), np.zeros((4, 2))]
    assert neg.as_short_as_can_be(pins, wires).tolist() == [True, False, False]


# -- the time limit bounds the phases after the loop -----------------------------------
def _fake_clock(ng: Negotiator) -> list[float]:
    """Give ``ng`` a fake clock that stands still until the test moves it on."""
    clock = [0.0]
    ng.now = lambda: clock[0]
    return clock


def test_the_time_limit_cuts_every_phase_after_the_loop():
    """A time limit that runs out in the loop: legalise drops the nets in conflict but
    routes none again, the phases that would search are skipped, the reasons say why,
    the routing is legal, and the report says what the limit did."""
    from mazeroute.report import format_report
    lay = puzzle_layout()                   # the phases after the loop have work on it
    ng = Negotiator(lay, "cpu", PathFinderOptions(time_limit=100.0))
    clock = _fake_clock(ng)

    def progress(stats):
        if stats.iteration == 3:
            clock[0] = 1000.0
    res = ng.run(progress)
    assert check_routes(lay, res.to_json()) == []
    assert len(res.iterations) == 3 and res.stop == "time limit (100 s) reached"
    cut = {ph.phase: ph.cut for ph in res.phases}
    assert cut["legalise"] == "cut short" and cut["reasons"] in ("", "cut short")
    for phase in ("repair", "tidy", "space-filling search", "sequential floor"):
        assert cut[phase] == "skipped", phase
    assert res.routed < len(lay.nets)
    assert all(n.reason for n in res.nets if not n.routed)
    assert "the time limit (100 s) cut short legalise" in res.notice
    assert "skipped repair, tidy, space-filling search" in res.notice
    text = format_report(res)
    assert "repair (skipped by the time limit)" in text
    assert "legalise (cut short by the time limit)" in text
    free = _negotiate(lay)                       # without a limit every phase has its way
    assert all(ph.cut == "" for ph in free.phases) and free.routed == len(lay.nets)


def test_the_time_limit_stops_an_iteration_between_its_batches():
    """From iteration 2 on the loop stops between batches: the nets not searched yet
    keep their routes (so the result stays a routing of every net it had)."""
    lay = puzzle_layout()
    ng = Negotiator(lay, "cpu", PathFinderOptions(time_limit=100.0))
    clock = _fake_clock(ng)
    searched = []
    route = ng.search.route

    def counting(cost, requests, changed=None):
        searched.append(len(requests))
        if len(ng.iterations) == 1 and len(searched) == 3:
            clock[0] = 1000.0               # late after two batches of iteration 2
        return route(cost, requests, changed)
    ng.search.route = counting
    ng.negotiate()
    assert len(ng.iterations) == 2 and ng.cut == {"negotiation": "cut short"}
    assert ng.iterations[1].rerouted > sum(searched[1:3])
    assert all(c is not None for c in ng.cells)
    assert ng.stop == "time limit (100 s) reached"


# -- the watched net: what its search saw ----------------------------------------------
def test_the_watched_net_route_is_a_least_cost_path_on_the_costs_it_saw():
    """The watch keeps the costs of the search the net's route came from: the route's
    cost on them (each cell's price to enter) is the wavefront's value at its far pin."""
    from mazeroute.router.negotiate import negotiate
    from mazeroute.router.watch import Watch, distance_field
    lay = other_side_layout()               # a must go round b's pins
    for i, net in enumerate(lay.nets):
        watch = Watch(i)
        res = negotiate(lay, "cpu", watch=watch)
        seen = watch.taken
        assert seen is not None and seen.root == tuple(net.pins[0])
        xy = res.nets[i].cell_array()
        cost = int(seen.cost[xy[1:, 1], xy[1:, 0]].sum())
        far = tuple(net.pins[1])
        assert distance_field(seen)[far[1], far[0]] == cost // seen.unit
        assert all(seen.passable[y, x] for x, y in xy)


def test_the_negotiator_takes_its_engines_from_the_plan(monkeypatch):
    """The weighted search runs on the plan's negotiation backend and the sequential
    floor on the plan's floor backend; neither is chosen by the negotiator."""
    from dataclasses import replace

    from mazeroute.plan import make_plan
    from mazeroute.router.negotiation import phases
    lay = unroutable_layout()
    plan = make_plan(lay, "cpu", mode="negotiate")
    asked = []

    def floor(layout, backend, **kwargs):
        asked.append(backend)
        return None
    monkeypatch.setattr(phases, "sequential_routes", floor)
    monkeypatch.setattr(neg, "sequential_routes", floor)     # routed first for the bound
    ng = Negotiator(lay, "auto", plan=replace(plan, floor="floor-backend"))
    assert ng.backend == "cpu" and ng.plan.floor == "floor-backend"
    ng.run()
    assert asked and set(asked) == {"floor-backend"}


def test_the_phases_after_the_loop_are_one_list():
    """Each phase after the loop is a step of one signature in PHASES: a list without
    one runs the others, in order."""
    from mazeroute.router.negotiation import phases
    names = [step.__name__ for step in phases.PHASES]
    assert names == ["legalise", "repair", "tidy", "space_fill", "windows", "reasons", "floor"]
    lay = unroutable_layout()
    whole = Negotiator(lay, "cpu").run()
    ng = Negotiator(lay, "cpu")
    part = phases.run_phases(ng, ng.negotiate(), [p for p in phases.PHASES
                                                 if p is not phases.floor])
    assert "sequential floor" in [p.phase for p in whole.phases]
    assert [p.phase for p in part.phases] == [p.phase for p in whole.phases
                                              if p.phase != "sequential floor"]


def test_the_gpu_search_hands_no_call_to_the_cpu():
    """The GPU engine searches only on the device: the choice of the CPU for a call is
    the router's dispatch (router/dispatch.py), not the engine's."""
    import inspect

    from mazeroute.engines.gpu_weighted import GPUNetSearch
    from mazeroute.router.dispatch import SearchDispatch
    assert "cpu_box_cells" not in inspect.signature(GPUNetSearch.__init__).parameters
    for name in ("_cpu_sooner", "_device_sooner", "_note_changed"):
        assert not hasattr(GPUNetSearch, name) and hasattr(SearchDispatch, name)


# -- groups of nets searched on the same costs (group_nets) --------------------------------
def test_groups_of_one_route_as_pathfinders_order():
    lay = random_layout(64, 64, density=0.25, nets=60, pins=2, seed=4, span=24)
    plain = route(lay, backend="cpu", mode="negotiate")
    ones = route(lay, backend="cpu", mode="negotiate",
                 options=PathFinderOptions(group_nets=1))
    assert plain.iterations and len(plain.iterations) > 1      # the groups had work
    assert [n.cells for n in ones.nets] == [n.cells for n in plain.nets]


@pytest.mark.parametrize("seed", range(4))
def test_groups_route_validly_and_never_join_nets_that_share_cells(seed):
    lay = random_layout(80, 80, density=0.3, nets=70, pins=2 + seed % 2, seed=seed,
                        span=24)
    res = route(lay, backend="cpu", mode="negotiate",
                options=PathFinderOptions(group_nets=8))
    assert check_routes(lay, res.to_json()) == []
    assert res.routed >= route(lay, backend="cpu", mode="sequential").routed
    ng = Negotiator(lay, "cpu", PathFinderOptions(group_nets=8))
    ng.reroute(np.arange(len(lay.nets)))
    nets = np.arange(len(lay.nets))
    runs = ng._groups(nets, 8)
    assert sum(len(r) for r in runs) == len(nets) and max(len(r) for r in runs) <= 8
    for run in runs:
        cells = [ng.routes[i] for i in nets[run] if ng.routes[i] is not None]
        every = np.concatenate(cells) if cells else np.zeros(0, np.int64)
        assert len(np.unique(every)) == len(every)          # no cell shared in a run


def test_cost_without_a_net_is_the_cost_once_it_is_removed():
    rng = np.random.default_rng(2)
    free = np.ones((12, 12), bool)
    state = Congestion(free, nets=3)
    wires = [rng.choice(144, 30, replace=False).astype(np.int64) for _ in range(3)]
    for i, w in enumerate(wires):
        state.add(i, w)
    state.end_iteration(np.array([0, 2]))      # history and weights above their start
    state.set_pres_fac(2.5)
    without = state.cost_without(1, wires[1])
    present = state.costs()[0].ravel()[wires[1]].copy()
    state.remove(1)
    cost, _ = state.costs()
    np.testing.assert_array_equal(without, cost.ravel()[wires[1]])
    assert (without < present).any() and (without <= present).all()


def _cover_by_scan(graph, sizes):
    """The greedy cover as a scan of every net left at each step (the oracle)."""
    graph = {i: set(p) for i, p in graph.items()}
    taken = []
    while graph:
        i = max(graph, key=lambda j: (len(graph[j]), sizes[j], j))
        for j in graph.pop(i):
            graph[j].discard(i)
            if not graph[j]:
                del graph[j]
        taken.append(i)
    return taken


@given(st.integers(1, 40), st.integers(0, 2**16), st.sampled_from([0.05, 0.2, 0.6]))
@settings(max_examples=150, deadline=None)
def test_cover_takes_the_nets_a_scan_takes(n, seed, p):
    rng = np.random.default_rng(seed)
    edges = np.triu(rng.random((n, n)) < p, 1)
    graph = {i: set() for i in range(n)}
    for a, b in zip(*np.nonzero(edges)):
        graph[int(a)].add(int(b))
        graph[int(b)].add(int(a))
    graph = {i: s for i, s in graph.items() if s or rng.random() < 0.2}
    sizes = {i: int(rng.integers(1, 4)) for i in graph}     # ties are common
    got = legal.cover(graph, sizes)
    assert got == _cover_by_scan(graph, sizes)
    chosen = set(got)
    assert all(i in chosen or j in chosen for i in graph for j in graph[i])


def _dropped_and_legalised(lay, one_a_call, monkeypatch):
    ng = Negotiator(lay, "cpu", PathFinderOptions(max_iterations=3, wait_factor=0))
    ng.negotiate()
    calls = []
    real = ng.search.route

    def route(cost, requests, changed=None):
        calls.append([(r.net, r.box) for r in requests])
        return real(cost, requests, changed)

    ng.search.route = route
    with monkeypatch.context() as m:
        if one_a_call:
            m.setattr(schedule, "batches",
                      lambda boxes, shape, lag=1: [np.array([k]) for k in range(len(boxes))])
        ng.legalise()
    return ng, calls


@pytest.mark.parametrize("seed", range(10))
def test_legalise_in_batches_routes_as_one_net_a_call(monkeypatch, seed):
    """Dropped nets go again in calls of disjoint boxes, in routing order, then those
    that found no way in their box on the whole grid: the routes of one net a call."""
    lay = random_layout(64, 64, density=0.3, nets=120, pins=2 + seed % 2, seed=seed,
                        span=24)
    batched, calls = _dropped_and_legalised(lay, False, monkeypatch)
    alone, single = _dropped_and_legalised(lay, True, monkeypatch)
    assert [None if c is None else c.tolist() for c in batched.cells] == \
        [None if c is None else c.tolist() for c in alone.cells]
    assert batched.conflicts == alone.conflicts
    assert check_routes(lay, batched._result().to_json()) == []
    assert all(len(c) == 1 for c in single)
    assert len(calls) < len(single) or len(single) <= 1
    for call in calls:
        boxes = [b for _, b in call]
        for k, p in enumerate(boxes):
            for q in boxes[k + 1:]:
                assert p[2] < q[0] or q[2] < p[0] or p[3] < q[1] or q[3] < p[1]


def test_legalise_tries_the_whole_grid_after_the_boxes(monkeypatch):
    """A net with no way in its box goes again on the whole grid once every box was
    searched."""
    found = []
    for seed in range(12):
        lay = random_layout(40, 40, density=0.2, nets=120, pins=2, seed=seed, span=30)
        ng, calls = _dropped_and_legalised(lay, False, monkeypatch)
        kinds = [[b == ng.box(i) for i, b in call] for call in calls]
        retries = [k for k, call in enumerate(kinds) if not all(call)]
        if retries:
            found.append(seed)
            assert all(len(calls[k]) == 1 and calls[k][0][1] == (0, 0, 39, 39)
                       for k in retries)
            assert retries == list(range(retries[0], len(calls)))
        assert check_routes(lay, ng._result().to_json()) == []
    assert found


@pytest.mark.parametrize("seed", range(8))
def test_repair_searches_a_pass_in_one_call_and_again_where_a_wire_was_laid(seed):
    """A repair pass searches every unrouted net's way across the wires in one call;
    a net searches again only when a wire was laid on its way since; repair never
    loses a net and stays legal."""
    lay = random_layout(48, 48, density=0.3, nets=110, pins=2, seed=seed, span=16)
    ng = Negotiator(lay, "cpu", PathFinderOptions(max_iterations=4, wait_factor=0))
    ng.negotiate()
    ng.legalise()
    push = ng._pin_search()
    calls, again, first = [], [], {}
    real = push.route

    def route(cost, requests, changed=None):
        calls.append([r.net for r in requests])
        out = real(cost, requests, changed)
        if not first:
            first.update({r.net: xy for r, xy in zip(requests, out)})
        elif len(requests) == 1:
            again.append(requests[0].net)
        return out

    push.route = route
    before = ng.routed
    unrouted = sorted(i for i, c in enumerate(ng.cells) if c is None and i not in ng.enclosed)
    gained = ng.repair()
    assert ng.routed == before + gained
    assert check_routes(lay, ng._result().to_json()) == []
    if unrouted:
        assert sorted(calls[0]) == unrouted
        # a net searches again only when it had a way, and never the pass's first net
        assert all(first[u] is not None for u in again)


class _HostState:
    """The engine side of negotiation's device state (engines.gpu_state.DeviceState's
    methods) made of the host's Congestion and the CPU engine: a stand-in that lets the
    router's side of the device loop (router.negotiation.device) run without a device.
    The device's own kernels are held to the host's state in tests/test_gpu_state.py."""

    def __init__(self, search):
        self.inner = search
        self.passes = 0

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def state_open(self, pricing, nets):
        self.cg = Congestion(self.inner.free.reshape(-1).reshape(self.inner.shape[1:]), nets)
        self.cg.base[:] = pricing.base
        self.cg.history[:] = pricing.history
        self.cg.weight[:] = pricing.weight
        self.state_pres(pricing.pres)
        self.box = np.zeros((nets, 4), np.int64)

    def state_pres(self, pres):
        self.cg.set_pres_fac(pres / COST_SCALE)

    def state_pass(self, packed, bounds, own=False):
        self.passes += 1
        w = self.inner.shape[2]
        out = []
        for reqs in _unpacked(packed, bounds, w):
            if own:         # the group schedule: searched before the old routes go
                reqs = [r._replace(own=self.cg.routes[r.net],
                                   own_cost=self.cg.cost_without(r.net, self.cg.routes[r.net]))
                        if self.cg.routes[r.net] is not None else r for r in reqs]
                cost, changed = self.cg.costs()
                found = self.inner.route(cost, reqs, changed)
                self.cg.remove_many([r.net for r in reqs])
            else:
                self.cg.remove_many([r.net for r in reqs])
                cost, changed = self.cg.costs()
                found = self.inner.route(cost, reqs, changed)
            done = [(r.net, xy) for r, xy in zip(reqs, found) if xy is not None]
            self.cg.add_many([i for i, _ in done],
                             [xy[:, 1] * w + xy[:, 0] for _, xy in done])
            for i, xy in done:
                self.box[i] = [*xy.min(axis=0), *xy.max(axis=0)]
            out.append(np.array([xy is not None for xy in found], bool))
        return np.concatenate(out) if out else np.zeros(0, bool)

    def state_overused(self):
        over = self.cg.overused()
        cells, nets = [], []
        for i, r in enumerate(self.cg.routes):
            if r is not None:
                hit = np.intersect1d(r, over)
                cells += hit.tolist()
                nets += [i] * hit.size
        return np.array(cells, np.int64), np.array(nets, np.int64)

    def state_end_iteration(self, over, conflicts, acc, net_acc):
        assert np.array_equal(over, self.cg.overused())
        assert (acc, net_acc) == (self.cg.acc, self.cg.net_acc)
        self.cg.end_iteration(conflicts)

    def state_boxes(self, nets):
        return self.box[nets]

    def state_routes(self, nets):
        return [self.cg.routes[i] for i in nets.tolist()]

    def state_close(self):
        from mazeroute.engines.gpu_state import DeviceRoutes
        cg = self.cg
        cells = np.flatnonzero(cg.load | cg.history)
        return DeviceRoutes(cg.routes, self.box, cells, cg.occupancy[cells], cg.load[cells],
                            cg.id_sum[cells], cg.history[cells], cg.weight)


def _unpacked(packed, bounds, w):
    """The batches of a packed pass (engines.weighted.pack_nets) as request lists."""
    xy = np.stack([packed.pins % w, packed.pins // w], axis=1).astype(np.int64)
    reqs = [NetRequest(int(n), xy[a:z], tuple(b)) for n, a, z, b in zip(
        packed.nets.tolist(), packed.pin_ptr[:-1].tolist(), packed.pin_ptr[1:].tolist(),
        packed.boxes.tolist())]
    return [reqs[a:z] for a, z in zip(bounds[:-1].tolist(), bounds[1:].tolist())]


def _stand_in_pair(lay, **options):
    """The host loop negotiated, and a negotiator whose loop keeps its state in a host
    stand-in of the device (not negotiated yet), with its stand-in."""
    host = Negotiator(lay, "cpu", PathFinderOptions(wait_factor=0, max_iterations=30,
                                                    device_state=False, **options))
    host.negotiate()
    dev = Negotiator(lay, "cpu", PathFinderOptions(wait_factor=0, max_iterations=30,
                                                   device_state=True, **options))
    dev.search = stand_in = _HostState(dev.search)
    return host, dev, stand_in


def same_loops(dev, host) -> None:
    """The two loops' routes, iterations and final state are the same (also the check
    of the device's loops, tests/test_gpu_state_host.py)."""
    assert not dev.on_device
    assert [None if r is None else r.tolist() for r in dev.routes] == \
        [None if r is None else r.tolist() for r in host.routes]
    assert [None if c is None else c.tolist() for c in dev.cells] == \
        [None if c is None else c.tolist() for c in host.cells]
    assert [(s.overused, s.conflicts, s.rerouted, s.pres_fac) for s in dev.iterations] == \
        [(s.overused, s.conflicts, s.rerouted, s.pres_fac) for s in host.iterations]
    for name in ("occupancy", "load", "id_sum", "history", "weight"):
        assert np.array_equal(getattr(dev.state, name), getattr(host.state, name)), name


@pytest.mark.parametrize("after", [0, 1, 6])
def test_a_pass_too_big_for_the_device_hands_the_loop_to_the_host(monkeypatch, after):
    """A pass whose boxes hold more cells than the device's pool takes (here every pass
    after the first ``after``) brings the state back, and the loop goes on on the host
    from that pass: the host loop's routes."""
    lay = random_layout(56, 48, density=0.25, nets=70, pins=2, seed=3, span=20)
    host, dev, stand_in = _stand_in_pair(lay)
    real = stand_in.state_pass

    def passing(packed, bounds, own=False):
        out = real(packed, bounds, own)
        if stand_in.passes >= after:
            monkeypatch.setattr(device_loop, "DEVICE_PASS_CELLS", 0)
        return out
    stand_in.state_pass = passing
    if after == 0:
        monkeypatch.setattr(device_loop, "DEVICE_PASS_CELLS", 0)
    dev.negotiate()
    assert stand_in.passes == after < len(host.iterations)
    same_loops(dev, host)


@pytest.mark.parametrize("seed", range(3))
def test_the_device_loop_keeps_the_host_loops_groups(seed):
    """The group schedule with the loop's state kept by the engine (a host stand-in):
    each group searches with its own routes priced as gone, then its old routes go; the
    host loop's routes and state."""
    lay = random_layout(56, 48, density=0.3, nets=80, pins=2 + seed % 2, seed=seed, span=24)
    host, dev, stand_in = _stand_in_pair(lay, group_nets=8)
    grouped = []
    real = stand_in.state_pass

    def passing(packed, bounds, own=False):
        grouped.append(own and np.diff(bounds).max() > 1)
        return real(packed, bounds, own)
    stand_in.state_pass = passing
    dev.negotiate()
    assert any(grouped) and len(dev.iterations) > 1
    same_loops(dev, host)


@pytest.mark.parametrize("seed", range(6))
def test_the_device_loop_keeps_the_host_loops_routes(seed):
    """The loop with its state kept by the engine (router.negotiation.device, here with
    a host stand-in for the device) routes as the loop that keeps it itself: the same
    routes, iterations, boxes, stamps and final state, and the phases after it run on
    what comes back."""
    lay = random_layout(56, 48, density=0.25, nets=70, pins=2 + seed % 2, seed=seed, span=20)
    host, dev, stand_in = _stand_in_pair(lay)
    dev.negotiate()
    assert stand_in.passes >= len(dev.iterations) > 1
    same_loops(dev, host)
    routed = [i for i, r in enumerate(host.routes) if r is not None]
    for name in ("rlo", "rhi", "stamp", "margin", "fights"):
        assert np.array_equal(getattr(dev, name)[routed], getattr(host, name)[routed]), name
    assert np.array_equal(dev.state.costs()[0], host.state.costs()[0])
    assert np.array_equal(dev.state.history_cost(), host.state.history_cost())
    dev.search = stand_in.inner
    assert check_routes(lay, run_phases(dev, len(dev.iterations)).to_json()) == []
