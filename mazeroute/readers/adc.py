"""Problems of the DA Symposium Algorithm Design Contest (ADC): ``SIZE``, ``LINE_NUM``,
``LINE#k`` and ``VIA#name`` lines, in one layer or several.

A one-layer problem is today's 2-D layout. A problem of ``D > 1`` layers is a layout with
a :class:`~mazeroute.layers.Stack` of ``D`` layers named ``"1"`` .. ``"D"``, every layer
``direction="any"``, ``via_cost=1``, and ``via_sites`` the per-pair ``(D - 1, H, W)`` mask
of the listed VIA columns, each between the adjacent layers of its own range (the contest
changes layers only there); pins are ``(x, y, z)`` with ``z`` counted from 0. The columns
themselves are kept as :class:`Via` in :class:`AdcProblem` (what
:func:`~mazeroute.readers.adc_answer.check_adc_answer` checks an answer against).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..layers import Layer, Stack
from ..layout import Layout, Net
from ..limits import MAX_CELLS, check_size
from .text import excerpt as _show
from .text import line_error as _err
from .text import number as _int
from .text import read_text
from .text import stem_name as _stem_name
from .yaml import parse_layout

#: An ADC problem's first line, ``SIZE WxH`` or ``SIZE WxHxD``.
ADC_SIZE = re.compile(r"SIZE\s+(\d+)\s*[xX]\s*(\d+)(?:\s*[xX]\s*(\d+))?", re.ASCII)
_ADC_NUM = re.compile(r"LINE_NUM\s+(\d+)", re.ASCII)
_COORD = r"\(\s*(\d+)\s*,\s*(\d+)\s*(?:,\s*(\d+)\s*)?\)"
_ADC_LINE = re.compile(rf"LINE#([^\s(]+)\s*{_COORD}\s*-?\s*{_COORD}", re.ASCII)
_ADC_VIA = re.compile(r"VIA#([^\s(]+)\s*((?:\([^()]*\)\s*-?\s*)+)", re.ASCII)
_ADC_ANSWER_ROW = re.compile(r"\d+(?:\s*,\s*\d+)+", re.ASCII)


@dataclass(frozen=True)
class Via:
    """A VIA column of an ADC problem: one via at ``(x, y)`` through the layers ``z0`` to
    ``z1`` (0-based, inclusive, ``z0 < z1``), which exactly one line must use.

    Examples
    --------
    >>> Via("a", 2, 2, 0, 2).cells()
    [(2, 2, 0), (2, 2, 1), (2, 2, 2)]
    """

    name: str
    x: int
    y: int
    z0: int
    z1: int

    def cells(self) -> list[tuple[int, int, int]]:
        """The column's cells ``(x, y, z)``, bottom layer first."""
        return [(self.x, self.y, z) for z in range(self.z0, self.z1 + 1)]


@dataclass(frozen=True)
class AdcProblem:
    """An ADC problem as read: its layout and its VIA columns in file order."""

    layout: Layout
    vias: tuple[Via, ...] = ()


def read_adc(path: str | Path) -> Layout:
    r"""A problem of the DA Symposium Algorithm Design Contest (ADC) as a layout.

    ``SIZE WxH`` or ``SIZE WxHxD``, ``LINE_NUM n``, then ``n`` lines ``LINE#k (x,y)-(x,y)``
    (one layer) or ``LINE#k (x,y,z) (x,y,z)`` (layers counted from 1 in the file), and in
    a problem of several layers any ``VIA#name (x,y,z1) (x,y,z2)...`` columns. Each line
    becomes a two-pin net named ``k`` as written. The layout is named after the file's
    stem; one of several layers has a stack (see the module's notes).

    Raises
    ------
    InputError
        Naming the file and line: an answer file (``LAYER`` lines, rows of net numbers);
        a wrong ``LINE_NUM``; a pin outside the grid, on layer 0 or above ``D``, or
        shared; a VIA whose cells differ in x or y, repeat a layer or leave the grid; a
        malformed line.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = Path(d) / "NL_Q00.txt"
    ...     _ = p.write_text("SIZE 5x4\nLINE_NUM 2\nLINE#1 (0,0)-(4,2)\nLINE#2 (0,3)-(4,3)\n")
    ...     lay = read_adc(p)
    >>> lay.name, lay.width, lay.height, [(n.name, n.pins) for n in lay.nets]
    ('NL_Q00', 5, 4, [('1', [(0, 0), (4, 2)]), ('2', [(0, 3), (4, 3)])])
    """
    return read_adc_problem(path).layout


def read_adc_problem(path: str | Path) -> AdcProblem:
    """An ADC problem file as :func:`read_adc` reads it, with its VIA columns."""
    return parse_adc_problem(read_text(path).removeprefix("\ufeff"), path)


def parse_adc(text: str, file: str | Path) -> list[Layout]:
    """The problem of ``text`` (read from ``file``), as :func:`read_adc` reads it."""
    return [parse_adc_problem(text, file).layout]


def parse_adc_problem(text: str, file: str | Path) -> AdcProblem:
    """The problem of ``text`` (read from ``file``) and its VIA columns.

    Raises
    ------
    InputError
        As :func:`read_adc`.
    """
    lines = [(no, s.strip()) for no, s in enumerate(text.splitlines(), 1)]
    lines = [(no, s) for no, s in lines if s and not s.startswith("#")]
    for no, s in lines:
        if re.match(r"LAYER\b", s) or _ADC_ANSWER_ROW.fullmatch(s):
            raise _err("this is an ADC answer (LAYER lines and rows of net numbers), not a "
                       "problem (SIZE, LINE_NUM, LINE#k lines)", file, no)
    if not lines:
        raise _err("empty: expected 'SIZE WxH' first", file, None)
    w, h, layers = size_line(lines[0], file)
    count = None  # (n, line number)
    nets: dict[str, tuple[list[tuple[int, ...]], int]] = {}
    vias: dict[str, tuple[Via, int]] = {}
    for no, s in lines[1:]:
        if s.startswith("VIA"):
            via = _via(s, no, (w, h, layers), vias, file)
            vias[via.name] = (via, no)
        elif s.startswith("LINE_NUM"):
            m = _ADC_NUM.fullmatch(s)
            if not m:
                raise _err(f"expected 'LINE_NUM n', got {_show(s)}", file, no)
            if count is not None:
                raise _err(f"a second LINE_NUM (the first is on line {count[1]})", file, no)
            count = (_int(m[1], file, no), no)
        elif s.startswith("SIZE"):
            raise _err(f"a second SIZE (the first is on line {lines[0][0]})", file, no)
        else:
            _line(s, no, (w, h, layers), nets, file)
    if count is None:
        raise _err("no LINE_NUM line (expected 'LINE_NUM n' after SIZE)", file, lines[0][0])
    if count[0] != len(nets):
        raise _err(f"LINE_NUM says {count[0]} lines, but the file has {len(nets)}",
                   file, count[1])
    if layers == 1:             # no VIA can join one layer: _via refused any
        data = {"name": _stem_name(file), "width": w, "height": h,
                "nets": [{"name": k, "pins": [list(p[:2]) for p in pins]}
                         for k, (pins, _) in nets.items()]}
        return AdcProblem(parse_layout(data, file))
    return _layered(file, (w, h, layers), nets, tuple(v for v, _ in vias.values()))


def size_line(first: tuple[int, str], file, form: str = "WxH") -> tuple[int, int, int]:
    """``W, H, D`` of a problem's or an answer's ``SIZE`` line (``first``: its line
    number and text; ``form``: how an error names the line it expected), bounded before
    any grid of that size is made."""
    no, s = first
    m = ADC_SIZE.fullmatch(s)
    if not m:
        raise _err(f"expected 'SIZE {form}' first, got {_show(s)}", file, no)
    w, h = _int(m[1], file, no), _int(m[2], file, no)
    layers = _int(m[3], file, no) if m[3] else 1
    if min(w, h, layers) < 1:
        raise _err(f"sizes are integers >= 1, got {_show(s)}", file, no)
    if layers > 1 and w * h * layers > MAX_CELLS:
        raise _err(f"{w} x {h} x {layers} cells is more than the {MAX_CELLS} a layout may "
                   "have", file, no)
    check_size(w, h * layers, file, f"line {no}")        # the SIZE line, not a YAML field
    return w, h, layers


def _layer(z: str | None, what: str, size: tuple[int, int, int], file, no: int) -> int:
    """The 0-based layer of a coordinate's ``z`` (1-based in the file; absent: layer 1
    of a one-layer problem)."""
    layers = size[2]
    if z is None:
        if layers == 1:
            return 0
        raise _err(f"{what} has no layer: SIZE has {layers} layers, so write (x,y,z)",
                   file, no)
    k = _int(z, file, no)
    if not 1 <= k <= layers:
        span = "layer 1 only" if layers == 1 else f"layers 1 to {layers}"
        raise _err(f"{what} is on layer {k}, but SIZE has {span}", file, no)
    return k - 1


def _line(s: str, no: int, size: tuple[int, int, int],
          nets: dict[str, tuple[list[tuple[int, ...]], int]], file) -> None:
    """Add the net of a ``LINE#k`` line to ``nets``, refusing what breaks a rule."""
    w, h, layers = size
    m = _ADC_LINE.fullmatch(s)
    if not m:
        form = "(x,y)-(x,y)" if layers == 1 else "(x,y,z) (x,y,z)"
        raise _err(f"expected 'LINE#k {form}', got {_show(s)}", file, no)
    name = m[1]
    if name in nets:
        raise _err(f"LINE#{name} repeats line {nets[name][1]}", file, no)
    owner = {p: k for k, (pins, _) in nets.items() for p in pins}
    pins: list[tuple[int, ...]] = []
    for x, y, z in (m.group(2, 3, 4), m.group(5, 6, 7)):
        shown = f"({x},{y})" if z is None else f"({x},{y},{z})"
        cell = (_int(x, file, no), _int(y, file, no),
                _layer(z, f"pin {shown} of LINE#{name}", size, file, no))
        if cell[0] >= w or cell[1] >= h:
            raise _err(f"pin {shown} of LINE#{name} lies outside the {w} x {h} grid",
                       file, no)
        if cell in pins:
            raise _err(f"LINE#{name} has the same cell {shown} at both ends", file, no)
        if cell in owner:
            other = owner[cell]
            raise _err(f"pin {shown} of LINE#{name} is also a pin of LINE#{other} "
                       f"(line {nets[other][1]})", file, no)
        pins.append(cell)
    nets[name] = (pins, no)


def _via(s: str, no: int, size: tuple[int, int, int], vias: dict[str, tuple[Via, int]],
         file) -> Via:
    """The column of a ``VIA#name (x,y,z) (x,y,z)...`` line, refusing what breaks a rule."""
    w, h, _layers = size
    m = _ADC_VIA.fullmatch(s)
    coords = re.findall(_COORD, m[2]) if m else []
    if not m or len(coords) != m[2].count("("):
        raise _err(f"expected 'VIA#name (x,y,z) (x,y,z)', got {_show(s)}", file, no)
    name = m[1]
    if name in vias:
        raise _err(f"VIA#{name} repeats line {vias[name][1]}", file, no)
    if len(coords) < 2:
        raise _err(f"VIA#{name} lists {len(coords)} cell: a via joins two layers or more",
                   file, no)
    x, y = _int(coords[0][0], file, no), _int(coords[0][1], file, no)
    zs: list[int] = []
    for cx, cy, cz in coords:
        shown = f"({cx},{cy})" if not cz else f"({cx},{cy},{cz})"
        if (_int(cx, file, no), _int(cy, file, no)) != (x, y):
            raise _err(f"VIA#{name} cell {shown} is not at ({x},{y}) as its first: a via is "
                       "one column, every cell at the same x and y", file, no)
        z = _layer(cz or None, f"VIA#{name} cell {shown}", size, file, no)
        if z in zs:
            raise _err(f"VIA#{name} lists layer {z + 1} twice", file, no)
        zs.append(z)
    if x >= w or y >= h:
        raise _err(f"VIA#{name} at ({x},{y}) lies outside the {w} x {h} grid", file, no)
    via = Via(name, x, y, min(zs), max(zs))
    for other, line in vias.values():
        if (other.x, other.y) == (x, y) and other.z0 <= via.z1 and via.z0 <= other.z1:
            raise _err(f"VIA#{name} overlaps VIA#{other.name} (line {line}) at ({x},{y})",
                       file, no)
    return via


def _layered(file, size: tuple[int, int, int],
             nets: dict[str, tuple[list[tuple[int, ...]], int]],
             vias: tuple[Via, ...]) -> AdcProblem:
    """The layout of a problem of several layers, with its stack."""
    w, h, layers = size
    sites = np.zeros((layers - 1, h, w), dtype=bool)
    for v in vias:
        sites[v.z0:v.z1, v.y, v.x] = True      # the pairs (z, z + 1) inside the column
    stack = Stack(tuple(Layer(str(k), "any") for k in range(1, layers + 1)), via_cost=1,
                  via_sites=sites)
    layout = Layout(_stem_name(file), w, h, [], [Net(k, list(p)) for k, (p, _) in nets.items()],
                    np.zeros((layers, h, w), dtype=bool), str(file), stack=stack)
    return AdcProblem(layout, vias)


__all__ = ["ADC_SIZE", "AdcProblem", "Via", "parse_adc", "parse_adc_problem", "read_adc",
           "read_adc_problem"]
