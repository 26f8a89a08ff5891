"""Shorter wires by rerouting touching wires in groups (router.shorten): hand-made
cases, and on random space-filling routings legality, connection, no growth and a
fixpoint."""

from __future__ import annotations

import numpy as np
import pytest

from mazeroute.router.fill import fill_routes
from mazeroute.router.shorten import _path, shorten_wires
from tests.corpus import bfs_connected


def _flat(routes, w):
    return [None if r is None else np.array([y * w + x for x, y in np.asarray(r).tolist()])
            for r in routes]


def _alone(free, pins, routes):
    """Each wire rerouted by itself, shortest through its cells and the unused ones,
    until none changes: what rerouting one wire at a time reaches."""
    h, w = free.shape
    routes = list(routes)
    owner = np.full(h * w, -1)
    pin_of = np.full(h * w, -1)
    for i, (p, r) in enumerate(zip(pins, routes)):
        owner[r] = i
        pin_of[p[:, 1] * w + p[:, 0]] = i
    parent, queue = np.full(h * w, -1, np.int64), np.empty(h * w, np.int64)
    changed = True
    while changed:
        changed = False
        for i, r in enumerate(routes):
            ok = free.ravel() & (pin_of < 0) & (owner < 0)
            ok[r] = True
            path = _path(ok, w, h, int(r[0]), int(r[-1]), parent, queue)
            if path.size < r.size:
                owner[r], owner[path], routes[i], changed = -1, i, path, True
    return routes


def _check(free, pins, before, after):
    """Every wire a path of free cells from its first pin to its second, no cell on two
    wires, no wire on another net's pin, and no wire longer in all."""
    h, w = free.shape
    seen = np.zeros(h * w, bool)
    pin_of = {int(y * w + x): i for i, p in enumerate(pins) for x, y in p.tolist()}
    for i, (p, r) in enumerate(zip(pins, after)):
        assert r[0] == p[0, 1] * w + p[0, 0] and r[-1] == p[1, 1] * w + p[1, 0]
        steps = np.abs(np.diff(r))
        assert ((steps == 1) & (np.minimum(r[1:], r[:-1]) % w != w - 1) | (steps == w)).all()
        assert free.ravel()[r].all() and not seen[r].any()
        assert all(pin_of.get(int(c), i) == i for c in r)
        seen[r] = True
    assert sum(r.size for r in after) <= sum(r.size for r in before)


def test_a_pair_trades_cells_that_neither_wire_can_shed_alone():
    # a (A) and b (B) fill a 3 x 4 grid; each wire's short way runs through the other's
    #   A b b b        a: 5 steps round the bottom-left, b: 5 round the top-right
    #   a B A b        together 3 + 3: a over the top, b along the bottom
    #   a a a B
    free = np.ones((3, 4), bool)
    pins = [np.array([[2, 1], [0, 0]]), np.array([[3, 2], [1, 1]])]
    routes = _flat([[(2, 1), (2, 2), (1, 2), (0, 2), (0, 1), (0, 0)],
                    [(3, 2), (3, 1), (3, 0), (2, 0), (1, 0), (1, 1)]], 4)
    assert sum(r.size for r in _alone(free, pins, routes)) == 12
    got, gained = shorten_wires(free, pins, routes, group=2)
    _check(free, pins, routes, got)
    assert [r.size - 1 for r in got] == [3, 3] and gained == 4
    assert shorten_wires(free, pins, routes, group=1)[1] == 0      # one wire: no gain


def test_wires_of_other_nets_and_their_pins_are_never_entered():
    # c's wire splits the grid; a's short way would cross it: a stays as it was
    free = np.ones((3, 5), bool)
    pins = [np.array([[0, 0], [4, 0]]), np.array([[2, 1], [2, 2]]),
            np.array([[1, 2], [3, 2]])]
    routes = _flat([[(0, 0), (1, 0), (2, 0), (3, 0), (4, 0)], [(2, 1), (2, 2)],
                    [(1, 2), (1, 1), (0, 1), (0, 2)]], 5)
    with pytest.raises(ValueError, match="two-pin"):
        shorten_wires(free, [np.array([[0, 0], [1, 0], [2, 0]])], [None])
    routes[2] = None                                   # c unrouted: its pins stay out
    got, _ = shorten_wires(free, pins, routes)
    assert got[2] is None
    for r in got[:2]:
        assert not set(r.tolist()) & {2 * 5 + 1, 2 * 5 + 3}


def _snakes(rng):
    """A random grid covered by one boustrophedon path (along rows or columns) cut into
    wires: long winding wires, every cell used; now and then a wire left unrouted."""
    h, w = int(rng.integers(2, 10)), int(rng.integers(2, 10))
    order = [(x if y % 2 == 0 else w - 1 - x, y) for y in range(h) for x in range(w)]
    if rng.random() < 0.5:
        order = [(y if x % 2 == 0 else h - 1 - y, x) for x in range(w) for y in range(h)]
        order = [(x, y) for y, x in order]
    k = int(rng.integers(2, max(3, len(order) // 3)))
    cuts = np.sort(rng.choice(np.arange(2, len(order) - 1), k - 1, replace=False))
    pieces = [order[a:b] for a, b in zip([0, *cuts], [*cuts, len(order)]) if b - a >= 2]
    pins = [np.array([piece[0], piece[-1]]) for piece in pieces]
    routes = _flat(pieces, w)
    for i in np.flatnonzero(rng.random(len(routes)) < 0.15):
        routes[i] = None
    return np.ones((h, w), bool), pins, routes


def test_a_pair_never_takes_a_third_wire():
    # a (A) runs round three sides; with c's wire open, a pair of a and b would cut
    # through c (a space-filling routing of the search on a 3 x 5 grid)
    #   a a a a A
    #   a C c C B
    #   a a A B b
    free = np.ones((3, 5), bool)
    pins = [np.array([[4, 0], [2, 2]]), np.array([[4, 1], [3, 2]]),
            np.array([[3, 1], [1, 1]])]
    routes = _flat([[(4, 0), (3, 0), (2, 0), (1, 0), (0, 0), (0, 1), (0, 2), (1, 2), (2, 2)],
                    [(4, 1), (4, 2), (3, 2)], [(3, 1), (2, 1), (1, 1)]], 5)
    for group in (2, 3):
        got, _ = shorten_wires(free, pins, routes, group=group)
        _check(free, pins, routes, got)


@pytest.mark.parametrize("seed", range(60))
def test_random_routings_get_legal_shorter_wires_and_a_fixpoint(seed):
    rng = np.random.default_rng(seed)
    free, pins, routes = _snakes(rng)
    h, w = free.shape
    routed = [i for i, r in enumerate(routes) if r is not None]
    for group in (2, 3):
        new, gained = shorten_wires(free, pins, routes, group=group)
        assert [i for i, r in enumerate(new) if r is not None] == routed
        _check(free, [pins[i] for i in routed], [routes[i] for i in routed],
               [new[i] for i in routed])
        blocked = np.zeros(h * w, bool)               # nobody enters an unrouted net's pins
        for i in set(range(len(pins))) - set(routed):
            blocked[pins[i][:, 1] * w + pins[i][:, 0]] = True
        assert not any(blocked[new[i]].any() for i in routed)
        assert gained == sum(routes[i].size - new[i].size for i in routed)
        again, more = shorten_wires(free, pins, new, group=group)
        assert more == 0 and all(a is b for a, b in zip(again, new))
        for i in routed:                              # each wire joins its pins
            mask = np.zeros((h, w), bool)
            mask.ravel()[new[i]] = True
            assert bfs_connected(mask, [tuple(pins[i][0]), tuple(pins[i][1])])


def test_the_snakes_do_get_shorter():
    gains = [shorten_wires(*_snakes(np.random.default_rng(s)))[1] for s in range(60)]
    assert sum(g > 0 for g in gains) > 30


def test_a_space_filling_routing_of_the_search_gets_shorter():
    free = np.ones((3, 4), bool)                 # the pair of the first test
    pins = [np.array([[2, 1], [0, 0]]), np.array([[3, 2], [1, 1]])]
    got = fill_routes(free, pins)
    assert got.status == "found"
    routes = _flat(got.routes, 4)
    new, gained = shorten_wires(free, pins, routes)
    _check(free, pins, routes, new)
    assert sum(r.size for r in routes) == 12 and gained == 4


def test_a_work_budget_stops_the_rounds_and_keeps_the_routing_legal():
    free, pins, routes = _snakes(np.random.default_rng(7))
    whole, gained = shorten_wires(free, pins, routes)
    assert gained > 0
    none, nothing = shorten_wires(free, pins, routes, max_work=-1)
    assert nothing == 0 and all(a is b for a, b in zip(none, routes))
    some, part = shorten_wires(free, pins, routes, max_work=free.size)
    routed = [i for i, r in enumerate(routes) if r is not None]
    _check(free, [pins[i] for i in routed], [routes[i] for i in routed],
           [some[i] for i in routed])
    assert 0 <= part <= gained
