"""What one net saw when negotiated routing last searched it: the costs, the cells it
could enter and its box, kept so that ``mazeroute wavefront --mode negotiate`` can draw
that search's wavefront (a cost-weighted one) rather than sequential mode's.

:class:`~.negotiate.Negotiator` keeps a :class:`Seen` of the net named by its ``watch``
for every search of that net (each cost array copied, so only one net is watched) and
holds on to the one whose result the net took (:meth:`Watch.took`).

Examples
--------
>>> import numpy as np
>>> seen = Seen(np.full((2, 3), 16, np.int32), np.ones((2, 3), bool), (0, 0, 2, 1),
...             (0, 0), "iteration 1")
>>> distance_field(seen).tolist()                   # in base cell costs
[[0, 1, 2], [1, 2, 3]]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse
import scipy.sparse.csgraph

from ..engines import UNREACHED
from ..engines.weighted import COST_SCALE
from ..layout import Cell


@dataclass(frozen=True)
class Seen:
    """One search of a net: ``cost`` ``(H, W)`` (a cell's price to enter; a base cost
    is :data:`~mazeroute.engines.weighted.COST_SCALE`), ``passable`` ``(H, W)`` (cells
    the net could enter: free, and no other net's pin or reserved wire), its ``box``
    ``(x0, y0, x1, y1)``, its ``root`` pin and ``phase``, where the search ran (the
    iteration, or a phase after the loop) and ``unit``, the base cost of a cell in
    ``cost``."""

    cost: np.ndarray
    passable: np.ndarray
    box: tuple[int, int, int, int]
    root: Cell
    phase: str
    unit: int = COST_SCALE


class Watch:
    """The searches of net ``net`` (None: none watched), for :class:`Seen`."""

    def __init__(self, net: int | None = None):
        self.net = net
        self.last: Seen | None = None     # the latest search of the net
        self.taken: Seen | None = None    # the search whose route the net took last

    def look(self, search, cost: np.ndarray, requests, phase: str,
             unit: int = COST_SCALE) -> None:
        """Keep what the watched net sees in this call of ``search.route`` (``requests``:
        its :class:`~mazeroute.engines.weighted.NetRequest` list; ``unit``: a base cost in
        ``cost``), if it is among them."""
        if self.net is None:
            return
        for r in requests:
            if r.net == self.net:
                owner = np.asarray(search.owner).reshape(np.shape(cost))
                free = np.asarray(search.free).reshape(np.shape(cost))
                passable = free & ((owner == -1) | (owner == self.net))
                x, y = (int(v) for v in np.asarray(r.pins).reshape(-1, 2)[0])
                self.last = Seen(np.array(cost).reshape(passable.shape), passable,
                                 tuple(int(v) for v in r.box), (x, y), phase, unit)
                return

    def took(self, net: int) -> None:
        """Net ``net`` took the route of its latest search."""
        if net == self.net and self.last is not None:
            self.taken = self.last


def distance_field(seen: Seen) -> np.ndarray:
    """The wavefront of ``seen``'s search, grown from its root over the whole box: each
    cell's least cost from the root (a cell costs its price to enter), in base cell
    costs rounded down, as ``(H, W)`` uint32 levels, ``UNREACHED`` outside the box and
    where the net could not go. On unit costs these are the BFS levels."""
    h, w = seen.passable.shape
    x0, y0, x1, y1 = seen.box
    inside = np.zeros((h, w), bool)
    inside[y0:y1 + 1, x0:x1 + 1] = seen.passable[y0:y1 + 1, x0:x1 + 1]
    rx, ry = seen.root
    inside[ry, rx] = True
    out = np.full((h, w), UNREACHED, np.uint32)
    idx = np.flatnonzero(inside.ravel())
    pos = np.full(h * w, -1, np.int64)
    pos[idx] = np.arange(idx.size)
    cost = seen.cost.reshape(-1).astype(np.float64)
    src, dst = [], []
    for step, ok in ((1, (idx % w) < w - 1), (w, idx // w < h - 1)):
        a = idx[ok]
        b = a + step
        keep = inside.ravel()[b]
        src += [pos[a[keep]], pos[b[keep]]]
        dst += [pos[b[keep]], pos[a[keep]]]
    s, d = np.concatenate(src), np.concatenate(dst)
    graph = scipy.sparse.csr_matrix((cost[idx[d]], (s, d)), shape=(idx.size, idx.size))
    dist = scipy.sparse.csgraph.dijkstra(graph, indices=int(pos[ry * w + rx]))
    ok = np.isfinite(dist)
    out.ravel()[idx[ok]] = (dist[ok] // seen.unit).astype(np.uint32)
    return out
