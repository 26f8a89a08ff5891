"""Global routing's searches (mazeroute.router.groute_search): the GPU's many nets a
launch give the CPU's trees, on unit steps and on node costs, and a whole negotiation
gives the same guides on both backends, for any group size. The GPU's sweeps run
emulated here (tests/grid3d_emulator.py); the ``gpu``-marked tests run the device on
the same cases and on the shared designs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mazeroute.engines.oracle3d import oracle_dist3d
from mazeroute.gcells import gcell_grid
from mazeroute.router.groute import GRouteOptions, GRouteProblem, global_route
from mazeroute.router.groute_search import CPUSearch, GPUSearch, _launches
from mazeroute.router.layered_tree import Rules
from tests.grid3d_emulator import EmulatedKernels
from tests.test_groute import ONE_TRACK, _design

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "lefdef"
gpu = pytest.mark.gpu
DIRECTIONS = ("any", "horizontal", "vertical", "horizontal")


def _case(seed: int, layers: int = 3, h: int = 9, w: int = 11, nets: int = 6):
    rng = np.random.default_rng(seed)
    free = rng.random((layers, h, w)) > 0.2
    free[0] = False                                  # pins' layer carries no wire
    pin_sets = []
    for _ in range(nets):
        k = int(rng.integers(1, 5))
        pins = np.stack([rng.integers(0, w, k), rng.integers(0, h, k),
                         rng.integers(1, layers, k)], axis=1)
        pin_sets.append(np.unique(pins, axis=0)[rng.permutation(len(np.unique(pins,
                                                                            axis=0)))])
    cost = rng.integers(16, 90, (layers, h, w)).astype(np.int64)
    return free, pin_sets, cost


def _same(a, b) -> None:
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert x.cells.tolist() == y.cells.tolist()
        assert (x.missing, x.vias, x.bends, x.levels) == (y.missing, y.vias, y.bends,
                                                          y.levels)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.booleans(), st.sampled_from([1, 2, 3]))
def test_gpu_trees_are_the_cpus(seed, weighted, via_cost):
    free, pin_sets, cost = _case(seed)
    rules = Rules(DIRECTIONS[:free.shape[0]], via_cost, None, False)
    c = cost if weighted else None
    cpu = CPUSearch(free, rules).grow_many(pin_sets, c)
    gpu = GPUSearch(free, rules, EmulatedKernels(owned=False)).grow_many(pin_sets, c)
    _same(gpu, cpu)


def test_a_two_pin_tree_is_a_shortest_path_of_the_oracle():
    free, _, cost = _case(4)
    rules = Rules(DIRECTIONS[:3], 2, None, False)
    pins = np.argwhere(free)[[0, -1]][:, ::-1]
    tree = GPUSearch(free, rules, EmulatedKernels(owned=False)).grow_many([pins], cost)[0]
    want = oracle_dist3d(free, [tuple(pins[0])], cost=cost, directions=rules.directions,
                         via_cost=2)
    x, y, z = pins[1]
    assert tree.levels == want[z, y, x]


def test_a_net_whose_pins_are_blocked_grows_on_the_cpu_alike():
    free, pin_sets, cost = _case(8)
    p = pin_sets[0]
    free[p[0, 2], p[0, 1], p[0, 0]] = False
    rules = Rules(DIRECTIONS[:3], 1, None, False)
    _same(GPUSearch(free, rules, EmulatedKernels(owned=False)).grow_many(pin_sets, cost),
          CPUSearch(free, rules).grow_many(pin_sets, cost))


def test_a_search_that_leaves_its_box_runs_again_wider():
    """A wall with one gap far from both pins: the first box proves nothing."""
    free = np.ones((2, 40, 30), bool)
    free[:, 0:37, 15] = False
    pins = np.array([[12, 2, 0], [18, 2, 1]])
    rules = Rules(("any", "any"), 1, None, False)
    search = GPUSearch(free, rules, EmulatedKernels(owned=False))
    _same(search.grow_many([pins], None), CPUSearch(free, rules).grow_many([pins], None))
    assert search.retries >= 1


def test_launches_hold_their_limits():
    boxes = np.array([[0, 0, 10, 10]] * 600 + [[0, 0, 4000, 4000]] * 3)
    parts = _launches(boxes, 9)
    assert sorted(j for p in parts for j in p) == list(range(len(boxes)))
    assert all(len(p) <= 256 for p in parts)
    assert [len(p) for p in parts[-3:]] == [1, 1, 1]      # each big box alone


@pytest.mark.parametrize("group", [1, 3])
def test_negotiation_gives_the_same_guides_on_both_backends(group):
    grid = gcell_grid(_design(900), adjust=ONE_TRACK)
    rng = np.random.default_rng(7)
    pins = {f"n{k}": list(dict.fromkeys((int(rng.integers(6)), int(rng.integers(6)), 0)
                                        for _ in range(3))) for k in range(14)}
    pins = {n: p for n, p in pins.items() if len(p) > 1}
    problem = GRouteProblem.of_grid(grid, pins)
    opt = GRouteOptions(group=group, max_iterations=6)
    cpu = global_route(problem, opt)
    gpu = global_route(problem, opt, backend="gpu", kernels=EmulatedKernels(owned=False))
    assert cpu.iterations > 1                         # negotiation took place
    assert cpu.overflows == gpu.overflows
    for n in pins:
        assert cpu.routes[n].cells.tolist() == gpu.routes[n].cells.tolist()


@gpu
@pytest.mark.parametrize("seed", range(6))
def test_device_trees_are_the_cpus(seed):
    free, pin_sets, cost = _case(seed, layers=4, h=40, w=37, nets=40)
    for via_cost, c in ((1, None), (2, cost)):
        rules = Rules(DIRECTIONS, via_cost, None, False)
        _same(GPUSearch(free, rules).grow_many(pin_sets, c),
              CPUSearch(free, rules).grow_many(pin_sets, c))


@gpu
@pytest.mark.skipif(not (DATA / "ispd18_test1").exists(),
                    reason="the shared LEF/DEF designs are absent")
@pytest.mark.parametrize("name,lef", [("gcd", "nangate45/Nangate45.lef"),
                                      ("ispd18_test1", "ispd18_test1/ispd18_test1.input.lef")])
def test_device_routes_the_shared_designs_as_the_cpu(name, lef):
    from mazeroute.readers.lefdef import read_design
    from mazeroute.router.groute import design_pins
    folder = DATA / name
    d = read_design(next(folder.glob("*.def")), [DATA / lef])
    grid = gcell_grid(d)
    problem = GRouteProblem.of_grid(grid, design_pins(d, grid))
    cpu = global_route(problem)
    dev = global_route(problem, backend="gpu")
    assert cpu.overflows == dev.overflows
    assert all(cpu.routes[n].cells.tolist() == dev.routes[n].cells.tolist()
               for n in problem.pins)
