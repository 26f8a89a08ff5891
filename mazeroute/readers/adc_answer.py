r"""Answers of the DA Symposium Algorithm Design Contest (ADC): written, read back, checked.

An answer is ``SIZE WxHxD``, then for each layer ``k`` (from 1) a line ``LAYER k`` and
``H`` rows of ``W`` comma-separated line numbers, ``00`` for an empty cell. A line's
number is its net's name when that name is a number (``LINE#7`` is ``07``), else its
1-based position among the layout's nets.

:func:`check_adc_answer` holds an answer to the contest's rules: every line joins its
two terminals through its own cells (a step to a 4-neighbour inside a layer, or a via
move between adjacent layers inside a VIA column), no cell holds two lines, every VIA
column is one via that exactly one line runs through (all of its layers), and a line
changes layer only inside a VIA column. A line may hold one ``(x, y)`` on two layers
without a via between them: the contest's own sample answers do.

Examples
--------
>>> from mazeroute.layers import Layer, Stack
>>> from mazeroute.layout import Layout, Net
>>> lay = Layout("q", 2, 1, nets=[Net("1", [(0, 0, 0), (1, 0, 1)])],
...              stack=Stack((Layer("1"), Layer("2"))))
>>> print(answer_text(lay, {"1": [(0, 0, 0), (1, 0, 0), (1, 0, 1)]}), end="")
SIZE 2X1X2
LAYER 1
01,01
LAYER 2
00,01
>>> check_adc_answer(lay, {"1": [(0, 0, 0), (1, 0, 1)]})
['LINE#1 does not join its terminals (0,0,1) and (1,0,2) through its cells']
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import InputError, quote
from ..io import write_text
from ..layout import Layout
from .adc import AdcProblem, Via, size_line
from .text import excerpt as _show
from .text import line_error as _err
from .text import number as _int
from .text import read_text

Cell3 = tuple[int, int, int]


@dataclass(frozen=True)
class AdcAnswer:
    """An ADC answer as read: its size and each line number's cells ``(x, y, z)``
    (``z`` from 0, bottom layer first, then row by row)."""

    width: int
    height: int
    depth: int
    cells: dict[int, list[Cell3]]


# -- numbering and writing -------------------------------------------------------------
def adc_numbers(layout: Layout) -> dict[str, int]:
    """Each net's line number in an answer: its name when that is a number, else its
    1-based position.

    Raises
    ------
    InputError
        When two nets would get one number.
    """
    out: dict[str, int] = {}
    taken: dict[int, str] = {}
    for i, net in enumerate(layout.nets, 1):
        n = _number(net.name) or i
        if n in taken:
            raise InputError(f"nets {quote(taken[n])} and {quote(net.name)} would both be "
                             f"line {n} of an ADC answer: name the nets 1 to n",
                             file=layout.source, field="nets")
        out[net.name], taken[n] = n, net.name
    return out


def answer_text(layout: Layout, cells: Mapping[str, Iterable]) -> str:
    """The ADC answer of ``layout`` routed as ``cells`` (net name to its cells ``(x, y,
    z)``; ``(x, y)`` on a layout of one layer).

    Raises
    ------
    InputError
        For a net the layout does not have, a cell outside the grid, or a cell that two
        nets hold (an answer has one number a cell).
    """
    depth = len(layout.stack.layers) if layout.stack is not None else 1
    numbers = adc_numbers(layout)
    grid = np.zeros((depth, layout.height, layout.width), dtype=np.int64)
    owner: dict[Cell3, str] = {}
    for name, path in cells.items():
        if name not in numbers:
            raise InputError(f"no net {quote(name)} in the layout", file=layout.source,
                             field="answer")
        for c in path:
            cell = _cell3(c)
            if not _inside(cell, layout.width, layout.height, depth):
                raise InputError(f"cell {_shown(cell)} of LINE#{name} lies outside the grid",
                                 file=layout.source, field="answer")
            if owner.setdefault(cell, name) != name:
                raise InputError(f"cell {_shown(cell)} is held by LINE#{owner[cell]} and "
                                 f"LINE#{name}", file=layout.source, field="answer")
            grid[cell[2], cell[1], cell[0]] = numbers[name]
    out = [f"SIZE {layout.width}X{layout.height}X{depth}"]
    for z in range(depth):
        out.append(f"LAYER {z + 1}")
        out += [",".join(f"{v:02d}" for v in row) for row in grid[z].tolist()]
    return "\n".join(out) + "\n"


def write_adc_answer(path: str | Path, layout: Layout, cells: Mapping[str, Iterable]) -> None:
    """Write :func:`answer_text` to ``path``, atomically.

    Parameters
    ----------
    path : str or Path
        The answer file.
    layout : Layout
        The problem.
    cells : mapping
        Net name to its cells.
    """
    write_text(path, answer_text(layout, cells))


# -- reading ---------------------------------------------------------------------------
def read_adc_answer(path: str | Path) -> AdcAnswer:
    """An ADC answer file (``SIZE``, then ``LAYER k`` and rows of line numbers).

    Raises
    ------
    InputError
        One line naming the file and line: a missing or malformed ``SIZE``, a ``LAYER``
        out of order, a row of the wrong length or with a field that is not a number,
        rows missing, or lines after the last layer.
    """
    return parse_adc_answer(read_text(path).removeprefix("\ufeff"), path)


def parse_adc_answer(text: str, file: str | Path) -> AdcAnswer:
    """The answer of ``text`` (read from ``file``), as :func:`read_adc_answer` reads it."""
    lines = [(no, s.strip()) for no, s in enumerate(text.splitlines(), 1)]
    lines = [(no, s) for no, s in lines if s and not s.startswith("#")]
    if not lines:
        raise _err("empty: expected 'SIZE WxHxD' first", file, None)
    w, h, depth = size_line(lines[0], file, "WxHxD")
    cells: dict[int, list[Cell3]] = {}
    at = 1
    for z in range(depth):
        at = _layer_rows(lines, at, z, (w, h, depth), cells, file)
    if at < len(lines):
        raise _err(f"{_show(lines[at][1])} after the last of the {depth} layers SIZE "
                   "gives", file, lines[at][0])
    return AdcAnswer(w, h, depth, cells)


def _layer_rows(lines: list[tuple[int, str]], at: int, z: int, size: tuple[int, int, int],
                cells: dict[int, list[Cell3]], file) -> int:
    """Read layer ``z``'s ``LAYER`` line and rows from ``lines[at]`` on into ``cells``;
    the index of the line after them."""
    w, h, depth = size
    if at < len(lines) and (m := re.fullmatch(r"LAYER\s+(\d+)", lines[at][1], re.ASCII)):
        no = lines[at][0]
        if _int(m[1], file, no) != z + 1:
            raise _err(f"expected 'LAYER {z + 1}', got {_show(lines[at][1])}", file, no)
        at += 1
    elif depth > 1 or (at < len(lines) and lines[at][1].startswith("LAYER")):
        no, got = (lines[at][0], _show(lines[at][1])) if at < len(lines) else (None, "the end")
        raise _err(f"expected 'LAYER {z + 1}', got {got}", file, no)
    for y in range(h):
        if at >= len(lines) or lines[at][1].startswith("LAYER"):
            no = lines[at][0] if at < len(lines) else lines[-1][0]
            raise _err(f"LAYER {z + 1} has {y} rows, but SIZE gives {h}", file, no)
        no, s = lines[at]
        row = [v.strip() for v in s.split(",")]
        if len(row) != w:
            raise _err(f"row {y} of LAYER {z + 1} has {len(row)} numbers, but SIZE gives "
                       f"{w}", file, no)
        for x, v in enumerate(row):
            if not (v.isascii() and v.isdigit()):
                raise _err(f"field {x + 1} of row {y} of LAYER {z + 1} is {_show(v)}, not a "
                           "line number", file, no)
            n = _int(v, file, no)
            if n:
                cells.setdefault(n, []).append((x, y, z))
        at += 1
    return at


# -- checking --------------------------------------------------------------------------
def check_adc_answer(problem: AdcProblem | Layout, answer: AdcAnswer | Mapping,
                     vias: Iterable[Via] | None = None) -> list[str]:
    """What in ``answer`` breaks the contest's rules for ``problem`` (see the module's
    notes); an empty list for a valid, complete answer.

    Parameters
    ----------
    problem : AdcProblem or Layout
        The problem: an :class:`~mazeroute.readers.adc.AdcProblem` brings its VIA
        columns; for a bare layout they are ``vias``, else every via site of its stack as
        a column through all layers, else (no via sites) vias anywhere and no column rule.
    answer : AdcAnswer or mapping
        The cells of each line: an answer as read, or a mapping from a net's name (or
        its line number) to its cells ``(x, y, z)``.
    vias : iterable of Via, optional
        The VIA columns of a bare layout.

    Returns
    -------
    list of str
        One sentence a broken rule, naming the line, cell or VIA.
    """
    layout = problem.layout if isinstance(problem, AdcProblem) else problem
    depth = len(layout.stack.layers) if layout.stack is not None else 1
    columns = _columns(problem, layout, vias)
    problems: list[str] = []
    if isinstance(answer, AdcAnswer):
        if (answer.width, answer.height, answer.depth) != (layout.width, layout.height, depth):
            return [f"the answer is {answer.width} x {answer.height} x {answer.depth}, the "
                    f"problem {layout.width} x {layout.height} x {depth}"]
        answer = answer.cells
    lines = _by_net(layout, answer, problems)
    owners: dict[Cell3, list[str]] = {}
    for name, cells in lines.items():
        for c in cells:
            if not _inside(c, layout.width, layout.height, depth):
                problems.append(f"LINE#{name} holds {_shown(c)}, outside the grid")
            elif _blocked(layout, c):
                problems.append(f"LINE#{name} holds {_shown(c)}, a blocked cell")
            else:
                owners.setdefault(c, []).append(name)
    for c, names in owners.items():
        if len(names) > 1:
            problems.append(f"{_shown(c)} is held by " + " and ".join(
                f"LINE#{n}" for n in names))
    for net in layout.nets:
        cells = lines.get(net.name, set())
        if not cells:
            problems.append(f"LINE#{net.name} has no cells")
        elif not _joined(layout, [_cell3(p) for p in net.pins], cells, columns):
            problems.append(_why_apart(layout, net, cells, columns))
    if columns is not None:
        problems += _via_problems(columns, owners, isinstance(problem, AdcProblem)
                                  or vias is not None)
    return problems


def _why_apart(layout: Layout, net, cells: set[Cell3], columns: list[Via] | None) -> str:
    """Why a line's cells do not join its terminals: a layer change outside any VIA
    column, when that alone parts them, else the terminals."""
    pins = [_cell3(p) for p in net.pins]
    if columns is not None and _joined(layout, pins, cells, None):
        x, y, z = min(c for c in cells if (c[0], c[1], c[2] + 1) in cells
                      and not _via_ok(columns, *c))
        return (f"LINE#{net.name} changes layer at ({x},{y}) between layers {z + 1} and "
                f"{z + 2}, outside a VIA column")
    ends = " and ".join(_shown(p) for p in pins)
    return f"LINE#{net.name} does not join its terminals {ends} through its cells"


def _columns(problem, layout: Layout, vias) -> list[Via] | None:
    """The VIA columns an answer is held to; None: vias anywhere, no column rule."""
    if isinstance(problem, AdcProblem):
        return list(problem.vias)
    if vias is not None:
        return list(vias)
    if layout.stack is None or layout.stack.via_sites is None:
        return None
    top = len(layout.stack.layers) - 1
    sites = layout.stack.via_sites
    if sites.ndim == 3:             # per-pair sites: a column of two layers each
        return [Via(f"({x},{y},{z})", int(x), int(y), int(z), int(z) + 1)
                for z, y, x in np.argwhere(sites)]
    return [Via(f"({x},{y})", int(x), int(y), 0, top) for y, x in np.argwhere(sites)]


def _by_net(layout: Layout, answer: Mapping, problems: list[str]) -> dict[str, set[Cell3]]:
    """The answer's cells by net name; a key that names no net is a problem."""
    numbers = adc_numbers(layout)
    by_number = {n: name for name, n in numbers.items()}
    out: dict[str, set[Cell3]] = {}
    for key, cells in answer.items():
        name = key if key in numbers else by_number.get(_number(key))
        if name is None:
            problems.append(f"line {quote(key)} of the answer is no line of the problem")
            continue
        out.setdefault(name, set()).update(_cell3(c) for c in cells)
    return out


def _joined(layout: Layout, pins: list[Cell3], cells: set[Cell3],
            columns: list[Via] | None) -> bool:
    """Whether ``cells`` join every pin to the first (4-neighbour steps allowed by the
    layer's direction; vias inside a column, or anywhere when ``columns`` is None)."""
    if not all(p in cells for p in pins):
        return False
    seen, todo = {pins[0]}, [pins[0]]
    while todo:
        x, y, z = todo.pop()
        x_ok, y_ok = layout.stack.moves(z) if layout.stack is not None else (True, True)
        steps = [(x + d, y, z) for d in (-1, 1) if x_ok] + [(x, y + d, z) for d in (-1, 1)
                                                             if y_ok]
        for dz in (-1, 1):
            if columns is None or _via_ok(columns, x, y, min(z, z + dz)):
                steps.append((x, y, z + dz))
        for c in steps:
            if c in cells and c not in seen:
                seen.add(c)
                todo.append(c)
    return all(p in seen for p in pins)


def _via_problems(columns: list[Via], owners: dict[Cell3, list[str]],
                  whole: bool) -> list[str]:
    """The column rule: each VIA used by exactly one line and, for the problem's own
    columns (``whole``), through every layer it spans."""
    out = []
    for v in columns:
        users = sorted({n for c in v.cells() for n in owners.get(c, [])})
        if not users:
            out.append(f"VIA#{v.name} is used by no line")
        elif len(users) > 1:
            out.append(f"VIA#{v.name} is used by " + " and ".join(f"LINE#{n}" for n in users))
        elif whole and (missing := [c[2] + 1 for c in v.cells() if c not in owners]):
            out.append(f"VIA#{v.name} runs through layers {v.z0 + 1} to {v.z1 + 1}, but "
                       f"LINE#{users[0]} leaves out layer {missing[0]}")
    return out


def _via_ok(columns: list[Via], x: int, y: int, z: int) -> bool:
    """Whether a via from layer ``z`` to ``z + 1`` at ``(x, y)`` lies inside a column."""
    return any(v.x == x and v.y == y and v.z0 <= z < v.z1 for v in columns)


def _number(key) -> int | None:
    if isinstance(key, (int, np.integer)) and not isinstance(key, bool):
        return int(key)
    if isinstance(key, str) and key.isascii() and key.isdigit() and len(key) < 10:
        return int(key)
    return None


def _cell3(c) -> Cell3:
    """A cell as ``(x, y, z)``; ``(x, y)`` is on layer 0."""
    t = tuple(int(v) for v in c)
    return (t[0], t[1], t[2] if len(t) > 2 else 0)


def _inside(c: Cell3, width: int, height: int, depth: int) -> bool:
    return 0 <= c[0] < width and 0 <= c[1] < height and 0 <= c[2] < depth


def _blocked(layout: Layout, c: Cell3) -> bool:
    b = layout.blocked
    return bool(b[c[2], c[1], c[0]] if b.ndim == 3 else b[c[1], c[0]])


def _shown(c: Cell3) -> str:
    """A cell as the contest's files write it: layers counted from 1."""
    return f"({c[0]},{c[1]},{c[2] + 1})"


__all__ = ["AdcAnswer", "adc_numbers", "answer_text", "check_adc_answer",
           "parse_adc_answer", "read_adc_answer", "write_adc_answer"]
