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

import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import yaml

from .errors import InputError, quote
from .graph import GridGraph
from .io import write_text

#: Largest grid accepted: vertex ids must fit in 32 bits.
MAX_CELLS = 2**31 - 2
#: Rough host bytes per cell that routing a layout needs (mask, levels, queue, parsing;
#: the picture is counted apart, per pixel, by the command line).
BYTES_PER_CELL = 24

_Dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
#: Largest layout or netlist file read (a 4096 x 4096 layout of 30,000 nets is ~2 MB).
MAX_FILE_BYTES = 256 << 20
#: Longest layout or net name (FORMATS.md).
MAX_NAME = 200


class _Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
    """YAML as a layout needs it: no aliases, no duplicate keys, no YAML 1.1 surprises.

    An alias makes a small file a huge value (the "billion laughs"), so none is
    accepted: a node met a second time while building the document is an alias. Numbers
    that YAML 1.1 reads differently from what they look like (``010`` is 8, ``1:00`` is
    60) are errors; ``yes``/``no``/``on``/``off`` are plain strings (YAML 1.2: only
    ``true`` and ``false`` are booleans).
    """

    def construct_object(self, node, deep=False):
        if node in self.constructed_objects or node in self.recursive_objects:
            raise yaml.constructor.ConstructorError(
                None, None, "aliases (*name) are not allowed in a layout file",
                node.start_mark)
        return super().construct_object(node, deep)

    def construct_mapping(self, node, deep=False):
        if isinstance(node, yaml.MappingNode):
            seen: set = set()
            for key_node, _ in node.value:
                key = key_node.value if isinstance(key_node, yaml.ScalarNode) else None
                if key is not None and key in seen:
                    raise yaml.constructor.ConstructorError(
                        None, None, f"key {quote(key)} appears twice in one mapping",
                        key_node.start_mark)
                seen.add(key)
        return super().construct_mapping(node, deep)

    def construct_ambiguous(self, node):
        raise yaml.constructor.ConstructorError(
            None, None, f"{quote(node.value)} reads differently in YAML 1.1 and 1.2 (a "
            "leading zero is octal, a colon base 60): write the number plainly, or quote "
            "it for a string", node.start_mark)


_Loader.yaml_implicit_resolvers = {
    k: [(tag, rx) for tag, rx in v if tag != "tag:yaml.org,2002:bool"]
    for k, v in _Loader.yaml_implicit_resolvers.items()}
_Loader.add_implicit_resolver("tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|"
                              r"false|False|FALSE)$"), list("tTfF"))
_AMBIGUOUS = re.compile(r"^(?:[-+]?0[0-9_]+|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?)$")
for _first in "-+0123456789":      # ahead of the int and float resolvers, which match too
    _Loader.yaml_implicit_resolvers.setdefault(_first, []).insert(0, ("!ambiguous",
                                                                      _AMBIGUOUS))
_Loader.add_constructor("!ambiguous", _Loader.construct_ambiguous)

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
            self.blocked = paint(self.width, self.height, self.rects)

    def grid(self) -> GridGraph:
        """The routing grid as a graph (free = not blocked)."""
        return GridGraph(~self.blocked)

    def pin_owner(self) -> dict[Cell, int]:
        """Map from each pin cell to the index of its net."""
        return {p: i for i, net in enumerate(self.nets) for p in net.pins}

    def to_dict(self) -> dict:
        return {"name": self.name, "width": self.width, "height": self.height,
                "blockages": [list(r) for r in self.rects],
                "nets": [{"name": n.name, "pins": [list(p) for p in n.pins]}
                         for n in self.nets]}


def paint(width: int, height: int, rects) -> np.ndarray:
    """Blocked-cell mask of inclusive rectangles."""
    blocked = np.zeros((height, width), dtype=bool)
    for x0, y0, x1, y1 in rects:
        blocked[y0:y1 + 1, x0:x1 + 1] = True
    return blocked


def load_layout(path: str | Path, netlist: str | Path | None = None) -> Layout:
    """Read and check a layout file; optionally replace its nets by a netlist file's."""
    data = _read_yaml(path)
    layout = parse_layout(data, path)
    if netlist is not None:
        layout = with_nets(layout, load_netlist(netlist), netlist)
    return layout


def load_netlist(path: str | Path, *, strict: bool = False) -> list[Net]:
    """Read a netlist file: a YAML mapping with just ``nets:``.

    With ``strict``, a full layout (one with ``width``, ``height`` or ``blockages``) is an
    error rather than a netlist whose other fields are silently dropped.
    """
    data = _read_yaml(path)
    if not isinstance(data, dict) or "nets" not in data:
        raise InputError("a netlist file must be a mapping with a 'nets' list",
                         file=path, field="nets")
    layout_keys = [k for k in ("width", "height", "blockages") if k in data]
    if strict and layout_keys:
        raise InputError(f"is a full layout (it has {', '.join(layout_keys)}), not a netlist "
                         "of just 'nets:'; route it as a layout, without --layout",
                         file=path, field=layout_keys[0])
    return _parse_nets(data["nets"], path)


def with_nets(layout: Layout, nets: list[Net], file: str | Path | None = None) -> Layout:
    """The same chip with other nets, checked against its blockages."""
    new = Layout(layout.name, layout.width, layout.height, layout.rects, nets,
                 layout.blocked, layout.source)
    _check_pins(new, file or layout.source)
    return new


def parse_layout(data, file: str | Path = "<layout>") -> Layout:
    """Build a :class:`Layout` from parsed YAML, enforcing every FORMATS.md rule."""
    if not isinstance(data, dict):
        raise InputError("a layout must be a YAML mapping with width, height and nets",
                         file=file)
    name = data.get("name", Path(str(file)).stem)
    _check_name(name, file, "name")
    width = _size(data, "width", file)
    height = _size(data, "height", file)
    if width * height > MAX_CELLS:
        raise InputError(f"{width} x {height} cells is more than the {MAX_CELLS} a layout "
                         "may have", file=file, field="width")
    need = width * height * BYTES_PER_CELL
    have = available_memory()
    if have and need > have:
        raise InputError(f"{width} x {height} cells needs about {need / 2**30:.1f} GiB, "
                         f"more than the {have / 2**30:.1f} GiB of memory available",
                         file=file, field="width")
    rects = _parse_blockages(data.get("blockages", []), width, height, file)
    if "nets" not in data:
        raise InputError("missing (use 'nets: []' for a layout without nets)",
                         file=file, field="nets")
    nets = _parse_nets(data["nets"], file)
    extra = set(data) - {"name", "width", "height", "blockages", "nets", "version"}
    del extra  # the contract lets tools add fields; mazeroute ignores them
    layout = Layout(name, width, height, rects, nets, source=str(file))
    _check_pins(layout, file)
    return layout


def save_layout(layout: Layout, path: str | Path) -> None:
    """Write a layout file (flow-style lists, so large layouts stay compact)."""
    d = layout.to_dict()
    lines = [f"name: {yaml.safe_dump(d['name']).splitlines()[0]}",
             f"width: {d['width']}", f"height: {d['height']}"]
    lines.append("blockages:" + ("" if d["blockages"] else " []"))
    lines += [f"  - [{x0}, {y0}, {x1}, {y1}]" for x0, y0, x1, y1 in d["blockages"]]
    lines.append("nets:" + ("" if d["nets"] else " []"))
    for n in d["nets"]:
        pins = ", ".join(f"[{x}, {y}]" for x, y in n["pins"])
        lines.append(f"  - {{name: {yaml.safe_dump(n['name']).splitlines()[0]}, "
                     f"pins: [{pins}]}}")
    write_text(path, "\n".join(lines) + "\n")


def read_movingai(path: str | Path) -> Layout:
    """A Moving AI ``.map`` grid (header optional) as a layout without nets.

    ``.``, ``G`` and ``S`` are passable; everything else (``@ O T W``) is blocked.
    """
    try:
        lines = Path(path).read_text().splitlines()
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(f"cannot read: {e}", file=path) from None
    if lines and lines[0].startswith("type"):
        lines = lines[lines.index("map") + 1:] if "map" in lines else lines[4:]
    rows = [r.rstrip("\r") for r in lines if r.strip()]
    if not rows:
        raise InputError("no map rows", file=path)
    width = max(len(r) for r in rows)
    chars = np.array([list(r.ljust(width, "@")) for r in rows])
    blocked = ~np.isin(chars, list(".GS"))
    return Layout(Path(path).stem, width, len(rows), [], [], blocked, str(path))


# -- helpers -----------------------------------------------------------------------
def _read_yaml(path):
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise InputError("no such file", file=path) from None
    except (OSError, ValueError) as e:
        raise InputError(f"cannot read: {e}", file=path) from None
    if stat.S_ISDIR(info.st_mode):
        raise InputError("is a directory, not a layout file", file=path)
    if not stat.S_ISREG(info.st_mode):      # a FIFO or a device would block or never end
        raise InputError("is not a regular file (a pipe, socket or device?)", file=path)
    if info.st_size > MAX_FILE_BYTES:
        raise InputError(f"is {info.st_size / 2**20:.0f} MiB, more than the "
                         f"{MAX_FILE_BYTES >> 20} MiB a layout file may have", file=path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(f"cannot read: {e}", file=path) from None
    try:
        return yaml.load(text, Loader=_Loader)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        problem = getattr(e, "problem", None) or str(e).splitlines()[0]
        raise InputError(f"YAML syntax error: {where}{problem}", file=path) from None


def _check_name(name, file, field) -> None:
    """FORMATS.md: a name is 1 to 200 characters of printable text (no control or
    format characters such as NUL or U+202E, no line breaks)."""
    if not isinstance(name, str) or not name:
        raise InputError(f"must be a non-empty string, got {quote(name)}", file=file,
                         field=field)
    if len(name) > MAX_NAME:
        raise InputError(f"is {len(name)} characters long; a name has at most {MAX_NAME}",
                         file=file, field=field)
    if not name.isprintable():
        bad = next(c for c in name if not c.isprintable())
        raise InputError(f"{quote(name)} holds the unprintable character U+{ord(bad):04X}; "
                         "a name is printable text", file=file, field=field)


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _size(data, key, file) -> int:
    if key not in data:
        raise InputError("missing (an integer >= 1)", file=file, field=key)
    v = data[key]
    if not _is_int(v) or v < 1:
        raise InputError(f"must be an integer >= 1, got {quote(v)}", file=file, field=key)
    return v


def _parse_blockages(items, width, height, file) -> list[Rect]:
    if items is None:
        return []
    if not isinstance(items, list):
        raise InputError("must be a list", file=file, field="blockages")
    rects = []
    for i, item in enumerate(items):
        where = f"blockages[{i}]"
        if isinstance(item, dict) and set(item) == {"rect"}:
            r = item["rect"]
        elif isinstance(item, dict) and set(item) == {"cell"}:
            c = _cell(item["cell"], width, height, file, where)
            r = [c[0], c[1], c[0], c[1]]
        elif isinstance(item, list):
            r = item
        else:
            raise InputError(f"must be [x0, y0, x1, y1], {{rect: [...]}} or {{cell: [x, y]}},"
                             f" got {quote(item)}", file=file, field=where)
        if not (isinstance(r, list) and len(r) == 4 and all(_is_int(v) for v in r)):
            raise InputError(f"a rectangle is four integers [x0, y0, x1, y1], got {quote(r)}",
                             file=file, field=where)
        x0, y0, x1, y1 = r
        if min(r) < 0:
            raise InputError(f"negative coordinate in {r}", file=file, field=where)
        if x0 > x1 or y0 > y1:
            raise InputError(f"corners out of order in {r} (need x0 <= x1, y0 <= y1)",
                             file=file, field=where)
        if x1 >= width or y1 >= height:
            raise InputError(f"{r} reaches outside the {width} x {height} grid",
                             file=file, field=where)
        rects.append((x0, y0, x1, y1))
    return rects


def _cell(c, width, height, file, where) -> Cell:
    if not (isinstance(c, list) and len(c) == 2 and all(_is_int(v) for v in c)):
        raise InputError(f"a cell is two integers [x, y], got {quote(c)}", file=file, field=where)
    x, y = c
    if x < 0 or y < 0:
        raise InputError(f"negative coordinate in {c}", file=file, field=where)
    if width is not None and (x >= width or y >= height):
        raise InputError(f"{c} lies outside the {width} x {height} grid",
                         file=file, field=where)
    return (x, y)


def _parse_nets(items, file) -> list[Net]:
    if not isinstance(items, list):
        raise InputError("must be a list (may be empty)", file=file, field="nets")
    nets, seen = [], {}
    for i, item in enumerate(items):
        where = f"nets[{i}]"
        if not isinstance(item, dict):
            raise InputError(f"must be a mapping with name and pins, got {quote(item)}",
                             file=file, field=where)
        name = item.get("name")
        _check_name(name, file, f"{where} name")
        where = f"nets[{i}] {quote(name)}"
        if name in seen:
            raise InputError(f"name repeats nets[{seen[name]}]", file=file, field=where)
        seen[name] = i
        pins = item.get("pins")
        if not isinstance(pins, list) or len(pins) < 2:
            raise InputError(f"pins must be a list of at least 2 cells, got {quote(pins)}",
                             file=file, field=where)
        cells = [_cell(p, None, None, file, f"{where} pins[{j}]") for j, p in enumerate(pins)]
        if len(set(cells)) != len(cells):
            dup = next(c for c in cells if cells.count(c) > 1)
            raise InputError(f"lists cell {list(dup)} twice", file=file, field=where)
        nets.append(Net(name, cells))
    return nets


def _check_pins(layout: Layout, file) -> None:
    owner: dict[Cell, int] = {}
    for i, net in enumerate(layout.nets):
        where = f"nets[{i}] {quote(net.name)}"
        for j, (x, y) in enumerate(net.pins):
            if x >= layout.width or y >= layout.height:
                raise InputError(f"pin {[x, y]} lies outside the {layout.width} x "
                                 f"{layout.height} grid", file=file, field=f"{where} pins[{j}]")
            if layout.blocked[y, x]:
                raise InputError(f"pin {[x, y]} lies on {_blockage_at(layout, x, y)}",
                                 file=file, field=f"{where} pins[{j}]")
            if (x, y) in owner:
                other = layout.nets[owner[(x, y)]].name
                raise InputError(f"pin {[x, y]} is also a pin of net {quote(other)}",
                                 file=file, field=where)
            owner[(x, y)] = i


def _blockage_at(layout: Layout, x: int, y: int) -> str:
    for k, (x0, y0, x1, y1) in enumerate(layout.rects):
        if x0 <= x <= x1 and y0 <= y <= y1:
            return f"blockages[{k}] {[x0, y0, x1, y1]}"
    return "a blocked cell"


def available_memory() -> int:
    """Bytes of memory a new allocation can get now (0 when unknown).

    Linux's ``MemAvailable`` (free memory plus caches it can drop), else physical memory.
    """
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
        return 0
