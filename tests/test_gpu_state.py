"""Negotiation's state on the device (mazeroute/engines/gpu_state.py, kernels/congestion.cu)
against the host's (mazeroute/router/congestion.py): the same loop, with its state on
the device and on the host, gives the same routes, the same iterations and the same
final state, cell by cell (the checks of tests/test_gpu_state_host.py, which runs them
with the kernels' code on the CPU). Every test needs CuPy and a CUDA device (marked
``gpu``); the router's side of the device loop runs on the CPU in
tests/test_negotiation_device.py too."""

from __future__ import annotations

import numpy as np
import pytest

from mazeroute.generate import random_layout
from mazeroute.router import PathFinderOptions
from mazeroute.router.negotiate import Negotiator
from tests.corpus import chain_layouts
from tests.test_gpu_state_host import check_device_loop

pytestmark = pytest.mark.gpu


def _layouts():
    return chain_layouts() + [
        random_layout(96, 80, density=0.25, nets=120, pins=2, seed=7, span=30, name="r96"),
        random_layout(64, 64, density=0.1, nets=60, pins=3, seed=8, span=40, name="t64"),
    ]


def _make(lay, smem_limit=None, group_nets=0):
    def make(device: bool) -> Negotiator:
        ng = Negotiator(lay, "gpu", PathFinderOptions(wait_factor=0, device_state=device,
                                                      group_nets=group_nets))
        ng.search.adaptive = False
        if smem_limit is not None:
            ng.search.device.smem_limit = smem_limit
        return ng
    return make


@pytest.mark.parametrize("smem_limit", [None, 0])
@pytest.mark.parametrize("lay", _layouts(), ids=lambda lay: lay.name)
def test_the_device_loop_is_the_host_loop(lay, smem_limit):
    check_device_loop(_make(lay, smem_limit))


@pytest.mark.parametrize("smem_limit", [None, 0])
@pytest.mark.parametrize("lay", _layouts()[1::2], ids=lambda lay: lay.name)
def test_the_device_loop_routes_groups_as_the_host_loop(lay, smem_limit):
    """The group schedule on the device: own routes priced as gone (route_own)."""
    check_device_loop(_make(lay, smem_limit, group_nets=8))


def test_the_device_passes_are_counted():
    dev = _make(_layouts()[4])(True)
    dev.negotiate()
    passes = dev.search.device.spent["device passes"]
    assert passes[0] >= len(dev.iterations) > 1 and passes[1] > 0 and passes[3] > 0


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
    real = gpu_state.DeviceState.state_open

    def small(self, pricing, nets):
        real(self, pricing, nets)
        self._st_pool = self._xp.empty(64, self._xp.int32)

    monkeypatch.setattr(gpu_state.DeviceState, "state_open", small)
    check_device_loop(_make(_layouts()[4]))
