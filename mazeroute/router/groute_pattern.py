"""Pattern routes: the first pass of global routing, every net at once.

Each net's pins are joined by a rectilinear Steiner tree (:mod:`.steiner`) on the GCell
plane, and each edge of the tree is routed as the cheapest of its pattern shapes: the
two L shapes and every Z shape inside its bounding box (a horizontal run, a vertical
run and a horizontal run, or the other way round), each run on one layer of its
direction, vias between runs and at the ends (Kastner, Bozorgzadeh and Sarrafzadeh's
pattern routing, DAC 2000; with layers chosen by dynamic programming along the shape,
as CUGR's and InstantGR's 3-D patterns do). A run's cost is the sum of its nodes'
costs, read from prefix sums along rows and columns, so every candidate of every net is
priced in a few array operations; they run on NumPy or, for ``backend="gpu"``, on CuPy,
with integer costs and the first of equal candidates taken, so both give the same
routes.

The nets are routed in ``rounds`` (shortest bounding box first): every net of a round
is priced against the use of the rounds before it, then all of them are committed.
A node costs more as its use nears its capacity and much more past it; a blocked node
makes a shape impossible, and a net with an impossible edge is left to the maze search.

Examples
--------
>>> free = np.ones((2, 4, 5), bool)
>>> usage = np.zeros((2, 4, 5), np.int64)
>>> nets = pattern_route([np.array([[0, 0, 0], [4, 3, 0]])], free, np.full((2, 4, 5), 3),
...                      ("horizontal", "vertical"), 2, usage)
>>> nets[0].steps, nets[0].vias, int(usage.sum())
(7, 2, 9)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..engines.base import distinct, piece_places
from ..layers import layer_moves
from .pattern_shapes import (
    BLOCK,
    INF,
    UNIT,
    Prices,
    Segments,
    best_shapes,
    host,
    node_costs,
    scatter,
    shape_of,
)
from .pattern_tree import arrivals, junction_costs, pick, start_layers
from .steiner import steiner_trees

__all__ = ["PatternNet", "pattern_route"]

@dataclass
class PatternNet:
    """One net's pattern route: its nodes (its pins first), its paths (each a chain of
    neighbouring nodes), the nodes that take a track, its in-layer steps and vias, and
    its cost as the dynamic programme priced it (its runs' node costs, a via at each
    bend, and a via per layer crossed by the stack at each tree point)."""

    cells: np.ndarray
    paths: list[np.ndarray]
    wired: np.ndarray
    steps: int
    vias: int
    cost: int = 0


def _ramps(xp, start, step, count):
    """Cells ``start + k * step`` for ``k < count`` of every piece, piece after piece."""
    piece, k = piece_places(xp, count)
    return start[piece] + k[:, None] * step[piece], piece


def _path_pieces(xp, corners, layers):
    """Each shape's path as five pieces (run, via stack, run, via stack, run), each
    starting after the one before it ends: their starts, steps and counts, shape-major."""
    n = len(corners)
    starts, steps, counts = [], [], []
    for r in range(3):
        a, b, z = corners[:, r], corners[:, r + 1], layers[:, r]
        if r:
            # the via stack at the bend, from the previous run's layer to this one's
            dz = xp.sign(z - layers[:, r - 1])
            starts.append(xp.concatenate([a, (layers[:, r - 1] + dz)[:, None]], 1))
            steps.append(xp.concatenate([xp.zeros((n, 2), np.int64), dz[:, None]], 1))
            counts.append(xp.abs(z - layers[:, r - 1]))
        d = xp.sign(b - a)
        first = a + d if r else a
        starts.append(xp.concatenate([first, z[:, None]], 1))
        steps.append(xp.concatenate([d, xp.zeros((n, 1), np.int64)], 1))
        counts.append(xp.abs(b - a).sum(1) + (0 if r else 1))
    return (xp.stack(starts, 1).reshape(-1, 3), xp.stack(steps, 1).reshape(-1, 3),
            xp.stack(counts, 1).reshape(-1))


def _commit(xp, usage, segs: Segments, corners, layers, shape) -> None:
    """Each net's new track use into ``usage``: every node of a run of its (once a net)."""
    L, ny, nx = shape
    starts, steps, counts = [], [], []
    for r in range(3):
        a, b = corners[:, r], corners[:, r + 1]
        length = xp.abs(b - a).sum(1)
        starts.append(xp.concatenate([a, layers[:, r:r + 1]], 1))
        steps.append(xp.concatenate([xp.sign(b - a), xp.zeros((len(a), 1), np.int64)], 1))
        counts.append(xp.where(length > 0, length + 1, 0))
    cells, piece = _ramps(xp, xp.concatenate(starts), xp.concatenate(steps),
                          xp.concatenate(counts))
    net = xp.concatenate([segs.net] * 3)[piece]
    node = (cells[:, 2] * ny + cells[:, 1]) * nx + cells[:, 0]
    node = distinct(xp, net * (L * ny * nx) + node) % (L * ny * nx)
    scatter(xp, "add", usage.reshape(-1), node, xp.ones(len(node), np.int64))


def _points(pins: list[np.ndarray]):
    """Every net's distinct GCells ``(x, y)`` in the order of their first pin, net after
    net, where each net's begin, and the lowest and highest layer of the pins of each."""
    sizes = np.array([len(p) for p in pins], np.int64)
    net = np.repeat(np.arange(len(pins)), sizes)
    nodes = np.concatenate(pins).reshape(-1, 3).astype(np.int64)
    span = int(nodes[:, :2].max(initial=0)) + 1
    key = (net * span + nodes[:, 1]) * span + nodes[:, 0]
    by_key = np.argsort(key, kind="stable")
    new = np.ones(len(key), bool)
    new[1:] = key[by_key][1:] != key[by_key][:-1]
    first = by_key[new]                      # each distinct key's first pin
    inverse = np.empty(len(key), np.int64)
    inverse[by_key] = np.cumsum(new) - 1
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    point = rank[inverse.reshape(-1)]
    xy = nodes[first[order], :2]
    starts = np.searchsorted(net[first[order]], np.arange(len(pins) + 1))
    lo = np.full(len(xy), np.iinfo(np.int64).max)
    hi = np.full(len(xy), -1)
    np.minimum.at(lo, point, nodes[:, 2])
    np.maximum.at(hi, point, nodes[:, 2])
    return xy, starts, lo, hi


def pattern_route(pins: list[np.ndarray], free: np.ndarray, capacity: np.ndarray,
                  directions: tuple[str, ...], via_cost: int, usage: np.ndarray,
                  rounds: int = 16, xp=np, price=None) -> list[PatternNet | None]:
    """Pattern-route every net (see the module's notes).

    Parameters
    ----------
    pins : list of (k, 3) int arrays
        Each net's distinct pin nodes ``(x, y, z)``, on layers that carry wires.
    free, capacity : (L, H, W) arrays
        Where wires may go; each node's capacity in tracks.
    directions : tuple of str
        Each layer's direction (``horizontal``, ``vertical`` or ``any``).
    via_cost : int
        A via's cost in node steps.
    usage : (L, H, W) int64 array
        Each node's use so far; the routes' use is added to it.
    rounds : int
        How many rounds the nets are committed in.
    xp : module
        The array module the shapes are priced on: NumPy, or CuPy for the GPU; both
        give the same routes.
    price : callable, optional
        ``price(usage) -> costs``, each node's cost for one more net (NumPy arrays,
        ``UNIT`` a step with nothing in the way); default :func:`.node_costs`'s.

    Returns
    -------
    list
        Each net's :class:`PatternNet`, or None where its tree has no possible route
        (its use is not added).
    """
    shape, L = free.shape, free.shape[0]
    open_layer = free.reshape(len(free), -1).any(1)     # a layer with a free node
    along_x, along_y = (m & open_layer for m in layer_moves(directions))
    if not pins:
        return []
    if not along_x.any() or not along_y.any():
        return [None] * len(pins)
    tree = _Trees(pins, L)
    rank = np.empty(len(pins), np.int64)
    rank[np.argsort(tree.hpwl, kind="stable")] = np.arange(len(pins))
    net_round = rank * rounds // len(pins)
    n = len(tree.snet)
    first_h, mid = np.zeros(n, bool), np.zeros(n, np.int64)
    layers = np.zeros((n, 3), np.int64)
    stuck = _Blocked(free)
    bad, net_cost = _one_point_nets(tree, len(pins), via_cost * UNIT, stuck)
    dev_usage = xp.asarray(usage)
    dev_cap, dev_free = xp.asarray(capacity), xp.asarray(free)
    kernels = None
    if xp is not np:            # the device's kernels price a launch's shapes at once
        from ..engines.gpu_pattern import PatternKernels
        kernels = PatternKernels()
    for r in range(rounds):
        edges = np.nonzero(net_round[tree.snet] == r)[0]
        if not len(edges):
            continue
        cost = (node_costs(xp, dev_usage, dev_cap, dev_free) if price is None else
                xp.where(dev_free, xp.asarray(price(host(dev_usage))), BLOCK))
        prices = Prices(xp, cost, along_x, along_y, via_cost * UNIT, kernels)
        dp = _RoundDP(xp, tree, edges, prices)
        fh, md, lay, lo, hi, roots, root_cost = dp.solve()
        net_cost[roots] = root_cost
        bad[roots[root_cost >= BLOCK]] = True
        # vias are priced by the layers they cross, not by their nodes: a stack through
        # a blocked node leaves its net to the maze search
        corners = tree.segments(np, edges).corners(fh, md)
        for k in (1, 2):
            bad[tree.snet[edges][stuck.crosses(corners[:, k], lay[:, k - 1], lay[:, k])]] = True
        bad[tree.tnet[dp.points][stuck.crosses(tree.tp[dp.points], lo, hi)]] = True
        good = np.nonzero(~bad[tree.snet[edges]])[0]
        dev_edges = tree.segments(xp, edges[good])
        _commit(xp, dev_usage, dev_edges, dev_edges.corners(xp.asarray(fh[good]),
                                                            xp.asarray(md[good])),
                xp.asarray(lay[good]), shape)
        first_h[edges], mid[edges], layers[edges] = fh, md, lay
    usage[...] = host(dev_usage)
    return _assemble(pins, shape, tree, first_h, mid, layers, bad, net_cost)


def _one_point_nets(tree: _Trees, nets: int, via: int, stuck: _Blocked):
    """Each net's failure flag and cost, set for the nets in one GCell: their pins' via
    stack, impossible through a blocked node."""
    bad = np.zeros(nets, bool)
    net_cost = np.zeros(nets, np.int64)
    alone = np.nonzero(np.bincount(tree.tnet, minlength=nets) == 1)[0]
    only = np.searchsorted(tree.tnet, alone)
    net_cost[alone] = via * (tree.pin_hi[only] - tree.pin_lo[only])
    bad[alone[stuck.crosses(tree.tp[only], tree.pin_lo[only], tree.pin_hi[only])]] = True
    return bad, net_cost


class _Blocked:
    """Where a via stack would cross a blocked node: blocked nodes counted up the
    layers of each GCell."""

    def __init__(self, free: np.ndarray):
        self.below = np.concatenate([np.zeros((1, *free.shape[1:]), np.int64),
                                     np.cumsum(~free, axis=0)])

    def crosses(self, xy: np.ndarray, z0: np.ndarray, z1: np.ndarray) -> np.ndarray:
        lo, hi = np.minimum(z0, z1), np.maximum(z0, z1)
        x, y = xy[:, 0], xy[:, 1]
        return self.below[hi + 1, y, x] > self.below[lo, y, x]


class _Trees:
    """Every net's Steiner tree: its points (``tp``, their nets ``tnet``, whether each
    is a pin point and the layers its pins span), its edges (``snet``, parent ``a``,
    child ``b``, breadth first, each with its parent's depth), each point's depth and
    each net's bounding box's half perimeter."""

    def __init__(self, pins: list[np.ndarray], layers: int):
        xy, starts, zlo, zhi = _points(pins)
        tp, tps, te, tes, depth = steiner_trees(xy, starts)
        n = len(pins)
        count = np.diff(tps)
        self.tp, self.tnet = tp, np.repeat(np.arange(n), count)
        local = np.arange(len(tp)) - np.repeat(tps[:-1], count)
        self.pin = local < np.diff(starts)[self.tnet]
        src = np.where(self.pin, starts[self.tnet] + local, 0)
        # a Steiner point's pins span nothing: any stack holds them
        self.pin_lo = np.where(self.pin, zlo[src], layers)
        self.pin_hi = np.where(self.pin, zhi[src], -1)
        self.snet = np.repeat(np.arange(n), np.diff(tes))
        self.a, self.b = tps[self.snet] + te[:, 0], tps[self.snet] + te[:, 1]
        self.depth = depth
        self.point_depth = np.zeros(len(tp), np.int64)
        self.point_depth[self.b] = depth + 1
        lo = np.minimum.reduceat(xy, starts[:-1], axis=0)
        hi = np.maximum.reduceat(xy, starts[:-1], axis=0)
        self.hpwl = (hi - lo).sum(1)

    def segments(self, xp, at) -> Segments:
        a, b = self.a[at], self.b[at]
        return Segments(xp, *(xp.asarray(v) for v in (self.snet[at], self.tp[a, 0],
                                                      self.tp[a, 1], self.tp[b, 0],
                                                      self.tp[b, 1])))


class _RoundDP:
    """One round's nets' shapes and layers: bottom-up, each edge's cheapest shape for
    every start layer and each point's cost for every stack; top-down, each point's
    stack and each edge's start layer, shape and layers (:mod:`.pattern_tree`)."""

    def __init__(self, xp, tree: _Trees, edges: np.ndarray, prices: Prices):
        self.xp, self.prices, self.L = xp, prices, len(prices.z)
        in_round = np.zeros(len(tree.hpwl), bool)
        in_round[tree.snet[edges]] = True
        self.points = points = np.nonzero(in_round[tree.tnet])[0]
        loc = np.full(len(tree.tp), -1, np.int64)
        loc[points] = np.arange(len(points))
        self.segs = tree.segments(xp, edges)
        self.a_loc, self.b_loc = loc[tree.a[edges]], loc[tree.b[edges]]
        self.e_depth, self.p_depth = tree.depth[edges], tree.point_depth[points]
        self.p_net = tree.tnet[points]
        self.pin_lo = xp.asarray(tree.pin_lo[points])
        self.pin_hi = xp.asarray(tree.pin_hi[points])
        # each depth's edges and points, deepest first, and each point's place in its own
        by_e = np.argsort(self.e_depth, kind="stable")
        by_p = np.argsort(self.p_depth, kind="stable")
        depths = np.arange(int(self.p_depth.max()) + 2)
        e_cut = np.searchsorted(self.e_depth[by_e], depths)
        p_cut = np.searchsorted(self.p_depth[by_p], depths)
        self.levels = [(d, by_e[e_cut[d]:e_cut[d + 1]], by_p[p_cut[d]:p_cut[d + 1]])
                       for d in depths[:-1].tolist()][::-1]
        self.place = np.empty(len(by_p), np.int64)
        self.place[by_p] = np.arange(len(by_p)) - p_cut[self.p_depth[by_p]]
        self.dev = self._on_device([e for _, e, _ in self.levels],
                                   [p for _, _, p in self.levels])

    def _on_device(self, es: list[np.ndarray], ps: list[np.ndarray]) -> list[tuple]:
        """Each level's index arrays on the array module: its edges, their child and
        parent points, the parents' places in their level, its points; one upload a
        kind for the whole round rather than one a level."""
        def cut(parts):
            ends = np.cumsum([0] + [len(v) for v in parts]).tolist()
            whole = self.xp.asarray(np.concatenate(parts).astype(np.int64, copy=False))
            return [whole[a:b] for a, b in zip(ends[:-1], ends[1:])]
        e = np.concatenate(es).astype(np.int64, copy=False)
        at = np.cumsum([len(v) for v in es])[:-1]
        kinds = [cut(np.split(v, at)) for v in (e, self.b_loc[e], self.a_loc[e],
                                                 self.place[self.a_loc[e]])] + [cut(ps)]
        return list(zip(*kinds))

    def solve(self):
        """The edges' shapes (``first_h``, ``mid``) and layers ``(n, 3)``, each point's
        stack (``lo``, ``hi``, the points as :attr:`points` lists them), the round's
        nets and each one's cost (BLOCK or more: no possible route)."""
        xp, L, via = self.xp, self.L, self.prices.via
        n_e, n_p = len(self.a_loc), len(self.p_depth)
        cost = xp.full((n_e, L), INF, np.int64)
        key = xp.zeros((n_e, L), np.int64)
        arrive_cost = xp.full((n_p, L), INF, np.int64)
        tot = xp.full((n_p, L, L), INF, np.int64)
        for (_, e, p), (de, db, _, child_point, dp) in zip(self.levels, self.dev):
            if len(e):
                cost[de], key[de] = best_shapes(self.segs.take(de), self.prices,
                                                arrive_cost[db])
            child_cost = cost[de]
            if self.prices.kernels is not None:
                t = xp.zeros((len(p), L, L), np.int64)
                arrive_cost[dp] = self.prices.kernels.junctions(
                    t, child_cost, child_point, self.pin_lo[dp], self.pin_hi[dp], via)
                tot[dp] = t
            else:
                t = junction_costs(xp, len(p), L, child_point, child_cost, self.pin_lo[dp],
                                   self.pin_hi[dp], via)
                tot[dp], arrive_cost[dp] = t, arrivals(xp, t)
        root = np.nonzero(self.p_depth == 0)[0]
        best = host(tot[xp.asarray(root)].reshape(len(root), -1).min(axis=1))
        return (*self._down(cost, key, tot, arrive_cost), self.p_net[root], best)

    def _down(self, cost, key, tot, arrive_cost):
        xp, kernels = self.xp, self.prices.kernels
        n_e, n_p = len(self.a_loc), len(self.p_depth)
        arrive = xp.zeros(n_p, np.int64)
        lo, hi = xp.zeros(n_p, np.int64), xp.zeros(n_p, np.int64)
        first_h, mid = xp.zeros(n_e, np.uint8), xp.zeros(n_e, np.int64)
        layers = xp.zeros((n_e, 3), np.int64)
        if kernels is not None:
            dev_a, dev_b = xp.asarray(self.a_loc), xp.asarray(self.b_loc)
            ends = tuple(xp.ascontiguousarray(v) for v in (self.segs.xa, self.segs.ya,
                                                            self.segs.xb, self.segs.yb))
        for (d, e, _), (de, b, a, _, dp) in zip(reversed(self.levels), reversed(self.dev)):
            lo[dp], hi[dp] = pick(xp, tot[dp], None if d == 0 else arrive[dp])
            if not len(e):
                continue
            if kernels is not None:
                kernels.down(self.prices.ph, self.prices.pv, *self.prices.along,
                             self.prices.via, de, ends, dev_a, dev_b, lo, hi, cost,
                             key, arrive_cost, first_h, mid, layers, arrive)
                continue
            z1 = start_layers(xp, cost[de], lo[a], hi[a])
            k = xp.take_along_axis(key[de], z1[:, None], axis=1)[:, 0]
            segs = self.segs.take(de)
            fh, md = shape_of(segs, k)
            c1, c2, c3 = segs.runs(self.prices, fh, xp.arange(len(e)), md)
            _, t2, t3 = self.prices.back(c1, c2, c3, arrive_cost[b])
            z2, z3 = self.prices.forward(z1, t2, t3)
            arrive[b] = z3
            first_h[de], mid[de] = fh, md
            layers[de] = xp.stack([z1, z2, z3], axis=1)
        return (host(first_h).astype(bool), host(mid), host(layers), host(lo), host(hi))


def _xyz(node: np.ndarray, shape) -> np.ndarray:
    _, ny, nx = shape
    return np.stack([node % nx, node // nx % ny, node // (nx * ny)], 1)


def _by_net(key: np.ndarray, nn: int, nets: int, shape) -> list[np.ndarray]:
    """Sorted keys ``net * nn + node`` as each net's nodes ``(k, 3)``."""
    cut = np.searchsorted(key // nn, np.arange(nets + 1))
    nodes = _xyz(key % nn, shape)
    return [nodes[cut[k]:cut[k + 1]] for k in range(nets)]


def _assemble(pins, shape, tree: _Trees, first_h, mid, layers, bad, net_cost
              ) -> list[PatternNet | None]:
    """The routed nets' paths (each shape's, then each tree point's via stack across the
    layers its pins and shapes end on), nodes, track-taking nodes, steps and vias."""
    nets, nn = len(pins), int(np.prod(shape))
    keep = np.nonzero(~bad[tree.snet])[0]
    s, lay, a, b = tree.segments(np, keep), layers[keep], tree.a[keep], tree.b[keep]
    tp, tnet, pin = tree.tp, tree.tnet, tree.pin
    starts, steps, counts = _path_pieces(np, s.corners(first_h[keep], mid[keep]), lay)
    seg_cells, piece = _ramps(np, starts, steps, counts)
    lo = np.where(pin, tree.pin_lo, np.iinfo(np.int64).max)
    hi = np.where(pin, tree.pin_hi, -1)
    for end, z in ((a, lay[:, 0]), (b, lay[:, 2])):
        np.minimum.at(lo, end, z)
        np.maximum.at(hi, end, z)
    stack = np.nonzero((hi > lo) & ~bad[tnet])[0]
    stack_cells, piece2 = _ramps(np, np.column_stack([tp[stack], lo[stack]]),
                                 np.tile(np.array([[0, 0, 1]], np.int64), (len(stack), 1)),
                                 hi[stack] - lo[stack] + 1)
    cells = np.concatenate([seg_cells, stack_cells])
    path = np.concatenate([piece // 5, len(keep) + piece2])
    path_net = np.concatenate([s.net, tnet[stack]])
    node = (cells[:, 2] * shape[1] + cells[:, 1]) * shape[2] + cells[:, 0]
    cell_net = path_net[path]
    # the distinct edges of each net: its steps along layers and its vias
    same = path[1:] == path[:-1]
    u, v, enet = node[:-1][same], node[1:][same], cell_net[:-1][same]
    via = cells[:-1, 2][same] != cells[1:, 2][same]
    e_lo, e_hi = np.minimum(u, v), np.maximum(u, v)
    order = np.lexsort((e_hi, e_lo, enet))
    e = np.stack([enet, e_lo, e_hi], 1)[order]
    new = np.ones(len(e), bool)
    new[1:] = (e[1:] != e[:-1]).any(1)
    n_steps = np.bincount(e[new & ~via[order], 0], minlength=nets)
    n_vias = np.bincount(e[new & via[order], 0], minlength=nets)
    along = ~via
    wired = _by_net(distinct(np, np.concatenate([enet[along] * nn + u[along],
                                              enet[along] * nn + v[along]])),
                    nn, nets, shape)
    # each net's nodes, its pins first in their order
    sizes = np.array([len(p) for p in pins], np.int64)
    pin_net, pin_place = piece_places(np, sizes)
    pn = np.concatenate(pins).reshape(-1, 3).astype(np.int64)
    pin_node = (pn[:, 2] * shape[1] + pn[:, 1]) * shape[2] + pn[:, 0]
    key = np.concatenate([cell_net * nn + node, pin_net * nn + pin_node])
    pri = np.concatenate([np.full(len(node), len(pn)), pin_place])
    order = np.lexsort((pri, key))
    key, pri = key[order], pri[order]
    first = np.ones(len(key), bool)
    first[1:] = key[1:] != key[:-1]
    key, pri = key[first], pri[first]
    key = key[np.lexsort((key, pri, key // nn))]
    cut = np.searchsorted(key // nn, np.arange(nets + 1))
    all_nodes = _xyz(key % nn, shape)
    # each net's paths, sliced from the cells (paths are consecutive, numbered in order)
    bounds = np.concatenate([[0], np.nonzero(np.diff(path))[0] + 1, [len(path)]]).tolist()
    by_net = np.argsort(path_net, kind="stable")
    p_cut = np.searchsorted(path_net[by_net], np.arange(nets + 1)).tolist()
    by_net = by_net.tolist()
    out: list[PatternNet | None] = []
    for k in range(nets):
        if bad[k]:
            out.append(None)
            continue
        paths = [cells[bounds[j]:bounds[j + 1]] for j in by_net[p_cut[k]:p_cut[k + 1]]]
        out.append(PatternNet(all_nodes[cut[k]:cut[k + 1]], paths, wired[k], int(n_steps[k]),
                              int(n_vias[k]), int(net_cost[k])))
    return out
