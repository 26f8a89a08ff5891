"""Batched routing on the GPU (``kernels/route_batch.cu``) and its scheduler.

Routing nets one at a time through ``gpu/grid`` pays, per net, a few CuPy calls, a launch,
a download and a Python backtrace: more than the CPU engine spends on a short net
(benchmarks/RESULTS.md, "Figures moved from code comments"). This module routes many
nets of up to :data:`MAX_PINS` pins in one launch, one thread block per net, and keeps
the answer *identical* to sequential routing.

Windows
    Net ``j`` searches only its *window* ``S_j``: the pins' bounding box grown by a margin
    ``m`` (clipped to the grid). A path that leaves ``S_j`` is at least ``M + 2m + 2``
    long (``M`` the pins' Manhattan distance), so a target level ``T <= M + 2m + 1`` found
    inside ``S_j`` is the true distance, and every cell the backtracer can step on (all on
    shortest paths, hence inside ``S_j``) has its true level: the wire equals the one
    sequential routing finds. ``claim_j`` is ``S_j`` grown by one cell (the halo the
    kernel reads to tell whether a component is enclosed).

Trees
    A net of 3 to :data:`MAX_PINS` pins searches its window (its pins' box grown by the
    margin) in stages, as the router does: a BFS from the tree so far to the first pin
    labelled, the backtrace to the tree. A stage's levels are the whole grid's up to one
    past the least level ``e`` of a labelled cell beside a free cell outside the window
    (a path through the outside takes at least ``e + 2`` steps to come back), so a target
    at level ``T <= e + 1`` gives the router's target, wire and bends; a deeper one is
    ``ESCAPED``. A stage that reaches no pin is ``UNROUTED_SOURCE`` (exact) when no
    labelled cell touches the outside, else ``ALONE``: the router searches the net
    itself. Such a net's wire may hold pins anywhere, so the cells a wire adds to the
    blockages are its cells less every pin (:func:`wire_cells`).

Scheduling
    Walking the nets in routing order, a net joins the batch when its claim is disjoint
    from the claims of all earlier nets not yet committed (:func:`schedule`); nets of
    more pins and nets whose window does not fit the kernel are *barriers*, routed alone
    by the router once every earlier net is done. A later net may thus be committed before
    an earlier one; the kernel therefore reads the blockages *as of its own net's turn*:
    a cell blocked by the wire of a later net (its commit position, kept per cell in
    ``time``) counts as free. Only an earlier net whose claim had to grow can break a
    later net's result: when its wire lands in the claim of a later committed net, that
    net goes back to the queue, and so does every later net whose claim holds a cell of
    a wire lifted so (:func:`wire_hits`, :func:`dependents`); a net sent back is marked
    grown, so that its next wire is checked where it lands.
    After a launch of fewer nets than half the device's multiprocessors, the next also
    takes nets *eagerly*: a net whose claim overlaps only the margins of earlier waiting
    nets' claims, not their pins' boxes, joins, and those earlier nets are marked like
    grown ones, so that a wire of theirs landing in its claim sends it back (the same
    check, hence the same routes). The chain of launches of a route's last nets is
    shorter for it (RESULTS.md, issue 14, twelfth session of 2026-11-26).
    While one batch runs, the next is queued behind it, the nets in flight counting as
    committed (:meth:`BatchRun.run`).

Outcomes of one search (``status``)
    ``OK``: the wire (root first), committed by the kernel; ``GROW``: reached, but deeper
    than ``M + 2m + 1``, so the margin becomes ``(T - M) / 2``, which always suffices;
    ``UNROUTED_SOURCE``: the source's component is enclosed in the window without the
    target (levels are exact); ``UNROUTED_TARGET``: the target's component is enclosed
    without the source; no wire an earlier net adds can change that, but one lifted (its
    net redone) can, so the net stays committed, to be redone with the others whose claim
    the lifted wire's overlaps; its level count (a full wavefront from the root) is taken
    as soon as every earlier net is final (none can be redone then), on side streams while
    batching goes on (:meth:`GridBatch.count_levels`; for a tree, from the tree so far,
    added to the levels of the branches it found);
    ``ESCAPED``: neither, so the margin grows to ``2m + 16``;
    ``ALONE``: a tree outgrew its room in the path buffer, and the router searches it.

Windows that grow in the launch
    A two-pin net's record carries its *room* (:func:`schedule`): the largest margin whose
    claim stays clear of every earlier net still waiting. A ``GROW`` or ``ESCAPED``
    search whose next margin is within the room (and whose window fits the block) is
    searched again at once, in the same launch, rather than in a later one; the header
    tells the margin its result is of. Nothing earlier that is still to come can change
    that result; a wire an earlier net of the launch lays in it is caught as any grown
    net's (:func:`wire_hits`), and two wires of one launch may then share a cell, which
    names the earlier (``time`` keeps the least position; a lifted wire frees only the
    cells that name it).

Nets proven unroutable without a search
    Before a two-pin net is routed alone (its window does not fit the kernel, so its
    search is the whole grid's, and all of its pin's piece of the grid when the net is
    walled off), every two-pin net waiting is checked: pins in different components of
    the cells free as of the first waiting net's turn (:meth:`GridBatch.apart`) stay
    apart at every later turn, since routing only turns free cells into wires. Such nets
    are final without a wire; their level counts are taken as for ``UNROUTED_TARGET``
    (on large grids, within a memory budget: :meth:`BatchRun._check`).

Exactness is tested against the CPU router on random layouts, by
``tests/test_router_batch.py`` both through the kernel and through a CPU statement of it.
"""

from __future__ import annotations

import time

import numba
import numpy as np

from .base import allow_shared

#: int32 fields of one net's search record (see kernels/route_batch.cu): for a tree,
#: ``F_LIMIT`` is one less than the room for its cells, ``F_PINS`` the index of its first
#: pin in the pins given to :meth:`GridBatch.set_pins`; ``F_ROOM``: the largest margin a
#: two-pin net's window may grow to within the launch (:func:`schedule`).
REC = 14
F_POS, F_X0, F_Y0, F_W, F_H, F_SX, F_SY, F_TX, F_TY, F_LIMIT, F_OFF, F_NPINS, F_PINS, \
    F_ROOM = range(14)
#: int32 fields of one net's result header: status, levels, bends, wire cells, for
#: probing the block's clock cycles and the BFS levels it ran, and the margin of the
#: window its result is of (a two-pin net's window may grow in the launch: ``F_ROOM``).
HDR = 7
H_MARGIN = 6
OK, GROW, UNROUTED_SOURCE, UNROUTED_TARGET, ESCAPED, ALONE = 1, 2, 3, 4, 5, 6
#: Most pins of a net the kernel searches as a tree (a bit each in a 32-bit mask).
MAX_PINS = 32
#: 64-bit planes per window row word in shared memory: free-and-unvisited, visited,
#: two frontier buffers, two bits of the level (mod 4).
PLANES = 6
#: Fewest threads of a block: a two-pin net's window that grows in the launch must fit
#: five words a thread.
MIN_THREADS = 128
#: Dynamic shared memory of a launch of at most one block per multiprocessor, where more
#: costs nothing: room for windows that grow in the launch.
GROW_SMEM = 96 << 10
#: Largest margin a window grows to within a launch (:func:`schedule`).
REACH = 128
#: Default window margin: large enough that most local nets succeed at once, small enough
#: that windows rarely overlap (RESULTS.md, "Figures moved from code comments": it gave
#: the fewest batches of the margins tried).
MARGIN = 12

#: ``time`` of a cell no wire holds: later than every net.
NO_WIRE = 0x7FFFFFFF
# net states kept by the router's batched loop (INFLIGHT: in a launch not yet read back)
TODO, COMMITTED, FINAL, INFLIGHT = 0, 1, 2, 3


def window_bytes(rows, cols):
    """Shared memory the kernel needs for windows of ``rows`` x ``cols`` cells."""
    words = (np.asarray(cols) + 63) // 64
    rows = np.asarray(rows)
    return PLANES * rows * words * 8 + 2 * words * 8 + 2 * ((rows + 7) // 8 * 8)


@numba.njit(cache=True, nogil=True)
def _box(out, p, pins, g, width, height):
    """Row ``p`` of ``out``: net ``p``'s pins' box grown by ``g`` cells, clipped to the
    grid (``x0, y0, x1, y1``)."""
    out[p, 0] = max(min(pins[p, 0], pins[p, 2]) - g, 0)
    out[p, 1] = max(min(pins[p, 1], pins[p, 3]) - g, 0)
    out[p, 2] = min(max(pins[p, 0], pins[p, 2]) + g, width - 1)
    out[p, 3] = min(max(pins[p, 1], pins[p, 3]) + g, height - 1)


@numba.njit(cache=True, nogil=True)
def _set_window(p, pins, margin, shape, search, claim, limit, barrier, smem_limit, npins):
    """Window, claim and level limit of net ``p`` for its margin (see :func:`windows`)."""
    h, w = shape
    m = margin[p]
    sx, sy, tx, ty = pins[p, 0], pins[p, 1], pins[p, 2], pins[p, 3]
    _box(search, p, pins, m, w, h)
    _box(claim, p, pins, m + 1, w, h)
    rows = search[p, 3] - search[p, 1] + 1
    cols = search[p, 2] - search[p, 0] + 1
    if npins[p] > 2:        # room for the tree: a branch of up to a window's half-perimeter
        limit[p] = (npins[p] - 1) * (rows + cols)
    else:
        limit[p] = abs(sx - tx) + abs(sy - ty) + 2 * m + 1
    words = (search[p, 2] - search[p, 0] + 64) // 64
    need = PLANES * rows * words * 8 + 2 * words * 8 + 2 * ((rows + 7) // 8 * 8)
    if need > smem_limit:
        barrier[p] = True


@numba.njit(cache=True, nogil=True)
def windows(pins, margin, shape, smem_limit, barrier, npins):
    """Search windows, claims (``(n, 4)`` inclusive ``x0, y0, x1, y1``) and level limits.

    ``pins`` rows are a two-pin net's ``x0, y0, x1, y1``, or the box of the pins of a
    net of ``npins`` more. The search window is the pins' box grown by ``margin``,
    clipped to the grid; the claim is one cell wider. Nets whose window needs more than
    ``smem_limit`` bytes of shared memory become barriers (``barrier`` is updated in
    place).

    Examples
    --------
    >>> s, c, lim = windows(np.array([[5, 5, 9, 6]]), np.array([2]), (10, 12), 10**6,
    ...                     np.zeros(1, np.bool_), np.array([2]))
    >>> s.tolist(), c.tolist(), lim.tolist()
    ([[3, 3, 11, 8]], [[2, 2, 11, 9]], [10])
    """
    n = pins.shape[0]
    search = np.empty((n, 4), np.int64)
    claim = np.empty((n, 4), np.int64)
    limit = np.empty(n, np.int64)
    for p in range(n):
        _set_window(p, pins, margin, shape, search, claim, limit, barrier, smem_limit,
                    npins)
    return search, claim, limit


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
    one's claim is checked when its wire lands (:func:`wire_hits`). Claims are bucketed
    by ``tile`` x ``tile`` cells, so that a net is compared only with earlier nets near
    it; one pass over ``todo`` gives both answers.

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
        if clash and eager and not boxed and met <= over.size:
            for k in range(met):
                check[over[k]] = 1
            clash = False
        if not clash:
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
            out[count] = p
            room[count] = best
            count += 1
        for j in range(y0 // tile, y1 // tile + 1):
            for i in range(x0 // tile, x1 // tile + 1):
                t = j * tx + i
                who[used] = p
                nxt[used] = head[t]
                head[t] = used
                used += 1
    return out[:count], room[:count]


@numba.njit(cache=True, nogil=True)
def launch_shape(rec):
    """Threads per block and dynamic shared memory of one batch's launch.

    Two window words per thread (at least :data:`MIN_THREADS`, at most 1024), and room
    for the largest window; compiled because NumPy's per-call overhead on these few-row arrays
    would cost more than the work, once per batch (RESULTS.md, "Figures moved from code
    comments").
    """
    words = 0
    smem = 0
    for k in range(rec.shape[0]):
        rows, cols = rec[k, F_H], rec[k, F_W]
        wd = (cols + 63) // 64
        words = max(words, rows * wd)
        smem = max(smem, PLANES * rows * wd * 8 + 2 * wd * 8 + 2 * ((rows + 7) // 8 * 8))
    threads = min(1024, max(MIN_THREADS, (words + 63) // 64 * 32))
    return threads, smem


@numba.njit(cache=True, nogil=True)
def records(batch, search, pins, limit, npins, pin_at, room):
    """Search records of a batch, the path offset of each and the path buffer size
    (``pin_at``: each net's first pin in the pins of :meth:`GridBatch.set_pins`;
    ``room``: per batch net, the margin its window may grow to in the launch)."""
    b = batch.size
    rec = np.zeros((b, REC), np.int32)
    off = np.empty(b, np.int64)
    size = 0
    for k in range(b):
        p = batch[k]
        rec[k, F_POS] = p
        rec[k, F_X0] = search[p, 0]
        rec[k, F_Y0] = search[p, 1]
        rec[k, F_W] = search[p, 2] - search[p, 0] + 1
        rec[k, F_H] = search[p, 3] - search[p, 1] + 1
        for j in range(4):
            rec[k, F_SX + j] = pins[p, j]
        rec[k, F_LIMIT] = limit[p]
        rec[k, F_OFF] = size
        rec[k, F_NPINS] = npins[p]
        rec[k, F_PINS] = pin_at[p]
        rec[k, F_ROOM] = room[k]
        off[k] = size
        # a window that grows in the launch may find a wire up to its room's limit
        size += max(limit[p], abs(pins[p, 0] - pins[p, 2]) + abs(pins[p, 1] - pins[p, 3])
                    + 2 * room[k] + 1) + 1 if npins[p] == 2 else limit[p] + 1
    return rec, off, size


@numba.njit(cache=True, nogil=True)
def plan(todo, claim, barrier, pins, search, limit, npins, pin_at, margin, state, wide,
         width, height, tile, max_batch, reach, eager, grown):
    """One launch: its batch and their rooms (:func:`schedule`; ``grown``: the book's
    row, where eager nets mark the earlier nets to check), its records
    (:func:`records`: the records, path offsets and path buffer size), and the batch
    marked ``INFLIGHT`` in ``state``, each net with the claim its window may grow to in
    the launch in ``wide`` (what a redo must assume it read). One compiled call, as
    the host's share of a launch is what a route of many short nets waits for
    (RESULTS.md, issue 14, twelfth session of 2026-11-26)."""
    batch, room = schedule(todo, claim, barrier, pins, width, height, tile, max_batch,
                           reach, eager, grown)
    rec, off, size = records(batch, search, pins, limit, npins, pin_at, room)
    for k in range(batch.size):
        p = batch[k]
        state[p] = INFLIGHT
        _box(wide, p, pins, max(room[k], margin[p]) + 1, width, height)   # its widest claim
    return batch, rec, off, size


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
def mark_wires(host_free, hdr, rec, paths):
    """Record a batch's OK wires in the host mirror of the free mask (their pins are
    blocked there already, for good)."""
    for k in range(hdr.shape[0]):
        if hdr[k, 0] == OK:
            off = rec[k, F_OFF]
            for i in range(off, off + hdr[k, 3]):
                host_free[paths[i]] = False


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
            _set_window(p, pins, margin, shape, search, claim, limit, barrier, smem_limit,
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
            _set_window(p, pins, margin, shape, search, claim, limit, barrier, smem_limit,
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


@numba.njit(cache=True, nogil=True)
def _turn(state, status, counting):
    """A turn of :meth:`BatchRun.run`: the ``TODO`` positions, the first position still
    waiting (``TODO`` or ``INFLIGHT``; the number of nets when none is), and the
    ``UNROUTED_TARGET`` nets before it not yet ``counting`` (marked so now)."""
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


class PinnedRing:
    """Pinned host buffers for asynchronous copies, used in turn, each with the event
    recorded after its last copy: :meth:`take` hands out the next one once that copy is
    done, so a copy queued behind work still running never has its memory reused early.

    Parameters
    ----------
    cupy : the cupy module
    size : buffers, in turn
    nbytes : each buffer's first size (one grows when it is asked for more)
    """

    def __init__(self, cupy, size: int, nbytes: int):
        self.cupy = cupy
        self.slots = [[cupy.cuda.alloc_pinned_memory(nbytes),
                       cupy.cuda.Event(disable_timing=True)] for _ in range(size)]
        self.at = -1

    def take(self, n: int) -> tuple[int, np.ndarray, object]:
        """The next buffer's index, its first ``n`` int32 and its event (to record)."""
        self.at = (self.at + 1) % len(self.slots)
        slot = self.slots[self.at]
        slot[1].synchronize()
        if 4 * n > slot[0].size():
            slot[0] = self.cupy.cuda.alloc_pinned_memory(8 * n)
        return self.at, np.frombuffer(slot[0], np.int32, n), slot[1]


class GridBatch:
    """The batched search on a ``gpu/grid`` problem's device state.

    It shares the problem's bit-packed free mask, its level and resting-level arrays and
    its host mirror ``host_free``, and adds ``time`` (per cell, the routing position of
    the earliest net whose wire blocks it) and ``wired`` (bit-packed: the cell is or was a wire
    cell, so ``time`` is valid; the layout and pins never are).

    Parameters
    ----------
    problem : GridRelaxProblem
    margin : window margin of a net's first search
    smem_limit : bytes of shared memory a block may use (default: what the device allows
        less a little for the kernel's own variables)
    """

    def __init__(self, problem, margin: int = MARGIN, smem_limit: int | None = None):
        import cupy

        from .cuda import device_attributes, get_kernel
        self.cupy = cupy
        self.problem = problem
        self.shape = problem.shape
        self.margin = margin
        h, w = self.shape
        # per cell, the routing position of the earliest wire on it (read only where wired)
        self.time = cupy.full(h * w, NO_WIRE, dtype=cupy.int32)
        self.wired = cupy.zeros_like(problem.free_bits)
        optin = device_attributes().get("MaxSharedMemoryPerBlockOptin", 48 << 10)
        # the kernel handles at most WORDS_PER_THREAD (5) words per thread of 1024, and
        # keeps a few bytes of its own beside the window
        self.smem_limit = smem_limit or min(optin - 1024, int(window_bytes(5 * 1024, 64)))
        self.sms = device_attributes().get("MultiProcessorCount", 1)
        self._get_kernel = get_kernel
        self._args = None                           # the kernels' grid arguments (_state)
        self._kernels: dict[tuple, tuple] = {}   # compiled on first use, with its static smem
        self._pins = cupy.zeros(2, dtype=cupy.int32)     # see set_pins
        # a device buffer and pinned host memory for each of the two batches that may be
        # in flight (launch)
        self._bufs = [cupy.zeros(1 << 16, dtype=cupy.int32) for _ in range(2)]
        self._batches = PinnedRing(cupy, 2, 1 << 18)
        self._stages = PinnedRing(cupy, _RING, 1 << 14)       # see _upload
        self._readback = PinnedRing(cupy, _RING, 1 << 14)     # see uncommit
        self.launches = 0
        self._streams: list = []                    # level counts run beside the batches
        self._counts: list[tuple[np.ndarray, np.ndarray, np.ndarray, object]] = []
        # what counts in flight read (the blockages' copy, their uploaded roots), held
        # until their stream is past them: freed, memory allocated on this stream may be
        # handed out again at once to a later upload on it, the side stream still reading
        self._copies: list[tuple] = []
        self._lifted: list[tuple] = []            # see uncommit()
        # components for apart(): labels, the wires committed when they were taken, turn
        self._labels = None
        self._wired_count = 0            # calls that committed a wire so far
        self._labelled = -1
        self._label_turn = 0
        self.labellings = 0

    def _kernel(self, name: str, smem: int = 0, module: str = "route_batch"):
        """Kernel ``name`` of ``kernels/<module>.cu``, allowed ``smem`` bytes of dynamic
        shared memory."""
        k, static = self._kernels.get((module, name), (None, 0))
        if k is None:
            k = self._get_kernel(module, name)
            static = k.shared_size_bytes          # a driver query: once per kernel
            self._kernels[module, name] = (k, static)
        allow_shared(k, smem, static)
        return k

    def set_pins(self, xy: np.ndarray) -> None:
        """The pins the records' ``F_PINS`` index: rows ``x, y`` (every net's, in the
        order of the run), kept on the device for the run."""
        self._pins = self.cupy.asarray(np.asarray(xy, np.int32).reshape(-1))

    def _state(self):
        free_bits, rest, level, words_per_row = self.problem.device_state()
        if self._args is None or self._args[0] is not free_bits:
            h, w = self.shape
            self._args = (free_bits, self.wired, self.time, rest, level, np.int32(w),
                          np.int32(h), np.int32(words_per_row))
        return self._args

    def _upload(self, *arrays: np.ndarray):
        """``arrays`` concatenated, as int32, in a new device array: copied on the current
        stream from pinned memory, without waiting (``cupy.asarray`` copies from pageable
        memory and waits for the stream, on a side stream behind the level counts queued
        there, or behind a batch in flight). The staging buffers are used in turn, each
        once its last copy has left: a copy queued behind a batch in flight leaves only
        when the batch is done."""
        cp = self.cupy
        n = sum(a.size for a in arrays)
        _, host, copied = self._stages.take(n)
        np.concatenate(arrays, out=host, casting="same_kind")
        dev = cp.empty(max(n, 1), dtype=cp.int32)
        stream = cp.cuda.get_current_stream()
        cp.cuda.runtime.memcpyAsync(dev.data.ptr, host.ctypes.data, 4 * n,
                                    cp.cuda.runtime.memcpyHostToDevice, stream.ptr)
        copied.record(stream)
        return dev

    def launch(self, rec: np.ndarray, path_size: int):
        """Queue one batch (one block per record) without waiting; :meth:`finish` reads
        back its headers ``(b, HDR)`` and paths. Wires of ``OK`` nets are committed on
        the device by the kernel itself, and at :meth:`finish` in the host mirrors. Two
        batches may be in flight, in turn on the device, each with its own buffers: the
        one queued two launches before must be finished first."""
        cp = self.cupy
        runtime = cp.cuda.runtime
        stream = cp.cuda.get_current_stream()
        b = rec.shape[0]
        need = b * REC + b * HDR + path_size
        slot, host, done = self._batches.take(need)
        if need > self._bufs[slot].size:
            self._bufs[slot] = cp.zeros(2 * need, dtype=cp.int32)
        buf = self._bufs[slot]
        host[:b * REC] = rec.ravel()
        runtime.memcpyAsync(buf.data.ptr, host.ctypes.data, 4 * b * REC,
                            runtime.memcpyHostToDevice, stream.ptr)
        out = buf[b * REC:need]
        threads, smem = launch_shape(rec)
        if b <= self.sms:       # a block a multiprocessor: room for windows that grow
            smem = max(smem, min(GROW_SMEM, self.smem_limit))
        kernel = self._kernel("route_batch", smem)
        kernel((b,), (threads,), (buf, np.int32(b), self._pins, *self._state(),
                                  out[:b * HDR], out[b * HDR:], np.int32(smem)),
               shared_mem=smem)
        self.launches += 1
        res = host[b * REC:need]
        runtime.memcpyAsync(res.ctypes.data, out.data.ptr, 4 * res.size,
                            runtime.memcpyDeviceToHost, stream.ptr)
        done.record(stream)
        return rec, res, b, done

    def finish(self, token) -> tuple[np.ndarray, np.ndarray]:
        """Wait for a batch queued by :meth:`launch`; its headers and paths (views of
        pinned memory that the launch after next reuses)."""
        rec, res, b, done = token
        done.synchronize()
        hdr = res[:b * HDR].reshape(b, HDR)
        paths = res[b * HDR:]
        self._settle()             # cells lifted earlier first: a new wire may reuse them
        mark_wires(self.problem.host_free.reshape(-1), hdr, rec, paths)
        self._wired_count += bool((hdr[:, 0] == OK).any())
        return hdr, paths

    def _cells_launch(self, cells: np.ndarray, pos: np.ndarray, block: bool):
        cp = self.cupy
        n = cells.size
        freed = cp.zeros(max(n, 1), dtype=cp.int32)
        if n:
            arg = self._upload(cells, pos)
            self._kernel("commit_cells")((-(-n // 256),), (256,), (
                arg[:n], arg[n:], np.int32(n), np.int32(block), *self._state(), freed))
            self.launches += 1
        return freed

    def commit(self, cells: np.ndarray, pos: np.ndarray) -> None:
        """Block ``cells`` as wires of the nets at routing positions ``pos`` (per cell)."""
        if not cells.size:
            return
        self._settle()
        self._cells_launch(cells, pos, True)
        self.problem.host_free.ravel()[cells] = False
        self._wired_count += 1

    def uncommit(self, cells: np.ndarray, pos: np.ndarray) -> None:
        """Free the cells of ``cells`` still blocked by the wire of the net at ``pos``.

        A cell that an earlier net's wire took over since names that net and stays. The
        host mirror learns which cells were freed at the next synchronisation point (the
        next batch's download, or :meth:`quiesce`), not with a round trip of its own.
        """
        if not cells.size:
            return
        cp = self.cupy
        if len(self._lifted) == len(self._readback.slots):
            self._settle()                   # every read-back buffer holds a lift
        freed = self._cells_launch(cells, pos, False)
        # read back right behind the lift, so that the wait for it at the next
        # synchronisation point is not also a wait for batches queued after it
        _, host, done = self._readback.take(cells.size)
        stream = cp.cuda.get_current_stream()
        cp.cuda.runtime.memcpyAsync(host.ctypes.data, freed.data.ptr, 4 * cells.size,
                                    cp.cuda.runtime.memcpyDeviceToHost, stream.ptr)
        done.record(stream)
        self._lifted.append((cells, host, done))

    def _settle(self) -> None:
        for cells, host, done in self._lifted:
            done.synchronize()
            self.problem.host_free.ravel()[cells[host.astype(bool)]] = True
        self._lifted.clear()

    def count_levels(self, roots: np.ndarray, pos: np.ndarray,
                     start: np.ndarray | None = None) -> None:
        """Start counting the levels of a full wavefront from each root (see counted()),
        or from each group of roots ``roots[start[i]:start[i + 1]]`` (a tree's cells).

        Every net before ``pos`` must be final. The count reads the blockages as of its
        turn, so it runs on a second stream while later nets go on being committed; it
        reads a copy of the free and wired bits taken now, so that nothing done after
        (a net searched alone frees its pins for its search, a tree committed through
        the problem is blocked before it is stamped) needs to wait for it. Every cell
        blocked in that copy by a later net's wire reads free by its time stamp, which
        only later nets ever rewrite.
        """
        cp = self.cupy
        k = len(pos)
        if not k:
            return
        start = np.arange(k + 1) if start is None else np.asarray(start)
        self._counts_done()
        # a stream per call (from a small pool), so that counts run side by side
        if len(self._streams) < 8:
            self._streams.append(cp.cuda.Stream(non_blocking=True))
        side = self._streams[len(self._counts) % len(self._streams)]
        ready = cp.cuda.Event(disable_timing=True)
        free_bits, wired, *rest = self._state()
        copy = cp.empty((2, free_bits.size), dtype=free_bits.dtype)
        stream = cp.cuda.get_current_stream()
        for i, bits in enumerate((free_bits, wired)):    # a copy, not a kernel: cheaper to queue
            cp.cuda.runtime.memcpyAsync(copy[i].data.ptr, bits.data.ptr, bits.nbytes,
                                        cp.cuda.runtime.memcpyDeviceToDevice, stream.ptr)
        arg = self._upload(roots, start, pos)
        ready.record()
        side.wait_event(ready)
        with side:
            res = cp.empty(k, dtype=cp.int32)
            self._count(arg, roots.size, k, (copy[0], copy[1], *rest), res, ring=True)
        self._counts.append((roots, start, pos, res))
        self._copies.append((side.record(), copy, arg))

    def _counts_done(self) -> None:
        """Let go of the copies of counts that have finished (their memory may be reused
        then, whichever stream asks for it)."""
        self._copies = [held for held in self._copies if not held[0].done]

    def _counts_fit(self) -> bool:
        """Whether a level count keeps its visited bits in shared memory."""
        words = self.shape[0] * self.problem.words_per_row
        return words * 8 <= self.smem_limit - (16 << 10)

    def count_bytes(self) -> int:
        """Device memory a level count takes for its visited bits (0: shared memory)."""
        return 0 if self._counts_fit() else 8 * self.shape[0] * self.problem.words_per_row

    def _count(self, arg, m: int, k: int, state, res, ring: bool) -> None:
        """Level counts from ``k`` groups of ``m`` roots in all (``arg``: device roots,
        then the ``k + 1`` group starts, then the positions)."""
        cp = self.cupy
        h, w = self.shape
        words = h * self.problem.words_per_row
        vis_shared = self._counts_fit()
        room = self.smem_limit - (words * 8 if vis_shared else 0)
        ring_size = 1 << (room // 4).bit_length() - 1 if ring and room >= 16 << 10 else 0
        smem = (words * 8 if vis_shared else 0) + 4 * ring_size
        # roots in chunks whose visited bits (and queues) take at most COUNT_BYTES, so
        # that thousands of counts at once (nets proven apart) do not take the device's
        # memory: a chunk's buffers are reused by the next one on the same stream
        per_root = (0 if vis_shared else words * 8) + (0 if ring_size else 4 * h * w)
        step = max(1, COUNT_BYTES // max(per_root, 1))
        for s in range(0, k, step):
            e = min(k, s + step)
            queue = (cp.empty((e - s) * h * w, dtype=cp.int32) if not ring_size
                     else cp.empty(1, dtype=cp.int32))
            vis = (cp.empty(1, dtype=cp.uint64) if vis_shared
                   else cp.empty((e - s) * words, dtype=cp.uint64))
            self._kernel("count_levels", smem)((e - s,), (1024,), (
                arg[:m], arg[m + s:m + e + 1], arg[m + k + 1 + s:m + k + 1 + e], *state,
                queue, vis, np.int32(vis_shared), np.int32(ring_size), res[s:e]),
                shared_mem=smem)
            self.launches += 1

    def apart(self, pins: np.ndarray, turn: int) -> np.ndarray:
        """Whether the pins ``x0, y0, x1, y1`` (a row per two-pin net) lie in different
        components of the cells free as of routing position ``turn``
        (``kernels/components.cu``).

        True proves the net unroutable at ``turn`` and at every later position, since
        routing only turns free cells into wires. The components are labelled again only
        when a wire was committed since the last labelling, or when ``turn`` comes before
        the labelling's: the components of an earlier turn are coarser, so still a sound
        answer for any later one.
        """
        cp = self.cupy
        k = len(pins)
        if not k:
            return np.zeros(0, bool)
        h, w = self.shape
        n = h * w
        if self._labels is None or self._labelled != self._wired_count or turn < self._label_turn:
            if self._labels is None:
                self._labels = cp.empty(n, dtype=cp.int32)
            free_bits, wired, tm, *_ = self._state()
            blocks = (min(-(-n // 256), 1 << 16),)
            self._kernel("label_cells", module="components")(blocks, (256,), (
                free_bits, wired, tm, np.int32(turn), np.int32(w), np.int32(h),
                np.int32(self.problem.words_per_row), self._labels))
            for name in ("label_join", "label_flatten"):
                self._kernel(name, module="components")(blocks, (256,), (
                    self._labels, np.int32(w), np.int32(h)))
            self.launches += 3
            self.labellings += 1
            self._labelled, self._label_turn = self._wired_count, turn
        arg = self._upload(np.asarray(pins, np.int64).reshape(-1))
        out = cp.empty(k, dtype=cp.int32)
        self._kernel("pins_apart", module="components")((-(-k // 128),), (128,), (
            self._labels, arg, np.int32(k), np.int32(w), np.int32(h), out))
        self.launches += 1
        return out.get().astype(bool)

    def quiesce(self) -> None:
        """Bring the host mirror up to date.

        Called before the router searches a net by itself (which changes blockages
        outside this class's ordering rules and reads the host mirror). The level counts
        in flight need no wait: they read their own copy of the blockages.
        """
        self._settle()

    def counted(self) -> tuple[np.ndarray, np.ndarray]:
        """Positions and level counts of every root given to :meth:`count_levels`."""
        for side in self._streams:
            side.synchronize()
        self._copies.clear()
        self.quiesce()
        if not self._counts:
            return np.zeros(0, np.int64), np.zeros(0, np.int64)
        pos = np.concatenate([p for _, _, p, _ in self._counts])
        got = np.concatenate([r.get() for *_, r in self._counts]).astype(np.int64)
        redo = np.flatnonzero(got < 0)           # frontier outgrew the ring: use queues
        if redo.size:
            groups = [roots[start[j]:start[j + 1]] for roots, start, p, _ in self._counts
                      for j in range(len(p))]
            roots = np.concatenate([groups[i] for i in redo])
            start = np.concatenate([[0], np.cumsum([groups[i].size for i in redo])])
            res = self.cupy.empty(redo.size, dtype=self.cupy.int32)
            self._count(self._upload(roots, start, pos[redo]), roots.size, redo.size,
                        self._state(), res, ring=False)
            got[redo] = res.get()
        self._counts.clear()
        return pos, got


#: What GridBatch uses of a problem: gpu/grid's device state and its host mirror.
_NEEDS = ("free_bits", "rest", "level", "host_free", "words_per_row", "_apply_writes")


def batch_device(problem) -> GridBatch | None:
    """The batched search for ``problem`` when its engine offers one (``gpu/grid``)."""
    if problem.name != ("gpu", "grid") or not all(hasattr(problem, a) for a in _NEEDS):
        return None
    return GridBatch(problem)


__all__ = ["GridBatch", "PinnedRing", "batch_device", "schedule", "plan", "wire_hits",
           "dependents", "lift", "send_back",
           "windows", "records", "take", "wire_cells", "mark_wires", "window_bytes",
           "launch_shape",
           "OK", "GROW",
           "UNROUTED_SOURCE", "UNROUTED_TARGET", "ESCAPED"]


#: Pinned buffers of :meth:`GridBatch._upload` and of the lifts' read-backs, used in turn.
_RING = 4
#: Most nets searched in one launch.
MAX_BATCH = 4096
#: Most bytes of visited bits and queues that one launch of level counts allocates, and
#: of visited bits in device memory that a run spends on the counts of nets proven apart
#: in place of their window searches (:meth:`BatchRun._check`).
COUNT_BYTES = 256 << 20
#: Least and greatest side of the buckets in which the scheduler compares claims (a
#: run takes the power of two between them nearest above its claims' median side:
#: smaller buckets hold a claim in more of them, larger ones hold more claims each).
TILE_RANGE = (16, 256)


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
        if self._counted is not None:
            counted, self._counted = self._counted, None
            for p, lv in zip(*(a.tolist() for a in counted())):
                self._levels[p] += lv     # a tree's count adds to its branches' levels
        return self._levels

    def cells(self, p: int) -> np.ndarray | None:
        if not self.routed[p]:
            return None
        return self._xy[self._start[p]:self._start[p] + self._length[p]]


class BatchRun:
    """One sequential routing run through a :class:`GridBatch` (the enactor of the batched
    search: it owns the loop; the router supplies the nets and routes barrier nets).

    Positions ``p`` index the routing sequence. A net is ``TODO`` until a search
    gives it a result, then ``COMMITTED`` (its result may still be redone: an earlier net
    whose claim grew can land a wire in its claim, or lift one from it) or ``FINAL``
    (routed alone, or proven unroutable by :meth:`_check` without a search). Every net
    before the first ``TODO`` one is final in effect: only a ``TODO`` net before it could
    still change it. The per-batch bookkeeping runs in
    compiled helpers (:func:`take`): with ~40 batches of a 1000-net route, NumPy's
    per-call overhead on small arrays would cost more than the searches themselves.

    Parameters
    ----------
    dev : the batched search
    shape : the grid's ``(height, width)``
    pin_xy : ``(m, 2)`` int64 pins ``x, y``; the net at position ``p`` has ``pin_count[p]``
        pins from row ``pin_start[p]`` on, root first
    pin_start, pin_count : ``(n,)`` int64
    barrier : ``(n,)`` bool, nets this run does not search (nets of more than
        :data:`MAX_PINS` pins are barriers too): they are routed by ``route_alone(p)``
        once every earlier net is final, which commits the wire through the engine's
        problem and returns the vertex ids of the wire and of the net's pins (None:
        unrouted)
    max_unrouted : :meth:`run` gives up (returns None) as soon as more than this many
        nets are final and unrouted (None: never)
    """

    #: Whether the next batch is queued while one runs (:meth:`run`); the same routes
    #: either way.
    overlap = True
    #: Whether a launch after one of fewer nets than half the device's multiprocessors
    #: also takes nets eagerly (:func:`schedule`); the same routes either way.
    eager = True

    def __init__(self, dev: GridBatch, shape: tuple[int, int], pin_xy: np.ndarray,
                 pin_start: np.ndarray, pin_count: np.ndarray, barrier: np.ndarray,
                 route_alone, max_unrouted: int | None = None):
        self.dev, self.shape = dev, shape
        self.route_alone = route_alone
        self.max_unrouted = max_unrouted
        self.lost_alone = 0           # nets routed alone that stayed unrouted
        n = self.n = len(pin_count)
        self.npins = np.asarray(pin_count, np.int64)
        self.multi = self.npins > 2                       # nets of more than two pins
        self.trees = bool(self.multi.any())
        self.barrier = np.asarray(barrier, bool) | (self.npins > MAX_PINS) | (self.npins < 2)
        # every net's pins in routing order (the kernel reads a tree's from pin_at[p] on)
        cuts = np.cumsum(self.npins) - self.npins
        rows = np.repeat(np.asarray(pin_start, np.int64) - cuts, self.npins) \
            + np.arange(int(self.npins.sum()))
        xy = np.asarray(pin_xy, np.int64).reshape(-1, 2)[rows]
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
        if self.multi.any():
            dev.set_pins(xy)
        self.margin = np.full(n, dev.margin, np.int64)
        self.search, self.claim, self.limit = windows(
            self.pins, self.margin, self.shape, dev.smem_limit, self.barrier, self.npins)
        side = np.maximum(self.claim[:, 2] - self.claim[:, 0], self.claim[:, 3] - self.claim[:, 1])
        self.tile = int(np.clip(1 << int(np.median(side) if n else 0).bit_length(),
                                *TILE_RANGE))
        # state, status, levels, bends, wire offset, wire length, grown
        self.book = np.zeros((7, n), np.int64)
        self.store = np.zeros(1 << 16, np.int32)      # wires, root first, back to back
        self.used = 0
        self.seconds = np.zeros(n)
        self.batches = 0
        self.last = n                 # nets of the last launch
        self.proven = 0               # nets proven unroutable by components, not searched
        # trees found UNROUTED_TARGET: the tree so far, the roots of their level count
        self.roots: dict[int, np.ndarray] = {}
        # nets in flight whose results a redo made void (see _finish), and the claims
        # of nets in flight at the widest their windows may grow to in the launch
        self.void = np.zeros(n, bool)
        self.wide = np.zeros((n, 4), np.int64)
        per_root = dev.count_bytes()
        # nets in windows that may still be proven apart (see _check)
        self._spare = n if per_root == 0 else COUNT_BYTES // per_root

    def _check(self, todo: np.ndarray) -> None:
        """Prove unroutable, without a search, the two-pin nets of ``todo`` whose pins
        lie in different components of the free cells (:meth:`GridBatch.apart`, as of
        the first net of ``todo``, which nothing before it can change): they are final,
        without a wire, whatever later searches find (no wire an earlier net adds or
        lifts can join their pins), and their level counts come when their turn is.

        A net proven apart costs a level count in place of its search. Where a count
        keeps visited bits of the whole grid in device memory
        (:meth:`GridBatch.count_bytes`), nets that would be searched in a window are
        proven only while their counts stay within :data:`COUNT_BYTES` a run (the rest
        are searched): thousands of counts at once (local nets on a 4096^2 grid) took
        gigabytes (RESULTS.md, issue 14, fifth session of 2026-11-24)."""
        two = todo[~self.multi[todo]]
        gone = two[self.dev.apart(self.pins[two], int(todo[0]))]
        windowed = np.flatnonzero(~self.barrier[gone])
        if windowed.size > self._spare:
            gone = np.delete(gone, windowed[self._spare:])
            windowed = windowed[:self._spare]
        self._spare -= windowed.size
        book = self.book
        book[0, gone] = FINAL
        book[1, gone] = UNROUTED_TARGET
        book[2, gone] = book[3, gone] = book[5, gone] = 0
        self.proven += gone.size

    def lost(self, p: int) -> int:
        """Nets certain to stay unrouted while ``p`` is the first ``TODO`` position:
        the unrouted ones before it (final in effect), those proven apart, and those
        routed alone without a wire."""
        state, status = self.book[0], self.book[1]
        unrouted = (status == UNROUTED_SOURCE) | (status == UNROUTED_TARGET)
        return (int(np.count_nonzero(unrouted[:p]))
                + int(np.count_nonzero(unrouted[p:] & (state[p:] == FINAL))) + self.lost_alone)

    def run(self) -> BatchOutcome | None:
        """Route every position; None when the run gave up (``max_unrouted``).

        Launches overlap the host's work: while one batch runs, the next is chosen and
        queued behind it on the device, the nets in flight counting as committed (a
        later net whose claim overlaps one of theirs reads its wire, the launches running
        in turn). A net in flight that comes back ``GROW`` or ``ESCAPED`` has grown, so
        its wire is checked against later nets when it lands (:func:`wire_hits`); one
        whose result an earlier net's redo made void is redone itself (:meth:`_finish`).
        """
        state, status = self.book[0], self.book[1]
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
                    and not self.barrier[todo[0]] else None
                self._finish(flight)
                flight = ahead
                continue
            if self.barrier[p] and not self.multi[p]:
                # a two-pin net alone searches the whole grid, and all of its piece when
                # its pins are apart: first a check of every net waiting, at the cost of
                # a labelling (checks after escaped windows did not pay: RESULTS.md,
                # issue 14, fifth session of 2026-11-24)
                self._check(todo)
            if self.barrier[p] and state[p] == TODO:
                self._alone(p)
            elif not self.barrier[p]:
                flight = self._launch(todo)
        return self._outcome(self.book[2].tolist(), self.dev.counted)

    def _launch(self, todo: np.ndarray):
        """Queue the batch of ``todo`` (TODO positions; nets in flight are not among
        them, so they count as committed) on the device; None if it is empty."""
        h, w = self.shape
        start = time.perf_counter()
        # a launch of fewer nets than half the device's multiprocessors leaves most of it
        # idle: the next also takes nets eagerly (schedule), each checked by wires
        eager = self.eager and self.last < self.dev.sms // 2
        batch, rec, off, size = plan(todo, self.claim, self.barrier, self.pins, self.search,
                                     self.limit, self.npins, self.pin_at, self.margin,
                                     self.book[0], self.wide, w, h, self.tile, MAX_BATCH,
                                     REACH, eager, self.book[6])
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
        if self.used + paths.size > self.store.size:
            grown = np.zeros(2 * (self.used + paths.size), np.int32)
            grown[:self.used] = self.store[:self.used]
            self.store = grown
        self.used, redo = take(batch, hdr, off, paths, self.book, self.pins,
                               self.margin, self.search, self.claim, self.limit,
                               self.barrier, self.shape, self.dev.smem_limit,
                               self.store, self.used, self.npins)
        if self.trees:
            for k in np.flatnonzero((hdr[:, 0] == UNROUTED_TARGET) & self.multi[batch]):
                self.roots[int(batch[k])] = paths[off[k]:off[k] + hdr[k, 3]].copy()
        void = batch[self.void[batch]]       # redone with their dependents, as seeds
        if void.size:
            self.void[void] = False
            redo = np.union1d(redo, void)
        if redo.size:
            self._redo(redo)
        self.seconds[batch] += (time.perf_counter() - start) / batch.size

    def _redo(self, seeds: np.ndarray) -> None:
        """Send ``seeds`` and their :func:`dependents` back to the queue: the committed
        ones now (their wires lifted), those in flight when they come back (void)."""
        self.dev.uncommit(*lift(seeds, self.book, self.store, self.is_pin, self.shape[1],
                                self.claim, self.wide, self.void))

    def _count(self, ready: np.ndarray) -> None:
        """Start the level counts of the ``UNROUTED_TARGET`` nets at ``ready``: from a
        two-pin net's root, from a tree's cells found so far."""
        w = self.shape[1]
        roots = self.pins[ready, 1] * w + self.pins[ready, 0]
        if not self.multi[ready].any():
            self.dev.count_levels(roots, ready)
            return
        groups = [self.roots[p] if self.multi[p] else roots[k:k + 1]
                  for k, p in enumerate(ready.tolist())]
        start = np.concatenate([[0], np.cumsum([g.size for g in groups])])
        self.dev.count_levels(np.concatenate(groups), ready, start)

    def _alone(self, p: int) -> None:
        """Route the net at ``p`` by itself, on the blockages as of its turn.

        Every earlier net is final; later nets already committed are lifted for the
        search, then put back unless the new wire lands in their claims.
        """
        state = self.book[0]
        later = np.flatnonzero(state == COMMITTED)
        later = later[later > p]
        cells, pos = wire_cells(later, self.book[4], self.book[5], self.store, self.is_pin)
        self.dev.uncommit(cells, pos)
        # the host mirror learns every lifted cell, these included, before the search
        # reads it (gpu_grid's host_targets search on it); a net alone costs far more
        self.dev.quiesce()
        routed = self.route_alone(p)
        state[p] = FINAL
        self.book[1, p] = 0
        self.lost_alone += routed is None
        redo = np.zeros(0, np.int64)
        if routed is not None:
            wire, pins = (np.asarray(a, dtype=np.int32) for a in routed)
            # the router committed the wire through the problem; the batch's time stamps
            # cover its cells other than pins (pins are never wires)
            inner = wire[~np.isin(wire, pins)]
            self.dev.commit(inner, np.full(inner.size, p, np.int32))
            hits = wire_hits(wire, self.shape[1], p, self.claim, state)
            if hits.size:
                redo = dependents(hits, self.book[4], self.book[5], self.store,
                                  self.is_pin, self.shape[1], self.claim, state, self.wide)
                send_back(self.book, redo)
        keep = np.isin(pos, redo, invert=True)
        self.dev.commit(cells[keep], pos[keep])

    def _outcome(self, levels: list[int], counted) -> BatchOutcome:
        w = self.shape[1]
        book = self.book
        wired = (book[1] == OK) & (book[0] == COMMITTED)
        ok = np.flatnonzero(wired)
        # every wire's cells as one (x, y) array; each net gets a view of its rows
        cells, _ = wire_cells(ok, book[4], book[5], self.store, np.zeros(0, bool))
        xy = np.stack([cells % w, cells // w], axis=1)
        start = np.zeros(self.n, np.int64)
        start[ok] = np.cumsum(book[5, ok]) - book[5, ok]
        return BatchOutcome(wired.tolist(), levels, book[3].tolist(),
                            self.seconds.tolist(), xy, start.tolist(), book[5].tolist(),
                            counted)
