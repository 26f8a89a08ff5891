"""Own cells on the device (:class:`OwnOverlay`): the group schedule's requests that
price their net's current wire as if it were gone
(:attr:`~mazeroute.engines.weighted.NetRequest.own`), for
:class:`~mazeroute.engines.gpu_weighted.GPUNetSearch`.

The CPU engine swaps a request's own costs into its cost array around that request's
search; a launch searches many requests at once, so the device reads an overlay instead
(kernels/weighted.cu ``CellCosts``): per cell the net whose own cell it is and its cost,
set before a call and cleared after it. One overlay serves the requests of a call whose
own cells are disjoint (:func:`~.weighted_launch.own_parts`); a call whose requests'
own cells meet runs in parts, one after another, on the same costs.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import numpy as np

from .costs import COST_MAX
from .weighted import NetRequest, pack_own, request_boxes
from .weighted_launch import own_parts

__all__ = ["OwnOverlay"]

_NO_CELLS = np.zeros(0, np.int64)


class OwnOverlay:
    """The own-cell overlay of a device search: its state (:meth:`_own_init`), the route
    of requests with own cells (:meth:`_route_own`), the kernels' arguments for it
    (:meth:`_own_args`, :meth:`_launch_least`; on while :meth:`_overlay_on` holds);
    :meth:`_own_arrays` makes the arrays that :class:`~.gpu_state.DeviceState` also
    writes. The host class supplies ``_xp``, ``free``, ``shape``, ``_code``, ``_cost``,
    ``_least`` and ``_timed_device``."""

    def _own_init(self) -> None:
        # per cell the net whose own it is (-1: none) and its cost, made at the first
        # request with own cells; whether a call has them on, and their least cost
        self._own_net = self._own_cost = None
        self._owns, self._own_least = False, COST_MAX

    def _route_own(self, cost: np.ndarray, requests: Sequence[NetRequest],
                   changed: np.ndarray | None) -> list[np.ndarray | None]:
        """:meth:`route` of ``requests`` some of which have own cells."""
        own_ptr, cells, costs = pack_own(requests, request_boxes(requests), self.shape[2])
        results: list[np.ndarray | None] = [None] * len(requests)
        for k, part in enumerate(own_parts(requests, own_ptr, cells)):
            mine = np.concatenate([np.arange(own_ptr[r], own_ptr[r + 1]) for r in part])
            nets = np.concatenate([np.full(own_ptr[r + 1] - own_ptr[r], requests[r].net,
                                           np.int32) for r in part])
            # a cell a request lists twice costs its last cost, as on the CPU
            _, last = np.unique(cells[mine][::-1], return_index=True)
            keep = mine[mine.size - 1 - last]
            found = self._own_call(cost, [requests[r] for r in part],
                                   changed if k == 0 else _NO_CELLS, cells[keep],
                                   nets[mine.size - 1 - last], costs[keep])
            for r, f in zip(part, found):
                results[r] = f
        return results

    def _own_call(self, cost: np.ndarray, requests: Sequence[NetRequest],
                  changed: np.ndarray | None, cells: np.ndarray, nets: np.ndarray,
                  costs: np.ndarray) -> list[np.ndarray | None]:
        """:meth:`_timed_device` with ``cells`` (flat, disjoint) costing ``costs`` to
        ``nets`` (kernels/weighted.cu ``CellCosts``); the overlay is cleared after."""
        if not cells.size:
            return self._timed_device(cost, requests, changed)
        xp = self._xp
        self._own_arrays()
        at = xp.asarray(cells.astype(np.int64))
        self._own_net[at] = xp.asarray(nets)
        self._own_cost[at] = xp.asarray(costs.astype(np.uint16))
        try:
            with self._overlay_on(int(costs.min())):
                return self._timed_device(cost, requests, changed)
        finally:
            self._own_net[at] = -1

    @contextmanager
    def _overlay_on(self, least: int) -> Iterator[None]:
        """The overlay read by the launches made inside, its least cost ``least``; off
        after (the kernels then read none of it)."""
        self._owns, self._own_least = True, least
        try:
            yield
        finally:
            self._owns, self._own_least = False, COST_MAX

    def _own_arrays(self) -> None:
        """The overlay's arrays on the device, made at their first use (every cell
        no net's own)."""
        if self._own_net is None:
            xp = self._xp
            self._own_net = xp.empty(self.free.size, dtype=xp.int32)
            self._own_net.fill(-1)
            self._own_cost = xp.empty(self.free.size, dtype=xp.uint16)

    def _own_args(self) -> tuple:
        """The kernels' ``ownNet, ownCost, owns`` (their costs and codes stand in for the
        arrays when no overlay is on: the kernels read none of them then)."""
        if self._owns:
            return self._own_net, self._own_cost, np.int32(1)
        return self._code, self._cost, np.int32(0)

    def _launch_least(self) -> np.int32:
        """The kernels' ``least``: a lower bound of every cost they read, own cells too."""
        return np.int32(min(self._least, self._own_least))


