"""Problems of the DA Symposium Algorithm Design Contest (ADC): ``SIZE``, ``LINE_NUM`` and
``LINE#k`` lines, 2-D only."""

from __future__ import annotations

import re
from pathlib import Path

from ..errors import InputError
from ..layout import Layout
from ..limits import check_size
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
_ADC_ANSWER_ROW = re.compile(r"\d+(?:\s*,\s*\d+)+", re.ASCII)


def read_adc(path: str | Path) -> Layout:
    r"""A 2-D problem of the DA Symposium Algorithm Design Contest (ADC) as a layout.

    ``SIZE WxH``, ``LINE_NUM n``, then ``n`` lines ``LINE#k (x,y)-(x,y)``; each becomes
    a two-pin net named ``k`` as written. The layout is named after the file's stem.

    Raises
    ------
    InputError
        ``multi-layer layouts are not supported yet`` for a 3-D problem (``SIZE WxHxD``
        with ``D > 1``, pins on a layer above the first, ``VIA`` lines); an answer file
        (``LAYER`` lines, rows of net numbers) is refused as such; a wrong ``LINE_NUM``,
        a pin outside the grid or shared, or a malformed line names its line.

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
    return parse_adc(read_text(path).removeprefix("\ufeff"), path)[0]


def _multilayer(file, line: int, why: str) -> InputError:
    return _err(f"multi-layer layouts are not supported yet ({why})", file, line)


def parse_adc(text: str, file: str | Path) -> list[Layout]:
    """The problem of ``text`` (read from ``file``), as :func:`read_adc` reads it."""
    lines = [(no, s.strip()) for no, s in enumerate(text.splitlines(), 1)]
    lines = [(no, s) for no, s in lines if s and not s.startswith("#")]
    for no, s in lines:
        if re.match(r"LAYER\b", s) or _ADC_ANSWER_ROW.fullmatch(s):
            raise _err("this is an ADC answer (LAYER lines and rows of net numbers), not a "
                       "problem (SIZE, LINE_NUM, LINE#k lines)", file, no)
    if not lines:
        raise _err("empty: expected 'SIZE WxH' first", file, None)
    no, s = lines[0]
    m = ADC_SIZE.fullmatch(s)
    if not m:
        raise _err(f"expected 'SIZE WxH' first, got {_show(s)}", file, no)
    w, h = _int(m[1], file, no), _int(m[2], file, no)
    layers = _int(m[3], file, no) if m[3] else 1
    if min(w, h, layers) < 1:
        raise _err(f"sizes are integers >= 1, got {_show(s)}", file, no)
    if layers > 1:
        raise _multilayer(file, no, f"{s}: {layers} layers")
    check_size(w, h, file, f"line {no}")        # the SIZE line, not a YAML field
    count = None  # (n, line number)
    nets: dict[str, tuple[list[tuple[int, int]], int]] = {}
    owner: dict[tuple[int, int], str] = {}
    for no, s in lines[1:]:
        if s.startswith("VIA"):
            raise _multilayer(file, no, "VIA lines join layers")
        if s.startswith("LINE_NUM"):
            m = _ADC_NUM.fullmatch(s)
            if not m:
                raise _err(f"expected 'LINE_NUM n', got {_show(s)}", file, no)
            if count is not None:
                raise _err(f"a second LINE_NUM (the first is on line {count[1]})", file, no)
            count = (_int(m[1], file, no), no)
            continue
        if s.startswith("SIZE"):
            raise _err(f"a second SIZE (the first is on line {lines[0][0]})", file, no)
        m = _ADC_LINE.fullmatch(s)
        if not m:
            raise _err(f"expected 'LINE#k (x,y)-(x,y)', got {_show(s)}", file, no)
        name = m[1]
        if name in nets:
            raise _err(f"LINE#{name} repeats line {nets[name][1]}", file, no)
        pins = []
        for x, y, z in (m.group(2, 3, 4), m.group(5, 6, 7)):
            layer = 1 if z is None else _int(z, file, no)
            if layer != 1:
                raise _multilayer(file, no, f"LINE#{name} has a pin on layer {layer}")
            cell = (_int(x, file, no), _int(y, file, no))
            if cell[0] >= w or cell[1] >= h:
                raise _err(f"pin ({x},{y}) of LINE#{name} lies outside the {w} x {h} grid",
                           file, no)
            if cell in pins:
                raise _err(f"LINE#{name} has the same cell ({x},{y}) at both ends", file, no)
            if cell in owner:
                other = owner[cell]
                raise _err(f"pin ({x},{y}) of LINE#{name} is also a pin of LINE#{other} "
                           f"(line {nets[other][1]})", file, no)
            pins.append(cell)
        for cell in pins:
            owner[cell] = name
        nets[name] = (pins, no)
    if count is None:
        raise _err("no LINE_NUM line (expected 'LINE_NUM n' after SIZE)", file, lines[0][0])
    if count[0] != len(nets):
        raise _err(f"LINE_NUM says {count[0]} lines, but the file has {len(nets)}",
                   file, count[1])
    data = {"name": _stem_name(file), "width": w, "height": h,
            "nets": [{"name": k, "pins": [list(p) for p in pins]}
                     for k, (pins, _) in nets.items()]}
    return [parse_layout(data, file)]

