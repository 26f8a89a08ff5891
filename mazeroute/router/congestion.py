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

from collections.abc import Sequence

import numba
import numpy as np

from ..engines.costs import COST_DTYPE, COST_SCALE, Pricing
from .negotiation.options import (
    MAX_OPTION_FLOAT,
    MAX_OPTION_INT,
    REROUTE_ORDERS,
    PathFinderOptions,
)
from .pricing import price_all, price_cells

__all__ = ["Congestion", "PathFinderOptions", "COST_SCALE", "REROUTE_ORDERS",
           "MAX_OPTION_INT", "MAX_OPTION_FLOAT"]

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
        # cells whose history ever grew (history only grows, on overused cells): a
        # report's history map is made from these, not from a pass over the grid
        self._storied: list[np.ndarray] = []
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

    @property
    def pres(self) -> int:
        """The present factor in units of ``1 / COST_SCALE`` (what the costs use)."""
        return self._pres

    @property
    def acc(self) -> int:
        """``acc_fac`` in units of ``1 / COST_SCALE``."""
        return self._acc

    @property
    def net_acc(self) -> int:
        """The weight a net gains for each iteration it ends in conflict."""
        return self._net_acc

    def adopt(self, routes: Sequence[np.ndarray | None], cells: np.ndarray,
              occupancy: np.ndarray, load: np.ndarray, id_sum: np.ndarray,
              history: np.ndarray, weight: np.ndarray) -> None:
        """Take the state another keeper made with the same rules from this one's, with
        no route then (a device's,
        :meth:`~mazeroute.engines.gpu_state.DeviceState.state_close`): every route, the
        nets' weights, and occupancy, load, id sum and history at ``cells`` (flat, each
        once: every cell whose state changed); those cells are priced again."""
        if any(r is not None for r in self.routes):
            raise ValueError("a state is adopted only in place of one with no route")
        self.routes = list(routes)
        for mine, theirs in ((self.occupancy, occupancy), (self.load, load),
                             (self.id_sum, id_sum), (self.history, history)):
            mine[cells] = theirs
        self.weight[:] = weight
        self._over = cells[occupancy > 1]
        self._over_new = []
        self._storied.append(cells[history > 0])
        self._touch(cells)
        self._priced = None         # a chain's engine takes every cell again

    def order_free(self) -> bool:
        """Whether costs ignore who uses a cell (``pres_fac`` 0): then the order in which
        nets are routed cannot change their routes."""
        return self._pres == 0

    def end_iteration(self, conflicts) -> None:
        """History: ``acc_fac`` per unit of overuse on every overused cell, and
        ``net_acc`` more weight for each net of ``conflicts``."""
        over = self.overused()
        self.history[over] += self._acc * (self.occupancy[over].astype(np.int64) - 1)
        self._storied.append(over)
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

    def cost_without(self, net: int | np.ndarray, cells: np.ndarray) -> np.ndarray:
        """What ``cells`` (flat, each once on a wire of ``net``, one net for all or one
        a cell) would cost were that wire gone: the pricing rule on their load less the
        net's weight."""
        out = np.empty(len(cells), COST_DTYPE)
        price_cells(np.arange(len(cells)), self.base[cells], self.history[cells],
                    self.load[cells] - self.weight[net], self._pres, out)
        return out

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
        # zeros are mapped lazily: only the cells that have a history are written
        out = np.zeros(self.history.size)
        if self._storied:
            # each cell once, ascending, by a mark on the grid: sorting the cells (the
            # overused cells of every iteration) costs more on the largest layouts
            marked = np.zeros(self.history.size, bool)
            for part in self._storied:
                marked[part] = True
            cells = np.flatnonzero(marked)
            self._storied = [cells]
            out[cells] = self.history[cells] / COST_SCALE
        return out.reshape(self.shape)
