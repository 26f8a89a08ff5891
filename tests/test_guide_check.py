"""The all-nets guide checks against the one-net ones they stand for: the pieces of
:func:`mazeroute.evaluate.pieces` and a pin cover (a guide on the shape's level or above
overlapping one of its GCells), on random boxes."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from mazeroute.evaluate import pieces
from mazeroute.guide_check import box_cells, covered, one_piece

box = st.tuples(st.integers(1, 3), st.integers(0, 5), st.integers(0, 5),
                st.integers(0, 3), st.integers(0, 3)).map(
    lambda b: (b[0], b[1], b[2], min(5, b[1] + b[3]), min(5, b[2] + b[4])))
nets = st.lists(st.lists(box, min_size=0, max_size=5), min_size=1, max_size=5)


def _flat(boxes_of):
    rows = [(k, *b) for k, bs in enumerate(boxes_of) for b in bs]
    a = np.array(rows, np.int64).reshape(-1, 6)
    return a[:, 0], a[:, 1:]


@settings(max_examples=300, deadline=None)
@given(nets)
def test_one_piece_is_pieces(boxes_of):
    net, boxes = _flat(boxes_of)
    got = one_piece(net, boxes, len(boxes_of))
    assert got.tolist() == [bool(bs) and len(pieces(bs)) == 1 for bs in boxes_of]


@settings(max_examples=300, deadline=None)
@given(nets, st.lists(st.tuples(st.integers(0, 4), box), max_size=6))
def test_covered_is_a_guide_over_the_shape(boxes_of, shapes):
    net, boxes = _flat(boxes_of)
    rows = [(k % len(boxes_of), s[0], s[1], s[2], s[3], s[4]) for k, s in shapes]
    got = covered(box_cells(net, boxes), np.array(rows, np.int64).reshape(-1, 6))
    want = [any(b[0] >= lv and b[1] <= x1 and x0 <= b[3] and b[2] <= y1 and y0 <= b[4]
                for b in boxes_of[k]) for k, lv, x0, y0, x1, y1 in rows]
    assert got.tolist() == want


def test_hand_made():
    # an L on two levels joined where they overlap; a box that only touches a corner
    boxes = np.array([[2, 0, 0, 3, 0], [3, 3, 0, 3, 4], [2, 4, 5, 4, 5]])
    assert one_piece(np.zeros(2, np.int64), boxes[:2], 1).tolist() == [True]
    assert one_piece(np.zeros(3, np.int64), boxes, 1).tolist() == [False]
    cells = box_cells(np.zeros(2, np.int64), boxes[:2])
    # a level-3 shape at (3, 2) is under the level-3 box; a level-3 shape at (1, 0) is
    # only under a level-2 box
    shapes = np.array([[0, 3, 3, 2, 3, 2], [0, 3, 1, 0, 1, 0], [0, 2, 1, 0, 1, 0]])
    assert covered(cells, shapes).tolist() == [True, False, True]
