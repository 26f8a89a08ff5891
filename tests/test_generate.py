"""Synthetic layouts are reproducible and have the promised shape."""

from __future__ import annotations

import numpy as np
import pytest

from mazeroute.errors import InputError
from mazeroute.generate import (
    mask_to_rects,
    maze_mask,
    perfect_maze,
    random_layout,
    random_nets,
    random_rects,
)
from mazeroute.layout import paint
from mazeroute.router import route


@pytest.mark.parametrize("density", [0.0, 0.1, 0.25, 0.6])
def test_random_rects_reach_the_density(density):
    rng = np.random.default_rng(1)
    blocked = paint(200, 150, random_rects(200, 150, density, rng))
    assert density <= blocked.mean() < density + 0.05


def test_maze_is_perfect():
    free = ~maze_mask(41, 31, seed=4)
    assert not (free[:-1, :-1] & free[1:, :-1] & free[:-1, 1:] & free[1:, 1:]).any()
    # a tree: free cells - adjacencies == 1 (connected, no cycle)
    edges = (free[:, :-1] & free[:, 1:]).sum() + (free[:-1, :] & free[1:, :]).sum()
    assert free.sum() - edges == 1


def test_same_seed_same_layout_other_seed_other_layout():
    a, b, c = (random_layout(50, 40, nets=6, pins=3, seed=s) for s in (3, 3, 4))
    assert a.rects == b.rects and [n.pins for n in a.nets] == [n.pins for n in b.nets]
    assert a.rects != c.rects
    m1, m2 = perfect_maze(21, 21, nets=2, seed=9), perfect_maze(21, 21, nets=2, seed=9)
    np.testing.assert_array_equal(m1.blocked, m2.blocked)


def test_mask_to_rects_round_trips():
    mask = np.random.default_rng(0).random((37, 29)) < 0.4
    np.testing.assert_array_equal(paint(29, 37, mask_to_rects(mask)), mask)


def test_random_nets_use_free_distinct_cells_and_route():
    lay = random_layout(60, 60, density=0.3, nets=8, pins=2, seed=2)
    cells = [p for n in lay.nets for p in n.pins]
    assert len(set(cells)) == len(cells)
    assert not any(lay.blocked[y, x] for x, y in cells)
    assert len(route(lay, backend="cpu").nets) == 8


def test_too_many_nets_or_too_few_pins_is_an_input_error():
    blocked = np.zeros((3, 3), bool)
    with pytest.raises(InputError, match="free cells"):
        random_nets(blocked, 5, 2, np.random.default_rng(0))
    with pytest.raises(InputError, match="2 pins"):
        random_nets(blocked, 1, 1, np.random.default_rng(0))


@pytest.mark.parametrize("n, width", [(64, 1), (65, 2), (97, 4), (100, 8)])
def test_serpentine_and_spiral_are_one_corridor_of_their_width(n, width):
    import scipy.ndimage

    from mazeroute.generate import serpentine_mask, spiral_mask
    for blocked in (serpentine_mask(n, width), spiral_mask(n, width)):
        free = ~blocked
        assert blocked.shape == (n, n)
        assert scipy.ndimage.label(free)[1] == 1                  # one connected corridor
        # no free square wider than the corridor: a (width+1)^2 block is never all free
        k = width + 1
        windows = np.lib.stride_tricks.sliding_window_view(free, (k, k))
        assert not windows.all(axis=(2, 3)).any()
        # and the corridor is as wide as asked somewhere
        wide = np.lib.stride_tricks.sliding_window_view(free, (width, width))
        assert wide.all(axis=(2, 3)).any()


@pytest.mark.parametrize("fraction", [0.0, 0.05, 0.5])
def test_loopy_maze_adds_loops_and_keeps_the_maze_connected(fraction):
    import scipy.ndimage

    from mazeroute.engines.auto import cycle_rank
    from mazeroute.generate import loopy_maze_mask, maze_mask
    perfect = maze_mask(61, 61, seed=2)
    loopy = loopy_maze_mask(61, 61, fraction, seed=2)
    assert (loopy <= perfect).all()                  # walls only removed
    removed = int((perfect & ~loopy).sum())
    assert cycle_rank(~loopy) >= removed     # each removal joins two corridors: a loop
    assert scipy.ndimage.label(~loopy)[1] == 1
    assert (removed > 0) == (fraction > 0)
