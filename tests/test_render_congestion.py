"""render.save_congestion_png: history as a heat map, unrouted pins marked (kept apart
from test_render.py, which another change edits)."""

from __future__ import annotations

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
