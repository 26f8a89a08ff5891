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
from .layout import Layout
from .router import ROUTES_FORMAT

_STEPS = {(0, 1), (1, 0), (0, -1), (-1, 0)}


def check_routes(layout: Layout, routes: dict, *, sequential: bool = False) -> list[str]:
    """Every broken promise of ``routes`` about ``layout``, one line each (empty: valid).

    With ``sequential=True`` each two-pin net must also be a shortest path given the
    layout's blockages, the wires committed before it and every other net's pins.
    """
    problems: list[str] = []
    bad = problems.append
    if routes.get("format") != ROUTES_FORMAT:
        bad(f"format is {routes.get('format')!r}, not {ROUTES_FORMAT!r}")
    if (routes.get("width"), routes.get("height")) != (layout.width, layout.height):
        bad("width/height differ from the layout's")
    entries = routes.get("nets")
    if not isinstance(entries, list):
        return [*problems, "nets is not a list"]
    by_name = {}
    for e in entries:
        if e.get("name") in by_name:
            bad(f"net {e.get('name')!r} appears twice")
        by_name[e.get("name")] = e
    nets = {n.name: n for n in layout.nets}
    for name in set(nets) ^ set(by_name):
        bad(f"net {name!r} is in only one of layout and routes")
    owner = layout.pin_owner()
    used: dict[tuple[int, int], str] = {}
    orders = []
    for name, net in nets.items():
        e = by_name.get(name)
        if e is None:
            continue
        cells = [tuple(c) for c in e.get("cells", [])]
        if not e.get("routed"):
            if cells or e.get("order") is not None:
                bad(f"{name}: unrouted, but has cells or an order")
            continue
        orders.append((e.get("order"), name))
        for c in cells:
            x, y = c
            if not (0 <= x < layout.width and 0 <= y < layout.height):
                bad(f"{name}: cell {list(c)} is outside the grid")
                continue
            if layout.blocked[y, x]:
                bad(f"{name}: cell {list(c)} is on a blockage")
            if c in owner and layout.nets[owner[c]].name != name:
                bad(f"{name}: cell {list(c)} is a pin of net {layout.nets[owner[c]].name!r}")
            if c in used and used[c] != name:
                bad(f"{name}: cell {list(c)} also belongs to net {used[c]!r}")
            used[c] = name
        if len(set(cells)) != len(cells):
            bad(f"{name}: a cell is listed twice")
        missing = [list(p) for p in net.pins if p not in set(cells)]
        if missing:
            bad(f"{name}: pins {missing} are not on the wire")
        if not _connected(cells):
            bad(f"{name}: cells are not 4-connected")
        if len(net.pins) == 2:
            if cells[:1] != [net.pins[0]] or cells[-1:] != [net.pins[1]]:
                bad(f"{name}: a two-pin path must run from pins[0] to pins[1]")
            if any((b[0] - a[0], b[1] - a[1]) not in _STEPS for a, b in zip(cells, cells[1:])):
                bad(f"{name}: consecutive cells are not neighbours")
            if e.get("length") != len(cells) - 1:
                bad(f"{name}: length {e.get('length')} is not len(cells) - 1")
    if sorted(o for o, _ in orders) != list(range(len(orders))):
        bad("orders of routed nets are not 0, 1, 2, ...")
    if sequential and not problems:
        problems += _check_shortest(layout, by_name, sorted(orders))
    return problems


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
