"""The options of negotiated routing (:class:`PathFinderOptions`), named as VPR names
them; the loop's stopping rules that read only them and the iterations' figures are
its base, :class:`~.stops.StopRules`.

Examples
--------
>>> opt = PathFinderOptions(max_iterations=5)
>>> opt.pres_fac(1), opt.max_iterations
(0.0, 5)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields

import numpy as np

from .stops import StopRules

__all__ = ["PathFinderOptions", "REROUTE_ORDERS", "MAX_OPTION_INT", "MAX_OPTION_FLOAT"]

#: Values of :attr:`PathFinderOptions.reroute_order`.
REROUTE_ORDERS = ("colour", "hpwl")


@dataclass(frozen=True)
class PathFinderOptions(StopRules):
    """Parameters of negotiated-congestion routing, named as VPR names them.

    Parameters
    ----------
    max_iterations : most routing iterations before legalisation (the command line's
        ``--max-iterations N`` sets it and lifts ``budget_cells``)
    budget_after : iterations that always run (unless a stop below comes first; VPR's
        default ``--max_router_iterations``); later ones run only while negotiation's
        searches so far cover fewer than ``budget_cells`` cells (the box areas of every
        search, summed; None: no budget, up to ``max_iterations``). Iterations of a
        small layout cost little, and a dense one (a numberlink puzzle) often resolves
        its last conflicts after many of them; on a large layout the first iterations
        alone search more than the budget. Counted in cells, not seconds, so that the
        same input gives the same routes on every machine (``2**23`` cells are about
        half a second of the CPU engine's searches on one core). Where every net has
        two pins, the space-filling search (``fill_steps``) is tried first, after
        ``budget_after`` iterations; when it connects every net, its routes are taken
        and negotiation goes no further
    time_limit : seconds the whole negotiated routing may take, the phases after the
        loop included: once they are out no step starts new work, and the result says
        what the limit cut short (None: no limit)
    wait_factor : without a ``time_limit``, the whole negotiated routing may take this
        many times as long as sequential routing of the same layout (the floor, routed
        and timed for it once the run outlasts ``min_wait``), or ``min_wait`` seconds,
        whichever is longer; the bound then acts as a ``time_limit`` does (0: no
        bound). A user waits for negotiation where sequential routing would have
        answered at once, so the wait is measured against it; where the bound cuts
        negotiation short, the floor's routes are kept if they connect more nets.
        Time spent compiling the engines (a first run on a fresh install) does not
        count against the bound
    min_wait : seconds ``wait_factor`` always allows (small layouts route sequentially
        in milliseconds, which would leave negotiation no time at all)
    crowd_iterations : stop negotiating after ``crowd_iterations`` iterations or more when
        each of the last ``crowd_iterations`` left at least ``crowd_share`` of the nets
        (and at least ``stall_min_conflicts``) in conflict, and none of them left
        ``stall_improvement`` fewer in conflict than the first (None: never): the nets
        need far more room than there is, and negotiation settles nearly all of them
        by legalisation, whose result the first iterations already hold; later
        iterations reroute every net in ever larger boxes for a few more nets at most
    crowd_share : see ``crowd_iterations``
    first_iter_pres_fac : ``pres_fac`` of iteration 1 (0: every net takes its shortest
        path and the first conflicts show where the demand is)
    initial_pres_fac : ``pres_fac`` of iteration 2
    pres_fac_mult : factor on ``pres_fac`` after each later iteration
    max_pres_fac : cap of ``pres_fac`` (VPR's default is 1000; here 10: with net history
        the price of a collision keeps growing anyway, costs stay far from
        ``COST_MAX`` so history still tells cells apart, and nets do not leap at
        detours that wall others in)
    acc_fac : history added per unit of overuse per iteration
    net_acc : weight added to a net for each iteration it ends in conflict (see above)
    bb_factor : cells by which a net's search box exceeds its pins' bounding box at first
    bb_grow : factor on that margin each time the box is grown
    bb_patience : a net's box is grown after this many iterations in conflict (and
        whenever a search fails in it, or a net in conflict ran along its edge)
    bb_grow_limit : growth for conflicts stops before the margin exceeds this many times
        the longer side of the net's pin box (plus ``bb_factor``): a bigger box costs
        search time and seldom holds a better way round (a failed search still grows
        the box, up to the whole grid)
    stall_iterations : stop negotiating when, over the last ``stall_iterations``
        iterations, neither the fewest overused cells nor the fewest nets in conflict
        has fallen by ``stall_improvement`` (a fraction, and at least one) below the
        fewest seen before them (None: never), whichever nets are in conflict: the
        negotiation has reached its plateau, and more iterations cost search time
        without routing more nets. This plays the part of VPR's
        ``--routing_failure_predictor``, which gives up on a route whose overuse no
        longer falls fast enough to converge
    stall_improvement : see ``stall_iterations``
    stall_min_conflicts : the stall rule applies while at least this many nets are in
        conflict: hundreds of nets in conflict on a plateau mean more demand than room,
        which legalisation must settle anyway, while with few a long plateau still ends
        in a legal route often enough (numberlink puzzles do, after 20 iterations and
        more) for its cheap iterations to be worth running
    diverge_factor : stop negotiating when each of the last ``diverge_iterations``
        iterations left at least this many times the overused cells of the first, while
        at least ``stall_min_conflicts`` nets are in conflict (None: never). The first
        iteration routes every net its shortest way (``first_iter_pres_fac`` 0), and in
        a negotiation that can converge the overuse falls from there as the present
        factor rises (it may flare up late, far below the first's); where it grows past
        the first's and stays there, the nets' detours round each other cost more room
        than they free (long nets through the one-cell corridors of a maze, or a winding
        corridor far too narrow for its nets), and each iteration reroutes them all in
        boxes grown to much of the grid. VPR's ``--routing_failure_predictor`` gives up
        on a rising overuse in the same way (benchmarks/RESULTS.md, "The loop's rules and
        their scripts")
    diverge_iterations : see ``diverge_factor``
    kept_iterations : stop negotiating when, over the last ``kept_iterations``
        iterations, the nets it would keep if it stopped (an estimate: the routed nets
        less a greedy cover of the conflict graph,
        :meth:`~mazeroute.router.negotiate.Negotiator.kept`) reached no new high, while
        at least ``stall_min_conflicts`` nets have been in conflict at every iteration
        (None: never). Where the nets need more room than there is, nearly every net
        stays in conflict and the overused cells keep falling by a few per cent an
        iteration, so the plateau rule above does not end the loop; yet legalisation
        ends with about the nets it would have kept ten iterations before, while each
        iteration reroutes them all in boxes grown to much of the grid. The nets kept
        is the measure a user waits for (benchmarks/RESULTS.md, "The loop's rules and their
        scripts")
    stall_min_cells : ... or while each of the last ``stall_iterations`` iterations
        searched at least this many cells (the box areas of its searches, summed): a
        few nets in conflict can still cost whole-grid searches on a big grid, where a
        plateau costs as much as a congested layout's (None: never)
    fill_steps : when nets stay unrouted and every net has two pins, the space-filling
        search (:mod:`.fill`) may try this many choices to connect them all (0: never);
        it needs no clock, about 50 million choices a second
    snapshot_nets : from iteration 2 on, a net waits only for the overlapping nets at
        least this many places before it in the routing order; nets closer than that
        are searched in one call on one snapshot of the costs, blind to each other's new
        wires (1, the default: PathFinder's order, where each net sees every net
        rerouted before it). Calls are what a device waits on, one after another: more
        than 1 bounds them to one per ``snapshot_nets`` nets rerouted, and so routes
        sooner on a GPU, but nets of one call that take the same cell meet again as a
        conflict of the next iteration, and congested layouts end with fewer nets
        routed (benchmarks/RESULTS.md, "Quality and speed", measures both; not in VPR,
        whose parallel router also routes nets at once on stale costs)
    group_nets : from iteration 2 on, the nets rerouted are taken in groups of at most
        this many, no two of a group whose current wires share a cell (the classes of a
        greedy colouring of that relation, in routing order); a group's nets search in
        one call on the costs of every net's current wire, each pricing the cells of its
        own as if it were gone, and then the group's new wires replace the old ones (0,
        the default, and 1: PathFinder's order). A net misses only the new wires of its
        group, not their old ones, so fewer calls cost less quality than
        ``snapshot_nets``'s. Both engines price a net's own cells
        (:attr:`~mazeroute.engines.weighted.NetRequest.own`) and route the same wires. Off
        by default: PathFinder's order already searches the nets of disjoint boxes in
        one call, and on the largest layouts measured the groups took longer on a GPU
        (benchmarks/RESULTS.md, "Negotiation's schedules")
    reroute_order : the order of the nets rerouted in an iteration (from iteration 2 on) and
        tidied at the end: ``colour`` (the default) takes them by first-fit colour of
        their boxes' overlap in ``hpwl`` order, then in ``hpwl`` order
        (:func:`~mazeroute.router.negotiation.schedule.colour_order`); ``hpwl`` takes them
        smallest pin box first, then in file order. Either is an order of PathFinder, each net
        seeing every net rerouted before it; ``colour`` needs fewer calls of disjoint
        boxes, which is what a device waits on (a chain of boxes each overlapping the
        next takes two calls instead of one a box)
    device_chains : on an engine that chains (the GPU's), the batches of an iteration
        (from iteration 2 on) go in chains: the device rips up, searches, commits and
        prices batch after batch with no look from the host between them
        (:meth:`~mazeroute.engines.weighted.NetSearch.route_chain`); the routes are the
        same. Off by default: sooner on some large layouts, later on the largest
        (benchmarks/RESULTS.md, "Negotiation's engine")
    device_state : on an engine that keeps negotiation's state itself (the GPU's), the
        loop's rip-ups, commits, pricing and overuse count run on the device beside the
        searches, each pass of reroutes one upload and one read back, the routes back on
        the host once the loop ends (:mod:`.device`); the routes are the same (on by
        default; benchmarks/RESULTS.md, "Negotiation's state on the device"), the
        group schedule's too. Not with a watched net (that loop goes on the host)
    window_work : when nets still stay unrouted after the space-filling search and every
        net has two pins, windows round each one's pins are re-solved exactly with the
        wires crossing them (:mod:`.windows`, a SAT solver), within this much work in
        all, counted in the solver's conflicts (0: never; needs the ``python-sat``
        package); it needs no clock, some seconds at most on one core by default
    shorten_group : after the space-filling search connected every net, up to this many
        touching wires are rerouted together for shorter wires (:mod:`.shorten`; 0 or
        1: its wires are kept as they are; each group is tried in all of its
        ``shorten_group!`` orders)
    """

    max_iterations: int = 1000
    budget_after: int = 50
    budget_cells: int | None = 1 << 23
    time_limit: float | None = None
    wait_factor: float = 20.0
    min_wait: float = 10.0
    first_iter_pres_fac: float = 0.0
    initial_pres_fac: float = 0.5
    pres_fac_mult: float = 1.3
    max_pres_fac: float = 10.0
    acc_fac: float = 1.0
    net_acc: int = 1
    bb_factor: int = 3
    bb_grow: int = 2
    bb_patience: int = 3
    bb_grow_limit: float = 4.0
    stall_iterations: int | None = 10
    stall_improvement: float = 0.05
    stall_min_conflicts: int = 32
    stall_min_cells: int | None = 1 << 18
    diverge_factor: float | None = 1.5
    diverge_iterations: int = 3
    kept_iterations: int | None = 10
    crowd_iterations: int | None = 5
    crowd_share: float = 0.9
    fill_steps: int = 400_000_000
    snapshot_nets: int = 1
    group_nets: int = 0
    reroute_order: str = "colour"
    shorten_group: int = 3
    device_chains: bool = False
    device_state: bool = True
    window_work: int = 50_000

    def __post_init__(self):
        for name, value in ((f.name, getattr(self, f.name)) for f in fields(self)):
            kind = _KINDS.get(name)
            if kind is None or (value is None and name in _OPTIONAL):
                continue
            if isinstance(value, (np.integer, np.floating)) and not isinstance(value, np.bool_):
                # a NumPy number (a value read from an array) is the number it holds
                value = value.item()
                object.__setattr__(self, name, value)
            if kind is int and (isinstance(value, bool) or not isinstance(value, int)
                                or abs(value) > MAX_OPTION_INT):
                raise ValueError(f"{name} = {value!r} must be a whole number of at most "
                                 f"{MAX_OPTION_INT}")
            if kind is float and (isinstance(value, bool) or not isinstance(value, (int, float))
                                  or not math.isfinite(value) or abs(value) > MAX_OPTION_FLOAT):
                raise ValueError(f"{name} = {value!r} must be a finite number of at most "
                                 f"{MAX_OPTION_FLOAT:g}")
        checks = [("max_iterations", self.max_iterations >= 1),
                  ("budget_after", self.budget_after >= 1),
                  ("budget_cells", self.budget_cells is None or self.budget_cells >= 0),
                  ("time_limit", self.time_limit is None or self.time_limit >= 0),
                  ("wait_factor", self.wait_factor >= 0),
                  ("min_wait", self.min_wait >= 0),
                  ("first_iter_pres_fac", self.first_iter_pres_fac >= 0),
                  ("initial_pres_fac", self.initial_pres_fac >= 0),
                  ("pres_fac_mult", self.pres_fac_mult >= 1),
                  ("max_pres_fac", self.max_pres_fac >= 0),
                  ("acc_fac", self.acc_fac >= 0),
                  ("net_acc", 0 <= self.net_acc <= 2**20),   # weights add up in int64
                  ("bb_factor", self.bb_factor >= 0),
                  ("bb_grow", 2 <= self.bb_grow <= 2**20),   # margins multiply by it
                  ("bb_patience", self.bb_patience >= 1),
                  ("bb_grow_limit", self.bb_grow_limit >= 0),
                  ("stall_iterations", self.stall_iterations is None
                   or self.stall_iterations >= 1),
                  ("stall_improvement", 0 <= self.stall_improvement < 1),
                  ("stall_min_conflicts", self.stall_min_conflicts >= 0),
                  ("stall_min_cells", self.stall_min_cells is None
                   or self.stall_min_cells >= 0),
                  ("diverge_factor", self.diverge_factor is None
                   or self.diverge_factor >= 1),
                  ("diverge_iterations", self.diverge_iterations >= 1),
                  ("kept_iterations", self.kept_iterations is None
                   or self.kept_iterations >= 1),
                  ("crowd_iterations", self.crowd_iterations is None
                   or self.crowd_iterations >= 1),
                  ("crowd_share", 0 <= self.crowd_share <= 1),
                  ("fill_steps", self.fill_steps >= 0),
                  ("snapshot_nets", self.snapshot_nets >= 1),
                  ("group_nets", self.group_nets >= 0),
                  ("reroute_order", self.reroute_order in REROUTE_ORDERS),
                  ("shorten_group", self.shorten_group >= 0),
                  ("window_work", self.window_work >= 0),
                  ("device_chains", isinstance(self.device_chains, bool)),
                  ("device_state", isinstance(self.device_state, bool))]
        for name, ok in checks:
            if not ok:
                raise ValueError(f"{name} = {getattr(self, name)!r} is out of range")

    def bound(self, floor_seconds: float) -> float | None:
        """Seconds negotiation may take without a ``time_limit``, where sequential
        routing took ``floor_seconds`` (None: unbounded; see ``wait_factor``).

        >>> PathFinderOptions().bound(2.0), PathFinderOptions().bound(0.1)
        (40.0, 10.0)
        >>> PathFinderOptions(wait_factor=0).bound(2.0) is None
        True
        """
        if self.wait_factor == 0:
            return None
        return max(self.min_wait, self.wait_factor * floor_seconds)

    def pres_fac(self, iteration: int) -> float:
        """``pres_fac`` during ``iteration`` (1, 2, ...)."""
        if iteration <= 1:
            return self.first_iter_pres_fac
        try:
            grown = self.initial_pres_fac * self.pres_fac_mult ** (iteration - 2)
        except OverflowError:              # past any cap long before: thousands of iterations
            return self.max_pres_fac
        return min(self.max_pres_fac, grown)


#: Largest whole-number option: compiled code takes them as 64-bit integers.
MAX_OPTION_INT = 2**53
#: Largest real option: costs are fixed-point integers of
#: :data:`~mazeroute.engines.costs.COST_SCALE` units.
MAX_OPTION_FLOAT = 1e9
_KINDS = {f.name: (int if f.type in ("int", "int | None") else
                   float if f.type in ("float", "float | None") else None)
          for f in fields(PathFinderOptions)}
_OPTIONAL = {f.name for f in fields(PathFinderOptions) if "None" in str(f.type)}
