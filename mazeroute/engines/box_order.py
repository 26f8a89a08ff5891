"""Which boxes may share a call: the levels and colours of their overlaps.

A router that needs the routes of routing nets one after another passes nets of
pairwise disjoint boxes together; these functions sort boxes into such calls.
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["LEVEL_TILE", "box_levels", "box_colours"]


#: Side of the tiles on which boxes are compared by :func:`box_levels`.
LEVEL_TILE = 8


@numba.njit(cache=True, nogil=True)
def _levels(boxes, tile, tiles_w, tiles_h, lag):
    last = np.full(tiles_w * tiles_h, -1, np.int64)
    out = np.empty(boxes.shape[0], np.int64)
    for i in range(boxes.shape[0] + lag):
        j = i - lag                 # box j now counts for the boxes after it
        if j >= 0:
            tx0, ty0 = boxes[j, 0] // tile, boxes[j, 1] // tile
            tx1, ty1 = boxes[j, 2] // tile, boxes[j, 3] // tile
            for ty in range(ty0, ty1 + 1):
                for tx in range(tx0, tx1 + 1):
                    last[ty * tiles_w + tx] = max(last[ty * tiles_w + tx], out[j])
        if i >= boxes.shape[0]:
            continue
        tx0, ty0 = boxes[i, 0] // tile, boxes[i, 1] // tile
        tx1, ty1 = boxes[i, 2] // tile, boxes[i, 3] // tile
        b = -1
        for ty in range(ty0, ty1 + 1):
            for tx in range(tx0, tx1 + 1):
                b = max(b, last[ty * tiles_w + tx])
        out[i] = b + 1
    return out


def box_levels(boxes: np.ndarray, shape: tuple[int, int], lag: int = 1) -> np.ndarray:
    """Level of each box ``(x0, y0, x1, y1)`` of an ``(H, W)`` grid, in order: one more
    than the highest level of the boxes at least ``lag`` places before it that share a
    :data:`LEVEL_TILE` tile with it. With ``lag`` 1, boxes of one level are pairwise
    disjoint, and a box's level is above that of every earlier box it overlaps; with a
    larger ``lag``, boxes fewer than ``lag`` places apart may share a level, and box
    ``i``'s level is at most ``i // lag``.

    >>> box_levels(np.array([[0, 0, 9, 9], [20, 0, 29, 9], [5, 5, 24, 7]]), (10, 30)).tolist()
    [0, 0, 1]
    >>> box_levels(np.array([[0, 0, 9, 9], [20, 0, 29, 9], [5, 5, 24, 7]]), (10, 30), 3).tolist()
    [0, 0, 0]
    """
    boxes = np.asarray(boxes, np.int64).reshape(-1, 4)
    if boxes.shape[0] == 0:
        return np.zeros(0, np.int64)
    if lag < 1:
        raise ValueError(f"lag = {lag} must be at least 1")
    h, w = shape
    # a lag past the last box changes nothing (no box is that far after another); the
    # compiled loop runs over the lag, so it is bounded here
    lag = min(int(lag), boxes.shape[0])
    return _levels(boxes, LEVEL_TILE, -(-w // LEVEL_TILE), -(-h // LEVEL_TILE), lag)


@numba.njit(cache=True, nogil=True)
def _colours(boxes, tile, tiles_w, tiles_h, words):
    # one bit a colour a tile; -1 when some box finds all 64 * words colours taken
    taken = np.zeros((tiles_w * tiles_h, words), np.uint64)
    seen = np.empty(words, np.uint64)
    out = np.empty(boxes.shape[0], np.int64)
    one = np.uint64(1)
    for i in range(boxes.shape[0]):
        tx0, ty0 = boxes[i, 0] // tile, boxes[i, 1] // tile
        tx1, ty1 = boxes[i, 2] // tile, boxes[i, 3] // tile
        seen[:] = 0
        for ty in range(ty0, ty1 + 1):
            for tx in range(tx0, tx1 + 1):
                for k in range(words):
                    seen[k] |= taken[ty * tiles_w + tx, k]
        c = 0
        while c < 64 * words and (seen[c >> 6] >> np.uint64(c & 63)) & one:
            c += 1
        if c == 64 * words:
            out[0] = -1
            return out
        out[i] = c
        bit = one << np.uint64(c & 63)
        for ty in range(ty0, ty1 + 1):
            for tx in range(tx0, tx1 + 1):
                taken[ty * tiles_w + tx, c >> 6] |= bit
    return out


def box_colours(boxes: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """First-fit colour of each box ``(x0, y0, x1, y1)`` of an ``(H, W)`` grid, in order:
    the least colour that no earlier box sharing a :data:`LEVEL_TILE` tile with it has.
    Boxes of one colour are pairwise disjoint, as those of one :func:`box_levels` level
    are, but a colour never exceeds a level and a chain of boxes each overlapping the
    next takes two colours where it takes as many levels as boxes: routing the colours
    one after another is a sequential order whose calls are as few as the colours.

    >>> chain = np.array([[0, 0, 9, 9], [8, 0, 17, 9], [16, 0, 25, 9], [24, 0, 33, 9]])
    >>> box_levels(chain, (10, 40)).tolist(), box_colours(chain, (10, 40)).tolist()
    ([0, 1, 2, 3], [0, 1, 0, 1])
    """
    boxes = np.asarray(boxes, np.int64).reshape(-1, 4)
    if boxes.shape[0] == 0:
        return np.zeros(0, np.int64)
    h, w = shape
    words = 1
    while True:
        out = _colours(boxes, LEVEL_TILE, -(-w // LEVEL_TILE), -(-h // LEVEL_TILE), words)
        if out[0] >= 0:
            return out
        words *= 4
