"""The negotiation state of PathFinder (McMurchie and Ebeling, FPGA 1995), kept as VPR
keeps it: every cell's base cost, history cost and present occupancy, and the present
factor ``pres_fac``, in one place, with the cost a net pays to enter a cell.

A cell of capacity 1 costs ``(base + history) * present`` to enter, with
``present = 1 + pres_fac * load``: ``load`` counts the other nets using the cell (the net
being routed has been ripped up, so this is the overuse the cell would have if the net
took it). ``history`` grows by ``acc_fac * overuse`` on every cell still overused at the
end of an iteration; ``pres_fac`` is ``first_iter_pres_fac`` in iteration 1,
``initial_pres_fac`` in iteration 2, and is multiplied by ``pres_fac_mult`` after each
later iteration, up to ``max_pres_fac``. The parameters carry VPR's names
(``--first_iter_pres_fac``, ``--initial_pres_fac``, ``--pres_fac_mult``,
``--max_pres_fac``, ``--acc_fac``, ``--bb_factor``).

Net history (``net_acc``, not in VPR). On a grid of capacity-1 cells most conflicts are
two wires crossing, and one of them must go round an end of the other. Cell history
only prices the crossing cell, so the crossing creeps along the wires one cell per
iteration. So each net also has a weight, ``1 + net_acc * (iterations it ended in
conflict)``, and ``load`` sums the weights of a cell's users: the wires of nets that keep
colliding (the ones with the fewest alternatives) become dear to cross anywhere, and a
net with room to spare is the one that moves. ``net_acc = 0`` is VPR's cost exactly.

Examples
--------
>>> import numpy as np
>>> state = Congestion(np.ones((1, 4), bool), nets=2)
>>> state.set_pres_fac(0.5)
>>> state.add(0, np.array([1, 2])); state.add(1, np.array([2]))
>>> cost, changed = state.costs()
>>> cost.tolist(), state.overused().tolist()      # 16 = one base cost; 24 = 16 * 1.5
([[16, 24, 32, 16]], [2])
>>> state.end_iteration([0, 1])    # cell 2 stays overused: history 1; both nets weigh 2
>>> state.history_cost().tolist(), state.weight.tolist()
([[0.0, 0.0, 1.0, 0.0]], [2, 2])
>>> state.costs()[0].tolist()      # 16 * (1 + 0.5 * 2) and (16 + 16) * (1 + 0.5 * 4)
[[16, 32, 96, 16]]
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, fields

import numba
import numpy as np

from ..engines.weighted import COST_DTYPE, COST_SCALE, Pricing, price_all, price_cells

#: Values of :attr:`PathFinderOptions.reroute_order`.
REROUTE_ORDERS = ("colour", "hpwl")


@dataclass(frozen=True)
class PathFinderOptions:
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
        on a rising overuse in the same way (RESULTS.md, fourth session of 2026-11-26)
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
        is the measure a user waits for (RESULTS.md, fifth session of 2026-11-26)
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
        routed (benchmarks/RESULTS.md measures both; not in VPR, whose parallel router
        also routes nets at once on stale costs)
    reroute_order : the order of the nets rerouted in an iteration (from iteration 2 on) and
        tidied at the end: ``colour`` (the default) takes them by first-fit colour of
        their boxes' overlap in ``hpwl`` order, then in ``hpwl`` order
        (:func:`~mazeroute.engines.weighted.colour_order`); ``hpwl`` takes them smallest
        pin box first, then in file order. Either is an order of PathFinder, each net
        seeing every net rerouted before it; ``colour`` needs fewer calls of disjoint
        boxes, which is what a device waits on (a chain of boxes each overlapping the
        next takes two calls instead of one a box)
    device_chains : on an engine that chains (the GPU's), the batches of an iteration
        (from iteration 2 on) go in chains: the device rips up, searches, commits and
        prices batch after batch with no look from the host between them
        (:meth:`~mazeroute.engines.weighted.NetSearch.route_chain`); the routes are the
        same. Off by default: measured sooner on issue 13's 1024^2 layout but later on
        its 4096^2 one (benchmarks/RESULTS.md, sixth session of 2026-11-25)
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
    fill_steps: int = 400_000_000
    snapshot_nets: int = 1
    reroute_order: str = "colour"
    shorten_group: int = 3
    device_chains: bool = False
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
                  ("fill_steps", self.fill_steps >= 0),
                  ("snapshot_nets", self.snapshot_nets >= 1),
                  ("reroute_order", self.reroute_order in REROUTE_ORDERS),
                  ("shorten_group", self.shorten_group >= 0),
                  ("window_work", self.window_work >= 0),
                  ("device_chains", isinstance(self.device_chains, bool))]
        for name, ok in checks:
            if not ok:
                raise ValueError(f"{name} = {getattr(self, name)!r} is out of range")

    def diverged(self, overused: list[int], conflicts: list[int]) -> bool:
        """Whether the overuse has grown and stayed grown (see ``diverge_factor``) after
        the iterations whose overused cells and nets in conflict are ``overused`` and
        ``conflicts``.

        >>> opt = PathFinderOptions()
        >>> opt.diverged([1000, 1400, 1600, 1700, 1650], [90, 95, 96, 95, 95])
        True
        >>> opt.diverged([1000, 1400, 1600, 1400, 1650], [90, 95, 96, 95, 95])   # 1400 < 1500
        False
        >>> opt.diverged([1000, 20, 60, 60, 60], [900, 40, 40, 40, 40])  # a late flare-up
        False
        >>> opt.diverged([10, 40, 40, 40, 40], [4, 5, 5, 5, 5])          # few in conflict
        False
        """
        k = self.diverge_iterations
        if self.diverge_factor is None or len(overused) <= k:
            return False
        if min(conflicts[-k:]) < self.stall_min_conflicts:
            return False
        return min(overused[-k:]) >= self.diverge_factor * overused[0]

    def settled(self, kept: list[int], conflicts: list[int]) -> bool:
        """Whether the nets negotiation would keep (``kept``, one a iteration) reached no
        new high over the last ``kept_iterations`` iterations while every iteration
        (``conflicts``: nets in conflict) left at least ``stall_min_conflicts`` nets in
        conflict (see ``kept_iterations``).

        >>> opt = PathFinderOptions(kept_iterations=3)
        >>> opt.settled([20, 30, 31, 29, 31, 30], [90, 80, 79, 80, 80, 79])
        True
        >>> opt.settled([20, 30, 31, 29, 31, 32], [90, 80, 79, 80, 80, 79])   # 32 > 31
        False
        >>> opt.settled([20, 30, 31, 29, 31, 30], [90, 80, 9, 80, 80, 79])    # few in conflict
        False
        """
        k = self.kept_iterations
        if k is None or len(kept) <= k or len(conflicts) < len(kept):
            return False
        if min(conflicts) < self.stall_min_conflicts:
            return False
        return max(kept[-k:]) <= max(kept[:-k])

    def stalled(self, overused: list[int], conflicts: list[int],
                searched: list[int] | None = None) -> bool:
        """Whether negotiation has stalled after the iterations whose overused cells and
        nets in conflict are ``overused`` and ``conflicts``, and which searched
        ``searched`` cells (see ``stall_iterations``).

        >>> opt = PathFinderOptions(stall_iterations=3, stall_improvement=0.1,
        ...                         stall_min_conflicts=0)
        >>> opt.stalled([50, 40, 41, 40, 39], [90, 80, 79, 78, 77])   # 39 > 0.9 * 40
        True
        >>> opt.stalled([50, 40, 41, 40, 35], [90, 80, 79, 78, 77])   # 35 <= 0.9 * 40
        False
        >>> opt = PathFinderOptions(stall_iterations=3, stall_min_cells=1000)
        >>> opt.stalled([2, 1, 1, 1, 1], [3, 2, 2, 2, 2], [9000, 3000, 3000, 3000, 3000])
        True
        >>> opt.stalled([2, 1, 1, 1, 1], [3, 2, 2, 2, 2], [9000, 3000, 3000, 3000, 300])
        False
        """
        k = self.stall_iterations
        if k is None or len(overused) <= k:
            return False
        dear = (self.stall_min_cells is not None and searched is not None
                and min(searched[-k:]) >= self.stall_min_cells)
        if min(conflicts) < self.stall_min_conflicts and not dear:
            return False

        def fell(seq):
            before, recent = min(seq[:-k]), min(seq[-k:])
            return recent < before and recent <= (1 - self.stall_improvement) * before
        return not (fell(overused) or fell(conflicts))

    def over_budget(self, iteration: int, searched: int) -> bool:
        """Whether negotiation stops after ``iteration`` for its budget: past
        ``budget_after`` iterations, its searches covered ``searched`` cells, at least
        ``budget_cells``.

        >>> opt = PathFinderOptions(budget_after=50, budget_cells=1000)
        >>> opt.over_budget(50, 10**6), opt.over_budget(51, 999), opt.over_budget(51, 1000)
        (False, False, True)
        """
        return (iteration > self.budget_after and self.budget_cells is not None
                and searched >= self.budget_cells)

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
#: Largest real option: costs are fixed-point integers of :data:`COST_SCALE` units.
MAX_OPTION_FLOAT = 1e9
_KINDS = {f.name: (int if f.type in ("int", "int | None") else
                   float if f.type in ("float", "float | None") else None)
          for f in fields(PathFinderOptions)}
_OPTIONAL = {f.name for f in fields(PathFinderOptions) if "None" in str(f.type)}


def _fixed(value: float) -> int:
    return int(round(value * COST_SCALE))


@numba.njit(cache=True, nogil=True)
def _apply(cells, owners, weight, occupancy, load, id_sum, sign):
    """Add (``sign`` 1) or remove (-1) the uses ``cells[k]`` by ``owners[k]``; returns the
    cells an addition took to two users (candidates for :meth:`Congestion.overused`)."""
    two = np.empty(cells.size if sign > 0 else 0, np.int64)
    k = 0
    for j in range(cells.size):
        c = cells[j]
        net = owners[j]
        occupancy[c] += sign
        load[c] += sign * weight[net]
        id_sum[c] += sign * net
        if sign > 0 and occupancy[c] == 2:
            two[k] = c
            k += 1
    return two[:k]


@numba.njit(cache=True, nogil=True)
def _bump(load, cells, amount):
    for j in range(cells.size):
        load[cells[j]] += amount


class Congestion:
    """Base, history and load of every cell of one grid, the nets' weights, and the
    costs they make.

    Parameters
    ----------
    free : (H, W) bool, the grid
    nets : number of nets
    acc_fac, net_acc : see :class:`PathFinderOptions`

    Costs are recomputed only where something changed; :meth:`costs` returns the cost
    array with the flat indices of the cells whose cost changed since its last call,
    which is what :meth:`mazeroute.engines.weighted.NetSearch.route` takes.
    """

    def __init__(self, free: np.ndarray, nets: int = 0, acc_fac: float = 1.0,
                 net_acc: int = 1):
        self.shape = free.shape
        n = free.size
        self.base = np.full(n, COST_SCALE, np.int64)
        self.history = np.zeros(n, np.int64)              # fixed point, COST_SCALE units
        self.occupancy = np.zeros(n, np.int32)             # nets using each cell
        self.load = np.zeros(n, np.int64)                  # their weights, summed
        self.weight = np.ones(nets, np.int64)
        #: Sum of the ids of the nets using each cell: with ``occupancy``, names the one
        #: user of a cell whose other users are known (see :meth:`users`).
        self.id_sum = np.zeros(n, np.int64)
        # Cells that may be overused: every cell of occupancy > 1 is in here (an add
        # that takes a cell to 2 appends it; :meth:`overused` drops the cells that
        # fell back), so no query scans the grid and a remove has nothing to do.
        self._over = np.zeros(0, np.int64)
        self._over_new: list[np.ndarray] = []
        self.routes: list[np.ndarray | None] = [None] * nets
        self.pres_fac = 0.0
        self._pres = 0
        self._acc = _fixed(acc_fac)
        self._net_acc = int(net_acc)
        self.cost = np.full(n, COST_SCALE, COST_DTYPE)
        self._dirty: list[np.ndarray] = []
        self._all_dirty = True
        # cells whose base, history or load changed since the last pricing() (None: all;
        # kept only once pricing() has been asked for, so that no list grows unread)
        self._priced: list[np.ndarray] | None = None

    def add(self, net: int, cells: np.ndarray) -> None:
        """Net ``net`` now uses ``cells`` (flat indices, no repeats)."""
        self.add_many([net], [cells])

    def add_many(self, nets: Sequence[int], routes: Sequence[np.ndarray],
                 flat: tuple[np.ndarray, np.ndarray] | None = None) -> None:
        """Each net of ``nets`` now uses its cells in ``routes`` (flat indices, no repeats
        within a route); one compiled pass for all of them (a router commits a batch of
        nets at a time, and thousands of small array updates cost more than the search).
        ``flat``: the routes already laid end to end with the net of each cell (int64),
        when the caller has them."""
        for net in nets:
            if self.routes[net] is not None:
                raise ValueError(f"net {net} is routed already; remove it first")
        if not len(nets):
            return
        cells, owners = self._flatten(nets, routes) if flat is None else flat
        for net, r in zip(nets, routes):
            self.routes[net] = r
        two = _apply(cells, owners, self.weight, self.occupancy, self.load, self.id_sum, 1)
        if two.size:
            self._over_new.append(two)
        self._touch(cells)

    def remove(self, net: int) -> None:
        """Rip up net ``net`` (nothing happens if it has no route)."""
        self.remove_many([net])

    def remove_many(self, nets: Sequence[int]) -> None:
        """Rip up every net of ``nets`` (those without a route are passed over)."""
        nets = [n for n in nets if self.routes[n] is not None]
        if not nets:
            return
        cells, owners = self._flatten(nets, [self.routes[n] for n in nets])
        for n in nets:
            self.routes[n] = None
        _apply(cells, owners, self.weight, self.occupancy, self.load, self.id_sum, -1)
        self._touch(cells)

    def _touch(self, cells: np.ndarray) -> None:
        """``cells``' history or load changed: their costs are to be recomputed."""
        self._dirty.append(cells)
        if self._priced is not None:
            self._priced.append(cells)

    @staticmethod
    def _flatten(nets, routes) -> tuple[np.ndarray, np.ndarray]:
        """Every ``(cell, net)`` use of ``routes`` as two flat int64 arrays."""
        cells = np.concatenate([np.asarray(r, np.int64) for r in routes])
        owners = np.repeat(np.asarray(nets, np.int64), [len(r) for r in routes])
        return cells, owners

    def set_pres_fac(self, pres_fac: float) -> None:
        self.pres_fac = float(pres_fac)
        pres = _fixed(pres_fac)
        if pres != self._pres:
            self._pres = pres
            # the present factor prices the cells in use: the routes' cells (an
            # overused one listed twice) are found without a pass over the grid
            used = [r for r in self.routes if r is not None]
            self._dirty.append(np.concatenate(used) if used else np.zeros(0, np.int64))

    def order_free(self) -> bool:
        """Whether costs ignore who uses a cell (``pres_fac`` 0): then the order in which
        nets are routed cannot change their routes."""
        return self._pres == 0

    def end_iteration(self, conflicts) -> None:
        """History: ``acc_fac`` per unit of overuse on every overused cell, and
        ``net_acc`` more weight for each net of ``conflicts``."""
        over = self.overused()
        self.history[over] += self._acc * (self.occupancy[over].astype(np.int64) - 1)
        self._touch(over)
        if self._net_acc:
            nets = np.unique(np.asarray(list(conflicts), np.int64))
            self.weight[nets] += self._net_acc
            routed = [int(n) for n in nets if self.routes[n] is not None]
            if routed:
                cells, _ = self._flatten(routed, [self.routes[n] for n in routed])
                _bump(self.load, cells, self._net_acc)
                self._touch(cells)

    def overused(self) -> np.ndarray:
        """Flat indices of the cells used by more than one net, ascending (kept up to
        date by :meth:`add`: no scan of the grid)."""
        over = self._over
        if self._over_new:
            over = np.unique(np.concatenate([over, *self._over_new]))
            self._over_new = []
        self._over = over[self.occupancy[over] > 1]
        return self._over.copy()

    def users(self, cells: np.ndarray, known: list[int]) -> tuple[np.ndarray, np.ndarray] | None:
        """Every ``(cell, net)`` use of ``cells`` (flat indices, no repeats), from the
        routes of the nets ``known`` alone, when each cell has at most one user outside
        ``known`` (that one is named by ``id_sum``); None when some cell has more.

        The work grows with the routes of ``known``, not with the grid or all nets.
        """
        if cells.size == 0:
            return np.zeros(0, np.int64), np.zeros(0, np.int64)
        nets = [i for i in known if self.routes[i] is not None]
        if nets:
            flat = np.concatenate([self.routes[i] for i in nets])
            who = np.repeat(np.array(nets, np.int64), [self.routes[i].size for i in nets])
        else:
            flat = who = np.zeros(0, np.int64)
        pos = np.searchsorted(cells, flat)
        hit = (pos < cells.size) & (cells[np.minimum(pos, cells.size - 1)] == flat)
        flat, who, pos = flat[hit], who[hit], pos[hit]
        rest = self.occupancy[cells] - np.bincount(pos, minlength=cells.size)
        if rest.size and rest.max() > 1:
            return None
        other = self.id_sum[cells] - np.bincount(pos, who, minlength=cells.size).astype(np.int64)
        one = rest == 1
        return (np.concatenate([flat, cells[one]]), np.concatenate([who, other[one]]))

    def costs(self) -> tuple[np.ndarray, np.ndarray | None]:
        """The ``(H, W)`` cost array and the cells changed since the last call (flat
        indices, perhaps repeated; None: all of them, the first time)."""
        if self._all_dirty:
            changed = None
        else:
            # a cell may be listed twice: sorting them out costs more than it saves
            changed = (np.concatenate(self._dirty) if self._dirty
                       else np.zeros(0, np.int64))
        self._dirty = []
        self._all_dirty = False
        if changed is None:
            price_all(self.base, self.history, self.load, self._pres, self.cost)
        else:
            price_cells(changed, self.base, self.history, self.load, self._pres, self.cost)
        return self.cost.reshape(self.shape), changed

    def pricing(self) -> Pricing:
        """The cost rule and its state as arrays (this state's own, not copies), for an
        engine that prices cells itself
        (:meth:`~mazeroute.engines.weighted.NetSearch.route_chain`), with the cells whose
        base, history or load changed since the last call (None the first time)."""
        changed = None if self._priced is None else (
            np.concatenate(self._priced) if self._priced else np.zeros(0, np.int64))
        self._priced = []
        return Pricing(self.base, self.history, self.load, self.weight, self._pres, changed)

    def synced(self) -> None:
        """The engine that took the last :meth:`pricing` holds every value of this state
        now (it applied the same changes itself, as ``route_chain`` does): the cells
        changed since are not handed to it again."""
        if self._priced is not None:
            self._priced = []

    def history_cost(self) -> np.ndarray:
        """History cost of every cell, ``(H, W)``, in units of a base cost."""
        return (self.history / COST_SCALE).reshape(self.shape)
