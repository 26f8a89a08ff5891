"""Negotiated congestion (PathFinder) on a multi-layer layout: :func:`negotiate_layered`.

Every net is routed by the weighted 3-D search
(:func:`~mazeroute.engines.grid3d.weighted3d`) on the cells' negotiated costs, priced as
the 2-D negotiator prices them (:mod:`mazeroute.router.congestion`) but without its net
history (VPR's cost): a cell costs ``(base + history) * present`` with
``present = 1 + pres_fac * load``, ``load`` counting the other nets using it, and a via
costs ``via_cost`` times the cell it lands on. Cells may be shared during the loop;
after each iteration the nets on shared cells are ripped up and rerouted, history grows
by ``acc_fac`` per overuse on every shared cell, and ``pres_fac`` rises as
:meth:`PathFinderOptions.pres_fac` says. The loop stops when no cell is shared, after
``max_iterations``, after ``stall_iterations`` without fewer nets in conflict than the
fewest before them, or when ``time_limit`` runs out.

Legalisation then keeps, in file order, every net whose wire shares no cell with a wire
kept before it, and routes the others one after another by the shortest path against
the kept wires (sequential mode's search). The result is legal, and never routes fewer
nets than sequential routing in file order: that is routed too, and kept when it
connects more nets. It is routed after legalisation, and only when some net that has a
route through the other nets' wires stays unrouted (else sequential routing cannot
connect more); under a time limit it is routed first, so that a loop cut short still
has it.

Examples
--------
>>> from mazeroute.layers import Layer, Stack
>>> from mazeroute.layout import Layout, Net
>>> lay = Layout("x", 3, 3, nets=[Net("a", [(0, 1, 0), (2, 1, 0)]),
...                              Net("b", [(1, 0, 0), (1, 2, 0)])],
...              stack=Stack((Layer("M1"), Layer("M2"))))
>>> res = negotiate_layered(lay, PathFinderOptions())
>>> res.routed, len(res.iterations), res.stop
(2, 3, None)
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from ..engines.costs import COST_MAX, COST_SCALE
from ..layout import Layout
from .layered_search import make_trees
from .layered_tree import Board, Tree, net_route, route_sequential
from .negotiation.options import PathFinderOptions
from .result import IterationStats, NetRoute, PhaseStats, RouteResult

__all__ = ["negotiate_layered"]

#: The reason of a net the time limit left unrouted.
_LATE = "unrouted when the time limit ran out"


class _Negotiation:
    """The loop's state: every cell's history and users, each net's wire."""

    def __init__(self, layout: Layout, options: PathFinderOptions, deadline: float | None,
                 backend: str = "cpu", kernels=None):
        self.board = Board(layout)
        self.search = make_trees(self.board, backend, kernels)
        self.opt = options
        self.deadline = deadline
        self.shape = self.board.shape
        size = int(np.prod(self.shape))
        self.history = np.zeros(size, np.int64)
        self.users = np.zeros(size, np.int64)      # how many nets use each cell
        self.cost = np.full(size, COST_SCALE, np.int64)
        self.pres = 0
        count = len(layout.nets)
        self.wires: list[np.ndarray | None] = [None] * count
        self.trees: list[Tree | None] = [None] * count
        self.dead: set[int] = set()       # no route even through other nets' wires
        self.stats: list[IterationStats] = []
        self.stop: str | None = None

    def late(self) -> bool:
        """Whether the time limit has run out."""
        return self.deadline is not None and time.perf_counter() >= self.deadline

    def _price(self, cells: np.ndarray | None = None) -> None:
        """Set the cost of ``cells`` (flat ids; None: all) from history and load."""
        at = slice(None) if cells is None else cells
        value = ((COST_SCALE + self.history[at]) * (COST_SCALE + self.pres * self.users[at])
                 // COST_SCALE)
        self.cost[at] = np.clip(value, 1, COST_MAX)
        self.search.priced(self.cost, cells)

    def _flat(self, cells: np.ndarray) -> np.ndarray:
        _, h, w = self.shape
        return (cells[:, 2] * h + cells[:, 1]) * w + cells[:, 0]

    def _take(self, wires: list[np.ndarray | None], sign: int) -> None:
        """Add (``sign`` 1) or remove (-1) nets' ``wires`` from the cells' users."""
        wires = [w for w in wires if w is not None]
        if not wires:
            return
        cells = np.concatenate(wires)
        np.add.at(self.users, cells, sign)     # nets may share cells
        self._price(cells)

    def _reroute_all(self, todo: list[int]) -> bool:
        """Rip up and reroute ``todo`` in order, in batches searched together, each net
        seeing what it would see one at a time; False when the time limit cut it short.

        While ``pres_fac`` is 0 a cell's cost does not depend on who uses it, so any
        nets may share a batch. Otherwise a batch's windows (their old wires included)
        are disjoint. A window that proves nothing grows within the batch while it stays
        so; past that its net is grown alone, with the old wires of the batch's later
        nets put back as they were; a later net keeps its batch search unless that new
        wire entered its window (its proof, that no path leaving the window is shorter,
        holds whatever lies outside)."""
        shape = self.shape
        free = self.pres == 0
        done = 0
        while done < len(todo):
            if self.late():
                return False
            batch, boxes = self.search.batch(todo, done, self._old_cells, free)
            old = [self.wires[i] for i in batch]
            self._take(old, -1)
            for i in batch:
                self.wires[i] = self.trees[i] = None
            grown = self.search.grow_many(batch, wires=False, cost=self.cost.reshape(shape),
                                          boxes=boxes, grow=True, free=free)
            moved: list[np.ndarray] = []       # cells of the nets grown alone
            new: list[np.ndarray] = []         # wires not yet priced: no search between
            for k, (i, tree) in enumerate(zip(batch, grown)):
                if tree is None or (moved and not free and self._entered(boxes[k], moved)):
                    self._take(new, 1)
                    new = []
                    tree = self._alone(i, [] if free else old[k + 1:])
                    if tree.routed:
                        moved.append(tree.cells)
                if self._keep(i, tree):
                    new.append(self.wires[i])
            self._take(new, 1)
            done += len(batch)
        return True

    def _alone(self, i: int, later: list[np.ndarray | None]) -> Tree:
        """Net ``i`` grown alone, the ``later`` nets' old wires back in place meanwhile."""
        self._take(later, 1)
        tree = self.search.grow(i, wires=False, cost=self.cost.reshape(self.shape))
        self._take(later, -1)
        return tree

    @staticmethod
    def _entered(box: np.ndarray, wires: list[np.ndarray]) -> bool:
        """Whether any cell ``(x, y, z)`` of ``wires`` lies in ``box`` ``x0, y0, x1, y1``."""
        c = np.concatenate(wires)
        x0, y0, x1, y1 = (int(v) for v in box)
        return bool(((c[:, 0] >= x0) & (c[:, 0] < x1) & (c[:, 1] >= y0) & (c[:, 1] < y1)).any())

    def _old_cells(self, i: int) -> np.ndarray | None:
        """Net ``i``'s wire as cells ``(x, y, z)`` (None when it has none)."""
        w = self.wires[i]
        if w is None:
            return None
        _, h, width = self.shape
        z, r = np.divmod(w, h * width)
        return np.stack([r % width, r // width, z], axis=1)

    def _keep(self, i: int, tree: Tree) -> bool:
        """Take ``tree`` as net ``i``'s new wire, not yet among the cells' users (or mark
        the net dead); whether it was routed."""
        if not tree.routed:
            self.dead.add(i)            # other nets' wires never block it: no route at all
            return False
        self.trees[i], self.wires[i] = tree, self._flat(tree.cells)
        return True

    def conflicted(self) -> list[int]:
        """The nets whose wires use a shared cell, in file order."""
        shared = self.users > 1
        return [i for i, w in enumerate(self.wires) if w is not None and shared[w].any()]

    def iteration(self, it: int, todo: list[int]) -> list[int] | None:
        """Run iteration ``it`` over the nets ``todo``; the nets in conflict at its end
        (None when the time limit cut it short)."""
        t0 = time.perf_counter()
        pres_fac = self.opt.pres_fac(it)
        self.pres = int(round(pres_fac * COST_SCALE))
        # pres_fac moves only the cost of a used cell: an unused one costs its base and
        # history, as when it was last priced
        self._price(np.flatnonzero(self.users))
        if not self._reroute_all(todo):
            return None
        conflicts = self.conflicted()
        shared = self.users > 1
        acc = int(round(self.opt.acc_fac * COST_SCALE))
        self.history[shared] += acc * (self.users[shared] - 1)
        self.stats.append(IterationStats(it, int(shared.sum()), len(conflicts), len(todo),
                                         time.perf_counter() - t0, pres_fac))
        return conflicts

    def loop(self, progress: Callable[[IterationStats], None] | None) -> None:
        """Iterate until no cell is shared, or a stopping rule says so (:attr:`stop`)."""
        todo = list(range(len(self.wires)))
        fewest, since = len(todo) + 1, 0
        stall = self.opt.stall_iterations
        for it in range(1, self.opt.max_iterations + 1):
            todo = self.iteration(it, todo)
            if todo is None:
                self.stop = "time limit"
                return
            if progress:
                progress(self.stats[-1])
            if not todo:
                return
            since = 0 if len(todo) < fewest else since + 1
            fewest = min(fewest, len(todo))
            if stall is not None and since >= stall:
                self.stop = "stalled"
                return
            if self.late():
                self.stop = "time limit"
                return
        self.stop = "max iterations"

    def legalise(self) -> list[NetRoute]:
        """Keep the wires that share no cell with those kept before them (file order),
        route the other nets sequentially against them; every net's route."""
        board = self.board
        count = len(self.wires)
        routes: list[NetRoute | None] = [None] * count
        order = 0
        redo = []
        for i, tree in enumerate(self.trees):
            c = None if tree is None else tree.cells
            if c is None or (board.wire[c[:, 2], c[:, 1], c[:, 0]] >= 0).any():
                redo.append(i)
                continue
            self.search.commit(i, c)
            routes[i] = net_route(board, i, tree, order, 0.0)
            routes[i].levels = 0        # its searches' distances were costs, not levels
            order += 1
        # the kept wires come first in the routing order, so that every one of them
        # blocks the nets routed now
        kept = [i for i in range(count) if routes[i] is not None]
        self.search.rank_by(kept + redo)
        for i in redo:
            if self.late():
                routes[i] = net_route(board, i, None, None, 0.0)
                routes[i].reason = _LATE
                continue
            tree = self.search.grow(i)
            routes[i] = net_route(board, i, tree, order, 0.0)
            if tree.routed:
                self.search.commit(i, tree.cells)
                order += 1
            else:
                routes[i].reason = self.search.why_unrouted(i)
        return routes


def _floor(layout: Layout, backend: str, kernels) -> tuple[RouteResult, PhaseStats]:
    """Sequential routing of ``layout`` in file order, and its phase."""
    t0 = time.perf_counter()
    floor = route_sequential(layout, backend=backend, kernels=kernels)
    return floor, PhaseStats("sequential floor", time.perf_counter() - t0, floor.routed)


def negotiate_layered(layout: Layout, options: PathFinderOptions,
                      progress: Callable[[IterationStats], None] | None = None,
                      backend: str = "cpu", kernels=None) -> RouteResult:
    """Negotiated routing of a multi-layer layout (see the module's notes).

    Parameters
    ----------
    layout : Layout
        A checked layout with a stack of layers.
    options : PathFinderOptions
        The loop's options (those named in the module's notes apply).
    progress : callable, optional
        Called with each iteration's :class:`IterationStats`.
    backend : {"cpu", "gpu"}
        Where the searches run (:mod:`.layered_search`); the routes are the same.
    kernels : object, optional
        The GPU's sweeps (tests run them emulated).

    Returns
    -------
    RouteResult
        Mode ``negotiate``, engine ``cpu/weighted3d`` or ``gpu/weighted3d``, with its
        iterations, the cells' final history ``(L, H, W)`` in units of a cell's base
        cost, its phases (``legalise``, and ``sequential floor`` where it was routed)
        and why the loop stopped with cells shared.
    """
    start = time.perf_counter()
    deadline = None if options.time_limit is None else start + options.time_limit
    floor = None if deadline is None else _floor(layout, backend, kernels)
    neg = _Negotiation(layout, options, deadline, backend, kernels)
    neg.loop(progress)
    t0 = time.perf_counter()
    nets = neg.legalise()
    routed = sum(r.routed for r in nets)
    phases = [PhaseStats("legalise", time.perf_counter() - t0, routed)]
    if floor is None and any(not r.routed and i not in neg.dead for i, r in enumerate(nets)):
        floor = _floor(layout, backend, kernels)
    if floor is not None:
        phases.append(floor[1])
        if floor[0].routed > routed:
            nets = floor[0].nets
    history = (neg.history / COST_SCALE).reshape(neg.shape)
    return RouteResult(layout, nets, f"{backend}/weighted3d", "file", time.perf_counter() - start,
                       mode="negotiate", iterations=neg.stats, history=history,
                       phases=phases, stop=neg.stop)
