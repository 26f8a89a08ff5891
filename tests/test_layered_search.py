"""Where a multi-layer net's searches run (mazeroute.router.layered_search): the GPU's
windows give the CPU's routes, in both modes. Here the GPU's sweeps run emulated
(tests/grid3d_emulator.py); the ``gpu``-marked tests run them on the device, on the same
layouts and on the shared 3-D contest samples."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mazeroute.contract import check_routes
from mazeroute.engines import gpu_available
from mazeroute.layout import Layout, Net
from mazeroute.router.layered import route_layered
from mazeroute.router.layered_search import GPUTrees, window_sides_min
from mazeroute.router.layered_tree import Board
from tests.grid3d_emulator import EmulatedKernels
from tests.test_layered import RANDOM, _stack

ADC = Path(__file__).resolve().parents[2] / "shared" / "data" / "adc"
MODES = ("sequential", "negotiate")


def _routes(result):
    return [(n.routed, n.cells, n.length, n.vias, n.bends, n.levels, n.order, n.reason)
            for n in result.nets]


def _detour() -> Layout:
    """A net whose only path leaves every small window: a wall across layer 0 and layer 1
    with one gap far away, so the window must grow to the whole grid."""
    w, h = 40, 60
    rects = [(20, 0, 20, 50)]                   # both layers; the gap is rows 51 to 59
    net = Net("a", [(2, 3, 0), (37, 3, 1)])
    return Layout("detour", w, h, rects, [net], stack=_stack("any", "any", via_cost=2))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("k", range(len(RANDOM)))
def test_emulated_gpu_windows_route_as_the_cpu(mode, k):
    lay = RANDOM[k]
    cpu = route_layered(lay, mode, backend="cpu")
    gpu = route_layered(lay, mode, backend="gpu", kernels=EmulatedKernels(owned=True))
    assert _routes(gpu) == _routes(cpu)
    assert gpu.engine.startswith("gpu/") and cpu.engine.startswith("cpu/")
    assert check_routes(lay, gpu.to_json()) == []


def test_far_apart_nets_are_searched_together_and_route_as_the_cpu():
    """Nets spread over a larger grid share launches (batches of disjoint windows), in
    both modes, and still route as the CPU does, net by net."""
    from mazeroute.generate3d import random_layout3d
    lay = random_layout3d(64, 48, 2, density=0.15, nets=24, span=5, seed=7,
                          directions=["horizontal", "vertical"], via_cost=2)
    for mode in MODES:
        k = EmulatedKernels(owned=True)
        gpu = route_layered(lay, mode, backend="gpu", kernels=k)
        assert _routes(gpu) == _routes(route_layered(lay, mode, backend="cpu"))
    board = Board(lay)
    trees = GPUTrees(board, EmulatedKernels(owned=True))
    batch, boxes = trees.batch(list(range(len(lay.nets))), 0)
    assert len(batch) > 1
    assert [t.cells.tolist() for t in trees.grow_many(batch, boxes=boxes)] == \
        [trees.grow(i).cells.tolist() for i in batch]


def test_a_batch_ends_at_the_first_overlap_unless_the_costs_ignore_other_wires():
    """Windows are those a search alone starts from; a batch keeps them disjoint and in
    order, except ``free`` (costs that no other net's wire changes), where it takes the
    nets as they come."""
    lay = Layout("row", 80, 10, [], [Net("a", [(2, 5, 0), (6, 5, 0)]),
                                     Net("b", [(8, 5, 0), (12, 5, 0)]),
                                     Net("c", [(60, 5, 0), (64, 5, 0)])],
                 stack=_stack("any", "any", via_cost=2))
    trees = GPUTrees(Board(lay), EmulatedKernels(owned=True))
    nets, boxes = trees.batch([0, 2, 1], 0)
    assert nets == [0, 2]                      # b's window overlaps a's: it waits
    assert boxes[0].tolist() == [0, 0, 15, 10]     # margin 4 + 2 x via cost 2 = 8
    assert trees.batch([0, 1, 2], 0)[0] == [0]
    assert trees.batch([0, 1, 2], 0, free=True)[0] == [0, 1, 2]


def test_a_batch_net_whose_window_proves_nothing_is_grown_alone_and_the_rest_after():
    lay = _detour()
    lay.nets.append(Net("b", [(5, 40, 0), (10, 44, 1)]))
    lay.nets.append(Net("c", [(30, 30, 1), (25, 58, 0)]))     # across a's way round
    trees = GPUTrees(Board(lay), EmulatedKernels(owned=True))
    assert trees.grow_many([0, 1])[0] is None
    for mode in MODES:
        gpu = route_layered(lay, mode, backend="gpu", kernels=EmulatedKernels(owned=True))
        assert _routes(gpu) == _routes(route_layered(lay, mode, backend="cpu"))


def test_a_window_grows_until_its_answer_is_the_grids():
    lay = _detour()
    trees = GPUTrees(Board(lay), EmulatedKernels(owned=True))
    tree = trees.grow(0)
    assert trees.windows > 1                          # the first window was not enough
    cpu = route_layered(lay, "sequential", backend="cpu")
    assert tree.cells.tolist() == [list(c) for c in cpu.nets[0].cells]
    assert any(y > 50 for _, y, _ in cpu.nets[0].cells)   # through the gap


def test_unrouted_nets_get_the_cpus_reasons():
    """A net walled off by an earlier wire, one cut off by blockages, on a grid large
    enough for windows: the same reasons, found through windows."""
    wall = [(0, 20, 29, 20)]                        # a full-width wall on layer 0 alone
    lay = Layout("walls", 30, 40, [(*r, 0) for r in wall] + [(0, 35, 2, 35), (2, 36, 2, 39)],
                 [Net("a", [(5, 10, 0), (25, 10, 0)]), Net("b", [(0, 39, 0), (8, 38, 0)]),
                  Net("c", [(3, 2, 0), (3, 30, 0)])], stack=_stack("any"))
    cpu = route_layered(lay, "sequential", backend="cpu")
    assert [n.routed for n in cpu.nets] == [True, False, False]
    assert cpu.nets[1].reason.startswith("cut off")
    gpu = route_layered(lay, "sequential", backend="gpu", kernels=EmulatedKernels(owned=True))
    assert _routes(gpu) == _routes(cpu)


@pytest.mark.parametrize("weighted", [False, True])
def test_windows_grow_the_trees_of_whole_grid_searches(weighted):
    """Net by net, with every earlier tree committed: the CPU's windowed trees equal the
    trees of searches over the whole grid (the plain engines, no window), on unit steps
    and on random entry costs."""
    from mazeroute.router.layered_search import CPUTrees
    from mazeroute.router.layered_tree import grow_tree
    for lay in [*RANDOM, _detour()]:
        board = Board(lay)
        trees = CPUTrees(board)
        rng = np.random.default_rng(len(lay.nets))
        cost = rng.integers(1, 40, board.shape) if weighted else None
        for i in range(len(lay.nets)):
            whole = grow_tree(board.rules, board.free_for(i), board.pins[i], cost)
            got = trees.grow(i, cost=cost)
            assert (got.cells.tolist(), got.levels, got.vias, got.bends, got.missing) == \
                (whole.cells.tolist(), whole.levels, whole.vias, whole.bends, whole.missing)
            if got.routed:
                trees.commit(i, got.cells)


def test_window_sides_count_only_sides_that_border_more_grid():
    d = np.arange(2 * 3 * 4, dtype=np.uint32).reshape(2, 3, 4) + 5
    assert window_sides_min(d, 0, 0, (2, 3, 4)) == 0xFFFFFFFF     # the whole grid
    assert window_sides_min(d, 0, 0, (2, 3, 9)) == int(d[:, :, -1].min())
    assert window_sides_min(d, 1, 0, (2, 9, 9)) == int(d[:, :, 0].min())


def test_a_multi_pin_net_on_via_sites_routes_as_the_cpu():
    sites = np.zeros((6, 12), bool)
    sites[:, [1, 10]] = True
    lay = Layout("pins", 12, 6, [(5, 0, 5, 4, 0)],
                 [Net("t", [(0, 0, 0), (11, 5, 0), (10, 0, 1), (1, 3, 1)])],
                 stack=_stack("horizontal", "vertical", via_cost=3, via_sites=sites))
    for mode in MODES:
        cpu = route_layered(lay, mode, backend="cpu")
        gpu = route_layered(lay, mode, backend="gpu", kernels=EmulatedKernels(owned=True))
        assert _routes(gpu) == _routes(cpu) and cpu.nets[0].routed


# -- on the device ---------------------------------------------------------------------------
def _need_gpu():
    if not gpu_available():
        pytest.skip("needs CuPy and a CUDA device")


@pytest.mark.gpu
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("k", range(len(RANDOM)))
def test_gpu_windows_route_as_the_cpu(mode, k):
    _need_gpu()
    lay = RANDOM[k]
    assert _routes(route_layered(lay, mode, backend="gpu")) == \
        _routes(route_layered(lay, mode, backend="cpu"))


@pytest.mark.gpu
def test_gpu_window_grows_on_the_device():
    _need_gpu()
    lay = _detour()
    assert _routes(route_layered(lay, "sequential", backend="gpu")) == \
        _routes(route_layered(lay, "sequential", backend="cpu"))


@pytest.mark.gpu
@pytest.mark.parametrize("mode", MODES)
def test_gpu_routes_the_adc_samples_as_the_cpu(mode):
    _need_gpu()
    from mazeroute.readers import read_adc
    stacks = [lay for lay in map(read_adc, sorted(ADC.glob("NL_Q*.txt")))
              if lay.stack is not None]
    if not stacks:
        pytest.skip(f"no 3-D ADC samples under {ADC}")
    for lay in stacks:
        gpu = route_layered(lay, mode, backend="gpu")
        assert _routes(gpu) == _routes(route_layered(lay, mode, backend="cpu"))
        assert check_routes(lay, gpu.to_json()) == []


def _pocketed() -> Layout:
    """Net ``a``'s far pin sits in a pocket walled by blockages on both layers, far from
    the grid's sides; net ``b`` routes beside it."""
    w = h = 120
    rects = [(78, 78, 86, 78), (78, 86, 86, 86), (78, 79, 78, 85), (86, 79, 86, 85)]
    nets = [Net("a", [(70, 82, 0), (82, 82, 1)]), Net("b", [(20, 30, 0), (40, 30, 1)])]
    return Layout("pocket", w, h, rects, nets, stack=_stack("horizontal", "vertical"))


def test_a_pin_in_a_pocket_is_proven_cut_off_without_searching_the_grid():
    """The forward search alone would grow its window to the whole grid to learn that
    nothing is reachable; the pin's pocket proves it from inside, on both backends."""
    from mazeroute.router.layered_search import windowed
    lay = _pocketed()
    cpu = route_layered(lay, "sequential", backend="cpu")
    k = EmulatedKernels(owned=True)
    gpu = route_layered(lay, "sequential", backend="gpu", kernels=k)
    assert _routes(gpu) == _routes(cpu)
    assert not cpu.nets[0].routed and cpu.nets[1].routed
    assert cpu.nets[0].reason == "cut off from its pins by blockages and other nets' pins"
    boxes = []
    free = ~lay.blocked
    board = Board(lay)

    def run(x0, y0, x1, y1, s=None, t=None):
        boxes.append((x0, y0, x1, y1))
        from mazeroute.engines.grid3d import bfs3d
        f = free[:, y0:y1, x0:x1].copy()
        src = np.asarray(board.pins[0][:1] if s is None else s) - [x0, y0, 0]
        return bfs3d(f | (board.pin_owner[:, y0:y1, x0:x1] == 0), src,
                     directions=lay.stack.directions)
    windowed(board.shape, 1, board.pins[0][:1], board.pins[0][1:], run)
    assert (0, 0, 120, 120) not in boxes
