"""Every GPU strategy equals the oracle (the same corpus as the CPU engines) and routes
files that keep the contract. Marked ``gpu``: skipped with a reason where no device is."""

from __future__ import annotations

import numpy as np
import pytest

from mazeroute.contract import check_routes
from mazeroute.engines import UNREACHED, make_problem
from mazeroute.generate import random_layout, random_rects
from mazeroute.graph import GridGraph, fig15_1_graph
from mazeroute.layout import paint
from mazeroute.router import Router
from tests.corpus import engines, hand_cases, random_cases, runs

pytestmark = pytest.mark.gpu

GPU = engines("gpu")
CASES = hand_cases() + random_cases(200, max_side=1024, seed=7)


def _by_level(lv):
    return {k: np.flatnonzero(lv == k).tolist() for k in range(int(lv[lv != UNREACHED].max()) + 1)}


@pytest.mark.parametrize("key", GPU, ids="/".join)
def test_fig15_1_levels_from_book(key):
    if not runs(hand_cases()[0], key):
        pytest.skip("grid-only engine")
    p = make_problem(fig15_1_graph(), *key)
    assert _by_level(p.wavefront([0]).levels()) == {0: [0], 1: [1, 2], 2: [3, 4, 5, 6, 7],
                                                    3: [8]}
    assert _by_level(p.wavefront([2]).levels()) == {0: [2], 1: [5, 6, 7], 2: [0, 8], 3: [1],
                                                    4: [3, 4]}


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_every_strategy_equals_the_oracle(case):
    expected = case.expected()
    for key in GPU:
        if not runs(case, key):
            continue
        p = make_problem(case.graph, *key)
        wave = p.wavefront(list(case.sources))
        got = wave.levels()
        np.testing.assert_array_equal(got, expected, err_msg="/".join(key))
        assert wave.num_levels == int(expected[expected != UNREACHED].max()) + 1, key


def _big(side: int, seed: int) -> GridGraph:
    rng = np.random.default_rng(seed)
    return GridGraph(~paint(side, side, random_rects(side, side, 0.25, rng)))


@pytest.mark.parametrize("side", [1024, 4096])
def test_large_grids_equal_the_cpu_engine(side):
    g = _big(side, side)
    root = int(np.flatnonzero(g.free.ravel())[0])
    ref = make_problem(g, "cpu", "grid").wavefront([root]).levels()
    for key in GPU:
        got = make_problem(g, *key).wavefront([root]).levels()
        np.testing.assert_array_equal(got, ref, err_msg="/".join(key))


@pytest.mark.parametrize("key", GPU, ids="/".join)
def test_early_exit_multi_source_and_blockage_reuse(key):
    g = _big(96, 3)
    cells = np.flatnonzero(g.free.ravel())
    rng = np.random.default_rng(1)
    cpu, gpu = make_problem(g, "cpu", "grid"), make_problem(g, *key)
    for _ in range(4):
        src = rng.choice(cells, 2, replace=False)
        tgt = rng.choice(cells, 3, replace=False)
        a, b = cpu.wavefront(src, tgt), gpu.wavefront(src, tgt)
        assert (a.target, a.target_level) == (b.target, b.target_level)
        if a.target is not None:
            la, lb = a.levels(), b.levels()
            low = la <= a.target_level
            np.testing.assert_array_equal(lb[low], la[low])
        wire = rng.choice(np.setdiff1d(cells, np.concatenate([src, tgt])), 40, replace=False)
        cpu.set_blocked(wire)
        gpu.set_blocked(wire)
        np.testing.assert_array_equal(gpu.wavefront(src[:1]).levels(),
                                      cpu.wavefront(src[:1]).levels())


@pytest.mark.parametrize("key", GPU, ids="/".join)
def test_routes_from_every_strategy_keep_the_contract(key):
    for seed in range(3):
        lay = random_layout(48, 40, density=0.2, nets=8, pins=2 + seed % 2, seed=seed)
        res = Router(lay, *key).run()
        assert check_routes(lay, res.to_json(), sequential=True) == []
        cpu = Router(lay, "cpu").run()
        assert [n.length for n in res.nets] == [n.length for n in cpu.nets]
