"""Weighted net search: "route these nets on these cell costs", and its CPU engine.

This is the search that negotiated-congestion routing (:mod:`mazeroute.router.negotiate`)
runs thousands of times: shortest paths over integer cell costs, one net's bounding box
at a time, many nets per call. :class:`NetSearch` is the interface every engine (CPU
here, GPU in :mod:`.gpu_weighted`) implements; :class:`CPUNetSearch` is the compiled CPU
engine.

The rules every engine follows, so that all of them return the very same wires:

* A cell costs ``cost[y, x]`` (an integer in ``[1, COST_MAX]``) to enter; the sources'
  own costs are not counted. A request searches only inside its box. Blocked cells
  (``~free``) and cells owned by another net (``owner`` not in ``{-1, net}``: other
  nets' pins, or wires reserved with :meth:`NetSearch.set_owner`) are never entered.
  Path costs above :data:`DIST_MAX` count as unreachable (so 32-bit distances suffice
  on a device; no real path comes near it).
* Two pins: the path is a cheapest path from ``pins[0]`` to ``pins[1]``. More pins: a
  tree grown by multi-source searches: the tree so far is the source set (distance 0),
  the remaining pins are the targets; the cheapest target is connected (among equally
  cheap ones, the first in ``pins`` order), and the search repeats until every pin is in
  the tree. A net with a pin that cannot be reached in its box gets ``None``.
* Ties between equally cheap paths are broken by the backtrace alone, from the exact
  distance field ``d`` of the search: from the target, step to a neighbour ``n`` with
  ``d[n] + cost[cur] == d[cur]``, keeping the current direction when that neighbour
  qualifies, else the first of up, left, right, down (the order of
  :mod:`mazeroute.backtrace`); stop at the first cell of distance 0 (a tree cell). Since
  the rule reads only exact distances, any engine that computes them (Dijkstra, A*,
  Bellman-Ford sweeps) draws the same wire. With all costs 1 it is exactly the BFS
  backtrace, so uniform costs reproduce the sequential router's wires.
* The result for a net is its cells as an ``(n, 2)`` array of ``x, y``: root first;
  for two pins in path order root -> target; for more, each new branch follows in the
  order it was found, from the tree outwards.

Layers and vias: every array is a stack of layers, shape ``(layers, H, W)`` (a 2-D
array is one layer), and the constructor takes ``via_cost``. Today ``layers`` must be 1;
a multi-layer engine adds the two via neighbours (below, above; after down in the tie
order, entering one costs ``via_cost`` times the entered cell's cost, as
:func:`mazeroute.engines.grid3d.weighted3d` prices it, so that on unit costs a via costs
``via_cost`` as in Lee's 3-D BFS), pins and cells gain a ``z`` column and a box a layer
range. Vertex ids are already ``(z * H + y) * W + x``, so the packing of
requests (:func:`pack_requests`) and the ``changed`` hints need no change.

Examples
--------
>>> import numpy as np
>>> free = np.ones((3, 5), bool); free[0:2, 2] = False      # a wall with a gap at the bottom
>>> owner = np.full((3, 5), -1, np.int32); owner[0, 0] = owner[0, 4] = 0
>>> search = CPUNetSearch(free, owner)
>>> cost = np.ones((3, 5), COST_DTYPE)
>>> net = NetRequest(0, np.array([[0, 0], [4, 0]]), (0, 0, 4, 2))
>>> search.route(cost, [net])[0].tolist()
[[0, 0], [0, 1], [0, 2], [1, 2], [2, 2], [3, 2], [3, 1], [3, 0], [4, 0]]
>>> cost[1:, 3] = 9                     # column 3 got dear: the wire keeps to column 4
>>> search.route(cost, [net], changed=np.array([8, 13]))[0].tolist()[-3:]
[[4, 2], [4, 1], [4, 0]]
>>> search.route(cost, [net._replace(box=(0, 0, 4, 1))])   # the gap is outside the box
[None]
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import numba
import numpy as np

from ..limits import available_memory, cores, many_cores
from .box_order import LEVEL_TILE, box_colours, box_levels
from .costs import COST_DTYPE, COST_MAX, COST_SCALE, DIST_MAX, Pricing
from .net_requests import (
    NetRequest,
    PackedRequests,
    PinTable,
    as_layers,
    box_sides,
    pack_nets,
    pack_own,
    pack_requests,
    pin_table,
    request_boxes,
)

#: Boxes of at least this many cells are first checked for reachability (a bidirectional
#: flood that stops as soon as either side runs out), so that a pin walled into a small
#: pocket is given up without a search of the whole box. Only the speed depends on it.
REACH_CHECK_CELLS = 1 << 14

#: Calls of at least this many requests (with disjoint boxes) run on all cores; waking
#: the threads costs more than a few small searches.
PARALLEL_REQUESTS = 8

#: Seconds that a parallel call's searches of overlapping whole-grid boxes must be
#: expected to take one after another before they go on threads
#: (:meth:`CPUNetSearch._route_alone`): ten times what starting the threads costs on a
#: small host (benchmarks/RESULTS.md, "The tiled search's rounds").
LANE_SECONDS = 0.01
#: Bytes of a search lane a grid cell (distances, stamps, scratch, floods): the threads
#: that search overlapping boxes at once take at most a quarter of the free memory.
LANE_BYTES_PER_CELL = 28

_INF = np.int64(2**62)
_NO_CELLS = np.zeros(0, np.int64)

__all__ = ["NetSearch", "CPUNetSearch", "NetRequest", "PackedRequests", "pack_requests",
           "PinTable", "pin_table", "pack_nets",
           "as_layers", "box_sides", "box_levels", "box_colours", "COST_MAX", "COST_DTYPE",
           "COST_SCALE", "DIST_MAX", "Pricing", "LEVEL_TILE", "REACH_CHECK_CELLS",
           "PARALLEL_REQUESTS", "pack_own", "request_boxes"]

class NetSearch(ABC):
    """One layout's weighted search; owns its (device) state.

    Parameters
    ----------
    free : (H, W) or (layers, H, W) bool, True where a wire may pass
    owner : same shape, int32: the net whose pin a cell is, or -1
    via_cost : cost of a layer change (unused while ``layers == 1``)
    share_owner : keep ``owner`` itself (an int32 ``(layers, H, W)`` array), not a copy,
        so that :meth:`set_owner` on another engine holding it is seen here too

    Every request of one :meth:`route` call is searched on the same costs and owners, as
    if it were alone; their boxes may overlap. A router that needs the routes of
    routing nets one after another (each changing the costs of the next) passes nets
    of pairwise disjoint boxes together (:func:`box_levels`); engines share grid-sized
    scratch among disjoint boxes only. An engine searches where it is asked, on the
    costs it is given: which engine takes a call is the router's choice
    (:mod:`mazeroute.router.dispatch`).
    """

    def __init__(self, free: np.ndarray, owner: np.ndarray, via_cost: int = 0,
                 share_owner: bool = False):
        self.free = np.ascontiguousarray(as_layers(free, "free"), dtype=np.bool_)
        owner = as_layers(owner, "owner")
        self.owner = (np.asarray(owner, np.int32) if share_owner
                      else np.array(owner, dtype=np.int32))
        if self.owner.shape != self.free.shape:
            raise ValueError(f"owner has shape {self.owner.shape}, free {self.free.shape}")
        self.shape = self.free.shape
        self.via_cost = int(via_cost)

    @abstractmethod
    def route(self, cost: np.ndarray, requests: Sequence[NetRequest],
              changed: np.ndarray | None = None) -> list[np.ndarray | None]:
        """Search every request on ``cost``; one ``(n, 2)`` cell array (or None) each.

        ``changed`` (flat cell indices, repeats allowed, or None for "all") lists the
        cells whose cost changed since the last call, so a device engine need upload
        only those.
        """

    @abstractmethod
    def set_owner(self, cells: np.ndarray, owner: int | np.ndarray) -> None:
        """Give ``cells`` (``(k, 2)`` x, y) to net ``owner`` (-1: to nobody), or each cell
        to its own of ``k`` owners, e.g. to reserve committed wires so that no other net
        enters them (one call for many wires)."""

    def chainable(self, requests: Sequence[NetRequest]) -> bool:
        """Whether :meth:`route_chain` takes ``requests`` as one of its batches (an engine
        without chains takes none)."""
        return False

    def route_chain(self, cost: np.ndarray, changed: np.ndarray | None, pricing: Pricing,
                    batches: Sequence[Sequence[NetRequest]],
                    ripped: Sequence[Sequence[np.ndarray | None]]
                    ) -> list[list[np.ndarray | None]]:
        """Batches routed one after another, each on the costs the ones before left,
        priced by the engine itself (a device then waits on none of them).

        For each batch in turn: the uses of ``ripped[b]`` (each request's old route, flat
        cell indices, or None) leave ``pricing.load`` (``weight`` of the request's net a
        cell) and their cells are repriced; the batch is searched as :meth:`route`
        searches it (its boxes pairwise disjoint); the routes found join the load and
        their cells are repriced. ``cost`` (with ``changed`` as for :meth:`route`) holds
        ``pricing``'s costs at the start. The caller's arrays are left as they are: it
        replays the rip-ups and commits on its own state. Returns each batch's results.
        Only engines whose :meth:`chainable` accepts every batch implement it.
        """
        raise NotImplementedError(f"{type(self).__name__} routes no chains")

    def _check_cost(self, cost: np.ndarray) -> np.ndarray:
        cost = as_layers(cost, "cost")
        if cost.shape != self.shape:
            raise ValueError(f"cost has shape {cost.shape}, the grid {self.shape}")
        if cost.dtype != COST_DTYPE:
            raise ValueError(f"cost must be {np.dtype(COST_DTYPE).name}, got {cost.dtype}")
        return np.ascontiguousarray(cost)


class CPUNetSearch(NetSearch):
    """The compiled CPU engine: A* over a binary heap; the requests of a call run on all
    cores (their boxes are disjoint, so they share the grid-sized arrays).

    Why a binary heap and not Dial's bucket queue: negotiated costs span the whole
    ``[1, COST_MAX]`` range (present-congestion factors grow geometrically), and a bucket
    queue walks through every empty bucket between distances, so its work grows with the
    largest cost; a heap's grows with the cells touched only. A* (a lower bound of the
    cost to the targets' bounding box, times the least cell cost) keeps a search near
    the straight line in cheap regions; it runs until the heap holds nothing that could
    still tie the best target, so every distance the backtrace reads is exact.
    """

    def __init__(self, free: np.ndarray, owner: np.ndarray, via_cost: int = 0,
                 share_owner: bool = False):
        super().__init__(free, owner, via_cost, share_owner)
        #: Run the requests of a call in parallel (when there are enough of them and their
        #: boxes are disjoint); by default on many cores (:func:`mazeroute.limits.many_cores`).
        self.parallel = many_cores()
        self._lane = _Lane(self.free.size)
        self._lanes: list[_Lane | None] = [self._lane]  # a thread's (:meth:`_route_lanes`)
        self._alone_seconds: float | None = None    # a search's, in :meth:`_route_alone`
        self._floor = 0                            # a lower bound of every cost; 0: unknown

    def set_owner(self, cells: np.ndarray, owner: int | np.ndarray) -> None:
        c = np.asarray(cells, dtype=np.int64).reshape(-1, 2)
        self.owner[0, c[:, 1], c[:, 0]] = owner

    def route(self, cost: np.ndarray, requests: Sequence[NetRequest],
              changed: np.ndarray | None = None) -> list[np.ndarray | None]:
        cost = self._check_cost(cost)
        flat = cost.reshape(-1)
        if changed is None or self._floor == 0:
            low = int(flat.min()) if flat.size else 1
            self._floor = low
        else:
            ch = np.asarray(changed, dtype=np.int64).ravel()
            low = int(flat[ch].min()) if ch.size else self._floor
            self._floor = min(self._floor, low)
        if low < 1:
            raise ValueError("cell costs must be at least 1")
        if not requests:
            return []
        packed = pack_requests(requests, self.shape)
        _, h, w = self.shape
        parallel = self.parallel and len(requests) >= PARALLEL_REQUESTS
        if parallel and not _disjoint(packed.boxes):
            # every request sees the same costs, so any split into groups of disjoint
            # boxes gives the same routes; the groups run on all cores one after another
            # (no cost changed since the checks above: each group passes no cells). A box
            # of a quarter of the grid or more goes alone: it overlaps nearly every other,
            # and colouring many such boxes costs more than their searches
            bw, bh = box_sides(packed.boxes)
            huge = bw * bh * 4 >= h * w
            level = np.empty(len(requests), np.int64)
            level[~huge] = box_colours(packed.boxes[~huge], (h, w))
            level[huge] = (level[~huge].max() + 1 if (~huge).any() else 0) \
                + np.arange(int(huge.sum()))
            found: list[np.ndarray | None] = [None] * len(requests)
            alone = np.flatnonzero(huge)
            if alone.size > 1 and all(requests[k].own is None for k in alone.tolist()):
                for k, xy in zip(alone.tolist(), self._route_alone(
                        flat, [requests[k] for k in alone.tolist()])):
                    found[k] = xy
                level[huge] = -1
            for lv in np.unique(level[level >= 0]):
                part = np.flatnonzero(level == lv)
                for k, xy in zip(part.tolist(), self.route(cost, [requests[k] for k in part],
                                                           _NO_CELLS)):
                    found[k] = xy
            return found
        own_ptr, own_cells, own_costs = pack_own(requests, packed.boxes, w)
        floor = self._floor
        if own_cells.size:
            floor = min(floor, int(own_costs.min()))   # the A* bound stays a lower bound
            if not flat.flags.writeable:
                flat = flat.copy()          # the own costs are swapped in and back
        return self._lane.search(self, flat, packed, floor, parallel,
                                 (own_ptr, own_cells, own_costs.astype(flat.dtype)))

    def _route_alone(self, flat: np.ndarray, requests: Sequence[NetRequest]
                     ) -> list[np.ndarray | None]:
        """``requests`` (owning no cells; their boxes overlap) each searched as if alone:
        one after another, or on threads (:meth:`_route_lanes`) when the searches left
        are expected to take :data:`LANE_SECONDS` one after another (at the time a search
        took in this engine's last such call; the first call's first searches, one a
        core, measure it). The routes are the same either way."""
        found: list[np.ndarray | None] = []
        if self._alone_seconds is None:
            start, found = time.perf_counter(), self._route_lanes(flat, requests[:cores()], 1)
            self._alone_seconds = (time.perf_counter() - start) / len(found)
        rest = requests[len(found):]
        if rest:
            lanes = cores() if len(rest) * self._alone_seconds >= LANE_SECONDS else 1
            start = time.perf_counter()
            found += self._route_lanes(flat, rest, lanes)
            self._alone_seconds = (time.perf_counter() - start) * min(lanes, len(rest)) \
                / len(rest)
        return found

    def _route_lanes(self, flat: np.ndarray, requests: Sequence[NetRequest], lanes: int
                     ) -> list[np.ndarray | None]:
        """``requests`` (owning no cells; their boxes may overlap) on up to ``lanes``
        threads, a lane (grid-sized search state) each: each search is the one it would
        be alone, so the routes are those of searching them one after another."""
        n = len(requests)
        want = min(n, lanes)
        if want > 1:            # threads: each lane's memory out of the free quarter
            want = min(want, max(1, available_memory() // 4 // (
                LANE_BYTES_PER_CELL * self.free.size)))
        self._lanes += [None] * (want - len(self._lanes))
        parts = [list(range(k, n, want)) for k in range(want)]
        no_own = (np.zeros(n + 1, np.int64), _NO_CELLS, np.zeros(0, flat.dtype))

        def search(i: int, part: list[int]) -> list[np.ndarray | None]:
            if self._lanes[i] is None:      # made on its thread, beside the others
                self._lanes[i] = _Lane(self.free.size)
            mine = pack_requests([requests[k] for k in part], self.shape)
            return self._lanes[i].search(self, flat, mine, self._floor, False,
                                         (no_own[0][:len(part) + 1], *no_own[1:]))
        if want == 1:
            return search(0, parts[0])
        found: list[np.ndarray | None] = [None] * n
        with ThreadPoolExecutor(want) as pool:
            for part, got in zip(parts, pool.map(search, range(want), parts)):
                for k, xy in zip(part, got):
                    found[k] = xy
        return found


class _Lane:
    """One thread's grid-sized search state: distances (``_INF`` between searches),
    target and flood stamps, the touched cells and backtraces, the floods' queues."""

    def __init__(self, n: int):
        self.dist = np.full(n, _INF, np.int64)
        self.mark = np.zeros(n, np.int32)
        self.stamp = 0
        self.scratch = np.empty((2, n), np.int32)
        self.queues = np.empty((2, 0), np.int32)       # made when a box needs them

    def search(self, engine: CPUNetSearch, flat: np.ndarray, packed: PackedRequests,
               floor: int, parallel: bool, own: tuple) -> list[np.ndarray | None]:
        """``packed``'s requests on ``engine``'s grid and costs ``flat``; ``parallel``:
        on all cores at once (their boxes disjoint)."""
        bw, bh = box_sides(packed.boxes)
        big = bw * bh >= REACH_CHECK_CELLS
        if big.any() and self.queues.shape[1] == 0:
            self.queues = np.empty((2, self.mark.size), np.int32)
        n = packed.nets.size
        if self.stamp + 3 * packed.pins.size + 3 * n > 2**29:
            self.mark[:] = 0                # stamps would wrap: start the marks afresh
            self.stamp = 0
        _, h, w = engine.shape
        out, start, count, used = (_route_parallel if parallel else _route_serial)(
            engine.free.reshape(-1), engine.owner.reshape(-1), flat, h, w, packed.nets,
            packed.pin_ptr, packed.pins, packed.boxes, big, floor, self.dist, self.mark,
            self.stamp + 1, self.scratch, self.queues, *own)
        self.stamp += int(used) + 1
        xy, at = _as_xy(out, start, count, w)
        return [None if count[r] < 0 else xy[at[r]:at[r + 1]] for r in range(n)]


@numba.njit(cache=True, nogil=True)
def _as_xy(out, start, count, w):
    """The found cells (request ``r``'s are ``out[start[r]:start[r] + count[r]]``; a
    parallel call leaves gaps between them) as one ``(n, 2)`` x, y array, and where
    each request's rows begin."""
    n = start.size
    at = np.zeros(n + 1, np.int64)
    for r in range(n):
        at[r + 1] = at[r] + max(count[r], 0)
    xy = np.empty((at[n], 2), np.int64)
    for r in range(n):
        for k in range(max(count[r], 0)):
            v = out[start[r] + k]
            xy[at[r] + k, 0] = v % w
            xy[at[r] + k, 1] = v // w
    return xy, at


# -- the compiled search --------------------------------------------------------------
@numba.njit(cache=True, nogil=True)
def _reserve(keys, vals, size, extra):
    """The heap arrays, doubled while they cannot take ``extra`` more entries."""
    if size + extra <= keys.size:
        return keys, vals
    cap = keys.size
    while size + extra > cap:
        cap *= 2
    nk = np.empty(cap, keys.dtype)
    nv = np.empty(cap, vals.dtype)
    nk[:size] = keys[:size]
    nv[:size] = vals[:size]
    return nk, nv


@numba.njit(cache=True, nogil=True, inline="always")
def _push(keys, vals, size, k, v):
    """Push onto a binary min-heap with room to spare (see :func:`_reserve`)."""
    i = size
    while i > 0:
        p = (i - 1) >> 1
        if keys[p] <= k:
            break
        keys[i] = keys[p]
        vals[i] = vals[p]
        i = p
    keys[i] = k
    vals[i] = v
    return size + 1


@numba.njit(cache=True, nogil=True, inline="always")
def _pop(keys, vals, size):
    k0, v0 = keys[0], vals[0]
    size -= 1
    if size > 0:
        k, v = keys[size], vals[size]
        i = 0
        while True:
            c = 2 * i + 1
            if c >= size:
                break
            if c + 1 < size and keys[c + 1] < keys[c]:
                c += 1
            if keys[c] >= k:
                break
            keys[i] = keys[c]
            vals[i] = vals[c]
            i = c
        keys[i] = k
        vals[i] = v
    return k0, v0, size


@numba.njit(cache=True, nogil=True, inline="always")
def _passable(free, owner, v, net):
    return free[v] and (owner[v] == -1 or owner[v] == net)


@numba.njit(cache=True, nogil=True)
def _neighbour(v, d, w, x0, y0, x1, y1):
    """Vertex id of ``v``'s neighbour in direction ``d`` (up, left, right, down) if it
    lies in the box, else -1."""
    y, x = divmod(v, w)
    if d == 0:
        return v - w if y > y0 else -1
    if d == 1:
        return v - 1 if x > x0 else -1
    if d == 2:
        return v + 1 if x < x1 else -1
    return v + w if y < y1 else -1


@numba.njit(cache=True, nogil=True)
def _reachable(free, owner, net, w, box, tree, ntree, targets, ntargets, mark, stamp, q):
    """Whether some target is 4-connected to the tree inside the box: two BFS floods,
    the smaller side expanded first, until they meet or either side runs out."""
    x0, y0, x1, y1 = box
    sa = 2 * stamp
    sb = sa + 1
    qa, qb = q[0], q[1]
    ta = tb = 0
    for i in range(ntree):
        mark[tree[i]] = sa
        qa[ta] = tree[i]
        ta += 1
    for i in range(ntargets):
        t = targets[i]
        if mark[t] == sa:
            return True
        mark[t] = sb
        qb[tb] = t
        tb += 1
    ha = hb = 0
    while ha < ta and hb < tb:
        side_a = ta <= tb
        if side_a:
            v = qa[ha]
            ha += 1
            own, other = sa, sb
        else:
            v = qb[hb]
            hb += 1
            own, other = sb, sa
        for d in range(4):
            u = _neighbour(v, d, w, x0, y0, x1, y1)
            if u < 0 or not _passable(free, owner, u, net):
                continue
            m = mark[u]
            if m == other:
                return True
            if m != own:
                mark[u] = own
                if side_a:
                    qa[ta] = u
                    ta += 1
                else:
                    qb[tb] = u
                    tb += 1
    return False


@numba.njit(cache=True, nogil=True, inline="always")
def _h(x, y, floor, tx0, ty0, tx1, ty1):
    """A* bound: Manhattan distance to the targets' bounding box times the least cost."""
    dx = tx0 - x if x < tx0 else (x - tx1 if x > tx1 else 0)
    dy = ty0 - y if y < ty0 else (y - ty1 if y > ty1 else 0)
    return floor * (dx + dy)


@numba.njit(cache=True, nogil=True)
def _route_one(free, owner, cost, h, w, net, pins, box, check, floor, dist, touched, mark,
               stamp0, out, path, queues):
    """One request: its tree into ``out`` (root first); returns the cells written, or -1
    when a pin cannot be reached. ``touched``, ``out``, ``path`` and the two ``queues``
    hold at least the box's cells; ``dist`` and ``mark`` are the grid's, and only cells
    of the box are written (so requests with disjoint boxes may run at once). Stamps
    ``stamp0 .. stamp0 + 3 * len(pins)`` mark this request's targets and floods."""
    x0, y0, x1, y1 = box[0], box[1], box[2], box[3]
    rem = pins[1:].copy()
    nrem = rem.size
    nout = 1
    out[0] = pins[0]
    keys = np.empty(256, np.int64)
    vals = np.empty(256, np.int32)
    st = stamp0
    while nrem > 0:
        if check:
            if not _reachable(free, owner, net, w, (x0, y0, x1, y1), out, nout, rem, nrem,
                              mark, st, queues):
                return -1
        st += 1
        tmark = 2 * st + 1       # never equal to a flood's 2 * s or 2 * s + 1 of an s < st
        st += 1
        tx0, ty0, tx1, ty1 = w, h, -1, -1
        for i in range(nrem):
            mark[rem[i]] = tmark
            ty, tx = divmod(rem[i], w)
            tx0, ty0 = min(tx0, tx), min(ty0, ty)
            tx1, ty1 = max(tx1, tx), max(ty1, ty)
        best, ntouched, keys, vals = _flood(free, owner, cost, w, net, box, floor, dist,
                                            touched, mark, tmark, out, nout,
                                            (tx0, ty0, tx1, ty1), keys, vals)
        if best != _INF:
            j = 0
            while dist[rem[j]] != best:
                j += 1
            t = rem[j]
            for i in range(j, nrem - 1):
                rem[i] = rem[i + 1]
            nrem -= 1
            plen = _trace(cost, dist, h, w, t, path)
            for i in range(plen - 2, -1, -1):   # the last cell is already in the tree
                out[nout] = path[i]
                nout += 1
        for i in range(ntouched):
            dist[touched[i]] = _INF
        if best == _INF:
            return -1
    return nout


@numba.njit(cache=True, nogil=True, inline="always")
def _flood(free, owner, cost, w, net, box, floor, dist, touched, mark, tmark, out, nout,
           targets, keys, vals):
    """A* in ``box`` from the tree ``out[:nout]`` (distance 0) to the nearest cell marked
    ``tmark`` (the targets, within the box ``targets``): the least distance to a target
    (``_INF``: none reached), the cells whose distance was set (in ``touched``), and the
    heap's arrays (grown as needed)."""
    x0, y0, x1, y1 = box[0], box[1], box[2], box[3]
    tx0, ty0, tx1, ty1 = targets
    ntouched = 0
    size = 0
    keys, vals = _reserve(keys, vals, 0, nout)
    for i in range(nout):
        s = out[i]
        if dist[s] == _INF:
            touched[ntouched] = s
            ntouched += 1
        dist[s] = 0
        sy = s // w
        size = _push(keys, vals, size, _h(s - sy * w, sy, floor, tx0, ty0, tx1, ty1), s)
    best = _INF
    while size > 0:
        f, v, size = _pop(keys, vals, size)
        if f > best:
            break
        g = dist[v]
        vy = v // w
        vx = v - vy * w
        if f != g + _h(vx, vy, floor, tx0, ty0, tx1, ty1):
            continue                           # a stale heap entry
        if mark[v] == tmark and best == _INF:
            best = g
        keys, vals = _reserve(keys, vals, size, 4)
        for d in range(4):               # up, left, right, down, inside the box
            if d == 0:
                if vy <= y0:
                    continue
                u, ux, uy = v - w, vx, vy - 1
            elif d == 1:
                if vx <= x0:
                    continue
                u, ux, uy = v - 1, vx - 1, vy
            elif d == 2:
                if vx >= x1:
                    continue
                u, ux, uy = v + 1, vx + 1, vy
            else:
                if vy >= y1:
                    continue
                u, ux, uy = v + w, vx, vy + 1
            if not _passable(free, owner, u, net):
                continue
            nd = g + cost[u]
            if nd < dist[u] and nd <= DIST_MAX:
                if dist[u] == _INF:
                    touched[ntouched] = u
                    ntouched += 1
                dist[u] = nd
                size = _push(keys, vals, size, nd + _h(ux, uy, floor, tx0, ty0, tx1, ty1), u)
    return best, ntouched, keys, vals


@numba.njit(cache=True, nogil=True, inline="always")
def _trace(cost, dist, h, w, t, path):
    """The backtrace from ``t`` to the tree (distance 0) into ``path`` (``t`` first),
    keeping its direction, else up, left, right, down; returns its cells."""
    plen = 0
    cur = t
    heading = -1
    while True:
        path[plen] = cur
        plen += 1
        if dist[cur] == 0:
            return plen
        want = dist[cur] - cost[cur]
        moved = False
        for k in range(5):
            d = heading if k == 0 else k - 1
            if d < 0 or (k > 0 and d == heading):
                continue
            u = _neighbour(cur, d, w, 0, 0, w - 1, h - 1)
            if u >= 0 and dist[u] == want:
                cur, heading, moved = u, d, True
                break
        if not moved:
            raise RuntimeError("weighted backtrace found no predecessor")


@numba.njit(cache=True, nogil=True)
def _disjoint(boxes):
    """Whether no two boxes share a cell (sweep over boxes sorted by ``x0``)."""
    n = boxes.shape[0]
    order = np.argsort(boxes[:, 0], kind="mergesort")
    for a in range(n):
        i = order[a]
        for b in range(a + 1, n):
            j = order[b]
            if boxes[j, 0] > boxes[i, 2]:
                break
            if boxes[j, 1] <= boxes[i, 3] and boxes[i, 1] <= boxes[j, 3]:
                return False
    return True


@numba.njit(cache=True, nogil=True)
def _stamps(pin_ptr):
    """First stamp of each request (relative), and the stamps all of them use."""
    n = pin_ptr.size - 1
    stamps = np.zeros(n + 1, np.int64)
    for r in range(n):
        stamps[r + 1] = stamps[r] + 3 * (pin_ptr[r + 1] - pin_ptr[r]) + 3
    return stamps


@numba.njit(cache=True, nogil=True, inline="always")
def _swap_own(cost, own_ptr, own_cells, own_costs, r, back):
    """Swap request ``r``'s own cells' costs into ``cost`` and the grid's out (a second
    swap, ``back``, puts them back, in the reverse order, so that a cell listed twice
    costs its last cost and gets its own back): its cells lie in its box, which no
    request of the same parallel call shares, so each request reads its own costs and no
    other's."""
    n = own_ptr[r + 1] - own_ptr[r]
    for i in range(n):
        k = own_ptr[r + 1] - 1 - i if back else own_ptr[r] + i
        c = own_cells[k]
        mine = own_costs[k]
        own_costs[k] = cost[c]
        cost[c] = mine


@numba.njit(cache=True, nogil=True)
def _route_serial(free, owner, cost, h, w, nets, pin_ptr, pins, boxes, check, floor, dist,
                  mark, stamp0, scratch, queues, own_ptr, own_cells, own_costs):
    """Every request, one after another (boxes may overlap). Returns the cells (request
    ``r``'s at ``start[r]``, ``count[r]`` of them; -1: no route) and the stamps used.
    Request ``r``'s own cells (``own_ptr``) cost it ``own_costs`` (swapped into ``cost``
    for its search)."""
    n = nets.size
    stamps = _stamps(pin_ptr)
    start = np.zeros(n, np.int64)
    count = np.full(n, -1, np.int64)
    cells = np.empty(64, np.int32)
    used = 0
    for r in range(n):
        a = (boxes[r, 2] - boxes[r, 0] + 1) * (boxes[r, 3] - boxes[r, 1] + 1)
        if used + a > cells.size:
            grown = np.empty(max(2 * cells.size, used + a), np.int32)
            grown[:used] = cells[:used]
            cells = grown
        _swap_own(cost, own_ptr, own_cells, own_costs, r, False)
        count[r] = _route_one(free, owner, cost, h, w, nets[r],
                              pins[pin_ptr[r]:pin_ptr[r + 1]], boxes[r], check[r], floor,
                              dist, scratch[0, :a], mark, stamp0 + stamps[r],
                              cells[used:used + a], scratch[1, :a], queues[:, :a])
        _swap_own(cost, own_ptr, own_cells, own_costs, r, True)
        start[r] = used
        used += max(count[r], 0)
    return cells[:used], start, count, stamps[n]


@numba.njit(cache=True, nogil=True, parallel=True)
def _route_parallel(free, owner, cost, h, w, nets, pin_ptr, pins, boxes, check, floor, dist,
                    mark, stamp0, scratch, queues, own_ptr, own_cells, own_costs):
    """Every request on all cores; the boxes must be disjoint (each request owns the
    slice of ``scratch`` and ``queues`` at its box's offset). Returns as
    :func:`_route_serial` does."""
    n = nets.size
    stamps = _stamps(pin_ptr)
    area = (boxes[:, 2] - boxes[:, 0] + 1) * (boxes[:, 3] - boxes[:, 1] + 1)
    start = np.zeros(n, np.int64)
    for r in range(1, n):
        start[r] = start[r - 1] + area[r - 1]
    cells = np.empty(start[n - 1] + area[n - 1], np.int32)
    count = np.full(n, -1, np.int64)
    for r in numba.prange(n):
        a, b = start[r], start[r] + area[r]
        _swap_own(cost, own_ptr, own_cells, own_costs, r, False)
        count[r] = _route_one(free, owner, cost, h, w, nets[r],
                              pins[pin_ptr[r]:pin_ptr[r + 1]], boxes[r], check[r], floor,
                              dist, scratch[0, a:b], mark, stamp0 + stamps[r], cells[a:b],
                              scratch[1, a:b], queues[:, a:b])
        _swap_own(cost, own_ptr, own_cells, own_costs, r, True)
    return cells, start, count, stamps[n]
