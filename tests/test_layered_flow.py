"""Sequential routing of a stack in rounds of many nets (mazeroute.router.layered_flow):
the rounds give the one-at-a-time order's routes, including when a net outgrows its
claim and sends later nets back. The GPU's sweeps run emulated here
(tests/grid3d_emulator.py); test_layered_search runs the device on the same layouts."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from mazeroute.generate3d import random_layout3d
from mazeroute.layout import Layout, Net
from mazeroute.router.layered import route_layered
from mazeroute.router.layered_flow import SequentialFlow, SerialFlow, overlapping_pairs
from mazeroute.router.layered_search import CPUTrees, GPUTrees
from mazeroute.router.layered_tree import Board
from tests.grid3d_emulator import EmulatedKernels
from tests.test_layered import _stack
from tests.test_layered_search import _routes


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 200), st.integers(0, 200), st.integers(1, 150),
                          st.integers(1, 150)), max_size=30))
def test_overlapping_pairs_are_every_pair_that_overlaps(raw):
    boxes = np.array([(x, y, x + w, y + h) for x, y, w, h in raw], np.int64).reshape(-1, 4)
    want = [[a, b] for a in range(len(boxes)) for b in range(a + 1, len(boxes))
            if boxes[a, 0] < boxes[b, 2] and boxes[b, 0] < boxes[a, 2]
            and boxes[a, 1] < boxes[b, 3] and boxes[b, 1] < boxes[a, 3]]
    assert overlapping_pairs(boxes).tolist() == want


def _gap() -> Layout:
    """Net ``a`` must go round a wall through a gap far from its pins, outgrowing two
    claims; net ``b`` crosses that gap, its claim apart from ``a``'s first, so that it
    routes first and ``a``'s wire later lands in its claim."""
    w, h = 40, 100
    rects = [(20, 0, 20, 89)]                    # both layers; the gap is rows 90 to 99
    nets = [Net("a", [(2, 3, 0), (37, 3, 1)]), Net("b", [(15, 95, 0), (25, 95, 0)]),
            Net("c", [(30, 10, 1), (34, 14, 0)])]
    return Layout("gap", w, h, rects, nets, stack=_stack("any", "any", via_cost=2))


def test_a_net_that_outgrows_its_claim_sends_later_nets_back():
    lay = _gap()
    flow = SequentialFlow(GPUTrees(Board(lay), EmulatedKernels(owned=True)), [0, 1, 2])
    trees = flow.run()
    assert flow.resent >= 1 and flow.rounds >= 3
    assert all(t.routed for t in trees)
    cpu = route_layered(lay, "sequential", backend="cpu")
    gpu = route_layered(lay, "sequential", backend="gpu", kernels=EmulatedKernels(owned=True))
    assert _routes(gpu) == _routes(cpu)
    a = {tuple(c) for c in cpu.nets[0].cells}
    assert any(y >= 90 for _, y, _ in a)         # through the gap, past b's first route


def test_rounds_report_each_net_once_in_order():
    lay = _gap()
    flow = SequentialFlow(GPUTrees(Board(lay), EmulatedKernels(owned=True)), [2, 0, 1])
    told = []
    flow.run(told.append)
    assert told == [0, 1, 2]


def _same_as_one_at_a_time(lay: Layout, margin: int | None) -> SequentialFlow:
    order = list(range(len(lay.nets)))
    flow = SequentialFlow(GPUTrees(Board(lay), EmulatedKernels(owned=True)), order, margin)
    serial = SerialFlow(CPUTrees(Board(lay)), order)
    for a, b in zip(flow.run(), serial.run()):
        assert a.routed == b.routed and a.missing == b.missing
        assert a.cells.tolist() == b.cells.tolist()
    return flow


@settings(max_examples=6, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from([0.2, 0.35]))
def test_tight_claims_route_as_one_at_a_time(seed, density):
    """Claims of one cell round the pins: many nets outgrow theirs, and what they send
    back routes again to the one-at-a-time answer."""
    lay = random_layout3d(48, 40, 2, density=density, nets=30, span=6, seed=seed,
                          directions=["horizontal", "vertical"])
    _same_as_one_at_a_time(lay, 1)


def test_random_stacks_send_nets_back_and_still_agree():
    resent = 0
    for seed, density in ((1, 0.35), (2, 0.2), (5, 0.2)):
        lay = random_layout3d(48, 40, 2, density=density, nets=30, span=6, seed=seed,
                              directions=["horizontal", "vertical"])
        resent += _same_as_one_at_a_time(lay, 1).resent
    assert resent >= 1


@settings(max_examples=8, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from([0.1, 0.3]))
def test_crowded_stacks_route_in_rounds_as_one_at_a_time(seed, density):
    lay = random_layout3d(18, 14, 2, density=density, nets=14, span=6, seed=seed,
                          directions=["horizontal", "vertical"])
    cpu = route_layered(lay, "sequential", backend="cpu")
    gpu = route_layered(lay, "sequential", backend="gpu", kernels=EmulatedKernels(owned=True))
    assert _routes(gpu) == _routes(cpu)
