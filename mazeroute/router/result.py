"""Routing results: one :class:`NetRoute` per net and the :class:`RouteResult` of a run.

They are what every routing mode returns and what the routes file (FORMATS.md) is
written from.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

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
        return np.asarray(xy, np.int64).reshape(-1, 2)

    def to_json(self, arrays: bool = False) -> dict:
        """The net's entry of a routes file; ``arrays``: ``cells`` as a ``(k, 2)`` int64
        array rather than lists (what :func:`mazeroute.contract.routes_text` writes
        without making a Python list per cell)."""
        cells = self.cell_array() if arrays else self.cell_array().tolist()
        out = {"name": self.name, "routed": self.routed, "order": self.order,
               "cells": cells, "length": self.length, "bends": self.bends}
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


@dataclass(frozen=True)
class IterationStats:
    """One negotiation iteration: cells used by more than one net at its end, nets using
    such cells, nets ripped up and rerouted in it, its wall time and present factor."""

    iteration: int
    overused: int
    conflicts: int
    rerouted: int
    seconds: float
    pres_fac: float


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
        (:meth:`NetRoute.to_json`)."""
        return {"format": ROUTES_FORMAT, "layout": self.layout.name,
                "width": self.layout.width, "height": self.layout.height,
                "mode": self.mode, "engine": self.engine,
                "nets": [n.to_json(arrays) for n in self.nets]}
