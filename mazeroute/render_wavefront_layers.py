"""Wavefront pictures of a multi-layer layout: a panel per layer, one shared colour bar.

The levels of one 3-D BFS (``(L, H, W)``, :data:`~mazeroute.engines.UNREACHED` where not
reached) are drawn on the panel geometry of :mod:`mazeroute.render_layers` (the same
:func:`~mazeroute.render_layers.panel_origin`, titles and panel order), in the colours of
the one-layer wavefront GIF (:mod:`mazeroute.render_wavefront`): viridis by level,
blockages dark grey, other nets' cells grey-blue, cells not reached white. The net's
path is a square in the middle of each of its cells on each layer, each via a ring on
both layers it joins, the root and the target squares with a black outline. Every mark
leaves a cell's top-left pixel in the colour of its level, so the level of any cell can
be read back from the picture. Under the panels is the colour bar and level counter of
the one-layer GIF; right of them the title and a key.

The picture (PNG, JPEG or a one-frame GIF, by its name) and the GIF (frames level by
level, every panel in each frame, then the path) are written through
:func:`mazeroute.io.atomic_path`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

from .engines import UNREACHED
from .io import atomic_path
from .layout import Layout
from .render import _legible
from .render_layers import PANELS_PER_ROW, _geometry, _title, via_cells
from .render_wavefront import (
    GIF_BAR,
    GIF_MIN_WIDTH,
    GIF_SHADES,
    GIF_SIDE,
    _gif_palette,
    _gif_strip,
    level_shade,
    save_gif_frames,
)

#: Viridis shades of the palette; the colours after them are those of the one-layer GIF.
SHADES = GIF_SHADES
FREE_I, BLOCK_I, OTHER_I, ROOT_I, TARGET_I, PATH_I, INK_I = range(SHADES, SHADES + 7)
_KEY = ((ROOT_I, "root"), (TARGET_I, "target"), (PATH_I, "path"), (ROOT_I, "via (ring)"),
        (BLOCK_I, "blocked"), (OTHER_I, "other nets"), (FREE_I, "not reached"))
_TEXT = 12

Cell3 = tuple[int, int, int]


def gif_steps(top: int, max_frames: int, has_path: bool) -> list[int]:
    """The level each GIF frame shows before the path frame: ``0 .. top`` grouped evenly
    into at most ``max_frames`` frames (one kept for the path), ending at ``top``.

    >>> gif_steps(3, 120, True), gif_steps(300, 5, False)[-1]
    ([0, 1, 2, 3], 300)
    """
    count = max(1, min(top + 1, max_frames - has_path))
    return np.floor(np.linspace(0, top, count) + 0.5).astype(np.int64).tolist()


class _Panels:
    """Everything drawn once: geometry, shades, backgrounds, marks, title mask."""

    def __init__(self, layout: Layout, levels: np.ndarray, scale: int | None, roots,
                 target, path_cells, others, title: str):
        levels = np.asarray(levels)
        if levels.shape != layout.blocked.shape:
            raise ValueError(f"levels have shape {levels.shape}, the layout's stack is "
                             f"{layout.blocked.shape} (layers, rows, columns)")
        self.layout, self.levels = layout, levels
        self.g = _geometry(layout, scale, True, False)
        self.reached = levels != UNREACHED
        self.top = int(levels[self.reached].max()) if self.reached.any() else 0
        self.shade = level_shade(np.where(self.reached, levels, 0), self.top)
        self.base = np.where(layout.blocked, BLOCK_I, FREE_I).astype(np.uint8)
        if others is not None and len(others):
            o = np.asarray(others, np.int64).reshape(-1, 3)
            self.base[o[:, 2], o[:, 1], o[:, 0]] = OTHER_I
        self.path = (np.asarray(path_cells, np.int64).reshape(-1, 3)
                     if path_cells is not None and len(path_cells) else None)
        # a tree's layer changes, found as a path's are not (branches are listed apart)
        self.vias = (via_cells(self.path, False)
                     if self.path is not None else np.zeros((0, 3), np.int64))
        self.roots = np.asarray(roots, np.int64).reshape(-1, 3)
        self.target = target
        self.fw = max(self.g.iw, GIF_MIN_WIDTH)
        size, z = _TEXT * self.g.z, self.g.z
        self.lines = _wrap(title, 40)
        self.key_y = 2 * z + len(self.lines) * (size + 4 * z) + 6 * z
        # the key may be taller than the panels; the strip goes under both
        self.bar_y = max(self.g.ih, self.key_y + len(_KEY) * (size + 6 * z))
        self.fh = self.bar_y + GIF_BAR
        self.strip = _gif_strip(self.fw, self.top, SHADES, FREE_I, INK_I)
        self.text = self._text_mask()

    def _text_mask(self) -> np.ndarray:
        """The panels' titles, the picture's title and the key's words, as one mask."""
        g, size = self.g, _TEXT * self.g.z
        mask = Image.new("L", (self.fw, self.fh), 0)
        d = ImageDraw.Draw(mask)
        for z in range(len(self.layout.stack.layers)):
            x, y = g.origin(z)
            text, font = _legible(_title(self.layout, z), size)
            d.text((x, y - g.th + 2 * g.z), text, fill=255, font=font)
        x0, y = g.pw + 8 * g.z, 2 * g.z
        for line in self.lines:
            text, font = _legible(line, size)
            d.text((x0, y), text, fill=255, font=font)
            y += (size + 4 * g.z)
        for k, (_, words) in enumerate(_KEY):
            text, font = _legible(words, size)
            d.text((x0 + size + 6 * g.z, self.key_y + k * (size + 6 * g.z)), text,
                   fill=255, font=font)
        return np.asarray(mask) > 110

    def frame(self, t: int, with_path: bool) -> np.ndarray:
        """Palette indices of the picture at level ``t`` (with the path and vias)."""
        g, s = self.g, self.g.s
        whole = np.full((self.fh, self.fw), FREE_I, np.uint8)
        for z in range(self.levels.shape[0]):
            idx = self.base[z].copy()
            now = self.reached[z] & (self.levels[z] <= t)
            idx[now] = self.shade[z][now]
            px = np.repeat(np.repeat(idx, s, axis=0), s, axis=1)
            if with_path:
                p = self.path[self.path[:, 2] == z]
                _squares(px, p[:, :2], s, s // 3, PATH_I, None)
                v = self.vias[(self.vias[:, 2] == z) | (self.vias[:, 2] + 1 == z)]
                _squares(px, v[:, :2], s, max(1, s // 6), None, ROOT_I)
            r = self.roots[self.roots[:, 2] == z]
            _squares(px, r[:, :2], s, s // 4, ROOT_I, INK_I)
            if self.target is not None and self.target[2] == z:
                _squares(px, np.array([self.target[:2]]), s, s // 4, TARGET_I, INK_I)
            x, y = g.origin(z)
            whole[y:y + g.gh, x:x + g.gw] = px
        whole[self.text] = INK_I
        size, x0 = _TEXT * g.z, g.pw + 8 * g.z
        for k, (colour, _) in enumerate(_KEY):
            y = self.key_y + k * (size + 6 * g.z) + 2 * g.z
            whole[y:y + size, x0:x0 + size] = INK_I
            whole[y + 1:y + size - 1, x0 + 1:x0 + size - 1] = colour
        whole[self.bar_y:] = self.strip(t, with_path)
        return whole

    def image(self, t: int, with_path: bool) -> Image.Image:
        img = Image.frombytes("P", (self.fw, self.fh),
                              np.ascontiguousarray(self.frame(t, with_path)))
        img.putpalette(_gif_palette(SHADES).ravel().tolist())
        return img


def _wrap(text: str, width: int) -> list[str]:
    lines, line = [], ""
    for word in text.split(" "):
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    return lines + ([line] if line else [])


def _squares(px: np.ndarray, xy: np.ndarray, s: int, inset: int, fill, edge) -> None:
    """Mark cells ``xy`` of a grid drawn ``s`` pixels a cell: a square ``inset`` pixels
    inside each, filled with ``fill`` and outlined with ``edge`` (either None: not
    drawn). On cells of 3 pixels or more the top-left pixel is never painted, so the
    cell's level stays readable."""
    inset = max(inset, 1) if s >= 3 else 0
    lo, hi = inset, s - inset
    if hi <= lo:
        return
    for x, y in np.asarray(xy, np.int64).reshape(-1, 2).tolist():
        cell = px[y * s:(y + 1) * s, x * s:(x + 1) * s]
        if edge is not None:
            inner = cell[lo + 1:hi - 1, lo + 1:hi - 1].copy()
            cell[lo:hi, lo:hi] = edge
            cell[lo + 1:hi - 1, lo + 1:hi - 1] = inner if fill is None else fill
        elif fill is not None:
            cell[lo:hi, lo:hi] = fill


def save_stack_wavefront_png(layout: Layout, levels: np.ndarray, path: str | Path, *,
                             roots: Sequence[Cell3], target: Cell3 | None = None,
                             path_cells: Sequence[Cell3] | None = None, title: str = "",
                             others: Sequence[Cell3] | None = None,
                             format: str = "png", scale: int | None = None) -> Path:
    """A multi-layer wavefront as a picture: a panel per layer, one shared colour bar.

    Parameters
    ----------
    layout : Layout
        A layout with a stack of layers.
    levels : (L, H, W) uint32 array
        The levels, :data:`~mazeroute.engines.UNREACHED` where not reached.
    path : str or Path
        The picture to write (atomically).
    roots : sequence of (x, y, z)
        The level-0 cells.
    target : (x, y, z), optional
        A cell marked in magenta.
    path_cells : sequence of (x, y, z), optional
        The net's wire; its cells and its vias are marked on their layers.
    title : str
        Written right of the panels.
    others : sequence of (x, y, z), optional
        Other nets' cells (pins and wires), drawn as obstacles.
    format : {"png", "jpeg", "gif"}
        The file type.
    scale : int, optional
        Pixels per cell; default :func:`~mazeroute.render_layers.stack_scale`.

    Returns
    -------
    Path
        ``path``.
    """
    kinds = {"png": "PNG", "jpeg": "JPEG", "gif": "GIF"}
    if format not in kinds:
        raise ValueError(f"format must be one of png, jpeg, gif, got {format!r}")
    panels = _Panels(layout, levels, scale, roots, target, path_cells, others, title)
    img = panels.image(panels.top, panels.path is not None)
    if format != "gif":
        img = img.convert("RGB")
    path = Path(path)
    with atomic_path(path) as tmp:
        img.save(tmp, format=kinds[format])
    return path


def save_stack_wavefront_gif(layout: Layout, levels: np.ndarray, path: str | Path, *,
                             roots: Sequence[Cell3], target: Cell3 | None = None,
                             path_cells: Sequence[Cell3] | None = None, title: str = "",
                             others: Sequence[Cell3] | None = None,
                             max_frames: int = 120) -> Path:
    """An animated GIF of a multi-layer wavefront: every panel in each frame, frames
    level by level (:func:`gif_steps`), the counter ending at the last level, then a
    frame with the path. Cells are about :data:`~mazeroute.render_wavefront.GIF_SIDE`
    pixels on the panels' long side together (at least 1 pixel a cell).

    Parameters are those of :func:`save_stack_wavefront_png`, and ``max_frames``, the
    most frames in all.
    """
    if max_frames < 1:
        raise ValueError(f"max_frames must be >= 1, got {max_frames}")
    k = len(layout.stack.layers)
    cols = min(k, PANELS_PER_ROW)
    side = max(layout.width * cols, layout.height * -(-k // cols))
    scale = max(1, min(16, GIF_SIDE // side))
    panels = _Panels(layout, levels, scale, roots, target, path_cells, others, title)
    has_path = panels.path is not None
    frames = [panels.image(t, False) for t in gif_steps(panels.top, max_frames, has_path)]
    if has_path:
        frames.append(panels.image(panels.top, True))
    return save_gif_frames(frames, path)


__all__ = ["gif_steps", "level_shade", "save_stack_wavefront_gif",
           "save_stack_wavefront_png"]
