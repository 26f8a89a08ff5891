"""Which nets of a sequential route go in which batched launch.

The router's batched run (:mod:`.batched`) searches many nets in one launch of the
engine's batched search (:mod:`mazeroute.engines.gpu_batch`) and keeps every route equal
to sequential routing's. This module chooses each launch.

Scheduling
    Walking the nets in routing order, a net joins the batch when its claim (its window
    grown by a cell) is disjoint from the claims of all earlier nets not yet committed
    (:func:`schedule`); nets of more pins and nets whose window does not fit the kernel
    are *barriers*, routed alone by the router once every earlier net is done. A later
    net may thus be committed before an earlier one; the kernel reads the blockages as of
    its own net's turn, so that only an earlier net whose claim had to grow can break a
    later net's result (:mod:`.book`).
    After a launch of fewer nets than half the device's multiprocessors, the next also
    takes nets *eagerly*: a net whose claim overlaps only the margins of earlier waiting
    nets' claims, not their pins' boxes, joins, and those earlier nets are marked like
    grown ones, so that a wire of theirs landing in its claim sends it back (the same
    check, hence the same routes). The chain of launches of a route's last nets is
    shorter for it (benchmarks/RESULTS.md, "The batched router's launch designs").

Windows that grow in the launch
    A two-pin net's record carries its *room* (:func:`schedule`): the largest margin whose
    claim stays clear of every earlier net still waiting. A ``GROW`` or ``ESCAPED``
    search whose next margin is within the room is searched again at once, in the same
    launch. Nothing earlier that is still to come can change that result; a wire an
    earlier net of the launch lays in it is caught as any grown net's
    (:func:`~.book.wire_hits`).
"""

from __future__ import annotations

import numba
import numpy as np

from ..engines.gpu_batch import UNROUTED_TARGET, pin_box, records

# net states kept by the router's batched loop (INFLIGHT: in a launch not yet read back)
TODO, COMMITTED, FINAL, INFLIGHT = 0, 1, 2, 3
#: Largest margin a window grows to within a launch (:func:`schedule`).
REACH = 128
#: Most nets searched in one launch.
MAX_BATCH = 4096
#: Least and greatest side of the buckets in which the scheduler compares claims (a
#: run takes the power of two between them nearest above its claims' median side:
#: smaller buckets hold a claim in more of them, larger ones hold more claims each).
TILE_RANGE = (16, 256)


@numba.njit(cache=True, nogil=True)
def schedule(todo, claim, barrier, pins, width, height, tile, max_batch, reach, eager,
             check):
    """The nets of ``todo`` (routing positions, in order) that can be searched together
    now, and the room of each.

    A net joins the batch when its claim overlaps the claim of no earlier net of
    ``todo``; the scan stops at the first barrier (or at ``max_batch`` nets). Its *room*
    is the largest margin (at most ``reach``) whose claim around its pins' box stays
    clear of the claim of every earlier net of ``todo``: its window may grow that far
    within the launch. Its result there depends on no earlier net still to be searched;
    later nets' wires read as free, and an earlier net of the batch that grows into this
    one's claim is checked when its wire lands (:func:`~.book.wire_hits`). Claims are
    bucketed by ``tile`` x ``tile`` cells, so that a net is compared only with earlier
    nets near it; one pass over ``todo`` gives both answers.

    With ``eager``, a net whose claim overlaps earlier claims of ``todo`` but none of
    those nets' pins' boxes (grown by a cell) joins too: a wire between pins that nothing
    pushes aside stays in their box, so theirs will likely miss its claim. Each earlier
    net it overlaps is marked in ``check``: its wire is checked where it lands, as a
    grown net's, and the eager net redone if it lands in its claim.

    Examples
    --------
    >>> claim = np.array([[0, 0, 4, 4], [3, 3, 8, 8], [6, 0, 9, 2], [12, 7, 14, 9]])
    >>> pins = np.array([[1, 1, 3, 3], [4, 4, 7, 7], [7, 1, 8, 1], [13, 8, 13, 8]])
    >>> check = np.zeros(4, np.int64)
    >>> batch, room = schedule(np.arange(4), claim, np.zeros(4, np.bool_), pins,
    ...                        20, 20, 4, 99, 9, False, check)
    >>> batch.tolist(), room.tolist()
    ([0, 2, 3], [9, 0, 3])
    >>> claim[0], claim[1], pins[1] = [0, 0, 6, 6], [5, 5, 10, 10], [7, 7, 8, 8]
    >>> schedule(np.arange(2), claim, np.zeros(4, np.bool_), pins, 20, 20, 4, 99, 9,
    ...          False, check)[0].tolist()                # net 1's claim meets net 0's
    [0]
    >>> schedule(np.arange(2), claim, np.zeros(4, np.bool_), pins, 20, 20, 4, 99, 9,
    ...          True, check)[0].tolist(), check.tolist()  # but not its pins' box
    ([0, 1], [1, 0, 0, 0])
    """
    tx = (width + tile - 1) // tile
    ty = (height + tile - 1) // tile
    head = np.full(tx * ty, -1, np.int64)
    entries = 0
    for p in todo:
        entries += ((claim[p, 2] // tile - claim[p, 0] // tile + 1)
                    * (claim[p, 3] // tile - claim[p, 1] // tile + 1))
    nxt = np.empty(entries, np.int64)
    who = np.empty(entries, np.int64)
    seen = np.full(claim.shape[0], -1, np.int64)       # last net whose room read it
    over = np.empty(256, np.int64)
    out = np.empty(min(todo.size, max_batch), np.int64)
    room = np.empty(out.size, np.int64)
    count = 0
    used = 0
    for p in todo:
        if barrier[p] or count == max_batch:
            break
        clash, boxed, met = _overlaps(p, claim, pins, head, who, nxt, tile, tx, eager, over)
        if clash and eager and not boxed and met <= over.size:
            for k in range(met):
                check[over[k]] = 1
            clash = False
        if not clash:
            out[count] = p
            room[count] = _room(p, pins, claim, head, who, nxt, seen, tile, tx, reach,
                                width, height)
            count += 1
        used = _file(p, claim, head, who, nxt, used, tile, tx)
    return out[:count], room[:count]


@numba.njit(cache=True, nogil=True)
def _overlaps(p, claim, pins, head, who, nxt, tile, tx, eager, over):
    """Whether net ``p``'s claim meets an earlier claim filed in the buckets, whether it
    meets an earlier net's pins' box grown by a cell (``eager`` only), and how many
    earlier nets it meets (``eager``: listed in ``over`` while there is room)."""
    x0, y0, x1, y1 = claim[p, 0], claim[p, 1], claim[p, 2], claim[p, 3]
    clash = False            # over an earlier claim
    boxed = False            # over an earlier net's pins' box (grown by a cell)
    met = 0                  # earlier nets overlapped (eager: listed in over)
    for j in range(y0 // tile, y1 // tile + 1):
        for i in range(x0 // tile, x1 // tile + 1):
            e = head[j * tx + i]
            while e >= 0 and not boxed and (eager or not clash):
                q = who[e]
                e = nxt[e]
                if (claim[q, 0] > x1 or claim[q, 2] < x0
                        or claim[q, 1] > y1 or claim[q, 3] < y0):
                    continue
                clash = True
                if eager:
                    boxed = not (min(pins[q, 0], pins[q, 2]) - 1 > x1
                                 or max(pins[q, 0], pins[q, 2]) + 1 < x0
                                 or min(pins[q, 1], pins[q, 3]) - 1 > y1
                                 or max(pins[q, 1], pins[q, 3]) + 1 < y0)
                    if met < over.size:
                        over[met] = q
                    met += 1
    return clash, boxed, met


@numba.njit(cache=True, nogil=True)
def _room(p, pins, claim, head, who, nxt, seen, tile, tx, reach, width, height):
    """The largest margin, at most ``reach``, whose claim around net ``p``'s pins' box
    stays clear of every claim filed in the buckets (``seen``: the last net whose room
    read each net)."""
    bx0, bx1 = min(pins[p, 0], pins[p, 2]), max(pins[p, 0], pins[p, 2])
    by0, by1 = min(pins[p, 1], pins[p, 3]), max(pins[p, 1], pins[p, 3])
    best = reach
    # claims within reach of the box: those in tiles it may grow into
    for j in range(max(by0 - reach - 1, 0) // tile,
                   min(by1 + reach + 1, height - 1) // tile + 1):
        for i in range(max(bx0 - reach - 1, 0) // tile,
                       min(bx1 + reach + 1, width - 1) // tile + 1):
            e = head[j * tx + i]
            while e >= 0:
                q = who[e]
                e = nxt[e]
                if seen[q] == p:
                    continue
                seen[q] = p
                gap = max(claim[q, 0] - bx1, bx0 - claim[q, 2],
                          claim[q, 1] - by1, by0 - claim[q, 3])
                best = min(best, gap - 2)
    return best


@numba.njit(cache=True, nogil=True)
def _file(p, claim, head, who, nxt, used, tile, tx):
    """File net ``p``'s claim in every bucket it covers; the entries used after."""
    x0, y0, x1, y1 = claim[p, 0], claim[p, 1], claim[p, 2], claim[p, 3]
    for j in range(y0 // tile, y1 // tile + 1):
        for i in range(x0 // tile, x1 // tile + 1):
            t = j * tx + i
            who[used] = p
            nxt[used] = head[t]
            head[t] = used
            used += 1
    return used


@numba.njit(cache=True, nogil=True)
def plan(todo, claim, barrier, pins, search, limit, npins, pin_at, margin, state, wide,
         width, height, tile, max_batch, reach, eager, grown):
    """One launch: its batch and their rooms (:func:`schedule`; ``grown``: the book's
    row, where eager nets mark the earlier nets to check), its records
    (:func:`~mazeroute.engines.gpu_batch.records`: the records, path offsets and path
    buffer size), and the batch marked ``INFLIGHT`` in ``state``, each net with the claim
    its window may grow to in the launch in ``wide`` (what a redo must assume it read).
    One compiled call, as the host's share of a launch is what a route of many short nets
    waits for (benchmarks/RESULTS.md, "Sequential routing")."""
    batch, room = schedule(todo, claim, barrier, pins, width, height, tile, max_batch,
                           reach, eager, grown)
    rec, off, size = records(batch, search, pins, limit, npins, pin_at, room)
    for k in range(batch.size):
        p = batch[k]
        state[p] = INFLIGHT
        # its widest claim
        pin_box(wide, p, pins, max(room[k], margin[p]) + 1, width, height)
    return batch, rec, off, size


@numba.njit(cache=True, nogil=True)
def _turn(state, status, counting):
    """A turn of :meth:`.batched.BatchRun.run`: the ``TODO`` positions, the first
    position still waiting (``TODO`` or ``INFLIGHT``; the number of nets when none is),
    and the ``UNROUTED_TARGET`` nets before it not yet ``counting`` (marked so now)."""
    n = state.size
    todo = np.empty(n, np.int64)
    m = 0
    p = n
    for q in range(n):
        if state[q] == TODO:
            todo[m] = q
            m += 1
            p = min(p, q)
        elif state[q] == INFLIGHT:
            p = min(p, q)
    ready = np.empty(p, np.int64)
    r = 0
    for q in range(p):
        if status[q] == UNROUTED_TARGET and not counting[q]:
            counting[q] = True
            ready[r] = q
            r += 1
    return todo[:m], p, ready[:r]


__all__ = ["TODO", "COMMITTED", "FINAL", "INFLIGHT", "REACH", "MAX_BATCH", "TILE_RANGE",
           "schedule", "plan"]
