"""Negotiation's reroutes on a multi-layer layout (mazeroute.router.layered_negotiate):
batches searched together give the trees of one net at a time, and legalisation's the
CPU's. The GPU's sweeps run emulated (tests/grid3d_emulator.py), and in the
``gpu``-marked cases on the device, on the same layouts."""

from __future__ import annotations

import numpy as np
import pytest

from mazeroute.contract import check_routes
from mazeroute.generate3d import random_layout3d, solvable_puzzle
from mazeroute.layout import Layout, Net
from mazeroute.router.layered import route_layered
from mazeroute.router.layered_negotiate import _Negotiation
from mazeroute.router.negotiation.options import PathFinderOptions
from tests.grid3d_emulator import EmulatedKernels
from tests.test_layered import RANDOM, _stack
from tests.test_layered_search import _need_gpu


def _wall() -> Layout:
    """``a`` crosses a wall whose one gap is far away, so its first window proves
    nothing; ``c`` lies on its way round, ``b`` away from it; the three first windows
    are disjoint."""
    nets = [Net("a", [(17, 3, 0), (23, 3, 1)]), Net("b", [(2, 24, 0), (4, 26, 1)]),
            Net("c", [(24, 30, 0), (26, 32, 1)])]
    return Layout("wall", 40, 60, [(20, 0, 20, 50)], nets,
                  stack=_stack("any", "any", via_cost=2))


#: Where the GPU's sweeps run: emulated, or on the device.
SWEEPS = ["emulated", pytest.param("device", marks=pytest.mark.gpu)]


def _kernels(sweeps: str):
    if sweeps == "emulated":        # small windows one block each, larger ones by lines
        return EmulatedKernels(owned=True, box_cells=2048)
    _need_gpu()
    return None


def _reroute(lay: Layout, backend: str, pres: int, grown: list[int] | None = None,
             sweeps: str = "emulated"):
    neg = _Negotiation(lay, PathFinderOptions(), None, backend,
                       _kernels(sweeps) if backend == "gpu" else None)
    if grown is not None:
        alone = neg.search.grow

        def grow(i, *args, **kw):
            grown.append(i)
            return alone(i, *args, **kw)
        neg.search.grow = grow
    neg.pres = pres
    neg._price()
    neg._reroute_all(list(range(len(lay.nets))))
    return [None if t is None else t.cells.tolist() for t in neg.trees]


@pytest.mark.parametrize("sweeps", SWEEPS)
@pytest.mark.parametrize("pres", [0, 8])
def test_a_window_that_proves_nothing_grows_or_its_net_goes_alone(pres, sweeps):
    lay = _wall()
    grown: list[int] = []
    gpu = _reroute(lay, "gpu", pres, grown, sweeps)
    assert gpu == _reroute(lay, "cpu", pres)
    assert any(y > 50 for _, y, _ in gpu[0])            # a went round through the gap
    # a's window proved nothing: where costs ignore the wires (pres 0) it grew within
    # the batch; else a grew alone (its wider window met the others'), then c's
    # window, which a's new wire crossed, was searched again; b kept its batch search
    assert grown == ([] if pres == 0 else [0, 2])


@pytest.mark.parametrize("sweeps", SWEEPS)
@pytest.mark.parametrize("k", range(len(RANDOM)))
def test_reroutes_on_wires_in_place_match_the_cpu(k, sweeps):
    """Every net rerouted on a board where the others' wires stand and cost more:
    the batches' trees equal the CPU's, net by net."""
    lay = RANDOM[k]
    first = _Negotiation(lay, PathFinderOptions(), None, "cpu")
    first._price()
    first._reroute_all(list(range(len(lay.nets))))
    results = []
    for backend in ("cpu", "gpu"):
        neg = _Negotiation(lay, PathFinderOptions(), None, backend,
                           _kernels(sweeps) if backend == "gpu" else None)
        for i, tree in enumerate(first.trees):
            if tree is not None:
                neg._keep(i, tree)
        neg._take(neg.wires, 1)
        neg.pres = 24
        neg._price()
        neg._reroute_all(list(range(len(lay.nets)))[::-1])
        results.append([None if t is None else t.cells.tolist() for t in neg.trees])
        assert int(neg.users.sum()) == sum(len(np.unique(neg._flat(t.cells)))
                                           for t in neg.trees if t is not None)
    assert results[0] == results[1]


def _phases(result) -> list[str]:
    return [p.phase for p in result.phases]


def test_the_floor_is_routed_only_where_a_net_with_a_route_stays_unrouted():
    # every net connected: sequential routing cannot do better, and is not routed
    puzzle = solvable_puzzle(16, 16, 2, nets=30, seed=0).layout
    res = route_layered(puzzle)
    assert res.routed == 30 and _phases(res) == ["legalise"]
    # b's pin is walled in on every layer: no mode routes it, so again no floor
    ring = [(4, 4, 6, 4), (4, 6, 6, 6), (4, 5, 4, 5), (6, 5, 6, 5)]
    lay = Layout("ring", 10, 10, ring, [Net("a", [(0, 0, 0), (9, 9, 1)]),
                                        Net("b", [(5, 5, 0), (0, 9, 0)])],
                 stack=_stack("any", "any"))
    res = route_layered(lay)
    assert [n.routed for n in res.nets] == [True, False] and _phases(res) == ["legalise"]
    # one iteration leaves a routable net out, and sequential routing connects more
    lay = random_layout3d(16, 16, 2, nets=30, span=8, seed=5, density=0.1,
                          directions=["horizontal", "vertical"], via_cost=2)
    seq = route_layered(lay, "sequential")
    res = route_layered(lay, options=PathFinderOptions(max_iterations=1))
    assert _phases(res) == ["legalise", "sequential floor"]
    assert res.phases[0].routed < seq.routed == res.routed
    assert [n.cells for n in res.nets] == [n.cells for n in seq.nets]
    # under a time limit it is routed first, whatever the loop then does
    res = route_layered(lay, options=PathFinderOptions(time_limit=0.0))
    assert "sequential floor" in _phases(res) and res.routed >= seq.routed


@pytest.mark.parametrize("sweeps", SWEEPS)
def test_a_window_grows_within_the_batch_while_it_meets_no_other(sweeps):
    lay = _wall()
    lay.nets = lay.nets[:1]
    grown: list[int] = []
    assert _reroute(lay, "gpu", 8, grown, sweeps) == _reroute(lay, "cpu", 8)
    assert grown == []


@pytest.mark.parametrize("sweeps", SWEEPS)
def test_legalisation_on_the_gpu_blocks_every_kept_wire(sweeps):
    """One iteration leaves ``b`` crossing ``a``; legalisation keeps ``a``, ``c`` and
    ``d`` and reroutes ``b``, whose ways round ``a`` cross ``c`` or ``d``: kept wires of
    nets after ``b`` in file order, walls on the GPU as on the CPU (the GPU's search once
    read them as free, drew ``b`` across them and kept the overlap)."""
    lay = Layout("walls", 9, 9, [(0, 0, 8, 8, 1)],
                 [Net("a", [(2, 4, 0), (6, 4, 0)]), Net("b", [(4, 0, 0), (4, 8, 0)]),
                  Net("c", [(1, 0, 0), (1, 8, 0)]), Net("d", [(7, 0, 0), (7, 8, 0)])],
                 stack=_stack("any", "any"))
    one = PathFinderOptions(max_iterations=1)
    cpu = route_layered(lay, options=one, backend="cpu")
    gpu = route_layered(lay, options=one, backend="gpu", kernels=_kernels(sweeps))
    # legalisation connects three, sequential routing all four (d goes round b)
    assert [p.routed for p in gpu.phases] == [p.routed for p in cpu.phases] == [3, 4]
    assert [n.cells for n in gpu.nets] == [n.cells for n in cpu.nets]
    assert check_routes(lay, gpu.to_json()) == []
