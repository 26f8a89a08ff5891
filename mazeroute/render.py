"""Pictures: a routed layout as an exact-pixel PNG; colours and text shared by the others.

The layout picture (:func:`layout_image`, :func:`save_layout_png`) is built as a NumPy
array, so it is exact and fast even for 4096 x 4096 grids: every cell gets a label
(free, blocked, net ``i``'s wire, net ``i``'s pin), the labels index a colour table,
and each cell becomes a ``scale`` x ``scale`` square. The grid is the top-left
:func:`grid_box` of the image; cell ``(x, y)`` covers the pixels
``[x*scale, (x+1)*scale) x [y*scale, (y+1)*scale)``. The legend, when asked for, is a
panel to the right of the grid, :data:`LEGEND_WIDTH` pixels wide for grids up to about
1,500 pixels and a multiple of that (with text as much larger) for bigger ones, so that
it stays readable when the whole picture is shown on a screen; :func:`image_size`
predicts the whole image's size. It lists the nets that could not be routed first, then
as many others as fit beside the grid (at least :data:`LEGEND_NETS` rows), and says how
many are not shown; a line too long for its row is cut at a word boundary and ends in an
ellipsis (:func:`fit_words`). Between the grid and the legend, and under the grid, are
its axes: ticks and numbers of cell columns (x, under the grid) and rows (y, right of
it), so that the grid itself stays the top-left corner. Its text is DejaVu Sans (shipped
with Matplotlib), which covers Latin, Greek, Cyrillic and more; a name in a script it
lacks is drawn with an installed font that has it (:data:`FALLBACK_FONTS`), or else its
characters are written as ``<U+XXXX>`` codes rather than as empty boxes.

Colours: free cells :data:`FREE`, blockages :data:`BLOCKED`, net ``i``'s wire
:func:`net_colour` ``(i)``. Pins of a net are its colour too, marked so that they stand
out: when ``scale >= PIN_SCALE`` by a centred square (:func:`pin_marker`) of :data:`PIN`
(black) for a routed net or :data:`UNROUTED_PIN` (white) for a net that could not be
routed; a pin of an unrouted net also gets a frame of :data:`UNROUTED_FRAME` inside
its cell's edge. Smaller cells leave no room for a mark, so each pin gets a badge of
:data:`MIN_PIN_PX` pixels a side centred on its cell (overlapping its neighbours): a
black outline, a ring of the net's colour and a 3 x 3 centre of the mark colour; an
unrouted net's pin gets a badge of :data:`UNROUTED_PIN_PX` pixels, the same inside a
two-pixel frame of :data:`UNROUTED_FRAME`, so that it shows on blockages and free
cells alike. Wires are at least :data:`MIN_WIRE_PX` pixels wide: at one pixel a cell,
a wire also paints the free pixel right of and below each of its cells. Pins of an
unrouted net are drawn all the same.

The wavefront pictures live in :mod:`mazeroute.render_wavefront`, the congestion
picture in :mod:`mazeroute.render_congestion`; their names are also reachable here.

Every file is written through :func:`mazeroute.io.atomic_path`: a failure leaves
neither a half-written picture nor a temporary file.

Examples
--------
>>> import pathlib, tempfile
>>> from PIL import Image
>>> from mazeroute.readers import parse_layout
>>> from mazeroute.router import route
>>> lay = parse_layout({"width": 5, "height": 3, "blockages": [[2, 0, 2, 1]],
...                     "nets": [{"name": "a", "pins": [[0, 0], [4, 0]]}]})
>>> res = route(lay, backend="cpu")
>>> out = save_layout_png(lay, res, pathlib.Path(tempfile.mkdtemp()) / "a.png", scale=10)
>>> with Image.open(out) as im:
...     im.size == image_size(lay, 10), grid_box(lay, 10)
...     im.getpixel((2 * 10 + 5, 0 * 10 + 5)) == BLOCKED       # blocked cell (2, 0)
...     im.getpixel((1 * 10 + 5, 2 * 10 + 5)) == net_colour(0)  # wire cell (1, 2)
...     im.getpixel((0 * 10 + 5, 0 * 10 + 5)) == PIN            # pin (0, 0), marked
(True, (50, 30))
True
True
True
"""

from __future__ import annotations

import colorsys
import functools
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from .io import atomic_path
from .layout import Layout

if TYPE_CHECKING:
    from .router import RouteResult

RGB = tuple[int, int, int]

#: Free (untouched) grid cell.
FREE: RGB = (247, 247, 242)
#: Blocked grid cell.
BLOCKED: RGB = (64, 64, 64)
#: Pin mark of a routed net.
PIN: RGB = (0, 0, 0)
#: Pin mark of a net that could not be routed.
UNROUTED_PIN: RGB = (255, 255, 255)
#: Frame round the pins of a net that could not be routed: bright, so that they stand out
#: on free cells and on blockages alike (mazes are mostly both).
UNROUTED_FRAME: RGB = (255, 0, 255)
#: Legend panel, and the margin under a grid shorter than the legend.
LEGEND_BG: RGB = (255, 255, 255)
#: Legend text.
TEXT: RGB = (0, 0, 0)
#: Wavefront pictures: wires and pins of other nets (obstacles to this one).
OTHER: RGB = (150, 150, 165)

#: Width in pixels of the legend panel right of the grid.
LEGEND_WIDTH = 300
#: Height in pixels of one legend row.
LEGEND_ROW = 15
#: Legend padding in pixels.
LEGEND_PAD = 8
#: Net rows the legend has at least (more when the grid beside it is taller); the rest
#: are counted in one "... N more nets not shown" row.
LEGEND_NETS = 40
#: Grid pixels (long side) per step of the legend's size: 1x up to about 1.5 of these,
#: then 2x, 3x, ...
LEGEND_STEP = 1024
#: Legend text size in points (pixels), at 1x.
LEGEND_FONT = 11
#: Smallest cell (pixels) with room for a pin mark inside it; smaller cells get a badge.
PIN_SCALE = 6
#: Side in pixels of a pin's badge on cells smaller than :data:`PIN_SCALE`.
MIN_PIN_PX = 7
#: Side in pixels of the badge of an unrouted net's pin (its frame round the other's).
UNROUTED_PIN_PX = 11
#: Axis text size in points (pixels), at 1x.
AXIS_FONT = 10
#: Length in pixels of an axis tick, at 1x.
AXIS_TICK = 4
#: Narrowest wire in pixels.
MIN_WIRE_PX = 2
#: Fonts tried, in order, for legend text that DejaVu Sans cannot draw.
FALLBACK_FONTS = ("Noto Sans CJK SC", "Noto Sans CJK JP", "Noto Sans", "WenQuanYi Zen Hei",
                  "Droid Sans Fallback", "Arial Unicode MS", "Unifont")
#: Largest default cell size in pixels (tiny layouts).
MAX_SCALE = 24
#: Long side in pixels the default scale aims the grid at.
TARGET_SIDE = 2048
#: Most pixels a layout picture may have; a larger one is refused before drawing.
MAX_PICTURE_PIXELS = 2**27
#: Host bytes a pixel of a layout picture takes at the peak of drawing and saving it
#: (labels, the colour look-up, the canvas, the PNG encoder's copy).
PICTURE_BYTES_PER_PIXEL = 16

# tab20 without its two greys (too close to FREE and BLOCKED): strong colours first.
_PALETTE: list[RGB] = [
    (31, 119, 180), (255, 127, 14), (44, 160, 44), (214, 39, 40), (148, 103, 189),
    (140, 86, 75), (227, 119, 194), (188, 189, 34), (23, 190, 207),
    (174, 199, 232), (255, 187, 120), (152, 223, 138), (255, 152, 150), (197, 176, 213),
    (196, 156, 148), (247, 182, 210), (219, 219, 141), (158, 218, 229),
]
_RESERVED = {FREE, BLOCKED, PIN, UNROUTED_PIN, UNROUTED_FRAME, LEGEND_BG}


# -- colours and sizes --------------------------------------------------------------------
def cell_scale(width: int, height: int) -> int:
    """Default pixels per cell: the grid's long side near :data:`TARGET_SIDE` pixels.

    Tiny grids get up to :data:`MAX_SCALE` pixels a cell, grids of 2048 cells or more
    a side get 1; never less than 1.

    >>> cell_scale(5, 5), cell_scale(100, 40), cell_scale(4096, 4096)
    (24, 20, 1)
    """
    long = max(int(width), int(height), 1)
    return max(1, min(MAX_SCALE, TARGET_SIDE // long))


def net_colour(index: int) -> RGB:
    """Colour of net ``index`` (file order): tab20 without greys, then hashed HSV.

    Deterministic, saturated (never grey), and never :data:`FREE`, :data:`BLOCKED`,
    :data:`PIN`, :data:`UNROUTED_PIN`, :data:`UNROUTED_FRAME` or :data:`LEGEND_BG`.

    >>> net_colour(0), net_colour(3)
    ((31, 119, 180), (214, 39, 40))
    >>> net_colour(1000) == net_colour(1000) != net_colour(1001)
    True
    """
    if index < 0:
        raise ValueError(f"net index must be >= 0, got {index}")
    if index < len(_PALETTE):
        return _PALETTE[index]
    k = index
    while True:
        z = (k * 2654435761 + 0x9E3779B9) & 0xFFFFFFFF      # Knuth's multiplicative hash
        hue = (k * 0.6180339887498949) % 1.0                 # golden-ratio hue steps
        sat = 0.55 + 0.40 * ((z >> 8) & 0xFF) / 255
        val = 0.60 + 0.35 * ((z >> 16) & 0xFF) / 255
        rgb = tuple(int(round(c * 255)) for c in colorsys.hsv_to_rgb(hue, sat, val))
        if rgb not in _RESERVED:
            return rgb  # type: ignore[return-value]
        k += 7919                                            # never in practice


def darken(colour: RGB) -> RGB:
    """A colour at 55 % brightness (the viewer's pin cells when zoomed out).

    >>> darken((200, 100, 0))
    (110, 55, 0)
    """
    return tuple(v * 55 // 100 for v in colour)  # type: ignore[return-value]


def pin_marker(scale: int) -> tuple[int, int]:
    """Pixel span ``[lo, hi)`` of the pin mark inside a cell square, on both axes.

    A centred square about half the cell wide (at least 1 pixel), so the cell's centre
    pixel ``scale // 2`` is always marked; ``(0, 0)`` (no mark) when ``scale < 3``.

    >>> pin_marker(2), pin_marker(3), pin_marker(5), pin_marker(24)
    ((0, 0), (1, 2), (1, 4), (6, 18))
    """
    if scale < 3:
        return (0, 0)
    side = max(1, scale // 2)
    if (scale - side) % 2:
        side += 1
    lo = (scale - side) // 2
    return (lo, lo + side)


def grid_box(layout: Layout, scale: int | None = None) -> tuple[int, int]:
    """``(width_px, height_px)`` of the grid area, the image's top-left corner."""
    s = _scale(layout, scale)
    return (layout.width * s, layout.height * s)


def image_size(layout: Layout, scale: int | None = None, legend: bool = True, *,
               overlay: bool = False) -> tuple[int, int]:
    """``(width_px, height_px)`` of :func:`layout_image`'s picture (``overlay``: of a
    multi-layer layout's drawn in one panel, :mod:`mazeroute.render_layers`).

    >>> from mazeroute.readers import parse_layout
    >>> lay = parse_layout({"width": 2048, "height": 1024, "nets": []})
    >>> image_size(lay), image_size(lay, legend=False)
    ((2723, 1064), (2048, 1024))
    """
    if layout.stack is not None:
        from .render_layers import stack_image_size
        return stack_image_size(layout, scale, legend, overlay)
    gw, gh = grid_box(layout, scale)
    if not legend:
        return (gw, gh)
    z = _legend_zoom(gw, gh)
    aw, ah = _axis_size(layout, z)
    return (gw + aw + LEGEND_WIDTH * z, max(gh + ah, _legend_height(layout, gh, z)))


def _axis_size(layout: Layout, z: int) -> tuple[int, int]:
    """``(width, height)`` in pixels of the y axis right of the grid and the x axis under
    it, at legend zoom ``z``."""
    wide = _font(AXIS_FONT * z).getlength(str(max(layout.height - 1, 0)))
    return (int(round(wide)) + (AXIS_TICK + 8) * z, (AXIS_TICK + AXIS_FONT + 6) * z)


def tick_step(scale: int, gap: float) -> int:
    """Cells between labelled axis ticks: the least of 1, 2, 5, 10, 20, 50, ... that puts
    ticks at least ``gap`` pixels apart at ``scale`` pixels a cell.

    >>> tick_step(24, 40), tick_step(1, 40), tick_step(64, 40), tick_step(3, 40)
    (2, 50, 1, 20)
    """
    need = gap / max(int(scale), 1)
    base = 1
    while True:
        for f in (1, 2, 5):
            if base * f >= need:
                return base * f
        base *= 10


# -- the layout picture ---------------------------------------------------------------------
def layout_image(layout: Layout, routes: RouteResult | None = None, *, scale: int | None = None,
                 legend: bool = True, overlay: bool = False) -> Image.Image:
    """The layout (and its routes) as an RGB picture; see the module notes for colours.

    A multi-layer layout is drawn by :func:`mazeroute.render_layers.stack_image`: one
    panel per layer, or all layers blended in one with ``overlay``.

    Parameters
    ----------
    layout : the layout
    routes : the routing result of that layout (nets in file order), or None for the
        bare layout with its pins
    scale : pixels per cell; default :func:`cell_scale`
    legend : add the legend panel right of the grid
    overlay : a multi-layer layout's layers blended in one panel (no effect on one layer)
    """
    if layout.stack is not None:
        from .render_layers import stack_image
        return stack_image(layout, routes, scale=scale, legend=legend, overlay=overlay)
    s = _scale(layout, scale)
    iw, ih = image_size(layout, s, legend)
    if iw * ih > MAX_PICTURE_PIXELS:
        raise ValueError(f"a {iw} x {ih} picture has more than the {MAX_PICTURE_PIXELS} "
                         "pixels a layout picture may have")
    n = len(layout.nets)
    if routes is not None and len(routes.nets) != n:
        raise ValueError(f"the routes hold {len(routes.nets)} nets, the layout {n}")
    h, w = layout.height, layout.width
    # labels: 0 free, 1 blocked, 2 + i wire of net i, 2 + n + i pin of net i, then marks
    label = np.zeros((h, w), dtype=np.uint32)
    label[layout.blocked] = 1
    if routes is not None:
        for i, r in enumerate(routes.nets):
            if r.routed:
                c = r.cell_array()          # no tuple per cell (NetRoute.set_cells)
                label[c[:, 1], c[:, 0]] = 2 + i
    mark = np.zeros((h, w), dtype=np.uint8)        # 1: PIN mark, 2: UNROUTED_PIN mark
    for i, net in enumerate(layout.nets):
        p = np.asarray(net.pins, dtype=np.int64).reshape(-1, 2)
        label[p[:, 1], p[:, 0]] = 2 + n + i
        unrouted = routes is not None and not routes.nets[i].routed
        mark[p[:, 1], p[:, 0]] = 2 if unrouted else 1
    colours = [net_colour(i) for i in range(n)]
    table = np.array([FREE, BLOCKED, *colours, *colours, PIN, UNROUTED_PIN, UNROUTED_FRAME],
                     dtype=np.uint8).reshape(-1, 3)
    if s < MIN_WIRE_PX:                            # one pixel a cell: widen wires into free
        wire = (label >= 2) & (label < 2 + n)
        right = np.zeros_like(wire)
        right[:, 1:] = wire[:, :-1] & (label[:, 1:] == 0)
        down = np.zeros_like(wire)
        down[1:, :] = wire[:-1, :] & (label[1:, :] == 0)
        grown = label.copy()
        grown[:, 1:][right[:, 1:]] = label[:, :-1][right[:, 1:]]
        grown[1:, :][down[1:, :]] = label[:-1, :][down[1:, :]]
        label = grown
    if s > 1:
        label = np.repeat(np.repeat(label, s, axis=0), s, axis=1)
    if s >= PIN_SCALE:
        _marks(label, mark, s, n)
    else:
        _badges(label, mark, s, n)
    grid = table[label]
    if not legend:
        return Image.fromarray(grid)
    canvas = np.empty((ih, iw, 3), dtype=np.uint8)
    canvas[...] = LEGEND_BG
    canvas[:h * s, :w * s] = grid
    img = Image.fromarray(canvas)
    z = _legend_zoom(w * s, h * s)
    _draw_axes(img, layout, s, z)
    _draw_legend(img, layout, routes, w * s + _axis_size(layout, z)[0], h * s, z)
    return img


def _marks(label: np.ndarray, mark: np.ndarray, s: int, n: int) -> None:
    """Paint the pin marks of cells of :data:`PIN_SCALE` pixels or more, and the frames of
    unrouted nets' pins, into the pixel labels."""
    lo, hi = pin_marker(s)
    t = max(1, s // 8)                               # the frame, inside the cell's edge
    tile = np.zeros((s, s), dtype=np.uint8)
    tile[:t, :] = tile[-t:, :] = tile[:, :t] = tile[:, -t:] = 2
    tile[lo:hi, lo:hi] = 1
    cell = np.repeat(np.repeat(mark, s, axis=0), s, axis=1)
    where = np.tile(tile, mark.shape)
    label[(where == 1) & (cell == 1)] = 2 + 2 * n
    label[(where == 1) & (cell == 2)] = 3 + 2 * n
    label[(where == 2) & (cell == 2)] = 4 + 2 * n


def _draw_axes(img: Image.Image, layout: Layout, s: int, z: int) -> None:
    """Axis lines, ticks and cell numbers under the grid (x) and right of it (y)."""
    gw, gh = layout.width * s, layout.height * s
    aw, ah = _axis_size(layout, z)
    draw = ImageDraw.Draw(img)
    font, ink, grey = _font(AXIS_FONT * z), (90, 90, 90), (150, 150, 150)
    draw.rectangle([0, gh, gw + z - 1, gh + z - 1], fill=grey)
    draw.rectangle([gw, 0, gw + z - 1, gh + z - 1], fill=grey)
    tick = AXIS_TICK * z
    wide = font.getlength(str(max(layout.width - 1, 0)))
    for c in range(0, layout.width, tick_step(s, wide + 12 * z)):
        px = c * s + s // 2
        draw.rectangle([px, gh, px + z - 1, gh + tick], fill=ink)
        text = str(c)
        tx = min(max(0, px - font.getlength(text) / 2), gw + aw - font.getlength(text))
        draw.text((tx, gh + tick + z), text, fill=TEXT, font=font)
    for r in range(0, layout.height, tick_step(s, (AXIS_FONT + 6) * z)):
        py = r * s + s // 2
        draw.rectangle([gw, py, gw + tick, py + z - 1], fill=ink)
        ty = min(max(0, py - AXIS_FONT * z * 0.6), gh + ah - AXIS_FONT * z * 1.3)
        draw.text((gw + tick + 2 * z, ty), str(r), fill=TEXT, font=font)


def _badges(label: np.ndarray, mark: np.ndarray, s: int, n: int) -> None:
    """Paint each pin's badge into the pixel labels (see the notes): :data:`MIN_PIN_PX`
    pixels a side, :data:`UNROUTED_PIN_PX` with the frame for an unrouted net's pin.

    Pins of unrouted nets are painted last, so that their marks are on top.
    """
    ys, xs = np.nonzero(mark)
    if not ys.size:
        return
    kind = mark[ys, xs]
    order = np.argsort(kind, kind="stable")        # routed (1) first, unrouted (2) on top
    ys, xs, kind = ys[order], xs[order], kind[order]
    net_label = label[ys * s, xs * s]               # the pin cell's label: 2 + n + i
    r, big = MIN_PIN_PX // 2, UNROUTED_PIN_PX // 2
    unrouted = kind == 2
    d = np.arange(-big, big + 1)
    hh, ww = label.shape
    # outlines and rings first, then every centre: a neighbour's badge never hides a mark
    for centres in (False, True):
        for dy in d:
            for dx in d:
                k = max(abs(dy), abs(dx))             # 0 centre .. r outline .. big frame
                if (k <= 1) != centres:
                    continue
                py, px = ys * s + s // 2 + dy, xs * s + s // 2 + dx
                ok = (py >= 0) & (py < hh) & (px >= 0) & (px < ww) & (unrouted | (k <= r))
                if k > r:
                    value = np.full(ys.size, 4 + 2 * n)                   # the frame
                elif k == r:
                    value = np.full(ys.size, 2 + 2 * n)                   # black outline
                elif k <= 1:
                    value = np.where(unrouted, 3 + 2 * n, 2 + 2 * n)      # the mark colour
                else:
                    value = net_label
                label[py[ok], px[ok]] = value[ok]


def save_layout_png(layout: Layout, routes: RouteResult | None, path: str | Path, *,
                    scale: int | None = None, legend: bool = True,
                    overlay: bool = False) -> Path:
    """Write :func:`layout_image` as a PNG, atomically; return the path.

    A multi-layer layout gets a panel per layer, or one with ``overlay`` (its layers
    blended); a layout of one layer ignores ``overlay``.
    """
    img = layout_image(layout, routes, scale=scale, legend=legend, overlay=overlay)
    path = Path(path)
    with atomic_path(path) as tmp:
        img.save(tmp, format="PNG")
    return path


def default_scale(layout: Layout, overlay: bool = False) -> int:
    """Pixels per cell of a layout's picture when no scale is asked for: :func:`cell_scale`
    of its grid, or for a multi-layer layout of its panels side by side
    (:func:`mazeroute.render_layers.stack_scale`)."""
    if layout.stack is not None:
        from .render_layers import stack_scale
        return stack_scale(layout, overlay)
    return cell_scale(layout.width, layout.height)


def _scale(layout: Layout, scale: int | None) -> int:
    if scale is None:
        return cell_scale(layout.width, layout.height)
    if int(scale) < 1:
        raise ValueError(f"scale must be >= 1 pixel per cell, got {scale}")
    return int(scale)


_HEAD = 5          # legend rows above the nets: title, two of summary, two keys


def _legend_zoom(gw: int, gh: int) -> int:
    return max(1, round(max(gw, gh) / LEGEND_STEP))


def _legend_nets(layout: Layout, gh: int, z: int, head: int = _HEAD) -> int:
    """How many nets the legend lists beside a grid ``gh`` pixels tall, below ``head``
    rows."""
    n = len(layout.nets)
    rows = (gh - 2 * LEGEND_PAD * z) // (LEGEND_ROW * z) - head
    room = max(LEGEND_NETS, rows - 1)                             # one for "... more"
    return min(n, room)


def _legend_height(layout: Layout, gh: int, z: int, head: int = _HEAD) -> int:
    shown = _legend_nets(layout, gh, z, head)
    rows = head + shown + (len(layout.nets) > shown)
    return (2 * LEGEND_PAD + rows * LEGEND_ROW) * z


@functools.cache
def _fonts() -> tuple[str, ...]:
    """TrueType files for legend text: DejaVu Sans, then the installed fallbacks."""
    from matplotlib import font_manager

    paths = []
    for family in ("DejaVu Sans", *FALLBACK_FONTS):
        try:
            path = font_manager.findfont(font_manager.FontProperties(family=family),
                                         fallback_to_default=False)
        except ValueError:
            continue
        if path not in paths:
            paths.append(path)
    return tuple(paths)


@functools.cache
def _coverage(path: str) -> frozenset[int]:
    """Code points a font file has glyphs for."""
    from fontTools.ttLib import TTFont

    try:
        with TTFont(path, fontNumber=0, lazy=True) as f:
            return frozenset(f.getBestCmap() or ())
    except Exception:           # an unreadable font file: never chosen  # noqa: BLE001
        return frozenset()


@functools.cache
def _font(size: int, path: str | None = None):
    if path is not None:
        return ImageFont.truetype(path, size, index=0)
    fonts = _fonts()
    if fonts:
        return ImageFont.truetype(fonts[0], size)
    try:                                        # Pillow's own (no Matplotlib font found)
        return ImageFont.load_default(size)
    except TypeError:                           # Pillow < 10.1: one bitmap size
        return ImageFont.load_default()


def _legible(text: str, size: int):
    """``(text, font)``: the first font that has every character of ``text``, else the
    first font with each character it lacks written as ``<U+XXXX>``."""
    need = {ord(c) for c in text if not c.isspace()}
    fonts = _fonts()
    for path in fonts:
        if need <= _coverage(path):
            return text, _font(size, path)
    if not fonts:                               # Pillow's font: Latin-1 is safe
        return "".join(c if ord(c) < 256 else f"<U+{ord(c):04X}>" for c in text), _font(size)
    have = _coverage(fonts[0])
    text = "".join(c if c.isspace() or ord(c) in have else f"<U+{ord(c):04X}>" for c in text)
    return text, _font(size, fonts[0])


ELLIPSIS = "\u2026"


def fit_words(text: str, fits) -> str:
    """``text``, or its longest run of whole words that ``fits`` with :data:`ELLIPSIS`
    after it.

    ``fits(candidate)`` says whether a line fits its room. A line is cut only where a
    space is (the punctuation before it dropped), never inside a word; a first word too
    long for the room on its own is cut where it must be.

    >>> room = lambda t: len(t) <= 24
    >>> fit_words("l: UNROUTED (still in conflict with nets 3, n)", room)
    'l: UNROUTED (still in\u2026'
    >>> fit_words("short enough", room)
    'short enough'
    >>> fit_words("a_single_very_long_net_name_here", room)
    'a_single_very_long_net_\u2026'
    """
    if fits(text):
        return text
    cuts = [i for i in range(1, len(text)) if text[i] == " " and text[i - 1] != " "]
    lo, hi = 0, len(cuts)
    while lo < hi:                      # the most words that fit with the ellipsis
        mid = (lo + hi + 1) // 2
        if fits(_cut(text, cuts[mid - 1])):
            lo = mid
        else:
            hi = mid - 1
    if lo:
        return _cut(text, cuts[lo - 1])
    lo, hi = 0, len(text)               # no whole word fits: the first one, cut
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if fits(text[:mid] + ELLIPSIS):
            lo = mid
        else:
            hi = mid - 1
    return text[:lo] + ELLIPSIS


def _cut(text: str, at: int) -> str:
    return text[:at].rstrip(" ,;:(-") + ELLIPSIS


def _fit(draw: ImageDraw.ImageDraw, text: str, width: int, font) -> str:
    """``text``, cut at a word boundary with an ellipsis so that it fits ``width`` pixels."""
    return fit_words(text, lambda t: draw.textlength(t, font=font) <= width)


def _text(draw: ImageDraw.ImageDraw, xy: tuple[int, int], text: str, width: int,
          size: int = LEGEND_FONT, fill: RGB = TEXT) -> None:
    text, font = _legible(text, size)
    draw.text(xy, _fit(draw, text, width, font), fill=fill, font=font)


def _draw_legend(img: Image.Image, layout: Layout, routes: RouteResult | None,
                 x0: int, gh: int, z: int, *, title: str | None = None,
                 summary: list[str] | None = None,
                 keys: tuple[tuple[RGB, RGB | None, RGB | None, str], ...] = (),
                 head: int = _HEAD) -> None:
    """Fill the panel right of ``x0``; nothing is drawn left of it (the grid, its axes).

    ``title`` and the two ``summary`` lines replace the layout's (its name and size; the
    nets routed and the wirelength); each of ``keys``, ``(fill, inner, ring, text)``, is
    a key row after the pin's (``head`` counts every row above the nets).
    """
    pad, row, size = LEGEND_PAD * z, LEGEND_ROW * z, LEGEND_FONT * z
    draw = ImageDraw.Draw(img)
    draw.rectangle([x0, 0, x0 + z - 1, img.height - 1], fill=(200, 200, 200))
    sw = row - 4 * z                                      # swatch side
    tx = x0 + pad + sw + 6 * z                            # text after a swatch
    room = x0 + LEGEND_WIDTH * z - pad - tx
    full = LEGEND_WIDTH * z - 2 * pad
    y = pad

    def swatch(fill: RGB, inner: RGB | None = None, edge: RGB = (120, 120, 120),
               ring: RGB | None = None) -> None:
        sx, sy = x0 + pad, y + z
        draw.rectangle([sx, sy, sx + sw - 1, sy + sw - 1], fill=fill, outline=edge, width=z)
        if inner is not None:
            q = sw // 4
            draw.rectangle([sx + q, sy + q, sx + sw - 1 - q, sy + sw - 1 - q], fill=inner)
        if ring is not None:
            q = 2 * z
            draw.rectangle([sx + q, sy + q, sx + sw - 1 - q, sy + sw - 1 - q], outline=ring,
                           width=max(1, sw // 6))

    n = len(layout.nets)
    unrouted = [] if routes is None else [i for i in range(n) if not routes.nets[i].routed]
    if title is None:
        title = f"{layout.name}  {layout.width} x {layout.height}"
    _text(draw, (x0 + pad, y), title, full, size)
    y += row
    if summary is None and routes is None:
        summary = [f"{n} nets, not routed", ""]
    elif summary is None:
        summary = [f"{routes.routed}/{n} nets routed, {len(unrouted)} unrouted",
                   f"wirelength {routes.wirelength}"]
    for line in summary:
        _text(draw, (x0 + pad, y), line, full, size)
        y += row
    swatch(BLOCKED)
    _text(draw, (tx, y), "blockage", room, size)
    y += row
    swatch((150, 150, 150), PIN)
    _text(draw, (tx, y), "pin (net unrouted: white mark, magenta frame)", room, size)
    y += row
    for fill, inner, ring, text in keys:
        swatch(fill, inner, ring=ring)
        _text(draw, (tx, y), text, room, size)
        y += row
    shown = _legend_nets(layout, gh, z, head)
    first = set(unrouted)
    listed = (unrouted + [i for i in range(n) if i not in first])[:shown]
    for i in listed:
        if routes is None or routes.nets[i].routed:
            swatch(net_colour(i))
        else:
            swatch(net_colour(i), UNROUTED_PIN, UNROUTED_FRAME)
        net = layout.nets[i]
        if routes is None:
            status = f"{len(net.pins)} pins"
        elif routes.nets[i].routed:
            status = f"routed, length {routes.nets[i].length}"
        else:
            reason = getattr(routes.nets[i], "reason", None)
            status = "UNROUTED" + (f" ({reason})" if reason else "")
        _text(draw, (tx, y), f"{net.name}: {status}", room, size,
              (180, 0, 0) if routes is not None and not routes.nets[i].routed else TEXT)
        y += row
    if n > shown:
        hidden = len(unrouted) - sum(1 for i in listed if i in first)
        _text(draw, (tx, y), f"... {n - shown} more nets not shown"
              + (f" ({hidden} of them unrouted)" if hidden else ""), room, size)




# The wavefront and congestion pictures moved to modules of their own; their names are
# still found here, loaded on first use, since those modules import this one.
_MOVED = {"render_wavefront": ("ANNOTATE_CELLS", "GIF_BAR", "GIF_MIN_WIDTH", "GIF_PAD",
                               "GIF_SIDE", "PICTURE_FORMATS", "PNG_CELLS", "picture_format",
                               "save_wavefront_gif", "save_wavefront_png"),
          "render_congestion": ("CONGESTION_UNROUTED", "congestion_image",
                                "save_congestion_png")}


def __getattr__(name: str):
    for module, names in _MOVED.items():
        if name in names:
            import importlib
            return getattr(importlib.import_module(f".{module}", __package__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
