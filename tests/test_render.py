"""Pictures: exact pixels of the routed layout, a valid heat map, a bounded GIF, atomic writes."""

from __future__ import annotations

import os

import numpy as np
import pytest
from matplotlib.figure import Figure
from PIL import Image

from mazeroute import render
from mazeroute.engines import UNREACHED, bfs
from mazeroute.layout import Net, parse_layout, with_nets
from mazeroute.render import (
    BLOCKED,
    FREE,
    LEGEND_BG,
    LEGEND_WIDTH,
    PIN,
    UNROUTED_PIN,
    cell_scale,
    darken,
    grid_box,
    image_size,
    layout_image,
    net_colour,
    pin_marker,
    save_layout_png,
    save_wavefront_gif,
    save_wavefront_png,
)
from mazeroute.router import Router, route

# Net "d" has a pin walled in by blockages: it stays unrouted.
LAY = parse_layout({"width": 12, "height": 8,
                    "blockages": [[5, 0, 5, 5], {"cell": [9, 7]}, [9, 3, 11, 3], [9, 4, 9, 5],
                                  [11, 4, 11, 5], [10, 5, 10, 5]],
                    "nets": [{"name": "a", "pins": [[0, 0], [11, 0]]},
                             {"name": "b", "pins": [[0, 7], [11, 6], [7, 3]]},
                             {"name": "c", "pins": [[2, 2], [2, 3]]},
                             {"name": "d", "pins": [[10, 4], [3, 6]]}]}, "r.yaml")


@pytest.fixture(scope="module")
def routed():
    res = route(LAY, backend="cpu")
    assert [n.routed for n in res.nets] == [True, True, True, False]
    return res


def _centre(x, y, scale):
    return x * scale + scale // 2, y * scale + scale // 2


def _rgb(path):
    with Image.open(path) as im:
        assert im.format == "PNG"
        return im.convert("RGB")


@pytest.mark.parametrize("scale", [1, 2, 3, 7, None])
def test_every_cell_has_the_colour_the_routes_say(tmp_path, routed, scale):
    png = save_layout_png(LAY, routed, tmp_path / "l.png", scale=scale)
    img = _rgb(png)
    s = cell_scale(LAY.width, LAY.height) if scale is None else scale
    assert img.size == image_size(LAY, scale) == (LAY.width * s + LEGEND_WIDTH, img.size[1])
    assert grid_box(LAY, scale) == (LAY.width * s, LAY.height * s)
    owner = {}
    for i, net in enumerate(routed.nets):
        owner.update({c: i for c in net.cells})
    pins = LAY.pin_owner()
    for y in range(LAY.height):
        for x in range(LAY.width):
            got, corner = img.getpixel(_centre(x, y, s)), img.getpixel((x * s, y * s))
            if (x, y) in pins:
                i = pins[(x, y)]
                if s >= 3:
                    assert got == (PIN if routed.nets[i].routed else UNROUTED_PIN)
                    assert corner == net_colour(i)
                else:
                    assert got == corner == darken(net_colour(i))
            elif (x, y) in owner:
                assert got == corner == net_colour(owner[(x, y)]), (x, y)
            elif LAY.blocked[y, x]:
                assert got == corner == BLOCKED
            else:
                assert got == corner == FREE


def test_cell_squares_are_uniform_apart_from_the_pin_mark(routed):
    s = 9
    grid = np.asarray(layout_image(LAY, routed, scale=s, legend=False))
    assert grid.shape == (LAY.height * s, LAY.width * s, 3)
    lo, hi = pin_marker(s)
    pins = LAY.pin_owner()
    for y in range(LAY.height):
        for x in range(LAY.width):
            sq = grid[y * s:(y + 1) * s, x * s:(x + 1) * s].copy()
            if (x, y) in pins:
                assert len(np.unique(sq[lo:hi, lo:hi].reshape(-1, 3), axis=0)) == 1
                sq[lo:hi, lo:hi] = sq[0, 0]
            assert len(np.unique(sq.reshape(-1, 3), axis=0)) == 1, (x, y)


def test_legend_is_right_of_the_grid_and_never_over_it(routed):
    s = 6
    with_legend = np.asarray(layout_image(LAY, routed, scale=s))
    bare = np.asarray(layout_image(LAY, routed, scale=s, legend=False))
    gw, gh = grid_box(LAY, s)
    assert bare.shape[:2] == (gh, gw)
    assert (with_legend[:gh, :gw] == bare).all()
    assert (with_legend[gh:, :gw] == LEGEND_BG).all()          # margin under a short grid
    panel = with_legend[:, gw + 1:]
    assert (panel != LEGEND_BG).any(axis=2).sum() > 200        # text and swatches drawn
    swatches = {tuple(c) for c in panel.reshape(-1, 3)}
    assert {net_colour(i) for i in range(4)} <= swatches


def test_legend_rows_are_capped_and_the_size_stays_predictable():
    nets = [Net(f"net_with_a_rather_long_name_{i:03d}",
                [(i % 8, i // 8 * 2), (i % 8, i // 8 * 2 + 1)]) for i in range(56)]
    lay = with_nets(parse_layout({"width": 8, "height": 14, "nets": []}), nets)
    img = layout_image(lay, None, scale=3)
    rows = 4 + render.LEGEND_NETS + 1               # title, summary, 2 keys, nets, "... more"
    assert img.size == image_size(lay, 3) == (24 + LEGEND_WIDTH,
                                              2 * render.LEGEND_PAD + rows * render.LEGEND_ROW)
    assert image_size(lay, 3, legend=False) == (24, 42)


def test_bare_layout_marks_every_pin(tmp_path):
    png = save_layout_png(LAY, None, tmp_path / "n.png", scale=5, legend=False)
    img = _rgb(png)
    assert img.size == grid_box(LAY, 5)
    for i, net in enumerate(LAY.nets):
        for x, y in net.pins:
            assert img.getpixel(_centre(x, y, 5)) == PIN
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
    assert not reserved & {darken(c) for c in colours}
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
    assert img.size == image_size(big) == (4096 + LEGEND_WIDTH, 4096)
    assert img.getpixel((100, 0)) == BLOCKED and img.getpixel((100, 1)) == FREE
    assert img.getpixel((0, 1)) == darken(net_colour(0))


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


def test_path_runs_join_tree_branches():
    tree = [(0, 0), (1, 0), (2, 0), (1, 1), (1, 2), (3, 0)]   # root, branch, branch, branch
    runs = render._path_runs(tree)
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
    s = frames[0].shape[0] // LAY.height
    assert frames[0].shape[:2] == (LAY.height * s, LAY.width * s) and s > 1
    painted = [int((f != (255, 255, 255)).any(axis=2).sum()) for f in frames[:-1]]
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


def test_gif_of_a_big_grid_is_reduced(tmp_path):
    lay = parse_layout({"width": 1100, "height": 600, "nets": []})
    levels = bfs(np.ones((600, 1100), bool), (0, 0), backend="cpu")
    gif = save_wavefront_gif(lay, levels, tmp_path / "big.gif", roots=[(0, 0)],
                             path_cells=[(x, 300) for x in range(1100)], max_frames=10)
    with Image.open(gif) as im:
        assert max(im.size) <= render.GIF_SIDE and im.n_frames == 10


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
