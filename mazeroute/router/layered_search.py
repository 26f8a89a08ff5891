"""Where a multi-layer net's searches run: the CPU engines over the whole grid
(:class:`CPUTrees`), or the GPU's box sweeps over a window around the net
(:class:`GPUTrees`), with the same trees from both.

A window is a box of the grid around the search's sources and targets, spanning every
layer. Its distances are those of paths that stay inside it, so they can only be dearer
than the grid's. The window's answer is kept when it is provably the grid's: every path
that leaves the window passes a cell ``b`` on a side of it that borders more grid,
having cost at least ``d(b)`` to get there, and needs one step out and one step back in,
each costing at least 1. So when the nearest target's distance is below
``min d(b) + 2`` over those sides, no shortest path to it, nor to any other target at
most as far, leaves the window, and the shortest-path DAG behind it (all the backtrace
reads) is the grid's. When no target is reached and no such side cell either, nothing
outside is reachable. When no target is reached but a side is, each target's *pocket*
is asked: what the target reaches in a window of the same margin around it; when that
holds none of the sources and touches no side bordering more grid, the target is
unreachable, and when every target is, the search is over without flooding the grid
(moves are symmetric, so reaching is). Otherwise the window's margin doubles, up to the
whole grid.

Examples
--------
>>> from mazeroute.layers import Layer, Stack
>>> from mazeroute.layout import Layout, Net
>>> lay = Layout("x", 6, 2, nets=[Net("a", [(0, 0, 0), (5, 1, 1)])],
...              stack=Stack((Layer("M1", "horizontal"), Layer("M2", "vertical"))))
>>> trees = make_trees(Board(lay), "cpu")
>>> trees.grow(0).cells[-1].tolist(), trees.engine
([5, 1, 1], 'cpu/grid3d')
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..engines.base import UNREACHED, host
from ..engines.costs import COST_DTYPE, COST_MAX
from ..engines.grid3d import bfs3d, trace_boxes, weighted3d
from .layered_tree import CUT_OFF, Board, Growth, Rules, Tree, grow_tree

__all__ = ["CPUTrees", "GPUTrees", "make_trees", "window_sides_min", "window", "exact_for",
           "first_margin", "search_margin", "batch_margin", "window_search", "windowed",
           "reaches", "cut_off", "overlap", "FIRST_MARGIN", "MAX_BATCH"]

#: The first window's margin around the search's cells, in cells.
FIRST_MARGIN = 8
#: The most nets searched in one launch.
MAX_BATCH = 256


class CPUTrees:
    """Each net's searches on the CPU engines, in windows (see the module's notes),
    grown one at a time: a search costs its window, not the grid."""

    backend = "cpu"

    def __init__(self, board: Board):
        self.board = board
        self.windows = 0

    @property
    def engine(self) -> str:
        """The engine name a result reports (unit-step searches)."""
        return "cpu/grid3d"

    def grow(self, i: int, wires: bool = True, cost: np.ndarray | None = None) -> Tree:
        """Net ``i``'s tree against the committed wires (``wires``) or not, on entry
        costs ``cost`` (``(L, H, W)``; None: unit steps)."""
        b = self.board
        return grow_tree(b.rules, None, b.pins[i], cost,
                         search=lambda s, t: self._window(i, wires, cost, s, t))

    def _window(self, i: int, wires: bool, cost: np.ndarray | None, sources,
                targets, exact: bool = True, level: int | None = None) -> tuple:
        """As :meth:`GPUTrees._window`, on the CPU engines: ``(dist, x0, y0)``."""
        self.windows += 1
        return window_search(self.board.rules, self.board.shape,
                             lambda *box: self.board.free_in(i, wires, *box), cost,
                             sources, targets, exact, level)

    def commit(self, i: int, cells: np.ndarray) -> None:
        """Block ``cells`` as net ``i``'s wire for every later net."""
        self.board.commit(i, cells)

    def rank_by(self, sequence) -> None:
        """As :meth:`GPUTrees.rank_by`; the CPU's searches see every committed wire
        whatever the order."""

    def priced(self, cost: np.ndarray, cells: np.ndarray | None = None) -> None:
        """The flat costs changed at ``cells`` (None: everywhere); the CPU reads them at
        each search."""

    def why_unrouted(self, i: int, visible: np.ndarray | None = None) -> str:
        """Why net ``i`` has no route against the committed wires (those of the nets
        ``visible`` marks, default all), in words: its tree through other nets' wires at
        :meth:`~.layered_tree.Board.wall_cost`, each branch the cheapest in the first
        window (of those a search grows through) that holds one: the wires it crosses
        wall the net off, whether or not a path elsewhere would cross fewer."""
        b = self.board
        if cut_off(b.pins[i], b.shape,
                   lambda s, t, level: self._window(i, False, None, s, t, False, level)):
            return CUT_OFF
        cost = b.wall_cost(visible)
        tree = grow_tree(b.rules, None, b.pins[i], cost,
                         search=lambda s, t: self._window(i, False, cost, s, t, False))
        return b.reason(i, tree, visible)

    def batch(self, order: list[int], start: int, extra=None,
              free: bool = False) -> tuple[list[int], None]:
        """The next nets to search together: one at a time on the CPU (no windows)."""
        return [order[start]], None

    def grow_many(self, nets: list[int], wires: bool = True,
                  cost: np.ndarray | None = None, boxes: np.ndarray | None = None,
                  grow: bool = False, free: bool = False) -> list[Tree | None]:
        """The trees of ``nets``, one after another (the rest unused: each search
        finds its own window)."""
        return [self.grow(i, wires, cost) for i in nets]


def window_sides_min(dist: np.ndarray, x0: int, y0: int, shape: tuple) -> int:
    """The least distance on the window's sides that border more grid (``UNREACHED``
    when none does or none is reached)."""
    _, height, width = shape
    _, h, w = dist.shape
    sides = []
    if x0 > 0:
        sides.append(dist[:, :, 0])
    if x0 + w < width:
        sides.append(dist[:, :, -1])
    if y0 > 0:
        sides.append(dist[:, 0, :])
    if y0 + h < height:
        sides.append(dist[:, -1, :])
    return min((int(s.min()) for s in sides), default=int(UNREACHED))


class GPUTrees:
    """Each net's searches on the GPU, in windows (see the module's notes).

    ``kernels`` are the sweeps :class:`~mazeroute.engines.gpu_grid3d.BoxSweeps` runs
    (default CUDA's). The board lives on the device as cell owners by routing rank
    (-2 blocked, -1 free, ``r`` a committed wire of the net of rank ``r``, ``-3 - r``
    one of its pins), with the pins alone for the searches that ignore wires. Ranks are
    the nets' indices until :meth:`rank_by` sets a routing order; a search of rank ``r``
    reads later ranks' wires as free.
    """

    backend = "gpu"

    def __init__(self, board: Board, kernels=None):
        from ..engines.gpu_grid3d import BoxSweeps, CudaKernels
        from ..engines.grid3d import stack_arrays

        self.board = board
        kernels = kernels if kernels is not None else CudaKernels(owned=True)
        self.xp = kernels.xp
        #: Each net's routing rank.
        self.rank = np.arange(len(board.pins), dtype=np.int32)
        self._pin = board.pin_owner.ravel() >= 0
        self._upload()
        _, axes, sites = stack_arrays(board.open, board.rules.directions,
                                      board.rules.via_sites)
        # what the host's traces read (no via mask where every via is allowed)
        self._axes = axes
        self._sites = None if board.rules.via_sites is None else sites
        self.sweeps = BoxSweeps(self.with_wires, axes, sites, board.rules.via_cost,
                                owned=True, kernels=kernels)
        self.cost = None
        self._repriced: list[np.ndarray] = []     # flat cells priced, not yet on the device
        self._prices: np.ndarray | None = None
        self.windows = 0

    @property
    def engine(self) -> str:
        """The engine name a result reports."""
        return "gpu/grid3d"

    def _upload(self) -> None:
        """The device's boards from the host's, in the current ranks."""
        b = self.board
        owners = np.full(b.shape, -1, np.int32)
        pin = b.pin_owner >= 0
        owners[pin] = -3 - self.rank[b.pin_owner[pin]]
        owners[b.layout.blocked] = -2
        self.pins_only = self.xp.array(owners)          # a copy: the wires go in next
        wire = (b.wire >= 0) & ~pin & ~b.layout.blocked
        owners[wire] = self.rank[b.wire[wire]]
        self.with_wires = self.xp.asarray(owners)
        self._commits: dict[int, np.ndarray] = {}        # flat cells, not yet on the device
        self._ripped: list[np.ndarray] = []              # flat cells to free, likewise
        if hasattr(self, "sweeps"):
            self.sweeps.mask = self.with_wires

    def rank_by(self, sequence) -> None:
        """Rank the nets in the routing order ``sequence`` (every net once)."""
        self.rank[np.asarray(sequence, np.int64)] = np.arange(len(sequence), dtype=np.int32)
        self._upload()

    def grow(self, i: int, wires: bool = True, cost: np.ndarray | None = None) -> Tree:
        """As :meth:`CPUTrees.grow`; with ``cost``, the device's copy of it (kept by
        :meth:`priced`) is what the searches read."""
        b = self.board
        self._flush()
        self.sweeps.mask = self.with_wires if wires else self.pins_only
        if cost is not None and self.cost is None:
            self.priced(cost.ravel())
        self.sweeps.set_cost(None if cost is None else self.cost)

        def search(sources, targets):
            return self._window(i, sources, targets)

        return grow_tree(b.rules, None, b.pins[i], cost, search=search)

    def commit(self, i: int, cells: np.ndarray) -> None:
        """As :meth:`CPUTrees.commit`; the device's board follows before the next search
        (its pins stay pins)."""
        self.board.commit(i, cells)
        self._commits[i] = self._flat(cells)

    def uncommit(self, i: int, cells: np.ndarray) -> None:
        """Free the ``cells`` of net ``i``'s wire that it still holds."""
        flat = self._flat(cells)
        held = flat[self.board.wire.ravel()[flat] == i]     # the host's board mirrors it
        self.board.uncommit(i, cells)
        if self._commits.pop(i, None) is None:       # a wire the device has: rip it up
            self._ripped.append(held)

    def _flush(self) -> None:
        """Write the prices, the rip-ups, then the wires, queued since the last search
        into the device's copies, each kind in one scatter."""
        self._flush_prices()
        xp, board = self.xp, self.with_wires.ravel()
        if self._ripped:
            board[xp.asarray(np.concatenate(self._ripped))] = -1
            self._ripped = []
        if self._commits:
            flat = np.concatenate(list(self._commits.values()))
            rank = np.concatenate([np.full(len(f), self.rank[i], np.int32)
                                   for i, f in self._commits.items()])
            board[xp.asarray(flat)] = xp.asarray(rank)
            self._commits = {}

    def _flat(self, cells: np.ndarray) -> np.ndarray:
        """The flat ids of ``cells`` that are no pin."""
        _, h, w = self.board.shape
        flat = (cells[:, 2] * h + cells[:, 1]) * w + cells[:, 0]
        return flat[~self._pin[flat]]

    def priced(self, cost: np.ndarray, cells: np.ndarray | None = None) -> None:
        """Copy the flat costs at ``cells`` (None: all) to the device: all at once, or
        for ``cells`` before the next search, in one scatter with the cells priced
        since the last (their values then)."""
        if cells is None or self.cost is None:
            self._repriced = []
            self.cost = self._on_device(cost)
            return
        if self._repriced and self._prices is not cost:
            self._flush_prices()
        self._prices = cost
        self._repriced.append(np.asarray(cells, np.int64))

    def _on_device(self, cost: np.ndarray):
        """``cost`` (any shape of the board's size) as the searches read it."""
        value = np.clip(cost, 1, COST_MAX).astype(COST_DTYPE)
        return self.xp.asarray(value.reshape(self.board.shape))

    def _flush_prices(self) -> None:
        if self._repriced:
            at = np.concatenate(self._repriced)
            self._repriced = []
            self.cost.ravel()[self.xp.asarray(at)] = self.xp.asarray(
                np.clip(self._prices[at], 1, COST_MAX).astype(COST_DTYPE))

    def why_unrouted(self, i: int, visible: np.ndarray | None = None) -> str:
        """As :meth:`CPUTrees.why_unrouted`: net ``i``'s tree through other nets' wires
        at :meth:`~.layered_tree.Board.wall_cost`, searched in windows."""
        b = self.board
        self.sweeps.mask = self.pins_only
        self.sweeps.set_cost(None)
        if cut_off(b.pins[i], b.shape,
                   lambda s, t, level: self._window(i, s, t, False, level)):
            return CUT_OFF
        cost = b.wall_cost(visible)
        self.sweeps.mask = self.pins_only
        self.sweeps.set_cost(self._on_device(cost))     # the negotiated costs stay
        tree = grow_tree(b.rules, None, b.pins[i], cost,
                         search=lambda s, t: self._window(i, s, t, False))
        return b.reason(i, tree, visible)

    def _window(self, i: int, sources: np.ndarray, targets, exact: bool = True,
                level: int | None = None) -> tuple:
        """The distances of a window around ``sources`` and ``targets`` that is provably
        the grid's for the nearest target (``exact``; else one that reaches a target;
        ``level``: as :func:`windowed` takes it): ``(dist, x0, y0)``."""
        def run(x0: int, y0: int, x1: int, y1: int, src=None, tg=None) -> np.ndarray:
            return self._box(i, x0, y0, x1, y1, sources if src is None else src)

        return windowed(self.board.shape, self.board.rules.via_cost, sources, targets, run,
                        exact, level)

    def _box(self, i: int, x0: int, y0: int, x1: int, y1: int, sources) -> np.ndarray:
        """Net ``i``'s search from ``sources`` in one box, its distances on the host."""
        self.windows += 1
        dist, _ = self.sweeps.run(np.array([[x0, y0, x1 - x0, y1 - y0]]), self.rank[[i]],
                                  [sources])
        return host(dist).reshape(self.board.shape[0], y1 - y0, x1 - x0)

    def _walled(self, i: int, dist: np.ndarray, box, growth: Growth) -> bool:
        """Whether net ``i``'s search, which reached none of its remaining pins in
        ``box`` (``x0, y0, w, h``), can reach none anywhere: each pin in a pocket
        (:func:`windowed`'s notes)."""
        x0, y0, w, h = (int(v) for v in box)
        tg = np.asarray(growth.remaining, np.int64).reshape(-1, 3)
        if reaches(dist, x0, y0, tg):
            return False
        src = growth.sources()

        def run(a: int, b: int, c: int, d: int, s, t) -> np.ndarray:
            return self._box(i, a, b, c, d, s)

        return all(_pocket(run, t, src, self.board.shape, max(w, h)) for t in tg)

    def batch(self, order: list[int], start: int, extra=None,
              free: bool = False) -> tuple[list[int], np.ndarray]:
        """The nets of ``order`` from ``start`` on to search together, up to
        :data:`MAX_BATCH`, and their first windows ``x0, y0, x1, y1`` (around their pins
        and, unless ``free``, the cells ``extra(i)`` gives, e.g. a wire about to be
        ripped up, with :func:`batch_margin`'s margin, so that most prove their answer
        at once). Unless ``free`` (the costs the searches read do not depend on the
        other nets' wires), the windows are pairwise disjoint and the batch ends before
        the first net whose window overlaps one before it: searching them together
        then reads no cell another of them writes."""
        shape, via = self.board.shape, self.board.rules.via_cost
        layers = shape[0]
        nets: list[int] = []
        boxes = np.zeros((0, 4), np.int64)
        for i in order[start:start + MAX_BATCH]:
            pts = self.board.pins[i]
            more = extra(i) if extra is not None and not free else None
            if more is not None and len(more):
                pts = np.concatenate([pts, more])
            box = np.array(window(pts, shape, batch_margin(self.board.pins[i], via, layers)))
            if not free and overlap(boxes, box).any():
                break
            nets.append(i)
            boxes = np.vstack([boxes, box])
        return nets, boxes

    def _steps(self, dists: np.ndarray, offsets: np.ndarray, boxes: np.ndarray,
               growths: list[Growth], cost: np.ndarray | None) -> tuple | None:
        """:func:`~mazeroute.engines.grid3d.trace_boxes` of one launch's searches, each
        pick counted within its growth's remaining pins; None for a single layer free
        both ways on unit steps, whose branches trace as in 2-D, one by one."""
        b = self.board
        if b.rules.flat and cost is None:
            return None
        starts = np.zeros(len(growths) + 1, np.int64)
        np.cumsum([len(g.remaining) for g in growths], out=starts[1:])
        targets = np.array([p for g in growths for p in g.remaining], np.int64)
        out = trace_boxes(dists, offsets, boxes, b.shape, targets, starts, self._axes,
                          self._sites, b.rules.via_cost, cost)
        return (out[0] - starts[:-1],) + out[1:]

    def grow_many(self, nets: list[int], wires: bool = True,
                  cost: np.ndarray | None = None, boxes: np.ndarray | None = None,
                  grow: bool = False, free: bool = False) -> list[Tree | None]:
        """The trees of ``nets`` (a :meth:`batch`, or any nets with their ``boxes``
        ``x0, y0, x1, y1`` given), their searches launched together, each in its window;
        None for a net whose window could not prove a search exact (the caller grows it
        alone, and what follows it after it). With ``grow``, such a window first grows
        (each side by half its length) and goes again with the next launch, when it
        then overlaps no other net's window (``free``: whatever it overlaps); ``boxes``
        then end as the windows the searches ended in."""
        b, shape = self.board, self.board.shape
        self._flush()
        self.sweeps.mask = self.with_wires if wires else self.pins_only
        if cost is not None and self.cost is None:
            self.priced(cost.ravel())
        self.sweeps.set_cost(None if cost is None else self.cost)
        claims = {i: tuple(box) for i, box in zip(nets, np.asarray(boxes).tolist())} \
            if boxes is not None else \
            {i: window(b.pins[i], shape, first_margin(b.pins[i])) for i in nets}
        growths = {i: Growth(b.pins[i]) for i in nets}
        failed: set[int] = set()
        while True:
            active = [i for i in nets if not growths[i].done and i not in failed]
            if not active:
                break
            at = np.array([claims[i] for i in active], np.int64)
            at[:, 2:] -= at[:, :2]
            dist, offsets = self.sweeps.run(at, self.rank[active],
                                            [growths[i].sources() for i in active])
            self.windows += len(active)
            found = host(dist)
            steps = self._steps(found, offsets, at, [growths[i] for i in active], cost)
            if steps is not None:
                pick, level, exact, paths, at_path, counts = steps
            for k, (i, (x0, y0, w, h), off) in enumerate(zip(active, at, offsets)):
                d = found[off:off + shape[0] * h * w].reshape(shape[0], h, w)
                ok = exact_for(d, x0, y0, shape, growths[i].remaining) if steps is None \
                    else exact[k]
                if not ok and not self._walled(i, d, (x0, y0, w, h), growths[i]):
                    wider = _wider(claims[i], shape)
                    if grow and (free or not overlap(
                            np.array([claims[j] for j in nets if j != i],
                                     np.int64).reshape(-1, 4), np.array(wider)).any()):
                        claims[i] = wider
                    else:
                        failed.add(i)
                    continue
                if steps is None:
                    growths[i].step(b.rules, d, int(x0), int(y0), cost)
                elif level[k] == UNREACHED:    # walled in, or nothing outside
                    growths[i].miss()
                else:
                    growths[i].take(int(pick[k]), int(level[k]),
                                    paths[at_path[k]:at_path[k + 1]], *counts[k].tolist())
        if boxes is not None:
            boxes[:] = [claims[i] for i in nets]
        return [None if i in failed else growths[i].finish() for i in nets]


def _wider(box: tuple, shape: tuple) -> tuple[int, int, int, int]:
    """``box`` ``x0, y0, x1, y1`` grown on each side by half its length, in the grid."""
    x0, y0, x1, y1 = box
    dx, dy = max(1, (x1 - x0) // 2), max(1, (y1 - y0) // 2)
    return (max(0, x0 - dx), max(0, y0 - dy), min(shape[2], x1 + dx), min(shape[1], y1 + dy))


def overlap(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Whether boxes ``a`` and ``b`` (rows ``x0, y0, x1, y1``, ends excluded, broadcast
    alike) share a cell.

    >>> overlap(np.array([[0, 0, 4, 4], [5, 0, 9, 4]]), np.array([3, 3, 6, 6])).tolist()
    [True, True]
    """
    return (a[..., 0] < b[..., 2]) & (b[..., 0] < a[..., 2]) & (a[..., 1] < b[..., 3]) & \
        (b[..., 1] < a[..., 3])


def window_search(rules: Rules, shape: tuple, free_in: Callable, cost: np.ndarray | None,
                  sources, targets, exact: bool = True, level: int | None = None) -> tuple:
    """The CPU engines' search in windows around ``sources`` and ``targets``
    (:func:`windowed`).

    Parameters
    ----------
    rules : Rules
        The stack's rules.
    shape : tuple
        The grid's ``(L, H, W)``.
    free_in : callable
        ``free_in(x0, y0, x1, y1)``: the cells the net may use in that box, every layer.
    cost : (L, H, W) int array, optional
        Entry costs; None: unit steps.
    sources, targets : (k, 3) array_like of int
        As :func:`grow_tree`'s searches give them.
    exact, level
        As :func:`windowed` takes them.

    Returns
    -------
    tuple
        ``(dist, x0, y0)``: the window's distances and its corner.
    """
    src = np.asarray(sources, np.int64).reshape(-1, 3)
    tg = np.asarray(targets, np.int64).reshape(-1, 3)

    def run(x0: int, y0: int, x1: int, y1: int, s=None, t=None) -> np.ndarray:
        free = free_in(x0, y0, x1, y1)
        kw = rules.crop(x0, y0, x1 - x0, y1 - y0).kwargs()
        at = np.array([x0, y0, 0])
        if s is not None:               # only what it reaches matters: unit steps
            return bfs3d(free, np.asarray(s) - at,
                         targets=None if t is None else np.asarray(t) - at, **kw)
        if cost is None:
            return bfs3d(free, src - at, targets=tg - at, **kw)
        return weighted3d(cost[:, y0:y1, x0:x1], src - at, tg - at, free=free, **kw)

    return windowed(shape, rules.via_cost, src, tg, run, exact, level)


def windowed(shape: tuple, via_cost: int, sources, targets,
             run: Callable[[int, int, int, int], np.ndarray], exact: bool = True,
             level: int | None = None) -> tuple:
    """A search in windows around ``sources`` and ``targets``, grown until one is
    provably the grid's for the nearest target (see the module's notes); or, not
    ``exact``, until one reaches a target or proves none reachable (the searches that
    only need some path: any window's shortest one will do).

    Parameters
    ----------
    shape : tuple
        The grid's ``(L, H, W)``.
    via_cost : int
        The stack's via cost (it sizes the first window).
    sources, targets : (k, 3) array_like of int
        As :func:`grow_tree`'s searches give them.
    run : callable
        ``run(x0, y0, x1, y1)``: the search's distances in that box (every layer);
        ``run(x0, y0, x1, y1, sources, targets)`` likewise from other sources (only what
        it reaches is read).
    exact : bool
        Whether the window must be the grid's answer.
    level : int, optional
        Only the window of this many doublings (its answer, proven or not); default
        every window from the first until one proves the answer.

    Returns
    -------
    tuple
        ``(dist, x0, y0)``: the window's distances and its corner.
    """
    pts = np.concatenate([np.asarray(sources, np.int64).reshape(-1, 3),
                          np.asarray(targets, np.int64).reshape(-1, 3)])
    margin = search_margin(pts, via_cost) << (level or 0)
    while True:
        x0, y0, x1, y1 = window(pts, shape, margin)
        d = run(x0, y0, x1, y1)
        whole = (x0, y0, x1, y1) == (0, 0, shape[2], shape[1])
        if whole or level is not None or (not exact and reaches(d, x0, y0, targets)) or \
                exact_for(d, x0, y0, shape, targets):
            return d, x0, y0
        # nothing reached yet: when every target sits in a pocket this window's margin
        # holds, none is reachable, and the search need not flood the grid to learn it
        src = np.asarray(sources, np.int64).reshape(-1, 3)
        tg = np.asarray(targets, np.int64).reshape(-1, 3)
        if not reaches(d, x0, y0, tg) and all(_pocket(run, t, src, shape, margin)
                                              for t in tg):
            return d, x0, y0
        margin *= 2


def _pocket(run: Callable, target: np.ndarray, sources: np.ndarray, shape: tuple,
            margin: int) -> bool:
    """Whether ``target`` provably reaches none of ``sources``: what it reaches in its
    window of ``margin`` holds none of them and touches no side bordering more grid."""
    x0, y0, x1, y1 = window(target[None], shape, margin)
    inside = sources[(sources[:, 0] >= x0) & (sources[:, 0] < x1) & (sources[:, 1] >= y0)
                     & (sources[:, 1] < y1)]
    d = run(x0, y0, x1, y1, target[None], inside if len(inside) else None)
    if len(inside) and reaches(d, x0, y0, inside):
        return False
    whole = (x0, y0, x1, y1) == (0, 0, shape[2], shape[1])
    return whole or window_sides_min(d, x0, y0, shape) == UNREACHED


def cut_off(pins: np.ndarray, shape: tuple, search: Callable) -> bool:
    """Whether some pin of ``pins`` (on a grid of ``shape``) reaches none of the
    others. ``search(sources, targets, level)`` searches the cells the net may use,
    ignoring wires, in the window of :func:`windowed` at ``level``. Every pin still in
    doubt searches its window of each level before any searches the next: a pin walled
    in by blockages and other nets' pins is proven so from inside, in the window that
    holds its pocket, not by flooding the rest of the grid from a pin outside."""
    pins = np.asarray(pins, np.int64).reshape(-1, 3)
    doubt = list(range(len(pins))) if len(pins) > 1 else []
    level = 0
    while doubt:
        for k in list(doubt):
            others = np.delete(pins, k, axis=0)
            dist, x0, y0 = search(pins[k:k + 1], others, level)
            if reaches(dist, x0, y0, others):
                doubt.remove(k)
                continue
            _, h, w = dist.shape
            whole = (x0, y0, w, h) == (0, 0, shape[2], shape[1])
            if whole or window_sides_min(dist, x0, y0, shape) == UNREACHED:
                return True
        level += 1
    return False


def reaches(dist: np.ndarray, x0: int, y0: int, targets) -> bool:
    """Whether a window's distances ``dist`` (at ``x0, y0``) reach any of ``targets``."""
    tg = np.asarray(targets, np.int64).reshape(-1, 3)
    return bool((dist[tg[:, 2], tg[:, 1] - y0, tg[:, 0] - x0] != UNREACHED).any())


def search_margin(points: np.ndarray, via_cost: int) -> int:
    """The first window's margin for a search between ``points``: large enough to hold
    the detour-free path between the farthest of them (a search that stops at its
    target costs little more in a larger window), at least :func:`first_margin`."""
    p = np.asarray(points, np.int64).reshape(-1, 3)
    span = p[:, :2].max(axis=0) - p[:, :2].min(axis=0)
    return max(first_margin(p), int(span.sum()) + 2 * via_cost)


def batch_margin(points: np.ndarray, via_cost: int, layers: int) -> int:
    """The first window's margin for a search among others in one launch: that of
    :func:`search_margin`, with room for a climb through every layer at both ends (a
    stack whose layers alternate directions may need one; a window that proves nothing
    costs a search alone, window after window, where growing it by a border costs
    little).

    Examples
    --------
    >>> batch_margin(np.array([[0, 0, 0], [10, 4, 0]]), 1, 4), search_margin(
    ...     np.array([[0, 0, 0], [10, 4, 0]]), 1)
    (20, 16)
    """
    return search_margin(points, via_cost) + 2 * via_cost * max(0, layers - 2)


def first_margin(points: np.ndarray) -> int:
    """The first window's margin around ``points``: :data:`FIRST_MARGIN`, or half
    their span when more."""
    p = np.asarray(points, np.int64).reshape(-1, 3)
    return max(FIRST_MARGIN, int((p[:, :2].max(axis=0) - p[:, :2].min(axis=0)).max()) // 2)


def window(points: np.ndarray, shape: tuple, margin: int) -> tuple[int, int, int, int]:
    """``x0, y0, x1, y1`` (ends excluded) of the box around ``points`` grown by
    ``margin`` on every side, inside the grid."""
    p = np.asarray(points, np.int64).reshape(-1, 3)
    lo, hi = p[:, :2].min(axis=0), p[:, :2].max(axis=0)
    return (max(0, int(lo[0]) - margin), max(0, int(lo[1]) - margin),
            min(shape[2], int(hi[0]) + margin + 1), min(shape[1], int(hi[1]) + margin + 1))


def exact_for(dist: np.ndarray, x0: int, y0: int, shape: tuple, targets) -> bool:
    """Whether a window's distances ``dist`` (at ``x0, y0``) are provably the grid's for
    the nearest of ``targets`` (see the module's notes)."""
    tg = np.asarray(targets, np.int64).reshape(-1, 3)
    best = int(dist[tg[:, 2], tg[:, 1] - y0, tg[:, 0] - x0].min())
    edge = window_sides_min(dist, x0, y0, shape)
    return edge == UNREACHED if best == UNREACHED else best < edge + 2


def make_trees(board: Board, backend: str, kernels=None) -> CPUTrees | GPUTrees:
    """The searches of ``backend`` (``cpu`` or ``gpu``, on ``kernels`` when given) for
    ``board``."""
    return GPUTrees(board, kernels) if backend == "gpu" else CPUTrees(board)
