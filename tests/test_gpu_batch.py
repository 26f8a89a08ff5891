"""The batched router on the real kernel (kernels/route_batch.cu through
engines/gpu_batch.py): every net's result equals the CPU router's, on the layouts of
tests/test_router_batch.py, whose loop runs on the kernel's CPU statement. Every test
needs CuPy and a CUDA device (marked ``gpu``)."""

from __future__ import annotations

import numpy as np
import pytest

from mazeroute.bench import route_layout
from mazeroute.engines import gpu_batch as gb
from mazeroute.generate import random_nets, random_rects
from mazeroute.layout import Layout, Net
from mazeroute.router import Router
from tests.corpus import multi_pin_benchmark_layout
from tests.test_router_batch import (
    _apart_by_labels,
    _gave_up_or_same,
    _random_layout,
    _rooms_layout,
    _same,
    _serpentine_tree,
    _tree_layout,
    _walled_layout,
    _walled_tree,
)


# -- the real kernel ------------------------------------------------------------------------
@pytest.mark.gpu
@pytest.mark.parametrize("seed", range(80))
def test_gpu_batched_routing_equals_cpu(seed):
    lay = _random_layout(2000 + seed)
    order = "hpwl" if seed % 3 == 0 else "file"
    r = Router(lay, "gpu")
    assert r.batch is not None
    r.batch.margin = (0, 1, 2, 4, 16)[seed % 5]
    _same(r.run(order), Router(lay, "cpu").run(order))


@pytest.mark.gpu
@pytest.mark.parametrize("seed", range(12))
def test_gpu_run_gives_up_exactly_when_more_than_max_unrouted_nets_stay_unrouted(seed):
    lay = _random_layout(3000 + seed)
    want = Router(lay, "cpu").run()
    lost = len(lay.nets) - want.routed
    for m in sorted({max(0, lost - 1), lost}):
        _gave_up_or_same(Router(lay, "gpu").run(max_unrouted=m), want, m)


@pytest.mark.gpu
@pytest.mark.parametrize("seed", range(60))
def test_gpu_batched_trees_equal_cpu(seed):
    lay = _tree_layout(seed)
    rng = np.random.default_rng(7000 + seed)
    order = "hpwl" if seed % 3 == 0 else "file"
    r = Router(lay, "gpu")
    r.batch.margin = int(rng.choice([0, 1, 2, 4, 16]))
    r.batch.smem_limit = int(rng.choice([gb.window_bytes(8, 8), gb.window_bytes(24, 24),
                                         r.batch.smem_limit]))
    _same(r.run(order), Router(lay, "cpu").run(order))


@pytest.mark.gpu
@pytest.mark.parametrize("third", [(12, 5), (5, 5)])
@pytest.mark.parametrize("margin", [0, 1, 3, 12])
def test_gpu_hand_made_trees(third, margin):
    lay = _rooms_layout(third)
    for order in ("file", "hpwl"):
        r = Router(lay, "gpu")
        r.batch.margin = margin
        _same(r.run(order), Router(lay, "cpu").run(order))


@pytest.mark.gpu
@pytest.mark.parametrize("make", [_walled_tree, _serpentine_tree])
@pytest.mark.parametrize("margin", [2, 30])
def test_gpu_trees_counted_or_alone(make, margin):
    lay = make()
    r = Router(lay, "gpu")
    r.batch.margin = margin
    _same(r.run(), Router(lay, "cpu").run())


@pytest.mark.gpu
@pytest.mark.parametrize("seed", range(2))
def test_gpu_trees_on_the_multi_pin_benchmark_layout(seed):
    lay = multi_pin_benchmark_layout(seed)
    r = Router(lay, "gpu")
    _same(r.run(), Router(lay, "cpu").run())
    assert r.batches > 0 and r.grouped == 0


@pytest.mark.gpu
@pytest.mark.parametrize("seed", range(4))
def test_gpu_batched_routing_equals_cpu_on_route_benchmarks(seed):
    lay = route_layout(384, 400, seed=seed, span=48)
    for order in ("file", "hpwl"):
        r = Router(lay, "gpu")
        _same(r.run(order), Router(lay, "cpu").run(order))
        assert r.batches < 200


@pytest.mark.gpu
@pytest.mark.parametrize("rows", [930, 940, 960, 985])
def test_gpu_windows_around_the_default_shared_memory_limit(rows):
    # one-word-wide windows of ~46.5-49.3 kB, on both sides of the 48 kB a launch gets
    # without opting in (the kernel's own shared variables count towards it)
    rng = np.random.default_rng(rows)
    lay = Layout(f"tall{rows}", 64, rows, random_rects(64, rows, 0.2, rng, max_side=6))
    lay.blocked[0, 3] = lay.blocked[rows - 1, 60] = False
    taken = lay.blocked.copy()
    taken[0, 3] = taken[rows - 1, 60] = True
    lay.nets = [Net("long", [(3, 0), (60, rows - 1)]), *random_nets(taken, 3, 2, rng)]
    r = Router(lay, "gpu")
    _same(r.run(), Router(lay, "cpu").run())
    assert r.batches >= 1


@pytest.mark.gpu
def test_gpu_batched_routing_equals_cpu_on_the_target_layout():
    lay = route_layout(1024, 1000, seed=0)          # the routing target layout
    r = Router(lay, "gpu")
    _same(r.run(), Router(lay, "cpu").run())


@pytest.mark.gpu
def test_gpu_batched_routing_with_windows_routed_alone():
    lay = _random_layout(77)
    r = Router(lay, "gpu")
    r.batch.margin = 1
    r.batch.smem_limit = int(gb.window_bytes(20, 20))        # bigger windows: alone
    _same(r.run(), Router(lay, "cpu").run())


@pytest.mark.gpu
@pytest.mark.parametrize("seed", range(8))
def test_gpu_apart_equals_the_labels_oracle(seed):
    lay = _walled_layout(3000 + seed, size=int(np.random.default_rng(seed).integers(20, 150)))
    r = Router(lay, "gpu")
    dev = r.batch
    h, w = lay.height, lay.width
    rng = np.random.default_rng(seed)
    free = dev.problem.host_free.reshape(-1).copy()
    # wires of routing positions 0-29 on a third of the free cells, each cell once
    cells = rng.permutation(np.flatnonzero(free))[:free.sum() // 3].astype(np.int64)
    pos = rng.integers(0, 30, cells.size)
    dev.commit(cells, pos)
    pins = rng.integers(0, [w, h, w, h], (200, 4))
    for turn in (31, 20, 7, 0):         # each earlier than the last: labelled again
        at_turn = dev.problem.host_free.reshape(-1).copy()
        at_turn[cells[pos >= turn]] = True
        want = _apart_by_labels(at_turn.reshape(h, w), pins)
        assert dev.apart(pins, turn).tolist() == want.tolist()
    # no wire since, a later turn: the labels of turn 0 are reused, coarser but sound
    before = dev.labellings
    at_turn = dev.problem.host_free.reshape(-1).copy()
    at_turn[cells[pos >= 15]] = True
    got = dev.apart(pins, 15)
    assert dev.labellings == before
    assert not (got & ~_apart_by_labels(at_turn.reshape(h, w), pins)).any()


@pytest.mark.gpu
@pytest.mark.parametrize("seed", range(10))
def test_gpu_nets_proven_apart_match_the_cpu(seed):
    lay = _walled_layout(4000 + seed, size=(48, 160)[seed % 2])
    r = Router(lay, "gpu")
    r.batch.margin = seed % 3
    # small windows: nets with pins far apart go alone, and are checked first
    r.batch.smem_limit = int(gb.window_bytes(*(2 * [(12, 16, 24)[seed % 3]])))
    _same(r.run(), Router(lay, "cpu").run())
    assert r.proven > 0
