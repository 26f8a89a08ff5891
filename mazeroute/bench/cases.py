"""What the suites measure: layout classes, Moving AI maps, routing cases, puzzles.

Every layout here is made from a seed and is the same on every machine. The wavefront
source of a layout is the first cell (row-major) of its largest 4-connected free region,
so that a wavefront never dies in a pocket.

Examples
--------
>>> case = make_case("maze", 9)
>>> case.size, case.source
('9x9', 0)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import InputError
from ..generate import class_mask, parse_class, random_layout, random_nets, random_rects, tile_mask
from ..layout import Layout
from ..readers import read_movingai

SYNTHETIC = ("open", "dense", "maze")
MAPS = ("den520d", "brc202d", "ost003d")
CLASSES = SYNTHETIC + MAPS
DEFAULT_SIZE = 1024
MAX_SIZE = 32768
#: Where the Moving AI maps live in a checkout (``--maps`` overrides).
MAPS_DIR = Path(__file__).resolve().parents[2] / "benchmarks" / "maps"
#: Where the numberlink puzzles live beside a checkout (``--puzzles`` overrides).
PUZZLES_DIR = Path(__file__).resolve().parents[3] / "shared" / "data" / "numberlink"

#: Layout classes of the classes suite (names :func:`~mazeroute.generate.class_mask`
#: knows), each at every side of ``--sizes``; those of :data:`BIG_CLASSES` also at
#: ``--big``. Every Moving AI map of ``--maps`` joins them, at its own size and tiled
#: :data:`MAP_TILES` x :data:`MAP_TILES` (:func:`~mazeroute.generate.tile_mask`: mirrored
#: copies whose free regions join, so the wavefront crosses every copy).
CLASS_SUITE = ("serpentine:1", "serpentine:2", "serpentine:4", "serpentine:8",
               "spiral:1", "spiral:2", "spiral:4", "maze:0", "maze:0.002", "maze:0.02",
               "maze:0.2", "wired:1", "wired:1.5", "dense:0.5", "open:0.25")
BIG_CLASSES = ("open:0.25",)
CLASS_SIZES = (1024, 2048)
BIG_SIZE = 4096
MAP_TILES = 4

#: ``(side, nets)`` of the negotiate suite's rectangles layouts (25 % blocked, span 64).
NEGOTIATE_LAYOUTS = ((1024, 2000), (1024, 4000), (2048, 8000))
#: The numberlink puzzle files of the negotiate suite.
NEGOTIATE_PUZZLES = ("inputs9.txt", "inputs10.txt", "inputs6.txt")
#: ``(side, nets)`` of the big layout the negotiate suite routes on a GPU alone.
NEGOTIATE_BIG = (4096, 32000)


@dataclass
class Case:
    """One benchmark graph: a free mask and the wavefront's source vertex."""

    name: str
    free: np.ndarray
    source: int
    note: str

    @property
    def size(self) -> str:
        """``width x height`` of the grid."""
        return f"{self.free.shape[1]}x{self.free.shape[0]}"


def odd(n: int) -> int:
    """The largest odd number <= n: a perfect maze of odd width uses every column."""
    return n if n % 2 else n - 1


def make_case(cls: str, size: int = DEFAULT_SIZE, seed: int = 0,
              maps_dir: str | Path | None = None) -> Case:
    """The graph of a layout class at ``size`` x ``size`` (maps: at their own size).

    Parameters
    ----------
    cls : one of :data:`CLASSES`.
    size : side of a synthetic layout, cells.
    seed : seed of a synthetic layout.
    maps_dir : folder of the Moving AI maps (default :data:`MAPS_DIR`).

    Returns
    -------
    Case
        The free mask and the source of its wavefront.
    """
    if cls in SYNTHETIC:            # generate's classes of the same names, defaults
        blocked = class_mask(cls, size, seed)
        note = {"open": "25% random rectangles (sides up to min(64, size/8))",
                "dense": "50% random rectangles of sides 1-4 (speckle, winding passages)",
                "maze": f"perfect maze {odd(size)}x{odd(size)} (one-cell corridors)"}[cls]
    elif cls in MAPS:
        path = Path(maps_dir or MAPS_DIR) / f"{cls}.map"
        if not path.is_file():
            raise InputError(f"map {cls!r} not found at {path}", field="--maps")
        blocked = read_movingai(path).blocked
        note = "Moving AI map, native size"
    else:
        raise InputError(f"unknown layout class {cls!r}; choose from " + ", ".join(CLASSES),
                         field="--classes")
    free = ~blocked
    return Case(cls, free, corner_source(free), note)


def corner_source(free: np.ndarray) -> int:
    """Row-major first cell of the largest 4-connected free region (its vertex id)."""
    # imported here: every command builds bench's parser, few run a suite
    import scipy.ndimage

    labels, count = scipy.ndimage.label(free)
    if count == 0:
        raise InputError("the layout has no free cell", field="--classes")
    sizes = np.bincount(labels.ravel())
    sizes[0] = 0
    return int(np.argmax(labels.ravel() == int(np.argmax(sizes))))


def parse_classes(text: str | None, maps_dir: str | Path | None = None) -> list[str]:
    """``--classes`` of the table suite: ``all``, ``synthetic``, ``maps`` or class names,
    comma-separated. The default (``all``) leaves out the maps when their folder is
    missing."""
    if text is None or text.strip() == "all":
        have = [m for m in MAPS if (Path(maps_dir or MAPS_DIR) / f"{m}.map").is_file()]
        return list(SYNTHETIC) + have
    out: list[str] = []
    for item in (s.strip() for s in text.split(",")):
        names = {"synthetic": SYNTHETIC, "maps": MAPS}.get(item, (item,))
        for name in names:
            if name not in CLASSES:
                raise InputError(f"unknown layout class {name!r}; choose from all, synthetic, "
                                 "maps, " + ", ".join(CLASSES), field="--classes")
            if name not in out:
                out.append(name)
    return out


def parse_class_names(text: str | None, maps_dir: str | Path | None = None
                      ) -> tuple[list[str], list[Path]]:
    """``--classes`` of the classes suite: class names, ``synthetic`` (every class of
    :data:`CLASS_SUITE`), ``maps`` (every ``.map`` file of the maps folder), a map's
    name, ``all`` (the default: both; no maps when their folder is missing) or ``none``
    (no wavefront rows)."""
    folder = Path(maps_dir or MAPS_DIR)
    every_map = sorted(folder.glob("*.map")) if folder.is_dir() else []
    if text is None or text.strip() == "all":
        return list(CLASS_SUITE), every_map
    if text.strip() == "none":                 # the routing table alone
        return [], []
    names: list[str] = []
    maps: list[Path] = []
    for item in (s.strip() for s in text.split(",")):
        if item in ("synthetic", "maps"):
            new_names, new_maps = (list(CLASS_SUITE), []) if item == "synthetic" else (
                [], every_map)
        elif (folder / f"{item}.map").is_file():
            new_names, new_maps = [], [folder / f"{item}.map"]
        else:
            try:
                parse_class(item)
            except InputError as e:
                raise InputError(f"{e.message}; or synthetic, maps, all or a map of "
                                 f"{folder}", field="--classes") from None
            new_names, new_maps = [item], []
        names += [n for n in new_names if n not in names]
        maps += [m for m in new_maps if m not in maps]
    return names, maps


def class_cases(names: Sequence[str], maps: Sequence[Path],
                sizes: Sequence[int] = CLASS_SIZES, big: int = BIG_SIZE, seed: int = 0
                ) -> list[tuple[str, Callable[[], np.ndarray]]]:
    """``(name, make)`` of every layout of the classes suite, in table order; ``make()``
    gives the free mask (layouts are made one at a time, when measured)."""
    out: list[tuple[str, Callable[[], np.ndarray]]] = []
    for size in sizes:
        out += [(n, lambda n=n, s=size: ~class_mask(n, s, seed)) for n in names]
    if big:
        out += [(n, lambda n=n: ~class_mask(n, big, seed)) for n in names if n in BIG_CLASSES]
    for path in maps:
        out.append((path.stem, lambda p=path: ~read_movingai(p).blocked))
        out.append((f"{path.stem}:x{MAP_TILES}",
                    lambda p=path: ~tile_mask(read_movingai(p).blocked, MAP_TILES)))
    return out


# -- routing layouts ----------------------------------------------------------------------
def route_layout(size: int, nets: int, seed: int = 0, density: float = 0.15,
                 span: int = 64) -> Layout:
    """A routing benchmark layout: ``density`` rectangles, local two-pin nets.

    Each net's second pin lies within Manhattan distance ``span`` of its first, as a
    router's nets mostly do (nets placed farther apart wall each other off much more
    often, and the figure would measure failures more than routing).
    """
    rng = np.random.default_rng(seed)
    rects = random_rects(size, size, density, rng, max_side=max(1, min(32, size // 16)))
    layout = Layout(f"route-{size}x{size}-{nets}nets-s{seed}", size, size, rects)
    layout.nets = random_nets(layout.blocked, nets, 2, rng, span=span)
    return layout


def _rects_routing(density: float) -> Callable[..., Layout]:
    def make(side: int, nets: int, pins: int, span: int | None, seed: int) -> Layout:
        return random_layout(side, side, density=density, nets=nets, pins=pins, seed=seed,
                             span=span)
    return make


def _maze_routing(loops: float) -> Callable[..., Layout]:
    def make(side: int, nets: int, pins: int, span: int | None, seed: int) -> Layout:
        blocked = class_mask(f"maze:{loops}", side, seed)
        layout = Layout(f"maze-{side}-{loops}-s{seed}", side, side, [], [], blocked)
        layout.nets = random_nets(blocked, nets, pins, np.random.default_rng(seed + 1),
                                  span=span)
        return layout
    return make


def _local_routing(side: int, nets: int, pins: int, span: int | None, seed: int) -> Layout:
    return route_layout(side, nets, seed, span=span or 64)


@dataclass(frozen=True)
class RoutingCase:
    """A routing layout of the routing suite: ``make(side, nets, pins, span, seed)``
    builds it for a seed; :meth:`layout` shrinks it by ``scale`` for quick runs."""

    name: str
    what: str
    side: int
    nets: int
    pins: int
    span: int | None           # None: pins anywhere on the grid
    make: Callable[..., Layout]

    def layout(self, seed: int, scale: float = 1.0) -> Layout:
        """The case's layout for ``seed``: sides and spans times ``scale``, nets times
        its square."""
        side = max(16, round(self.side * scale))
        nets = max(1, round(self.nets * scale * scale))
        span = None if self.span is None else max(4, round(self.span * scale))
        return self.make(side, nets, self.pins, span, seed)


ROUTING_CASES = (
    RoutingCase("multipin4_span64_1024", "300 four-pin nets (span 64), 15 % rectangles",
                1024, 300, 4, 64, _rects_routing(0.15)),
    RoutingCase("anywhere_2048", "300 two-pin nets, pins anywhere, 25 % rectangles",
                2048, 300, 2, None, _rects_routing(0.25)),
    RoutingCase("maze2pct_span200_1023", "200 two-pin nets (span 200), maze, 2 % of its "
                "walls removed", 1023, 200, 2, 200, _maze_routing(0.02)),
    RoutingCase("maze20pct_span100_1023", "300 two-pin nets (span 100), maze, 20 % of its "
                "walls removed", 1023, 300, 2, 100, _maze_routing(0.2)),
    RoutingCase("local1000_span64_1024", "1000 two-pin nets (span 64), 15 % rectangles",
                1024, 1000, 2, 64, _local_routing),
)


def parse_routing(text: str | None) -> list[RoutingCase]:
    """``--routing``: routing case names, ``all`` (the default) or ``none``."""
    if text is None or text.strip() == "all":
        return list(ROUTING_CASES)
    if text.strip() == "none":
        return []
    by = {c.name: c for c in ROUTING_CASES}
    out: list[RoutingCase] = []
    for item in (s.strip() for s in text.split(",")):
        if item not in by:
            raise InputError(f"unknown routing case {item!r}; choose from all, none, "
                             + ", ".join(by), field="--routing")
        if by[item] not in out:
            out.append(by[item])
    return out
