"""Reproducible synthetic layouts: random rectangles, perfect mazes, random nets.

Every generator takes a seed and gives the same layout for it on every machine. The
layout classes that benchmarks name (``"maze:0.02"``, ``"spiral:4"``, ...) are in
:data:`LAYOUT_CLASSES`, made by :func:`class_mask`. This module sits right of the router
(:func:`wired_mask` routes nets to make its layout).

Examples
--------
>>> lay = random_layout(64, 48, density=0.25, nets=5, pins=2, seed=1)
>>> lay.width, lay.height, len(lay.nets)
(64, 48, 5)
>>> m = perfect_maze(7, 5, seed=0)      # 12 rooms joined by 11 one-cell passages
>>> int((~m.blocked).sum())
23
>>> int((~class_mask("serpentine:2", 12)).sum())        # 4 rows of 2 x 12 and 3 joins
102
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numba
import numpy as np

from .errors import InputError
from .layout import Layout, Net, Rect, paint
from .router import Router


def random_rects(width: int, height: int, density: float, rng: np.random.Generator,
                 max_side: int | None = None) -> list[Rect]:
    """Rectangles dropped at random until ``density`` of the cells are covered."""
    if not 0 <= density < 1:
        raise InputError(f"density must be in [0, 1), got {density}", field="density")
    max_side = max_side or max(1, min(64, max(width, height) // 8))
    target = int(density * width * height)
    covered = np.zeros((height, width), dtype=bool)
    rects: list[Rect] = []
    n = 0
    while n < target:
        batch = max(16, (target - n) // max(1, max_side * max_side // 4))
        ws = rng.integers(1, max_side + 1, batch)
        hs = rng.integers(1, max_side + 1, batch)
        xs = rng.integers(0, width, batch)
        ys = rng.integers(0, height, batch)
        for x0, y0, w, h in zip(xs.tolist(), ys.tolist(), ws.tolist(), hs.tolist()):
            x1, y1 = min(width - 1, x0 + w - 1), min(height - 1, y0 + h - 1)
            patch = covered[y0:y1 + 1, x0:x1 + 1]
            n += patch.size - int(patch.sum())
            patch[...] = True
            rects.append((x0, y0, x1, y1))
            if n >= target:
                break
    return rects


@numba.njit(cache=True)
def _carve(rw, rh, rand):
    """Randomised depth-first backtracker over an rw x rh array of rooms."""
    h, w = 2 * rh - 1, 2 * rw - 1
    free = np.zeros((h, w), dtype=np.bool_)
    seen = np.zeros(rw * rh, dtype=np.bool_)
    stack = np.empty(rw * rh, dtype=np.int64)
    top = 0
    stack[0] = 0
    seen[0] = True
    free[0, 0] = True
    k = 0
    dx = (0, -1, 1, 0)
    dy = (-1, 0, 0, 1)
    opts = np.empty(4, dtype=np.int64)
    while top >= 0:
        r = stack[top]
        ry, rx = divmod(r, rw)
        m = 0
        for d in range(4):
            nx, ny = rx + dx[d], ry + dy[d]
            if 0 <= nx < rw and 0 <= ny < rh and not seen[ny * rw + nx]:
                opts[m] = d
                m += 1
        if m == 0:
            top -= 1
            continue
        d = opts[int(rand[k % rand.size] * m)]
        k += 1
        nx, ny = rx + dx[d], ry + dy[d]
        seen[ny * rw + nx] = True
        free[2 * ry + dy[d], 2 * rx + dx[d]] = True
        free[2 * ny, 2 * nx] = True
        top += 1
        stack[top] = ny * rw + nx
    return free


def maze_mask(width: int, height: int, seed: int = 0) -> np.ndarray:
    """Blocked mask of a perfect maze: one-cell corridors, exactly one path between cells.

    Rooms sit on even coordinates; a ``(2k+1)`` wide grid uses every column, an even
    width leaves the last column blocked.
    """
    rw, rh = (width + 1) // 2, (height + 1) // 2
    rand = np.random.default_rng(seed).random(2 * rw * rh + 1)
    free = np.zeros((height, width), dtype=bool)
    free[:2 * rh - 1, :2 * rw - 1] = _carve(rw, rh, rand)
    return ~free


def loopy_maze_mask(width: int, height: int, fraction: float, seed: int = 0) -> np.ndarray:
    """Blocked mask of a perfect maze with ``fraction`` of its inner walls between two
    corridors removed (each removal adds a loop; 0 keeps the maze perfect).

    >>> m = loopy_maze_mask(31, 31, 0.0, seed=1)
    >>> bool((m == maze_mask(31, 31, seed=1)).all())
    True
    """
    blocked = maze_mask(width, height, seed)
    free = ~blocked
    ys, xs = np.nonzero(blocked)
    inner = (ys > 0) & (ys < height - 1) & (xs > 0) & (xs < width - 1)
    ys, xs = ys[inner], xs[inner]
    between = ((free[ys - 1, xs] & free[ys + 1, xs]) | (free[ys, xs - 1] & free[ys, xs + 1]))
    ys, xs = ys[between], xs[between]
    pick = np.random.default_rng(seed).random(ys.size) < fraction
    blocked[ys[pick], xs[pick]] = False
    return blocked


@numba.njit(cache=True)
def _kruskal(rw, rh, w, order, extra):
    """Rooms ``w`` x ``w`` on a pitch of ``w + 1``; ``order``: the walls between
    neighbouring rooms in the order tried (horizontal ones first by index, then
    vertical); a wall goes when it joins two trees, or where ``extra`` says so."""
    pitch = w + 1
    free = np.zeros((rh * pitch + 1, rw * pitch + 1), dtype=np.bool_)
    for r in range(rw * rh):
        y, x = divmod(r, rw)
        free[1 + y * pitch:1 + y * pitch + w, 1 + x * pitch:1 + x * pitch + w] = True
    parent = np.arange(rw * rh)
    across = (rw - 1) * rh
    for k in range(order.size):
        e = order[k]
        if e < across:
            y, x = divmod(e, rw - 1)
            a, b = y * rw + x, y * rw + x + 1
        else:
            y, x = divmod(e - across, rw)
            a, b = y * rw + x, (y + 1) * rw + x
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        while parent[b] != b:
            parent[b] = parent[parent[b]]
            b = parent[b]
        if a == b and not extra[k]:
            continue
        parent[a] = b
        if e < across:
            free[1 + y * pitch:1 + y * pitch + w, 1 + x * pitch + w] = True
        else:
            free[1 + y * pitch + w, 1 + x * pitch:1 + x * pitch + w] = True
    return free


def kruskal_maze_mask(width: int, height: int, loops: float = 0.0, corridor: int = 1,
                      seed: int = 0) -> np.ndarray:
    """Blocked mask of a maze made another way than :func:`maze_mask`'s: a random
    spanning tree of rooms ``corridor`` cells wide by Kruskal's algorithm (uniform
    choices of walls: many short dead ends where the backtracker carves long
    corridors), with ``loops`` of the other walls between rooms removed. Benchmarks
    use it as a maze that no rule was chosen on; no layout class makes it.

    >>> m = kruskal_maze_mask(9, 9, seed=1)          # 16 rooms, 15 passages: a tree
    >>> int((~m).sum())
    31
    >>> kruskal_maze_mask(9, 9, corridor=3).shape, int((~kruskal_maze_mask(9, 9, 1.0)).sum())
    ((9, 9), 40)
    """
    if width < 1 or height < 1 or corridor < 1:
        raise InputError("a maze needs a positive size and corridor width", field="size")
    pitch = corridor + 1
    rw, rh = max(1, (width - 1) // pitch), max(1, (height - 1) // pitch)
    rng = np.random.default_rng(seed)
    walls = (rw - 1) * rh + rw * (rh - 1)
    order = rng.permutation(walls).astype(np.int64)
    extra = rng.random(walls) < loops
    free = np.zeros((height, width), dtype=bool)
    carved = _kruskal(rw, rh, corridor, order, extra)
    hh, ww = min(height, carved.shape[0]), min(width, carved.shape[1])
    free[:hh, :ww] = carved[:hh, :ww]
    return ~free


def serpentine_mask(n: int, width: int) -> np.ndarray:
    """Blocked mask of one corridor ``width`` cells wide winding down an ``n`` x ``n``
    grid: rows one wall cell apart, joined at alternate ends.

    >>> print("\\n".join("".join("-#"[int(b)] for b in r) for r in serpentine_mask(5, 1)))
    -----
    ####-
    -----
    -####
    -----
    """
    free = np.zeros((n, n), bool)
    y, k = 0, 0
    while y + width <= n:
        free[y:y + width] = True
        if y + 2 * width + 1 <= n:
            x = n - width if k % 2 == 0 else 0
            free[y + width, x:x + width] = True
        y, k = y + width + 1, k + 1
    return ~free


def spiral_mask(n: int, width: int) -> np.ndarray:
    """Blocked mask of one corridor ``width`` cells wide spiralling inwards from the
    top-left corner of an ``n`` x ``n`` grid, walls one cell thick.

    >>> print("\\n".join("".join("-#"[int(b)] for b in r) for r in spiral_mask(8, 1)))
    -------#
    ######-#
    -----#-#
    -###-#-#
    -#---#-#
    -#####-#
    -------#
    ########
    """
    m = n // (width + 1)
    # The corridor's turns on an m x m grid of corridor blocks: each straight run of
    # the spiral is one rectangle from its first block to its last, and consecutive
    # runs (and the join into the next ring) meet in adjacent blocks. A run is drawn
    # whole, not block by block: a 2048 x 2048 spiral of width 1 has a million blocks.
    runs: list[tuple[int, int, int, int]] = []          # (y0, x0, y1, x1) in blocks
    top, left, bot, right = 0, 0, m - 1, m - 1
    while top <= bot and left <= right:
        runs.append((top, left, top, right))
        if top < bot:
            runs.append((top + 1, right, bot, right))
            if left < right:
                runs.append((bot, right - 1, bot, left))
        if left < right and top + 1 < bot:
            runs.append((bot - 1, left, top + 1, left))
        top, left, bot, right = top + 1, left + 1, bot - 1, right - 1
    free = np.zeros((n, n), bool)
    step = width + 1
    prev = None
    for y0, x0, y1, x1 in runs:
        pairs = [((y0, x0), (y1, x1))] if prev is None else [(prev, (y0, x0)),
                                                              ((y0, x0), (y1, x1))]
        for (ay, ax), (by, bx) in pairs:
            free[min(ay, by) * step:max(ay, by) * step + width,
                 min(ax, bx) * step:max(ax, bx) * step + width] = True
        prev = (y1, x1)
    return ~free


def mask_to_rects(blocked: np.ndarray) -> list[Rect]:
    """Cover a blocked mask exactly with rectangles: row runs, merged down columns."""
    rects: list[Rect] = []
    open_runs: dict[tuple[int, int], int] = {}   # (x0, x1) -> first row
    h = blocked.shape[0]
    for y in range(h + 1):
        runs = set()
        if y < h:
            row = np.concatenate(([False], blocked[y], [False])).astype(np.int8)
            edges = np.flatnonzero(np.diff(row))
            runs = set(zip(edges[::2].tolist(), (edges[1::2] - 1).tolist()))
        for run in list(open_runs):
            if run not in runs:
                rects.append((run[0], open_runs.pop(run), run[1], y - 1))
        for run in runs:
            open_runs.setdefault(run, y)
    rects.sort(key=lambda r: (r[1], r[0]))
    return rects


def random_nets(blocked: np.ndarray, count: int, pins: int, rng: np.random.Generator,
                prefix: str = "n", span: int | None = None,
                regions: np.ndarray | None = None) -> list[Net]:
    """``count`` nets of ``pins`` distinct free cells each, no cell shared.

    With ``span``, every pin of a net lies within Manhattan distance ``span`` of the
    net's first pin, as in a router's local nets; the first pins are spread over the
    whole layout. Without it, pins are drawn from all free cells. ``regions`` (with
    ``span``): a label per cell; a net's pins then share their first pin's label (the
    connected regions of a map: every net can be routed alone).

    >>> blocked = np.zeros((100, 100), bool)
    >>> nets = random_nets(blocked, 20, 2, np.random.default_rng(0), span=8)
    >>> max(n.hpwl for n in nets) <= 8
    True
    """
    if pins < 2:
        raise InputError(f"a net needs at least 2 pins, got {pins}", field="pins")
    free = np.flatnonzero(~blocked.ravel())
    if count * pins > free.size:
        raise InputError(f"{count} nets of {pins} pins need {count * pins} free cells, "
                         f"the layout has {free.size}", field="nets")
    w = blocked.shape[1]
    if span is None:
        chosen = rng.choice(free, size=count * pins, replace=False)
        cells = [(int(v % w), int(v // w)) for v in chosen]
    else:
        cells = _local_pins(blocked, count, pins, rng, span, regions)
    width = len(str(max(count - 1, 0)))
    return [Net(f"{prefix}{i:0{width}d}", cells[i * pins:(i + 1) * pins]) for i in range(count)]


def _local_pins(blocked: np.ndarray, count: int, pins: int, rng: np.random.Generator,
                span: int, regions: np.ndarray | None = None) -> list[tuple[int, int]]:
    """Pins of ``count`` nets, each net's pins within ``span`` of its first (rejection)."""
    if not isinstance(span, (int, np.integer)) or span < 1:
        raise InputError(f"span must be an integer >= 1, got {span!r}", field="span")
    h, w = blocked.shape
    # No two cells are further apart than the grid's diameter: a larger span means the same
    # and would only draw offsets off the grid (span 1000 on 10 x 10 found no place, and
    # one past 2^63 made NumPy raise).
    span = min(int(span), max(w + h - 2, 1))
    used = blocked.copy()            # blocked or already a pin
    cells: list[tuple[int, int]] = []
    roots = iter(rng.permutation(np.flatnonzero(~blocked.ravel())).tolist())
    for _ in range(count):
        for root in roots:
            ry, rx = divmod(root, w)
            if used[ry, rx]:
                continue
            net = [(rx, ry)]
            used[ry, rx] = True
            for _try in range(64 * pins):
                if len(net) == pins:
                    break
                dx, dy = (int(v) for v in rng.integers(-span, span + 1, 2))
                x, y = rx + dx, ry + dy
                if (abs(dx) + abs(dy) <= span and 0 <= x < w and 0 <= y < h and not used[y, x]
                        and (regions is None or regions[y, x] == regions[ry, rx])):
                    net.append((x, y))
                    used[y, x] = True
            if len(net) == pins:
                cells += net
                break
            for x, y in net:            # too crowded here: give the cells back, next root
                used[y, x] = False
        else:
            raise InputError(f"cannot place {count} nets of {pins} pins within span {span} "
                             "on this layout", field="span")
    return cells


def random_layout(width: int, height: int, *, density: float = 0.25, nets: int = 10,
                  pins: int = 2, seed: int = 0, name: str | None = None,
                  span: int | None = None) -> Layout:
    """Random rectangular blockages at ``density`` with ``nets`` random nets.

    ``span`` keeps each net's pins within that Manhattan distance of its root.
    """
    rng = np.random.default_rng(seed)
    rects = random_rects(width, height, density, rng)
    layout = Layout(name or f"rects-{width}x{height}-s{seed}", width, height, rects)
    layout.nets = random_nets(layout.blocked, nets, pins, rng, span=span)
    return layout


def perfect_maze(width: int, height: int, *, nets: int = 0, pins: int = 2, seed: int = 0,
                 name: str | None = None, span: int | None = None) -> Layout:
    """A perfect maze with ``nets`` random nets on its corridors (``span`` as above)."""
    blocked = maze_mask(width, height, seed)
    layout = Layout(name or f"maze-{width}x{height}-s{seed}", width, height,
                    mask_to_rects(blocked), [], blocked)
    if nets:
        layout.nets = random_nets(blocked, nets, pins, np.random.default_rng(seed + 1),
                                  span=span)
    return layout


def nets_on(layout: Layout, count: int, pins: int = 2, seed: int = 0,
            span: int | None = None) -> list[Net]:
    """``count`` random nets of ``pins`` pins on the free cells of ``layout``'s grid (its
    own nets ignored), the same for the same seed: a netlist for a map that has none.

    With ``span``, each net's pins lie within that Manhattan distance of its first pin
    and in its connected region, so that each net alone can be routed. Without it the
    pins lie anywhere: long nets, most of which cannot all be routed together.

    >>> room = Layout("room", 30, 10, [(10, 0, 10, 9)])           # a wall: two regions
    >>> nets = nets_on(room, 12, span=6, seed=1)
    >>> all((a[0] < 10) == (b[0] < 10) for a, b in (n.pins for n in nets))
    True
    >>> [n.pins for n in nets] == [n.pins for n in nets_on(room, 12, span=6, seed=1)]
    True
    """
    regions = None
    if span is not None:
        # the 4-connected regions of free cells (scipy's default structure)
        from scipy import ndimage
        regions, _ = ndimage.label(~layout.blocked)
    return random_nets(layout.blocked, count, pins, np.random.default_rng(seed), span=span,
                       regions=regions)


def netlist_text(nets: list[Net]) -> str:
    """A netlist file (just ``nets:``, as ``--nets`` reads) of generated nets, whose
    names are plain words.

    >>> print(netlist_text([Net("n0", [(0, 0), (3, 1)])]), end="")
    nets:
      - {name: n0, pins: [[0, 0], [3, 1]]}
    """
    lines = ["nets:" + ("" if nets else " []")]
    for n in nets:
        pins = ", ".join(f"[{x}, {y}]" for x, y in n.pins)
        lines.append(f"  - {{name: {n.name}, pins: [{pins}]}}")
    return "\n".join(lines) + "\n"


def wired_mask(width: int, height: int, net_density: float = 1.0, seed: int = 0, *,
               density: float = 0.1, span: int = 64, pins: int = 2) -> np.ndarray:
    """Blocked mask of a layout after many wires were committed.

    Random rectangles cover ``density`` of the grid; then ``net_density`` nets per 1024
    cells (a 32 x 32 block), each of ``pins`` pins within ``span`` of its first, are
    routed one after another (the sequential router on the CPU engine, file order, as
    a first routing pass commits them). Every pin and every routed wire becomes a
    blockage, so the free space left is cut into rooms and passages by one-cell wires.
    Nets that find no path leave only their pins. The more nets, the more rooms the
    wires close off: the free space falls apart into many regions as ``net_density``
    grows past about one.

    >>> blocked = wired_mask(64, 64, net_density=4, seed=1)
    >>> rects = paint(64, 64, random_rects(64, 64, 0.1, np.random.default_rng(1)))
    >>> bool((blocked >= rects).all()), int(blocked.sum()) > int(rects.sum()) + 2 * 16
    (True, True)
    """
    if not net_density >= 0:
        raise InputError(f"net density must be >= 0, got {net_density}", field="net_density")
    rng = np.random.default_rng(seed)
    layout = Layout(f"wired-{width}x{height}-s{seed}", width, height,
                    random_rects(width, height, density, rng))
    count = int(round(net_density * width * height / 1024))
    blocked = layout.blocked.copy()
    if count == 0:
        return blocked
    layout.nets = random_nets(layout.blocked, count, pins, rng, span=span)
    result = Router(layout, "cpu").run()
    cells = [np.asarray(net.pins) for net in layout.nets]
    cells += [r.cell_array() for r in result.nets if r.routed]
    xy = np.concatenate(cells).reshape(-1, 2)
    blocked[xy[:, 1], xy[:, 0]] = True
    return blocked


def tile_mask(blocked: np.ndarray, times: int) -> np.ndarray:
    """Blocked mask of ``times`` x ``times`` mirrored copies of a map, joined into one.

    A real map is usually walled in, so plain copies side by side would be ``times**2``
    separate maps. Here the map is first cropped to the bounding box of its largest
    4-connected free region, and every other copy is mirrored (left-right in odd
    columns of copies, top-bottom in odd rows), so each seam puts a copy's edge beside
    its own mirror image: the region touches every edge of its box, so its copies join
    into one region of ``times**2`` times its cells.

    >>> m = np.array([[1, 1, 1, 1], [1, 0, 0, 1], [1, 0, 1, 1], [1, 1, 1, 1]], bool)
    >>> print("\\n".join("".join("-#"[int(b)] for b in r) for r in tile_mask(m, 2)))
    ----
    -##-
    -##-
    ----
    """
    import scipy.ndimage

    if times < 1:
        raise InputError(f"times must be >= 1, got {times}", field="times")
    free = ~np.asarray(blocked, dtype=bool)
    labels, count = scipy.ndimage.label(free)
    if count == 0:
        raise InputError("the map has no free cell", field="blocked")
    sizes = np.bincount(labels.ravel())
    sizes[0] = 0
    ys, xs = np.nonzero(labels == int(np.argmax(sizes)))
    crop = ~free[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
    row = np.hstack([crop if j % 2 == 0 else crop[:, ::-1] for j in range(times)])
    return np.vstack([row if i % 2 == 0 else row[::-1] for i in range(times)])


# -- layout classes by name ------------------------------------------------------------
@dataclass(frozen=True)
class LayoutClass:
    """A family of square layouts that benchmarks name as ``family`` or ``family:value``.

    ``make(size, seed, value)`` gives the ``size`` x ``size`` blocked mask; ``value`` is
    the family's one parameter (``parameter``, ``default`` when the name omits it).
    """

    family: str
    parameter: str
    default: float
    integer: bool
    allowed: Callable[[float], bool]
    bounds: str                  # the allowed values, in words
    make: Callable[[int, int, float], np.ndarray]
    summary: str


def _rects_mask(max_side: int | None) -> Callable[[int, int, float], np.ndarray]:
    def make(size: int, seed: int, density: float) -> np.ndarray:
        rng = np.random.default_rng(seed)
        return paint(size, size, random_rects(size, size, density, rng, max_side=max_side))
    return make


#: Every layout family :func:`class_mask` knows, by name.
LAYOUT_CLASSES: dict[str, LayoutClass] = {c.family: c for c in [
    LayoutClass("open", "density", 0.25, False, lambda v: 0 <= v < 1, "in [0, 1)",
                _rects_mask(None),
                "random rectangles (sides up to min(64, size/8)) covering `density`"),
    LayoutClass("dense", "density", 0.5, False, lambda v: 0 <= v < 1, "in [0, 1)",
                _rects_mask(4), "random rectangles of sides 1-4 covering `density`"),
    LayoutClass("maze", "loops", 0.0, False, lambda v: 0 <= v <= 1, "in [0, 1]",
                lambda n, seed, f: loopy_maze_mask(n, n, f, seed),
                "perfect maze with `loops` of its inner walls between corridors removed"),
    LayoutClass("serpentine", "width", 1, True, lambda v: v >= 1, ">= 1",
                lambda n, seed, w: serpentine_mask(n, int(w)),
                "one corridor `width` cells wide winding down the grid (no seed)"),
    LayoutClass("spiral", "width", 1, True, lambda v: v >= 1, ">= 1",
                lambda n, seed, w: spiral_mask(n, int(w)),
                "one corridor `width` cells wide spiralling inwards (no seed)"),
    LayoutClass("wired", "net_density", 1.0, False, lambda v: v >= 0, ">= 0",
                lambda n, seed, d: wired_mask(n, n, d, seed),
                "10 % rectangles, then `net_density` local two-pin nets (span 64) per "
                "1024 cells routed one by one; their pins and wires become blockages"),
]}


def parse_class(name: str) -> tuple[LayoutClass, float]:
    """The family and parameter value of a class name ``family`` or ``family:value``.

    >>> c, v = parse_class("maze:0.02")
    >>> c.family, c.parameter, v
    ('maze', 'loops', 0.02)
    """
    family, sep, text = name.strip().partition(":")
    cls = LAYOUT_CLASSES.get(family)
    if cls is None:
        raise InputError(f"unknown layout class {name!r}; families: "
                         + ", ".join(LAYOUT_CLASSES), field="class")
    if not sep:
        return cls, cls.default
    try:
        value = int(text) if cls.integer else float(text)
    except ValueError:
        kind = "an integer" if cls.integer else "a number"
        raise InputError(f"{cls.family}'s {cls.parameter} must be {kind}, got {text!r}",
                         field="class") from None
    if not cls.allowed(value):
        raise InputError(f"{cls.family}'s {cls.parameter} must be {cls.bounds}, got {text}",
                         field="class")
    return cls, value


def class_mask(name: str, size: int, seed: int = 0) -> np.ndarray:
    """Blocked mask of layout class ``name`` on a ``size`` x ``size`` grid.

    ``name`` is a family of :data:`LAYOUT_CLASSES` with its parameter after a colon:
    ``open:0.25`` (rectangle density), ``dense:0.5``, ``maze:0.02`` (fraction of inner
    walls removed; ``maze`` alone is a perfect maze), ``serpentine:2`` and ``spiral:4``
    (corridor width), ``wired:1.5`` (nets per 1024 cells routed before). An even ``size``
    leaves a maze's last row and column blocked.

    >>> m = class_mask("spiral:1", 8)
    >>> m.shape, int((~m).sum())
    ((8, 8), 31)
    """
    cls, value = parse_class(name)
    if size < 1:
        raise InputError(f"size must be >= 1, got {size}", field="size")
    return cls.make(int(size), int(seed), value)
