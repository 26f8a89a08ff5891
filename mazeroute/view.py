"""An interactive viewer: one self-contained HTML file for a routed layout or a wavefront.

:func:`save_view_html` writes a routed (or bare) layout, :func:`save_wavefront_html` one
net's wavefront. The file needs nothing but a browser: the script and the styles are
inline, no font, script or picture is fetched, and the page's Content-Security-Policy
(``default-src 'none'``) forbids every request, so it opens from a file on an offline
machine. The grid is drawn on a canvas from an offscreen picture of one pixel per cell
(with block-wise reductions that keep wires and pins when zoomed out), never as one DOM
element per cell, so a 4096 x 4096 layout with 20,000 nets stays quick.

In the page: drag to pan, the wheel (or ``+``/``-``) to zoom about the cursor, ``f`` or
``0`` to fit the grid to the window, arrow keys to pan, ``/`` to search, ``Esc`` to clear
the selection. The cell under the cursor and its owner (blockage, net wire, net pin) are
shown in the top bar. The net list (unrouted nets first, with the reason when the
result gives one) can be searched and filtered; a net's name always keeps its width in
its row (up to most of it), and a status too long for the rest ends in an ellipsis, in
full in the row's tooltip and under the list when the net is selected; clicking a net
(in the list or on the grid) highlights its wire and pins and dims the rest. The pins
of unrouted nets are always ringed. A congestion layer (a history-cost array, as
negotiated routing keeps) can be toggled when one is given. A wavefront page has a
level slider: at level ``k`` cells of lower levels show their level's viridis colour,
the cells of level ``k`` exactly are the frontier colour :data:`FRONT`, later cells are
not drawn yet.

A multi-layer layout's page has a layer selector (``l`` steps through it): one layer
at a time (its blockages, its wires and pins, the vias that touch it, its congestion or
its wavefront cells), or all layers blended as ``layout.png --overlay`` blends them
(the bottom layer's wires opaque, each layer above at half opacity over what is below,
blockages a grey as dark as the share of layers they block; the largest history cost
over the layers; the earliest level over the layers). Vias are squares with a cross;
the cursor readout names the layer (every layer's owner when all are shown).

Data encoding (``format: mazeroute-view/1``; a JSON object in a
``<script type="application/json" id="mz-data">`` element). Every array is a *blob*
``{"dtype": "u8"|"u16"|"u32"|"i32"|"f32", "n": count, "z": base64}``: the
little-endian array, zlib-compressed (the page inflates it with the browser's own
``DecompressionStream``), then base64. Cells are numbered ``y * width + x``.

- ``blocked``: the blocked mask as packed bits (``numpy.packbits``, little bit order,
  row-major), a ``u8`` blob of ``ceil(width * height / 8)`` bytes.
- ``nets``: ``names`` (a list), ``colour`` (``u8``, 3 per net), ``pins_n`` and ``pins``
  (pin counts, then every net's pin cells), and with a result ``routed`` (``u8``),
  ``order`` (``i32``, -1 when none), ``length``, ``bends``, ``cells_n`` (``u32``) and
  each net's cells as steps: ``codes`` (``u8``, one per cell: 0 ``+x``, 1 ``-x``,
  2 ``+y``, 3 ``-y`` from the cell before, 4 a jump to the next entry of ``jumps``,
  ``u32`` cell numbers; each net starts with a jump), and ``reasons`` (net index ->
  text, for unrouted nets whose result says why).
- ``congestion`` (optional): ``f32`` per cell, with ``congestion_max``.
- a wavefront's ``levels``: per cell ``level + 1`` (0 not reached), row-major, in the
  smallest of ``u8``, ``u16``, ``u32`` that holds the last level; ``others`` (packed
  bits like ``blocked``), ``roots``, ``target`` and the path (``path_codes`` and
  ``path_jumps``, coded as a net's cells).

A layout with a stack of layers keeps this format, extended (a one-layer page's data are
unchanged, and have no ``layers``):

- ``layers``: ``[{"name": ..., "direction": ...}, ...]``, bottom (``z = 0``) first.
- Cells are numbered ``(z * height + y) * width + x`` everywhere (pins, jumps, vias, a
  wavefront's roots and target), and every per-cell array holds every layer's cells
  in that order: ``blocked`` and ``others`` are ``layers * width * height`` bits (a
  blockage of every layer is set on each), ``congestion`` and ``levels`` as many values.
- Step codes 5 ``+z`` and 6 ``-z``: a via up to the next layer or down to the one below.
- ``nets`` adds ``vias_n`` (``u32``, per net) and ``vias`` (``u32``, the lower cell of
  each via, net after net), found as ``layout.png`` finds them
  (:func:`mazeroute.render_layers.via_cells`).
- ``congestion_max`` is the largest over all layers: one colour scale for every layer.

Examples
--------
>>> import pathlib, tempfile
>>> from mazeroute.readers import parse_layout
>>> from mazeroute.router import route
>>> lay = parse_layout({"width": 6, "height": 4, "blockages": [[2, 0, 2, 2]],
...                     "nets": [{"name": "a", "pins": [[0, 0], [5, 0]]}]})
>>> out = save_view_html(lay, route(lay, backend="cpu"),
...                      pathlib.Path(tempfile.mkdtemp()) / "view.html")
>>> data = read_view_data(out)
>>> data["format"], data["width"], data["height"], data["nets"]["names"]
('mazeroute-view/1', 6, 4, ['a'])
>>> decode_blob(data["nets"]["length"]).tolist()
[11]
"""

from __future__ import annotations

import base64
import html
import json
import re
import zlib
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from .backtrace import bends as path_bends
from .engines import UNREACHED
from .errors import quote
from .io import atomic_path
from .layout import Cell, Layout
from .render import BLOCKED, FREE, OTHER, PIN, UNROUTED_PIN, net_colour
from .render_layers import via_cells
from .router import NetRoute, RouteResult
from .view_template import CSS as _CSS
from .view_template import HTML as _HTML
from .view_template import JS as _JS

VIEW_FORMAT = "mazeroute-view/1"
#: The colour of the cells of the slider's level in a wavefront page.
FRONT: tuple[int, int, int] = (255, 80, 0)
#: Fill of a free cell in a wavefront page (and of cells not reached yet).
WAVE_FREE: tuple[int, int, int] = (255, 255, 255)
#: Path and target colours in a wavefront page (those of the PNG heat map).
PATH: tuple[int, int, int] = (228, 0, 43)
TARGET: tuple[int, int, int] = (255, 0, 255)

_SLOT = re.compile(r"\{\{(title|css|data|js)\}\}")
_DTYPES = {"u8": "<u1", "u16": "<u2", "u32": "<u4", "i32": "<i4", "f32": "<f4"}
_U32 = 2**32                              # lengths and bends are u32 blobs in the page
_STEP = {1: 0, -1: 1}                     # +x, -x; +y and -y depend on the width


# -- encoding ------------------------------------------------------------------------------
def _blob(array: np.ndarray, dtype: str) -> dict:
    a = np.ascontiguousarray(np.asarray(array).ravel(), dtype=_DTYPES[dtype])
    z = zlib.compress(a.tobytes(), 6)
    return {"dtype": dtype, "n": int(a.size), "z": base64.b64encode(z).decode("ascii")}


def decode_blob(blob: dict) -> np.ndarray:
    """The 1-D array a blob of the page's data holds (see the module notes).

    >>> decode_blob(_blob(np.array([3, 1, 4]), "u16")).tolist()
    [3, 1, 4]
    """
    raw = zlib.decompress(base64.b64decode(blob["z"]))
    a = np.frombuffer(raw, dtype=_DTYPES[blob["dtype"]])
    if a.size != blob["n"]:
        raise ValueError(f"a blob says {blob['n']} values and holds {a.size}")
    return a


def _bits(mask: np.ndarray) -> dict:
    return _blob(np.packbits(np.asarray(mask, dtype=bool).ravel(), bitorder="little"), "u8")


def _steps(runs: Sequence[np.ndarray], width: int,
           height: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Cells of consecutive lists as ``(codes, jumps)``: one code a cell, see the notes.

    Each list is ``(k, 2)`` of ``x, y`` or ``(k, 3)`` of ``x, y, z`` (a stack's, whose
    cells are numbered ``(z * height + y) * width + x``). Codes come from the
    coordinates, not the numbers: a step across a row end or a layer's last row is a
    jump.
    """
    sizes = [len(r) for r in runs]
    if not sum(sizes):
        return np.zeros(0, np.uint8), np.zeros(0, np.uint32)
    cat = np.concatenate([np.asarray(r, np.int64).reshape(len(r), -1) for r in runs
                          if len(r)])
    x, y = cat[:, 0], cat[:, 1]
    z = cat[:, 2] if cat.shape[1] > 2 else np.zeros_like(x)
    idx = (z * height + y) * width + x
    dx, dy, dz = (np.diff(v, prepend=v[:1]) for v in (x, y, z))
    codes = np.full(idx.size, 4, dtype=np.uint8)
    for code, (a, b, c) in enumerate(((1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0))):
        codes[(dx == a) & (dy == b) & (dz == c)] = code
    codes[(dx == 0) & (dy == 0) & (dz == 1)] = 5
    codes[(dx == 0) & (dy == 0) & (dz == -1)] = 6
    if width == 1 and cat.shape[1] == 2:
        # one-layer pages of one column have always coded their y steps as jumps: their
        # data stay as they were
        codes[(codes == 2) | (codes == 3)] = 4
    first = np.cumsum([0, *sizes])[:-1][np.asarray(sizes) > 0]
    codes[first] = 4                      # every net's first cell is a jump
    return codes, idx[codes == 4].astype(np.uint32)


def _levels_blob(levels: np.ndarray) -> dict:
    """``level + 1`` per cell (0: not reached) in the smallest unsigned type that holds it."""
    lv = np.asarray(levels).ravel()
    reached = lv != UNREACHED
    top = int(lv[reached].max()) + 1 if reached.any() else 0
    dtype = "u8" if top < 2**8 else "u16" if top < 2**16 else "u32"
    v = np.zeros(lv.size, dtype=_DTYPES[dtype])
    v[reached] = lv[reached] + 1
    return _blob(v, dtype)


def decode_levels(blob: dict, width: int, height: int,
                  depth: int | None = None) -> np.ndarray:
    """A wavefront page's levels (``UNREACHED`` where not reached) from its ``levels`` blob:
    ``(height, width)``, or ``(depth, height, width)`` for a stack of ``depth`` layers.

    >>> lv = np.array([[0, 1, UNREACHED], [1, 2, 300]], dtype=np.uint32)
    >>> (decode_levels(_levels_blob(lv), 3, 2) == lv).all()
    np.True_
    """
    shape = (height, width) if depth is None else (depth, height, width)
    v = decode_blob(blob).astype(np.int64)
    if v.size != int(np.prod(shape)):
        raise ValueError(f"the levels hold {v.size} values, the grid {int(np.prod(shape))}")
    return np.where(v == 0, UNREACHED, v - 1).astype(np.uint32).reshape(shape)


def _dims(layout: Layout) -> int:
    """Numbers a cell has: 2 (``x, y``), or 3 (``x, y, z``) in a stack of layers."""
    return 2 if layout.stack is None else 3


def _numbers(layout: Layout, cells) -> np.ndarray:
    """The page's numbers of ``cells`` (see the module notes)."""
    c = np.asarray(cells if cells is not None else [], np.int64).reshape(-1, _dims(layout))
    z = c[:, 2] if c.shape[1] == 3 else 0
    return (z * layout.height + c[:, 1]) * layout.width + c[:, 0]


def _nets_data(layout: Layout, result: RouteResult | None) -> dict:
    n, d = len(layout.nets), _dims(layout)
    pins = [np.asarray(net.pins, dtype=np.int64).reshape(-1, d) for net in layout.nets]
    data: dict = {
        "names": [net.name for net in layout.nets],
        "colour": _blob(np.array([net_colour(i) for i in range(n)], dtype=np.uint8)
                        .reshape(-1), "u8"),
        "pins_n": _blob(np.array([len(p) for p in pins]), "u32"),
        "pins": _blob(np.concatenate([_numbers(layout, p) for p in pins])
                      if n else np.zeros(0), "u32"),
    }
    if result is None:
        return data
    runs = [r.cell_array() if r.routed else np.zeros((0, d), np.int64)
            for r in result.nets]
    codes, jumps = _steps(runs, layout.width, layout.height)
    data.update({
        "routed": _blob(np.array([bool(r.routed) for r in result.nets]), "u8"),
        "order": _blob(np.array([-1 if r.order is None else r.order for r in result.nets]),
                       "i32"),
        "length": _blob(np.array([r.length for r in result.nets]), "u32"),
        "bends": _blob(np.array([r.bends for r in result.nets]), "u32"),
        "cells_n": _blob(np.array([len(r) for r in runs]), "u32"),
        "codes": _blob(codes, "u8"),
        "jumps": _blob(jumps, "u32"),
        "reasons": {str(i): str(reason) for i, r in enumerate(result.nets)
                    if not r.routed and (reason := getattr(r, "reason", None))},
    })
    if layout.stack is not None:
        # found as the layout picture finds them, so the page and layout.png agree
        vias = [via_cells(run, len(net.pins) <= 2) for run, net in zip(runs, layout.nets)]
        data["vias_n"] = _blob(np.array([len(v) for v in vias]), "u32")
        data["vias"] = _blob(np.concatenate([_numbers(layout, v) for v in vias])
                             if n else np.zeros(0), "u32")
    return data


def _shape_words(layout: Layout) -> str:
    if layout.stack is None:
        return f"{(layout.height, layout.width)} (rows, columns)"
    return f"{layout.blocked.shape} (layers, rows, columns)"


def view_data(layout: Layout, result: RouteResult | None = None, *,
              congestion: np.ndarray | None = None, title: str | None = None) -> dict:
    """The data a routed-layout page embeds (see the module notes for the encoding)."""
    if result is not None and len(result.nets) != len(layout.nets):
        raise ValueError(f"the result holds {len(result.nets)} nets, the layout "
                         f"{len(layout.nets)}")
    data = _common(layout, "routes", title)
    data["nets"] = _nets_data(layout, result)
    if result is not None:
        data.update({"routed": int(result.routed), "wirelength": int(result.wirelength),
                     "engine": str(result.engine),
                     "mode": str(getattr(result, "mode", None) or "sequential")})
    if congestion is not None:
        c = np.asarray(congestion, dtype=np.float32)
        if c.shape != layout.blocked.shape:
            raise ValueError(f"the congestion array has shape {c.shape}, the layout is "
                             f"{_shape_words(layout)}")
        if not np.isfinite(c).all():
            raise ValueError("the congestion array holds a value that is not finite")
        data["congestion"] = _blob(c, "f32")
        data["congestion_max"] = float(c.max(initial=0.0))
    return data


def wavefront_data(layout: Layout, levels: np.ndarray, *, roots: Sequence[Cell],
                   target: Cell | None = None, path_cells: Sequence[Cell] | None = None,
                   others: Sequence[Cell] | None = None, title: str = "") -> dict:
    """The data a wavefront page embeds (see the module notes for the encoding)."""
    levels = np.asarray(levels)
    if levels.shape != layout.blocked.shape:
        raise ValueError(f"levels have shape {levels.shape}, the layout is "
                         f"{_shape_words(layout)}")
    reached = levels != UNREACHED
    data = _common(layout, "wavefront", title or None)
    other = np.zeros(layout.blocked.size, dtype=bool)
    if others is not None and len(others):
        other[_numbers(layout, others)] = True
    path = np.asarray(path_cells if path_cells is not None else [], np.int64)
    codes, jumps = _steps([path.reshape(-1, _dims(layout))], layout.width, layout.height)
    data.update({
        "levels": _levels_blob(levels),
        "top": int(levels[reached].max()) if reached.any() else 0,
        "others": _bits(other),
        "roots": _numbers(layout, roots).tolist(),
        "target": None if target is None else int(_numbers(layout, [target])[0]),
        "path_codes": _blob(codes, "u8"),
        "path_jumps": _blob(jumps, "u32"),
        "viridis": _lut("viridis"),
    })
    return data


def _common(layout: Layout, kind: str, title: str | None) -> dict:
    return {"format": VIEW_FORMAT, "kind": kind, "name": layout.name,
            "title": title or layout.name, "width": int(layout.width),
            "height": int(layout.height), "blocked": _bits(layout.blocked),
            "colours": {"free": _hex(FREE), "blocked": _hex(BLOCKED), "other": _hex(OTHER),
                        "pin": _hex(PIN), "unrouted_pin": _hex(UNROUTED_PIN),
                        "front": _hex(FRONT), "wave_free": _hex(WAVE_FREE),
                        "path": _hex(PATH), "target": _hex(TARGET)},
            "heat": _lut("inferno")} | _layers(layout)


def _layers(layout: Layout) -> dict:
    """A stack's layers, bottom first; nothing for one layer (its data stay as they were)."""
    if layout.stack is None:
        return {}
    return {"layers": [{"name": layer.name, "direction": layer.direction}
                       for layer in layout.stack.layers]}


def _hex(rgb: Sequence[int]) -> str:
    return "#" + "".join(f"{int(v):02x}" for v in rgb)


def _lut(name: str) -> str:
    """256 colours of a Matplotlib colour map as one hex string (6 digits a colour)."""
    import matplotlib

    rgb = np.round(matplotlib.colormaps[name](np.linspace(0, 1, 256))[:, :3] * 255)
    return bytes(rgb.astype(np.uint8).ravel()).hex()


# -- the page ------------------------------------------------------------------------------
def page(data: dict) -> str:
    """The HTML text of a page showing ``data`` (:func:`view_data`, :func:`wavefront_data`).

    The JSON is embedded with every ``<``, ``>`` and ``&`` escaped, so no name can end the
    script element; the script reads it with ``JSON.parse`` and writes names with
    ``textContent`` only.
    """
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    text = text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    parts = {"title": html.escape(str(data["title"])), "css": _CSS, "data": text, "js": _JS}
    # One pass over the template: chained replaces would also substitute a placeholder
    # spelled inside a name (a net called "{{js}}" got the script pasted into the JSON).
    return _SLOT.sub(lambda m: parts[m.group(1)], _HTML)


def read_view_data(path: str | Path) -> dict:
    """The data embedded in a page written by :func:`save_view_html` or
    :func:`save_wavefront_html`."""
    text = Path(path).read_text(encoding="utf-8")
    m = re.search(r'<script type="application/json" id="mz-data">(.*?)</script>', text, re.S)
    if m is None:
        raise ValueError(f"{path}: no mazeroute view data in this file")
    return json.loads(m.group(1))


def _write(text: str, path: str | Path) -> Path:
    path = Path(path)
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")
    return path


def save_view_html(layout: Layout, result: RouteResult | None, path: str | Path, *,
                   congestion: np.ndarray | None = None, title: str | None = None) -> Path:
    """Write the viewer page of a layout and (optionally) its routes, atomically.

    Parameters
    ----------
    layout : the layout
    result : its routing result (nets in file order), or None for the bare layout
    path : the HTML file to write
    congestion : optional ``(height, width)`` array of per-cell history cost (negotiated
        routing), ``(layers, height, width)`` for a stack, shown as a layer that can be
        toggled
    title : the page's title; default the layout's name

    Returns
    -------
    The path written.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from mazeroute.readers import parse_layout
    >>> lay = parse_layout({"width": 3, "height": 2,
    ...                     "nets": [{"name": "n", "pins": [[0, 0], [2, 1]]}]})
    >>> p = save_view_html(lay, None, pathlib.Path(tempfile.mkdtemp()) / "v.html")
    >>> text = p.read_text()
    >>> "default-src 'none'" in text, "http" in text.replace("http-equiv", "")
    (True, False)
    """
    return _write(page(view_data(layout, result, congestion=congestion, title=title)), path)


def save_wavefront_html(layout: Layout, levels: np.ndarray, path: str | Path, *,
                        roots: Sequence[Cell], target: Cell | None = None,
                        path_cells: Sequence[Cell] | None = None,
                        others: Sequence[Cell] | None = None, title: str = "") -> Path:
    """Write a page that scrubs one wavefront level by level, atomically.

    Parameters
    ----------
    layout : the layout (its blockages are drawn dark grey)
    levels : ``(height, width)`` levels (``(layers, height, width)`` for a stack),
        ``UNREACHED`` where not reached
    path : the HTML file to write
    roots : the wavefront's level-0 cells
    target : a cell to mark, or None
    path_cells : the chosen wire, drawn on top (toggle), or None
    others : cells of other nets (obstacles to this one)
    title : the page's title; default the layout's name

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from mazeroute.engines import bfs
    >>> from mazeroute.readers import parse_layout
    >>> lay = parse_layout({"width": 4, "height": 1, "nets": []})
    >>> lv = bfs(~lay.blocked, (0, 0), backend="cpu")
    >>> p = save_wavefront_html(lay, lv, pathlib.Path(tempfile.mkdtemp()) / "w.html",
    ...                         roots=[(0, 0)], target=(3, 0))
    >>> d = read_view_data(p)
    >>> d["kind"], d["top"], decode_levels(d["levels"], 4, 1).tolist()
    ('wavefront', 3, [[0, 1, 2, 3]])
    """
    data = wavefront_data(layout, levels, roots=roots, target=target, path_cells=path_cells,
                          others=others, title=title)
    return _write(page(data), path)


def _count(v) -> bool:
    """Whether ``v`` is an integer the page holds in a ``u32``."""
    return isinstance(v, int) and not isinstance(v, bool) and 0 <= v < _U32


def routes_result(layout: Layout, routes: dict) -> RouteResult:
    """A :class:`RouteResult` from a routes file's JSON (FORMATS.md), nets in file order.

    Checks the shape only (an object with a list of nets, each with a name, ``routed``,
    and for a routed net a list of ``[x, y]`` cells, ``[x, y, layer]`` in a stack) and
    raises :class:`ValueError` naming the entry at fault; the promises about the layout are
    :func:`mazeroute.contract.check_routes`'s. ``bends`` is counted from the cells
    when the file has none (a stack's, 0), and a stack's ``vias`` from its cells;
    ``reason`` is kept when the file has one.

    >>> from mazeroute.readers import parse_layout
    >>> lay = parse_layout({"width": 3, "height": 2,
    ...                     "nets": [{"name": "n", "pins": [[0, 0], [2, 1]]}]})
    >>> r = routes_result(lay, {"nets": [{"name": "n", "routed": True, "order": 0,
    ...     "cells": [[0, 0], [1, 0], [2, 0], [2, 1]], "length": 3}]})
    >>> r.nets[0].length, r.nets[0].bends
    (3, 1)
    """
    if not isinstance(routes, dict) or not isinstance(routes.get("nets"), list):
        raise ValueError("a routes file is a JSON object with a 'nets' list")
    d = _dims(layout)
    spelled = "[x, y]" if d == 2 else "[x, y, layer]"
    by_name: dict[str, dict] = {}
    for k, e in enumerate(routes["nets"]):
        if not isinstance(e, dict) or not isinstance(e.get("name"), str):
            raise ValueError(f"nets[{k}] is not an object with a 'name'")
        if not isinstance(e.get("routed"), bool):
            raise ValueError(f"net {e['name']!r}: 'routed' is not true or false")
        cells = e.get("cells", [])
        if not isinstance(cells, list) or not all(
                isinstance(c, list) and len(c) == d
                and all(isinstance(v, int) and not isinstance(v, bool) for v in c)
                for c in cells):
            raise ValueError(f"net {e['name']!r}: 'cells' is not a list of {spelled} "
                             "integers")
        order = e.get("order")
        if order is not None and (not isinstance(order, int) or isinstance(order, bool)):
            raise ValueError(f"net {e['name']!r}: 'order' is not an integer or null")
        by_name[e["name"]] = e
    nets = []
    for net in layout.nets:
        e = by_name.get(net.name)
        if e is None:
            raise ValueError(f"net {net.name!r} of the layout is not in the routes file")
        cells = [tuple(int(v) for v in c) for c in e.get("cells", [])]
        routed = bool(e["routed"])
        length = e.get("length")
        if not isinstance(length, int) or isinstance(length, bool):
            length = max(len(cells) - 1, 0)
        elif routed and not 0 <= length < _U32:
            # the checker bounds a tree's length only below; the page keeps it in a u32
            raise ValueError(f"net {e['name']!r}: 'length' {quote(length)} is not a wire "
                             "length (0 .. 2^32 - 1)")
        b = e.get("bends")
        if not _count(b):
            # bends is outside the contract: a value the page cannot hold is recounted
            b = path_bends(np.asarray(cells)) if len(net.pins) == 2 and d == 2 else 0
        r = NetRoute(net.name, list(net.pins), routed, e.get("order") if routed else None,
                     cells if routed else [], length if routed else 0, b if routed else 0)
        if d == 3 and routed:
            v = e.get("vias")
            r.vias = v if _count(v) else len(via_cells(np.asarray(cells).reshape(-1, 3),
                                                       len(net.pins) <= 2))
        reason = e.get("reason")
        if isinstance(reason, str) and reason:
            r.reason = reason                        # type: ignore[attr-defined]
        nets.append(r)
    result = RouteResult(layout, nets, str(routes.get("engine", "?")), "file", 0.0)
    if isinstance(routes.get("mode"), str):
        result.mode = routes["mode"]                  # type: ignore[attr-defined]
    return result

__all__ = ["FRONT", "VIEW_FORMAT", "decode_blob", "decode_levels", "page", "read_view_data",
           "routes_result", "save_view_html", "save_wavefront_html", "view_data",
           "wavefront_data"]
