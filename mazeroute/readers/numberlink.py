"""Numberlink puzzles: a file of one or more ``W H`` grids whose characters mark two-pin
nets."""

from __future__ import annotations

import re
from pathlib import Path

from ..layout import Layout
from ..limits import check_size
from .text import excerpt as _show
from .text import line_error as _err
from .text import number as _int
from .text import read_text
from .text import stem_name as _stem_name
from .yaml import parse_layout

#: A puzzle's size line, ``W H``.
NL_SIZE = re.compile(r"(\d+)\s+(\d+)", re.ASCII)
_NL_PIN = re.compile(r"[^.]")


def read_numberlink(path: str | Path) -> list[Layout]:
    r"""Every puzzle of a numberlink file, each as a layout without blockages.

    A puzzle is a line ``W H`` and ``H`` rows of ``W`` characters; ``.`` is an empty
    cell and the two cells bearing any other character are one two-pin net named after
    that character (nets in order of first appearance, row by row; ``pins[0]`` is the
    first of the two). ``#`` lines and blank lines between puzzles are comments; ``0 0``
    or the end of the file ends it. A file of one puzzle gives a layout named after the
    file's stem; of several, the stem and the puzzle's position (``inputs9-001``).

    Raises
    ------
    InputError
        Naming the file and the line: a size line that is not two integers >= 1, a row
        of the wrong length, a puzzle cut short, a character marking one cell or more
        than two.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = Path(d) / "tiny.txt"
    ...     _ = p.write_text("4 3\nA..1\n....\n1..A\n")
    ...     lay, = read_numberlink(p)
    >>> lay.name, lay.width, lay.height, lay.blocked.any()
    ('tiny', 4, 3, np.False_)
    >>> [(n.name, n.pins) for n in lay.nets]
    [('A', [(0, 0), (3, 2)]), ('1', [(3, 0), (0, 2)])]
    """
    return parse_numberlink(read_text(path).removeprefix("\ufeff"), path)


def parse_numberlink(text: str, file: str | Path) -> list[Layout]:
    """Every puzzle of ``text`` (read from ``file``), as :func:`read_numberlink` reads them."""
    lines = text.splitlines()
    puzzles = []  # (width, height, {character: [(x, y, line number), ...]})
    i = 0
    while i < len(lines):
        s = lines[i].strip()
        if not s or s.startswith("#"):
            i += 1
            continue
        head = i + 1
        m = NL_SIZE.fullmatch(s)
        if not m:
            raise _err(f"expected a size line 'W H' of two integers, got {_show(s)}",
                       file, head)
        w, h = _int(m[1], file, head), _int(m[2], file, head)
        if (w, h) == (0, 0):
            break
        if w < 1 or h < 1:
            raise _err(f"puzzle sizes are integers >= 1 ('0 0' ends the file), got {_show(s)}",
                       file, head)
        check_size(w, h, file, f"line {head}")
        k = len(puzzles) + 1
        rows = lines[head:head + h]
        pins: dict[str, list[tuple[int, int, int]]] = {}
        for y, row in enumerate(rows):
            no = head + 1 + y
            row = row.rstrip()
            if NL_SIZE.fullmatch(row.strip()) or not row.strip():
                raise _err(f"puzzle {k} ({w} x {h}, size on line {head}) has only {y} of "
                           f"its {h} rows", file, no)
            if len(row) != w:
                raise _err(f"row {y + 1} of puzzle {k} has {len(row)} characters, expected {w}",
                           file, no)
            for hit in _NL_PIN.finditer(row):
                c, x = hit.group(), hit.start()
                if c.isspace() or not c.isprintable():
                    raise _err(f"column {x + 1}: {c!r} cannot mark a pin (whitespace or a "
                               "control character)", file, no)
                pins.setdefault(c, []).append((x, y, no))
        if len(rows) < h:
            raise _err(f"puzzle {k} ({w} x {h}) ends after {len(rows)} of its {h} rows",
                       file, head)
        for c, cells in pins.items():
            if len(cells) != 2:
                shown = ", ".join(f"[{x}, {y}]" for x, y, _ in cells[:3])
                more = ", ..." if len(cells) > 3 else ""
                raise _err(f"puzzle {k}: {c!r} marks {len(cells)} cell"
                           f"{'s' if len(cells) > 1 else ''} ({shown}{more}); each character "
                           "marks exactly two", file, cells[min(2, len(cells) - 1)][2])
        puzzles.append((w, h, pins))
        i = head + h
    if not puzzles:
        raise _err("no puzzle: expected a size line 'W H' of two integers", file,
                   min(i + 1, len(lines)) or None)
    digits = len(str(len(puzzles)))
    stem = _stem_name(file, 0 if len(puzzles) == 1 else digits + 1)
    layouts = []
    for k, (w, h, pins) in enumerate(puzzles, 1):
        name = stem if len(puzzles) == 1 else f"{stem}-{k:0{digits}d}"
        nets = [{"name": c, "pins": [[x, y] for x, y, _ in cells]} for c, cells in pins.items()]
        layouts.append(parse_layout({"name": name, "width": w, "height": h, "nets": nets},
                                    file))
    return layouts

