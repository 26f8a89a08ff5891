"""The PathFinder loop with its state on the device: :class:`DeviceLoop`, a part of
:class:`~mazeroute.router.negotiate.Negotiator`.

With ``device_state`` (:class:`~.options.PathFinderOptions`) and the GPU's search, the
loop's rip-ups, commits, pricing and overuse count run where the searches run
(:class:`~mazeroute.engines.gpu_state.DeviceState`): a pass of :meth:`Loop.reroute`
is one upload and one read back (which nets found a route), an iteration's end reads
back the uses of overused cells and the boxes of the nets in conflict, and the routes
and the state come back once, when the loop ends, for the phases after it. The order,
the batches (the group schedule's too, its own routes priced on the device) and every
cost are the host loop's, so the routes are the same. The time
limit is looked at between passes (the host loop looks between batches).
"""

from __future__ import annotations

import time

import numpy as np

from ...engines.weighted import box_sides, pack_nets

__all__ = ["DeviceLoop", "DEVICE_PASS_CELLS"]

#: A pass whose boxes hold more cells than this goes on the host, the loop's state
#: brought back first: the device keeps routes in a pool whose offsets are int32, and
#: a pass takes room for its boxes' cells beside the routes kept.
DEVICE_PASS_CELLS = 1 << 30


class DeviceLoop:
    """The loop's device path (see :class:`~mazeroute.router.negotiate.Negotiator`)."""

    #: Whether the loop's state is on the device now (between :meth:`_device_open` and
    #: :meth:`_device_close`).
    on_device = False

    def _device_applies(self) -> bool:
        """Whether this loop keeps its state on the device: asked for, a search that
        can, no net watched (a watched net's searches are looked at on the host) and no
        net routed yet."""
        opt = self.options
        return (opt.device_state and hasattr(self.search, "state_open")
                and self.watch.net is None and all(r is None for r in self.routes))

    def _device_open(self) -> None:
        self.search.state_open(self.state.pricing(), len(self.layout.nets))
        self.has_route = np.zeros(len(self.layout.nets), bool)
        self.on_device = True

    def _device_close(self) -> None:
        """The routes and the state back on the host, for the phases after the loop."""
        if not self.on_device:
            return
        got = self.search.state_close()
        self.on_device = False
        w = self.shape[1]
        have = [i for i, r in enumerate(got.routes) if r is not None]
        self.routes[:] = got.routes
        self.cells[:] = [None] * len(got.routes)
        if have:
            # every route's (x, y) at once: a net at a time is a share of the close
            flat = np.concatenate([got.routes[i] for i in have])
            sizes = np.fromiter((got.routes[i].size for i in have), np.int64, len(have))
            xy = np.split(np.stack([flat % w, flat // w], axis=1), np.cumsum(sizes)[:-1])
            for i, c in zip(have, xy):
                self.cells[i] = c
        routed = np.flatnonzero(self.has_route)
        self.rlo[routed] = got.boxes[routed, :2]
        self.rhi[routed] = got.boxes[routed, 2:]
        self.state.adopt(got.routes, got.cells, got.occupancy, got.load, got.id_sum,
                         got.history, got.weight)

    def _device_pass(self, pending: np.ndarray, boxes: np.ndarray, groups: list[np.ndarray],
                     grouped: bool) -> tuple[list[int], int, int] | None:
        """:meth:`Loop._reroute_pass`'s searches on the device (``grouped``: the group
        schedule's, each net pricing its own route as gone): the nets that found no
        route, the searches and the cells of their boxes; None when its boxes hold more
        than :data:`DEVICE_PASS_CELLS` cells (the state then comes back to the host, and
        the loop goes on there)."""
        start = time.perf_counter()
        bw, bh = box_sides(boxes)
        cells = int((bw * bh).sum())
        if cells > DEVICE_PASS_CELLS:
            self._device_close()
            return None
        order = np.concatenate(groups) if groups else np.zeros(0, np.int64)
        bounds = np.zeros(len(groups) + 1, np.int64)
        np.cumsum([len(g) for g in groups], out=bounds[1:])
        packed = pack_nets(self.pins_flat, pending[order], boxes[order], (1, *self.shape))
        found = np.zeros(pending.size, bool)
        found[order] = self.search.state_pass(packed, bounds, own=grouped)
        self.has_route[pending] = found
        self.stamp[pending[found]] = self.clock + np.flatnonzero(found)
        self.seconds[pending] += (time.perf_counter() - start) / pending.size
        return pending[~found].tolist(), pending.size, cells

    def _device_iteration(self) -> tuple[tuple[np.ndarray, np.ndarray], np.ndarray]:
        """The uses of overused cells now, and those cells (ascending, each once)."""
        uses = self.search.state_overused()
        return uses, np.unique(uses[0])

    def _device_end_iteration(self, over: np.ndarray, conflicts: np.ndarray) -> None:
        """History on the overused cells ``over`` and weights of the nets ``conflicts``
        on the device (:meth:`~.congestion.Congestion.end_iteration`'s rule), and the
        boxes of the routes in conflict brought to the host."""
        self.search.state_end_iteration(over, conflicts, self.state.acc, self.state.net_acc)
        if conflicts.size:
            b = self.search.state_boxes(conflicts)
            self.rlo[conflicts], self.rhi[conflicts] = b[:, :2], b[:, 2:]
