"""Negotiation's state on the device (mazeroute/engines/gpu_state.py, kernels/congestion.cu)
against the host's (mazeroute/router/congestion.py): the same loop, with its state on
the device and on the host, gives the same routes, the same iterations and the same
final state, cell by cell. Every test needs CuPy and a CUDA device (marked ``gpu``); the
router's side of the device loop runs on the CPU in tests/test_negotiate.py."""

from __future__ import annotations

import numpy as np
import pytest

from mazeroute.generate import random_layout
from mazeroute.router import PathFinderOptions
from mazeroute.router.negotiate import Negotiator
from tests.corpus import chain_layouts

pytestmark = pytest.mark.gpu


def _layouts():
    return chain_layouts() + [
        random_layout(96, 80, density=0.25, nets=120, pins=2, seed=7, span=30, name="r96"),
        random_layout(64, 64, density=0.1, nets=60, pins=3, seed=8, span=40, name="t64"),
    ]


def _loop(lay, device: bool, smem_limit=None, **extra):
    opt = PathFinderOptions(wait_factor=0, device_state=device, **extra)
    ng = Negotiator(lay, "gpu", opt)
    ng.search.adaptive = False
    if smem_limit is not None:
        ng.search.device.smem_limit = smem_limit
    ng.negotiate()
    return ng


@pytest.mark.parametrize("smem_limit", [None, 0])
@pytest.mark.parametrize("lay", _layouts(), ids=lambda lay: lay.name)
def test_the_device_loop_is_the_host_loop(lay, smem_limit):
    host = _loop(lay, False, smem_limit)
    dev = _loop(lay, True, smem_limit)
    assert not dev.on_device
    passes = dev.search.device.spent["device passes"]
    assert passes[0] >= len(dev.iterations) and passes[1] > 0 and passes[3] > 0
    assert [None if r is None else r.tolist() for r in dev.routes] == \
        [None if r is None else r.tolist() for r in host.routes]
    assert [(s.overused, s.conflicts, s.rerouted, s.pres_fac) for s in dev.iterations] == \
        [(s.overused, s.conflicts, s.rerouted, s.pres_fac) for s in host.iterations]
    for name in ("occupancy", "load", "id_sum", "history", "weight"):
        assert np.array_equal(getattr(dev.state, name), getattr(host.state, name)), name
    assert np.array_equal(dev.state.overused(), host.state.overused())
    routed = [i for i, r in enumerate(host.routes) if r is not None]
    assert np.array_equal(dev.rlo[routed], host.rlo[routed])
    assert np.array_equal(dev.rhi[routed], host.rhi[routed])
    assert np.array_equal(dev.stamp[routed], host.stamp[routed])
    assert np.array_equal(dev.state.costs()[0], host.state.costs()[0])
    assert len(host.iterations) > 1


@pytest.mark.parametrize("lay", _layouts()[:3], ids=lambda lay: lay.name)
def test_the_device_loop_routes_as_the_cpu_engine(lay):
    opt = PathFinderOptions(wait_factor=0, device_state=True)
    want = Negotiator(lay, "cpu", PathFinderOptions(wait_factor=0)).run()
    got = Negotiator(lay, "gpu", opt).run()
    assert [n.cells for n in got.nets] == [n.cells for n in want.nets]
    assert np.array_equal(got.history, want.history)


def test_the_pool_moves_routes_together_when_it_fills(monkeypatch):
    """A pool too small for a pass is compacted and grown; the routes stay the host's."""
    from mazeroute.engines import gpu_state
    lay = _layouts()[4]
    host = _loop(lay, False)
    real = gpu_state.DeviceState.state_open

    def small(self, pricing, nets):
        real(self, pricing, nets)
        self._st_pool = self._xp.empty(64, self._xp.int32)

    monkeypatch.setattr(gpu_state.DeviceState, "state_open", small)
    dev = _loop(lay, True)
    assert [None if r is None else r.tolist() for r in dev.routes] == \
        [None if r is None else r.tolist() for r in host.routes]
