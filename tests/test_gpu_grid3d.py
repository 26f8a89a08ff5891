"""The GPU's 3-D engines (kernels/grid3d.cu, :mod:`mazeroute.engines.gpu_grid3d`) equal
the 3-D Dijkstra oracle on the shared 3-D corpus and on random stacks, by the line
sweeps and by one block a box. The host side (boxes, packed offsets, line tables,
rounds, target cut-off) also runs here on the kernels written out in Python
(tests/grid3d_emulator.py); the CUDA kernels run in the ``gpu``-marked tests."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mazeroute.engines import gpu_available
from mazeroute.engines.gpu_grid3d import BoxSweeps, whole_grid
from mazeroute.engines.grid3d import stack_arrays
from mazeroute.engines.oracle3d import oracle_dist3d, oracle_early3d
from mazeroute.errors import InputError
from tests.corpus3d import Case3D, hand_cases3d
from tests.grid3d_emulator import EmulatedKernels
from tests.test_grid3d import BAD_INPUT, stacks

CASES = hand_cases3d()
IDS = [c.id for c in CASES]
gpu = pytest.mark.gpu


def _gpu():
    if not gpu_available():
        pytest.skip("needs CuPy and a CUDA device")
    from mazeroute.engines import gpu_grid3d
    return gpu_grid3d


#: The largest box the one-block kernel takes: none (the line sweeps alone), or any.
BOX_CELLS = [0, 1 << 20]


def _cuda(owned: bool, box_cells: int):
    """The CUDA kernels, taking boxes of at most ``box_cells`` cells one block each."""
    k = _gpu().CudaKernels(owned)
    k.box_cells = min(k.box_cells, box_cells)
    return k


def _emulated(case: Case3D, targets: bool, weighted: bool, box_cells: int) -> np.ndarray:
    free, axes, sites = stack_arrays(case.free, case.directions, case.via_sites)
    return whole_grid(free, axes, sites, case.sources, case.targets if targets else None,
                      case.via_cost, case.weights() if weighted else None,
                      EmulatedKernels(owned=False, box_cells=box_cells))


# -- the host side, on the emulated kernels ------------------------------------------------
@pytest.mark.parametrize("box_cells", BOX_CELLS)
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_emulated_sweeps_equal_oracle(case, box_cells):
    for targets in (True, False):
        for weighted in (False, True):
            np.testing.assert_array_equal(_emulated(case, targets, weighted, box_cells),
                                          case.expected(targets, weighted))


@settings(max_examples=40, deadline=None)
@given(stacks(max_layers=3, max_side=7, weighted=True), st.sampled_from(BOX_CELLS))
def test_emulated_random_stacks_equal_oracle(case, box_cells):
    free, axes, sites = stack_arrays(case.free, case.directions, case.via_sites)
    got = whole_grid(free, axes, sites, case.sources, case.targets, case.via_cost,
                     case.cost, EmulatedKernels(owned=False, box_cells=box_cells))
    np.testing.assert_array_equal(got, oracle_early3d(case.free, case.sources, case.targets,
                                                      cost=case.cost, **case.rules))


@pytest.mark.parametrize("box_cells", BOX_CELLS)
def test_boxes_of_one_launch_are_searched_apart(box_cells):
    """Three boxes with owner ranks in one run: each box's distances are those of its
    own sub-grid, with other ranks' pins and earlier ranks' wires blocked, and its own
    cells and later ranks' wires free."""
    rng = np.random.default_rng(3)
    layers, h, w = 2, 9, 12
    occ = np.where(rng.random((layers, h, w)) < 0.2, -2, -1).astype(np.int32)
    occ[0, 4, 5] = -3 - 1                  # rank 1's pin: blocked for every other box
    occ[1, 2, 2] = 0                       # rank 0's wire: blocked for ranks 1 and 2
    occ[0, 3, 3] = occ[0, 3, 4] = 2        # rank 2's wire: free for ranks 0 and 1
    boxes = np.array([[0, 0, 6, 5], [3, 2, 7, 7], [0, 0, w, h]])
    owners = np.array([0, 1, 2])
    sources = [[(0, 0, 0)], [(5, 4, 0)], [(11, 8, 1)]]
    for s in sources:
        for x, y, z in s:
            if occ[z, y, x] == -2:
                occ[z, y, x] = -1
    directions = ["horizontal", "any"]
    _, axes, sites = stack_arrays(occ != -2, directions, None)
    k = EmulatedKernels(owned=True, box_cells=box_cells)
    sweeps = BoxSweeps(occ, axes, sites, 2, owned=True, kernels=k)
    dist, offsets = sweeps.run(boxes, owners, sources)
    for b, ((x0, y0, bw, bh), owner, src) in enumerate(zip(boxes, owners, sources)):
        free = (occ == -1) | (occ == owner) | (occ == -3 - owner) | (occ > owner)
        sub = free[:, y0:y0 + bh, x0:x0 + bw]
        local = [(x - x0, y - y0, z) for x, y, z in src]
        want = oracle_dist3d(sub, local, directions=directions, via_cost=2)
        got = dist[offsets[b]:offsets[b] + layers * bh * bw].reshape(layers, bh, bw)
        np.testing.assert_array_equal(got, want)


# -- the CUDA kernels ------------------------------------------------------------------------
@gpu
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_gpu_bfs3d_and_weighted3d_equal_oracle(case):
    g = _gpu()
    for targets in (True, False):
        t = case.targets if targets else None
        got = g.bfs3d(case.free, case.sources, targets=t, **case.rules)
        assert got.dtype == np.uint32 and got.shape == case.free.shape
        np.testing.assert_array_equal(got, case.expected(targets))
        w = g.weighted3d(case.weights(), case.sources, t, free=case.free, **case.rules)
        np.testing.assert_array_equal(w, case.expected(targets, weighted=True))


@gpu
@pytest.mark.parametrize("box_cells", BOX_CELLS)
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_gpu_line_and_box_kernels_equal_oracle(case, box_cells):
    _gpu()
    free, axes, sites = stack_arrays(case.free, case.directions, case.via_sites)
    for targets in (True, False):
        for weighted in (False, True):
            got = whole_grid(free, axes, sites, case.sources,
                             case.targets if targets else None, case.via_cost,
                             case.weights() if weighted else None, _cuda(False, box_cells))
            np.testing.assert_array_equal(got, case.expected(targets, weighted))


@gpu
@settings(max_examples=100, deadline=None)
@given(stacks(weighted=True), st.sampled_from(BOX_CELLS))
def test_gpu_random_stacks_equal_oracle(case, box_cells):
    g = _gpu()
    got = g.weighted3d(case.cost, case.sources, case.targets, free=case.free, **case.rules)
    np.testing.assert_array_equal(got, oracle_early3d(case.free, case.sources, case.targets,
                                                      cost=case.cost, **case.rules))
    free, axes, sites = stack_arrays(case.free, case.directions, case.via_sites)
    got = whole_grid(free, axes, sites, case.sources, case.targets, case.via_cost, None,
                     _cuda(False, box_cells))
    np.testing.assert_array_equal(got, oracle_early3d(case.free, case.sources, case.targets,
                                                      **case.rules))


@gpu
def test_gpu_host_copies_back_large_strided_and_small_arrays():
    _gpu()
    import cupy

    from mazeroute.engines.base import PINNED_BYTES, host
    want = np.arange(PINNED_BYTES // 4 * 3, dtype=np.uint32)
    dev = cupy.asarray(want)
    for got, expected in ((host(dev), want), (host(dev[::2]), want[::2]),
                          (host(dev[:8]), want[:8])):
        assert isinstance(got, np.ndarray)
        np.testing.assert_array_equal(got, expected)


@gpu
def test_gpu_whole_grid_larger_than_the_pinned_copy_equals_oracle():
    g = _gpu()
    from mazeroute.engines.base import PINNED_BYTES
    rng = np.random.default_rng(3)
    free = rng.random((2, 400, 400)) > 0.2
    free[0, 0, 0] = True
    assert free.size * 4 >= PINNED_BYTES
    dirs = ["horizontal", "vertical"]
    np.testing.assert_array_equal(g.bfs3d(free, [(0, 0, 0)], directions=dirs),
                                  oracle_dist3d(free, [(0, 0, 0)], directions=dirs))


@gpu
@pytest.mark.parametrize("box_cells", BOX_CELLS)
def test_gpu_boxes_of_one_launch_equal_the_emulated_kernels(box_cells):
    """Many boxes of one launch on the device give what the emulated kernels give, and
    each equals the oracle on its own sub-grid (checked above on the emulation)."""
    _gpu()
    import cupy
    rng = np.random.default_rng(11)
    layers, h, w = 3, 40, 50
    occ = np.where(rng.random((layers, h, w)) < 0.25, -2, -1).astype(np.int32)
    boxes, owners, sources = [], [], []
    for b in range(24):
        x0, y0 = int(rng.integers(0, w - 10)), int(rng.integers(0, h - 10))
        bw, bh = int(rng.integers(3, w - x0)), int(rng.integers(3, h - y0))
        x, y, z = x0 + int(rng.integers(bw)), y0 + int(rng.integers(bh)), int(rng.integers(3))
        occ[z, y, x] = b
        boxes.append((x0, y0, bw, bh)), owners.append(b), sources.append([(x, y, z)])
    directions = ["horizontal", "vertical", "any"]
    cost = rng.integers(1, 30, (layers, h, w)).astype(np.uint16)
    _, axes, sites = stack_arrays(occ != -2, directions, rng.random((h, w)) < 0.7)
    got = []
    for k in (_cuda(True, box_cells), EmulatedKernels(owned=True)):
        sw = BoxSweeps(k.xp.asarray(occ), axes, sites, 3, owned=True, kernels=k)
        sw.set_cost(k.xp.asarray(cost))
        dist, _ = sw.run(np.array(boxes), np.array(owners), sources)
        got.append(dist.get() if k.xp is cupy else dist)
        assert sw.rounds >= 1
    np.testing.assert_array_equal(got[0], got[1])


@gpu
@pytest.mark.parametrize("call, field", BAD_INPUT)
def test_gpu_bad_input_names_its_field(call, field):
    g = _gpu()
    with pytest.raises(InputError) as err:
        call(g)
    assert err.value.field == field
