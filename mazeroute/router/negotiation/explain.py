"""Why a net stays unrouted: in conflict, walled off by wires, enclosed by pins or cut
off by blockages: :class:`Explain`, a part of
:class:`~mazeroute.router.negotiate.Negotiator`.
"""

from __future__ import annotations

import numpy as np

from ...engines.costs import COST_DTYPE, COST_MAX
from ...engines.weighted import NetRequest
from ...layout import Layout
from ..result import RouteResult

__all__ = ["Explain", "names"]

_NO_CELLS = np.zeros(0, np.int64)
#: Nets named in a reason before "and N more".
_NAMES = 4


def names(layout: Layout, nets) -> str:
    """The names of ``nets`` (indices) of ``layout``, the first few and how many more.

    Examples
    --------
    >>> from mazeroute.layout import Layout, Net
    >>> lay = Layout("l", 9, 9, nets=[Net(str(i), [(i, 0), (i, 8)]) for i in range(6)])
    >>> names(lay, {5, 0, 2, 3, 1})
    '0, 1, 2, 3 and 1 more'
    """
    names = [layout.nets[i].name for i in sorted(nets)]
    more = len(names) - _NAMES
    return ", ".join(names[:_NAMES]) + (f" and {more} more" if more > 0 else "")


class Explain:
    """Reasons of unrouted nets (see :class:`~mazeroute.router.negotiate.Negotiator`)."""

    def _explain(self, result: RouteResult, iterations: int, negotiated: bool = True) -> None:
        """Set the reason of every unrouted net of ``result`` (``negotiated``: the
        routes are this negotiation's, so nets dropped by legalise were in conflict)."""
        todo = [i for i, r in enumerate(result.nets) if not r.routed]
        if not todo:
            return
        h, w = self.shape
        whole = (0, 0, w - 1, h - 1)
        # the grid of wires and the search across them are made at the first net that
        # searches: where every unrouted net is in conflict, none does
        wires = wire_cost = wire_search = None
        changed = None                  # the costs are sent at the first search only
        for i in todo:
            if negotiated and i in self.conflicts:
                result.nets[i].reason = (f"still in conflict with nets "
                                         f"{names(self.layout, self.conflicts[i])} after "
                                         f"{iterations} iterations")
                continue
            if self._late("reasons"):
                result.nets[i].reason = f"unrouted when the {self.limit_words} ran out"
                continue
            if wires is None:
                wires, wire_cost = self._wires_grid(result, negotiated)
                wire_search = self._pin_search()
            xy = wire_search.route(wire_cost, [NetRequest(i, self.pins[i], whole)],
                                   changed)[0]
            changed = _NO_CELLS
            if xy is not None:
                by = set(wires[xy[:, 1], xy[:, 0]].tolist()) - {-1, i}
                result.nets[i].reason = ("walled off by the wires of nets "
                                         + names(self.layout, by))
                continue
            result.nets[i].reason = self._enclosure(i)

    def _wires_grid(self, result: RouteResult, negotiated: bool = False
                    ) -> tuple[np.ndarray, np.ndarray]:
        """Each cell's wire in ``result`` (-1: none), and costs across them: wires
        passable but dear, pins as always, to find which wires wall a net off.
        ``negotiated``: ``result`` holds this negotiation's routes as they are now, whose
        flat cells the book has (a net at a time from ``result`` is a share of the
        reasons' time on the largest layouts)."""
        h, w = self.shape
        if negotiated:
            flat, who = self._wired()
        else:
            routed = [i for i, r in enumerate(result.nets) if r.routed]
            cells = [result.nets[i].cell_array() for i in routed]
            xy = np.concatenate(cells) if cells else np.zeros((0, 2), np.int64)
            flat = xy[:, 1] * w + xy[:, 0]
            who = np.repeat(np.asarray(routed, np.int64), [len(c) for c in cells])
        wires = np.full(h * w, -1, np.int32)
        wires[flat] = who
        wire_cost = np.ones(h * w, COST_DTYPE)
        wire_cost[flat] = COST_MAX
        return wires.reshape(h, w), wire_cost.reshape(h, w)

    def _enclosure(self, i: int) -> str:
        """Why net ``i`` has no route even through other nets' wires: the pins of other
        nets around the smallest piece of free space holding one of its pins (the first
        in raster order among equals), or blockages alone.

        Each pin's piece is labelled in a window round it, grown (4x a side) until the
        piece does not touch a side that is not the grid's; a pin whose piece already
        has more cells in its window than the smallest whole piece found stops growing,
        so a pocket costs a small labelling even when another pin sees the whole grid."""
        pending = [tuple(p) for p in self.pins[i].tolist()]
        whole: list[tuple[int, int, np.ndarray, tuple[int, int]]] = []
        r = 32
        while pending:
            grow = []
            for x, y in pending:
                count, piece = self._piece(i, x, y, r)
                if piece is None:
                    grow.append((x, y, count))
                else:
                    whole.append((count, *piece))
            best = min(whole, key=lambda p: p[:2]) if whole else None
            pending = [(x, y) for x, y, count in grow if best is None or count <= best[0]]
            r *= 4
        _, _, inside, (x0, y0) = best
        inside = np.pad(inside, 1)
        rim = (inside[:-2, 1:-1] | inside[2:, 1:-1] | inside[1:-1, :-2] | inside[1:-1, 2:])
        h, w = rim.shape
        owner = self.owner[y0:y0 + h, x0:x0 + w]
        others = set(owner[rim & (owner >= 0) & (owner != i)].tolist())
        if not others:
            return "cut off from its pins by blockages"
        return f"enclosed by the pins of nets {names(self.layout, others)}"

    def _piece(self, i: int, x: int, y: int, r: int):
        """The piece of free space (cells net ``i`` may enter) holding ``(x, y)``, seen in
        the window of half-side ``r`` round it: its cells there, and, when it touches no
        side of the window that is not the grid's (so it is whole), the flat index of its
        first cell in raster order, its mask in the window grown by its rim, and that
        window's corner (else None)."""
        h, w = self.shape
        x0, y0 = max(0, x - r), max(0, y - r)
        x1, y1 = min(w, x + r + 1), min(h, y + r + 1)
        owner = self.owner[y0:y1, x0:x1]
        passable = self.free[y0:y1, x0:x1] & ((owner == -1) | (owner == i))
        # loaded when a net is explained, not by every router that imports this module
        import scipy.ndimage

        label, _ = scipy.ndimage.label(passable)
        piece = label == label[y - y0, x - x0]
        count = int(piece.sum())
        if ((x0 > 0 and piece[:, 0].any()) or (y0 > 0 and piece[0].any())
                or (x1 < w and piece[:, -1].any()) or (y1 < h and piece[-1].any())):
            return count, None
        # the window's raster order is the grid's, restricted to it
        fy, fx = divmod(int(np.argmax(piece)), x1 - x0)
        ex0, ey0 = max(0, x0 - 1), max(0, y0 - 1)
        ex1, ey1 = min(w, x1 + 1), min(h, y1 + 1)
        mask = np.zeros((ey1 - ey0, ex1 - ex0), bool)
        mask[y0 - ey0:y1 - ey0, x0 - ex0:x1 - ex0] = piece
        return count, ((fy + y0) * w + fx + x0, mask, (ex0, ey0))
