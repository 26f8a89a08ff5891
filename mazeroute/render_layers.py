"""Pictures of multi-layer layouts: one panel per layer side by side, or all blended.

A layout with a stack of layers (:class:`~mazeroute.layers.Stack`) is drawn as small
multiples: one panel per layer, :data:`PANELS_PER_ROW` to a row (bottom layer first,
left to right, then the next row), each titled with the layer's index, name and
direction and drawn as the one-layer picture of :mod:`mazeroute.render` draws a grid:
that layer's blockages, each net's cells on that layer in the net's colour (the same on
every layer), the pins on that layer marked, an unrouted net's pins framed, and axes
under and right of the grid. A via (a net's step from ``(x, y, z)`` to
``(x, y, z + 1)``) is marked on both panels it joins by a ring of :data:`VIA` inside
the cell (a badge with a black outline on cells too small for one). One shared legend
is right of the panels; it adds the via key and counts the vias.

With ``overlay`` the layers share one panel: the bottom layer opaque, each layer above
blended over it at :data:`OVERLAY_ALPHA`, the pins' marks and the vias drawn on top.

Vias are counted from a route's cells, never from a stored count: consecutive cells of
a two-pin net's path that change layer, and for a tree each pair of its cells at the
same ``(x, y)`` on adjacent layers.

Examples
--------
>>> from mazeroute.generate3d import solvable_puzzle
>>> lay = solvable_puzzle(8, 6, 2, nets=3, seed=1).layout
>>> stack_image_size(lay, 10)[0] > stack_image_size(lay, 10, overlay=True)[0]
True
>>> panel_origin(lay, 1, 10)[0] > panel_origin(lay, 0, 10)[0]
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from PIL import Image, ImageDraw

from . import render as r2
from .layout import Layout, Net

if TYPE_CHECKING:
    from .router import RouteResult

#: Via marks: a ring inside the via's cell on each layer it joins.
VIA: r2.RGB = (255, 255, 255)
#: Panels in a row; more layers wrap to further rows.
PANELS_PER_ROW = 4
#: Pixels between panels, at legend zoom 1.
PANEL_GAP = 16
#: Height in pixels of a panel's title row, at legend zoom 1.
TITLE_ROW = 20
#: Opacity of each layer above the bottom one in the overlaid picture.
OVERLAY_ALPHA = 0.5
#: Arrows and letters of a layer's direction in its panel's title.
DIRECTION_MARK = {"horizontal": "H \u2194", "vertical": "V \u2195", "any": "any"}


@dataclass(frozen=True)
class _Geometry:
    """Where everything goes: ``s`` pixels a cell, legend zoom ``z``, panel grid
    ``cols`` x ``rows``, one grid ``gw`` x ``gh``, its axes ``aw``/``ah``, title ``th``,
    gap ``gap``, and the whole image ``iw`` x ``ih``."""

    s: int
    z: int
    cols: int
    rows: int
    gw: int
    gh: int
    aw: int
    ah: int
    th: int
    gap: int
    iw: int
    ih: int

    @property
    def pw(self) -> int:
        """Width in pixels of the panels together (the legend starts there)."""
        return self.cols * (self.gw + self.aw + self.gap) - self.gap

    @property
    def ph(self) -> int:
        """Height in pixels of the panels together."""
        return self.rows * (self.th + self.gh + self.ah + self.gap) - self.gap

    def origin(self, k: int) -> tuple[int, int]:
        """Top-left pixel of panel ``k``'s grid."""
        c, r = k % self.cols, k // self.cols
        return (c * (self.gw + self.aw + self.gap),
                r * (self.th + self.gh + self.ah + self.gap) + self.th)


def _panels(layout: Layout, overlay: bool) -> int:
    return 1 if overlay else len(layout.stack.layers)


def stack_scale(layout: Layout, overlay: bool = False) -> int:
    """Default pixels per cell: all panels together near :data:`~mazeroute.render.
    TARGET_SIDE` pixels on their long side (:func:`~mazeroute.render.cell_scale`)."""
    k = _panels(layout, overlay)
    cols = min(k, PANELS_PER_ROW)
    rows = -(-k // cols)
    return r2.cell_scale(layout.width * cols, layout.height * rows)


def _geometry(layout: Layout, scale: int | None, legend: bool, overlay: bool) -> _Geometry:
    s = stack_scale(layout, overlay) if scale is None else r2._scale(layout, scale)
    k = _panels(layout, overlay)
    cols = min(k, PANELS_PER_ROW)
    rows = -(-k // cols)
    gw, gh = layout.width * s, layout.height * s
    z = r2._legend_zoom(gw * cols, gh * rows)
    aw, ah = r2._axis_size(layout, z) if legend else (0, 0)
    th, gap = TITLE_ROW * z, PANEL_GAP * z
    pw, ph = cols * (gw + aw + gap) - gap, rows * (th + gh + ah + gap) - gap
    if not legend:
        return _Geometry(s, z, cols, rows, gw, gh, aw, ah, th, gap, pw, ph)
    lh = r2._legend_height(layout, ph, z, head=r2._HEAD + len(_keys(overlay)))
    return _Geometry(s, z, cols, rows, gw, gh, aw, ah, th, gap,
                     pw + r2.LEGEND_WIDTH * z, max(ph, lh))


def _keys(overlay: bool) -> tuple:
    """The legend's key rows besides the one-layer picture's: the via's, and in the
    overlay the shade of a cell blocked on some layers only."""
    via = (r2.net_colour(0), None, VIA, "via (marked on both layers it joins)")
    if not overlay:
        return (via,)
    some = tuple((f + b) // 2 for f, b in zip(r2.FREE, r2.BLOCKED))
    return (via, (some, None, None, "blocked on some layers (darker: more of them)"))


def stack_image_size(layout: Layout, scale: int | None = None, legend: bool = True,
                     overlay: bool = False) -> tuple[int, int]:
    """``(width_px, height_px)`` of :func:`stack_image`'s picture.

    Parameters
    ----------
    layout : Layout
        A layout with a stack of layers.
    scale : int, optional
        Pixels per cell; default :func:`stack_scale`.
    legend : bool
        With the legend and the axes.
    overlay : bool
        All layers in one panel.
    """
    g = _geometry(layout, scale, legend, overlay)
    return (g.iw, g.ih)


def panel_origin(layout: Layout, layer: int, scale: int | None = None, legend: bool = True,
                 overlay: bool = False) -> tuple[int, int]:
    """Top-left pixel of layer ``layer``'s grid (``overlay``: of the one panel's); cell
    ``(x, y)`` of it covers ``scale`` x ``scale`` pixels from there, as in the one-layer
    picture."""
    return _geometry(layout, scale, legend, overlay).origin(0 if overlay else layer)


def _cells3(route) -> np.ndarray:
    """A route's cells as a ``(k, 3)`` int64 array, not made into tuples on the way."""
    xy = route.__dict__.get("_xy")
    return np.asarray(route.cells if xy is None else xy, np.int64).reshape(-1, 3)


def via_cells(cells: np.ndarray, path: bool) -> np.ndarray:
    """The vias of a wire as ``(k, 3)`` rows ``x, y, z``: each joins ``z`` and ``z + 1``.

    Parameters
    ----------
    cells : (n, 3) int array
        The wire's cells ``x, y, z``.
    path : bool
        The cells are a path in order (a two-pin net): its layer changes are the vias.
        Otherwise (a tree) every two cells at one ``(x, y)`` on adjacent layers are.

    Examples
    --------
    >>> via_cells(np.array([[0, 0, 0], [1, 0, 0], [1, 0, 1], [1, 1, 1]]), True).tolist()
    [[1, 0, 0]]
    """
    c = np.asarray(cells, np.int64).reshape(-1, 3)
    if path:
        a, b = c[:-1], c[1:]
        hop = (a[:, 0] == b[:, 0]) & (a[:, 1] == b[:, 1]) & (np.abs(a[:, 2] - b[:, 2]) == 1)
        low = np.where(a[:, 2] < b[:, 2], a[:, 2], b[:, 2])
        return np.column_stack([a[hop, 0], a[hop, 1], low[hop]]).reshape(-1, 3)
    have = {tuple(v) for v in c.tolist()}
    out = [v for v in have if (v[0], v[1], v[2] + 1) in have]
    return np.array(sorted(out), np.int64).reshape(-1, 3)


def _all_vias(layout: Layout, routes: RouteResult | None) -> list[np.ndarray]:
    """Each net's vias (:func:`via_cells`); none for an unrouted net or without routes."""
    if routes is None:
        return [np.zeros((0, 3), np.int64) for _ in layout.nets]
    return [via_cells(_cells3(r), len(net.pins) <= 2) if r.routed
            else np.zeros((0, 3), np.int64) for r, net in zip(routes.nets, layout.nets)]


def _layer_grid(layout: Layout, routes: RouteResult | None, z: int, s: int) -> np.ndarray:
    """Layer ``z`` drawn as the one-layer picture draws a grid (no legend): an
    ``(H*s, W*s, 3)`` array."""
    from .router import NetRoute, RouteResult

    nets = [Net(n.name, [(p[0], p[1]) for p in n.pins if p[2] == z]) for n in layout.nets]
    flat = Layout(layout.name, layout.width, layout.height, nets=nets,
                  blocked=np.ascontiguousarray(layout.blocked[z]))
    flat_routes = None
    if routes is not None:
        out = []
        for net, rt in zip(nets, routes.nets):
            nr = NetRoute(net.name, net.pins, routed=rt.routed)
            if rt.routed:
                c = _cells3(rt)
                nr.set_cells(c[c[:, 2] == z, :2])
            out.append(nr)
        flat_routes = RouteResult(flat, out, routes.engine, routes.order, routes.seconds)
    return np.array(r2.layout_image(flat, flat_routes, scale=s, legend=False))


def _paint_vias(grid: np.ndarray, xy: np.ndarray, s: int) -> None:
    """Mark vias at cells ``xy`` (``(k, 2)`` of ``x, y``) of a grid drawn ``s`` pixels a
    cell: a ring of :data:`VIA` inside the cell, clear of the pin mark; on cells smaller
    than :data:`~mazeroute.render.PIN_SCALE` a badge (a ring inside a black outline)."""
    if not len(xy):
        return
    if s >= r2.PIN_SCALE:
        a, t = s // 8, max(1, s // 8)
        d = np.arange(s)
        dy, dx = np.meshgrid(d, d, indexing="ij")
        k = np.minimum(np.minimum(dy, dx), np.minimum(s - 1 - dy, s - 1 - dx))
        ring, edge = (k >= a) & (k < a + t), k == a - 1
        centre = 0
    else:
        r = r2.MIN_PIN_PX // 2
        d = np.arange(-r, r + 1)
        dy, dx = np.meshgrid(d, d, indexing="ij")
        k = np.maximum(np.abs(dy), np.abs(dx))
        ring, edge = k == r - 1, k == r
        centre = s // 2
    hh, ww = grid.shape[:2]
    for mask, colour in ((edge, r2.PIN), (ring, VIA)):
        oy, ox = dy[mask], dx[mask]
        py = xy[:, 1:2] * s + centre + oy[None, :]
        px = xy[:, 0:1] * s + centre + ox[None, :]
        ok = (py >= 0) & (py < hh) & (px >= 0) & (px < ww)
        grid[py[ok], px[ok]] = colour


def _title(layout: Layout, z: int | None) -> str:
    if z is None:
        names = ", ".join(f"{k}: {layer.name}" for k, layer in enumerate(layout.stack.layers))
        return f"all layers blended ({names})"
    layer = layout.stack.layers[z]
    return f"layer {z}: {layer.name}  {DIRECTION_MARK.get(layer.direction, layer.direction)}"


def _overlay(grids: list[np.ndarray]) -> np.ndarray:
    """The layers' grids blended: blockages as a grey as dark as the share of layers they
    block, then the wires, the bottom layer's opaque and each above it blended over what
    is below; every layer's pin marks on top."""
    def code(rgb) -> int:
        return (rgb[0] << 16) | (rgb[1] << 8) | rgb[2]

    # one number a pixel: the comparisons below are then one pass each
    codes = [(g[:, :, 0].astype(np.uint32) << 16) | (g[:, :, 1].astype(np.uint32) << 8)
             | g[:, :, 2] for g in grids]
    # a cell blocked on every layer reads as the one-layer picture's blockage, one
    # blocked on some as a lighter grey, and no blockage hides a wire
    share = sum((c == code(r2.BLOCKED)).astype(np.float32) for c in codes) / len(grids)
    free, blocked = np.array(r2.FREE, np.float32), np.array(r2.BLOCKED, np.float32)
    out = free + (blocked - free) * share[:, :, None]
    for z, (g, c) in enumerate(zip(grids, codes)):
        drawn = (c != code(r2.FREE)) & (c != code(r2.BLOCKED))
        if z == 0:
            out[drawn] = g[drawn]
        else:
            out[drawn] = out[drawn] * (1 - OVERLAY_ALPHA) + g[drawn] * OVERLAY_ALPHA
    out = np.rint(out).astype(np.uint8)
    marks = [code(r2.PIN), code(r2.UNROUTED_PIN), code(r2.UNROUTED_FRAME)]
    for g, c in zip(grids, codes):
        on = np.isin(c, marks)
        out[on] = g[on]
    return out


def stack_image(layout: Layout, routes: RouteResult | None = None, *,
                scale: int | None = None, legend: bool = True,
                overlay: bool = False) -> Image.Image:
    """A multi-layer layout (and its routes) as an RGB picture; see the module notes.

    Parameters
    ----------
    layout : Layout
        A layout with a stack of layers.
    routes : RouteResult, optional
        Its routing result (nets in file order, cells ``(x, y, z)``); None: the bare
        layout with its pins.
    scale : int, optional
        Pixels per cell; default :func:`stack_scale`.
    legend : bool
        Add the legend right of the panels and the axes of each.
    overlay : bool
        All layers blended in one panel.
    """
    g = _geometry(layout, scale, legend, overlay)
    if g.iw * g.ih > r2.MAX_PICTURE_PIXELS:
        raise ValueError(f"a {g.iw} x {g.ih} picture has more than the "
                         f"{r2.MAX_PICTURE_PIXELS} pixels a layout picture may have")
    n = len(layout.nets)
    if routes is not None and len(routes.nets) != n:
        raise ValueError(f"the routes hold {len(routes.nets)} nets, the layout {n}")
    depth = len(layout.stack.layers)
    vias = np.concatenate(_all_vias(layout, routes))
    grids = [_layer_grid(layout, routes, z, g.s) for z in range(depth)]
    if overlay:
        panels = [(None, _overlay(grids), vias[:, :2])]
    else:
        panels = [(z, grids[z], vias[(vias[:, 2] == z) | (vias[:, 2] == z - 1), :2])
                  for z in range(depth)]
    canvas = np.empty((g.ih, g.iw, 3), np.uint8)
    canvas[...] = r2.LEGEND_BG
    for k, (_, grid, at) in enumerate(panels):
        _paint_vias(grid, at, g.s)
        x, y = g.origin(k)
        canvas[y:y + g.gh, x:x + g.gw] = grid
    img = Image.fromarray(canvas)
    draw = ImageDraw.Draw(img)
    for k, (z, _, _) in enumerate(panels):
        x, y = g.origin(k)
        r2._text(draw, (x, y - g.th + 3 * g.z), _title(layout, z), g.gw + g.aw,
                 r2.LEGEND_FONT * g.z)
        if legend:
            _axes(img, layout, g, x, y)
    if legend:
        _legend(img, layout, routes, g, len(vias), overlay)
    return img


def _axes(img: Image.Image, layout: Layout, g: _Geometry, x: int, y: int) -> None:
    """One panel's axes, drawn as the one-layer picture draws them, at ``(x, y)``."""
    box = Image.new("RGB", (g.gw + g.aw, g.gh + g.ah), r2.LEGEND_BG)
    box.paste(img.crop((x, y, x + g.gw, y + g.gh)), (0, 0))
    r2._draw_axes(box, layout, g.s, g.z)
    img.paste(box, (x, y))


def _legend(img: Image.Image, layout: Layout, routes: RouteResult | None, g: _Geometry,
            vias: int, overlay: bool) -> None:
    depth = len(layout.stack.layers)
    title = f"{layout.name}  {layout.width} x {layout.height} x {depth} layers"
    summary = None
    if routes is not None:
        unrouted = sum(not rt.routed for rt in routes.nets)
        summary = [f"{routes.routed}/{len(layout.nets)} nets routed, {unrouted} unrouted",
                   f"wirelength {routes.wirelength}, {vias} vias"]
    keys = _keys(overlay)
    r2._draw_legend(img, layout, routes, g.pw, g.ph, g.z, title=title, summary=summary,
                    keys=keys, head=r2._HEAD + len(keys))
