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
/ ``time_limit`` (or the wait bound, ``wait_factor``), or after ``budget_after``
iterations once its searches covered ``budget_cells`` cells (or when overuse stops
falling, ``stall_iterations``, grows past the first iteration's, ``diverge_factor``, the
nets it would keep stop growing, ``kept_iterations``, or nearly every net stays in
conflict from the first iterations on, ``crowd_iterations``); then
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
:func:`~.negotiation.schedule.colour_order`), so that boxes that overlap in a chain
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
The limit bounds the phases after the loop too (:meth:`Negotiator.run`). Without one,
the wait bound (``wait_factor``) stands for it: sequential routing is routed and timed
first, negotiation may take ``wait_factor`` times as long (``min_wait`` at least), and
those routes are kept when negotiation ends with fewer nets; so a default run, too, may
stop where the machine's speed says, on a layout that takes that long.

Where it lives: the options in :mod:`.negotiation.options`, the order and batches in
:mod:`.negotiation.schedule`, routes and boxes in :mod:`.negotiation.state`, the
congestion state in :mod:`.congestion`, the loop in :mod:`.negotiation.loop`, the phases
after it in :mod:`.negotiation.phases` (:data:`~.negotiation.phases.PHASES`), and which
search takes a call in :mod:`.dispatch`; the engines come from the plan
(:func:`mazeroute.plan.make_plan`).

Examples
--------
>>> from mazeroute.readers import parse_layout
>>> lay = parse_layout({"width": 5, "height": 4, "nets": [  # sequential: a walls b off
...     {"name": "a", "pins": [[0, 1], [4, 1]]}, {"name": "b", "pins": [[2, 0], [2, 2]]}]})
>>> res = Negotiator(lay, "cpu").run()
>>> [(n.name, n.routed) for n in res.nets], res.iterations[-1].overused, res.mode
([('a', True), ('b', True)], 0, 'negotiate')
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import numpy as np

from ..compiled import compile_excluded
from ..engines.weighted import PinTable
from ..errors import EngineUnavailable
from ..layout import Layout
from ..plan import Plan, device_errors, first_line, make_plan
from .congestion import COST_SCALE, Congestion, PathFinderOptions
from .dispatch import net_search
from .floor import FloorThread, sequential_routes
from .negotiation.conflicts import Conflicts, _independent
from .negotiation.device import DeviceLoop
from .negotiation.explain import Explain
from .negotiation.explain import names as _names
from .negotiation.fillers import Fillers
from .negotiation.legal import WIRE_COST, Legalise
from .negotiation.loop import Loop
from .negotiation.phases import log, run_phases
from .negotiation.schedule import as_short_as_can_be, batches, hpwl_order
from .negotiation.state import RouteBook
from .result import IterationStats, RouteResult
from .watch import Watch


class Negotiator(RouteBook, Conflicts, Loop, DeviceLoop, Legalise, Fillers, Explain):
    """One layout's negotiated routing: the search engine, the congestion state, every
    net's current route and box.

    The work is in its parts (module notes): routes and boxes (:class:`RouteBook`), the
    conflict graph (:class:`Conflicts`), the loop (:class:`Loop`), legalise, repair and
    tidy (:class:`Legalise`), the space-filling search and the windows
    (:class:`Fillers`), the reasons (:class:`Explain`); the phases after the loop run
    in the order of :data:`~.negotiation.phases.PHASES`.

    Parameters
    ----------
    layout : the layout to route
    backend : ``cpu``, ``gpu`` or ``auto``: asked of the planner when no ``plan`` is given
    options : :class:`~.negotiation.options.PathFinderOptions`
    plan : the engines to use (:func:`mazeroute.plan.make_plan`, ``mode="negotiate"``)
    """

    def __init__(self, layout: Layout, backend: str = "auto",
                 options: PathFinderOptions | None = None, plan: Plan | None = None):
        self.layout = layout
        self.options = options or PathFinderOptions()
        self.shape = (layout.height, layout.width)
        h, w = self.shape
        self.free = ~layout.blocked
        self.owner = np.full(self.shape, -1, np.int32)
        n = len(layout.nets)
        # every pin in one array, each net's a view of it: an array made a net, and an
        # owner set a net, took a share of the set-up on the largest layouts
        count = np.fromiter((len(net.pins) for net in layout.nets), np.int64, n)
        ptr = np.zeros(n + 1, np.int64)
        np.cumsum(count, out=ptr[1:])
        xy = np.fromiter((c for net in layout.nets for p in net.pins for c in p), np.int64,
                         2 * int(ptr[-1])).reshape(-1, 2)
        self.pins = [xy[a:z] for a, z in zip(ptr[:-1].tolist(), ptr[1:].tolist())]
        self.owner[xy[:, 1], xy[:, 0]] = np.repeat(np.arange(n, dtype=np.int32), count)
        #: Every engine choice of this run (the weighted search's backend, the floor's).
        self.plan = plan if plan is not None else make_plan(layout, backend, mode="negotiate")
        # adaptive: calls of few nets go to the CPU engine when that is sooner (late
        # iterations reroute a few nets in many small batches)
        self.search = net_search(self.plan.negotiation, self.free, self.owner, adaptive=True)
        self.backend = self.plan.negotiation
        self.engine = f"{self.backend}/weighted"
        #: Every net's pins, flat (:class:`~mazeroute.engines.weighted.PinTable`).
        self.pins_flat = PinTable(ptr, (xy[:, 1] * w + xy[:, 0]).astype(np.int32))
        self.lo = self.hi = np.zeros((0, 2), np.int64)
        if n:
            self.lo = np.minimum.reduceat(xy, ptr[:-1])
            self.hi = np.maximum.reduceat(xy, ptr[:-1])
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
        self.pieces: np.ndarray | None = None   # see _cut_off
        self.colour_cells: np.ndarray | None = None    # see _groups
        self.pinned = None                       # see _pin_search
        self.unit_cost: np.ndarray | None = None     # see _unit_costs
        self.filled = None                       # see _fills
        self.fill_seconds = 0.0
        self.conflicts: dict[int, set[int]] = {}  # nets dropped by legalise, and why
        self.filled_gain = 0                     # cells shorten_wires took off fill's wires
        self.iterations: list[IterationStats] = []
        self.stop: str | None = None             # why the loop stopped (see _stop)
        self.cells_searched = 0                  # box areas of reroute's searches, summed
        self.searched: list[int] = []            # ... of each iteration
        self.kept_nets: list[int] = []           # kept() after each iteration (see settled)
        self.clock = 0
        #: The clock the time limit is read on (a test may set a fake one).
        self.now: Callable[[], float] = time.perf_counter
        self.deadline: float | None = None       # when the time limit runs out (see run)
        #: The limit's words in the report: the time limit, or the wait bound
        #: (``wait_factor``) that stands for it when none was given.
        self.limit_words = f"time limit ({self.options.time_limit:g} s)" \
            if self.options.time_limit is not None else None
        #: Sequential routing's result when the wait bound timed it (the floor phase
        #: keeps it, whatever the clock says; see _bound).
        self.floor_first: RouteResult | None = None
        #: Whether the wait bound's deadline is still ``min_wait``'s, the floor not yet
        #: timed, and when the bound's time counts from (see _bound).
        self.bound_pending = False
        self.bound_start = 0.0
        self.floor_watch: Watch | None = None
        #: The floor routing beside the phases after legalise (see phases.floor_beside).
        self.floor_thread: FloorThread | None = None
        #: Steps the time limit stopped part way ("cut short") or before they began
        #: ("skipped"), in order.
        self.cut: dict[str, str] = {}
        #: What the net it names saw at its searches (``mazeroute wavefront``).
        self.watch = Watch()
        #: Routing order within an iteration: smallest pin box first, then file order.
        self.order = hpwl_order(self.lo, self.hi)

    def run(self, progress: Callable[[IterationStats], None] | None = None) -> RouteResult:
        """Negotiate, then the phases after the loop (legalise, repair, tidy, ..., the
        sequential floor: :data:`~.negotiation.phases.PHASES`); the routes.

        A ``time_limit`` bounds all of it: no step starts new work once it has run out
        (the loop stops between batches from iteration 2 on, the first giving every net
        a route; each phase after it stops between nets or batches; the space-filling
        search and the windows' solver are stopped); what was made stays where it is
        legal, and the result's phases and notice say what the limit cut short or
        skipped."""
        start = time.perf_counter()
        self._bound()
        iterations = self.negotiate(progress)
        result = run_phases(self, iterations)
        result.seconds = time.perf_counter() - start
        if self.cut:
            limit = (f"the {self.limit_words} "
                     + "; ".join(f"{how} {', '.join(s for s, h in self.cut.items() if h == how)}"
                                 for how in ("cut short", "skipped")
                                 if how in self.cut.values()))
            result.notice = "; ".join(filter(None, (result.notice, limit)))
        return result

    def _bound(self) -> None:
        """Set the deadline: the time limit's, or without one the wait bound's
        (:meth:`~.negotiation.options.PathFinderOptions.bound`). The bound is never less
        than ``min_wait``, so sequential routing, which it is timed on, is routed only
        once the run outlasts that (:meth:`_time_floor`); a run that ends sooner never
        needed its time, and the floor phase routes the floor then. The bound's clock
        stands still while the process compiles
        (:func:`~mazeroute.compiled.compile_excluded`)."""
        opt = self.options
        if opt.time_limit is not None:
            self.deadline = self.now() + opt.time_limit
            return
        if opt.wait_factor == 0 or not self.layout.nets:
            return
        # a first compile (a fresh install's) is no part of the wait: on the bound's
        # clock it takes no time, so a first run stops where later runs stop
        self.now = compile_excluded(self.now)
        self.bound_start = self.now()
        self.bound_pending = True
        self.deadline = self.bound_start + opt.min_wait
        self.limit_words = (f"wait bound (at least {opt.min_wait:g} s: {opt.wait_factor:g} "
                            "times sequential routing's time)")

    def _time_floor(self) -> None:
        """Route the floor and time it, which sets the wait bound's deadline, counted
        from the run's start; the floor phase keeps those routes whatever the clock
        says."""
        self.bound_pending = False
        t0 = self.now()
        self.floor_watch = Watch(self.watch.net)
        self.floor_first = sequential_routes(self.layout, self.plan.floor,
                                             watch=self.floor_watch)
        self._bound_by(self.bound_start, self.now() - t0)

    def _bound_by(self, t0: float, seconds: float) -> None:
        """The wait bound's deadline, counted from ``t0``, for a floor of ``seconds``."""
        opt = self.options
        limit = opt.bound(seconds)
        self.limit_words = (f"wait bound ({limit:.3g} s: {opt.wait_factor:g} times "
                            f"sequential routing's time, at least {opt.min_wait:g} s)")
        self.deadline = t0 + limit


@contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector paused for the block, then as it was before:
    a negotiation makes arrays, lists and routes by the net, none of them in a
    reference cycle, and on the largest layouts the collector's passes over them all
    cost a share of its time.

    >>> import gc
    >>> with collector_paused():
    ...     gc.isenabled()
    False
    """
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


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
    plan = make_plan(layout, backend, mode="negotiate")

    def negotiator(plan: Plan) -> Negotiator:
        ng = Negotiator(layout, plan.requested, options, plan)
        if watch is not None:
            watch.last = watch.taken = None
            ng.watch = watch
        return ng

    with collector_paused():
        return _negotiated(layout, plan, negotiator, progress)


def _negotiated(layout: Layout, plan: Plan, negotiator: Callable[[Plan], Negotiator],
                progress: Callable[[IterationStats], None] | None) -> RouteResult:
    """:func:`negotiate`'s run on ``plan``, or on its fallback after a GPU fault."""
    try:
        return negotiator(plan).run(progress)
    except device_errors() as e:
        # a GPU fault (out of memory, a CUDA error): one clear error when the plan has
        # no fallback (the GPU was asked for); else the negotiation runs again on the
        # plan's fallback, with a notice (negotiation keeps no wire final before it
        # ends, so nothing is lost but the time)
        if plan.fallback is None:
            raise EngineUnavailable(f"the GPU engine failed: {first_line(e)}") from None
        result = negotiator(make_plan(layout, plan.fallback, mode="negotiate")).run(progress)
        result.notice = "; ".join(filter(None, (
            f"gpu/weighted failed ({first_line(e)}); negotiated on the CPU engine",
            result.notice)))
        return result


__all__ = ["Negotiator", "PathFinderOptions", "batches", "negotiate", "sequential_routes",
           "COST_SCALE", "WIRE_COST", "as_short_as_can_be", "log", "_independent", "_names"]
