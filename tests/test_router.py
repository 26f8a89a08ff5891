"""Routing rules: order, obstacles, multi-pin trees, unroutable nets."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mazeroute.router.sequential as router_mod
from mazeroute.contract import check_routes
from mazeroute.engines import UNREACHED, bfs
from mazeroute.generate import random_layout
from mazeroute.readers import parse_layout
from mazeroute.router import Router, net_order, route

CPU_KEYS = [("cpu", "grid"), ("cpu", "csr")]


def _layout(width, height, nets, blockages=()):
    return parse_layout({"width": width, "height": height, "blockages": list(blockages),
                         "nets": [{"name": n, "pins": p} for n, p in nets]}, "t.yaml")


def test_two_pin_net_is_a_shortest_path_in_path_order():
    lay = _layout(8, 5, [("a", [[0, 2], [7, 2]])], [[3, 0, 3, 3]])
    net = route(lay, backend="cpu", mode="sequential").nets[0]
    assert net.routed and net.order == 0
    assert net.cells[0] == (0, 2) and net.cells[-1] == (7, 2)
    free = ~lay.blocked
    assert net.length == bfs(free, (0, 2), backend="cpu")[2, 7] == len(net.cells) - 1


def test_earlier_wire_is_a_blockage_for_later_nets():
    # a runs straight across row 2; b must cross it and cannot.
    lay = _layout(7, 5, [("a", [[0, 2], [6, 2]]), ("b", [[3, 0], [3, 4]])])
    res = route(lay, backend="cpu", mode="sequential")
    a, b = res.nets
    assert a.routed and a.length == 6
    assert not b.routed and b.cells == [] and b.order is None
    assert check_routes(lay, res.to_json(), sequential=True) == []
    # In hpwl order b (span 4) goes first and a detours around it.
    res = route(lay, backend="cpu", order="hpwl", mode="sequential")
    a, b = res.nets
    assert b.order == 0 and b.routed and not a.routed   # row-spanning b cuts the chip


def test_pins_of_other_nets_are_obstacles_before_they_are_routed():
    # b's pin at (2, 1) sits on a's straight line; a must step around it.
    lay = _layout(5, 3, [("a", [[0, 1], [4, 1]]), ("b", [[2, 1], [2, 0]])])
    a = route(lay, backend="cpu", mode="sequential").nets[0]
    assert a.routed and (2, 1) not in a.cells and a.length == 6


def test_multi_pin_net_grows_one_tree_through_every_pin():
    pins = [[0, 0], [9, 0], [0, 9], [9, 9], [5, 5]]
    lay = _layout(10, 10, [("t", pins)], [[3, 2, 6, 3]])
    net = route(lay, backend="cpu", mode="sequential").nets[0]
    assert net.routed
    assert {tuple(p) for p in pins} <= set(net.cells)
    assert net.length == len(net.cells) - 1 == len(set(net.cells)) - 1
    # Each step joins the nearest pin, so the tree is no longer than a star from the root.
    lv = bfs(~lay.blocked, (0, 0), backend="cpu")
    assert net.length <= sum(int(lv[y, x]) for x, y in pins[1:])
    assert check_routes(lay, route(lay, backend="cpu", mode="sequential").to_json()) == []


def test_unroutable_net_is_reported_and_routing_goes_on():
    lay = _layout(6, 6, [("boxed", [[0, 0], [5, 5]]), ("free", [[0, 5], [5, 0]])],
                  [[1, 0, 1, 1], {"cell": [0, 1]}])
    res = route(lay, backend="cpu", mode="sequential")
    boxed, free = res.nets
    assert not boxed.routed and boxed.cells == [] and boxed.order is None
    assert free.routed and free.order == 0
    assert res.routed == 1 and res.wirelength == free.length


def test_net_order_modes():
    lay = _layout(10, 10, [("long", [[0, 0], [9, 9]]), ("short", [[4, 4], [5, 4]])])
    assert net_order(lay, "file") == [0, 1]
    assert net_order(lay, "hpwl") == [1, 0]
    with pytest.raises(ValueError):
        net_order(lay, "random")


@pytest.mark.parametrize("key", CPU_KEYS, ids="/".join)
def test_generated_layout_obeys_the_contract(key):
    lay = random_layout(60, 40, density=0.2, nets=25, pins=2, seed=11)
    res = route(lay, backend=key[0], strategy=key[1], mode="sequential")
    assert res.engine == "/".join(key)
    assert res.routed > 0
    assert check_routes(lay, res.to_json(), sequential=True) == []


def test_backtrace_window_never_changes_the_route(monkeypatch):
    lay = random_layout(50, 50, density=0.3, nets=30, pins=3, seed=4)
    windowed = route(lay, backend="cpu", mode="sequential").to_json()
    monkeypatch.setattr(router_mod, "_window", lambda shape, *a: (0, shape[0], 0, shape[1]))
    assert route(lay, backend="cpu", mode="sequential").to_json() == windowed


def test_full_wavefront_sees_committed_wires():
    lay = _layout(7, 5, [("a", [[0, 2], [6, 2]]), ("b", [[3, 0], [3, 4]])])
    r = Router(lay, backend="cpu")
    r.route_net(0)
    lv = r.full_wavefront(1)
    assert lv[0, 3] == 0 and lv[4, 3] == UNREACHED and lv[2, 3] == UNREACHED


@st.composite
def layouts(draw):
    w, h = draw(st.integers(2, 20)), draw(st.integers(2, 20))
    seed = draw(st.integers(0, 2**16))
    density = draw(st.sampled_from([0.0, 0.1, 0.3, 0.5]))
    pins = draw(st.integers(2, 4))
    nets = draw(st.integers(0, max(0, min(6, (w * h) // (2 * pins)))))
    try:
        return random_layout(w, h, density=density, nets=nets, pins=pins, seed=seed)
    except Exception as e:   # not enough free cells for the nets: draw again
        from hypothesis import assume
        assume(False)
        raise e


@given(lay=layouts(), order=st.sampled_from(["file", "hpwl"]))
@settings(max_examples=120, deadline=None)
def test_every_routes_file_obeys_formats(lay, order):
    results = [route(lay, backend=b, strategy=s, order=order, mode="sequential").to_json()
               for b, s in CPU_KEYS]
    assert check_routes(lay, results[0], sequential=True) == []
    for other in results[1:]:
        other["engine"] = results[0]["engine"]
        assert other == results[0]     # every engine draws the same wires


class _FakeDeviceError(Exception):
    """Stands in for CuPy's OutOfMemoryError / CUDARuntimeError on a CPU-only machine."""


def _failing_gpu(monkeypatch, fail_at: str):
    """Make ``backend='auto'`` (and ``'gpu'``) plan a 'GPU' engine (the CPU engine in
    disguise) whose ``fail_at`` step raises a device error; the plan's fallback is the
    planner's (``cpu`` under ``auto``, none for ``gpu``)."""
    from dataclasses import replace

    real_plan = router_mod.make_plan
    real_make = router_mod.make_problem

    def fake_plan(subject, backend="auto", strategy=None, mode="wavefront"):
        if backend in ("auto", "gpu"):
            return replace(real_plan(subject, "cpu", None, mode), requested=backend,
                           backend="gpu", fallback="cpu" if backend == "auto" else None)
        return real_plan(subject, backend, strategy, mode)

    def fake_make(graph, backend="auto", strategy=None, plan=None):
        problem = real_make(graph, plan=replace(plan, backend="cpu"))
        if plan.backend == "gpu":
            if fail_at == "build":
                raise _FakeDeviceError("out of memory allocating 4,096 bytes")
            real = problem.wavefront
            calls = [0]

            def wavefront(*a, **k):
                calls[0] += 1
                if calls[0] == 2:
                    raise _FakeDeviceError("cudaErrorIllegalAddress: an illegal memory access")
                return real(*a, **k)
            problem.wavefront = wavefront
        return problem

    monkeypatch.setattr(router_mod, "make_plan", fake_plan)
    monkeypatch.setattr(router_mod, "make_problem", fake_make)
    monkeypatch.setattr(router_mod, "device_errors", lambda: (_FakeDeviceError,))
    monkeypatch.setattr(router_mod.gb, "batch_device", lambda problem: None)


@pytest.mark.parametrize("fail_at", ["build", "search"])
def test_gpu_fault_under_auto_goes_on_with_the_cpu_engine(monkeypatch, fail_at):
    lay = random_layout(40, 30, density=0.2, nets=8, seed=3)
    expected = route(lay, backend="cpu", mode="sequential")
    _failing_gpu(monkeypatch, fail_at)
    router = Router(lay, "auto")
    res = router.run()
    assert res.engine == "cpu/grid" and "failed" in res.notice and "CPU" in res.notice
    assert [n.cells for n in res.nets] == [n.cells for n in expected.nets]
    assert check_routes(lay, res.to_json(), sequential=True) == []


def test_gpu_fault_mid_way_keeps_the_wires_committed_before_it(monkeypatch):
    lay = _layout(7, 5, [("a", [[0, 2], [6, 2]]), ("b", [[3, 0], [3, 4]])])
    _failing_gpu(monkeypatch, "search")
    router = Router(lay, "auto")
    assert router.route_net(0).routed                  # first search: on the 'GPU'
    b = router.route_net(1)                            # second: faults, redone on the CPU
    assert router.engine == "cpu/grid" and not b.routed   # a's wire still blocks b


@pytest.mark.parametrize("fail_at", ["build", "search"])
def test_gpu_fault_with_backend_gpu_is_one_clear_error(monkeypatch, fail_at):
    from mazeroute.errors import EngineUnavailable
    lay = random_layout(40, 30, density=0.2, nets=8, seed=3)
    _failing_gpu(monkeypatch, fail_at)
    with pytest.raises(EngineUnavailable) as err:
        Router(lay, "gpu").run()
    assert "GPU" in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize("mode", ["sequential", "negotiate"])
def test_route_refuses_a_layout_built_in_python_that_the_readers_would_refuse(mode):
    """A Layout built directly is checked as a layout file is: a shared pin, a repeated
    name, a pin off the grid or on a blockage, a mask of the wrong shape or type, a net
    of fewer than two pins; each an InputError naming the field, never routes that break
    the contract, an obscure numpy error, or routed=0 without a word."""
    from mazeroute.errors import InputError
    from mazeroute.layout import Layout, Net
    from mazeroute.router import route
    n = Net("n", [(0, 0), (3, 0)])
    cases = [
        (Layout("a", 4, 4, nets=[n, Net("m", [(0, 0), (0, 3)])]), "also a pin of net"),
        (Layout("a", 4, 4, nets=[n, Net("n", [(1, 1), (2, 2)])]), "name repeats"),
        (Layout("a", 4, 4, nets=[Net("n", [(0, 0), (9, 9)])]), "outside the 4 x 4 grid"),
        (Layout("a", 4, 4, [(1, 0, 1, 3)], [Net("n", [(0, 0), (1, 1)])]), "lies on"),
        (Layout("a", 4, 3, blocked=np.zeros((4, 3), bool), nets=[n]), "shape"),
        (Layout("a", 4, 4, blocked=np.zeros((4, 4)), nets=[n]), "bool array"),
        (Layout("a", 4, 4, nets=[Net("n", [])]), "at least 2"),
        (Layout("a", 4, 4, nets=[Net("n", [(0, 0), (-1, 0)])]), "two integers"),
    ]
    for layout, words in cases:
        with pytest.raises(InputError, match=words) as e:
            route(layout, backend="cpu", mode=mode)
        assert "\n" not in str(e.value)
    with pytest.raises(TypeError, match="expected a Layout"):
        route(None, backend="cpu", mode=mode)
    for width in (-3, 2.5, "4", True):                   # refused as it is built
        with pytest.raises(InputError, match="width: must be an integer"):
            Layout("a", width, 4)
    good = Layout("a", 4, 4, nets=[n, Net("m", [(0, 1), (0, 3)])])
    assert route(good, backend="cpu", mode=mode).routed == 2


def test_a_router_runs_on_the_plan_it_is_given():
    from mazeroute.plan import make_plan
    lay = random_layout(30, 20, density=0.2, nets=6, seed=5)
    plan = make_plan(lay, "cpu", "csr", mode="sequential")
    r = Router(lay, "cpu", plan=plan)          # the plan, not the backend's default strategy
    assert r.plan is plan and r.engine == "cpu/csr" and r.problem.name == ("cpu", "csr")
    res = r.run()
    assert res.engine == "cpu/csr"
    assert [n.cells for n in res.nets] == [n.cells for n in Router(lay, "cpu").run().nets]


def test_a_gpu_fault_falls_back_only_where_the_plan_says(monkeypatch):
    from dataclasses import replace

    from mazeroute.errors import EngineUnavailable
    lay = random_layout(40, 30, density=0.2, nets=8, seed=3)
    _failing_gpu(monkeypatch, "build")
    auto = router_mod.make_plan(lay, "auto", mode="sequential")
    assert auto.fallback == "cpu" and Router(lay, plan=auto).engine == "cpu/grid"
    with pytest.raises(EngineUnavailable, match="GPU engine failed"):
        Router(lay, "auto", plan=replace(auto, fallback=None))


def test_routing_policy_is_the_routers_and_engines_never_import_it():
    """The batched run's scheduling lives under router/; engines/ never imports router/;
    router/ never weighs CPU against GPU itself (the planner does); no router module
    writes another object's private fields, or the Router's fields from outside."""
    import re
    from pathlib import Path

    from mazeroute.engines import gpu_batch
    root = Path(router_mod.__file__).parents[1]
    for f in (root / "engines").glob("*.py"):
        assert not re.search(r"^\s*(from|import)\s+(\.\.router|mazeroute\.router)\b",
                             f.read_text(), re.M), f
    for name in ("BatchRun", "BatchOutcome", "schedule", "plan", "dependents", "lift",
                 "send_back", "take", "wire_hits"):
        assert not hasattr(gpu_batch, name), name
    for f in (root / "router").glob("*.py"):
        text = f.read_text()
        assert "engines.auto" not in text and "gpu_available(" not in text, f
        assert not re.search(r"\b(?!self\b)[A-Za-z_]\w*\._[a-z]\w*\s*(\[[^\]]*\])?\s*"
                             r"[-+*/|&]?=(?!=)", text), f
        assert not re.search(r"(?<![\w.])router\.\w+\s*[-+]?=(?!=)", text), f
