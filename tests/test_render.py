"""Pictures: exact pixels of the routed layout, pins and wires visible at any size, a legend
that lists unrouted nets first in a font that draws any script, a valid heat map, a GIF
with a level counter and a colour bar, atomic writes."""

from __future__ import annotations

import os

import numpy as np
import pytest
from matplotlib.figure import Figure
from PIL import Image

from mazeroute import render, render_wavefront
from mazeroute.engines import UNREACHED, bfs
from mazeroute.layout import Net, with_nets
from mazeroute.readers import parse_layout
from mazeroute.render import (
    BLOCKED,
    FREE,
    LEGEND_BG,
    LEGEND_WIDTH,
    MIN_PIN_PX,
    PIN,
    PIN_SCALE,
    UNROUTED_FRAME,
    UNROUTED_PIN,
    UNROUTED_PIN_PX,
    cell_scale,
    fit_words,
    grid_box,
    image_size,
    layout_image,
    net_colour,
    pin_marker,
    save_layout_png,
    tick_step,
)
from mazeroute.render_wavefront import save_wavefront_gif, save_wavefront_png
from mazeroute.router import Router, route

# Net "d" has a pin walled in by blockages: it stays unrouted.
LAY = parse_layout({"width": 12, "height": 8,
                    "blockages": [[5, 0, 5, 5], {"cell": [9, 7]}, [9, 3, 11, 3], [9, 4, 9, 5],
                                  [11, 4, 11, 5], [10, 5, 10, 5]],
                    "nets": [{"name": "a", "pins": [[0, 0], [11, 0]]},
                             {"name": "b", "pins": [[0, 7], [11, 6], [7, 3]]},
                             {"name": "c", "pins": [[2, 2], [2, 3]]},
                             {"name": "d", "pins": [[10, 4], [3, 6]]}]}, "r.yaml")


# The same nets spread over a bigger grid, so that one-pixel cells leave room between badges.
WIDE = parse_layout({"width": 48, "height": 32,
                     "blockages": [[20, 0, 20, 22], {"cell": [36, 31]}, [36, 12, 46, 12],
                                   [36, 13, 36, 22], [46, 13, 46, 22], [36, 22, 46, 22]],
                     "nets": [{"name": "a", "pins": [[0, 0], [47, 0]]},
                              {"name": "b", "pins": [[0, 31], [47, 26], [28, 12]]},
                              {"name": "c", "pins": [[8, 8], [8, 14]]},
                              {"name": "d", "pins": [[41, 17], [12, 26]]}]}, "w.yaml")


@pytest.fixture(scope="module")
def routed():
    res = route(LAY, backend="cpu", mode="sequential")
    assert [n.routed for n in res.nets] == [True, True, True, False]
    return res


def _centre(x, y, scale):
    return x * scale + scale // 2, y * scale + scale // 2


def _rgb(path):
    with Image.open(path) as im:
        assert im.format == "PNG"
        return im.convert("RGB")


def _badge_mask(shape, s, pins, unrouted=()):
    """Pixels that some pin's badge covers (none when cells have room for a mark)."""
    mask = np.zeros(shape, dtype=bool)
    if s >= PIN_SCALE:
        return mask
    for x, y in pins:
        r = (UNROUTED_PIN_PX if (x, y) in unrouted else MIN_PIN_PX) // 2
        cx, cy = x * s + s // 2, y * s + s // 2
        mask[max(0, cy - r):cy + r + 1, max(0, cx - r):cx + r + 1] = True
    return mask


def _under_badge(mask, x, y, s):
    return mask[y * s:(y + 1) * s, x * s:(x + 1) * s].any()


@pytest.mark.parametrize("wide, scale", [(True, 1), (True, 2), (False, 3), (False, 5),
                                         (False, 6), (False, 7), (False, None)])
def test_every_cell_has_the_colour_the_routes_say(tmp_path, routed, wide, scale):
    lay = WIDE if wide else LAY
    routed = route(WIDE, backend="cpu", mode="sequential") if wide else routed
    assert [n.routed for n in routed.nets] == [True, True, True, False]
    fresh = route(lay, backend="cpu", mode="sequential")
    png = save_layout_png(lay, fresh, tmp_path / "l.png", scale=scale)
    # drawn from the wires as arrays: no tuple per cell made (NetRoute.set_cells)
    assert all(n.__dict__.get("_xy") is not None for n in fresh.nets if n.routed)
    img = _rgb(png)
    s = cell_scale(lay.width, lay.height) if scale is None else scale
    aw = render._axis_size(lay, 1)[0]
    assert img.size == image_size(lay, scale) == (lay.width * s + aw + LEGEND_WIDTH,
                                                  img.size[1])
    assert grid_box(lay, scale) == (lay.width * s, lay.height * s)
    owner = {}
    for i, net in enumerate(routed.nets):
        owner.update({c: i for c in net.cells})
    pins = lay.pin_owner()
    unrouted = set(lay.nets[3].pins)
    badges = _badge_mask((lay.height * s, lay.width * s), s, pins, unrouted)
    centres = {(x * s + s // 2 + dx, y * s + s // 2 + dy): (x, y) for x, y in pins
               for dx in (-1, 0, 1) for dy in (-1, 0, 1)} if s < PIN_SCALE else {}
    checked = 0
    for y in range(lay.height):
        for x in range(lay.width):
            got, corner = img.getpixel(_centre(x, y, s)), img.getpixel((x * s, y * s))
            if (x, y) in pins:
                i = pins[(x, y)]
                mark = {PIN if routed.nets[pins[c]].routed else UNROUTED_PIN
                        for q, c in centres.items() if q == _centre(x, y, s)}
                assert got in (mark or {PIN if routed.nets[i].routed else UNROUTED_PIN})
                if s >= PIN_SCALE:
                    assert corner == (UNROUTED_FRAME if (x, y) in unrouted else net_colour(i))
                continue
            if _under_badge(badges, x, y, s):
                continue                                 # under a badge: see below
            checked += 1
            if (x, y) in owner:
                assert got == corner == net_colour(owner[(x, y)]), (x, y)
            elif lay.blocked[y, x]:
                assert got == corner == BLOCKED
            elif s == 1:                                 # a wire may widen into it
                left, up = owner.get((x - 1, y)), owner.get((x, y - 1))
                assert got in {FREE} | {net_colour(i) for i in (left, up) if i is not None}
            else:
                assert got == corner == FREE
    assert checked > lay.width * lay.height // 4


@pytest.mark.parametrize("scale", [1, 2, 3, 4, 5])
def test_small_cells_give_every_pin_a_badge(routed, scale):
    grid = np.asarray(layout_image(LAY, routed, scale=scale, legend=False)).astype(int)
    r, big = MIN_PIN_PX // 2, UNROUTED_PIN_PX // 2
    pins = LAY.pin_owner()
    centre = {(x, y): (x * scale + scale // 2, y * scale + scale // 2) for x, y in pins}
    radius = {q: r if routed.nets[i].routed else big for q, i in pins.items()}
    for (x, y), i in pins.items():
        cx, cy = centre[(x, y)]
        mark = PIN if routed.nets[i].routed else UNROUTED_PIN
        # the badge: 3 x 3 of the mark, a ring of the net's colour, a black outline, and
        # for an unrouted net's pin a frame two pixels wide round it
        for dy in range(-radius[(x, y)], radius[(x, y)] + 1):
            for dx in range(-radius[(x, y)], radius[(x, y)] + 1):
                py, px = cy + dy, cx + dx
                if not (0 <= py < grid.shape[0] and 0 <= px < grid.shape[1]):
                    continue
                k = max(abs(dx), abs(dy))
                covered = any(max(abs(px - qx), abs(py - qy)) <= (1 if k <= 1 else radius[q])
                              for q, (qx, qy) in centre.items() if q != (x, y))
                if not covered:
                    want = (UNROUTED_FRAME if k > r else PIN if k == r else mark if k <= 1
                            else net_colour(i))
                    assert tuple(grid[py, px]) == want, ((x, y), (dx, dy))
                elif k <= 1:                             # a mark is never under a ring
                    assert tuple(grid[py, px]) in (PIN, UNROUTED_PIN)


def test_one_pixel_wires_are_two_pixels_wide():
    LAY, routed = WIDE, route(WIDE, backend="cpu", mode="sequential")
    grid = np.asarray(layout_image(LAY, routed, scale=1, legend=False))
    pins = LAY.pin_owner()
    badges = _badge_mask(grid.shape[:2], 1, pins, set(LAY.nets[3].pins))
    widened = 0
    for i, net in enumerate(routed.nets):
        cells = set(net.cells)
        for x, y in cells - set(pins):
            if badges[y, x]:
                continue
            # a horizontal run is two rows thick, a vertical one two columns, unless the
            # neighbour there is taken (blockage, another net)
            for nx, ny in ((x + 1, y), (x, y + 1)):
                if nx < LAY.width and ny < LAY.height and not LAY.blocked[ny, nx] \
                        and not badges[ny, nx] and not any(
                            (nx, ny) in set(o.cells) for o in routed.nets):
                    assert tuple(grid[ny, nx]) == net_colour(i), ((x, y), (nx, ny))
                    widened += 1
    assert widened > 40
    # never over blockages (only a pin's badge, overlapping its neighbours, may be)
    assert ((grid == BLOCKED).all(axis=2) == LAY.blocked)[~badges].all()


def test_cell_squares_are_uniform_apart_from_the_pin_mark(routed):
    s = 9
    grid = np.asarray(layout_image(LAY, routed, scale=s, legend=False))
    assert grid.shape == (LAY.height * s, LAY.width * s, 3)
    lo, hi = pin_marker(s)
    pins = LAY.pin_owner()
    t = max(1, s // 8)
    for y in range(LAY.height):
        for x in range(LAY.width):
            sq = grid[y * s:(y + 1) * s, x * s:(x + 1) * s].copy()
            if (x, y) in pins:
                assert len(np.unique(sq[lo:hi, lo:hi].reshape(-1, 3), axis=0)) == 1
                if not routed.nets[pins[(x, y)]].routed:       # the frame at the cell's edge
                    edge = np.ones((s, s), bool)
                    edge[t:-t, t:-t] = False
                    assert (sq[edge] == UNROUTED_FRAME).all()
                    sq[edge] = sq[t, t]
                sq[lo:hi, lo:hi] = sq[t, t]
            assert len(np.unique(sq.reshape(-1, 3), axis=0)) == 1, (x, y)


def test_legend_is_right_of_the_grid_and_never_over_it(routed):
    s = 6
    with_legend = np.asarray(layout_image(LAY, routed, scale=s))
    bare = np.asarray(layout_image(LAY, routed, scale=s, legend=False))
    gw, gh = grid_box(LAY, s)
    assert bare.shape[:2] == (gh, gw)
    assert (with_legend[:gh, :gw] == bare).all()
    aw, ah = render._axis_size(LAY, 1)
    assert (with_legend[gh + ah:, :gw] == LEGEND_BG).all()     # margin under a short grid
    panel = with_legend[:, gw + aw + 1:]
    assert (panel != LEGEND_BG).any(axis=2).sum() > 200        # text and swatches drawn
    swatches = {tuple(c) for c in panel.reshape(-1, 3)}
    assert {net_colour(i) for i in range(4)} <= swatches


def test_legend_rows_are_capped_and_the_size_stays_predictable():
    nets = [Net(f"net_with_a_rather_long_name_{i:03d}",
                [(i % 8, i // 8 * 2), (i % 8, i // 8 * 2 + 1)]) for i in range(56)]
    lay = with_nets(parse_layout({"width": 8, "height": 14, "nets": []}), nets)
    img = layout_image(lay, None, scale=3)
    rows = 5 + render.LEGEND_NETS + 1            # title, 2 summary, 2 keys, nets, "... more"
    aw = render._axis_size(lay, 1)[0]
    assert img.size == image_size(lay, 3) == (24 + aw + LEGEND_WIDTH,
                                              2 * render.LEGEND_PAD + rows * render.LEGEND_ROW)
    assert image_size(lay, 3, legend=False) == (24, 42)


def _legend_lines(monkeypatch, lay, routes, scale):
    """The legend's lines of text, top to bottom."""
    lines = []
    real = render._text

    def spy(draw, xy, text, *a, **k):
        lines.append((xy[1], text))
        return real(draw, xy, text, *a, **k)
    monkeypatch.setattr(render, "_text", spy)
    img = layout_image(lay, routes, scale=scale)
    return img, [t for _, t in sorted(lines, key=lambda p: p[0])]


def test_legend_lists_unrouted_nets_first_and_counts_the_rest(monkeypatch):
    # 60 nets in a column of pairs; nets 50 and 57 have a pin walled in: unrouted
    nets = [Net(f"n{i:02d}", [(2 * (i % 15), 4 * (i // 15)), (2 * (i % 15), 4 * (i // 15) + 1)])
            for i in range(60)]
    nets[50] = Net("n50", [(1, 18), (3, 16)])
    nets[57] = Net("n57", [(5, 18), (29, 16)])
    lay = with_nets(parse_layout({"width": 30, "height": 20, "blockages": [
        [0, 17, 2, 17], [0, 19, 2, 19], {"cell": [0, 18]}, {"cell": [2, 18]},
        [4, 17, 6, 17], [4, 19, 6, 19], {"cell": [4, 18]}, {"cell": [6, 18]}], "nets": []}),
        nets)
    res = route(lay, backend="cpu", mode="sequential")
    assert [i for i, n in enumerate(res.nets) if not n.routed] == [50, 57]
    img, lines = _legend_lines(monkeypatch, lay, res, 2)
    shown = render.LEGEND_NETS                                      # a short grid: 40 rows
    assert lines[1:3] == ["58/60 nets routed, 2 unrouted", f"wirelength {res.wirelength}"]
    assert lines[5:7] == ["n50: UNROUTED", "n57: UNROUTED"]
    assert lines[7].startswith("n00: routed, length ")
    assert len(lines) == 5 + shown + 1
    assert lines[-1] == f"... {60 - shown} more nets not shown"
    # the rows' swatches: the unrouted nets' colours with a white centre
    a = np.asarray(img)
    gw = grid_box(lay, 2)[0] + render._axis_size(lay, 1)[0]
    sw = render.LEGEND_ROW - 4
    for row, i in ((5, 50), (6, 57), (7, 0)):
        sx, sy = gw + render.LEGEND_PAD, render.LEGEND_PAD + row * render.LEGEND_ROW + 1
        assert tuple(a[sy + 1, sx + 1]) == net_colour(i)
        centre = tuple(a[sy + sw // 2, sx + sw // 2])
        assert centre == (UNROUTED_PIN if i != 0 else net_colour(0))
    # more unrouted nets than rows: the count says how many of the hidden are unrouted
    for i in range(60):
        res.nets[i].routed = i % 3 != 0
    _, lines = _legend_lines(monkeypatch, lay, res, 2)
    assert all(t.endswith("UNROUTED") for t in lines[5:5 + 20])
    assert lines[-1] == f"... {60 - shown} more nets not shown"     # all 20 were listed
    for i in range(60):
        res.nets[i].routed = i % 4 == 0                               # 45 unrouted
    _, lines = _legend_lines(monkeypatch, lay, res, 2)
    assert all(t.endswith("UNROUTED") for t in lines[5:5 + shown])
    assert lines[-1] == f"... {60 - shown} more nets not shown ({45 - shown} of them unrouted)"


def test_legend_grows_with_the_grid(monkeypatch):
    nets = [Net(f"n{i:03d}", [(i % 50 * 2, i // 50), (i % 50 * 2 + 1, i // 50)])
            for i in range(400)]
    lay = with_nets(parse_layout({"width": 2048, "height": 2048, "nets": []}), nets)
    img, lines = _legend_lines(monkeypatch, lay, None, None)
    z = 2                                          # 2048 grid pixels: legend twice as big
    aw, ah = render._axis_size(lay, z)
    assert img.size == image_size(lay) == (2048 + aw + z * LEGEND_WIDTH, 2048 + ah)
    rows = (2048 - 2 * render.LEGEND_PAD * z) // (render.LEGEND_ROW * z)
    assert len(lines) == rows and rows - 6 > render.LEGEND_NETS
    assert lines[-1] == f"... {400 - (rows - 6)} more nets not shown"


def test_legend_font_draws_other_scripts(monkeypatch):
    def legend_of(name):
        lay = with_nets(LAY, [Net(name, [(0, 0), (1, 0)])])
        img = np.asarray(layout_image(lay, None, scale=4))
        gw = grid_box(lay, 4)[0]
        y = render.LEGEND_PAD + 5 * render.LEGEND_ROW
        return img[y:y + render.LEGEND_ROW, gw:]
    # two Cyrillic (then Greek) letters of one width: boxes would be drawn alike
    assert (legend_of("ЖЖЖ") != legend_of("ЩЩЩ")).any()
    assert (legend_of("ΣΣΣ") != legend_of("ΩΩΩ")).any()
    text, font = render._legible("Привет Ωmega", 11)
    assert text == "Привет Ωmega" and "DejaVuSans" in font.path
    # a script no installed font has: written as code points, never as empty boxes
    dejavu = render._fonts()[0]
    monkeypatch.setattr(render, "_fonts", lambda: (dejavu,))
    assert render._legible("clk_时钟", 11)[0] == "clk_<U+65F6><U+949F>"


def test_bare_layout_marks_every_pin(tmp_path):
    png = save_layout_png(LAY, None, tmp_path / "n.png", scale=5, legend=False)
    img = _rgb(png)
    assert img.size == grid_box(LAY, 5)
    for i, net in enumerate(LAY.nets):
        for x, y in net.pins:
            assert img.getpixel(_centre(x, y, 5)) == PIN
            others = _badge_mask(img.size[::-1], 5, [p for p in LAY.pin_owner() if p != (x, y)])
            if not others[y * 5, x * 5]:                  # the badge's ring, the net's colour
                assert img.getpixel((x * 5, y * 5)) == net_colour(i)


def test_scale_choice():
    assert cell_scale(4, 4) == cell_scale(1, 1) == render.MAX_SCALE == 24
    assert cell_scale(300, 20) == 6 and cell_scale(20, 300) == 6
    assert cell_scale(4096, 4096) == cell_scale(100000, 3) == 1
    for side in (1, 5, 50, 85, 86, 500, 1024, 2048):
        s = cell_scale(side, 1)
        assert s >= 1 and side * s <= 2048 and (side * (s + 1) > 2048 or s == 24)


def test_colours_are_distinct_and_never_reserved():
    colours = [net_colour(i) for i in range(300)]
    assert colours == [net_colour(i) for i in range(300)]         # deterministic
    assert len(set(colours)) == 300
    reserved = {FREE, BLOCKED, PIN, UNROUTED_PIN, LEGEND_BG}
    assert not reserved & set(colours)
    assert not reserved & {render.darken(c) for c in colours}
    assert all(max(c) - min(c) > 20 for c in colours)              # never grey
    with pytest.raises(ValueError):
        net_colour(-1)


def test_pin_mark_is_centred():
    for s in range(3, 30):
        lo, hi = pin_marker(s)
        assert 1 <= hi - lo < s and lo == s - hi and lo <= s // 2 < hi
    assert pin_marker(1) == pin_marker(2) == (0, 0)


def test_huge_layout_draws_one_pixel_per_cell():
    big = parse_layout({"width": 4096, "height": 4096, "blockages": [[0, 0, 4095, 0]],
                        "nets": [{"name": "a", "pins": [[0, 1], [4095, 4095]]}]}, "b.yaml")
    img = layout_image(big, None)
    aw, ah = render._axis_size(big, 4)
    assert img.size == image_size(big) == (4096 + aw + 4 * LEGEND_WIDTH, 4096 + ah)
    assert img.getpixel((100, 0)) == BLOCKED and img.getpixel((100, 1)) == FREE
    assert img.getpixel((0, 1)) == img.getpixel((4095, 4095)) == PIN      # badges
    assert img.getpixel((4095 - 2, 4095 - 2)) == net_colour(0)


def test_bad_arguments(routed):
    with pytest.raises(ValueError, match="scale"):
        layout_image(LAY, routed, scale=0)
    other = with_nets(LAY, LAY.nets[:2])
    with pytest.raises(ValueError, match="nets"):
        layout_image(other, routed)
    with pytest.raises(ValueError, match="shape"):
        save_wavefront_png(LAY, np.zeros((3, 3), np.uint32), "never.png", roots=[(0, 0)])


# -- wavefronts ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def wave():
    router = Router(LAY, "cpu")
    router.route_net(0)
    levels = router.full_wavefront(1)
    net = router.route_net(1)
    assert (levels != UNREACHED).sum() > 20 and net.routed
    others = LAY.nets[0].pins + LAY.nets[2].pins + LAY.nets[3].pins
    return levels, net.cells, others


def test_wavefront_png(tmp_path, wave):
    levels, cells, others = wave
    png = save_wavefront_png(LAY, levels, tmp_path / "sub" / "w.png", roots=[(0, 7)],
                             target=(11, 6), path_cells=cells, title="net b", others=others)
    img = _rgb(png)
    assert 300 < img.size[0] < 3000 and 200 < img.size[1] < 3000
    colours = np.asarray(img).reshape(-1, 3)
    assert len(np.unique(colours, axis=0)) > 50                   # a heat map, not a blank
    bare = save_wavefront_png(LAY, levels, tmp_path / "b.png", roots=[(0, 7)])
    assert _rgb(bare).size[0] > 300


def test_wavefront_png_of_a_big_grid(tmp_path):
    free = np.ones((1500, 2500), bool)
    free[200:1300, 1000] = False
    lay = parse_layout({"width": 2500, "height": 1500, "blockages": [[1000, 200, 1000, 1299]],
                        "nets": []})
    levels = bfs(free, (3, 3), backend="cpu")
    png = save_wavefront_png(lay, levels, tmp_path / "big.png", roots=[(3, 3)],
                             target=(2400, 1400), path_cells=[(3, 3), (3, 4), (3, 5)])
    assert max(_rgb(png).size) < 3000


def test_reducing_a_long_thin_grid_copies_no_more_than_the_grid():
    import tracemalloc
    a = np.arange(2 * 50_000, dtype=np.int32).reshape(2, 50_000)
    tracemalloc.start()
    try:
        small = render_wavefront._reduce(a, 500, UNREACHED, np.minimum)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 * a.nbytes                      # not a 500-row padded copy (100 MB)
    assert small.shape == (1, 100)
    assert (small == a.reshape(2, 100, 500).min(axis=(0, 2))).all()


def test_path_runs_join_tree_branches():
    tree = [(0, 0), (1, 0), (2, 0), (1, 1), (1, 2), (3, 0)]   # root, branch, branch, branch
    runs = render_wavefront._path_runs(tree)
    assert [r.tolist() for r in runs] == [[[0, 0], [1, 0], [2, 0]],
                                         [[1, 0], [1, 1], [1, 2]], [[2, 0], [3, 0]]]


def _frames(path):
    with Image.open(path) as im:
        assert im.format == "GIF"
        out = []
        for k in range(im.n_frames):
            im.seek(k)
            out.append(np.asarray(im.convert("RGB")))
        return out


def test_gif_grows_level_by_level_then_shows_the_path(tmp_path, wave):
    levels, cells, others = wave
    top = int(levels[levels != UNREACHED].max())
    gif = save_wavefront_gif(LAY, levels, tmp_path / "w.gif", roots=[(0, 7)], target=(11, 6),
                             path_cells=cells, others=others)
    frames = _frames(gif)
    assert len(frames) == top + 2                      # one per level, then the path
    s = (frames[0].shape[0] - render_wavefront.GIF_BAR) // LAY.height
    assert frames[0].shape[:2] == (LAY.height * s + render_wavefront.GIF_BAR,
                                   max(LAY.width * s, render_wavefront.GIF_MIN_WIDTH)) and s > 1
    grids = [f[:LAY.height * s, :LAY.width * s] for f in frames]
    painted = [int((f != (255, 255, 255)).any(axis=2).sum()) for f in grids[:-1]]
    assert painted == sorted(painted) and painted[0] < painted[-1]
    x, y = next(c for c in cells if c not in ((0, 7), (11, 6)))      # not under a mark
    assert tuple(frames[-1][y * s + s // 2, x * s + s // 2]) == (228, 0, 43)
    assert tuple(frames[0][y * s + s // 2, x * s + s // 2]) == (255, 255, 255)


@pytest.mark.parametrize("max_frames", [2, 5, 12])
def test_gif_frame_count_is_bounded(tmp_path, wave, max_frames):
    levels, cells, _ = wave
    gif = save_wavefront_gif(LAY, levels, tmp_path / "w.gif", roots=[(0, 7)], target=(11, 6),
                             path_cells=cells, max_frames=max_frames)
    assert 1 < len(_frames(gif)) <= max_frames
    one = save_wavefront_gif(LAY, levels, tmp_path / "1.gif", roots=[(0, 7)], path_cells=cells,
                             max_frames=1)
    assert len(_frames(one)) == 1
    plain = save_wavefront_gif(LAY, levels, tmp_path / "p.gif", roots=[(0, 7)],
                               max_frames=max_frames)
    assert 1 < len(_frames(plain)) <= max_frames
    with pytest.raises(ValueError):
        save_wavefront_gif(LAY, levels, tmp_path / "x.gif", roots=[(0, 7)], max_frames=0)


def test_gif_has_a_colour_bar_and_a_level_counter(tmp_path, wave):
    import matplotlib

    levels, cells, others = wave
    top = int(levels[levels != UNREACHED].max())
    frames = _frames(save_wavefront_gif(LAY, levels, tmp_path / "w.gif", roots=[(0, 7)],
                                        path_cells=cells, others=others))
    h = frames[0].shape[0] - render_wavefront.GIF_BAR
    strips = [f[h:].astype(int) for f in frames]
    x0, x1 = render_wavefront.GIF_PAD, frames[0].shape[1] - render_wavefront.GIF_PAD
    lut = np.round(matplotlib.colormaps["viridis"](np.linspace(0, 1, 248))[:, :3] * 255)
    # the bar runs through viridis from level 0 to the last (the marker at one end)
    assert np.abs(strips[-1][8 + 6, x0] - lut[0]).max() <= 1
    assert np.abs(strips[0][8 + 6, x1 - 1] - lut[-1]).max() <= 1
    bar = strips[len(strips) // 2][8 + 6, x0:x1]           # a row through the colour bar
    on_lut = [np.abs(lut - c).max(axis=1).min() <= 1 for c in bar]
    assert sum(on_lut) >= len(bar) - 3
    # the marker (black above the bar) moves right with the level
    marks = [int(np.nonzero((s[8 - 4] == 0).all(axis=1))[0].mean()) for s in strips[:-1]]
    assert marks == sorted(marks) and marks[0] < x0 + 3 and marks[-1] > x1 - 4
    # the counter (text under the bar) differs from frame to frame
    text = [s[8 + 12 + 2:] for s in strips[:-1]]
    assert all((a != b).any() for a, b in zip(text, text[1:]))
    assert len(frames) == top + 2


def test_gif_of_a_big_grid_is_reduced(tmp_path):
    lay = parse_layout({"width": 1100, "height": 600, "nets": []})
    levels = bfs(np.ones((600, 1100), bool), (0, 0), backend="cpu")
    gif = save_wavefront_gif(lay, levels, tmp_path / "big.gif", roots=[(0, 0)],
                             path_cells=[(x, 300) for x in range(1100)], max_frames=10)
    with Image.open(gif) as im:
        side, bar = render_wavefront.GIF_SIDE, render_wavefront.GIF_BAR
        assert im.width <= side and im.height <= side + bar
        assert im.n_frames == 10


# -- atomic writes ------------------------------------------------------------------------
def _half_written(self, fp, *args, **kwargs):
    with open(fp, "wb") as fh:
        fh.write(b"\x89PNG half")
    raise OSError("disk full")


def test_failed_save_leaves_nothing_behind(tmp_path, monkeypatch, routed, wave):
    levels, cells, _ = wave
    monkeypatch.setattr(Image.Image, "save", _half_written)
    with pytest.raises(OSError):
        save_layout_png(LAY, routed, tmp_path / "x.png")
    with pytest.raises(OSError):
        save_wavefront_gif(LAY, levels, tmp_path / "x.gif", roots=[(0, 7)], path_cells=cells)
    assert os.listdir(tmp_path) == []
    monkeypatch.setattr(Figure, "savefig", _half_written)
    with pytest.raises(OSError):
        save_wavefront_png(LAY, levels, tmp_path / "w.png", roots=[(0, 7)])
    assert os.listdir(tmp_path) == []


def test_failed_save_keeps_the_old_file(tmp_path, monkeypatch, routed):
    p = save_layout_png(LAY, routed, tmp_path / "l.png", scale=2)
    before = p.read_bytes()
    monkeypatch.setattr(Image.Image, "save", _half_written)
    with pytest.raises(OSError):
        save_layout_png(LAY, None, p, scale=4)
    assert p.read_bytes() == before and os.listdir(tmp_path) == ["l.png"]


# -- what a reader needs: whole words, visible unrouted pins, axes -------------------------
def test_legend_lines_are_cut_at_word_boundaries():
    from PIL import ImageDraw

    text = "n7: UNROUTED (still in conflict with nets 3, n, o after 5 iterations)"
    font = render._font(render.LEGEND_FONT)
    draw = ImageDraw.Draw(Image.new("RGB", (4, 4)))
    cut = 0
    for width in range(40, 420, 5):
        got = render._fit(draw, text, width, font)
        assert draw.textlength(got, font=font) <= width
        if got == text:
            continue
        cut += 1
        head = got[:-1]
        assert got.endswith(render.ELLIPSIS) and text.startswith(head)
        # the cut is where a word ends: a space (maybe after punctuation) follows
        assert text[len(head):].lstrip(",;:(-")[:1] == " ", got
    assert cut > 20
    assert fit_words("one two three", lambda t: len(t) <= 9) == "one two\u2026"
    # a first word too long for the room alone is cut where it must be, still marked
    assert fit_words("abcdefghijkl mn", lambda t: len(t) <= 6) == "abcde\u2026"


def _maze(width=41, height=31):
    """Corridors one cell wide between blocked rows with one gap each (a serpentine),
    and a net whose second pin is walled in: unrouted."""
    blockages = [[0, y, width - 2, y] if y % 4 == 1 else [1, y, width - 1, y]
                 for y in range(1, height - 1, 2)]
    lay = parse_layout({"width": width, "height": height, "blockages": blockages + [
        {"cell": [19, 14]}, {"cell": [21, 14]}],
        "nets": [{"name": "ok", "pins": [[0, 0], [40, 0]]},
                 {"name": "stuck", "pins": [[10, 6], [20, 14]]}]}, "m.yaml")
    res = route(lay, backend="cpu", mode="sequential")
    assert [n.routed for n in res.nets] == [True, False]
    return lay, res


@pytest.mark.parametrize("scale", [1, 2, 4, 8, 16])
def test_unrouted_pins_stand_out_on_a_maze(scale):
    lay, res = _maze()
    grid = np.asarray(layout_image(lay, res, scale=scale, legend=False))
    frame = (grid == UNROUTED_FRAME).all(axis=2)
    for x, y in lay.nets[1].pins:
        box = frame[max(0, y * scale - 6):(y + 1) * scale + 6,
                    max(0, x * scale - 6):(x + 1) * scale + 6]
        # the badge's frame (2 px round 7 px) or the cell's frame: a ring of pixels in
        # a colour no blockage, free cell or wire has
        floor = 4 * (UNROUTED_PIN_PX - 1) if scale < PIN_SCALE else 4 * (scale - 1)
        assert box.sum() >= floor, (scale, (x, y), int(box.sum()))
        assert tuple(grid[y * scale + scale // 2, x * scale + scale // 2]) == UNROUTED_PIN
    for x, y in lay.nets[0].pins:                   # a routed net's pins have no frame
        assert not frame[y * scale:(y + 1) * scale, x * scale:(x + 1) * scale].any()


def test_axes_number_the_cells_under_and_right_of_the_grid(monkeypatch):
    from PIL import ImageDraw

    lay, res = _maze()
    s = 8
    drawn = []
    real = ImageDraw.ImageDraw.text
    monkeypatch.setattr(ImageDraw.ImageDraw, "text", lambda self, xy, text, *a, **k: (
        drawn.append((xy, text)), real(self, xy, text, *a, **k))[1])
    img = np.asarray(layout_image(lay, res, scale=s))
    gw, gh = grid_box(lay, s)
    aw, ah = render._axis_size(lay, 1)
    step = tick_step(s, 40)
    assert step == 5
    under = img[gh + 1:gh + render.AXIS_TICK, :gw]
    ticks = np.nonzero((under == (90, 90, 90)).all(axis=2).any(axis=0))[0]
    assert list(ticks) == [c * s + s // 2 for c in range(0, lay.width, step)]
    right = img[:gh, gw + 1:gw + render.AXIS_TICK]
    rows = np.nonzero((right == (90, 90, 90)).all(axis=2).any(axis=1))[0]
    ystep = tick_step(s, render.AXIS_FONT + 6)
    assert list(rows) == [r * s + s // 2 for r in range(0, lay.height, ystep)]
    xs = [t for (x, y), t in drawn if y > gh]
    ys = [t for (x, y), t in drawn if gw < x < gw + aw]
    assert xs == [str(c) for c in range(0, lay.width, step)]
    assert ys == [str(r) for r in range(0, lay.height, ystep)]
    assert tick_step(1, 40) == 50 and tick_step(64, 40) == 1


# -- the congestion picture ---------------------------------------------------------------
def test_congestion_picture_has_a_title_a_colour_bar_and_visible_pins(monkeypatch):
    import matplotlib

    from mazeroute import render_congestion as rc
    from tests.corpus import unroutable_layout

    lay = unroutable_layout()
    res = route(lay, backend="cpu", mode="negotiate", max_iterations=5)
    unrouted = [n for n, r in zip(lay.nets, res.nets) if not r.routed]
    assert unrouted and res.history.max() > 0
    lines = []
    real = rc._text
    monkeypatch.setattr(rc, "_text", lambda draw, xy, text, *a, **k: (
        lines.append(text), real(draw, xy, text, *a, **k))[1])
    s = 20
    img = np.asarray(rc.congestion_image(res, scale=s))
    rounds = len(res.iterations)
    assert lines[0].startswith(f"{lay.name}  {lay.width} x {lay.height}")
    assert lines[1] == (f"negotiate, {rounds} iteration{'s' * (rounds != 1)}, "
                        f"{res.routed}/{len(lay.nets)} nets routed")
    assert lines[2].startswith("history cost")                     # the colour bar's label
    assert f"{res.history.max():.3g}" in lines                      # its scale's top
    assert any(t.startswith("pin of an unrouted net") for t in lines)
    gw, gh = grid_box(lay, s)
    aw = render._axis_size(lay, 1)[0]
    panel = img[:, gw + aw:]
    lut = np.round(matplotlib.colormaps["inferno"](np.linspace(0.25, 1, 256))[:, :3] * 255)
    best = max(range(panel.shape[0]), key=lambda y: len(np.unique(panel[y], axis=0)))
    bar = panel[best]
    assert len(np.unique(bar, axis=0)) >= 100                       # a strip of many colours
    on_lut = [np.abs(lut - c).max(axis=1).min() <= 1 for c in bar]
    assert sum(on_lut) >= 100
    # every unrouted pin: a badge of the mark colour, far bigger than a pixel or two
    side = rc.unrouted_badge(gw, gh)
    mark = (img[:gh, :gw] == rc.CONGESTION_UNROUTED).all(axis=2)
    for net in unrouted:
        for x, y in net.pins:
            cx, cy = x * s + s // 2, y * s + s // 2
            near = mark[max(0, cy - side):cy + side, max(0, cx - side):cx + side]
            assert near.sum() >= (side - 2) ** 2 // 2, ((x, y), int(near.sum()))


def test_congestion_badges_grow_with_the_picture():
    from mazeroute.render_congestion import unrouted_badge

    sides = [unrouted_badge(n, n) for n in (50, 1000, 2000, 4096)]
    assert sides == sorted(sides) and sides[0] == UNROUTED_PIN_PX and sides[-1] >= 40
    assert all(v % 2 == 1 for v in sides)                           # centred on the cell


# -- the GIF's counter and the picture's file type ----------------------------------------
def test_gif_counter_ends_at_the_last_level_the_search_reached(tmp_path, monkeypatch):
    lay = parse_layout({"width": 1100, "height": 600, "nets": []})
    levels = bfs(np.ones((600, 1100), bool), (0, 0), backend="cpu")
    top = int(levels[levels != UNREACHED].max())
    # reduced block-wise, the grid's highest block level is lower than the search's
    small = render_wavefront._reduce(levels, 3, UNREACHED, np.minimum)
    assert int(small[small != UNREACHED].max()) < top
    texts = []
    real = render_wavefront._legible
    monkeypatch.setattr(render_wavefront, "_legible",
                        lambda text, size: (texts.append(text), real(text, size))[1])
    save_wavefront_gif(lay, levels, tmp_path / "big.gif", roots=[(0, 0)], max_frames=10)
    counters = [t for t in texts if t.startswith("level ")]
    assert len(counters) == 10 and counters[-1] == f"level {top} / {top}"
    assert str(top) in texts                                        # the bar's right end


def _wave_layout(tmp_path):
    import yaml

    p = tmp_path / "w.yaml"
    p.write_text(yaml.safe_dump({"width": 12, "height": 8, "blockages": [[5, 0, 5, 5]],
                                 "nets": [{"name": "a", "pins": [[0, 0], [11, 0]]}]}))
    return p


@pytest.mark.parametrize("name, magic, fmt", [
    ("w.png", b"\x89PNG\r\n\x1a\n", "PNG"), ("w.jpg", b"\xff\xd8\xff", "JPEG"),
    ("W.JPEG", b"\xff\xd8\xff", "JPEG"), ("w.gif", b"GIF8", "GIF"),
    ("wave", b"\x89PNG\r\n\x1a\n", "PNG")])
def test_wavefront_picture_is_the_type_its_name_says(tmp_path, name, magic, fmt):
    from mazeroute.cli import main

    out = tmp_path / "pics" / name
    assert main(["wavefront", str(_wave_layout(tmp_path)), "-o", str(out), "--backend",
                 "cpu", "-q"]) == 0
    assert out.read_bytes()[:len(magic)] == magic
    with Image.open(out) as im:
        assert im.format == fmt and im.size[0] > 300
    assert os.listdir(out.parent) == [name]


@pytest.mark.parametrize("name", ["w.bmp", "w.jpg.txt", "w.tiff"])
def test_wavefront_refuses_a_picture_name_of_another_type(tmp_path, capsys, name):
    from mazeroute.cli import main

    out = tmp_path / name
    assert main(["wavefront", str(_wave_layout(tmp_path)), "-o", str(out), "--backend",
                 "cpu"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "-o" in err and ".png, .jpg, .jpeg or .gif" in err
    assert not out.exists() and sorted(os.listdir(tmp_path)) == ["w.yaml"]
