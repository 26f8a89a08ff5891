"""Pictures: the routed layout (exact pixels) and a net's wavefront (heat map, GIF).

The layout picture is built as a NumPy array, one ``scale x scale`` square per cell,
so a 4096 x 4096 layout draws in well under a second and a test can find every wire
pixel where ``routes.json`` says it is: cell ``(x, y)`` covers pixels
``[x*scale, (x+1)*scale) x [y*scale, (y+1)*scale)`` in the top-left grid area; the
legend sits to the right of it. The wavefront picture follows PMPP Fig. 15.5 (A)/(B):
levels as a heat map with a colour bar, root and target marked, the path on top.

Examples
--------
>>> import tempfile, pathlib
>>> from PIL import Image
>>> from mazeroute.layout import parse_layout
>>> from mazeroute.router import route
>>> lay = parse_layout({"width": 6, "height": 4,
...                     "nets": [{"name": "a", "pins": [[0, 0], [5, 3]]}]})
>>> png = save_layout_png(lay, route(lay, backend="cpu"),
...                       pathlib.Path(tempfile.mkdtemp()) / "a.png", scale=10)
>>> im = Image.open(png).convert("RGB")
>>> im.getpixel((15, 5)) == net_colour(0)       # cell (1, 0) lies on net a's wire
True
"""

from __future__ import annotations

import colorsys
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from .engines import UNREACHED
from .io import atomic_path
from .layout import Cell, Layout
from .router import RouteResult

#: Colour of a free cell, a blocked cell, the mark on a pin, and the legend's text.
FREE = (246, 246, 240)
BLOCKED = (64, 64, 72)
PIN = (0, 0, 0)
TEXT = (20, 20, 20)
#: Wires and pins of other nets in wavefront pictures (obstacles for this net).
OTHER = (150, 150, 165)
#: Longest side of the grid area that the automatic scale aims for, in pixels.
MAX_SIDE_PX = 2048
#: Legend rows shown before "... N more".
LEGEND_ROWS = 40
_ROW_PX = 14
_PALETTE = [(31, 119, 180), (255, 127, 14), (44, 160, 44), (214, 39, 40), (148, 103, 189),
            (140, 86, 75), (227, 119, 194), (188, 189, 34), (23, 190, 207), (174, 199, 232),
            (255, 187, 120), (152, 223, 138), (255, 152, 150), (197, 176, 213),
            (196, 156, 148), (247, 182, 210), (219, 219, 141), (158, 218, 229)]


def cell_scale(width: int, height: int) -> int:
    """Default pixels per cell: up to 24 for tiny grids, 1 for big ones."""
    return max(1, min(24, MAX_SIDE_PX // max(width, height)))


def net_colour(index: int) -> tuple[int, int, int]:
    """A distinct, deterministic colour for net ``index`` (palette, then golden-ratio hues)."""
    if index < len(_PALETTE):
        return _PALETTE[index]
    h = (index * 0.618033988749895) % 1.0
    s = 0.55 + 0.4 * ((index * 7) % 5) / 4
    v = 0.6 + 0.3 * ((index * 3) % 4) / 3
    return tuple(int(round(255 * c)) for c in colorsys.hsv_to_rgb(h, s, v))


def grid_box(layout: Layout, scale: int) -> tuple[int, int]:
    """Pixel size ``(width, height)`` of the grid area (the picture's top-left part)."""
    return layout.width * scale, layout.height * scale


def _legend_entries(layout: Layout, routes: RouteResult | None) -> list[tuple[str, tuple]]:
    routed = {n.name: n.routed for n in routes.nets} if routes else {}
    entries = []
    for i, net in enumerate(layout.nets):
        state = "" if not routes else (" routed" if routed.get(net.name) else " UNROUTED")
        entries.append((f"{net.name}{state}", net_colour(i)))
    if len(entries) > LEGEND_ROWS:
        more = len(entries) - (LEGEND_ROWS - 1)
        entries = entries[:LEGEND_ROWS - 1] + [(f"... {more} more nets", None)]
    return entries


def layout_image(layout: Layout, routes: RouteResult | None = None, *,
                 scale: int | None = None, legend: bool = True) -> Image.Image:
    """The layout as an RGB image: blockages, each routed net's wire, pins, legend.

    Wire cells take their net's :func:`net_colour`; a pin cell takes it too and, when a
    cell is at least 3 pixels wide, carries a :data:`PIN` square in its middle third.
    """
    scale = scale or cell_scale(layout.width, layout.height)
    n = len(layout.nets)
    # label per cell: 0 free, 1 blocked, 2 + i net i
    label = np.where(layout.blocked, 1, 0).astype(np.int32)
    if routes is not None:
        index = {net.name: i for i, net in enumerate(layout.nets)}
        for r in routes.nets:
            if r.routed and r.cells:
                c = np.asarray(r.cells)
                label[c[:, 1], c[:, 0]] = 2 + index[r.name]
    pins = [(x, y, i) for i, net in enumerate(layout.nets) for x, y in net.pins]
    if pins:
        p = np.asarray(pins)
        label[p[:, 1], p[:, 0]] = 2 + p[:, 2]
    table = np.array([FREE, BLOCKED, *(net_colour(i) for i in range(n))], dtype=np.uint8)
    grid = table[label]
    if scale > 1:
        grid = np.repeat(np.repeat(grid, scale, axis=0), scale, axis=1)
    if pins and scale >= 3:
        lo, hi = scale // 3, scale - scale // 3
        for x, y, _ in pins:
            grid[y * scale + lo:y * scale + hi, x * scale + lo:x * scale + hi] = PIN
    gw, gh = grid_box(layout, scale)
    if not legend or not layout.nets:
        return Image.fromarray(grid, "RGB")
    entries = _legend_entries(layout, routes)
    font = ImageFont.load_default()
    text_w = max(int(font.getlength(t)) for t, _ in entries)
    lw = 16 + 12 + 6 + text_w + 8
    img = Image.new("RGB", (gw + lw, max(gh, 8 + _ROW_PX * len(entries))), (255, 255, 255))
    img.paste(Image.fromarray(grid, "RGB"), (0, 0))
    draw = ImageDraw.Draw(img)
    for k, (text, colour) in enumerate(entries):
        y = 6 + k * _ROW_PX
        if colour is not None:
            draw.rectangle([gw + 12, y, gw + 22, y + 10], fill=colour, outline=TEXT)
        draw.text((gw + 28, y - 1), text, fill=TEXT, font=font)
    return img


def save_layout_png(layout: Layout, routes: RouteResult | None, path: str | Path, *,
                    scale: int | None = None, legend: bool = True) -> Path:
    """Write :func:`layout_image` as a PNG (atomically); return the path."""
    img = layout_image(layout, routes, scale=scale, legend=legend)
    path = Path(path)
    with atomic_path(path) as tmp:
        img.save(tmp, format="PNG")
    return path


# -- wavefronts ----------------------------------------------------------------------
def _cmap(name: str = "viridis"):
    import matplotlib

    return matplotlib.colormaps[name]


def save_wavefront_png(layout: Layout, levels: np.ndarray, path: str | Path, *,
                       roots: list[Cell], target: Cell | None = None,
                       path_cells: list[Cell] | None = None, title: str = "",
                       others: list[Cell] | None = None) -> Path:
    """The BFS levels as a heat map over the layout (PMPP Fig. 15.5 A/B), as a PNG.

    Blockages are dark, unreached free cells light; a colour bar gives the level; the
    roots (``o``) and target (``*``) are marked and ``path_cells`` is drawn on top.
    ``others`` are cells of other nets (their wires and pins), drawn as obstacles.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.colors import ListedColormap
    from matplotlib.figure import Figure

    h, w = levels.shape
    reached = levels != UNREACHED
    shown = np.ma.masked_array(levels.astype(np.float64), ~reached)
    aspect = w / h
    tall = min(7.0, max(3.5, 9.0 / aspect))
    fig = Figure(figsize=(min(14.0, max(5.0, tall * aspect + 2.2)), tall + 0.8), dpi=110)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    back = np.where(layout.blocked, 1, 0)
    if others:
        oc = np.asarray(others)
        back[oc[:, 1], oc[:, 0]] = 2
    ax.imshow(back, cmap=ListedColormap([np.array(c) / 255 for c in (FREE, BLOCKED, OTHER)]),
              vmin=0, vmax=2, interpolation="nearest")
    top = int(levels[reached].max()) if reached.any() else 0
    im = ax.imshow(shown, cmap=_cmap(), vmin=0, vmax=max(1, top), interpolation="nearest")
    bar = fig.colorbar(im, ax=ax, fraction=0.046, pad=0.03)
    bar.set_label("BFS level (distance from root)")
    if w * h <= 400:                      # small enough to read every level, as in the book
        for y, x in zip(*np.nonzero(reached)):
            ax.text(x, y, str(int(levels[y, x])), ha="center", va="center", fontsize=7,
                    color="white" if levels[y, x] < 0.6 * max(1, top) else "black")
    if path_cells:
        pc = np.asarray(path_cells)
        ax.plot(pc[:, 0], pc[:, 1], color="red", lw=2 if w * h <= 40000 else 1,
                label="chosen path", solid_capstyle="round")
    r = np.asarray(roots)
    ax.plot(r[:, 0], r[:, 1], "o", ms=9, mfc="white", mec="black", mew=2, ls="none",
            label="root")
    if target is not None:
        ax.plot([target[0]], [target[1]], "*", ms=15, mfc="gold", mec="black", ls="none",
                label="target")
    ax.set_xlim(-0.5, w - 0.5)
    ax.set_ylim(h - 0.5, -0.5)
    ax.set_xlabel("x (column)")
    ax.set_ylabel("y (row)")
    ax.set_title(title or f"{layout.name}: wavefront", fontsize=10)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.1), ncol=3, fontsize=8,
              frameon=False)
    path = Path(path)
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format="png", bbox_inches="tight")
    return path


def save_wavefront_gif(layout: Layout, levels: np.ndarray, path: str | Path, *,
                       roots: list[Cell], target: Cell | None = None,
                       path_cells: list[Cell] | None = None,
                       max_frames: int = 120, others: list[Cell] | None = None) -> Path:
    """An animated GIF of the wavefront growing level by level, ending with the path.

    With more levels than ``max_frames - 1`` each frame adds several levels.
    """
    h, w = levels.shape
    scale = max(1, min(16, 640 // max(w, h)))
    reached = levels != UNREACHED
    top = int(levels[reached].max()) if reached.any() else 0
    colours = (_cmap()(np.linspace(0, 1, 256))[:, :3] * 255).astype(np.uint8)
    shade = colours[(levels.astype(np.float64) / max(1, top) * 255).clip(0, 255).astype(int)]
    base = np.empty((h, w, 3), np.uint8)
    base[...] = FREE
    base[layout.blocked] = BLOCKED
    if others:
        oc = np.asarray(others)
        base[oc[:, 1], oc[:, 0]] = OTHER
    steps = max(1, min(max_frames - 1, top + 1))
    cuts = np.unique(np.linspace(0, top, steps).round().astype(np.int64))
    frames = []
    for cut in cuts:
        f = base.copy()
        on = reached & (levels <= cut)
        f[on] = shade[on]
        frames.append(f)
    last = frames[-1].copy() if frames else base.copy()
    if path_cells:
        pc = np.asarray(path_cells)
        last[pc[:, 1], pc[:, 0]] = (230, 20, 20)
    for x, y in roots:
        last[y, x] = (255, 255, 255)
    if target is not None:
        last[target[1], target[0]] = (255, 215, 0)
    frames.append(last)
    frames = frames[:max_frames]
    images = [Image.fromarray(np.repeat(np.repeat(f, scale, 0), scale, 1), "RGB")
              for f in frames]
    path = Path(path)
    durations = [60] * (len(images) - 1) + [1500]
    with atomic_path(path) as tmp:
        images[0].save(tmp, format="GIF", save_all=True, append_images=images[1:],
                       duration=durations, loop=0)
    return path
