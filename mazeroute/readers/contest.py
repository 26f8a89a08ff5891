"""The global routing contests' own inputs, read into plain frozen records of NumPy arrays:
ISPD 2024's routing resources (``.cap``) and nets (``.net``), and the ISPD 2007/2008
benchmarks (``.gr``).

No maintained Python library reads these plain-text formats (the contests ship C++
parsers inside their evaluators), so the readers are our own, written from the formats'
descriptions (docs/contest_formats.md). They read in one pass, bounded as every input is
(:func:`~mazeroute.readers.text.read_text`: a regular file of UTF-8 text of at most
:data:`~mazeroute.limits.MAX_INPUT_BYTES`), a gzip-compressed file too (recognised by its
first bytes, never its name; its text bounded the same), and strictly: a count that the
lines after it contradict, a bad number, a layer or coordinate off the grid, or a file cut
short is one :class:`~mazeroute.errors.InputError` naming the file, the line and the field.

Every coordinate of a record is a GCell's: layers count from 0 (``.gr`` files count them
from 1 and give pins in length units; both are converted), ``x`` across, ``y`` up.

Examples
--------
>>> import tempfile
>>> from pathlib import Path
>>> with tempfile.TemporaryDirectory() as d:
...     cap, net = Path(d) / "t.cap", Path(d) / "t.net"
...     _ = cap.write_text("1 2 1\\n0.5 4 1\\n10\\n\\nM1 0 0\\n3 0\\n")
...     _ = net.write_text("n0\\n(\\n[(0, 0, 0)]\\n[(0, 1, 0), (0, 1, 0)]\\n)\\n")
...     grid = read_cap(cap)
...     nets = read_net(net, grid)
>>> grid.capacity.shape, grid.capacity[0, 0].tolist(), grid.directions.tolist()
((1, 1, 2), [3.0, 0.0], [0])
>>> len(nets), [p.tolist() for p in nets.pins(0)]
(1, [[[0, 0, 0]], [[0, 1, 0], [0, 1, 0]]])
"""

from __future__ import annotations

import gzip
import os
import re
import stat
import zlib
from array import array
from dataclasses import dataclass

import numpy as np

from .. import limits
from ..errors import InputError
from .text import excerpt, line_error, read_text, regular_input

#: A layer's preferred direction, as ``.cap`` files write it (and ``.gr`` ones imply it).
HORIZONTAL, VERTICAL = 0, 1
#: The direction of a ``.gr`` layer whose header gives capacity both ways or neither.
NO_DIRECTION = -1

_INT = re.compile(r"[-+]?\d{1,18}", re.ASCII)
_FLOAT = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d{1,4})?", re.ASCII)
#: A character that no number of a row can hold: the fast path's test of a whole line.
_NOT_NUMERIC = re.compile(r"[^0-9eE+\-.\s]", re.ASCII)
_POINT = r"\(\s*\d{1,9}\s*,\s*\d{1,9}\s*,\s*\d{1,9}\s*\)"
_PIN = re.compile(rf"\[\s*{_POINT}(?:\s*,\s*{_POINT})*\s*\]", re.ASCII)
_DIGITS = re.compile(r"\d+", re.ASCII)
_GZIP_MAGIC = b"\x1f\x8b"


@dataclass(frozen=True, eq=False)
class ContestNets:
    """Nets whose pins are lists of access points, every point ``(layer, x, y)``.

    Stored flat, as compressed rows: pin ``p``'s access points are
    ``points[pin_start[p]:pin_start[p + 1]]``, net ``n``'s pins are ``pin_start``'s
    indices ``net_start[n]`` to ``net_start[n + 1]``. Every access point of a pin is kept,
    in the file's order, repeats included.

    Parameters
    ----------
    names : tuple of str
        The nets' names, in the file's order.
    points : numpy.ndarray
        ``(P, 3)`` int32: every access point, ``(layer, x, y)``.
    pin_start : numpy.ndarray
        ``(pins + 1,)`` int64 offsets into ``points``.
    net_start : numpy.ndarray
        ``(nets + 1,)`` int64 offsets into the pins.

    Examples
    --------
    >>> nets = ContestNets(("a",), np.array([[1, 2, 3], [1, 2, 4]], np.int32),
    ...                    np.array([0, 1, 2]), np.array([0, 2]))
    >>> len(nets), nets.num_pins, [p.tolist() for p in nets.pins(0)]
    (1, 2, [[[1, 2, 3]], [[1, 2, 4]]])
    """

    names: tuple[str, ...]
    points: np.ndarray
    pin_start: np.ndarray
    net_start: np.ndarray

    def __len__(self) -> int:
        return len(self.names)

    @property
    def num_pins(self) -> int:
        """Pins of all nets together."""
        return len(self.pin_start) - 1

    def pins(self, net: int) -> list[np.ndarray]:
        """Net ``net``'s pins, each a ``(k, 3)`` array of its access points."""
        lo, hi = int(self.net_start[net]), int(self.net_start[net + 1])
        starts = self.pin_start[lo:hi + 1]
        return [self.points[a:b] for a, b in zip(starts[:-1].tolist(), starts[1:].tolist())]


@dataclass(frozen=True, eq=False)
class CapGrid:
    """An ISPD 2024 ``.cap`` file: the GCell grid, its unit costs and its capacities.

    ``capacity[l, y, x]`` is the file's value for GCell ``(x, y)`` of layer ``l``. The
    contest's baseline router (CUGR 2) reads it as the capacity of the edge from that
    GCell to the next one along the layer's direction, which :meth:`edge_capacity` gives
    in :class:`~mazeroute.gcells.GCellGrid`'s shapes.

    Parameters
    ----------
    nx, ny : int
        GCells across (``xSize``) and up (``ySize``).
    wire_cost, via_cost : float
        ``UnitLengthWireCost`` (per unit of length) and ``UnitViaCost`` (per via).
    overflow_weights : numpy.ndarray
        ``(layers,)``: each layer's ``OFWeight``, the weight of its overflow.
    edge_lengths_x, edge_lengths_y : numpy.ndarray
        ``(nx - 1,)`` and ``(ny - 1,)`` int64: the length of the edge from column (row)
        ``i`` to ``i + 1``.
    layer_names : tuple of str
        The layers' names, bottom first.
    directions : numpy.ndarray
        ``(layers,)`` int8: :data:`HORIZONTAL` or :data:`VERTICAL`.
    min_lengths : numpy.ndarray
        ``(layers,)``: each layer's minimum wire length (the contest does not score it).
    capacity : numpy.ndarray
        ``(layers, ny, nx)`` float32.

    Examples
    --------
    >>> g = CapGrid(2, 1, 1.0, 4.0, np.ones(1), np.array([5]), np.zeros(0, np.int64),
    ...             ("M1",), np.array([HORIZONTAL], np.int8), np.zeros(1),
    ...             np.array([[[7.0, 0.0]]], np.float32))
    >>> g.layers, [a.tolist() for a in g.edge_capacity()]
    (1, [[[[7.0]]], [[]]])
    """

    nx: int
    ny: int
    wire_cost: float
    via_cost: float
    overflow_weights: np.ndarray
    edge_lengths_x: np.ndarray
    edge_lengths_y: np.ndarray
    layer_names: tuple[str, ...]
    directions: np.ndarray
    min_lengths: np.ndarray
    capacity: np.ndarray

    @property
    def layers(self) -> int:
        """Routing layers, metal 1 (layer 0) included."""
        return len(self.layer_names)

    def edge_capacity(self) -> tuple[np.ndarray, np.ndarray]:
        """``(h_cap, v_cap)``, shaped ``(layers, ny, nx - 1)`` and ``(layers, ny - 1, nx)``
        float32: the capacity of the edge from ``(x, y)`` to ``(x + 1, y)`` and to
        ``(x, y + 1)``, the baseline router's reading of the file (zero against a layer's
        direction; the last column or row along it belongs to no edge)."""
        h = np.zeros((self.layers, self.ny, max(self.nx - 1, 0)), np.float32)
        v = np.zeros((self.layers, max(self.ny - 1, 0), self.nx), np.float32)
        for layer, d in enumerate(self.directions.tolist()):
            if d == HORIZONTAL:
                h[layer] = self.capacity[layer, :, :-1]
            else:
                v[layer] = self.capacity[layer, :-1, :]
        return h, v


@dataclass(frozen=True, eq=False)
class GrBenchmark:
    """An ISPD 2007/2008 ``.gr`` benchmark: the grid, its edge capacities and the nets.

    Capacities are in the file's length units, as it gives them; :meth:`tracks` turns
    them into wires. ``h_cap[l, y, x]`` is the edge from GCell ``(x, y)`` to ``(x + 1,
    y)`` on layer ``l`` (0-based), ``v_cap[l, y, x]`` the one to ``(x, y + 1)``: the
    header's default of the layer, or the last adjustment the file makes to the edge.

    Parameters
    ----------
    nx, ny : int
        GCells across and up.
    vertical, horizontal : numpy.ndarray
        ``(layers,)`` int64: the header's capacity of a layer's vertical and horizontal
        edges.
    min_width, min_spacing, via_spacing : numpy.ndarray
        ``(layers,)`` int64, as the header gives them.
    origin, tile : tuple of int
        The grid's lower-left corner and a GCell's width and height, in length units.
    h_cap, v_cap : numpy.ndarray
        ``(layers, ny, nx - 1)`` and ``(layers, ny - 1, nx)`` int64.
    nets : ContestNets
        Every pin a pin of one access point, its GCell ``(layer, x, y)``.
    net_ids, net_widths : numpy.ndarray
        ``(nets,)`` int64: each net's id and minimum width, as the file gives them.
    adjustments : numpy.ndarray
        ``(A, 7)`` int64: ``x1, y1, layer1, x2, y2, layer2, capacity`` in the file's
        order, layers 0-based.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = Path(d) / "t.gr"
    ...     _ = p.write_text("grid 2 1 1\\nvertical capacity 0\\nhorizontal capacity 20\\n"
    ...                      "minimum width 1\\nminimum spacing 1\\nvia spacing 0\\n"
    ...                      "0 0 10 10\\nnum net 0\\n0\\n")
    ...     gr = read_gr(p)
    >>> gr.h_cap.tolist(), gr.tracks()[0].tolist(), gr.directions.tolist()
    ([[[20]]], [[[10]]], [0])
    """

    nx: int
    ny: int
    vertical: np.ndarray
    horizontal: np.ndarray
    min_width: np.ndarray
    min_spacing: np.ndarray
    via_spacing: np.ndarray
    origin: tuple[int, int]
    tile: tuple[int, int]
    h_cap: np.ndarray
    v_cap: np.ndarray
    nets: ContestNets
    net_ids: np.ndarray
    net_widths: np.ndarray
    adjustments: np.ndarray

    @property
    def layers(self) -> int:
        """Routing layers."""
        return len(self.vertical)

    @property
    def directions(self) -> np.ndarray:
        """``(layers,)`` int8: :data:`HORIZONTAL` where the header gives capacity only
        to horizontal edges, :data:`VERTICAL` only to vertical ones, else
        :data:`NO_DIRECTION`."""
        h, v = self.horizontal > 0, self.vertical > 0
        return np.where(h & ~v, HORIZONTAL, np.where(v & ~h, VERTICAL, NO_DIRECTION)
                        ).astype(np.int8)

    def tracks(self) -> tuple[np.ndarray, np.ndarray]:
        """``(h_cap, v_cap)`` in wires of the layer's minimum width and spacing: a
        capacity divided by their sum, rounded down (the contest's rule)."""
        pitch = np.maximum(self.min_width + self.min_spacing, 1)[:, None, None]
        return self.h_cap // pitch, self.v_cap // pitch


# -- reading a file, bounded and maybe compressed ------------------------------------------
def _lines(path: str | os.PathLike) -> list[str]:
    """The file's lines (no empty one after the last line break): plain text as
    :func:`read_text` reads it, or a gzip file's text bounded the same (its content, not
    its name, says which)."""
    text = _text(path)
    lines = text[text.startswith("\ufeff"):].split("\n")      # a byte-order mark is no field
    return lines[:-1] if lines[-1] == "" else lines


def _text(path: str | os.PathLike) -> str:
    regular_input(path)
    if not _gzipped(path):
        return read_text(path)
    cap = limits.MAX_INPUT_BYTES
    try:
        with gzip.open(path, "rb") as fh:
            data = fh.read(cap + 1)
    except (OSError, EOFError, zlib.error) as e:
        raise InputError(f"is not a readable gzip file ({e})", file=path) from None
    if len(data) > cap:
        raise InputError(f"decompresses to more than the {cap / 2**20:g} MiB an input "
                         "file may be", file=path)
    if b"\0" in data:
        raise InputError("is a binary file, not text (once decompressed)", file=path)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError(f"not UTF-8 text once decompressed (bad byte at offset {e.start})",
                         file=path) from None


def _gzipped(path) -> bool:
    try:
        # non-blocking: a FIFO swapped in after regular_input's look cannot hang the open
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return False                       # read_text names what is wrong with it
    try:
        return stat.S_ISREG(os.fstat(fd).st_mode) and os.read(fd, 2) == _GZIP_MAGIC
    except OSError:
        return False
    finally:
        os.close(fd)


class _Reader:
    """A file's lines, taken one after another; errors name the line last taken."""

    def __init__(self, path, lines: list[str], skip_blank: bool):
        self.path, self.lines, self.skip_blank = path, lines, skip_blank
        self.at = 0                        # lines taken: the last one's number, from 1
        self.raw = ""

    def take(self, what: str, *args) -> list[str]:
        """The next line's fields, or a truncation error naming ``what`` was due (filled
        with ``args``, names quoted, only for the error: its words cost more than a line)."""
        while self.at < len(self.lines):
            self.raw = self.lines[self.at]
            self.at += 1
            fields = self.raw.split()
            if fields or not self.skip_blank:
                return fields
        end = len(self.lines)
        what = what.format(*(excerpt(a) if isinstance(a, str) else a for a in args))
        raise line_error(f"the file ends after {end} lines, before {what}", self.path,
                         end + 1)

    def left(self) -> bool:
        """Whether a line that is not blank is still to come."""
        # by index, not a slice: called once a net, a copy of the rest would be quadratic
        for i in range(self.at, len(self.lines)):
            if self.lines[i].strip():
                return True
        return False

    def error(self, message: str) -> InputError:
        return line_error(message, self.path, self.at)

    def finish(self, after: str) -> None:
        """Refuse anything but blank lines after ``after``."""
        while self.at < len(self.lines):
            self.raw = self.lines[self.at]
            self.at += 1
            if self.raw.strip():
                raise self.error(f"unexpected {excerpt(self.raw.strip())} after {after}")


def _count(fields: list[str], n: int, f: _Reader, what: str) -> None:
    if len(fields) != n:
        raise f.error(f"{what}: {len(fields)} value{'' if len(fields) == 1 else 's'}, "
                      f"expected {n}")


def _int(token: str, f: _Reader, field: str, lo: int | None = None) -> int:
    if not _INT.fullmatch(token):
        raise f.error(f"{field}: {excerpt(token)} is not an integer")
    value = int(token)
    if lo is not None and value < lo:
        raise f.error(f"{field}: {value} is out of range, expected an integer >= {lo}")
    return value


def _float(token: str, f: _Reader, field: str) -> float:
    if not _FLOAT.fullmatch(token):
        raise f.error(f"{field}: {excerpt(token)} is not a number")
    value = float(token)
    if not 0 <= value < float("inf"):
        raise f.error(f"{field}: {token} is out of range, expected a finite number >= 0")
    return value


def _row(fields: list[str], n: int, f: _Reader, field: str, kind=float) -> np.ndarray:
    """A line of ``n`` numbers >= 0 (``kind`` int or float), as float64 or int64."""
    _count(fields, n, f, field)
    dtype = np.float64 if kind is float else np.int64
    if not _NOT_NUMERIC.search(" ".join(fields)):     # the fast path: whole rows at once
        try:
            values = np.array(fields, dtype=dtype)
        except (ValueError, OverflowError):
            pass
        else:
            sound = (np.isfinite(values).all() if kind is float
                     else all(map(_INT.fullmatch, fields)))
            if sound and (values >= 0).all():
                return values
    for i, token in enumerate(fields):           # the slow path names the first bad one
        if kind is float:
            _float(token, f, f"{field}, value {i}")
        else:
            _int(token, f, f"{field}, value {i}", 0)
    raise f.error(f"{field}: not a row of numbers")     # pragma: no cover - found above


# -- ISPD 2024: .cap -----------------------------------------------------------------------
def read_cap(path: str | os.PathLike) -> CapGrid:
    """Read an ISPD 2024 routing resource file (``.cap``, gzipped or not).

    Parameters
    ----------
    path : str or path-like
        The file: ``nLayers xSize ySize``; the unit costs (wire, via, an overflow weight a
        layer); the horizontal and the vertical GCell edge lengths; then for each layer a
        line ``name direction minLength`` and ``ySize`` rows of ``xSize`` capacities.

    Returns
    -------
    CapGrid
        The grid, costs, directions and capacities.

    Raises
    ------
    InputError
        Naming the file, the line and the field: a wrong count of values, a bad or
        negative number, a direction other than 0 or 1, a grid too large, a file cut short
        or with lines after the last layer.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = Path(d) / "t.cap"
    ...     _ = p.write_text("1 1 2\\n1 4 2\\n\\n7\\nM1 1 0\\n5\\n6\\n")
    ...     read_cap(p).capacity[0, :, 0].tolist()
    [5.0, 6.0]
    """
    f = _Reader(path, _lines(path), skip_blank=False)
    fields = f.take("the grid's size: nLayers xSize ySize")
    _count(fields, 3, f, "nLayers xSize ySize")
    layers, nx, ny = (_int(t, f, n, 1) for t, n in zip(fields, ("nLayers", "xSize", "ySize")))
    _check_grid(layers, nx, ny, 4, f)
    costs = _row(f.take("the unit costs"), 2 + layers, f,
                 "unit costs (UnitLengthWireCost, UnitViaCost and an OFWeight a layer)")
    lx = _row(f.take("the horizontal GCell edge lengths"), nx - 1, f,
              "horizontal GCell edge lengths (xSize - 1)", int)
    ly = _row(f.take("the vertical GCell edge lengths"), ny - 1, f,
              "vertical GCell edge lengths (ySize - 1)", int)
    # every value takes two characters at least: a header larger than the text is a file
    # cut short, found row by row below without allocating what it claims
    room = layers * nx * ny * 2 <= sum(len(line) + 1 for line in f.lines[f.at:]) + 1
    capacity = np.empty((layers, ny, nx), np.float32) if room else None
    names, directions, min_lengths = [], [], []
    for layer in range(layers):
        name, direction, min_length = _layer_header(f, layer)
        names.append(name)
        directions.append(direction)
        min_lengths.append(min_length)
        for y in range(ny):
            what = f"the capacities of layer {layer} ({name}), row y={y}"
            values = _row(f.take(what), nx, f, what)
            if capacity is not None:
                capacity[layer, y] = values
    f.finish(f"the capacities of the last layer ({layers - 1}, nLayers = {layers})")
    return CapGrid(nx, ny, float(costs[0]), float(costs[1]), _frozen(costs[2:]),
                   _frozen(lx), _frozen(ly), tuple(names),
                   _frozen(np.array(directions, np.int8)), _frozen(np.array(min_lengths)),
                   _frozen(capacity))


def _layer_header(f: _Reader, layer: int) -> tuple[str, int, float]:
    what = f"layer {layer}'s header (name direction minLength)"
    fields = f.take(what)
    _count(fields, 3, f, what)
    name, direction, min_length = fields
    if direction not in ("0", "1"):
        raise f.error(f"layer {layer} ({name}) direction: {excerpt(direction)}, expected "
                      "0 (horizontal) or 1 (vertical)")
    return name, int(direction), _float(min_length, f, f"layer {layer} ({name}) minLength")


def _check_grid(layers: int, nx: int, ny: int, bytes_each: int, f: _Reader) -> None:
    """Refuse a grid whose arrays could not be held, before they are made."""
    cells = layers * nx * ny
    if cells > limits.MAX_CELLS:
        raise f.error(f"{layers} layers of {nx} x {ny} GCells is more than the "
                      f"{limits.MAX_CELLS} GCells a grid may have")
    need, have = cells * bytes_each, limits.available_memory()
    if have and need > have:
        raise f.error(f"{layers} layers of {nx} x {ny} GCells need about "
                      f"{need / 2**30:.1f} GiB, more than the {have / 2**30:.1f} GiB "
                      "of memory available")


def _frozen(a: np.ndarray) -> np.ndarray:
    a.setflags(write=False)
    return a


# -- ISPD 2024: .net -----------------------------------------------------------------------
def read_net(path: str | os.PathLike, grid: CapGrid | None = None) -> ContestNets:
    """Read an ISPD 2024 net file (``.net``, gzipped or not).

    Parameters
    ----------
    path : str or path-like
        The file: for each net a line with its name, a line ``(``, a line a pin listing
        its access points ``[(layer, x, y), ...]``, and a line ``)``.
    grid : CapGrid, optional
        The design's ``.cap``: every access point must lie on its grid. Without it, only
        coordinates below zero are refused.

    Returns
    -------
    ContestNets
        The nets, every access point of every pin kept.

    Raises
    ------
    InputError
        Naming the file, the line and the field: a net named twice, without pins or not
        closed, a pin without access points or not of the form above, an access point off
        the grid.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = Path(d) / "t.net"
    ...     _ = p.write_text("a\\n(\\n[(1, 2, 3)]\\n)\\nb\\n(\\n[(0, 0, 0)]\\n)\\n")
    ...     nets = read_net(p)
    >>> nets.names, nets.points.tolist()
    (('a', 'b'), [[1, 2, 3], [0, 0, 0]])
    """
    f = _Reader(path, _lines(path), skip_blank=True)
    names: list[str] = []
    seen: set[str] = set()
    pins = _Pins()
    net_start = array("q", [0])
    while f.left():
        name = _net_name(f, seen)
        names.append(name)
        if f.take("the '(' that opens net {}", name) != ["("]:
            raise f.error(f"net {excerpt(name)}: {excerpt(f.raw.strip())}, expected '(' on "
                          "a line of its own after the net's name")
        while f.take("the ')' that closes net {}", name) != [")"]:
            if not _PIN.fullmatch(f.raw.strip()):
                raise f.error(f"net {excerpt(name)}, pin {len(pins.sizes) - net_start[-1]}: "
                              f"{excerpt(f.raw.strip())} is not a list of access points "
                              "[(layer, x, y), ...] of integers >= 0")
            pins.add(f.raw, f.at)
        if len(pins.sizes) == net_start[-1]:
            raise f.error(f"net {excerpt(name)} has no pins")
        net_start.append(len(pins.sizes))
    nets = ContestNets(tuple(names), pins.points(), pins.starts(),
                       _frozen(np.array(net_start, np.int64)))
    if grid is not None:
        _check_points(nets, (grid.layers, grid.nx, grid.ny), pins.lines, path,
                      "the grid of the .cap file")
    return nets


class _Pins:
    """Pins' access points, gathered from their lines a batch at a time: one conversion
    of many lines' numbers costs far less than one a line."""

    BATCH = 1 << 16

    def __init__(self):
        self.sizes, self.lines = array("q"), array("q")
        self.batch: list[str] = []
        self.done: list[np.ndarray] = []

    def add(self, text: str, line: int) -> None:
        """A pin of the (checked) ``text``, on line ``line``."""
        self.batch.append(text)
        self.sizes.append(text.count("("))
        self.lines.append(line)
        if len(self.batch) == self.BATCH:
            self._convert()

    def _convert(self) -> None:
        numbers = _DIGITS.findall(" ".join(self.batch))
        self.done.append(np.array(numbers, np.int64).astype(np.int32))
        self.batch = []

    def points(self) -> np.ndarray:
        self._convert()
        return _frozen(np.concatenate(self.done).reshape(-1, 3))

    def starts(self) -> np.ndarray:
        starts = np.zeros(len(self.sizes) + 1, np.int64)
        np.cumsum(np.frombuffer(self.sizes, np.int64), out=starts[1:])
        return _frozen(starts)


def _net_name(f: _Reader, seen: set[str]) -> str:
    fields = f.take("a net's name")
    if len(fields) != 1 or fields[0] in ("(", ")") or fields[0].startswith("["):
        raise f.error(f"{excerpt(f.raw.strip())}: expected a net's name, a single word "
                      "on a line of its own")
    if fields[0] in seen:
        raise f.error(f"net {excerpt(fields[0])} is named twice")
    seen.add(fields[0])
    return fields[0]


def _check_points(nets: ContestNets, sizes: tuple[int, int, int], pin_line: array, path,
                  of: str, unit: str = "") -> None:
    """Refuse the first access point outside ``sizes`` (layers, nx, ny), on its pin's
    line; ``unit`` follows the value (what it was converted to)."""
    pts = nets.points
    outside = (pts >= np.array(sizes)).any(axis=1) | (pts < 0).any(axis=1)
    if not outside.any():
        return
    k = int(np.argmax(outside))
    pin = int(np.searchsorted(nets.pin_start, k, side="right")) - 1
    net = int(np.searchsorted(nets.net_start, pin, side="right")) - 1
    for axis, (field, size) in enumerate(zip(("layer", "x", "y"), sizes)):
        value = int(pts[k, axis])
        if not 0 <= value < size:
            a, b = int(nets.pin_start[pin]), int(nets.pin_start[pin + 1])
            where = f", access point {k - a}" if b - a > 1 else ""
            raise line_error(
                f"net {excerpt(nets.names[net])}, pin {pin - int(nets.net_start[net])}"
                f"{where}: {field} {value}{unit} is off {of} (0 to {size - 1})",
                path, pin_line[pin])


# -- ISPD 2007/2008: .gr -------------------------------------------------------------------
#: The header's per-layer lines, in order: their two words and what the record calls them.
_GR_LAYER_LINES = (("vertical capacity", "vertical"), ("horizontal capacity", "horizontal"),
                   ("minimum width", "min_width"), ("minimum spacing", "min_spacing"),
                   ("via spacing", "via_spacing"))


def read_gr(path: str | os.PathLike) -> GrBenchmark:
    """Read an ISPD 2007/2008 global routing benchmark (``.gr``, gzipped or not).

    Parameters
    ----------
    path : str or path-like
        The file: ``grid nx ny layers``; the per-layer lines ``vertical capacity``,
        ``horizontal capacity``, ``minimum width``, ``minimum spacing``, ``via spacing``;
        the origin and tile size ``x y width height``; ``num net N``; for each net ``name
        id pins minWidth`` and a line ``x y layer`` a pin (length units, layers from 1);
        the number of capacity adjustments, then a line ``x1 y1 l1 x2 y2 l2 capacity``
        each (GCells, layers from 1). Blank lines are ignored.

    Returns
    -------
    GrBenchmark
        The grid with its capacities after the adjustments, and the nets with their pins
        in GCells.

    Raises
    ------
    InputError
        Naming the file, the line and the field: a header line out of order or with a
        value a layer too many or too few, a bad number, a net with fewer or more pin
        lines than it counts, a pin or an adjustment off the grid, an adjustment between
        GCells that are not neighbours on one layer, a file cut short or with lines after
        its adjustments.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = Path(d) / "t.gr"
    ...     _ = p.write_text("grid 2 2 1\\nvertical capacity 4\\nhorizontal capacity 4\\n"
    ...                      "minimum width 1\\nminimum spacing 1\\nvia spacing 0\\n"
    ...                      "0 0 10 10\\nnum net 1\\nn 0 2 1\\n5 5 1\\n15 15 1\\n"
    ...                      "1\\n0 0 1 1 0 1 0\\n")
    ...     gr = read_gr(p)
    >>> gr.h_cap[0].tolist(), gr.nets.points.tolist()
    ([[0], [4]], [[0, 0, 0], [0, 1, 1]])
    """
    f = _Reader(path, _lines(path), skip_blank=True)
    fields = f.take("the 'grid nx ny layers' line")
    if len(fields) != 4 or fields[0] != "grid":
        raise f.error(f"{excerpt(f.raw.strip())}: expected 'grid nx ny layers'")
    nx, ny, layers = (_int(t, f, n, 1) for t, n in zip(fields[1:], ("nx", "ny", "layers")))
    _check_grid(layers, nx, ny, 16, f)
    head = {}
    for words, key in _GR_LAYER_LINES:
        fields = f.take(f"the '{words}' line")
        if " ".join(fields[:2]) != words:
            raise f.error(f"{excerpt(f.raw.strip())}: expected the '{words}' line")
        head[key] = _frozen(_row(fields[2:], layers, f, f"{words} (one a layer)", int))
    fields = f.take("the origin and tile size 'x y width height'")
    _count(fields, 4, f, "origin and tile size (x y width height)")
    x0, y0 = (_int(t, f, n) for t, n in zip(fields[:2], ("origin x", "origin y")))
    tw, th = (_int(t, f, n, 1) for t, n in zip(fields[2:], ("tile width", "tile height")))
    fields = f.take("the 'num net N' line")
    if len(fields) != 3 or fields[:2] != ["num", "net"]:
        raise f.error(f"{excerpt(f.raw.strip())}: expected 'num net N'")
    grid = (layers, nx, ny, x0, y0, tw, th)
    nets, ids, widths, pin_line = _gr_nets(f, _int(fields[2], f, "num net", 0), grid)
    h_cap = np.empty((layers, ny, nx - 1), np.int64)
    v_cap = np.empty((layers, ny - 1, nx), np.int64)
    h_cap[:] = head["horizontal"][:, None, None]
    v_cap[:] = head["vertical"][:, None, None]
    adjustments = _gr_adjustments(f, (layers, nx, ny), len(nets), h_cap, v_cap)
    f.finish(f"the {len(adjustments)} capacity adjustments the file counts")
    return GrBenchmark(nx, ny, head["vertical"], head["horizontal"], head["min_width"],
                       head["min_spacing"], head["via_spacing"], (x0, y0), (tw, th),
                       _frozen(h_cap), _frozen(v_cap), nets, ids, widths,
                       _frozen(adjustments))


def _gr_nets(f: _Reader, count: int, grid: tuple) -> tuple[ContestNets, np.ndarray,
                                                          np.ndarray, array]:
    """``count`` nets, their pins converted to GCells (and checked against the grid)."""
    layers, nx, ny, x0, y0, tw, th = grid
    names, ids, widths = [], array("q"), array("q")
    points, net_start, pin_line = array("q"), array("q", [0]), array("q")
    for n in range(count):
        fields = f.take("net {} of the {} that 'num net' counts", n, count)
        if len(fields) != 4:
            raise f.error(f"net {n}: {excerpt(f.raw.strip())}, expected 'name id pins "
                          f"minWidth' (net {n} of the {count} that 'num net' counts)")
        name = fields[0]
        ids.append(_int(fields[1], f, f"net {excerpt(name)} id"))
        pins = _int(fields[2], f, f"net {excerpt(name)} pins", 0)
        widths.append(_int(fields[3], f, f"net {excerpt(name)} minWidth", 0))
        names.append(name)
        for p in range(pins):
            x, y, layer = _gr_pin(f, name, p, pins, layers)
            points.extend((layer - 1, (x - x0) // tw, (y - y0) // th))
            pin_line.append(f.at)
        net_start.append(len(points) // 3)
    pts = np.array(points, np.int64).reshape(-1, 3)
    starts = (_frozen(np.arange(len(pts) + 1, dtype=np.int64)),
              _frozen(np.array(net_start, np.int64)))
    _check_points(ContestNets(tuple(names), pts, *starts), (layers, nx, ny), pin_line,
                  f.path, "the grid", " (a GCell, from the origin and tile size)")
    nets = ContestNets(tuple(names), _frozen(pts.astype(np.int32)), *starts)
    return (nets, _frozen(np.array(ids, np.int64)), _frozen(np.array(widths, np.int64)),
            pin_line)


def _gr_pin(f: _Reader, name: str, p: int, pins: int, layers: int) -> tuple[int, int, int]:
    """Pin ``p`` of net ``name``'s line: ``x y layer``, the layer on the grid."""
    fields = f.take("pin {} of the {} that net {} counts", p, pins, name)
    if len(fields) == 3 and all(map(_INT.fullmatch, fields)):
        x, y, layer = map(int, fields)                  # the fast path
    elif len(fields) != 3:
        raise f.error(f"net {excerpt(name)}, pin {p}: {excerpt(f.raw.strip())}, expected "
                      f"'x y layer' (pin {p} of the {pins} that net {excerpt(name)} counts)")
    else:
        x, y, layer = (_int(t, f, f"net {excerpt(name)}, pin {p}, {a}")
                       for t, a in zip(fields, ("x", "y", "layer")))
    if not 1 <= layer <= layers:
        raise f.error(f"net {excerpt(name)}, pin {p}, layer: {layer} is off the grid "
                      f"(1 to {layers})")
    return x, y, layer


#: The GCells an adjustment names, as its line gives them.
_ENDS = ("x1", "y1", "layer1", "x2", "y2", "layer2")


def _gr_adjustments(f: _Reader, sizes: tuple[int, int, int], nets: int, h_cap: np.ndarray,
                    v_cap: np.ndarray) -> np.ndarray:
    """The capacity adjustments, applied to ``h_cap`` and ``v_cap`` in the file's order."""
    layers, nx, ny = sizes
    fields = f.take("the number of capacity adjustments")
    if len(fields) != 1:
        raise f.error(f"{excerpt(f.raw.strip())}: expected the number of capacity "
                      f"adjustments, after the {nets} nets that 'num net' counts")
    count = _int(fields[0], f, "the number of capacity adjustments", 0)
    rows = array("q")
    for i in range(count):
        what = f"capacity adjustment {i} of the {count} the file counts"
        fields = f.take(what)
        _count(fields, 7, f, f"{what} (x1 y1 layer1 x2 y2 layer2 capacity)")
        values = [_int(t, f, f"capacity adjustment {i}, {a}", 0)
                  for t, a in zip(fields, (*_ENDS, "capacity"))]
        x1, y1, l1, x2, y2, l2, cap = values
        for a, v, size in zip(_ENDS, values, (nx, ny, layers) * 2):
            lo = 1 if a.startswith("layer") else 0
            if not lo <= v < size + lo:
                raise f.error(f"capacity adjustment {i}, {a}: {v} is off the grid "
                              f"({lo} to {size - 1 + lo})")
        if l1 != l2 or abs(x1 - x2) + abs(y1 - y2) != 1:
            raise f.error(f"capacity adjustment {i}: ({x1}, {y1}, {l1}) and ({x2}, {y2}, "
                          f"{l2}) are not neighbouring GCells of one layer")
        if y1 == y2:
            h_cap[l1 - 1, y1, min(x1, x2)] = cap
        else:
            v_cap[l1 - 1, min(y1, y2), x1] = cap
        rows.extend((x1, y1, l1 - 1, x2, y2, l2 - 1, cap))
    return np.array(rows, np.int64).reshape(-1, 7)
