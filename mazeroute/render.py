"""Pictures: a routed layout as an exact-pixel PNG, a wavefront as a heat map or a GIF.

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
many are not shown. Its text is DejaVu Sans (shipped with Matplotlib), which covers
Latin, Greek, Cyrillic and more; a name in a script it lacks is drawn with an installed
font that has it (:data:`FALLBACK_FONTS`), or else its characters are written as
``<U+XXXX>`` codes rather than as empty boxes.

Colours: free cells :data:`FREE`, blockages :data:`BLOCKED`, net ``i``'s wire
:func:`net_colour` ``(i)``. Pins of a net are its colour too, marked so that they stand
out: when ``scale >= PIN_SCALE`` by a centred square (:func:`pin_marker`) of :data:`PIN`
(black) for a routed net or :data:`UNROUTED_PIN` (white) for a net that could not be
routed. Smaller cells leave no room for a mark, so each pin gets a badge of
:data:`MIN_PIN_PX` pixels a side centred on its cell (overlapping its neighbours): a
black outline, a ring of the net's colour and a 3 x 3 centre of the mark colour. Wires
are at least :data:`MIN_WIRE_PX` pixels wide: at one pixel a cell, a wire also paints
the free pixel right of and below each of its cells. Pins of an unrouted net are drawn
all the same.

The wavefront pictures (:func:`save_wavefront_png`, :func:`save_wavefront_gif`) show the
levels of one BFS like PMPP Fig. 15.5 (A)/(B): a viridis heat map of the levels,
blockages dark grey, cells not reached white, roots, target and chosen path on top.
They use Matplotlib's Agg canvas directly (never ``pyplot``), so no global backend is
switched and nothing needs a display.

Every file is written through :func:`mazeroute.io.atomic_path`: a failure leaves
neither a half-written picture nor a temporary file.

Examples
--------
>>> import pathlib, tempfile
>>> from PIL import Image
>>> from mazeroute.layout import parse_layout
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
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from .engines import UNREACHED
from .io import atomic_path
from .layout import Cell, Layout

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
#: Legend panel, and the margin under a grid shorter than the legend.
LEGEND_BG: RGB = (255, 255, 255)
#: Legend text.
TEXT: RGB = (0, 0, 0)
#: Wavefront pictures: wires and pins of other nets (obstacles to this one).
OTHER: RGB = (150, 150, 165)

#: Width in pixels of the legend panel right of the grid.
LEGEND_WIDTH = 240
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
_RESERVED = {FREE, BLOCKED, PIN, UNROUTED_PIN, LEGEND_BG}

# Wavefront pictures.
_CMAP = "viridis"
_WAVE_BLOCKED = "#404040"
_WAVE_UNREACHED = "#ffffff"
_WAVE_OTHER = tuple(v / 255 for v in OTHER)
_ROOT_COLOUR = "#ffffff"
_TARGET_COLOUR = "#ff00ff"
_PATH_COLOUR = "#e4002b"
#: Layouts of at most this many cells get their levels written into the cells.
ANNOTATE_CELLS = 400
#: Larger grids are reduced block-wise (lowest level per block) to about this many cells
#: a side before the heat map is drawn.
PNG_CELLS = 1024
#: Long side in pixels the GIF's grid aims at (bigger grids are reduced block-wise).
GIF_SIDE = 512
#: Height in pixels of the GIF's strip under the grid (colour bar, level counter).
GIF_BAR = 40
#: Narrowest GIF frame in pixels (room for the colour bar and the counter).
GIF_MIN_WIDTH = 240
#: Margin in pixels left and right of the GIF's colour bar.
GIF_PAD = 12


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
    :data:`PIN`, :data:`UNROUTED_PIN` or :data:`LEGEND_BG`.

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


def image_size(layout: Layout, scale: int | None = None, legend: bool = True) -> tuple[int, int]:
    """``(width_px, height_px)`` of :func:`layout_image`'s picture.

    >>> from mazeroute.layout import parse_layout
    >>> lay = parse_layout({"width": 2048, "height": 1024, "nets": []})
    >>> image_size(lay), image_size(lay, legend=False)
    ((2528, 1024), (2048, 1024))
    """
    gw, gh = grid_box(layout, scale)
    if not legend:
        return (gw, gh)
    z = _legend_zoom(gw, gh)
    return (gw + LEGEND_WIDTH * z, max(gh, _legend_height(layout, gh, z)))


# -- the layout picture ---------------------------------------------------------------------
def layout_image(layout: Layout, routes: RouteResult | None = None, *, scale: int | None = None,
                 legend: bool = True) -> Image.Image:
    """The layout (and its routes) as an RGB picture; see the module notes for colours.

    Parameters
    ----------
    layout : the layout
    routes : the routing result of that layout (nets in file order), or None for the
        bare layout with its pins
    scale : pixels per cell; default :func:`cell_scale`
    legend : add the legend panel right of the grid
    """
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
    table = np.array([FREE, BLOCKED, *colours, *colours, PIN, UNROUTED_PIN],
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
        lo, hi = pin_marker(s)
        tile = np.zeros((s, s), dtype=np.uint8)
        tile[lo:hi, lo:hi] = 1
        mark_px = np.kron(mark, tile)
        label[mark_px == 1] = 2 + 2 * n
        label[mark_px == 2] = 3 + 2 * n
    else:
        _badges(label, mark, s, n)
    grid = table[label]
    if not legend:
        return Image.fromarray(grid)
    canvas = np.empty((ih, iw, 3), dtype=np.uint8)
    canvas[...] = LEGEND_BG
    canvas[:h * s, :w * s] = grid
    img = Image.fromarray(canvas)
    _draw_legend(img, layout, routes, w * s, h * s, s)
    return img


def _badges(label: np.ndarray, mark: np.ndarray, s: int, n: int) -> None:
    """Paint each pin's :data:`MIN_PIN_PX` badge into the pixel labels (see the notes).

    Pins of unrouted nets are painted last, so that their marks are on top.
    """
    ys, xs = np.nonzero(mark)
    if not ys.size:
        return
    kind = mark[ys, xs]
    order = np.argsort(kind, kind="stable")        # routed (1) first, unrouted (2) on top
    ys, xs, kind = ys[order], xs[order], kind[order]
    net_label = label[ys * s, xs * s]               # the pin cell's label: 2 + n + i
    r = MIN_PIN_PX // 2
    d = np.arange(-r, r + 1)
    ring = np.maximum(np.abs(d)[:, None], np.abs(d)[None, :])      # 0 centre .. r outline
    hh, ww = label.shape
    # outlines and rings first, then every centre: a neighbour's badge never hides a mark
    for centres in (False, True):
        for dy_i, dy in enumerate(d):
            for dx_i, dx in enumerate(d):
                k = ring[dy_i, dx_i]
                if (k <= 1) != centres:
                    continue
                py, px = ys * s + s // 2 + dy, xs * s + s // 2 + dx
                ok = (py >= 0) & (py < hh) & (px >= 0) & (px < ww)
                if k == r:
                    value = np.full(ys.size, 2 + 2 * n)                   # black outline
                elif k <= 1:
                    value = np.where(kind == 2, 3 + 2 * n, 2 + 2 * n)     # the mark colour
                else:
                    value = net_label
                label[py[ok], px[ok]] = value[ok]


def save_layout_png(layout: Layout, routes: RouteResult | None, path: str | Path, *,
                    scale: int | None = None, legend: bool = True) -> Path:
    """Write :func:`layout_image` as a PNG, atomically; return the path."""
    img = layout_image(layout, routes, scale=scale, legend=legend)
    path = Path(path)
    with atomic_path(path) as tmp:
        img.save(tmp, format="PNG")
    return path


def _scale(layout: Layout, scale: int | None) -> int:
    if scale is None:
        return cell_scale(layout.width, layout.height)
    if int(scale) < 1:
        raise ValueError(f"scale must be >= 1 pixel per cell, got {scale}")
    return int(scale)


_HEAD = 5          # legend rows above the nets: title, two of summary, two keys


def _legend_zoom(gw: int, gh: int) -> int:
    return max(1, round(max(gw, gh) / LEGEND_STEP))


def _legend_nets(layout: Layout, gh: int, z: int) -> int:
    """How many nets the legend lists beside a grid ``gh`` pixels tall."""
    n = len(layout.nets)
    rows = (gh - 2 * LEGEND_PAD * z) // (LEGEND_ROW * z) - _HEAD
    room = max(LEGEND_NETS, rows - 1)                             # one for "... more"
    return min(n, room)


def _legend_height(layout: Layout, gh: int, z: int) -> int:
    shown = _legend_nets(layout, gh, z)
    rows = _HEAD + shown + (len(layout.nets) > shown)
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


def _fit(draw: ImageDraw.ImageDraw, text: str, width: int, font) -> str:
    """``text``, cut with '...' so that it fits ``width`` pixels."""
    if draw.textlength(text, font=font) <= width:
        return text
    lo, hi = 0, len(text)
    while lo < hi:                      # the longest prefix that fits with the ellipsis
        mid = (lo + hi + 1) // 2
        if draw.textlength(text[:mid] + "...", font=font) <= width:
            lo = mid
        else:
            hi = mid - 1
    return text[:lo] + "..."


def _text(draw: ImageDraw.ImageDraw, xy: tuple[int, int], text: str, width: int,
          size: int = LEGEND_FONT, fill: RGB = TEXT) -> None:
    text, font = _legible(text, size)
    draw.text(xy, _fit(draw, text, width, font), fill=fill, font=font)


def _draw_legend(img: Image.Image, layout: Layout, routes: RouteResult | None,
                 x0: int, gh: int, scale: int) -> None:
    """Fill the panel right of ``x0``; nothing is drawn left of it (the grid)."""
    z = _legend_zoom(x0, gh)
    pad, row, size = LEGEND_PAD * z, LEGEND_ROW * z, LEGEND_FONT * z
    draw = ImageDraw.Draw(img)
    draw.rectangle([x0, 0, x0 + z - 1, img.height - 1], fill=(200, 200, 200))
    sw = row - 4 * z                                      # swatch side
    tx = x0 + pad + sw + 6 * z                            # text after a swatch
    room = x0 + LEGEND_WIDTH * z - pad - tx
    full = LEGEND_WIDTH * z - 2 * pad
    y = pad

    def swatch(fill: RGB, inner: RGB | None = None) -> None:
        sx, sy = x0 + pad, y + z
        draw.rectangle([sx, sy, sx + sw - 1, sy + sw - 1], fill=fill, outline=(120, 120, 120),
                       width=z)
        if inner is not None:
            q = sw // 4
            draw.rectangle([sx + q, sy + q, sx + sw - 1 - q, sy + sw - 1 - q], fill=inner)

    n = len(layout.nets)
    unrouted = [] if routes is None else [i for i in range(n) if not routes.nets[i].routed]
    _text(draw, (x0 + pad, y), f"{layout.name}  {layout.width} x {layout.height}", full, size)
    y += row
    if routes is None:
        summary = [f"{n} nets, not routed", ""]
    else:
        summary = [f"{routes.routed}/{n} nets routed, {len(unrouted)} unrouted",
                   f"wirelength {routes.wirelength}"]
    for line in summary:
        _text(draw, (x0 + pad, y), line, full, size)
        y += row
    swatch(BLOCKED)
    _text(draw, (tx, y), "blockage", room, size)
    y += row
    swatch((150, 150, 150), PIN)
    _text(draw, (tx, y), "pin (white mark: net unrouted)", room, size)
    y += row
    shown = _legend_nets(layout, gh, z)
    first = set(unrouted)
    listed = (unrouted + [i for i in range(n) if i not in first])[:shown]
    for i in listed:
        swatch(net_colour(i), None if routes is None or routes.nets[i].routed else UNROUTED_PIN)
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


# -- wavefront pictures ---------------------------------------------------------------------
def _check_levels(layout: Layout, levels: np.ndarray) -> np.ndarray:
    levels = np.asarray(levels)
    if levels.shape != (layout.height, layout.width):
        raise ValueError(f"levels have shape {levels.shape}, the layout is "
                         f"{(layout.height, layout.width)} (rows, columns)")
    return levels


def _path_runs(cells: Sequence[Cell]) -> list[np.ndarray]:
    """Polylines of a path, or of a tree listed branch after branch (multi-pin nets).

    A run breaks where two listed cells are not neighbours; the new run is joined to an
    earlier listed neighbour of its first cell, where the branch meets the tree.
    """
    cells = [(int(x), int(y)) for x, y in cells]
    runs: list[list[Cell]] = []
    seen: set[Cell] = set()
    for c in cells:
        prev = runs[-1][-1] if runs else None
        if prev is not None and abs(prev[0] - c[0]) + abs(prev[1] - c[1]) == 1:
            runs[-1].append(c)
        else:
            x, y = c
            joint = next((q for q in ((x, y - 1), (x - 1, y), (x + 1, y), (x, y + 1))
                          if q in seen), None)
            runs.append([joint, c] if joint else [c])
        seen.add(c)
    return [np.asarray(r, dtype=float) for r in runs]


def save_wavefront_png(layout: Layout, levels: np.ndarray, path: str | Path, *,
                       roots: list[Cell], target: Cell | None = None,
                       path_cells: list[Cell] | None = None, title: str = "",
                       others: list[Cell] | None = None) -> Path:
    """The levels of one wavefront as a heat map, like PMPP Fig. 15.5 (A)/(B).

    Parameters
    ----------
    layout : the layout (its blockages are drawn dark grey)
    levels : ``(height, width)`` uint32 levels, ``UNREACHED`` where not reached
    path : the PNG to write (atomically)
    roots : the wavefront's level-0 cells, marked with circles
    target : a cell marked with a cross, or None
    path_cells : the chosen wire, drawn as a line on top, or None
    title : the title; by default the layout's name and the number of levels
    others : cells of other nets (their wires and pins), drawn as obstacles in
        :data:`OTHER`

    Levels are written into the cells of layouts of at most :data:`ANNOTATE_CELLS` cells.
    """
    import matplotlib
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.colors import ListedColormap, Normalize
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch
    from matplotlib.ticker import MaxNLocator
    from matplotlib.transforms import ScaledTranslation

    levels = _check_levels(layout, levels)
    h, w = levels.shape
    reached = levels != UNREACHED
    top = int(levels[reached].max()) if reached.any() else 0
    norm = Normalize(vmin=0, vmax=max(top, 1))
    cmap = matplotlib.colormaps[_CMAP].with_extremes(bad=(0, 0, 0, 0))

    side = 6.5                                                # inches of the long side
    iw, ih = (side, max(1.5, side * h / w)) if w >= h else (max(1.5, side * w / h), side)
    fig = Figure(figsize=(iw + 1.8, ih + 1.6), dpi=150)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    back, lv = _background(layout, others), levels
    k = -(-max(h, w) // PNG_CELLS)
    if k > 1:        # more cells than pixels: reduce first (Matplotlib would, more slowly)
        back, lv = _reduce(back, k, 1, np.minimum), _reduce(lv, k, UNREACHED, np.minimum)
    extent = (-0.5, w - 0.5, h - 0.5, -0.5)    # axes stay in cell coordinates
    ax.imshow(back, interpolation="nearest", vmin=0, vmax=2, extent=extent,
              cmap=ListedColormap([_WAVE_UNREACHED, _WAVE_BLOCKED, _WAVE_OTHER]))
    shown = np.ma.masked_array(lv.astype(np.float32), mask=lv == UNREACHED)
    im = ax.imshow(shown, cmap=cmap, norm=norm, interpolation="nearest", extent=extent)
    bar = fig.colorbar(im, ax=ax, fraction=0.046, pad=0.03)
    bar.set_label("BFS level (distance from root)")
    bar.locator = MaxNLocator(integer=True)
    bar.update_ticks()

    cell_pt = min(iw / w, ih / h) * 72                       # one cell, in points
    if w * h <= ANNOTATE_CELLS:
        ax.set_xticks(np.arange(-0.5, w, 1), minor=True)
        ax.set_yticks(np.arange(-0.5, h, 1), minor=True)
        ax.grid(which="minor", color="#bbbbbb", linewidth=0.5)
        ax.tick_params(which="minor", length=0)
        size = float(np.clip(cell_pt * 0.38, 5, 11))
        for y, x in zip(*np.nonzero(reached)):
            v = int(levels[y, x])
            ax.text(x, y, str(v), ha="center", va="center", fontsize=size,
                    color="white" if norm(v) < 0.6 else "black")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))

    marker = float(np.clip(cell_pt * 0.6, 6, 14))
    handles = []
    if path_cells is not None and len(path_cells):
        lw = float(np.clip(cell_pt * 0.18, 1.2, 4))
        for run in _path_runs(path_cells):
            ax.plot(run[:, 0], run[:, 1], color=_PATH_COLOUR, linewidth=lw,
                    solid_capstyle="round", zorder=3)
        handles.append(Line2D([], [], color=_PATH_COLOUR, linewidth=lw, label="path"))
    r = np.asarray(roots, dtype=float).reshape(-1, 2)
    if len(r):
        ax.plot(r[:, 0], r[:, 1], "o", markersize=marker, markerfacecolor=_ROOT_COLOUR,
                markeredgecolor="black", zorder=4, clip_on=False)
        handles.append(Line2D([], [], marker="o", linestyle="", markersize=8,
                              markerfacecolor=_ROOT_COLOUR, markeredgecolor="black",
                              label="root" if len(r) == 1 else "roots"))
    if target is not None:
        ax.plot([target[0]], [target[1]], "X", markersize=marker * 1.1,
                markerfacecolor=_TARGET_COLOUR, markeredgecolor="black", zorder=4,
                clip_on=False)
        handles.append(Line2D([], [], marker="X", linestyle="", markersize=9,
                              markerfacecolor=_TARGET_COLOUR, markeredgecolor="black",
                              label="target"))
    handles.append(Patch(facecolor=_WAVE_BLOCKED, label="blocked"))
    if others is not None and len(others):
        handles.append(Patch(facecolor=_WAVE_OTHER, label="other nets"))
    handles.append(Patch(facecolor=_WAVE_UNREACHED, edgecolor="#999999", label="not reached"))
    below = ax.transAxes + ScaledTranslation(0, -0.5, fig.dpi_scale_trans)  # under x label
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 0), bbox_transform=below,
              ncol=len(handles), fontsize=8, frameon=False, handlelength=1.5)
    ax.set_xlabel("x (column)", fontsize=9)
    ax.set_ylabel("y (row)", fontsize=9)
    ax.set_title(title or f"{layout.name}: wavefront, {top + 1} levels", fontsize=10)

    path = Path(path)
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format="png", bbox_inches="tight")
    return path


def save_wavefront_gif(layout: Layout, levels: np.ndarray, path: str | Path, *,
                       roots: list[Cell], target: Cell | None = None,
                       path_cells: list[Cell] | None = None,
                       max_frames: int = 120, others: list[Cell] | None = None) -> Path:
    """An animated GIF of the wavefront growing level by level, then the chosen path.

    Frame ``k`` shows every cell of level ``<= t_k`` in the viridis colour of its level;
    when there are more levels than frames, levels are grouped evenly (``t_k`` spread
    over ``0 .. last level``). With ``path_cells`` a last frame adds the path. At most
    ``max_frames`` frames in all. ``others`` (cells of other nets) are drawn in
    :data:`OTHER`. The grid's long side is about :data:`GIF_SIDE` pixels (up to 16
    pixels a cell); larger grids are reduced block-wise (a block shows its lowest level,
    and is an obstacle only when all its cells are). The grid is the top-left corner of
    each frame; under it a strip :data:`GIF_BAR` pixels tall holds the colour bar of the
    levels (0 to the last), a black marker at the frame's level and the counter
    ``level t / last``; frames are at least :data:`GIF_MIN_WIDTH` pixels wide.
    """
    import matplotlib

    if max_frames < 1:
        raise ValueError(f"max_frames must be >= 1, got {max_frames}")
    levels = _check_levels(layout, levels)
    h, w = levels.shape
    k = -(-max(h, w) // GIF_SIDE)                              # cells per block side
    back = _background(layout, others)       # 0 free, 1 blocked, 2 other nets
    if k > 1:
        levels = _reduce(levels, k, UNREACHED, np.minimum)
        back = _reduce(back, k, 1, np.minimum)  # free where any of its cells is free
    reached = levels != UNREACHED
    top = int(levels[reached].max()) if reached.any() else 0

    shades = 248                                   # palette: 0..247 levels, then the rest
    free_i, block_i, other_i, root_i, target_i, path_i, ink_i = range(shades, shades + 7)
    lut = matplotlib.colormaps[_CMAP](np.linspace(0, 1, shades))[:, :3]
    palette = np.zeros((256, 3), dtype=np.uint8)
    palette[:shades] = np.round(lut * 255)
    palette[free_i], palette[block_i], palette[other_i] = (255, 255, 255), (64, 64, 64), OTHER
    palette[root_i], palette[target_i], palette[path_i] = (255, 255, 255), (255, 0, 255), \
        (228, 0, 43)
    palette[ink_i] = TEXT
    shade = np.zeros(levels.shape, dtype=np.uint8)
    shade[reached] = np.round(levels[reached].astype(np.float64) / max(top, 1)
                              * (shades - 1)).astype(np.uint8)
    base = np.array([free_i, block_i, other_i], dtype=np.uint8)[back]

    has_path = path_cells is not None and len(path_cells) > 0
    count = min(top + 1, max_frames - has_path)        # 0 when the path frame is all
    steps = np.floor(np.linspace(0, top, count) + 0.5).astype(np.int64)   # distinct
    s = max(1, min(16, GIF_SIDE // max(levels.shape)))
    cells = lambda pts: (np.asarray(pts, dtype=np.int64).reshape(-1, 2) // k)  # noqa: E731
    gh, gw = levels.shape[0] * s, levels.shape[1] * s
    fw = max(gw, GIF_MIN_WIDTH)
    strip = _gif_strip(fw, top, shades, free_i, ink_i)

    def frame(t: int, with_path: bool) -> Image.Image:
        idx = base.copy()
        now = reached & (levels <= t)
        idx[now] = shade[now]
        if with_path:
            c = cells(path_cells)
            idx[c[:, 1], c[:, 0]] = path_i
        px = np.repeat(np.repeat(idx, s, axis=0), s, axis=1)
        half = max(s, 5) // 2                     # marks at least 5 px wide
        marks = [(c, root_i) for c in cells(roots)]
        if target is not None:
            marks.append((cells([target])[0], target_i))
        for (x, y), colour in marks:
            cx, cy = x * s + s // 2, y * s + s // 2
            px[max(0, cy - half):cy + half + 1, max(0, cx - half):cx + half + 1] = block_i
            px[max(0, cy - half + 1):cy + half, max(0, cx - half + 1):cx + half] = colour
        whole = np.full((gh + GIF_BAR, fw), free_i, dtype=np.uint8)
        whole[:gh, :gw] = px
        whole[gh:] = strip(t, with_path)
        img = Image.frombytes("P", (fw, gh + GIF_BAR), np.ascontiguousarray(whole))
        img.putpalette(palette.ravel().tolist())
        return img

    frames = [frame(int(t), False) for t in steps]
    if has_path:
        frames.append(frame(top, True))
    durations = [90] * (len(frames) - 1) + [2000]
    path = Path(path)
    with atomic_path(path) as tmp:
        frames[0].save(tmp, format="GIF", save_all=True, append_images=frames[1:],
                       duration=durations, loop=0)
    return path


def _gif_strip(width: int, top: int, shades: int, back: int, ink: int):
    """The GIF's strip under the grid: ``strip(t, with_path)`` gives its palette indices."""
    x0, x1 = GIF_PAD, width - GIF_PAD                     # the colour bar's columns
    bar_y, bar_h = 8, 12
    base = np.full((GIF_BAR, width), back, dtype=np.uint8)
    base[bar_y:bar_y + bar_h, x0:x1] = np.round(
        np.linspace(0, shades - 1, x1 - x0)).astype(np.uint8)[None, :]
    ink_rows = np.zeros((GIF_BAR, width), dtype=bool)
    ink_rows[bar_y - 1, x0 - 1:x1 + 1] = ink_rows[bar_y + bar_h, x0 - 1:x1 + 1] = True
    ink_rows[bar_y - 1:bar_y + bar_h + 1, [x0 - 1, x1]] = True
    base[ink_rows] = ink
    size, text_y = 12, bar_y + bar_h + 3

    def words(text: str, at: str) -> np.ndarray:
        text, font = _legible(text, size)
        mask = Image.new("L", (width, GIF_BAR), 0)
        d = ImageDraw.Draw(mask)
        wide = d.textlength(text, font=font)
        x = {"left": x0, "right": x1 - wide, "centre": (width - wide) / 2}[at]
        d.text((x, text_y), text, fill=255, font=font)
        return np.asarray(mask) > 110

    base[words("0", "left") | words(str(top), "right")] = ink

    def strip(t: int, with_path: bool) -> np.ndarray:
        out = base.copy()
        mx = x0 + int(round(t / max(top, 1) * (x1 - x0 - 1)))
        out[bar_y - 5:bar_y + bar_h + 2, max(x0, mx - 1):mx + 2] = ink      # the marker
        label = f"level {t} / {top}" + (", path" if with_path else "")
        out[words(label, "centre")] = ink
        return out

    return strip


def _background(layout: Layout, others: list[Cell] | None) -> np.ndarray:
    """Per cell: 0 free, 1 blocked, 2 a cell of another net."""
    back = layout.blocked.astype(np.uint8)
    if others is not None and len(others):
        c = np.asarray(others, dtype=np.int64).reshape(-1, 2)
        back[c[:, 1], c[:, 0]] = 2
    return back


def _reduce(a: np.ndarray, k: int, pad, op) -> np.ndarray:
    """Block-wise reduction of a 2-D array by ``k`` x ``k`` blocks (edges padded)."""
    h, w = a.shape
    # a side shorter than a block is one block as it is: padding it to k cells would
    # make a long, thin grid's copy k times its size (a 3,000,000 x 1 layout, gigabytes)
    kh, kw = min(k, h), min(k, w)
    hh, ww = -(-h // kh) * kh, -(-w // kw) * kw
    full = np.full((hh, ww), pad, dtype=a.dtype)
    full[:h, :w] = a
    blocks = full.reshape(hh // kh, kh, ww // kw, kw)
    return op.reduce(op.reduce(blocks, axis=3), axis=1)


# -- the congestion picture ------------------------------------------------------------
#: Mark of an unrouted net's pin in the congestion picture.
CONGESTION_UNROUTED: RGB = (0, 200, 255)
#: Colour map of history cost (the low end is skipped, so no shade is near BLOCKED).
_HEAT_CMAP = "inferno"


def congestion_image(result: RouteResult, *, scale: int | None = None) -> Image.Image:
    """The history cost of a negotiated route as an exact-pixel heat map.

    Cells with no history are :data:`FREE`, blockages :data:`BLOCKED`, a cell with
    history ``h`` takes the ``inferno`` colour of ``h / max(h)`` (from a quarter of the
    map up: the more often a cell was fought over, the brighter). Every pin of an
    unrouted net is marked :data:`CONGESTION_UNROUTED` (a centred square, or the whole
    cell when ``scale < 3``).

    >>> import numpy as np
    >>> from mazeroute.layout import parse_layout
    >>> from mazeroute.router import route
    >>> lay = parse_layout({"width": 3, "height": 3, "nets": [
    ...     {"name": "x", "pins": [[0, 1], [2, 1]]}, {"name": "y", "pins": [[1, 0], [1, 2]]}]})
    >>> res = route(lay, backend="cpu", mode="negotiate", max_iterations=3)
    >>> img = np.asarray(congestion_image(res, scale=4))
    >>> img.shape, tuple(img[4 + 2, 4 + 2]) == FREE        # (1, 1) was fought over
    ((12, 12, 3), False)
    >>> tuple(img[2 * 4 + 2, 1 * 4 + 2]) == CONGESTION_UNROUTED   # y's pin (1, 2)
    True
    """
    import matplotlib

    if result.history is None:
        raise ValueError("only a negotiated result (mode 'negotiate') has history costs")
    layout = result.layout
    s = _scale(layout, scale)
    hist = np.asarray(result.history, dtype=float)
    rgb = np.empty(hist.shape + (3,), np.uint8)
    rgb[...] = FREE
    hot = hist > 0
    if hot.any():
        lut = (matplotlib.colormaps[_HEAT_CMAP](np.linspace(0.25, 1.0, 256))[:, :3] * 255)
        idx = np.clip((hist[hot] / hist.max() * 255).round().astype(int), 0, 255)
        rgb[hot] = lut.round().astype(np.uint8)[idx]
    rgb[layout.blocked] = BLOCKED
    mark = np.zeros(hist.shape, bool)
    for net, r in zip(layout.nets, result.nets):
        if not r.routed:
            p = np.asarray(net.pins, dtype=np.int64).reshape(-1, 2)
            mark[p[:, 1], p[:, 0]] = True
    if s > 1:
        rgb = np.repeat(np.repeat(rgb, s, axis=0), s, axis=1)
    lo, hi = pin_marker(s)
    tile = np.zeros((s, s), bool)
    if hi > lo:
        tile[lo:hi, lo:hi] = True
    else:
        tile[...] = True
    rgb[np.kron(mark, tile).astype(bool)] = CONGESTION_UNROUTED
    return Image.fromarray(rgb)


def save_congestion_png(result: RouteResult, path: str | Path, *,
                        scale: int | None = None) -> Path:
    """Write :func:`congestion_image` as a PNG, atomically; return the path."""
    img = congestion_image(result, scale=scale)
    path = Path(path)
    with atomic_path(path) as tmp:
        img.save(tmp, format="PNG")
    return path
