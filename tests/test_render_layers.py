"""Pictures of multi-layer layouts: a panel per layer side by side (wrapping past four),
each showing only its layer's wires in the nets' colours, vias ringed on both layers they
join, unrouted nets' pins framed, the overlay in one panel; one-layer pictures unchanged."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest
from PIL import Image

from mazeroute import render
from mazeroute.generate3d import solvable_puzzle
from mazeroute.layout import Layout, Net
from mazeroute.render import FREE, PIN, UNROUTED_FRAME, image_size, net_colour, save_layout_png
from mazeroute.render_layers import (
    OVERLAY_ALPHA,
    VIA,
    panel_origin,
    stack_image,
    stack_image_size,
    via_cells,
)
from mazeroute.router import NetRoute, RouteResult

S = 24                                        # pixels a cell: room for marks and rings


def _result(puzzle, drop: tuple[str, ...] = ()) -> RouteResult:
    """The puzzle's known solution as a routing result; nets in ``drop`` unrouted."""
    nets = []
    for i, net in enumerate(puzzle.layout.nets):
        if net.name in drop:
            nets.append(NetRoute(net.name, net.pins, reason="walled in"))
            continue
        c = puzzle.solution[net.name]
        nets.append(NetRoute(net.name, net.pins, routed=True, order=i, cells=c,
                             length=sum(a[2] == b[2] for a, b in zip(c, c[1:]))))
    return RouteResult(puzzle.layout, nets, "hand", "file", 0.0)


@pytest.fixture(scope="module")
def puzzle():
    return solvable_puzzle(10, 8, 3, nets=4, seed=1)


def _px(img: Image.Image, lay: Layout, z: int, x: int, y: int, dx: int, dy: int,
        overlay: bool = False) -> tuple:
    ox, oy = panel_origin(lay, z, S, overlay=overlay)
    return img.getpixel((ox + x * S + dx, oy + y * S + dy))


def _vias(puzzle) -> list[tuple[int, int, int]]:
    out = []
    for c in puzzle.solution.values():
        out += [(a[0], a[1], min(a[2], b[2])) for a, b in zip(c, c[1:]) if a[2] != b[2]]
    return out


def test_picture_grows_with_the_layers_and_wraps_past_four():
    size = {k: stack_image_size(solvable_puzzle(10, 8, k, nets=2, seed=3).layout, S)
            for k in (2, 3, 4, 5)}
    assert size[2][0] < size[3][0] < size[4][0]
    assert size[5][0] == size[4][0] and size[5][1] > size[4][1]      # a second row
    lay = solvable_puzzle(10, 8, 5, nets=2, seed=3).layout
    (x0, y0), (x4, y4) = panel_origin(lay, 0, S), panel_origin(lay, 4, S)
    assert x4 == x0 and y4 > y0 + 8 * S                                 # under layer 0
    assert [panel_origin(lay, z, S)[1] for z in range(4)] == [y0] * 4


def test_each_panel_shows_its_layer_wires_only(puzzle):
    lay, res = puzzle.layout, _result(puzzle)
    img = stack_image(lay, res, scale=S)
    assert img.size == image_size(lay, S)
    depth = len(lay.stack.layers)
    checked = 0
    for i, net in enumerate(lay.nets):
        cells = set(puzzle.solution[net.name])
        for x, y, z in cells:
            # (1, 1) inside a cell is clear of the pin mark and the via ring
            assert _px(img, lay, z, x, y, 1, 1) == net_colour(i), (net.name, x, y, z)
            for other in range(depth):
                if (x, y, other) not in cells:
                    assert _px(img, lay, other, x, y, 1, 1) != net_colour(i)
                    checked += 1
    assert checked > 20
    for z in range(depth):                                   # free cells stay free
        used = {(x, y) for c in puzzle.solution.values() for x, y, zz in c if zz == z}
        x, y = next((x, y) for y in range(8) for x in range(10) if (x, y) not in used)
        assert _px(img, lay, z, x, y, S // 2, S // 2) == FREE


def test_vias_are_ringed_on_both_layers_they_join(puzzle):
    lay, res = puzzle.layout, _result(puzzle)
    img = stack_image(lay, res, scale=S)
    ring = S // 8                                             # the ring's inner edge
    vias = _vias(puzzle)
    assert len(vias) >= 4
    for x, y, z in vias:
        for layer in (z, z + 1):
            assert _px(img, lay, layer, x, y, ring, S // 2) == VIA, (x, y, layer)
            assert _px(img, lay, layer, x, y, ring - 1, S // 2) == PIN      # its outline
    at = {(x, y) for x, y, _ in vias}
    plain = [(x, y, z) for c in puzzle.solution.values() for x, y, z in c if (x, y) not in at]
    assert plain and all(_px(img, lay, z, x, y, ring, S // 2) != VIA for x, y, z in plain)
    # a layer the via does not reach has no ring there
    x, y, z = next(v for v in vias if v[2] == 0)
    assert _px(img, lay, 2, x, y, ring, S // 2) != VIA


def test_vias_get_badges_on_small_cells(puzzle):
    lay, res = puzzle.layout, _result(puzzle)
    s = 3
    img = stack_image(lay, res, scale=s)
    for x, y, z in _vias(puzzle):
        for layer in (z, z + 1):
            ox, oy = panel_origin(lay, layer, s)
            cx, cy = ox + x * s + s // 2, oy + y * s + s // 2
            d = -1 if x == lay.width - 1 else 1                   # the side inside the grid
            assert img.getpixel((cx + 2 * d, cy)) == VIA, (x, y, layer)
            assert img.getpixel((cx + 3 * d, cy)) == PIN


def test_via_cells_of_paths_and_trees():
    path = np.array([[0, 0, 0], [0, 0, 1], [1, 0, 1], [1, 0, 2]])
    assert via_cells(path, True).tolist() == [[0, 0, 0], [1, 0, 1]]
    # a path passing over itself on the next layer has no via there
    cross = np.array([[1, 0, 0], [1, 1, 0], [1, 2, 0], [1, 2, 1], [0, 2, 1], [0, 1, 1],
                      [1, 1, 1], [2, 1, 1]])
    assert via_cells(cross, True).tolist() == [[1, 2, 0]]
    assert via_cells(cross, False).tolist() == [[1, 1, 0], [1, 2, 0]]


def test_unrouted_pins_are_framed_on_their_layer(puzzle):
    lay = puzzle.layout
    img = stack_image(lay, _result(puzzle, drop=("2",)), scale=S)
    net = next(n for n in lay.nets if n.name == "2")
    for x, y, z in net.pins:
        assert _px(img, lay, z, x, y, 0, 0) == UNROUTED_FRAME
        for other in {0, 1, 2} - {z}:
            assert _px(img, lay, other, x, y, 0, 0) != UNROUTED_FRAME
    routed = next(n for n in lay.nets if n.name == "1")
    for x, y, z in routed.pins:
        assert _px(img, lay, z, x, y, S // 2, S // 2) == PIN


def test_overlay_is_one_panel_with_layers_blended(puzzle):
    lay, res = puzzle.layout, _result(puzzle)
    img = stack_image(lay, res, scale=S, overlay=True)
    assert img.size == image_size(lay, S, overlay=True)
    assert img.width < image_size(lay, S)[0] and img.height == image_size(lay, S)[1]
    assert panel_origin(lay, 2, S, overlay=True) == panel_origin(lay, 0, S, overlay=True)
    xy = {}
    for i, net in enumerate(lay.nets):
        for x, y, z in puzzle.solution[net.name]:
            xy.setdefault((x, y), []).append((i, z))
    lone = {k: v[0] for k, v in xy.items() if len(v) == 1}
    bottom = [(k, i) for k, (i, z) in lone.items() if z == 0]
    upper = [(k, i) for k, (i, z) in lone.items() if z > 0]
    assert bottom and upper
    for (x, y), i in bottom:                                  # the bottom layer: opaque
        assert _px(img, lay, 0, x, y, 1, 1, True) == net_colour(i)
    for (x, y), i in upper:                                   # above it: blended
        want = tuple(int(round(f * (1 - OVERLAY_ALPHA) + c * OVERLAY_ALPHA))
                     for f, c in zip(FREE, net_colour(i)))
        assert _px(img, lay, 0, x, y, 1, 1, True) == want
    for x, y, _ in _vias(puzzle):
        assert _px(img, lay, 0, x, y, S // 8, S // 2, True) == VIA


def test_save_layout_png_dispatches_on_the_stack(tmp_path, puzzle):
    lay, res = puzzle.layout, _result(puzzle)
    for overlay in (False, True):
        out = save_layout_png(lay, res, tmp_path / f"{overlay}.png", overlay=overlay)
        with Image.open(out) as im:
            assert im.size == image_size(lay, overlay=overlay)
            assert im.size == image_size(lay, render.default_scale(lay, overlay),
                                         overlay=overlay)
    bare = stack_image(lay, None, scale=S, legend=False)
    assert bare.size == stack_image_size(lay, S, legend=False)
    assert bare.size[0] < stack_image_size(lay, S)[0]


def test_default_scale_keeps_many_panels_near_the_target_side():
    lay = solvable_puzzle(200, 150, 4, nets=2, seed=1).layout
    assert render.default_scale(lay) < render.cell_scale(200, 150)
    assert render.default_scale(lay, overlay=True) == render.cell_scale(200, 150)


# md5 of the one-layer grid drawn by the renderer before multi-layer pictures existed
FLAT_MD5 = {(1, True): "9b71e28ef64f4931b1ce28c9064f5556",
            (1, False): "db300bc0627e3160a00430a49f2c05e9",
            (2, True): "bb840f827e81bc787aeac9d2fcdea673",
            (3, True): "f61afdac1b1ec27b8e89dc9dc296bd8e",
            (6, True): "277b0d43aefab6c7f35fb4c250ace361",
            (24, True): "155ad4c36211eb55406934f259075aff",
            (24, False): "f86add343c580cba66ea838208c6b77b"}


@pytest.mark.parametrize("scale, routed", sorted(FLAT_MD5))
def test_one_layer_pictures_are_unchanged(scale, routed):
    lay = Layout("flat", 9, 6, rects=[(4, 0, 4, 3), (7, 5, 8, 5)],
                 nets=[Net("a", [(0, 0), (8, 0)]), Net("b", [(0, 5), (3, 2)]),
                       Net("c", [(6, 4), (8, 4)]), Net("d", [(2, 5), (6, 2)])])
    cells = {"a": [(0, 0), (0, 1), (1, 1), (2, 1), (3, 1), (3, 2), (3, 3), (3, 4), (4, 4),
                   (5, 4), (5, 3), (5, 2), (5, 1), (5, 0), (6, 0), (7, 0), (8, 0)],
             "b": [(0, 5), (0, 4), (0, 3), (0, 2), (1, 2), (2, 2), (3, 2)],
             "c": [(6, 4), (7, 4), (8, 4)]}
    nets = [NetRoute(n.name, n.pins, routed=n.name in cells,
                     order=i if n.name in cells else None, cells=cells.get(n.name, []),
                     length=len(cells.get(n.name, [])) - 1) for i, n in enumerate(lay.nets)]
    res = RouteResult(lay, nets, "hand", "file", 0.0) if routed else None
    img = render.layout_image(lay, res, scale=scale, legend=False)
    assert hashlib.md5(img.tobytes()).hexdigest() == FLAT_MD5[(scale, routed)]
    with_legend = render.layout_image(lay, res, scale=scale)
    assert with_legend.tobytes() == render.layout_image(lay, res, scale=scale,
                                                        overlay=True).tobytes()
    grid = np.asarray(with_legend)[:6 * scale, :9 * scale]
    assert np.array_equal(grid, np.asarray(img))
