"""Which search takes a call of negotiation's: the device's or the CPU's.

A GPU search (:class:`~mazeroute.engines.gpu_weighted.GPUNetSearch`) searches only on the
device; :class:`SearchDispatch` holds it with a CPU search
(:class:`~mazeroute.engines.weighted.CPUNetSearch`, made at its first call) and sends
each call to one of them. Both are exact with the same tie-breaking, so the routes are
the same whichever searches; only the time differs.

* Boxes of more than ``cpu_box_cells`` cells go to the CPU: the device sweeps a box to
  its fixpoint over every cell, the CPU's A* explores only near the straight line, so a
  net grown to a huge grid (a net failing in every box, the searches of repair and of
  the reasons) is the CPU's; the many boxes grown by negotiation are the device's.
* With ``adaptive`` set, a call whose nets the CPU would search in less time than one
  device call goes to the CPU (late iterations reroute a few nets in many small
  batches). A device call costs about the same whether it carries two nets or two
  hundred, a CPU search about the same for each net, so every call's time is kept as a
  running average, and a few calls go to the engine not chosen to keep both current.
  The chains' batches are weighed likewise against the device's time for a batch of
  their size (:meth:`SearchDispatch.chainable`).

:func:`net_search` makes the search a plan's backend names, dispatched where it is the
GPU's.

Examples
--------
>>> import numpy as np
>>> search = net_search("cpu", np.ones((2, 2), bool), np.full((2, 2), -1, np.int32))
>>> type(search).__name__
'CPUNetSearch'
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np

from ..engines import make_net_search
from ..engines.weighted import (
    CPUNetSearch,
    NetRequest,
    NetSearch,
    Pricing,
    box_sides,
    request_boxes,
)

__all__ = ["SearchDispatch", "net_search", "whole_grid_search", "size_class", "CPU_BOX_CELLS",
           "PROBE_NETS", "REFRESH_CALLS", "TIME_WEIGHT"]

#: Boxes of more cells than this go to the CPU engine (module notes).
CPU_BOX_CELLS = 1 << 20
#: A call with at most this many nets goes to the CPU engine once, to measure it, when
#: the device has been timed and the CPU has not (see SearchDispatch.route).
PROBE_NETS = 16
#: Every this many calls, one goes to the engine not chosen, so that both times stay
#: current as the boxes grow.
REFRESH_CALLS = 32
#: Weight of the newest time in the running averages.
TIME_WEIGHT = 0.25

_NO_CELLS = np.zeros(0, np.int64)


def _average(old: float | None, new: float) -> float:
    return new if old is None else (1 - TIME_WEIGHT) * old + TIME_WEIGHT * new


def size_class(nets: int) -> int:
    """The size class of a batch of ``nets`` nets for the adaptive split of chains: its
    bit length, so that one class's batches differ at most twofold in nets.

    Examples
    --------
    >>> [size_class(n) for n in (1, 2, 3, 4, 64, 65, 200)]
    [1, 2, 2, 3, 7, 7, 8]
    """
    return int(nets).bit_length()


def net_search(backend: str, free: np.ndarray, owner: np.ndarray, adaptive: bool = False,
               cpu_box_cells: int | None = CPU_BOX_CELLS) -> NetSearch:
    """The weighted search of ``backend`` (``cpu`` or ``gpu``, a plan's choice) for one
    layout; the GPU's is held by a :class:`SearchDispatch`.

    Parameters
    ----------
    backend : the backend whose search runs (:attr:`mazeroute.plan.Plan.negotiation`)
    free, owner : as :class:`~mazeroute.engines.weighted.NetSearch`
    adaptive, cpu_box_cells : as :class:`SearchDispatch`

    Returns
    -------
    NetSearch
        The CPU engine, or the dispatch of the GPU's.
    """
    search = make_net_search(backend, free, owner)
    if isinstance(search, CPUNetSearch):
        return search
    return SearchDispatch(search, adaptive=adaptive, cpu_box_cells=cpu_box_cells)


def whole_grid_search(backend: str, free: np.ndarray, owner: np.ndarray) -> NetSearch:
    """:func:`net_search` for a caller whose every box is the whole grid: the CPU engine
    alone where :class:`SearchDispatch` would send such a box there anyway (a grid of
    more than :data:`CPU_BOX_CELLS` cells), so that no device engine is made, nor kept
    current, for searches it never takes.

    Examples
    --------
    >>> type(whole_grid_search("gpu", np.ones((1025, 1024), bool),
    ...                        np.full((1025, 1024), -1, np.int32))).__name__
    'CPUNetSearch'
    """
    return net_search("cpu" if free.size > CPU_BOX_CELLS else backend, free, owner)


class SearchDispatch:
    """A device search and a CPU search, each call sent to one (module notes).

    Parameters
    ----------
    device : the device's :class:`~mazeroute.engines.weighted.NetSearch`
    adaptive : send calls to the CPU where it is expected to finish sooner
    cpu_box_cells : boxes of more cells go to the CPU (None: none do)
    """

    def __init__(self, device: NetSearch, adaptive: bool = False,
                 cpu_box_cells: int | None = CPU_BOX_CELLS):
        self.device = device
        self.adaptive = adaptive
        self.cpu_box_cells = cpu_box_cells
        self.backend = getattr(device, "backend", "gpu")
        self._cpu: CPUNetSearch | None = None       # made when a call first goes there
        #: Cells whose cost changed since the CPU engine's last call (None: unknown), so
        #: that it too reads only those (a whole-grid pass costs more than its search).
        self._cpu_changed: list[np.ndarray] | None = None
        self._device_call: float | None = None      # running seconds of a device call
        self._cpu_net: float | None = None          # ... of one CPU search (small box)
        self._calls = 0
        #: Running device seconds of a chain's batch by its size class.
        self._chain_batch: dict[int, float] = {}
        self._chain_asks = 0        # chained batches sent to the CPU engine (refresh)
        #: The CPU engine's work: calls, nets, wall seconds, device seconds (0).
        self.cpu_spent = [0, 0, 0.0, 0.0]

    def __getattr__(self, name: str):
        # what the dispatch does not decide (the device's counters, its kernels' state)
        # reads as the device search's
        if name == "device":
            raise AttributeError(name)
        return getattr(self.device, name)

    @property
    def free(self) -> np.ndarray:
        """The device search's free cells."""
        return self.device.free

    @property
    def owner(self) -> np.ndarray:
        """The device search's owners (the host's copy)."""
        return self.device.owner

    @property
    def shape(self) -> tuple[int, int, int]:
        """The grid's ``(layers, H, W)``."""
        return self.device.shape

    @property
    def spent(self) -> dict[str, list]:
        """The device search's work by kind, with the CPU engine's as ``cpu calls``."""
        return {**getattr(self.device, "spent", {}), "cpu calls": self.cpu_spent}

    def set_owner(self, cells: np.ndarray, owner: int | np.ndarray) -> None:
        """As :meth:`~mazeroute.engines.weighted.NetSearch.set_owner`, on both searches
        (the CPU engine reads the device's owners on the host)."""
        self.device.set_owner(cells, owner)

    def _cpu_sooner(self, nets: int) -> bool:
        """Whether a call of ``nets`` small-box nets should go to the CPU engine."""
        if not self.adaptive or self._device_call is None:
            return False
        self._calls += 1
        if self._cpu_net is None:
            return nets <= PROBE_NETS
        sooner = nets * self._cpu_net < self._device_call
        if self._calls % REFRESH_CALLS == 0 and (sooner or nets <= PROBE_NETS):
            return not sooner
        return sooner

    def _timed_device(self, cost, requests, changed) -> list[np.ndarray | None]:
        """The device's search, its time kept when it searched something (its results
        are read back before it returns, so the wall time is the device's)."""
        start = time.perf_counter()
        out = self.device.route(cost, requests, changed)
        if requests:
            self._device_call = _average(self._device_call, time.perf_counter() - start)
        return out

    def route(self, cost: np.ndarray, requests: Sequence[NetRequest],
              changed: np.ndarray | None = None) -> list[np.ndarray | None]:
        """As :meth:`~mazeroute.engines.weighted.NetSearch.route`: boxes of more than
        ``cpu_box_cells`` cells on the CPU, the rest on the device unless the CPU is
        expected to search them sooner (module notes). The device is called every time,
        with no requests when all go to the CPU, so that its costs stay current."""
        self._note_changed(changed)
        big = []
        if self.cpu_box_cells is not None and requests:
            bw, bh = box_sides(request_boxes(requests))
            big = np.flatnonzero(bw * bh > self.cpu_box_cells).tolist()
        small = sorted(set(range(len(requests))) - set(big))
        on_cpu = bool(small) and self._cpu_sooner(len(small))
        if on_cpu:
            big, small = list(range(len(requests))), []
        if not big:
            return self._timed_device(cost, requests, changed)
        out: list[np.ndarray | None] = [None] * len(requests)
        for k, xy in zip(small, self._timed_device(cost, [requests[k] for k in small],
                                                   changed)):
            out[k] = xy
        if self._cpu is None:
            # the device's owners on the host are the CPU engine's: one write a change
            self._cpu = CPUNetSearch(self.device.free, self.device.owner,
                                     self.device.via_cost, share_owner=True)
        start = time.perf_counter()
        since = None if self._cpu_changed is None else (
            np.concatenate(self._cpu_changed) if self._cpu_changed else _NO_CELLS)
        for k, xy in zip(big, self._cpu.route(cost, [requests[k] for k in big], since)):
            out[k] = xy
        self._cpu_changed = []
        took = time.perf_counter() - start
        if on_cpu:
            self._cpu_net = _average(self._cpu_net, took / len(requests))
        spent = self.cpu_spent
        spent[0], spent[1], spent[2] = spent[0] + 1, spent[1] + len(big), spent[2] + took
        return out

    def _note_changed(self, changed: np.ndarray | None) -> None:
        """Keep ``changed`` for the CPU engine's next call."""
        if self._cpu_changed is not None:
            if changed is None:
                self._cpu_changed = None
            else:
                self._cpu_changed.append(np.asarray(changed, np.int64).ravel())

    def _within(self, requests: Sequence[NetRequest]) -> bool:
        """Whether every box of ``requests`` is the device's (``cpu_box_cells``)."""
        if self.cpu_box_cells is None or not requests:
            return True
        bw, bh = box_sides(request_boxes(requests))
        return not (bw * bh > self.cpu_box_cells).any()

    def chainable(self, requests: Sequence[NetRequest]) -> bool:
        """Whether the device's chain takes ``requests`` as a batch: the device takes it
        (:meth:`~mazeroute.engines.weighted.NetSearch.chainable`), every box within
        ``cpu_box_cells``, and (``adaptive``) the device expected to search them sooner
        than the CPU engine would: a batch whose searches would take the CPU engine less
        time than the device spends on a chained batch of its size class
        (:func:`size_class`; timed by the device, without the host's share, which a chain
        hides) goes to the CPU; the first batch of a class stays to be timed, a small one
        measures the CPU once, and one in :data:`REFRESH_CALLS` sent to the CPU stays to
        keep its class's time current. A round trip's time (:meth:`route`'s rule) is the
        wrong yardstick here: a chained batch makes none, and only calls move that
        average, which may stay where one call of every net (iteration 1) put it."""
        return (self._device_sooner(len(requests)) and self._within(requests)
                and self.device.chainable(requests))

    def _device_sooner(self, nets: int) -> bool:
        """Whether a chain's batch of ``nets`` nets stays on the device (see chainable)."""
        if not self.adaptive or self._device_call is None:
            return True
        if self._cpu_net is None:
            return nets > PROBE_NETS
        device = self._chain_batch.get(size_class(nets))
        if device is None or nets * self._cpu_net >= device:
            return True
        self._chain_asks += 1
        return self._chain_asks % REFRESH_CALLS == 0

    def route_chain(self, cost: np.ndarray, changed: np.ndarray | None, pricing: Pricing,
                    batches: Sequence[Sequence[NetRequest]],
                    ripped: Sequence[Sequence[np.ndarray | None]]
                    ) -> list[list[np.ndarray | None]]:
        """As :meth:`~mazeroute.engines.weighted.NetSearch.route_chain`, on the device;
        the device's time for each batch joins its size class's average."""
        for b, reqs in enumerate(batches):
            if not self._within(reqs):
                raise ValueError(f"batch {b} is not chainable (see chainable)")
        self._note_changed(changed)
        found = self.device.route_chain(cost, changed, pricing, batches, ripped)
        for nets, took in getattr(self.device, "chain_batches", ()):
            c = size_class(nets)
            self._chain_batch[c] = _average(self._chain_batch.get(c), took)
        return found
