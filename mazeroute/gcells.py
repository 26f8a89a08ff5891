"""The GCell grid of a placed design and its routing resources, as OpenROAD's global
router (``grt``, FastRoute) builds them by default.

* The GCell is square: 15 track pitches of the middle pitch among routing layers 2, 3
  and 4 (of the top routing layer when there are fewer than four), an odd pitch
  rounded down to even. The grid starts at the die's lower-left corner; the last
  column and row absorb what is left of the die, so they may be up to twice as big.
* An edge joins two neighbouring GCells along a layer's preferred direction; its
  capacity is the number of that layer's tracks (its ``TRACKS`` along the preferred
  direction) that cross the GCell, between the GCell's lower bound (included) and its
  upper bound (excluded). Layers outside ``[min_layer, max_layer]`` carry nothing.
* Obstructions reduce it before anything else (OpenROAD's "original" resources): every
  component's macro ``OBS`` and every macro pin shape on a layer in range (standard
  cells' pins included), each over the GCells it touches: an edge inside the shape
  loses every track, an edge at its border loses the tracks its covered length spans
  (the covered lengths of all shapes on an edge are merged, then divided by the pitch
  and rounded up). Block macros' obstructions are widened by the layer's spacing.
* ``adjust`` then derates a layer: ``floor(capacity * (1 - fraction))``, but never
  below one track where there was any (OpenROAD's "derated" resources).

Where this differs from OpenROAD: special-net wiring (power straps) and DEF
``BLOCKAGES`` are not yet counted, a layer with several ``TRACKS`` patterns along its
direction is merged into one average pattern, and block macros' blockage is not
extended to the layers between two blocked ones.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass

import numpy as np

from .errors import InputError
from .readers.lefdef import Design, Rect, RoutingLayer, place

#: Track pitches in one GCell, and the highest routing layer whose pitch sizes it.
PITCHES_PER_GCELL = 15
SIZING_LAYERS = (2, 3, 4)


@dataclass(frozen=True)
class LayerTracks:
    """A layer's tracks along its preferred direction: ``count`` at ``start + k * step``."""
    start: int
    count: int
    step: int


@dataclass(frozen=True)
class GCellGrid:
    """GCell boundaries (DBU) and per-layer edge capacities, in tracks.

    ``xs`` has ``nx + 1`` boundaries, ``ys`` ``ny + 1``. For layer ``i`` (an index of
    ``layers``), ``h_cap[i]`` has shape ``(ny, nx - 1)``: the edge between GCells
    ``(x, y)`` and ``(x + 1, y)``; ``v_cap[i]`` has shape ``(ny - 1, nx)``. A layer
    carries capacity only along its preferred direction. ``original`` is after
    obstructions, ``derated`` after ``adjust`` too, both summed per layer.
    """
    xs: np.ndarray
    ys: np.ndarray
    tile: int
    layers: tuple[RoutingLayer, ...]
    min_layer: int
    max_layer: int
    h_cap: np.ndarray
    v_cap: np.ndarray
    original: tuple[int, ...]
    derated: tuple[int, ...]

    @property
    def shape(self) -> tuple[int, int]:
        """``(nx, ny)``: GCells across and up."""
        return len(self.xs) - 1, len(self.ys) - 1


def _level(design: Design, name: str | None, option: str) -> int | None:
    if name is None:
        return None
    try:
        return design.layer(name).level
    except KeyError:
        known = ", ".join(lay.name for lay in design.layers)
        raise InputError(f"no routing layer {name!r} (the layers: {known})",
                         field=option) from None


def layer_tracks(design: Design, layer: RoutingLayer) -> LayerTracks | None:
    """The tracks of ``layer`` along its preferred direction, or None without any.

    Horizontal wires run on ``TRACKS Y`` lines, vertical ones on ``TRACKS X``; several
    patterns are merged into one of their average step.
    """
    axis = "Y" if layer.direction == "HORIZONTAL" else "X"
    pats = [t for t in design.tracks if t.layer == layer.name and t.axis == axis
            and t.count > 0]
    if not pats:
        return None
    if len(pats) == 1:
        return LayerTracks(pats[0].start, pats[0].count, pats[0].step)
    first = min(t.start for t in pats)
    last = max(t.start + (t.count - 1) * t.step for t in pats)
    count = sum(t.count for t in pats)
    return LayerTracks(first, count, max(1, (last - first) // max(1, count - 1)))


def default_layers(design: Design) -> tuple[int, int]:
    """OpenROAD's default layer range: from the second routing layer up to the highest
    one that every layer below it having tracks reaches."""
    top = 0
    for lay in design.layers:
        if layer_tracks(design, lay) is None:
            break
        top = lay.level
    if top == 0:
        raise InputError("no routing layer has TRACKS", field="TRACKS")
    return min(2, top), top


def tile_size(design: Design, max_layer: int) -> int:
    """The GCell's side in DBU (the module's docstring says how)."""
    def even_step(level: int) -> int:
        t = layer_tracks(design, design.layers[level - 1])
        if t is None:
            raise InputError(f"layer {design.layers[level - 1].name} has no TRACKS",
                             field="TRACKS")
        return t.step if t.step % 2 == 0 else t.step - 1
    if max_layer < max(SIZING_LAYERS):
        return even_step(max_layer) * PITCHES_PER_GCELL
    steps = sorted(even_step(level) for level in SIZING_LAYERS)
    return steps[1] * PITCHES_PER_GCELL


def _bounds(lo: int, hi: int, tile: int) -> np.ndarray:
    n = max(1, (hi - lo) // tile)
    b = lo + tile * np.arange(n + 1, dtype=np.int64)
    b[-1] = hi
    return b


def _tracks_per_gcell(t: LayerTracks, bounds: np.ndarray) -> np.ndarray:
    """How many tracks lie in each ``[bounds[i], bounds[i + 1])``."""
    # tracks below a bound: those at start + k * step < bound, capped to the count
    below = np.clip(-((t.start - bounds) // t.step), 0, t.count)
    return np.diff(below)


def cell_of(bounds: np.ndarray, v):
    """The GCell holding coordinate ``v`` (a number or an array) between GCell
    ``bounds``: the last one takes the die's far edge, the first anything before it.

    >>> cell_of(np.array([0, 10, 20]), np.array([-1, 0, 10, 20, 25])).tolist()
    [0, 0, 1, 1, 1]
    """
    return np.clip(np.searchsorted(bounds, v, side="right") - 1, 0, len(bounds) - 2)


def _obstructions(design: Design, lo: int, hi: int):
    """Every obstruction shape on a routing layer of ``[lo, hi]``, placed, with whether it
    belongs to a block macro: macro ``OBS`` and every macro pin shape."""
    level = {lay.name: lay.level for lay in design.layers}
    for comp in design.components:
        macro = design.macros[comp.macro]
        block = macro.cls.upper().startswith("BLOCK")
        for lay, r in macro.obs:
            if lo <= level.get(lay, 0) <= hi:
                yield level[lay], place(r, comp, macro), block
        for shapes in macro.pins.values():
            for lay, r in shapes:
                if lo <= level.get(lay, 0) <= hi:
                    yield level[lay], place(r, comp, macro), False


def _blocked_intervals(r: Rect, layer: RoutingLayer, xs, ys, cap: np.ndarray,
                       block: bool, full: set, partial: dict) -> None:
    """Record what ``r`` blocks on one layer: edges it covers whole go to ``full``,
    the covered span across each border edge to ``partial``."""
    horizontal = layer.direction == "HORIZONTAL"
    along, across = (xs, ys) if horizontal else (ys, xs)
    a0, a1, c0, c1 = (r[0], r[2], r[1], r[3]) if horizontal else (r[1], r[3], r[0], r[2])
    g0, g1 = int(cell_of(along, a0)), int(cell_of(along, a1))
    k0, k1 = int(cell_of(across, c0)), int(cell_of(across, c1))
    if g0 == g1:
        # a shape inside one GCell still blocks the edge to the next one
        if g1 + 1 >= len(along) - 1:
            return
        g1 += 1
    for k in range(k0, k1 + 1):
        lo_b, hi_b = int(across[k]), int(across[k + 1])
        if k0 < k < k1:
            full.update((g, k) for g in range(g0, g1))
            continue
        if k0 == k1 or (c0 >= lo_b and c1 <= hi_b):
            span = [c0, c1]
        else:
            span = [c0, hi_b] if k == k0 else [lo_b, c1]
        if block:
            # a macro that would leave a single track free takes that one too
            edge = (k, g0) if horizontal else (g0, k)
            left = int(cap[edge]) - math.ceil((span[1] - span[0]) / layer.pitch)
            if left == 1:
                span[1] += layer.pitch
        for g in range(g0, g1):
            partial[(g, k)].append(tuple(span))


def _covered(spans: list[tuple[int, int]]) -> int:
    """The length the union of ``spans`` covers."""
    total, end = 0, None
    for a, b in sorted(spans):
        if end is None or a > end:
            total += b - a
            end = b
        elif b > end:
            total += b - end
            end = b
    return total


def _apply_obstructions(design: Design, xs, ys, caps: list[np.ndarray], lo: int,
                        hi: int) -> None:
    full: dict[int, set] = defaultdict(set)
    partial: dict[int, dict] = defaultdict(lambda: defaultdict(list))
    die = design.die
    for level, r, block in _obstructions(design, lo, hi):
        layer = design.layers[level - 1]
        if block and layer.spacing:
            s = layer.spacing
            r = (r[0], r[1] - s, r[2], r[3] + s) if layer.direction == "HORIZONTAL" \
                else (r[0] - s, r[1], r[2] + s, r[3])
        r = (max(r[0], die[0]), max(r[1], die[1]), min(r[2], die[2]), min(r[3], die[3]))
        if r[0] > r[2] or r[1] > r[3]:
            continue
        _blocked_intervals(r, layer, xs, ys, caps[level - 1], block, full[level],
                           partial[level])
    for level, edges in partial.items():
        cap, pitch = caps[level - 1], design.layers[level - 1].pitch
        horizontal = design.layers[level - 1].direction == "HORIZONTAL"
        for (g, k), spans in edges.items():
            edge = (k, g) if horizontal else (g, k)
            cap[edge] = max(0, int(cap[edge]) - math.ceil(_covered(spans) / pitch))
    for level, edges in full.items():
        horizontal = design.layers[level - 1].direction == "HORIZONTAL"
        for g, k in edges:
            caps[level - 1][(k, g) if horizontal else (g, k)] = 0


def _derate(cap: np.ndarray, fraction: float) -> np.ndarray:
    new = np.floor(cap * (1.0 - fraction)).astype(cap.dtype)
    if fraction != 1:
        new = np.where(cap > 0, np.maximum(new, 1), new)
    return new


def _layer_range(design: Design, min_layer: str | None, max_layer: str | None,
                 adjust: dict[str, float]) -> tuple[int, int]:
    lo, hi = default_layers(design)
    lo = _level(design, min_layer, "--min-layer") or lo
    hi = _level(design, max_layer, "--max-layer") or hi
    if lo > hi:
        raise InputError(f"the minimum layer is above the maximum ({lo} > {hi})",
                         field="--min-layer")
    for frac in adjust.values():
        if not 0.0 <= frac <= 1.0:
            raise InputError(f"an adjustment is a fraction in [0, 1], got {frac}",
                             field="--adjust")
    return lo, hi


def gcell_grid(design: Design, *, min_layer: str | None = None,
               max_layer: str | None = None,
               adjust: dict[str, float] | None = None) -> GCellGrid:
    """Build ``design``'s GCell grid and edge capacities as OpenROAD's ``grt`` does.

    Parameters
    ----------
    design : Design
        A design read by :func:`mazeroute.readers.lefdef.read_design`.
    min_layer, max_layer : str, optional
        The lowest and highest routing layers (names); by default OpenROAD's: the
        second routing layer, and the highest layer reached with tracks on every layer.
    adjust : dict of str to float, optional
        A fraction of capacity to take away per layer, as ``set_global_routing_layer_
        adjustment`` does.

    Returns
    -------
    GCellGrid
        The boundaries, per-layer capacities and resource totals.

    Raises
    ------
    InputError
        An unknown layer, a range upside down, an adjustment outside ``[0, 1]``, or a
        layer in range without tracks.

    Examples
    --------
    >>> from mazeroute.readers.lefdef import Design, RoutingLayer, Tracks
    >>> m1 = RoutingLayer("m1", 1, "HORIZONTAL", 10, 4, 4, 5)
    >>> m2 = RoutingLayer("m2", 2, "VERTICAL", 10, 4, 4, 5)
    >>> d = Design("t", 1000, (0, 0, 300, 300), (m1, m2),
    ...            (Tracks("m1", "Y", 5, 30, 10), Tracks("m2", "X", 5, 30, 10)),
    ...            {}, (), {}, (), 0)
    >>> g = gcell_grid(d)
    >>> g.tile, g.shape, g.original
    (150, (2, 2), (0, 30))
    """
    lo, hi = _layer_range(design, min_layer, max_layer, adjust or {})
    tile = tile_size(design, hi)
    die = design.die
    xs, ys = _bounds(die[0], die[2], tile), _bounds(die[1], die[3], tile)
    nx, ny = len(xs) - 1, len(ys) - 1
    layers = design.layers[:hi]
    caps: list[np.ndarray] = []
    for lay in layers:
        horizontal = lay.direction == "HORIZONTAL"
        cap = np.zeros((ny, nx - 1) if horizontal else (ny - 1, nx), dtype=np.int32)
        t = layer_tracks(design, lay)
        if lo <= lay.level and t is not None:
            per = _tracks_per_gcell(t, ys if horizontal else xs)
            cap[:] = per[:, None] if horizontal else per[None, :]
        elif lo <= lay.level:
            raise InputError(f"layer {lay.name} has no TRACKS along its direction",
                             field="TRACKS")
        caps.append(cap)
    _apply_obstructions(design, xs, ys, caps, lo, hi)
    original = tuple(int(c.sum()) for c in caps)
    for name, frac in (adjust or {}).items():
        level = _level(design, name, "--adjust")
        if lo <= level <= hi:
            caps[level - 1] = _derate(caps[level - 1], frac)
    derated = tuple(int(c.sum()) for c in caps)
    empty_h = np.zeros((ny, nx - 1), dtype=np.int32)
    empty_v = np.zeros((ny - 1, nx), dtype=np.int32)
    h_cap = np.stack([c if lay.direction == "HORIZONTAL" else empty_h
                      for lay, c in zip(layers, caps)])
    v_cap = np.stack([c if lay.direction == "VERTICAL" else empty_v
                      for lay, c in zip(layers, caps)])
    return GCellGrid(xs, ys, tile, tuple(layers), lo, hi, h_cap, v_cap, original, derated)


def resources_table(grid: GCellGrid) -> str:
    """The routing resources in the shape of OpenROAD's ``Routing resources analysis``.

    >>> from mazeroute.readers.lefdef import RoutingLayer
    >>> lay = RoutingLayer("m2", 2, "VERTICAL", 10, 4, 4, 5)
    >>> z = np.zeros((1, 1, 1), dtype=np.int32)
    >>> g = GCellGrid(np.array([0, 1]), np.array([0, 1]), 1, (lay,), 1, 1, z, z, (10,), (5,))
    >>> print(resources_table(g).splitlines()[-2])
    m2         Vertical           10             5          50.00%
    """
    rule = "-" * 63
    lines = ["          Routing      Original      Derated      Resource",
             "Layer     Direction    Resources     Resources    Reduction (%)", rule]
    for lay, orig, der in zip(grid.layers, grid.original, grid.derated):
        direction = "Horizontal" if lay.direction == "HORIZONTAL" else "Vertical"
        cut = (1.0 - der / orig) * 100 if orig > 0 else 0.0
        lines.append(f"{lay.name:<7s}    {direction:<10s}   {orig:8d}      {der:8d}"
                     f"          {cut:3.2f}%")
    lines.append(rule)
    return "\n".join(lines)


__all__ = ["GCellGrid", "LayerTracks", "gcell_grid", "default_layers", "tile_size",
           "layer_tracks", "resources_table", "cell_of", "PITCHES_PER_GCELL"]
