"""The phases that make and keep the routing legal after the loop: legalise, repair and
tidy: :class:`Legalise`, a part of :class:`~mazeroute.router.negotiate.Negotiator`.
"""

from __future__ import annotations

import heapq
import time

import numpy as np

from ...engines.costs import COST_DTYPE, COST_SCALE
from ...engines.weighted import NetRequest
from ..dispatch import whole_grid_search
from . import schedule

__all__ = ["Legalise", "WIRE_COST", "cover"]

#: Base costs to cross another net's wire in :meth:`Legalise.repair`'s search.
WIRE_COST = 64


def cover(graph: dict[int, set[int]], sizes: dict[int, int]) -> list[int]:
    """A greedy vertex cover of the conflict graph ``graph`` (each net with the nets it
    shares cells with), in the order taken: the net in the most conflicts first; among
    equals the longer wire (``sizes``: it frees the most room), then the later net.

    A heap of the nets' current keys, each popped key checked against the net's degree
    now, so the work grows with the edges, not with the nets times the cover.

    Examples
    --------
    >>> cover({0: {1, 2}, 1: {0}, 2: {0}, 3: {4}, 4: {3}}, {0: 5, 1: 5, 2: 5, 3: 2, 4: 9})
    [0, 4]
    """
    left = {i: set(p) for i, p in graph.items()}
    heap = [(-len(p), -sizes[i], -i) for i, p in left.items()]
    heapq.heapify(heap)
    taken = []
    while heap:
        degree, _, i = heapq.heappop(heap)
        i = -i
        if i not in left or len(left[i]) != -degree:
            continue        # a key that was true when pushed, since lowered
        for j in left.pop(i):
            left[j].discard(i)
            if left[j]:
                heapq.heappush(heap, (-len(left[j]), -sizes[j], -j))
            else:
                del left[j]
        taken.append(i)
    return taken


class Legalise:
    """Legalise, repair, tidy (see :class:`~mazeroute.router.negotiate.Negotiator`)."""

    def legalise(self) -> None:
        """Drop the fewest nets that keep conflicts (:func:`cover`), then route them again
        on the cells no other net uses, in routing order: each in its box first, in
        order-keeping batches of disjoint boxes (:func:`~.schedule.batches`: the routes
        of routing them one at a time, in a call a batch), then those that found no way
        in their box on the whole grid, one at a time."""
        conflicts = self.in_conflict()
        dropped = cover(conflicts, {i: self.routes[i].size for i in conflicts})
        for i in dropped:
            self.conflicts[i] = conflicts[i]
            self._set_route(i, None)
        if not dropped:
            return
        self._reserve_wires()
        self.state.set_pres_fac(0.0)
        rank = {int(i): k for k, i in enumerate(self.order)}
        nets = sorted(dropped, key=rank.__getitem__)
        boxes = self.boxes(np.asarray(nets, np.int64))
        failed = []
        for batch in schedule.batches(boxes, self.shape):
            if self._late("legalise"):
                return          # the nets left stay dropped: the routing stays legal
            group = [nets[k] for k in batch]
            failed += self._legal_call(group, [tuple(boxes[k].tolist()) for k in batch])
        h, w = self.shape
        for i in sorted(failed, key=rank.__getitem__):
            if self._late("legalise"):
                return
            self._legal_call([i], [(0, 0, w - 1, h - 1)])

    def _legal_call(self, nets: list[int], boxes: list[tuple[int, int, int, int]]
                    ) -> list[int]:
        """:meth:`legalise`'s search of ``nets`` in ``boxes`` (disjoint), in one call:
        each net found a way keeps it; returns those that found none in a box smaller
        than the grid."""
        start = time.perf_counter()
        cost, changed = self.state.costs()
        requests = [NetRequest(i, self.pins[i], b) for i, b in zip(nets, boxes)]
        self.watch.look(self.search, cost, requests, "legalise")
        found = self.search.route(cost, requests, changed)
        done = [(i, xy) for i, xy in zip(nets, found) if xy is not None]
        if done:
            ids = [i for i, _ in done]
            if self.watch.net in ids:
                self.watch.took(self.watch.net)
            self._commit(ids, [xy for _, xy in done],
                         list(range(self.clock, self.clock + len(done))))
            self._reserve(ids, [xy for _, xy in done])
            for i in ids:
                del self.conflicts[i]
        self.seconds[nets] += (time.perf_counter() - start) / len(nets)
        return [i for i, xy in zip(nets, found) if xy is None and not self._whole(i)]

    def _pin_search(self):
        """A second search engine whose cells belong only to the nets' pins (wires pass,
        at whatever cost the caller gives them), made once: repair and the reasons of
        unrouted nets use it, on the whole grid alone, and a grid-sized engine costs a
        pass over the grid."""
        if self.pinned is None:
            self.pinned = whole_grid_search(self.backend, self.free, self.owner)
        return self.pinned

    def _unit_costs(self) -> np.ndarray:
        """One base cost on every cell, ``(H, W)``, made once: repair and tidy search on
        it (the engines read cost arrays, never write them), and on a big grid making
        it is a share of their time (benchmarks/RESULTS.md, "Quality and speed")."""
        if self.unit_cost is None:
            self.unit_cost = np.full(self.shape, COST_SCALE, COST_DTYPE)
        return self.unit_cost

    def repair(self, max_victims: int = 2, passes: int = 3) -> int:
        """Rip-up and reroute for the nets legalisation left unrouted: a net takes the
        way that crosses the fewest other wires (a wire costs :data:`WIRE_COST` base costs
        to cross); if it crosses at most ``max_victims`` nets, those are ripped up, the
        net is committed, and each victim is routed again on the free cells; if one of
        them finds no way, everything goes back as it was. Passes over the unrouted nets
        repeat while one gains a net. Never loses a net; returns the nets gained.

        A pass searches every net's way across the wires in one call, on the wires as
        they lie when it starts, then takes the nets in routing order: a net whose way
        had a wire laid on it since (by an earlier net's repair) searches again then
        (a way with no new wire on it crosses no net the search did not price)."""
        if all(c is not None or i in self.enclosed for i, c in enumerate(self.cells)):
            return 0            # nothing to repair: spare the grid-sized set-up below
        board = _Board(self)
        self._reserve_wires()
        push = self._pin_search()
        board.uniform = self._unit_costs()
        gained = 0
        rank = {int(i): k for k, i in enumerate(self.order)}
        for _ in range(passes):
            before = gained
            todo = sorted((i for i, c in enumerate(self.cells)
                           if c is None and i not in self.enclosed), key=rank.__getitem__)
            if self._late("repair"):
                return gained
            ways = self._push(todo, board, push)
            board.laid = np.zeros(board.own.size, bool)
            for u, xy in zip(todo, ways):
                if self._late("repair"):
                    return gained
                gained += self._repair_net(u, board, push, max_victims, xy)
            if gained == before:
                break
        return gained

    def _push(self, nets: list[int], board: _Board, push) -> list[np.ndarray | None]:
        """Every net of ``nets``' way across the wires as they lie now, in one call."""
        if not nets:
            return []
        start = time.perf_counter()
        requests = [NetRequest(u, self.pins[u], board.whole) for u in nets]
        ways = push.route(board.dear.reshape(self.shape), requests, board.changes())
        self.seconds[nets] += (time.perf_counter() - start) / len(nets)
        return ways

    def _repair_net(self, u: int, board: _Board, push, max_victims: int,
                    xy: np.ndarray | None) -> int:
        """:meth:`repair`'s attempt at net ``u`` (``push``: the search across wires;
        ``xy``: its way found at the pass's start, searched again if a wire was laid
        on it since): 1 when it gained the net, else 0 (everything as it was)."""
        start = time.perf_counter()
        way = self._way(u, board, push, max_victims, xy)
        if way is None:
            return 0
        xy, victims, looked = way
        # the victims are searched on the search's owners alone (most attempts fail,
        # and a failed one leaves every route as it was); the routes, the congestion
        # state and the board follow only when every victim found a way
        redone = board.trial(u, xy, victims)
        gained = 0
        if len(redone) == len(victims):
            gained = 1
            board.fresh = []
            for v in victims:
                board.lift(v)
            board.commit(u, xy)
            for v in victims:
                board.commit(v, redone[v])
            self.conflicts.pop(u, None)
            self._took_in_repair(u, looked, redone)
        else:
            # the victims' stamps (the result's routing order) and the clock as
            # committing u and the victims redone, then putting the victims back, would
            # leave them (u's own are read only once it is routed, and set then)
            c = self.clock + 1 + len(redone)
            self.stamp[victims] = c + np.arange(len(victims))
            self.clock = c + len(victims)
        self.seconds[u] += time.perf_counter() - start
        return gained

    def _way(self, u: int, board: _Board, push, max_victims: int, xy: np.ndarray | None
             ) -> tuple[np.ndarray, list[int], object] | None:
        """Net ``u``'s way across the wires for :meth:`_repair_net` (``xy`` found at the
        pass's start, searched again if a wire was laid on it since), the nets whose
        wires it crosses, and what the watched net's search saw; None when it has no
        way or crosses more than ``max_victims`` nets."""
        # pins are all that block a way across wires, and they never move: a net
        # with no way at the pass's start has none now
        if xy is None:
            return None
        w = self.shape[1]
        request = NetRequest(u, self.pins[u], board.whole)
        self.watch.look(push, board.dear.reshape(self.shape), [request], "repair")
        looked = self.watch.last
        if board.laid[xy[:, 1] * w + xy[:, 0]].any():
            xy = push.route(board.dear.reshape(self.shape), [request], board.changes())[0]
        if xy is None:
            return None
        victims = sorted(set(board.own[xy[:, 1] * w + xy[:, 0]].tolist()) - {-1, u})
        if len(victims) > max_victims:
            return None
        return xy, victims, looked

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
        order = order[~schedule.as_short_as_can_be([self.pins[i] for i in ordered],
                                                   [self.cells[i] for i in ordered])]
        nets, boxes, regions = nets[order].tolist(), boxes[order], regions[order]
        for batch in schedule.batches(regions, self.shape):
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


class _Board:
    """What :meth:`Legalise.repair` searches across: each cell's wire (``own``, flat) and
    its cost (``dear``: :data:`WIRE_COST` base costs on a wire), kept in step with the
    negotiator's routes and its search's owners as nets are committed and lifted, and
    the cells whose cost changed since the last search across them."""

    def __init__(self, ng):
        self.ng = ng
        h, w = ng.shape
        self.whole = (0, 0, w - 1, h - 1)
        self.own = np.full(h * w, -1, np.int32)
        self.dear = np.full(h * w, COST_SCALE, COST_DTYPE)
        wires, who = ng._wired()
        self.own[wires] = who
        self.dear[wires] = WIRE_COST * COST_SCALE
        self.uniform: np.ndarray | None = None      # unit costs of the victims' searches
        #: Cells a wire was laid on since a repair pass searched its nets' ways.
        self.laid = np.zeros(h * w, bool)
        #: The cells an attempt marked laid, unmarked when it puts everything back.
        self.fresh: list[np.ndarray] = []
        self.dirty: list[np.ndarray] | None = None  # cells of dear changed; None: all
        self.legal_changed: np.ndarray | None = None

    def changes(self) -> np.ndarray | None:
        """The cells of ``dear`` changed since the last call (None the first time)."""
        dirty = self.dirty
        changed = None if dirty is None else (
            np.unique(np.concatenate(dirty)) if dirty else np.zeros(0, np.int64))
        self.dirty = []
        return changed

    def commit(self, i: int, xy: np.ndarray) -> None:
        ng = self.ng
        ng._set_route(i, xy)
        ng.search.set_owner(xy, i)
        self.own[ng.routes[i]] = i
        self.dear[ng.routes[i]] = WIRE_COST * COST_SCALE
        wire = ng.routes[i]
        self.fresh.append(wire[~self.laid[wire]])
        self.laid[wire] = True
        if self.dirty is not None:
            self.dirty.append(ng.routes[i])

    def lift(self, i: int) -> None:
        ng = self.ng
        self._release(i, ng.cells[i])
        self.own[ng.routes[i]] = -1
        self.dear[ng.routes[i]] = COST_SCALE
        if self.dirty is not None:
            self.dirty.append(ng.routes[i])
        ng._set_route(i, None)

    def _release(self, i: int, cells: np.ndarray) -> None:
        """Net ``i``'s wire ``cells`` given back in the search's owners, its pins kept."""
        search = self.ng.search
        search.set_owner(cells, -1)
        search.set_owner(self.ng.pins[i], i)

    def trial(self, u: int, xy: np.ndarray, victims: list[int]) -> dict:
        """Net ``u`` given the way ``xy`` and each of ``victims`` (whose wires it
        crosses) routed again by :meth:`legal`, in turn, on the search's owners alone:
        the routes found, up to the first victim that found none; the owners are then
        as they were (each change put back in the reverse of the order
        :meth:`commit` and :meth:`lift` would make them)."""
        ng = self.ng
        search = ng.search
        for v in victims:
            self._release(v, ng.cells[v])
        search.set_owner(xy, u)
        found = {}
        for v in victims:
            got = self.legal(v)
            if got is None:
                break
            search.set_owner(got, v)
            found[v] = got
        if len(found) < len(victims):
            for v, got in found.items():
                self._release(v, got)
            self._release(u, xy)
            for v in victims:
                search.set_owner(ng.cells[v], v)
        return found

    def legal(self, i: int) -> np.ndarray | None:
        """Net ``i`` routed on the free cells, in its box, else the whole grid."""
        ng = self.ng
        boxes = [ng.box(i)] if ng._whole(i) else [ng.box(i), self.whole]
        for box in boxes:
            request = NetRequest(i, ng.pins[i], box)
            ng.watch.look(ng.search, self.uniform, [request], "repair")
            xy = ng.search.route(self.uniform, [request], self.legal_changed)[0]
            self.legal_changed = np.zeros(0, np.int64)
            if xy is not None:
                return xy
        return None
