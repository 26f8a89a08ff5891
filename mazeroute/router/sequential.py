"""Sequential maze routing (Lee's algorithm, PMPP section 15.2).

Nets are routed one after another. Each net's wavefront starts from its root pin (for
a net of more pins, from the whole tree built so far) and stops at the level where
the nearest unconnected pin is labelled; the backtracer turns the levels into a wire,
and the wire becomes a blockage for every later net. Pins of other nets are always
obstacles. A net that cannot be connected is reported unrouted and routing goes on.

On an engine that offers a batched search (``gpu/grid``, see
:mod:`mazeroute.engines.gpu_batch`) :meth:`Router.run` routes nets of up to
:data:`~mazeroute.engines.gpu_batch.MAX_PINS` pins many at a time, one GPU launch per
batch (:mod:`.batched`, which :mod:`.schedule` tells which nets go in which launch), with
results identical to the one-net-at-a-time loop: every net is searched on the blockages
as of its own turn, and a result that an earlier net's wire could still change is
redone. Nets of more pins go in groups of disjoint boxes through the weighted
net search, each tree certified to be the whole grid's (:mod:`.grouped`).

Examples
--------
>>> from mazeroute.readers import parse_layout
>>> lay = parse_layout({"width": 5, "height": 3, "blockages": [[2, 0, 2, 1]],
...                     "nets": [{"name": "a", "pins": [[0, 0], [4, 0]]}]})
>>> res = Router(lay, backend="cpu").run()
>>> net = res.nets[0]
>>> net.routed, net.length, net.bends
(True, 8, 3)
"""

from __future__ import annotations

import time
from collections.abc import Callable
from itertools import chain

import numpy as np

from ..backtrace import backtrace, bends
from ..engines import Problem, device_errors, first_line, make_problem
from ..engines import gpu_batch as gb
from ..errors import EngineUnavailable
from ..layout import Cell, Layout
from ..plan import Plan, make_plan
from .batched import route_batched
from .result import NetRoute, RouteResult

ORDERS = ("file", "hpwl")


def _pin_coords(nets) -> np.ndarray:
    """The nets' pins as one flat int64 array ``x, y, x, y, ...`` (one pass, not np.array
    over a list of lists of tuples, which costs more than the routing of short nets)."""
    return np.fromiter(chain.from_iterable(chain.from_iterable(net.pins for net in nets)),
                       np.int64)


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
    backend, strategy : the request the planner decides on
        (:func:`mazeroute.plan.make_plan`, ``mode="sequential"``)
    plan : a plan made for this layout already (``backend`` and ``strategy`` are then
        not read)

    Attributes
    ----------
    batch : the engine's batched search (:func:`mazeroute.engines.gpu_batch.batch_device`),
        used by :meth:`run`; None routes one net at a time. Tests may swap in another
        object with the same methods.
    plan : the planner's choices this router runs on (after a GPU fault, the fallback's)

    Raises
    ------
    InputError
        For an unknown backend or strategy.
    EngineUnavailable
        For a backend this machine cannot run.

    Examples
    --------
    >>> from mazeroute.readers import parse_layout
    >>> lay = parse_layout({"width": 6, "height": 4, "nets": [
    ...     {"name": "clk", "pins": [[0, 0], [5, 3]]}, {"name": "d", "pins": [[0, 3], [2, 3]]}]})
    >>> router = Router(lay, "cpu")
    >>> res = router.run("hpwl")               # shortest half-perimeter first
    >>> router.engine, [n.order for n in res.nets]
    ('cpu/grid', [1, 0])
    """

    def __init__(self, layout: Layout, backend: str = "auto", strategy: str | None = None,
                 plan: Plan | None = None):
        self.layout = layout
        self.grid = layout.grid()
        pins = _pin_coords(layout.nets)
        # net i's pins as rows x, y of pin_xy from pin_start[i] on (the batched loop's input)
        self.pin_xy = pins.reshape(-1, 2)
        self.pin_count = np.fromiter((len(net.pins) for net in layout.nets), np.int64,
                                     len(layout.nets))
        self.pin_start = np.cumsum(self.pin_count) - self.pin_count
        self.plan = plan or make_plan(layout, backend, strategy, mode="sequential")
        self.notice = self.plan.notice
        # auto's choice of the CPU on a machine without a GPU: the command line says it
        # once on stderr; a result notes only what happened while routing
        self._machine_notice = self.notice
        self.engine = self.plan.engine
        self.committed = 0
        self.batches = 0                 # batched launches of the last run
        #: Whether a batched run searches nets of 3 to ``MAX_PINS`` pins in its batches
        #: (as trees); else they go as barriers, like nets of more pins. The same wires
        #: either way.
        self.batch_trees = True
        #: Whether a batched run searches its barrier nets of more than two pins in
        #: groups (:mod:`.grouped`); the same wires either way.
        self.group_search = True
        self.grouped = 0                 # nets of the last run committed from group searches
        #: Nets of the last batched run proven unroutable without a search (their pins
        #: lay in different components of the free cells); the same results either way.
        self.proven = 0
        self._wires: list[np.ndarray] = []     # committed wires' vertices, in order
        try:
            self._build(self.plan)
        except device_errors() as e:
            self._device_failed(e)

    def _build(self, plan: Plan) -> None:
        """The planned engine's problem with every pin and committed wire blocked."""
        self.problem: Problem = make_problem(self.grid, plan=plan)
        self.plan = plan
        self.engine = plan.engine
        blocked = [self.grid.vertices(self.pin_xy), *self._wires]
        cells = np.concatenate(blocked) if blocked else np.zeros(0, np.int64)
        if cells.size:
            self.problem.set_blocked(cells)
        self.batch = gb.batch_device(self.problem)

    def _device_failed(self, e: BaseException) -> None:
        """A GPU fault (out of memory, a CUDA error): where the plan has a fallback (under
        ``auto``), go on with its engine from the state committed so far, with a notice;
        else one clear error."""
        if self.plan.fallback is None or not self.engine.startswith("gpu"):
            raise EngineUnavailable(f"the GPU engine failed: {first_line(e)}") from None
        failed = self.engine
        self._build(make_plan(self.layout, self.plan.fallback, None, mode="sequential"))
        self.notice = f"{failed} failed ({first_line(e)}); using the CPU engine"

    def route_net(self, index: int) -> NetRoute:
        """Route net ``index`` against everything committed so far, and commit it."""
        try:
            return self.search_net(index)
        except device_errors() as e:
            self._device_failed(e)
            return self.search_net(index)

    def search_net(self, index: int) -> NetRoute:
        """Route net ``index`` against everything committed so far, and commit it; a
        device fault is the caller's (:meth:`route_net` and :meth:`run` handle it)."""
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
            host = wave.host_levels()
            if host is not None:
                path = backtrace(host, target)
            else:      # only a window of the levels comes down from the device
                window = _window(self.grid.shape, sources, target, wave.target_level)
                path = backtrace(wave.levels(window), target, (window[2], window[0]))
            result.bends += bends(path)
            tree.append(path[:-1][::-1])     # the last cell is already in the tree
            remaining.remove(target)
        if remaining:
            self.problem.set_blocked(pins)
        else:
            self._commit(result, np.concatenate(tree))
        result.seconds = time.perf_counter() - start
        return result

    def _commit(self, result: NetRoute, cells: np.ndarray) -> None:
        """Block the wire ``cells`` (its pins included) for every later net, and record
        it as ``result``'s."""
        wire = self.grid.vertices(cells)
        self.problem.set_blocked(wire)
        self._wires.append(wire)
        result.routed, result.order = True, self.committed
        result.set_cells(cells)
        result.length = len(cells) - 1
        self.committed += 1

    def commit_tree(self, index: int, cells: np.ndarray, levels: int, turns: int,
                    seconds: float) -> NetRoute:
        """Commit net ``index``'s tree found by a group search (:mod:`.grouped`, which
        certified it to be the tree :meth:`search_net` would find)."""
        net = self.layout.nets[index]
        result = NetRoute(net.name, list(net.pins), levels=levels, bends=turns,
                          seconds=seconds)
        self._commit(result, np.asarray(cells, np.int64))
        return result

    def full_wavefront(self, index: int) -> np.ndarray:
        """Levels of a complete wavefront from net ``index``'s root, given the state now."""
        try:
            return self._full_wavefront(index)
        except device_errors() as e:
            self._device_failed(e)
            return self._full_wavefront(index)

    def _full_wavefront(self, index: int) -> np.ndarray:
        net = self.layout.nets[index]
        pins = self.grid.vertices(net.pins)
        self.problem.set_blocked(pins, False)
        try:
            return self.problem.wavefront(pins[:1]).levels()
        finally:
            self.problem.set_blocked(pins)

    def run(self, order: str = "file",
            progress: Callable[[int, int, NetRoute], None] | None = None,
            max_unrouted: int | None = None) -> RouteResult | None:
        """Route every net in ``order``; results come back in file order.

        ``max_unrouted``: give up, returning None, as soon as more than this many nets
        are certain to stay unrouted (a caller that only needs the result when it
        routes enough nets is spared the rest of the run; None: never).

        A GPU fault under ``backend="auto"`` restarts the run on the CPU engine (see
        :attr:`notice`); with ``backend="gpu"`` it is an
        :class:`~mazeroute.errors.EngineUnavailable` error.
        """
        start = time.perf_counter()
        sequence = net_order(self.layout, order)
        committed, wires = self.committed, len(self._wires)
        try:
            results = self._run(sequence, progress, max_unrouted)
        except device_errors() as e:
            self.committed = committed
            del self._wires[wires:]
            self._device_failed(e)
            results = self._run(sequence, progress, max_unrouted)
        if results is None:
            return None
        return RouteResult(self.layout, [results[i] for i in range(len(self.layout.nets))],
                           self.engine, order, time.perf_counter() - start,
                           None if self.notice == self._machine_notice else self.notice)

    def _run(self, sequence: list[int], progress,
             max_unrouted: int | None = None) -> dict[int, NetRoute] | None:
        self.batches = 0
        batched = None
        if self.batch is not None and sequence:
            done = route_batched(self, sequence, max_unrouted)
            self.batches, self.proven, self.grouped = done.batches, done.proven, done.grouped
            if done.results is None:
                return None
            # the routing order renumbered: nets routed alone were committed out of turn
            self.committed = done.committed
            batched = done.results
        results: dict[int, NetRoute] = {}
        lost = 0
        for k, i in enumerate(sequence):
            results[i] = batched[i] if batched is not None else self.search_net(i)
            lost += not results[i].routed
            if max_unrouted is not None and lost > max_unrouted:
                return None
            if progress:
                progress(k + 1, len(sequence), results[i])
        return results


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
