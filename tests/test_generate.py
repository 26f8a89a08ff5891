"""Synthetic layouts are reproducible and have the promised shape."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mazeroute.errors import InputError
from mazeroute.generate import (
    mask_to_rects,
    maze_mask,
    netlist_text,
    nets_on,
    perfect_maze,
    random_layout,
    random_nets,
    random_rects,
)
from mazeroute.layout import Layout, paint
from mazeroute.readers import load_netlist
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


@pytest.mark.parametrize("span", [1000, 2**64, 10**30])
def test_a_span_past_the_grid_is_the_whole_grid(span):
    lay = random_layout(10, 10, nets=10, pins=2, seed=0, span=span)
    same = random_layout(10, 10, nets=10, pins=2, seed=0, span=18)     # the diameter
    assert [n.pins for n in lay.nets] == [n.pins for n in same.nets]


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

    from mazeroute.generate import loopy_maze_mask, maze_mask
    from mazeroute.plan.features import cycle_rank
    perfect = maze_mask(61, 61, seed=2)
    loopy = loopy_maze_mask(61, 61, fraction, seed=2)
    assert (loopy <= perfect).all()                  # walls only removed
    removed = int((perfect & ~loopy).sum())
    assert cycle_rank(~loopy) >= removed     # each removal joins two corridors: a loop
    assert scipy.ndimage.label(~loopy)[1] == 1
    assert (removed > 0) == (fraction > 0)


@settings(max_examples=40, deadline=None)
@given(w=st.integers(1, 60), h=st.integers(1, 60), corridor=st.integers(1, 4),
       loops=st.sampled_from([0.0, 0.1, 1.0]), seed=st.integers(0, 10**6))
def test_kruskal_maze_is_one_piece_of_rooms_and_loops_only_where_asked(w, h, corridor,
                                                                      loops, seed):
    import scipy.ndimage

    from mazeroute.generate import kruskal_maze_mask
    from mazeroute.plan.features import cycle_rank
    blocked = kruskal_maze_mask(w, h, loops, corridor, seed)
    free = ~blocked
    assert blocked.shape == (h, w)
    pitch = corridor + 1
    rw, rh = (w - 1) // pitch, (h - 1) // pitch
    if rw < 1 or rh < 1:
        return                              # too small for a room: nothing to check
    assert scipy.ndimage.label(free)[1] == 1
    # every room is free, in full
    for ry in range(rh):
        for rx in range(rw):
            y, x = 1 + ry * pitch, 1 + rx * pitch
            assert free[y:y + corridor, x:x + corridor].all()
    # each wall removed joins two rooms by a passage as wide as a room: in rooms and
    # passages, rooms - passages == 1 for a tree; every extra passage makes one loop
    passages = 0
    for ry in range(rh):
        for rx in range(rw):
            y, x = 1 + ry * pitch, 1 + rx * pitch
            passages += rx + 1 < rw and bool(free[y, x + corridor])
            passages += ry + 1 < rh and bool(free[y + corridor, x])
    assert passages >= rw * rh - 1
    if loops == 0.0:
        assert passages == rw * rh - 1
        if corridor == 1:
            assert cycle_rank(free) == 0
    if loops == 1.0:
        assert passages == (rw - 1) * rh + rw * (rh - 1)


# -- layout classes by name ----------------------------------------------------------------
def _reference_spiral(n: int, width: int) -> np.ndarray:
    """The spiral drawn block by block (how spiral_mask drew it before it drew runs)."""
    m = n // (width + 1)
    order = []
    top, left, bot, right = 0, 0, m - 1, m - 1
    while top <= bot and left <= right:
        order += [(top, x) for x in range(left, right + 1)]
        order += [(y, right) for y in range(top + 1, bot + 1)]
        if top < bot:
            order += [(bot, x) for x in range(right - 1, left - 1, -1)]
        if left < right:
            order += [(y, left) for y in range(bot - 1, top, -1)]
        top, left, bot, right = top + 1, left + 1, bot - 1, right - 1
    free = np.zeros((n, n), bool)
    step, prev = width + 1, None
    for cy, cx in order:
        free[cy * step:cy * step + width, cx * step:cx * step + width] = True
        if prev is not None:
            y0, y1 = min(prev[0], cy) * step, max(prev[0], cy) * step + width
            x0, x1 = min(prev[1], cx) * step, max(prev[1], cx) * step + width
            free[y0:y1, x0:x1] = True
        prev = (cy, cx)
    return ~free


def test_spiral_drawn_by_runs_is_the_block_by_block_spiral():
    from mazeroute.generate import spiral_mask
    for n in range(1, 48):
        for width in range(1, 6):
            np.testing.assert_array_equal(spiral_mask(n, width), _reference_spiral(n, width),
                                          err_msg=f"n={n}, width={width}")
    np.testing.assert_array_equal(spiral_mask(301, 2), _reference_spiral(301, 2))


def test_serpentine_free_cells_are_its_rows_and_joins():
    from mazeroute.generate import serpentine_mask
    for n, width in [(64, 1), (65, 2), (97, 4), (100, 8)]:
        rows = (n - width) // (width + 1) + 1     # corridors of width x n cells, a wall apart
        free = int((~serpentine_mask(n, width)).sum())
        assert free == rows * width * n + (rows - 1) * width     # joined by width x 1 gaps


def test_class_names_give_their_family_generator_and_defaults():
    from mazeroute.generate import (
        LAYOUT_CLASSES,
        class_mask,
        loopy_maze_mask,
        serpentine_mask,
        spiral_mask,
    )
    np.testing.assert_array_equal(class_mask("serpentine:2", 40), serpentine_mask(40, 2))
    np.testing.assert_array_equal(class_mask("spiral", 40), spiral_mask(40, 1))
    np.testing.assert_array_equal(class_mask("maze:0.02", 41, seed=3),
                                  loopy_maze_mask(41, 41, 0.02, 3))
    np.testing.assert_array_equal(class_mask("maze", 40, seed=3), maze_mask(40, 40, seed=3))
    rects = paint(50, 50, random_rects(50, 50, 0.3, np.random.default_rng(4)))
    np.testing.assert_array_equal(class_mask("open:0.3", 50, seed=4), rects)
    dense = class_mask("dense", 60, seed=1)
    assert 0.5 <= dense.mean() < 0.55
    for family in LAYOUT_CLASSES:                # deterministic, square, of the size asked
        a, b = class_mask(family, 48, seed=2), class_mask(family, 48, seed=2)
        assert a.shape == (48, 48) and a.dtype == bool
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(class_mask("open", 48, seed=1), class_mask("open", 48, seed=2))


@pytest.mark.parametrize("name, match", [
    ("swamp", "unknown layout class"), ("maze:lots", "must be a number"),
    ("spiral:1.5", "must be an integer"), ("spiral:0", ">= 1"), ("maze:1.5", r"\[0, 1\]"),
    ("open:1", r"\[0, 1\)"), ("wired:-1", ">= 0"),
])
def test_bad_class_names_are_input_errors(name, match):
    from mazeroute.generate import class_mask
    with pytest.raises(InputError, match=match) as e:
        class_mask(name, 32)
    assert e.value.field == "class"


def test_mazes_with_few_and_many_loops():
    import scipy.ndimage

    from mazeroute.generate import class_mask
    from mazeroute.plan.features import cycle_rank
    loops = [cycle_rank(~class_mask(f"maze:{f}", 121, seed=5)) for f in (0, 0.002, 0.02, 0.2)]
    assert loops[0] == 0 and loops == sorted(loops) and loops[3] > 10 * max(1, loops[1])
    free = ~class_mask("maze:0.2", 121, seed=5)
    assert scipy.ndimage.label(free)[1] == 1


def test_wired_layout_blocks_its_pins_and_routed_wires_on_top_of_the_rectangles():
    import scipy.ndimage

    from mazeroute.generate import wired_mask
    blocked = wired_mask(96, 96, net_density=3, seed=7)
    rng = np.random.default_rng(7)          # as the generator draws: rectangles, then nets
    rects = paint(96, 96, random_rects(96, 96, 0.1, rng))
    nets = random_nets(rects, round(3 * 96 * 96 / 1024), 2, rng, span=64)
    pins = np.array([p for n in nets for p in n.pins])
    assert (blocked >= rects).all()                     # rectangles stay
    assert blocked[pins[:, 1], pins[:, 0]].all()        # every pin is a blockage
    wires = blocked & ~rects
    wires[pins[:, 1], pins[:, 0]] = False
    assert wires.sum() > 0
    # every wire cell lies on a path of wire cells joining pins: each connected piece of
    # (wires + pins) holds at least two pins
    pieces, count = scipy.ndimage.label(wires | (blocked & ~rects))
    pin_piece = pieces[pins[:, 1], pins[:, 0]]
    per_piece = np.bincount(pin_piece, minlength=count + 1)
    wire_pieces = np.unique(pieces[wires])
    assert (per_piece[wire_pieces] >= 2).all()
    np.testing.assert_array_equal(wired_mask(96, 96, 3, seed=7), blocked)
    np.testing.assert_array_equal(wired_mask(96, 96, 0, seed=7), rects)  # no nets, no wires


def test_tiled_map_joins_its_copies_into_one_region():
    import scipy.ndimage

    from mazeroute.generate import tile_mask
    rng = np.random.default_rng(3)
    blocked = np.ones((30, 40), bool)
    blocked[3:27, 5:33] = rng.random((24, 28)) < 0.3       # walled in, like a game map
    free = ~blocked
    labels, _ = scipy.ndimage.label(free)
    sizes = np.bincount(labels.ravel())
    sizes[0] = 0
    ys, xs = np.nonzero(labels == sizes.argmax())
    box = (ys.max() - ys.min() + 1, xs.max() - xs.min() + 1)
    for times in (1, 2, 4):
        tiled = tile_mask(blocked, times)
        assert tiled.shape == (box[0] * times, box[1] * times)
        assert int((~tiled).sum()) == times * times * int(free[ys.min():ys.max() + 1,
                                                               xs.min():xs.max() + 1].sum())
        t_labels, _ = scipy.ndimage.label(~tiled)
        t_sizes = np.bincount(t_labels.ravel())
        t_sizes[0] = 0
        assert t_sizes.max() == times * times * sizes.max()   # one region across the copies
    with pytest.raises(InputError):
        tile_mask(np.ones((4, 4), bool), 2)


def test_nets_on_a_map_are_seeded_free_local_and_in_their_pins_region(tmp_path):
    """Random nets for a map that has none: free distinct cells, within the span and in
    the root's region (a wall splits this one), the same for a seed, a netlist file."""
    blocked = np.zeros((20, 40), bool)
    blocked[:, 19] = True                          # two rooms
    blocked[5:9, 5:9] = True
    room = Layout("room", 40, 20, [], [], blocked)
    nets = nets_on(room, 30, pins=3, seed=4, span=5)
    cells = [p for n in nets for p in n.pins]
    assert len(nets) == 30 and len(set(cells)) == len(cells) == 90
    assert not any(blocked[y, x] for x, y in cells)
    for n in nets:
        (rx, ry), *rest = n.pins
        assert all(abs(x - rx) + abs(y - ry) <= 5 and (x < 19) == (rx < 19) for x, y in rest)
    assert [n.pins for n in nets_on(room, 30, pins=3, seed=4, span=5)] == [n.pins for n in nets]
    assert [n.pins for n in nets_on(room, 30, pins=3, seed=5, span=5)] != [n.pins for n in nets]
    f = tmp_path / "nets.yaml"
    f.write_text(netlist_text(nets))
    assert [(n.name, n.pins) for n in load_netlist(f)] == [(n.name, n.pins) for n in nets]
    anywhere = nets_on(room, 30, seed=4)
    assert len(anywhere) == 30 and not any(blocked[y, x] for n in anywhere for x, y in n.pins)
