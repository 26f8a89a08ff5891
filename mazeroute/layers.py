"""The multi-layer model: a layout's stack of routing layers, its vias and their rules.

A layout without a stack is today's single layer. With one (:class:`Stack`), its grid is
``(L, H, W)``, indexed ``[z, y, x]``, and a cell is ``(x, y, z)`` with ``z`` the 0-based
layer. A wire moves inside a layer only along that layer's direction (a ``horizontal``
layer along x, a ``vertical`` one along y, ``any`` both), and changes layer by a via
between vertically adjacent layers, at a cell free on both and, when the layout lists
its via sites, at one of them: an ``(H, W)`` mask of sites holds between every two adjacent
layers, an ``(L - 1, H, W)`` one (:func:`pair_sites`) pair by pair.

Examples
--------
>>> s = Stack((Layer("M1", "horizontal"), Layer("M2", "vertical")), via_cost=2)
>>> s.moves(0), s.moves(1), s.index("M2")
((True, False), (False, True), 1)
>>> edge_kind(s, (0, 0, 0), (1, 0, 0)), edge_kind(s, (0, 0, 0), (0, 1, 0))
('step', None)
>>> edge_kind(s, (3, 2, 0), (3, 2, 1))
'via'
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .errors import InputError, quote

#: A layer's directions: the axes its wires may run along.
DIRECTIONS = ("horizontal", "vertical", "any")

Cell3 = tuple[int, int, int]
#: A blockage of a multi-layer layout: ``(x0, y0, x1, y1)`` blocks every layer,
#: ``(x0, y0, x1, y1, z)`` layer ``z`` alone.
Rect3 = tuple[int, ...]


@dataclass(frozen=True)
class Layer:
    """One routing layer: its name and the direction its wires run in.

    Parameters
    ----------
    name : str
        The layer's name, unique in its stack.
    direction : str
        One of :data:`DIRECTIONS`.

    Examples
    --------
    >>> Layer("M1", "horizontal").direction
    'horizontal'
    """

    name: str
    direction: str = "any"


@dataclass(frozen=True, eq=False)
class Stack:
    """A layout's layers, bottom (``z = 0``) first, and the rules of its vias.

    Parameters
    ----------
    layers : tuple of Layer
        The layers, in order; a via joins two neighbours of this list.
    via_cost : int
        What a via costs, in units of one cell step (an integer >= 1).
    via_sites : (H, W) or (L - 1, H, W) bool array, or None
        Where a via may go: ``[y, x]`` between any two adjacent layers, or ``[z, y, x]``
        between layers ``z`` and ``z + 1`` alone; None: at any cell free on both.

    Examples
    --------
    >>> Stack((Layer("a"), Layer("b"))).names
    ('a', 'b')
    """

    layers: tuple[Layer, ...]
    via_cost: int = 1
    via_sites: np.ndarray | None = None

    @property
    def names(self) -> tuple[str, ...]:
        """The layers' names, in order."""
        return tuple(layer.name for layer in self.layers)

    @property
    def directions(self) -> tuple[str, ...]:
        """The layers' directions, in order (what the 3-D engines take)."""
        return tuple(layer.direction for layer in self.layers)

    def index(self, name: str) -> int:
        """The 0-based index of the layer called ``name`` (a ``ValueError`` if none)."""
        return self.names.index(name)

    def moves(self, z: int) -> tuple[bool, bool]:
        """Whether layer ``z`` allows steps along x and along y: ``(dx_ok, dy_ok)``."""
        direction = self.layers[z].direction
        return direction != "vertical", direction != "horizontal"

    def via_allowed(self, x: int, y: int, z: int | None = None) -> bool:
        """Whether a via may go at ``(x, y)`` between layers ``z`` and ``z + 1`` (its
        cells' being free is the caller's); ``z`` None: between every adjacent pair."""
        s = self.via_sites
        if s is None:
            return True
        if s.ndim == 2:
            return bool(s[y, x])
        if z is None:
            return bool(s[:, y, x].all())
        return 0 <= z < s.shape[0] and bool(s[z, y, x])


def layer_moves(directions) -> tuple[np.ndarray, np.ndarray]:
    """Whether each layer of ``directions`` allows steps along x and along y, as two bool
    arrays (what :meth:`Stack.moves` says of one layer).

    >>> [a.tolist() for a in layer_moves(("horizontal", "vertical", "any"))]
    [[True, False, True], [False, True, True]]
    """
    d = np.asarray(directions, dtype=object)
    return d != "vertical", d != "horizontal"


def pair_sites(via_sites, depth: int, height: int, width: int, file=None) -> np.ndarray:
    """The ``(depth - 1, height, width)`` per-pair form of ``via_sites``: ``[z, y, x]``
    allows a via between layers ``z`` and ``z + 1`` at ``(x, y)``.

    Parameters
    ----------
    via_sites : (H, W) or (L - 1, H, W) array_like of bool, or None
        None allows every via; an ``(H, W)`` mask holds between every adjacent pair.
    depth, height, width : int
        The grid's layers, rows and columns.
    file : str or Path, optional
        The file an error names.

    Returns
    -------
    (depth - 1, height, width) C-contiguous bool array (a fresh one).

    Raises
    ------
    InputError
        For another shape or a non-boolean array.

    Examples
    --------
    >>> pair_sites(np.array([[True, False]]), 3, 1, 2).astype(int).tolist()
    [[[1, 0]], [[1, 0]]]
    """
    pairs = (max(depth - 1, 0), height, width)
    if via_sites is None:
        return np.ones(pairs, np.bool_)
    s = np.asarray(via_sites)
    if s.dtype != np.bool_ or s.shape not in ((height, width), pairs):
        raise InputError(f"must be None or a bool array of shape (height, width) = "
                         f"({height}, {width}) or (layers - 1, height, width) = {pairs}, "
                         f"got {s.dtype} of shape {s.shape}", file=file, field="via_sites")
    if s.ndim == 2:
        return np.ascontiguousarray(np.broadcast_to(s, pairs))
    return np.array(s, np.bool_, order="C")


def edge_kind(stack: Stack, a, b) -> str | None:
    """``'step'`` when cells ``a`` and ``b`` are neighbours inside one layer along its
    direction, ``'via'`` when they are the same ``(x, y)`` on adjacent layers at a place
    a via may go, else None (their being free is not looked at).

    Parameters
    ----------
    stack : Stack
        The layout's layers.
    a, b : (x, y, z)
        Two cells inside the grid.

    Returns
    -------
    str or None
        The kind of the edge between them, or None when there is none.
    """
    dx, dy, dz = b[0] - a[0], b[1] - a[1], b[2] - a[2]
    if dz == 0:
        x_ok, y_ok = stack.moves(a[2])
        if dy == 0 and abs(dx) == 1:
            return "step" if x_ok else None
        if dx == 0 and abs(dy) == 1:
            return "step" if y_ok else None
        return None
    if dx == 0 and dy == 0 and abs(dz) == 1 \
            and stack.via_allowed(a[0], a[1], min(a[2], b[2])):
        return "via"
    return None


def why_not_edge(stack: Stack, a, b) -> str:
    """Why :func:`edge_kind` finds no edge between ``a`` and ``b``, in words."""
    dx, dy, dz = b[0] - a[0], b[1] - a[1], b[2] - a[2]
    if dz == 0 and abs(dx) + abs(dy) == 1:
        layer = stack.layers[a[2]]
        return (f"step from {list(a)} to {list(b)} runs against layer "
                f"{quote(layer.name)}'s direction ({layer.direction})")
    if dx == 0 and dy == 0 and abs(dz) == 1:
        if stack.via_sites is not None and stack.via_sites.ndim == 3:
            z = min(a[2], b[2])
            return (f"via at {[a[0], a[1]]} between layers {quote(stack.layers[z].name)} "
                    f"and {quote(stack.layers[z + 1].name)} is not at a via site")
        return f"via at {[a[0], a[1]]} is not at a via site"
    return f"{list(a)} and {list(b)} are not neighbours"


def paint_stack(width: int, height: int, depth: int, rects) -> np.ndarray:
    """The ``(depth, height, width)`` blocked mask of multi-layer blockages.

    >>> paint_stack(3, 1, 2, [(0, 0, 0, 0), (2, 0, 2, 0, 1)]).astype(int)
    array([[[1, 0, 0]],
    <BLANKLINE>
           [[1, 0, 1]]])
    """
    blocked = np.zeros((depth, height, width), dtype=bool)
    for r in rects:
        x0, y0, x1, y1 = r[:4]
        z = r[4] if len(r) > 4 else None
        blocked[slice(None) if z is None else z, y0:y1 + 1, x0:x1 + 1] = True
    return blocked


def stack_rects(blocked: np.ndarray, mask_rects) -> list[Rect3]:
    """Rectangles that paint exactly ``blocked`` (``(L, H, W)``): those blocked on every
    layer once, for all layers, then each layer's others (``mask_rects``: the 2-D
    decomposition of :mod:`mazeroute.layout`)."""
    everywhere = blocked.all(axis=0)
    out: list[Rect3] = list(mask_rects(everywhere))
    for z in range(blocked.shape[0]):
        out += [(*r, z) for r in mask_rects(blocked[z] & ~everywhere)]
    return out


def check_stack(stack: Stack, width: int, height: int, file) -> None:
    """Refuse a :class:`Stack` built in Python that a layout file could not give: an
    :class:`InputError` naming the field (layers, their names and directions, via_cost,
    via_sites' shape).

    >>> check_stack(Stack((Layer("a", "up"),)), 2, 2, None)
    Traceback (most recent call last):
    ...
    mazeroute.errors.InputError: layers[0] direction: must be one of 'horizontal', \
'vertical', 'any', got 'up'
    """
    if not isinstance(stack, Stack):
        raise TypeError(f"expected a Stack, got {type(stack).__name__}")
    if not stack.layers:
        raise InputError("must list at least one layer", file=file, field="layers")
    seen: dict[str, int] = {}
    for i, layer in enumerate(stack.layers):
        if not isinstance(layer, Layer):
            raise TypeError(f"layers[{i}] is a {type(layer).__name__}, not a Layer")
        if not isinstance(layer.name, str) or not layer.name:
            raise InputError(f"must be a non-empty string, got {quote(layer.name)}",
                             file=file, field=f"layers[{i}] name")
        if layer.name in seen:
            raise InputError(f"{quote(layer.name)} repeats layers[{seen[layer.name]}]",
                             file=file, field=f"layers[{i}] name")
        seen[layer.name] = i
        if layer.direction not in DIRECTIONS:
            raise InputError(f"must be one of {', '.join(map(repr, DIRECTIONS))}, got "
                             f"{quote(layer.direction)}", file=file,
                             field=f"layers[{i}] direction")
    v = stack.via_cost
    if not isinstance(v, (int, np.integer)) or isinstance(v, bool) or v < 1:
        raise InputError(f"must be an integer >= 1, got {quote(v)}", file=file,
                         field="via_cost")
    s = stack.via_sites
    if s is not None and not isinstance(s, np.ndarray):
        raise InputError(f"must be None or a bool array, got {type(s).__name__}", file=file,
                         field="via_sites")
    pair_sites(s, len(stack.layers), height, width, file)
