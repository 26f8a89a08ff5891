"""The loop's test of nets that no box can route (mazeroute/router/negotiation/loop.py):
``cut_off`` and ``apart`` against an oracle, the pieces of the cells a net may enter
joined with its pins, on many random grids."""

import numpy as np
import scipy.ndimage
from hypothesis import given, settings
from hypothesis import strategies as st

from mazeroute.router.negotiation.loop import apart, cut_off


def _oracle(open_cells: np.ndarray, pins: list[tuple[int, int]]) -> bool:
    """Whether the pins fall in different 4-connected components of the open cells
    with the pins added: what ``cut_off`` decides by its walk over pins and pieces."""
    cells = open_cells.copy()
    for x, y in pins:
        cells[y, x] = True
    comp = scipy.ndimage.label(cells)[0]
    return len({int(comp[y, x]) for x, y in pins}) > 1


@st.composite
def grids(draw, pins_max=4):
    h, w = draw(st.integers(2, 7)), draw(st.integers(2, 7))
    bits = draw(st.lists(st.booleans(), min_size=h * w, max_size=h * w))
    open_cells = np.array(bits, bool).reshape(h, w)
    k = draw(st.integers(2, pins_max))
    where = draw(st.lists(st.tuples(st.integers(0, w - 1), st.integers(0, h - 1)),
                          min_size=k, max_size=k, unique=True))
    for x, y in where:                  # a pin's cell is never a piece's
        open_cells[y, x] = False
    return open_cells, where


@settings(max_examples=300, deadline=None)
@given(grids())
def test_cut_off_is_the_oracle(case):
    open_cells, pins = case
    label = scipy.ndimage.label(open_cells)[0]
    assert cut_off(label, np.array(pins)) == _oracle(open_cells, pins)


@settings(max_examples=100, deadline=None)
@given(st.lists(grids(pins_max=2), min_size=1, max_size=6), st.integers(0, 2**31))
def test_apart_is_the_oracle_for_two_pin_nets(cases, seed):
    """Many two-pin nets on one grid (the first case's cells), at once."""
    open_cells = cases[0][0]
    h, w = open_cells.shape
    rng = np.random.default_rng(seed)
    nets = [rng.choice(h * w, 2, replace=False) for _ in cases]
    ends = np.array([[(int(c) % w, int(c) // w) for c in net] for net in nets]).transpose(1, 0, 2)
    pinned = open_cells.copy()
    pinned[ends[..., 1].ravel(), ends[..., 0].ravel()] = False
    label = scipy.ndimage.label(pinned)[0]
    want = [_oracle(pinned, [tuple(p) for p in ends[:, k]]) for k in range(len(nets))]
    assert apart(label, ends).tolist() == want
