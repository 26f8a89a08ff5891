"""The batched run's book: what a launch's results commit, and what a wire sends back.

Per routing position the book keeps a net's state, status, levels, bends, its wire in the
store and whether it grew (:func:`take`). A net's result may still be redone after it is
committed: an earlier net whose claim had to grow can land its wire in the claim of a
later committed net; that net goes back to the queue, and so does every later net whose
claim holds a cell of a wire lifted so (:func:`wire_hits`, :func:`dependents`,
:func:`lift`); a net sent back is marked grown, so that its next wire is checked where it
lands.

Outcomes and what the book does with them
    ``OK``: the wire is stored and the net committed; ``GROW``: the margin becomes
    ``(T - M) / 2``, which always suffices; ``ESCAPED``: the margin grows to ``2m + 16``;
    ``UNROUTED_SOURCE``: committed without a wire (levels are exact);
    ``UNROUTED_TARGET``: no wire an earlier net adds can change it, but one lifted (its
    net redone) can, so the net stays committed, to be redone with the others whose claim
    the lifted wire's overlaps, and its level count is taken once every earlier net is
    final; ``ALONE``: the net becomes a barrier, which the router searches itself. A tree's
    wire may hold pins anywhere, so the cells a wire adds to the blockages are its cells
    less every pin (:func:`wire_cells`).
"""

from __future__ import annotations

import numba
import numpy as np

from ..engines.gpu_batch import (
    ESCAPED,
    GROW,
    H_MARGIN,
    OK,
    UNROUTED_SOURCE,
    UNROUTED_TARGET,
    set_window,
)
from .schedule import COMMITTED, INFLIGHT, TODO


@numba.njit(cache=True, nogil=True)
def wire_hits(wire, width, pos, claim, state):
    """Committed nets after ``pos`` whose claim holds a cell of ``wire`` (vertex ids)."""
    n = claim.shape[0]
    xs = wire % width
    ys = wire // width
    bx0, bx1, by0, by1 = xs.min(), xs.max(), ys.min(), ys.max()
    out = []
    for q in range(pos + 1, n):
        if state[q] != COMMITTED:
            continue
        x0, y0, x1, y1 = claim[q, 0], claim[q, 1], claim[q, 2], claim[q, 3]
        if x0 > bx1 or x1 < bx0 or y0 > by1 or y1 < by0:
            continue
        for k in range(wire.size):
            if x0 <= xs[k] <= x1 and y0 <= ys[k] <= y1:
                out.append(q)
                break
    return np.array(out, dtype=np.int64)


@numba.njit(cache=True, nogil=True)
def dependents(seeds, wire_off, wire_len, store, is_pin, width, claim, state, wide):
    """``seeds`` (nets to redo) plus every later net, committed or in flight, whose claim
    holds a cell of a redone net's wire other than a pin (the wires still in ``store``),
    and so on from those. Such a net read that wire, which is lifted. A net in flight
    is taken at the claim its window may grow to in its launch (``wide``). A redone
    net's next wire, wherever it lands, is checked when it comes (the caller marks the
    net grown: :func:`wire_hits`), so nets whose claims only overlap a redone one's
    stay. Returns sorted positions.

    Examples
    --------
    >>> claim = np.array([[0, 0, 2, 2], [2, 2, 4, 4], [4, 4, 6, 6], [3, 0, 9, 1]])
    >>> store = np.array([22, 32, 33, 34, 44])      # net 1's wire, (2, 2) to (4, 4)
    >>> off, n = np.array([0, 0, 0, 0]), np.array([0, 5, 0, 0])
    >>> pin = np.zeros(100, np.bool_)
    >>> dependents(np.array([1]), off, n, store, pin, 10, claim, np.ones(4, np.int8),
    ...            claim).tolist()
    [1, 2]
    >>> pin[44] = True                               # a pin blocks for good: no one reads it
    >>> dependents(np.array([1]), off, n, store, pin, 10, claim, np.ones(4, np.int8),
    ...            claim).tolist()
    [1]
    """
    n = claim.shape[0]
    mark = np.zeros(n, np.bool_)
    stack = []
    for s in seeds:
        if not mark[s]:
            mark[s] = True
            stack.append(s)
    while stack:
        k = stack.pop()
        cells = store[wire_off[k]:wire_off[k] + wire_len[k]]
        cells = cells[~is_pin[cells]]
        if not cells.size:
            continue
        xs, ys = cells % width, cells // width
        bx0, bx1, by0, by1 = xs.min(), xs.max(), ys.min(), ys.max()
        for q in range(k + 1, n):
            if mark[q] or (state[q] != COMMITTED and state[q] != INFLIGHT):
                continue
            box = wide if state[q] == INFLIGHT else claim
            x0, y0, x1, y1 = box[q, 0], box[q, 1], box[q, 2], box[q, 3]
            if x0 > bx1 or x1 < bx0 or y0 > by1 or y1 < by0:
                continue
            for i in range(cells.size):
                if x0 <= xs[i] <= x1 and y0 <= ys[i] <= y1:
                    mark[q] = True
                    stack.append(q)
                    break
    return np.flatnonzero(mark)


@numba.njit(cache=True, nogil=True)
def send_back(book, nets):
    """``nets`` (their wires lifted) are to be searched again: ``TODO``, no wire, and
    grown, so that their next wires are checked where they land (:func:`wire_hits`)."""
    for q in nets:
        book[0, q] = TODO
        book[5, q] = 0
        book[6, q] = 1


@numba.njit(cache=True, nogil=True)
def lift(seeds, book, store, is_pin, width, claim, wide, void):
    """A redo's bookkeeping: ``seeds`` and their :func:`dependents` go back to the queue,
    the committed ones now (returned: the cells of their wires to free, less pins, and
    their positions), those in flight when they come back (marked in ``void``). Nets
    sent back are marked grown, so that their next wires are checked where they land."""
    state = book[0]
    hit = dependents(seeds, book[4], book[5], store, is_pin, width, claim, state, wide)
    undo = np.empty(hit.size, np.int64)
    m = 0
    for q in hit:
        if state[q] == INFLIGHT:
            void[q] = True
        else:
            undo[m] = q
            m += 1
    undo = undo[:m]
    cells, pos = wire_cells(undo, book[4], book[5], store, is_pin)
    send_back(book, undo)
    return cells, pos


@numba.njit(cache=True, nogil=True)
def wire_cells(pos, wire_off, wire_len, store, is_pin):
    """Cells of the stored wires of ``pos`` and their owners, less the cells where
    ``is_pin`` (flat, per cell) is set: the cells a wire adds to the blockages. An empty
    ``is_pin`` keeps every cell."""
    total = 0
    for p in pos:
        total += wire_len[p]
    cells = np.empty(total, np.int32)
    owner = np.empty(total, np.int32)
    k = 0
    for p in pos:
        for i in range(wire_off[p], wire_off[p] + wire_len[p]):
            if is_pin.size and is_pin[store[i]]:
                continue
            cells[k] = store[i]
            owner[k] = p
            k += 1
    return cells[:k], owner[:k]


@numba.njit(cache=True, nogil=True)
def take(batch, hdr, off, paths, book, pins, margin, search, claim, limit, barrier,
         shape, smem_limit, store, used, npins):
    """Record one batch's outcomes in the router's book; return the later committed nets
    that a grown net's wire lands in.

    ``book`` rows (per routing position): state, status, levels, bends, wire offset in
    ``store``, wire length, grown (the claim was enlarged, or the net was redone). OK
    wires are appended to ``store`` from ``used`` on (the caller makes room). GROW and
    ESCAPED nets get their new margin and window. A net whose claim grew may land its
    wire in the claim of a later committed net: such nets are returned (the caller redoes
    them and their :func:`dependents`).
    """
    state, status, levels, bends = book[0], book[1], book[2], book[3]
    wire_off, wire_len, grown = book[4], book[5], book[6]
    straying = []
    for k in range(batch.size):
        p = batch[k]
        st = hdr[k, 0]
        state[p] = TODO                 # what came back is committed below
        if npins[p] == 2 and hdr[k, H_MARGIN] != margin[p]:
            # the window grew in the launch: the result is of the wider claim, whose
            # wire is checked where it lands like any grown net's
            margin[p] = hdr[k, H_MARGIN]
            grown[p] = 1
            set_window(p, pins, margin, shape, search, claim, limit, barrier, smem_limit,
                       npins)
        status[p] = st
        levels[p] = hdr[k, 1]
        bends[p] = hdr[k, 2]
        if st == OK:
            state[p] = COMMITTED
            n = hdr[k, 3]
            store[used:used + n] = paths[off[k]:off[k] + n]
            wire_off[p], wire_len[p] = used, n
            used += n
            if grown[p]:
                straying.append(p)
        elif st == UNROUTED_SOURCE:
            state[p] = COMMITTED
            wire_len[p] = 0
        elif st == UNROUTED_TARGET:     # committed, not final: see the module notes
            state[p] = COMMITTED
            wire_len[p] = 0
        elif st == GROW or st == ESCAPED:
            if st == GROW:      # T bounds the distance, so (T - M) / 2 always suffices
                margin[p] = (hdr[k, 1] - 1 - abs(pins[p, 0] - pins[p, 2])
                             - abs(pins[p, 1] - pins[p, 3])) // 2
            else:
                margin[p] = 2 * margin[p] + 16
            grown[p] = 1
            set_window(p, pins, margin, shape, search, claim, limit, barrier, smem_limit,
                       npins)
        else:                   # ALONE, or the kernel could not finish it
            barrier[p] = True
    hits = [np.int64(0) for _ in range(0)]
    for p in straying:
        for q in wire_hits(store[wire_off[p]:wire_off[p] + wire_len[p]], shape[1], p,
                           claim, state):
            hits.append(q)
    if not hits:
        return used, np.zeros(0, np.int64)
    return used, np.unique(np.array(hits))



__all__ = ["wire_hits", "dependents", "send_back", "lift", "wire_cells", "take"]
