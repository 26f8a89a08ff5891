"""The requests of the weighted net search (:mod:`~mazeroute.engines.weighted`): one net,
its pins and box (:class:`NetRequest`), and their checked flat form, the one a compiled
or device engine reads (:class:`PackedRequests`: :func:`pack_requests`, or
:func:`pack_nets` from a :class:`PinTable` made once), with their own cells
(:func:`pack_own`).

Examples
--------
>>> import numpy as np
>>> req = NetRequest(3, np.array([[0, 0], [4, 1]]), (0, 0, 4, 1))
>>> p = pack_requests([req], (1, 2, 5))
>>> p.nets.tolist(), p.pin_ptr.tolist(), p.pins.tolist(), p.boxes.tolist()
([3], [0, 2], [0, 9], [[0, 0, 4, 1]])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from .costs import COST_MAX

__all__ = ["NetRequest", "PackedRequests", "PinTable", "as_layers", "box_sides",
           "pack_nets", "pack_own", "pack_requests", "pin_table", "request_boxes"]


def box_sides(boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Widths and heights of ``(n, 4)`` boxes ``(x0, y0, x1, y1)``, inclusive.

    >>> [a.tolist() for a in box_sides(np.array([[0, 0, 9, 4], [3, 3, 3, 3]]))]
    [[10, 1], [5, 1]]
    """
    return boxes[:, 2] - boxes[:, 0] + 1, boxes[:, 3] - boxes[:, 1] + 1


class NetRequest(NamedTuple):
    """One net to search: its index (for ``owner``), pins ``(k, 2)`` as ``x, y`` with
    ``pins[0]`` the root, and its box ``(x0, y0, x1, y1)``, inclusive, holding every pin.

    ``own`` (flat cell indices) and ``own_cost`` (as many costs) price those cells for
    this request alone, in place of the call's ``cost``: a net searching while its
    current wire is still on the board sees that wire's cells as if it were gone."""

    net: int
    pins: np.ndarray
    box: tuple[int, int, int, int]
    own: np.ndarray | None = None
    own_cost: np.ndarray | None = None


class PackedRequests(NamedTuple):
    """Requests as flat arrays, the form a compiled or device engine takes them in.

    ``pins[pin_ptr[r]:pin_ptr[r + 1]]`` are request ``r``'s pins as vertex ids; ``boxes``
    is ``(n, 4)`` ``x0, y0, x1, y1``.
    """

    nets: np.ndarray
    pin_ptr: np.ndarray
    pins: np.ndarray
    boxes: np.ndarray


def as_layers(a: np.ndarray, what: str) -> np.ndarray:
    """``a`` as a ``(layers, H, W)`` stack (a 2-D array is one layer); one layer today."""
    a = np.asarray(a)
    if a.ndim == 2:
        a = a[None]
    if a.ndim != 3:
        raise ValueError(f"{what} must be (H, W) or (layers, H, W), got shape {a.shape}")
    if a.shape[0] != 1:
        raise NotImplementedError("multi-layer layouts are not supported yet")
    return a


def pack_requests(requests: Sequence[NetRequest], shape: tuple[int, int, int]) -> PackedRequests:
    """Check ``requests`` against a ``(layers, H, W)`` grid and pack them."""
    _, h, w = shape
    n = len(requests)
    nets = np.fromiter((r.net for r in requests), np.int64, n).astype(np.int32)
    boxes = request_boxes(requests)
    pin_ptr, xy = _flat_pins([r.pins for r in requests])
    _check_packed(pin_ptr, boxes, xy, shape)
    return PackedRequests(nets, pin_ptr, (xy[:, 1] * w + xy[:, 0]).astype(np.int32), boxes)


def _check_packed(pin_ptr: np.ndarray, boxes: np.ndarray, xy: np.ndarray,
                  shape: tuple[int, int, int]) -> None:
    """Refuse a request without pins, with a box not inside the grid, or with a pin
    outside its box (``xy``: every request's pins, ``(k, 2)``, as ``pin_ptr`` cuts)."""
    _, h, w = shape
    counts = np.diff(pin_ptr)
    bad = np.flatnonzero(counts < 1)
    if bad.size:
        raise ValueError(f"request {bad[0]}: a net needs at least one pin")
    x0, y0, x1, y1 = boxes.T
    bad = np.flatnonzero(~((0 <= x0) & (x0 <= x1) & (x1 < w) & (0 <= y0) & (y0 <= y1)
                           & (y1 < h)))
    if bad.size:
        raise ValueError(f"request {bad[0]}: box {tuple(boxes[bad[0]].tolist())} is not "
                         f"inside the {w} x {h} grid")
    at = np.repeat(np.arange(counts.size), counts)
    out = ((xy[:, 0] < x0[at]) | (xy[:, 0] > x1[at]) | (xy[:, 1] < y0[at])
           | (xy[:, 1] > y1[at]))
    if out.any():
        r = int(at[np.flatnonzero(out)[0]])
        raise ValueError(f"request {r}: a pin lies outside the box {tuple(boxes[r].tolist())}")


class PinTable(NamedTuple):
    """Every net's pins as vertex ids, flat: net ``i``'s are ``pins[ptr[i]:ptr[i + 1]]``,
    the root first (what :func:`pack_nets` gathers a pass's requests from)."""

    ptr: np.ndarray
    pins: np.ndarray


def pin_table(pins: Sequence[np.ndarray], width: int) -> PinTable:
    """The :class:`PinTable` of every net's pins ``(k, 2)`` as ``x, y``, on a grid
    ``width`` cells wide."""
    ptr, xy = _flat_pins(pins)
    return PinTable(ptr, (xy[:, 1] * width + xy[:, 0]).astype(np.int32))


def _flat_pins(pins: Sequence) -> tuple[np.ndarray, np.ndarray]:
    """Every net's pins ``(k, 2)`` (x, y) one after another: where each net's begin
    (``ptr``, one more entry than nets) and the ``(total, 2)`` int64 x, y."""
    xy = [np.asarray(p, np.int64).reshape(-1, 2) for p in pins]
    ptr = np.zeros(len(xy) + 1, np.int64)
    np.cumsum(np.fromiter((len(p) for p in xy), np.int64, len(xy)), out=ptr[1:])
    return ptr, np.concatenate(xy) if xy else np.zeros((0, 2), np.int64)


def pack_nets(table: PinTable, nets: np.ndarray, boxes: np.ndarray,
              shape: tuple[int, int, int]) -> PackedRequests:
    """The requests of ``nets`` in ``boxes`` ``(n, 4)``, their pins from ``table``,
    checked and packed as :func:`pack_requests` packs them, without a request object a
    net (a pass of negotiation asks for thousands).

    Examples
    --------
    >>> t = pin_table([np.array([[0, 0], [3, 1]]), np.array([[1, 2], [2, 2]])], 4)
    >>> p = pack_nets(t, np.array([1, 0]), np.array([[0, 1, 3, 2], [0, 0, 3, 1]]), (1, 3, 4))
    >>> p.nets.tolist(), p.pin_ptr.tolist(), p.pins.tolist()
    ([1, 0], [0, 2, 4], [9, 10, 0, 7])
    """
    _, _, w = shape
    nets = np.asarray(nets, np.int64)
    counts = table.ptr[nets + 1] - table.ptr[nets]
    pin_ptr = np.zeros(nets.size + 1, np.int64)
    np.cumsum(counts, out=pin_ptr[1:])
    at = np.repeat(table.ptr[nets] - pin_ptr[:-1], counts) + np.arange(int(pin_ptr[-1]))
    pins = table.pins[at]
    boxes = np.asarray(boxes, np.int64).reshape(nets.size, 4)
    _check_packed(pin_ptr, boxes, np.stack([pins % w, pins // w], axis=1), shape)
    return PackedRequests(nets.astype(np.int32), pin_ptr, pins, boxes)


def request_boxes(requests: Sequence[NetRequest]) -> np.ndarray:
    """The ``(n, 4)`` boxes ``(x0, y0, x1, y1)`` of ``requests``."""
    return np.array([tuple(r.box) for r in requests], np.int64).reshape(len(requests), 4)


def pack_own(requests: Sequence[NetRequest], boxes: np.ndarray, w: int
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every request's own cells inside its box and their costs, flat: request ``r``'s
    at ``own_ptr[r]:own_ptr[r + 1]`` (a cell outside the box is never read); a cost
    read outside ``1 .. COST_MAX`` is refused."""
    n = len(requests)
    owning = [r for r, req in enumerate(requests) if req.own is not None]
    if not owning:
        return np.zeros(n + 1, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64)
    cells = [np.asarray(requests[r].own, np.int64).ravel() for r in owning]
    costs = [np.asarray(requests[r].own_cost, np.int64).ravel() for r in owning]
    for r, c, v in zip(owning, cells, costs):
        if v.shape != c.shape:
            raise ValueError(f"request {r}: own_cost needs one cost an own cell")
    at = np.repeat(np.array(owning, np.int64), [c.size for c in cells])
    c, v = np.concatenate(cells), np.concatenate(costs)
    x, y = c % w, c // w
    box = boxes[at]
    inside = (x >= box[:, 0]) & (x <= box[:, 2]) & (y >= box[:, 1]) & (y <= box[:, 3])
    own_ptr = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(at[inside], minlength=n), out=own_ptr[1:])
    v = v[inside]
    if v.size and (v.min() < 1 or v.max() > COST_MAX):
        raise ValueError(f"own cells' costs must be 1 .. {COST_MAX}")
    return own_ptr, c[inside], v
