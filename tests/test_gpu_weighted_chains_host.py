"""The GPU weighted search's chains and the group schedule's calls in negotiation, on
the CPU (the kernel's code compiled for the CPU, as in tests/test_gpu_weighted_host.py):
a chain's steps against the host's, its refusals, long chains read back in parts, the
adaptive split between device and CPU, and negotiations through them against the CPU
engine's. The device's own run is tests/test_gpu_weighted.py.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import mazeroute.router.dispatch as dp
from mazeroute.engines import gpu_chains
from mazeroute.engines import gpu_weighted as gw
from mazeroute.engines.weighted import COST_DTYPE, CPUNetSearch, NetRequest, Pricing
from mazeroute.router import PathFinderOptions
from tests.corpus import EMULATED_ITERATIONS, chain_layouts
from tests.test_gpu_weighted_host import (
    LIMITS,
    UNBOUNDED,
    EmuNetSearch,
    _build_emu,
    same_wires,
)


@pytest.fixture(scope="module")
def emu_lib(tmp_path_factory):
    return _build_emu(tmp_path_factory)


def check_chain(make, seed: int, pins: int = 2) -> None:
    """route_chain against the host's own steps: batches of disjoint boxes, each net's
    old route ripped up, the batch searched by the CPU engine on the host's costs, its
    routes committed (some nets fail in tight boxes, some had no route). The wires must
    be the host's, and after the host replays the chain, the device's loads and costs
    its own. ``make(free, owner)`` builds the search; nets of ``pins`` pins."""
    import copy

    from mazeroute.generate import random_layout
    from mazeroute.router.congestion import Congestion
    from mazeroute.router.negotiate import batches
    rng = np.random.default_rng(seed)
    lay = random_layout(48, 40, density=0.15, nets=40, seed=seed, span=16, pins=pins)
    free = ~lay.blocked
    owner = np.full(free.shape, -1, np.int32)
    pins = [np.array(n.pins, np.int64).reshape(-1, 2) for n in lay.nets]
    for i, p in enumerate(pins):
        owner[p[:, 1], p[:, 0]] = i
    n = len(pins)
    margin = rng.integers(0, 6, n)
    boxes = np.array([[max(0, p[:, 0].min() - m), max(0, p[:, 1].min() - m),
                       min(47, p[:, 0].max() + m), min(39, p[:, 1].max() + m)]
                      for p, m in zip(pins, margin)], np.int64)
    reqs = [NetRequest(i, pins[i], tuple(b)) for i, b in enumerate(boxes.tolist())]
    cpu = CPUNetSearch(free, owner)
    state = Congestion(free, n)
    cost, _ = state.costs()
    first = cpu.route(cost, reqs)
    flat = {i: xy[:, 1] * 48 + xy[:, 0] for i, xy in enumerate(first)
            if xy is not None and rng.random() < 0.8}
    state.add_many(list(flat), list(flat.values()))
    state.set_pres_fac(float(rng.choice([0.5, 3.0])))
    conflicts = rng.choice(n, 10, replace=False)
    state.end_iteration(conflicts)          # history on the overused cells, weights
    device = copy.deepcopy(state)
    groups = batches(boxes, (40, 48))
    nets = [g.tolist() for g in groups]
    search = make(free, owner)
    for chain in range(2):      # the second chain uploads only the cells changed since
        cost, changed = device.costs()
        got = search.route_chain(cost, changed, device.pricing(),
                                 [[reqs[i] for i in g] for g in nets],
                                 [[device.routes[i] for i in g] for g in nets])
        want = []
        for g in nets:
            state.remove_many(g)
            cost, _ = state.costs()
            found = cpu.route(cost, [reqs[i] for i in g])
            want.append(found)
            ok = [k for k, xy in enumerate(found) if xy is not None]
            state.add_many([g[k] for k in ok],
                           [found[k][:, 1] * 48 + found[k][:, 0] for k in ok])
        assert len(groups) > 3 and any(x is None for f in want for x in f)
        for g, a, b in zip(nets, got, want):
            assert same_wires(a, b), (seed, chain, g)
        device.remove_many([i for g in nets for i in g])
        done = [(i, xy) for g, f in zip(nets, got) for i, xy in zip(g, f) if xy is not None]
        device.add_many([i for i, _ in done], [xy[:, 1] * 48 + xy[:, 0] for _, xy in done])
        device.synced()             # the next chain gets only end_iteration's cells
        np.testing.assert_array_equal(search._load.get(), device.load)
        np.testing.assert_array_equal(search._cost.get(), device.costs()[0].ravel())
        np.testing.assert_array_equal(device.load, state.load)
        over = rng.choice(n, 12, replace=False)
        for st in (state, device):          # the next iteration: dearer, more history
            st.end_iteration(over)
            st.set_pres_fac(st.pres_fac * 2)


@pytest.mark.parametrize("limit", LIMITS)
@pytest.mark.parametrize("seed", range(4))
def test_emulated_chain_equals_the_hosts_steps(emu_lib, seed, limit):
    check_chain(lambda free, owner: EmuNetSearch(free, owner, emu_lib, smem_limit=limit), seed,
                2 + (seed % 2 if limit is None else 0))   # trees in tiles do not chain


def check_long_chain(make, monkeypatch, seed: int) -> None:
    """Chains whose boxes hold more cells than CHAIN_ROOM are cut into parts, each read
    back once; the device's state runs on from part to part (check_chain's wires,
    loads and costs). ``make(free, owner)`` builds the search."""
    monkeypatch.setattr(gpu_chains, "CHAIN_ROOM", 1500)
    calls = []
    search_chain = gw.GPUNetSearch._chain

    def counted(self, *args):
        calls.append(1)
        return search_chain(self, *args)

    monkeypatch.setattr(gw.GPUNetSearch, "_chain", counted)
    check_chain(make, seed)
    assert len(calls) > 4            # two chains, each in several parts


@pytest.mark.parametrize("seed", range(2))
def test_a_long_chain_is_read_back_in_parts(emu_lib, monkeypatch, seed):
    check_long_chain(lambda free, owner: EmuNetSearch(free, owner, emu_lib, smem_limit=3000),
                     monkeypatch, seed)


def check_chain_refusals(make) -> None:
    """A tree too big for shared memory (its pins are joined round by round on the host)
    and a box over ``cpu_box_cells`` are not chainable, and route_chain refuses them;
    a batch the adaptive preference turned against after the caller's check is still
    taken. ``make(free, owner, smem_limit, cpu_box_cells)`` builds the search."""
    free = np.ones((20, 20), bool)
    owner = np.full((20, 20), -1, np.int32)
    tree = NetRequest(0, np.array([[0, 0], [9, 9], [0, 9]]), (0, 0, 9, 9))
    pair = NetRequest(1, np.array([[12, 12], [19, 19]]), (12, 12, 19, 19))
    search = make(free, owner, 0, 80)
    assert search.chainable([pair]) and not search.chainable([tree])
    assert not search.chainable([pair._replace(box=(0, 0, 19, 19), pins=pair.pins)])
    with pytest.raises(ValueError, match="not chainable"):
        search.route_chain(np.ones((20, 20), COST_DTYPE), None, None, [[pair], [tree]],
                           [[None], [None]])
    assert not CPUNetSearch(free, owner).chainable([pair])
    # the adaptive preference may turn between a caller's check and its chain (batches
    # are timed as chains run): a batch checked before is still taken
    search.adaptive = True
    search._device_call, search._cpu_net, search._chain_batch = 0.01, 0.001, {1: 0.01}
    assert not search.chainable([pair]) and search.device.chainable([pair])
    got = search.route_chain(np.ones((20, 20), COST_DTYPE), None, Pricing(
        np.full(400, 16, np.int64), np.zeros(400, np.int64), np.zeros(400, np.int64),
        np.ones(2, np.int64), 8), [[pair], [pair]], [[None], [None]])
    assert [len(g[0]) for g in got] == [15, 15]        # each a shortest path of its box


def test_a_chain_refuses_what_it_cannot_take(emu_lib):
    check_chain_refusals(lambda free, owner, limit, cells: dp.SearchDispatch(EmuNetSearch(
        free, owner, emu_lib, smem_limit=limit), cpu_box_cells=cells))


# every layout in shared memory and in tiles, a limit between and the adaptive split once
# each (their loops capped at EMULATED_ITERATIONS: the kernel's code on the CPU is slow)
_CHAIN_CASES = ([(k, limit) for k in range(4) for limit in (None, 0)]
                + [(2, 3000), (3, "adaptive")])


@pytest.mark.parametrize("k, limit", _CHAIN_CASES,
                         ids=[f"chain-{k}-{limit}" for k, limit in _CHAIN_CASES])
def test_emulated_chains_negotiate_as_the_cpu_does(emu_lib, k, limit):
    """Negotiation whose reroutes go in chains (the kernel's code on the CPU) routes
    every net as the CPU engine's negotiation does; ``adaptive``: batches of a few nets
    leave the chain for the CPU engine (timings made up so that they do)."""
    lay = chain_layouts()[k]
    from mazeroute.router.negotiate import Negotiator
    # the exact windows after the loop (router/windows.py) search no costs: they are left
    # out of both runs, which they would only lengthen
    cap = EMULATED_ITERATIONS
    want = Negotiator(lay, "cpu", PathFinderOptions(window_work=0, wait_factor=0,
                                                    max_iterations=cap)).run()
    ng = Negotiator(lay, "cpu", PathFinderOptions(device_chains=True, window_work=0,
                                                  wait_factor=0, device_state=False,
                                                  max_iterations=cap))
    ng.search = dp.SearchDispatch(EmuNetSearch(
        ng.free, ng.owner, emu_lib, smem_limit=None if limit == "adaptive" else limit),
        cpu_box_cells=None)
    if limit == "adaptive":
        ng.search.adaptive = True
        ng.search._device_call = 0.002
        ng.search._chain_batch = {c: 0.002 for c in range(1, 20)}
        ng.search._cpu_net = 0.001        # a batch of one net goes to the CPU
        ng.search._timed_device = _frozen_times(ng.search, ng.search._timed_device)
    got = ng.run()
    assert [n.cells for n in got.nets] == [n.cells for n in want.nets]
    if limit is None or lay.nets[0].pins.__len__() == 2 or limit == "adaptive":
        assert ng.search.chains > 0
    if limit == "adaptive":
        assert ng.search._cpu is not None           # some batches went to the CPU


def test_negotiation_chains_only_when_asked(emu_lib):
    """``device_chains`` is off by default: the same negotiation then makes no chain."""
    from mazeroute.router.negotiate import Negotiator
    lay = chain_layouts()[0]
    ng = Negotiator(lay, "cpu", dataclasses.replace(UNBOUNDED,
                                                    max_iterations=EMULATED_ITERATIONS))
    ng.search = EmuNetSearch(ng.free, ng.owner, emu_lib)
    ng.negotiate()          # the loop alone: the phases after it never chain
    assert len(ng.iterations) > 1
    assert ng.search.chains == 0 and ng.search.launches > 0


def _frozen_times(search, timed):
    """``_timed_device`` that leaves the search's running time of a call as it was."""
    def call(*args):
        keep = search._device_call
        out = timed(*args)
        search._device_call = keep
        return out
    return call


def test_adaptive_split_sends_small_calls_to_the_cpu_once_timed():
    """The rule of ``SearchDispatch._cpu_sooner`` (the rule reads only its running
    times)."""
    from types import SimpleNamespace
    rule = dp.SearchDispatch._cpu_sooner
    s = SimpleNamespace(adaptive=True, _device_call=None, _cpu_net=None, _calls=0)
    assert not rule(s, 3)                          # the device is not timed yet
    s._device_call = 0.004
    assert rule(s, dp.PROBE_NETS)                  # the CPU is timed once on a small call
    assert not rule(s, dp.PROBE_NETS + 1)
    s._cpu_net = 0.0005                            # 8 nets take the CPU as long as a call
    s._calls = 1
    assert rule(s, 7) and not rule(s, 9)
    s._calls = dp.REFRESH_CALLS - 1                # every REFRESH_CALLS-th call flips
    assert not rule(s, 7)
    off = SimpleNamespace(adaptive=False, _device_call=0.004, _cpu_net=0.0005, _calls=1)
    assert not rule(off, 1)


def test_a_chain_sends_a_batch_to_the_cpu_when_its_class_takes_the_device_longer():
    """The rule of ``SearchDispatch._device_sooner`` (chainable's adaptive part): a round
    trip's time never sends a batch to the CPU; a batch of any size goes there when the
    CPU searches it sooner than the device spends on a chained batch of its size class,
    and one in REFRESH_CALLS of those stays to keep the class's time current."""
    from types import SimpleNamespace
    rule = dp.SearchDispatch._device_sooner
    s = SimpleNamespace(adaptive=True, _device_call=None, _cpu_net=None, _chain_batch={},
                        _chain_asks=0)
    assert rule(s, 1)                              # nothing timed yet
    s._device_call = 0.8                           # iteration 1's huge call
    assert not rule(s, dp.PROBE_NETS)              # a small batch measures the CPU once
    assert rule(s, dp.PROBE_NETS + 1)
    s._cpu_net = 0.0005
    assert rule(s, 3)                              # no batch of its class timed yet
    s._chain_batch = {dp.size_class(3): 0.002}     # 4 nets take the CPU as long as it
    assert not rule(s, 3) and rule(s, 4)           # (4 is of the next class: untimed)
    s._chain_batch[dp.size_class(200)] = 0.2       # big batches compare with their own
    assert not rule(s, 200) and rule(s, 500)       # class, small ones with theirs
    s._chain_batch[dp.size_class(256)] = 0.01      # a class the device does soon
    assert rule(s, 256)                            # keeps its batches
    s._chain_asks = dp.REFRESH_CALLS - 1           # one in REFRESH_CALLS stays
    assert rule(s, 200) and not rule(s, 200)
    off = SimpleNamespace(adaptive=False, _device_call=0.8, _cpu_net=0.0005,
                          _chain_batch={1: 1.0}, _chain_asks=0)
    assert rule(off, 1)


def test_size_classes_double():
    sizes = np.arange(1, 5000)
    classes = np.array([dp.size_class(int(n)) for n in sizes])
    assert (np.diff(classes) >= 0).all()
    for c in np.unique(classes):
        members = sizes[classes == c]
        assert members.max() < 2 * members.min()


def test_negotiation_with_calls_split_between_device_and_cpu_routes_as_the_cpu(
        emu_lib, monkeypatch):
    """The device engine's CPU twin reads only the cells changed since its own last call
    (``changed`` is gathered over the device's calls meanwhile): with every other call
    sent to the CPU, negotiation's routes stay the CPU engine's."""
    from mazeroute.generate import random_layout
    from mazeroute.router.negotiate import Negotiator
    lay = random_layout(48, 40, density=0.2, nets=40, pins=2, seed=6, span=16)
    # the exact windows after the loop search no costs: left out of both runs
    opt = dataclasses.replace(UNBOUNDED, window_work=0)
    want = [n.cells for n in Negotiator(lay, "cpu", opt).run().nets]
    turns = iter(range(10**6))
    monkeypatch.setattr(dp.SearchDispatch, "_cpu_sooner",
                        lambda self, nets: next(turns) % 2 == 1)
    neg = Negotiator(lay, "cpu", opt)
    neg.search = dp.SearchDispatch(EmuNetSearch(neg.free, neg.owner, emu_lib),
                                   cpu_box_cells=None)
    neg.search.adaptive = True
    got = [n.cells for n in neg.run().nets]
    assert neg.search._cpu is not None and len(neg.iterations) > 3
    assert got == want


@pytest.mark.parametrize("k", range(2))
def test_emulated_groups_negotiate_as_the_cpu_does(emu_lib, k):
    """The group schedule with every call on the kernel's code (own cells each time)
    routes every net as the CPU engine's run of the same schedule."""
    from mazeroute.router.negotiate import Negotiator
    lay = chain_layouts()[k]
    opt = PathFinderOptions(group_nets=8, window_work=0, wait_factor=0, device_state=False,
                            max_iterations=EMULATED_ITERATIONS)
    want = Negotiator(lay, "cpu", opt).run()
    ng = Negotiator(lay, "cpu", opt)
    ng.search = EmuNetSearch(ng.free, ng.owner, emu_lib)
    got = ng.run()
    assert [n.cells for n in got.nets] == [n.cells for n in want.nets]
    assert ng.search._own_net is not None and (ng.search._own_net == -1).all()
