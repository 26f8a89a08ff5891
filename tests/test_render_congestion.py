"""render.save_congestion_png: history as a heat map, unrouted pins marked (kept apart
from test_render.py, which another change edits)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from mazeroute.render import BLOCKED, CONGESTION_UNROUTED, FREE, save_congestion_png
from mazeroute.render_congestion import unrouted_badge
from mazeroute.router import route
from tests.corpus import unroutable_layout


@pytest.mark.parametrize("scale", [1, 2, 5])
def test_heat_blockages_and_unrouted_pins(tmp_path, scale):
    lay = unroutable_layout()
    res = route(lay, backend="cpu", mode="negotiate", max_iterations=5)
    out = save_congestion_png(res, tmp_path / "c.png", scale=scale)
    with Image.open(out) as im:
        img = np.asarray(im.convert("RGB"))
    gw, gh = lay.width * scale, lay.height * scale
    assert img.shape[0] > gh and img.shape[1] > gw              # axes and panel beside it
    img = img[:gh, :gw]                                          # the grid: its corner
    centre = lambda x, y: tuple(img[y * scale + scale // 2, x * scale + scale // 2])  # noqa
    hot = res.history > 0
    assert hot.any()
    unrouted = {p for n, r in zip(lay.nets, res.nets) if not r.routed for p in n.pins}
    r = unrouted_badge(gw, gh) // 2                              # a badge's reach in pixels
    badge = lambda x, y: any(max(abs((x - px) * scale), abs((y - py) * scale)) <= r  # noqa
                             for px, py in unrouted)
    for y in range(lay.height):
        for x in range(lay.width):
            c = centre(x, y)
            if (x, y) in unrouted:
                assert c == CONGESTION_UNROUTED
            elif badge(x, y):
                continue                                         # under a pin's badge
            elif lay.blocked[y, x]:
                assert c == BLOCKED
            elif hot[y, x]:
                assert c not in (FREE, BLOCKED, CONGESTION_UNROUTED)
            else:
                assert c == FREE
    assert list(tmp_path.iterdir()) == [out]


def test_only_negotiated_results_have_a_congestion_picture(tmp_path):
    res = route(unroutable_layout(), backend="cpu", mode="sequential")
    with pytest.raises(ValueError, match="negotiate"):
        save_congestion_png(res, tmp_path / "c.png")
    assert not list(tmp_path.iterdir())


def test_a_stack_has_a_panel_per_layer_and_one_colour_scale(tmp_path):
    from mazeroute.readers import load_layout
    from mazeroute.render import LEGEND_BG
    from mazeroute.render_congestion import congestion_image
    from mazeroute.render_layers import panel_origin
    from mazeroute.router.layered import route_layered

    lay = load_layout(Path(__file__).resolve().parent.parent / "layouts" / "two_layers.yaml")
    res = route_layered(lay, "negotiate")
    assert res.history.shape == (2, lay.height, lay.width)
    hist = np.zeros(res.history.shape)
    hist[0, 5, 1] = hist[1, 8, 10] = 4.0          # the largest, one on each layer
    hist[1, 5, 1] = 1.0                           # the same cell, a quarter of it, on M2
    res.history = hist
    scale = 6
    out = save_congestion_png(res, tmp_path / "c.png", scale=scale)
    with Image.open(out) as im:
        img = np.asarray(im.convert("RGB"))
    panels = [panel_origin(lay, z, scale) for z in range(2)]
    assert panels[1][0] >= panels[0][0] + lay.width * scale          # side by side
    assert img.shape[1] > panels[1][0] + lay.width * scale           # the bar's panel

    def at(z, x, y):
        ox, oy = panels[z]
        return tuple(img[oy + y * scale + scale // 2, ox + x * scale + scale // 2])

    assert at(0, 1, 5) == at(1, 10, 8) not in (FREE, BLOCKED)        # one colour scale
    assert at(1, 1, 5) not in (at(0, 1, 5), FREE, BLOCKED)
    assert at(0, 10, 8) == FREE and at(1, 0, 0) == FREE
    for z in range(2):                             # each panel: its own layer's blockages
        for y in range(lay.height):
            for x in range(lay.width):
                if lay.blocked[z, y, x]:
                    assert at(z, x, y) == BLOCKED, (z, x, y)
    assert at(0, 5, 3) == BLOCKED and at(1, 5, 3) == FREE           # M1's blockage alone
    assert at(1, 3, 7) == BLOCKED and at(0, 3, 7) == FREE           # M2's
    for ox, oy in panels:                          # a title over each panel
        title = img[max(0, oy - 14):oy - 2, ox:ox + lay.width * scale]
        assert (np.abs(title.astype(int) - LEGEND_BG).sum(axis=2) > 200).any()
    assert congestion_image(res, scale=scale, legend=False).size[0] < img.shape[1]
