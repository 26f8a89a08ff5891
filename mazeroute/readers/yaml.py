"""Layout and netlist files (YAML, ``FORMATS.md`` version 1): a safe, linear-time YAML
parser with strict scalars, and the checks of every field of the format.

:func:`load_layout` reads and checks a layout file, :func:`load_netlist` a file of just
``nets:``, :func:`parse_layout` the parsed data; each reports the first broken rule as an
:class:`~mazeroute.errors.InputError` that names the file and the net, blockage or field
at fault.

Examples
--------
>>> lay = parse_layout({"width": 4, "height": 3, "blockages": [[1, 0, 1, 1]],
...                     "nets": [{"name": "a", "pins": [[0, 0], [3, 0]]}]}, "demo.yaml")
>>> lay.name, lay.blocked.sum(), lay.nets[0].pins
('demo', np.int64(2), [(0, 0), (3, 0)])
"""

from __future__ import annotations

import gc
import re
from pathlib import Path

import numpy as np
import yaml
from yaml import events as ev

from ..errors import InputError, quote
from ..keys import BLOCKAGE_KEYS, LAYER_KEYS, LAYOUT_KEYS, NET_KEYS, NETLIST_KEYS, check_keys
from ..layers import DIRECTIONS, Layer, Stack
from ..layout import Cell, Layout, Net, Rect, check_pins, net_field, net_rules, with_nets
from ..limits import MAX_CELLS, MAX_DEPTH, MAX_DIGITS, MAX_NAME, check_size
from .text import read_text

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load_layout(path: str | Path, netlist: str | Path | None = None) -> Layout:
    """Read and check a layout file; optionally replace its nets by a netlist file's.

    Parameters
    ----------
    path : str or Path
        The layout YAML file (docs/FORMATS.md).
    netlist : str or Path, optional
        A netlist file (just ``nets:``) whose nets replace the layout's own.

    Returns
    -------
    Layout
        The checked layout.

    Raises
    ------
    InputError
        For a file that cannot be read or breaks a rule of the format; the message names
        the file and the field at fault.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "chip.yaml"
    >>> _ = path.write_text("width: 4\\nheight: 2\\nnets: [{name: a, pins: [[0, 0], [3, 1]]}]\\n")
    >>> lay = load_layout(path)
    >>> lay.name, lay.width, lay.height, lay.nets[0].pins
    ('chip', 4, 2, [(0, 0), (3, 1)])
    """
    data = _read_yaml(path)
    layout = parse_layout(data, path)
    if netlist is not None:
        layout = with_nets(layout, load_netlist(netlist, stack=layout.stack), netlist)
    return layout


def load_netlist(path: str | Path, option: str = "--nets", stack: Stack | None = None
                 ) -> list[Net]:
    """Read a netlist file: a YAML mapping with just ``nets:`` (any other key is an error,
    :func:`~mazeroute.keys.check_keys`).

    A full layout (one with ``width``, ``height`` or ``blockages``) is an error rather
    than a netlist whose other fields are silently dropped: a user who passes a layout
    there would route without its blockages. ``option``: the command-line option that
    named the file, for the hint; ``stack``: the layers of the layout the nets are for,
    which their pins may name (None: a single layer).
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
    return _parse_nets(data["nets"], path, stack)



def parse_layout(data, file: str | Path = "<layout>") -> Layout:
    """Build a :class:`Layout` from parsed YAML, enforcing every FORMATS.md rule; a key
    the format does not have is an error (:func:`~mazeroute.keys.check_keys`).

    Parameters
    ----------
    data : object
        The parsed YAML: a mapping with ``width``, ``height``, ``nets`` and optionally
        ``name``, ``version`` and ``blockages``.
    file : str or Path
        The file it came from, named in messages (and the default name).

    Returns
    -------
    Layout
        The checked layout.

    Raises
    ------
    InputError
        For any broken rule, naming the file and the field at fault.

    Examples
    --------
    >>> lay = parse_layout({"width": 4, "height": 2, "blockages": [[1, 0, 1, 1]],
    ...                     "nets": [{"name": "a", "pins": [[0, 0], [3, 1]]}]}, "chip.yaml")
    >>> lay.name, int(lay.blocked.sum())
    ('chip', 2)
    >>> parse_layout({"width": 0, "height": 2, "nets": []}, "bad.yaml")
    Traceback (most recent call last):
    ...
    mazeroute.errors.InputError: bad.yaml: width: must be an integer >= 1, got 0
    """
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
    stack = _parse_stack(data, width, height, file)
    rects = _parse_blockages(data.get("blockages", []), width, height, file, stack)
    if "nets" not in data:
        raise InputError("missing (use 'nets: []' for a layout without nets)",
                         file=file, field="nets")
    nets = _parse_nets(data["nets"], file, stack)
    layout = Layout(name, width, height, rects, nets, source=str(file), stack=stack)
    check_pins(layout, file)
    return layout



def _read_yaml(path):
    return parse_yaml(read_text(path), path)


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


def _parse_stack(data: dict, width: int, height: int, file) -> Stack | None:
    """The layout's layers and via rules; None for a layout of one layer."""
    if "layers" not in data:
        for key in ("via_cost", "via_sites"):
            if key in data:
                raise InputError("belongs to a multi-layer layout: give 'layers' too",
                                 file=file, field=key)
        return None
    items = data["layers"]
    if not isinstance(items, list) or not items:
        raise InputError(f"must be a list of at least one layer {{name, direction}}, "
                         f"{_got(items)}", file=file, field="layers")
    if width * height * len(items) > MAX_CELLS:
        raise InputError(f"{width} x {height} x {len(items)} cells is more than the "
                         f"{MAX_CELLS} a layout may have", file=file, field="layers")
    check_size(width * len(items), height, file, "layers")
    layers, seen = [], {}
    for i, item in enumerate(items):
        where = f"layers[{i}]"
        if not isinstance(item, dict):
            raise InputError(f"must be a mapping {{name, direction}}, {_got(item)}",
                             file=file, field=where)
        check_keys(item, LAYER_KEYS, file, where)
        name = _name(item.get("name"), file, f"{where} name")
        if name in seen:
            raise InputError(f"{quote(name)} repeats layers[{seen[name]}]", file=file,
                             field=f"{where} name")
        seen[name] = i
        direction = item.get("direction", "any")
        if direction not in DIRECTIONS:
            raise InputError(f"must be one of {', '.join(DIRECTIONS)}, {_got(direction)}",
                             file=file, field=f"{where} direction")
        layers.append(Layer(name, direction))
    via_cost = data.get("via_cost", 1)
    if not _is_int(via_cost) or via_cost < 1:
        raise InputError(f"must be an integer >= 1, {_got(via_cost)}", file=file,
                         field="via_cost")
    stack = Stack(tuple(layers), via_cost)
    sites = data.get("via_sites")
    if sites is None:
        return stack
    return Stack(stack.layers, via_cost, _via_sites(sites, stack, width, height, file))


def _via_sites(sites, stack: Stack, width: int, height: int, file) -> np.ndarray:
    """The via sites: ``[x, y]`` joins every two adjacent layers, ``[x, y, layer]`` that
    layer and the next alone; an ``(H, W)`` mask unless some site names its layer."""
    if not isinstance(sites, list):
        raise InputError(f"must be a list of cells [x, y] or [x, y, layer], {_got(sites)}",
                         file=file, field="via_sites")
    depth = len(stack.layers)
    per_pair = any(isinstance(c, list) and len(c) == 3 for c in sites)
    mask = np.zeros((depth - 1, height, width) if per_pair else (height, width), bool)
    for k, c in enumerate(sites):
        where = f"via_sites[{k}]"
        x, y = _cell(c[:2] if isinstance(c, list) and len(c) == 3 else c, width, height,
                     file, where)
        if not per_pair:
            mask[y, x] = True
        elif len(c) == 2:
            mask[:, y, x] = True
        else:
            z = _layer(c[2], stack, file, where)
            if z == depth - 1:
                raise InputError(f"layer {quote(stack.names[z])} is the top one: a via site "
                                 "names the lower of the two layers it joins", file=file,
                                 field=where)
            mask[z, y, x] = True
    return mask


def _layer(value, stack: Stack | None, file, where: str) -> int:
    """The 0-based index of the layer ``value`` names (a name, or an index)."""
    if stack is None:
        raise InputError(f"names layer {quote(value)}, but the layout has no 'layers'",
                         file=file, field=where)
    names = stack.names
    if isinstance(value, str):
        if value in names:
            return names.index(value)
        raise InputError(f"unknown layer {quote(value)}; the layers are "
                         f"{quote(list(names))}", file=file, field=where)
    if _is_int(value) and 0 <= value < len(names):
        return value
    raise InputError(f"a layer is one of the names {quote(list(names))} or an index "
                     f"0 .. {len(names) - 1}, {_got(value)}", file=file, field=where)


def _parse_blockages(items, width, height, file, stack=None) -> list[Rect]:
    if items is None:
        return []
    if not isinstance(items, list):
        raise InputError("must be a list", file=file, field="blockages")
    rects = []
    for i, item in enumerate(items):
        where = f"blockages[{i}]"
        z = None
        if isinstance(item, dict):
            check_keys(item, BLOCKAGE_KEYS, file, where)
            if "layer" in item:
                z = _layer(item["layer"], stack, file, f"{where} layer")
        keys = set(item) - {"layer"} if isinstance(item, dict) else None
        if keys == {"rect"}:
            r = item["rect"]
        elif keys == {"cell"}:
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
        rects.append((x0, y0, x1, y1) if z is None else (x0, y0, x1, y1, z))
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


def _parse_nets(items, file, stack: Stack | None = None) -> list[Net]:
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
                       net_field(i, name) if isinstance(name, str) and name else where)
        name = _name(item.get("name"), file, f"{where} name")
        pins = item.get("pins")
        if not isinstance(pins, list):
            raise InputError(f"pins must be a list of at least 2 cells, {_got(pins)}",
                             file=file, field=net_field(i, name))
        if stack is not None:
            cells = _pins3d(pins, stack, file, net_field(i, name))
            net_rules(i, name, cells, seen, file)
            nets.append(Net(name, cells))
            continue
        cells = []
        for j, p in enumerate(pins):
            if (type(p) is list and len(p) == 2 and type(p[0]) is int and type(p[1]) is int
                    and p[0] >= 0 and p[1] >= 0):
                cells.append((p[0], p[1]))     # _cell's answer, without its field's text
            else:
                at = f"{net_field(i, name)} pins[{j}]"
                if isinstance(p, list) and len(p) == 3:
                    _layer(p[2], None, file, at)
                cells.append(_cell(p, None, None, file, at))
        net_rules(i, name, cells, seen, file)
        nets.append(Net(name, cells))
    return nets


def _pins3d(pins: list, stack: Stack, file, where: str) -> list[tuple[int, int, int]]:
    """A multi-layer net's pins: ``[x, y]`` on the first layer, or ``[x, y, layer]``."""
    cells = []
    for j, p in enumerate(pins):
        at = f"{where} pins[{j}]"
        if not (isinstance(p, list) and len(p) in (2, 3)):
            raise InputError(f"a pin is [x, y] or [x, y, layer], {_got(p)}", file=file,
                             field=at)
        x, y = _cell(p[:2], None, None, file, at)
        z = _layer(p[2], stack, file, at) if len(p) == 3 else 0
        cells.append((x, y, z))
    return cells

