"""Reproducible multi-layer layouts: solvable puzzles with a known solution, and random
layouts with blockages on each layer and local nets.

:func:`solvable_puzzle` draws disjoint paths through an ``L x H x W`` grid, each of which
changes layer at least once; the paths' end points are the nets, the places they change
layer are the VIA columns (as in the ADC contest, each used by exactly one line), and
the paths themselves are a complete solution, returned with the puzzle.
:func:`random_layout3d` makes a layout of random rectangles on every layer and nets whose
pins lie near each other. Every generator takes a seed and gives the same result for it
on every machine.

Examples
--------
>>> from mazeroute.readers.adc_answer import check_adc_answer
>>> p = solvable_puzzle(8, 6, 2, nets=3, seed=1)
>>> len(p.layout.nets), p.layout.blocked.shape, len(p.vias) >= 3
(3, (2, 6, 8), True)
>>> check_adc_answer(p.problem, p.solution)
[]
>>> random_layout3d(16, 12, 3, nets=4, seed=2).blocked.shape
(3, 12, 16)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .errors import InputError
from .generate import random_rects
from .layers import DIRECTIONS, Layer, Stack
from .layout import Layout, Net
from .readers.adc import AdcProblem, Via

Cell3 = tuple[int, int, int]
_STEPS = ((1, 0), (-1, 0), (0, 1), (0, -1))


@dataclass(frozen=True)
class Puzzle3D:
    """A multi-layer puzzle made from disjoint paths: its layout, VIA columns, and the
    paths (each net's cells from ``pins[0]`` to ``pins[1]``, a known complete solution)."""

    layout: Layout
    vias: tuple[Via, ...]
    solution: dict[str, list[Cell3]]

    @property
    def problem(self) -> AdcProblem:
        """The layout with its exact VIA columns, as the ADC reader gives a problem."""
        return AdcProblem(self.layout, self.vias)


def solvable_puzzle(width: int, height: int, layers: int, nets: int, *, seed: int = 0,
                    min_length: int = 4, max_length: int | None = None,
                    name: str | None = None) -> Puzzle3D:
    """A puzzle of ``nets`` two-pin nets on ``layers`` layers that can all be routed at
    once: each net's pins are the ends of one of a set of disjoint paths.

    Parameters
    ----------
    width, height, layers : int
        The grid; at least 2 layers (every path changes layer).
    nets : int
        How many paths (nets) to draw.
    seed : int
        The random seed.
    min_length, max_length : int
        Bounds on a path's cells (``max_length`` default: ``width + height``); a path
        that runs into a dead end may be shorter than ``max_length``.
    name : str, optional
        The layout's name.

    Returns
    -------
    Puzzle3D
        The layout (a stack of ``layers`` layers named ``"1"``.., direction ``any``,
        via sites at the VIA columns), its VIA columns and the solution.

    Raises
    ------
    InputError
        For sizes under the minimum, or when the paths do not fit the grid.
    """
    _sizes(width, height, layers, least_layers=2)
    max_length = max_length or width + height
    if not 2 <= min_length <= max_length or nets < 0:
        raise InputError(f"need 2 <= min_length <= max_length and nets >= 0, got "
                         f"{min_length}, {max_length}, {nets}", field="min_length")
    rng = np.random.default_rng(seed)
    used = np.zeros((layers, height, width), dtype=bool)
    solution: dict[str, list[Cell3]] = {}
    for i in range(1, nets + 1):
        for _try in range(256):
            path = _walk(used, rng, int(rng.integers(min_length, max_length + 1)))
            if path is not None:
                break
        else:
            raise InputError(f"cannot draw {nets} disjoint paths that change layer on "
                             f"{width} x {height} x {layers}: fewer nets or a larger grid",
                             field="nets")
        for x, y, z in path:
            used[z, y, x] = True
        solution[str(i)] = path
    vias = _vias(solution)
    sites = np.zeros((layers - 1, height, width), dtype=bool)
    for v in vias:
        sites[v.z0:v.z1, v.y, v.x] = True      # as the ADC reader: each column's own pairs
    stack = Stack(tuple(Layer(str(k), "any") for k in range(1, layers + 1)), via_cost=1,
                  via_sites=sites)
    layout = Layout(name or f"puzzle3d-{width}x{height}x{layers}-s{seed}", width, height, [],
                    [Net(k, [p[0], p[-1]]) for k, p in solution.items()], stack=stack)
    return Puzzle3D(layout, vias, solution)


def _walk(used: np.ndarray, rng: np.random.Generator, length: int) -> list[Cell3] | None:
    """A random self-avoiding path of at most ``length`` free cells that changes layer at
    least once, starts and ends with a step inside a layer, and never comes back to an
    ``(x, y)`` it left (so that it holds two layers at one place only inside its own via
    column); None when this try found none."""
    depth, height, width = used.shape
    for _ in range(64):
        x, y, z = (int(rng.integers(n)) for n in (width, height, depth))
        if not used[z, y, x]:
            break
    else:
        return None
    path, kinds, places = [(x, y, z)], [], {(x, y)}
    while len(path) < length:
        x, y, z = path[-1]
        steps = [(x + dx, y + dy, z) for dx, dy in _STEPS
                 if 0 <= x + dx < width and 0 <= y + dy < height
                 and not used[z, y + dy, x + dx] and (x + dx, y + dy) not in places]
        last = kinds[-1] if kinds else None
        ups = [(x, y, z + dz) for dz in (-1, 1) if kinds and last in ("s", dz)
               and 0 <= z + dz < depth and not used[z + dz, y, x]]
        if ups and (not steps or rng.random() < 0.35):
            nxt = ups[int(rng.integers(len(ups)))]
            kinds.append(nxt[2] - z)
        elif steps:
            nxt = steps[int(rng.integers(len(steps)))]
            kinds.append("s")
        else:
            break
        path.append(nxt)
        places.add(nxt[:2])
    while kinds and kinds[-1] != "s":        # a terminal is never inside a via column
        kinds.pop()
        path.pop()
    return path if any(k != "s" for k in kinds) else None


def _vias(solution: dict[str, list[Cell3]]) -> tuple[Via, ...]:
    """The VIA columns of the paths: each run of layer changes at one ``(x, y)``."""
    out: list[Via] = []
    for path in solution.values():
        i = 0
        while i < len(path) - 1:
            j = i
            while j + 1 < len(path) and path[j + 1][:2] == path[i][:2]:
                j += 1
            if j > i:
                zs = (path[i][2], path[j][2])
                out.append(Via(_via_name(len(out)), path[i][0], path[i][1], min(zs), max(zs)))
            i = j + 1
    return tuple(out)


def _via_name(i: int) -> str:
    """``a`` .. ``z``, ``aa`` ..: the contest names its vias by letters."""
    name = ""
    i += 1
    while i:
        i, r = divmod(i - 1, 26)
        name = chr(ord("a") + r) + name
    return name


def problem_text(puzzle: Puzzle3D) -> str:
    """The puzzle as an ADC problem file (``SIZE``, ``LINE_NUM``, ``LINE#``, ``VIA#``
    lines; layers counted from 1).

    >>> print(problem_text(solvable_puzzle(5, 4, 2, nets=1, seed=3)), end="")
    SIZE 5X4X2
    LINE_NUM 1
    LINE#1 (0,0,1) (2,3,1)
    VIA#a (1,1,1) (1,1,2)
    VIA#b (2,2,1) (2,2,2)
    """
    lay = puzzle.layout
    out = [f"SIZE {lay.width}X{lay.height}X{len(lay.stack.layers)}",
           f"LINE_NUM {len(lay.nets)}"]
    out += [f"LINE#{n.name} " + " ".join(f"({x},{y},{z + 1})" for x, y, z in n.pins)
            for n in lay.nets]
    out += [f"VIA#{v.name} " + " ".join(f"({v.x},{v.y},{z + 1})" for z in range(v.z0, v.z1 + 1))
            for v in puzzle.vias]
    return "\n".join(out) + "\n"


def random_layout3d(width: int, height: int, layers: int, *, density: float = 0.2,
                    nets: int = 10, span: int = 8, seed: int = 0,
                    directions: Sequence[str] | None = None, via_cost: int = 1,
                    name: str | None = None) -> Layout:
    """Random rectangles on every layer, at ``density`` each, and ``nets`` two-pin nets
    whose second pin lies within Manhattan distance ``span`` (in x and y) of the first, on
    any layer; pins on free cells, none shared. Vias may go anywhere.

    Parameters
    ----------
    width, height, layers : int
        The grid.
    density : float
        The share of each layer's cells that its rectangles cover, in ``[0, 1)``.
    nets, span : int
        How many nets, and how far apart in x and y a net's pins may lie.
    seed : int
        The random seed.
    directions : sequence of str, optional
        Each layer's direction (default ``any`` for all).
    via_cost : int
        The stack's via cost.
    name : str, optional
        The layout's name.

    Returns
    -------
    Layout
        A layout with a stack of layers named ``M1``.. and blockages ``(x0, y0, x1, y1,
        z)``.

    Raises
    ------
    InputError
        For a bad size, density, direction or span, or too many nets to place.
    """
    _sizes(width, height, layers, least_layers=1)
    directions = list(directions) if directions is not None else ["any"] * layers
    if len(directions) != layers or any(d not in DIRECTIONS for d in directions):
        raise InputError(f"need {layers} of {', '.join(DIRECTIONS)}, got {directions!r}",
                         field="directions")
    if not isinstance(span, int) or span < 1 or nets < 0:
        raise InputError(f"need span >= 1 and nets >= 0, got {span!r}, {nets!r}",
                         field="span")
    rng = np.random.default_rng(seed)
    rects = [(*r, z) for z in range(layers) for r in random_rects(width, height, density, rng)]
    stack = Stack(tuple(Layer(f"M{z + 1}", d) for z, d in enumerate(directions)), via_cost)
    layout = Layout(name or f"rects3d-{width}x{height}x{layers}-s{seed}", width, height,
                    rects, [], stack=stack)
    layout.nets = _local_nets(layout.blocked, nets, min(span, width + height), rng)
    return layout


def _local_nets(blocked: np.ndarray, count: int, span: int,
                rng: np.random.Generator) -> list[Net]:
    """``count`` two-pin nets on free cells, the second pin near the first (rejection)."""
    depth, height, width = blocked.shape
    used = blocked.copy()
    roots = iter(rng.permutation(np.flatnonzero(~blocked.ravel())).tolist())
    digits = len(str(max(count - 1, 0)))
    out: list[Net] = []
    for root in roots:
        if len(out) == count:
            break
        z, rest = divmod(root, height * width)
        y, x = divmod(rest, width)
        if used[z, y, x]:
            continue
        for _try in range(64):
            dx, dy = (int(v) for v in rng.integers(-span, span + 1, 2))
            px, py, pz = x + dx, y + dy, int(rng.integers(depth))
            if (abs(dx) + abs(dy) <= span and 0 <= px < width and 0 <= py < height
                    and not used[pz, py, px] and (px, py, pz) != (x, y, z)):
                used[z, y, x] = used[pz, py, px] = True
                out.append(Net(f"n{len(out):0{digits}d}", [(x, y, z), (px, py, pz)]))
                break
    if len(out) < count:
        raise InputError(f"cannot place {count} nets within span {span} on this layout",
                         field="nets")
    return out


def _sizes(width: int, height: int, layers: int, least_layers: int) -> None:
    for field, v, least in (("width", width, 1), ("height", height, 1),
                            ("layers", layers, least_layers)):
        if not isinstance(v, int) or isinstance(v, bool) or v < least:
            raise InputError(f"must be an integer >= {least}, got {v!r}", field=field)


__all__ = ["Puzzle3D", "problem_text", "random_layout3d", "solvable_puzzle"]
