"""Checks that a routes file keeps every promise of FORMATS.md about its layout.

Used by the tests on every engine's output and by ``mazeroute check --routes``.

Examples
--------
>>> from mazeroute.layout import parse_layout
>>> from mazeroute.router import route
>>> lay = parse_layout({"width": 4, "height": 4, "nets": [
...     {"name": "a", "pins": [[0, 0], [3, 3]]}, {"name": "b", "pins": [[3, 0], [0, 3]]}]})
>>> check_routes(lay, route(lay, backend="cpu").to_json(), sequential=True)
[]
"""

from __future__ import annotations

import numpy as np

from .engines import UNREACHED, make_problem
from .errors import quote
from .layout import Layout
from .router import ROUTES_FORMAT

_STEPS = {(0, 1), (1, 0), (0, -1), (-1, 0)}


MODES = ("sequential", "negotiate")


def check_routes(layout: Layout, routes: object, *, sequential: bool = False) -> list[str]:
    """Every broken promise of ``routes`` about ``layout``, one line each (empty: valid).

    Never raises: a malformed routes file gives one line per malformed entry. With
    ``sequential=True`` each two-pin net must also be a shortest path given the layout's
    blockages, the wires committed before it and every other net's pins, and a net may
    be unrouted only if no path existed for it at its turn.
    """
    if not isinstance(routes, dict):
        return [f"a routes file is a JSON object, got {quote(routes)}"]
    problems: list[str] = []
    bad = problems.append
    if routes.get("format") != ROUTES_FORMAT:
        bad(f"format is {quote(routes.get('format'))}, not {ROUTES_FORMAT!r}")
    if (routes.get("width"), routes.get("height")) != (layout.width, layout.height):
        bad("width/height differ from the layout's")
    mode = routes.get("mode", "sequential")
    if mode not in MODES:
        bad(f"mode is {quote(mode)}, not one of {', '.join(MODES)}")
    elif sequential and mode != "sequential":
        bad(f"mode is {mode!r}: the sequential promises (shortest paths, unrouted only "
            "when walled off) do not apply")
    entries = routes.get("nets")
    if not isinstance(entries, list):
        return [*problems, "nets is not a list"]
    by_name: dict[str, dict] = {}
    for k, e in enumerate(entries):
        entry = _entry(e, k, layout, bad)
        if entry is None:
            continue
        if entry["name"] in by_name:
            bad(f"net {quote(entry['name'])} appears twice")
        by_name[entry["name"]] = entry
    nets = {n.name: n for n in layout.nets}
    for name in sorted(set(nets) - set(by_name)):
        bad(f"net {quote(name)} of the layout has no entry")
    for name in sorted(set(by_name) - set(nets)):
        bad(f"net {quote(name)} is not in the layout")
    owner = layout.pin_owner()
    used: dict[tuple[int, int], str] = {}
    orders = []
    for name, net in nets.items():
        e = by_name.get(name)
        if e is None:
            continue
        cells = e["cells"]
        shown = quote(name)
        if not e["routed"]:
            if cells or e["order"] is not None:
                bad(f"{shown}: unrouted, but has cells or an order")
            continue
        orders.append((e["order"], name))
        for c in cells:
            x, y = c
            if not (0 <= x < layout.width and 0 <= y < layout.height):
                bad(f"{shown}: cell {list(c)} is outside the grid")
                continue
            if layout.blocked[y, x]:
                bad(f"{shown}: cell {list(c)} is on a blockage")
            if c in owner and layout.nets[owner[c]].name != name:
                bad(f"{shown}: cell {list(c)} is a pin of net "
                    f"{quote(layout.nets[owner[c]].name)}")
            if c in used and used[c] != name:
                bad(f"{shown}: cell {list(c)} also belongs to net {quote(used[c])}")
            used[c] = name
        if len(set(cells)) != len(cells):
            bad(f"{shown}: a cell is listed twice")
        missing = [list(p) for p in net.pins if p not in set(cells)]
        if missing:
            bad(f"{shown}: pins {quote(missing)} are not on the wire")
        if not _connected(cells):
            bad(f"{shown}: cells are not 4-connected")
        if len(net.pins) == 2:
            if cells[:1] != [net.pins[0]] or cells[-1:] != [net.pins[1]]:
                bad(f"{shown}: a two-pin path must run from pins[0] to pins[1]")
            if any((b[0] - a[0], b[1] - a[1]) not in _STEPS for a, b in zip(cells, cells[1:])):
                bad(f"{shown}: consecutive cells are not neighbours")
            if e["length"] != len(cells) - 1:
                bad(f"{shown}: length {quote(e['length'])} is not len(cells) - 1")
    if any(o is None for o, _ in orders) or \
            sorted(o for o, _ in orders) != list(range(len(orders))):
        bad("orders of routed nets are not 0, 1, 2, ...")
    if sequential and not problems:
        problems += _check_shortest(layout, by_name, sorted(orders))
        unrouted = [n for n in layout.nets if not by_name[n.name]["routed"]]
        problems += _check_unrouted(layout, by_name, unrouted)
    return problems


def _entry(e: object, k: int, layout: Layout, bad) -> dict | None:
    """Entry ``k`` of ``nets`` with its fields checked for type, or None (reported)."""
    where = f"nets[{k}]"
    if not isinstance(e, dict):
        bad(f"{where}: is not an object, got {quote(e)}")
        return None
    name = e.get("name")
    if not isinstance(name, str):
        bad(f"{where}: name is not a string, got {quote(name)}")
        return None
    where = f"{where} {quote(name)}"
    routed, order, length = e.get("routed"), e.get("order"), e.get("length")
    cells = e.get("cells", [])
    ok = True
    if not isinstance(routed, bool):
        bad(f"{where}: routed is not true or false, got {quote(routed)}")
        ok = False
    if order is not None and not _is_int(order):
        bad(f"{where}: order is not an integer or null, got {quote(order)}")
        ok = False
    if length is not None and not _is_int(length):
        bad(f"{where}: length is not an integer, got {quote(length)}")
        ok = False
    if not isinstance(cells, list):
        bad(f"{where}: cells is not a list, got {quote(cells)}")
        return None
    for j, c in enumerate(cells):
        if not (isinstance(c, list) and len(c) == 2 and all(_is_int(v) for v in c)):
            bad(f"{where}: cells[{j}] is not a cell [x, y] of two integers, got {quote(c)}")
            return None
    if not ok:
        return None
    return {"name": name, "routed": routed, "order": order, "length": length,
            "cells": [tuple(c) for c in cells]}


def _is_int(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


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


def _check_shortest(layout: Layout, by_name: dict, orders) -> list[str]:
    """Replay the commits in order and compare each two-pin length with a fresh BFS."""
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
    return problems


def _check_unrouted(layout: Layout, by_name: dict, unrouted) -> list[str]:
    """A net left unrouted in sequential mode must have had no path at its turn.

    Its turn is not recorded, but every state it could have met blocks no more than the
    final one (every routed wire in place): a net connectable even then was connectable
    at its turn, whichever it was.
    """
    if not unrouted:
        return []
    free = ~layout.blocked.copy()
    for n in layout.nets:
        for x, y in n.pins:
            free[y, x] = False
        e = by_name[n.name]
        if e["routed"]:
            for x, y in e["cells"]:
                free[y, x] = False
    grid = layout.grid()
    problem = make_problem(grid, "cpu", "grid")
    problem.set_blocked(grid.vertices(np.argwhere(~free)[:, ::-1]))
    problems = []
    for net in unrouted:
        pv = grid.vertices(net.pins)
        problem.set_blocked(pv, False)
        levels = problem.wavefront(pv[:1]).levels()
        problem.set_blocked(pv)
        if all(levels[y, x] != UNREACHED for x, y in net.pins):
            problems.append(f"{quote(net.name)}: unrouted, but a path exists even with every "
                            "routed wire in place")
    return problems
