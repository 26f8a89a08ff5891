"""Negotiation's state on the device (mazeroute/engines/gpu_state.py) on the CPU:
kernels/congestion.cu's own code run by tests/congestion_emu.cpp and kernels/weighted.cu's
by tests/weighted_emu.cpp, the host code as it runs on a device, against the loop that
keeps its state on the host (mazeroute/router/congestion.py, the oracle of the state):
the same routes, iterations and final state, cell by cell. tests/test_gpu_state.py runs
the same checks on a device."""

from __future__ import annotations

import ctypes
import shutil
import subprocess
import types

import numpy as np
import pytest

from mazeroute.engines import gpu_state
from mazeroute.router import PathFinderOptions
from mazeroute.router.negotiate import Negotiator
from tests.corpus import EMULATED_ITERATIONS, chain_layouts
from tests.test_gpu_weighted_host import (
    I64,
    ROOT,
    EmuNetSearch,
    _build_emu,
    _c_args,
    _DeviceArray,
)
from tests.test_negotiation_device import same_loops


def check_device_loop(make) -> None:
    """``make(device)`` gives a negotiator whose loop keeps its state on the device or
    not: both loops give the same routes, iterations, boxes, stamps and final state."""
    host, dev = make(False), make(True)
    host.negotiate()
    dev.negotiate()
    same_loops(dev, host)
    assert np.array_equal(dev.state.overused(), host.state.overused())
    routed = [i for i, r in enumerate(host.routes) if r is not None]
    for name in ("rlo", "rhi", "stamp"):
        assert np.array_equal(getattr(dev, name)[routed], getattr(host, name)[routed]), name
    assert np.array_equal(dev.state.costs()[0], host.state.costs()[0])
    assert len(host.iterations) > 1


# -- kernels/congestion.cu on the CPU ---------------------------------------------------
I32 = None                       # an int32 scalar; arrays by their dtype
_ARGS = {
    "route_keep": [np.int32, I32, np.int32, np.int32, I32, np.int32, np.int32, np.int32,
                   np.int32, np.int32, np.int32],
    "route_uses": [np.int32, np.int32, np.int32, np.int32, I32, I32, I64, np.int64,
                   np.int32, np.int64, np.int64],
    "route_price": [np.int32, np.int32, np.int32, np.int32, I32, np.int64, np.int64, I32,
                    np.uint16],
    "route_own": [np.int32, np.int32, np.int32, np.int32, I32, I32, np.int64, np.int64,
                  np.int64, I32, np.int32, np.uint16],
    "price_cells": [np.int32, I32, np.int64, np.int64, I32, np.uint16],
    "price_grid": [I64, np.int64, np.int64, I32, np.uint16],
    "overused_uses": [np.int32, np.int32, np.int32, I32, np.int32, np.int32, np.int32,
                      np.int32, I32],
    "history_add": [np.int32, I32, np.int32, I64, np.int64, np.int64],
}


class _EmuStateKernel:
    """One kernel of kernels/congestion.cu run by tests/congestion_emu.cpp."""

    def __init__(self, lib, name):
        self.fn, self.name = getattr(lib, f"emulate_{name}"), name
        self.calls = 0

    def __call__(self, grid, block, args):
        assert 1 <= block[0] <= 1024 and 1 <= grid[0] <= 2**31 - 1
        self.calls += 1
        # few threads a block: the kernels stride by blockDim, any count is theirs
        assert self.fn(min(3, block[0]), grid[0], *_c_args(args, _ARGS[self.name])) == 0


def _device_array(a) -> _DeviceArray:
    return np.ascontiguousarray(a).view(_DeviceArray)


_STATE_NUMPY = types.SimpleNamespace(
    asarray=_device_array, int32=np.int32, int64=np.int64, uint16=np.uint16,
    uint32=np.uint32, empty=lambda n, dtype: np.empty(n, dtype).view(_DeviceArray),
    zeros=lambda n, dtype: np.zeros(n, dtype).view(_DeviceArray),
    flatnonzero=lambda a: _device_array(np.flatnonzero(a)),
    concatenate=lambda parts: _device_array(np.concatenate(parts)))


class EmuStateSearch(EmuNetSearch):
    """:class:`EmuNetSearch` with negotiation's state kept by the emulated kernels."""

    def __init__(self, free, owner, lib, state_lib, **kw):
        self._state_lib = state_lib
        super().__init__(free, owner, lib, **kw)

    def _device(self):
        _, kernels, optin, blocks = super()._device()
        return _STATE_NUMPY, kernels, optin, blocks

    def _state_kernels(self):
        return {k: _EmuStateKernel(self._state_lib, k) for k in gpu_state.STATE_KERNELS}


@pytest.fixture(scope="module")
def emu_lib(tmp_path_factory):
    return _build_emu(tmp_path_factory)


@pytest.fixture(scope="module")
def state_lib(tmp_path_factory):
    cxx = shutil.which("g++") or shutil.which("c++")
    if cxx is None:
        pytest.skip("no C++ compiler to build the kernels' CPU emulation")
    so = tmp_path_factory.mktemp("emu") / "congestion_emu.so"
    subprocess.run([cxx, "-std=c++20", "-O1", "-shared", "-fPIC", "-pthread", "-o", str(so),
                    str(ROOT / "tests" / "congestion_emu.cpp")], check=True)
    return ctypes.CDLL(str(so))


def _emulated(lay, emu_lib, state_lib, smem_limit=None, group_nets=0):
    """The device loop on the emulated engine; the host loop on the CPU engine (whose
    searches the device's equal: tests/test_gpu_weighted_host.py)."""
    def make(device: bool) -> Negotiator:
        ng = Negotiator(lay, "cpu", PathFinderOptions(
            wait_factor=0, window_work=0, device_state=device, group_nets=group_nets,
            max_iterations=EMULATED_ITERATIONS))
        if device:
            ng.search = EmuStateSearch(ng.free, ng.owner, emu_lib, state_lib,
                                       smem_limit=smem_limit)
        return ng
    return make


@pytest.mark.parametrize("k, smem_limit", [(0, None), (1, 0), (2, 0), (3, None)])
def test_the_emulated_device_loop_is_the_host_loop(emu_lib, state_lib, k, smem_limit):
    """Shared memory and tiles (every box in global memory), two-pin and three-pin nets
    in each (every layout both ways on a device, tests/test_gpu_state.py)."""
    check_device_loop(_emulated(chain_layouts()[k], emu_lib, state_lib, smem_limit))


@pytest.mark.parametrize("k, smem_limit", [(0, None), (1, 0)])
def test_the_emulated_device_loop_routes_groups_as_the_host_loop(emu_lib, state_lib, k,
                                                                 smem_limit):
    """The group schedule: own routes priced as gone by route_own, the old routes ripped
    up after the group's searches; the overlay cleared after every group (own cells in
    shared memory: tests/test_gpu_weighted_host.py; both on a device,
    tests/test_gpu_state.py)."""
    make = _emulated(chain_layouts()[k], emu_lib, state_lib, smem_limit, group_nets=8)
    check_device_loop(make)
    dev = make(True)
    dev.negotiate()
    assert dev.search._own_net is not None and (np.array(dev.search._own_net) == -1).all()
    assert dev.search._sk["route_own"].calls > 0


def test_the_emulated_pool_moves_routes_together_when_it_fills(emu_lib, state_lib,
                                                                 monkeypatch):
    """A pool too small for a pass is compacted and grown; the loops stay alike."""
    real = gpu_state.DeviceState.state_open

    def small(self, pricing, nets):
        real(self, pricing, nets)
        self._st_pool = self._xp.empty(16, self._xp.int32)

    monkeypatch.setattr(gpu_state.DeviceState, "state_open", small)
    grown = []
    real_room = gpu_state.DeviceState._room

    def room(self, need):
        before = self._st_pool.size
        real_room(self, need)
        grown.append(self._st_pool.size > before)
    monkeypatch.setattr(gpu_state.DeviceState, "_room", room)
    check_device_loop(_emulated(chain_layouts()[1], emu_lib, state_lib))
    assert any(grown)


def test_the_emulated_state_is_priced_as_the_host_prices(emu_lib, state_lib):
    """After every pass, the device's costs are the host's pricing of the device's own
    state (occupancy, loads, history): kernels/congestion.cu's rule is the host's."""
    from mazeroute.router.pricing import price_all
    lay = chain_layouts()[2]
    ng = _emulated(lay, emu_lib, state_lib)(True)
    search = ng.search
    real = search.state_pass
    seen = []

    def checked(packed, bounds, own=False):
        out = real(packed, bounds, own)
        bh, load = np.array(search._st_bh), np.array(search._st_load)
        want = np.empty(bh.size, np.uint16)
        price_all(bh, np.zeros_like(bh), load, int(search._st_pres), want)
        assert np.array_equal(np.array(search._cost), want)
        occ = np.zeros(bh.size, np.int64)
        for net in range(len(lay.nets)):
            k = int(search._st_len[net])
            np.add.at(occ, np.array(search._st_pool[search._st_start[net]:][:k]), 1)
        assert np.array_equal(occ, np.array(search._st_occ))
        seen.append(len(bounds) - 1)
        return out
    search.state_pass = checked
    ng.negotiate()
    assert len(seen) > 2


def test_the_state_opens_with_its_history_or_none(emu_lib, state_lib):
    """A state with no history yet uploads its base alone (as the type of base plus
    history) and makes the history on the device; one with a history uploads both."""
    from mazeroute.generate import random_layout
    from mazeroute.router.congestion import Congestion

    lay = random_layout(12, 10, density=0.2, nets=4, pins=2, seed=1, span=6)
    ng = Negotiator(lay, "cpu", PathFinderOptions(wait_factor=0))
    for history in (False, True):
        state = Congestion(ng.free, len(lay.nets), 3, 0)
        if history:
            state.history[::7] = 5
        pricing = state.pricing()
        search = EmuStateSearch(ng.free, ng.owner, emu_lib, state_lib)
        search.state_open(pricing, len(lay.nets))
        want = pricing.base + pricing.history
        assert np.asarray(search._st_bh).dtype == want.dtype
        assert np.array_equal(np.asarray(search._st_bh), want)
        assert np.array_equal(np.asarray(search._st_history), pricing.history)
        assert np.array_equal(np.asarray(search._st_history0), pricing.history)
