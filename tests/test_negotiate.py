"""Negotiated-congestion routing (router.negotiate): conflicts sequential routing cannot
resolve, legality and the floor, determinism, reasons, iterations, stops and the time
limit (its parts' own tests: tests/test_negotiation_*.py)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import mazeroute.router.negotiate as neg
from mazeroute.contract import check_routes
from mazeroute.engines.weighted import box_levels
from mazeroute.generate import random_layout
from mazeroute.router import PathFinderOptions, Router, route
from mazeroute.router.congestion import Congestion
from mazeroute.router.negotiate import Negotiator, sequential_routes
from tests.corpus import (
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


@pytest.mark.parametrize("seed", range(4))
def test_reasons_grid_of_wires_from_the_book_is_the_results(seed):
    """The reasons' grid of wires made from the book's flat cells (negotiation's own
    routes) is the one made net by net from the result."""
    lay = random_layout(28, 28, density=0.3, nets=40, pins=2, seed=seed, span=12)
    ng = Negotiator(lay, "cpu", PathFinderOptions(max_iterations=4))
    ng.run()
    now = ng._result()
    wires, cost = ng._wires_grid(now, negotiated=True)
    assert (wires >= 0).sum() == sum(len(n.cells) for n in now.nets if n.routed) > 0
    for a, b in zip((wires, cost), ng._wires_grid(now, negotiated=False)):
        assert a.shape == b.shape == (lay.height, lay.width) and a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)


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


def test_same_input_same_routes():
    lay = random_layout(60, 50, density=0.25, nets=60, pins=2, seed=5, span=20)
    a = _negotiate(lay).to_json()
    b = _negotiate(lay).to_json()
    assert a == b


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


def _beside(lay, **options):
    """A negotiator on the CPU whose plan routes the floor beside the phases."""
    from dataclasses import replace

    from mazeroute.plan import make_plan
    plan = replace(make_plan(lay, "cpu", mode="negotiate"), floor_beside=True)
    return Negotiator(lay, "cpu", PathFinderOptions(**options), plan)


def _started(monkeypatch) -> list[int]:
    """Count the floors started beside the phases (each one's nets to beat)."""
    from mazeroute.router.negotiation import phases
    started, real = [], phases.FloorThread

    def thread(layout, backend, beat=None):
        started.append(beat)
        return real(layout, backend, beat)
    monkeypatch.setattr(phases, "FloorThread", thread)
    return started


@pytest.mark.parametrize("make", [oversubscribed_layout, unroutable_layout,
                                  lambda: random_layout(48, 40, density=0.3, nets=90,
                                                        pins=2, seed=4, span=16)])
def test_the_floor_beside_the_phases_changes_no_route(monkeypatch, make):
    """Started after legalise with the nets routed then to beat, joined at the floor
    phase: the routes, notice and phases of the floor routed after the phases."""
    lay = make()
    started = _started(monkeypatch)
    got = _beside(lay, wait_factor=0).run()
    want = Negotiator(lay, "cpu", PathFinderOptions(wait_factor=0)).run()
    assert len(started) == 1 and started[0] <= got.routed < len(lay.nets)
    assert [n.cells for n in got.nets] == [n.cells for n in want.nets]
    assert [n.reason for n in got.nets] == [n.reason for n in want.nets]
    assert got.notice == want.notice
    assert [p.phase for p in got.phases] == [p.phase for p in want.phases]


def test_a_floor_beside_that_connects_more_is_kept(monkeypatch):
    """Every wire dropped before the floor starts: the floor's routes are the result."""
    from mazeroute.router.negotiation import phases
    lay = oversubscribed_layout()
    ng = _beside(lay, wait_factor=0)

    def drop(ng_, run):
        ng_._rip([i for i, c in enumerate(ng_.cells) if c is not None])
    res = phases.run_phases(ng, ng.negotiate(), (drop, phases.floor_beside, phases.floor))
    seq = sequential_routes(lay, "cpu")
    assert ng.floor_thread is None and res.routed == seq.routed > 0
    assert [n.cells for n in res.nets] == [n.cells for n in seq.nets]
    assert "its routes are kept" in res.notice


def test_no_floor_beside_where_the_clock_rules_it(monkeypatch):
    """A time limit's floor heeds the clock, and a floor the bound timed is kept: no
    thread then; nor where every net is routed after legalise."""
    started = _started(monkeypatch)
    _beside(oversubscribed_layout(), time_limit=60.0).run()
    ng = _beside(oversubscribed_layout())
    ng.now = iter(float(t) for t in range(0, 10**6, 20)).__next__  # past min_wait at once
    ng.run()
    assert ng.floor_first is not None
    _beside(random_layout(32, 32, density=0.0, nets=4, pins=2, seed=1, span=8),
            wait_factor=0).run()
    assert started == []


def test_a_floor_beside_that_fails_raises_at_the_floor_phase(monkeypatch):
    """What the thread raised is raised on the run's thread, and no thread is left."""
    import threading

    import mazeroute.router.floor as floor_module

    def broken(*args, **kw):
        raise RuntimeError("the floor broke")
    monkeypatch.setattr(floor_module, "sequential_routes", broken)
    with pytest.raises(RuntimeError, match="the floor broke"):
        _beside(oversubscribed_layout(), wait_factor=0).run()
    assert not any(t.name == "mazeroute-floor" for t in threading.enumerate())


def test_the_floor_thread_runs_on_the_callers_device(monkeypatch):
    """The thread enters the scope made on the caller's thread (its CUDA device) before
    it routes, and its routes are the floor's."""
    import contextlib
    import threading

    import mazeroute.router.floor as floor_module
    seen = []

    @contextlib.contextmanager
    def scope():
        seen.append(threading.current_thread().name)
        yield
    monkeypatch.setattr(floor_module, "device_scope", lambda: scope)
    lay = corridor_layout()
    got = floor_module.FloorThread(lay, "cpu").join()
    assert seen == ["mazeroute-floor"]
    assert [n.cells for n in got.nets] == [n.cells for n in sequential_routes(lay, "cpu").nets]


@pytest.mark.gpu
def test_the_floor_beside_the_phases_on_the_device_changes_no_route():
    """On the device (both negotiation and the floor the GPU's) the floor is routed
    beside the phases, with the routes of the floor routed after them; and when it
    connects more nets it is kept."""
    from dataclasses import replace

    from mazeroute.plan import make_plan
    from mazeroute.router.negotiation import phases
    lay = oversubscribed_layout()
    plan = make_plan(lay, "gpu", mode="negotiate")
    opts = PathFinderOptions(wait_factor=0)
    assert plan.floor_beside
    got = Negotiator(lay, "gpu", opts, plan).run()
    want = Negotiator(lay, "gpu", opts, replace(plan, floor_beside=False)).run()
    assert [n.cells for n in got.nets] == [n.cells for n in want.nets]
    assert got.notice == want.notice and got.routed < len(lay.nets)
    ng = Negotiator(lay, "gpu", opts, plan)

    def drop(ng_, run):
        ng_._rip([i for i, c in enumerate(ng_.cells) if c is not None])
    res = phases.run_phases(ng, ng.negotiate(), (drop, phases.floor_beside, phases.floor))
    seq = sequential_routes(lay, "gpu")
    assert res.routed == seq.routed > 0 and "its routes are kept" in res.notice
    assert [n.cells for n in res.nets] == [n.cells for n in seq.nets]


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
    assert names == ["legalise", "floor_beside", "repair", "tidy", "space_fill", "windows",
                     "reasons", "floor"]
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


@pytest.mark.parametrize("seed", range(3))
def test_a_nets_box_is_its_row_of_boxes(seed):
    """box(i), asked net by net by the phases, is boxes()'s row for net i, for margins
    from none to past the grid's sides."""
    lay = random_layout(48, 40, density=0.2, nets=30, pins=2 + seed % 2, seed=seed, span=12)
    ng = Negotiator(lay, "cpu")
    ng.margin[:] = np.random.default_rng(seed).integers(0, 60, len(lay.nets))
    every = ng.boxes(np.arange(len(lay.nets)))
    assert [ng.box(i) for i in range(len(lay.nets))] == [tuple(b) for b in every.tolist()]


def test_negotiation_pauses_the_collector_and_leaves_it_as_it_was():
    """Python's garbage collector is off while a negotiation runs (its progress sees
    it off) and as it was afterwards: on again, off again, and on again after an
    error."""
    import gc

    lay = random_layout(40, 30, density=0.2, nets=20, pins=2, seed=3, span=12)
    seen = []
    assert gc.isenabled()
    res = route(lay, backend="cpu", progress=lambda s: seen.append(gc.isenabled()))
    assert res.routed and seen and not any(seen)
    assert gc.isenabled()
    gc.disable()
    try:
        route(lay, backend="cpu")
        assert not gc.isenabled()
    finally:
        gc.enable()

    def fail(stats):
        raise RuntimeError("stop here")
    with pytest.raises(RuntimeError, match="stop here"):
        route(lay, backend="cpu", progress=fail)
    assert gc.isenabled()
