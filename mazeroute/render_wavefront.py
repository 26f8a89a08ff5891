"""Wavefront pictures: the levels of one BFS as a heat map (PNG or JPEG) or as a GIF.

They show the levels like PMPP Fig. 15.5 (A)/(B): a viridis heat map of the levels,
blockages dark grey, cells not reached white, roots, target and chosen path on top.
They use Matplotlib's Agg canvas directly (never ``pyplot``), so no global backend is
switched and nothing needs a display. The picture's file type is the one its name says
(:func:`picture_format`); a name with another suffix is refused before anything is
drawn. Every file is written through :func:`mazeroute.io.atomic_path`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

from .engines import UNREACHED
from .io import atomic_path
from .layout import Cell, Layout
from .render import OTHER, TEXT, _legible

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
#: Palette entries of the GIF's levels (the entries after them are the other colours).
GIF_SHADES = 248
#: Picture file types by (lower-case) suffix, as Matplotlib's ``savefig`` names them.
PICTURE_FORMATS = {".png": "png", ".jpg": "jpeg", ".jpeg": "jpeg", ".gif": "gif"}


def picture_format(path: str | Path) -> str:
    """The file type a wavefront picture named ``path`` is written in, from its suffix
    (PNG for a name without one).

    Raises
    ------
    ValueError
        for a suffix that is not one of :data:`PICTURE_FORMATS` (a picture of one type
        under another type's name would not open as what it says it is)

    >>> picture_format("w.png"), picture_format("W.JPG"), picture_format("a/w.gif")
    ('png', 'jpeg', 'gif')
    >>> picture_format("wave")
    'png'

    >>> picture_format("w.bmp")
    Traceback (most recent call last):
    ...
    ValueError: a '.bmp' picture cannot be written: name it .png, .jpg, .jpeg or .gif
    """
    suffix = Path(path).suffix.lower()
    if not suffix:
        return "png"
    if suffix not in PICTURE_FORMATS:
        raise ValueError(f"a {suffix!r} picture cannot be written: name it .png, .jpg, "
                         ".jpeg or .gif")
    return PICTURE_FORMATS[suffix]


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
                       others: list[Cell] | None = None, format: str | None = None) -> Path:
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
    format : ``"png"``, ``"jpeg"`` or ``"gif"``; default the one ``path``'s suffix
        names (:func:`picture_format`), PNG for any other suffix (a temporary name)

    Levels are written into the cells of layouts of at most :data:`ANNOTATE_CELLS` cells.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.transforms import ScaledTranslation

    levels = _check_levels(layout, levels)
    h, w = levels.shape
    side = 6.5                                                # inches of the long side
    iw, ih = (side, max(1.5, side * h / w)) if w >= h else (max(1.5, side * w / h), side)
    fig = Figure(figsize=(iw + 1.8, ih + 1.6), dpi=150)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    top, cell_pt = _draw_levels(fig, ax, layout, levels, others, (iw, ih))
    handles = _draw_marks(ax, cell_pt, roots, target, path_cells, others)
    below = ax.transAxes + ScaledTranslation(0, -0.5, fig.dpi_scale_trans)  # under x label
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 0), bbox_transform=below,
              ncol=len(handles), fontsize=8, frameon=False, handlelength=1.5)
    ax.set_xlabel("x (column)", fontsize=9)
    ax.set_ylabel("y (row)", fontsize=9)
    ax.set_title(title or f"{layout.name}: wavefront, {top + 1} levels", fontsize=10)

    path = Path(path)
    kind = format or PICTURE_FORMATS.get(path.suffix.lower(), "png")
    if kind not in PICTURE_FORMATS.values():
        raise ValueError(f"format must be one of png, jpeg, gif, got {kind!r}")
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format=kind, bbox_inches="tight")
    return path


def _draw_levels(fig, ax, layout: Layout, levels: np.ndarray, others, size) -> tuple[int, float]:
    """Draw the grid, the levels' heat map and its colour bar (levels written into the
    cells of small layouts); the last level and one cell's size in points."""
    import matplotlib
    from matplotlib.colors import ListedColormap, Normalize
    from matplotlib.ticker import MaxNLocator

    h, w = levels.shape
    iw, ih = size
    reached = levels != UNREACHED
    top = int(levels[reached].max()) if reached.any() else 0
    norm = Normalize(vmin=0, vmax=max(top, 1))
    cmap = matplotlib.colormaps[_CMAP].with_extremes(bad=(0, 0, 0, 0))
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
    return top, cell_pt


def _draw_marks(ax, cell_pt: float, roots, target, path_cells, others) -> list:
    """Draw the path, the roots and the target on top; the legend's handles."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

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
    return handles


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
    levels (0 to the last level the search reached, reduced or not), a black marker at
    the frame's level and the counter ``level t / last``; frames are at least
    :data:`GIF_MIN_WIDTH` pixels wide.
    """
    if max_frames < 1:
        raise ValueError(f"max_frames must be >= 1, got {max_frames}")
    levels, back, top, k = _gif_grid(layout, _check_levels(layout, levels), others)
    reached = levels != UNREACHED
    shades = GIF_SHADES                            # palette: 0..247 levels, then the rest
    free_i, block_i, other_i, root_i, target_i, path_i, ink_i = range(shades, shades + 7)
    palette = _gif_palette(shades)
    shade = np.zeros(levels.shape, dtype=np.uint8)
    shade[reached] = level_shade(levels[reached], top)
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
    return save_gif_frames(frames, path)


def level_shade(levels: np.ndarray, top: int) -> np.ndarray:
    """The GIF palette index (0 .. ``GIF_SHADES - 1``) of each level, ``top`` the last.

    >>> level_shade(np.array([0, 5, 10]), 10).tolist()
    [0, 124, 247]
    """
    lv = np.asarray(levels, np.float64)
    return np.round(lv / max(top, 1) * (GIF_SHADES - 1)).astype(np.uint8)


def save_gif_frames(frames: list, path: str | Path) -> Path:
    """Write a wavefront's GIF frames atomically: each level briefly, the last (the path,
    where there is one) long."""
    durations = [90] * (len(frames) - 1) + [2000]
    path = Path(path)
    with atomic_path(path) as tmp:
        frames[0].save(tmp, format="GIF", save_all=True, append_images=frames[1:],
                       duration=durations, loop=0)
    return path


def _gif_grid(layout: Layout, levels: np.ndarray, others):
    """The GIF's grid: ``(levels, background, last level, cells per block side)``, with
    grids larger than :data:`GIF_SIDE` reduced block-wise."""
    h, w = levels.shape
    k = -(-max(h, w) // GIF_SIDE)                              # cells per block side
    back = _background(layout, others)       # 0 free, 1 blocked, 2 other nets
    # the last level before reducing: a block shows its lowest level, so the reduced
    # grid's highest level falls short of the one the search reached
    whole = levels[levels != UNREACHED]
    top = int(whole.max()) if whole.size else 0
    if k > 1:
        levels = _reduce(levels, k, UNREACHED, np.minimum)
        back = _reduce(back, k, 1, np.minimum)  # free where any of its cells is free
    return levels, back, top, k


def _gif_palette(shades: int) -> np.ndarray:
    """The GIF's 256 colours: ``shades`` viridis levels, then free, blocked, other nets,
    root, target, path and ink."""
    import matplotlib

    free_i, block_i, other_i, root_i, target_i, path_i, ink_i = range(shades, shades + 7)
    lut = matplotlib.colormaps[_CMAP](np.linspace(0, 1, shades))[:, :3]
    palette = np.zeros((256, 3), dtype=np.uint8)
    palette[:shades] = np.round(lut * 255)
    palette[free_i], palette[block_i], palette[other_i] = (255, 255, 255), (64, 64, 64), OTHER
    palette[root_i], palette[target_i], palette[path_i] = (255, 255, 255), (255, 0, 255), \
        (228, 0, 43)
    palette[ink_i] = TEXT
    return palette


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

