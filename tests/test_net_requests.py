"""Request packing (mazeroute/engines/net_requests.py): the flat form of requests that the
compiled and device engines read, from request objects and from a pin table, with the
same checks."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mazeroute.engines.net_requests import NetRequest, pack_nets, pack_requests, pin_table


def test_pack_requests_layout():
    p = pack_requests([NetRequest(3, np.array([[1, 0], [2, 1]]), (0, 0, 2, 1)),
                       NetRequest(5, np.array([[0, 2], [1, 2], [0, 3]]), (0, 2, 1, 3))],
                      (1, 4, 3))
    assert p.nets.tolist() == [3, 5] and p.pin_ptr.tolist() == [0, 2, 5]
    assert p.pins.tolist() == [1, 5, 6, 7, 9]
    assert p.boxes.tolist() == [[0, 0, 2, 1], [0, 2, 1, 3]]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(1, 4), min_size=1, max_size=8), st.integers(0, 2**31 - 1))
def test_packing_nets_from_a_pin_table_is_packing_their_requests(counts, seed):
    """pack_nets (a pass's requests gathered from a pin table, in any order, a net
    twice or not at all) packs what pack_requests packs of the same requests."""
    rng = np.random.default_rng(seed)
    h, w = 9, 11
    pins = [np.stack([rng.integers(0, w, k), rng.integers(0, h, k)], axis=1) for k in counts]
    nets = rng.integers(0, len(pins), rng.integers(0, 2 * len(pins) + 1))
    boxes = []
    for i in nets.tolist():
        lo, hi = pins[i].min(axis=0), pins[i].max(axis=0)
        grow = rng.integers(0, 3, 4)
        boxes.append([max(0, lo[0] - grow[0]), max(0, lo[1] - grow[1]),
                      min(w - 1, hi[0] + grow[2]), min(h - 1, hi[1] + grow[3])])
    boxes = np.array(boxes, np.int64).reshape(-1, 4)
    got = pack_nets(pin_table(pins, w), nets, boxes, (1, h, w))
    want = pack_requests([NetRequest(i, pins[i], tuple(b)) for i, b in
                          zip(nets.tolist(), boxes.tolist())], (1, h, w))
    for a, b in zip(got, want):
        assert a.dtype == b.dtype and np.array_equal(a, b)


def test_packing_nets_refuses_what_packing_requests_refuses():
    table = pin_table([np.array([[0, 0], [3, 3]]), np.array([[1, 1]])], 4)
    with pytest.raises(ValueError, match="request 0: a pin lies outside the box"):
        pack_nets(table, np.array([0]), np.array([[0, 0, 2, 2]]), (1, 4, 4))
    with pytest.raises(ValueError, match=r"request 1: box \(0, 0, 4, 3\) is not inside"):
        pack_nets(table, np.array([0, 1]), np.array([[0, 0, 3, 3], [0, 0, 4, 3]]), (1, 4, 4))


def test_own_cells_are_packed_inside_their_boxes_and_checked():
    """Request r's own cells come at own_ptr[r]:own_ptr[r + 1], those outside its box
    dropped (the search never reads them); costs must be 1 .. COST_MAX, one a cell."""
    from mazeroute.engines.costs import COST_MAX
    from mazeroute.engines.net_requests import pack_own, request_boxes
    w = 5
    reqs = [NetRequest(0, np.array([[0, 0]]), (0, 0, 1, 1), np.array([0, 1, 4]),
                       np.array([7, 8, 9])),
            NetRequest(1, np.array([[3, 3]]), (2, 2, 4, 4)),
            NetRequest(2, np.array([[4, 4]]), (3, 3, 4, 4), np.array([24]), np.array([5]))]
    ptr, cells, costs = pack_own(reqs, request_boxes(reqs), w)
    assert ptr.tolist() == [0, 2, 2, 3]
    assert cells.tolist() == [0, 1, 24] and costs.tolist() == [7, 8, 5]
    none = pack_own(reqs[1:2], request_boxes(reqs[1:2]), w)
    assert none[0].tolist() == [0, 0] and none[1].size == none[2].size == 0
    for bad in (0, COST_MAX + 1):
        r = [reqs[0]._replace(own_cost=np.array([bad, 8, 9]))]
        with pytest.raises(ValueError, match="own cells' costs"):
            pack_own(r, request_boxes(r), w)
    r = [reqs[0]._replace(own_cost=np.array([7]))]
    with pytest.raises(ValueError, match="request 0: own_cost needs one cost an own cell"):
        pack_own(r, request_boxes(r), w)
