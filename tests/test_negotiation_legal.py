"""The phases after negotiation's loop that keep it legal and short
(router.negotiation.legal): legalise, repair, tidy, and the cover of conflicts."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mazeroute.router.negotiate as neg
import mazeroute.router.negotiation.legal as legal
import mazeroute.router.negotiation.schedule as schedule
from mazeroute.contract import check_routes
from mazeroute.generate import random_layout
from mazeroute.router import PathFinderOptions
from mazeroute.router.negotiate import Negotiator, sequential_routes
from tests.corpus import (
    corridor_layout,
    unroutable_layout,
)


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


def _attempt_in_full(ng, u, board, push, max_victims, xy):
    """The oracle of a repair attempt on the way and victims repair takes
    (``_way``): every step made on the routes, the congestion state, the board and the
    owners (the victims lifted, ``u`` committed, each victim searched and committed in
    turn), and everything put back when one finds no way."""
    way = ng._way(u, board, push, max_victims, xy)
    if way is None:
        return 0
    xy, victims, _ = way
    old = {v: ng.cells[v] for v in victims}
    board.fresh = []
    for v in victims:
        board.lift(v)
    board.commit(u, xy)
    redone = {}
    for v in victims:
        got = board.legal(v)
        if got is None:
            break
        board.commit(v, got)
        redone[v] = got
    if len(redone) == len(victims):
        ng.conflicts.pop(u, None)
        return 1
    for v in redone:
        board.lift(v)
    board.lift(u)
    for v in victims:
        board.commit(v, old[v])
    for cells in board.fresh:
        board.laid[cells] = False
    return 0


def _repair_both(seed: int, monkeypatch) -> list[tuple[int, int]]:
    """Repair after legalise on one layout, by its attempts and by the oracle's
    (:func:`_attempt_in_full`), the end states compared; the trials' (routes found,
    victims) pairs."""
    lay = random_layout(56, 56, density=0.3, nets=150, pins=2 + seed % 2, seed=seed,
                        span=18)
    trials = []
    plain = legal._Board.trial

    def trial(board, u, xy, victims):
        found = plain(board, u, xy, victims)
        trials.append((len(found), len(victims)))
        return found

    made = []
    for full in (False, True):
        ng = Negotiator(lay, "cpu", PathFinderOptions(max_iterations=4, wait_factor=0))
        ng.negotiate()
        ng.legalise()
        if full:
            ng._repair_net = lambda u, board, push, mv, xy, ng=ng: _attempt_in_full(
                ng, u, board, push, mv, xy)
        with monkeypatch.context() as m:
            m.setattr(legal._Board, "trial", trial)
            ng.repair()
        made.append(ng)
    fast, full = made
    assert [None if c is None else c.tolist() for c in fast.cells] == \
        [None if c is None else c.tolist() for c in full.cells]
    routed = [i for i, c in enumerate(fast.cells) if c is not None]
    assert fast.stamp[routed].tolist() == full.stamp[routed].tolist()
    assert fast.clock == full.clock
    assert (fast.rlo[routed] == full.rlo[routed]).all()
    np.testing.assert_array_equal(fast.search.owner, full.search.owner)
    for name in ("occupancy", "load", "id_sum"):
        np.testing.assert_array_equal(getattr(fast.state, name), getattr(full.state, name))
    assert check_routes(lay, fast._result().to_json()) == []
    return trials


def test_repair_tries_on_the_owners_alone_and_ends_as_every_step_in_full(monkeypatch):
    """Repair's attempts search the victims on the search's owners alone and commit
    only what succeeds; the routes, their order (stamps), boxes, the clock, the
    owners and the congestion state end as the oracle's, which makes every step on
    all of them and puts everything back after a failed attempt. The layouts hold
    trials that fail and trials that succeed."""
    trials = []
    for seed in range(6):
        trials += _repair_both(seed, monkeypatch)
    assert any(found < victims for found, victims in trials)
    assert any(found == victims > 0 for found, victims in trials)


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
    assert neg.as_short_as_can_be([], []).tolist() == []


@pytest.mark.parametrize("seed", range(6))
def test_as_short_as_can_be_is_the_rule_net_by_net(seed):
    """The rule written plainly, a net at a time, on nets of one to four pins and wires
    as long as their pins' distance, longer, or shorter (a tree's)."""
    rng = np.random.default_rng(seed)
    pins, wires, want = [], [], []
    for _ in range(int(rng.integers(1, 60))):
        p = rng.integers(0, 20, (int(rng.integers(1, 5)), 2))
        span = int(np.abs(p[0] - p[-1]).sum())
        k = max(1, span + 1 + int(rng.integers(-2, 3)))
        pins.append(p)
        wires.append(np.zeros((k, 2), np.int64))
        want.append(len(p) == 2 and k == span + 1)
    assert neg.as_short_as_can_be(pins, wires).tolist() == want


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


@pytest.mark.parametrize("seed", range(4))
def test_wires_reserved_at_each_phase_as_if_set_afresh(monkeypatch, seed):
    """The phases' reservation of every wire sets only the cells whose owner differs:
    after it the search's owners are the pins' with each wire on top, and the routes are
    those of setting every cell again."""
    from mazeroute.router.negotiation.state import RouteBook
    lay = random_layout(60, 60, density=0.3, nets=110, pins=2 + seed % 2, seed=seed, span=22)
    real = RouteBook._reserve_wires
    checked = []

    def checking(self):
        real(self)
        want = np.array(self.owner, np.int32).reshape(self.search.owner.shape)
        for i, c in enumerate(self.cells):
            if c is not None:
                want[0, c[:, 1], c[:, 0]] = i
        assert (self.search.owner == want).all()
        checked.append(True)

    def every_cell(self):
        nets = [i for i, c in enumerate(self.cells) if c is not None]
        self._reserve(nets, [self.cells[i] for i in nets])

    options = PathFinderOptions(max_iterations=4)
    monkeypatch.setattr(RouteBook, "_reserve_wires", checking)
    got = Negotiator(lay, "cpu", options).run()
    monkeypatch.setattr(RouteBook, "_reserve_wires", every_cell)
    plain = Negotiator(lay, "cpu", options).run()
    assert checked
    assert [n.cells for n in got.nets] == [n.cells for n in plain.nets]
