"""Global routing of a placed design on its GCell grid: every net a tree of GCells on the
routing layers, joined by vias, negotiated against the edges' capacities.

The grid is :mod:`mazeroute.gcells`'s: ``(L, ny, nx)`` GCell nodes, a layer moving only
along its preferred direction, and a via joining a node to the one above or below it.
Layers below the lowest routing layer carry no wires; a pin on one is reached by a via
stack from its GCell, as OpenROAD's detailed router does.

The search is the 3-D weighted maze search (:func:`~mazeroute.engines.grid3d.weighted3d`)
in windows provably as good as the whole grid (:mod:`.layered_search`), growing each net
from its first pin to the nearest remaining one (Prim's order, so trees share wire). The
capacities are on edges, the search's costs on nodes: a node's capacity is the least of
the edges it lies on along its layer, and a net whose wire runs through a node along the
layer uses one track there (a via stack passing through uses none). A net on an edge
runs through both of its nodes, so no edge is over capacity where no node is.
PathFinder's negotiation (McMurchie and Ebeling, FPGA 1995; the rule VPR's router keeps)
prices a node ``(base + history) * (1 + pres_fac * over)``, ``over`` being how far one more
net would take it past capacity, ``history`` growing on overused nodes after each
iteration; the nets through overused nodes are ripped up and rerouted, until no edge is
over capacity (counted on the edges themselves, see :func:`edge_overflow`) or the
iterations run out. A via costs ``via_cost`` times the node it enters.

Examples
--------
>>> from mazeroute.readers.lefdef import Design, RoutingLayer, Tracks
>>> m1 = RoutingLayer("m1", 1, "HORIZONTAL", 10, 4, 4, 5)
>>> m2 = RoutingLayer("m2", 2, "VERTICAL", 10, 4, 4, 5)
>>> m3 = RoutingLayer("m3", 3, "HORIZONTAL", 10, 4, 4, 5)
>>> tracks = tuple(Tracks(n, a, 5, 60, 10) for n, a in (("m1", "Y"), ("m2", "X"),
...                                                        ("m3", "Y")))
>>> d = Design("t", 1000, (0, 0, 600, 600), (m1, m2, m3), tracks, {}, (), {}, (), 0)
>>> from mazeroute.gcells import gcell_grid
>>> g = gcell_grid(d)
>>> problem = GRouteProblem.of_grid(g, {"n": [(0, 0, 0), (3, 3, 0)]})
>>> res = global_route(problem)
>>> res.overflow, res.routes["n"].vias, res.routes["n"].steps
(0, 4, 6)
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ..engines.base import distinct, piece_places
from ..engines.costs import COST_MAX, COST_SCALE
from ..gcells import GCellGrid, cell_of
from ..limits import cores
from ..readers.lefdef import Design
from .groute_pattern import pattern_route
from .groute_refine import maze_trees, tree_cost
from .groute_search import array_module, make_search
from .layered_tree import Rules
from .pattern_shapes import OVER as PATTERN_OVER

#: The shapes of the present-congestion cost (:class:`GRouteOptions`).
PRESENT_COSTS = ("pathfinder", "logistic")

__all__ = ["PRESENT_COSTS", "GRouteProblem", "GRouteResult", "NetTree", "GRouteOptions",
           "global_route", "design_pins", "wirelength_um", "edge_overflow",
           "flat_paths", "as_layout"]


@dataclass(frozen=True)
class GRouteOptions:
    """The negotiation's options (PathFinder's names).

    ``present`` is the shape of the present-congestion cost: ``"pathfinder"`` (VPR's:
    ``1 + pres_fac * over``, growing by the tracks one more net would take past
    capacity) or ``"logistic"`` (CUGR's: ``1 + pres_fac * s``, ``s`` a logistic of how
    close one more net comes to capacity, ``1 / (1 + exp(slope * (capacity - use - 1)))``,
    rising before the capacity is reached). Both weigh it by the same ``pres_fac``
    schedule and keep the same history. ``pattern`` routes the first iteration by pattern
    routes (:mod:`.groute_pattern`) committed in ``pattern_rounds`` rounds, and leaves
    only the nets that no pattern routes, and later the ones in conflict, to the maze
    search. ``first_pres_fac`` is the present cost's weight in the second iteration,
    the first of rip-up and reroute (default: 0.5 after a maze first pass; after pattern
    routes, the weight they gave a track past capacity, so that the reroutes price
    overflow no lower than the first pass did). It grows by ``pres_fac_mult`` an
    iteration up to ``max_pres_fac`` (VPR's bound). After a pattern first pass the
    conflicted nets are rerouted by pattern routes, and after a round of them that did
    not lower the overflow by one round of the maze search. ``refine`` ends the route
    by giving each net of three GCells or more its maze tree where that is cheaper in
    steps and vias and fits (:mod:`.groute_refine`).
    """

    via_cost: int = 2
    max_iterations: int = 30
    first_pres_fac: float | None = None
    pres_fac_mult: float = 1.5
    max_pres_fac: float = 1000.0
    acc_fac: float = 1.0
    present: str = "pathfinder"
    slope: float = 1.0
    group: int = 1
    pattern: bool = True
    pattern_rounds: int = 16
    refine: bool = True

    def __post_init__(self):
        if self.present not in PRESENT_COSTS:
            raise ValueError(f"unknown present cost {self.present!r}; choose from "
                             + ", ".join(PRESENT_COSTS))


@dataclass
class GRouteProblem:
    """What is routed: the node grid's rules and capacities, and each net's pin nodes.

    ``capacity`` is ``(L, ny, nx)``, the nodes'; ``edge_cap`` the edges' (``h_cap`` and
    ``v_cap`` as :class:`~mazeroute.gcells.GCellGrid` holds them); ``free`` says where
    wires may go; ``pins`` maps a net
    to its distinct pin nodes ``(x, y, z)``, the root first; ``lowest`` is the lowest
    layer that carries wires: a pin below it is reached by a via stack at its GCell,
    which the search does not see (it takes no track); ``via_weight`` is what a via
    costs in GCell steps by the problem's own measure (a contest's weights; None: the
    router's ``via_cost``), by which refinement compares two trees of a net.
    """

    directions: tuple[str, ...]
    free: np.ndarray
    capacity: np.ndarray
    pins: dict[str, list[tuple[int, int, int]]]
    lowest: int = 0
    edge_cap: tuple[np.ndarray, np.ndarray] | None = None
    via_weight: float | None = None

    @classmethod
    def of_grid(cls, grid: GCellGrid, pins: dict[str, list[tuple[int, int, int]]]
                ) -> GRouteProblem:
        """The problem of ``grid`` with nets' pin nodes ``pins`` (GCell ``x, y`` and the
        layer's index ``z``, 0 the lowest routing layer)."""
        layers = grid.layers
        nx, ny = grid.shape
        cap = np.zeros((len(layers), ny, nx), np.int64)
        for z, lay in enumerate(layers):
            if lay.direction == "HORIZONTAL":
                c = grid.h_cap[z]
                if nx > 1:
                    left = np.pad(c, ((0, 0), (1, 0)), constant_values=np.iinfo(np.int32).max)
                    right = np.pad(c, ((0, 0), (0, 1)), constant_values=np.iinfo(np.int32).max)
                    cap[z] = np.minimum(left, right)
            else:
                c = grid.v_cap[z]
                if ny > 1:
                    low = np.pad(c, ((1, 0), (0, 0)), constant_values=np.iinfo(np.int32).max)
                    high = np.pad(c, ((0, 1), (0, 0)), constant_values=np.iinfo(np.int32).max)
                    cap[z] = np.minimum(low, high)
        wired = np.array([grid.min_layer <= lay.level <= grid.max_layer for lay in layers])
        free = np.broadcast_to(wired[:, None, None], cap.shape).copy()
        directions = tuple(lay.direction.lower() for lay in layers)
        return cls(directions, free, cap, pins, grid.min_layer - 1, (grid.h_cap, grid.v_cap))


@dataclass
class NetTree:
    """One net's route: its nodes ``(x, y, z)`` (a tree, first pin first), its in-layer
    steps and its vias; its search's paths and the via stacks from its pins below the
    lowest routing layer, each cells from end to end; the GCell edges its wires cross
    (as :func:`edge_overflow` numbers them, once computed)."""

    cells: np.ndarray
    steps: int = 0
    vias: int = 0
    routed: bool = True
    wired: np.ndarray | None = field(default=None, repr=False)
    paths: list[np.ndarray] = field(default_factory=list, repr=False)
    stacks: list[np.ndarray] = field(default_factory=list, repr=False)
    edges: np.ndarray | None = field(default=None, repr=False)


@dataclass
class GRouteResult:
    """Every net's tree, the nodes' final use, the overflow (tracks used past capacity,
    summed over the edges), the iterations run, the seconds taken, each iteration's
    overflow, and refinement's nets: those it tried and those that took their maze
    tree (None: refinement was off)."""

    routes: dict[str, NetTree]
    usage: np.ndarray
    overflow: int
    iterations: int
    seconds: float
    overflows: list[int] = field(default_factory=list)
    refined: tuple[int, int] | None = None


class _Negotiation:
    """The loop's state: each node's use and history, each net's nodes."""

    def __init__(self, problem: GRouteProblem, options: GRouteOptions,
                 backend: str = "cpu", kernels=None):
        self.p, self.opt = problem, options
        self.shape = problem.capacity.shape
        self.usage = np.zeros(self.shape, np.int64)
        self.history = np.zeros(self.shape, np.int64)
        self.cost = np.full(self.shape, COST_SCALE, np.int64)
        self.pres = 0.0
        self.uniform = True
        self.rules = Rules(problem.directions, options.via_cost, None, False)
        self.pin_nodes = _lifted_pins(problem)
        self.cap = problem.capacity
        self.trees: dict[str, NetTree] = {}
        self.backend, self.kernels = backend, kernels
        self.xp = array_module(backend, kernels)
        self._search = None

    def pattern(self, names: list[str], negotiated: bool = False) -> list[str]:
        """Pattern-route the nets ``names``, ripped up first; on the first pass's own
        prices, or ``negotiated`` on the negotiation's. Returns the nets left to the
        maze search (no possible pattern route)."""
        p = self.p
        gone = [t for t in (self.trees.pop(n, None) for n in names) if t and t.routed]
        if gone:
            c = np.concatenate([_wires(t) for t in gone])
            np.subtract.at(self.usage, (c[:, 2], c[:, 1], c[:, 0]), 1)
        routed = pattern_route([self.pin_nodes[n] for n in names], p.free, self.cap,
                               p.directions, self.opt.via_cost, self.usage,
                               self.opt.pattern_rounds, self.xp,
                               price=self._pricer() if negotiated else None)
        left = []
        for name, r in zip(names, routed):
            if r is None:
                left.append(name)
            else:
                self.trees[name] = NetTree(r.cells, r.steps, r.vias, True, r.wired, r.paths)
        self.price()
        return left

    def _pricer(self):
        """:meth:`cost_of` for the pattern rounds of one iteration: only the use changes
        between them, so each round reprices the nodes whose use changed."""
        last = {"use": self.usage.copy(), "cost": self.cost_of(self.usage)}

        def price(usage: np.ndarray) -> np.ndarray:
            changed = np.nonzero(usage != last["use"])
            last["cost"][changed] = self.cost_of(usage, changed)
            last["use"][changed] = usage[changed]
            return last["cost"]
        return price

    def cost_of(self, usage: np.ndarray, at=None) -> np.ndarray:
        """The node costs at ``at`` (index arrays; None: all) were the use ``usage``."""
        at = (slice(None),) * 3 if at is None else at
        base = COST_SCALE + self.history[at]
        if self.opt.present == "logistic":
            room = (self.cap[at] - usage[at] - 1).astype(np.float64)
            over = 1.0 / (1.0 + np.exp(np.minimum(self.opt.slope * room, 60.0)))
            return np.clip(base * (1.0 + self.pres * over), 1, COST_MAX).astype(np.int64)
        # where one more net fits, the cost is the base alone, in integers; the product
        # is taken where it would not (on a whole grid, a few nodes)
        over = usage[at] + 1 - self.cap[at]
        value = np.minimum(base, COST_MAX)
        hot = np.nonzero(over > 0)
        value[hot] = np.clip(base[hot] * (1.0 + self.pres * over[hot]), 1, COST_MAX)
        return value

    def price(self, at=None) -> None:
        """Set the node costs at ``at`` (index arrays; None: all) from use and history."""
        at = (slice(None),) * 3 if at is None else at
        self.cost[at] = self.cost_of(self.usage, at)

    def _take(self, tree: NetTree | None, sign: int) -> None:
        if tree is None or not tree.routed:
            return
        c = _wires(tree)
        at = (c[:, 2], c[:, 1], c[:, 0])
        self.usage[at] += sign
        self.price(at)

    def route(self, names: list[str]) -> None:
        """Rip the nets ``names`` up and route them again, each on the costs as they
        are once all of them are ripped up."""
        for name in names:
            self._take(self.trees.get(name), -1)
        # while every node costs the same (no present or history cost yet), the unit-step
        # search finds the same shortest paths, scaled, with buckets instead of a heap
        cost = None if self.uniform else self.cost
        if self._search is None:            # built once a maze search is wanted
            self._search = make_search(self.p.free, self.rules, self.backend, self.kernels)
        grown = self._search.grow_many([self.pin_nodes[n] for n in names], cost)
        for name, tree in zip(names, grown):
            steps = vias = 0
            if tree.routed:
                vias, steps = tree.vias, len(tree.cells) - 1 - tree.vias
            net = NetTree(tree.cells, steps, vias, tree.routed, paths=tree.paths)
            self.trees[name] = net
            self._take(net, 1)

    def refine(self, names: list[str], threads: int = 1) -> int:
        """Give each net of ``names`` its maze tree in its pins' box where that costs
        less in steps and vias (by the problem's ``via_weight``) than its route and fits
        in the nodes' room (:mod:`.groute_refine`), one net after another. Returns how
        many took it."""
        via = self.opt.via_cost
        weight = via if self.p.via_weight is None else self.p.via_weight
        names = [n for n in names if self.trees[n].routed]
        room = self.p.free & (self.usage < self.cap)
        found = maze_trees([self.pin_nodes[n] for n in names], room, self.p.directions,
                           via, threads=threads)
        current = np.array([[self.trees[n].steps, self.trees[n].vias] for n in names],
                           np.int64).reshape(-1, 2)
        cheaper = (found.steps >= 0) & (tree_cost(found.steps, found.vias, weight)
                                        < tree_cost(current[:, 0], current[:, 1], weight))
        taken = []
        for k in np.nonzero(cheaper)[0].tolist():
            name, paths = names[k], found.paths(k)
            tree = NetTree(np.concatenate([paths[0][-1:], *(p[:-1][::-1] for p in paths)]),
                           int(found.steps[k]), int(found.vias[k]), True, paths=paths)
            old = self.trees[name]
            self._take(old, -1)
            now = _wires(tree)
            at = (now[:, 2], now[:, 1], now[:, 0])
            if (self.usage[at] + 1 > self.cap[at]).any():
                self._take(old, 1)
                continue
            self.trees[name] = tree
            self._take(tree, 1)
            taken.append(name)
        return len(taken)

    def conflicts(self, problem: GRouteProblem, over: np.ndarray) -> tuple[int, list[str]]:
        """The overflow, and the nets to reroute: on the edges where the problem has
        them (the nets across an edge over capacity), else on the nodes (the nets
        through an overused node); ``over`` is each node's use past capacity."""
        # the nodes' overflow bounds the edges' from above: when it is not 0, the edges
        # (what capacity is measured on) may still all hold
        if not over.any():
            return 0, []
        names = list(self.trees)
        trees = [self.trees[n] for n in names]
        if problem.edge_cap is not None:
            net, edge, use, room = _edge_use(trees, problem)
            hit = distinct(np, net[use[edge] > room[edge]])
            return (int(np.maximum(0, use - room).sum()), [names[k] for k in hit.tolist()])
        hot = over > 0
        return int(over.sum()), [n for n, t in zip(names, trees) if t.routed
                                 and t.wired is not None
                                 and hot[t.wired[:, 2], t.wired[:, 1], t.wired[:, 0]].any()]


def _pin_rows(problem: GRouteProblem) -> tuple[np.ndarray, np.ndarray]:
    """Every net's pin nodes in one array, net after net: each one's net (its index in
    ``problem.pins``) and its node ``(x, y, z)``."""
    sizes = np.array([len(p) for p in problem.pins.values()], np.int64)
    pins = np.array([c for p in problem.pins.values() for c in p], np.int64).reshape(-1, 3)
    return np.repeat(np.arange(len(sizes)), sizes), pins


def _firsts(net: np.ndarray, nodes: np.ndarray) -> np.ndarray:
    """Where each distinct (net, node) comes first, in order."""
    _, first = np.unique(np.column_stack([net, nodes]), axis=0, return_index=True)
    return np.sort(first)


def _lifted_pins(problem: GRouteProblem) -> dict[str, np.ndarray]:
    """Each net's distinct pin nodes with the ones below the lowest routing layer lifted
    onto it (``(k, 3)``, in the net's order), all nets at once."""
    names = list(problem.pins)
    net, pins = _pin_rows(problem)
    pins[:, 2] = np.maximum(pins[:, 2], problem.lowest)
    first = _firsts(net, pins)             # a pin lifted onto another is one node
    cut = np.searchsorted(net[first], np.arange(len(names) + 1)).tolist()
    kept = pins[first]
    return {n: kept[cut[k]:cut[k + 1]] for k, n in enumerate(names)}


def _access_stacks(problem: GRouteProblem) -> dict[str, list[np.ndarray]]:
    """The via stacks of the nets with pins below the lowest routing layer: each such pin
    (once, in its net's order) up to the node above it on that layer, all nets at once."""
    names = list(problem.pins)
    net, pins = _pin_rows(problem)
    low = np.nonzero(pins[:, 2] < problem.lowest)[0]
    low = low[_firsts(net[low], pins[low])]          # a pin listed twice has one stack
    length = problem.lowest - pins[low, 2] + 1
    row, rise = piece_places(np, length)
    cells = pins[low][row]
    cells[:, 2] += rise
    ends = np.cumsum(length).tolist()
    stacks: dict[str, list[np.ndarray]] = {}
    for n, end, size in zip(net[low].tolist(), ends, length.tolist()):
        stacks.setdefault(names[n], []).append(cells[end - size:end])
    return stacks


def _with_access(tree: NetTree, stacks: list[np.ndarray]) -> NetTree:
    """``tree`` with the via stacks ``stacks`` from its pins below the lowest routing
    layer up to it (each pin first, ending on the tree's node above it)."""
    if not tree.routed:
        return tree
    cells = np.concatenate([tree.cells, *(s[:-1] for s in stacks)])
    vias = tree.vias + sum(len(s) - 1 for s in stacks)
    return NetTree(cells, tree.steps, vias, True, tree.wired, tree.paths, stacks)


def in_layer_steps(paths: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The two ends ``(k, 3)`` of every step along a layer (not a via) of ``paths``."""
    if not paths:
        empty = np.zeros((0, 3), np.int64)
        return empty, empty
    a = np.concatenate([p[:-1] for p in paths])
    b = np.concatenate([p[1:] for p in paths])
    same = a[:, 2] == b[:, 2]
    return a[same], b[same]


def _wires(tree: NetTree) -> np.ndarray:
    """``tree``'s nodes that take a track (:func:`_wired`), kept on the tree."""
    if tree.wired is None:
        tree.wired = _wired(tree.paths)
    return tree.wired


def _wired(paths: list[np.ndarray]) -> np.ndarray:
    """The nodes of a tree that a wire runs through along their layer (an end of one of
    its paths' in-layer steps): the ones that take a track. A node that a via stack only
    passes through takes none."""
    a, b = in_layer_steps(paths)
    return np.unique(np.concatenate([a, b]), axis=0)


def global_route(problem: GRouteProblem, options: GRouteOptions | None = None,
                 progress: Callable[[int, int, int], None] | None = None,
                 backend: str = "cpu", kernels=None) -> GRouteResult:
    """Route every net of ``problem`` (see the module's notes).

    Parameters
    ----------
    problem : GRouteProblem
        The grid and the nets' pin nodes.
    options : GRouteOptions, optional
        The negotiation's options.
    progress : callable, optional
        Called after each iteration as ``progress(iteration, overflow, nets rerouted)``.

    Returns
    -------
    GRouteResult
        Each net's tree (nets in ``problem.pins``' order, with the via stacks down to
        its pins below ``problem.lowest``), the nodes' use and the overflow.
    """
    opt = options or GRouteOptions()
    first_pres = opt.first_pres_fac
    if first_pres is None:
        first_pres = float(PATTERN_OVER) if opt.pattern else 0.5
    start = time.perf_counter()
    neg = _Negotiation(problem, opt, backend, kernels)
    todo = list(neg.pin_nodes)
    overflow_by_iteration = []
    first = "pattern" if opt.pattern else "maze"
    it = 0
    for it in range(1, opt.max_iterations + 1):
        neg.pres = 0.0 if it == 1 else min(opt.max_pres_fac,
                                           first_pres * opt.pres_fac_mult ** (it - 2))
        neg.price()
        neg.uniform = neg.pres == 0 and not neg.history.any()
        # the first iteration's searches read no use (uniform costs): any grouping is
        # the same, so all of its nets go in one
        step = len(todo) if neg.uniform else opt.group
        rerouted = len(todo)
        if first == "pattern":
            todo = neg.pattern(todo, negotiated=it > 1)
        for at in range(0, len(todo), max(1, step)):
            neg.route(todo[at:at + step])
        over = np.maximum(0, neg.usage - neg.cap)
        neg.history += (COST_SCALE * opt.acc_fac * over).astype(np.int64)
        edges, conflicted = neg.conflicts(problem, over)
        if opt.pattern and it > 1:
            # patterns cannot detour; the maze search prices a via stack through a full
            # node as if it took a track there, which patterns do not: each covers what
            # the other cannot, so a round of patterns that did not lower the overflow
            # is followed by one of maze routes, and that by patterns again
            stalled = first == "pattern" and edges >= overflow_by_iteration[-1]
            first = "maze" if stalled else "pattern"
        overflow_by_iteration.append(edges)
        if progress:
            progress(it, edges, rerouted)
        todo = conflicted
        if not todo:
            break
    overflow, refined = overflow_by_iteration[-1], None
    if opt.refine:
        junctions = _junctions(neg.pin_nodes)
        refined = (len(junctions), neg.refine(junctions, threads=cores()))
        if overflow:        # refinement frees tracks and takes only room, never more
            overflow, _ = neg.conflicts(problem, np.maximum(0, neg.usage - neg.cap))
    routes = {n: neg.trees[n] for n in problem.pins}
    for n, stacks in _access_stacks(problem).items():
        routes[n] = _with_access(routes[n], stacks)
    return GRouteResult(routes, neg.usage, overflow, it,
                        time.perf_counter() - start, overflow_by_iteration, refined)


def _junctions(pin_nodes: dict[str, np.ndarray]) -> list[str]:
    """The nets whose pins lie in three GCells or more: those whose trees join
    branches, where the topology decides the vias."""
    names = list(pin_nodes)
    if not names:
        return []
    sets = list(pin_nodes.values())
    net = np.repeat(np.arange(len(sets)), [len(p) for p in sets])
    xy = np.concatenate(sets)[:, :2].astype(np.int64)
    ny, nx = int(xy[:, 1].max()) + 1, int(xy[:, 0].max()) + 1
    cells = np.bincount(distinct(np, (net * ny + xy[:, 1]) * nx + xy[:, 0]) // (ny * nx),
                        minlength=len(sets))
    return [names[k] for k in np.nonzero(cells >= 3)[0].tolist()]


def _crossings(trees, shape) -> tuple[np.ndarray, np.ndarray]:
    """Each tree's index and the edges its wires cross (each once a tree): an edge is
    ``((axis * L + z) * ny + y) * nx + x`` from its lower node ``(x, y, z)``, axis 0
    along x and 1 along y. Each tree keeps its own (``edges``) once counted."""
    trees = list(trees)
    _count_edges([t for t in trees if t.routed and t.edges is None], shape)
    sizes = [len(t.edges) if t.routed else 0 for t in trees]
    if not sum(sizes):
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    return (np.repeat(np.arange(len(trees)), sizes),
            np.concatenate([t.edges for t in trees if t.routed]))


def flat_paths(trees, stacks: bool = False
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every routed tree's paths (and, with ``stacks``, its pins' via stacks) in one
    array: the cells ``(n, 3)``, each cell's path, and each path's tree (its index in
    ``trees``)."""
    paths, owner = [], []
    for k, t in enumerate(trees):
        if t.routed:
            ps = (*t.paths, *t.stacks) if stacks else t.paths
            paths += ps
            owner += [k] * len(ps)
    if not paths:
        return np.zeros((0, 3), np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64)
    cells = np.concatenate(paths).astype(np.int64, copy=False).reshape(-1, 3)
    path = np.repeat(np.arange(len(paths)), [len(p) for p in paths])
    return cells, path, np.array(owner, np.int64)


def _count_edges(trees: list[NetTree], shape) -> None:
    """Set the edges each of ``trees`` crosses, all trees' paths in one go."""
    if not trees:
        return
    L, ny, nx = shape
    cells, path, owner = flat_paths(trees)
    step = (path[1:] == path[:-1]) & (cells[1:, 2] == cells[:-1, 2])
    lo = np.minimum(cells[:-1], cells[1:])[step]
    axis = (cells[:-1, 1] != cells[1:, 1])[step].astype(np.int64)
    edge = ((axis * L + lo[:, 2]) * ny + lo[:, 1]) * nx + lo[:, 0]
    net = owner[path[:-1][step]]
    pairs = distinct(np, net * (2 * L * ny * nx) + edge)
    cut = np.searchsorted(pairs // (2 * L * ny * nx), np.arange(len(trees) + 1))
    pairs %= 2 * L * ny * nx
    for k, t in enumerate(trees):
        t.edges = pairs[cut[k]:cut[k + 1]]


def _edge_room(problem: GRouteProblem) -> np.ndarray:
    """Every edge's capacity, flat as :func:`_crossings` numbers edges (no edge: none)."""
    L, ny, nx = problem.capacity.shape
    room = np.zeros((2, L, ny, nx), np.int64)
    h, v = problem.edge_cap
    room[0, :, :, :nx - 1] = np.asarray(h).reshape(L, ny, nx - 1)
    room[1, :, :ny - 1, :] = np.asarray(v).reshape(L, ny - 1, nx)
    return room.reshape(-1)


def _edge_use(trees, problem: GRouteProblem):
    """The trees' crossings, each edge's use and each edge's capacity."""
    net, edge = _crossings(trees, problem.capacity.shape)
    room = _edge_room(problem)
    return net, edge, np.bincount(edge, minlength=len(room)), room


def edge_overflow(trees, problem: GRouteProblem) -> int:
    """The tracks used past capacity, summed over the edges: an edge between two
    neighbouring GCells along a layer takes one track of each net whose path steps
    across it (once a net)."""
    _, _, use, room = _edge_use(list(trees), problem)
    return int(np.maximum(0, use - room).sum())


def design_pins(design: Design, grid: GCellGrid) -> dict[str, list[tuple[int, int, int]]]:
    """Each signal net's distinct pin nodes ``(x, y, z)`` on ``grid``: a pin's node is the
    GCell of the centre of its largest shape on its lowest layer (a pin above the grid's
    top layer is taken on the top layer). A net of fewer than two pins is left out; one
    whose pins all lie in one GCell keeps that one node (its guides still reach the lowest
    routing layer)."""
    top = len(grid.layers)
    t = design.pin_table
    multi = np.array([len(net.pins) >= 2 for net in design.nets] + [False])
    keep = np.nonzero(multi[t.net])[0]
    r = t.rect[keep]
    # each pin's largest shape on its lowest layer (the first of equals)
    order = keep[np.lexsort((keep, -(r[:, 2] - r[:, 0]) * (r[:, 3] - r[:, 1]),
                             t.level[keep], t.pin[keep], t.net[keep]))]
    new_pin = np.ones(len(order), bool)
    new_pin[1:] = (np.diff(t.net[order]) != 0) | (np.diff(t.pin[order]) != 0)
    first = order[new_pin]
    names = [net.name for net in design.nets]
    owner = t.net[first].tolist()
    cx = (t.rect[first, 0] + t.rect[first, 2]) / 2
    cy = (t.rect[first, 1] + t.rect[first, 3]) / 2
    cz = (np.minimum(t.level[first], top) - 1).tolist()
    # every pin's GCell at once: the searches are the costly part when done a pin a time
    gx, gy = cell_of(grid.xs, cx), cell_of(grid.ys, cy)
    out: dict[str, list[tuple[int, int, int]]] = {}
    for k, x, y, z in zip(owner, gx.tolist(), gy.tolist(), cz):
        nodes = out.setdefault(names[k], [])
        if (x, y, z) not in nodes:
            nodes.append((x, y, z))
    return out


def wirelength_um(result: GRouteResult, grid: GCellGrid, dbu: int) -> float:
    """The routes' in-layer steps, each the distance between its two GCells' centres,
    in microns."""
    cx = (grid.xs[:-1] + grid.xs[1:]) / 2
    cy = (grid.ys[:-1] + grid.ys[1:]) / 2
    total = 0.0
    for tree in result.routes.values():
        if tree.routed:
            a, b = in_layer_steps(tree.paths)
            total += float(np.abs(cx[a[:, 0]] - cx[b[:, 0]]).sum()
                           + np.abs(cy[a[:, 1]] - cy[b[:, 1]]).sum())
    return total / dbu


def as_layout(name: str, grid: GCellGrid, problem: GRouteProblem, result: GRouteResult):
    """The global route as a multi-layer layout of GCells and its routes, for the viewer:
    a cell is a GCell of a layer, a net's pins its pin nodes, its route its tree's
    nodes; ``congestion`` is each node's use over its capacity.

    Returns
    -------
    tuple
        ``(layout, route_result, congestion)``.
    """
    from ..layers import Layer, Stack
    from ..layout import Layout, Net
    from .result import NetRoute, RouteResult

    nx, ny = grid.shape
    stack = Stack(tuple(Layer(lay.name, lay.direction.lower()) for lay in grid.layers))
    nets, routes = [], []
    for k, (n, pins) in enumerate(problem.pins.items()):
        cells = [tuple(c) for c in pins]
        nets.append(Net(n, cells))
        tree = result.routes[n]
        r = NetRoute(n, cells)
        if tree.routed:
            r.routed, r.cells = True, [tuple(c) for c in tree.cells.tolist()]
            r.vias, r.length, r.order = tree.vias, tree.steps, k
        routes.append(r)
    layout = Layout(name, nx, ny, [], nets, stack=stack)
    congestion = result.usage / np.maximum(problem.capacity, 1)
    done = RouteResult(layout, routes, "cpu/groute", "file", result.seconds, mode="negotiate")
    return layout, done, congestion
