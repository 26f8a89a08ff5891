"""A global route's trees as route guides (the ISPD 2018 / OpenROAD format), every net at
once: each path's runs along one layer, the runs of one line of one layer that share a
GCell merged into one rectangle, and every other node of the tree (a pin, a via stack's
GCell) not inside one of those its own GCell's rectangle.

Examples
--------
>>> from mazeroute.gcells import GCellGrid
>>> from mazeroute.readers.lefdef import RoutingLayer
>>> layers = tuple(RoutingLayer(n, k + 1, d, 10, 4, 4, 5) for k, (n, d) in
...                enumerate((("m1", "HORIZONTAL"), ("m2", "VERTICAL"))))
>>> grid = GCellGrid(np.arange(0, 400, 100), np.arange(0, 400, 100), 100, layers, 1, 2,
...                  None, None, None, None)
>>> path = np.array([[0, 0, 0], [1, 0, 0], [1, 0, 1], [1, 1, 1]])
>>> tree = NetTree(path, 2, 1, True, paths=[path])
>>> guides_of({"n": tree}, grid)["n"]
[(0, 0, 200, 100, 'm1'), (100, 0, 200, 200, 'm2')]
"""

from __future__ import annotations

import numpy as np

from ..engines.base import block_cells
from ..gcells import GCellGrid
from .groute import NetTree, flat_paths

__all__ = ["guides_of", "guide_rects"]

Rect = tuple[int, int, int, int, str]


def guides_of(trees: dict[str, NetTree], grid: GCellGrid) -> dict[str, list[Rect]]:
    """Each routed tree's guides, in DBU, as ``(x0, y0, x1, y1, layer)``: its merged runs
    by layer, axis and line, then its other nodes' GCells by ``(x, y, layer)``.

    Parameters
    ----------
    trees : dict of str to NetTree
        The nets' trees (a tree not routed has no guides and no entry).
    grid : GCellGrid
        The GCells' bounds and the layers' names and directions.

    Returns
    -------
    dict of str to list of tuple
        Each routed net's guide rectangles.
    """
    names = [n for n, t in trees.items() if t.routed]
    chosen = [trees[n] for n in names]
    if not chosen:
        return {}
    cells, path, owner = flat_paths(chosen)
    runs = _runs(cells, path, owner, grid)
    boxes = _merged(runs)
    singles = _uncovered(chosen, np.column_stack([owner[path], cells]), boxes)
    # the merged runs first, then the single GCells; each net's rows together
    rows = np.concatenate([boxes, singles])
    order = np.lexsort((np.arange(len(rows)), rows[:, 0]))
    rows = rows[order]
    xs, ys = grid.xs, grid.ys
    layer = [lay.name for lay in grid.layers]
    table = np.column_stack([rows[:, 0], xs[rows[:, 1]], ys[rows[:, 2]], xs[rows[:, 3] + 1],
                             ys[rows[:, 4] + 1], rows[:, 5]]).tolist()
    cut = np.searchsorted(rows[:, 0], np.arange(len(chosen) + 1)).tolist()
    return {n: [(x0, y0, x1, y1, layer[z]) for _, x0, y0, x1, y1, z in table[cut[k]:cut[k + 1]]]
            for k, n in enumerate(names)}


def _runs(cells: np.ndarray, path: np.ndarray, owner: np.ndarray, grid: GCellGrid
          ) -> np.ndarray:
    """Every path's runs on one layer as rows ``(net, z, horizontal, line, lo, hi)``."""
    if not len(cells):
        return np.zeros((0, 6), np.int64)
    start = np.ones(len(cells), bool)
    start[1:] = (path[1:] != path[:-1]) | (cells[1:, 2] != cells[:-1, 2])
    first = np.nonzero(start)[0]
    z = cells[first, 2]
    horizontal = np.array([lay.direction == "HORIZONTAL" for lay in grid.layers])[z]
    along = np.where(horizontal[np.repeat(np.arange(len(first)), np.diff(
        np.r_[first, len(cells)]))], cells[:, 0], cells[:, 1])
    line = np.where(horizontal, cells[first, 1], cells[first, 0])
    return np.column_stack([owner[path[first]], z, horizontal, line,
                            np.minimum.reduceat(along, first),
                            np.maximum.reduceat(along, first)])


def _merged(runs: np.ndarray) -> np.ndarray:
    """The runs of one net, layer, axis and line that share a GCell merged, as boxes
    ``(net, x0, y0, x1, y1, z)`` in the order (net, z, axis, line, lo)."""
    if not len(runs):
        return np.zeros((0, 6), np.int64)
    order = np.lexsort((runs[:, 5], runs[:, 4], runs[:, 3], runs[:, 2], runs[:, 1],
                        runs[:, 0]))
    r = runs[order]
    group = np.ones(len(r), bool)
    group[1:] = (r[1:, :4] != r[:-1, :4]).any(1)
    gid = np.cumsum(group) - 1
    # the furthest end so far in the group: a run starts a new box past it
    span = int(r[:, 5].max()) + 2
    reach = np.maximum.accumulate(gid * span + r[:, 5]) - gid * span
    new = group.copy()
    new[1:] |= r[1:, 4] > reach[:-1]
    first = np.nonzero(new)[0]
    lo, hi = r[first, 4], np.maximum.reduceat(r[:, 5], first)
    net, z, horiz, line = r[first, 0], r[first, 1], r[first, 2].astype(bool), r[first, 3]
    x0, x1 = np.where(horiz, lo, line), np.where(horiz, hi, line)
    y0, y1 = np.where(horiz, line, lo), np.where(horiz, line, hi)
    return np.column_stack([net, x0, y0, x1, y1, z])


def _uncovered(trees: list[NetTree], on_paths: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    """Each tree's nodes (pins and via stacks included) and its paths' cells
    ``on_paths`` (rows ``(net, x, y, z)``) outside its boxes, as one-GCell boxes
    ``(net, x, y, x, y, z)`` in the order (net, x, y, z)."""
    sizes = [len(t.cells) for t in trees]
    nodes = np.concatenate([np.asarray(t.cells, np.int64).reshape(-1, 3) for t in trees])
    net = np.repeat(np.arange(len(trees)), sizes)
    b, y, x = block_cells(boxes, boxes[:, 4] - boxes[:, 2] + 1, boxes[:, 3] - boxes[:, 1] + 1)
    inside = np.column_stack([boxes[b, 0], x, y, boxes[b, 5]])
    mine = np.concatenate([np.column_stack([net, nodes]), on_paths])
    radix = tuple((np.maximum(mine.max(0), inside.max(0, initial=0)) + 1).tolist())
    key = np.unique(np.ravel_multi_index(tuple(mine.T), radix))
    left = key[~np.isin(key, np.ravel_multi_index(tuple(inside.T), radix))]
    net, x, y, z = np.unravel_index(left, radix)
    return np.column_stack([net, x, y, x, y, z])


def guide_rects(tree: NetTree, grid: GCellGrid) -> list[Rect]:
    """One tree's guides (:func:`guides_of`); none for a tree not routed."""
    return guides_of({"": tree}, grid).get("", [])
