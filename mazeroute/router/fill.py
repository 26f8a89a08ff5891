"""Space-filling completion: route every two-pin net so that the wires together cover
every free cell and no wire runs beside itself, by an exhaustive depth-first search.

Negotiated congestion moves wires along cost gradients; it seldom finds the long,
winding wires that a dense layout needs when its nets can only all be connected by
using nearly every cell (numberlink puzzles are the extreme case: their solutions fill
the board). For such layouts this search is exact and fast. It finds a routing in which
(1) every free cell is on exactly one wire, and (2) no wire touches itself: two cells of
the same wire that are neighbours are consecutive on it. When the layout has such a
routing the search finds one (given the steps); when it has none, the search says so,
usually at once, and the caller keeps what negotiation found.

Why it is fast. Cells are decided one anti-diagonal at a time (top-left to
bottom-right, each diagonal from its upper end), each cell choosing which of its east
and south neighbours its wire continues to; north and west were decided before.
Conditions (1) and (2) force strong local rules that prune most choices at once:

* a cell whose wire turns from east to south (a corner opening to the south-east)
  wraps around its south-east neighbour; by (1) that neighbour is on some wire, and by
  (2) not on this one, so it must itself be such a corner, or a pin, or a blockage. A
  corner of this kind is therefore possible only on a diagonal that leads, through
  free non-pin cells, to a pin or a blockage. The same holds for the other three
  corners and their diagonals;
* two corners of one wire, side by side and turning the same way, make a U-turn whose
  legs run beside each other, against (2);
* a wire never closes a loop, and a wire never joins two pins of different nets.

The search is deterministic and bounded by ``max_steps`` (a step is one choice tried),
not by a clock; about 50 million steps take one second on one core of a 2020s server.
A time limit (``seconds``) may stop it sooner, and then says so (status ``"time"``).

The pruning rules follow the numberlink solver of Thomas Ahle (github.com/thomasahle/
numberlink, its "paper" search), generalised here to blockages, which end a diagonal as
a pin does.

Examples
--------
>>> import numpy as np
>>> free = np.ones((3, 3), bool)
>>> free[1, 1] = False                            # a blockage in the middle
>>> got = fill_routes(free, [np.array([[0, 0], [2, 0]]), np.array([[0, 1], [2, 1]])])
>>> got.status, got.routes[1].tolist()            # b goes round below the blockage
('found', [[0, 1], [0, 2], [1, 2], [2, 2], [2, 1]])
>>> fill_routes(np.ones((3, 3), bool),             # crossing nets: no way
...            [np.array([[0, 0], [2, 2]]), np.array([[2, 0], [0, 2]])]).status
'none'
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

import numba
import numpy as np

#: Connection bits of a cell: its wire continues north, east, south, west.
N, E, S, W = 1, 2, 4, 8

#: Layouts with more cells are not searched (the search keeps about 80 bytes a cell).
MAX_CELLS = 1 << 21


@dataclass
class FillResult:
    """What :func:`fill_routes` found.

    Attributes
    ----------
    status : ``"found"`` (``routes`` holds a wire for every net), ``"none"`` (the
        layout has no space-filling routing), ``"steps"`` (``max_steps`` ran out
        first), ``"time"`` (``seconds`` ran out first), or ``"skipped"`` (the layout
        is not one this search handles, see ``why``)
    routes : each net's wire as ``(k, 2)`` x, y cells from its first pin to its second
        (only when found)
    steps : choices the search tried
    why : why it was skipped
    """

    status: str
    routes: list[np.ndarray] = field(default_factory=list)
    steps: int = 0
    why: str = ""


def fill_routes(free: np.ndarray, pins: list[np.ndarray], max_steps: int = 400_000_000,
                max_cells: int = MAX_CELLS, seconds: float | None = None) -> FillResult:
    """A space-filling routing of two-pin nets (see the module's docstring).

    Parameters
    ----------
    free : (H, W) bool, True where a wire may pass
    pins : each net's pins as a ``(2, 2)`` array of x, y (every net must have two)
    max_steps : choices the search may try before it gives up (status ``"steps"``)
    max_cells : larger layouts are skipped
    seconds : stop the search after about this long (status ``"time"``; None: no limit)

    Returns
    -------
    FillResult
    """
    free = np.asarray(free, bool)
    h, w = free.shape
    if h * w > max_cells:
        return FillResult("skipped", why=f"{w} x {h} cells exceed {max_cells}")
    if any(len(p) != 2 for p in pins):
        return FillResult("skipped", why="a net has more or fewer than two pins")
    w2 = w + 2
    # padded grid: 0 free, >0 a pin of net label-1, -1 blockage, -2 outside
    label = np.full((h + 2, w2), -2, np.int32)
    label[1:-1, 1:-1] = np.where(free, 0, -1)
    for k, p in enumerate(pins):
        p = np.asarray(p, np.int64)
        if (p[:, 0] < 0).any() or (p[:, 0] >= w).any() or (p[:, 1] < 0).any() \
                or (p[:, 1] >= h).any() or not free[p[:, 1], p[:, 0]].all() \
                or (label[p[:, 1] + 1, p[:, 0] + 1] != 0).any() or (p[0] == p[1]).all():
            return FillResult("skipped", why=f"net {k}'s pins are not two distinct free "
                                             "cells of their own")
        label[p[:, 1] + 1, p[:, 0] + 1] = k + 1
    con, status, steps = _timed_search(label.ravel(), w, h, int(max_steps), seconds)
    if status != 1:
        return FillResult({0: "none", -1: "steps"}.get(status, "time"), steps=int(steps))
    routes = []
    for p in pins:
        walk = _walk(con, w2, int(p[0][0]) + 1 + (int(p[0][1]) + 1) * w2)
        routes.append(np.stack([walk % w2 - 1, walk // w2 - 1], axis=1))
    return FillResult("found", routes, int(steps))


@numba.njit(cache=True)
def _next(con, w2, cur, prev):
    """The cell after ``cur`` on its wire, coming from ``prev`` (-1: none, an end)."""
    for d, step in ((N, -w2), (E, 1), (S, w2), (W, -1)):
        if con[cur] & d and cur + step != prev:
            return cur + step
    return -1


@numba.njit(cache=True)
def _walk(con, w2, start):
    """The cells (padded flat indices) of the wire from pin ``start`` to its other end."""
    out = [start]
    prev, cur = -1, start
    while True:
        prev, cur = cur, _next(con, w2, cur, prev)
        if cur < 0:
            return np.array(out, np.int64)
        out.append(cur)


@numba.njit(cache=True)
def _touches(label, con, w2):
    """Whether some wire runs beside itself (cells of one wire that are neighbours but
    not consecutive on it). The search's rules exclude most such wires, not all."""
    seen = np.zeros(label.size, np.int32)
    for p in range(label.size):
        if label[p] <= 0 or seen[p] != 0:
            continue
        a = label[p]
        prev, cur = -1, p
        while cur >= 0:
            seen[cur] = a
            for d, step in ((N, -w2), (E, 1), (S, w2), (W, -1)):
                if not con[cur] & d and seen[cur + step] == a:
                    return True
            prev, cur = cur, _next(con, w2, cur, prev)
    return False


def _timed_search(label, w, h, max_steps, seconds):
    """:func:`_search`, stopped after ``seconds`` (None: never) through its ``abort``
    flag: the compiled search releases the GIL, so it runs in a thread while this one
    waits on the clock."""
    abort = np.zeros(1, np.int32)
    if seconds is None:
        return _search(label, w, h, max_steps, abort)
    out: list = []
    worker = threading.Thread(target=lambda: out.append(_search(label, w, h, max_steps,
                                                                abort)), daemon=True)
    worker.start()
    try:
        worker.join(max(0.0, seconds))
    finally:
        abort[0] = 1            # also when interrupted: the search must not outlive us
        worker.join()
    return out[0]


@numba.njit(cache=True, nogil=True)
def _search(label, w, h, max_steps, abort):
    """Depth-first search over the cells in anti-diagonal order; returns the connection
    bits of every padded cell, the status (1 found, 0 none, -1 steps ran out, -2
    stopped by ``abort[0]`` set nonzero, read every 65536 steps) and the steps tried."""
    w2 = w + 2
    n = label.size
    con = np.zeros(n, np.int32)
    end = np.arange(n)              # at the two ends of a partial wire: the other end
    src = label > 0
    wall = label == -1              # a blockage ends a diagonal as a pin does
    # corners opening SE (resp. SW) only on the NW (resp. NE) diagonals of pins/blockages
    can_se = np.zeros(n, np.bool_)
    can_sw = np.zeros(n, np.bool_)
    for p in range(n):
        if src[p] or wall[p]:
            q = p - w2 - 1
            while q >= 0 and label[q] == 0:
                can_se[q] = True
                q -= w2 + 1
            q = p - w2 + 1
            while q >= 0 and label[q] == 0:
                can_sw[q] = True
                q -= w2 - 1
    diag = np.zeros(16, np.bool_)
    diag[N | E] = diag[N | W] = diag[S | E] = diag[S | W] = True
    step = np.zeros(16, np.int64)
    step[N], step[E], step[S], step[W] = -w2, 1, w2, -1
    back = np.zeros(16, np.int32)
    back[N], back[E], back[S], back[W] = S, W, N, E
    m = w * h
    order = np.empty(m, np.int64)
    k = 0
    for d in range(w + h - 1):
        for x in range(min(d, w - 1), -1, -1):
            y = d - x
            if y >= h:
                break
            order[k] = (y + 1) * w2 + x + 1
            k += 1
    opts = np.zeros((m, 2), np.int32)
    nopt = np.zeros(m, np.int32)
    tried = np.zeros(m, np.int32)
    # undo record of a level: the (end1, end2) of each connection it made
    made = np.zeros((m, 2, 2), np.int64)
    nmade = np.zeros(m, np.int32)
    steps = 0
    i = 0
    fresh = True
    while True:
        if i == m:
            if not _touches(label, con, w2):
                return con, 1, steps
            i -= 1
            fresh = False
        if fresh:
            p = order[i]
            c = con[p]
            ne, nw, east = p - w2 + 1, p - w2 - 1, p + 1
            # a cell left without a west link by this one must be able to open SE
            east_ok = con[east] != 0 or can_se[east] or label[east] != 0
            k = 0
            if label[p] < 0:
                if c == 0:
                    opts[i, 0] = 0
                    k = 1
            elif src[p]:
                if c == 0:
                    if con[ne] != (S | W):
                        opts[i, k] = E
                        k += 1
                    if east_ok:
                        opts[i, k] = S
                        k += 1
                elif c == N or c == W:
                    opts[i, 0] = 0
                    k = 1
            elif c == 0:
                if can_se[p]:
                    opts[i, 0] = E | S
                    k = 1
            elif c == W:
                if can_sw[p] and east_ok:
                    # the corners below-left must all be turning the same way, down to
                    # the pin or blockage they wrap
                    q = p + w2 - 1
                    while label[q] == 0 and con[q] == W:
                        q += w2 - 1
                    if src[q] or wall[q]:
                        opts[i, k] = S
                        k += 1
                if con[ne] != (S | W) and con[nw] != (S | E):
                    opts[i, k] = E
                    k += 1
            elif c == (N | W):
                if con[nw] == (N | W) or src[nw] or wall[nw]:
                    opts[i, 0] = 0
                    k = 1
            elif c == N:
                if con[ne] == (N | E) or (src[ne] and con[ne] & (N | E) != 0) or wall[ne]:
                    opts[i, k] = E
                    k += 1
                if con[ne] != (S | W) and con[nw] != (S | E) and east_ok:
                    opts[i, k] = S
                    k += 1
            nopt[i] = k
            tried[i] = 0
            nmade[i] = 0
        # undo what this level made before (in reverse)
        p = order[i]
        for j in range(nmade[i] - 1, -1, -1):
            e1, e2 = made[i, j, 0], made[i, j, 1]
            d = E if j == 0 and opts[i, tried[i] - 1] & E else S
            q = p + step[d]
            con[p] &= ~d
            con[q] &= ~back[d]
            end[e1] = p
            end[e2] = q
        nmade[i] = 0
        if tried[i] >= nopt[i]:
            if i == 0:
                return con, 0, steps
            i -= 1
            fresh = False
            continue
        steps += 1
        if steps > max_steps:
            return con, -1, steps
        if steps & 0xFFFF == 0 and abort[0] != 0:
            return con, -2, steps
        dirs = opts[i, tried[i]]
        tried[i] += 1
        good = True
        for d in (E, S):
            if not dirs & d:
                continue
            q = p + step[d]
            if label[q] < 0 or (src[q] and con[q] != 0):
                good = False
                break
            e1, e2 = end[p], end[q]
            if (label[e1] > 0 and label[e2] > 0 and label[e1] != label[e2]) or e1 == q:
                good = False          # two nets joined, or a loop closed
                break
            c0 = con[p]
            if c0 != 0 and diag[con[p + step[c0]]] and diag[c0 | d] \
                    and con[p + step[c0]] & (c0 | d) != 0:
                good = False          # a U-turn whose legs touch
                break
            con[p] |= d
            con[q] |= back[d]
            made[i, nmade[i], 0] = e1
            made[i, nmade[i], 1] = e2
            nmade[i] += 1
            end[e1] = e2
            end[e2] = e1
        if good:
            i += 1
            fresh = True
        else:
            fresh = False


__all__ = ["FillResult", "MAX_CELLS", "fill_routes"]
