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

Examples
--------
>>> import pathlib, tempfile
>>> from mazeroute.layout import parse_layout
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
from .router import NetRoute, RouteResult

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


def _steps(runs: Sequence[np.ndarray], width: int) -> tuple[np.ndarray, np.ndarray]:
    """Cells of consecutive lists as ``(codes, jumps)``: one code a cell, see the notes."""
    sizes = [len(r) for r in runs]
    if not sum(sizes):
        return np.zeros(0, np.uint8), np.zeros(0, np.uint32)
    idx = np.concatenate([r[:, 1] * width + r[:, 0] for r in runs if len(r)])
    d = np.diff(idx, prepend=-1)
    codes = np.full(idx.size, 4, dtype=np.uint8)
    codes[d == 1] = 0
    codes[d == -1] = 1
    codes[d == width] = 2
    codes[d == -width] = 3
    # a step of one column across a row end is a jump; so is every net's first cell
    x = idx % width
    wrap = ((d == 1) & (x == 0)) | ((d == -1) & (x == width - 1))
    codes[wrap] = 4
    first = np.cumsum([0, *sizes])[:-1][np.asarray(sizes) > 0]
    codes[first] = 4
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


def decode_levels(blob: dict, width: int, height: int) -> np.ndarray:
    """A wavefront page's levels (``UNREACHED`` where not reached) from its ``levels`` blob.

    >>> lv = np.array([[0, 1, UNREACHED], [1, 2, 300]], dtype=np.uint32)
    >>> (decode_levels(_levels_blob(lv), 3, 2) == lv).all()
    np.True_
    """
    v = decode_blob(blob).astype(np.int64)
    if v.size != width * height:
        raise ValueError(f"the levels hold {v.size} values, the grid {width * height}")
    return np.where(v == 0, UNREACHED, v - 1).astype(np.uint32).reshape(height, width)


def _nets_data(layout: Layout, result: RouteResult | None) -> dict:
    n = len(layout.nets)
    pins = [np.asarray(net.pins, dtype=np.int64).reshape(-1, 2) for net in layout.nets]
    w = layout.width
    data: dict = {
        "names": [net.name for net in layout.nets],
        "colour": _blob(np.array([net_colour(i) for i in range(n)], dtype=np.uint8)
                        .reshape(-1), "u8"),
        "pins_n": _blob(np.array([len(p) for p in pins]), "u32"),
        "pins": _blob(np.concatenate([p[:, 1] * w + p[:, 0] for p in pins])
                      if n else np.zeros(0), "u32"),
    }
    if result is None:
        return data
    runs = [r.cell_array() if r.routed else np.zeros((0, 2), np.int64)
            for r in result.nets]
    codes, jumps = _steps(runs, w)
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
    return data


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
        if c.shape != (layout.height, layout.width):
            raise ValueError(f"the congestion array has shape {c.shape}, the layout is "
                             f"{(layout.height, layout.width)} (rows, columns)")
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
    if levels.shape != (layout.height, layout.width):
        raise ValueError(f"levels have shape {levels.shape}, the layout is "
                         f"{(layout.height, layout.width)} (rows, columns)")
    reached = levels != UNREACHED
    data = _common(layout, "wavefront", title or None)
    w = layout.width
    other = np.zeros((layout.height, layout.width), dtype=bool)
    if others is not None and len(others):
        o = np.asarray(others, dtype=np.int64).reshape(-1, 2)
        other[o[:, 1], o[:, 0]] = True
    path = np.asarray(path_cells if path_cells is not None else [], np.int64).reshape(-1, 2)
    codes, jumps = _steps([path], w)
    r = np.asarray(roots, dtype=np.int64).reshape(-1, 2)
    data.update({
        "levels": _levels_blob(levels),
        "top": int(levels[reached].max()) if reached.any() else 0,
        "others": _bits(other),
        "roots": (r[:, 1] * w + r[:, 0]).tolist(),
        "target": None if target is None else int(target[1]) * w + int(target[0]),
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
            "heat": _lut("inferno")}


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
        routing), shown as a layer that can be toggled
    title : the page's title; default the layout's name

    Returns
    -------
    The path written.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from mazeroute.layout import parse_layout
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
    levels : ``(height, width)`` levels, ``UNREACHED`` where not reached
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
    >>> from mazeroute.layout import parse_layout
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


def routes_result(layout: Layout, routes: dict) -> RouteResult:
    """A :class:`RouteResult` from a routes file's JSON (FORMATS.md), nets in file order.

    Checks the shape only (an object with a list of nets, each with a name, ``routed``,
    and for a routed net a list of ``[x, y]`` cells) and raises :class:`ValueError`
    naming the entry at fault; the promises about the layout are
    :func:`mazeroute.contract.check_routes`'s. ``bends`` is counted from the cells
    when the file has none; ``reason`` is kept when the file has one.

    >>> from mazeroute.layout import parse_layout
    >>> lay = parse_layout({"width": 3, "height": 2,
    ...                     "nets": [{"name": "n", "pins": [[0, 0], [2, 1]]}]})
    >>> r = routes_result(lay, {"nets": [{"name": "n", "routed": True, "order": 0,
    ...     "cells": [[0, 0], [1, 0], [2, 0], [2, 1]], "length": 3}]})
    >>> r.nets[0].length, r.nets[0].bends
    (3, 1)
    """
    if not isinstance(routes, dict) or not isinstance(routes.get("nets"), list):
        raise ValueError("a routes file is a JSON object with a 'nets' list")
    by_name: dict[str, dict] = {}
    for k, e in enumerate(routes["nets"]):
        if not isinstance(e, dict) or not isinstance(e.get("name"), str):
            raise ValueError(f"nets[{k}] is not an object with a 'name'")
        if not isinstance(e.get("routed"), bool):
            raise ValueError(f"net {e['name']!r}: 'routed' is not true or false")
        cells = e.get("cells", [])
        if not isinstance(cells, list) or not all(
                isinstance(c, list) and len(c) == 2
                and all(isinstance(v, int) and not isinstance(v, bool) for v in c)
                for c in cells):
            raise ValueError(f"net {e['name']!r}: 'cells' is not a list of [x, y] integers")
        order = e.get("order")
        if order is not None and (not isinstance(order, int) or isinstance(order, bool)):
            raise ValueError(f"net {e['name']!r}: 'order' is not an integer or null")
        by_name[e["name"]] = e
    nets = []
    for net in layout.nets:
        e = by_name.get(net.name)
        if e is None:
            raise ValueError(f"net {net.name!r} of the layout is not in the routes file")
        cells = [(int(x), int(y)) for x, y in e.get("cells", [])]
        routed = bool(e["routed"])
        length = e.get("length")
        if not isinstance(length, int) or isinstance(length, bool):
            length = max(len(cells) - 1, 0)
        elif routed and not 0 <= length < _U32:
            # the checker bounds a tree's length only below; the page keeps it in a u32
            raise ValueError(f"net {e['name']!r}: 'length' {quote(length)} is not a wire "
                             "length (0 .. 2^32 - 1)")
        b = e.get("bends")
        if not isinstance(b, int) or isinstance(b, bool) or not 0 <= b < _U32:
            # bends is outside the contract: a value the page cannot hold is recounted
            b = path_bends(np.asarray(cells)) if len(net.pins) == 2 else 0
        r = NetRoute(net.name, list(net.pins), routed, e.get("order") if routed else None,
                     cells if routed else [], length if routed else 0, b if routed else 0)
        reason = e.get("reason")
        if isinstance(reason, str) and reason:
            r.reason = reason                        # type: ignore[attr-defined]
        nets.append(r)
    result = RouteResult(layout, nets, str(routes.get("engine", "?")), "file", 0.0)
    if isinstance(routes.get("mode"), str):
        result.mode = routes["mode"]                  # type: ignore[attr-defined]
    return result


_HTML = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; \
script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data: blob:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{title}}</title>
<style>{{css}}</style>
</head><body>
<header>
<span id="title"></span><span id="summary"></span>
<span class="tools"><button id="zout" title="zoom out (-)">&minus;</button><button id="zin"
 title="zoom in (+)">+</button><button id="fit" title="fit to window (f)">fit</button>
<span id="zoom"></span></span>
<span id="hover"></span>
</header>
<main>
<div id="stage"><canvas id="cv"></canvas><div id="msg">loading&hellip;</div></div>
<aside id="side">
<section id="netpanel" hidden>
<div class="row"><input id="search" type="search" placeholder="search nets (/)"
 autocomplete="off"><select id="filter"><option value="all">all</option>
<option value="unrouted">unrouted</option><option value="routed">routed</option></select>
<select id="sort"><option value="status">unrouted first</option><option value="name">name
</option><option value="length">length</option><option value="order">order</option>
</select></div>
<div id="count"></div>
<div id="list"><div id="spacer"></div></div>
<div id="detail"></div>
<div id="congrow" hidden><label><input id="cong" type="checkbox"> congestion (history
 cost)</label><canvas id="congbar" width="256" height="12"></canvas><div class="ticks">
<span>0</span><span id="congmax"></span></div></div>
<label id="marksrow" hidden><input id="marks" type="checkbox" checked> ring the pins of
 unrouted nets</label>
<div id="keys"></div>
</section>
<section id="wavepanel" hidden>
<div class="row"><button id="play">&#9654;</button><input id="slider" type="range"
 min="0" max="0" value="0"></div>
<div id="levelinfo"></div>
<canvas id="bar" width="256" height="14"></canvas>
<div class="ticks"><span>0</span><span id="barmax"></span></div>
<label><input id="showpath" type="checkbox" checked> show the path</label>
<div id="wavekeys"></div>
</section>
<div class="help">drag: pan &middot; wheel, +/-: zoom &middot; f: fit &middot; arrows: pan
 &middot; /: search &middot; Esc: clear</div>
</aside>
</main>
<script type="application/json" id="mz-data">{{data}}</script>
<script>{{js}}</script>
</body></html>
"""

_CSS = """
html, body { margin: 0; height: 100%; font: 13px/1.35 system-ui, sans-serif; color: #111; }
body { display: flex; flex-direction: column; }
header { display: flex; gap: 14px; align-items: center; padding: 5px 10px;
  border-bottom: 1px solid #ccc; background: #fafafa; white-space: nowrap; overflow: hidden; }
#title { font-weight: 600; }
#hover { margin-left: auto; font-family: ui-monospace, monospace; }
.tools button { min-width: 28px; }
main { flex: 1; display: flex; min-height: 0; }
#stage { flex: 1; position: relative; min-width: 0; background: #e8e8e8; }
#cv { position: absolute; left: 0; top: 0; width: 100%; height: 100%; cursor: crosshair;
  touch-action: none; }
#msg { position: absolute; left: 12px; top: 10px; }
#side { width: 360px; display: flex; flex-direction: column; border-left: 1px solid #ccc;
  padding: 6px; gap: 6px; box-sizing: border-box; min-height: 0; }
#side section { display: flex; flex-direction: column; gap: 6px; min-height: 0; flex: 1; }
#side section[hidden] { display: none; }
.row { display: flex; gap: 4px; }
#search { flex: 1; min-width: 0; }
#list { flex: 1; overflow-y: auto; position: relative; border: 1px solid #ddd;
  min-height: 120px; }
#spacer { width: 1px; }
.net { position: absolute; left: 0; right: 0; height: 20px; display: flex; gap: 6px;
  align-items: center; padding: 0 4px; cursor: pointer; white-space: nowrap;
  overflow: hidden; box-sizing: border-box; }
.net:hover { background: #eef; }
.net.sel { background: #ffe7a8; }
.sw { width: 11px; height: 11px; flex: none; border: 1px solid #777; }
.nm { overflow: hidden; text-overflow: ellipsis; flex: none; max-width: 70%; }
.st { color: #555; font-size: 12px; flex: 1 1 0; min-width: 0; overflow: hidden;
  text-overflow: ellipsis; }
.net.un .st { color: #b00; font-weight: 600; }
#detail { border-top: 1px solid #ddd; padding-top: 4px; max-height: 32%; overflow: auto;
  word-break: break-word; }
#detail:empty { display: none; }
.ticks { display: flex; justify-content: space-between; width: 256px; font-size: 11px; }
#slider { flex: 1; }
.key { display: flex; gap: 6px; align-items: center; }
.help { color: #666; font-size: 11px; }
"""

_JS = r"""
"use strict";
(async function () {
const T0 = performance.now();
const D = JSON.parse(document.getElementById("mz-data").textContent);
const timings = {parsed: performance.now() - T0};       // ms since the script started
const tick = (label) => { timings[label] = performance.now() - T0; };
const W = D.width, H = D.height, N = W * H;
const $ = (id) => document.getElementById(id);
const msg = $("msg");
const T = {u8: Uint8Array, u16: Uint16Array, u32: Uint32Array, i32: Int32Array,
  f32: Float32Array};

function b64(s) {
  const bin = atob(s), n = bin.length, u = new Uint8Array(n);
  for (let i = 0; i < n; i++) u[i] = bin.charCodeAt(i);
  return u;
}
async function blob(b) {
  if (!b) return null;
  const z = b64(b.z);
  const s = new Blob([z]).stream().pipeThrough(new DecompressionStream("deflate"));
  const buf = await new Response(s).arrayBuffer();
  return new T[b.dtype](buf, 0, b.n);
}
function rgb(hex) {
  return [1, 3, 5].map((k) => parseInt(hex.slice(k, k + 2), 16));
}
function pack(c) { return (255 << 24 | c[2] << 16 | c[1] << 8 | c[0]) >>> 0; }
function lut(hex) {
  const out = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    out[i] = pack([0, 2, 4].map((k) => parseInt(hex.substr(6 * i + k, 2), 16)));
  }
  return out;
}
function css(c) { return "rgb(" + c[0] + "," + c[1] + "," + c[2] + ")"; }
function decodeSteps(codes, jumps, out) {
  let c = 0, j = 0;
  for (let i = 0; i < codes.length; i++) {
    const k = codes[i];
    if (k === 0) c += 1; else if (k === 1) c -= 1; else if (k === 2) c += W;
    else if (k === 3) c -= W; else c = jumps[j++];
    out[i] = c;
  }
  return out;
}

if (typeof DecompressionStream === "undefined") {
  msg.textContent = "This browser cannot inflate the embedded data " +
    "(no DecompressionStream): open the file in a current Chrome, Edge, Firefox or Safari.";
  return;
}
const C = {};
for (const k in D.colours) C[k] = rgb(D.colours[k]);
const P = {};
for (const k in C) P[k] = pack(C[k]);
document.title = D.title;
$("title").textContent = D.title;

// --- grid state ---------------------------------------------------------------------------
const bits = await blob(D.blocked);
const blocked = (i) => (bits[i >> 3] >> (i & 7)) & 1;
function eachBlocked(f) {
  for (let j = 0; j < bits.length; j++) {
    const b = bits[j];
    if (!b) continue;
    for (let t = 0; t < 8; t++) if ((b >> t) & 1 && 8 * j + t < N) f(8 * j + t);
  }
}
const base = document.createElement("canvas");
base.width = W; base.height = H;
const bctx = base.getContext("2d");
const img = bctx.createImageData(W, H);
const px = new Uint32Array(img.data.buffer);
const prio = new Uint8Array(N);          // what survives when zoomed out: higher wins
const view = {s: 1, ox: 0, oy: 0};
let mips = [];                            // [{c: canvas, p: priorities}], level m: 2^m cells
let overlay = null;                       // congestion layer {c, mips}
let hover = -1, sel = -1;
const cv = $("cv"), ctx = cv.getContext("2d");

function mip(m, src) {
  // block-wise reduction that keeps the pixel of highest priority (pins, wires survive)
  src = src || {c: base, p: prio, list: mips, px: px};
  const list = src.list;
  if (m === 0) return src.c;
  if (list[m]) return list[m].c;
  let prev = m - 1 === 0 ? {c: src.c, p: src.p, px: src.px, w: W, h: H} : list[m - 1];
  if (!prev) { mip(m - 1, src); prev = list[m - 1]; }
  const w = Math.ceil(prev.w / 2), h = Math.ceil(prev.h / 2);
  const c = document.createElement("canvas");
  c.width = w; c.height = h;
  const x2 = c.getContext("2d"), im = x2.createImageData(w, h);
  const out = new Uint32Array(im.data.buffer), op = new Uint8Array(w * h);
  const ip = prev.px, pp = prev.p, pw = prev.w, ph = prev.h;
  let o = 0;
  for (let y = 0; y < h; y++) {
    const r0 = 2 * y * pw, r1 = 2 * y + 1 < ph ? r0 + pw : r0;
    for (let x = 0; x < w; x++) {
      const x0 = 2 * x, x1 = x0 + 1 < pw ? x0 + 1 : x0;
      let q = r0 + x0, b = pp[q], t = r0 + x1;
      if (pp[t] > b) { b = pp[t]; q = t; }
      t = r1 + x0;
      if (pp[t] > b) { b = pp[t]; q = t; }
      t = r1 + x1;
      if (pp[t] > b) { b = pp[t]; q = t; }
      out[o] = ip[q]; op[o++] = b;
    }
  }
  x2.putImageData(im, 0, 0);
  list[m] = {c: c, p: op, px: out, w: w, h: h};
  return c;
}

// --- drawing --------------------------------------------------------------------------------
function resize() {
  const r = cv.getBoundingClientRect(), dpr = window.devicePixelRatio || 1;
  cv.width = Math.max(1, Math.round(r.width * dpr));
  cv.height = Math.max(1, Math.round(r.height * dpr));
}
function fit() {
  const r = cv.getBoundingClientRect();
  const s = Math.min(r.width / W, r.height / H) * 0.98;
  view.s = s; view.ox = (r.width - W * s) / 2; view.oy = (r.height - H * s) / 2;
  draw();
}
function zoomAt(f, cx, cy) {
  const s = Math.min(256, Math.max(0.01, view.s * f));
  view.ox = cx - (cx - view.ox) * s / view.s;
  view.oy = cy - (cy - view.oy) * s / view.s;
  view.s = s;
  draw();
}
function drawLayer(ctx2, src, dpr) {
  const s = view.s * dpr;
  let m = 0;
  while (s * (1 << m) < 1 && (W >> m) > 1) m++;        // a texel covers >= 1 device pixel
  const c = mip(m, src), k = 1 << m;
  ctx2.drawImage(c, 0, 0, c.width, c.height, view.ox * dpr, view.oy * dpr,
    c.width * k * s, c.height * k * s);
}
let pending = false;
function draw() {
  if (pending) return;
  pending = true;
  requestAnimationFrame(() => { pending = false; paint(); });
}
let dirty = false;
function paint() {
  if (dirty) { bctx.putImageData(img, 0, 0); mips = []; dirty = false; }
  const dpr = window.devicePixelRatio || 1, s = view.s;
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.fillStyle = "#e8e8e8";
  ctx.fillRect(0, 0, cv.width, cv.height);
  ctx.imageSmoothingEnabled = false;
  drawLayer(ctx, null, dpr);
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  if (overlay && overlay.on) {
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    drawLayer(ctx, overlay.src, dpr);
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  }
  if (KIND.paint) KIND.paint(s);
  if (hover >= 0 && s >= 4) {
    ctx.strokeStyle = "rgba(0,0,0,0.6)"; ctx.lineWidth = 1;
    ctx.strokeRect(view.ox + (hover % W) * s + 0.5, view.oy + Math.floor(hover / W) * s + 0.5,
      s - 1, s - 1);
  }
  if (!timings.painted) tick("painted");
  $("zoom").textContent = (s >= 1 ? s.toFixed(2) : s.toPrecision(3)) + " px/cell";
  document.body.dataset.scale = String(s);
}
function cellAt(cx, cy) {
  const x = Math.floor((cx - view.ox) / view.s), y = Math.floor((cy - view.oy) / view.s);
  return (x >= 0 && y >= 0 && x < W && y < H) ? y * W + x : -1;
}
function inView(i, pad) {
  const x = view.ox + (i % W + 0.5) * view.s, y = view.oy + (Math.floor(i / W) + 0.5) * view.s;
  return x > -pad && y > -pad && x < cv.clientWidth + pad && y < cv.clientHeight + pad;
}
function box(c, d) {
  // cell c's square on screen, on whole pixels (no seams between cells), >= d pixels wide
  const s = view.s, x = view.ox + (c % W) * s, y = view.oy + Math.floor(c / W) * s;
  if (s < d) return [x + (s - d) / 2, y + (s - d) / 2, d, d];
  const x0 = Math.round(x), y0 = Math.round(y);
  return [x0, y0, Math.round(x + s) - x0, Math.round(y + s) - y0];
}
function rings(cells, r, colour) {
  // one path for all: thousands of unrouted pins stay one stroke
  ctx.beginPath();
  for (const i of cells) {
    if (!inView(i, r + 2)) continue;
    const x = view.ox + (i % W + 0.5) * view.s, y = view.oy + (Math.floor(i / W) + 0.5) * view.s;
    ctx.moveTo(x + r, y); ctx.arc(x, y, r, 0, 2 * Math.PI);
  }
  const w = r >= 5 ? 2 : 1;
  ctx.lineWidth = w + 2; ctx.strokeStyle = "#fff"; ctx.stroke();
  ctx.lineWidth = w; ctx.strokeStyle = colour; ctx.stroke();
}

// --- input ---------------------------------------------------------------------------------
let drag = null;
cv.addEventListener("wheel", (e) => {
  e.preventDefault();
  const r = cv.getBoundingClientRect();
  zoomAt(Math.pow(1.2, -e.deltaY / 100), e.clientX - r.left, e.clientY - r.top);
}, {passive: false});
cv.addEventListener("pointerdown", (e) => {
  drag = {x: e.clientX, y: e.clientY, ox: view.ox, oy: view.oy, moved: false};
  cv.setPointerCapture(e.pointerId);
});
cv.addEventListener("pointermove", (e) => {
  const r = cv.getBoundingClientRect();
  if (drag) {
    const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
    if (Math.abs(dx) + Math.abs(dy) > 3) drag.moved = true;
    if (drag.moved) { view.ox = drag.ox + dx; view.oy = drag.oy + dy; draw(); }
  }
  const i = cellAt(e.clientX - r.left, e.clientY - r.top);
  if (i !== hover) { hover = i; showHover(); draw(); }
});
cv.addEventListener("pointerup", (e) => {
  const r = cv.getBoundingClientRect();
  if (drag && !drag.moved && KIND.click) KIND.click(cellAt(e.clientX - r.left,
    e.clientY - r.top));
  drag = null;
});
cv.addEventListener("pointerleave", () => { hover = -1; showHover(); draw(); });
window.addEventListener("resize", () => { resize(); draw(); });
document.addEventListener("keydown", (e) => {
  const t = e.target.tagName;
  if (e.key === "Escape" && KIND.clear) { KIND.clear(); return; }
  if (t === "INPUT" || t === "SELECT" || t === "TEXTAREA") return;
  const r = cv.getBoundingClientRect(), step = (e.shiftKey ? 0.5 : 0.1);
  if (e.key === "+" || e.key === "=") zoomAt(1.25, r.width / 2, r.height / 2);
  else if (e.key === "-" || e.key === "_") zoomAt(0.8, r.width / 2, r.height / 2);
  else if (e.key === "f" || e.key === "0") fit();
  else if (e.key === "ArrowLeft") { view.ox += r.width * step; draw(); }
  else if (e.key === "ArrowRight") { view.ox -= r.width * step; draw(); }
  else if (e.key === "ArrowUp") { view.oy += r.height * step; draw(); }
  else if (e.key === "ArrowDown") { view.oy -= r.height * step; draw(); }
  else if (e.key === "/" && $("search")) { e.preventDefault(); $("search").focus(); }
  else return;
  e.preventDefault();
});
$("zin").onclick = () => zoomAt(1.25, cv.clientWidth / 2, cv.clientHeight / 2);
$("zout").onclick = () => zoomAt(0.8, cv.clientWidth / 2, cv.clientHeight / 2);
$("fit").onclick = fit;
function showHover() {
  if (hover < 0) { $("hover").textContent = ""; return; }
  const x = hover % W, y = Math.floor(hover / W);
  $("hover").textContent = "x " + x + ", y " + y + " \u00b7 " + KIND.owner(hover);
}
function key(box, colour, text, ringed) {
  const d = document.createElement("div"), sw = document.createElement("span");
  d.className = "key"; sw.className = "sw"; sw.style.background = colour;
  if (ringed) { sw.style.borderRadius = "50%"; sw.style.border = "2px solid " + ringed; }
  const t = document.createElement("span"); t.textContent = text;
  d.append(sw, t); box.append(d);
}
function bar(canvas, table, mark) {
  const c2 = canvas.getContext("2d"), w = canvas.width, h = canvas.height;
  const im = c2.createImageData(w, h), p = new Uint32Array(im.data.buffer);
  for (let x = 0; x < w; x++) {
    const v = table[Math.round(x / (w - 1) * 255)];
    for (let y = 0; y < h; y++) p[y * w + x] = v;
  }
  c2.putImageData(im, 0, 0);
  if (mark !== undefined) {
    c2.fillStyle = css(C.front); c2.fillRect(Math.round(mark * (w - 3)), 0, 3, h);
  }
}

// --- a routed layout ------------------------------------------------------------------------
const KIND = {};
async function routes() {
  $("netpanel").hidden = false;
  const nd = D.nets, n = nd.names.length, names = nd.names;
  const colour = await blob(nd.colour), pinsN = await blob(nd.pins_n), pins = await blob(nd.pins);
  const hasResult = !!nd.routed;
  const routed = hasResult ? await blob(nd.routed) : null;
  const order = hasResult ? await blob(nd.order) : null;
  const length = hasResult ? await blob(nd.length) : null;
  const bendsA = hasResult ? await blob(nd.bends) : null;
  const cellsN = hasResult ? await blob(nd.cells_n) : new Uint32Array(n);
  const cells = new Uint32Array(cellsN.reduce((a, b) => a + b, 0));
  if (hasResult) decodeSteps(await blob(nd.codes), await blob(nd.jumps), cells);
  tick("decoded");
  const reasons = nd.reasons || {};
  const pinStart = new Uint32Array(n + 1), cellStart = new Uint32Array(n + 1);
  for (let i = 0; i < n; i++) {
    pinStart[i + 1] = pinStart[i] + pinsN[i]; cellStart[i + 1] = cellStart[i] + cellsN[i];
  }
  const pinNet = new Int32Array(pins.length);
  for (let i = 0; i < n; i++) pinNet.fill(i, pinStart[i], pinStart[i + 1]);
  const col = (i) => [colour[3 * i], colour[3 * i + 1], colour[3 * i + 2]];
  const dark = (c) => c.map((v) => Math.floor(v * 55 / 100));
  const isUn = (i) => hasResult && !routed[i];
  const owner = new Int32Array(N);                 // 0 none, i + 1: wire of net i
  const pinOf = new Map();
  px.fill(P.free);
  eachBlocked((i) => { px[i] = P.blocked; prio[i] = 1; });
  for (let i = 0; i < n; i++) {
    const c = pack(col(i));
    for (let k = cellStart[i]; k < cellStart[i + 1]; k++) {
      px[cells[k]] = c; prio[cells[k]] = 2; owner[cells[k]] = i + 1;
    }
  }
  for (let i = 0; i < n; i++) {
    const c = pack(dark(col(i)));
    for (let k = pinStart[i]; k < pinStart[i + 1]; k++) {
      px[pins[k]] = c; prio[pins[k]] = isUn(i) ? 4 : 3; pinOf.set(pins[k], i);
    }
  }
  bctx.putImageData(img, 0, 0);
  tick("drawn");
  const unrouted = [];
  for (let i = 0; i < n; i++) if (isUn(i)) unrouted.push(i);
  const unroutedPins = [];
  for (const i of unrouted) {
    for (let k = pinStart[i]; k < pinStart[i + 1]; k++) unroutedPins.push(pins[k]);
  }
  $("summary").textContent = W + " \u00d7 " + H + " \u00b7 " + (hasResult ?
    D.routed + "/" + n + " nets routed \u00b7 wirelength " + D.wirelength + " \u00b7 " +
    D.mode + " \u00b7 " + D.engine : n + " nets, not routed");
  const keys = $("keys");
  key(keys, css(C.blocked), "blockage");
  key(keys, "#999", "pin (black square when zoomed in)");
  if (hasResult) key(keys, "transparent", "pin of an unrouted net", "#d00000");
  $("marksrow").hidden = !unrouted.length;
  $("marks").onchange = draw;

  if (D.congestion) {
    const cg = await blob(D.congestion), mx = D.congestion_max || 1, heat = lut(D.heat);
    const c = document.createElement("canvas");
    c.width = W; c.height = H;
    const cx2 = c.getContext("2d"), im = cx2.createImageData(W, H);
    const p = new Uint32Array(im.data.buffer), pr = new Uint8Array(N);
    for (let i = 0; i < N; i++) {
      if (cg[i] > 0) {
        const t = Math.min(1, cg[i] / mx), v = heat[Math.round(t * 255)];
        p[i] = (v & 0x00ffffff | (Math.round(120 + 120 * t) << 24)) >>> 0;
        pr[i] = 1 + Math.round(t * 254);
      }
    }
    cx2.putImageData(im, 0, 0);
    overlay = {on: false, data: cg, src: {c: c, p: pr, px: p, list: []}};
    $("congrow").hidden = false;
    $("congmax").textContent = String(+mx.toPrecision(4));
    bar($("congbar"), heat);
    $("cong").onchange = (e) => { overlay.on = e.target.checked; draw(); };
  }

  KIND.owner = (i) => {
    let t;
    if (pinOf.has(i)) {
      const k = pinOf.get(i);
      t = "pin of net " + JSON.stringify(names[k]) + (isUn(k) ? " (unrouted)" : "");
    } else if (owner[i]) t = "wire of net " + JSON.stringify(names[owner[i] - 1]);
    else if (blocked(i)) t = "blockage";
    else t = "free";
    if (overlay && overlay.data[i] > 0) t += " \u00b7 history cost " + +overlay.data[i]
      .toPrecision(4);
    return t;
  };
  KIND.click = (i) => {
    if (i < 0) return;
    const k = pinOf.has(i) ? pinOf.get(i) : owner[i] - 1;
    select(k, false);
  };
  KIND.clear = () => select(-1, false);
  function pinMarks(from, to, s) {
    // zoomed in, a pin is its net's colour with a centred mark, as in the PNG
    const m = Math.max(1, Math.floor(s / 2)), o = (s - m) / 2;
    for (let k = from; k < to; k++) {
      const c = pins[k], i = pinNet[k];
      if (!inView(c, s)) continue;
      const b = box(c, 0);
      ctx.fillStyle = css(col(i)); ctx.fillRect(b[0], b[1], b[2], b[3]);
      const x = view.ox + (c % W) * s, y = view.oy + Math.floor(c / W) * s;
      ctx.fillStyle = css(isUn(i) ? C.unrouted_pin : C.pin);
      ctx.fillRect(Math.round(x + o), Math.round(y + o), m, m);
    }
  }
  KIND.paint = (s) => {
    const dpr = window.devicePixelRatio || 1;
    if (s >= 4) pinMarks(0, pins.length, s);
    if (sel >= 0) {
      ctx.fillStyle = "rgba(247,247,242,0.8)";
      ctx.fillRect(view.ox, view.oy, W * s, H * s);
      ctx.fillStyle = css(col(sel));
      const d = 2 / dpr;
      for (let k = cellStart[sel]; k < cellStart[sel + 1]; k++) {
        const b = box(cells[k], d); ctx.fillRect(b[0], b[1], b[2], b[3]);
      }
      for (let k = pinStart[sel]; k < pinStart[sel + 1]; k++) {
        const b = box(pins[k], d); ctx.fillRect(b[0], b[1], b[2], b[3]);
      }
      if (s >= 4) pinMarks(pinStart[sel], pinStart[sel + 1], s);
    }
    // few unrouted nets get big rings; thousands get small ones, so the grid stays visible
    const r = Math.max(s * 0.7, unrouted.length > 200 ? 2.5 : 6);
    if ($("marks").checked) rings(unroutedPins, r, "#d00000");
    if (sel >= 0) rings(pins.subarray(pinStart[sel], pinStart[sel + 1]), Math.max(r, 6) + 3,
      "#000");
  };

  // the net list
  const list = $("list"), spacer = $("spacer"), ROW = 20;
  let shown = [];
  const pool = [];
  function status(i) {
    if (!hasResult) return pinsN[i] + " pins";
    if (!routed[i]) return "unrouted" + (reasons[i] ? ": " + reasons[i] : "");
    return "len " + length[i] + " \u00b7 " + bendsA[i] + " bends \u00b7 #" + order[i];
  }
  function refilter() {
    const q = $("search").value.trim().toLowerCase(), f = $("filter").value;
    const out = [];
    for (let i = 0; i < n; i++) {
      if (f === "unrouted" && !isUn(i)) continue;
      if (f === "routed" && (!hasResult || !routed[i])) continue;
      if (q && names[i].toLowerCase().indexOf(q) < 0) continue;
      out.push(i);
    }
    const how = $("sort").value;
    if (how === "status") out.sort((a, b) => (isUn(b) - isUn(a)) || a - b);
    else if (how === "name") out.sort((a, b) => names[a] < names[b] ? -1 : names[a] >
      names[b] ? 1 : a - b);
    else if (how === "length" && hasResult) out.sort((a, b) => length[b] - length[a] || a - b);
    else if (how === "order" && hasResult) {
      out.sort((a, b) => ((order[a] < 0) - (order[b] < 0)) || order[a] - order[b] || a - b);
    }
    shown = out;
    spacer.style.height = shown.length * ROW + "px";
    $("count").textContent = (hasResult ? unrouted.length + " unrouted \u00b7 " +
      (n - unrouted.length) + " routed \u00b7 " : "") + "showing " + shown.length + " of " + n;
    list.scrollTop = 0;
    renderList();
  }
  function renderList() {
    const first = Math.floor(list.scrollTop / ROW);
    const count = Math.min(shown.length - first, Math.ceil(list.clientHeight / ROW) + 2);
    for (let r = 0; r < Math.max(count, pool.length); r++) {
      if (r >= count) { if (pool[r]) pool[r].hidden = true; continue; }
      if (!pool[r]) {
        const d = document.createElement("div"), sw = document.createElement("span");
        const nm = document.createElement("span"), st = document.createElement("span");
        sw.className = "sw"; nm.className = "nm"; st.className = "st";
        d.append(sw, nm, st);
        d.onclick = () => select(+d.dataset.net, true);
        list.append(d); pool[r] = d;
      }
      const d = pool[r], i = shown[first + r];
      d.hidden = false;
      d.className = "net" + (isUn(i) ? " un" : "") + (i === sel ? " sel" : "");
      d.dataset.net = String(i);
      d.dataset.name = names[i];
      d.style.top = (first + r) * ROW + "px";
      d.children[0].style.background = css(col(i));
      d.children[1].textContent = names[i];
      d.children[2].textContent = status(i);
      d.title = names[i] + ": " + status(i);
    }
  }
  function detail() {
    const box = $("detail");
    box.textContent = "";
    if (sel < 0) return;
    const i = sel, add = (label, text) => {
      const d = document.createElement("div"), b = document.createElement("b");
      b.textContent = label + ": "; d.append(b, document.createTextNode(text)); box.append(d);
    };
    add("net", names[i]);
    if (hasResult) {
      add("status", routed[i] ? "routed" : "unrouted");
      if (!routed[i]) add("reason", reasons[i] || "not given by the result");
      else {
        add("length", String(length[i])); add("bends", String(bendsA[i]));
        add("order", String(order[i]));
      }
    }
    const ps = [];
    for (let k = pinStart[i]; k < Math.min(pinStart[i + 1], pinStart[i] + 12); k++) {
      ps.push("[" + pins[k] % W + ", " + Math.floor(pins[k] / W) + "]");
    }
    add("pins (" + pinsN[i] + ")", ps.join(" ") + (pinsN[i] > 12 ? " \u2026" : ""));
    const b = document.createElement("button");
    b.textContent = "zoom to net"; b.onclick = () => zoomTo(i);
    box.append(b);
  }
  function zoomTo(i) {
    let x0 = W, y0 = H, x1 = -1, y1 = -1;
    const grow = (c) => {
      const x = c % W, y = Math.floor(c / W);
      x0 = Math.min(x0, x); x1 = Math.max(x1, x); y0 = Math.min(y0, y); y1 = Math.max(y1, y);
    };
    for (let k = pinStart[i]; k < pinStart[i + 1]; k++) grow(pins[k]);
    for (let k = cellStart[i]; k < cellStart[i + 1]; k++) grow(cells[k]);
    const r = cv.getBoundingClientRect(), bw = x1 - x0 + 1 + 8, bh = y1 - y0 + 1 + 8;
    const s = Math.max(view.s, Math.min(32, r.width / bw, r.height / bh));
    view.s = s;
    view.ox = r.width / 2 - (x0 + x1 + 1) / 2 * s;
    view.oy = r.height / 2 - (y0 + y1 + 1) / 2 * s;
    draw();
  }
  function select(i, zoom) {
    sel = i >= 0 && i < n ? i : -1;
    document.body.dataset.selected = sel >= 0 ? names[sel] : "";
    detail(); renderList();
    if (sel >= 0 && zoom) zoomTo(sel); else draw();
  }
  list.addEventListener("scroll", renderList);
  $("search").addEventListener("input", refilter);
  $("search").addEventListener("keydown", (e) => {
    if (e.key === "Enter" && shown.length) select(shown[0], true);
  });
  $("filter").onchange = refilter;
  $("sort").onchange = refilter;
  window.addEventListener("resize", renderList);
  refilter();
  window.mazeview.select = (name) => select(names.indexOf(name), true);
}

// --- a wavefront --------------------------------------------------------------------------
async function wavefront() {
  $("wavepanel").hidden = false;
  const top = D.top, vir = lut(D.viridis);
  const lev = await blob(D.levels);                 // level + 1, 0 not reached
  const ob = await blob(D.others);
  const other = (i) => (ob[i >> 3] >> (i & 7)) & 1;
  const pc = await blob(D.path_codes), path = decodeSteps(pc, await blob(D.path_jumps),
    new Uint32Array(pc.length));
  // cells by level, so that moving the slider repaints only the levels in between
  const count = new Uint32Array(top + 2);
  for (let i = 0; i < N; i++) if (lev[i]) count[lev[i]]++;
  const start = new Uint32Array(top + 2);
  for (let l = 1; l <= top; l++) start[l + 1] = start[l] + count[l];
  const byLevel = new Uint32Array(start[top + 1] + count[top + 1]);
  const fill = start.slice();
  for (let i = 0; i < N; i++) if (lev[i]) byLevel[fill[lev[i]]++] = i;
  const shade = (l) => vir[Math.round(l / Math.max(top, 1) * 255)];
  px.fill(P.wave_free);
  for (let j = 0; j < ob.length; j++) {
    const b = ob[j];
    if (!b) continue;
    for (let t = 0; t < 8; t++) {
      if ((b >> t) & 1 && 8 * j + t < N) { px[8 * j + t] = P.other; prio[8 * j + t] = 1; }
    }
  }
  eachBlocked((i) => { px[i] = P.blocked; prio[i] = 1; });
  let k = -1;
  function paintLevel(l, how) {                   // how: 0 not yet, 1 reached, 2 frontier
    for (let q = start[l + 1]; q < start[l + 1] + count[l + 1]; q++) {
      const i = byLevel[q];
      px[i] = how === 2 ? P.front : how === 1 ? shade(l) : P.wave_free;
      prio[i] = how === 2 ? 3 : how;
    }
  }
  function setLevel(l) {
    l = Math.max(0, Math.min(top, l | 0));
    if (k < 0) { for (let m = 0; m < l; m++) paintLevel(m, 1); }
    else if (l > k) { for (let m = k; m < l; m++) paintLevel(m, 1); }
    else if (l < k) { for (let m = l + 1; m <= k; m++) paintLevel(m, 0); }
    paintLevel(l, 2);
    k = l;
    dirty = true;                               // the picture is uploaded once a frame
    $("slider").value = String(l);
    $("levelinfo").textContent = "level " + l + " of " + top + " \u00b7 " + count[l + 1] +
      " cells at this level";
    document.body.dataset.level = String(l);
    bar($("bar"), vir, l / Math.max(top, 1));
    draw();
  }
  $("summary").textContent = W + " \u00d7 " + H + " \u00b7 " + (top + 1) + " levels \u00b7 " +
    (start[top + 1] + count[top + 1]) + " cells reached";
  $("slider").max = String(top);
  $("barmax").textContent = String(top);
  $("slider").addEventListener("input", (e) => setLevel(+e.target.value));
  $("showpath").onchange = draw;
  let timer = null;
  $("play").onclick = () => {
    if (timer) { clearInterval(timer); timer = null; $("play").innerHTML = "&#9654;"; return; }
    if (k >= top) setLevel(0);
    $("play").innerHTML = "&#10074;&#10074;";
    const step = Math.max(1, Math.round(top / 150));
    timer = setInterval(() => {
      if (k >= top) { clearInterval(timer); timer = null; $("play").innerHTML = "&#9654;"; }
      else setLevel(k + step);
    }, 60);
  };
  const keys = $("wavekeys");
  key(keys, css(C.front), "cells of the slider's level");
  key(keys, css(C.blocked), "blockage");
  key(keys, css(C.other), "other nets");
  key(keys, css(C.wave_free), "not reached (yet)");
  if (path.length) key(keys, css(C.path), "path");
  key(keys, "#fff", "root", "#000");
  if (D.target !== null) key(keys, css(C.target), "target", "#000");

  const isRoot = new Set(D.roots);
  KIND.owner = (i) => {
    let t = blocked(i) ? "blockage" : other(i) ? "other net" :
      lev[i] ? "level " + (lev[i] - 1) : "not reached";
    if (isRoot.has(i)) t += " \u00b7 root";
    if (i === D.target) t += " \u00b7 target";
    return t;
  };
  KIND.paint = (s) => {
    const cx = (c) => view.ox + (c % W + 0.5) * s, cy = (c) => view.oy +
      (Math.floor(c / W) + 0.5) * s;
    if ($("showpath").checked && path.length) {
      ctx.strokeStyle = css(C.path); ctx.lineWidth = Math.max(2, s * 0.2);
      ctx.lineCap = "round"; ctx.lineJoin = "round";
      const seen = new Set();
      ctx.beginPath();
      for (let q = 0; q < path.length; q++) {
        const c = path[q], prev = q ? path[q - 1] : -1;
        const near = (a, b) => a >= 0 && (Math.abs(a - b) === W ||
          (Math.abs(a - b) === 1 && Math.floor(a / W) === Math.floor(b / W)));
        if (near(prev, c)) ctx.lineTo(cx(c), cy(c));
        else {
          const j = [c - W, c - 1, c + 1, c + W].find((a) => seen.has(a) && near(a, c));
          if (j !== undefined) { ctx.moveTo(cx(j), cy(j)); ctx.lineTo(cx(c), cy(c)); }
          else { ctx.moveTo(cx(c), cy(c)); ctx.lineTo(cx(c), cy(c)); }
        }
        seen.add(c);
      }
      ctx.stroke();
    }
    const r = Math.max(5, Math.min(0.35 * s, 12));
    for (const c of D.roots) {
      ctx.beginPath(); ctx.arc(cx(c), cy(c), r, 0, 2 * Math.PI);
      ctx.fillStyle = "#fff"; ctx.fill(); ctx.lineWidth = 1.5; ctx.strokeStyle = "#000";
      ctx.stroke();
    }
    if (D.target !== null) {
      const c = D.target;
      ctx.beginPath(); ctx.moveTo(cx(c) - r, cy(c) - r); ctx.lineTo(cx(c) + r, cy(c) + r);
      ctx.moveTo(cx(c) + r, cy(c) - r); ctx.lineTo(cx(c) - r, cy(c) + r);
      ctx.lineWidth = 5; ctx.strokeStyle = "#000"; ctx.stroke();
      ctx.lineWidth = 3; ctx.strokeStyle = css(C.target); ctx.stroke();
    }
  };
  setLevel(top);
  window.mazeview.level = setLevel;
}

// for scripts and tests: the transform (CSS pixels: cell (x, y) starts at ox + x * s,
// oy + y * s of the canvas), and the load times
window.mazeview = {ready: false, view: () => ({s: view.s, ox: view.ox, oy: view.oy}),
  fit: fit, timings: timings};
try {
  if (D.kind === "wavefront") await wavefront(); else await routes();
} catch (err) {
  msg.textContent = "Could not read the embedded data: " + err;
  throw err;
}
msg.hidden = true;
resize();
fit();
requestAnimationFrame(() => {
  window.mazeview.ready = true;
  document.body.dataset.ready = "1";
});
})();
"""

__all__ = ["FRONT", "VIEW_FORMAT", "decode_blob", "decode_levels", "page", "read_view_data",
           "routes_result", "save_view_html", "save_wavefront_html", "view_data",
           "wavefront_data"]
