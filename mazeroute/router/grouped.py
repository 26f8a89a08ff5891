"""Multi-pin nets of a sequential run searched many at a time, in boxes, with the very
wires of the one-net-at-a-time loop.

The batched search of ``gpu/grid`` takes nets of up to ``MAX_PINS`` pins (trees, see
:mod:`mazeroute.engines.gpu_batch`; two-pin nets only with ``Router.batch_trees`` off);
a net of more pins is a *barrier* that the router used to search by itself, one
whole-grid wavefront (a launch and a read-back) per branch of its tree. Here, at a
barrier net's turn, it and later nets of its run of consecutive barrier nets are
searched as one *group*: each net's box is its pins' box grown by :data:`GROUP_MARGIN`,
and a later net joins when its box meets neither a box of the group or of a result
waiting in the cache, nor the box of any earlier net left out (that net goes first, and
its wire may enter). The group is one call of the weighted net search
(:mod:`mazeroute.engines.weighted`) on uniform costs, whose trees are the BFS trees of
the router (same target choice, same backtrace rule; see that module's notes).

Why a result found in a box is the router's (:func:`certify`)
    Take a tree ``T`` and the pins ``R`` not yet in it, and a branch of length ``d``
    found in the box. A path from ``t`` in ``T`` to ``q`` in ``R`` through a cell ``o``
    outside the box is at least ``|t - o| + |o - q|`` long, at least ``|t - q|`` plus
    twice the gap between the pair's box and the nearest side of the box that is not the
    grid's edge. If ``d`` is below that bound ``L`` for every pair, every path of length
    at most ``d`` from ``T`` to a pin stays in the box: the pins at distance ``d`` (the
    router's tie set) and every cell on their shortest paths (all the backtrace can step
    on, and every neighbour it compares) have the same distance in the box as in the
    grid, so the target, the wire and its bends are the router's. A net that fails the
    test, or that the box search leaves unrouted, is searched once more in a wider box
    (:data:`RETRY_GROWTH`), then by the router itself as before.

Order
    The nets of a group are searched on the blockages as of the first one's turn, and
    their results wait in a cache for their own turn. No earlier net still to be
    searched has a box meeting theirs, and a certified wire stays in its box, so each
    one's blockages at its turn are the same within its box. A wire that may leave its
    group box (a wider box's, or the router's own search) drops the cached results whose
    box it enters; they are searched again at their turn.
"""

from __future__ import annotations

import time

import numba
import numpy as np

from ..backtrace import _DX, _DY  # the backtrace's directions: up, left, right, down
from ..engines.weighted import COST_DTYPE, LEVEL_TILE, NetRequest
from .dispatch import net_search

#: Cells by which a net's box exceeds its pins' box. A wider box certifies longer
#: detours, a narrower one lets more boxes be disjoint; only the speed depends on it.
GROUP_MARGIN = 12
#: Most nets in one group (one search call).
GROUP_NETS = 1024
#: A net whose group search fails (a pin out of reach in its box, or a branch longer
#: than its box certifies) is searched once more, at the head of the next group, with a
#: margin this many times wider, before the router searches the whole grid for it.
RETRY_GROWTH = 4
#: How far past a net a group search looks for more nets.
LOOK_AHEAD = 4096


@numba.njit(cache=True, nogil=True)
def _gap(ax, ay, bx, by, x0, y0, x1, y1, h, w):
    """Least detour (one way) a path between two cells of the box must make to leave it
    through a side that is not the grid's edge (a large number when every side is)."""
    g = 1 << 40
    if x0 > 0:
        g = min(g, min(ax, bx) - x0 + 1)
    if y0 > 0:
        g = min(g, min(ay, by) - y0 + 1)
    if x1 < w - 1:
        g = min(g, x1 - max(ax, bx) + 1)
    if y1 < h - 1:
        g = min(g, y1 - max(ay, by) + 1)
    return g


@numba.njit(cache=True, nogil=True)
def certify(xy, pins, x0, y0, x1, y1, h, w):
    """Whether the tree ``xy`` (root first, then each branch from the tree outwards, as
    the weighted search returns it) found in the box ``x0, y0, x1, y1`` is the one the
    whole grid would give (module notes), and then the router's level count (a branch
    of length ``d`` is a wavefront of ``d + 1`` levels) and bends (each branch's
    backtrace down to the tree cell it steps onto)."""
    n = xy.shape[0]
    k = pins.shape[0]
    joined = np.zeros(k, np.bool_)
    joined[0] = True
    levels = 0
    turns = 0
    tree = 1                       # xy[:tree] is the tree
    while tree < n:
        j = tree                   # the branch ends at the first pin not yet joined
        hit = -1
        while j < n and hit < 0:
            for p in range(k):
                if not joined[p] and xy[j, 0] == pins[p, 0] and xy[j, 1] == pins[p, 1]:
                    hit = p
            if hit < 0:
                j += 1
        if hit < 0:
            return False, 0, 0
        d = j - tree + 1
        bound = 1 << 40
        for t in range(tree):
            for p in range(k):
                if not joined[p]:
                    tx, ty, qx, qy = xy[t, 0], xy[t, 1], pins[p, 0], pins[p, 1]
                    far = abs(tx - qx) + abs(ty - qy) + 2 * _gap(tx, ty, qx, qy, x0, y0,
                                                                 x1, y1, h, w)
                    bound = min(bound, far)
        if d >= bound:
            return False, 0, 0
        # the backtrace's last step: from the branch's first cell onto the tree, the
        # heading kept if it can be, else up, left, right, down
        cx, cy = xy[tree, 0], xy[tree, 1]
        heading = -1
        if d > 1:
            sx, sy = cx - xy[tree + 1, 0], cy - xy[tree + 1, 1]
            for di in range(4):
                if _DX[di] == sx and _DY[di] == sy:
                    heading = di
        jx, jy = -1, -1
        for kk in range(5):
            di = heading if kk == 0 else kk - 1
            if di < 0 or (kk > 0 and di == heading):
                continue
            nx, ny = cx + _DX[di], cy + _DY[di]
            for t in range(tree):
                if xy[t, 0] == nx and xy[t, 1] == ny:
                    jx, jy = nx, ny
                    break
            if jx >= 0:
                break
        if jx < 0:
            return False, 0, 0
        # bends along target, ..., first cell, junction
        px, py = xy[j, 0], xy[j, 1]
        lx, ly = 0, 0
        first = True
        for s in range(j - 1, tree - 2, -1):
            ax, ay = (xy[s, 0], xy[s, 1]) if s >= tree else (jx, jy)
            stx, sty = ax - px, ay - py
            if not first and (stx != lx or sty != ly):
                turns += 1
            lx, ly, first = stx, sty, False
            px, py = ax, ay
        levels += d + 1
        joined[hit] = True
        tree = j + 1
    for p in range(k):
        if not joined[p]:
            return False, 0, 0
    return True, levels, turns


@numba.njit(cache=True, nogil=True)
def _changes(view, seen, skip, boxes, out):
    """Up to ``out.size`` cells of the boxes (not ``skip``: the pins) whose state in
    ``view`` differs from ``seen``, as flat ids in ``out``; ``seen`` takes their new
    state. Returns how many (``out.size``: call again for the rest)."""
    w = view.shape[1]
    m = 0
    for b in range(boxes.shape[0]):
        for y in range(boxes[b, 1], boxes[b, 3] + 1):
            for x in range(boxes[b, 0], boxes[b, 2] + 1):
                if view[y, x] != seen[y, x] and not skip[y, x]:
                    if m == out.size:
                        return m
                    seen[y, x] = view[y, x]
                    out[m] = y * w + x
                    m += 1
    return m


@numba.njit(cache=True, nogil=True)
def _mark(tiles, box, tile, tiles_w, delta):
    for ty in range(box[1] // tile, box[3] // tile + 1):
        for tx in range(box[0] // tile, box[2] // tile + 1):
            tiles[ty * tiles_w + tx] += delta


@numba.njit(cache=True, nogil=True)
def _clear_of(tiles, box, tile, tiles_w):
    for ty in range(box[1] // tile, box[3] // tile + 1):
        for tx in range(box[0] // tile, box[2] // tile + 1):
            if tiles[ty * tiles_w + tx]:
                return False
    return True


@numba.njit(cache=True, nogil=True)
def _pick(cand, boxes, occ, tile, tiles_w, most):
    """The first of ``cand`` (always) and, in order, each later one whose box shares no
    tile with a box in ``occ`` (the cached results') nor with the box of an earlier
    candidate, picked or not (a net left out goes before it, and its wire may enter its
    box), up to ``most``; the picked boxes are marked in ``occ``."""
    out = np.empty(min(cand.size, most), np.int64)
    skip = np.zeros(occ.size, np.int32)
    m = 0
    for c in cand:
        if m == out.size:
            break
        if m == 0 or (_clear_of(occ, boxes[c], tile, tiles_w)
                      and _clear_of(skip, boxes[c], tile, tiles_w)):
            _mark(occ, boxes[c], tile, tiles_w, 1)
            out[m] = c
            m += 1
        else:
            _mark(skip, boxes[c], tile, tiles_w, 1)
    return out[:m]


class Groups:
    """Group searches of one run's barrier nets (module notes).

    Results wait in a cache until their net's turn. The boxes of the cached results are
    pairwise disjoint (their tiles are counted in ``occ``), and a cached box never meets
    the box of an earlier net still to be searched, so a certified wire, which stays in
    its box, never changes another cached result. A wire committed otherwise (a net
    searched in a wider box, or by the router itself) drops the cached results whose box
    it enters (:meth:`landed`).

    Parameters
    ----------
    router : the :class:`~.sequential.Router` (its problem, layout and pins)
    sequence : net indices in routing order
    barrier : per position, True for a net the batched search does not take
    sync : called before the blockages are read (the batched search's ``quiesce``)
    """

    def __init__(self, router, sequence: np.ndarray, barrier: np.ndarray, sync=None):
        self.router, self.sequence, self.barrier, self.sync = router, sequence, barrier, sync
        self.search = None
        self.cache: dict[int, tuple | None] = {}
        self.searches = 0                  # search calls
        self.taken = 0                     # nets committed from them
        h, w = router.grid.shape
        self.tiles_w = -(-w // LEVEL_TILE)
        self.occ = np.zeros(self.tiles_w * -(-h // LEVEL_TILE), np.int32)
        self.boxes = self._boxes(GROUP_MARGIN)
        self.widened = np.zeros(len(sequence), bool)   # searched in a wider box once
        self.loose: dict[int, bool] = {}   # searched with a box meeting cached boxes
        # the end of the run of barrier nets each position belongs to
        stops = np.flatnonzero(~np.append(barrier, False))
        self.run_end = stops[np.searchsorted(stops, np.arange(len(sequence)))]

    def route(self, p: int) -> tuple[np.ndarray, int, int, float] | None:
        """Net ``sequence[p]``'s certified tree from a group search, as ``(cells,
        levels, bends, seconds)`` for the router to commit at once, or None where the
        router must search it by itself (then tell :meth:`landed` where its wire went)."""
        if p not in self.cache:
            self._search_from(p)
        found = self._take(p)
        if found is None and not self.widened[p]:
            # once more in a wider box, at the head of the next group
            self.widened[p] = True
            self.boxes[p] = self._boxes(GROUP_MARGIN * RETRY_GROWTH, np.array([p]))[0]
            self._search_from(p)
            found = self._take(p)
        if found is None:
            return None
        xy, levels, turns, seconds = found
        if self.loose.pop(p, False):       # its box met cached ones: check them
            self.landed(xy)
        self.taken += 1
        return xy, levels, turns, seconds

    def _take(self, p: int):
        """Net ``p``'s cached result (None: not certified), out of the cache."""
        if p not in self.cache:
            return None
        _mark(self.occ, self.boxes[p], LEVEL_TILE, self.tiles_w, -1)
        return self.cache.pop(p)

    def _cached_meeting(self, box) -> list[int]:
        """Cached positions whose box overlaps ``box``."""
        if not self.cache:
            return []
        keys = np.fromiter(self.cache, np.int64, len(self.cache))
        b = self.boxes[keys]
        hit = ~((b[:, 2] < box[0]) | (box[2] < b[:, 0]) | (b[:, 3] < box[1])
                | (box[3] < b[:, 1]))
        return keys[hit].tolist()

    def landed(self, xy: np.ndarray) -> None:
        """A wire ``xy`` was committed outside a group's own boxes: drop the results
        whose box it enters (they were searched without it)."""
        xy = np.asarray(xy).reshape(-1, 2)
        lo, hi = xy.min(axis=0), xy.max(axis=0)
        for q in self._cached_meeting((lo[0], lo[1], hi[0], hi[1])):
            x0, y0, x1, y1 = self.boxes[q]
            if ((xy[:, 0] >= x0) & (xy[:, 0] <= x1) & (xy[:, 1] >= y0)
                    & (xy[:, 1] <= y1)).any():
                self._take(q)

    def _make(self) -> None:
        r = self.router
        layout = r.layout
        free = ~layout.blocked
        owner = np.full(free.shape, -1, np.int32)
        self.pin = np.zeros(free.shape, bool)
        xy = r.pin_xy
        self.pin[xy[:, 1], xy[:, 0]] = True
        net = np.repeat(np.arange(len(layout.nets)), r.pin_count)
        owner[xy[:, 1], xy[:, 0]] = net
        self.wall = len(layout.nets)        # owner of a wire cell: no net may enter it
        self.seen = np.array(r.problem.free_view(), dtype=bool)
        owner[free & ~self.seen & ~self.pin] = self.wall
        backend = "gpu" if r.engine.startswith("gpu") else "cpu"
        self.search = net_search(backend, free, owner)
        self.cost = np.ones(free.shape, COST_DTYPE)
        self.fresh = True                  # the next call uploads every cost
        self.buf = np.empty(1 << 12, np.int64)

    def _boxes(self, margin: int, at: np.ndarray | None = None) -> np.ndarray:
        """Boxes ``(x0, y0, x1, y1)`` of the nets at positions ``at`` (default: all):
        their pins' boxes grown by ``margin``, clipped to the grid."""
        r = self.router
        h, w = r.grid.shape
        nets = self.sequence if at is None else self.sequence[at]
        if len(nets) == 0:
            return np.zeros((0, 4), np.int64)
        start, count = r.pin_start[nets], r.pin_count[nets]
        cuts = np.cumsum(count) - count
        xy = r.pin_xy[np.repeat(start - cuts, count) + np.arange(count.sum())]
        lo = np.maximum(np.minimum.reduceat(xy, cuts) - margin, 0)
        hi = np.minimum(np.maximum.reduceat(xy, cuts) + margin, [w - 1, h - 1])
        return np.concatenate([lo, hi], axis=1).astype(np.int64)

    def _sync_state(self, boxes: np.ndarray) -> None:
        """Bring the search's cell owners up to the router's blockages in ``boxes``."""
        view = self.router.problem.free_view()
        w = view.shape[1]
        while True:
            m = _changes(view, self.seen, self.pin, boxes, self.buf)
            cells = self.buf[:m]
            now = view.ravel()[cells]
            xy = np.stack([cells % w, cells // w], axis=1)
            if now.any():
                self.search.set_owner(xy[now], -1)
            if (~now).any():
                self.search.set_owner(xy[~now], self.wall)
            if m < self.buf.size:
                return

    def _search_from(self, p: int) -> None:
        """Search ``p`` and the later nets of its run (up to :data:`LOOK_AHEAD`
        positions on) that :func:`_pick` takes; cache their results."""
        if self._cached_meeting(self.boxes[p]):
            self.loose[p] = True           # its wire may enter those: checked when landed
        end = min(int(self.run_end[p]), p + LOOK_AHEAD)
        cand = np.array([q for q in range(p, end) if q not in self.cache], np.int64)
        picked = _pick(cand, self.boxes, self.occ, LEVEL_TILE, self.tiles_w, GROUP_NETS)
        self.cache.update(self._search(picked, self.boxes[picked]))

    def _search(self, at: np.ndarray, boxes: np.ndarray) -> dict:
        """One search call for the nets at positions ``at`` in ``boxes`` on the
        blockages now; each position's certified result (None: not certified)."""
        start = time.perf_counter()
        r = self.router
        if self.sync is not None:
            self.sync()
        if self.search is None:
            self._make()
        self._sync_state(boxes)
        nets = self.sequence[at]
        requests = [NetRequest(int(i), r.pin_xy[r.pin_start[i]:r.pin_start[i] + r.pin_count[i]],
                               tuple(b)) for i, b in zip(nets.tolist(), boxes.tolist())]
        found = self.search.route(self.cost, requests,
                                  None if self.fresh else np.zeros(0, np.int64))
        self.fresh = False
        self.searches += 1
        h, w = r.grid.shape
        seconds = (time.perf_counter() - start) / max(1, len(nets))
        out: dict = {}
        for q, req, xy in zip(at.tolist(), requests, found):
            ok = False
            if xy is not None:
                x0, y0, x1, y1 = req.box
                ok, levels, turns = certify(np.ascontiguousarray(xy, np.int64),
                                            np.ascontiguousarray(req.pins, np.int64),
                                            x0, y0, x1, y1, h, w)
            out[q] = (np.asarray(xy, np.int64), levels, turns, seconds) if ok else None
        return out
