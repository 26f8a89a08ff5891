"""Route guides of a placed design judged: connectivity, wirelength, vias, congestion and
the ISPD 2024 contest's cost.

Each guide rectangle is taken as the block of GCells it covers on its layer.

* **Connected.** A net's guides are joined when two on one layer overlap or abut (share
  a GCell side), or two on adjacent routing layers overlap in x-y (a via joins them);
  they must form one piece. Each pin must be covered: some GCell of one of its shapes
  has a guide on the shape's layer, or on a layer above it (a via stack down to the pin,
  as OpenROAD's detailed router reaches pins on the first metal).
* **Wirelength**, as OpenROAD's ``grt`` reports it (``GlobalRouter::
  computeNetWirelength``): a guide that spans ``k > 1`` GCells along one axis is one
  routed segment, counted as its centre-to-centre length plus one GCell, ``k * tile``.
  Single-GCell guides (via landings, pin access) add nothing; a guide spanning several
  GCells along both axes (a patch some routers add) is no segment and adds nothing.
* **Vias.** A net has a via wherever its guides on two adjacent layers cover the same
  GCell, counted once per GCell and layer pair.
* **Demand.** An edge of a layer along its preferred direction, between two neighbouring
  GCells that one of a net's guides spans, uses one track; a net uses an edge once
  however many of its guides span it. Overflow is demand above the grid's (derated)
  capacity, reported per layer as OpenROAD's final congestion report does.
* **The ISPD 2024 contest's cost**, as the contest's evaluator computes it (its page,
  github.com/liangrj2014/ISPD24_contest, links the evaluation scripts; the repository
  github.com/cuhk-eda/InstantGR ships that evaluator as ``run/evaluator.cpp``)::

      cost = UnitLengthWireCost * WL + UnitViaCost * vias
             + sum over layers l of OFWeight[l] * sum over edges e of f(d_e, c_e)

  where WL is the summed centre-to-centre length of the edges wires use (DBU), ``d_e``
  is the edge's demand in tracks, its wires plus half a track on each side of a via
  that lands on the layer where the net has no wire (a whole track on the one edge at
  the grid's border), ``c_e`` its capacity, and ``f(d, c) = exp((d - c) / 2)`` when
  ``c > 0``, ``exp(1.5 d)`` when ``c = 0 < d``, else 0. Layers below the lowest routing
  layer are not counted (the contest never routes on the first metal). What is left out
  is listed in :attr:`ContestCost.left_out`: the weights come from the contest's
  ``.cap`` file, which LEF/DEF does not carry (:class:`ContestWeights` takes them; 1 by
  default); the contest's capacities are its own extraction, here the grid's; the
  GCells of a layer's last column (horizontal) or row (vertical) have no edge here,
  where the contest adds ``exp(-c / 2)`` for each, a constant; and the runtime factor of
  its scaled score.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

import numpy as np

from .engines.base import block_cells, distinct
from .errors import InputError, quote
from .gcells import GCellGrid, cell_of
from .guide_check import box_cells, covered, one_piece
from .readers.lefdef import Design, Net

Box = tuple[int, int, int, int, int]
"""``(level, x0, y0, x1, y1)``: a guide as GCells, inclusive, on a layer (1 the lowest)."""

LEFT_OUT = (
    "unit weights from the contest's .cap file (not in LEF/DEF): the given ones are used",
    "capacities are this grid's, not the contest's own extraction",
    "the edgeless last GCell of each track line, exp(-capacity/2) each in the contest",
    "the runtime factor of the contest's scaled score",
)


@dataclass(frozen=True)
class ContestWeights:
    """The ISPD 2024 contest's unit costs (a benchmark's ``.cap`` file gives them).

    Parameters
    ----------
    wire : float
        ``UnitLengthWireCost``, per DBU of wire.
    via : float
        ``UnitViaCost``, per via.
    overflow : float or tuple of float
        ``OFWeight``: one for every layer, or one per layer from the lowest.

    Examples
    --------
    >>> ContestWeights(overflow=(0, 5, 5)).of_layer(2)
    5
    """
    wire: float = 1.0
    via: float = 1.0
    overflow: float | tuple[float, ...] = 1.0

    def of_layer(self, level: int) -> float:
        """The overflow weight of layer ``level`` (1 the lowest)."""
        if isinstance(self.overflow, tuple):
            return self.overflow[min(level, len(self.overflow)) - 1]
        return self.overflow


@dataclass(frozen=True)
class ContestCost:
    """The contest's cost and its three terms; ``left_out`` says what is not modelled."""
    wire: float
    via: float
    overflow: float
    left_out: tuple[str, ...] = LEFT_OUT

    @property
    def total(self) -> float:
        """The sum of the three terms."""
        return self.wire + self.via + self.overflow


@dataclass(frozen=True)
class NetCheck:
    """One net: whether its guides connect and cover its pins (``reason`` says why not),
    its wirelength (DBU, OpenROAD's measure) and vias; ``local`` when every guide lies
    in one GCell."""
    name: str
    connected: bool
    reason: str
    wirelength: int
    vias: int
    local: bool


@dataclass(frozen=True)
class LayerUsage:
    """One layer's row of the congestion report: capacity and demand in tracks, the
    largest overflow of a horizontal and of a vertical edge, and the total overflow."""
    name: str
    resource: int
    demand: int
    max_h: int
    max_v: int
    overflow: int

    @property
    def usage(self) -> float:
        """Demand as a percentage of the resource (0 without any)."""
        return 100.0 * self.demand / self.resource if self.resource else 0.0


@dataclass(frozen=True)
class Evaluation:
    """What :func:`evaluate` found: each checked net, each layer, and the totals.

    ``wirelength_um`` and ``vias`` are summed over every net with guides, as OpenROAD
    measures them; ``connected`` of ``routable`` nets (those with two pins or more) pass.
    """
    nets: tuple[NetCheck, ...]
    layers: tuple[LayerUsage, ...]
    wirelength_um: float
    vias: int
    connected: int
    routable: int
    cost: ContestCost

    @property
    def all_connected(self) -> bool:
        """Whether every routable net's guides connect and cover its pins."""
        return self.connected == self.routable

    @property
    def failures(self) -> list[NetCheck]:
        """The nets that fail, in the design's order."""
        return [n for n in self.nets if not n.connected]

    @property
    def tree_vias(self) -> int:
        """The vias less those of the nets inside one GCell (``local``): a global
        router's trees have none there, while the guides carry the via stack down to the
        pins, so this is the count to set beside CUGR's log."""
        return self.vias - sum(n.vias for n in self.nets if n.local)


# -- guides as GCell boxes ---------------------------------------------------------------
def _span(lo, hi, bounds: np.ndarray) -> tuple:
    """The first and last GCells that ``[lo, hi]`` covers (numbers or arrays); a side
    lying on a GCell border does not reach into the next GCell."""
    return cell_of(bounds, lo), cell_of(bounds, np.maximum(lo, hi - 1))


def guide_boxes(design: Design, grid: GCellGrid,
                guides: dict[str, list[tuple[int, int, int, int, str]]]
                ) -> dict[str, list[Box]]:
    """Each net's guides as blocks of GCells on layer levels.

    Raises
    ------
    InputError
        A net the design lacks, a layer that is not a routing layer, or a rectangle off
        the die.
    """
    level = {lay.name: lay.level for lay in design.layers}
    names = {n.name for n in design.nets}
    die = design.die
    nets = list(guides)
    sizes = np.array([len(guides[n]) for n in nets], np.int64)
    flat = [r for n in nets for r in guides[n]]
    xy = np.array([r[:4] for r in flat], np.int64).reshape(-1, 4)
    lev = np.array([level.get(r[4], 0) for r in flat], np.int64)
    # the first wrong thing in the file's order: a net's name comes before its rectangles
    bad = (lev == 0) | (xy[:, 0] < die[0]) | (xy[:, 1] < die[1]) | (xy[:, 2] > die[2]) \
        | (xy[:, 3] > die[3])
    first = np.cumsum(sizes) - sizes
    stranger = [k for k, n in enumerate(nets) if n not in names]
    at = int(np.argmax(bad)) if bad.any() else len(flat)
    if stranger and first[stranger[0]] <= at:
        raise InputError(f"not a net of design {design.name}",
                         field=f"net {nets[stranger[0]]}")
    if at < len(flat):
        net = nets[int(np.searchsorted(first, at, side="right")) - 1]
        x0, y0, x1, y1, layer = flat[at]
        if layer not in level:
            raise InputError(f"{quote(layer)} is not a routing layer (the layers: "
                             f"{', '.join(level)})", field=f"net {net}")
        raise InputError(f"rectangle {(x0, y0, x1, y1)} lies off the die {die}",
                         field=f"net {net}")
    cx0, cx1 = _span(xy[:, 0], xy[:, 2], grid.xs)
    cy0, cy1 = _span(xy[:, 1], xy[:, 3], grid.ys)
    rows = np.stack([lev, cx0, cy0, cx1, cy1], 1).tolist()
    out: dict[str, list[Box]] = {}
    for n, k, m in zip(nets, first.tolist(), sizes.tolist()):
        out[n] = [tuple(r) for r in rows[k:k + m]]
    return out


# -- one net -------------------------------------------------------------------------------
def _joined(a: Box, b: Box) -> bool:
    """Whether two boxes join: on one layer overlapping or sharing a GCell side, on
    adjacent layers overlapping."""
    ox = a[1] <= b[3] and b[1] <= a[3]
    oy = a[2] <= b[4] and b[2] <= a[4]
    if a[0] == b[0]:
        tx = a[1] <= b[3] + 1 and b[1] <= a[3] + 1
        ty = a[2] <= b[4] + 1 and b[2] <= a[4] + 1
        return (ox and ty) or (oy and tx)
    return abs(a[0] - b[0]) == 1 and ox and oy


def pieces(boxes: list[Box]) -> list[list[int]]:
    """The connected pieces of ``boxes`` (lists of indices), largest first.

    >>> pieces([(2, 0, 0, 3, 0), (3, 3, 0, 3, 4), (2, 5, 5, 5, 5)])
    [[0, 1], [2]]
    """
    parent = list(range(len(boxes)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i
    by_level: dict[int, list[int]] = defaultdict(list)
    for i, b in enumerate(boxes):
        by_level[b[0]].append(i)
    for lev, idx in by_level.items():
        for k, i in enumerate(idx):
            for j in idx[k + 1:] + by_level.get(lev + 1, []):
                if _joined(boxes[i], boxes[j]):
                    parent[root(i)] = root(j)
    groups: dict[int, list[int]] = defaultdict(list)
    for i in range(len(boxes)):
        groups[root(i)].append(i)
    return sorted(groups.values(), key=lambda g: (-len(g), g[0]))


def _pin_cells(design: Design, grid: GCellGrid, net: Net):
    """Each pin of ``net`` as ``(label, [(level, x0, y0, x1, y1), ...])``, the GCells of
    its shapes on routing layers."""
    level = {lay.name: lay.level for lay in design.layers}
    out = []
    for comp, pin, shapes in design.pin_shapes(net):
        cells = []
        for lay, r in shapes:
            if lay in level:
                cx, cy = _span(r[0], r[2], grid.xs), _span(r[1], r[3], grid.ys)
                cells.append((level[lay], int(cx[0]), int(cy[0]), int(cx[1]), int(cy[1])))
        out.append((pin if comp == "PIN" else f"{comp}/{pin}", cells))
    return out


def _covers(boxes: list[Box], shape: Box) -> bool:
    """Whether a box on the shape's layer or above overlaps one of its GCells."""
    return any(b[0] >= shape[0] and b[1] <= shape[3] and shape[1] <= b[3]
               and b[2] <= shape[4] and shape[2] <= b[4] for b in boxes)


def _box_table(design: Design, boxes: dict[str, list[Box]]) -> tuple[np.ndarray, np.ndarray]:
    """Every net's boxes in one array, net after net in the design's order: each box's
    net (its index in ``design.nets``) and the boxes ``(k, 5)``."""
    rows = [(k, *b) for k, net in enumerate(design.nets) for b in boxes.get(net.name, ())]
    b = np.array(rows, np.int64).reshape(-1, 6)
    return b[:, 0], b[:, 1:]


def _good_nets(design: Design, grid: GCellGrid, net: np.ndarray, boxes: np.ndarray
               ) -> np.ndarray:
    """For each net of the design, whether its guides (:func:`_box_table`) connect and
    cover every pin (all nets at once, :mod:`.guide_check`); a net of fewer than two pins
    passes."""
    nets = len(design.nets)
    ok = one_piece(net, boxes, nets)
    t = design.pin_table
    shapes = np.stack([t.net, t.level, *_span(t.rect[:, 0], t.rect[:, 2], grid.xs),
                       *_span(t.rect[:, 1], t.rect[:, 3], grid.ys)], 1)[:, [0, 1, 2, 4, 3, 5]]
    hit = covered(box_cells(net, boxes), shapes)
    sizes = np.array([len(n.pins) for n in design.nets], np.int64)
    pin = (np.cumsum(sizes) - sizes)[t.net] + t.pin         # each shape's pin, numbered
    shown = np.bincount(pin, minlength=int(sizes.sum())) > 0
    bare = shown & ~(np.bincount(pin[hit], minlength=len(shown)) > 0)
    ok[np.repeat(np.arange(nets), sizes)[bare]] = False
    return ok | (sizes < 2)


def _where(box: Box, design: Design) -> str:
    lay = design.layers[box[0] - 1].name
    if box[1:3] == box[3:5]:
        return f"{lay} GCell ({box[1]}, {box[2]})"
    return f"{lay} GCells ({box[1]}, {box[2]})-({box[3]}, {box[4]})"


def _reason(design: Design, grid: GCellGrid, net: Net, boxes: list[Box]) -> str:
    """Why the net's guides fail, or ``""`` when they connect and cover every pin."""
    if not boxes:
        return "no guides"
    parts = pieces(boxes)
    if len(parts) > 1:
        return (f"guides in {len(parts)} separate pieces (one at "
                f"{_where(boxes[parts[0][0]], design)}, another at "
                f"{_where(boxes[parts[1][0]], design)})")
    for label, cells in _pin_cells(design, grid, net):
        if cells and not any(_covers(boxes, c) for c in cells):
            return f"pin {label} ({_where(cells[0], design)}) is not covered"
    return ""


def segment_length(box: Box, tile: int) -> int:
    """OpenROAD's length of a guide as a routed segment, in DBU: ``k * tile`` for one
    spanning ``k > 1`` GCells along one axis, else 0.

    >>> segment_length((2, 3, 0, 3, 4), 100), segment_length((2, 3, 0, 3, 0), 100)
    (500, 0)
    """
    kx, ky = box[3] - box[1] + 1, box[4] - box[2] + 1
    if (kx > 1) == (ky > 1):
        return 0
    return max(kx, ky) * tile


def via_sites(boxes: list[Box]) -> set[tuple[int, int, int]]:
    """``(level, x, y)`` for each via: guides on ``level`` and ``level + 1`` share GCell
    ``(x, y)``.

    >>> sorted(via_sites([(1, 0, 0, 0, 0), (2, 0, 0, 0, 2), (3, 0, 2, 4, 2)]))
    [(1, 0, 0), (2, 0, 2)]
    """
    cells: dict[int, set[tuple[int, int]]] = defaultdict(set)
    for lev, x0, y0, x1, y1 in boxes:
        cells[lev].update((x, y) for x in range(x0, x1 + 1) for y in range(y0, y1 + 1))
    return {(lev, x, y) for lev, here in cells.items()
            for x, y in here & cells.get(lev + 1, set())}


# -- demand, overflow and the contest's cost ---------------------------------------------
@dataclass
class _Usage:
    """Per-layer edge arrays (index ``level - 1``): capacity, wires, and the contest's
    via demand in half tracks. Horizontal edges are ``[y, x]`` between GCells ``x`` and
    ``x + 1``; vertical ones ``[y, x]`` between ``y`` and ``y + 1``."""
    cap: list[np.ndarray]
    wires: list[np.ndarray]
    via_half: list[np.ndarray]
    horizontal: list[bool]


def _usage_arrays(design: Design, grid: GCellGrid, boxes: np.ndarray) -> _Usage:
    """Empty demand arrays of every layer up to the grid's highest or the highest of
    ``boxes`` (rows ``(level, ...)``), whichever is higher."""
    top = max(grid.max_layer, int(boxes[:, 0].max(initial=0)))
    nx, ny = grid.shape
    cap, wires, halves, horizontal = [], [], [], []
    for level in range(1, top + 1):
        h = design.layers[level - 1].direction == "HORIZONTAL"
        shape = (ny, nx - 1) if h else (ny - 1, nx)
        if level <= len(grid.layers):
            c = (grid.h_cap if h else grid.v_cap)[level - 1].astype(np.int64)
        else:
            c = np.zeros(shape, dtype=np.int64)
        cap.append(c)
        wires.append(np.zeros(shape, dtype=np.int64))
        halves.append(np.zeros(shape, dtype=np.int64))
        horizontal.append(h)
    return _Usage(cap, wires, halves, horizontal)


def _wire_cells(box: Box, horizontal: bool) -> bool:
    """Whether ``box`` runs a wire along its layer's direction (spans two GCells or more)."""
    return box[3] > box[1] if horizontal else box[4] > box[2]


def _add_demand(use: _Usage, net: np.ndarray, boxes: np.ndarray, sites: np.ndarray,
                first: int) -> None:
    """Every net's demand, all nets at once: one track on each edge that some guide of
    the net spans along its layer, and the contest's via demand (a via landing on a
    layer where the net has no wire adds a half track to each edge beside its GCell, a
    whole one to the one edge at the border; layers below ``first`` are not routing
    layers to the contest).

    ``net`` names each box's net (``boxes``: ``(level, x0, y0, x1, y1)`` rows); ``sites``
    holds each net's distinct via sites as ``(net, level, x, y)`` rows.
    """
    ny, nx = use.cap[0].shape
    ny, nx = (ny, nx + 1) if use.horizontal[0] else (ny + 1, nx)     # GCells a side
    levels = len(use.cap)
    if len(boxes):
        h = np.array(use.horizontal)[boxes[:, 0] - 1]
        wired = np.where(h, boxes[:, 3] > boxes[:, 1], boxes[:, 4] > boxes[:, 2])
        boxes, net, h = boxes[wired], net[wired], h[wired]
    else:
        h = np.zeros(0, bool)
    span_x, span_y = boxes[:, 3] - boxes[:, 1] + 1, boxes[:, 4] - boxes[:, 2] + 1
    # the edges the net's wires span, once a net
    box, y, x = block_cells(boxes, span_y - (~h), span_x - h)
    key = distinct(np, ((net[box] * levels + boxes[box, 0] - 1) * ny + y) * nx + x)
    for level in range(1, levels + 1):
        at = key // (ny * nx) % levels == level - 1
        if at.any():
            cell = key[at] % (ny * nx)
            w = use.wires[level - 1]
            np.add.at(w, (cell // nx, cell % nx), 1)
    if not len(sites):
        return
    # the GCells where the net has a wire: a via landing there adds no demand
    box, y, x = block_cells(boxes, span_y, span_x)
    wire = distinct(np, ((net[box] * levels + boxes[box, 0] - 1) * ny + y) * nx + x)
    sites = sites[sites[:, 1] >= first]
    s_key = ((sites[:, 0] * levels + sites[:, 1] - 1) * ny + sites[:, 3]) * nx + sites[:, 2]
    at = np.minimum(np.searchsorted(wire, s_key), max(len(wire) - 1, 0))
    on_wire = wire[at] == s_key if len(wire) else np.zeros(len(s_key), bool)
    sites = sites[~on_wire]
    for level in np.unique(sites[:, 1]).tolist():
        at = sites[sites[:, 1] == level]
        arr, hz = use.via_half[level - 1], use.horizontal[level - 1]
        pos, line = (at[:, 2], at[:, 3]) if hz else (at[:, 3], at[:, 2])
        n = (arr.shape[1] if hz else arr.shape[0]) + 1
        for k, add in ((pos - 1, np.where(pos < n - 1, 1, 2)), (pos, np.where(pos > 0, 1, 2))):
            ok = (k >= 0) & (k < n - 1)
            idx = (line[ok], k[ok]) if hz else (k[ok], line[ok])
            np.add.at(arr, idx, add[ok])


def _layer_rows(design: Design, use: _Usage) -> tuple[LayerUsage, ...]:
    rows = []
    for i, (cap, wires, h) in enumerate(zip(use.cap, use.wires, use.horizontal)):
        over = np.maximum(wires - cap, 0)
        worst = int(over.max()) if over.size else 0
        rows.append(LayerUsage(design.layers[i].name, int(cap.sum()), int(wires.sum()),
                               worst if h else 0, 0 if h else worst, int(over.sum())))
    return tuple(rows)


def _overflow_term(demand: np.ndarray, cap: np.ndarray) -> float:
    """The contest's sum over edges of ``f(d, c)`` (the module's docstring)."""
    with np.errstate(over="ignore"):
        held = np.where(cap > 0, np.exp(0.5 * (demand - cap)), 0.0)
        bare = np.where((cap <= 0) & (demand > 0), np.exp(1.5 * demand), 0.0)
    return float(held.sum() + bare.sum())


def contest_cost(grid: GCellGrid, use: _Usage, vias: int,
                 weights: ContestWeights) -> ContestCost:
    """The ISPD 2024 contest's cost of the demand in ``use`` and ``vias`` vias."""
    centres_x = (grid.xs[:-1] + grid.xs[1:]) / 2
    centres_y = (grid.ys[:-1] + grid.ys[1:]) / 2
    step_x, step_y = np.diff(centres_x), np.diff(centres_y)
    wire_len = 0.0
    overflow = 0.0
    for i in range(grid.min_layer - 1, len(use.cap)):
        wires, h = use.wires[i], use.horizontal[i]
        wire_len += float((wires * (step_x[None, :] if h else step_y[:, None])).sum())
        demand = wires + use.via_half[i] / 2.0
        overflow += weights.of_layer(i + 1) * _overflow_term(demand, use.cap[i])
    return ContestCost(weights.wire * wire_len, weights.via * vias, overflow)


def cost_of_boxes(grid: GCellGrid, caps: list[np.ndarray], horizontal: list[bool],
                  nets, first: int, weights: ContestWeights) -> ContestCost:
    """The ISPD 2024 contest's cost of routes given in GCells rather than as guides.

    Parameters
    ----------
    grid : GCellGrid
        The GCell boundaries (the wires' lengths).
    caps : list of arrays
        Per layer (index ``level - 1``) the edge capacities along its direction.
    horizontal : list of bool
        Per layer, whether it runs along x.
    nets : iterable of (boxes, via sites, vias)
        Each net's wires as boxes ``(level, x0, y0, x1, y1)`` of GCells, the GCells
        ``(level, x, y)`` its vias land on, and how many vias it has.
    first : int
        The lowest level the contest counts demand on.
    weights : ContestWeights
        The unit costs.

    Returns
    -------
    ContestCost
    """
    vias = 0
    all_boxes, all_sites = [], []
    for k, (boxes, sites, count) in enumerate(nets):
        all_boxes += [(k, *b) for b in boxes]
        all_sites += [(k, *v) for v in sites]
        vias += count
    return cost_of_arrays(grid, caps, horizontal, *_demand_arrays(all_boxes, all_sites),
                          vias, first, weights)


def cost_of_arrays(grid: GCellGrid, caps: list[np.ndarray], horizontal: list[bool],
                   net: np.ndarray, boxes: np.ndarray, sites: np.ndarray, vias: int,
                   first: int, weights: ContestWeights) -> ContestCost:
    """:func:`cost_of_boxes` for routes given as arrays: ``boxes`` ``(k, 5)`` rows
    ``(level, x0, y0, x1, y1)`` of wires, ``net`` each box's net, ``sites`` each net's
    distinct via sites as rows ``(net, level, x, y)``, ``vias`` the vias' count."""
    use = _Usage(caps, [np.zeros(c.shape, np.int64) for c in caps],
                 [np.zeros(c.shape, np.int64) for c in caps], horizontal)
    _add_demand(use, net, boxes, sites, first)
    return contest_cost(grid, use, vias, weights)


def _demand_arrays(boxes: list, sites: list):
    """``(net, *box)`` and ``(net, *site)`` rows as :func:`_add_demand` takes them."""
    b = np.array(boxes, np.int64).reshape(-1, 6)
    v = np.array(sites, np.int64).reshape(-1, 4)
    return b[:, 0], b[:, 1:], v


def evaluate(design: Design, grid: GCellGrid,
             guides: dict[str, list[tuple[int, int, int, int, str]]],
             weights: ContestWeights | None = None) -> Evaluation:
    """Judge route guides of ``design`` over ``grid`` (the module's docstring says how).

    Parameters
    ----------
    design : Design
        The placed design (:func:`mazeroute.readers.lefdef.read_design`).
    grid : GCellGrid
        Its GCell grid and capacities (:func:`mazeroute.gcells.gcell_grid`).
    guides : dict of str to list of (int, int, int, int, str)
        Each net's guide rectangles in DBU (:func:`mazeroute.guides.read_guides`).
    weights : ContestWeights, optional
        The contest's unit costs; 1 each by default.

    Returns
    -------
    Evaluation
        Per net, per layer, and the totals.

    Raises
    ------
    InputError
        A guide for a net the design lacks, on a layer that is not a routing layer, or
        off the die (the field names the net).

    Examples
    --------
    >>> from mazeroute.readers.lefdef import Design, Net, RoutingLayer, Tracks
    >>> from mazeroute.gcells import gcell_grid
    >>> m1 = RoutingLayer("m1", 1, "HORIZONTAL", 10, 4, 4, 5)
    >>> m2 = RoutingLayer("m2", 2, "VERTICAL", 10, 4, 4, 5)
    >>> d = Design("t", 1000, (0, 0, 300, 300), (m1, m2),
    ...            (Tracks("m1", "Y", 5, 30, 10), Tracks("m2", "X", 5, 30, 10)),
    ...            {}, (), {}, (Net("n", ()),), 0)
    >>> e = evaluate(d, gcell_grid(d), {"n": [(0, 0, 150, 300, "m2")]})
    >>> e.wirelength_um, e.vias, e.layers[1].demand
    (0.3, 0, 1)
    """
    weights = weights or ContestWeights()
    boxes = guide_boxes(design, grid, guides)
    box_net, box_rows = _box_table(design, boxes)
    use = _usage_arrays(design, grid, box_rows)
    good = _good_nets(design, grid, box_net, box_rows)
    checks: list[NetCheck] = []
    routable = connected = total_wl = total_vias = 0
    all_sites = []
    for k, net in enumerate(design.nets):
        mine = boxes.get(net.name, [])
        if len(net.pins) < 2 and not mine:
            continue
        # the reasons are worded one net at a time, for the nets that fail
        reason = "" if good[k] else _reason(design, grid, net, mine)
        sites = via_sites(mine)
        wl = sum(segment_length(b, grid.tile) for b in mine)
        cells = {b[1:3] for b in mine} | {b[3:5] for b in mine}
        checks.append(NetCheck(net.name, not reason, reason, wl, len(sites),
                               len(cells) == 1))
        routable += len(net.pins) >= 2
        connected += len(net.pins) >= 2 and not reason
        total_wl += wl
        total_vias += len(sites)
        all_sites += [(k, *v) for v in sites]
    _add_demand(use, box_net, box_rows, np.array(all_sites, np.int64).reshape(-1, 4),
                grid.min_layer)
    cost = contest_cost(grid, use, total_vias, weights)
    return Evaluation(tuple(checks), _layer_rows(design, use), total_wl / design.dbu,
                      total_vias, connected, routable, cost)


@dataclass(frozen=True)
class LayerEdges:
    """One layer's edges along its direction (:func:`edge_usage`): ``demand`` (wires, in
    tracks, as :class:`LayerUsage` counts them) and ``capacity``, both ``[y, x]``, of
    shape ``(ny, nx - 1)`` when ``horizontal`` (the edge between GCells ``x`` and
    ``x + 1``), else ``(ny - 1, nx)``; ``level`` is 1 for the lowest layer."""
    name: str
    level: int
    horizontal: bool
    demand: np.ndarray
    capacity: np.ndarray


def edge_usage(design: Design, grid: GCellGrid,
               guides: dict[str, list[tuple[int, int, int, int, str]]]
               ) -> tuple[LayerEdges, ...]:
    """Every layer's per-edge demand and capacity under ``guides``, from the lowest layer
    up to the grid's highest or the highest a guide reaches, whichever is higher.

    The demand is the one :func:`evaluate` reports per layer; it raises as that does.

    >>> from mazeroute.readers.lefdef import Design, Net, RoutingLayer, Tracks
    >>> from mazeroute.gcells import gcell_grid
    >>> m1 = RoutingLayer("m1", 1, "HORIZONTAL", 10, 4, 4, 5)
    >>> m2 = RoutingLayer("m2", 2, "VERTICAL", 10, 4, 4, 5)
    >>> d = Design("t", 1000, (0, 0, 300, 300), (m1, m2),
    ...            (Tracks("m1", "Y", 5, 30, 10), Tracks("m2", "X", 5, 30, 10)),
    ...            {}, (), {}, (Net("n", ()),), 0)
    >>> m2_edges = edge_usage(d, gcell_grid(d), {"n": [(0, 0, 150, 300, "m2")]})[1]
    >>> m2_edges.demand.tolist(), m2_edges.capacity.tolist()
    ([[1, 0]], [[15, 15]])
    """
    box_net, box_rows = _box_table(design, guide_boxes(design, grid, guides))
    use = _usage_arrays(design, grid, box_rows)
    _add_demand(use, box_net, box_rows, np.zeros((0, 4), np.int64), grid.min_layer)
    return tuple(LayerEdges(design.layers[i].name, i + 1, h, wires, cap)
                 for i, (cap, wires, h) in enumerate(zip(use.cap, use.wires, use.horizontal)))


def congestion_table(ev: Evaluation) -> str:
    """The layers in the shape of OpenROAD's ``Final congestion report``.

    >>> row = LayerUsage("metal2", 100, 7, 0, 2, 3)
    >>> ev = Evaluation((), (row,), 0.0, 0, 0, 0, ContestCost(0, 0, 0))
    >>> print(congestion_table(ev).splitlines()[2])
    metal2             100             7            7.00%             0 /  2 /  3
    """
    rule = "-" * 87
    lines = ["Layer         Resource        Demand        Usage (%)    Max H / Max V / "
             "Total Overflow", rule]
    for r in ev.layers:
        lines.append(f"{r.name:<7s}      {r.resource:9d}     {r.demand:9d}        "
                     f"{r.usage:8.2f}%            {r.max_h:2d} / {r.max_v:2d} / "
                     f"{r.overflow:2d}")
    res = sum(r.resource for r in ev.layers)
    dem = sum(r.demand for r in ev.layers)
    pct = 100.0 * dem / res if res else 0.0
    lines += [rule, f"{'Total':<7s}      {res:9d}     {dem:9d}        {pct:8.2f}%            "
              f"{sum(r.max_h for r in ev.layers):2d} / {sum(r.max_v for r in ev.layers):2d}"
              f" / {sum(r.overflow for r in ev.layers):2d}"]
    return "\n".join(lines)


__all__ = ["Evaluation", "NetCheck", "LayerUsage", "ContestWeights", "ContestCost",
           "cost_of_boxes", "cost_of_arrays", "evaluate", "congestion_table", "guide_boxes",
           "pieces", "segment_length", "via_sites", "contest_cost", "LayerEdges", "edge_usage"]
