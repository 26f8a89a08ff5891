"""Negotiated-congestion routing: PathFinder (McMurchie and Ebeling, FPGA 1995) in VPR's
form, over the weighted net search of :mod:`mazeroute.engines.weighted`.

Every net is routed on cell costs that price congestion (:mod:`.congestion`); nets may
share cells while they negotiate. Iteration 1 routes every net; each later iteration
rips up and reroutes only the nets that use an overused cell, after the history cost of
those cells and the weights of those nets have grown and with a larger present factor,
so the nets with the fewest alternatives keep the contested cells and the others move
away. A net searches only a box around its pins; the box is grown when a search fails
in it, when a net in conflict was routed along its edge, and after every
``bb_patience`` iterations a net spends in conflict (the way round the other wire may
lie outside it). Negotiation stops when no cell is shared, or after ``max_iterations``
/ ``time_limit``, or after ``budget_after`` iterations once its searches covered
``budget_cells`` cells (or when overuse stops falling, ``stall_iterations``, grows past
the first iteration's, ``diverge_factor``, or the nets it would keep stop growing,
``kept_iterations``); then
:meth:`Negotiator.legalise` drops the fewest nets that keep conflicts (a greedy vertex
cover of the conflict graph) and routes them again one at a time on the cells nobody
uses; :meth:`Negotiator.repair` tries each net still unrouted once more, ripping up the
one or two nets whose wires it must cross when they can go another way; and
:meth:`Negotiator.tidy` reroutes every wire once more with the others fixed, keeping it
where it gets shorter. When nets still stay unrouted and every net has two pins, the
space-filling search of :mod:`.fill` tries to connect them all by wires that cover
every free cell (dense layouts such as numberlink puzzles need such long, winding
wires, which cost gradients seldom find); its routes replace negotiation's when it
connects every net, after touching wires were rerouted in pairs and threes for shorter
ones (:mod:`.shorten`). Nets still unrouted on a dense layout of two-pin nets are then
connected where a window round their pins, re-solved exactly with the wires crossing it
(:mod:`.windows`, a SAT solver), has a solution, and touching wires are shortened
again. The result never has fewer routed nets than sequential
mode's: :func:`sequential_routes` is computed as a floor whenever some net that could
be routed alone stays unrouted, and the better result is kept.

Batches. The nets rerouted in an iteration go in a fixed order: by first-fit colour of
their boxes' overlap, taken in ``hpwl`` order (smallest pin box first, as sequential
mode's ``--order hpwl``), then in that order (``reroute_order``;
:func:`~mazeroute.engines.weighted.colour_order`), so that boxes that overlap in a chain
need two calls and not one a box; the order is cut into batches by level: a net's
batch comes after the batch of every net at least ``snapshot_nets`` places before it
whose box overlaps its box (:class:`~.congestion.PathFinderOptions`). A batch is ripped
up together and searched in one :meth:`~mazeroute.engines.weighted.NetSearch.route` call
(one launch on a device) on one snapshot of the costs; a net's route, old or new, never
leaves its box (boxes only grow), so a net sees the new wires of every overlapping net
that far before it, and nets closer than that in the order search blind to each other
(those that take the same cell meet again as a conflict of the next iteration). A device
then waits on a short chain of calls: at most one per ``snapshot_nets`` nets, fewer
where boxes lie apart. With ``snapshot_nets=1`` (the default) the order is PathFinder's
exactly: the boxes of a batch are pairwise disjoint, and the result is that of routing
the nets one after another in order. Occupancy and costs are updated between calls, and
only the cells that changed are passed on as ``changed``. While ``pres_fac`` is 0 (the
first iteration) costs do not depend on who uses a cell, so the order cannot change a
route and every net goes in one call, however the boxes overlap. With
``device_chains`` an engine that chains (the GPU's) takes each run of two batches or
more that it accepts as one chain
(:meth:`~mazeroute.engines.weighted.NetSearch.route_chain`): it rips up, searches,
commits and reprices batch after batch itself, and the host replays the rip-ups and
commits on :class:`~.congestion.Congestion` afterwards. The same layout and options give
the same routes on every engine.

Deterministic: the same layout and options give the same routes (a ``time_limit`` that
stops negotiation early is the one exception: where it stops depends on the machine).
The limit bounds the phases after the loop too (:meth:`Negotiator.run`).

Examples
--------
>>> from mazeroute.layout import parse_layout
>>> lay = parse_layout({"width": 5, "height": 4, "nets": [  # sequential: a walls b off
...     {"name": "a", "pins": [[0, 1], [4, 1]]}, {"name": "b", "pins": [[2, 0], [2, 2]]}]})
>>> res = Negotiator(lay, "cpu").run()
>>> [(n.name, n.routed) for n in res.nets], res.iterations[-1].overused, res.mode
([('a', True), ('b', True)], 0, 'negotiate')
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence

import numba
import numpy as np
import scipy.ndimage
import scipy.sparse

from ..engines import device_errors, first_line, make_net_search
from ..engines.weighted import (
    COST_DTYPE,
    COST_MAX,
    NetRequest,
    box_levels,
    box_sides,
    colour_order,
)
from ..errors import EngineUnavailable
from ..layout import Layout
from .congestion import COST_SCALE, Congestion, PathFinderOptions
from .fill import fill_routes
from .floor import sequential_routes
from .result import IterationStats, NetRoute, PhaseStats, RouteResult, wires_bends
from .shorten import shorten_wires
from .watch import Watch
from .windows import available as windows_available
from .windows import complete_in_windows

_NO_CELLS = np.zeros(0, np.int64)
#: The phases after the loop, as they end (``mazeroute route`` shows them on a terminal).
log = logging.getLogger(__name__)
#: Nets named in a reason before "and N more".
_NAMES = 4
#: Base costs to cross another net's wire in :meth:`Negotiator.repair`'s search.
WIRE_COST = 64


def _names(layout: Layout, nets) -> str:
    names = [layout.nets[i].name for i in sorted(nets)]
    more = len(names) - _NAMES
    return ", ".join(names[:_NAMES]) + (f" and {more} more" if more > 0 else "")


@numba.njit(cache=True)
def _independent(indptr: np.ndarray, indices: np.ndarray) -> int:
    """The size of an independent set of the graph ``(indptr, indices)`` (a symmetric
    CSR adjacency, self-loops allowed), taken greedily fewest neighbours first (ties:
    lower vertex); it is maximal."""
    n = indptr.size - 1
    degree = np.diff(indptr)
    blocked = np.zeros(n, np.bool_)
    taken = 0
    for v in np.argsort(degree, kind="mergesort"):
        if blocked[v]:
            continue
        taken += 1
        for u in indices[indptr[v]:indptr[v + 1]]:
            blocked[u] = True
    return taken


def batches(boxes: np.ndarray, shape: tuple[int, int], lag: int = 1) -> list[np.ndarray]:
    """Positions ``0..len(boxes)-1`` cut into batches, each box after every box at
    least ``lag`` places before it that overlaps it (:func:`box_levels`). With ``lag``
    1 the boxes of a batch are pairwise disjoint and the order of routing is kept."""
    if len(boxes) == 0:
        return []
    level = box_levels(boxes, shape, lag)
    order = np.argsort(level, kind="stable")
    cuts = np.flatnonzero(np.diff(level[order])) + 1
    return np.split(order, cuts)


def as_short_as_can_be(pins: Sequence[np.ndarray], wires: Sequence[np.ndarray]) -> np.ndarray:
    """Whether each wire (``(k, 2)`` cells) has the fewest cells any wire between its
    net's pins could have: two pins, and one cell more than their Manhattan distance (a
    net of more pins may always have a shorter tree than the one it has)."""
    n = len(wires)
    two = np.fromiter((len(p) == 2 for p in pins), bool, n)
    cells = np.fromiter((len(c) for c in wires), np.int64, n)
    span = np.fromiter((int(np.abs(p[0] - p[-1]).sum()) for p in pins), np.int64, n)
    return two & (cells == span + 1)


class Negotiator:
    """One layout's negotiated routing: the search engine, the congestion state, every
    net's current route and box.

    Parameters
    ----------
    layout : the layout to route
    backend : ``cpu``, ``gpu`` or ``auto``: whose weighted search runs
    options : :class:`~.congestion.PathFinderOptions`
    """

    def __init__(self, layout: Layout, backend: str = "auto",
                 options: PathFinderOptions | None = None):
        self.layout = layout
        self.options = options or PathFinderOptions()
        self.shape = (layout.height, layout.width)
        h, w = self.shape
        self.free = ~layout.blocked
        self.owner = np.full(self.shape, -1, np.int32)
        self.pins = [np.array(net.pins, np.int64).reshape(-1, 2) for net in layout.nets]
        for i, p in enumerate(self.pins):
            self.owner[p[:, 1], p[:, 0]] = i
        # adaptive: a device engine sends calls of few nets to the CPU engine when that
        # is sooner (late iterations reroute a few nets in many small batches)
        self.search = make_net_search(backend, self.free, self.owner, adaptive=True)
        self.backend = getattr(self.search, "backend", backend)
        self.engine = f"{self.backend}/weighted"
        n = len(layout.nets)
        self.lo = np.array([p.min(axis=0) for p in self.pins], np.int64).reshape(n, 2)
        self.hi = np.array([p.max(axis=0) for p in self.pins], np.int64).reshape(n, 2)
        self.margin = np.full(n, self.options.bb_factor, np.int64)
        self.state = Congestion(self.free, n, self.options.acc_fac, self.options.net_acc)
        self.routes: list[np.ndarray | None] = [None] * n       # flat cell indices
        self.cells: list[np.ndarray | None] = [None] * n        # the same as (k, 2) x, y
        self.fights = np.zeros(n, np.int64)      # iterations each net ended in conflict
        self.stamp = np.full(n, -1, np.int64)    # when each route was made (for `order`)
        self.rlo = np.zeros((n, 2), np.int64)     # each route's bounding box
        self.rhi = np.zeros((n, 2), np.int64)
        self.seconds = np.zeros(n)
        self.enclosed: set[int] = set()          # no route even through other nets' wires
        self._pieces: np.ndarray | None = None   # see _cut_off
        self._pinned = None                      # see _pin_search
        self._unit: np.ndarray | None = None     # see _unit_costs
        self._filled = None                      # see _fills
        self._fill_seconds = 0.0
        self.conflicts: dict[int, set[int]] = {}  # nets dropped by legalise, and why
        self.filled_gain = 0                     # cells shorten_wires took off fill's wires
        self.iterations: list[IterationStats] = []
        self.stop: str | None = None             # why the loop stopped (see _stop)
        self.cells_searched = 0                  # box areas of reroute's searches, summed
        self.searched: list[int] = []            # ... of each iteration
        self.kept_nets: list[int] = []           # kept() after each iteration (see settled)
        self._clock = 0
        #: The clock the time limit is read on (a test may set a fake one).
        self.now: Callable[[], float] = time.perf_counter
        self.deadline: float | None = None       # when the time limit runs out (see run)
        #: Steps the time limit stopped part way ("cut short") or before they began
        #: ("skipped"), in order.
        self.cut: dict[str, str] = {}
        #: What the net it names saw at its searches (``mazeroute wavefront``).
        self.watch = Watch()
        hpwl = (self.hi - self.lo).sum(axis=1)
        #: Routing order within an iteration: smallest pin box first, then file order.
        self.order = np.lexsort((np.arange(n), hpwl)) if n else np.zeros(0, np.int64)

    @property
    def routed(self) -> int:
        """The nets that have a route now."""
        return sum(c is not None for c in self.cells)

    # -- boxes ------------------------------------------------------------------------
    def box(self, i: int) -> tuple[int, int, int, int]:
        """Net ``i``'s search box ``(x0, y0, x1, y1)``: its pins' box grown by its margin,
        clipped to the grid."""
        x0, y0, x1, y1 = self.boxes(np.array([i]))[0].tolist()
        return x0, y0, x1, y1

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

    # -- routing ----------------------------------------------------------------------
    def _set_route(self, i: int, xy: np.ndarray | None, when: int | None = None) -> None:
        """Give net ``i`` the route ``xy`` (None: rip it up); ``when`` orders the final
        commits (by default, after everything so far)."""
        self.state.remove(i)
        if xy is None:
            self.routes[i] = self.cells[i] = None
            return
        self._commit([i], [xy], [self._clock if when is None else when])

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
        self._clock = max(self._clock, int(max(when))) + 1

    def _reserve(self, nets, cells: list[np.ndarray]) -> None:
        """Give each of ``nets`` its ``cells`` in the search's owners, in one call."""
        if len(nets):
            self.search.set_owner(np.concatenate(cells).reshape(-1, 2), np.repeat(
                np.asarray(nets, np.int32), [len(c) for c in cells]))

    def _reserve_wires(self) -> None:
        """Every wire reserved for its net in the search (no other net enters it)."""
        nets = [i for i, c in enumerate(self.cells) if c is not None]
        self._reserve(nets, [self.cells[i] for i in nets])

    def _rip(self, nets: list[int]) -> None:
        """Rip up every net of ``nets`` at once."""
        self.state.remove_many(nets)
        for i in nets:
            self.routes[i] = self.cells[i] = None

    def reroute(self, nets: list[int]) -> int:
        """Rip up and reroute ``nets`` in order, batch by batch (module notes); a net whose search
        fails gets a larger box and goes again after the others, until its box is the whole
        grid, or until its pins prove to lie in different pieces of the cells it may enter
        (:meth:`_cut_off`; then it is enclosed, and left out of negotiation). Returns the
        number of searches.

        While ``pres_fac`` is 0 a cell's cost does not depend on who uses it, so the
        order of the searches cannot change a route: then all of them are one call
        (the first iteration, where every net is routed)."""
        searches = cells = 0
        pending = np.asarray(nets, np.int64)
        while pending.size:
            boxes = self.boxes(pending)
            free_order = self.state.order_free()
            if not free_order:
                perm = self._order(boxes)
                pending, boxes = pending[perm], boxes[perm]
            rank = np.empty(len(self.layout.nets), np.int64)
            rank[pending] = np.arange(pending.size)
            bw, bh = box_sides(boxes)
            areas = bw * bh
            clock = self._clock             # stamps follow the order, not the batches
            failed = []
            groups = ([np.arange(pending.size)] if free_order
                      else batches(boxes, self.shape, self.options.snapshot_nets))
            requests = [[NetRequest(i, self.pins[i], tuple(b))
                         for i, b in zip(pending[batch].tolist(), boxes[batch].tolist())]
                        for batch in groups]
            # a run of two batches or more that the engine chains goes in one chain (not
            # for a watched net: a chain prices its batches on the device, unseen)
            chains = (self.options.device_chains and len(groups) > 1
                      and self.watch.net is None)
            chain = [chains and self.search.chainable(r) for r in requests]
            k = 0
            while k < len(groups):
                if self.iterations and self._late("negotiation"):
                    break       # the nets not searched yet keep their routes
                start = time.perf_counter()
                run = 1
                while chain[k] and k + run < len(groups) and chain[k + run]:
                    run += 1
                part = groups[k:k + run]
                nets = [pending[batch].tolist() for batch in part]
                if run > 1:
                    found_all = self.search.route_chain(
                        *self.state.costs(), self.state.pricing(), requests[k:k + run],
                        [[self.routes[i] for i in group] for group in nets])
                    self._rip([i for group in nets for i in group])
                else:
                    self._rip(nets[0])
                    cost, changed = self.state.costs()
                    self.watch.look(self.search, cost, requests[k],
                                    f"iteration {len(self.iterations) + 1}")
                    found_all = [self.search.route(cost, requests[k], changed)]
                done, made, when = [], [], []
                for batch, group, found in zip(part, nets, found_all):
                    searches += len(group)
                    cells += int(areas[batch].sum())
                    for j, xy in enumerate(found):
                        if xy is None:
                            failed.append(group[j])
                        else:
                            done.append(group[j])
                            made.append(xy)
                            when.append(clock + int(batch[j]))
                self._commit(done, made, when)
                if self.watch.net in done:
                    self.watch.took(self.watch.net)
                if run > 1:
                    self.state.synced()     # the engine made these changes itself
                every = np.concatenate(part)
                self.seconds[pending[every]] += (time.perf_counter() - start) / every.size
                k += run
            self._clock = clock + pending.size
            retry = []
            if self.iterations and self._late("negotiation"):
                failed = []     # no more searches: the failed nets stay unrouted
            for i in sorted(failed, key=rank.__getitem__):
                if self._whole(i) or self._cut_off(i):
                    self.enclosed.add(i)
                else:
                    self._grow(i)
                    retry.append(i)
            pending = np.asarray(retry, np.int64)
        self.cells_searched += cells
        return searches

    def _order(self, boxes: np.ndarray) -> np.ndarray:
        """The routing order of ``reroute_order`` (:class:`~.congestion.PathFinderOptions`)
        of nets in ``hpwl`` order whose searches reach ``boxes``: their positions."""
        if self.options.reroute_order == "hpwl":
            return np.arange(len(boxes))
        return colour_order(boxes, self.shape)

    def _cut_off(self, i: int) -> bool:
        """Whether net ``i``'s pins lie in different pieces of the cells it may enter
        (free cells that hold no other net's pin; wires never block while nets
        negotiate), joined through its own pins: then no box, however grown, holds a
        route. The pieces are labelled once, at the first net whose search fails."""
        if self._pieces is None:
            self._pieces = scipy.ndimage.label(self.free & (self.owner < 0))[0]
        label = self._pieces
        h, w = self.shape
        pins = self.pins[i].tolist()
        # a walk over pins and pieces: a pin enters the pieces beside it and the pins
        # beside it, a piece every pin beside it
        near = []
        for x, y in pins:
            near.append({int(label[y + dy, x + dx])
                         for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1))
                         if 0 <= x + dx < w and 0 <= y + dy < h and label[y + dy, x + dx]})
        reached, pieces, grew = {0}, set(near[0]), True
        while grew:
            grew = False
            for k, (x, y) in enumerate(pins):
                if k not in reached and (near[k] & pieces or any(
                        abs(x - pins[j][0]) + abs(y - pins[j][1]) <= 1 for j in reached)):
                    reached.add(k)
                    pieces |= near[k]
                    grew = True
        return len(reached) < len(pins)

    def conflicting(self, changed: list[int] | None = None,
                    uses: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
        """The nets that use an overused cell, ascending (``changed`` as for
        :meth:`in_conflict`; ``uses``: :meth:`overused_uses`, when the caller has them);
        the cheap form the loop needs."""
        if uses is None:
            uses = self.overused_uses(changed)
        return np.unique(uses[1])

    def overused_uses(self, changed: list[int] | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Every ``(cell, net)`` use of an overused cell, as two arrays (``changed`` as
        for :meth:`in_conflict`)."""
        over = self.state.overused()
        if over.size == 0:
            return _NO_CELLS, _NO_CELLS
        return self._uses(over, changed)

    def _uses(self, over: np.ndarray, changed) -> tuple[np.ndarray, np.ndarray]:
        """Every ``(cell, net)`` use of the overused cells ``over``."""
        found = None if changed is None else self.state.users(over, changed)
        if found is not None:
            return found
        nets = [i for i, r in enumerate(self.routes) if r is not None]
        flat = np.concatenate([self.routes[i] for i in nets])
        who = np.repeat(np.array(nets, np.int64), [self.routes[i].size for i in nets])
        hit = np.isin(flat, over)
        return flat[hit], who[hit]

    def in_conflict(self, changed: list[int] | None = None) -> dict[int, set[int]]:
        """Every net that uses an overused cell, with the nets it shares cells with.

        ``changed``: the nets rerouted since the last call (None: unknown). Every other
        net keeps the route it had then, so an overused cell has at most one user
        outside ``changed`` unless that user was in conflict before and was not
        rerouted; then the overused cells' users come from ``changed``'s routes alone
        (:meth:`~.congestion.Congestion.users`), else from every route.
        """
        nets, pairs = self._conflict_graph(changed)
        out: dict[int, set[int]] = {}
        for k, i in enumerate(nets.tolist()):
            out[i] = set(nets[pairs.indices[pairs.indptr[k]:pairs.indptr[k + 1]]].tolist())
            out[i].discard(i)
        return out

    def _conflict_graph(self, changed, uses=None) -> tuple[np.ndarray, scipy.sparse.csr_matrix]:
        """The nets in conflict (ascending) and which of them share a cell, as a sparse
        matrix over their positions in that list (its diagonal set)."""
        flat, who = self.overused_uses(changed) if uses is None else uses
        if flat.size == 0:
            return _NO_CELLS, scipy.sparse.csr_matrix((0, 0), dtype=np.int32)
        # nets x nets sharing counts as a sparse product: on an oversubscribed layout a
        # cell has a hundred users, and pairing them in Python took seconds
        _, cell = np.unique(flat, return_inverse=True)
        nets, net = np.unique(who, return_inverse=True)
        use = scipy.sparse.csr_matrix((np.ones(flat.size, np.int32), (cell, net)),
                                      shape=(int(cell.max()) + 1, nets.size))
        return nets, (use.T @ use).tocsr()

    def kept(self, changed: list[int] | None = None,
             uses: tuple[np.ndarray, np.ndarray] | None = None) -> int:
        """An estimate of the nets that would stay routed if negotiation stopped now:
        the routed nets less those a greedy cover of the conflict graph drops (the nets
        in conflict less an independent set of them taken fewest conflicts first;
        :meth:`legalise` takes a like cover, most conflicts first). ``changed`` and
        ``uses`` as for :meth:`conflicting`."""
        nets, pairs = self._conflict_graph(changed, uses)
        if not nets.size:
            return self.routed
        return self.routed - nets.size + _independent(pairs.indptr, pairs.indices)

    def negotiate(self, progress: Callable[[IterationStats], None] | None = None) -> int:
        """The PathFinder loop; returns the number of iterations run."""
        opt = self.options
        if self.deadline is None and opt.time_limit is not None:
            self.deadline = self.now() + opt.time_limit
        todo = self.order.astype(np.int64)
        rank = np.empty(len(todo), np.int64)
        rank[todo] = np.arange(len(todo))
        iteration = 0
        while True:
            iteration += 1
            t0 = time.perf_counter()
            self.state.set_pres_fac(opt.pres_fac(iteration))
            before = self.cells_searched
            self.reroute(todo)
            self.searched.append(self.cells_searched - before)
            uses = self.overused_uses(todo.tolist())
            conflicts = self.conflicting(uses=uses)
            stats = IterationStats(iteration, int(self.state.overused().size), len(conflicts),
                                   len(todo), time.perf_counter() - t0, self.state.pres_fac)
            self.iterations.append(stats)
            if progress:
                progress(stats)
            if not conflicts.size:
                break
            if opt.kept_iterations is not None and \
                    min(s.conflicts for s in self.iterations) >= opt.stall_min_conflicts:
                self.kept_nets.append(self.kept(uses=uses))
            self.stop = self._stop(iteration)
            if self.stop is not None:
                break
            self.state.end_iteration(conflicts)
            self.fights[conflicts] += 1
            # boxes grow after bb_patience iterations in conflict or when the route ran
            # along the box's edge, up to bb_grow_limit times the pins' span
            grow = (self.fights[conflicts] % opt.bb_patience == 0) | self._on_edge(conflicts)
            span = (self.hi[conflicts] - self.lo[conflicts]).max(axis=1) + opt.bb_factor
            grow &= self.margin[conflicts] * opt.bb_grow <= opt.bb_grow_limit * span
            chosen = conflicts[grow]
            self.margin[chosen] = np.maximum(1, self.margin[chosen]) * opt.bb_grow
            todo = conflicts[np.argsort(rank[conflicts], kind="stable")]
        return iteration

    def _stop(self, iteration: int) -> str | None:
        """Why the loop stops after ``iteration``, which left nets in conflict (the
        report's words), or None to go on."""
        opt = self.options
        if self._late():
            return f"time limit ({opt.time_limit:g} s) reached"
        if iteration >= opt.max_iterations:
            return f"iteration cap ({opt.max_iterations}) reached"
        if opt.over_budget(iteration + 1, self.cells_searched):
            return (f"past {opt.budget_after} iterations it goes on only while its searches "
                    "are cheap")
        if iteration == opt.budget_after and self._fills():
            return "the space-filling search connects every net"
        overused = [s.overused for s in self.iterations]
        in_conflict = [s.conflicts for s in self.iterations]
        if opt.stalled(overused, in_conflict, self.searched):
            return (f"a plateau (no new low of overused cells or nets in conflict for "
                    f"{opt.stall_iterations} iterations)")
        if opt.settled(self.kept_nets, in_conflict):
            return (f"the nets it would keep reached no new high in "
                    f"{opt.kept_iterations} iterations")
        if opt.diverged(overused, in_conflict):
            return (f"the overused cells stayed at {opt.diverge_factor:g} times the first "
                    "iteration's or more (the nets need more room than there is)")
        return None

    def _late(self, step: str | None = None) -> bool:
        """Whether the time limit has run out (:attr:`deadline`); if so, ``step`` (a
        phase that stops part way for it) is recorded as cut short."""
        if self.deadline is None or self.now() < self.deadline:
            return False
        if step is not None:
            self.cut.setdefault(step, "cut short")
        return True

    def legalise(self) -> None:
        """Drop the fewest nets that keep conflicts, then route them again one at a
        time on the cells no other net uses (shortest first)."""
        conflicts = self.in_conflict()
        graph = {i: set(p) for i, p in conflicts.items()}
        dropped = []
        while graph:
            # greedy vertex cover: the net in the most conflicts goes first; among
            # equals the longer wire (it frees the most room), then the later net
            i = max(graph, key=lambda j: (len(graph[j]), self.routes[j].size, j))
            for j in graph.pop(i):
                graph[j].discard(i)
                if not graph[j]:
                    del graph[j]
            dropped.append(i)
        for i in dropped:
            self.conflicts[i] = conflicts[i]
            self._set_route(i, None)
        if not dropped:
            return
        self._reserve_wires()
        self.state.set_pres_fac(0.0)
        rank = {int(i): k for k, i in enumerate(self.order)}
        for i in sorted(dropped, key=rank.__getitem__):
            if self._late("legalise"):
                break           # the nets left stay dropped: the routing stays legal
            start = time.perf_counter()
            cost, changed = self.state.costs()
            request = NetRequest(i, self.pins[i], self.box(i))
            self.watch.look(self.search, cost, [request], "legalise")
            xy = self.search.route(cost, [request], changed)[0]
            if xy is None and not self._whole(i):
                h, w = self.shape
                cost, changed = self.state.costs()
                request = NetRequest(i, self.pins[i], (0, 0, w - 1, h - 1))
                self.watch.look(self.search, cost, [request], "legalise")
                xy = self.search.route(cost, [request], changed)[0]
            if xy is not None:
                self.watch.took(i)
                self._set_route(i, xy)
                self.search.set_owner(xy, i)
                del self.conflicts[i]
            self.seconds[i] += time.perf_counter() - start

    def _pin_search(self):
        """A second search engine whose cells belong only to the nets' pins (wires pass,
        at whatever cost the caller gives them), made once: repair and the reasons of
        unrouted nets use it, and a grid-sized engine costs a pass over the grid."""
        if self._pinned is None:
            self._pinned = make_net_search(self.backend, self.free, self.owner)
        return self._pinned

    def _unit_costs(self) -> np.ndarray:
        """One base cost on every cell, ``(H, W)``, made once: repair and tidy search on
        it (the engines read cost arrays, never write them), and on a big grid making
        it is a share of their time (benchmarks/RESULTS.md)."""
        if self._unit is None:
            self._unit = np.full(self.shape, COST_SCALE, COST_DTYPE)
        return self._unit

    def repair(self, max_victims: int = 2, passes: int = 3) -> int:
        """Rip-up and reroute for the nets legalisation left unrouted: a net takes the
        way that crosses the fewest other wires (a wire costs :data:`WIRE_COST` base costs
        to cross); if it crosses at most ``max_victims`` nets, those are ripped up, the
        net is committed, and each victim is routed again on the free cells; if one of
        them finds no way, everything goes back as it was. Passes over the unrouted nets
        repeat while one gains a net. Never loses a net; returns the nets gained."""
        if all(c is not None or i in self.enclosed for i, c in enumerate(self.cells)):
            return 0            # nothing to repair: spare the grid-sized set-up below
        h, w = self.shape
        whole = (0, 0, w - 1, h - 1)
        own = np.full(h * w, -1, np.int32)
        dear = np.full(h * w, COST_SCALE, COST_DTYPE)
        nets = [i for i, r in enumerate(self.routes) if r is not None]
        if nets:
            wires = np.concatenate([self.routes[i] for i in nets])
            own[wires] = np.repeat(np.asarray(nets, np.int32),
                                   [self.routes[i].size for i in nets])
            dear[wires] = WIRE_COST * COST_SCALE
        self._reserve_wires()
        push = self._pin_search()
        uniform = self._unit_costs()
        dirty: list[np.ndarray] | None = None         # cells of dear changed; None: all
        legal_changed: np.ndarray | None = None

        def commit(i, xy):
            self._set_route(i, xy)
            self.search.set_owner(xy, i)
            own[self.routes[i]] = i
            dear[self.routes[i]] = WIRE_COST * COST_SCALE
            if dirty is not None:
                dirty.append(self.routes[i])

        def lift(i):
            self.search.set_owner(self.cells[i], -1)
            self.search.set_owner(self.pins[i], i)
            own[self.routes[i]] = -1
            dear[self.routes[i]] = COST_SCALE
            if dirty is not None:
                dirty.append(self.routes[i])
            self._set_route(i, None)

        def legal(i):
            nonlocal legal_changed
            boxes = [self.box(i)] if self._whole(i) else [self.box(i), whole]
            for box in boxes:
                request = NetRequest(i, self.pins[i], box)
                self.watch.look(self.search, uniform, [request], "repair")
                xy = self.search.route(uniform, [request], legal_changed)[0]
                legal_changed = np.zeros(0, np.int64)
                if xy is not None:
                    return xy
            return None

        gained = 0
        rank = {int(i): k for k, i in enumerate(self.order)}
        for _ in range(passes):
            before = gained
            todo = sorted((i for i, c in enumerate(self.cells)
                           if c is None and i not in self.enclosed), key=rank.__getitem__)
            for u in todo:
                if self._late("repair"):
                    return gained
                start = time.perf_counter()
                changed = None if dirty is None else (
                    np.unique(np.concatenate(dirty)) if dirty else np.zeros(0, np.int64))
                dirty = []
                request = NetRequest(u, self.pins[u], whole)
                self.watch.look(push, dear.reshape(self.shape), [request], "repair")
                looked = self.watch.last
                xy = push.route(dear.reshape(self.shape), [request], changed)[0]
                if xy is None:
                    continue
                victims = sorted(set(own[xy[:, 1] * w + xy[:, 0]].tolist()) - {-1, u})
                if len(victims) > max_victims:
                    continue
                old = {v: self.cells[v] for v in victims}
                for v in victims:
                    lift(v)
                commit(u, xy)
                redone = {}
                for v in victims:
                    got = legal(v)
                    if got is None:
                        break
                    commit(v, got)
                    redone[v] = got
                if len(redone) == len(victims):
                    gained += 1
                    self.conflicts.pop(u, None)
                    self._took_in_repair(u, looked, redone)
                else:                                   # put everything back
                    for v in redone:
                        lift(v)
                    lift(u)
                    for v in victims:
                        commit(v, old[v])
                self.seconds[u] += time.perf_counter() - start
            if gained == before:
                break
        return gained

    def _took_in_repair(self, u: int, looked, redone: dict) -> None:
        """Repair committed net ``u`` (searched as ``looked`` saw it) and the victims
        ``redone``: the watched net among them took its route's search."""
        if self.watch.net == u:
            self.watch.last = looked
            self.watch.took(u)
        elif self.watch.net in redone:
            self.watch.took(self.watch.net)

    def tidy(self) -> None:
        """Shorten the legal wires: each routed net in turn (routing order) is searched
        again on uniform costs with every other wire fixed, and keeps the new wire when it
        is shorter (for two pins it is never longer: the old wire is still there). Nets
        go in ``reroute_order``, in order-keeping batches, as in :meth:`reroute`, of
        disjoint regions: a net's region holds its box and its wire, which legalise and
        repair may have routed outside the box (a net of the batch must not enter the
        lifted wire of another that then keeps it)."""
        self._reserve_wires()
        uniform = self._unit_costs()
        changed = None
        nets = np.array([i for i in self.order if self.cells[int(i)] is not None], np.int64)
        boxes = self.boxes(nets)
        regions = np.concatenate([np.minimum(boxes[:, :2], self.rlo[nets]),
                                  np.maximum(boxes[:, 2:], self.rhi[nets])], axis=1)
        order = self._order(regions)
        # a wire already as short as its pins allow keeps it: dropping it from the order
        # keeps every other pair of overlapping nets in turn, so no route changes
        ordered = nets[order].tolist()
        order = order[~as_short_as_can_be([self.pins[i] for i in ordered],
                                          [self.cells[i] for i in ordered])]
        nets, boxes, regions = nets[order].tolist(), boxes[order], regions[order]
        for batch in batches(regions, self.shape):
            if self._late("tidy"):
                return
            start = time.perf_counter()
            group = [nets[k] for k in batch]
            # the group's wires are lifted, its pins kept (wires of one group are disjoint)
            self._reserve(np.full(len(group), -1), [self.cells[i] for i in group])
            self._reserve(group, [self.pins[i] for i in group])
            requests = [NetRequest(i, self.pins[i], tuple(boxes[k]))
                        for i, k in zip(group, batch)]
            self.watch.look(self.search, uniform, requests, "tidy")
            found = self.search.route(uniform, requests, changed)
            changed = np.zeros(0, np.int64)
            shorter = [(i, new) for i, new in zip(group, found)
                       if new is not None and len(new) < len(self.cells[i])]
            if shorter:
                moved = [i for i, _ in shorter]
                if self.watch.net in moved:
                    self.watch.took(self.watch.net)
                self._rip(moved)
                self._commit(moved, [new for _, new in shorter],
                             [int(self.stamp[i]) for i in moved])
            self._reserve(group, [self.cells[i] for i in group])
            self.seconds[group] += (time.perf_counter() - start) / len(group)

    def run(self, progress: Callable[[IterationStats], None] | None = None) -> RouteResult:
        """Negotiate, legalise, repair, tidy, compare with the sequential floor; the
        routes.

        A ``time_limit`` bounds all of it: no step starts new work once it has run out
        (the loop stops between batches from iteration 2 on, the first giving every net
        a route; each phase after it stops between nets or batches; the space-filling
        search and the windows' solver are stopped); what was made stays where it is
        legal, and the result's phases and notice say what the limit cut short or
        skipped."""
        start = time.perf_counter()
        if self.options.time_limit is not None:
            self.deadline = self.now() + self.options.time_limit
        iterations = self.negotiate(progress)
        phases: list[PhaseStats] = []

        def phase(name: str, since: float, routed: int | None = None) -> None:
            # the phases after the loop take seconds on large layouts: say where they are
            if routed is None:
                routed = self.routed
            phases.append(PhaseStats(name, time.perf_counter() - since, routed,
                                     self.cut.get(name, "")))
            if self.layout.nets:            # a layout without nets has nothing to report
                log.info("%s: %d of %d nets routed, %.2f s%s", name, routed,
                         len(self.layout.nets), phases[-1].seconds,
                         f" ({phases[-1].cut} by the time limit)" if phases[-1].cut else "")

        def begin(name: str) -> float | None:
            """The phase's start, or None when the time limit skips it."""
            # legalise keeps the routing legal and the reasons say why nets are left
            # unrouted: both always run, and stop their searches when the time is out
            if name not in ("legalise", "reasons") and self._late():
                self.cut[name] = "skipped"
                phase(name, time.perf_counter())
                return None
            return time.perf_counter()

        for name, step in (("legalise", self.legalise), ("repair", self.repair),
                           ("tidy", self.tidy)):
            t0 = begin(name)
            if t0 is not None:
                step()
                phase(name, t0)
        result = self._after_loop(begin, phase, iterations)
        result.phases = phases
        result.seconds = time.perf_counter() - start
        if self.cut:
            limit = (f"the time limit ({self.options.time_limit:g} s) "
                     + "; ".join(f"{how} {', '.join(s for s, h in self.cut.items() if h == how)}"
                                 for how in ("cut short", "skipped")
                                 if how in self.cut.values()))
            result.notice = "; ".join(filter(None, (result.notice, limit)))
        return result

    def _after_loop(self, begin, phase, iterations: int) -> RouteResult:
        """The phases after legalise, repair and tidy (``begin`` and ``phase`` as in
        :meth:`run`): the space-filling search, the windows, the reasons, the floor."""
        result = self._result()
        asked = result.routed < len(self.layout.nets)
        if asked and (self._filled is not None or not self._fill_applies()
                      or begin("space-filling search") is not None):
            t0 = time.perf_counter()
            if self._fill():
                filled = self._result()
                filled.notice = (f"negotiation connected {result.routed} of "
                                 f"{len(self.layout.nets)} nets; a space-filling search "
                                 "connected them all" + (
                                     f" (wires then {self.filled_gain} cells shorter, "
                                     "touching wires rerouted together)" if self.filled_gain
                                     else ""))
                result = filled
            if self._fill_seconds:          # the search ran (now, or at budget_after)
                phase("space-filling search", t0, result.routed)
        if result.routed < len(self.layout.nets) - len(self.enclosed) and \
                self._windows_apply() and (t0 := begin("exact windows")) is not None:
            added = self._windows()
            if added is not None:
                if added:
                    before = result.routed
                    result = self._result()
                    result.notice = (f"negotiation connected {before} of "
                                     f"{len(self.layout.nets)} nets; exact re-solves of "
                                     f"windows round the others connected {added} more")
                phase("exact windows", t0, result.routed)
        if result.routed < len(self.layout.nets) and (t0 := begin("reasons")) is not None:
            self._explain(result, iterations)
            phase("reasons", t0, result.routed)
        if result.routed < len(self.layout.nets) - len(self.enclosed) and \
                (t0 := begin("sequential floor")) is not None:
            # the weighted search on unit costs is the fast floor on the CPU; a device
            # engine has the batched BFS router for it (whole-grid boxes one net at a
            # time would be its slowest case); it stops once it cannot route more
            floor_watch = Watch(self.watch.net)
            floor = sequential_routes(self.layout, self.backend, beat=result.routed,
                                      until=lambda: self._late("sequential floor"),
                                      watch=floor_watch)
            if floor is not None and floor.routed > result.routed:
                floor.notice = (f"sequential routing connected more nets ({floor.routed}) "
                                f"than negotiation ({result.routed}); its routes are kept")
                floor.engine, floor.order, floor.mode = result.engine, "file", "negotiate"
                floor.iterations, floor.history = result.iterations, result.history
                floor.stop = result.stop
                result = floor
                self.watch.taken = floor_watch.taken
                self._explain(result, iterations, negotiated=False)
            phase("sequential floor", t0, result.routed)
        return result

    def _fills(self) -> bool:
        """Whether the space-filling search (:mod:`.fill`) connects every net; it runs
        once (its answer depends on the layout alone), the first time it is asked."""
        if self._filled is None:
            if not self._fill_applies():
                self._filled = False    # an enclosed net has no wire at all: nothing fills
            else:
                start = time.perf_counter()
                left = None if self.deadline is None else max(0.0, self.deadline - self.now())
                got = fill_routes(self.free, self.pins, self.options.fill_steps, seconds=left)
                if got.status == "time":
                    self.cut.setdefault("space-filling search", "cut short")
                self._filled = got if got.status == "found" else False
                self._fill_seconds = time.perf_counter() - start
        return self._filled is not False

    def _fill_applies(self) -> bool:
        """Whether the space-filling search may run on this layout at all."""
        return not (self.options.fill_steps == 0 or self.enclosed
                    or any(len(p) != 2 for p in self.pins))

    def _fill(self) -> bool:
        """Try to connect every net by the space-filling search (:mod:`.fill`); on
        success the routes are its wires (in routing order) and True is returned."""
        if not self._fills():
            return False
        start = time.perf_counter() - self._fill_seconds
        got = self._filled
        for i in self.order:
            self._set_route(int(i), got.routes[i])
        # its wires cover every free cell: neighbours trade cells for shorter wires
        _, self.filled_gain = self._take_shortened(list(self.routes))
        self.seconds += (time.perf_counter() - start) / max(1, len(self.pins))
        return True

    def _take_shortened(self, routes: list[np.ndarray | None]) -> tuple[list[int], int]:
        """Let the touching wires of ``routes`` (flat cells; a legal routing) trade cells
        for shorter ones (:mod:`.shorten`), and give each net its wire where that differs
        from its route now; the nets whose route changed (in routing order), and the cells
        the wires lost."""
        w = self.shape[1]
        shorter, gained = shorten_wires(self.free, self.pins, routes, self.options.shorten_group)
        changed = [i for i in self.order.tolist() if shorter[i] is not None and (
            self.routes[i] is None or not np.array_equal(shorter[i], self.routes[i]))]
        for i in changed:
            self._set_route(i, np.stack([shorter[i] % w, shorter[i] // w], axis=1))
        return changed, gained

    def _windows(self) -> int | None:
        """Connect nets still unrouted by exact re-solves of windows round their pins
        (:mod:`.windows`), then let touching wires trade cells for shorter ones
        (:mod:`.shorten`), and again while that connects more (the shorter wires leave
        other windows room) and the option's work lasts; the nets it connected, or
        None when it does not apply (an option, a net of more than two pins, or no SAT
        solver installed)."""
        if not self._windows_apply():
            return None
        opt = self.options
        budget, added = opt.window_work, 0
        while budget > 0 and not self._late("exact windows"):
            start = time.perf_counter()
            todo = [i for i, c in enumerate(self.cells)
                    if c is None and i not in self.enclosed]
            got = complete_in_windows(self.free, self.pins, self.routes, nets=todo,
                                      work=budget, until=lambda: self._late("exact windows"))
            budget = 0 if got.full else budget - max(1, got.work)
            if not got.added:
                break
            added += got.added
            changed, _ = self._take_shortened(got.routes)
            self.seconds[changed] += (time.perf_counter() - start) / len(changed)
        return added

    def _windows_apply(self) -> bool:
        """Whether :meth:`_windows` may run on this layout at all."""
        return (self.options.window_work != 0 and all(len(p) == 2 for p in self.pins)
                and windows_available())

    # -- results ----------------------------------------------------------------------
    def _result(self) -> RouteResult:
        nets = []
        routed = [i for i, c in enumerate(self.cells) if c is not None]
        rank = {i: k for k, i in enumerate(sorted(routed, key=lambda i: self.stamp[i]))}
        turns = dict(zip(routed, wires_bends([self.cells[i] for i in routed],
                                             [self.pins[i] for i in routed])))
        for i, net in enumerate(self.layout.nets):
            r = NetRoute(net.name, list(net.pins), seconds=float(self.seconds[i]))
            xy = self.cells[i]
            if xy is not None:
                r.routed, r.order, r.length = True, rank[i], len(xy) - 1
                r.bends = turns[i]
                r.set_cells(xy)
            nets.append(r)
        return RouteResult(self.layout, nets, self.engine, "hpwl", 0.0,
                           mode="negotiate", iterations=list(self.iterations),
                           history=self.state.history_cost(), stop=self.stop)

    def _explain(self, result: RouteResult, iterations: int, negotiated: bool = True) -> None:
        """Set the reason of every unrouted net of ``result`` (``negotiated``: the
        routes are this negotiation's, so nets dropped by legalise were in conflict)."""
        todo = [i for i, r in enumerate(result.nets) if not r.routed]
        if not todo:
            return
        h, w = self.shape
        whole = (0, 0, w - 1, h - 1)
        wires = np.full(self.shape, -1, np.int32)
        routed = [i for i, r in enumerate(result.nets) if r.routed]
        if routed:
            cells = [result.nets[i].cell_array() for i in routed]
            xy = np.concatenate(cells)
            wires[xy[:, 1], xy[:, 0]] = np.repeat(np.asarray(routed, np.int32),
                                                   [len(c) for c in cells])
        # wires passable but dear, pins as always: which wires wall a net off
        wire_search = self._pin_search()
        wire_cost = np.ones(self.shape, COST_DTYPE)
        wire_cost[wires >= 0] = COST_MAX
        changed = None                  # the costs are sent at the first search only
        for i in todo:
            if negotiated and i in self.conflicts:
                result.nets[i].reason = (f"still in conflict with nets "
                                         f"{_names(self.layout, self.conflicts[i])} after "
                                         f"{iterations} iterations")
                continue
            if self._late("reasons"):
                result.nets[i].reason = (f"unrouted when the time limit "
                                         f"({self.options.time_limit:g} s) ran out")
                continue
            xy = wire_search.route(wire_cost, [NetRequest(i, self.pins[i], whole)],
                                   changed)[0]
            changed = _NO_CELLS
            if xy is not None:
                by = set(wires[xy[:, 1], xy[:, 0]].tolist()) - {-1, i}
                result.nets[i].reason = ("walled off by the wires of nets "
                                         + _names(self.layout, by))
                continue
            result.nets[i].reason = self._enclosure(i)

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
        return f"enclosed by the pins of nets {_names(self.layout, others)}"

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


def negotiate(layout: Layout, backend: str = "auto", *, max_iterations: int | None = None,
              time_limit: float | None = None,
              progress: Callable[[IterationStats], None] | None = None,
              options: PathFinderOptions | None = None,
              watch: Watch | None = None) -> RouteResult:
    """Route ``layout`` by negotiated congestion; see :class:`Negotiator`.

    ``max_iterations`` and ``time_limit`` override those of ``options`` (a
    ``max_iterations`` given here is the cap the caller chose: the iteration budget,
    ``budget_cells``, is lifted); ``progress`` is called with each iteration's
    :class:`~.result.IterationStats`; ``watch`` (:class:`~.watch.Watch`) keeps what
    the net it names saw at its searches.
    """
    if options is not None and not isinstance(options, PathFinderOptions):
        raise TypeError(f"options must be a PathFinderOptions, not {type(options).__name__}")
    options = options or PathFinderOptions()
    changes = {}
    if max_iterations is not None:
        changes["max_iterations"] = max_iterations
        changes["budget_cells"] = None
    if time_limit is not None:
        changes["time_limit"] = time_limit
    if changes:
        from dataclasses import replace
        options = replace(options, **changes)
    def negotiator(backend: str) -> Negotiator:
        ng = Negotiator(layout, backend, options)
        if watch is not None:
            watch.last = watch.taken = None
            ng.watch = watch
        return ng

    try:
        return negotiator(backend).run(progress)
    except device_errors() as e:
        # a GPU fault (out of memory, a CUDA error): one clear error when the GPU was
        # asked for; under auto the negotiation runs again on the CPU engine, with a
        # notice (negotiation keeps no wire final before it ends, so nothing is lost
        # but the time)
        if backend != "auto":
            raise EngineUnavailable(f"the GPU engine failed: {first_line(e)}") from None
        result = negotiator("cpu").run(progress)
        result.notice = "; ".join(filter(None, (
            f"gpu/weighted failed ({first_line(e)}); negotiated on the CPU engine",
            result.notice)))
        return result


__all__ = ["Negotiator", "PathFinderOptions", "batches", "negotiate", "sequential_routes",
           "COST_SCALE"]
