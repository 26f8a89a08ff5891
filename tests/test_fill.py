"""The space-filling search (router.fill): exact against a brute-force oracle on small
layouts, hand-made cases, its limits, and its part in negotiation."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mazeroute.contract import check_routes
from mazeroute.router import PathFinderOptions
from mazeroute.router.fill import fill_routes
from mazeroute.router.negotiate import Negotiator
from tests.corpus import puzzle_layout

STEPS = ((1, 0), (0, 1), (-1, 0), (0, -1))


def _is_filling(free, pins, routes) -> bool:
    """Every free cell on exactly one wire; each wire a path from its first pin to its
    second whose cells are neighbours only where they are consecutive."""
    h, w = free.shape
    used = np.zeros((h, w), int)
    for p, r in zip(pins, routes):
        r = np.asarray(r)
        if tuple(r[0]) != tuple(p[0]) or tuple(r[-1]) != tuple(p[1]):
            return False
        where = {(int(x), int(y)): k for k, (x, y) in enumerate(r)}
        if len(where) != len(r):
            return False
        for (x, y), k in where.items():
            if not free[y, x]:
                return False
            used[y, x] += 1
            for dx, dy in STEPS:
                j = where.get((x + dx, y + dy))
                if j is not None and abs(j - k) != 1:
                    return False
    return bool((used[free] == 1).all())


def _oracle(free, pins) -> bool:
    """Whether a space-filling routing exists, by trying every colouring of the free
    cells that are no pin: each net's cells must form a path between its pins in which
    only consecutive cells are neighbours (pins one neighbour of their net, other cells
    two, and the cells connected)."""
    h, w = free.shape
    k = len(pins)
    colour = -np.ones((h, w), int)
    for i, p in enumerate(pins):
        for x, y in p:
            colour[y, x] = i
    rest = [(x, y) for y in range(h) for x in range(w) if free[y, x] and colour[y, x] < 0]
    for combo in itertools.product(range(k), repeat=len(rest)):
        for (x, y), c in zip(rest, combo):
            colour[y, x] = c
        if all(_net_is_path(colour, i, pins[i]) for i in range(k)):
            return True
    return False


def _net_is_path(colour, i, pins) -> bool:
    h, w = colour.shape
    cells = {(x, y) for y in range(h) for x in range(w) if colour[y, x] == i}
    ends = {tuple(map(int, p)) for p in pins}
    for x, y in cells:
        deg = sum((x + dx, y + dy) in cells for dx, dy in STEPS)
        if deg != (1 if (x, y) in ends else 2):
            return False
    start = next(iter(ends))
    seen, todo = {start}, [start]
    while todo:
        x, y = todo.pop()
        for dx, dy in STEPS:
            c = (x + dx, y + dy)
            if c in cells and c not in seen:
                seen.add(c)
                todo.append(c)
    return seen == cells


@st.composite
def small_layouts(draw):
    w = draw(st.integers(1, 4))
    h = draw(st.integers(1, 4))
    cells = [(x, y) for y in range(h) for x in range(w)]
    blocked = draw(st.sets(st.sampled_from(cells), max_size=len(cells) // 3))
    free = np.ones((h, w), bool)
    for x, y in blocked:
        free[y, x] = False
    open_ = [c for c in cells if c not in blocked]
    k = draw(st.integers(1, min(3, len(open_) // 2))) if len(open_) >= 2 else 0
    chosen = draw(st.permutations(open_))[:2 * k]
    pins = [np.array(chosen[2 * i:2 * i + 2]) for i in range(k)]
    return free, pins


@settings(max_examples=300, deadline=None)
@given(small_layouts())
def test_finds_a_space_filling_routing_exactly_when_one_exists(case):
    free, pins = case
    if not pins or (free.sum() - 2 * len(pins)) > 9:
        return                                      # keep the oracle's product small
    got = fill_routes(free, pins)
    expected = _oracle(free, pins)
    assert got.status == ("found" if expected else "none")
    if expected:
        assert _is_filling(free, pins, got.routes)


def test_two_nets_that_must_cross_have_none():
    free = np.ones((3, 3), bool)
    got = fill_routes(free, [np.array([[0, 0], [2, 2]]), np.array([[2, 0], [0, 2]])])
    assert got.status == "none" and got.routes == []


def test_a_wire_may_not_run_beside_itself():
    # the only way through all four cells is a U whose ends are neighbours
    got = fill_routes(np.ones((2, 2), bool), [np.array([[0, 0], [1, 0]])])
    assert got.status == "none"


def test_wires_wrap_round_a_blockage():
    free = np.ones((3, 3), bool)
    free[1, 1] = False
    pins = [np.array([[0, 0], [2, 0]]), np.array([[0, 1], [2, 1]])]
    got = fill_routes(free, pins)
    assert got.status == "found" and _is_filling(free, pins, got.routes)
    assert [tuple(c) for c in got.routes[1]] == [(0, 1), (0, 2), (1, 2), (2, 2), (2, 1)]


def test_a_straight_row():
    got = fill_routes(np.ones((1, 5), bool), [np.array([[0, 0], [4, 0]])])
    assert got.status == "found"
    assert got.routes[0].tolist() == [[0, 0], [1, 0], [2, 0], [3, 0], [4, 0]]


def test_limits_are_reported_not_searched():
    free = np.ones((4, 4), bool)
    three = [np.array([[0, 0], [3, 3], [0, 3]])]
    assert fill_routes(free, three).status == "skipped"
    two = [np.array([[0, 0], [3, 3]])]
    assert fill_routes(free, two, max_cells=15).status == "skipped"
    assert fill_routes(free, [np.array([[0, 0], [0, 0]])]).status == "skipped"
    blocked = free.copy()
    blocked[0, 0] = False
    assert fill_routes(blocked, two).status == "skipped"      # a pin on a blockage


def test_a_puzzle_is_solved_and_a_step_budget_is_kept():
    lay = puzzle_layout()
    free = ~lay.blocked
    pins = [np.array(n.pins) for n in lay.nets]
    got = fill_routes(free, pins)
    assert got.status == "found" and _is_filling(free, pins, got.routes)
    assert got.steps > 10
    short = fill_routes(free, pins, max_steps=10)
    assert short.status == "steps" and short.steps == 11


def test_negotiation_completes_the_puzzle_with_the_search_and_not_without():
    lay = puzzle_layout()
    # negotiation's first budget_after iterations leave it incomplete (its whole budget
    # completes it: tests/test_negotiate.py); by default the search is tried there. No
    # wait bound in either run: on a busy machine (a first compile, other tests beside)
    # the bound's clock could cut one loop short and not the other
    plain = Negotiator(lay, "cpu", PathFinderOptions(fill_steps=0, window_work=0,
                                                     max_iterations=50, wait_factor=0)).run()
    assert plain.routed < len(lay.nets)
    res = Negotiator(lay, "cpu", PathFinderOptions(wait_factor=0)).run()
    assert res.routed == len(lay.nets)
    assert check_routes(lay, res.to_json()) == []
    assert "space-filling" in res.notice and f"{plain.routed} of 18" in res.notice
    assert all(n.reason is None for n in res.nets)
    # the search's wires as they came, and then shortened in pairs and threes
    raw = Negotiator(lay, "cpu", PathFinderOptions(shorten_group=0)).run()
    pairs = Negotiator(lay, "cpu", PathFinderOptions(shorten_group=2)).run()
    assert raw.routed == pairs.routed == res.routed
    assert check_routes(lay, raw.to_json()) == [] == check_routes(lay, pairs.to_json())
    lengths = [sum(n.length for n in r.nets) for r in (raw, pairs, res)]
    assert lengths[0] - lengths[2] > 0
    assert f"wires then {lengths[0] - lengths[2]} cells shorter" in res.notice
    assert "shorter" not in raw.notice


def test_negotiation_keeps_its_routes_when_there_is_no_filling():
    from mazeroute.generate import random_layout
    lay = random_layout(24, 24, nets=60, span=8, seed=3)
    res = Negotiator(lay, "cpu").run()
    assert check_routes(lay, res.to_json()) == []
    assert res.notice is None or "space-filling" not in res.notice


@pytest.mark.parametrize("bad", [-1])
def test_options_reject_negative_steps(bad):
    with pytest.raises(ValueError, match="fill_steps"):
        PathFinderOptions(fill_steps=bad)


def test_the_search_stops_when_its_abort_flag_is_set():
    """The compiled search reads its abort flag every 65536 steps: set, it stops at the
    first reading (status -2); the same search without it finds the routing."""
    from mazeroute.router import fill
    lay = puzzle_layout()
    ng = Negotiator(lay, "cpu")
    whole = fill_routes(ng.free, ng.pins)
    assert whole.status == "found" and whole.steps > 65536
    h, w = ng.free.shape
    label = np.full((h + 2, w + 2), -2, np.int32)
    label[1:-1, 1:-1] = np.where(ng.free, 0, -1)
    for k, p in enumerate(ng.pins):
        label[p[:, 1] + 1, p[:, 0] + 1] = k + 1
    _, status, steps = fill._search(label.ravel(), w, h, 10**9, np.ones(1, np.int32))
    assert (status, steps) == (-2, 65536)


def test_a_time_limit_stops_the_search_and_says_so(monkeypatch):
    """``seconds``: the search runs in a thread and is told to stop when they are out
    (a stand-in search that runs until told, so no timing decides the outcome)."""
    import time

    from mazeroute.router import fill

    def endless(label, w, h, max_steps, abort):
        steps = 0
        while not abort[0]:
            time.sleep(0.001)
            steps += 1
        return None, -2, steps
    monkeypatch.setattr(fill, "_search", endless)
    lay = puzzle_layout()
    ng = Negotiator(lay, "cpu")
    start = time.perf_counter()
    got = fill_routes(ng.free, ng.pins, seconds=0.05)
    assert got.status == "time" and got.routes == [] and got.steps > 0
    assert time.perf_counter() - start < 10          # a generous bound: it stopped
