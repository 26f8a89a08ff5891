"""The batched router's scheduler and bookkeeping (router/schedule.py, router/book.py)
and the batched engine's host pieces (engines/gpu_batch.py): batches against a brute
force, lifts, claims, launch shapes, the pinned ring, and lazy route cells. The batched
loop itself is tests/test_router_batch.py."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from mazeroute.engines import gpu_batch as gb
from mazeroute.router import book as rb
from mazeroute.router import schedule as rs


# -- the scheduler ------------------------------------------------------------------------
def _batch_brute(todo, claim, barrier):
    out = []
    for k, p in enumerate(todo):
        if barrier[p]:
            break
        if all(claim[q, 0] > claim[p, 2] or claim[q, 2] < claim[p, 0]
               or claim[q, 1] > claim[p, 3] or claim[q, 3] < claim[p, 1] for q in todo[:k]):
            out.append(p)
    return out


def _random_boxes(seed: int, most: int, least_side: int, span: int):
    """A generator, box count, grid side and up to ``most`` random boxes' corners."""
    rng = np.random.default_rng(seed)
    n, size = int(rng.integers(1, most)), int(rng.integers(least_side, 300))
    lo = rng.integers(0, size, (n, 2))
    hi = np.minimum(lo + rng.integers(0, span, (n, 2)), size - 1)
    return rng, n, size, lo, hi


@pytest.mark.parametrize("seed", range(30))
def test_next_batch_takes_exactly_the_nets_disjoint_from_all_earlier_ones(seed):
    rng, n, size, lo, hi = _random_boxes(seed, 200, 8, 40)
    claim = np.concatenate([lo, hi], axis=1)
    barrier = rng.random(n) < 0.03
    todo = np.sort(rng.choice(n, size=int(rng.integers(1, n + 1)), replace=False))
    got, _ = rs.schedule(todo, claim, barrier, claim, size, size, int(rng.integers(1, 64)),
                         10**6, 8, False, np.zeros(n, np.int64))
    assert got.tolist() == _batch_brute(todo.tolist(), claim, barrier)


@pytest.mark.parametrize("seed", range(30))
def test_an_eager_batch_also_takes_the_nets_clear_of_every_earlier_pins_box(seed):
    rng, n, size, lo, hi = _random_boxes(seed, 200, 8, 40)
    pins = np.concatenate([lo, hi], axis=1)
    grow = rng.integers(1, 12, (n, 1))
    claim = np.concatenate([np.maximum(lo - grow, 0), np.minimum(hi + grow, size - 1)], axis=1)
    barrier = rng.random(n) < 0.03
    todo = np.sort(rng.choice(n, size=int(rng.integers(1, n + 1)), replace=False))
    check = np.zeros(n, np.int64)
    got, _ = rs.schedule(todo, claim, barrier, pins, size, size, int(rng.integers(1, 64)),
                         10**6, 8, True, check)

    def meets(a, b):
        return not (a[0] > b[2] or a[2] < b[0] or a[1] > b[3] or a[3] < b[1])

    want, marked = [], set()
    for k, p in enumerate(todo.tolist()):
        if barrier[p]:
            break
        over = [q for q in todo[:k].tolist() if meets(claim[q], claim[p])]
        if not any(meets(lo[q].tolist() + hi[q].tolist() - np.array([1, 1, -1, -1]),
                         claim[p]) for q in over):
            want.append(p)
            marked.update(over)
    assert got.tolist() == want and set(np.flatnonzero(check).tolist()) == marked


def test_next_batch_stops_at_a_barrier_and_at_the_batch_limit():
    claim = np.array([[0, 0, 1, 1], [5, 5, 6, 6], [9, 9, 9, 9], [3, 3, 3, 3]])
    todo = np.arange(4)
    check = np.zeros(4, np.int64)
    got, room = rs.schedule(todo, claim, np.array([0, 0, 1, 0], bool), claim, 10, 10, 4,
                            99, 5, False, check)
    assert got.tolist() == [0, 1] and room.size == 2
    assert rs.schedule(todo, claim, np.zeros(4, bool), claim, 10, 10, 4, 3,
                       5, False, check)[0].tolist() == [0, 1, 2]


def test_wire_hits_and_dependents_look_only_at_later_nets_that_read_the_wire():
    claim = np.array([[0, 0, 9, 9], [0, 0, 3, 3], [2, 2, 5, 5], [4, 4, 8, 8], [0, 0, 1, 1],
                      [5, 4, 5, 4]])
    state = np.array([1, 1, 1, 1, 0, rs.INFLIGHT], np.int8)
    wire = np.array([3 * 10 + 3, 3 * 10 + 4], np.int64)     # cells (3, 3), (4, 3)
    assert rb.wire_hits(wire, 10, 0, claim, state).tolist() == [1, 2]
    assert rb.wire_hits(wire, 10, 1, claim, state).tolist() == [2]
    # net 2's wire (4, 4)-(5, 4) lies in the claims of 3 and 5 (in flight); net 4's
    # claim overlaps 2's but holds none of its wire
    store = np.array([44, 45, 46, 47])
    off, length = np.zeros(6, np.int64), np.array([0, 0, 2, 0, 0, 0])
    pin = np.zeros(100, bool)
    got = rb.dependents(np.array([2]), off, length, store, pin, 10, claim, state, claim)
    assert got.tolist() == [2, 3, 5]
    pin[[44, 45]] = True                 # pins are blocked for good: nobody reads them
    assert rb.dependents(np.array([2]), off, length, store, pin, 10, claim,
                         state, claim).tolist() == [2]
    length[2] = 4                        # (6, 4), (7, 4): net 3's claim, not 5's
    assert rb.dependents(np.array([2]), off, length, store, pin, 10, claim,
                         state, claim).tolist() == [2, 3]
    wide = claim.copy()
    wide[5] = [6, 4, 7, 4]               # net 5 in flight may grow over (6, 4) and (7, 4)
    assert rb.dependents(np.array([2]), off, length, store, pin, 10, claim,
                         state, wide).tolist() == [2, 3, 5]
    wide[3] = [0, 0, 0, 0]               # the committed net 3 is read at its claim
    assert rb.dependents(np.array([2]), off, length, store, pin, 10, claim,
                         state, wide).tolist() == [2, 3, 5]


def test_a_lift_sends_back_the_committed_and_voids_the_nets_in_flight():
    claim = np.array([[0, 0, 9, 9], [2, 2, 5, 5], [4, 4, 8, 8], [4, 4, 4, 4]])
    book = np.zeros((7, 4), np.int64)
    book[0] = [rs.COMMITTED, rs.COMMITTED, rs.COMMITTED, rs.INFLIGHT]
    book[4], book[5] = [0, 0, 2, 0], [0, 2, 2, 0]
    store = np.array([33, 44, 46, 47])      # net 1: (3, 3), (4, 4); net 2: (6, 4), (7, 4)
    void = np.zeros(4, bool)
    cells, pos = rb.lift(np.array([1]), book, store, np.zeros(100, bool), 10, claim,
                         claim, void)
    # net 1's wire lies in net 2's claim and in net 3's (in flight); net 2's is lifted too
    assert sorted(zip(cells.tolist(), pos.tolist())) == [(33, 1), (44, 1), (46, 2), (47, 2)]
    assert book[0].tolist() == [rs.COMMITTED, rs.TODO, rs.TODO, rs.INFLIGHT]
    assert book[5].tolist() == [0, 0, 0, 0] and book[6].tolist() == [0, 1, 1, 0]
    assert void.tolist() == [False, False, False, True]


def test_windows_are_clipped_and_claims_one_cell_wider():
    barrier = np.zeros(2, bool)
    s, c, lim = gb.windows(np.array([[0, 0, 3, 1], [7, 8, 9, 9]]), np.array([2, 1]),
                           (10, 10), 10**6, barrier, np.array([2, 2]))
    assert s.tolist() == [[0, 0, 5, 3], [6, 7, 9, 9]]
    assert c.tolist() == [[0, 0, 6, 4], [5, 6, 9, 9]]
    assert lim.tolist() == [9, 6] and not barrier.any()
    gb.windows(np.array([[0, 0, 3, 1], [7, 8, 9, 9]]), np.array([2, 1]), (10, 10),
               int(gb.window_bytes(3, 3)), barrier, np.array([2, 2]))
    assert barrier.tolist() == [True, False]


def test_records_lay_out_paths_back_to_back():
    pins = np.array([[1, 1, 4, 1], [8, 8, 8, 9]])
    search, _, limit = gb.windows(pins, np.array([1, 1]), (10, 10), 10**6,
                                  np.zeros(2, bool), np.array([2, 2]))
    rec, off, size = gb.records(np.array([0, 1]), search, pins, limit, np.array([2, 2]),
                                np.array([0, 2]), np.array([1, 1]))
    assert off.tolist() == [0, 7] and size == 12
    assert rec[1, gb.F_POS] == 1 and rec[1, gb.F_W] == 3 and rec[1, gb.F_H] == 3
    # room to grow to margin 3: the first net's wire may be 3 + 2 * 3 cells long
    rec, off, size = gb.records(np.array([0, 1]), search, pins, limit, np.array([2, 2]),
                                np.array([0, 2]), np.array([3, 1]))
    assert off.tolist() == [0, 11] and size == 16 and rec[0, gb.F_ROOM] == 3


@pytest.mark.parametrize("seed", range(20))
def test_rooms_keep_a_grown_claim_clear_of_every_earlier_net_waiting(seed):
    rng, n, size, lo, hi = _random_boxes(seed, 150, 16, 30)
    pins = np.concatenate([lo, hi], axis=1)
    margin = rng.integers(0, 6, n)
    claim = np.concatenate([np.maximum(lo - margin[:, None] - 1, 0),
                            np.minimum(hi + margin[:, None] + 1, size - 1)], axis=1)
    todo = np.sort(rng.choice(n, size=int(rng.integers(1, n + 1)), replace=False))
    tile, reach = int(rng.integers(1, 64)), int(rng.integers(0, 80))
    batch, room = rs.schedule(todo, claim, np.zeros(n, bool), pins, size, size, tile, 10**6,
                              reach, False, np.zeros(n, np.int64))

    def clear(p, m):
        x0, y0, x1, y1 = lo[p, 0] - m - 1, lo[p, 1] - m - 1, hi[p, 0] + m + 1, hi[p, 1] + m + 1
        return all(claim[q, 0] > x1 or claim[q, 2] < x0 or claim[q, 1] > y1
                   or claim[q, 3] < y0 for q in todo[todo < p])

    for p, m in zip(batch.tolist(), room.tolist()):
        assert m <= reach and m >= min(margin[p], reach)     # a batch net's own margin fits
        assert clear(p, m) and (m == reach or not clear(p, m + 1))


@pytest.mark.parametrize("seed", range(10))
def test_a_plan_is_the_schedule_its_records_and_the_claims_in_flight(seed):
    rng, n, size, lo, hi = _random_boxes(seed, 150, 16, 30)
    pins = np.concatenate([lo, hi], axis=1)
    margin = rng.integers(0, 6, n)
    npins = np.full(n, 2)
    barrier = rng.random(n) < 0.02
    search, claim, limit = gb.windows(pins, margin, (size, size), 10**9, barrier, npins)
    todo = np.sort(rng.choice(n, size=int(rng.integers(1, n + 1)), replace=False))
    state = np.full(n, rs.COMMITTED, np.int64)
    state[todo] = rs.TODO
    wide = np.full((n, 4), -1, np.int64)
    pin_at = np.arange(n) * 2
    batch, rec, off, psize = rs.plan(todo, claim, barrier, pins, search, limit, npins, pin_at,
                                     margin, state, wide, size, size, 16, 50, 40, False,
                                     np.zeros(n, np.int64))
    want, room = rs.schedule(todo, claim, barrier, pins, size, size, 16, 50, 40, False,
                             np.zeros(n, np.int64))
    assert batch.tolist() == want.tolist()
    rec2, off2, size2 = gb.records(want, search, pins, limit, npins, pin_at, room)
    assert np.array_equal(rec, rec2) and np.array_equal(off, off2) and psize == size2
    assert (state[batch] == rs.INFLIGHT).all()
    rest = np.setdiff1d(np.arange(n), batch)
    assert (wide[rest] == -1).all() and np.isin(state[rest], [rs.TODO, rs.COMMITTED]).all()
    for k, p in enumerate(batch.tolist()):
        g = max(room[k], margin[p]) + 1
        assert wide[p].tolist() == [max(lo[p, 0] - g, 0), max(lo[p, 1] - g, 0),
                                    min(hi[p, 0] + g, size - 1), min(hi[p, 1] + g, size - 1)]


def test_a_turn_finds_the_first_net_waiting_and_the_counts_due():
    state = np.array([rs.FINAL, rs.COMMITTED, rs.INFLIGHT, rs.TODO, rs.COMMITTED, rs.TODO])
    status = np.array([gb.UNROUTED_TARGET, gb.UNROUTED_TARGET, 0, 0, gb.UNROUTED_TARGET, 0])
    counting = np.array([True, False, False, False, False, False])
    todo, p, ready = rs._turn(state, status, counting)
    assert todo.tolist() == [3, 5] and p == 2 and ready.tolist() == [1]
    assert counting.tolist() == [True, True, False, False, False, False]
    todo, p, ready = rs._turn(np.full(3, rs.FINAL), np.zeros(3, np.int64), np.zeros(3, bool))
    assert todo.size == 0 and p == 3 and ready.size == 0


@pytest.mark.parametrize("seed", range(10))
def test_launch_shape_fits_every_window_of_the_batch(seed):
    rng = np.random.default_rng(seed)
    b = int(rng.integers(1, 40))
    rec = np.zeros((b, gb.REC), np.int32)
    rec[:, gb.F_W] = rng.integers(1, 700, b)
    rec[:, gb.F_H] = rng.integers(1, 700, b)
    threads, smem = gb.launch_shape(rec)
    words = (rec[:, gb.F_H] * ((rec[:, gb.F_W] + 63) // 64)).astype(np.int64)
    assert smem == int(gb.window_bytes(rec[:, gb.F_H], rec[:, gb.F_W]).max())
    assert gb.MIN_THREADS <= threads <= 1024 and threads % 32 == 0
    assert threads == 1024 or 2 * threads >= words.max()      # two words a thread
    assert threads == gb.MIN_THREADS or 2 * (threads - 32) < words.max()   # no more warps


def test_the_kernel_and_the_host_share_their_constants():
    text = (Path(__file__).resolve().parent.parent / "kernels" / "route_batch.cu").read_text()
    found = re.findall(r"^#define (\w+) (\d+)\b", text, re.M)
    d = dict(found)
    names = ("REC", "F_POS", "F_X0", "F_Y0", "F_W", "F_H", "F_SX", "F_SY", "F_TX", "F_TY",
             "F_LIMIT", "F_OFF", "F_NPINS", "F_PINS", "F_ROOM", "H_MARGIN", "PLANES", "OK",
             "GROW", "UNROUTED_SOURCE", "UNROUTED_TARGET", "ESCAPED", "ALONE", "MAX_PINS")
    assert {n: int(d[n]) for n in names} == {n: getattr(gb, n) for n in names}
    assert gb.HDR in [int(v) for k, v in found if k == "HDR"]     # HDR without PHASES
    assert int(re.search(r"^#define NO_WIRE (0x[0-9A-F]+)", text, re.M).group(1), 16) \
        == gb.NO_WIRE


def test_a_pinned_ring_hands_out_each_buffer_once_its_last_copy_is_done():
    class Memory(bytearray):
        def size(self):
            return len(self)

    class Event:
        def __init__(self, **_):
            self.waits = 0

        def synchronize(self):
            self.waits += 1

    cuda = type("cuda", (), {"alloc_pinned_memory": Memory, "Event": Event})
    Cupy = type("cupy", (), {"cuda": cuda})

    ring = gb.PinnedRing(Cupy, 2, 16)
    got = [ring.take(n) for n in (3, 4, 10)]
    assert [k for k, _, _ in got] == [0, 1, 0]              # in turn
    assert got[0][2] is got[2][2] and got[2][2].waits == 2   # waited for before each use
    assert got[1][1].size == 4 and got[2][1].size == 10      # grown past its 16 bytes
    assert ring.slots[0][0].size() >= 40


def test_lazy_cells_read_as_tuples_and_write_as_lists():
    from mazeroute.router import NetRoute
    r = NetRoute("a", [(0, 0), (2, 0)], routed=True)
    r.set_cells(np.array([[0, 0], [1, 0], [2, 0]], np.int32))
    assert r.to_json()["cells"] == [[0, 0], [1, 0], [2, 0]]
    got = r.cell_array()             # read as an array, the cells stay lazy
    assert got.dtype == np.int64 and got.tolist() == [[0, 0], [1, 0], [2, 0]]
    assert r.__dict__["_xy"] is not None
    assert r.cells == [(0, 0), (1, 0), (2, 0)] and type(r.cells[0][0]) is int
    assert r.cell_array().tolist() == [[0, 0], [1, 0], [2, 0]]      # from the tuples
    assert r == NetRoute("a", [(0, 0), (2, 0)], routed=True, cells=[(0, 0), (1, 0), (2, 0)])
    r.cells = [(5, 5)]
    assert r.cells == [(5, 5)] and r.to_json()["cells"] == [[5, 5]]


def test_a_route_made_of_its_wire_equals_one_made_field_by_field():
    from mazeroute.router import NetRoute
    xy = np.array([[0, 0], [1, 0], [1, 1]], np.int64)
    want = NetRoute("a", [(0, 0), (1, 1)], bends=1, seconds=0.5)
    want.routed, want.order, want.length = True, 3, 2
    want.set_cells(xy)
    got = NetRoute.of_wire("a", [(0, 0), (1, 1)], xy, 3, 1, 0.5)
    assert got == want and got.cells == [(0, 0), (1, 0), (1, 1)]
    assert got.to_json() == want.to_json() and got.levels == 0 and got.reason is None
    lost = [NetRoute.of_wire(n, [(0, 0), (1, 1)], None, 7, 2, 0.1) for n in "bc"]
    assert lost[0] == NetRoute("b", [(0, 0), (1, 1)], bends=2, seconds=0.1)
    assert not lost[0].routed and lost[0].order is None and lost[0].length == 0
    lost[0].cells.append((9, 9))            # each unrouted route has a list of its own
    assert lost[1].cells == [] and NetRoute.of_wire("d", [], None, 0, 0, 0).cells == []
