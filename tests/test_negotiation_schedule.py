"""Negotiation's order and batches (router.negotiation.schedule): box levels and colours,
the reroute order, batches and snapshot_nets, the first iteration in one call, groups."""

from __future__ import annotations

import numpy as np
import pytest

import mazeroute.router.negotiate as neg
import mazeroute.router.negotiation.schedule as schedule
from mazeroute.contract import check_routes
from mazeroute.engines.weighted import LEVEL_TILE, box_colours, box_levels
from mazeroute.generate import random_layout
from mazeroute.router import PathFinderOptions, route
from mazeroute.router.congestion import Congestion
from mazeroute.router.negotiate import Negotiator
from mazeroute.router.negotiation.schedule import colour_order
from tests.test_negotiate import _negotiate

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


@pytest.mark.parametrize("seed", range(4))
def test_wire_groups_on_a_kept_scratch_equal_those_on_a_fresh_one(seed):
    """Colouring again and again on one scratch (the loop's) gives what a fresh one
    gives, and leaves the scratch zero for the next call; a scratch too small or of
    another type is refused."""
    rng = np.random.default_rng(seed)
    cells = 400
    scratch = np.zeros(cells, np.int64)
    for size in (1, 3, 8, 64):
        wires = [None if rng.random() < 0.1 else
                 rng.choice(cells, int(rng.integers(1, 30)), replace=False)
                 for _ in range(int(rng.integers(0, 90)))]
        fresh = schedule.wire_groups(wires, cells, size)
        kept = schedule.wire_groups(wires, cells, size, scratch)
        assert [g.tolist() for g in kept] == [g.tolist() for g in fresh]
        assert not scratch.any()
    for bad in (np.zeros(cells - 1, np.int64), np.zeros(cells, np.int32)):
        with pytest.raises(ValueError, match="scratch"):
            schedule.wire_groups([np.array([0, 1])], cells, 8, bad)


def _greedy_groups(wires, size):
    """The oracle of the wire groups: each wire's lowest colour that no earlier wire
    sharing a cell took (past the colours, a group of its own), classes in colour order
    cut into runs of ``size``; ``size`` 1 is the order itself."""
    if size == 1:
        return [[k] for k in range(len(wires))]
    colour, taken = [], []
    for w in wires:
        cells = set() if w is None else set(w.tolist())
        used = {c for c, t in zip(colour, taken) if t & cells}
        c = next(k for k in range(schedule.WIRE_COLOURS + 1) if k not in used)
        colour.append(c)
        taken.append(cells if c < schedule.WIRE_COLOURS else set())
    groups = []
    for c in sorted(set(colour)):
        members = [k for k, got in enumerate(colour) if got == c]
        step = size if c < schedule.WIRE_COLOURS else 1
        groups += [members[s:s + step] for s in range(0, len(members), step)]
    return groups


@pytest.mark.parametrize("seed", range(6))
def test_packed_wire_groups_are_the_greedy_colouring(seed):
    """Wires given one after another (as the device keeps them) are grouped as a greedy
    colouring in order groups them, a net without a wire included."""
    rng = np.random.default_rng(seed)
    cells = 300
    wires = [None if rng.random() < 0.1 else
             rng.choice(cells, int(rng.integers(1, 25)), replace=False)
             for _ in range(int(rng.integers(1, 120)))]
    sizes = [0 if w is None else w.size for w in wires]
    ptr = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    flat = np.concatenate([w for w in wires if w is not None]).astype(np.int64)
    for size in (1, 4, 16):
        got = schedule.packed_wire_groups(ptr, flat, cells, size)
        assert [g.tolist() for g in got] == _greedy_groups(wires, size)
