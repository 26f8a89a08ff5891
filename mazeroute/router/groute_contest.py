"""The global routing contests' inputs routed, and their outputs written: ISPD 2024's
``.cap`` + ``.net`` and ISPD 2007/2008's ``.gr`` as a :class:`~.groute.GRouteProblem`,
and a :class:`~.groute.GRouteResult` as each contest's route file.

The problem is built through :meth:`GRouteProblem.of_grid` on a
:class:`~mazeroute.gcells.GCellGrid` made from the file's edge capacities, so a node's
capacity follows that method's rule (the least of the node's edges along its layer) and
fractional ``.cap`` capacities are rounded down, as :func:`~.groute.edge_overflow` counts
them. The grid's boundaries are there only to place GCell centres: for a ``.cap`` they
put neighbouring centres the file's edge lengths apart (the contest's wirelength), for a
``.gr`` they are the file's tiles.

* **ISPD 2024.** Layer 0 is metal 1, which carries no wires (the contest's baseline
  router keeps it for pins): wires run on layers 1 and up, and a pin on metal 1 is
  reached by a via from its GCell. A pin lists access points ``(layer, x, y)``; the
  router takes one, deterministically: the first, in the file's order, of those on the
  pin's lowest layer (the fewest vias down to it). A layer's direction is the file's.
* **ISPD 2008.** Capacities are in wires (:meth:`GrBenchmark.tracks`), every layer
  carries wires, and a layer runs the way it has capacity; a layer with capacity both
  ways is refused (a layer here moves along one direction), one with none either way is
  taken as horizontal (its zero capacity keeps wires off it). A net's minimum width is
  not modelled: every wire takes one track.

Route files (:func:`write_route_2024`, :func:`write_route_2008`) hold each routed net's
segments: its paths cut into straight wires along one layer, and a via a pair of
adjacent layers, with the via stacks down to pins below the lowest routing layer.
ISPD 2024's: the net's name, ``(``, a line ``xl yl zl xh yh zh`` a segment in GCells
(the lower end first), ``)``. ISPD 2008's: ``name id count``, a line
``(x1,y1,z1)-(x2,y2,z2)`` a segment in the file's length units at GCell centres, layers
from 1, then ``!``. :func:`read_route_2024` and :func:`read_route_2008` read them back.

Examples
--------
>>> import numpy as np
>>> from mazeroute.readers.contest import CapGrid, ContestNets
>>> h = np.array([[[0, 0, 0]], [[0, 0, 0]]], np.float32)
>>> cap = CapGrid(3, 1, 1.0, 1.0, np.ones(2), np.array([5, 5]), np.zeros(0, np.int64),
...               ("M1", "M2"), np.array([0, 0], np.int8), np.zeros(2), h + 2)
>>> nets = ContestNets(("n",), np.array([[0, 0, 0], [1, 2, 0]], np.int32),
...                    np.array([0, 1, 2]), np.array([0, 2]))
>>> problem = cap_problem(cap, nets)
>>> problem.pins, problem.lowest
({'n': [(0, 0, 0), (2, 0, 1)]}, 1)
>>> from mazeroute.router.groute import global_route
>>> res = global_route(problem)
>>> route_segments(res.routes["n"])
[(0, 0, 1, 2, 0, 1), (0, 0, 0, 0, 0, 1)]
"""

from __future__ import annotations

import os
import re

import numpy as np

from ..errors import InputError
from ..gcells import GCellGrid
from ..io import atomic_path
from ..readers.contest import HORIZONTAL, NO_DIRECTION, VERTICAL, CapGrid, ContestNets, GrBenchmark
from ..readers.lefdef import RoutingLayer
from ..readers.text import excerpt, line_error, read_text
from .groute import GRouteProblem, GRouteResult, NetTree, flat_paths

__all__ = ["cap_problem", "cap_grid", "gr_problem", "access_point", "access_points",
           "centred_bounds", "route_segments", "segment_table", "write_route_2024",
           "write_route_2008", "read_route_2024", "read_route_2008"]

Segment = tuple[int, int, int, int, int, int]
"""``(x1, y1, z1, x2, y2, z2)`` in GCells, layers from 0: a wire or a via."""


def centred_bounds(lengths: np.ndarray) -> np.ndarray:
    """GCell boundaries whose centres lie ``lengths`` apart (``len(lengths) + 2`` of
    them): the only use the contests' grids make of a boundary is to place a centre.

    >>> b = centred_bounds(np.array([10, 12, 8]))
    >>> np.diff((b[:-1] + b[1:]) / 2).tolist()
    [10.0, 12.0, 8.0]
    """
    b = np.zeros(len(lengths) + 2, np.int64)
    for i, n in enumerate(np.asarray(lengths, np.int64).tolist()):
        b[i + 2] = b[i] + 2 * n          # centre i + 1 minus centre i is half of it
    return b


def _grid(directions: list[str], h_cap: np.ndarray, v_cap: np.ndarray, xs: np.ndarray,
          ys: np.ndarray, lowest: int) -> GCellGrid:
    """A :class:`GCellGrid` of the contest's arrays (layers named by their index), wires
    on layers ``lowest`` and up."""
    layers = tuple(RoutingLayer(f"layer{z}", z + 1, d, 1, 1, 1, 0)
                   for z, d in enumerate(directions))
    total = tuple(int((h_cap[z] if d == "HORIZONTAL" else v_cap[z]).sum())
                  for z, d in enumerate(directions))
    return GCellGrid(np.asarray(xs, np.int64), np.asarray(ys, np.int64), 1, layers,
                     lowest + 1, len(layers), h_cap, v_cap, total, total)


def access_point(points: np.ndarray) -> tuple[int, int, int]:
    """The access point a pin is routed to, as a node ``(x, y, z)``: the first, in the
    file's order, of its points ``(layer, x, y)`` on its lowest layer.

    >>> access_point(np.array([[2, 5, 5], [1, 3, 4], [1, 0, 0]]))
    (3, 4, 1)
    """
    pts = np.asarray(points).reshape(-1, 3)
    k = int(np.argmin(pts[:, 0]))                  # argmin: the first of the lowest
    layer, x, y = pts[k].tolist()
    return int(x), int(y), int(layer)


def _net_pins(nets: ContestNets, pins_of) -> dict[str, list[tuple[int, int, int]]]:
    out = {}
    for n, name in enumerate(nets.names):
        out[name] = list(dict.fromkeys(pins_of(n)))     # a node twice is one pin
    return out


def cap_problem(cap: CapGrid, nets: ContestNets) -> GRouteProblem:
    """The problem of an ISPD 2024 design (the module's notes say how it is read).

    Parameters
    ----------
    cap : CapGrid
        The ``.cap`` file (:func:`~mazeroute.readers.contest.read_cap`).
    nets : ContestNets
        Its ``.net`` file (:func:`~mazeroute.readers.contest.read_net`).

    Returns
    -------
    GRouteProblem
        Every net with its pins' chosen access points, in the file's order; wires on
        layers 1 and up (0 too on a one-layer grid); a via weighed by the file's unit
        costs, in steps of the mean edge length.
    """
    nodes = access_points(nets).tolist()
    starts = nets.net_start.tolist()
    pins = _net_pins(nets, lambda n: map(tuple, nodes[starts[n]:starts[n + 1]]))
    problem = GRouteProblem.of_grid(cap_grid(cap), pins)
    # the contest's own price of a via, in steps of the grid's mean edge length
    lengths = np.concatenate([cap.edge_lengths_x, cap.edge_lengths_y]).astype(np.float64)
    step = cap.wire_cost * (lengths.mean() if len(lengths) else 0.0)
    problem.via_weight = cap.via_cost / step if step > 0 else None
    return problem


def access_points(nets: ContestNets) -> np.ndarray:
    """:func:`access_point` of every pin at once, as rows ``(x, y, z)``.

    >>> nets = ContestNets(("a",), np.array([[2, 5, 5], [1, 3, 4], [1, 0, 0], [0, 1, 1]]),
    ...                    np.array([0, 3, 4]), np.array([0, 2]))
    >>> access_points(nets).tolist()
    [[3, 4, 1], [1, 1, 0]]
    """
    pts = np.asarray(nets.points, np.int64).reshape(-1, 3)
    pin = np.repeat(np.arange(nets.num_pins), np.diff(nets.pin_start))
    order = np.lexsort((np.arange(len(pts)), pts[:, 0], pin))
    first = order[np.r_[True, pin[order][1:] != pin[order][:-1]]] if len(order) else order
    return pts[first][:, [1, 2, 0]]


def cap_grid(cap: CapGrid) -> GCellGrid:
    """An ISPD 2024 design's grid as a :class:`GCellGrid`: the ``.cap``'s edge capacities
    (:meth:`CapGrid.edge_capacity`), GCell centres its edge lengths apart, wires on
    layers 1 and up (0 too on a one-layer grid)."""
    h, v = cap.edge_capacity()
    directions = ["HORIZONTAL" if d == HORIZONTAL else "VERTICAL"
                  for d in cap.directions.tolist()]
    return _grid(directions, h, v, centred_bounds(cap.edge_lengths_x),
                 centred_bounds(cap.edge_lengths_y), 1 if cap.layers > 1 else 0)


def gr_problem(gr: GrBenchmark) -> GRouteProblem:
    """The problem of an ISPD 2007/2008 benchmark (the module's notes say how).

    Raises
    ------
    InputError
        A layer with capacity both ways (the field names it).
    """
    directions = []
    for z, d in enumerate(gr.directions.tolist()):
        if d == VERTICAL:
            directions.append("VERTICAL")
        elif d == NO_DIRECTION and gr.horizontal[z] > 0:
            raise InputError(f"layer {z + 1} has capacity both ways ({gr.vertical[z]} "
                             f"vertical, {gr.horizontal[z]} horizontal); the router moves "
                             "a layer along one direction", field="horizontal capacity")
        else:
            directions.append("HORIZONTAL")
    h, v = gr.tracks()
    (x0, y0), (tw, th) = gr.origin, gr.tile
    grid = _grid(directions, h, v, x0 + tw * np.arange(gr.nx + 1),
                 y0 + th * np.arange(gr.ny + 1), 0)

    def pins_of(n):
        return [(int(x), int(y), int(z)) for p in gr.nets.pins(n) for z, x, y in p.tolist()]
    return GRouteProblem.of_grid(grid, _net_pins(gr.nets, pins_of))


# -- segments ------------------------------------------------------------------------------
def segment_table(trees) -> tuple[np.ndarray, np.ndarray]:
    """Every tree's segments in one ``(S, 6)`` array, tree after tree, and where each
    tree's begin (``N + 1`` offsets): its paths' straight runs along one layer and its
    vias one layer pair each, then the via stacks from its pins below the lowest routing
    layer; each segment's ends in order, the lower first; none for a net not routed."""
    trees = list(trees)
    cells, path, owner = flat_paths(trees, stacks=True)
    if not len(cells):
        return np.zeros((0, 6), np.int64), np.zeros(len(trees) + 1, np.int64)
    steps = np.nonzero(path[1:] == path[:-1])[0]          # step i joins cells i, i + 1
    axis = np.argmax(np.abs(cells[steps + 1] - cells[steps]), axis=1)
    goes_on = np.zeros(len(steps), bool)
    goes_on[:-1] = (steps[1:] == steps[:-1] + 1) & (axis[1:] == axis[:-1])
    end = (axis == 2) | ~goes_on
    first = np.ones(len(steps), bool)
    first[1:] = end[:-1]
    p0, p1 = cells[steps[first]], cells[steps[end] + 1]
    swap = ((p1[:, 0] < p0[:, 0]) | ((p1[:, 0] == p0[:, 0]) & (
        (p1[:, 1] < p0[:, 1]) | ((p1[:, 1] == p0[:, 1]) & (p1[:, 2] < p0[:, 2])))))
    segs = np.concatenate([np.where(swap[:, None], p1, p0), np.where(swap[:, None], p0, p1)],
                          axis=1)
    net = owner[path[steps[first]]]
    return segs, np.searchsorted(net, np.arange(len(trees) + 1))


def segment_arrays(trees) -> list[np.ndarray]:
    """Each tree's segments as a ``(k, 6)`` array (:func:`segment_table`, split)."""
    trees = list(trees)
    segs, cut = segment_table(trees)
    return [segs[cut[k]:cut[k + 1]] for k in range(len(trees))]


def route_segments(tree: NetTree) -> list[Segment]:
    """A routed tree's segments (:func:`segment_arrays`) as tuples."""
    return [tuple(s) for s in segment_arrays([tree])[0].tolist()]


#: One segment's line of a route file.
_ROW = "%d %d %d %d %d %d\n"


def write_route_2024(path: str | os.PathLike, result: GRouteResult,
                     problem: GRouteProblem, table: tuple | None = None) -> int:
    """Write ISPD 2024's route file of ``result`` (every routed net, in order), atomically;
    the number of nets written. ``table`` is the routes' :func:`segment_table`, when
    already computed."""
    trees = list(result.routes.values())
    segs, cut = segment_table(trees) if table is None else table
    cut = cut.tolist()
    count = 0
    with atomic_path(path) as tmp, open(tmp, "w", encoding="utf-8") as fh:
        for k, (name, tree) in enumerate(zip(result.routes, trees)):
            if tree.routed:
                rows = segs[cut[k]:cut[k + 1]]
                # one format a net: a line a segment costs a join of six strs otherwise
                fh.write(f"{name}\n(\n" + _ROW * len(rows) % tuple(rows.ravel().tolist())
                         + ")\n")
                count += 1
    return count


def _routed(result: GRouteResult):
    names = [n for n, t in result.routes.items() if t.routed]
    for name, segs in zip(names, segment_arrays(result.routes[n] for n in names)):
        yield name, segs.tolist()


def write_route_2008(path: str | os.PathLike, result: GRouteResult, problem: GRouteProblem,
                     gr: GrBenchmark) -> int:
    """Write ISPD 2008's route file of ``result`` for ``gr`` (its nets' ids, its units),
    atomically; the number of nets written."""
    ids = dict(zip(gr.nets.names, gr.net_ids.tolist()))
    (x0, y0), (tw, th) = gr.origin, gr.tile

    def at(x, y, z):
        return f"({x0 + x * tw + tw // 2},{y0 + y * th + th // 2},{z + 1})"
    count = 0
    with atomic_path(path) as tmp, open(tmp, "w", encoding="utf-8") as fh:
        for name, segs in _routed(result):
            fh.write(f"{name} {ids[name]} {len(segs)}\n")
            fh.writelines(f"{at(*s[:3])}-{at(*s[3:])}\n" for s in segs)
            fh.write("!\n")
            count += 1
    return count


# -- reading them back ---------------------------------------------------------------------
_ROW_2024 = re.compile(r"\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*", re.ASCII)
_ROW_2008 = re.compile(r"\s*\((\d+),(\d+),(\d+)\)-\((\d+),(\d+),(\d+)\)\s*", re.ASCII)
_HEAD_2008 = re.compile(r"\s*(\S+)\s+(\d+)\s+(\d+)\s*", re.ASCII)


def read_route_2024(path: str | os.PathLike) -> dict[str, list[Segment]]:
    """ISPD 2024's route file: each net's segments in GCells, as written.

    Raises
    ------
    InputError
        A line out of place, a bad segment, a net twice or a file cut short, naming the
        line.
    """
    out: dict[str, list[Segment]] = {}
    name, segs, opened = None, [], False
    lines = read_text(path).splitlines()
    for i, raw in enumerate(lines, 1):
        text = raw.strip()
        if not text:
            continue
        if name is None:
            if text in out:
                raise line_error(f"net {excerpt(text)} is routed twice", path, i)
            name, segs, opened = text, [], False
        elif not opened:
            if text != "(":
                raise line_error(f"{excerpt(text)}: expected '(' after net "
                                 f"{excerpt(name)}", path, i)
            opened = True
        elif text == ")":
            out[name], name = segs, None
        else:
            m = _ROW_2024.fullmatch(text)
            if not m:
                raise line_error(f"net {excerpt(name)}: {excerpt(text)} is not a segment "
                                 "'xl yl zl xh yh zh'", path, i)
            segs.append(tuple(map(int, m.groups())))
    if name is not None:
        raise line_error(f"the file ends inside net {excerpt(name)}", path, len(lines) + 1)
    return out


def read_route_2008(path: str | os.PathLike) -> dict[str, tuple[int, list[Segment]]]:
    """ISPD 2008's route file: each net's id and segments, in the file's units and
    layers (from 1), as written.

    Raises
    ------
    InputError
        A bad header or segment, a count that the segments contradict, a net twice or a
        file cut short, naming the line.
    """
    out: dict[str, tuple[int, list[Segment]]] = {}
    head = None
    lines = read_text(path).splitlines()
    for i, raw in enumerate(lines, 1):
        text = raw.strip()
        if not text:
            continue
        if head is None:
            m = _HEAD_2008.fullmatch(text)
            if not m or m.group(1) in out:
                raise line_error(f"{excerpt(text)}: expected a new net's 'name id count'",
                                 path, i)
            head, segs = (m.group(1), int(m.group(2)), int(m.group(3))), []
        elif text == "!":
            if len(segs) != head[2]:
                raise line_error(f"net {excerpt(head[0])}: {len(segs)} segments, its "
                                 f"header counts {head[2]}", path, i)
            out[head[0]], head = (head[1], segs), None
        else:
            m = _ROW_2008.fullmatch(text)
            if not m:
                raise line_error(f"net {excerpt(head[0])}: {excerpt(text)} is not a "
                                 "segment '(x1,y1,z1)-(x2,y2,z2)'", path, i)
            segs.append(tuple(map(int, m.groups())))
    if head is not None:
        raise line_error(f"the file ends inside net {excerpt(head[0])}", path,
                         len(lines) + 1)
    return out
