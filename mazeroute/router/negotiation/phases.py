"""The phases after negotiation's loop, as a list of steps of one signature.

Each step is ``step(ng, run) -> None``: ``ng`` the
:class:`~mazeroute.router.negotiate.Negotiator` (its routes), ``run`` the
:class:`PhaseRun` that holds the result so far, the phases' records and the clock. A step
asks :meth:`PhaseRun.begin` whether the time limit lets it start, does its work, and
records itself with :meth:`PhaseRun.end`. :data:`PHASES` lists them in order: a phase is
added, removed or moved in that one line.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from ..floor import FloorThread, sequential_routes
from ..result import PhaseStats, RouteResult
from ..watch import Watch

__all__ = ["PHASES", "PhaseRun", "run_phases", "legalise", "floor_beside", "repair", "tidy",
           "space_fill", "windows", "reasons", "floor"]

#: The phases after the loop, as they end (``mazeroute route`` shows them on a terminal).
log = logging.getLogger("mazeroute.router.negotiate")

#: Phases that always start, whatever the clock: legalise keeps the routing legal and the
#: reasons say why nets are left unrouted; both stop their searches when the time is out.
_ALWAYS = ("legalise", "reasons")


@dataclass
class PhaseRun:
    """One pass over the phases: the result so far (made from the routes at the first
    step that needs one), the loop's iterations, and each phase's record."""

    ng: object
    iterations: int
    result: RouteResult | None = None
    phases: list[PhaseStats] = field(default_factory=list)

    def current(self) -> RouteResult:
        """The result so far: the routes as the first step that asks finds them."""
        if self.result is None:
            self.result = self.ng._result()
        return self.result

    def end(self, name: str, since: float, routed: int | None = None) -> None:
        """Record phase ``name``, begun at ``since``, with ``routed`` nets (None: the
        routes now)."""
        # the phases after the loop take seconds on large layouts: say where they are
        ng = self.ng
        if routed is None:
            routed = ng.routed
        self.phases.append(PhaseStats(name, time.perf_counter() - since, routed,
                                      ng.cut.get(name, "")))
        if ng.layout.nets:            # a layout without nets has nothing to report
            last = self.phases[-1]
            log.info("%s: %d of %d nets routed, %.2f s%s", name, routed,
                     len(ng.layout.nets), last.seconds,
                     f" ({last.cut} by the time limit)" if last.cut else "")

    def begin(self, name: str) -> float | None:
        """The phase's start, or None when the time limit skips it."""
        if name not in _ALWAYS and self.ng._late():
            self.ng.cut[name] = "skipped"
            self.end(name, time.perf_counter())
            return None
        return time.perf_counter()


def _plain(name: str, method: str) -> Callable[[object, PhaseRun], None]:
    """The step of a phase that is one method of the negotiator, run when it may start."""
    def step(ng, run: PhaseRun) -> None:
        t0 = run.begin(name)
        if t0 is not None:
            getattr(ng, method)()
            run.end(name, t0)
    step.__name__ = step.__qualname__ = method
    step.__doc__ = f"The {name} phase (:meth:`~mazeroute.router.negotiate.Negotiator.{method}`)."
    return step


legalise = _plain("legalise", "legalise")
repair = _plain("repair", "repair")
tidy = _plain("tidy", "tidy")


def floor_beside(ng, run: PhaseRun) -> None:
    """Start the floor on a thread (:class:`~mazeroute.router.floor.FloorThread`) where
    the plan routes it beside the phases, with the nets routed now to beat: the phases
    after legalise never lose a net, so a floor that cannot beat these cannot beat the
    end's either, and the floor phase keeps it by the same rule. Not where a time limit
    runs (the floor phase heeds the clock then), the bound has timed the floor already,
    or a net is watched (its floor is a loop over the nets)."""
    if not (ng.plan.floor_beside and ng.floor_first is None and ng.watch.net is None
            and (ng.deadline is None or ng.bound_pending)
            and ng.routed < len(ng.layout.nets)):
        return
    ng.floor_thread = FloorThread(ng.layout, ng.plan.floor, beat=ng.routed)


def space_fill(ng, run: PhaseRun) -> None:
    """The space-filling search (:mod:`mazeroute.router.fill`) where nets stay unrouted;
    its routes replace the result's when it connects every net."""
    result = run.current()
    asked = result.routed < len(ng.layout.nets)
    if not (asked and (ng.filled is not None or not ng._fill_applies()
                       or run.begin("space-filling search") is not None)):
        return
    t0 = time.perf_counter()
    if ng._fill():
        filled = ng._result()
        filled.notice = (f"negotiation connected {result.routed} of "
                         f"{len(ng.layout.nets)} nets; a space-filling search "
                         "connected them all" + (
                             f" (wires then {ng.filled_gain} cells shorter, "
                             "touching wires rerouted together)" if ng.filled_gain
                             else ""))
        run.result = result = filled
    if ng.fill_seconds:          # the search ran (now, or at budget_after)
        run.end("space-filling search", t0, result.routed)


def windows(ng, run: PhaseRun) -> None:
    """Exact re-solves of windows round the nets still unrouted
    (:mod:`mazeroute.router.windows`)."""
    result = run.current()
    if not (result.routed < len(ng.layout.nets) - len(ng.enclosed)
            and ng._windows_apply() and (t0 := run.begin("exact windows")) is not None):
        return
    added = ng._windows()
    if added is None:
        return
    if added:
        before = result.routed
        run.result = result = ng._result()
        result.notice = (f"negotiation connected {before} of "
                         f"{len(ng.layout.nets)} nets; exact re-solves of "
                         f"windows round the others connected {added} more")
    run.end("exact windows", t0, result.routed)


def reasons(ng, run: PhaseRun) -> None:
    """The reason of every net left unrouted."""
    result = run.current()
    if result.routed < len(ng.layout.nets) and (t0 := run.begin("reasons")) is not None:
        ng._explain(result, run.iterations)
        run.end("reasons", t0, result.routed)


def floor(ng, run: PhaseRun) -> None:
    """Sequential mode's routes (:func:`~mazeroute.router.floor.sequential_routes`, on
    the plan's floor backend), kept when they connect more nets."""
    result = run.current()
    t0 = time.perf_counter()
    thread, ng.floor_thread = ng.floor_thread, None
    # a floor beside the phases is waited for whatever comes of it: no thread outlives
    # the run, and what it raised is raised here
    beside = thread.join() if thread is not None else None
    if not result.routed < len(ng.layout.nets) - len(ng.enclosed):
        return
    if ng.floor_first is not None:
        # routed and timed for the wait bound: kept whatever the clock says, so that a
        # bounded run never ends with fewer nets than sequential routing
        got, floor_watch = ng.floor_first, ng.floor_watch
    elif thread is not None or ng.bound_pending:
        # beside the phases (None: it could not beat legalise's nets), or now: the wait
        # bound never needed the floor's time, so it is routed whatever the clock says,
        # for the same reason, and stops once it cannot route more
        floor_watch = Watch(ng.watch.net)
        got = beside if thread is not None else sequential_routes(
            ng.layout, ng.plan.floor, beat=result.routed, watch=floor_watch)
        if ng.bound_pending:
            # the bound is not timed after all: only the floor's reasons follow
            ng.bound_pending, ng.deadline = False, None
    elif (t0 := run.begin("sequential floor")) is None:
        return
    else:
        # a time limit is running here, so on the CPU the floor goes a net at a time
        # (the weighted search on unit costs) to heed it; a device has the batched BFS
        # router for it (whole-grid boxes one net at a time would be its slowest case);
        # it stops once it cannot route more
        floor_watch = Watch(ng.watch.net)
        got = sequential_routes(ng.layout, ng.plan.floor, beat=result.routed,
                                until=lambda: ng._late("sequential floor"), watch=floor_watch)
    if got is not None and got.routed > result.routed:
        got.notice = (f"sequential routing connected more nets ({got.routed}) "
                      f"than negotiation ({result.routed}); its routes are kept")
        got.engine, got.order, got.mode = result.engine, "file", "negotiate"
        got.iterations, got.history = result.iterations, result.history
        got.stop = result.stop
        run.result = result = got
        ng.watch.taken = floor_watch.taken
        ng._explain(result, run.iterations, negotiated=False)
    run.end("sequential floor", t0, result.routed)


#: The phases after the loop, in order.
PHASES: tuple[Callable[[object, PhaseRun], None], ...] = (
    legalise, floor_beside, repair, tidy, space_fill, windows, reasons, floor)


def run_phases(ng, iterations: int, phases=PHASES) -> RouteResult:
    """Run ``phases`` after a loop of ``iterations``; the result, with their records."""
    run = PhaseRun(ng, iterations)
    try:
        for step in phases:
            step(ng, run)
    finally:
        if ng.floor_thread is not None:     # no floor step, or a step's error
            ng.floor_thread.wait()
            ng.floor_thread = None
    result = run.current()
    result.phases = run.phases
    return result
