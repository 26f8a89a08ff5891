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
