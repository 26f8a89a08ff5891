"""Sequential routing through the engine's batched search, with the routes of one net at a
time.

:class:`BatchRun` owns the loop: it asks :mod:`.schedule` which nets go in the next
launch, hands the launch to the engine's batched search
(:class:`~mazeroute.engines.gpu_batch.GridBatch`, or any object with its methods), and
records what comes back in the book (:mod:`.book`), whose bookkeeping per routing
position :class:`BatchNets` holds. :func:`route_batched` is the router's side: the nets in
routing order, and the barrier nets routed alone, through the :class:`~.sequential.Router`'s
public methods.

Overlapping launches
    While one batch runs, the next is queued behind it, the nets in flight counting as
    committed (:meth:`BatchRun.run`).

Nets proven unroutable without a search
    Before a two-pin net is routed alone (its window does not fit the kernel, so its
    search is the whole grid's, and all of its pin's piece of the grid when the net is
    walled off), every two-pin net waiting is checked: pins in different components of
    the cells free as of the first waiting net's turn
    (:meth:`~mazeroute.engines.gpu_batch.GridBatch.apart`) stay apart at every later
    turn, since routing only turns free cells into wires. Such nets are final without a
    wire; their level counts are taken as for ``UNROUTED_TARGET`` (on large grids, within
    a memory budget: :meth:`BatchRun._check`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..engines.gpu_batch import (
    COUNT_BYTES,
    MAX_PINS,
    OK,
    UNROUTED_SOURCE,
    UNROUTED_TARGET,
    GridBatch,
    windows,
)
from .book import dependents, lift, send_back, take, wire_cells, wire_hits
from .grouped import Groups
from .result import NetRoute
from .schedule import COMMITTED, FINAL, MAX_BATCH, REACH, TILE_RANGE, TODO, _turn, plan

if TYPE_CHECKING:
    from .sequential import Router


class BatchOutcome:
    """What a :class:`BatchRun` found, per routing position ``p``: ``routed``, ``levels``,
    ``bends``, ``seconds`` (lists), and each routed net's wire as ``cells(p)``, an ``(n, 2)``
    array of ``x, y``, root first. Positions routed alone are not described here.

    ``levels`` waits for the run's last level counts (``counted``: positions and counts,
    added to the branches' levels) at its first read, so that a caller that reads it
    last has the device count while it does the rest of its work."""

    def __init__(self, routed, levels, bends, seconds, xy, start, length, counted=None):
        self.routed, self._levels, self.bends, self.seconds = routed, levels, bends, seconds
        self._xy, self._start, self._length = xy, start, length
        self._counted = counted

    @property
    def levels(self) -> list[int]:
        """Levels per routing position (the level counts waited for at the first read)."""
        if self._counted is not None:
            counted, self._counted = self._counted, None
            for p, lv in zip(*(a.tolist() for a in counted())):
                self._levels[p] += lv     # a tree's count adds to its branches' levels
        return self._levels

    def cells(self, p: int) -> np.ndarray | None:
        """The wire of position ``p`` as ``(n, 2)`` ``x, y`` rows, root first (None:
        unrouted)."""
        if not self.routed[p]:
            return None
        return self._xy[self._start[p]:self._start[p] + self._length[p]]


class BatchNets:
    """The nets of one batched run by routing position: their pins, windows and claims,
    and the book of what their searches found (:func:`~.book.take`).

    Parameters
    ----------
    shape : the grid's ``(height, width)``
    pin_xy, pin_start, pin_count, barrier : as for :class:`BatchRun`
    margin : the window margin of every net's first search
    smem_limit : shared memory a window may take (larger windows make barriers)
    """

    def __init__(self, shape: tuple[int, int], pin_xy: np.ndarray, pin_start: np.ndarray,
                 pin_count: np.ndarray, barrier: np.ndarray, margin: int, smem_limit: int):
        self.shape = shape
        n = self.n = len(pin_count)
        self.npins = np.asarray(pin_count, np.int64)
        self.multi = self.npins > 2                       # nets of more than two pins
        self.trees = bool(self.multi.any())
        self.barrier = np.asarray(barrier, bool) | (self.npins > MAX_PINS) | (self.npins < 2)
        # every net's pins in routing order (the kernel reads a tree's from pin_at[p] on)
        cuts = np.cumsum(self.npins) - self.npins
        rows = np.repeat(np.asarray(pin_start, np.int64) - cuts, self.npins) \
            + np.arange(int(self.npins.sum()))
        xy = self.xy = np.asarray(pin_xy, np.int64).reshape(-1, 2)[rows]
        self.pin_at = cuts
        # a two-pin net's x0, y0, x1, y1; the box of a tree's pins
        self.pins = np.zeros((n, 4), np.int64)
        if n:
            self.pins[:, :2] = xy[cuts]
            self.pins[:, 2:] = xy[np.minimum(cuts + 1, len(xy) - 1)]
            tree = np.flatnonzero(self.multi)
            if tree.size:
                self.pins[tree, :2] = np.minimum.reduceat(xy, cuts)[tree]
                self.pins[tree, 2:] = np.maximum.reduceat(xy, cuts)[tree]
        h, w = shape
        self.is_pin = np.zeros(h * w, bool)            # wires add their other cells
        self.is_pin[xy[:, 1] * w + xy[:, 0]] = True
        self.margin = np.full(n, margin, np.int64)
        self.search, self.claim, self.limit = windows(
            self.pins, self.margin, self.shape, smem_limit, self.barrier, self.npins)
        side = np.maximum(self.claim[:, 2] - self.claim[:, 0], self.claim[:, 3] - self.claim[:, 1])
        self.tile = int(np.clip(1 << int(np.median(side) if n else 0).bit_length(),
                                *TILE_RANGE))
        # state, status, levels, bends, wire offset, wire length, grown
        self.book = np.zeros((7, n), np.int64)
        self.store = np.zeros(1 << 16, np.int32)      # wires, root first, back to back
        self.used = 0
        # trees found UNROUTED_TARGET: the tree so far, the roots of their level count
        self.roots: dict[int, np.ndarray] = {}
        # nets in flight whose results a redo made void (see BatchRun._finish), and the
        # claims of nets in flight at the widest their windows may grow to in the launch
        self.void = np.zeros(n, bool)
        self.wide = np.zeros((n, 4), np.int64)

    def plan(self, todo: np.ndarray, eager: bool):
        """The next launch of ``todo`` (:func:`~.schedule.plan`): batch, records, path
        offsets and path buffer size; the batch is marked in flight."""
        h, w = self.shape
        return plan(todo, self.claim, self.barrier, self.pins, self.search, self.limit,
                    self.npins, self.pin_at, self.margin, self.book[0], self.wide, w, h,
                    self.tile, MAX_BATCH, REACH, eager, self.book[6])

    def take(self, batch: np.ndarray, hdr: np.ndarray, off: np.ndarray, paths: np.ndarray,
             smem_limit: int) -> np.ndarray:
        """Record a launch's results (:func:`~.book.take`); the nets to redo: those a
        grown net's wire lands in, and those in flight whose results a redo made void."""
        if self.used + paths.size > self.store.size:
            grown = np.zeros(2 * (self.used + paths.size), np.int32)
            grown[:self.used] = self.store[:self.used]
            self.store = grown
        self.used, redo = take(batch, hdr, off, paths, self.book, self.pins,
                               self.margin, self.search, self.claim, self.limit,
                               self.barrier, self.shape, smem_limit,
                               self.store, self.used, self.npins)
        if self.trees:
            for k in np.flatnonzero((hdr[:, 0] == UNROUTED_TARGET) & self.multi[batch]):
                self.roots[int(batch[k])] = paths[off[k]:off[k] + hdr[k, 3]].copy()
        void = batch[self.void[batch]]       # redone with their dependents, as seeds
        if void.size:
            self.void[void] = False
            redo = np.union1d(redo, void)
        return redo

    def lift(self, seeds: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Send ``seeds`` and their dependents back (:func:`~.book.lift`); the cells to
        free and their positions."""
        return lift(seeds, self.book, self.store, self.is_pin, self.shape[1], self.claim,
                    self.wide, self.void)

    def prove(self, gone: np.ndarray) -> None:
        """``gone`` are final and unrouted without a search (their pins lie apart)."""
        book = self.book
        book[0, gone] = FINAL
        book[1, gone] = UNROUTED_TARGET
        book[2, gone] = book[3, gone] = book[5, gone] = 0

    def lost(self, p: int) -> int:
        """Searched nets certain to stay unrouted while ``p`` is the first ``TODO``
        position: the unrouted ones before it (final in effect), and those proven apart."""
        state, status = self.book[0], self.book[1]
        unrouted = (status == UNROUTED_SOURCE) | (status == UNROUTED_TARGET)
        return (int(np.count_nonzero(unrouted[:p]))
                + int(np.count_nonzero(unrouted[p:] & (state[p:] == FINAL))))

    def count_roots(self, ready: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        """Roots of the level counts of ``ready``: a two-pin net's root, a tree's cells
        found so far; with the groups' starts when a tree is among them (else None)."""
        w = self.shape[1]
        roots = self.pins[ready, 1] * w + self.pins[ready, 0]
        if not self.multi[ready].any():
            return roots, None
        groups = [self.roots[p] if self.multi[p] else roots[k:k + 1]
                  for k, p in enumerate(ready.tolist())]
        start = np.concatenate([[0], np.cumsum([g.size for g in groups])])
        return np.concatenate(groups), start

    def later_wires(self, p: int) -> tuple[np.ndarray, np.ndarray]:
        """Cells (less pins) and positions of the wires of committed nets after ``p``."""
        later = np.flatnonzero(self.book[0] == COMMITTED)
        later = later[later > p]
        return wire_cells(later, self.book[4], self.book[5], self.store, self.is_pin)

    def alone_done(self, p: int, routed) -> tuple[np.ndarray | None, np.ndarray]:
        """Net ``p`` was routed alone (``routed``: the vertex ids of its wire and of its
        pins, or None): it is final. Returns the wire's cells less its pins (None:
        unrouted), and the later committed nets it sends back (their wires land in its
        claim, or read a wire so lifted)."""
        state = self.book[0]
        state[p] = FINAL
        self.book[1, p] = 0
        redo = np.zeros(0, np.int64)
        if routed is None:
            return None, redo
        wire, pins = (np.asarray(a, dtype=np.int32) for a in routed)
        # the router committed the wire through the problem; the batch's time stamps
        # cover its cells other than pins (pins are never wires)
        inner = wire[~np.isin(wire, pins)]
        hits = wire_hits(wire, self.shape[1], p, self.claim, state)
        if hits.size:
            redo = dependents(hits, self.book[4], self.book[5], self.store,
                              self.is_pin, self.shape[1], self.claim, state, self.wide)
            send_back(self.book, redo)
        return inner, redo

    def outcome(self, seconds: np.ndarray, counted) -> BatchOutcome:
        """The run's :class:`BatchOutcome` (``counted``: the device's level counts)."""
        w = self.shape[1]
        book = self.book
        levels = book[2].tolist()
        wired = (book[1] == OK) & (book[0] == COMMITTED)
        ok = np.flatnonzero(wired)
        # every wire's cells as one (x, y) array; each net gets a view of its rows
        cells, _ = wire_cells(ok, book[4], book[5], self.store, np.zeros(0, bool))
        xy = np.stack([cells % w, cells // w], axis=1)
        start = np.zeros(self.n, np.int64)
        start[ok] = np.cumsum(book[5, ok]) - book[5, ok]
        return BatchOutcome(wired.tolist(), levels, book[3].tolist(),
                            seconds.tolist(), xy, start.tolist(), book[5].tolist(),
                            counted)


class BatchRun:
    """One sequential routing run through a batched search (the enactor: it owns the
    loop; the router supplies the nets and routes barrier nets).

    Positions ``p`` index the routing sequence. A net is ``TODO`` until a search
    gives it a result, then ``COMMITTED`` (its result may still be redone: an earlier net
    whose claim grew can land a wire in its claim, or lift one from it) or ``FINAL``
    (routed alone, or proven unroutable by :meth:`_check` without a search). Every net
    before the first ``TODO`` one is final in effect: only a ``TODO`` net before it could
    still change it. The per-batch bookkeeping runs in compiled helpers
    (:func:`~.book.take`): a route of many short nets runs many small batches, and
    NumPy's per-call overhead on small arrays would cost more than the searches
    themselves.

    Parameters
    ----------
    dev : the batched search
    shape : the grid's ``(height, width)``
    pin_xy : ``(m, 2)`` int64 pins ``x, y``; the net at position ``p`` has ``pin_count[p]``
        pins from row ``pin_start[p]`` on, root first
    pin_start, pin_count : ``(n,)`` int64
    barrier : ``(n,)`` bool, nets this run does not search (nets of more than
        :data:`~mazeroute.engines.gpu_batch.MAX_PINS` pins are barriers too): they are
        routed by ``route_alone(p)`` once every earlier net is final, which commits the
        wire through the engine's problem and returns the vertex ids of the wire and of
        the net's pins (None: unrouted)
    max_unrouted : :meth:`run` gives up (returns None) as soon as more than this many
        nets are final and unrouted (None: never)
    """

    #: Whether the next batch is queued while one runs (:meth:`run`); the same routes
    #: either way.
    overlap = True
    #: Whether a launch after one of fewer nets than half the device's multiprocessors
    #: also takes nets eagerly (:func:`~.schedule.schedule`); the same routes either way.
    eager = True

    def __init__(self, dev: GridBatch, shape: tuple[int, int], pin_xy: np.ndarray,
                 pin_start: np.ndarray, pin_count: np.ndarray, barrier: np.ndarray,
                 route_alone, max_unrouted: int | None = None):
        self.dev, self.shape = dev, shape
        self.route_alone = route_alone
        self.max_unrouted = max_unrouted
        self.lost_alone = 0           # nets routed alone that stayed unrouted
        nets = self.nets = BatchNets(shape, pin_xy, pin_start, pin_count, barrier,
                                     dev.margin, dev.smem_limit)
        n = self.n = nets.n
        if nets.multi.any():
            dev.set_pins(nets.xy)
        self.seconds = np.zeros(n)
        self.batches = 0
        self.last = n                 # nets of the last launch
        self.proven = 0               # nets proven unroutable by components, not searched
        per_root = dev.count_bytes()
        # nets in windows that may still be proven apart (see _check)
        self._spare = n if per_root == 0 else COUNT_BYTES // per_root

    @property
    def void(self) -> np.ndarray:
        """Per position: in flight, and its result made void by a redo."""
        return self.nets.void

    def _check(self, todo: np.ndarray) -> None:
        """Prove unroutable, without a search, the two-pin nets of ``todo`` whose pins
        lie in different components of the free cells (``dev.apart``, as of the first net
        of ``todo``, which nothing before it can change): they are final, without a wire,
        whatever later searches find (no wire an earlier net adds or lifts can join their
        pins), and their level counts come when their turn is.

        A net proven apart costs a level count in place of its search. Where a count
        keeps visited bits of the whole grid in device memory (``dev.count_bytes``), nets
        that would be searched in a window are proven only while their counts stay within
        :data:`~mazeroute.engines.gpu_batch.COUNT_BYTES` a run (the rest are searched):
        thousands of counts at once (local nets on a large grid) would take gigabytes."""
        nets = self.nets
        two = todo[~nets.multi[todo]]
        gone = two[self.dev.apart(nets.pins[two], int(todo[0]))]
        windowed = np.flatnonzero(~nets.barrier[gone])
        if windowed.size > self._spare:
            gone = np.delete(gone, windowed[self._spare:])
            windowed = windowed[:self._spare]
        self._spare -= windowed.size
        nets.prove(gone)
        self.proven += gone.size

    def lost(self, p: int) -> int:
        """Nets certain to stay unrouted while ``p`` is the first ``TODO`` position:
        the unrouted ones before it (final in effect), those proven apart, and those
        routed alone without a wire."""
        return self.nets.lost(p) + self.lost_alone

    def run(self) -> BatchOutcome | None:
        """Route every position; None when the run gave up (``max_unrouted``).

        Launches overlap the host's work: while one batch runs, the next is chosen and
        queued behind it on the device, the nets in flight counting as committed (a
        later net whose claim overlaps one of theirs reads its wire, the launches running
        in turn). A net in flight that comes back ``GROW`` or ``ESCAPED`` has grown, so
        its wire is checked against later nets when it lands (:func:`~.book.wire_hits`);
        one whose result an earlier net's redo made void is redone itself
        (:meth:`_finish`).
        """
        nets = self.nets
        state, status = nets.book[0], nets.book[1]
        counting = np.zeros(self.n, bool)
        flight = None
        while True:
            # p: the first net waiting (to do, or in flight); every net before it is
            # final in effect, so the level counts of the unroutable ones (ready) start
            # at once, and run on the device while the loop goes on
            todo, p, ready = _turn(state, status, counting)
            if self.max_unrouted is not None and self.lost(p) > self.max_unrouted:
                if flight is not None:
                    self._finish(flight)
                return None
            if ready.size:
                self._count(ready)
            if p == self.n:
                break
            if flight is not None:
                # the next batch goes in behind this one, unless a net routed alone (or
                # the check before it) must wait for every earlier net first
                ahead = self._launch(todo) if self.overlap and todo.size \
                    and not nets.barrier[todo[0]] else None
                self._finish(flight)
                flight = ahead
                continue
            if nets.barrier[p] and not nets.multi[p]:
                # a two-pin net alone searches the whole grid, and all of its piece when
                # its pins are apart: first a check of every net waiting, at the cost of
                # a labelling (checks after escaped windows too cost more than they
                # saved)
                self._check(todo)
            if nets.barrier[p] and state[p] == TODO:
                self._alone(p)
            elif not nets.barrier[p]:
                flight = self._launch(todo)
        return nets.outcome(self.seconds, self.dev.counted)

    def _launch(self, todo: np.ndarray):
        """Queue the batch of ``todo`` (TODO positions; nets in flight are not among
        them, so they count as committed) on the device; None if it is empty."""
        start = time.perf_counter()
        # a launch of fewer nets than half the device's multiprocessors leaves most of it
        # idle: the next also takes nets eagerly (schedule), each checked by wires
        eager = self.eager and self.last < self.dev.sms // 2
        batch, rec, off, size = self.nets.plan(todo, eager)
        if not batch.size:
            return None
        self.last = batch.size
        return batch, off, self.dev.launch(rec, size), start

    def _finish(self, flight) -> None:
        """Take the results of the batch in ``flight``; lift the wires of the nets they
        make redo, and make void the results of later nets in flight that may have read
        those wires (they are redone when they come back)."""
        batch, off, token, start = flight
        hdr, paths = self.dev.finish(token)
        self.batches += 1
        redo = self.nets.take(batch, hdr, off, paths, self.dev.smem_limit)
        if redo.size:
            self._redo(redo)
        self.seconds[batch] += (time.perf_counter() - start) / batch.size

    def _redo(self, seeds: np.ndarray) -> None:
        """Send ``seeds`` and their dependents back to the queue
        (:func:`~.book.dependents`): the committed ones now (their wires lifted), those in
        flight when they come back (void)."""
        self.dev.uncommit(*self.nets.lift(seeds))

    def _count(self, ready: np.ndarray) -> None:
        """Start the level counts of the ``UNROUTED_TARGET`` nets at ``ready``: from a
        two-pin net's root, from a tree's cells found so far."""
        roots, start = self.nets.count_roots(ready)
        if start is None:
            self.dev.count_levels(roots, ready)
        else:
            self.dev.count_levels(roots, ready, start)

    def _alone(self, p: int) -> None:
        """Route the net at ``p`` by itself, on the blockages as of its turn.

        Every earlier net is final; later nets already committed are lifted for the
        search, then put back unless the new wire lands in their claims.
        """
        cells, pos = self.nets.later_wires(p)
        self.dev.uncommit(cells, pos)
        # the host mirror learns every lifted cell, these included, before the search
        # reads it (gpu_grid's host_targets search on it); a net alone costs far more
        self.dev.quiesce()
        routed = self.route_alone(p)
        self.lost_alone += routed is None
        inner, redo = self.nets.alone_done(p, routed)
        if inner is not None:
            self.dev.commit(inner, np.full(inner.size, p, np.int32))
        keep = np.isin(pos, redo, invert=True)
        self.dev.commit(cells[keep], pos[keep])


@dataclass
class BatchedRoutes:
    """What :func:`route_batched` found: the routes by net index (None: the run gave up),
    launches, nets proven unroutable without a search, nets committed from group
    searches, and nets committed in all."""

    results: dict[int, NetRoute] | None
    batches: int
    proven: int
    grouped: int
    committed: int = 0


def _alone_router(router: Router, sequence: list[int], groups: Groups | None,
                  alone: dict[int, NetRoute]) -> Callable:
    """The ``route_alone`` of a :class:`BatchRun`: a barrier net through a group search
    where one certifies it, else the router's own search; kept in ``alone``."""

    def route_alone(p: int) -> tuple[np.ndarray, np.ndarray] | None:
        found = groups.route(p) if groups is not None else None
        if found is not None:
            result = router.commit_tree(sequence[p], *found)
        else:
            result = router.search_net(sequence[p])
            if result.routed and groups is not None:
                groups.landed(result.cell_array())
        alone[p] = result
        if not result.routed:
            return None
        # the wire as the array it was set from: reading ``cells`` would turn it into
        # tuples for good, a cost per cell here and again when routes.json is written
        grid = router.grid
        return grid.vertices(result.cell_array()), grid.vertices(result.pins)

    return route_alone


def route_batched(router: Router, sequence: list[int],
                  max_unrouted: int | None = None) -> BatchedRoutes:
    """Route ``sequence`` through the router's batched search (:class:`BatchRun`): nets
    many per launch, barriers (nets of more pins than it takes) routed alone through the
    router when the run reaches them. The results are None when the run gave up past
    ``max_unrouted`` nets certain to stay unrouted."""
    seq = np.asarray(sequence, dtype=np.int64)
    count = router.pin_count[seq]
    barrier = count > (MAX_PINS if router.batch_trees else 2)
    alone: dict[int, NetRoute] = {}
    # only runs with multi-pin barriers build one (route_alone is called for those alone)
    groups = Groups(router, seq, barrier, getattr(router.batch, "quiesce", None)) \
        if router.group_search and (barrier & (count > 2)).any() else None
    run = BatchRun(router.batch, router.grid.shape, router.pin_xy, router.pin_start[seq],
                   count, barrier, _alone_router(router, sequence, groups, alone),
                   max_unrouted)
    out = run.run()
    done = BatchedRoutes(None, run.batches, run.proven,
                         groups.taken if groups is not None else 0)
    if out is not None:
        done.results, done.committed = _results(router, sequence, out, alone)
    return done


def _results(router: Router, sequence: list[int], out: BatchOutcome,
             alone: dict[int, NetRoute]) -> tuple[dict[int, NetRoute], int]:
    """Each net's route by index, from the run's outcome and the nets routed alone, with
    the commit order renumbered in routing order; and the nets committed."""
    nets = router.layout.nets
    results: dict[int, NetRoute] = {}
    order = 0
    searched = []
    for p, i in enumerate(sequence):
        r = alone.get(p)
        if r is None:
            xy = out.cells(p)
            searched.append(p)
            # an unrouted tree keeps the bends of the branches it found, as the router's
            r = NetRoute.of_wire(nets[i].name, list(nets[i].pins), xy, order, out.bends[p],
                                 out.seconds[p])
            order += xy is not None
        elif r.routed:
            r.order = order
            order += 1
        results[i] = r
    # read last: the run's final level counts run on the device while the above is done
    levels = out.levels
    for p in searched:
        results[sequence[p]].levels = levels[p]
    return results, order


__all__ = ["BatchOutcome", "BatchNets", "BatchRun", "BatchedRoutes", "route_batched"]
