"""The PathFinder loop: iterations of rip-up and reroute in batches, and the rules that
stop it: :class:`Loop`, a part of :class:`~mazeroute.router.negotiate.Negotiator`.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np
import scipy.ndimage

from ...engines.weighted import NetRequest, box_sides
from ..result import IterationStats
from . import schedule

__all__ = ["Loop", "apart", "cut_off"]

#: The four steps to a cell's neighbours.
STEPS = ((1, 0), (-1, 0), (0, 1), (0, -1))


def cut_off(label: np.ndarray, pins: np.ndarray) -> bool:
    """Whether ``pins`` ``(k, 2)`` (x, y) lie in different pieces of ``label`` (the
    pieces of the cells a net may enter, 0 elsewhere), joined through the pins: a walk
    over pins and pieces, where a pin enters the pieces beside it and the pins beside
    it, a piece every pin beside it.

    >>> label = np.array([[1, 0, 2]])
    >>> cut_off(label, np.array([[0, 0], [2, 0]])), cut_off(label, np.array([[0, 0], [1, 0]]))
    (True, False)
    """
    h, w = label.shape
    pins = np.asarray(pins).tolist()
    near = [{int(label[y + dy, x + dx]) for dx, dy in STEPS
             if 0 <= x + dx < w and 0 <= y + dy < h and label[y + dy, x + dx]}
            for x, y in pins]
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


def apart(label: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """:func:`cut_off` of many two-pin nets at once: ``ends`` ``(2, n, 2)`` holds each
    net's two pins (x, y); a net is cut off when no piece lies beside both pins and the
    pins are not side by side.

    >>> label = np.array([[1, 0, 2], [1, 1, 0]])
    >>> apart(label, np.array([[[0, 0], [0, 0]], [[2, 0], [2, 1]]])).tolist()
    [True, False]
    """
    h, w = label.shape
    beside = np.zeros((2, ends.shape[1], len(STEPS)), label.dtype)
    for k, (dx, dy) in enumerate(STEPS):
        x, y = ends[..., 0] + dx, ends[..., 1] + dy
        inside = (x >= 0) & (x < w) & (y >= 0) & (y < h)
        beside[inside, k] = label[y[inside], x[inside]]
    a, b = beside[0][:, :, None], beside[1][:, None, :]
    shared = ((a == b) & (a > 0)).any(axis=(1, 2))
    touch = np.abs(ends[0] - ends[1]).sum(axis=1) <= 1
    return ~(shared | touch)


class Loop:
    """The loop (see :class:`~mazeroute.router.negotiate.Negotiator`)."""

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
            pending, more, area = self._reroute_pass(pending)
            searches += more
            cells += area
        self.cells_searched += cells
        return searches

    def _reroute_pass(self, pending: np.ndarray) -> tuple[np.ndarray, int, int]:
        """One pass of :meth:`reroute` over ``pending``: the nets to search again (their
        boxes grown), the searches made and the cells of their boxes."""
        boxes = self.boxes(pending)
        free_order = self.state.order_free()
        if not free_order:
            perm = self._order(boxes)
            pending, boxes = pending[perm], boxes[perm]
        rank = np.empty(len(self.layout.nets), np.int64)
        rank[pending] = np.arange(pending.size)
        clock = self.clock             # stamps follow the order, not the batches
        groups, grouped = self._calls(pending, boxes, free_order)
        got = None
        if self.on_device and self.iterations and self._late("negotiation"):
            got = [], 0, 0              # the nets keep their routes
        elif self.on_device:
            got = self._device_pass(pending, boxes, groups, grouped)
        failed, searches, cells = (got if got is not None else
                                   self._host_pass(pending, boxes, groups, grouped))
        self.clock = clock + pending.size
        retry = []
        if self.iterations and self._late("negotiation"):
            failed = []     # no more searches: the failed nets stay unrouted
        failed = sorted(failed, key=rank.__getitem__)
        whole = [self._whole(i) for i in failed]
        cut = self._cut_off([i for i, grid in zip(failed, whole) if not grid])
        for i, grid in zip(failed, whole):
            if grid or i in cut:
                self.enclosed.add(i)
            else:
                self._grow(i)
                retry.append(i)
        return np.asarray(retry, np.int64), searches, cells

    def _host_pass(self, pending: np.ndarray, boxes: np.ndarray, groups: list[np.ndarray],
                   grouped: bool) -> tuple[list[int], int, int]:
        """:meth:`_reroute_pass`'s searches, call by call, with the state on the host: the
        nets that found no route, the searches made and the cells of their boxes."""
        searches = cells = 0
        clock = self.clock
        failed = []
        bw, bh = box_sides(boxes)
        areas = bw * bh
        requests = [[NetRequest(i, self.pins[i], tuple(b))
                     for i, b in zip(pending[batch].tolist(), boxes[batch].tolist())]
                    for batch in groups]
        # a run of two batches or more that the engine chains goes in one chain (not
        # for a watched net: a chain prices its batches on the device, unseen)
        chains = (self.options.device_chains and len(groups) > 1
                  and self.watch.net is None and not grouped)
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
                reqs = self._own(requests[k]) if grouped else requests[k]
                if not grouped:
                    self._rip(nets[0])
                cost, changed = self.state.costs()
                self.watch.look(self.search, cost, reqs,
                                f"iteration {len(self.iterations) + 1}")
                found_all = [self.search.route(cost, reqs, changed)]
                if grouped:              # the group's old wires go once all have searched
                    self._rip(nets[0])
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
        return failed, searches, cells

    def _calls(self, pending: np.ndarray, boxes: np.ndarray, free_order: bool
               ) -> tuple[list[np.ndarray], bool]:
        """The positions of ``pending`` that each call searches, and whether they are
        ``group_nets``'s runs (searched before their old wires go)."""
        if free_order:
            return [np.arange(pending.size)], False
        if self.options.group_nets > 0:
            return self._groups(pending, self.options.group_nets), True
        return schedule.batches(boxes, self.shape, self.options.snapshot_nets), False

    def _groups(self, pending: np.ndarray, size: int) -> list[np.ndarray]:
        """``pending``'s positions in groups of at most ``size``: the classes of a greedy
        colouring, in routing order, of the nets whose current wires share a cell (two
        such nets would each see the other's old wire and step aside together,
        iteration after iteration; :func:`~.schedule.wire_groups`); ``size`` 1 is
        PathFinder's order itself."""
        if self.colour_cells is None:      # the colouring's cells, zero between calls
            self.colour_cells = np.zeros(self.free.size, np.int64)
        if self.on_device:      # the device's routes come one after another, as kept
            ptr, flat = self.search.state_routes(pending)
            return schedule.packed_wire_groups(ptr, flat, self.free.size, size,
                                               self.colour_cells)
        return schedule.wire_groups([self.routes[i] for i in pending.tolist()],
                                    self.free.size, size, self.colour_cells)

    def _own(self, requests: list[NetRequest]) -> list[NetRequest]:
        """``requests`` each pricing its net's current wire as if it were gone."""
        wires = [self.routes[r.net] for r in requests]
        have = [k for k, w in enumerate(wires) if w is not None]
        if not have:
            return requests
        sizes = np.array([wires[k].size for k in have], np.int64)
        cells = np.concatenate([wires[k] for k in have])
        nets = np.repeat(np.array([requests[k].net for k in have], np.int64), sizes)
        costs = np.split(self.state.cost_without(nets, cells), np.cumsum(sizes)[:-1])
        out = list(requests)
        for k, c in zip(have, costs):
            out[k] = requests[k]._replace(own=wires[k], own_cost=c)
        return out

    def _order(self, boxes: np.ndarray) -> np.ndarray:
        """The routing order of ``reroute_order`` (:class:`~.congestion.PathFinderOptions`)
        of nets in ``hpwl`` order whose searches reach ``boxes``: their positions."""
        return schedule.reroute_order(self.options.reroute_order, boxes, self.shape)

    def _cut_off(self, nets: list[int]) -> set[int]:
        """The nets of ``nets`` whose pins lie in different pieces of the cells they may
        enter (:func:`cut_off`; two-pin nets all at once, :func:`apart`): no box, however
        grown, holds a route for them. The pieces are labelled once, at the first net
        whose search fails."""
        if not nets:
            return set()
        if self.pieces is None:
            self.pieces = scipy.ndimage.label(self.free & (self.owner < 0))[0]
        ptr, flat = self.pins_flat
        at = np.asarray(nets, np.int64)
        two = ptr[at + 1] - ptr[at] == 2
        w = self.shape[1]
        ends = np.stack([flat[ptr[at[two]]], flat[ptr[at[two]] + 1]]).astype(np.int64)
        cut = {int(i) for i in at[two][apart(self.pieces, np.stack([ends % w, ends // w],
                                                                   axis=2))]}
        return cut | {i for i in at[~two].tolist() if cut_off(self.pieces, self.pins[i])}

    def negotiate(self, progress: Callable[[IterationStats], None] | None = None) -> int:
        """The PathFinder loop; returns the number of iterations run."""
        opt = self.options
        if self.deadline is None and opt.time_limit is not None:
            self.deadline = self.now() + opt.time_limit
        todo = self.order.astype(np.int64)
        rank = np.empty(len(todo), np.int64)
        rank[todo] = np.arange(len(todo))
        iteration = 0
        if self._device_applies():
            self._device_open()
        while True:
            iteration += 1
            t0 = time.perf_counter()
            self.state.set_pres_fac(opt.pres_fac(iteration))
            if self.on_device:
                self.search.state_pres(self.state.pres)
            before = self.cells_searched
            self.reroute(todo)
            self.searched.append(self.cells_searched - before)
            if self.on_device:
                uses, over = self._device_iteration()
                overused = over.size
            else:
                uses = self.overused_uses(todo.tolist())
                overused = int(self.state.overused().size)
            conflicts = self.conflicting(uses=uses)
            stats = IterationStats(iteration, overused, len(conflicts),
                                   len(todo), time.perf_counter() - t0, self.state.pres_fac,
                                   left=self._left())
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
            if self.on_device:
                self._device_end_iteration(over, conflicts)
            else:
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
        self._device_close()
        return iteration

    def _stop(self, iteration: int) -> str | None:
        """Why the loop stops after ``iteration``, which left nets in conflict (the
        report's words), or None to go on."""
        opt = self.options
        if self._late():
            return f"{self.limit_words} reached"
        if iteration >= opt.max_iterations:
            return f"iteration cap ({opt.max_iterations}) reached"
        if opt.over_budget(iteration + 1, self.cells_searched):
            return (f"past {opt.budget_after} iterations it goes on only while its searches "
                    "are cheap")
        if iteration == opt.budget_after and self._fills():
            return "the space-filling search connects every net"
        overused = [s.overused for s in self.iterations]
        in_conflict = [s.conflicts for s in self.iterations]
        if opt.crowded(in_conflict, len(self.layout.nets)):
            return (f"over-subscribed: {in_conflict[-1]} of {len(self.layout.nets)} nets "
                    f"still in conflict after {iteration} iterations, no progress")
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

    def _left(self) -> float | None:
        """Seconds left before the deadline (None: no limit)."""
        self._settle_bound()
        return None if self.deadline is None else max(0.0, self.deadline - self.now())

    def _late(self, step: str | None = None) -> bool:
        """Whether the time limit has run out (:attr:`deadline`); if so, ``step`` (a
        phase that stops part way for it) is recorded as cut short."""
        self._settle_bound()
        if self.deadline is None or self.now() < self.deadline:
            return False
        if step is not None:
            self.cut.setdefault(step, "cut short")
        return True

    def _settle_bound(self) -> None:
        """The wait bound's deadline, once the run reaches ``min_wait``: the floor routed
        and timed then (:meth:`~mazeroute.router.negotiate.Negotiator._time_floor`)."""
        if self.bound_pending and self.now() >= self.deadline:
            self._time_floor()
