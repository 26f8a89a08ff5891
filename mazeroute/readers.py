r"""Every input format as layouts: YAML, numberlink puzzles, ADC problems, Moving AI maps;
and the nets of a netlist (``--nets``): a YAML of ``nets:``, or a Moving AI scenario.

:func:`load_layouts` is the one entry point the command line uses: it refuses what is not
a regular file of sensible size, recognises the format by content (:func:`sniff_format`),
or takes the one it is told, and returns the file's layouts. A numberlink file may hold
several puzzles, so every reader returns a list (one layout for the other formats).

Bad input raises :class:`~mazeroute.errors.InputError` in one line that names the file
and, for the text formats, the line at fault.

Examples
--------
>>> import tempfile
>>> with tempfile.TemporaryDirectory() as d:
...     p = Path(d) / "two.yaml"                # the extension does not matter
...     _ = p.write_text("# two puzzles\n3 2\na.a\nb.b\n\n2 2\nxy\nxy\n0 0\n")
...     layouts = load_layouts(p)
>>> [(lay.name, lay.width, lay.height, len(lay.nets)) for lay in layouts]
[('two-1', 3, 2, 2), ('two-2', 2, 2, 2)]
>>> layouts[0].nets[1].name, layouts[0].nets[1].pins
('b', [(0, 1), (2, 1)])
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable
from pathlib import Path

from .errors import InputError
from .layout import (
    MAX_DIGITS,
    MAX_NAME,
    Layout,
    Net,
    check_size,
    load_layout,
    load_netlist,
    movingai_layout,
    movingai_rows,
    parse_layout,
    with_nets,
)

#: The ``--format`` choices; ``auto`` recognises the format by content.
FORMATS = ("auto", "yaml", "numberlink", "adc", "movingai")
#: Largest input file read (bytes): beyond it, a clear error rather than a stalled parse.
MAX_INPUT_BYTES = 512 * 2**20
#: The cell characters of a Moving AI map (``. G S`` passable; ``@ O T W`` blocked).
MOVINGAI_CHARS = frozenset(".GS@OTW")
#: How much of a file :func:`sniff_format` reads to decide.
SNIFF_BYTES = 64 * 2**10

_NL_SIZE = re.compile(r"(\d+)\s+(\d+)", re.ASCII)
_NL_PIN = re.compile(r"[^.]")
_ADC_SIZE = re.compile(r"SIZE\s+(\d+)\s*[xX]\s*(\d+)(?:\s*[xX]\s*(\d+))?", re.ASCII)
_ADC_NUM = re.compile(r"LINE_NUM\s+(\d+)", re.ASCII)
_COORD = r"\(\s*(\d+)\s*,\s*(\d+)\s*(?:,\s*(\d+)\s*)?\)"
_ADC_LINE = re.compile(rf"LINE#([^\s(]+)\s*{_COORD}\s*-?\s*{_COORD}", re.ASCII)
_ADC_ANSWER_ROW = re.compile(r"\d+(?:\s*,\s*\d+)+", re.ASCII)
#: A Moving AI scenario's first line, any version (sniffing); the one version read.
_SCEN_HEAD = re.compile(r"version\s+[0-9.]+", re.ASCII)
_SCEN_VERSION = re.compile(r"version\s+1(?:\.0)?", re.ASCII)
_DIGITS = re.compile(r"[0-9]+", re.ASCII)
#: The fields of a scenario row, in order.
SCEN_FIELDS = ("bucket", "map", "width", "height", "start_x", "start_y", "goal_x", "goal_y",
               "optimal_length")


# -- the entry point ------------------------------------------------------------------
def load_layouts(path: str | Path, fmt: str = "auto", netlist: str | Path | None = None,
                 scen_limit: int | None = None) -> list[Layout]:
    r"""Read every layout of an input file, in any format of :data:`FORMATS`.

    Parameters
    ----------
    path : str or Path
        The input file. Anything but a regular file (a folder, a FIFO, a device) is
        refused without blocking, and so is a file over :data:`MAX_INPUT_BYTES`.
    fmt : str
        ``"auto"`` (recognise by content, see :func:`sniff_format`) or one of
        ``"yaml"``, ``"numberlink"``, ``"adc"``, ``"movingai"`` to force a reader.
    netlist : str or Path, optional
        A netlist file whose nets replace those of every layout read: a YAML of just
        ``nets:``, or a Moving AI scenario (:func:`read_scen`), recognised by content.
    scen_limit : int, optional
        Read only the first rows of a scenario ``netlist`` (it may hold thousands).

    Returns
    -------
    list of Layout
        One layout per numberlink puzzle; exactly one for the other formats.

    Raises
    ------
    InputError
        One line naming the file and, where there is one, the line or field at fault. A
        forced format that does not fit says what the content looks like.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = Path(d) / "q.txt"
    ...     _ = p.write_text("SIZE 5X4\r\nLINE_NUM 2\r\nLINE#1 (0,0)-(4,2)\r\n"
    ...                      "LINE#2 (0,3)-(4,3)\r\n")
    ...     lay, = load_layouts(p)
    ...     try:
    ...         load_layouts(p, fmt="numberlink")
    ...     except InputError as e:
    ...         error = e.message
    >>> lay.name, [(n.name, n.pins) for n in lay.nets]
    ('q', [('1', [(0, 0), (4, 2)]), ('2', [(0, 3), (4, 3)])])
    >>> error.endswith("(--format numberlink was forced, but the content looks like adc)")
    True
    """
    if fmt not in FORMATS:
        raise InputError(f"unknown format {fmt!r}; choose from {', '.join(FORMATS)}",
                         field="--format")
    text = _read_text(path)
    found = _sniff_text(text)
    use = found if fmt == "auto" else fmt
    try:
        layouts = _READERS[use](text, path)
    except InputError as e:
        if use == found == "yaml" and fmt == "auto" and ":" not in text:
            # no key of any mapping: most likely another format gone wrong in its header
            raise InputError(f"{e.message} (nor is it numberlink, `W H` first; ADC, `SIZE "
                             "WxH` first; or a Moving AI map: --format names one to see "
                             "what it finds)", file=e.file, field=e.field) from None
        if use == found:
            raise
        raise InputError(f"{e.message} (--format {fmt} was forced, but the content looks "
                         f"like {found})", file=e.file, field=e.field) from None
    if netlist is not None:
        if is_scen(netlist):
            return [with_nets(lay, read_scen(netlist, lay, scen_limit), netlist)
                    for lay in layouts]
        check_scen_limit(scen_limit, netlist)
        nets = load_netlist(netlist)
        layouts = [with_nets(lay, nets, netlist) for lay in layouts]
    elif scen_limit is not None:
        raise InputError("takes the first rows of a Moving AI scenario: give one with "
                         "--nets FILE.scen", field="--scen-limit")
    return layouts


def sniff_format(path_or_text: str | os.PathLike) -> str:
    r"""The format of an input, recognised by its content (never its file name).

    A :class:`~pathlib.Path` (or any path-like) is read; a ``str`` is read as a path when
    it holds no line break and names an existing file, and is taken as the text itself
    otherwise. The first line that is not blank or a ``#`` comment decides: ``W H``
    (two integers) is ``"numberlink"``, ``SIZE WxH...`` is ``"adc"``, a Moving AI header
    (``type octile``) is ``"movingai"``, as are lines made only of map characters
    (``. G S @ O T W``); ``version 1`` is ``"scen"`` (a Moving AI scenario: nets, no
    grid); anything else is ``"yaml"``.

    Examples
    --------
    >>> sniff_format("# puzzles\n3 2\na.a\nb.b\n")
    'numberlink'
    >>> sniff_format("SIZE 10X10X2\nLINE_NUM 7\n")
    'adc'
    >>> sniff_format("type octile\nheight 2\nwidth 3\nmap\n..@\n.T.\n"), sniff_format("..@\n")
    ('movingai', 'movingai')
    >>> sniff_format("width: 4\nheight: 3\nnets: []\n"), sniff_format("version 1\n")
    ('yaml', 'scen')
    """
    if isinstance(path_or_text, os.PathLike) or (
            "\n" not in path_or_text and os.path.exists(path_or_text)):
        text = _read_text(path_or_text, limit=SNIFF_BYTES)
    else:
        text = str(path_or_text).removeprefix("\ufeff")
    return _sniff_text(text)


# -- the readers ----------------------------------------------------------------------
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
    return _parse_numberlink(_read_text(path), path)


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
    return _parse_adc(_read_text(path), path)[0]


# -- reading files --------------------------------------------------------------------
def _read_text(path: str | os.PathLike, limit: int | None = None) -> str:
    """The file's text; only a regular file of at most MAX_INPUT_BYTES is read.

    ``limit`` reads just the head (for sniffing), dropping a line cut in two.
    """
    try:
        # O_NONBLOCK: opening a FIFO with no writer must not hang before fstat can refuse it.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise InputError("no such file", file=path) from None
    except IsADirectoryError:
        raise InputError("is a directory, not a layout file", file=path) from None
    except OSError as e:
        raise InputError(f"cannot read: {e.strerror}", file=path) from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        if stat.S_ISDIR(mode):
            raise InputError("is a directory, not a layout file", file=path)
        raise InputError("is not a regular file (a FIFO, device or socket?); give a "
                         "layout file", file=path)
    with os.fdopen(fd, "rb") as f:
        cap = MAX_INPUT_BYTES if limit is None else limit
        try:
            data = f.read(cap + 1)
        except OSError as e:
            raise InputError(f"cannot read: {e.strerror}", file=path) from None
    if len(data) > cap:
        if limit is None:
            raise InputError(f"is larger than the {MAX_INPUT_BYTES / 2**20:g} MiB an input "
                             "file may be", file=path)
        data = data[:data.rfind(b"\n") + 1] or data[:cap]
    if b"\0" in data:
        raise InputError("is a binary file, not a text layout", file=path)
    try:
        text = data.decode("utf-8", errors="strict" if limit is None else "replace")
    except UnicodeDecodeError as e:
        raise InputError(f"not UTF-8 text (bad byte at offset {e.start})", file=path) from None
    return text.removeprefix("\ufeff")


def _sniff_text(text: str) -> str:
    if len(text) > SNIFF_BYTES:                 # the head decides; drop its cut last line
        text = text[:text.rfind("\n", 0, SNIFF_BYTES) + 1] or text[:SNIFF_BYTES]
    lines = [s.strip() for s in text.splitlines()]
    body = [s for s in lines if s and not s.startswith("#")]
    if not body:
        return "yaml"
    first = body[0]
    if _NL_SIZE.fullmatch(first):
        return "numberlink"
    if _ADC_SIZE.match(first):
        return "adc"
    if re.fullmatch(r"type\s+\w+", first):
        return "movingai"
    if _SCEN_HEAD.fullmatch(first):
        return "scen"
    rows = [s for s in lines if s][:64]
    if all(set(s) <= MOVINGAI_CHARS for s in rows):
        return "movingai"
    return "yaml"


def _stem_name(file, suffix: int = 0) -> str:
    """A layout name from the file's name, for formats that have no name field: its
    stem with characters that are not printable as ``_``, cut to leave ``suffix``
    characters (a puzzle's number) within :data:`~mazeroute.layout.MAX_NAME` (the user
    cannot name the layout otherwise, so the file name must never make it invalid)."""
    stem = "".join(c if c.isprintable() else "_" for c in Path(str(file)).stem) or "layout"
    return stem[:MAX_NAME - suffix]


def _err(message: str, file, line: int | None) -> InputError:
    return InputError(message, file=file, field=None if line is None else f"line {line}")


def _int(digits: str, file, line: int) -> int:
    """A number of a puzzle file: at most :data:`~mazeroute.layout.MAX_DIGITS` digits (as
    for a layout's integers), else an error."""
    if len(digits) > MAX_DIGITS:
        raise _err(f"a number of {len(digits)} digits is too large", file, line)
    return int(digits)


def _show(s: str, width: int = 40) -> str:
    """A quoted, shortened excerpt of a line for an error message."""
    return repr(s if len(s) <= width else s[:width] + "...")


# -- numberlink -----------------------------------------------------------------------
def _parse_numberlink(text: str, file) -> list[Layout]:
    lines = text.splitlines()
    puzzles = []  # (width, height, {character: [(x, y, line number), ...]})
    i = 0
    while i < len(lines):
        s = lines[i].strip()
        if not s or s.startswith("#"):
            i += 1
            continue
        head = i + 1
        m = _NL_SIZE.fullmatch(s)
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
            if _NL_SIZE.fullmatch(row.strip()) or not row.strip():
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


# -- ADC ------------------------------------------------------------------------------
def _multilayer(file, line: int, why: str) -> InputError:
    return _err(f"multi-layer layouts are not supported yet ({why})", file, line)


def _parse_adc(text: str, file) -> list[Layout]:
    lines = [(no, s.strip()) for no, s in enumerate(text.splitlines(), 1)]
    lines = [(no, s) for no, s in lines if s and not s.startswith("#")]
    for no, s in lines:
        if re.match(r"LAYER\b", s) or _ADC_ANSWER_ROW.fullmatch(s):
            raise _err("this is an ADC answer (LAYER lines and rows of net numbers), not a "
                       "problem (SIZE, LINE_NUM, LINE#k lines)", file, no)
    if not lines:
        raise _err("empty: expected 'SIZE WxH' first", file, None)
    no, s = lines[0]
    m = _ADC_SIZE.fullmatch(s)
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


# -- Moving AI (layout.movingai_rows; checked here, so a forced format fails) --
def _parse_movingai(text: str, file) -> list[Layout]:
    header, rows = movingai_rows(text, file)
    for no, s in rows:
        bad = set(s) - MOVINGAI_CHARS
        if bad:
            c = min(bad, key=s.index)
            raise _err(f"{c!r} at column {s.index(c) + 1} is not a Moving AI map character "
                       "(. G S passable; @ O T W blocked)", file, no)
    for key, actual in (("height", len(rows)), ("width", max(len(s) for _, s in rows))):
        if key in header and header[key] != str(actual):
            raise _err(f"the header says {key} {_show(header[key])}, the map has {actual}",
                       file, None)
    return [movingai_layout([s for _, s in rows], file)]


# -- Moving AI scenarios: the nets of a map ---------------------------------------------
def is_scen(path: str | Path) -> bool:
    """Whether ``path`` holds a Moving AI scenario (by content, :func:`sniff_format`); a
    file that cannot be read is left to the reader that names the problem."""
    try:
        return sniff_format(Path(path)) == "scen"
    except InputError:
        return False


def check_scen_limit(limit: int | None, netlist: str | Path | None = None) -> None:
    """Refuse a ``--scen-limit`` under 1, or one given with a netlist that is no scenario."""
    if limit is None:
        return
    if limit < 1:
        raise InputError(f"must be >= 1, got {limit}", field="--scen-limit")
    if netlist is not None and not is_scen(netlist):
        raise InputError(f"takes the first rows of a Moving AI scenario; "
                         f"{_show(str(netlist), 80)} is not one", field="--scen-limit")


def read_scen(path: str | Path, layout: Layout, limit: int | None = None) -> list[Net]:
    r"""The nets of a Moving AI scenario file, on the map ``layout``.

    The file is ``version 1`` (or ``version 1.0``), then one row a line: ``bucket map
    width height start_x start_y goal_x goal_y optimal_length``, tab or space separated.
    Row ``k`` (from 1) becomes the two-pin net ``s<k>`` from its start to its goal. The
    row's map size must be the map's; its cells lie on the grid, free, and no pin is
    shared between rows. ``limit``: read only the first rows (a scenario holds
    thousands, many sharing cells).

    Raises
    ------
    InputError
        Naming the file, the line and the field at fault.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = Path(d) / "room.map.scen"
    ...     _ = p.write_text("version 1\n0\troom.map\t4\t2\t0\t0\t3\t1\t4\n"
    ...                      "0\troom.map\t4\t2\t3\t0\t0\t1\t4\n")
    ...     nets = read_scen(p, Layout("room", 4, 2))
    ...     first, = read_scen(p, Layout("room", 4, 2), limit=1)
    >>> [(n.name, n.pins) for n in nets], first.name
    ([('s1', [(0, 0), (3, 1)]), ('s2', [(3, 0), (0, 1)])], 's1')
    """
    check_scen_limit(limit)
    rows = [(no, s) for no, s in enumerate(_read_text(path).splitlines(), 1) if s.strip()]
    if not rows or not _SCEN_VERSION.fullmatch(rows[0][1].strip()):
        got = f", got {_show(rows[0][1].strip())}" if rows else " (the file is empty)"
        raise _err(f"a Moving AI scenario starts with 'version 1'{got}", path,
                   rows[0][0] if rows else None)
    nets: list[Net] = []
    owner: dict[tuple[int, int], tuple[str, int]] = {}
    for no, s in rows[1:limit + 1 if limit else None]:
        nets.append(_scen_net(s, no, f"s{len(nets) + 1}", layout, owner, path))
    return nets


def _scen_net(s: str, no: int, name: str, layout: Layout,
              owner: dict[tuple[int, int], tuple[str, int]], file) -> Net:
    """One scenario row as a net (``owner``: the pins so far, their net and line)."""
    parts = [f.strip() for f in (s.split("\t") if "\t" in s else s.split())]
    if len(parts) != len(SCEN_FIELDS):
        raise _err(f"expected {len(SCEN_FIELDS)} fields ({' '.join(SCEN_FIELDS)}), got "
                   f"{len(parts)}", file, no)
    value = {}
    for k, field in enumerate(SCEN_FIELDS):
        if field in ("map", "optimal_length"):
            continue
        if not _DIGITS.fullmatch(parts[k]):
            raise InputError(f"must be an integer >= 0, got {_show(parts[k])}", file=file,
                             field=f"line {no} {field}")
        value[field] = _int(parts[k], file, no)
    for field, actual in (("width", layout.width), ("height", layout.height)):
        if value[field] != actual:
            raise InputError(f"the scenario's map has {field} {value[field]}, the map "
                             f"routed has {actual}", file=file, field=f"line {no} {field}")
    pins = []
    for end in ("start", "goal"):
        x, y = value[f"{end}_x"], value[f"{end}_y"]
        where = f"line {no} {end}_x/{end}_y"
        if x >= layout.width or y >= layout.height:
            raise InputError(f"{end} ({x}, {y}) lies outside the {layout.width} x "
                             f"{layout.height} map", file=file, field=where)
        if layout.blocked[y, x]:
            raise InputError(f"{end} ({x}, {y}) lies on a blocked cell of the map",
                             file=file, field=where)
        if (x, y) in pins:
            raise InputError(f"start and goal are the same cell ({x}, {y}); a net joins "
                             "two", file=file, field=where)
        if (x, y) in owner:
            other, line = owner[(x, y)]
            raise InputError(f"{end} ({x}, {y}) is also a pin of {other} (line {line}); nets "
                             "share no pin (--scen-limit N reads the first N rows)",
                             file=file, field=where)
        pins.append((x, y))
    for cell in pins:
        owner[cell] = (name, no)
    return Net(name, pins)


def no_nets(file: str | Path | None, batch: bool = False) -> InputError:
    """The error for a layout with no nets to route (a Moving AI map has none): how to
    give them, on the command line ``route`` (or ``batch``) has."""
    how = ("route netlists over it with `batch --layout MAP NETLIST.yaml` or FILE.scen"
           if batch else "give them with --nets NETLIST.yaml or --nets FILE.scen (a Moving "
           "AI scenario)")
    return InputError(f"no nets to route: {how}, or draw random ones with `mazeroute "
                      "generate --on MAP --nets 100 --span 40 -o NETLIST.yaml`", file=file,
                      field="nets")


def _refuse_scen(text: str, file) -> list[Layout]:
    del text
    raise InputError("is a Moving AI scenario: it holds nets, not a grid; route the map it "
                     "names with --nets FILE.scen", file=file)


def _read_yaml(text: str, file) -> list[Layout]:
    del text  # layout.load_layout reads the file itself and owns YAML's error messages
    return [load_layout(file)]


_READERS: dict[str, Callable[[str, str | Path], list[Layout]]] = {
    "yaml": _read_yaml, "numberlink": _parse_numberlink, "adc": _parse_adc,
    "movingai": _parse_movingai, "scen": _refuse_scen}

__all__ = ["FORMATS", "MAX_INPUT_BYTES", "SCEN_FIELDS", "check_scen_limit", "is_scen",
           "load_layouts", "no_nets", "read_adc", "read_numberlink", "read_scen",
           "sniff_format"]
