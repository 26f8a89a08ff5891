"""Routing results: one :class:`NetRoute` per net and the :class:`RouteResult` of a run.

They are what every routing mode returns and what the routes file (FORMATS.md) is
written from.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ..backtrace import bends_many as _bends_many
from ..layout import Cell, Layout

ROUTES_FORMAT = "mazeroute-routes/1"


@dataclass
class NetRoute:
    """How one net was routed. ``cells`` is in path order for a two-pin net."""

    name: str
    pins: list[Cell]
    routed: bool = False
    order: int | None = None
    cells: list[Cell] = field(default_factory=list)
    length: int = 0
    bends: int = 0
    levels: int = 0
    seconds: float = 0.0
    #: Why an unrouted net is unrouted, in words (negotiate mode), else None.
    reason: str | None = None
    #: A multi-layer layout's net: its wire's vias (``length`` counts only its steps
    #: inside a layer); a 2-D net's routes file never states it.
    vias: int = 0

    def set_cells(self, xy: np.ndarray) -> None:
        """Set ``cells`` from a ``(k, 2)`` array of ``x, y``, turned into tuples when read.

        A thousand-net route has some 50,000 cells; as Python tuples they cost more than
        routing them on the GPU, and writing routes.json needs lists, not tuples.
        """
        self.__dict__["_cells"], self.__dict__["_xy"] = None, xy

    @classmethod
    def of_wire(cls, name: str, pins: list[Cell], xy: np.ndarray | None,
                order: int | None, bends: int, seconds: float) -> NetRoute:
        """A net's route as ``NetRoute(name, pins, bends=bends, seconds=seconds)`` and,
        for a wire ``xy`` (``(k, 2)`` array of ``x, y``; None: unrouted), ``routed``,
        ``order``, ``length`` and :meth:`set_cells` would make it: the fields set at once
        (a batched run builds a thousand routes, where the constructor's and the setters'
        per-field cost adds up to milliseconds)."""
        d = dict(_blank())
        d["name"], d["pins"], d["bends"], d["seconds"] = name, pins, bends, seconds
        if xy is not None:
            d["routed"], d["order"], d["length"], d["_xy"] = True, order, len(xy) - 1, xy
            d["_cells"] = None
        else:
            d["_cells"] = []               # its own list, never the blank's
        route = cls.__new__(cls)
        route.__dict__ = d
        return route

    def cell_array(self) -> np.ndarray:
        """``cells`` as a ``(k, 2)`` int64 array of ``x, y``; a route set by
        :meth:`set_cells` is not turned into tuples on the way."""
        xy = self.__dict__.get("_xy")
        if xy is None:
            xy = self.cells
        a = np.asarray(xy, np.int64)
        # a multi-layer layout's cells are (x, y, z): keep their three columns
        return a.reshape(-1, a.shape[1] if a.ndim == 2 else 2)

    def to_json(self, arrays: bool = False) -> dict:
        """The net's entry of a routes file; ``arrays``: ``cells`` as a ``(k, 2)`` int64
        array rather than lists (what :func:`mazeroute.contract.routes_text` writes
        without making a Python list per cell)."""
        cells = self.cell_array() if arrays else self.cell_array().tolist()
        out = {"name": self.name, "routed": self.routed, "order": self.order,
               "cells": cells, "length": self.length,
               # an unrouted net has no wire: no bends, in every mode (a tree's branches
               # found before it failed are not a wire)
               "bends": self.bends if self.routed else 0}
        if self.reason is not None:
            out["reason"] = self.reason
        return out

    def to_json3d(self) -> dict:
        """The net's entry of a multi-layer layout's routes file (version 1.2): cells
        ``[x, y, z]`` and, routed, its ``vias``."""
        out = {"name": self.name, "routed": self.routed, "order": self.order,
               "cells": [list(c) for c in self.cells], "length": self.length}
        if self.routed:
            out["vias"] = self.vias
        out["bends"] = self.bends if self.routed else 0
        if self.reason is not None:
            out["reason"] = self.reason
        return out


def _get_cells(self: NetRoute) -> list[Cell]:
    d = self.__dict__
    if d.get("_xy") is not None:
        d["_cells"], d["_xy"] = list(zip(*d["_xy"].T.tolist())), None
    return d["_cells"]


def _put_cells(self: NetRoute, cells: list[Cell]) -> None:
    self.__dict__["_cells"], self.__dict__["_xy"] = cells, None


# ``cells`` stays a dataclass field (init, repr, eq); reads go through the lazy getter.
NetRoute.cells = property(_get_cells, _put_cells)  # type: ignore[assignment]

_BLANK: dict = {}


def _blank() -> dict:
    """A new NetRoute's attributes with every field at its default (made once)."""
    if not _BLANK:
        _BLANK.update(NetRoute("", []).__dict__)
    return _BLANK


def wire_bends(cells: np.ndarray, pins: Sequence[Cell] | np.ndarray) -> int:
    """The bends of a net's wire, counted from its cells alone, alike in every mode.

    A wire of two pins is a path from one pin to the other: its bends are the cells where
    it turns. A tree is listed as the routers build it: the root pin, then each branch
    from the cell beside the tree it joins out to the pin it reaches (each branch ends
    at a pin, and no pin lies inside a branch). Its bends are those of every branch as a
    path that ends in the tree, where the branch continues straight into the tree cell
    ahead of it whenever that cell is in the tree already (the backtraces' rule), so the
    turn where a branch meets the tree counts only when it cannot go straight on. That
    is the sum of the bends of the branches' backtraced paths, which sequential mode
    reports.

    >>> import numpy as np
    >>> wire_bends(np.array([[0, 0], [1, 0], [1, 1]]), [(0, 0), (1, 1)])
    1
    >>> tree = np.array([[0, 0], [1, 0], [2, 0], [3, 0], [3, 1]])   # (3, 0) joins at (2, 0)
    >>> wire_bends(tree, [(0, 0), (2, 0), (3, 1)])
    1
    >>> tee = np.array([[0, 0], [1, 0], [2, 0], [1, 1], [1, 2]])     # (1, 1) goes straight on
    >>> wire_bends(tee, [(0, 0), (2, 0), (1, 2)])
    0
    """
    xy = np.asarray(cells, np.int64).reshape(-1, 2)
    if len(pins) <= 2 or len(xy) < 3:
        return int(_bends_many([xy])[0])
    w = int(xy[:, 0].max()) + 2
    flat = xy[:, 1] * w + xy[:, 0]
    where = {int(c): k for k, c in enumerate(flat.tolist())}
    pin_flat = {int(y) * w + int(x) for x, y in np.asarray(pins, np.int64).reshape(-1, 2)}
    ends = [k for k in range(1, len(xy)) if int(flat[k]) in pin_flat]
    if not ends or ends[-1] != len(xy) - 1:
        ends.append(len(xy) - 1)
    runs, starts = [xy[:ends[0] + 1]], [0]
    for a, b in zip(ends, ends[1:]):
        runs.append(xy[a + 1:b + 1])
        starts.append(a + 1)
    total = int(_bends_many(runs).sum())
    for run, start in zip(runs[1:], starts[1:]):
        if len(run) < 2:
            continue
        ahead = 2 * run[0] - run[1]
        if not (0 <= ahead[0] < w) or where.get(int(ahead[1] * w + ahead[0]), start) >= start:
            total += 1
    return total


def wires_bends(wires: Sequence[np.ndarray], pins: Sequence[Sequence[Cell]]) -> list[int]:
    """:func:`wire_bends` of every wire, the two-pin ones in one compiled pass."""
    two = [k for k, p in enumerate(pins) if len(p) <= 2]
    out = [0] * len(wires)
    for k, b in zip(two, _bends_many([wires[k] for k in two]).tolist()):
        out[k] = b
    for k, p in enumerate(pins):
        if len(p) > 2:
            out[k] = wire_bends(wires[k], p)
    return out


@dataclass(frozen=True)
class IterationStats:
    """One negotiation iteration: cells used by more than one net at its end, nets using
    such cells, nets ripped up and rerouted in it, its wall time and present factor;
    ``left``: seconds left at its end before the time limit or wait bound (None: none)."""

    iteration: int
    overused: int
    conflicts: int
    rerouted: int
    seconds: float
    pres_fac: float
    left: float | None = field(default=None, compare=False)


@dataclass(frozen=True)
class PhaseStats:
    """One phase of negotiated routing after its loop (``legalise``, ``repair``,
    ``tidy``, ``space-filling search``, ``exact windows`` (:mod:`.windows`), ``reasons``:
    why each unrouted net is unrouted,
    ``sequential floor``: sequential mode's routes compared), its wall time and the
    nets routed at its end."""

    phase: str
    seconds: float
    routed: int
    #: What the time limit did to the phase: ``""`` (nothing), ``"cut short"`` (it
    #: stopped part way, keeping what it had made) or ``"skipped"`` (it never started).
    cut: str = ""


@dataclass
class RouteResult:
    """Every net's route (file order), the engine used and the wall time.

    ``mode`` is the routing mode (``sequential`` or ``negotiate``); a negotiated result
    also has its per-iteration ``iterations``, the final ``history`` cost of every cell
    (``(height, width)`` float, in units of a cell's base cost), the ``phases`` after
    the loop and ``stop``: why the loop stopped with cells still shared (None when no
    cell was shared at the end).
    """

    layout: Layout
    nets: list[NetRoute]
    engine: str
    order: str
    seconds: float
    notice: str | None = None
    mode: str = "sequential"
    iterations: list[IterationStats] = field(default_factory=list)
    history: np.ndarray | None = None
    phases: list[PhaseStats] = field(default_factory=list)
    stop: str | None = None

    @property
    def routed(self) -> int:
        return sum(n.routed for n in self.nets)

    @property
    def wirelength(self) -> int:
        return sum(n.length for n in self.nets if n.routed)

    def to_json(self, arrays: bool = False) -> dict:
        """The routes file of FORMATS.md, version 1.1 (plus ``engine``, ``bends`` and an
        unrouted net's ``reason``); ``arrays``: each net's ``cells`` as an array
        (:meth:`NetRoute.to_json`). A multi-layer layout's is version 1.2's: its
        ``layers`` names, cells ``[x, y, z]`` (lists, ``arrays`` or not) and the nets'
        ``vias`` and their sum."""
        if self.layout.stack is not None:
            return self._to_json3d()
        return {"format": ROUTES_FORMAT, "layout": self.layout.name,
                "width": self.layout.width, "height": self.layout.height,
                "mode": self.mode, "engine": self.engine,
                "nets": [n.to_json(arrays) for n in self.nets]}

    def _to_json3d(self) -> dict:
        nets = [n.to_json3d() for n in self.nets]
        return {"format": ROUTES_FORMAT, "layout": self.layout.name,
                "width": self.layout.width, "height": self.layout.height,
                "layers": list(self.layout.stack.names), "mode": self.mode,
                "engine": self.engine, "vias": sum(n.vias for n in self.nets if n.routed),
                "nets": nets}
