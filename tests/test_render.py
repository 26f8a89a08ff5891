"""Pictures: exact pixels of the routed layout, a valid heat map, a bounded GIF."""

from __future__ import annotations

import os

import numpy as np
import pytest
from PIL import Image

from mazeroute import render
from mazeroute.engines import UNREACHED
from mazeroute.layout import parse_layout
from mazeroute.render import (
    BLOCKED,
    FREE,
    PIN,
    cell_scale,
    grid_box,
    net_colour,
    save_layout_png,
    save_wavefront_gif,
    save_wavefront_png,
)
from mazeroute.router import Router, route

LAY = parse_layout({"width": 12, "height": 8, "blockages": [[5, 0, 5, 5], {"cell": [9, 7]}],
                    "nets": [{"name": "a", "pins": [[0, 0], [11, 0]]},
                             {"name": "b", "pins": [[0, 7], [11, 6], [7, 3]]},
                             {"name": "c", "pins": [[2, 2], [2, 3]]}]}, "r.yaml")


def _centre(x, y, scale):
    return x * scale + scale // 2, y * scale + scale // 2


@pytest.mark.parametrize("scale", [1, 2, 7])
def test_wire_pixels_sit_where_the_routes_say(tmp_path, scale):
    res = route(LAY, backend="cpu")
    png = save_layout_png(LAY, res, tmp_path / "l.png", scale=scale)
    with Image.open(png) as im:
        img = im.convert("RGB")
        gw, gh = grid_box(LAY, scale)
        assert img.size[1] >= gh and img.size[0] > gw       # legend to the right
        pins = {p for n in LAY.nets for p in n.pins}
        on_wire = set()
        for i, net in enumerate(res.nets):
            assert net.routed
            for x, y in net.cells:
                on_wire.add((x, y))
                px = img.getpixel(_centre(x, y, scale))
                if (x, y) in pins and scale >= 3:
                    assert px == PIN
                    assert img.getpixel((x * scale, y * scale)) == net_colour(i)
                else:
                    assert px == net_colour(i), (net.name, x, y)
        for y in range(LAY.height):
            for x in range(LAY.width):
                if LAY.blocked[y, x]:
                    assert img.getpixel(_centre(x, y, scale)) == BLOCKED
                elif (x, y) not in on_wire:
                    assert img.getpixel(_centre(x, y, scale)) == FREE
        # the legend never paints into the grid area: its first column past the grid is blank
        assert all(img.getpixel((gw + 2, y)) == (255, 255, 255) for y in range(img.size[1]))


def test_unrouted_pins_are_still_marked_and_legend_optional(tmp_path):
    res = route(LAY, backend="cpu")
    png = save_layout_png(LAY, None, tmp_path / "n.png", scale=5, legend=False)
    with Image.open(png) as im:
        assert im.size == grid_box(LAY, 5)
        img = im.convert("RGB")
        for i, net in enumerate(LAY.nets):
            for x, y in net.pins:
                assert img.getpixel(_centre(x, y, 5)) == PIN
                assert img.getpixel((x * 5, y * 5)) == net_colour(i)
    assert res.routed == 3


def test_scale_and_colours():
    assert cell_scale(4, 4) == 24 and cell_scale(4096, 4096) == 1 and cell_scale(300, 20) == 6
    colours = [net_colour(i) for i in range(300)]
    assert len(set(colours)) == 300
    assert not {FREE, BLOCKED, PIN} & set(colours)


def test_big_layout_draws_one_pixel_per_cell():
    big = parse_layout({"width": 4096, "height": 3000, "blockages": [[0, 0, 4095, 0]],
                        "nets": [{"name": "a", "pins": [[0, 1], [4095, 2999]]}]}, "b.yaml")
    img = render.layout_image(big, None, legend=False)
    assert img.size == (4096, 3000) and img.getpixel((100, 0)) == BLOCKED


def test_wavefront_png_and_gif(tmp_path):
    router = Router(LAY, "cpu")
    levels = router.full_wavefront(1)
    assert (levels != UNREACHED).sum() > 20
    path = router.route_net(1).cells
    png = save_wavefront_png(LAY, levels, tmp_path / "w.png", roots=[(0, 7)],
                             target=(11, 6), path_cells=path, title="t", others=[(0, 0)])
    with Image.open(png) as im:
        assert im.format == "PNG" and im.size[0] > 300 and im.size[1] > 200
    gif = save_wavefront_gif(LAY, levels, tmp_path / "w.gif", roots=[(0, 7)], target=(11, 6),
                             path_cells=path, max_frames=5)
    with Image.open(gif) as im:
        assert 1 < im.n_frames <= 5
    full = save_wavefront_gif(LAY, levels, tmp_path / "f.gif", roots=[(0, 7)])
    with Image.open(full) as im:            # one frame per level, plus the final picture
        assert im.n_frames == int(levels[levels != UNREACHED].max()) + 2


def test_failed_save_leaves_nothing_behind(tmp_path, monkeypatch):
    def broken(self, fp, *a, **k):
        with open(fp, "wb") as fh:
            fh.write(b"\x89PNG half")
        raise OSError("disk full")
    monkeypatch.setattr(Image.Image, "save", broken)
    with pytest.raises(OSError):
        save_layout_png(LAY, None, tmp_path / "x.png")
    assert os.listdir(tmp_path) == []
    levels = np.zeros((LAY.height, LAY.width), np.uint32)
    with pytest.raises(OSError):
        save_wavefront_gif(LAY, levels, tmp_path / "x.gif", roots=[(0, 0)])
    assert os.listdir(tmp_path) == []
