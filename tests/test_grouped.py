"""Group searches of multi-pin nets (mazeroute/router/grouped.py) give the wires, levels
and bends of the one-net-at-a-time router; the CPU router is the oracle throughout."""

from __future__ import annotations

import numpy as np
import pytest

from mazeroute.engines.weighted import COST_DTYPE, CPUNetSearch, NetRequest
from mazeroute.generate import random_layout, random_nets, random_rects
from mazeroute.layout import Layout
from mazeroute.readers import parse_layout
from mazeroute.router import Router, grouped
from tests.corpus import multi_pin_benchmark_layout
from tests.test_router_batch import EmuBatch, _same


def _alone(lay: Layout, i: int):
    """Net ``i`` routed by the CPU router alone on the layout (every other pin blocked)."""
    return Router(lay, "cpu").route_net(i)


def _box_tree(lay: Layout, i: int, margin: int):
    net = lay.nets[i]
    pins = np.array(net.pins, np.int64)
    free = ~lay.blocked
    owner = np.full(free.shape, -1, np.int32)
    for k, other in enumerate(lay.nets):
        for x, y in other.pins:
            owner[y, x] = k
    h, w = free.shape
    lo, hi = pins.min(axis=0) - margin, pins.max(axis=0) + margin
    box = (max(0, int(lo[0])), max(0, int(lo[1])), min(w - 1, int(hi[0])),
           min(h - 1, int(hi[1])))
    xy = CPUNetSearch(free, owner).route(np.ones(free.shape, COST_DTYPE),
                                         [NetRequest(i, pins, box)])[0]
    return xy, box


def _layout(seed: int, pins: int) -> Layout:
    rng = np.random.default_rng(seed)
    w, h = int(rng.integers(12, 60)), int(rng.integers(12, 60))
    lay = Layout(f"g{seed}", w, h, random_rects(w, h, float(rng.uniform(0.05, 0.35)), rng,
                                                max_side=int(rng.integers(1, 8))))
    lay.nets = random_nets(lay.blocked, int(rng.integers(1, 6)), pins, rng,
                           span=int(rng.integers(4, 30)))
    return lay


@pytest.mark.parametrize("seed", range(150))
def test_a_certified_box_tree_is_the_routers_tree(seed):
    lay = _layout(seed, 2 + seed % 4)
    h, w = lay.height, lay.width
    for i in range(len(lay.nets)):
        want = _alone(lay, i)
        for margin in (0, 1, 3, 8):
            xy, box = _box_tree(lay, i, margin)
            if xy is None:
                continue
            ok, levels, turns = grouped.certify(xy, np.array(lay.nets[i].pins, np.int64),
                                                *box, h, w)
            if ok:
                assert want.routed
                assert [tuple(c) for c in xy.tolist()] == want.cells
                assert (levels, turns) == (want.levels, want.bends)


def test_certification_is_not_vacuous_and_refuses_a_detour_out_of_the_box():
    certified = refused = 0
    for seed in range(150):
        lay = _layout(seed, 3)
        for i in range(len(lay.nets)):
            for margin in (0, 8):
                xy, box = _box_tree(lay, i, margin)
                if xy is not None:
                    ok = grouped.certify(xy, np.array(lay.nets[i].pins, np.int64), *box,
                                         lay.height, lay.width)[0]
                    certified += ok
                    refused += not ok
    assert certified > 100 and refused > 10
    # walls inside a thin box make its way 8 long; round the outside is as short
    lay = parse_layout({"width": 9, "height": 9, "blockages": [[3, 3, 3, 4], [5, 4, 5, 5]],
                        "nets": [{"name": "a", "pins": [[2, 4], [6, 4]]}]})
    xy, box = _box_tree(lay, 0, 1)
    assert box == (1, 3, 7, 5) and len(xy) == 9
    assert not grouped.certify(xy, np.array(lay.nets[0].pins, np.int64), *box, 9, 9)[0]
    xy, box = _box_tree(lay, 0, 4)
    assert grouped.certify(xy, np.array(lay.nets[0].pins, np.int64), *box, 9, 9)[0]


def _emu(lay, order="file"):
    r = Router(lay, "cpu")
    r.batch = EmuBatch(r.problem)
    r.batch_trees = False          # multi-pin nets as barriers: the group searches' case
    return r.run(order), r


@pytest.mark.parametrize("seed", range(40))
def test_grouped_multi_pin_routing_equals_the_router(seed, monkeypatch):
    monkeypatch.setattr(grouped, "GROUP_MARGIN", [0, 1, 3, 12][seed % 4])
    lay = _mixed(seed, 1000)
    got, r = _emu(lay, "hpwl" if seed % 3 == 0 else "file")
    _same(got, Router(lay, "cpu").run("hpwl" if seed % 3 == 0 else "file"))


def _mixed(seed: int, base: int) -> Layout:
    """A layout of multi-pin nets (:func:`_layout` of ``base + seed``) with up to five
    two-pin nets before or after them."""
    rng = np.random.default_rng(seed)
    lay = _layout(base + seed, int(rng.integers(3, 6)))
    taken = lay.blocked.copy()
    for net in lay.nets:
        for x, y in net.pins:
            taken[y, x] = True
    more = random_nets(taken, int(rng.integers(0, 6)), 2, rng, prefix="t")
    lay.nets = lay.nets + more if seed % 2 else more + lay.nets
    return lay


def test_a_multi_pin_layout_is_mostly_routed_in_groups():
    lay = random_layout(256, 256, density=0.15, nets=60, pins=4, seed=3, span=40)
    got, r = _emu(lay)
    _same(got, Router(lay, "cpu").run())
    assert r.grouped >= 40
    r2 = Router(lay, "cpu")
    r2.batch = EmuBatch(r2.problem)
    r2.batch_trees = r2.group_search = False
    _same(r2.run(), got)
    assert r2.grouped == 0


# -- the real device -------------------------------------------------------------------------
@pytest.mark.gpu
@pytest.mark.parametrize("seed", range(24))
def test_gpu_grouped_multi_pin_routing_equals_cpu(seed, monkeypatch):
    monkeypatch.setattr(grouped, "GROUP_MARGIN", [0, 1, 3, 12][seed % 4])
    lay = _mixed(seed, 3000)
    r = Router(lay, "gpu")
    r.batch_trees = False
    _same(r.run(), Router(lay, "cpu").run())


@pytest.mark.gpu
@pytest.mark.parametrize("seed", range(2))
def test_gpu_grouped_routing_on_the_multi_pin_benchmark_layout(seed):
    lay = multi_pin_benchmark_layout(seed)
    r = Router(lay, "gpu")
    r.batch_trees = False
    _same(r.run(), Router(lay, "cpu").run())
    assert r.grouped >= 200
