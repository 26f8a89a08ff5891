"""The pieces of multi-layer routing (:mod:`.layered`): a stack's rules, a net's tree
grown by the 3-D searches, and the board of free cells, pins and committed wires.

Examples
--------
>>> rules = Rules(("horizontal", "vertical"), 2, None, False)
>>> t = grow_tree(rules, np.ones((2, 2, 3), bool), [(0, 0, 0), (2, 1, 1)])
>>> t.cells.tolist(), t.vias, t.bends
([[0, 0, 0], [1, 0, 0], [2, 0, 0], [2, 0, 1], [2, 1, 1]], 1, 0)
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from ..backtrace import backtrace
from ..engines.grid3d import UNREACHED, backtrace3d, bfs3d, stack_arrays, trace3d, weighted3d
from ..layout import Layout
from .negotiation.explain import names
from .result import NetRoute, RouteResult
from .sequential import net_order

__all__ = ["Rules", "Tree", "Growth", "grow_tree", "open_pins", "path_counts", "Board", "CUT_OFF",
           "net_route", "route_sequential"]

#: Why a net is unrouted when even other nets' wires would not connect its pins.
CUT_OFF = "cut off from its pins by blockages and other nets' pins"

#: What crossing another net's wire costs, in cells, in the search that names the wires
#: walling an unrouted net off: dear enough that the path crosses as few as it can.
_WALL_COST = 1024


@dataclass(frozen=True)
class Rules:
    """A stack's routing rules as the 3-D engines take them.

    Parameters
    ----------
    directions : tuple of str
        Each layer's direction.
    via_cost : int
        A via's price in cell steps.
    via_sites : (H, W) or (L - 1, H, W) bool array, or None
        Where vias may go (every adjacent pair, or pair by pair), as the engines take it.
    flat : bool
        Whether the stack is one layer whose wires run both ways (the 2-D layout).
    """

    directions: tuple[str, ...]
    via_cost: int
    via_sites: np.ndarray | None
    flat: bool

    @classmethod
    def of(cls, layout: Layout) -> Rules:
        """The rules of ``layout``'s stack."""
        st = layout.stack
        return cls(st.directions, int(st.via_cost), st.via_sites,
                   st.directions == ("any",))

    def kwargs(self) -> dict:
        """The engines' keyword arguments."""
        return {"directions": self.directions, "via_cost": self.via_cost,
                "via_sites": self.via_sites}

    def crop(self, x0: int, y0: int, w: int, h: int) -> Rules:
        """The rules of the box ``x0, y0, w, h`` (every layer) of the grid."""
        if self.via_sites is None:
            return self
        sites = np.asarray(self.via_sites)[..., y0:y0 + h, x0:x0 + w]
        return Rules(self.directions, self.via_cost, sites, self.flat)


@dataclass
class Tree:
    """A net's tree as :func:`grow_tree` grew it: its cells (the first pin, then each
    branch from the cell beside the tree out to the pin it reaches), the sum of its
    searches' target distances, its bends and vias, the pins it could not reach, and
    each branch's path (pin first, ending on the tree cell it joins: its edges)."""

    cells: np.ndarray
    levels: int = 0
    bends: int = 0
    vias: int = 0
    missing: list[tuple[int, int, int]] = field(default_factory=list)
    paths: list[np.ndarray] = field(default_factory=list, repr=False)

    @property
    def routed(self) -> bool:
        """Whether every pin was reached."""
        return not self.missing


def grow_tree(rules: Rules, free: np.ndarray | None, pins, cost: np.ndarray | None = None,
              search: Callable | None = None) -> Tree:
    """Connect ``pins`` one at a time, each search from the tree so far to the nearest
    remaining pin (the first listed among equals), and its shortest path backtraced.

    Parameters
    ----------
    rules : Rules
        The stack's rules.
    free : (L, H, W) bool array
        Cells the net may use; its pins among them (unused with ``search``).
    pins : (k, 3) array_like of int
        The net's pins ``(x, y, z)``, the root first.
    cost : (L, H, W) int array, optional
        Entry costs (the weighted search); None: unit steps (BFS).
    search : callable, optional
        ``search(sources, targets) -> (dist, x0, y0)``: the distances of a box of the
        grid at ``x0, y0`` (every layer) that are the grid's for the nearest target and
        every cell behind it; default the CPU engines over ``free``.

    Returns
    -------
    Tree
        What was grown; ``missing`` lists the pins no search reached.

    Examples
    --------
    >>> rules = Rules(("any", "any"), 1, None, False)
    >>> free = np.ones((2, 1, 3), bool); free[0, 0, 1] = False
    >>> t = grow_tree(rules, free, [(0, 0, 0), (2, 0, 0)])
    >>> t.cells.tolist(), t.levels, t.vias
    ([[0, 0, 0], [0, 0, 1], [1, 0, 1], [2, 0, 1], [2, 0, 0]], 4, 2)
    """
    growth = Growth(pins)
    while not growth.done:
        sources, remaining = growth.sources(), growth.remaining
        if search is not None:
            dist, x0, y0 = search(sources, remaining)
        elif cost is None:
            dist, x0, y0 = bfs3d(free, sources, targets=remaining, **rules.kwargs()), 0, 0
        else:
            dist, x0, y0 = weighted3d(cost, sources, remaining, free=free,
                                      **rules.kwargs()), 0, 0
        growth.step(rules, dist, x0, y0, cost)
    return growth.finish()


class Growth:
    """A tree being grown by :func:`grow_tree`, one search at a time, so that a batch
    of nets can step theirs together: the searches' sources and targets, and what each
    search's distances add.

    Parameters
    ----------
    pins : (k, 3) array_like of int
        The net's pins, the root first.
    """

    def __init__(self, pins):
        pins = np.asarray(pins, np.int64).reshape(-1, 3)
        self.tree = Tree(pins[:1].copy())
        self.branches = [pins[:1]]
        self.remaining = [tuple(int(v) for v in p) for p in pins[1:]]
        self.done = not self.remaining

    def sources(self) -> np.ndarray:
        """The tree's cells so far: the next search's sources."""
        return np.concatenate(self.branches)

    def step(self, rules: Rules, dist: np.ndarray, x0: int, y0: int,
             cost: np.ndarray | None) -> None:
        """Take the nearest remaining pin (the first listed among equals) by ``dist``,
        a box of the grid at ``x0, y0`` exact for it, and backtrace its branch; or, none
        reached, end with the remaining pins missing."""
        remaining = self.remaining
        reach = [int(dist[z, y - y0, x - x0]) for x, y, z in remaining]
        best = int(np.argmin(reach))
        if reach[best] == UNREACHED:
            self.miss()
            return
        x, y, z = remaining[best]
        _, h, w = dist.shape
        box = None if cost is None else cost[:, y0:y0 + h, x0:x0 + w]
        path = _trace(rules.crop(x0, y0, w, h), dist, (x - x0, y - y0, z), box)
        path[:, 0] += x0
        path[:, 1] += y0
        self.take(best, reach[best], path, *path_counts(path))

    def take(self, k: int, level: int, path: np.ndarray, vias: int, bends: int) -> None:
        """Join remaining pin ``k``, ``level`` away, by ``path`` (its cells, the pin
        first, ending on the tree), of ``vias`` vias and ``bends`` bends."""
        tree = self.tree
        self.remaining.pop(k)
        tree.levels += level
        tree.vias += vias
        tree.bends += bends
        tree.paths.append(path)
        self.branches.append(path[:-1][::-1])   # the last cell is in the tree already
        self.done = not self.remaining

    def miss(self) -> None:
        """End with the remaining pins missing: no search reaches them."""
        self.tree.missing = list(self.remaining)
        self.done = True

    def finish(self) -> Tree:
        """The grown tree."""
        self.tree.cells = np.concatenate(self.branches)
        return self.tree


def _trace(rules: Rules, dist: np.ndarray, target, cost) -> np.ndarray:
    """The backtrace of ``target``: target first, a source last."""
    x, y, z = target
    if rules.flat and cost is None:
        xy = backtrace(dist[0], (x, y))
        return np.column_stack([xy, np.zeros(len(xy), np.int64)]).astype(np.int64)
    if rules.via_sites is not None:
        return backtrace3d(dist, target, cost=cost, **rules.kwargs())
    # every via allowed: the engines' arrays depend on the window's shape alone, and a
    # router traces thousands of windows of few shapes
    axes, vias = _open_stack(rules.directions, *dist.shape)
    return trace3d(dist, target, axes, vias, rules.via_cost, cost)


@lru_cache(maxsize=256)
def _open_stack(directions: tuple[str, ...], layers: int, h: int, w: int) -> tuple:
    """The axes and via mask of a ``(layers, h, w)`` box with every via allowed."""
    _, axes, vias = stack_arrays(np.ones((layers, h, w), bool), directions, None)
    vias.flags.writeable = False
    return axes, vias


def path_counts(path: np.ndarray) -> tuple[int, int]:
    """The vias of a path of cells ``(x, y, z)``, and its bends: consecutive steps
    inside a layer along different directions (a via between two steps is a via only).

    >>> path_counts(np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [1, 1, 1], [1, 2, 1]]))
    (1, 1)
    """
    moves = np.diff(np.asarray(path, np.int64).reshape(-1, 3), axis=0)
    if len(moves) == 0:
        return 0, 0
    via = moves[:, 2] != 0
    turn = (moves[1:] != moves[:-1]).any(axis=1) & ~via[1:] & ~via[:-1]
    return int(via.sum()), int(turn.sum())


class Board:
    """A multi-layer layout's cells as routing sees them: the free mask with every pin
    blocked, the pins of each net, and the wires committed so far.

    Parameters
    ----------
    layout : Layout
        A layout with a stack.
    """

    def __init__(self, layout: Layout):
        self.layout = layout
        self.rules = Rules.of(layout)
        self.shape = layout.blocked.shape
        self.pins = [np.asarray(n.pins, np.int64).reshape(-1, 3) for n in layout.nets]
        self.pin_owner = np.full(self.shape, -1, np.int32)
        for i, p in enumerate(self.pins):
            self.pin_owner[p[:, 2], p[:, 1], p[:, 0]] = i
        self.open = ~layout.blocked & (self.pin_owner < 0)
        #: The net of each committed wire's cells (-1: none).
        self.wire = np.full(self.shape, -1, np.int32)

    def free_for(self, i: int, wires: bool = True) -> np.ndarray:
        """The cells net ``i`` may use: free, not another net's pin and (``wires``) not
        another net's committed wire."""
        _, h, w = self.shape
        return self.free_in(i, wires, 0, 0, w, h)

    def free_in(self, i: int, wires: bool, x0: int, y0: int, x1: int, y1: int) -> np.ndarray:
        """:meth:`free_for` of the box ``x0 <= x < x1``, ``y0 <= y < y1`` (every layer)."""
        free = self.open[:, y0:y1, x0:x1].copy()
        if wires:
            free &= self.wire[:, y0:y1, x0:x1] < 0
        return open_pins(free, self.pins[i], x0, y0)

    def commit(self, i: int, cells: np.ndarray) -> None:
        """Block ``cells`` as net ``i``'s wire for every later net."""
        self.wire[cells[:, 2], cells[:, 1], cells[:, 0]] = i

    def uncommit(self, i: int, cells: np.ndarray) -> None:
        """Free the ``cells`` of net ``i``'s wire that it still holds."""
        at = (cells[:, 2], cells[:, 1], cells[:, 0])
        held = self.wire[at] == i
        self.wire[tuple(a[held] for a in at)] = -1

    def _walls(self, visible: np.ndarray | None) -> np.ndarray:
        """The cells of the committed wires of the nets ``visible`` marks (all: None)."""
        wired = self.wire >= 0
        if visible is not None:
            wired &= np.asarray(visible, bool)[np.maximum(self.wire, 0)]
        return wired

    def wall_cost(self, visible: np.ndarray | None = None) -> np.ndarray:
        """Entry costs that let a search cross committed wires (of the nets ``visible``
        marks; None: all) at a high price (the search that names the wires walling a net
        off)."""
        cost = np.ones(self.shape, np.int64)
        cost[self._walls(visible)] = _WALL_COST
        return cost

    def reason(self, i: int, tree: Tree, visible: np.ndarray | None = None) -> str:
        """Why net ``i`` has no route, in words, from ``tree``: its tree grown through
        the wires of the nets ``visible`` marks (None: all) on :meth:`wall_cost`."""
        if not tree.routed:
            return CUT_OFF
        c = tree.cells
        walls = self._walls(visible)[c[:, 2], c[:, 1], c[:, 0]]
        walls = set(self.wire[c[:, 2], c[:, 1], c[:, 0]][walls].tolist()) - {i}
        return "walled off by the wires of nets " + names(self.layout, walls)


def open_pins(free: np.ndarray, pins: np.ndarray, x0: int, y0: int) -> np.ndarray:
    """``free``, the box of a grid at ``x0, y0`` (every layer), with the ``pins``
    ``(x, y, z)`` that lie inside it made free (in place); returns it."""
    _, h, w = free.shape
    inside = (pins[:, 0] >= x0) & (pins[:, 0] < x0 + w) & (pins[:, 1] >= y0) & \
        (pins[:, 1] < y0 + h)
    q = pins[inside]
    free[q[:, 2], q[:, 1] - y0, q[:, 0] - x0] = True
    return free


def net_route(board: Board, i: int, tree: Tree | None, order: int | None,
              seconds: float) -> NetRoute:
    """Net ``i``'s :class:`NetRoute` of ``tree`` (None or not routed: an unrouted net,
    whose reason the caller sets)."""
    net = board.layout.nets[i]
    r = NetRoute(net.name, list(net.pins), seconds=seconds)
    if tree is not None:
        r.levels = tree.levels
    if tree is not None and tree.routed:
        r.routed, r.order = True, order
        r.cells = [tuple(c) for c in tree.cells.tolist()]
        r.bends, r.vias = tree.bends, tree.vias
        r.length = len(tree.cells) - 1 - tree.vias
    return r


def route_sequential(layout: Layout, order: str = "file",
                     progress: Callable[[int, int, NetRoute], None] | None = None,
                     backend: str = "cpu", kernels=None) -> RouteResult:
    """Sequential mode of :func:`route_layered` (``progress(done, total, net_route)``
    after each net, in order), its searches on ``backend``'s engines
    (:mod:`.layered_search`; ``kernels``: the GPU's sweeps, for tests): one net at a
    time on the CPU, many nets a launch on the GPU (:mod:`.layered_flow`), the same
    routes."""
    from .layered_flow import make_flow
    from .layered_search import make_trees

    start = time.perf_counter()
    board = Board(layout)
    trees = make_trees(board, backend, kernels)
    sequence = net_order(layout, order)
    flow = make_flow(trees, sequence)
    rank = np.empty(len(layout.nets), np.int64)
    rank[sequence] = np.arange(len(sequence))
    results: dict[int, NetRoute] = {}
    committed = 0

    def final(p: int) -> None:
        nonlocal committed
        i, tree = sequence[p], flow.tree[p]
        r = net_route(board, i, tree, committed, float(flow.seconds[p]))
        committed += tree.routed
        if not tree.routed:
            t0 = time.perf_counter()
            r.reason = trees.why_unrouted(i, rank < p)
            r.seconds += time.perf_counter() - t0
        results[i] = r
        if progress:
            progress(len(results), len(sequence), r)

    flow.run(final)
    nets = [results[i] for i in range(len(layout.nets))]
    return RouteResult(layout, nets, trees.engine, order, time.perf_counter() - start)
