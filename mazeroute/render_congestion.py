"""The congestion picture: a negotiated route's history cost as an exact-pixel heat map.

The grid is the picture's top-left corner, ``scale`` pixels a cell, as in the layout
picture (:mod:`mazeroute.render`); its axes (cell numbers) are under it and right of it,
and right of those a panel holds the title (layout, mode, iterations, nets routed), the
colour bar of the history cost with its label and scale, and the key. Every pin of an
unrouted net gets a badge of :data:`CONGESTION_UNROUTED` with a black outline, at least
:data:`~mazeroute.render.UNROUTED_PIN_PX` pixels a side and larger on larger pictures
(:func:`unrouted_badge`), so that it can be found when the whole picture is shown on a
screen. Files are written through :func:`mazeroute.io.atomic_path`.

A multi-layer layout's history (``(layers, height, width)``) is drawn a heat-map panel per
layer, laid out as the layout picture lays out its panels
(:mod:`mazeroute.render_layers`: bottom layer first, left to right, each titled with
its index, name and direction, with its axes), each with its layer's blockages and the
unrouted pins on that layer; every panel takes its colours from the largest history cost
over all layers, so the one colour bar of the panel right of them reads on each.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from PIL import Image, ImageDraw

from .io import atomic_path
from .render import (
    BLOCKED,
    FREE,
    LEGEND_BG,
    LEGEND_FONT,
    LEGEND_PAD,
    LEGEND_ROW,
    LEGEND_WIDTH,
    MAX_PICTURE_PIXELS,
    PIN,
    RGB,
    UNROUTED_PIN_PX,
    _axis_size,
    _draw_axes,
    _font,
    _legend_zoom,
    _scale,
    _text,
)

if TYPE_CHECKING:
    from .router import RouteResult

#: Mark of an unrouted net's pin in the congestion picture.
CONGESTION_UNROUTED: RGB = (0, 200, 255)
#: Colour map of history cost (the low end is skipped, so no shade is near BLOCKED).
_HEAT_CMAP = "inferno"
#: Picture pixels (long side) per pixel of an unrouted pin's badge side, past the least.
BADGE_STEP = 100
#: Rows of the panel: title (two), the bar's label, the bar, its scale, the key (three).
_PANEL_ROWS = 9


def unrouted_badge(width_px: int, height_px: int) -> int:
    """Side in pixels (odd) of an unrouted pin's badge on a grid of that many pixels.

    >>> unrouted_badge(100, 100), unrouted_badge(1200, 1200), unrouted_badge(4096, 2048)
    (11, 13, 41)
    """
    side = max(UNROUTED_PIN_PX, max(width_px, height_px) // BADGE_STEP)
    return side | 1


def congestion_image(result: RouteResult, *, scale: int | None = None,
                     legend: bool = True) -> Image.Image:
    """The history cost of a negotiated route as a picture; see the module notes.

    Cells with no history are :data:`~mazeroute.render.FREE`, blockages
    :data:`~mazeroute.render.BLOCKED`, a cell with history ``h`` takes the ``inferno``
    colour of ``h / max(h)`` (from a quarter of the map up: the more often a cell was
    fought over, the brighter). ``legend``: add the axes and the panel (title, colour
    bar, key) beside the grid.

    >>> import numpy as np
    >>> from mazeroute.readers import parse_layout
    >>> from mazeroute.router import route
    >>> lay = parse_layout({"width": 3, "height": 3, "nets": [
    ...     {"name": "x", "pins": [[0, 1], [2, 1]]}, {"name": "y", "pins": [[1, 0], [1, 2]]}]})
    >>> res = route(lay, backend="cpu", mode="negotiate", max_iterations=3)
    >>> img = np.asarray(congestion_image(res, scale=4, legend=False))
    >>> img.shape, tuple(img[4 + 2, 4 + 2]) == FREE        # (1, 1) was fought over
    ((12, 12, 3), False)
    >>> tuple(img[2 * 4 + 2, 1 * 4 + 2]) == CONGESTION_UNROUTED   # y's pin (1, 2)
    True
    """
    if result.history is None:
        raise ValueError("only a negotiated result (mode 'negotiate') has history costs")
    layout = result.layout
    if layout.stack is not None:
        return _stack_image(result, scale, legend)
    s = _scale(layout, scale)
    gw, gh = layout.width * s, layout.height * s
    z = _legend_zoom(gw, gh)
    aw, ah = _axis_size(layout, z)
    iw, ih = (gw + aw + LEGEND_WIDTH * z, max(gh + ah, _panel_height(z))) if legend \
        else (gw, gh)
    _check_size(iw, ih)
    hist = np.asarray(result.history, dtype=float)
    lut, top = _lut(), float(hist.max(initial=0.0))
    rgb = _heat(hist, layout.blocked, lut, top, s)
    pins = [p for net, r in zip(layout.nets, result.nets) if not r.routed for p in net.pins]
    _badges(rgb, pins, s, unrouted_badge(gw, gh))
    if not legend:
        return Image.fromarray(rgb)
    canvas = np.empty((ih, iw, 3), np.uint8)
    canvas[...] = LEGEND_BG
    canvas[:gh, :gw] = rgb
    img = Image.fromarray(canvas)
    _draw_axes(img, layout, s, z)
    _draw_panel(img, result, gw + aw, z, lut, top)
    return img


def _check_size(iw: int, ih: int) -> None:
    if iw * ih > MAX_PICTURE_PIXELS:
        raise ValueError(f"a {iw} x {ih} picture has more than the {MAX_PICTURE_PIXELS} "
                         "pixels a congestion picture may have")


def _lut() -> np.ndarray:
    """256 colours of the heat map, from a quarter of :data:`_HEAT_CMAP` up."""
    import matplotlib

    lut = (matplotlib.colormaps[_HEAT_CMAP](np.linspace(0.25, 1.0, 256))[:, :3] * 255)
    return lut.round().astype(np.uint8)


def _heat(hist: np.ndarray, blocked: np.ndarray, lut: np.ndarray, top: float,
          s: int) -> np.ndarray:
    """One grid's ``(H*s, W*s, 3)`` heat map: ``hist / top`` in ``lut``'s colours, no
    history :data:`FREE`, blockages :data:`BLOCKED`."""
    rgb = np.empty(hist.shape + (3,), np.uint8)
    rgb[...] = FREE
    hot = hist > 0
    if hot.any() and top > 0:
        idx = np.clip((hist[hot] / top * 255).round().astype(int), 0, 255)
        rgb[hot] = lut[idx]
    rgb[blocked] = BLOCKED
    if s > 1:
        rgb = np.repeat(np.repeat(rgb, s, axis=0), s, axis=1)
    return rgb


def _stack_image(result: RouteResult, scale: int | None, legend: bool) -> Image.Image:
    """A multi-layer layout's history: a panel per layer, one colour bar (module notes)."""
    from .render_layers import _axes, _geometry, _title

    layout = result.layout
    g = _geometry(layout, scale, legend, False)
    iw, ih = (g.pw + LEGEND_WIDTH * g.z, max(g.ph, _panel_height(g.z))) if legend \
        else (g.pw, g.ph)
    _check_size(iw, ih)
    hist = np.asarray(result.history, dtype=float)
    if hist.shape != layout.blocked.shape:
        raise ValueError(f"the history has shape {hist.shape}, the layout's stack is "
                         f"{layout.blocked.shape} (layers, rows, columns)")
    lut, top = _lut(), float(hist.max(initial=0.0))
    unrouted = [p for net, r in zip(layout.nets, result.nets) if not r.routed
                for p in net.pins]
    canvas = np.empty((ih, iw, 3), np.uint8)
    canvas[...] = LEGEND_BG
    for z in range(hist.shape[0]):
        rgb = _heat(hist[z], layout.blocked[z], lut, top, g.s)
        _badges(rgb, [p[:2] for p in unrouted if p[2] == z], g.s,
                unrouted_badge(g.gw, g.gh))
        x, y = g.origin(z)
        canvas[y:y + g.gh, x:x + g.gw] = rgb
    img = Image.fromarray(canvas)
    draw = ImageDraw.Draw(img)
    for z in range(hist.shape[0]):
        x, y = g.origin(z)
        _text(draw, (x, y - g.th + 3 * g.z), _title(layout, z), g.gw + g.aw,
              LEGEND_FONT * g.z)
        if legend:
            _axes(img, layout, g, x, y)
    if legend:
        _draw_panel(img, result, g.pw, g.z, lut, top)
    return img


def _badges(rgb: np.ndarray, pins: list, s: int, side: int) -> None:
    """Paint a badge ``side`` pixels wide (black outline, then the mark) on each pin."""
    h, w = rgb.shape[:2]
    r = side // 2
    for fill, k in ((PIN, r), (CONGESTION_UNROUTED, r - 1)):
        for x, y in pins:
            cx, cy = x * s + s // 2, y * s + s // 2
            rgb[max(0, cy - k):min(h, cy + k + 1), max(0, cx - k):min(w, cx + k + 1)] = fill


def _panel_height(z: int) -> int:
    return (2 * LEGEND_PAD + _PANEL_ROWS * LEGEND_ROW) * z


def _draw_panel(img: Image.Image, result: RouteResult, x0: int, z: int, lut: np.ndarray,
                top: float) -> None:
    """The title, the colour bar (label, bar, scale) and the key, right of ``x0``."""
    pad, row, size = LEGEND_PAD * z, LEGEND_ROW * z, LEGEND_FONT * z
    draw = ImageDraw.Draw(img)
    draw.rectangle([x0, 0, x0 + z - 1, img.height - 1], fill=(200, 200, 200))
    full = LEGEND_WIDTH * z - 2 * pad
    lay, n = result.layout, len(result.nets)
    rounds = len(result.iterations)
    depth = f" x {len(lay.stack.layers)} layers" if lay.stack is not None else ""
    lines = [f"{lay.name}  {lay.width} x {lay.height}{depth}",
             f"{result.mode}, {rounds} iteration{'s' * (rounds != 1)}, "
             f"{result.routed}/{n} nets routed",
             "history cost (overuse, in base costs)"]
    y = pad
    for line in lines:
        _text(draw, (x0 + pad, y), line, full, size)
        y += row
    bx0, bx1 = x0 + pad, x0 + pad + full                  # the colour bar's columns
    ramp = lut[np.linspace(0, 255, bx1 - bx0).round().astype(int)]
    img.paste(Image.fromarray(np.repeat(ramp[None], row - 3 * z, axis=0)), (bx0, y + z))
    draw.rectangle([bx0 - 1, y + z - 1, bx1, y + row - 2 * z], outline=(120, 120, 120))
    y += row
    for value, at in ((0.0, "left"), (top / 2, "centre"), (top, "right")):
        text = f"{value:.3g}"
        wide = draw.textlength(text, font=_font(size))
        x = {"left": bx0, "centre": (bx0 + bx1 - wide) / 2, "right": bx1 - wide}[at]
        _text(draw, (int(x), y), text, full, size)
    y += row
    sw = row - 4 * z
    tx = x0 + pad + sw + 6 * z
    unrouted = n - result.routed
    for fill, inner, words in ((FREE, None, "no history cost"), (BLOCKED, None, "blockage"),
                               (PIN, CONGESTION_UNROUTED,
                                f"pin of an unrouted net ({unrouted} net"
                                f"{'s' * (unrouted != 1)})")):
        sx, sy = x0 + pad, y + z
        draw.rectangle([sx, sy, sx + sw - 1, sy + sw - 1], fill=fill, outline=(120, 120, 120),
                       width=z)
        if inner is not None:
            draw.rectangle([sx + z, sy + z, sx + sw - 1 - z, sy + sw - 1 - z], fill=inner)
        _text(draw, (tx, y), words, x0 + LEGEND_WIDTH * z - pad - tx, size)
        y += row


def save_congestion_png(result: RouteResult, path: str | Path, *,
                        scale: int | None = None) -> Path:
    """Write :func:`congestion_image` as a PNG, atomically; return the path."""
    img = congestion_image(result, scale=scale)
    path = Path(path)
    with atomic_path(path) as tmp:
        img.save(tmp, format="PNG")
    return path
