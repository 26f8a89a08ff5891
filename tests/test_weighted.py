"""The weighted net search (engines.weighted) against the Dijkstra oracle."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mazeroute.engines import make_net_search, weighted
from mazeroute.engines.weighted import (
    COST_DTYPE,
    COST_MAX,
    CPUNetSearch,
    NetRequest,
)
from mazeroute.generate import random_layout
from mazeroute.limits import cores
from mazeroute.router import route
from tests.corpus import (
    WeightedCase,
    overlapping_case,
    random_weighted_case,
    random_weighted_cases,
    weighted_hand_cases,
    with_own_cells,
)

_STEPS = {(0, 1), (1, 0), (0, -1), (-1, 0)}


def _valid(case: WeightedCase, req: NetRequest, cells: np.ndarray) -> None:
    """What every returned wire must be, whoever computed it."""
    x0, y0, x1, y1 = req.box
    cs = [tuple(int(v) for v in c) for c in cells]
    assert len(set(cs)) == len(cs)
    assert cs[0] == tuple(req.pins[0])
    assert {tuple(int(v) for v in p) for p in req.pins} <= set(cs)
    for x, y in cs:
        assert x0 <= x <= x1 and y0 <= y <= y1
        assert case.free[y, x] and case.owner[y, x] in (-1, req.net)
    if len(req.pins) == 2:
        assert cs[-1] == tuple(req.pins[1])
        assert all((b[0] - a[0], b[1] - a[1]) in _STEPS for a, b in zip(cs, cs[1:]))
    else:   # a tree: every cell after the root touches an earlier one
        seen = {cs[0]}
        for c in cs[1:]:
            assert any((c[0] - a, c[1] - b) in _STEPS for a, b in seen)
            seen.add(c)


def _cost(case, cells) -> int:
    return int(sum(int(case.cost[y, x]) for x, y in cells[1:]))


def _check(case: WeightedCase, search=None, parallel: bool = False) -> None:
    if search is None:
        search = CPUNetSearch(case.free, case.owner)
        search.parallel = parallel
    got = search.route(case.cost, list(case.requests))
    want = case.expected()
    assert len(got) == len(want)
    for req, g, e in zip(case.requests, got, want):
        if e is None:
            assert g is None, (case.id, req.net)
            continue
        assert g is not None, (case.id, req.net)
        _valid(case, req, g)
        if len(req.pins) == 2:
            assert _cost(case, g) == _cost(case, e)       # a cheapest path
        np.testing.assert_array_equal(g, e, err_msg=f"{case.id}, net {req.net}")


@pytest.mark.parametrize("case", weighted_hand_cases(), ids=lambda c: c.id)
def test_hand_cases_equal_the_oracle(case):
    _check(case)


def test_hand_answers_read_by_eye():
    cases = {c.id: c for c in weighted_hand_cases()}
    got = {k: CPUNetSearch(c.free, c.owner).route(c.cost, list(c.requests))
           for k, c in cases.items()}
    straight = got["straight"][0]
    assert straight.tolist() == [[x, 3] for x in range(9)]
    # from (6, 5): no heading yet, so up first, then straight on up, then left
    tie = got["tie-keeps-direction"][0].tolist()
    assert tie[-5:] == [[6, 1], [6, 2], [6, 3], [6, 4], [6, 5]]
    ridge = got["ridge"][0].tolist()
    assert [4, 6] in ridge and all(c[0] != 4 or c[1] == 6 for c in ridge)
    assert got["enclosed-target"] == [None] and got["enclosed-root"] == [None]
    assert got["box-too-small"] == [None]
    assert got["big-enclosed"] == [None] and got["big-open"][0] is not None
    assert got["one-pin"][0].tolist() == [[3, 3]]
    assert all(g is not None for g in got["disjoint-boxes"])
    column = [c for c in got["cost-max-column"][0].tolist() if c[0] == 1]
    assert len(column) == 1             # the dearest column, crossed once, as it must be


@pytest.mark.parametrize("case", random_weighted_cases(150, 24), ids=lambda c: c.id)
def test_random_cases_equal_the_oracle(case):
    _check(case)


def test_parallel_calls_equal_the_oracle():
    """Many requests with disjoint boxes in one call, run on all cores."""
    rng = np.random.default_rng(12)
    free = rng.random((60, 90)) >= 0.25
    owner = np.full(free.shape, -1, np.int32)
    cost = rng.integers(1, 40, free.shape).astype(COST_DTYPE)
    reqs = []
    for k, (x0, y0) in enumerate((x, y) for y in range(0, 60, 12) for x in range(0, 90, 10)):
        cells = np.argwhere(free[y0:y0 + 11, x0:x0 + 9])[:, ::-1] + (x0, y0)
        if len(cells) < 3:
            continue
        pins = cells[rng.choice(len(cells), 2 + k % 2, replace=False)]
        owner[pins[:, 1], pins[:, 0]] = k
        reqs.append(NetRequest(k, pins, (x0, y0, x0 + 8, y0 + 10)))
    assert len(reqs) >= 40
    case = WeightedCase("parallel", free, owner, cost, tuple(reqs))
    _check(case, parallel=True)


def test_parallel_calls_with_overlapping_boxes_equal_the_oracle():
    """Overlapping boxes in one parallel call: each request sees the same costs (the
    engine splits them into groups of disjoint boxes, run one group after another)."""
    _check(overlapping_case(np.random.default_rng(5), 30, 1), parallel=True)


def test_parallel_calls_with_huge_boxes_among_small_ones_equal_the_oracle():
    """Boxes of a quarter of the grid or more among small overlapping ones in one
    parallel call (the huge ones go alone, the others in colours)."""
    case = overlapping_case(np.random.default_rng(9), 24, 1)
    h, w = case.free.shape
    reqs = [r._replace(box=(0, 0, w - 1, h - 1)) if k % 3 == 0 else
            r._replace(box=(0, 0, w // 2 + 5, h // 2 + 5)) if k % 3 == 1 and
            (r.pins <= (w // 2 + 5, h // 2 + 5)).all() else r
            for k, r in enumerate(case.requests)]
    assert sum(r.box == (0, 0, w - 1, h - 1) for r in reqs) >= 8
    _check(dataclasses.replace(case, requests=tuple(reqs)), parallel=True)


def test_huge_boxes_on_threads_equal_the_oracle_call_after_call(monkeypatch):
    """Whole-grid boxes (reachability floods too) in parallel calls go on threads, each
    with a search state of its own, kept from call to call (when they are expected to
    take LANE_SECONDS, here 0): every call's routes are the oracle's, with new costs
    each time; a call where one of them owns cells stays on one thread (the own costs
    are swapped into the shared costs), and so do searches expected to be quick."""
    monkeypatch.setattr(weighted, "LANE_SECONDS", 0)
    rng = np.random.default_rng(3)
    free = rng.random((120, 160)) >= 0.3
    owner = np.full(free.shape, -1, np.int32)
    cells = np.argwhere(free)[:, ::-1]
    pins = cells[rng.choice(len(cells), 2 * 10, replace=False)].reshape(10, 2, 2)
    for k, p in enumerate(pins):
        owner[p[:, 1], p[:, 0]] = k
    reqs = tuple(NetRequest(k, p, (0, 0, 159, 119)) for k, p in enumerate(pins))
    search = CPUNetSearch(free, owner)
    search.parallel = True
    for _ in range(2):
        cost = rng.integers(1, 30, free.shape).astype(COST_DTYPE)
        _check(WeightedCase("huge", free, owner, cost, reqs), search)
    assert sum(lane is not None for lane in search._lanes) == min(cores(), len(reqs))
    owning = (reqs[0]._replace(own=np.array([5]), own_cost=np.array([1])),
              *reqs[1:])
    lanes = []
    plain = search._route_lanes
    search._route_lanes = lambda flat, reqs, n: lanes.append(n) or plain(flat, reqs, n)
    _check(WeightedCase("huge-owning", free, owner, cost, owning), search)
    assert not lanes
    monkeypatch.setattr(weighted, "LANE_SECONDS", float("inf"))
    _check(WeightedCase("huge-quick", free, owner, cost, reqs), search)
    assert lanes == [1]


@pytest.mark.parametrize("case", random_weighted_cases(12, 200, seed=11, whole=True),
                         ids=lambda c: c.id)
def test_large_random_cases_equal_the_oracle(case):
    """Boxes above REACH_CHECK_CELLS: the reachability flood runs before the search."""
    _check(case)


@given(seed=st.integers(0, 2**32 - 1), index=st.integers(0, 8))
@settings(max_examples=150, deadline=None)
def test_hypothesis_cases_equal_the_oracle(seed, index):
    _check(random_weighted_case(np.random.default_rng(seed), 30, index))


def test_one_search_serves_many_calls_and_changed_hints():
    """State left by earlier calls never leaks: costs lowered with a ``changed`` hint
    (which the A* bound must follow) and reserved wires give the oracle's answers."""
    rng = np.random.default_rng(5)
    case = random_weighted_case(rng, 40, 2)
    while not case.requests:
        case = random_weighted_case(rng, 40, 2)
    search = CPUNetSearch(case.free, case.owner)
    cost = np.full(case.free.shape, 16, COST_DTYPE)
    _check(WeightedCase(case.id, case.free, case.owner, cost, case.requests), search)
    for _ in range(5):
        cells = rng.integers(0, cost.size, 30)
        cost.ravel()[cells] = rng.integers(1, 40, 30)
        search.route(cost, [], changed=cells)
        _check(WeightedCase(case.id, case.free, case.owner, cost.copy(), case.requests),
               search)


def test_set_owner_reserves_cells():
    free = np.ones((3, 5), bool)
    owner = np.full((3, 5), -1, np.int32)
    owner[1, 0] = owner[1, 4] = 0
    search = CPUNetSearch(free, owner)
    cost = np.ones((3, 5), COST_DTYPE)
    req = NetRequest(0, np.array([[0, 1], [4, 1]]), (0, 0, 4, 2))
    assert search.route(cost, [req])[0].tolist() == [[x, 1] for x in range(5)]
    search.set_owner(np.array([[2, 0], [2, 1], [2, 2]]), 1)     # a wall of net 1's wire
    assert search.route(cost, [req]) == [None]
    search.set_owner(np.array([[2, 2]]), -1)
    assert [2, 2] in search.route(cost, [req])[0].tolist()
    search.set_owner(np.array([[2, 0], [2, 1]]), 0)             # own cells are passable
    assert search.route(cost, [req])[0].tolist() == [[x, 1] for x in range(5)]


@pytest.mark.parametrize("seed", range(6))
def test_uniform_costs_draw_the_sequential_routers_wires(seed):
    """All costs 1 and the whole grid as the box: the weighted search is a BFS, and its
    backtrace the BFS backtrace, so a one-net layout gets the sequential router's wire."""
    lay = random_layout(40, 30, density=0.3, nets=1, pins=2 + seed % 3, seed=seed)
    net = lay.nets[0]
    owner = np.full((30, 40), -1, np.int32)
    search = make_net_search("cpu", ~lay.blocked, owner)
    got = search.route(np.ones((30, 40), COST_DTYPE),
                       [NetRequest(0, np.array(net.pins), (0, 0, 39, 29))])[0]
    want = route(lay, backend="cpu").nets[0]
    assert (got is not None) == want.routed
    if want.routed:
        assert [tuple(c) for c in got.tolist()] == want.cells


def test_bad_requests_and_costs_are_refused():
    free = np.ones((4, 4), bool)
    owner = np.full((4, 4), -1, np.int32)
    search = CPUNetSearch(free, owner)
    cost = np.ones((4, 4), COST_DTYPE)
    with pytest.raises(ValueError, match="outside the box"):
        search.route(cost, [NetRequest(0, np.array([[0, 0], [3, 3]]), (0, 0, 2, 2))])
    with pytest.raises(ValueError, match="not inside"):
        search.route(cost, [NetRequest(0, np.array([[0, 0]]), (0, 0, 4, 3))])
    with pytest.raises(ValueError, match="uint16"):
        search.route(cost.astype(np.int64), [])
    with pytest.raises(ValueError, match="at least 1"):
        search.route(np.zeros((4, 4), COST_DTYPE), [])
    with pytest.raises(NotImplementedError, match="multi-layer"):
        CPUNetSearch(np.ones((2, 4, 4), bool), np.full((2, 4, 4), -1, np.int32))
    assert COST_MAX == np.iinfo(COST_DTYPE).max


def test_pricing_on_every_core_equals_pricing_on_one(monkeypatch):
    """A change of the present factor re-prices millions of cells, on every core: the
    same costs as one core's, cells listed twice included (the router lists a cell once
    per net that uses it)."""
    from mazeroute.router import pricing as weighted
    rng = np.random.default_rng(3)
    n = 1 << 18
    base = rng.integers(1, 4, n) * weighted.COST_SCALE
    history = rng.integers(0, 50, n).astype(np.int64)
    load = rng.integers(0, 5, n).astype(np.int64)
    cells = rng.integers(0, n, weighted.PARALLEL_PRICE_CELLS * 2)   # repeats, any order
    one = np.zeros(n, weighted.COST_DTYPE)
    weighted._price_cells_serial(cells, base, history, load, 37, one)
    monkeypatch.setattr(weighted, "many_cores", lambda: True)
    every = np.zeros(n, weighted.COST_DTYPE)
    weighted.price_cells(cells, base, history, load, 37, every)
    assert np.array_equal(every, one) and one[cells].min() >= 1
    # the rule itself, cell by cell
    c = np.unique(cells)
    want = np.clip((base[c] + history[c]) * (weighted.COST_SCALE + 37 * load[c])
                   // weighted.COST_SCALE, 1, weighted.COST_MAX)
    assert np.array_equal(every[c], want)


def kernel_defines_of(source: str) -> dict[str, str]:
    """The ``#define`` names and values of ``kernels/<source>``, with those of the
    headers it includes."""
    kernels = Path(__file__).resolve().parent.parent / "kernels"
    text = (kernels / source).read_text()
    for header in re.findall(r'^#include "(\w+\.cuh)"', text, re.M):
        text += (kernels / header).read_text()
    return dict(re.findall(r"^#define (\w+) (.+?)(?:\s+//.*)?$", text, re.M))


def test_the_cost_contract_is_one_module_that_the_kernel_reads():
    """The engines, the router's pricing and the GPU host wrapper read one cost contract
    (engines/costs.py), the kernel gets it as defines, and its fallback defines agree."""
    from mazeroute.engines import costs, gpu_weighted, weighted
    from mazeroute.router import congestion, pricing
    for module in (weighted, pricing, congestion):
        assert module.COST_SCALE is costs.COST_SCALE and module.COST_DTYPE is costs.COST_DTYPE
    assert weighted.COST_MAX is costs.COST_MAX and weighted.DIST_MAX is costs.DIST_MAX
    assert weighted.Pricing is costs.Pricing
    assert set(costs.kernel_defines()) <= set(gpu_weighted.kernel_options())
    # congestion.cu prices, and needs no DIST_MAX
    for source, names in (("weighted.cu", {"COST_MAX", "COST_SCALE", "DIST_MAX"}),
                          ("congestion.cu", {"COST_MAX", "COST_SCALE"})):
        found = kernel_defines_of(source)
        want = dict(flag[2:].split("=", 1) for flag in costs.kernel_defines())
        assert names <= set(want)
        assert {n: found.get(n) for n in names} == {n: want[n] for n in names}, source
    # the pricing arithmetic is the router's, not the search engine's
    assert not hasattr(weighted, "price_cells") and not hasattr(weighted, "colour_order")


@pytest.mark.parametrize("case", random_weighted_cases(60, 24, seed=3), ids=lambda c: c.id)
def test_own_cells_equal_the_oracle_on_their_costs(case):
    _check(with_own_cells(case, np.random.default_rng(len(case.requests))))


def test_own_cells_in_parallel_calls_equal_the_oracle():
    """Overlapping boxes on all cores, each request with cells of its own."""
    rng = np.random.default_rng(8)
    case = with_own_cells(overlapping_case(rng, 24, 2), rng)
    before = case.cost.copy()
    _check(case, parallel=True)
    np.testing.assert_array_equal(case.cost, before)    # the own costs swapped back
    search = CPUNetSearch(case.free, case.owner)
    plain = search.route(case.cost, [r._replace(own=None, own_cost=None)
                                     for r in case.requests])
    assert any(not np.array_equal(a, b) for a, b in
               zip(plain, search.route(case.cost, list(case.requests)))
               if a is not None and b is not None)     # the own costs did change routes


def test_own_costs_below_one_are_refused():
    case = weighted_hand_cases()[0]
    req = case.requests[0]._replace(own=np.array([0]), own_cost=np.array([0]))
    with pytest.raises(ValueError, match="own cells' costs must be 1"):
        CPUNetSearch(case.free, case.owner).route(case.cost, [req])
