"""Negotiation's loop with its state kept by the search (router.negotiation.device),
here with a host stand-in for the device: the host loop's routes and state."""

from __future__ import annotations

import numpy as np
import pytest

import mazeroute.router.negotiation.device as device_loop
from mazeroute.contract import check_routes
from mazeroute.engines.weighted import NetRequest
from mazeroute.generate import random_layout
from mazeroute.router import PathFinderOptions
from mazeroute.router.congestion import COST_SCALE, Congestion
from mazeroute.router.negotiate import Negotiator
from mazeroute.router.negotiation.phases import run_phases


class _HostState:
    """The engine side of negotiation's device state (engines.gpu_state.DeviceState's
    methods) made of the host's Congestion and the CPU engine: a stand-in that lets the
    router's side of the device loop (router.negotiation.device) run without a device.
    The device's own kernels are held to the host's state in tests/test_gpu_state.py."""

    def __init__(self, search):
        self.inner = search
        self.passes = 0

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def state_open(self, pricing, nets):
        self.cg = Congestion(self.inner.free.reshape(-1).reshape(self.inner.shape[1:]), nets)
        self.cg.base[:] = pricing.base
        self.cg.history[:] = pricing.history
        self.cg.weight[:] = pricing.weight
        self.state_pres(pricing.pres)
        self.box = np.zeros((nets, 4), np.int64)

    def state_pres(self, pres):
        self.cg.set_pres_fac(pres / COST_SCALE)

    def state_pass(self, packed, bounds, own=False):
        self.passes += 1
        w = self.inner.shape[2]
        out = []
        for reqs in _unpacked(packed, bounds, w):
            if own:         # the group schedule: searched before the old routes go
                reqs = [r._replace(own=self.cg.routes[r.net],
                                   own_cost=self.cg.cost_without(r.net, self.cg.routes[r.net]))
                        if self.cg.routes[r.net] is not None else r for r in reqs]
                cost, changed = self.cg.costs()
                found = self.inner.route(cost, reqs, changed)
                self.cg.remove_many([r.net for r in reqs])
            else:
                self.cg.remove_many([r.net for r in reqs])
                cost, changed = self.cg.costs()
                found = self.inner.route(cost, reqs, changed)
            done = [(r.net, xy) for r, xy in zip(reqs, found) if xy is not None]
            self.cg.add_many([i for i, _ in done],
                             [xy[:, 1] * w + xy[:, 0] for _, xy in done])
            for i, xy in done:
                self.box[i] = [*xy.min(axis=0), *xy.max(axis=0)]
            out.append(np.array([xy is not None for xy in found], bool))
        return np.concatenate(out) if out else np.zeros(0, bool)

    def state_overused(self):
        over = self.cg.overused()
        cells, nets = [], []
        for i, r in enumerate(self.cg.routes):
            if r is not None:
                hit = np.intersect1d(r, over)
                cells += hit.tolist()
                nets += [i] * hit.size
        return np.array(cells, np.int64), np.array(nets, np.int64)

    def state_end_iteration(self, over, conflicts, acc, net_acc):
        assert np.array_equal(over, self.cg.overused())
        assert (acc, net_acc) == (self.cg.acc, self.cg.net_acc)
        self.cg.end_iteration(conflicts)

    def state_boxes(self, nets):
        return self.box[nets]

    def state_routes(self, nets):
        wires = [self.cg.routes[i] for i in nets.tolist()]
        sizes = [0 if r is None else r.size for r in wires]
        flat = [r for r in wires if r is not None]
        return (np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64),
                np.concatenate(flat).astype(np.int64) if flat else np.zeros(0, np.int64))

    def state_close(self):
        from mazeroute.engines.gpu_state import DeviceRoutes
        cg = self.cg
        cells = np.flatnonzero(cg.load | cg.history)
        return DeviceRoutes(cg.routes, self.box, cells, cg.occupancy[cells], cg.load[cells],
                            cg.id_sum[cells], cg.history[cells], cg.weight)


def _unpacked(packed, bounds, w):
    """The batches of a packed pass (engines.weighted.pack_nets) as request lists."""
    xy = np.stack([packed.pins % w, packed.pins // w], axis=1).astype(np.int64)
    reqs = [NetRequest(int(n), xy[a:z], tuple(b)) for n, a, z, b in zip(
        packed.nets.tolist(), packed.pin_ptr[:-1].tolist(), packed.pin_ptr[1:].tolist(),
        packed.boxes.tolist())]
    return [reqs[a:z] for a, z in zip(bounds[:-1].tolist(), bounds[1:].tolist())]


def _stand_in_pair(lay, **options):
    """The host loop negotiated, and a negotiator whose loop keeps its state in a host
    stand-in of the device (not negotiated yet), with its stand-in."""
    host = Negotiator(lay, "cpu", PathFinderOptions(wait_factor=0, max_iterations=30,
                                                    device_state=False, **options))
    host.negotiate()
    dev = Negotiator(lay, "cpu", PathFinderOptions(wait_factor=0, max_iterations=30,
                                                   device_state=True, **options))
    dev.search = stand_in = _HostState(dev.search)
    return host, dev, stand_in


def same_loops(dev, host) -> None:
    """The two loops' routes, iterations and final state are the same (also the check
    of the device's loops, tests/test_gpu_state_host.py)."""
    assert not dev.on_device
    assert [None if r is None else r.tolist() for r in dev.routes] == \
        [None if r is None else r.tolist() for r in host.routes]
    assert [None if c is None else c.tolist() for c in dev.cells] == \
        [None if c is None else c.tolist() for c in host.cells]
    assert [(s.overused, s.conflicts, s.rerouted, s.pres_fac) for s in dev.iterations] == \
        [(s.overused, s.conflicts, s.rerouted, s.pres_fac) for s in host.iterations]
    for name in ("occupancy", "load", "id_sum", "history", "weight"):
        assert np.array_equal(getattr(dev.state, name), getattr(host.state, name)), name


@pytest.mark.parametrize("after", [0, 1, 6])
def test_a_pass_too_big_for_the_device_hands_the_loop_to_the_host(monkeypatch, after):
    """A pass whose boxes hold more cells than the device's pool takes (here every pass
    after the first ``after``) brings the state back, and the loop goes on on the host
    from that pass: the host loop's routes."""
    lay = random_layout(56, 48, density=0.25, nets=70, pins=2, seed=3, span=20)
    host, dev, stand_in = _stand_in_pair(lay)
    real = stand_in.state_pass

    def passing(packed, bounds, own=False):
        out = real(packed, bounds, own)
        if stand_in.passes >= after:
            monkeypatch.setattr(device_loop, "DEVICE_PASS_CELLS", 0)
        return out
    stand_in.state_pass = passing
    if after == 0:
        monkeypatch.setattr(device_loop, "DEVICE_PASS_CELLS", 0)
    dev.negotiate()
    assert stand_in.passes == after < len(host.iterations)
    same_loops(dev, host)


@pytest.mark.parametrize("seed", range(3))
def test_the_device_loop_keeps_the_host_loops_groups(seed):
    """The group schedule with the loop's state kept by the engine (a host stand-in):
    each group searches with its own routes priced as gone, then its old routes go; the
    host loop's routes and state."""
    lay = random_layout(56, 48, density=0.3, nets=80, pins=2 + seed % 2, seed=seed, span=24)
    host, dev, stand_in = _stand_in_pair(lay, group_nets=8)
    grouped = []
    real = stand_in.state_pass

    def passing(packed, bounds, own=False):
        grouped.append(own and np.diff(bounds).max() > 1)
        return real(packed, bounds, own)
    stand_in.state_pass = passing
    dev.negotiate()
    assert any(grouped) and len(dev.iterations) > 1
    same_loops(dev, host)


@pytest.mark.parametrize("seed", range(6))
def test_the_device_loop_keeps_the_host_loops_routes(seed):
    """The loop with its state kept by the engine (router.negotiation.device, here with
    a host stand-in for the device) routes as the loop that keeps it itself: the same
    routes, iterations, boxes, stamps and final state, and the phases after it run on
    what comes back."""
    lay = random_layout(56, 48, density=0.25, nets=70, pins=2 + seed % 2, seed=seed, span=20)
    host, dev, stand_in = _stand_in_pair(lay)
    dev.negotiate()
    assert stand_in.passes >= len(dev.iterations) > 1
    same_loops(dev, host)
    routed = [i for i, r in enumerate(host.routes) if r is not None]
    for name in ("rlo", "rhi", "stamp", "margin", "fights"):
        assert np.array_equal(getattr(dev, name)[routed], getattr(host, name)[routed]), name
    assert np.array_equal(dev.state.costs()[0], host.state.costs()[0])
    assert np.array_equal(dev.state.history_cost(), host.state.history_cost())
    dev.search = stand_in.inner
    assert check_routes(lay, run_phases(dev, len(dev.iterations)).to_json()) == []
