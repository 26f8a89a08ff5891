"""Layouts: the routing grid, its blockages and its nets (``FORMATS.md``, version 1).

A layout file is YAML; this module parses it, checks every rule of the contract, and
reports the first broken one as an :class:`~mazeroute.errors.InputError` that names
the file and the net, blockage or field at fault.

Examples
--------
>>> lay = parse_layout({"width": 4, "height": 3, "blockages": [[1, 0, 1, 1]],
...                     "nets": [{"name": "a", "pins": [[0, 0], [3, 0]]}]}, "demo.yaml")
>>> lay.name, lay.blocked.sum(), lay.nets[0].pins
('demo', np.int64(2), [(0, 0), (3, 0)])
"""

from __future__ import annotations

import functools
import gc
import json
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import yaml
from yaml import events as ev

from .errors import InputError, quote
from .graph import GridGraph
from .io import write_text
from .keys import BLOCKAGE_KEYS, LAYOUT_KEYS, NET_KEYS, NETLIST_KEYS, check_keys, refuse_layers

#: Largest grid accepted: vertex ids must fit in 32 bits.
MAX_CELLS = 2**31 - 2
#: Rough host bytes per cell that routing a layout needs (mask, levels, queue, parsing;
#: the picture is counted apart, per pixel, by the command line): sequential routing's,
#: checked as a layout is read.
BYTES_PER_CELL = 24
#: The same for negotiated routing (its congestion state, two search engines, the
#: sequential floor), checked before it routes, with a margin: up to 137 bytes a cell at
#: peak (an open grid whose two nets cross, where the floor runs beside negotiation's
#: engines; 121-130 on rectangles with local nets or pins anywhere), so that a layout
#: that cannot fit is refused, not killed (``benchmarks/negotiate_memory_probe.py``;
#: RESULTS.md, third session of 2026-11-26).
NEGOTIATE_BYTES_PER_CELL = 160

#: Largest layout, netlist or routes file read, in bytes. Parsing costs about ten times
#: the file's size in memory; ``generate maze -W 8192 -H 8192`` writes some 280 MB.
MAX_FILE_BYTES = 1 << 30
#: Deepest nesting of YAML collections accepted (a layout needs five levels).
MAX_DEPTH = 32
#: Longest name of a layout or net (FORMATS.md).
MAX_NAME = 200

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_Dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)

Cell = tuple[int, int]
Rect = tuple[int, int, int, int]


@dataclass
class Net:
    """A net: a unique name and its pins; ``pins[0]`` is the root terminal."""

    name: str
    pins: list[Cell]

    @property
    def hpwl(self) -> int:
        """Half-perimeter wirelength of the pins' bounding box."""
        xs, ys = zip(*self.pins)
        return (max(xs) - min(xs)) + (max(ys) - min(ys))


@dataclass
class Layout:
    """A ``width`` x ``height`` grid, blocked cells, and nets.

    ``blocked`` is a ``(height, width)`` bool array (row ``y``, column ``x``);
    ``rects`` keeps the blockages as inclusive rectangles for writing back.
    """

    name: str
    width: int
    height: int
    rects: list[Rect] = field(default_factory=list)
    nets: list[Net] = field(default_factory=list)
    blocked: np.ndarray | None = None
    source: str | None = None

    def __post_init__(self):
        if self.blocked is None:
            _check_dimensions(self, 0)             # before a grid of that size is made
            self.blocked = paint(self.width, self.height, self.rects)

    def grid(self) -> GridGraph:
        """The routing grid as a graph (free = not blocked; its mask read-only, so that
        what is learnt of it can be kept while it lives, see ``engines.auto``)."""
        free = ~self.blocked
        free.flags.writeable = False
        return GridGraph(free)

    def pin_owner(self) -> dict[Cell, int]:
        """Map from each pin cell to the index of its net."""
        return {p: i for i, net in enumerate(self.nets) for p in net.pins}

    def to_dict(self) -> dict:
        """The layout file's fields. The blockages are ``rects`` when they paint the
        blocked cells, else rectangles read off the mask (:func:`mask_rects`): a layout
        built from a mask (a Moving AI map, a generated class) keeps every blocked cell
        when written."""
        rects = self.rects
        if not np.array_equal(paint(self.width, self.height, rects), self.blocked):
            rects = mask_rects(self.blocked)
        return {"name": self.name, "width": self.width, "height": self.height,
                "blockages": [list(r) for r in rects],
                "nets": [{"name": n.name, "pins": [list(p) for p in n.pins]}
                         for n in self.nets]}


def mask_rects(blocked: np.ndarray) -> list[Rect]:
    """Inclusive rectangles ``(x0, y0, x1, y1)`` that paint exactly the ``True`` cells
    of ``blocked``: each row's runs, a run that repeats on the rows below it merged into
    one rectangle.

    >>> mask_rects(np.array([[1, 1, 0], [1, 1, 0], [0, 0, 1]], bool))
    [(0, 0, 1, 1), (2, 2, 2, 2)]
    """
    b = np.asarray(blocked, dtype=bool)
    h = b.shape[0]
    edges = np.diff(np.pad(b, ((0, 0), (1, 1))).astype(np.int8), axis=1)
    starts_y, starts_x = np.nonzero(edges == 1)
    _, ends_x = np.nonzero(edges == -1)           # row-major, so paired with the starts
    cut = np.searchsorted(starts_y, np.arange(1, h))
    out: list[Rect] = []
    open_: dict[tuple[int, int], int] = {}        # (x0, x1) -> its first row
    for y, (xs, xe) in enumerate(zip(np.split(starts_x, cut), np.split(ends_x - 1, cut))):
        here = set(zip(xs.tolist(), xe.tolist()))
        for key in [k for k in open_ if k not in here]:
            out.append((key[0], open_.pop(key), key[1], y - 1))
        for key in here:
            open_.setdefault(key, y)
    out += [(x0, y0, x1, h - 1) for (x0, x1), y0 in open_.items()]
    return sorted(out, key=lambda r: (r[1], r[0]))


def paint(width: int, height: int, rects) -> np.ndarray:
    """Blocked-cell mask of inclusive rectangles.

    The work is bounded by the number of rectangles plus the cells, however much the
    rectangles overlap: when their areas add up to more than a few grids, they are
    painted as corner marks summed across the grid.

    >>> paint(4, 2, [(0, 0, 1, 1), (3, 1, 3, 1)]).astype(int)
    array([[1, 1, 0, 0],
           [1, 1, 0, 1]])
    """
    blocked = np.zeros((height, width), dtype=bool)
    r = np.array(rects, dtype=np.int64).reshape(-1, 4)
    area = int(((r[:, 2] - r[:, 0] + 1) * (r[:, 3] - r[:, 1] + 1)).sum())
    if area <= 4 * blocked.size + 4096:
        for x0, y0, x1, y1 in rects:
            blocked[y0:y1 + 1, x0:x1 + 1] = True
        return blocked
    x0, y0, x1, y1 = r.T
    marks = np.zeros((height + 1, width + 1), dtype=np.int32)   # < 2**31 rectangles
    for ys, xs, sign in ((y0, x0, 1), (y0, x1 + 1, -1), (y1 + 1, x0, -1),
                         (y1 + 1, x1 + 1, 1)):
        np.add.at(marks, (ys, xs), sign)
    np.cumsum(marks, axis=0, out=marks)
    np.cumsum(marks, axis=1, out=marks)
    np.greater(marks[:height, :width], 0, out=blocked)
    return blocked


def load_layout(path: str | Path, netlist: str | Path | None = None) -> Layout:
    """Read and check a layout file; optionally replace its nets by a netlist file's."""
    data = _read_yaml(path)
    layout = parse_layout(data, path)
    if netlist is not None:
        layout = with_nets(layout, load_netlist(netlist), netlist)
    return layout


def load_netlist(path: str | Path, option: str = "--nets") -> list[Net]:
    """Read a netlist file: a YAML mapping with just ``nets:`` (any other key is an error,
    :func:`~mazeroute.keys.check_keys`).

    A full layout (one with ``width``, ``height`` or ``blockages``) is an error rather
    than a netlist whose other fields are silently dropped: a user who passes a layout
    there would route without its blockages. ``option``: the command-line option that
    named the file, for the hint.
    """
    data = _read_yaml(path)
    full = ("width", "height", "blockages")
    if not isinstance(data, dict) or "nets" not in data:
        if isinstance(data, dict):
            check_keys(data, (*NETLIST_KEYS, *full), path)      # 'nets' may be misspelt
        raise InputError("a netlist file must be a mapping with a 'nets' list",
                         file=path, field="nets")
    layout_keys = [k for k in full if k in data]
    if layout_keys:
        raise InputError(f"is a full layout (it has {', '.join(layout_keys)}), not a netlist "
                         f"of just 'nets:'; route it as a layout, without {option}",
                         file=path, field=layout_keys[0])
    check_keys(data, NETLIST_KEYS, path)
    return _parse_nets(data["nets"], path)


def with_nets(layout: Layout, nets: list[Net], file: str | Path | None = None) -> Layout:
    """The same chip with other nets, checked against its blockages."""
    new = Layout(layout.name, layout.width, layout.height, layout.rects, nets,
                 layout.blocked, layout.source)
    _check_pins(new, file or layout.source)
    return new


def parse_layout(data, file: str | Path = "<layout>") -> Layout:
    """Build a :class:`Layout` from parsed YAML, enforcing every FORMATS.md rule; a key
    the format does not have is an error (:func:`~mazeroute.keys.check_keys`)."""
    if not isinstance(data, dict):
        raise InputError("a layout must be a YAML mapping with width, height and nets",
                         file=file)
    check_keys(data, LAYOUT_KEYS, file)     # before a missing key: it may be misspelt
    if "version" in data and not (_is_int(data["version"]) and data["version"] == 1):
        raise InputError(f"this mazeroute reads layout format version 1, got "
                         f"{quote(data['version'])}", file=file, field="version")
    if "name" in data:
        name = _name(data["name"], file, "name")
    else:
        name = _name(Path(str(file)).stem, file, "name", " (taken from the file name; "
                     "give one with 'name:')")
    width = _size(data, "width", file)
    height = _size(data, "height", file)
    check_size(width, height, file)
    rects = _parse_blockages(data.get("blockages", []), width, height, file)
    if "nets" not in data:
        raise InputError("missing (use 'nets: []' for a layout without nets)",
                         file=file, field="nets")
    nets = _parse_nets(data["nets"], file)
    layout = Layout(name, width, height, rects, nets, source=str(file))
    _check_pins(layout, file)
    return layout


def save_layout(layout: Layout, path: str | Path) -> None:
    """Write a layout file (flow-style lists, so large layouts stay compact)."""
    d = layout.to_dict()
    lines = [f"name: {_yaml_text(d['name'])}",
             f"width: {d['width']}", f"height: {d['height']}"]
    lines.append("blockages:" + ("" if d["blockages"] else " []"))
    lines += [f"  - [{x0}, {y0}, {x1}, {y1}]" for x0, y0, x1, y1 in d["blockages"]]
    lines.append("nets:" + ("" if d["nets"] else " []"))
    for n in d["nets"]:
        pins = ", ".join(f"[{x}, {y}]" for x, y in n["pins"])
        lines.append(f"  - {{name: {_yaml_text(n['name'])}, "
                     f"pins: [{pins}]}}")
    write_text(path, "\n".join(lines) + "\n")


_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*")
_WORDS = {"y", "n", "yes", "no", "on", "off", "true", "false", "null"}


def _yaml_text(s: str) -> str:
    """``s`` as a YAML scalar that YAML 1.1 and 1.2 readers both take as this text:
    plain when it is a simple word, else double-quoted (JSON's escapes are YAML's)."""
    if _PLAIN.fullmatch(s) and s.lower() not in _WORDS:
        return s
    return json.dumps(s, ensure_ascii=False)


def check_size(width: int, height: int, file: str | Path | None = None,
               field: str = "width") -> None:
    """Refuse (an :class:`InputError` naming ``file`` and ``field``) a grid of more than
    :data:`MAX_CELLS` cells, or one that would need more memory than there is: before
    anything of its size is made, whatever format it came in."""
    if width * height > MAX_CELLS:
        raise InputError(f"{quote(width)} x {quote(height)} cells is more than the "
                         f"{MAX_CELLS} a layout may have", file=file, field=field)
    need = width * height * BYTES_PER_CELL
    have = available_memory()
    if have and need > have:
        raise InputError(f"{width} x {height} cells needs about {need / 2**30:.1f} GiB, "
                         f"more than the {have / 2**30:.1f} GiB of memory available",
                         file=file, field=field)


def movingai_rows(text: str, path: str | Path) -> tuple[dict[str, str], list[tuple[int, str]]]:
    r"""A Moving AI map's text split up: its header (``type``, ``height``, ``width``, each
    word to its value) and its non-blank map rows with their line numbers (trailing
    whitespace off); an :class:`InputError` naming ``path`` when a header has no ``map``
    line or there are no rows.

    One statement of the format, so that the reader that checks a file and the one
    that builds its grid see the same rows: a byte-order mark, and spaces round the
    header's words, are not part of the map.

    >>> movingai_rows("\ufefftype octile \nheight 1\nwidth 2\n map \n.@  \n", "m.map")
    ({'type': 'octile', 'height': '1', 'width': '2'}, [(5, '.@')])
    """
    lines = list(enumerate(text.removeprefix("\ufeff").splitlines(), 1))
    header: dict[str, str] = {}
    if lines and lines[0][1].strip().startswith("type"):
        for k, (_, line) in enumerate(lines):
            word = line.strip()
            if word == "map":
                lines = lines[k + 1:]
                break
            key, _, value = word.partition(" ")
            header[key] = value.strip()
        else:
            raise InputError("a Moving AI header (type, height, width) ends with a 'map' "
                             "line; none found", file=path, field=f"line {lines[-1][0]}")
    rows = [(no, line.rstrip()) for no, line in lines if line.strip()]
    if not rows:
        raise InputError("no map rows", file=path)
    return header, rows


def movingai_layout(rows: list[str], path: str | Path) -> Layout:
    """The layout (no nets) of a Moving AI map's ``rows``: ``.``, ``G`` and ``S`` are
    passable, everything else (``@ O T W``) is blocked, and so are the cells a short
    row leaves out."""
    width = max(len(r) for r in rows)
    # the size the rows span (a short row is padded), checked before it is made
    check_size(width, len(rows), path, "map")
    passable = np.zeros(256, bool)
    passable[list(b".GS")] = True
    blocked = np.ones((len(rows), width), bool)
    # row by row, a byte a cell (any character beyond Latin-1 becomes "?", blocked):
    # a map of short rows padded to a long one stays at the grid's own size in memory
    for y, r in enumerate(rows):
        if r:
            codes = np.frombuffer(r.encode("latin-1", errors="replace"), np.uint8)
            blocked[y, :codes.size] = ~passable[codes]
    return Layout(Path(path).stem, width, len(rows), [], [], blocked, str(path))


def read_movingai(path: str | Path) -> Layout:
    """A Moving AI ``.map`` grid (header optional) as a layout without nets
    (:func:`movingai_rows`, :func:`movingai_layout`)."""
    _, rows = movingai_rows(read_input(path), path)
    return movingai_layout([r for _, r in rows], path)


# -- reading files ------------------------------------------------------------------
def read_input(path: str | Path) -> str:
    """The text of a user's input file: a regular file of UTF-8 text, at most
    :data:`MAX_FILE_BYTES`.

    Anything else (a folder, FIFO, socket or device, a broken link, a file too large)
    is refused at once with an :class:`InputError`: nothing here can block or read
    without bound.

    >>> read_input("/dev/null")
    Traceback (most recent call last):
    ...
    mazeroute.errors.InputError: /dev/null: is a character device, not a regular file
    """
    try:
        st = os.stat(path)
    except FileNotFoundError:
        broken = os.path.islink(path)
        raise InputError("is a broken symbolic link" if broken else "no such file",
                         file=path) from None
    except (OSError, ValueError) as e:
        raise InputError(f"cannot read: {_reason(e)}", file=path) from None
    _regular(st, path)
    try:
        # O_NONBLOCK: should the path become a FIFO after the stat, opening it still
        # returns at once, and the fstat below refuses it
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as e:
        raise InputError(f"cannot read: {_reason(e)}", file=path) from None
    try:
        with os.fdopen(fd, "rb") as fh:
            _regular(os.fstat(fh.fileno()), path)
            data = fh.read(MAX_FILE_BYTES + 1)
    except OSError as e:
        raise InputError(f"cannot read: {_reason(e)}", file=path) from None
    if len(data) > MAX_FILE_BYTES:
        _too_large(path)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError(f"cannot read: not UTF-8 text (byte {e.start})", file=path) from None


def _regular(st: os.stat_result, path) -> None:
    mode = st.st_mode
    if stat.S_ISREG(mode):
        if st.st_size > MAX_FILE_BYTES:
            _too_large(path, st.st_size)
        return
    if stat.S_ISDIR(mode):
        raise InputError("is a directory, not a layout file", file=path)
    kind = ("a FIFO" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode)
            else "a character device" if stat.S_ISCHR(mode)
            else "a block device" if stat.S_ISBLK(mode) else "not a file")
    raise InputError(f"is {kind}, not a regular file", file=path)


def _too_large(path, size: int | None = None) -> None:
    have = f"{size / 2**20:.0f} MiB, " if size else ""
    raise InputError(f"file is too large ({have}more than the {MAX_FILE_BYTES >> 20} MiB "
                     "an input file may have)", file=path)


def _reason(e: BaseException) -> str:
    return getattr(e, "strerror", None) or quote(str(e))


def _read_yaml(path):
    return parse_yaml(read_input(path), path)


# Plain scalars resolve as in YAML 1.2's core schema, stricter still: a form that YAML 1.1
# reads as something else (010 octal, 1:00 sexagesimal, yes/no/on/off booleans, 1_000,
# dates) stays the text it is, so a field that wants a number reports it rather than
# taking another value silently.
_NULL = {"", "~", "null", "Null", "NULL"}
_BOOL = {"true": True, "True": True, "TRUE": True,
         "false": False, "False": False, "FALSE": False}
_INT = re.compile(r"[-+]?(?:0|[1-9][0-9]*)|0o[0-7]+|0x[0-9a-fA-F]+")
_FLOAT = re.compile(r"[-+]?(?:(?:\.[0-9]+|[0-9]+\.[0-9]*)(?:[eE][-+]?[0-9]+)?"
                    r"|[0-9]+[eE][-+]?[0-9]+)|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)")
_TAG = "tag:yaml.org,2002:"
#: Most digits an integer of an input file may have (far past any grid; Python refuses
#: to read one of more than 4300 digits, and its cost grows with them).
MAX_DIGITS = 100


def parse_yaml(text: str, file: str | Path = "<yaml>"):
    """Parse one YAML document into dicts, lists and scalars, safely and in linear time.

    Aliases are refused (a layout needs none, and expanding them is how a tiny file
    grows exponentially), as are duplicate keys, nesting deeper than :data:`MAX_DEPTH`
    and tags other than YAML's own. Plain scalars follow the YAML 1.2 core schema,
    except that forms whose meaning changed since YAML 1.1 stay text (see above).

    Examples
    --------
    >>> parse_yaml("a: [1, 0x10, true, yes, 010, 1:00, null]")
    {'a': [1, 16, True, 'yes', '010', '1:00', None]}
    >>> try:
    ...     parse_yaml("a: &x [1]\\nb: *x\\n", "f.yaml")
    ... except InputError as e:
    ...     print(e)
    f.yaml: line 2: YAML aliases (*x) are not accepted; write the value out
    """
    loader = _Loader(text)
    enabled = gc.isenabled()
    gc.disable()            # the result holds no cycles; collecting while building is waste
    try:
        return _build(loader, file)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        problem = getattr(e, "problem", None) or str(e).splitlines()[0]
        if mark and _LIBYAML_DEPTH in problem:
            # libyaml 0.2.6 and later (PyYAML 6.0.4's) stop at their own depth limit while
            # looking ahead for a key, which never leaves the line: the line where ours
            # is passed, so the error is the one _build gives on an older libyaml
            raise InputError(f"line {mark.line + 1}: nested more than {MAX_DEPTH} levels deep",
                             file=file) from None
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        raise InputError(f"YAML syntax error: {where}{quote(problem)[1:-1]}",
                         file=file) from None
    finally:
        loader.dispose()
        if enabled:
            gc.enable()


def _build(loader, file):
    """Objects from the parser's events, one at a time (no node tree, no recursion)."""
    get = loader.get_event
    stack: list = []          # open collections: [container, key or _NO_KEY, is a mapping]
    root, documents = None, 0
    while True:
        event = get()
        kind = type(event)
        if kind is ev.ScalarEvent:
            value = event.value
            # fast path for the bulk of a layout: plain decimal coordinates
            if (event.tag is None and event.implicit[0] and value.isdigit()
                    and value.isascii() and (value[0] != "0" or len(value) == 1)
                    and len(value) <= MAX_DIGITS):
                value = int(value)
            else:
                value = _scalar(event, file)
        elif kind is ev.SequenceStartEvent or kind is ev.MappingStartEvent:
            _collection_tag(event, file)
            if len(stack) >= MAX_DEPTH:
                raise _at(event, f"nested more than {MAX_DEPTH} levels deep", file)
            mapping = kind is ev.MappingStartEvent
            stack.append([{} if mapping else [], _NO_KEY, mapping])
            continue
        elif kind is ev.SequenceEndEvent or kind is ev.MappingEndEvent:
            value = stack.pop()[0]
        elif kind is ev.AliasEvent:
            raise _at(event, f"YAML aliases (*{quote(event.anchor)[1:-1]}) are not accepted; "
                      "write the value out", file)
        elif kind is ev.DocumentStartEvent:
            documents += 1
            if documents > 1:
                raise _at(event, "more than one YAML document in the file", file)
            continue
        elif kind is ev.StreamEndEvent:
            return root
        else:
            continue
        if not stack:
            root = value
            continue
        top = stack[-1]
        if not top[2]:
            top[0].append(value)
        elif top[1] is _NO_KEY:
            if isinstance(value, (list, dict)):
                raise _at(event, "a mapping key must be a plain value", file)
            if value in top[0]:
                raise _at(event, f"key {quote(value)} appears twice in one mapping", file)
            top[1] = value
        else:
            top[0][top[1]] = value
            top[1] = _NO_KEY


_NO_KEY = object()
#: libyaml's words when a file nests past its own limit (far deeper than MAX_DEPTH).
_LIBYAML_DEPTH = "maximum nesting depth"


def _at(event, message: str, file) -> InputError:
    return InputError(f"line {event.start_mark.line + 1}: {message}", file=file)


def _scalar(event, file):
    v, tag = event.value, event.tag
    if tag is None or tag == "!":
        if not event.implicit[0]:       # quoted, or a block scalar: text
            return v
        if v in _NULL:
            return None
        if v in _BOOL:
            return _BOOL[v]
        if _INT.fullmatch(v):
            return _int(event, file)
        if _FLOAT.fullmatch(v):
            return _float(v)
        return v
    if tag == _TAG + "str":
        return v
    if tag == _TAG + "int" and _INT.fullmatch(v):
        return _int(event, file)
    if tag == _TAG + "float" and (_FLOAT.fullmatch(v) or _INT.fullmatch(v)):
        return float(_int(event, file)) if _INT.fullmatch(v) else _float(v)
    if tag == _TAG + "bool" and v in _BOOL:
        return _BOOL[v]
    if tag == _TAG + "null" and v in _NULL:
        return None
    if tag.startswith(_TAG) and tag[len(_TAG):] in ("int", "float", "bool", "null"):
        raise _at(event, f"{quote(v)} is not a YAML 1.2 {tag[len(_TAG):]}", file)
    raise _at(event, f"the tag {quote(tag)} is not accepted", file)


def _int(event, file) -> int:
    v = event.value
    if len(v) > MAX_DIGITS:
        raise _at(event, f"an integer of {len(v)} digits is too large", file)
    if v.startswith(("0o", "0x")):
        return int(v[2:], 8 if v[1] == "o" else 16)
    return int(v)


def _float(v: str) -> float:
    return float(v.replace(".", "", 1) if v.lstrip("+-")[:2].lower() in (".i", ".n") else v)


def _collection_tag(event, file) -> None:
    tag = event.tag
    if tag is not None and tag != "!" and tag not in (_TAG + "seq", _TAG + "map"):
        raise _at(event, f"the tag {quote(tag)} is not accepted", file)


# -- checking fields -----------------------------------------------------------------
def _name(value, file, field: str, origin: str = "") -> str:
    """A layout or net name: non-empty printable text, at most :data:`MAX_NAME` long."""
    if not isinstance(value, str) or not value:
        raise InputError(f"must be a non-empty string, got {quote(value)}{origin}",
                         file=file, field=field)
    if len(value) > MAX_NAME:
        raise InputError(f"a name has at most {MAX_NAME} characters, got {len(value)}"
                         f"{origin}", file=file, field=field)
    if not value.isprintable():
        bad = next(c for c in value if not c.isprintable())
        raise InputError(f"a name is printable text; {quote(value)} holds U+{ord(bad):04X}"
                         f"{origin}", file=file, field=field)
    return value


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _size(data, key, file) -> int:
    if key not in data:
        raise InputError("missing (an integer >= 1)", file=file, field=key)
    v = data[key]
    if not _is_int(v) or v < 1:
        raise InputError(f"must be an integer >= 1, {_got(v)}", file=file, field=key)
    return v


_NUMBERISH = re.compile(r"[-+]?[0-9][0-9_:.eEoxb+-]*")


def _got(v) -> str:
    """``got <value>``, with a hint when a number was written in a form read as text."""
    parts = v if isinstance(v, list) else [v]
    hint = any(isinstance(p, str) and _NUMBERISH.fullmatch(p) for p in parts[:8])
    return f"got {quote(v)}" + (" (read as text: write integers as plain decimals, "
                                "without a leading zero)" if hint else "")


def _parse_blockages(items, width, height, file) -> list[Rect]:
    if items is None:
        return []
    if not isinstance(items, list):
        raise InputError("must be a list", file=file, field="blockages")
    rects = []
    for i, item in enumerate(items):
        where = f"blockages[{i}]"
        if isinstance(item, dict):
            check_keys(item, BLOCKAGE_KEYS, file, where)
        if isinstance(item, dict) and set(item) == {"rect"}:
            r = item["rect"]
        elif isinstance(item, dict) and set(item) == {"cell"}:
            c = _cell(item["cell"], width, height, file, where)
            r = [c[0], c[1], c[0], c[1]]
        elif isinstance(item, list):
            r = item
        else:
            raise InputError(f"must be [x0, y0, x1, y1], {{rect: [...]}} or {{cell: [x, y]}},"
                             f" {_got(item)}", file=file, field=where)
        if not (isinstance(r, list) and len(r) == 4 and all(_is_int(v) for v in r)):
            raise InputError(f"a rectangle is four integers [x0, y0, x1, y1], {_got(r)}",
                             file=file, field=where)
        x0, y0, x1, y1 = r
        if min(r) < 0:
            raise InputError(f"negative coordinate in {quote(r)}", file=file, field=where)
        if x0 > x1 or y0 > y1:
            raise InputError(f"corners out of order in {quote(r)} (need x0 <= x1, y0 <= y1)",
                             file=file, field=where)
        if x1 >= width or y1 >= height:
            raise InputError(f"{quote(r)} reaches outside the {width} x {height} grid",
                             file=file, field=where)
        rects.append((x0, y0, x1, y1))
    return rects


def _cell(c, width, height, file, where) -> Cell:
    if not (isinstance(c, list) and len(c) == 2 and all(_is_int(v) for v in c)):
        raise InputError(f"a cell is two integers [x, y], {_got(c)}", file=file, field=where)
    x, y = c
    if x < 0 or y < 0:
        raise InputError(f"negative coordinate in {quote(c)}", file=file, field=where)
    if width is not None and (x >= width or y >= height):
        raise InputError(f"{quote(c)} lies outside the {width} x {height} grid",
                         file=file, field=where)
    return (x, y)


def _parse_nets(items, file) -> list[Net]:
    if not isinstance(items, list):
        raise InputError("must be a list (may be empty)", file=file, field="nets")
    nets, seen = [], {}
    for i, item in enumerate(items):
        where = f"nets[{i}]"
        if not isinstance(item, dict):
            raise InputError(f"must be a mapping with name and pins, {_got(item)}",
                             file=file, field=where)
        if not (len(item) == 2 and "name" in item and "pins" in item):
            name = item.get("name")
            check_keys(item, NET_KEYS, file,
                       _net_field(i, name) if isinstance(name, str) and name else where)
        name = _name(item.get("name"), file, f"{where} name")
        pins = item.get("pins")
        if not isinstance(pins, list):
            raise InputError(f"pins must be a list of at least 2 cells, {_got(pins)}",
                             file=file, field=_net_field(i, name))
        cells = []
        for j, p in enumerate(pins):
            if (type(p) is list and len(p) == 2 and type(p[0]) is int and type(p[1]) is int
                    and p[0] >= 0 and p[1] >= 0):
                cells.append((p[0], p[1]))     # _cell's answer, without its field's text
            else:
                at = f"{_net_field(i, name)} pins[{j}]"
                if isinstance(p, dict):
                    refuse_layers(p, file, at)
                cells.append(_cell(p, None, None, file, at))
        _net_rules(i, name, cells, seen, file)
        nets.append(Net(name, cells))
    return nets


def _net_rules(i: int, name: str, cells: list[Cell], seen: dict[str, int], file) -> None:
    """The rules of ``nets[i]`` that hold for a file's nets and a Layout built in Python
    alike: a name no earlier net has (``seen``: names so far, their index; updated), at
    least two pins, no cell listed twice."""
    if name in seen:
        raise InputError(f"name repeats nets[{seen[name]}]", file=file,
                         field=_net_field(i, name))
    seen[name] = i
    if len(cells) < 2:
        raise InputError(f"pins must be a list of at least 2 cells, got {len(cells)}",
                         file=file, field=_net_field(i, name))
    if len(set(cells)) < len(cells):
        once: set[Cell] = set()
        dup = next(c for c in cells if c in once or once.add(c))
        raise InputError(f"lists cell {quote(list(dup))} twice", file=file,
                         field=_net_field(i, name))


def _net_field(i: int, name: str) -> str:
    """How an error names ``nets[i]`` (made only for an error: quoting a name costs more
    than checking its net)."""
    return f"nets[{i}] {quote(name)}"


def check_layout(layout: Layout) -> None:
    """Refuse a :class:`Layout` built in Python that :func:`parse_layout` would have
    refused, before it is routed: an :class:`InputError` naming the field (a positive
    size, ``blocked`` a ``(height, width)`` bool array, nets of unique names with two or
    more distinct pins inside the grid, on free cells, no pin shared by two nets), or a
    ``TypeError`` for what is no layout at all. The readers' layouts pass already.

    >>> check_layout(Layout("a", 4, 4, nets=[Net("n", [(0, 0), (3, 0)]),
    ...                                     Net("m", [(0, 0), (0, 3)])]))
    Traceback (most recent call last):
    ...
    mazeroute.errors.InputError: nets[1] 'm': pin [0, 0] is also a pin of net 'n'
    """
    if not isinstance(layout, Layout):
        raise TypeError(f"expected a Layout, got {type(layout).__name__}")
    file = layout.source
    _check_dimensions(layout, 1)
    h, w = int(layout.height), int(layout.width)
    b = layout.blocked
    if not isinstance(b, np.ndarray) or b.dtype != np.bool_ or b.shape != (h, w):
        got = (f"a {b.dtype} array of shape {b.shape}" if isinstance(b, np.ndarray)
               else f"a {type(b).__name__}")
        raise InputError(f"must be a bool array of shape (height, width) = ({h}, {w}), "
                         f"got {got}", file=file, field="blocked")
    seen: dict[str, int] = {}
    for i, net in enumerate(layout.nets):
        if not isinstance(net, Net):
            raise TypeError(f"nets[{i}] is a {type(net).__name__}, not a Net")
        if not isinstance(net.name, str):
            raise InputError(f"a net's name is text, got {quote(net.name)}", file=file,
                             field=f"nets[{i}] name")
        pins = list(net.pins)
        for j, c in enumerate(pins):
            if not (len(c) == 2 and all(_is_index(v) for v in c) and min(c) >= 0):
                raise InputError(f"a pin is two integers x, y >= 0, got {quote(c)}",
                                 file=file, field=f"{_net_field(i, net.name)} pins[{j}]")
        _net_rules(i, net.name, [(int(x), int(y)) for x, y in pins], seen, file)
    _check_pins(layout, file)


def _is_index(v) -> bool:
    """An integer of Python or NumPy (a layout built in Python may hold either), not a
    bool."""
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def _check_dimensions(layout: Layout, least: int) -> None:
    """Refuse a ``width`` or ``height`` that is no integer or is under ``least``."""
    for name in ("width", "height"):
        v = getattr(layout, name)
        if not _is_index(v) or v < least:
            raise InputError(f"must be an integer >= {least}, got {quote(v)}",
                             file=layout.source, field=name)


def _check_pins(layout: Layout, file) -> None:
    owner: dict[Cell, int] = {}
    for i, net in enumerate(layout.nets):
        for j, (x, y) in enumerate(net.pins):
            if x >= layout.width or y >= layout.height:
                raise InputError(f"pin {quote([x, y])} lies outside the {layout.width} x "
                                 f"{layout.height} grid", file=file,
                                 field=f"{_net_field(i, net.name)} pins[{j}]")
            if layout.blocked[y, x]:
                raise InputError(f"pin {[x, y]} lies on {_blockage_at(layout, x, y)}",
                                 file=file, field=f"{_net_field(i, net.name)} pins[{j}]")
            if (x, y) in owner:
                other = layout.nets[owner[(x, y)]].name
                raise InputError(f"pin {[x, y]} is also a pin of net {quote(other)}",
                                 file=file, field=_net_field(i, net.name))
            owner[(x, y)] = i


def _blockage_at(layout: Layout, x: int, y: int) -> str:
    for k, (x0, y0, x1, y1) in enumerate(layout.rects):
        if x0 <= x <= x1 and y0 <= y <= y1:
            return f"blockages[{k}] {[x0, y0, x1, y1]}"
    return "a blocked cell"


def available_memory() -> int:
    """Bytes of memory a new allocation can get now (0 when unknown).

    The least of: Linux's ``MemAvailable`` (free memory plus caches it can drop), else
    physical memory; the room left under the memory limits of the process's control
    groups (a container's, or a job scheduler's: past it the kernel kills the process
    without a word); and the room left under its address-space limit (``ulimit -v``).
    """
    room = [r for r in (_machine_memory(), _cgroup_room(), _address_room()) if r is not None]
    return max(1, min(room)) if room else 0


def _machine_memory() -> int | None:
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None


def _read_int(path: Path) -> int | None:
    try:
        text = path.read_text(encoding="ascii").strip()
        return None if text == "max" else int(text)
    except (OSError, ValueError):
        return None


#: Limits at or above this many bytes stand for "none" (cgroup v1 writes 2^63 less a page).
_NO_LIMIT = 1 << 60


def _cgroup_room(root: Path = Path("/sys/fs/cgroup"), own: Path = Path("/proc/self/cgroup")
                 ) -> int | None:
    """Bytes left under the tightest memory limit of this process's control group and
    the groups above it (v2: ``memory.max`` less ``memory.current``; v1:
    ``memory.limit_in_bytes`` less ``memory.usage_in_bytes``), or None without one.
    Which groups have a limit is found once a process (:func:`_cgroup_limits`); their
    limits and usage are read at every call."""
    best = None
    for limit_file, used_file in _cgroup_limits(root, own):
        limit = _read_int(limit_file)
        if limit is not None and limit < _NO_LIMIT:
            room = limit - (_read_int(used_file) or 0)
            best = room if best is None else min(best, room)
    return best


@functools.cache
def _cgroup_limits(root: Path, own: Path) -> tuple[tuple[Path, Path], ...]:
    """The (limit, usage) files of this process's control groups, from its own up to
    the hierarchy's top, that held a limit when first asked: looking them up reads a
    dozen files and folders, a cost every layout's memory check would pay again."""
    try:
        lines = own.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return ()
    places = []
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        rel = parts[2].lstrip("/")
        if parts[0] == "0" and parts[1] == "":
            for mount in (root, root / "unified"):
                places.append((mount, rel, "memory.max", "memory.current"))
        elif "memory" in parts[1].split(","):
            places.append((root / "memory", rel, "memory.limit_in_bytes",
                           "memory.usage_in_bytes"))
    found = []
    for mount, rel, limit_name, used_name in places:
        group = mount / rel
        if not group.is_dir():
            group = mount                  # a namespaced view: the group is the mount
        while True:
            limit = _read_int(group / limit_name)
            if limit is not None and limit < _NO_LIMIT:
                found.append((group / limit_name, group / used_name))
            if group == mount or mount not in group.parents:
                break
            group = group.parent
    return tuple(found)


def _address_room() -> int | None:
    """Bytes left under ``RLIMIT_AS`` (the soft limit less the process's virtual size),
    or None without a limit."""
    try:
        import resource
        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
        if soft == resource.RLIM_INFINITY:
            return None
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmSize:"):
                    return soft - int(line.split()[1]) * 1024
    except (ImportError, OSError, ValueError, IndexError, AttributeError):
        pass
    return None
