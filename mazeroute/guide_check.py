"""Every net's route guides checked at once: whether they form one connected piece and
whether they cover each of the net's pins, as :mod:`mazeroute.evaluate` judges them one
net at a time (its ``pieces`` and pin cover), here for all nets together so that a
design of many thousand nets is checked in array operations.

A guide is a block of GCells on one layer level. Two GCells of a net's guides join when
they are side by side on one level or one above the other on adjacent levels: the
GCells of one block join, and two blocks join exactly when :func:`evaluate.pieces`
joins them (overlapping or sharing a side on one level, overlapping on adjacent ones).
A pin is covered when a guide on its shape's level or above overlaps a GCell of one of
its shapes.

Examples
--------
>>> boxes = np.array([[2, 0, 0, 3, 0], [3, 3, 0, 3, 4], [2, 0, 2, 0, 2]])
>>> one_piece(np.array([0, 0, 1]), boxes, 2).tolist()
[True, True]
>>> one_piece(np.array([0, 0, 0]), boxes, 1).tolist()
[False]
"""

from __future__ import annotations

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from .engines.base import block_cells

__all__ = ["box_cells", "one_piece", "covered"]


def box_cells(net: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    """Every GCell of every box as rows ``(net, level, x, y)``, each once.

    ``boxes`` holds rows ``(level, x0, y0, x1, y1)``, ``net`` each box's net.
    """
    if not len(boxes):
        return np.zeros((0, 4), np.int64)
    box, y, x = block_cells(boxes, boxes[:, 4] - boxes[:, 2] + 1, boxes[:, 3] - boxes[:, 1] + 1)
    return np.unique(np.stack([net[box], boxes[box, 0], x, y], 1), axis=0)


def _keys(cells: np.ndarray, span: np.ndarray) -> np.ndarray:
    """One integer a cell, ordered as the rows ``(net, level, x, y)`` sort."""
    key = cells[:, 0]
    for c in range(1, 4):
        key = key * span[c] + cells[:, c]
    return key


def one_piece(net: np.ndarray, boxes: np.ndarray, nets: int) -> np.ndarray:
    """For each of ``nets`` nets, whether its boxes form one connected piece (a net
    without boxes does not).

    Parameters
    ----------
    net : (k,) int array
        Each box's net, in ``0 .. nets - 1``.
    boxes : (k, 5) int array
        Rows ``(level, x0, y0, x1, y1)`` of GCells.
    nets : int
        How many nets.

    Returns
    -------
    (nets,) bool array
    """
    cells = box_cells(np.asarray(net, np.int64), np.asarray(boxes, np.int64).reshape(-1, 5))
    out = np.zeros(nets, bool)
    if not len(cells):
        return out
    span = cells.max(0) + 2                  # room for a neighbour one past the last
    key = _keys(cells, span)                 # sorted, as the cells are
    src, dst = [], []
    for c in (1, 2, 3):                      # the next level, the next x, the next y
        step = cells.copy()
        step[:, c] += 1
        nk = _keys(step, span)
        at = np.minimum(np.searchsorted(key, nk), len(key) - 1)
        hit = key[at] == nk
        src.append(np.nonzero(hit)[0])
        dst.append(at[hit])
    a, b = np.concatenate(src), np.concatenate(dst)
    graph = coo_matrix((np.ones(len(a), np.int8), (a, b)), shape=(len(key), len(key)))
    _, label = connected_components(graph, directed=False)
    pairs = np.unique(np.stack([cells[:, 0], label], 1), axis=0)
    count = np.bincount(pairs[:, 0], minlength=nets)
    out[:] = count == 1
    return out


def covered(cells: np.ndarray, shapes: np.ndarray) -> np.ndarray:
    """Whether each pin shape is covered by the guides' GCells ``cells``.

    Parameters
    ----------
    cells : (c, 4) int array
        The guides' GCells ``(net, level, x, y)`` (:func:`box_cells`).
    shapes : (s, 6) int array
        Rows ``(net, level, x0, y0, x1, y1)``: a shape's level and the GCells it covers.

    Returns
    -------
    (s,) bool array
        A shape is covered when some GCell of it holds a guide of its net on its level or
        above.
    """
    shapes = np.asarray(shapes, np.int64).reshape(-1, 6)
    if not len(cells) or not len(shapes):
        return np.zeros(len(shapes), bool)
    # the highest level of each net's guides at each (x, y)
    span = np.maximum(cells[:, [0, 2, 3]].max(0), shapes[:, [0, 4, 5]].max(0)) + 1
    flat = (cells[:, 0] * span[1] + cells[:, 2]) * span[2] + cells[:, 3]
    order = np.argsort(flat, kind="stable")
    flat, level = flat[order], cells[order, 1]
    starts = np.nonzero(np.r_[True, flat[1:] != flat[:-1]])[0]
    where, top = flat[starts], np.maximum.reduceat(level, starts)
    s, y, x = block_cells(shapes[:, 1:], shapes[:, 5] - shapes[:, 3] + 1,
                          shapes[:, 4] - shapes[:, 2] + 1)
    q = (shapes[s, 0] * span[1] + x) * span[2] + y
    at = np.minimum(np.searchsorted(where, q), len(where) - 1)
    hit = (where[at] == q) & (top[at] >= shapes[s, 1])
    return np.bincount(s[hit], minlength=len(shapes)) > 0
