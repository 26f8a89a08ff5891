"""Checks that a routes file keeps every promise of FORMATS.md about its layout.

Used by the tests on every engine's output and by ``mazeroute check --routes``. A routes
file comes from outside, so nothing in it is trusted: whatever its shape, the checker
answers with problem lines, never an exception.

Examples
--------
>>> from mazeroute.readers import parse_layout
>>> from mazeroute.router import route
>>> lay = parse_layout({"width": 4, "height": 4, "nets": [
...     {"name": "a", "pins": [[0, 0], [3, 3]]}, {"name": "b", "pins": [[3, 0], [0, 3]]}]})
>>> check_routes(lay, route(lay, backend="cpu", mode="sequential").to_json(),
...              sequential=True)
[]
>>> for line in check_routes(lay, {"format": "mazeroute-routes/1", "width": 4, "height": 4,
...         "nets": [{"name": "a", "routed": True, "order": 0, "cells": 5}, None]}):
...     print(line)
nets[0] 'a': cells is not a list, got 5
nets[1]: not an object, got None
"""

from __future__ import annotations

import json
from pathlib import Path

import numba
import numpy as np

from .engines import UNREACHED, make_problem
from .errors import InputError, quote
from .layers import edge_kind, why_not_edge
from .layout import Layout
from .readers import read_text as read_input
from .router import ROUTES_FORMAT

_STEPS = {(0, 1), (1, 0), (0, -1), (-1, 0)}
#: The routing modes a routes file may name (FORMATS.md 1.1); absent means sequential.
ROUTE_MODES = ("sequential", "negotiate")
#: Most problem lines returned; past it, one line says how many more there were.
MAX_PROBLEMS = 200


@numba.njit(cache=True, nogil=True)
def _cells_ascii(xy):
    """``[[x,y],[x,y],...]`` of a ``(k, 2)`` array of non-negative ints, as ASCII bytes;
    no bytes at all where a number is negative (not a grid cell)."""
    k = xy.shape[0]
    out = np.empty(2 + k * 44, np.uint8)          # 20 digits a number at most
    for i in range(k):
        if xy[i, 0] < 0 or xy[i, 1] < 0:
            return out[:0]
    digits = np.empty(20, np.uint8)
    n = 0
    out[n] = 91                                   # [
    n += 1
    for i in range(k):
        if i:
            out[n] = 44                           # ,
            n += 1
        out[n] = 91
        n += 1
        for j in range(2):
            if j:
                out[n] = 44
                n += 1
            v = xy[i, j]
            m = 0
            while True:
                digits[m] = 48 + v % 10
                m += 1
                v //= 10
                if v == 0:
                    break
            for t in range(m - 1, -1, -1):
                out[n] = digits[t]
                n += 1
        out[n] = 93                               # ]
        n += 1
    out[n] = 93
    return out[:n + 1]


_KEYS: dict[str, str] = {}          # a net's keys as JSON text (a routes file has a few)


def _key_text(key: str) -> str:
    text = _KEYS.get(key)
    if text is None:
        text = json.dumps(key)
        if len(_KEYS) < 64:
            _KEYS[key] = text
    return text


def _value_text(value) -> str:
    """``json.dumps(value, separators=(',', ':'))``, without its call for the plain
    values most of a net's fields hold (a thousand nets' fields cost milliseconds)."""
    kind = type(value)
    if kind is int:
        return str(value)
    if kind is bool:
        return "true" if value else "false"
    if value is None:
        return "null"
    return json.dumps(value, separators=(",", ":"))


def _net_text(net: dict) -> str:
    """One net's entry in compact JSON, as ``json.dumps(net, separators=(',', ':'))``
    writes it, with ``cells`` given as a ``(k, 2)`` array written straight from it (a
    Python list a cell costs some 150 bytes and most of the encoding's time).

    >>> _net_text({"name": "n 1", "routed": True, "order": None, "cells": np.array([[3, 4]]),
    ...            "length": 0, "seconds": 0.5})
    '{"name":"n 1","routed":true,"order":null,"cells":[[3,4]],"length":0,"seconds":0.5}'
    """
    cells = net.get("cells")
    if not isinstance(cells, np.ndarray):
        return json.dumps(net, separators=(",", ":"))
    xy = np.ascontiguousarray(cells, dtype=np.int64).reshape(-1, 2)
    text = _cells_ascii(xy)
    if not text.size:                             # not a grid cell: the plain way
        return json.dumps({**net, "cells": xy.tolist()}, separators=(",", ":"))
    cells_text = text.tobytes().decode("ascii")
    parts = [_key_text(k) + ":" + (cells_text if k == "cells" else _value_text(v))
             for k, v in net.items()]
    return "{" + ",".join(parts) + "}"


def routes_text(routes: dict) -> str:
    """A routes document as the text of a routes file: its fields one a line, and each
    net on a line of its own in compact form (a wire of a million cells is a few
    megabytes of text, where one number a line took five times as much). A net's
    ``cells`` may be a ``(k, 2)`` array (``RouteResult.to_json(arrays=True)``): the text
    is the same as for the lists, without making them.

    >>> print(routes_text({"format": "f", "nets": [{"name": "a", "cells": [[0, 0], [1, 0]]}]}),
    ...       end="")
    {
     "format": "f",
     "nets": [
      {"name":"a","cells":[[0,0],[1,0]]}
     ]
    }
    >>> routes_text({"nets": [{"name": "a", "cells": np.array([[10, 0], [10, 1]])}]}
    ...             ).splitlines()[2]
    '  {"name":"a","cells":[[10,0],[10,1]]}'
    """
    head = [f" {json.dumps(k)}: {json.dumps(v)}" for k, v in routes.items() if k != "nets"]
    nets = [f"  {_net_text(n)}" for n in routes.get("nets", [])]
    body = ' "nets": [\n' + ",\n".join(nets) + "\n ]" if nets else ' "nets": []'
    return "{\n" + ",\n".join([*head, body]) + "\n}\n"


def load_routes(path: str | Path) -> dict:
    """Read a routes file: a JSON object, from a regular file of bounded size.

    Every way it can be unreadable (missing, a FIFO or device, not UTF-8, not JSON,
    nested too deeply, a number too long) is one :class:`InputError` naming the file.
    """
    text = read_input(path).removeprefix("\ufeff")   # a byte-order mark, as layouts allow
    try:
        routes = json.loads(text)
    except json.JSONDecodeError as e:
        raise InputError(f"not a JSON file: line {e.lineno}, column {e.colno}: {e.msg}",
                         file=path) from None
    except RecursionError:
        raise InputError("not a routes file: JSON nested too deeply", file=path) from None
    except ValueError as e:        # e.g. an integer past Python's digit limit
        raise InputError(f"not a routes file: {quote(str(e))[1:-1]}", file=path) from None
    if not isinstance(routes, dict):
        raise InputError(f"a routes file is a JSON object, got {_kind(routes)}", file=path)
    return routes


def check_routes(layout: Layout, routes, *, sequential: bool = False) -> list[str]:
    """Every broken promise of ``routes`` about ``layout``, one line each (empty: valid).

    ``routes`` is the parsed JSON, of any shape: a field of the wrong type is a problem
    line, not an exception. With ``sequential=True`` the promises of plain sequential
    routing are checked too: each two-pin net is a shortest path given the layout's
    blockages, the wires committed before it and every other net's pins, and a net is
    unrouted only if no path existed at its turn. A routes file says nothing about when
    an unrouted net's turn came, and wires only accumulate, so the check asks whether its
    pins can be connected with every routed wire in place: if so, they could at any turn.

    A multi-layer layout's routes (version 1.2) give cells as ``[x, y, layer]``; each
    step runs along its layer's direction or is a via between adjacent layers at a place
    a via may go, and the ``vias`` each net and the file state are checked too. Their
    ``sequential`` promises cannot be checked yet: an :class:`InputError` for the option.
    """
    if sequential and layout.stack is not None:
        raise InputError("the shortest-path promises of multi-layer routes cannot be "
                         "checked yet; check them without it", field="--sequential")
    if not isinstance(routes, dict):
        return [f"a routes file is a JSON object, got {_kind(routes)}"]
    problems: list[str] = []
    bad = problems.append
    _check_header(layout, routes, sequential, bad)
    entries = routes.get("nets")
    if not isinstance(entries, list):
        return [*problems, f"nets is not a list, got {quote(entries)}"]
    nets = {n.name: n for n in layout.nets}
    dims = 2 if layout.stack is None else 3
    by_name, seen, unnamed, rejected = _index_entries(entries, nets, bad, dims)
    owner = layout.pin_owner()
    used: dict[tuple[int, int], str] = {}
    orders = []
    for name, net in nets.items():
        e = by_name.get(name)
        if e is None:
            continue
        cells = [tuple(c) for c in e["cells"]]
        if not e["routed"]:
            if cells or e["order"] is not None:
                bad(f"{name}: unrouted, but has cells or an order")
            continue
        orders.append((e["order"], name))
        if dims == 2:
            _check_wire(layout, net, e, cells, owner, used, bad)
        else:
            _check_wire3d(layout, net, e, cells, owner, used, bad)
    # A rejected entry's order is unknown, so the others' cannot be judged: they would
    # miss its number, and the fault already has its own line. So is one under a name the
    # layout lacks (a renamed net: its order is not among the layout nets').
    judged = not (unnamed or rejected or seen - set(nets))
    if judged and sorted(o for o, _ in orders) != list(range(len(orders))):
        bad("orders of routed nets are not 0, 1, 2, ...")
    if dims == 3 and judged:
        total = routes.get("vias")
        stated = sum(by_name[name].get("vias", 0) for _, name in orders)
        if not (_is_int(total) and total == stated):
            bad(f"vias {quote(total)} is not the sum of the nets' vias ({stated})")
    if sequential and not problems:
        problems += _check_sequential(layout, by_name, sorted(orders))
    if len(problems) > MAX_PROBLEMS:
        more = len(problems) - MAX_PROBLEMS
        problems = [*problems[:MAX_PROBLEMS], f"... and {more} more problems"]
    return problems


def _check_header(layout: Layout, routes: dict, sequential: bool, bad) -> None:
    """The file's own fields: its format, its grid's size, its mode."""
    if routes.get("format") != ROUTES_FORMAT:
        bad(f"format is {quote(routes.get('format'))}, not {ROUTES_FORMAT!r}")
    size = (routes.get("width"), routes.get("height"))
    if not (all(_is_int(v) for v in size) and size == (layout.width, layout.height)):
        bad(f"width/height {quote(size[0])} x {quote(size[1])} differ from the layout's "
            f"{layout.width} x {layout.height}")
    if layout.stack is not None and routes.get("layers") != list(layout.stack.names):
        bad(f"layers {quote(routes.get('layers'))} differ from the layout's "
            f"{quote(list(layout.stack.names))}")
    mode = routes.get("mode", "sequential")
    if mode not in ROUTE_MODES:
        bad(f"mode is {quote(mode)}, not one of {', '.join(map(repr, ROUTE_MODES))}")
    elif sequential and mode != "sequential":
        bad(f"mode is {mode!r}: the promises of sequential routing (shortest paths, "
            "unrouted only when no path existed) do not hold for it; check it without "
            "--sequential")


def _index_entries(entries: list, nets: dict, bad, dims: int = 2
                   ) -> tuple[dict[str, dict], set[str], int, int]:
    """The well-formed entries of layout nets by name, every name seen, and the counts of
    entries without a readable name and of entries rejected (malformed or repeated);
    ``dims``: the numbers of a cell (3 for a multi-layer layout's)."""
    by_name: dict[str, dict] = {}
    seen: set[str] = set()
    repeats: dict[str, int] = {}           # a name listed n times is one line, not n - 1
    unnamed = rejected = 0
    for k, e in enumerate(entries):
        if not isinstance(e, dict):
            bad(f"nets[{k}]: not an object, got {quote(e)}")
            unnamed += 1
            continue
        name = e.get("name")
        if not isinstance(name, str):
            bad(f"nets[{k}]: name is not a string, got {quote(name)}")
            unnamed += 1
            continue
        if name in seen:
            repeats[name] = repeats.get(name, 1) + 1
            by_name.pop(name, None)        # which of the two to check is anyone's guess
            rejected += 1
            continue
        seen.add(name)
        if name in nets and not _entry_ok(e, f"nets[{k}] {quote(name)}", bad, dims):
            rejected += 1
        elif name in nets:
            by_name[name] = e
    for name, n in repeats.items():
        bad(f"net {quote(name)} appears " + ("twice" if n == 2 else f"{n} times"))
    # An entry whose name cannot be read may be any layout net's: while they can account
    # for every net without an entry, those nets' lines would only repeat their fault.
    absent = set(nets) - seen
    if len(absent) <= unnamed:
        absent = set()
    for name in sorted((seen - set(nets)) | absent):
        bad(f"net {quote(name)} is in only one of layout and routes")
    return by_name, seen, unnamed, rejected


def _covers_pins(net, cells: list, bad) -> None:
    """Each of the wire's cells listed once, and every pin among them."""
    if len(set(cells)) != len(cells):
        bad(f"{net.name}: a cell is listed twice")
    cellset = set(cells)
    missing = [list(p) for p in net.pins if p not in cellset]
    if missing:
        bad(f"{net.name}: pins {quote(missing)} are not on the wire")


def _check_wire(layout: Layout, net, e: dict, cells: list, owner, used: dict, bad) -> None:
    """One routed net's wire: its cells, its pins on it, connected, and a two-pin net's
    path from pins[0] to pins[1] with its length."""
    name = net.name
    _check_cells(layout, name, cells, owner, used, bad)
    _covers_pins(net, cells, bad)
    if not _connected(cells):
        bad(f"{name}: cells are not 4-connected")
    if len(net.pins) == 2:
        if cells[:1] != [net.pins[0]] or cells[-1:] != [net.pins[1]]:
            bad(f"{name}: a two-pin path must run from pins[0] to pins[1]")
        if any((b[0] - a[0], b[1] - a[1]) not in _STEPS for a, b in zip(cells, cells[1:])):
            bad(f"{name}: consecutive cells are not neighbours")
        if e["length"] != len(cells) - 1:
            bad(f"{name}: length {quote(e['length'])} is not len(cells) - 1")


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _kind(v) -> str:
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean",
            type(None): "null"}.get(type(v), "a number")


def _entry_ok(e: dict, where: str, bad, dims: int = 2) -> bool:
    """Whether a net's entry has every field, each of its type (reporting the first not);
    ``dims``: 3 for a multi-layer layout's, whose cells are ``[x, y, layer]`` and whose
    routed nets state their ``vias``."""
    for key in ("routed", "order", "cells"):
        if key not in e:
            bad(f"{where}: {key} is missing")
            return False
    routed, order, cells = e["routed"], e["order"], e["cells"]
    if not isinstance(routed, bool):
        bad(f"{where}: routed is not true or false, got {quote(routed)}")
        return False
    if not (order is None or _is_int(order)):
        bad(f"{where}: order is not an integer or null, got {quote(order)}")
        return False
    if routed and order is None:
        bad(f"{where}: routed, but its order is null")
        return False
    if not isinstance(cells, list):
        bad(f"{where}: cells is not a list, got {quote(cells)}")
        return False
    if dims == 3:
        return _entry3d_ok(e, where, bad)
    for j, c in enumerate(cells):
        if not (isinstance(c, list) and len(c) == 2 and _is_int(c[0]) and _is_int(c[1])):
            bad(f"{where}: cells[{j}] is not a cell [x, y] of two integers, got {quote(c)}")
            return False
    if routed:
        length = e.get("length")
        if not (_is_int(length) and length >= 0):
            bad(f"{where}: length is not an integer >= 0, got {quote(length)}")
            return False
    return True


def _entry3d_ok(e: dict, where: str, bad) -> bool:
    """:func:`_entry_ok`'s cells and counts of a multi-layer layout's entry."""
    for j, c in enumerate(e["cells"]):
        if not (isinstance(c, list) and len(c) == 3 and all(_is_int(v) for v in c)):
            bad(f"{where}: cells[{j}] is not a cell [x, y, layer] of three integers, got "
                f"{quote(c)}")
            return False
    if e["routed"]:
        for key in ("length", "vias"):
            v = e.get(key)
            if not (_is_int(v) and v >= 0):
                bad(f"{where}: {key} is not an integer >= 0, got {quote(v)}")
                return False
    return True


def _check_cells(layout: Layout, name: str, cells, owner, used, bad) -> None:
    """Cells off the grid, on blockages, on other nets' pins or wires: one line per kind."""
    found: dict[str, list] = {}
    for c in cells:
        x, y = c
        if not (0 <= x < layout.width and 0 <= y < layout.height):
            found.setdefault("is outside the grid", []).append(c)
            continue
        if layout.blocked[y, x]:
            found.setdefault("is on a blockage", []).append(c)
        _shared(layout, c, name, owner, used, found)
    _faults(name, found, bad)


def _shared(layout: Layout, c, name: str, owner, used: dict, found: dict) -> None:
    """Note cell ``c`` of net ``name`` where it is another net's pin or wire, and claim
    it for ``name``."""
    if c in owner and layout.nets[owner[c]].name != name:
        other = layout.nets[owner[c]].name
        found.setdefault(f"is a pin of net {quote(other)}", []).append(c)
    if c in used and used[c] != name:
        found.setdefault(f"also belongs to net {quote(used[c])}", []).append(c)
    used[c] = name


def _faults(name: str, found: dict, bad) -> None:
    """One line a kind of fault of net ``name``'s cells, naming the first such cell."""
    for what, where in found.items():
        more = f" (and {len(where) - 1} more cells)" if len(where) > 1 else ""
        bad(f"{name}: cell {quote(list(where[0]))} {what}{more}")


def _check_wire3d(layout: Layout, net, e: dict, cells: list, owner, used: dict,
                  bad) -> None:
    """:func:`_check_wire` of a multi-layer layout: steps along each layer's direction,
    vias between adjacent layers where a via may go, and a two-pin path's length (its
    steps inside a layer) and vias as stated."""
    name, stack = net.name, layout.stack
    _check_cells3d(layout, name, cells, owner, used, bad)
    _covers_pins(net, cells, bad)
    inside = all(0 <= c[2] < len(stack.layers) and 0 <= c[0] < layout.width
                 and 0 <= c[1] < layout.height for c in cells)
    if not inside:
        return                       # its own line says so; no edge can be judged
    if not _connected3d(stack, cells):
        bad(f"{name}: cells are not connected by steps along their layers' directions "
            "and vias")
    if len(net.pins) != 2:
        return
    if cells[:1] != [net.pins[0]] or cells[-1:] != [net.pins[1]]:
        bad(f"{name}: a two-pin path must run from pins[0] to pins[1]")
    kinds = [edge_kind(stack, a, b) for a, b in zip(cells, cells[1:])]
    if None in kinds:
        k = kinds.index(None)
        bad(f"{name}: consecutive cells are no step or via: "
            f"{why_not_edge(stack, cells[k], cells[k + 1])}")
        return
    steps, vias = kinds.count("step"), kinds.count("via")
    if e["length"] != steps:
        bad(f"{name}: length {quote(e['length'])} is not the path's {steps} steps inside "
            "a layer")
    if e["vias"] != vias:
        bad(f"{name}: vias {quote(e['vias'])} is not the path's {vias} vias")


def _check_cells3d(layout: Layout, name: str, cells, owner, used, bad) -> None:
    """:func:`_check_cells` of a multi-layer layout: cells ``(x, y, z)``."""
    found: dict[str, list] = {}
    depth = len(layout.stack.layers)
    for c in cells:
        x, y, z = c
        if not (0 <= x < layout.width and 0 <= y < layout.height and 0 <= z < depth):
            found.setdefault("is outside the grid", []).append(c)
            continue
        if layout.blocked[z, y, x]:
            found.setdefault(f"is on a blockage of layer {quote(layout.stack.names[z])}",
                             []).append(c)
        _shared(layout, c, name, owner, used, found)
    _faults(name, found, bad)


_MOVES3D = ((1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1))


def _connected3d(stack, cells) -> bool:
    if not cells:
        return False
    todo, seen = [cells[0]], {cells[0]}
    cellset = set(cells)
    while todo:
        c = todo.pop()
        for dx, dy, dz in _MOVES3D:
            n = (c[0] + dx, c[1] + dy, c[2] + dz)
            if n in cellset and n not in seen and edge_kind(stack, c, n) is not None:
                seen.add(n)
                todo.append(n)
    return len(seen) == len(cellset)


def _connected(cells) -> bool:
    if not cells:
        return False
    todo, seen = [cells[0]], {cells[0]}
    cellset = set(cells)
    while todo:
        x, y = todo.pop()
        for dx, dy in _STEPS:
            n = (x + dx, y + dy)
            if n in cellset and n not in seen:
                seen.add(n)
                todo.append(n)
    return len(seen) == len(cellset)


def _check_sequential(layout: Layout, by_name: dict, orders) -> list[str]:
    """Replay the commits in order: each two-pin length against a fresh BFS; then each
    unrouted net against the final state (see :func:`check_routes`)."""
    grid = layout.grid()
    problem = make_problem(grid, "cpu", "grid")
    pins = [p for n in layout.nets for p in n.pins]
    if pins:
        problem.set_blocked(grid.vertices(pins))
    nets = {n.name: n for n in layout.nets}
    problems = []
    for _, name in orders:
        net, cells = nets[name], by_name[name]["cells"]
        pv = grid.vertices(net.pins)
        if len(net.pins) == 2:
            problem.set_blocked(pv, False)
            lv = problem.wavefront(pv[:1]).levels()
            best = lv[net.pins[1][1], net.pins[1][0]]
            if best == UNREACHED or len(cells) - 1 != int(best):
                problems.append(f"{name}: length {len(cells) - 1} is not the shortest ({best})")
        problem.set_blocked(grid.vertices(np.array(cells)))
    for name, e in by_name.items():
        if e["routed"]:
            continue
        net = nets[name]
        pv = grid.vertices(net.pins)
        problem.set_blocked(pv, False)
        lv = problem.wavefront(pv[:1]).levels()
        problem.set_blocked(pv)
        if all(lv[y, x] != UNREACHED for x, y in net.pins):
            problems.append(f"{name}: unrouted, but its pins can be connected even with "
                            "every routed net's wire in place")
    return problems
