"""Multi-pin nets of a sequential run searched many at a time, in boxes, with the very
wires of the one-net-at-a-time loop.

The batched search of ``gpu/grid`` takes two-pin nets only; a net of more pins is a
*barrier* that the router used to search by itself, one whole-grid wavefront (a launch
and a read-back) per branch of its tree. Here a run of consecutive barrier nets is cut
into *groups*: each net's box is its pins' box grown by :data:`GROUP_MARGIN`, a group
takes the next nets in routing order while each one's box is disjoint from the boxes of
the group so far, and the whole group is one call of the weighted net search
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
    grid, so the target, the wire and its bends are the router's. A branch that fails
    the test, or a net the box search leaves unrouted, is routed by itself as before.

Order
    The nets of a group are searched on the blockages as of the first one's turn. A later
    member's box is disjoint from the earlier members' boxes, and a certified wire stays
    in its box, so its blockages at its own turn are the same within its box; once a
    member falls back to the whole-grid search, its wire may land anywhere, so the
    results of the members after it are dropped and searched again at their turn.
"""

from __future__ import annotations

import time

import numba
import numpy as np

from ..engines import make_net_search
from ..engines.weighted import COST_DTYPE, NetRequest, box_levels

#: Cells by which a net's box exceeds its pins' box. A wider box certifies longer
#: detours, a narrower one lets more boxes be disjoint; only the speed depends on it.
GROUP_MARGIN = 12
#: Most nets in one group (one search call).
GROUP_NETS = 1024
#: A net whose group search fails (a pin out of reach in its box, or a branch longer
#: than its box certifies) is searched again alone in boxes this many times wider
#: before the router searches the whole grid for it.
RETRY_GROWTH = (4, 16)

# directions of the backtrace (mazeroute.backtrace): up, left, right, down
_DX = np.array([0, -1, 1, 0], np.int64)
_DY = np.array([-1, 0, 0, 1], np.int64)


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
def _changes(view, seen, pin, boxes, out):
    """Up to ``out.size`` cells of the boxes (not pins) whose state in ``view`` differs
    from ``seen``, as flat ids in ``out``; ``seen`` takes their new state. Returns how
    many (``out.size``: call again for the rest)."""
    w = view.shape[1]
    m = 0
    for b in range(boxes.shape[0]):
        for y in range(boxes[b, 1], boxes[b, 3] + 1):
            for x in range(boxes[b, 0], boxes[b, 2] + 1):
                if view[y, x] != seen[y, x] and not pin[y, x]:
                    if m == out.size:
                        return m
                    seen[y, x] = view[y, x]
                    out[m] = y * w + x
                    m += 1
    return m


class Groups:
    """Group searches of one run's barrier nets (module notes).

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

    def route(self, p: int):
        """Net ``sequence[p]``'s result from a group search, committed through the
        router, or None where the router must search it by itself (then tell
        :meth:`landed` where its wire went)."""
        if p not in self.cache:
            self._search_from(p)
        found = self.cache.pop(p, None)
        retried = found is None
        for grow in RETRY_GROWTH if retried else ():
            found = self._search_from(p, GROUP_MARGIN * grow, 1, keep=False).get(p)
            if found is not None:
                break
        if found is None:
            return None
        xy, levels, turns, seconds, _ = found
        if retried:                        # a wider box than the group's: check the rest
            self.landed(xy)
        self.taken += 1
        return self.router._commit_tree(int(self.sequence[p]), xy, levels, turns, seconds)

    def landed(self, xy: np.ndarray) -> None:
        """A wire ``xy`` was committed outside a group's own boxes: drop the results
        whose box it enters (they were searched without it)."""
        xy = np.asarray(xy).reshape(-1, 2)
        for q, found in list(self.cache.items()):
            if found is None:
                continue
            x0, y0, x1, y1 = found[4]
            if ((xy[:, 0] >= x0) & (xy[:, 0] <= x1) & (xy[:, 1] >= y0)
                    & (xy[:, 1] <= y1)).any():
                del self.cache[q]

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
        self.search = make_net_search(backend, free, owner)
        self.cost = np.ones(free.shape, COST_DTYPE)
        self.fresh = True                  # the next call uploads every cost
        self.buf = np.empty(1 << 12, np.int64)

    def _boxes(self, nets: np.ndarray, margin: int) -> np.ndarray:
        r = self.router
        h, w = r.grid.shape
        out = np.empty((len(nets), 4), np.int64)
        for k, i in enumerate(nets.tolist()):
            pins = r.pin_xy[r.pin_start[i]:r.pin_start[i] + r.pin_count[i]]
            lo, hi = pins.min(axis=0) - margin, pins.max(axis=0) + margin
            out[k] = (max(0, lo[0]), max(0, lo[1]), min(w - 1, hi[0]), min(h - 1, hi[1]))
        return out

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

    def _search_from(self, p: int, margin: int = GROUP_MARGIN, most: int = GROUP_NETS,
                     keep: bool = True) -> dict:
        """Search the group of (at most ``most``) consecutive barrier nets from position
        ``p`` on, boxes ``margin`` cells wider than the pins' boxes; returns each
        position's certified result (None: not certified), kept in the cache unless
        ``keep`` is False (then the cache stays as it is)."""
        start = time.perf_counter()
        r = self.router
        end = p
        while end < len(self.sequence) and end - p < most and self.barrier[end]:
            end += 1
        nets = self.sequence[p:end]
        boxes = self._boxes(nets, margin)
        level = box_levels(boxes, r.grid.shape)
        take = int(np.argmax(level > 0)) if (level > 0).any() else len(nets)
        nets, boxes = nets[:take], boxes[:take]
        if self.sync is not None:
            self.sync()
        if self.search is None:
            self._make()
        self._sync_state(boxes)
        requests = [NetRequest(int(i), r.pin_xy[r.pin_start[i]:r.pin_start[i] + r.pin_count[i]],
                               tuple(b)) for i, b in zip(nets.tolist(), boxes.tolist())]
        found = self.search.route(self.cost, requests,
                                  None if self.fresh else np.zeros(0, np.int64))
        self.fresh = False
        self.searches += 1
        h, w = r.grid.shape
        seconds = (time.perf_counter() - start) / max(1, len(nets))
        out: dict = {}
        for k, (req, xy) in enumerate(zip(requests, found)):
            ok = False
            if xy is not None:
                x0, y0, x1, y1 = req.box
                ok, levels, turns = certify(np.ascontiguousarray(xy, np.int64),
                                            np.ascontiguousarray(req.pins, np.int64),
                                            x0, y0, x1, y1, h, w)
            out[p + k] = (xy, levels, turns, seconds, req.box) if ok else None
        if keep:
            self.cache = out
        return out
