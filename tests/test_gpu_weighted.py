"""GPUNetSearch (mazeroute/engines/gpu_weighted.py, kernels/weighted.cu) on the device.

Every wire equals the CPU engine's and the Dijkstra oracle's (so path costs do too), on
the weighted corpus of tests/test_weighted.py, in shared and in global memory. Every
test needs CuPy and a CUDA device (marked ``gpu``); the module imports without them.
The same scenarios run on the CPU through the kernel's emulation in
tests/test_gpu_weighted_host.py.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mazeroute.engines.weighted import COST_DTYPE, COST_MAX, CPUNetSearch, NetRequest
from mazeroute.generate import random_layout
from mazeroute.router import PathFinderOptions
from mazeroute.router.negotiate import Negotiator
from tests.corpus import (
    WeightedCase,
    chain_layouts,
    grid_of_boxes_case,
    random_weighted_case,
    random_weighted_cases,
    weighted_hand_cases,
)
from tests.test_gpu_weighted_chains_host import (
    check_chain,
    check_chain_refusals,
    check_long_chain,
)
from tests.test_gpu_weighted_host import (
    check_dist_max,
    check_long_wires,
    check_many_requests,
    check_overlapping_boxes,
    check_overlapping_own,
    check_own_cells,
    check_tree_grows_within_reach,
    check_uploads_and_owners,
    same_wires,
)
from tests.test_weighted import _cost, _valid

pytestmark = pytest.mark.gpu

#: shared memory as the device allows; every box in global memory
LIMITS = [None, 0]

#: Negotiations compared run to their end, whatever the wall clock (the default
#: wait bound is measured in seconds, and an emulated device is slow).
UNBOUNDED = PathFinderOptions(wait_factor=0)


def _gpu(free, owner, smem_limit=None, tile=None, tiled_schedule=None):
    from mazeroute.engines.gpu_weighted import TILE, TILED_SCHEDULE, GPUNetSearch
    return GPUNetSearch(free, owner, smem_limit=smem_limit, tile=tile or TILE,
                        tiled_schedule=tiled_schedule or TILED_SCHEDULE)


def _compare(case: WeightedCase, search=None, oracle: bool = True) -> None:
    """The GPU's wires equal the CPU engine's and (``oracle``) the oracle's."""
    search = search or _gpu(case.free, case.owner)
    reqs = list(case.requests)
    got = search.route(case.cost, reqs)
    cpu = CPUNetSearch(case.free, case.owner).route(case.cost, reqs)
    want = case.expected() if oracle else cpu
    assert len(got) == len(reqs)
    for req, g, c, e in zip(reqs, got, cpu, want):
        assert (g is None) == (c is None) == (e is None), (case.id, req.net)
        if g is None:
            continue
        _valid(case, req, g)
        assert _cost(case, g) == _cost(case, e), (case.id, req.net)
        np.testing.assert_array_equal(g, c, err_msg=f"{case.id}, net {req.net} (CPU)")
        np.testing.assert_array_equal(g, e, err_msg=f"{case.id}, net {req.net} (oracle)")


@pytest.mark.parametrize("limit", LIMITS)
@pytest.mark.parametrize("case", weighted_hand_cases(), ids=lambda c: c.id)
def test_hand_cases_equal_cpu_and_oracle(case, limit):
    _compare(case, _gpu(case.free, case.owner, limit))


@pytest.mark.parametrize("limit", LIMITS)
@pytest.mark.parametrize("case", random_weighted_cases(150, 24), ids=lambda c: c.id)
def test_random_cases_equal_cpu_and_oracle(case, limit):
    _compare(case, _gpu(case.free, case.owner, limit))


@pytest.mark.parametrize("limit", LIMITS)
@pytest.mark.parametrize("case", random_weighted_cases(12, 200, seed=11, whole=True),
                         ids=lambda c: c.id)
def test_large_random_cases_equal_cpu_and_oracle(case, limit):
    _compare(case, _gpu(case.free, case.owner, limit))


@pytest.mark.parametrize("schedule", ["rounds", "queue"])
@pytest.mark.parametrize("tile", [3, 16, 62])
@pytest.mark.parametrize("case", random_weighted_cases(40, 40, seed=13)
                         + random_weighted_cases(6, 200, seed=12, whole=True),
                         ids=lambda c: c.id)
def test_small_tiles_equal_cpu_and_oracle(case, tile, schedule):
    """Every box searched in tiles of a few cells: paths cross many tiles, whose blocks
    run at once on the device (their halos read while neighbours write, and hand tiles
    to each other through the queue); and in the largest tiles the kernel takes; by
    rounds and by the work queue."""
    _compare(case, _gpu(case.free, case.owner, 0, tile, schedule))


@pytest.mark.parametrize("tile", [3, 30, 62])
def test_round_blocks_are_resident_at_once(tile):
    """A cooperative launch fails unless all its blocks are resident: the tiled rounds'
    grid never holds more than the driver's occupancy allows on every multiprocessor."""
    from mazeroute.engines.cuda import device_attributes, resident_blocks
    from mazeroute.engines.gpu_weighted import KERNELS
    search = _gpu(np.ones((8, 8), bool), np.full((8, 8), -1, np.int32), 0, tile)
    rounds = search._device()[1][KERNELS.index("tiled_rounds")]
    resident = resident_blocks(rounds, tile + 2)
    sms = device_attributes()["MultiProcessorCount"]
    assert resident >= 1
    assert sms <= search._round_blocks <= sms * resident


@given(seed=st.integers(0, 2**32 - 1), index=st.integers(0, 8),
       limit=st.sampled_from([None, 0, 2000]))
@settings(max_examples=150, deadline=None)
def test_hypothesis_cases_equal_cpu_and_oracle(seed, index, limit):
    case = random_weighted_case(np.random.default_rng(seed), 30, index)
    _compare(case, _gpu(case.free, case.owner, limit))


def test_changed_uploads_and_set_owner():
    check_uploads_and_owners(_gpu)


def test_paths_up_to_dist_max():
    check_dist_max(_gpu)


def test_long_wires():
    check_long_wires(_gpu)


def test_trees_grow_within_reach():
    check_tree_grows_within_reach(_gpu)


def test_overlapping_boxes():
    check_overlapping_boxes(_gpu)


def test_many_requests_in_one_call():
    check_many_requests(_gpu)


def test_hundreds_of_requests_in_one_call():
    case = grid_of_boxes_case(np.random.default_rng(9), 256, 384, 16, 24)
    assert len(case.requests) > 200
    _compare(case)


@pytest.mark.parametrize("pins", [2, 4])
def test_big_box(pins):
    """One 2048 x 2048 box (global memory): the CPU engine's wires."""
    lay = random_layout(2048, 2048, density=0.25, nets=1, pins=pins, seed=pins)
    rng = np.random.default_rng(pins)
    cost = (16 + 16 * rng.integers(0, 3, (2048, 2048))).astype(COST_DTYPE)
    spikes = rng.random((2048, 2048)) < 0.05
    cost[spikes] = rng.integers(16, COST_MAX + 1, int(spikes.sum()))
    owner = np.full((2048, 2048), -1, np.int32)
    pins_xy = np.array(lay.nets[0].pins)
    owner[pins_xy[:, 1], pins_xy[:, 0]] = 0
    req = NetRequest(0, pins_xy, (0, 0, 2047, 2047))
    case = WeightedCase(f"big-{pins}", ~lay.blocked, owner, cost, (req,))
    _compare(case, oracle=False)


def test_one_search_serves_many_calls():
    """Calls of different shapes on one search (buffers grown and reused, launches of
    both kinds, a whole-grid request after small ones) agree with the CPU engine."""
    rng = np.random.default_rng(17)
    case = grid_of_boxes_case(rng, 96, 128, 16, 16)
    search = _gpu(case.free, case.owner, smem_limit=4000)
    cpu = CPUNetSearch(case.free, case.owner)
    cost = case.cost.copy()
    for k in range(8):
        reqs = list(case.requests[k % 3::3])
        if k == 5:
            reqs = [reqs[0]._replace(box=(0, 0, 127, 95))]
        cells = rng.integers(0, cost.size, 200)
        cost.ravel()[cells] = rng.integers(1, 30, 200)
        got = search.route(cost, reqs, changed=cells)
        assert same_wires(got, cpu.route(cost, reqs))


def test_bad_input_is_refused():
    free = np.ones((4, 4), bool)
    owner = np.full((4, 4), -1, np.int32)
    search = _gpu(free, owner)
    cost = np.ones((4, 4), COST_DTYPE)
    with pytest.raises(ValueError, match="outside the box"):
        search.route(cost, [NetRequest(0, np.array([[0, 0], [3, 3]]), (0, 0, 2, 2))])
    with pytest.raises(ValueError, match="uint16"):
        search.route(cost.astype(np.int64), [])
    with pytest.raises(ValueError, match="at least 1"):
        search.route(np.zeros((4, 4), COST_DTYPE), [])
    search.route(cost, [])
    with pytest.raises(ValueError, match="at least 1"):
        search.route(np.zeros((4, 4), COST_DTYPE), [], changed=np.array([3]))
    with pytest.raises(ValueError, match="outside"):
        search.route(cost, [], changed=np.array([16]))
    with pytest.raises(ValueError, match="reserved"):
        search.route(cost, [NetRequest(-(2**31), np.array([[0, 0]]), (0, 0, 1, 1))])
    with pytest.raises(ValueError, match="reserved"):
        search.set_owner(np.array([[0, 0]]), -(2**31))


def test_boxes_past_the_bound_go_to_the_cpu_with_the_same_wires():
    """A box of more than ``cpu_box_cells`` cells is searched by the CPU engine (its A*
    explores less of a huge box than the device's sweeps); wires and owner updates stay
    identical."""
    rng = np.random.default_rng(8)
    h = w = 300
    free = rng.random((h, w)) > 0.2
    owner = np.full((h, w), -1, np.int32)
    cells = np.argwhere(free)
    picks = cells[rng.choice(len(cells), 8, replace=False)]
    for k in range(4):
        (y0, x0), (y1, x1) = picks[2 * k], picks[2 * k + 1]
        owner[y0, x0] = owner[y1, x1] = k
    cost = rng.integers(1, 50, (h, w)).astype(COST_DTYPE)
    from mazeroute.engines.gpu_weighted import GPUNetSearch
    from mazeroute.router.dispatch import SearchDispatch
    mixed = SearchDispatch(GPUNetSearch(free, owner), cpu_box_cells=50 * 50)
    device = SearchDispatch(GPUNetSearch(free, owner), cpu_box_cells=None)
    cpu = CPUNetSearch(free, owner)
    for k in range(4):
        (y0, x0), (y1, x1) = picks[2 * k], picks[2 * k + 1]
        req = [NetRequest(k, np.array([[x0, y0], [x1, y1]]), (0, 0, w - 1, h - 1))]
        want = cpu.route(cost, req)[0]
        for engine in (mixed, device):
            got = engine.route(cost, req)[0]
            assert (got is None) == (want is None)
            if want is not None:
                np.testing.assert_array_equal(got, want)
        if want is not None:
            for engine in (mixed, device, cpu):
                engine.set_owner(want, k)
    assert mixed._cpu is not None and device._cpu is None


def test_negotiation_with_the_adaptive_split_routes_as_the_cpu_does():
    # negotiation's search hands small calls to the CPU engine when that is sooner;
    # both engines must have been used, and the routes must be the CPU run's
    from mazeroute.generate import random_layout
    from mazeroute.router.negotiate import Negotiator
    lay = random_layout(256, 256, nets=400, span=32, seed=4)
    # the loop on the host (with its state on the device, every call is the device's)
    gpu = Negotiator(lay, "gpu", PathFinderOptions(wait_factor=0, device_state=False))
    res = gpu.run()
    assert gpu.search.adaptive and gpu.search._device_call is not None
    assert gpu.search._cpu_net is not None
    cpu = Negotiator(lay, "cpu", UNBOUNDED).run()
    assert [n.cells for n in res.nets] == [n.cells for n in cpu.nets]


def test_a_search_needing_less_shared_memory_never_lowers_anothers():
    """Two searches hold the same compiled kernel: the one whose boxes need less shared
    memory must not lower the kernel's allowance under the other (a later launch of the
    bigger boxes then failed with CUDA_ERROR_INVALID_VALUE)."""
    from mazeroute.engines.gpu_weighted import shared_bytes
    free = np.ones((200, 200), bool)
    owner = np.full(free.shape, -1, np.int32)
    owner[0, 0] = owner[129, 129] = owner[1, 1] = owner[99, 99] = 0
    big, small = (0, 0, 129, 129), (1, 1, 99, 99)
    assert shared_bytes(np.array([small]))[0] > 48 << 10       # both past the default
    cost = np.ones(free.shape, COST_DTYPE)
    first, second = _gpu(free, owner), _gpu(free, owner)
    cpu = CPUNetSearch(free, owner)
    for search, (x0, y0, x1, y1) in ((first, big), (second, small), (first, big)):
        req = [NetRequest(0, np.array([[x0, y0], [x1, y1]]), (x0, y0, x1, y1))]
        assert same_wires(search.route(cost, req), cpu.route(cost, req))


@pytest.mark.parametrize("limit", LIMITS)
@pytest.mark.parametrize("seed", range(4))
def test_chain_equals_the_hosts_steps(seed, limit):
    check_chain(lambda free, owner: _gpu(free, owner, smem_limit=limit), seed,
                2 + (seed % 2 if limit is None else 0))


@pytest.mark.parametrize("lay", chain_layouts(), ids=lambda lay: lay.name)
def test_chains_negotiate_as_the_cpu_does(lay):
    from mazeroute.router import PathFinderOptions
    from mazeroute.router.negotiate import Negotiator
    want = Negotiator(lay, "cpu", UNBOUNDED).run()
    ng = Negotiator(lay, "gpu", PathFinderOptions(device_chains=True, wait_factor=0,
                                                  device_state=False))
    ng.search.adaptive = False       # every batch on the device (its own test: adaptive)
    got = ng.run()
    assert [n.cells for n in got.nets] == [n.cells for n in want.nets]
    assert ng.search.chains > 0


@pytest.mark.parametrize("seed", range(2))
def test_a_long_chain_is_read_back_in_parts(monkeypatch, seed):
    check_long_chain(lambda free, owner: _gpu(free, owner, smem_limit=3000), monkeypatch, seed)


def test_a_chain_refuses_what_it_cannot_take():
    from mazeroute.engines.gpu_weighted import GPUNetSearch
    from mazeroute.router.dispatch import SearchDispatch
    check_chain_refusals(lambda free, owner, limit, cells: SearchDispatch(GPUNetSearch(
        free, owner, smem_limit=limit), cpu_box_cells=cells))


@pytest.mark.parametrize("limit", LIMITS)
@pytest.mark.parametrize("case", random_weighted_cases(12, 60, seed=3), ids=lambda c: c.id)
def test_own_cells_equal_the_oracle(case, limit):
    check_own_cells(lambda free, owner: _gpu(free, owner, smem_limit=limit), case)


def test_own_cells_of_overlapping_boxes():
    check_overlapping_own(_gpu)


@pytest.mark.parametrize("lay", chain_layouts(), ids=lambda lay: lay.name)
def test_groups_negotiate_as_the_cpu_does(lay):
    """The group schedule (own cells on every call) routes the CPU run's wires, every
    call on the device."""
    opt = PathFinderOptions(group_nets=8, wait_factor=0, device_state=False)
    want = Negotiator(lay, "cpu", opt).run()
    ng = Negotiator(lay, "gpu", opt)
    ng.search.adaptive = False
    got = ng.run()
    assert [n.cells for n in got.nets] == [n.cells for n in want.nets]
    assert ng.search.device.spent["device calls"][0] > 0
