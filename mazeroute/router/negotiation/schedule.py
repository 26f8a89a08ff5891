"""Negotiation's schedule: the order nets are routed in, and its cut into batches.

Nets go smallest pin box first (``hpwl``); the nets rerouted in an iteration are then
taken by first-fit colour of their boxes' overlap (``reroute_order = "colour"``,
:func:`colour_order`), and the order is cut into batches of boxes that may be searched
together (:func:`batches`).

Examples
--------
>>> boxes = np.array([[0, 0, 9, 9], [8, 0, 17, 9], [16, 0, 25, 9]])
>>> colour_order(boxes, (10, 30)).tolist()
[0, 2, 1]
>>> [b.tolist() for b in batches(boxes[[0, 2, 1]], (10, 30))]
[[0, 1], [2]]
"""

from __future__ import annotations

from collections.abc import Sequence

import numba
import numpy as np

from ...engines.weighted import box_colours, box_levels

__all__ = ["batches", "colour_order", "as_short_as_can_be", "hpwl_order", "reroute_order",
           "wire_groups", "packed_wire_groups", "WIRE_COLOURS"]

#: Colours that :func:`wire_groups` gives (bits of an int64 a cell); a net that finds
#: every one taken on its wire is a group of its own.
WIRE_COLOURS = 62


def hpwl_order(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Routing order within an iteration: smallest pin box first, then file order.

    Parameters
    ----------
    lo, hi : (n, 2) int64 corners of each net's pin box

    Returns
    -------
    numpy.ndarray
        The nets, int64, in routing order.

    Examples
    --------
    >>> hpwl_order(np.array([[0, 0], [0, 0]]), np.array([[5, 5], [1, 1]])).tolist()
    [1, 0]
    """
    n = len(lo)
    hpwl = (hi - lo).sum(axis=1)
    return np.lexsort((np.arange(n), hpwl)) if n else np.zeros(0, np.int64)


def colour_order(boxes: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """The positions ``0..len(boxes)-1`` by first-fit colour
    (:func:`~mazeroute.engines.weighted.box_colours`), then position: an order that
    routes the same nets as one after another, each after every overlapping box placed
    before it, in as few calls of disjoint boxes as first-fit colouring finds.

    Parameters
    ----------
    boxes : (n, 4) boxes ``(x0, y0, x1, y1)``, inclusive
    shape : the grid's ``(H, W)``

    Returns
    -------
    numpy.ndarray
        The positions, in the new order.

    Examples
    --------
    >>> colour_order(np.array([[0, 0, 9, 9], [8, 0, 17, 9], [16, 0, 25, 9]]), (10, 30)).tolist()
    [0, 2, 1]
    """
    return np.argsort(box_colours(boxes, shape), kind="stable")


def reroute_order(order: str, boxes: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """The routing order of ``reroute_order`` ``order``
    (:class:`~.options.PathFinderOptions`) of nets in ``hpwl`` order whose searches
    reach ``boxes``: their positions.

    Examples
    --------
    >>> reroute_order("hpwl", np.zeros((3, 4), np.int64), (5, 5)).tolist()
    [0, 1, 2]
    """
    if order == "hpwl":
        return np.arange(len(boxes))
    return colour_order(boxes, shape)


def batches(boxes: np.ndarray, shape: tuple[int, int], lag: int = 1) -> list[np.ndarray]:
    """Positions ``0..len(boxes)-1`` cut into batches, each box after every box at
    least ``lag`` places before it that overlaps it (:func:`box_levels`). With ``lag``
    1 the boxes of a batch are pairwise disjoint and the order of routing is kept.

    Examples
    --------
    >>> [b.tolist() for b in batches(np.array([[0, 0, 9, 9], [5, 5, 12, 12]]), (20, 20))]
    [[0], [1]]
    """
    if len(boxes) == 0:
        return []
    level = box_levels(boxes, shape, lag)
    order = np.argsort(level, kind="stable")
    cuts = np.flatnonzero(np.diff(level[order])) + 1
    return np.split(order, cuts)


def as_short_as_can_be(pins: Sequence[np.ndarray], wires: Sequence[np.ndarray]) -> np.ndarray:
    """Whether each wire (``(k, 2)`` cells) has the fewest cells any wire between its
    net's pins could have: two pins, and one cell more than their Manhattan distance (a
    net of more pins may always have a shorter tree than the one it has).

    Examples
    --------
    >>> as_short_as_can_be([np.array([[0, 0], [2, 0]])], [np.zeros((3, 2))]).tolist()
    [True]
    """
    n = len(wires)
    if n == 0:
        return np.zeros(0, bool)
    count = np.fromiter((len(p) for p in pins), np.int64, n)
    cells = np.fromiter((len(c) for c in wires), np.int64, n)
    # every net's first and last pin from one array of all pins: a Python step a net
    # took a share of tidy's time on the largest layouts
    ends = np.cumsum(count)
    every = np.concatenate([np.asarray(p, np.int64).reshape(-1, 2) for p in pins])
    first, last = (np.clip(k, 0, len(every) - 1) for k in (ends - count, ends - 1))
    span = np.abs(every[first] - every[last]).sum(axis=1)
    return (count == 2) & (cells == span + 1)


def wire_groups(wires: Sequence[np.ndarray | None], cells: int, size: int,
                scratch: np.ndarray | None = None) -> list[np.ndarray]:
    """Positions of ``wires`` (flat cells, or None for a net without one) in groups of at
    most ``size``, no two of a group sharing a cell: the classes of a greedy colouring
    in order (each net takes the lowest colour no earlier net on its cells has), each
    class cut into runs of ``size``, classes in colour order; ``size`` 1 keeps the order
    itself.

    ``scratch``: ``cells`` int64 zeros, left zero, for a caller that colours again and
    again (a grid-sized array made afresh each call costs more than the colouring on a
    large grid); None makes one.

    Examples
    --------
    >>> w = [np.array([0, 1]), np.array([1, 2]), np.array([3]), None, np.array([2, 4])]
    >>> [g.tolist() for g in wire_groups(w, 5, 8)]
    [[0, 2, 3, 4], [1]]
    >>> [g.tolist() for g in wire_groups(w, 5, 2)]
    [[0, 2], [3, 4], [1]]
    """
    n = len(wires)
    if size == 1 or n == 0:
        return [np.array([k], np.int64) for k in range(n)]
    sizes = np.fromiter((0 if w is None else w.size for w in wires), np.int64, n)
    ptr = np.zeros(n + 1, np.int64)
    np.cumsum(sizes, out=ptr[1:])
    flat = (np.concatenate([w for w in wires if w is not None and w.size])
            if ptr[-1] else np.zeros(0, np.int64))
    return packed_wire_groups(ptr, flat, cells, size, scratch)


def packed_wire_groups(ptr: np.ndarray, flat: np.ndarray, cells: int, size: int,
                       scratch: np.ndarray | None = None) -> list[np.ndarray]:
    """:func:`wire_groups` of wires given one after another: wire ``k``'s flat cells are
    ``flat[ptr[k]:ptr[k + 1]]`` (none: no wire), as a device keeps them, so that no
    list of arrays is made on the way.

    >>> ptr, flat = np.array([0, 2, 4, 5, 5, 7]), np.array([0, 1, 1, 2, 3, 2, 4])
    >>> [g.tolist() for g in packed_wire_groups(ptr, flat, 5, 8)]
    [[0, 2, 3, 4], [1]]
    """
    n = len(ptr) - 1
    if size == 1 or n <= 0:
        return [np.array([k], np.int64) for k in range(max(n, 0))]
    if scratch is None:
        scratch = np.zeros(cells, np.int64)
    elif scratch.dtype != np.int64 or scratch.size < cells:
        raise ValueError(f"scratch must be {cells} int64 zeros")
    colour = _colours(np.asarray(ptr, np.int64), np.asarray(flat, np.int64), scratch,
                      WIRE_COLOURS)
    order = np.argsort(colour, kind="stable")
    bounds = np.flatnonzero(np.diff(colour[order])) + 1
    groups = []
    for members in np.split(order, bounds):
        step = size if colour[members[0]] < WIRE_COLOURS else 1     # past the bits
        groups += [members[s:s + step] for s in range(0, members.size, step)]
    return groups


@numba.njit(cache=True)
def _colours(ptr, flat, used_by, colours):
    """Each wire's lowest colour not taken on its cells by an earlier wire (``colours``
    if none is free; such a wire marks no cell); ``used_by``, each cell's colours taken,
    starts and ends all zero."""
    out = np.zeros(ptr.size - 1, np.int64)
    for k in range(ptr.size - 1):
        if ptr[k + 1] == ptr[k]:
            continue
        used = np.int64(0)
        for j in range(ptr[k], ptr[k + 1]):
            used |= used_by[flat[j]]
        c = 0
        while c < colours and (used >> c) & 1:
            c += 1
        out[k] = c
        if c < colours:
            bit = np.int64(1) << c
            for j in range(ptr[k], ptr[k + 1]):
                used_by[flat[j]] |= bit
    for j in range(flat.size):
        used_by[flat[j]] = 0
    return out
