"""The shapes of pattern routing and their prices, on NumPy or CuPy alike.

An edge of a net's tree, from its parent point ``a`` to its child point ``b``, is routed
as one of its pattern shapes: three runs, horizontal-vertical-horizontal or the other
way round, the middle run on any line between the two ends (the Z shapes; with the
middle run on an end's line a first or last run has no step, which gives the two L
shapes, and a straight edge has one shape). Each run lies on one layer that carries its
direction; a via stack joins consecutive runs at their bend. A run's cost on every layer
is read from prefix sums of the node costs along that layer's rows or columns, so every
shape of every edge is priced by a few array operations, and the layers of a shape are
chosen exactly by a dynamic programme along its three runs (a distance transform along
the layers at each bend). Costs are integers and the first of equal candidates wins, so
NumPy and CuPy give the same choices.

Examples
--------
>>> cost = node_costs(np, np.zeros((2, 3, 4), np.int64), np.full((2, 3, 4), 2),
...                   np.ones((2, 3, 4), bool))
>>> prices = Prices(np, cost, np.array([True, False]), np.array([False, True]), 2 * UNIT)
>>> prices.run(True, np.array([0]), np.array([0]), np.array([3])).tolist()
[[64, 17592186044416]]
"""

from __future__ import annotations

import numpy as np

from ..engines.base import host

__all__ = ["UNIT", "BLOCK", "INF", "scatter", "host", "node_costs", "Prices",
           "Segments", "best_shapes", "shape_of"]

#: A node step's cost with no use.
UNIT = 16
#: One track past capacity costs this many steps: a few vias are worth one less overflow.
OVER = 8
#: Overflow counted up to this many tracks a node (keeps the sums in 64 bits).
OVER_CAP = 64
#: A blocked node's cost: a tree through one is impossible.
BLOCK = 1 << 30
#: Impossible: a run along a layer of the other direction; every sum is clipped here.
INF = 1 << 44
#: Cells of ``(candidates, layers)`` tables priced at once.
CHUNK_CELLS = 1 << 21


def scatter(xp, op: str, out, at, values) -> None:
    """``out[at] = op(out[at], values)`` with repeated indices (``min``, ``max``, ``add``)."""
    if xp is np:
        {"min": np.minimum, "max": np.maximum, "add": np.add}[op].at(out, at, values)
    else:
        import cupyx
        {"min": cupyx.scatter_min, "max": cupyx.scatter_max,
         "add": cupyx.scatter_add}[op](out, at, values)


def node_costs(xp, usage, capacity, free):
    """Each node's cost for one more net: ``UNIT``, one more ``UNIT`` once its use has
    reached capacity, ``OVER`` steps a track past it, ``BLOCK`` where blocked."""
    cap = xp.maximum(capacity, 1)
    over = xp.clip(usage + 1 - capacity, 0, OVER_CAP)
    cost = UNIT + UNIT * xp.minimum(usage, cap) // cap + UNIT * OVER * over
    return xp.where(free, cost, BLOCK)


class Prices:
    """Prefix sums of the node costs along every layer's rows and columns; the costs of
    runs, and the dynamic programme over a shape's layers. With ``kernels`` (a
    :class:`~mazeroute.engines.gpu_pattern.PatternKernels`) the candidates are priced by
    its kernel, a thread each, to the same keys."""

    def __init__(self, xp, cost, along_x, along_y, via_unit: int, kernels=None):
        self.xp, self.via, self.kernels = xp, via_unit, kernels
        L, ny, nx = cost.shape
        self.ph = xp.zeros((L, ny, nx + 1), np.int64)
        self.ph[:, :, 1:] = xp.cumsum(cost, axis=2)
        self.pv = xp.zeros((L, nx, ny + 1), np.int64)
        self.pv[:, :, 1:] = xp.cumsum(cost.transpose(0, 2, 1), axis=2)
        self.along = (xp.asarray(along_x), xp.asarray(along_y))
        self.z = xp.arange(L, dtype=np.int64)

    def run(self, horizontal: bool, line, a, b):
        """``(n, L)``: each run's cost on each layer (a run of no step costs nothing on
        any layer, one along a layer's other direction is impossible)."""
        xp = self.xp
        p = self.ph if horizontal else self.pv
        lo, hi = xp.minimum(a, b), xp.maximum(a, b)
        v = xp.where(self.along[0 if horizontal else 1][None],
                     (p[:, line, hi + 1] - p[:, line, lo]).T, INF)
        return xp.where((hi > lo)[:, None], v, 0)

    def stacked(self, s):
        """The least of ``s[z'] + via * |z - z'|`` for each layer ``z``: ``s`` reached
        through a via stack (a distance transform along the layers, up then down)."""
        s = s.copy()
        for z in range(1, s.shape[1]):
            s[:, z] = self.xp.minimum(s[:, z], s[:, z - 1] + self.via)
        for z in range(s.shape[1] - 2, -1, -1):
            s[:, z] = self.xp.minimum(s[:, z], s[:, z + 1] + self.via)
        return s

    def back(self, c1, c2, c3, end):
        """The cost from each run's layer to the far end (whose cost on arriving on
        each layer is ``end``), last run first: ``t1, t2, t3``, each ``(n, L)``."""
        xp = self.xp
        t3 = xp.minimum(c3 + end, INF)
        t2 = xp.minimum(c2 + self.stacked(t3), INF)
        t1 = xp.minimum(c1 + self.stacked(t2), INF)
        return t1, t2, t3

    def forward(self, z1, t2, t3):
        """The middle and last runs' layers after a first run on ``z1`` (the first
        layer among equals)."""
        xp, z = self.xp, self.z[None]
        z2 = (t2 + self.via * xp.abs(z - z1[:, None])).argmin(axis=1)
        z3 = (t3 + self.via * xp.abs(z - z2[:, None])).argmin(axis=1)
        return z2.astype(np.int64), z3.astype(np.int64)


class Segments:
    """Tree edges: their nets and their ends ``(x, y)``, parent ``a`` and child ``b``."""

    def __init__(self, xp, net, xa, ya, xb, yb):
        self.xp, self.net, self.xa, self.ya, self.xb, self.yb = xp, net, xa, ya, xb, yb

    def take(self, at) -> Segments:
        return Segments(self.xp, *(v[at] for v in (self.net, self.xa, self.ya, self.xb,
                                                    self.yb)))

    def counts(self):
        """How many shapes start horizontally, how many vertically, and whether each
        edge is diagonal (straight edges have one shape)."""
        xp = self.xp
        dx, dy = self.xb - self.xa, self.yb - self.ya
        diag = (dx != 0) & (dy != 0)
        nh = xp.where(diag, xp.abs(dx) + 1, xp.where(dy == 0, 1, 0))
        nv = xp.where(diag, xp.abs(dy) + 1, xp.where(dx == 0, 1, 0))
        return nh, nv, diag

    def middles(self, first_h: bool, seg, local, diag):
        """The middle run's line of shape ``local`` of edge ``seg``: Z shapes step from
        a's line towards b's; a straight edge's has it on b's."""
        xp = self.xp
        a, b = (self.xa, self.xb) if first_h else (self.ya, self.yb)
        a, b = a[seg], b[seg]
        return xp.where(diag[seg], a + xp.sign(b - a) * local, b)

    def runs(self, prices: Prices, first_h, seg, mid):
        """The three runs' costs per layer of the shapes of ``seg`` with middles ``mid``
        (``first_h`` one bool for all, or one each)."""
        if first_h is True or first_h is False:
            xa, ya, xb, yb = self.xa[seg], self.ya[seg], self.xb[seg], self.yb[seg]
            if first_h:
                return (prices.run(True, ya, xa, mid), prices.run(False, mid, ya, yb),
                        prices.run(True, yb, mid, xb))
            return (prices.run(False, xa, ya, mid), prices.run(True, mid, xa, xb),
                    prices.run(False, xb, mid, yb))
        xp = self.xp
        out = [xp.zeros((len(seg), len(prices.z)), np.int64) for _ in range(3)]
        for flag in (True, False):
            at = xp.nonzero(first_h == flag)[0]
            if len(at):
                for o, v in zip(out, self.runs(prices, flag, seg[at], mid[at])):
                    o[at] = v
        return tuple(out)

    def corners(self, first_h, mid):
        """The four corners ``(n, 4, 2)`` of each edge's shape."""
        xp = self.xp
        p1 = xp.where(first_h[:, None], xp.stack([mid, self.ya], 1),
                      xp.stack([self.xa, mid], 1))
        p2 = xp.where(first_h[:, None], xp.stack([mid, self.yb], 1),
                      xp.stack([self.xb, mid], 1))
        return xp.stack([xp.stack([self.xa, self.ya], 1), p1, p2,
                         xp.stack([self.xb, self.yb], 1)], axis=1)


def best_shapes(segs: Segments, prices: Prices, end):
    """For each edge and each layer its first run may take at ``a``, the cheapest shape
    to ``b`` (whose cost on arriving on each layer is ``end``, ``(n, L)``).

    Returns
    -------
    cost, key : (n, L) int arrays
        The cost, and which shape: ``key`` is the shape's index among the edge's (its
        horizontal-first shapes first), the first of equals.
    """
    xp = segs.xp
    n, L = end.shape
    nh, nv, diag = segs.counts()
    bits = max(1, int(host((nh + nv).max()).item()).bit_length())
    best = xp.full(n * L, np.iinfo(np.int64).max, np.int64)
    chunk = max(1, CHUNK_CELLS // L)
    for first_h, count, offset in ((True, nh, xp.zeros_like(nh)), (False, nv, nh)):
        total = int(host(count.sum()).item())
        starts = xp.cumsum(count) - count
        for at in range(0, total, chunk):
            k = xp.arange(at, min(total, at + chunk), dtype=np.int64)
            seg = xp.searchsorted(starts + count, k, side="right")
            local = k - starts[seg]
            mid = segs.middles(first_h, seg, local, diag)
            if prices.kernels is not None:
                prices.kernels.shapes(prices.ph, prices.pv, *prices.along, prices.via,
                                      first_h, (segs.xa[seg], segs.ya[seg], segs.xb[seg],
                                                segs.yb[seg]), mid, seg,
                                      offset[seg] + local, end, bits, best)
                continue
            c1, c2, c3 = segs.runs(prices, first_h, seg, mid)
            t1 = prices.back(c1, c2, c3, end[seg])[0]
            key = (t1 << bits) | (offset[seg] + local)[:, None]
            scatter(xp, "min", best, (seg[:, None] * L + prices.z[None]).reshape(-1),
                    key.reshape(-1))
    best = best.reshape(n, L)
    return best >> bits, best & ((1 << bits) - 1)


def shape_of(segs: Segments, key):
    """The shape ``key`` of each edge: whether it starts horizontally, and its middle
    run's line."""
    xp = segs.xp
    nh, _, diag = segs.counts()
    first_h = key < nh
    seg = xp.arange(len(key), dtype=np.int64)
    mid = xp.where(first_h, segs.middles(True, seg, key, diag),
                   segs.middles(False, seg, key - nh, diag))
    return first_h, mid
