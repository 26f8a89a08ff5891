"""Sequential maze routing (Lee's algorithm, PMPP section 15.2).

Nets are routed one after another. Each net's wavefront starts from its root pin (for
a net of more pins, from the whole tree built so far) and stops at the level where
the nearest unconnected pin is labelled; the backtracer turns the levels into a wire,
and the wire becomes a blockage for every later net. Pins of other nets are always
obstacles. A net that cannot be connected is reported unrouted and routing goes on.

Examples
--------
>>> from mazeroute.layout import parse_layout
>>> lay = parse_layout({"width": 5, "height": 3, "blockages": [[2, 0, 2, 1]],
...                     "nets": [{"name": "a", "pins": [[0, 0], [4, 0]]}]})
>>> res = route(lay, backend="cpu")
>>> net = res.nets[0]
>>> net.routed, net.length, net.bends
(True, 8, 3)
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from .backtrace import backtrace, bends
from .engines import Problem, make_problem, resolve
from .layout import Cell, Layout

ROUTES_FORMAT = "mazeroute-routes/1"
ORDERS = ("file", "hpwl")


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

    def to_json(self) -> dict:
        return {"name": self.name, "routed": self.routed, "order": self.order,
                "cells": [list(c) for c in self.cells], "length": self.length,
                "bends": self.bends}


@dataclass
class RouteResult:
    """Every net's route (file order), the engine used and the wall time."""

    layout: Layout
    nets: list[NetRoute]
    engine: str
    order: str
    seconds: float
    notice: str | None = None

    @property
    def routed(self) -> int:
        return sum(n.routed for n in self.nets)

    @property
    def wirelength(self) -> int:
        return sum(n.length for n in self.nets if n.routed)

    def to_json(self) -> dict:
        """The routes file of FORMATS.md, version 1 (plus ``engine`` and ``bends``)."""
        return {"format": ROUTES_FORMAT, "layout": self.layout.name,
                "width": self.layout.width, "height": self.layout.height,
                "engine": self.engine, "nets": [n.to_json() for n in self.nets]}


def net_order(layout: Layout, order: str = "file") -> list[int]:
    """Indices of the nets in routing order: file order, or shortest HPWL first."""
    if order == "file":
        return list(range(len(layout.nets)))
    if order == "hpwl":
        return sorted(range(len(layout.nets)), key=lambda i: (layout.nets[i].hpwl, i))
    raise ValueError(f"unknown net order {order!r}; choose from {', '.join(ORDERS)}")


class Router:
    """Routing state of one layout: the engine's problem and what is committed.

    Parameters
    ----------
    layout : the layout to route
    backend, strategy : engine choice, as in :func:`mazeroute.engines.resolve`
    """

    def __init__(self, layout: Layout, backend: str = "auto", strategy: str | None = None):
        self.layout = layout
        self.grid = layout.grid()
        spec, self.notice = resolve(backend, strategy, self.grid)
        self.problem: Problem = make_problem(self.grid, spec.backend, spec.strategy)
        self.engine = f"{spec.backend}/{spec.strategy}"
        self.committed = 0
        pins = [p for net in layout.nets for p in net.pins]
        if pins:
            self.problem.set_blocked(self.grid.vertices(pins))

    def route_net(self, index: int) -> NetRoute:
        """Route net ``index`` against everything committed so far, and commit it."""
        net = self.layout.nets[index]
        result = NetRoute(net.name, list(net.pins))
        start = time.perf_counter()
        pins = self.grid.vertices(net.pins)
        self.problem.set_blocked(pins, False)
        tree: list[np.ndarray] = [np.array([net.pins[0]], dtype=np.int64)]
        remaining = list(net.pins[1:])
        while remaining:
            sources = np.concatenate(tree)
            wave = self.problem.wavefront(self.grid.vertices(sources),
                                          self.grid.vertices(remaining))
            result.levels += wave.num_levels
            if wave.target is None:
                break
            target = self.grid.cell(wave.target)
            window = _window(self.grid.shape, sources, target, wave.target_level)
            path = backtrace(wave.levels(window), target, (window[2], window[0]))
            result.bends += bends(path)
            tree.append(path[:-1][::-1])     # the last cell is already in the tree
            remaining.remove(target)
        if remaining:
            self.problem.set_blocked(pins)
        else:
            cells = np.concatenate(tree)
            self.problem.set_blocked(self.grid.vertices(cells))
            result.routed, result.order = True, self.committed
            result.cells = list(map(tuple, cells.tolist()))
            result.length = len(result.cells) - 1
            self.committed += 1
        result.seconds = time.perf_counter() - start
        return result

    def full_wavefront(self, index: int) -> np.ndarray:
        """Levels of a complete wavefront from net ``index``'s root, given the state now."""
        net = self.layout.nets[index]
        pins = self.grid.vertices(net.pins)
        self.problem.set_blocked(pins, False)
        try:
            return self.problem.wavefront(pins[:1]).levels()
        finally:
            self.problem.set_blocked(pins)

    def run(self, order: str = "file",
            progress: Callable[[int, int, NetRoute], None] | None = None) -> RouteResult:
        """Route every net in ``order``; results come back in file order."""
        start = time.perf_counter()
        sequence = net_order(self.layout, order)
        results: dict[int, NetRoute] = {}
        for k, i in enumerate(sequence):
            results[i] = self.route_net(i)
            if progress:
                progress(k + 1, len(sequence), results[i])
        return RouteResult(self.layout, [results[i] for i in range(len(self.layout.nets))],
                           self.engine, order, time.perf_counter() - start, self.notice)


def route(layout: Layout, *, backend: str = "auto", strategy: str | None = None,
          order: str = "file") -> RouteResult:
    """Route every net of ``layout`` sequentially; see :class:`Router`."""
    return Router(layout, backend, strategy).run(order)


def _window(shape, sources: np.ndarray, target: Cell, level: int) -> tuple[int, int, int, int]:
    """The part of the grid any shortest path from ``sources`` to ``target`` stays in.

    A cell ``c`` on such a path has ``d(s, c) + d(c, t) = level`` and Manhattan distance
    never exceeds grid distance, so for one source ``c`` lies in the box of the pins
    grown by half the slack; for many sources, within ``level`` of the target and of
    the sources' box.
    """
    h, w = shape
    tx, ty = target
    if len(sources) == 1:
        sx, sy = (int(v) for v in sources[0])
        slack = (level - abs(sx - tx) - abs(sy - ty)) // 2
        x0, x1 = min(sx, tx) - slack, max(sx, tx) + slack
        y0, y1 = min(sy, ty) - slack, max(sy, ty) + slack
    else:
        lo, hi = sources.min(axis=0), sources.max(axis=0)
        x0, x1 = max(tx - level, int(lo[0]) - level), min(tx + level, int(hi[0]) + level)
        y0, y1 = max(ty - level, int(lo[1]) - level), min(ty + level, int(hi[1]) + level)
    return max(0, y0), min(h, y1 + 1), max(0, x0), min(w, x1 + 1)
