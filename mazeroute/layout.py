"""Layouts: the routing grid, its blockages and its nets (``FORMATS.md``, version 1).

The data model and its rules: :class:`Layout` and :class:`Net`, the blocked-cell mask of
rectangles (:func:`paint`, :func:`mask_rects`), the checks a layout built in Python must
pass (:func:`check_layout`), and writing a layout file (:func:`save_layout`). Reading
files, in every input format, is :mod:`mazeroute.readers`'s.

Examples
--------
>>> lay = Layout("demo", 4, 3, [(1, 0, 1, 1)], [Net("a", [(0, 0), (3, 0)])])
>>> lay.blocked.sum(), lay.nets[0].pins
(np.int64(2), [(0, 0), (3, 0)])
>>> check_layout(lay)
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .errors import InputError, quote
from .graph import GridGraph
from .io import write_text
from .layers import Stack, check_stack, paint_stack, stack_rects

Cell = tuple[int, int]
Rect = tuple[int, int, int, int]


@dataclass
class Net:
    """A net: a unique name and its pins; ``pins[0]`` is the root terminal.

    Parameters
    ----------
    name : str
        The net's name, unique in its layout.
    pins : list of (x, y)
        The cells the wire must join; a two-pin net's path runs from ``pins[0]`` to
        ``pins[1]``.

    Examples
    --------
    >>> Net("clk", [(0, 0), (3, 2)]).hpwl
    5
    """

    name: str
    pins: list[Cell]

    @property
    def hpwl(self) -> int:
        """Half-perimeter wirelength of the pins' bounding box."""
        xs, ys = [p[0] for p in self.pins], [p[1] for p in self.pins]
        return (max(xs) - min(xs)) + (max(ys) - min(ys))


@dataclass
class Layout:
    """A ``width`` x ``height`` grid, blocked cells, and nets.

    ``blocked`` is a ``(height, width)`` bool array (row ``y``, column ``x``);
    ``rects`` keeps the blockages as inclusive rectangles for writing back.

    Parameters
    ----------
    name : str
        The layout's name (its output folder's, made safe).
    width, height : int
        The grid's size in cells.
    rects : list of (x0, y0, x1, y1), optional
        Blockages as inclusive rectangles.
    nets : list of Net, optional
        The nets to route, in file order.
    blocked : (height, width) bool array, optional
        The blocked cells; default painted from ``rects``.
    source : str, optional
        The file it was read from, for messages.
    stack : Stack, optional
        The layers of a multi-layer layout (None: one layer). With one, ``blocked`` is
        ``(layers, height, width)``, pins are ``(x, y, z)``, and a rectangle of ``rects``
        may name its layer as a fifth number (:data:`~mazeroute.layers.Rect3`).

    Examples
    --------
    >>> lay = Layout("chip", 4, 2, rects=[(1, 0, 1, 1)], nets=[Net("a", [(0, 0), (3, 1)])])
    >>> int(lay.blocked.sum()), lay.blocked.shape
    (2, (2, 4))
    """

    name: str
    width: int
    height: int
    rects: list[Rect] = field(default_factory=list)
    nets: list[Net] = field(default_factory=list)
    blocked: np.ndarray | None = None
    source: str | None = None
    stack: Stack | None = None

    def __post_init__(self):
        if self.blocked is None:
            _check_dimensions(self, 0)             # before a grid of that size is made
            if self.stack is None:
                self.blocked = paint(self.width, self.height, self.rects)
            else:
                self.blocked = paint_stack(self.width, self.height, len(self.stack.layers),
                                           self.rects)

    def grid(self) -> GridGraph:
        """The routing grid as a graph (free = not blocked; its mask read-only: an engine
        keeps its own copy of the cells it blocks). A multi-layer layout has none yet: an
        :class:`InputError`, never one of its layers routed alone."""
        if self.stack is not None:
            raise InputError("routing multi-layer layouts is not supported yet by this "
                             "command", file=self.source)
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
        when written. A multi-layer layout adds ``layers``, ``via_cost`` and
        ``via_sites``; its blockages and pins name their layers by index."""
        if self.stack is not None:
            return _stack_dict(self)
        rects = self.rects
        if not np.array_equal(paint(self.width, self.height, rects), self.blocked):
            rects = mask_rects(self.blocked)
        return {"name": self.name, "width": self.width, "height": self.height,
                "blockages": [list(r) for r in rects],
                "nets": [{"name": n.name, "pins": [list(p) for p in n.pins]}
                         for n in self.nets]}


def _stack_dict(layout: Layout) -> dict:
    """:meth:`Layout.to_dict` of a multi-layer layout."""
    st = layout.stack
    rects = layout.rects
    depth = len(st.layers)
    if not np.array_equal(paint_stack(layout.width, layout.height, depth, rects),
                          layout.blocked):
        rects = stack_rects(layout.blocked, mask_rects)
    sites = None
    if st.via_sites is not None:
        # a per-pair mask writes each site with the lower of the two layers it joins
        sites = [[int(i) for i in reversed(c)] for c in np.argwhere(st.via_sites)]
    return {"name": layout.name, "width": layout.width, "height": layout.height,
            "layers": [{"name": a.name, "direction": a.direction} for a in st.layers],
            "via_cost": int(st.via_cost), "via_sites": sites,
            "blockages": [list(r) for r in rects],
            "nets": [{"name": n.name, "pins": [list(p) for p in n.pins]}
                     for n in layout.nets]}


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


def with_nets(layout: Layout, nets: list[Net], file: str | Path | None = None) -> Layout:
    """The same chip with other nets, checked against its blockages."""
    new = Layout(layout.name, layout.width, layout.height, layout.rects, nets,
                 layout.blocked, layout.source, layout.stack)
    check_pins(new, file or layout.source)
    return new


def save_layout(layout: Layout, path: str | Path) -> None:
    """Write a layout file (flow-style lists, so large layouts stay compact).

    Parameters
    ----------
    layout : Layout
        The layout to write.
    path : str or Path
        The YAML file to write, replaced atomically.

    Returns
    -------
    None

    Raises
    ------
    OSError
        When the file cannot be written.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "chip.yaml"
    >>> save_layout(Layout("chip", 4, 2, nets=[Net("a", [(0, 0), (3, 1)])]), path)
    >>> print(path.read_text(), end="")
    name: chip
    width: 4
    height: 2
    blockages: []
    nets:
      - {name: a, pins: [[0, 0], [3, 1]]}
    """
    d = layout.to_dict()
    if layout.stack is not None:
        write_text(path, _stack_yaml(d))
        return
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


def _stack_yaml(d: dict) -> str:
    """The text of a multi-layer layout file (:meth:`Layout.to_dict`'s fields), its
    blockages and pins naming their layers by name."""
    names = [a["name"] for a in d["layers"]]
    lines = [f"name: {_yaml_text(d['name'])}",
             f"width: {d['width']}", f"height: {d['height']}", "layers:"]
    lines += [f"  - {{name: {_yaml_text(a['name'])}, direction: {a['direction']}}}"
              for a in d["layers"]]
    lines.append(f"via_cost: {d['via_cost']}")
    if d["via_sites"] is not None:
        lines.append("via_sites: [" + ", ".join(f"{list(c)}" for c in d["via_sites"])
                     + "]")
    lines.append("blockages:" + ("" if d["blockages"] else " []"))
    for r in d["blockages"]:
        corners = ", ".join(str(v) for v in r[:4])
        lines.append(f"  - [{corners}]" if len(r) == 4 else
                     f"  - {{rect: [{corners}], layer: {_yaml_text(names[r[4]])}}}")
    lines.append("nets:" + ("" if d["nets"] else " []"))
    for n in d["nets"]:
        pins = ", ".join(f"[{x}, {y}, {_yaml_text(names[z])}]" for x, y, z in n["pins"])
        lines.append(f"  - {{name: {_yaml_text(n['name'])}, pins: [{pins}]}}")
    return "\n".join(lines) + "\n"


_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*")
_WORDS = {"y", "n", "yes", "no", "on", "off", "true", "false", "null"}


def _yaml_text(s: str) -> str:
    """``s`` as a YAML scalar that YAML 1.1 and 1.2 readers both take as this text:
    plain when it is a simple word, else double-quoted (JSON's escapes are YAML's)."""
    if _PLAIN.fullmatch(s) and s.lower() not in _WORDS:
        return s
    return json.dumps(s, ensure_ascii=False)


def net_rules(i: int, name: str, cells: list[Cell], seen: dict[str, int], file) -> None:
    """Refuse ``nets[i]`` where it breaks a rule that holds for a file's nets and a
    Layout built in Python alike.

    Parameters
    ----------
    i, name, cells
        The net's index, name and pins.
    seen : dict
        The names of the nets so far, to their index; ``name`` is added.
    file
        The file named by the error (None for a layout built in Python).

    Raises
    ------
    InputError
        For a name an earlier net has, fewer than two pins, or a cell listed twice.
    """
    if name in seen:
        raise InputError(f"name repeats nets[{seen[name]}]", file=file,
                         field=net_field(i, name))
    seen[name] = i
    if len(cells) < 2:
        raise InputError(f"pins must be a list of at least 2 cells, got {len(cells)}",
                         file=file, field=net_field(i, name))
    if len(set(cells)) < len(cells):
        once: set[Cell] = set()
        dup = next(c for c in cells if c in once or once.add(c))
        raise InputError(f"lists cell {quote(list(dup))} twice", file=file,
                         field=net_field(i, name))


def net_field(i: int, name: str) -> str:
    """How an error names ``nets[i]`` (made only for an error: quoting a name costs more
    than checking its net).

    >>> net_field(2, "clk")
    "nets[2] 'clk'"
    """
    return f"nets[{i}] {quote(name)}"


def check_layout(layout: Layout) -> None:
    """Refuse a :class:`Layout` built in Python that
    :func:`~mazeroute.readers.parse_layout` would have refused, before it is routed: an
    :class:`InputError` naming the field (a positive size, ``blocked`` a
    ``(height, width)`` bool array, nets of unique names with two or more distinct pins
    inside the grid, on free cells, no pin shared by two nets), or a ``TypeError`` for
    what is no layout at all. The readers' layouts pass already.

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
    shape, axes, width = (h, w), "(height, width)", 2
    if layout.stack is not None:
        check_stack(layout.stack, w, h, file)
        shape, axes, width = (len(layout.stack.layers), h, w), "(layers, height, width)", 3
    if not isinstance(b, np.ndarray) or b.dtype != np.bool_ or b.shape != shape:
        got = (f"a {b.dtype} array of shape {b.shape}" if isinstance(b, np.ndarray)
               else f"a {type(b).__name__}")
        raise InputError(f"must be a bool array of shape {axes} = {shape}, "
                         f"got {got}", file=file, field="blocked")
    if layout.stack is None and _plainly_valid(layout):
        return
    seen: dict[str, int] = {}
    for i, net in enumerate(layout.nets):
        if not isinstance(net, Net):
            raise TypeError(f"nets[{i}] is a {type(net).__name__}, not a Net")
        if not isinstance(net.name, str):
            raise InputError(f"a net's name is text, got {quote(net.name)}", file=file,
                             field=f"nets[{i}] name")
        pins = list(net.pins)
        for j, c in enumerate(pins):
            if not (len(c) == width and all(_is_index(v) for v in c) and min(c) >= 0):
                what = "two integers x, y" if width == 2 else "three integers x, y, layer"
                raise InputError(f"a pin is {what} >= 0, got {quote(c)}",
                                 file=file, field=f"{net_field(i, net.name)} pins[{j}]")
        net_rules(i, net.name, [tuple(int(v) for v in c) for c in pins], seen, file)
    check_pins(layout, file)


def _plainly_valid(layout: Layout) -> bool:
    """Whether every net of a single-layer ``layout`` (its ``blocked`` checked) keeps
    :func:`check_layout`'s rules, found with whole-array steps: a step a net and a pin
    in Python took a share of routing a large layout. False whenever in doubt, and for
    what is no layout at all; the checks a net at a time then name the first fault."""
    try:
        return _nets_plainly_valid(layout)
    except (TypeError, ValueError, OverflowError, IndexError):
        return False


def _nets_plainly_valid(layout: Layout) -> bool:
    nets = layout.nets
    if not all(type(n) is Net and type(n.name) is str for n in nets):
        return False
    if len({n.name for n in nets}) < len(nets) or any(len(n.pins) < 2 for n in nets):
        return False
    pins = [c for n in nets for c in n.pins]
    if not all(len(c) == 2 for c in pins):
        return False
    kinds = set(map(type, (v for c in pins for v in c)))
    if not all(map(_index_type, kinds)):
        return False                   # a bool, a float, text, ...
    xy = np.array(pins, np.int64).reshape(-1, 2)
    x, y = xy[:, 0], xy[:, 1]
    if xy.size and (xy.min() < 0 or x.max() >= layout.width or y.max() >= layout.height):
        return False
    if layout.blocked[y, x].any():
        return False
    cell = y * layout.width + x        # no cell twice, in a net or across nets
    return np.unique(cell).size == cell.size


def _is_index(v) -> bool:
    """An integer of Python or NumPy (a layout built in Python may hold either), not a
    bool."""
    return _index_type(type(v))


def _index_type(t: type) -> bool:
    """Whether values of type ``t`` are what :func:`_is_index` takes."""
    return issubclass(t, (int, np.integer)) and not issubclass(t, (bool, np.bool_))


def _check_dimensions(layout: Layout, least: int) -> None:
    """Refuse a ``width`` or ``height`` that is no integer or is under ``least``."""
    for name in ("width", "height"):
        v = getattr(layout, name)
        if not _is_index(v) or v < least:
            raise InputError(f"must be an integer >= {least}, got {quote(v)}",
                             file=layout.source, field=name)


def check_pins(layout: Layout, file: str | Path | None) -> None:
    """Refuse a pin of ``layout`` outside its grid, on a blocked cell, or shared by two
    nets: an :class:`InputError` naming ``file`` and the net's pin.
    """
    if layout.stack is not None:
        _check_pins3d(layout, file)
        return
    owner: dict[Cell, int] = {}
    for i, net in enumerate(layout.nets):
        for j, (x, y) in enumerate(net.pins):
            if x >= layout.width or y >= layout.height:
                raise InputError(f"pin {quote([x, y])} lies outside the {layout.width} x "
                                 f"{layout.height} grid", file=file,
                                 field=f"{net_field(i, net.name)} pins[{j}]")
            if layout.blocked[y, x]:
                raise InputError(f"pin {[x, y]} lies on {_blockage_at(layout, x, y)}",
                                 file=file, field=f"{net_field(i, net.name)} pins[{j}]")
            if (x, y) in owner:
                other = layout.nets[owner[(x, y)]].name
                raise InputError(f"pin {[x, y]} is also a pin of net {quote(other)}",
                                 file=file, field=net_field(i, net.name))
            owner[(x, y)] = i


def _check_pins3d(layout: Layout, file) -> None:
    """:func:`check_pins` of a multi-layer layout: pins are ``(x, y, z)``."""
    owner: dict[tuple, int] = {}
    names = layout.stack.names
    for i, net in enumerate(layout.nets):
        for j, pin in enumerate(net.pins):
            at = f"{net_field(i, net.name)} pins[{j}]"
            if len(pin) != 3:
                raise InputError(f"a pin of a multi-layer layout is [x, y, layer], got "
                                 f"{quote(list(pin))}", file=file, field=at)
            x, y, z = pin
            if x >= layout.width or y >= layout.height or z >= len(names):
                raise InputError(f"pin {quote(list(pin))} lies outside the {layout.width} x "
                                 f"{layout.height} x {len(names)} grid", file=file, field=at)
            if layout.blocked[z, y, x]:
                raise InputError(f"pin {[x, y]} on layer {quote(names[z])} lies on "
                                 f"{_blockage_at(layout, x, y, z)}", file=file, field=at)
            if pin in owner:
                other = layout.nets[owner[pin]].name
                raise InputError(f"pin {[x, y, z]} is also a pin of net {quote(other)}",
                                 file=file, field=net_field(i, net.name))
            owner[pin] = i


def _blockage_at(layout: Layout, x: int, y: int, z: int | None = None) -> str:
    for k, r in enumerate(layout.rects):
        x0, y0, x1, y1 = r[:4]
        if x0 <= x <= x1 and y0 <= y <= y1 and (len(r) == 4 or r[4] == z):
            return f"blockages[{k}] {[x0, y0, x1, y1]}"
    return "a blocked cell"
