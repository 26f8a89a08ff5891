"""Every net's route and box in negotiation, and the commits that keep the congestion
state (:class:`~mazeroute.router.congestion.Congestion`) and the search's owners in step
with them: :class:`RouteBook`, a part of :class:`~mazeroute.router.negotiate.Negotiator`.
"""

from __future__ import annotations

import numpy as np

from ..result import NetRoute, RouteResult, wires_bends

__all__ = ["RouteBook"]


class RouteBook:
    """Routes, boxes and commits (the attributes are the negotiator's; see
    :class:`~mazeroute.router.negotiate.Negotiator`)."""

    @property
    def routed(self) -> int:
        """The nets that have a route now."""
        if self.on_device:
            return int(self.has_route.sum())
        return sum(c is not None for c in self.cells)

    def box(self, i: int) -> tuple[int, int, int, int]:
        """Net ``i``'s search box ``(x0, y0, x1, y1)``: its pins' box grown by its margin,
        clipped to the grid."""
        # as boxes() does for many, in plain integers: phases ask it net by net
        h, w = self.shape
        m = int(self.margin[i])
        (lx, ly), (hx, hy) = self.lo[i].tolist(), self.hi[i].tolist()
        return max(lx - m, 0), max(ly - m, 0), min(hx + m, w - 1), min(hy + m, h - 1)

    def boxes(self, nets: np.ndarray) -> np.ndarray:
        """:meth:`box` of every net of ``nets``, as a ``(k, 4)`` array."""
        h, w = self.shape
        m = self.margin[nets][:, None]
        lo = np.maximum(self.lo[nets] - m, 0)
        hi = np.minimum(self.hi[nets] + m, np.array([w - 1, h - 1]))
        return np.concatenate([lo, hi], axis=1)

    def _whole(self, i: int) -> bool:
        h, w = self.shape
        return self.box(i) == (0, 0, w - 1, h - 1)

    def _grow(self, i: int) -> None:
        self.margin[i] = max(1, int(self.margin[i])) * self.options.bb_grow

    def _on_edge(self, nets: np.ndarray) -> np.ndarray:
        """Whether each net's route runs along a side of its box that is not the grid's."""
        h, w = self.shape
        box = self.boxes(nets)
        lo, hi = self.rlo[nets], self.rhi[nets]
        return (((box[:, 0] > 0) & (lo[:, 0] == box[:, 0]))
                | ((box[:, 1] > 0) & (lo[:, 1] == box[:, 1]))
                | ((box[:, 2] < w - 1) & (hi[:, 0] == box[:, 2]))
                | ((box[:, 3] < h - 1) & (hi[:, 1] == box[:, 3])))

    def _set_route(self, i: int, xy: np.ndarray | None, when: int | None = None) -> None:
        """Give net ``i`` the route ``xy`` (None: rip it up); ``when`` orders the final
        commits (by default, after everything so far)."""
        self.state.remove(i)
        if xy is None:
            self.routes[i] = self.cells[i] = None
            return
        self._commit([i], [xy], [self.clock if when is None else when])

    def _commit(self, nets: list[int], found: list[np.ndarray], when: list[int]) -> None:
        """Give each net of ``nets`` (none of them routed) its route in ``found``, made
        at the stamp in ``when``: one update of the congestion state for all."""
        if not nets:
            return
        w = self.shape[1]
        sizes = np.fromiter((len(xy) for xy in found), np.int64, len(found))
        starts = np.zeros(len(found), np.int64)
        np.cumsum(sizes[:-1], out=starts[1:])
        every = np.concatenate(found)
        flat = (every[:, 1] * w + every[:, 0]).astype(np.int64, copy=False)
        flats = np.split(flat, starts[1:])
        idx = np.asarray(nets, np.int64)
        self.rlo[idx] = np.minimum.reduceat(every, starts)
        self.rhi[idx] = np.maximum.reduceat(every, starts)
        self.stamp[idx] = when
        for i, xy, f in zip(nets, found, flats):
            self.routes[i], self.cells[i] = f, xy
        self.state.add_many(nets, flats, (flat, np.repeat(idx, sizes)))
        self.clock = max(self.clock, int(max(when))) + 1

    def _reserve(self, nets, cells: list[np.ndarray]) -> None:
        """Give each of ``nets`` its ``cells`` in the search's owners, in one call."""
        if not len(nets):
            return
        xy = np.concatenate(cells).reshape(-1, 2)
        who = np.repeat(np.asarray(nets, np.int32), [len(c) for c in cells])
        if who.size:
            self.search.set_owner(xy, who)

    def _wired(self) -> tuple[np.ndarray, np.ndarray]:
        """Every routed net's flat cells, one net after another, and each cell's net
        (both int64; empty where no net is routed)."""
        nets = [i for i, r in enumerate(self.routes) if r is not None]
        if not nets:
            return np.zeros(0, np.int64), np.zeros(0, np.int64)
        flat = np.concatenate([self.routes[i] for i in nets])
        return flat, np.repeat(np.asarray(nets, np.int64), [self.routes[i].size for i in nets])

    def _reserve_wires(self) -> None:
        """Every wire reserved for its net in the search (no other net enters it). The
        phases call it at their start, when the wires are disjoint (legalise's cover has
        been dropped), and most cells already hold their net from the phase before."""
        # compared on the flat cells, and turned to (x, y) only where an owner differs:
        # pairs of indices into the grid cost a share of each phase on the largest layouts
        flat, who = self._wired()
        owner = getattr(self.search, "owner", None)
        if owner is not None:
            differs = np.asarray(owner).reshape(-1)[flat] != who
            flat, who = flat[differs], who[differs]
        if who.size:
            w = self.shape[1]
            self.search.set_owner(np.stack([flat % w, flat // w], axis=1),
                                  who.astype(np.int32))

    def _rip(self, nets: list[int]) -> None:
        """Rip up every net of ``nets`` at once."""
        self.state.remove_many(nets)
        for i in nets:
            self.routes[i] = self.cells[i] = None

    def _result(self) -> RouteResult:
        n = len(self.layout.nets)
        routed = np.flatnonzero(np.fromiter((c is not None for c in self.cells), bool, n))
        # the routing order: by stamp, ties in net order (a stable sort); the ranks and
        # bends as arrays, as a Python step a net is a share of the result's time on
        # the largest layouts
        rank = np.full(n, -1, np.int64)
        rank[routed[np.argsort(self.stamp[routed], kind="stable")]] = np.arange(routed.size)
        turns = np.zeros(n, np.int64)
        have = routed.tolist()
        turns[routed] = wires_bends([self.cells[i] for i in have], [self.pins[i] for i in have])
        seconds, ranks, turns = self.seconds.tolist(), rank.tolist(), turns.tolist()
        cells = self.cells
        nets = [NetRoute.of_wire(net.name, list(net.pins), cells[i],
                                 ranks[i] if ranks[i] >= 0 else None, turns[i], seconds[i])
                for i, net in enumerate(self.layout.nets)]
        return RouteResult(self.layout, nets, self.engine, "hpwl", 0.0,
                           mode="negotiate", iterations=list(self.iterations),
                           history=self.state.history_cost(), stop=self.stop)
